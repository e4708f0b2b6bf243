/* Finite-difference gradient checks in the double build: for the projections, every reference
 * op of tests/ref, the fused attention and the whole model, loss = sum(out * r) (so dout = r) and
 * every input and parameter coordinate's analytic gradient against a central difference; two
 * backward calls double it. */
#include "gradcheck.h"
#include "core/core.h"
#include "layers/layers.h"
#include "ref/ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* The 3-layer model's rounding noise divided by 2h reaches ~1e-9 at h = 1e-6, too near
 * TOL * FLOOR; at 1e-5 rounding and truncation (h^2) errors both stay near 1e-10. */
static const double MODEL_STEP = 1e-5;
static const double KINK = 1e-4;  /* LeakyReLU / ELU inputs stay this far from 0 */
static const double SLOPE = 0.2;

/* Graphs of the graph ops: undirected with self-loops (loop index 0) and directed without them,
 * where node 6's neighbourhood is empty (index 1). */
static const unsigned graph_flags[] = {GAT_GRAPH_SYMMETRIZE, GAT_GRAPH_NO_SELF_LOOPS};

/* The random 7-node graph of testutil with its edge cases: node 0 hears every connected node,
 * node 5 only node 0, node 6 nobody (self-loops aside). */
static void small_graph(gat_graph *g, unsigned flags, uint64_t seed)
{
    const gat_idx loop = flags & GAT_GRAPH_NO_SELF_LOOPS ? 0 : 1;
    tu_graph_small_random(g, flags, seed);
    ck_assert_int_eq(g->n, 7);
    ck_assert_int_eq(gat_graph_degree(g, 0), 5 + loop);
    ck_assert_int_eq(gat_graph_degree(g, 5), 1 + loop);
    ck_assert_int_eq(gat_graph_degree(g, 6), loop);
}

/* Draws s_dst and s_src (n * H each) until no edge's LeakyReLU input is within KINK of 0. */
static void scores_off_kink(const gat_graph *g, int H, gat_real *s_dst, gat_real *s_src,
                            uint64_t seed)
{
    for (int tries = 0;; tries++) {
        ck_assert_int_lt(tries, 1000);
        tu_uniform(s_dst, (size_t)g->n * H, -1, 1, seed + 2 * (uint64_t)tries);
        tu_uniform(s_src, (size_t)g->n * H, -1, 1, seed + 2 * (uint64_t)tries + 1);
        double margin = INFINITY;
        for (gat_idx i = 0; i < g->n; i++)
            for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++)
                for (int h = 0; h < H; h++)
                    margin = fmin(
                        margin, fabs(s_dst[(size_t)i * H + h] + s_src[(size_t)g->col[k] * H + h]));
        if (margin >= KINK) return;
    }
}

/* ---- projections ---- */

typedef struct dense_ctx {
    gat_idx N, K, M;
    int nt;
    gat_real *X, *W, *dX, *dW;
} dense_ctx;

static void dense_fwd(void *c, gat_real *out)
{
    dense_ctx *d = c;
    gat_i_gemm_nn(d->N, d->K, d->M, d->X, d->W, out, d->nt);
}

static void dense_bwd(void *c, const gat_real *dz)
{
    dense_ctx *d = c;
    gat_i_gemm_tn_acc(d->N, d->K, d->M, d->X, dz, d->dW, d->nt);
    gat_i_gemm_nt(d->N, d->K, d->M, dz, d->W, d->dX, d->nt);
}

START_TEST(test_dense_projection)
{
    pool pl = {0};
    dense_ctx d = {.N = 7, .K = 5, .M = 6, .nt = 1 + _i};
    d.X = reals(&pl, 35), d.W = reals(&pl, 30), d.dX = reals(&pl, 35), d.dW = reals(&pl, 30);
    tu_uniform(d.X, 35, -1, 1, 11);
    tu_uniform(d.W, 30, -1, 1, 12);
    gc_op op = {.forward = dense_fwd, .backward = dense_bwd, .ctx = &d, .n_out = 42};
    snprintf(op.name, sizeof op.name, "dense projection nt=%d", d.nt);
    add_var(&op, "X", d.X, d.dX, 35, 0);
    add_var(&op, "W", d.W, d.dW, 30, 1);
    gradcheck(&op, 13);
    pool_free(&pl);
}
END_TEST

typedef struct sparse_ctx {
    gat_csr x, xt;
    gat_idx *perm;
    gat_real *val, *W, *dW;
    gat_idx M;
    int nt;
} sparse_ctx;

