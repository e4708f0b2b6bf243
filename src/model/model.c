/* Whole-model forward and backward of a multi-layer GAT: parameter table, caches sized per graph,
 * dropout streams, the layer loop (projection -> fused attention -> bias -> ELU / head mean). */
#include "model_i.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "matrix_i.h"
#include "layers/layers.h"
#include "layers/scores.h"
#include "fast.h"

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
    /* the attention family (scores other than gat) and residual connections: offsets of the
     * query projection (gatv2's W_dst, or Q / W_q) and the key projection (K / W_k), both
     * (fin, heads*fo); gatv2's att (heads, fo); beta or log sigma (heads); R (fin, width) */
    size_t wq, wk, att, theta, res;
    int has_q, has_k, has_res; /* which of them exist; has_res: fin != width */
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
    gat_real *q, *k; /* attention family: separate queries, keys (N, heads*fo), if the score has them */
    gat_real *qinv, *kinv; /* cosine: inverse norms (N, heads) */
} cache;

struct gat_model {
    gat_model_config cfg;
    int n_layers;
    layer L[GAT_MAX_LAYERS];
    gat_model_tensor tensors[6 * GAT_MAX_LAYERS];
    char names[6 * GAT_MAX_LAYERS][32];
    int n_tensors;
    size_t n_params;
    gat_real *blob; /* params | grads | Adam m | Adam v, each n_params */
    uint64_t seed, step;
    int threads;
    double in_p, att_p;
    const gat_idx *out_rows;
    gat_idx n_out_rows;
    const gat_i_fused_ops *fused; /* kernels of the fused path, or NULL: layer by layer */
    gat_real *dlogits;  /* the training step's d loss / d logits, kept across steps */
    size_t dlogits_cap; /* its length */

    /* the binding: caches derived from the bound graph and features (see gat_model_bind) */
    struct {
        const gat_graph *g;
        const gat_csr *x;
        gat_idx n, nnz, xnnz;
        const void *arrays[5]; /* g's rowptr, col; x's rowptr, col, val when bound */
        void *block;
        cache c[GAT_MAX_LAYERS];
        size_t cap_bytes; /* length of block: inputs whose layout fits reuse it */
        gat_csr xt;       /* transpose of x, for the sparse weight gradient (capacity: nnz(x)) */
        gat_idx *xt_perm; /* (xt.capacity) x position of each xt position */
        gat_real *dcur, *dy, *dz; /* backward scratch, (N, max width) each */
        gat_i_att_scratch att;
        gat_i_score_scratch sc;   /* attention family: de (E, max heads), partial sums */
        gat_real *dq, *dk, *dres; /* attention family, residual: (N, max width) each */
        int threads;      /* thread count att.partial is sized for */
        int trained;      /* the last forward was a training forward */
        int ran;          /* a forward ran since the inputs were bound */
        gat_i_fast *fast; /* the fused path's caches (instead of block) */
    } ws;
};

void gat_model_config_default(gat_model_config *cfg, gat_idx in_features, gat_idx classes)
{
    if (!cfg) return;
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
    if ((unsigned)c->score >= GAT_SCORE_COUNT)
        return gat_i_error(GAT_EINVAL, "unknown score function %d (expected 0..%d)", (int)c->score,
                           GAT_SCORE_COUNT - 1);
    if (c->residual != 0 && c->residual != 1)
        return gat_i_error(GAT_EINVAL, "residual must be 0 or 1, got %d", c->residual);
    for (int l = 0; l < GAT_MAX_LAYERS; l++) {
        const int k = c->hidden_heads[l];
        if (k != 0 && l >= c->layers - 1)
            return gat_i_error(GAT_EINVAL, "hidden_heads[%d] must be 0: layer %d of %d is not a "
                               "hidden layer, got %d", l, l, c->layers, k);
        if (k < 0 || k > GAT_I_MAX_HEADS)
            return gat_i_error(GAT_EINVAL, "hidden_heads[%d] must be in 0..%d, got %d", l,
                               GAT_I_MAX_HEADS, k);
        if ((int64_t)k * c->hidden > (1 << 20))
            return gat_i_error(GAT_EINVAL, "hidden layer %d width hidden_heads x hidden = %d x %d "
                               "exceeds %d", l, k, c->hidden, 1 << 20);
    }
    return GAT_OK;
}

static const char *const score_names[GAT_SCORE_COUNT] = {
    "gat", "gatv2", "dot", "scaled-dot", "bilinear", "cosine", "gaussian"};

