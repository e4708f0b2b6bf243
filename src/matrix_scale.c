/* Column standardisation of CSR features (gat/matrix.h): the moments of the columns over chosen
 * rows, and the matrix with those columns shifted and scaled. */
#include "gat/matrix.h"
#include "core/core.h"
#include "matrix_i.h"

#include <math.h>
#include <string.h>

static gat_status scale_args(const char *fn, const gat_csr *x, gat_idx n_cols)
{
    if (!x) return gat_i_error(GAT_EINVAL, "%s: NULL matrix", fn);
    gat_status st = gat_i_csr_check_matrix(x, fn);
    if (st != GAT_OK) return st;
    if (n_cols < 0 || n_cols > x->cols)
        return gat_i_error(GAT_EINVAL, "%s: %d columns to scale, the matrix has %d", fn, n_cols,
                           x->cols);
    return GAT_OK;
}

gat_status gat_csr_column_moments(const gat_csr *x, gat_idx n_cols, const uint8_t *use,
                                  gat_real *shift, gat_real *scale)
{
    static const char fn[] = "gat_csr_column_moments";
    gat_i_clear_error();
    gat_status st = scale_args(fn, x, n_cols);
    if (st != GAT_OK) return st;
    if (n_cols > 0 && (!shift || !scale))
        return gat_i_error(GAT_EINVAL, "%s: NULL shift or scale", fn);
    /* two passes in double: the means, then the squared deviations of the stored values, to
     * which the implicit zeros add (rows - stored) mean^2 */
    double *sum = gat_calloc(3 * ((size_t)n_cols + 1), sizeof *sum);
    if (!sum) return GAT_ENOMEM;
    double *dev = sum + n_cols + 1, *stored = dev + n_cols + 1, used = 0;
    for (gat_idx r = 0; r < x->rows; r++) {
        if (use && !use[r]) continue;
        used++;
        for (gat_idx k = x->rowptr[r]; k < x->rowptr[r + 1] && x->col[k] < n_cols; k++)
            sum[x->col[k]] += x->val[k], stored[x->col[k]]++;
    }
    for (gat_idx c = 0; c < n_cols; c++)
        sum[c] = used > 0 ? sum[c] / used : 0; /* the mean */
    for (gat_idx r = 0; r < x->rows; r++) {
        if (use && !use[r]) continue;
        for (gat_idx k = x->rowptr[r]; k < x->rowptr[r + 1] && x->col[k] < n_cols; k++) {
            const double d = x->val[k] - sum[x->col[k]];
            dev[x->col[k]] += d * d;
        }
    }
    for (gat_idx c = 0; c < n_cols; c++) {
        const double var = used > 0 ? (dev[c] + (used - stored[c]) * sum[c] * sum[c]) / used : 0;
        const double sd = sqrt(var);
        shift[c] = (gat_real)sum[c];
        /* a constant column (or one whose 1 / sd overflows gat_real) is only centred */
        scale[c] = sd > 0 && isfinite((gat_real)(1 / sd)) ? (gat_real)(1 / sd) : 1;
    }
    gat_free(sum);
    return GAT_OK;
}

gat_status gat_csr_standardize_columns(const gat_csr *x, gat_idx n_cols, const gat_real *shift,
                                       const gat_real *scale, gat_csr *out)
{
    static const char fn[] = "gat_csr_standardize_columns";
    gat_i_clear_error();
    if (!out) return gat_i_error(GAT_EINVAL, "%s: NULL output", fn);
    memset(out, 0, sizeof *out);
    gat_status st = scale_args(fn, x, n_cols);
    if (st != GAT_OK) return st;
    if (n_cols > 0 && (!shift || !scale))
        return gat_i_error(GAT_EINVAL, "%s: NULL shift or scale", fn);
    for (gat_idx c = 0; c < n_cols; c++)
        if (!isfinite(shift[c]) || !isfinite(scale[c]))
            return gat_i_error(GAT_ENUMERIC, "%s: column %d: shift %g, scale %g (not finite)", fn,
                               c, (double)shift[c], (double)scale[c]);
    /* every scaled column in every row, then the row's other stored values */
    size_t nnz = 0;
    for (gat_idx r = 0; r < x->rows; r++) {
        gat_idx k = x->rowptr[r];
        while (k < x->rowptr[r + 1] && x->col[k] < n_cols)
            k++;
        nnz += (size_t)n_cols + (size_t)(x->rowptr[r + 1] - k);
    }
    if (nnz > INT32_MAX)
        return gat_i_error(GAT_ENOMEM,
                           "%s: %zu values (%d rows of %d dense columns) exceed the "
                           "index type",
                           fn, nnz, x->rows, n_cols);
    if ((st = gat_csr_init(out, x->rows, x->cols, nnz)) != GAT_OK) return st;
    size_t o = 0;
    for (gat_idx r = 0; r < x->rows; r++) {
        gat_idx k = x->rowptr[r];
        for (gat_idx c = 0; c < n_cols; c++) {
            const gat_real v = k < x->rowptr[r + 1] && x->col[k] == c ? x->val[k++] : 0;
            const gat_real y = (v - shift[c]) * scale[c];
            if (!isfinite(y)) {
                gat_csr_destroy(out);
                return gat_i_error(GAT_ENUMERIC,
                                   "%s: row %d, column %d: (%g - %g) * %g is not "
                                   "finite",
                                   fn, r, c, (double)v, (double)shift[c], (double)scale[c]);
            }
            out->col[o] = c;
            out->val[o++] = y;
        }
        for (; k < x->rowptr[r + 1]; k++)
            out->col[o] = x->col[k], out->val[o++] = x->val[k];
        out->rowptr[r + 1] = (gat_idx)o;
    }
    return GAT_OK;
}
