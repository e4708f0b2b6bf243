/* More ways to build a graph, all ending in gat_graph_from_edges: 64-bit edge lists (other
 * libraries' ids), a caller's in-neighbour CSR, and a checked deep copy. */
#include "graph/graph_i.h"
#include "core/core.h"

#include <string.h>

/* The one 64-bit path of gat_graph_from_edges64[_mapped]; fn names the caller's function. */
static gat_status build64(const char *fn, gat_graph *g, int64_t n, size_t m, const int64_t *src,
                          const int64_t *dst, unsigned flags, gat_idx *edge_input)
{
    gat_idx *s = NULL, *d = NULL;
    gat_status st;

    gat_i_clear_error();
    if (!g) return gat_i_error(GAT_EINVAL, "%s: NULL graph", fn);
    memset(g, 0, sizeof *g);
    if (n < 0 || n >= INT32_MAX)
        return gat_i_error(GAT_EINVAL, "%s: node count n = %lld outside [0, %d)", fn, (long long)n,
                           INT32_MAX);
    if (m > 0 && (!src || !dst))
        return gat_i_error(GAT_EINVAL, "%s: src or dst is NULL with m = %zu edges", fn, m);
    if (flags & ~(unsigned)GAT_I_GRAPH_FLAGS)
        return gat_i_error(GAT_EINVAL, "%s: unknown flags 0x%x", fn,
                           flags & ~(unsigned)GAT_I_GRAPH_FLAGS);
    if (m > (INT32_MAX - (size_t)n) / ((flags & GAT_GRAPH_SYMMETRIZE) ? 2 : 1))
        return gat_i_error(GAT_EINVAL, "%s: %zu edges over %lld nodes exceed 32-bit edge indices",
                           fn, m, (long long)n);
    for (size_t k = 0; k < m; k++)
        if (src[k] < 0 || src[k] >= n || dst[k] < 0 || dst[k] >= n)
            return gat_i_error(GAT_EINVAL,
                               "%s: edge %zu (%lld -> %lld) has a node id outside "
                               "[0, %lld)",
                               fn, k, (long long)src[k], (long long)dst[k], (long long)n);
    if (!(s = gat_malloc(m, sizeof *s)) || !(d = gat_malloc(m, sizeof *d))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k < m; k++) {
        s[k] = (gat_idx)src[k];
        d[k] = (gat_idx)dst[k];
    }
    st = gat_graph_from_edges_mapped(g, (gat_idx)n, m, s, d, flags, edge_input);
cleanup:
    gat_free(s);
    gat_free(d);
    return st;
}

gat_status gat_graph_from_edges64(gat_graph *g, int64_t n, size_t m, const int64_t *src,
                                  const int64_t *dst, unsigned flags)
{
    return build64("gat_graph_from_edges64", g, n, m, src, dst, flags, NULL);
}

gat_status gat_graph_from_edges64_mapped(gat_graph *g, int64_t n, size_t m, const int64_t *src,
                                         const int64_t *dst, unsigned flags, gat_idx *edge_input)
{
    return build64("gat_graph_from_edges64_mapped", g, n, m, src, dst, flags, edge_input);
}

/* GAT_OK if rowptr (n+1) and col (rowptr[n]) form a CSR with indices in [0, n_cols); nnz >= 0
 * (the length of col) must equal rowptr[n], checked before col is read; nnz < 0: unknown. */
static gat_status check_csr(const char *fn, const char *what, gat_idx n, gat_idx n_cols,
                            const gat_idx *rowptr, const gat_idx *col, gat_idx nnz)
{
    if (rowptr[0] != 0)
        return gat_i_error(GAT_EINVAL, "%s: %srowptr[0] is %d, expected 0", fn, what, rowptr[0]);
    for (gat_idx i = 0; i < n; i++)
        if (rowptr[i + 1] < rowptr[i])
            return gat_i_error(GAT_EINVAL, "%s: %srowptr decreases at row %d (%d then %d)", fn,
                               what, i, rowptr[i], rowptr[i + 1]);
    if (nnz >= 0 && rowptr[n] != nnz)
        return gat_i_error(GAT_EINVAL, "%s: %srowptr[%d] = %d, expected nnz = %d", fn, what, n,
                           rowptr[n], nnz);
    if (rowptr[n] > 0 && !col)
        return gat_i_error(GAT_EINVAL, "%s: %scol is NULL with %d entries", fn, what, rowptr[n]);
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx p = rowptr[i]; p < rowptr[i + 1]; p++)
            if (col[p] < 0 || col[p] >= n_cols)
                return gat_i_error(GAT_EINVAL, "%s: %scol[%d] = %d (row %d) outside [0, %d)", fn,
                                   what, p, col[p], i, n_cols);
    return GAT_OK;
}

