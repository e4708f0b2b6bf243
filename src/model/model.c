/* A multi-layer GAT model: configuration and its checks, the parameter table and initialisation,
 * the run-time options and the accessors. The binding, forward and backward are model/bind.c. */
#include "model_state.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "matrix_i.h"
#include "layers/layers.h"
#include "fast.h"
#include "readout_i.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
    if (c->head_dropout != 0 && c->head_dropout != 1)
        return gat_i_error(GAT_EINVAL, "head_dropout must be 0 or 1, got %d", c->head_dropout);
    if (c->head_dropout && c->residual)
        return gat_i_error(GAT_EINVAL, "head_dropout 1 with residual 1: a mask per head is not "
                                       "supported with residual connections");
    if (!(c->proj_dropout >= 0 && c->proj_dropout < 1))
        return gat_i_error(GAT_EINVAL, "proj_dropout must be in [0, 1), got %g", c->proj_dropout);
    if ((c->head_dropout || c->proj_dropout > 0) && c->score != GAT_SCORE_GAT)
        return gat_i_error(GAT_EINVAL,
                           "head_dropout and proj_dropout need the gat score (the reference "
                           "code's placement), got the %s score",
                           score_names[c->score]);
    if (c->score_bias != 0 && c->score_bias != 1)
        return gat_i_error(GAT_EINVAL, "score_bias must be 0 or 1, got %d", c->score_bias);
    if (c->score_bias && c->score != GAT_SCORE_GAT)
        return gat_i_error(GAT_EINVAL,
                           "score_bias needs the gat score (the bias of its score halves), got "
                           "the %s score",
                           score_names[c->score]);
    if (c->whole_scores != 0 && c->whole_scores != 1)
        return gat_i_error(GAT_EINVAL, "whole_scores must be 0 or 1, got %d", c->whole_scores);
    if (c->whole_scores && c->score != GAT_SCORE_GAT)
        return gat_i_error(GAT_EINVAL,
                           "whole_scores needs the gat score (its score halves' vectors), got "
                           "the %s score",
                           score_names[c->score]);
    if (c->edge_dim < 0 || c->edge_dim > GAT_MAX_EDGE_DIM)
        return gat_i_error(GAT_EINVAL, "edge_dim must be in 0..%d, got %d", GAT_MAX_EDGE_DIM,
                           c->edge_dim);
    if (c->edge_dim > 0 && c->score != GAT_SCORE_GAT && c->score != GAT_SCORE_GATV2)
        return gat_i_error(GAT_EINVAL,
                           "edge_dim %d needs the gat or gatv2 score: the %s score has "
                           "no edge term (use edge_dim 0)",
                           c->edge_dim, score_names[c->score]);
    if ((st = check_options(&c->options, NULL)) != GAT_OK) return st;
    if ((st = gat_i_readout_config_check(c)) != GAT_OK) return st;
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
static void glorot_heads(gat_rng *r, gat_real *p, const gat_i_layer *L)
{
    for (int h = 0; h < L->heads; h++)
        for (gat_idx row = 0; row < L->fin; row++)
            glorot(r, p + (size_t)row * L->heads * L->fo + (size_t)h * L->fo, (size_t)L->fo, L->fin,
                   L->fo);
}

