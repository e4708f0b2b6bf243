/* Full-graph training loop: masked softmax cross-entropy, Adam, and the GAT reference's early
 * stopping (a model is kept when validation loss and accuracy both reach their best so far). */
#include "gat/train.h"
#include "gat/sample.h"
#include "core/core.h"
#include "model/model_i.h"
#include "optim/optim_i.h"
#include "train/metrics_i.h"
#include "train/train_i.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void gat_train_config_default(gat_train_config *c)
{
    if (!c) return;
    memset(c, 0, sizeof *c);
    gat_adam_config_default(&c->adam);
    c->max_epochs = 100000;
    c->patience = 100;
    c->lookahead = -1;
}

/* Mean softmax cross-entropy and accuracy over the selected nodes, in ascending order: rows
 * (count of them) if rows is not NULL, else the count nodes i < n with split[i] == which (every
 * node if split is NULL too). dlogits
 * (n, classes), if not NULL, is zeroed and receives d loss / d logits of those nodes. */
static gat_status xent(const gat_real *logits, gat_idx n, gat_idx classes, const gat_idx *labels,
                       const uint8_t *split, gat_split which, const gat_idx *rows, gat_idx count,
                       double denom, double *loss, double *acc, gat_real *dlogits)
{
    if (denom <= 0) denom = count;
    gat_idx correct = 0;
    double total = 0;
    if (dlogits) memset(dlogits, 0, (size_t)n * classes * sizeof *dlogits);
    for (gat_idx k = 0; k < (rows ? count : n); k++) {
        const gat_idx i = rows ? rows[k] : k;
        if (!rows && split && split[i] != which) continue;
        const gat_real *z = logits + (size_t)i * classes;
        const gat_idx y = labels[i];
        if (y < 0 || y >= classes)
            return gat_i_error(GAT_EINVAL, "node %d has label %d outside [0, %d)", i, y, classes);
        gat_idx arg = 0;
        double mx = z[0], sum = 0;
        for (gat_idx c = 1; c < classes; c++)
            if (z[c] > mx) mx = z[c], arg = c;
        for (gat_idx c = 0; c < classes; c++)
            sum += exp(z[c] - mx);
        total += log(sum) + mx - z[y];
        correct += arg == y;
        if (dlogits) {
            gat_real *d = dlogits + (size_t)i * classes;
            for (gat_idx c = 0; c < classes; c++)
                d[c] = (gat_real)((exp(z[c] - mx) / sum - (c == y)) / denom);
        }
    }
    *loss = total / denom;
    *acc = (double)correct / denom;
    return GAT_OK;
}

gat_status gat_i_xent_rows(const gat_real *logits, gat_idx n, gat_idx classes,
                           const gat_idx *labels, const gat_idx *rows, gat_idx count, double denom,
                           double *loss, double *acc)
{
    return xent(logits, n, classes, labels, NULL, GAT_SPLIT_NONE, rows, count, denom, loss, acc,
                NULL);
}

gat_status gat_softmax_xent(const gat_real *logits, gat_idx n, gat_idx classes,
                            const gat_idx *labels, const uint8_t *split, gat_split which,
                            double *loss, double *acc, gat_real *dlogits)
{
    gat_idx count = 0;
    gat_i_clear_error();
    if (!logits || !labels || !split || !loss || !acc)
        return gat_i_error(GAT_EINVAL, "gat_softmax_xent: NULL %s",
                           !logits   ? "logits"
                           : !labels ? "labels"
                           : !split  ? "split"
                           : !loss   ? "loss"
                                     : "acc");
    if (classes <= 0 || n < 0)
        return gat_i_error(GAT_EINVAL, "gat_softmax_xent: bad size n = %d, classes = %d", n,
                           classes);
    for (gat_idx i = 0; i < n; i++)
        count += split[i] == which;
    if (count == 0) return gat_i_error(GAT_EINVAL, "no node in split %d", (int)which);
    return xent(logits, n, classes, labels, split, which, NULL, count, 0, loss, acc, dlogits);
}

/* Ascending list of the nodes of one split (caller frees). */
static gat_idx *split_rows(const gat_dataset *ds, gat_split which, gat_idx *count)
{
    gat_idx n = 0, *rows;
    for (gat_idx i = 0; i < ds->n; i++)
        n += ds->split[i] == which;
    if (!(rows = gat_malloc((size_t)n, sizeof *rows))) return NULL;
    n = 0;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->split[i] == which) rows[n++] = i;
    *count = n;
    return rows;
}

gat_status gat_i_loop_config_check(const gat_train_config *cfg, const char *fn)
{
    gat_status st;
    if (cfg->max_epochs < 1)
        return gat_i_error(GAT_EINVAL, "%s: max_epochs = %d, expected at least 1", fn,
                           cfg->max_epochs);
    if (cfg->patience < 1)
        return gat_i_error(GAT_EINVAL, "%s: patience = %d, expected at least 1", fn,
                           cfg->patience);
    if (cfg->eval_every < 0)
        return gat_i_error(GAT_EINVAL, "%s: eval_every = %d, expected 0 or 1 (every epoch) or a "
                           "count of epochs", fn, cfg->eval_every);
    if (cfg->lookahead < -1 || cfg->lookahead > 1)
        return gat_i_error(GAT_EINVAL,
                           "%s: lookahead = %d, expected -1 (when a processor is "
                           "free), 0 or 1",
                           fn, cfg->lookahead);
    if ((st = gat_adam_config_check(&cfg->adam)) != GAT_OK) return st;
    if ((unsigned)cfg->metric > GAT_METRIC_LOSS)
        return gat_i_error(GAT_EINVAL,
                           "%s: metric = %d, expected GAT_METRIC_ACC, GAT_METRIC_AUC or "
                           "GAT_METRIC_LOSS", fn, (int)cfg->metric);
    if (cfg->checkpoint_every < 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: checkpoint_every = %d, expected 0 (not by epochs) or "
                           "a count of epochs",
                           fn, cfg->checkpoint_every);
    if (!(cfg->checkpoint_seconds >= 0) || !isfinite(cfg->checkpoint_seconds))
        return gat_i_error(GAT_EINVAL,
                           "%s: checkpoint_seconds = %g, expected 0 (not by time) or "
                           "a finite count of seconds",
                           fn, cfg->checkpoint_seconds);
    return GAT_OK;
}

