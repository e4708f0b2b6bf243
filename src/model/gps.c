/* Graph transformers (gat/gps.h): configuration, parameter table, forward and backward of the
 * input projection, the L hybrid layers (GAT term on the engine, global attention, layer norms,
 * MLP) and the node or graph head. Backward per layer, from dh' (the layer's output gradient):
 *   dc = LN_2'(dh'); du = dc + MLP'(dc); da = LN_1'(du); dh = da + GAT'(da) + Attn'(da). */
#include "gps_i.h"
#include "core/core.h"
#include "layers/fused.h"
#include "layers/global_attn.h"
#include "model/readout_i.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { MAX_TENSORS = GAT_I_GPS_MAX_TENSORS };

/* Offsets of one layer's tensors in the parameter buffer (0 where the kind has none). */
typedef struct gps_layer {
    size_t gw, gas, gad, gb; /* GAT: W (D, H D), a_src, a_dst (H, D) or whole (H, H D), b (D) */
    size_t gsb;              /* whole_scores: the scores' bias (H) */
    size_t wq, bq, wk, bk, wv, bv, wo, bo;   /* attention projections (D, D) and biases (D) */
    size_t n1g, n1b, w1, b1, w2, b2, n2g, n2b; /* LN_1, MLP (D, 2D), (2D), (2D, D), (D), LN_2;
                                                * GAT_GPS_FFN: LN, W_1 (D, D), b_1, W_2, b_2 */
    size_t bng, bnb, bnm, bnv;               /* GAT_GPS_BN: gain, bias, running mean, var (D) */
    gat_idx heads;                           /* GAT_GPS_BN, FFN: the layer's heads H_l */
} gps_layer;

/* One layer's forward caches (rows N; widths in the comments). */
typedef struct gps_cache {
    gat_real *loc;                /* (D) the GAT term after dropout */
    gat_real *q, *k, *v, *o, *lse; /* (D) x4, (H) */
    gat_real *att;                /* (D) the attention term after dropout */
    gat_real *a, *u, *m1, *r1;    /* (D) pre-LN_1, u, (1) mean, (1) rstd */
    gat_real *z, *hid;            /* (2D) pre-ReLU, after ReLU and dropout; GAT_GPS_FFN (D):
                                   * GELU's input (after dropout), its output */
    gat_real *c, *m2, *r2;        /* (D) pre-LN_2, (1), (1) */
    gat_real *out;                /* (D) the layer's output */
    gat_real *bmu, *brs;          /* GAT_GPS_BN: (D per layer, not per row) BN's mean, rstd */
} gps_cache;

struct gat_gps {
    gat_gps_config cfg;
    gat_model_tensor tensors[MAX_TENSORS];
    char names[MAX_TENSORS][32];
    int n_tensors;
    size_t n_params, n_train; /* all values; those before the running statistics */
    gat_real *blob; /* params | grads | Adam m | Adam v */
    size_t in_w, in_b, out_w, out_b;
    size_t on_g, on_b;       /* GAT_GPS_FFN: LN_out's gain and bias (D) */
    size_t ro_v, ro_c, ro_w; /* the attention readout's gate: V (D, K A), c (K A), w (K, A) */
    size_t cls_w[GAT_MAX_CLASSIFIER_LAYERS + 1], cls_b[GAT_MAX_CLASSIFIER_LAYERS + 1];
    gps_layer L[GAT_MAX_LAYERS];
    gat_i_gps_local local[GAT_MAX_LAYERS];
    uint64_t seed, step, key;
    int threads;
    /* the last forward */
    const gat_graph *g;
    const gat_csr *x;
    gat_idx N, B, M;
    int trained, ran;
    void *act;    /* one allocation: caches and scratch for cap_n rows, cap_b segments */
    size_t cap_n, cap_b;
    gat_real *h0, *r, *logits;
    /* GAT_GPS_FFN: h0's GELU input (after dropout); LN_out(h_L), its mean and rstd (N) */
    gat_real *h0z, *hfin, *mfin, *rfin;
    /* backward scratch: dh the current layer's output gradient, dn its input gradient, then
     * per step (N, D) unless noted: sc (LN_2), su (u), shid (N, 2D), sa (LN_1), sbr (a term's
     * output), so (the attention's O), dq, dk, dv; delta (N, H); dr (B, D) */
    gat_real *dh, *dn, *sc, *su, *shid, *sa, *sbr, *so, *dq, *dk, *dv, *delta, *dr;
    gat_real *wt; /* a dense layer's W^T (the widest: MLP 2D x D, the output D x C) */
    gps_cache C[GAT_MAX_LAYERS];
    gat_idx *seg, *anchor;
    gat_i_readout_op ro;
    gat_i_mlp_op mlp;                /* graph task with classifier_layers > 0 */
    gat_real *mlp_act, *mlp_scratch; /* its caches for cap_b graphs */
};

static const char *const kind_names[GAT_GPS_KIND_COUNT] = {"gps", "transformer", "gat-mlp",
                                                           "gat-bn", "gat-ffn"};

const char *gat_gps_kind_name(gat_gps_kind k)
{
    return (unsigned)k < GAT_GPS_KIND_COUNT ? kind_names[k] : NULL;
}

gat_status gat_gps_kind_from_name(const char *name, gat_gps_kind *out)
{
    static const int values[GAT_GPS_KIND_COUNT] = {0, 1, 2, 3, 4};
    int v;
    gat_status st;
    gat_i_clear_error();
    if (!name || !out)
        return gat_i_error(GAT_EINVAL, "gat_gps_kind_from_name: NULL %s", !name ? "name" : "out");
    if ((st = gat_i_name_lookup("layer kind", name, kind_names, values, GAT_GPS_KIND_COUNT, &v)) ==
        GAT_OK)
        *out = (gat_gps_kind)v;
    return st;
}

void gat_gps_config_default(gat_gps_config *c, gat_idx in_features, gat_idx classes)
{
    if (!c) return;
    *c = (gat_gps_config){.in_features = in_features,
                          .classes = classes,
                          .dim = 64,
                          .layers = 2,
                          .heads = 4,
                          .dropout = 0.1,
                          .negative_slope = 0.2};
}

/* Whether c pools by attention. */
static int ro_attention(const gat_gps_config *c)
{
    return c->task == GAT_TASK_GRAPH && c->readout == GAT_READOUT_ATTENTION;
}

/* c's readout width R (K D for attention, else D) and the gate's K and A (either may be NULL):
 * the rule of graph models' readouts (readout.c). */
static gat_idx ro_shape(const gat_gps_config *c, gat_idx *K, gat_idx *A)
{
    return gat_i_readout_shape(c->task == GAT_TASK_GRAPH ? c->readout : GAT_READOUT_SUM,
                               c->readout_heads, c->readout_hidden, c->dim, K, A);
}

