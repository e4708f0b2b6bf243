/* Whole-model forward and backward of a multi-layer GAT: parameter table, caches sized per graph,
 * dropout streams, the layer loop (projection -> fused attention -> bias -> ELU / head mean). */
#include "model_i.h"
#include "core/core.h"
#include "layers/layers.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* One attention layer's shape and where its tensors sit in the parameter buffer. */
typedef struct layer {
    gat_idx fin, fo;  /* input width, per-head output width */
    int heads, mean;  /* mean: output layer, heads averaged */
    gat_idx width;    /* output width: heads * fo (concat) or fo (mean) */
    size_t w, a_src, a_dst, b; /* offsets of W (fin, heads*fo), a_src/a_dst (heads, fo), b (width) */
} layer;

/* Activations and caches of one layer for the current graph (pointers into ws.block). */
typedef struct cache {
    uint8_t *xmask;  /* input dropout mask: (nnz(x)) for layer 0, (N, fin) after */
    gat_real *xbuf;  /* dropped input: values (nnz(x)) for layer 0, (N, fin) after */
    const gat_real *xin; /* the input used: xbuf, or x's values / the previous output */
    gat_real *z;     /* (N, heads*fo) */
    gat_real *s_src, *s_dst; /* (N, heads) */
    gat_real *alpha; /* (E, heads) */
    uint8_t *amask;  /* (E, heads) or unused */
    gat_real *out;   /* (N, width): after bias and ELU; the next layer's input / the logits */
} cache;

struct gat_model {
    gat_model_config cfg;
    int n_layers;
    layer L[GAT_MAX_LAYERS];
    gat_model_tensor tensors[4 * GAT_MAX_LAYERS];
    char names[4 * GAT_MAX_LAYERS][32];
    int n_tensors;
    size_t n_params;
    gat_real *blob; /* params | grads | Adam m | Adam v, each n_params */
    uint64_t seed, step;
    int threads;
    double in_p, att_p;
    const gat_idx *out_rows;
    gat_idx n_out_rows;

    /* caches for the last graph and features seen */
    struct {
        const gat_graph *g;
        const gat_csr *x;
        gat_idx n, nnz, xnnz;
        void *block;
        cache c[GAT_MAX_LAYERS];
        gat_csr xt;       /* transpose of x, for the sparse weight gradient */
        gat_idx *xt_perm; /* (nnz(x)) x position of each xt position */
        gat_real *dcur, *dy, *dz; /* backward scratch, (N, max width) each */
        gat_i_att_scratch att;
        int threads;      /* thread count att.partial is sized for */
        int trained;      /* the last forward was a training forward */
    } ws;
};

void gat_model_config_default(gat_model_config *cfg, gat_idx in_features, gat_idx classes)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->in_features = in_features;
    cfg->classes = classes;
    cfg->layers = 2;
    cfg->hidden = 8;
    cfg->heads = 8;
    cfg->out_heads = 1;
    cfg->negative_slope = 0.2;
    cfg->in_dropout = 0.6;
    cfg->att_dropout = 0.6;
    cfg->score = GAT_SCORE_GAT;
}