static void sparse_fwd(void *c, gat_real *out)
{
    sparse_ctx *s = c;
    gat_i_spmm(&s->x, s->val, s->M, s->W, out, s->nt);
}

static void sparse_bwd(void *c, const gat_real *dz)
{
    sparse_ctx *s = c;
    gat_i_spmm_backward_w(&s->xt, s->perm, s->val, s->M, dz, s->dW, s->nt);
}

START_TEST(test_sparse_projection)
{
    pool pl = {0};
    sparse_ctx s = {.M = 6, .nt = 1 + _i};
    const gat_idx N = 7, K = 9;
    tu_features(&s.x, N, K, 0.3, 21);
    const gat_idx nnz = s.x.rowptr[N];
    s.perm = take(&pl, (size_t)nnz, sizeof *s.perm);
    /* the reference transpose, independent of the library's */
    ck_assert_int_eq(ref_csr_transpose_perm(&s.x, &s.xt, s.perm), GAT_OK);
    s.val = reals(&pl, (size_t)nnz);
    s.W = reals(&pl, (size_t)K * s.M), s.dW = reals(&pl, (size_t)K * s.M);
    tu_uniform(s.val, (size_t)nnz, -1, 1, 22);
    s.val[nnz / 2] = 0; /* a dropped input */
    tu_uniform(s.W, (size_t)K * s.M, -1, 1, 23);
    gc_op op = {.forward = sparse_fwd, .backward = sparse_bwd, .ctx = &s, .n_out = (size_t)N * s.M};
    snprintf(op.name, sizeof op.name, "sparse projection nt=%d", s.nt);
    add_var(&op, "W", s.W, s.dW, (size_t)K * s.M, 1);
    gradcheck(&op, 24);
    gat_csr_destroy(&s.x);
    gat_csr_destroy(&s.xt);
    pool_free(&pl);
}
END_TEST

/* ---- reference single ops (tests/ref: the specification of the engine) ---- */

typedef struct head_ctx {
    gat_idx N, Fo;
    int H;
    gat_real *Z, *a, *dZ, *da;
} head_ctx;

static void head_dot_fwd(void *c, gat_real *out)
{
    head_ctx *d = c;
    ref_head_dot(d->N, d->H, d->Fo, d->Z, d->a, out);
}

static void head_dot_bwd(void *c, const gat_real *ds)
{
    head_ctx *d = c;
    ref_head_dot_backward(d->N, d->H, d->Fo, d->Z, d->a, ds, d->dZ, d->da);
}

START_TEST(test_head_dot)
{
    pool pl = {0};
    head_ctx d = {.N = 7, .H = 3, .Fo = 4};
    const size_t nz = 7 * 3 * 4, na = 3 * 4;
    d.Z = reals(&pl, nz), d.dZ = reals(&pl, nz), d.a = reals(&pl, na), d.da = reals(&pl, na);
    tu_uniform(d.Z, nz, -1, 1, 31);
    tu_uniform(d.a, na, -1, 1, 32);
    gc_op op = {.name = "head_dot",
                .forward = head_dot_fwd,
                .backward = head_dot_bwd,
                .ctx = &d,
                .n_out = 7 * 3};
    add_var(&op, "Z", d.Z, d.dZ, nz, 1);
    add_var(&op, "a", d.a, d.da, na, 1);
    gradcheck(&op, 33);
    pool_free(&pl);
}
END_TEST

typedef struct graph_ctx {
    gat_graph g;
    int H;
    gat_idx Fo;
    gat_real *s_dst, *s_src, *ds_dst, *ds_src; /* edge scores */
    gat_real *e, *alpha, *de;                  /* edge softmax */
    gat_real *dalpha, *Z, *dZ;                 /* aggregate */
} graph_ctx;

static void scores_fwd(void *c, gat_real *out)
{
    graph_ctx *d = c;
    ref_edge_scores(&d->g, d->H, SLOPE, d->s_dst, d->s_src, out);
}

static void scores_bwd(void *c, const gat_real *de)
{
    graph_ctx *d = c;
    ref_edge_scores_backward(&d->g, d->H, SLOPE, d->s_dst, d->s_src, de, d->ds_dst, d->ds_src);
}

