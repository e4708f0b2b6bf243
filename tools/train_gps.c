/* gat-train --arch gps|transformer|gat-mlp|gat-bn|gat-ffn: the models of gat/gps.h on a node task
 * (runs on the dataset's split, its nodes renumbered by --order) and on --task graph (one fold of
 * train_graphs.c's cross-validation).
 * --pe works as with GAT models: the model reads the features at every forward, so a sign flip
 * needs no rebinding. Printing only. */
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int train_gps_check(options *o)
{
    o->gps = 0;
    if (o->linear_init_name) {
        if (strcmp(o->linear_init_name, "glorot") && strcmp(o->linear_init_name, "pytorch")) {
            fprintf(stderr, "gat-train: --linear-init: unknown '%s' (expected glorot or pytorch)\n",
                    o->linear_init_name);
            return 2;
        }
        o->linear_init = !strcmp(o->linear_init_name, "pytorch");
    }
    if (!o->arch || !strcmp(o->arch, "gat")) {
        if (o->linear_init_name && o->linear_init) {
            fprintf(stderr, "gat-train: --linear-init pytorch needs a graph transformer (--arch); "
                            "GAT models start from the GAT paper's glorot values\n");
            return 2;
        }
        o->linear_init = 0;
        if (o->embed_dim_given && o->task_kind != GAT_TASK_GRAPH) {
            fprintf(stderr, "gat-train: --embed-dim needs --task graph or a graph transformer "
                            "(--arch): a GAT model's widths are --hidden and --heads\n");
            return 2;
        }
        if (o->anchors) {
            fprintf(stderr, "gat-train: --anchors needs --arch gps or transformer\n");
            return 2;
        }
        /* the preset's (-1): where the score is gat's; --whole-scores 1 with another score is
         * the model's error */
        if (o->whole_scores < 0) o->whole_scores = !o->attention || !strcmp(o->attention, "gat");
        return 0;
    }
    if (gat_gps_kind_from_name(o->arch, &o->arch_kind) != GAT_OK) {
        fprintf(stderr, "gat-train: --arch: %s, or gat\n", gat_last_error());
        return 2;
    }
    o->gps = 1;
    const char *which = o->batch_size      ? "--batch-size"
                        : o->partitions    ? "--partitions"
                        : o->edge_features ? "--edge-features"
                        : o->multilabel    ? "--task multilabel"
                        : o->attention     ? "--attention"
                        : o->residual && o->arch_kind != GAT_GPS_BN && o->arch_kind != GAT_GPS_FFN
                            ? "--residual"
                        : o->head_dropout     ? "--head-dropout 1"
                        : o->proj_dropout > 0 ? "--proj-dropout"
                        : o->score_bias       ? "--score-bias 1"
                                              : NULL;
    if (which) {
        fprintf(stderr,
                "gat-train: --arch %s does not take %s (graph transformers train "
                "full-graph or on --task graph and use the gat score)\n",
                o->arch, which);
        return 2;
    }
    if ((o->arch_kind == GAT_GPS_BN || o->arch_kind == GAT_GPS_FFN) && o->anchors) {
        fprintf(stderr, "gat-train: --anchors needs --arch gps or transformer\n");
        return 2;
    }
    if (o->arch_kind == GAT_GPS_GLOBAL && o->whole_scores > 0) {
        fprintf(stderr, "gat-train: --arch transformer has no GAT term: --whole-scores 1 needs "
                        "gps, gat-mlp, gat-bn or gat-ffn\n");
        return 2;
    }
    o->whole_scores = o->whole_scores != 0 && o->arch_kind != GAT_GPS_GLOBAL;
    o->linear_init = o->linear_init != 0;
    return 0;
}

int train_gps_order(const options *o, gat_dataset *ds, gat_order *used, double *seconds)
{
    const double t0 = train_now();
    if (gat_dataset_order(ds, o->node_order, used) != GAT_OK) {
        fprintf(stderr, "gat-train: --order: %s\n", gat_last_error());
        return 1;
    }
    *seconds = train_now() - t0;
    return 0;
}

/* The transformer of o for F inputs and C classes. */
static void gps_config(const options *o, gat_idx F, gat_idx C, gat_task task, gat_gps_config *c)
{
    gat_gps_config_default(c, F, C);
    c->task = task;
    c->readout = o->readout_kind;
    if (task == GAT_TASK_GRAPH && c->readout == GAT_READOUT_ATTENTION)
        c->readout_heads = o->readout_heads;
    c->kind = o->arch_kind;
    c->dim = o->embed_dim;
    c->layers = o->layers;
    c->heads = o->heads;
    c->dropout = o->in_dropout;
    c->att_dropout = o->att_dropout;
    c->negative_slope = o->slope;
    c->anchors = o->anchors;
    c->classifier_layers = o->classifier_layers;
    c->whole_scores = o->whole_scores;
    c->linear_init = o->linear_init;
    if (c->kind == GAT_GPS_BN) { /* the last layer's heads as a GAT model's output layer's */
        c->last_heads = o->out_heads;
        c->residual = o->residual != 0;
    }
}

