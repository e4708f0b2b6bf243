/* Check suite "train": softmax cross-entropy, Adam, the early-stopping trainer on Cora, and
 * reproducibility of whole trainings. */
#include "testutil.h"

#include "model/model_i.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gat_dataset cora;
static int cora_loaded;

static void load_cora(void)
{
    if (cora_loaded) return;
    ck_assert_int_eq(gat_dataset_load(&cora, tu_dataset("cora"), NULL), GAT_OK);
    cora_loaded = 1;
}

/* Cross-entropy against a hand computation on two nodes, plus the masking of other nodes. */
START_TEST(xent_values)
{
    const gat_real logits[] = {1, 2, 3, /* node 0: label 2 */ 0, 0, 0, /* node 1: other split */
                               3, 1, 0 /* node 2: label 1 */};
    const gat_idx labels[] = {2, 0, 1};
    const uint8_t split[] = {GAT_SPLIT_TRAIN, GAT_SPLIT_VAL, GAT_SPLIT_TRAIN};
    gat_real d[9];
    double loss, acc;
    ck_assert_int_eq(gat_softmax_xent(logits, 3, 3, labels, split, GAT_SPLIT_TRAIN, &loss, &acc, d),
                     GAT_OK);
    const double z0 = exp(1) + exp(2) + exp(3), z2 = exp(3) + exp(1) + exp(0);
    const double want = 0.5 * (-log(exp(3) / z0) - log(exp(1) / z2));
    ck_assert_double_eq_tol(loss, want, 1e-9);
    ck_assert_double_eq_tol(acc, 0.5, 1e-12);
    ck_assert_double_eq_tol(d[2], (exp(3) / z0 - 1) / 2, 1e-6);
    ck_assert_double_eq_tol(d[6], (exp(3) / z2) / 2, 1e-6);
    ck_assert_double_eq_tol(d[7], (exp(1) / z2 - 1) / 2, 1e-6);
    for (int k = 3; k < 6; k++) ck_assert(d[k] == 0);
}
END_TEST

/* Extreme logits stay finite: the maximum is subtracted. */
START_TEST(xent_stable)
{
    const gat_real logits[] = {1e4f, -1e4f, 0};
    const gat_idx labels[] = {1};
    const uint8_t split[] = {GAT_SPLIT_TRAIN};
    gat_real d[3];
    double loss, acc;
    ck_assert_int_eq(gat_softmax_xent(logits, 1, 3, labels, split, GAT_SPLIT_TRAIN, &loss, &acc, d),
                     GAT_OK);
    ck_assert(isfinite(loss));
    ck_assert_double_eq_tol(loss, 2e4, 1);
    ck_assert(isfinite(d[0]) && isfinite(d[1]));
}
END_TEST

START_TEST(xent_errors)
{
    const gat_real logits[] = {0, 0};
    gat_idx labels[] = {5};
    const uint8_t split[] = {GAT_SPLIT_TRAIN};
    double loss, acc;
    ck_assert_int_eq(gat_softmax_xent(logits, 1, 2, labels, split, GAT_SPLIT_TEST, &loss, &acc, NULL),
                     GAT_EINVAL);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "no node"));
    ck_assert_int_eq(gat_softmax_xent(logits, 1, 2, labels, split, GAT_SPLIT_TRAIN, &loss, &acc, NULL),
                     GAT_EINVAL);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "label 5"));
    ck_assert_int_eq(gat_softmax_xent(NULL, 1, 2, labels, split, GAT_SPLIT_TRAIN, &loss, &acc, NULL),
                     GAT_EINVAL);
}
END_TEST

/* Two Adam steps against the update written out by hand (double arithmetic), on 37 parameters:
 * the vector body of the loop (src/layers/fused_adam.c, the one copy gat_adam_step runs) and its
 * tail. */
