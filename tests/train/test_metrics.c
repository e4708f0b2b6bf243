/* Check suite "metrics": ROC-AUC (src/train/metrics.c) against a hand computation and a
 * brute-force count over every (positive, negative) pair; macro-F1 by hand. */
#include "testutil.h"

#include "core/core.h"
#include "train/metrics_i.h"

#include <math.h>
#include <stdlib.h>

/* Three positives and four negatives with a tie across the classes, counted by hand; and the
 * extremes: a perfect ranking, one score for all, the reverse ranking. */
START_TEST(auc_by_hand)
{
    const double s[] = {0.9, 0.8, 0.5, 0.7, 0.5, 0.1, 0.35};
    const uint8_t y[] = {1, 0, 1, 0, 0, 0, 1};
    double auc = -1;
    ck_assert_int_eq(gat_roc_auc(s, y, 7, &auc), GAT_OK);
    /* positives 0.9, 0.5, 0.35; negatives 0.8, 0.7, 0.5, 0.1: 4 + 1.5 + 1 = 6.5 of 12 */
    ck_assert_double_eq_tol(auc, 6.5 / 12, 1e-15);
    const uint8_t perfect[] = {1, 1, 1, 0, 0, 0, 0};
    const double ranked[] = {3, 2, 1, 0, -1, -2, -3};
    ck_assert_int_eq(gat_roc_auc(ranked, perfect, 7, &auc), GAT_OK);
    ck_assert(auc == 1);
    const double flat[] = {1, 1, 1, 1, 1, 1, 1};
    ck_assert_int_eq(gat_roc_auc(flat, perfect, 7, &auc), GAT_OK);
    ck_assert(auc == 0.5);
    const double reversed[] = {-3, -2, -1, 0, 1, 2, 3};
    ck_assert_int_eq(gat_roc_auc(reversed, perfect, 7, &auc), GAT_OK);
    ck_assert(auc == 0);
}
END_TEST

/* Every pair counted: scores on a coarse grid so that ties are frequent, a fixed sequence. */
START_TEST(auc_brute_force)
{
    enum { N = 997 };
    static double s[N];
    static uint8_t y[N];
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        s[i] = (double)((x >> 33) % 41) / 8 - 2;
        y[i] = ((x >> 20) % 3 == 0) || (s[i] > 1.5 && (x >> 40) % 2);
    }
    double wins = 0, pairs = 0, auc;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (y[i] && !y[j]) {
                pairs++;
                wins += s[i] > s[j] ? 1 : s[i] == s[j] ? 0.5 : 0;
            }
    ck_assert_int_eq(gat_roc_auc(s, y, N, &auc), GAT_OK);
    ck_assert_double_eq_tol(auc, wins / pairs, 1e-14);
    ck_assert(auc > 0.5 && auc < 1);
}
END_TEST

/* Two-class logits over rows: the score is logit 1 - logit 0; other rows are not read. */
START_TEST(auc_of_logits)
{
    const gat_real z[] = {0, 2, /* pos, 2 */ 1, 0, /* neg, -1 */ 9, 9, /* not a row */
                          0, 1, /* neg, 1 */ 3, 1 /* pos, -2 */};
    const gat_idx labels[] = {1, 0, 7, 0, 1}, rows[] = {0, 1, 3, 4};
    double auc = -1;
    ck_assert_int_eq(gat_i_auc_logits(z, labels, rows, 4, &auc), GAT_OK);
    /* positives 2, -2 against negatives -1, 1: 2 of 4 */
    ck_assert(auc == 0.5);
    const gat_idx bad[] = {0, 1, 2};
    ASSERT_FAILS(gat_i_auc_logits(z, labels, bad, 3, &auc), GAT_EINVAL,
                 "node 2 has label 7, expected 0 or 1");
}
END_TEST

