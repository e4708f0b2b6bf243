/* Datasets cut to part of their nodes. The largest connected component (gat_dataset_largest_
 * component and gat_dataset_options.largest_component): which nodes stay, against a union-find
 * reference on random graphs; every per-node and per-edge array of the nodes kept; the random
 * split drawn again over them, a fixed split and the rows of ds->splits restricted; refusals and
 * allocation failures that leave the dataset as it was; the option at gat_dataset_load. The
 * classes too small (gat_dataset_remove_small_classes, gat_dataset_options.min_class_nodes):
 * the classes renumbered with their names, the nodes and edges removed, both cuts together
 * against a reference that alternates them, the split drawn after the cut, refusals and
 * allocation failures. Datasets renumbered (gat_dataset_permute, gat_dataset_order): every row
 * and edge moved with its node, refusals and allocation failures. */
#include "testutil.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { D = 2, F = 3 };

static const char *const CLASS_NAMES[] = {"A", "B", "C", "D", "E", "F", "G", "H"};

/* A dataset of n nodes "n0".."n{n-1}" from m directed edges src[k] -> dst[k] (no
 * symmetrising): labels lab[i] of C classes named "A", "B", ... (lab NULL: (i / 2) % 2 of 2
 * classes without names, node 6 unlabelled), features (i, i + 0.5, 0), edge features of input
 * edge k (k + 1, -(k + 1)) merged per edge, edge_input from the builder; split as given (NULL:
 * the random split of o). */
static gat_status make_labels(gat_dataset *ds, gat_idx n, size_t m, const gat_idx *src,
                              const gat_idx *dst, const gat_idx *lab, gat_idx C,
                              const uint8_t *split, const gat_dataset_options *o)
{
    gat_graph g;
    gat_csr x;
    gat_idx labels[64], *input = malloc(GAT_GRAPH_MAX_EDGES(n, m, 0) * sizeof *input);
    gat_real dense[64 * F], rows[256 * D], *erows;
    char names[64][8];
    const char *ids[64];
    ck_assert(n <= 64 && m <= 256 && C <= 8);
    for (gat_idx i = 0; i < n; i++) {
        labels[i] = lab ? lab[i] : i == 6 ? -1 : (i / 2) % 2;
        dense[i * F] = (gat_real)i, dense[i * F + 1] = (gat_real)i + 0.5f, dense[i * F + 2] = 0;
        snprintf(names[i], sizeof names[i], "n%d", i);
        ids[i] = names[i];
    }
    for (size_t k = 0; k < m; k++)
        rows[k * D] = (gat_real)(k + 1), rows[k * D + 1] = -(gat_real)(k + 1);
    ck_assert_int_eq(gat_graph_from_edges_mapped(&g, n, m, src, dst, 0, input), GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(&x, n, F, dense), GAT_OK);
    erows = malloc((size_t)g.nnz * D * sizeof *erows);
    ck_assert_int_eq(gat_edge_features_merge(erows, &g, m, src, dst, 0, rows, D, 0), GAT_OK);
    const gat_dataset_parts p = {.graph = &g,
                                 .features = &x,
                                 .labels = labels,
                                 .n_classes = lab ? C : 2,
                                 .class_names = lab ? CLASS_NAMES : NULL,
                                 .split = split,
                                 .node_ids = ids,
                                 .edge_features = erows,
                                 .n_edge_features = D,
                                 .edge_input = input};
    const gat_status st = gat_dataset_from_parts(ds, &p, o);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
    free(input);
    free(erows);
    return st;
}

static gat_status make(gat_dataset *ds, gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst,
                       const uint8_t *split, const gat_dataset_options *o)
{
    return make_labels(ds, n, m, src, dst, NULL, 0, split, o);
}

static void options_off(gat_dataset_options *o)
{
    gat_dataset_options_default(o);
    o->normalize = GAT_NORMALIZE_OFF;
}

/* The edge j -> i of ds (by ids), or -1 */
static gat_idx edge_of(const gat_dataset *ds, const char *j, const char *i)
{
    const gat_idx a = tu_node(ds, j), b = tu_node(ds, i);
    if (a < 0 || b < 0) return -1;
    for (gat_idx e = ds->graph.rowptr[b]; e < ds->graph.rowptr[b + 1]; e++)
        if (ds->graph.col[e] == a) return e;
    return -1;
}

/* cut holds the nodes of full named in ids (k of them, in full's order), each with its row of
 * every array, and exactly the edges of full among them with their rows; its classes are
 * full's, or (class_to not NULL) full's class c is class class_to[c] of cut's C, with c's name */
static void assert_cut_classes(const gat_dataset *full, const gat_dataset *cut,
                               const char *const *ids, gat_idx k, const gat_idx *class_to,
                               gat_idx C)
{
    ck_assert_int_eq(cut->n, k);
    ck_assert_int_eq(gat_graph_check(&cut->graph), GAT_OK);
    ck_assert_int_eq(gat_csr_check(&cut->x), GAT_OK);
    ck_assert_int_eq(cut->n_classes, class_to ? C : full->n_classes);
    ck_assert_int_eq(cut->n_features, full->n_features);
    ck_assert_int_eq(!cut->class_names, !full->class_names);
    for (gat_idx c = 0; c < full->n_classes && full->class_names; c++)
        if (!class_to || class_to[c] >= 0)
            ck_assert_str_eq(cut->class_names[class_to ? class_to[c] : c], full->class_names[c]);
    gat_idx edges = 0;
    for (gat_idx a = 0; a < k; a++) {
        ck_assert_str_eq(cut->node_ids[a], ids[a]);
        const gat_idx i = tu_node(full, ids[a]), l = full->labels[i];
        ck_assert_int_eq(cut->labels[a], class_to && l >= 0 ? class_to[l] : l);
        ck_assert_int_ge(cut->labels[a], l < 0 ? -1 : 0);
        ck_assert_int_eq(cut->split[a], full->split[i]);
        const gat_idx r0 = full->x.rowptr[i], r1 = full->x.rowptr[i + 1];
        ck_assert_int_eq(cut->x.rowptr[a + 1] - cut->x.rowptr[a], r1 - r0);
        ck_assert_mem_eq(cut->x.col + cut->x.rowptr[a], full->x.col + r0,
                         (size_t)(r1 - r0) * sizeof(gat_idx));
        ck_assert_mem_eq(cut->x.val + cut->x.rowptr[a], full->x.val + r0,
                         (size_t)(r1 - r0) * sizeof(gat_real));
        for (gat_idx b = 0; b < k; b++) {
            const gat_idx e = edge_of(full, ids[b], ids[a]), f = edge_of(cut, ids[b], ids[a]);
            ck_assert_int_eq(e >= 0, f >= 0);
            if (e < 0) continue;
            edges++;
            ck_assert_mem_eq(cut->edge_x + (size_t)f * D, full->edge_x + (size_t)e * D,
                             D * sizeof(gat_real));
            ck_assert_int_eq(cut->edge_input[f], full->edge_input[e]);
        }
    }
    ck_assert_int_eq(cut->graph.nnz, edges);
    ck_assert_int_eq(cut->n_edge_features, D);
}

