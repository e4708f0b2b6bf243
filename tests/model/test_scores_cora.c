/* Check suite: every score function of the attention family trains Cora (the bundled Planetoid
 * split) above 75% test accuracy in a short fixed-seed run with the GAT paper's settings, and the
 * trained model, saved and reloaded, gives bit-identical outputs. GAT_SCORE=NAME runs one score
 * (meson registers one test per score). */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gat_dataset cora;

static void load_cora(void)
{
    ck_assert_int_eq(gat_dataset_load(&cora, tu_dataset("cora"), NULL), GAT_OK);
}

static void free_cora(void)
{
    gat_dataset_destroy(&cora);
}

/* Loop index: score (GAT_SCORE, if set, names the only one to run). 200 epochs at most, patience
 * 100, seed 1, one thread (the suites run in parallel: OpenMP threads would only contend for the
 * cores). The sanitizer run (GAT_TEST_QUICK) trains 20 epochs, the same code on every epoch, and
 * leaves the accuracy to the release run; the save and reload checks stay. */
START_TEST(test_cora)
{
    const gat_score S = (gat_score)_i;
    const char *only = getenv("GAT_SCORE");
    if (only && strcmp(only, gat_score_name(S)) != 0) return;
    gat_model_config mc;
    gat_train_config tc;
    gat_train_result res;
    gat_model *m = NULL, *back = NULL;
    gat_model_config_default(&mc, cora.n_features, cora.n_classes);
    mc.score = S;
    ck_assert_int_eq(tu_model_create(&m, &mc, 1), GAT_OK);
    gat_model_set_threads(m, 1);
    gat_train_config_default(&tc);
    const int quick = getenv("GAT_TEST_QUICK") != NULL;
    tc.max_epochs = quick ? 20 : 200;
    tc.patience = 100;
    ck_assert_int_eq(gat_train(m, &cora, &tc, &res), GAT_OK);
    printf("cora %-10s test %.2f%%  val %.2f%%  best epoch %d of %d  %.2f s (%.1f ms/epoch)\n",
           gat_score_name(S), 100 * res.test_acc, 100 * res.val_acc, res.best_epoch, res.epochs,
           res.seconds, 1e3 * res.seconds / res.epochs);
    fflush(stdout);
    ck_assert_msg(quick || res.test_acc > 0.75, "%s: test accuracy %.4f <= 0.75",
                  gat_score_name(S), res.test_acc);

    /* save, reload: the same configuration and bit-identical outputs */
    char *dir = tu_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.gat", dir, gat_score_name(S));
    ck_assert_int_eq(gat_model_save(m, NULL, path), GAT_OK);
    ck_assert_msg(gat_model_load(&back, NULL, path) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(gat_model_get_config(back)->score, S);
    /* the run-time options are not saved: the reloaded model runs m's kernels when told so */
    ck_assert_int_eq(gat_model_get_config(back)->options.kernels, GAT_KERNELS_AUTO);
    ck_assert_int_eq(gat_model_set_options(back, &gat_model_get_config(m)->options), GAT_OK);
    gat_model_set_threads(back, 1);
    const gat_real *a = NULL, *b = NULL;
    const size_t n = (size_t)cora.n * cora.n_classes;
    ck_assert_int_eq(gat_model_forward(m, &cora.graph, &cora.x, 0, &a), GAT_OK);
    ck_assert_int_eq(gat_model_forward(back, &cora.graph, &cora.x, 0, &b), GAT_OK);
    ck_assert(memcmp(a, b, n * sizeof *a) == 0);
    double loss, acc;
    ck_assert_int_eq(gat_model_evaluate(back, &cora, GAT_SPLIT_TEST, &loss, &acc), GAT_OK);
    ck_assert(acc == res.test_acc);
    gat_model_free(back);
    gat_model_free(m);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *scores_cora_suite(void)
{
    Suite *s = suite_create("scores_cora");
    TCase *tc = tcase_create("cora");
    tcase_add_unchecked_fixture(tc, load_cora, free_cora);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_cora, 0, GAT_SCORE_COUNT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    gat_score s;
    const char *only = getenv("GAT_SCORE");
    if (only && gat_score_from_name(only, &s) != GAT_OK) {
        fprintf(stderr, "GAT_SCORE: %s\n", gat_last_error());
        return EXIT_FAILURE;
    }
    /* gat (the score .ci/run used to run again on other kernels) once per kernel build and
     * alpha storage (tu_variants); the other scores once */
    if (only && strcmp(only, "gat") == 0) return tu_run_variants(scores_cora_suite);
    return tu_run(scores_cora_suite());
}
