/* Check suite "gps" (double build): graph transformers (gat/gps.h). Finite-difference gradient
 * checks of every parameter for each layer kind on a node task, on a graph task (segments,
 * readouts, the MLP classifier) and with anchor attention; a graph's logits never depend on the
 * other graphs of its batch; the same bits for 1..3 threads (the GAT term is the engine on the
 * model's own parameters, its input gradient GAT_BIND_INPUT_GRADIENT's); the batch norm of kind
 * gat-bn: its running statistics and its inference path against the training path; the graph
 * trainer's schedules; bad configurations. */
#include "gradcheck.h"

#include "model/fast_i.h"
#include "model/gps_i.h"

#include <math.h>
#include <stdlib.h>

/* n_seg rings of sizes 3 + (s % 4), chords every third node; features (N, F) from seed. */
typedef struct toy {
    gat_graph g;
    gat_csr x;
    gat_idx seg[64], n_seg;
} toy;

static void toy_make(toy *t, gat_idx n_seg, gat_idx F, uint64_t seed)
{
    gat_idx src[4096], dst[4096], m = 0, N = 0;
    t->n_seg = n_seg;
    t->seg[0] = 0;
    for (gat_idx s = 0; s < n_seg; s++) {
        const gat_idx n = 3 + s % 4;
        for (gat_idx i = 0; i < n; i++) {
            src[m] = N + i, dst[m++] = N + (i + 1) % n;
            if (i % 3 == 0 && n > 3) src[m] = N + (i + 2) % n, dst[m++] = N + i;
        }
        N += n;
        t->seg[s + 1] = N;
    }
    ck_assert_int_eq(gat_graph_from_edges(&t->g, N, (size_t)m, src, dst, GAT_GRAPH_SYMMETRIZE),
                     GAT_OK);
    gat_real *dense = malloc((size_t)N * F * sizeof *dense);
    ck_assert_ptr_nonnull(dense);
    tu_uniform(dense, (size_t)N * F, -1, 1, seed);
    for (size_t k = 0; k < (size_t)N * F; k += 3) dense[k] = 0; /* some sparsity */
    ck_assert_int_eq(gat_csr_from_dense(&t->x, N, F, dense), GAT_OK);
    free(dense);
}

static void toy_free(toy *t)
{
    gat_graph_destroy(&t->g);
    gat_csr_destroy(&t->x);
}

typedef struct gctx {
    gat_gps *m;
    toy *t;
    gat_idx n_seg;
    const gat_idx *seg;
    size_t n_out;
} gctx;

static void g_fwd(void *c, gat_real *out)
{
    gctx *a = c;
    const gat_real *y;
    ck_assert_int_eq(gat_gps_forward(a->m, &a->t->g, &a->t->x, a->n_seg, a->seg, 1, &y), GAT_OK);
    memcpy(out, y, a->n_out * sizeof *out);
}

static void g_bwd(void *c, const gat_real *dout)
{
    gctx *a = c;
    ck_assert_int_eq(gat_gps_backward(a->m, dout), GAT_OK);
}

/* What check_model varies beyond the kind and task. */
typedef struct extra {
    gat_idx anchors, last_heads;
    int residual, classifier_layers;
    gat_idx readout_heads, readout_hidden; /* > 0: the attention readout */
    int whole;                             /* whole_scores */
    gat_idx dim, heads, layers;            /* > 0: instead of 4, 2, 2 */
} extra;

/* Gradient check of every parameter of a model of kind k on toy t. */
static void check_model(gat_gps_kind k, gat_task task, extra x, toy *t, const char *name)
{
    gat_gps_config c;
    gat_gps_config_default(&c, t->x.cols, 3);
    c.kind = k, c.task = task, c.dim = 4, c.heads = 2, c.layers = 2, c.dropout = 0;
    c.readout = GAT_READOUT_MEAN, c.anchors = x.anchors, c.last_heads = x.last_heads;
    c.residual = x.residual, c.classifier_layers = x.classifier_layers;
    c.whole_scores = x.whole;
    if (x.dim > 0) c.dim = x.dim, c.heads = x.heads, c.layers = x.layers;
    if (x.readout_heads > 0)
        c.readout = GAT_READOUT_ATTENTION, c.readout_heads = x.readout_heads,
        c.readout_hidden = x.readout_hidden;
    gat_gps *m;
    ck_assert_int_eq(gat_gps_create(&m, &c, 5), GAT_OK);
    gat_gps_set_threads(m, 1);
    /* gains and biases away from their initial 1 and 0, so that their gradients matter */
    size_t P;
    gat_real *p = gat_gps_params(m, &P);
    gat_real *noise = malloc(P * sizeof *noise);
    ck_assert_ptr_nonnull(noise);
    tu_uniform(noise, P, -0.2, 0.2, 7);
    for (size_t e = 0; e < P; e++) p[e] += noise[e];
    free(noise);
    const gat_idx one[2] = {0, t->g.n};
    gctx a = {m, t, task == GAT_TASK_GRAPH ? t->n_seg : 1, task == GAT_TASK_GRAPH ? t->seg : one,
              0};
    a.n_out = (size_t)(task == GAT_TASK_GRAPH ? t->n_seg : t->g.n) * 3;
    gc_op op = {.forward = g_fwd, .backward = g_bwd, .ctx = &a, .n_out = a.n_out};
    /* batch norm's outputs (tens, with the residual) put rounding of 1e-9 into a 1e-6 step's
     * quotient, against its exactly zero gradients (the GAT bias before it): a larger step */
    if (k == GAT_GPS_BN) op.step = 1e-5;
    /* the layer norms, attention and MLPs of these models put about 1e-9 of rounding into a
     * 1e-6 step's quotient (the numeric derivative of a parameter whose gradient is exactly
     * zero), as large as the default absolute tolerance (1e-6 x 1e-3): compare gradients below
     * 1e-2 absolutely, to 1e-8. Larger steps cross the ReLU's and LeakyReLU's kinks. */
    op.floor = 1e-2;
    snprintf(op.name, sizeof op.name, "%s", name);
    add_var(&op, "params", p, gat_gps_grads(m, NULL), P, 1);
    gradcheck(&op, 11);
    gat_gps_free(m);
}

