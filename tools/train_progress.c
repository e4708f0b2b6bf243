/* gat-train's progress: the signals that stop training gracefully, the progress line (redrawn
 * in place on a terminal, with a ticker thread during long epochs), and the epoch rows kept for
 * --metrics and --plot. */
#include "train.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double train_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* SIGINT or SIGTERM (and with --partitions SIGUSR1) once received, else 0. The first one lets
 * the epoch under way finish, then training stops and the best model is saved; a second signal
 * ends the process at once (saves are atomic: no file is left half-written). Under mpirun
 * (--partitions) one Ctrl-C reaches a rank twice, from the terminal and forwarded by mpirun:
 * signals within SIGNAL_ECHO seconds of the first count as that one. mpirun forwards SIGUSR1 to
 * every rank as it is, while on SIGINT or SIGTERM it kills the ranks a few seconds later: kill
 * -USR1 on mpirun stops a distributed run however long its epochs are. */
static volatile sig_atomic_t stop_signal = 0;
static volatile sig_atomic_t signal_echo = 0; /* --partitions: ignore the echo */
static struct timespec first_signal;
#define SIGNAL_ECHO 3

static void on_signal(int sig)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t); /* async-signal-safe */
    if (!stop_signal) {
        stop_signal = sig;
        first_signal = t;
        if (signal_echo) return;
    } else if (signal_echo && t.tv_sec - first_signal.tv_sec < SIGNAL_ECHO) {
        return;
    } else {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGUSR1, SIG_DFL);
        raise(sig);
        return;
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
}

/* The progress line of a terminal: "\r" returns to its start and ESC [K clears what a longer
 * previous line left, so the line is rewritten in place. */
static void draw_line(const progress *p, const gat_epoch_info *e, double busy)
{
    if (p->folds > 0)
        fprintf(stderr, "\rfold %d/%d  ", p->run, p->folds);
    else if (p->o->runs > 1)
        fprintf(stderr, "\rrun %d/%d  ", p->run, p->o->runs);
    else
        fputc('\r', stderr);
    if (e->epoch > 0)
        fprintf(stderr,
                "epoch %d  loss %.4f/%.4f  %s %.2f%%/%.2f%% (train/val)  best %d  "
                "%.1f epochs/s  %.1f s",
                e->epoch, e->train_loss, e->val_loss, p->o->multilabel ? "F1" : "acc",
                100 * e->train_acc, 100 * e->val_acc,
                e->best_epoch, e->seconds > 0 ? e->epoch / e->seconds : 0.0, e->seconds);
    if (e->epoch > 0 && !isnan(e->val_auc)) fprintf(stderr, "  val auc %.2f%%", 100 * e->val_auc);
    if (busy > 0) {
        fprintf(stderr, "%sepoch %d under way: %.0f s", e->epoch > 0 ? "  |  " : "", e->epoch + 1,
                busy);
        /* where in the epoch: the part that ended last (gat_train_config.stage) */
        const gat_stage_info *s = &p->part;
        static const char *const name[] = {"forward", "backward", "update", "validation"};
        if (s->done > 0 && s->epoch == e->epoch + 1) {
            if (s->stage == GAT_STAGE_UPDATE && p->o->batch_size)
                fprintf(stderr, ", mini-batch %d done (%d/%d)", s->done, s->done, s->total);
            else if (s->stage == GAT_STAGE_UPDATE)
                fprintf(stderr, ", %s done (%d/%d)", name[s->stage], s->done, s->total);
            else
                fprintf(stderr, ", %s of layer %d done (%d/%d)", name[s->stage], s->layer + 1,
                        s->done, s->total);
        }
    }
    fputs("\033[K", stderr);
    fflush(stderr);
}

/* The ticker thread (see progress): twice a second, if the epoch under way has taken a second
 * or more, the line is redrawn with its time. */