START_TEST(adam_steps)
{
    enum { n = 37 };
    gat_adam_config c;
    gat_adam_config_default(&c);
    c.lr = 0.1;
    c.weight_decay = 0.01;
    gat_real p[n], m[n] = {0}, v[n] = {0}, g[2][n];
    double P[n], M[n] = {0}, V[n] = {0};
    tu_uniform(p, n, -2, 2, 61);
    tu_uniform(g[0], n, -1, 1, 62);
    tu_uniform(g[1], n, -1, 1, 63);
    for (int k = 0; k < n; k++)
        P[k] = p[k];
    for (int t = 1; t <= 2; t++) {
        ck_assert_int_eq(gat_adam_step(&c, t, n, p, g[t - 1], m, v), GAT_OK);
        for (int k = 0; k < n; k++) {
            const double gk = g[t - 1][k] + c.weight_decay * P[k];
            M[k] = c.beta1 * M[k] + (1 - c.beta1) * gk;
            V[k] = c.beta2 * V[k] + (1 - c.beta2) * gk * gk;
            const double mh = M[k] / (1 - pow(c.beta1, t)), vh = V[k] / (1 - pow(c.beta2, t));
            P[k] -= c.lr * mh / (sqrt(vh) + c.eps);
        }
    }
    for (int k = 0; k < n; k++) {
        ck_assert_double_eq_tol(p[k], P[k], 1e-5);
        ck_assert_double_eq_tol(m[k], M[k], 1e-6);
        ck_assert_double_eq_tol(v[k], V[k], 1e-6);
    }
}
END_TEST

typedef struct trace {
    int epochs, best_changes, last_best;
    double first_val_loss, last_train_loss;
    int stop_at;
} trace;

static int record(const gat_epoch_info *e, void *user)
{
    trace *t = user;
    if (e->epoch == 1) t->first_val_loss = e->val_loss;
    ck_assert_int_eq(e->epoch, t->epochs + 1);
    ck_assert(e->best_epoch <= e->epoch && e->best_epoch >= t->last_best);
    t->best_changes += e->best_epoch != t->last_best;
    t->last_best = e->best_epoch;
    t->epochs = e->epoch;
    t->last_train_loss = e->train_loss;
    return t->stop_at && e->epoch >= t->stop_at;
}

static gat_model *cora_model(uint64_t seed, int threads)
{
    gat_model_config mc;
    gat_model *m = NULL;
    gat_model_config_default(&mc, cora.n_features, cora.n_classes);
    ck_assert_int_eq(tu_model_create(&m, &mc, seed), GAT_OK);
    gat_model_set_threads(m, threads);
    return m;
}

/* The paper's Cora setup with a fixed seed reaches an accuracy no broken model reaches (an
 * untrained model gets ~15%, a feature-only MLP ~58%). */
START_TEST(cora_accuracy)
{
    load_cora();
    gat_model *m = cora_model(3, 0);
    gat_train_config tc;
    gat_train_result res;
    trace t = {0};
    double untrained_loss, untrained_acc;
    gat_train_config_default(&tc);
    tc.progress = record;
    tc.user = &t;
    ck_assert_int_eq(gat_model_evaluate(m, &cora, GAT_SPLIT_TEST, &untrained_loss, &untrained_acc),
                     GAT_OK);
    ck_assert_int_eq(gat_train(m, &cora, &tc, &res), GAT_OK);
    ck_assert_int_eq(t.epochs, res.epochs);
    ck_assert_int_eq(t.last_best, res.best_epoch);
    /* stopped by patience: exactly 100 epochs after the last improvement of loss or accuracy,
     * so at least 100 after the restored epoch */
    ck_assert_int_ge(res.epochs - res.best_epoch, 100);
    ck_assert_int_lt(res.epochs, tc.max_epochs);
    ck_assert_double_ge(res.test_acc, 0.78);
    ck_assert_double_gt(res.test_acc, untrained_acc + 0.3);
    ck_assert_double_lt(t.last_train_loss, t.first_val_loss);
    /* the restored model is the one evaluated */
    double loss, acc;
    ck_assert_int_eq(gat_model_evaluate(m, &cora, GAT_SPLIT_TEST, &loss, &acc), GAT_OK);
    ck_assert_double_eq_tol(acc, res.test_acc, 1e-12);
    ck_assert_int_eq(gat_model_evaluate(m, &cora, GAT_SPLIT_VAL, &loss, &acc), GAT_OK);
    ck_assert_double_eq_tol(acc, res.val_acc, 1e-12);
    gat_model_free(m);
}
END_TEST

