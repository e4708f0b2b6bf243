/* Adam's update loop (gat_adam_step's, Kingma & Ba 2015, Algorithm 1, with L2 weight decay
 * folded into the gradient and the bias corrections into lr and s2), compiled once per
 * instruction set beside the fused kernels (GAT_I_ISA names the copy) so that a model's Adam
 * step runs the build its kernels do (gat_i_fused_ops.adam). */
#include "layers/fused.h"

#include <math.h>

void GAT_I_FN(gat_i_adam_loop)(size_t n, gat_real *p, const gat_real *g, gat_real *m, gat_real *v,
                               gat_real b1, gat_real b2, gat_real wd, gat_real lr, gat_real s2,
                               gat_real eps)
{
    for (size_t k = 0; k < n; k++) {
        const gat_real gk = g[k] + wd * p[k];
        m[k] = b1 * m[k] + (1 - b1) * gk;
        v[k] = b2 * v[k] + (1 - b2) * gk * gk;
#ifdef GAT_REAL_DOUBLE
        p[k] -= lr * m[k] / (sqrt(v[k]) * s2 + eps);
#else
        p[k] -= lr * m[k] / (sqrtf(v[k]) * s2 + eps);
#endif
    }
}
