/* gat-train --task graph: k-fold cross-validation of a graph classification model (a readout
 * over the node embeddings, gat/readout.h) on a dataset of many graphs (a TU directory): fixed
 * folds when the dataset has them (or --fold-index), else stratified folds by --seed; per-fold
 * lines, then test accuracy and macro-F1 as mean +- std over the folds. And --task multilabel
 * --graph-batch B: gat_graph_train's steps on B whole graphs. Printing only. */
#include "train.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int train_graphs_check(options *o)
{
    o->task_kind = GAT_TASK_NODE;
    o->readout_kind = GAT_READOUT_SUM;
    /* multilabel is the node task with multi-hot labels (gat-train.c, check_options) */
    if (o->task && strcmp(o->task, "multilabel") != 0 &&
        gat_task_from_name(o->task, &o->task_kind) != GAT_OK) {
        fprintf(stderr, "gat-train: --task: %s, or multilabel\n", gat_last_error());
        return 2;
    }
    if (o->readout && gat_readout_from_name(o->readout, &o->readout_kind) != GAT_OK) {
        fprintf(stderr, "gat-train: --readout: %s\n", gat_last_error());
        return 2;
    }
    if (o->task_kind != GAT_TASK_GRAPH && o->graph_batch > 0 && !o->multilabel) {
        fprintf(stderr, "gat-train: --graph-batch needs --task graph or multilabel (try --help)\n");
        return 2;
    }
    if (o->task_kind != GAT_TASK_GRAPH) {
        const char *which = o->readout             ? "--readout"
                            : o->folds             ? "--folds"
                            : o->fold_index        ? "--fold-index"
                            : o->save_folds        ? "--save-folds"
                            : o->readout_heads     ? "--readout-heads"
                            : o->classifier_layers ? "--classifier-layers"
                            : o->lr_factor > 0     ? "--lr-factor"
                            : o->lr_patience >= 0  ? "--lr-patience"
                            : o->min_lr > 0        ? "--min-lr"
                            : o->lr_step > 0       ? "--lr-step"
                            : o->keep_last         ? "--keep-last"
                                                   : NULL;
        if (which) {
            fprintf(stderr, "gat-train: %s needs --task graph (try --help)\n", which);
            return 2;
        }
        return 0;
    }
    /* (a preset may set them all; --lr-factor 0 then turns the schedule off) */
    if (!o->preset && (o->lr_patience >= 0 || o->min_lr > 0 || o->lr_step > 0) &&
        !(o->lr_factor > 0)) {
        fprintf(stderr, "gat-train: %s needs --lr-factor (try --help)\n",
                o->lr_patience >= 0 ? "--lr-patience"
                : o->min_lr > 0     ? "--min-lr"
                                    : "--lr-step");
        return 2;
    }
    if (o->lr_patience < 0) o->lr_patience = 10;
    if (o->graph_batch == 0) o->graph_batch = 32;
    if (o->folds == 0) o->folds = 10;
    if (o->readout_heads && o->readout_kind != GAT_READOUT_ATTENTION) {
        fprintf(stderr, "gat-train: --readout-heads needs --readout attention\n");
        return 2;
    }
    if (o->partitions || o->batch_size || o->runs > 1 || o->all_splits || o->plot ||
        o->data.graph || o->data.split || o->save_split) {
        fprintf(stderr, "gat-train: --task graph runs k-fold cross-validation on --dataset: it "
                        "excludes --partitions, --batch-size, --runs, --all-splits, --plot, "
                        "--graph, --split and --save-split\n");
        return 2;
    }
    /* the node split's and node order's options, which the folds of graphs do not read */
    const char *size = train_split_size_option(o);
    const char *node = o->random_split             ? "--random-split"
                       : o->resplit                ? "--resplit"
                       : size                      ? size
                       : o->split_seed >= 0        ? "--split-seed"
                       : o->split_index            ? "--split-index"
                       : o->order                  ? "--order"
                       : o->data.largest_component ? "--largest-component"
                       : o->data.min_class_nodes   ? "--min-class-nodes"
                                                   : NULL;
    if (node) {
        fprintf(stderr,
                "gat-train: %s does not apply to --task graph (it splits the graphs into folds, "
                "--folds or --fold-index, and binds them in the order read)\n",
                node);
        return 2;
    }
    if (o->metric_name && o->metric == GAT_METRIC_AUC) {
        fprintf(stderr, "gat-train: --metric auc: --task graph follows the validation graphs' "
                        "accuracy (acc) or loss\n");
        return 2;
    }
    if (o->save_folds && cli_check_output("gat-train", "save-folds", o->save_folds) != 0) return 1;
    return 0;
}