/* Same seed and thread count: the same parameters bit for bit after training. */
START_TEST(reproducible)
{
    load_cora();
    size_t n1, n2;
    gat_train_config tc;
    gat_train_result r1, r2;
    gat_train_config_default(&tc);
    tc.max_epochs = 30;
    for (int threads = 1; threads <= 2; threads++) {
        gat_model *a = cora_model(7, threads), *b = cora_model(7, threads);
        ck_assert_int_eq(gat_train(a, &cora, &tc, &r1), GAT_OK);
        ck_assert_int_eq(gat_train(b, &cora, &tc, &r2), GAT_OK);
        const gat_real *pa = gat_model_params(a, &n1), *pb = gat_model_params(b, &n2);
        ck_assert_uint_eq(n1, n2);
        ck_assert_int_eq(memcmp(pa, pb, n1 * sizeof *pa), 0);
        ck_assert_int_eq(r1.best_epoch, r2.best_epoch);
        ck_assert(r1.test_acc == r2.test_acc);
        gat_model_free(a);
        gat_model_free(b);
    }
    /* and another seed trains to different parameters */
    gat_model *a = cora_model(7, 1), *b = cora_model(8, 1);
    ck_assert_int_eq(gat_train(a, &cora, &tc, &r1), GAT_OK);
    ck_assert_int_eq(gat_train(b, &cora, &tc, &r2), GAT_OK);
    ck_assert_int_ne(memcmp(gat_model_params(a, &n1), gat_model_params(b, &n2), n1 * sizeof(gat_real)), 0);
    gat_model_free(a);
    gat_model_free(b);
}
END_TEST

/* A callback that asks to stop ends training with GAT_EINTERRUPTED and a restored model. */
START_TEST(interrupt)
{
    load_cora();
    gat_model *m = cora_model(1, 1);
    gat_train_config tc;
    gat_train_result res;
    trace t = {.stop_at = 5};
    gat_train_config_default(&tc);
    tc.progress = record;
    tc.user = &t;
    ck_assert_int_eq(gat_train(m, &cora, &tc, &res), GAT_EINTERRUPTED);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "epoch 5"));
    ck_assert_int_eq(res.epochs, 5);
    ck_assert_int_ge(res.best_epoch, 1);
    gat_model_free(m);
}
END_TEST

/* Every epoch the callback saw, for the metrics file test. */
typedef struct rows {
    gat_epoch_info r[16];
    int n;
} rows;

static int keep_rows(const gat_epoch_info *e, void *user)
{
    rows *t = user;
    ck_assert_int_lt(t->n, (int)LEN(t->r));
    t->r[t->n++] = *e;
    return 0;
}

/* The columns of one CSV line or JSON line of gat_metrics_save, in the file's order. */
static void parse_metrics(const char *line, int jsonl, int with_run, double v[9])
{
    static const char *const key[9] = {"run", "epoch", "train_loss", "train_acc", "val_loss",
                                       "val_acc", "best_epoch", "seconds", "epoch_ms"};
    const char *p = line;
    for (int c = with_run ? 0 : 1; c < 9; c++) {
        if (jsonl) {
            char k[32];
            snprintf(k, sizeof k, "\"%s\":", key[c]);
            p = strstr(line, k);
            ck_assert_msg(p != NULL, "no %s in '%s'", k, line);
            p += strlen(k);
        }
        char *end;
        v[c] = strtod(p, &end);
        ck_assert_msg(end != p, "column %s of '%s' is not a number", key[c], line);
        p = end + 1;
    }
}

/* What the stage callback saw, and the epochs' ends, in the order they came. */
typedef struct parts {
    gat_stage_info s[256];
    int n;
    gat_epoch_info e[8];
    int n_e, at_epoch_end[8]; /* parts seen when each epoch ended */
} parts;

static void keep_part(const gat_stage_info *s, void *user)
{
    parts *p = user;
    ck_assert_int_lt(p->n, 256);
    p->s[p->n++] = *s;
}

static int keep_epoch(const gat_epoch_info *e, void *user)
{
    parts *p = user;
    ck_assert_int_lt(p->n_e, 8);
    p->at_epoch_end[p->n_e] = p->n;
    p->e[p->n_e++] = *e;
    return 0;
}

/* The stage callback: per epoch, forward layer by layer, backward from the last layer, the
 * update, the validation forward, each with its place (done of total = 3 layers + 1) and a time
 * within the epoch; none after the last epoch (the final evaluations are not an epoch's parts);
 * the trained parameters equal a run without the callback. */
