/* Check suite of src/model in the float build: creation and configuration errors, the parameter
 * table, seeding, determinism across repeats and thread counts, restricted outputs, dropout
 * steps, and allocation failures. */
#include "testutil.h"
#include "core/core.h"
#include "layers/layers.h"
#include "model/model_i.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static const gat_idx F = 40, C = 5;
static const double TOL = 1e-5;

/* A skewed graph (hub of degree 200, 300 other nodes, an isolated node) with sparse,
 * row-normalised features. */
typedef struct fixture {
    gat_graph g;
    gat_csr x;
    gat_model_config cfg;
} fixture;

static void fixture_init(fixture *f)
{
    tu_graph_skewed(&f->g, 200, 300, GAT_GRAPH_SYMMETRIZE, 7);
    tu_features(&f->x, f->g.n, F, 0.1, 8);
    gat_csr_normalize_rows(&f->x);
    gat_model_config_default(&f->cfg, F, C);
    f->cfg.heads = 4;
    f->cfg.hidden = 8;
    f->cfg.out_heads = 2;
}

static void fixture_free(fixture *f)
{
    gat_graph_destroy(&f->g);
    gat_csr_destroy(&f->x);
}

static gat_model *create(const gat_model_config *cfg, uint64_t seed)
{
    gat_model *m = NULL;
    ck_assert_int_eq(tu_model_create(&m, cfg, seed), GAT_OK);
    ck_assert_ptr_nonnull(m);
    return m;
}

/* A malloc'd copy of f's (N, C) logits, each checked finite. */
static gat_real *copy_logits(const fixture *f, const gat_real *logits)
{
    const size_t n = (size_t)f->g.n * C;
    ck_assert_ptr_nonnull(logits);
    gat_real *copy = malloc(n * sizeof *copy);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, logits, n * sizeof *copy);
    for (size_t k = 0; k < n; k++)
        ck_assert_msg(isfinite(copy[k]), "logit %zu = %g", k, copy[k]);
    return copy;
}

/* The logits of a forward of run r on f restricted to rows (n_rows of them; NULL: all), copied. */
static gat_real *forward_run(gat_model *m, const fixture *f, const gat_idx *rows, gat_idx n_rows,
                             const gat_i_run *r)
{
    const gat_real *logits = NULL;
    const gat_i_binding b = {.g = &f->g, .x = &f->x, .rows = rows, .n_rows = n_rows};
    ck_assert_int_eq(gat_i_model_forward(m, &b, r, &logits), GAT_OK);
    return copy_logits(f, logits);
}

/* gat_model_forward's logits, copied. */
static gat_real *forward_copy(gat_model *m, const fixture *f, int training)
{
    const gat_real *logits = NULL;
    ck_assert_int_eq(gat_model_forward(m, &f->g, &f->x, training, &logits), GAT_OK);
    return copy_logits(f, logits);
}

static void assert_message(const char *needle)
{
    ck_assert_msg(strstr(gat_last_error(), needle) != NULL, "message \"%s\" lacks \"%s\"",
                  gat_last_error(), needle);
}

/* Norm-wise relative difference max |got - want| / max |want|, printed. */
static double compare(const char *what, const gat_real *got, const gat_real *want, size_t n)
{
    size_t at = 0;
    const double err = tu_max_rel_err(got, want, n, tu_max_abs(want, n), &at);
    printf("%-48s max err / max |ref| %.2e (at %zu: %.9g vs %.9g)\n", what, err, at,
           (double)got[at], (double)want[at]);
    fflush(stdout);
    return err;
}

