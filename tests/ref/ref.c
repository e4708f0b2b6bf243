/* The reference kernels (ref.h): GAT's score halves and LeakyReLU edge scores (Velickovic et al.
 * 2018, eq. 1-4), the attention family's edge scores, edge softmax, aggregation, head mean,
 * dropout, ELU, bias and the transposed feature matrix, each as the plainest serial loop. */
#include "ref.h"
#include "core/core.h"
#include "layers/layers.h"

#include <math.h>
#include <string.h>

/* ---- GAT's additive score ---- */

void ref_head_dot(gat_idx N, int H, gat_idx Fo, const gat_real *Z, const gat_real *a, gat_real *s)
{
    for (gat_idx i = 0; i < N; i++)
        for (int h = 0; h < H; h++) {
            const gat_real *z = Z + ((size_t)i * H + h) * Fo;
            gat_real acc = 0;
            for (gat_idx f = 0; f < Fo; f++)
                acc += z[f] * a[(size_t)h * Fo + f];
            s[(size_t)i * H + h] = acc;
        }
}

void ref_head_dot_backward(gat_idx N, int H, gat_idx Fo, const gat_real *Z, const gat_real *a,
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

void ref_edge_scores(const gat_graph *g, int H, double slope, const gat_real *s_dst,
                     const gat_real *s_src, gat_real *e)
{
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++)
            for (int h = 0; h < H; h++) {
                const gat_real u = s_dst[(size_t)i * H + h] + s_src[(size_t)g->col[k] * H + h];
                e[(size_t)k * H + h] = u > 0 ? u : (gat_real)slope * u;
            }
}

void ref_edge_scores_backward(const gat_graph *g, int H, double slope, const gat_real *s_dst,
                              const gat_real *s_src, const gat_real *de, gat_real *ds_dst,
                              gat_real *ds_src)
{
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++)
            for (int h = 0; h < H; h++) {
                const gat_idx j = g->col[k];
                const gat_real u = s_dst[(size_t)i * H + h] + s_src[(size_t)j * H + h];
                const gat_real d = de[(size_t)k * H + h] * (u > 0 ? 1 : (gat_real)slope);
                ds_dst[(size_t)i * H + h] += d;
                ds_src[(size_t)j * H + h] += d;
            }
}

/* ---- the attention family's scores ---- */

/* The sums over one edge-head's query q_i and key k_j, in double. */
typedef struct sums {
    double qq, kk, qk, d2; /* q.q, k.k, q.k, |q - k|^2 */
} sums;

static sums edge_sums(const gat_real *qi, const gat_real *kj, gat_idx D)
{
    sums s = {0, 0, 0, 0};
    for (gat_idx f = 0; f < D; f++) {
        s.qq += (double)qi[f] * qi[f];
        s.kk += (double)kj[f] * kj[f];
        s.qk += (double)qi[f] * kj[f];
        s.d2 += ((double)qi[f] - kj[f]) * ((double)qi[f] - kj[f]);
    }
    return s;
}

/* Score of edge j -> i, head h (scores.h has the table of definitions). */
static double score(const gat_i_score_args *a, gat_idx i, gat_idx j, int h)
{
    const gat_idx D = a->D;
    const gat_real *qi = a->q + ((size_t)i * a->H + h) * D;
    const gat_real *kj = a->k + ((size_t)j * a->H + h) * D;
    const sums s = edge_sums(qi, kj, D);
    switch (a->score) {
    case GAT_SCORE_GATV2: {
        double v = 0;
        for (gat_idx f = 0; f < D; f++) {
            const double u = (double)qi[f] + kj[f];
            v += a->att[(size_t)h * D + f] * (u > 0 ? u : a->slope * u);
        }
        return v;
    }
    case GAT_SCORE_SCALED_DOT:
        return s.qk / sqrt((double)D);
    case GAT_SCORE_COSINE:
        return a->theta[h] * s.qk / (sqrt(s.qq + GAT_I_COS_EPS) * sqrt(s.kk + GAT_I_COS_EPS));
    case GAT_SCORE_GAUSSIAN: {
        const double sigma = exp(a->theta[h]);
        return -s.d2 / (2 * sigma * sigma);
    }
    default: /* dot, bilinear */
        return s.qk;
    }
}

