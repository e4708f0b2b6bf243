/* Private: the engine of a GAT model (fast.c), used for every model. It owns the caches for one
 * graph and feature matrix, runs the layer loop on the fused kernels (layers/fused.h) and sums
 * their per-chunk partial gradients. Results do not depend on the thread count; dropout masks are
 * the same streams as the tests' layer-by-layer reference model's (tests/ref/loop.c). */
#ifndef GAT_I_FAST_H
#define GAT_I_FAST_H

#include "gat/model.h"
#include "layers/fused.h"
#include "binding.h"
#include "layer_i.h"

/* What one forward does, resolved by the model from a gat_i_run (model_i.h). */
typedef struct gat_i_fast_run {
    int training; /* dropout on, caches kept for backward */
    uint64_t key; /* dropout key of this step (layer l uses hash(key, 4 l)) */
    double in_p, att_p, slope;
    int nt;                /* threads */
    gat_i_layer_hook hook; /* optional, with hook_user */
    void *hook_user;
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
struct gat_i_remote {
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
};

/* Caches for binding b (the engine's view: its graph, features and remote rows are read here
 * and must outlive f; its rows, keys and edge features are read by each forward from the binding
 * passed there, of the same inputs) with kernel scratch for up to nt threads (calls asking for
 * more run nt). L: the model's n_layers layers (borrowed; must outlive f). *out: NULL on failure.
 * A binding with remote rows (rows remote->n_own .. of g without in-edges and of x without
 * entries) is a training binding. ops: the kernel set (the model's options.kernels); opt: the
 * model's options (alpha storage, fixed threads; read here, not kept). b->flags without
 * GAT_BIND_INFERENCE: a training binding (every cache backward needs); with it, an inference
 * binding, for forwards without dropout only (never backward): no backward scratch, one set of
 * projection buffers shared by the layers and per-edge arrays for b->lean_chunk edges (0:
 * GAT_I_LEAN_CHUNK; at least the largest in-degree), over which each layer's attention runs in
 * row chunks; the layers' outputs are kept, their attention coefficients are not
 * (gat_i_fast_alpha gives NULL). Memory O(N x the layers' widths + lean_chunk x heads).
 * grow: b outgrew an earlier binding (its rebind did not fit): the caches get an eighth more
 * room, allocated but untouched until a later, slightly larger binding rebinds into it (sampled
 * blocks and batches of graphs vary in size from step to step). Returns GAT_ENOMEM. */
gat_status gat_i_fast_create(gat_i_fast **out, const gat_i_fused_ops *ops,
                             const gat_model_options *opt, int n_layers, const gat_i_layer *L,
                             const gat_i_binding *b, int nt, int grow);
/* Turns the thread governor off (on = 1: every call runs its nt threads) or on again
 * (gat_model_options.fixed_threads). */
void gat_i_fast_set_fixed_threads(gat_i_fast *f, int on);
void gat_i_fast_free(gat_i_fast *f);
/* Rebinds f to binding b (as in gat_i_fast_create) in its own memory when it fits there (and
 * takes exactly its size with GAT_BIND_EXACT): *done = 1, every cache rebuilt, nothing
 * allocated unless x's transpose grows. Else *done = 0 and f is unchanged (free it and create
 * one). A binding may turn from one kind (training, inference) into the other.
 * Returns GAT_ENOMEM (the transpose; f is then unusable: free it). */
gat_status gat_i_fast_rebind(gat_i_fast *f, const gat_i_binding *b, int nt, int *done);
/* Whether f is an inference binding. */
int gat_i_fast_lean(const gat_i_fast *f);

/* Forward with params (the model's buffer) on binding b (the one f was made or rebound for; its
 * output rows, keys and edge features are read here); the logits are gat_i_fast_output(f,
 * last). run->nt (and backward's nt) is the most threads to use: a call runs one thread instead
 * when timing shows that faster (oversubscribed machine); results are the same either way. */
void gat_i_fast_forward(gat_i_fast *f, const gat_real *params, const gat_i_binding *b,
                        const gat_i_fast_run *run);
/* Backward of the last (training) forward from dlogits (N, C): ADDS into grads. hook: optional,
 * called after each layer with hook_user. */
void gat_i_fast_backward(gat_i_fast *f, const gat_real *params, gat_real *grads,
                         const gat_real *dlogits, int nt, gat_i_layer_hook hook, void *hook_user);

/* The input gradient of the last backward, d loss / d x->val (nnz(x)) of the binding's x in its
 * entry order, when the binding asked for it (GAT_BIND_INPUT_GRADIENT in a training binding
 * without remote rows) and a backward ran after the last forward; else NULL. Each backward
 * overwrites it (it is not added to). */
const gat_real *gat_i_fast_input_grad(const gat_i_fast *f);

/* Whether layer l keeps its per-edge attention arrays (a training binding: every score but gat
 * without edge features, and that one as options.alpha says: by default below a size, see
 * fast.c's ALPHA_STORE_BYTES). */
int gat_i_fast_keeps_alpha(const gat_i_fast *f, int l);

/* Whether the last forward ran trimmed layers (gat_i_binding.hop_end). */
int gat_i_fast_trimmed(const gat_i_fast *f);

/* Threads the next call would use, of nt_max. */
int gat_i_fast_threads_in_use(const gat_i_fast *f, int nt_max);

/* Layer l's output (N rows, or n_own with remote rows; width) in the model's order, and its
 * alpha (E, heads) (NULL for an inference binding, and on allocation failure). A layer that
 * keeps no alpha (gat_i_fast_keeps_alpha) computes it on the first call after a forward into a
 * buffer made on first use, E x heads values, which f keeps until it is freed or rebound. */
const gat_real *gat_i_fast_output(const gat_i_fast *f, int l);
const gat_real *gat_i_fast_alpha(gat_i_fast *f, int l);

#endif
