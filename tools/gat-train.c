/* gat-train: trains a GAT on a Cora-style dataset, or on a graph file with feature and label
 * files, and reports test accuracy. Option parsing and printing only; all numerics are libgat
 * calls. */
#include "cli.h"
#include "plot.h"

#include "gat/gat.h"
#include "gat_config.h"
#if GAT_HAVE_MPI
#include "gat/dist.h"
#endif

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct options {
    cli_data data;
    const char *save;
    const char *attention, *hidden_heads; /* --attention NAME, --hidden-heads K[,K...] */
    const char *order;                    /* --order NAME */
    const char *fanout;                   /* --fanout F1[,F2...] */
    const char *partitions;               /* --partitions DIR (under mpirun) */
    int batch_size;                       /* --batch-size B (0: full graph) */
    const char *metrics, *plot, *plot_size; /* --metrics FILE, --plot FILE, --plot-size WxH */
    int residual, edge_features;
    int layers, hidden, heads, out_heads, epochs, patience, seed, threads, runs;
    int train_per_class, val_size, test_size; /* -1: not given (the adaptive defaults) */
    int random_split, normalize, no_normalize, directed, quiet, split_index, all_splits;
    int log_every;
    double lr, weight_decay, dropout, in_dropout, att_dropout, slope;
} options;

/* What the progress callback keeps: the epoch rows of every run for --metrics and --plot, and
 * the state of the progress line when stderr is a terminal. */
typedef struct progress {
    const options *o;
    int run;                /* 1-based */
    int keep;               /* record rows (--metrics or --plot) */
    gat_epoch_info *rows;   /* (n) every epoch of every run, run after run */
    gat_idx *row_run;       /* (n) the run of each row */
    size_t n, cap;
    int oom;                /* a row could not be recorded */
    int tty;                /* stderr is a terminal: one line updated in place */
    double last_draw;       /* CLOCK_MONOTONIC seconds of the last update of that line */
    gat_epoch_info last;    /* the latest epoch, drawn once more when the run ends */
    /* A terminal's line also moves during an epoch: a ticker thread redraws it with the time
     * the epoch under way has taken once that passes a second (the library reports only
     * between epochs). lock guards the line and the fields below it. */
    pthread_t ticker;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int ticking;            /* the ticker runs; cleared to stop it */
    /* Test hook: with GAT_TRAIN_TEST_TICKER set in the environment, each part of an epoch that
     * ends waits until the ticker has drawn it (as if the epoch had taken a second), so that a
     * test sees the 'under way' line however fast or loaded the machine is. */
    int force;              /* the hook is on */
    int pending;            /* a part ended that the ticker has not drawn yet (force) */
    pthread_cond_t drawn;   /* the ticker drew it (force) */
    double epoch_start;     /* when the epoch under way (or the run's setup) began */
    gat_stage_info part;    /* the last part of the epoch under way that ended (part.done > 0) */
} progress;

/* One finished run, for the table of --runs N. */
typedef struct run_result {
    int seed;
    gat_train_result res;
} run_result;

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

/* on: catches SIGINT, SIGTERM (and with --partitions SIGUSR1) with on_signal, except a signal
 * the parent left ignored (nohup, a background job), which stays ignored. !on, once the work is
 * saved: the default actions again, so that a process slow to exit (OpenBLAS's threads ending
 * under ulimit -v) ends at the first SIGTERM. */
static void catch_signals(int on)
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

/* The progress line of a terminal: "\r" returns to its start and ESC [K clears what a longer
 * previous line left, so the line is rewritten in place. */
