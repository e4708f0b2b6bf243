/* Fused multi-head GAT attention (Velickovic et al. 2018, eq. 1-4): per edge j -> i and head h,
 * e = LeakyReLU(a_dst.z_i + a_src.z_j), alpha = softmax_j(e) (max subtracted), out_i = sum_j
 * alpha z_j; forward is one pass per CSR row, backward gathers over the transposed CSR. */
#include "layers.h"

#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef GAT_REAL_DOUBLE
#define EXP exp
#else
#define EXP expf
#endif

/* s_src (N, H), s_dst (N, H): the two halves of every edge score, computed once per node so an
 * edge costs one addition instead of two dot products. */
static void score_halves(const gat_i_att_args *a)
{
    const gat_idx N = a->g->n, Fo = a->Fo;
    const int H = a->H;
#pragma omp parallel for num_threads(a->nt) schedule(static) if (a->nt > 1)
    for (gat_idx i = 0; i < N; i++)
        for (int h = 0; h < H; h++) {
            const gat_real *z = a->z + ((size_t)i * H + h) * Fo;
            const gat_real *as = a->a_src + (size_t)h * Fo, *ad = a->a_dst + (size_t)h * Fo;
            gat_real ss = 0, sd = 0;
            for (gat_idx f = 0; f < Fo; f++) {
                ss += z[f] * as[f];
                sd += z[f] * ad[f];
            }
            a->s_src[(size_t)i * H + h] = ss;
            a->s_dst[(size_t)i * H + h] = sd;
        }
}

/* Attention weight actually applied on edge k, head h: alpha after dropout. */
static inline gat_real applied(const gat_i_att_args *a, size_t kh)
{
    if (!a->amask) return a->alpha[kh];
    return a->amask[kh] ? a->alpha[kh] * a->ascale : 0;
}

/* Scores, stable softmax and weighted sum of row i; alpha of the row is written in place. */
static void forward_row(const gat_i_att_args *a, gat_idx i, gat_real *out)
{
    const gat_graph *g = a->g;
    const int H = a->H;
    const gat_idx Fo = a->Fo, k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const size_t W = (size_t)H * Fo;
    const gat_real slope = (gat_real)a->slope;
    gat_real *al = a->alpha;

    for (int h = 0; h < H; h++) {
        const gat_real sd = a->s_dst[(size_t)i * H + h];
        gat_real mx = -INFINITY, sum = 0;
        for (gat_idx k = k0; k < k1; k++) {
            gat_real t = sd + a->s_src[(size_t)g->col[k] * H + h];
            t = t > 0 ? t : slope * t;
            al[(size_t)k * H + h] = t;
            mx = t > mx ? t : mx;
        }
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real v = EXP(al[(size_t)k * H + h] - mx);
            al[(size_t)k * H + h] = v;
            sum += v;
        }
        const gat_real inv = 1 / sum;
        for (gat_idx k = k0; k < k1; k++) al[(size_t)k * H + h] *= inv;
    }

    if (a->mean) {
        const gat_real invh = (gat_real)1 / H;
        gat_real *o = out + (size_t)i * Fo;
        memset(o, 0, (size_t)Fo * sizeof *o);
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real *zj = a->z + (size_t)g->col[k] * W;
            for (int h = 0; h < H; h++) {
                const gat_real w = applied(a, (size_t)k * H + h) * invh;
                for (gat_idx f = 0; f < Fo; f++) o[f] += w * zj[(size_t)h * Fo + f];
            }
        }
    } else {
        gat_real *o = out + (size_t)i * W;
        memset(o, 0, W * sizeof *o);
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real *zj = a->z + (size_t)g->col[k] * W;
            for (int h = 0; h < H; h++) {
                const gat_real w = applied(a, (size_t)k * H + h);
                for (gat_idx f = 0; f < Fo; f++) o[(size_t)h * Fo + f] += w * zj[(size_t)h * Fo + f];
            }
        }
    }
}

void gat_i_attention_forward(const gat_i_att_args *a, gat_real *out)
{
    const gat_idx n_out = a->rows ? a->n_rows : a->g->n;
    score_halves(a);
#pragma omp parallel for num_threads(a->nt) schedule(static) if (a->nt > 1)
    for (gat_idx r = 0; r < n_out; r++) forward_row(a, a->rows ? a->rows[r] : r, out);
}

/* Backward of row i's softmax and LeakyReLU: dpre[k, h] = d loss / d (s_dst_i + s_src_j) for the
 * row's edges, and ds_dst[i, h] = their sum. Differentiates aggregation (w.r.t. alpha), attention
 * dropout, softmax and LeakyReLU. */
