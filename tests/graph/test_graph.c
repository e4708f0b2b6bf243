/* Check suite of src/graph: hand-computed CSRs, dedupe, self-loops, symmetrisation, a random graph
 * against a dense adjacency, bad input and allocation failures. */
#include "testutil.h"
#include "core/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


static void assert_zeroed(const gat_graph *g)
{
    ck_assert_int_eq(g->n, 0);
    ck_assert_int_eq(g->nnz, 0);
    ck_assert_ptr_null(g->rowptr);
    ck_assert_ptr_null(g->col);
    ck_assert_ptr_null(g->t_rowptr);
    ck_assert_ptr_null(g->t_col);
    ck_assert_ptr_null(g->t_edge);
}

/* Row pointers monotone from 0 to nnz, indices in [0, n) and strictly ascending within a row. */
static void assert_csr(gat_idx n, gat_idx nnz, const gat_idx *rowptr, const gat_idx *col)
{
    ck_assert_int_eq(rowptr[0], 0);
    ck_assert_int_eq(rowptr[n], nnz);
    for (gat_idx i = 0; i < n; i++) {
        ck_assert_int_le(rowptr[i], rowptr[i + 1]);
        for (gat_idx p = rowptr[i]; p < rowptr[i + 1]; p++) {
            ck_assert_int_ge(col[p], 0);
            ck_assert_int_lt(col[p], n);
            if (p > rowptr[i]) ck_assert_int_lt(col[p - 1], col[p]);
        }
    }
}

/* Both CSRs well formed and t_edge a permutation mapping out-position p of row j (edge j -> i,
 * i = t_col[p]) to the edge number e in row i with col[e] == j. */
static void assert_consistent(const gat_graph *g)
{
    assert_csr(g->n, g->nnz, g->rowptr, g->col);
    assert_csr(g->n, g->nnz, g->t_rowptr, g->t_col);
    char *seen = calloc((size_t)g->nnz + 1, 1);
    ck_assert_ptr_nonnull(seen);
    for (gat_idx j = 0; j < g->n; j++) {
        for (gat_idx p = g->t_rowptr[j]; p < g->t_rowptr[j + 1]; p++) {
            gat_idx e = g->t_edge[p], i = g->t_col[p];
            ck_assert_int_ge(e, 0);
            ck_assert_int_lt(e, g->nnz);
            ck_assert(!seen[e]);
            seen[e] = 1;
            ck_assert_int_eq(g->col[e], j);
            ck_assert_int_ge(e, g->rowptr[i]);
            ck_assert_int_lt(e, g->rowptr[i + 1]);
        }
    }
    free(seen);
}

static void assert_idx_eq(const gat_idx *got, const gat_idx *want, size_t len)
{
    for (size_t k = 0; k < len; k++)
        ck_assert_msg(got[k] == want[k], "index %zu: got %d, want %d", k, got[k], want[k]);
}

/* Builds the graph and checks it against the expected in-CSR (n + 1 row pointers). */
static void check_graph(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst, unsigned flags,
                        const gat_idx *rowptr, const gat_idx *col)
{
    gat_graph g;
    ck_assert_int_eq(gat_graph_from_edges(&g, n, m, src, dst, flags), GAT_OK);
    ck_assert_int_eq(g.n, n);
    ck_assert_int_eq(g.nnz, rowptr[n]);
    assert_idx_eq(g.rowptr, rowptr, (size_t)n + 1);
    assert_idx_eq(g.col, col, (size_t)rowptr[n]);
    assert_consistent(&g);
    gat_graph_destroy(&g);
    assert_zeroed(&g);
}

START_TEST(test_directed)
{
    const gat_idx src[] = {3, 0, 1, 4, 2}, dst[] = {1, 1, 2, 0, 1};
    gat_graph g;
    ck_assert_int_eq(gat_graph_from_edges(&g, 5, LEN(src), src, dst, 0), GAT_OK);
    const gat_idx rowptr[] = {0, 2, 6, 8, 9, 10}, col[] = {0, 4, 0, 1, 2, 3, 1, 2, 3, 4};
    const gat_idx t_rowptr[] = {0, 2, 4, 6, 8, 10}, t_col[] = {0, 1, 1, 2, 1, 2, 1, 3, 0, 4};
    ck_assert_int_eq(g.n, 5);
    ck_assert_int_eq(g.nnz, 10);
    assert_idx_eq(g.rowptr, rowptr, LEN(rowptr));
    assert_idx_eq(g.col, col, LEN(col));
    assert_idx_eq(g.t_rowptr, t_rowptr, LEN(t_rowptr));
    assert_idx_eq(g.t_col, t_col, LEN(t_col));
    assert_consistent(&g);
    ck_assert_int_eq(gat_graph_degree(&g, 1), 4);
    ck_assert_str_eq(gat_last_error(), "");
    gat_graph_destroy(&g);
}
END_TEST

