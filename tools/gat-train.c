/* gat-train: trains a GAT on a Cora-style dataset, or on a graph file with feature and label
 * files, and reports test accuracy. Option parsing and printing only; all numerics are libgat
 * calls. */
#include "cli.h"

#include "gat/gat.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
    cli_data data;
    const char *save;
    const char *attention, *hidden_heads; /* --attention NAME, --hidden-heads K[,K...] */
    const char *order;                    /* --order NAME */
    int residual;
    int layers, hidden, heads, out_heads, epochs, patience, seed, threads, runs;
    int train_per_class, val_size, test_size; /* -1: not given (the adaptive defaults) */
    int random_split, normalize, no_normalize, directed, quiet;
    int log_every;
    double lr, weight_decay, dropout, in_dropout, att_dropout, slope;
} options;

typedef struct progress {
    const options *o;
} progress;

/* SIGINT or SIGTERM once received, else 0. The first one lets the epoch under way finish, then
 * training stops and the best model is saved; the handler restores the default actions, so a
 * second signal ends the process at once (saves are atomic: no file is left half-written). */
static volatile sig_atomic_t stop_signal = 0;

static void on_signal(int sig)
{
    stop_signal = sig;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

static int on_epoch(const gat_epoch_info *e, void *user)
{
    const progress *p = user;
    if (!p->o->quiet && (e->epoch % p->o->log_every == 0 || stop_signal))
        printf("epoch %5d  train loss %.4f acc %6.2f%%  val loss %.4f acc %6.2f%%  best %d  "
               "%.3f s\n", e->epoch, e->train_loss, 100 * e->train_acc, e->val_loss, 100 * e->val_acc,
               e->best_epoch, e->seconds);
    return stop_signal != 0;
}

/* Fills heads[l] for the hidden layers 0..layers-2 from "K[,K...]" (the last value repeats).
 * Returns 0, or 2 after a message. */
static int parse_heads(const char *list, int layers, int *heads)
{
    const char *p = list;
    int n = 0;
    while (1) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p || k < 1 || k > 1024 || (*end != ',' && *end != '\0')) {
            fprintf(stderr, "gat-train: --hidden-heads: expected K[,K...] with each K in [1, 1024], "
                            "got '%s'\n", list);
            return 2;
        }
        if (n >= layers - 1) {
            fprintf(stderr, "gat-train: --hidden-heads: %d value%s for %d hidden layer%s "
                            "(--layers %d)\n", n + 1, n ? "s" : "", layers - 1,
                    layers == 2 ? "" : "s", layers);
            return 2;
        }
        heads[n++] = (int)k;
        if (*end == '\0') break;
        p = end + 1;
    }
    for (int l = n; l < layers - 1; l++) heads[l] = heads[n - 1];
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

