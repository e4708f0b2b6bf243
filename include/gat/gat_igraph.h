/* The igraph bridge: libgat objects from igraph graphs, matrices and attributes, and model
 * results back as igraph matrices and vectors. Not included by gat.h: include this header (it
 * includes <igraph.h>) and link as `pkg-config --cflags --libs gat` says (igraph is required).
 *
 * Ownership: igraph objects passed in are borrowed for the call. Result igraph objects are
 * initialised by the caller (igraph's convention) and resized here; the caller destroys them.
 * libgat results (gat_graph, gat_csr, gat_dataset) are the caller's, freed with their destroy.
 * Errors: igraph's error and warning handlers are swapped for silent ones during each call and
 * restored, so nothing prints or aborts; failures return a gat_status and gat_last_error().
 * Threads: igraph 0.10 as packaged is not thread-safe, so call these functions from one thread
 * at a time (e.g. during setup); what they return is plain libgat data, usable from any thread.
 * Vertex v of an igraph graph is node v of the libgat graph. */
#ifndef GAT_GAT_IGRAPH_H
#define GAT_GAT_IGRAPH_H

#include <igraph.h>

#include "gat.h"
#include "embed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds g (uninitialised; zeroed on failure) from an igraph graph (borrowed). An undirected
 * graph gives both directions of every edge; a directed one keeps each edge from -> to as the
 * message direction j = from -> i = to (add GAT_GRAPH_SYMMETRIZE to ignore directions).
 * Multi-edges are merged, input self-loops dropped and one self-loop per node added unless
 * GAT_GRAPH_NO_SELF_LOOPS (see gat_graph_from_edges). Returns GAT_EINVAL (NULL argument, unknown
 * flags, more than INT32_MAX - 1 vertices or too many edges), GAT_EDEP (igraph failed),
 * GAT_ENOMEM. Cost O(V + E). */
GAT_API gat_status gat_graph_from_igraph(gat_graph *g, const igraph_t *graph, unsigned flags);

/* Features from an igraph matrix (borrowed) with one row per vertex and one column per feature.
 * igraph matrices are column-major: element (v, f) is MATRIX(*features, v, f). x: uninitialised,
 * (nrow, ncol) CSR of the non-zeros. Returns GAT_EINVAL (NULL, too large), GAT_ENUMERIC (a NaN,
 * an Inf or a value beyond gat_real, named by row and column), GAT_ENOMEM. Cost O(rows cols). */
GAT_API gat_status gat_csr_from_igraph_matrix(gat_csr *x, const igraph_matrix_t *features);

/* Features from numeric vertex attributes: column k of x (uninitialised; (V, count)) holds
 * attribute names[k] of every vertex. Needs igraph's C attribute handler, installed before the
 * graph got its attributes: igraph_set_attribute_table(&igraph_cattribute_table) (process-wide
 * igraph state: set it once during single-threaded setup). names: (count >= 1) borrowed.
 * Returns GAT_EINVAL (NULL argument, count < 1, no C attribute handler, an attribute missing or
 * not numeric), GAT_ENUMERIC (a NaN, e.g. a GraphML vertex without the value, or an Inf: named by
 * attribute and vertex), GAT_EDEP, GAT_ENOMEM. Cost O(V count). */
GAT_API gat_status gat_csr_from_igraph_attributes(gat_csr *x, const igraph_t *graph,
                                                  const char *const *names, gat_idx count);

/* A dataset on an igraph graph: the graph as gat_graph_from_igraph(graph, flags), features x
 * (borrowed, copied; x->rows == vertex count), labels (borrowed; (V) class in [0, C) or -1 for
 * unlabelled; C = largest label + 1; NULL: all unlabelled), split (borrowed; (V) GAT_SPLIT_*
 * values, or NULL for the seeded random split of opt over the labelled vertices). Node ids are
 * the vertex numbers "0", "1", ...; opt as in gat_dataset_from_parts (NULL: defaults), plus
 * opt->edge_attributes: numeric edge attributes read as edge features (the C attribute handler
 * must be installed; merged as gat_dataset_options says). ds->edge_input holds igraph edge ids.
 * Returns as gat_graph_from_igraph and gat_dataset_from_parts; GAT_EINVAL for an edge attribute
 * missing or not numeric or no C attribute handler, GAT_ENUMERIC for a NaN or Inf edge attribute
 * value (naming attribute and edge). Cost O(V + E + nnz(x)). */
GAT_API gat_status gat_dataset_from_igraph(gat_dataset *ds, const igraph_t *graph, unsigned flags,
                                           const gat_csr *x, const igraph_vector_int_t *labels,
                                           const igraph_vector_int_t *split,
                                           const gat_dataset_options *opt);

/* Copies the (rows, cols) row-major array data (borrowed) into res (an initialised igraph
 * matrix, resized to rows x cols; column-major as igraph stores it). Returns GAT_EINVAL (NULL,
 * negative size), GAT_EDEP (igraph could not resize). Cost O(rows cols). */
GAT_API gat_status gat_igraph_matrix_from_rows(igraph_matrix_t *res, gat_idx rows, gat_idx cols,
                                               const gat_real *data);

/* Runs an inference forward of m on g and x (borrowed) and stores representation `layer` in res
 * (initialised igraph matrix, resized to g->n x width): 0..L-2 hidden layers (node embeddings),
 * L-1 or GAT_LAYER_LOGITS the logits, GAT_LAYER_PROBS the class probabilities (gat/embed.h).
 * Returns as gat_model_embed, and GAT_EDEP (igraph could not resize). Cost: one forward. */
GAT_API gat_status gat_model_embed_igraph(gat_model *m, const gat_graph *g, const gat_csr *x,
                                          int layer, igraph_matrix_t *res);

/* Runs an inference forward of m on g and x and stores each node's predicted class (largest
 * logit, the first on ties) in classes (initialised, resized to g->n) and, if probability is not
 * NULL, that class's softmax probability in it (initialised, resized to g->n). Returns as
 * gat_model_predict, and GAT_EDEP. Cost: one forward + O(N C). */
GAT_API gat_status gat_model_predict_igraph(gat_model *m, const gat_graph *g, const gat_csr *x,
                                            igraph_vector_int_t *classes,
                                            igraph_vector_t *probability);

#ifdef __cplusplus
}
#endif
#endif
