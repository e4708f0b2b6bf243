/* GAT models: a stack of multi-head graph attention layers for node classification.
 *
 * Layer l maps H_in (N, F_l) to (N, K_l * F'_l) (heads concatenated, hidden layers) or (N, C)
 * (heads averaged, output layer). Per head k: Z = X W_k; e_ij = LeakyReLU(a_dst.Z_i + a_src.Z_j)
 * for each edge j -> i; alpha_ij = softmax of e over i's in-neighbourhood (max subtracted);
 * out_i = sum_j alpha_ij Z_j + b. ELU between layers; dropout on each layer's input and on alpha
 * while training. All parameters live in one contiguous buffer described by a table of named
 * tensors (gat_model_tensor), which model files and optimizers use as it is.
 *
 * A model is not thread-safe: use one model per thread. Graphs and features passed in are
 * borrowed for the call; the model keeps activation caches sized for the last graph it saw. */
#ifndef GAT_MODEL_H
#define GAT_MODEL_H

#include "graph.h"
#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GAT_MAX_LAYERS 16

/* How an edge j -> i is scored before the softmax. Only GAT_SCORE_GAT exists so far. */
typedef enum gat_score {
    GAT_SCORE_GAT = 0 /* LeakyReLU(a_dst . W h_i + a_src . W h_j), the GAT paper's */
} gat_score;

typedef struct gat_model_config {
    gat_idx in_features;     /* F: width of the input features (> 0) */
    gat_idx classes;         /* C: number of classes = output width (> 0) */
    int layers;              /* attention layers (>= 1; default 2) */
    gat_idx hidden;          /* per-head width of each hidden layer (default 8) */
    int heads;               /* heads of each hidden layer, concatenated (default 8) */
    int out_heads;           /* heads of the output layer, averaged (default 1) */
    double negative_slope;   /* LeakyReLU slope of the scores (default 0.2) */
    double in_dropout;       /* dropout on every layer's input, in [0, 1) (default 0.6) */
    double att_dropout;      /* dropout on attention coefficients, in [0, 1) (default 0.6) */
    gat_score score;         /* default GAT_SCORE_GAT */
} gat_model_config;

/* One named parameter tensor: params + offset, `size` values, row-major `shape`. */
typedef struct gat_model_tensor {
    const char *name;        /* e.g. "layer0.weight" */
    int ndim;
    gat_idx shape[3];
    size_t offset, size;
} gat_model_tensor;

typedef struct gat_model gat_model;

/* The GAT paper's Cora setup for F inputs and C classes. */
GAT_API void gat_model_config_default(gat_model_config *cfg, gat_idx in_features, gat_idx classes);

/* Checks cfg; returns GAT_EINVAL with a message naming the bad field. */
GAT_API gat_status gat_model_config_check(const gat_model_config *cfg);

/* Creates a model with Glorot-uniform weights and zero biases drawn from seed. *out: set on
 * success (free with gat_model_free), NULL on failure. Returns GAT_EINVAL, GAT_ENOMEM. */
GAT_API gat_status gat_model_create(gat_model **out, const gat_model_config *cfg, uint64_t seed);

/* Frees the model and its caches. Accepts NULL. */
GAT_API void gat_model_free(gat_model *m);

/* The model's configuration (borrowed, valid while m lives). */
GAT_API const gat_model_config *gat_model_get_config(const gat_model *m);

/* Threads used by the kernels (OpenMP); n <= 0 means all cores. Results repeat bit for bit for a
 * given thread count. */
GAT_API void gat_model_set_threads(gat_model *m, int n);

/* Parameter table: *count tensors (borrowed, valid while m lives). */
GAT_API const gat_model_tensor *gat_model_tensors(const gat_model *m, int *count);
/* The parameter buffer and its length (borrowed; writable, e.g. to load weights). */
GAT_API gat_real *gat_model_params(gat_model *m, size_t *count);
/* The gradient buffer, same layout as the parameters, filled by gat_model_backward. */
GAT_API gat_real *gat_model_grads(gat_model *m, size_t *count);

/* Runs the model on graph g with features x (x->rows == g->n, x->cols == in_features).
 * training != 0 applies dropout with fresh masks (drawn from the model's seed and a step counter
 * advanced by every training forward) and keeps what gat_model_backward needs; training == 0 is
 * inference. *logits: set to the (N, C) output, owned by m, valid until the next call on m.
 * Returns GAT_EDIM (sizes disagree), GAT_EINVAL, GAT_ENOMEM (first call on a graph allocates its
 * caches). Cost O(nnz(x) F' K + E K F' + N K F' C). */
GAT_API gat_status gat_model_forward(gat_model *m, const gat_graph *g, const gat_csr *x,
                                     int training, const gat_real **logits);

/* Back-propagates dlogits (N, C), borrowed, through the last training forward and ADDS the
 * parameter gradients into gat_model_grads (zero them first with gat_model_zero_grads).
 * Returns GAT_EINVAL if the last forward was not a training forward. */
GAT_API gat_status gat_model_backward(gat_model *m, const gat_real *dlogits);

/* Number of attention layers and the output width of layer l (heads x hidden for hidden layers,
 * classes for the last), or -1 if l is out of range. */
GAT_API int gat_model_layer_count(const gat_model *m);
GAT_API gat_idx gat_model_layer_width(const gat_model *m, int l);
/* Heads of layer l, or -1 if l is out of range. */
GAT_API int gat_model_layer_heads(const gat_model *m, int l);

/* After a forward: *out = the output of layer l, (N, width) row-major (after ELU on hidden layers;
 * the logits for the last), owned by m and valid until the next forward. Returns GAT_EINVAL
 * (l out of range, or no forward yet). */
GAT_API gat_status gat_model_layer_output(const gat_model *m, int l, const gat_real **out);

/* After a forward: *alpha = layer l's attention coefficients (E, heads), edge-major in the
 * graph's in-CSR order, before attention dropout (each node's coefficients sum to 1 per head).
 * Owned by m, valid until the next forward. Returns GAT_EINVAL as above. */
GAT_API gat_status gat_model_attention(const gat_model *m, int l, const gat_real **alpha);

/* Sets all gradients to zero. */
GAT_API void gat_model_zero_grads(gat_model *m);

#ifdef __cplusplus
}
#endif
#endif
