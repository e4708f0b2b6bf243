/* Projections (BLAS and sparse) and the plain single-op reference kernels of a GAT layer:
 * per-head score halves, LeakyReLU edge scores, edge softmax, aggregation, dropout, ELU, bias,
 * head mean. Each forward sits next to its backward. */
#include "layers.h"
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

/* Contiguous block [*lo, *hi) of n items for part t of nt. */
static void block(gat_idx n, int t, int nt, gat_idx *lo, gat_idx *hi)
{
    *lo = (gat_idx)((int64_t)n * t / nt);
    *hi = (gat_idx)((int64_t)n * (t + 1) / nt);
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
        int t = 0, T = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        T = omp_get_num_threads();
#endif
        gat_idx lo, hi;
        block(N, t, T, &lo, &hi);
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
        int t = 0, T = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        T = omp_get_num_threads();
#endif
        gat_idx lo, hi;
        block(K, t, T, &lo, &hi);
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

void gat_i_spmm(const gat_csr *x, const gat_real *val, gat_idx M, const gat_real *W, gat_real *Z,
                int nt)
{
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (gat_idx i = 0; i < x->rows; i++) {
        gat_real *z = Z + (size_t)i * M;
        memset(z, 0, (size_t)M * sizeof *z);
        for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++) {
            const gat_real v = val[k];
            const gat_real *w = W + (size_t)x->col[k] * M;
            if (v == 0) continue; /* dropped input */
            for (gat_idx c = 0; c < M; c++) z[c] += v * w[c];
        }
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

void gat_i_head_dot(gat_idx N, int H, gat_idx Fo, const gat_real *Z, const gat_real *a,
                    gat_real *s)
{
    for (gat_idx i = 0; i < N; i++)
        for (int h = 0; h < H; h++) {
            const gat_real *z = Z + ((size_t)i * H + h) * Fo;
            gat_real acc = 0;
            for (gat_idx f = 0; f < Fo; f++) acc += z[f] * a[(size_t)h * Fo + f];
            s[(size_t)i * H + h] = acc;
        }
}

void gat_i_head_dot_backward(gat_idx N, int H, gat_idx Fo, const gat_real *Z, const gat_real *a,
                             const gat_real *ds, gat_real *dZ, gat_real *da)
{
    for (gat_idx i = 0; i < N; i++)
        for (int h = 0; h < H; h++) {
            const gat_real d = ds[(size_t)i * H + h];
            const size_t o = ((size_t)i * H + h) * Fo;
            for (gat_idx f = 0; f < Fo; f++) {
                dZ[o + f] += d * a[(size_t)h * Fo + f];
                da[(size_t)h * Fo + f] += d * Z[o + f];
            }
        }
}

static inline gat_real leaky(gat_real x, gat_real slope)
{
    return x > 0 ? x : slope * x;
}

void gat_i_edge_scores(const gat_graph *g, int H, double slope, const gat_real *s_dst,
                       const gat_real *s_src, gat_real *e)
{
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++)
            for (int h = 0; h < H; h++)
                e[(size_t)k * H + h] = leaky(s_dst[(size_t)i * H + h] +
                                             s_src[(size_t)g->col[k] * H + h], (gat_real)slope);
}

void gat_i_edge_scores_backward(const gat_graph *g, int H, double slope, const gat_real *s_dst,
                                const gat_real *s_src, const gat_real *de, gat_real *ds_dst,
                                gat_real *ds_src)
{
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++)
            for (int h = 0; h < H; h++) {
                const gat_idx j = g->col[k];
                const gat_real pre = s_dst[(size_t)i * H + h] + s_src[(size_t)j * H + h];
                const gat_real d = de[(size_t)k * H + h] * (pre > 0 ? 1 : (gat_real)slope);
                ds_dst[(size_t)i * H + h] += d;
                ds_src[(size_t)j * H + h] += d;
            }
}

void gat_i_edge_softmax(const gat_graph *g, int H, const gat_real *e, gat_real *alpha)
{
    for (gat_idx i = 0; i < g->n; i++)
        for (int h = 0; h < H; h++) {
            const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
            gat_real mx = -INFINITY, sum = 0;
            for (gat_idx k = k0; k < k1; k++) mx = fmax(mx, e[(size_t)k * H + h]);
            for (gat_idx k = k0; k < k1; k++) {
                alpha[(size_t)k * H + h] = exp(e[(size_t)k * H + h] - mx);
                sum += alpha[(size_t)k * H + h];
            }
            for (gat_idx k = k0; k < k1; k++) alpha[(size_t)k * H + h] /= sum;
        }
}