static void backward_row(const gat_i_att_args *a, const gat_real *dy, const gat_i_att_scratch *s,
                         gat_idx i)
{
    const gat_graph *g = a->g;
    const int H = a->H;
    const gat_idx Fo = a->Fo, k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const size_t W = (size_t)H * Fo;
    const gat_real slope = (gat_real)a->slope;
    const gat_real *dyi = dy + (size_t)i * W;

    /* out_i = sum_k alpha'_k z_j: d alpha'_k = dy_i . z_j, then through the dropout mask */
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *zj = a->z + (size_t)g->col[k] * W;
        for (int h = 0; h < H; h++) {
            gat_real d = 0;
            for (gat_idx f = 0; f < Fo; f++) d += dyi[(size_t)h * Fo + f] * zj[(size_t)h * Fo + f];
            if (a->amask) d = a->amask[(size_t)k * H + h] ? d * a->ascale : 0;
            s->dpre[(size_t)k * H + h] = d;
        }
    }
    for (int h = 0; h < H; h++) {
        /* softmax: de = alpha (dalpha - sum alpha dalpha); LeakyReLU: times 1 or slope */
        gat_real dot = 0, sum = 0;
        for (gat_idx k = k0; k < k1; k++) dot += a->alpha[(size_t)k * H + h] * s->dpre[(size_t)k * H + h];
        const gat_real sd = a->s_dst[(size_t)i * H + h];
        for (gat_idx k = k0; k < k1; k++) {
            const size_t kh = (size_t)k * H + h;
            const gat_real pre = sd + a->s_src[(size_t)g->col[k] * H + h];
            const gat_real d = a->alpha[kh] * (s->dpre[kh] - dot) * (pre > 0 ? 1 : slope);
            s->dpre[kh] = d;
            sum += d;
        }
        s->ds_dst[(size_t)i * H + h] = sum;
    }
}

/* Gradient of source row j: the aggregation's dz_j = sum_i alpha'_ij dy_i over j's out-edges,
 * plus the score halves' ds_src_j a_src + ds_dst_j a_dst. Only row j is written: race-free. */
static void backward_source(const gat_i_att_args *a, const gat_real *dy,
                            const gat_i_att_scratch *s, gat_idx j, gat_real *dz)
{
    const gat_graph *g = a->g;
    const int H = a->H;
    const gat_idx Fo = a->Fo;
    const size_t W = (size_t)H * Fo;
    gat_real *dzj = dz + (size_t)j * W;
    gat_real *dss = s->ds_src + (size_t)j * H;
    const gat_real *dsd = s->ds_dst + (size_t)j * H;

    for (int h = 0; h < H; h++) dss[h] = 0;
    for (gat_idx p = g->t_rowptr[j]; p < g->t_rowptr[j + 1]; p++) {
        const size_t k = (size_t)g->t_edge[p];
        const gat_real *dyi = dy + (size_t)g->t_col[p] * W;
        for (int h = 0; h < H; h++) {
            const gat_real w = applied(a, k * H + h);
            dss[h] += s->dpre[k * H + h];
            for (gat_idx f = 0; f < Fo; f++) dzj[(size_t)h * Fo + f] += w * dyi[(size_t)h * Fo + f];
        }
    }
    for (int h = 0; h < H; h++)
        for (gat_idx f = 0; f < Fo; f++)
            dzj[(size_t)h * Fo + f] += dss[h] * a->a_src[(size_t)h * Fo + f] +
                                       dsd[h] * a->a_dst[(size_t)h * Fo + f];
}

void gat_i_attention_backward(const gat_i_att_args *a, const gat_real *dy,
                              const gat_i_att_scratch *s, gat_real *dz, gat_real *da_src,
                              gat_real *da_dst)
{
    const gat_idx N = a->g->n, Fo = a->Fo;
    const int H = a->H;
    const size_t W = (size_t)H * Fo;
    int T = 1;

#pragma omp parallel for num_threads(a->nt) schedule(static) if (a->nt > 1)
    for (gat_idx i = 0; i < N; i++) backward_row(a, dy, s, i);

#pragma omp parallel num_threads(a->nt) if (a->nt > 1)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#pragma omp single
        T = omp_get_num_threads();
#endif
        /* da_src = sum_j ds_src_j z_j, da_dst likewise: per-thread partial sums over a static
         * row partition, added in thread order, so a thread count always gives the same bits */
        gat_real *ps = s->partial + (size_t)t * 2 * W, *pd = ps + W;
        memset(ps, 0, 2 * W * sizeof *ps);
#pragma omp for schedule(static)
        for (gat_idx j = 0; j < N; j++) {
            backward_source(a, dy, s, j, dz);
            const gat_real *zj = a->z + (size_t)j * W;
            for (int h = 0; h < H; h++) {
                const gat_real es = s->ds_src[(size_t)j * H + h], ed = s->ds_dst[(size_t)j * H + h];
                for (gat_idx f = 0; f < Fo; f++) {
                    ps[(size_t)h * Fo + f] += es * zj[(size_t)h * Fo + f];
                    pd[(size_t)h * Fo + f] += ed * zj[(size_t)h * Fo + f];
                }
            }
        }
    }
    for (int t = 0; t < T; t++)
        for (size_t c = 0; c < W; c++) {
            da_src[c] += s->partial[(size_t)t * 2 * W + c];
            da_dst[c] += s->partial[(size_t)t * 2 * W + W + c];
        }
}