static void *tick(void *arg)
{
    progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (p->ticking) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (!p->pending) pthread_cond_timedwait(&p->wake, &p->lock, &until);
        const double busy = train_now() - p->epoch_start;
        if (p->ticking && (busy >= 1.0 || p->pending)) draw_line(p, &p->last, busy);
        if (p->pending) {
            p->pending = 0;
            pthread_cond_broadcast(&p->drawn);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Starts the ticker of run p->run on a terminal. Signals stay with the main thread. Without a
 * thread the line still moves after each epoch. */
void start_ticker(progress *p)
{
    if (!p->tty) return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    p->epoch_start = train_now();
    p->last = (gat_epoch_info){0};
    p->part = (gat_stage_info){0};
    p->force = getenv("GAT_TRAIN_TEST_TICKER") != NULL;
    p->pending = 0;
    p->ticking = 1;
    if (pthread_create(&p->ticker, NULL, tick, p) != 0) p->ticking = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Ends a run's progress line: its last epoch drawn, then a line break (the next run gets its
 * own line, the summary the line after). */
void end_line(progress *p)
{
    if (!p->tty) return;
    if (p->ticking) {
        pthread_mutex_lock(&p->lock);
        p->ticking = 0;
        pthread_cond_signal(&p->wake);
        pthread_cond_broadcast(&p->drawn);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->ticker, NULL);
    }
    if (p->last.epoch == 0) return;
    draw_line(p, &p->last, 0);
    fputc('\n', stderr);
    p->last.epoch = 0;
}

/* Parts of an epoch as they end (gat_train_config.stage): kept for the ticker's line. */
void on_stage(const gat_stage_info *s, void *user)
{
    progress *p = user;
    pthread_mutex_lock(&p->lock);
    p->part = *s;
    if (p->force && p->ticking) { /* the test hook (progress.force) */
        p->pending = 1;
        pthread_cond_signal(&p->wake);
        while (p->pending && p->ticking)
            pthread_cond_wait(&p->drawn, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}

/* gat_train_config.stop: a signal stops mini-batch training after the step under way. */
int on_stop(void *user)
{
    (void)user;
    return stop_signal != 0;
}

void train_keep_row(progress *p, const gat_epoch_info *e)
{
    if (p->keep && !p->oom) {
        if (p->n == p->cap) {
            const size_t cap = p->cap ? 2 * p->cap : 1024;
            gat_epoch_info *rows = realloc(p->rows, cap * sizeof *rows);
            if (rows) p->rows = rows;
            gat_idx *run = rows ? realloc(p->row_run, cap * sizeof *run) : NULL;
            if (run) p->row_run = run;
            if (rows && run)
                p->cap = cap;
            else
                p->oom = 1;
        }
        if (!p->oom) {
            p->rows[p->n] = *e;
            p->row_run[p->n++] = p->run;
        }
    }
}

/* Whether path names something that exists. */
static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Run or fold r's files among n (unit "run" or "fold"): FILE.unitR; with one run (not a fold)
 * the options' names themselves. */
static int files_of(const options *o, int r, int n, const char *unit, train_files *f)
{
    const int fold = unit[0] == 'f';
    f->checkpoint = f->resume = NULL;
    f->unit = unit;
    f->several = fold || n > 1;
    if (!f->several) {
        f->checkpoint = o->checkpoint;
        f->resume = o->resume;
        /* the files of several runs where one run's is missing: say what to give */
        if (o->resume && !exists(o->resume) &&
            snprintf(f->resume_buf, sizeof f->resume_buf, "%s.run1", o->resume) <
                (int)sizeof f->resume_buf &&
            exists(f->resume_buf)) {
            fprintf(stderr,
                    "gat-train: --resume: there is no %s but a %s: the checkpoints of several "
                    "runs; give the --runs or --all-splits of the command that wrote them\n",
                    o->resume, f->resume_buf);
            return 1;
        }
        return 0;
    }
    if (o->checkpoint) {
        if (snprintf(f->ckpt_buf, sizeof f->ckpt_buf, "%s.%s%d", o->checkpoint, unit, r + 1) >=
            (int)sizeof f->ckpt_buf) {
            fprintf(stderr, "gat-train: --checkpoint: the file name %s.%s%d is too long\n",
                    o->checkpoint, unit, r + 1);
            return 1;
        }
        f->checkpoint = f->ckpt_buf;
    }
    if (o->resume) {
        if (snprintf(f->resume_buf, sizeof f->resume_buf, "%s.%s%d", o->resume, unit, r + 1) >=
            (int)sizeof f->resume_buf) {
            fprintf(stderr, "gat-train: --resume: the file name %s.%s%d is too long\n", o->resume,
                    unit, r + 1);
            return 1;
        }
        /* the first file must be there; a later run's or fold's that is not there had not
         * started when training stopped: it starts now */
        if (r == 0 && !exists(f->resume_buf)) {
            fprintf(stderr,
                    "gat-train: --resume: no %s%s: with %d %ss %s %c goes on from %s.%s%c\n",
                    f->resume_buf,
                    !exists(o->resume) ? ""
                    : fold             ? ", only the checkpoint of a node model's single run"
                                       : ", only the checkpoint of a single run (--runs 1)",
                    n, unit, unit, fold ? 'F' : 'R', o->resume, unit, fold ? 'F' : 'R');
            return 1;
        }
        if (exists(f->resume_buf)) f->resume = f->resume_buf;
    }
    return 0;
}

int train_run_files(const options *o, int r, train_files *f)
{
    return files_of(o, r, o->runs, "run", f);
}

int train_fold_files(const options *o, int r, int folds, train_files *f)
{
    return files_of(o, r, folds, "fold", f);
}

void train_loop_config(const options *o, int r, const train_files *f, progress *p,
                       gat_train_config *tc)
{
    gat_train_config_default(tc);
    tc->adam.lr = o->lr;
    tc->adam.weight_decay = o->weight_decay;
    tc->max_epochs = o->epochs;
    tc->patience = o->patience;
    tc->eval_every = o->eval_every;
    tc->metric = o->metric;
    tc->seed = (uint64_t)o->seed + (uint64_t)r;
    tc->lr_factor = o->lr_factor;
    tc->lr_patience = o->lr_patience >= 0 ? o->lr_patience : 0; /* -1: unset on a node task */
    tc->min_lr = o->min_lr;
    tc->lr_step = o->lr_step;
    tc->keep_last = o->keep_last;
    tc->checkpoint = f->checkpoint;
    tc->checkpoint_every = o->ckpt_epochs;
    tc->checkpoint_seconds = o->ckpt_seconds;
    tc->resume = f->resume;
    tc->progress = on_epoch;
    tc->user = p;
}

int train_fold_stopped(const options *o, const train_files *f, int r, gat_status st,
                       const gat_train_result *res, progress *p)
{
    if (st != GAT_OK && st != GAT_EINTERRUPTED) return 0;
    train_trim_rows(p, res->epochs);
    if (st != GAT_EINTERRUPTED) return 0;
    if (!f->checkpoint)
        fprintf(stderr,
                "gat-train: fold %d interrupted after epoch %d (no --checkpoint: its "
                "state is not kept)\n",
                r + 1, res->epochs);
    train_checkpoint_note(o, f, r, res->epochs);
    return 1;
}

int train_resume_rows(const char *resume, progress *p)
{
    gat_epoch_info *rows;
    size_t n;
    if (!resume || !p->keep) return 0;
    if (gat_train_checkpoint_history(resume, &rows, &n) != GAT_OK)
        return train_fail("cannot resume");
    for (size_t k = 0; k < n; k++)
        train_keep_row(p, &rows[k]);
    free(rows);
    return 0;
}

void train_trim_rows(progress *p, gat_idx epochs)
{
    while (p->keep && p->n > 0 && p->row_run[p->n - 1] == p->run &&
           p->rows[p->n - 1].epoch > epochs)
        p->n--;
}

void train_checkpoint_note(const options *o, const train_files *f, int r, gat_idx epochs)
{
    if (!f->checkpoint) return;
    if (!f->several)
        fprintf(stderr,
                "gat-train: the training state after epoch %d is in %s: the same command with "
                "--resume %s goes on from there\n",
                epochs, f->checkpoint, o->checkpoint);
    else
        fprintf(stderr,
                "gat-train: %s %d's training state after epoch %d is in %s (the %ss before it "
                "beside it): the same command with --resume %s goes on from there\n",
                f->unit, r + 1, epochs, f->checkpoint, f->unit, o->checkpoint);
}

int on_epoch(const gat_epoch_info *e, void *user)
{
    progress *p = user;
    train_keep_row(p, e);
    if (p->o->quiet) return stop_signal != 0;
    if (p->tty) {
        /* at most ten updates a second: a terminal cannot show more, and writes cost */
        pthread_mutex_lock(&p->lock);
        const double t = train_now();
        p->last = *e;
        p->epoch_start = t;
        if (e->epoch == 1 || (e->epoch % p->o->log_every == 0 && t - p->last_draw >= 0.1)) {
            draw_line(p, e, 0);
            p->last_draw = t;
        }
        pthread_mutex_unlock(&p->lock);
    } else if (e->epoch % p->o->log_every == 0 || stop_signal) {
        const char *m = p->o->multilabel ? "F1" : "acc"; /* micro-F1 for --task multilabel */
        printf("epoch %5d  train loss %.4f %s %6.2f%%  val loss %.4f %s %6.2f%%", e->epoch,
               e->train_loss, m, 100 * e->train_acc, e->val_loss, m, 100 * e->val_acc);
        if (!isnan(e->val_auc)) printf(" auc %6.2f%%", 100 * e->val_auc);
        printf("  best %d  %.3f s\n", e->best_epoch, e->seconds);
        fflush(stdout); /* a file or pipe (tee, nohup) shows each line as it comes */
    }
    return stop_signal != 0;
}

int train_stop_signal(void)
{
    return stop_signal;
}

/* on: on_signal for SIGINT, SIGTERM (and distributed SIGUSR1), except a signal the parent left
 * ignored; !on: the default actions. */
static void set_handlers(int on)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGUSR1};
    for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) {
        struct sigaction sa, old;
        if (sigs[k] == SIGUSR1 && !signal_echo) continue;
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on ? on_signal : SIG_DFL;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[k], &sa, NULL);
    }
}