START_TEST(test_edge_scores)
{
    pool pl = {0};
    graph_ctx d = {.H = 3};
    small_graph(&d.g, graph_flags[_i], 40 + (uint64_t)_i);
    const size_t nh = (size_t)d.g.n * d.H;
    d.s_dst = reals(&pl, nh), d.s_src = reals(&pl, nh);
    d.ds_dst = reals(&pl, nh), d.ds_src = reals(&pl, nh);
    scores_off_kink(&d.g, d.H, d.s_dst, d.s_src, 41);
    gc_op op = {
        .forward = scores_fwd, .backward = scores_bwd, .ctx = &d, .n_out = (size_t)d.g.nnz * d.H};
    snprintf(op.name, sizeof op.name, "edge_scores flags=%u", graph_flags[_i]);
    add_var(&op, "s_dst", d.s_dst, d.ds_dst, nh, 1);
    add_var(&op, "s_src", d.s_src, d.ds_src, nh, 1);
    gradcheck(&op, 42);
    gat_graph_destroy(&d.g);
    pool_free(&pl);
}
END_TEST

static void softmax_fwd(void *c, gat_real *out)
{
    graph_ctx *d = c;
    ref_edge_softmax(&d->g, d->H, d->e, out);
}

static void softmax_bwd(void *c, const gat_real *dalpha)
{
    graph_ctx *d = c;
    ref_edge_softmax(&d->g, d->H, d->e, d->alpha);
    ref_edge_softmax_backward(&d->g, d->H, d->alpha, dalpha, d->de);
}

START_TEST(test_edge_softmax)
{
    pool pl = {0};
    graph_ctx d = {.H = 3};
    small_graph(&d.g, graph_flags[_i], 40 + (uint64_t)_i);
    const size_t eh = (size_t)d.g.nnz * d.H;
    d.e = reals(&pl, eh), d.alpha = reals(&pl, eh), d.de = reals(&pl, eh);
    tu_uniform(d.e, eh, -2, 2, 51);
    gc_op op = {.forward = softmax_fwd, .backward = softmax_bwd, .ctx = &d, .n_out = eh};
    snprintf(op.name, sizeof op.name, "edge_softmax flags=%u", graph_flags[_i]);
    add_var(&op, "e", d.e, d.de, eh, 1);
    gradcheck(&op, 52);
    gat_graph_destroy(&d.g);
    pool_free(&pl);
}
END_TEST

static void aggregate_fwd(void *c, gat_real *out)
{
    graph_ctx *d = c;
    ref_aggregate(&d->g, d->H, d->Fo, d->alpha, d->Z, out);
}

static void aggregate_bwd(void *c, const gat_real *dout)
{
    graph_ctx *d = c;
    ref_aggregate_backward(&d->g, d->H, d->Fo, d->alpha, d->Z, dout, d->dalpha, d->dZ);
}

START_TEST(test_aggregate)
{
    pool pl = {0};
    graph_ctx d = {.H = 3, .Fo = 4};
    small_graph(&d.g, graph_flags[_i], 40 + (uint64_t)_i);
    const size_t eh = (size_t)d.g.nnz * d.H, nz = (size_t)d.g.n * d.H * d.Fo;
    d.alpha = reals(&pl, eh), d.dalpha = reals(&pl, eh);
    d.Z = reals(&pl, nz), d.dZ = reals(&pl, nz);
    tu_uniform(d.alpha, eh, 0, 1, 61);
    tu_uniform(d.Z, nz, -1, 1, 62);
    gc_op op = {.forward = aggregate_fwd, .backward = aggregate_bwd, .ctx = &d, .n_out = nz};
    snprintf(op.name, sizeof op.name, "aggregate flags=%u", graph_flags[_i]);
    add_var(&op, "alpha", d.alpha, d.dalpha, eh, 1);
    add_var(&op, "Z", d.Z, d.dZ, nz, 1);
    gradcheck(&op, 63);
    gat_graph_destroy(&d.g);
    pool_free(&pl);
}
END_TEST

typedef struct elem_ctx {
    size_t n;
    gat_idx N, M; /* bias: (N, M); head mean: N, H, Fo = M */
    int H;
    gat_real *x, *y, *dx, *b, *db;
    uint8_t *mask;
    gat_real scale;
} elem_ctx;

static void elu_fwd(void *c, gat_real *out)
{
    elem_ctx *d = c;
    ref_elu(d->n, d->x, out);
}

static void elu_bwd(void *c, const gat_real *dy)
{
    elem_ctx *d = c;
    ref_elu(d->n, d->x, d->y);
    ref_elu_backward(d->n, d->y, dy, d->dx);
}