gat_status gat_gps_config_check(const gat_gps_config *c)
{
    gat_i_clear_error();
    if (!c) return gat_i_error(GAT_EINVAL, "gat_gps_config_check: NULL config");
#define BAD(cond, ...)                                                                             \
    if (cond) return gat_i_error(GAT_EINVAL, "gat_gps_config: " __VA_ARGS__)
    BAD(c->in_features < 1, "in_features = %d, expected > 0", c->in_features);
    BAD(c->classes < 1, "classes = %d, expected > 0", c->classes);
    BAD(!gat_task_name(c->task), "task = %d is not a gat_task", (int)c->task);
    BAD(c->task == GAT_TASK_GRAPH && !gat_readout_name(c->readout),
        "readout = %d is not a gat_readout", (int)c->readout);
    BAD(c->readout_heads < 0 || c->readout_heads > GAT_MAX_HEADS,
        "readout_heads = %d, expected 0 (one) or 1..%d", c->readout_heads, GAT_MAX_HEADS);
    BAD(c->readout_hidden < 0 || c->readout_hidden > 65536,
        "readout_hidden = %d, expected 0 (dim) or 1..65536", c->readout_hidden);
    BAD((c->readout_heads || c->readout_hidden) &&
            (c->task != GAT_TASK_GRAPH || c->readout != GAT_READOUT_ATTENTION),
        "readout_%s = %d: only the attention readout of a graph task has a gate",
        c->readout_heads ? "heads" : "hidden",
        c->readout_heads ? c->readout_heads : c->readout_hidden);
    BAD(!gat_gps_kind_name(c->kind), "kind = %d is not a gat_gps_kind", (int)c->kind);
    BAD(c->layers < 1 || c->layers > GAT_MAX_LAYERS, "layers = %d, expected 1..%d", c->layers,
        GAT_MAX_LAYERS);
    BAD(c->dim < 1 || c->dim > 4096, "dim = %d, expected 1..4096", c->dim);
    BAD(c->heads < 1 || c->heads > c->dim || c->dim % c->heads != 0,
        "heads = %d, expected a divisor of dim = %d", c->heads, c->dim);
    BAD(!(c->dropout >= 0 && c->dropout < 1), "dropout = %g, expected [0, 1)", c->dropout);
    BAD(!(c->att_dropout >= 0 && c->att_dropout < 1), "att_dropout = %g, expected [0, 1)",
        c->att_dropout);
    BAD(!(c->negative_slope >= 0 && c->negative_slope <= 1), "negative_slope = %g, expected [0, 1]",
        c->negative_slope);
    BAD(c->anchors < 0, "anchors = %d, expected >= 0", c->anchors);
    BAD(c->anchors > 0 && (c->kind == GAT_GPS_LOCAL || c->kind >= GAT_GPS_BN),
        "anchors = %d: kind %s has no global attention", c->anchors, gat_gps_kind_name(c->kind));
    BAD(c->last_heads != 0 && c->kind != GAT_GPS_BN,
        "last_heads = %d: only kind gat-bn has a head count of its own on the last layer",
        c->last_heads);
    BAD(c->residual != 0 && (c->kind != GAT_GPS_BN || c->residual != 1),
        "residual = %d: expected 0, or 1 with kind gat-bn (the other kinds' residual sums are "
        "part of them)", c->residual);
    BAD(c->last_heads < 0 || c->last_heads > c->dim || (c->last_heads && c->dim % c->last_heads),
        "last_heads = %d, expected 0 or a divisor of dim = %d", c->last_heads, c->dim);
    BAD(c->classifier_layers < 0 || c->classifier_layers > GAT_MAX_CLASSIFIER_LAYERS ||
            (ro_shape(c, NULL, NULL) >> c->classifier_layers) < 1,
        "classifier_layers = %d, expected 0..%d with R / 2^classifier_layers >= 1 (R = %d, the "
        "readout's width)",
        c->classifier_layers, GAT_MAX_CLASSIFIER_LAYERS, ro_shape(c, NULL, NULL));
    BAD(c->classifier_layers > 0 && c->task != GAT_TASK_GRAPH,
        "classifier_layers = %d: a node model's output is linear (task graph has the MLP)",
        c->classifier_layers);
    BAD(c->whole_scores != 0 && c->whole_scores != 1, "whole_scores = %d, expected 0 or 1",
        c->whole_scores);
    BAD(c->linear_init != 0 && c->linear_init != 1, "linear_init = %d, expected 0 or 1",
        c->linear_init);
    BAD(c->whole_scores && c->kind == GAT_GPS_GLOBAL,
        "whole_scores = 1: kind transformer has no GAT term");
#undef BAD
    return GAT_OK;
}

/* ---- parameters ---- */

static size_t add(gat_gps *m, const char *fmt, int l, gat_idx d0, gat_idx d1, size_t *off)
{
    gat_model_tensor *t = &m->tensors[m->n_tensors];
    snprintf(m->names[m->n_tensors], sizeof m->names[0], fmt, l);
    t->name = m->names[m->n_tensors];
    t->ndim = d1 ? 2 : 1;
    t->shape[0] = d0, t->shape[1] = d1, t->shape[2] = 0;
    t->offset = *off;
    t->size = (size_t)d0 * (d1 ? (size_t)d1 : 1);
    *off += t->size;
    m->n_tensors++;
    return t->offset;
}