gat_status gat_i_no_checkpoints(const gat_train_config *cfg, const char *fn)
{
    if (!cfg->checkpoint && !cfg->resume) return GAT_OK;
    return gat_i_error(GAT_EINVAL,
                       "%s: %s is set, but distributed training keeps no checkpoints (they "
                       "are for training in one process)",
                       fn, cfg->checkpoint ? "checkpoint" : "resume");
}

gat_status gat_i_train_config_check(const gat_model *m, const gat_train_config *cfg)
{
    gat_status st;
    if ((st = gat_i_loop_config_check(cfg, "gat_train")) != GAT_OK) return st;
    if (cfg->metric == GAT_METRIC_AUC && gat_model_get_config(m)->classes != 2)
        return gat_i_error(GAT_EINVAL,
                           "gat_train: metric = GAT_METRIC_AUC (ROC-AUC) needs a two-class "
                           "model, this one predicts %d classes",
                           gat_model_get_config(m)->classes);
    const gat_idx L = gat_model_get_config(m)->layers;
    if (cfg->batch_size < 0)
        return gat_i_error(GAT_EINVAL,
                           "gat_train: batch_size = %d, expected 0 (full graph) or "
                           "a count of training nodes",
                           cfg->batch_size);
    if (cfg->batch_size > 0) {
        if (cfg->n_fanout != L)
            return gat_i_error(GAT_EINVAL,
                               "gat_train: n_fanout = %d fan-outs for a model of %d "
                               "layers (one fan-out per layer)",
                               cfg->n_fanout, L);
        for (int h = 0; h < cfg->n_fanout; h++)
            if (cfg->fanout[h] < -1)
                return gat_i_error(GAT_EINVAL,
                                   "gat_train: fanout[%d] = %d, expected -1 (all "
                                   "neighbours) or a count >= 0",
                                   h, cfg->fanout[h]);
    }
    return GAT_OK;
}

static gat_status check_fit(const gat_model *m, const gat_dataset *ds)
{
    const gat_model_config *c = gat_model_get_config(m);
    /* the dataset's fields are caller-visible: its sizes must agree before any array is read
     * (the graph and the features themselves are checked by the forward) */
    if (ds->graph.n != ds->n || ds->x.rows != ds->n)
        return gat_i_error(GAT_EDIM,
                           "the dataset has n = %d nodes but its graph has %d and its "
                           "features %d rows",
                           ds->n, ds->graph.n, ds->x.rows);
    if (ds->n > 0 && (!ds->labels || !ds->split))
        return gat_i_error(GAT_EINVAL, "the dataset has n = %d nodes but NULL %s", ds->n,
                           !ds->labels ? "labels" : "split");
    if (ds->n_features != c->in_features)
        return gat_i_error(GAT_EDIM, "the dataset has %d features but the model expects %d",
                           ds->n_features, c->in_features);
    if (ds->n_labels > 0 && !ds->label_matrix)
        return gat_i_error(GAT_EINVAL, "the dataset has %d labels per node but a NULL label_matrix",
                           ds->n_labels);
    if (ds->n_labels > 0 ? ds->n_labels != c->classes : ds->n_classes != c->classes)
        return gat_i_error(GAT_EDIM, "the dataset has %d %s but the model predicts %d",
                           ds->n_labels > 0 ? ds->n_labels : ds->n_classes,
                           ds->n_labels > 0 ? "labels per node" : "classes", c->classes);
    return GAT_OK;
}

/* gat_train's one check of the dataset's graph, features and edge features (the messages as a
 * forward's on unchecked inputs). */
static gat_status check_dataset(const gat_model *m, const gat_dataset *ds)
{
    const gat_idx D = gat_model_get_config(m)->edge_dim;
    if (D > 0 && !ds->edge_x)
        return gat_i_error(GAT_EINVAL, "gat_model_bind_edge_features: edge_x is NULL but D = %d",
                           D);
    return gat_i_model_check_inputs(m, &ds->graph, &ds->x, ds->edge_x, "gat_model_forward");
}

/* The dataset's binding (binding.h) with output rows (count of them): its graph, features and
 * edge features, checked at the bind unless trusted (gat_train checks them once), and for
 * inference (mini-batch training, whose steps bind blocks) when lean. */
static gat_i_binding dataset_binding(const gat_dataset *ds, const gat_idx *rows, gat_idx count,
                                     int trusted, int lean)
{
    return (gat_i_binding){.g = &ds->graph,
                           .x = &ds->x,
                           .ex = ds->n_edge_features > 0 ? ds->edge_x : NULL,
                           .rows = rows,
                           .n_rows = count,
                           .flags = (trusted ? GAT_I_BIND_TRUSTED : 0) |
                                    (lean ? GAT_BIND_INFERENCE : 0)};
}

/* Inference of binding b (the dataset's, restricted to the rows of split which), then its loss
 * and accuracy (and in *out, if not NULL, the logits, valid until the model's next forward).
 * hook: the run's (or NULL). */
static gat_status evaluate_rows(gat_model *m, const gat_dataset *ds, const gat_i_binding *b,
                                gat_split which, gat_i_layer_hook hook, void *user, double *loss,
                                double *acc, const gat_real **out)
{
    const gat_real *logits;
    gat_status st;
    /* an inference binding of the dataset stays one between evaluations */
    if (b->flags & GAT_BIND_INFERENCE && !gat_i_model_lean(m) &&
        (st = gat_i_model_bind(m, b, "gat_model_forward")) != GAT_OK)
        return st;
    const gat_i_run run = {.hook = hook, .hook_user = user};
    if ((st = gat_i_model_forward(m, b, &run, &logits)) != GAT_OK) return st;
    if (out) *out = logits;
    if (ds->n_labels > 0)
        return gat_sigmoid_bce(logits, ds->n, ds->n_labels, ds->label_matrix, ds->split, which,
                               loss, acc, NULL);
    return gat_softmax_xent(logits, ds->n, ds->n_classes, ds->labels, ds->split, which, loss, acc,
                            NULL);
}

