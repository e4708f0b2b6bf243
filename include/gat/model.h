/* GAT models: a stack of multi-head graph attention layers for node classification.
 *
 * Layer l maps H_in (N, F_l) to (N, K_l * F'_l) (heads concatenated, hidden layers) or (N, C)
 * (heads averaged, output layer). Per head k: Z = X W_k; e_ij = LeakyReLU(a_dst.Z_i + a_src.Z_j)
 * for each edge j -> i; alpha_ij = softmax of e over i's in-neighbourhood (max subtracted);
 * out_i = sum_j alpha_ij Z_j + b. ELU between layers; dropout on each layer's input and on alpha
 * while training. All parameters live in one contiguous buffer described by a table of named
 * tensors (gat_model_tensor), which model files and optimizers use as it is.
 *
 * The score e_ij can be any of the attention family (gat_score): per head, from a query q_i and
 * a key k_j of the layer input; every layer of a model uses the same one. With `residual`, a
 * layer adds its input (or, where the widths differ, the input times a learned projection R_l,
 * tensor "layer<l>.res") to the aggregate before the ELU. Tensors per layer, in table order:
 *   gat         weight (F_l, K F'), att_src (K, F'), att_dst (K, F'), bias
 *   gatv2       weight (= W_src, the keys and values), weight_dst (F_l, K F'), att (K, F'), bias
 *   dot         weight, bias
 *   scaled-dot  weight (values), query (F_l, K F'), key (F_l, K F'), bias
 *   bilinear    weight (values), query (F_l, K F'), key (F_l, K F'), bias
 *   cosine      weight, beta (K), bias
 *   gaussian    weight, log_sigma (K), bias
 * then res (F_l, width) if residual and F_l != width, then, with edge features (edge_dim D > 0,
 * gat and gatv2 only), weight_edge (D, K F') and (gat) att_edge (K, F'). gat's score gains the
 * edge term a_edge . (W_e x_ij) per head, e_ij = LeakyReLU(a_dst.Z_i + a_src.Z_j +
 * a_edge.(W_e x_ij)), as PyG's GATConv(edge_dim=D) (its lin_edge.weight transposed, and
 * att_edge); the engine never forms W_e x_ij there: per head the term is sum_d x_ij[d] M[d, h],
 * M[d, h] = sum_f W_e[d, (h, f)] a_edge[h, f], an (E, K) product per forward. gatv2 adds W_e x_ij
 * inside its LeakyReLU, a . LeakyReLU(W_dst h_i + W h_j + W_e x_ij), as GATv2Conv(edge_dim=D)
 * (lin_edge.weight transposed), formed per edge from x_ij's D values and never stored. Other
 * scores refuse edge_dim > 0. Edge features reach a model through its binding
 * (gat_model_bind_edge_features).
 *
 * A model is not thread-safe: use one model per thread. Counts (layers, heads, widths, rows) are
 * gat_idx throughout the API; lengths of buffers are size_t.
 *
 * Binding. A model runs on one *bound* graph and feature matrix at a time: gat_model_bind(m, g,
 * x, 0) checks them and builds everything the model derives from them (activation caches sized
 * for g's N and E and x's non-zeros, the transpose of x for the weight gradient, the fused
 * kernels' row partitions). The model keeps pointers to g and x (borrowed: they must outlive the
 * binding, i.e. stay valid until the next bind or forward on other inputs, or gat_model_free).
 * Forwards on the bound g and x use the binding as it is, without checking or reading them for
 * anything but the computation. The rules:
 *  - A forward on other inputs (other structs, arrays or sizes) binds them first, implicitly, as
 *    if gat_model_bind(m, g, x, 0) had been called: code that only ever calls gat_model_forward
 *    works as before.
 *  - After editing the bound graph or features in place (values, structure, even at the same
 *    addresses and sizes), call gat_model_bind again before the next forward: the model cannot
 *    see such an edit, and the derived data (the transpose of x) would otherwise be stale.
 *    Rebinding rebuilds all of it from the inputs as they are now.
 *  - Rebinding reuses the memory already allocated when the new inputs fit in it (a sampled
 *    block or a partition with halo rows no larger than an earlier one allocates no caches) and
 *    grows it otherwise, by an eighth more than the new inputs need (reserved, not touched until
 *    used), so that sampled blocks and batches of graphs, whose sizes vary from step to step,
 *    seldom allocate; GAT_BIND_EXACT sizes it to these inputs instead (to give back the room a
 *    one-off large graph took).
 *  - Binding invalidates the last forward's outputs and caches: run a forward before
 *    gat_model_backward, gat_model_layer_output or gat_model_attention.
 *
 * Inference bindings. gat_model_bind(m, g, x, GAT_BIND_INFERENCE) binds g and x for inference
 * only, with the memory of layer-wise inference: layer l runs for all nodes (or the rows a
 * restricted evaluation needs) from layer l - 1's output for all nodes, its projections in
 * buffers every layer reuses and its attention in chunks of rows whose per-edge values take at
 * most 2^20 edges at a time. It keeps each layer's output, O(N x width), and no per-edge array
 * of the graph's size and nothing backward needs, so a graph whose training caches would not fit
 * can still be evaluated and embedded (gat_train does so for the full graph when it trains on
 * mini-batches). Outputs equal those of an ordinary binding up to summation order. Inference
 * forwards on the same inputs keep the inference binding; a training forward on them binds them
 * again, implicitly, as an ordinary binding; gat_model_attention refuses an inference binding
 * (GAT_EINVAL), as it keeps no attention coefficients. */
