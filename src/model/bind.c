/* A model's binding of a graph and features to the engine's caches (model/fast.c): the checks,
 * the node order for locality and the renumbered inputs, edge features, the rebuild in place;
 * forward and backward on it, and the outputs in the caller's numbering. */
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

/* A renumbered binding's edge map: edge e of pg is edge edge_of[e] of the caller's graph; made
 * on first need (NULL on allocation failure). g is the caller's graph (m->ws.g, or the one being
 * bound). */
static const gat_idx *edge_map(gat_model *m, const gat_graph *g)
{
    if (!m->ws.edge_of) {
        gat_graph tmp;
        const size_t E = (size_t)m->ws.pg.nnz;
        if (!(m->ws.edge_of = gat_malloc(E ? E : 1, sizeof *m->ws.edge_of))) return NULL;
        /* the renumbering again, this time keeping where each edge came from */
        if (gat_graph_permute(&tmp, g, m->ws.perm, m->ws.edge_of) != GAT_OK) {
            gat_free(m->ws.edge_of);
            m->ws.edge_of = NULL;
            return NULL;
        }
        gat_graph_destroy(&tmp);
    }
    return m->ws.edge_of;
}

static const gat_real *alpha_view(gat_model *m, int l)
{
    const gat_real *a = gat_i_fast_alpha(m->ws.fast, l); /* may allocate (gat_i_fast_alpha) */
    if (!a || m->ws.order == GAT_ORDER_NONE) return a;
    const size_t H = (size_t)m->L[l].heads, E = (size_t)m->ws.pg.nnz;
    if (!edge_map(m, m->ws.g)) return NULL;
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
    gat_free(m->ws.mark);
    gat_free(m->ws.rows);
    gat_free(m->ws.dl);
    for (int l = 0; l < GAT_MAX_LAYERS; l++) {
        gat_free(m->ws.view[l]);
        gat_free(m->ws.aview[l]);
        m->ws.view[l] = m->ws.aview[l] = NULL;
        m->ws.view_at[l] = m->ws.aview_at[l] = 0;
    }
    m->ws.perm = m->ws.iperm = m->ws.edge_of = m->ws.rows = NULL;
    m->ws.mark = NULL;
    m->ws.dl = NULL;
    m->ws.order = GAT_ORDER_NONE;
    m->ws.order_seconds = 0;
}

void gat_i_model_unbind(gat_model *m)
{
    drop_order(m);
    gat_free(m->ws.pex);
    gat_i_fast_free(m->ws.fast);
    memset(&m->ws, 0, sizeof m->ws);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The order the binding of g uses, and for a method the renumbered inputs pg, px and what maps
 * results back. On failure nothing of it is left. */
static gat_status make_order(gat_model *m, const gat_graph *g, const gat_csr *x)
{
    gat_status st;
    const double t0 = now();
    drop_order(m);
    gat_order use;
    if (!gat_i_order_considered(g, m->order)) return GAT_OK;
    const size_t n = (size_t)g->n, C = (size_t)m->cfg.classes;
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
        !(m->ws.dl = gat_malloc(n * C, sizeof *m->ws.dl)))
        goto fail;
    for (size_t k = 0; k < n; k++)
        m->ws.iperm[m->ws.perm[k]] = (gat_idx)k;
    if ((st = gat_graph_permute(&m->ws.pg, g, m->ws.perm, NULL)) != GAT_OK ||
        (st = gat_i_csr_permute_rows(x, m->ws.perm, &m->ws.px)) != GAT_OK)
        goto fail;
    m->ws.order = use;
    m->ws.order_seconds = now() - t0;
    return GAT_OK;
fail:
    drop_order(m);
    return st;
}

/* Whether g and x are the inputs the caches were built for: the same structs, arrays and sizes.
 * Reading x->rowptr[x->rows] is safe then: that rowptr was checked with that row count. */
static int same_inputs(const gat_model *m, const gat_graph *g, const gat_csr *x)
{
    return m->ws.g == g && m->ws.x == x && m->ws.n == g->n && m->ws.nnz == g->nnz &&
           m->ws.arrays[0] == g->rowptr && m->ws.arrays[1] == g->col &&
           m->ws.arrays[2] == x->rowptr && m->ws.arrays[3] == x->col && m->ws.arrays[4] == x->val &&
           m->ws.xnnz == x->rowptr[x->rows];
}