gat_status gat_model_evaluate(gat_model *m, const gat_dataset *ds, gat_split which, double *loss,
                              double *acc)
{
    gat_idx *rows = NULL, n_rows = 0;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_model_evaluate", 4, (const void *[]){m, ds, loss, acc},
                               (const char *[]){"model m", "dataset ds", "loss", "acc"})) != GAT_OK)
        return st;
    if ((st = check_fit(m, ds)) != GAT_OK) return st;
    /* a model with an edge term runs on the dataset's edge features */
    if ((st = gat_i_model_check_edge_dim(m, ds->n_edge_features)) != GAT_OK) return st;
    if (!(rows = split_rows(ds, which, &n_rows))) return GAT_ENOMEM;
    const gat_i_binding b = dataset_binding(ds, rows, n_rows, 0, 0);
    st = evaluate_rows(m, ds, &b, which, NULL, NULL, loss, acc, NULL);
    gat_free(rows);
    return st;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* GAT_ENUMERIC naming the tensor if a value of (P) v, the gradients or the parameters (what), is
 * NaN or Inf; the message says "training diverged at UNIT t" and ends with suffix. */
static gat_status check_finite(const gat_model *m, const gat_real *v, size_t P, const char *unit,
                               gat_idx t, const char *what, const char *suffix)
{
    int nt;
    const gat_model_tensor *tn = gat_model_tensors(m, &nt);
    for (size_t k = 0; k < P; k++)
        if (!isfinite(v[k])) {
            const char *name = "?";
            for (int j = 0; j < nt; j++)
                if (k >= tn[j].offset && k < tn[j].offset + tn[j].size) name = tn[j].name;
            return gat_i_error(GAT_ENUMERIC,
                               "training diverged at %s %d: a %s of %s is %g (try a smaller "
                               "learning rate)%s",
                               unit, t, what, name, (double)v[k], suffix);
        }
    return GAT_OK;
}

gat_status gat_i_train_check_finite(const gat_model *m, const gat_real *v, size_t P,
                                   const char *unit, gat_idx t, const char *what,
                                   const char *suffix)
{
    return check_finite(m, v, P, unit, t, what, suffix);
}

/* The training step of gat_train_step and of every gat_train epoch (arguments checked by the
 * caller): forward restricted to rows, cross-entropy over them, backward, Adam step t with the
 * model's moments. *diverged: 1 for a GAT_ENUMERIC of the loss, gradients or parameters (the
 * message names unit and t and ends with suffix), 0 otherwise. */
gat_status gat_i_train_step_with(gat_model *m, const gat_i_binding *b, const gat_idx *labels,
                                 const gat_adam_config *adam, gat_idx t, double *loss, double *acc,
                                 const char *unit, const char *suffix, const gat_i_step_opts *o,
                                 int *diverged)
{
    const gat_real *logits;
    gat_real *m1, *m2, *dlogits;
    gat_status st;
    size_t P;
    const gat_idx C = gat_model_get_config(m)->classes, n = b->g->n;
    gat_i_run run = o && o->run ? *o->run : (gat_i_run){0};
    run.training = 1;
    *diverged = 0;
    if (!(dlogits = gat_i_model_dlogits(m, n))) return GAT_ENOMEM;
    /* the loss reads only the binding's output rows: the last layer computes just those */
    if ((st = gat_i_model_forward(m, b, &run, &logits)) != GAT_OK) return st;
    if ((st = o && o->multi ? gat_i_bce_rows(logits, n, C, o->multi, NULL, GAT_SPLIT_NONE, b->rows,
                                             b->n_rows, o->denom, loss, acc, dlogits)
                            : xent(logits, n, C, labels, NULL, GAT_SPLIT_NONE, b->rows, b->n_rows,
                                   o ? o->denom : 0, loss, acc, dlogits)) != GAT_OK)
        return st;
    gat_real *params = gat_model_params(m, &P), *grads = gat_model_grads(m, NULL);
    gat_i_model_moments(m, &m1, &m2);
    gat_model_zero_grads(m);
    if ((st = gat_i_model_backward(m, dlogits, &run)) != GAT_OK) return st;
    /* the other processes' share: gradients and the loss are sums over every process's rows */
    if (o && o->reduce && (st = o->reduce(o->user, grads, P, loss, acc)) != GAT_OK) return st;
    *diverged = 1;
    if (!isfinite(*loss))
        return gat_i_error(GAT_ENUMERIC,
                           "training diverged at %s %d: the loss is %g (try a "
                           "smaller learning rate)%s",
                           unit, t, *loss, suffix);
    *diverged = 0;
    /* a non-finite gradient would poison the parameters and the Adam moments for good */
    if ((st = check_finite(m, grads, P, unit, t, "gradient", suffix)) != GAT_OK) {
        *diverged = 1;
        return st;
    }
    /* on the model's kernels (options.kernels), as its forward and backward */
    if ((st = gat_i_adam_step(gat_i_model_ops(m), adam, t, P, params, grads, m1, m2)) != GAT_OK)
        return st;
    if ((st = check_finite(m, params, P, unit, t, "parameter", suffix)) != GAT_OK) {
        *diverged = 1;
        return st;
    }
    return GAT_OK;
}

