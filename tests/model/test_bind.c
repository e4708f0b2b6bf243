/* Check suite "bind": explicit binding of graph and features (gat_model_bind): checks and
 * messages, rebinding after in-place edits (nothing derived stays stale), reuse of the caches'
 * memory for inputs that fit (allocation counts) and growth for larger ones, implicit binding by
 * forwards on other inputs, allocation failures; gat_model_kernels; inference bindings
 * (GAT_BIND_INFERENCE: layer-wise inference in row chunks) against ordinary ones; trimmed layers
 * on sampled blocks (a block's hops in the binding) against untrimmed ones. */
#include "testutil.h"
#include "core/core.h"
#include "gat/sample.h"
#include "gat/train.h"
#include "model/fast_i.h"
#include "model/model_i.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const gat_idx F = 24, C = 4;

/* A model of the small test shape: 2 layers, 4 heads x 8, 2 output heads, no dropout (so that
 * models with different step counters compute the same function), one thread. */
static gat_model *make_model(gat_score score, int residual)
{
    gat_model_config cfg;
    gat_model *m = NULL;
    gat_model_config_default(&cfg, F, C);
    cfg.heads = 4;
    cfg.hidden = 8;
    cfg.out_heads = 2;
    cfg.in_dropout = cfg.att_dropout = 0;
    cfg.score = score;
    cfg.residual = residual;
    ck_assert_int_eq(tu_model_create(&m, &cfg, 11), GAT_OK);
    gat_model_set_threads(m, 1);
    return m;
}

/* The configurations the rebinding tests run: gat, two other scores, gat with residual
 * connections (each its own cache layout in the engine). */
static const struct {
    gat_score score;
    int residual;
} configs[] = {{GAT_SCORE_GAT, 0}, {GAT_SCORE_DOT, 0}, {GAT_SCORE_GATV2, 0}, {GAT_SCORE_GAT, 1}};

/* Logits (n, C) and gradients after one training forward and backward of m on (g, x) with
 * dlogits = a fixed pattern; out buffers caller-owned. */
static void forward_backward(gat_model *m, const gat_graph *g, const gat_csr *x, gat_real *logits,
                             gat_real *grads)
{
    const gat_real *lg;
    size_t P;
    const size_t n = (size_t)g->n * C;
    gat_real *d = malloc(n * sizeof *d);
    ck_assert_ptr_nonnull(d);
    tu_uniform(d, n, -1, 1, 3);
    ck_assert_int_eq(gat_model_forward(m, g, x, 1, &lg), GAT_OK);
    memcpy(logits, lg, n * sizeof *lg);
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    const gat_real *gm = gat_model_grads(m, &P);
    memcpy(grads, gm, P * sizeof *grads);
    free(d);
}

/* A fresh model's logits and gradients on (g, x), compared with got_* (tolerance: the same
 * kernels on the same inputs, up to summation order). */
static void assert_like_fresh(gat_score score, int residual, const gat_graph *g, const gat_csr *x,
                              const gat_real *got_logits, const gat_real *got_grads,
                              const char *what)
{
    gat_model *fresh = make_model(score, residual);
    size_t P;
    gat_model_params(fresh, &P);
    gat_real *lg = malloc((size_t)g->n * C * sizeof *lg), *gr = malloc(P * sizeof *gr);
    ck_assert_ptr_nonnull(lg);
    ck_assert_ptr_nonnull(gr);
    forward_backward(fresh, g, x, lg, gr);
    size_t at;
    const double el = tu_max_rel_err(got_logits, lg, (size_t)g->n * C, 1e-3, NULL);
    const double eg = tu_max_rel_err(got_grads, gr, P, 1e-3, &at);
    ck_assert_msg(el < 1e-4 && eg < 1e-4, "%s (score %s, residual %d): logits differ by %g, "
                  "gradients by %g (at %zu of %zu: %g, fresh %g) from a fresh model's", what,
                  gat_score_name(score), residual, el, eg, at, P, (double)got_grads[at],
                  (double)gr[at]);
    free(lg);
    free(gr);
    gat_model_free(fresh);
}

/* Features edited in place (same arrays, same sparsity, new values) and rebound are what the
 * next forward and backward use: logits and gradients (the weight gradient reads the features'
 * transpose, a derived cache) equal a fresh model's on the new values. */
