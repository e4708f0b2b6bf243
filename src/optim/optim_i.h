/* Private: the optimizer's step with a given build of the kernels. */
#ifndef GAT_I_OPTIM_H
#define GAT_I_OPTIM_H

#include "gat/optim.h"
#include "layers/fused.h"

/* gat_adam_step on the kernels ops (a model's, gat_i_model_ops): the same checks, statuses and
 * messages; gat_adam_step itself runs the widest build this CPU runs. */
gat_status gat_i_adam_step(const gat_i_fused_ops *ops, const gat_adam_config *c, gat_idx t,
                           size_t n, gat_real *p, const gat_real *g, gat_real *m, gat_real *v);

#endif
