/* Private to the model's files (model/model.c, model/bind.c): the state of a gat_model, its
 * layers' shapes and tensor offsets, and its binding (gat/model.h, "Binding"). */
#ifndef GAT_I_MODEL_STATE_H
#define GAT_I_MODEL_STATE_H

#include "model_i.h"
#include "fast.h"

/* One attention layer's shape and where its tensors sit in the parameter buffer. */
typedef struct layer {
    gat_idx fin, fo; /* input width, per-head output width */
    int heads, mean; /* mean: output layer, heads averaged */
    gat_idx width;   /* output width: heads * fo (concat) or fo (mean) */
    size_t w, a_src, a_dst,
        b; /* offsets of W (fin, heads*fo), a_src/a_dst (heads, fo), b (width) */
    /* the attention family (scores other than gat) and residual connections: offsets of the
     * query projection (gatv2's W_dst, or Q / W_q) and the key projection (K / W_k), both
     * (fin, heads*fo); gatv2's att (heads, fo); beta or log sigma (heads); R (fin, width) */
    size_t wq, wk, att, theta, res;
    int has_q, has_k, has_res; /* which of them exist; has_res: fin != width */
    size_t we, ae;             /* edge features: W_e (edge_dim, heads*fo), a_edge (heads, fo) */
} layer;

struct gat_model {
    gat_model_config cfg;
    int n_layers;
    layer L[GAT_MAX_LAYERS];
    gat_model_tensor tensors[GAT_I_MAX_TENSORS];
    char names[GAT_I_MAX_TENSORS][32];
    int n_tensors;
    size_t n_params;
    gat_real *blob; /* params | grads | Adam m | Adam v, each n_params */
    uint64_t seed, step;
    int threads;
    double in_p, att_p;
    const gat_idx *out_rows;
    gat_idx n_out_rows;
    gat_i_layer_hook hook; /* gat_i_model_set_hook */
    void *hook_user;
    const int64_t *xkey, *ekey, *tekey; /* dropout keys of the bound graph (gat_i_model_set_keys) */
    const gat_idx *rkey;
    const gat_i_remote *remote; /* remote rows of the bound graph (gat_i_model_set_remote) */
    const gat_i_fused_ops
        *fused;         /* the engine's kernels (the build for this CPU, or a named one) */
    gat_real *dlogits;  /* the training step's d loss / d logits, kept across steps */
    size_t dlogits_cap; /* its length */
    gat_order order;    /* requested node order (gat_model_set_order) */
    gat_idx lean_chunk; /* an inference binding's edges per attention chunk */
    struct gat_i_readout_ws *ro; /* a graph model's readout caches (readout_i.h), or NULL */

    /* the binding: caches derived from the bound graph and features (see gat_model_bind) */
    struct {
        const gat_graph *g;
        const gat_csr *x;
        gat_idx n, nnz, xnnz;
        const void *arrays[5]; /* g's rowptr, col; x's rowptr, col, val when bound */
        gat_i_fast *fast;      /* the engine's caches */
        int threads;           /* thread count the kernel scratch is sized for */
        int trained;           /* the last forward was a training forward */
        int ran;               /* a forward ran since the inputs were bound */
        int lean;              /* bound with GAT_BIND_INFERENCE */
        /* a node order for locality (gat_model_set_order): the engine runs on pg and px, the
         * caller's graph and features renumbered so that node perm[k] is k (iperm the inverse);
         * results are copied back to the caller's numbering on request */
        gat_order order;      /* the order of this binding: GAT_ORDER_NONE or a method */
        double order_seconds; /* its cost: the order, pg and px */
        gat_graph pg;
        gat_csr px;
        gat_idx *perm, *iperm; /* (n) */
        gat_idx *edge_of;      /* (E) edge of g of each edge of pg, made on first need */
        /* edge features of the bound graph (gat_model_bind_edge_features), NULL when none; with
         * an order, pex is their copy in pg's edge order (owned) */
        const gat_real *ex;
        gat_real *pex;
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
