/* The layer-by-layer reference model (test-only): the plain ops of tests/ref/ops.c, the
 * reference attention kernels (gat_attention.c, scores.c) and BLAS, composed layer by layer —
 * projection (sparse or dense product), dropout as byte masks of the same streams as the engine's,
 * attention, residual, bias, ELU or head mean — and the backward through the same ops. It runs a
 * gat_model's layers (gat_i_model_layers, the table the engine reads), parameters, dropout, step
 * and output rows as the engine would (a binding and a run, gat_i_model_resolve_run) and is what
 * the engine is compared against. */
#include "loop.h"
#include "plain.h"
#include "scores.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "matrix_i.h"
#include "layers/layers.h"
#include "layers/fused.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    gat_real *ze;    /* edge features: W_e x_e (E, heads*fo), as PyG's lin_edge computes it */
    gat_real *eterm; /* edge features: (E, heads) a_edge . ze per head */
    uint8_t *hmask;  /* head_drop: (nnz(x), heads) for layer 0, (N, fin, heads) after */
    uint8_t *zmask;  /* projection dropout: (N, heads*fo) */
    gat_real *zagg;  /* projection dropout: (N, heads*fo) z * zmask / (1 - p) */
    int zon;         /* the last forward dropped the projections */
} cache;

struct ref_model {
    gat_model_config cfg;
    int n_layers;
    const gat_i_layer *L; /* the model's (gat_i_model_layers) */
    size_t n_params;
    gat_real *blob; /* the model's params, then its grads */
    int threads;
    double in_p, att_p;
    const gat_idx *out_rows;
    gat_idx n_out_rows;
    gat_idx D;          /* the model's edge_dim */
    const gat_real *ex; /* (E, D) edge features of ws.g (the binding's) */
    struct {
        gat_real *dze;  /* edge features: (E, max heads*fo) d loss / d ze */
        const gat_graph *g;
        const gat_csr *x;
        void *block;
        cache c[GAT_MAX_LAYERS];
        gat_csr xt;       /* transpose of x, for the sparse weight gradient */
        gat_idx *xt_perm; /* (nnz(x)) x position of each xt position */
        gat_real *dcur, *dy, *dz; /* backward scratch, (N, max width) each */
        gat_i_att_scratch att;
        gat_i_score_scratch sc;   /* attention family: de (E, max heads), partial sums */
        gat_real *dq, *dk, *dres; /* attention family, residual: (N, max width) each */
        gat_real *dx0, *dx;       /* the input gradient: dense (N, in_features), then per
                                   * stored entry of x (nnz(x)) */
        int threads;      /* thread count att.partial is sized for */
        int trained;      /* the last forward was a training forward */
    } ws;
};

/* Lays out (base == NULL: measures) every cache and scratch buffer for graph size N, E. */
static size_t layout(ref_model *m, char *base, gat_idx N, gat_idx E, gat_idx xnnz)
{
    size_t off = 0, maxw = 0, maxh = 1;
    for (int l = 0; l < m->n_layers; l++) {
        const gat_i_layer *L = &m->L[l];
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
        c->ze = gat_i_carve(base, &off, m->D ? (size_t)E * hw : 0, sizeof(gat_real));
        c->eterm = gat_i_carve(base, &off, m->D ? (size_t)E * L->heads : 0, sizeof(gat_real));
        c->hmask = gat_i_carve(base, &off,
                               !L->head_drop ? 0
                               : l == 0      ? (size_t)xnnz * L->heads
                                             : (size_t)N * L->fin * L->heads,
                               1);
        c->zmask = gat_i_carve(base, &off, L->proj_p > 0 ? (size_t)N * hw : 0, 1);
        c->zagg = gat_i_carve(base, &off, L->proj_p > 0 ? (size_t)N * hw : 0, sizeof(gat_real));
        maxw = hw > maxw ? hw : maxw;
        maxw = (size_t)L->fin > maxw && l > 0 ? (size_t)L->fin : maxw;
        maxh = (size_t)L->heads > maxh ? (size_t)L->heads : maxh;
    }
    m->ws.dze = gat_i_carve(base, &off, m->D ? (size_t)E * maxw : 0, sizeof(gat_real));
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
    m->ws.dx0 = gat_i_carve(base, &off, (size_t)N * m->L[0].fin, sizeof(gat_real));
    m->ws.dx = gat_i_carve(base, &off, (size_t)xnnz, sizeof(gat_real));
    return off;
}

/* The model's parameters and gradients as they are now. */
static void sync(ref_model *m, gat_model *model)
{
    m->blob = gat_model_params(model, &m->n_params);
}

