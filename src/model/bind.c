/* A model's binding (binding.h) to the engine's caches (model/fast.c): the checks, the node order
 * for locality and the renumbered inputs (one renumbering step, gat_i_renumber), edge features,
 * the rebuild in place; forward and backward on it, and the outputs in the caller's numbering. */
#include "model_state.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "matrix_i.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static gat_status check_layer(const gat_model *m, gat_idx l, const void *out, const char *fn)
{
    gat_i_clear_error();
    if (!m || !out) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !m ? "model m" : "output");
    if (l < 0 || l >= m->n_layers)
        return gat_i_error(GAT_EINVAL, "layer %d out of range [0, %d)", l, m->n_layers);
    if (!m->ws.fast || !m->ws.ran)
        return gat_i_error(GAT_EINVAL, "%s: no forward has been run yet on the bound inputs", fn);
    return GAT_OK;
}

/* Layer l's output in the caller's numbering: the engine's when the binding keeps it, else a
 * copy made once per forward. NULL on allocation failure (GAT_ENOMEM recorded). The accessors take
 * a const model: these copies are caches of the last forward's results, not model state. */
static const gat_real *output_view(gat_model *m, int l)
{
    const gat_real *y = gat_i_fast_output(m->ws.fast, l);
    if (m->ws.order == GAT_ORDER_NONE) return y;
    const size_t w = (size_t)m->L[l].width, n = (size_t)m->ws.pg.n;
    if (!m->ws.view[l] && !(m->ws.view[l] = gat_malloc(n * w, sizeof *y))) return NULL;
    if (m->ws.view_at[l] != m->ws.fwd) {
        for (size_t k = 0; k < n; k++)
            memcpy(m->ws.view[l] + (size_t)m->ws.perm[k] * w, y + k * w, w * sizeof *y);
        m->ws.view_at[l] = m->ws.fwd;
    }
    return m->ws.view[l];
}

static const gat_real *alpha_view(gat_model *m, int l)
{
    const gat_real *a = gat_i_fast_alpha(m->ws.fast, l); /* may allocate (gat_i_fast_alpha) */
    if (!a || m->ws.order == GAT_ORDER_NONE) return a;
    const size_t H = (size_t)m->L[l].heads, E = (size_t)m->ws.pg.nnz;
    if (!m->ws.aview[l] && !(m->ws.aview[l] = gat_malloc(E * H, sizeof *a))) return NULL;
    if (m->ws.aview_at[l] != m->ws.fwd) {
        for (size_t e = 0; e < E; e++)
            memcpy(m->ws.aview[l] + (size_t)m->ws.edge_of[e] * H, a + e * H, H * sizeof *a);
        m->ws.aview_at[l] = m->ws.fwd;
    }
    return m->ws.aview[l];
}

gat_status gat_model_layer_output(const gat_model *m, gat_idx l, const gat_real **out)
{
    gat_status st = check_layer(m, l, out, "gat_model_layer_output");
    if (st == GAT_OK && !(*out = output_view((gat_model *)m, l))) st = GAT_ENOMEM;
    return st;
}

gat_status gat_model_attention(const gat_model *m, gat_idx l, const gat_real **alpha)
{
    gat_status st = check_layer(m, l, alpha, "gat_model_attention");
    if (st == GAT_OK && m->ws.lean)
        return gat_i_error(GAT_EINVAL,
                           "gat_model_attention: the inputs are bound for inference "
                           "(GAT_BIND_INFERENCE), which keeps no attention coefficients: bind "
                           "them without it, or run gat_model_forward on them, first");
    if (st == GAT_OK && !(*alpha = alpha_view((gat_model *)m, l))) st = GAT_ENOMEM;
    return st;
}