#ifndef GAT_MODEL_H
#define GAT_MODEL_H

#include "graph.h"
#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GAT_MAX_LAYERS 16
/* Largest head count of a layer (gat_model_config.heads, out_heads, hidden_heads). */
#define GAT_MAX_HEADS 256

/* How an edge j -> i is scored, per head, before the neighbourhood softmax. z = W h are the
 * values every score aggregates; |v| = sqrt(v.v + 1e-8). */
typedef enum gat_score {
    GAT_SCORE_GAT = 0,        /* "gat": LeakyReLU(a_dst . z_i + a_src . z_j), the GAT paper's */
    GAT_SCORE_GATV2 = 1,      /* "gatv2": a . LeakyReLU(W_dst h_i + W h_j) (GATv2; aggregates z) */
    GAT_SCORE_DOT = 2,        /* "dot": z_i . z_j */
    GAT_SCORE_SCALED_DOT = 3, /* "scaled-dot": (Q h_i) . (K h_j) / sqrt(F'), the Transformer's */
    GAT_SCORE_BILINEAR = 4,   /* "bilinear": h_i^T W_q^T W_k h_j = (W_q h_i) . (W_k h_j), Luong's
                               * "general" score: scaled-dot without the 1 / sqrt(F') */
    GAT_SCORE_COSINE = 5,     /* "cosine": beta cos(z_i, z_j), beta learned per head (init 1),
                               * as in AGNN */
    GAT_SCORE_GAUSSIAN = 6    /* "gaussian": -|z_i - z_j|^2 / (2 sigma^2), log sigma learned per
                               * head (init sigma = sqrt(F')): Nadaraya-Watson kernel regression */
} gat_score;
#define GAT_SCORE_COUNT 7

/* The score's name ("gat", "gatv2", "dot", "scaled-dot", "bilinear", "cosine", "gaussian"), or
 * NULL if s is not a gat_score. The string is static. */
GAT_API const char *gat_score_name(gat_score s);

/* The score called name (as gat_score_name gives it). ASCII letters match case-insensitively
 * ("GATv2" too), as in every *_from_name function of libgat. *out: set on success.
 * Returns GAT_EINVAL (NULL argument; an unknown name, the message "unknown score function 'NAME'
 * (expected gat, gatv2, ... or gaussian)"). Cost O(1). */