void gat_i_edge_softmax_backward(const gat_graph *g, int H, const gat_real *alpha,
                                 const gat_real *dalpha, gat_real *de)
{
    for (gat_idx i = 0; i < g->n; i++)
        for (int h = 0; h < H; h++) {
            const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
            gat_real dot = 0;
            for (gat_idx k = k0; k < k1; k++)
                dot += alpha[(size_t)k * H + h] * dalpha[(size_t)k * H + h];
            for (gat_idx k = k0; k < k1; k++)
                de[(size_t)k * H + h] += alpha[(size_t)k * H + h] * (dalpha[(size_t)k * H + h] - dot);
        }
}

void gat_i_aggregate(const gat_graph *g, int H, gat_idx Fo, const gat_real *alpha,
                     const gat_real *Z, gat_real *out)
{
    const size_t W = (size_t)H * Fo;
    memset(out, 0, (size_t)g->n * W * sizeof *out);
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++)
            for (int h = 0; h < H; h++)
                for (gat_idx f = 0; f < Fo; f++)
                    out[i * W + (size_t)h * Fo + f] +=
                        alpha[(size_t)k * H + h] * Z[g->col[k] * W + (size_t)h * Fo + f];
}

void gat_i_aggregate_backward(const gat_graph *g, int H, gat_idx Fo, const gat_real *alpha,
                              const gat_real *Z, const gat_real *dout, gat_real *dalpha,
                              gat_real *dZ)
{
    const size_t W = (size_t)H * Fo;
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++) {
            const size_t j = (size_t)g->col[k];
            for (int h = 0; h < H; h++)
                for (gat_idx f = 0; f < Fo; f++) {
                    const size_t o = (size_t)h * Fo + f;
                    dalpha[(size_t)k * H + h] += dout[i * W + o] * Z[j * W + o];
                    dZ[j * W + o] += alpha[(size_t)k * H + h] * dout[i * W + o];
                }
        }
}

void gat_i_dropout(size_t n, const gat_real *x, const uint8_t *mask, gat_real scale, gat_real *y)
{
    for (size_t k = 0; k < n; k++) y[k] = mask[k] ? x[k] * scale : 0;
}

void gat_i_dropout_backward(size_t n, const uint8_t *mask, gat_real scale, const gat_real *dy,
                            gat_real *dx)
{
    for (size_t k = 0; k < n; k++) dx[k] += mask[k] ? dy[k] * scale : 0;
}

void gat_i_dropout_mask(size_t n, double p, uint64_t key, uint8_t *mask, int nt)
{
    /* element k keeps iff its 16 bits of hash(key, k / 4) reach p * 2^16 (gat_i_drop_cut) */
    const uint32_t cut = gat_i_drop_cut(p);
    const size_t nb = (n + 3) / 4;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 65536)
    for (size_t b = 0; b < nb; b++) {
        const uint64_t hv = gat_i_hash64(key, b);
        for (size_t t = 0; t < 4 && 4 * b + t < n; t++)
            mask[4 * b + t] = ((hv >> (16 * t)) & 0xFFFFu) >= cut;
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

void gat_i_elu_backward(size_t n, const gat_real *y, const gat_real *dy, gat_real *dx)
{
    for (size_t k = 0; k < n; k++) dx[k] += dy[k] * (y[k] > 0 ? 1 : y[k] + 1);
}

void gat_i_bias_add(gat_idx N, gat_idx M, const gat_real *b, gat_real *y)
{
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx c = 0; c < M; c++) y[(size_t)i * M + c] += b[c];
}

void gat_i_bias_backward(gat_idx N, gat_idx M, const gat_real *dy, gat_real *db)
{
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx c = 0; c < M; c++) db[c] += dy[(size_t)i * M + c];
}

void gat_i_head_mean(gat_idx N, int H, gat_idx Fo, const gat_real *in, gat_real *out)
{
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx f = 0; f < Fo; f++) {
            gat_real acc = 0;
            for (int h = 0; h < H; h++) acc += in[((size_t)i * H + h) * Fo + f];
            out[(size_t)i * Fo + f] = acc / H;
        }
}

void gat_i_head_mean_backward(gat_idx N, int H, gat_idx Fo, const gat_real *dout, gat_real *din)
{
    for (gat_idx i = 0; i < N; i++)
        for (int h = 0; h < H; h++)
            for (gat_idx f = 0; f < Fo; f++)
                din[((size_t)i * H + h) * Fo + f] += dout[(size_t)i * Fo + f] / H;
}
