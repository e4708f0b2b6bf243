/* Check suite of the library boundary (issue 11, part 3): caller-filled graphs and features that
 * are malformed, through every public entry that takes them; NULL handles under the one rule of
 * status.h; Adam and training settings named field by field; gat_model_meta borrowed for saving
 * and owned after loading; bundled datasets by name; the valgrind suppression file. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { N = 7, F = 5, C = 3 };

static gat_model *small_model(gat_score score)
{
    gat_model_config c;
    gat_model *m = NULL;
    gat_model_config_default(&c, F, C);
    c.hidden = 4;
    c.heads = 2;
    c.score = score;
    ck_assert_int_eq(gat_model_create(&m, &c, 3), GAT_OK);
    return m;
}

/* A dataset of the 7-node graph: every node labelled, 3 train, 2 val, 2 test. */
static void small_dataset(gat_dataset *ds, const gat_graph *g, const gat_csr *x)
{
    static const gat_idx labels[N] = {0, 1, 2, 0, 1, 2, 0};
    static const uint8_t split[N] = {1, 1, 1, 2, 2, 3, 3};
    gat_dataset_parts p = {.graph = g, .features = x, .labels = labels, .n_classes = C,
                           .split = split};
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = 0;
    ck_assert_int_eq(gat_dataset_from_parts(ds, &p, &o), GAT_OK);
}

/* ---- malformed caller-filled inputs ---------------------------------------------------------- */

/* Every public entry that takes a graph and features, run on (g, x). */
enum { E_FORWARD, E_PREDICT, E_EMBED, E_ATT_COPY, E_ATT_SAVE, E_PRED_SAVE, E_PARTS, E_TRAIN,
       E_EVALUATE, E_COUNT };
static const char *const entry_names[E_COUNT] = {
    "gat_model_forward", "gat_model_predict", "gat_model_embed", "gat_model_attention_copy",
    "gat_attention_save", "gat_predictions_save", "gat_dataset_from_parts", "gat_train",
    "gat_model_evaluate"};

/* Where the dataset entries put the bad input: a dataset built from good parts, then its own
 * copy overwritten with the caller's bad arrays (swapped in, swapped back before destroy). */
static gat_status run_entry(int e, gat_model *m, const gat_graph *g, const gat_csr *x,
                            const gat_graph *good_g, const gat_csr *good_x, const char *dir)
{
    static gat_real out[N * 64], alpha[1024];
    static gat_idx cls[N];
    const gat_real *logits;
    char path[512];
    gat_dataset ds;
    gat_status st;
    snprintf(path, sizeof path, "%s/out.tsv", dir);
    switch (e) {
    case E_FORWARD: return gat_model_forward(m, g, x, 0, &logits);
    case E_PREDICT: return gat_model_predict(m, g, x, cls, out);
    case E_EMBED: return gat_model_embed(m, g, x, GAT_LAYER_PROBS, out);
    case E_ATT_COPY: return gat_model_attention_copy(m, g, x, 0, alpha);
    case E_ATT_SAVE: return gat_attention_save(path, m, g, x, NULL, 0);
    case E_PRED_SAVE: return gat_predictions_save(path, m, g, x, NULL, NULL, 0);
    case E_PARTS: {
        gat_dataset_parts p = {.graph = g, .features = x, .n_classes = 0};
        return gat_dataset_from_parts(&ds, &p, NULL);
    }
    default: {
        small_dataset(&ds, good_g, good_x);
        gat_graph keep_g = ds.graph;
        gat_csr keep_x = ds.x;
        ds.graph = *g;
        ds.x = *x;
        if (e == E_TRAIN) {
            gat_train_config tc;
            gat_train_config_default(&tc);
            tc.max_epochs = 2;
            st = gat_train(m, &ds, &tc, NULL);
        } else {
            double loss, acc;
            st = gat_model_evaluate(m, &ds, GAT_SPLIT_VAL, &loss, &acc);
        }
        ds.graph = keep_g;
        ds.x = keep_x;
        gat_dataset_destroy(&ds);
        return st;
    }
    }
}

/* Runs every entry on (g, x), on a model of each engine (the fused GAT path and the layer-by-
 * layer path of the other scores): status and message (what, and the model entries' prefix). */
static void assert_every_entry(const gat_graph *g, const gat_csr *x, const gat_graph *good_g,
                               const gat_csr *good_x, gat_status want, const char *what,
                               const char *prefix)
{
    char *dir = tu_tmpdir();
    const gat_score scores[2] = {GAT_SCORE_GAT, GAT_SCORE_DOT};
    for (int s = 0; s < 2; s++)
        for (int e = 0; e < E_COUNT; e++) {
            gat_model *m = small_model(scores[s]);
            gat_status st = run_entry(e, m, g, x, good_g, good_x, dir);
            ck_assert_msg(st == want, "%s (score %s): status %d (%s), expected %d", entry_names[e],
                          gat_score_name(scores[s]), st, gat_last_error(), want);
            ck_assert_msg(strstr(gat_last_error(), what), "%s: message '%s' lacks '%s'",
                          entry_names[e], gat_last_error(), what);
            if (e != E_PARTS)
                ck_assert_msg(strstr(gat_last_error(), prefix), "%s: message '%s' lacks '%s'",
                              entry_names[e], gat_last_error(), prefix);
            /* the good inputs still work on the same model: nothing was left half-built */
            if (e < E_PARTS) ck_assert_int_eq(run_entry(e, m, good_g, good_x, good_g, good_x, dir), GAT_OK);
            gat_model_free(m);
        }
    tu_rmtree(dir);
    free(dir);
}

