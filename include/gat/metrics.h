/* Evaluation metrics of predictions against labels: one function per metric, each a pure
 * function of its arguments (no state, any thread). ROC-AUC for binary node classification
 * (Platonov et al. 2023 report it for minesweeper, tolokers and questions); macro-F1 of class
 * predictions (graph classification reports it); the trainer's accuracy and cross-entropy are
 * gat_softmax_xent's (train.h). */
#ifndef GAT_METRICS_H
#define GAT_METRICS_H

#include "status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Area under the ROC curve of score (n, borrowed; higher means more likely positive) against
 * positive (n, borrowed; non-zero for the positive class): the probability that a random
 * positive scores above a random negative, ties counting one half. This is the Mann-Whitney U
 * statistic divided by n_pos * n_neg, computed exactly from one sort (ranks averaged over tied
 * scores), so it equals sklearn's roc_auc_score. *auc is in [0, 1].
 * Returns GAT_EINVAL (NULL argument, n < 0, no positive or no negative: the AUC is undefined,
 * the message gives both counts), GAT_ENUMERIC (a NaN or Inf score, naming its index),
 * GAT_ENOMEM. On failure *auc is not set. Cost O(n log n) time, O(n) memory. */
GAT_API gat_status gat_roc_auc(const double *score, const uint8_t *positive, gat_idx n,
                               double *auc);

/* Macro-averaged F1 of single-label predictions pred (n, borrowed) against labels (n, borrowed),
 * both in [0, classes): the mean over the classes that occur in labels or in pred of
 * 2 TP / (2 TP + FP + FN), as scikit-learn's f1_score(average="macro") (classes in neither are
 * left out). Returns GAT_EINVAL (NULL argument, n < 1, classes < 1, a value outside the classes,
 * naming its index), GAT_ENOMEM; *f1 is not set on failure. Cost O(n + classes) time,
 * O(classes) memory. */
GAT_API gat_status gat_macro_f1(const gat_idx *labels, const gat_idx *pred, gat_idx n,
                                gat_idx classes, double *f1);

#ifdef __cplusplus
}
#endif
#endif
