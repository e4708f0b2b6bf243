/* The layer-by-layer reference model (test-only, loop.c): a gat_model's layers run one plain op
 * at a time, the specification the engine is compared with. */
#ifndef GAT_REF_LOOP_H
#define GAT_REF_LOOP_H

#include "model/model_i.h"
#include "gat/graph.h"
#include "gat/matrix.h"

typedef struct ref_model ref_model;

/* Caches of model's layers for binding b's graph, features and (a model with edge_dim > 0) edge
 * features, all borrowed. GAT_ENOMEM on failure. */
gat_status ref_model_create(ref_model **out, gat_model *model, const gat_i_binding *b);
void ref_model_free(ref_model *m);
/* A forward of run r (its dropout step, as gat_i_model_forward resolves it) with model's
 * parameters and threads as they are now and b's output rows (b: the binding m was made for): the
 * logits (N, classes) in *logits, every layer's output and attention kept. */
gat_status ref_model_forward(ref_model *m, gat_model *model, const gat_i_binding *b,
                             const gat_i_run *r, const gat_real **logits);
/* Backward of the last (training) forward from dlogits (N, classes): ADDS into model's
 * gradients. GAT_EINVAL if the last forward was not a training forward. */
gat_status ref_model_backward(ref_model *m, gat_model *model, const gat_real *dlogits);
/* Layer l's output (N, width) and attention (E, heads) of the last forward. */
const gat_real *ref_model_output(const ref_model *m, int l);
const gat_real *ref_model_alpha(const ref_model *m, int l);

#endif