START_TEST(rebind_features_edited_in_place)
{
    gat_graph g;
    gat_csr x;
    tu_graph_skewed(&g, 60, 120, GAT_GRAPH_SYMMETRIZE, 5);
    tu_features(&x, g.n, F, 0.2, 6);
    gat_model *m = make_model(configs[_i].score, configs[_i].residual);
    size_t P;
    gat_model_params(m, &P);
    gat_real *lg = malloc((size_t)g.n * C * sizeof *lg), *gr = malloc(P * sizeof *gr);
    ck_assert_int_eq(gat_model_bind(m, &g, &x, 0), GAT_OK);
    forward_backward(m, &g, &x, lg, gr);
    /* new values and a new pattern, same arrays and sizes: x'[i, F-1-c] = 3 - 5 k x[i, c] */
    const size_t nnz = (size_t)x.rowptr[x.rows];
    for (size_t k = 0; k < nnz; k++) x.val[k] = (gat_real)(3.0 - 5.0 * x.val[k] * (double)(k % 7));
    for (gat_idx i = 0; i < x.rows; i++)
        for (gat_idx a = x.rowptr[i], b = x.rowptr[i + 1] - 1; a < b; a++, b--) {
            const gat_idx c = x.col[a];
            const gat_real v = x.val[a];
            x.col[a] = x.col[b], x.val[a] = x.val[b];
            x.col[b] = c, x.val[b] = v;
        }
    for (size_t k = 0; k < nnz; k++) x.col[k] = F - 1 - x.col[k];
    ck_assert_int_eq(gat_csr_check(&x), GAT_OK);
    ck_assert_int_eq(gat_model_bind(m, &g, &x, 0), GAT_OK);
    forward_backward(m, &g, &x, lg, gr);
    assert_like_fresh(configs[_i].score, configs[_i].residual, &g, &x, lg, gr,
                      "rebound after editing features");
    free(lg);
    free(gr);
    gat_model_free(m);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* Two graphs of the same n and E: the first's arrays overwritten with the second's (a new graph
 * at the same addresses and sizes), then rebound: the model computes on the new structure, also
 * in a restricted forward whose row list it has seen before (the fused path plans those rows
 * from the graph). */
START_TEST(rebind_graph_edited_in_place)
{
    gat_graph g1, g2;
    gat_csr x;
    const gat_real *out;
    uint64_t seed = 2;
    tu_graph_skewed(&g1, 20, 300, 0, 1);
    do {
        ck_assert_uint_lt(seed, 400);
        if (seed > 2) gat_graph_destroy(&g2);
        tu_graph_skewed(&g2, 20, 300, 0, seed++);
    } while (g2.nnz != g1.nnz);
    ck_assert(memcmp(g2.col, g1.col, (size_t)g1.nnz * sizeof *g1.col) != 0);
    tu_features(&x, g1.n, F, 0.3, 9);
    gat_model *m = make_model(configs[_i].score, configs[_i].residual);
    size_t P;
    gat_model_params(m, &P);
    const size_t nl = (size_t)g1.n * C;
    gat_real *lg = malloc(nl * sizeof *lg), *gr = malloc(P * sizeof *gr);
    static const gat_idx rows[] = {30, 100, 250};
    const gat_i_binding b1 = {.g = &g1, .x = &x, .rows = rows, .n_rows = (gat_idx)LEN(rows)};
    const gat_i_run infer = {.training = 0};
    ck_assert_int_eq(gat_i_model_forward(m, &b1, &infer, &out), GAT_OK); /* implicit bind */
    forward_backward(m, &g1, &x, lg, gr);
    const size_t np = ((size_t)g1.n + 1) * sizeof(gat_idx), ne = (size_t)g1.nnz * sizeof(gat_idx);
    memcpy(g1.rowptr, g2.rowptr, np);
    memcpy(g1.col, g2.col, ne);
    memcpy(g1.t_rowptr, g2.t_rowptr, np);
    memcpy(g1.t_col, g2.t_col, ne);
    memcpy(g1.t_edge, g2.t_edge, ne);
    ck_assert_int_eq(gat_model_bind(m, &g1, &x, 0), GAT_OK);
    ck_assert_int_eq(gat_i_model_forward(m, &b1, &infer, &out), GAT_OK);
    gat_real restricted[LEN(rows) * 4];
    for (size_t r = 0; r < LEN(rows); r++)
        memcpy(restricted + r * C, out + (size_t)rows[r] * C, (size_t)C * sizeof *out);
    forward_backward(m, &g1, &x, lg, gr);
    assert_like_fresh(configs[_i].score, configs[_i].residual, &g2, &x, lg, gr,
                      "rebound after replacing the graph in place");
    for (size_t r = 0; r < LEN(rows); r++)
        ck_assert_msg(tu_max_rel_err(restricted + r * C, lg + (size_t)rows[r] * C, (size_t)C, 1e-3,
                                     NULL) < 1e-4,
                      "restricted forward, row %d: stale after rebinding", rows[r]);
    free(lg);
    free(gr);
    gat_model_free(m);
    gat_graph_destroy(&g1);
    gat_graph_destroy(&g2);
    gat_csr_destroy(&x);
}
END_TEST

/* Binding, then forwards on other inputs (implicit binds) and back: each matches a fresh model. */
START_TEST(bind_then_other_inputs)
{
    gat_graph ga, gb;
    gat_csr xa, xb;
    tu_graph_skewed(&ga, 30, 80, GAT_GRAPH_SYMMETRIZE, 2);
    tu_graph_skewed(&gb, 50, 40, 0, 3);
    tu_features(&xa, ga.n, F, 0.3, 4);
    tu_features(&xb, gb.n, F, 0.3, 5);
    gat_model *m = make_model(configs[_i].score, configs[_i].residual);
    size_t P;
    gat_model_params(m, &P);
    const gat_idx nmax = ga.n > gb.n ? ga.n : gb.n;
    gat_real *lg = malloc((size_t)nmax * C * sizeof *lg), *gr = malloc(P * sizeof *gr);
    ck_assert_int_eq(gat_model_bind(m, &ga, &xa, 0), GAT_OK);
    forward_backward(m, &gb, &xb, lg, gr);
    assert_like_fresh(configs[_i].score, configs[_i].residual, &gb, &xb, lg, gr, "after a bind, B");
    forward_backward(m, &ga, &xa, lg, gr);
    assert_like_fresh(configs[_i].score, configs[_i].residual, &ga, &xa, lg, gr, "then A");
    free(lg);
    free(gr);
    gat_model_free(m);
    gat_graph_destroy(&ga);
    gat_graph_destroy(&gb);
    gat_csr_destroy(&xa);
    gat_csr_destroy(&xb);
}
END_TEST

/* Allocations made by the calling thread since the last call (the fault-injection counter). */
static long allocations(void)
{
    return gat_i_alloc_fail_at(-1);
}

/* Loop index: config. A smaller graph reuses
 * the caches (no allocation, by bind or by a forward's implicit bind), the larger one again too,
 * a graph larger than any before grows them with room to spare, so that a slightly larger one
 * after it allocates nothing, GAT_BIND_EXACT reallocates to fit. Results stay right. */
START_TEST(reuse_and_growth)
{
    gat_graph big, small, bigger, slightly;
    gat_csr xbig, xsmall, xbigger, xslightly;
    tu_graph_skewed(&big, 100, 200, GAT_GRAPH_SYMMETRIZE, 1);
    tu_graph_small(&small, GAT_GRAPH_SYMMETRIZE);
    tu_graph_skewed(&bigger, 200, 400, GAT_GRAPH_SYMMETRIZE, 2);
    tu_graph_skewed(&slightly, 204, 408, GAT_GRAPH_SYMMETRIZE, 3); /* 2 % more of everything */
    tu_features(&xbig, big.n, F, 0.3, 1);
    tu_features(&xsmall, small.n, F, 0.3, 2);
    tu_features(&xbigger, bigger.n, F, 0.3, 3);
    tu_features(&xslightly, slightly.n, F, 0.3, 4);
    ck_assert_int_gt(slightly.n, bigger.n);
    ck_assert_int_gt(slightly.nnz, bigger.nnz);
    ck_assert_int_gt(xslightly.rowptr[slightly.n], xbigger.rowptr[bigger.n]);
    ck_assert_int_lt(slightly.nnz, bigger.nnz + bigger.nnz / 20);
    ck_assert_int_lt(xslightly.rowptr[slightly.n], xbigger.rowptr[bigger.n] * 21 / 20);
    const int ci = _i;
    const gat_score score = (gat_score)configs[ci].score;
    gat_model *m = make_model(score, configs[ci].residual);
    size_t P;
    gat_model_params(m, &P);
    gat_real *lg = malloc((size_t)slightly.n * C * sizeof *lg), *gr = malloc(P * sizeof *gr);
    const gat_real *out;

    ck_assert_int_eq(gat_model_bind(m, &big, &xbig, 0), GAT_OK);
    ck_assert_ptr_nonnull(gat_model_kernels(m));
    /* what checking the inputs allocates (and frees): the graph check's scratch */
    allocations();
    ck_assert_int_eq(gat_model_bind(m, &big, &xbig, 0), GAT_OK);
    const long check = allocations();
    ck_assert_int_le(check, 1);
    ck_assert_int_eq(gat_model_bind(m, &small, &xsmall, 0), GAT_OK);
    ck_assert_int_eq(allocations(), check);
    forward_backward(m, &small, &xsmall, lg, gr);
    assert_like_fresh(score, configs[ci].residual, &small, &xsmall, lg, gr, "small in big's room");
    allocations();
    ck_assert_int_eq(gat_model_forward(m, &big, &xbig, 0, &out), GAT_OK); /* implicit bind */
    ck_assert_int_eq(allocations(), check);
    forward_backward(m, &big, &xbig, lg, gr);
    assert_like_fresh(score, configs[ci].residual, &big, &xbig, lg, gr, "big again");

    allocations();
    ck_assert_int_eq(gat_model_bind(m, &bigger, &xbigger, 0), GAT_OK);
    ck_assert_int_gt(allocations(), check);
    forward_backward(m, &bigger, &xbigger, lg, gr);
    assert_like_fresh(score, configs[ci].residual, &bigger, &xbigger, lg, gr, "grown");
    allocations();
    ck_assert_int_eq(gat_model_bind(m, &slightly, &xslightly, 0), GAT_OK);
    ck_assert_int_eq(allocations(), check); /* in the room the growth left */
    forward_backward(m, &slightly, &xslightly, lg, gr);
    assert_like_fresh(score, configs[ci].residual, &slightly, &xslightly, lg, gr, "slightly");
    allocations();
    ck_assert_int_eq(gat_model_bind(m, &big, &xbig, 0), GAT_OK);
    ck_assert_int_eq(allocations(), check);
    ck_assert_int_eq(gat_model_bind(m, &small, &xsmall, GAT_BIND_EXACT), GAT_OK);
    ck_assert_int_gt(allocations(), check);
    forward_backward(m, &small, &xsmall, lg, gr);
    assert_like_fresh(score, configs[ci].residual, &small, &xsmall, lg, gr, "exact");
    allocations();
    ck_assert_int_eq(gat_model_bind(m, &big, &xbig, 0), GAT_OK); /* exact gave the room back */
    ck_assert_int_gt(allocations(), check);

    free(lg);
    free(gr);
    gat_model_free(m);
    gat_graph_destroy(&big);
    gat_graph_destroy(&small);
    gat_graph_destroy(&bigger);
    gat_graph_destroy(&slightly);
    gat_csr_destroy(&xbig);
    gat_csr_destroy(&xsmall);
    gat_csr_destroy(&xbigger);
    gat_csr_destroy(&xslightly);
}
END_TEST

START_TEST(bind_errors)
{
    gat_graph g, g2;
    gat_csr x, x2;
    const gat_real *out;
    tu_graph_skewed(&g, 20, 30, GAT_GRAPH_SYMMETRIZE, 1);
    tu_graph_small(&g2, 0);
    tu_features(&x, g.n, F, 0.3, 1);
    gat_model *m = make_model(GAT_SCORE_GAT, 0);
    ck_assert_ptr_null(gat_model_kernels(m)); /* nothing bound yet */
    ck_assert_ptr_null(gat_model_kernels(NULL));

    ASSERT_FAILS(gat_model_bind(NULL, &g, &x, 0), GAT_EINVAL, "gat_model_bind: NULL model m");
    ASSERT_FAILS(gat_model_bind(m, NULL, &x, 0), GAT_EINVAL, "gat_model_bind: NULL graph g");
    ASSERT_FAILS(gat_model_bind(m, &g, NULL, 0), GAT_EINVAL, "gat_model_bind: NULL features x");
    ASSERT_FAILS(gat_model_bind(m, &g, &x, 10), GAT_EINVAL,
                 "gat_model_bind: unknown flags 0x8 (expected 0 or GAT_BIND_EXACT, "
                 "GAT_BIND_INFERENCE, GAT_BIND_INPUT_GRADIENT combined)");
    ASSERT_FAILS(gat_model_bind(m, &g2, &x, 0), GAT_EDIM,
                 "gat_model_bind: features have 52 rows but the graph has 7 nodes");
    tu_features(&x2, g.n, F + 1, 0.3, 1);
    ASSERT_FAILS(gat_model_bind(m, &g, &x2, 0), GAT_EDIM,
                 "gat_model_bind: features have 25 columns but the model expects 24");
    gat_csr_destroy(&x2);
    gat_csr zero = {0};
    zero.rows = g.n, zero.cols = F;
    ASSERT_FAILS(gat_model_bind(m, &g, &zero, 0), GAT_EINVAL,
                 "gat_model_bind: features x has a NULL rowptr");

    /* a good binding, then bad inputs: each refused, the binding kept */
    ck_assert_int_eq(gat_model_bind(m, &g, &x, 0), GAT_OK);
    ck_assert_ptr_nonnull(gat_model_kernels(m));
    ck_assert_str_eq(gat_model_kernels(m), gat_i_model_fused_isa(m));
    /* bound but no forward yet: nothing to differentiate or read */
    gat_real d[4] = {0};
    ASSERT_FAILS(gat_model_backward(m, d), GAT_EINVAL, "not a training forward");
    ASSERT_FAILS(gat_model_layer_output(m, 0, &out), GAT_EINVAL,
                 "gat_model_layer_output: no forward has been run yet on the bound inputs");
    ASSERT_FAILS(gat_model_attention(m, 0, &out), GAT_EINVAL, "gat_model_attention: no forward");

    ck_assert_int_eq(gat_csr_copy(&x2, &x), GAT_OK);
    x2.val[x2.rowptr[3] + 0] = NAN;
    ASSERT_FAILS(gat_model_bind(m, &g, &x2, 0), GAT_ENUMERIC, "gat_model_bind: features x");
    x2.val[x2.rowptr[3]] = 1;
    x2.col[x2.rowptr[4]] = F + 5;
    ASSERT_FAILS(gat_model_bind(m, &g, &x2, 0), GAT_EINVAL, "gat_model_bind: features x");
    gat_csr_destroy(&x2);
    gat_idx saved = g.col[3];
    g.col[3] = g.n + 2;
    ASSERT_FAILS(gat_model_bind(m, &g, &x, 0), GAT_EINVAL, "gat_model_bind: graph");
    g.col[3] = saved;
    ck_assert_ptr_nonnull(gat_model_kernels(m)); /* still bound */
    ck_assert_int_eq(gat_model_forward(m, &g, &x, 0, &out), GAT_OK);
    ck_assert(isfinite(out[0]));

    /* the forward's own messages are unchanged */
    ASSERT_FAILS(gat_model_forward(m, &g2, &x, 0, &out), GAT_EDIM,
                 "features have 52 rows but the graph has 7 nodes");
    ck_assert_msg(strncmp(gat_last_error(), "gat_model_bind", 14) != 0, "%s", gat_last_error());
    gat_model_free(m);

    /* remote rows (a partition's halo) with projection dropout: refused at the bind, since a
     * remote row's dropped projections would have to come from its owner */
    gat_model_config cfg;
    gat_model_config_default(&cfg, F, C);
    cfg.proj_dropout = 0.5;
    ck_assert_int_eq(tu_model_create(&m, &cfg, 12), GAT_OK);
    const gat_i_remote halo = {.n_own = g.n};
    const gat_i_binding rb = {.g = &g, .x = &x, .remote = &halo};
    ASSERT_FAILS(gat_i_model_bind(m, &rb, "test"), GAT_EINVAL,
                 "test: proj_dropout (0.5) is not supported with remote rows (partitioned "
                 "training)");
    ck_assert_ptr_null(gat_model_kernels(m)); /* nothing bound */
    gat_model_free(m);
    gat_graph_destroy(&g);
    gat_graph_destroy(&g2);
    gat_csr_destroy(&x);
}
END_TEST

/* Every allocation of a bind failing in turn (on a model already bound to a smaller graph):
 * GAT_ENOMEM, nothing leaks (ASan), and the model binds and runs afterwards. */
START_TEST(bind_allocation_failures)
{
    gat_graph small, big;
    gat_csr xs, xb;
    const gat_real *out;
    tu_graph_small(&small, GAT_GRAPH_SYMMETRIZE);
    tu_graph_skewed(&big, 40, 60, GAT_GRAPH_SYMMETRIZE, 4);
    tu_features(&xs, small.n, F, 0.3, 1);
    tu_features(&xb, big.n, F, 0.3, 2);
    gat_model *m = make_model(configs[_i].score, configs[_i].residual);
    gat_status st = GAT_ENOMEM;
    for (long k = 0; k < 100 && st == GAT_ENOMEM; k++) {
        ck_assert_int_eq(gat_model_bind(m, &small, &xs, 0), GAT_OK);
        gat_i_alloc_fail_at(k);
        st = gat_model_bind(m, &big, &xb, 0);
        gat_i_alloc_fail_at(-1);
        if (st != GAT_OK) {
            /* failed while checking (the small binding is kept) or while building (unbound) */
            ck_assert_int_eq(st, GAT_ENOMEM);
            ck_assert_ptr_nonnull(strstr(gat_last_error(), "out of memory"));
            ck_assert_int_eq(gat_model_forward(m, &big, &xb, 0, &out), GAT_OK);
        }
    }
    ck_assert_int_eq(st, GAT_OK);
    ck_assert_int_eq(gat_model_forward(m, &big, &xb, 1, &out), GAT_OK);
    gat_model_free(m);
    gat_graph_destroy(&small);
    gat_graph_destroy(&big);
    gat_csr_destroy(&xs);
    gat_csr_destroy(&xb);
}
END_TEST

/* ---- inference bindings (GAT_BIND_INFERENCE) ---- */

/* Every score, with and without residual connections, in three node orders' worth of
 * configurations: the logits and every layer's output of an inference binding, run in chunks of
 * 1, 7 and 2^20 edges, on all rows and on restricted output rows, against an ordinary binding's;
 * the same on 2 and 3 threads; the inference binding refuses attention, and a training forward
 * on the same inputs rebinds them for training. */
START_TEST(inference_binding_matches)
{
    const gat_score score = (gat_score)(_i / 2);
    const int residual = _i % 2;
    gat_graph g;
    gat_csr x;
    tu_graph_skewed(&g, 40, 300, GAT_GRAPH_SYMMETRIZE, 5);
    tu_features(&x, g.n, F, 0.3, 2);
    const size_t N = (size_t)g.n;
    gat_idx rows[40], n_rows = 0;
    for (gat_idx i = 3; i < g.n && n_rows < 40; i += 9) rows[n_rows++] = i;
    for (int restricted = 0; restricted < 2; restricted++) {
        gat_model *ref = make_model(score, residual);
        const gat_real *lg;
        const gat_i_run infer = {.training = 0};
        const gat_i_binding rb = {.g = &g, .x = &x, .rows = restricted ? rows : NULL,
                                  .n_rows = n_rows};
        ck_assert_int_eq(gat_i_model_forward(ref, &rb, &infer, &lg), GAT_OK);
        ck_assert_int_eq(gat_i_model_lean(ref), 0);
        static const gat_idx chunks[] = {1, 7, 1 << 20};
        for (size_t c = 0; c < LEN(chunks); c++)
            for (int nt = 1; nt <= 3; nt++) {
                if (c != 1 && nt > 1) continue; /* threads once, on the many-chunk case */
                gat_model *m = make_model(score, residual);
                gat_model_set_threads(m, nt);
                gat_i_binding lb = rb;
                lb.flags = GAT_BIND_INFERENCE, lb.lean_chunk = chunks[c];
                ck_assert_int_eq(gat_i_model_bind(m, &lb, "test"), GAT_OK);
                ck_assert_int_eq(gat_i_model_lean(m), 1);
                const gat_real *lm;
                ck_assert_int_eq(gat_i_model_forward(m, &lb, &infer, &lm), GAT_OK);
                ck_assert_int_eq(gat_i_model_lean(m), 1); /* inference keeps the binding */
                for (gat_idx l = 0; l < gat_model_layer_count(m); l++) {
                    const gat_real *a, *b;
                    const gat_idx w = gat_model_layer_width(m, l);
                    ck_assert_int_eq(gat_model_layer_output(ref, l, &a), GAT_OK);
                    ck_assert_int_eq(gat_model_layer_output(m, l, &b), GAT_OK);
                    /* restricted: the listed rows of the logits; hidden layers are unspecified
                     * outside what the rows need, so only the logits are compared then */
                    if (restricted && l < gat_model_layer_count(m) - 1) continue;
                    for (size_t i = 0; i < N; i++) {
                        int listed = !restricted;
                        for (gat_idx q = 0; q < n_rows && !listed; q++) listed = rows[q] == (gat_idx)i;
                        if (!listed) continue;
                        const double e = tu_max_rel_err(b + i * (size_t)w, a + i * (size_t)w,
                                                        (size_t)w, 1e-3, NULL);
                        ck_assert_msg(e < 1e-5, "%s residual %d, chunk %d, %d threads, %s: "
                                      "layer %d row %zu differs by %g", gat_score_name(score),
                                      residual, chunks[c], nt, restricted ? "rows" : "all", l, i, e);
                    }
                }
                const gat_real *al;
                ASSERT_FAILS(gat_model_attention(m, 0, &al), GAT_EINVAL,
                             "bound for inference (GAT_BIND_INFERENCE)");
                if (c == 0 && !restricted) {
                    /* a training forward rebinds for training: attention and backward work */
                    ck_assert_int_eq(gat_model_forward(m, &g, &x, 1, &lm), GAT_OK);
                    ck_assert_int_eq(gat_i_model_lean(m), 0);
                    ck_assert_int_eq(gat_model_attention(m, 0, &al), GAT_OK);
                    gat_real *d = calloc(N * C, sizeof *d);
                    ck_assert_ptr_nonnull(d);
                    d[0] = 1;
                    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
                    free(d);
                    /* and an inference forward on them keeps the training binding */
                    ck_assert_int_eq(gat_model_forward(m, &g, &x, 0, &lm), GAT_OK);
                    ck_assert_int_eq(gat_i_model_lean(m), 0);
                }
                gat_model_free(m);
            }
        gat_model_free(ref);
    }
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

/* A renumbered inference binding (forced order) gives the caller's rows as an ordinary one. */
START_TEST(inference_binding_ordered)
{
    gat_graph g;
    gat_csr x;
    tu_graph_skewed(&g, 30, 200, GAT_GRAPH_SYMMETRIZE, 9);
    tu_features(&x, g.n, F, 0.3, 4);
    gat_model *ref = make_model(GAT_SCORE_GAT, 0), *m = make_model(GAT_SCORE_GAT, 0);
    ck_assert_int_eq(gat_model_set_order(m, GAT_ORDER_RCM), GAT_OK);
    const gat_real *a, *b;
    ck_assert_int_eq(gat_model_forward(ref, &g, &x, 0, &a), GAT_OK);
    const gat_i_binding lb = {
        .g = &g, .x = &x, .flags = GAT_BIND_INFERENCE | GAT_BIND_EXACT, .lean_chunk = 5};
    ck_assert_int_eq(gat_i_model_bind(m, &lb, "test"), GAT_OK);
    ck_assert_int_eq(gat_model_forward(m, &g, &x, 0, &b), GAT_OK);
    ck_assert_int_eq(gat_model_order(m, NULL), GAT_ORDER_RCM);
    const double e = tu_max_rel_err(b, a, (size_t)g.n * C, 1e-3, NULL);
    ck_assert_msg(e < 1e-4, "ordered inference binding: logits differ by %g", e);
    gat_model_free(ref);
    gat_model_free(m);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

/* ---- trimmed layers on sampled blocks ---- */

/* The targets' logits (n_targets, C) and the gradients of a training step (dropout 0.3, step 9;
 * dlogits a fixed pattern on the targets, zero elsewhere) of m on block k with features x,
 * bound as the library binds a loader's batch, with its hops (trim 1) or without (0), on nt
 * threads: the second of two such steps on the binding. trim 2 and 3: the first target's rows
 * only (a restricted forward, not trimmed), with the block's hops (2) or without (3). */
static void block_step(gat_model *m, const gat_block *k, const gat_csr *x, const gat_real *ex,
                       int trim, int nt, gat_real *logits, gat_real *grads)
{
    const gat_idx nb = k->n_targets;
    const size_t n = (size_t)k->n * C;
    gat_idx *rows = malloc((size_t)nb * sizeof *rows);
    gat_real *d = calloc(n, sizeof *d);
    const gat_real *lg;
    size_t P;
    ck_assert(rows && d);
    for (gat_idx q = 0; q < nb; q++)
        rows[q] = q;
    tu_uniform(d, (size_t)nb * C, -1, 1, 5);
    const gat_i_binding b = {.g = &k->graph,
                             .x = x,
                             .ex = ex,
                             .rows = rows,
                             .n_rows = trim >= 2 ? 1 : nb,
                             .hop_end = trim % 2 || trim == 2 ? k->hop_end : NULL,
                             .hops = trim % 2 || trim == 2 ? k->hops : 0,
                             .flags = GAT_I_BIND_TRUSTED};
    const gat_i_run run = {.training = 1, .step = 9, .set_dropout = 1, .in_p = 0.3, .att_p = 0.3};
    gat_model_set_threads(m, nt);
    ck_assert_int_eq(gat_i_model_bind(m, &b, "test"), GAT_OK);
    /* twice on the binding: the second step must not see the first one's rows */
    for (int again = 0; again < 2; again++) {
        ck_assert_int_eq(gat_i_model_forward(m, &b, &run, &lg), GAT_OK);
        ck_assert_int_eq(gat_i_model_trimmed(m), trim == 1);
        memcpy(logits, lg, (size_t)nb * C * sizeof *lg);
        gat_model_zero_grads(m);
        ck_assert_int_eq(gat_i_model_backward(m, d, NULL), GAT_OK);
    }
    const gat_real *gm = gat_model_grads(m, &P);
    memcpy(grads, gm, P * sizeof *grads);
    free(rows);
    free(d);
}

/* Loop index: the rebinding configurations x 2 and 3 layers, then gat with the reference code's
 * dropout placement (a mask per head, projection dropout 0.5) on 2 and 3 layers, then the other
 * scores and gat and gatv2 with edge features (extra[]) on 2 layers. A sampled block's training
 * step
 * with trimmed layers (layer l computes the nodes of hops 0 .. L - 1 - l only, forward and
 * backward) gives the untrimmed step's target logits and gradients to 1e-6 (relative, a tenth of
 * a percent of the largest value as the floor; the passes add the same rows in the same chunks,
 * so in fact equal), and is bit-identical on 1, 2 and 3 threads. Every rebind for the block's
 * hops fills the engine's arrays with NaNs (gat_i_fast_stale_fill), which it does not zero: no
 * trimmed pass may read a value it has not written, and a forward that does not trim (one
 * target's rows) must zero them first. */
static const struct {
    gat_score score;
    gat_idx edge_dim;
} extra[] = {{GAT_SCORE_SCALED_DOT, 0}, {GAT_SCORE_BILINEAR, 0}, {GAT_SCORE_COSINE, 0},
             {GAT_SCORE_GAUSSIAN, 0},   {GAT_SCORE_GAT, 3},      {GAT_SCORE_GATV2, 3}};

START_TEST(trimmed_block_matches)
{
    const int nc = (int)LEN(configs), ix = _i - 2 * nc - 2;
    const int placement = _i >= 2 * nc && ix < 0, j = _i < 2 * nc ? _i % nc : 0;
    const gat_score score = ix >= 0 ? extra[ix].score : configs[j].score;
    const gat_idx D = ix >= 0 ? extra[ix].edge_dim : 0;
    const int residual = configs[j].residual, L = 2 + (ix >= 0     ? 0
                                                       : placement ? _i - 2 * nc
                                                                   : _i / nc);
    static const gat_idx fanout[3] = {4, 3, 3};
    gat_graph g;
    gat_csr x, bx;
    gat_block k;
    gat_sampler *s;
    gat_idx targets[25];
    tu_graph_skewed(&g, 20, 400, GAT_GRAPH_SYMMETRIZE, 7);
    tu_features(&x, g.n, F, 0.3, 5);
    for (gat_idx q = 0; q < 25; q++)
        targets[q] = 1 + 17 * q;
    ck_assert_int_eq(gat_sampler_create(&s, &g, L, fanout, 3), GAT_OK);
    ck_assert_int_eq(gat_sampler_sample(s, targets, 25, 1, &k), GAT_OK);
    ck_assert_int_eq(gat_block_features(&k, &x, &bx), GAT_OK);
    ck_assert_int_lt(k.hop_end[L - 1], k.n); /* the first layer has rows to leave out */
    gat_model_config cfg;
    gat_model_config_default(&cfg, F, C);
    cfg.layers = L, cfg.heads = 4, cfg.hidden = 8, cfg.out_heads = 2;
    cfg.score = score, cfg.residual = residual;
    cfg.head_dropout = placement, cfg.proj_dropout = placement ? 0.5 : 0;
    cfg.score_bias = placement;
    cfg.edge_dim = D;
    gat_real *ex = NULL;
    if (D > 0) {
        ck_assert_ptr_nonnull(ex = malloc((size_t)k.graph.nnz * D * sizeof *ex));
        tu_uniform(ex, (size_t)k.graph.nnz * D, -1, 1, 13);
    }
    gat_model *m = NULL;
    ck_assert_int_eq(tu_model_create(&m, &cfg, 11), GAT_OK);
    size_t P;
    gat_model_params(m, &P);
    const size_t nl = (size_t)k.n_targets * C;
    gat_real *lg0 = malloc(nl * sizeof *lg0), *gr0 = malloc(P * sizeof *gr0);
    gat_real *lg1 = malloc(nl * sizeof *lg1), *gr1 = malloc(P * sizeof *gr1);
    gat_real *lg = malloc(nl * sizeof *lg), *gr = malloc(P * sizeof *gr);
    ck_assert(lg0 && gr0 && lg1 && gr1 && lg && gr);
    gat_i_fast_stale_fill = 0xff;
    block_step(m, &k, &bx, ex, 3, 1, lg0, gr0);
    block_step(m, &k, &bx, ex, 2, 1, lg, gr);
    ck_assert_msg(memcmp(lg, lg0, (size_t)C * sizeof *lg) == 0 &&
                      memcmp(gr, gr0, P * sizeof *gr) == 0,
                  "%s residual %d, %d layers: one target's forward on the block bound with its "
                  "hops differs from the same without them",
                  gat_score_name(score), residual, L);
    block_step(m, &k, &bx, ex, 0, 1, lg0, gr0);
    block_step(m, &k, &bx, ex, 1, 1, lg1, gr1);
    const double fl = 1e-3 * tu_max_abs(lg0, nl), fg = 1e-3 * tu_max_abs(gr0, P);
    size_t at;
    const double el = tu_max_rel_err(lg1, lg0, nl, fl, NULL), eg = tu_max_rel_err(gr1, gr0, P, fg, &at);
    printf("trimmed block, %s residual %d%s%s, %d layers (%d of %d nodes in the first layer): "
           "logits %.1e, gradients %.1e\n",
           gat_score_name(score), residual, placement ? " head masks, proj dropout" : "",
           D ? " edge features" : "", L, k.hop_end[L - 1], k.n, el, eg);
    ck_assert(tu_rms(gr0, P) > 0);
    ck_assert_msg(el <= 1e-6 && eg <= 1e-6,
                  "%s residual %d, %d layers: trimmed logits differ by %g, gradients by %g (at "
                  "%zu: %g, untrimmed %g)",
                  gat_score_name(score), residual, L, el, eg, at, (double)gr1[at], (double)gr0[at]);
    for (int nt = 2; nt <= 3; nt++) {
        block_step(m, &k, &bx, ex, 1, nt, lg, gr);
        ck_assert_msg(memcmp(lg, lg1, nl * sizeof *lg) == 0 && memcmp(gr, gr1, P * sizeof *gr) == 0,
                      "trimmed step on %d threads differs from 1 thread", nt);
    }
    gat_i_fast_stale_fill = -1;
    free(ex);
    free(lg0), free(gr0), free(lg1), free(gr1), free(lg), free(gr);
    gat_model_free(m);
    gat_sampler_free(s);
    gat_block_destroy(&k);
    gat_csr_destroy(&bx);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

/* gat_train_step_batch on a loader's batch: the loss, accuracy and updated parameters of
 * gat_train_step on the same block with the targets as rows (bit for bit: the trimmed passes add
 * what the untrimmed ones add), and its argument errors. */
START_TEST(train_step_batch)
{
    static const gat_idx fanout[2] = {4, 3};
    gat_graph g;
    gat_csr x;
    gat_sampler *s;
    gat_loader *ld;
    const gat_batch *b;
    gat_idx order[40], labels[40], rows[40];
    tu_graph_skewed(&g, 20, 400, GAT_GRAPH_SYMMETRIZE, 8);
    tu_features(&x, g.n, F, 0.3, 6);
    for (gat_idx q = 0; q < 40; q++)
        order[q] = 2 + 10 * q;
    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, fanout, 5), GAT_OK);
    ck_assert_int_eq(gat_loader_create(&ld, s, &x, NULL, 0, order, 40, 40, 1, 0), GAT_OK);
    ck_assert_int_eq(gat_loader_next(ld, &b), GAT_OK);
    ck_assert_ptr_nonnull(b);
    const gat_idx nb = b->block.n_targets;
    for (gat_idx q = 0; q < nb; q++)
        labels[q] = b->block.nodes[q] % C, rows[q] = q;
    gat_model *m = make_model(GAT_SCORE_GAT, 0), *r = make_model(GAT_SCORE_GAT, 0);
    gat_adam_config adam;
    gat_adam_config_default(&adam);
    double lm, am, lr, ar;
    size_t P;
    ck_assert_int_eq(gat_train_step_batch(m, b, labels, &adam, 1, &lm, &am), GAT_OK);
    ck_assert_int_eq(gat_i_model_trimmed(m), 1);
    ck_assert_int_eq(gat_train_step(r, &b->block.graph, &b->x, labels, rows, nb, &adam, 1, &lr, &ar),
                     GAT_OK);
    ck_assert_int_eq(gat_i_model_trimmed(r), 0);
    const gat_real *pm = gat_model_params(m, &P), *pr = gat_model_params(r, NULL);
    ck_assert_msg(lm == lr && am == ar, "loss %g / %g, accuracy %g / %g", lm, lr, am, ar);
    ck_assert(memcmp(pm, pr, P * sizeof *pm) == 0);
    /* argument errors */
    ASSERT_FAILS(gat_train_step_batch(NULL, b, labels, &adam, 1, NULL, NULL), GAT_EINVAL,
                 "gat_train_step_batch: NULL model m");
    ASSERT_FAILS(gat_train_step_batch(m, NULL, labels, &adam, 1, NULL, NULL), GAT_EINVAL,
                 "gat_train_step_batch: NULL batch b");
    ASSERT_FAILS(gat_train_step_batch(m, b, NULL, &adam, 1, NULL, NULL), GAT_EINVAL,
                 "gat_train_step_batch: NULL labels");
    ASSERT_FAILS(gat_train_step_batch(m, b, labels, &adam, 0, NULL, NULL), GAT_EINVAL,
                 "gat_train_step_batch: step t = 0, expected t >= 1");
    gat_model_config cfg = *gat_model_get_config(m);
    cfg.layers = 3;
    gat_model *deep = NULL;
    ck_assert_int_eq(tu_model_create(&deep, &cfg, 1), GAT_OK);
    ASSERT_FAILS(gat_train_step_batch(deep, b, labels, &adam, 1, NULL, NULL), GAT_EINVAL,
                 "the batch has 40 targets and 2 hops; the model needs at least one target and "
                 "one hop per layer (3)");
    labels[3] = C;
    ASSERT_FAILS(gat_train_step_batch(m, b, labels, &adam, 2, NULL, NULL), GAT_EINVAL,
                 "node 3 has label 4 outside [0, 4)");
    gat_model_free(deep);
    gat_model_free(m);
    gat_model_free(r);
    gat_loader_free(ld);
    gat_sampler_free(s);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

static Suite *bind_suite(void)
{
    Suite *s = suite_create("bind");
    TCase *tc = tcase_create("rebind");
    tcase_add_loop_test(tc, rebind_features_edited_in_place, 0, (int)LEN(configs));
    tcase_add_loop_test(tc, rebind_graph_edited_in_place, 0, (int)LEN(configs));
    tcase_add_loop_test(tc, bind_then_other_inputs, 0, (int)LEN(configs));
    suite_add_tcase(s, tc);
    tc = tcase_create("reuse");
    tcase_add_loop_test(tc, reuse_and_growth, 0, (int)LEN(configs));
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_test(tc, bind_errors);
    tcase_add_loop_test(tc, bind_allocation_failures, 0, (int)LEN(configs));
    suite_add_tcase(s, tc);
    tc = tcase_create("inference");
    tcase_add_loop_test(tc, inference_binding_matches, 0, 2 * GAT_SCORE_COUNT);
    tcase_add_test(tc, inference_binding_ordered);
    suite_add_tcase(s, tc);
    tc = tcase_create("trim");
    tcase_add_loop_test(tc, trimmed_block_matches, 0, 2 * (int)LEN(configs) + 2 + (int)LEN(extra));
    tcase_add_test(tc, train_step_batch);
    suite_add_tcase(s, tc);
    return s;
}

/* once per kernel build and alpha storage (tu_variants) */
int main(void)
{
    return tu_run_variants(bind_suite);
}
