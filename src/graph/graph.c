/* Edge list -> in-neighbour CSR and its transpose, built with CXSparse: the matrix A(j, i) = 1 per
 * edge j -> i, compressed by column (column i = in-neighbours of i), deduplicated, then transposed
 * twice so that both orientations have ascending indices. */
#include "gat/graph.h"
#include "core/core.h"

#include <suitesparse/cs.h>

#include <string.h>

/* gat_idx arrays are copied from and to CXSparse's int arrays with memcpy. */
_Static_assert(sizeof(int) == sizeof(gat_idx), "cs_di indices must be 32-bit like gat_idx");

static const unsigned known_flags = GAT_GRAPH_SYMMETRIZE | GAT_GRAPH_NO_SELF_LOOPS;

/* Number of triplets before deduplication: the edges (twice when symmetrising) plus the loops. */
static size_t triplet_count(gat_idx n, size_t m, unsigned flags)
{
    size_t per_edge = (flags & GAT_GRAPH_SYMMETRIZE) ? 2 : 1;
    size_t loops = (flags & GAT_GRAPH_NO_SELF_LOOPS) ? 0 : (size_t)n;
    return m * per_edge + loops;
}

static gat_status check_ids(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst)
{
    for (size_t k = 0; k < m; k++) {
        if (src[k] < 0 || src[k] >= n)
            return gat_i_error(GAT_EINVAL,
                               "gat_graph_from_edges: edge %zu has source id %d outside [0, %d)", k,
                               src[k], n);
        if (dst[k] < 0 || dst[k] >= n)
            return gat_i_error(GAT_EINVAL,
                               "gat_graph_from_edges: edge %zu has target id %d outside [0, %d)", k,
                               dst[k], n);
    }
    return GAT_OK;
}

static gat_status check_args(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst,
                             unsigned flags)
{
    if (n < 0)
        return gat_i_error(GAT_EINVAL, "gat_graph_from_edges: negative node count n = %d", n);
    if (m > 0 && (!src || !dst))
        return gat_i_error(GAT_EINVAL,
                           "gat_graph_from_edges: src or dst is NULL with m = %zu edges", m);
    if (flags & ~known_flags)
        return gat_i_error(GAT_EINVAL, "gat_graph_from_edges: unknown flags 0x%x",
                           flags & ~known_flags);
    /* CXSparse counts entries in int and allocates n + 1 column pointers, also in int. */
    size_t per_edge = (flags & GAT_GRAPH_SYMMETRIZE) ? 2 : 1;
    if (n == INT32_MAX || m > (INT32_MAX - (size_t)n) / per_edge)
        return gat_i_error(
            GAT_EINVAL, "gat_graph_from_edges: %zu edges over %d nodes exceed 32-bit edge indices",
            m, n);
    return check_ids(n, m, src, dst);
}

static void put(cs_di *T, int row, int col)
{
    T->i[T->nz] = row;
    T->p[T->nz] = col;
    T->x[T->nz++] = 1.0;
}

/* Triplets (j, i) of the n x n matrix A, input self-loops skipped. Values are required even
 * though only the pattern matters: cs_di_dupl sums them unconditionally (NULL x crashes it). */
static cs_di *triplets(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst, unsigned flags)
{
    cs_di *T = cs_di_spalloc(n, n, (int)triplet_count(n, m, flags), 1, 1);
    if (!T) return NULL;
    for (size_t k = 0; k < m; k++) {
        if (src[k] == dst[k]) continue;
        put(T, src[k], dst[k]);
        if (flags & GAT_GRAPH_SYMMETRIZE) put(T, dst[k], src[k]);
    }
    if (!(flags & GAT_GRAPH_NO_SELF_LOOPS))
        for (gat_idx i = 0; i < n; i++)
            put(T, i, i);
    return T;
}

static gat_idx *copy_idx(const int *a, size_t len)
{
    gat_idx *c = gat_malloc(len, sizeof *c);
    if (c && len) memcpy(c, a, len * sizeof *c);
    return c;
}

/* Copies the sorted in-CSR A (x[e] = out-position of edge e) and out-CSR AT into g. */
static gat_status export_graph(gat_graph *g, const cs_di *A, const cs_di *AT)
{
    size_t n = (size_t)A->n, nnz = (size_t)A->p[A->n];
    g->n = A->n;
    g->nnz = A->p[A->n];
    g->rowptr = copy_idx(A->p, n + 1);
    g->col = copy_idx(A->i, nnz);
    g->t_rowptr = copy_idx(AT->p, n + 1);
    g->t_col = copy_idx(AT->i, nnz);
    g->t_edge = gat_malloc(nnz, sizeof *g->t_edge);
    if (!g->rowptr || !g->col || !g->t_rowptr || !g->t_col || !g->t_edge) return GAT_ENOMEM;
    for (size_t e = 0; e < nnz; e++)
        g->t_edge[(size_t)A->x[e]] = (gat_idx)e;
    return GAT_OK;
}

static gat_status cs_failed(const char *what)
{
    return gat_i_error(GAT_ENOMEM, "gat_graph_from_edges: CXSparse %s failed (out of memory)",
                       what);
}

gat_status gat_graph_from_edges(gat_graph *g, gat_idx n, size_t m, const gat_idx *src,
                                const gat_idx *dst, unsigned flags)
{
    gat_i_clear_error();
    if (!g) return gat_i_error(GAT_EINVAL, "gat_graph_from_edges: NULL graph");
    memset(g, 0, sizeof *g);
    gat_status st = check_args(n, m, src, dst, flags);
    if (st != GAT_OK) return st;

    cs_di *T = NULL, *A = NULL, *AT = NULL;
    gat_graph out = {0};
    if (!(T = triplets(n, m, src, dst, flags))) {
        st = cs_failed("cs_di_spalloc");
        goto cleanup;
    }
    A = cs_di_compress(T);
    T = cs_di_spfree(T);
    if (!A) {
        st = cs_failed("cs_di_compress");
        goto cleanup;
    }
    if (!cs_di_dupl(A)) {
        st = cs_failed("cs_di_dupl");
        goto cleanup;
    }
    /* A transpose lists each column's entries in ascending order: AT is the sorted out-CSR. */
    AT = cs_di_transpose(A, 1);
    A = cs_di_spfree(A);
    if (!AT) {
        st = cs_failed("cs_di_transpose");
        goto cleanup;
    }
    /* Carry each out-position through the second transpose (doubles hold it exactly): then
     * A->x[e] is the out-position of edge e, and t_edge is the inverse permutation. */
    for (int p = 0; p < AT->p[AT->n]; p++)
        AT->x[p] = p;
    if (!(A = cs_di_transpose(AT, 1))) {
        st = cs_failed("cs_di_transpose");
        goto cleanup;
    }
    st = export_graph(&out, A, AT);
    if (st == GAT_OK) *g = out;

cleanup:
    cs_di_spfree(T);
    cs_di_spfree(A);
    cs_di_spfree(AT);
    if (st != GAT_OK) gat_graph_destroy(&out);
    return st;
}

void gat_graph_destroy(gat_graph *g)
{
    if (!g) return;
    gat_free(g->rowptr);
    gat_free(g->col);
    gat_free(g->t_rowptr);
    gat_free(g->t_col);
    gat_free(g->t_edge);
    memset(g, 0, sizeof *g);
}
