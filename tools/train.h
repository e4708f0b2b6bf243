/* gat-train's parts shared by its modes: the parsed options, what the runs train on (a dataset in
 * this process, or a partition's parts under mpirun), and the distributed mode (train_mpi.c when
 * libgat has MPI, train_nompi.c otherwise). */
#ifndef GAT_TOOL_TRAIN_H
#define GAT_TOOL_TRAIN_H

#include "cli.h"
#include "pe.h"
#include "plot.h"

#include "gat/gat.h"

#include <pthread.h>

/* options.test_size of --test-size rest (gat_dataset_options.n_test = GAT_SPLIT_REST) */
#define TEST_SIZE_REST (-2)

typedef struct options {
    cli_data data;
    const char *save;
    /* --checkpoint FILE, --checkpoint-every N|Ts (parsed into ckpt_epochs or ckpt_seconds),
     * --resume FILE */
    const char *checkpoint, *checkpoint_every, *resume;
    int ckpt_epochs;
    double ckpt_seconds;
    const char *attention, *hidden_heads;   /* --attention NAME, --hidden-heads K[,K...] */
    const char *order;                      /* --order NAME */
    const char *fanout;                     /* --fanout F1[,F2...] */
    const char *partitions;                 /* --partitions DIR (under mpirun) */
    int batch_size;                         /* --batch-size B (0: full graph) */
    const char *metrics, *plot, *plot_size; /* --metrics FILE, --plot FILE, --plot-size WxH */
    int residual, edge_features;
    int layers, hidden, heads, out_heads, epochs, patience, seed, threads, runs;
    /* -1: not given (the adaptive defaults); test_size TEST_SIZE_REST for --test-size rest */
    int train_per_class, val_size, test_size, val_per_class;
    const char *test_size_text; /* --test-size N|rest, parsed into test_size */
    int random_split, normalize, no_normalize, directed, quiet, split_index, all_splits;
    int resplit;     /* --resplit: run r draws its own random split (split seed + r - 1) */
    int runs_per_split; /* --runs-per-split K (0: not given, 1): with --resplit, a new split
                         * every K runs (run r: split seed + (r - 1) / K) */
    int standardize; /* --standardize: the features' columns z-scored (train_graphs.c) */
    int log_every;
    int eval_every;         /* --eval-every N (0: every epoch) */
    int split_seed;         /* --split-seed N, or -1: the model's --seed */
    const char *save_split; /* --save-split FILE */
    const char *preset;     /* --preset NAME (train_presets.c), applied before the options */
    int preset_raw;         /* the preset reads features as stored (no row normalisation) */
    const char *metric_name; /* --metric NAME, or NULL: auc for two classes, else acc */
    int multilabel;         /* --task multilabel: sigmoid cross-entropy, micro-F1 (check_options) */
    double lr, weight_decay, dropout, in_dropout, att_dropout, slope;
    int head_dropout;       /* --head-dropout: a mask per head (gat_model_config.head_dropout) */
    int score_bias;         /* --score-bias: the score halves' biases (gat_model_config.score_bias) */
    int whole_scores;       /* --whole-scores 0|1 (gat_model_config and gat_gps_config's
                             * whole_scores); -1 (--preset platonov): 1 where the model has the
                             * gat score (not --arch transformer, not --attention other than gat) */
    const char *linear_init_name; /* --linear-init glorot|pytorch (graph transformers) */
    int linear_init;              /* gat_gps_config.linear_init; -1 (--preset platonov): 1 for a
                                   * graph transformer */
    double proj_dropout;    /* --proj-dropout (gat_model_config.proj_dropout) */
    /* what the checks made of them (check_options) */
    gat_order node_order;            /* --order, or the mode's default */
    gat_score score;                 /* --attention */
    gat_metric metric;               /* --metric, or its default for the data (train_runs) */
    int layer_heads[GAT_MAX_LAYERS]; /* --hidden-heads per hidden layer, or 0 */
    gat_idx fanouts[GAT_MAX_LAYERS]; /* --fanout per layer */
    plot_format plot_fmt;            /* --plot's format, */
    int plot_w, plot_h;              /* size */
    int draw;                        /* and whether gnuplot is there to draw it */
    /* graph classification (--task graph, train_graphs.c) */
    const char *task, *readout;      /* --task NAME, --readout NAME */
    const char *fold_index;          /* --fold-index PREFIX: fixed folds */
    const char *save_folds;          /* --save-folds FILE */
    int folds, graph_batch, readout_heads, embed_dim; /* folds 0: not given (10) */
    int embed_dim_given;             /* --embed-dim on the command line (a preset sets it too) */
    int classifier_layers;           /* --classifier-layers L */
    double lr_factor, min_lr;        /* --lr-factor F (0: constant lr), --min-lr X */
    int lr_patience;                 /* --lr-patience N, or -1: not given */
    int lr_step;                     /* --lr-step N (0: the plateau schedule) */
    int keep_last;                   /* --keep-last: the last epoch's model, not the best */
    const char *pe;                  /* --pe SPEC (pe.h), or NULL */
    const char *arch;                /* --arch NAME: gat, or a graph transformer (train_gps.c) */
    int anchors;                     /* --anchors M */
    int gps;                         /* --arch names a graph transformer, */
    gat_gps_kind arch_kind;          /*  this one */
    gat_task task_kind;              /* what the checks made of --task */
    gat_readout readout_kind;        /*  and --readout */
} options;