START_TEST(test_elu)
{
    pool pl = {0};
    elem_ctx d = {.n = 60};
    d.x = reals(&pl, d.n), d.y = reals(&pl, d.n), d.dx = reals(&pl, d.n);
    tu_uniform(d.x, d.n, -3, 3, 71);
    for (size_t k = 0; k < d.n; k++)
        if (fabs(d.x[k]) < KINK) d.x[k] = 0.5;
    gc_op op = {.name = "elu", .forward = elu_fwd, .backward = elu_bwd, .ctx = &d, .n_out = d.n};
    add_var(&op, "x", d.x, d.dx, d.n, 1);
    gradcheck(&op, 72);
    pool_free(&pl);
}
END_TEST

static void dropout_fwd(void *c, gat_real *out)
{
    elem_ctx *d = c;
    ref_dropout(d->n, d->x, d->mask, d->scale, out);
}

static void dropout_bwd(void *c, const gat_real *dy)
{
    elem_ctx *d = c;
    ref_dropout_backward(d->n, d->mask, d->scale, dy, d->dx);
}

START_TEST(test_dropout)
{
    pool pl = {0};
    const double p = 0.4;
    elem_ctx d = {.n = 60, .scale = (gat_real)(1 / (1 - p))};
    d.x = reals(&pl, d.n), d.dx = reals(&pl, d.n);
    d.mask = take(&pl, d.n, 1);
    tu_uniform(d.x, d.n, -1, 1, 81);
    gat_i_dropout_mask(d.n, p, 82, d.mask, 1);
    size_t kept = 0;
    for (size_t k = 0; k < d.n; k++)
        kept += d.mask[k];
    ck_assert(kept > 0 && kept < d.n); /* both branches are exercised */
    gc_op op = {.name = "dropout (fixed mask)",
                .forward = dropout_fwd,
                .backward = dropout_bwd,
                .ctx = &d,
                .n_out = d.n};
    add_var(&op, "x", d.x, d.dx, d.n, 1);
    gradcheck(&op, 83);
    pool_free(&pl);
}
END_TEST

static void bias_fwd(void *c, gat_real *out)
{
    elem_ctx *d = c;
    memcpy(out, d->x, (size_t)d->N * d->M * sizeof *out);
    ref_bias_add(d->N, d->M, d->b, out);
}

static void bias_bwd(void *c, const gat_real *dy)
{
    elem_ctx *d = c;
    ref_bias_backward(d->N, d->M, dy, d->db);
}

START_TEST(test_bias)
{
    pool pl = {0};
    elem_ctx d = {.N = 7, .M = 5};
    d.x = reals(&pl, 35), d.b = reals(&pl, 5), d.db = reals(&pl, 5);
    tu_uniform(d.x, 35, -1, 1, 91);
    tu_uniform(d.b, 5, -1, 1, 92);
    gc_op op = {.name = "bias", .forward = bias_fwd, .backward = bias_bwd, .ctx = &d, .n_out = 35};
    add_var(&op, "b", d.b, d.db, 5, 1);
    gradcheck(&op, 93);
    pool_free(&pl);
}
END_TEST

static void head_mean_fwd(void *c, gat_real *out)
{
    elem_ctx *d = c;
    ref_head_mean(d->N, d->H, d->M, d->x, out);
}

static void head_mean_bwd(void *c, const gat_real *dout)
{
    elem_ctx *d = c;
    ref_head_mean_backward(d->N, d->H, d->M, dout, d->dx);
}

START_TEST(test_head_mean)
{
    pool pl = {0};
    elem_ctx d = {.N = 7, .H = 3, .M = 4};
    d.x = reals(&pl, 84), d.dx = reals(&pl, 84);
    tu_uniform(d.x, 84, -1, 1, 101);
    gc_op op = {.name = "head_mean",
                .forward = head_mean_fwd,
                .backward = head_mean_bwd,
                .ctx = &d,
                .n_out = 28};
    add_var(&op, "in", d.x, d.dx, 84, 1);
    gradcheck(&op, 102);
    pool_free(&pl);
}
END_TEST

typedef struct xent_ctx {
    gat_idx n, C;
    gat_real *logits, *dlogits, *tmp;
    gat_idx *labels;
    uint8_t *split;
} xent_ctx;