static void assert_cut(const gat_dataset *full, const gat_dataset *cut, const char *const *ids,
                       gat_idx k)
{
    assert_cut_classes(full, cut, ids, k, NULL, 0);
}

/* 0 -> 2 <- 4 (3 nodes), 1 -> 3 -> 5 <- 7 (4), 6 alone: the 4 stay, renumbered in order */
static const gat_idx SRC[] = {0, 4, 1, 3, 7}, DST[] = {2, 2, 3, 5, 5};

START_TEST(test_by_hand)
{
    gat_dataset_options o;
    gat_dataset ds, full;
    options_off(&o);
    const uint8_t split[8] = {GAT_SPLIT_TRAIN, GAT_SPLIT_TRAIN, GAT_SPLIT_VAL,  GAT_SPLIT_VAL,
                              GAT_SPLIT_TEST,  GAT_SPLIT_TEST,  GAT_SPLIT_NONE, GAT_SPLIT_NONE};
    ck_assert_int_eq(make(&ds, 8, 5, SRC, DST, split, &o), GAT_OK);
    ck_assert_int_eq(make(&full, 8, 5, SRC, DST, split, &o), GAT_OK);
    ck_assert_int_eq(ds.removed_nodes, 0);
    gat_idx removed = -1;
    ck_assert_int_eq(gat_dataset_largest_component(&ds, &removed), GAT_OK);
    ck_assert_int_eq(removed, 4);
    ck_assert_int_eq(ds.removed_nodes, 4);
    static const char *const kept[] = {"n1", "n3", "n5", "n7"};
    assert_cut(&full, &ds, kept, 4);
    ck_assert_int_eq(ds.n_train, 1);
    ck_assert_int_eq(ds.n_val, 1);
    ck_assert_int_eq(ds.n_test, 1);
    ck_assert_int_eq(ds.n_splits, 1);
    /* connected now: nothing changes, the count stays */
    const gat_idx *x_before = ds.x.col;
    ck_assert_int_eq(gat_dataset_largest_component(&ds, &removed), GAT_OK);
    ck_assert_int_eq(removed, 0);
    ck_assert_int_eq(ds.removed_nodes, 4);
    ck_assert_ptr_eq(ds.x.col, x_before);
    ck_assert_int_eq(gat_dataset_largest_component(&ds, NULL), GAT_OK);
    gat_dataset_destroy(&ds);

    /* two of 3 nodes: the one holding node 0 */
    ck_assert_int_eq(make(&ds, 8, 4, SRC, DST, split, &o), GAT_OK);
    ck_assert_int_eq(gat_dataset_largest_component(&ds, &removed), GAT_OK);
    ck_assert_int_eq(removed, 5);
    static const char *const first[] = {"n0", "n2", "n4"};
    assert_cut(&full, &ds, first, 3);
    gat_dataset_destroy(&ds);
    gat_dataset_destroy(&full);
}
END_TEST

/* The option: the random split drawn over the kept nodes equals the split drawn on the cut
 * dataset; a given split is kept as it is; at gat_dataset_from_parts. */
START_TEST(test_option_split)
{
    gat_dataset_options o;
    gat_dataset ds, cut;
    options_off(&o);
    o.train_per_class = 1;
    o.n_val = 1;
    o.n_test = GAT_SPLIT_REST;
    o.seed = 5;
    for (int seed = 1; seed <= 6; seed++) {
        o.seed = (uint64_t)seed;
        o.largest_component = 1;
        ck_assert_int_eq(make(&ds, 8, 5, SRC, DST, NULL, &o), GAT_OK);
        o.largest_component = 0;
        ck_assert_int_eq(make(&cut, 8, 5, SRC, DST, NULL, &o), GAT_OK);
        ck_assert_int_eq(gat_dataset_largest_component(&cut, NULL), GAT_OK);
        ck_assert_int_eq(gat_dataset_random_split(&cut, &o), GAT_OK);
        ck_assert_int_eq(ds.n, 4);
        ck_assert_int_eq(ds.removed_nodes, 4);
        ck_assert_mem_eq(ds.split, cut.split, 4);
        /* 1 training node per class, 1 validation node, the rest (one) test */
        ck_assert_int_eq(ds.n_train, 2);
        ck_assert_int_eq(ds.n_val, 1);
        ck_assert_int_eq(ds.n_test, 1);
        gat_dataset_destroy(&ds);
        gat_dataset_destroy(&cut);
    }
    /* a given split: its kept nodes, not drawn again */
    const uint8_t split[8] = {GAT_SPLIT_TRAIN, GAT_SPLIT_NONE, GAT_SPLIT_VAL,  GAT_SPLIT_TEST,
                              GAT_SPLIT_TEST,  GAT_SPLIT_NONE, GAT_SPLIT_NONE, GAT_SPLIT_TRAIN};
    o.largest_component = 1;
    ck_assert_int_eq(make(&ds, 8, 5, SRC, DST, split, &o), GAT_OK);
    const uint8_t want[4] = {GAT_SPLIT_NONE, GAT_SPLIT_TEST, GAT_SPLIT_NONE, GAT_SPLIT_TRAIN};
    ck_assert_mem_eq(ds.split, want, 4);
    gat_dataset_destroy(&ds);
    /* ignore_split_file is gat_dataset_load's: parts keep their split with it too */
    o.ignore_split_file = 1;
    ck_assert_int_eq(make(&ds, 8, 5, SRC, DST, split, &o), GAT_OK);
    ck_assert_mem_eq(ds.split, want, 4);
    gat_dataset_destroy(&ds);
    o.ignore_split_file = 0;
    /* not 0 or 1 */
    o.largest_component = 2;
    ASSERT_FAILS(make(&ds, 8, 5, SRC, DST, split, &o), GAT_EINVAL,
                 "gat_dataset_from_parts: largest_component is 2, expected 0 or 1");
}
END_TEST

