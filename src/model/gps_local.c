/* The GAT term of a graph-transformer layer (gps_i.h): the engine (model/fast.h) run directly on
 * the gat_gps parameter buffer, its input h bound as a dense matrix with the input gradient. */
#include "gps_i.h"
#include "core/core.h"

#include <string.h>

void gat_i_gps_local_init(gat_i_gps_local *t, gat_idx D, gat_idx Fo, int H, int concat, size_t w,
                          size_t as, size_t ad, size_t b, double slope, double att_p, int threads)
{
    gat_model_config c;
    gat_model_config_default(&c, D, Fo);
    *t = (gat_i_gps_local){.slope = slope, .att_p = att_p, .threads = threads, .n = -1};
    t->opt = c.options;
    t->opt.fixed_threads = 1; /* a binding per forward: no load sampling */
    t->ops = gat_i_fused_get(t->opt.kernels);
    gat_i_layer *L = &t->L;
    L->fin = D;
    L->fo = Fo;
    L->width = concat ? H * Fo : Fo;
    L->heads = H;
    L->mean = !concat;
    L->linear = concat != 0;
    L->score = GAT_SCORE_GAT;
    L->Fp = gat_i_fused_fp(H, Fo);
    L->hw = L->Fp * H;
    L->w = w, L->a_src = as, L->a_dst = ad, L->b = b;
}

/* x with the pattern of a dense (N, D) matrix (allocated again when N grows) and h's values. */
static gat_status dense_input(gat_i_gps_local *t, gat_idx N, const gat_real *h)
{
    const gat_idx D = t->L.fin;
    const size_t nnz = (size_t)N * (size_t)D;
    if (nnz > INT32_MAX)
        return gat_i_error(GAT_EINVAL, "gps: %d nodes x width %d exceed the engine's 2^31 - 1 "
                           "feature entries", N, D);
    if (t->n != N) {
        gat_status st;
        gat_csr_destroy(&t->x);
        t->n = -1;
        if ((st = gat_csr_init(&t->x, N, D, nnz)) != GAT_OK) return st;
        for (gat_idx i = 0; i <= N; i++) t->x.rowptr[i] = i * D;
        for (size_t e = 0; e < nnz; e++) t->x.col[e] = (gat_idx)(e % (size_t)D);
        t->n = N;
    }
    memcpy(t->x.val, h, nnz * sizeof *h);
    return GAT_OK;
}

gat_status gat_i_gps_local_forward(gat_i_gps_local *t, const gat_graph *g, const gat_real *h,
                                   const gat_real *params, int training, uint64_t key,
                                   gat_real *out)
{
    gat_status st;
    int done = 0;
    if ((st = dense_input(t, g->n, h)) != GAT_OK) return st;
    /* x's values changed: bind again (the engine keeps x's transpose for the weight gradient) */
    const gat_i_binding b = {.g = g, .x = &t->x,
                             .flags = GAT_I_BIND_TRUSTED | GAT_BIND_INPUT_GRADIENT};
    if (t->f && (st = gat_i_fast_rebind(t->f, &b, t->threads, &done)) != GAT_OK) done = 0;
    if (!done) {
        const int grow = t->f != NULL; /* outgrown: room to grow */
        gat_i_fast_free(t->f);
        t->f = NULL;
        if ((st = gat_i_fast_create(&t->f, t->ops, &t->opt, 1, &t->L, &b, t->threads, grow)) !=
            GAT_OK)
            return st;
    }
    const gat_i_fast_run run = {.training = training, .key = key, .att_p = t->att_p,
                                .slope = t->slope, .nt = t->threads};
    gat_i_fast_forward(t->f, params, &b, &run);
    memcpy(out, gat_i_fast_output(t->f, 0), (size_t)g->n * (size_t)t->L.width * sizeof *out);
    return GAT_OK;
}

void gat_i_gps_local_backward(gat_i_gps_local *t, const gat_real *params, gat_real *grads,
                              const gat_real *dout, gat_real *dh)
{
    gat_i_fast_backward(t->f, params, grads, dout, t->threads, NULL, NULL);
    const gat_real *dx = gat_i_fast_input_grad(t->f); /* the binding asked for it */
    const size_t n = (size_t)t->n * (size_t)t->L.fin;
    for (size_t e = 0; e < n; e++) dh[e] += dx[e];
}

void gat_i_gps_local_free(gat_i_gps_local *t)
{
    if (!t) return;
    gat_i_fast_free(t->f);
    gat_csr_destroy(&t->x);
    t->f = NULL;
    t->n = -1;
}