const char *gat_score_name(gat_score s)
{
    return (unsigned)s < GAT_SCORE_COUNT ? score_names[s] : NULL;
}

gat_status gat_score_from_name(const char *name, gat_score *out)
{
    static const int values[GAT_SCORE_COUNT] = {0, 1, 2, 3, 4, 5, 6};
    int v;
    gat_status st;
    gat_i_clear_error();
    if (!name || !out)
        return gat_i_error(GAT_EINVAL, "gat_score_from_name: NULL %s", !name ? "name" : "out");
    if ((st = gat_i_name_lookup("score function", name, score_names, values, GAT_SCORE_COUNT,
                                &v)) == GAT_OK)
        *out = (gat_score)v;
    return st;
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

/* Per-head Glorot of a projection (fin, heads*fo), drawn as W is. */
static void glorot_heads(gat_rng *r, gat_real *p, const layer *L)
{
    for (int h = 0; h < L->heads; h++)
        for (gat_idx row = 0; row < L->fin; row++)
            glorot(r, p + (size_t)row * L->heads * L->fo + (size_t)h * L->fo, (size_t)L->fo, L->fin,
                   L->fo);
}

/* The tensors a score other than gat adds between weight and bias (see gat/model.h). */
static void add_score_tensors(gat_model *m, int l, size_t *off)
{
    layer *L = &m->L[l];
    const gat_idx hw = L->heads * L->fo;
    switch (m->cfg.score) {
    case GAT_SCORE_GATV2:
        L->has_q = 1, L->wq = *off;
        add_tensor(m, "layer%d.weight_dst", l, 2, L->fin, hw, off);
        L->att = *off;
        add_tensor(m, "layer%d.att", l, 2, L->heads, L->fo, off);
        break;
    case GAT_SCORE_SCALED_DOT:
    case GAT_SCORE_BILINEAR:
        L->has_q = 1, L->wq = *off;
        add_tensor(m, "layer%d.query", l, 2, L->fin, hw, off);
        L->has_k = 1, L->wk = *off;
        add_tensor(m, "layer%d.key", l, 2, L->fin, hw, off);
        break;
    case GAT_SCORE_COSINE:
        L->theta = *off;
        add_tensor(m, "layer%d.beta", l, 1, L->heads, 0, off);
        break;
    case GAT_SCORE_GAUSSIAN:
        L->theta = *off;
        add_tensor(m, "layer%d.log_sigma", l, 1, L->heads, 0, off);
        break;
    default:
        break;
    }
}

/* Initial values of add_score_tensors' tensors: projections like W, gatv2's att like a_src,
 * beta = 1, and sigma = sqrt(fo) so that unit-variance values score O(1). */
static void init_score_tensors(gat_model *m, const layer *L, gat_rng *r)
{
    gat_real *p = m->blob;
    if (L->has_q) glorot_heads(r, p + L->wq, L);
    if (L->has_k) glorot_heads(r, p + L->wk, L);
    if (m->cfg.score == GAT_SCORE_GATV2) glorot(r, p + L->att, (size_t)L->heads * L->fo, L->fo, 1);
    for (int h = 0; h < L->heads; h++) {
        if (m->cfg.score == GAT_SCORE_COSINE) p[L->theta + (size_t)h] = 1;
        if (m->cfg.score == GAT_SCORE_GAUSSIAN)
            p[L->theta + (size_t)h] = (gat_real)(0.5 * log((double)L->fo));
    }
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
    m->fused = gat_i_fused();
    for (int l = 0; l < m->n_layers; l++) {
        layer *L = &m->L[l];
        const int last = l == m->n_layers - 1;
        L->fin = l == 0 ? cfg->in_features : m->L[l - 1].width;
        L->fo = last ? cfg->classes : cfg->hidden;
        L->heads = last ? cfg->out_heads
                        : (cfg->hidden_heads[l] > 0 ? cfg->hidden_heads[l] : cfg->heads);
        L->mean = last;
        L->width = last ? L->fo : L->heads * L->fo;
        L->w = off;
        add_tensor(m, "layer%d.weight", l, 2, L->fin, L->heads * L->fo, &off);
        if (cfg->score == GAT_SCORE_GAT) {
            L->a_src = off;
            add_tensor(m, "layer%d.att_src", l, 2, L->heads, L->fo, &off);
            L->a_dst = off;
            add_tensor(m, "layer%d.att_dst", l, 2, L->heads, L->fo, &off);
        } else {
            add_score_tensors(m, l, &off);
        }
        L->b = off;
        add_tensor(m, "layer%d.bias", l, 1, L->width, 0, &off);
        if (cfg->residual && L->fin != L->width) {
            L->has_res = 1, L->res = off;
            add_tensor(m, "layer%d.res", l, 2, L->fin, L->width, &off);
        }
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
        if (cfg->score == GAT_SCORE_GAT) {
            glorot(&rng, m->blob + L->a_src, (size_t)L->heads * L->fo, L->fo, 1);
            glorot(&rng, m->blob + L->a_dst, (size_t)L->heads * L->fo, L->fo, 1);
        } else {
            init_score_tensors(m, L, &rng);
        }
        if (L->has_res) glorot(&rng, m->blob + L->res, (size_t)L->fin * L->width, L->fin, L->width);
    }
    *out = m;
    return GAT_OK;
}

static void drop_caches(gat_model *m);

void gat_model_free(gat_model *m)
{
    if (!m) return;
    drop_caches(m);
    gat_free(m->dlogits);
    gat_free(m->blob);
    gat_free(m);
}

const gat_model_config *gat_model_get_config(const gat_model *m)
{
    return m ? &m->cfg : NULL;
}

void gat_model_set_threads(gat_model *m, int n)
{
    if (m) m->threads = gat_i_threads(n);
}

const gat_model_tensor *gat_model_tensors(const gat_model *m, int *count)
{
    if (count) *count = m ? m->n_tensors : 0;
    return m ? m->tensors : NULL;
}

gat_real *gat_model_params(gat_model *m, size_t *count)
{
    if (count) *count = m ? m->n_params : 0;
    return m ? m->blob : NULL;
}

gat_real *gat_model_grads(gat_model *m, size_t *count)
{
    if (count) *count = m ? m->n_params : 0;
    return m ? m->blob + m->n_params : NULL;
}

gat_idx gat_model_layer_count(const gat_model *m)
{
    return m ? m->n_layers : 0;
}

gat_idx gat_model_layer_width(const gat_model *m, gat_idx l)
{
    return m && l >= 0 && l < m->n_layers ? m->L[l].width : -1;
}

gat_idx gat_model_layer_heads(const gat_model *m, gat_idx l)
{
    return m && l >= 0 && l < m->n_layers ? m->L[l].heads : -1;
}

static gat_status check_layer(const gat_model *m, gat_idx l, const void *out, const char *fn)
{
    gat_i_clear_error();
    if (!m || !out) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !m ? "model m" : "output");
    if (l < 0 || l >= m->n_layers)
        return gat_i_error(GAT_EINVAL, "layer %d out of range [0, %d)", l, m->n_layers);
    if ((!m->ws.block && !m->ws.fast) || !m->ws.ran)
        return gat_i_error(GAT_EINVAL, "%s: no forward has been run yet on the bound inputs", fn);
    return GAT_OK;
}