gat_status gat_graph_from_csr(gat_graph *g, gat_idx n, const gat_idx *rowptr, const gat_idx *col,
                              unsigned flags)
{
    static const char fn[] = "gat_graph_from_csr";
    gat_idx *dst = NULL;
    gat_status st;

    gat_i_clear_error();
    if (!g) return gat_i_error(GAT_EINVAL, "%s: NULL graph", fn);
    memset(g, 0, sizeof *g);
    if (n < 0 || n == INT32_MAX)
        return gat_i_error(GAT_EINVAL, "%s: node count n = %d outside [0, %d)", fn, n, INT32_MAX);
    if (!rowptr) return gat_i_error(GAT_EINVAL, "%s: NULL rowptr", fn);
    if ((st = check_csr(fn, "", n, n, rowptr, col, -1)) != GAT_OK) return st;
    if (!(dst = gat_malloc((size_t)rowptr[n], sizeof *dst))) return GAT_ENOMEM;
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx p = rowptr[i]; p < rowptr[i + 1]; p++)
            dst[p] = i;
    /* the sources are col itself: row i's entries are the edges col[p] -> i */
    st = gat_graph_from_edges(g, n, (size_t)rowptr[n], col, dst, flags);
    gat_free(dst);
    return st;
}

gat_status gat_i_graph_check(const gat_graph *g, const char *fn)
{
    gat_idx *row_of = NULL;
    gat_status st;

    if (!g) return gat_i_error(GAT_EINVAL, "%s: NULL graph", fn);
    if (g->n < 0 || g->n == INT32_MAX || g->nnz < 0)
        return gat_i_error(GAT_EINVAL, "%s: graph sizes n = %d, nnz = %d out of range", fn, g->n,
                           g->nnz);
    if (g->n == 0 && g->nnz == 0 && !g->rowptr && !g->t_rowptr) return GAT_OK; /* zeroed */
    if (!g->rowptr || !g->t_rowptr || (g->nnz > 0 && (!g->col || !g->t_col || !g->t_edge)))
        return gat_i_error(GAT_EINVAL, "%s: graph with n = %d, nnz = %d has NULL arrays", fn, g->n,
                           g->nnz);
    if ((st = check_csr(fn, "graph ", g->n, g->n, g->rowptr, g->col, g->nnz)) != GAT_OK ||
        (st = check_csr(fn, "graph t_", g->n, g->n, g->t_rowptr, g->t_col, g->nnz)) != GAT_OK)
        return st;
    if (!(row_of = gat_malloc((size_t)g->nnz, sizeof *row_of))) return GAT_ENOMEM;
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
            row_of[e] = i;
    /* t_edge must be a permutation: each edge, once named, gets row -1 so that a second out-
     * position naming it fails (the backward gathers would count it twice and miss another) */
    for (gat_idx j = 0; j < g->n && st == GAT_OK; j++)
        for (gat_idx p = g->t_rowptr[j]; p < g->t_rowptr[j + 1]; p++) {
            const gat_idx e = g->t_edge[p];
            if (e < 0 || e >= g->nnz || g->col[e] != j || row_of[e] != g->t_col[p]) {
                st = gat_i_error(GAT_EINVAL,
                                 "%s: graph t_edge[%d] = %d does not name the edge "
                                 "%d -> %d of the in-CSR (or names it twice)",
                                 fn, p, e, j, g->t_col[p]);
                break;
            }
            row_of[e] = -1;
        }
    gat_free(row_of);
    return st;
}

gat_status gat_graph_check(const gat_graph *g)
{
    gat_i_clear_error();
    return gat_i_graph_check(g, "gat_graph_check");
}

/* A copy of a (len) gat_idx values; a == NULL (an empty array) gives an allocated empty one. */
static gat_idx *dup_idx(const gat_idx *a, size_t len)
{
    gat_idx *c = gat_malloc(len, sizeof *c);
    if (c && len) memcpy(c, a, len * sizeof *c);
    return c;
}

gat_status gat_graph_copy(gat_graph *dst, const gat_graph *src)
{
    static const gat_idx zero_row[1] = {0};
    gat_graph out = {0};
    gat_status st;

    gat_i_clear_error();
    if (!dst) return gat_i_error(GAT_EINVAL, "gat_graph_copy: NULL destination");
    memset(dst, 0, sizeof *dst);
    if ((st = gat_i_graph_check(src, "gat_graph_copy")) != GAT_OK) return st;
    const size_t n = (size_t)src->n, nnz = (size_t)src->nnz;
    out.n = src->n;
    out.nnz = src->nnz;
    out.rowptr = dup_idx(src->rowptr ? src->rowptr : zero_row, n + 1);
    out.col = dup_idx(src->col, nnz);
    out.t_rowptr = dup_idx(src->t_rowptr ? src->t_rowptr : zero_row, n + 1);
    out.t_col = dup_idx(src->t_col, nnz);
    out.t_edge = dup_idx(src->t_edge, nnz);
    if (!out.rowptr || !out.col || !out.t_rowptr || !out.t_col || !out.t_edge) {
        gat_graph_destroy(&out);
        return GAT_ENOMEM;
    }
    *dst = out;
    return GAT_OK;
}