void ref_score_edges(const gat_i_score_args *a, gat_real *e)
{
    const gat_graph *g = a->g;
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++)
            for (int h = 0; h < a->H; h++)
                e[(size_t)k * a->H + h] = (gat_real)score(a, i, g->col[k], h);
}

void ref_score_edges_backward(const gat_i_score_args *a, const gat_real *de, gat_real *dq,
                              gat_real *dk, gat_real *datt, gat_real *dtheta)
{
    const gat_graph *g = a->g;
    const gat_idx D = a->D;
    const int H = a->H;
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++)
            for (int h = 0; h < H; h++) {
                const gat_idx j = g->col[k];
                const size_t oi = ((size_t)i * H + h) * D, oj = ((size_t)j * H + h) * D;
                const gat_real *qi = a->q + oi, *kj = a->k + oj;
                const double d = de[(size_t)k * H + h];
                const sums s = edge_sums(qi, kj, D);
                const double nq = sqrt(s.qq + GAT_I_COS_EPS), nk = sqrt(s.kk + GAT_I_COS_EPS);
                const double beta = a->theta ? a->theta[h] : 0;
                const double isig2 = a->theta ? exp(-2.0 * a->theta[h]) : 0; /* 1 / sigma^2 */
                for (gat_idx f = 0; f < D; f++) {
                    double gq, gk; /* ds/dq_f, ds/dk_f */
                    switch (a->score) {
                    case GAT_SCORE_GATV2: {
                        const double u = (double)qi[f] + kj[f], at = a->att[(size_t)h * D + f];
                        gq = gk = at * (u > 0 ? 1 : a->slope);
                        if (datt)
                            datt[(size_t)h * D + f] += (gat_real)(d * (u > 0 ? u : a->slope * u));
                        break;
                    }
                    case GAT_SCORE_SCALED_DOT:
                        gq = kj[f] / sqrt((double)D), gk = qi[f] / sqrt((double)D);
                        break;
                    case GAT_SCORE_COSINE:
                        gq = beta * (kj[f] / (nq * nk) - s.qk * qi[f] / (nq * nq * nq * nk));
                        gk = beta * (qi[f] / (nq * nk) - s.qk * kj[f] / (nq * nk * nk * nk));
                        break;
                    case GAT_SCORE_GAUSSIAN:
                        gq = -isig2 * ((double)qi[f] - kj[f]), gk = -gq;
                        break;
                    default:
                        gq = kj[f], gk = qi[f];
                        break;
                    }
                    dq[oi + f] += (gat_real)(d * gq);
                    dk[oj + f] += (gat_real)(d * gk);
                }
                if (dtheta && a->score == GAT_SCORE_COSINE)
                    dtheta[h] += (gat_real)(d * s.qk / (nq * nk));
                if (dtheta && a->score == GAT_SCORE_GAUSSIAN)
                    dtheta[h] += (gat_real)(d * s.d2 * isig2);
            }
}

/* ---- softmax, aggregation, head mean ---- */

void ref_edge_softmax(const gat_graph *g, int H, const gat_real *e, gat_real *alpha)
{
    for (gat_idx i = 0; i < g->n; i++)
        for (int h = 0; h < H; h++) {
            const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
            double mx = -INFINITY, sum = 0;
            for (gat_idx k = k0; k < k1; k++)
                mx = fmax(mx, e[(size_t)k * H + h]);
            for (gat_idx k = k0; k < k1; k++)
                sum += exp(e[(size_t)k * H + h] - mx);
            for (gat_idx k = k0; k < k1; k++)
                alpha[(size_t)k * H + h] = (gat_real)(exp(e[(size_t)k * H + h] - mx) / sum);
        }
}

void ref_edge_softmax_backward(const gat_graph *g, int H, const gat_real *alpha,
                               const gat_real *dalpha, gat_real *de)
{
    for (gat_idx i = 0; i < g->n; i++)
        for (int h = 0; h < H; h++) {
            const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
            double dot = 0;
            for (gat_idx k = k0; k < k1; k++)
                dot += (double)alpha[(size_t)k * H + h] * dalpha[(size_t)k * H + h];
            for (gat_idx k = k0; k < k1; k++)
                de[(size_t)k * H + h] +=
                    (gat_real)(alpha[(size_t)k * H + h] * (dalpha[(size_t)k * H + h] - dot));
        }
}