static void key_inputs(gat_model *m, const gat_graph *g, const gat_csr *x)
{
    m->ws.g = g;
    m->ws.x = x;
    m->ws.n = g->n;
    m->ws.nnz = g->nnz;
    m->ws.xnnz = x->rowptr[x->rows];
    m->ws.arrays[0] = g->rowptr;
    m->ws.arrays[1] = g->col;
    m->ws.arrays[2] = x->rowptr;
    m->ws.arrays[3] = x->col;
    m->ws.arrays[4] = x->val;
}

/* The checks of a binding (fn names the public call in the messages): sizes against each other
 * and the model, then g and x themselves, O(n + E + nnz(x)), before anything reads them. */
static gat_status check_inputs(const gat_model *m, const gat_graph *g, const gat_csr *x,
                               const char *fn)
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
    return GAT_OK;
}

/* Builds every cache derived from checked inputs g and x, in the memory already allocated when
 * their layout fits in it (zeroed: rows a restricted forward skips must hold finite values for
 * backward, and nothing of earlier inputs may remain), else in a new allocation, and attaches
 * edge_x (g's edge features, checked, or NULL: none). On failure m is left unbound. */
/* Makes ex (the caller's (E, D) rows of g, the graph being bound, or NULL) the binding's edge
 * features: the engine reads them as they are, or a renumbered binding its copy in pg's edge
 * order. On failure (GAT_ENOMEM) the binding has none. */
static gat_status attach_edges(gat_model *m, const gat_graph *g, const gat_real *ex)
{
    const size_t D = (size_t)m->cfg.edge_dim;
    gat_free(m->ws.pex);
    m->ws.pex = NULL;
    m->ws.ex = NULL;
    if (m->ws.fast) gat_i_fast_set_edges(m->ws.fast, NULL);
    if (!ex || !m->ws.fast) return GAT_OK;
    const gat_real *use = ex;
    if (m->ws.order != GAT_ORDER_NONE) {
        const size_t E = (size_t)m->ws.pg.nnz;
        const gat_idx *map = edge_map(m, g);
        if (!map || !(m->ws.pex = gat_malloc(E * D > 0 ? E * D : 1, sizeof *m->ws.pex)))
            return GAT_ENOMEM;
        for (size_t e = 0; e < E; e++)
            memcpy(m->ws.pex + e * D, ex + (size_t)map[e] * D, D * sizeof *ex);
        use = m->ws.pex;
    }
    m->ws.ex = ex;
    gat_i_fast_set_edges(m->ws.fast, use);
    return GAT_OK;
}

static gat_status rebuild(gat_model *m, const gat_graph *g, const gat_csr *x, unsigned flags,
                          const gat_real *edge_x)
{
    /* a binding with remote rows is a training binding */
    const gat_idx lean = (flags & GAT_BIND_INFERENCE) && !m->remote ? m->lean_chunk : 0;
    gat_status st;
    gat_i_fast_layer FL[GAT_MAX_LAYERS];
    m->ws.g = NULL; /* unbound until the end */
    m->ws.x = NULL;
    m->ws.trained = m->ws.ran = 0;
    gat_i_model_layers(m, FL);
    if ((st = make_order(m, g, x)) != GAT_OK) {
        gat_i_model_unbind(m);
        return st;
    }
    /* the engine runs on the renumbered inputs when there is an order */
    const gat_graph *eg = g;
    const gat_csr *ex = x;
    if (m->ws.order != GAT_ORDER_NONE) eg = &m->ws.pg, ex = &m->ws.px;
    /* the engine rebuilds its caches in its own memory when the inputs fit there */
    int done = 0;
    if (m->ws.fast && (st = gat_i_fast_rebind(m->ws.fast, eg, ex, (flags & GAT_BIND_EXACT) != 0,
                                              m->threads, lean, m->remote, &done)) != GAT_OK) {
        gat_i_model_unbind(m);
        return st;
    }
    if (!done) {
        gat_i_fast_free(m->ws.fast);
        m->ws.fast = NULL;
        if ((st = gat_i_fast_create(&m->ws.fast, m->fused, &m->cfg.options, m->n_layers, FL, eg, ex,
                                    m->threads, lean, m->remote)) != GAT_OK) {
            gat_i_model_unbind(m);
            return st;
        }
    }
    if ((st = attach_edges(m, g, edge_x)) != GAT_OK) {
        gat_i_model_unbind(m);
        return st;
    }
    key_inputs(m, g, x);
    m->ws.threads = m->threads;
    m->ws.lean = lean > 0;
    return GAT_OK;
}

