/* The finite-difference gradient checker and the whole-model op of the suites (gradcheck.h). */
#include "gradcheck.h"
#include "model/model_i.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double STEP = 1e-6;  /* default central-difference step */
static const double TOL = 1e-6;   /* relative error allowed */
static const double FLOOR = 1e-3; /* gradients below this are compared absolutely */

void *take(pool *pl, size_t count, size_t size)
{
    ck_assert_int_lt(pl->n, MAX_BUFS);
    void *p = calloc(count + 1, size);
    ck_assert_ptr_nonnull(p);
    return pl->p[pl->n++] = p;
}

gat_real *reals(pool *pl, size_t n)
{
    return take(pl, n, sizeof(gat_real));
}

void pool_free(pool *pl)
{
    for (int k = 0; k < pl->n; k++)
        free(pl->p[k]);
    pl->n = 0;
}

void add_var(gc_op *op, const char *name, gat_real *x, gat_real *grad, size_t n, int adds)
{
    ck_assert_int_lt(op->nv, MAX_VARS);
    op->v[op->nv++] = (gc_var){name, x, grad, n, adds};
}

static double rel_err(double a, double b, double floor)
{
    return fabs(a - b) / fmax(fmax(fabs(a), fabs(b)), floor);
}

/* sum((f(x + s h) - f(x - s h)) * r) / (the step actually taken): the output differences first,
 * less cancellation than L(x+h) - L(x-h). */
static double diff_at(gc_op *op, gc_var *var, size_t k, double s, double h, const gat_real *r,
                      gat_real *op_, gat_real *om, double *taken)
{
    const gat_real x0 = var->x[k], xp = (gat_real)(x0 + s * h), xm = (gat_real)(x0 - s * h);
    double diff = 0;
    var->x[k] = xp;
    op->forward(op->ctx, op_);
    var->x[k] = xm;
    op->forward(op->ctx, om);
    var->x[k] = x0;
    for (size_t o = 0; o < op->n_out; o++)
        diff += ((double)op_[o] - om[o]) * r[o];
    *taken = (double)xp - xm;
    return diff;
}

double gradcheck(gc_op *op, uint64_t seed)
{
    pool pl = {0};
    gat_real *r = reals(&pl, op->n_out), *out = reals(&pl, op->n_out);
    gat_real *op_ = reals(&pl, op->n_out), *om = reals(&pl, op->n_out);
    gat_real *first[MAX_VARS];
    double worst = 0, worst_a = 0, worst_n = 0, worst_twice = 0;
    const char *worst_name = "-";
    size_t worst_k = 0, checked = 0;
    const double h = op->step > 0 ? op->step : STEP;

    tu_uniform(r, op->n_out, -1, 1, seed);
    for (int v = 0; v < op->nv; v++)
        memset(op->v[v].grad, 0, op->v[v].n * sizeof(gat_real));
    op->forward(op->ctx, out);
    for (size_t o = 0; o < op->n_out; o++)
        ck_assert_msg(isfinite(out[o]), "%s: output %zu is %g", op->name, o, out[o]);
    op->backward(op->ctx, r);
    for (int v = 0; v < op->nv; v++) {
        first[v] = reals(&pl, op->v[v].n);
        memcpy(first[v], op->v[v].grad, op->v[v].n * sizeof(gat_real));
    }
    op->backward(op->ctx, r);
    for (int v = 0; v < op->nv; v++) {
        const gc_var *var = &op->v[v];
        for (size_t k = 0; k < var->n; k++) {
            const double want = var->adds ? 2 * first[v][k] : first[v][k];
            const double e = rel_err(var->grad[k], want, FLOOR);
            ck_assert_msg(e <= 1e-10, "%s: second backward gives d%s[%zu] = %.17g, want %.17g",
                          op->name, var->name, k, var->grad[k], want);
            worst_twice = fmax(worst_twice, e);
        }
        memcpy(var->grad, first[v], var->n * sizeof(gat_real));
    }

    for (int v = 0; v < op->nv; v++) {
        gc_var *var = &op->v[v];
        for (size_t k = 0; k < var->n; k++) {
            double t1, t2;
            const double d1 = diff_at(op, var, k, 1, h, r, op_, om, &t1);
            const double num = op->order4
                                   ? (8 * d1 - diff_at(op, var, k, 2, h, r, op_, om, &t2)) / (12 * h)
                                   : d1 / t1;
            const double a = var->grad[k], e = rel_err(a, num, op->floor > 0 ? op->floor : FLOOR);
            ck_assert_msg(isfinite(a) && isfinite(num), "%s: d%s[%zu] analytic %g numeric %g",
                          op->name, var->name, k, a, num);
            if (e > worst || checked == 0)
                worst = e, worst_a = a, worst_n = num, worst_name = var->name, worst_k = k;
            checked++;
        }
    }
    printf("gradcheck %-58s h=%.0e%s %4zu coords, worst rel err %.2e (d%s[%zu]: analytic %.9g, "
           "numeric %.9g); twice %.1e\n",
           op->name, h, op->order4 ? " (5-point)" : "", checked, worst, worst_name, worst_k,
           worst_a, worst_n, worst_twice);
    fflush(stdout);
    ck_assert_msg(worst <= TOL, "%s: d%s[%zu] analytic %.12g vs numeric %.12g, rel err %.3g > %g",
                  op->name, worst_name, worst_k, worst_a, worst_n, worst, TOL);
    pool_free(&pl);
    return worst;
}

void gc_model_forward(void *ctx, gat_real *out)
{
    gc_model *d = ctx;
    const gat_real *logits = NULL;
    /* the same dropout masks for every evaluation: those of the training step after d->step */
    const gat_i_binding b = {.g = &d->g, .x = &d->x, .ex = d->ex, .flags = d->flags};
    const gat_i_run run = {.training = 1, .step = d->step + 1};
    ck_assert_int_eq(gat_i_model_forward(d->m, &b, &run, &logits), GAT_OK);
    memcpy(out, logits, d->n_out * sizeof *out);
}

void gc_model_backward(void *ctx, const gat_real *dlogits)
{
    gc_model *d = ctx;
    ck_assert_int_eq(gat_model_backward(d->m, dlogits), GAT_OK);
    if (d->flags & GAT_BIND_INPUT_GRADIENT) {
        const gat_real *dx;
        ck_assert_int_eq(gat_model_input_gradient(d->m, &dx), GAT_OK);
        memcpy(d->dx, dx, (size_t)d->x.rowptr[d->x.rows] * sizeof *dx);
    }
}
