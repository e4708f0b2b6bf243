/* Edge list -> in-neighbour CSR and its transpose, built with CXSparse: the matrix A(j, i) per
 * edge j -> i, compressed by column (column i = in-neighbours of i), deduplicated keeping the
 * smallest provenance code of each entry, then transposed twice so that both orientations have
 * ascending indices. */
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

static gat_status check_ids(const char *fn, gat_idx n, size_t m, const gat_idx *src,
                            const gat_idx *dst)
{
    for (size_t k = 0; k < m; k++) {
        if (src[k] < 0 || src[k] >= n)
            return gat_i_error(GAT_EINVAL,
                               "%s: edge %zu has source id %d outside [0, %d)", fn, k,
                               src[k], n);
        if (dst[k] < 0 || dst[k] >= n)
            return gat_i_error(GAT_EINVAL,
                               "%s: edge %zu has target id %d outside [0, %d)", fn, k,
                               dst[k], n);
    }
    return GAT_OK;
}

static gat_status check_args(const char *fn, gat_idx n, size_t m, const gat_idx *src,
                             const gat_idx *dst, unsigned flags)
{
    if (n < 0)
        return gat_i_error(GAT_EINVAL, "%s: negative node count n = %d", fn, n);
    if (m > 0 && (!src || !dst))
        return gat_i_error(GAT_EINVAL,
                           "%s: src or dst is NULL with m = %zu edges", fn, m);
    if (flags & ~known_flags)
        return gat_i_error(GAT_EINVAL, "%s: unknown flags 0x%x", fn,
                           flags & ~known_flags);
    /* CXSparse counts entries in int and allocates n + 1 column pointers, also in int. */
    size_t per_edge = (flags & GAT_GRAPH_SYMMETRIZE) ? 2 : 1;
    if (n == INT32_MAX || m > (INT32_MAX - (size_t)n) / per_edge)
        return gat_i_error(
            GAT_EINVAL, "%s: %zu edges over %d nodes exceed 32-bit edge indices", fn,
            m, n);
    return check_ids(fn, n, m, src, dst);
}

static void put(cs_di *T, int row, int col, double code)
{
    T->i[T->nz] = row;
    T->p[T->nz] = col;
    T->x[T->nz++] = code;
}

/* Triplets (j, i) of the n x n matrix A, input self-loops skipped. Each value is the entry's
 * provenance code (doubles hold these integers exactly): k for input edge k as given, m + k for
 * the reverse that SYMMETRIZE adds, -1 for an added self-loop. Deduplication keeps the smallest
 * code, so an edge given in its own direction wins over a reverse (see gat_graph.h). */
static cs_di *triplets(gat_idx n, size_t m, const gat_idx *src, const gat_idx *dst, unsigned flags)
{
    cs_di *T = cs_di_spalloc(n, n, (int)triplet_count(n, m, flags), 1, 1);
    if (!T) return NULL;
    for (size_t k = 0; k < m; k++) {
        if (src[k] == dst[k]) continue;
        put(T, src[k], dst[k], (double)k);
        if (flags & GAT_GRAPH_SYMMETRIZE) put(T, dst[k], src[k], (double)(m + k));
    }
    if (!(flags & GAT_GRAPH_NO_SELF_LOOPS))
        for (gat_idx i = 0; i < n; i++)
            put(T, i, i, -1.0);
    return T;
}

/* cs_di_dupl with min instead of sum: merges the duplicate entries of each column of A (in
 * place, first occurrence's position) keeping the smallest value. w: (A->m) workspace. */
static void dedupe_min(cs_di *A, int *w)
{
    int nz = 0;
    for (int i = 0; i < A->m; i++)
        w[i] = -1;
    for (int j = 0; j < A->n; j++) {
        const int q = nz;
        for (int p = A->p[j]; p < A->p[j + 1]; p++) {
            const int i = A->i[p];
            if (w[i] >= q) {
                if (A->x[p] < A->x[w[i]]) A->x[w[i]] = A->x[p];
            } else {
                w[i] = nz;
                A->i[nz] = i;
                A->x[nz++] = A->x[p];
            }
        }
        A->p[j] = q;
    }
    A->p[A->n] = nz;
}

