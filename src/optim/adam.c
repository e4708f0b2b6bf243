/* Adam with L2 weight decay folded into the gradient (Kingma & Ba 2015, Algorithm 1). */
#include "gat/optim.h"
#include "layers/fused.h"

#include <math.h>

/* the square root in the precision of gat_real, so that the loop vectorises in float */
#ifdef GAT_REAL_DOUBLE
#define SQRT sqrt
#else
#define SQRT sqrtf
#endif

void gat_adam_config_default(gat_adam_config *c)
{
    c->lr = 0.005;
    c->beta1 = 0.9;
    c->beta2 = 0.999;
    c->eps = 1e-8;
    c->weight_decay = 5e-4;
}

void gat_adam_step(const gat_adam_config *c, long t, size_t n, gat_real *p, const gat_real *g,
                   gat_real *m, gat_real *v)
{
    const gat_real b1 = (gat_real)c->beta1, b2 = (gat_real)c->beta2, wd = (gat_real)c->weight_decay;
    /* bias corrections folded into the step size and epsilon, as TensorFlow's Adam does */
    const double c1 = 1 - pow(c->beta1, (double)t), c2 = 1 - pow(c->beta2, (double)t);
    const gat_real lr = (gat_real)(c->lr / c1), s2 = (gat_real)(1 / sqrt(c2));
    const gat_real eps = (gat_real)c->eps;
#ifndef GAT_REAL_DOUBLE
    /* this loop, built for this CPU's vector width (layers/fused.c) */
    gat_i_fused()->adam(n, p, g, m, v, b1, b2, wd, lr, s2, eps);
#else
    for (size_t k = 0; k < n; k++) {
        const gat_real gk = g[k] + wd * p[k];
        m[k] = b1 * m[k] + (1 - b1) * gk;
        v[k] = b2 * v[k] + (1 - b2) * gk * gk;
        p[k] -= lr * m[k] / (SQRT(v[k]) * s2 + eps);
    }
#endif
}