static void assert_bad_features(const gat_csr *bad, gat_status want, const char *what)
{
    gat_graph g;
    gat_csr x, copy;
    tu_graph_small(&g, 0);
    tu_features(&x, N, F, 0.5, 11);
    assert_every_entry(&g, bad, &g, &x, want, what, "gat_model_forward: features x: ");
    ASSERT_FAILS(gat_csr_check(bad), want, what);
    ASSERT_FAILS(gat_csr_copy(&copy, bad), want, what);
    ck_assert_ptr_null(copy.rowptr);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}

static void assert_bad_graph(const gat_graph *bad, gat_status want, const char *what)
{
    gat_graph g, copy;
    gat_csr x;
    tu_graph_small(&g, 0);
    tu_features(&x, N, F, 0.5, 11);
    assert_every_entry(bad, &x, &g, &x, want, what, "gat_model_forward: graph");
    ASSERT_FAILS(gat_graph_check(bad), want, what);
    ASSERT_FAILS(gat_graph_copy(&copy, bad), want, what);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}

/* A caller's copy of the features, to corrupt. */
static void features_copy(gat_csr *x)
{
    tu_features(x, N, F, 0.5, 11);
}

START_TEST(test_features_column_out_of_range)
{
    gat_csr x;
    char what[128];
    const gat_idx bad[2] = {1000000, -1};
    for (int k = 0; k < 2; k++) {
        features_copy(&x);
        x.col[x.rowptr[3]] = bad[k];
        snprintf(what, sizeof what, "row 3 has column %d outside [0, %d)", bad[k], F);
        assert_bad_features(&x, GAT_EINVAL, what);
        gat_csr_destroy(&x);
    }
}
END_TEST

START_TEST(test_features_rowptr_past_arrays)
{
    gat_csr x;
    char what[160];
    features_copy(&x);
    x.rowptr[N] = (gat_idx)x.capacity + 100;
    snprintf(what, sizeof what, "rowptr[%d] = %d non-zeros exceed the capacity %zu of col and val",
             N, x.rowptr[N], x.capacity);
    assert_bad_features(&x, GAT_EINVAL, what);
    gat_csr_destroy(&x);
}
END_TEST

START_TEST(test_features_bad_rowptr)
{
    gat_csr x;
    char what[128];
    features_copy(&x);
    x.rowptr[0] = 1;
    assert_bad_features(&x, GAT_EINVAL, "rowptr[0] is 1, expected 0");
    gat_csr_destroy(&x);

    features_copy(&x);
    const gat_idx keep = x.rowptr[4];
    x.rowptr[4] = x.rowptr[3] - 1 < 0 ? 0 : x.rowptr[3] - 1;
    x.rowptr[3] = keep; /* rowptr[3] > rowptr[4]: decreasing */
    snprintf(what, sizeof what, "rowptr decreases at row 3 (%d then %d)", x.rowptr[3], x.rowptr[4]);
    assert_bad_features(&x, GAT_EINVAL, what);
    gat_csr_destroy(&x);

    /* NULL arrays with values */
    features_copy(&x);
    gat_real *val = x.val;
    x.val = NULL;
    snprintf(what, sizeof what, "val is NULL with %d non-zeros", x.rowptr[N]);
    assert_bad_features(&x, GAT_EINVAL, what);
    x.val = val;
    gat_idx *col = x.col;
    x.col = NULL;
    snprintf(what, sizeof what, "col is NULL with %d non-zeros", x.rowptr[N]);
    assert_bad_features(&x, GAT_EINVAL, what);
    x.col = col;
    gat_csr_destroy(&x);

    /* columns not ascending within a row */
    features_copy(&x);
    gat_idx r = 0;
    while (x.rowptr[r + 1] - x.rowptr[r] < 2) r++;
    const gat_idx p = x.rowptr[r];
    const gat_idx t = x.col[p];
    x.col[p] = x.col[p + 1];
    x.col[p + 1] = t;
    snprintf(what, sizeof what, "row %d lists column %d after column %d", r, t, x.col[p]);
    assert_bad_features(&x, GAT_EINVAL, what);
    gat_csr_destroy(&x);
}
END_TEST

START_TEST(test_features_not_finite)
{
    gat_csr x;
    char what[128];
    const gat_real bad[2] = {NAN, INFINITY};
    const char *const text[2] = {"nan", "inf"};
    for (int k = 0; k < 2; k++) {
        features_copy(&x);
        x.val[x.rowptr[4]] = bad[k];
        snprintf(what, sizeof what, "non-finite value %s at row 4, column %d", text[k],
                 x.col[x.rowptr[4]]);
        assert_bad_features(&x, GAT_ENUMERIC, what);
        gat_csr_destroy(&x);
    }
}
END_TEST

START_TEST(test_features_sizes)
{
    gat_csr x;
    features_copy(&x);
    x.rows = -1;
    ASSERT_FAILS(gat_csr_check(&x), GAT_EINVAL, "gat_csr_check: negative size -1 x 5");
    x.rows = N;
    gat_idx *rowptr = x.rowptr;
    x.rowptr = NULL;
    ASSERT_FAILS(gat_csr_check(&x), GAT_EINVAL, "gat_csr_check: NULL rowptr with 7 rows");
    x.rowptr = rowptr;
    ck_assert_int_eq(gat_csr_check(&x), GAT_OK);
    ASSERT_FAILS(gat_csr_check(NULL), GAT_EINVAL, "gat_csr_check: NULL matrix");
    gat_csr zero = {0};
    ck_assert_int_eq(gat_csr_check(&zero), GAT_OK); /* the empty matrix */
    gat_csr_destroy(&x);

    /* a zeroed graph and zeroed features are valid empty inputs, but a model needs arrays */
    gat_graph g0 = {0};
    gat_model *m = small_model(GAT_SCORE_GAT);
    gat_csr x0 = {.cols = F};
    const gat_real *logits;
    ASSERT_FAILS(gat_model_forward(m, &g0, &x0, 0, &logits), GAT_EINVAL,
                 "gat_model_forward: graph g has a NULL rowptr");
    gat_model_free(m);
}
END_TEST