int train_graph_batches_check(const gat_dataset *ds, const char *name)
{
    if (ds->n_graphs < 1 || !ds->graph_ptr) {
        fprintf(stderr, "gat-train: --graph-batch: dataset %s is one graph, not a set of graphs "
                        "(graph segments: a GraphSAGE graph_id, a .gatd from gat-synth --graphs)\n",
                name);
        return 1;
    }
    for (gat_idx g = 0; g < ds->n_graphs; g++)
        for (gat_idx i = ds->graph_ptr[g] + 1; i < ds->graph_ptr[g + 1]; i++)
            if (ds->split[i] != ds->split[ds->graph_ptr[g]]) {
                fprintf(stderr, "gat-train: --graph-batch: graph %d of dataset %s has nodes %d "
                                "and %d in different parts of the split; batches of graphs need "
                                "a split by graph\n",
                        g, name, ds->graph_ptr[g], i);
                return 1;
            }
    return 0;
}

gat_status train_graph_batches(const gat_dataset *ds, gat_model *m, const gat_train_config *tc,
                               int graphs_per_step, gat_train_result *res)
{
    uint8_t *split = malloc((size_t)ds->n_graphs);
    gat_train_config c = *tc;
    if (!split) return GAT_ENOMEM;
    for (gat_idx g = 0; g < ds->n_graphs; g++) /* checked: one part per graph */
        split[g] = ds->split[ds->graph_ptr[g]];
    c.batch_size = graphs_per_step;
    const gat_status st = gat_graph_train(m, ds, split, &c, res);
    free(split);
    return st;
}

/* The fixed folds' prefix: --fold-index, or DIR/NAME when DIR/NAME_train.index[.gz] exists for
 * a dataset directory DIR (NAME its last component); NULL for none. */
static const char *fold_prefix(const options *o, char *buf, size_t size)
{
    char path[4096], probe[4200];
    struct stat sb;
    if (o->fold_index) return o->fold_index;
    if (gat_dataset_locate(o->data.dataset, path, sizeof path) != GAT_OK) return NULL;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return NULL;
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(buf, size, "%s/%s", path, base);
    snprintf(probe, sizeof probe, "%s_train.index", buf);
    if (stat(probe, &sb) == 0) return buf;
    snprintf(probe, sizeof probe, "%s_train.index.gz", buf);
    return stat(probe, &sb) == 0 ? buf : NULL;
}

/* What the folds share. */
typedef struct folds {
    const options *o;
    gat_dataset *ds;
    const char *name, *prefix;
    int k;
    gat_idx *fold;  /* (n_graphs) the stratified assignment, or NULL with fixed folds */
    gat_idx *tested; /* (n_graphs) the fold that tests each graph (-1: none) */
    uint8_t *split; /* (n_graphs) */
    tool_pe *pe;    /* --pe: the encodings in ds's features (per graph: each is a component) */
    /* --standardize: the features as loaded (and encoded) while ds->x holds the fold's
     * standardised copy, and the fold's moments (own columns: those before --pe's) */
    gat_csr raw;
    gat_idx own;
    gat_real *shift, *scale;
    progress *p; /* every epoch's line (and --metrics' rows), run = the fold */
    int stopped; /* a signal stopped a fold's training */
} folds;

/* --standardize: ds->x = the features with their own columns z-scored by the moments over the
 * nodes of the fold's training graphs (validation and test graphs shape nothing). Returns 0, or 1
 * after a message. */
static int standardize_fold(folds *f, int r)
{
    gat_dataset *ds = f->ds;
    uint8_t *use = malloc((size_t)ds->n + 1);
    if (!use) {
        fprintf(stderr, "gat-train: fold %d: --standardize: out of memory\n", r + 1);
        return 1;
    }
    for (gat_idx g = 0; g < ds->n_graphs; g++)
        memset(use + ds->graph_ptr[g], f->split[g] == GAT_SPLIT_TRAIN,
               (size_t)(ds->graph_ptr[g + 1] - ds->graph_ptr[g]));
    const int rc = cli_standardize_fit("gat-train", ds, &f->raw, f->own, use, f->shift, f->scale);
    free(use);
    return rc;
}

static int fold_split(folds *f, int r)
{
    const gat_idx n = f->ds->n_graphs;
    gat_status st = f->prefix ? gat_dataset_read_graph_folds(f->prefix, n, r, f->split, NULL)
                              : gat_graph_fold_split(f->fold, n, f->k, r, f->split);
    if (st != GAT_OK) {
        fprintf(stderr, "gat-train: fold %d: %s\n", r + 1, gat_last_error());
        return 1;
    }
    for (gat_idx g = 0; g < n; g++)
        if (f->split[g] == GAT_SPLIT_TEST) f->tested[g] = r;
    return 0;
}

