/* Graph transformers with global self-attention (issue 39 items 2-3): a stack of GPS-style
 * hybrid layers, each a local GAT update and a global attention update of the same input, or
 * either alone, for node classification on a graph and for graph classification on batches of
 * graphs.
 *
 * The model, width D, heads H (D a multiple of H), L layers, input x (N, F) sparse:
 *   h_0 = x W_in + b_in
 *   layer l (kind GAT_GPS_HYBRID; GAT_GPS_GLOBAL leaves out the GAT term, GAT_GPS_LOCAL the
 *   attention term):
 *     a   = h + drop(GAT(h)) + drop(Attn(h))
 *     u   = LN_1(a)
 *     h'  = LN_2(u + drop(relu(u W_1 + b_1)) W_2 + b_2)          (MLP of width 2D)
 *   GAT(h): one graph attention layer of the engine (gat/model.h, score gat) with H heads of
 *     width D averaged, its edge softmax over the graph's in-edges, its bias; attention dropout
 *     att_dropout.
 *   Attn(h): multi-head scaled dot-product self-attention over every node of the node's graph,
 *     q = h W_q + b_q, k, v likewise (H heads of D / H), O_i = sum_j softmax_j(q_i . k_j /
 *     sqrt(D / H)) v_j over the nodes j of i's graph (segment), out = O W_o + b_o: exact, streamed
 *     (memory linear in the nodes); on a single graph of more than `anchors` nodes (anchors > 0)
 *     every node attends to `anchors` keys drawn uniformly from the seed instead (an
 *     approximation; docs/encodings.md measures its error).
 *   LN: layer normalisation per node over its D values, y = g (x - mean) / sqrt(var + 1e-5) + b:
 *     batch-independent (a node's output never depends on the other graphs of its batch) and the
 *     same in training and inference.
 *   drop: dropout p = dropout in training (none in inference).
 *   Kind GAT_GPS_BN, the GAT layer of benchmarking-gnns (Dwivedi et al., layers/gat_layer.py:
 *   GATConv, BatchNorm1d, ELU, residual), instead of the above:
 *     h'  = h + drop(ELU(BN(GAT_cat(h))))      (h + only with residual = 1)
 *   GAT_cat(h): one attention layer of the engine (score gat, W (D, D) head-major columns,
 *     a_src, a_dst (H_l, D / H_l), bias (D)) with H_l heads of width D / H_l concatenated and no
 *     activation; H_l = heads, or last_heads on the last layer when set (benchmarking-gnns'
 *     last layer has one head).
 *   BN: batch normalisation per feature over the nodes of the forward's graph(s): in training
 *     the batch's mean and biased variance, y = g (x - mean) / sqrt(var + 1e-5) + b, and the
 *     running statistics updated as PyTorch's BatchNorm1d does (momentum 0.1, the unbiased
 *     variance; initially 0 and 1); in inference the running statistics. So in training a
 *     graph's outputs depend on the other graphs of its batch, and training and inference
 *     compute different functions (as in the reference).
 *   The running statistics are the tensors "layer<l>.bn.running_mean" and ".running_var", the
 *   last of the parameter buffer: training forwards write them, their gradient is zero, and the
 *   trainers' Adam steps leave them alone (gat_gps_trainable).
 *   Kind GAT_GPS_FFN, the GAT of Platonov et al. 2023 ("A critical look at the evaluation of
 *   GNNs under heterophily"; their code's Model with GATModule: pre-norm residual blocks, each a
 *   GAT layer followed by a feed-forward block), instead of all the above:
 *     h_0 = GELU(drop(x W_in + b_in))
 *     h'  = h + drop(GELU(drop(GAT_cat(LN(h)) W_1 + b_1)) W_2 + b_2)     (W_1, W_2 (D, D))
 *     and the output reads LN_out(h_L) (tensors "output_norm.gain", ".bias") instead of h_L.
 *   GAT_cat as for GAT_GPS_BN with H heads of D / H on every layer; GELU the exact one,
 *   x Phi(x). Their scores read the whole projected vector (a linear map of all D values per
 *   head), ours each head's slice (the GAT paper's score).
 *   Output: node task, logits = h_L W_out + b_out (N, C); graph task, a readout per graph (sum,
 *     mean, max, gat/readout.h: r (B, D); or attention, a GAT graph model's, its tensors
 *     "readout.gate_weight" (D, K A), "readout.gate_bias", "readout.gate_att" (K, A) after the
 *     layers': r (B, K D)), logits = r W + c (B, C), or with classifier_layers
 *     k > 0 the MLP of graph models (gat/model.h: k hidden ReLU layers halving the width,
 *     "classifier.hidden<i>.weight", ...).
 * Parameters: one buffer (gat_gps_params), tensors in a fixed order ("input.weight",
 * "layer<l>.gat.weight", ...), Glorot-uniform weights, zero biases, unit gains; gradients and
 * Adam's moments in buffers of the same layout.
 *
 * Results are the same bits for any thread count (every reduction in a fixed order; the GAT
 * term runs the engine, whose results do not depend on it). A model is not thread-safe. */
