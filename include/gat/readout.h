/* Graph classification: batches of graphs, readouts and a graph model's forward, backward,
 * training step, k-fold cross-validation and trainer.
 *
 * A graph model (gat_model_config.task = GAT_TASK_GRAPH) runs its attention layers on a batch of
 * B graphs bound as one block-diagonal graph (no edge between two graphs, one self-loop per node)
 * whose last layer gives node embeddings h (N, D), D = the config's `classes`; a readout pools
 * them per graph b (nodes ptr[b] .. ptr[b+1]-1) into r_b, and a linear classifier gives the
 * logits y_b = r_b W + c (B, graph_classes), trained with softmax cross-entropy per graph; with
 * classifier_layers L > 0 the classifier is an MLP, z_0 = r_b, z_{k+1} = ReLU(z_k W_k + c_k) of
 * width R / 2^(k+1), y_b = z_L W + c (benchmarking-gnns' MLPReadout).
 * Readouts (gat_readout), with n_b the nodes of graph b:
 *   sum        r_b = sum_i h_i                                   (width D)
 *   mean       r_b = sum_i h_i / n_b                             (width D)
 *   max        r_b[d] = max_i h_i[d] (the gradient goes to the first node of the maximum)
 *   attention  per head k: u_ik = tanh(h_i V_k + c_k) (A), g_ik = w_k . u_ik,
 *              a_ik = exp(g_ik) / sum_j exp(g_jk) over the graph's nodes (maximum subtracted),
 *              r_b = [sum_i a_i1 h_i, ..., sum_i a_iK h_i]      (width K D)
 *              as PyG's AttentionalAggregation with gate_nn = Linear(D, A), Tanh, Linear(A, 1)
 *              per head (the softmax makes the last linear layer's bias irrelevant).
 * Tensors, after the layers' in the parameter table (so Adam, model files and gat_model_params
 * cover them): "readout.gate_weight" (D, K A) V, "readout.gate_bias" (K A) c, "readout.gate_att"
 * (K, A) w (attention only), then per hidden layer k of the classifier
 * "classifier.hidden<k>.weight" (R / 2^k, R / 2^(k+1)) and "classifier.hidden<k>.bias", then
 * "classifier.weight" (R / 2^L, graph_classes), "classifier.bias" (graph_classes). Model files
 * record task, readout, readout_heads, readout_hidden, graph_classes and (when > 0)
 * classifier_layers; files without them are node models. */
#ifndef GAT_READOUT_H
#define GAT_READOUT_H

#include "dataset.h"
#include "model.h"
#include "optim.h"
#include "train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* B graphs of a dataset as one graph: their nodes in the order of `ids`, each graph's nodes in
 * the dataset's order. The caller reads the fields; gat_graph_batch_make fills them, reusing the
 * arrays of an earlier batch when they are large enough (so the arrays may stay at the same
 * addresses with new contents: gat_model_forward_graphs binds every batch again). */
typedef struct gat_graph_batch {
    gat_idx n_graphs;      /* B */
    gat_idx *graph_ptr;    /* (B + 1) node offsets: graph b is nodes graph_ptr[b] .. [b+1]-1 */
    gat_idx *graph_ids;    /* (B) the dataset's graph of each graph of the batch */
    gat_idx *labels;       /* (B) their labels (the dataset's graph_labels), or -1 without */
    gat_graph graph;       /* the block-diagonal in-CSR (and out-CSR), self-loops included */
    gat_csr x;             /* (N, F) the nodes' features */
    gat_real *edge_x;      /* (E, D) the edges' features, NULL when the dataset has none */
    gat_idx n_edge_features;
    size_t cap[12];        /* private: the arrays' capacities */
    /* Added with multi-label batches (gat_graph_train on a multi-label dataset): the nodes'
     * label rows (N, n_labels) of 0/1 when the dataset has multi-hot labels (n_labels > 0),
     * else NULL and 0. */
    uint8_t *label_matrix;
    gat_idx n_labels;
    size_t cap_labels;     /* private: label_matrix's capacity */
} gat_graph_batch;

/* Fills b (zeroed or an earlier batch) with the graphs ids[0..count) of ds (borrowed; a dataset
 * of many graphs, ds->n_graphs > 0; ids may repeat). Returns GAT_EINVAL (NULL argument, a
 * dataset without graphs, count < 1, an id outside [0, n_graphs), naming its position),
 * GAT_ENOMEM (b keeps its earlier contents' arrays; destroy it). Cost O(nodes + edges + nnz of
 * the batch). */