static void table(gat_gps *m)
{
    const gat_gps_config *c = &m->cfg;
    const gat_idx D = c->dim, H = c->heads;
    size_t off = 0;
    m->in_w = add(m, "input.weight", 0, c->in_features, D, &off);
    m->in_b = add(m, "input.bias", 0, D, 0, &off);
    for (int l = 0; l < c->layers; l++) {
        gps_layer *L = &m->L[l];
        if (c->kind == GAT_GPS_BN) { /* H_l heads of D / H_l concatenated */
            const gat_idx Hl = l == c->layers - 1 && c->last_heads ? c->last_heads : H;
            L->heads = Hl;
            L->gw = add(m, "layer%d.gat.weight", l, D, D, &off);
            L->gas = add(m, "layer%d.gat.att_src", l, Hl, c->whole_scores ? D : D / Hl, &off);
            L->gad = add(m, "layer%d.gat.att_dst", l, Hl, c->whole_scores ? D : D / Hl, &off);
            if (c->whole_scores) L->gsb = add(m, "layer%d.gat.att_bias", l, Hl, 0, &off);
            L->gb = add(m, "layer%d.gat.bias", l, D, 0, &off);
            L->bng = add(m, "layer%d.bn.gain", l, D, 0, &off);
            L->bnb = add(m, "layer%d.bn.bias", l, D, 0, &off);
            continue;
        }
        if (c->kind == GAT_GPS_FFN) { /* H heads of D / H concatenated, then the FFN */
            L->heads = H;
            L->n1g = add(m, "layer%d.norm.gain", l, D, 0, &off);
            L->n1b = add(m, "layer%d.norm.bias", l, D, 0, &off);
            L->gw = add(m, "layer%d.gat.weight", l, D, D, &off);
            L->gas = add(m, "layer%d.gat.att_src", l, H, c->whole_scores ? D : D / H, &off);
            L->gad = add(m, "layer%d.gat.att_dst", l, H, c->whole_scores ? D : D / H, &off);
            if (c->whole_scores) L->gsb = add(m, "layer%d.gat.att_bias", l, H, 0, &off);
            L->gb = add(m, "layer%d.gat.bias", l, D, 0, &off);
            L->w1 = add(m, "layer%d.ffn.weight1", l, D, D, &off);
            L->b1 = add(m, "layer%d.ffn.bias1", l, D, 0, &off);
            L->w2 = add(m, "layer%d.ffn.weight2", l, D, D, &off);
            L->b2 = add(m, "layer%d.ffn.bias2", l, D, 0, &off);
            continue;
        }
        if (c->kind != GAT_GPS_GLOBAL) {
            L->gw = add(m, "layer%d.gat.weight", l, D, H * D, &off);
            L->gas = add(m, "layer%d.gat.att_src", l, H, c->whole_scores ? H * D : D, &off);
            L->gad = add(m, "layer%d.gat.att_dst", l, H, c->whole_scores ? H * D : D, &off);
            if (c->whole_scores) L->gsb = add(m, "layer%d.gat.att_bias", l, H, 0, &off);
            L->gb = add(m, "layer%d.gat.bias", l, D, 0, &off);
        }
        if (c->kind != GAT_GPS_LOCAL) {
            L->wq = add(m, "layer%d.attn.query", l, D, D, &off);
            L->bq = add(m, "layer%d.attn.query_bias", l, D, 0, &off);
            L->wk = add(m, "layer%d.attn.key", l, D, D, &off);
            L->bk = add(m, "layer%d.attn.key_bias", l, D, 0, &off);
            L->wv = add(m, "layer%d.attn.value", l, D, D, &off);
            L->bv = add(m, "layer%d.attn.value_bias", l, D, 0, &off);
            L->wo = add(m, "layer%d.attn.out", l, D, D, &off);
            L->bo = add(m, "layer%d.attn.out_bias", l, D, 0, &off);
        }
        L->n1g = add(m, "layer%d.norm1.gain", l, D, 0, &off);
        L->n1b = add(m, "layer%d.norm1.bias", l, D, 0, &off);
        L->w1 = add(m, "layer%d.mlp.weight1", l, D, 2 * D, &off);
        L->b1 = add(m, "layer%d.mlp.bias1", l, 2 * D, 0, &off);
        L->w2 = add(m, "layer%d.mlp.weight2", l, 2 * D, D, &off);
        L->b2 = add(m, "layer%d.mlp.bias2", l, D, 0, &off);
        L->n2g = add(m, "layer%d.norm2.gain", l, D, 0, &off);
        L->n2b = add(m, "layer%d.norm2.bias", l, D, 0, &off);
    }
    if (c->kind == GAT_GPS_FFN) {
        m->on_g = add(m, "output_norm.gain", 0, D, 0, &off);
        m->on_b = add(m, "output_norm.bias", 0, D, 0, &off);
    }
    if (ro_attention(c)) { /* a GAT graph model's names and shapes */
        gat_idx K, A;
        ro_shape(c, &K, &A);
        m->ro_v = add(m, "readout.gate_weight", 0, D, K * A, &off);
        m->ro_c = add(m, "readout.gate_bias", 0, K * A, 0, &off);
        m->ro_w = add(m, "readout.gate_att", 0, K, A, &off);
    }
    gat_idx R = ro_shape(c, NULL, NULL);
    for (int k = 0; k < c->classifier_layers; k++, R /= 2) {
        m->cls_w[k] = add(m, "classifier.hidden%d.weight", k, R, R / 2, &off);
        m->cls_b[k] = add(m, "classifier.hidden%d.bias", k, R / 2, 0, &off);
    }
    m->out_w = add(m, c->task == GAT_TASK_GRAPH ? "classifier.weight" : "output.weight", 0, R,
                   c->classes, &off);
    m->out_b = add(m, c->task == GAT_TASK_GRAPH ? "classifier.bias" : "output.bias", 0, c->classes,
                   0, &off);
    m->cls_w[c->classifier_layers] = m->out_w, m->cls_b[c->classifier_layers] = m->out_b;
    m->n_train = off;
    if (c->kind == GAT_GPS_BN) /* not trained: last, outside the optimiser's prefix */
        for (int l = 0; l < c->layers; l++) {
            m->L[l].bnm = add(m, "layer%d.bn.running_mean", l, D, 0, &off);
            m->L[l].bnv = add(m, "layer%d.bn.running_var", l, D, 0, &off);
        }
    m->n_params = off;
}

/* Glorot-uniform weights (per head for the GAT term's), zero biases, unit gains. */
/* m's tensor called name, or NULL. */
static const gat_model_tensor *tensor_named(const gat_gps *m, const char *name)
{
    for (int k = 0; k < m->n_tensors; k++)
        if (!strcmp(m->tensors[k].name, name)) return &m->tensors[k];
    return NULL;
}

/* The fan-in of t as PyTorch's nn.Linear sees it, 0 for none: a weight (in, out) its rows, a
 * score's vectors (heads, width) their width (nn.Linear(width, heads)); a bias its linear map's:
 * X.bias and X.biasK of X.weight and X.weightK, X_bias of X or X_weight, gat.att_bias of the
 * scores' vectors; the norms' biases (no such weight) none. */
static double fan_in(const gat_gps *m, const gat_model_tensor *t)
{
    if (t->ndim == 2)
        return strstr(t->name, ".att_") || strstr(t->name, ".gate_att") ? (double)t->shape[1]
                                                                        : (double)t->shape[0];
    char w[48];
    const char *name = t->name, *dot = strrchr(name, '.');
    const size_t len = strlen(name);
    if (len > 12 && !strcmp(name + len - 12, "gat.att_bias"))
        snprintf(w, sizeof w, "%.*satt_src", (int)(len - 8), name);
    else if (len > 5 && !strcmp(name + len - 5, "_bias"))
        snprintf(w, sizeof w, "%.*s", (int)(len - 5), name);
    else if (dot && !strncmp(dot, ".bias", 5))
        snprintf(w, sizeof w, "%.*s.weight%s", (int)(dot - name), name, dot + 5);
    else
        return 0;
    const gat_model_tensor *u = tensor_named(m, w);
    if (!u && len > 5 && !strcmp(name + len - 5, "_bias")) {
        snprintf(w, sizeof w, "%.*s_weight", (int)(len - 5), name);
        u = tensor_named(m, w);
    }
    return u && u->ndim == 2 ? fan_in(m, u) : 0;
}

static void init(gat_gps *m)
{
    gat_rng r;
    gat_rng_seed(&r, m->seed);
    gat_real *p = m->blob;
    memset(p, 0, m->n_params * sizeof *p);
    if (m->cfg.linear_init) { /* PyTorch's defaults */
        for (int k = 0; k < m->n_tensors; k++) {
            const gat_model_tensor *t = &m->tensors[k];
            const size_t len = strlen(t->name);
            if ((len > 5 && !strcmp(t->name + len - 5, ".gain")) ||
                (len > 12 && !strcmp(t->name + len - 12, ".running_var")))
                for (size_t e = 0; e < t->size; e++)
                    p[t->offset + e] = 1;
            const double fan = fan_in(m, t);
            if (fan <= 0) continue;
            const double lim = 1 / sqrt(fan);
            for (size_t e = 0; e < t->size; e++)
                p[t->offset + e] = (gat_real)((2 * gat_rng_uniform(&r) - 1) * lim);
        }
        return;
    }
    for (int k = 0; k < m->n_tensors; k++) {
        const gat_model_tensor *t = &m->tensors[k];
        const char *name = t->name;
        const size_t len = strlen(name);
        if ((len > 5 && !strcmp(name + len - 5, ".gain")) ||
            (len > 12 && !strcmp(name + len - 12, ".running_var")))
            for (size_t e = 0; e < t->size; e++) p[t->offset + e] = 1;
        if (t->ndim != 2) continue;
        double fin = t->shape[0], fout = t->shape[1];
        if (strstr(name, ".gat.weight")) { /* one head's columns */
            int l = 0;
            if (m->cfg.kind >= GAT_GPS_BN && sscanf(name, "layer%d", &l) == 1)
                fout = (double)m->cfg.dim / (double)m->L[l].heads;
            else
                fout = m->cfg.dim;
        }
        /* a head's vector over its slice (PyG's glorot of (1, H, Fo)), or the whole row's H
         * vectors (glorot of (H Fo, H)) */
        if (strstr(name, ".gat.att_")) fin = m->cfg.whole_scores ? t->shape[1] : 1;
        if (strstr(name, ".gat.att_") && m->cfg.whole_scores) fout = t->shape[0];
        const double lim = sqrt(6.0 / (fin + fout));
        for (size_t e = 0; e < t->size; e++)
            p[t->offset + e] = (gat_real)((2 * gat_rng_uniform(&r) - 1) * lim);
    }
}