/* m and meta to --save (what names the model in the line that says so). */
static int save_gps(const options *o, const gat_gps *m, const gat_model_meta *meta,
                    const char *what)
{
    if (gat_gps_save(m, meta, o->save) != GAT_OK) {
        fprintf(stderr, "gat-train: cannot save the model: %s\n", gat_last_error());
        return 1;
    }
    if (!o->quiet) printf("saved the model%s to %s\n", what, o->save);
    return 0;
}

/* The ROC-AUC of two-class logits y (n, 2) on the nodes of split `which` (score logit 1 - logit
 * 0, as the trainer's). Returns gat_roc_auc's status. */
static gat_status split_auc(const gat_real *y, const gat_dataset *ds, gat_split which, double *auc)
{
    double *score = malloc(((size_t)ds->n + 1) * sizeof *score);
    uint8_t *pos = malloc((size_t)ds->n + 1);
    gat_idx n = 0;
    gat_status st = GAT_ENOMEM;
    if (score && pos) {
        for (gat_idx i = 0; i < ds->n; i++)
            if (ds->split[i] == which) {
                score[n] = (double)y[2 * (size_t)i + 1] - (double)y[2 * (size_t)i];
                pos[n++] = ds->labels[i] == 1;
            }
        st = gat_roc_auc(score, pos, n, auc);
    }
    free(score);
    free(pos);
    return st;
}

/* The validation and test figures of a node model again, with the encodings' fixed signs. */
static int node_figures(const options *o, gat_gps *m, const gat_dataset *ds, gat_train_result *res)
{
    const gat_idx one[2] = {0, ds->n};
    const gat_real *y;
    const gat_idx C = gat_gps_get_config(m)->classes;
    if (gat_gps_forward(m, &ds->graph, &ds->x, ds->n_graphs > 0 ? ds->n_graphs : 1,
                        ds->n_graphs > 0 ? ds->graph_ptr : one, 0, &y) != GAT_OK ||
        gat_softmax_xent(y, ds->n, C, ds->labels, ds->split, GAT_SPLIT_VAL, &res->val_loss,
                         &res->val_acc, NULL) != GAT_OK ||
        (ds->n_test > 0 && gat_softmax_xent(y, ds->n, C, ds->labels, ds->split, GAT_SPLIT_TEST,
                                            &res->test_loss, &res->test_acc, NULL) != GAT_OK) ||
        (o->metric == GAT_METRIC_AUC &&
         (split_auc(y, ds, GAT_SPLIT_VAL, &res->val_auc) != GAT_OK ||
          (ds->n_test > 0 && split_auc(y, ds, GAT_SPLIT_TEST, &res->test_auc) != GAT_OK))))
        return train_fail("evaluation failed");
    return 0;
}

