/* Distributed passes (gat/dist.h): forwards and evaluations over the local graphs, the
 * training loop (gat_train's, with gradients, loss and accuracy summed over the ranks), and
 * embeddings and predictions gathered on one rank. */
#include "mpi/mpi_i.h"
#include "core/core.h"
#include "train/train_i.h"

#include <string.h>

/* An inference forward on the local graph's binding b (d->bind, or it with output rows). */
static gat_status forward_logits(gat_model *m, gat_dist *d, const gat_i_binding *b,
                                 const gat_real **logits)
{
    gat_status st = gat_i_model_forward(m, b, &(gat_i_run){.training = 0}, logits);
    return gat_i_dist_pass_status(d, st);
}

static gat_status evaluate(gat_model *m, gat_dist *d, gat_split which, double *loss, double *acc)
{
    const int s = which == GAT_SPLIT_TRAIN ? 0 : which == GAT_SPLIT_VAL ? 1 : 2;
    const gat_real *logits;
    /* the split's rows alone (every rank's, the plans made together) */
    gat_i_binding b = d->bind;
    b.rows = d->rows[s], b.n_rows = d->n_rows[s];
    gat_status st = forward_logits(m, d, &b, &logits);
    if (st != GAT_OK) return st;
    if (d->g_rows[s] == 0) return gat_i_error(GAT_EINVAL, "no node in split %d", (int)which);
    double v[2] = {0, 0};
    st = gat_i_xent_rows(logits, d->nl, d->p->n_classes, d->labels, d->rows[s], d->n_rows[s],
                         d->g_rows[s], &v[0], &v[1]);
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) != GAT_OK ||
        (st = gat_i_dist_sum_doubles(d, v, 2)) != GAT_OK)
        return st;
    *loss = v[0];
    *acc = v[1];
    return GAT_OK;
}

gat_status gat_dist_forward(gat_model *m, gat_dist *d, const gat_real **logits)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_dist_forward", 3, (const void *[]){m, d, logits},
                               (const char *[]){"model m", "dist d", "logits"})) != GAT_OK)
        return st;
    if ((st = gat_i_dist_attach(m, d)) != GAT_OK) return st;
    return forward_logits(m, d, &d->bind, logits);
}

gat_status gat_dist_evaluate(gat_model *m, gat_dist *d, gat_split which, double *loss, double *acc)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_dist_evaluate", 4, (const void *[]){m, d, loss, acc},
                               (const char *[]){"model m", "dist d", "loss", "acc"})) != GAT_OK)
        return st;
    if ((st = gat_i_dist_attach(m, d)) != GAT_OK) return st;
    return evaluate(m, d, which, loss, acc);
}

/* ---- training ---- */

typedef struct dtrain {
    gat_model *m;
    gat_dist *d;
    const gat_train_config *cfg;
    gat_real *all; /* (K, P) every rank's gradients */
    uint64_t step0; /* rank 0's dropout step before training: epoch e runs step0 + e */
} dtrain;

static gat_status reduce_grads(void *u, gat_real *grads, size_t P, double *loss, double *acc)
{
    dtrain *t = u;
    gat_dist *d = t->d;
    gat_status st = gat_i_dist_pass_status(d, GAT_OK);
    if (st != GAT_OK) return st;
    const int rc =
        MPI_Allgather(grads, (int)P, MPI_GAT_REAL, t->all, (int)P, MPI_GAT_REAL, d->comm);
    if (rc != MPI_SUCCESS) return gat_i_dist_mpi_failed("gat_dist_train", "MPI_Allgather", rc);
    for (size_t k = 0; k < P; k++) {
        gat_real s = t->all[k];
        for (int q = 1; q < d->size; q++)
            s += t->all[(size_t)q * P + k];
        grads[k] = s;
    }
    double v[2] = {*loss, *acc};
    if ((st = gat_i_dist_sum_doubles(d, v, 2)) != GAT_OK) return st;
    *loss = v[0];
    *acc = v[1];
    return GAT_OK;
}

static gat_status dist_train_epoch(void *u, gat_idx epoch, double *loss, double *acc, int *diverged)
{
    dtrain *t = u;
    gat_dist *d = t->d;
    /* every rank draws rank 0's masks */
    const gat_i_run run = {.step = t->step0 + (uint64_t)epoch};
    const gat_i_step_opts o = {.denom = d->g_rows[0], .reduce = reduce_grads, .user = t,
                               .run = &run};
    gat_i_binding b = d->bind;
    b.rows = d->rows[0], b.n_rows = d->n_rows[0];
    const int64_t s0 = d->stats.sent_bytes;
    gat_status st = gat_i_train_step_with(t->m, &b, d->labels, &t->cfg->adam, epoch, loss, acc,
                                          "epoch", "; the best model so far is kept", &o,
                                          diverged);
    d->stats.epoch_bytes = d->stats.sent_bytes - s0;
    return st;
}

static gat_status dist_evaluate(void *u, gat_split which, int final, double *loss, double *acc)
{
    dtrain *t = u;
    (void) final;
    return evaluate(t->m, t->d, which, loss, acc);
}

static int dist_agree(void *u, int stop)
{
    dtrain *t = u;
    int any = stop;
    if (MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_MAX, t->d->comm) != MPI_SUCCESS) return 1;
    return any;
}