gat_status gat_train_step(gat_model *m, const gat_graph *g, const gat_csr *x, const gat_idx *labels,
                          const gat_idx *rows, gat_idx n_rows, const gat_adam_config *adam,
                          gat_idx t, double *loss, double *acc)
{
    gat_status st;
    double l, a;
    int diverged;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_train_step", 6, (const void *[]){m, g, x, labels, rows, adam},
                               (const char *[]){"model m", "graph g", "features x", "labels",
                                                "rows", "adam"})) != GAT_OK)
        return st;
    if (t < 1) return gat_i_error(GAT_EINVAL, "gat_train_step: step t = %d, expected t >= 1", t);
    if ((st = gat_adam_config_check(adam)) != GAT_OK) return st;
    if (n_rows < 1 || n_rows > g->n)
        return gat_i_error(GAT_EINVAL,
                           "gat_train_step: n_rows = %d, expected 1..%d (the graph's "
                           "nodes)",
                           n_rows, g->n);
    for (gat_idx k = 0; k < n_rows; k++)
        if (rows[k] < 0 || rows[k] >= g->n || (k > 0 && rows[k] <= rows[k - 1]))
            return gat_i_error(GAT_EINVAL,
                               "gat_train_step: rows[%d] = %d, expected ascending "
                               "rows in [0, %d) (rows[%d] = %d)",
                               k, rows[k], g->n, k > 0 ? k - 1 : 0, k > 0 ? rows[k - 1] : -1);
    const gat_i_binding b = {.g = g, .x = x, .rows = rows, .n_rows = n_rows};
    st = gat_i_train_step_with(m, &b, labels, adam, t, &l, &a, "step", "", NULL, &diverged);
    if (st == GAT_OK) {
        if (loss) *loss = l;
        if (acc) *acc = a;
    }
    return st;
}

/* gat_train_step_batch without the argument checks; unit, suffix, diverged as
 * gat_i_train_step_with's. The loader built the block and its features: they are bound as they
 * are, without a check or a copy, with the targets as output rows and the block's hops, so that
 * each layer computes only the rows the next one reads. */
static gat_status batch_step(gat_model *m, const gat_batch *b, const gat_idx *labels,
                             const gat_adam_config *adam, gat_idx t, double *loss, double *acc,
                             const char *unit, const char *suffix, int *diverged)
{
    gat_status st;
    const gat_idx nb = b->block.n_targets, *rows = gat_i_model_rows(m, nb);
    *diverged = 0;
    if (!rows) return GAT_ENOMEM;
    const gat_i_binding bb = {.g = &b->block.graph,
                              .x = &b->x,
                              .ex = gat_model_get_config(m)->edge_dim > 0 ? b->edge_x : NULL,
                              .rows = rows,
                              .n_rows = nb,
                              .hop_end = b->block.hop_end,
                              .hops = b->block.hops,
                              .flags = GAT_I_BIND_TRUSTED};
    if ((st = gat_i_model_bind(m, &bb, "gat_train_step_batch")) != GAT_OK) return st;
    return gat_i_train_step_with(m, &bb, labels, adam, t, loss, acc, unit, suffix, NULL, diverged);
}

gat_status gat_train_step_batch(gat_model *m, const gat_batch *b, const gat_idx *labels,
                                const gat_adam_config *adam, gat_idx t, double *loss, double *acc)
{
    gat_status st;
    double l, a;
    int diverged;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_train_step_batch", 4, (const void *[]){m, b, labels, adam},
                               (const char *[]){"model m", "batch b", "labels", "adam"})) !=
        GAT_OK)
        return st;
    if (t < 1)
        return gat_i_error(GAT_EINVAL, "gat_train_step_batch: step t = %d, expected t >= 1", t);
    if ((st = gat_adam_config_check(adam)) != GAT_OK) return st;
    if (b->block.n_targets < 1 || b->block.hops != gat_model_get_config(m)->layers)
        return gat_i_error(GAT_EINVAL,
                           "gat_train_step_batch: the batch has %d targets and %d hops; the "
                           "model needs at least one target and one hop per layer (%d)",
                           b->block.n_targets, b->block.hops, gat_model_get_config(m)->layers);
    if (b->x.cols != gat_model_get_config(m)->in_features)
        return gat_i_error(GAT_EDIM,
                           "gat_train_step_batch: features have %d columns but the model "
                           "expects %d",
                           b->x.cols, gat_model_get_config(m)->in_features);
    if ((st = batch_step(m, b, labels, adam, t, &l, &a, "step", "", &diverged)) != GAT_OK)
        return st;
    if (loss) *loss = l;
    if (acc) *acc = a;
    return GAT_OK;
}

/* The stage callback's state: the engine's per-layer hook turns into gat_stage_info. */
typedef struct stages {
    const gat_train_config *cfg;
    gat_stage_info info;
    int validating; /* forwards are now the validation pass */
    double t0;      /* the epoch's start */
} stages;

static void report(stages *s, gat_stage stage, int layer)
{
    s->info.stage = stage;
    s->info.layer = layer;
    s->info.done++;
    s->info.seconds = now() - s->t0;
    s->cfg->stage(&s->info, s->cfg->user);
}

static void on_layer(void *user, int backward, int layer)
{
    stages *s = user;
    report(s,
           backward        ? GAT_STAGE_BACKWARD
           : s->validating ? GAT_STAGE_VALIDATION
                           : GAT_STAGE_FORWARD,
           layer);
}

/* Mini-batch training's state across epochs. */
typedef struct minibatch {
    gat_sampler *s;
    gat_idx *order;  /* (n_train) this epoch's order of the training nodes */
    gat_idx *labels; /* (batch_size) the targets' labels */
    gat_idx t;       /* Adam steps taken */
} minibatch;

static void minibatch_free(minibatch *mb)
{
    gat_sampler_free(mb->s);
    gat_free(mb->order);
    gat_free(mb->labels);
    memset(mb, 0, sizeof *mb);
}

static gat_status minibatch_init(minibatch *mb, const gat_model *m, const gat_dataset *ds,
                                 const gat_train_config *cfg, gat_idx n_train)
{
    const gat_idx B = cfg->batch_size < n_train ? cfg->batch_size : n_train;
    gat_status st;
    memset(mb, 0, sizeof *mb);
    if ((st = gat_sampler_create(&mb->s, &ds->graph, cfg->n_fanout, cfg->fanout, cfg->seed)) !=
        GAT_OK)
        return st;
    gat_sampler_set_threads(mb->s, gat_i_model_threads(m));
    if (!(mb->order = gat_malloc((size_t)n_train, sizeof *mb->order)) ||
        !(mb->labels = gat_malloc((size_t)B, sizeof *mb->labels))) {
        minibatch_free(mb);
        return GAT_ENOMEM;
    }
    return GAT_OK;
}

/* Whether an epoch's batches are drawn ahead (cfg->lookahead; -1: when the model's threads leave
 * a processor to the drawing thread, which otherwise takes turns with a step's threads on the
 * same processors and slows them more than the draws it hides: docs/performance.md). */
