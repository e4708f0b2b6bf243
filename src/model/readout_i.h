/* Private: the readout kernels of graph models (readout.c) and their caches in a model
 * (graph_model.c). Shapes: B graphs, N nodes, node embeddings h (N, D), K attention heads of
 * gate width A, readout width R (D, or K D for attention), C graph classes. */
#ifndef GAT_I_READOUT_H
#define GAT_I_READOUT_H

#include "gat/readout.h"

/* Config checks of the graph fields (task, readout, readout_heads, readout_hidden,
 * graph_classes); the messages name the field. */
gat_status gat_i_readout_config_check(const gat_model_config *c);
/* K and A as the model uses them (0 in the config: 1 and D), and the readout width R. */
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