START_TEST(auc_errors)
{
    const double s[] = {1, NAN, 0};
    const uint8_t y[] = {1, 0, 0}, one[] = {1, 1, 1};
    double auc = 7;
    ASSERT_FAILS(gat_roc_auc(NULL, y, 3, &auc), GAT_EINVAL, "gat_roc_auc: NULL score");
    ASSERT_FAILS(gat_roc_auc(s, y, 3, NULL), GAT_EINVAL, "gat_roc_auc: NULL auc");
    ASSERT_FAILS(gat_roc_auc(s, y, -1, &auc), GAT_EINVAL, "gat_roc_auc: n = -1, expected n >= 0");
    ASSERT_FAILS(gat_roc_auc(s, y, 3, &auc), GAT_ENUMERIC,
                 "gat_roc_auc: score 1 is nan, expected a finite value");
    const double f[] = {1, 2, 3};
    ASSERT_FAILS(gat_roc_auc(f, one, 3, &auc), GAT_EINVAL,
                 "gat_roc_auc: 3 positive and 0 negative examples; the ROC-AUC needs at least "
                 "one of each");
    ASSERT_FAILS(gat_roc_auc(f, y, 0, &auc), GAT_EINVAL, "0 positive and 0 negative");
    ck_assert(auc == 7);
    gat_i_alloc_fail_at(0);
    ck_assert_int_eq(gat_roc_auc(f, y, 3, &auc), GAT_ENOMEM);
    gat_i_alloc_fail_at(-1);
    ck_assert(auc == 7);
}
END_TEST

/* Cora made binary (class 3 against the rest), for the trainer's AUC paths. */
static gat_dataset binary;
static gat_idx *binary_labels;
static gat_dataset cora;

static void load_binary(void)
{
    if (binary_labels) return;
    ck_assert_int_eq(gat_dataset_load(&cora, tu_dataset("cora"), NULL), GAT_OK);
    binary = cora; /* shallow: the trainer reads graph, features, labels and split */
    ck_assert_ptr_nonnull(binary_labels = malloc((size_t)cora.n * sizeof *binary_labels));
    for (gat_idx i = 0; i < cora.n; i++)
        binary_labels[i] = cora.labels[i] == 3;
    binary.labels = binary_labels;
    binary.n_classes = 2;
}

typedef struct aucs {
    double best;
    gat_idx best_epoch, epochs;
    int nan_seen;
} aucs;

static int record_auc(const gat_epoch_info *e, void *user)
{
    aucs *a = user;
    if (isnan(e->val_auc)) a->nan_seen = 1;
    if (e->val_auc > a->best) a->best = e->val_auc, a->best_epoch = e->epoch;
    a->epochs = e->epoch;
    ck_assert_int_eq(e->best_epoch, a->best_epoch); /* kept: the first epoch of the best AUC */
    return 0;
}

/* ROC-AUC of the model's test logits, by gat_roc_auc. */
static double test_auc(gat_model *m, const gat_dataset *ds)
{
    const gat_real *z;
    double *s = malloc((size_t)ds->n * sizeof *s), auc = -1;
    uint8_t *y = malloc((size_t)ds->n);
    gat_idx n = 0;
    ck_assert_int_eq(gat_model_forward(m, &ds->graph, &ds->x, 0, &z), GAT_OK);
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->split[i] == GAT_SPLIT_TEST) {
            s[n] = (double)z[2 * i + 1] - (double)z[2 * i];
            y[n++] = (uint8_t)ds->labels[i];
        }
    ck_assert_int_eq(gat_roc_auc(s, y, n, &auc), GAT_OK);
    free(s);
    free(y);
    return auc;
}

/* Early stopping on the validation ROC-AUC: the restored model is the first of the best AUC,
 * patience counts from it, and the reported AUCs are the restored model's. */
START_TEST(train_on_auc)
{
    load_binary();
    gat_model_config mc;
    gat_model *m;
    gat_model_config_default(&mc, binary.n_features, 2);
    ck_assert_int_eq(gat_model_create(&m, &mc, 5), GAT_OK);
    gat_model_set_threads(m, 1);
    gat_train_config tc;
    gat_train_result res;
    aucs a = {.best = -1};
    gat_train_config_default(&tc);
    tc.metric = GAT_METRIC_AUC;
    tc.patience = 10;
    tc.max_epochs = 60;
    tc.progress = record_auc;
    tc.user = &a;
    ck_assert_int_eq(gat_train(m, &binary, &tc, &res), GAT_OK);
    ck_assert(!a.nan_seen);
    ck_assert_int_eq(res.best_epoch, a.best_epoch);
    ck_assert(res.epochs == tc.max_epochs || res.epochs == a.best_epoch + tc.patience);
    ck_assert_double_eq_tol(res.val_auc, a.best, 1e-12);
    ck_assert_double_eq_tol(res.test_auc, test_auc(m, &binary), 1e-12);
    ck_assert_double_gt(res.test_auc, 0.8);
    gat_model_free(m);
}
END_TEST

