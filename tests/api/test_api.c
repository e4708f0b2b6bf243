/* Check suite of the public construction API: every constructor's bad arguments, edge list /
 * 64-bit edge list / CSR / igraph giving identical graphs and identical model outputs, datasets
 * from parts, two trainings in two threads against one after the other, and the graph-file
 * reader on every igraph format plus malformed files. */
#include "testutil.h"
#include "core/core.h"

#include "gat/gat_igraph.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


static void assert_graph_zeroed(const gat_graph *g)
{
    ck_assert_int_eq(g->n, 0);
    ck_assert_int_eq(g->nnz, 0);
    ck_assert_ptr_null(g->rowptr);
    ck_assert_ptr_null(g->col);
    ck_assert_ptr_null(g->t_edge);
}

static void assert_graph_eq(const gat_graph *a, const gat_graph *b)
{
    ck_assert_int_eq(a->n, b->n);
    ck_assert_int_eq(a->nnz, b->nnz);
    ck_assert_mem_eq(a->rowptr, b->rowptr, ((size_t)a->n + 1) * sizeof *a->rowptr);
    ck_assert_mem_eq(a->t_rowptr, b->t_rowptr, ((size_t)a->n + 1) * sizeof *a->rowptr);
    if (a->nnz == 0) return;
    ck_assert_mem_eq(a->col, b->col, (size_t)a->nnz * sizeof *a->col);
    ck_assert_mem_eq(a->t_col, b->t_col, (size_t)a->nnz * sizeof *a->col);
    ck_assert_mem_eq(a->t_edge, b->t_edge, (size_t)a->nnz * sizeof *a->col);
}

static void assert_csr_eq(const gat_csr *a, const gat_csr *b)
{
    ck_assert_int_eq(a->rows, b->rows);
    ck_assert_int_eq(a->cols, b->cols);
    ck_assert_mem_eq(a->rowptr, b->rowptr, ((size_t)a->rows + 1) * sizeof *a->rowptr);
    const size_t nnz = (size_t)a->rowptr[a->rows];
    if (nnz == 0) return;
    ck_assert_mem_eq(a->col, b->col, nnz * sizeof *a->col);
    ck_assert_mem_eq(a->val, b->val, nnz * sizeof *a->val);
}

/* A random multigraph on n nodes with m edges (duplicates and self-loops included). */
static void random_edges(gat_idx n, size_t m, gat_idx *src, gat_idx *dst, uint64_t seed)
{
    gat_rng r;
    gat_rng_seed(&r, seed);
    for (size_t e = 0; e < m; e++) {
        src[e] = (gat_idx)gat_rng_below(&r, (uint64_t)n);
        dst[e] = (gat_idx)gat_rng_below(&r, (uint64_t)n);
    }
}

/* ---- Bad arguments ----------------------------------------------------------------------- */

START_TEST(graph_ctors_reject_bad_input)
{
    const int64_t s64[] = {0, 1, 2}, d64[] = {1, 2, 0};
    const int64_t neg[] = {0, -1}, big[] = {0, (int64_t)1 << 40}, ok2[] = {1, 0};
    gat_graph g;
    memset(&g, 0xab, sizeof g);

    ASSERT_FAILS(gat_graph_from_edges64(NULL, 3, 3, s64, d64, 0), GAT_EINVAL, "NULL graph");
    ASSERT_FAILS(gat_graph_from_edges64(&g, -1, 3, s64, d64, 0), GAT_EINVAL, "n = -1");
    assert_graph_zeroed(&g);
    ASSERT_FAILS(gat_graph_from_edges64(&g, (int64_t)1 << 33, 0, NULL, NULL, 0), GAT_EINVAL,
                 "outside [0, 2147483647)");
    ASSERT_FAILS(gat_graph_from_edges64(&g, 3, 3, NULL, d64, 0), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_graph_from_edges64(&g, 3, 2, neg, ok2, 0), GAT_EINVAL, "edge 1 (-1 -> 0)");
    ASSERT_FAILS(gat_graph_from_edges64(&g, 3, 2, ok2, big, 0), GAT_EINVAL,
                 "edge 1 (0 -> 1099511627776)");
    ASSERT_FAILS(gat_graph_from_edges64(&g, 2, 3, s64, d64, 0), GAT_EINVAL, "outside [0, 2)");
    ASSERT_FAILS(gat_graph_from_edges64(&g, 3, 3, s64, d64, 8u), GAT_EINVAL, "unknown flags");
    assert_graph_zeroed(&g);

    const gat_idx rp_ok[] = {0, 1, 2, 3}, col_ok[] = {1, 2, 0};
    const gat_idx rp_start[] = {1, 1, 2, 3}, rp_down[] = {0, 2, 1, 3}, col_bad[] = {1, 3, 0};
    ASSERT_FAILS(gat_graph_from_csr(NULL, 3, rp_ok, col_ok, 0), GAT_EINVAL, "NULL graph");
    ASSERT_FAILS(gat_graph_from_csr(&g, -2, rp_ok, col_ok, 0), GAT_EINVAL, "n = -2");
    ASSERT_FAILS(gat_graph_from_csr(&g, 3, NULL, col_ok, 0), GAT_EINVAL, "NULL rowptr");
    ASSERT_FAILS(gat_graph_from_csr(&g, 3, rp_ok, NULL, 0), GAT_EINVAL, "col is NULL");
    ASSERT_FAILS(gat_graph_from_csr(&g, 3, rp_start, col_ok, 0), GAT_EINVAL, "rowptr[0] is 1");
    ASSERT_FAILS(gat_graph_from_csr(&g, 3, rp_down, col_ok, 0), GAT_EINVAL,
                 "rowptr decreases at row 1");
    ASSERT_FAILS(gat_graph_from_csr(&g, 3, rp_ok, col_bad, 0), GAT_EINVAL,
                 "col[1] = 3 (row 1) outside [0, 3)");
    ASSERT_FAILS(gat_graph_from_csr(&g, 3, rp_ok, col_ok, 4u), GAT_EINVAL, "unknown flags");
    assert_graph_zeroed(&g);

    /* a copy checks its source: a corrupted t_edge is refused */
    gat_graph src, bad;
    ck_assert_int_eq(gat_graph_from_csr(&src, 3, rp_ok, col_ok, 0), GAT_OK);
    ASSERT_FAILS(gat_graph_copy(&g, NULL), GAT_EINVAL, "NULL graph");
    ASSERT_FAILS(gat_graph_copy(NULL, &src), GAT_EINVAL, "NULL destination");
    bad = src;
    gat_idx t_edge[16];
    memcpy(t_edge, src.t_edge, (size_t)src.nnz * sizeof *t_edge);
    t_edge[0] = t_edge[1];
    bad.t_edge = t_edge;
    ASSERT_FAILS(gat_graph_copy(&g, &bad), GAT_EINVAL, "t_edge[0]");
    bad = src;
    bad.nnz = -1;
    ASSERT_FAILS(gat_graph_copy(&g, &bad), GAT_EINVAL, "out of range");
    assert_graph_zeroed(&g);
    gat_graph_destroy(&src);
}
END_TEST

START_TEST(csr_ctors_reject_bad_input)
{
    const gat_idx rp[] = {0, 2, 3}, col[] = {0, 2, 1}, col_desc[] = {2, 0, 1},
                  col_out[] = {0, 5, 1}, rp_bad[] = {0, 3, 2};
    const gat_real val[] = {1, 2, 3}, val_nan[] = {1, NAN, 3}, val_inf[] = {1, 2, INFINITY};
    gat_csr a;
    memset(&a, 0xab, sizeof a);

    ASSERT_FAILS(gat_csr_from_arrays(NULL, 2, 3, rp, col, val), GAT_EINVAL, "NULL matrix");
    ASSERT_FAILS(gat_csr_from_arrays(&a, -1, 3, rp, col, val), GAT_EINVAL, "negative size");
    ck_assert_ptr_null(a.rowptr);
    ASSERT_FAILS(gat_csr_from_arrays(&a, 2, 3, NULL, col, val), GAT_EINVAL, "NULL rowptr");
    ASSERT_FAILS(gat_csr_from_arrays(&a, 2, 3, rp, NULL, val), GAT_EINVAL, "col is NULL");
    ASSERT_FAILS(gat_csr_from_arrays(&a, 2, 3, rp_bad, col, val), GAT_EINVAL,
                 "rowptr decreases at row 1");
    ASSERT_FAILS(gat_csr_from_arrays(&a, 2, 3, rp, col_out, val), GAT_EINVAL,
                 "row 0 has column 5 outside [0, 3)");
    ASSERT_FAILS(gat_csr_from_arrays(&a, 2, 3, rp, col_desc, val), GAT_EINVAL,
                 "strictly ascending");
    ASSERT_FAILS(gat_csr_from_arrays(&a, 2, 3, rp, col, val_nan), GAT_ENUMERIC, "row 0, column 2");
    ASSERT_FAILS(gat_csr_from_arrays(&a, 2, 3, rp, col, val_inf), GAT_ENUMERIC, "row 1, column 1");
    ck_assert_ptr_null(a.rowptr);

    ck_assert_int_eq(gat_csr_from_arrays(&a, 2, 3, rp, col, NULL), GAT_OK); /* a pattern */
    ck_assert(a.val[0] == 1 && a.val[1] == 1 && a.val[2] == 1);
    gat_csr b, c;
    ck_assert_int_eq(gat_csr_copy(&b, &a), GAT_OK);
    assert_csr_eq(&a, &b);
    a.col[0] = 7;
    ASSERT_FAILS(gat_csr_copy(&c, &a), GAT_EINVAL, "column 7");
    ASSERT_FAILS(gat_csr_copy(&c, NULL), GAT_EINVAL, "NULL source");
    ASSERT_FAILS(gat_csr_identity(&c, -3), GAT_EINVAL, "negative size -3");
    ASSERT_FAILS(gat_csr_identity(NULL, 3), GAT_EINVAL, "NULL matrix");
    const gat_real dense[] = {0, 1, NAN, 0};
    ASSERT_FAILS(gat_csr_from_dense(&c, 2, 2, dense), GAT_ENUMERIC, "row 1, column 0");
    ck_assert_ptr_null(c.rowptr);
    gat_csr_destroy(&a);
    gat_csr_destroy(&b);
}
END_TEST

