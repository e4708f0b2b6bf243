/* Exact global self-attention per segment, streaming forward and two-gather backward
 * (layers/global_attn.h). Backward, with P_ij = exp(s q_i . k_j - lse_i):
 *   dv_j += sum_i P_ij do_i;  dP_ij = do_i . v_j;  dS_ij = P_ij (dP_ij - delta_i),
 *   delta_i = do_i . o_i;  dq_i += s sum_j dS_ij k_j;  dk_j += s sum_i dS_ij q_i. */
#include "global_attn.h"

#include <math.h>
#include <stddef.h>

/* exp in the working precision (float's expf is several times cheaper than exp). */
#ifdef GAT_REAL_DOUBLE
#define REXP exp
#else
#define REXP expf
#endif

/* Keys scored at once per row (a stack tile): one rescale of the running sums per tile. */
enum { TILE = 64 };

/* Eight partial sums in a fixed order: breaks the add latency chain (and vectorises), same bits
 * every run. */
static inline gat_real dot(const gat_real *a, const gat_real *b, gat_idx D)
{
    gat_real s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    gat_idx d = 0;
    for (; d + 8 <= D; d += 8)
        for (int t = 0; t < 8; t++) s[t] += a[d + t] * b[d + t];
    for (; d < D; d++) s[0] += a[d] * b[d];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* The segment of node i (seg_ptr ascending). */
static inline gat_idx segment_of(const gat_idx *seg_ptr, gat_idx n_seg, gat_idx i)
{
    gat_idx lo = 0, hi = n_seg - 1;
    while (lo < hi) {
        const gat_idx mid = lo + (hi - lo + 1) / 2;
        if (seg_ptr[mid] <= i) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

void gat_i_global_attn_forward(gat_idx n, gat_idx H, gat_idx D, gat_idx n_seg,
                               const gat_idx *seg_ptr, const gat_real *q, const gat_real *k,
                               const gat_real *v, gat_real *out, gat_real *lse, int nt)
{
    const size_t HD = (size_t)H * (size_t)D;
    const gat_real s = (gat_real)(1 / sqrt((double)D));
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1 && n > 64)
    for (gat_idx i = 0; i < n; i++) {
        const gat_idx g = segment_of(seg_ptr, n_seg, i), j0 = seg_ptr[g], j1 = seg_ptr[g + 1];
        for (gat_idx h = 0; h < H; h++) {
            const gat_real *qi = q + (size_t)i * HD + (size_t)h * D;
            gat_real *oi = out + (size_t)i * HD + (size_t)h * D;
            gat_real m = -INFINITY, l = 0, sc[TILE];
            for (gat_idx d = 0; d < D; d++) oi[d] = 0;
            for (gat_idx t0 = j0; t0 < j1; t0 += TILE) {
                const gat_idx cnt = j1 - t0 < TILE ? j1 - t0 : TILE;
                gat_real tm = m;
                for (gat_idx t = 0; t < cnt; t++) {
                    sc[t] = s * dot(qi, k + (size_t)(t0 + t) * HD + (size_t)h * D, D);
                    if (sc[t] > tm) tm = sc[t];
                }
                if (tm > m) { /* a new maximum: rescale what was summed so far */
                    const gat_real c = REXP(m - tm);
                    l *= c;
                    for (gat_idx d = 0; d < D; d++) oi[d] *= c;
                    m = tm;
                }
                for (gat_idx t = 0; t < cnt; t++) {
                    const gat_real p = REXP(sc[t] - m);
                    const gat_real *vj = v + (size_t)(t0 + t) * HD + (size_t)h * D;
                    l += p;
                    for (gat_idx d = 0; d < D; d++) oi[d] += p * vj[d];
                }
            }
            const gat_real inv = 1 / l;
            for (gat_idx d = 0; d < D; d++) oi[d] *= inv;
            lse[(size_t)i * H + h] = m + (gat_real)log((double)l);
        }
    }
}

void gat_i_global_attn_backward(gat_idx n, gat_idx H, gat_idx D, gat_idx n_seg,
                                const gat_idx *seg_ptr, const gat_real *q, const gat_real *k,
                                const gat_real *v, const gat_real *out, const gat_real *lse,
                                const gat_real *dout, gat_real *delta, gat_real *dq,
                                gat_real *dk, gat_real *dv, int nt)
{
    const size_t HD = (size_t)H * (size_t)D;
    const gat_real s = (gat_real)(1 / sqrt((double)D));
    (void)nt;
    /* delta_i = do_i . o_i (the softmax backward's row term) */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 1024)
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx h = 0; h < H; h++) {
            const size_t at = (size_t)i * HD + (size_t)h * D;
            delta[(size_t)i * H + h] = dot(dout + at, out + at, D);
        }
    /* dq: row i gathers over its segment's keys */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1 && n > 64)
    for (gat_idx i = 0; i < n; i++) {
        const gat_idx g = segment_of(seg_ptr, n_seg, i), j0 = seg_ptr[g], j1 = seg_ptr[g + 1];
        for (gat_idx h = 0; h < H; h++) {
            const size_t ai = (size_t)i * HD + (size_t)h * D;
            const gat_real li = lse[(size_t)i * H + h], di = delta[(size_t)i * H + h];
            for (gat_idx j = j0; j < j1; j++) {
                const size_t aj = (size_t)j * HD + (size_t)h * D;
                const gat_real p = REXP(s * dot(q + ai, k + aj, D) - li);
                const gat_real ds = s * p * (dot(dout + ai, v + aj, D) - di);
                for (gat_idx d = 0; d < D; d++) dq[ai + d] += ds * k[aj + d];
            }
        }
    }
    /* dk, dv: key j gathers over its segment's rows (the transpose of the step above) */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1 && n > 64)
    for (gat_idx j = 0; j < n; j++) {
        const gat_idx g = segment_of(seg_ptr, n_seg, j), i0 = seg_ptr[g], i1 = seg_ptr[g + 1];
        for (gat_idx h = 0; h < H; h++) {
            const size_t aj = (size_t)j * HD + (size_t)h * D;
            for (gat_idx i = i0; i < i1; i++) {
                const size_t ai = (size_t)i * HD + (size_t)h * D;
                const gat_real p = REXP(s * dot(q + ai, k + aj, D) - lse[(size_t)i * H + h]);
                const gat_real dp = dot(dout + ai, v + aj, D);
                const gat_real ds = s * p * (dp - delta[(size_t)i * H + h]);
                for (gat_idx d = 0; d < D; d++) {
                    dv[aj + d] += p * dout[ai + d];
                    dk[aj + d] += ds * q[ai + d];
                }
            }
        }
    }
}