static void xent_fwd(void *c, gat_real *out)
{
    xent_ctx *d = c;
    double loss = 0, acc = 0;
    ck_assert_int_eq(gat_softmax_xent(d->logits, d->n, d->C, d->labels, d->split, GAT_SPLIT_TRAIN,
                                      &loss, &acc, NULL),
                     GAT_OK);
    out[0] = loss;
}

static void xent_bwd(void *c, const gat_real *dout)
{
    xent_ctx *d = c;
    double loss = 0, acc = 0;
    ck_assert_int_eq(gat_softmax_xent(d->logits, d->n, d->C, d->labels, d->split, GAT_SPLIT_TRAIN,
                                      &loss, &acc, d->tmp),
                     GAT_OK);
    for (size_t k = 0; k < (size_t)d->n * d->C; k++)
        d->dlogits[k] = d->tmp[k] * dout[0];
}

START_TEST(test_softmax_xent)
{
    pool pl = {0};
    xent_ctx d = {.n = 7, .C = 4};
    const size_t nc = 28;
    d.logits = reals(&pl, nc), d.dlogits = reals(&pl, nc), d.tmp = reals(&pl, nc);
    d.labels = take(&pl, 7, sizeof *d.labels);
    d.split = take(&pl, 7, 1);
    tu_uniform(d.logits, nc, -3, 3, 111);
    d.logits[5] = 40; /* a confident row: the max subtraction matters */
    for (gat_idx i = 0; i < d.n; i++) {
        d.labels[i] = (i * 3) % d.C;
        d.split[i] = i % 3 ? GAT_SPLIT_TRAIN : GAT_SPLIT_VAL; /* rows 0, 3, 6 outside the loss */
    }
    gc_op op = {.name = "softmax cross-entropy",
                .forward = xent_fwd,
                .backward = xent_bwd,
                .ctx = &d,
                .n_out = 1};
    add_var(&op, "logits", d.logits, d.dlogits, nc, 0);
    gradcheck(&op, 112);
    pool_free(&pl);
}
END_TEST

/* ---- fused attention ---- */

typedef struct att_ctx {
    gat_graph g;
    gat_i_att_args a;
    gat_i_att_scratch s;
    gat_real *z, *a_src, *a_dst, *dy, *dz, *da_src, *da_dst;
    gat_real *zagg; /* projection dropout: z times zmask and zscale, or NULL */
} att_ctx;

static void att_fwd(void *c, gat_real *out)
{
    att_ctx *d = c;
    if (d->zagg)
        gat_i_dropout((size_t)d->g.n * d->a.H * d->a.Fo, d->z, d->a.zmask, d->a.zscale, d->zagg);
    gat_i_attention_forward(&d->a, out);
}

static void att_bwd(void *c, const gat_real *dout)
{
    att_ctx *d = c;
    const gat_real *dy = dout;
    if (d->a.mean) { /* averaged heads: every head gets dout / H */
        for (gat_idx i = 0; i < d->g.n; i++)
            for (int h = 0; h < d->a.H; h++)
                for (gat_idx f = 0; f < d->a.Fo; f++)
                    d->dy[((size_t)i * d->a.H + h) * d->a.Fo + f] =
                        dout[(size_t)i * d->a.Fo + f] / d->a.H;
        dy = d->dy;
    }
    gat_i_attention_backward(&d->a, dy, &d->s, d->dz, d->da_src, d->da_dst);
}

/* Loop index bits: 1 averaged heads, 2 attention dropout mask, 4 directed graph without
 * self-loops, 8 two threads, 16 the kernels' compile-time shape H = 4, Fo = 2 (else the
 * run-time shape H = 3), 32 projection dropout (the aggregation reads z masked, the scores z). */