START_TEST(gradient_node_kinds)
{
    toy t;
    toy_make(&t, 2, 5, 3);
    check_model(GAT_GPS_HYBRID, GAT_TASK_NODE, (extra){0}, &t, "gps node");
    check_model(GAT_GPS_GLOBAL, GAT_TASK_NODE, (extra){0}, &t, "transformer node");
    check_model(GAT_GPS_LOCAL, GAT_TASK_NODE, (extra){0}, &t, "gat-mlp node");
    check_model(GAT_GPS_BN, GAT_TASK_NODE, (extra){0}, &t, "gat-bn node");
    check_model(GAT_GPS_BN, GAT_TASK_NODE, (extra){.residual = 1, .last_heads = 1}, &t,
                "gat-bn node, residual, one head last");
    check_model(GAT_GPS_FFN, GAT_TASK_NODE, (extra){0}, &t, "gat-ffn node");
    /* every head's score halves reading the whole row: heads averaged, concatenated */
    check_model(GAT_GPS_HYBRID, GAT_TASK_NODE, (extra){.whole = 1}, &t, "gps node, whole rows");
    check_model(GAT_GPS_LOCAL, GAT_TASK_NODE, (extra){.whole = 1}, &t, "gat-mlp node, whole rows");
    check_model(GAT_GPS_FFN, GAT_TASK_NODE, (extra){.whole = 1}, &t, "gat-ffn node, whole rows");
    check_model(GAT_GPS_BN, GAT_TASK_NODE, (extra){.residual = 1, .last_heads = 1, .whole = 1}, &t,
                "gat-bn node, residual, one head last, whole rows");
    check_model(GAT_GPS_FFN, GAT_TASK_NODE, (extra){.whole = 1, .dim = 64, .heads = 8, .layers = 1},
                &t, "gat-ffn node, whole rows, 8 heads of 8");
    toy_free(&t);
}
END_TEST

START_TEST(gradient_graph_and_anchors)
{
    toy t;
    toy_make(&t, 4, 5, 9);
    check_model(GAT_GPS_HYBRID, GAT_TASK_GRAPH, (extra){0}, &t, "gps graph");
    check_model(GAT_GPS_HYBRID, GAT_TASK_NODE, (extra){.anchors = 4}, &t, "gps node, 4 anchors");
    check_model(GAT_GPS_HYBRID, GAT_TASK_GRAPH, (extra){.classifier_layers = 1}, &t,
                "gps graph, MLP classifier");
    check_model(GAT_GPS_BN, GAT_TASK_GRAPH,
                (extra){.residual = 1, .last_heads = 1, .classifier_layers = 1}, &t,
                "gat-bn graph, residual, one head last, MLP classifier");
    check_model(GAT_GPS_HYBRID, GAT_TASK_GRAPH, (extra){.readout_heads = 1}, &t,
                "gps graph, attention readout");
    check_model(
        GAT_GPS_BN, GAT_TASK_GRAPH,
        (extra){.residual = 1, .readout_heads = 2, .readout_hidden = 3, .classifier_layers = 1}, &t,
        "gat-bn graph, attention readout of 2 heads of width 3, MLP classifier");
    check_model(GAT_GPS_FFN, GAT_TASK_GRAPH, (extra){.readout_heads = 2, .classifier_layers = 1},
                &t, "gat-ffn graph, attention readout of 2 heads, MLP classifier");
    toy_free(&t);
}
END_TEST

/* Changing graph 2's features changes no other graph's logits. */
START_TEST(no_leak_between_graphs)
{
    toy t;
    toy_make(&t, 5, 4, 13);
    gat_gps_config c;
    gat_gps_config_default(&c, 4, 2);
    c.task = GAT_TASK_GRAPH, c.dim = 8, c.heads = 2, c.dropout = 0;
    gat_gps *m;
    ck_assert_int_eq(gat_gps_create(&m, &c, 1), GAT_OK);
    const gat_real *y;
    gat_real before[10];
    ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 5, t.seg, 0, &y), GAT_OK);
    memcpy(before, y, sizeof before);
    for (gat_idx i = t.seg[2]; i < t.seg[3]; i++)
        for (gat_idx e = t.x.rowptr[i]; e < t.x.rowptr[i + 1]; e++) t.x.val[e] += 5;
    ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 5, t.seg, 0, &y), GAT_OK);
    for (int k = 0; k < 10; k++)
        if (k / 2 != 2) ck_assert(y[k] == before[k]);
    ck_assert(y[4] != before[4] || y[5] != before[5]);
    gat_gps_free(m);
    toy_free(&t);
}
END_TEST

/* Forward and backward, with dropout, give the same bits on 1, 2 and 3 threads. */
START_TEST(threads_identical)
{
    toy t;
    toy_make(&t, 60, 6, 17);
    gat_gps_config c;
    gat_gps_config_default(&c, 6, 3);
    c.task = GAT_TASK_GRAPH, c.dim = 16, c.heads = 4, c.dropout = 0.2, c.att_dropout = 0.1;
    if (_i == 1) /* batch norm over the 60 graphs' nodes, the MLP classifier */
        c.kind = GAT_GPS_BN, c.residual = 1, c.last_heads = 2, c.classifier_layers = 2;
    if (_i == 2) /* the attention readout: its gate's gradients sum over all nodes */
        c.kind = GAT_GPS_BN, c.readout = GAT_READOUT_ATTENTION, c.readout_heads = 3,
        c.readout_hidden = 5, c.classifier_layers = 1;
    if (_i == 3) /* pre-norm blocks with GELU and dropout on the input */
        c.kind = GAT_GPS_FFN;
    if (_i == 4) /* every head's scores from the whole row */
        c.kind = GAT_GPS_FFN, c.whole_scores = 1;
    size_t P = 0;
    gat_real *ref = NULL;
    for (int nt = 1; nt <= 3; nt++) {
        gat_gps *m;
        ck_assert_int_eq(gat_gps_create(&m, &c, 2), GAT_OK);
        gat_gps_set_threads(m, nt);
        const gat_real *y;
        ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 60, t.seg, 1, &y), GAT_OK);
        gat_real dl[180];
        for (int k = 0; k < 180; k++) dl[k] = (gat_real)((k % 7) - 3) / 10;
        gat_gps_zero_grads(m);
        ck_assert_int_eq(gat_gps_backward(m, dl), GAT_OK);
        gat_real *g = gat_gps_grads(m, &P);
        if (!ref) {
            ref = malloc((P + 180) * sizeof *ref);
            ck_assert_ptr_nonnull(ref);
            memcpy(ref, g, P * sizeof *ref);
            memcpy(ref + P, y, 180 * sizeof *ref);
        } else {
            ck_assert_int_eq(memcmp(ref, g, P * sizeof *ref), 0);
            ck_assert_int_eq(memcmp(ref + P, y, 180 * sizeof *ref), 0);
        }
        gat_gps_free(m);
    }
    free(ref);
    toy_free(&t);
}
END_TEST

/* The engine's linear layer (gat-bn's GAT term: heads concatenated, no activation) against H
 * one-head output layers of the engine, each on its head's slice of the weights: the same
 * outputs, parameter gradients and (summed over the heads) input gradient. */
