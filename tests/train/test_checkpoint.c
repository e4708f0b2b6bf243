/* Check suite "checkpoint": gat_train's checkpoints (gat_train_config.checkpoint, resume). A run
 * stopped and resumed from its checkpoint ends as the run that never stopped, bit for bit, in
 * full-graph and mini-batch training; a checkpoint of another model, data or setting is refused
 * with the difference named and the model untouched; bad files and paths fail cleanly. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static gat_dataset cora;
static int cora_loaded;
static char *tmp;

static void load_cora(void)
{
    if (!cora_loaded) ck_assert_int_eq(gat_dataset_load(&cora, tu_dataset("cora"), NULL), GAT_OK);
    cora_loaded = 1;
    if (!tmp) tmp = tu_tmpdir();
}

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, name);
    return buf[k];
}

static gat_model *cora_model(uint64_t seed, int threads, gat_idx hidden)
{
    gat_model_config mc;
    gat_model *m = NULL;
    gat_model_config_default(&mc, cora.n_features, cora.n_classes);
    mc.hidden = hidden;
    ck_assert_int_eq(tu_model_create(&m, &mc, seed), GAT_OK);
    gat_model_set_threads(m, threads);
    return m;
}

/* The epochs the progress callback saw; stops after epoch stop_at (0: never). With peek set,
 * the checkpoint's history length at each epoch, before this epoch's write. */
typedef struct seen {
    gat_epoch_info e[64];
    int n, stop_at;
    const char *peek;
    size_t peeked[64];
} seen;

static int on_epoch(const gat_epoch_info *e, void *user)
{
    seen *s = user;
    ck_assert_int_lt(s->n, 64);
    if (s->peek) {
        gat_epoch_info *rows;
        ck_assert_int_eq(gat_train_checkpoint_history(s->peek, &rows, &s->peeked[s->n]), GAT_OK);
        free(rows);
    }
    s->e[s->n++] = *e;
    return s->stop_at && e->epoch == s->stop_at;
}

static void config(gat_train_config *tc, seen *s, gat_idx epochs)
{
    gat_train_config_default(tc);
    tc->max_epochs = epochs;
    tc->progress = on_epoch;
    tc->user = s;
}

/* Two rows equal in everything but the times. */
static void same_row(const gat_epoch_info *a, const gat_epoch_info *b)
{
    ck_assert_int_eq(a->epoch, b->epoch);
    ck_assert(a->train_loss == b->train_loss);
    ck_assert(a->train_acc == b->train_acc);
    ck_assert((isnan(a->val_loss) && isnan(b->val_loss)) || a->val_loss == b->val_loss);
    ck_assert((isnan(a->val_acc) && isnan(b->val_acc)) || a->val_acc == b->val_acc);
    ck_assert_int_eq(a->best_epoch, b->best_epoch);
}

/* Trains straight (max epochs, no checkpoint), then stopped after stop_at with a checkpoint and
 * resumed from it on `threads2` threads: the same epochs, parameters and result. */
static void stop_and_resume(gat_train_config *base, gat_idx epochs, int stop_at, int threads2,
                            const char *name)
{
    const char *ck = tmp_path(name);
    gat_train_config tc = *base;
    gat_train_result straight, stopped, resumed;
    seen a = {0}, b = {.stop_at = stop_at}, c = {0};
    size_t P;

    gat_model *ma = cora_model(11, 1, 8), *mb = cora_model(11, 1, 8),
              *mc = cora_model(11, threads2, 8);
    tc.max_epochs = epochs;
    tc.progress = on_epoch;
    tc.user = &a;
    ck_assert_int_eq(gat_train(ma, &cora, &tc, &straight), GAT_OK);
    ck_assert_int_eq(straight.epochs, epochs); /* not stopped by patience first */

    tc.user = &b;
    tc.checkpoint = ck;
    ck_assert_int_eq(gat_train(mb, &cora, &tc, &stopped), GAT_EINTERRUPTED);
    ck_assert_int_eq(stopped.epochs, stop_at);

    tc.user = &c;
    tc.resume = ck;
    ck_assert_int_eq(gat_train(mc, &cora, &tc, &resumed), GAT_OK);
    /* the epochs after the stop, as the straight run had them */
    ck_assert_int_eq(c.n, epochs - stop_at);
    for (int k = 0; k < c.n; k++)
        same_row(&c.e[k], &a.e[stop_at + k]);
    for (int k = 0; k < c.n; k++)
        ck_assert_double_ge(c.e[k].seconds, b.e[stop_at - 1].seconds);
    const gat_real *pa = gat_model_params(ma, &P), *pc = gat_model_params(mc, NULL);
    ck_assert_int_eq(memcmp(pa, pc, P * sizeof *pa), 0);
    ck_assert_int_eq(resumed.epochs, straight.epochs);
    ck_assert_int_eq(resumed.best_epoch, straight.best_epoch);
    ck_assert(resumed.val_loss == straight.val_loss && resumed.test_acc == straight.test_acc);

    /* the checkpoint now holds every epoch: the stopped run's, then the resumed run's */
    gat_epoch_info *rows;
    size_t n;
    ck_assert_int_eq(gat_train_checkpoint_history(ck, &rows, &n), GAT_OK);
    ck_assert_uint_eq(n, (size_t)epochs);
    for (size_t k = 0; k < n; k++)
        same_row(&rows[k], &a.e[k]);
    for (int k = 0; k < stop_at; k++)
        ck_assert(rows[k].seconds == b.e[k].seconds);
    free(rows);
    gat_model_free(ma);
    gat_model_free(mb);
    gat_model_free(mc);
}

