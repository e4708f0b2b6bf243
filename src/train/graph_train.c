/* Graph classification training (gat/readout.h): the step on a batch of graphs (cross-entropy
 * per graph, backward, Adam), evaluation of a split of the graphs with accuracy and macro-F1,
 * and the trainer, whose epochs run gat_train's loop (early stopping, best model restored). */
#include "train_i.h"
#include "core/core.h"
#include "gat/readout.h"
#include "model/model_i.h"
#include "model/readout_i.h"
#include "optim/optim_i.h"
#include "gat/metrics.h"

#include <math.h>
#include <string.h>

/* The step without argument checks; unit, suffix: as gat_i_train_step_with's; trusted: b was made
 * from a checked dataset (gat_i_model_forward_graphs). */
static gat_status step(gat_model *m, const gat_graph_batch *b, int trusted,
                       const gat_adam_config *adam, gat_idx t, double *loss, double *acc,
                       const char *unit, const char *suffix, int *diverged)
{
    const gat_real *logits;
    gat_real *m1, *m2;
    size_t P;
    gat_status st;
    const gat_idx B = b->n_graphs, C = gat_model_get_config(m)->graph_classes;
    *diverged = 0;
    if ((st = gat_i_model_forward_graphs(m, b, 1, trusted, &logits)) != GAT_OK) return st;
    gat_real *dl;
    uint8_t *all;
    if ((st = gat_i_graph_scratch(m, B, &dl, &all)) != GAT_OK) return st;
    for (gat_idx g = 0; g < B; g++)
        if (b->labels[g] < 0 || b->labels[g] >= C)
            return gat_i_error(GAT_EINVAL, "graph %d (batch entry %d) has label %d outside 0..%d",
                               b->graph_ids ? b->graph_ids[g] : g, g, b->labels[g], C - 1);
    if ((st = gat_softmax_xent(logits, B, C, b->labels, all, GAT_SPLIT_TRAIN, loss, acc, dl)) !=
        GAT_OK)
        return st;
    gat_real *params = gat_model_params(m, &P), *grads = gat_model_grads(m, NULL);
    gat_i_model_moments(m, &m1, &m2);
    gat_model_zero_grads(m);
    if ((st = gat_model_backward_graphs(m, dl)) != GAT_OK) return st;
    *diverged = 1;
    if (!isfinite(*loss))
        return gat_i_error(GAT_ENUMERIC,
                           "training diverged at %s %d: the loss is %g (try a smaller "
                           "learning rate)%s",
                           unit, t, *loss, suffix);
    if ((st = gat_i_train_check_finite(m, grads, P, unit, t, "gradient", suffix)) != GAT_OK)
        return st;
    *diverged = 0;
    if ((st = gat_i_adam_step(gat_i_model_ops(m), adam, t, P, params, grads, m1, m2)) != GAT_OK)
        return st;
    if ((st = gat_i_train_check_finite(m, params, P, unit, t, "parameter", suffix)) != GAT_OK) {
        *diverged = 1;
        return st;
    }
    return GAT_OK;
}

gat_status gat_graph_train_step(gat_model *m, const gat_graph_batch *b,
                                const gat_adam_config *adam, gat_idx t, double *loss,
                                double *acc)
{
    gat_status st;
    double l, a;
    int diverged;
    gat_i_clear_error();
    if (!m || !b || !adam)
        return gat_i_error(GAT_EINVAL, "gat_graph_train_step: NULL %s",
                           !m ? "model m" : !b ? "batch b" : "adam");
    if (t < 1)
        return gat_i_error(GAT_EINVAL, "gat_graph_train_step: step t = %d, expected t >= 1", t);
    if ((st = gat_adam_config_check(adam)) != GAT_OK) return st;
    if (!b->labels) return gat_i_error(GAT_EINVAL, "gat_graph_train_step: the batch has no labels");
    if ((st = step(m, b, 0, adam, t, &l, &a, "step", "", &diverged)) != GAT_OK) return st;
    if (loss) *loss = l;
    if (acc) *acc = a;
    return GAT_OK;
}

/* Ascending list of the graphs with split == which (caller frees); NULL on ENOMEM. */
static gat_idx *graphs_of(const uint8_t *split, gat_idx n, gat_split which, gat_idx *count)
{
    gat_idx c = 0, *out = gat_malloc((size_t)n + 1, sizeof *out);
    if (!out) return NULL;
    for (gat_idx g = 0; g < n; g++)
        if (split[g] == which) out[c++] = g;
    *count = c;
    return out;
}