gat_status gat_model_layer_output(const gat_model *m, gat_idx l, const gat_real **out)
{
    gat_status st = check_layer(m, l, out, "gat_model_layer_output");
    if (st == GAT_OK) *out = m->ws.fast ? gat_i_fast_output(m->ws.fast, l) : m->ws.c[l].out;
    return st;
}

gat_status gat_model_attention(const gat_model *m, gat_idx l, const gat_real **alpha)
{
    gat_status st = check_layer(m, l, alpha, "gat_model_attention");
    if (st == GAT_OK) *alpha = m->ws.fast ? gat_i_fast_alpha(m->ws.fast, l) : m->ws.c[l].alpha;
    return st;
}

void gat_model_zero_grads(gat_model *m)
{
    if (!m) return;
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

gat_real *gat_i_model_dlogits(gat_model *m, gat_idx n)
{
    const size_t need = (size_t)n * (size_t)m->cfg.classes;
    if (need > m->dlogits_cap || !m->dlogits) {
        gat_real *d = gat_realloc(m->dlogits, need, sizeof *d);
        if (!d) return NULL;
        m->dlogits = d;
        m->dlogits_cap = need;
    }
    return m->dlogits;
}

void gat_i_model_set_dropout(gat_model *m, double in_p, double att_p)
{
    m->in_p = in_p;
    m->att_p = att_p;
}

int gat_i_model_set_fused(gat_model *m, const char *isa)
{
    const gat_i_fused_ops *ops = !isa ? gat_i_fused() : strcmp(isa, "none") ? gat_i_fused_named(isa) : NULL;
    if (isa && strcmp(isa, "none") && !ops) return -1;
    m->fused = ops;
    drop_caches(m); /* caches of the other path */
    return 0;
}

const char *gat_i_model_fused_isa(const gat_model *m)
{
    return m->fused && m->ws.fast ? m->fused->isa : NULL;
}

const char *gat_model_kernels(const gat_model *m)
{
    if (!m || (!m->ws.block && !m->ws.fast)) return NULL;
    return m->ws.fast ? m->fused->isa : "none";
}

/* The fused path (model/fast.c) runs every score, with or without residual connections, for the
 * shapes its kernels take; everything else goes layer by layer. */
static int fast_layers(const gat_model *m, gat_i_fast_layer *FL)
{
    if (!m->fused) return 0;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *L = &m->L[l];
        FL[l] = (gat_i_fast_layer){.fin = L->fin, .fo = L->fo, .width = L->width,
                                   .heads = L->heads, .mean = L->mean, .score = m->cfg.score,
                                   .w = L->w, .a_src = L->a_src, .a_dst = L->a_dst, .b = L->b,
                                   .wq = L->wq, .wk = L->wk, .att = L->att, .theta = L->theta,
                                   .residual = !m->cfg.residual ? 0 : L->has_res ? 1 : 2,
                                   .res = L->res};
    }
    return gat_i_fast_supports(m->n_layers, FL);
}

