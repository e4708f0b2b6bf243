/* Private CSR check shared by the matrix constructors and the dataset builders. */
#ifndef GAT_I_MATRIX_H
#define GAT_I_MATRIX_H

#include "gat/matrix.h"

/* GAT_OK if rowptr (rows+1), col and val (rowptr[rows]; val NULL = ones) form a CSR: rowptr[0]
 * == 0 and non-decreasing, columns in [0, cols) strictly ascending within a row, values finite.
 * Otherwise GAT_EINVAL or GAT_ENUMERIC with a message starting with fn. */
gat_status gat_i_csr_check(const char *fn, gat_idx rows, gat_idx cols, const gat_idx *rowptr,
                           const gat_idx *col, const gat_real *val);

#endif