GAT_API gat_status gat_score_from_name(const char *name, gat_score *out);

/* Which build of the engine's kernels a model runs (gat_model_options.kernels). The kernels are
 * compiled once per instruction set; every build computes the same function (within rounding:
 * the vector widths and FMA contraction differ, so results are not bit-identical across builds).
 * AUTO: the widest build this CPU runs (AVX-512, AVX2 or baseline). A named build this CPU cannot
 * run is refused (GAT_EINVAL) by gat_model_create and gat_model_set_options; builds without the
 * x86-64 copies (other CPUs, -Disa_copies=false) run BASE only. */
typedef enum gat_kernels {
    GAT_KERNELS_AUTO = 0,
    GAT_KERNELS_BASE = 1,  /* "base": the portable baseline (x86-64 v1 on x86) */
    GAT_KERNELS_AVX2 = 2,  /* "avx2": AVX2 + FMA (x86-64-v3) */
    GAT_KERNELS_AVX512 = 3 /* "avx512": AVX-512 (x86-64-v4) */
} gat_kernels;
#define GAT_KERNELS_COUNT 4

/* Whether the gat score's layers without edge features keep their attention coefficients (E, H),
 * LeakyReLU signs and dropout keeps per edge for the backward, or recompute them there from the
 * per-node terms (O(N H) memory per layer instead of O(E H); the same values either way).
 * AUTO: keep them while they take at most 8 MiB per layer, recompute above (faster beyond the
 * caches, besides the memory). Other scores and
 * edge features always keep them. */
typedef enum gat_alpha_storage {
    GAT_ALPHA_AUTO = 0,
    GAT_ALPHA_STORE = 1,    /* "store": always keep them */
    GAT_ALPHA_RECOMPUTE = 2 /* "recompute": never keep them (as large graphs run) */
} gat_alpha_storage;
#define GAT_ALPHA_COUNT 3

/* How a model runs, not what it computes: run-time choices that change neither the parameters
 * nor (beyond rounding for kernels) the results, and are not saved in model files (a loaded
 * model starts with zeros, the defaults; gat_model_set_options changes them). Zero everywhere
 * (as gat_model_config_default leaves them) means the defaults. */
typedef struct gat_model_options {
    gat_kernels kernels;     /* the kernel build (default GAT_KERNELS_AUTO) */
    gat_alpha_storage alpha; /* per-edge attention storage (default GAT_ALPHA_AUTO) */
    int fixed_threads;       /* 1: run the threads of gat_model_set_threads on every call, without
                              * the thread governor (see there); 0 (default): the governor */
} gat_model_options;

/* What a model predicts (gat_model_config.task). */
typedef enum gat_task {
    GAT_TASK_NODE = 0, /* "node": the last layer's output (N, classes) is the prediction */
    GAT_TASK_GRAPH = 1 /* "graph": the last layer's output (N, classes) are node embeddings,
                        * pooled per graph by a readout and classified (gat/readout.h) */
} gat_task;
#define GAT_TASK_COUNT 2

/* How a graph model pools the node embeddings h_i (width D = classes) of each graph
 * (gat_model_config.readout); see gat/readout.h for the equations. */
typedef enum gat_readout {
    GAT_READOUT_SUM = 0,      /* "sum": sum_i h_i */
    GAT_READOUT_MEAN = 1,     /* "mean": sum_i h_i / n */
    GAT_READOUT_MAX = 2,      /* "max": max_i h_i per column */
    GAT_READOUT_ATTENTION = 3 /* "attention": per head k, sum_i softmax_i(w_k . tanh(V_k h_i +
                               * c_k)) h_i, the K heads concatenated */
} gat_readout;
#define GAT_READOUT_COUNT 4

/* The names of tasks ("node", "graph") and readouts ("sum", "mean", "max", "attention"), or
 * NULL for a value that is not one; the strings are static. */
