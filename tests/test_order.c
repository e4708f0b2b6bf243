/* Check suite "order": node orders for locality (gat_graph_order), renumbering a graph
 * (gat_graph_permute, its edge map and rebuilt transpose), and models bound in an order
 * (gat_model_set_order): every result in the caller's node and edge order, equal to the
 * unordered model's up to summation order, independent of the thread count, allocation
 * failures handled. */
#include "testutil.h"
#include "core/core.h"
#include "model/model_i.h"
#include "graph/graph_i.h"

#include <stdlib.h>
#include <string.h>

static const gat_idx F = 16, C = 3;

/* A ring of n nodes (undirected) numbered in a scrambled order, plus chords i -- i+2. */
static void scrambled_ring(gat_graph *g, gat_idx n, uint64_t seed)
{
    gat_idx *label = malloc((size_t)n * sizeof *label), *src = malloc(2 * (size_t)n * sizeof *src),
            *dst = malloc(2 * (size_t)n * sizeof *dst);
    ck_assert(label && src && dst);
    gat_rng r;
    gat_rng_seed(&r, seed);
    for (gat_idx i = 0; i < n; i++)
        label[i] = i;
    for (gat_idx i = n - 1; i > 0; i--) {
        const gat_idx j = (gat_idx)gat_rng_below(&r, (uint64_t)i + 1), t = label[i];
        label[i] = label[j], label[j] = t;
    }
    for (gat_idx i = 0; i < n; i++) {
        src[2 * i] = label[i], dst[2 * i] = label[(i + 1) % n];
        src[2 * i + 1] = label[i], dst[2 * i + 1] = label[(i + 2) % n];
    }
    ck_assert_int_eq(gat_graph_from_edges(g, n, 2 * (size_t)n, src, dst, GAT_GRAPH_SYMMETRIZE),
                     GAT_OK);
    free(label);
    free(src);
    free(dst);
}

/* Largest |i - j| over the edges j -> i of g with node perm[k] renumbered k. */
static gat_idx bandwidth(const gat_graph *g, const gat_idx *perm)
{
    gat_idx *inv = malloc((size_t)g->n * sizeof *inv), most = 0;
    ck_assert_ptr_nonnull(inv);
    for (gat_idx k = 0; k < g->n; k++)
        inv[perm[k]] = k;
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx p = g->rowptr[i]; p < g->rowptr[i + 1]; p++) {
            const gat_idx d = abs(inv[i] - inv[g->col[p]]);
            most = d > most ? d : most;
        }
    free(inv);
    return most;
}

static void assert_permutation(const gat_idx *perm, gat_idx n)
{
    char *seen = calloc((size_t)n + 1, 1);
    ck_assert_ptr_nonnull(seen);
    for (gat_idx k = 0; k < n; k++) {
        ck_assert_msg(perm[k] >= 0 && perm[k] < n && !seen[perm[k]], "perm[%d] = %d", k, perm[k]);
        seen[perm[k]] = 1;
    }
    free(seen);
}

START_TEST(orders_are_permutations)
{
    gat_graph g;
    tu_graph_skewed(&g, 30, 200, 0, 5); /* directed, a hub, an isolated node */
    gat_idx *perm = malloc((size_t)g.n * sizeof *perm);
    ck_assert_ptr_nonnull(perm);
    for (int o = GAT_ORDER_NONE; o < GAT_ORDER_COUNT; o++) {
        ck_assert_int_eq(gat_graph_order(&g, (gat_order)o, perm), GAT_OK);
        assert_permutation(perm, g.n);
        if (o == GAT_ORDER_NONE)
            for (gat_idx k = 0; k < g.n; k++)
                ck_assert_int_eq(perm[k], k);
        if (o == GAT_ORDER_DEGREE) {
            ck_assert_int_eq(perm[0], 0); /* the hub */
            for (gat_idx k = 1; k < g.n; k++)
                ck_assert_int_ge(gat_graph_degree(&g, perm[k - 1]), gat_graph_degree(&g, perm[k]));
        }
    }
    ASSERT_FAILS(gat_graph_order(&g, GAT_ORDER_AUTO, perm), GAT_EINVAL, "is not none, rcm or degree");
    ASSERT_FAILS(gat_graph_order(NULL, GAT_ORDER_RCM, perm), GAT_EINVAL, "graph g");
    gat_order o;
    ck_assert_int_eq(gat_order_from_name("rcm", &o), GAT_OK);
    ck_assert_int_eq(o, GAT_ORDER_RCM);
    ck_assert_str_eq(gat_order_name(GAT_ORDER_DEGREE), "degree");
    ck_assert_ptr_null(gat_order_name(GAT_ORDER_COUNT));
    ASSERT_FAILS(gat_order_from_name("metis2", &o), GAT_EINVAL, "unknown node order 'metis2'");
    free(perm);
    gat_graph_destroy(&g);
}
END_TEST