START_TEST(linear_layer_is_heads_side_by_side)
{
    enum { H = 3, Fo = 2, D = 5 };
    toy t;
    toy_make(&t, 3, D, 31);
    const gat_idx N = t.g.n;
    gat_real *h = malloc((size_t)N * D * sizeof *h), *out = malloc((size_t)N * H * Fo * sizeof *out),
             *one = malloc((size_t)N * Fo * sizeof *one), *dout = malloc((size_t)N * H * Fo *
                                                                             sizeof *dout),
             *dh = calloc((size_t)N * D, sizeof *dh), *dh1 = calloc((size_t)N * D, sizeof *dh1),
             *d1 = malloc((size_t)N * Fo * sizeof *d1);
    ck_assert(h && out && one && dout && dh && dh1 && d1);
    tu_uniform(h, (size_t)N * D, -1, 1, 3);
    tu_uniform(dout, (size_t)N * H * Fo, -1, 1, 4);
    /* concatenated layout: W (D, H Fo), a_src, a_dst (H, Fo), b (H Fo) */
    enum { W = 0, AS = D * H * Fo, AD = AS + H * Fo, B = AD + H * Fo, P = B + H * Fo };
    gat_real p[P], g[P] = {0};
    tu_uniform(p, P, -1, 1, 5);
    gat_i_gps_local cat;
    gat_i_gps_local_init(&cat, D, Fo, H, 1, W, AS, AD, B, 0.2, 0, 2);
    ck_assert_int_eq(gat_i_gps_local_forward(&cat, &t.g, h, p, 1, 1, out), GAT_OK);
    gat_i_gps_local_backward(&cat, p, g, dout, dh);
    for (int k = 0; k < H; k++) {
        /* head k alone: W_k (D, Fo), a_src_k, a_dst_k (Fo), b_k (Fo) */
        enum { W1 = 0, AS1 = D * Fo, AD1 = AS1 + Fo, B1 = AD1 + Fo, P1 = B1 + Fo };
        gat_real q[P1], gq[P1] = {0};
        for (int r = 0; r < D; r++)
            for (int f = 0; f < Fo; f++) q[W1 + r * Fo + f] = p[W + r * H * Fo + k * Fo + f];
        for (int f = 0; f < Fo; f++) {
            q[AS1 + f] = p[AS + k * Fo + f];
            q[AD1 + f] = p[AD + k * Fo + f];
            q[B1 + f] = p[B + k * Fo + f];
        }
        gat_i_gps_local s;
        gat_i_gps_local_init(&s, D, Fo, 1, 0, W1, AS1, AD1, B1, 0.2, 0, 1);
        ck_assert_int_eq(gat_i_gps_local_forward(&s, &t.g, h, q, 1, 1, one), GAT_OK);
        for (gat_idx i = 0; i < N; i++)
            for (int f = 0; f < Fo; f++) {
                ck_assert_double_eq_tol(one[i * Fo + f], out[(i * H + k) * Fo + f], 1e-12);
                d1[i * Fo + f] = dout[(i * H + k) * Fo + f];
            }
        gat_i_gps_local_backward(&s, q, gq, d1, dh1);
        for (int r = 0; r < D; r++)
            for (int f = 0; f < Fo; f++)
                ck_assert_double_eq_tol(gq[W1 + r * Fo + f], g[W + r * H * Fo + k * Fo + f], 1e-11);
        for (int f = 0; f < Fo; f++) {
            ck_assert_double_eq_tol(gq[AS1 + f], g[AS + k * Fo + f], 1e-11);
            ck_assert_double_eq_tol(gq[AD1 + f], g[AD + k * Fo + f], 1e-11);
            ck_assert_double_eq_tol(gq[B1 + f], g[B + k * Fo + f], 1e-11);
        }
        gat_i_gps_local_free(&s);
    }
    for (size_t e = 0; e < (size_t)N * D; e++) ck_assert_double_eq_tol(dh[e], dh1[e], 1e-11);
    gat_i_gps_local_free(&cat);
    free(h), free(out), free(one), free(dout), free(dh), free(dh1), free(d1);
    toy_free(&t);
}
END_TEST

/* Layer 0 of the engine on a dense input by BLAS (gat_i_fast.gemm0) against its kernels: the
 * same outputs, parameter gradients and input gradient (to rounding), heads concatenated and
 * averaged, a per-head width padded (Fo = 5 of 3 heads: Fp = 8). */
START_TEST(gemm_projection_matches_kernels)
{
    enum { D = 16, Fo = 5, H = 3 };
    toy t;
    toy_make(&t, 4, D, 51);
    const gat_idx N = t.g.n;
    const int concat = _i & 1, whole = _i >> 1;
    const size_t W = concat ? (size_t)H * Fo : Fo;
    /* a_src, a_dst (H, H Fo) with whole rows: the (H, Fo) layout uses the first H Fo of each */
    enum { PW = 0, AS = D * H * Fo, AD = AS + H * H * Fo, B = AD + H * H * Fo, P = B + H * Fo };
    gat_real p[P], g[2][P], *h = malloc((size_t)N * D * sizeof *h), *out[2], *dh[2],
                            *dout = malloc((size_t)N * W * sizeof *dout);
    ck_assert(h && dout);
    tu_uniform(p, P, -1, 1, 5);
    tu_uniform(h, (size_t)N * D, -1, 1, 6);
    tu_uniform(dout, (size_t)N * W, -1, 1, 7);
    const int64_t saved = gat_i_fast_gemm_min;
    for (int k = 0; k < 2; k++) {
        gat_i_fast_gemm_min = k ? 0 : INT64_MAX; /* k = 1: BLAS */
        out[k] = malloc((size_t)N * W * sizeof *out[k]);
        dh[k] = calloc((size_t)N * D, sizeof *dh[k]);
        ck_assert(out[k] && dh[k]);
        memset(g[k], 0, sizeof g[k]);
        gat_i_gps_local loc;
        gat_i_gps_local_init(&loc, D, Fo, H, concat, PW, AS, AD, B, 0.2, 0, 2);
        loc.L.whole = whole;
        ck_assert_int_eq(gat_i_gps_local_forward(&loc, &t.g, h, p, 1, 1, out[k]), GAT_OK);
        ck_assert_int_eq(loc.f->gemm_run, k);
        gat_i_gps_local_backward(&loc, p, g[k], dout, dh[k]);
        gat_i_gps_local_free(&loc);
    }
    gat_i_fast_gemm_min = saved;
    for (size_t e = 0; e < (size_t)N * W; e++)
        ck_assert_double_eq_tol(out[0][e], out[1][e], 1e-12);
    for (size_t e = 0; e < P; e++)
        ck_assert_double_eq_tol(g[0][e], g[1][e], 1e-11);
    for (size_t e = 0; e < (size_t)N * D; e++)
        ck_assert_double_eq_tol(dh[0][e], dh[1][e], 1e-12);
    for (int k = 0; k < 2; k++)
        free(out[k]), free(dh[k]);
    free(h), free(dout);
    toy_free(&t);
}
END_TEST

