/* Training of graph transformers (gat/gps.h): node classification on the full graph and graph
 * classification on batches of graphs, on the epoch loop every trainer shares (gat_i_train_loop:
 * early stopping, eval_every, metric, progress, the best parameters restored and evaluated). */
#include "core/core.h"
#include "gat/gps.h"
#include "gat/readout.h"
#include "metrics_i.h"
#include "model/gps_i.h"
#include "train_i.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Training forward, cross-entropy of the rows of split == GAT_SPLIT_TRAIN among the n rows of the
 * logits (labels (n)), backward, Adam step t. dl: (n, C) scratch. */
static gat_status step(gat_gps *m, const gat_graph *g, const gat_csr *x, gat_idx n_seg,
                       const gat_idx *seg, gat_idx n, const gat_idx *labels, const uint8_t *split,
                       const gat_adam_config *adam, gat_idx t, gat_real *dl, double *loss,
                       double *acc)
{
    const gat_real *logits;
    gat_real *m1, *m2;
    size_t P;
    gat_status st;
    if ((st = gat_gps_forward(m, g, x, n_seg, seg, 1, &logits)) != GAT_OK ||
        (st = gat_softmax_xent(logits, n, gat_gps_get_config(m)->classes, labels, split,
                               GAT_SPLIT_TRAIN, loss, acc, dl)) != GAT_OK)
        return st;
    if (!isfinite(*loss))
        return gat_i_error(GAT_ENUMERIC, "training diverged at step %d: the loss is %g (try a "
                           "smaller learning rate); the best model so far is kept", t, *loss);
    gat_gps_zero_grads(m);
    if ((st = gat_gps_backward(m, dl)) != GAT_OK) return st;
    gat_real *p = gat_gps_params(m, &P), *gr = gat_gps_grads(m, NULL);
    for (size_t k = 0; k < P; k++)
        if (!isfinite(gr[k]))
            return gat_i_error(GAT_ENUMERIC, "training diverged at step %d: a gradient is %g; "
                               "the best model so far is kept", t, (double)gr[k]);
    gat_i_gps_moments(m, &m1, &m2);
    return gat_adam_step(adam, t, gat_gps_trainable(m), p, gr, m1, m2); /* not the BN statistics */
}

/* ---- node classification ---- */

typedef struct nodes {
    gat_gps *m;
    const gat_dataset *ds;
    const gat_train_config *cfg;
    gat_idx n_seg;
    const gat_idx *seg;
    gat_real *dl;
    const gat_real *logits;      /* the last evaluation's (N, C) */
    gat_idx *rows[2], n_rows[2]; /* two-class models: the validation and the test nodes */
} nodes;

static gat_status nodes_train(void *u, gat_idx epoch, double *loss, double *acc, int *diverged)
{
    nodes *c = u;
    const gat_status st = step(c->m, &c->ds->graph, &c->ds->x, c->n_seg, c->seg, c->ds->n,
                               c->ds->labels, c->ds->split, &c->cfg->adam, epoch, c->dl, loss, acc);
    *diverged = st == GAT_ENUMERIC;
    return st;
}

static gat_status nodes_evaluate(void *u, gat_split which, int final, double *loss, double *acc)
{
    nodes *c = u;
    (void)final;
    const gat_real *logits;
    gat_status st;
    if ((st = gat_gps_forward(c->m, &c->ds->graph, &c->ds->x, c->n_seg, c->seg, 0, &logits)) !=
        GAT_OK)
        return st;
    c->logits = logits;
    return gat_softmax_xent(logits, c->ds->n, gat_gps_get_config(c->m)->classes, c->ds->labels,
                            c->ds->split, which, loss, acc, NULL);
}

static gat_status nodes_auc(void *u, gat_split which, double *auc)
{
    const nodes *c = u;
    const int k = which == GAT_SPLIT_TEST;
    return gat_i_auc_logits(c->logits, c->ds->labels, c->rows[k], c->n_rows[k], auc);
}

