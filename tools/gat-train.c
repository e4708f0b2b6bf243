/* gat-train: trains a GAT on a Cora-style dataset, or on a graph file with feature and label
 * files, and reports test accuracy. Option parsing and printing only; all numerics are libgat
 * calls. Here: the options, the configurations they fill, the runs and their outputs, and the
 * single-process mode; train_progress.c: signals and the progress line; train_mpi.c:
 * --partitions. Reads bottom up: main, the command line, the modes, the runs. */
#include "train.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A limit of the library as a string in the help (GAT_MAX_HEADS is a plain number). */
#define STR_(x) #x
#define STR(x) STR_(x)

/* Fills heads[l] for the hidden layers 0..layers-2 from "K[,K...]" (the last value repeats).
 * Returns 0, or 2 after a message. */
static int parse_heads(const char *list, int layers, int *heads)
{
    char what[64];
    int n;
    snprintf(what, sizeof what, "K[,K...] with each K in [1, %d]", GAT_MAX_HEADS);
    const int rc = cli_parse_list("gat-train", "hidden-heads", list, 1, GAT_MAX_HEADS, what,
                                  GAT_MAX_LAYERS, heads, &n);
    if (rc) return rc;
    if (n > layers - 1) {
        fprintf(stderr,
                "gat-train: --hidden-heads: %d value%s for %d hidden layer%s "
                "(--layers %d)\n",
                n, n > 1 ? "s" : "", layers - 1, layers == 2 ? "" : "s", layers);
        return 2;
    }
    for (int l = n; l < layers - 1; l++)
        heads[l] = heads[n - 1];
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
    const int rc = cli_parse_list("gat-train", "fanout", list, -1, 100000000, what, GAT_MAX_LAYERS,
                                  fanout, &n);
    if (rc) return rc;
    if (n != layers) {
        fprintf(stderr,
                "gat-train: --fanout: %d value%s for %d layer%s (--layers %d): give one "
                "fan-out per layer, the output layer's first\n",
                n, n == 1 ? "" : "s", layers, layers == 1 ? "" : "s", layers);
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
            fprintf(stderr, "%s '%s' %d -> %d", listed > 1 ? "," : "", ds->class_names[c], count[c],
                    train[c]);
        }
        fprintf(stderr, ")");
    }
    fprintf(stderr, ", %d validation and %d test nodes", ds->n_val, ds->n_test);
    if (ds->split_adapted & (GAT_SPLIT_STRICT_VAL | GAT_SPLIT_STRICT_TEST)) {
        char val[48], test[32];
        if (o->val_per_class > 0)
            snprintf(val, sizeof val, "%d per class", o->val_per_class);
        else
            snprintf(val, sizeof val, "%d", o->n_val);
        if (o->n_test == GAT_SPLIT_REST)
            snprintf(test, sizeof test, "the rest");
        else
            snprintf(test, sizeof test, "%d", o->n_test);
        fprintf(stderr, " (%s and %s requested)", val, test);
    }
    fprintf(stderr, "\n");
    free(count);
}

const char *train_split_size_option(const options *o)
{
    return o->train_per_class >= 0 ? "--train-per-class"
           : o->val_size >= 0      ? "--val-size"
           : o->val_per_class >= 0 ? "--val-per-class"
           : o->test_size != -1    ? "--test-size"
                                   : NULL;
}

/* Options that would do nothing on this input are usage errors (2): a size of the random split
 * (which implies --random-split) beside the split file --split names (--directed on a .gatd
 * file, whose graph is stored as it was built: cli_load_dataset). Returns 0 or 2 after a
 * message. */
static int split_usage(options *o)
{
    const char *size = train_split_size_option(o);
    if (size && o->data.split) {
        fprintf(stderr,
                "gat-train: %s draws a random split, but --split %s gives the split "
                "(drop one; try --help)\n",
                size, o->data.split);
        return 2;
    }
    o->data.direction = o->directed && !o->partitions ? "--directed" : NULL;
    return 0;
}

/* With --partitions: this process's rank, which its messages name; -1 otherwise. */
static int dist_rank = -1;

void train_set_rank(int rank)
{
    dist_rank = rank;
}

int train_fail(const char *what)
{
    const char *msg = gat_last_error();
    if (dist_rank < 0)
        fprintf(stderr, "gat-train: %s: %s\n", what, msg);
    else if (dist_rank == 0 || strncmp(msg, "rank ", 5) != 0) /* rank 0 names another's fault */
        fprintf(stderr, "gat-train: rank %d: %s: %s\n", dist_rank, what, msg);
    return 1;
}

/* ---- the configurations: every option reaches libgat here ---- */

void train_model_config(const options *o, const source *src, gat_model_config *mc)
{
    gat_model_config_default(mc, src->n_features, src->n_classes);
    mc->layers = o->layers;
    mc->hidden = o->hidden;
    mc->heads = o->heads;
    mc->out_heads = o->out_heads;
    mc->in_dropout = o->in_dropout;
    mc->att_dropout = o->att_dropout;
    mc->head_dropout = o->head_dropout;
    mc->score_bias = o->score_bias;
    mc->whole_scores = o->whole_scores;
    mc->proj_dropout = o->proj_dropout;
    mc->negative_slope = o->slope;
    mc->score = o->score;
    mc->residual = o->residual;
    mc->edge_dim = o->edge_features ? src->n_edge_features : 0; /* gat_train binds ds.edge_x */
    memcpy(mc->hidden_heads, o->layer_heads, sizeof mc->hidden_heads);
    cli_model_env(&mc->options); /* GAT_ISA, GAT_ALPHA */
}

/* Run r's training configuration (seed o->seed + r, checkpoint files f); the callbacks report
 * to p. */
static void train_config(const options *o, const source *src, int r, const train_files *f,
                         progress *p, gat_train_config *tc)
{
    train_loop_config(o, r, f, p, tc);
    tc->batch_size = o->batch_size;
    tc->n_fanout = o->batch_size ? o->layers : 0;
    memcpy(tc->fanout, o->fanouts, sizeof tc->fanout);
    /* with checkpoints a signal ends the epoch under way, whose end writes the checkpoint */
    tc->stop = o->checkpoint ? NULL : on_stop;
    tc->stage = p->tty && !o->quiet && !src->distributed ? on_stage : NULL;
}

static void dataset_options(const options *o, gat_dataset_options *dopt)
{
    gat_dataset_options_default(dopt);
    dopt->normalize = o->normalize                                         ? GAT_NORMALIZE_ON
                      : o->no_normalize || o->preset_raw || o->standardize ? GAT_NORMALIZE_OFF
                                                                           : GAT_NORMALIZE_AUTO;
    dopt->symmetrize = !o->directed;
    dopt->split_index = o->split_index;
    /* a size of the random split asks for one (split_usage) */
    dopt->ignore_split_file = o->random_split || o->resplit || train_split_size_option(o);
    /* sizes given on the command line must be met; the defaults adapt to small data */
    if (o->train_per_class >= 0) dopt->train_per_class = o->train_per_class;
    if (o->val_size >= 0) dopt->n_val = o->val_size;
    if (o->val_per_class >= 0) dopt->val_per_class = o->val_per_class;
    if (o->test_size != -1)
        dopt->n_test = o->test_size == TEST_SIZE_REST ? GAT_SPLIT_REST : o->test_size;
    dopt->split_strict = (o->train_per_class >= 0 ? GAT_SPLIT_STRICT_TRAIN : 0u) |
                         (o->val_size >= 0 || o->val_per_class >= 0 ? GAT_SPLIT_STRICT_VAL : 0u) |
                         (o->test_size >= 0 ? GAT_SPLIT_STRICT_TEST : 0u);
    dopt->seed = (uint64_t)(o->split_seed >= 0 ? o->split_seed : o->seed);
}

/* ---- the runs ---- */