gat_status gat_gps_create(gat_gps **out, const gat_gps_config *c, uint64_t seed)
{
    gat_status st;
    gat_i_clear_error();
    if (!out) return gat_i_error(GAT_EINVAL, "gat_gps_create: NULL out");
    *out = NULL;
    if ((st = gat_gps_config_check(c)) != GAT_OK) return st;
    gat_gps *m = gat_calloc(1, sizeof *m);
    if (!m) return GAT_ENOMEM;
    m->cfg = *c;
    m->seed = seed;
    m->threads = gat_i_threads(0);
    table(m);
    if (!(m->blob = gat_calloc(4 * m->n_params, sizeof *m->blob))) {
        gat_free(m);
        return GAT_ENOMEM;
    }
    init(m);
    for (int l = 0; l < c->layers; l++) {
        const gps_layer *L = &m->L[l];
        const int bn = c->kind >= GAT_GPS_BN; /* heads concatenated, no activation */
        const gat_idx H = bn ? L->heads : c->heads, Fo = bn ? c->dim / L->heads : c->dim;
        gat_i_gps_local_init(&m->local[l], c->dim, Fo, H, bn, L->gw, L->gas, L->gad, L->gb,
                             c->negative_slope, c->att_dropout, m->threads);
        /* Platonov et al.'s scores: attn_linear_u and attn_linear_v, nn.Linear(dim, heads),
         * the first with a bias (inside the LeakyReLU: it matters) */
        m->local[l].L.whole = c->whole_scores;
        m->local[l].L.score_bias = c->whole_scores ? 2 : 0;
        m->local[l].L.sb = L->gsb;
    }
    *out = m;
    return GAT_OK;
}

void gat_gps_free(gat_gps *m)
{
    if (!m) return;
    for (int l = 0; l < m->cfg.layers; l++) gat_i_gps_local_free(&m->local[l]);
    gat_free(m->act);
    gat_free(m->blob);
    gat_free(m);
}

const gat_gps_config *gat_gps_get_config(const gat_gps *m)
{
    return m ? &m->cfg : NULL;
}

void gat_gps_set_threads(gat_gps *m, int n)
{
    if (!m) return;
    m->threads = gat_i_threads(n);
    for (int l = 0; l < m->cfg.layers; l++) m->local[l].threads = m->threads;
}

gat_real *gat_gps_params(gat_gps *m, size_t *count)
{
    if (count) *count = m ? m->n_params : 0;
    return m ? m->blob : NULL;
}

gat_real *gat_gps_grads(gat_gps *m, size_t *count)
{
    if (count) *count = m ? m->n_params : 0;
    return m ? m->blob + m->n_params : NULL;
}

size_t gat_gps_trainable(const gat_gps *m)
{
    return m ? m->n_train : 0;
}

const gat_model_tensor *gat_gps_tensors(const gat_gps *m, int *count)
{
    if (count) *count = m ? m->n_tensors : 0;
    return m ? m->tensors : NULL;
}

void gat_gps_zero_grads(gat_gps *m)
{
    if (m) memset(m->blob + m->n_params, 0, m->n_params * sizeof *m->blob);
}

/* Adam's moments (same layout as the parameters), for the trainer (gps_train.c). */
void gat_i_gps_moments(gat_gps *m, gat_real **m1, gat_real **m2)
{
    *m1 = m->blob + 2 * m->n_params;
    *m2 = m->blob + 3 * m->n_params;
}

uint64_t *gat_i_gps_dropout_step(gat_gps *m)
{
    return &m->step;
}

uint64_t gat_i_gps_seed(const gat_gps *m)
{
    return m->seed;
}

/* ---- caches ---- */

/* Carves the caches for N rows and B segments from base (NULL: measures into *off). */
static void carve(gat_gps *m, char *base, size_t *off, gat_idx N, gat_idx B)
{
    const size_t D = (size_t)m->cfg.dim, H = (size_t)m->cfg.heads, n = (size_t)N, R = sizeof(gat_real);
    const size_t C = (size_t)m->cfg.classes, rows = m->cfg.task == GAT_TASK_GRAPH ? (size_t)B : n;
    /* what the kind uses: the global attention's buffers, the FFN kind's, the MLP's width */
    const gat_gps_kind kind = m->cfg.kind;
    const size_t na = kind == GAT_GPS_HYBRID || kind == GAT_GPS_GLOBAL ? n : 0;
    const size_t nf = kind == GAT_GPS_FFN ? n : 0, wm = kind == GAT_GPS_FFN ? 1 : 2;
    m->h0 = gat_i_carve(base, off, n * D, R);
    m->h0z = gat_i_carve(base, off, nf * D, R);
    m->hfin = gat_i_carve(base, off, nf * D, R);
    m->mfin = gat_i_carve(base, off, nf, R);
    m->rfin = gat_i_carve(base, off, nf, R);
    gat_real **nd[] = {&m->dh, &m->dn, &m->sc, &m->su, &m->sa, &m->sbr};
    for (size_t t = 0; t < sizeof nd / sizeof *nd; t++) *nd[t] = gat_i_carve(base, off, n * D, R);
    gat_real **ad[] = {&m->so, &m->dq, &m->dk, &m->dv};
    for (size_t t = 0; t < sizeof ad / sizeof *ad; t++)
        *ad[t] = gat_i_carve(base, off, na * D, R);
    m->shid = gat_i_carve(base, off, n * wm * D, R);
    m->wt = gat_i_carve(base, off, D * (2 * D > C ? 2 * D : C), R);
    m->delta = gat_i_carve(base, off, na * H, R);
    gat_idx K, A;
    const size_t W = (size_t)ro_shape(&m->cfg, &K, &A);
    m->r = gat_i_carve(base, off, (size_t)B * W, R);
    m->dr = gat_i_carve(base, off, (size_t)B * W, R);
    if (ro_attention(&m->cfg)) {
        const size_t KA = (size_t)K * (size_t)A;
        m->ro.u = gat_i_carve(base, off, n * KA, R);
        m->ro.dz = gat_i_carve(base, off, n * KA, R);
        m->ro.a = gat_i_carve(base, off, n * (size_t)K, R);
        m->ro.dg = gat_i_carve(base, off, n * (size_t)K, R);
    }
    m->logits = gat_i_carve(base, off, rows * C, R);
    m->seg = gat_i_carve(base, off, (size_t)B + 1, sizeof(gat_idx));
    m->anchor = gat_i_carve(base, off, (size_t)m->cfg.anchors + 1, sizeof(gat_idx));
    m->ro.arg = gat_i_carve(base, off, (size_t)B * D, sizeof(gat_idx));
    if (m->cfg.classifier_layers > 0) {
        m->mlp_act =
            gat_i_carve(base, off, gat_i_mlp_act_size(B, (gat_idx)W, m->cfg.classifier_layers), R);
        m->mlp_scratch = gat_i_carve(base, off, 2 * (size_t)B * (W / 2), R);
    }
    for (int l = 0; l < m->cfg.layers; l++) {
        gps_cache *c = &m->C[l];
        c->loc = gat_i_carve(base, off, n * D, R);
        c->q = gat_i_carve(base, off, na * D, R);
        c->k = gat_i_carve(base, off, na * D, R);
        c->v = gat_i_carve(base, off, na * D, R);
        c->o = gat_i_carve(base, off, na * D, R);
        c->lse = gat_i_carve(base, off, na * H, R);
        c->att = gat_i_carve(base, off, na * D, R);
        c->a = gat_i_carve(base, off, n * D, R);
        c->u = gat_i_carve(base, off, n * D, R);
        c->m1 = gat_i_carve(base, off, n, R);
        c->r1 = gat_i_carve(base, off, n, R);
        c->z = gat_i_carve(base, off, n * wm * D, R);
        c->hid = gat_i_carve(base, off, n * wm * D, R);
        c->c = gat_i_carve(base, off, n * D, R);
        c->m2 = gat_i_carve(base, off, n, R);
        c->r2 = gat_i_carve(base, off, n, R);
        c->out = gat_i_carve(base, off, n * D, R);
        c->bmu = gat_i_carve(base, off, D, R);
        c->brs = gat_i_carve(base, off, D, R);
    }
}