GAT_API const char *gat_task_name(gat_task t);
GAT_API const char *gat_readout_name(gat_readout r);
/* The task or readout called name (ASCII case-insensitive). *out: set on success. Returns
 * GAT_EINVAL (NULL argument; an unknown name, the message listing the names). Cost O(1). */
GAT_API gat_status gat_task_from_name(const char *name, gat_task *out);
GAT_API gat_status gat_readout_from_name(const char *name, gat_readout *out);

typedef struct gat_model_config {
    gat_idx in_features;     /* F: width of the input features (> 0) */
    gat_idx classes;         /* C: number of classes = output width (> 0) */
    gat_idx layers;          /* attention layers (>= 1; default 2) */
    gat_idx hidden;          /* per-head width of each hidden layer (default 8) */
    gat_idx heads;           /* heads of each hidden layer, concatenated (default 8) */
    gat_idx out_heads;       /* heads of the output layer, averaged (default 1) */
    double negative_slope;   /* LeakyReLU slope of the scores (default 0.2) */
    double in_dropout;       /* dropout on every layer's input, in [0, 1) (default 0.6) */
    double att_dropout;      /* dropout on attention coefficients, in [0, 1) (default 0.6) */
    gat_score score;         /* default GAT_SCORE_GAT */
    /* Fields added with the attention family; zero (as gat_model_config_default leaves them)
     * means the model as before. */
    int residual;            /* 1: residual connection in every layer (default 0) */
    gat_idx hidden_heads[GAT_MAX_LAYERS]; /* heads of hidden layer l if > 0, else `heads`
                                           * (default 0) */
    /* Added with edge features (0, the default, means the model as before). */
    gat_idx edge_dim;        /* D: edge feature columns the score reads, 0..GAT_MAX_EDGE_DIM;
                              * > 0 only with GAT_SCORE_GAT or GAT_SCORE_GATV2 (default 0) */
    /* Added with per-model kernel choices: run-time options (not saved in model files). */
    gat_model_options options;
    /* Added with graph classification (gat/readout.h); zero means a node model as before. With
     * GAT_TASK_GRAPH, `classes` is the width D of the node embeddings (the last layer's output)
     * and graph_classes the classes of the graphs. */
    gat_task task;           /* default GAT_TASK_NODE */
    gat_readout readout;     /* with GAT_TASK_GRAPH (default GAT_READOUT_SUM) */
    gat_idx readout_heads;   /* attention readout: heads K, 1..GAT_MAX_HEADS (0: 1) */
    gat_idx readout_hidden;  /* attention readout: gate width A, 1..2^16 (0: D) */
    gat_idx graph_classes;   /* with GAT_TASK_GRAPH: classes of the graphs (> 0); else 0 */
    /* Added with the MLP classifier of graph models (0, the default, is the linear classifier
     * as before): hidden layers of the classifier on the readout, 0..GAT_MAX_CLASSIFIER_LAYERS,
     * each halving the width with a ReLU (R -> R/2 -> ... -> R/2^L, then linear to
     * graph_classes: benchmarking-gnns' MLPReadout); R / 2^L must be >= 1. Graph models only. */
    gat_idx classifier_layers;
    /* Added with the reference code's dropout placement (docs/accuracy.md); zero means the model
     * as before. */
    int head_dropout;        /* 1: every head of a layer draws its own input dropout mask, as the
                              * GAT paper's code does (a head alone draws the one mask of 0);
                              * gat score, not with residual (default 0) */
    double proj_dropout;     /* dropout on each layer's projected features W x before they are
                              * aggregated (the scores read them undropped), in [0, 1); the paper's
                              * code drops them with the input's rate; gat score (default 0) */
    /* Added with the reference code's score bias (zero means the model as before): 1 gives each
     * layer's score halves a bias per head, as the paper's code has them (its f_1 and f_2 are
     * tf.layers.conv1d with their default bias): e_ij = LeakyReLU(a_dst . z_i + b_dst + a_src .
     * z_j + b_src), the tensor layerL.att_bias (2, heads) holding b_dst then b_src, zero at
     * creation; gat score only (default 0). */
    int score_bias;
    /* Added with whole-row scores (zero means the model as before): 1 makes each head's score
     * halves read the layer's whole projected row z_i, not the head's own slice, as the GAT of
     * Platonov et al. 2023 (attn_linear_u, attn_linear_v: nn.Linear(dim, heads)): e_ijh =
     * LeakyReLU(a_dst[h] . z_i + a_src[h] . z_j), the tensors layerL.att_src and att_dst then
     * (heads, heads * fo); gat score only (default 0). */
    int whole_scores;
} gat_model_config;