static void draw_line(const progress *p, const gat_epoch_info *e, double busy)
{
    if (p->o->runs > 1) fprintf(stderr, "\rrun %d/%d  ", p->run, p->o->runs);
    else fputc('\r', stderr);
    if (e->epoch > 0)
        fprintf(stderr, "epoch %d  loss %.4f/%.4f  acc %.2f%%/%.2f%% (train/val)  best %d  "
                        "%.1f epochs/s  %.1f s", e->epoch, e->train_loss, e->val_loss,
                100 * e->train_acc, 100 * e->val_acc, e->best_epoch,
                e->seconds > 0 ? e->epoch / e->seconds : 0.0, e->seconds);
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
static void start_ticker(progress *p)
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
static void end_line(progress *p)
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
static void on_stage(const gat_stage_info *s, void *user)
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
static int on_stop(void *user)
{
    (void)user;
    return stop_signal != 0;
}

static int on_epoch(const gat_epoch_info *e, void *user)
{
    progress *p = user;
    if (p->keep && !p->oom) {
        if (p->n == p->cap) {
            const size_t cap = p->cap ? 2 * p->cap : 1024;
            gat_epoch_info *rows = realloc(p->rows, cap * sizeof *rows);
            if (rows) p->rows = rows;
            gat_idx *run = rows ? realloc(p->row_run, cap * sizeof *run) : NULL;
            if (run) p->row_run = run;
            if (rows && run) p->cap = cap;
            else p->oom = 1;
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
        printf("epoch %5d  train loss %.4f acc %6.2f%%  val loss %.4f acc %6.2f%%  best %d  "
               "%.3f s\n", e->epoch, e->train_loss, 100 * e->train_acc, e->val_loss, 100 * e->val_acc,
               e->best_epoch, e->seconds);
    }
    return stop_signal != 0;
}

/* The table of --runs N, one line per finished run. */
static void print_runs(const run_result *rr, int n)
{
    printf("%4s %10s %10s %7s %8s %8s %9s\n", "run", "seed", "best epoch", "epochs", "val acc",
           "test acc", "seconds");
    for (int r = 0; r < n; r++)
        printf("%4d %10d %10d %7d %7.2f%% %7.2f%% %9.2f\n", r + 1, rr[r].seed, rr[r].res.best_epoch,
               rr[r].res.epochs, 100 * rr[r].res.val_acc, 100 * rr[r].res.test_acc,
               rr[r].res.seconds);
}

/* The four curves of a row, in the columns' order: train loss, val loss, train acc, val acc. */
static void curves(const gat_epoch_info *e, double v[4])
{
    v[0] = e->train_loss;
    v[1] = e->val_loss;
    v[2] = e->train_acc;
    v[3] = e->val_acc;
}

/* --plot: loss (left) and accuracy (right) per epoch, training and validation, the best epoch
 * marked. One run: its curves. Several: per epoch, the mean over the runs that reached it and a
 * band from their minimum to their maximum (display only; the numbers are the callback's). */
static int plot_training(const options *o, plot_format fmt, int width, int height,
                         const progress *p, const run_result *rr, int n_runs, const char *name,
                         double mean_test, double std_test)
{
    plot pl;
    if (plot_open(&pl, "gat-train", o->plot, fmt, width, height) != 0) return 1;
    FILE *f = pl.f;
    gat_idx max_epoch = 0;
    double best_sum = 0;
    /* rows of a run that did not finish (interrupted) come last and are left out */
    size_t n_rows = p->n;
    while (n_rows > 0 && p->row_run[n_rows - 1] > n_runs) n_rows--;
    for (size_t k = 0; k < n_rows; k++)
        if (p->rows[k].epoch > max_epoch) max_epoch = p->rows[k].epoch;
    for (int r = 0; r < n_runs; r++) best_sum += rr[r].res.best_epoch;
    fprintf(f, "$m << EOD\n");
    if (n_runs == 1) {
        for (size_t k = 0; k < n_rows; k++) {
            double v[4];
            curves(&p->rows[k], v);
            fprintf(f, "%d %.9g %.9g %.9g %.9g\n", p->rows[k].epoch, v[0], v[1], v[2], v[3]);
        }
    } else {
        /* rows of each run are consecutive with epochs 1, 2, ...: row k of a run is epoch k+1 */
        size_t *start = calloc((size_t)n_runs + 1, sizeof *start);
        if (!start) {
            fprintf(stderr, "gat-train: out of memory for the plot\n");
            fclose(pl.f);
            pl.f = NULL;
            plot_close(&pl, "gat-train");
            return 1;
        }
        for (size_t k = 0; k < n_rows; k++) start[p->row_run[k]]++;
        for (int r = 1; r <= n_runs; r++) start[r] += start[r - 1];
        for (gat_idx e = 1; e <= max_epoch; e++) {
            double sum[4] = {0}, lo[4], hi[4];
            int cnt = 0;
            for (int r = 0; r < n_runs; r++) {
                if (start[r] + (size_t)e > start[r + 1]) continue;
                double v[4];
                curves(&p->rows[start[r] + (size_t)e - 1], v);
                for (int c = 0; c < 4; c++) {
                    sum[c] += v[c];
                    lo[c] = cnt == 0 || v[c] < lo[c] ? v[c] : lo[c];
                    hi[c] = cnt == 0 || v[c] > hi[c] ? v[c] : hi[c];
                }
                cnt++;
            }
            fprintf(f, "%d", e);
            for (int c = 0; c < 4; c++)
                fprintf(f, " %.9g %.9g %.9g", sum[c] / cnt, lo[c], hi[c]);
            fprintf(f, "\n");
        }
        free(start);
    }
    fprintf(f, "EOD\n");
    char title[512];
    if (n_runs == 1)
        snprintf(title, sizeof title, "gat-train on %s: test accuracy %.2f%% (best epoch %d of %d)",
                 name, 100 * mean_test, rr[0].res.best_epoch, rr[0].res.epochs);
    else
        snprintf(title, sizeof title, "gat-train on %s, %d runs: test accuracy %.2f%% +- %.2f%% "
                 "(mean, min-max band)", name, n_runs, 100 * mean_test, 100 * std_test);
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
            if (n_runs == 1) {
                fprintf(f, "%s$m using 1:(%s$%d) with lines lw 1.5 lc rgb '%s' title '%s'",
                        c ? ", " : "", scale, 2 + col, color[c], label[c]);
            } else {
                fprintf(f, "%s$m using 1:(%s$%d):(%s$%d) with filledcurves fs transparent solid "
                           "0.3 noborder lc rgb '%s' notitle, ", c ? ", " : "", scale, 3 + 3 * col,
                        scale, 4 + 3 * col, color[c]);
                fprintf(f, "$m using 1:(%s$%d) with lines lw 1.5 lc rgb '%s' title '%s (mean)'",
                        scale, 2 + 3 * col, color[c], label[c]);
            }
        }
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    return plot_close(&pl, "gat-train");
}

/* Fills heads[l] for the hidden layers 0..layers-2 from "K[,K...]" (the last value repeats).
 * Returns 0, or 2 after a message. */
static int parse_heads(const char *list, int layers, int *heads)
{
    int n, rc = cli_parse_list("gat-train", "hidden-heads", list, 1, 1024,
                               "K[,K...] with each K in [1, 1024]", GAT_MAX_LAYERS, heads, &n);
    if (rc) return rc;
    if (n > layers - 1) {
        fprintf(stderr, "gat-train: --hidden-heads: %d value%s for %d hidden layer%s "
                        "(--layers %d)\n", n, n > 1 ? "s" : "", layers - 1,
                layers == 2 ? "" : "s", layers);
        return 2;
    }
    for (int l = n; l < layers - 1; l++) heads[l] = heads[n - 1];
    return 0;
}

/* Fills fanout[h] for the layers from "F1,...,FL" (each -1 or >= 0, exactly one per layer).
 * Returns 0, or 2 after a message. */
static int parse_fanout(const char *list, int layers, gat_idx *fanout)
{
    char what[64];
    int n;
    snprintf(what, sizeof what, "F1,...,F%d with each F -1 (all neighbours) or a count >= 0",
             layers);
    const int rc = cli_parse_list("gat-train", "fanout", list, -1, 100000000, what,
                                  GAT_MAX_LAYERS, fanout, &n);
    if (rc) return rc;
    if (n != layers) {
        fprintf(stderr, "gat-train: --fanout: %d value%s for %d layer%s (--layers %d): give one "
                        "fan-out per layer, the output layer's first\n", n, n == 1 ? "" : "s",
                layers, layers == 1 ? "" : "s", layers);
        return 2;
    }
    return 0;
}

/* Says on stderr how the random split was adapted to the data (ds->split_adapted != 0) against
 * the sizes o asked for, e.g. "9-20 training nodes per class (classes of fewer than 40 nodes give
 * half: 'project' 19 -> 9), 42 validation and 84 test nodes (500 and 1000 requested)". */
static void split_note(const gat_dataset *ds, const gat_dataset_options *o)
{
    gat_idx *count = calloc(2 * (size_t)ds->n_classes + 1, sizeof *count);
    if (!count) return;
    gat_idx *train = count + ds->n_classes, lo = -1, hi = 0;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] >= 0) {
            count[ds->labels[i]]++;
            train[ds->labels[i]] += ds->split[i] == GAT_SPLIT_TRAIN;
        }
    for (gat_idx c = 0; c < ds->n_classes; c++) {
        if (lo < 0 || train[c] < lo) lo = train[c];
        if (train[c] > hi) hi = train[c];
    }
    fprintf(stderr, "gat-train: random split adapted to the data: ");
    if (lo == hi)
        fprintf(stderr, "%d training nodes per class", lo);
    else
        fprintf(stderr, "%d-%d training nodes per class", lo, hi);
    if (ds->split_adapted & GAT_SPLIT_STRICT_TRAIN) {
        int listed = 0;
        fprintf(stderr, " (classes of fewer than %d nodes give half:", 2 * o->train_per_class);
        for (gat_idx c = 0; c < ds->n_classes; c++) {
            if (train[c] >= o->train_per_class) continue;
            if (listed++ == 8) {
                fprintf(stderr, " ...");
                break;
            }
            fprintf(stderr, "%s '%s' %d -> %d", listed > 1 ? "," : "", ds->class_names[c],
                    count[c], train[c]);
        }
        fprintf(stderr, ")");
    }
    fprintf(stderr, ", %d validation and %d test nodes", ds->n_val, ds->n_test);
    if (ds->split_adapted & (GAT_SPLIT_STRICT_VAL | GAT_SPLIT_STRICT_TEST))
        fprintf(stderr, " (%d and %d requested)", o->n_val, o->n_test);
    fprintf(stderr, "\n");
    free(count);
}

