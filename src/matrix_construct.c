/* CSR matrices from caller arrays (checked copies), copies and the identity. */
#include "matrix_i.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

gat_status gat_i_csr_check(const char *fn, gat_idx rows, gat_idx cols, const gat_idx *rowptr,
                           const gat_idx *col, const gat_real *val, size_t cap)
{
    if (rows < 0 || cols < 0)
        return gat_i_error(GAT_EINVAL, "%s: negative size %d x %d", fn, rows, cols);
    if (!rowptr) return gat_i_error(GAT_EINVAL, "%s: NULL rowptr", fn);
    if (rowptr[0] != 0)
        return gat_i_error(GAT_EINVAL, "%s: rowptr[0] is %d, expected 0", fn, rowptr[0]);
    for (gat_idx r = 0; r < rows; r++)
        if (rowptr[r + 1] < rowptr[r])
            return gat_i_error(GAT_EINVAL, "%s: rowptr decreases at row %d (%d then %d)", fn, r,
                               rowptr[r], rowptr[r + 1]);
    if ((size_t)rowptr[rows] > cap)
        return gat_i_error(GAT_EINVAL,
                           "%s: rowptr[%d] = %d non-zeros exceed the capacity %zu of col and val "
                           "(set by gat_csr_init)",
                           fn, rows, rowptr[rows], cap);
    if (rowptr[rows] > 0 && !col)
        return gat_i_error(GAT_EINVAL, "%s: col is NULL with %d non-zeros", fn, rowptr[rows]);
    for (gat_idx r = 0; r < rows; r++)
        for (gat_idx p = rowptr[r]; p < rowptr[r + 1]; p++) {
            if (col[p] < 0 || col[p] >= cols)
                return gat_i_error(GAT_EINVAL, "%s: row %d has column %d outside [0, %d)", fn, r,
                                   col[p], cols);
            if (p > rowptr[r] && col[p] <= col[p - 1])
                return gat_i_error(GAT_EINVAL,
                                   "%s: row %d lists column %d after column %d "
                                   "(columns must be strictly ascending)",
                                   fn, r, col[p], col[p - 1]);
            if (val && !isfinite(val[p]))
                return gat_i_error(GAT_ENUMERIC, "%s: non-finite value %g at row %d, column %d", fn,
                                   (double)val[p], r, col[p]);
        }
    return GAT_OK;
}

gat_status gat_i_csr_check_matrix(const gat_csr *a, const char *fn)
{
    if (!a) return gat_i_error(GAT_EINVAL, "%s: NULL matrix", fn);
    if (a->rows < 0 || a->cols < 0)
        return gat_i_error(GAT_EINVAL, "%s: negative size %d x %d", fn, a->rows, a->cols);
    if (!a->rowptr) {
        if (a->rows == 0) return GAT_OK; /* a zeroed matrix is a valid empty one */
        return gat_i_error(GAT_EINVAL, "%s: NULL rowptr with %d rows", fn, a->rows);
    }
    gat_status st = gat_i_csr_check(fn, a->rows, a->cols, a->rowptr, a->col, a->val, a->capacity);
    if (st == GAT_OK && a->rowptr[a->rows] > 0 && !a->val)
        st = gat_i_error(GAT_EINVAL, "%s: val is NULL with %d non-zeros", fn, a->rowptr[a->rows]);
    return st;
}

gat_status gat_csr_check(const gat_csr *a)
{
    gat_i_clear_error();
    return gat_i_csr_check_matrix(a, "gat_csr_check");
}

/* Fills a (uninitialised) with checked copies of arrays holding at most cap values; fn names the
 * caller in messages. */
static gat_status from_arrays(const char *fn, gat_csr *a, gat_idx rows, gat_idx cols,
                              const gat_idx *rowptr, const gat_idx *col, const gat_real *val,
                              size_t cap)
{
    gat_status st;
    gat_i_clear_error();
    if (!a) return gat_i_error(GAT_EINVAL, "%s: NULL matrix", fn);
    memset(a, 0, sizeof *a);
    if ((st = gat_i_csr_check(fn, rows, cols, rowptr, col, val, cap)) != GAT_OK) return st;
    const size_t nnz = (size_t)rowptr[rows];
    if ((st = gat_csr_init(a, rows, cols, nnz)) != GAT_OK) return st;
    memcpy(a->rowptr, rowptr, ((size_t)rows + 1) * sizeof *rowptr);
    if (nnz) memcpy(a->col, col, nnz * sizeof *col);
    for (size_t p = 0; p < nnz; p++)
        a->val[p] = val ? val[p] : 1;
    return GAT_OK;
}

gat_status gat_csr_from_arrays(gat_csr *a, gat_idx rows, gat_idx cols, const gat_idx *rowptr,
                               const gat_idx *col, const gat_real *val)
{
    return from_arrays("gat_csr_from_arrays", a, rows, cols, rowptr, col, val, SIZE_MAX);
}

gat_status gat_csr_copy(gat_csr *dst, const gat_csr *src)
{
    static const gat_idx zero_row[1] = {0};
    gat_i_clear_error();
    if (dst) memset(dst, 0, sizeof *dst);
    if (!src) return gat_i_error(GAT_EINVAL, "gat_csr_copy: NULL source");
    gat_status st = gat_i_csr_check_matrix(src, "gat_csr_copy: source");
    if (st != GAT_OK) return st;
    /* a zeroed matrix is a valid empty one */
    const gat_idx *rowptr = !src->rowptr ? zero_row : src->rowptr;
    return from_arrays("gat_csr_copy", dst, src->rows, src->cols, rowptr, src->col, src->val,
                       src->capacity);
}

gat_status gat_csr_identity(gat_csr *a, gat_idx n)
{
    gat_status st;
    gat_i_clear_error();
    if (!a) return gat_i_error(GAT_EINVAL, "gat_csr_identity: NULL matrix");
    memset(a, 0, sizeof *a);
    if (n < 0) return gat_i_error(GAT_EINVAL, "gat_csr_identity: negative size %d", n);
    if ((st = gat_csr_init(a, n, n, (size_t)n)) != GAT_OK) return st;
    for (gat_idx i = 0; i < n; i++) {
        a->rowptr[i + 1] = i + 1;
        a->col[i] = i;
        a->val[i] = 1;
    }
    return GAT_OK;
}