/* Largest classifier_layers of a graph model. */
#define GAT_MAX_CLASSIFIER_LAYERS 4

/* Largest edge_dim of a model. */
#define GAT_MAX_EDGE_DIM 1024

/* One named parameter tensor: params + offset, `size` values, row-major `shape`. */
typedef struct gat_model_tensor {
    const char *name;        /* e.g. "layer0.weight" */
    int ndim;                /* 1 or 2 */
    gat_idx shape[3];
    size_t offset, size;
} gat_model_tensor;

typedef struct gat_model gat_model;

/* The GAT paper's Cora setup for F inputs and C classes. NULL cfg: nothing (the rule of status.h;
 * it applies to every function of this header that returns no status). */
GAT_API void gat_model_config_default(gat_model_config *cfg, gat_idx in_features, gat_idx classes);

/* Checks cfg; returns GAT_EINVAL with a message naming the bad field (or NULL cfg). */
GAT_API gat_status gat_model_config_check(const gat_model_config *cfg);

/* Creates a model with Glorot-uniform weights and zero biases drawn from seed. *out: set on
 * success (free with gat_model_free), NULL on failure. Returns GAT_EINVAL, GAT_ENOMEM. */
GAT_API gat_status gat_model_create(gat_model **out, const gat_model_config *cfg, uint64_t seed);

/* Frees the model and its caches. Accepts NULL. */
GAT_API void gat_model_free(gat_model *m);

/* The model's configuration (borrowed, valid while m lives); NULL for NULL m. */
GAT_API const gat_model_config *gat_model_get_config(const gat_model *m);

/* Threads used by the kernels (OpenMP); n <= 0 means all cores. Results repeat bit for bit for a
 * given thread count, and do not depend on it. NULL m: nothing.
 * The thread governor: unless options.fixed_threads is set, n is the most a call uses. Each
 * binding starts with all n threads unless other processes' runnable threads already fill the
 * CPUs (on Linux, a look at /proc/loadavg and /proc/self/task, up to three samples 1 ms apart,
 * so a bind may sleep up to 2 ms; elsewhere the load average), then times its calls (clock
 * reads around each forward and backward) and now and then tries the other setting, keeping one
 * thread where n ran slower (an oversubscribed machine, where spinning OpenMP waits make a
 * preempted thread stall the others). Results are the same either way. With
 * options.fixed_threads = 1 every call runs n threads: no /proc reads, no sleep, no timing. */
GAT_API void gat_model_set_threads(gat_model *m, int n);

/* The model's run-time options (gat_model_options; zeros: the defaults), e.g. on a model
 * gat_model_load made. Takes effect at the next bind (the current binding is dropped when the
 * kernels or the alpha storage change). NULL m or o: nothing changes.
 * Returns GAT_EINVAL (NULL argument; a value outside its enum; a kernel build this CPU does not
 * run, "the avx512 kernels do not run on this CPU (it runs avx2, base)"; fixed_threads not 0 or
 * 1), and then m is unchanged. Cost O(1). */
GAT_API gat_status gat_model_set_options(gat_model *m, const gat_model_options *o);