gat_status gat_gps_train(gat_gps *m, const gat_dataset *ds, const gat_train_config *cfg,
                         gat_train_result *res)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_gps_train", 3, (const void *[]){m, ds, cfg},
                               (const char *[]){"model", "dataset", "cfg"})) != GAT_OK ||
        (st = gat_i_loop_config_check(cfg, "gat_gps_train")) != GAT_OK)
        return st;
    const gat_gps_config *mc = gat_gps_get_config(m);
    if (mc->task != GAT_TASK_NODE)
        return gat_i_error(GAT_EINVAL, "gat_gps_train: the model is a graph model (task graph)");
    if (ds->n_labels > 0)
        return gat_i_error(GAT_EINVAL, "gat_gps_train: multi-label datasets are not supported");
    if (ds->n_features != mc->in_features || ds->n_classes > mc->classes)
        return gat_i_error(GAT_EDIM, "gat_gps_train: the dataset has %d features and %d classes, "
                           "the model %d and %d", ds->n_features, ds->n_classes, mc->in_features,
                           mc->classes);
    if (ds->n_train < 1 || ds->n_val < 1)
        return gat_i_error(GAT_EINVAL, "gat_gps_train: %d training and %d validation nodes; both "
                           "must be non-zero", ds->n_train, ds->n_val);
    const gat_idx one[2] = {0, ds->n};
    gat_i_ckpt_run ck = {0};
    nodes c = {.m = m, .ds = ds, .cfg = cfg, .n_seg = ds->n_graphs > 0 ? ds->n_graphs : 1,
               .seg = ds->n_graphs > 0 ? ds->graph_ptr : one};
    const int two = mc->classes == 2;
    if (cfg->metric == GAT_METRIC_AUC && !two)
        return gat_i_error(GAT_EINVAL,
                           "gat_gps_train: metric = GAT_METRIC_AUC (ROC-AUC) needs a "
                           "two-class model, this one has %d classes",
                           mc->classes);
    c.dl = gat_malloc((size_t)ds->n * (size_t)mc->classes, sizeof *c.dl);
    for (int k = 0; two && k < 2; k++)
        c.rows[k] = gat_malloc((size_t)ds->n + 1, sizeof *c.rows[k]);
    if (!c.dl || (two && (!c.rows[0] || !c.rows[1]))) {
        st = GAT_ENOMEM;
        goto out;
    }
    for (gat_idx i = 0; two && i < ds->n; i++) /* ascending, as gat_i_auc_logits reads them */
        if (ds->split[i] == GAT_SPLIT_VAL || ds->split[i] == GAT_SPLIT_TEST) {
            const int k = ds->split[i] == GAT_SPLIT_TEST;
            c.rows[k][c.n_rows[k]++] = i;
        }
    if ((cfg->checkpoint || cfg->resume) &&
        (st = gat_i_ckpt_ident_init(&ck.id, gat_i_gps_config_text(m), gat_i_gps_seed(m), ds, NULL,
                                    cfg, gat_metric_name(cfg->metric))) != GAT_OK)
        goto out;
    gat_i_gps_moments(m, &ck.m1, &ck.m2);
    ck.dropout = gat_i_gps_dropout_step(m);
    const gat_i_train_ops ops = {.train = nodes_train,
                                 .evaluate = nodes_evaluate,
                                 .auc = two ? nodes_auc : NULL,
                                 .has_test = ds->n_test > 0,
                                 .ckpt = cfg->checkpoint || cfg->resume ? &ck : NULL};
    size_t P;
    gat_real *params = gat_gps_params(m, &P);
    st = gat_i_train_loop(params, P, cfg, &ops, &c, res);
out:
    gat_i_ckpt_ident_free(&ck.id);
    gat_free(c.dl);
    gat_free(c.rows[0]);
    gat_free(c.rows[1]);
    return st;
}

/* ---- graph classification ---- */

typedef struct graphs {
    gat_gps *m;
    const gat_dataset *ds;
    const uint8_t *split;
    const gat_train_config *cfg;
    gat_i_sched sch; /* the lr schedule (its adam steps) and keep_last */
    gat_idx *train, n_train, B, t;
    gat_graph_batch b;
    gat_real *dl;
    uint8_t *all;
} graphs;

static gat_status batch_step(graphs *c, const gat_idx *ids, gat_idx n, double *loss, double *acc)
{
    gat_status st;
    if ((st = gat_graph_batch_make(&c->b, c->ds, ids, n)) != GAT_OK) return st;
    return step(c->m, &c->b.graph, &c->b.x, n, c->b.graph_ptr, n, c->b.labels, c->all,
                &c->sch.adam, ++c->t, c->dl, loss, acc);
}