/* The fixed splits of ds->splits and multi-hot labels come along; many graphs are refused and
 * leave the dataset as it was. */
START_TEST(test_splits_and_refusals)
{
    gat_dataset_options o;
    gat_dataset ds;
    options_off(&o);
    const uint8_t split[8] = {GAT_SPLIT_TRAIN, GAT_SPLIT_TRAIN, GAT_SPLIT_VAL,  GAT_SPLIT_VAL,
                              GAT_SPLIT_TEST,  GAT_SPLIT_TEST,  GAT_SPLIT_NONE, GAT_SPLIT_NONE};
    ck_assert_int_eq(make(&ds, 8, 5, SRC, DST, split, &o), GAT_OK);
    uint8_t *rows = malloc(3 * 8);
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 8; i++)
            rows[r * 8 + i] = r == 0   ? split[i]
                              : i == 6 ? GAT_SPLIT_NONE
                                       : (uint8_t)(1 + (i + r) % 3);
    ds.splits = rows;
    ds.n_splits = 3;
    ck_assert_int_eq(gat_dataset_largest_component(&ds, NULL), GAT_OK);
    ck_assert_int_eq(ds.n_splits, 3);
    for (int r = 0; r < 3; r++)
        for (int a = 0; a < 4; a++) {
            const int i = 2 * a + 1; /* n1, n3, n5, n7 */
            ck_assert_int_eq(ds.splits[r * 4 + a], r == 0 ? split[i] : 1 + (i + r) % 3);
        }
    ck_assert_int_eq(gat_dataset_use_split(&ds, 2), GAT_OK);
    ck_assert_mem_eq(ds.split, ds.splits + 8, 4);
    gat_dataset_destroy(&ds);

    /* many graphs: refused, nothing changed */
    tu_graph_set(&ds, 3, 4, 7);
    const gat_dataset before = ds;
    ASSERT_FAILS(gat_dataset_largest_component(&ds, NULL), GAT_EINVAL,
                 "gat_dataset_largest_component: the dataset holds 3 graphs; the largest "
                 "component is for a dataset of one graph");
    ck_assert_mem_eq(&ds, &before, sizeof ds);
    gat_dataset_destroy(&ds);
    ASSERT_FAILS(gat_dataset_largest_component(NULL, NULL), GAT_EINVAL,
                 "gat_dataset_largest_component: NULL dataset");
    gat_dataset empty = {0};
    ck_assert_int_eq(gat_dataset_largest_component(&empty, NULL), GAT_OK);

    /* multi-hot labels: their rows */
    gat_graph g;
    gat_csr x;
    uint8_t lm[8 * 2];
    for (int i = 0; i < 16; i++)
        lm[i] = (uint8_t)((i * 7) % 3 == 0);
    ck_assert_int_eq(gat_graph_from_edges(&g, 8, 5, SRC, DST, 0), GAT_OK);
    ck_assert_int_eq(gat_csr_identity(&x, 8), GAT_OK);
    const gat_dataset_parts p = {
        .graph = &g, .features = &x, .n_labels = 2, .label_matrix = lm, .split = split};
    o.largest_component = 1;
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &p, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    for (int a = 0; a < 4; a++)
        ck_assert_mem_eq(ds.label_matrix + 2 * a, lm + 2 * (2 * a + 1), 2);
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&g);

    /* a graph without self-loops keeps none */
    ck_assert_int_eq(gat_graph_from_edges(&g, 8, 5, SRC, DST, GAT_GRAPH_NO_SELF_LOOPS), GAT_OK);
    const gat_dataset_parts q = {.graph = &g, .features = &x};
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &q, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    ck_assert_int_eq(ds.graph.nnz, 3);
    ck_assert_int_eq(gat_graph_check(&ds.graph), GAT_OK);
    ck_assert(tu_has_edge(&ds.graph, 0, 1) && tu_has_edge(&ds.graph, 1, 2) &&
              tu_has_edge(&ds.graph, 3, 2));
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* The reference: a union-find over the edges; the largest set, the one holding the lowest node
 * on ties. keep[i] = 1 for its nodes; returns its size. */
