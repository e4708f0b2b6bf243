/* Check suite of the TU graph-classification reader (src/io/tu.c) and of the graph segments of
 * gat_dataset_from_parts: a tiny three-graph set written here (with and without node labels,
 * node attributes, edge labels and attributes, plain and gzipped, as a directory and a prefix),
 * bad sets (each the exact status and a message naming file and line), allocation failures, and
 * the fixed folds of gat_dataset_read_graph_folds. */
#include "testutil.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The toy set: graph 1 = nodes 1-2-3 (a path), graph 2 = nodes 4-5, graph 3 = node 6 alone;
 * A lists both directions. Graph labels -1, 1, -1 (classes "-1" < "1"); node labels 0 2 0 5 2 0
 * (classes 0 < 2 < 5); two node attributes; edge labels 1 1 2 2 1 1 and one edge attribute. */
#define TN 6
static const char *const toy_A = "1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n";
static const char *const toy_ind = "1\n1\n1\n2\n2\n3\n";
static const char *const toy_glab = "-1\n1\n-1\n";
static const char *const toy_nlab = "0\n2\n0\n5\n2\n0\n";
static const char *const toy_nattr = "1.5, 0\n2, 1\n 3,4\n0, 0\n-1, 0.25\n7, 8\n";
static const char *const toy_elab = "1\n1\n2\n2\n1\n1\n";
static const char *const toy_eattr = "0.5\n0.5\n1.5\n1.5\n2\n2\n";

/* Room for paths under the temporary directory. */
#define PATHS 4300

/* dir/name, or dir/name.gz gzipped when gz. */
static void write_part(const char *dir, const char *name, const char *text, int gz)
{
    char p[PATHS];
    if (!gz) {
        tu_write(dir, name, text);
        return;
    }
    snprintf(p, sizeof p, "%s/%s.gz", dir, name);
    gzFile out = gzopen(p, "wb9");
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(gzwrite(out, text, (unsigned)strlen(text)), (int)strlen(text));
    ck_assert_int_eq(gzclose(out), Z_OK);
}

/* Which files a set has beyond A, graph_indicator and graph_labels. */
enum { NODE_LABELS = 1, NODE_ATTR = 2, EDGE_LABELS = 4, EDGE_ATTR = 8, ALL = 15 };

/* The texts of one set; NULL leaves a file out. */
typedef struct toy {
    const char *A, *ind, *glab, *nlab, *nattr, *elab, *eattr;
} toy;

static toy toy_with(unsigned files)
{
    toy t = {toy_A, toy_ind, toy_glab, NULL, NULL, NULL, NULL};
    if (files & NODE_LABELS) t.nlab = toy_nlab;
    if (files & NODE_ATTR) t.nattr = toy_nattr;
    if (files & EDGE_LABELS) t.elab = toy_elab;
    if (files & EDGE_ATTR) t.eattr = toy_eattr;
    return t;
}

/* Writes t as the set dir/toy/toy_*.txt (gzipped when gz); returns dir/toy (static). */
static const char *write_toy(const char *dir, const toy *t, int gz)
{
    static char sub[PATHS];
    const char *names[7] = {"toy_A.txt",
                            "toy_graph_indicator.txt",
                            "toy_graph_labels.txt",
                            "toy_node_labels.txt",
                            "toy_node_attributes.txt",
                            "toy_edge_labels.txt",
                            "toy_edge_attributes.txt"};
    const char *texts[7] = {t->A, t->ind, t->glab, t->nlab, t->nattr, t->elab, t->eattr};
    snprintf(sub, sizeof sub, "%s/toy", dir);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    for (int k = 0; k < 7; k++)
        if (texts[k]) write_part(sub, names[k], texts[k], gz);
    return sub;
}

static gat_dataset_options opts_raw(void)
{
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    return o;
}

/* Feature (i, c) of x, 0 when not stored. */
static double feature(const gat_csr *x, gat_idx i, gat_idx c)
{
    for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++)
        if (x->col[k] == c) return x->val[k];
    return 0;
}

/* The edge j -> i of ds's graph, or -1. */
static gat_idx edge_of(const gat_dataset *ds, gat_idx j, gat_idx i)
{
    for (gat_idx e = ds->graph.rowptr[i]; e < ds->graph.rowptr[i + 1]; e++)
        if (ds->graph.col[e] == j) return e;
    return -1;
}

