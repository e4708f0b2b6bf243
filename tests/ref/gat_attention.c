/* Fused multi-head GAT attention (Velickovic et al. 2018, eq. 1-4): per edge j -> i and head h,
 * e = LeakyReLU(a_dst.z_i + a_src.z_j (+ an edge term given per edge and head)), alpha = softmax_j(e) (max subtracted), out_i = sum_j
 * alpha z_j; forward is one pass per CSR row, backward gathers over the transposed CSR. */
#include "plain.h"

#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The row bodies below take the head count H and per-head width Fo as parameters and are always
 * inlined; DISPATCH instantiates them with both as compile-time constants for the paper's hidden
 * layer (8 heads x 8), so that the tests' Cora-sized runs unroll and vectorise, and with run-time
 * sizes otherwise (more constant shapes cost a minute of compilation per build of the tests).
 * Per-edge arrays are edge-major, heads inner, so a row's loops over its edges run over
 * contiguous memory with the heads in vector lanes. */
#define DISPATCH(H, FO, CALL)                                                                      \
    if ((H) == 8 && (FO) == 8) {                                                                   \
        const int Hc = 8;                                                                          \
        const gat_idx Fc = 8;                                                                      \
        CALL;                                                                                      \
    } else {                                                                                       \
        const int Hc = (H);                                                                        \
        const gat_idx Fc = (FO);                                                                   \
        CALL;                                                                                      \
    }

/* s_src (N, H), s_dst (N, H): the two halves of every edge score, computed once per node so an
 * edge costs one addition instead of two dot products. */
GAT_I_INLINE void score_halves_row(const gat_i_att_args *a, gat_idx i, int H, gat_idx Fo)
{
    const gat_real *restrict z = a->z + (size_t)i * H * Fo;
    for (int h = 0; h < H; h++) {
        const gat_real *as = a->a_src + (size_t)h * Fo, *ad = a->a_dst + (size_t)h * Fo;
        gat_real ss = 0, sd = 0;
        for (gat_idx f = 0; f < Fo; f++) {
            ss += z[(size_t)h * Fo + f] * as[f];
            sd += z[(size_t)h * Fo + f] * ad[f];
        }
        a->s_src[(size_t)i * H + h] = ss;
        a->s_dst[(size_t)i * H + h] = a->sb ? sd + (a->sb[h] + a->sb[H + h]) : sd;
    }
}

/* Scores, stable softmax and weighted sum of row i; alpha of the row is written in place. */
GAT_I_INLINE void forward_row(const gat_i_att_args *a, gat_idx i, gat_real *out, int H, gat_idx Fo)
{
    const gat_graph *g = a->g;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const gat_real slope = (gat_real)a->slope;
    const gat_real *restrict sd = a->s_dst + (size_t)i * H;
    gat_real *restrict al = a->alpha;
    gat_real mx[GAT_I_MAX_HEADS];

    for (int h = 0; h < H; h++) mx[h] = -INFINITY;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *restrict ss = a->s_src + (size_t)g->col[k] * H;
        for (int h = 0; h < H; h++) {
            gat_real t = sd[h] + ss[h] + (a->eterm ? a->eterm[(size_t)k * H + h] : 0);
            t = t > 0 ? t : slope * t;
            al[(size_t)k * H + h] = t;
            mx[h] = t > mx[h] ? t : mx[h];
        }
    }
    gat_i_softmax_aggregate_row(g, i, H, Fo, a->zagg ? a->zagg : a->z, al, mx, a->amask, a->ascale, a->mean, out);
}

void gat_i_attention_forward(const gat_i_att_args *a, gat_real *out)
{
    const gat_idx N = a->g->n, n_out = a->rows ? a->n_rows : N;
#pragma omp parallel num_threads(a->nt) if (a->nt > 1)
    {
#pragma omp for schedule(static)
        for (gat_idx i = 0; i < N; i++) DISPATCH(a->H, a->Fo, score_halves_row(a, i, Hc, Fc));
#pragma omp for schedule(static)
        for (gat_idx r = 0; r < n_out; r++)
            DISPATCH(a->H, a->Fo, forward_row(a, a->rows ? a->rows[r] : r, out, Hc, Fc));
    }
}

/* Backward of row i's softmax and LeakyReLU: dpre[k, h] = d loss / d (s_dst_i + s_src_j) for the
 * row's edges, and ds_dst[i, h] = their sum. Differentiates aggregation (w.r.t. alpha), attention
 * dropout, softmax and LeakyReLU. */