gat_status gat_model_config_check(const gat_model_config *c)
{
    if (!c) return gat_i_error(GAT_EINVAL, "model config is NULL");
    if (c->in_features <= 0) return gat_i_error(GAT_EINVAL, "in_features must be > 0, got %d", c->in_features);
    if (c->classes <= 0) return gat_i_error(GAT_EINVAL, "classes must be > 0, got %d", c->classes);
    if (c->layers < 1 || c->layers > GAT_MAX_LAYERS)
        return gat_i_error(GAT_EINVAL, "layers must be in 1..%d, got %d", GAT_MAX_LAYERS, c->layers);
    if (c->layers > 1 && (c->hidden <= 0 || c->heads <= 0))
        return gat_i_error(GAT_EINVAL, "hidden (%d) and heads (%d) must be > 0", c->hidden, c->heads);
    if (c->out_heads <= 0) return gat_i_error(GAT_EINVAL, "out_heads must be > 0, got %d", c->out_heads);
    /* the fused attention kernels keep per-head row state on the stack */
    if (c->layers > 1 && c->heads > GAT_I_MAX_HEADS)
        return gat_i_error(GAT_EINVAL, "heads must be at most %d, got %d", GAT_I_MAX_HEADS, c->heads);
    if (c->out_heads > GAT_I_MAX_HEADS)
        return gat_i_error(GAT_EINVAL, "out_heads must be at most %d, got %d", GAT_I_MAX_HEADS,
                           c->out_heads);
    if ((int64_t)c->heads * c->hidden > (1 << 20))
        return gat_i_error(GAT_EINVAL, "hidden layer width heads x hidden = %d x %d exceeds %d",
                           c->heads, c->hidden, 1 << 20);
    if ((int64_t)c->out_heads * c->classes > (1 << 20))
        return gat_i_error(GAT_EINVAL,
                           "output layer width out_heads x classes = %d x %d exceeds %d",
                           c->out_heads, c->classes, 1 << 20);
    if (!(c->in_dropout >= 0 && c->in_dropout < 1))
        return gat_i_error(GAT_EINVAL, "in_dropout must be in [0, 1), got %g", c->in_dropout);
    if (!(c->att_dropout >= 0 && c->att_dropout < 1))
        return gat_i_error(GAT_EINVAL, "att_dropout must be in [0, 1), got %g", c->att_dropout);
    if (!isfinite(c->negative_slope) || c->negative_slope < 0)
        return gat_i_error(GAT_EINVAL, "negative_slope must be finite and >= 0, got %g", c->negative_slope);
    if (c->score != GAT_SCORE_GAT) return gat_i_error(GAT_EINVAL, "unknown score function %d", (int)c->score);
    return GAT_OK;
}

static void add_tensor(gat_model *m, const char *fmt, int l, int ndim, gat_idx d0, gat_idx d1,
                       size_t *offset)
{
    gat_model_tensor *t = &m->tensors[m->n_tensors];
    snprintf(m->names[m->n_tensors], sizeof m->names[0], fmt, l);
    t->name = m->names[m->n_tensors];
    t->ndim = ndim;
    t->shape[0] = d0;
    t->shape[1] = d1;
    t->shape[2] = 0;
    t->offset = *offset;
    t->size = (size_t)d0 * (ndim > 1 ? (size_t)d1 : 1);
    *offset += t->size;
    m->n_tensors++;
}

/* Glorot/Xavier uniform in +-sqrt(6 / (fan_in + fan_out)), per head as the reference code's
 * per-head 1x1 convolutions are initialised. */
static void glorot(gat_rng *r, gat_real *p, size_t n, double fan_in, double fan_out)
{
    const double lim = sqrt(6.0 / (fan_in + fan_out));
    for (size_t k = 0; k < n; k++) p[k] = (gat_real)((2 * gat_rng_uniform(r) - 1) * lim);
}

gat_status gat_model_create(gat_model **out, const gat_model_config *cfg, uint64_t seed)
{
    gat_model *m = NULL;
    gat_status st;
    size_t off = 0;
    gat_rng rng;

    gat_i_clear_error();
    if (!out) return gat_i_error(GAT_EINVAL, "gat_model_create: out is NULL");
    *out = NULL;
    if ((st = gat_model_config_check(cfg)) != GAT_OK) return st;
    if (!(m = gat_calloc(1, sizeof *m))) return GAT_ENOMEM;
    m->cfg = *cfg;
    m->n_layers = cfg->layers;
    m->seed = seed;
    m->threads = gat_i_threads(0);
    m->in_p = cfg->in_dropout;
    m->att_p = cfg->att_dropout;
    for (int l = 0; l < m->n_layers; l++) {
        layer *L = &m->L[l];
        const int last = l == m->n_layers - 1;
        L->fin = l == 0 ? cfg->in_features : m->L[l - 1].width;
        L->fo = last ? cfg->classes : cfg->hidden;
        L->heads = last ? cfg->out_heads : cfg->heads;
        L->mean = last;
        L->width = last ? L->fo : L->heads * L->fo;
        L->w = off;
        add_tensor(m, "layer%d.weight", l, 2, L->fin, L->heads * L->fo, &off);
        L->a_src = off;
        add_tensor(m, "layer%d.att_src", l, 2, L->heads, L->fo, &off);
        L->a_dst = off;
        add_tensor(m, "layer%d.att_dst", l, 2, L->heads, L->fo, &off);
        L->b = off;
        add_tensor(m, "layer%d.bias", l, 1, L->width, 0, &off);
    }
    m->n_params = off;
    if (!(m->blob = gat_calloc(4 * off, sizeof *m->blob))) {
        gat_free(m);
        return GAT_ENOMEM;
    }
    gat_rng_seed(&rng, seed);
    for (int l = 0; l < m->n_layers; l++) {
        const layer *L = &m->L[l];
        for (int h = 0; h < L->heads; h++)
            for (gat_idx r = 0; r < L->fin; r++)
                glorot(&rng, m->blob + L->w + (size_t)r * L->heads * L->fo + (size_t)h * L->fo,
                       (size_t)L->fo, L->fin, L->fo);
        glorot(&rng, m->blob + L->a_src, (size_t)L->heads * L->fo, L->fo, 1);
        glorot(&rng, m->blob + L->a_dst, (size_t)L->heads * L->fo, L->fo, 1);
    }
    *out = m;
    return GAT_OK;
}