/* Reverse Cuthill-McKee finds the ring's banded numbering again: bandwidth at most 4 (a chord
 * spans 2, and the breadth-first levels go both ways round), from about n in scrambled order. */
START_TEST(rcm_recovers_a_band)
{
    gat_graph g;
    const gat_idx n = 2000;
    scrambled_ring(&g, n, 9);
    gat_idx *perm = malloc((size_t)n * sizeof *perm);
    ck_assert_ptr_nonnull(perm);
    ck_assert_int_eq(gat_graph_order(&g, GAT_ORDER_NONE, perm), GAT_OK);
    ck_assert_int_gt(bandwidth(&g, perm), n / 2);
    ck_assert_int_eq(gat_graph_order(&g, GAT_ORDER_RCM, perm), GAT_OK);
    assert_permutation(perm, n);
    const gat_idx bw = bandwidth(&g, perm);
    ck_assert_msg(bw <= 4, "bandwidth %d after rcm", bw);
    free(perm);
    gat_graph_destroy(&g);
}
END_TEST

START_TEST(permute_keeps_every_edge)
{
    gat_graph g, p;
    tu_graph_skewed(&g, 25, 150, 0, 7);
    const gat_idx n = g.n;
    gat_idx *perm = malloc((size_t)n * sizeof *perm), *inv = malloc((size_t)n * sizeof *inv),
            *edge_of = malloc((size_t)g.nnz * sizeof *edge_of);
    ck_assert(perm && inv && edge_of);
    ck_assert_int_eq(gat_graph_order(&g, GAT_ORDER_RCM, perm), GAT_OK);
    for (gat_idx k = 0; k < n; k++)
        inv[perm[k]] = k;
    ck_assert_int_eq(gat_graph_permute(&p, &g, perm, edge_of), GAT_OK);
    ck_assert_int_eq(gat_graph_check(&p), GAT_OK);
    ck_assert_int_eq(p.n, n);
    ck_assert_int_eq(p.nnz, g.nnz);
    char *hit = calloc((size_t)g.nnz, 1);
    ck_assert_ptr_nonnull(hit);
    for (gat_idx k = 0; k < n; k++)
        for (gat_idx e = p.rowptr[k]; e < p.rowptr[k + 1]; e++) {
            if (e > p.rowptr[k]) ck_assert_int_lt(p.col[e - 1], p.col[e]);
            const gat_idx old = edge_of[e];
            ck_assert(old >= 0 && old < g.nnz && !hit[old]);
            hit[old] = 1;
            /* the same edge: its target row and source, renumbered */
            ck_assert(old >= g.rowptr[perm[k]] && old < g.rowptr[perm[k] + 1]);
            ck_assert_int_eq(p.col[e], inv[g.col[old]]);
        }
    /* the transpose lists each source's targets ascending */
    for (gat_idx j = 0; j < n; j++)
        for (gat_idx q = p.t_rowptr[j] + 1; q < p.t_rowptr[j + 1]; q++)
            ck_assert_int_lt(p.t_col[q - 1], p.t_col[q]);
    gat_graph_destroy(&p);
    /* the identity gives the graph back */
    for (gat_idx k = 0; k < n; k++)
        perm[k] = k;
    ck_assert_int_eq(gat_graph_permute(&p, &g, perm, NULL), GAT_OK);
    ck_assert_mem_eq(p.col, g.col, (size_t)g.nnz * sizeof *g.col);
    ck_assert_mem_eq(p.t_col, g.t_col, (size_t)g.nnz * sizeof *g.t_col);
    ck_assert_mem_eq(p.t_edge, g.t_edge, (size_t)g.nnz * sizeof *g.t_edge);
    gat_graph_destroy(&p);
    perm[3] = perm[4];
    ASSERT_FAILS(gat_graph_permute(&p, &g, perm, NULL), GAT_EINVAL,
                 "perm is not a permutation of 0..");
    ck_assert_ptr_null(p.rowptr);
    perm[3] = n;
    ASSERT_FAILS(gat_graph_permute(&p, &g, perm, NULL), GAT_EINVAL, "is out of range");
    free(hit);
    free(perm);
    free(inv);
    free(edge_of);
    gat_graph_destroy(&g);
}
END_TEST