/* Column moments over chosen rows against a hand computation (implicit zeros counted), and the
 * standardised matrix: the scaled columns stored in every row, the others as they were. */
START_TEST(csr_standardize_columns_by_hand)
{
    /* 4 x 3: rows {1, _, 5}, {_, 2, _}, {3, _, 7}, {100, _, _}; row 3 is not used */
    const gat_idx rp[] = {0, 2, 3, 5, 6}, col[] = {0, 2, 1, 0, 2, 0};
    const gat_real val[] = {1, 5, 2, 3, 7, 100};
    const uint8_t use[] = {1, 1, 1, 0};
    gat_csr x, y;
    ck_assert_int_eq(gat_csr_from_arrays(&x, 4, 3, rp, col, val), GAT_OK);
    gat_real shift[2], scale[2];
    ck_assert_int_eq(gat_csr_column_moments(&x, 2, use, shift, scale), GAT_OK);
    /* column 0 over rows 0-2: 1, 0, 3: mean 4/3, variance (1/9 + 16/9 + 25/9) / 3 = 14/9 */
    ck_assert_double_eq_tol(shift[0], 4.0 / 3, 1e-6);
    ck_assert_double_eq_tol(scale[0], 1 / sqrt(14.0 / 9), 1e-6);
    /* column 1: 0, 2, 0: mean 2/3, variance (4/9 + 16/9 + 4/9) / 3 = 8/9 */
    ck_assert_double_eq_tol(shift[1], 2.0 / 3, 1e-6);
    ck_assert_double_eq_tol(scale[1], 1 / sqrt(8.0 / 9), 1e-6);
    ck_assert_int_eq(gat_csr_standardize_columns(&x, 2, shift, scale, &y), GAT_OK);
    ck_assert_int_eq(gat_csr_check(&y), GAT_OK);
    ck_assert_int_eq(y.rows, 4);
    ck_assert_int_eq(y.cols, 3);
    const gat_idx want_rp[] = {0, 3, 5, 8, 10}, want_col[] = {0, 1, 2, 0, 1, 0, 1, 2, 0, 1};
    const gat_real x0[] = {1, 0, 3, 100}, x1[] = {0, 2, 0, 0};
    for (int r = 0; r < 5; r++)
        ck_assert_int_eq(y.rowptr[r], want_rp[r]);
    for (int k = 0; k < 10; k++)
        ck_assert_int_eq(y.col[k], want_col[k]);
    for (int r = 0; r < 4; r++) {
        const gat_idx k = y.rowptr[r];
        ck_assert_double_eq_tol(y.val[k], (x0[r] - shift[0]) * scale[0], 1e-6);
        ck_assert_double_eq_tol(y.val[k + 1], (x1[r] - shift[1]) * scale[1], 1e-6);
    }
    ck_assert(y.val[2] == 5 && y.val[7] == 7); /* column 2 as it was */
    gat_csr_destroy(&y);

    /* every row, all columns; a constant column: centred, scale 1 */
    const gat_idx rpc[] = {0, 1, 2}, colc[] = {0, 0};
    const gat_real valc[] = {4, 4};
    gat_csr c;
    gat_real sh[1], sc[1];
    ck_assert_int_eq(gat_csr_from_arrays(&c, 2, 1, rpc, colc, valc), GAT_OK);
    ck_assert_int_eq(gat_csr_column_moments(&c, 1, NULL, sh, sc), GAT_OK);
    ck_assert(sh[0] == 4 && sc[0] == 1);
    /* no row used: nothing to learn from, the identity transform */
    const uint8_t none[] = {0, 0};
    ck_assert_int_eq(gat_csr_column_moments(&c, 1, none, sh, sc), GAT_OK);
    ck_assert(sh[0] == 0 && sc[0] == 1);
    gat_csr_destroy(&c);

    /* bad input */
    memset(&y, 0xab, sizeof y);
    ASSERT_FAILS(gat_csr_column_moments(NULL, 1, NULL, shift, scale), GAT_EINVAL, "NULL matrix");
    ASSERT_FAILS(gat_csr_column_moments(&x, 4, NULL, shift, scale), GAT_EINVAL,
                 "4 columns to scale, the matrix has 3");
    ASSERT_FAILS(gat_csr_column_moments(&x, 2, NULL, NULL, scale), GAT_EINVAL, "NULL shift");
    ASSERT_FAILS(gat_csr_standardize_columns(&x, -1, shift, scale, &y), GAT_EINVAL,
                 "-1 columns to scale");
    ck_assert_ptr_null(y.rowptr);
    ASSERT_FAILS(gat_csr_standardize_columns(&x, 2, shift, scale, NULL), GAT_EINVAL, "NULL output");
    const gat_real bad_scale[] = {1, INFINITY};
    ASSERT_FAILS(gat_csr_standardize_columns(&x, 2, shift, bad_scale, &y), GAT_ENUMERIC,
                 "column 1: shift");
    const gat_real big[] = {1e38f, 1e38f}, zero[] = {0, 0};
    ASSERT_FAILS(gat_csr_standardize_columns(&x, 2, zero, big, &y), GAT_ENUMERIC,
                 "row 3, column 0");
    ck_assert_ptr_null(y.rowptr);
    x.col[0] = 9;
    ASSERT_FAILS(gat_csr_column_moments(&x, 2, use, shift, scale), GAT_EINVAL, "column 9");
    gat_csr_destroy(&x);
}
END_TEST

START_TEST(dataset_from_parts_rejects_bad_input)
{
    const gat_idx src[] = {0, 1, 2}, dst[] = {1, 2, 3};
    gat_graph g;
    gat_csr x, x3, xnan;
    gat_dataset ds;
    const gat_real dense[] = {1, 0, 0, 1, 1, 1, 0, 2};
    const gat_real dense_nan[] = {1, 0, 0, 1, 1, 1, NAN, 2};
    ck_assert_int_eq(gat_graph_from_edges(&g, 4, 3, src, dst, GAT_GRAPH_SYMMETRIZE), GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(&x, 4, 2, dense), GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(&x3, 3, 2, dense), GAT_OK);
    xnan = x;
    gat_real vals[16];
    memcpy(vals, x.val, (size_t)x.rowptr[4] * sizeof *vals);
    vals[3] = dense_nan[6];
    xnan.val = vals;

    const gat_idx labels[] = {0, 1, -1, 1}, labels_bad[] = {0, 2, 0, 1},
                  labels_neg[] = {0, -2, 0, 1};
    const uint8_t split[] = {1, 2, 0, 3}, split_bad[] = {1, 9, 0, 3}, split_unlab[] = {1, 2, 1, 3};
    const char *ids[] = {"a", "b", "c", "d"}, *ids_dup[] = {"a", "b", "a", "d"},
               *ids_null[] = {"a", NULL, "c", "d"};
    gat_dataset_parts p = {.graph = &g,
                           .features = &x,
                           .labels = labels,
                           .n_classes = 2,
                           .split = split,
                           .node_ids = ids};

    ASSERT_FAILS(gat_dataset_from_parts(NULL, &p, NULL), GAT_EINVAL, "NULL dataset");
    ASSERT_FAILS(gat_dataset_from_parts(&ds, NULL, NULL), GAT_EINVAL, "NULL parts");
    gat_dataset_parts q = p;
    q.features = &x3;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EDIM, "3 rows but the graph has 4");
    q = p, q.features = &xnan;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_ENUMERIC,
                 "non-finite value nan at row 2, column 1");
    q = p, q.labels = labels_bad;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EINVAL,
                 "node 1 has label 2 outside [-1, 2)");
    q = p, q.labels = labels_neg;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EINVAL, "label -2");
    q = p, q.n_classes = -1;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EINVAL, "negative class count");
    q = p, q.split = split_bad;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EINVAL, "node 1 has split value 9");
    q = p, q.split = split_unlab;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EINVAL,
                 "node 2 is in the train split but has no label");
    q = p, q.node_ids = ids_dup;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EINVAL, "node_ids[2] = 'a' repeats");
    q = p, q.node_ids = ids_null;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EINVAL, "node_ids[1] is NULL");
    q = p, q.split = NULL; /* random split: 20 per class, far too many when it must be met */
    gat_dataset_options strict;
    gat_dataset_options_default(&strict);
    strict.split_strict = GAT_SPLIT_STRICT_TRAIN;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, &strict), GAT_EFORMAT,
                 "random split of the labelled nodes: class '0' has 1 nodes");
    gat_graph bad = g;
    bad.n = 3;
    q = p, q.graph = &bad;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, NULL), GAT_EINVAL, "graph");
    ck_assert_int_eq(ds.n, 0);
    ck_assert_ptr_null(ds.labels);

    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
    gat_csr_destroy(&x3);
}
END_TEST