void gat_model_free(gat_model *m)
{
    if (!m) return;
    gat_free(m->ws.block);
    gat_csr_destroy(&m->ws.xt);
    gat_free(m->ws.xt_perm);
    gat_free(m->blob);
    gat_free(m);
}

const gat_model_config *gat_model_get_config(const gat_model *m)
{
    return &m->cfg;
}

void gat_model_set_threads(gat_model *m, int n)
{
    m->threads = gat_i_threads(n);
}

const gat_model_tensor *gat_model_tensors(const gat_model *m, int *count)
{
    if (count) *count = m->n_tensors;
    return m->tensors;
}

gat_real *gat_model_params(gat_model *m, size_t *count)
{
    if (count) *count = m->n_params;
    return m->blob;
}

gat_real *gat_model_grads(gat_model *m, size_t *count)
{
    if (count) *count = m->n_params;
    return m->blob + m->n_params;
}

int gat_model_layer_count(const gat_model *m)
{
    return m->n_layers;
}

gat_idx gat_model_layer_width(const gat_model *m, int l)
{
    return l >= 0 && l < m->n_layers ? m->L[l].width : -1;
}

int gat_model_layer_heads(const gat_model *m, int l)
{
    return l >= 0 && l < m->n_layers ? m->L[l].heads : -1;
}

static gat_status check_layer(const gat_model *m, int l)
{
    gat_i_clear_error();
    if (l < 0 || l >= m->n_layers)
        return gat_i_error(GAT_EINVAL, "layer %d out of range [0, %d)", l, m->n_layers);
    if (!m->ws.block) return gat_i_error(GAT_EINVAL, "no forward has been run yet");
    return GAT_OK;
}

gat_status gat_model_layer_output(const gat_model *m, int l, const gat_real **out)
{
    gat_status st = check_layer(m, l);
    if (st == GAT_OK) *out = m->ws.c[l].out;
    return st;
}

gat_status gat_model_attention(const gat_model *m, int l, const gat_real **alpha)
{
    gat_status st = check_layer(m, l);
    if (st == GAT_OK) *alpha = m->ws.c[l].alpha;
    return st;
}

void gat_model_zero_grads(gat_model *m)
{
    memset(m->blob + m->n_params, 0, m->n_params * sizeof *m->blob);
}

void gat_i_model_moments(gat_model *m, gat_real **m1, gat_real **m2)
{
    *m1 = m->blob + 2 * m->n_params;
    *m2 = m->blob + 3 * m->n_params;
}

uint64_t gat_i_model_step(const gat_model *m)
{
    return m->step;
}

void gat_i_model_set_step(gat_model *m, uint64_t step)
{
    m->step = step;
}

void gat_i_model_set_output_rows(gat_model *m, const gat_idx *rows, gat_idx n_rows)
{
    m->out_rows = rows;
    m->n_out_rows = rows ? n_rows : 0;
}

void gat_i_model_set_dropout(gat_model *m, double in_p, double att_p)
{
    m->in_p = in_p;
    m->att_p = att_p;
}

/* ---- caches ---- */