/* What a saved model of the folds records beside its parameters (fold 1's standardisation,
 * which ds->x holds while fold 1 trains); buf holds the dataset's name. */
static void graph_meta(const folds *f, gat_model_meta *meta, char *buf, size_t cap)
{
    gat_model_meta_init(meta);
    meta->n_classes = f->ds->n_graph_classes;
    meta->class_names = f->ds->graph_class_names;
    meta->normalize = f->ds->normalized;
    meta->symmetrize = !f->o->directed; /* what the loader did (--directed keeps edges as read) */
    meta->dataset = cli_dataset_record(f->name, buf, cap);
    meta->pe = f->pe->on ? f->pe->text : NULL;
    meta->tu_features = cli_tu_features(&f->o->data, GAT_TU_FEATURES_ALL);
    if (f->o->standardize) {
        meta->n_standardized = f->own;
        meta->feature_shift = f->shift;
        meta->feature_scale = f->scale;
    }
}

static int save_graph_model(const folds *f, gat_model *m)
{
    gat_model_meta meta;
    char buf[4096];
    graph_meta(f, &meta, buf, sizeof buf);
    if (gat_model_save(m, &meta, f->o->save) != GAT_OK) {
        fprintf(stderr, "gat-train: cannot save the model: %s\n", gat_last_error());
        return 1;
    }
    if (!f->o->quiet) printf("saved the model of fold 1 to %s\n", f->o->save);
    return 0;
}

/* Fold r: a model trained on its training graphs, its test accuracy and macro-F1. */
static int run_fold(folds *f, int r, double *acc, double *f1)
{
    const options *o = f->o;
    gat_model_config mc;
    gat_model *m = NULL;
    gat_train_config tc;
    gat_train_result res;
    const source src = {.n_features = f->ds->n_features, .n_classes = o->embed_dim,
                        .n_edge_features = f->ds->n_edge_features};
    train_files files;
    if (fold_split(f, r) != 0 || (o->standardize && standardize_fold(f, r) != 0)) return 1;
    f->p->run = r + 1;
    /* fold r's checkpoint FILE.foldR, and a resumed fold's earlier epochs for --metrics */
    if (train_fold_files(o, r, f->k, &files) != 0 || train_resume_rows(files.resume, f->p) != 0)
        return 1;
    if (o->gps) {
        gat_model_meta meta;
        char buf[4096];
        if (r == 0 && o->save) graph_meta(f, &meta, buf, sizeof buf);
        const int rc = train_gps_fold(o, f->ds, f->split, f->pe, r, &files, f->p,
                                      r == 0 && o->save ? &meta : NULL, acc, &res, &f->stopped);
        *f1 = NAN; /* not computed for graph transformers */
        if (rc == 0 && !f->stopped && !o->quiet) {
            printf("fold %2d: best epoch %4d of %4d, val acc %6.2f%%, test acc %6.2f%%, %.2f s\n",
                   r + 1, res.best_epoch, res.epochs, 100 * res.val_acc, 100 * *acc, res.seconds);
            fflush(stdout);
        }
        return rc;
    }
    train_model_config(o, &src, &mc);
    mc.task = GAT_TASK_GRAPH;
    mc.readout = o->readout_kind;
    mc.readout_heads = o->readout_heads;
    mc.graph_classes = f->ds->n_graph_classes;
    mc.classifier_layers = o->classifier_layers;
    if (gat_model_create(&m, &mc, (uint64_t)o->seed + (uint64_t)r) != GAT_OK) {
        fprintf(stderr, "gat-train: invalid model options: %s (try --help)\n", gat_last_error());
        return 2;
    }
    gat_model_set_threads(m, o->threads);
    train_loop_config(o, r, &files, f->p, &tc);
    tc.batch_size = o->graph_batch;
    int rc = 0;
    /* --pe: Laplacian signs flipped per epoch (batches are made from the features at every
     * step, so nothing to rebind), fixed again for the test figures */
    const gat_train_config plain = tc;
    if (tool_pe_train_config("gat-train", f->pe, NULL, 0, tc.seed, &plain, &tc) != 0) {
        gat_model_free(m);
        return 1;
    }
    start_ticker(f->p);
    const gat_status st = gat_graph_train(m, f->ds, f->split, &tc, &res);
    end_line(f->p);
    if ((f->stopped = train_fold_stopped(o, &files, r, st, &res, f->p)) != 0) {
        gat_model_free(m);
        return 0;
    }
    if (st != GAT_OK || tool_pe_fix("gat-train", f->pe, NULL) != 0 ||
        gat_graph_evaluate(m, f->ds, f->split, GAT_SPLIT_TEST, 0, NULL, acc, f1, NULL) != GAT_OK) {
        fprintf(stderr, "gat-train: fold %d: %s\n", r + 1, gat_last_error());
        rc = 1;
    } else if (!o->quiet) {
        printf("fold %2d: best epoch %4d of %4d, val acc %6.2f%%, test acc %6.2f%%, macro-F1 "
               "%6.2f%%, %.2f s\n",
               r + 1, res.best_epoch, res.epochs, 100 * res.val_acc, 100 * *acc, 100 * *f1,
               res.seconds);
        fflush(stdout);
    }
    if (rc == 0 && r == 0 && o->save) rc = save_graph_model(f, m);
    gat_model_free(m);
    return rc;
}