/* The GAT term with whole-row scores (gat_gps_config.whole_scores) against the formula, for H
 * heads of width Fo (Fo = 5 of 3 heads: Fp = 8, padded; 8 of 8: the kernels' shapes for eight
 * heads), averaged (concat 0) or concatenated (1): z = h W, s_src_ih = z_i . a_src_h and s_dst_ih
 * = z_i . a_dst_h + c_h over all H Fo columns of z_i (the bias c as gat_gps sets it), alpha_ijh =
 * softmax over i's in-neighbours j of LeakyReLU(s_src_jh + s_dst_ih), out_i = sum_j alpha_ijh z_jh
 * per head h (concatenated, or averaged) + b. */
static void whole_scores_case(int H, int Fo, int concat)
{
    enum { D = 4 };
    const int HF = H * Fo;
    toy t;
    toy_make(&t, 3, D, 61);
    const gat_idx N = t.g.n;
    const size_t W = concat ? (size_t)HF : (size_t)Fo, PW = 0, AS = (size_t)D * HF,
                 AD = AS + (size_t)H * HF, B = AD + (size_t)H * HF, C = B + (size_t)HF,
                 P = C + (size_t)H;
    gat_real *p = malloc(P * sizeof *p), *h = malloc((size_t)N * D * sizeof *h),
             *out = malloc((size_t)N * W * sizeof *out);
    double *z = malloc((size_t)N * HF * sizeof *z), *ss = malloc((size_t)N * H * sizeof *ss),
           *sd = malloc((size_t)N * H * sizeof *sd), *agg = malloc((size_t)HF * sizeof *agg);
    ck_assert(p && h && out && z && ss && sd && agg);
    tu_uniform(p, P, -1, 1, 5);
    tu_uniform(h, (size_t)N * D, -1, 1, 6);
    gat_i_gps_local loc;
    gat_i_gps_local_init(&loc, D, Fo, H, concat, PW, AS, AD, B, 0.2, 0, 2);
    loc.L.whole = 1, loc.L.score_bias = 2, loc.L.sb = C;
    ck_assert_int_eq(gat_i_gps_local_forward(&loc, &t.g, h, p, 1, 1, out), GAT_OK);
    for (gat_idx i = 0; i < N; i++) {
        for (int c = 0; c < HF; c++) {
            z[i * HF + c] = 0;
            for (int r = 0; r < D; r++)
                z[i * HF + c] += h[i * D + r] * p[PW + r * HF + c];
        }
        for (int k = 0; k < H; k++) {
            ss[i * H + k] = 0, sd[i * H + k] = p[C + k];
            for (int c = 0; c < HF; c++) {
                ss[i * H + k] += z[i * HF + c] * p[AS + k * HF + c];
                sd[i * H + k] += z[i * HF + c] * p[AD + k * HF + c];
            }
        }
    }
    int differs = 0; /* the whole rows' scores are not each head's slice's */
    for (gat_idx i = 0; i < N; i++) {
        for (int c = 0; c < HF; c++)
            agg[c] = 0;
        for (int k = 0; k < H; k++) {
            double mx = -INFINITY, sum = 0, slice = 0;
            for (gat_idx e = t.g.rowptr[i]; e < t.g.rowptr[i + 1]; e++) {
                const double v = ss[t.g.col[e] * H + k] + sd[i * H + k];
                mx = fmax(mx, v > 0 ? v : 0.2 * v);
            }
            for (gat_idx e = t.g.rowptr[i]; e < t.g.rowptr[i + 1]; e++) {
                const double v = ss[t.g.col[e] * H + k] + sd[i * H + k];
                sum += exp((v > 0 ? v : 0.2 * v) - mx);
            }
            for (gat_idx e = t.g.rowptr[i]; e < t.g.rowptr[i + 1]; e++) {
                const gat_idx j = t.g.col[e];
                const double v = ss[j * H + k] + sd[i * H + k],
                             a = exp((v > 0 ? v : 0.2 * v) - mx) / sum;
                for (int f = 0; f < Fo; f++)
                    agg[k * Fo + f] += a * z[j * HF + k * Fo + f];
            }
            for (int f = 0; f < Fo; f++)
                slice += z[i * HF + k * Fo + f] * p[AS + k * Fo + f];
            differs |= fabs(slice - ss[i * H + k]) > 1e-3;
        }
        for (size_t w = 0; w < W; w++) {
            double ref = p[B + w];
            if (concat)
                ref += agg[w];
            else
                for (int k = 0; k < H; k++)
                    ref += agg[k * Fo + w] / H;
            ck_assert_double_eq_tol(out[i * W + w], ref, 1e-12);
        }
    }
    ck_assert(differs);
    gat_i_gps_local_free(&loc);
    free(p), free(h), free(out), free(z), free(ss), free(sd), free(agg);
    toy_free(&t);
}

START_TEST(whole_scores_by_hand)
{
    whole_scores_case(3, 5, _i);
    whole_scores_case(8, 8, _i);
}
END_TEST

/* m's tensor called name. */
static const gat_model_tensor *tensor_of(const gat_gps *m, const char *name)
{
    int n;
    const gat_model_tensor *t = gat_gps_tensors(m, &n);
    for (int k = 0; k < n; k++)
        if (!strcmp(t[k].name, name)) return &t[k];
    ck_abort_msg("no tensor %s", name);
    return NULL;
}

/* The offset of m's tensor called name. */
static size_t tensor_at(const gat_gps *m, const char *name)
{
    return tensor_of(m, name)->offset;
}

/* linear_init 1 (PyTorch's nn.Linear defaults): each tensor of m called name is U(-b, b) with b
 * = 1 / sqrt(fan_in) (its largest value within b and above b / 2: many draws), or (fan_in 0) all
 * equal to v. */
static void check_init(const gat_gps *m, const char *name, double fan_in, double v)
{
    const gat_model_tensor *t = tensor_of(m, name);
    size_t P;
    const gat_real *p = gat_gps_params((gat_gps *)m, &P) + t->offset;
    double mx = 0;
    for (size_t e = 0; e < t->size; e++) {
        if (fan_in == 0) ck_assert_msg(p[e] == v, "%s[%zu] = %g, want %g", name, e, p[e], v);
        mx = fmax(mx, fabs(p[e]));
    }
    if (fan_in > 0)
        ck_assert_msg(mx <= 1 / sqrt(fan_in) && mx > 0.5 / sqrt(fan_in), "%s: largest %g, bound %g",
                      name, mx, 1 / sqrt(fan_in));
}