START_TEST(test_create_free)
{
    gat_model_config cfg;
    gat_model_config_default(&cfg, F, C);
    /* the GAT paper's Cora setup */
    ck_assert_int_eq(cfg.in_features, F);
    ck_assert_int_eq(cfg.classes, C);
    ck_assert_int_eq(cfg.layers, 2);
    ck_assert_int_eq(cfg.hidden, 8);
    ck_assert_int_eq(cfg.heads, 8);
    ck_assert_int_eq(cfg.out_heads, 1);
    ck_assert(cfg.negative_slope == 0.2 && cfg.in_dropout == 0.6 && cfg.att_dropout == 0.6);
    ck_assert_int_eq(cfg.score, GAT_SCORE_GAT);
    ck_assert_int_eq(gat_model_config_check(&cfg), GAT_OK);

    gat_model *m = create(&cfg, 1);
    ck_assert_str_eq(gat_last_error(), "");
    const gat_model_config *got = gat_model_get_config(m);
    ck_assert_int_eq(got->in_features, F);
    ck_assert_int_eq(got->classes, C);
    ck_assert_int_eq(got->layers, cfg.layers);
    ck_assert_int_eq(got->heads, cfg.heads);
    ck_assert_int_eq(got->hidden, cfg.hidden);
    ck_assert_int_eq(got->out_heads, cfg.out_heads);
    ck_assert(got->in_dropout == cfg.in_dropout && got->att_dropout == cfg.att_dropout);
    gat_model_free(m);
    gat_model_free(NULL);

    ck_assert_int_eq(tu_model_create(NULL, &cfg, 1), GAT_EINVAL);
    assert_message("out");
    m = (gat_model *)&cfg; /* not NULL: a failure must reset it */
    ck_assert_int_eq(tu_model_create(&m, NULL, 1), GAT_EINVAL);
    ck_assert_ptr_null(m);
    assert_message("NULL");
    ck_assert_int_eq(gat_model_config_check(NULL), GAT_EINVAL);
}
END_TEST

/* Breaks one field of a valid config; returns the word the message must contain. */
static const char *break_config(int k, gat_model_config *c)
{
    switch (k) {
    case 0:
        c->in_features = 0;
        return "in_features";
    case 1:
        c->in_features = -3;
        return "in_features";
    case 2:
        c->classes = 0;
        return "classes";
    case 3:
        c->layers = 0;
        return "layers";
    case 4:
        c->layers = GAT_MAX_LAYERS + 1;
        return "layers";
    case 5:
        c->hidden = 0;
        return "hidden";
    case 6:
        c->heads = -1;
        return "heads";
    case 7:
        c->out_heads = 0;
        return "out_heads";
    case 8:
        c->heads = 200, c->hidden = 1 << 13; /* width above 2^20 */
        return "hidden";
    case 9:
        c->out_heads = 200, c->classes = 1 << 13;
        return "out_heads";
    case 10:
        c->in_dropout = 1;
        return "in_dropout";
    case 11:
        c->in_dropout = -0.1;
        return "in_dropout";
    case 12:
        c->in_dropout = NAN;
        return "in_dropout";
    case 13:
        c->att_dropout = 1.5;
        return "att_dropout";
    case 14:
        c->negative_slope = -0.1;
        return "negative_slope";
    case 15:
        c->negative_slope = INFINITY;
        return "negative_slope";
    case 16:
        c->score = (gat_score)1000; /* no such score function */
        return "score";
    case 17: /* more heads than the fused kernels take */
        c->heads = GAT_I_MAX_HEADS + 1, c->hidden = 1;
        return "heads";
    case 18:
        c->out_heads = GAT_I_MAX_HEADS + 1;
        return "out_heads";
    case 19:
        c->head_dropout = 2;
        return "head_dropout must be 0 or 1";
    case 20: /* a mask per head with residual connections: not supported */
        c->head_dropout = 1, c->residual = 1;
        return "head_dropout 1 with residual 1";
    case 21:
        c->proj_dropout = 1;
        return "proj_dropout must be in [0, 1)";
    case 22:
        c->proj_dropout = NAN;
        return "proj_dropout";
    case 23: /* the reference code's placement is gat's */
        c->proj_dropout = 0.5, c->score = GAT_SCORE_GATV2;
        return "need the gat score";
    case 24:
        c->score_bias = 2;
        return "score_bias must be 0 or 1";
    case 25:
        c->score_bias = 1, c->score = GAT_SCORE_DOT;
        return "score_bias needs the gat score (the bias of its score halves), got the dot score";
    case 26:
        c->whole_scores = 2;
        return "whole_scores must be 0 or 1, got 2";
    case 27:
        c->whole_scores = 1, c->score = GAT_SCORE_GATV2;
        return "whole_scores needs the gat score (its score halves' vectors), got the gatv2 score";
    }
    return NULL;
}
enum { N_BAD_CONFIGS = 28 };