START_TEST(igraph_bridge_rejects_bad_input)
{
    igraph_t ig;
    igraph_vector_int_t edges, labels;
    igraph_matrix_t m;
    gat_graph g;
    gat_csr x;
    gat_dataset ds;
    const igraph_integer_t e[] = {0, 1, 1, 2};
    ck_assert_int_eq(igraph_vector_int_init_array(&edges, e, 4), IGRAPH_SUCCESS);
    ck_assert_int_eq(igraph_create(&ig, &edges, 3, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&edges);

    ASSERT_FAILS(gat_graph_from_igraph(NULL, &ig, 0), GAT_EINVAL, "NULL graph");
    ASSERT_FAILS(gat_graph_from_igraph(&g, NULL, 0), GAT_EINVAL, "NULL igraph graph");
    ASSERT_FAILS(gat_graph_from_igraph(&g, &ig, 16u), GAT_EINVAL, "unknown flags");
    assert_graph_zeroed(&g);

    ck_assert_int_eq(igraph_matrix_init(&m, 3, 2), IGRAPH_SUCCESS);
    MATRIX(m, 2, 1) = NAN;
    ASSERT_FAILS(gat_csr_from_igraph_matrix(&x, &m), GAT_ENUMERIC, "element (2, 1) is nan");
    MATRIX(m, 2, 1) = 1e300;
    ASSERT_FAILS(gat_csr_from_igraph_matrix(&x, &m), GAT_ENUMERIC, "beyond gat_real");
    ASSERT_FAILS(gat_csr_from_igraph_matrix(&x, NULL), GAT_EINVAL, "NULL igraph matrix");
    ck_assert_ptr_null(x.rowptr);
    MATRIX(m, 2, 1) = 0;

    /* attributes need igraph's C attribute handler; without one the graph has none */
    const char *names[] = {"w"};
    ASSERT_FAILS(gat_csr_from_igraph_attributes(&x, &ig, names, 1), GAT_EINVAL,
                 "igraph_set_attribute_table");
    ASSERT_FAILS(gat_csr_from_igraph_attributes(&x, &ig, names, 0), GAT_EINVAL, "count 0");

    ck_assert_int_eq(gat_csr_from_igraph_matrix(&x, &m), GAT_OK);
    ck_assert_int_eq(igraph_vector_int_init(&labels, 2), IGRAPH_SUCCESS);
    ASSERT_FAILS(gat_dataset_from_igraph(&ds, &ig, 0, &x, &labels, NULL, NULL), GAT_EDIM,
                 "labels has 2 elements but the graph has 3 vertices");
    ck_assert_int_eq(igraph_vector_int_resize(&labels, 3), IGRAPH_SUCCESS);
    VECTOR(labels)[1] = -5;
    ASSERT_FAILS(gat_dataset_from_igraph(&ds, &ig, 0, &x, &labels, NULL, NULL), GAT_EINVAL,
                 "labels of vertex 1 is -5");
    ASSERT_FAILS(gat_dataset_from_igraph(&ds, &ig, 0, NULL, &labels, NULL, NULL), GAT_EINVAL,
                 "NULL graph or features");
    ck_assert_int_eq(ds.n, 0);

    igraph_vector_int_destroy(&labels);
    igraph_matrix_destroy(&m);
    gat_csr_destroy(&x);
    igraph_destroy(&ig);
}
END_TEST

START_TEST(igraph_attributes_as_features)
{
    igraph_attribute_table_t *prev = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t ig;
    gat_csr x;
    ck_assert_int_eq(igraph_empty(&ig, 3, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    for (int v = 0; v < 3; v++) {
        ck_assert_int_eq(SETVAN(&ig, "a", v, v), IGRAPH_SUCCESS);
        ck_assert_int_eq(SETVAN(&ig, "b", v, 0.5 * v + 1), IGRAPH_SUCCESS);
        ck_assert_int_eq(SETVAS(&ig, "s", v, "x"), IGRAPH_SUCCESS);
    }
    const char *ab[] = {"b", "a"}, *missing[] = {"a", "zz"}, *str[] = {"s"};
    ck_assert_int_eq(gat_csr_from_igraph_attributes(&x, &ig, ab, 2), GAT_OK);
    ck_assert_int_eq(x.rows, 3);
    ck_assert_int_eq(x.cols, 2);
    const gat_idx rowptr[] = {0, 1, 3, 5}, col[] = {0, 0, 1, 0, 1};
    const gat_real val[] = {1, 1.5, 1, 2, 2};
    ck_assert_mem_eq(x.rowptr, rowptr, sizeof rowptr);
    ck_assert_mem_eq(x.col, col, sizeof col);
    ck_assert_mem_eq(x.val, val, sizeof val);
    gat_csr_destroy(&x);
    ASSERT_FAILS(gat_csr_from_igraph_attributes(&x, &ig, missing, 2), GAT_EINVAL,
                 "vertex attribute 'zz' does not exist");
    ASSERT_FAILS(gat_csr_from_igraph_attributes(&x, &ig, str, 1), GAT_EINVAL,
                 "vertex attribute 's' is not numeric");
    ck_assert_int_eq(SETVAN(&ig, "a", 1, NAN), IGRAPH_SUCCESS);
    ASSERT_FAILS(gat_csr_from_igraph_attributes(&x, &ig, ab, 2), GAT_ENUMERIC,
                 "attribute 'a' of vertex 1 is nan");
    igraph_destroy(&ig);
    igraph_set_attribute_table(prev);
}
END_TEST

/* Numeric edge attributes as edge features through gat_dataset_from_igraph: directed, so each
 * edge keeps its own row; the self-loop of a node gets the mean of its in-edges; errors. */
START_TEST(igraph_edge_attributes_as_edge_features)
{
    igraph_attribute_table_t *prev = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t ig;
    igraph_vector_int_t edges;
    gat_csr x;
    gat_dataset ds;
    const igraph_integer_t el[] = {0, 1, 2, 1, 1, 0};
    igraph_vector_int_view(&edges, el, 6);
    ck_assert_int_eq(igraph_create(&ig, &edges, 3, IGRAPH_DIRECTED), IGRAPH_SUCCESS);
    for (int e = 0; e < 3; e++) {
        ck_assert_int_eq(SETEAN(&ig, "w", e, 2 * e + 1), IGRAPH_SUCCESS);
        ck_assert_int_eq(SETEAS(&ig, "s", e, "x"), IGRAPH_SUCCESS);
    }
    ck_assert_int_eq(gat_csr_identity(&x, 3), GAT_OK);
    const char *w[] = {"w"}, *str[] = {"s"}, *none[] = {"nope"};
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.edge_attributes = w;
    o.n_edge_attributes = 1;
    ck_assert_msg(gat_dataset_from_igraph(&ds, &ig, 0, &x, NULL, NULL, &o) == GAT_OK, "%s",
                  gat_last_error());
    ck_assert_int_eq(ds.n_edge_features, 1);
    /* rows: 0 <- {0, 1}, 1 <- {0, 1, 2}, 2 <- {2} with w 0->1: 1, 2->1: 3, 1->0: 5 */
    ck_assert_int_eq(ds.graph.nnz, 6);
    const gat_real want[] = {5, 5, 1, 2, 3, 0};
    const gat_idx want_in[] = {-1, 2, 0, -1, 1, -1};
    for (int e = 0; e < 6; e++) {
        ck_assert_msg(fabs(ds.edge_x[e] - want[e]) < 1e-6, "edge %d: %g, want %g", e,
                      (double)ds.edge_x[e], (double)want[e]);
        ck_assert_int_eq(ds.edge_input[e], want_in[e]);
    }
    gat_dataset_destroy(&ds);
    o.edge_attributes = str;
    ASSERT_FAILS(gat_dataset_from_igraph(&ds, &ig, 0, &x, NULL, NULL, &o), GAT_EINVAL,
                 "gat_dataset_from_igraph: edge attribute 's' is not numeric");
    o.edge_attributes = none;
    ASSERT_FAILS(gat_dataset_from_igraph(&ds, &ig, 0, &x, NULL, NULL, &o), GAT_EINVAL,
                 "edge attribute 'nope' does not exist");
    ck_assert_int_eq(SETEAN(&ig, "w", 1, INFINITY), IGRAPH_SUCCESS);
    o.edge_attributes = w;
    ASSERT_FAILS(gat_dataset_from_igraph(&ds, &ig, 0, &x, NULL, NULL, &o), GAT_ENUMERIC,
                 "edge attribute 'w' of edge 1 is inf");
    gat_csr_destroy(&x);
    igraph_destroy(&ig);
    igraph_set_attribute_table(prev);
}
END_TEST

/* ---- The same graph by every route ------------------------------------------------------- */

#define RN 40
#define RM 150
#define RF 5

START_TEST(edges_edges64_csr_and_copy_agree)
{
    gat_idx src[RM], dst[RM];
    int64_t src64[RM], dst64[RM];
    random_edges(RN, RM, src, dst, 11);
    for (size_t e = 0; e < RM; e++) {
        src64[e] = src[e];
        dst64[e] = dst[e];
    }
    for (unsigned flags = 0; flags < 4; flags++) {
        gat_graph a, b, c, d;
        ck_assert_int_eq(gat_graph_from_edges(&a, RN, RM, src, dst, flags), GAT_OK);
        ck_assert_int_eq(gat_graph_from_edges64(&b, RN, RM, src64, dst64, flags), GAT_OK);
        assert_graph_eq(&a, &b);
        /* a's in-CSR as caller arrays gives a again (self-loops already there: kept once) */
        ck_assert_int_eq(
            gat_graph_from_csr(&c, a.n, a.rowptr, a.col, flags & GAT_GRAPH_NO_SELF_LOOPS), GAT_OK);
        assert_graph_eq(&a, &c);
        ck_assert_int_eq(gat_graph_copy(&d, &a), GAT_OK);
        assert_graph_eq(&a, &d);
        ck_assert_ptr_ne(d.col, a.col);
        gat_graph_destroy(&a);
        gat_graph_destroy(&b);
        gat_graph_destroy(&c);
        gat_graph_destroy(&d);
    }
}
END_TEST

/* The random multigraph in igraph (n vertices, edges src -> dst). */
static void igraph_random(igraph_t *ig, const gat_idx *src, const gat_idx *dst, int directed)
{
    igraph_vector_int_t edges;
    ck_assert_int_eq(igraph_vector_int_init(&edges, 2 * RM), IGRAPH_SUCCESS);
    for (size_t e = 0; e < RM; e++) {
        VECTOR(edges)[2 * e] = src[e];
        VECTOR(edges)[2 * e + 1] = dst[e];
    }
    ck_assert_int_eq(igraph_create(ig, &edges, RN, directed), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&edges);
}

START_TEST(igraph_round_trip)
{
    gat_idx src[RM], dst[RM];
    gat_real dense[RN * RF];
    random_edges(RN, RM, src, dst, 5);
    tu_uniform(dense, RN * RF, -1, 1, 6);
    for (int directed = 0; directed < 2; directed++) {
        igraph_t ig;
        igraph_matrix_t feat, emb;
        igraph_vector_int_t cls;
        igraph_vector_t prob;
        gat_graph a, b;
        gat_csr xa, xb;
        gat_model *m;
        gat_model_config cfg;
        const gat_real *out;
        gat_real logits_a[RN * 3], logits_b[RN * 3], emb_a[RN * 8], pa[RN];
        gat_idx ca[RN];

        igraph_random(&ig, src, dst, directed);
        ck_assert_int_eq(
            gat_graph_from_edges(&a, RN, RM, src, dst, directed ? 0 : GAT_GRAPH_SYMMETRIZE),
            GAT_OK);
        ck_assert_int_eq(gat_graph_from_igraph(&b, &ig, 0), GAT_OK);
        assert_graph_eq(&a, &b);

        /* features: row-major floats and the column-major igraph matrix agree */
        ck_assert_int_eq(igraph_matrix_init(&feat, RN, RF), IGRAPH_SUCCESS);
        for (int i = 0; i < RN; i++)
            for (int f = 0; f < RF; f++)
                MATRIX(feat, i, f) = dense[i * RF + f];
        ck_assert_int_eq(gat_csr_from_dense(&xa, RN, RF, dense), GAT_OK);
        ck_assert_int_eq(gat_csr_from_igraph_matrix(&xb, &feat), GAT_OK);
        assert_csr_eq(&xa, &xb);

        /* identical model outputs on both */
        gat_model_config_default(&cfg, RF, 3);
        cfg.hidden = 4;
        cfg.heads = 2;
        ck_assert_int_eq(gat_model_create(&m, &cfg, 3), GAT_OK);
        gat_model_set_threads(m, 1);
        ck_assert_int_eq(gat_model_forward(m, &a, &xa, 0, &out), GAT_OK);
        memcpy(logits_a, out, sizeof logits_a);
        ck_assert_int_eq(gat_model_forward(m, &b, &xb, 0, &out), GAT_OK);
        memcpy(logits_b, out, sizeof logits_b);
        ck_assert_mem_eq(logits_a, logits_b, sizeof logits_a);

        /* results as caller buffers and as igraph objects agree */
        ck_assert_int_eq(gat_model_embed(m, &a, &xa, 0, emb_a), GAT_OK);
        ck_assert_int_eq(igraph_matrix_init(&emb, 0, 0), IGRAPH_SUCCESS);
        ck_assert_int_eq(gat_model_embed_igraph(m, &b, &xb, 0, &emb), GAT_OK);
        ck_assert_int_eq(igraph_matrix_nrow(&emb), RN);
        ck_assert_int_eq(igraph_matrix_ncol(&emb), 8);
        for (int i = 0; i < RN; i++)
            for (int k = 0; k < 8; k++)
                ck_assert(MATRIX(emb, i, k) == (igraph_real_t)emb_a[i * 8 + k]);
        ck_assert_int_eq(gat_model_predict(m, &a, &xa, ca, pa), GAT_OK);
        ck_assert_int_eq(igraph_vector_int_init(&cls, 0), IGRAPH_SUCCESS);
        ck_assert_int_eq(igraph_vector_init(&prob, 0), IGRAPH_SUCCESS);
        ck_assert_int_eq(gat_model_predict_igraph(m, &b, &xb, &cls, &prob), GAT_OK);
        for (int i = 0; i < RN; i++) {
            gat_idx best = 0;
            for (int c = 1; c < 3; c++)
                if (logits_a[i * 3 + c] > logits_a[i * 3 + best]) best = c;
            ck_assert_int_eq(ca[i], best);
            ck_assert_int_eq(VECTOR(cls)[i], best);
            ck_assert(VECTOR(prob)[i] == (igraph_real_t)pa[i]);
            ck_assert(pa[i] >= 1.0 / 3 - 1e-6 && pa[i] <= 1);
        }
        ASSERT_FAILS(gat_model_embed_igraph(m, &b, &xb, 7, &emb), GAT_EINVAL, "no layer 7");

        igraph_vector_destroy(&prob);
        igraph_vector_int_destroy(&cls);
        igraph_matrix_destroy(&emb);
        igraph_matrix_destroy(&feat);
        gat_model_free(m);
        gat_csr_destroy(&xa);
        gat_csr_destroy(&xb);
        gat_graph_destroy(&a);
        gat_graph_destroy(&b);
        igraph_destroy(&ig);
    }
}
END_TEST

/* ---- Datasets from memory ---------------------------------------------------------------- */

/* A 3-block graph of n nodes (block = i % 3) with features pointing at the block. */
static void block_parts(gat_graph *g, gat_csr *x, gat_idx *labels, gat_idx n, uint64_t seed)
{
    const size_t m = 4 * (size_t)n;
    gat_idx *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    gat_real *dense = calloc((size_t)n * 6, sizeof *dense);
    gat_rng r;
    ck_assert(src && dst && dense);
    gat_rng_seed(&r, seed);
    for (size_t e = 0; e < m; e++) {
        src[e] = (gat_idx)gat_rng_below(&r, (uint64_t)n);
        /* mostly inside the block */
        dst[e] = gat_rng_uniform(&r) < 0.8
                     ? (gat_idx)((src[e] + 3 * (gat_idx)gat_rng_below(&r, (uint64_t)n / 3)) % n)
                     : (gat_idx)gat_rng_below(&r, (uint64_t)n);
    }
    for (gat_idx i = 0; i < n; i++) {
        labels[i] = i % 3;
        for (int f = 0; f < 6; f++)
            dense[i * 6 + f] = (gat_real)(0.3 * gat_rng_uniform(&r) + (f % 3 == i % 3));
    }
    ck_assert_int_eq(gat_graph_from_edges(g, n, m, src, dst, GAT_GRAPH_SYMMETRIZE), GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(x, n, 6, dense), GAT_OK);
    free(src);
    free(dst);
    free(dense);
}

START_TEST(dataset_from_parts_copies_and_splits)
{
    enum { N = 90 };
    gat_graph g;
    gat_csr x;
    gat_idx labels[N];
    gat_dataset ds;
    gat_dataset_options opt;
    block_parts(&g, &x, labels, N, 1);
    labels[5] = labels[7] = -1; /* unlabelled */
    gat_dataset_options_default(&opt);
    opt.train_per_class = 5;
    opt.n_val = 20;
    opt.n_test = 30;
    opt.normalize = 0;
    gat_dataset_parts p = {.graph = &g, .features = &x, .labels = labels, .n_classes = 3};
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &p, &opt), GAT_OK);
    ck_assert_int_eq(ds.n, N);
    ck_assert_int_eq(ds.n_features, 6);
    ck_assert_int_eq(ds.n_classes, 3);
    ck_assert_int_eq(ds.n_train, 15);
    ck_assert_int_eq(ds.n_val, 20);
    ck_assert_int_eq(ds.n_test, 30);
    ck_assert_str_eq(ds.node_ids[12], "12");
    ck_assert_str_eq(ds.class_names[2], "2");
    ck_assert_int_eq(ds.split[5], GAT_SPLIT_NONE);
    ck_assert_int_eq(ds.split[7], GAT_SPLIT_NONE);
    ck_assert_int_eq(ds.labels[5], -1);
    assert_graph_eq(&ds.graph, &g);
    assert_csr_eq(&ds.x, &x);
    ck_assert_ptr_ne(ds.x.val, x.val); /* copies: the caller's parts can go */
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);

    /* the model trains on it */
    gat_model_config cfg;
    gat_model *m;
    gat_train_config tc;
    gat_train_result res;
    gat_model_config_default(&cfg, ds.n_features, ds.n_classes);
    ck_assert_int_eq(gat_model_create(&m, &cfg, 1), GAT_OK);
    gat_model_set_threads(m, 1);
    gat_train_config_default(&tc);
    tc.max_epochs = 60;
    ck_assert_int_eq(gat_train(m, &ds, &tc, &res), GAT_OK);
    ck_assert_int_eq(res.epochs, 60);
    gat_model_free(m);
    gat_dataset_destroy(&ds);

    /* an explicit split, names, and allocation failures: each ENOMEM, nothing leaked */
    block_parts(&g, &x, labels, 12, 2);
    const uint8_t split[12] = {1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0};
    const char *ids[12] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"};
    const char *classes[3] = {"red", "green", "blue"};
    gat_dataset_parts q = {.graph = &g,
                           .features = &x,
                           .labels = labels,
                           .n_classes = 3,
                           .split = split,
                           .node_ids = ids,
                           .class_names = classes};
    for (long k = 0;; k++) {
        gat_i_alloc_fail_at(k);
        gat_status st = gat_dataset_from_parts(&ds, &q, NULL);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_int_eq(ds.n, 0);
        ck_assert_msg(k < 1000, "no success after 1000 failures");
    }
    ck_assert_str_eq(ds.node_ids[11], "l");
    ck_assert_str_eq(ds.class_names[0], "red");
    ck_assert_mem_eq(ds.split, split, sizeof split);
    ck_assert_int_eq(ds.n_train + ds.n_val + ds.n_test, 9);
    double sum = 0; /* rows normalised by default */
    for (gat_idx k = ds.x.rowptr[4]; k < ds.x.rowptr[5]; k++)
        sum += ds.x.val[k];
    ck_assert_double_eq_tol(sum, 1, 1e-6);
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* ---- Threads ----------------------------------------------------------------------------- */

typedef struct job {
    const gat_dataset *ds;
    uint64_t seed;
    gat_status st;
    gat_train_result res;
    gat_real *params; /* malloc'd copy of the trained parameters */
    size_t count;
    char error[512];
} job;

static void *train_job(void *p)
{
    job *j = p;
    gat_model_config cfg;
    gat_model *m = NULL;
    gat_train_config tc;
    gat_model_config_default(&cfg, j->ds->n_features, j->ds->n_classes);
    gat_train_config_default(&tc);
    tc.max_epochs = 40;
    tc.patience = 1000;
    j->st = gat_model_create(&m, &cfg, j->seed);
    if (j->st == GAT_OK) {
        gat_model_set_threads(m, 1);
        j->st = gat_train(m, j->ds, &tc, &j->res);
        const gat_real *params = gat_model_params(m, &j->count);
        if ((j->params = malloc(j->count * sizeof *j->params)))
            memcpy(j->params, params, j->count * sizeof *j->params);
    }
    /* the message is per thread: read it in the thread that failed */
    snprintf(j->error, sizeof j->error, "%s", gat_last_error());
    gat_model_free(m);
    return NULL;
}

START_TEST(two_threads_train_as_one_after_the_other)
{
    enum { N = 150 };
    gat_graph g;
    gat_csr x;
    gat_idx labels[N];
    gat_dataset ds;
    gat_dataset_options opt;
    block_parts(&g, &x, labels, N, 3);
    gat_dataset_options_default(&opt);
    opt.train_per_class = 10;
    opt.n_val = 30;
    opt.n_test = 60;
    gat_dataset_parts p = {.graph = &g, .features = &x, .labels = labels, .n_classes = 3};
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &p, &opt), GAT_OK);

    job seq[2] = {{.ds = &ds, .seed = 1}, {.ds = &ds, .seed = 2}};
    job par[2] = {{.ds = &ds, .seed = 1}, {.ds = &ds, .seed = 2}};
    train_job(&seq[0]);
    train_job(&seq[1]);
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        ck_assert_int_eq(pthread_create(&t[k], NULL, train_job, &par[k]), 0);
    for (int k = 0; k < 2; k++)
        ck_assert_int_eq(pthread_join(t[k], NULL), 0);
    for (int k = 0; k < 2; k++) {
        ck_assert_msg(seq[k].st == GAT_OK && par[k].st == GAT_OK, "%s / %s", seq[k].error,
                      par[k].error);
        ck_assert_ptr_nonnull(seq[k].params);
        ck_assert_ptr_nonnull(par[k].params);
        ck_assert_uint_eq(seq[k].count, par[k].count);
        ck_assert_mem_eq(seq[k].params, par[k].params, seq[k].count * sizeof *seq[k].params);
        ck_assert_int_eq(seq[k].res.best_epoch, par[k].res.best_epoch);
        ck_assert(seq[k].res.val_loss == par[k].res.val_loss);
        ck_assert(seq[k].res.test_acc == par[k].res.test_acc);
    }
    /* different seeds really trained different models */
    ck_assert(memcmp(seq[0].params, seq[1].params, seq[0].count * sizeof *seq[0].params) != 0);
    for (int k = 0; k < 2; k++) {
        free(seq[k].params);
        free(par[k].params);
    }
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