/* ---- train_progress.c: signals, the progress line, the epochs kept ---- */

/* What the progress callback keeps: the epoch rows of every run for --metrics and --plot, and
 * the state of the progress line when stderr is a terminal. */
typedef struct progress {
    const options *o;
    int run;              /* 1-based: the run, or with --task graph the fold */
    int folds;            /* --task graph: the number of folds (the line says fold r/k); 0 */
    int keep;             /* record rows (--metrics or --plot) */
    gat_epoch_info *rows; /* (n) every epoch of every run, run after run */
    gat_idx *row_run;     /* (n) the run of each row */
    size_t n, cap;
    int oom;             /* a row could not be recorded */
    int tty;             /* stderr is a terminal: one line updated in place */
    double last_draw;    /* CLOCK_MONOTONIC seconds of the last update of that line */
    gat_epoch_info last; /* the latest epoch, drawn once more when the run ends */
    /* A terminal's line also moves during an epoch: a ticker thread redraws it with the time
     * the epoch under way has taken once that passes a second (the library reports only
     * between epochs). lock guards the line and the fields below it. */
    pthread_t ticker;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int ticking; /* the ticker runs; cleared to stop it */
    /* Test hook: with GAT_TRAIN_TEST_TICKER set in the environment, each part of an epoch that
     * ends waits until the ticker has drawn it (as if the epoch had taken a second), so that a
     * test sees the 'under way' line however fast or loaded the machine is. */
    int force;            /* the hook is on */
    int pending;          /* a part ended that the ticker has not drawn yet (force) */
    pthread_cond_t drawn; /* the ticker drew it (force) */
    double epoch_start;   /* when the epoch under way (or the run's setup) began */
    gat_stage_info part;  /* the last part of the epoch under way that ended (part.done > 0) */
} progress;

/* One finished run, for the table of --runs N and the plot. */
typedef struct run_result {
    int seed;
    gat_train_result res;
} run_result;

/* After the runs: --metrics (every row p kept, an interrupted run's too; with --runs N the run
 * column) and --plot (the curves of the done finished runs rr, the title giving the mean and
 * std of their test figure, called what), each said in a line. Returns 0, or 1 after a message
 * (the rows could not all be kept, a file could not be written). */
int train_write_outputs(const options *o, const progress *p, const run_result *rr, int done,
                        const char *name, const char *what, double mean, double sd);

/* The graceful handlers of SIGINT and SIGTERM; distributed: also SIGUSR1, and the echo of one
 * Ctrl-C under mpirun counts once (train_progress.c). A signal the parent left ignored (nohup,
 * a background job) stays ignored. */
void train_catch_signals(int distributed);
/* The default actions again, once the work is saved: a process slow to exit (OpenBLAS's threads
 * ending under ulimit -v) ends at the first SIGTERM. */
void train_release_signals(void);

/* The signal that stops training (SIGINT, SIGTERM, SIGUSR1) once received, else 0. */
int train_stop_signal(void);
/* The monotonic clock, in seconds. */
double train_now(void);

/* Starts run p->run's ticker thread on a terminal; end_line stops it and ends the line. */
void start_ticker(progress *p);
void end_line(progress *p);

/* gat_train_config's callbacks with user = a progress: the parts of an epoch (stage), whether to
 * stop after the step under way (stop), the epochs (progress: printed and kept). */