/* The initial values of linear_init 1: every linear map's weight and bias from its fan-in (the
 * scores' vectors as nn.Linear(width, heads), their bias as attn_linear_u's, the attention's
 * projections, the MLPs', the readout gate's), the norms' gains 1 and biases 0. */
START_TEST(pytorch_init)
{
    enum { F = 40, D = 32, H = 4, C = 3 };
    gat_gps_config c;
    gat_gps_config_default(&c, F, C);
    c.dim = D, c.heads = H, c.linear_init = 1;
    for (int k = 0; k < 3; k++) {
        c.kind = k == 0 ? GAT_GPS_HYBRID : k == 1 ? GAT_GPS_FFN : GAT_GPS_BN;
        c.whole_scores = k > 0, c.task = k == 2 ? GAT_TASK_GRAPH : GAT_TASK_NODE;
        if (k == 2) c.readout = GAT_READOUT_ATTENTION, c.readout_heads = 2, c.classifier_layers = 1;
        gat_gps *m;
        ck_assert_int_eq(gat_gps_create(&m, &c, 9), GAT_OK);
        check_init(m, "input.weight", F, 0);
        check_init(m, "input.bias", F, 0);
        check_init(m, "layer1.gat.weight", D, 0);
        check_init(m, "layer1.gat.bias", D, 0);
        /* a head's vector over its slice (gps: D each), or over the whole row */
        check_init(m, "layer1.gat.att_src", D, 0);
        if (k > 0) check_init(m, "layer0.gat.att_bias", D, 0);
        if (k == 0) {
            check_init(m, "layer0.attn.query", D, 0);
            check_init(m, "layer0.attn.query_bias", D, 0);
            check_init(m, "layer1.mlp.weight2", 2 * D, 0);
            check_init(m, "layer1.mlp.bias2", 2 * D, 0);
            check_init(m, "layer1.norm2.gain", 0, 1);
            check_init(m, "layer1.norm2.bias", 0, 0);
        }
        if (k == 1) {
            check_init(m, "layer0.ffn.bias1", D, 0);
            check_init(m, "layer0.norm.gain", 0, 1);
            check_init(m, "output_norm.bias", 0, 0);
        }
        if (k == 2) {
            check_init(m, "layer0.bn.bias", 0, 0);
            check_init(m, "layer0.bn.running_var", 0, 1);
            check_init(m, "layer0.bn.running_mean", 0, 0);
            check_init(m, "readout.gate_bias", D, 0);
            check_init(m, "classifier.hidden0.bias",
                       tensor_of(m, "classifier.hidden0.weight")->shape[0], 0);
        }
        if (k == 2)
            check_init(m, "classifier.bias", tensor_of(m, "classifier.weight")->shape[0], 0);
        else
            check_init(m, "output.bias", D, 0);
        gat_gps_free(m);
    }
    /* linear_init 0: glorot weights, zero biases, as before */
    c.linear_init = 0;
    gat_gps *m;
    ck_assert_int_eq(gat_gps_create(&m, &c, 9), GAT_OK);
    check_init(m, "input.bias", 0, 0);
    check_init(m, "layer0.gat.att_bias", 0, 0);
    gat_gps_free(m);
}
END_TEST

/* Kind gat-ffn by hand, one layer with W_1 = 0 (the block's output then does not depend on the
 * GAT term): h0 = GELU(x W_in + b_in), h1 = h0 + GELU(b_1) W_2 + b_2, logits = LN_out(h1) W_out +
 * b_out, with GELU(v) = v Phi(v) from erf and LN's gain and bias applied. */
START_TEST(ffn_block_by_hand)
{
    enum { D = 4, F = 3, C = 2 };
    toy t;
    toy_make(&t, 2, F, 41);
    gat_gps_config c;
    gat_gps_config_default(&c, F, C);
    c.kind = GAT_GPS_FFN, c.dim = D, c.heads = 2, c.layers = 1, c.dropout = 0.5;
    gat_gps *m;
    ck_assert_int_eq(gat_gps_create(&m, &c, 3), GAT_OK);
    size_t P;
    gat_real *p = gat_gps_params(m, &P);
    gat_real *noise = malloc(P * sizeof *noise);
    ck_assert_ptr_nonnull(noise);
    tu_uniform(noise, P, -0.5, 0.5, 8);
    for (size_t e = 0; e < P; e++)
        p[e] += noise[e];
    free(noise);
    const size_t w1 = tensor_at(m, "layer0.ffn.weight1");
    for (int e = 0; e < D * D; e++)
        p[w1 + e] = 0;
    const gat_real *win = p + tensor_at(m, "input.weight"), *bin = p + tensor_at(m, "input.bias"),
                   *b1 = p + tensor_at(m, "layer0.ffn.bias1"),
                   *w2 = p + tensor_at(m, "layer0.ffn.weight2"),
                   *b2 = p + tensor_at(m, "layer0.ffn.bias2"),
                   *og = p + tensor_at(m, "output_norm.gain"),
                   *ob = p + tensor_at(m, "output_norm.bias"),
                   *wo = p + tensor_at(m, "output.weight"), *bo = p + tensor_at(m, "output.bias");
    const gat_idx one[2] = {0, t.g.n};
    const gat_real *y;
    ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 1, one, 0, &y), GAT_OK); /* no dropout */
    double blk[D];
    for (int d = 0; d < D; d++) {
        blk[d] = b2[d];
        for (int r = 0; r < D; r++) {
            const double v = b1[r];
            blk[d] += v * 0.5 * (1 + erf(v / sqrt(2.0))) * w2[r * D + d];
        }
    }
    for (gat_idx i = 0; i < t.g.n; i++) {
        double h[D], mu = 0, var = 0;
        for (int d = 0; d < D; d++) {
            double v = bin[d];
            for (gat_idx e = t.x.rowptr[i]; e < t.x.rowptr[i + 1]; e++)
                v += t.x.val[e] * win[t.x.col[e] * D + d];
            h[d] = v * 0.5 * (1 + erf(v / sqrt(2.0))) + blk[d];
            mu += h[d] / D;
        }
        for (int d = 0; d < D; d++)
            var += (h[d] - mu) * (h[d] - mu) / D;
        for (int k = 0; k < C; k++) {
            double z = bo[k];
            for (int d = 0; d < D; d++)
                z += (og[d] * (h[d] - mu) / sqrt(var + 1e-5) + ob[d]) * wo[d * C + k];
            ck_assert_double_eq_tol(y[i * C + k], z, 1e-12);
        }
    }
    gat_gps_free(m);
    toy_free(&t);
}
END_TEST