GAT_API gat_status gat_graph_batch_make(gat_graph_batch *b, const gat_dataset *ds,
                                        const gat_idx *ids, gat_idx count);

/* Frees b's arrays and zeroes it. Accepts NULL and a zeroed batch. */
GAT_API void gat_graph_batch_destroy(gat_graph_batch *b);

/* Runs graph model m on batch b (borrowed; bound again on every call, with its edge features
 * when the model has edge_dim > 0): training != 0 as in gat_model_forward (dropout, caches for
 * gat_model_backward_graphs). *logits: (B, graph_classes), owned by m, valid until the next
 * call on m. Returns GAT_EINVAL (NULL argument, not a graph model, malformed batch), GAT_EDIM
 * (widths disagree), GAT_ENUMERIC, GAT_ENOMEM, and what gat_model_forward returns. Cost: the
 * layers' forward + O(N R + B R C) (attention: + O(N D K A)). */
GAT_API gat_status gat_model_forward_graphs(gat_model *m, const gat_graph_batch *b, int training,
                                            const gat_real **logits);

/* Back-propagates dlogits (B, graph_classes) through the last training forward of
 * gat_model_forward_graphs, ADDING into gat_model_grads (zero them first). Returns GAT_EINVAL
 * (NULL argument; no training forward of graphs before). Cost about twice the forward's. */
GAT_API gat_status gat_model_backward_graphs(gat_model *m, const gat_real *dlogits);

/* After gat_model_forward_graphs: *pooled = the readouts r (B, R), R = D or K D for attention,
 * and *attention = the attention readout's a (N, K) (NULL for other readouts); either pointer
 * may be NULL. Owned by m, valid until its next forward. Returns GAT_EINVAL (NULL m, no forward
 * of graphs yet). */
GAT_API gat_status gat_model_graph_outputs(const gat_model *m, const gat_real **pooled,
                                           const gat_real **attention);

/* One training step of graph model m on batch b (labels b->labels, all in [0, graph_classes)):
 * training forward, mean softmax cross-entropy over the B graphs, backward, Adam step t (1, 2,
 * ...) with the model's moments. *loss, *acc (may be NULL): before the update. Returns
 * GAT_EINVAL (NULL argument, t < 1, a bad adam config, a label outside the classes), GAT_ENUMERIC
 * (the loss, a gradient or a parameter not finite: "training diverged at step t"), and the
 * forward's statuses. Cost: one forward and one backward of the batch, O(P) for Adam. */
GAT_API gat_status gat_graph_train_step(gat_model *m, const gat_graph_batch *b,
                                        const gat_adam_config *adam, gat_idx t, double *loss,
                                        double *acc);

/* Inference of graph model m on the graphs of ds whose graph_split equals which (graph_split:
 * (n_graphs) GAT_SPLIT_* per graph, borrowed), in batches of batch_graphs (< 1: 128). loss, acc,
 * macro_f1 (each may be NULL): mean cross-entropy, accuracy and macro-F1 (gat_macro_f1) over
 * those graphs. pred (may be NULL): (n_graphs) caller's, receives the predicted class of
 * each of those graphs (others unchanged). Returns GAT_EINVAL (NULL m, ds or graph_split; no
 * graph of that split; a dataset without graph labels), and the forward's statuses. */
GAT_API gat_status gat_graph_evaluate(gat_model *m, const gat_dataset *ds,
                                      const uint8_t *graph_split, gat_split which,
                                      gat_idx batch_graphs, double *loss, double *acc,
                                      double *macro_f1, gat_idx *pred);

/* Inference of graph model m on every graph of ds (borrowed; graph labels not needed), in
 * batches of batch_graphs (< 1: 128). Each output may be NULL, else caller's: pooled
 * (n_graphs, R) the readouts r (R = classes, or readout_heads x classes for attention),
 * attention (n, K) the attention readout's weights per node (K = readout_heads, at least 1; only
 * with the attention readout, else GAT_EINVAL), pred (n_graphs) the predicted class (the largest
 * logit, the first on ties) and prob (n_graphs) its softmax probability. Returns GAT_EINVAL (NULL
 * m or ds, not a graph model, a dataset without graphs, attention without the attention
 * readout), GAT_EDIM, and the forward's statuses. Cost: one inference forward per batch. */