static gat_status graphs_train(void *u, gat_idx epoch, double *loss, double *acc, int *diverged)
{
    graphs *c = u;
    gat_status st;
    double lsum = 0, asum = 0;
    gat_i_sched_epoch(&c->sch, epoch);
    /* the epoch's order: as gat_graph_train draws it (the same batches for a seed) */
    gat_i_sched_order(&c->sch, epoch, c->train, c->n_train);
    for (gat_idx k0 = 0; k0 < c->n_train; k0 += c->B) {
        const gat_idx n = c->n_train - k0 < c->B ? c->n_train - k0 : c->B;
        double l, a;
        if ((st = batch_step(c, c->train + k0, n, &l, &a)) != GAT_OK) {
            *diverged = st == GAT_ENUMERIC;
            return st;
        }
        lsum += l * n, asum += a * n;
    }
    *loss = lsum / c->n_train;
    *acc = asum / c->n_train;
    gat_i_sched_trained(&c->sch);
    return GAT_OK;
}

gat_status gat_gps_graph_evaluate(gat_gps *m, const gat_dataset *ds, const uint8_t *graph_split,
                                  gat_split which, double *loss, double *acc, gat_idx *pred)
{
    gat_graph_batch b = {0};
    gat_idx *ids = NULL, n = 0, right = 0;
    double lsum = 0;
    gat_status st = GAT_OK;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_gps_graph_evaluate", 3, (const void *[]){m, ds, graph_split},
                               (const char *[]){"model", "dataset", "graph_split"})) != GAT_OK)
        return st;
    const gat_gps_config *mc = gat_gps_get_config(m);
    if (mc->task != GAT_TASK_GRAPH || ds->n_graphs < 1 || !ds->graph_labels)
        return gat_i_error(GAT_EINVAL, "gat_gps_graph_evaluate: needs a graph model and a dataset "
                           "of labelled graphs");
    if (ds->n_graph_classes > mc->classes)
        return gat_i_error(GAT_EDIM, "gat_gps_graph_evaluate: the dataset has %d graph classes "
                           "but the model predicts %d", ds->n_graph_classes, mc->classes);
    if (!(ids = gat_malloc((size_t)ds->n_graphs, sizeof *ids))) return GAT_ENOMEM;
    for (gat_idx g = 0; g < ds->n_graphs; g++)
        if (graph_split[g] == which) ids[n++] = g;
    if (n == 0) st = gat_i_error(GAT_EINVAL, "gat_gps_graph_evaluate: no graph in split %d", which);
    enum { BATCH = 128 };
    for (gat_idx k0 = 0; k0 < n && st == GAT_OK; k0 += BATCH) {
        const gat_idx cnt = n - k0 < BATCH ? n - k0 : BATCH, C = mc->classes;
        const gat_real *y;
        double sum, hits;
        gat_idx best[BATCH];
        if ((st = gat_graph_batch_make(&b, ds, ids + k0, cnt)) != GAT_OK ||
            (st = gat_gps_forward(m, &b.graph, &b.x, cnt, b.graph_ptr, 0, &y)) != GAT_OK ||
            (st = gat_i_xent_rows(y, cnt, C, b.labels, NULL, cnt, 1, &sum, &hits)) != GAT_OK)
            break;
        lsum += sum;
        right += (gat_idx)hits;
        if (!pred) continue;
        gat_i_predict_rows(y, cnt, C, best, NULL);
        for (gat_idx g = 0; g < cnt; g++)
            pred[ids[k0 + g]] = best[g];
    }
    if (st == GAT_OK && loss) *loss = lsum / n;
    if (st == GAT_OK && acc) *acc = (double)right / n;
    gat_graph_batch_destroy(&b);
    gat_free(ids);
    return st;
}

static gat_status graphs_evaluate(void *u, gat_split which, int final, double *loss,
                                  double *acc)
{
    graphs *c = u;
    const gat_status st = gat_gps_graph_evaluate(c->m, c->ds, c->split, which, loss, acc, NULL);
    gat_i_sched_evaluated(&c->sch, which, final, st, st == GAT_OK ? *loss : 0);
    return st;
}

static int graphs_agree(void *u, int stop)
{
    graphs *c = u;
    return gat_i_sched_agree(&c->sch, stop);
}