/* What the runs of train_runs share. */
typedef struct runs {
    options *o;
    const source *src;
    progress p;
    run_result *rr; /* (o->runs) the finished runs */
    int done, interrupted;
    double sum, sum2, secs; /* of the finished runs' test accuracies and times */
} runs;

/* A single run's lines (--runs 1), after it trained. */
static void report_single(const runs *s, int r, const gat_train_result *res)
{
    const options *o = s->o;
    if (!o->quiet)
        printf("run %d (seed %d): test %s %.2f%%  val %.2f%%  best epoch %d of %d, "
               "%.2f s (%.3f ms/epoch)\n",
               r + 1, o->seed + r, train_reported_name(o), 100 * train_reported(o, res, 0),
               100 * train_reported(o, res, 1), res->best_epoch, res->epochs, res->seconds,
               1e3 * res->seconds / res->epochs);
    if (s->src->report) s->src->report(s->src->user, o, res->epochs);
}

/* The node order a run used (printed after every run, after a single run's exchange figures). */
static void report_order(const options *o, gat_model *m)
{
    double order_s;
    const gat_order used = gat_model_order(m, &order_s);
    if (!o->quiet && used != GAT_ORDER_NONE)
        printf("node order %s: %.2f s (counted in the training time)\n", gat_order_name(used),
               order_s);
    else if (!o->quiet && order_s > 0)
        printf("node order: the input's kept (auto: RCM would not bring neighbours closer; "
               "deciding took %.2f s)\n",
               order_s);
}

/* --save: the trained (best) model with what gat-embed needs to read its dataset again. */
static int save_model(const runs *s, gat_model *m, const gat_train_result *res)
{
    const options *o = s->o;
    gat_model_meta meta;
    gat_model_meta_init(&meta);
    meta.n_classes = s->src->class_names ? s->src->n_classes : 0; /* multi-label: unnamed */
    meta.class_names = s->src->class_names;
    meta.normalize = s->src->normalized; /* what was done, for gat-embed to repeat */
    meta.symmetrize = s->src->symmetrize;
    /* borrowed for the call; a --graph dataset has no name gat-embed could load */
    /* a dataset path recorded absolute, so gat-embed finds it from any directory */
    char dataset_buf[4096];
    meta.dataset = cli_dataset_record(s->src->model_dataset, dataset_buf, sizeof dataset_buf);
    meta.pe = s->src->pe;
    meta.tu_features = cli_tu_features(&o->data, GAT_TU_FEATURES_ALL);
    meta.largest_component = o->data.largest_component;
    meta.min_class_nodes = o->data.min_class_nodes;
    meta.n_standardized = s->src->n_standardized;
    meta.feature_shift = s->src->feature_shift;
    meta.feature_scale = s->src->feature_scale;
    if (gat_model_save(m, &meta, o->save) != GAT_OK) return train_fail("cannot save the model");
    if (s->interrupted)
        fprintf(stderr, "gat-train: interrupted %s epoch %d; best model (epoch %d) saved to %s\n",
                o->batch_size ? "after" : "at", res->epochs, res->best_epoch, o->save);
    else if (!o->quiet)
        printf("saved the model to %s\n", o->save);
    return 0;
}

/* Run r: a model trained, reported and saved. Returns the exit code so far (0: go on). */
static int run_one(runs *s, int r, const gat_model_config *mc, gat_order order)
{
    const options *o = s->o;
    gat_model *m = NULL;
    int rc = 0;
    if (gat_model_create(&m, mc, (uint64_t)o->seed + (uint64_t)r) != GAT_OK)
        return train_fail("cannot create the model");
    gat_model_set_threads(m, o->threads);
    gat_model_set_order(m, order);
    gat_train_config tc;
    train_files f;
    s->p.run = r + 1;
    /* a resumed run's earlier epochs, for --metrics and --plot */
    if ((rc = train_run_files(o, r, &f)) != 0 || (rc = train_resume_rows(f.resume, &s->p)) != 0) {
        gat_model_free(m);
        return rc;
    }
    train_config(o, s->src, r, &f, &s->p, &tc);
    gat_train_result res;
    start_ticker(&s->p);
    const gat_status tst = s->src->train(s->src->user, m, &tc, &res);
    end_line(&s->p);
    if (tst == GAT_OK || tst == GAT_EINTERRUPTED) train_trim_rows(&s->p, res.epochs);
    if (tst == GAT_EINTERRUPTED) {
        /* the best model so far is restored: it is saved below like a finished one */
        s->interrupted = 1;
        if (!o->save && s->src->rank == 0)
            fprintf(stderr,
                    "gat-train: interrupted %s epoch %d; best epoch %d (no --save: the "
                    "model is not kept)\n",
                    o->batch_size ? "after" : "at", res.epochs, res.best_epoch);
        train_checkpoint_note(o, &f, r, res.epochs);
    } else if (tst != GAT_OK) {
        rc = train_fail("training failed");
    } else {
        s->sum += train_reported(o, &res, 0);
        s->sum2 += train_reported(o, &res, 0) * train_reported(o, &res, 0);
        s->secs += res.seconds;
        s->rr[s->done].seed = o->seed + r;
        s->rr[s->done++].res = res;
        /* early stopping kept an epoch-1 or -2 model that no later one beat, though it had the
         * time (patience ran out, or 50 epochs): often a lucky validation score (a small or
         * skewed validation set), not a trained model. Short runs say nothing. */
        const int later = res.epochs - res.best_epoch;
        if (s->src->rank == 0 && res.best_epoch <= 2 && later > 0 &&
            later >= (o->patience < 50 ? o->patience : 50))
            fprintf(stderr,
                    "gat-train: warning: run %d: the restored model is from epoch %d of %d "
                    "(no later epoch beat its validation score)\n",
                    r + 1, res.best_epoch, res.epochs);
        if (o->runs == 1) report_single(s, r, &res);
        report_order(o, m);
        if (o->runs == 1)
            printf("test %s: %.2f%%  (best epoch %d, %.2f s)\n", train_reported_name(o),
                   100 * train_reported(o, &res, 0), res.best_epoch, res.seconds);
    }
    if (rc == 0 && o->save) rc = save_model(s, m, &res);
    gat_model_free(m);
    return rc;
}

/* After the runs: --metrics, --plot, the signal's exit code and the summary of --runs N. */
static int finish_runs(runs *s, int rc)
{
    const options *o = s->o;
    const int done = s->done;
    const double mean = done ? s->sum / done : 0, var = done ? s->sum2 / done - mean * mean : 0;
    const double sd = sqrt(var > 0 ? var : 0);
    if (rc == 0)
        rc = train_write_outputs(o, &s->p, s->rr, done, s->src->name, train_reported_name(o), mean,
                                 sd);
    train_release_signals(); /* everything is written */
    if (rc == 0 && train_stop_signal() && !s->interrupted)
        fprintf(stderr, "gat-train: interrupted after training finished\n");
    if (rc == 0 && train_stop_signal())
        rc = 128 + train_stop_signal(); /* 130 SIGINT, 143 SIGTERM, 138 SIGUSR1 */
    if (rc == 0 && o->runs > 1) {
        if (!o->quiet) train_print_runs(o, s->rr, done);
        printf("test %s: %.2f%% +- %.2f%%  (%d runs, seeds %d..%d, %.2f s)\n",
               train_reported_name(o), 100 * mean, 100 * sd, o->runs, o->seed,
               o->seed + o->runs - 1, s->secs);
    }
    return rc;
}

/* What early stopping follows without --metric: the ROC-AUC of two-class data (what Platonov et
 * al. 2023 report for minesweeper, tolokers and questions; distributed training has only the
 * accuracy, and validation nodes of one class have no AUC), else the accuracy. */
static gat_metric default_metric(gat_idx classes, int distributed, int val_both)
{
    return classes == 2 && !distributed && val_both ? GAT_METRIC_AUC : GAT_METRIC_ACC;
}

/* --metric auc on data of other than two classes: a usage error before the work. Returns 0, or
 * 2 after a message. */
