/* Private CSR helpers: the check shared by the matrix constructors and the dataset builders, and
 * the transpose with a position map that the models keep for the sparse weight gradient. */
#ifndef GAT_I_MATRIX_H
#define GAT_I_MATRIX_H

#include "gat/matrix.h"

/* GAT_OK if rowptr (rows+1), col and val (rowptr[rows] <= cap; val NULL = ones) form a CSR:
 * rowptr[0] == 0 and non-decreasing, columns in [0, cols) strictly ascending within a row, values
 * finite. Otherwise GAT_EINVAL or GAT_ENUMERIC with a message starting with fn (naming the row,
 * the column and the value). cap: length of col and val (SIZE_MAX if the caller cannot know).
 * Reads nothing past rowptr[rows] once rowptr is monotone and within cap. Cost O(rows + nnz). */
gat_status gat_i_csr_check(const char *fn, gat_idx rows, gat_idx cols, const gat_idx *rowptr,
                           const gat_idx *col, const gat_real *val, size_t cap);

/* The same check on a caller-filled gat_csr (a zeroed one is the empty matrix): sizes, rowptr,
 * rowptr[rows] <= a->capacity, NULL arrays, columns and values. fn prefixes messages, e.g.
 * "gat_model_forward: features x". This is gat_csr_check's checker, shared by every entry that
 * takes features. */
gat_status gat_i_csr_check_matrix(const gat_csr *a, const char *fn);

/* t (cols x rows) = the transpose of x (a checked CSR, borrowed), and *perm (nnz(x)) with
 * perm[p] = the position in x of t's position p, so that values x changes later are read through
 * it: t's rows (x's columns) hold x's rows in ascending order. t is initialised here (uninitialised
 * on entry; the caller owns it: gat_csr_destroy) and *perm allocated (gat_free). On failure t is
 * zeroed and *perm NULL. Returns GAT_ENOMEM. Cost O(rows + cols + nnz), two passes over x. */
gat_status gat_i_csr_transpose_perm(const gat_csr *x, gat_csr *t, gat_idx **perm);

/* Room for x's transpose in t and *perm as they are (from an earlier call, or zeroed and NULL):
 * nothing is allocated when they fit (same column count, nnz(x) within t's capacity, and equal to
 * it if exact); otherwise they are freed and made anew, for nnz(x) entries if exact, else with
 * an eighth more room, their contents unspecified. On failure t is zeroed and *perm NULL.
 * Returns GAT_ENOMEM. */
gat_status gat_i_csr_transpose_reserve(const gat_csr *x, gat_csr *t, gat_idx **perm, int exact);

/* x's transpose and perm (as gat_i_csr_transpose_perm's) into the room
 * gat_i_csr_transpose_reserve made for x. Cost O(rows + cols + nnz). */
void gat_i_csr_transpose_fill(const gat_csr *x, gat_csr *t, gat_idx *perm);

/* out (uninitialised; zeroed on failure) = x's rows in the order perm gives (row k of out is
 * row perm[k] of x; perm a permutation of 0..x->rows-1, unchecked). Returns GAT_ENOMEM.
 * Cost O(rows + nnz). */
gat_status gat_i_csr_permute_rows(const gat_csr *x, const gat_idx *perm, gat_csr *out);

#endif