/* With --partitions: this process's rank, which its messages name; -1 otherwise. */
static int dist_rank = -1;

static int fail(const char *what)
{
    const char *msg = gat_last_error();
    if (dist_rank < 0)
        fprintf(stderr, "gat-train: %s: %s\n", what, msg);
    else if (dist_rank == 0 || strncmp(msg, "rank ", 5) != 0) /* rank 0 names another's fault */
        fprintf(stderr, "gat-train: rank %d: %s: %s\n", dist_rank, what, msg);
    return 1;
}

#if GAT_HAVE_MPI
/* --partitions: the flags that read a dataset or sample do not apply. */
static int dist_usage(const options *o)
{
    const char *bad = o->data.graph ? "--graph" : o->batch_size ? "--batch-size"
                      : o->random_split ? "--random-split" : NULL;
    if (bad) {
        fprintf(stderr, "gat-train: --partitions: %s does not apply (the partition holds the "
                        "dataset and its split; training is full-graph)\n", bad);
        return 2;
    }
    return 0;
}

/* MPI, this rank's part and its gat_dist; with --dataset, the partition must be the dataset's.
 * Every rank returns the same verdict (a failure on one is reported by it and ends all). */
static int dist_open(const options *o, const gat_dataset_options *dopt, gat_part *part,
                     gat_dist **dist, int *rank)
{
    int size, bad = 0, any = 0;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "gat-train: --partitions: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dist_rank = *rank;
    gat_partition_manifest man;
    memset(part, 0, sizeof *part);
    if (gat_part_load(part, o->partitions, *rank) != GAT_OK) {
        bad = fail("cannot load its part");
    } else if (part->n_parts != size) {
        fprintf(stderr, "gat-train: rank %d: %s holds %d parts but mpirun started %d ranks "
                        "(run mpirun -np %d)\n", *rank, o->partitions, part->n_parts, size,
                part->n_parts);
        bad = 1;
    }
    if (!bad && *rank == 0 && o->data.dataset) {
        /* the partition of this dataset? its graph and shapes, by the manifest's fingerprint */
        gat_dataset ds;
        const char *name;
        gat_dataset_options d = *dopt;
        d.normalize = GAT_NORMALIZE_OFF;
        if (cli_load_dataset("gat-train", &o->data, NULL, 1, &d, &ds, &name) != 0) {
            bad = 1;
        } else if (gat_partition_manifest_load(&man, o->partitions) != GAT_OK) {
            bad = fail("cannot read the manifest");
            gat_dataset_destroy(&ds);
        } else {
            if (gat_dataset_fingerprint(&ds) != man.fingerprint) {
                fprintf(stderr, "gat-train: rank 0: %s is a partition of another dataset than "
                                "%s (fingerprints %016llx and %016llx)\n", o->partitions, name,
                        (unsigned long long)man.fingerprint,
                        (unsigned long long)gat_dataset_fingerprint(&ds));
                bad = 1;
            }
            gat_partition_manifest_destroy(&man);
            gat_dataset_destroy(&ds);
        }
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) {
        gat_dist_options dop;
        gat_dist_options_default(&dop);
        dop.normalize = dopt->normalize;
        if (o->order) gat_order_from_name(o->order, &dop.order); /* checked by main */
        if (gat_dist_create(dist, part, MPI_COMM_WORLD, &dop) != GAT_OK) {
            /* every rank fails together; the one that failed says why */
            fail("cannot set up");
            any = 1;
        }
    } else if (!bad && *rank == 0) {
        fprintf(stderr, "gat-train: rank 0: stopping: another rank failed (its message says why)\n");
    }
    /* the rank keeps what it needs of its part: give the part's memory back */
    gat_part_destroy(part);
    if (any) {
        MPI_Finalize();
        return 1;
    }
    const gat_part *kept = gat_dist_part(*dist);
    if (!o->quiet && *rank == 0) {
        gat_dist_stats st;
        gat_dist_get_stats(*dist, &st);
        printf("partition %s: %d parts, %d nodes; rank 0 owns %d nodes, %d halo, %d edges\n",
               o->partitions, kept->n_parts, kept->n_global, kept->n_owned, kept->n_halo,
               kept->nnz);
        if (st.order != GAT_ORDER_NONE)
            printf("rank 0's node order %s: %.2f s\n", gat_order_name(st.order), st.order_seconds);
    }
    return 0;
}

