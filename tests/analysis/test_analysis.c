/* Check suite "analysis": gat_pca_2d against projections known in closed form (points on a line,
 * on a rotated ellipse), gat_attention_entropy against hand values (uniform attention gives
 * ln(in-degree), one-hot attention 0) and on a trained model's coefficients; bad input and
 * allocation failures. */
#include "testutil.h"

#include "core/core.h"

#include <math.h>
#include <stdlib.h>

/* Points on the line p(t) = c + t u with u = (1, 2, 2) / 3: the first axis is u (its largest
 * component, 2/3, positive), the coordinates are t - mean(t), and nothing is left for the
 * second axis. */
START_TEST(pca_line)
{
    enum { N = 9, D = 3 };
    const double u[D] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, c[D] = {1, -2, 0.5};
    gat_real x[N * D];
    double out[2 * N], var[2], t[N], tmean = 0, tvar = 0;
    for (int i = 0; i < N; i++) {
        t[i] = -2.0 + 0.5 * i;
        tmean += t[i] / N;
        for (int k = 0; k < D; k++) x[i * D + k] = (gat_real)(c[k] + t[i] * u[k]);
    }
    for (int i = 0; i < N; i++) tvar += (t[i] - tmean) * (t[i] - tmean) / N;
    ck_assert_int_eq(gat_pca_2d(x, N, D, out, var), GAT_OK);
    ck_assert_double_eq_tol(var[0], tvar, 1e-5);
    ck_assert_double_eq_tol(var[1], 0, 1e-5);
    for (int i = 0; i < N; i++) {
        ck_assert_double_eq_tol(out[2 * i], t[i] - tmean, 1e-5);
        ck_assert_double_eq_tol(out[2 * i + 1], 0, 1e-5);
    }
}
END_TEST

/* An ellipse with semi-axes a > b, rotated by phi and shifted, sampled at N equal angles: the
 * covariance is R diag(a^2/2, b^2/2) R^T, so the variances are a^2/2 and b^2/2 and each point
 * projects to (+-a cos theta, +-b sin theta), the signs fixed by the axes' convention. A fourth
 * constant dimension changes nothing. */
START_TEST(pca_ellipse)
{
    enum { N = 64, D = 4 };
    const double a = 3, b = 1, phi = 0.5236, pi = 3.14159265358979323846;
    gat_real x[N * D];
    double out[2 * N], var[2], th[N];
    for (int i = 0; i < N; i++) {
        th[i] = 2 * pi * i / N;
        const double p = a * cos(th[i]), q = b * sin(th[i]);
        x[i * D + 0] = (gat_real)(cos(phi) * p - sin(phi) * q + 10);
        x[i * D + 1] = (gat_real)(sin(phi) * p + cos(phi) * q - 3);
        x[i * D + 2] = 0;
        x[i * D + 3] = 7;
    }
    ck_assert_int_eq(gat_pca_2d(x, N, D, out, var), GAT_OK);
    ck_assert_double_eq_tol(var[0], a * a / 2, 1e-4);
    ck_assert_double_eq_tol(var[1], b * b / 2, 1e-4);
    /* axis 1 = +-(cos phi, sin phi): cos phi > sin phi, so the sign makes it +(cos, sin) */
    for (int i = 0; i < N; i++) {
        ck_assert_double_eq_tol(out[2 * i], a * cos(th[i]), 1e-4);
        ck_assert_double_eq_tol(fabs(out[2 * i + 1]), b * fabs(sin(th[i])), 1e-4);
    }
    /* the second axis is +-(-sin phi, cos phi), whose largest component cos phi is made positive */
    ck_assert_double_eq_tol(out[2 * (N / 4) + 1], b, 1e-4);
}
END_TEST