void on_stage(const gat_stage_info *s, void *user);
int on_stop(void *user);
int on_epoch(const gat_epoch_info *e, void *user);
/* Keeps e as a row of run p->run for --metrics and --plot (when p->keep). */
void train_keep_row(progress *p, const gat_epoch_info *e);
/* Run r's checkpoint files: --checkpoint's and --resume's FILE for a single run; with more runs
 * (--runs, --all-splits) run R's are FILE.runR, and a run after the first whose --resume file
 * is not there starts afresh (resume NULL): the runs stopped before it. */
typedef struct train_files {
    const char *checkpoint, *resume; /* for gat_train_config (NULL: none) */
    const char *unit;                /* "run" or "fold" */
    int several;                     /* FILE.unitR, not FILE */
    char ckpt_buf[4096], resume_buf[4096];
} train_files;
/* Fills f for run r (0-based). Returns 0, or 1 after a message (a name too long, the first
 * run's resume file missing). */
int train_run_files(const options *o, int r, train_files *f);
/* The same for fold r of --task graph's folds: FILE.foldF always. */
int train_fold_files(const options *o, int r, int folds, train_files *f);
/* Run or fold r's training loop configuration, shared by every trainer: gat_train_config's
 * defaults, then Adam's lr and weight decay, --epochs, --patience, --eval-every, --metric, the
 * seed o->seed + r, the graph task's schedule and --keep-last (zero on node tasks, whose
 * trainers do not read them), the checkpoint files f and the progress callback reporting to p.
 * The caller adds what is its own (batch sizes, fan-outs, stop and stage callbacks). */
void train_loop_config(const options *o, int r, const train_files *f, progress *p,
                       gat_train_config *tc);
/* After fold r's training (status st, result res, files f): its resumed rows past its end
 * dropped; when a signal stopped it, a note of where its state is. Returns 1 for a stopped
 * fold, else 0. */
int train_fold_stopped(const options *o, const train_files *f, int r, gat_status st,
                       const gat_train_result *res, progress *p);
/* With a resume file and --metrics or --plot: the checkpoint's epochs kept as the run's first
 * rows. Returns 0, or 1 after a message. */
int train_resume_rows(const char *resume, progress *p);
/* After a run resumed from a checkpoint of more epochs than it takes (a smaller --epochs or
 * --patience ending it earlier): the kept rows of run p->run past its epochs dropped. */
void train_trim_rows(progress *p, gat_idx epochs);
/* After run r's stop by a signal: where its checkpoint (f) keeps the state and how to go on
 * (nothing without --checkpoint). */
void train_checkpoint_note(const options *o, const train_files *f, int r, gat_idx epochs);

/* The figure a run reports: its ROC-AUC when early stopping followed it, else its accuracy (or
 * micro-F1); of the test nodes, or with val of the validation nodes. */
double train_reported(const options *o, const gat_train_result *r, int val);
/* Its name in the lines printed. */
const char *train_reported_name(const options *o);
/* The table of --runs N, one line per finished run. */
void train_print_runs(const options *o, const run_result *rr, int n);

/* ---- train_presets.c: --preset ---- */

/* Applies the preset argv names with --preset (if any) to o, which holds the defaults: the
 * options then parsed override it. Returns 0, or 2 after a message (an unknown name). */
int train_apply_preset(options *o, int argc, char **argv);
/* Whether argv gives option --name (one taking a value) */
int train_option_given(int argc, char **argv, const char *name);

/* The presets' names and one line on each, for --help. */
extern const char train_preset_help[];

/* ---- train_gps.c: --arch gps|transformer|gat-mlp ---- */

/* The usage checks of --arch and --anchors. Returns 0 or 2 after a message. */
int train_gps_check(options *o);
/* --order for a graph transformer's node task: ds renumbered (gat_dataset_order) before its
 * encodings, as a GAT model renumbers the graph it binds (a transformer reads the dataset as it
 * is); the order applied into *used, what it took into *seconds. Returns 0, or 1 after a
 * message. */
int train_gps_order(const options *o, gat_dataset *ds, gat_order *used, double *seconds);
/* o->runs graph transformers on ds (called name) and its node split (pe: its encodings, flipped
 * per epoch and fixed for the figures); before run r > 0, next_split(user, r) (when not NULL:
 * --all-splits' or --resplit's split r, 0 or 1 after a message); with --save (one run) the model
 * goes to o->save with meta save; --metrics and --plot as train_runs. Returns the exit code. */