/* ---- caches ---- */

/* Lays out (base == NULL: measures) every cache and scratch buffer for graph size N, E. */
static size_t layout(gat_model *m, char *base, gat_idx N, gat_idx E, gat_idx xnnz)
{
    size_t off = 0, maxw = 0, maxh = 1;
    for (int l = 0; l < m->n_layers; l++) {
        const layer *L = &m->L[l];
        cache *c = &m->ws.c[l];
        const size_t hw = (size_t)L->heads * L->fo;
        if (l == 0) {
            c->xmask = gat_i_carve(base, &off, (size_t)xnnz, 1);
            c->xbuf = gat_i_carve(base, &off, (size_t)xnnz, sizeof(gat_real));
        } else {
            c->xmask = gat_i_carve(base, &off, (size_t)N * L->fin, 1);
            c->xbuf = gat_i_carve(base, &off, (size_t)N * L->fin, sizeof(gat_real));
        }
        c->z = gat_i_carve(base, &off, (size_t)N * hw, sizeof(gat_real));
        c->s_src = gat_i_carve(base, &off, (size_t)N * L->heads, sizeof(gat_real));
        c->s_dst = gat_i_carve(base, &off, (size_t)N * L->heads, sizeof(gat_real));
        c->alpha = gat_i_carve(base, &off, (size_t)E * L->heads, sizeof(gat_real));
        c->amask = gat_i_carve(base, &off, (size_t)E * L->heads, 1);
        c->out = gat_i_carve(base, &off, (size_t)N * L->width, sizeof(gat_real));
        /* attention family: only what the score uses (nothing for gat) */
        const size_t nh = m->cfg.score == GAT_SCORE_COSINE ? (size_t)N * L->heads : 0;
        c->q = gat_i_carve(base, &off, L->has_q ? (size_t)N * hw : 0, sizeof(gat_real));
        c->k = gat_i_carve(base, &off, L->has_k ? (size_t)N * hw : 0, sizeof(gat_real));
        c->qinv = gat_i_carve(base, &off, nh, sizeof(gat_real));
        c->kinv = gat_i_carve(base, &off, nh, sizeof(gat_real));
        maxw = hw > maxw ? hw : maxw;
        maxw = (size_t)L->fin > maxw && l > 0 ? (size_t)L->fin : maxw;
        maxh = (size_t)L->heads > maxh ? (size_t)L->heads : maxh;
    }
    m->ws.dcur = gat_i_carve(base, &off, (size_t)N * maxw, sizeof(gat_real));
    m->ws.dy = gat_i_carve(base, &off, (size_t)N * maxw, sizeof(gat_real));
    m->ws.dz = gat_i_carve(base, &off, (size_t)N * maxw, sizeof(gat_real));
    m->ws.att.dpre = gat_i_carve(base, &off, (size_t)E * maxh, sizeof(gat_real));
    m->ws.att.ds_src = gat_i_carve(base, &off, (size_t)N * maxh, sizeof(gat_real));
    m->ws.att.ds_dst = gat_i_carve(base, &off, (size_t)N * maxh, sizeof(gat_real));
    m->ws.att.partial = gat_i_carve(base, &off, (size_t)m->threads * 2 * maxw, sizeof(gat_real));
    {
        const int family = m->cfg.score != GAT_SCORE_GAT;
        m->ws.sc.de = gat_i_carve(base, &off, family ? (size_t)E * maxh : 0, sizeof(gat_real));
        m->ws.sc.partial = gat_i_carve(base, &off, family ? (size_t)m->threads * (maxw + maxh) : 0,
                                 sizeof(gat_real));
        m->ws.dq = gat_i_carve(base, &off, family ? (size_t)N * maxw : 0, sizeof(gat_real));
        m->ws.dk = gat_i_carve(base, &off, family ? (size_t)N * maxw : 0, sizeof(gat_real));
        m->ws.dres = gat_i_carve(base, &off, m->cfg.residual ? (size_t)N * maxw : 0, sizeof(gat_real));
    }
    return off;
}

