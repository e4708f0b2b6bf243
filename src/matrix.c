/* Dense and CSR matrix helpers. */
#include "gat/matrix.h"
#include "core/core.h"
#include "matrix_i.h"

#include <math.h>
#include <string.h>

gat_status gat_matrix_init(gat_matrix *m, gat_idx rows, gat_idx cols)
{
    if (!m) return gat_i_error(GAT_EINVAL, "gat_matrix_init: NULL matrix");
    memset(m, 0, sizeof *m);
    if (rows < 0 || cols < 0)
        return gat_i_error(GAT_EINVAL, "gat_matrix_init: negative size %d x %d", rows, cols);
    m->data = gat_calloc((size_t)rows * (size_t)cols, sizeof *m->data);
    if (!m->data) return GAT_ENOMEM;
    m->rows = rows;
    m->cols = cols;
    return GAT_OK;
}

void gat_matrix_destroy(gat_matrix *m)
{
    if (!m) return;
    gat_free(m->data);
    memset(m, 0, sizeof *m);
}

gat_status gat_csr_init(gat_csr *a, gat_idx rows, gat_idx cols, size_t nnz)
{
    if (!a) return gat_i_error(GAT_EINVAL, "gat_csr_init: NULL matrix");
    memset(a, 0, sizeof *a);
    if (rows < 0 || cols < 0)
        return gat_i_error(GAT_EINVAL, "gat_csr_init: negative size %d x %d", rows, cols);
    if (nnz > INT32_MAX)
        return gat_i_error(GAT_EINVAL, "gat_csr_init: %zu non-zeros exceed the index type", nnz);
    a->rowptr = gat_calloc((size_t)rows + 1, sizeof *a->rowptr);
    a->col = gat_malloc(nnz, sizeof *a->col);
    a->val = gat_malloc(nnz, sizeof *a->val);
    if (!a->rowptr || !a->col || !a->val) {
        gat_csr_destroy(a);
        return GAT_ENOMEM;
    }
    a->rows = rows;
    a->cols = cols;
    a->capacity = nnz;
    return GAT_OK;
}

gat_status gat_csr_from_dense(gat_csr *a, gat_idx rows, gat_idx cols, const gat_real *dense)
{
    size_t nnz = 0, k = 0;
    gat_status st;
    if (!a) return gat_i_error(GAT_EINVAL, "gat_csr_from_dense: NULL matrix");
    memset(a, 0, sizeof *a);
    if (rows < 0 || cols < 0 || (!dense && rows > 0 && cols > 0))
        return gat_i_error(GAT_EINVAL, "gat_csr_from_dense: bad size %d x %d or NULL data",
                           rows, cols);
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++) {
        if (!isfinite(dense[i]))
            return gat_i_error(GAT_ENUMERIC, "gat_csr_from_dense: non-finite value at row %zu, "
                               "column %zu", i / (size_t)cols, i % (size_t)cols);
        nnz += dense[i] != 0;
    }
    if ((st = gat_csr_init(a, rows, cols, nnz)) != GAT_OK) return st;
    for (gat_idx r = 0; r < rows; r++) {
        for (gat_idx c = 0; c < cols; c++) {
            gat_real v = dense[(size_t)r * cols + c];
            if (v != 0) {
                a->col[k] = c;
                a->val[k++] = v;
            }
        }
        a->rowptr[r + 1] = (gat_idx)k;
    }
    return GAT_OK;
}

void gat_csr_destroy(gat_csr *a)
{
    if (!a) return;
    gat_free(a->rowptr);
    gat_free(a->col);
    gat_free(a->val);
    memset(a, 0, sizeof *a);
}

void gat_csr_normalize_rows(gat_csr *a)
{
    if (!a || !a->rowptr || !a->val) return;
    for (gat_idx r = 0; r < a->rows; r++) {
        double s = 0;
        for (gat_idx k = a->rowptr[r]; k < a->rowptr[r + 1]; k++) s += a->val[k];
        if (s == 0) continue;
        for (gat_idx k = a->rowptr[r]; k < a->rowptr[r + 1]; k++) a->val[k] = (gat_real)(a->val[k] / s);
    }
}

gat_status gat_i_csr_transpose_reserve(const gat_csr *x, gat_csr *t, gat_idx **perm, int exact)
{
    const gat_idx nnz = x->rowptr[x->rows];
    if (t->rowptr && *perm && t->rows == x->cols && (size_t)nnz <= t->capacity &&
        !(exact && (size_t)nnz != t->capacity))
        return GAT_OK;
    gat_csr_destroy(t);
    gat_free(*perm);
    *perm = NULL;
    /* an x that outgrew the room (not exact): an eighth more, for the next slightly larger one */
    const size_t cap = exact ? (size_t)nnz : gat_i_grown((size_t)nnz, INT32_MAX);
    gat_status st = gat_csr_init(t, x->cols, x->rows, cap);
    if (st == GAT_OK && !(*perm = gat_malloc(cap, sizeof **perm))) {
        gat_csr_destroy(t);
        st = GAT_ENOMEM;
    }
    return st;
}

void gat_i_csr_transpose_fill(const gat_csr *x, gat_csr *t, gat_idx *perm)
{
    /* counting sort by column: t->rowptr from the column counts, used as each column's next free
     * slot while x's entries go there in row order (so each row of t ascends), shifted back after
     */
    const gat_idx nnz = x->rowptr[x->rows];
    t->cols = x->rows;
    t->rows = x->cols;
    memset(t->rowptr, 0, ((size_t)x->cols + 1) * sizeof *t->rowptr);
    for (gat_idx k = 0; k < nnz; k++)
        t->rowptr[x->col[k] + 1]++;
    for (gat_idx f = 0; f < x->cols; f++)
        t->rowptr[f + 1] += t->rowptr[f];
    for (gat_idx i = 0; i < x->rows; i++)
        for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++) {
            const gat_idx p = t->rowptr[x->col[k]]++;
            t->col[p] = i;
            t->val[p] = x->val[k];
            perm[p] = k;
        }
    for (gat_idx f = x->cols; f > 0; f--)
        t->rowptr[f] = t->rowptr[f - 1];
    t->rowptr[0] = 0;
}

gat_status gat_i_csr_transpose_perm(const gat_csr *x, gat_csr *t, gat_idx **perm)
{
    memset(t, 0, sizeof *t);
    *perm = NULL;
    const gat_status st = gat_i_csr_transpose_reserve(x, t, perm, 1);
    if (st == GAT_OK) gat_i_csr_transpose_fill(x, t, *perm);
    return st;
}

gat_status gat_i_csr_permute_rows(const gat_csr *x, const gat_idx *perm, gat_csr *out)
{
    const gat_idx n = x->rows;
    gat_status st = gat_csr_init(out, n, x->cols, (size_t)x->rowptr[n]);
    if (st != GAT_OK) return st;
    out->rowptr[0] = 0;
    for (gat_idx k = 0; k < n; k++)
        out->rowptr[k + 1] = out->rowptr[k] + x->rowptr[perm[k] + 1] - x->rowptr[perm[k]];
    for (gat_idx k = 0; k < n; k++) {
        const gat_idx b = x->rowptr[perm[k]], d = x->rowptr[perm[k] + 1] - b;
        memcpy(out->col + out->rowptr[k], x->col + b, (size_t)d * sizeof *out->col);
        memcpy(out->val + out->rowptr[k], x->val + b, (size_t)d * sizeof *out->val);
    }
    return GAT_OK;
}