/* --save-folds: each graph's test fold, written under a temporary name and renamed over it. */
static int save_folds(const folds *f)
{
    cli_afile a;
    int err = 0;
    if (cli_afile_open("gat-train", &a, f->o->save_folds) != 0) return 1;
    if (fprintf(a.f,
                "# graph test-fold (0-based graph index as in the fold files; fold 1..%d, 0: "
                "tested in no fold)\n",
                f->k) < 0)
        err = errno ? errno : EIO;
    for (gat_idx g = 0; g < f->ds->n_graphs && !err; g++)
        if (fprintf(a.f, "%d %d\n", g, f->tested[g] + 1) < 0) err = errno ? errno : EIO;
    return cli_afile_commit("gat-train", &a, err);
}

/* --metrics: every fold's epochs, the fold in the run column. */
static int save_metrics(const folds *f)
{
    const progress *p = f->p;
    if (p->oom) {
        fprintf(stderr, "gat-train: out of memory recording the epochs for --metrics\n");
        return 1;
    }
    if (gat_metrics_save(f->o->metrics, p->rows, p->row_run, p->n) != GAT_OK) {
        fprintf(stderr, "gat-train: cannot write the metrics: %s\n", gat_last_error());
        return 1;
    }
    if (!f->o->quiet) printf("wrote %s: %zu epochs\n", f->o->metrics, p->n);
    return 0;
}

/* The folds' runs and the summary. */
static int cross_validate(folds *f)
{
    double sa = 0, sa2 = 0, sf = 0, sf2 = 0;
    int rc = 0;
    for (gat_idx g = 0; g < f->ds->n_graphs; g++)
        f->tested[g] = -1;
    f->p->folds = f->k;
    int r = 0;
    for (; r < f->k && rc == 0 && !f->stopped && !train_stop_signal(); r++) {
        double acc = 0, f1 = 0;
        rc = run_fold(f, r, &acc, &f1);
        sa += acc, sa2 += acc * acc, sf += f1, sf2 += f1 * f1;
    }
    if (rc != 0) return rc;
    /* a signal before the last fold ended: the folds done keep their checkpoints; no summary
     * of some of them */
    if (f->stopped || (train_stop_signal() && r < f->k)) {
        if (!f->stopped)
            fprintf(stderr, "gat-train: interrupted after fold %d of %d%s\n", r, f->k,
                    f->o->checkpoint ? ": the same command with --resume goes on from there" : "");
        return 128 + train_stop_signal();
    }
    if (f->o->save_folds && (rc = save_folds(f)) != 0) return rc;
    if (f->o->metrics && (rc = save_metrics(f)) != 0) return rc;
    const double ma = sa / f->k, mf = sf / f->k;
    const double da = sqrt(fmax(sa2 / f->k - ma * ma, 0)), df = sqrt(fmax(sf2 / f->k - mf * mf, 0));
    if (f->o->gps)
        printf("test accuracy: %.2f%% +- %.2f%%  (%d folds%s, readout %s, arch %s)\n", 100 * ma,
               100 * da, f->k, f->prefix ? ", fixed" : ", stratified",
               gat_readout_name(f->o->readout_kind), f->o->arch);
    else
        printf("test accuracy: %.2f%% +- %.2f%%, macro-F1: %.2f%% +- %.2f%%  (%d folds%s, readout "
               "%s)\n",
               100 * ma, 100 * da, 100 * mf, 100 * df, f->k, f->prefix ? ", fixed" : ", stratified",
               gat_readout_name(f->o->readout_kind));
    if (!train_stop_signal()) return 0;
    fprintf(stderr, "gat-train: interrupted after training finished\n");
    return 128 + train_stop_signal();
}