static gat_idx find(gat_idx *up, gat_idx i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

/* Of the nodes with keep[i] = 1 and the edges among them: keep[i] = 1 for the largest set's */
static gat_idx ref_largest_of(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst,
                              uint8_t *keep)
{
    gat_idx up[64], size[64] = {0}, best = -1;
    for (gat_idx i = 0; i < n; i++)
        up[i] = i;
    for (size_t k = 0; k < m; k++) {
        if (!keep[src[k]] || !keep[dst[k]]) continue;
        const gat_idx a = find(up, src[k]), b = find(up, dst[k]);
        if (a != b) up[a < b ? b : a] = a < b ? a : b; /* the lower root stays */
    }
    for (gat_idx i = 0; i < n; i++)
        size[find(up, i)] += keep[i];
    for (gat_idx i = 0; i < n; i++) /* roots are their sets' lowest nodes: ascending order */
        if (keep[i] && find(up, i) == i && (best < 0 || size[i] > size[best])) best = i;
    for (gat_idx i = 0; i < n; i++)
        keep[i] = keep[i] && find(up, i) == best;
    return best < 0 ? 0 : size[best];
}

static gat_idx ref_largest(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst,
                           uint8_t *keep)
{
    for (gat_idx i = 0; i < n; i++)
        keep[i] = 1;
    return ref_largest_of(n, m, src, dst, keep);
}

/* m random edges src[k] -> dst[k] among n nodes from the LCG state */
static void random_edges(uint64_t *state, gat_idx n, size_t m, gat_idx *src, gat_idx *dst)
{
    for (size_t k = 0; k < m; k++) {
        *state = *state * 6364136223846793005ull + 1442695040888963407ull;
        src[k] = (gat_idx)((*state >> 33) % (uint64_t)n);
        dst[k] = (gat_idx)((*state >> 13) % (uint64_t)n);
    }
}

START_TEST(test_random_graphs)
{
    gat_dataset_options o;
    gat_dataset ds, full;
    options_off(&o);
    o.largest_component = 1;
    uint64_t state = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
    for (int trial = 0; trial < 40; trial++) {
        gat_idx src[256], dst[256];
        const gat_idx n = 10 + trial % 50;
        const size_t m = (size_t)(trial % 7) * (size_t)n / 6;
        random_edges(&state, n, m, src, dst);
        uint8_t keep[64];
        const gat_idx k = ref_largest(n, m, src, dst, keep);
        ck_assert_int_eq(make(&ds, n, m, src, dst, NULL, &o), GAT_OK);
        o.largest_component = 0;
        ck_assert_int_eq(make(&full, n, m, src, dst, NULL, &o), GAT_OK);
        o.largest_component = 1;
        const char *ids[64];
        gat_idx c = 0;
        for (gat_idx i = 0; i < n; i++)
            if (keep[i]) ids[c++] = full.node_ids[i];
        ck_assert_int_eq(c, k);
        ck_assert_int_eq(ds.removed_nodes, n - k);
        /* assert_cut compares the splits: the full dataset's, cut like ds's, is given here */
        gat_dataset same = ds;
        uint8_t split[64];
        for (gat_idx a = 0; a < k; a++)
            split[a] = full.split[tu_node(&full, ids[a])];
        same.split = split;
        assert_cut(&full, &same, ids, k);
        gat_dataset_destroy(&ds);
        gat_dataset_destroy(&full);
    }
}
END_TEST

/* Classes A (n0-n3), B (n4, n5), C (n6-n8); n9 unlabelled. Edges within and across classes. */
static const gat_idx CL_LAB[10] = {0, 0, 0, 0, 1, 1, 2, 2, 2, -1};
static const gat_idx CL_SRC[] = {0, 4, 5, 1, 6, 7, 9, 2, 8, 3},
                     CL_DST[] = {4, 1, 6, 2, 7, 8, 0, 5, 9, 6};

/* The dataset of SRC/DST (8 nodes) or, with classes, of CL_* (10 nodes), and the cut tried on it */
static gat_status make_fixture(gat_dataset *ds, int classes, const gat_dataset_options *o)
{
    return classes ? make_labels(ds, 10, 10, CL_SRC, CL_DST, CL_LAB, 3, NULL, o)
                   : make(ds, 8, 5, SRC, DST, NULL, o);
}

/* kind 0: the largest component, 1: the classes, 2: the nodes renumbered in reverse */
static gat_status cut_fixture(gat_dataset *ds, int kind)
{
    gat_idx rev[8];
    for (gat_idx k = 0; k < 8; k++)
        rev[k] = 7 - k;
    return kind == 2   ? gat_dataset_permute(ds, rev)
           : kind == 1 ? gat_dataset_remove_small_classes(ds, 3, NULL, NULL)
                       : gat_dataset_largest_component(ds, NULL);
}

/* A failing allocation anywhere in either cut or in a renumbering leaves the dataset as it was
 * (each allocation fails in turn until the call succeeds: 4 nodes of the component, 8 of the
 * classes kept, 8 renumbered) */
START_TEST(test_alloc_failures)
{
    gat_dataset_options o;
    gat_dataset ds, full;
    options_off(&o);
    const int kind = _i, classes = kind == 1;
    ck_assert_int_eq(make_fixture(&full, classes, &o), GAT_OK);
    long k, failed = 0;
    gat_status st = GAT_ENOMEM;
    for (k = 0; k < 10000; k++) {
        ck_assert_int_eq(make_fixture(&ds, classes, &o), GAT_OK);
        const gat_dataset before = ds;
        gat_i_alloc_fail_at(k);
        st = cut_fixture(&ds, kind);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_mem_eq(&ds, &before, sizeof ds);
        assert_cut(&full, &ds, full.node_ids, full.n);
        failed++;
        gat_dataset_destroy(&ds);
    }
    ck_assert_int_eq(st, GAT_OK);
    ck_assert_int_gt(failed, 10);
    ck_assert_int_eq(ds.n, kind ? 8 : 4);
    if (kind == 2) {
        const char *rev[8];
        for (gat_idx a = 0; a < 8; a++)
            rev[a] = full.node_ids[7 - a];
        assert_cut(&full, &ds, rev, 8);
    }
    gat_dataset_destroy(&ds);
    gat_dataset_destroy(&full);
}
END_TEST

/* gat_dataset_load with the options: a Cora-layout dataset with a split file (kept nodes'
 * split), and with ignore_split_file (drawn over the kept nodes); a .gatd file of it, whose
 * arrays the loader maps, cut the same; both cuts without a split file */
START_TEST(test_load)
{
    char *dir = tu_tmpdir(), prefix[4096];
    tu_write(dir, "two.content", "a 1 0 x\nb 0 1 y\nc 1 1 x\nd 1 0 y\ne 0 1 x\nf 1 1 y\ng 1 0 x\n");
    tu_write(dir, "two.cites", "a b\nb c\nc d\ne f\n");
    tu_write(dir, "two.split", "a train\nb val\nc test\nd train\ne train\nf test\n");
    snprintf(prefix, sizeof prefix, "%s/two", dir);
    gat_dataset_options o;
    gat_dataset ds;
    options_off(&o);
    o.largest_component = 1;
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    ck_assert_int_eq(ds.removed_nodes, 3);
    ck_assert_str_eq(ds.node_ids[3], "d");
    const uint8_t want[4] = {GAT_SPLIT_TRAIN, GAT_SPLIT_VAL, GAT_SPLIT_TEST, GAT_SPLIT_TRAIN};
    ck_assert_mem_eq(ds.split, want, 4);
    ck_assert_int_eq(ds.n_train, 2);
    gat_dataset_destroy(&ds);
    o.ignore_split_file = 1;
    o.train_per_class = 1;
    o.n_val = 1;
    o.n_test = GAT_SPLIT_REST;
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    ck_assert_int_eq(ds.n_train + ds.n_val + ds.n_test, 4);
    ck_assert_int_eq(ds.n_train, 2);
    gat_dataset cut = ds;
    /* a .gatd file of the whole dataset (its arrays in the file's mapping): the same cut */
    char gatd[4096];
    snprintf(gatd, sizeof gatd, "%s/two.gatd", dir);
    o.largest_component = 0;
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 7);
    ck_assert_int_eq(gat_dataset_save(&ds, gatd, "two"), GAT_OK);
    gat_dataset_destroy(&ds);
    o.largest_component = 1;
    ck_assert_int_eq(gat_dataset_load(&ds, gatd, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    ck_assert_int_eq(ds.removed_nodes, 3);
    ck_assert_mem_eq(ds.split, cut.split, 4);
    ck_assert_mem_eq(ds.labels, cut.labels, 4 * sizeof(gat_idx));
    ck_assert_int_eq(ds.graph.nnz, cut.graph.nnz);
    ck_assert_mem_eq(ds.graph.col, cut.graph.col, (size_t)cut.graph.nnz * sizeof(gat_idx));
    ck_assert_mem_eq(ds.x.val, cut.x.val, (size_t)cut.x.rowptr[4] * sizeof(gat_real));
    ck_assert_ptr_null(ds.storage);
    gat_dataset_destroy(&ds);
    gat_dataset_destroy(&cut);

    /* both options, no split file: class z (one node) goes, which leaves e in a component of
     * two; the strict per-class split is drawn over the four nodes left */
    tu_write(dir, "cl.content", "a 1 0 x\nb 0 1 y\nc 1 1 x\nd 1 0 y\ne 0 1 x\nf 1 1 y\ng 1 0 z\n");
    tu_write(dir, "cl.cites", "a b\nb c\nc d\ne g\nf e\n");
    snprintf(prefix, sizeof prefix, "%s/cl", dir);
    options_off(&o);
    o.train_per_class = 1;
    o.val_per_class = 1;
    o.n_test = GAT_SPLIT_REST;
    o.split_strict = GAT_SPLIT_STRICT_TRAIN | GAT_SPLIT_STRICT_VAL;
    o.min_class_nodes = 2;
    o.largest_component = 1;
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    ck_assert_int_eq(ds.removed_nodes, 3);
    ck_assert_int_eq(ds.removed_classes, 1);
    ck_assert_int_eq(ds.n_classes, 2);
    ck_assert_str_eq(ds.class_names[0], "x");
    ck_assert_str_eq(ds.class_names[1], "y");
    ck_assert_str_eq(ds.node_ids[3], "d");
    ck_assert_int_eq(ds.n_train, 2);
    ck_assert_int_eq(ds.n_val, 2);
    ck_assert_int_eq(ds.n_test, 0);
    gat_dataset_destroy(&ds);
    /* without the largest component: z alone goes, its edge with it */
    o.largest_component = 0;
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 6);
    ck_assert_int_eq(ds.removed_nodes, 1);
    ck_assert_int_eq(ds.n_train + ds.n_val + ds.n_test, 6);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_classes_by_hand)
{
    gat_dataset_options o;
    gat_dataset ds, full;
    options_off(&o);
    uint8_t split[10];
    for (int i = 0; i < 10; i++)
        split[i] = (uint8_t)(i == 9 ? GAT_SPLIT_NONE : 1 + i % 3);
    ck_assert_int_eq(make_labels(&ds, 10, 10, CL_SRC, CL_DST, CL_LAB, 3, split, &o), GAT_OK);
    ck_assert_int_eq(make_labels(&full, 10, 10, CL_SRC, CL_DST, CL_LAB, 3, split, &o), GAT_OK);
    gat_idx classes = -1, nodes = -1;
    ck_assert_int_eq(gat_dataset_remove_small_classes(&ds, 3, &classes, &nodes), GAT_OK);
    ck_assert_int_eq(classes, 1);
    ck_assert_int_eq(nodes, 2);
    ck_assert_int_eq(ds.removed_classes, 1);
    ck_assert_int_eq(ds.removed_nodes, 2);
    static const char *const kept[] = {"n0", "n1", "n2", "n3", "n6", "n7", "n8", "n9"};
    const gat_idx to[3] = {0, -1, 1};
    assert_cut_classes(&full, &ds, kept, 8, to, 2);
    /* the edges from and to B's nodes are gone: 0->4, 4->1, 5->6, 2->5 */
    ck_assert_int_eq(ds.graph.nnz, full.graph.nnz - 6); /* and their self-loops */
    gat_idx counts[4] = {0};
    for (int a = 0; a < 8; a++)
        counts[ds.split[a]]++;
    ck_assert_int_eq(ds.n_train, counts[GAT_SPLIT_TRAIN]);
    ck_assert_int_eq(ds.n_val, counts[GAT_SPLIT_VAL]);
    ck_assert_int_eq(ds.n_test, counts[GAT_SPLIT_TEST]);
    /* every class large enough, or 0: nothing changes */
    const gat_idx *x_before = ds.x.col;
    ck_assert_int_eq(gat_dataset_remove_small_classes(&ds, 3, &classes, &nodes), GAT_OK);
    ck_assert_int_eq(classes + nodes, 0);
    ck_assert_int_eq(gat_dataset_remove_small_classes(&ds, 0, NULL, NULL), GAT_OK);
    ck_assert_ptr_eq(ds.x.col, x_before);
    /* no class reaches 5: refused, nothing changed */
    const gat_dataset before = ds;
    ASSERT_FAILS(gat_dataset_remove_small_classes(&ds, 5, &classes, NULL), GAT_EINVAL,
                 "gat_dataset_remove_small_classes: no class has 5 labelled nodes: the largest, "
                 "class 0 ('A'), has 4");
    ck_assert_mem_eq(&ds, &before, sizeof ds);
    ck_assert_int_eq(classes, 0);
    ASSERT_FAILS(gat_dataset_remove_small_classes(&ds, -1, NULL, NULL), GAT_EINVAL,
                 "gat_dataset_remove_small_classes: negative smallest class size -1");
    /* 4: C (now class 1) goes too, A stays class 0; the counts add up */
    ck_assert_int_eq(gat_dataset_remove_small_classes(&ds, 4, &classes, &nodes), GAT_OK);
    ck_assert_int_eq(classes, 1);
    ck_assert_int_eq(nodes, 3);
    ck_assert_int_eq(ds.removed_classes, 2);
    ck_assert_int_eq(ds.removed_nodes, 5);
    const gat_idx to2[3] = {0, -1, -1};
    assert_cut_classes(&full, &ds, (const char *const[]){"n0", "n1", "n2", "n3", "n9"}, 5, to2, 1);
    gat_dataset_destroy(&ds);
    gat_dataset_destroy(&full);

    /* refusals */
    ASSERT_FAILS(gat_dataset_remove_small_classes(NULL, 3, NULL, NULL), GAT_EINVAL,
                 "gat_dataset_remove_small_classes: NULL dataset");
    tu_graph_set(&ds, 3, 4, 7);
    ASSERT_FAILS(gat_dataset_remove_small_classes(&ds, 3, NULL, NULL), GAT_EINVAL,
                 "gat_dataset_remove_small_classes: the dataset holds 3 graphs; classes are "
                 "removed from a dataset of one graph");
    gat_dataset_destroy(&ds);
    gat_graph g;
    gat_csr x;
    uint8_t lm[10 * 2] = {0};
    ck_assert_int_eq(gat_graph_from_edges(&g, 10, 10, CL_SRC, CL_DST, 0), GAT_OK);
    ck_assert_int_eq(gat_csr_identity(&x, 10), GAT_OK);
    const gat_dataset_parts p = {
        .graph = &g, .features = &x, .n_labels = 2, .label_matrix = lm, .split = split};
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &p, &o), GAT_OK);
    ASSERT_FAILS(gat_dataset_remove_small_classes(&ds, 3, NULL, NULL), GAT_EINVAL,
                 "gat_dataset_remove_small_classes: the dataset has 2 labels per node "
                 "(multi-hot), not one class per node");
    gat_dataset_destroy(&ds);
    const gat_dataset_parts q = {.graph = &g, .features = &x};
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &q, &o), GAT_OK);
    ASSERT_FAILS(gat_dataset_remove_small_classes(&ds, 3, NULL, NULL), GAT_EINVAL,
                 "gat_dataset_remove_small_classes: the dataset has no classes to keep 3 nodes "
                 "of");
    gat_dataset_destroy(&ds);
    o.min_class_nodes = -2;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &q, &o), GAT_EINVAL,
                 "gat_dataset_from_parts: negative min_class_nodes -2");
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* The option: the random split is drawn after the cut, so a strict per-class size that the
 * removed class cannot give does not fail, and it equals the split drawn on the cut dataset */