static gat_idx *copy_idx(const int *a, size_t len)
{
    gat_idx *c = gat_malloc(len, sizeof *c);
    if (c && len) memcpy(c, a, len * sizeof *c);
    return c;
}

/* Copies the sorted in-CSR A (x[e] = out-position of edge e) and out-CSR AT into g; code: (E)
 * provenance code of each out-position (see triplets), decoded into edge_input (E) if not NULL. */
static gat_status export_graph(gat_graph *g, const cs_di *A, const cs_di *AT, const double *code,
                               size_t m, gat_idx *edge_input)
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
    for (size_t e = 0; e < nnz; e++) {
        const size_t p = (size_t)A->x[e];
        g->t_edge[p] = (gat_idx)e;
        if (edge_input) {
            const double c = code[p];
            edge_input[e] = c < 0 ? -1 : (gat_idx)(c >= (double)m ? c - (double)m : c);
        }
    }
    return GAT_OK;
}

static gat_status cs_failed(const char *fn, const char *what)
{
    return gat_i_error(GAT_ENOMEM, "%s: CXSparse %s failed (out of memory)", fn, what);
}

/* The one construction path of gat_graph_from_edges[_mapped]; fn names the caller's function. */
static gat_status build(const char *fn, gat_graph *g, gat_idx n, size_t m, const gat_idx *src,
                        const gat_idx *dst, unsigned flags, gat_idx *edge_input)
{
    gat_i_clear_error();
    if (!g) return gat_i_error(GAT_EINVAL, "%s: NULL graph", fn);
    memset(g, 0, sizeof *g);
    gat_status st = check_args(fn, n, m, src, dst, flags);
    if (st != GAT_OK) return st;

    cs_di *T = NULL, *A = NULL, *AT = NULL;
    int *w = NULL;
    double *code = NULL;
    gat_graph out = {0};
    if (!(T = triplets(n, m, src, dst, flags))) {
        st = cs_failed(fn, "cs_di_spalloc");
        goto cleanup;
    }
    A = cs_di_compress(T);
    T = cs_di_spfree(T);
    if (!A) {
        st = cs_failed(fn, "cs_di_compress");
        goto cleanup;
    }
    if (!(w = gat_malloc((size_t)n, sizeof *w))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    dedupe_min(A, w);
    /* A transpose lists each column's entries in ascending order: AT is the sorted out-CSR. */
    AT = cs_di_transpose(A, 1);
    A = cs_di_spfree(A);
    if (!AT) {
        st = cs_failed(fn, "cs_di_transpose");
        goto cleanup;
    }
    /* AT->x holds each out-position's provenance code: keep it, then carry each out-position
     * through the second transpose (doubles hold it exactly): A->x[e] is the out-position of
     * edge e, and t_edge is the inverse permutation. */
    if (edge_input) {
        if (!(code = gat_malloc((size_t)AT->p[AT->n], sizeof *code))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        memcpy(code, AT->x, (size_t)AT->p[AT->n] * sizeof *code);
    }
    for (int p = 0; p < AT->p[AT->n]; p++)
        AT->x[p] = p;
    if (!(A = cs_di_transpose(AT, 1))) {
        st = cs_failed(fn, "cs_di_transpose");
        goto cleanup;
    }
    st = export_graph(&out, A, AT, code, m, edge_input);
    if (st == GAT_OK) *g = out;

cleanup:
    cs_di_spfree(T);
    cs_di_spfree(A);
    cs_di_spfree(AT);
    gat_free(w);
    gat_free(code);
    if (st != GAT_OK) gat_graph_destroy(&out);
    return st;
}

gat_status gat_graph_from_edges(gat_graph *g, gat_idx n, size_t m, const gat_idx *src,
                                const gat_idx *dst, unsigned flags)
{
    return build("gat_graph_from_edges", g, n, m, src, dst, flags, NULL);
}

gat_status gat_graph_from_edges_mapped(gat_graph *g, gat_idx n, size_t m, const gat_idx *src,
                                       const gat_idx *dst, unsigned flags, gat_idx *edge_input)
{
    return build("gat_graph_from_edges_mapped", g, n, m, src, dst, flags, edge_input);
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
