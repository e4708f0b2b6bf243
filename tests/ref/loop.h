/* The layer-by-layer reference model (test-only, loop.c): a gat_model's layers run one plain op
 * at a time, the specification the engine is compared with. */
#ifndef GAT_REF_LOOP_H
#define GAT_REF_LOOP_H

#include "model/model_i.h"
#include "gat/graph.h"
#include "gat/matrix.h"

typedef struct ref_model ref_model;

/* Caches of model's layers for graph g and features x (borrowed). GAT_ENOMEM on failure. */
gat_status ref_model_create(ref_model **out, gat_model *model, const gat_graph *g,
                            const gat_csr *x);
void ref_model_free(ref_model *m);
/* A forward with model's parameters, configuration, dropout, step (a training forward advances
 * it, as gat_model_forward does), output rows and threads as they are now: the logits
 * (N, classes) in *logits, every layer's output and attention kept. */
gat_status ref_model_forward(ref_model *m, gat_model *model, int training,
                             const gat_real **logits);
/* Backward of the last (training) forward from dlogits (N, classes): ADDS into model's
 * gradients. GAT_EINVAL if the last forward was not a training forward. */
gat_status ref_model_backward(ref_model *m, gat_model *model, const gat_real *dlogits);
/* The edge features (E, D) of the graph m was created for, in its in-CSR order (borrowed), for
 * a model with edge_dim D > 0 (its edge term); set before the first forward. */
void ref_model_set_edges(ref_model *m, const gat_real *ex);
/* Layer l's output (N, width) and attention (E, heads) of the last forward. */
const gat_real *ref_model_output(const ref_model *m, int l);
const gat_real *ref_model_alpha(const ref_model *m, int l);

#endif