static int metric_usage(const options *o, gat_idx classes, const char *name)
{
    if (o->metric != GAT_METRIC_AUC || classes == 2) return 0;
    fprintf(stderr,
            "gat-train: --metric auc: ROC-AUC needs two classes, and %s has %d (use acc or loss)\n",
            name, (int)classes);
    return 2;
}

int train_runs(options *o, const source *src)
{
    /* the model's configuration, checked before the work: options it refuses (a layer wider than
     * the library's limit, an edge term the score lacks, too many edge features) are usage
     * errors */
    gat_model_config mc;
    train_model_config(o, src, &mc);
    /* what early stopping follows: --metric, or default_metric's */
    if (!o->metric_name)
        o->metric = default_metric(src->n_classes, src->distributed, src->val_both);
    else if (metric_usage(o, src->n_classes, src->name) != 0)
        return 2;
    if (gat_model_config_check(&mc) != GAT_OK) {
        if (src->rank == 0)
            fprintf(stderr, "gat-train: invalid model options: %s (try --help)\n",
                    gat_last_error());
        /* every rank has the same configuration, so every rank stops here */
        return 2;
    }
    train_catch_signals(src->distributed);
    runs s = {.o = o,
              .src = src,
              .p = {.o = o,
                    .keep = o->metrics || o->draw,
                    .tty = !o->quiet && isatty(STDERR_FILENO),
                    .lock = PTHREAD_MUTEX_INITIALIZER,
                    .wake = PTHREAD_COND_INITIALIZER,
                    .drawn = PTHREAD_COND_INITIALIZER}};
    if (!(s.rr = calloc((size_t)o->runs, sizeof *s.rr))) {
        fprintf(stderr, "gat-train: out of memory for %d runs\n", o->runs);
        return 1;
    }
    int rc = 0;
    for (int r = 0; r < o->runs; r++) {
        int go = rc == 0 && !s.interrupted && !train_stop_signal();
        if (src->agree) go = src->agree(src->user, go);
        if (!go) break;
        if (r > 0 && src->next_split && (rc = src->next_split(src->user, r)) != 0) break;
        rc = run_one(&s, r, &mc, o->node_order);
    }
    rc = finish_runs(&s, rc);
    free(s.p.rows);
    free(s.p.row_run);
    free(s.rr);
    return rc;
}

/* ---- the modes ---- */

/* What the loader adapted or did not do: normalisation, the random split's sizes. */
static void dataset_notes(const options *o, const gat_dataset_options *dopt, const gat_dataset *ds)
{
    if (o->quiet) return;
    if (dopt->normalize == GAT_NORMALIZE_AUTO && ds->negative_value < 0)
        fprintf(stderr,
                "gat-train: features have negative values (first: node '%s', column %d, "
                "%g): not row-normalised (use --no-normalize to silence this)\n",
                ds->node_ids[ds->negative_node], ds->negative_column, (double)ds->negative_value);
    if (ds->split_adapted) split_note(ds, dopt);
    cli_dataset_notes("gat-train", &o->data, ds, 0);
}

/* The dataset's edge features left unused, and its summary line. */
static void dataset_summary(const options *o, const gat_dataset *ds, const char *name)
{
    if (o->quiet) return;
    if (ds->n_edge_features > 0 && !o->edge_features)
        fprintf(stderr,
                "gat-train: %s has %d edge feature column%s: read, not used (--edge-features "
                "puts them in the attention score)\n",
                name, ds->n_edge_features, ds->n_edge_features == 1 ? "" : "s");
    if (ds->n_labels > 0 && ds->n_graphs > 0)
        printf("dataset %s: %d graphs, %d nodes, %d edges (with self-loops), %d features, %d "
               "labels per node, split %d/%d/%d nodes\n",
               name, ds->n_graphs, ds->n, ds->graph.nnz, ds->n_features, ds->n_labels, ds->n_train,
               ds->n_val, ds->n_test);
    else if (ds->n_labels > 0) /* one graph (an OGB multi-label set) */
        printf("dataset %s: %d nodes, %d edges (with self-loops), %d features, %d labels per "
               "node, split %d/%d/%d\n",
               name, ds->n, ds->graph.nnz, ds->n_features, ds->n_labels, ds->n_train, ds->n_val,
               ds->n_test);
    else
        printf("dataset %s: %d nodes, %d edges (with self-loops), %d features, %d class%s, "
               "split %d/%d/%d\n",
               name, ds->n, ds->graph.nnz, ds->n_features, ds->n_classes,
               ds->n_classes == 1 ? "" : "es", ds->n_train, ds->n_val, ds->n_test);
    cli_constant_features_note("gat-train", ds, name, o->pe, o->quiet);
    cli_one_class_note("gat-train", ds, name, 0, o->quiet);
}

/* Mini-batch mode (--batch-size): its steps per epoch. */
static void minibatch_note(const options *o, const gat_dataset *ds)
{
    if (o->quiet || !o->batch_size) return;
    const int steps = ds->n_train > 0 ? (ds->n_train + o->batch_size - 1) / o->batch_size : 0;
    printf("mini-batches of %d training nodes (%d step%s per epoch), fan-outs %s (output layer "
           "first)\n",
           o->batch_size < ds->n_train ? o->batch_size : ds->n_train, steps, steps == 1 ? "" : "s",
           o->fanout);
}

/* The dataset of train_dataset's runs. */
typedef struct dataset_runs {
    gat_dataset ds;
    const options *o;
    tool_pe pe; /* --pe: the encodings in ds's features */
    /* --standardize: the features as loaded (and encoded) while ds.x holds them standardised,
     * and the moments of the training nodes (own columns: those before --pe's) */
    gat_csr raw;
    gat_idx own;
    gat_real *shift, *scale;
    gat_dataset_options resplit; /* --resplit: the random split's options, run 1's seed */
    gat_order order;             /* a graph transformer's --order: the order applied, */
    double order_s;              /* and its seconds (train_gps_order) */
} dataset_runs;

/* --standardize (node tasks): ds's own columns z-scored by the moments over its training nodes
 * (validation and test nodes shape nothing). Returns 0, or 1 after a message. */
static int standardize_nodes(dataset_runs *d)
{
    if (!d->o->standardize) return 0;
    gat_dataset *ds = &d->ds;
    d->own = d->pe.on ? d->pe.col : ds->n_features; /* the same for every split */
    if (!d->shift) d->shift = malloc(((size_t)d->own + 1) * sizeof *d->shift);
    if (!d->scale) d->scale = malloc(((size_t)d->own + 1) * sizeof *d->scale);
    uint8_t *use = malloc((size_t)ds->n + 1);
    int rc = 1;
    if (!d->shift || !d->scale || !use) {
        fprintf(stderr, "gat-train: --standardize: out of memory\n");
    } else {
        for (gat_idx i = 0; i < ds->n; i++)
            use[i] = ds->split[i] == GAT_SPLIT_TRAIN;
        rc = cli_standardize_fit("gat-train", ds, &d->raw, d->own, use, d->shift, d->scale);
    }
    free(use);
    return rc;
}

/* The dataset released (its features as loaded given back first), and the moments. */
static void dataset_runs_destroy(dataset_runs *d)
{
    cli_restore_features(&d->ds, &d->raw);
    tool_pe_destroy(&d->pe);
    gat_dataset_destroy(&d->ds);
    free(d->shift);
    free(d->scale);
    d->shift = d->scale = NULL;
}

