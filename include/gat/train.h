/* Full-graph node-classification training: softmax cross-entropy over the training nodes, Adam
 * with L2 weight decay, and the GAT reference's early stopping (patience counted on validation
 * loss and accuracy together; the model of the last epoch that improved both is restored). */
#ifndef GAT_TRAIN_H
#define GAT_TRAIN_H

#include "dataset.h"
#include "model.h"
#include "optim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the progress callback sees after every epoch. */
typedef struct gat_epoch_info {
    int epoch;                /* 1-based */
    double train_loss, train_acc; /* of this epoch's training forward (with dropout) */
    double val_loss, val_acc;     /* inference on the validation nodes */
    int best_epoch;           /* epoch of the model that would be restored now */
    double seconds;           /* elapsed since training started */
} gat_epoch_info;

/* Called after every epoch; returning non-zero stops training (the best model is restored and
 * gat_train returns GAT_EINTERRUPTED). */
typedef int (*gat_progress_fn)(const gat_epoch_info *info, void *user);

typedef struct gat_train_config {
    gat_adam_config adam;
    int max_epochs;           /* default 100000: stop only on patience */
    int patience;             /* epochs without improvement before stopping (default 100) */
    gat_progress_fn progress; /* optional */
    void *user;               /* passed to progress */
} gat_train_config;

typedef struct gat_train_result {
    int epochs;               /* epochs run */
    int best_epoch;           /* epoch whose model was restored */
    double val_loss, val_acc; /* of the restored model */
    double test_loss, test_acc; /* of the restored model on the test nodes (0 if none) */
    double seconds;           /* wall time of the training loop */
} gat_train_result;

/* The GAT paper's settings (lr 0.005, weight decay 5e-4, patience 100). NULL c: nothing (the
 * rule of status.h). */
GAT_API void gat_train_config_default(gat_train_config *c);

/* Mean softmax cross-entropy and accuracy of logits (n, C) over the nodes whose split equals
 * `which`; if dlogits is not NULL it receives d loss / d logits (n, C) (zero for other nodes).
 * Returns GAT_EINVAL (no such node, label out of range). */
GAT_API gat_status gat_softmax_xent(const gat_real *logits, gat_idx n, gat_idx classes,
                                    const gat_idx *labels, const uint8_t *split, int which,
                                    double *loss, double *acc, gat_real *dlogits);

/* Evaluates m on ds (inference) for the nodes of split `which`. */
GAT_API gat_status gat_model_evaluate(gat_model *m, const gat_dataset *ds, int which,
                                      double *loss, double *acc);

/* Trains m on ds (borrowed) and leaves the restored best model in m. res may be NULL.
 * cfg is checked first: max_epochs >= 1, patience >= 1 and the Adam fields as
 * gat_adam_config_check; the message names the one bad field and its value. ds's graph and
 * features are checked as gat_model_forward does.
 * Returns GAT_EINVAL (config or dataset unusable, e.g. no training node), GAT_EDIM (model and
 * dataset widths disagree), GAT_ENUMERIC (the loss or the parameters became NaN/Inf; the best
 * model so far is restored), GAT_EINTERRUPTED (the callback asked to stop), GAT_ENOMEM. */
GAT_API gat_status gat_train(gat_model *m, const gat_dataset *ds, const gat_train_config *cfg,
                             gat_train_result *res);

#ifdef __cplusplus
}
#endif
#endif
