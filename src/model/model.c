/* A multi-layer GAT model: configuration, parameter table and initialisation, the binding of a
 * graph and features to the engine's caches (model/fast.c), forward, backward and the accessors. */
#include "model_i.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "matrix_i.h"
#include "layers/layers.h"
#include "fast.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* One attention layer's shape and where its tensors sit in the parameter buffer. */
typedef struct layer {
    gat_idx fin, fo; /* input width, per-head output width */
    int heads, mean; /* mean: output layer, heads averaged */
    gat_idx width;   /* output width: heads * fo (concat) or fo (mean) */
    size_t w, a_src, a_dst,
        b; /* offsets of W (fin, heads*fo), a_src/a_dst (heads, fo), b (width) */
    /* the attention family (scores other than gat) and residual connections: offsets of the
     * query projection (gatv2's W_dst, or Q / W_q) and the key projection (K / W_k), both
     * (fin, heads*fo); gatv2's att (heads, fo); beta or log sigma (heads); R (fin, width) */
    size_t wq, wk, att, theta, res;
    int has_q, has_k, has_res; /* which of them exist; has_res: fin != width */
    size_t we, ae;             /* edge features: W_e (edge_dim, heads*fo), a_edge (heads, fo) */
} layer;

struct gat_model {
    gat_model_config cfg;
    int n_layers;
    layer L[GAT_MAX_LAYERS];
    gat_model_tensor tensors[GAT_I_MAX_TENSORS];
    char names[GAT_I_MAX_TENSORS][32];
    int n_tensors;
    size_t n_params;
    gat_real *blob; /* params | grads | Adam m | Adam v, each n_params */
    uint64_t seed, step;
    int threads;
    double in_p, att_p;
    const gat_idx *out_rows;
    gat_idx n_out_rows;
    gat_i_layer_hook hook; /* gat_i_model_set_hook */
    void *hook_user;
    const int64_t *xkey, *ekey, *tekey; /* dropout keys of the bound graph (gat_i_model_set_keys) */
    const gat_idx *rkey;
    const gat_i_remote *remote; /* remote rows of the bound graph (gat_i_model_set_remote) */
    const gat_i_fused_ops
        *fused;         /* the engine's kernels (the build for this CPU, or a named one) */
    gat_real *dlogits;  /* the training step's d loss / d logits, kept across steps */
    size_t dlogits_cap; /* its length */
    gat_order order;    /* requested node order (gat_model_set_order) */
    gat_idx lean_chunk; /* an inference binding's edges per attention chunk */

    /* the binding: caches derived from the bound graph and features (see gat_model_bind) */
    struct {
        const gat_graph *g;
        const gat_csr *x;
        gat_idx n, nnz, xnnz;
        const void *arrays[5]; /* g's rowptr, col; x's rowptr, col, val when bound */
        gat_i_fast *fast;      /* the engine's caches */
        int threads;           /* thread count the kernel scratch is sized for */
        int trained;           /* the last forward was a training forward */
        int ran;               /* a forward ran since the inputs were bound */
        int lean;              /* bound with GAT_BIND_INFERENCE */
        /* a node order for locality (gat_model_set_order): the engine runs on pg and px, the
         * caller's graph and features renumbered so that node perm[k] is k (iperm the inverse);
         * results are copied back to the caller's numbering on request */
        gat_order order;      /* the order of this binding: GAT_ORDER_NONE or a method */
        double order_seconds; /* its cost: the order, pg and px */
        gat_graph pg;
        gat_csr px;
        gat_idx *perm, *iperm; /* (n) */
        gat_idx *edge_of;      /* (E) edge of g of each edge of pg, made on first need */
        /* edge features of the bound graph (gat_model_bind_edge_features), NULL when none; with
         * an order, pex is their copy in pg's edge order (owned) */
        const gat_real *ex;
        gat_real *pex;
        uint8_t *mark; /* (n) zero between uses: output rows in the engine's numbering */
        gat_idx *rows; /* (n) those rows */
        gat_real *dl;  /* (n, C) dlogits in the engine's numbering */
        uint64_t fwd;  /* forwards run on this binding */
        gat_real *view[GAT_MAX_LAYERS], *aview[GAT_MAX_LAYERS];     /* outputs and alphas in the
                                                                     * caller's numbering */
        uint64_t view_at[GAT_MAX_LAYERS], aview_at[GAT_MAX_LAYERS]; /* the forward they hold */
    } ws;
};

static const char *const score_names[GAT_SCORE_COUNT] = {
    "gat", "gatv2", "dot", "scaled-dot", "bilinear", "cosine", "gaussian"};

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

