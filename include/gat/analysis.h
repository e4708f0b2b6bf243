/* Numbers behind the pictures of the tools: a 2-D principal-component projection of node
 * embeddings (through LAPACK) and the entropy of each node's attention distribution, compared
 * with the entropy of uniform attention over the same in-neighbours.
 *
 * Attention entropy of target i and head h, over the edges e into i (self-loop included):
 *   H(i,h) = -sum_e alpha(e,h) ln alpha(e,h)   (0 ln 0 = 0; natural logarithm, in nats).
 * It lies in [0, ln deg(i)]: 0 when all of i's attention goes to one neighbour, ln deg(i) when it
 * is spread evenly. Attention that learned nothing stays near ln deg(i); a histogram of H against
 * one of ln deg is the usual check. */
#ifndef GAT_ANALYSIS_H
#define GAT_ANALYSIS_H

#include "graph.h"
#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Projects the n rows of x onto their first two principal axes: the eigenvectors of the
 * covariance matrix (1/n) sum_i (x_i - mean)(x_i - mean)^T with the two largest eigenvalues,
 * computed by LAPACK's dsyevr in double precision.
 * x: (n, d) row-major, borrowed. out: (n, 2) row-major, caller-owned: row i is
 * ((x_i - mean) . v1, (x_i - mean) . v2). var: (2) caller-owned or NULL: the two eigenvalues,
 * the variance along each axis, largest first. Each axis's sign is fixed so that its component
 * of largest magnitude is positive (the first such on ties), so results do not depend on the
 * LAPACK build. With d == 1 the second column and var[1] are 0.
 * Returns GAT_EINVAL (NULL x or out, n < 1, d < 1), GAT_ENUMERIC (a NaN or Inf in x; the message
 * names the row and column), GAT_EDEP (dsyevr failed; the message gives its info code),
 * GAT_ENOMEM. Cost O(n d^2 + d^3) time, O(n d + d^2) memory. */
GAT_API gat_status gat_pca_2d(const gat_real *x, gat_idx n, gat_idx d, double *out,
                              double *var);

/* Attention entropy per target node and head (see above) of coefficients alpha on graph g.
 * g: built or checked (gat_graph_check), borrowed. alpha: (g->nnz, heads) edge-major in g's
 * in-CSR order, as gat_model_attention_copy fills it, borrowed. entropy: (g->n, heads)
 * caller-owned. uniform: (g->n) caller-owned or NULL: ln of each node's in-degree (0 for a node
 * without in-edges, whose entropy is 0 too).
 * Returns GAT_EINVAL (NULL g, alpha or entropy; heads < 1; a coefficient that is negative, NaN
 * or above 1: the message names the edge and head). Cost O(E heads). */
GAT_API gat_status gat_attention_entropy(const gat_graph *g, const gat_real *alpha,
                                         gat_idx heads, double *entropy, double *uniform);

#ifdef __cplusplus
}
#endif
#endif
