/* Private: the readout kernels of graph models (readout.c) and their caches in a model
 * (graph_model.c). Shapes: B graphs, N nodes, node embeddings h (N, D), K attention heads of
 * gate width A, readout width R (D, or K D for attention), C graph classes. */
#ifndef GAT_I_READOUT_H
#define GAT_I_READOUT_H

#include "gat/readout.h"
#include "model/binding.h"

/* Config checks of the graph fields (task, readout, readout_heads, readout_hidden,
 * graph_classes); the messages name the field. */
gat_status gat_i_readout_config_check(const gat_model_config *c);
/* A readout of kind over D-wide node embeddings with the configured heads and gate width: K and A
 * as models use them (0: 1 and D; K is 1 but for attention) into *K, *A (either may be NULL),
 * and its width R (K D for attention, else D) returned. Graph models and graph transformers
 * alike. */
gat_idx gat_i_readout_shape(gat_readout kind, gat_idx heads, gat_idx hidden, gat_idx D, gat_idx *K,
                            gat_idx *A);
/* The same for a graph model's config (D = classes, its node embeddings' width). */
gat_idx gat_i_readout_heads(const gat_model_config *c);
gat_idx gat_i_readout_hidden(const gat_model_config *c);
gat_idx gat_i_readout_width(const gat_model_config *c);

/* One readout over a batch: arguments and caches of forward and backward. */
typedef struct gat_i_readout_op {
    gat_readout kind;
    gat_idx B, D, K, A;
    const gat_idx *ptr;        /* (B + 1) node offsets: graph b is nodes ptr[b] .. ptr[b+1]-1 */
    const gat_real *V, *c, *w; /* attention: gate weight (D, K A), bias (K A), att (K, A) */
    gat_real *dV, *dc, *dw;    /* their gradients (backward adds into them) */
    gat_real *u;               /* attention: (N, K A) tanh(h V + c), filled by forward */
    gat_real *a;               /* attention: (N, K) softmax over each graph's nodes, forward */
    gat_real *dz, *dg;         /* attention: backward scratch (N, K A) and (N, K) */
    gat_idx *arg;              /* max: (B, D) the first node of each column's maximum, forward */
    int threads;               /* OpenMP threads of the loops over graphs */
} gat_i_readout_op;

/* r (B, R) = the readout of h (N, D); fills the caches of op->kind. Every graph must have at
 * least one node. Cost O(N D) (attention: O(N D K A)). */
void gat_i_readout_forward(const gat_i_readout_op *op, const gat_real *h, gat_real *r);
/* Adds d loss / d h (N, D) into dh and the attention gate's gradients into dV, dc, dw, from
 * dr (B, R), after the forward on the same h. */
void gat_i_readout_backward(const gat_i_readout_op *op, const gat_real *h, const gat_real *dr,
                            gat_real *dh);

/* y (B, C) = x (B, R) W (R, C) + b (C). */
void gat_i_linear_forward(gat_idx B, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                          const gat_real *b, gat_real *y);
/* Adds dx (B, R) += dy W^T, dW (R, C) += x^T dy, db (C) += sum_b dy (dx may be NULL). */
void gat_i_linear_backward(gat_idx B, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                           const gat_real *dy, gat_real *dx, gat_real *dW, gat_real *db);

/* The classifier on the readouts: L hidden layers z_{k+1} = ReLU(z_k W_k + b_k), z_0 = x (B, R),
 * z_k (B, R / 2^k), then y = z_L W_L + b_L (B, C) (L = 0: the linear classifier). */
typedef struct gat_i_mlp_op {
    gat_idx B, R, C;
    int L;
    const gat_real *W[GAT_MAX_CLASSIFIER_LAYERS + 1], *b[GAT_MAX_CLASSIFIER_LAYERS + 1];
    gat_real *dW[GAT_MAX_CLASSIFIER_LAYERS + 1], *db[GAT_MAX_CLASSIFIER_LAYERS + 1];
    gat_real *act;     /* (gat_i_mlp_act_size) z_1 .. z_L one after another, filled by forward */
    gat_real *scratch; /* (2 B R / 2) backward scratch (unused when L = 0) */
} gat_i_mlp_op;

/* Length of the hidden outputs of B rows: B (R/2 + ... + R/2^L). */
size_t gat_i_mlp_act_size(gat_idx B, gat_idx R, int L);
/* y (B, C) from x (B, R); fills op->act. Cost O(B R (C + R)). */
void gat_i_mlp_forward(const gat_i_mlp_op *op, const gat_real *x, gat_real *y);
/* Adds d loss / d x into dx (B, R) and the parameters' gradients into every dW, db, from dy
 * (B, C), after the forward on the same x. */
void gat_i_mlp_backward(const gat_i_mlp_op *op, const gat_real *x, const gat_real *dy,
                        gat_real *dx);

/* Binds batch b to m, graph or node model (graph_model.c): the one place batches of graphs are
 * bound. The batch's arrays may hold new graphs at the old addresses, so every batch is bound
 * again: trusted (b made by gat_graph_batch_make from a dataset checked once,
 * gat_i_graph_check_dataset) without the checks, else a caller's batch with gat_model_bind's
 * and gat_model_bind_edge_features' (fn starts the messages). *bb: the binding, for the forward
 * (rows NULL: every row). Returns gat_i_model_bind's statuses. */
gat_status gat_i_graph_bind_batch(gat_model *m, const gat_graph_batch *b, int trusted,
                                  const char *fn, gat_i_binding *bb);

/* A graph model's caches (graph_model.c), freed with the model. */
struct gat_i_readout_ws;
void gat_i_readout_ws_free(struct gat_i_readout_ws *ws);
/* gat_model_forward_graphs; trusted: b was made by gat_graph_batch_make from a dataset already
 * checked (gat_i_graph_check_dataset): bound without the checks. */
gat_status gat_i_model_forward_graphs(gat_model *m, const gat_graph_batch *b, int training,
                                      int trusted, const gat_real **logits);
/* The one check of a dataset of graphs whose batches a loop binds as trusted: its whole graph,
 * features and edge features as a binding's (fn starts the messages). */
gat_status gat_i_graph_check_dataset(const gat_model *m, const gat_dataset *ds, const char *fn);
/* Scratch of a graph model's training step, kept in m: *dlogits (B, graph_classes) and *all
 * (B) set to GAT_SPLIT_TRAIN. Returns GAT_EINVAL (not a graph model), GAT_ENOMEM. */
gat_status gat_i_graph_scratch(gat_model *m, gat_idx B, gat_real **dlogits, uint8_t **all);

#endif