/* Kind gat-bn's batch norm. A training forward moves the running statistics 0.1 of the way to
 * the batch's mean and unbiased variance (so after one, mean = 10 running_mean and the unbiased
 * variance = 10 (running_var - 0.9)); an inference forward uses them and changes nothing; with
 * them set to the batch's mean and biased variance, inference gives the training forward's
 * logits. The optimiser's prefix stops before them. */
START_TEST(batchnorm_statistics)
{
    toy t;
    toy_make(&t, 6, 5, 21);
    gat_gps_config c;
    gat_gps_config_default(&c, 5, 3);
    c.task = GAT_TASK_GRAPH, c.kind = GAT_GPS_BN, c.dim = 8, c.heads = 2, c.layers = 3;
    c.dropout = 0, c.residual = 1, c.last_heads = 1, c.readout = GAT_READOUT_SUM;
    gat_gps *m;
    ck_assert_int_eq(gat_gps_create(&m, &c, 4), GAT_OK);
    size_t P;
    gat_real *p = gat_gps_params(m, &P);
    int nt;
    const gat_model_tensor *ts = gat_gps_tensors(m, &nt);
    ck_assert_uint_eq(gat_gps_trainable(m), P - 2 * 3 * 8);
    const gat_model_tensor *rm[3], *rv[3];
    for (int l = 0; l < 3; l++) {
        char a[40], b[40];
        snprintf(a, sizeof a, "layer%d.bn.running_mean", l);
        snprintf(b, sizeof b, "layer%d.bn.running_var", l);
        rm[l] = rv[l] = NULL;
        for (int k = 0; k < nt; k++) {
            if (!strcmp(ts[k].name, a)) rm[l] = &ts[k];
            if (!strcmp(ts[k].name, b)) rv[l] = &ts[k];
        }
        ck_assert_ptr_nonnull(rm[l]);
        ck_assert_ptr_nonnull(rv[l]);
        ck_assert(rm[l]->offset >= gat_gps_trainable(m) && rv[l]->offset >= gat_gps_trainable(m));
        for (size_t e = 0; e < 8; e++) {
            ck_assert(p[rm[l]->offset + e] == 0);
            ck_assert(p[rv[l]->offset + e] == 1);
        }
    }
    const gat_real *y;
    gat_real train_y[18], before[48], after[48];
    ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 6, t.seg, 1, &y), GAT_OK);
    memcpy(train_y, y, sizeof train_y);
    memcpy(before, p + rm[0]->offset, sizeof before); /* the six stat tensors are contiguous */
    ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 6, t.seg, 0, &y), GAT_OK);
    ck_assert_mem_eq(before, p + rm[0]->offset, sizeof before);
    int moved = 0;
    for (int l = 0; l < 3; l++)
        for (size_t e = 0; e < 8; e++) {
            gat_real *mu = p + rm[l]->offset + e, *var = p + rv[l]->offset + e;
            moved += *mu != 0;
            *mu *= 10;
            *var = (*var - (gat_real)0.9) * 10 * (t.g.n - 1) / t.g.n; /* biased */
            ck_assert(*var > 0);
        }
    ck_assert_int_ge(moved, 20);
    ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 6, t.seg, 0, &y), GAT_OK);
    double worst = 0;
    for (int k = 0; k < 18; k++) worst = fmax(worst, fabs(y[k] - train_y[k]));
    ck_assert_msg(worst < 1e-9, "inference with the batch's statistics differs by %g", worst);
    /* a second training forward: 0.19 of the way (the batch is the same) */
    memcpy(after, p + rm[0]->offset, sizeof after);
    ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 6, t.seg, 1, &y), GAT_OK);
    for (size_t e = 0; e < 8; e++) {
        const double mu = after[e]; /* layer 0: its input does not depend on the statistics */
        ck_assert(fabs(p[rm[0]->offset + e] - (0.9 * mu + 0.1 * mu)) < 1e-12 * (1 + fabs(mu)));
    }
    gat_gps_free(m);
    toy_free(&t);
}
END_TEST

/* gat_gps_graph_train runs the graph trainers' schedules (as gat_graph_train, test_graphs.c): the
 * plateau schedule ends training below min_lr, the step schedule likewise, keep_last ends with
 * the last epoch's model and figures. */
START_TEST(graph_schedule)
{
    gat_dataset ds;
    tu_graph_set(&ds, 40, 4, 5);
    gat_idx *fold = malloc((size_t)ds.n_graphs * sizeof *fold);
    uint8_t *split = malloc((size_t)ds.n_graphs);
    ck_assert_ptr_nonnull(fold);
    ck_assert_ptr_nonnull(split);
    ck_assert_int_eq(gat_graph_folds(ds.graph_labels, ds.n_graphs, 2, 5, 1, fold), GAT_OK);
    ck_assert_int_eq(gat_graph_fold_split(fold, ds.n_graphs, 5, 0, split), GAT_OK);
    gat_gps_config c;
    gat_gps_config_default(&c, 4, 2);
    /* not gat-bn: its running statistics move the validation loss whatever the lr */
    c.task = GAT_TASK_GRAPH, c.kind = GAT_GPS_LOCAL, c.dim = 8, c.heads = 2;
    c.readout = GAT_READOUT_MEAN, c.classifier_layers = 1;
    gat_gps *m;
    ck_assert_int_eq(gat_gps_create(&m, &c, 3), GAT_OK);
    gat_train_config tc;
    gat_train_result res;
    gat_train_config_default(&tc);
    tc.max_epochs = 100, tc.patience = 100, tc.batch_size = 8, tc.seed = 1;
    tc.adam.lr = 1e-9;
    tc.lr_factor = 0.5, tc.lr_patience = 0, tc.min_lr = 3e-10;
    ck_assert_msg(gat_gps_graph_train(m, &ds, split, &tc, &res) == GAT_OK, "%s",
                  gat_last_error());
    ck_assert_int_eq(res.epochs, 3);
    tc.lr_step = 2, tc.lr_patience = 1000;
    ck_assert_msg(gat_gps_graph_train(m, &ds, split, &tc, &res) == GAT_OK, "%s",
                  gat_last_error());
    ck_assert_int_eq(res.epochs, 5);
    tc.lr_step = 0, tc.lr_patience = 0;
    tc.keep_last = 1, tc.min_lr = 0, tc.max_epochs = 4, tc.adam.lr = 0.01;
    ck_assert_msg(gat_gps_graph_train(m, &ds, split, &tc, &res) == GAT_OK, "%s",
                  gat_last_error());
    ck_assert_int_eq(res.epochs, 4);
    ck_assert_int_eq(res.best_epoch, 4);
    double acc;
    ck_assert_int_eq(gat_gps_graph_evaluate(m, &ds, split, GAT_SPLIT_TEST, NULL, &acc, NULL),
                     GAT_OK);
    ck_assert_double_eq(acc, res.test_acc);
    tc.keep_last = 2;
    ASSERT_FAILS(gat_gps_graph_train(m, &ds, split, &tc, &res), GAT_EINVAL,
                 "gat_gps_graph_train: batch_size = 8, keep_last = 2");
    tc.keep_last = 0, tc.lr_factor = 1;
    ASSERT_FAILS(gat_gps_graph_train(m, &ds, split, &tc, &res), GAT_EINVAL, "lr_factor = 1");
    gat_gps_free(m);
    free(fold), free(split);
    gat_dataset_destroy(&ds);
}
END_TEST

