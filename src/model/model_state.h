/* Private to the model's files (model/model.c, model/bind.c): the state of a gat_model, its
 * layers' shapes and tensor offsets, and its binding (gat/model.h, "Binding"). */
#ifndef GAT_I_MODEL_STATE_H
#define GAT_I_MODEL_STATE_H

#include "model_i.h"
#include "fast.h"

struct gat_model {
    gat_model_config cfg;
    int n_layers;
    gat_i_layer L[GAT_MAX_LAYERS]; /* computed at create; the engine reads them in place */
    gat_model_tensor tensors[GAT_I_MAX_TENSORS];
    char names[GAT_I_MAX_TENSORS][32];
    int n_tensors;
    size_t n_params;
    gat_real *blob; /* params | grads | Adam m | Adam v, each n_params */
    uint64_t seed, step; /* dropout masks: step = the last training forward's (gat_i_run) */
    int threads;
    const gat_i_fused_ops
        *fused;         /* the engine's kernels (the build for this CPU, or a named one) */
    gat_real *dlogits;  /* the training step's d loss / d logits, kept across steps */
    size_t dlogits_cap; /* its length */
    gat_idx *ident;     /* 0, 1, ...: a block's targets as output rows (gat_i_model_rows) */
    gat_idx ident_n;    /* its length */
    gat_order order;    /* requested node order (gat_model_set_order) */
    struct gat_i_readout_ws *ro; /* a graph model's readout caches (readout_i.h), or NULL */

    /* the binding: the value bound (binding.h) and what the model derived from it */
    struct {
        gat_i_binding b;  /* as bound, in the caller's numbering (its rows are not kept: each
                           * forward passes its own binding value) */
        gat_i_binding eb; /* the engine's view: b, or with an order the renumbered pg, px, pex */
        gat_idx n, nnz, xnnz;
        const void *arrays[5]; /* b.g's rowptr, col; b.x's rowptr, col, val when bound */
        gat_i_fast *fast;      /* the engine's caches; NULL: nothing bound */
        int threads;           /* thread count the kernel scratch is sized for */
        int trained;           /* the last forward was a training forward */
        int ran;               /* a forward ran since the inputs were bound */
        int lean;              /* an inference binding (GAT_BIND_INFERENCE) */
        /* a node order for locality (gat_model_set_order): the engine runs on pg and px, the
         * caller's graph and features renumbered so that node perm[k] is k (iperm the inverse,
         * edge_of the caller's edge of each edge of pg); results are copied back to the
         * caller's numbering on request */
        gat_order order;      /* the order of this binding: GAT_ORDER_NONE or a method */
        double order_seconds; /* its cost: the order, pg and px */
        gat_graph pg;
        gat_csr px;
        gat_idx *perm, *iperm; /* (n) */
        gat_idx *edge_of;      /* (E) */
        gat_real *pex;         /* (E, D) the edge features in pg's edge order (owned), or NULL */
        uint8_t *mark; /* (n) zero between uses: output rows in the engine's numbering */
        gat_idx *rows; /* (n) those rows */
        gat_real *dl;  /* (n, C) dlogits in the engine's numbering */
        uint64_t fwd;  /* forwards run on this binding */
        gat_real *view[GAT_MAX_LAYERS], *aview[GAT_MAX_LAYERS];     /* outputs and alphas in the
                                                                     * caller's numbering */
        uint64_t view_at[GAT_MAX_LAYERS], aview_at[GAT_MAX_LAYERS]; /* the forward they hold */
    } ws;
};

/* Drops the binding: frees the engine's caches and the renumbered inputs and views, leaving m
 * unbound (the next forward binds again). */
void gat_i_model_unbind(gat_model *m);

#endif