/* Carves n bytes (64-byte aligned) from a running offset; with base NULL it only measures. */
static void *carve(char *base, size_t *off, size_t count, size_t size)
{
    size_t at = (*off + 63) & ~(size_t)63;
    *off = at + count * size;
    return base ? base + at : NULL;
}

/* Lays out (base == NULL: measures) every cache and scratch buffer for graph size N, E. */
static size_t layout(gat_model *m, char *base, gat_idx N, gat_idx E, gat_idx xnnz)
{
    size_t off = 0, maxw = 0, maxh = 1;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *L = &m->L[l];
        cache *c = &m->ws.c[l];
        const size_t hw = (size_t)L->heads * L->fo;
        if (l == 0) {
            c->xmask = carve(base, &off, (size_t)xnnz, 1);
            c->xbuf = carve(base, &off, (size_t)xnnz, sizeof(gat_real));
        } else {
            c->xmask = carve(base, &off, (size_t)N * L->fin, 1);
            c->xbuf = carve(base, &off, (size_t)N * L->fin, sizeof(gat_real));
        }
        c->z = carve(base, &off, (size_t)N * hw, sizeof(gat_real));
        c->s_src = carve(base, &off, (size_t)N * L->heads, sizeof(gat_real));
        c->s_dst = carve(base, &off, (size_t)N * L->heads, sizeof(gat_real));
        c->alpha = carve(base, &off, (size_t)E * L->heads, sizeof(gat_real));
        c->amask = carve(base, &off, (size_t)E * L->heads, 1);
        c->out = carve(base, &off, (size_t)N * L->width, sizeof(gat_real));
        maxw = hw > maxw ? hw : maxw;
        maxw = (size_t)L->fin > maxw && l > 0 ? (size_t)L->fin : maxw;
        maxh = (size_t)L->heads > maxh ? (size_t)L->heads : maxh;
    }
    m->ws.dcur = carve(base, &off, (size_t)N * maxw, sizeof(gat_real));
    m->ws.dy = carve(base, &off, (size_t)N * maxw, sizeof(gat_real));
    m->ws.dz = carve(base, &off, (size_t)N * maxw, sizeof(gat_real));
    m->ws.att.dpre = carve(base, &off, (size_t)E * maxh, sizeof(gat_real));
    m->ws.att.ds_src = carve(base, &off, (size_t)N * maxh, sizeof(gat_real));
    m->ws.att.ds_dst = carve(base, &off, (size_t)N * maxh, sizeof(gat_real));
    m->ws.att.partial = carve(base, &off, (size_t)m->threads * 2 * maxw, sizeof(gat_real));
    return off;
}

/* Transpose of x with the position map, for the sparse weight gradient (gathers per feature). */
static gat_status transpose_features(gat_model *m, const gat_csr *x)
{
    const gat_idx nnz = x->rowptr[x->rows];
    gat_status st;
    gat_csr *t = &m->ws.xt;
    gat_idx *next = NULL;
    if ((st = gat_csr_init(t, x->cols, x->rows, (size_t)nnz)) != GAT_OK) return st;
    if (!(m->ws.xt_perm = gat_malloc((size_t)nnz, sizeof(gat_idx))) ||
        !(next = gat_malloc((size_t)x->cols + 1, sizeof *next)))
        return GAT_ENOMEM;
    for (gat_idx k = 0; k < nnz; k++) t->rowptr[x->col[k] + 1]++;
    for (gat_idx f = 0; f < x->cols; f++) t->rowptr[f + 1] += t->rowptr[f];
    memcpy(next, t->rowptr, ((size_t)x->cols + 1) * sizeof *next);
    for (gat_idx i = 0; i < x->rows; i++)
        for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++) {
            const gat_idx p = next[x->col[k]]++;
            t->col[p] = i;
            t->val[p] = x->val[k];
            m->ws.xt_perm[p] = k;
        }
    gat_free(next);
    return GAT_OK;
}

static void drop_caches(gat_model *m)
{
    gat_free(m->ws.block);
    gat_csr_destroy(&m->ws.xt);
    gat_free(m->ws.xt_perm);
    memset(&m->ws, 0, sizeof m->ws);
}