/* Inference over items (count), in batches of B, into pred (n_graphs) and the loss sum. */
static gat_status infer(gat_model *m, const gat_dataset *ds, const gat_idx *items, gat_idx count,
                        gat_idx B, gat_graph_batch *b, gat_idx *pred, double *loss_sum)
{
    const gat_idx C = gat_model_get_config(m)->graph_classes;
    gat_status st;
    *loss_sum = 0;
    for (gat_idx k0 = 0; k0 < count; k0 += B) {
        const gat_idx n = count - k0 < B ? count - k0 : B;
        const gat_real *logits;
        if ((st = gat_graph_batch_make(b, ds, items + k0, n)) != GAT_OK ||
            (st = gat_i_model_forward_graphs(m, b, 0, 1, &logits)) != GAT_OK)
            return st;
        gat_i_predict_rows(logits, n, C, pred + k0, NULL);
        double sum, right;
        if ((st = gat_i_xent_rows(logits, n, C, b->labels, NULL, n, 1, &sum, &right)) != GAT_OK)
            return st;
        *loss_sum += sum;
    }
    return GAT_OK;
}

gat_status gat_graph_evaluate(gat_model *m, const gat_dataset *ds, const uint8_t *graph_split,
                              gat_split which, gat_idx batch_graphs, double *loss, double *acc,
                              double *f1, gat_idx *pred)
{
    gat_graph_batch b = {0};
    gat_idx *items = NULL, *p = NULL, *y = NULL, n = 0;
    double lsum = 0;
    gat_status st;
    gat_i_clear_error();
    if (!m || !ds || !graph_split)
        return gat_i_error(GAT_EINVAL, "gat_graph_evaluate: NULL %s",
                           !m ? "model" : !ds ? "dataset" : "graph_split");
    const gat_idx C = gat_model_get_config(m)->graph_classes;
    if (ds->n_graphs < 1 || !ds->graph_labels)
        return gat_i_error(GAT_EINVAL, "gat_graph_evaluate: the dataset has no labelled graphs");
    if (ds->n_graph_classes > C)
        return gat_i_error(GAT_EDIM, "the dataset has %d graph classes but the model predicts %d",
                           ds->n_graph_classes, C);
    /* checked once: its batches are bound without the checks */
    if ((st = gat_i_graph_check_dataset(m, ds, "gat_graph_evaluate")) != GAT_OK) return st;
    if (!(items = graphs_of(graph_split, ds->n_graphs, which, &n))) return GAT_ENOMEM;
    if (n == 0) {
        st = gat_i_error(GAT_EINVAL, "gat_graph_evaluate: no graph in split %d", (int)which);
        goto cleanup;
    }
    if (!(p = gat_malloc((size_t)n, sizeof *p)) || !(y = gat_malloc((size_t)n, sizeof *y))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = infer(m, ds, items, n, batch_graphs < 1 ? 128 : batch_graphs, &b, p, &lsum)) !=
        GAT_OK)
        goto cleanup;
    gat_idx right = 0;
    for (gat_idx k = 0; k < n; k++) {
        y[k] = ds->graph_labels[items[k]];
        right += p[k] == y[k];
    }
    if (f1 && (st = gat_macro_f1(y, p, n, C, f1)) != GAT_OK) goto cleanup;
    if (loss) *loss = lsum / n;
    if (acc) *acc = (double)right / n;
    if (pred)
        for (gat_idx k = 0; k < n; k++)
            pred[items[k]] = p[k];
cleanup:
    gat_graph_batch_destroy(&b);
    gat_free(items);
    gat_free(p);
    gat_free(y);
    return st;
}