gat_status ref_model_create(ref_model **out, gat_model *model, const gat_i_binding *b)
{
    gat_status st;
    const gat_graph *g = b->g;
    const gat_csr *x = b->x;
    ref_model *m = calloc(1, sizeof *m);
    *out = NULL;
    if (!m) return GAT_ENOMEM;
    m->cfg = *gat_model_get_config(model);
    m->D = m->cfg.edge_dim;
    m->ex = b->ex;
    m->L = gat_i_model_layers(model, &m->n_layers);
    sync(m, model);
    m->threads = gat_i_threads(0);
    m->ws.g = g;
    m->ws.x = x;
    m->ws.threads = m->threads;
    const size_t bytes = layout(m, NULL, g->n, g->nnz, x->rowptr[x->rows]);
    if (!(m->ws.block = calloc(bytes, 1))) {
        free(m);
        return GAT_ENOMEM;
    }
    layout(m, m->ws.block, g->n, g->nnz, x->rowptr[x->rows]);
    if ((st = gat_i_csr_transpose_perm(x, &m->ws.xt, &m->ws.xt_perm)) != GAT_OK) {
        ref_model_free(m);
        return st;
    }
    *out = m;
    return GAT_OK;
}

void ref_model_free(ref_model *m)
{
    if (!m) return;
    free(m->ws.block);
    gat_csr_destroy(&m->ws.xt);
    gat_free(m->ws.xt_perm);
    free(m);
}

const gat_real *ref_model_output(const ref_model *m, int l)
{
    return m->ws.c[l].out;
}

const gat_real *ref_model_alpha(const ref_model *m, int l)
{
    return m->ws.c[l].alpha;
}

static gat_i_att_args att_args(ref_model *m, int l, int training)
{
    const gat_i_layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const int last = l == m->n_layers - 1;
    gat_i_att_args a = {
        .g = m->ws.g, .H = L->heads, .Fo = L->fo, .slope = m->cfg.negative_slope,
        .z = c->z, .a_src = m->blob + L->a_src, .a_dst = m->blob + L->a_dst,
        .sb = L->score_bias ? m->blob + L->sb : NULL,
        .s_src = c->s_src, .s_dst = c->s_dst, .eterm = m->D ? c->eterm : NULL, .alpha = c->alpha,
        .amask = training && m->att_p > 0 ? c->amask : NULL,
        .ascale = (gat_real)(1 / (1 - m->att_p)), .mean = L->mean,
        .rows = last ? m->out_rows : NULL, .n_rows = last ? m->n_out_rows : 0,
        .nt = m->threads};
    if (training && c->zon) {
        a.zagg = c->zagg;
        a.zmask = c->zmask;
        a.zscale = (gat_real)(1 / (1 - L->proj_p));
    }
    return a;
}

