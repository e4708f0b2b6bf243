/* Adam with L2 weight decay folded into the gradient (Kingma & Ba 2015, Algorithm 1), and the
 * check of its settings. */
#include "gat/optim.h"
#include "core/core.h"
#include "optim_i.h"

#include <math.h>

void gat_adam_config_default(gat_adam_config *c)
{
    if (!c) return;
    c->lr = 0.005;
    c->beta1 = 0.9;
    c->beta2 = 0.999;
    c->eps = 1e-8;
    c->weight_decay = 5e-4;
}

/* GAT_EINVAL naming the field unless lo <= v (lo < v if open) and v < hi (v <= hi if closed). */
static gat_status check_field(const char *name, double v, double lo, int lo_open, double hi,
                              int hi_closed, const char *range)
{
    const int ok = isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_closed ? v <= hi : v < hi);
    return ok ? GAT_OK : gat_i_error(GAT_EINVAL, "gat_adam: %s = %g is outside %s", name, v, range);
}

gat_status gat_adam_config_check(const gat_adam_config *c)
{
    gat_status st;
    gat_i_clear_error();
    if (!c) return gat_i_error(GAT_EINVAL, "gat_adam: NULL config");
    if ((st = check_field("lr", c->lr, 0, 1, INFINITY, 0, "(0, inf)")) != GAT_OK ||
        (st = check_field("beta1", c->beta1, 0, 0, 1, 0, "[0, 1)")) != GAT_OK ||
        (st = check_field("beta2", c->beta2, 0, 0, 1, 0, "[0, 1)")) != GAT_OK ||
        (st = check_field("eps", c->eps, 0, 1, INFINITY, 0, "(0, inf)")) != GAT_OK ||
        (st = check_field("weight_decay", c->weight_decay, 0, 0, INFINITY, 0, "[0, inf)")) !=
            GAT_OK)
        return st;
    return GAT_OK;
}

gat_status gat_i_adam_step(const gat_i_fused_ops *ops, const gat_adam_config *c, gat_idx t,
                           size_t n, gat_real *p, const gat_real *g, gat_real *m, gat_real *v)
{
    gat_status st;
    if ((st = gat_adam_config_check(c)) != GAT_OK) return st;
    if (t < 1) return gat_i_error(GAT_EINVAL, "gat_adam: step t = %d, expected t >= 1", t);
    if (n > 0 && (!p || !g || !m || !v))
        return gat_i_error(GAT_EINVAL, "gat_adam: NULL %s with n = %zu parameters",
                           !p   ? "p"
                           : !g ? "g"
                           : !m ? "m"
                                : "v",
                           n);
    const gat_real b1 = (gat_real)c->beta1, b2 = (gat_real)c->beta2, wd = (gat_real)c->weight_decay;
    /* bias corrections folded into the step size and epsilon, as TensorFlow's Adam does */
    const double c1 = 1 - pow(c->beta1, (double)t), c2 = 1 - pow(c->beta2, (double)t);
    const gat_real lr = (gat_real)(c->lr / c1), s2 = (gat_real)(1 / sqrt(c2));
    const gat_real eps = (gat_real)c->eps;
    /* the one copy of the loop (layers/fused_adam.c) in the kernels' build (the double build has the
     * baseline copy in double) */
    ops->adam(n, p, g, m, v, b1, b2, wd, lr, s2, eps);
    return GAT_OK;
}

gat_status gat_adam_step(const gat_adam_config *c, gat_idx t, size_t n, gat_real *p,
                         const gat_real *g, gat_real *m, gat_real *v)
{
    return gat_i_adam_step(gat_i_fused_get(GAT_KERNELS_AUTO), c, t, n, p, g, m, v);
}