gat_status gat_dist_train(gat_model *m, gat_dist *d, const gat_train_config *cfg,
                          gat_train_result *res)
{
    static const char *fn = "gat_dist_train";
    gat_status st;
    size_t P;
    gat_i_clear_error();
    if ((st = gat_i_check_args(fn, 3, (const void *[]){m, d, cfg},
                               (const char *[]){"model m", "dist d", "config cfg"})) != GAT_OK)
        return st;
    st = gat_i_train_config_check(m, cfg);
    if (st == GAT_OK) st = gat_i_no_checkpoints(cfg, fn);
    if (st == GAT_OK && cfg->batch_size != 0)
        st = gat_i_error(GAT_EINVAL,
                         "%s: batch_size = %d: distributed training is full-graph "
                         "(batch_size 0)",
                         fn, cfg->batch_size);
    if (st == GAT_OK && (d->g_rows[0] == 0 || d->g_rows[1] == 0))
        st = gat_i_error(GAT_EINVAL,
                         "%s: the partition's dataset has %.0f training and %.0f "
                         "validation nodes; both must be non-zero",
                         fn, d->g_rows[0], d->g_rows[1]);
    dtrain t = {.m = m, .d = d, .cfg = cfg};
    gat_real *params = gat_model_params(m, &P), *m1, *m2;
    if (st == GAT_OK && !(t.all = gat_malloc((size_t)d->size * P, sizeof *t.all))) st = GAT_ENOMEM;
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto done;
    /* rank 0's model: parameters, Adam's moments and the dropout step */
    gat_i_model_moments(m, &m1, &m2);
    uint64_t step = gat_i_model_step(m);
    int rc;
    if ((rc = MPI_Bcast(params, (int)P, MPI_GAT_REAL, 0, d->comm)) != MPI_SUCCESS ||
        (rc = MPI_Bcast(m1, (int)P, MPI_GAT_REAL, 0, d->comm)) != MPI_SUCCESS ||
        (rc = MPI_Bcast(m2, (int)P, MPI_GAT_REAL, 0, d->comm)) != MPI_SUCCESS ||
        (rc = MPI_Bcast(&step, 1, MPI_UINT64_T, 0, d->comm)) != MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Bcast", rc);
        goto done;
    }
    t.step0 = step;
    if ((st = gat_i_dist_attach(m, d)) != GAT_OK) goto done;
    const gat_i_train_ops ops = {.train = dist_train_epoch,
                                 .evaluate = dist_evaluate,
                                 .agree = dist_agree,
                                 .has_test = d->g_rows[2] > 0};
    st = gat_i_train_loop(params, P, cfg, &ops, &t, res);
done:
    gat_free(t.all);
    return st;
}

/* ---- embeddings, predictions and node ids on one rank ---- */

gat_status gat_dist_embed(gat_model *m, gat_dist *d, int layer, int root, gat_real *out)
{
    const gat_real *logits, *y;
    gat_real *rows = NULL;
    gat_status st;
    gat_i_clear_error();
    if (!m || !d)
        return gat_i_error(GAT_EINVAL, "gat_dist_embed: NULL %s", !m ? "model m" : "dist d");
    const gat_idx w = gat_model_embed_width(m, layer);
    if (w < 0)
        return gat_i_error(GAT_EINVAL,
                           "gat_dist_embed: no layer %d: the model has layers 0..%d, "
                           "GAT_LAYER_LOGITS and GAT_LAYER_PROBS",
                           layer, gat_model_layer_count(m) - 1);
    if ((st = gat_dist_forward(m, d, &logits)) != GAT_OK) return st;
    const int l = layer < 0 ? (int)gat_model_layer_count(m) - 1 : layer;
    st = gat_model_layer_output(m, (gat_idx)l, &y);
    if (st == GAT_OK && !(rows = gat_malloc((size_t)d->no * (size_t)w + 1, sizeof *rows)))
        st = GAT_ENOMEM;
    if (st == GAT_OK) {
        memcpy(rows, y, (size_t)d->no * (size_t)w * sizeof *rows);
        if (layer == GAT_LAYER_PROBS) gat_i_softmax_rows(rows, (size_t)d->no, (size_t)w);
    }
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) == GAT_OK)
        st = gat_dist_gather(d, rows, w, root, out);
    gat_free(rows);
    return st;
}

gat_status gat_dist_predict(gat_model *m, gat_dist *d, int root, gat_idx *classes,
                            gat_real *probability)
{
    const gat_real *logits;
    gat_real *rows = NULL, *all = NULL;
    gat_status st;
    gat_i_clear_error();
    if (!m || !d)
        return gat_i_error(GAT_EINVAL, "gat_dist_predict: NULL %s", !m ? "model m" : "dist d");
    const gat_idx C = gat_model_get_config(m)->classes;
    const int me = d->rank == root;
    if ((st = gat_dist_forward(m, d, &logits)) != GAT_OK) return st;
    if (me && (!classes || !probability))
        st = gat_i_error(GAT_EINVAL, "gat_dist_predict: NULL classes or probability on the root");
    else if (!(rows = gat_malloc((size_t)d->no * (size_t)C + 1, sizeof *rows)) ||
             (me && !(all = gat_malloc((size_t)d->p->n_global * (size_t)C + 1, sizeof *all))))
        st = GAT_ENOMEM;
    if (st == GAT_OK) memcpy(rows, logits, (size_t)d->no * (size_t)C * sizeof *rows);
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) == GAT_OK &&
        (st = gat_dist_gather(d, rows, C, root, all)) == GAT_OK && me)
        gat_i_predict_rows(all, d->p->n_global, C, classes, probability);
    gat_free(rows);
    gat_free(all);
    return st;
}
