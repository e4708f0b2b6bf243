/* Private: the engine of a GAT model (fast.c), used for every model. It owns the caches for one
 * graph and feature matrix, runs the layer loop on the fused kernels (layers/fused.h) and sums
 * their per-chunk partial gradients. Results do not depend on the thread count; dropout masks are
 * the same streams as the tests' layer-by-layer reference model's (tests/ref/loop.c). */
#ifndef GAT_I_FAST_H
#define GAT_I_FAST_H

#include "gat/model.h"
#include "layers/fused.h"

/* One layer's shape and where its tensors sit in the parameter (and gradient) buffer. */
typedef struct gat_i_fast_layer {
    gat_idx fin, fo, width;    /* input width, per-head width, output width */
    int heads, mean;           /* mean: output layer (heads averaged, no ELU) */
    gat_score score;           /* every layer of a model has the same */
    size_t w, a_src, a_dst, b; /* offsets of W (fin, heads*fo), a_src, a_dst (heads, fo), b */
    size_t wq, wk, att, theta; /* other scores (gat/model.h): the query and key projections
                                * (fin, heads*fo) where the score has them, gatv2's att (heads,
                                * fo), cosine's beta or gaussian's log sigma (heads) */
    int residual;              /* 0 none; 1 x_d R with R (fin, width) at offset res; 2 x_d
                                * (identity, fin == width) */
    size_t res;
    gat_idx edge_dim; /* D > 0 (gat, gatv2): the edge term, W_e (D, heads*fo) at offset
                       * we and (gat) a_edge (heads, fo) at ae (gat/model.h) */
    size_t we, ae;
    /* the reference code's dropout placement (gat_model_config.head_dropout, proj_dropout;
     * gat_i_fl.head_drop, pdrop): a mask per head on the input, and the dropout probability of
     * the projections before aggregation (0: none) */
    int head_drop;
    double proj_p;
} gat_i_fast_layer;

/* What one forward does. */
/* Called after each layer of a forward (backward == 0) or a backward (backward == 1), on the
 * caller's thread between kernel passes: progress reports (gat_train_config.stage). */
typedef void (*gat_i_layer_hook)(void *user, int backward, int layer);

typedef struct gat_i_fast_run {
    int training; /* dropout on, caches kept for backward */
    uint64_t key; /* dropout key of this step (layer l uses hash(key, 4 l)) */
    double in_p, att_p, slope;
    const gat_idx *rows; /* last layer: only these rows (ascending), or NULL */
    gat_idx n_rows;
    int nt;                /* threads */
    gat_i_layer_hook hook; /* optional, with hook_user */
    void *hook_user;
    const int64_t *xkey, *ekey, *tekey; /* dropout keys (gat_i_fl), or NULL */
    const gat_idx *rkey;
} gat_i_fast_run;

typedef struct gat_i_fast gat_i_fast;

/* Remote rows: a binding whose rows n_own .. N - 1 belong to other bindings (a partition's halo,
 * dist.c). They are sources only (no in-edges): neither projected nor attended here, their
 * projections are filled in by the caller after each projection pass, and in backward their
 * projection gradients go back to the caller, who returns to each own row the gradients other
 * bindings computed for it. Only rows 0 .. n_own - 1 hold outputs, logits and gradients (the
 * target-side caches are n_own rows); restricted forwards (run->rows) restrict own rows only,
 * with the other bindings (agree, need below). */
typedef struct gat_i_remote_io {
    int layer;
    gat_idx hw; /* row widths: z and k (N, hw), s_src and qinv (N, H) */
    int H;
    /* forward: the caller writes rows n_own .. N - 1 of each non-NULL array (s_src: gat; k: a
     * separate key projection; qinv: cosine), as their owners computed them. backward: rows
     * n_own .. N - 1 of z (and k) hold the gradients of those rows' z (and k) */
    gat_real *z, *s_src, *k, *qinv;
    /* backward, set by the caller: gradients (slots, hw) of the own rows' z (and k) that other
     * bindings computed, slot s of own row j as in gat_i_remote.add_ptr */
    const gat_real *add_z, *add_k;
} gat_i_remote_io;
typedef void (*gat_i_remote_fn)(void *user, int backward, gat_i_remote_io *io);
typedef struct gat_i_remote {
    gat_idx n_own;
    /* own row j's slots: add_slot[add_ptr[j] .. add_ptr[j + 1] - 1] (added in that order) */
    const gat_idx *add_ptr, *add_slot;
    /* called on the caller's thread after each layer's projection (forward: it may only start
     * the transfer) and after its remote rows' gradients (backward) */
    gat_i_remote_fn exchange;
    /* forward: the engine attends the own rows without remote sources, then calls finish (the
     * remote rows' arrays are filled on return), then attends the other rows */
    void (*finish)(void *user, gat_i_remote_io *io);
    /* Restricted forwards (run->rows): the bindings make their plans together; every binding
     * calls these in the same order, on the caller's thread at the start of a forward.
     * agree: v[0 .. 2] replaced by their maxima over the bindings.
     * need (layers from the last down): mark (N) flags the rows this binding's layer reads (own
     * and remote); the caller flags, in addition, the own rows that the other bindings' layer
     * reads as their remote rows. */
    void (*agree)(void *user, int64_t v[3]);
    void (*need)(void *user, int layer, uint8_t *mark);
    void *user;
} gat_i_remote;