static gat_status reserve(gat_gps *m, gat_idx N, gat_idx B)
{
    if ((size_t)N <= m->cap_n && (size_t)B <= m->cap_b) {
        carve(m, m->act, &(size_t){0}, (gat_idx)m->cap_n, (gat_idx)m->cap_b);
        return GAT_OK;
    }
    const gat_idx n = (size_t)N > m->cap_n ? N : (gat_idx)m->cap_n;
    const gat_idx b = (size_t)B > m->cap_b ? B : (gat_idx)m->cap_b;
    size_t size = 0;
    carve(m, NULL, &size, n, b);
    gat_free(m->act);
    m->cap_n = m->cap_b = 0;
    if (size == SIZE_MAX || !(m->act = gat_malloc(size, 1))) return GAT_ENOMEM;
    carve(m, m->act, &(size_t){0}, n, b);
    m->cap_n = (size_t)n, m->cap_b = (size_t)b;
    return GAT_OK;
}

/* ---- forward ---- */

/* The dropout stream of site s of layer l in this forward. */
static uint64_t drop_key(const gat_gps *m, int l, int s)
{
    return gat_i_hash64(m->key, 8 * (uint64_t)l + (uint64_t)s);
}

/* The dropout stream of GAT_GPS_FFN's input (a site no layer has). */
static uint64_t input_key(const gat_gps *m)
{
    return gat_i_hash64(m->key, 8 * (uint64_t)GAT_MAX_LAYERS);
}

/* Whether the attention runs over anchors (one graph larger than the anchor count). */
static int use_anchors(const gat_gps *m)
{
    return m->cfg.anchors > 0 && m->B == 1 && m->N > m->cfg.anchors;
}

/* The attention term of layer l on its input h into c->att (before dropout). */
static void attn_forward(gat_gps *m, int l, const gat_real *h, gps_cache *c)
{
    const gps_layer *L = &m->L[l];
    const gat_real *p = m->blob;
    const gat_idx N = m->N, D = m->cfg.dim, H = m->cfg.heads;
    const int nt = m->threads;
    gat_i_dense_forward(N, D, D, h, p + L->wq, p + L->bq, c->q, nt);
    gat_i_dense_forward(N, D, D, h, p + L->wk, p + L->bk, c->k, nt);
    gat_i_dense_forward(N, D, D, h, p + L->wv, p + L->bv, c->v, nt);
    if (use_anchors(m))
        gat_i_anchor_attn_forward(N, H, D / H, m->M, m->anchor, c->q, c->k, c->v, c->o, c->lse,
                                  nt);
    else
        gat_i_global_attn_forward(N, H, D / H, m->B, m->seg, c->q, c->k, c->v, c->o, c->lse, nt);
    gat_i_dense_forward(N, D, D, c->o, p + L->wo, p + L->bo, c->att, nt);
}

/* What a layer's forward and backward read: its tensors' offsets and caches, the parameter and
 * gradient buffers, its sizes, threads and dropout (training: in a training forward, or in the
 * backward of one). */
typedef struct lctx {
    const gps_layer *L;
    gps_cache *c;
    gat_real *p, *gr;
    gat_idx N, D;
    size_t nd;
    double pd;
    int nt;
} lctx;

static lctx layer_ctx(gat_gps *m, int l, int training)
{
    return (lctx){.L = &m->L[l],
                  .c = &m->C[l],
                  .p = m->blob,
                  .gr = m->blob + m->n_params,
                  .N = m->N,
                  .D = m->cfg.dim,
                  .nd = (size_t)m->N * (size_t)m->cfg.dim,
                  .pd = training ? m->cfg.dropout : 0,
                  .nt = m->threads};
}

/* ELU below zero, exp(x) - 1, in the precision of the build. */
static inline gat_real elu_neg(gat_real x)
{
#ifdef GAT_REAL_DOUBLE
    return expm1(x);
#else
    return expm1f(x);
#endif
}

/* A GAT_GPS_BN layer: out = [h +] drop(ELU(BN(GAT_cat(h)))); caches loc (GAT_cat), u (BN's
 * output), c (the ELU's, before dropout), bmu, brs. */
static gat_status bn_layer_forward(gat_gps *m, int l, const gat_real *h, int training)
{
    const lctx x = layer_ctx(m, l, training);
    gat_status st;
    if ((st = gat_i_gps_local_forward(&m->local[l], m->g, h, x.p, training, drop_key(m, l, 3),
                                      x.c->loc)) != GAT_OK)
        return st;
    gat_i_batchnorm_forward(x.N, x.D, x.c->loc, x.p + x.L->bng, x.p + x.L->bnb, training,
                            x.p + x.L->bnm, x.p + x.L->bnv, x.c->u, x.c->bmu, x.c->brs, x.nt);
    for (size_t e = 0; e < x.nd; e++)
        x.c->c[e] = x.c->u[e] > 0 ? x.c->u[e] : elu_neg(x.c->u[e]);
    memcpy(x.c->out, x.c->c, x.nd * sizeof *x.c->out);
    gat_i_gps_dropout(x.c->out, x.nd, x.pd, drop_key(m, l, 0), x.nt);
    if (m->cfg.residual)
        for (size_t e = 0; e < x.nd; e++)
            x.c->out[e] += h[e];
    return GAT_OK;
}

/* y (n) = GELU(x), the exact x Phi(x), elementwise in parallel (the kernels' vector erf). */
static void gelu_forward(const gat_real *x, gat_real *y, size_t n, int nt)
{
    gat_i_fused_get(GAT_KERNELS_AUTO)->gelu(x, y, n, nt);
}