START_TEST(stage_callback)
{
    load_cora();
    gat_model_config mc;
    gat_model *m = NULL, *m0 = NULL;
    gat_model_config_default(&mc, cora.n_features, cora.n_classes);
    mc.layers = 3;
    ck_assert_int_eq(tu_model_create(&m, &mc, 5), GAT_OK);
    ck_assert_int_eq(tu_model_create(&m0, &mc, 5), GAT_OK);
    gat_model_set_threads(m, 1);
    gat_model_set_threads(m0, 1);
    gat_train_config tc;
    gat_train_result res;
    parts p = {.n = 0};
    gat_train_config_default(&tc);
    tc.max_epochs = 4;
    tc.progress = keep_epoch;
    tc.stage = keep_part;
    tc.user = &p;
    ck_assert_int_eq(gat_train(m, &cora, &tc, &res), GAT_OK);
    const int L = 3, total = 3 * L + 1;
    ck_assert_int_eq(p.n_e, 4);
    ck_assert_int_eq(p.n, 4 * total);
    for (int e = 0; e < 4; e++) {
        ck_assert_int_eq(p.at_epoch_end[e], (e + 1) * total);
        double last = 0;
        for (int k = 0; k < total; k++) {
            const gat_stage_info *s = &p.s[e * total + k];
            gat_stage want;
            int layer;
            if (k < L) want = GAT_STAGE_FORWARD, layer = k;
            else if (k < 2 * L) want = GAT_STAGE_BACKWARD, layer = 2 * L - 1 - k;
            else if (k == 2 * L) want = GAT_STAGE_UPDATE, layer = -1;
            else want = GAT_STAGE_VALIDATION, layer = k - 2 * L - 1;
            ck_assert_int_eq(s->epoch, e + 1);
            ck_assert_int_eq(s->stage, want);
            ck_assert_int_eq(s->layer, layer);
            ck_assert_int_eq(s->done, k + 1);
            ck_assert_int_eq(s->total, total);
            ck_assert(s->seconds >= last && s->seconds <= p.e[e].epoch_seconds);
            last = s->seconds;
        }
    }
    /* the callback only watches */
    tc.progress = NULL;
    tc.stage = NULL;
    ck_assert_int_eq(gat_train(m0, &cora, &tc, &res), GAT_OK);
    size_t P, P0;
    const gat_real *a = gat_model_params(m, &P), *b = gat_model_params(m0, &P0);
    ck_assert_uint_eq(P, P0);
    ck_assert(memcmp(a, b, P * sizeof *a) == 0);
    gat_model_free(m);
    gat_model_free(m0);
}
END_TEST

/* gat_metrics_save writes exactly the numbers the progress callback saw, with its header, as CSV
 * and as JSON lines, with and without the run column; epoch_seconds adds up within seconds. */
START_TEST(metrics_file)
{
    load_cora();
    gat_model *m = cora_model(2, 1);
    gat_train_config tc;
    gat_train_result res;
    rows t = {.n = 0};
    gat_train_config_default(&tc);
    tc.max_epochs = 5;
    tc.progress = keep_rows;
    tc.user = &t;
    ck_assert_int_eq(gat_train(m, &cora, &tc, &res), GAT_OK);
    ck_assert_int_eq(t.n, 5);
    double sum = 0;
    for (int k = 0; k < t.n; k++) {
        ck_assert(t.r[k].epoch_seconds > 0 && t.r[k].epoch_seconds <= t.r[k].seconds);
        sum += t.r[k].epoch_seconds;
        ck_assert(sum <= t.r[k].seconds + 1e-9); /* disjoint intervals within seconds */
    }
    char *dir = tu_tmpdir();
    const gat_idx runs[5] = {3, 3, 3, 3, 3};
    for (int variant = 0; variant < 4; variant++) {
        const int jsonl = variant & 1, with_run = variant >> 1;
        char path[4096], line[1024];
        snprintf(path, sizeof path, "%s/m%d.%s", dir, variant, jsonl ? "JSONL" : "csv");
        ck_assert_int_eq(gat_metrics_save(path, t.r, with_run ? runs : NULL, (size_t)t.n),
                         GAT_OK);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        if (!jsonl) {
            ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
            ck_assert_str_eq(line, with_run ? "run,epoch,train_loss,train_acc,val_loss,val_acc,"
                                              "best_epoch,seconds,epoch_ms\n"
                                            : "epoch,train_loss,train_acc,val_loss,val_acc,"
                                              "best_epoch,seconds,epoch_ms\n");
        }
        int k = 0;
        for (; fgets(line, sizeof line, f); k++) {
            double v[9];
            ck_assert_int_lt(k, t.n);
            if (jsonl) ck_assert(line[0] == '{' && strstr(line, "}\n"));
            parse_metrics(line, jsonl, with_run, v);
            const gat_epoch_info *e = &t.r[k];
            if (with_run) ck_assert(v[0] == 3);
            /* the shortest round-trip digits read back as the same double */
            ck_assert(v[1] == e->epoch && v[2] == e->train_loss && v[3] == e->train_acc &&
                      v[4] == e->val_loss && v[5] == e->val_acc && v[6] == e->best_epoch &&
                      v[7] == e->seconds && v[8] == 1e3 * e->epoch_seconds);
        }
        ck_assert_int_eq(k, t.n);
        fclose(f);
    }
    /* no rows: the header alone */
    char path[4096];
    snprintf(path, sizeof path, "%s/empty.csv", dir);
    ck_assert_int_eq(gat_metrics_save(path, NULL, NULL, 0), GAT_OK);
    ASSERT_FAILS(gat_metrics_save(NULL, t.r, NULL, 1), GAT_EINVAL,
                 "gat_metrics_save: path is NULL");
    ASSERT_FAILS(gat_metrics_save(path, NULL, NULL, 2), GAT_EINVAL, "rows is NULL but n = 2");
    snprintf(path, sizeof path, "%s/missing/m.csv", dir);
    ASSERT_FAILS(gat_metrics_save(path, t.r, NULL, 1), GAT_EIO, "missing");
    tu_rmtree(dir);
    free(dir);
    gat_model_free(m);
}
END_TEST

