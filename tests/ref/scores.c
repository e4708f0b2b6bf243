/* The attention family (scores.h): fused forward and backward of every score function but GAT's
 * additive one, e = s(q_i, k_j; theta_h), alpha = softmax_j(e), out_i = sum_j alpha z_j. */
#include "scores.h"

#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The row bodies take the score function as a parameter and are always inlined; SCORE_SWITCH
 * instantiates them with it as a compile-time constant, so the per-edge switch disappears.
 * dot, scaled-dot and bilinear share one body (they differ only in the per-head coefficient). */
#define SCORE_SWITCH(S, CALL)                                                                      \
    switch (S) {                                                                                   \
    case GAT_SCORE_GATV2: {                                                                        \
        const gat_score Sc = GAT_SCORE_GATV2;                                                      \
        CALL;                                                                                      \
    } break;                                                                                       \
    case GAT_SCORE_COSINE: {                                                                       \
        const gat_score Sc = GAT_SCORE_COSINE;                                                     \
        CALL;                                                                                      \
    } break;                                                                                       \
    case GAT_SCORE_GAUSSIAN: {                                                                     \
        const gat_score Sc = GAT_SCORE_GAUSSIAN;                                                   \
        CALL;                                                                                      \
    } break;                                                                                       \
    default: {                                                                                     \
        const gat_score Sc = GAT_SCORE_DOT;                                                        \
        CALL;                                                                                      \
    } break;                                                                                       \
    }

/* LeakyReLU as max + slope * min: compiles to maxss / minss, where the plain select became a
 * branch that random signs mispredict half of the time. */
GAT_I_INLINE gat_real leaky(gat_real x, gat_real slope)
{
    return (x > 0 ? x : 0) + slope * (x < 0 ? x : 0);
}

/* Sums over f < D run in LANES interleaved partial sums (then added pairwise): no serial chain
 * of dependent additions, and the lanes fit one vector register. */
#define LANES 4
#define LANE_SUM(acc) (((acc)[0] + (acc)[1]) + ((acc)[2] + (acc)[3]))

GAT_I_INLINE gat_real dotp(const gat_real *restrict x, const gat_real *restrict y, gat_idx D)
{
    gat_real acc[LANES] = {0};
    gat_idx f = 0;
    for (; f + LANES <= D; f += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] += x[f + l] * y[f + l];
    for (; f < D; f++)
        acc[0] += x[f] * y[f];
    return LANE_SUM(acc);
}

/* a . LeakyReLU(x + y) */
GAT_I_INLINE gat_real leaky_dot(const gat_real *restrict a, const gat_real *restrict x,
                                const gat_real *restrict y, gat_real slope, gat_idx D)
{
    gat_real acc[LANES] = {0};
    gat_idx f = 0;
    for (; f + LANES <= D; f += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] += a[f + l] * leaky(x[f + l] + y[f + l], slope);
    for (; f < D; f++)
        acc[0] += a[f] * leaky(x[f] + y[f], slope);
    return LANE_SUM(acc);
}

/* a . LeakyReLU(x + y + w) */
GAT_I_INLINE gat_real leaky_dot3(const gat_real *restrict a, const gat_real *restrict x,
                                 const gat_real *restrict y, const gat_real *restrict w,
                                 gat_real slope, gat_idx D)
{
    gat_real acc = 0;
    for (gat_idx f = 0; f < D; f++)
        acc += a[f] * leaky(x[f] + y[f] + w[f], slope);
    return acc;
}

/* |x - y|^2 */
GAT_I_INLINE gat_real dist2(const gat_real *restrict x, const gat_real *restrict y, gat_idx D)
{
    gat_real acc[LANES] = {0};
    gat_idx f = 0;
    for (; f + LANES <= D; f += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] += (x[f + l] - y[f + l]) * (x[f + l] - y[f + l]);
    for (; f < D; f++)
        acc[0] += (x[f] - y[f]) * (x[f] - y[f]);
    return LANE_SUM(acc);
}

/* Per-head coefficient c (H): 1 (dot, bilinear, gatv2), 1 / sqrt(D) (scaled-dot), beta
 * (cosine), exp(-2 theta) / 2 = 1 / (2 sigma^2) (gaussian). */