START_TEST(test_dupes_and_loops)
{
    /* Node 3 is isolated; 0 -> 1 three times; input loops on 1 and 2. */
    const gat_idx src[] = {0, 0, 1, 2, 0, 2}, dst[] = {1, 1, 1, 1, 1, 2};
    const gat_idx rowptr[] = {0, 1, 4, 5, 6}, col[] = {0, 0, 1, 2, 2, 3};
    check_graph(4, LEN(src), src, dst, 0, rowptr, col);
    const gat_idx rowptr_nl[] = {0, 0, 2, 2, 2}, col_nl[] = {0, 2};
    check_graph(4, LEN(src), src, dst, GAT_GRAPH_NO_SELF_LOOPS, rowptr_nl, col_nl);
}
END_TEST

START_TEST(test_only_loops_no_self_loops)
{
    const gat_idx src[] = {0, 1, 1}, dst[] = {0, 1, 1};
    const gat_idx rowptr[] = {0, 0, 0, 0};
    check_graph(3, LEN(src), src, dst, GAT_GRAPH_NO_SELF_LOOPS, rowptr, NULL);
    check_graph(3, 0, NULL, NULL, GAT_GRAPH_NO_SELF_LOOPS | GAT_GRAPH_SYMMETRIZE, rowptr, NULL);
}
END_TEST

START_TEST(test_symmetrize)
{
    /* 0 <-> 1 given in both directions, 1 -> 2 once. */
    const gat_idx src[] = {0, 1, 1}, dst[] = {1, 0, 2};
    const gat_idx rowptr[] = {0, 1, 3, 4}, col[] = {1, 0, 2, 1};
    check_graph(3, LEN(src), src, dst, GAT_GRAPH_SYMMETRIZE | GAT_GRAPH_NO_SELF_LOOPS, rowptr, col);
    const gat_idx rowptr_l[] = {0, 2, 5, 7}, col_l[] = {0, 1, 0, 1, 2, 1, 2};
    check_graph(3, LEN(src), src, dst, GAT_GRAPH_SYMMETRIZE, rowptr_l, col_l);
}
END_TEST

START_TEST(test_empty)
{
    gat_graph g;
    ck_assert_int_eq(gat_graph_from_edges(&g, 0, 0, NULL, NULL, 0), GAT_OK);
    ck_assert_int_eq(g.n, 0);
    ck_assert_int_eq(g.nnz, 0);
    ck_assert_ptr_nonnull(g.rowptr);
    ck_assert_ptr_nonnull(g.t_rowptr);
    ck_assert_int_eq(g.rowptr[0], 0);
    ck_assert_int_eq(g.t_rowptr[0], 0);
    gat_graph_destroy(&g);
    assert_zeroed(&g);
}
END_TEST

START_TEST(test_single_node)
{
    const gat_idx rowptr[] = {0, 1}, col[] = {0};
    check_graph(1, 0, NULL, NULL, 0, rowptr, col);
    const gat_idx src[] = {0}, dst[] = {0};
    check_graph(1, 1, src, dst, GAT_GRAPH_SYMMETRIZE, rowptr, col);
    const gat_idx rowptr_nl[] = {0, 0};
    check_graph(1, 1, src, dst, GAT_GRAPH_NO_SELF_LOOPS, rowptr_nl, NULL);
}
END_TEST

/* Expected in-CSR from a dense n x n adjacency adj[i * n + j] (edge j -> i). */
static void dense_to_csr(gat_idx n, const char *adj, gat_idx *rowptr, gat_idx *col)
{
    gat_idx e = 0;
    rowptr[0] = 0;
    for (gat_idx i = 0; i < n; i++) {
        for (gat_idx j = 0; j < n; j++)
            if (adj[(size_t)i * (size_t)n + (size_t)j]) col[e++] = j;
        rowptr[i + 1] = e;
    }
}