/* A struct filled by the caller after gat_csr_init, as the README's program did. */
START_TEST(test_features_filled_after_init)
{
    gat_graph g;
    gat_csr x;
    gat_idx cls[N];
    gat_real prob[N];
    tu_graph_small(&g, 0);
    ck_assert_int_eq(gat_csr_init(&x, N, F, N), GAT_OK);
    ck_assert_uint_eq(x.capacity, N);
    for (gat_idx i = 0; i < N; i++) {
        x.rowptr[i + 1] = i + 1;
        x.col[i] = i % F;
        x.val[i] = 1;
    }
    gat_model *m = small_model(GAT_SCORE_GAT);
    ck_assert_int_eq(gat_model_predict(m, &g, &x, cls, prob), GAT_OK);
    for (gat_idx i = 0; i < N; i++) ck_assert(isfinite(prob[i]));
    /* new arrays in the same struct are checked again (the model's cache is keyed on them) */
    gat_csr_destroy(&x);
    ck_assert_int_eq(gat_csr_init(&x, N, F, N), GAT_OK);
    for (gat_idx i = 0; i < N; i++) {
        x.rowptr[i + 1] = i + 1;
        x.col[i] = i % F;
        x.val[i] = 1;
    }
    x.col[2] = 1000000;
    ASSERT_FAILS(gat_model_predict(m, &g, &x, cls, prob), GAT_EINVAL,
                 "gat_model_forward: features x: row 2 has column 1000000 outside [0, 5)");
    /* so is a new nnz in the same arrays: rowptr[rows] past the arrays */
    x.col[2] = 2;
    ck_assert_int_eq(gat_model_predict(m, &g, &x, cls, prob), GAT_OK);
    x.rowptr[N] = 1000;
    ASSERT_FAILS(gat_model_predict(m, &g, &x, cls, prob), GAT_EINVAL,
                 "rowptr[7] = 1000 non-zeros exceed the capacity 7");
    gat_model_free(m);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

START_TEST(test_graph_column_out_of_range)
{
    gat_graph g;
    char what[128];
    const gat_idx bad[2] = {1000000, -1};
    for (int k = 0; k < 2; k++) {
        tu_graph_small(&g, 0);
        const gat_idx e = g.rowptr[2];
        g.col[e] = bad[k];
        snprintf(what, sizeof what, "graph col[%d] = %d (row 2) outside [0, %d)", e, bad[k], N);
        assert_bad_graph(&g, GAT_EINVAL, what);
        gat_graph_destroy(&g);

        tu_graph_small(&g, 0);
        const gat_idx p = g.t_rowptr[3];
        g.t_col[p] = bad[k];
        snprintf(what, sizeof what, "graph t_col[%d] = %d (row 3) outside [0, %d)", p, bad[k], N);
        assert_bad_graph(&g, GAT_EINVAL, what);
        gat_graph_destroy(&g);
    }
}
END_TEST

START_TEST(test_graph_structure)
{
    gat_graph g;
    char what[128];
    /* rowptr[n] past the arrays, and nnz disagreeing with it */
    tu_graph_small(&g, 0);
    const gat_idx nnz = g.nnz;
    g.rowptr[N] = nnz + 50;
    snprintf(what, sizeof what, "graph rowptr[7] = %d, expected nnz = %d", nnz + 50, nnz);
    assert_bad_graph(&g, GAT_EINVAL, what);
    g.rowptr[N] = nnz;
    g.nnz = nnz - 1;
    snprintf(what, sizeof what, "graph rowptr[7] = %d, expected nnz = %d", nnz, nnz - 1);
    assert_bad_graph(&g, GAT_EINVAL, what);
    g.nnz = nnz;
    g.t_rowptr[N] = nnz + 1;
    snprintf(what, sizeof what, "graph t_rowptr[7] = %d, expected nnz = %d", nnz + 1, nnz);
    assert_bad_graph(&g, GAT_EINVAL, what);
    g.t_rowptr[N] = nnz;
    g.rowptr[0] = 1;
    assert_bad_graph(&g, GAT_EINVAL, "graph rowptr[0] is 1, expected 0");
    g.rowptr[0] = 0;
    /* the transpose's edge map: not a permutation */
    const gat_idx keep = g.t_edge[1];
    g.t_edge[1] = g.t_edge[0];
    snprintf(what, sizeof what, "graph t_edge[1] = %d does not name the edge", g.t_edge[0]);
    assert_bad_graph(&g, GAT_EINVAL, what);
    g.t_edge[1] = keep;
    ck_assert_int_eq(gat_graph_check(&g), GAT_OK);
    /* negative sizes, NULL arrays */
    g.n = -2; /* the model entries see rows != nodes first (GAT_EDIM); the others: */
    ASSERT_FAILS(gat_graph_check(&g), GAT_EINVAL, "gat_graph_check: graph sizes n = -2");
    gat_graph copy;
    ASSERT_FAILS(gat_graph_copy(&copy, &g), GAT_EINVAL, "gat_graph_copy: graph sizes n = -2");
    gat_csr x;
    tu_features(&x, N, F, 0.5, 11);
    gat_dataset ds;
    gat_dataset_parts parts = {.graph = &g, .features = &x};
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &parts, NULL), GAT_EINVAL, "graph sizes n = -2");
    gat_csr_destroy(&x);
    g.n = N;
    gat_idx *col = g.col;
    g.col = NULL;
    snprintf(what, sizeof what, "graph with n = 7, nnz = %d has NULL arrays", nnz);
    assert_bad_graph(&g, GAT_EINVAL, what);
    g.col = col;
    ASSERT_FAILS(gat_graph_check(NULL), GAT_EINVAL, "gat_graph_check: NULL graph");
    gat_graph_destroy(&g);
}
END_TEST