START_TEST(test_config_errors)
{
    gat_model_config cfg;
    gat_model_config_default(&cfg, F, C);
    const char *field = break_config(_i, &cfg);
    ck_assert_ptr_nonnull(field);
    ck_assert_int_eq(gat_model_config_check(&cfg), GAT_EINVAL);
    assert_message(field);
    gat_model *m = (gat_model *)&cfg;
    ck_assert_int_eq(tu_model_create(&m, &cfg, 1), GAT_EINVAL);
    ck_assert_ptr_null(m);
    assert_message(field);
}
END_TEST

START_TEST(test_config_one_layer)
{
    /* a single (output) layer has no hidden layer: hidden and heads are not used */
    gat_model_config cfg;
    gat_model_config_default(&cfg, F, C);
    cfg.layers = 1;
    cfg.hidden = 0;
    cfg.heads = 0;
    ck_assert_int_eq(gat_model_config_check(&cfg), GAT_OK);
}
END_TEST

/* The most heads the fused kernels take, in both kinds of layer (run under ASan). */
START_TEST(test_max_heads)
{
    fixture f;
    fixture_init(&f);
    f.cfg.heads = GAT_I_MAX_HEADS;
    f.cfg.hidden = 1;
    f.cfg.out_heads = GAT_I_MAX_HEADS;
    gat_model *m = create(&f.cfg, 61);
    gat_real *d = calloc((size_t)f.g.n * C, sizeof *d);
    ck_assert_ptr_nonnull(d);
    tu_uniform(d, (size_t)f.g.n * C, -1, 1, 62);
    free(forward_copy(m, &f, 1));
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    size_t P;
    const gat_real *grads = gat_model_grads(m, &P);
    for (size_t k = 0; k < P; k++)
        ck_assert(isfinite(grads[k]));
    ck_assert(tu_max_abs(grads, P) > 0);
    free(d);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

START_TEST(test_forward_errors)
{
    fixture f;
    fixture_init(&f);
    gat_model *m = create(&f.cfg, 1);
    const gat_real *logits = NULL;
    gat_csr bad;

    tu_features(&bad, f.g.n + 1, F, 0.1, 9);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &bad, 0, &logits), GAT_EDIM);
    assert_message("rows");
    gat_csr_destroy(&bad);
    tu_features(&bad, f.g.n, F + 1, 0.1, 9);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &bad, 1, &logits), GAT_EDIM);
    assert_message("columns");
    gat_csr_destroy(&bad);
    ck_assert_ptr_null(logits);

    ck_assert_int_eq(gat_model_forward(NULL, &f.g, &f.x, 0, &logits), GAT_EINVAL);
    ck_assert_int_eq(gat_model_forward(m, NULL, &f.x, 0, &logits), GAT_EINVAL);
    ck_assert_int_eq(gat_model_forward(m, &f.g, NULL, 0, &logits), GAT_EINVAL);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, NULL), GAT_EINVAL);
    assert_message("NULL");
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
    ck_assert_str_eq(gat_last_error(), "");
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

START_TEST(test_backward_errors)
{
    fixture f;
    fixture_init(&f);
    gat_model *m = create(&f.cfg, 1);
    gat_real *d = calloc((size_t)f.g.n * C, sizeof *d), *logits;

    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_EINVAL); /* no forward at all */
    assert_message("training forward");
    free(forward_copy(m, &f, 0));
    ck_assert_int_eq(gat_model_backward(m, d), GAT_EINVAL); /* an inference forward */
    assert_message("training forward");
    free(forward_copy(m, &f, 1));
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    ck_assert_int_eq(gat_model_backward(m, NULL), GAT_EINVAL);
    ck_assert_int_eq(gat_model_backward(NULL, d), GAT_EINVAL);
    logits = forward_copy(m, &f, 0); /* inference again replaces the training caches */
    ck_assert_int_eq(gat_model_backward(m, d), GAT_EINVAL);
    free(logits);
    free(d);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