static void head_coefs(const gat_i_score_args *a, gat_real *c)
{
    for (int h = 0; h < a->H; h++) {
        switch (a->score) {
        case GAT_SCORE_SCALED_DOT:
            c[h] = (gat_real)(1 / sqrt((double)a->D));
            break;
        case GAT_SCORE_COSINE:
            c[h] = a->theta[h];
            break;
        case GAT_SCORE_GAUSSIAN:
            c[h] = (gat_real)(exp(-2 * (double)a->theta[h]) / 2);
            break;
        default:
            c[h] = 1;
            break;
        }
    }
}

/* Score of edge j -> i, head h, with the head's coefficient c. */
GAT_I_INLINE gat_real score_of(const gat_i_score_args *a, gat_score S, int h, gat_idx i, gat_idx j,
                               size_t k, gat_real c)
{
    const gat_idx D = a->D;
    const size_t HD = (size_t)a->H * D;
    const gat_real *restrict qi = a->q + (size_t)i * HD + (size_t)h * D;
    const gat_real *restrict kj = a->k + (size_t)j * HD + (size_t)h * D;
    switch (S) {
    case GAT_SCORE_GATV2:
        if (a->ze)
            return leaky_dot3(a->att + (size_t)h * D, qi, kj, a->ze + k * HD + (size_t)h * D,
                              (gat_real)a->slope, D);
        return leaky_dot(a->att + (size_t)h * D, qi, kj, (gat_real)a->slope, D);
    case GAT_SCORE_COSINE:
        return c * dotp(qi, kj, D) * a->qinv[(size_t)i * a->H + h] * a->kinv[(size_t)j * a->H + h];
    case GAT_SCORE_GAUSSIAN:
        return -c * dist2(qi, kj, D);
    default:
        return c * dotp(qi, kj, D);
    }
}

/* Adds de * ds/dq_i into gq (D) and de * ds/dk_j into gk (D) where not NULL, and for gatv2
 * de * ds/da into gatt (D) if not NULL; returns de * ds/dtheta_h (cosine, gaussian; else 0).
 * Recomputes the edge's dot product, difference or LeakyReLU input from q_i and k_j. */
GAT_I_INLINE gat_real score_grad(const gat_i_score_args *a, gat_score S, int h, gat_idx i,
                                 gat_idx j, size_t k, gat_real c, gat_real de, gat_real *gq,
                                 gat_real *gk, gat_real *gatt)
{
    const gat_idx D = a->D;
    const size_t HD = (size_t)a->H * D;
    /* gradients never share memory with the values they are taken of: restrict holds */
    const gat_real *restrict qi = a->q + (size_t)i * HD + (size_t)h * D;
    const gat_real *restrict kj = a->k + (size_t)j * HD + (size_t)h * D;
    switch (S) {
    case GAT_SCORE_GATV2: {
        /* ds/dq = ds/dk = a LeakyReLU'(q + k), written without a branch (random signs); the row
         * pass (gq) also takes ds/da */
        const gat_real *restrict at = a->att + (size_t)h * D, slope = (gat_real)a->slope;
        const gat_real *ze = a->ze ? a->ze + k * HD + (size_t)h * D : NULL;
        gat_real *restrict g = gq ? gq : gk;
        for (gat_idx f = 0; f < D; f++) {
            const gat_real u = qi[f] + kj[f] + (ze ? ze[f] : 0), d = u > 0 ? 1 : slope;
            g[f] += de * at[f] * d;
            /* ds/dze = ds/dq: taken once, by the row pass */
            if (ze && gq) a->dze[k * HD + (size_t)h * D + (size_t)f] += de * at[f] * d;
        }
        if (gatt)
            for (gat_idx f = 0; f < D; f++)
                gatt[f] += de * leaky(qi[f] + kj[f] + (ze ? ze[f] : 0), slope);
        return 0;
    }
    case GAT_SCORE_COSINE: {
        /* s = beta cs, cs = q.k / (|q| |k|): ds/dq = beta (k / (|q| |k|) - cs q / |q|^2) */
        const gat_real qv = a->qinv[(size_t)i * a->H + h], kv = a->kinv[(size_t)j * a->H + h];
        const gat_real cs = dotp(qi, kj, D) * qv * kv, cd = c * de;
        if (gq)
            for (gat_idx f = 0; f < D; f++)
                gq[f] += cd * (kj[f] * qv * kv - cs * qi[f] * qv * qv);
        if (gk)
            for (gat_idx f = 0; f < D; f++)
                gk[f] += cd * (qi[f] * qv * kv - cs * kj[f] * kv * kv);
        return de * cs;
    }
    case GAT_SCORE_GAUSSIAN: {
        /* s = -g |q - k|^2 / 2 with g = 2c = exp(-2 theta): ds/dq = -g (q - k), ds/dtheta =
         * g |q - k|^2 */
        const gat_real g = 2 * c, dg = de * g;
        if (gq)
            for (gat_idx f = 0; f < D; f++)
                gq[f] -= dg * (qi[f] - kj[f]);
        if (gk)
            for (gat_idx f = 0; f < D; f++)
                gk[f] += dg * (qi[f] - kj[f]);
        return gq ? dg * dist2(qi, kj, D) : 0;
    }
    default: {
        const gat_real cd = c * de;
        if (gq)
            for (gat_idx f = 0; f < D; f++)
                gq[f] += cd * kj[f];
        if (gk)
            for (gat_idx f = 0; f < D; f++)
                gk[f] += cd * qi[f];
        return 0;
    }
    }
}