START_TEST(test_fused_attention)
{
    pool pl = {0};
    att_ctx d = {0};
    const int special = (_i >> 4) & 1;
    const int H = special ? 4 : 3, mean = _i & 1, masked = (_i >> 1) & 1, nt = 1 + ((_i >> 3) & 1);
    const gat_idx Fo = special ? 2 : 4;
    small_graph(&d.g, graph_flags[(_i >> 2) & 1], 120 + (uint64_t)_i);
    const gat_idx N = d.g.n;
    const size_t nz = (size_t)N * H * Fo, na = (size_t)H * Fo, eh = (size_t)d.g.nnz * H;
    d.z = reals(&pl, nz), d.dz = reals(&pl, nz), d.dy = reals(&pl, nz);
    d.a_src = reals(&pl, na), d.a_dst = reals(&pl, na);
    d.da_src = reals(&pl, na), d.da_dst = reals(&pl, na);
    d.s.dpre = reals(&pl, eh);
    d.s.ds_src = reals(&pl, (size_t)N * H), d.s.ds_dst = reals(&pl, (size_t)N * H);
    d.s.partial = reals(&pl, (size_t)nt * 2 * na);
    uint8_t *amask = take(&pl, eh, 1), *zmask = take(&pl, nz, 1);
    const int zdrop = (_i >> 5) & 1;
    d.a = (gat_i_att_args){.g = &d.g,
                           .H = H,
                           .Fo = Fo,
                           .slope = SLOPE,
                           .z = d.z,
                           .a_src = d.a_src,
                           .a_dst = d.a_dst,
                           .s_src = reals(&pl, (size_t)N * H),
                           .s_dst = reals(&pl, (size_t)N * H),
                           .alpha = reals(&pl, eh),
                           .amask = masked ? amask : NULL,
                           .ascale = 2,
                           .mean = mean,
                           .nt = nt,
                           .zmask = zmask,
                           .zscale = (gat_real)(1 / 0.7)};
    gat_i_dropout_mask(eh, 0.5, 121, amask, 1);
    gat_i_dropout_mask(nz, 0.3, 126, zmask, 1);
    if (zdrop) d.a.zagg = d.zagg = reals(&pl, nz);
    tu_uniform(d.a_src, na, -1, 1, 122);
    tu_uniform(d.a_dst, na, -1, 1, 123);
    /* keep every edge's LeakyReLU input off the kink */
    for (int tries = 0;; tries++) {
        ck_assert_int_lt(tries, 1000);
        tu_uniform(d.z, nz, -1, 1, 124 + (uint64_t)tries);
        ref_head_dot(N, H, Fo, d.z, d.a_src, d.a.s_src);
        ref_head_dot(N, H, Fo, d.z, d.a_dst, d.a.s_dst);
        double margin = INFINITY;
        for (gat_idx i = 0; i < N; i++)
            for (gat_idx k = d.g.rowptr[i]; k < d.g.rowptr[i + 1]; k++)
                for (int h = 0; h < H; h++)
                    margin = fmin(margin, fabs(d.a.s_dst[(size_t)i * H + h] +
                                               d.a.s_src[(size_t)d.g.col[k] * H + h]));
        if (margin >= KINK) break;
    }
    gc_op op = {.forward = att_fwd,
                .backward = att_bwd,
                .ctx = &d,
                .n_out = (size_t)N * (mean ? 1 : H) * Fo};
    snprintf(op.name, sizeof op.name, "fused attention H=%d Fo=%d %s%s%s flags=%u nt=%d", H, Fo,
             mean ? "mean" : "concat", masked ? " +mask" : "", zdrop ? " +proj-dropout" : "",
             graph_flags[(_i >> 2) & 1], nt);
    add_var(&op, "z", d.z, d.dz, nz, 1);
    add_var(&op, "a_src", d.a_src, d.da_src, na, 1);
    add_var(&op, "a_dst", d.a_dst, d.da_dst, na, 1);
    gradcheck(&op, 125);
    gat_graph_destroy(&d.g);
    pool_free(&pl);
}
END_TEST

/* ---- whole model ---- */

/* Loop index: bit 0 three layers (else two), bit 1 directed graph without self-loops, bit 2 two
 * threads, bit 3 the reference code's setup (a mask per head, projection dropout, score biases),
 * bit 4 whole-row scores (every head's score halves over the layer's whole row). */