#ifndef GAT_GPS_H
#define GAT_GPS_H

#include "dataset.h"
#include "model.h"
#include "modelfile.h"
#include "train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What each layer holds. */
typedef enum gat_gps_kind {
    GAT_GPS_HYBRID = 0, /* "gps": GAT and global attention, then the MLP */
    GAT_GPS_GLOBAL = 1, /* "transformer": global attention, then the MLP */
    GAT_GPS_LOCAL = 2,  /* "gat-mlp": GAT, then the MLP (the ablation without attention) */
    GAT_GPS_BN = 3,     /* "gat-bn": the GAT layer of benchmarking-gnns (above) */
    GAT_GPS_FFN = 4     /* "gat-ffn": pre-norm GAT and feed-forward blocks (above) */
} gat_gps_kind;
#define GAT_GPS_KIND_COUNT 5

/* The kind's name ("gps", "transformer", "gat-mlp", "gat-bn", "gat-ffn"), or NULL. */
GAT_API const char *gat_gps_kind_name(gat_gps_kind k);
/* The kind called name (ASCII case-insensitive) into *out. Returns GAT_EINVAL (NULL argument,
 * an unknown name: the message lists the names). */
GAT_API gat_status gat_gps_kind_from_name(const char *name, gat_gps_kind *out);

typedef struct gat_gps_config {
    gat_idx in_features;  /* F (> 0) */
    gat_idx classes;      /* C: node classes, or graph classes with GAT_TASK_GRAPH (> 0) */
    gat_task task;        /* GAT_TASK_NODE (default) or GAT_TASK_GRAPH */
    gat_readout readout;  /* graph task: sum (default), mean or max */
    gat_gps_kind kind;    /* default GAT_GPS_HYBRID */
    gat_idx dim;          /* D (default 64), a multiple of heads */
    gat_idx layers;       /* L, 1..GAT_MAX_LAYERS (default 2) */
    gat_idx heads;        /* H of the GAT term and of the attention, 1..D (default 4) */
    double dropout;       /* on the two terms and the MLP's hidden layer, [0, 1) (default 0.1) */
    double att_dropout;   /* on the GAT term's attention coefficients, [0, 1) (default 0) */
    double negative_slope; /* the GAT score's LeakyReLU (default 0.2) */
    gat_idx anchors;      /* 0 (default): exact attention; M > 0: anchor attention on a single
                           * graph of more than M nodes */
    /* Fields added with kind GAT_GPS_BN; zero keeps the models as before. */
    gat_idx last_heads;    /* GAT_GPS_BN: the last layer's heads, a divisor of D (0: heads) */
    int residual;          /* GAT_GPS_BN: 1 adds the layer's input (h + ...), 0 not; the other
                            * kinds' residual sums are part of them (0 only) */
    int classifier_layers; /* graph task: hidden layers of the classifier,
                            * 0..GAT_MAX_CLASSIFIER_LAYERS (R / 2^k >= 1, R the readout's width) */
    /* Fields added with the attention readout; zero keeps the models as before. */
    gat_idx readout_heads;  /* readout attention: heads K, 1..GAT_MAX_HEADS (0: 1) */
    gat_idx readout_hidden; /* readout attention: gate width A, 1..65536 (0: D) */
    /* Added with whole-row scores; zero keeps the models as before. */
    int whole_scores; /* the GAT term's score halves: 0 each head's own slice of its projection
                       * z_i (s_src_ih = z_ih . a_src_h, a_src (H, Fo), the GAT paper's); 1 the
                       * whole row for every head and a bias per head (s_src_ih = z_i . a_src_h,
                       * s_dst_ih = z_i . a_dst_h + c_h; a_src, a_dst (H, H Fo), c (H), tensor
                       * att_bias, initially 0), as the GAT of Platonov et al. 2023; not with kind
                       * transformer */
    /* Added with PyTorch's initialisation; zero keeps the models as before. */
    int linear_init; /* the initial values: 0 glorot weights (a GAT score's vectors per head as
                      * PyG's) and zero biases; 1 PyTorch's nn.Linear default, every linear map's
                      * weight and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (a score's (H, W)
                      * vectors as nn.Linear(W, H), the whole-row scores' bias as
                      * attn_linear_u's), the norms' gains 1 and biases 0: the initial model of
                      * code that leaves PyTorch's defaults, as Platonov et al.'s */
} gat_gps_config;