static int lookahead_on(const gat_model *m, const gat_train_config *cfg)
{
    return cfg->lookahead >= 0 ? cfg->lookahead : gat_i_model_threads(m) < gat_i_threads(0);
}

/* One mini-batch epoch: the training nodes train (n_train of them) in an order shuffled by
 * (seed, epoch), one step per batch on its sampled block and features, drawn by a loader (one
 * batch ahead with cfg->lookahead; its thread is joined before this returns). *loss, *acc: the
 * batches' means weighted by their sizes. *diverged as in step, and 1 when cfg->stop stopped it
 * (GAT_EINTERRUPTED): either way the caller restores the best model. */
static gat_status minibatch_epoch(gat_model *m, const gat_dataset *ds, const gat_train_config *cfg,
                                  minibatch *mb, const gat_idx *train, gat_idx n_train,
                                  gat_idx epoch, stages *sg, double *loss, double *acc,
                                  int *diverged)
{
    gat_rng r;
    gat_loader *ld = NULL;
    const gat_batch *b;
    double tl = 0, ta = 0;
    gat_status st;
    const gat_idx D = gat_model_get_config(m)->edge_dim;
    const gat_idx steps = (n_train + cfg->batch_size - 1) / cfg->batch_size;
    *diverged = 0;
    memcpy(mb->order, train, (size_t)n_train * sizeof *train);
    gat_rng_seed(&r, gat_i_hash64(cfg->seed ^ 0x5348554646ull /* "SHUFF" */, (uint64_t)epoch));
    for (gat_idx k = n_train - 1; k > 0; k--) {
        const gat_idx j = (gat_idx)gat_rng_below(&r, (uint64_t)k + 1), v = mb->order[k];
        mb->order[k] = mb->order[j];
        mb->order[j] = v;
    }
    /* batch k is drawn with step counter t + 1 + k: the blocks do not depend on the look-ahead */
    if ((st = gat_loader_create(&ld, mb->s, &ds->x, ds->edge_x, D, mb->order, n_train,
                                cfg->batch_size, (uint64_t)mb->t + 1, lookahead_on(m, cfg))) !=
        GAT_OK)
        return st;
    for (gat_idx k = 0; (st = gat_loader_next(ld, &b)) == GAT_OK && b; k++) {
        const gat_idx nb = b->block.n_targets;
        double l, a;
        mb->t++;
        for (gat_idx q = 0; q < nb; q++)
            mb->labels[q] = ds->labels[b->block.nodes[q]];
        if ((st = batch_step(m, b, mb->labels, &cfg->adam, mb->t, &l, &a, "step",
                             "; the best model so far is kept", diverged)) != GAT_OK)
            break;
        tl += l * nb;
        ta += a * nb;
        if (cfg->stage) report(sg, GAT_STAGE_UPDATE, -1);
        if (cfg->stop && k + 1 < steps && cfg->stop(cfg->user)) {
            *diverged = 1; /* not a divergence, but the same way out: restore the best model */
            st = gat_i_error(GAT_EINTERRUPTED,
                             "training stopped by the caller during epoch %d, after mini-batch "
                             "%d of %d",
                             epoch, k + 1, steps);
            break;
        }
    }
    gat_loader_free(ld);
    if (st != GAT_OK) return st;
    *loss = tl / n_train;
    *acc = ta / n_train;
    return GAT_OK;
}

/* Early stopping's state: the best validation figures so far. */
typedef struct best_so_far {
    double acc, loss, auc;
} best_so_far;

/* Whether epoch e resets the patience under cfg->metric (gat_metric); *keep: its model becomes
 * the one to restore. */
static int improves(gat_metric metric, const gat_epoch_info *e, best_so_far *b, int *keep)
{
    if (metric == GAT_METRIC_AUC || metric == GAT_METRIC_LOSS) {
        *keep = metric == GAT_METRIC_AUC ? e->val_auc > b->auc : e->val_loss < b->loss;
        if (*keep && metric == GAT_METRIC_AUC) b->auc = e->val_auc;
        if (*keep && metric == GAT_METRIC_LOSS) b->loss = e->val_loss;
        return *keep;
    }
    *keep = e->val_acc >= b->acc && e->val_loss <= b->loss;
    if (e->val_acc < b->acc && e->val_loss > b->loss) return 0;
    b->acc = e->val_acc > b->acc ? e->val_acc : b->acc;
    b->loss = e->val_loss < b->loss ? e->val_loss : b->loss;
    return 1;
}

/* The ROC-AUC of the last evaluation of `which` into *auc, NaN for a model of other than two
 * classes or a loop without ops->auc. A split lacking a class or a non-finite score fails only
 * for the validation split when the metric is the AUC (otherwise the AUC is NaN, the error
 * cleared). */
static gat_status split_auc(const gat_train_config *cfg, const gat_i_train_ops *ops, void *u,
                            gat_split which, double *auc)
{
    *auc = NAN;
    if (!ops->auc) return GAT_OK;
    gat_status st = ops->auc(u, which, auc);
    if ((st == GAT_EINVAL || st == GAT_ENUMERIC) &&
        (cfg->metric != GAT_METRIC_AUC || which != GAT_SPLIT_VAL)) {
        *auc = NAN;
        gat_i_clear_error();
        st = GAT_OK;
    }
    return st;
}

/* The loop's state that a checkpoint keeps beyond the parameters. */
typedef struct loop_state {
    gat_idx wait, validated; /* patience count; the last epoch validated */
    best_so_far b;
    gat_i_ckpt_state cs; /* history: every epoch's row, when checkpoints are on */
    size_t cap;          /* of cs.history */
    double last_write;   /* now() of the last checkpoint */
} loop_state;