int train_gps_nodes(options *o, gat_dataset *ds, const char *name, tool_pe *pe,
                    const gat_model_meta *save, int (*next_split)(void *, int), void *user);
/* Fold r of --task graph with a graph transformer: trains on split with checkpoint files f,
 * each epoch reported to p, *acc the test accuracy, res the training's; save non-NULL: the model
 * goes to o->save with that meta. *stopped: a signal stopped the training (nothing evaluated or
 * saved). Returns 0, or 1 or 2 after a message. */
int train_gps_fold(const options *o, const gat_dataset *ds, const uint8_t *split, tool_pe *pe,
                   int r, const train_files *f, progress *p, const gat_model_meta *save,
                   double *acc, gat_train_result *res, int *stopped);

/* ---- gat-train.c: the runs ---- */

/* What the runs train on. */
typedef struct source {
    const char *name;          /* the dataset's or the partition's, for messages and the plot */
    const char *model_dataset; /* gat_model_meta.dataset: a name gat-embed can load, or NULL */
    const char *pe;            /* gat_model_meta.pe: the encodings in the features, or NULL */
    gat_idx n_features, n_classes, n_edge_features;
    const char *const *class_names; /* (n_classes), borrowed */
    int normalized, symmetrize;     /* what the features and the graph went through */
    int rank;                       /* this process's rank (0 but under --partitions) */
    int distributed; /* 1: the runs agree over the ranks (agree), signals echo (mpirun), no
                      * stage callback */
    int val_both;    /* the validation nodes hold both classes of two-class data (an AUC) */
    /* gat_model_meta's standardisation: --standardize's moments (borrowed), or 0 and NULL */
    gat_idx n_standardized;
    const gat_real *feature_shift, *feature_scale;
    /* Trains m with tc, filling res (gat_train or gat_dist_train). */
    gat_status (*train)(void *user, gat_model *m, const gat_train_config *tc,
                        gat_train_result *res);
    int (*agree)(void *user, int go); /* whether every rank goes on to the next run, or NULL */
    /* After a single run that trained (collective), or NULL: the exchange figures. */
    void (*report)(void *user, const options *o, gat_idx epochs);
    /* Before run r > 0, or NULL (--all-splits): the data with fixed split r. Returns 0 or an
     * exit code. The fields above stay valid but class_names (--all-splits excludes --save). */
    int (*next_split)(void *user, int r);
    void *user;
} source;

/* The model configuration of o for src (gat-train.c), a node model. */
void train_model_config(const options *o, const source *src, gat_model_config *mc);

/* --task graph (train_graphs.c): k-fold cross-validation of a graph model on a dataset of many
 * graphs. Returns the exit code. */
int train_graphs(options *o, const gat_dataset_options *dopt);
/* The usage checks of the graph options (train_graphs.c). Returns 0 or 2 after a message. */
int train_graphs_check(options *o);
/* --task multilabel --graph-batch B (train_graphs.c): whether ds (called name) is a set of graphs
 * each of whose nodes share one split (0, or 1 after a message); gat_graph_train on it with that
 * split per graph and B graphs per step (tc's other fields as gat_train reads them). */
int train_graph_batches_check(const gat_dataset *ds, const char *name);
gat_status train_graph_batches(const gat_dataset *ds, gat_model *m, const gat_train_config *tc,
                               int graphs_per_step, gat_train_result *res);

/* Trains o->runs models on src, writes the outputs o asks for and prints the summary. Returns the
 * exit code (0, 1, 2, or 128 + a signal). */
int train_runs(options *o, const source *src);

/* The first random split size o gives (--train-per-class, --val-size, --val-per-class,
 * --test-size; gat-train.c), or NULL. */
const char *train_split_size_option(const options *o);

/* Prints "gat-train: WHAT: <gat_last_error()>" (naming this process's rank under --partitions)
 * to stderr. Returns 1. */
int train_fail(const char *what);

/* The rank train_fail names (-1: none, the default). */
void train_set_rank(int rank);

/* --partitions: under mpirun, rank r trains on part r of the partition o->partitions names.
 * dopt: the dataset options (to check the partition against --dataset). Returns the exit code. */
int train_partitions(options *o, const gat_dataset_options *dopt);

#endif
