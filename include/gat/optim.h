/* Adam (Kingma & Ba 2015) with L2 weight decay added to the gradient, as the GAT reference
 * (TensorFlow) and PyTorch's Adam(weight_decay=...) do. */
#ifndef GAT_OPTIM_H
#define GAT_OPTIM_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gat_adam_config {
    double lr;           /* learning rate (default 0.005) */
    double beta1, beta2; /* moment decay rates (0.9, 0.999) */
    double eps;          /* denominator guard (1e-8) */
    double weight_decay; /* L2 coefficient lambda: gradient += lambda * param (5e-4) */
} gat_adam_config;

/* Fills c with the GAT paper's Cora values above. NULL c: nothing (the rule of status.h). */
GAT_API void gat_adam_config_default(gat_adam_config *c);

/* Checks every field of c: lr > 0, beta1 and beta2 in [0, 1), eps > 0, weight_decay >= 0, all
 * finite. Returns GAT_EINVAL for NULL c or the first bad field, the message naming it and its
 * value (e.g. "gat_adam: beta1 = 1 is outside [0, 1)"). Cost O(1). */
GAT_API gat_status gat_adam_config_check(const gat_adam_config *c);

/* One Adam step t (1, 2, ..., a count: gat_idx like every count of the API) over n parameters p
 * with gradients g and moments m, v (all (n), m and v zero before step 1): g' = g + wd p;
 * m = b1 m + (1-b1) g'; v = b2 v + (1-b2) g'^2; p -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps).
 * g is not modified. The loop runs on the widest kernel build this CPU runs (gat/model.h,
 * GAT_KERNELS_AUTO); gat_train's steps run the model's own (gat_model_options.kernels).
 * Returns GAT_EINVAL (c fails gat_adam_config_check, t < 1, a NULL array with n > 0; nothing is
 * updated). Cost O(n). */
GAT_API gat_status gat_adam_step(const gat_adam_config *c, gat_idx t, size_t n, gat_real *p,
                                 const gat_real *g, gat_real *m, gat_real *v);

#ifdef __cplusplus
}
#endif
#endif