gat_status gat_model_input_gradient(const gat_model *m, const gat_real **dx)
{
    const char *fn = "gat_model_input_gradient";
    gat_i_clear_error();
    if (!m || !dx) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !m ? "model m" : "dx");
    if (!m->ws.fast || !(m->ws.b.flags & GAT_BIND_INPUT_GRADIENT))
        return gat_i_error(GAT_EINVAL,
                           "%s: the inputs are not bound with GAT_BIND_INPUT_GRADIENT (pass it "
                           "to gat_model_bind before the forward)",
                           fn);
    const gat_real *d = gat_i_fast_input_grad(m->ws.fast);
    if (!d)
        return gat_i_error(GAT_EINVAL, "%s: no backward has run since the last forward", fn);
    if (m->ws.order == GAT_ORDER_NONE) {
        *dx = d;
        return GAT_OK;
    }
    /* the engine's rows are the caller's rows perm[k], each with its entries in their order */
    gat_model *w = (gat_model *)m; /* a cache of the last backward's result, as output_view */
    const gat_csr *x = m->ws.b.x, *px = &m->ws.px;
    const size_t nnz = (size_t)x->rowptr[x->rows];
    if (!w->ws.dxview && !(w->ws.dxview = gat_malloc(nnz ? nnz : 1, sizeof *d)))
        return GAT_ENOMEM;
    for (gat_idx k = 0; k < px->rows; k++)
        memcpy(w->ws.dxview + x->rowptr[m->ws.perm[k]], d + px->rowptr[k],
               (size_t)(px->rowptr[k + 1] - px->rowptr[k]) * sizeof *d);
    *dx = w->ws.dxview;
    return GAT_OK;
}

gat_status gat_model_set_order(gat_model *m, gat_order order)
{
    gat_i_clear_error();
    if (!m) return gat_i_error(GAT_EINVAL, "gat_model_set_order: NULL model m");
    if ((unsigned)order >= GAT_ORDER_COUNT)
        return gat_i_error(GAT_EINVAL, "gat_model_set_order: order %d is not a gat_order",
                           (int)order);
    if (order != m->order)
        gat_i_model_unbind(m); /* the next forward binds again, in the new order */
    m->order = order;
    return GAT_OK;
}

gat_order gat_model_order(const gat_model *m, double *seconds)
{
    const int bound = m && m->ws.fast;
    if (seconds) *seconds = bound ? m->ws.order_seconds : 0;
    return bound ? m->ws.order : GAT_ORDER_NONE;
}

/* ---- binding ---- */

/* Frees what an ordered binding keeps besides the engine. */
static void drop_order(gat_model *m)
{
    gat_graph_destroy(&m->ws.pg);
    gat_csr_destroy(&m->ws.px);
    gat_free(m->ws.perm);
    gat_free(m->ws.iperm);
    gat_free(m->ws.edge_of);
    gat_free(m->ws.pex);
    gat_free(m->ws.mark);
    gat_free(m->ws.rows);
    gat_free(m->ws.dl);
    gat_free(m->ws.dxview);
    m->ws.dxview = NULL;
    for (int l = 0; l < GAT_MAX_LAYERS; l++) {
        gat_free(m->ws.view[l]);
        gat_free(m->ws.aview[l]);
        m->ws.view[l] = m->ws.aview[l] = NULL;
        m->ws.view_at[l] = m->ws.aview_at[l] = 0;
    }
    m->ws.perm = m->ws.iperm = m->ws.edge_of = m->ws.rows = NULL;
    m->ws.pex = NULL;
    m->ws.mark = NULL;
    m->ws.dl = NULL;
    m->ws.order = GAT_ORDER_NONE;
    m->ws.order_seconds = 0;
}