/* The checks every variant of the toy set passes: the union of the three graphs. */
static void check_union(const gat_dataset *ds)
{
    static const gat_idx ptr[4] = {0, 3, 5, 6}, glab[3] = {0, 1, 0};
    ck_assert_int_eq(ds->n, TN);
    ck_assert_int_eq(ds->n_graphs, 3);
    for (int g = 0; g <= 3; g++)
        ck_assert_int_eq(ds->graph_ptr[g], ptr[g]);
    ck_assert_int_eq(ds->n_graph_classes, 2);
    ck_assert_str_eq(ds->graph_class_names[0], "-1");
    ck_assert_str_eq(ds->graph_class_names[1], "1");
    for (int g = 0; g < 3; g++)
        ck_assert_int_eq(ds->graph_labels[g], glab[g]);
    /* 6 input edges (3 undirected) plus one self-loop per node */
    ck_assert_int_eq(ds->graph.nnz, 6 + TN);
    for (int g = 0; g < 3; g++)
        for (gat_idx i = ptr[g]; i < ptr[g + 1]; i++)
            for (gat_idx e = ds->graph.rowptr[i]; e < ds->graph.rowptr[i + 1]; e++)
                ck_assert_msg(ds->graph.col[e] >= ptr[g] && ds->graph.col[e] < ptr[g + 1],
                              "edge %d -> %d leaves graph %d", ds->graph.col[e], i, g);
    ck_assert_int_ge(edge_of(ds, 0, 1), 0);
    ck_assert_int_ge(edge_of(ds, 2, 1), 0);
    ck_assert_int_ge(edge_of(ds, 4, 3), 0);
    ck_assert_int_lt(edge_of(ds, 0, 2), 0);
    ck_assert_int_eq(ds->graph.rowptr[6] - ds->graph.rowptr[5], 1); /* node 6: its loop only */
    /* no node task, no split: the graphs' split is the caller's */
    ck_assert_int_eq(ds->n_classes, 0);
    for (gat_idx i = 0; i < TN; i++) {
        char id[8];
        snprintf(id, sizeof id, "%d", i + 1);
        ck_assert_int_eq(ds->labels[i], -1);
        ck_assert_int_eq(ds->split[i], GAT_SPLIT_NONE);
        ck_assert_str_eq(ds->node_ids[i], id);
    }
    ck_assert_int_eq(ds->n_train + ds->n_val + ds->n_test, 0);
}

/* _i: 0 the three required files only, 1 with node labels, 2 with every file, 3 every file
 * gzipped and named by the prefix DIR/toy/toy instead of the directory. */
