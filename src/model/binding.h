/* Private: what a model runs on and how one call runs, as two values passed to each call
 * (model_i.h, fast.h). A binding (gat_i_binding) is the graph, its features, edge features,
 * output rows, dropout keys, remote rows and a sampled block's hops: built once by whoever owns
 * the inputs, checked once at the bind (unless the library built them: GAT_I_BIND_TRUSTED), and
 * the same kind of value for the full graph, a sampled block, a partition with halo rows and a
 * batch of many small graphs. A run (gat_i_run) is one forward's choices: training or not, the
 * dropout step, dropout overrides and a per-layer hook. Nothing of either stays in the model
 * beyond the caches it derives from the bound inputs: no setter changes what a later call does. */
#ifndef GAT_I_BINDING_H
#define GAT_I_BINDING_H

#include "gat/model.h"

#include <stdint.h>

/* The exchange of a binding's remote rows (fast.h). */
typedef struct gat_i_remote gat_i_remote;

/* Called after each layer of a forward (backward == 0) or a backward (backward == 1), on the
 * caller's thread between kernel passes: progress reports (gat_train_config.stage). */
typedef void (*gat_i_layer_hook)(void *user, int backward, int layer);

/* gat_i_binding.flags beyond gat_model_bind's (GAT_BIND_EXACT, GAT_BIND_INFERENCE):
 * TRUSTED: inputs the library built itself (a sampler's block, a partition's local graph, a
 * dataset checked once by gat_train, a batch of graphs): bound without the O(n + E + nnz) check. */
#define GAT_I_BIND_TRUSTED (1u << 8)

typedef struct gat_i_binding {
    const gat_graph *g; /* borrowed, as every pointer here: must outlive the binding */
    const gat_csr *x;   /* (g->n, in_features) */
    const gat_real *ex; /* (E, edge_dim) edge features in g's in-CSR order, or NULL */
    /* output rows: the last layer computes these (ascending) exactly and leaves the others'
     * logits (and hidden rows they do not read) unspecified; NULL: all rows */
    const gat_idx *rows;
    gat_idx n_rows;
    /* dropout keys (layers/fused.h, gat_i_fl): rkey (N) a dense row's, xkey (N) layer 0's row
     * base, ekey (E) an edge's, tekey (E) ekey in the out-CSR's order or NULL (read through
     * t_edge); NULL: the element's own index. A graph that is part of a larger one (a
     * partition's rows) passes its numbers in the whole graph, so that its masks are the whole
     * graph's. A binding with keys is never renumbered. */
    const gat_idx *rkey;
    const int64_t *xkey, *ekey, *tekey;
    /* remote rows (fast.h: a partition's halo), or NULL; never renumbered */
    const gat_i_remote *remote;
    /* a sampled block's hops (gat/sample.h, gat_block.hop_end) with rows = its targets: layer l
     * of L needs only the rows below hop_end[L - 1 - l]; hops 0: not a block */
    const gat_idx *hop_end;
    int hops;
    unsigned flags;     /* GAT_BIND_EXACT, GAT_BIND_INFERENCE, GAT_I_BIND_TRUSTED */
    gat_idx lean_chunk; /* an inference binding's edges per attention chunk (>= 1), 0: the
                         * default GAT_I_LEAN_CHUNK */
} gat_i_binding;

/* Edges per attention chunk of an inference binding by default: 2^20, 32 MiB of coefficients
 * at 8 heads (tests bind with fewer to run many chunks on small graphs). */
#define GAT_I_LEAN_CHUNK (1 << 20)

/* One forward (and the backward of a training forward): zero fields are the defaults. */
typedef struct gat_i_run {
    int training; /* dropout on, caches kept for backward */
    /* 0: the model's next dropout step (its counter advanced by a training forward); else the
     * masks of this step, and a training forward leaves the model's counter at it (gradient
     * checks replay one step; distributed ranks run rank 0's) */
    uint64_t step;
    int set_dropout; /* 1: in_p and att_p replace the model's dropout (gradient checks use 0) */
    double in_p, att_p;
    gat_i_layer_hook hook; /* optional, with hook_user */
    void *hook_user;
} gat_i_run;

#endif
