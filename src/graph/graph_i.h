/* Private graph checks shared by the constructors and the dataset builders. */
#ifndef GAT_I_GRAPH_H
#define GAT_I_GRAPH_H

#include "gat/graph.h"

/* Every flag bit of gat_graph_from_edges. */
#define GAT_I_GRAPH_FLAGS (GAT_GRAPH_SYMMETRIZE | GAT_GRAPH_NO_SELF_LOOPS)

/* GAT_OK if g is a well-formed graph: sizes in range, both CSRs with row pointers from 0 to nnz,
 * indices in [0, n), and t_edge mapping each out-position of j to an edge j -> t_col[p] of the
 * in-CSR. Otherwise GAT_EINVAL with a message starting with fn; GAT_ENOMEM. A zeroed graph is
 * the empty graph. Cost O(n + E). */
gat_status gat_i_graph_check(const gat_graph *g, const char *fn);

/* Fills g's out-CSR (t_rowptr, t_col, t_edge; allocated here) from its in-CSR (n, nnz, rowptr,
 * col) by a counting sort: each out-row's targets ascending. On GAT_ENOMEM the arrays allocated so
 * far stay in g for gat_graph_destroy. Cost O(n + E), one thread. */
gat_status gat_i_graph_transpose(gat_graph *g);

#endif