/* Whether every rank goes on to the next run (collective: ranks stop together, e.g. when a
 * signal reached one of them between runs). */
static int all_continue(int go)
{
    int all = 0;
    if (MPI_Allreduce(&go, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return 0;
    return all;
}

/* Every rank's exchange figures, printed by rank 0 (collective: every rank calls it). */
static void dist_report(const gat_dist *d, const options *o, gat_idx epochs)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gat_dist_stats st;
    gat_dist_get_stats(d, &st);
    double mine[6] = {st.n_owned, st.n_halo, st.peers, st.send_rows, (double)st.epoch_bytes,
                      st.exchange_seconds}, *all = rank == 0 ? malloc(6 * (size_t)size * sizeof *all)
                                                               : NULL;
    int ok = rank != 0 || all;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) return;
    MPI_Gather(mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0 && !o->quiet) {
        printf("%4s %10s %10s %6s %10s %12s %14s\n", "rank", "owned", "halo", "peers",
               "send rows", "MB/epoch", "exchange s/ep");
        for (int q = 0; q < size; q++) {
            const double *v = all + 6 * q;
            printf("%4d %10.0f %10.0f %6.0f %10.0f %12.2f %14.4f\n", q, v[0], v[1], v[2], v[3],
                   v[4] / 1e6, v[5] / (epochs > 0 ? epochs : 1));
        }
    }
    free(all);
}

static int dist_normalized(const gat_dist *d)
{
    gat_dist_stats st;
    gat_dist_get_stats(d, &st);
    return st.normalized;
}
#endif