/* Transpose of x with the position map, for the sparse weight gradient (gathers per feature).
 * Reuses the arrays of the last transpose when x's non-zeros fit in them (and flags lacks
 * GAT_BIND_EXACT); every entry up to nnz(x) is rewritten from x as it is now. */
static gat_status transpose_features(gat_model *m, const gat_csr *x, unsigned flags)
{
    return gat_i_csr_transpose_perm_reuse(x, &m->ws.xt, &m->ws.xt_perm,
                                          (flags & GAT_BIND_EXACT) != 0);
}

static void drop_caches(gat_model *m)
{
    gat_free(m->ws.block);
    gat_i_fast_free(m->ws.fast);
    gat_csr_destroy(&m->ws.xt);
    gat_free(m->ws.xt_perm);
    memset(&m->ws, 0, sizeof m->ws);
}

/* Whether g and x are the inputs the caches were built for: the same structs, arrays and sizes.
 * Reading x->rowptr[x->rows] is safe then: that rowptr was checked with that row count. */
static int same_inputs(const gat_model *m, const gat_graph *g, const gat_csr *x)
{
    return m->ws.g == g && m->ws.x == x && m->ws.n == g->n && m->ws.nnz == g->nnz &&
           m->ws.arrays[0] == g->rowptr && m->ws.arrays[1] == g->col &&
           m->ws.arrays[2] == x->rowptr && m->ws.arrays[3] == x->col &&
           m->ws.arrays[4] == x->val && m->ws.xnnz == x->rowptr[x->rows];
}

static void key_inputs(gat_model *m, const gat_graph *g, const gat_csr *x)
{
    m->ws.g = g;
    m->ws.x = x;
    m->ws.n = g->n;
    m->ws.nnz = g->nnz;
    m->ws.xnnz = x->rowptr[x->rows];
    m->ws.arrays[0] = g->rowptr;
    m->ws.arrays[1] = g->col;
    m->ws.arrays[2] = x->rowptr;
    m->ws.arrays[3] = x->col;
    m->ws.arrays[4] = x->val;
}

/* The checks of a binding (fn names the public call in the messages): sizes against each other
 * and the model, then g and x themselves, O(n + E + nnz(x)), before anything reads them. */
static gat_status check_inputs(const gat_model *m, const gat_graph *g, const gat_csr *x,
                               const char *fn)
{
    gat_status st;
    char what[64];
    if (x->rows != g->n)
        return gat_i_error(GAT_EDIM, "%s: features have %d rows but the graph has %d nodes", fn,
                           x->rows, g->n);
    if (x->cols != m->cfg.in_features)
        return gat_i_error(GAT_EDIM, "%s: features have %d columns but the model expects %d", fn,
                           x->cols, m->cfg.in_features);
    /* a zeroed graph or matrix is a valid empty one, but the kernels read rowptr[0] */
    if (!g->rowptr || !x->rowptr)
        return gat_i_error(GAT_EINVAL, "%s: %s has a NULL rowptr (build it with a gat_graph_from_* "
                           "or gat_csr_* call)", fn, !g->rowptr ? "graph g" : "features x");
    snprintf(what, sizeof what, "%s: features x", fn);
    if ((st = gat_i_graph_check(g, fn)) != GAT_OK || (st = gat_i_csr_check_matrix(x, what)) != GAT_OK)
        return st;
    return GAT_OK;
}

/* Builds every cache derived from checked inputs g and x, in the memory already allocated when
 * their layout fits in it (zeroed: rows a restricted forward skips must hold finite values for
 * backward, and nothing of earlier inputs may remain), else in a new allocation. On failure m is
 * left unbound. */