/* The counting-sort transpose (several threads from 2^20 edges) gives CXSparse's out-CSR of a
 * directed random graph of 1.2 M edges, position for position. */
START_TEST(transpose_matches_cxsparse)
{
    const gat_idx n = 60000;
    const size_t m = 1200000;
    gat_idx *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    ck_assert(src && dst);
    gat_rng r;
    gat_rng_seed(&r, 17);
    for (size_t k = 0; k < m; k++) {
        /* skewed sources: a few nodes appear in many rows */
        const double u = gat_rng_uniform(&r);
        src[k] = (gat_idx)((double)n * u * u * u);
        dst[k] = (gat_idx)gat_rng_below(&r, (uint64_t)n);
    }
    gat_graph g, t = {0};
    ck_assert_int_eq(gat_graph_from_edges(&g, n, m, src, dst, 0), GAT_OK);
    ck_assert_int_ge(g.nnz, 1 << 20);
    t.n = g.n, t.nnz = g.nnz, t.rowptr = g.rowptr, t.col = g.col;
    ck_assert_int_eq(gat_i_graph_transpose(&t), GAT_OK);
    ck_assert_mem_eq(t.t_rowptr, g.t_rowptr, ((size_t)n + 1) * sizeof *g.t_rowptr);
    ck_assert_mem_eq(t.t_col, g.t_col, (size_t)g.nnz * sizeof *g.t_col);
    ck_assert_mem_eq(t.t_edge, g.t_edge, (size_t)g.nnz * sizeof *g.t_edge);
    gat_free(t.t_rowptr);
    gat_free(t.t_col);
    gat_free(t.t_edge);
    gat_graph_destroy(&g);
    free(src);
    free(dst);
}
END_TEST

/* A rows x cols grid (each node joined to its right and lower neighbour, undirected) whose node
 * (r, c) is numbered r * cols + c, or in a scrambled order (scramble): above
 * GAT_ORDER_AUTO_EDGES edges from 400 000 nodes. */
static void grid(gat_graph *g, gat_idx rows, gat_idx cols, int scramble)
{
    const gat_idx n = rows * cols;
    gat_idx *label = malloc((size_t)n * sizeof *label), *src = malloc(2 * (size_t)n * sizeof *src),
            *dst = malloc(2 * (size_t)n * sizeof *dst);
    ck_assert(label && src && dst);
    gat_rng r;
    gat_rng_seed(&r, 5);
    for (gat_idx i = 0; i < n; i++)
        label[i] = i;
    for (gat_idx i = n - 1; scramble && i > 0; i--) {
        const gat_idx j = (gat_idx)gat_rng_below(&r, (uint64_t)i + 1), t = label[i];
        label[i] = label[j], label[j] = t;
    }
    size_t m = 0;
    for (gat_idx i = 0; i < rows; i++)
        for (gat_idx c = 0; c < cols; c++) {
            const gat_idx v = i * cols + c;
            if (c + 1 < cols) src[m] = label[v], dst[m++] = label[v + 1];
            if (i + 1 < rows) src[m] = label[v], dst[m++] = label[v + cols];
        }
    ck_assert_int_eq(gat_graph_from_edges(g, n, m, src, dst, GAT_GRAPH_SYMMETRIZE), GAT_OK);
    free(label);
    free(src);
    free(dst);
}

/* auto renumbers where RCM brings the edges' ends together (a grid numbered at random: RCM
 * gives it a band), and keeps the caller's numbering where it would not (the same grid numbered
 * row by row, already a band; a random graph, where no order can), or below the size. */