/* Loop index: layers = 1 + _i. */
START_TEST(test_param_table)
{
    gat_model_config cfg;
    gat_model_config_default(&cfg, F, C);
    cfg.layers = 1 + _i;
    cfg.heads = 3;
    cfg.hidden = 6;
    cfg.out_heads = 2;
    gat_model *m = create(&cfg, 5);
    int count = -1;
    size_t P = 0, G = 0, off = 0;
    const gat_model_tensor *t = gat_model_tensors(m, &count);
    gat_real *params = gat_model_params(m, &P), *grads = gat_model_grads(m, &G);

    ck_assert_int_eq(count, 4 * cfg.layers);
    ck_assert_uint_eq(P, G);
    ck_assert(grads >= params + P || grads + G <= params); /* no overlap */
    for (int l = 0; l < cfg.layers; l++) {
        const int last = l == cfg.layers - 1;
        const gat_idx fin = l == 0 ? F : cfg.heads * cfg.hidden;
        const gat_idx fo = last ? C : cfg.hidden, heads = last ? cfg.out_heads : cfg.heads;
        const gat_idx width = last ? C : heads * fo;
        const char *kinds[4] = {"weight", "att_src", "att_dst", "bias"};
        const gat_idx shapes[4][2] = {{fin, heads * fo}, {heads, fo}, {heads, fo}, {width, 0}};
        for (int q = 0; q < 4; q++) {
            const gat_model_tensor *x = &t[4 * l + q];
            char name[32];
            snprintf(name, sizeof name, "layer%d.%s", l, kinds[q]);
            ck_assert_str_eq(x->name, name);
            ck_assert_int_eq(x->ndim, q == 3 ? 1 : 2);
            ck_assert_int_eq(x->shape[0], shapes[q][0]);
            if (q < 3) ck_assert_int_eq(x->shape[1], shapes[q][1]);
            ck_assert_uint_eq(x->size, (size_t)shapes[q][0] * (q < 3 ? (size_t)shapes[q][1] : 1));
            ck_assert_uint_eq(x->offset, off); /* contiguous, in table order */
            off += x->size;
            /* initial values: Glorot-uniform weights and attention vectors, zero biases */
            const gat_real *v = params + x->offset;
            const double lim = q == 0 ? sqrt(6.0 / (fin + fo)) : sqrt(6.0 / (fo + 1));
            double sumsq = 0, maxsq = 0;
            for (size_t k = 0; k < x->size; k++) {
                if (q == 3)
                    ck_assert(v[k] == 0);
                else
                    ck_assert_msg(fabs(v[k]) <= lim, "%s[%zu] = %g outside +-%g", name, k,
                                  (double)v[k], lim);
                sumsq += (double)v[k] * v[k];
                maxsq = fmax(maxsq, (double)v[k] * v[k]);
            }
            /* the largest of >= 10 uniform values in +-lim exceeds lim / 2 (but for 2^-10) */
            if (q < 3 && x->size >= 10)
                ck_assert_msg(sqrt(maxsq) > lim / 2, "%s: max |v| %g, bound %g", name, sqrt(maxsq),
                              lim);
            /* uniform in +-lim has mean square lim^2 / 3 (checked where the sample is large
             * enough for +-50%: about 3 standard deviations at 30 values) */
            if (q < 3 && x->size >= 30)
                ck_assert_msg(fabs(sumsq / (double)x->size - lim * lim / 3) < 0.5 * lim * lim / 3,
                              "%s: mean square %g, expected about %g", name,
                              sumsq / (double)x->size, lim * lim / 3);
        }
    }
    ck_assert_uint_eq(off, P);
    for (size_t k = 0; k < G; k++)
        ck_assert(grads[k] == 0);
    gat_model_free(m);
}
END_TEST