static gat_status rebuild(gat_model *m, const gat_graph *g, const gat_csr *x, unsigned flags)
{
    gat_status st;
    gat_i_fast_layer FL[GAT_MAX_LAYERS];
    const gat_idx xnnz = x->rowptr[x->rows];
    m->ws.g = NULL; /* unbound until the end */
    m->ws.x = NULL;
    m->ws.trained = m->ws.ran = 0;
    if (fast_layers(m, FL)) {
        /* the engine rebuilds its caches in its own memory when the inputs fit there */
        int done = 0;
        if (m->ws.fast && (st = gat_i_fast_rebind(m->ws.fast, g, x, (flags & GAT_BIND_EXACT) != 0,
                                                  m->threads, &done)) != GAT_OK) {
            drop_caches(m);
            return st;
        }
        if (!done) {
            gat_i_fast_free(m->ws.fast);
            m->ws.fast = NULL;
            if ((st = gat_i_fast_create(&m->ws.fast, m->fused, m->n_layers, FL, g, x,
                                        m->threads)) != GAT_OK) {
                drop_caches(m);
                return st;
            }
        }
        key_inputs(m, g, x);
        m->ws.threads = m->threads;
        return GAT_OK;
    }
    const size_t bytes = layout(m, NULL, g->n, g->nnz, xnnz);
    if (!m->ws.block || bytes > m->ws.cap_bytes ||
        ((flags & GAT_BIND_EXACT) && bytes != m->ws.cap_bytes)) {
        gat_free(m->ws.block);
        m->ws.cap_bytes = 0;
        if (!(m->ws.block = gat_calloc(bytes, 1))) {
            drop_caches(m);
            return GAT_ENOMEM;
        }
        m->ws.cap_bytes = bytes;
    } else {
        memset(m->ws.block, 0, bytes);
    }
    layout(m, m->ws.block, g->n, g->nnz, xnnz);
    if ((st = transpose_features(m, x, flags)) != GAT_OK) {
        drop_caches(m);
        return st;
    }
    key_inputs(m, g, x);
    m->ws.threads = m->threads;
    return GAT_OK;
}

gat_status gat_model_bind(gat_model *m, const gat_graph *g, const gat_csr *x, unsigned flags)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_model_bind", 3, (const void *[]){m, g, x},
                               (const char *[]){"model m", "graph g", "features x"})) != GAT_OK)
        return st;
    if (flags & ~(unsigned)GAT_BIND_EXACT)
        return gat_i_error(GAT_EINVAL, "gat_model_bind: unknown flags 0x%x (expected 0 or "
                           "GAT_BIND_EXACT)", flags);
    if ((st = check_inputs(m, g, x, "gat_model_bind")) != GAT_OK) return st;
    return rebuild(m, g, x, flags);
}

/* Before a forward: binds g and x unless they are the bound inputs (then nothing is checked or
 * rebuilt: every training epoch on the same inputs), and re-lays the caches out
 * when the thread count rose since (the per-thread scratch grows). */
