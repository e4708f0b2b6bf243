/* Dense kernels of the graph-transformer layers (gps_i.h): layer and batch normalisation forward
 * and backward, dropout. LayerNorm backward, per row with xhat = (x - mean) rstd and gy = g dy:
 *   dx = rstd (gy - mean(gy) - xhat mean(gy xhat)),  dg += dy xhat,  db += dy. */
#include "gps_i.h"
#include "layers/fused.h"
#include "layers/layers.h"

#include <math.h>
#include <string.h>

void gat_i_layernorm_forward(gat_idx N, gat_idx D, const gat_real *x, const gat_real *g,
                             const gat_real *b, gat_real *y, gat_real *mean, gat_real *rstd,
                             int nt)
{
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && N > 256)
    for (gat_idx i = 0; i < N; i++) {
        const gat_real *xi = x + (size_t)i * D;
        double s = 0, v = 0;
        for (gat_idx d = 0; d < D; d++) s += xi[d];
        const double mu = s / D;
        for (gat_idx d = 0; d < D; d++) v += (xi[d] - mu) * (xi[d] - mu);
        const double r = 1 / sqrt(v / D + 1e-5);
        mean[i] = (gat_real)mu;
        rstd[i] = (gat_real)r;
        for (gat_idx d = 0; d < D; d++)
            y[(size_t)i * D + d] = g[d] * (gat_real)((xi[d] - mu) * r) + b[d];
    }
}

void gat_i_layernorm_backward(gat_idx N, gat_idx D, const gat_real *x, const gat_real *g,
                              const gat_real *mean, const gat_real *rstd, const gat_real *dy,
                              gat_real *dx, gat_real *dg, gat_real *db, int nt)
{
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && N > 256)
    for (gat_idx i = 0; i < N; i++) {
        const gat_real *xi = x + (size_t)i * D, *dyi = dy + (size_t)i * D;
        double m1 = 0, m2 = 0;
        for (gat_idx d = 0; d < D; d++) {
            const double xh = (xi[d] - mean[i]) * rstd[i], gy = (double)g[d] * dyi[d];
            m1 += gy;
            m2 += gy * xh;
        }
        m1 /= D, m2 /= D;
        for (gat_idx d = 0; d < D; d++) {
            const double xh = (xi[d] - mean[i]) * rstd[i], gy = (double)g[d] * dyi[d];
            dx[(size_t)i * D + d] = (gat_real)(rstd[i] * (gy - m1 - xh * m2));
        }
    }
    /* the parameters' sums over the rows, in row order (the same bits for any thread count) */
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx d = 0; d < D; d++) {
            const gat_real dyv = dy[(size_t)i * D + d];
            dg[d] += dyv * (x[(size_t)i * D + d] - mean[i]) * rstd[i];
            db[d] += dyv;
        }
}

void gat_i_batchnorm_forward(gat_idx N, gat_idx D, const gat_real *x, const gat_real *g,
                             const gat_real *b, int training, gat_real *rmean, gat_real *rvar,
                             gat_real *y, gat_real *mean, gat_real *rstd, int nt)
{
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && (size_t)N * D > 16384)
    for (gat_idx d = 0; d < D; d++) {
        double mu, var;
        if (training) {
            double s = 0, v = 0;
            for (gat_idx i = 0; i < N; i++) s += x[(size_t)i * D + d];
            mu = s / N;
            for (gat_idx i = 0; i < N; i++) {
                const double t = x[(size_t)i * D + d] - mu;
                v += t * t;
            }
            var = v / N;
            /* PyTorch's running statistics: the unbiased variance (none from one row) */
            rmean[d] = (gat_real)(0.9 * rmean[d] + 0.1 * mu);
            if (N > 1) rvar[d] = (gat_real)(0.9 * rvar[d] + 0.1 * v / (N - 1));
        } else {
            mu = rmean[d], var = rvar[d];
        }
        const double r = 1 / sqrt(var + 1e-5);
        mean[d] = (gat_real)mu;
        rstd[d] = (gat_real)r;
        for (gat_idx i = 0; i < N; i++) {
            const size_t e = (size_t)i * D + d;
            y[e] = g[d] * (gat_real)((x[e] - mu) * r) + b[d];
        }
    }
}

void gat_i_batchnorm_backward(gat_idx N, gat_idx D, const gat_real *x, const gat_real *g,
                              const gat_real *mean, const gat_real *rstd, const gat_real *dy,
                              gat_real *dx, gat_real *dg, gat_real *db, int nt)
{
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && (size_t)N * D > 16384)
    for (gat_idx d = 0; d < D; d++) {
        const double mu = mean[d], r = rstd[d];
        double s1 = 0, s2 = 0; /* sum dy, sum dy xhat */
        for (gat_idx i = 0; i < N; i++) {
            const size_t e = (size_t)i * D + d;
            s1 += dy[e];
            s2 += dy[e] * (x[e] - mu) * r;
        }
        dg[d] += (gat_real)s2;
        db[d] += (gat_real)s1;
        const double m1 = g[d] * s1 / N, m2 = g[d] * s2 / N;
        for (gat_idx i = 0; i < N; i++) {
            const size_t e = (size_t)i * D + d;
            const double xh = (x[e] - mu) * r;
            dx[e] = (gat_real)(r * (g[d] * (double)dy[e] - m1 - xh * m2));
        }
    }
}

void gat_i_gps_dropout(gat_real *x, size_t n, double p, uint64_t key, int nt)
{
    if (p <= 0) return;
    gat_i_fused_get(GAT_KERNELS_AUTO)
        ->dropout(x, n, gat_i_drop_cut(p), (gat_real)(1 / (1 - p)), key, nt);
}

void gat_i_dense_forward(gat_idx N, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                         const gat_real *b, gat_real *y, int nt)
{
    if (N < 1 || C < 1) return;
    if (b)
        for (gat_idx i = 0; i < N; i++)
            memcpy(y + (size_t)i * C, b, (size_t)C * sizeof *y);
    gat_i_fused_get(GAT_KERNELS_AUTO)
        ->gemm(N, C, R, x, (size_t)R, 1, W, (size_t)C, b != NULL, y, (size_t)C, nt);
}

void gat_i_dense_backward(gat_idx N, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                          const gat_real *dy, gat_real *dx, gat_real *dW, gat_real *db,
                          gat_real *wt, int nt)
{
    if (N < 1 || R < 1 || C < 1) return;
    const gat_i_fused_ops *ops = gat_i_fused_get(GAT_KERNELS_AUTO);
    if (dx) { /* dx += dy W^T, W^T (C, R) in wt */
        for (gat_idx r = 0; r < R; r++)
            for (gat_idx c = 0; c < C; c++)
                wt[(size_t)c * R + r] = W[(size_t)r * C + c];
        ops->gemm(N, R, C, dy, (size_t)C, 1, wt, (size_t)R, 1, dx, (size_t)R, nt);
    }
    ops->gemm(R, C, N, x, 1, (size_t)R, dy, (size_t)C, 1, dW, (size_t)C, nt); /* x^T dy */
    if (db)
        for (gat_idx i = 0; i < N; i++)
            for (gat_idx c = 0; c < C; c++) db[c] += dy[(size_t)i * C + c];
}