START_TEST(test_classes_option)
{
    gat_dataset_options o;
    gat_dataset ds, cut;
    options_off(&o);
    o.train_per_class = 2;
    o.val_per_class = 1;
    o.n_test = GAT_SPLIT_REST;
    o.split_strict = GAT_SPLIT_STRICT_TRAIN | GAT_SPLIT_STRICT_VAL;
    /* B has 2 nodes, fewer than 2 + 1 */
    ASSERT_FAILS(make_labels(&ds, 10, 10, CL_SRC, CL_DST, CL_LAB, 3, NULL, &o), GAT_EFORMAT,
                 "class 'B' has 2 nodes");
    for (int lcc = 0; lcc <= 1; lcc++)
        for (int seed = 1; seed <= 4; seed++) {
            o.seed = (uint64_t)seed;
            o.min_class_nodes = 3;
            o.largest_component = lcc;
            ck_assert_int_eq(make_labels(&ds, 10, 10, CL_SRC, CL_DST, CL_LAB, 3, NULL, &o), GAT_OK);
            o.min_class_nodes = 0;
            o.largest_component = 0;
            o.split_strict = 0; /* the whole graph's split is not the point */
            ck_assert_int_eq(make_labels(&cut, 10, 10, CL_SRC, CL_DST, CL_LAB, 3, NULL, &o),
                             GAT_OK);
            o.split_strict = GAT_SPLIT_STRICT_TRAIN | GAT_SPLIT_STRICT_VAL;
            /* without B, its edges go: {n1, n2} and {n0, n3, n6-n9}; the largest component
             * leaves A two nodes, so A goes too: C and n9 stay, connected */
            gat_idx removed = 1;
            ck_assert_int_eq(gat_dataset_remove_small_classes(&cut, 3, NULL, NULL), GAT_OK);
            while (lcc && removed > 0) {
                ck_assert_int_eq(gat_dataset_largest_component(&cut, NULL), GAT_OK);
                ck_assert_int_eq(gat_dataset_remove_small_classes(&cut, 3, NULL, &removed), GAT_OK);
            }
            ck_assert_msg(gat_dataset_random_split(&cut, &o) == GAT_OK, "%s", gat_last_error());
            const gat_idx n = lcc ? 4 : 8, C = lcc ? 1 : 2;
            ck_assert_int_eq(ds.n, n);
            ck_assert_int_eq(cut.n, n);
            ck_assert_int_eq(ds.n_classes, C);
            ck_assert_int_eq(ds.removed_classes, 3 - C);
            ck_assert_str_eq(ds.class_names[C - 1], "C");
            ck_assert_mem_eq(ds.split, cut.split, (size_t)n);
            ck_assert_int_eq(ds.n_train, 2 * C);
            ck_assert_int_eq(ds.n_val, C);
            ck_assert_int_eq(ds.n_test, lcc ? 0 : 1);
            gat_dataset_destroy(&ds);
            gat_dataset_destroy(&cut);
        }
}
END_TEST

