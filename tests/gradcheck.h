/* The finite-difference gradient checker of the double-build suites (test_gradcheck.c,
 * test_scores.c): loss = sum(out * r) for a random r (so dout = r), every coordinate of every
 * variable's analytic gradient against a central difference (or the five-point stencil). */
#ifndef GAT_TEST_GRADCHECK_H
#define GAT_TEST_GRADCHECK_H

#include "testutil.h"

#ifndef GAT_REAL_DOUBLE
#error "the gradient checks need the double build (-DGAT_REAL_DOUBLE)"
#endif

enum { MAX_VARS = 8 * GAT_MAX_LAYERS, MAX_BUFS = 48 };

typedef struct gc_var {
    const char *name;
    gat_real *x;    /* input or parameter, perturbed in place */
    gat_real *grad; /* its analytic gradient, filled by backward */
    size_t n;
    int adds; /* backward adds into grad; otherwise it overwrites */
} gc_var;

typedef struct gc_op {
    char name[96];
    void (*forward)(void *ctx, gat_real *out);
    void (*backward)(void *ctx, const gat_real *dout);
    void *ctx;
    size_t n_out;
    gc_var v[MAX_VARS];
    int nv;
    double step; /* 0: 1e-6 */
    int order4;  /* five-point stencil: error O(h^4) (saturated multi-layer models) */
    double floor; /* gradients below it compared absolutely (0: 1e-3), for deep models whose
                   * finite differences carry more rounding */
} gc_op;

/* Buffers of one test, zeroed, freed together. */
typedef struct pool {
    void *p[MAX_BUFS];
    int n;
} pool;

void *take(pool *pl, size_t count, size_t size);
gat_real *reals(pool *pl, size_t n);
void pool_free(pool *pl);

void add_var(gc_op *op, const char *name, gat_real *x, gat_real *grad, size_t n, int adds);

/* Forward and backward at the current point; a second backward must double the accumulated
 * gradients (and repeat the overwritten ones); then every coordinate against
 * (L(x + h) - L(x - h)) / 2h, or the five-point (8 D(h) - D(2h)) / 12h with op->order4.
 * Variables sharing a gradient buffer (aliased inputs) are listed once. Asserts a relative
 * error (absolute below op->floor, 1e-3 by default) of at most 1e-6, prints and returns the worst.
 */
double gradcheck(gc_op *op, uint64_t seed);

/* A whole model as a gc_op's ctx: training forwards with the dropout masks of the training step
 * after `step` every time (gat_i_run.step = step + 1), logits (n_out) out; backward from dlogits
 * into the model's gradients. */
typedef struct gc_model {
    gat_model *m;
    gat_graph g;
    gat_csr x;
    const gat_real *ex; /* (E, edge_dim) edge features of g, or NULL (a model without them) */
    uint64_t step;
    size_t n_out;
    unsigned flags; /* the binding's (GAT_BIND_INPUT_GRADIENT: gc_model_backward copies it) */
    gat_real *dx;   /* with GAT_BIND_INPUT_GRADIENT: (nnz(x)) the input gradient, overwritten */
} gc_model;

void gc_model_forward(void *ctx, gat_real *out);
void gc_model_backward(void *ctx, const gat_real *dlogits);

#endif