static gat_status dataset_train(void *user, gat_model *m, const gat_train_config *tc,
                                gat_train_result *res)
{
    dataset_runs *d = user;
    gat_train_config t;
    /* --task multilabel --graph-batch B: steps on B whole graphs (train_graphs.c), which bind
     * every batch from the features as they are (nothing to rebind after a flip) */
    const int batches = d->o->multilabel && d->o->graph_batch > 0;
    /* --pe with Laplacian columns: their signs flip at random per epoch, and are fixed again
     * for the reported figures */
    const unsigned flags = d->o->batch_size ? GAT_BIND_INFERENCE : 0u;
    if (tool_pe_train_config("gat-train", &d->pe, batches ? NULL : m, flags, tc->seed, tc, &t) != 0)
        return GAT_ENOMEM;
    gat_status st = batches ? train_graph_batches(&d->ds, m, &t, d->o->graph_batch, res)
                            : gat_train(m, &d->ds, &t, res);
    if ((st == GAT_OK || st == GAT_EINTERRUPTED) &&
        (tool_pe_fix("gat-train", &d->pe, batches ? NULL : m) != 0 ||
         (!batches && tool_pe_evaluate("gat-train", &d->pe, m, res) != 0)))
        st = GAT_ENOMEM;
    return st;
}

/* --all-splits: fixed split r of the dataset (the features' moments refitted to its training
 * nodes under --standardize). */
static int dataset_next_split(void *user, int r)
{
    dataset_runs *d = user;
    if (gat_dataset_use_split(&d->ds, r) != GAT_OK) {
        fprintf(stderr, "gat-train: --all-splits: %s\n", gat_last_error());
        return 1;
    }
    return standardize_nodes(d);
}

/* Whether the validation nodes of split (ds->n) hold class 0 and class 1 (two-class data has an
 * AUC). */
static int split_val_both(const gat_dataset *ds, const uint8_t *split)
{
    int seen[2] = {0, 0};
    for (gat_idx i = 0; i < ds->n; i++)
        if (split[i] == GAT_SPLIT_VAL && ds->labels[i] >= 0 && ds->labels[i] < 2)
            seen[ds->labels[i]] = 1;
    return seen[0] && seen[1];
}

/* The runs of one random split with --resplit (--runs-per-split, default 1). */
static int runs_per_split(const options *o)
{
    return o->runs_per_split > 0 ? o->runs_per_split : 1;
}

/* --resplit: run r + 1 (r >= 1) draws its own random split when r is a multiple of the runs per
 * split K, with the split seed + r / K; the other runs keep the split. */
static int dataset_resplit(void *user, int r)
{
    dataset_runs *d = user;
    const int K = runs_per_split(d->o);
    if (r % K != 0) return 0;
    gat_dataset_options o = d->resplit;
    o.seed += (uint64_t)(r / K);
    if (gat_dataset_random_split(&d->ds, &o) != GAT_OK) {
        fprintf(stderr, "gat-train: --resplit: run %d: %s\n", r + 1, gat_last_error());
        return 1;
    }
    return standardize_nodes(d);
}

/* --resplit on two-class data: the first run (2 .. runs) whose split's validation nodes lack
 * class 0 or 1, named in which ("in run R's split (seed S)"), each split the runs draw drawn here
 * and run 1's put back. Returns 1 when there is one, 0 when none, -1 after a message (a draw
 * failed). */
static int resplit_lacking(dataset_runs *d, char *which, size_t size)
{
    gat_dataset *ds = &d->ds;
    const gat_dataset kept = *ds; /* its counts and adapted bits */
    uint8_t *first = malloc(ds->n > 0 ? (size_t)ds->n : 1);
    int found = 0;
    if (!first) {
        fprintf(stderr, "gat-train: --resplit: out of memory\n");
        return -1;
    }
    memcpy(first, ds->split, (size_t)ds->n);
    const int K = runs_per_split(d->o);
    for (int r = K; r < d->o->runs && !found; r += K) {
        gat_dataset_options o = d->resplit;
        o.seed += (uint64_t)(r / K);
        if (gat_dataset_random_split(ds, &o) != GAT_OK) {
            fprintf(stderr, "gat-train: --resplit: run %d: %s\n", r + 1, gat_last_error());
            found = -1;
        } else if (!split_val_both(ds, ds->split)) {
            snprintf(which, size, " in run %d's split (seed %llu)", r + 1,
                     (unsigned long long)o.seed);
            found = 1;
        }
    }
    memcpy(ds->split, first, (size_t)ds->n);
    ds->n_train = kept.n_train, ds->n_val = kept.n_val, ds->n_test = kept.n_test;
    ds->split_adapted = kept.split_adapted;
    free(first);
    return found;
}

/* The first split the runs train on whose validation nodes lack class 0 or 1, on two-class data
 * (an AUC needs both): with --all-splits every fixed split is one, with --resplit every run's,
 * else the split in use. which gets where (" in fixed split K", " in run R's split (seed S)" or
 * ""). Returns 1 when there is one, 0 when every one has both (or the data has other than two
 * classes), -1 after a message. */
static int val_lacking(dataset_runs *d, char *which, size_t size)
{
    const options *o = d->o;
    const gat_dataset *ds = &d->ds;
    which[0] = '\0';
    if (ds->n_classes != 2) return 0;
    if (!split_val_both(ds, ds->split)) return 1;
    if (o->resplit) return resplit_lacking(d, which, size);
    for (gat_idx k = 0; o->all_splits && ds->splits && k < ds->n_splits; k++)
        if (!split_val_both(ds, ds->splits + (size_t)k * (size_t)ds->n)) {
            snprintf(which, size, " in fixed split %d", (int)k);
            return 1;
        }
    return 0;
}

/* --metric auc on two-class data whose validation nodes (in a split the runs train on, which)
 * are of one class: a usage error before the work, as metric_usage's. Returns 0, or 2 after a
 * message. */
static int metric_val_usage(const options *o, int lacking, const char *which, const char *name)
{
    if (o->metric != GAT_METRIC_AUC || lacking != 1) return 0;
    fprintf(stderr,
            "gat-train: --metric auc: the validation nodes of %s%s are all of one class, and "
            "ROC-AUC needs both (use acc or loss)\n",
            name, which);
    return 2;
}

