/* gat/encode.h: node features with encodings appended as extra columns, out = [x | P], and the
 * per-column sign flip of such a matrix (the Laplacian columns during training). */
#include "encode_i.h"
#include "core/core.h"

#include <string.h>

gat_status gat_pe_append(const gat_graph *g, const gat_csr *x, const gat_pe_spec *spec,
                         const gat_pe_options *opt, gat_csr *out, gat_pe_cost *cost)
{
    gat_status st;
    gat_real *p = NULL;
    gat_csr y = {0};
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_pe_append", 4, (const void *[]){g, x, spec, out},
                               (const char *[]){"graph g", "features x", "spec", "out"})) !=
        GAT_OK)
        return st;
    if ((st = gat_csr_check(x)) != GAT_OK) return st;
    if (x->rows != g->n)
        return gat_i_error(GAT_EDIM, "gat_pe_append: features x have %d rows, the graph %d nodes",
                           x->rows, g->n);
    const size_t n = (size_t)g->n, K = (size_t)spec->lap_k + (size_t)spec->rw_k;
    if (spec->lap_k < 0 || spec->rw_k < 0 || K == 0 || (size_t)x->cols + K > INT32_MAX)
        return gat_i_error(GAT_EINVAL, "gat_pe_append: spec lap_k = %d, rw_k = %d on %d feature "
                           "columns", spec->lap_k, spec->rw_k, x->cols);
    const size_t nnz = (size_t)x->rowptr[x->rows] + n * K;
    if (nnz > INT32_MAX)
        return gat_i_error(GAT_EINVAL, "gat_pe_append: %zu stored values with the encodings, "
                           "more than a gat_csr holds", nnz);
    if (!(p = gat_malloc(n > 0 ? n * K : 1, sizeof *p))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if (n > 0 && (st = gat_pe_compute(g, spec, opt, p, K, 0, cost)) != GAT_OK) goto cleanup;
    if ((st = gat_csr_init(&y, x->rows, x->cols + (gat_idx)K, nnz)) != GAT_OK) goto cleanup;
    /* each row: x's entries, then all K encoding values (zeros stored too, so that the pattern
     * is the same whatever the values and a sign flip touches known positions) */
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t a = (size_t)x->rowptr[i], b = (size_t)x->rowptr[i + 1];
        memcpy(y.col + at, x->col + a, (b - a) * sizeof *y.col);
        memcpy(y.val + at, x->val + a, (b - a) * sizeof *y.val);
        at += b - a;
        for (size_t c = 0; c < K; c++, at++) {
            y.col[at] = x->cols + (gat_idx)c;
            y.val[at] = p[i * K + c];
        }
        y.rowptr[i + 1] = (gat_idx)at;
    }
    if (cost) cost->bytes += n * K * sizeof *p; /* the dense encodings held while merging */
    *out = y;
    y = (gat_csr){0};

cleanup:
    gat_free(p);
    gat_csr_destroy(&y);
    return st;
}

gat_status gat_pe_flip_signs_csr(gat_csr *x, gat_idx col, gat_idx n_cols, uint64_t seed)
{
    gat_i_clear_error();
    if (!x) return gat_i_error(GAT_EINVAL, "gat_pe_flip_signs_csr: NULL x");
    if (col < 0 || n_cols < 0 || (int64_t)col + n_cols > x->cols)
        return gat_i_error(GAT_EINVAL, "gat_pe_flip_signs_csr: columns %d .. %d + %d of a matrix "
                           "of %d columns", col, col, n_cols, x->cols);
    const size_t nnz = x->rowptr ? (size_t)x->rowptr[x->rows] : 0;
    for (size_t e = 0; e < nnz; e++) {
        const gat_idx c = x->col[e] - col;
        /* the same sign per column as gat_pe_flip_signs draws for its column c */
        if (c >= 0 && c < n_cols && (gat_i_hash64(seed, (uint64_t)c) & 1)) x->val[e] = -x->val[e];
    }
    return GAT_OK;
}