int train_gps_nodes(options *o, gat_dataset *ds, const char *name, tool_pe *pe,
                    const gat_model_meta *save, int (*next_split)(void *, int), void *user)
{
    gat_gps_config c;
    double sum = 0, sum2 = 0, secs = 0;
    int done = 0, rc = 0;
    const char *what = train_reported_name(o);
    gps_config(o, ds->n_features, ds->n_classes, GAT_TASK_NODE, &c);
    if (gat_gps_config_check(&c) != GAT_OK) {
        fprintf(stderr, "gat-train: invalid model options: %s (try --help)\n", gat_last_error());
        return 2;
    }
    run_result *rr = calloc((size_t)o->runs, sizeof *rr);
    if (!rr) {
        fprintf(stderr, "gat-train: out of memory for %d runs\n", o->runs);
        return 1;
    }
    train_catch_signals(0);
    progress p = {.o = o, .keep = o->metrics || o->draw, .lock = PTHREAD_MUTEX_INITIALIZER};
    int interrupted = 0;
    for (int r = 0; r < o->runs && rc == 0 && !interrupted && !train_stop_signal(); r++) {
        gat_gps *m = NULL;
        gat_train_config tc, t;
        gat_train_result res;
        train_files f;
        if ((r > 0 && next_split && (rc = next_split(user, r)) != 0) ||
            (rc = train_run_files(o, r, &f)) != 0)
            break;
        if (gat_gps_create(&m, &c, (uint64_t)o->seed + (uint64_t)r) != GAT_OK) {
            rc = train_fail("cannot create the model");
            break;
        }
        gat_gps_set_threads(m, o->threads);
        train_loop_config(o, r, &f, &p, &tc);
        p.run = r + 1;
        if (tool_pe_train_config("gat-train", pe, NULL, 0, tc.seed, &tc, &t) != 0 ||
            train_resume_rows(f.resume, &p) != 0)
            rc = 1;
        const gat_status st = rc ? GAT_OK : gat_gps_train(m, ds, &t, &res);
        if (rc == 0 && st != GAT_OK && st != GAT_EINTERRUPTED) rc = train_fail("training failed");
        if (rc == 0) train_trim_rows(&p, res.epochs);
        if (rc == 0 && st == GAT_EINTERRUPTED) {
            train_checkpoint_note(o, &f, r, res.epochs);
            /* of several runs, the one stopped is not counted (it goes on after --resume) */
            interrupted = o->runs > 1;
        }
        if (rc == 0 && (tool_pe_fix("gat-train", pe, NULL) != 0 ||
                        (pe->on && pe->spec.lap_k && node_figures(o, m, ds, &res))))
            rc = 1;
        if (rc == 0 && o->save) rc = save_gps(o, m, save, "");
        if (rc == 0 && !interrupted) {
            const double fig = train_reported(o, &res, 0);
            sum += fig, sum2 += fig * fig, secs += res.seconds;
            rr[done].seed = o->seed + r;
            rr[done++].res = res;
            if (!o->quiet)
                printf("run %d (seed %d): test %s %.2f%%  val %.2f%%  best epoch %d of %d, "
                       "%.2f s\n",
                       r + 1, o->seed + r, what, 100 * fig, 100 * train_reported(o, &res, 1),
                       res.best_epoch, res.epochs, res.seconds);
        }
        gat_gps_free(m);
    }
    const double mean = done ? sum / done : 0,
                 sd = done ? sqrt(fmax(sum2 / done - mean * mean, 0)) : 0;
    if (rc == 0) rc = train_write_outputs(o, &p, rr, done, name, what, mean, sd);
    if (rc == 0 && done > 0) {
        if (o->runs == 1)
            printf("test %s: %.2f%%  (arch %s, %.2f s)\n", what, 100 * mean, o->arch, secs);
        else if (!o->quiet)
            train_print_runs(o, rr, done);
        if (o->runs > 1)
            printf("test %s: %.2f%% +- %.2f%%  (%d runs, seeds %d..%d, arch %s, %.2f s)\n", what,
                   100 * mean, 100 * sd, done, o->seed, o->seed + done - 1, o->arch, secs);
    }
    free(p.rows);
    free(p.row_run);
    free(rr);
    if (rc == 0 && train_stop_signal()) rc = 128 + train_stop_signal();
    return rc;
}

int train_gps_fold(const options *o, const gat_dataset *ds, const uint8_t *split, tool_pe *pe,
                   int r, const train_files *f, progress *p, const gat_model_meta *save,
                   double *acc, gat_train_result *res, int *stopped)
{
    gat_gps_config c;
    gat_gps *m = NULL;
    gat_train_config tc, t;
    gps_config(o, ds->n_features, ds->n_graph_classes, GAT_TASK_GRAPH, &c);
    if (gat_gps_create(&m, &c, (uint64_t)o->seed + (uint64_t)r) != GAT_OK) {
        fprintf(stderr, "gat-train: invalid model options: %s (try --help)\n", gat_last_error());
        return 2;
    }
    gat_gps_set_threads(m, o->threads);
    train_loop_config(o, r, f, p, &tc);
    tc.batch_size = o->graph_batch;
    int rc = tool_pe_train_config("gat-train", pe, NULL, 0, tc.seed, &tc, &t);
    gat_status st = GAT_OK;
    if (rc == 0) {
        start_ticker(p);
        st = gat_gps_graph_train(m, ds, split, &t, res);
        end_line(p);
        *stopped = train_fold_stopped(o, f, r, st, res, p);
    }
    if (rc == 0 && !*stopped &&
        (st != GAT_OK || tool_pe_fix("gat-train", pe, NULL) != 0 ||
         gat_gps_graph_evaluate(m, ds, split, GAT_SPLIT_TEST, NULL, acc, NULL) != GAT_OK)) {
        fprintf(stderr, "gat-train: fold %d: %s\n", r + 1, gat_last_error());
        rc = 1;
    }
    if (rc == 0 && !*stopped && save) rc = save_gps(o, m, save, " of fold 1");
    gat_gps_free(m);
    return rc;
}