START_TEST(auto_reorders_where_it_pays)
{
    gat_graph g;
    gat_idx *perm;
    gat_order used;
    for (int scramble = 0; scramble < 2; scramble++) {
        grid(&g, 700, 600, scramble);
        ck_assert_int_ge(g.nnz, GAT_ORDER_AUTO_EDGES);
        perm = malloc((size_t)g.n * sizeof *perm);
        ck_assert_int_eq(gat_i_order_pick(&g, GAT_ORDER_AUTO, perm, &used), GAT_OK);
        ck_assert_msg(used == (scramble ? GAT_ORDER_RCM : GAT_ORDER_NONE), "scramble %d: %s",
                      scramble, gat_order_name(used));
        if (used == GAT_ORDER_RCM) {
            assert_permutation(perm, g.n);
            ck_assert_int_le(bandwidth(&g, perm), 2 * 700);
        }
        /* a method is used as asked */
        ck_assert_int_eq(gat_i_order_pick(&g, GAT_ORDER_RCM, perm, &used), GAT_OK);
        ck_assert_int_eq(used, GAT_ORDER_RCM);
        ck_assert_int_eq(gat_i_order_pick(&g, GAT_ORDER_NONE, perm, &used), GAT_OK);
        ck_assert_int_eq(used, GAT_ORDER_NONE);
        if (!scramble) { /* through a model: bound unordered, the decision's cost reported */
            gat_model *m = NULL;
            gat_model_config cfg;
            gat_csr x;
            double secs = -1;
            gat_model_config_default(&cfg, 2, 2);
            cfg.heads = 1;
            cfg.hidden = 2;
            ck_assert_int_eq(gat_model_create(&m, &cfg, 3), GAT_OK);
            tu_features(&x, g.n, 2, 0.5, 4);
            ck_assert_int_eq(gat_model_bind(m, &g, &x, GAT_BIND_INFERENCE), GAT_OK);
            ck_assert_int_eq(gat_model_order(m, &secs), GAT_ORDER_NONE);
            ck_assert(secs > 0);
            gat_model_free(m);
            gat_csr_destroy(&x);
        }
        free(perm);
        gat_graph_destroy(&g);
    }
    /* a random graph of 2.2 million edges: no order brings its edges' ends together */
    const gat_idx n = 200000;
    const size_t m = 1000000;
    gat_idx *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    ck_assert(src && dst);
    gat_rng r;
    gat_rng_seed(&r, 9);
    for (size_t e = 0; e < m; e++) {
        src[e] = (gat_idx)gat_rng_below(&r, (uint64_t)n);
        dst[e] = (gat_idx)gat_rng_below(&r, (uint64_t)n);
    }
    ck_assert_int_eq(gat_graph_from_edges(&g, n, m, src, dst, GAT_GRAPH_SYMMETRIZE), GAT_OK);
    ck_assert_int_ge(g.nnz, GAT_ORDER_AUTO_EDGES);
    perm = malloc((size_t)n * sizeof *perm);
    ck_assert_int_eq(gat_i_order_pick(&g, GAT_ORDER_AUTO, perm, &used), GAT_OK);
    ck_assert_int_eq(used, GAT_ORDER_NONE);
    gat_graph_destroy(&g);
    /* below the size, auto never orders (a scrambled ring, where RCM would pay) */
    scrambled_ring(&g, 5000, 2);
    ck_assert_int_eq(gat_i_order_pick(&g, GAT_ORDER_AUTO, perm, &used), GAT_OK);
    ck_assert_int_eq(used, GAT_ORDER_NONE);
    gat_graph_destroy(&g);
    free(perm);
    free(src);
    free(dst);
}
END_TEST

static gat_model *make_model(gat_score score, double dropout, int threads)
{
    gat_model_config cfg;
    gat_model *m = NULL;
    gat_model_config_default(&cfg, F, C);
    cfg.heads = 3; /* a run-time head count too */
    cfg.hidden = 8;
    cfg.out_heads = 2;
    cfg.in_dropout = cfg.att_dropout = dropout;
    cfg.score = score;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 21), GAT_OK);
    gat_model_set_threads(m, threads);
    return m;
}

/* Everything a caller reads after a training forward and a backward. */
typedef struct results {
    gat_real *out[2], *alpha[2], *grads;
    gat_idx *pred;
} results;