START_TEST(test_seed)
{
    fixture f;
    fixture_init(&f);
    gat_model *a = create(&f.cfg, 42), *b = create(&f.cfg, 42), *c = create(&f.cfg, 43);
    size_t P;
    const gat_real *pa = gat_model_params(a, &P), *pb = gat_model_params(b, NULL);
    const gat_real *pc = gat_model_params(c, NULL);
    ck_assert(memcmp(pa, pb, P * sizeof *pa) == 0);
    size_t differ = 0, nonzero = 0;
    for (size_t k = 0; k < P; k++) {
        differ += pa[k] != pc[k];
        nonzero += pa[k] != 0;
    }
    ck_assert_uint_eq(differ, nonzero); /* all but the zero biases */
    gat_real *la = forward_copy(a, &f, 0), *lb = forward_copy(b, &f, 0);
    ck_assert(memcmp(la, lb, (size_t)f.g.n * C * sizeof *la) == 0);
    free(la);
    free(lb);
    gat_model_free(a);
    gat_model_free(b);
    gat_model_free(c);
    fixture_free(&f);
}
END_TEST

START_TEST(test_inference_threads)
{
    fixture f;
    fixture_init(&f);
    const size_t n = (size_t)f.g.n * C;
    gat_model *m = create(&f.cfg, 3);
    size_t P = 0;
    gat_real *params = gat_model_params(m, &P);
    tu_uniform(params, P, -0.5, 0.5, 4); /* non-zero biases too */
    const uint64_t step = gat_i_model_step(m);

    gat_model_set_threads(m, 1);
    gat_real *one = forward_copy(m, &f, 0), *again = forward_copy(m, &f, 0);
    ck_assert(memcmp(one, again, n * sizeof *one) == 0);
    free(again);
    gat_model_set_threads(m, 2);
    gat_real *two = forward_copy(m, &f, 0);
    again = forward_copy(m, &f, 0);
    ck_assert(memcmp(two, again, n * sizeof *two) == 0);
    free(again);
    ck_assert(compare("inference nt=2 vs nt=1", two, one, n) <= TOL);
    ck_assert(tu_rms(one, n) > 0);
    ck_assert_uint_eq(gat_i_model_step(m), step); /* inference draws no masks */

    /* inference ignores the dropout settings */
    gat_model_config cfg = f.cfg;
    cfg.in_dropout = 0;
    cfg.att_dropout = 0.1;
    gat_model *q = create(&cfg, 3);
    memcpy(gat_model_params(q, NULL), params, P * sizeof(gat_real));
    gat_model_set_threads(q, 2);
    gat_real *other = forward_copy(q, &f, 0);
    ck_assert(memcmp(two, other, n * sizeof *two) == 0);
    free(other);
    gat_model_free(q);
    free(one);
    free(two);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

/* Loop index bits: 1 two threads, 2 three layers. */
START_TEST(test_restricted_output)
{
    fixture f;
    fixture_init(&f);
    f.cfg.layers = 2 + ((_i >> 1) & 1);
    const gat_idx N = f.g.n;
    const size_t n = (size_t)N * C;
    gat_model *m = create(&f.cfg, 11);
    gat_model_set_threads(m, 1 + (_i & 1));
    gat_idx *rows = malloc((size_t)N * sizeof *rows), n_rows = 0;
    ck_assert_ptr_nonnull(rows);
    for (gat_idx i = 0; i < N; i++)
        if (i == 0 || i % 3 == 1 || i == N - 1) rows[n_rows++] = i;

    /* inference */
    gat_real *full = forward_copy(m, &f, 0);
    gat_real *part = forward_run(m, &f, rows, n_rows, &(gat_i_run){.training = 0});
    for (gat_idx r = 0; r < n_rows; r++)
        ck_assert_msg(memcmp(part + (size_t)rows[r] * C, full + (size_t)rows[r] * C,
                             (size_t)C * sizeof *part) == 0,
                      "inference row %d differs when restricted", rows[r]);
    free(part);
    part = forward_copy(m, &f, 0);
    ck_assert(memcmp(part, full, n * sizeof *part) == 0);
    free(part);
    free(full);

    /* training: the same masks, the same rows; and the same gradients when dlogits is zero on
     * the rows left out (what the trainer does) */
    gat_real *d = calloc(n, sizeof *d);
    size_t P;
    ck_assert_ptr_nonnull(d);
    tu_uniform(d, n, -1, 1, 12);
    for (gat_idx i = 0, r = 0; i < N; i++) {
        if (r < n_rows && rows[r] == i) {
            r++;
            continue;
        }
        for (gat_idx c = 0; c < C; c++)
            d[(size_t)i * C + c] = 0;
    }
    gat_real *grads = gat_model_grads(m, &P), *g_full = malloc(P * sizeof *g_full);
    ck_assert_ptr_nonnull(g_full);
    const gat_i_run step101 = {.training = 1, .step = 101};
    full = forward_run(m, &f, NULL, 0, &step101);
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    memcpy(g_full, grads, P * sizeof *g_full);
    part = forward_run(m, &f, rows, n_rows, &step101);
    for (gat_idx r = 0; r < n_rows; r++)
        ck_assert_msg(memcmp(part + (size_t)rows[r] * C, full + (size_t)rows[r] * C,
                             (size_t)C * sizeof *part) == 0,
                      "training row %d differs when restricted", rows[r]);
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    ck_assert(tu_rms(g_full, P) > 0);
    ck_assert(compare("gradients restricted vs full forward", grads, g_full, P) <= TOL);
    free(g_full);
    free(d);
    free(full);
    free(part);
    free(rows);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

START_TEST(test_training_steps)
{
    fixture f;
    fixture_init(&f);
    const size_t n = (size_t)f.g.n * C;
    gat_model *m = create(&f.cfg, 21);
    const gat_i_run step8 = {.training = 1, .step = 8};
    gat_real *a = forward_run(m, &f, NULL, 0, &step8);
    ck_assert_uint_eq(gat_i_model_step(m), 8); /* the model's counter is at the step run */
    gat_real *b = forward_run(m, &f, NULL, 0, &step8);
    ck_assert(memcmp(a, b, n * sizeof *a) == 0);
    gat_real *c = forward_copy(m, &f, 1); /* step 8 -> 9: other masks */
    ck_assert_uint_eq(gat_i_model_step(m), 9); /* a training forward advances the step */
    ck_assert(memcmp(a, c, n * sizeof *a) != 0);
    gat_real *inf = forward_copy(m, &f, 0);
    ck_assert_uint_eq(gat_i_model_step(m), 9); /* inference draws no masks */
    ck_assert(memcmp(a, inf, n * sizeof *a) != 0);
    /* training with both dropouts at 0 is inference; either one alone changes the logits */
    gat_real *nodrop = forward_run(m, &f, NULL, 0, &(gat_i_run){.training = 1, .set_dropout = 1});
    ck_assert(memcmp(nodrop, inf, n * sizeof *a) == 0);
    for (int which = 0; which < 2; which++) {
        const gat_i_run r = {.training = 1,
                             .set_dropout = 1,
                             .in_p = which ? 0 : 0.5,
                             .att_p = which ? 0.5 : 0};
        gat_real *one = forward_run(m, &f, NULL, 0, &r);
        ck_assert_msg(memcmp(one, inf, n * sizeof *a) != 0, "%s dropout alone has no effect",
                      which ? "attention" : "input");
        free(one);
    }
    free(a);
    free(b);
    free(c);
    free(inf);
    free(nodrop);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

/* Gradients do not depend on when the thread count changes: caches sized under one thread
 * count must serve another, raised before the next forward (loop index 0) or between a training
 * forward and its backward (1). Run it under ASan: scratch sized for fewer threads overflows. */
START_TEST(test_threads_after_caches)
{
    fixture f;
    fixture_init(&f);
    const size_t n = (size_t)f.g.n * C;
    gat_model *m = create(&f.cfg, 31);
    size_t P;
    gat_real *grads = gat_model_grads(m, &P), *d = malloc(n * sizeof *d);
    gat_real *g1 = malloc(P * sizeof *g1);
    ck_assert(d && g1);
    tu_uniform(d, n, -1, 1, 32);
    gat_model_set_threads(m, 1);
    const gat_i_run step6 = {.training = 1, .step = 6};
    free(forward_run(m, &f, NULL, 0, &step6));
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    memcpy(g1, grads, P * sizeof *g1);
    if (_i == 0) gat_model_set_threads(m, 4);
    free(forward_run(m, &f, NULL, 0, &step6));
    if (_i == 1) gat_model_set_threads(m, 4);
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    ck_assert(compare(_i ? "gradients nt=4 (raised before backward) vs 1"
                         : "gradients nt=4 (raised before forward) vs 1",
                      grads, g1, P) <= TOL);
    free(g1);
    free(d);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

START_TEST(test_alloc_failure)
{
    fixture f;
    fixture_init(&f);
    gat_model *ref = create(&f.cfg, 51);
    gat_real *want = forward_copy(ref, &f, 0);
    const size_t n = (size_t)f.g.n * C;
    long k = 0;
    gat_model *m = NULL;
    gat_model_free(ref);

    for (;; k++) {
        const gat_real *logits = NULL;
        gat_i_alloc_fail_at(k);
        m = (gat_model *)&f; /* not NULL: a failed create must reset it */
        gat_status st = tu_model_create(&m, &f.cfg, 51);
        if (st == GAT_OK) {
            ck_assert_ptr_nonnull(m);
            st = gat_model_forward(m, &f.g, &f.x, 1, &logits);
        } else {
            ck_assert_ptr_null(m);
        }
        if (st == GAT_OK) break;
        const long made = gat_i_alloc_fail_at(-1);
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_str_ne(gat_last_error(), "");
        ck_assert_int_gt(made, k); /* the k-th allocation was reached */
        if (m) {
            /* the model stays usable: the next forward allocates its caches and succeeds */
            gat_real *got = forward_copy(m, &f, 0);
            ck_assert(memcmp(got, want, n * sizeof *got) == 0);
            free(got);
            gat_model_free(m);
        }
    }
    /* the first success is the first k beyond the number of allocations made */
    ck_assert_int_eq(gat_i_alloc_fail_at(-1), k);
    ck_assert_int_gt(k, 2);
    printf("model create + first forward: %ld allocations\n", k);
    gat_real *got = forward_copy(m, &f, 0);
    ck_assert(memcmp(got, want, n * sizeof *got) == 0);
    free(got);
    free(want);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    struct {
        const char *name;
        const TTest *test;
        int loops;
    } cases[] = {
        {"create_free", test_create_free, 1},
        {"config_errors", test_config_errors, N_BAD_CONFIGS},
        {"config_one_layer", test_config_one_layer, 1},
        {"max_heads", test_max_heads, 1},
        {"forward_errors", test_forward_errors, 1},
        {"backward_errors", test_backward_errors, 1},
        {"param_table", test_param_table, 3},
        {"seed", test_seed, 1},
        {"inference_threads", test_inference_threads, 1},
        {"restricted_output", test_restricted_output, 4},
        {"training_steps", test_training_steps, 1},
        {"threads_after_caches", test_threads_after_caches, 2},
        {"alloc_failure", test_alloc_failure, 1},
    };
    for (size_t c = 0; c < LEN(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_add_loop_test(tc, cases[c].test, 0, cases[c].loops);
        suite_add_tcase(s, tc);
    }
    return s;
}

/* once per kernel build and alpha storage (tu_variants) */
int main(void)
{
    return tu_run_variants(model_suite);
}