/* No self-loops is a valid graph (an empty neighbourhood aggregates zeros): not refused. */
START_TEST(test_graph_without_self_loops)
{
    gat_graph g;
    gat_csr x;
    gat_idx cls[N];
    tu_graph_small(&g, GAT_GRAPH_NO_SELF_LOOPS);
    tu_features(&x, N, F, 0.5, 11);
    ck_assert_int_eq(gat_graph_check(&g), GAT_OK);
    gat_model *m = small_model(GAT_SCORE_GAT);
    ck_assert_int_eq(gat_model_predict(m, &g, &x, cls, NULL), GAT_OK);
    gat_model_free(m);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* ---- NULL handles ----------------------------------------------------------------------------- */

START_TEST(test_null_value_functions)
{
    size_t count = 99;
    int n = 99;
    ck_assert_int_eq(gat_model_layer_count(NULL), 0);
    ck_assert_ptr_null(gat_model_params(NULL, &count));
    ck_assert_uint_eq(count, 0);
    count = 99;
    ck_assert_ptr_null(gat_model_grads(NULL, &count));
    ck_assert_uint_eq(count, 0);
    ck_assert_ptr_null(gat_model_tensors(NULL, &n));
    ck_assert_int_eq(n, 0);
    ck_assert_ptr_null(gat_model_params(NULL, NULL));
    ck_assert_ptr_null(gat_model_tensors(NULL, NULL));
    ck_assert_ptr_null(gat_model_get_config(NULL));
    ck_assert_int_eq(gat_model_layer_width(NULL, 0), -1);
    ck_assert_int_eq(gat_model_layer_heads(NULL, 0), -1);
    ck_assert_int_eq(gat_model_embed_width(NULL, 0), -1);
    gat_model_set_threads(NULL, 2);
    gat_model_zero_grads(NULL);
    gat_csr_normalize_rows(NULL);
    gat_model_config_default(NULL, 3, 2);
    gat_train_config_default(NULL);
    gat_model_meta_init(NULL);
    gat_adam_config_default(NULL);
    gat_dataset_options_default(NULL);
    gat_model_meta_destroy(NULL);
    gat_model_free(NULL);
    gat_graph_destroy(NULL);
    gat_csr_destroy(NULL);
    gat_matrix_destroy(NULL);
    gat_dataset_destroy(NULL);
    gat_csr zero = {0};
    gat_csr_normalize_rows(&zero);
    ck_assert_ptr_nonnull(gat_score_name(GAT_SCORE_GAT));
    ck_assert_ptr_null(gat_score_name((gat_score)99));
    ck_assert_ptr_nonnull(gat_last_error());
}
END_TEST

START_TEST(test_null_status_functions)
{
    gat_graph g;
    gat_csr x;
    gat_model *m = small_model(GAT_SCORE_GAT), *none = NULL;
    gat_model_config cfg;
    gat_dataset ds;
    gat_adam_config ac;
    gat_train_config tc;
    gat_real buf[64] = {0};
    gat_idx cls[N];
    const gat_real *out;
    double loss, acc;
    char path[64];
    tu_graph_small(&g, 0);
    tu_features(&x, N, F, 0.5, 11);
    gat_model_config_default(&cfg, F, C);
    gat_adam_config_default(&ac);
    gat_train_config_default(&tc);
    small_dataset(&ds, &g, &x);

    ASSERT_FAILS(gat_model_create(NULL, &cfg, 1), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_model_create(&none, NULL, 1), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_model_config_check(NULL), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_model_forward(NULL, &g, &x, 0, &out), GAT_EINVAL,
                 "gat_model_forward: NULL model m");
    ASSERT_FAILS(gat_model_forward(m, NULL, &x, 0, &out), GAT_EINVAL,
                 "gat_model_forward: NULL graph g");
    ASSERT_FAILS(gat_model_forward(m, &g, NULL, 0, &out), GAT_EINVAL,
                 "gat_model_forward: NULL features x");
    ASSERT_FAILS(gat_model_forward(m, &g, &x, 0, NULL), GAT_EINVAL,
                 "gat_model_forward: NULL logits");
    ASSERT_FAILS(gat_model_backward(NULL, buf), GAT_EINVAL, "gat_model_backward: NULL model m");
    ASSERT_FAILS(gat_model_backward(m, NULL), GAT_EINVAL, "gat_model_backward: NULL dlogits");
    ASSERT_FAILS(gat_model_layer_output(NULL, 0, &out), GAT_EINVAL,
                 "gat_model_layer_output: NULL model m");
    ASSERT_FAILS(gat_model_layer_output(m, 0, NULL), GAT_EINVAL,
                 "gat_model_layer_output: NULL output");
    ASSERT_FAILS(gat_model_attention(NULL, 0, &out), GAT_EINVAL,
                 "gat_model_attention: NULL model m");
    ASSERT_FAILS(gat_model_attention(m, 0, NULL), GAT_EINVAL, "gat_model_attention: NULL output");
    ASSERT_FAILS(gat_model_predict(NULL, &g, &x, cls, NULL), GAT_EINVAL,
                 "gat_model_predict: NULL model m");
    ASSERT_FAILS(gat_model_predict(m, NULL, &x, cls, NULL), GAT_EINVAL,
                 "gat_model_predict: NULL graph g");
    ASSERT_FAILS(gat_model_predict(m, &g, NULL, cls, NULL), GAT_EINVAL,
                 "gat_model_predict: NULL features x");
    ASSERT_FAILS(gat_model_predict(m, &g, &x, NULL, NULL), GAT_EINVAL,
                 "gat_model_predict: NULL classes");
    ASSERT_FAILS(gat_model_embed(NULL, &g, &x, 0, buf), GAT_EINVAL, "gat_model_embed: NULL model m");
    ASSERT_FAILS(gat_model_embed(m, &g, &x, 0, NULL), GAT_EINVAL, "gat_model_embed: NULL output");
    ASSERT_FAILS(gat_model_attention_copy(m, NULL, &x, 0, buf), GAT_EINVAL,
                 "gat_model_attention_copy: NULL graph g");
    ASSERT_FAILS(gat_model_save(NULL, NULL, "/tmp/x"), GAT_EINVAL, "gat_model_save: NULL model m");
    ASSERT_FAILS(gat_model_save(m, NULL, NULL), GAT_EINVAL, "gat_model_save: NULL path");
    ASSERT_FAILS(gat_model_load(NULL, NULL, "/tmp/x"), GAT_EINVAL, "gat_model_load: NULL out");
    ASSERT_FAILS(gat_model_load(&none, NULL, NULL), GAT_EINVAL, "gat_model_load: NULL path");
    ASSERT_FAILS(gat_adam_config_check(NULL), GAT_EINVAL, "gat_adam: NULL config");
    ASSERT_FAILS(gat_adam_step(NULL, 1, 4, buf, buf, buf, buf), GAT_EINVAL, "gat_adam: NULL config");
    ASSERT_FAILS(gat_adam_step(&ac, 1, 4, buf, NULL, buf, buf), GAT_EINVAL,
                 "gat_adam: NULL g with n = 4 parameters");
    ASSERT_FAILS(gat_adam_step(&ac, 0, 4, buf, buf, buf, buf), GAT_EINVAL,
                 "gat_adam: step t = 0, expected t >= 1");
    ck_assert_int_eq(gat_adam_step(&ac, 1, 0, NULL, NULL, NULL, NULL), GAT_OK);
    ASSERT_FAILS(gat_softmax_xent(NULL, N, C, ds.labels, ds.split, 1, &loss, &acc, NULL),
                 GAT_EINVAL, "gat_softmax_xent: NULL logits");
    ASSERT_FAILS(gat_softmax_xent(buf, N, C, ds.labels, ds.split, 1, NULL, &acc, NULL),
                 GAT_EINVAL, "gat_softmax_xent: NULL loss");
    ASSERT_FAILS(gat_softmax_xent(buf, N, C, ds.labels, ds.split, 1, &loss, NULL, NULL),
                 GAT_EINVAL, "gat_softmax_xent: NULL acc");
    ASSERT_FAILS(gat_model_evaluate(m, NULL, 1, &loss, &acc), GAT_EINVAL,
                 "gat_model_evaluate: NULL dataset ds");
    ASSERT_FAILS(gat_model_evaluate(m, &ds, 1, NULL, &acc), GAT_EINVAL, "gat_model_evaluate: NULL loss");
    ASSERT_FAILS(gat_train(NULL, &ds, &tc, NULL), GAT_EINVAL, "gat_train: NULL model m");
    ASSERT_FAILS(gat_train(m, NULL, &tc, NULL), GAT_EINVAL, "gat_train: NULL dataset ds");
    ASSERT_FAILS(gat_train(m, &ds, NULL, NULL), GAT_EINVAL, "gat_train: NULL config cfg");
    ASSERT_FAILS(gat_dataset_load(NULL, "cora", NULL), GAT_EINVAL, "NULL");
    gat_dataset_destroy(&ds); /* gat_dataset_load takes an uninitialised ds */
    ASSERT_FAILS(gat_dataset_load(&ds, NULL, NULL), GAT_EINVAL, "empty or NULL path");
    small_dataset(&ds, &g, &x);
    ASSERT_FAILS(gat_dataset_from_parts(NULL, NULL, NULL), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_dataset_read(NULL, NULL, NULL), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_dataset_locate(NULL, path, sizeof path), GAT_EINVAL,
                 "gat_dataset_locate: empty or NULL name");
    ASSERT_FAILS(gat_dataset_locate("cora", NULL, 0), GAT_EINVAL,
                 "gat_dataset_locate: NULL path buffer");
    ASSERT_FAILS(gat_graph_from_edges(NULL, 2, 0, NULL, NULL, 0), GAT_EINVAL, "NULL graph");
    ASSERT_FAILS(gat_graph_from_csr(NULL, 2, NULL, NULL, 0), GAT_EINVAL, "NULL graph");
    ASSERT_FAILS(gat_graph_copy(NULL, &g), GAT_EINVAL, "NULL destination");
    ASSERT_FAILS(gat_csr_init(NULL, 1, 1, 1), GAT_EINVAL, "NULL matrix");
    ASSERT_FAILS(gat_csr_copy(NULL, &x), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_csr_from_dense(NULL, 1, 1, buf), GAT_EINVAL, "NULL matrix");
    ASSERT_FAILS(gat_csr_identity(NULL, 1), GAT_EINVAL, "NULL matrix");
    ASSERT_FAILS(gat_matrix_init(NULL, 1, 1), GAT_EINVAL, "NULL matrix");
    ASSERT_FAILS(gat_matrix_save(NULL, GAT_FORMAT_NPY, 1, 1, buf, NULL, 0), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_matrix_save("/tmp/x.npy", GAT_FORMAT_NPY, 1, 1, NULL, NULL, 0), GAT_EINVAL,
                 "NULL");
    ASSERT_FAILS(gat_attention_save(NULL, m, &g, &x, NULL, 0), GAT_EINVAL,
                 "gat_attention_save: NULL path");
    ASSERT_FAILS(gat_predictions_save(NULL, m, &g, &x, NULL, NULL, 0), GAT_EINVAL,
                 "gat_predictions_save: NULL path");
    ASSERT_FAILS(gat_score_from_name(NULL, &cfg.score), GAT_EINVAL, "gat_score_from_name: NULL name");
    ASSERT_FAILS(gat_score_from_name("gat", NULL), GAT_EINVAL, "gat_score_from_name: NULL out");
    gat_file_format fmt;
    ASSERT_FAILS(gat_file_format_from_name(NULL, &fmt), GAT_EINVAL, "from_name: NULL name");
    ASSERT_FAILS(gat_file_format_from_path(NULL, &fmt), GAT_EINVAL, "from_path: NULL path");
    ASSERT_FAILS(gat_file_format_from_name("npy", NULL), GAT_EINVAL, "from_name: NULL fmt");
    gat_graph_format gfmt;
    ASSERT_FAILS(gat_graph_format_from_name(NULL, &gfmt), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_graph_format_from_path(NULL, &gfmt), GAT_EINVAL, "NULL");
    ASSERT_FAILS(gat_graph_format_from_name("edgelist", NULL), GAT_EINVAL, "NULL");

    gat_dataset_destroy(&ds);
    gat_model_free(m);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* ---- Adam and training settings --------------------------------------------------------------- */

typedef struct bad_field {
    const char *field;
    double value;
    const char *message;
} bad_field;

static const bad_field bad_adam[] = {
    {"lr", 0, "gat_adam: lr = 0 is outside (0, inf)"},
    {"lr", -0.01, "gat_adam: lr = -0.01 is outside (0, inf)"},
    {"lr", NAN, "gat_adam: lr = nan is outside (0, inf)"},
    {"lr", INFINITY, "gat_adam: lr = inf is outside (0, inf)"},
    {"beta1", 1, "gat_adam: beta1 = 1 is outside [0, 1)"},
    {"beta1", -0.1, "gat_adam: beta1 = -0.1 is outside [0, 1)"},
    {"beta2", 1, "gat_adam: beta2 = 1 is outside [0, 1)"},
    {"beta2", 1.5, "gat_adam: beta2 = 1.5 is outside [0, 1)"},
    {"eps", -1e-8, "gat_adam: eps = -1e-08 is outside (0, inf)"},
    {"eps", 0, "gat_adam: eps = 0 is outside (0, inf)"},
    {"weight_decay", -1, "gat_adam: weight_decay = -1 is outside [0, inf)"},
    {"weight_decay", NAN, "gat_adam: weight_decay = nan is outside [0, inf)"},
};

static void set_adam(gat_adam_config *c, const bad_field *b)
{
    double *f = !strcmp(b->field, "lr")      ? &c->lr
                : !strcmp(b->field, "beta1") ? &c->beta1
                : !strcmp(b->field, "beta2") ? &c->beta2
                : !strcmp(b->field, "eps")   ? &c->eps
                                             : &c->weight_decay;
    *f = b->value;
}

START_TEST(test_adam_fields)
{
    const bad_field *b = &bad_adam[_i];
    gat_adam_config c;
    gat_adam_config_default(&c);
    ck_assert_int_eq(gat_adam_config_check(&c), GAT_OK);
    set_adam(&c, b);
    ASSERT_FAILS(gat_adam_config_check(&c), GAT_EINVAL, b->message);
    gat_real p[2] = {1, 2}, g[2] = {0.5f, 0.5f}, m[2] = {0}, v[2] = {0};
    ASSERT_FAILS(gat_adam_step(&c, 1, 2, p, g, m, v), GAT_EINVAL, b->message);
    ck_assert(p[0] == 1 && p[1] == 2 && m[0] == 0 && v[0] == 0); /* nothing updated */

    /* gat_train refuses it before the first epoch, with the same message */
    gat_graph gr;
    gat_csr x;
    gat_dataset ds;
    gat_train_config tc;
    tu_graph_small(&gr, 0);
    tu_features(&x, N, F, 0.5, 11);
    small_dataset(&ds, &gr, &x);
    gat_train_config_default(&tc);
    set_adam(&tc.adam, b);
    gat_model *mo = small_model(GAT_SCORE_GAT);
    ASSERT_FAILS(gat_train(mo, &ds, &tc, NULL), GAT_EINVAL, b->message);
    gat_model_free(mo);
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&gr);
    gat_csr_destroy(&x);
}
END_TEST

/* A dataset's caller-visible sizes and arrays must agree before gat_train reads them. */
START_TEST(test_dataset_fields)
{
    gat_graph gr;
    gat_csr x;
    gat_dataset ds;
    gat_train_config tc;
    double loss, acc;
    tu_graph_small(&gr, 0);
    tu_features(&x, N, F, 0.5, 11);
    small_dataset(&ds, &gr, &x);
    gat_model *m = small_model(GAT_SCORE_GAT);
    gat_train_config_default(&tc);
    ds.n = N + 5;
    ASSERT_FAILS(gat_train(m, &ds, &tc, NULL), GAT_EDIM,
                 "the dataset has n = 12 nodes but its graph has 7 and its features 7 rows");
    ASSERT_FAILS(gat_model_evaluate(m, &ds, GAT_SPLIT_VAL, &loss, &acc), GAT_EDIM,
                 "the dataset has n = 12 nodes");
    ds.n = N;
    uint8_t *split = ds.split;
    ds.split = NULL;
    ASSERT_FAILS(gat_train(m, &ds, &tc, NULL), GAT_EINVAL, "has n = 7 nodes but NULL split");
    ds.split = split;
    gat_model_free(m);
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&gr);
    gat_csr_destroy(&x);
}
END_TEST