/* One process on a dataset: full-graph or mini-batch runs. */
static int train_dataset(options *o, const gat_dataset_options *dopt)
{
    dataset_runs d = {.o = o, .resplit = *dopt};
    gat_dataset *ds = &d.ds;
    const char *name;
    /* --split TR/VA/TE: the percentages cli_load_dataset draws the first split by */
    if (o->data.split) (void)cli_split_percentages(NULL, o->data.split, d.resplit.split_fractions);
    int rc = cli_load_dataset("gat-train", &o->data, "cora", 1, dopt, ds, &name);
    if (rc != 0) return rc;
    if (ds->n_classes == 0 && ds->n_labels == 0) { /* no node task: a TU set, or no labels */
        if (ds->n_graph_classes > 0)
            fprintf(stderr,
                    "gat-train: dataset %s has no node labels: it holds %d graphs labelled with "
                    "%d classes; classify them with --task graph\n",
                    name, ds->n_graphs, ds->n_graph_classes);
        else
            fprintf(stderr, "gat-train: dataset %s has no labelled nodes to train on\n", name);
        gat_dataset_destroy(ds);
        return 1;
    }
    if ((ds->n_labels > 0) != o->multilabel) {
        fprintf(stderr,
                o->multilabel ? "gat-train: --task multilabel: dataset %s has one class per node, "
                                "no multi-hot labels (--task node trains on it)\n"
                              : "gat-train: dataset %s has multi-hot node labels: train it with "
                                "--task multilabel\n",
                name);
        gat_dataset_destroy(ds);
        return 1;
    }
    if (o->all_splits && ds->n_splits < 2) {
        fprintf(stderr, "gat-train: --all-splits: dataset %s holds %d fixed split%s\n", name,
                ds->n_splits, ds->n_splits == 1 ? "" : "s");
        gat_dataset_destroy(ds);
        return 1;
    }
    if (o->all_splits) o->runs = ds->n_splits;
    dataset_notes(o, dopt, ds);
    if (o->save_split && gat_dataset_save_split(ds, o->save_split) != GAT_OK) {
        fprintf(stderr, "gat-train: --save-split: %s\n", gat_last_error());
        gat_dataset_destroy(ds);
        return 1;
    }
    if (o->edge_features && ds->n_edge_features == 0) {
        fprintf(stderr,
                "gat-train: --edge-features: dataset %s has no edge feature columns (extra "
                "numeric .cites columns, --edge-attributes, or a .gatd edge_features "
                "tensor)\n",
                name);
        gat_dataset_destroy(ds);
        return 1;
    }
    if ((o->multilabel && o->graph_batch > 0 && (rc = train_graph_batches_check(ds, name)) != 0) ||
        (o->gps && (rc = train_gps_order(o, ds, &d.order, &d.order_s)) != 0) ||
        (rc = tool_pe_parse("gat-train", o->pe, &d.pe)) != 0 ||
        (rc = tool_pe_build("gat-train", &d.pe, ds, o->threads, o->quiet)) != 0 ||
        (rc = standardize_nodes(&d)) != 0) {
        dataset_runs_destroy(&d);
        return rc;
    }
    dataset_summary(o, ds, name);
    if (o->gps && !o->quiet && d.order != GAT_ORDER_NONE)
        printf("node order %s: %.2f s (before training)\n", gat_order_name(d.order), d.order_s);
    minibatch_note(o, ds);
    /* the splits the runs train on: --all-splits' or --resplit's every one, else the split in
     * use */
    char which[64];
    const int lacking = val_lacking(&d, which, sizeof which);
    if (lacking < 0 || (o->metric_name && (rc = metric_val_usage(o, lacking, which, name)) != 0)) {
        dataset_runs_destroy(&d);
        return lacking < 0 ? 1 : rc;
    }
    if (o->gps) {
        if (!o->metric_name) o->metric = default_metric(ds->n_classes, 0, lacking == 0);
        if ((rc = metric_usage(o, ds->n_classes, name)) != 0) {
            dataset_runs_destroy(&d);
            return rc;
        }
        gat_model_meta meta;
        char buf[4096];
        gat_model_meta_init(&meta);
        meta.n_classes = ds->n_classes;
        meta.class_names = ds->class_names;
        meta.normalize = ds->normalized;
        meta.symmetrize = dopt->symmetrize;
        meta.dataset = cli_dataset_record(o->data.graph ? NULL : name, buf, sizeof buf);
        meta.pe = d.pe.on ? d.pe.text : NULL;
        meta.tu_features = cli_tu_features(&o->data, GAT_TU_FEATURES_ALL);
        meta.largest_component = o->data.largest_component;
        meta.min_class_nodes = o->data.min_class_nodes;
        meta.n_standardized = o->standardize ? d.own : 0;
        meta.feature_shift = d.shift;
        meta.feature_scale = d.scale;
        rc = train_gps_nodes(o, ds, name, &d.pe, &meta,
                             o->all_splits ? dataset_next_split
                             : o->resplit  ? dataset_resplit
                                           : NULL,
                             &d);
        dataset_runs_destroy(&d);
        return rc;
    }
    const source src = {.name = name,
                        .model_dataset = o->data.graph ? NULL : name,
                        .pe = d.pe.on ? d.pe.text : NULL,
                        .n_features = ds->n_features,
                        .n_classes = ds->n_labels > 0 ? ds->n_labels : ds->n_classes,
                        .n_edge_features = ds->n_edge_features,
                        .class_names = ds->n_labels > 0 ? NULL : ds->class_names,
                        .normalized = ds->normalized,
                        .symmetrize = dopt->symmetrize,
                        .val_both = lacking == 0,
                        .n_standardized = o->standardize ? d.own : 0,
                        .feature_shift = d.shift,
                        .feature_scale = d.scale,
                        .train = dataset_train,
                        .next_split = o->all_splits ? dataset_next_split
                                      : o->resplit  ? dataset_resplit
                                                    : NULL,
                        .user = &d};
    rc = train_runs(o, &src);
    dataset_runs_destroy(&d);
    return rc;
}

/* ---- the command line ---- */

/* Parses argv into o (defaults first). Returns 0 (or with *exit_now, after --help/--version) or
 * 2 after a message. */