START_TEST(error_messages_are_per_thread)
{
    /* a failure in another thread leaves this thread's message alone */
    gat_graph g;
    ASSERT_FAILS(gat_graph_from_csr(&g, -7, NULL, NULL, 0), GAT_EINVAL, "n = -7");
    job j = {.ds = NULL};
    gat_dataset empty = {0};
    j.ds = &empty; /* model creation fails: 0 features */
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, train_job, &j), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_ne(j.st, GAT_OK);
    ck_assert_ptr_nonnull(strstr(j.error, "in_features"));
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "n = -7"));
}
END_TEST

/* ---- Graph files ------------------------------------------------------------------------- */

static const char *sbm(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s", tu_data(name));
    return path;
}

/* The reference: the SBM fixture as edge list and dense features (node ids "0".."59"). */
static void read_reference(gat_dataset *ref, int normalize)
{
    char g[4096], f[4096], l[4096];
    gat_dataset_options opt;
    gat_dataset_options_default(&opt);
    opt.normalize = normalize;
    opt.train_per_class = 3;
    opt.n_val = 10;
    opt.n_test = 10;
    snprintf(g, sizeof g, "%s", sbm("graphs/sbm.edges"));
    snprintf(f, sizeof f, "%s", sbm("graphs/sbm.features"));
    snprintf(l, sizeof l, "%s", sbm("graphs/sbm.labels"));
    gat_dataset_files files = {.graph = g, .features = f, .labels = l};
    ck_assert_msg(gat_dataset_read(ref, &files, &opt) == GAT_OK, "%s", gat_last_error());
}