/* The name of a kernel build ("auto", "base", "avx2", "avx512"), or NULL if k is not one. The
 * string is static. */
GAT_API const char *gat_kernels_name(gat_kernels k);

/* The kernel build called name (as gat_kernels_name gives it; ASCII case-insensitive). *out:
 * set on success. Returns GAT_EINVAL (NULL argument; an unknown name). Cost O(1). */
GAT_API gat_status gat_kernels_from_name(const char *name, gat_kernels *out);

/* Whether this CPU (and this build of libgat) runs kernel build k: 1 for GAT_KERNELS_AUTO and
 * GAT_KERNELS_BASE, 1 or 0 for the others, 0 for a value that is not a gat_kernels. */
GAT_API int gat_kernels_supported(gat_kernels k);

/* Parameter table: *count tensors (borrowed, valid while m lives). NULL m: NULL, *count = 0; count
 * may be NULL (also for the two below). */
GAT_API const gat_model_tensor *gat_model_tensors(const gat_model *m, int *count);
/* The parameter buffer and its length (borrowed; writable, e.g. to load weights). NULL m: NULL. */
GAT_API gat_real *gat_model_params(gat_model *m, size_t *count);
/* The gradient buffer, same layout as the parameters, filled by gat_model_backward. NULL m: NULL. */
GAT_API gat_real *gat_model_grads(gat_model *m, size_t *count);

/* Node order of the bindings (gat/graph.h, gat_order): GAT_ORDER_AUTO (the default) renumbers
 * graphs of GAT_ORDER_AUTO_EDGES edges or more by reverse Cuthill-McKee, so that the rows each
 * node gathers sit close together in memory (on a large graph in random order the epoch is bound
 * by those gathers), where that pays: where the RCM order puts at least a tenth more of the edges
 * between two nodes within 32768 positions of each other than the caller's numbering does (a
 * graph that comes in a good order keeps it; one in which no order brings the ends together, as
 * a random graph, is not copied for nothing). GAT_ORDER_NONE runs the caller's numbering; a
 * method forces it. The
 * renumbering is internal: logits, layer outputs, attention, predictions and gradients are in the
 * caller's node and edge order, and do not depend on the thread count. A renumbered binding holds
 * its own copy of the graph and features (O(n + E + nnz(x))), and dropout masks follow the
 * engine's numbering, so a training run with dropout differs from an unordered one as another
 * seed would; without dropout only the floating-point summation order differs.
 * Takes effect at the next bind (an existing binding is dropped when the order changes).
 * Returns GAT_EINVAL (NULL m, order not a gat_order). */
GAT_API gat_status gat_model_set_order(gat_model *m, gat_order order);

/* The order the current binding uses (GAT_ORDER_NONE when unbound or not renumbered) and, if
 * seconds is not NULL, what computing it and renumbering the inputs cost (when GAT_ORDER_AUTO
 * kept the caller's order, what deciding cost; 0 when nothing was computed). */
GAT_API gat_order gat_model_order(const gat_model *m, double *seconds);

/* Flags of gat_model_bind. */
enum {
    GAT_BIND_EXACT = 1u,    /* size the caches to exactly these inputs, even if they fit in less */
    GAT_BIND_INFERENCE = 2u, /* bind for inference only: layer-wise inference in chunks of rows,
                              * see below */
    GAT_BIND_INPUT_GRADIENT = 4u /* each backward also computes d loss / d x (one value per
                                  * stored entry of x): gat_model_input_gradient */
};