/* Writes the checkpoint of the state after epoch (0: before the first) at cfg->checkpoint. */
static gat_status write_checkpoint(const gat_train_config *cfg, const gat_i_train_ops *ops,
                                   loop_state *ls, gat_idx epoch, const gat_train_result *r,
                                   const gat_real *params, const gat_real *best, size_t P,
                                   double t0)
{
    gat_i_ckpt_run *ck = ops->ckpt;
    gat_i_ckpt_state *cs = &ls->cs;
    cs->epoch = epoch;
    cs->steps = ck->steps ? *ck->steps : epoch;
    cs->dropout = *ck->dropout;
    cs->best_epoch = r->best_epoch;
    cs->wait = ls->wait;
    cs->validated = ls->validated;
    cs->best_acc = ls->b.acc;
    cs->best_loss = ls->b.loss;
    cs->best_auc = ls->b.auc;
    ls->last_write = now();
    cs->seconds = ls->last_write - t0;
    return gat_i_ckpt_save(cfg->checkpoint, &ck->id, cs, params, ck->m1, ck->m2, best, P);
}

/* Where a run with cfg's max_epochs and patience ends within the epochs a checkpoint's history
 * holds: early stopping replayed over its rows (their figures are the ones the loop judged, in
 * full precision). Returns that epoch (0: the run goes on past them), *best the epoch of the
 * model it restores, *unjudged 1 when the run validates that epoch (its last) and the history
 * does not (eval_every > 1). */
static gat_idx replayed_end(const gat_train_config *cfg, const gat_i_ckpt_state *cs, gat_idx *best,
                            int *unjudged)
{
    best_so_far b = {.acc = 0, .loss = INFINITY, .auc = -INFINITY};
    gat_idx wait = 0, validated = 0;
    *best = 0;
    *unjudged = 0;
    for (size_t k = 0; k < cs->n_history; k++) {
        const gat_epoch_info *e = &cs->history[k];
        if (!isnan(e->val_loss)) {
            int keep;
            wait = improves(cfg->metric, e, &b, &keep) ? 0 : wait + (e->epoch - validated);
            if (keep) *best = e->epoch;
            validated = e->epoch;
        }
        if (e->epoch >= cfg->max_epochs) *unjudged = isnan(e->val_loss);
        if (wait >= cfg->patience || e->epoch >= cfg->max_epochs) return e->epoch;
    }
    return 0;
}

/* The loop's config and trainer, for resumable, and its finding: where a run with the config's
 * max_epochs and patience ends within the checkpoint's epochs (0: it goes on past them). */
typedef struct resume_check {
    const gat_train_config *cfg;
    const gat_i_train_ops *ops;
    gat_idx end;
} resume_check;

/* gat_i_ckpt_load's check of a state to resume (user: a resume_check): a run with the config's
 * max_epochs and patience that ends before the checkpoint's last epoch gives that run's result
 * only if the checkpoint still holds the model it restores. */
static gat_status resumable(const gat_i_ckpt_state *cs, void *user)
{
    resume_check *rc = user;
    const gat_train_config *cfg = rc->cfg;
    gat_idx best;
    int unjudged;
    const gat_idx end = rc->end = replayed_end(cfg, cs, &best, &unjudged);
    if (end == 0) return GAT_OK;
    if (unjudged)
        return gat_i_error(GAT_EINVAL,
                           "%s: with max_epochs = %d a run validates epoch %d, its last, which "
                           "the run the checkpoint holds (%d epochs, eval_every = %d) did not "
                           "validate: resume with max_epochs > %d",
                           cfg->resume, cfg->max_epochs, end, cs->epoch, cfg->eval_every,
                           cs->epoch);
    if (end == cs->epoch) return GAT_OK;
    if (rc->ops->keeps_last)
        return gat_i_error(GAT_EINVAL,
                           "%s: with max_epochs = %d and patience = %d a run ends at epoch %d "
                           "and keeps its last epoch's model (keep_last), which the checkpoint "
                           "(%d epochs) no longer holds: resume with the max_epochs and "
                           "patience that trained it or larger ones",
                           cfg->resume, cfg->max_epochs, cfg->patience, end, cs->epoch);
    if (best == cs->best_epoch) return GAT_OK;
    return gat_i_error(GAT_EINVAL,
                       "%s: with max_epochs = %d and patience = %d a run ends at epoch %d and "
                       "restores epoch %d's model; the checkpoint holds %d epochs and keeps "
                       "epoch %d's: resume with the max_epochs and patience that trained it or "
                       "larger ones",
                       cfg->resume, cfg->max_epochs, cfg->patience, end, best, cs->epoch,
                       cs->best_epoch);
}

/* Continues from the checkpoint at cfg->resume: the parameters, moments, model to restore and
 * the loop's state; *epoch: the epochs done, *t0 moved back by the time they took; *ended: the
 * run with cfg's max_epochs and patience ended within them (r->epochs: where). */
static gat_status resume(const gat_train_config *cfg, const gat_i_train_ops *ops, void *u,
                         loop_state *ls, gat_idx *epoch, gat_train_result *r, gat_real *params,
                         gat_real *best, size_t P, double *t0, int *ended)
{
    gat_i_ckpt_run *ck = ops->ckpt;
    gat_i_ckpt_state *cs = &ls->cs;
    resume_check rc = {.cfg = cfg, .ops = ops};
    gat_status st =
        gat_i_ckpt_load(cfg->resume, &ck->id, cs, params, ck->m1, ck->m2, best, P, resumable, &rc);
    if (st != GAT_OK) return st;
    if (ck->steps) *ck->steps = cs->steps;
    *ck->dropout = cs->dropout;
    ls->cap = cs->n_history;
    ls->wait = cs->wait;
    ls->validated = cs->validated;
    ls->b = (best_so_far){.acc = cs->best_acc, .loss = cs->best_loss, .auc = cs->best_auc};
    r->epochs = *epoch = cs->epoch;
    r->best_epoch = cs->best_epoch;
    *t0 -= cs->seconds;
    int stopped = 0;
    if (ops->resumed) ops->resumed(u, cs, &stopped);
    *ended = rc.end > 0 || stopped;
    if (rc.end > 0) r->epochs = rc.end;
    return GAT_OK;
}