/* An absurd learning rate diverges: GAT_ENUMERIC, never a NaN model. */
START_TEST(diverges)
{
    load_cora();
    gat_model *m = cora_model(1, 1);
    gat_train_config tc;
    gat_train_result res;
    size_t n;
    gat_train_config_default(&tc);
    tc.adam.lr = 1e30;
    tc.adam.eps = 1e-30;
    tc.max_epochs = 200;
    gat_status st = gat_train(m, &cora, &tc, &res);
    const gat_real *p = gat_model_params(m, &n);
    for (size_t k = 0; k < n; k++) ck_assert(isfinite(p[k]));
    ck_assert_int_eq(st, GAT_ENUMERIC);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "diverged"));
    ck_assert_int_lt(res.epochs, 200);
    gat_model_free(m);
}
END_TEST

START_TEST(bad_arguments)
{
    load_cora();
    gat_model_config mc;
    gat_model *m = NULL;
    gat_train_config tc;
    gat_train_config_default(&tc);
    gat_model_config_default(&mc, cora.n_features + 1, cora.n_classes);
    ck_assert_int_eq(tu_model_create(&m, &mc, 1), GAT_OK);
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_EDIM);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "1433 features"));
    gat_model_free(m);
    m = cora_model(1, 1);
    ck_assert_int_eq(gat_train(NULL, &cora, &tc, NULL), GAT_EINVAL);
    ck_assert_int_eq(gat_train(m, NULL, &tc, NULL), GAT_EINVAL);
    tc.patience = 0;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_EINVAL);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "patience"));
    gat_model_free(m);
}
END_TEST


/* The rows of one split of ds, ascending (caller frees). */
static gat_idx *rows_of(const gat_dataset *ds, gat_split which, gat_idx *n)
{
    gat_idx *rows = malloc((size_t)ds->n * sizeof *rows);
    ck_assert_ptr_nonnull(rows);
    *n = 0;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->split[i] == which) rows[(*n)++] = i;
    return rows;
}

/* gat_train_step is the step written out with the model's private hooks (restricted forward,
 * cross-entropy, backward, Adam with the model's moments): same losses, same parameters, for the
 * gat and the dot score. */