/* Random graphs and labels, both cuts together: the nodes kept and the classes renumbered
 * against a reference that alternates them with union-find until neither removes a node */
START_TEST(test_classes_random)
{
    gat_dataset_options o;
    gat_dataset ds, full;
    options_off(&o);
    uint64_t state = 0x2545f4914f6cdd1dull * (uint64_t)(_i + 1);
    for (int trial = 0; trial < 40; trial++) {
        gat_idx src[256], dst[256], lab[64];
        const gat_idx n = 10 + trial % 50, C = 2 + trial % 5;
        const size_t m = (size_t)(1 + trial % 5) * (size_t)n / 4;
        random_edges(&state, n, m, src, dst);
        for (gat_idx i = 0; i < n; i++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            lab[i] = (gat_idx)((state >> 40) % (uint64_t)(C + 1)) - 1; /* -1: unlabelled */
        }
        const int lcc = trial % 3 != 0;
        const gat_idx min = 1 + trial % 4;
        /* the reference */
        uint8_t keep[64];
        gat_idx count[8], k = n, fail = 0;
        for (gat_idx i = 0; i < n; i++)
            keep[i] = 1;
        for (;;) {
            if (lcc) k = ref_largest_of(n, m, src, dst, keep);
            memset(count, 0, sizeof count);
            for (gat_idx i = 0; i < n; i++)
                if (keep[i] && lab[i] >= 0) count[lab[i]]++;
            gat_idx removed = 0, big = 0;
            for (gat_idx c = 0; c < C; c++)
                big += count[c] >= min;
            if (big == 0) {
                fail = 1;
                break;
            }
            for (gat_idx i = 0; i < n; i++)
                if (keep[i] && lab[i] >= 0 && count[lab[i]] < min) keep[i] = 0, removed++;
            k -= removed;
            if (!lcc || removed == 0) break;
        }
        uint8_t split[64];
        for (gat_idx i = 0; i < n; i++)
            split[i] = (uint8_t)(lab[i] < 0 ? GAT_SPLIT_NONE : i % 4);
        o.largest_component = lcc;
        o.min_class_nodes = min;
        const gat_status st = make_labels(&ds, n, m, src, dst, lab, C, split, &o);
        ck_assert_msg(st == (fail ? GAT_EINVAL : GAT_OK), "%d: %s", st, gat_last_error());
        if (fail) {
            ck_assert_int_eq(st, GAT_EINVAL);
            continue;
        }
        ck_assert_int_eq(st, GAT_OK);
        o.largest_component = 0;
        o.min_class_nodes = 0;
        ck_assert_int_eq(make_labels(&full, n, m, src, dst, lab, C, split, &o), GAT_OK);
        const char *ids[64];
        gat_idx c = 0, to[8], K = 0;
        for (gat_idx i = 0; i < n; i++)
            if (keep[i]) ids[c++] = full.node_ids[i];
        ck_assert_int_eq(c, k);
        for (gat_idx a = 0; a < C; a++)
            to[a] = count[a] >= min ? K++ : -1;
        assert_cut_classes(&full, &ds, ids, k, to, K);
        ck_assert_int_eq(ds.removed_nodes, n - k);
        ck_assert_int_eq(ds.removed_classes, C - K);
        gat_dataset_destroy(&ds);
        gat_dataset_destroy(&full);
    }
}
END_TEST