/* Index in ds of the node whose id is printf(fmt, k + offset), or -1. */
static gat_idx find_node(const gat_dataset *ds, const char *fmt, int k)
{
    char id[64];
    snprintf(id, sizeof id, fmt, k);
    for (gat_idx i = 0; i < ds->n; i++)
        if (strcmp(ds->node_ids[i], id) == 0) return i;
    return -1;
}

/* ds holds ref's graph and features with node k of ref called printf(fmt, k + offset). */
static void assert_same_dataset(const gat_dataset *ref, const gat_dataset *ds, const char *fmt,
                                int offset)
{
    gat_idx map[128];
    ck_assert_int_eq(ds->n, ref->n);
    ck_assert_int_eq(ds->graph.nnz, ref->graph.nnz);
    ck_assert_int_eq(ds->n_features, ref->n_features);
    for (gat_idx k = 0; k < ref->n; k++) {
        map[k] = find_node(ds, fmt, k + offset);
        ck_assert_msg(map[k] >= 0, "no node for reference node %d", k);
    }
    for (gat_idx k = 0; k < ref->n; k++) {
        const gat_idx i = map[k];
        ck_assert_int_eq(gat_graph_degree(&ds->graph, i), gat_graph_degree(&ref->graph, k));
        for (gat_idx e = ref->graph.rowptr[k]; e < ref->graph.rowptr[k + 1]; e++) {
            const gat_idx j = map[ref->graph.col[e]];
            int found = 0;
            for (gat_idx p = ds->graph.rowptr[i]; p < ds->graph.rowptr[i + 1]; p++)
                found |= ds->graph.col[p] == j;
            ck_assert_msg(found, "edge %d -> %d missing", ref->graph.col[e], k);
        }
        ck_assert_int_eq(ds->x.rowptr[i + 1] - ds->x.rowptr[i],
                         ref->x.rowptr[k + 1] - ref->x.rowptr[k]);
        ck_assert_mem_eq(ds->x.val + ds->x.rowptr[i], ref->x.val + ref->x.rowptr[k],
                         (size_t)(ref->x.rowptr[k + 1] - ref->x.rowptr[k]) * sizeof *ref->x.val);
    }
}

