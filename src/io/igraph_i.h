/* The one door to igraph: every igraph call of libgat runs inside a body passed to
 * gat_i_igraph_call, which swaps in silent error and warning handlers (igraph aborts on errors
 * and prints warnings by default), runs the body, restores the caller's handlers and turns a
 * failure into a gat_status with igraph's reason. */
#ifndef GAT_I_IGRAPH_H
#define GAT_I_IGRAPH_H

#include "gat/matrix.h"
#include "gat/status.h"

#include <igraph.h>

/* A body: igraph calls only (plus copying their results into memory the caller prepared, or
 * gat allocations reported as IGRAPH_ENOMEM). It returns the first failing call's code, having
 * released the igraph objects it made, or IGRAPH_SUCCESS. */
typedef igraph_error_t gat_i_igraph_body(void *ctx);

/* Runs body(ctx) as above. On failure returns GAT_ENOMEM for IGRAPH_ENOMEM and `fail` for any
 * other code (GAT_EDEP; GAT_EFORMAT for a file igraph cannot parse), with the message
 * "<what>: <igraph's first reason> (igraph: <igraph_strerror>)". Not thread-safe: igraph's
 * handlers are process-wide. */
gat_status gat_i_igraph_call(gat_i_igraph_body *body, void *ctx, gat_status fail, const char *what);

/* For use inside a body: type[k] = the IGRAPH_ATTRIBUTE_* type of vertex attribute names[k] of
 * graph, or -1 if it has none; graph's attributes must come from igraph's C attribute handler,
 * which must be installed. */
igraph_error_t gat_i_igraph_vertex_attr_types(const igraph_t *graph, const char *const *names,
                                              gat_idx count, int *type);

/* For use inside a body: type[k] as above for vertex attribute names[k]; when every one is
 * numeric, rows (n, count) receives their values, row v for vertex v (n = vcount; a vertex
 * without the value, as GraphML allows, reads NaN). */
igraph_error_t gat_i_igraph_vertex_attrs(const igraph_t *graph, const char *const *names,
                                         gat_idx count, int *type, double *rows);

/* For use inside a body: *names (allocated, *count gat_strdup'ed names; free both even on
 * failure) = the numeric vertex attributes of graph in igraph's order, but those named in skip
 * (n_skip entries, NULL ones ignored). */
igraph_error_t gat_i_igraph_numeric_vertex_attrs(const igraph_t *graph, const char *const *skip,
                                                 int n_skip, char ***names, gat_idx *count);

/* (rows, cols) row-major values, checked finite and within gat_real, into x (uninitialised), a
 * CSR of the non-zeros. col_names (cols), if not NULL, names the columns (vertex attributes) in
 * messages, which start with what. Returns GAT_ENUMERIC, GAT_EINVAL, GAT_ENOMEM. */
gat_status gat_i_dense_to_csr(gat_csr *x, gat_idx rows, gat_idx cols, const double *dense,
                              const char *what, const char *const *col_names);

/* For use inside a body: type[k] as above for edge attribute names[k]; when every one is
 * numeric, rows (m, count) receives their values, row e for igraph edge e (m = ecount). */
igraph_error_t gat_i_igraph_edge_attrs(const igraph_t *graph, const char *const *names,
                                       gat_idx count, int *type, double *rows);

/* After gat_i_igraph_edge_attrs: GAT_EINVAL naming `what` and the first attribute that does not
 * exist or is not numeric; GAT_ENUMERIC for a NaN, Inf or out-of-range value (naming attribute
 * and edge); else *out = allocated (m, count) gat_real rows. GAT_ENOMEM. */
gat_status gat_i_edge_attr_rows(const char *what, const char *const *names, gat_idx count,
                                const int *type, const double *rows, size_t m, gat_real **out);

#endif