/* gat_dataset_permute on random graphs and random permutations: every node with its rows, every
 * edge with its rows (assert_cut: by the nodes' ids), each row's sources ascending
 * (gat_graph_check), the fixed splits' rows and the split sizes; the first negative feature
 * looked up in the new order. */
START_TEST(test_permute)
{
    gat_dataset_options o;
    gat_dataset ds, full;
    options_off(&o);
    uint64_t state = 0x2545f4914f6cdd1dull * (uint64_t)(_i + 1);
    for (int trial = 0; trial < 30; trial++) {
        gat_idx src[256], dst[256], perm[64];
        const gat_idx n = 10 + trial % 50;
        const size_t m = (size_t)(1 + trial % 4) * (size_t)n;
        random_edges(&state, n, m, src, dst);
        for (gat_idx i = 0; i < n; i++)
            perm[i] = i;
        for (gat_idx i = n - 1; i > 0; i--) { /* Fisher-Yates */
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const gat_idx j = (gat_idx)((state >> 33) % (uint64_t)(i + 1)), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        ck_assert_int_eq(make(&ds, n, m, src, dst, NULL, &o), GAT_OK);
        ck_assert_int_eq(make(&full, n, m, src, dst, NULL, &o), GAT_OK);
        uint8_t *rows = malloc(2 * (size_t)n);
        for (gat_idx i = 0; i < 2 * n; i++)
            rows[i] = (uint8_t)(i % 4);
        ds.splits = rows;
        ds.n_splits = 2;
        const gat_idx train = ds.n_train, val = ds.n_val, test = ds.n_test;
        ck_assert_int_eq(gat_dataset_permute(&ds, perm), GAT_OK);
        const char *ids[64];
        for (gat_idx k = 0; k < n; k++)
            ids[k] = full.node_ids[perm[k]];
        assert_cut(&full, &ds, ids, n);
        ck_assert_int_eq(ds.n_splits, 2);
        for (int r = 0; r < 2; r++)
            for (gat_idx k = 0; k < n; k++)
                ck_assert_int_eq(ds.splits[(size_t)r * (size_t)n + (size_t)k],
                                 (r * n + perm[k]) % 4);
        ck_assert_int_eq(ds.n_train, train);
        ck_assert_int_eq(ds.n_val, val);
        ck_assert_int_eq(ds.n_test, test);
        ck_assert_int_eq(ds.removed_nodes, 0);
        gat_dataset_destroy(&ds);
        gat_dataset_destroy(&full);
    }
    /* the first negative feature: node 5's in the new order (n0 and n5 hold one) */
    gat_graph g;
    gat_csr x;
    gat_real dense[8 * 2] = {0};
    dense[0 * 2 + 1] = -1, dense[5 * 2] = -2;
    ck_assert_int_eq(gat_graph_from_edges(&g, 8, 5, SRC, DST, 0), GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(&x, 8, 2, dense), GAT_OK);
    const gat_dataset_parts p = {.graph = &g, .features = &x};
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &p, &o), GAT_OK);
    ck_assert_int_eq(ds.negative_node, 0);
    const gat_idx swap[8] = {5, 1, 2, 3, 4, 0, 6, 7};
    ck_assert_int_eq(gat_dataset_permute(&ds, swap), GAT_OK);
    ck_assert_int_eq(ds.negative_node, 0);
    ck_assert_int_eq(ds.negative_column, 0);
    ck_assert(ds.negative_value == -2);
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* Refusals leave the dataset as it was; gat_dataset_order by a method is gat_dataset_permute by
 * gat_graph_order's permutation, none and auto on a small graph leave it as it is. */