/* Full-graph training with the paper's dropout: stopped after epoch 9 of 25, resumed on 2
 * threads. */
START_TEST(full_graph_resumes)
{
    load_cora();
    gat_train_config tc;
    gat_train_config_default(&tc);
    stop_and_resume(&tc, 25, 9, 2, "full.ckpt");
}
END_TEST

/* Mini-batches (sampled blocks, shuffled order, Adam's step counting batches), validated every
 * other epoch: stopped after epoch 3 of 6, resumed on 2 threads. */
START_TEST(minibatch_resumes)
{
    load_cora();
    gat_train_config tc;
    gat_train_config_default(&tc);
    tc.batch_size = 40;
    tc.n_fanout = 2;
    tc.fanout[0] = 10;
    tc.fanout[1] = 5;
    tc.seed = 3;
    tc.eval_every = 2;
    stop_and_resume(&tc, 6, 3, 2, "mini.ckpt");
}
END_TEST

/* Resumes that do not fit: the first difference named, GAT_EINVAL, the model untouched. */
static void refused(gat_model *m, const gat_train_config *tc, const char *want)
{
    size_t P;
    const gat_real *p = gat_model_params(m, &P);
    gat_real *before = malloc(P * sizeof *before);
    memcpy(before, p, P * sizeof *before);
    ck_assert_int_eq(gat_train(m, &cora, tc, NULL), GAT_EINVAL);
    ck_assert_msg(strstr(gat_last_error(), want), "'%s' lacks '%s'", gat_last_error(), want);
    ck_assert_int_eq(memcmp(before, p, P * sizeof *before), 0);
    free(before);
}

/* Platonov et al.'s GAT with feed-forward blocks (gat_gps_train: LayerNorm, dropout on the
 * terms and the attention): stopped after epoch 4 of 10, resumed on 2 threads, ends as the run
 * never stopped; a GAT model's checkpoint is refused as another model. */
START_TEST(gps_resumes)
{
    load_cora();
    const char *ck = tmp_path("gps.ckpt");
    gat_gps_config c;
    gat_gps_config_default(&c, cora.n_features, cora.n_classes);
    c.kind = GAT_GPS_FFN;
    c.dim = 16;
    c.heads = 2;
    c.att_dropout = 0.2;
    c.whole_scores = 1;
    c.linear_init = 1;
    gat_gps *a, *b, *d;
    ck_assert_int_eq(gat_gps_create(&a, &c, 9), GAT_OK);
    ck_assert_int_eq(gat_gps_create(&b, &c, 9), GAT_OK);
    ck_assert_int_eq(gat_gps_create(&d, &c, 9), GAT_OK);
    gat_gps_set_threads(a, 1);
    gat_gps_set_threads(b, 1);
    gat_gps_set_threads(d, 2);
    gat_train_config tc;
    gat_train_result straight, resumed;
    seen sa = {0}, sb = {.stop_at = 4}, sd = {0};
    config(&tc, &sa, 10);
    ck_assert_int_eq(gat_gps_train(a, &cora, &tc, &straight), GAT_OK);
    tc.user = &sb;
    tc.checkpoint = ck;
    ck_assert_int_eq(gat_gps_train(b, &cora, &tc, NULL), GAT_EINTERRUPTED);
    tc.user = &sd;
    tc.resume = ck;
    ck_assert_int_eq(gat_gps_train(d, &cora, &tc, &resumed), GAT_OK);
    ck_assert_int_eq(sd.n, 6);
    for (int k = 0; k < sd.n; k++)
        same_row(&sd.e[k], &sa.e[4 + k]);
    size_t P;
    const gat_real *pa = gat_gps_params(a, &P), *pd = gat_gps_params(d, NULL);
    ck_assert_int_eq(memcmp(pa, pd, P * sizeof *pa), 0);
    ck_assert_int_eq(resumed.best_epoch, straight.best_epoch);
    ck_assert(resumed.test_acc == straight.test_acc);
    /* a GAT model does not resume a graph transformer's checkpoint */
    gat_model *m = cora_model(9, 1, 8);
    tc.checkpoint = NULL;
    refused(m, &tc, "the checkpoint is of another model");
    gat_model_free(m);
    gat_gps_free(a);
    gat_gps_free(b);
    gat_gps_free(d);
}
END_TEST

