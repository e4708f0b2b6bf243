/* Edge features per edge of a built graph from rows given per input edge: duplicates and both
 * directions averaged, added self-loops filled (gat_edge_features_merge, gat_i_edge_rows). */
#include "data/data_i.h"
#include "core/core.h"
#include "graph/graph_i.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The edge of g's row i whose source is j (columns ascending), or -1. */
static gat_idx find_edge(const gat_graph *g, gat_idx i, gat_idx j)
{
    gat_idx lo = g->rowptr[i], hi = g->rowptr[i + 1];
    while (lo < hi) {
        const gat_idx mid = lo + (hi - lo) / 2;
        if (g->col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->rowptr[i + 1] && g->col[lo] == j ? lo : -1;
}

/* Adds raw row r (D) into edge j -> i's row of x and counts it; 0 if g has no such edge. */
static int add_row(const gat_graph *g, gat_idx j, gat_idx i, const gat_real *r, gat_idx D,
                   gat_real *x, gat_idx *count)
{
    const gat_idx e = find_edge(g, i, j);
    if (e < 0) return 0;
    for (gat_idx d = 0; d < D; d++)
        x[(size_t)e * (size_t)D + (size_t)d] += r[d];
    count[e]++;
    return 1;
}

/* The merge of gat_edge_features_merge into x (E, D); *missing: the first input edge k that g
 * lacks (then GAT_EINVAL without a message), else SIZE_MAX. */
static gat_status merge_rows(const gat_graph *g, size_t m, const gat_idx *src, const gat_idx *dst,
                             int symmetrize, const gat_real *raw, gat_idx D, int fill, gat_real *x,
                             size_t *missing)
{
    const size_t E = (size_t)g->nnz, w = (size_t)D;
    gat_idx *count = gat_calloc(E, sizeof *count);

    *missing = SIZE_MAX;
    if (!count) return GAT_ENOMEM;
    memset(x, 0, E * w * sizeof *x);
    for (size_t k = 0; k < m; k++) {
        if (src[k] == dst[k]) continue; /* input self-loops are dropped with their rows */
        if (!add_row(g, src[k], dst[k], raw + k * w, D, x, count) ||
            (symmetrize && !add_row(g, dst[k], src[k], raw + k * w, D, x, count))) {
            *missing = k;
            gat_free(count);
            return GAT_EINVAL;
        }
    }
    for (size_t e = 0; e < E; e++)
        if (count[e] > 1)
            for (size_t d = 0; d < w; d++)
                x[e * w + d] /= (gat_real)count[e];
    /* a self-loop no input row reached (an added one) takes the fill */
    for (gat_idx i = 0; i < g->n && fill == GAT_SELF_LOOP_FILL_MEAN; i++) {
        const gat_idx loop = find_edge(g, i, i), deg = g->rowptr[i + 1] - g->rowptr[i] - 1;
        if (loop < 0 || deg == 0 || count[loop] > 0) continue;
        gat_real *r = x + (size_t)loop * w;
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
            if (e != loop)
                for (size_t d = 0; d < w; d++)
                    r[d] += x[(size_t)e * w + d];
        for (size_t d = 0; d < w; d++)
            r[d] /= (gat_real)deg;
    }
    gat_free(count);
    return GAT_OK;
}

gat_status gat_i_edge_rows(const gat_graph *g, size_t m, const gat_idx *src, const gat_idx *dst,
                           int symmetrize, const gat_real *raw, gat_idx D, int fill, gat_real **out)
{
    size_t missing;
    gat_real *x;
    gat_status st;
    *out = NULL;
    if (D == 0) return GAT_OK;
    if (!(x = gat_malloc((size_t)g->nnz * (size_t)D, sizeof *x))) return GAT_ENOMEM;
    if ((st = merge_rows(g, m, src, dst, symmetrize, raw, D, fill, x, &missing)) != GAT_OK) {
        gat_free(x);
        return st == GAT_EINVAL ? gat_i_error(GAT_EINTERNAL,
                                              "edge %zu is not in the graph built from it", missing)
                                : st;
    }
    *out = x;
    return GAT_OK;
}

gat_status gat_edge_features_merge(gat_real *out, const gat_graph *g, size_t m, const gat_idx *src,
                                   const gat_idx *dst, unsigned flags, const gat_real *rows,
                                   gat_idx D, int fill)
{
    static const char fn[] = "gat_edge_features_merge";
    size_t missing;
    gat_status st;

    gat_i_clear_error();
    if (!out || !g) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !out ? "out" : "graph g");
    if ((st = gat_i_graph_check(g, fn)) != GAT_OK) return st;
    if (D < 0) return gat_i_error(GAT_EINVAL, "%s: D = %d edge feature columns", fn, D);
    if (m > 0 && (!src || !dst || (D > 0 && !rows)))
        return gat_i_error(GAT_EINVAL, "%s: src, dst or rows is NULL with m = %zu edges", fn, m);
    if (flags & ~(unsigned)GAT_I_GRAPH_FLAGS)
        return gat_i_error(GAT_EINVAL, "%s: unknown flags 0x%x", fn,
                           flags & ~(unsigned)GAT_I_GRAPH_FLAGS);
    if (fill != GAT_SELF_LOOP_FILL_MEAN && fill != GAT_SELF_LOOP_FILL_ZERO)
        return gat_i_error(GAT_EINVAL,
                           "%s: fill is %d, expected GAT_SELF_LOOP_FILL_MEAN (0) or "
                           "GAT_SELF_LOOP_FILL_ZERO (1)",
                           fn, fill);
    for (size_t k = 0; k < m; k++) {
        if (src[k] < 0 || src[k] >= g->n || dst[k] < 0 || dst[k] >= g->n)
            return gat_i_error(GAT_EINVAL, "%s: edge %zu (%d -> %d) has a node id outside [0, %d)",
                               fn, k, src[k], dst[k], g->n);
        for (gat_idx d = 0; d < D; d++)
            if (!isfinite(rows[k * (size_t)D + (size_t)d]))
                return gat_i_error(GAT_ENUMERIC, "%s: rows of edge %zu, column %d is %g", fn, k, d,
                                   (double)rows[k * (size_t)D + (size_t)d]);
    }
    if (D == 0) return GAT_OK;
    st = merge_rows(g, m, src, dst, (flags & GAT_GRAPH_SYMMETRIZE) != 0, rows, D, fill, out,
                    &missing);
    if (st == GAT_EINVAL)
        return gat_i_error(GAT_EINVAL, "%s: edge %zu (%d -> %d) is not in the graph g%s", fn,
                           missing, src[missing], dst[missing],
                           flags & GAT_GRAPH_SYMMETRIZE ? " (in both directions)" : "");
    return st;
}