START_TEST(test_train_config_fields)
{
    gat_graph gr;
    gat_csr x;
    gat_dataset ds;
    gat_train_config tc;
    gat_train_result res;
    tu_graph_small(&gr, 0);
    tu_features(&x, N, F, 0.5, 11);
    small_dataset(&ds, &gr, &x);
    gat_model *m = small_model(GAT_SCORE_GAT);
    gat_train_config_default(&tc);
    tc.max_epochs = 0;
    ASSERT_FAILS(gat_train(m, &ds, &tc, NULL), GAT_EINVAL,
                 "gat_train: max_epochs = 0, expected at least 1");
    ck_assert_ptr_null(strstr(gat_last_error(), "patience")); /* one field, not a list */
    gat_train_config_default(&tc);
    tc.patience = -3;
    ASSERT_FAILS(gat_train(m, &ds, &tc, NULL), GAT_EINVAL,
                 "gat_train: patience = -3, expected at least 1");
    ck_assert_ptr_null(strstr(gat_last_error(), "max_epochs"));
    gat_train_config_default(&tc);
    tc.max_epochs = 3;
    ck_assert_int_eq(gat_train(m, &ds, &tc, &res), GAT_OK);
    ck_assert_int_eq(res.epochs, 3);
    gat_model_free(m);
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&gr);
    gat_csr_destroy(&x);
}
END_TEST