int train_graphs(options *o, const gat_dataset_options *dopt)
{
    gat_dataset ds;
    gat_dataset_options opt = *dopt;
    const char *name;
    char buf[4096];
    /* TU features are one-hot node labels and raw attributes: kept as given unless asked */
    if (!o->normalize) opt.normalize = GAT_NORMALIZE_OFF;
    if (!o->data.dataset) {
        fprintf(stderr, "gat-train: --task graph needs --dataset DIR (a TU dataset)\n");
        return 2;
    }
    int rc = cli_load_dataset("gat-train", &o->data, "cora", 0, &opt, &ds, &name);
    if (rc != 0) return rc;
    if (ds.n_graphs < 2 || !ds.graph_labels || ds.n_graph_classes < 1) {
        fprintf(stderr,
                "gat-train: --task graph: dataset %s is not a set of labelled graphs (a TU "
                "directory with NAME_graph_labels.txt)\n",
                name);
        gat_dataset_destroy(&ds);
        return 1;
    }
    if (o->edge_features && ds.n_edge_features == 0) {
        fprintf(stderr, "gat-train: --edge-features: dataset %s has no edge features\n", name);
        gat_dataset_destroy(&ds);
        return 1;
    }
    tool_pe pe;
    if ((rc = tool_pe_parse("gat-train", o->pe, &pe)) != 0 ||
        (rc = tool_pe_build("gat-train", &pe, &ds, o->threads, o->quiet)) != 0) {
        gat_dataset_destroy(&ds);
        return rc;
    }
    progress p = {.o = o,
                  .keep = o->metrics != NULL,
                  .tty = !o->quiet && isatty(STDERR_FILENO),
                  .lock = PTHREAD_MUTEX_INITIALIZER,
                  .wake = PTHREAD_COND_INITIALIZER,
                  .drawn = PTHREAD_COND_INITIALIZER};
    folds f = {.o = o,
               .p = &p,
               .ds = &ds,
               .name = name,
               .k = o->folds,
               .prefix = fold_prefix(o, buf, sizeof buf),
               .pe = &pe,
               .own = pe.on ? pe.col : ds.n_features};
    f.tested = malloc((size_t)ds.n_graphs * sizeof *f.tested);
    f.split = malloc((size_t)ds.n_graphs);
    gat_idx nf = 0;
    if (o->standardize) {
        f.shift = malloc(((size_t)f.own + 1) * sizeof *f.shift);
        f.scale = malloc(((size_t)f.own + 1) * sizeof *f.scale);
    }
    if (!f.tested || !f.split || (o->standardize && (!f.shift || !f.scale))) {
        fprintf(stderr, "gat-train: out of memory\n");
        rc = 1;
    } else if (f.prefix) {
        if (gat_dataset_read_graph_folds(f.prefix, ds.n_graphs, 0, f.split, &nf) != GAT_OK) {
            fprintf(stderr, "gat-train: fixed folds: %s\n", gat_last_error());
            rc = 1;
        }
        f.k = (int)nf;
    } else if (!(f.fold = malloc((size_t)ds.n_graphs * sizeof *f.fold)) ||
               gat_graph_folds(ds.graph_labels, ds.n_graphs, ds.n_graph_classes, f.k,
                               (uint64_t)o->seed, f.fold) != GAT_OK) {
        fprintf(stderr, "gat-train: --folds: %s\n", f.fold ? gat_last_error() : "out of memory");
        rc = 1;
    }
    if (rc == 0 && !o->quiet)
        printf("dataset %s: %d graphs, %d nodes, %d features, %d graph class%s; %d %s folds%s%s\n",
               name, ds.n_graphs, ds.n, ds.n_features, ds.n_graph_classes,
               ds.n_graph_classes == 1 ? "" : "es", f.k, f.prefix ? "fixed" : "stratified",
               f.prefix ? " from " : "", f.prefix ? f.prefix : "");
    if (rc == 0) cli_constant_features_note("gat-train", &ds, name, o->pe, o->quiet);
    if (rc == 0) cli_one_class_note("gat-train", &ds, name, 1, o->quiet);
    if (rc == 0) {
        train_catch_signals(0);
        rc = cross_validate(&f);
        train_release_signals();
    }
    free(f.fold);
    free(f.tested);
    free(f.split);
    free(f.shift);
    free(f.scale);
    free(p.rows);
    free(p.row_run);
    cli_restore_features(&ds, &f.raw);
    tool_pe_destroy(&pe);
    gat_dataset_destroy(&ds);
    return rc;
}