/* Smoothed inverse norms inv (N, H) of v (N, H, D). */
static void inv_norms(const gat_i_score_args *a, const gat_real *v, gat_real *inv)
{
    const gat_idx N = a->g->n, D = a->D;
    const int H = a->H;
#pragma omp for schedule(static)
    for (gat_idx i = 0; i < N; i++)
        for (int h = 0; h < H; h++) {
            const gat_real *vh = v + ((size_t)i * H + h) * D;
            inv[(size_t)i * H + h] = (gat_real)(1 / sqrt((double)dotp(vh, vh, D) + GAT_I_COS_EPS));
        }
}

/* Scores, stable softmax and weighted sum of row i; alpha of the row is written in place. */
GAT_I_INLINE void forward_row(const gat_i_score_args *a, const gat_real *coef, gat_score S,
                              gat_idx i, gat_real *out)
{
    const gat_graph *g = a->g;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1], Fo = a->Fo;
    const int H = a->H;
    gat_real *restrict al = a->alpha;
    gat_real mx[GAT_I_MAX_HEADS];

    for (int h = 0; h < H; h++)
        mx[h] = -INFINITY;
    for (gat_idx k = k0; k < k1; k++)
        for (int h = 0; h < H; h++) {
            const gat_real t = score_of(a, S, h, i, g->col[k], (size_t)k, coef[h]);
            al[(size_t)k * H + h] = t;
            mx[h] = t > mx[h] ? t : mx[h];
        }
    gat_i_softmax_aggregate_row(g, i, H, Fo, a->z, al, mx, a->amask, a->ascale, a->mean, out);
}

void gat_i_score_forward(const gat_i_score_args *a, gat_real *out)
{
    const gat_idx n_out = a->rows ? a->n_rows : a->g->n;
    gat_real coef[GAT_I_MAX_HEADS];
    head_coefs(a, coef);
#pragma omp parallel num_threads(a->nt) if (a->nt > 1)
    {
        if (a->score == GAT_SCORE_COSINE) {
            inv_norms(a, a->q, a->qinv);
            inv_norms(a, a->k, a->kinv);
        }
#pragma omp for schedule(static)
        for (gat_idx r = 0; r < n_out; r++)
            SCORE_SWITCH(a->score, forward_row(a, coef, Sc, a->rows ? a->rows[r] : r, out));
    }
}

/* Target row i: de (the row's edges) = d loss / d e through aggregation, attention dropout and
 * softmax; then the query side dq_i and the parameters' partial sums patt (H, D), pth (H). */