START_TEST(train_step_is_the_step)
{
    load_cora();
    gat_model_config mc;
    gat_model *a = NULL, *b = NULL;
    gat_adam_config adam;
    gat_idx n_train;
    gat_idx *train = rows_of(&cora, GAT_SPLIT_TRAIN, &n_train);
    gat_real *dlogits = malloc((size_t)cora.n * cora.n_classes * sizeof *dlogits);
    gat_model_config_default(&mc, cora.n_features, cora.n_classes);
    mc.score = _i ? GAT_SCORE_DOT : GAT_SCORE_GAT;
    gat_adam_config_default(&adam);
    ck_assert_int_eq(tu_model_create(&a, &mc, 4), GAT_OK);
    ck_assert_int_eq(tu_model_create(&b, &mc, 4), GAT_OK);
    gat_model_set_threads(a, 1);
    gat_model_set_threads(b, 1);
    size_t P;
    gat_real *pa = gat_model_params(a, &P), *pb = gat_model_params(b, NULL);
    gat_real *gb = gat_model_grads(b, NULL), *m1, *m2;
    gat_i_model_moments(b, &m1, &m2);
    double first = 0, last = 0;
    for (gat_idx t = 1; t <= 4; t++) {
        double loss = -1, acc = -1, want_loss, want_acc;
        const gat_real *logits;
        ck_assert_int_eq(gat_train_step(a, &cora.graph, &cora.x, cora.labels, train, n_train,
                                        &adam, t, &loss, &acc),
                         GAT_OK);
        const gat_i_binding bb = {.g = &cora.graph, .x = &cora.x, .rows = train,
                                  .n_rows = n_train};
        ck_assert_int_eq(gat_i_model_forward(b, &bb, &(gat_i_run){.training = 1}, &logits),
                         GAT_OK);
        ck_assert_int_eq(gat_softmax_xent(logits, cora.n, cora.n_classes, cora.labels, cora.split,
                                          GAT_SPLIT_TRAIN, &want_loss, &want_acc, dlogits),
                         GAT_OK);
        gat_model_zero_grads(b);
        ck_assert_int_eq(gat_model_backward(b, dlogits), GAT_OK);
        ck_assert_int_eq(gat_adam_step(&adam, t, P, pb, gb, m1, m2), GAT_OK);
        ck_assert_double_eq_tol(loss, want_loss, 1e-6 * fabs(want_loss));
        ck_assert_double_eq_tol(acc, want_acc, 1e-12);
        ck_assert_double_le(tu_max_rel_err(pa, pb, P, 1e-2, NULL), 1e-4);
        if (t == 1) first = loss;
        last = loss;
    }
    ck_assert_double_lt(last, first); /* it learns */
    gat_model_free(a);
    gat_model_free(b);
    free(train);
    free(dlogits);
}
END_TEST

static int record_losses(const gat_epoch_info *e, void *user)
{
    double *loss = user;
    loss[e->epoch - 1] = e->train_loss;
    return 0;
}

/* A gat_train epoch is gat_train_step (t = the epoch) plus a validation pass that changes
 * nothing the next step sees: the training losses of 5 epochs are those of 5 steps. */
START_TEST(trainer_epoch_is_a_step)
{
    load_cora();
    gat_model *a = cora_model(6, 1), *b = cora_model(6, 1);
    gat_train_config tc;
    gat_idx n_train;
    gat_idx *train = rows_of(&cora, GAT_SPLIT_TRAIN, &n_train);
    double want[5] = {0};
    gat_train_config_default(&tc);
    tc.max_epochs = 5;
    tc.progress = record_losses;
    tc.user = want;
    ck_assert_int_eq(gat_train(a, &cora, &tc, NULL), GAT_OK);
    for (gat_idx t = 1; t <= 5; t++) {
        double loss = -1, val_loss, val_acc;
        ck_assert_int_eq(gat_train_step(b, &cora.graph, &cora.x, cora.labels, train, n_train,
                                        &tc.adam, t, &loss, NULL),
                         GAT_OK);
        ck_assert_double_eq_tol(loss, want[t - 1], 1e-6 * fabs(want[t - 1]));
        ck_assert_int_eq(gat_model_evaluate(b, &cora, GAT_SPLIT_VAL, &val_loss, &val_acc), GAT_OK);
    }
    gat_model_free(a);
    gat_model_free(b);
    free(train);
}
END_TEST