/* dy (n) *= GELU'(x) = Phi(x) + x phi(x) elementwise, in parallel. */
static void gelu_backward(const gat_real *x, gat_real *dy, size_t n, int nt)
{
    gat_i_fused_get(GAT_KERNELS_AUTO)->gelu_grad(x, dy, n, nt);
}

/* A GAT_GPS_FFN layer: out = h + drop(GELU(drop(GAT_cat(LN(h)) W_1 + b_1)) W_2 + b_2); caches u
 * (LN(h)), m1, r1, loc (GAT_cat), z (GELU's input), hid (its output), c (the block's output
 * before the residual, after dropout). */
static gat_status ffn_layer_forward(gat_gps *m, int l, const gat_real *h, int training)
{
    const lctx x = layer_ctx(m, l, training);
    gat_status st;
    gat_i_layernorm_forward(x.N, x.D, h, x.p + x.L->n1g, x.p + x.L->n1b, x.c->u, x.c->m1, x.c->r1,
                            x.nt);
    if ((st = gat_i_gps_local_forward(&m->local[l], m->g, x.c->u, x.p, training, drop_key(m, l, 3),
                                      x.c->loc)) != GAT_OK)
        return st;
    gat_i_dense_forward(x.N, x.D, x.D, x.c->loc, x.p + x.L->w1, x.p + x.L->b1, x.c->z, x.nt);
    gat_i_gps_dropout(x.c->z, x.nd, x.pd, drop_key(m, l, 0), x.nt);
    gelu_forward(x.c->z, x.c->hid, x.nd, x.nt);
    gat_i_dense_forward(x.N, x.D, x.D, x.c->hid, x.p + x.L->w2, x.p + x.L->b2, x.c->c, x.nt);
    gat_i_gps_dropout(x.c->c, x.nd, x.pd, drop_key(m, l, 1), x.nt);
    for (size_t e = 0; e < x.nd; e++)
        x.c->out[e] = h[e] + x.c->c[e];
    return GAT_OK;
}

static gat_status layer_forward(gat_gps *m, int l, const gat_real *h, int training)
{
    if (m->cfg.kind == GAT_GPS_BN) return bn_layer_forward(m, l, h, training);
    if (m->cfg.kind == GAT_GPS_FFN) return ffn_layer_forward(m, l, h, training);
    const lctx x = layer_ctx(m, l, training);
    gat_status st;
    memcpy(x.c->a, h, x.nd * sizeof *h);
    if (m->cfg.kind != GAT_GPS_GLOBAL) {
        if ((st = gat_i_gps_local_forward(&m->local[l], m->g, h, x.p, training, drop_key(m, l, 3),
                                          x.c->loc)) != GAT_OK)
            return st;
        gat_i_gps_dropout(x.c->loc, x.nd, x.pd, drop_key(m, l, 0), x.nt);
        for (size_t e = 0; e < x.nd; e++)
            x.c->a[e] += x.c->loc[e];
    }
    if (m->cfg.kind != GAT_GPS_LOCAL) {
        attn_forward(m, l, h, x.c);
        gat_i_gps_dropout(x.c->att, x.nd, x.pd, drop_key(m, l, 1), x.nt);
        for (size_t e = 0; e < x.nd; e++)
            x.c->a[e] += x.c->att[e];
    }
    gat_i_layernorm_forward(x.N, x.D, x.c->a, x.p + x.L->n1g, x.p + x.L->n1b, x.c->u, x.c->m1,
                            x.c->r1, x.nt);
    gat_i_dense_forward(x.N, x.D, 2 * x.D, x.c->u, x.p + x.L->w1, x.p + x.L->b1, x.c->z, x.nt);
    for (size_t e = 0; e < 2 * x.nd; e++)
        x.c->hid[e] = x.c->z[e] > 0 ? x.c->z[e] : 0;
    gat_i_gps_dropout(x.c->hid, 2 * x.nd, x.pd, drop_key(m, l, 2), x.nt);
    gat_i_dense_forward(x.N, 2 * x.D, x.D, x.c->hid, x.p + x.L->w2, x.p + x.L->b2, x.c->c, x.nt);
    for (size_t e = 0; e < x.nd; e++)
        x.c->c[e] += x.c->u[e];
    gat_i_layernorm_forward(x.N, x.D, x.c->c, x.p + x.L->n2g, x.p + x.L->n2b, x.c->out, x.c->m2,
                            x.c->r2, x.nt);
    return GAT_OK;
}

/* h0 = x W_in + b_in over x's stored values, rows in parallel; kind GAT_GPS_FFN then
 * h0 = GELU(drop(h0)), its input kept in h0z. */
static void input_forward(gat_gps *m, int training)
{
    const gat_csr *x = m->x;
    const gat_idx D = m->cfg.dim, N = m->N;
    const gat_real *W = m->blob + m->in_w, *b = m->blob + m->in_b;
    const int nt = m->threads;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && N > 64)
    for (gat_idx i = 0; i < N; i++) {
        gat_real *hi = m->h0 + (size_t)i * D;
        memcpy(hi, b, (size_t)D * sizeof *hi);
        for (gat_idx e = x->rowptr[i]; e < x->rowptr[i + 1]; e++) {
            const gat_real v = x->val[e], *w = W + (size_t)x->col[e] * D;
            for (gat_idx d = 0; d < D; d++) hi[d] += v * w[d];
        }
    }
    if (m->cfg.kind == GAT_GPS_FFN) {
        const size_t nd = (size_t)N * D;
        memcpy(m->h0z, m->h0, nd * sizeof *m->h0z);
        gat_i_gps_dropout(m->h0z, nd, training ? m->cfg.dropout : 0, input_key(m), nt);
        gelu_forward(m->h0z, m->h0, nd, nt);
    }
}

static gat_status check_inputs(const gat_gps *m, const gat_graph *g, const gat_csr *x,
                               gat_idx n_seg, const gat_idx *seg_ptr)
{
    gat_status st;
    if ((st = gat_graph_check(g)) != GAT_OK || (st = gat_csr_check(x)) != GAT_OK) return st;
    if (x->rows != g->n || x->cols != m->cfg.in_features)
        return gat_i_error(GAT_EDIM, "gat_gps_forward: features x are (%d, %d), expected (%d, %d)",
                           x->rows, x->cols, g->n, m->cfg.in_features);
    if (n_seg < 1 || seg_ptr[0] != 0 || seg_ptr[n_seg] != g->n)
        return gat_i_error(GAT_EINVAL, "gat_gps_forward: %d segments that do not run from 0 to "
                           "the graph's %d nodes", n_seg, g->n);
    for (gat_idx s = 0; s < n_seg; s++)
        if (seg_ptr[s + 1] <= seg_ptr[s])
            return gat_i_error(GAT_EINVAL, "gat_gps_forward: segment %d is empty (seg_ptr[%d] = "
                               "%d, seg_ptr[%d] = %d)", s, s, seg_ptr[s], s + 1, seg_ptr[s + 1]);
    /* an edge between two segments would let the GAT term mix graphs */
    for (gat_idx s = 0; s < n_seg; s++)
        for (gat_idx i = seg_ptr[s]; i < seg_ptr[s + 1]; i++)
            for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
                if (g->col[e] < seg_ptr[s] || g->col[e] >= seg_ptr[s + 1])
                    return gat_i_error(GAT_EINVAL, "gat_gps_forward: edge %d -> %d joins "
                                       "segments", g->col[e], i);
    return GAT_OK;
}

