/* Dense row-major and CSR sparse matrices of gat_real, with caller-visible fields.
 * Storage is owned by the struct and released with the matching destroy call. */
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
    gat_idx *col;    /* (nnz) column of each stored value, ascending within a row */
    gat_real *val;   /* (nnz) */
} gat_csr;

/* Allocates a zero-filled rows x cols matrix into m (uninitialised; zeroed on failure).
 * Returns GAT_EINVAL (negative size), GAT_ENOMEM. */
GAT_API gat_status gat_matrix_init(gat_matrix *m, gat_idx rows, gat_idx cols);
/* Frees m's data and zeroes m. Accepts NULL and a zeroed matrix. */
GAT_API void gat_matrix_destroy(gat_matrix *m);

/* Allocates a CSR matrix with room for nnz values, rowptr zero-filled (uninitialised -> owned).
 * Returns GAT_EINVAL, GAT_ENOMEM. */
GAT_API gat_status gat_csr_init(gat_csr *a, gat_idx rows, gat_idx cols, size_t nnz);
/* Builds a CSR copy of the dense row-major (rows, cols) array, keeping the non-zeros.
 * Returns GAT_EINVAL (NULL, negative size), GAT_ENUMERIC (a NaN or Inf, named by row/column),
 * GAT_ENOMEM. */
GAT_API gat_status gat_csr_from_dense(gat_csr *a, gat_idx rows, gat_idx cols, const gat_real *dense);
/* Frees a's arrays and zeroes a. Accepts NULL and a zeroed matrix. */
GAT_API void gat_csr_destroy(gat_csr *a);
/* Scales every row of a to sum 1 (rows summing to 0 are left as they are), as the GAT and GCN
 * reference code preprocess bag-of-words features. */
GAT_API void gat_csr_normalize_rows(gat_csr *a);

#ifdef __cplusplus
}
#endif
#endif