START_TEST(test_good)
{
    char *dir = tu_tmpdir(), prefix[PATHS];
    const unsigned files = _i == 0 ? 0 : _i == 1 ? NODE_LABELS : ALL;
    const toy t = toy_with(files);
    const char *set = write_toy(dir, &t, _i == 3);
    gat_dataset_options o = opts_raw();
    gat_dataset ds;
    snprintf(prefix, sizeof prefix, "%s/toy", set);
    ck_assert_msg(gat_dataset_load(&ds, _i == 3 ? prefix : set, &o) == GAT_OK, "%s",
                  gat_last_error());
    check_union(&ds);
    if (files == 0) { /* no node file: one constant feature; no edge features */
        ck_assert_int_eq(ds.n_features, 1);
        for (gat_idx i = 0; i < TN; i++)
            ck_assert(feature(&ds.x, i, 0) == 1);
        ck_assert_int_eq(ds.n_edge_features, 0);
        ck_assert_ptr_null(ds.edge_x);
    } else { /* one-hot of the node label classes 0 < 2 < 5, then the attributes */
        static const gat_idx cls[TN] = {0, 1, 0, 2, 1, 0};
        static const double attr[TN][2] = {{1.5, 0}, {2, 1}, {3, 4}, {0, 0}, {-1, 0.25}, {7, 8}};
        ck_assert_int_eq(ds.n_features, files & NODE_ATTR ? 5 : 3);
        for (gat_idx i = 0; i < TN; i++) {
            for (gat_idx c = 0; c < 3; c++)
                ck_assert(feature(&ds.x, i, c) == (c == cls[i]));
            for (gat_idx d = 0; files & NODE_ATTR && d < 2; d++)
                ck_assert(feature(&ds.x, i, 3 + d) == attr[i][d]);
        }
    }
    if (files & EDGE_LABELS) { /* one-hot of the edge labels 1 < 2, then the attribute */
        const gat_idx D = ds.n_edge_features;
        ck_assert_int_eq(D, 3);
        ck_assert_ptr_nonnull(ds.edge_input);
        const gat_real *r = ds.edge_x + (size_t)edge_of(&ds, 0, 1) * (size_t)D;
        ck_assert(r[0] == 1 && r[1] == 0 && r[2] == 0.5);
        r = ds.edge_x + (size_t)edge_of(&ds, 2, 1) * (size_t)D;
        ck_assert(r[0] == 0 && r[1] == 1 && r[2] == 1.5);
        ck_assert_int_eq(ds.edge_input[edge_of(&ds, 2, 1)], 3); /* A line 4: "3, 2" */
        /* the added self-loop: the mean of the node's in-edges, zeros for the lone node */
        r = ds.edge_x + (size_t)edge_of(&ds, 1, 1) * (size_t)D;
        ck_assert(fabs(r[0] - 0.5) < 1e-6 && fabs(r[1] - 0.5) < 1e-6 && fabs(r[2] - 1) < 1e-6);
        r = ds.edge_x + (size_t)edge_of(&ds, 5, 5) * (size_t)D;
        ck_assert(r[0] == 0 && r[1] == 0 && r[2] == 0);
        ck_assert_int_eq(ds.edge_input[edge_of(&ds, 5, 5)], -1);
    }
    /* .gatd files keep the graph segments and the graph labels with their names */
    char gatd[PATHS + 16];
    gat_dataset back;
    snprintf(gatd, sizeof gatd, "%s/toy.gatd", dir);
    ck_assert_int_eq(gat_dataset_save(&ds, gatd, "toy"), GAT_OK);
    ck_assert_int_eq(gat_dataset_load(&back, gatd, NULL), GAT_OK);
    ck_assert_int_eq(back.n_graphs, 3);
    ck_assert_mem_eq(back.graph_ptr, ds.graph_ptr, 4 * sizeof *ds.graph_ptr);
    ck_assert_mem_eq(back.graph_labels, ds.graph_labels, 3 * sizeof *ds.graph_labels);
    ck_assert_int_eq(back.n_graph_classes, 2);
    ck_assert_str_eq(back.graph_class_names[0], "-1");
    gat_dataset_destroy(&back);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Graphs without edges whose edge label and attribute files are empty (as they are for such a
 * set): loads, no edge features (fuzz_formats found the empty label table's copy, a NULL
 * source, under UBSan). */
START_TEST(test_no_edges)
{
    char *dir = tu_tmpdir();
    const toy t = {"", "1\n1\n2\n", "0\n1\n", NULL, NULL, "", ""};
    gat_dataset_options o = opts_raw();
    gat_dataset ds;
    ck_assert_msg(gat_dataset_load(&ds, write_toy(dir, &t, 0), &o) == GAT_OK, "%s",
                  gat_last_error());
    ck_assert_int_eq(ds.n, 3);
    ck_assert_int_eq(ds.n_graphs, 2);
    ck_assert_int_eq(ds.graph.nnz, 3); /* the self-loops */
    ck_assert_int_eq(ds.n_edge_features, 0);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* gat_dataset_options.tu_features: _i 0 every node file, 1 the node labels alone, 2 none. */
START_TEST(test_feature_choice)
{
    static const gat_idx cls[TN] = {0, 1, 0, 2, 1, 0};
    static const double attr[TN][2] = {{1.5, 0}, {2, 1}, {3, 4}, {0, 0}, {-1, 0.25}, {7, 8}};
    const unsigned files = _i == 0 ? NODE_LABELS | NODE_ATTR : _i == 1 ? NODE_LABELS : 0;
    char *dir = tu_tmpdir();
    const toy t = toy_with(files);
    const char *set = write_toy(dir, &t, 0);
    for (int mode = GAT_TU_FEATURES_LABELS; mode <= GAT_TU_FEATURES_ATTRIBUTES; mode++) {
        gat_dataset_options o = opts_raw();
        gat_dataset ds;
        o.tu_features = mode;
        ck_assert_msg(gat_dataset_load(&ds, set, &o) == GAT_OK, "%s", gat_last_error());
        check_union(&ds);
        /* attributes where asked for and present; else the one-hot labels; else a constant */
        const int attrs = mode == GAT_TU_FEATURES_ATTRIBUTES && (files & NODE_ATTR);
        const int labels = !attrs && (files & NODE_LABELS);
        ck_assert_int_eq(ds.n_features, attrs ? 2 : labels ? 3 : 1);
        for (gat_idx i = 0; i < TN; i++)
            for (gat_idx c = 0; c < ds.n_features; c++)
                ck_assert(feature(&ds.x, i, c) == (attrs    ? attr[i][c]
                                                   : labels ? (double)(c == cls[i])
                                                            : 1.0));
        gat_dataset_destroy(&ds);
    }
    gat_dataset_options o = opts_raw();
    gat_dataset ds;
    o.tu_features = 3;
    ASSERT_FAILS(gat_dataset_load(&ds, set, &o), GAT_EINVAL,
                    "gat_dataset_load: tu_features is 3, expected GAT_TU_FEATURES_ALL (0)");
    /* the names */
    int v = -1;
    ck_assert_int_eq(gat_tu_features_from_name("Attributes", &v), GAT_OK);
    ck_assert_int_eq(v, GAT_TU_FEATURES_ATTRIBUTES);
    ck_assert_str_eq(gat_tu_features_name(GAT_TU_FEATURES_LABELS), "labels");
    ck_assert_ptr_null(gat_tu_features_name(-1));
    ASSERT_FAILS(gat_tu_features_from_name("edges", &v), GAT_EINVAL,
                    "unknown TU feature choice 'edges' (expected all, labels or attributes)");
    ASSERT_FAILS(gat_tu_features_from_name(NULL, &v), GAT_EINVAL, "NULL name");
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A bad set: t written to a fresh directory, the load's status and a message fragment. */
typedef struct bad_case {
    toy t;
    gat_status status;
    const char *fragment, *fragment2;
} bad_case;

START_TEST(test_bad)
{
    const toy all = toy_with(ALL);
    bad_case c[] = {
        /* the graph indicator: unsorted, a gap (graph 2 has no nodes), not starting at 1, empty */
        {{toy_A, "1\n1\n2\n1\n2\n3\n", toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_graph_indicator.txt:4: graph id 1 after graph id 2",
         "must be sorted"},
        {{"1, 2\n2, 1\n", "1\n1\n1\n3\n3\n4\n", toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_graph_indicator.txt:4: graph id 3 follows graph id 1",
         "graph 2 has no nodes"},
        {{toy_A, "2\n2\n2\n3\n3\n4\n", toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_graph_indicator.txt:1: the first graph id is 2",
         "expected 1"},
        {{toy_A, "", toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_graph_indicator.txt: empty file",
         "one graph id per node"},
        /* the graph labels: a graph too many (a graph with no nodes at the end), too few */
        {{toy_A, toy_ind, "1\n2\n1\n2\n", 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_graph_labels.txt: 4 lines",
         "has 3 graphs"},
        {{toy_A, toy_ind, "1\n2\n", 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_graph_labels.txt: 2 lines",
         "has 3 graphs"},
        /* A: an edge between graphs, a node id out of range, junk, a missing comma */
        {{"1, 2\n2, 1\n3, 4\n", toy_ind, toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_A.txt:3: edge 3, 4 joins graph 1 and graph 2",
         "no edge may join two graphs"},
        {{"1, 2\n\n7, 1\n", toy_ind, toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_A.txt:3: node id 7 outside 1..6",
         "toy_graph_indicator.txt"},
        {{"1, 2\n2, x\n", toy_ind, toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_A.txt:2:4: 'x' is not an integer",
         "toy_A.txt"},
        {{"1 2\n", toy_ind, toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_A.txt:1:3: expected ',' between values",
         "toy_A.txt"},
        {{"1, 2, 3\n", toy_ind, toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_A.txt:1: 3 values, expected 2",
         "toy_A.txt"},
        {{"1,\n", toy_ind, toy_glab, 0, 0, 0, 0},
         GAT_EFORMAT,
         "toy_A.txt:1: the line ends with",
         "','"},
        /* the optional files: line counts, junk, widths, a NaN */
        {{toy_A, toy_ind, toy_glab, "0\n1\n0\n1\n0\n", 0, 0, 0},
         GAT_EFORMAT,
         "toy_node_labels.txt: 5 lines",
         "has 6 nodes"},
        {{toy_A, toy_ind, toy_glab, toy_nlab, "1\n2\n3\n4\n5\n6\n7\n", 0, 0},
         GAT_EFORMAT,
         "toy_node_attributes.txt: 7 lines",
         "has 6 nodes"},
        {{toy_A, toy_ind, toy_glab, 0, "1, 2\n1, abc\n", 0, 0},
         GAT_EFORMAT,
         "toy_node_attributes.txt:2:4: 'abc' is not a number",
         "toy_node_attributes.txt"},
        {{toy_A, toy_ind, toy_glab, 0, "1, 2\n3\n", 0, 0},
         GAT_EFORMAT,
         "toy_node_attributes.txt:2: 1 values, expected 2",
         "as on the first line"},
        {{toy_A, toy_ind, toy_glab, 0, "1\nnan\n1\n1\n1\n1\n", 0, 0},
         GAT_ENUMERIC,
         "toy_node_attributes.txt:2:1: value 'nan' is not finite",
         "toy_node_attributes.txt"},
        {{toy_A, toy_ind, toy_glab, 0, 0, toy_elab, "1\n1\n1\n1e300\n1\n1\n"},
         GAT_ENUMERIC,
         "toy_edge_attributes.txt:4:1: value '1e300' is not finite",
         "as a gat_real"},
        {{toy_A, toy_ind, toy_glab, 0, 0, "1\n1\n2\n2\n1\n", 0},
         GAT_EFORMAT,
         "toy_edge_labels.txt: 5 lines",
         "toy_A.txt has 6 edges"},
        {{toy_A, toy_ind, toy_glab, 0, 0, toy_elab, "1\n1\n1\n1\n1\n1\n1\n"},
         GAT_EFORMAT,
         "toy_edge_attributes.txt: 7 lines",
         "toy_A.txt has 6 edges"},
        {{toy_A, toy_ind, toy_glab, "0\n1.5\n", 0, 0, 0},
         GAT_EFORMAT,
         "toy_node_labels.txt:2:1: '1.5' is not an integer",
         "toy_node_labels.txt"},
        /* a required file missing */
        {{toy_A, toy_ind, NULL, 0, 0, 0, 0}, GAT_EIO, "cannot open", "toy_graph_labels.txt"},
        {{all.A, all.ind, all.glab, all.nlab, all.nattr, "1\n1\n2\n2\n1\n1\n1\n", all.eattr},
         GAT_EFORMAT,
         "toy_edge_labels.txt: 7 lines",
         "6 edges"},
    };
    for (size_t k = 0; k < LEN(c); k++) {
        char *dir = tu_tmpdir();
        const char *set = write_toy(dir, &c[k].t, 0);
        gat_dataset ds;
        static const gat_dataset zero;
        const gat_status st = gat_dataset_load(&ds, set, NULL);
        ck_assert_msg(st == c[k].status, "case %zu: status %d (%s), expected %d", k, st,
                      gat_last_error(), c[k].status);
        ck_assert_msg(strstr(gat_last_error(), c[k].fragment) &&
                          strstr(gat_last_error(), c[k].fragment2),
                      "case %zu: message '%s' lacks '%s' or '%s'", k, gat_last_error(),
                      c[k].fragment, c[k].fragment2);
        ck_assert(memcmp(&ds, &zero, sizeof zero) == 0);
        tu_rmtree(dir);
        free(dir);
    }
}
END_TEST

/* Fails allocation k = 0, 1, ... until the load succeeds: GAT_ENOMEM each time, ds zeroed (leaks
 * show under ASan). _i: 0 every file, 1 every file gzipped. */
START_TEST(test_alloc_failures)
{
    char *dir = tu_tmpdir();
    const toy t = toy_with(ALL);
    const char *set = write_toy(dir, &t, _i);
    gat_dataset ds;
    static const gat_dataset zero;
    gat_status st = GAT_ENOMEM;
    long k;
    for (k = 0; k < 100000; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_dataset_load(&ds, set, NULL);
        if (st == GAT_OK) break;
        ck_assert_msg(st == GAT_ENOMEM, "failing allocation %ld: %s (%s)", k, gat_strerror(st),
                      gat_last_error());
        ck_assert(memcmp(&ds, &zero, sizeof zero) == 0);
    }
    gat_i_alloc_fail_at(-1);
    ck_assert_int_eq(st, GAT_OK);
    ck_assert_int_gt(k, 30);
    check_union(&ds);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- gat_dataset_from_parts with graph segments ------------------------------------------ */

/* Two graphs {0, 1, 2} and {3, 4}: the edges 0 -> 1, 1 -> 2, 3 -> 4, plus extra when >= 0
 * (extra -> 0). */
static void two_graphs(gat_graph *g, gat_csr *x, gat_idx extra)
{
    gat_idx src[4] = {0, 1, 3, extra}, dst[4] = {1, 2, 4, 0};
    ck_assert_int_eq(gat_graph_from_edges(g, 5, extra >= 0 ? 4 : 3, src, dst, 0), GAT_OK);
    ck_assert_int_eq(gat_csr_identity(x, 5), GAT_OK);
}

START_TEST(test_parts)
{
    gat_graph g, g_cross;
    gat_csr x, x_cross;
    gat_dataset ds;
    gat_idx ptr[3] = {0, 3, 5}, labels[2] = {1, 0};
    const char *names[2] = {"a", "b"};
    two_graphs(&g, &x, -1);
    gat_dataset_parts p = {0};
    p.graph = &g;
    p.features = &x;
    p.n_graphs = 2;
    p.graph_ptr = ptr;
    p.graph_labels = labels;
    p.n_graph_classes = 2;
    p.graph_class_names = names;
    ck_assert_msg(gat_dataset_from_parts(&ds, &p, NULL) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(ds.n_graphs, 2);
    ck_assert_int_eq(ds.graph_ptr[1], 3);
    ck_assert_int_eq(ds.graph_labels[0], 1);
    ck_assert_str_eq(ds.graph_class_names[1], "b");
    ck_assert_ptr_ne(ds.graph_ptr, ptr); /* copied */
    gat_dataset_destroy(&ds);
    p.graph_class_names = NULL; /* "0", "1" */
    p.graph_labels = NULL;
    p.n_graph_classes = 0;
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &p, NULL), GAT_OK);
    ck_assert_ptr_null(ds.graph_labels);
    ck_assert_ptr_null(ds.graph_class_names);
    gat_dataset_destroy(&ds);
    p.graph_labels = labels;
    p.n_graph_classes = 2;

    /* an edge 4 -> 0 joins graph 1 and graph 0 */
    two_graphs(&g_cross, &x_cross, 4);
    p.graph = &g_cross;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL,
                 "(node 4 -> node 0) joins graph 1 and graph 0");
    p.graph = &g;
    ptr[1] = 0; /* graph 0 empty */
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL, "graph 0 has no nodes");
    ptr[1] = 3;
    ptr[2] = 4;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL,
                 "graph_ptr runs from 0 to 4, expected from 0 to 5");
    ptr[2] = 5;
    labels[1] = 2;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL,
                 "graph 1 has label 2 outside [0, 2)");
    labels[1] = 0;
    p.graph_ptr = NULL;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL, "NULL graph_ptr");
    p.graph_ptr = ptr;
    p.graph_labels = NULL;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL,
                 "n_graph_classes = 2 with graph_labels NULL");
    p.graph_labels = labels;
    p.n_graphs = -1;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL, "negative graph count -1");
    gat_graph_destroy(&g);
    gat_graph_destroy(&g_cross);
    gat_csr_destroy(&x);
    gat_csr_destroy(&x_cross);
}
END_TEST

/* ---- Fixed folds ------------------------------------------------------------------------- */

/* Writes dir/F_train.index, F_val.index and F_test.index (plain, or gzipped when gz). */
static void write_folds(const char *dir, const char *train, const char *val, const char *test,
                        int gz)
{
    write_part(dir, "F_train.index", train, gz);
    write_part(dir, "F_val.index", val, gz);
    write_part(dir, "F_test.index", test, gz);
}

START_TEST(test_folds)
{
    char *dir = tu_tmpdir(), prefix[PATHS];
    uint8_t split[6] = {9, 9, 9, 9, 9, 9};
    gat_idx folds = 0;
    snprintf(prefix, sizeof prefix, "%s/F", dir);
    write_folds(dir, "0,1,2,3\n2,3,4,5\n", "4\n0\n", "5\n1\n", _i);
    ck_assert_msg(gat_dataset_read_graph_folds(prefix, 6, 1, split, &folds) == GAT_OK, "%s",
                  gat_last_error());
    ck_assert_int_eq(folds, 2);
    static const uint8_t want[6] = {GAT_SPLIT_VAL,   GAT_SPLIT_TEST,  GAT_SPLIT_TRAIN,
                                    GAT_SPLIT_TRAIN, GAT_SPLIT_TRAIN, GAT_SPLIT_TRAIN};
    for (int g = 0; g < 6; g++)
        ck_assert_int_eq(split[g], want[g]);
    ck_assert_int_eq(gat_dataset_read_graph_folds(prefix, 6, 0, split, NULL), GAT_OK);
    ck_assert_int_eq(split[4], GAT_SPLIT_VAL);
    ck_assert_int_eq(split[5], GAT_SPLIT_TEST);
    ASSERT_FAILS(gat_dataset_read_graph_folds(prefix, 6, 2, split, NULL), GAT_EINVAL,
                 "fold 2 outside 0..1");
    ASSERT_FAILS(gat_dataset_read_graph_folds(prefix, 5, 0, split, NULL), GAT_EFORMAT,
                 ":1: graph index 5 outside 0..4");
    ck_assert(strstr(gat_last_error(), "F_test.index"));
    ASSERT_FAILS(gat_dataset_read_graph_folds(prefix, 7, 0, split, NULL), GAT_EFORMAT,
                 "graph 6 is in no part of fold 0");
    ASSERT_FAILS(gat_dataset_read_graph_folds(NULL, 6, 0, split, NULL), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_dataset_read_graph_folds(prefix, 0, 0, split, NULL), GAT_EINVAL,
                 "n_graphs = 0");
    tu_rmtree(dir);
    free(dir);

    dir = tu_tmpdir();
    snprintf(prefix, sizeof prefix, "%s/F", dir);
    write_folds(dir, "0,1,2,3\n2,3,4,5\n", "4\n0\n", "5, 3\n1\n", _i);
    ASSERT_FAILS(gat_dataset_read_graph_folds(prefix, 6, 0, split, NULL), GAT_EFORMAT,
                 ":1: graph 3 is already in the train part of fold 0");
    ck_assert(strstr(gat_last_error(), "F_test.index"));
    tu_rmtree(dir);
    free(dir);

    dir = tu_tmpdir();
    snprintf(prefix, sizeof prefix, "%s/F", dir);
    write_folds(dir, "0,1,2,3\n2,3,4,5\n", "4\n", "5\n1\n", _i);
    ASSERT_FAILS(gat_dataset_read_graph_folds(prefix, 6, 0, split, NULL), GAT_EFORMAT,
                 ": 1 folds (lines), but");
    ck_assert(strstr(gat_last_error(), "F_val.index"));
    /* a plain file beside a gzipped one is read first */
    tu_write(dir, "F_val.index", "4\nx\n");
    ASSERT_FAILS(gat_dataset_read_graph_folds(prefix, 6, 1, split, NULL), GAT_EFORMAT,
                 "F_val.index:2:1: 'x' is not an integer");
    tu_rmtree(dir);
    free(dir);

    dir = tu_tmpdir();
    snprintf(prefix, sizeof prefix, "%s/F", dir);
    ASSERT_FAILS(gat_dataset_read_graph_folds(prefix, 6, 0, split, NULL), GAT_EIO, "F_train.index");
    tu_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tu");
    TCase *tc = tcase_create("load");
    tcase_add_loop_test(tc, test_good, 0, 4);
    tcase_add_test(tc, test_no_edges);
    tcase_add_test(tc, test_bad);
    tcase_add_loop_test(tc, test_feature_choice, 0, 3);
    tcase_add_loop_test(tc, test_alloc_failures, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("parts");
    tcase_add_test(tc, test_parts);
    suite_add_tcase(s, tc);
    tc = tcase_create("folds");
    tcase_add_loop_test(tc, test_folds, 0, 2);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
