/* Dense row-major and CSR sparse matrices of gat_real, with caller-visible fields.
 * Storage is owned by the struct and released with the matching destroy call.
 *
 * Which fields a caller may write: the constructors set rows, cols, capacity and the array
 * pointers, and those stay theirs. After gat_csr_init the caller fills the contents: rowptr (rows+1
 * entries) and, for the first rowptr[rows] <= capacity positions, col and val. Every function
 * that takes a gat_csr as input checks that filling once (gat_csr_check: GAT_EINVAL naming the
 * row and the bad pointer or column, GAT_ENUMERIC naming a NaN or Inf value) before reading the
 * arrays; a model checks features when it first sees them (see gat_model_forward). */
#ifndef GAT_MATRIX_H
#define GAT_MATRIX_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gat_matrix {
    gat_idx rows, cols;
    gat_real *data; /* (rows, cols) row-major: element (r, c) at data[(size_t)r * cols + c] */
} gat_matrix;

typedef struct gat_csr {
    gat_idx rows, cols;
    gat_idx *rowptr; /* (rows+1); nnz = rowptr[rows] */
    gat_idx *col;    /* (nnz) column of each stored value, strictly ascending within a row */
    gat_real *val;   /* (nnz), finite */
    size_t capacity; /* length of the col and val arrays (set by the constructors; nnz <= it) */
} gat_csr;

/* Allocates a zero-filled rows x cols matrix into m (uninitialised; zeroed on failure).
 * Returns GAT_EINVAL (negative size), GAT_ENOMEM. */
GAT_API gat_status gat_matrix_init(gat_matrix *m, gat_idx rows, gat_idx cols);
/* Frees m's data and zeroes m. Accepts NULL and a zeroed matrix. */
GAT_API void gat_matrix_destroy(gat_matrix *m);

/* Allocates a CSR matrix with room for nnz values (capacity = nnz), rowptr zero-filled
 * (uninitialised -> owned); the caller then fills rowptr, col and val (see above).
 * Returns GAT_EINVAL (NULL a, negative size, nnz > INT32_MAX), GAT_ENOMEM. */
GAT_API gat_status gat_csr_init(gat_csr *a, gat_idx rows, gat_idx cols, size_t nnz);
/* Builds a CSR copy of the dense row-major (rows, cols) array, keeping the non-zeros.
 * Returns GAT_EINVAL (NULL, negative size), GAT_ENUMERIC (a NaN or Inf, named by row/column),
 * GAT_ENOMEM. */
GAT_API gat_status gat_csr_from_dense(gat_csr *a, gat_idx rows, gat_idx cols, const gat_real *dense);
/* Builds a by COPYING a caller's CSR arrays (borrowed; the caller keeps and frees them):
 * rowptr (rows+1), col and val (rowptr[rows]); val may be NULL for all ones (a binary pattern).
 * Checked: rowptr[0] == 0 and non-decreasing, columns in [0, cols) and strictly ascending within
 * each row, values finite. a: uninitialised, zeroed on failure.
 * Returns GAT_EINVAL (NULL array, negative size, a bad row pointer or column, naming the row),
 * GAT_ENUMERIC (a NaN or Inf, named by row and column), GAT_ENOMEM. Cost O(rows + nnz). */
GAT_API gat_status gat_csr_from_arrays(gat_csr *a, gat_idx rows, gat_idx cols,
                                       const gat_idx *rowptr, const gat_idx *col,
                                       const gat_real *val);
/* Deep copy of src (borrowed; checked as in gat_csr_from_arrays) into dst (uninitialised).
 * Returns as gat_csr_from_arrays. */
GAT_API gat_status gat_csr_copy(gat_csr *dst, const gat_csr *src);
/* The n x n identity: one-hot node features for graphs without any (each node learns its own
 * input embedding). a: uninitialised. Returns GAT_EINVAL (n < 0), GAT_ENOMEM. Cost O(n). */
GAT_API gat_status gat_csr_identity(gat_csr *a, gat_idx n);
/* GAT_OK if a (borrowed) is a well-formed CSR: rows, cols >= 0; rowptr[0] == 0, non-decreasing,
 * rowptr[rows] <= capacity; col and val not NULL when there are values; every column in
 * [0, cols), strictly ascending within its row; every value finite. A zeroed matrix is the empty
 * one. The check every function taking features runs. Returns GAT_EINVAL (NULL a, or the first
 * fault, naming the row and the value), GAT_ENUMERIC (a NaN or Inf value, naming row, column and
 * value). Cost O(rows + nnz). */
GAT_API gat_status gat_csr_check(const gat_csr *a);
/* Frees a's arrays and zeroes a. Accepts NULL and a zeroed matrix. */
GAT_API void gat_csr_destroy(gat_csr *a);
/* Scales every row of a to sum 1 (rows summing to 0 are left as they are), as the GAT and GCN
 * reference code preprocess bag-of-words features. Meant for non-negative rows (the results then
 * lie in [0, 1]); a row of signed values whose sum nearly cancels is blown up or flipped in sign
 * (the dataset loaders leave signed features alone: GAT_NORMALIZE_AUTO). a must be well-formed
 * (gat_csr_check); a NULL or zeroed a is left alone (the no-op rule of status.h). Cost O(nnz). */
GAT_API void gat_csr_normalize_rows(gat_csr *a);
/* Column statistics for standardising features: for each column c < n_cols of x (borrowed),
 * over the rows r with use[r] != 0 (use NULL: every row), shift[c] = the mean and scale[c] = 1 /
 * the population standard deviation, the zeros x does not store counted as values (scale 1 for a
 * constant column or when no row is used, shift 0 then too). Accumulated in double in row order:
 * the same figures on every machine and thread count. Fit them on the training rows only, so
 * that validation and test data shape nothing. Returns GAT_EINVAL (NULL x, or NULL shift or
 * scale with n_cols > 0; n_cols outside [0, x->cols]; x malformed as gat_csr_check says),
 * GAT_ENUMERIC (a NaN or Inf in x), GAT_ENOMEM. Cost O(rows + nnz + n_cols). */
GAT_API gat_status gat_csr_column_moments(const gat_csr *x, gat_idx n_cols, const uint8_t *use,
                                          gat_real *shift, gat_real *scale);
/* out (uninitialised; zeroed on failure) = x with its columns c < n_cols standardised, (x_rc -
 * shift[c]) * scale[c], stored in every row (a centred column has no zeros to leave out; its
 * entries come first in each row), and x's other columns as they are. Returns GAT_EINVAL (NULL x
 * or out, NULL shift or scale with n_cols > 0, n_cols outside [0, x->cols], x malformed),
 * GAT_ENUMERIC (a shift or scale that is not finite, naming the column, or a result that
 * overflows, naming row and column), GAT_ENOMEM (also when rows x n_cols values and the rest
 * exceed the index type). Cost O(rows x n_cols + nnz). */
GAT_API gat_status gat_csr_standardize_columns(const gat_csr *x, gat_idx n_cols,
                                               const gat_real *shift, const gat_real *scale,
                                               gat_csr *out);

#ifdef __cplusplus
}
#endif
#endif