/* Stops after epoch *user (0: never). */
static int stop_after(const gat_epoch_info *e, void *user)
{
    return *(const int *)user && e->epoch == *(const int *)user;
}

/* gat_gps_graph_train's checkpoints (as gat_graph_train's, test_graphs.c): a run of a model
 * with dropout and batch norm, on shuffled batches, the step schedule and keep_last, stopped
 * after epoch 4 and resumed, ends with the parameters and figures of the run never stopped. */
START_TEST(graph_checkpoint)
{
    gat_dataset ds;
    tu_graph_set(&ds, 40, 4, 5);
    gat_idx *fold = malloc((size_t)ds.n_graphs * sizeof *fold);
    uint8_t *split = malloc((size_t)ds.n_graphs);
    ck_assert_int_eq(gat_graph_folds(ds.graph_labels, ds.n_graphs, 2, 5, 1, fold), GAT_OK);
    ck_assert_int_eq(gat_graph_fold_split(fold, ds.n_graphs, 5, 0, split), GAT_OK);
    gat_gps_config c;
    gat_gps_config_default(&c, 4, 2);
    c.task = GAT_TASK_GRAPH, c.dim = 8, c.heads = 2, c.dropout = 0.2;
    c.readout = GAT_READOUT_MEAN, c.classifier_layers = 1;
    char *dir = tu_tmpdir(), ck[512];
    snprintf(ck, sizeof ck, "%s/gps.ckpt", dir);
    gat_train_config tc;
    gat_train_result r[3];
    gat_real *p[3];
    size_t P;
    int stop = 0;
    gat_train_config_default(&tc);
    tc.max_epochs = 10, tc.patience = 100, tc.batch_size = 8, tc.seed = 1, tc.adam.lr = 0.01;
    tc.lr_factor = 0.5, tc.lr_step = 3, tc.keep_last = 1;
    tc.progress = stop_after, tc.user = &stop;
    for (int k = 0; k < 3; k++) {
        gat_gps *m;
        ck_assert_int_eq(gat_gps_create(&m, &c, 3), GAT_OK);
        stop = k == 1 ? 4 : 0;
        tc.checkpoint = k ? ck : NULL;
        tc.resume = k == 2 ? ck : NULL;
        ck_assert_int_eq(gat_gps_graph_train(m, &ds, split, &tc, &r[k]),
                         k == 1 ? GAT_EINTERRUPTED : GAT_OK);
        const gat_real *q = gat_gps_params(m, &P);
        p[k] = malloc(P * sizeof *p[k]);
        memcpy(p[k], q, P * sizeof *q);
        gat_gps_free(m);
    }
    ck_assert_int_eq(r[1].epochs, 4);
    ck_assert_int_eq(r[2].epochs, r[0].epochs);
    ck_assert_int_eq(r[2].best_epoch, r[0].best_epoch);
    ck_assert(r[2].val_loss == r[0].val_loss && r[2].test_acc == r[0].test_acc);
    ck_assert_int_eq(memcmp(p[0], p[2], P * sizeof *p[0]), 0);
    ck_assert_int_ne(memcmp(p[0], p[1], P * sizeof *p[0]), 0);
    for (int k = 0; k < 3; k++)
        free(p[k]);
    tu_rmtree(dir);
    free(dir), free(fold), free(split);
    gat_dataset_destroy(&ds);
}
END_TEST

/* The attention readout with a zero gate (every score 0: uniform weights over each graph's nodes)
 * is the mean readout: a model of each on the same other parameters (copied by tensor name)
 * gives the same logits, to rounding; with K heads the classifier reads the K copies side by
 * side, so K = 2 with the classifier's rows halved is the mean model again. */
START_TEST(attention_readout_wiring)
{
    toy t;
    toy_make(&t, 6, 5, 21);
    for (int K = 1; K <= 2; K++) {
        gat_gps_config c;
        gat_gps_config_default(&c, 5, 3);
        c.task = GAT_TASK_GRAPH, c.kind = GAT_GPS_BN, c.dim = 8, c.heads = 2, c.dropout = 0;
        c.readout = GAT_READOUT_MEAN;
        gat_gps *mean, *att;
        ck_assert_int_eq(gat_gps_create(&mean, &c, 3), GAT_OK);
        c.readout = GAT_READOUT_ATTENTION, c.readout_heads = K;
        ck_assert_int_eq(gat_gps_create(&att, &c, 4), GAT_OK);
        int nm, na;
        const gat_model_tensor *tm = gat_gps_tensors(mean, &nm), *ta = gat_gps_tensors(att, &na);
        gat_real *pm = gat_gps_params(mean, NULL), *pa = gat_gps_params(att, NULL);
        ck_assert_int_eq(na, nm + 3);
        for (int k = 0; k < na; k++) {
            const gat_model_tensor *a = &ta[k];
            if (!strncmp(a->name, "readout.", 8)) {
                if (strcmp(a->name, "readout.gate_att") != 0)
                    memset(pa + a->offset, 0, a->size * sizeof *pa);
                continue;
            }
            int j = 0;
            while (j < nm && strcmp(tm[j].name, a->name) != 0)
                j++;
            ck_assert_msg(j < nm, "%s: not in the mean model", a->name);
            if (!strcmp(a->name, "classifier.weight")) { /* (K D, C): each head's rows / K */
                ck_assert_uint_eq(a->size, (size_t)K * tm[j].size);
                for (size_t e = 0; e < a->size; e++)
                    pa[a->offset + e] = pm[tm[j].offset + e % tm[j].size] / (gat_real)K;
                continue;
            }
            ck_assert_uint_eq(a->size, tm[j].size);
            memcpy(pa + a->offset, pm + tm[j].offset, a->size * sizeof *pa);
        }
        const gat_real *ym, *ya;
        gat_real want[18];
        ck_assert_int_eq(gat_gps_forward(mean, &t.g, &t.x, 6, t.seg, 0, &ym), GAT_OK);
        memcpy(want, ym, sizeof want);
        ck_assert_int_eq(gat_gps_forward(att, &t.g, &t.x, 6, t.seg, 0, &ya), GAT_OK);
        for (int k = 0; k < 18; k++)
            ck_assert_msg(fabs(ya[k] - want[k]) < 1e-12, "K = %d, logit %d: %g, mean readout %g", K,
                          k, (double)ya[k], (double)want[k]);
        gat_gps_free(mean);
        gat_gps_free(att);
    }
    toy_free(&t);
}
END_TEST