void train_catch_signals(int distributed)
{
    signal_echo = distributed; /* SIGUSR1: what mpirun forwards as it is */
    set_handlers(1);
}

void train_release_signals(void)
{
    set_handlers(0);
}

/* The four curves of a row, in the columns' order: train loss, val loss, train acc, val acc. */
static void curves(const gat_epoch_info *e, double v[4])
{
    v[0] = e->train_loss;
    v[1] = e->val_loss;
    v[2] = e->train_acc;
    v[3] = e->val_acc;
}

/* The plot's rows: per epoch the four curves (one run: row k's; several: at each epoch the mean,
 * minimum and maximum of each curve over the runs that reached it, a curve's NaNs, epochs
 * without validation, left out). tab: (rows, W) with W = 5 (one run) or 13, column 0 the epoch.
 * Returns the rows, or -1 without memory. */
static long plot_rows(const progress *p, size_t n_rows, int n_runs, gat_idx max_epoch, double **tab)
{
    const int W = n_runs == 1 ? 5 : 13;
    const size_t R = n_runs == 1 ? n_rows : (size_t)max_epoch;
    double *t = malloc((R ? R : 1) * W * sizeof *t);
    size_t *start = n_runs == 1 ? NULL : calloc((size_t)n_runs + 1, sizeof *start);
    if (!t || (n_runs > 1 && !start)) {
        free(t);
        free(start);
        return -1;
    }
    if (n_runs == 1) {
        for (size_t k = 0; k < n_rows; k++) {
            t[k * W] = p->rows[k].epoch;
            curves(&p->rows[k], t + k * W + 1);
        }
    } else {
        /* rows of each run are consecutive with epochs 1, 2, ...: row k of a run is epoch k+1 */
        for (size_t k = 0; k < n_rows; k++)
            start[p->row_run[k]]++;
        for (int r = 1; r <= n_runs; r++)
            start[r] += start[r - 1];
        for (gat_idx e = 1; e <= max_epoch; e++) {
            double sum[4] = {0}, lo[4] = {0}, hi[4] = {0}, *row = t + (size_t)(e - 1) * W;
            int cnt[4] = {0};
            for (int r = 0; r < n_runs; r++) {
                if (start[r] + (size_t)e > start[r + 1]) continue;
                double v[4];
                curves(&p->rows[start[r] + (size_t)e - 1], v);
                for (int c = 0; c < 4; c++) {
                    if (isnan(v[c])) continue;
                    sum[c] += v[c];
                    lo[c] = cnt[c] == 0 || v[c] < lo[c] ? v[c] : lo[c];
                    hi[c] = cnt[c] == 0 || v[c] > hi[c] ? v[c] : hi[c];
                    cnt[c]++;
                }
            }
            row[0] = e;
            for (int c = 0; c < 4; c++) {
                row[1 + 3 * c] = cnt[c] ? sum[c] / cnt[c] : NAN;
                row[2 + 3 * c] = cnt[c] ? lo[c] : NAN;
                row[3 + 3 * c] = cnt[c] ? hi[c] : NAN;
            }
        }
    }
    free(start);
    *tab = t;
    return (long)R;
}