GAT_I_INLINE void backward_row(const gat_i_score_args *a, const gat_real *coef, gat_score S,
                               const gat_real *dy, const gat_i_score_scratch *s, gat_idx i,
                               gat_real *dq, gat_real *patt, gat_real *pth)
{
    const gat_graph *g = a->g;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1], Fo = a->Fo, D = a->D;
    const int H = a->H;
    const size_t W = (size_t)H * Fo;
    const gat_real *restrict dyi = dy + (size_t)i * W;
    const gat_real *restrict al = a->alpha;
    gat_real *restrict de = s->de;
    gat_real dot[GAT_I_MAX_HEADS];

    /* out_i = sum_k alpha'_k z_j: d alpha'_k = dy_i . z_j, then through the dropout mask */
    for (int h = 0; h < H; h++)
        dot[h] = 0;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *restrict zj = a->z + (size_t)g->col[k] * W;
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)k * H + h;
            const gat_real d = dotp(dyi + (size_t)h * Fo, zj + (size_t)h * Fo, Fo) *
                               gat_i_att_keep(a->amask, a->ascale, kh);
            de[kh] = d;
            dot[h] += al[kh] * d;
        }
    }
    /* softmax: de = alpha (dalpha - sum alpha dalpha); then the score's query side */
    gat_real *dqi = dq + (size_t)i * H * D;
    for (gat_idx k = k0; k < k1; k++)
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)k * H + h;
            const gat_real d = al[kh] * (de[kh] - dot[h]);
            de[kh] = d;
            pth[h] += score_grad(a, S, h, i, g->col[k], (size_t)k, coef[h], d, dqi + (size_t)h * D,
                                 NULL, S == GAT_SCORE_GATV2 ? patt + (size_t)h * D : NULL);
        }
}

/* Source row j over its out-edges (transposed CSR): the aggregation's dz_j = sum_i alpha'_ij
 * dy_i and the score's key side dk_j. Only row j is written: race-free. */
GAT_I_INLINE void backward_source(const gat_i_score_args *a, const gat_real *coef, gat_score S,
                                  const gat_real *dy, const gat_i_score_scratch *s, gat_idx j,
                                  gat_real *dz, gat_real *dk)
{
    const gat_graph *g = a->g;
    const gat_idx Fo = a->Fo, D = a->D;
    const int H = a->H;
    const size_t W = (size_t)H * Fo;
    gat_real *dzj = dz + (size_t)j * W, *dkj = dk + (size_t)j * H * D;

    for (gat_idx p = g->t_rowptr[j]; p < g->t_rowptr[j + 1]; p++) {
        const size_t k = (size_t)g->t_edge[p];
        const gat_idx i = g->t_col[p];
        const gat_real *restrict dyi = dy + (size_t)i * W;
        for (int h = 0; h < H; h++) {
            const gat_real w = a->alpha[k * H + h] * gat_i_att_keep(a->amask, a->ascale, k * H + h);
            for (gat_idx f = 0; f < Fo; f++)
                dzj[(size_t)h * Fo + f] += w * dyi[(size_t)h * Fo + f];
            score_grad(a, S, h, i, j, k, coef[h], s->de[k * H + h], NULL, dkj + (size_t)h * D,
                       NULL);
        }
    }
}

void gat_i_score_backward(const gat_i_score_args *a, const gat_real *dy,
                          const gat_i_score_scratch *s, gat_real *dz, gat_real *dq, gat_real *dk,
                          gat_real *datt, gat_real *dtheta)
{
    const gat_idx N = a->g->n;
    const size_t HD = (size_t)a->H * a->D, stride = HD + (size_t)a->H;
    gat_real coef[GAT_I_MAX_HEADS];
    int T = 1;
    head_coefs(a, coef);

#pragma omp parallel num_threads(a->nt) if (a->nt > 1)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#pragma omp single
        T = omp_get_num_threads();
#endif
        gat_real *patt = s->partial + (size_t)t * stride, *pth = patt + HD;
        memset(patt, 0, stride * sizeof *patt);
        /* the row pass writes dq rows and de; the source pass (after the barrier) reads de and
         * writes dz and dk rows, which may be dq's buffer: the phases never overlap */
#pragma omp for schedule(static)
        for (gat_idx i = 0; i < N; i++)
            SCORE_SWITCH(a->score, backward_row(a, coef, Sc, dy, s, i, dq, patt, pth));
#pragma omp for schedule(static)
        for (gat_idx j = 0; j < N; j++)
            SCORE_SWITCH(a->score, backward_source(a, coef, Sc, dy, s, j, dz, dk));
    }
    for (int t = 0; t < T; t++) {
        const gat_real *patt = s->partial + (size_t)t * stride, *pth = patt + HD;
        if (a->score == GAT_SCORE_GATV2 && datt)
            for (size_t c = 0; c < HD; c++)
                datt[c] += patt[c];
        if (dtheta)
            for (int h = 0; h < a->H; h++)
                dtheta[h] += pth[h];
    }
}