/* One dimension: the centred values, a zero second column; one row: all zeros. */
START_TEST(pca_small)
{
    const gat_real x[3] = {1, 2, 6};
    double out[6], var[2];
    ck_assert_int_eq(gat_pca_2d(x, 3, 1, out, var), GAT_OK);
    ck_assert_double_eq_tol(out[0], -2, 1e-9);
    ck_assert_double_eq_tol(out[2], -1, 1e-9);
    ck_assert_double_eq_tol(out[4], 3, 1e-9);
    ck_assert(out[1] == 0 && out[3] == 0 && out[5] == 0);
    ck_assert_double_eq_tol(var[0], 14.0 / 3, 1e-9);
    ck_assert(var[1] == 0);
    ck_assert_int_eq(gat_pca_2d(x, 1, 3, out, NULL), GAT_OK);
    ck_assert(out[0] == 0 && out[1] == 0);
}
END_TEST

START_TEST(pca_bad_input)
{
    gat_real x[4] = {1, 2, 3, NAN};
    double out[4];
    ASSERT_FAILS(gat_pca_2d(NULL, 2, 2, out, NULL), GAT_EINVAL, "gat_pca_2d: NULL x");
    ASSERT_FAILS(gat_pca_2d(x, 2, 2, NULL, NULL), GAT_EINVAL, "gat_pca_2d: NULL out");
    ASSERT_FAILS(gat_pca_2d(x, 0, 2, out, NULL), GAT_EINVAL, "n = 0 rows of d = 2 values");
    ASSERT_FAILS(gat_pca_2d(x, 2, 0, out, NULL), GAT_EINVAL, "expected at least 1 of each");
    ASSERT_FAILS(gat_pca_2d(x, 2, 2, out, NULL), GAT_ENUMERIC, "x[1][1] = nan is not finite");
}
END_TEST

START_TEST(pca_alloc_failure)
{
    const gat_real x[6] = {1, 2, 3, 5, 8, 13};
    double out[6];
    long k = 0;
    for (;; k++) {
        gat_i_alloc_fail_at(k);
        gat_status st = gat_pca_2d(x, 3, 2, out, NULL);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
    }
    ck_assert_int_eq(gat_i_alloc_fail_at(-1), k);
    ck_assert_int_ge(k, 5); /* mean, covariance, vectors, values, two workspaces */
}
END_TEST

/* Uniform attention over each node's in-edges has entropy ln(in-degree) in every head;
 * one-hot attention has 0; a node with coefficients 1/4 and 3/4 has the hand value. */
START_TEST(entropy_values)
{
    gat_graph g;
    tu_graph_small(&g, 0);
    enum { H = 2 };
    gat_real *alpha = malloc((size_t)g.nnz * H * sizeof *alpha);
    double *ent = malloc((size_t)g.n * H * sizeof *ent), *uni = malloc((size_t)g.n * sizeof *uni);
    ck_assert(alpha && ent && uni);
    for (gat_idx i = 0; i < g.n; i++) {
        const gat_idx deg = g.rowptr[i + 1] - g.rowptr[i];
        for (gat_idx e = g.rowptr[i]; e < g.rowptr[i + 1]; e++) {
            alpha[e * H + 0] = (gat_real)(1.0 / deg);                 /* uniform */
            alpha[e * H + 1] = e == g.rowptr[i] ? (gat_real)1 : 0;   /* one-hot */
        }
    }
    ck_assert_int_eq(gat_attention_entropy(&g, alpha, H, ent, uni), GAT_OK);
    for (gat_idx i = 0; i < g.n; i++) {
        const gat_idx deg = g.rowptr[i + 1] - g.rowptr[i];
        ck_assert_double_eq_tol(uni[i], deg ? log((double)deg) : 0, 1e-12);
        ck_assert_double_eq_tol(ent[i * H + 0], uni[i], 1e-6);
        ck_assert(ent[i * H + 1] == 0);
    }
    /* node 5 hears node 0 and itself: 1/4 and 3/4 */
    ck_assert_int_eq(g.rowptr[6] - g.rowptr[5], 2);
    alpha[g.rowptr[5] * H] = 0.25f;
    alpha[(g.rowptr[5] + 1) * H] = 0.75f;
    ck_assert_int_eq(gat_attention_entropy(&g, alpha, H, ent, NULL), GAT_OK);
    ck_assert_double_eq_tol(ent[5 * H], -(0.25 * log(0.25) + 0.75 * log(0.75)), 1e-7);
    free(alpha);
    free(ent);
    free(uni);
    gat_graph_destroy(&g);
}
END_TEST

