/* The WikiCS reader (src/io/wikics.c): JSON files written here, a good one read as a file and
 * as a directory holding data.json, its fixed splits, directions and the random split without
 * masks, and malformed ones, each checked for its exact status and message. */
#include "testutil.h"

#include "core/core.h"
#include "io/wikics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* 6 nodes in 3 classes, 2 features; node 0 links to 1 twice and to itself, 5 to 0; two splits,
 * masks as booleans and as 0/1. */
#define FEATURES "\"features\": [[1, 0], [0.5, -2], [0, 0], [3, 1e-3], [1, 1], [-1, 2]]"
#define LABELS "\"labels\": [0, 1, 2, 0, 1, 2]"
#define LINKS "\"links\": [[1, 1, 0], [2], [], [4], [], [0]]"
#define TRAIN "\"train_masks\": [[true, true, false, false, false, false], [0, 0, 1, 1, 0, 0]]"
#define STOP "\"stopping_masks\": [[false, false, true, false, false, false], [1, 0, 0, 0, 0, 0]]"
#define VAL "\"val_masks\": [[false, false, false, true, false, false], [0, 1, 0, 0, 0, 0]]"
#define TEST "\"test_mask\": [false, false, false, false, true, true]"
#define GOOD "{" FEATURES ", " LABELS ", " LINKS ", " TRAIN ", " STOP ", " VAL ", " TEST "}"

static gat_status load(const char *path, int split_index, int symmetrize, int ignore,
                       gat_dataset *ds)
{
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.split_index = split_index;
    o.symmetrize = symmetrize;
    o.ignore_split_file = ignore;
    o.normalize = GAT_NORMALIZE_OFF;
    o.train_per_class = 1;
    o.n_val = 1;
    o.n_test = 1;
    return gat_dataset_load(ds, path, &o);
}

static const char *write_json(const char *name, const char *text)
{
    return tu_write(dir, name, text);
}

START_TEST(good)
{
    gat_dataset ds;
    char file[4200]; /* tu_write's result is overwritten by its next call */
    snprintf(file, sizeof file, "%s", write_json("wiki.json", GOOD));
    ck_assert_int_eq(load(file, 0, 1, 0, &ds), GAT_OK);
    ck_assert_int_eq(ds.n, 6);
    ck_assert_int_eq(ds.n_features, 2);
    ck_assert_int_eq(ds.n_classes, 3);
    ck_assert_int_eq(ds.n_splits, 2);
    /* the features as given (row 1: 0.5, -2; row 2 has no non-zero) */
    ck_assert_int_eq(ds.x.rowptr[2] - ds.x.rowptr[1], 2);
    ck_assert(ds.x.val[ds.x.rowptr[1]] == 0.5f && ds.x.val[ds.x.rowptr[1] + 1] == -2.0f);
    ck_assert_int_eq(ds.x.rowptr[3] - ds.x.rowptr[2], 0);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(ds.labels[i], i % 3);
    /* 0-1 (twice), 1-2, 3-4, 5-0 symmetrised, one self-loop each: 8 + 6 */
    ck_assert_int_eq(ds.graph.nnz, 14);
    ck_assert(tu_has_edge(&ds.graph, 1, 0) && tu_has_edge(&ds.graph, 0, 1));
    ck_assert(tu_has_edge(&ds.graph, 5, 0) && tu_has_edge(&ds.graph, 0, 5));
    ck_assert(!tu_has_edge(&ds.graph, 2, 0));
    /* split 0: train 0, 1; validation (the stopping mask) 2; val_masks' 3 in none; test 4, 5 */
    const uint8_t want0[6] = {GAT_SPLIT_TRAIN, GAT_SPLIT_TRAIN, GAT_SPLIT_VAL,
                              GAT_SPLIT_NONE,  GAT_SPLIT_TEST,  GAT_SPLIT_TEST};
    ck_assert_mem_eq(ds.split, want0, 6);
    gat_dataset_destroy(&ds);

    /* split 1 of the directory's data.json, edges as given (i -> links[i]) */
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/wikics", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    tu_write(sub, "data.json", GOOD);
    ck_assert_int_eq(load(sub, 1, 0, 0, &ds), GAT_OK);
    const uint8_t want1[6] = {GAT_SPLIT_VAL,   GAT_SPLIT_NONE, GAT_SPLIT_TRAIN,
                              GAT_SPLIT_TRAIN, GAT_SPLIT_TEST, GAT_SPLIT_TEST};
    ck_assert_mem_eq(ds.split, want1, 6);
    /* both splits in ds.splits */
    ck_assert_ptr_nonnull(ds.splits);
    ck_assert_mem_eq(ds.splits, want0, 6);
    ck_assert_mem_eq(ds.splits + 6, want1, 6);
    ck_assert_int_eq(ds.graph.nnz, 4 + 6);
    ck_assert(tu_has_edge(&ds.graph, 0, 1) && !tu_has_edge(&ds.graph, 1, 0)); /* 0 -> 1 */
    ck_assert(tu_has_edge(&ds.graph, 5, 0) && !tu_has_edge(&ds.graph, 0, 5)); /* 5 -> 0 */
    gat_dataset_destroy(&ds);

    /* the random split instead of the masks: every node labelled, sizes as asked */
    ck_assert_int_eq(load(file, 0, 1, 1, &ds), GAT_OK);
    ck_assert_int_eq(ds.n_train, 3);
    ck_assert_int_eq(ds.n_val, 1);
    ck_assert_int_eq(ds.n_test, 1);
    gat_dataset_destroy(&ds);
    ASSERT_FAILS(load(file, 2, 1, 0, &ds), GAT_EINVAL, "split index 2 is out of range: ");
    ck_assert(strstr(gat_last_error(), "wiki.json holds 2 splits (\"train_masks\")") != NULL);

    /* no masks at all: the random split, no fixed split */
    snprintf(file, sizeof file, "%s",
             write_json("nomasks.json", "{" FEATURES ", " LABELS ", " LINKS "}"));
    ck_assert_int_eq(load(file, 0, 1, 0, &ds), GAT_OK);
    ck_assert_int_eq(ds.n_splits, 0);
    ck_assert_int_eq(ds.n_train + ds.n_val + ds.n_test, 5);
    gat_dataset_destroy(&ds);
}
END_TEST