static gat_status prepare(gat_model *m, const gat_graph *g, const gat_csr *x)
{
    gat_status st = GAT_OK;
    const int same = (m->ws.block || m->ws.fast) && same_inputs(m, g, x);
    if (!same)
        st = check_inputs(m, g, x, "gat_model_forward");
    if (st == GAT_OK && (!same || m->ws.threads < m->threads))
        st = rebuild(m, g, x, 0);
    if (st == GAT_OK) m->ws.ran = 1;
    return st;
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

/* ---- the attention family (scores other than gat, layers/scores.c) and residual connections.
 * The gat path above does not come here: these run only for other scores or with residual. */

static gat_i_score_args score_args(gat_model *m, int l, int training)
{
    const layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const int last = l == m->n_layers - 1;
    gat_i_score_args a = {
        .g = m->ws.g, .score = m->cfg.score, .H = L->heads, .Fo = L->fo, .D = L->fo,
        .slope = m->cfg.negative_slope, .z = c->z,
        .q = L->has_q ? c->q : c->z, .k = L->has_k ? c->k : c->z,
        .att = m->blob + L->att, .theta = m->blob + L->theta, .qinv = c->qinv, .kinv = c->kinv,
        .alpha = c->alpha, .amask = training && m->att_p > 0 ? c->amask : NULL,
        .ascale = (gat_real)(1 / (1 - m->att_p)), .mean = L->mean,
        .rows = last ? m->out_rows : NULL, .n_rows = last ? m->n_out_rows : 0,
        .nt = m->threads};
    return a;
}

/* Queries q = X_d W_q and keys k = X_d W_k of the scores that project them separately. */
static void score_project(gat_model *m, int l, const gat_csr *x)
{
    const layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const gat_idx hw = L->heads * L->fo;
    for (int s = 0; s < 2; s++) {
        if (!(s ? L->has_k : L->has_q)) continue;
        gat_real *dst = s ? c->k : c->q;
        const gat_real *w = m->blob + (s ? L->wk : L->wq);
        if (l == 0)
            gat_i_spmm(x, c->xin, hw, w, dst, m->threads);
        else
            gat_i_gemm_nn(m->ws.g->n, L->fin, hw, c->xin, w, dst, m->threads);
    }
}

/* out += X_d (identity, fin == width) or X_d R, before bias and ELU, on the rows the layer
 * computed. */
static void residual_forward(gat_model *m, int l, const gat_csr *x)
{
    const layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const int last = l == m->n_layers - 1, nt = m->threads;
    const gat_idx *rows = last ? m->out_rows : NULL, n = rows ? m->n_out_rows : m->ws.g->n;
    const gat_real *R = L->has_res ? m->blob + L->res : NULL;
    const gat_idx M = L->width;
    if (l == 0) {
        gat_i_spmm_acc(x, c->xin, M, R, rows, n, c->out, nt);
        return;
    }
    if (R && !rows) {
        gat_i_gemm_nn_acc(n, L->fin, M, c->xin, R, c->out, nt);
        return;
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (gat_idx r = 0; r < n; r++) {
        const gat_idx i = rows ? rows[r] : r;
        const gat_real *xi = c->xin + (size_t)i * L->fin;
        gat_real *o = c->out + (size_t)i * M;
        if (!R) {
            for (gat_idx f = 0; f < M; f++) o[f] += xi[f];
            continue;
        }
        for (gat_idx f = 0; f < L->fin; f++)
            for (gat_idx k = 0; k < M; k++) o[k] += xi[f] * R[(size_t)f * M + k];
    }
}

/* Back through the family's fused kernel: dz (zeroed by the caller), dq and dk (ws.dq, ws.dk
 * where the score has separate projections, else dz itself), and the score's parameters. */
static void score_backward(gat_model *m, int l, const gat_real *dy, gat_real *grad)
{
    const layer *L = &m->L[l];
    const size_t n = (size_t)m->ws.g->n * L->heads * L->fo;
    const gat_score S = m->cfg.score;
    gat_i_score_args a = score_args(m, l, 1);
    a.rows = NULL; /* rows outside the output subset carry zero gradient */
    if (a.nt > m->ws.threads) a.nt = m->ws.threads;
    gat_real *dq = L->has_q ? m->ws.dq : m->ws.dz, *dk = L->has_k ? m->ws.dk : m->ws.dz;
    if (L->has_q) memset(dq, 0, n * sizeof *dq);
    if (L->has_k) memset(dk, 0, n * sizeof *dk);
    gat_i_score_backward(&a, dy, &m->ws.sc, m->ws.dz, dq, dk,
                         S == GAT_SCORE_GATV2 ? grad + L->att : NULL,
                         S == GAT_SCORE_COSINE || S == GAT_SCORE_GAUSSIAN ? grad + L->theta : NULL);
}

/* Residual, given d pre-activation dpre (N, width): dR += X_d^T dpre, and for l > 0 the input's
 * share ws.dres = dpre (identity) or dpre R^T, added by extra_backward once ws.dcur is written. */
static void residual_backward(gat_model *m, int l, const gat_real *dpre, gat_real *grad)
{
    const layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const gat_idx N = m->ws.g->n;
    const int nt = m->threads;
    if (L->has_res && l == 0)
        gat_i_spmm_backward_w(&m->ws.xt, m->ws.xt_perm, c->xin, L->width, dpre, grad + L->res, nt);
    if (l == 0) return;
    if (L->has_res) {
        gat_i_gemm_tn_acc(N, L->fin, L->width, c->xin, dpre, grad + L->res, nt);
        gat_i_gemm_nt(N, L->fin, L->width, dpre, m->blob + L->res, m->ws.dres, nt);
    } else {
        memcpy(m->ws.dres, dpre, (size_t)N * L->fin * sizeof *dpre);
    }
}

/* After W's backward (ws.dcur = dz W^T for l > 0): the query and key projections' weight
 * gradients and input shares, and the residual's input share. Nothing for gat without residual. */
static void extra_backward(gat_model *m, int l, gat_real *grad)
{
    const layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const gat_idx N = m->ws.g->n, hw = L->heads * L->fo;
    const int nt = m->threads;
    for (int s = 0; s < 2; s++) {
        if (!(s ? L->has_k : L->has_q)) continue;
        const gat_real *d = s ? m->ws.dk : m->ws.dq;
        const size_t w = s ? L->wk : L->wq;
        if (l == 0) {
            gat_i_spmm_backward_w(&m->ws.xt, m->ws.xt_perm, c->xin, hw, d, grad + w, nt);
        } else {
            gat_i_gemm_tn_acc(N, L->fin, hw, c->xin, d, grad + w, nt);
            gat_i_gemm_nt_acc(N, L->fin, hw, d, m->blob + w, m->ws.dcur, nt);
        }
    }
    if (l > 0 && m->cfg.residual) {
        const size_t n = (size_t)N * L->fin;
        for (size_t k = 0; k < n; k++) m->ws.dcur[k] += m->ws.dres[k];
    }
}

gat_status gat_model_forward(gat_model *m, const gat_graph *g, const gat_csr *x, int training,
                             const gat_real **logits)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_model_forward", 4, (const void *[]){m, g, x, logits},
                               (const char *[]){"model m", "graph g", "features x", "logits"})) !=
        GAT_OK)
        return st;
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
    if (m->ws.fast) {
        const gat_i_fast_run run = {.training = training, .key = key, .in_p = m->in_p,
                                    .att_p = m->att_p, .slope = m->cfg.negative_slope,
                                    .rows = m->out_rows, .n_rows = m->n_out_rows, .nt = nt};
        gat_i_fast_forward(m->ws.fast, m->blob, &run);
        m->ws.trained = training;
        *logits = gat_i_fast_output(m->ws.fast, m->n_layers - 1);
        return GAT_OK;
    }
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
        if (m->cfg.score != GAT_SCORE_GAT) score_project(m, l, x);
        if (training && m->att_p > 0)
            gat_i_dropout_mask((size_t)g->nnz * L->heads, m->att_p, gat_i_hash64(lkey, 1),
                               c->amask, nt);
        if (m->cfg.score == GAT_SCORE_GAT) {
            gat_i_att_args a = att_args(m, l, training);
            gat_i_attention_forward(&a, c->out);
        } else {
            gat_i_score_args a = score_args(m, l, training);
            gat_i_score_forward(&a, c->out);
        }
        if (m->cfg.residual) residual_forward(m, l, x);
        add_bias_act(L, m->blob + L->b, c->out, N, l < m->n_layers - 1, nt);
    }
    m->ws.trained = training;
    *logits = m->ws.c[m->n_layers - 1].out;
    return GAT_OK;
}