void gat_i_model_unbind(gat_model *m)
{
    drop_order(m);
    gat_i_fast_free(m->ws.fast);
    memset(&m->ws, 0, sizeof m->ws);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether binding b may be renumbered: not with dropout keys or remote rows (their numbers are
 * another graph's), and as the model's order asks. */
static int may_order(const gat_model *m, const gat_i_binding *b)
{
    return !b->remote && !b->rkey && !b->xkey && !b->ekey &&
           gat_i_order_considered(b->g, m->order);
}

/* Makes ex (b's graph's (E, D) rows, or NULL) the edge features of the renumbered binding: its
 * copy in pg's edge order. GAT_ENOMEM leaves none. */
static gat_status order_edges(gat_model *m, const gat_real *ex)
{
    const size_t D = (size_t)m->cfg.edge_dim, E = (size_t)m->ws.pg.nnz;
    gat_free(m->ws.pex);
    m->ws.pex = NULL;
    if (!ex) return GAT_OK;
    if (!(m->ws.pex = gat_malloc(E * D > 0 ? E * D : 1, sizeof *m->ws.pex))) return GAT_ENOMEM;
    for (size_t e = 0; e < E; e++)
        memcpy(m->ws.pex + e * D, ex + (size_t)m->ws.edge_of[e] * D, D * sizeof *ex);
    return GAT_OK;
}

/* The order the binding of b uses, and for a method the renumbered inputs pg, px (with the edge
 * map and edge features) and what maps results back. On failure nothing of it is left. */
static gat_status make_order(gat_model *m, const gat_i_binding *b)
{
    gat_status st;
    const double t0 = now();
    drop_order(m);
    gat_order use;
    if (!may_order(m, b)) return GAT_OK;
    const gat_graph *g = b->g;
    const size_t n = (size_t)g->n, C = (size_t)m->cfg.classes, E = (size_t)g->nnz;
    if (!(m->ws.perm = gat_malloc(n, sizeof *m->ws.perm))) return GAT_ENOMEM;
    if ((st = gat_i_order_pick(g, m->order, m->ws.perm, &use)) != GAT_OK) goto fail;
    if (use == GAT_ORDER_NONE) { /* auto kept the caller's order: what deciding cost */
        drop_order(m);
        m->ws.order_seconds = now() - t0;
        return GAT_OK;
    }
    st = GAT_ENOMEM;
    if (!(m->ws.iperm = gat_malloc(n, sizeof *m->ws.iperm)) || !(m->ws.mark = gat_calloc(n, 1)) ||
        !(m->ws.rows = gat_malloc(n, sizeof *m->ws.rows)) ||
        !(m->ws.dl = gat_malloc(n * C, sizeof *m->ws.dl)) ||
        !(m->ws.edge_of = gat_malloc(E ? E : 1, sizeof *m->ws.edge_of)))
        goto fail;
    for (size_t k = 0; k < n; k++)
        m->ws.iperm[m->ws.perm[k]] = (gat_idx)k;
    if ((st = gat_i_renumber(g, b->x, m->ws.perm, &m->ws.pg, &m->ws.px, m->ws.edge_of)) !=
            GAT_OK ||
        (st = order_edges(m, b->ex)) != GAT_OK)
        goto fail;
    m->ws.order = use;
    m->ws.order_seconds = now() - t0;
    return GAT_OK;
fail:
    drop_order(m);
    return st;
}

/* The engine's view of the bound value: the renumbered inputs when there is an order; a sampled
 * block's hops, which hold in its own numbering only, without one. */
static void engine_view(gat_model *m)
{
    m->ws.eb = m->ws.b;
    m->ws.eb.rows = NULL, m->ws.eb.n_rows = 0;
    if (m->ws.order == GAT_ORDER_NONE) return;
    m->ws.eb.hop_end = NULL, m->ws.eb.hops = 0;
    m->ws.eb.g = &m->ws.pg;
    m->ws.eb.x = &m->ws.px;
    m->ws.eb.ex = m->ws.pex;
}

/* Whether g and x are the inputs the caches were built for: the same structs, arrays and sizes.
 * Reading x->rowptr[x->rows] is safe then: that rowptr was checked with that row count. */
static int same_inputs(const gat_model *m, const gat_graph *g, const gat_csr *x)
{
    return m->ws.fast && m->ws.b.g == g && m->ws.b.x == x && m->ws.n == g->n &&
           m->ws.nnz == g->nnz && m->ws.arrays[0] == g->rowptr && m->ws.arrays[1] == g->col &&
           m->ws.arrays[2] == x->rowptr && m->ws.arrays[3] == x->col &&
           m->ws.arrays[4] == x->val && m->ws.xnnz == x->rowptr[x->rows];
}

/* Whether b is the bound value but for its output rows and flags. */
static int is_bound(const gat_model *m, const gat_i_binding *b)
{
    const gat_i_binding *o = &m->ws.b;
    const gat_real *ex = m->cfg.edge_dim > 0 ? b->ex : NULL;
    return same_inputs(m, b->g, b->x) && o->ex == ex && o->rkey == b->rkey &&
           o->xkey == b->xkey && o->ekey == b->ekey && o->tekey == b->tekey &&
           o->remote == b->remote && o->hop_end == b->hop_end && o->hops == b->hops;
}

static void key_inputs(gat_model *m, const gat_graph *g, const gat_csr *x)
{
    m->ws.n = g->n;
    m->ws.nnz = g->nnz;
    m->ws.xnnz = x->rowptr[x->rows];
    m->ws.arrays[0] = g->rowptr;
    m->ws.arrays[1] = g->col;
    m->ws.arrays[2] = x->rowptr;
    m->ws.arrays[3] = x->col;
    m->ws.arrays[4] = x->val;
}

/* GAT_ENUMERIC naming the first NaN or Inf of edge features ex (E, D) (fn starts the message). */
static gat_status check_edges(const gat_real *ex, size_t E, gat_idx D, const char *fn)
{
    const size_t n = E * (size_t)D;
    for (size_t k = 0; k < n; k++)
        if (!isfinite(ex[k]))
            return gat_i_error(GAT_ENUMERIC, "%s: edge_x of edge %zu, column %zu is %g", fn,
                               k / (size_t)D, k % (size_t)D, (double)ex[k]);
    return GAT_OK;
}

gat_status gat_i_model_check_inputs(const gat_model *m, const gat_graph *g, const gat_csr *x,
                                    const gat_real *ex, const char *fn)
{
    gat_status st;
    char what[64];
    if (x->rows != g->n)
        return gat_i_error(GAT_EDIM, "%s: features have %d rows but the graph has %d nodes", fn,
                           x->rows, g->n);
    if (x->cols != m->cfg.in_features)
        return gat_i_error(GAT_EDIM, "%s: features have %d columns but the model expects %d", fn,
                           x->cols, m->cfg.in_features);
    /* a zeroed graph or matrix is a valid empty one, but the kernels read rowptr[0] */
    if (!g->rowptr || !x->rowptr)
        return gat_i_error(GAT_EINVAL,
                           "%s: %s has a NULL rowptr (build it with a gat_graph_from_* "
                           "or gat_csr_* call)",
                           fn, !g->rowptr ? "graph g" : "features x");
    snprintf(what, sizeof what, "%s: features x", fn);
    if ((st = gat_i_graph_check(g, fn)) != GAT_OK ||
        (st = gat_i_csr_check_matrix(x, what)) != GAT_OK)
        return st;
    if (ex && m->cfg.edge_dim > 0)
        return check_edges(ex, (size_t)g->nnz, m->cfg.edge_dim, fn);
    return GAT_OK;
}

/* Builds every cache derived from checked binding b, in the memory already allocated when its
 * layout fits in it (zeroed: rows a restricted forward skips must hold finite values for
 * backward, and nothing of earlier inputs may remain), else in a new allocation. On failure m is
 * left unbound. */
static gat_status rebuild(gat_model *m, const gat_i_binding *b)
{
    gat_status st;
    int done = 0;
    m->ws.b = *b;
    m->ws.b.rows = NULL, m->ws.b.n_rows = 0;
    if (m->cfg.edge_dim == 0) m->ws.b.ex = NULL;
    m->ws.trained = m->ws.ran = 0;
    if ((st = make_order(m, &m->ws.b)) != GAT_OK) goto fail;
    engine_view(m);
    if (m->ws.fast && (st = gat_i_fast_rebind(m->ws.fast, &m->ws.eb, m->threads, &done)) != GAT_OK)
        goto fail;
    if (!done) {
        /* outgrown (not a first binding, nor one sized exactly): room to grow */
        const int grow = m->ws.fast && !(m->ws.eb.flags & GAT_BIND_EXACT);
        gat_i_fast_free(m->ws.fast);
        m->ws.fast = NULL;
        if ((st = gat_i_fast_create(&m->ws.fast, m->fused, &m->cfg.options, m->n_layers, m->L,
                                    &m->ws.eb, m->threads, grow)) != GAT_OK)
            goto fail;
    }
    key_inputs(m, b->g, b->x);
    m->ws.threads = m->threads;
    m->ws.lean = gat_i_fast_lean(m->ws.fast);
    return GAT_OK;
fail:
    gat_i_model_unbind(m);
    return st;
}

gat_status gat_i_model_bind(gat_model *m, const gat_i_binding *b, const char *fn)
{
    gat_status st;
    /* a remote row's dropped projections would have to come from its owner with z */
    if (b->remote && m->cfg.proj_dropout > 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: proj_dropout (%g) is not supported with remote rows "
                           "(partitioned training)",
                           fn, m->cfg.proj_dropout);
    if (!(b->flags & GAT_I_BIND_TRUSTED) &&
        (st = gat_i_model_check_inputs(m, b->g, b->x, b->ex, fn)) != GAT_OK)
        return st;
    return rebuild(m, b);
}

gat_status gat_model_bind(gat_model *m, const gat_graph *g, const gat_csr *x, unsigned flags)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_model_bind", 3, (const void *[]){m, g, x},
                               (const char *[]){"model m", "graph g", "features x"})) != GAT_OK)
        return st;
    const unsigned known = GAT_BIND_EXACT | GAT_BIND_INFERENCE | GAT_BIND_INPUT_GRADIENT;
    if (flags & ~known)
        return gat_i_error(GAT_EINVAL,
                           "gat_model_bind: unknown flags 0x%x (expected 0 or GAT_BIND_EXACT, "
                           "GAT_BIND_INFERENCE, GAT_BIND_INPUT_GRADIENT combined)",
                           flags & ~known);
    return gat_i_model_bind(m, &(gat_i_binding){.g = g, .x = x, .flags = flags},
                            "gat_model_bind");
}