/* Each malformed file: its status and the end of its message. */
START_TEST(bad)
{
    static const struct {
        const char *text;
        gat_status st;
        const char *msg;
    } cases[] = {
        {"{\"features\": [[1, 2]], \"labels\": [0], ", GAT_EFORMAT,
         "bad.json:1: malformed JSON: the file ends early (truncated?)"},
        {"{\"features\": [[1, 2]],\n \"labels\": [0] \"links\": [[]]}", GAT_EFORMAT,
         "bad.json:2: malformed JSON near"},
        {"{" FEATURES ", " LABELS "}", GAT_EFORMAT,
         "bad.json: no \"links\" array: a WikiCS file holds \"features\", \"labels\" and "
         "\"links\""},
        {"{" FEATURES ", " LABELS ", \"links\": {}}", GAT_EFORMAT,
         "bad.json: \"links\": expected an array"},
        {"{" FEATURES ", \"labels\": [0, 1, 2, 0, 1], " LINKS "}", GAT_EFORMAT,
         "bad.json: \"features\": expected 5 feature rows (one per node), got 6"},
        {"{\"features\": [[1, 0], [0.5], [0, 0], [3, 1], [1, 1], [-1, 2]], " LABELS ", " LINKS "}",
         GAT_EFORMAT, "bad.json: \"features\"[1]: expected 2 feature values, as row 0 has"},
        {"{\"features\": [[1, 0], [0.5, \"x\"], [0, 0], [3, 1], [1, 1], [-1, 2]], " LABELS
         ", " LINKS "}",
         GAT_EFORMAT, "bad.json: \"features\"[1][1]: expected a number"},
        {"{\"features\": [[1, 0], [0.5, 1e300], [0, 0], [3, 1], [1, 1], [-1, 2]], " LABELS
         ", " LINKS "}",
         GAT_ENUMERIC, "bad.json: \"features\"[1][1]: 1e+300 is beyond the range"},
        {"{" FEATURES ", \"labels\": [0, 1, 2, 0, 1.5, 2], " LINKS "}", GAT_EFORMAT,
         "bad.json: \"labels\"[4]: expected a class, an integer in [0, 6) (below the node count)"},
        {"{" FEATURES ", \"labels\": [0, 1, 2, 0, -1, 2], " LINKS "}", GAT_EFORMAT,
         "bad.json: \"labels\"[4]: expected a class, an integer in [0, 6)"},
        {"{" FEATURES ", \"labels\": [0, 1, 2, 0, 6, 2], " LINKS "}", GAT_EFORMAT,
         "bad.json: \"labels\"[4]: expected a class, an integer in [0, 6)"},
        {"{" FEATURES ", \"labels\": [0, 1, 2, 0, 1e9, 2], " LINKS "}", GAT_EFORMAT,
         "bad.json: \"labels\"[4]: expected a class, an integer in [0, 6)"},
        {"{" FEATURES ", " LABELS ", \"links\": [[1], [2], [6], [], [], []]}", GAT_EFORMAT,
         "bad.json: \"links\"[2][0]: expected a node number in [0, 6)"},
        {"{" FEATURES ", " LABELS ", \"links\": [[1], 2, [], [], [], []]}", GAT_EFORMAT,
         "bad.json: \"links\"[1]: expected an array of the node numbers it links to"},
        {"{" FEATURES ", " LABELS ", " LINKS ", " TRAIN "}", GAT_EFORMAT,
         "bad.json: a split needs \"train_masks\", \"stopping_masks\" and \"test_mask\"; "
         "\"stopping_masks\" is missing"},
        {"{" FEATURES ", " LABELS ", " LINKS ", " VAL "}", GAT_EFORMAT,
         "\"train_masks\" is missing"},
        {"{" FEATURES ", " LABELS ", " LINKS ", " TRAIN ", " STOP
         ", \"test_mask\": [0, 0, 0, 1, 1]}",
         GAT_EFORMAT, "bad.json: \"test_mask\": expected 6 booleans (one per node), got 5"},
        {"{" FEATURES ", " LABELS ", " LINKS ", " TRAIN ", " STOP
         ", \"test_mask\": [0, 0, 0, 0, 2, 1]}",
         GAT_EFORMAT, "bad.json: \"test_mask\"[4]: expected true, false, 0 or 1"},
        {"{" FEATURES ", " LABELS ", " LINKS ", " TRAIN
         ", \"stopping_masks\": [[1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]], " TEST "}",
         GAT_EFORMAT,
         "bad.json: \"stopping_masks\"[0][0]: node 0 is also a training node of the split"},
        {"{" FEATURES ", " LABELS ", " LINKS ", " TRAIN ", " STOP
         ", \"val_masks\": [[0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0]], " TEST "}",
         GAT_EFORMAT, "bad.json: \"val_masks\"[0][4]: node 4 is also a test node of the split"},
        {"{" FEATURES ", " LABELS ", " LINKS ", " TRAIN ", \"stopping_masks\": [[1, 0, 0, 0, 0, "
         "0]], " TEST "}",
         GAT_EFORMAT, "bad.json: \"stopping_masks\": 1 masks, but \"train_masks\" has 2"},
        {"{" FEATURES ", " LABELS ", " LINKS ", \"train_masks\": [], \"stopping_masks\": [], " TEST
         "}",
         GAT_EFORMAT, "bad.json: \"train_masks\": expected at least one mask"},
        {"{" FEATURES ", \"labels\": [], " LINKS "}", GAT_EFORMAT,
         "bad.json: \"labels\": expected one class per node, at least one node"},
    };
    const int k = _i;
    gat_dataset ds;
    const char *file = write_json("bad.json", cases[k].text);
    ASSERT_FAILS(load(file, 0, 1, 0, &ds), cases[k].st, cases[k].msg);
    ck_assert_int_eq(ds.n, 0);
}
END_TEST