/* Appends printf-formatted text to a growing buffer. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        ck_assert_int_ge(n, 0);
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = 2 * (b->cap + (size_t)n + 64);
        b->s = realloc(b->s, b->cap);
        ck_assert_ptr_nonnull(b->s);
    }
}

/* Dense features of ref (unnormalised) with ids printf(fmt, k + offset). */
static char *features_text(const gat_dataset *ref, const char *fmt, int offset)
{
    sbuf b = {0};
    for (gat_idx k = 0; k < ref->n; k++) {
        gat_real row[16] = {0};
        for (gat_idx p = ref->x.rowptr[k]; p < ref->x.rowptr[k + 1]; p++)
            row[ref->x.col[p]] = ref->x.val[p];
        sb_printf(&b, fmt, k + offset);
        for (gat_idx f = 0; f < ref->n_features; f++)
            sb_printf(&b, " %.9g", (double)row[f]);
        sb_printf(&b, "\n");
    }
    return b.s;
}

/* The undirected edges (j < i) of ref, each once. */
#define FOR_EDGES(ref, i, j)                                                                       \
    for (gat_idx i = 0; i < (ref)->n; i++)                                                         \
        for (gat_idx p_ = (ref)->graph.rowptr[i], j; p_ < (ref)->graph.rowptr[i + 1]; p_++)        \
            if ((j = (ref)->graph.col[p_]) < i)

/* ref's graph as the text of a file in format fmt; the node ids are those of the cases of
 * graph_files_in_every_format. */
static char *graph_text(const gat_dataset *ref, gat_graph_format fmt)
{
    sbuf b = {0};
    switch (fmt) {
    case GAT_GRAPH_FORMAT_NCOL:
        FOR_EDGES(ref, i, j) sb_printf(&b, "v%d v%d\n", i, j);
        break;
    case GAT_GRAPH_FORMAT_LGL:
        for (gat_idx i = 0; i < ref->n; i++) {
            sb_printf(&b, "# v%d\n", i);
            for (gat_idx p = ref->graph.rowptr[i]; p < ref->graph.rowptr[i + 1]; p++)
                if (ref->graph.col[p] > i) sb_printf(&b, "v%d\n", ref->graph.col[p]);
        }
        break;
    case GAT_GRAPH_FORMAT_GRAPHML:
        sb_printf(&b, "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/"
                      "xmlns\">\n<graph edgedefault=\"undirected\">\n");
        for (gat_idx i = ref->n - 1; i >= 0; i--) /* reversed: ids, not order, must match */
            sb_printf(&b, "<node id=\"n%d\"/>\n", i);
        FOR_EDGES(ref, i, j) sb_printf(&b, "<edge source=\"n%d\" target=\"n%d\"/>\n", i, j);
        sb_printf(&b, "</graph>\n</graphml>\n");
        break;
    case GAT_GRAPH_FORMAT_GML:
        sb_printf(&b, "graph [\n  directed 0\n");
        for (gat_idx i = 0; i < ref->n; i++)
            sb_printf(&b, "  node [ id %d ]\n", i + 100);
        FOR_EDGES(ref, i, j) sb_printf(&b, "  edge [ source %d target %d ]\n", i + 100, j + 100);
        sb_printf(&b, "]\n");
        break;
    case GAT_GRAPH_FORMAT_PAJEK:
        sb_printf(&b, "*Vertices %d\n*Edges\n", ref->n);
        FOR_EDGES(ref, i, j) sb_printf(&b, "%d %d\n", i + 1, j + 1);
        break;
    case GAT_GRAPH_FORMAT_DIMACS: {
        gat_idx m = 0;
        for (gat_idx i = 0; i < ref->n; i++)
            for (gat_idx p = ref->graph.rowptr[i]; p < ref->graph.rowptr[i + 1]; p++)
                m += ref->graph.col[p] < i;
        sb_printf(&b, "c the SBM fixture\np edge %d %d\n", ref->n, m);
        FOR_EDGES(ref, i, j) sb_printf(&b, "e %d %d\n", i + 1, j + 1);
        break;
    }
    default:
        ck_abort_msg("no writer for format %d", fmt);
    }
    return b.s;
}