void ref_aggregate(const gat_graph *g, int H, gat_idx Fo, const gat_real *alpha, const gat_real *Z,
                   gat_real *out)
{
    const size_t W = (size_t)H * Fo;
    memset(out, 0, (size_t)g->n * W * sizeof *out);
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++) {
            const size_t j = (size_t)g->col[k];
            for (int h = 0; h < H; h++)
                for (gat_idx f = 0; f < Fo; f++) {
                    const size_t o = (size_t)h * Fo + f;
                    out[(size_t)i * W + o] += alpha[(size_t)k * H + h] * Z[j * W + o];
                }
        }
}

void ref_aggregate_backward(const gat_graph *g, int H, gat_idx Fo, const gat_real *alpha,
                            const gat_real *Z, const gat_real *dout, gat_real *dalpha, gat_real *dZ)
{
    const size_t W = (size_t)H * Fo;
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++) {
            const size_t j = (size_t)g->col[k];
            for (int h = 0; h < H; h++)
                for (gat_idx f = 0; f < Fo; f++) {
                    const size_t o = (size_t)h * Fo + f;
                    dalpha[(size_t)k * H + h] += dout[(size_t)i * W + o] * Z[j * W + o];
                    dZ[j * W + o] += alpha[(size_t)k * H + h] * dout[(size_t)i * W + o];
                }
        }
}

void ref_head_mean(gat_idx N, int H, gat_idx Fo, const gat_real *in, gat_real *out)
{
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx f = 0; f < Fo; f++) {
            gat_real acc = 0;
            for (int h = 0; h < H; h++)
                acc += in[((size_t)i * H + h) * Fo + f];
            out[(size_t)i * Fo + f] = acc / H;
        }
}

void ref_head_mean_backward(gat_idx N, int H, gat_idx Fo, const gat_real *dout, gat_real *din)
{
    for (gat_idx i = 0; i < N; i++)
        for (int h = 0; h < H; h++)
            for (gat_idx f = 0; f < Fo; f++)
                din[((size_t)i * H + h) * Fo + f] += dout[(size_t)i * Fo + f] / H;
}

/* ---- element-wise ops ---- */

void ref_dropout_mask(size_t n, double p, uint64_t key, uint8_t *mask)
{
    for (size_t k = 0; k < n; k++)
        mask[k] = gat_i_keep16(key, k) >= gat_i_drop_cut(p);
}

void ref_dropout(size_t n, const gat_real *x, const uint8_t *mask, gat_real scale, gat_real *y)
{
    for (size_t k = 0; k < n; k++)
        y[k] = mask[k] ? x[k] * scale : 0;
}

void ref_dropout_backward(size_t n, const uint8_t *mask, gat_real scale, const gat_real *dy,
                          gat_real *dx)
{
    for (size_t k = 0; k < n; k++)
        dx[k] += mask[k] ? dy[k] * scale : 0;
}

void ref_elu(size_t n, const gat_real *x, gat_real *y)
{
    for (size_t k = 0; k < n; k++)
        y[k] = x[k] > 0 ? x[k] : (gat_real)expm1((double)x[k]);
}

void ref_elu_backward(size_t n, const gat_real *y, const gat_real *dy, gat_real *dx)
{
    for (size_t k = 0; k < n; k++)
        dx[k] += dy[k] * (y[k] > 0 ? 1 : y[k] + 1);
}

void ref_bias_add(gat_idx N, gat_idx M, const gat_real *b, gat_real *y)
{
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx c = 0; c < M; c++)
            y[(size_t)i * M + c] += b[c];
}

void ref_bias_backward(gat_idx N, gat_idx M, const gat_real *dy, gat_real *db)
{
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx c = 0; c < M; c++)
            db[c] += dy[(size_t)i * M + c];
}

/* ---- sparse features ---- */

gat_status ref_csr_transpose_perm(const gat_csr *x, gat_csr *xt, gat_idx *perm)
{
    const gat_idx nnz = x->rowptr[x->rows];
    gat_status st = gat_csr_init(xt, x->cols, x->rows, (size_t)nnz);
    if (st != GAT_OK) return st;
    gat_idx p = 0;
    for (gat_idx f = 0; f < x->cols; f++) {
        xt->rowptr[f] = p;
        for (gat_idx i = 0; i < x->rows; i++)
            for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++)
                if (x->col[k] == f) {
                    xt->col[p] = i;
                    xt->val[p] = x->val[k];
                    perm[p++] = k;
                }
    }
    xt->rowptr[x->cols] = p;
    return GAT_OK;
}