/* The run-time options' checks (fn starts the messages, or NULL). */
static gat_status check_options(const gat_model_options *o, const char *fn)
{
    gat_status st;
    if ((st = gat_i_kernels_check(o->kernels, fn)) != GAT_OK) return st;
    if ((unsigned)o->alpha >= GAT_ALPHA_COUNT)
        return gat_i_error(GAT_EINVAL,
                           "%s%soptions.alpha %d is not a gat_alpha_storage (expected "
                           "0..%d)",
                           fn ? fn : "", fn ? ": " : "", (int)o->alpha, GAT_ALPHA_COUNT - 1);
    if (o->fixed_threads != 0 && o->fixed_threads != 1)
        return gat_i_error(GAT_EINVAL, "%s%soptions.fixed_threads must be 0 or 1, got %d",
                           fn ? fn : "", fn ? ": " : "", o->fixed_threads);
    return GAT_OK;
}

gat_status gat_model_config_check(const gat_model_config *c)
{
    gat_status st;
    if (!c) return gat_i_error(GAT_EINVAL, "model config is NULL");
    if (c->in_features <= 0)
        return gat_i_error(GAT_EINVAL, "in_features must be > 0, got %d", c->in_features);
    if (c->classes <= 0) return gat_i_error(GAT_EINVAL, "classes must be > 0, got %d", c->classes);
    if (c->layers < 1 || c->layers > GAT_MAX_LAYERS)
        return gat_i_error(GAT_EINVAL, "layers must be in 1..%d, got %d", GAT_MAX_LAYERS,
                           c->layers);
    if (c->layers > 1 && (c->hidden <= 0 || c->heads <= 0))
        return gat_i_error(GAT_EINVAL, "hidden (%d) and heads (%d) must be > 0", c->hidden,
                           c->heads);
    if (c->out_heads <= 0)
        return gat_i_error(GAT_EINVAL, "out_heads must be > 0, got %d", c->out_heads);
    /* the fused attention kernels keep per-head row state on the stack */
    if (c->layers > 1 && c->heads > GAT_I_MAX_HEADS)
        return gat_i_error(GAT_EINVAL, "heads must be at most %d, got %d", GAT_I_MAX_HEADS,
                           c->heads);
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
        return gat_i_error(GAT_EINVAL, "negative_slope must be finite and >= 0, got %g",
                           c->negative_slope);
    if ((unsigned)c->score >= GAT_SCORE_COUNT)
        return gat_i_error(GAT_EINVAL, "unknown score function %d (expected 0..%d)", (int)c->score,
                           GAT_SCORE_COUNT - 1);
    if (c->residual != 0 && c->residual != 1)
        return gat_i_error(GAT_EINVAL, "residual must be 0 or 1, got %d", c->residual);
    if (c->edge_dim < 0 || c->edge_dim > GAT_MAX_EDGE_DIM)
        return gat_i_error(GAT_EINVAL, "edge_dim must be in 0..%d, got %d", GAT_MAX_EDGE_DIM,
                           c->edge_dim);
    if (c->edge_dim > 0 && c->score != GAT_SCORE_GAT && c->score != GAT_SCORE_GATV2)
        return gat_i_error(GAT_EINVAL,
                           "edge_dim %d needs the gat or gatv2 score: the %s score has "
                           "no edge term (use edge_dim 0)",
                           c->edge_dim, score_names[c->score]);
    if ((st = check_options(&c->options, NULL)) != GAT_OK) return st;
    for (int l = 0; l < GAT_MAX_LAYERS; l++) {
        const int k = c->hidden_heads[l];
        if (k != 0 && l >= c->layers - 1)
            return gat_i_error(GAT_EINVAL,
                               "hidden_heads[%d] must be 0: layer %d of %d is not a "
                               "hidden layer, got %d",
                               l, l, c->layers, k);
        if (k < 0 || k > GAT_I_MAX_HEADS)
            return gat_i_error(GAT_EINVAL, "hidden_heads[%d] must be in 0..%d, got %d", l,
                               GAT_I_MAX_HEADS, k);
        if ((int64_t)k * c->hidden > (1 << 20))
            return gat_i_error(GAT_EINVAL,
                               "hidden layer %d width hidden_heads x hidden = %d x %d "
                               "exceeds %d",
                               l, k, c->hidden, 1 << 20);
    }
    return GAT_OK;
}

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
    for (size_t k = 0; k < n; k++)
        p[k] = (gat_real)((2 * gat_rng_uniform(r) - 1) * lim);
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
    m->lean_chunk = GAT_I_LEAN_CHUNK;
    m->in_p = cfg->in_dropout;
    m->att_p = cfg->att_dropout;
    m->fused = gat_i_fused_get(cfg->options.kernels); /* checked: not NULL */
    for (int l = 0; l < m->n_layers; l++) {
        layer *L = &m->L[l];
        const int last = l == m->n_layers - 1;
        L->fin = l == 0 ? cfg->in_features : m->L[l - 1].width;
        L->fo = last ? cfg->classes : cfg->hidden;
        L->heads =
            last ? cfg->out_heads : (cfg->hidden_heads[l] > 0 ? cfg->hidden_heads[l] : cfg->heads);
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
        if (cfg->edge_dim > 0) {
            L->we = off;
            add_tensor(m, "layer%d.weight_edge", l, 2, cfg->edge_dim, L->heads * L->fo, &off);
            if (cfg->score == GAT_SCORE_GAT) { /* gatv2's edge term has no vector of its own */
                L->ae = off;
                add_tensor(m, "layer%d.att_edge", l, 2, L->heads, L->fo, &off);
            }
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
    /* the edge term's tensors are drawn after all others, which are then as without them */
    for (int l = 0; l < m->n_layers && cfg->edge_dim > 0; l++) {
        const layer *L = &m->L[l];
        for (int h = 0; h < L->heads; h++)
            for (gat_idx r = 0; r < cfg->edge_dim; r++)
                glorot(&rng, m->blob + L->we + (size_t)r * L->heads * L->fo + (size_t)h * L->fo,
                       (size_t)L->fo, cfg->edge_dim, L->fo);
        if (cfg->score == GAT_SCORE_GAT)
            glorot(&rng, m->blob + L->ae, (size_t)L->heads * L->fo, L->fo, 1);
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

void gat_i_model_set_lean_chunk(gat_model *m, gat_idx edges)
{
    m->lean_chunk = edges < 1 ? 1 : edges;
}

int gat_i_model_lean(const gat_model *m)
{
    return m->ws.fast && m->ws.lean;
}

int gat_i_model_threads(const gat_model *m)
{
    return m->threads;
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
    if (!m->ws.fast || !m->ws.ran)
        return gat_i_error(GAT_EINVAL, "%s: no forward has been run yet on the bound inputs", fn);
    return GAT_OK;
}

/* Layer l's output in the caller's numbering: the engine's when the binding keeps it, else a
 * copy made once per forward. NULL on allocation failure (GAT_ENOMEM recorded). The accessors take
 * a const model: these copies are caches of the last forward's results, not model state. */
static const gat_real *output_view(gat_model *m, int l)
{
    const gat_real *y = gat_i_fast_output(m->ws.fast, l);
    if (m->ws.order == GAT_ORDER_NONE) return y;
    const size_t w = (size_t)m->L[l].width, n = (size_t)m->ws.pg.n;
    if (!m->ws.view[l] && !(m->ws.view[l] = gat_malloc(n * w, sizeof *y))) return NULL;
    if (m->ws.view_at[l] != m->ws.fwd) {
        for (size_t k = 0; k < n; k++)
            memcpy(m->ws.view[l] + (size_t)m->ws.perm[k] * w, y + k * w, w * sizeof *y);
        m->ws.view_at[l] = m->ws.fwd;
    }
    return m->ws.view[l];
}

/* A renumbered binding's edge map: edge e of pg is edge edge_of[e] of the caller's graph; made
 * on first need (NULL on allocation failure). g is the caller's graph (m->ws.g, or the one being
 * bound). */
static const gat_idx *edge_map(gat_model *m, const gat_graph *g)
{
    if (!m->ws.edge_of) {
        gat_graph tmp;
        const size_t E = (size_t)m->ws.pg.nnz;
        if (!(m->ws.edge_of = gat_malloc(E ? E : 1, sizeof *m->ws.edge_of))) return NULL;
        /* the renumbering again, this time keeping where each edge came from */
        if (gat_graph_permute(&tmp, g, m->ws.perm, m->ws.edge_of) != GAT_OK) {
            gat_free(m->ws.edge_of);
            m->ws.edge_of = NULL;
            return NULL;
        }
        gat_graph_destroy(&tmp);
    }
    return m->ws.edge_of;
}

static const gat_real *alpha_view(gat_model *m, int l)
{
    const gat_real *a = gat_i_fast_alpha(m->ws.fast, l); /* may allocate (gat_i_fast_alpha) */
    if (!a || m->ws.order == GAT_ORDER_NONE) return a;
    const size_t H = (size_t)m->L[l].heads, E = (size_t)m->ws.pg.nnz;
    if (!edge_map(m, m->ws.g)) return NULL;
    if (!m->ws.aview[l] && !(m->ws.aview[l] = gat_malloc(E * H, sizeof *a))) return NULL;
    if (m->ws.aview_at[l] != m->ws.fwd) {
        for (size_t e = 0; e < E; e++)
            memcpy(m->ws.aview[l] + (size_t)m->ws.edge_of[e] * H, a + e * H, H * sizeof *a);
        m->ws.aview_at[l] = m->ws.fwd;
    }
    return m->ws.aview[l];
}

gat_status gat_model_layer_output(const gat_model *m, gat_idx l, const gat_real **out)
{
    gat_status st = check_layer(m, l, out, "gat_model_layer_output");
    if (st == GAT_OK && !(*out = output_view((gat_model *)m, l))) st = GAT_ENOMEM;
    return st;
}

gat_status gat_model_attention(const gat_model *m, gat_idx l, const gat_real **alpha)
{
    gat_status st = check_layer(m, l, alpha, "gat_model_attention");
    if (st == GAT_OK && m->ws.lean)
        return gat_i_error(GAT_EINVAL,
                           "gat_model_attention: the inputs are bound for inference "
                           "(GAT_BIND_INFERENCE), which keeps no attention coefficients: bind "
                           "them without it, or run gat_model_forward on them, first");
    if (st == GAT_OK && !(*alpha = alpha_view((gat_model *)m, l))) st = GAT_ENOMEM;
    return st;
}

gat_status gat_model_set_order(gat_model *m, gat_order order)
{
    gat_i_clear_error();
    if (!m) return gat_i_error(GAT_EINVAL, "gat_model_set_order: NULL model m");
    if ((unsigned)order >= GAT_ORDER_COUNT)
        return gat_i_error(GAT_EINVAL, "gat_model_set_order: order %d is not a gat_order",
                           (int)order);
    if (order != m->order) drop_caches(m); /* the next forward binds again, in the new order */
    m->order = order;
    return GAT_OK;
}

gat_order gat_model_order(const gat_model *m, double *seconds)
{
    const int bound = m && m->ws.fast;
    if (seconds) *seconds = bound ? m->ws.order_seconds : 0;
    return bound ? m->ws.order : GAT_ORDER_NONE;
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

void gat_i_model_set_hook(gat_model *m, gat_i_layer_hook hook, void *user)
{
    m->hook = hook;
    m->hook_user = hook ? user : NULL;
}

void gat_i_model_set_remote(gat_model *m, const gat_i_remote *r)
{
    m->remote = r;
}

void gat_i_model_set_keys(gat_model *m, const gat_idx *rkey, const int64_t *xkey,
                          const int64_t *ekey, const int64_t *tekey)
{
    m->rkey = rkey;
    m->xkey = xkey;
    m->ekey = ekey;
    m->tekey = ekey ? tekey : NULL;
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

gat_status gat_model_set_options(gat_model *m, const gat_model_options *o)
{
    gat_status st;
    gat_i_clear_error();
    if (!m || !o)
        return gat_i_error(GAT_EINVAL, "gat_model_set_options: NULL %s", !m ? "model m" : "o");
    if ((st = check_options(o, "gat_model_set_options")) != GAT_OK) return st;
    /* caches of the other build's run, or laid out for the other alpha storage */
    if (o->kernels != m->cfg.options.kernels || o->alpha != m->cfg.options.alpha)
        drop_caches(m);
    else if (o->fixed_threads != m->cfg.options.fixed_threads && m->ws.fast)
        gat_i_fast_set_fixed_threads(m->ws.fast, o->fixed_threads);
    m->cfg.options = *o;
    m->fused = gat_i_fused_get(o->kernels);
    return GAT_OK;
}

int gat_i_model_set_fused(gat_model *m, const char *isa)
{
    gat_model_options o = m->cfg.options;
    if (isa) {
        int k = GAT_KERNELS_BASE;
        while (k < GAT_KERNELS_COUNT && strcmp(isa, gat_kernels_name((gat_kernels)k)))
            k++;
        if (k == GAT_KERNELS_COUNT || !gat_kernels_supported((gat_kernels)k)) return -1;
        o.kernels = (gat_kernels)k;
    } else {
        o.kernels = GAT_KERNELS_AUTO;
    }
    return gat_model_set_options(m, &o) == GAT_OK ? 0 : -1;
}

int gat_i_model_threads_in_use(const gat_model *m)
{
    return m->ws.fast ? gat_i_fast_threads_in_use(m->ws.fast, m->threads) : 0;
}

const gat_i_fused_ops *gat_i_model_ops(const gat_model *m)
{
    return m->fused;
}

int gat_i_model_keeps_alpha(const gat_model *m, int l)
{
    if (!m->ws.fast || l < 0 || l >= m->n_layers) return 0;
    return gat_i_fast_keeps_alpha(m->ws.fast, l);
}

const char *gat_i_model_fused_isa(const gat_model *m)
{
    return m->ws.fast ? m->fused->isa : NULL;
}

const char *gat_model_kernels(const gat_model *m)
{
    if (!m || !m->ws.fast) return NULL;
    return m->fused->isa;
}

/* The engine's description of every layer (also the test-only reference model's). */
int gat_i_model_layers(const gat_model *m, gat_i_fast_layer *FL)
{
    for (int l = 0; l < m->n_layers; l++) {
        const layer *L = &m->L[l];
        FL[l] = (gat_i_fast_layer){.fin = L->fin,
                                   .fo = L->fo,
                                   .width = L->width,
                                   .heads = L->heads,
                                   .mean = L->mean,
                                   .score = m->cfg.score,
                                   .w = L->w,
                                   .a_src = L->a_src,
                                   .a_dst = L->a_dst,
                                   .b = L->b,
                                   .wq = L->wq,
                                   .wk = L->wk,
                                   .att = L->att,
                                   .theta = L->theta,
                                   .residual = !m->cfg.residual ? 0
                                               : L->has_res     ? 1
                                                                : 2,
                                   .res = L->res,
                                   .edge_dim = m->cfg.edge_dim,
                                   .we = L->we,
                                   .ae = L->ae};
    }
    return m->n_layers;
}

/* ---- binding ---- */

/* Frees what an ordered binding keeps besides the engine. */
static void drop_order(gat_model *m)
{
    gat_graph_destroy(&m->ws.pg);
    gat_csr_destroy(&m->ws.px);
    gat_free(m->ws.perm);
    gat_free(m->ws.iperm);
    gat_free(m->ws.edge_of);
    gat_free(m->ws.mark);
    gat_free(m->ws.rows);
    gat_free(m->ws.dl);
    for (int l = 0; l < GAT_MAX_LAYERS; l++) {
        gat_free(m->ws.view[l]);
        gat_free(m->ws.aview[l]);
        m->ws.view[l] = m->ws.aview[l] = NULL;
        m->ws.view_at[l] = m->ws.aview_at[l] = 0;
    }
    m->ws.perm = m->ws.iperm = m->ws.edge_of = m->ws.rows = NULL;
    m->ws.mark = NULL;
    m->ws.dl = NULL;
    m->ws.order = GAT_ORDER_NONE;
    m->ws.order_seconds = 0;
}

static void drop_caches(gat_model *m)
{
    drop_order(m);
    gat_free(m->ws.pex);
    gat_i_fast_free(m->ws.fast);
    memset(&m->ws, 0, sizeof m->ws);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The order the binding of g uses, and for a method the renumbered inputs pg, px and what maps
 * results back. On failure nothing of it is left. */
static gat_status make_order(gat_model *m, const gat_graph *g, const gat_csr *x)
{
    gat_status st;
    const double t0 = now();
    drop_order(m);
    gat_order use;
    if (!gat_i_order_considered(g, m->order)) return GAT_OK;
    const size_t n = (size_t)g->n, C = (size_t)m->cfg.classes;
    if (!(m->ws.perm = gat_malloc(n, sizeof *m->ws.perm))) return GAT_ENOMEM;
    if ((st = gat_i_order_pick(g, m->order, m->ws.perm, &use)) != GAT_OK) goto fail;
    if (use == GAT_ORDER_NONE) { /* auto kept the caller's order: what deciding cost */
        drop_order(m);
        m->ws.order_seconds = now() - t0;
        return GAT_OK;
    }
    st = GAT_ENOMEM;
    if (!(m->ws.iperm = gat_malloc(n, sizeof *m->ws.iperm)) || !(m->ws.mark = gat_calloc(n, 1)) ||
        !(m->ws.rows = gat_malloc(n, sizeof *m->ws.rows)) ||
        !(m->ws.dl = gat_malloc(n * C, sizeof *m->ws.dl)))
        goto fail;
    for (size_t k = 0; k < n; k++)
        m->ws.iperm[m->ws.perm[k]] = (gat_idx)k;
    if ((st = gat_graph_permute(&m->ws.pg, g, m->ws.perm, NULL)) != GAT_OK ||
        (st = gat_i_csr_permute_rows(x, m->ws.perm, &m->ws.px)) != GAT_OK)
        goto fail;
    m->ws.order = use;
    m->ws.order_seconds = now() - t0;
    return GAT_OK;
fail:
    drop_order(m);
    return st;
}

/* Whether g and x are the inputs the caches were built for: the same structs, arrays and sizes.
 * Reading x->rowptr[x->rows] is safe then: that rowptr was checked with that row count. */
static int same_inputs(const gat_model *m, const gat_graph *g, const gat_csr *x)
{
    return m->ws.g == g && m->ws.x == x && m->ws.n == g->n && m->ws.nnz == g->nnz &&
           m->ws.arrays[0] == g->rowptr && m->ws.arrays[1] == g->col &&
           m->ws.arrays[2] == x->rowptr && m->ws.arrays[3] == x->col && m->ws.arrays[4] == x->val &&
           m->ws.xnnz == x->rowptr[x->rows];
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
        return gat_i_error(GAT_EINVAL,
                           "%s: %s has a NULL rowptr (build it with a gat_graph_from_* "
                           "or gat_csr_* call)",
                           fn, !g->rowptr ? "graph g" : "features x");
    snprintf(what, sizeof what, "%s: features x", fn);
    if ((st = gat_i_graph_check(g, fn)) != GAT_OK ||
        (st = gat_i_csr_check_matrix(x, what)) != GAT_OK)
        return st;
    return GAT_OK;
}

/* Builds every cache derived from checked inputs g and x, in the memory already allocated when
 * their layout fits in it (zeroed: rows a restricted forward skips must hold finite values for
 * backward, and nothing of earlier inputs may remain), else in a new allocation, and attaches
 * edge_x (g's edge features, checked, or NULL: none). On failure m is left unbound. */
/* Makes ex (the caller's (E, D) rows of g, the graph being bound, or NULL) the binding's edge
 * features: the engine reads them as they are, or a renumbered binding its copy in pg's edge
 * order. On failure (GAT_ENOMEM) the binding has none. */
static gat_status attach_edges(gat_model *m, const gat_graph *g, const gat_real *ex)
{
    const size_t D = (size_t)m->cfg.edge_dim;
    gat_free(m->ws.pex);
    m->ws.pex = NULL;
    m->ws.ex = NULL;
    if (m->ws.fast) gat_i_fast_set_edges(m->ws.fast, NULL);
    if (!ex || !m->ws.fast) return GAT_OK;
    const gat_real *use = ex;
    if (m->ws.order != GAT_ORDER_NONE) {
        const size_t E = (size_t)m->ws.pg.nnz;
        const gat_idx *map = edge_map(m, g);
        if (!map || !(m->ws.pex = gat_malloc(E * D > 0 ? E * D : 1, sizeof *m->ws.pex)))
            return GAT_ENOMEM;
        for (size_t e = 0; e < E; e++)
            memcpy(m->ws.pex + e * D, ex + (size_t)map[e] * D, D * sizeof *ex);
        use = m->ws.pex;
    }
    m->ws.ex = ex;
    gat_i_fast_set_edges(m->ws.fast, use);
    return GAT_OK;
}

static gat_status rebuild(gat_model *m, const gat_graph *g, const gat_csr *x, unsigned flags,
                          const gat_real *edge_x)
{
    /* a binding with remote rows is a training binding */
    const gat_idx lean = (flags & GAT_BIND_INFERENCE) && !m->remote ? m->lean_chunk : 0;
    gat_status st;
    gat_i_fast_layer FL[GAT_MAX_LAYERS];
    m->ws.g = NULL; /* unbound until the end */
    m->ws.x = NULL;
    m->ws.trained = m->ws.ran = 0;
    gat_i_model_layers(m, FL);
    if ((st = make_order(m, g, x)) != GAT_OK) {
        drop_caches(m);
        return st;
    }
    /* the engine runs on the renumbered inputs when there is an order */
    const gat_graph *eg = g;
    const gat_csr *ex = x;
    if (m->ws.order != GAT_ORDER_NONE) eg = &m->ws.pg, ex = &m->ws.px;
    /* the engine rebuilds its caches in its own memory when the inputs fit there */
    int done = 0;
    if (m->ws.fast && (st = gat_i_fast_rebind(m->ws.fast, eg, ex, (flags & GAT_BIND_EXACT) != 0,
                                              m->threads, lean, m->remote, &done)) != GAT_OK) {
        drop_caches(m);
        return st;
    }
    if (!done) {
        gat_i_fast_free(m->ws.fast);
        m->ws.fast = NULL;
        if ((st = gat_i_fast_create(&m->ws.fast, m->fused, &m->cfg.options, m->n_layers, FL, eg, ex,
                                    m->threads, lean, m->remote)) != GAT_OK) {
            drop_caches(m);
            return st;
        }
    }
    if ((st = attach_edges(m, g, edge_x)) != GAT_OK) {
        drop_caches(m);
        return st;
    }
    key_inputs(m, g, x);
    m->ws.threads = m->threads;
    m->ws.lean = lean > 0;
    return GAT_OK;
}

gat_status gat_model_bind(gat_model *m, const gat_graph *g, const gat_csr *x, unsigned flags)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_model_bind", 3, (const void *[]){m, g, x},
                               (const char *[]){"model m", "graph g", "features x"})) != GAT_OK)
        return st;
    if (flags & ~(unsigned)(GAT_BIND_EXACT | GAT_BIND_INFERENCE))
        return gat_i_error(GAT_EINVAL,
                           "gat_model_bind: unknown flags 0x%x (expected 0, "
                           "GAT_BIND_EXACT, GAT_BIND_INFERENCE or both)",
                           flags & ~(unsigned)(GAT_BIND_EXACT | GAT_BIND_INFERENCE));
    if ((st = check_inputs(m, g, x, "gat_model_bind")) != GAT_OK) return st;
    return rebuild(m, g, x, flags, NULL);
}

gat_status gat_model_bind_edge_features(gat_model *m, const gat_real *edge_x, gat_idx D)
{
    const char *fn = "gat_model_bind_edge_features";
    gat_i_clear_error();
    if (!m) return gat_i_error(GAT_EINVAL, "%s: NULL model m", fn);
    /* a failure leaves no edge features (attach_edges with NULL allocates nothing); as any
     * binding, this invalidates the last forward (backward would mix old caches and new rows) */
    (void)attach_edges(m, m->ws.g, NULL);
    m->ws.trained = m->ws.ran = 0;
    if (D < 0) return gat_i_error(GAT_EINVAL, "%s: D must be >= 0, got %d", fn, D);
    if (D != m->cfg.edge_dim)
        return gat_i_error(GAT_EDIM,
                           "%s: the model was trained with edge_dim %d but the graph "
                           "has %d edge feature columns",
                           fn, m->cfg.edge_dim, D);
    if (D == 0) return GAT_OK;
    if (!edge_x) return gat_i_error(GAT_EINVAL, "%s: edge_x is NULL but D = %d", fn, D);
    if (!m->ws.fast || !m->ws.g)
        return gat_i_error(GAT_EINVAL, "%s: nothing is bound (call gat_model_bind first)", fn);
    const size_t n = (size_t)m->ws.nnz * (size_t)D;
    for (size_t k = 0; k < n; k++)
        if (!isfinite(edge_x[k]))
            return gat_i_error(GAT_ENUMERIC, "%s: edge_x of edge %zu, column %zu is %g", fn,
                               k / (size_t)D, k % (size_t)D, (double)edge_x[k]);
    return attach_edges(m, m->ws.g, edge_x);
}

gat_status gat_i_model_check_edge_dim(const gat_model *m, gat_idx D)
{
    if (m->cfg.edge_dim == 0 || D == m->cfg.edge_dim) return GAT_OK;
    return gat_i_error(GAT_EDIM,
                       "the model was trained with edge_dim %d but the graph has %d "
                       "edge feature columns",
                       m->cfg.edge_dim, D);
}

gat_status gat_i_model_bind_edges_of(gat_model *m, const gat_graph *g, const gat_csr *x,
                                     const gat_real *ex, gat_idx D, unsigned flags)
{
    gat_status st;
    const int lean = (flags & GAT_BIND_INFERENCE) != 0, edges = m->cfg.edge_dim > 0;
    if ((st = gat_i_model_check_edge_dim(m, D)) != GAT_OK) return st;
    if (!edges && !lean) return GAT_OK;
    if (m->ws.fast && same_inputs(m, g, x) && (!lean || m->ws.lean) &&
        (!edges || (ex && m->ws.ex == ex)))
        return GAT_OK;
    if ((st = gat_model_bind(m, g, x, flags)) != GAT_OK) return st;
    return edges ? gat_model_bind_edge_features(m, ex, D) : GAT_OK;
}

/* Before a forward: binds g and x unless they are the bound inputs (then nothing is checked or
 * rebuilt: every training epoch on the same inputs), and re-lays the caches out
 * when the thread count rose since (the per-thread scratch grows). */
static gat_status prepare(gat_model *m, const gat_graph *g, const gat_csr *x, int training)
{
    gat_status st = GAT_OK;
    /* a binding made for other remote rows (or none) is made again */
    const int same =
        m->ws.fast && same_inputs(m, g, x) && gat_i_fast_remote(m->ws.fast) == m->remote;
    if (!same) st = check_inputs(m, g, x, "gat_model_forward");
    /* an inference binding stays one for inference; training binds the same inputs again with
     * the caches backward needs; new inputs drop the edge features */
    if (st == GAT_OK && (!same || m->ws.threads < m->threads || (training && m->ws.lean)))
        st = rebuild(m, g, x, same && m->ws.lean && !training ? GAT_BIND_INFERENCE : 0,
                     same ? m->ws.ex : NULL);
    if (st == GAT_OK) m->ws.ran = 1;
    return st;
}

/* ---- forward / backward ---- */

void gat_i_model_next_run(gat_model *m, int training, gat_i_fast_run *run)
{
    if (training) m->step++;
    *run = (gat_i_fast_run){.training = training,
                            .key = gat_i_hash64(m->seed, m->step),
                            .in_p = m->in_p,
                            .att_p = m->att_p,
                            .slope = m->cfg.negative_slope,
                            .rows = m->out_rows,
                            .n_rows = m->n_out_rows,
                            .nt = m->threads,
                            .hook = m->hook,
                            .hook_user = m->hook_user,
                            .xkey = m->xkey,
                            .ekey = m->ekey,
                            .tekey = m->tekey,
                            .rkey = m->rkey};
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
        return gat_i_error(GAT_EDIM, "features have %d rows but the graph has %d nodes", x->rows,
                           g->n);
    if (x->cols != m->cfg.in_features)
        return gat_i_error(GAT_EDIM, "features have %d columns but the model expects %d", x->cols,
                           m->cfg.in_features);
    /* checked before binding anything: other inputs would drop the bound edge features */
    if (m->cfg.edge_dim > 0 && !(m->ws.fast && same_inputs(m, g, x) && m->ws.ex))
        return gat_i_error(GAT_EDIM,
                           "gat_model_forward: the model was trained with edge_dim %d "
                           "but the graph has 0 edge feature columns (bind them with "
                           "gat_model_bind_edge_features)",
                           m->cfg.edge_dim);
    if ((st = prepare(m, g, x, training)) != GAT_OK) return st;
    gat_i_fast_run run;
    gat_i_model_next_run(m, training, &run);
    if (m->ws.order != GAT_ORDER_NONE && run.rows) {
        /* the output rows in the engine's numbering, ascending: mark them, then collect */
        for (gat_idx q = 0; q < run.n_rows; q++)
            m->ws.mark[m->ws.iperm[run.rows[q]]] = 1;
        gat_idx c = 0;
        for (gat_idx k = 0; k < g->n; k++)
            if (m->ws.mark[k]) m->ws.mark[k] = 0, m->ws.rows[c++] = k;
        run.rows = m->ws.rows;
        run.n_rows = c;
    }
    gat_i_fast_forward(m->ws.fast, m->blob, &run);
    m->ws.fwd++;
    m->ws.trained = training;
    if (!(*logits = output_view(m, m->n_layers - 1))) return GAT_ENOMEM;
    return GAT_OK;
}

gat_status gat_model_backward(gat_model *m, const gat_real *dlogits)
{
    gat_i_clear_error();
    if (!m || !dlogits)
        return gat_i_error(GAT_EINVAL, "gat_model_backward: NULL %s", !m ? "model m" : "dlogits");
    if (!m->ws.fast || !m->ws.trained)
        return gat_i_error(GAT_EINVAL,
                           "gat_model_backward: the last forward was not a training forward");
    if (m->ws.order != GAT_ORDER_NONE) {
        const size_t C = (size_t)m->cfg.classes;
        for (size_t k = 0; k < (size_t)m->ws.pg.n; k++)
            memcpy(m->ws.dl + k * C, dlogits + (size_t)m->ws.perm[k] * C, C * sizeof *dlogits);
        dlogits = m->ws.dl;
    }
    gat_i_fast_backward(m->ws.fast, m->blob, m->blob + m->n_params, dlogits, m->threads, m->hook,
                        m->hook_user);
    return GAT_OK;
}