gat_status gat_gps_forward(gat_gps *m, const gat_graph *g, const gat_csr *x, gat_idx n_seg,
                           const gat_idx *seg_ptr, int training, const gat_real **logits)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_gps_forward", 5, (const void *[]){m, g, x, seg_ptr, logits},
                               (const char *[]){"model", "graph g", "features x", "seg_ptr",
                                                "logits"})) != GAT_OK)
        return st;
    m->ran = m->trained = 0;
    if ((st = check_inputs(m, g, x, n_seg, seg_ptr)) != GAT_OK) return st;
    if ((st = reserve(m, g->n, n_seg)) != GAT_OK) return st;
    m->g = g, m->x = x, m->N = g->n, m->B = n_seg;
    memcpy(m->seg, seg_ptr, ((size_t)n_seg + 1) * sizeof *m->seg);
    if (training) m->step++;
    m->key = gat_i_hash64(m->seed ^ 0x5deece66dull, m->step);
    if (use_anchors(m)) { /* fixed by the seed: the same keys in training and inference */
        m->M = m->cfg.anchors;
        gat_i_anchor_pick(m->N, m->M, gat_i_hash64(m->seed, 77), m->anchor);
    }
    input_forward(m, training);
    const gat_real *h = m->h0;
    for (int l = 0; l < m->cfg.layers; l++) {
        if ((st = layer_forward(m, l, h, training)) != GAT_OK) return st;
        h = m->C[l].out;
    }
    const gat_idx D = m->cfg.dim, C = m->cfg.classes;
    const gat_real *p = m->blob;
    if (m->cfg.kind == GAT_GPS_FFN) { /* the heads read LN_out(h_L) */
        gat_i_layernorm_forward(m->N, D, h, p + m->on_g, p + m->on_b, m->hfin, m->mfin, m->rfin,
                                m->threads);
        h = m->hfin;
    }
    if (m->cfg.task == GAT_TASK_GRAPH) {
        /* the readout op of graph models: its caches carved by reserve, its gate (attention)
         * in the parameter and gradient buffers */
        gat_real *gr = m->blob + m->n_params;
        const int att = ro_attention(&m->cfg);
        m->ro.kind = m->cfg.readout, m->ro.B = n_seg, m->ro.D = D, m->ro.ptr = m->seg;
        const gat_idx R = ro_shape(&m->cfg, &m->ro.K, &m->ro.A);
        m->ro.V = att ? p + m->ro_v : NULL, m->ro.c = att ? p + m->ro_c : NULL;
        m->ro.w = att ? p + m->ro_w : NULL;
        m->ro.dV = att ? gr + m->ro_v : NULL, m->ro.dc = att ? gr + m->ro_c : NULL;
        m->ro.dw = att ? gr + m->ro_w : NULL;
        m->ro.threads = m->threads;
        gat_i_readout_forward(&m->ro, h, m->r);
        /* the classifier: the MLP op of graph models (no hidden layer: the linear one) */
        const int cl = m->cfg.classifier_layers;
        m->mlp = (gat_i_mlp_op){
            .B = n_seg, .R = R, .C = C, .L = cl, .act = m->mlp_act, .scratch = m->mlp_scratch};
        for (int k = 0; k <= cl; k++) {
            m->mlp.W[k] = p + m->cls_w[k], m->mlp.b[k] = p + m->cls_b[k];
            m->mlp.dW[k] = gr + m->cls_w[k], m->mlp.db[k] = gr + m->cls_b[k];
        }
        gat_i_mlp_forward(&m->mlp, m->r, m->logits);
    } else {
        gat_i_dense_forward(m->N, D, C, h, p + m->out_w, p + m->out_b, m->logits, m->threads);
    }
    m->ran = 1;
    m->trained = training != 0;
    *logits = m->logits;
    return GAT_OK;
}

/* ---- backward ---- */

/* The attention term's backward from datt (its output gradient, dropout applied), adding the
 * input gradient into dh. */
static void attn_backward(gat_gps *m, int l, const gat_real *h, gps_cache *c, const gat_real *datt,
                          gat_real *dh)
{
    const gps_layer *L = &m->L[l];
    const gat_real *p = m->blob;
    gat_real *gr = m->blob + m->n_params;
    const gat_idx N = m->N, D = m->cfg.dim, H = m->cfg.heads;
    const size_t nd = (size_t)N * D;
    const int nt = m->threads;
    gat_real *dO = m->so;
    memset(dO, 0, nd * sizeof *dO);
    gat_i_dense_backward(N, D, D, c->o, p + L->wo, datt, dO, gr + L->wo, gr + L->bo, m->wt, nt);
    memset(m->dq, 0, nd * sizeof *m->dq);
    memset(m->dk, 0, nd * sizeof *m->dk);
    memset(m->dv, 0, nd * sizeof *m->dv);
    if (use_anchors(m))
        gat_i_anchor_attn_backward(N, H, D / H, m->M, m->anchor, c->q, c->k, c->v, c->o, c->lse,
                                   dO, m->delta, m->dq, m->dk, m->dv, nt);
    else
        gat_i_global_attn_backward(N, H, D / H, m->B, m->seg, c->q, c->k, c->v, c->o, c->lse, dO,
                                   m->delta, m->dq, m->dk, m->dv, nt);
    gat_i_dense_backward(N, D, D, h, p + L->wq, m->dq, dh, gr + L->wq, gr + L->bq, m->wt, nt);
    gat_i_dense_backward(N, D, D, h, p + L->wk, m->dk, dh, gr + L->wk, gr + L->bk, m->wt, nt);
    gat_i_dense_backward(N, D, D, h, p + L->wv, m->dv, dh, gr + L->wv, gr + L->bv, m->wt, nt);
}

/* A GAT_GPS_BN layer's backward from m->dh into m->dn: the residual's dh (if any), then through
 * dropout, the ELU (derivative ELU + 1 below zero), BN and the GAT term. */
static void bn_layer_backward(gat_gps *m, int l)
{
    const lctx x = layer_ctx(m, l, m->trained);
    if (m->cfg.residual)
        memcpy(m->dn, m->dh, x.nd * sizeof *m->dn);
    else
        memset(m->dn, 0, x.nd * sizeof *m->dn);
    memcpy(m->sa, m->dh, x.nd * sizeof *m->sa);
    gat_i_gps_dropout(m->sa, x.nd, x.pd, drop_key(m, l, 0), x.nt);
    for (size_t e = 0; e < x.nd; e++)
        if (!(x.c->u[e] > 0)) m->sa[e] *= x.c->c[e] + 1;
    gat_i_batchnorm_backward(x.N, x.D, x.c->loc, x.p + x.L->bng, x.c->bmu, x.c->brs, m->sa, m->sc,
                             x.gr + x.L->bng, x.gr + x.L->bnb, x.nt);
    gat_i_gps_local_backward(&m->local[l], x.p, x.gr, m->sc, m->dn);
}

/* A GAT_GPS_FFN layer's backward from m->dh (h its input) into m->dn: the residual's dh, then
 * the block through the second dropout, W_2, GELU, the first dropout, W_1, the GAT term and LN. */