/* Appends an epoch's row to the history a checkpoint keeps. */
static gat_status keep_row(loop_state *ls, const gat_epoch_info *info)
{
    if (ls->cs.n_history == ls->cap) {
        const size_t cap = ls->cap ? 2 * ls->cap : 64;
        gat_epoch_info *h = gat_realloc(ls->cs.history, cap, sizeof *h);
        if (!h) return GAT_ENOMEM;
        ls->cs.history = h;
        ls->cap = cap;
    }
    ls->cs.history[ls->cs.n_history++] = *info;
    return GAT_OK;
}

gat_status gat_i_train_loop(gat_real *params, size_t P, const gat_train_config *cfg,
                            const gat_i_train_ops *ops, void *u, gat_train_result *res)
{
    gat_real *best = NULL;
    gat_status st = GAT_OK;
    gat_train_result r = {.val_auc = NAN, .test_auc = NAN};
    loop_state ls = {.b = {.acc = 0, .loss = INFINITY, .auc = -INFINITY}};
    gat_idx done = 0;
    int ended = 0;
    const gat_idx every = cfg->eval_every > 1 ? cfg->eval_every : 1;
    double t0 = now();
    const int writes = ops->ckpt && cfg->checkpoint;
    if (cfg->metric == GAT_METRIC_AUC && !ops->auc)
        return gat_i_error(GAT_EINVAL, "metric = GAT_METRIC_AUC (ROC-AUC): only gat_train of a "
                                       "two-class model in one process reports it");
    if (!(best = gat_malloc(P, sizeof *best))) return GAT_ENOMEM;
    memcpy(best, params, P * sizeof *best);
    if (ops->ckpt && cfg->resume &&
        (st = resume(cfg, ops, u, &ls, &done, &r, params, best, P, &t0, &ended)) != GAT_OK)
        goto cleanup;
    /* the state to go on from, written at once so that a path that cannot be written fails now */
    if (writes && (st = write_checkpoint(cfg, ops, &ls, done, &r, params, best, P, t0)) != GAT_OK)
        goto cleanup;
    /* a resumed run that had already ended (with these max_epochs and patience): its result */
    if (ended) goto restore;
    for (gat_idx epoch = done + 1; epoch <= cfg->max_epochs; epoch++) {
        gat_epoch_info info = {.epoch = epoch};
        const double epoch_t0 = now();
        int diverged;
        /* an epoch is one training step on the training rows (or one per mini-batch), then the
         * validation pass */
        if ((st = ops->train(u, epoch, &info.train_loss, &info.train_acc, &diverged)) != GAT_OK) {
            if (diverged) goto restore;
            goto cleanup;
        }
        /* validation every eval_every epochs and after the last (NaN in between) */
        const int validate = epoch % every == 0 || epoch == cfg->max_epochs;
        info.val_loss = info.val_acc = info.val_auc = NAN;
        if (validate &&
            (st = ops->evaluate(u, GAT_SPLIT_VAL, 0, &info.val_loss, &info.val_acc)) != GAT_OK)
            goto cleanup;
        r.epochs = epoch;
        if (!validate) {
            info.best_epoch = r.best_epoch;
            goto progress;
        }
        if (!isfinite(info.val_loss)) {
            st = gat_i_error(GAT_ENUMERIC,
                             "training diverged at epoch %d: the validation loss is "
                             "%g; the best model so far is kept",
                             epoch, info.val_loss);
            goto restore;
        }
        /* a non-finite score is a divergence too (the loss was finite: a logit overflowed) */
        if ((st = split_auc(cfg, ops, u, GAT_SPLIT_VAL, &info.val_auc)) == GAT_ENUMERIC)
            goto restore;
        if (st != GAT_OK) goto cleanup;
        int keep;
        /* patience counts epochs, validated or not */
        ls.wait = improves(cfg->metric, &info, &ls.b, &keep) ? 0 : ls.wait + (epoch - ls.validated);
        if (keep) {
            memcpy(best, params, P * sizeof *best);
            r.best_epoch = epoch;
        }
        ls.validated = epoch;
        info.best_epoch = r.best_epoch;
    progress:;
        const double t = now();
        info.seconds = t - t0;
        info.epoch_seconds = t - epoch_t0;
        if (ops->ckpt && (st = keep_row(&ls, &info)) != GAT_OK) goto restore;
        int stop = cfg->progress && cfg->progress(&info, cfg->user);
        if (ops->agree) stop = ops->agree(u, stop);
        /* the state after the last epoch, and on the way every checkpoint_every epochs or
         * checkpoint_seconds */
        if (writes &&
            (stop || ls.wait >= cfg->patience || epoch == cfg->max_epochs ||
             (cfg->checkpoint_every > 0 && epoch % cfg->checkpoint_every == 0) ||
             (cfg->checkpoint_seconds > 0 && now() - ls.last_write >= cfg->checkpoint_seconds)) &&
            (st = write_checkpoint(cfg, ops, &ls, epoch, &r, params, best, P, t0)) != GAT_OK)
            goto restore;
        if (stop) {
            st = gat_i_error(GAT_EINTERRUPTED, "training stopped by the caller after epoch %d",
                             epoch);
            goto restore;
        }
        if (ls.wait >= cfg->patience) break;
    }

restore:
    memcpy(params, best, P * sizeof *best);
    r.seconds = now() - t0;
    {
        /* evaluate the restored model; a failure before this keeps its status and message */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", gat_last_error());
        gat_status est = ops->evaluate(u, GAT_SPLIT_VAL, 1, &r.val_loss, &r.val_acc);
        if (est == GAT_OK) est = split_auc(cfg, ops, u, GAT_SPLIT_VAL, &r.val_auc);
        if (est == GAT_OK && ops->has_test &&
            (est = ops->evaluate(u, GAT_SPLIT_TEST, 1, &r.test_loss, &r.test_acc)) == GAT_OK)
            est = split_auc(cfg, ops, u, GAT_SPLIT_TEST, &r.test_auc);
        if (st == GAT_OK)
            st = est;
        else
            gat_i_error(st, "%s", msg);
    }
    if (res) *res = r;

cleanup:
    gat_free(ls.cs.history);
    gat_free(best);
    return st;
}