/* (Re)allocates the caches when the graph or the features change. */
static gat_status prepare(gat_model *m, const gat_graph *g, const gat_csr *x)
{
    const gat_idx xnnz = x->rowptr[x->rows];
    gat_status st;
    if (m->ws.block && m->ws.g == g && m->ws.x == x && m->ws.n == g->n && m->ws.nnz == g->nnz &&
        m->ws.xnnz == xnnz && m->ws.threads >= m->threads)
        return GAT_OK;
    drop_caches(m);
    size_t bytes = layout(m, NULL, g->n, g->nnz, xnnz);
    /* zeroed: rows a restricted forward skips must hold finite values for backward */
    if (!(m->ws.block = gat_calloc(bytes, 1))) return GAT_ENOMEM;
    layout(m, m->ws.block, g->n, g->nnz, xnnz);
    if ((st = transpose_features(m, x)) != GAT_OK) {
        drop_caches(m);
        return st;
    }
    m->ws.g = g;
    m->ws.x = x;
    m->ws.n = g->n;
    m->ws.nnz = g->nnz;
    m->ws.xnnz = xnnz;
    m->ws.threads = m->threads;
    return GAT_OK;
}

/* ---- forward / backward ---- */

static gat_i_att_args att_args(gat_model *m, int l, int training)
{
    const layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const int last = l == m->n_layers - 1;
    gat_i_att_args a = {
        .g = m->ws.g, .H = L->heads, .Fo = L->fo, .slope = m->cfg.negative_slope,
        .z = c->z, .a_src = m->blob + L->a_src, .a_dst = m->blob + L->a_dst,
        .s_src = c->s_src, .s_dst = c->s_dst, .alpha = c->alpha,
        .amask = training && m->att_p > 0 ? c->amask : NULL,
        .ascale = (gat_real)(1 / (1 - m->att_p)), .mean = L->mean,
        .rows = last ? m->out_rows : NULL, .n_rows = last ? m->n_out_rows : 0,
        .nt = m->threads};
    return a;
}

static void add_bias_act(const layer *L, const gat_real *b, gat_real *out, gat_idx N, int elu,
                         int nt)
{
    const gat_idx M = L->width;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (gat_idx i = 0; i < N; i++) {
        gat_real *o = out + (size_t)i * M;
        for (gat_idx c = 0; c < M; c++) o[c] += b[c];
        if (elu) gat_i_elu((size_t)M, o, o);
    }
}

gat_status gat_model_forward(gat_model *m, const gat_graph *g, const gat_csr *x, int training,
                             const gat_real **logits)
{
    gat_status st;
    gat_i_clear_error();
    if (!m || !g || !x || !logits) return gat_i_error(GAT_EINVAL, "gat_model_forward: NULL argument");
    if (x->rows != g->n)
        return gat_i_error(GAT_EDIM, "features have %d rows but the graph has %d nodes", x->rows, g->n);
    if (x->cols != m->cfg.in_features)
        return gat_i_error(GAT_EDIM, "features have %d columns but the model expects %d",
                           x->cols, m->cfg.in_features);
    if ((st = prepare(m, g, x)) != GAT_OK) return st;
    openblas_set_num_threads(1); /* our row blocks are the parallelism; see gat_i_gemm_nn */
    if (training) m->step++;
    const int nt = m->threads;
    const gat_idx N = g->n;
    const uint64_t key = gat_i_hash64(m->seed, m->step);
    for (int l = 0; l < m->n_layers; l++) {
        const layer *L = &m->L[l];
        cache *c = &m->ws.c[l];
        const int drop = training && m->in_p > 0;
        const gat_real scale = (gat_real)(1 / (1 - m->in_p));
        const uint64_t lkey = gat_i_hash64(key, 4u * (uint64_t)l);
        if (l == 0) {
            const gat_idx nnz = x->rowptr[x->rows];
            c->xin = x->val;
            if (drop) {
                gat_i_dropout_mask((size_t)nnz, m->in_p, lkey, c->xmask, nt);
                gat_i_dropout((size_t)nnz, x->val, c->xmask, scale, c->xbuf);
                c->xin = c->xbuf;
            }
            gat_i_spmm(x, c->xin, L->heads * L->fo, m->blob + L->w, c->z, nt);
        } else {
            const size_t n = (size_t)N * L->fin;
            c->xin = m->ws.c[l - 1].out;
            if (drop) {
                gat_i_dropout_mask(n, m->in_p, lkey, c->xmask, nt);
                gat_i_dropout(n, c->xin, c->xmask, scale, c->xbuf);
                c->xin = c->xbuf;
            }
            gat_i_gemm_nn(N, L->fin, L->heads * L->fo, c->xin, m->blob + L->w, c->z, nt);
        }
        if (training && m->att_p > 0)
            gat_i_dropout_mask((size_t)g->nnz * L->heads, m->att_p, gat_i_hash64(lkey, 1),
                               c->amask, nt);
        gat_i_att_args a = att_args(m, l, training);
        gat_i_attention_forward(&a, c->out);
        add_bias_act(L, m->blob + L->b, c->out, N, l < m->n_layers - 1, nt);
    }
    m->ws.trained = training;
    *logits = m->ws.c[m->n_layers - 1].out;
    return GAT_OK;
}