static void run(gat_model *m, const gat_graph *g, const gat_csr *x, const gat_idx *rows,
                gat_idx n_rows, results *r)
{
    const gat_real *p;
    size_t P;
    const size_t n = (size_t)g->n;
    gat_real *d = malloc(n * C * sizeof *d);
    ck_assert_ptr_nonnull(d);
    tu_uniform(d, n * C, -1, 1, 3);
    const gat_i_binding b = {.g = g, .x = x, .rows = rows, .n_rows = n_rows};
    ck_assert_int_eq(gat_i_model_forward(m, &b, &(gat_i_run){.training = 1}, &p), GAT_OK);
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    gat_model_grads(m, &P);
    r->grads = malloc(P * sizeof *r->grads);
    memcpy(r->grads, gat_model_grads(m, &P), P * sizeof *r->grads);
    for (int l = 0; l < 2; l++) {
        const size_t w = (size_t)gat_model_layer_width(m, l), H = (size_t)gat_model_layer_heads(m, l);
        r->out[l] = malloc(n * w * sizeof *p);
        r->alpha[l] = malloc((size_t)g->nnz * H * sizeof *p);
        ck_assert_int_eq(gat_model_layer_output(m, l, &p), GAT_OK);
        memcpy(r->out[l], p, n * w * sizeof *p);
        ck_assert_int_eq(gat_model_attention(m, l, &p), GAT_OK);
        memcpy(r->alpha[l], p, (size_t)g->nnz * H * sizeof *p);
    }
    r->pred = malloc(n * sizeof *r->pred);
    ck_assert_int_eq(gat_model_predict(m, g, x, r->pred, NULL), GAT_OK);
    free(d);
}

static void results_free(results *r)
{
    for (int l = 0; l < 2; l++)
        free(r->out[l]), free(r->alpha[l]);
    free(r->grads);
    free(r->pred);
}

/* Without dropout, a model bound in each order computes what the unordered one does (up to
 * summation order), every result in the caller's order; with restricted output rows too. */