static void graphs_resumed(void *u, const gat_i_ckpt_state *cs, int *ended)
{
    graphs *c = u;
    gat_i_sched_resumed(&c->sch, cs, c->train, c->n_train, ended);
}

gat_status gat_gps_graph_train(gat_gps *m, const gat_dataset *ds, const uint8_t *graph_split,
                               const gat_train_config *cfg, gat_train_result *res)
{
    gat_status st;
    gat_idx n_val = 0, n_test = 0;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_gps_graph_train", 4, (const void *[]){m, ds, graph_split, cfg},
                               (const char *[]){"model", "dataset", "graph_split", "cfg"})) !=
            GAT_OK ||
        (st = gat_i_loop_config_check(cfg, "gat_gps_graph_train")) != GAT_OK ||
        (st = gat_i_sched_config_check(cfg, "gat_gps_graph_train")) != GAT_OK)
        return st;
    const gat_gps_config *mc = gat_gps_get_config(m);
    if (mc->task != GAT_TASK_GRAPH || ds->n_graphs < 1 || !ds->graph_labels)
        return gat_i_error(GAT_EINVAL, "gat_gps_graph_train: needs a graph model and a dataset of "
                           "labelled graphs");
    if (ds->n_features != mc->in_features || ds->n_graph_classes > mc->classes)
        return gat_i_error(GAT_EDIM, "gat_gps_graph_train: the dataset has %d features and %d "
                           "graph classes, the model %d and %d", ds->n_features,
                           ds->n_graph_classes, mc->in_features, mc->classes);
    graphs c = {.m = m, .ds = ds, .split = graph_split, .cfg = cfg};
    gat_i_ckpt_run ck = {0};
    if (!(c.train = gat_malloc((size_t)ds->n_graphs, sizeof *c.train))) return GAT_ENOMEM;
    for (gat_idx g = 0; g < ds->n_graphs; g++) {
        if (graph_split[g] == GAT_SPLIT_TRAIN) c.train[c.n_train++] = g;
        n_val += graph_split[g] == GAT_SPLIT_VAL;
        n_test += graph_split[g] == GAT_SPLIT_TEST;
    }
    if (c.n_train == 0 || n_val == 0) {
        st = gat_i_error(GAT_EINVAL, "gat_gps_graph_train: %d training and %d validation graphs; "
                         "both must be non-zero", c.n_train, n_val);
        goto cleanup;
    }
    c.B = cfg->batch_size > 0 && cfg->batch_size < c.n_train ? cfg->batch_size : c.n_train;
    if (!(c.dl = gat_malloc((size_t)c.B * (size_t)mc->classes, sizeof *c.dl)) ||
        !(c.all = gat_malloc((size_t)c.B, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    memset(c.all, GAT_SPLIT_TRAIN, (size_t)c.B);
    if ((cfg->checkpoint || cfg->resume) &&
        (st = gat_i_ckpt_ident_init(&ck.id, gat_i_gps_config_text(m), gat_i_gps_seed(m), ds,
                                    graph_split, cfg, gat_metric_name(cfg->metric))) != GAT_OK)
        goto cleanup;
    gat_i_gps_moments(m, &ck.m1, &ck.m2);
    ck.dropout = gat_i_gps_dropout_step(m);
    ck.steps = &c.t;
    const gat_i_train_ops ops = {.train = graphs_train,
                                 .evaluate = graphs_evaluate,
                                 .agree = graphs_agree,
                                 .has_test = n_test > 0,
                                 .ckpt = cfg->checkpoint || cfg->resume ? &ck : NULL,
                                 .resumed = graphs_resumed,
                                 .keeps_last = cfg->keep_last};
    size_t P;
    gat_real *params = gat_gps_params(m, &P);
    if ((st = gat_i_sched_init(&c.sch, cfg, params, P)) != GAT_OK) goto cleanup;
    st = gat_i_sched_finish(&c.sch, gat_i_train_loop(params, P, cfg, &ops, &c, res), &ops, &c,
                            res);
cleanup:
    gat_i_ckpt_ident_free(&ck.id);
    gat_graph_batch_destroy(&c.b);
    gat_free(c.train);
    gat_free(c.dl);
    gat_free(c.all);
    gat_i_sched_free(&c.sch);
    return st;
}