GAT_I_INLINE void backward_row(const gat_i_att_args *a, const gat_real *dy, const gat_i_att_scratch *s,
                         gat_idx i, int H, gat_idx Fo)
{
    const gat_graph *g = a->g;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const size_t W = (size_t)H * Fo;
    const gat_real slope = (gat_real)a->slope;
    const gat_real *restrict dyi = dy + (size_t)i * W;
    const gat_real *restrict sd = a->s_dst + (size_t)i * H;
    const gat_real *restrict al = a->alpha;
    gat_real *restrict dpre = s->dpre;
    gat_real dot[GAT_I_MAX_HEADS], sum[GAT_I_MAX_HEADS];

    /* out_i = sum_k alpha'_k z_j: d alpha'_k = dy_i . z_j, then through the dropout mask */
    for (int h = 0; h < H; h++) dot[h] = 0, sum[h] = 0;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *restrict zj = (a->zagg ? a->zagg : a->z) + (size_t)g->col[k] * W;
        for (int h = 0; h < H; h++) {
            gat_real d = 0;
            for (gat_idx f = 0; f < Fo; f++) d += dyi[(size_t)h * Fo + f] * zj[(size_t)h * Fo + f];
            d *= gat_i_att_keep(a->amask, a->ascale, (size_t)k * H + h);
            dpre[(size_t)k * H + h] = d;
            dot[h] += al[(size_t)k * H + h] * d;
        }
    }
    /* softmax: de = alpha (dalpha - sum alpha dalpha); LeakyReLU: times 1 or slope */
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *restrict ss = a->s_src + (size_t)g->col[k] * H;
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)k * H + h;
            const gat_real pre = sd[h] + ss[h] + (a->eterm ? a->eterm[kh] : 0);
            const gat_real d = al[kh] * (dpre[kh] - dot[h]) * (pre > 0 ? 1 : slope);
            dpre[kh] = d;
            sum[h] += d;
        }
    }
    for (int h = 0; h < H; h++) s->ds_dst[(size_t)i * H + h] = sum[h];
}

/* Gradient of source row j: the aggregation's dz_j = sum_i alpha'_ij dy_i over j's out-edges,
 * plus the score halves' ds_src_j a_src + ds_dst_j a_dst; then j's share of da_src and da_dst
 * into the thread's partial sums ps, pd (H, Fo). Only row j of dz is written: race-free. */
GAT_I_INLINE void backward_source(const gat_i_att_args *a, const gat_real *dy,
                            const gat_i_att_scratch *s, gat_idx j, gat_real *dz, gat_real *ps,
                            gat_real *pd, int H, gat_idx Fo)
{
    const gat_graph *g = a->g;
    const size_t W = (size_t)H * Fo;
    gat_real *restrict dzj = dz + (size_t)j * W;
    const gat_real *restrict zj = a->z + (size_t)j * W;
    const gat_real *restrict dsd = s->ds_dst + (size_t)j * H;
    gat_real dss[GAT_I_MAX_HEADS];

    for (int h = 0; h < H; h++) dss[h] = 0;
    for (gat_idx p = g->t_rowptr[j]; p < g->t_rowptr[j + 1]; p++) {
        const size_t k = (size_t)g->t_edge[p];
        const gat_real *restrict dyi = dy + (size_t)g->t_col[p] * W;
        for (int h = 0; h < H; h++) {
            const gat_real w = a->alpha[k * H + h] * gat_i_att_keep(a->amask, a->ascale, k * H + h);
            dss[h] += s->dpre[k * H + h];
            for (gat_idx f = 0; f < Fo; f++) {
                /* with projection dropout the share reaches z_j through its mask */
                const size_t o = (size_t)h * Fo + f;
                const gat_real kz = a->zagg ? (a->zmask[(size_t)j * W + o] ? a->zscale : 0) : 1;
                dzj[o] += w * kz * dyi[o];
            }
        }
    }
    for (int h = 0; h < H; h++) {
        const gat_real es = dss[h], ed = dsd[h];
        const size_t o = (size_t)h * Fo;
        s->ds_src[(size_t)j * H + h] = es;
        for (gat_idx f = 0; f < Fo; f++) {
            dzj[o + f] += es * a->a_src[o + f] + ed * a->a_dst[o + f];
            ps[o + f] += es * zj[o + f];
            pd[o + f] += ed * zj[o + f];
        }
    }
}

void gat_i_attention_backward(const gat_i_att_args *a, const gat_real *dy,
                              const gat_i_att_scratch *s, gat_real *dz, gat_real *da_src,
                              gat_real *da_dst)
{
    const gat_idx N = a->g->n;
    const size_t W = (size_t)a->H * a->Fo;
    int T = 1;

#pragma omp parallel num_threads(a->nt) if (a->nt > 1)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#pragma omp single
        T = omp_get_num_threads();
#endif
        /* da_src, da_dst: per-thread partial sums over a static row partition, added in thread
         * order below, so a thread count always gives the same bits */
        gat_real *ps = s->partial + (size_t)t * 2 * W, *pd = ps + W;
        memset(ps, 0, 2 * W * sizeof *ps);
#pragma omp for schedule(static)
        for (gat_idx i = 0; i < N; i++) DISPATCH(a->H, a->Fo, backward_row(a, dy, s, i, Hc, Fc));
#pragma omp for schedule(static)
        for (gat_idx j = 0; j < N; j++)
            DISPATCH(a->H, a->Fo, backward_source(a, dy, s, j, dz, ps, pd, Hc, Fc));
    }
    for (int t = 0; t < T; t++)
        for (size_t c = 0; c < W; c++) {
            da_src[c] += s->partial[(size_t)t * 2 * W + c];
            da_dst[c] += s->partial[(size_t)t * 2 * W + W + c];
        }
}