START_TEST(test_permute_refusals_and_order)
{
    gat_dataset_options o;
    gat_dataset ds, full;
    options_off(&o);
    ck_assert_int_eq(make(&ds, 8, 5, SRC, DST, NULL, &o), GAT_OK);
    const gat_dataset before = ds;
    gat_idx bad[8] = {0, 1, 2, 3, 4, 5, 6, 6};
    ASSERT_FAILS(
        gat_dataset_permute(&ds, bad), GAT_EINVAL,
        "gat_dataset_permute: perm is not a permutation of 0..7: perm[7] = 6 occurs twice");
    bad[2] = 8;
    ASSERT_FAILS(gat_dataset_permute(&ds, bad), GAT_EINVAL,
                 "gat_dataset_permute: perm is not a permutation of 0..7: perm[2] = 8 is out of "
                 "range");
    bad[2] = -1;
    ASSERT_FAILS(gat_dataset_permute(&ds, bad), GAT_EINVAL, "perm[2] = -1 is out of range");
    ASSERT_FAILS(gat_dataset_permute(&ds, NULL), GAT_EINVAL, "gat_dataset_permute: NULL perm");
    ASSERT_FAILS(gat_dataset_permute(NULL, bad), GAT_EINVAL, "gat_dataset_permute: NULL dataset");
    ASSERT_FAILS(gat_dataset_order(&ds, GAT_ORDER_COUNT, NULL), GAT_EINVAL,
                 "gat_dataset_order: order 4 is not a gat_order");
    ASSERT_FAILS(gat_dataset_order(NULL, GAT_ORDER_RCM, NULL), GAT_EINVAL,
                 "gat_dataset_order: NULL dataset");
    ck_assert_mem_eq(&ds, &before, sizeof ds);
    gat_order used = GAT_ORDER_RCM;
    ck_assert_int_eq(gat_dataset_order(&ds, GAT_ORDER_NONE, &used), GAT_OK);
    ck_assert_int_eq(used, GAT_ORDER_NONE);
    ck_assert_int_eq(gat_dataset_order(&ds, GAT_ORDER_AUTO, &used), GAT_OK); /* 13 edges */
    ck_assert_int_eq(used, GAT_ORDER_NONE);
    ck_assert_mem_eq(&ds, &before, sizeof ds);
    for (int method = GAT_ORDER_RCM; method <= GAT_ORDER_DEGREE; method++) {
        gat_idx perm[8];
        ck_assert_int_eq(make(&full, 8, 5, SRC, DST, NULL, &o), GAT_OK);
        ck_assert_int_eq(gat_graph_order(&full.graph, (gat_order)method, perm), GAT_OK);
        gat_dataset by_perm;
        ck_assert_int_eq(make(&by_perm, 8, 5, SRC, DST, NULL, &o), GAT_OK);
        ck_assert_int_eq(gat_dataset_permute(&by_perm, perm), GAT_OK);
        gat_dataset_destroy(&ds);
        ck_assert_int_eq(make(&ds, 8, 5, SRC, DST, NULL, &o), GAT_OK);
        ck_assert_int_eq(gat_dataset_order(&ds, (gat_order)method, &used), GAT_OK);
        ck_assert_int_eq(used, method);
        const char *ids[8];
        gat_idx moved = 0;
        for (gat_idx k = 0; k < 8; k++)
            ids[k] = full.node_ids[perm[k]], moved += perm[k] != k;
        ck_assert_int_gt(moved, 0);
        assert_cut(&full, &ds, ids, 8);
        assert_cut(&full, &by_perm, ids, 8);
        gat_dataset_destroy(&by_perm);
        gat_dataset_destroy(&full);
    }
    gat_dataset_destroy(&ds);

    /* many graphs: refused, nothing changed */
    tu_graph_set(&ds, 3, 4, 7);
    const gat_dataset set = ds;
    gat_idx *id = malloc((size_t)ds.n * sizeof *id);
    for (gat_idx k = 0; k < ds.n; k++)
        id[k] = k;
    ASSERT_FAILS(gat_dataset_permute(&ds, id), GAT_EINVAL,
                 "gat_dataset_permute: the dataset holds 3 graphs; nodes are renumbered in a "
                 "dataset of one graph");
    ASSERT_FAILS(gat_dataset_order(&ds, GAT_ORDER_RCM, NULL), GAT_EINVAL,
                 "gat_dataset_order: the dataset holds 3 graphs");
    ck_assert_mem_eq(&ds, &set, sizeof ds);
    gat_dataset_destroy(&ds);
    free(id);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("component");
    TCase *tc = tcase_create("component");
    tcase_add_test(tc, test_by_hand);
    tcase_add_test(tc, test_option_split);
    tcase_add_test(tc, test_splits_and_refusals);
    tcase_add_loop_test(tc, test_random_graphs, 0, 3);
    tcase_add_loop_test(tc, test_alloc_failures, 0, 3);
    tcase_add_test(tc, test_load);
    tcase_add_test(tc, test_classes_by_hand);
    tcase_add_test(tc, test_classes_option);
    tcase_add_loop_test(tc, test_classes_random, 0, 3);
    tcase_add_loop_test(tc, test_permute, 0, 2);
    tcase_add_test(tc, test_permute_refusals_and_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