/* Binds graph g and features x (both borrowed; must outlive the binding, see "Binding" above) to
 * m and (re)builds everything derived from them. Checks first, O(n + E + nnz(x)): x->rows ==
 * g->n and x->cols == in_features (GAT_EDIM), g as gat_graph_check, x as gat_csr_check (neither
 * may be a zeroed struct with a NULL rowptr); the messages start "gat_model_bind: ". A failed
 * check leaves the previous binding as it was; a failure after it (GAT_ENOMEM) leaves m unbound
 * (the next forward binds again). flags: 0, or GAT_BIND_EXACT, GAT_BIND_INFERENCE (an
 * inference binding, see "Inference bindings" above) and GAT_BIND_INPUT_GRADIENT (each backward
 * also computes the input gradient, gat_model_input_gradient) in any combination. Reuses the
 * caches' memory when the inputs fit in it (nothing is allocated then but the graph check's O(E)
 * scratch, freed before returning), grows it otherwise.
 * Returns GAT_EINVAL (NULL argument, unknown flag bits, malformed g or x), GAT_ENUMERIC (a NaN or
 * Inf feature), GAT_EDIM (sizes disagree), GAT_ENOMEM. Cost O(n + E + nnz(x) + F) plus zeroing the
 * caches, O(N K F' + E K) per layer. */
GAT_API gat_status gat_model_bind(gat_model *m, const gat_graph *g, const gat_csr *x,
                                  unsigned flags);

/* Binds edge features to the bound graph of m: edge_x (E, D) row-major, row e the features of
 * the bound graph's edge e in its in-CSR order (gat_dataset.edge_x is in that order), borrowed
 * like the graph (it must outlive the binding). A model with edge_dim D > 0 runs only with them:
 * call gat_model_bind (or a forward) first, then this, then forwards on the same graph and
 * features; binding other inputs (explicitly or by a forward on them) drops the edge features. A
 * renumbered binding (gat_model_set_order) keeps its own copy of the rows in its edge order.
 * D must equal the model's edge_dim; (NULL, 0) on a model without edge features does nothing.
 * gat_train and gat_model_evaluate (gat/train.h) bind the dataset's edge_x this way themselves.
 * Returns GAT_EINVAL (NULL m, NULL edge_x with D > 0, nothing bound), GAT_EDIM (D differs from
 * edge_dim: "the model was trained with edge_dim 3 but the graph has 2 edge feature columns"),
 * GAT_ENUMERIC (a NaN or Inf value, naming its edge and column), GAT_ENOMEM (a renumbered
 * binding's copy). A failure leaves the model without edge features. Like a bind, it invalidates
 * the last forward (run one before gat_model_backward). Cost O(E D). */
GAT_API gat_status gat_model_bind_edge_features(gat_model *m, const gat_real *edge_x, gat_idx D);

/* Runs the model on graph g with features x (x->rows == g->n, x->cols == in_features).
 * training != 0 applies dropout with fresh masks (drawn from the model's seed and a step counter
 * advanced by every training forward) and keeps what gat_model_backward needs; training == 0 is
 * inference. *logits: set to the (N, C) output, owned by m, valid until the next call on m.
 * If g and x are the bound inputs (the same structs, arrays and sizes as the last bind or
 * forward), the binding is used as it is: nothing is checked or rebuilt, so after editing them
 * in place call gat_model_bind first (see "Binding" above). Other inputs are bound first,
 * implicitly, with the checks of gat_model_bind, O(n + E + nnz(x)); those messages start
 * "gat_model_forward: graph ..." or "gat_model_forward: features x: ..." and name the row or
 * position and the value. Every function that runs a forward (gat_model_predict,
 * gat_model_embed, gat_train, gat_train_step, ...) binds its inputs here.
 * A model with edge_dim > 0 needs g and x bound with their edge features
 * (gat_model_bind_edge_features): otherwise GAT_EDIM, and nothing is rebound.
 * Returns GAT_EDIM (sizes disagree, edge features missing), GAT_EINVAL (NULL argument, malformed
 * graph or features), GAT_ENUMERIC (a NaN or Inf feature), GAT_ENOMEM (binding new inputs may
 * allocate). Cost O(nnz(x) F' K + E K F' + N K F' C), plus O(E D K) with edge features. */
GAT_API gat_status gat_model_forward(gat_model *m, const gat_graph *g, const gat_csr *x,
                                     int training, const gat_real **logits);

