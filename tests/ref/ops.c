/* The layer-by-layer reference model's element kernels (test-only): projections (BLAS row blocks,
 * sparse products and the sparse weight gradient), input dropout and its mask, ELU, the bias
 * gradient. */
#include "plain.h"
#include "core/core.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef GAT_REAL_DOUBLE
#define GEMM cblas_dgemm
#else
#define GEMM cblas_sgemm
#endif

/* Inside a parallel region: the calling thread's contiguous block [*lo, *hi) of n items. */
static void thread_block(gat_idx n, gat_idx *lo, gat_idx *hi)
{
    int t = 0, T = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    T = omp_get_num_threads();
#endif
    *lo = (gat_idx)((int64_t)n * t / T);
    *hi = (gat_idx)((int64_t)n * (t + 1) / T);
}

/* Tall, skinny products: one BLAS call per thread on its row block beat OpenBLAS's own
 * threading (which the model turns off) and keep each thread's output rows disjoint.
 * C (N, cols) = A (N, inner) op(B) + beta C, op(B) = B (inner, cols) or, with trans_b, B^T for
 * B (cols, inner); an empty inner dimension leaves beta C (zero rows for beta 0). */
static void gemm_row_blocks(int trans_b, gat_idx N, gat_idx inner, gat_idx cols, const gat_real *A,
                            const gat_real *B, gat_real beta, gat_real *C, int nt)
{
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        gat_idx lo, hi;
        thread_block(N, &lo, &hi);
        if (hi > lo && inner > 0)
            GEMM(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, hi - lo, cols,
                 inner, 1, A + (size_t)lo * inner, inner, B, trans_b ? inner : cols, beta,
                 C + (size_t)lo * cols, cols);
        else if (hi > lo && beta == 0)
            memset(C + (size_t)lo * cols, 0, (size_t)(hi - lo) * cols * sizeof *C);
    }
}

void gat_i_gemm_nn(gat_idx N, gat_idx K, gat_idx M, const gat_real *X, const gat_real *W,
                   gat_real *Z, int nt)
{
    gemm_row_blocks(0, N, K, M, X, W, 0, Z, nt);
}

void gat_i_gemm_nn_acc(gat_idx N, gat_idx K, gat_idx M, const gat_real *X, const gat_real *W,
                       gat_real *Z, int nt)
{
    gemm_row_blocks(0, N, K, M, X, W, 1, Z, nt);
}

void gat_i_gemm_tn_acc(gat_idx N, gat_idx K, gat_idx M, const gat_real *X, const gat_real *dZ,
                       gat_real *dW, int nt)
{
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        gat_idx lo, hi;
        thread_block(K, &lo, &hi);
        if (hi > lo && N > 0)
            GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, hi - lo, M, N, 1, X + lo, K, dZ, M, 1,
                 dW + (size_t)lo * M, M);
    }
}

void gat_i_gemm_nt(gat_idx N, gat_idx K, gat_idx M, const gat_real *dZ, const gat_real *W,
                   gat_real *dX, int nt)
{
    gemm_row_blocks(1, N, M, K, dZ, W, 0, dX, nt);
}

void gat_i_gemm_nt_acc(gat_idx N, gat_idx K, gat_idx M, const gat_real *dZ, const gat_real *W,
                       gat_real *dX, int nt)
{
    gemm_row_blocks(1, N, M, K, dZ, W, 1, dX, nt);
}

/* z (M) += sum over row i of x of val[k] W[col k] (W NULL: the identity, z[col k] += val[k]). */
static void spmm_row(const gat_csr *x, const gat_real *val, gat_idx M, const gat_real *W,
                     gat_idx i, gat_real *z)
{
    for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++) {
        const gat_real v = val[k];
        if (v == 0) continue; /* dropped input */
        if (!W) {
            z[x->col[k]] += v;
            continue;
        }
        const gat_real *w = W + (size_t)x->col[k] * M;
        for (gat_idx c = 0; c < M; c++)
            z[c] += v * w[c];
    }
}

void gat_i_spmm(const gat_csr *x, const gat_real *val, gat_idx M, const gat_real *W, gat_real *Z,
                int nt)
{
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (gat_idx i = 0; i < x->rows; i++) {
        gat_real *z = Z + (size_t)i * M;
        memset(z, 0, (size_t)M * sizeof *z);
        spmm_row(x, val, M, W, i, z);
    }
}

void gat_i_spmm_acc(const gat_csr *x, const gat_real *val, gat_idx M, const gat_real *W,
                    const gat_idx *rows, gat_idx n_rows, gat_real *Z, int nt)
{
    const gat_idx n = rows ? n_rows : x->rows;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (gat_idx r = 0; r < n; r++) {
        const gat_idx i = rows ? rows[r] : r;
        spmm_row(x, val, M, W, i, Z + (size_t)i * M);
    }
}

void gat_i_spmm_backward_w(const gat_csr *xt, const gat_idx *perm, const gat_real *val,
                           gat_idx M, const gat_real *dZ, gat_real *dW, int nt)
{
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (gat_idx f = 0; f < xt->rows; f++) {
        gat_real *dw = dW + (size_t)f * M;
        for (gat_idx p = xt->rowptr[f]; p < xt->rowptr[f + 1]; p++) {
            const gat_real v = val[perm[p]];
            const gat_real *dz = dZ + (size_t)xt->col[p] * M;
            if (v == 0) continue;
            for (gat_idx c = 0; c < M; c++) dw[c] += v * dz[c];
        }
    }
}

void gat_i_dropout(size_t n, const gat_real *x, const uint8_t *mask, gat_real scale, gat_real *y)
{
    for (size_t k = 0; k < n; k++) y[k] = mask[k] ? x[k] * scale : 0;
}

void gat_i_dropout_mask(size_t n, double p, uint64_t key, uint8_t *mask, int nt)
{
    /* element k keeps iff gat_i_keep16(key, k) reaches the cut; one hash per four elements */
    const uint32_t cut = gat_i_drop_cut(p);
    const size_t nb = (n + 3) / 4;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 65536)
    for (size_t b = 0; b < nb; b++) {
        const uint64_t hv = gat_i_hash64(key, b);
        for (size_t k = 4 * b; k < 4 * b + 4 && k < n; k++)
            mask[k] = gat_i_keep16_of(hv, k) >= cut;
    }
}

void gat_i_elu(size_t n, const gat_real *x, gat_real *y)
{
    /* exp(x) - 1 rather than expm1: it vectorises, and its absolute error (what ELU's use
     * needs) stays within a few float ulps of 1 */
    for (size_t k = 0; k < n; k++) {
        /* both sides computed, so the loop has no branch (exp's argument keeps a NaN) */
        const gat_real e = gat_i_exp(x[k] > 0 ? 0 : x[k]) - 1;
        y[k] = x[k] > 0 ? x[k] : e;
    }
}

void gat_i_bias_backward(gat_idx N, gat_idx M, const gat_real *dy, gat_real *db)
{
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx c = 0; c < M; c++) db[c] += dy[(size_t)i * M + c];
}