START_TEST(test_model)
{
    gc_model d = {.step = 41};
    gat_model_config cfg;
    const gat_idx F = 5, C = 3;
    const int nt = 1 + ((_i >> 2) & 1);
    gat_model_config_default(&cfg, F, C);
    cfg.layers = 2 + (_i & 1);
    cfg.heads = 3;
    cfg.hidden = 4;
    cfg.out_heads = 2;
    cfg.in_dropout = 0.3;
    cfg.att_dropout = 0.3;
    cfg.head_dropout = (_i >> 3) & 1;
    cfg.proj_dropout = cfg.head_dropout ? 0.3 : 0;
    cfg.score_bias = cfg.head_dropout;
    cfg.whole_scores = (_i >> 4) & 1;
    small_graph(&d.g, graph_flags[(_i >> 1) & 1], 130 + (uint64_t)_i);
    tu_features(&d.x, d.g.n, F, 0.5, 131);
    ck_assert_int_eq(gat_model_create(&d.m, &cfg, 132), GAT_OK);
    gat_model_set_threads(d.m, nt);
    d.n_out = (size_t)d.g.n * C;

    /* parameters away from their initial values: non-zero biases, larger attention vectors */
    size_t P = 0;
    gat_real *params = gat_model_params(d.m, &P), *grads = gat_model_grads(d.m, NULL);
    tu_uniform(params, P, -1, 1, 133);

    /* dropout really is on, and set_step selects the masks */
    gat_real *a = calloc(d.n_out, sizeof *a), *b = calloc(d.n_out, sizeof *b);
    const gat_real *logits;
    ck_assert(a && b);
    ck_assert_int_eq(gat_model_forward(d.m, &d.g, &d.x, 0, &logits), GAT_OK);
    memcpy(a, logits, d.n_out * sizeof *a);
    gc_model_forward(&d, b);
    ck_assert(memcmp(a, b, d.n_out * sizeof *a) != 0);
    d.step++;
    gc_model_forward(&d, a);
    ck_assert(memcmp(a, b, d.n_out * sizeof *a) != 0);
    free(a);
    free(b);

    gc_op op = {.forward = gc_model_forward,
                .backward = gc_model_backward,
                .ctx = &d,
                .n_out = d.n_out,
                .step = MODEL_STEP};
    snprintf(op.name, sizeof op.name, "model %d layers flags=%u nt=%d%s%s", cfg.layers,
             graph_flags[(_i >> 1) & 1], nt,
             cfg.head_dropout ? " head masks, proj dropout, score biases" : "",
             cfg.whole_scores ? " whole rows" : "");
    int nt_ = 0;
    const gat_model_tensor *t = gat_model_tensors(d.m, &nt_);
    for (int k = 0; k < nt_; k++)
        add_var(&op, t[k].name, params + t[k].offset, grads + t[k].offset, t[k].size, 1);
    gradcheck(&op, 134);
    gat_model_free(d.m);
    gat_csr_destroy(&d.x);
    gat_graph_destroy(&d.g);
}
END_TEST

/* The input gradient (GAT_BIND_INPUT_GRADIENT, gat_model_input_gradient): every stored feature
 * and every parameter against central differences, with input and attention dropout. Loop
 * index: bit 0 three layers (else two), bit 1 residual connections, bit 2 the gatv2 score. */
START_TEST(test_model_input_gradient)
{
    gc_model d = {.step = 45, .flags = GAT_BIND_INPUT_GRADIENT};
    gat_model_config cfg;
    const gat_idx F = 5, C = 3;
    gat_model_config_default(&cfg, F, C);
    cfg.layers = 2 + (_i & 1);
    cfg.residual = (_i >> 1) & 1;
    cfg.score = _i & 4 ? GAT_SCORE_GATV2 : GAT_SCORE_GAT;
    cfg.heads = 3;
    cfg.hidden = 4;
    cfg.out_heads = 2;
    cfg.in_dropout = 0.3;
    cfg.att_dropout = 0.3;
    small_graph(&d.g, graph_flags[0], 150 + (uint64_t)_i);
    tu_features(&d.x, d.g.n, F, 0.6, 151);
    ck_assert_int_eq(gat_model_create(&d.m, &cfg, 152), GAT_OK);
    d.n_out = (size_t)d.g.n * C;
    size_t P = 0;
    gat_real *params = gat_model_params(d.m, &P), *grads = gat_model_grads(d.m, NULL);
    tu_uniform(params, P, -1, 1, 153);
    const size_t nnz = (size_t)d.x.rowptr[d.x.rows];
    d.dx = calloc(nnz, sizeof *d.dx);
    ck_assert_ptr_nonnull(d.dx);
    gc_op op = {.forward = gc_model_forward,
                .backward = gc_model_backward,
                .ctx = &d,
                .n_out = d.n_out,
                .step = MODEL_STEP};
    snprintf(op.name, sizeof op.name, "model input gradient %d layers residual %d %s",
             cfg.layers, cfg.residual, gat_score_name(cfg.score));
    add_var(&op, "x", d.x.val, d.dx, nnz, 0);
    int nt_ = 0;
    const gat_model_tensor *t = gat_model_tensors(d.m, &nt_);
    for (int k = 0; k < nt_; k++)
        add_var(&op, t[k].name, params + t[k].offset, grads + t[k].offset, t[k].size, 1);
    gradcheck(&op, 154);
    free(d.dx);
    gat_model_free(d.m);
    gat_csr_destroy(&d.x);
    gat_graph_destroy(&d.g);
}
END_TEST