/* --plot: loss (left) and accuracy (right) per epoch, training and validation, the best epoch
 * marked. One run: its curves. Several: per epoch, the mean over the runs that reached it and a
 * band from their minimum to their maximum (display only; the numbers are the callback's). The
 * validation curves join the epochs that validated (--eval-every N). */
static int plot_training(const options *o, plot_format fmt, int width, int height,
                         const progress *p, const run_result *rr, int n_runs, const char *name,
                         const char *what, double mean_test, double std_test)
{
    plot pl;
    if (plot_open(&pl, "gat-train", o->plot, fmt, width, height) != 0) return 1;
    FILE *f = pl.f;
    gat_idx max_epoch = 0;
    double best_sum = 0, *tab;
    /* rows of a run that did not finish (interrupted) come last and are left out */
    size_t n_rows = p->n;
    while (n_rows > 0 && p->row_run[n_rows - 1] > n_runs)
        n_rows--;
    for (size_t k = 0; k < n_rows; k++)
        if (p->rows[k].epoch > max_epoch) max_epoch = p->rows[k].epoch;
    for (int r = 0; r < n_runs; r++)
        best_sum += rr[r].res.best_epoch;
    const long R = plot_rows(p, n_rows, n_runs, max_epoch, &tab);
    if (R < 0) {
        fprintf(stderr, "gat-train: out of memory for the plot\n");
        plot_abort(&pl);
        return 1;
    }
    /* $m every row (the training curves), $v the rows with a validation loss */
    const int W = n_runs == 1 ? 5 : 13;
    for (int block = 0; block < 2; block++) {
        fprintf(f, "%s << EOD\n", block ? "$v" : "$m");
        for (long k = 0; k < R; k++) {
            const double *row = tab + (size_t)k * W;
            if (block && isnan(row[n_runs == 1 ? 2 : 4])) continue;
            fprintf(f, "%d", (int)row[0]);
            for (int c = 1; c < W; c++)
                fprintf(f, " %.9g", row[c]);
            fprintf(f, "\n");
        }
        fprintf(f, "EOD\n");
    }
    free(tab);
    char title[512];
    if (n_runs == 1)
        snprintf(title, sizeof title, "gat-train on %s: test %s %.2f%% (best epoch %d of %d)", name,
                 what, 100 * mean_test, rr[0].res.best_epoch, rr[0].res.epochs);
    else
        snprintf(title, sizeof title,
                 "gat-train on %s, %d runs: test %s %.2f%% +- %.2f%% "
                 "(mean, min-max band)",
                 name, n_runs, what, 100 * mean_test, 100 * std_test);
    fprintf(f, "set multiplot layout 1,2 title ");
    plot_quote(f, title);
    fprintf(f, "\nset grid\nset xlabel 'epoch'\nset key top right\nset xrange [1:%d]\n",
            max_epoch > 1 ? max_epoch : 2);
    const double best = best_sum / n_runs;
    fprintf(f, "set arrow 1 from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lc rgb 'gray30'\n",
            best, best);
    const char *color[2] = {"#1f77b4", "#d62728"}, *label[2] = {"train", "validation"};
    for (int panel = 0; panel < 2; panel++) {
        fprintf(f, "set ylabel '%s'\n", panel ? "accuracy (%)" : "loss");
        if (panel) fprintf(f, "set yrange [0:100]\nset key bottom right\n");
        /* the label away from the key: at the bottom under the loss's key (top right), at the
         * top above the accuracy's (bottom right) */
        fprintf(f, "set label 1 %s at %.9g, graph %s offset 0.5,0 tc rgb 'gray30'\n",
                n_runs == 1 ? "'best'" : "'mean best'", best, panel ? "0.96" : "0.04");
        const char *scale = panel ? "100*" : "";
        fprintf(f, "plot ");
        for (int c = 0; c < 2; c++) {
            const int col = panel * 2 + c; /* curve index 0..3 */
            const char *data = c ? "$v" : "$m";
            if (n_runs == 1) {
                fprintf(f, "%s%s using 1:(%s$%d) with lines lw 1.5 lc rgb '%s' title '%s'",
                        c ? ", " : "", data, scale, 2 + col, color[c], label[c]);
            } else {
                fprintf(f,
                        "%s%s using 1:(%s$%d):(%s$%d) with filledcurves fs transparent solid "
                        "0.3 noborder lc rgb '%s' notitle, ",
                        c ? ", " : "", data, scale, 3 + 3 * col, scale, 4 + 3 * col, color[c]);
                fprintf(f, "%s using 1:(%s$%d) with lines lw 1.5 lc rgb '%s' title '%s (mean)'",
                        data, scale, 2 + 3 * col, color[c], label[c]);
            }
        }
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    return plot_close(&pl, "gat-train");
}

int train_write_outputs(const options *o, const progress *p, const run_result *rr, int done,
                        const char *name, const char *what, double mean, double sd)
{
    if (p->oom) {
        fprintf(stderr, "gat-train: out of memory recording the epochs for --metrics/--plot\n");
        return 1;
    }
    /* an interrupted run's epochs are written too: they show where it was going */
    if (o->metrics) {
        if (gat_metrics_save(o->metrics, p->rows, o->runs > 1 ? p->row_run : NULL, p->n) != GAT_OK)
            return train_fail("cannot write the metrics");
        if (!o->quiet) printf("wrote %s: %zu epochs\n", o->metrics, p->n);
    }
    if (o->draw && done > 0) {
        if (plot_training(o, o->plot_fmt, o->plot_w, o->plot_h, p, rr, done, name, what, mean,
                          sd) != 0)
            return 1;
        if (!o->quiet) printf("wrote %s: %dx%d\n", o->plot, o->plot_w, o->plot_h);
    }
    return 0;
}

double train_reported(const options *o, const gat_train_result *r, int val)
{
    if (o->metric == GAT_METRIC_AUC) return val ? r->val_auc : r->test_auc;
    return val ? r->val_acc : r->test_acc;
}

const char *train_reported_name(const options *o)
{
    if (o->multilabel) return "micro-F1";
    return o->metric == GAT_METRIC_AUC ? "ROC-AUC" : "accuracy";
}

void train_print_runs(const options *o, const run_result *rr, int n)
{
    const int auc = o->metric == GAT_METRIC_AUC;
    printf("%4s %10s %10s %7s %8s %8s %9s\n", "run", "seed", "best epoch", "epochs",
           auc ? "val auc" : "val acc", auc ? "test auc" : "test acc", "seconds");
    for (int r = 0; r < n; r++)
        printf("%4d %10d %10d %7d %7.2f%% %7.2f%% %9.2f\n", r + 1, rr[r].seed, rr[r].res.best_epoch,
               rr[r].res.epochs, 100 * train_reported(o, &rr[r].res, 1),
               100 * train_reported(o, &rr[r].res, 0), rr[r].res.seconds);
}