/* Caches for graph g and features x (both borrowed; must outlive f) and kernel scratch for up to
 * nt threads (calls asking for more run nt). *out: NULL on failure. remote: NULL (no remote
 * rows), or the exchange of a binding with remote rows (borrowed; must outlive f; then
 * lean_chunk must be 0, rows remote->n_own .. of g must have no in-edges and of x no entries).
 * ops: the kernel set (the model's options.kernels); opt: the model's options (alpha storage,
 * fixed threads; read here, not kept). lean_chunk 0: a training binding (every
 * cache backward needs); lean_chunk > 0: an inference binding, for forwards without dropout only
 * (never backward): no backward scratch, one set of projection buffers shared by the layers and
 * per-edge arrays for lean_chunk edges (at least the largest in-degree), over which each layer's
 * attention runs in row chunks; the layers' outputs are kept, their attention coefficients are
 * not (gat_i_fast_alpha gives NULL). Memory O(N x the layers' widths + lean_chunk x heads).
 * Returns GAT_ENOMEM. */
gat_status gat_i_fast_create(gat_i_fast **out, const gat_i_fused_ops *ops,
                             const gat_model_options *opt, int n_layers, const gat_i_fast_layer *L,
                             const gat_graph *g, const gat_csr *x, int nt, gat_idx lean_chunk,
                             const gat_i_remote *remote);
/* Turns the thread governor off (on = 1: every call runs its nt threads) or on again
 * (gat_model_options.fixed_threads). */
void gat_i_fast_set_fixed_threads(gat_i_fast *f, int on);
void gat_i_fast_free(gat_i_fast *f);
/* The exchange f was made with (gat_i_fast_create, gat_i_fast_rebind), or NULL. */
const gat_i_remote *gat_i_fast_remote(const gat_i_fast *f);
/* Rebinds f to graph g and features x (borrowed; must outlive f) in its own memory when they fit
 * there (and take exactly its size if exact): *done = 1, every cache rebuilt, nothing
 * allocated unless x's transpose grows. Else *done = 0 and f is unchanged (free it and create
 * one). lean_chunk as in gat_i_fast_create: a binding may turn from one kind into the other.
 * Returns GAT_ENOMEM (the transpose; f is then unusable: free it). */
gat_status gat_i_fast_rebind(gat_i_fast *f, const gat_graph *g, const gat_csr *x, int exact, int nt,
                             gat_idx lean_chunk, const gat_i_remote *remote, int *done);
/* Whether f is an inference binding (lean_chunk > 0). */
int gat_i_fast_lean(const gat_i_fast *f);

/* Forward with params (the model's buffer); the logits are gat_i_fast_output(f, last). run->nt
 * (and backward's nt) is the most threads to use: a call runs one thread instead when timing
 * shows that faster (oversubscribed machine); results are the same either way. */
void gat_i_fast_forward(gat_i_fast *f, const gat_real *params, const gat_i_fast_run *run);
/* Backward of the last (training) forward from dlogits (N, C): ADDS into grads. hook: optional,
 * called after each layer with hook_user. */
void gat_i_fast_backward(gat_i_fast *f, const gat_real *params, gat_real *grads,
                         const gat_real *dlogits, int nt, gat_i_layer_hook hook, void *hook_user);

/* The edge features (E, D) of f's graph in its in-CSR order (borrowed; must outlive their use),
 * or NULL; a model with edge_dim > 0 sets them before every forward on a binding. */
void gat_i_fast_set_edges(gat_i_fast *f, const gat_real *ex);

/* Whether layer l keeps its per-edge attention arrays (a training binding: every score but gat
 * without edge features, and that one as options.alpha says: by default below a size, see
 * fast.c's ALPHA_STORE_BYTES). */
int gat_i_fast_keeps_alpha(const gat_i_fast *f, int l);

/* Threads the next call would use, of nt_max. */
int gat_i_fast_threads_in_use(const gat_i_fast *f, int nt_max);

/* Layer l's output (N rows, or n_own with remote rows; width) in the model's order, and its
 * alpha (E, heads) (NULL for an inference binding, and on allocation failure). A layer that
 * keeps no alpha (gat_i_fast_keeps_alpha) computes it on the first call after a forward into a
 * buffer made on first use, E x heads values, which f keeps until it is freed or rebound. */
const gat_real *gat_i_fast_output(const gat_i_fast *f, int l);
const gat_real *gat_i_fast_alpha(gat_i_fast *f, int l);

#endif