/* The provenance rule of gat_graph_from_edges_mapped, by brute force: the smallest k giving the
 * edge j -> i in its own direction, else (SYMMETRIZE) the smallest k giving i -> j, else -1. */
static gat_idx expected_input(size_t m, const gat_idx *src, const gat_idx *dst, unsigned flags,
                              gat_idx j, gat_idx i)
{
    for (size_t k = 0; k < m; k++)
        if (src[k] == j && dst[k] == i && j != i) return (gat_idx)k;
    if (flags & GAT_GRAPH_SYMMETRIZE)
        for (size_t k = 0; k < m; k++)
            if (src[k] == i && dst[k] == j && j != i) return (gat_idx)k;
    return -1;
}

/* gat_graph_from_edges_mapped gives gat_graph_from_edges's graph and edge_input by the rule. */
static void check_provenance(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst,
                             unsigned flags)
{
    gat_graph g, h;
    const size_t room = GAT_GRAPH_MAX_EDGES(n, m, flags);
    gat_idx *map = malloc((room + 1) * sizeof *map);
    ck_assert_ptr_nonnull(map);
    ck_assert_int_eq(gat_graph_from_edges_mapped(&g, n, m, src, dst, flags, map), GAT_OK);
    ck_assert_int_eq(gat_graph_from_edges(&h, n, m, src, dst, flags), GAT_OK);
    ck_assert_int_eq(g.nnz, h.nnz);
    ck_assert_int_le((size_t)g.nnz, room);
    assert_idx_eq(g.rowptr, h.rowptr, (size_t)n + 1);
    assert_idx_eq(g.col, h.col, (size_t)g.nnz);
    assert_idx_eq(g.t_edge, h.t_edge, (size_t)g.nnz);
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx e = g.rowptr[i]; e < g.rowptr[i + 1]; e++) {
            const gat_idx want = expected_input(m, src, dst, flags, g.col[e], i);
            ck_assert_msg(map[e] == want, "edge %d (%d -> %d): edge_input %d, want %d", e,
                          g.col[e], i, map[e], want);
        }
    free(map);
    gat_graph_destroy(&g);
    gat_graph_destroy(&h);
}

START_TEST(test_provenance)
{
    /* 0 -> 1 three times (k = 0, 1, 4), loops on 1 (k = 2) and 2 (k = 5), 2 -> 1 (k = 3), 1 -> 0
     * (k = 6) after its reverse, node 3 isolated. */
    const gat_idx src[] = {0, 0, 1, 2, 0, 2, 1}, dst[] = {1, 1, 1, 1, 1, 2, 0};
    gat_idx map[2 * LEN(src) + 4];
    gat_graph g;
    ck_assert_int_eq(gat_graph_from_edges_mapped(&g, 4, LEN(src), src, dst, 0, map), GAT_OK);
    /* rows: 0 <- {0, 1}, 1 <- {0, 1, 2}, 2 <- {2}, 3 <- {3} */
    const gat_idx want[] = {-1, 6, 0, -1, 3, -1, -1};
    ck_assert_int_eq(g.nnz, LEN(want));
    assert_idx_eq(map, want, LEN(want));
    gat_graph_destroy(&g);
    /* symmetrised: 1 -> 0 is given itself (k = 6), 0 -> 1 too (k = 0); 1 -> 2 only as 2 -> 1 */
    ck_assert_int_eq(
        gat_graph_from_edges_mapped(&g, 4, LEN(src), src, dst, GAT_GRAPH_SYMMETRIZE, map), GAT_OK);
    /* rows: 0 <- {0, 1}, 1 <- {0, 1, 2}, 2 <- {1, 2}, 3 <- {3} */
    const gat_idx want_sym[] = {-1, 6, 0, -1, 3, 3, -1, -1};
    ck_assert_int_eq(g.nnz, LEN(want_sym));
    assert_idx_eq(map, want_sym, LEN(want_sym));
    gat_graph_destroy(&g);
    /* without self-loops no -1 remains */
    ck_assert_int_eq(gat_graph_from_edges_mapped(&g, 4, LEN(src), src, dst,
                                                 GAT_GRAPH_NO_SELF_LOOPS, map),
                     GAT_OK);
    const gat_idx want_nl[] = {6, 0, 3};
    ck_assert_int_eq(g.nnz, LEN(want_nl));
    assert_idx_eq(map, want_nl, LEN(want_nl));
    gat_graph_destroy(&g);
    /* the empty graph writes nothing; NULL edge_input is gat_graph_from_edges */
    map[0] = 77;
    ck_assert_int_eq(gat_graph_from_edges_mapped(&g, 0, 0, NULL, NULL, 0, map), GAT_OK);
    ck_assert_int_eq(g.nnz, 0);
    ck_assert_int_eq(map[0], 77);
    gat_graph_destroy(&g);
    ck_assert_int_eq(gat_graph_from_edges_mapped(&g, 4, LEN(src), src, dst, 0, NULL), GAT_OK);
    ck_assert_int_eq(g.nnz, LEN(want));
    gat_graph_destroy(&g);
    /* 64-bit ids: the same map */
    const int64_t src64[] = {0, 0, 1, 2, 0, 2, 1}, dst64[] = {1, 1, 1, 1, 1, 2, 0};
    ck_assert_int_eq(gat_graph_from_edges64_mapped(&g, 4, LEN(src64), src64, dst64,
                                                   GAT_GRAPH_SYMMETRIZE, map),
                     GAT_OK);
    assert_idx_eq(map, want_sym, LEN(want_sym));
    gat_graph_destroy(&g);
    /* bad input names the function called */
    memset(&g, 0xAB, sizeof g);
    ASSERT_FAILS(gat_graph_from_edges_mapped(&g, 4, LEN(src), src, dst, 8u, map), GAT_EINVAL,
                 "gat_graph_from_edges_mapped: unknown flags 0x8");
    assert_zeroed(&g);
    ASSERT_FAILS(gat_graph_from_edges64_mapped(&g, 2, LEN(src64), src64, dst64, 0, map),
                 GAT_EINVAL, "gat_graph_from_edges64_mapped: edge 3 (2 -> 1)");
    assert_zeroed(&g);
}
END_TEST