/* ---- gat_model_meta ---------------------------------------------------------------------------- */

/* The names of a dataset pass to the API as they are: the fields' type is what every API taking
 * names takes (no cast, no warning). */
_Static_assert(_Generic(((gat_dataset *)0)->class_names, const char *const *: 1, default: 0),
               "gat_dataset.class_names has the type of gat_model_meta.class_names");
_Static_assert(_Generic(((gat_dataset *)0)->node_ids, const char *const *: 1, default: 0),
               "gat_dataset.node_ids has the type gat_matrix_save takes");
_Static_assert(_Generic(((gat_model_meta *)0)->class_names, const char *const *: 1, default: 0),
               "gat_model_meta.class_names is borrowed, const");

START_TEST(test_meta_caller_filled)
{
    gat_graph g;
    gat_csr x;
    gat_dataset ds;
    char *dir = tu_tmpdir(), path[512];
    tu_graph_small(&g, 0);
    tu_features(&x, N, F, 0.5, 11);
    gat_dataset_parts p = {.graph = &g, .features = &x, .n_classes = C,
                           .class_names = (const char *[]){"red", "green", "blue"}};
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &p, NULL), GAT_OK);
    gat_model *m = small_model(GAT_SCORE_GAT);
    snprintf(path, sizeof path, "%s/m.gat", dir);

    gat_model_meta meta;
    gat_model_meta_init(&meta);
    meta.n_classes = ds.n_classes;
    meta.class_names = ds.class_names; /* char-array-free: no cast */
    meta.dataset = "somewhere";
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);
    /* destroying a caller-filled meta frees nothing (it used to abort in free) and resets it */
    gat_model_meta_destroy(&meta);
    ck_assert_ptr_null(meta.class_names);
    ck_assert_ptr_null(meta.dataset);
    ck_assert_int_eq(meta.n_classes, 0);
    ck_assert_int_eq(meta.normalize, 1);
    ck_assert_str_eq(ds.class_names[1], "green"); /* the borrowed strings are intact */
    gat_model_meta z = {0};
    z.dataset = "literal";
    gat_model_meta_destroy(&z); /* a `= {0}` meta too */

    /* a literal array of names, declared the usual way */
    const char *names[] = {"a", "b", "c"};
    meta.n_classes = C;
    meta.class_names = names;
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);

    /* loaded: owned copies, released by destroy (twice is fine) */
    gat_model *back = NULL;
    gat_model_meta got;
    ck_assert_int_eq(gat_model_load(&back, &got, path), GAT_OK);
    ck_assert_ptr_nonnull(got.storage);
    ck_assert_int_eq(got.n_classes, C);
    ck_assert_str_eq(got.class_names[2], "c");
    ck_assert_ptr_ne(got.class_names, names);
    ck_assert_ptr_nonnull(got.version);
    gat_model_meta_destroy(&got);
    ck_assert_ptr_null(got.storage);
    ck_assert_ptr_null(got.class_names);
    gat_model_meta_destroy(&got);

    /* node ids of a dataset straight into the writers */
    gat_real emb[N * C];
    ck_assert_int_eq(gat_model_embed(m, &ds.graph, &ds.x, GAT_LAYER_PROBS, emb), GAT_OK);
    snprintf(path, sizeof path, "%s/e.tsv", dir);
    ck_assert_int_eq(gat_matrix_save(path, GAT_FORMAT_AUTO, ds.n, C, emb, ds.node_ids, 0), GAT_OK);
    snprintf(path, sizeof path, "%s/a.tsv", dir);
    ck_assert_int_eq(gat_attention_save(path, m, &ds.graph, &ds.x, ds.node_ids, 0), GAT_OK);
    snprintf(path, sizeof path, "%s/p.tsv", dir);
    ck_assert_int_eq(gat_predictions_save(path, m, &ds.graph, &ds.x, ds.node_ids, ds.class_names, 0),
                     GAT_OK);

    gat_model_free(back);
    gat_model_free(m);
    gat_dataset_destroy(&ds);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A failed load leaves meta initialised-empty, destroy-safe. */
