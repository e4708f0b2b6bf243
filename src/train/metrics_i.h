/* Private: the metrics of src/train/metrics.c on logits, for the training loop's evaluations. */
#ifndef GAT_I_METRICS_H
#define GAT_I_METRICS_H

#include "gat/metrics.h"

/* ROC-AUC (gat_roc_auc) of two-class logits (n, 2) over rows (count of them, ascending node
 * indices, labels read at each: class 1 is the positive), the score of a row being
 * logit 1 - logit 0 (monotone in the softmax probability of class 1). Returns what gat_roc_auc
 * returns; GAT_EINVAL also for a label outside {0, 1}. */
gat_status gat_i_auc_logits(const gat_real *logits, const gat_idx *labels, const gat_idx *rows,
                            gat_idx count, double *auc);

#endif