static void add_bias_act(const gat_i_layer *L, const gat_real *b, gat_real *out, gat_idx N, int elu,
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

static gat_i_score_args score_args(ref_model *m, int l, int training)
{
    const gat_i_layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const int last = l == m->n_layers - 1;
    gat_i_score_args a = {
        .g = m->ws.g, .score = m->cfg.score, .H = L->heads, .Fo = L->fo, .D = L->fo,
        .slope = m->cfg.negative_slope, .z = c->z,
        .q = L->has_q ? c->q : c->z, .k = L->has_k ? c->k : c->z,
        .att = m->blob + L->att, .theta = m->blob + L->theta, .qinv = c->qinv, .kinv = c->kinv,
        .ze = m->D ? c->ze : NULL, .dze = m->D ? m->ws.dze : NULL,
        .alpha = c->alpha, .amask = training && m->att_p > 0 ? c->amask : NULL,
        .ascale = (gat_real)(1 / (1 - m->att_p)), .mean = L->mean,
        .rows = last ? m->out_rows : NULL, .n_rows = last ? m->n_out_rows : 0,
        .nt = m->threads};
    return a;
}

/* Queries q = X_d W_q and keys k = X_d W_k of the scores that project them separately. */
static void score_project(ref_model *m, int l, const gat_csr *x)
{
    const gat_i_layer *L = &m->L[l];
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
static void residual_forward(ref_model *m, int l, const gat_csr *x)
{
    const gat_i_layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const int last = l == m->n_layers - 1, nt = m->threads;
    const gat_idx *rows = last ? m->out_rows : NULL, n = rows ? m->n_out_rows : m->ws.g->n;
    const gat_real *R = (L->residual == 1) ? m->blob + L->res : NULL;
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
static void score_backward(ref_model *m, int l, const gat_real *dy, gat_real *grad)
{
    const gat_i_layer *L = &m->L[l];
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
static void residual_backward(ref_model *m, int l, const gat_real *dpre, gat_real *grad)
{
    const gat_i_layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const gat_idx N = m->ws.g->n;
    const int nt = m->threads;
    if ((L->residual == 1) && l == 0)
        gat_i_spmm_backward_w(&m->ws.xt, m->ws.xt_perm, c->xin, L->width, dpre, grad + L->res, nt);
    if (l == 0) return;
    if ((L->residual == 1)) {
        gat_i_gemm_tn_acc(N, L->fin, L->width, c->xin, dpre, grad + L->res, nt);
        gat_i_gemm_nt(N, L->fin, L->width, dpre, m->blob + L->res, m->ws.dres, nt);
    } else {
        memcpy(m->ws.dres, dpre, (size_t)N * L->fin * sizeof *dpre);
    }
}

/* After W's backward (ws.dcur = dz W^T for l > 0): the query and key projections' weight
 * gradients and input shares, and the residual's input share. Nothing for gat without residual. */
static void extra_backward(ref_model *m, int l, gat_real *grad)
{
    const gat_i_layer *L = &m->L[l];
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

/* Layer 0's input gradient from dz, dq, dk and dpre (N, width), its output's gradient before
 * the bias: dX_d = dz W^T + dq W_q^T + dk W_k^T + dpre R^T (or dpre, an identity residual), then
 * per stored entry q of x (row i, column c) dx[q] = mask_q s dX_d[i, c] (the input dropout). */
static void input_backward(ref_model *m, const gat_real *dpre)
{
    const gat_i_layer *L = &m->L[0];
    const gat_csr *x = m->ws.x;
    const gat_idx N = m->ws.g->n, hw = L->heads * L->fo;
    const int nt = m->threads;
    gat_real *d = m->ws.dx0;
    gat_i_gemm_nt(N, L->fin, hw, m->ws.dz, m->blob + L->w, d, nt);
    if (L->has_q) gat_i_gemm_nt_acc(N, L->fin, hw, m->ws.dq, m->blob + L->wq, d, nt);
    if (L->has_k) gat_i_gemm_nt_acc(N, L->fin, hw, m->ws.dk, m->blob + L->wk, d, nt);
    if (L->residual == 1) gat_i_gemm_nt_acc(N, L->fin, L->width, dpre, m->blob + L->res, d, nt);
    if (L->residual == 2)
        for (size_t k = 0; k < (size_t)N * L->fin; k++) d[k] += dpre[k];
    const cache *c = &m->ws.c[0];
    const int drop = c->xin == c->xbuf;
    const gat_real scale = (gat_real)(1 / (1 - m->in_p));
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx q = x->rowptr[i]; q < x->rowptr[i + 1]; q++) {
            const gat_real v = d[(size_t)i * L->fin + x->col[q]];
            m->ws.dx[q] = !drop ? v : c->xmask[q] ? v * scale : 0;
        }
}

const gat_real *ref_model_input_gradient(const ref_model *m)
{
    return m->ws.dx;
}

/* The edge term as PyG's GATConv(edge_dim) computes it: ze = X_e W_e (E, heads*fo), then per
 * edge and head eterm = ze . a_edge (the engine instead folds W_e and a_edge into M first). */
static void edge_forward(ref_model *m, int l)
{
    const gat_i_layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const gat_idx E = m->ws.g->nnz, H = L->heads, Fo = L->fo;
    gat_i_gemm_nn(E, m->D, H * Fo, m->ex, m->blob + L->we, c->ze, 1);
    if (m->cfg.score == GAT_SCORE_GATV2) return; /* ze goes inside its LeakyReLU */
    const gat_real *ae = m->blob + L->ae;
    for (size_t e = 0; e < (size_t)E; e++)
        for (gat_idx h = 0; h < H; h++) {
            gat_real s = 0;
            for (gat_idx f = 0; f < Fo; f++)
                s += c->ze[(e * H + h) * Fo + f] * ae[(size_t)h * Fo + f];
            c->eterm[e * H + h] = s;
        }
}

/* Its backward from dpre (E, heads), d loss / d LeakyReLU input, as the attention backward left
 * it in ws.att.dpre: dze = dpre a_edge, da_edge += sum_e dpre ze, dW_e += X_e^T dze; gatv2's
 * score backward leaves dze itself in ws.dze. */
static void edge_backward(ref_model *m, int l, gat_real *grad)
{
    const gat_i_layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const gat_idx E = m->ws.g->nnz, H = L->heads, Fo = L->fo;
    if (m->cfg.score == GAT_SCORE_GATV2) {
        gat_i_gemm_tn_acc(E, m->D, H * Fo, m->ex, m->ws.dze, grad + L->we, 1);
        return;
    }
    const gat_real *ae = m->blob + L->ae, *dpre = m->ws.att.dpre;
    gat_real *dae = grad + L->ae;
    for (size_t e = 0; e < (size_t)E; e++)
        for (gat_idx h = 0; h < H; h++)
            for (gat_idx f = 0; f < Fo; f++) {
                const size_t o = (e * H + h) * Fo + f;
                m->ws.dze[o] = dpre[e * H + h] * ae[(size_t)h * Fo + f];
                dae[(size_t)h * Fo + f] += dpre[e * H + h] * c->ze[o];
            }
    gat_i_gemm_tn_acc(E, m->D, H * Fo, m->ex, m->ws.dze, grad + L->we, 1);
}

/* ---- the reference code's dropout placement (gat_model_config.head_dropout, proj_dropout) */

/* head_drop: element (e, h) of the input is kept for head h iff element e H + h of stream key
 * is (e: layer 0's entry p, a later layer's i fin + c); Z (N, heads, fo) = per head x_d^h W_h */
static void head_forward(ref_model *m, int l, uint64_t key, gat_real *z)
{
    const gat_i_layer *L = &m->L[l];
    cache *c = &m->ws.c[l];
    const gat_csr *x = m->ws.x;
    const gat_idx N = m->ws.g->n, Fo = L->fo, fin = L->fin;
    const int H = L->heads;
    const size_t hw = (size_t)H * Fo;
    const gat_real scale = (gat_real)(1 / (1 - m->in_p)), *W = m->blob + L->w;
    const size_t ne = l == 0 ? (size_t)x->rowptr[x->rows] : (size_t)N * fin;
    gat_i_dropout_mask(ne * H, m->in_p, key, c->hmask, 1);
    memset(z, 0, (size_t)N * hw * sizeof *z);
    for (gat_idx i = 0; i < N; i++) {
        const gat_idx e0 = l == 0 ? x->rowptr[i] : 0, e1 = l == 0 ? x->rowptr[i + 1] : fin;
        for (gat_idx e = e0; e < e1; e++) {
            const gat_idx col = l == 0 ? x->col[e] : e;
            const gat_real v = l == 0 ? x->val[e] : m->ws.c[l - 1].out[(size_t)i * fin + e];
            const size_t me = l == 0 ? (size_t)e : (size_t)i * fin + (size_t)e;
            for (int h = 0; h < H; h++)
                if (c->hmask[me * H + h])
                    for (gat_idx f = 0; f < Fo; f++)
                        z[(size_t)i * hw + (size_t)h * Fo + f] +=
                            v * scale * W[(size_t)col * hw + (size_t)h * Fo + f];
        }
    }
}

/* Its backward from dz (N, heads, fo): dW_h += x_d^h^T dz_h and, for l > 0, dx (N, fin) =
 * sum_h (dz_h W_h^T) x kept (overwrites) */
static void head_backward(ref_model *m, int l, const gat_real *dz, gat_real *dW, gat_real *dx)
{
    const gat_i_layer *L = &m->L[l];
    const cache *c = &m->ws.c[l];
    const gat_csr *x = m->ws.x;
    const gat_idx N = m->ws.g->n, Fo = L->fo, fin = L->fin;
    const int H = L->heads;
    const size_t hw = (size_t)H * Fo;
    const gat_real scale = (gat_real)(1 / (1 - m->in_p)), *W = m->blob + L->w;
    if (dx) memset(dx, 0, (size_t)N * fin * sizeof *dx);
    for (gat_idx i = 0; i < N; i++) {
        const gat_idx e0 = l == 0 ? x->rowptr[i] : 0, e1 = l == 0 ? x->rowptr[i + 1] : fin;
        for (gat_idx e = e0; e < e1; e++) {
            const gat_idx col = l == 0 ? x->col[e] : e;
            const gat_real v = l == 0 ? x->val[e] : m->ws.c[l - 1].out[(size_t)i * fin + e];
            const size_t me = l == 0 ? (size_t)e : (size_t)i * fin + (size_t)e;
            for (int h = 0; h < H; h++) {
                if (!c->hmask[me * H + h]) continue;
                for (gat_idx f = 0; f < Fo; f++) {
                    const size_t o = (size_t)h * Fo + f;
                    dW[(size_t)col * hw + o] += v * scale * dz[(size_t)i * hw + o];
                    if (dx) dx[(size_t)i * fin + e] += scale * dz[(size_t)i * hw + o] * W[(size_t)col * hw + o];
                }
            }
        }
    }
}

gat_status ref_model_forward(ref_model *m, gat_model *model, const gat_i_binding *b,
                             const gat_i_run *r, const gat_real **logits)
{
    gat_i_fast_run run;
    const gat_graph *g = m->ws.g;
    const gat_csr *x = m->ws.x;
    const int training = r->training;
    sync(m, model);
    gat_i_model_resolve_run(model, r, &run); /* the step and dropout key the engine uses */
    m->threads = run.nt;
    m->in_p = run.in_p;
    m->att_p = run.att_p;
    m->out_rows = b->rows;
    m->n_out_rows = b->rows ? b->n_rows : 0;
    if (m->threads > m->ws.threads) m->threads = m->ws.threads;
    const int nt = m->threads;
    const gat_idx N = g->n;
    const uint64_t key = run.key;
    for (int l = 0; l < m->n_layers; l++) {
        const gat_i_layer *L = &m->L[l];
        cache *c = &m->ws.c[l];
        const int drop = training && m->in_p > 0;
        const gat_real scale = (gat_real)(1 / (1 - m->in_p));
        const uint64_t lkey = gat_i_hash64(key, 4u * (uint64_t)l);
        if (drop && L->head_drop) {
            head_forward(m, l, lkey, c->z);
            c->xin = NULL; /* no shared dropped input */
        } else if (l == 0) {
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
        c->zon = training && L->proj_p > 0;
        if (c->zon) { /* the scores read z, the aggregation z kept / (1 - p) */
            const size_t n = (size_t)N * L->heads * L->fo;
            gat_i_dropout_mask(n, L->proj_p, gat_i_hash64(lkey, 2), c->zmask, nt);
            gat_i_dropout(n, c->z, c->zmask, (gat_real)(1 / (1 - L->proj_p)), c->zagg);
        }
        if (m->cfg.score != GAT_SCORE_GAT) score_project(m, l, x);
        if (training && m->att_p > 0)
            gat_i_dropout_mask((size_t)g->nnz * L->heads, m->att_p, gat_i_hash64(lkey, 1),
                               c->amask, nt);
        if (m->D) edge_forward(m, l);
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

gat_status ref_model_backward(ref_model *m, gat_model *model, const gat_real *dlogits)
{
    if (!m->ws.trained) return GAT_EINVAL;
    sync(m, model);
    if (m->threads > m->ws.threads) m->threads = m->ws.threads;
    const gat_graph *g = m->ws.g;
    const gat_idx N = g->n;
    const int nt = m->threads;
    gat_real *grad = m->blob + m->n_params;
    const gat_real *dcur = dlogits;

    for (int l = m->n_layers - 1; l >= 0; l--) {
        const gat_i_layer *L = &m->L[l];
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
        if (m->cfg.score == GAT_SCORE_GAT) {
            gat_i_attention_backward(&a, dy, &m->ws.att, m->ws.dz, grad + L->a_src, grad + L->a_dst);
            if (m->D) edge_backward(m, l, grad);
            for (int h = 0; L->score_bias && h < L->heads; h++) { /* every edge's score has both */
                double s = 0;
                for (gat_idx i = 0; i < N; i++)
                    s += m->ws.att.ds_dst[(size_t)i * L->heads + h];
                grad[L->sb + (size_t)h] += (gat_real)s;
                grad[L->sb + (size_t)L->heads + (size_t)h] += (gat_real)s;
            }
        } else {
            if (m->D) memset(m->ws.dze, 0, (size_t)g->nnz * hw * sizeof *m->ws.dze);
            score_backward(m, l, dy, grad);
            if (m->D) edge_backward(m, l, grad);
        }
        if (m->cfg.residual) residual_backward(m, l, dcur, grad);

        /* Z = X_d W */
        if (c->xin == NULL) { /* a mask per head */
            head_backward(m, l, m->ws.dz, grad + L->w, l > 0 ? m->ws.dcur : NULL);
            if (l > 0) dcur = m->ws.dcur;
        } else if (l == 0) {
            gat_i_spmm_backward_w(&m->ws.xt, m->ws.xt_perm, c->xin, (gat_idx)hw, m->ws.dz,
                                  grad + L->w, nt);
            extra_backward(m, l, grad);
            input_backward(m, dcur);
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