GAT_API gat_status gat_graph_embed(gat_model *m, const gat_dataset *ds, gat_idx batch_graphs,
                                   gat_real *pooled, gat_real *attention, gat_idx *pred,
                                   gat_real *prob);

/* Trains graph model m on ds's graphs with graph_split (n_graphs) GAT_SPLIT_* per graph: each
 * epoch shuffles the training graphs (by cfg->seed and the epoch: the same batches for any
 * thread count) and runs one gat_graph_train_step per cfg->batch_size graphs (0: all of them;
 * the last batch may be smaller), Adam's t counting steps; then the validation graphs' loss and
 * accuracy drive gat_train's early stopping (patience on both, the best model restored) and
 * res->test_* are the restored model's on the test graphs (0 without any). train_loss and
 * train_acc of the progress callback are means over the epoch's graphs. With lr_factor > 0 the
 * lr follows gat_train_config's schedule (plateaus of the validation loss, or every lr_step
 * epochs), and training ends (GAT_OK, the best model restored) once it falls below min_lr. Uses
 * max_epochs, patience, eval_every, metric (GAT_METRIC_ACC or GAT_METRIC_LOSS; the AUC is
 * GAT_EINVAL), adam, progress, user, batch_size, seed, lr_factor, lr_patience, lr_step, min_lr and
 * keep_last of cfg (n_fanout, fanout, stage, stop are not used); with keep_last the
 * model and figures are the last epoch's instead of the best validation epoch's. Checkpoints
 * (checkpoint, checkpoint_every, checkpoint_seconds, resume) as gat_train's: a resume also
 * needs the same graph_split, graphs, graph labels and schedule (lr_factor, lr_patience,
 * lr_step, min_lr, keep_last), and goes on with the order of the training graphs and the lr
 * the run had (both replayed from the checkpoint's history); with keep_last a max_epochs or
 * patience that ends the run before the checkpoint's last epoch is refused.
 * Multi-label node tasks in batches of graphs (the GAT paper's PPI setup: 2 graphs per step): m
 * a node model (task node, classes = ds->n_labels) and ds a multi-label dataset of graphs
 * (n_labels > 0); each step trains on every node of batch_size whole training graphs (sigmoid
 * cross-entropy over their nodes and labels, gat_train's step), the validation and test figures
 * are the cross-entropy and micro-F1 of those graphs' nodes (in the accuracy fields, as gat_train
 * reports multi-label runs), the progress callback's train_loss and train_acc means over the
 * epoch's batches weighted by their nodes.
 * Returns GAT_EINVAL (bad config field, a dataset without graph labels, a node model on a
 * dataset without multi-hot labels, no training or no validation graph), GAT_EDIM, GAT_ENUMERIC,
 * GAT_EINTERRUPTED, GAT_EIO, GAT_EFORMAT (checkpoints), GAT_ENOMEM as gat_train. */
GAT_API gat_status gat_graph_train(gat_model *m, const gat_dataset *ds, const uint8_t *graph_split,
                                   const gat_train_config *cfg, gat_train_result *res);

/* Stratified k-fold assignment: fold (n) caller's receives each item's fold in [0, k): within
 * each class (labels (n) in [0, classes)), the items in an order shuffled by seed are dealt to
 * the folds in turn, continuing from fold to fold across classes, so fold sizes differ by at
 * most one and each class's count by at most one between folds. The same for a seed on every
 * machine. Returns GAT_EINVAL (NULL argument, n < 1, k < 2 or k > n, a label outside
 * [0, classes)), GAT_ENOMEM. Cost O(n + classes). */
GAT_API gat_status gat_graph_folds(const gat_idx *labels, gat_idx n, gat_idx classes, gat_idx k,
                                   uint64_t seed, gat_idx *fold);

/* The split of fold f of a k-fold assignment: fold f is the test part, fold (f + 1) mod k the
 * validation part, the rest training. split (n) caller's, unchanged on failure. Returns
 * GAT_EINVAL (NULL argument, k < 3: no training part, f outside [0, k), a fold value outside
 * [0, k)). Cost O(n). */
GAT_API gat_status gat_graph_fold_split(const gat_idx *fold, gat_idx n, gat_idx k, gat_idx f,
                                        uint8_t *split);

#ifdef __cplusplus
}
#endif
#endif