START_TEST(test_meta_failed_load)
{
    gat_model *m = NULL;
    gat_model_meta meta;
    ASSERT_FAILS(gat_model_load(&m, &meta, "/nonexistent/model.gat"), GAT_EIO, "/nonexistent");
    ck_assert_ptr_null(meta.storage);
    ck_assert_ptr_null(meta.class_names);
    gat_model_meta_destroy(&meta);
}
END_TEST

/* ---- datasets by name ----------------------------------------------------------------------- */

static void write_dataset(const char *root, const char *name, int nodes)
{
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(file, sizeof file, "%s/%s.content", dir, name);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < nodes; i++) fprintf(f, "n%d 1 0 c%d\n", i, i % 2);
    fclose(f);
    snprintf(file, sizeof file, "%s/%s.cites", dir, name);
    f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "n0 n1\n");
    fclose(f);
}

START_TEST(test_dataset_by_name)
{
    gat_dataset ds;
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.train_per_class = 1, o.n_val = 1, o.n_test = 1;
    char *root = tu_tmpdir(), path[1024];
    write_dataset(root, "cora", 6); /* shadows the bundled one */
    write_dataset(root, "mine", 5);

    /* $GAT_DATASETS first */
    ck_assert_int_eq(setenv("GAT_DATASETS", root, 1), 0);
    ck_assert_int_eq(gat_dataset_load(&ds, "mine", &o), GAT_OK);
    ck_assert_int_eq(ds.n, 5);
    gat_dataset_destroy(&ds);
    ck_assert_int_eq(gat_dataset_load(&ds, "cora", &o), GAT_OK);
    ck_assert_int_eq(ds.n, 6);
    gat_dataset_destroy(&ds);
    ck_assert_int_eq(gat_dataset_locate("mine", path, sizeof path), GAT_OK);
    char want[1100];
    snprintf(want, sizeof want, "%s/mine", root);
    ck_assert_str_eq(path, want);
    ASSERT_FAILS(gat_dataset_locate("mine", path, 4), GAT_EINVAL, "the buffer has 4");

    /* unknown: the message lists every place looked in */
    ASSERT_FAILS(gat_dataset_load(&ds, "nosuchdataset", NULL), GAT_EIO,
                 "gat_dataset_load: no dataset 'nosuchdataset': not a path, and not in "
                 "$GAT_DATASETS (");
    ck_assert_ptr_nonnull(strstr(gat_last_error(), root));
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "share/libgat/datasets"));
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "the source tree's ("));
    ASSERT_FAILS(gat_dataset_locate("no/such/dir", path, sizeof path), GAT_EIO,
                 "no dataset 'no/such/dir': neither it nor no/such/dir.content[.gz] exists");

    /* without the variable: the bundled cora (installed copy, else the source tree's) */
    ck_assert_int_eq(unsetenv("GAT_DATASETS"), 0);
    ASSERT_FAILS(gat_dataset_locate("mine", path, sizeof path), GAT_EIO, "$GAT_DATASETS (unset)");
    ck_assert_int_eq(gat_dataset_load(&ds, "cora", NULL), GAT_OK);
    ck_assert_int_eq(ds.n, 2708);
    gat_dataset_destroy(&ds);
    /* a path that exists is used as it is, even a bare one (relative to the working directory) */
    ck_assert_int_eq(chdir(root), 0);
    ck_assert_int_eq(gat_dataset_locate("mine", path, sizeof path), GAT_OK);
    ck_assert_str_eq(path, "mine");
    ck_assert_int_eq(gat_dataset_load(&ds, "mine", &o), GAT_OK);
    ck_assert_int_eq(ds.n, 5);
    gat_dataset_destroy(&ds);
    tu_rmtree(root);
    free(root);
}
END_TEST