gat_status gat_model_backward(gat_model *m, const gat_real *dlogits)
{
    gat_i_clear_error();
    if (!m || !dlogits) return gat_i_error(GAT_EINVAL, "gat_model_backward: NULL argument");
    if (!m->ws.block || !m->ws.trained)
        return gat_i_error(GAT_EINVAL, "gat_model_backward: the last forward was not a training forward");
    const gat_graph *g = m->ws.g;
    const gat_idx N = g->n;
    const int nt = m->threads;
    gat_real *grad = m->blob + m->n_params;
    const gat_real *dcur = dlogits;

    for (int l = m->n_layers - 1; l >= 0; l--) {
        const layer *L = &m->L[l];
        cache *c = &m->ws.c[l];
        const size_t hw = (size_t)L->heads * L->fo;
        gat_i_att_args a = att_args(m, l, 1);
        a.rows = NULL; /* rows outside the output subset carry zero gradient */
        if (a.nt > m->ws.threads) a.nt = m->ws.threads; /* raised since the forward */

        /* out = ELU(agg + b) on hidden layers: back through ELU in place */
        if (l < m->n_layers - 1) {
            gat_real *d = m->ws.dcur;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
            for (gat_idx i = 0; i < N; i++) {
                const size_t o = (size_t)i * L->width;
                for (gat_idx k = 0; k < L->width; k++) {
                    const gat_real y = c->out[o + k];
                    d[o + k] *= y > 0 ? 1 : y + 1;
                }
            }
        }
        gat_i_bias_backward(N, L->width, dcur, grad + L->b);
        /* head mean: every head receives dout / H */
        const gat_real *dy = dcur;
        if (L->mean && L->heads > 1) {
            const gat_real inv = (gat_real)1 / L->heads;
            for (gat_idx i = 0; i < N; i++)
                for (int h = 0; h < L->heads; h++)
                    for (gat_idx f = 0; f < L->fo; f++)
                        m->ws.dy[(size_t)i * hw + (size_t)h * L->fo + f] = dcur[(size_t)i * L->fo + f] * inv;
            dy = m->ws.dy;
        }
        memset(m->ws.dz, 0, (size_t)N * hw * sizeof *m->ws.dz);
        gat_i_attention_backward(&a, dy, &m->ws.att, m->ws.dz, grad + L->a_src, grad + L->a_dst);

        /* Z = X_d W */
        if (l == 0) {
            gat_i_spmm_backward_w(&m->ws.xt, m->ws.xt_perm, c->xin, (gat_idx)hw, m->ws.dz,
                                  grad + L->w, nt);
        } else {
            gat_i_gemm_tn_acc(N, L->fin, (gat_idx)hw, c->xin, m->ws.dz, grad + L->w, nt);
            gat_i_gemm_nt(N, L->fin, (gat_idx)hw, m->ws.dz, m->blob + L->w, m->ws.dcur, nt);
            if (c->xin == c->xbuf) { /* input dropout */
                const gat_real scale = (gat_real)(1 / (1 - m->in_p));
                const size_t n = (size_t)N * L->fin;
                for (size_t k = 0; k < n; k++) m->ws.dcur[k] = c->xmask[k] ? m->ws.dcur[k] * scale : 0;
            }
            dcur = m->ws.dcur;
        }
    }
    return GAT_OK;
}
