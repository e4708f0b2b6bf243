/* Private view of gat_model for the trainer, model files and tests. */
#ifndef GAT_I_MODEL_H
#define GAT_I_MODEL_H

#include "gat/model.h"
#include "model/fast.h"

/* Most tensors of a model: per layer weight, the score's (at most three), bias, res, and the edge
 * term's two (gat: 4 + 1 + 2). Model files size their tables with it. */
#define GAT_I_MAX_TENSORS (8 * GAT_MAX_LAYERS)

/* Edges per attention chunk of an inference binding (GAT_BIND_INFERENCE): 2^20, 32 MiB of
 * coefficients at 8 heads; tests set fewer (gat_i_model_set_lean_chunk, >= 1) to run many chunks
 * on small graphs. Takes effect at the next bind. */
#define GAT_I_LEAN_CHUNK (1 << 20)
void gat_i_model_set_lean_chunk(gat_model *m, gat_idx edges);
/* Whether the binding is an inference binding. */
int gat_i_model_lean(const gat_model *m);
/* The kernels' thread count (gat_model_set_threads, resolved). */
int gat_i_model_threads(const gat_model *m);
/* The threads the binding's next call would use (the governor's choice of
 * gat_model_set_threads', or all of them with options.fixed_threads); 0 when nothing is bound. */
int gat_i_model_threads_in_use(const gat_model *m);
/* Adam's moment buffers (same layout as the parameters). */
void gat_i_model_moments(gat_model *m, gat_real **m1, gat_real **m2);
/* Dropout-step counter: the next training forward uses step + 1 (tests reuse masks with it). */
uint64_t gat_i_model_step(const gat_model *m);
void gat_i_model_set_step(gat_model *m, uint64_t step);
/* Restrict subsequent forwards to these output rows (ascending, borrowed, must outlive the
 * forwards); NULL restores all rows. The listed logits are exact; other rows of the logits (and,
 * rows of hidden layers they do not depend on) are left unspecified. */
void gat_i_model_set_output_rows(gat_model *m, const gat_idx *rows, gat_idx n_rows);
/* Forwards and backwards call hook(user, backward, layer) after each layer (see
 * gat_i_layer_hook); NULL removes it. */
void gat_i_model_set_hook(gat_model *m, gat_i_layer_hook hook, void *user);
/* The remote rows (fast.h) of the graphs bound from now on (borrowed; must outlive the binding),
 * or NULL: none. A binding made with other remote rows is made again by the next forward. The
 * graph must have no order (gat_model_set_order(m, GAT_ORDER_NONE)). */
void gat_i_model_set_remote(gat_model *m, const gat_i_remote *r);
/* Dropout keys of the bound graph (gat_i_fl: rkey (N) a dense row's, xkey (N) layer 0's row
 * base, ekey (E) an edge's, tekey (E) ekey in the out-CSR's order, tekey[p] = ekey[t_edge[p]],
 * or NULL: read through t_edge), borrowed, or NULL for the element's own index; a graph that is
 * part of a larger one (a partition's rows) passes its nodes' and edges' numbers in the whole
 * graph, so that its masks are the whole graph's. For unrenumbered bindings (GAT_ORDER_NONE) only;
 * they stay until set again (NULLs). */
void gat_i_model_set_keys(gat_model *m, const gat_idx *rkey, const int64_t *xkey,
                          const int64_t *ekey, const int64_t *tekey);
/* A scratch buffer of (n, classes) for d loss / d logits, owned by m and kept (grown when n
 * needs more) across calls; NULL on allocation failure (GAT_ENOMEM recorded). */
gat_real *gat_i_model_dlogits(gat_model *m, gat_idx n);
/* Dropout probabilities can be overridden (the gradient checks use 0 to compare with
 * finite differences when masks are not reused). */
void gat_i_model_set_dropout(gat_model *m, double in_p, double att_p);
/* The engine's kernel build (options.kernels, as gat_model_set_options sets it): NULL the best
 * for this CPU, "base", "avx2" or "avx512" a given build (-1 if this CPU cannot run it or the
 * name is unknown). Drops the caches (tests). */
int gat_i_model_set_fused(gat_model *m, const char *isa);
/* The kernels the model runs (its options.kernels): what the trainer's Adam step runs too. */
const gat_i_fused_ops *gat_i_model_ops(const gat_model *m);
/* The instruction set of the kernels the last forward ran, or NULL (none ran on the binding). */
const char *gat_i_model_fused_isa(const gat_model *m);
/* Whether layer l of m's binding keeps its per-edge attention arrays (alpha, the LeakyReLU signs,
 * the dropout keeps) rather than recomputing them in the backward (options.alpha); 0 when
 * nothing is bound or l is out of range. */
int gat_i_model_keeps_alpha(const gat_model *m, int l);
/* The engine's description of the model's layers in FL (GAT_MAX_LAYERS entries); returns the
 * layer count. */
int gat_i_model_layers(const gat_model *m, gat_i_fast_layer *FL);
/* GAT_EDIM naming both numbers unless D is the model's edge_dim (any D for edge_dim 0). */
gat_status gat_i_model_check_edge_dim(const gat_model *m, gat_idx D);
/* Makes g and x (bound with flags: 0 or GAT_BIND_INFERENCE) and, for a model with edge_dim > 0,
 * g's edge features ex (E, D) the binding (all borrowed), unless they are bound so already.
 * With flags 0 and edge_dim 0 nothing is done (the forward binds g and x as usual). Returns
 * gat_i_model_check_edge_dim's, gat_model_bind's and gat_model_bind_edge_features' statuses. */
gat_status gat_i_model_bind_edges_of(gat_model *m, const gat_graph *g, const gat_csr *x,
                                     const gat_real *ex, gat_idx D, unsigned flags);
/* Each row's class (the largest logit, the first on ties) and, if probability is not NULL, its
 * softmax probability, from logits (n, C): gat_model_predict's rule. */
void gat_i_predict_rows(const gat_real *logits, gat_idx n, gat_idx C, gat_idx *classes,
                        gat_real *probability);
/* Softmax of each row of out (n, cols) in place: gat_model_embed's GAT_LAYER_PROBS. */
void gat_i_softmax_rows(gat_real *out, size_t n, size_t cols);
/* What the next forward runs: advances the dropout step if training (as gat_model_forward does),
 * then the step's dropout key, dropout, slope, output rows and threads in *run. */
void gat_i_model_next_run(gat_model *m, int training, gat_i_fast_run *run);

#endif