Suite *boundary_suite(void)
{
    Suite *s = suite_create("boundary");
    TCase *tc = tcase_create("malformed_features");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_features_column_out_of_range);
    tcase_add_test(tc, test_features_rowptr_past_arrays);
    tcase_add_test(tc, test_features_bad_rowptr);
    tcase_add_test(tc, test_features_not_finite);
    tcase_add_test(tc, test_features_sizes);
    tcase_add_test(tc, test_features_filled_after_init);
    suite_add_tcase(s, tc);
    tc = tcase_create("malformed_graph");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_graph_column_out_of_range);
    tcase_add_test(tc, test_graph_structure);
    tcase_add_test(tc, test_graph_without_self_loops);
    suite_add_tcase(s, tc);
    tc = tcase_create("null_handles");
    tcase_add_test(tc, test_null_value_functions);
    tcase_add_test(tc, test_null_status_functions);
    suite_add_tcase(s, tc);
    tc = tcase_create("settings");
    tcase_add_loop_test(tc, test_adam_fields, 0, (int)(sizeof bad_adam / sizeof *bad_adam));
    tcase_add_test(tc, test_train_config_fields);
    tcase_add_test(tc, test_dataset_fields);
    suite_add_tcase(s, tc);
    tc = tcase_create("model_meta");
    tcase_add_test(tc, test_meta_caller_filled);
    tcase_add_test(tc, test_meta_failed_load);
    suite_add_tcase(s, tc);
    tc = tcase_create("datasets_by_name");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_dataset_by_name);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(boundary_suite());
}