gat_status gat_model_bind(gat_model *m, const gat_graph *g, const gat_csr *x, unsigned flags)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_model_bind", 3, (const void *[]){m, g, x},
                               (const char *[]){"model m", "graph g", "features x"})) != GAT_OK)
        return st;
    if (flags & ~(unsigned)(GAT_BIND_EXACT | GAT_BIND_INFERENCE))
        return gat_i_error(GAT_EINVAL,
                           "gat_model_bind: unknown flags 0x%x (expected 0, "
                           "GAT_BIND_EXACT, GAT_BIND_INFERENCE or both)",
                           flags & ~(unsigned)(GAT_BIND_EXACT | GAT_BIND_INFERENCE));
    if ((st = check_inputs(m, g, x, "gat_model_bind")) != GAT_OK) return st;
    return rebuild(m, g, x, flags, NULL);
}

gat_status gat_model_bind_edge_features(gat_model *m, const gat_real *edge_x, gat_idx D)
{
    const char *fn = "gat_model_bind_edge_features";
    gat_i_clear_error();
    if (!m) return gat_i_error(GAT_EINVAL, "%s: NULL model m", fn);
    /* a failure leaves no edge features (attach_edges with NULL allocates nothing); as any
     * binding, this invalidates the last forward (backward would mix old caches and new rows) */
    (void)attach_edges(m, m->ws.g, NULL);
    m->ws.trained = m->ws.ran = 0;
    if (D < 0) return gat_i_error(GAT_EINVAL, "%s: D must be >= 0, got %d", fn, D);
    if (D != m->cfg.edge_dim)
        return gat_i_error(GAT_EDIM,
                           "%s: the model was trained with edge_dim %d but the graph "
                           "has %d edge feature columns",
                           fn, m->cfg.edge_dim, D);
    if (D == 0) return GAT_OK;
    if (!edge_x) return gat_i_error(GAT_EINVAL, "%s: edge_x is NULL but D = %d", fn, D);
    if (!m->ws.fast || !m->ws.g)
        return gat_i_error(GAT_EINVAL, "%s: nothing is bound (call gat_model_bind first)", fn);
    const size_t n = (size_t)m->ws.nnz * (size_t)D;
    for (size_t k = 0; k < n; k++)
        if (!isfinite(edge_x[k]))
            return gat_i_error(GAT_ENUMERIC, "%s: edge_x of edge %zu, column %zu is %g", fn,
                               k / (size_t)D, k % (size_t)D, (double)edge_x[k]);
    return attach_edges(m, m->ws.g, edge_x);
}

gat_status gat_i_model_check_edge_dim(const gat_model *m, gat_idx D)
{
    if (m->cfg.edge_dim == 0 || D == m->cfg.edge_dim) return GAT_OK;
    return gat_i_error(GAT_EDIM,
                       "the model was trained with edge_dim %d but the graph has %d "
                       "edge feature columns",
                       m->cfg.edge_dim, D);
}

gat_status gat_i_model_bind_edges_of(gat_model *m, const gat_graph *g, const gat_csr *x,
                                     const gat_real *ex, gat_idx D, unsigned flags)
{
    gat_status st;
    const int lean = (flags & GAT_BIND_INFERENCE) != 0, edges = m->cfg.edge_dim > 0;
    if ((st = gat_i_model_check_edge_dim(m, D)) != GAT_OK) return st;
    if (!edges && !lean) return GAT_OK;
    if (m->ws.fast && same_inputs(m, g, x) && (!lean || m->ws.lean) &&
        (!edges || (ex && m->ws.ex == ex)))
        return GAT_OK;
    if ((st = gat_model_bind(m, g, x, flags)) != GAT_OK) return st;
    return edges ? gat_model_bind_edge_features(m, ex, D) : GAT_OK;
}