START_TEST(test_random_vs_dense)
{
    enum { N = 200, M = 2000 };
    static gat_idx src[M], dst[M], rowptr[N + 1], col[N * N];
    static char adj[N * N];
    gat_rng rng;
    gat_rng_seed(&rng, 20240601u + (uint64_t)_i);
    for (size_t k = 0; k < M; k++) {
        src[k] = (gat_idx)gat_rng_below(&rng, N);
        /* About one edge in ten repeats an earlier one or is a self-loop. */
        if (k > 0 && gat_rng_below(&rng, 10) == 0) {
            size_t r = gat_rng_below(&rng, k);
            src[k] = src[r];
            dst[k] = dst[r];
        } else if (gat_rng_below(&rng, 20) == 0) {
            dst[k] = src[k];
        } else {
            dst[k] = (gat_idx)gat_rng_below(&rng, 60); /* nodes 60..199 receive no edges */
        }
    }
    const unsigned flags = (unsigned)_i;
    memset(adj, 0, sizeof adj);
    for (size_t k = 0; k < M; k++) {
        if (src[k] == dst[k]) continue;
        adj[(size_t)dst[k] * N + (size_t)src[k]] = 1;
        if (flags & GAT_GRAPH_SYMMETRIZE) adj[(size_t)src[k] * N + (size_t)dst[k]] = 1;
    }
    if (!(flags & GAT_GRAPH_NO_SELF_LOOPS))
        for (size_t i = 0; i < N; i++)
            adj[i * N + i] = 1;
    dense_to_csr(N, adj, rowptr, col);
    check_graph(N, M, src, dst, flags, rowptr, col);
    check_provenance(N, M, src, dst, flags);
}
END_TEST

static void check_bad(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst, unsigned flags,
                      const char *needle)
{
    gat_graph g;
    memset(&g, 0xAB, sizeof g);
    ck_assert_int_eq(gat_graph_from_edges(&g, n, m, src, dst, flags), GAT_EINVAL);
    assert_zeroed(&g);
    ck_assert_msg(strstr(gat_last_error(), needle) != NULL, "message \"%s\" lacks \"%s\"",
                  gat_last_error(), needle);
}