int main(int argc, char **argv)
{
    options o = {.layers = 2, .hidden = 8, .heads = 8, .out_heads = 1,
                 .epochs = 100000, .patience = 100, .seed = 1, .threads = 0, .runs = 1,
                 .train_per_class = -1, .val_size = -1, .test_size = -1, .log_every = 1,
                 .lr = 0.005, .weight_decay = 5e-4, .dropout = -1, .in_dropout = 0.6,
                 .att_dropout = 0.6, .slope = 0.2};
    const cli_option opts[] = {
        {"dataset", CLI_STRING, &o.data.dataset, 0, 0, "NAME|PATH", "bundled dataset (cora, citeseer) or path (default cora)"},
        CLI_GRAPH_OPTIONS(o.data),
        CLI_LABEL_OPTIONS(o.data),
        {"layers", CLI_INT, &o.layers, 1, GAT_MAX_LAYERS, "L", "attention layers (default 2)"},
        {"hidden", CLI_INT, &o.hidden, 1, 65536, "F", "units per head of hidden layers (default 8)"},
        {"heads", CLI_INT, &o.heads, 1, 1024, "K", "heads of hidden layers, concatenated (default 8)"},
        {"out-heads", CLI_INT, &o.out_heads, 1, 1024, "K", "heads of the output layer, averaged (default 1)"},
        {"hidden-heads", CLI_STRING, &o.hidden_heads, 0, 0, "K[,K...]", "heads of each hidden layer, the last repeating (default --heads)"},
        {"attention", CLI_STRING, &o.attention, 0, 0, "NAME", "edge score: gat, gatv2, dot, scaled-dot, bilinear, cosine, gaussian (default gat)"},
        {"residual", CLI_FLAG, &o.residual, 0, 0, NULL, "residual connection per layer, projected where widths differ"},
        {"edge-features", CLI_FLAG, &o.edge_features, 0, 0, NULL, "use the dataset's edge features in the attention score (gat and gatv2: PyG's GATConv / GATv2Conv(edge_dim))"},
        {"lr", CLI_REAL, &o.lr, 1e-12, 10, "X", "Adam learning rate (default 0.005)"},
        {"weight-decay", CLI_REAL, &o.weight_decay, 0, 10, "X", "L2 weight decay (default 5e-4)"},
        {"dropout", CLI_REAL, &o.dropout, 0, 0.99, "P", "set both dropouts below"},
        {"in-dropout", CLI_REAL, &o.in_dropout, 0, 0.99, "P", "dropout on each layer's input (default 0.6)"},
        {"att-dropout", CLI_REAL, &o.att_dropout, 0, 0.99, "P", "dropout on attention coefficients (default 0.6)"},
        {"slope", CLI_REAL, &o.slope, 0, 1, "X", "LeakyReLU negative slope of the scores (default 0.2)"},
        {"epochs", CLI_INT, &o.epochs, 1, 100000000, "N", "maximum epochs (default 100000)"},
        {"patience", CLI_INT, &o.patience, 1, 100000000, "N", "early-stopping patience (default 100)"},
        {"seed", CLI_INT, &o.seed, 0, 2147483647, "S", "random seed (default 1); run r uses seed S+r-1"},
        {"runs", CLI_INT, &o.runs, 1, 10000, "N", "train N times and report mean and std (default 1)"},
        {"threads", CLI_INT, &o.threads, 0, 1024, "T", "kernel threads, 0 = all cores (default 0)"},
        {"order", CLI_STRING, &o.order, 0, 0, "NAME", "node order for locality: auto (rcm from 2M edges where it brings neighbours closer), none, rcm or degree (default auto; none with --batch-size)"},
        {"batch-size", CLI_INT, &o.batch_size, 1, 2147483647, "B", "mini-batch training: B training nodes per step on sampled neighbourhoods (needs --fanout)"},
        {"fanout", CLI_STRING, &o.fanout, 0, 0, "F1,...,FL", "with --batch-size: in-neighbours sampled per node and layer, the output layer's first; -1 all, 0 none"},
        {"partitions", CLI_STRING, &o.partitions, 0, 0, "DIR", "distributed training: under mpirun -np K, rank r trains on part r of the partition gat-partition wrote to DIR (with --dataset: checked to be its partition)"},
        {"random-split", CLI_FLAG, &o.random_split, 0, 0, NULL, "ignore the split file: seeded random split"},
        {"split-index", CLI_INT, &o.split_index, 0, 2147483647, "K", "use fixed split K of the dataset's splits (.npz masks, Geom-GCN split files; default 0)"},
        {"all-splits", CLI_FLAG, &o.all_splits, 0, 0, NULL, "one run per fixed split of the dataset (run r: split r-1, seed S+r-1), then mean and std as --runs"},
        {"train-per-class", CLI_INT, &o.train_per_class, 1, 1000000, "N", "random split: training nodes per class, exactly (default: 20, or half of a class under 40)"},
        {"val-size", CLI_INT, &o.val_size, 1, 100000000, "N", "random split: validation nodes, exactly (default: 500, or fewer to fit)"},
        {"test-size", CLI_INT, &o.test_size, 0, 100000000, "N", "random split: test nodes, exactly (default: 1000, or fewer to fit)"},
        {"normalize", CLI_FLAG, &o.normalize, 0, 0, NULL, "row-normalise the features; an error if one is negative (default: when none is)"},
        {"no-normalize", CLI_FLAG, &o.no_normalize, 0, 0, NULL, "do not row-normalise the features"},
        {"directed", CLI_FLAG, &o.directed, 0, 0, NULL, "keep edges directed (.cites: b -> a; --graph: as the file says)"},
        {"log-every", CLI_INT, &o.log_every, 1, 100000000, "N", "print progress every N epochs (default 1)"},
        {"quiet", CLI_FLAG, &o.quiet, 0, 0, NULL, "print only the summary"},
        {"save", CLI_STRING, &o.save, 0, 0, "MODEL", "write the trained (best) model to MODEL; needs --runs 1"},
        {"metrics", CLI_STRING, &o.metrics, 0, 0, "FILE", "write one row per epoch to FILE: CSV, or JSON lines if it ends in .jsonl"},
        {"plot", CLI_STRING, &o.plot, 0, 0, "FILE", "draw loss and accuracy curves to FILE (.png or .svg) with gnuplot"},
        {"plot-size", CLI_STRING, &o.plot_size, 0, 0, "WxH", "size of --plot in pixels (default 640x400)"},
        {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    int exit_now, rc;
    if ((rc = cli_parse(argc, argv, opts, "gat-train", "[options]", &exit_now)) || exit_now) return rc;
    if (o.dropout >= 0) o.in_dropout = o.att_dropout = o.dropout;
    gat_order order = GAT_ORDER_AUTO;
    if (o.order && gat_order_from_name(o.order, &order) != GAT_OK) {
        fprintf(stderr, "gat-train: --order: %s\n", gat_last_error());
        return 2;
    }
    gat_score score = GAT_SCORE_GAT;
    int hidden_heads[GAT_MAX_LAYERS] = {0};
    if (o.attention && gat_score_from_name(o.attention, &score) != GAT_OK) {
        fprintf(stderr, "gat-train: --attention: %s\n", gat_last_error());
        return 2;
    }
    if (o.hidden_heads && (rc = parse_heads(o.hidden_heads, o.layers, hidden_heads)) != 0) return rc;
    gat_idx fanout[GAT_MAX_LAYERS] = {0};
    if (o.fanout && !o.batch_size) {
        fprintf(stderr, "gat-train: --fanout needs --batch-size (try --help)\n");
        return 2;
    }
    if (o.batch_size && !o.fanout) {
        fprintf(stderr, "gat-train: --batch-size needs --fanout F1,...,F%d: one fan-out per layer "
                        "(-1 takes every neighbour)\n", o.layers);
        return 2;
    }
    if (o.fanout && (rc = parse_fanout(o.fanout, o.layers, fanout)) != 0) return rc;
    /* mini-batches bind a block per step and the whole graph for validation: a node order would
     * be computed again at every validation, so none unless asked for */
    if (o.batch_size && !o.order) order = GAT_ORDER_NONE;
    if (o.normalize && o.no_normalize) {
        fprintf(stderr, "gat-train: --normalize and --no-normalize conflict (try --help)\n");
        return 2;
    }
    if (o.all_splits && (o.runs > 1 || o.split_index || o.random_split || o.partitions)) {
        fprintf(stderr, "gat-train: --all-splits sets the runs and splits: it excludes --runs, "
                        "--split-index, --random-split and --partitions\n");
        return 2;
    }
    if (o.save && (o.runs > 1 || o.all_splits)) {
        fprintf(stderr, "gat-train: --save keeps one model: use it with --runs 1\n");
        return 2;
    }
    /* outputs are checked before training, which may take long */
    plot_format plot_fmt = PLOT_PNG;
    int plot_w = PLOT_WIDTH, plot_h = PLOT_HEIGHT, draw = 0;
    if (o.plot_size && !o.plot) {
        fprintf(stderr, "gat-train: --plot-size needs --plot (try --help)\n");
        return 2;
    }
    if (o.plot_size && (rc = plot_parse_size("gat-train", o.plot_size, &plot_w, &plot_h)) != 0)
        return rc;
    if (o.plot && (rc = plot_check_path("gat-train", "plot", o.plot, &plot_fmt)) != 0) return rc;
    if (o.metrics && (rc = cli_check_output("gat-train", "metrics", o.metrics)) != 0) return rc;
    if (o.plot) {
        /* training is the point: without gnuplot it runs and saves all the same (exit 0) */
        draw = plot_available();
        if (!draw)
            fprintf(stderr, "gat-train: --plot: gnuplot not found on PATH, so %s will not be "
                            "drawn (install it: %s); training goes on\n", o.plot,
                    PLOT_INSTALL_HINT);
    }

    gat_dataset_options dopt;
    gat_dataset_options_default(&dopt);
    dopt.normalize = o.normalize      ? GAT_NORMALIZE_ON
                     : o.no_normalize ? GAT_NORMALIZE_OFF
                                      : GAT_NORMALIZE_AUTO;
    dopt.symmetrize = !o.directed;
    dopt.ignore_split_file = o.random_split;
    dopt.split_index = o.split_index;
    /* sizes given on the command line must be met; the defaults adapt to small data */
    if (o.train_per_class >= 0) dopt.train_per_class = o.train_per_class;
    if (o.val_size >= 0) dopt.n_val = o.val_size;
    if (o.test_size >= 0) dopt.n_test = o.test_size;
    dopt.split_strict = (o.train_per_class >= 0 ? GAT_SPLIT_STRICT_TRAIN : 0u) |
                        (o.val_size >= 0 ? GAT_SPLIT_STRICT_VAL : 0u) |
                        (o.test_size >= 0 ? GAT_SPLIT_STRICT_TEST : 0u);
    dopt.seed = (uint64_t)o.seed;
    gat_dataset ds;
    const char *name;
    int rank = 0;
#if GAT_HAVE_MPI
    gat_part part;
    gat_dist *dist = NULL;
    if (o.partitions) {
        if ((rc = dist_usage(&o)) != 0) return rc;
        if ((rc = dist_open(&o, &dopt, &part, &dist, &rank)) != 0) return rc;
        signal_echo = 1;
        /* every rank prints nothing but its errors; rank 0 reports and writes the files */
        if (rank > 0) {
            o.quiet = 1, o.metrics = o.plot = o.save = NULL, draw = 0;
            if (!freopen("/dev/null", "w", stdout)) return 1;
        }
        memset(&ds, 0, sizeof ds);
        const gat_part *kept = gat_dist_part(dist);
        ds.n_features = kept->n_features;
        ds.n_classes = kept->n_classes;
        ds.class_names = kept->class_names;
        ds.n_edge_features = kept->n_edge_features; /* the model's edge_dim; the rank binds its own */
        ds.normalized = dist_normalized(dist);
        name = o.partitions;
        if (o.edge_features && ds.n_edge_features == 0) {
            if (rank == 0)
                fprintf(stderr, "gat-train: --edge-features: partition %s carries no edge "
                                "features (its dataset had none)\n", name);
            gat_dist_free(dist);
            MPI_Finalize();
            return 1;
        }
    } else
#else
    if (o.partitions) {
        fprintf(stderr, "gat-train: --partitions: this build has no MPI (install libopenmpi-dev "
                        "and rebuild: meson -Dmpi=enabled)\n");
        return 2;
    }
#endif
    if ((rc = cli_load_dataset("gat-train", &o.data, "cora", 1, &dopt, &ds, &name)) != 0) return rc;
    if (o.all_splits && ds.n_splits < 2) {
        fprintf(stderr, "gat-train: --all-splits: dataset %s holds %d fixed split%s\n", name,
                ds.n_splits, ds.n_splits == 1 ? "" : "s");
        gat_dataset_destroy(&ds);
        return 1;
    }
    if (o.all_splits) o.runs = ds.n_splits;
#if GAT_HAVE_MPI
    if (!dist) {
#endif
    if (!o.quiet && dopt.normalize == GAT_NORMALIZE_AUTO && ds.negative_value < 0)
        fprintf(stderr, "gat-train: features have negative values (first: node '%s', column %d, "
                        "%g): not row-normalised (use --no-normalize to silence this)\n",
                ds.node_ids[ds.negative_node], ds.negative_column, (double)ds.negative_value);
    if (!o.quiet && ds.split_adapted) split_note(&ds, &dopt);
    if (o.edge_features && ds.n_edge_features == 0) {
        fprintf(stderr, "gat-train: --edge-features: dataset %s has no edge feature columns (extra "
                        "numeric .cites columns, --edge-attributes, or a .gatd edge_features "
                        "tensor)\n", name);
        gat_dataset_destroy(&ds);
        return 1;
    }
    if (!o.quiet && ds.n_edge_features > 0 && !o.edge_features)
        fprintf(stderr, "gat-train: %s has %d edge feature column%s: read, not used (--edge-features "
                        "puts them in the attention score)\n",
                name, ds.n_edge_features, ds.n_edge_features == 1 ? "" : "s");
    if (!o.quiet)
        printf("dataset %s: %d nodes, %d edges (with self-loops), %d features, %d classes, "
               "split %d/%d/%d\n", name, ds.n, ds.graph.nnz, ds.n_features, ds.n_classes,
               ds.n_train, ds.n_val, ds.n_test);
    if (!o.quiet && o.batch_size) {
        const int steps = ds.n_train > 0 ? (ds.n_train + o.batch_size - 1) / o.batch_size : 0;
        printf("mini-batches of %d training nodes (%d step%s per epoch), fan-outs %s (output "
               "layer first)\n", o.batch_size < ds.n_train ? o.batch_size : ds.n_train, steps,
               steps == 1 ? "" : "s", o.fanout);
    }
#if GAT_HAVE_MPI
    }
#endif

    catch_signals(1);

    double sum = 0, sum2 = 0, secs = 0;
    int interrupted = 0, done = 0;
    progress p = {.o = &o, .keep = o.metrics || draw, .tty = !o.quiet && isatty(STDERR_FILENO),
                  .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
                  .drawn = PTHREAD_COND_INITIALIZER};
    run_result *rr = calloc((size_t)o.runs, sizeof *rr);
    if (!rr) {
        fprintf(stderr, "gat-train: out of memory for %d runs\n", o.runs);
        gat_dataset_destroy(&ds);
        return 1;
    }
    rc = 0;
    for (int r = 0; r < o.runs; r++) {
        int go = rc == 0 && !interrupted && !stop_signal;
#if GAT_HAVE_MPI
        if (dist) go = all_continue(go);
#endif
        if (!go) break;
        if (o.all_splits && r > 0) { /* the next split: the same file read again */
            gat_dataset_destroy(&ds);
            dopt.split_index = r;
            if (cli_load_dataset("gat-train", &o.data, "cora", 1, &dopt, &ds, &name) != 0) {
                rc = 1;
                break;
            }
        }
        gat_model_config mc;
        gat_model_config_default(&mc, ds.n_features, ds.n_classes);
        mc.layers = o.layers;
        mc.hidden = o.hidden;
        mc.heads = o.heads;
        mc.out_heads = o.out_heads;
        mc.in_dropout = o.in_dropout;
        mc.att_dropout = o.att_dropout;
        mc.negative_slope = o.slope;
        mc.score = score;
        mc.residual = o.residual;
        mc.edge_dim = o.edge_features ? ds.n_edge_features : 0; /* gat_train binds ds.edge_x */
        memcpy(mc.hidden_heads, hidden_heads, sizeof mc.hidden_heads);
        gat_model *m = NULL;
        if (gat_model_create(&m, &mc, (uint64_t)o.seed + (uint64_t)r) != GAT_OK) {
            rc = fail("cannot create the model");
            break;
        }
        gat_model_set_threads(m, o.threads);
        gat_model_set_order(m, order);
        gat_train_config tc;
        gat_train_config_default(&tc);
        tc.adam.lr = o.lr;
        tc.adam.weight_decay = o.weight_decay;
        tc.max_epochs = o.epochs;
        tc.patience = o.patience;
        tc.batch_size = o.batch_size;
        tc.n_fanout = o.batch_size ? o.layers : 0;
        memcpy(tc.fanout, fanout, sizeof tc.fanout);
        tc.seed = (uint64_t)o.seed + (uint64_t)r;
        tc.stop = on_stop;
        p.run = r + 1;
        tc.progress = on_epoch;
        tc.stage = p.tty && !o.quiet ? on_stage : NULL;
        tc.user = &p;
        gat_train_result res;
        start_ticker(&p);
#if GAT_HAVE_MPI
        tc.stage = dist ? NULL : tc.stage;
        const gat_status tst = dist ? gat_dist_train(m, dist, &tc, &res) : gat_train(m, &ds, &tc, &res);
#else
        const gat_status tst = gat_train(m, &ds, &tc, &res);
#endif
        end_line(&p);
        if (tst == GAT_EINTERRUPTED) {
            /* the best model so far is restored: it is saved below like a finished one */
            interrupted = 1;
            if (!o.save && rank == 0)
                fprintf(stderr, "gat-train: interrupted %s epoch %d; best epoch %d (no --save: "
                                "the model is not kept)\n", o.batch_size ? "after" : "at",
                        res.epochs, res.best_epoch);
        } else if (tst != GAT_OK) {
            rc = fail("training failed");
        } else {
            sum += res.test_acc;
            sum2 += res.test_acc * res.test_acc;
            secs += res.seconds;
            rr[done].seed = o.seed + r;
            rr[done++].res = res;
            /* early stopping kept an epoch-1 or -2 model that no later one beat, though it had
             * the time (patience ran out, or 50 epochs): often a lucky validation score (a small
             * or skewed validation set), not a trained model. Short runs say nothing. */
            const int later = res.epochs - res.best_epoch;
            if (rank == 0 && res.best_epoch <= 2 && later > 0 &&
                later >= (o.patience < 50 ? o.patience : 50))
                fprintf(stderr, "gat-train: warning: run %d: the restored model is from epoch %d "
                                "of %d (no later epoch beat its validation score)\n",
                        r + 1, res.best_epoch, res.epochs);
            if (o.runs == 1 && !o.quiet)
                printf("run %d (seed %d): test accuracy %.2f%%  val %.2f%%  best epoch %d of %d, "
                       "%.2f s (%.3f ms/epoch)\n", r + 1, o.seed + r, 100 * res.test_acc,
                       100 * res.val_acc, res.best_epoch, res.epochs, res.seconds,
                       1e3 * res.seconds / res.epochs);
#if GAT_HAVE_MPI
            if (dist && o.runs == 1) dist_report(dist, &o, res.epochs);
#endif
            double order_s;
            const gat_order used = gat_model_order(m, &order_s);
            if (!o.quiet && used != GAT_ORDER_NONE)
                printf("node order %s: %.2f s (counted in the training time)\n",
                       gat_order_name(used), order_s);
            else if (!o.quiet && order_s > 0)
                printf("node order: the input's kept (auto: RCM would not bring neighbours "
                       "closer; deciding took %.2f s)\n", order_s);
            if (o.runs == 1)
                printf("test accuracy: %.2f%%  (best epoch %d, %.2f s)\n", 100 * res.test_acc,
                       res.best_epoch, res.seconds);
        }
        if (rc == 0 && o.save) {
            gat_model_meta meta;
            gat_model_meta_init(&meta);
            meta.n_classes = ds.n_classes;
            meta.class_names = ds.class_names;
            meta.normalize = ds.normalized; /* what was done, for gat-embed to repeat */
            meta.symmetrize = dopt.symmetrize;
            /* borrowed for the call; a --graph dataset has no name gat-embed could load */
            meta.dataset = o.data.graph || o.partitions ? NULL : name;
            if (gat_model_save(m, &meta, o.save) != GAT_OK)
                rc = fail("cannot save the model");
            else if (interrupted)
                fprintf(stderr, "gat-train: interrupted %s epoch %d; best model (epoch %d) saved "
                                "to %s\n", o.batch_size ? "after" : "at", res.epochs,
                        res.best_epoch, o.save);
            else if (!o.quiet)
                printf("saved the model to %s\n", o.save);
        }
        gat_model_free(m);
    }
    if (rc == 0 && p.oom) {
        fprintf(stderr, "gat-train: out of memory recording the epochs for --metrics/--plot\n");
        rc = 1;
    }
    /* an interrupted run's epochs are written too: they show where it was going */
    if (rc == 0 && o.metrics) {
        if (gat_metrics_save(o.metrics, p.rows, o.runs > 1 ? p.row_run : NULL, p.n) != GAT_OK)
            rc = fail("cannot write the metrics");
        else if (!o.quiet)
            printf("wrote %s: %zu epochs\n", o.metrics, p.n);
    }
    const double mean = done ? sum / done : 0, var = done ? sum2 / done - mean * mean : 0;
    if (rc == 0 && draw && done > 0) {
        if (plot_training(&o, plot_fmt, plot_w, plot_h, &p, rr, done, name, mean,
                          sqrt(var > 0 ? var : 0)) != 0)
            rc = 1;
        else if (!o.quiet)
            printf("wrote %s: %dx%d\n", o.plot, plot_w, plot_h);
    }
    catch_signals(0); /* everything is written */
    if (rc == 0 && stop_signal && !interrupted)
        fprintf(stderr, "gat-train: interrupted after training finished\n");
    if (rc == 0 && stop_signal) rc = 128 + stop_signal; /* 130 SIGINT, 143 SIGTERM, 138 SIGUSR1 */
    if (rc == 0 && o.runs > 1) {
        if (!o.quiet) print_runs(rr, done);
        printf("test accuracy: %.2f%% +- %.2f%%  (%d runs, seeds %d..%d, %.2f s)\n", 100 * mean,
               100 * sqrt(var > 0 ? var : 0), o.runs, o.seed, o.seed + o.runs - 1, secs);
    }
    free(p.rows);
    free(p.row_run);
    free(rr);
#if GAT_HAVE_MPI
    if (dist) {
        gat_dist_free(dist);
        gat_part_destroy(&part);
        MPI_Finalize();
        (void)rank;
        return rc;
    }
#endif
    gat_dataset_destroy(&ds);
    return rc;
}