static int fail(const char *what)
{
    fprintf(stderr, "gat-train: %s: %s\n", what, gat_last_error());
    return 1;
}

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
        {"order", CLI_STRING, &o.order, 0, 0, "NAME", "node order for locality: auto (rcm from 2M edges), none, rcm or degree (default auto)"},
        {"random-split", CLI_FLAG, &o.random_split, 0, 0, NULL, "ignore the split file: seeded random split"},
        {"train-per-class", CLI_INT, &o.train_per_class, 1, 1000000, "N", "random split: training nodes per class, exactly (default: 20, or half of a class under 40)"},
        {"val-size", CLI_INT, &o.val_size, 1, 100000000, "N", "random split: validation nodes, exactly (default: 500, or fewer to fit)"},
        {"test-size", CLI_INT, &o.test_size, 0, 100000000, "N", "random split: test nodes, exactly (default: 1000, or fewer to fit)"},
        {"normalize", CLI_FLAG, &o.normalize, 0, 0, NULL, "row-normalise the features; an error if one is negative (default: when none is)"},
        {"no-normalize", CLI_FLAG, &o.no_normalize, 0, 0, NULL, "do not row-normalise the features"},
        {"directed", CLI_FLAG, &o.directed, 0, 0, NULL, "keep edges directed (.cites: b -> a; --graph: as the file says)"},
        {"log-every", CLI_INT, &o.log_every, 1, 100000000, "N", "print progress every N epochs (default 1)"},
        {"quiet", CLI_FLAG, &o.quiet, 0, 0, NULL, "print only the summary"},
        {"save", CLI_STRING, &o.save, 0, 0, "MODEL", "write the trained (best) model to MODEL; needs --runs 1"},
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
    if (o.normalize && o.no_normalize) {
        fprintf(stderr, "gat-train: --normalize and --no-normalize conflict (try --help)\n");
        return 2;
    }
    if (o.save && o.runs > 1) {
        fprintf(stderr, "gat-train: --save keeps one model: use it with --runs 1\n");
        return 2;
    }

    gat_dataset_options dopt;
    gat_dataset_options_default(&dopt);
    dopt.normalize = o.normalize      ? GAT_NORMALIZE_ON
                     : o.no_normalize ? GAT_NORMALIZE_OFF
                                      : GAT_NORMALIZE_AUTO;
    dopt.symmetrize = !o.directed;
    dopt.ignore_split_file = o.random_split;
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
    if ((rc = cli_load_dataset("gat-train", &o.data, "cora", 1, &dopt, &ds, &name)) != 0) return rc;
    if (!o.quiet && dopt.normalize == GAT_NORMALIZE_AUTO && ds.negative_value < 0)
        fprintf(stderr, "gat-train: features have negative values (first: node '%s', column %d, "
                        "%g): not row-normalised (use --no-normalize to silence this)\n",
                ds.node_ids[ds.negative_node], ds.negative_column, (double)ds.negative_value);
    if (!o.quiet && ds.split_adapted) split_note(&ds, &dopt);
    if (!o.quiet)
        printf("dataset %s: %d nodes, %d edges (with self-loops), %d features, %d classes, "
               "split %d/%d/%d\n", name, ds.n, ds.graph.nnz, ds.n_features, ds.n_classes,
               ds.n_train, ds.n_val, ds.n_test);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    double sum = 0, sum2 = 0, secs = 0;
    int interrupted = 0;
    rc = 0;
    for (int r = 0; r < o.runs && rc == 0 && !interrupted && !stop_signal; r++) {
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
        progress p = {&o};
        tc.progress = on_epoch;
        tc.user = &p;
        gat_train_result res;
        const gat_status tst = gat_train(m, &ds, &tc, &res);
        if (tst == GAT_EINTERRUPTED) {
            /* the best model so far is restored: it is saved below like a finished one */
            interrupted = 1;
            if (!o.save)
                fprintf(stderr, "gat-train: interrupted at epoch %d; best epoch %d (no --save: "
                                "nothing written)\n", res.epochs, res.best_epoch);
        } else if (tst != GAT_OK) {
            rc = fail("training failed");
        } else {
            sum += res.test_acc;
            sum2 += res.test_acc * res.test_acc;
            secs += res.seconds;
            if (o.runs > 1 || !o.quiet)
                printf("run %d (seed %d): test accuracy %.2f%%  val %.2f%%  best epoch %d of %d, "
                       "%.2f s (%.3f ms/epoch)\n", r + 1, o.seed + r, 100 * res.test_acc,
                       100 * res.val_acc, res.best_epoch, res.epochs, res.seconds,
                       1e3 * res.seconds / res.epochs);
            double order_s;
            const gat_order used = gat_model_order(m, &order_s);
            if (!o.quiet && used != GAT_ORDER_NONE)
                printf("node order %s: %.2f s (counted in the training time)\n",
                       gat_order_name(used), order_s);
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
            meta.dataset = o.data.graph ? NULL : name;
            if (gat_model_save(m, &meta, o.save) != GAT_OK)
                rc = fail("cannot save the model");
            else if (interrupted)
                fprintf(stderr, "gat-train: interrupted at epoch %d; best model (epoch %d) saved "
                                "to %s\n", res.epochs, res.best_epoch, o.save);
            else if (!o.quiet)
                printf("saved the model to %s\n", o.save);
        }
        gat_model_free(m);
    }
    if (rc == 0 && stop_signal && !interrupted)
        fprintf(stderr, "gat-train: interrupted after training finished\n");
    if (rc == 0 && stop_signal) rc = 128 + stop_signal; /* 130 for SIGINT, 143 for SIGTERM */
    if (rc == 0 && o.runs > 1) {
        double mean = sum / o.runs, var = sum2 / o.runs - mean * mean;
        printf("test accuracy: %.2f%% +- %.2f%%  (%d runs, seeds %d..%d, %.2f s)\n", 100 * mean,
               100 * sqrt(var > 0 ? var : 0), o.runs, o.seed, o.seed + o.runs - 1, secs);
    }
    gat_dataset_destroy(&ds);
    return rc;
}
