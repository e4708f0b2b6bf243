/* The OGB node layout reader (src/io/ogb.c): directories written here as ogb unpacks them
 * (raw/NAME.csv.gz or plain .csv, split/NAME/FILE.csv.gz): a single-label set with an unlabelled
 * node, its fixed split, a multi-label set with edge features, the random split without a split
 * directory, malformed files each with its exact status and message, and every allocation
 * failing in turn. */
#include "testutil.h"

#include "core/core.h"
#include "io/ogb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static char *dir;

static void setup(void)
{
    dir = tu_tmpdir();
}

static void teardown(void)
{
    tu_rmtree(dir);
    free(dir);
}

/* Writes text to dir/sub/name (sub created), gzipped when name ends in ".gz". */
static void put(const char *sub, const char *name, const char *text)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    for (char *p = path + strlen(dir) + 1; *p; p++)
        if (*p == '/') *p = '\0', mkdir(path, 0700), *p = '/';
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    if (strstr(name, ".gz")) {
        gzFile f = gzopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(gzwrite(f, text, (unsigned)strlen(text)), (int)strlen(text));
        ck_assert_int_eq(gzclose(f), Z_OK);
    } else {
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fputs(text, f) >= 0 || !*text, 1);
        ck_assert_int_eq(fclose(f), 0);
    }
}

/* 5 nodes, 3 classes (node 3 unlabelled: NaN), 2 features; edges 0-1 1-2 2-3 4-0. */
static void write_arxiv(void)
{
    put("raw", "edge.csv.gz", "0,1\n1,2\n2,3\n4,0\n");
    put("raw", "node-feat.csv", "1.5,0\n0,2\n-1,0.25\n0,0\n3,1\n");
    put("raw", "node-label.csv.gz", "0\n2\n1\nnan\n1\n");
    put("raw", "num-node-list.csv.gz", "5\n");
    put("split/time", "train.csv.gz", "0\n1\n");
    put("split/time", "valid.csv.gz", "2\n");
    put("split/time", "test.csv", "4\n");
}

static gat_status load(gat_dataset *ds, int ignore_split, int split_index)
{
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    o.ignore_split_file = ignore_split;
    o.split_index = split_index;
    o.train_per_class = 1;
    o.n_val = 1;
    o.n_test = 1;
    return gat_dataset_load(ds, dir, &o);
}

START_TEST(single_label)
{
    gat_dataset ds;
    write_arxiv();
    ck_assert(gat_i_ogb_is(dir));
    ck_assert_msg(load(&ds, 0, 0) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(ds.n, 5);
    ck_assert_int_eq(ds.n_features, 2);
    ck_assert_int_eq(ds.n_classes, 3);
    ck_assert_int_eq(ds.n_splits, 1);
    const gat_idx labels[5] = {0, 2, 1, -1, 1};
    const uint8_t split[5] = {GAT_SPLIT_TRAIN, GAT_SPLIT_TRAIN, GAT_SPLIT_VAL, GAT_SPLIT_NONE,
                              GAT_SPLIT_TEST};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(ds.labels[i], labels[i]);
        ck_assert_int_eq(ds.split[i], split[i]);
    }
    /* features as given, zeros left out: node 2 is (-1, 0.25), node 3 has none */
    ck_assert_int_eq(ds.x.rowptr[5], 6);
    ck_assert_int_eq(ds.x.rowptr[3] - ds.x.rowptr[2], 2);
    ck_assert(ds.x.val[ds.x.rowptr[2]] == -1 && ds.x.val[ds.x.rowptr[2] + 1] == 0.25f);
    ck_assert_int_eq(ds.x.rowptr[4], ds.x.rowptr[3]);
    /* symmetrised: 4 edges both ways and 5 self-loops */
    ck_assert_int_eq(ds.graph.nnz, 13);
    ck_assert(tu_has_edge(&ds.graph, 0, 4) && tu_has_edge(&ds.graph, 4, 0));
    ck_assert_str_eq(ds.node_ids[4], "4");
    gat_dataset_destroy(&ds);
    /* the random split instead; a split index the directory does not hold */
    ck_assert_int_eq(load(&ds, 1, 0), GAT_OK);
    ck_assert_int_eq(ds.n_train, 1); /* classes of one node give none */
    gat_dataset_destroy(&ds);
    ASSERT_FAILS(load(&ds, 0, 1), GAT_EINVAL, "split index 1 is out of range");
    /* without node-feat: one constant feature */
    char path[4300];
    snprintf(path, sizeof path, "%s/raw/node-feat.csv", dir);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(load(&ds, 0, 0), GAT_OK);
    ck_assert_int_eq(ds.n_features, 1);
    ck_assert_int_eq(ds.x.rowptr[5], 5);
    gat_dataset_destroy(&ds);
}
END_TEST

/* ogbn-proteins' shape: T 0/1 labels per node (multi-label, any node in the split) and a row of
 * edge features per edge (merged per CSR edge; the self-loops get their in-edges' mean). */