/* gat_train's driver of the loop: the dataset's rows, mini-batch state and stage reports. */
typedef struct local {
    gat_model *m;
    const gat_dataset *ds;
    const gat_train_config *cfg;
    minibatch mb;
    gat_idx *train, *val, *test, n_train, n_val, n_test;
    stages sg;
    const gat_real *logits; /* of the last evaluation */
    gat_i_step_opts multi; /* a multi-label dataset's targets (multi.multi NULL otherwise) */
} local;

static gat_status local_train(void *u, gat_idx epoch, double *loss, double *acc, int *diverged)
{
    local *c = u;
    const gat_train_config *cfg = c->cfg;
    gat_status st;
    c->sg.info.epoch = epoch;
    c->sg.info.done = 0;
    c->sg.validating = 0;
    c->sg.t0 = now();
    if (cfg->batch_size > 0)
        return minibatch_epoch(c->m, c->ds, cfg, &c->mb, c->train, c->n_train, epoch, &c->sg, loss,
                               acc, diverged);
    const gat_i_binding b = dataset_binding(c->ds, c->train, c->n_train, 1, 0);
    const gat_i_run run = {.hook = cfg->stage ? on_layer : NULL, .hook_user = &c->sg};
    const gat_i_step_opts o = {.multi = c->multi.multi, .run = &run};
    st = gat_i_train_step_with(c->m, &b, c->ds->labels, &cfg->adam, epoch, loss, acc, "epoch",
                               "; the best model so far is kept", &o, diverged);
    if (st == GAT_OK && cfg->stage) report(&c->sg, GAT_STAGE_UPDATE, -1);
    return st;
}

static gat_status local_evaluate(void *u, gat_split which, int final, double *loss, double *acc)
{
    local *c = u;
    const gat_train_config *cfg = c->cfg;
    const int mini = cfg->batch_size > 0;
    /* the validation pass of an epoch reports its layers; the final evaluations do not */
    const int hook = !final && cfg->stage;
    c->sg.validating = 1;
    const gat_i_binding b = which == GAT_SPLIT_VAL
                                ? dataset_binding(c->ds, c->val, c->n_val, 1, mini)
                                : dataset_binding(c->ds, c->test, c->n_test, 1, mini);
    return evaluate_rows(c->m, c->ds, &b, which, hook ? on_layer : NULL, &c->sg, loss, acc,
                         &c->logits);
}

static gat_status local_auc(void *u, gat_split which, double *auc)
{
    const local *c = u;
    return which == GAT_SPLIT_VAL
               ? gat_i_auc_logits(c->logits, c->ds->labels, c->val, c->n_val, auc)
               : gat_i_auc_logits(c->logits, c->ds->labels, c->test, c->n_test, auc);
}

gat_status gat_train(gat_model *m, const gat_dataset *ds, const gat_train_config *cfg,
                     gat_train_result *res)
{
    local c = {.m = m, .ds = ds, .cfg = cfg, .multi.multi = ds ? ds->label_matrix : NULL};
    gat_i_ckpt_run ck = {0};
    gat_status st = GAT_OK;

    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_train", 3, (const void *[]){m, ds, cfg},
                               (const char *[]){"model m", "dataset ds", "config cfg"})) != GAT_OK)
        return st;
    if ((st = gat_i_train_config_check(m, cfg)) != GAT_OK) return st;
    if ((st = check_fit(m, ds)) != GAT_OK) return st;
    if (ds->n_labels > 0 && cfg->batch_size > 0)
        return gat_i_error(GAT_EINVAL,
                           "gat_train: batch_size = %d with a multi-label dataset, which trains "
                           "full-graph only (batch_size 0)",
                           cfg->batch_size);
    /* the dataset is checked once, here: every binding of it below is trusted (full-graph
     * training binds it with its edge features, mini-batches bind each block with its rows, and
     * the evaluations the dataset for inference) */
    if ((st = gat_i_model_check_edge_dim(m, ds->n_edge_features)) != GAT_OK ||
        (st = check_dataset(m, ds)) != GAT_OK)
        return st;
    if (ds->n_train == 0 || ds->n_val == 0)
        return gat_i_error(GAT_EINVAL,
                           "gat_train: the dataset has %d training and %d validation "
                           "nodes; both must be non-zero",
                           ds->n_train, ds->n_val);
    if (!(c.train = split_rows(ds, GAT_SPLIT_TRAIN, &c.n_train)) ||
        !(c.val = split_rows(ds, GAT_SPLIT_VAL, &c.n_val)) ||
        !(c.test = split_rows(ds, GAT_SPLIT_TEST, &c.n_test))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if (cfg->batch_size > 0 && (st = minibatch_init(&c.mb, m, ds, cfg, c.n_train)) != GAT_OK)
        goto cleanup;
    const gat_idx L = gat_model_get_config(m)->layers;
    const gat_idx steps =
        cfg->batch_size > 0 ? (c.n_train + cfg->batch_size - 1) / cfg->batch_size : 0;
    c.sg = (stages){.cfg = cfg,
                    .info.total = cfg->batch_size > 0 ? (int)steps + (int)L : 3 * (int)L + 1};
    if ((cfg->checkpoint || cfg->resume) &&
        (st = gat_i_ckpt_ident_init(&ck.id, gat_i_model_config_text(m), gat_i_model_seed(m), ds,
                                    NULL, cfg, gat_metric_name(cfg->metric))) != GAT_OK)
        goto cleanup;
    gat_i_model_moments(m, &ck.m1, &ck.m2);
    ck.dropout = gat_i_model_dropout_step(m);
    ck.steps = cfg->batch_size > 0 ? &c.mb.t : NULL;
    const gat_i_train_ops ops = {.train = local_train,
                                 .evaluate = local_evaluate,
                                 .auc = gat_model_get_config(m)->classes == 2 ? local_auc : NULL,
                                 .has_test = c.n_test > 0,
                                 .ckpt = cfg->checkpoint || cfg->resume ? &ck : NULL};
    size_t P;
    gat_real *params = gat_model_params(m, &P);
    st = gat_i_train_loop(params, P, cfg, &ops, &c, res);

cleanup:
    gat_i_ckpt_ident_free(&ck.id);
    minibatch_free(&c.mb);
    gat_free(c.train);
    gat_free(c.val);
    gat_free(c.test);
    return st;
}