gat_status gat_graph_embed(gat_model *m, const gat_dataset *ds, gat_idx batch_graphs,
                           gat_real *pooled, gat_real *attention, gat_idx *pred, gat_real *prob)
{
    gat_graph_batch b = {0};
    gat_idx *ids = NULL;
    gat_status st = GAT_OK;
    gat_i_clear_error();
    if (!m || !ds) return gat_i_error(GAT_EINVAL, "gat_graph_embed: NULL %s", !m ? "model" : "ds");
    const gat_model_config *c = gat_model_get_config(m);
    if (c->task != GAT_TASK_GRAPH)
        return gat_i_error(GAT_EINVAL, "gat_graph_embed: the model is a node model (task node)");
    if (ds->n_graphs < 1 || !ds->graph_ptr)
        return gat_i_error(GAT_EINVAL, "gat_graph_embed: the dataset holds no set of graphs");
    if (attention && c->readout != GAT_READOUT_ATTENTION)
        return gat_i_error(GAT_EINVAL, "gat_graph_embed: readout %s has no attention weights",
                           gat_readout_name(c->readout));
    if (ds->n_features != c->in_features)
        return gat_i_error(GAT_EDIM, "the dataset has %d features but the model expects %d",
                           ds->n_features, c->in_features);
    if ((st = gat_i_graph_check_dataset(m, ds, "gat_graph_embed")) != GAT_OK) return st;
    const gat_idx B = batch_graphs < 1 ? 128 : batch_graphs, G = ds->n_graphs;
    const size_t R = (size_t)gat_i_readout_width(c), K = (size_t)gat_i_readout_heads(c);
    if (!(ids = gat_malloc((size_t)G, sizeof *ids))) return GAT_ENOMEM;
    for (gat_idx g = 0; g < G; g++)
        ids[g] = g;
    for (gat_idx k0 = 0; k0 < G && st == GAT_OK; k0 += B) {
        const gat_idx n = G - k0 < B ? G - k0 : B;
        const gat_real *logits, *r, *a;
        if ((st = gat_graph_batch_make(&b, ds, ids + k0, n)) != GAT_OK ||
            (st = gat_i_model_forward_graphs(m, &b, 0, 1, &logits)) != GAT_OK ||
            (st = gat_model_graph_outputs(m, &r, &a)) != GAT_OK)
            break;
        if (pooled) memcpy(pooled + (size_t)k0 * R, r, (size_t)n * R * sizeof *pooled);
        if (attention)
            memcpy(attention + (size_t)ds->graph_ptr[k0] * K, a,
                   (size_t)b.graph.n * K * sizeof *attention);
        if (pred || prob) {
            gat_idx *p = pred ? pred + k0 : b.labels; /* b.labels: scratch of n entries */
            gat_i_predict_rows(logits, n, c->graph_classes, p, prob ? prob + k0 : NULL);
        }
    }
    gat_graph_batch_destroy(&b);
    gat_free(ids);
    return st;
}

/* The trainer's state (gat_i_train_ops' u). */
typedef struct graphs {
    gat_model *m;
    const gat_dataset *ds;
    const uint8_t *split;
    const gat_train_config *cfg;
    gat_idx *train, n_train, B, t;
    gat_graph_batch b;
    gat_i_sched sch; /* the lr schedule (its adam steps) and keep_last */
    int multi;            /* a node model on a multi-label dataset: node labels, BCE */
    gat_idx *rows;        /* multi: (cap_rows) 0, 1, 2, ...: every node of a batch */
    size_t cap_rows;
} graphs;

/* c->rows holding 0 .. n-1. */
static gat_status all_rows(graphs *c, gat_idx n)
{
    if ((size_t)n <= c->cap_rows) return GAT_OK;
    gat_idx *r = gat_malloc((size_t)n, sizeof *r);
    if (!r) return GAT_ENOMEM;
    for (gat_idx i = 0; i < n; i++)
        r[i] = i;
    gat_free(c->rows);
    c->rows = r;
    c->cap_rows = (size_t)n;
    return GAT_OK;
}

/* A multi-label step on batch c->b: every node's sigmoid cross-entropy (gat_train's step with
 * the batch's label rows as targets), backward, Adam. */
static gat_status multi_step(graphs *c, double *loss, double *f1, int *diverged)
{
    const gat_graph_batch *b = &c->b;
    const gat_i_step_opts o = {.multi = b->label_matrix};
    gat_i_binding bb;
    gat_status st;
    *diverged = 0;
    if ((st = all_rows(c, b->graph.n)) != GAT_OK ||
        (st = gat_i_graph_bind_batch(c->m, b, 1, "gat_graph_train", &bb)) != GAT_OK)
        return st;
    bb.rows = c->rows, bb.n_rows = b->graph.n; /* the loss reads every node */
    return gat_i_train_step_with(c->m, &bb, NULL, &c->sch.adam, ++c->t, loss, f1, "step",
                                 "; the best model so far is kept", &o, diverged);
}

/* Multi-label inference on the graphs of split `which`, in batches of the training steps' size
 * (whose caches the model holds already): the mean sigmoid cross-entropy over their nodes and
 * labels, and their micro-F1. */
