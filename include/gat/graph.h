/* Graphs in compressed sparse row (CSR) form, oriented for attention.
 *
 * Row i of the CSR lists the in-neighbours of node i: the source nodes j whose messages node i
 * aggregates (edge j -> i). Edges are numbered e = 0..nnz-1 in row order, columns ascending within
 * a row; per-edge arrays (scores, attention coefficients) use this numbering. The transpose
 * (out-CSR: row j lists the targets i of edges j -> i) is kept too, with t_edge mapping each of
 * its positions back to the edge number, so that backward passes can gather over sources instead
 * of scattering (no atomics). Graphs are read-only once built and may be shared between threads.
 *
 * No field is caller-writable: build graphs with the gat_graph_from_* calls. The fields are
 * visible for reading, and a caller who fills or edits them anyway gets checked: every function
 * that takes a graph (gat_model_forward and all that run it, gat_dataset_from_parts,
 * gat_graph_copy) runs gat_graph_check on it once (a model: when it first sees the graph) and
 * refuses a malformed one with GAT_EINVAL, before reading past any array. What the check cannot
 * see: arrays shorter than n and nnz claim, and edits made after a model has checked the graph
 * (rebuild the graph, or pass another, to have it checked again). */
#ifndef GAT_GRAPH_H
#define GAT_GRAPH_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gat_graph {
    gat_idx n;         /* number of nodes */
    gat_idx nnz;       /* number of edges E, self-loops included */
    gat_idx *rowptr;   /* (n+1) in-CSR row pointers: edges into i are rowptr[i] .. rowptr[i+1]-1 */
    gat_idx *col;      /* (E) source node j of each edge, ascending within a row */
    gat_idx *t_rowptr; /* (n+1) out-CSR row pointers: edges out of j are t_rowptr[j] .. [j+1]-1 */
    gat_idx *t_col;    /* (E) target node i of each out-edge, ascending within a row */
    gat_idx *t_edge;   /* (E) edge number (index into col) of each out-CSR position */
} gat_graph;

/* Flags of gat_graph_from_edges. */
enum {
    GAT_GRAPH_SYMMETRIZE = 1u,    /* add the reverse of every edge (undirected input) */
    GAT_GRAPH_NO_SELF_LOOPS = 2u  /* do not add a self-loop per node (default: exactly one) */
};

/* Builds g from m directed edges src[k] -> dst[k] over nodes 0..n-1.
 * g: uninitialised, filled on success and zeroed on failure. src, dst: (m) borrowed; may be NULL
 * when m == 0. Duplicate edges are merged and input self-loops dropped; unless
 * GAT_GRAPH_NO_SELF_LOOPS, exactly one self-loop per node is added, so every node (isolated ones
 * too) has a non-empty neighbourhood. n == 0 gives the empty graph.
 * Returns GAT_EINVAL (n < 0 or n == INT32_MAX, NULL arrays, a node id outside [0, n), too many
 * edges for gat_idx, unknown flag bits), GAT_ENOMEM (ours or CXSparse's allocations failed).
 * Cost O(n + m). */
GAT_API gat_status gat_graph_from_edges(gat_graph *g, gat_idx n, size_t m, const gat_idx *src,
                                        const gat_idx *dst, unsigned flags);

/* gat_graph_from_edges that also says where each edge came from (edge provenance), e.g. to name
 * the input edge of an attention coefficient. g, n, m, src, dst, flags, statuses and edge rules as
 * in gat_graph_from_edges (one construction path: that function is this one with edge_input NULL).
 * edge_input: NULL, or caller-owned room for at least GAT_GRAPH_MAX_EDGES(n, m, flags) values
 * (the largest E possible); on success its first E = g->nnz entries, in in-CSR edge order, hold:
 *   - for an edge j -> i, the smallest k with src[k] = j and dst[k] = i (merged duplicates name
 *     their first occurrence);
 *   - with GAT_GRAPH_SYMMETRIZE, an edge j -> i that the input has only as i -> j (a reverse the
 *     builder added) names the smallest k with src[k] = i and dst[k] = j: the same k as the edge
 *     it reverses; an edge given in its own direction always names its own k;
 *   - -1 for a self-loop the builder added (input self-loops are dropped, so every self-loop of g
 *     is an added one).
 * Contents past E, and on failure all of it, are unspecified. Cost O(n + m), plus 8 bytes per
 * edge of temporary memory when edge_input is not NULL. */
GAT_API gat_status gat_graph_from_edges_mapped(gat_graph *g, gat_idx n, size_t m,
                                               const gat_idx *src, const gat_idx *dst,
                                               unsigned flags, gat_idx *edge_input);

/* Room edge_input needs in gat_graph_from_edges_mapped: m edges (2m with GAT_GRAPH_SYMMETRIZE)
 * plus n self-loops (none with GAT_GRAPH_NO_SELF_LOOPS), as a size_t. */
#define GAT_GRAPH_MAX_EDGES(n, m, flags)                                                          \
    ((size_t)(m) * (((flags) & GAT_GRAPH_SYMMETRIZE) ? 2u : 1u) +                                \
     (((flags) & GAT_GRAPH_NO_SELF_LOOPS) ? 0u : (size_t)(n)))

/* gat_graph_from_edges for 64-bit node ids (e.g. igraph_integer_t or int64 arrays from other
 * libraries): n and every id are range-checked before narrowing to gat_idx. Same g, flags and
 * edge rules. Returns GAT_EINVAL (n < 0 or n >= INT32_MAX, NULL arrays with m > 0, an id outside
 * [0, n) naming the edge, too many edges, unknown flags), GAT_ENOMEM. Cost O(n + m). */
GAT_API gat_status gat_graph_from_edges64(gat_graph *g, int64_t n, size_t m, const int64_t *src,
                                          const int64_t *dst, unsigned flags);