/* What is not this layout: GraphSAGE's -G.json (its dataset is named), a .json of no object, a
 * directory without data.json. */
START_TEST(not_wikics)
{
    gat_dataset ds;
    ck_assert(!gat_i_wikics_is(write_json("ppi-G.json", GOOD)));
    ck_assert(!gat_i_wikics_is(write_json("list.json", "  [1, 2]")));
    ck_assert(gat_i_wikics_is(write_json("spaced.json", "\n  " GOOD)));
    ck_assert(!gat_i_wikics_is(dir));
    ASSERT_FAILS(load(write_json("data.txt", GOOD), 0, 1, 0, &ds), GAT_EFORMAT,
                 "data.txt' is a file in no dataset layout libgat reads");
    ck_assert(strstr(gat_last_error(), "WikiCS's data.json") != NULL);
}
END_TEST

/* Every allocation of the reader failing in turn: GAT_ENOMEM and a zeroed dataset. */
static gat_status load_split1(gat_dataset *ds, void *file)
{
    return load(file, 1, 1, 0, ds);
}

START_TEST(alloc_failure)
{
    tu_dataset_alloc_failures(load_split1, (void *)write_json("wiki.json", GOOD), 10, 3);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wikics");
    TCase *tc = tcase_create("wikics");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, good);
    tcase_add_loop_test(tc, bad, 0, 21);
    tcase_add_test(tc, not_wikics);
    tcase_add_test(tc, alloc_failure);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