/* When the file is written: before epoch 1 (epoch 0), every checkpoint_every epochs, or every
 * epoch with a tiny checkpoint_seconds, and after the last. */
START_TEST(write_schedule)
{
    load_cora();
    const char *ck = tmp_path("schedule.ckpt");
    gat_train_config tc;
    seen s = {.peek = ck};
    gat_model *m = cora_model(5, 1, 8);
    config(&tc, &s, 12);
    tc.checkpoint = ck;
    tc.checkpoint_every = 5;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_OK);
    /* epoch e's callback sees the file of the write before it: 0 up to 5, then 5 up to 10 */
    for (int k = 0; k < 12; k++)
        ck_assert_uint_eq(s.peeked[k], (size_t)(k + 1 <= 5 ? 0 : k + 1 <= 10 ? 5 : 10));
    gat_epoch_info *rows;
    size_t n;
    ck_assert_int_eq(gat_train_checkpoint_history(ck, &rows, &n), GAT_OK);
    ck_assert_uint_eq(n, 12);
    free(rows);

    seen t = {.peek = ck};
    config(&tc, &t, 4);
    tc.checkpoint = ck;
    tc.checkpoint_seconds = 1e-9;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_OK);
    for (int k = 0; k < 4; k++)
        ck_assert_uint_eq(t.peeked[k], (size_t)k);
    gat_model_free(m);
}
END_TEST

/* A checkpoint of a run that had ended: resuming trains nothing and gives its result again. */
START_TEST(resume_ended)
{
    load_cora();
    const char *ck = tmp_path("ended.ckpt");
    gat_train_config tc;
    gat_train_result r1, r2;
    seen s = {0}, t = {0};
    gat_model *a = cora_model(2, 1, 8), *b = cora_model(2, 1, 8);
    size_t P;
    config(&tc, &s, 8);
    tc.checkpoint = ck;
    ck_assert_int_eq(gat_train(a, &cora, &tc, &r1), GAT_OK);
    tc.user = &t;
    tc.resume = ck;
    tc.checkpoint = NULL;
    ck_assert_int_eq(gat_train(b, &cora, &tc, &r2), GAT_OK);
    ck_assert_int_eq(t.n, 0);
    ck_assert_int_eq(r2.epochs, 8);
    ck_assert_int_eq(r2.best_epoch, r1.best_epoch);
    ck_assert(r2.test_acc == r1.test_acc);
    ck_assert_int_eq(
        memcmp(gat_model_params(a, &P), gat_model_params(b, NULL), P * sizeof(gat_real)), 0);
    /* more epochs than the run had: it goes on from its epoch 8 */
    tc.max_epochs = 10;
    gat_model *c = cora_model(2, 1, 8);
    ck_assert_int_eq(gat_train(c, &cora, &tc, &r2), GAT_OK);
    ck_assert_int_eq(t.n, 2);
    ck_assert_int_eq(t.e[0].epoch, 9);
    gat_model_free(a);
    gat_model_free(b);
    gat_model_free(c);
}
END_TEST

/* A resume whose max_epochs and patience end the run before the checkpoint's last epoch, against
 * the straight run with them: the same result (early stopping replayed over the history) when
 * the checkpoint keeps the model that run restores, else refused with the model untouched.
 * Returns 1 for a result, 0 for a refusal. */