START_TEST(graph_files_in_every_format)
{
    static const struct {
        gat_graph_format fmt;
        const char *ext, *idfmt;
        int offset;
    } cases[] = {
        {GAT_GRAPH_FORMAT_NCOL, "ncol", "v%d", 0},       {GAT_GRAPH_FORMAT_LGL, "lgl", "v%d", 0},
        {GAT_GRAPH_FORMAT_GRAPHML, "graphml", "n%d", 0}, {GAT_GRAPH_FORMAT_GML, "gml", "%d", 100},
        {GAT_GRAPH_FORMAT_PAJEK, "net", "%d", 1},        {GAT_GRAPH_FORMAT_DIMACS, "col", "%d", 1}};
    gat_dataset ref, raw, ds;
    gat_dataset_options opt;
    char *dir = tu_tmpdir(), gpath[4096], fpath[4096];
    read_reference(&ref, GAT_NORMALIZE_AUTO); /* signed features: not normalised */
    read_reference(&raw, GAT_NORMALIZE_OFF);
    ck_assert_int_eq(ref.n, 60); /* node 59 has no edge: the features file declares it */
    ck_assert_int_eq(ref.n_classes, 3);
    ck_assert_str_eq(ref.class_names[2], "c2");
    ck_assert_int_eq(ref.labels[57], -1);
    ck_assert_int_eq(ref.split[57], GAT_SPLIT_NONE);
    ck_assert_int_eq(ref.n_train, 9);
    gat_dataset_options_default(&opt);
    opt.train_per_class = 3;
    opt.n_val = opt.n_test = 10;

    /* the sparse features file is the same matrix */
    char g[4096], f[4096];
    snprintf(g, sizeof g, "%s", sbm("graphs/sbm.edges"));
    snprintf(f, sizeof f, "%s", sbm("graphs/sbm.svm"));
    gat_dataset_files sparse = {.graph = g, .format = GAT_GRAPH_FORMAT_EDGELIST, .features = f};
    ck_assert_msg(gat_dataset_read(&ds, &sparse, &opt) == GAT_OK, "%s", gat_last_error());
    assert_same_dataset(&ref, &ds, "%d", 0);
    ck_assert_int_eq(ds.n_classes, 0); /* no labels file: no classes, no split */
    ck_assert_int_eq(ds.n_train + ds.n_val + ds.n_test, 0);
    gat_dataset_destroy(&ds);

    for (size_t c = 0; c < LEN(cases); c++) {
        char *gtext = graph_text(&raw, cases[c].fmt);
        char *ftext = features_text(&raw, cases[c].idfmt, cases[c].offset);
        char name[32];
        snprintf(name, sizeof name, "g.%s", cases[c].ext);
        snprintf(gpath, sizeof gpath, "%s", tu_write(dir, name, gtext));
        snprintf(fpath, sizeof fpath, "%s", tu_write(dir, "g.features", ftext));
        gat_dataset_files files = {.graph = gpath, .features = fpath}; /* format from the name */
        ck_assert_msg(gat_dataset_read(&ds, &files, &opt) == GAT_OK, "%s: %s",
                      gat_graph_format_name(cases[c].fmt), gat_last_error());
        assert_same_dataset(&ref, &ds, cases[c].idfmt, cases[c].offset);
        gat_dataset_destroy(&ds);
        free(gtext);
        free(ftext);
    }

    /* directed reading keeps a -> b only */
    const char *el = tu_write(dir, "d.edges", "0 1\n1 2\n");
    snprintf(gpath, sizeof gpath, "%s", el);
    gat_dataset_files files = {.graph = gpath};
    opt.symmetrize = 0;
    ck_assert_int_eq(gat_dataset_read(&ds, &files, &opt), GAT_OK);
    ck_assert_int_eq(ds.n, 3);
    ck_assert_int_eq(ds.graph.nnz, 5); /* 2 edges + 3 self-loops */
    ck_assert_int_eq(gat_graph_degree(&ds.graph, 0), 1);
    ck_assert_int_eq(ds.n_features, 3); /* one-hot identity */
    gat_dataset_destroy(&ds);
    opt.symmetrize = 1;
    ck_assert_int_eq(gat_dataset_read(&ds, &files, &opt), GAT_OK);
    ck_assert_int_eq(ds.graph.nnz, 7);
    gat_dataset_destroy(&ds);

    gat_dataset_destroy(&ref);
    gat_dataset_destroy(&raw);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(labels_split_and_class_order)
{
    char *dir = tu_tmpdir(), g[4096], l[4096], s[4096];
    gat_dataset ds;
    snprintf(g, sizeof g, "%s", tu_write(dir, "g.edges", "0 1\n1 2\n2 3\n3 4\n"));
    snprintf(l, sizeof l, "%s", tu_write(dir, "g.labels", "# node label\n0 10\n1 9\n2 2\n4 10\n"));
    /* '#' lines are comments in the split table as in the labels one (io/idtable.h) */
    snprintf(s, sizeof s, "%s",
             tu_write(dir, "g.split", "# node split\n0 train\n1 train\n#3 val\n2 val\n4 test\n"));
    gat_dataset_files files = {.graph = g, .labels = l, .split = s};
    ck_assert_msg(gat_dataset_read(&ds, &files, NULL) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(ds.n_classes, 3); /* integer labels: numeric order 2, 9, 10 */
    ck_assert_str_eq(ds.class_names[0], "2");
    ck_assert_str_eq(ds.class_names[1], "9");
    ck_assert_str_eq(ds.class_names[2], "10");
    const gat_idx labels[] = {2, 1, 0, -1, 2};
    const uint8_t split[] = {1, 1, 2, 0, 3};
    ck_assert_mem_eq(ds.labels, labels, sizeof labels);
    ck_assert_mem_eq(ds.split, split, sizeof split);
    gat_dataset_destroy(&ds);

    snprintf(l, sizeof l, "%s", tu_write(dir, "g.labels", "0 b\n1 a10\n2 a9\n"));
    files.split = NULL;
    gat_dataset_options opt;
    gat_dataset_options_default(&opt);
    opt.train_per_class = 1;
    opt.n_val = opt.n_test = 0;
    opt.split_strict = GAT_SPLIT_STRICT_TRAIN; /* one node per class although classes have one */
    ck_assert_int_eq(gat_dataset_read(&ds, &files, &opt), GAT_OK);
    ck_assert_str_eq(ds.class_names[0], "a10"); /* byte order */
    ck_assert_str_eq(ds.class_names[2], "b");
    ck_assert_int_eq(ds.n_train, 3);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* gat_dataset_read on a graph, features, labels and split text must fail with status and a
 * message holding substr. NULL texts leave the file out. */
static void assert_read_fails(const char *graph, const char *ext, const char *features,
                              const char *labels, const char *split, gat_status status,
                              const char *substr)
{
    char *dir = tu_tmpdir(), g[4096], f[4096], l[4096], s[4096], name[32];
    gat_dataset ds;
    gat_dataset_options opt;
    gat_dataset_options_default(&opt);
    opt.train_per_class = 2;
    opt.n_val = opt.n_test = 0;
    opt.split_strict = GAT_SPLIT_STRICT_ALL;
    snprintf(name, sizeof name, "g.%s", ext);
    snprintf(g, sizeof g, "%s", graph ? tu_write(dir, name, graph) : "/nonexistent/g.edges");
    if (features) snprintf(f, sizeof f, "%s", tu_write(dir, "g.features", features));
    if (labels) snprintf(l, sizeof l, "%s", tu_write(dir, "g.labels", labels));
    if (split) snprintf(s, sizeof s, "%s", tu_write(dir, "g.split", split));
    gat_dataset_files files = {.graph = g,
                               .features = features ? f : NULL,
                               .labels = labels ? l : NULL,
                               .split = split ? s : NULL};
    gat_status st = gat_dataset_read(&ds, &files, &opt);
    ck_assert_msg(st == status, "status %d (%s), expected %d with '%s'", st, gat_last_error(),
                  status, substr);
    ck_assert_msg(strstr(gat_last_error(), substr) != NULL, "message '%s' lacks '%s'",
                  gat_last_error(), substr);
    ck_assert_int_eq(ds.n, 0);
    ck_assert_ptr_null(ds.node_ids);
    tu_rmtree(dir);
    free(dir);
}

START_TEST(malformed_files_are_named)
{
    const char *el = "0 1\n1 2\n";
    assert_read_fails(NULL, "edges", NULL, NULL, NULL, GAT_EIO, "cannot open /nonexistent/g.edges");
    assert_read_fails("0 1\n1\n", "edges", NULL, NULL, NULL, GAT_EFORMAT,
                      "g.edges:2: 1 field, expected two node ids");
    assert_read_fails("<graphml><graph><node id=", "graphml", NULL, NULL, NULL, GAT_EFORMAT,
                      "g.graphml: igraph cannot read it as graphml");
    assert_read_fails("graph [ node [ id 1 ] edge [ source 1 target 7 ] ]", "gml", NULL, NULL, NULL,
                      GAT_EFORMAT, "g.gml: igraph cannot read it as gml");
    assert_read_fails("*Vertices 2\n1 \"a\"\n2 \"a\"\n*Edges\n1 2\n", "net", NULL, NULL, NULL,
                      GAT_EFORMAT, "vertices 0 and 1 have the same id 'a'");
    assert_read_fails(el, "unknown", NULL, NULL, NULL, GAT_EINVAL, "cannot tell the graph format");

    /* features */
    assert_read_fails(el, "edges", "0 1 2\n1 1 2\nx7 1 2\n", NULL, NULL, GAT_EFORMAT,
                      "g.features:3: unknown node id 'x7' (not a vertex of");
    assert_read_fails("<graphml><graph><node id=\"a\"/></graph></graphml>", "graphml", "a 1\nb 2\n",
                      NULL, NULL, GAT_EFORMAT, "g.features:2: unknown node id 'b'");
    assert_read_fails(el, "edges", "0 1 2\n1 1 2\n0 1 2\n", NULL, NULL, GAT_EFORMAT,
                      "g.features:3: duplicate node id '0' (first on line 1)");
    assert_read_fails(el, "edges", "0 1 2\n1 1\n2 1 2\n", NULL, NULL, GAT_EFORMAT,
                      "g.features:2: expected 3 fields");
    assert_read_fails(el, "edges", "0 1 2\n1 1 nan\n2 1 2\n", NULL, NULL, GAT_ENUMERIC,
                      "g.features:2:5: field 3 of node '1' is not finite");
    assert_read_fails(el, "edges", "0 1 2\n1 1 2\n2 1 1e99\n", NULL, NULL, GAT_ENUMERIC,
                      "out of range");
    assert_read_fails(el, "edges", "0 1 2\n1 1 two\n2 1 2\n", NULL, NULL, GAT_EFORMAT,
                      "g.features:2:5: field 3 of node '1' is not a number: 'two'");
    assert_read_fails(el, "edges", "0 1 2\n2 1 2\n", NULL, NULL, GAT_EFORMAT,
                      "g.features: no line for node '1'");
    assert_read_fails(el, "edges", "0 1:1 0:2\n1\n2 0:1\n", NULL, NULL, GAT_EFORMAT,
                      "g.features:1:7: column 0 after column 1");
    assert_read_fails(el, "edges", "0 1:1\n1 3\n2 0:1\n", NULL, NULL, GAT_EFORMAT,
                      "g.features:2:3: expected <column>:<value>");
    assert_read_fails(el, "edges", "0 1:1\n1 -3:1\n2 0:1\n", NULL, NULL, GAT_EFORMAT,
                      "column '-3' is not a number");
    assert_read_fails(el, "edges", "# nothing\n", NULL, NULL, GAT_EFORMAT, "no features");

    /* labels and split */
    assert_read_fails(el, "edges", NULL, "0 a\n9 b\n", NULL, GAT_EFORMAT,
                      "g.labels:2:1: unknown node id '9'");
    assert_read_fails(el, "edges", NULL, "0 a\n1 b c\n", NULL, GAT_EFORMAT,
                      "g.labels:2: expected 2 fields (node id, label), found 3");
    /* an empty labels file is named (it used to give 0 classes and a later error naming none) */
    assert_read_fails(el, "edges", NULL, "", NULL, GAT_EFORMAT,
                      "g.labels: no labels (the file is empty or holds only comments)");
    assert_read_fails(el, "edges", NULL, "# node label\n\n", NULL, GAT_EFORMAT,
                      "g.labels: no labels (the file is empty or holds only comments)");
    assert_read_fails(el, "edges", NULL, "0 a\n1 b\n0 b\n", NULL, GAT_EFORMAT,
                      "g.labels:3: node '0' is listed twice (first on line 1)");
    assert_read_fails(el, "edges", NULL, "0 a\n1 b\n", "0 train\n1 val\n0 test\n", GAT_EFORMAT,
                      "g.split:3: node '0' is listed twice (first on line 1)");
    assert_read_fails(el, "edges", NULL, "0 a\n1 b\n", "0 train\n1\n", GAT_EFORMAT,
                      "g.split:2: expected 2 fields (node id, train|val|test), found 1");
    assert_read_fails(el, "edges", NULL, "0 a\n1 b\n", "0 train\n1 exam\n", GAT_EFORMAT,
                      "g.split:2:3: unknown split 'exam'");
    assert_read_fails(el, "edges", NULL, "0 a\n1 b\n", "0 train\n2 val\n", GAT_EFORMAT,
                      "g.split:2: node '2' is in the val split but has no label");
    assert_read_fails(el, "edges", NULL, "0 a\n1 a\n2 b\n", NULL, GAT_EFORMAT,
                      "random split of /tmp/");
    assert_read_fails(el, "edges", NULL, "0 a\n1 a\n2 b\n", NULL, GAT_EFORMAT,
                      "g.labels: class 'b' has 1 nodes, fewer than the 2 training nodes");
}
END_TEST

START_TEST(format_names_and_extensions)
{
    gat_graph_format f;
    ck_assert_int_eq(gat_graph_format_from_name("pajek", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_GRAPH_FORMAT_PAJEK);
    ASSERT_FAILS(gat_graph_format_from_name("xls", &f), GAT_EINVAL, "unknown graph format 'xls'");
    ck_assert_int_eq(gat_graph_format_from_path("a/b.GraphML", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_GRAPH_FORMAT_GRAPHML);
    ck_assert_int_eq(gat_graph_format_from_path("x.max", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_GRAPH_FORMAT_DIMACS);
    ASSERT_FAILS(gat_graph_format_from_path("dir.ncol/graph", &f), GAT_EINVAL, "dir.ncol/graph");
    ck_assert_str_eq(gat_graph_format_name(GAT_GRAPH_FORMAT_LGL), "lgl");
    ck_assert_ptr_null(gat_graph_format_name((gat_graph_format)42));
    ck_assert_ptr_null(gat_graph_format_name((gat_graph_format)-1));
    /* every value's name maps back to it, in any ASCII case */
    for (int v = GAT_GRAPH_FORMAT_AUTO; v <= GAT_GRAPH_FORMAT_CSV; v++) {
        const char *name = gat_graph_format_name((gat_graph_format)v);
        char upper[32];
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(gat_graph_format_from_name(name, &f), GAT_OK);
        ck_assert_int_eq(f, v);
        for (size_t k = 0; k <= strlen(name); k++)
            upper[k] = (char)(name[k] >= 'a' && name[k] <= 'z' ? name[k] - 32 : name[k]);
        f = (gat_graph_format)-1;
        ck_assert_int_eq(gat_graph_format_from_name(upper, &f), GAT_OK);
        ck_assert_int_eq(f, v);
    }
    ck_assert_int_eq(gat_graph_format_from_name("GraphML", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_GRAPH_FORMAT_GRAPHML);
    f = GAT_GRAPH_FORMAT_GML;
    ASSERT_FAILS(gat_graph_format_from_name("edge list", &f), GAT_EINVAL,
                 "unknown graph format 'edge list' (expected auto, edgelist, ncol, lgl, graphml, "
                 "gml, pajek, dimacs or csv)");
    ck_assert_int_eq(f, GAT_GRAPH_FORMAT_GML); /* untouched on failure */
    ASSERT_FAILS(gat_graph_format_from_name(NULL, &f), GAT_EINVAL,
                 "gat_graph_format_from_name: NULL name");
    ASSERT_FAILS(gat_graph_format_from_name("gml", NULL), GAT_EINVAL,
                 "gat_graph_format_from_name: NULL fmt");
    gat_dataset ds;
    ASSERT_FAILS(gat_dataset_read(&ds, NULL, NULL), GAT_EINVAL, "NULL files");
    gat_dataset_files files = {.graph = "g.edges", .format = (gat_graph_format)99};
    ASSERT_FAILS(gat_dataset_read(&ds, &files, NULL), GAT_EINVAL, "unknown graph format 99");
    ck_assert_str_eq(gat_version(), GAT_VERSION_STRING);
    ck_assert_int_eq(gat_version_number(), GAT_VERSION_NUMBER);
}
END_TEST

START_TEST(graph_file_allocation_failures)
{
    char g[4096], f[4096], l[4096];
    gat_dataset ds;
    gat_dataset_options opt;
    gat_dataset_options_default(&opt);
    opt.train_per_class = 3;
    opt.n_val = opt.n_test = 10;
    snprintf(g, sizeof g, "%s", sbm("graphs/sbm.edges"));
    snprintf(f, sizeof f, "%s", sbm("graphs/sbm.svm"));
    snprintf(l, sizeof l, "%s", sbm("graphs/sbm.labels"));
    gat_dataset_files files = {.graph = g, .features = f, .labels = l};
    for (long k = 0;; k++) {
        gat_i_alloc_fail_at(k);
        gat_status st = gat_dataset_read(&ds, &files, &opt);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_msg(st == GAT_ENOMEM, "k = %ld: %d %s", k, st, gat_last_error());
        ck_assert_int_eq(ds.n, 0);
        ck_assert_msg(k < 2000, "no success after 2000 failures");
    }
    ck_assert_int_eq(ds.n, 60);
    gat_dataset_destroy(&ds);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("bad_arguments");
    tcase_add_test(tc, graph_ctors_reject_bad_input);
    tcase_add_test(tc, csr_ctors_reject_bad_input);
    tcase_add_test(tc, csr_standardize_columns_by_hand);
    tcase_add_test(tc, dataset_from_parts_rejects_bad_input);
    tcase_add_test(tc, igraph_bridge_rejects_bad_input);
    suite_add_tcase(s, tc);
    tc = tcase_create("same_graph_every_route");
    tcase_add_test(tc, edges_edges64_csr_and_copy_agree);
    tcase_add_test(tc, igraph_round_trip);
    tcase_add_test(tc, igraph_attributes_as_features);
    tcase_add_test(tc, igraph_edge_attributes_as_edge_features);
    suite_add_tcase(s, tc);
    tc = tcase_create("datasets_from_memory");
    tcase_add_test(tc, dataset_from_parts_copies_and_splits);
    suite_add_tcase(s, tc);
    tc = tcase_create("threads");
    tcase_add_test(tc, two_threads_train_as_one_after_the_other);
    tcase_add_test(tc, error_messages_are_per_thread);
    suite_add_tcase(s, tc);
    tc = tcase_create("graph_files");
    tcase_add_test(tc, graph_files_in_every_format);
    tcase_add_test(tc, labels_split_and_class_order);
    tcase_add_test(tc, malformed_files_are_named);
    tcase_add_test(tc, format_names_and_extensions);
    tcase_add_test(tc, graph_file_allocation_failures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(api_suite());
}