START_TEST(ordered_model_matches)
{
    static const gat_score scores[] = {GAT_SCORE_GAT, GAT_SCORE_GATV2, GAT_SCORE_COSINE};
    const gat_score score = scores[_i];
    gat_graph g;
    gat_csr x;
    tu_graph_skewed(&g, 40, 300, GAT_GRAPH_SYMMETRIZE, 3);
    tu_features(&x, g.n, F, 0.3, 4);
    gat_idx rows[] = {0, 5, 17, 100, 250, g.n - 1};
    for (int restricted = 0; restricted < 2; restricted++) {
        gat_model *ref = make_model(score, 0, 1);
        ck_assert_int_eq(gat_model_set_order(ref, GAT_ORDER_NONE), GAT_OK);
        results want;
        run(ref, &g, &x, restricted ? rows : NULL, restricted ? (gat_idx)LEN(rows) : 0, &want);
        size_t P;
        gat_model_params(ref, &P);
        for (int o = GAT_ORDER_RCM; o < GAT_ORDER_COUNT; o++) {
            gat_model *m = make_model(score, 0, 1);
            ck_assert_int_eq(gat_model_set_order(m, (gat_order)o), GAT_OK);
            results got;
            run(m, &g, &x, restricted ? rows : NULL, restricted ? (gat_idx)LEN(rows) : 0, &got);
            double secs;
            ck_assert_int_eq(gat_model_order(m, &secs), o);
            ck_assert(secs >= 0);
            for (int l = 0; l < 2; l++) {
                const size_t w = (size_t)gat_model_layer_width(m, l),
                             H = (size_t)gat_model_layer_heads(m, l);
                const double eo = tu_max_rel_err(got.out[l], want.out[l], (size_t)g.n * w, 1e-3, NULL);
                const double ea = tu_max_rel_err(got.alpha[l], want.alpha[l], (size_t)g.nnz * H,
                                                 1e-3, NULL);
                ck_assert_msg(eo < 1e-4 && ea < 1e-4, "order %s, layer %d: outputs differ by %g, "
                              "attention by %g", gat_order_name((gat_order)o), l, eo, ea);
            }
            const double eg = tu_max_rel_err(got.grads, want.grads, P, 1e-2, NULL);
            ck_assert_msg(eg < 1e-4, "order %s: gradients differ by %g (restricted %d)",
                          gat_order_name((gat_order)o), eg, restricted);
            ck_assert_mem_eq(got.pred, want.pred, (size_t)g.n * sizeof *got.pred);
            results_free(&got);
            gat_model_free(m);
        }
        /* below the size where it pays, auto keeps the caller's order */
        ck_assert_int_eq(gat_model_order(ref, NULL), GAT_ORDER_NONE);
        results_free(&want);
        gat_model_free(ref);
    }
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* With dropout, an ordered model's results are the same bits on 1, 2 and 3 threads. */
START_TEST(ordered_threads_identical)
{
    gat_graph g;
    gat_csr x;
    tu_graph_skewed(&g, 60, 2000, GAT_GRAPH_SYMMETRIZE, 8);
    tu_features(&x, g.n, F, 0.3, 9);
    results r[3];
    size_t P = 0;
    for (int t = 0; t < 3; t++) {
        gat_model *m = make_model(GAT_SCORE_GAT, 0.4, t + 1);
        ck_assert_int_eq(gat_model_set_order(m, GAT_ORDER_RCM), GAT_OK);
        gat_model_params(m, &P);
        run(m, &g, &x, NULL, 0, &r[t]);
        gat_model_free(m);
    }
    for (int t = 1; t < 3; t++) {
        ck_assert_mem_eq(r[t].grads, r[0].grads, P * sizeof *r[0].grads);
        ck_assert_mem_eq(r[t].out[1], r[0].out[1], (size_t)g.n * C * sizeof *r[0].out[1]);
        ck_assert_mem_eq(r[t].alpha[0], r[0].alpha[0], (size_t)g.nnz * 3 * sizeof *r[0].alpha[0]);
    }
    for (int t = 0; t < 3; t++)
        results_free(&r[t]);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

START_TEST(ordered_bind_allocation_failures)
{
    gat_graph g;
    gat_csr x;
    const gat_real *out;
    tu_graph_skewed(&g, 30, 100, GAT_GRAPH_SYMMETRIZE, 2);
    tu_features(&x, g.n, F, 0.3, 1);
    gat_model *m = make_model(GAT_SCORE_GAT, 0, 1);
    ck_assert_int_eq(gat_model_set_order(m, GAT_ORDER_RCM), GAT_OK);
    gat_status st = GAT_ENOMEM;
    long k = 0;
    for (; k < 200 && st == GAT_ENOMEM; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_model_bind(m, &g, &x, 0);
        gat_i_alloc_fail_at(-1);
        if (st != GAT_OK) {
            ck_assert_int_eq(st, GAT_ENOMEM);
            ck_assert_int_eq(gat_model_order(m, NULL), GAT_ORDER_NONE);
        }
    }
    ck_assert_int_eq(st, GAT_OK);
    ck_assert_int_gt(k, 5); /* the order's own allocations were among those failed */
    ck_assert_int_eq(gat_model_order(m, NULL), GAT_ORDER_RCM);
    ck_assert_int_eq(gat_model_forward(m, &g, &x, 1, &out), GAT_OK);
    /* the caller-order copies of outputs and attention allocate on first use */
    for (k = 0; k < 40; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_model_attention(m, 0, &out);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
    }
    ck_assert_int_eq(st, GAT_OK);
    ASSERT_FAILS(gat_model_set_order(m, GAT_ORDER_COUNT), GAT_EINVAL, "is not a gat_order");
    ASSERT_FAILS(gat_model_set_order(NULL, GAT_ORDER_RCM), GAT_EINVAL, "NULL model m");
    gat_model_free(m);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("order");
    TCase *tc = tcase_create("order");
    tcase_add_test(tc, orders_are_permutations);
    tcase_add_test(tc, rcm_recovers_a_band);
    tcase_add_test(tc, permute_keeps_every_edge);
    tcase_add_test(tc, transpose_matches_cxsparse);
    tcase_add_loop_test(tc, ordered_model_matches, 0, 3);
    tcase_add_test(tc, ordered_threads_identical);
    tcase_add_test(tc, ordered_bind_allocation_failures);
    tcase_add_test(tc, auto_reorders_where_it_pays);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