static gat_status multi_evaluate(graphs *c, gat_split which, double *loss, double *f1)
{
    const gat_idx L = c->ds->n_labels, B = c->B;
    gat_idx *items = NULL, n = 0;
    gat_i_f1_counts fc = {0};
    double lsum = 0, nodes = 0;
    gat_status st = GAT_OK;
    if (!(items = graphs_of(c->split, c->ds->n_graphs, which, &n))) return GAT_ENOMEM;
    for (gat_idx k0 = 0; k0 < n && st == GAT_OK; k0 += B) {
        const gat_graph_batch *b = &c->b;
        const gat_real *logits;
        gat_i_binding bb;
        double l, f;
        if ((st = gat_graph_batch_make(&c->b, c->ds, items + k0, n - k0 < B ? n - k0 : B)) !=
                GAT_OK ||
            (st = all_rows(c, b->graph.n)) != GAT_OK ||
            (st = gat_i_graph_bind_batch(c->m, b, 1, "gat_graph_train", &bb)) != GAT_OK ||
            (st = gat_i_model_forward(c->m, &bb, &(gat_i_run){.training = 0}, &logits)) !=
                GAT_OK ||
            (st = gat_i_bce_rows(logits, b->graph.n, L, b->label_matrix, NULL, GAT_SPLIT_NONE,
                                 c->rows, b->graph.n, 0, &l, &f, NULL)) != GAT_OK)
            break;
        lsum += l * b->graph.n;
        nodes += b->graph.n;
        for (gat_idx i = 0; i < b->graph.n; i++)
            gat_i_f1_add(&fc, logits + (size_t)i * L, b->label_matrix + (size_t)i * L, L);
    }
    gat_free(items);
    if (st != GAT_OK) return st;
    if (n == 0) return gat_i_error(GAT_EINVAL, "gat_graph_train: no graph in split %d", (int)which);
    *loss = lsum / nodes;
    *f1 = gat_i_f1_value(&fc);
    return GAT_OK;
}

static gat_status graphs_train(void *u, gat_idx epoch, double *loss, double *acc, int *diverged)
{
    graphs *c = u;
    gat_status st;
    double lsum = 0, asum = 0, wsum = 0;
    *diverged = 0;
    gat_i_sched_epoch(&c->sch, epoch);
    gat_i_sched_order(&c->sch, epoch, c->train, c->n_train);
    for (gat_idx k0 = 0; k0 < c->n_train; k0 += c->B) {
        const gat_idx n = c->n_train - k0 < c->B ? c->n_train - k0 : c->B;
        double l, a;
        if ((st = gat_graph_batch_make(&c->b, c->ds, c->train + k0, n)) != GAT_OK) return st;
        /* a graph model weighs each batch by its graphs, a multi-label one by its nodes */
        const double w = c->multi ? (double)c->b.graph.n : (double)n;
        if ((st = c->multi ? multi_step(c, &l, &a, diverged)
                           : step(c->m, &c->b, 1, &c->sch.adam, ++c->t, &l, &a, "step",
                                  "; the best model so far is kept", diverged)) != GAT_OK)
            return st;
        lsum += l * w;
        asum += a * w;
        wsum += w;
    }
    *loss = lsum / wsum;
    *acc = asum / wsum;
    gat_i_sched_trained(&c->sch);
    return GAT_OK;
}

static gat_status graphs_evaluate(void *u, gat_split which, int final, double *loss, double *acc)
{
    graphs *c = u;
    const gat_status st = c->multi ? multi_evaluate(c, which, loss, acc)
                                   : gat_graph_evaluate(c->m, c->ds, c->split, which,
                                                        c->B > 128 ? c->B : 128, loss, acc,
                                                        NULL, NULL);
    gat_i_sched_evaluated(&c->sch, which, final, st, st == GAT_OK ? *loss : 0);
    return st;
}

/* The loop's stop decision (gat_i_train_ops.agree): the caller's, or the schedule's end. */
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

