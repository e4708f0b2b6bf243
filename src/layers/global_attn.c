/* Global self-attention per segment (exact) or over an anchor set of keys (approximate), streaming
 * forward and two-gather backward (layers/global_attn.h). Backward, with
 * P_ij = exp(s q_i . k_j - lse_i):
 *   dv_j += sum_i P_ij do_i;  dP_ij = do_i . v_j;  dS_ij = P_ij (dP_ij - delta_i),
 *   delta_i = do_i . o_i;  dq_i += s sum_j dS_ij k_j;  dk_j += s sum_i dS_ij q_i. */
#include "global_attn.h"

#include "core/core.h"

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

/* The keys a row attends to: rows idx[t] (anchors) or j0 + t (a segment), t < cnt. */
typedef struct keys {
    const gat_idx *idx;
    gat_idx j0, cnt;
} keys;

static inline gat_idx key_row(const keys *ks, gat_idx t)
{
    return ks->idx ? ks->idx[t] : ks->j0 + t;
}

/* Head h of row i: o_i = sum_t softmax_t(s q_i . k_t) v_t over ks, streamed in tiles with a
 * running maximum; lse_ih its log-sum-exp. */
static void row_forward(const gat_real *qi, const gat_real *k, const gat_real *v, size_t HD,
                        size_t hD, gat_idx D, gat_real s, const keys *ks, gat_real *oi,
                        gat_real *lse_ih)
{
    gat_real m = -INFINITY, l = 0, sc[TILE];
    for (gat_idx d = 0; d < D; d++) oi[d] = 0;
    for (gat_idx t0 = 0; t0 < ks->cnt; t0 += TILE) {
        const gat_idx cnt = ks->cnt - t0 < TILE ? ks->cnt - t0 : TILE;
        gat_real tm = m;
        for (gat_idx t = 0; t < cnt; t++) {
            sc[t] = s * dot(qi, k + (size_t)key_row(ks, t0 + t) * HD + hD, D);
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
            const gat_real *vj = v + (size_t)key_row(ks, t0 + t) * HD + hD;
            l += p;
            for (gat_idx d = 0; d < D; d++) oi[d] += p * vj[d];
        }
    }
    const gat_real inv = 1 / l;
    for (gat_idx d = 0; d < D; d++) oi[d] *= inv;
    *lse_ih = m + (gat_real)log((double)l);
}

/* dq of head h of row i: s sum_t P_it (do_i . v_t - delta_i) k_t over ks. */
static void row_dq(size_t ai, size_t HD, size_t hD, gat_idx D, gat_real s, const keys *ks,
                   const gat_real *q, const gat_real *k, const gat_real *v, const gat_real *dout,
                   gat_real li, gat_real di, gat_real *dq)
{
    for (gat_idx t = 0; t < ks->cnt; t++) {
        const size_t aj = (size_t)key_row(ks, t) * HD + hD;
        const gat_real p = REXP(s * dot(q + ai, k + aj, D) - li);
        const gat_real ds = s * p * (dot(dout + ai, v + aj, D) - di);
        for (gat_idx d = 0; d < D; d++) dq[ai + d] += ds * k[aj + d];
    }
}

/* dk, dv of head h of key row j from the query rows i0 .. i1 - 1 that attend to it. */
static void key_dkdv(gat_idx j, gat_idx i0, gat_idx i1, gat_idx H, size_t HD, gat_idx h, gat_idx D,
                     gat_real s, const gat_real *q, const gat_real *k, const gat_real *v,
                     const gat_real *lse, const gat_real *delta, const gat_real *dout,
                     gat_real *dk, gat_real *dv)
{
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

/* delta_i = do_i . o_i per head (the softmax backward's row term). */
static void row_deltas(gat_idx n, gat_idx H, gat_idx D, const gat_real *out, const gat_real *dout,
                       gat_real *delta, int nt)
{
    const size_t HD = (size_t)H * (size_t)D;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 1024)
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx h = 0; h < H; h++) {
            const size_t at = (size_t)i * HD + (size_t)h * D;
            delta[(size_t)i * H + h] = dot(dout + at, out + at, D);
        }
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
        const gat_idx g = segment_of(seg_ptr, n_seg, i);
        const keys ks = {NULL, seg_ptr[g], seg_ptr[g + 1] - seg_ptr[g]};
        for (gat_idx h = 0; h < H; h++) {
            const size_t at = (size_t)i * HD + (size_t)h * D;
            row_forward(q + at, k, v, HD, (size_t)h * D, D, s, &ks, out + at,
                        lse + (size_t)i * H + h);
        }
    }
}

/* Segments of at most this many nodes take the block backward: each (row, key, head) score and
 * coefficient is computed once into a per-thread (nb, nb) block (on the stack), instead of once
 * for dq and once more for dk and dv. */
enum { BLOCK = 64 };

/* The backward of one small segment [j0, j1) (nb <= BLOCK), head by head, with the sums in the
 * order of the row and key passes below (the same bits as them). */