gat_status gat_model_backward(gat_model *m, const gat_real *dlogits)
{
    gat_i_clear_error();
    if (!m || !dlogits)
        return gat_i_error(GAT_EINVAL, "gat_model_backward: NULL %s", !m ? "model m" : "dlogits");
    if ((!m->ws.block && !m->ws.fast) || !m->ws.trained)
        return gat_i_error(GAT_EINVAL, "gat_model_backward: the last forward was not a training forward");
    if (m->ws.fast) {
        gat_i_fast_backward(m->ws.fast, m->blob, m->blob + m->n_params, dlogits, m->threads);
        return GAT_OK;
    }
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
        if (m->cfg.score == GAT_SCORE_GAT)
            gat_i_attention_backward(&a, dy, &m->ws.att, m->ws.dz, grad + L->a_src, grad + L->a_dst);
        else
            score_backward(m, l, dy, grad);
        if (m->cfg.residual) residual_backward(m, l, dcur, grad);

        /* Z = X_d W */
        if (l == 0) {
            gat_i_spmm_backward_w(&m->ws.xt, m->ws.xt_perm, c->xin, (gat_idx)hw, m->ws.dz,
                                  grad + L->w, nt);
            extra_backward(m, l, grad);
        } else {
            gat_i_gemm_tn_acc(N, L->fin, (gat_idx)hw, c->xin, m->ws.dz, grad + L->w, nt);
            gat_i_gemm_nt(N, L->fin, (gat_idx)hw, m->ws.dz, m->blob + L->w, m->ws.dcur, nt);
            extra_backward(m, l, grad);
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