/* The configuration's metric is checked; an AUC needs two classes, and a model of other than
 * two reports NaN AUCs. */
START_TEST(train_metric_errors)
{
    load_binary();
    gat_model_config mc;
    gat_model *m;
    gat_model_config_default(&mc, binary.n_features, 2);
    ck_assert_int_eq(gat_model_create(&m, &mc, 5), GAT_OK);
    gat_train_config tc;
    gat_train_config_default(&tc);
    tc.metric = (gat_metric)7;
    ASSERT_FAILS(gat_train(m, &binary, &tc, NULL), GAT_EINVAL,
                 "gat_train: metric = 7, expected GAT_METRIC_ACC, GAT_METRIC_AUC or "
                 "GAT_METRIC_LOSS");
    gat_model_free(m);
    gat_model_config_default(&mc, cora.n_features, cora.n_classes);
    ck_assert_int_eq(gat_model_create(&m, &mc, 5), GAT_OK);
    tc.metric = GAT_METRIC_AUC;
    ASSERT_FAILS(gat_train(m, &cora, &tc, NULL), GAT_EINVAL,
                 "gat_train: metric = GAT_METRIC_AUC (ROC-AUC) needs a two-class model, this one "
                 "predicts 7 classes");
    tc.metric = GAT_METRIC_LOSS;
    tc.max_epochs = 2;
    gat_train_result res;
    ck_assert_int_eq(gat_train(m, &cora, &tc, &res), GAT_OK);
    ck_assert(isnan(res.val_auc) && isnan(res.test_auc));
    gat_model_free(m);
    gat_metric v;
    ck_assert_int_eq(gat_metric_from_name("AUC", &v), GAT_OK);
    ck_assert_int_eq(v, GAT_METRIC_AUC);
    ck_assert_str_eq(gat_metric_name(GAT_METRIC_LOSS), "loss");
    ASSERT_FAILS(gat_metric_from_name("f1", &v), GAT_EINVAL,
                 "unknown metric 'f1' (expected acc, auc or loss)");
}
END_TEST

/* Macro-F1 by hand (scikit-learn's f1_score(average="macro") gives 0.6556 on these): class 0
 * F1 1/2, class 1 2/3, class 2 4/5; class 3 occurs nowhere and is left out. */
START_TEST(macro_f1_by_hand)
{
    const gat_idx y[] = {0, 0, 1, 2, 2, 2}, p[] = {0, 1, 1, 2, 2, 0}, bad[] = {0, 1, 4, 2, 2, 0};
    double f1 = -1;
    ck_assert_int_eq(gat_macro_f1(y, p, 6, 4, &f1), GAT_OK);
    ck_assert_double_eq_tol(f1, (0.5 + 2.0 / 3 + 0.8) / 3, 1e-15);
    ck_assert_int_eq(gat_macro_f1(y, y, 6, 3, &f1), GAT_OK);
    ck_assert(f1 == 1);
    ASSERT_FAILS(gat_macro_f1(y, bad, 6, 4, &f1), GAT_EINVAL, "pred[2] = 4 outside 0..3");
    ASSERT_FAILS(gat_macro_f1(y, p, 0, 4, &f1), GAT_EINVAL, "n = 0");
    ASSERT_FAILS(gat_macro_f1(NULL, p, 6, 4, &f1), GAT_EINVAL, "labels");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("auc");
    tcase_add_test(tc, auc_by_hand);
    tcase_add_test(tc, auc_brute_force);
    tcase_add_test(tc, auc_of_logits);
    tcase_add_test(tc, auc_errors);
    tcase_add_test(tc, macro_f1_by_hand);
    suite_add_tcase(s, tc);
    TCase *tt = tcase_create("train");
    tcase_set_timeout(tt, 600);
    tcase_add_test(tt, train_on_auc);
    tcase_add_test(tt, train_metric_errors);
    suite_add_tcase(s, tt);
    const int rc = tu_run(s);
    free(binary_labels);
    if (binary_labels) gat_dataset_destroy(&cora);
    return rc;
}