static int shorter(const char *ck, const gat_train_config *base, gat_idx epochs, gat_idx patience,
                   gat_idx kept_best)
{
    gat_train_config tc = *base;
    gat_train_result straight, resumed;
    size_t P;
    tc.max_epochs = epochs;
    tc.patience = patience;
    tc.progress = NULL;
    gat_model *a = cora_model(3, 1, 8), *b = cora_model(3, 1, 8);
    ck_assert_int_eq(gat_train(a, &cora, &tc, &straight), GAT_OK);
    tc.resume = ck;
    int took = straight.best_epoch == kept_best;
    if (took) {
        ck_assert_int_eq(gat_train(b, &cora, &tc, &resumed), GAT_OK);
        ck_assert_int_eq(resumed.epochs, straight.epochs);
        ck_assert_int_eq(resumed.best_epoch, straight.best_epoch);
        ck_assert(resumed.val_loss == straight.val_loss && resumed.test_acc == straight.test_acc);
        ck_assert_int_eq(
            memcmp(gat_model_params(a, &P), gat_model_params(b, NULL), P * sizeof(gat_real)), 0);
    } else {
        char want[64];
        snprintf(want, sizeof want, "ends at epoch %d and restores epoch %d's", straight.epochs,
                 straight.best_epoch);
        refused(b, &tc, want);
    }
    gat_model_free(a);
    gat_model_free(b);
    return took;
}

/* A run ended by patience 10 (so its model to restore, epoch B, is 10 or more epochs before its
 * end: an epoch that improves one figure but not both resets the patience, keeping no model)
 * resumed with fewer epochs or less patience: max_epochs B + 5 gives that run's result, B - 1
 * is refused, smaller patiences either (whichever the history says); with eval_every, a last
 * epoch the run did not validate is refused. Every case is judged against its straight run, so
 * no trajectory is assumed. */
START_TEST(resume_shorter)
{
    load_cora();
    const char *ck = tmp_path("shorter.ckpt");
    gat_train_config tc;
    gat_train_result full;
    gat_train_config_default(&tc);
    tc.patience = 10;
    tc.checkpoint = ck;
    gat_model *m = cora_model(3, 1, 8);
    ck_assert_int_eq(gat_train(m, &cora, &tc, &full), GAT_OK);
    gat_model_free(m);
    const gat_idx B = full.best_epoch, end = full.epochs;
    ck_assert_int_ge(end - B, 10);
    ck_assert_int_ge(B, 2);
    tc.checkpoint = NULL;
    ck_assert_int_eq(shorter(ck, &tc, B + 5, 10, B), 1);
    ck_assert_int_eq(shorter(ck, &tc, B - 1, 10, B), 0);
    for (gat_idx p = 1; p <= 9; p += 2)
        shorter(ck, &tc, end, p, B);

    /* validation every 4 epochs: 30 epochs, resumed with 27 (not validated by the run,
     * validated by a run of 27) or 28 (a multiple: the last validated by the run) */
    const char *ck4 = tmp_path("every4.ckpt");
    tc.eval_every = 4;
    tc.max_epochs = 30;
    tc.patience = 100;
    tc.checkpoint = ck4;
    m = cora_model(3, 1, 8);
    ck_assert_int_eq(gat_train(m, &cora, &tc, &full), GAT_OK);
    gat_model_free(m);
    tc.checkpoint = NULL;
    tc.max_epochs = 27;
    tc.resume = ck4;
    m = cora_model(3, 1, 8);
    refused(m, &tc, "with max_epochs = 27 a run validates epoch 27, its last");
    gat_model_free(m);
    tc.resume = NULL;
    shorter(ck4, &tc, 28, 100, full.best_epoch);
}
END_TEST

START_TEST(mismatch)
{
    load_cora();
    const char *ck = tmp_path("mismatch.ckpt");
    gat_train_config tc;
    seen s = {0};
    gat_model *m = cora_model(4, 1, 8);
    config(&tc, &s, 3);
    tc.checkpoint = ck;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_OK);
    gat_model_free(m);
    tc.checkpoint = NULL;
    tc.resume = ck;

    m = cora_model(4, 1, 16);
    refused(m, &tc, "its hidden is 8, this model's 16");
    gat_model_free(m);
    m = cora_model(5, 1, 8);
    refused(m, &tc, "model_seed = 4, this training has model_seed = 5");
    gat_model *ok = cora_model(4, 1, 8);
    gat_train_config other = tc;
    other.adam.lr = 0.01;
    refused(ok, &other, "lr = 0.005, this training has lr = 0.01");
    other = tc;
    other.batch_size = 64;
    other.n_fanout = 2;
    other.fanout[0] = other.fanout[1] = -1;
    refused(ok, &other, "batch_size = 0, this training has batch_size = 64");
    /* the same sizes, one feature value other */
    const gat_real v = cora.x.val[7];
    cora.x.val[7] = v / 2;
    refused(ok, &tc, "the same sizes (2708 nodes,");
    cora.x.val[7] = v;
    /* max_epochs and patience may differ */
    gat_train_config longer = tc;
    longer.max_epochs = 4;
    longer.patience = 50;
    ck_assert_int_eq(gat_train(ok, &cora, &longer, NULL), GAT_OK);
    gat_model_free(m);
    gat_model_free(ok);
}
END_TEST

