/* Graph classification training (gat/readout.h): the step on a batch of graphs (cross-entropy
 * per graph, backward, Adam), evaluation of a split of the graphs with accuracy and macro-F1,
 * and the trainer, whose epochs run gat_train's loop (early stopping, best model restored). */
#include "train_i.h"
#include "core/core.h"
#include "gat/readout.h"
#include "model/model_i.h"
#include "model/readout_i.h"
#include "optim/optim_i.h"

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

/* Macro-F1 of pred against labels over the n items (classes C; a class with no item in either
 * counts 1). count: (3 C) scratch. */
static double macro_f1(const gat_idx *labels, const gat_idx *pred, const gat_idx *items,
                       gat_idx n, gat_idx C, gat_idx *count)
{
    double f = 0;
    memset(count, 0, 3 * (size_t)C * sizeof *count);
    for (gat_idx k = 0; k < n; k++) {
        const gat_idx y = labels[items[k]], p = pred[items[k]];
        if (y == p)
            count[3 * y]++; /* TP */
        else
            count[3 * p + 1]++, count[3 * y + 2]++; /* FP of p, FN of y */
    }
    for (gat_idx c = 0; c < C; c++) {
        const double d = 2.0 * count[3 * c] + count[3 * c + 1] + count[3 * c + 2];
        f += d > 0 ? 2.0 * count[3 * c] / d : 1.0;
    }
    return f / C;
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
        for (gat_idx g = 0; g < n; g++) {
            const gat_real *y = logits + (size_t)g * C;
            double mx = y[0], s = 0;
            for (gat_idx c = 1; c < C; c++)
                if (y[c] > mx) mx = y[c];
            for (gat_idx c = 0; c < C; c++)
                s += exp(y[c] - mx);
            *loss_sum += log(s) + mx - y[b->labels[g]];
        }
    }
    return GAT_OK;
}

gat_status gat_graph_evaluate(gat_model *m, const gat_dataset *ds, const uint8_t *graph_split,
                              gat_split which, gat_idx batch_graphs, double *loss, double *acc,
                              double *f1, gat_idx *pred)
{
    gat_graph_batch b = {0};
    gat_idx *items = NULL, *p = NULL, *count = NULL, n = 0;
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
    if (!(p = gat_malloc((size_t)n, sizeof *p)) ||
        !(count = gat_malloc(3 * (size_t)C, sizeof *count))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = infer(m, ds, items, n, batch_graphs < 1 ? 128 : batch_graphs, &b, p, &lsum)) !=
        GAT_OK)
        goto cleanup;
    gat_idx right = 0;
    for (gat_idx k = 0; k < n; k++)
        right += p[k] == ds->graph_labels[items[k]];
    if (loss) *loss = lsum / n;
    if (acc) *acc = (double)right / n;
    if (f1) { /* macro_f1 reads pred by graph: lay p out so */
        gat_idx *byg = gat_malloc((size_t)ds->n_graphs, sizeof *byg);
        if (!byg) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        for (gat_idx k = 0; k < n; k++)
            byg[items[k]] = p[k];
        *f1 = macro_f1(ds->graph_labels, byg, items, n, C, count);
        gat_free(byg);
    }
    if (pred)
        for (gat_idx k = 0; k < n; k++)
            pred[items[k]] = p[k];
cleanup:
    gat_graph_batch_destroy(&b);
    gat_free(items);
    gat_free(p);
    gat_free(count);
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
} graphs;

static gat_status graphs_train(void *u, gat_idx epoch, double *loss, double *acc, int *diverged)
{
    graphs *c = u;
    gat_rng rng;
    gat_status st;
    double lsum = 0, asum = 0;
    *diverged = 0;
    /* the epoch's order: a shuffle by the seed and the epoch, the same for any thread count */
    gat_rng_seed(&rng, c->cfg->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)epoch));
    for (gat_idx i = c->n_train - 1; i > 0; i--) {
        const gat_idx j = (gat_idx)gat_rng_below(&rng, (uint64_t)i + 1), t = c->train[i];
        c->train[i] = c->train[j];
        c->train[j] = t;
    }
    for (gat_idx k0 = 0; k0 < c->n_train; k0 += c->B) {
        const gat_idx n = c->n_train - k0 < c->B ? c->n_train - k0 : c->B;
        double l, a;
        if ((st = gat_graph_batch_make(&c->b, c->ds, c->train + k0, n)) != GAT_OK) return st;
        if ((st = step(c->m, &c->b, 1, &c->cfg->adam, ++c->t, &l, &a, "step",
                       "; the best model so far is kept", diverged)) != GAT_OK)
            return st;
        lsum += l * n;
        asum += a * n;
    }
    *loss = lsum / c->n_train;
    *acc = asum / c->n_train;
    return GAT_OK;
}

static gat_status graphs_evaluate(void *u, gat_split which, int final, double *loss, double *acc)
{
    graphs *c = u;
    (void)final;
    return gat_graph_evaluate(c->m, c->ds, c->split, which, c->B > 128 ? c->B : 128, loss, acc,
                              NULL, NULL);
}

gat_status gat_graph_train(gat_model *m, const gat_dataset *ds, const uint8_t *graph_split,
                           const gat_train_config *cfg, gat_train_result *res)
{
    graphs c = {.m = m, .ds = ds, .split = graph_split, .cfg = cfg};
    gat_idx n_val = 0, n_test = 0;
    gat_train_config chk;
    gat_status st;
    gat_i_clear_error();
    if (!m || !ds || !graph_split || !cfg)
        return gat_i_error(GAT_EINVAL, "gat_graph_train: NULL %s",
                           !m ? "model" : !ds ? "dataset" : !graph_split ? "graph_split" : "cfg");
    const gat_model_config *mc = gat_model_get_config(m);
    if (mc->task != GAT_TASK_GRAPH)
        return gat_i_error(GAT_EINVAL, "gat_graph_train: the model is a node model (task node)");
    chk = *cfg;
    chk.batch_size = 0; /* graphs per step here: not gat_train's sampled mini-batches */
    if ((st = gat_i_train_config_check(m, &chk)) != GAT_OK) return st;
    if (cfg->batch_size < 0)
        return gat_i_error(GAT_EINVAL,
                           "gat_graph_train: batch_size = %d, expected 0 (all training graphs) "
                           "or a count of graphs",
                           cfg->batch_size);
    if (ds->n_graphs < 1 || !ds->graph_labels || !ds->graph_ptr)
        return gat_i_error(GAT_EINVAL, "gat_graph_train: the dataset has no labelled graphs");
    if (ds->n_features != mc->in_features)
        return gat_i_error(GAT_EDIM, "the dataset has %d features but the model expects %d",
                           ds->n_features, mc->in_features);
    if (ds->n_graph_classes > mc->graph_classes)
        return gat_i_error(GAT_EDIM, "the dataset has %d graph classes but the model predicts %d",
                           ds->n_graph_classes, mc->graph_classes);
    if ((st = gat_i_model_check_edge_dim(m, ds->n_edge_features)) != GAT_OK ||
        (st = gat_i_graph_check_dataset(m, ds, "gat_graph_train")) != GAT_OK)
        return st;
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
    const gat_i_train_ops ops = {
        .train = graphs_train, .evaluate = graphs_evaluate, .has_test = n_test > 0};
    st = gat_i_train_loop(m, cfg, &ops, &c, res);
cleanup:
    gat_graph_batch_destroy(&c.b);
    gat_free(c.train);
    return st;
}