/* gat_graph_from_edges64 with the edge provenance of gat_graph_from_edges_mapped (edge_input:
 * NULL or room for GAT_GRAPH_MAX_EDGES(n, m, flags) values; same contents). Cost O(n + m). */
GAT_API gat_status gat_graph_from_edges64_mapped(gat_graph *g, int64_t n, size_t m,
                                                 const int64_t *src, const int64_t *dst,
                                                 unsigned flags, gat_idx *edge_input);

/* Builds g from a caller's in-neighbour CSR over nodes 0..n-1: row i, col[rowptr[i]] ..
 * col[rowptr[i+1]-1], lists the sources j of the edges j -> i (any order; duplicates merged;
 * self-loops per flags as in gat_graph_from_edges). rowptr (n+1) and col (rowptr[n]) are borrowed
 * and COPIED: the caller keeps and frees them. g: uninitialised, zeroed on failure.
 * Returns GAT_EINVAL (n < 0, NULL rowptr, or col NULL with edges, rowptr[0] != 0, rowptr
 * decreasing, a column outside [0, n), unknown flags), GAT_ENOMEM. Cost O(n + E). */
GAT_API gat_status gat_graph_from_csr(gat_graph *g, gat_idx n, const gat_idx *rowptr,
                                      const gat_idx *col, unsigned flags);

/* Deep copy of src (borrowed; checked to be a well-formed graph) into dst (uninitialised, zeroed
 * on failure; owned by the caller, free with gat_graph_destroy). Returns GAT_EINVAL (NULL or
 * malformed src: bad sizes, row pointers, indices or t_edge), GAT_ENOMEM. Cost O(n + E). */
GAT_API gat_status gat_graph_copy(gat_graph *dst, const gat_graph *src);

/* GAT_OK if g (borrowed) is well-formed: 0 <= n < INT32_MAX, nnz >= 0; rowptr and t_rowptr
 * (n+1) start at 0, never decrease and end at nnz (checked before col, t_col, t_edge are read);
 * col and t_col (nnz) in [0, n); t_edge (nnz) a permutation mapping each out-CSR position
 * (j, t_col[p]) to the in-CSR edge j -> t_col[p]. Self-loops and column order are not required
 * (the engine needs neither). A zeroed graph is the empty graph. Returns GAT_EINVAL (NULL g or
 * the first fault, naming the array, the position or row and the value), GAT_ENOMEM.
 * Cost O(n + E). */
GAT_API gat_status gat_graph_check(const gat_graph *g);

/* In-degree of node i (self-loop included). No check of i. */
static inline gat_idx gat_graph_degree(const gat_graph *g, gat_idx i)
{
    return g->rowptr[i + 1] - g->rowptr[i];
}

/* Node orders for locality (gat_graph_order, gat_model_set_order in gat/model.h). The engine
 * gathers a row of projected values per edge: when a node's in-neighbours sit close together in
 * the node numbering, those rows come from cache instead of memory. */
typedef enum gat_order {
    GAT_ORDER_AUTO = 0, /* gat_model_set_order only: GAT_ORDER_RCM on graphs of at least
                         * GAT_ORDER_AUTO_EDGES edges where it brings the edges' ends closer
                         * together (see gat_model_set_order), else GAT_ORDER_NONE */
    GAT_ORDER_NONE,     /* the caller's numbering */
    GAT_ORDER_RCM,      /* reverse Cuthill-McKee: breadth-first from a low-degree node of each
                         * component, neighbours by ascending degree, reversed */
    GAT_ORDER_DEGREE,   /* by descending in-degree (hubs first), ties by node number */
    GAT_ORDER_COUNT
} gat_order;

/* Size (edges, self-loops included) from which GAT_ORDER_AUTO reorders. */
#define GAT_ORDER_AUTO_EDGES 2000000

/* "auto", "none", "rcm", "degree" (static strings), or NULL for a value outside gat_order. */
GAT_API const char *gat_order_name(gat_order o);
/* The gat_order called name into *out. Returns GAT_EINVAL (NULL argument or an unknown name; the
 * message lists the names). */
GAT_API gat_status gat_order_from_name(const char *name, gat_order *out);

/* A node order of g (borrowed, well-formed) by method: perm (g->n, caller-owned) receives the old
 * node number at each new position k, a permutation of 0..n-1. Edges count in both directions.
 * Deterministic (depends on g only). GAT_ORDER_NONE gives the identity; GAT_ORDER_AUTO is not a
 * method here. Returns GAT_EINVAL (NULL argument, GAT_ORDER_AUTO or an unknown method),
 * GAT_ENOMEM. Cost O(n + E log(max degree)), one thread. */
GAT_API gat_status gat_graph_order(const gat_graph *g, gat_order method, gat_idx *perm);

/* dst = src with node perm[k] renumbered k (perm: (src->n) a permutation, as gat_graph_order
 * gives; borrowed): edge j -> i of src is edge iperm[j] -> iperm[i] of dst, with each row's sources
 * ascending again and the transpose rebuilt. edge_of: (src->nnz) caller-owned or NULL; receives
 * for each edge of dst the number of the same edge in src. dst: uninitialised, zeroed on failure.
 * Returns GAT_EINVAL (NULL argument, malformed src, perm not a permutation of 0..n-1),
 * GAT_ENOMEM. Cost O(n + E log(max degree)), parallel over rows. */
GAT_API gat_status gat_graph_permute(gat_graph *dst, const gat_graph *src, const gat_idx *perm,
                                     gat_idx *edge_of);

/* Frees g's arrays and zeroes it. Accepts NULL and a zeroed graph. */
GAT_API void gat_graph_destroy(gat_graph *g);

#ifdef __cplusplus
}
#endif
#endif