typedef struct gat_gps gat_gps;

/* The defaults above for F inputs and C classes. NULL c: nothing. */
GAT_API void gat_gps_config_default(gat_gps_config *c, gat_idx in_features, gat_idx classes);
/* GAT_EINVAL naming the first bad field (NULL c too). Cost O(1). */
GAT_API gat_status gat_gps_config_check(const gat_gps_config *c);

/* A model with weights drawn from seed. *out: set on success (free with gat_gps_free).
 * Returns GAT_EINVAL (config), GAT_ENOMEM. Cost O(parameters). */
GAT_API gat_status gat_gps_create(gat_gps **out, const gat_gps_config *c, uint64_t seed);
/* Frees m. Accepts NULL. */
GAT_API void gat_gps_free(gat_gps *m);
/* m's configuration (borrowed), NULL for NULL m. */
GAT_API const gat_gps_config *gat_gps_get_config(const gat_gps *m);
/* OpenMP threads of the kernels (n <= 0: all cores); results do not depend on it. */
GAT_API void gat_gps_set_threads(gat_gps *m, int n);
/* The parameter and gradient buffers (borrowed, writable; *count values, count may be NULL). */
GAT_API gat_real *gat_gps_params(gat_gps *m, size_t *count);
GAT_API gat_real *gat_gps_grads(gat_gps *m, size_t *count);
/* The parameter table: *count tensors (borrowed, valid while m lives). */
GAT_API const gat_model_tensor *gat_gps_tensors(const gat_gps *m, int *count);
/* How many values at the start of the parameter buffer an optimiser steps: all of them, less
 * the batch-norm running statistics at its end (kind GAT_GPS_BN). 0 for NULL m. */
GAT_API size_t gat_gps_trainable(const gat_gps *m);

/* Forward on graph g and features x (x->rows == g->n, x->cols == in_features; both borrowed for
 * the call and until the backward) whose nodes form n_seg graphs, segment s the nodes
 * seg_ptr[s] .. seg_ptr[s+1]-1 (0 = seg_ptr[0] < ... < seg_ptr[n_seg] = g->n; no edge may join
 * two segments; n_seg = 1, seg_ptr = {0, n}: one graph). training: dropout on (masks drawn from
 * the seed and a step counter), caches kept for gat_gps_backward. *logits: (N, C) for a node
 * model, (n_seg, C) for a graph model, owned by m, valid until the next call on m.
 * Returns GAT_EINVAL (NULL argument, bad segments, a malformed g or x), GAT_EDIM (sizes
 * disagree), GAT_ENUMERIC (a NaN or Inf feature), GAT_ENOMEM. Cost per layer O(E H D + N D^2)
 * plus the attention, O(sum_s n_s^2 D) exact, O(N M D) with M anchors; memory O(N D L). */
GAT_API gat_status gat_gps_forward(gat_gps *m, const gat_graph *g, const gat_csr *x,
                                   gat_idx n_seg, const gat_idx *seg_ptr, int training,
                                   const gat_real **logits);
/* Back-propagates dlogits (the forward's logits' shape) through the last training forward,
 * ADDING into gat_gps_grads (gat_gps_zero_grads first). Returns GAT_EINVAL (no training forward
 * before, NULL argument). Cost about twice the forward. */