static void ffn_layer_backward(gat_gps *m, int l, const gat_real *h)
{
    const lctx x = layer_ctx(m, l, m->trained);
    memcpy(m->dn, m->dh, x.nd * sizeof *m->dn);
    memcpy(m->sc, m->dh, x.nd * sizeof *m->sc);
    gat_i_gps_dropout(m->sc, x.nd, x.pd, drop_key(m, l, 1), x.nt);
    memset(m->shid, 0, x.nd * sizeof *m->shid);
    gat_i_dense_backward(x.N, x.D, x.D, x.c->hid, x.p + x.L->w2, m->sc, m->shid, x.gr + x.L->w2,
                         x.gr + x.L->b2, m->wt, x.nt);
    gelu_backward(x.c->z, m->shid, x.nd, x.nt);
    gat_i_gps_dropout(m->shid, x.nd, x.pd, drop_key(m, l, 0), x.nt);
    memset(m->su, 0, x.nd * sizeof *m->su);
    gat_i_dense_backward(x.N, x.D, x.D, x.c->loc, x.p + x.L->w1, m->shid, m->su, x.gr + x.L->w1,
                         x.gr + x.L->b1, m->wt, x.nt);
    memset(m->sa, 0, x.nd * sizeof *m->sa);
    gat_i_gps_local_backward(&m->local[l], x.p, x.gr, m->su, m->sa);
    gat_i_layernorm_backward(x.N, x.D, h, x.p + x.L->n1g, x.c->m1, x.c->r1, m->sa, m->sc,
                             x.gr + x.L->n1g, x.gr + x.L->n1b, x.nt);
    for (size_t e = 0; e < x.nd; e++)
        m->dn[e] += m->sc[e];
}

/* Layer l's backward from m->dh (its output gradient; h its input) into m->dn. */
static void layer_backward(gat_gps *m, int l, const gat_real *h)
{
    if (m->cfg.kind == GAT_GPS_BN) {
        bn_layer_backward(m, l);
        return;
    }
    if (m->cfg.kind == GAT_GPS_FFN) {
        ffn_layer_backward(m, l, h);
        return;
    }
    const lctx x = layer_ctx(m, l, m->trained);
    /* out = LN_2(c), c = u + W_2 drop(relu(W_1 u + b_1)) + b_2 */
    gat_i_layernorm_backward(x.N, x.D, x.c->c, x.p + x.L->n2g, x.c->m2, x.c->r2, m->dh, m->sc,
                             x.gr + x.L->n2g, x.gr + x.L->n2b, x.nt);
    memcpy(m->su, m->sc, x.nd * sizeof *m->su);
    memset(m->shid, 0, 2 * x.nd * sizeof *m->shid);
    gat_i_dense_backward(x.N, 2 * x.D, x.D, x.c->hid, x.p + x.L->w2, m->sc, m->shid, x.gr + x.L->w2,
                         x.gr + x.L->b2, m->wt, x.nt);
    gat_i_gps_dropout(m->shid, 2 * x.nd, x.pd, drop_key(m, l, 2), x.nt);
    for (size_t e = 0; e < 2 * x.nd; e++)
        if (x.c->z[e] <= 0) m->shid[e] = 0;
    gat_i_dense_backward(x.N, x.D, 2 * x.D, x.c->u, x.p + x.L->w1, m->shid, m->su, x.gr + x.L->w1,
                         x.gr + x.L->b1, m->wt, x.nt);
    /* u = LN_1(a), a = h + drop(GAT(h)) + drop(Attn(h)) */
    gat_i_layernorm_backward(x.N, x.D, x.c->a, x.p + x.L->n1g, x.c->m1, x.c->r1, m->su, m->sa,
                             x.gr + x.L->n1g, x.gr + x.L->n1b, x.nt);
    memcpy(m->dn, m->sa, x.nd * sizeof *m->dn);
    if (m->cfg.kind != GAT_GPS_LOCAL) {
        memcpy(m->sbr, m->sa, x.nd * sizeof *m->sbr);
        gat_i_gps_dropout(m->sbr, x.nd, x.pd, drop_key(m, l, 1), x.nt);
        attn_backward(m, l, h, x.c, m->sbr, m->dn);
    }
    if (m->cfg.kind != GAT_GPS_GLOBAL) {
        memcpy(m->sbr, m->sa, x.nd * sizeof *m->sbr);
        gat_i_gps_dropout(m->sbr, x.nd, x.pd, drop_key(m, l, 0), x.nt);
        gat_i_gps_local_backward(&m->local[l], x.p, x.gr, m->sbr, m->dn);
    }
}

gat_status gat_gps_backward(gat_gps *m, const gat_real *dlogits)
{
    gat_i_clear_error();
    if (!m || !dlogits)
        return gat_i_error(GAT_EINVAL, "gat_gps_backward: NULL %s", !m ? "model" : "dlogits");
    if (!m->ran || !m->trained)
        return gat_i_error(GAT_EINVAL, "gat_gps_backward: the last forward was not a training "
                           "forward");
    const gat_real *p = m->blob;
    gat_real *gr = m->blob + m->n_params;
    const gat_idx N = m->N, D = m->cfg.dim, C = m->cfg.classes, Lc = m->cfg.layers;
    const size_t nd = (size_t)N * D;
    const int nt = m->threads;
    const int ffn = m->cfg.kind == GAT_GPS_FFN;
    const gat_real *hL = ffn ? m->hfin : m->C[Lc - 1].out; /* what the heads read */
    gat_real *dcur = ffn ? m->sa : m->dh;                  /* the gradient of hL */
    memset(dcur, 0, nd * sizeof *dcur);
    if (m->cfg.task == GAT_TASK_GRAPH) {
        memset(m->dr, 0, (size_t)m->B * (size_t)ro_shape(&m->cfg, NULL, NULL) * sizeof *m->dr);
        gat_i_mlp_backward(&m->mlp, m->r, dlogits, m->dr);
        gat_i_readout_backward(&m->ro, hL, m->dr, dcur);
    } else {
        gat_i_dense_backward(N, D, C, hL, p + m->out_w, dlogits, dcur, gr + m->out_w, gr + m->out_b,
                             m->wt, nt);
    }
    if (ffn) { /* hL = LN_out(h_L) */
        gat_i_layernorm_backward(N, D, m->C[Lc - 1].out, p + m->on_g, m->mfin, m->rfin, dcur, m->dh,
                                 gr + m->on_g, gr + m->on_b, nt);
        dcur = m->dh;
    }
    for (int l = Lc - 1; l >= 0; l--) {
        layer_backward(m, l, l ? m->C[l - 1].out : m->h0);
        memcpy(dcur, m->dn, nd * sizeof *dcur);
    }
    if (ffn) { /* h0 = GELU(drop(x W_in + b_in)) */
        gelu_backward(m->h0z, dcur, nd, nt);
        gat_i_gps_dropout(dcur, nd, m->cfg.dropout, input_key(m), nt);
    }
    /* h0 = x W_in + b_in: dW_in row c sums over the entries of column c in row order */
    const gat_csr *x = m->x;
    gat_real *dW = gr + m->in_w, *db = gr + m->in_b;
    for (gat_idx i = 0; i < N; i++) {
        const gat_real *di = dcur + (size_t)i * D;
        for (gat_idx d = 0; d < D; d++) db[d] += di[d];
        for (gat_idx e = x->rowptr[i]; e < x->rowptr[i + 1]; e++) {
            const gat_real v = x->val[e];
            gat_real *w = dW + (size_t)x->col[e] * D;
            for (gat_idx d = 0; d < D; d++) w[d] += v * di[d];
        }
    }
    return GAT_OK;
}