/* gat_graph_train's checks of its arguments; *multi: a node model on a multi-label dataset. */
static gat_status check_train(gat_model *m, const gat_dataset *ds, const gat_train_config *cfg,
                              int *multi)
{
    const gat_model_config *mc = gat_model_get_config(m);
    gat_train_config chk = *cfg;
    gat_status st;
    *multi = mc->task == GAT_TASK_NODE;
    if (*multi && ds->n_labels < 1)
        return gat_i_error(GAT_EINVAL, "gat_graph_train: a node model (task node) trains on a "
                                       "dataset of graphs with multi-hot node labels only "
                                       "(n_labels > 0); this one has none");
    chk.batch_size = 0; /* graphs per step here: not gat_train's sampled mini-batches */
    if ((st = gat_i_train_config_check(m, &chk)) != GAT_OK) return st;
    if ((st = gat_i_sched_config_check(cfg, "gat_graph_train")) != GAT_OK) return st;
    if (ds->n_graphs < 1 || !ds->graph_ptr || (!*multi && !ds->graph_labels))
        return gat_i_error(GAT_EINVAL, "gat_graph_train: the dataset has no %s graphs",
                           *multi ? "set of" : "labelled");
    if (ds->n_features != mc->in_features)
        return gat_i_error(GAT_EDIM, "the dataset has %d features but the model expects %d",
                           ds->n_features, mc->in_features);
    if (*multi && ds->n_labels != mc->classes)
        return gat_i_error(GAT_EDIM, "the dataset has %d labels per node but the model predicts %d",
                           ds->n_labels, mc->classes);
    if (!*multi && ds->n_graph_classes > mc->graph_classes)
        return gat_i_error(GAT_EDIM, "the dataset has %d graph classes but the model predicts %d",
                           ds->n_graph_classes, mc->graph_classes);
    /* checked once: its batches are bound without the checks */
    if ((st = gat_i_model_check_edge_dim(m, ds->n_edge_features)) != GAT_OK) return st;
    return gat_i_graph_check_dataset(m, ds, "gat_graph_train");
}

gat_status gat_graph_train(gat_model *m, const gat_dataset *ds, const uint8_t *graph_split,
                           const gat_train_config *cfg, gat_train_result *res)
{
    graphs c = {.m = m, .ds = ds, .split = graph_split, .cfg = cfg};
    gat_i_ckpt_run ck = {0};
    gat_idx n_val = 0, n_test = 0;
    gat_status st;
    gat_i_clear_error();
    if (!m || !ds || !graph_split || !cfg)
        return gat_i_error(GAT_EINVAL, "gat_graph_train: NULL %s",
                           !m ? "model" : !ds ? "dataset" : !graph_split ? "graph_split" : "cfg");
    if ((st = check_train(m, ds, cfg, &c.multi)) != GAT_OK) return st;
    for (gat_idx g = 0; g < ds->n_graphs; g++) {
        n_val += graph_split[g] == GAT_SPLIT_VAL;
        n_test += graph_split[g] == GAT_SPLIT_TEST;
    }
    if (!(c.train = graphs_of(graph_split, ds->n_graphs, GAT_SPLIT_TRAIN, &c.n_train)))
        return GAT_ENOMEM;
    if (c.n_train == 0 || n_val == 0) {
        st = gat_i_error(GAT_EINVAL,
                         "gat_graph_train: %d training and %d validation graphs; both must be "
                         "non-zero",
                         c.n_train, n_val);
        goto cleanup;
    }
    c.B = cfg->batch_size > 0 && cfg->batch_size < c.n_train ? cfg->batch_size : c.n_train;
    size_t P;
    gat_real *params = gat_model_params(m, &P);
    if ((st = gat_i_sched_init(&c.sch, cfg, params, P)) != GAT_OK) goto cleanup;
    if ((cfg->checkpoint || cfg->resume) &&
        (st = gat_i_ckpt_ident_init(&ck.id, gat_i_model_config_text(m), gat_i_model_seed(m), ds,
                                    graph_split, cfg, gat_metric_name(cfg->metric))) != GAT_OK)
        goto cleanup;
    gat_i_model_moments(m, &ck.m1, &ck.m2);
    ck.dropout = gat_i_model_dropout_step(m);
    ck.steps = &c.t;
    const gat_i_train_ops ops = {.train = graphs_train,
                                 .evaluate = graphs_evaluate,
                                 .agree = graphs_agree,
                                 .has_test = n_test > 0,
                                 .ckpt = cfg->checkpoint || cfg->resume ? &ck : NULL,
                                 .resumed = graphs_resumed,
                                 .keeps_last = cfg->keep_last};
    st = gat_i_sched_finish(&c.sch, gat_i_train_loop(params, P, cfg, &ops, &c, res), &ops, &c,
                            res);
cleanup:
    gat_i_ckpt_ident_free(&ck.id);
    gat_graph_batch_destroy(&c.b);
    gat_free(c.train);
    gat_free(c.rows);
    gat_i_sched_free(&c.sch);
    return st;
}
