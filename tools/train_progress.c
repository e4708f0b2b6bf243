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

static double now(void)
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
        const double busy = now() - p->epoch_start;
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
    p->epoch_start = now();
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

int on_epoch(const gat_epoch_info *e, void *user)
{
    progress *p = user;
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
    if (p->o->quiet) return stop_signal != 0;
    if (p->tty) {
        /* at most ten updates a second: a terminal cannot show more, and writes cost */
        pthread_mutex_lock(&p->lock);
        const double t = now();
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