gat_status gat_model_bind_edge_features(gat_model *m, const gat_real *edge_x, gat_idx D)
{
    const char *fn = "gat_model_bind_edge_features";
    gat_status st;
    gat_i_clear_error();
    if (!m) return gat_i_error(GAT_EINVAL, "%s: NULL model m", fn);
    /* a failure leaves no edge features; as any binding, this invalidates the last forward
     * (backward would mix old caches and new rows) */
    m->ws.b.ex = m->ws.eb.ex = NULL;
    gat_free(m->ws.pex);
    m->ws.pex = NULL;
    m->ws.trained = m->ws.ran = 0;
    if (D < 0) return gat_i_error(GAT_EINVAL, "%s: D must be >= 0, got %d", fn, D);
    if (D != m->cfg.edge_dim)
        return gat_i_error(GAT_EDIM,
                           "%s: the model was trained with edge_dim %d but the graph "
                           "has %d edge feature columns",
                           fn, m->cfg.edge_dim, D);
    if (D == 0) return GAT_OK;
    if (!edge_x) return gat_i_error(GAT_EINVAL, "%s: edge_x is NULL but D = %d", fn, D);
    if (!m->ws.fast)
        return gat_i_error(GAT_EINVAL, "%s: nothing is bound (call gat_model_bind first)", fn);
    if ((st = check_edges(edge_x, (size_t)m->ws.nnz, D, fn)) != GAT_OK) return st;
    if (m->ws.order != GAT_ORDER_NONE && (st = order_edges(m, edge_x)) != GAT_OK) return st;
    m->ws.b.ex = edge_x;
    m->ws.eb.ex = m->ws.order != GAT_ORDER_NONE ? m->ws.pex : edge_x;
    return GAT_OK;
}