/* Before a forward: binds g and x unless they are the bound inputs (then nothing is checked or
 * rebuilt: every training epoch on the same inputs), and re-lays the caches out
 * when the thread count rose since (the per-thread scratch grows). */
static gat_status prepare(gat_model *m, const gat_graph *g, const gat_csr *x, int training)
{
    gat_status st = GAT_OK;
    /* a binding made for other remote rows (or none) is made again */
    const int same =
        m->ws.fast && same_inputs(m, g, x) && gat_i_fast_remote(m->ws.fast) == m->remote;
    if (!same) st = check_inputs(m, g, x, "gat_model_forward");
    /* an inference binding stays one for inference; training binds the same inputs again with
     * the caches backward needs; new inputs drop the edge features */
    if (st == GAT_OK && (!same || m->ws.threads < m->threads || (training && m->ws.lean)))
        st = rebuild(m, g, x, same && m->ws.lean && !training ? GAT_BIND_INFERENCE : 0,
                     same ? m->ws.ex : NULL);
    if (st == GAT_OK) m->ws.ran = 1;
    return st;
}

/* ---- forward / backward ---- */

void gat_i_model_next_run(gat_model *m, int training, gat_i_fast_run *run)
{
    if (training) m->step++;
    *run = (gat_i_fast_run){.training = training,
                            .key = gat_i_hash64(m->seed, m->step),
                            .in_p = m->in_p,
                            .att_p = m->att_p,
                            .slope = m->cfg.negative_slope,
                            .rows = m->out_rows,
                            .n_rows = m->n_out_rows,
                            .nt = m->threads,
                            .hook = m->hook,
                            .hook_user = m->hook_user,
                            .xkey = m->xkey,
                            .ekey = m->ekey,
                            .tekey = m->tekey,
                            .rkey = m->rkey};
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
    if (m->cfg.edge_dim > 0 && !(m->ws.fast && same_inputs(m, g, x) && m->ws.ex))
        return gat_i_error(GAT_EDIM,
                           "gat_model_forward: the model was trained with edge_dim %d "
                           "but the graph has 0 edge feature columns (bind them with "
                           "gat_model_bind_edge_features)",
                           m->cfg.edge_dim);
    if ((st = prepare(m, g, x, training)) != GAT_OK) return st;
    gat_i_fast_run run;
    gat_i_model_next_run(m, training, &run);
    if (m->ws.order != GAT_ORDER_NONE && run.rows) {
        /* the output rows in the engine's numbering, ascending: mark them, then collect */
        for (gat_idx q = 0; q < run.n_rows; q++)
            m->ws.mark[m->ws.iperm[run.rows[q]]] = 1;
        gat_idx c = 0;
        for (gat_idx k = 0; k < g->n; k++)
            if (m->ws.mark[k]) m->ws.mark[k] = 0, m->ws.rows[c++] = k;
        run.rows = m->ws.rows;
        run.n_rows = c;
    }
    gat_i_fast_forward(m->ws.fast, m->blob, &run);
    m->ws.fwd++;
    m->ws.trained = training;
    if (!(*logits = output_view(m, m->n_layers - 1))) return GAT_ENOMEM;
    return GAT_OK;
}

gat_status gat_model_backward(gat_model *m, const gat_real *dlogits)
{
    gat_i_clear_error();
    if (!m || !dlogits)
        return gat_i_error(GAT_EINVAL, "gat_model_backward: NULL %s", !m ? "model m" : "dlogits");
    if (!m->ws.fast || !m->ws.trained)
        return gat_i_error(GAT_EINVAL,
                           "gat_model_backward: the last forward was not a training forward");
    if (m->ws.order != GAT_ORDER_NONE) {
        const size_t C = (size_t)m->cfg.classes;
        for (size_t k = 0; k < (size_t)m->ws.pg.n; k++)
            memcpy(m->ws.dl + k * C, dlogits + (size_t)m->ws.perm[k] * C, C * sizeof *dlogits);
        dlogits = m->ws.dl;
    }
    gat_i_fast_backward(m->ws.fast, m->blob, m->blob + m->n_params, dlogits, m->threads, m->hook,
                        m->hook_user);
    return GAT_OK;
}