START_TEST(bad_config)
{
    gat_gps_config c;
    gat_gps *m = (gat_gps *)1;
    gat_gps_config_default(&c, 5, 2);
    c.heads = 3;
    ASSERT_FAILS(gat_gps_create(&m, &c, 1), GAT_EINVAL, "heads = 3, expected a divisor of dim = 64");
    ck_assert_ptr_null(m);
    gat_gps_config_default(&c, 5, 2);
    c.task = GAT_TASK_GRAPH, c.readout = GAT_READOUT_ATTENTION;
    c.readout = (gat_readout)7;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL, "readout = 7 is not a gat_readout");
    c.readout = GAT_READOUT_MEAN, c.readout_heads = 2;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL,
                 "readout_heads = 2: only the attention readout of a graph task has a gate");
    c.readout = GAT_READOUT_ATTENTION, c.readout_heads = GAT_MAX_HEADS + 1;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL, "readout_heads = ");
    c.readout_heads = 0, c.readout_hidden = -1;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL, "readout_hidden = -1, expected 0 (dim)");
    c.task = GAT_TASK_NODE, c.readout_hidden = 4;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL,
                 "readout_hidden = 4: only the attention readout of a graph task has a gate");
    gat_gps_config_default(&c, 5, 2);
    c.dropout = 1;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL, "dropout = 1");
    gat_gps_kind k;
    ASSERT_FAILS(gat_gps_kind_from_name("gpt", &k), GAT_EINVAL, "unknown layer kind 'gpt'");
    ck_assert_int_eq(gat_gps_kind_from_name("Transformer", &k), GAT_OK);
    ck_assert_int_eq(k, GAT_GPS_GLOBAL);
    ck_assert_int_eq(gat_gps_kind_from_name("gat-bn", &k), GAT_OK);
    ck_assert_int_eq(k, GAT_GPS_BN);
    ck_assert_str_eq(gat_gps_kind_name(GAT_GPS_BN), "gat-bn");
    gat_gps_config_default(&c, 5, 2);
    c.last_heads = 2;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL,
                 "last_heads = 2: only kind gat-bn has a head count of its own");
    c.kind = GAT_GPS_BN, c.last_heads = 5;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL,
                 "last_heads = 5, expected 0 or a divisor of dim = 64");
    c.last_heads = 0, c.residual = 2;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL, "residual = 2");
    c.kind = GAT_GPS_LOCAL, c.residual = 1;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL, "residual = 1: expected 0, or 1 with kind "
                                                       "gat-bn");
    c.residual = 0, c.anchors = 8;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL,
                 "anchors = 8: kind gat-mlp has no global attention");
    gat_gps_config_default(&c, 5, 2);
    c.classifier_layers = 1;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL,
                 "classifier_layers = 1: a node model's output is linear");
    c.task = GAT_TASK_GRAPH, c.dim = 4, c.heads = 2, c.classifier_layers = 3;
    ASSERT_FAILS(gat_gps_config_check(&c), GAT_EINVAL,
                 "classifier_layers = 3, expected 0..4 with R / 2^classifier_layers >= 1 (R = 4,");
    c.readout = GAT_READOUT_ATTENTION, c.readout_heads = 2; /* R = 8: 3 hidden layers fit */
    ck_assert_int_eq(gat_gps_config_check(&c), GAT_OK);
    c.readout = GAT_READOUT_SUM, c.readout_heads = 0;
    /* segments that split a graph's edges, and a backward without a training forward */
    toy t;
    toy_make(&t, 2, 5, 1);
    gat_gps_config_default(&c, 5, 2);
    c.dim = 8;
    ck_assert_int_eq(gat_gps_create(&m, &c, 1), GAT_OK);
    const gat_idx bad[3] = {0, 2, t.g.n};
    const gat_real *y;
    ASSERT_FAILS(gat_gps_forward(m, &t.g, &t.x, 2, bad, 0, &y), GAT_EINVAL, "joins segments");
    ck_assert_int_eq(gat_gps_forward(m, &t.g, &t.x, 2, t.seg, 0, &y), GAT_OK);
    gat_real dl[64] = {0};
    ASSERT_FAILS(gat_gps_backward(m, dl), GAT_EINVAL, "not a training forward");
    /* the training configuration: gat_train's checks of the loop's fields, named by the call */
    gat_train_config tc;
    gat_dataset ds = {0};
    const uint8_t split[1] = {GAT_SPLIT_TRAIN};
    gat_train_config_default(&tc);
    tc.patience = 0;
    ASSERT_FAILS(gat_gps_train(m, &ds, &tc, NULL), GAT_EINVAL, "gat_gps_train: patience = 0");
    gat_train_config_default(&tc);
    tc.eval_every = -1;
    ASSERT_FAILS(gat_gps_graph_train(m, &ds, split, &tc, NULL), GAT_EINVAL,
                 "gat_gps_graph_train: eval_every = -1");
    gat_gps_free(m);
    toy_free(&t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gps");
    TCase *tc = tcase_create("gradients");
    tcase_add_test(tc, gradient_node_kinds);
    tcase_add_test(tc, gradient_graph_and_anchors);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    tc = tcase_create("segments");
    tcase_add_test(tc, no_leak_between_graphs);
    tcase_add_loop_test(tc, threads_identical, 0, 5);
    tcase_add_test(tc, attention_readout_wiring);
    tcase_add_test(tc, batchnorm_statistics);
    tcase_add_test(tc, linear_layer_is_heads_side_by_side);
    tcase_add_test(tc, ffn_block_by_hand);
    tcase_add_loop_test(tc, gemm_projection_matches_kernels, 0, 4);
    tcase_add_loop_test(tc, whole_scores_by_hand, 0, 2);
    tcase_add_test(tc, graph_schedule);
    tcase_add_test(tc, graph_checkpoint);
    tcase_add_test(tc, pytorch_init);
    tcase_add_test(tc, bad_config);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
