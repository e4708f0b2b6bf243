/* Full-graph node-classification training: softmax cross-entropy over the training nodes, Adam
 * with L2 weight decay, and the GAT reference's early stopping (patience counted on validation
 * loss and accuracy together; the model of the last epoch that improved both is restored). */
#ifndef GAT_TRAIN_H
#define GAT_TRAIN_H

#include "dataset.h"
#include "model.h"
#include "optim.h"
#include "sample.h" /* gat_batch */

#ifdef __cplusplus
extern "C" {
#endif

/* What the progress callback sees after every epoch; also one row of a metrics file
 * (gat_metrics_save). Fields are only ever appended, so older callers keep working. */
typedef struct gat_epoch_info {
    gat_idx epoch;            /* 1-based */
    double train_loss, train_acc; /* of this epoch's training forward (with dropout) */
    double val_loss, val_acc;     /* inference on the validation nodes */
    gat_idx best_epoch;       /* epoch of the model that would be restored now */
    double seconds;           /* elapsed since training started */
    double epoch_seconds;     /* this epoch alone: its training step and validation pass */
    double val_auc;           /* ROC-AUC on the validation nodes of a two-class model, else NaN */
} gat_epoch_info;

/* What early stopping follows (gat_train_config.metric). */
typedef enum gat_metric {
    /* The GAT reference's rule (the default): patience resets when validation accuracy or loss
     * reaches its best so far; the model kept is the last one that reached both. */
    GAT_METRIC_ACC = 0,
    /* Validation ROC-AUC (gat_roc_auc, score logit 1 - logit 0) of a two-class model: patience
     * resets and the model is kept when it beats its best so far (strictly: the first epoch of
     * the best value), as Platonov et al. 2023 select their models. */
    GAT_METRIC_AUC,
    /* Validation loss alone, kept when strictly below its best so far. */
    GAT_METRIC_LOSS
} gat_metric;

/* "acc", "auc", "loss" (as gat-train --metric spells them); "?" for any other value. */
GAT_API const char *gat_metric_name(gat_metric metric);
/* The metric of one of those names into *out. Returns GAT_EINVAL (NULL argument, or an unknown
 * name: the message lists the names). */
GAT_API gat_status gat_metric_from_name(const char *name, gat_metric *out);

/* Called after every epoch; returning non-zero stops training (the best model is restored and
 * gat_train returns GAT_EINTERRUPTED). */
typedef int (*gat_progress_fn)(const gat_epoch_info *info, void *user);

/* The parts of an epoch, in their order. */
typedef enum gat_stage {
    GAT_STAGE_FORWARD,   /* the training forward, one part per layer, first layer first */
    GAT_STAGE_BACKWARD,  /* the backward, one part per layer, last layer first */
    GAT_STAGE_UPDATE,    /* Adam's step on every parameter */
    GAT_STAGE_VALIDATION /* the validation forward, one part per layer */
} gat_stage;

/* What the stage callback sees each time a part of an epoch ends: progress within an epoch,
 * for epochs long enough to watch (large graphs). */
typedef struct gat_stage_info {
    gat_idx epoch;   /* 1-based: the epoch under way */
    gat_stage stage; /* the part that just ended */
    int layer;       /* its layer, 0-based; -1 for GAT_STAGE_UPDATE */
    int done, total; /* parts of this epoch ended so far (1..total), of total = 3 layers + 1 */
    double seconds;  /* since this epoch began */
} gat_stage_info;

/* Called on gat_train's thread between the engine's parallel passes, so it should be quick. It
 * must not call into the model being trained. */
typedef void (*gat_stage_fn)(const gat_stage_info *info, void *user);

/* Polled between the mini-batch steps of an epoch; returning non-zero stops training there,
 * without finishing the epoch (the best model is restored and gat_train returns
 * GAT_EINTERRUPTED, as for the progress callback). A signal flag is the usual answer. */
typedef int (*gat_stop_fn)(void *user);

typedef struct gat_train_config {
    gat_adam_config adam;
    gat_idx max_epochs;       /* default 100000: stop only on patience */
    gat_idx patience;         /* epochs without improvement before stopping (default 100) */
    gat_progress_fn progress; /* optional */
    void *user;               /* passed to progress and stage */
    gat_stage_fn stage;       /* optional: called as each part of an epoch ends */
    /* Mini-batch training with neighbour sampling (gat/sample.h). Fields added with it; zero
     * (as gat_train_config_default leaves them) means full-graph training as before. With
     * batch_size B > 0 an epoch shuffles the training nodes (by seed and the epoch) and runs one
     * gat_train_step per B of them (the last batch may be smaller) on the block sampled for
     * them, Adam's t counting steps; train_loss and train_acc are the means over the epoch's
     * batches weighted by their sizes. Validation and the final evaluations stay full-graph
     * inference. The stage callback then reports GAT_STAGE_UPDATE after each step (layer -1,
     * total = steps + layers) and the validation per layer. */
    gat_idx batch_size;       /* 0: full graph; B > 0: training targets per step */
    int n_fanout;             /* with batch_size > 0: the model's layer count */
    gat_idx fanout[GAT_MAX_LAYERS]; /* in-neighbours sampled per node at hop h (fanout[0]: the
                                     * targets'), -1 for all, 0 for none (self-loop only) */
    uint64_t seed;            /* shuffling and sampling (default 0) */
    gat_stop_fn stop;         /* optional, with user: polled after each mini-batch step */
    /* Fields added with the look-ahead loader (gat_loader in gat/sample.h). */
    int lookahead;            /* mini-batches: 1 draws the next batch on a thread of its own
                               * while a step trains on the current one; 0 draws each in turn;
                               * -1 (gat_train_config_default) draws ahead when the model's
                               * threads (gat_model_set_threads) leave a processor free, and in
                               * turn when they take them all (the drawing thread would take
                               * turns with theirs). The blocks and results are the same */
    gat_idx eval_every;       /* validate every N epochs and after the last (0 or 1: every
                               * epoch); the other epochs' val_loss and val_acc are NaN and keep
                               * the best model as it was. Patience still counts epochs */
    gat_metric metric;        /* what early stopping follows (default GAT_METRIC_ACC) */
    /* Fields added with the learning-rate schedule of graph classification; read by
     * the graph trainers only (gat_graph_train, gat_gps_graph_train), the node trainers keep a
     * constant lr. Zero (as
     * gat_train_config_default leaves them) means a constant lr as before. The schedule is
     * PyTorch's ReduceLROnPlateau on the validation loss (mode min, relative threshold 1e-4, no
     * cooldown): after more than lr_patience validations without a loss below the best so far
     * times (1 - 1e-4), the lr is multiplied by lr_factor; once it falls below min_lr, training
     * stops (as benchmarking-gnns ends its TU runs), keeping the best model as always. */
    double lr_factor;         /* in [0, 1): 0 = no schedule */
    gat_idx lr_patience;      /* >= 0 */
    double min_lr;            /* >= 0: stop when the lr falls below it (0: never) */
    gat_idx lr_step;          /* > 0: a step schedule instead (PyTorch's StepLR): epoch e trains
                               * with lr * lr_factor^floor((e - 1) / lr_step); 0: the plateau
                               * schedule above */
    int keep_last;            /* the graph trainers only: 1 ends with the last epoch's model (the
                               * result's figures are its, best_epoch = epochs) instead of
                               * restoring the best validation epoch's, as benchmarking-gnns and
                               * Xu et al. report; 0: restore (default) */
    /* Fields added with checkpoints (gat_train, gat_gps_train, gat_graph_train and
     * gat_gps_graph_train; distributed training refuses them). A checkpoint is the loop's whole
     * state after an epoch: the parameters, Adam's moments and step, the model's dropout step, the
     * model early stopping would restore with its epoch and figures, the patience count, the time
     * so far and every epoch's gat_epoch_info. Training resumed from it goes on as if it had never
     * stopped: the same epochs, parameters and result, bit for bit on the same kernels (the
     * engine's results do not depend on the thread count). NULL and 0 (as gat_train_config_default
     * leaves them): no checkpoints. */
    const char *checkpoint;    /* a path: the state is written there, atomically (as
                                * gat_model_save), before the first epoch (so that a bad path fails
                                * at once), after every checkpoint_every-th epoch or once
                                * checkpoint_seconds have passed since the last write, and after the
                                * last epoch (patience, max_epochs or the progress callback's stop).
                                * A stop between mini-batches (cfg->stop) writes nothing: the last
                                * file stays. A failed write stops training with GAT_EIO (the best
                                * model so far is restored) */
    gat_idx checkpoint_every;  /* >= 0; 0: not by epochs */
    double checkpoint_seconds; /* >= 0, finite; 0: not by time */
    const char *resume;        /* NULL, or a checkpoint written by the same trainer for this
                                * model's configuration and seed (gat_model_create or
                                * gat_gps_create), this dataset (graph,
                                * features, labels, split) and the same adam, seed, batch_size,
                                * fanout, eval_every and metric (else GAT_EINVAL names the first
                                * difference); max_epochs and patience may differ. Training goes
                                * on after its epoch; the progress callback sees the epochs from
                                * there on (gat_train_checkpoint_history gives the earlier ones).
                                * A max_epochs or patience that ends the run within the epochs it
                                * holds (early stopping replayed over its history) gives that
                                * run's result when the checkpoint keeps the model it restores
                                * and validated its last epoch, else GAT_EINVAL names where the
                                * run ends. It may be the path of checkpoint. */
} gat_train_config;

typedef struct gat_train_result {
    gat_idx epochs;           /* epochs run */
    gat_idx best_epoch;       /* epoch whose model was restored */
    double val_loss, val_acc; /* of the restored model */
    double test_loss, test_acc; /* of the restored model on the test nodes (0 if none) */
    double seconds;           /* wall time of the training loop */
    /* ROC-AUC of the restored model on the validation and test nodes of a two-class model
     * (NaN for other models, in distributed training, or where a split lacks a class) */
    double val_auc, test_auc;
} gat_train_result;

/* The GAT paper's settings (lr 0.005, weight decay 5e-4, patience 100). NULL c: nothing (the
 * rule of status.h). */
GAT_API void gat_train_config_default(gat_train_config *c);

/* Mean softmax cross-entropy and accuracy of logits (n, C) over the nodes whose split equals
 * `which`; if dlogits is not NULL it receives d loss / d logits (n, C) (zero for other nodes).
 * Returns GAT_EINVAL (NULL argument, no such node, label out of range). */
GAT_API gat_status gat_softmax_xent(const gat_real *logits, gat_idx n, gat_idx classes,
                                    const gat_idx *labels, const uint8_t *split, gat_split which,
                                    double *loss, double *acc, gat_real *dlogits);

/* Multi-label targets (gat_dataset.n_labels > 0, e.g. PPI): mean sigmoid cross-entropy of logits
 * (n, n_labels) against targets (n, n_labels) of 0/1 (any non-zero counts as 1) over the nodes
 * whose split equals `which` and all their labels,
 *   loss = mean over (i, l) of max(z, 0) - z y + log(1 + exp(-|z|)),
 * and the micro-F1 of the predictions z > 0 (gat_micro_f1). If dlogits is not NULL it receives
 * d loss / d logits (n, n_labels) = (sigmoid(z) - y) / (count n_labels), zero for other nodes.
 * All arrays borrowed. Returns GAT_EINVAL (NULL argument, n < 0, n_labels < 1, no such node).
 * Cost O(n n_labels). */
GAT_API gat_status gat_sigmoid_bce(const gat_real *logits, gat_idx n, gat_idx n_labels,
                                   const uint8_t *targets, const uint8_t *split, gat_split which,
                                   double *loss, double *f1, gat_real *dlogits);

/* Micro-averaged F1 of multi-label predictions: label l of node i is predicted when
 * logits[i * n_labels + l] > 0; over the nodes of split `which` and all their labels, with TP,
 * FP, FN summed, *f1 = 2 TP / (2 TP + FP + FN) (0 when nothing is predicted or true), as
 * scikit-learn's f1_score(average="micro") and the GAT paper's PPI figure. Arrays as in
 * gat_sigmoid_bce. Returns GAT_EINVAL (NULL argument, bad sizes, no such node). O(n n_labels). */
GAT_API gat_status gat_micro_f1(const gat_real *logits, gat_idx n, gat_idx n_labels,
                                const uint8_t *targets, const uint8_t *split, gat_split which,
                                double *f1);

/* Evaluates m on ds (inference) for the nodes of split `which`. On a multi-label dataset
 * (ds->n_labels > 0) *loss is the sigmoid cross-entropy and *acc the micro-F1 (gat_sigmoid_bce). */
GAT_API gat_status gat_model_evaluate(gat_model *m, const gat_dataset *ds, gat_split which,
                                      double *loss, double *acc);

/* One training step of m, the step every gat_train epoch runs before its validation pass:
 * a training forward (dropout on) on graph g and features x that computes the last layer only
 * for `rows`, mean softmax cross-entropy over those rows, backward, and Adam step t (1, 2, ...)
 * with cfg adam and the model's own moment buffers (zero at creation, kept in m).
 * g, x: borrowed, bound as gat_model_forward binds them (after editing them in place, call
 * gat_model_bind first). labels: (g->n) class per node, borrowed; only the rows' labels are read.
 * rows: (n_rows) strictly ascending node indices in [0, g->n), borrowed; 1 <= n_rows <= g->n.
 * *loss, *acc (either may be NULL): the rows' loss and accuracy before the update.
 * Argument checks cost O(n_rows); the step costs one forward and one backward.
 * Returns GAT_EINVAL (NULL argument, t < 1, adam failing gat_adam_config_check, rows not
 * ascending or out of range, a label outside [0, classes), malformed g or x), GAT_EDIM (x, g and
 * the model disagree), GAT_ENUMERIC (a NaN or Inf feature; or the loss, a gradient or a
 * parameter became NaN/Inf: "training diverged at step t: ...". Parameters and moments are
 * untouched if the loss or a gradient is the culprit, already updated if a parameter is: keep a
 * copy of gat_model_params to restore), GAT_ENOMEM. On any failure *loss and *acc are not set. */
GAT_API gat_status gat_train_step(gat_model *m, const gat_graph *g, const gat_csr *x,
                                  const gat_idx *labels, const gat_idx *rows, gat_idx n_rows,
                                  const gat_adam_config *adam, gat_idx t, double *loss,
                                  double *acc);

/* One training step on a loader's batch b (gat/sample.h: a batch gat_loader_next returned,
 * borrowed), as gat_train runs each mini-batch: the block and its features (and edge features,
 * for a model with edge_dim > 0) are bound as the loader built them, without gat_model_bind's
 * checks or a copy; the last layer computes the targets (b->block.n_targets of them) and each
 * layer l of L only the block's nodes of hops 0 .. L - 1 - l, the rows the next layer reads
 * (forward and backward: the results of gat_train_step on the block with rows 0 ..
 * n_targets - 1, up to summation order). labels: (b->block.n_targets) the targets' classes, in
 * the block's order. t, adam, *loss, *acc as in gat_train_step. Do not pass a batch built or
 * edited by hand: nothing of it is checked beyond its sizes against the model. Afterwards
 * gat_model_layer_output and gat_model_attention hold layer l's values for those rows only (and
 * their in-edges); the other rows' are unspecified.
 * Returns GAT_EINVAL (NULL argument, t < 1, adam failing gat_adam_config_check, a block without
 * targets or of other than the model's layers as hops, a label outside [0, classes)), GAT_EDIM
 * (the features' width or the edge features disagree with the model), GAT_ENUMERIC (training
 * diverged, as gat_train_step), GAT_ENOMEM. Cost: one forward and one backward on the block's
 * rows each layer needs. */
GAT_API gat_status gat_train_step_batch(gat_model *m, const gat_batch *b, const gat_idx *labels,
                                        const gat_adam_config *adam, gat_idx t, double *loss,
                                        double *acc);

/* Trains m on ds (borrowed) and leaves the restored best model in m. The loss follows the
 * dataset: softmax cross-entropy on labels, or on a multi-label dataset (ds->n_labels > 0, the
 * model's classes = n_labels) sigmoid cross-entropy on label_matrix, with the micro-F1 in place of
 * the accuracy everywhere (gat_epoch_info's train_acc and val_acc, gat_train_result's val_acc
 * and test_acc), so early stopping watches validation loss and micro-F1 (the GAT paper's PPI
 * setup; full-graph only: batch_size must be 0). Inductive training needs no option: with a
 * split by graph of a dataset of many graphs, no edge joins a training graph to the others, so
 * the training nodes never see a validation or test graph. Each epoch is one
 * gat_train_step on the training rows (t = the epoch), or with cfg->batch_size > 0 one step per
 * mini-batch on its sampled block, and an inference pass on the validation rows. res may be NULL.
 * cfg is checked first: max_epochs >= 1, patience >= 1, the Adam fields as
 * gat_adam_config_check, metric a gat_metric (GAT_METRIC_AUC: a two-class model), batch_size
 * >= 0 and with batch_size > 0 n_fanout == the model's layers and every fan-out -1 or >= 0; the message names the one bad field and its value. ds's graph and
 * features are checked as gat_model_forward does.
 * Returns GAT_EINVAL (config or dataset unusable, e.g. no training node; a resume checkpoint of
 * another model, dataset or setting), GAT_EDIM (model and dataset widths disagree),
 * GAT_ENUMERIC (the loss or the parameters became NaN/Inf, the best model so far restored; or a
 * NaN in the resume checkpoint), GAT_EINTERRUPTED (the callback asked to stop), GAT_EIO (a
 * checkpoint could not be written, the best model so far restored, or read), GAT_EFORMAT (resume
 * names no checkpoint, or a malformed one), GAT_ENOMEM. A refused resume leaves m as it was. */
GAT_API gat_status gat_train(gat_model *m, const gat_dataset *ds, const gat_train_config *cfg,
                             gat_train_result *res);

/* The epoch rows a checkpoint (gat_train_config.checkpoint) holds, one per epoch from the
 * first: *rows (n of them; the caller frees it with free()) as the progress callback saw them.
 * Returns GAT_EINVAL (NULL argument), GAT_EIO, GAT_EFORMAT (not a checkpoint, malformed),
 * GAT_ENOMEM; *rows NULL and *n 0 on failure. Cost O(file size). */
GAT_API gat_status gat_train_checkpoint_history(const char *path, gat_epoch_info **rows, size_t *n);

/* Writes n epoch rows (borrowed) to path as a metrics table, atomically (as gat_matrix_save).
 * A path ending in ".jsonl" (any case) gets JSON lines, one object per row, e.g.
 *   {"run":1,"epoch":3,"train_loss":1.93,"train_acc":0.3,"val_loss":1.9,"val_acc":0.41,
 *    "best_epoch":3,"seconds":0.051,"epoch_ms":16.2}
 * (a non-finite value is written as null); any other path gets CSV with the header
 *   run,epoch,train_loss,train_acc,val_loss,val_acc,best_epoch,seconds,epoch_ms
 * and one line per row. runs: (n) run numbers, borrowed, or NULL for no "run" column/key.
 * Accuracies are fractions in [0, 1]; seconds = gat_epoch_info.seconds, epoch_ms = 1000 x
 * epoch_seconds. Each value is printed with the fewest digits (15 to 17) that read back as the
 * exact double the progress callback saw; '.' is the decimal point whatever the locale.
 * Returns GAT_EINVAL (NULL path, or NULL rows with n > 0), GAT_EIO (the message names the path
 * and the reason), GAT_ENOMEM. n == 0 writes the header alone (CSV) or an empty file (JSON
 * lines). Cost O(n). */
GAT_API gat_status gat_metrics_save(const char *path, const gat_epoch_info *rows,
                                    const gat_idx *runs, size_t n);

#ifdef __cplusplus
}
#endif
#endif
