/* Private view of gat_model for the trainer, model files and tests. */
#ifndef GAT_I_MODEL_H
#define GAT_I_MODEL_H

#include "gat/model.h"
#include "model/fast.h"

/* Most tensors of a model: per layer weight, the score's (at most three), bias, res, and the edge
 * term's two (gat: 4 + 1 + 2). Model files size their tables with it. */
#define GAT_I_MAX_TENSORS (8 * GAT_MAX_LAYERS)

/* Whether the binding is an inference binding. */
int gat_i_model_lean(const gat_model *m);
/* The kernels' thread count (gat_model_set_threads, resolved). */
int gat_i_model_threads(const gat_model *m);
/* The threads the binding's next call would use (the governor's choice of
 * gat_model_set_threads', or all of them with options.fixed_threads); 0 when nothing is bound. */
int gat_i_model_threads_in_use(const gat_model *m);
/* Adam's moment buffers (same layout as the parameters). */
void gat_i_model_moments(gat_model *m, gat_real **m1, gat_real **m2);
/* The dropout step of the last training forward (0 before the first): the next one draws the
 * masks of step + 1 unless its run names a step (gat_i_run.step). */
uint64_t gat_i_model_step(const gat_model *m);
/* That step's counter, to save and set (a resumed training's, io/checkpoint.h). */
uint64_t *gat_i_model_dropout_step(gat_model *m);
/* The seed of gat_model_create: initial values and dropout masks. */
uint64_t gat_i_model_seed(const gat_model *m);
/* A scratch buffer of (n, classes) for d loss / d logits, owned by m and kept (grown when n
 * needs more) across calls; NULL on allocation failure (GAT_ENOMEM recorded). */
gat_real *gat_i_model_dlogits(gat_model *m, gat_idx n);
/* The rows 0, 1, ..., n - 1 (a sampled block's targets as output rows), owned by m and kept
 * (grown when n needs more); NULL on allocation failure (GAT_ENOMEM recorded). */
const gat_idx *gat_i_model_rows(gat_model *m, gat_idx n);
/* The kernels the model runs (its options.kernels): what the trainer's Adam step runs too. */
const gat_i_fused_ops *gat_i_model_ops(const gat_model *m);
/* The instruction set of the kernels the last forward ran, or NULL (none ran on the binding). */
const char *gat_i_model_fused_isa(const gat_model *m);
/* Whether layer l of m's binding keeps its per-edge attention arrays (alpha, the LeakyReLU signs,
 * the dropout keeps) rather than recomputing them in the backward (options.alpha); 0 when
 * nothing is bound or l is out of range. */
int gat_i_model_keeps_alpha(const gat_model *m, int l);
/* Whether the last forward ran trimmed layers (a sampled block's hops, gat_i_binding.hop_end). */
int gat_i_model_trimmed(const gat_model *m);
/* The model's layers (layer_i.h), computed at create: *n of them (borrowed, valid while m
 * lives). */
const gat_i_layer *gat_i_model_layers(const gat_model *m, int *n);
/* GAT_EDIM naming both numbers unless D is the model's edge_dim (any D for edge_dim 0). */
gat_status gat_i_model_check_edge_dim(const gat_model *m, gat_idx D);
/* The checks of a binding of caller inputs (fn starts the messages): g and x against each other
 * and the model, then g as gat_graph_check, x as gat_csr_check and, for a model with edge_dim
 * D > 0, the edge features ex (E, D) (or NULL: not checked) for NaN and Inf, O(n + E + nnz(x) +
 * E D). Returns GAT_EDIM, GAT_EINVAL, GAT_ENUMERIC, GAT_ENOMEM. */
gat_status gat_i_model_check_inputs(const gat_model *m, const gat_graph *g, const gat_csr *x,
                                    const gat_real *ex, const char *fn);

/* Binds b (binding.h; its pointers borrowed, they must outlive the binding): checks its inputs
 * first unless b->flags has GAT_I_BIND_TRUSTED (fn starts the messages), then builds the order,
 * the renumbered inputs and the engine's caches, in the memory of the last binding where they
 * fit. A failed check leaves the last binding; a later failure (GAT_ENOMEM) leaves m unbound.
 * b's edge features must be checked by the caller (gat_model_bind_edge_features checks a
 * caller's). Returns gat_model_bind's statuses. */
gat_status gat_i_model_bind(gat_model *m, const gat_i_binding *b, const char *fn);
/* A forward of run on binding b: on the bound inputs when b holds them (the same inputs, edge
 * features, keys and remote rows as the binding; then nothing is checked or rebuilt, and b's
 * output rows are the ones computed), else after gat_i_model_bind(m, b). A training forward on an
 * inference binding binds its inputs again for training. *logits: (N, C) owned by m, valid until
 * the next forward. Returns gat_i_model_bind's statuses. */
gat_status gat_i_model_forward(gat_model *m, const gat_i_binding *b, const gat_i_run *run,
                               const gat_real **logits);
/* The backward of the last (training) forward from dlogits (N, C), borrowed: ADDS into the
 * gradients; run: its hook (or NULL: none). Returns GAT_EINVAL when the last forward was not a
 * training forward. */
gat_status gat_i_model_backward(gat_model *m, const gat_real *dlogits, const gat_i_run *run);
/* What a forward of run does (the engine's gat_i_fast_run): the dropout step (a training run
 * without one advances the model's counter, as gat_i_model_forward does), key, dropout, slope,
 * threads and hook. The tests' reference model runs the engine's masks with it. */
void gat_i_model_resolve_run(gat_model *m, const gat_i_run *run, gat_i_fast_run *out);

/* Each row's class (the largest logit, the first on ties) and, if probability is not NULL, its
 * softmax probability, from logits (n, C): gat_model_predict's rule. */
void gat_i_predict_rows(const gat_real *logits, gat_idx n, gat_idx C, gat_idx *classes,
                        gat_real *probability);
/* Softmax of each row of out (n, cols) in place: gat_model_embed's GAT_LAYER_PROBS. */
void gat_i_softmax_rows(gat_real *out, size_t n, size_t cols);
#endif
