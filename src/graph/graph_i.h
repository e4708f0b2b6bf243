/* Private graph checks shared by the constructors and the dataset builders. */
#ifndef GAT_I_GRAPH_H
#define GAT_I_GRAPH_H

#include "gat/graph.h"
#include "gat/matrix.h"

typedef struct gat_sampler gat_sampler;
typedef struct gat_loader gat_loader;
typedef struct gat_block gat_block;

/* The threads a sampler's next draw would use now: its thread count, or one while its governor
 * keeps one. */
int gat_i_sampler_threads_in_use(const gat_sampler *s);

/* gat_block_features (arguments as there) on nt threads (OpenMP) for large blocks. rows_cap NULL:
 * out gets new arrays; else out's arrays (rows for *rows_cap rows, out->capacity values; none
 * when out is zeroed) are reused when large enough and replaced, with *rows_cap updated, when
 * not: a loader's slot fills the same arrays block after block instead of faulting in new pages
 * (90 MB a block on the products-sized graph). */
gat_status gat_i_block_features(const gat_block *b, const gat_csr *x, int nt, gat_csr *out,
                                size_t *rows_cap);

/* The most batches a loader has held at once so far (its bound is two); for the tests. */
int gat_i_loader_peak(gat_loader *l);

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

/* Sorts k[0..n) ascending: insertion sort for the short rows most graphs have, qsort else (a
 * row's (new column, edge) keys when its nodes are renumbered). */
void gat_i_sort_keys(uint64_t *k, size_t n);

/* iperm (n) = the inverse of perm (n): iperm[perm[k]] = k. GAT_EINVAL (fn naming the caller)
 * where perm is not a permutation of 0..n-1: the first entry out of range or occurring twice. */
gat_status gat_i_perm_inverse(const gat_idx *perm, gat_idx n, gat_idx *iperm, const char *fn);

/* GAT_ORDER_AUTO's rule. RCM is kept only where it brings the edges' ends closer than the given
 * numbering does: the share of g's edges between two different nodes whose positions differ by
 * less than GAT_I_ORDER_WINDOW (rows a cache holds: 8 MiB of 256-byte rows) must grow by
 * GAT_I_ORDER_GAIN or more. A planted-partition graph in random order gains little (synth-1e6:
 * 0.064 -> 0.111, products-sized: 0.027 -> 0.073; no gain in the epoch beyond its noise), and
 * one already in a good order loses (the same in block order: 0.378 -> 0.113, 0.692 -> 0.073). */
#define GAT_I_ORDER_WINDOW 32768
#define GAT_I_ORDER_GAIN 0.1

/* The order that a binding asking for `asked` uses for g (well-formed), into *used, and unless
 * that is GAT_ORDER_NONE its permutation into perm ((g->n), as gat_graph_order): a method as
 * asked; GAT_ORDER_AUTO: GAT_ORDER_RCM on graphs of GAT_ORDER_AUTO_EDGES edges or more where it
 * passes the rule above, else GAT_ORDER_NONE. Deterministic. Returns GAT_ENOMEM, or
 * gat_graph_order's statuses. Cost: the method's, plus O(n + E) for the rule. */
gat_status gat_i_order_pick(const gat_graph *g, gat_order asked, gat_idx *perm, gat_order *used);

/* Whether a binding asking for `asked` may renumber g at all (gat_i_order_pick may be skipped,
 * and its permutation not allocated, where not). */
static inline int gat_i_order_considered(const gat_graph *g, gat_order asked)
{
    return asked != GAT_ORDER_NONE && (asked != GAT_ORDER_AUTO || g->nnz >= GAT_ORDER_AUTO_EDGES);
}

/* The one renumbering step of a binding: pg = g with node perm[k] renumbered k
 * (gat_graph_permute; edge_of as there, or NULL) and px = x's rows in the same order (row k is
 * row perm[k]). pg, px: uninitialised, zeroed on failure. perm: (g->n) a permutation, borrowed.
 * Returns gat_graph_permute's statuses, GAT_ENOMEM. Cost O(n + E log(max degree) + nnz(x)). */
gat_status gat_i_renumber(const gat_graph *g, const gat_csr *x, const gat_idx *perm, gat_graph *pg,
                          gat_csr *px, gat_idx *edge_of);

#endif