START_TEST(multi_label_edge_features)
{
    gat_dataset ds;
    put("raw", "edge.csv", "0,1\n1,2\n");
    put("raw", "edge-feat.csv", "1,0.5\n3,0\n");
    put("raw", "node-label.csv", "1,0,1\n0,0,0\n0,1,1\n");
    put("split/species", "train.csv", "0\n1\n");
    put("split/species", "valid.csv", "2\n");
    put("split/species", "test.csv", "");
    ck_assert_msg(load(&ds, 0, 0) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(ds.n, 3);
    ck_assert_int_eq(ds.n_labels, 3);
    ck_assert_int_eq(ds.n_classes, 0);
    const uint8_t want[9] = {1, 0, 1, 0, 0, 0, 0, 1, 1};
    ck_assert(!memcmp(ds.label_matrix, want, 9));
    ck_assert_int_eq(ds.n_edge_features, 2);
    ck_assert_int_eq(ds.split[1], GAT_SPLIT_TRAIN);
    /* the edge 2 -> 1 (the reverse of input edge 1) carries (3, 0) */
    for (gat_idx e = ds.graph.rowptr[1]; e < ds.graph.rowptr[2]; e++)
        if (ds.graph.col[e] == 2) ck_assert(ds.edge_x[2 * e] == 3 && ds.edge_x[2 * e + 1] == 0);
    gat_dataset_destroy(&ds);
}
END_TEST

/* Malformed directories: the file, line (and column) and what is wrong. */
START_TEST(bad)
{
    static const struct {
        const char *sub, *name, *text;
        gat_status st;
        const char *msg;
    } cases[] = {
        {"raw", "edge.csv.gz", "0,1\n1,5\n", GAT_EFORMAT,
         "raw/edge.csv.gz:2:3: node '5' is not an integer in [0, 5)"},
        {"raw", "edge.csv.gz", "0,1\n1,2,3\n", GAT_EFORMAT,
         "raw/edge.csv.gz:2: 3 fields, expected 2 as on the first line"},
        {"raw", "edge.csv.gz", "0\n", GAT_EFORMAT, "edge.csv.gz:1: 1 fields, expected 2 (source"},
        {"raw", "node-label.csv.gz", "0\n2\n1.5\nNaN\n1\n", GAT_EFORMAT,
         "node-label.csv.gz:3: class '1.5' is not an integer >= 0"},
        {"raw", "node-label.csv.gz", "0\n2\n9\nNaN\n1\n", GAT_EFORMAT,
         "node-label.csv.gz:3: class 9 is not below the node count 5"},
        {"raw", "node-label.csv.gz", "0\n2\n1e17\nNaN\n1\n", GAT_EFORMAT,
         "node-label.csv.gz:3: class '1e17' is not an integer >= 0"},
        {"raw", "node-label.csv.gz", "0,1\n1,1\n2,0\n0,0\n1,1\n", GAT_EFORMAT,
         "node-label.csv.gz:3:1: label '2' of a multi-label row, expected 0 or 1"},
        {"raw", "node-feat.csv", "1,0\n0,2\n", GAT_EFORMAT,
         "node-feat.csv: 2 rows, expected one per node (5, as node-label)"},
        {"raw", "node-feat.csv", "1,0\n0,x\n", GAT_EFORMAT,
         "node-feat.csv:2:3: 'x' is not a number"},
        {"raw", "node-feat.csv", "1,0\n0,inf\n", GAT_ENUMERIC,
         "node-feat.csv:2:3: 'inf' is not finite"},
        {"raw", "num-node-list.csv.gz", "6\n", GAT_EFORMAT,
         "num-node-list.csv.gz:1: 6 nodes, but node-label has 5 rows"},
        {"raw", "edge-feat.csv", "1\n2\n", GAT_EFORMAT,
         "edge-feat.csv: 2 rows, expected one per edge (4, as raw/edge)"},
        {"split/time", "valid.csv.gz", "2\n0\n", GAT_EFORMAT,
         "valid.csv.gz:2: node 0 is listed twice"},
        {"split/time", "valid.csv.gz", "3\n", GAT_EFORMAT,
         "valid.csv.gz:1: node 3 is in the split but unlabelled"},
        {"split/other", "train.csv", "0\n", GAT_EFORMAT, "expected one split directory"},
        {"split/time", "test.csv", "4\n", GAT_EIO,
         "split/time: no test.csv.gz (nor test.csv): a split directory holds train, valid and "
         "test"},
    };
    gat_dataset ds;
    write_arxiv();
    const int k = _i;
    if (k == LEN(cases) - 1) { /* the missing file: remove it */
        char path[4300];
        snprintf(path, sizeof path, "%s/split/time/test.csv", dir);
        ck_assert_int_eq(remove(path), 0);
    } else {
        put(cases[k].sub, cases[k].name, cases[k].text);
    }
    ASSERT_FAILS(load(&ds, 0, 0), cases[k].st, cases[k].msg);
    ck_assert_int_eq(ds.n, 0);
}
END_TEST

/* Every allocation of the reader failing in turn: GAT_ENOMEM and a zeroed dataset. */
static gat_status load_split(gat_dataset *ds, void *ctx)
{
    (void)ctx;
    return load(ds, 0, 0);
}

START_TEST(alloc_failure)
{
    write_arxiv();
    put("raw", "edge-feat.csv", "1\n2\n3\n4\n");
    tu_dataset_alloc_failures(load_split, NULL, 10, 3);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ogb");
    TCase *tc = tcase_create("ogb");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, single_label);
    tcase_add_test(tc, multi_label_edge_features);
    tcase_add_loop_test(tc, bad, 0, 16);
    tcase_add_test(tc, alloc_failure);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