/* Back-propagates dlogits (N, C), borrowed, through the last training forward and ADDS the
 * parameter gradients into gat_model_grads (zero them first with gat_model_zero_grads).
 * Returns GAT_EINVAL if the last forward was not a training forward. */
GAT_API gat_status gat_model_backward(gat_model *m, const gat_real *dlogits);

/* The input gradient of the last gat_model_backward: *dx (nnz(x)) holds d loss / d x->val[q]
 * for each stored entry q of the bound features x, in x's entry order (a dense x, every entry
 * stored: (N, in_features) row-major), through the forward's input dropout; saliency maps read
 * it. The inputs must be bound with GAT_BIND_INPUT_GRADIENT (gat_model_bind), which makes each
 * backward compute it (O(nnz(x) K F' + N K F') more; the first layer then keeps its projection
 * gradients, O(N K F'), and x's transpose). Unlike the parameters' gradients it is overwritten,
 * not added to. *dx is owned by m and valid until the next forward, backward or binding.
 * Returns GAT_EINVAL (NULL argument; inputs not bound with the flag; no backward since the last
 * forward), GAT_ENOMEM (a renumbered binding copies it back to x's order, O(nnz(x))). */
GAT_API gat_status gat_model_input_gradient(const gat_model *m, const gat_real **dx);

/* Number of attention layers (0 for NULL m) and the output width of layer l (heads x hidden for
 * hidden layers, classes for the last), or -1 if l is out of range or m is NULL. */
GAT_API gat_idx gat_model_layer_count(const gat_model *m);
GAT_API gat_idx gat_model_layer_width(const gat_model *m, gat_idx l);
/* Heads of layer l, or -1 if l is out of range or m is NULL. */
GAT_API gat_idx gat_model_layer_heads(const gat_model *m, gat_idx l);

/* Which kernels m runs on its bound inputs: the instruction-set build of the engine's kernels
 * ("avx512", "avx2", "base"; static strings). NULL if m is NULL or nothing is bound. (It no
 * longer returns "none": every model runs the engine.)
 * For benchmarks and reports. Cost O(1). */
GAT_API const char *gat_model_kernels(const gat_model *m);

/* After a forward: *out = the output of layer l, (N, width) row-major (after ELU on hidden layers;
 * the logits for the last), owned by m and valid until the next forward. Returns GAT_EINVAL
 * (NULL m or out, l out of range, or no forward yet), GAT_ENOMEM (a renumbered binding copies
 * the output to the caller's order once per forward). */
GAT_API gat_status gat_model_layer_output(const gat_model *m, gat_idx l, const gat_real **out);

/* After a forward: *alpha = layer l's attention coefficients (E, heads), edge-major in the
 * graph's in-CSR order, before attention dropout (each node's coefficients sum to 1 per head).
 * Owned by m, valid until the next forward. Returns GAT_EINVAL as above, GAT_ENOMEM. */
GAT_API gat_status gat_model_attention(const gat_model *m, gat_idx l, const gat_real **alpha);

/* Sets all gradients to zero. NULL m: nothing. */
GAT_API void gat_model_zero_grads(gat_model *m);

/* Runs an inference forward of m on graph g and features x (borrowed) and writes each node's
 * predicted class, the largest logit (the first on ties), to classes ((g->n), caller-owned) and,
 * if probability is not NULL, that class's softmax probability to it ((g->n), caller-owned).
 * Returns GAT_EINVAL (NULL argument, malformed g or x), GAT_ENUMERIC (a NaN or Inf in x),
 * GAT_EDIM (x, g and the model disagree), GAT_ENOMEM. Cost: one forward + O(N C). */
GAT_API gat_status gat_model_predict(gat_model *m, const gat_graph *g, const gat_csr *x,
                                     gat_idx *classes, gat_real *probability);

#ifdef __cplusplus
}
#endif
#endif