/* A model's attention (trained or not) is a distribution per node and head: its entropy lies in
 * [0, ln(in-degree)]. */
START_TEST(entropy_of_a_model)
{
    gat_dataset ds;
    ck_assert_int_eq(gat_dataset_load(&ds, tu_data("tiny"), NULL), GAT_OK);
    gat_model_config mc;
    gat_model *m = NULL;
    gat_model_config_default(&mc, ds.n_features, ds.n_classes);
    ck_assert_int_eq(gat_model_create(&m, &mc, 5), GAT_OK);
    gat_model_set_threads(m, 1);
    for (gat_idx l = 0; l < gat_model_layer_count(m); l++) {
        const gat_idx H = gat_model_layer_heads(m, l);
        gat_real *alpha = malloc((size_t)ds.graph.nnz * (size_t)H * sizeof *alpha);
        double *ent = malloc((size_t)ds.n * (size_t)H * sizeof *ent);
        double *uni = malloc((size_t)ds.n * sizeof *uni);
        ck_assert(alpha && ent && uni);
        ck_assert_int_eq(gat_model_attention_copy(m, &ds.graph, &ds.x, l, alpha), GAT_OK);
        ck_assert_int_eq(gat_attention_entropy(&ds.graph, alpha, H, ent, uni), GAT_OK);
        for (gat_idx i = 0; i < ds.n; i++)
            for (gat_idx h = 0; h < H; h++) {
                ck_assert(ent[i * H + h] >= 0);
                ck_assert(ent[i * H + h] <= uni[i] + 1e-5);
            }
        free(alpha);
        free(ent);
        free(uni);
    }
    gat_model_free(m);
    gat_dataset_destroy(&ds);
}
END_TEST

START_TEST(entropy_bad_input)
{
    gat_graph g;
    tu_graph_small(&g, 0);
    gat_real *alpha = calloc((size_t)g.nnz, sizeof *alpha);
    double *ent = calloc((size_t)g.n, sizeof *ent);
    ck_assert(alpha && ent);
    ASSERT_FAILS(gat_attention_entropy(NULL, alpha, 1, ent, NULL), GAT_EINVAL, "NULL graph g");
    ASSERT_FAILS(gat_attention_entropy(&g, NULL, 1, ent, NULL), GAT_EINVAL, "NULL alpha");
    ASSERT_FAILS(gat_attention_entropy(&g, alpha, 1, NULL, NULL), GAT_EINVAL, "NULL entropy");
    ASSERT_FAILS(gat_attention_entropy(&g, alpha, 0, ent, NULL), GAT_EINVAL, "heads = 0");
    alpha[3] = -0.5f;
    ent[0] = 42;
    ASSERT_FAILS(gat_attention_entropy(&g, alpha, 1, ent, NULL), GAT_EINVAL,
                 "head 0, is -0.5: not a probability");
    ck_assert(ent[0] == 42); /* outputs untouched on failure */
    alpha[3] = NAN;
    ASSERT_FAILS(gat_attention_entropy(&g, alpha, 1, ent, NULL), GAT_EINVAL, "not a probability");
    free(alpha);
    free(ent);
    gat_graph_destroy(&g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("analysis");
    TCase *tc = tcase_create("pca");
    tcase_add_test(tc, pca_line);
    tcase_add_test(tc, pca_ellipse);
    tcase_add_test(tc, pca_small);
    tcase_add_test(tc, pca_bad_input);
    tcase_add_test(tc, pca_alloc_failure);
    suite_add_tcase(s, tc);
    tc = tcase_create("entropy");
    tcase_add_test(tc, entropy_values);
    tcase_add_test(tc, entropy_of_a_model);
    tcase_add_test(tc, entropy_bad_input);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