gat_status gat_i_model_check_edge_dim(const gat_model *m, gat_idx D)
{
    if (m->cfg.edge_dim == 0 || D == m->cfg.edge_dim) return GAT_OK;
    return gat_i_error(GAT_EDIM,
                       "the model was trained with edge_dim %d but the graph has %d "
                       "edge feature columns",
                       m->cfg.edge_dim, D);
}

/* ---- forward / backward ---- */

void gat_i_model_resolve_run(gat_model *m, const gat_i_run *run, gat_i_fast_run *out)
{
    if (run->training) m->step = run->step ? run->step : m->step + 1;
    const uint64_t step = run->step ? run->step : m->step;
    *out = (gat_i_fast_run){.training = run->training,
                            .key = gat_i_hash64(m->seed, step),
                            .in_p = run->set_dropout ? run->in_p : m->cfg.in_dropout,
                            .att_p = run->set_dropout ? run->att_p : m->cfg.att_dropout,
                            .slope = m->cfg.negative_slope,
                            .nt = m->threads,
                            .hook = run->hook,
                            .hook_user = run->hook_user};
}

/* The binding the engine runs this forward on: its view of the bound inputs (b's hops, which
 * is_bound checked) with b's output rows (in the engine's numbering, ascending). */
static gat_i_binding engine_rows(gat_model *m, const gat_i_binding *b)
{
    gat_i_binding e = m->ws.eb;
    e.rows = b->rows, e.n_rows = b->rows ? b->n_rows : 0;
    if (m->ws.order == GAT_ORDER_NONE || !b->rows) return e;
    for (gat_idx q = 0; q < b->n_rows; q++) /* mark them, then collect */
        m->ws.mark[m->ws.iperm[b->rows[q]]] = 1;
    gat_idx c = 0;
    for (gat_idx k = 0; k < m->ws.pg.n; k++)
        if (m->ws.mark[k]) m->ws.mark[k] = 0, m->ws.rows[c++] = k;
    e.rows = m->ws.rows;
    e.n_rows = c;
    return e;
}