START_TEST(train_step_errors)
{
    gat_graph g;
    gat_csr x;
    gat_model_config mc;
    gat_model *m = NULL;
    gat_adam_config adam;
    tu_graph_small(&g, GAT_GRAPH_SYMMETRIZE);
    tu_features(&x, g.n, 5, 0.5, 1);
    gat_model_config_default(&mc, 5, 3);
    ck_assert_int_eq(tu_model_create(&m, &mc, 1), GAT_OK);
    gat_adam_config_default(&adam);
    gat_idx labels[7] = {0, 1, 2, 0, 1, 2, 0};
    const gat_idx rows[3] = {1, 3, 5};
    double loss = -1, acc = -1;

    ASSERT_FAILS(gat_train_step(NULL, &g, &x, labels, rows, 3, &adam, 1, &loss, &acc), GAT_EINVAL,
                 "gat_train_step: NULL model m");
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, NULL, 3, &adam, 1, &loss, &acc), GAT_EINVAL,
                 "gat_train_step: NULL rows");
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, rows, 3, NULL, 1, &loss, &acc), GAT_EINVAL,
                 "gat_train_step: NULL adam");
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, rows, 3, &adam, 0, &loss, &acc), GAT_EINVAL,
                 "gat_train_step: step t = 0, expected t >= 1");
    adam.beta1 = 1;
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, rows, 3, &adam, 1, &loss, &acc), GAT_EINVAL,
                 "gat_adam: beta1 = 1 is outside [0, 1)");
    gat_adam_config_default(&adam);
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, rows, 0, &adam, 1, &loss, &acc), GAT_EINVAL,
                 "gat_train_step: n_rows = 0, expected 1..7 (the graph's nodes)");
    const gat_idx unsorted[3] = {1, 5, 3}, outside[2] = {2, 7};
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, unsorted, 3, &adam, 1, &loss, &acc), GAT_EINVAL,
                 "gat_train_step: rows[2] = 3, expected ascending rows in [0, 7) (rows[1] = 5)");
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, outside, 2, &adam, 1, &loss, &acc), GAT_EINVAL,
                 "gat_train_step: rows[1] = 7, expected ascending rows in [0, 7)");
    labels[3] = 3;
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, rows, 3, &adam, 1, &loss, &acc), GAT_EINVAL,
                 "node 3 has label 3 outside [0, 3)");
    labels[3] = 0;
    gat_graph g2;
    tu_graph_skewed(&g2, 3, 3, 0, 1);
    ASSERT_FAILS(gat_train_step(m, &g2, &x, labels, rows, 3, &adam, 1, &loss, &acc), GAT_EDIM,
                 "features have 7 rows but the graph has 8 nodes");
    gat_graph_destroy(&g2);
    ck_assert_double_eq(loss, -1); /* untouched by failures */
    ck_assert_double_eq(acc, -1);

    /* a non-finite output bias: the loss is NaN, nothing is updated */
    size_t P, at = 0;
    int nt;
    gat_real *p = gat_model_params(m, &P);
    const gat_model_tensor *tn = gat_model_tensors(m, &nt);
    for (int k = 0; k < nt; k++)
        if (!strcmp(tn[k].name, "layer1.bias")) at = tn[k].offset;
    ck_assert_uint_gt(at, 0);
    p[at] = NAN;
    gat_real *before = malloc(P * sizeof *before);
    memcpy(before, p, P * sizeof *p);
    ASSERT_FAILS(gat_train_step(m, &g, &x, labels, rows, 3, &adam, 1, &loss, &acc), GAT_ENUMERIC,
                 "training diverged at step 1: the loss is ");
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "nan (try a smaller learning rate)"));
    ck_assert(isnan(p[at]));
    for (size_t k = 0; k < P; k++) ck_assert(k == at || p[k] == before[k]);
    p[at] = 0;
    ck_assert_int_eq(gat_train_step(m, &g, &x, labels, rows, 3, &adam, 1, &loss, NULL), GAT_OK);
    ck_assert(loss > 0 && isfinite(loss));
    free(before);
    gat_model_free(m);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("train");
    TCase *tc;
    tc = tcase_create("xent");
    tcase_add_test(tc, xent_values);
    tcase_add_test(tc, xent_stable);
    tcase_add_test(tc, xent_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("adam");
    tcase_add_test(tc, adam_steps);
    suite_add_tcase(s, tc);
    tc = tcase_create("trainer");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, cora_accuracy);
    tcase_add_test(tc, reproducible);
    tcase_add_test(tc, interrupt);
    tcase_add_test(tc, diverges);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, metrics_file);
    tcase_add_test(tc, stage_callback);
    suite_add_tcase(s, tc);
    tc = tcase_create("step");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, train_step_is_the_step, 0, 2);
    tcase_add_test(tc, trainer_epoch_is_a_step);
    tcase_add_test(tc, train_step_errors);
    suite_add_tcase(s, tc);
    return s;
}

/* once per kernel build and alpha storage (tu_variants) */
int main(void)
{
    int rc = tu_run_variants(suite);
    if (cora_loaded) gat_dataset_destroy(&cora);
    return rc;
}