/* The edge term (edge_dim 3, PyG's GATConv(edge_dim) and GATv2Conv(edge_dim)): every tensor of
 * the model, the edge term's weight_edge (and gat's att_edge) included. Loop index: bit 0 three
 * layers (else two), bit 1 directed graph without self-loops, bit 2 two threads, bit 3 gatv2. */
START_TEST(test_model_edges)
{
    gc_model d = {.step = 43};
    gat_model_config cfg;
    const gat_idx F = 5, C = 3, D = 3;
    const int nt = 1 + ((_i >> 2) & 1);
    gat_model_config_default(&cfg, F, C);
    cfg.layers = 2 + (_i & 1);
    cfg.heads = 3;
    cfg.hidden = 4;
    cfg.out_heads = 2;
    cfg.in_dropout = 0.3;
    cfg.att_dropout = 0.3;
    cfg.edge_dim = D;
    cfg.score = (_i >> 3) & 1 ? GAT_SCORE_GATV2 : GAT_SCORE_GAT;
    small_graph(&d.g, graph_flags[(_i >> 1) & 1], 140 + (uint64_t)_i);
    tu_features(&d.x, d.g.n, F, 0.5, 141);
    const size_t ne = (size_t)d.g.nnz * (size_t)D;
    gat_real *ex = malloc((ne + 1) * sizeof *ex);
    ck_assert_ptr_nonnull(ex);
    d.ex = ex;
    tu_uniform(ex, ne, -1, 1, 142);
    ck_assert_int_eq(gat_model_create(&d.m, &cfg, 143), GAT_OK);
    gat_model_set_threads(d.m, nt);
    d.n_out = (size_t)d.g.n * C;
    size_t P = 0;
    gat_real *params = gat_model_params(d.m, &P), *grads = gat_model_grads(d.m, NULL);
    tu_uniform(params, P, -1, 1, 144);
    ck_assert_int_eq(gat_model_bind(d.m, &d.g, &d.x, 0), GAT_OK);
    ck_assert_int_eq(gat_model_bind_edge_features(d.m, ex, D), GAT_OK);

    gc_op op = {.forward = gc_model_forward,
                .backward = gc_model_backward,
                .ctx = &d,
                .n_out = d.n_out,
                .step = MODEL_STEP};
    snprintf(op.name, sizeof op.name, "%s model with edge_dim %d, %d layers flags=%u nt=%d",
             gat_score_name(cfg.score), D, cfg.layers, graph_flags[(_i >> 1) & 1], nt);
    int nt_ = 0, edge = 0;
    const gat_model_tensor *t = gat_model_tensors(d.m, &nt_);
    for (int k = 0; k < nt_; k++) {
        add_var(&op, t[k].name, params + t[k].offset, grads + t[k].offset, t[k].size, 1);
        edge += strstr(t[k].name, "_edge") != NULL;
    }
    ck_assert_int_eq(edge, (cfg.score == GAT_SCORE_GAT ? 2 : 1) * cfg.layers);
    gradcheck(&op, 145);
    gat_model_free(d.m);
    free(ex);
    gat_csr_destroy(&d.x);
    gat_graph_destroy(&d.g);
}
END_TEST

static Suite *gradcheck_suite(void)
{
    Suite *s = suite_create("gradcheck");
    struct {
        const char *name;
        const TTest *test;
        int loops;
    } cases[] = {
        {"dense_projection", test_dense_projection, 2},
        {"sparse_projection", test_sparse_projection, 2},
        {"head_dot", test_head_dot, 1},
        {"edge_scores", test_edge_scores, 2},
        {"edge_softmax", test_edge_softmax, 2},
        {"aggregate", test_aggregate, 2},
        {"elu", test_elu, 1},
        {"dropout", test_dropout, 1},
        {"bias", test_bias, 1},
        {"head_mean", test_head_mean, 1},
        {"softmax_xent", test_softmax_xent, 1},
        {"fused_attention", test_fused_attention, 64},
        {"model", test_model, 32},
        {"model input gradient", test_model_input_gradient, 8},
        {"model_edges", test_model_edges, 16},
    };
    for (size_t c = 0; c < LEN(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_add_loop_test(tc, cases[c].test, 0, cases[c].loops);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    return tu_run(gradcheck_suite());
}