START_TEST(test_bad_input)
{
    const gat_idx src[] = {0, 1, -1, 2}, dst[] = {1, 2, 0, 7}, ok[] = {0, 1, 2, 0};
    ck_assert_int_eq(gat_graph_from_edges(NULL, 3, 0, NULL, NULL, 0), GAT_EINVAL);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "NULL graph"));
    check_bad(-1, 0, NULL, NULL, 0, "n = -1");
    check_bad(3, 2, NULL, dst, 0, "NULL");
    check_bad(3, 2, src, NULL, 0, "NULL");
    check_bad(3, 4, src, dst, 0, "edge 2 has source id -1");
    check_bad(3, 4, ok, dst, 0, "edge 3 has target id 7");
    check_bad(3, 2, ok, ok, 4u, "unknown flags 0x4");
    /* The size check reads no edges, so short arrays suffice. */
    check_bad(3, (size_t)INT32_MAX, ok, ok, 0, "exceed 32-bit");
    check_bad(3, (size_t)INT32_MAX / 2, ok, ok, GAT_GRAPH_SYMMETRIZE, "exceed 32-bit");
    check_bad(3, SIZE_MAX, ok, ok, GAT_GRAPH_SYMMETRIZE, "exceed 32-bit");
    check_bad(INT32_MAX, 0, NULL, NULL, GAT_GRAPH_NO_SELF_LOOPS, "exceed 32-bit");
    /* A success clears the message of the previous failure. */
    gat_graph g;
    ck_assert_int_eq(gat_graph_from_edges(&g, 3, 4, ok, ok, 0), GAT_OK);
    ck_assert_str_eq(gat_last_error(), "");
    gat_graph_destroy(&g);
}
END_TEST

START_TEST(test_destroy)
{
    gat_graph_destroy(NULL);
    gat_graph g = {0};
    gat_graph_destroy(&g);
    assert_zeroed(&g);
    ck_assert_int_eq(gat_graph_from_edges(&g, 2, 0, NULL, NULL, 0), GAT_OK);
    gat_graph_destroy(&g);
    assert_zeroed(&g);
    gat_graph_destroy(&g);
    assert_zeroed(&g);
}
END_TEST

START_TEST(test_alloc_failure)
{
    const gat_idx src[] = {0, 1, 2, 2, 3}, dst[] = {1, 2, 0, 2, 1};
    gat_graph g;
    long k = 0;
    for (;; k++) {
        gat_i_alloc_fail_at(k);
        memset(&g, 0xAB, sizeof g);
        gat_status st = gat_graph_from_edges(&g, 5, LEN(src), src, dst, GAT_GRAPH_SYMMETRIZE);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_str_ne(gat_last_error(), "");
        assert_zeroed(&g);
    }
    /* The first success is the first k beyond the number of allocations made. */
    ck_assert_int_eq(gat_i_alloc_fail_at(-1), k);
    ck_assert_int_gt(k, 0);
    ck_assert_int_eq(g.nnz, 5 + 8); /* 4 undirected pairs and 5 loops */
    assert_consistent(&g);
    gat_graph_destroy(&g);
    /* the mapped build makes one allocation more (the codes) and fails as cleanly */
    gat_idx map[2 * LEN(src) + 5];
    long k_mapped = 0;
    for (;; k_mapped++) {
        gat_i_alloc_fail_at(k_mapped);
        memset(&g, 0xAB, sizeof g);
        gat_status st = gat_graph_from_edges_mapped(&g, 5, LEN(src), src, dst,
                                                    GAT_GRAPH_SYMMETRIZE, map);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_str_ne(gat_last_error(), "");
        assert_zeroed(&g);
    }
    ck_assert_int_eq(gat_i_alloc_fail_at(-1), k_mapped);
    ck_assert_int_eq(k_mapped, k + 1);
    ck_assert_int_eq(g.nnz, 5 + 8);
    gat_graph_destroy(&g);
}
END_TEST

static Suite *graph_suite(void)
{
    Suite *s = suite_create("graph");
    struct {
        const char *name;
        const TTest *test;
    } cases[] = {
        {"directed", test_directed},
        {"dupes_and_loops", test_dupes_and_loops},
        {"only_loops_no_self_loops", test_only_loops_no_self_loops},
        {"symmetrize", test_symmetrize},
        {"empty", test_empty},
        {"single_node", test_single_node},
        {"bad_input", test_bad_input},
        {"destroy", test_destroy},
        {"alloc_failure", test_alloc_failure},
        {"provenance", test_provenance},
    };
    for (size_t c = 0; c < LEN(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_add_test(tc, cases[c].test);
        suite_add_tcase(s, tc);
    }
    /* All four flag combinations, one seed each. */
    TCase *tc = tcase_create("random_vs_dense");
    tcase_add_loop_test(tc, test_random_vs_dense, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(graph_suite());
}