GAT_API gat_status gat_gps_backward(gat_gps *m, const gat_real *dlogits);
/* Zeroes the gradients. NULL m: nothing. */
GAT_API void gat_gps_zero_grads(gat_gps *m);

/* Model files (gat/modelfile.h's layout and checks): the configuration under "model": "gps" in
 * "__metadata__" with the meta's keys, and the tensors of gat_gps_tensors, batch-norm running
 * statistics included. gat_gps_save returns what gat_model_save does (GAT_EINVAL for a bad meta:
 * n_classes neither 0 nor classes, a pe or standardisation that does not fit in_features, ...;
 * GAT_ENUMERIC, GAT_EIO, GAT_ENOMEM); saving is atomic. gat_gps_load: *out a new model (free
 * with gat_gps_free) or NULL, meta as gat_model_load's; returns what gat_model_load does, and
 * GAT_EFORMAT for a file holding a GAT model (gat_model_load reads it; gat_model_load refuses
 * these files likewise). Cost O(parameters) and O(file size). */
GAT_API gat_status gat_gps_save(const gat_gps *m, const gat_model_meta *meta, const char *path);
GAT_API gat_status gat_gps_load(gat_gps **out, gat_model_meta *meta, const char *path);
/* Which loader reads the model file at path: *gps = 1 for gat_gps_load's files, 0 otherwise
 * (gat_model_load's, or a file whose metadata the loaders will refuse). Returns GAT_EIO, and
 * GAT_EFORMAT for a file that is not in the safetensors layout, GAT_EINVAL (NULL argument). */
GAT_API gat_status gat_model_file_is_gps(const char *path, int *gps);

/* Node classification on ds (full graph; a dataset of many graphs attends within each graph):
 * Adam steps on the training nodes' cross-entropy, early stopping as gat_train's (gat_train's
 * epoch loop: metric ACC, LOSS or, for a two-class model, AUC, eval_every, patience), the best
 * model restored, its validation and test figures in res (the ROC-AUCs of a two-class model,
 * else NaN). Uses adam, max_epochs, patience, eval_every, metric, progress and user of cfg, and
 * its checkpoint fields as gat_train does (gat/train.h; the model's configuration and seed,
 * parameters, running statistics and Adam moments are the checkpoint's).
 * Returns GAT_EINVAL (a graph model, a multi-label dataset, no training or validation node, bad
 * cfg, metric AUC with other than two classes, a resume checkpoint that does not fit), GAT_EDIM,
 * GAT_ENUMERIC (diverged; the best model is restored), GAT_EINTERRUPTED (progress asked to
 * stop), GAT_EIO and GAT_EFORMAT (checkpoints, as gat_train), GAT_ENOMEM. */
GAT_API gat_status gat_gps_train(gat_gps *m, const gat_dataset *ds, const gat_train_config *cfg,
                                 gat_train_result *res);

/* Graph classification of ds's graphs with graph_split (n_graphs) GAT_SPLIT_* per graph: epochs
 * of batches of cfg->batch_size training graphs (0: all) shuffled by cfg->seed and the epoch,
 * early stopping on the validation graphs, the best model restored; res, the schedule,
 * keep_last and checkpoints as gat_graph_train.
 * Returns GAT_EINVAL (a node model, no labelled graphs, no training or validation graph, bad
 * cfg, a resume checkpoint that does not fit), GAT_EDIM, GAT_ENUMERIC, GAT_EINTERRUPTED,
 * GAT_EIO, GAT_EFORMAT (checkpoints), GAT_ENOMEM. */
GAT_API gat_status gat_gps_graph_train(gat_gps *m, const gat_dataset *ds,
                                       const uint8_t *graph_split, const gat_train_config *cfg,
                                       gat_train_result *res);

/* Inference of graph model m on the graphs of split `which`, in batches of 128: mean loss and
 * accuracy (either may be NULL), pred (n_graphs, may be NULL) the predicted class of each of
 * those graphs. Returns GAT_EINVAL (no such graph, not a graph model), GAT_EDIM (the dataset
 * has more graph classes than the model predicts), the forward's statuses. */
GAT_API gat_status gat_gps_graph_evaluate(gat_gps *m, const gat_dataset *ds,
                                          const uint8_t *graph_split, gat_split which,
                                          double *loss, double *acc, gat_idx *pred);

#ifdef __cplusplus
}
#endif
#endif