gat_status gat_i_model_forward(gat_model *m, const gat_i_binding *b, const gat_i_run *run,
                               const gat_real **logits)
{
    gat_status st = GAT_OK;
    if (m->cfg.edge_dim > 0 && !b->ex)
        return gat_i_error(GAT_EDIM,
                           "gat_model_forward: the model was trained with edge_dim %d but the "
                           "graph has 0 edge feature columns",
                           m->cfg.edge_dim);
    if (!is_bound(m, b)) {
        gat_i_binding nb = *b;
        if (run->training) nb.flags &= ~(unsigned)GAT_BIND_INFERENCE;
        st = gat_i_model_bind(m, &nb, "gat_model_forward");
    } else if (m->ws.threads < m->threads || (run->training && m->ws.lean)) {
        /* the per-thread scratch grows; a training forward needs a training binding; an
         * inference binding stays one for inference */
        gat_i_binding same = m->ws.b;
        if (run->training) same.flags &= ~(unsigned)GAT_BIND_INFERENCE;
        st = rebuild(m, &same);
    }
    if (st != GAT_OK) return st;
    m->ws.ran = 1;
    gat_i_fast_run fr;
    gat_i_model_resolve_run(m, run, &fr);
    const gat_i_binding e = engine_rows(m, b);
    gat_i_fast_forward(m->ws.fast, m->blob, &e, &fr);
    m->ws.fwd++;
    m->ws.trained = run->training;
    if (!(*logits = output_view(m, m->n_layers - 1))) return GAT_ENOMEM;
    return GAT_OK;
}

gat_status gat_model_forward(gat_model *m, const gat_graph *g, const gat_csr *x, int training,
                             const gat_real **logits)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_model_forward", 4, (const void *[]){m, g, x, logits},
                               (const char *[]){"model m", "graph g", "features x", "logits"})) !=
        GAT_OK)
        return st;
    if (x->rows != g->n)
        return gat_i_error(GAT_EDIM, "features have %d rows but the graph has %d nodes", x->rows,
                           g->n);
    if (x->cols != m->cfg.in_features)
        return gat_i_error(GAT_EDIM, "features have %d columns but the model expects %d", x->cols,
                           m->cfg.in_features);
    /* checked before binding anything: other inputs would drop the bound edge features */
    const int same = same_inputs(m, g, x);
    if (m->cfg.edge_dim > 0 && !(same && m->ws.b.ex))
        return gat_i_error(GAT_EDIM,
                           "gat_model_forward: the model was trained with edge_dim %d "
                           "but the graph has 0 edge feature columns (bind them with "
                           "gat_model_bind_edge_features)",
                           m->cfg.edge_dim);
    /* the caller's inputs: the bound ones with their edge features, or new ones to bind */
    const gat_i_binding b = {.g = g, .x = x, .ex = same ? m->ws.b.ex : NULL};
    return gat_i_model_forward(m, &b, &(gat_i_run){.training = training}, logits);
}

gat_status gat_i_model_backward(gat_model *m, const gat_real *dlogits, const gat_i_run *run)
{
    if (!m->ws.fast || !m->ws.trained)
        return gat_i_error(GAT_EINVAL,
                           "gat_model_backward: the last forward was not a training forward");
    if (m->ws.order != GAT_ORDER_NONE) {
        const size_t C = (size_t)m->cfg.classes;
        for (size_t k = 0; k < (size_t)m->ws.pg.n; k++)
            memcpy(m->ws.dl + k * C, dlogits + (size_t)m->ws.perm[k] * C, C * sizeof *dlogits);
        dlogits = m->ws.dl;
    }
    gat_i_fast_backward(m->ws.fast, m->blob, m->blob + m->n_params, dlogits, m->threads,
                        run ? run->hook : NULL, run ? run->hook_user : NULL);
    return GAT_OK;
}

gat_status gat_model_backward(gat_model *m, const gat_real *dlogits)
{
    gat_i_clear_error();
    if (!m || !dlogits)
        return gat_i_error(GAT_EINVAL, "gat_model_backward: NULL %s", !m ? "model m" : "dlogits");
    return gat_i_model_backward(m, dlogits, NULL);
}