static int parse_options(int argc, char **argv, options *op, int *exit_now)
{
    *op = (options){.layers = 2,
                    .hidden = 8,
                    .heads = 8,
                    .out_heads = 1,
                    .epochs = 100000,
                    .patience = 100,
                    .seed = 1,
                    .threads = 0,
                    .runs = 1,
                    .train_per_class = -1,
                    .val_size = -1,
                    .test_size = -1,
                    .val_per_class = -1,
                    .log_every = 1,
                    .split_seed = -1,
                    .lr = 0.005,
                    .weight_decay = 5e-4,
                    .dropout = -1,
                    .in_dropout = -1, /* not given: check_options sets the task's default */
                    .att_dropout = -1,
                    .slope = 0.2,
                    .folds = 0,       /* train_graphs_check: 10 with --task graph */
                    .graph_batch = 0, /* train_graphs_check: 32 with --task graph */
                    .embed_dim = 64,
                    .lr_patience = -1};
    int rc = train_apply_preset(op, argc, argv);
    if (rc) return rc;
    const cli_option opts[] = {
        {"preset", CLI_STRING, &op->preset, 0, 0, "NAME", train_preset_help},
        {"dataset", CLI_STRING, &op->data.dataset, 0, 0, "NAME|PATH",
         "bundled dataset (cora, citeseer) or path (default cora)"},
        CLI_GRAPH_OPTIONS(op->data),
        CLI_LABEL_OPTIONS(op->data),
        {"layers", CLI_INT, &op->layers, 1, GAT_MAX_LAYERS, "L",
         "attention layers (default 2, at most " STR(GAT_MAX_LAYERS) ")"},
        {"hidden", CLI_INT, &op->hidden, 1, 65536, "F",
         "units per head of hidden layers (default 8)"},
        {"heads", CLI_INT, &op->heads, 1, GAT_MAX_HEADS, "K",
         "heads of hidden layers, concatenated (default 8, at most " STR(GAT_MAX_HEADS) ")"},
        {"out-heads", CLI_INT, &op->out_heads, 1, GAT_MAX_HEADS, "K",
         "heads of the output layer, averaged (default 1, at most " STR(GAT_MAX_HEADS) ")"},
        {"hidden-heads", CLI_STRING, &op->hidden_heads, 0, 0, "K[,K...]",
         "heads of each hidden layer, the last repeating (default --heads)"},
        {"attention", CLI_STRING, &op->attention, 0, 0, "NAME",
         "edge score: gat, gatv2, dot, scaled-dot, bilinear, cosine, gaussian (default gat)"},
        {"residual", CLI_FLAG, &op->residual, 0, 0, NULL,
         "residual connection per layer, projected where widths differ"},
        {"pe", CLI_STRING, &op->pe, 0, 0, "SPEC",
         "positional encodings appended to the features: lap:K (Laplacian eigenvectors, signs "
         "flipped at random each epoch), rw:K (random-walk return probabilities) or both, e.g. "
         "lap:8,rw:16"},
        {"arch", CLI_STRING, &op->arch, 0, 0, "NAME",
         "gat (default), or a graph transformer of --layers layers of width --embed-dim with "
         "--heads heads: gps (GAT and global attention per layer, then an MLP; layer norms), "
         "transformer (global attention and MLP), gat-mlp (GAT and MLP), or gat-bn "
         "(benchmarking-gnns' GAT layer: --heads heads of width --embed-dim / heads "
         "concatenated, batch norm, ELU, with --residual the input added; --out-heads heads on "
         "the last layer), or gat-ffn (Platonov et al. 2023's GAT: GELU input layer, pre-norm "
         "residual blocks of a GAT layer of --heads heads concatenated and a feed-forward "
         "block, a final layer norm)"},
        {"anchors", CLI_INT, &op->anchors, 1, 1000000, "M",
         "with --arch gps or transformer on one graph of more than M nodes: each node attends "
         "to M anchor nodes drawn from the seed (an approximation), not to all"},
        {"edge-features", CLI_FLAG, &op->edge_features, 0, 0, NULL,
         "use the dataset's edge features in the attention score (gat and gatv2: PyG's GATConv / "
         "GATv2Conv(edge_dim))"},
        {"lr", CLI_REAL, &op->lr, 1e-12, 10, "X", "Adam learning rate (default 0.005)"},
        {"weight-decay", CLI_REAL, &op->weight_decay, 0, 10, "X", "L2 weight decay (default 5e-4)"},
        {"dropout", CLI_REAL, &op->dropout, 0, 0.99, "P", "set both dropouts below"},
        {"in-dropout", CLI_REAL, &op->in_dropout, 0, 0.99, "P",
         "dropout on each layer's input (default 0.6; 0 with --task graph)"},
        {"att-dropout", CLI_REAL, &op->att_dropout, 0, 0.99, "P",
         "dropout on attention coefficients (default 0.6; 0 with --task graph)"},
        {"head-dropout", CLI_INT, &op->head_dropout, 0, 1, "0|1",
         "1: every head draws its own input dropout mask, as the GAT paper's code (default 0)"},
        {"score-bias", CLI_INT, &op->score_bias, 0, 1, "0|1",
         "1: a bias per head in each score half, as the GAT paper's code (gat score; default 0)"},
        {"whole-scores", CLI_INT, &op->whole_scores, 0, 1, "0|1",
         "1: each head's score halves read the whole projected row, not the head's own slice, as "
         "Platonov et al.'s GAT (gat score; default 0, 1 with --preset platonov)"},
        {"linear-init", CLI_STRING, &op->linear_init_name, 0, 0, "NAME",
         "a graph transformer's initial weights: glorot (and zero biases; the default) or pytorch "
         "(nn.Linear's default U(+-1/sqrt(fan_in)) for weights and biases; --preset platonov)"},
        {"proj-dropout", CLI_REAL, &op->proj_dropout, 0, 0.99, "P",
         "dropout on the projected features before aggregation, as the GAT paper's code with the "
         "input's rate (default 0)"},
        {"slope", CLI_REAL, &op->slope, 0, 1, "X",
         "LeakyReLU negative slope of the scores (default 0.2)"},
        {"epochs", CLI_INT, &op->epochs, 1, 100000000, "N", "maximum epochs (default 100000)"},
        {"patience", CLI_INT, &op->patience, 1, 100000000, "N",
         "early-stopping patience (default 100)"},
        {"metric", CLI_STRING, &op->metric_name, 0, 0, "NAME",
         "what early stopping follows and the summary reports: acc (validation accuracy and loss, "
         "the GAT reference's rule), auc (validation ROC-AUC, two classes), loss (default auc for "
         "two-class data, else acc)"},
        {"seed", CLI_INT, &op->seed, 0, 2147483647, "S",
         "random seed (default 1); run r uses seed S+r-1"},
        {"runs", CLI_INT, &op->runs, 1, 10000, "N",
         "train N times and report mean and std (default 1)"},
        {"threads", CLI_INT, &op->threads, 0, 1024, "T",
         "kernel and OpenBLAS threads, 0 = all cores (default 0)"},
        {"order", CLI_STRING, &op->order, 0, 0, "NAME",
         "node order for locality: auto (rcm from 2M edges where it brings neighbours closer), "
         "none, rcm or degree (default auto; none with --batch-size)"},
        {"batch-size", CLI_INT, &op->batch_size, 1, 2147483647, "B",
         "mini-batch training: B training nodes per step on sampled neighbourhoods (needs "
         "--fanout)"},
        {"fanout", CLI_STRING, &op->fanout, 0, 0, "F1,...,FL",
         "with --batch-size: in-neighbours sampled per node and layer, the output layer's first; "
         "-1 all, 0 none"},
        {"eval-every", CLI_INT, &op->eval_every, 1, 100000000, "N",
         "validate every N epochs and after the last (default 1); patience still counts "
         "epochs, the epochs between log val loss nan"},
        {"partitions", CLI_STRING, &op->partitions, 0, 0, "DIR",
         "distributed training: under mpirun -np K, rank r trains on part r of the partition "
         "gat-partition wrote to DIR (with --dataset: checked to be its partition)"},
        {"random-split", CLI_FLAG, &op->random_split, 0, 0, NULL,
         "ignore the split file: seeded random split"},
        {"split-index", CLI_INT, &op->split_index, 0, 2147483647, "K",
         "use fixed split K of the dataset's splits (.npz masks, Geom-GCN split files; default 0)"},
        {"all-splits", CLI_FLAG, &op->all_splits, 0, 0, NULL,
         "one run per fixed split of the dataset (run r: split r-1, seed S+r-1), then mean and std "
         "as --runs"},
        {"resplit", CLI_FLAG, &op->resplit, 0, 0, NULL,
         "with --runs N, run r draws its own random split (split seed --split-seed + r - 1, "
         "default --seed + r - 1), so that mean and std cover the splits too (implies "
         "--random-split)"},
        {"runs-per-split", CLI_INT, &op->runs_per_split, 1, 1000000, "K",
         "with --resplit: a new random split every K runs, each trained K times (model seeds "
         "vary; Shchur et al.: --runs 2000 --resplit --runs-per-split 20, 100 splits)"},
        {"train-per-class", CLI_INT, &op->train_per_class, 1, 1000000, "N",
         "training nodes per class of a random split, exactly (implies --random-split; default: "
         "20, or half of a class under 40)"},
        {"val-size", CLI_INT, &op->val_size, 1, 100000000, "N",
         "validation nodes of a random split, exactly (implies --random-split; default: 500, or "
         "fewer to fit)"},
        {"val-per-class", CLI_INT, &op->val_per_class, 1, 1000000, "N",
         "validation nodes per class of a random split, exactly, in place of --val-size (implies "
         "--random-split; Shchur et al.: --train-per-class 20 --val-per-class 30 --test-size "
         "rest)"},
        {"test-size", CLI_STRING, &op->test_size_text, 0, 0, "N|rest",
         "test nodes of a random split, exactly, or every labelled node left (implies "
         "--random-split; default: 1000, or fewer to fit)"},
        {"split-seed", CLI_INT, &op->split_seed, 0, 2147483647, "N",
         "seed of the random split, apart from the model's (default: --seed)"},
        {"save-split", CLI_STRING, &op->save_split, 0, 0, "FILE",
         "write the split used to FILE in the split-file format (--split and NAME.split read it)"},
        {"normalize", CLI_FLAG, &op->normalize, 0, 0, NULL,
         "row-normalise the features; an error if one is negative (default: when none is)"},
        {"no-normalize", CLI_FLAG, &op->no_normalize, 0, 0, NULL,
         "do not row-normalise the features"},
        {"standardize", CLI_FLAG, &op->standardize, 0, 0, NULL,
         "z-score each feature column (those before --pe's) with the mean and deviation over "
         "the training nodes (--task graph: each fold's training graphs' nodes); recorded in "
         "the model for gat-embed; no row normalisation"},
        {"directed", CLI_FLAG, &op->directed, 0, 0, NULL,
         "keep edges directed (.cites: b -> a; --graph: as the file says; not for a .gatd file, "
         "stored as built: gat-convert --directed writes a directed one)"},
        {"log-every", CLI_INT, &op->log_every, 1, 100000000, "N",
         "print progress every N epochs (default 1)"},
        {"quiet", CLI_FLAG, &op->quiet, 0, 0, NULL, "print only the summary"},
        {"save", CLI_STRING, &op->save, 0, 0, "MODEL",
         "write the trained (best) model to MODEL; needs --runs 1"},
        {"checkpoint", CLI_STRING, &op->checkpoint, 0, 0, "FILE",
         "keep the training state in FILE (written atomically before the first epoch, every "
         "--checkpoint-every and after the last epoch or a signal's stop), for --resume; with "
         "--runs or --all-splits run R's in FILE.runR, with --task graph fold F's in FILE.foldF; "
         "one process"},
        {"checkpoint-every", CLI_STRING, &op->checkpoint_every, 0, 0, "N|T",
         "with --checkpoint: every N epochs, or every T of time (30s, 5m, 2h; default 60s)"},
        {"resume", CLI_STRING, &op->resume, 0, 0, "FILE",
         "go on from the checkpoint FILE as if never stopped: give the command that wrote it "
         "(the model, data and settings must match; --epochs, --patience and --runs may "
         "change); FILE may be --checkpoint's; with several runs or folds run R goes on from "
         "FILE.runR (fold F from FILE.foldF), or starts if there is none (after the first)"},
        {"metrics", CLI_STRING, &op->metrics, 0, 0, "FILE",
         "write one row per epoch to FILE: CSV, or JSON lines if it ends in .jsonl"},
        {"plot", CLI_STRING, &op->plot, 0, 0, "FILE",
         "draw loss and accuracy curves to FILE (.png or .svg) with gnuplot"},
        {"plot-size", CLI_STRING, &op->plot_size, 0, 0, "WxH",
         "size of --plot in pixels (default 640x400)"},
        /* graph classification (train_graphs.c) */
        {"task", CLI_STRING, &op->task, 0, 0, "NAME",
         "node (one class per node, default), graph (classify the graphs of a TU dataset with a "
         "readout) or multilabel (multi-hot node labels, e.g. PPI or gat-synth --graphs "
         "--node-labels: "
         "sigmoid cross-entropy, early stopping and reports on micro-F1; train, validation and "
         "test "
         "graphs as the dataset's split says)"},
        {"readout", CLI_STRING, &op->readout, 0, 0, "NAME",
         "with --task graph: sum, mean, max or attention pooling of node embeddings (default "
         "sum)"},
        {"readout-heads", CLI_INT, &op->readout_heads, 1, GAT_MAX_HEADS, "K",
         "heads of the attention readout, concatenated (default 1)"},
        {"embed-dim", CLI_INT, &op->embed_dim, 1, 65536, "D",
         "with --task graph: width of the node embeddings the last layer gives; with --arch gps, "
         "transformer, gat-mlp or gat-bn: the layers' width (default 64)"},
        {"folds", CLI_INT, &op->folds, 3, 1000, "K",
         "with --task graph: stratified K-fold cross-validation (default 10; fold f tests, fold "
         "f+1 validates, the other K-2 train)"},
        {"fold-index", CLI_STRING, &op->fold_index, 0, 0, "PREFIX",
         "with --task graph: fixed folds PREFIX_{train,val,test}.index (default: DIR/NAME's if "
         "there)"},
        {"graph-batch", CLI_INT, &op->graph_batch, 1, 1000000, "B",
         "with --task graph: graphs per training step (default 32); with --task multilabel: "
         "steps on B whole training graphs (the GAT paper's PPI setup: 2) instead of the union of "
         "the training graphs"},
        {"save-folds", CLI_STRING, &op->save_folds, 0, 0, "FILE",
         "with --task graph: write each graph's test fold to FILE ('graph fold' lines)"},
        {"classifier-layers", CLI_INT, &op->classifier_layers, 0, GAT_MAX_CLASSIFIER_LAYERS, "L",
         "with --task graph: hidden layers of the classifier on the readout, each halving the "
         "width with a ReLU (default 0: linear)"},
        {"lr-factor", CLI_REAL, &op->lr_factor, 0, 0.999, "F",
         "with --task graph: multiply the lr by F after more than --lr-patience validations "
         "without a lower validation loss (ReduceLROnPlateau; default 0: constant lr)"},
        {"lr-patience", CLI_INT, &op->lr_patience, 0, 100000000, "N",
         "with --lr-factor: the lr drops after more than N validations without a lower loss "
         "(default 10)"},
        {"lr-step", CLI_INT, &op->lr_step, 1, 100000000, "N",
         "with --lr-factor: multiply the lr by F every N epochs instead (StepLR)"},
        {"min-lr", CLI_REAL, &op->min_lr, 0, 10, "X",
         "with --lr-factor: stop once the lr falls below X (default 0: never)"},
        {"keep-last", CLI_FLAG, &op->keep_last, 0, 0, NULL,
         "with --task graph: test the last epoch's model, not the best validation epoch's"},
        {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    rc = cli_parse(argc, argv, opts, "gat-train", "[options]", exit_now);
    op->embed_dim_given = train_option_given(argc, argv, "embed-dim");
    return rc;
}

/* The output files, checked before training, which may take long; --plot without gnuplot is
 * said once (training is the point: it runs and saves all the same). Returns 0, 1 or 2. */
static int check_outputs(options *o)
{
    int rc;
    o->plot_fmt = PLOT_PNG;
    o->plot_w = PLOT_WIDTH, o->plot_h = PLOT_HEIGHT, o->draw = 0;
    if (o->plot_size && !o->plot) {
        fprintf(stderr, "gat-train: --plot-size needs --plot (try --help)\n");
        return 2;
    }
    if (o->plot_size &&
        (rc = plot_parse_size("gat-train", o->plot_size, &o->plot_w, &o->plot_h)) != 0)
        return rc;
    if (o->plot && (rc = plot_check_path("gat-train", "plot", o->plot, &o->plot_fmt)) != 0)
        return rc;
    if (o->metrics && (rc = cli_check_output("gat-train", "metrics", o->metrics)) != 0) return rc;
    if (o->save && (rc = cli_check_output("gat-train", "save", o->save)) != 0) return rc;
    if (o->checkpoint && (rc = cli_check_output("gat-train", "checkpoint", o->checkpoint)) != 0)
        return rc;
    if (o->save_split && (rc = cli_check_output("gat-train", "save-split", o->save_split)) != 0)
        return rc;
    if ((rc = split_usage(o)) != 0) return rc;
    if (o->plot) {
        o->draw = plot_available();
        if (!o->draw)
            fprintf(stderr,
                    "gat-train: --plot: gnuplot not found on PATH, so %s will not be "
                    "drawn (install it: %s); training goes on\n",
                    o->plot, PLOT_INSTALL_HINT);
    }
    return 0;
}

/* Multi-label batches of graphs report figures measured during training, which Laplacian
 * columns would have on their flipped signs: refused (random-walk columns do not flip). */
static int pe_batches_check(const options *o)
{
    tool_pe pe;
    if (!(o->multilabel && o->graph_batch > 0) || !o->pe) return 0;
    if (tool_pe_parse("gat-train", o->pe, &pe) != 0) return 2;
    if (pe.spec.lap_k == 0) return 0;
    fprintf(stderr, "gat-train: --pe lap:%d with --graph-batch: not supported (the figures of "
                    "multi-label batches of graphs are measured on the training signs); use rw:K\n",
            (int)pe.spec.lap_k);
    return 2;
}

/* --test-size N|rest into o->test_size (TEST_SIZE_REST for rest). Returns 0, or 2 after a
 * message. */
static int parse_test_size(options *o)
{
    const char *v = o->test_size_text;
    char *end;
    errno = 0;
    const long x = strtol(v, &end, 10);
    if (strcmp(v, "rest") == 0) {
        o->test_size = TEST_SIZE_REST;
        return 0;
    }
    if (*v == '\0' || *end != '\0' || errno || x < 0 || x > 100000000) {
        fprintf(stderr,
                "gat-train: --test-size: expected an integer in [0, 100000000] or 'rest', got "
                "'%s'\n",
                v);
        return 2;
    }
    o->test_size = (int)x;
    return 0;
}

/* --checkpoint-every N|T into o->ckpt_epochs or o->ckpt_seconds, and what checkpoints exclude.
 * Returns 0, or 2 after a message. */
static int checkpoint_usage(options *o)
{
    const char *v = o->checkpoint_every;
    const char *other = o->partitions ? "--partitions" : NULL;
    tool_pe pe;
    if (v && !o->checkpoint) {
        fprintf(stderr, "gat-train: --checkpoint-every needs --checkpoint (try --help)\n");
        return 2;
    }
    /* the Laplacian columns' signs are flipped by epoch from the run's start */
    if (!other && (o->checkpoint || o->resume) && tool_pe_parse("gat-train", o->pe, &pe) == 0 &&
        pe.on && pe.spec.lap_k > 0)
        other = "--pe lap:K (use rw:K)";
    if ((o->checkpoint || o->resume) && other) {
        fprintf(stderr,
                "gat-train: %s: checkpoints keep runs and folds on one process; they exclude "
                "%s\n",
                o->checkpoint ? "--checkpoint" : "--resume", other);
        return 2;
    }
    o->ckpt_epochs = 0;
    o->ckpt_seconds = o->checkpoint ? 60 : 0;
    if (!v) return 0;
    char *end;
    errno = 0;
    const double x = strtod(v, &end);
    const double unit = !*end               ? 0
                        : !strcmp(end, "s") ? 1
                        : !strcmp(end, "m") ? 60
                        : !strcmp(end, "h") ? 3600
                                            : -1;
    if (end == v || errno || unit < 0 || !(x > 0) || x > 1e8 || (unit == 0 && x != floor(x))) {
        fprintf(stderr,
                "gat-train: --checkpoint-every: expected a count of epochs (10) or a time with "
                "its unit (30s, 5m, 2h), got '%s'\n",
                v);
        return 2;
    }
    if (unit == 0) {
        o->ckpt_epochs = (int)x;
        o->ckpt_seconds = 0;
    } else {
        o->ckpt_seconds = x * unit;
    }
    return 0;
}

/* The usage checks and what they derive (options' second half). Returns 0, or 1 or 2 after a
 * message. */
static int check_options(options *o)
{
    int rc;
    if (o->dropout >= 0) o->in_dropout = o->att_dropout = o->dropout;
    o->node_order = GAT_ORDER_AUTO;
    if (o->order && gat_order_from_name(o->order, &o->node_order) != GAT_OK) {
        fprintf(stderr, "gat-train: --order: %s\n", gat_last_error());
        return 2;
    }
    if (o->metric_name && gat_metric_from_name(o->metric_name, &o->metric) != GAT_OK) {
        fprintf(stderr, "gat-train: --metric: %s\n", gat_last_error());
        return 2;
    }
    if (o->test_size_text && (rc = parse_test_size(o)) != 0) return rc;
    if (o->val_per_class >= 0 && o->val_size >= 0) {
        fprintf(stderr, "gat-train: --val-per-class and --val-size conflict: the validation "
                        "nodes are counted per class or in all (try --help)\n");
        return 2;
    }
    o->score = GAT_SCORE_GAT;
    if (o->attention && gat_score_from_name(o->attention, &o->score) != GAT_OK) {
        fprintf(stderr, "gat-train: --attention: %s\n", gat_last_error());
        return 2;
    }
    if (o->hidden_heads && (rc = parse_heads(o->hidden_heads, o->layers, o->layer_heads)) != 0)
        return rc;
    if (o->fanout && !o->batch_size) {
        fprintf(stderr, "gat-train: --fanout needs --batch-size (try --help)\n");
        return 2;
    }
    if (o->batch_size && !o->fanout) {
        fprintf(stderr,
                "gat-train: --batch-size needs --fanout F1,...,F%d: one fan-out per layer "
                "(-1 takes every neighbour)\n",
                o->layers);
        return 2;
    }
    if (o->fanout && (rc = parse_fanout(o->fanout, o->layers, o->fanouts)) != 0) return rc;
    /* mini-batches bind a block per step and the whole graph for validation: a node order would
     * be computed again at every validation, so none unless asked for */
    if (o->batch_size && !o->order) o->node_order = GAT_ORDER_NONE;
    if (o->normalize && o->no_normalize) {
        fprintf(stderr, "gat-train: --normalize and --no-normalize conflict (try --help)\n");
        return 2;
    }
    if (o->standardize && o->partitions) {
        fprintf(stderr, "gat-train: --standardize does not apply to --partitions (each rank "
                        "holds a part of the training nodes): standardise the features before "
                        "partitioning\n");
        return 2;
    }
    if (o->standardize && o->normalize) {
        fprintf(stderr, "gat-train: --standardize and --normalize conflict (try --help)\n");
        return 2;
    }
    double f[3];
    const char *fixed = o->all_splits    ? "--all-splits"
                        : o->split_index ? "--split-index"
                        : o->save_split  ? "--save-split"
                        : o->data.split && cli_split_percentages(NULL, o->data.split, f) == 0
                            ? "--split FILE"
                            : NULL;
    if (o->runs_per_split > 0 && (!o->resplit || o->runs % o->runs_per_split != 0)) {
        fprintf(stderr, "gat-train: --runs-per-split %d: %s\n", o->runs_per_split,
                !o->resplit ? "it applies to --resplit (a new random split every K runs)"
                            : "--runs must be a multiple of it (each split trains K runs)");
        return 2;
    }
    if (o->resplit && fixed) {
        fprintf(stderr, "gat-train: --resplit draws a random split for each run: it excludes %s\n",
                fixed);
        return 2;
    }
    if (o->all_splits && (o->runs > 1 || o->split_index || o->random_split ||
                          train_split_size_option(o) || o->partitions)) {
        fprintf(stderr, "gat-train: --all-splits sets the runs and splits: it excludes --runs, "
                        "--split-index, a random split and --partitions\n");
        return 2;
    }
    if ((o->multilabel = o->task && !strcmp(o->task, "multilabel")) != 0) {
        if (o->batch_size || o->partitions || o->random_split || o->resplit ||
            train_split_size_option(o)) {
            fprintf(stderr, "gat-train: --task multilabel trains full-graph on the dataset's "
                            "split: it excludes --batch-size, --partitions and a random split\n");
            return 2;
        }
        if (o->metric_name && o->metric == GAT_METRIC_AUC) {
            fprintf(stderr, "gat-train: --metric auc: --task multilabel follows the validation "
                            "micro-F1 (acc) or loss\n");
            return 2;
        }
    }
    tool_pe pe;
    if ((rc = tool_pe_parse("gat-train", o->pe, &pe)) != 0) return rc;
    if (pe.on && o->partitions) {
        fprintf(stderr, "gat-train: --pe does not apply to --partitions (the parts hold their "
                        "features as gat-partition wrote them)\n");
        return 2;
    }
    if (o->save && (o->runs > 1 || o->all_splits)) {
        fprintf(stderr, "gat-train: --save keeps one model: use it with --runs 1\n");
        return 2;
    }
    if ((rc = train_graphs_check(o)) != 0) return rc;
    if ((rc = train_gps_check(o)) != 0) return rc;
    if ((rc = pe_batches_check(o)) != 0) return rc;
    if ((rc = checkpoint_usage(o)) != 0) return rc;
    /* dropout not given: the GAT paper's 0.6 on nodes, none on graphs (the TU setups use none) */
    if (o->in_dropout < 0) o->in_dropout = o->task_kind == GAT_TASK_GRAPH ? 0 : 0.6;
    if (o->att_dropout < 0) o->att_dropout = o->task_kind == GAT_TASK_GRAPH ? 0 : 0.6;
    return check_outputs(o);
}

int main(int argc, char **argv)
{
    options o;
    gat_dataset_options dopt;
    int exit_now, rc;
    if ((rc = parse_options(argc, argv, &o, &exit_now)) != 0 || exit_now) return rc;
    if ((rc = check_options(&o)) != 0 || (rc = cli_check_env("gat-train")) != 0) return rc;
    cli_blas_threads(o.threads);
    dataset_options(&o, &dopt);
    if (o.task_kind == GAT_TASK_GRAPH) return train_graphs(&o, &dopt);
    return o.partitions ? train_partitions(&o, &dopt) : train_dataset(&o, &dopt);
}
