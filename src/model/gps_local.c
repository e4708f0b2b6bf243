/* The GAT term of a graph-transformer layer (gps_i.h) on the engine: a one-layer gat_model on
 * [h | I_N], whose identity rows' weight gradient is d loss / d z, so that dh = dz W^T. */
#include "gps_i.h"
#include "core/core.h"

#include <string.h>

/* The offset of the sub-model's tensor called name (it exists). */
static size_t offset_of(const gat_model *m, const char *name)
{
    int n;
    const gat_model_tensor *t = gat_model_tensors(m, &n);
    for (int k = 0; k < n; k++)
        if (!strcmp(t[k].name, name)) return t[k].offset;
    return 0;
}

/* A model for up to cap rows, its weights zero (the identity rows stay so; the h rows are
 * copied in before every forward), and room in x for cap rows. */
static gat_status make(gat_i_gps_local *t, gat_idx cap)
{
    gat_model_config c;
    gat_status st;
    gat_model_free(t->m);
    t->m = NULL;
    gat_csr_destroy(&t->x);
    t->cap = 0;
    if ((size_t)t->D + (size_t)cap > INT32_MAX || (size_t)cap * ((size_t)t->D + 1) > INT32_MAX)
        return gat_i_error(GAT_EINVAL, "gps: %d nodes are too many for the GAT term's identity "
                           "block", cap);
    gat_model_config_default(&c, t->D + cap, t->D);
    c.layers = 1;
    c.out_heads = t->H;
    c.in_dropout = 0;
    c.att_dropout = t->att_p;
    c.negative_slope = t->slope;
    c.options.fixed_threads = 1; /* a bind per forward: no load sampling */
    if ((st = gat_model_create(&t->m, &c, t->seed)) != GAT_OK) return st;
    gat_model_set_order(t->m, GAT_ORDER_NONE);
    gat_model_set_threads(t->m, t->threads);
    gat_real *w = gat_model_params(t->m, NULL) + offset_of(t->m, "layer0.weight");
    memset(w, 0, ((size_t)t->D + (size_t)cap) * (size_t)t->H * (size_t)t->D * sizeof *w);
    if ((st = gat_csr_init(&t->x, cap, t->D + cap, (size_t)cap * ((size_t)t->D + 1))) != GAT_OK)
        return st;
    t->cap = cap;
    t->n = -1;
    return GAT_OK;
}

gat_status gat_i_gps_local_forward(gat_i_gps_local *t, const gat_graph *g, const gat_real *h,
                                   const gat_i_gps_local_params *p, int training, gat_real *out)
{
    gat_status st;
    const gat_idx N = g->n, D = t->D;
    const size_t HD = (size_t)t->H * (size_t)D;
    if ((!t->m || N > t->cap) && (st = make(t, N + N / 2 > N ? N + N / 2 : N)) != GAT_OK)
        return st;
    gat_real *par = gat_model_params(t->m, NULL);
    memcpy(par + offset_of(t->m, "layer0.weight"), p->W, (size_t)D * HD * sizeof *par);
    memcpy(par + offset_of(t->m, "layer0.att_src"), p->a_src, HD * sizeof *par);
    memcpy(par + offset_of(t->m, "layer0.att_dst"), p->a_dst, HD * sizeof *par);
    memcpy(par + offset_of(t->m, "layer0.bias"), p->b, (size_t)D * sizeof *par);
    /* x = [h | I]: the pattern changes with N only */
    gat_csr *x = &t->x;
    x->rows = N;
    if (t->n != N) {
        for (gat_idx i = 0; i < N; i++) {
            const size_t at = (size_t)i * ((size_t)D + 1);
            x->rowptr[i] = (gat_idx)at;
            for (gat_idx d = 0; d < D; d++) x->col[at + (size_t)d] = d;
            x->col[at + (size_t)D] = D + i;
            x->val[at + (size_t)D] = 1;
        }
        x->rowptr[N] = (gat_idx)((size_t)N * ((size_t)D + 1));
        t->n = N;
    }
    for (gat_idx i = 0; i < N; i++)
        memcpy(x->val + (size_t)i * ((size_t)D + 1), h + (size_t)i * D, (size_t)D * sizeof *h);
    /* the values changed in place: bind again (gat/model.h, "Binding") */
    const gat_real *y;
    if ((st = gat_model_bind(t->m, g, x, 0)) != GAT_OK ||
        (st = gat_model_forward(t->m, g, x, training, &y)) != GAT_OK)
        return st;
    memcpy(out, y, (size_t)N * (size_t)D * sizeof *out);
    t->g = g;
    return GAT_OK;
}

gat_status gat_i_gps_local_backward(gat_i_gps_local *t, const gat_i_gps_local_params *p,
                                    const gat_real *dout, gat_real *dh)
{
    gat_status st;
    const gat_idx N = t->n, D = t->D;
    const size_t HD = (size_t)t->H * (size_t)D;
    gat_model_zero_grads(t->m);
    if ((st = gat_model_backward(t->m, dout)) != GAT_OK) return st;
    const gat_real *gr = gat_model_grads(t->m, NULL);
    const gat_real *dW = gr + offset_of(t->m, "layer0.weight"), *dz = dW + (size_t)D * HD;
    const gat_real *ds = gr + offset_of(t->m, "layer0.att_src");
    const gat_real *dd = gr + offset_of(t->m, "layer0.att_dst");
    const gat_real *db = gr + offset_of(t->m, "layer0.bias");
    for (size_t k = 0; k < (size_t)D * HD; k++) p->dW[k] += dW[k];
    for (size_t k = 0; k < HD; k++) p->da_src[k] += ds[k], p->da_dst[k] += dd[k];
    for (gat_idx d = 0; d < D; d++) p->db[d] += db[d];
    /* dh_i += dz_i W^T: one writer per row */
    const int nt = t->threads;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && N > 256)
    for (gat_idx i = 0; i < N; i++) {
        const gat_real *zi = dz + (size_t)i * HD;
        for (gat_idx d = 0; d < D; d++) {
            const gat_real *w = p->W + (size_t)d * HD;
            gat_real s = 0;
            for (size_t c = 0; c < HD; c++) s += zi[c] * w[c];
            dh[(size_t)i * D + d] += s;
        }
    }
    return GAT_OK;
}

void gat_i_gps_local_free(gat_i_gps_local *t)
{
    if (!t) return;
    gat_model_free(t->m);
    gat_csr_destroy(&t->x);
    t->m = NULL;
    t->cap = 0;
}
