/* Check suite "metrics": ROC-AUC (src/train/metrics.c) against a hand computation and a
 * brute-force count over every (positive, negative) pair. */
#include "testutil.h"

#include "core/core.h"
#include "train/metrics_i.h"

#include <math.h>

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

int main(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("auc");
    tcase_add_test(tc, auc_by_hand);
    tcase_add_test(tc, auc_brute_force);
    tcase_add_test(tc, auc_of_logits);
    tcase_add_test(tc, auc_errors);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