static void block_backward(gat_idx j0, gat_idx j1, gat_idx H, gat_idx D, gat_real s,
                           const gat_real *q, const gat_real *k, const gat_real *v,
                           const gat_real *lse, const gat_real *delta, const gat_real *dout,
                           gat_real *dq, gat_real *dk, gat_real *dv)
{
    const size_t HD = (size_t)H * (size_t)D;
    const gat_idx nb = j1 - j0;
    gat_real P[BLOCK * BLOCK], dS[BLOCK * BLOCK];
    for (gat_idx h = 0; h < H; h++) {
        const size_t hD = (size_t)h * D;
        for (gat_idx a = 0; a < nb; a++) {
            const size_t ai = (size_t)(j0 + a) * HD + hD;
            const gat_real li = lse[(size_t)(j0 + a) * H + h], di = delta[(size_t)(j0 + a) * H + h];
            for (gat_idx b = 0; b < nb; b++) {
                const size_t aj = (size_t)(j0 + b) * HD + hD;
                const gat_real p = REXP(s * dot(q + ai, k + aj, D) - li);
                P[a * BLOCK + b] = p;
                dS[a * BLOCK + b] = s * p * (dot(dout + ai, v + aj, D) - di);
            }
            for (gat_idx b = 0; b < nb; b++) { /* dq_i: keys in order */
                const gat_real *kj = k + (size_t)(j0 + b) * HD + hD, ds = dS[a * BLOCK + b];
                for (gat_idx d = 0; d < D; d++) dq[ai + d] += ds * kj[d];
            }
        }
        for (gat_idx b = 0; b < nb; b++) { /* dk_j, dv_j: rows in order */
            const size_t aj = (size_t)(j0 + b) * HD + hD;
            for (gat_idx a = 0; a < nb; a++) {
                const size_t ai = (size_t)(j0 + a) * HD + hD;
                const gat_real p = P[a * BLOCK + b], ds = dS[a * BLOCK + b];
                for (gat_idx d = 0; d < D; d++) {
                    dv[aj + d] += p * dout[ai + d];
                    dk[aj + d] += ds * q[ai + d];
                }
            }
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
    row_deltas(n, H, D, out, dout, delta, nt);
    /* small segments: one block each, every gradient row written by the segment's thread */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 4) if (nt > 1 && n_seg > 4)
    for (gat_idx g = 0; g < n_seg; g++)
        if (seg_ptr[g + 1] - seg_ptr[g] <= BLOCK)
            block_backward(seg_ptr[g], seg_ptr[g + 1], H, D, s, q, k, v, lse, delta, dout, dq, dk,
                           dv);
    /* large segments, row by row. dq: row i gathers over its segment's keys */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1 && n > 64)
    for (gat_idx i = 0; i < n; i++) {
        const gat_idx g = segment_of(seg_ptr, n_seg, i);
        if (seg_ptr[g + 1] - seg_ptr[g] <= BLOCK) continue;
        const keys ks = {NULL, seg_ptr[g], seg_ptr[g + 1] - seg_ptr[g]};
        for (gat_idx h = 0; h < H; h++)
            row_dq((size_t)i * HD + (size_t)h * D, HD, (size_t)h * D, D, s, &ks, q, k, v, dout,
                   lse[(size_t)i * H + h], delta[(size_t)i * H + h], dq);
    }
    /* dk, dv: key j gathers over its segment's rows (the transpose of the step above) */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1 && n > 64)
    for (gat_idx j = 0; j < n; j++) {
        const gat_idx g = segment_of(seg_ptr, n_seg, j);
        if (seg_ptr[g + 1] - seg_ptr[g] <= BLOCK) continue;
        for (gat_idx h = 0; h < H; h++)
            key_dkdv(j, seg_ptr[g], seg_ptr[g + 1], H, HD, h, D, s, q, k, v, lse, delta, dout, dk,
                     dv);
    }
}

void gat_i_anchor_attn_forward(gat_idx n, gat_idx H, gat_idx D, gat_idx M, const gat_idx *anchor,
                               const gat_real *q, const gat_real *k, const gat_real *v,
                               gat_real *out, gat_real *lse, int nt)
{
    const size_t HD = (size_t)H * (size_t)D;
    const gat_real s = (gat_real)(1 / sqrt((double)D));
    const keys ks = {anchor, 0, M};
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1 && n > 64)
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx h = 0; h < H; h++) {
            const size_t at = (size_t)i * HD + (size_t)h * D;
            row_forward(q + at, k, v, HD, (size_t)h * D, D, s, &ks, out + at,
                        lse + (size_t)i * H + h);
        }
}

void gat_i_anchor_attn_backward(gat_idx n, gat_idx H, gat_idx D, gat_idx M,
                                const gat_idx *anchor, const gat_real *q, const gat_real *k,
                                const gat_real *v, const gat_real *out, const gat_real *lse,
                                const gat_real *dout, gat_real *delta, gat_real *dq,
                                gat_real *dk, gat_real *dv, int nt)
{
    const size_t HD = (size_t)H * (size_t)D;
    const gat_real s = (gat_real)(1 / sqrt((double)D));
    const keys ks = {anchor, 0, M};
    row_deltas(n, H, D, out, dout, delta, nt);
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1 && n > 64)
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx h = 0; h < H; h++)
            row_dq((size_t)i * HD + (size_t)h * D, HD, (size_t)h * D, D, s, &ks, q, k, v, dout,
                   lse[(size_t)i * H + h], delta[(size_t)i * H + h], dq);
    /* each anchor's dk and dv rows gather over every query row: one writer per row (anchors
     * are distinct) */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1 && M > 1)
    for (gat_idx a = 0; a < M; a++)
        for (gat_idx h = 0; h < H; h++)
            key_dkdv(anchor[a], 0, n, H, HD, h, D, s, q, k, v, lse, delta, dout, dk, dv);
}

void gat_i_anchor_pick(gat_idx n, gat_idx M, uint64_t seed, gat_idx *anchor)
{
    /* selection sampling (Knuth's algorithm S): node i is taken with probability
     * (M - taken) / (n - i), from a hash of (seed, i): M distinct nodes, ascending, each set of
     * M equally likely */
    gat_idx taken = 0;
    for (gat_idx i = 0; i < n && taken < M; i++) {
        const double u = (double)(gat_i_hash64(seed, (uint64_t)i) >> 11) * 0x1.0p-53;
        if ((double)(n - i) * u < (double)(M - taken)) anchor[taken++] = i;
    }
}