/* The tensors a score other than gat adds between weight and bias (see gat/model.h). */
static void add_score_tensors(gat_model *m, int l, size_t *off)
{
    gat_i_layer *L = &m->L[l];
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
static void init_score_tensors(gat_model *m, const gat_i_layer *L, gat_rng *r)
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

/* A graph model's readout and classifier tensors (gat/readout.h), after all layers'. */
static void add_readout_tensors(gat_model *m, size_t *off)
{
    const gat_model_config *c = &m->cfg;
    const gat_idx D = c->classes, K = gat_i_readout_heads(c), A = gat_i_readout_hidden(c);
    if (c->readout == GAT_READOUT_ATTENTION) {
        add_tensor(m, "readout.gate_weight", 0, 2, D, K * A, off);
        add_tensor(m, "readout.gate_bias", 0, 1, K * A, 0, off);
        add_tensor(m, "readout.gate_att", 0, 2, K, A, off);
    }
    gat_idx R = gat_i_readout_width(c);
    /* the MLP's hidden layers (the bound on k, checked by the config, also tells the compiler
     * that the names fit) */
    for (int k = 0; k < c->classifier_layers && k < GAT_MAX_CLASSIFIER_LAYERS; k++, R /= 2) {
        add_tensor(m, "classifier.hidden%d.weight", k, 2, R, R / 2, off);
        add_tensor(m, "classifier.hidden%d.bias", k, 1, R / 2, 0, off);
    }
    add_tensor(m, "classifier.weight", 0, 2, R, c->graph_classes, off);
    add_tensor(m, "classifier.bias", 0, 1, c->graph_classes, 0, off);
}

/* Glorot draws of add_readout_tensors' weights (biases stay zero), after every other draw. */
static void init_readout_tensors(gat_model *m, gat_rng *r)
{
    for (int k = 0; k < m->n_tensors; k++) {
        const gat_model_tensor *t = &m->tensors[k];
        if (t->ndim == 2 && (!strncmp(t->name, "readout.", 8) || !strncmp(t->name, "classifier.", 11)))
            glorot(r, m->blob + t->offset, t->size, t->shape[0], t->shape[1]);
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
    m->fused = gat_i_fused_get(cfg->options.kernels); /* checked: not NULL */
    for (int l = 0; l < m->n_layers; l++) {
        gat_i_layer *L = &m->L[l];
        const int last = l == m->n_layers - 1;
        L->fin = l == 0 ? cfg->in_features : m->L[l - 1].width;
        L->fo = last ? cfg->classes : cfg->hidden;
        L->heads =
            last ? cfg->out_heads : (cfg->hidden_heads[l] > 0 ? cfg->hidden_heads[l] : cfg->heads);
        L->mean = last;
        L->width = last ? L->fo : L->heads * L->fo;
        L->score = cfg->score;
        L->Fp = gat_i_fused_fp(L->heads, L->fo);
        L->hw = L->Fp * L->heads;
        L->edge_dim = cfg->edge_dim;
        L->head_drop = cfg->head_dropout, L->proj_p = cfg->proj_dropout;
        L->w = off;
        add_tensor(m, "layer%d.weight", l, 2, L->fin, L->heads * L->fo, &off);
        if (cfg->score == GAT_SCORE_GAT) {
            /* whole_scores: each head's vector over the whole row */
            const gat_idx aw = cfg->whole_scores ? L->heads * L->fo : L->fo;
            L->whole = cfg->whole_scores;
            L->a_src = off;
            add_tensor(m, "layer%d.att_src", l, 2, L->heads, aw, &off);
            L->a_dst = off;
            add_tensor(m, "layer%d.att_dst", l, 2, L->heads, aw, &off);
            L->score_bias = cfg->score_bias;
            if (L->score_bias) {
                L->sb = off;
                add_tensor(m, "layer%d.att_bias", l, 2, 2, L->heads, &off);
            }
        } else {
            add_score_tensors(m, l, &off);
        }
        L->b = off;
        add_tensor(m, "layer%d.bias", l, 1, L->width, 0, &off);
        L->residual = !cfg->residual ? 0 : L->fin != L->width ? 1 : 2;
        if (L->residual == 1) {
            L->res = off;
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
    if (cfg->task == GAT_TASK_GRAPH) add_readout_tensors(m, &off);
    m->n_params = off;
    if (!(m->blob = gat_calloc(4 * off, sizeof *m->blob))) {
        gat_free(m);
        return GAT_ENOMEM;
    }
    gat_rng_seed(&rng, seed);
    for (int l = 0; l < m->n_layers; l++) {
        const gat_i_layer *L = &m->L[l];
        for (int h = 0; h < L->heads; h++)
            for (gat_idx r = 0; r < L->fin; r++)
                glorot(&rng, m->blob + L->w + (size_t)r * L->heads * L->fo + (size_t)h * L->fo,
                       (size_t)L->fo, L->fin, L->fo);
        if (cfg->score == GAT_SCORE_GAT) {
            /* a head's (fo) vector as PyG's (1, heads, fo); the whole row's (heads, heads fo)
             * as a (heads fo -> heads) linear map */
            const size_t n = (size_t)L->heads * L->fo * (L->whole ? (size_t)L->heads : 1);
            const gat_idx fan_in = L->whole ? L->heads * L->fo : L->fo,
                          fan_out = L->whole ? L->heads : 1;
            glorot(&rng, m->blob + L->a_src, n, fan_in, fan_out);
            glorot(&rng, m->blob + L->a_dst, n, fan_in, fan_out);
        } else {
            init_score_tensors(m, L, &rng);
        }
        if (L->residual == 1) glorot(&rng, m->blob + L->res, (size_t)L->fin * L->width, L->fin, L->width);
    }
    /* the edge term's tensors are drawn after all others, which are then as without them */
    for (int l = 0; l < m->n_layers && cfg->edge_dim > 0; l++) {
        const gat_i_layer *L = &m->L[l];
        for (int h = 0; h < L->heads; h++)
            for (gat_idx r = 0; r < cfg->edge_dim; r++)
                glorot(&rng, m->blob + L->we + (size_t)r * L->heads * L->fo + (size_t)h * L->fo,
                       (size_t)L->fo, cfg->edge_dim, L->fo);
        if (cfg->score == GAT_SCORE_GAT)
            glorot(&rng, m->blob + L->ae, (size_t)L->heads * L->fo, L->fo, 1);
    }
    init_readout_tensors(m, &rng);
    *out = m;
    return GAT_OK;
}

void gat_model_free(gat_model *m)
{
    if (!m) return;
    gat_i_model_unbind(m);
    gat_i_readout_ws_free(m->ro);
    gat_free(m->dlogits);
    gat_free(m->ident);
    gat_free(m->blob);
    gat_free(m);
}

const gat_model_config *gat_model_get_config(const gat_model *m)
{
    return m ? &m->cfg : NULL;
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

uint64_t *gat_i_model_dropout_step(gat_model *m)
{
    return &m->step;
}

uint64_t gat_i_model_seed(const gat_model *m)
{
    return m->seed;
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

const gat_idx *gat_i_model_rows(gat_model *m, gat_idx n)
{
    if (n > m->ident_n || !m->ident) {
        gat_idx *r = gat_realloc(m->ident, (size_t)(n > 0 ? n : 1), sizeof *r);
        if (!r) return NULL;
        for (gat_idx k = m->ident_n; k < n; k++)
            r[k] = k;
        m->ident = r;
        m->ident_n = n;
    }
    return m->ident;
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
        gat_i_model_unbind(m);
    else if (o->fixed_threads != m->cfg.options.fixed_threads && m->ws.fast)
        gat_i_fast_set_fixed_threads(m->ws.fast, o->fixed_threads);
    m->cfg.options = *o;
    m->fused = gat_i_fused_get(o->kernels);
    return GAT_OK;
}

int gat_i_model_threads_in_use(const gat_model *m)
{
    return m->ws.fast ? gat_i_fast_threads_in_use(m->ws.fast, m->threads) : 0;
}

const gat_i_fused_ops *gat_i_model_ops(const gat_model *m)
{
    return m->fused;
}

int gat_i_model_trimmed(const gat_model *m)
{
    return m->ws.fast && gat_i_fast_trimmed(m->ws.fast);
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

const gat_i_layer *gat_i_model_layers(const gat_model *m, int *n)
{
    *n = m->n_layers;
    return m->L;
}