/* Files that are not checkpoints, paths that cannot be written, bad settings. */
START_TEST(bad_files)
{
    load_cora();
    gat_train_config tc;
    seen s = {0};
    gat_model *m = cora_model(4, 1, 8);
    gat_epoch_info *rows = (gat_epoch_info *)&s;
    size_t n = 7;
    config(&tc, &s, 2);

    /* a path in a missing directory fails before the first epoch */
    tc.checkpoint = tmp_path("no/such/dir.ckpt");
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_EIO);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "no/such/dir.ckpt"));
    ck_assert_int_eq(s.n, 0);

    /* a model file is no checkpoint */
    const char *model = tmp_path("model.safetensors");
    ck_assert_int_eq(gat_model_save(m, NULL, model), GAT_OK);
    tc.checkpoint = NULL;
    tc.resume = model;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_EFORMAT);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "not a checkpoint"));
    ck_assert_int_eq(gat_train_checkpoint_history(model, &rows, &n), GAT_EFORMAT);
    ck_assert_ptr_null(rows);
    ck_assert_uint_eq(n, 0);
    tc.resume = tmp_path("missing.ckpt");
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_EIO);

    /* a checkpoint cut short, and one with a value changed to NaN */
    const char *ck = tmp_path("good.ckpt");
    tc.resume = NULL;
    tc.checkpoint = ck;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_OK);
    FILE *f = fopen(ck, "rb");
    ck_assert_ptr_nonnull(f);
    static unsigned char buf[1 << 22];
    const size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ck_assert_uint_lt(len, sizeof buf);
    f = fopen(tmp_path("cut.ckpt"), "wb");
    fwrite(buf, 1, len - 100, f);
    fclose(f);
    tc.checkpoint = NULL;
    tc.resume = tmp_path("cut.ckpt");
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_EFORMAT);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "cut.ckpt"));
    uint64_t hlen = 0;
    for (int k = 7; k >= 0; k--)
        hlen = hlen << 8 | buf[k];
    const float nan = NAN;
    memcpy(buf + 8 + hlen + 4 * 3, &nan, 4); /* params[3] (little-endian F32 builds) */
    f = fopen(tmp_path("nan.ckpt"), "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    tc.resume = tmp_path("nan.ckpt");
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_ENUMERIC);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "tensor \"params\" holds nan at 3"));
    /* a file written before graph trainers kept checkpoints (no "schedule" setting: its key
     * renamed in place, the header's length kept) is a node trainer's, "none" */
    memcpy(buf + 8 + hlen + 4 * 3, buf + 8 + hlen + 4 * 4, 4); /* a finite value again */
    static const char want[] = "\"schedule\":\"none\"";
    size_t at = 8;
    while (at + sizeof want - 1 <= 8 + hlen && memcmp(buf + at, want, sizeof want - 1) != 0)
        at++;
    ck_assert_uint_le(at + sizeof want - 1, 8 + hlen);
    buf[at + 8] = 'X';
    f = fopen(tmp_path("old.ckpt"), "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    tc.resume = tmp_path("old.ckpt");
    ck_assert_msg(gat_train(m, &cora, &tc, NULL) == GAT_OK, "%s", gat_last_error());

    /* settings */
    tc.resume = NULL;
    tc.checkpoint_every = -1;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_EINVAL);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "checkpoint_every = -1"));
    tc.checkpoint_every = 0;
    tc.checkpoint_seconds = NAN;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_EINVAL);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "checkpoint_seconds = nan"));
    ck_assert_int_eq(gat_train_checkpoint_history(NULL, &rows, &n), GAT_EINVAL);
    gat_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("checkpoint");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, full_graph_resumes);
    tcase_add_test(tc, minibatch_resumes);
    tcase_add_test(tc, gps_resumes);
    tcase_add_test(tc, write_schedule);
    tcase_add_test(tc, resume_ended);
    tcase_add_test(tc, resume_shorter);
    tcase_add_test(tc, mismatch);
    tcase_add_test(tc, bad_files);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int rc = tu_run(suite());
    if (cora_loaded) gat_dataset_destroy(&cora);
    if (tmp) {
        tu_rmtree(tmp);
        free(tmp);
    }
    return rc;
}
