/* The attention backward's targets pass (fused.h): per target row, back through the weighted
 * sum, attention dropout, the softmax and the score, leaving each row's record for the sources
 * pass, ds_dst, the score's query gradient and the per-chunk bias and score-parameter partials. */
#include "fused_drop.h"

/* ---- attention backward ---- */

/* A targets-pass row's scratch, from the thread's pool (WITH_SCRATCH): rows of NV vectors, (P)
 * vectors of per-head lanes and (H) per-head values. */
typedef struct tgt_scratch {
    V8 *dy;                   /* (NV) the row's dy_i */
    V8 *S;                    /* (P) one edge's d alpha'_ij, then the row's ds_dst sums */
    V8 *D;                    /* (P) sum_j alpha_ij d alpha'_ij */
    V8 *db;                   /* (NV) the chunk's bias gradient */
    V8 *Q, *DQ;               /* (NV) scores other than gat: q_i and its gradient */
    V8 *Pv;                   /* (NV) the chunk's gatv2 att gradient */
    gat_real *gk, *dot, *sum; /* (H): an edge's d alpha', sum_j alpha d alpha', ds_dst sums */
    gat_real *ph;             /* (H) the chunk's cosine beta or gaussian log sigma gradient */
    gat_real *rs;             /* (H) family_backward_row's per-head sums */
} tgt_scratch;

/* Scores other than gat, active target row i, after the weighted sum's backward: dp (the row's
 * slice of dpre) holds d alpha' per edge and dot the per-head sums of alpha d alpha'. Back
 * through the softmax and the score's per-head transform: dp becomes the gradient of the score's
 * core (tests/ref/scores.h: the dot product, the cosine, the squared distance, or gatv2's e), q_i's
 * gradient goes to b->dq, the score parameter's to t->Pv (gatv2's att, (Fp, H)) or t->ph (H),
 * gatv2's edge term's weight to pe (D, Fp, H) when D > 0. */
INLINE void family_backward_row(const gat_i_fl *l, const gat_i_fbw *b, gat_idx i, gat_real *dp,
                                const tgt_scratch *t, gat_real *pe, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const gat_real slope = l->slope, *al = l->alpha, *dot = t->dot;
    gat_real *ph = t->ph, *rs = t->rs, *gq = t->sum;
    V8 *Q = t->Q, *DQ = t->DQ, *Pv = t->Pv;
    for (int h = 0; h < H; h++)
        rs[h] = 0;
    for (gat_idx k = k0; k < k1; k++)
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)k * H + h, r = (size_t)(k - k0) * H + h;
            const gat_real de = al[kh] * (dp[r] - dot[h]);
            gat_real gg = de;
            if (Sc == GAT_SCORE_DOT) gg = de * l->coef[h];
            if (Sc == GAT_SCORE_COSINE) {
                ph[h] += de * l->esc[kh];
                gg = de * l->coef[h];
                rs[h] += gg * l->esc[kh];
            }
            if (Sc == GAT_SCORE_GAUSSIAN) {
                ph[h] += 2 * l->coef[h] * l->esc[kh] * de;
                gg = -de * l->coef[h];
                rs[h] += gg;
            }
            dp[r] = gg;
        }
    /* q_i's gradient: sum over the row's edges of d core / d q_i */
    const gat_real *qv = Sc == GAT_SCORE_COSINE ? l->qinv : NULL;
    for (int v = 0; v < NV; v++)
        Q[v] = ld(l->q + (size_t)i * hw + 8 * v), DQ[v] = bc(0);
    for (gat_idx k = k0; k < k1; k++) {
        const gat_idx j = g->col[k];
        const gat_real *kj = l->k + (size_t)j * hw, *gk = dp + (size_t)(k - k0) * H;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(l->k + (size_t)g->col[k + AHEAD] * hw, hw);
        if (Sc == GAT_SCORE_COSINE) {
            for (int h = 0; h < H; h++)
                gq[h] = gk[h] * qv[(size_t)i * H + h] * qv[(size_t)j * H + h];
            gk = gq;
        }
        const gat_real *xe = Sc == GAT_SCORE_GATV2 && l->D ? l->ex + (size_t)k * l->D : NULL;
        FOR_V(v, vq, NV, P) {
            const V8 G = pat(l, gk, H, vq), kv = ld(kj + 8 * v);
            if (Sc == GAT_SCORE_GATV2) {
                const V8 t = xe ? Q[v] + kv + edge_v(l, xe, hw, v) : Q[v] + kv;
                const V8 gt = G * ld(l->att_w + 8 * v) * sel(t > 0, bc(1), bc(slope));
                DQ[v] += gt;
                Pv[v] += G * sel(t > 0, t, t * slope);
                /* the edge term's weight: dW_e[d] += x_e[d] d s / d t, the chunk's partial */
                for (gat_idx d = 0; xe && d < l->D; d++) {
                    gat_real *w = pe + (size_t)d * hw + 8 * (size_t)v;
                    st(w, ld(w) + bc(xe[d]) * gt);
                }
            } else if (Sc == GAT_SCORE_GAUSSIAN) {
                DQ[v] -= 2 * G * kv;
            } else {
                DQ[v] += G * kv;
            }
        }
    }
    if (Sc == GAT_SCORE_COSINE) {
        for (int h = 0; h < H; h++)
            rs[h] *= qv[(size_t)i * H + h] * qv[(size_t)i * H + h];
        FOR_V(v, vq, NV, P)
            DQ[v] -= pat(l, rs, H, vq) * Q[v];
    }
    if (Sc == GAT_SCORE_GAUSSIAN)
        FOR_V(v, vq, NV, P)
            DQ[v] += 2 * pat(l, rs, H, vq) * Q[v];
    store_row(b->dq + (size_t)i * hw, DQ, NV);
}

/* The edge term's backward for target row i's edges k0 .. k1 - 1, dp their d loss / d pre (row
 * order, (k - k0, h)): pe (D, H) += sum_k x_k[d] dp[k, h], in edge order (the chunk's partial). */
INLINE void edge_dm(const gat_i_fl *l, const gat_real *dp, gat_idx k0, gat_idx k1, gat_real *pe,
                    int H)
{
    const gat_idx D = l->D;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *xe = l->ex + (size_t)k * (size_t)D, *dk = dp + (size_t)(k - k0) * H;
        for (gat_idx d = 0; d < D; d++) {
            gat_real *p = pe + (size_t)d * H;
            const gat_real xv = xe[d];
            for (int h = 0; h < H; h++)
                p[h] += xv * dk[h];
        }
    }
}

/* The output layer first writes dy_i = dlogits_i / H per head into dyi (a linear layer: its
 * head's part of dlogits_i); then dy_i into t->dy and
 * the chunk's bias gradient. 0 for a row the loss does not read (no gradient: its ds_dst, dq
 * and active flag are zeroed), else 1. */
INLINE int tgt_row_dy(const gat_i_fl *l, const gat_i_fbw *b, gat_idx i, gat_real *dyi,
                      const tgt_scratch *t, int H, gat_idx Fp, int Sc)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H;
    if (b->dlogits && !l->mean) { /* a linear layer: (H, Fo) -> (Fp, H) */
        const gat_real *d = b->dlogits + (size_t)i * (size_t)H * l->Fo;
        for (gat_idx f = 0; f < Fp; f++)
            for (int h = 0; h < H; h++)
                dyi[(size_t)f * H + h] = f < l->Fo ? d[(size_t)h * l->Fo + f] : 0;
    } else if (b->dlogits) {
        const gat_real *d = b->dlogits + (size_t)i * l->Fo;
        const gat_real s = H == 1 ? 1 : (gat_real)1 / H;
        for (gat_idx f = 0; f < Fp; f++)
            for (int h = 0; h < H; h++)
                dyi[(size_t)f * H + h] = f < l->Fo ? d[f] * s : 0;
    }
    V8 any = bc(0);
    for (int v = 0; v < NV; v++)
        t->dy[v] = ld(dyi + 8 * v), t->db[v] += t->dy[v], any += t->dy[v] * t->dy[v];
    if (hsum(any) != 0) return 1;
    b->active[i] = 0;
    memset(b->ds_dst + (size_t)i * H, 0, (size_t)H * sizeof(gat_real));
    if (Sc != GAT_SCORE_GAT) memset(b->dq + (size_t)i * hw, 0, hw * sizeof(gat_real));
    return 0;
}

/* FWD_SUMS_KEEP: the row terms from the forward's sums, dot_i = dy_i . sum_j alpha'_ij z_j and
 * ds_dst_i = dy_i . sum_j alpha'_ij f_ij z_j - dot_i sum_j alpha_ij f_ij; dot_i into hdot */
INLINE void tgt_row_sums(const gat_i_fl *l, const gat_i_fbw *b, gat_idx i, const gat_real *dyi,
                         gat_real *hdot, const tgt_scratch *t, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    const gat_real *r2 = l->agg2 + (size_t)i * hw, *sg = l->asig + (size_t)i * H;
    V8 *D = t->D, *S = t->S;
    const V8 *dy = t->dy;
    gat_real *dot = t->dot, *sum = t->sum;
    for (int q = 0; q < P; q++)
        D[q] = bc(0), S[q] = bc(0);
    FOR_V(v, vq, NV, P)
        S[vq] += dy[v] * ld(r2 + 8 * v);
    fold(l, S, H, sum);
    if (l->agg) {
        const gat_real *r = l->agg + (size_t)i * hw;
        FOR_V(v, vq, NV, P)
            D[vq] += dy[v] * ld(r + 8 * v);
        fold(l, D, H, dot);
    } else { /* one head, no residual: the sum is the logits less the bias */
        const gat_real *o = l->out + (size_t)i * l->Fo;
        dot[0] = 0;
        for (gat_idx f = 0; f < l->Fo; f++)
            dot[0] += dyi[f] * (o[f] - l->b[f]);
    }
    memcpy(hdot, dot, (size_t)H * sizeof *dot);
    for (int h = 0; h < H; h++)
        b->ds_dst[(size_t)i * H + h] = sum[h] - dot[h] * sg[h];
}

/* H a multiple of 8, back through the weighted sum and attention dropout: dp (the row's
 * (k - k0, h)) = d alpha'_ij = dy_i . z_j, dropped, and t->D = sum_j alpha_ij d alpha'_ij (into
 * hdot, and t->dot for the other scores); ar the row's alpha, or with ALPHA_RECOMPUTED arow,
 * recomputed here from soft */
INLINE void tgt_dalpha8(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1, gat_real *dp,
                        const gat_real *ar, gat_real *arow, alpha_src src, gat_real *hdot,
                        const tgt_scratch *t, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_real as = l->att.on ? l->att.scale : 1;
    V8 *D = t->D, *S = t->S;
    const V8 *dy = t->dy;
    for (int q = 0; q < P; q++)
        D[q] = bc(0);
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *zj = zagg_of(l) + (size_t)g->col[k] * hw;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(zagg_of(l) + (size_t)g->col[k + AHEAD] * hw, hw);
        for (int q = 0; q < P; q++)
            S[q] = bc(0);
        FOR_V(v, vq, NV, P)
            S[vq] += dy[v] * ld(zj + 8 * v);
        for (int q = 0; q < P; q++) {
            const size_t kh = (size_t)(k - k0) * H + 8 * q;
            const V8 km =
                !l->att.on ? bc(1)
                : l->akeep ? keep_pat(l, l->akeep + (size_t)k * AB, H, q, as)
                           : (V8)((VI)bc(as) & keep8(&l->att, ekey_of(l, k) * H + 8 * (size_t)q));
            const V8 d = l->att.on ? S[q] * km : S[q];
            st(dp + kh, d);
            if (src == ALPHA_RECOMPUTED)
                st(arow + kh, alpha8(l, i, pre8(l, i, g->col[k], q, H), q, H));
            D[q] += ld(ar + kh) * d;
        }
    }
    for (int q = 0; q < P; q++)
        st(hdot + 8 * q, D[q]);
    if (Sc != GAT_SCORE_GAT)
        for (int q = 0; q < P; q++)
            st(t->dot + 8 * q, D[q]);
}

/* The same for any H, one head at a time: t->dot = sum_j alpha_ij d alpha'_ij (and hdot) */
INLINE void tgt_dalpha1(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1, gat_real *dp,
                        const gat_real *ar, gat_real *arow, alpha_src src, gat_real *hdot,
                        const tgt_scratch *t, int H, gat_idx Fp)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_real as = l->att.on ? l->att.scale : 1;
    gat_real *dot = t->dot, *gk = t->gk;
    V8 *S = t->S;
    const V8 *dy = t->dy;
    uint64_t hv = 0, blk = UINT64_MAX;
    for (int h = 0; h < H; h++)
        dot[h] = 0;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *zj = zagg_of(l) + (size_t)g->col[k] * hw;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(zagg_of(l) + (size_t)g->col[k + AHEAD] * hw, hw);
        for (int q = 0; q < P; q++)
            S[q] = bc(0);
        FOR_V(v, vq, NV, P)
            S[vq] += dy[v] * ld(zj + 8 * v);
        fold(l, S, H, gk);
        for (int h = 0; h < H; h++) {
            const unsigned kept =
                !l->att.on ||
                (l->akeep ? bit_of(l->akeep + (size_t)k * AB, h)
                          : keep1(&l->att, ekey_of(l, k) * H + (uint64_t)h, &blk, &hv));
            const gat_real d = !l->att.on ? gk[h] : sel1((int)kept, gk[h] * as, 0);
            const size_t kh = (size_t)(k - k0) * H + h;
            dp[kh] = d;
            if (src == ALPHA_RECOMPUTED) arow[kh] = alpha1(l, i, pre1(l, i, g->col[k], h, H), h, H);
            dot[h] += ar[kh] * d;
        }
    }
    memcpy(hdot, dot, (size_t)H * sizeof *dot);
}

/* gat, H a multiple of 8, back through the softmax (de = alpha (d alpha - sum alpha d alpha))
 * and the LeakyReLU: dp becomes d loss / d pre, ds_dst_i their sum per head */
INLINE void tgt_gat_back8(const gat_i_fl *l, const gat_i_fbw *b, gat_idx i, gat_idx k0, gat_idx k1,
                          gat_real *dp, const gat_real *ar, alpha_src src, const tgt_scratch *t,
                          int H)
{
    const int P = vper(H), AB = (H + 7) / 8;
    const gat_real slope = l->slope;
    V8 *S = t->S;
    const V8 *D = t->D;
    for (int q = 0; q < P; q++)
        S[q] = bc(0);
    for (gat_idx k = k0; k < k1; k++)
        for (int q = 0; q < P; q++) {
            const size_t kh = (size_t)(k - k0) * H + 8 * q;
            const VI pm = src == ALPHA_RECOMPUTED ? pre8(l, i, l->g->col[k], q, H) > 0
                                                  : expand(l->pos[(size_t)k * AB + q]);
            const V8 f = sel(pm, bc(1), bc(slope));
            const V8 d = ld(ar + kh) * (ld(dp + kh) - D[q]) * f;
            st(dp + kh, d);
            S[q] += d;
        }
    for (int q = 0; q < P; q++)
        st(b->ds_dst + (size_t)i * H + 8 * q, S[q]);
}

/* The same for any H, one head at a time */
INLINE void tgt_gat_back1(const gat_i_fl *l, const gat_i_fbw *b, gat_idx i, gat_idx k0, gat_idx k1,
                          gat_real *dp, const gat_real *ar, alpha_src src, const tgt_scratch *t,
                          int H)
{
    const int AB = (H + 7) / 8;
    const gat_real slope = l->slope, *dot = t->dot;
    gat_real *sum = t->sum;
    for (int h = 0; h < H; h++)
        sum[h] = 0;
    for (gat_idx k = k0; k < k1; k++)
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)(k - k0) * H + h;
            const unsigned pb = src == ALPHA_RECOMPUTED ? pre1(l, i, l->g->col[k], h, H) > 0
                                                        : bit_of(l->pos + (size_t)k * AB, h);
            const gat_real d = ar[kh] * (dp[kh] - dot[h]) * sel1((int)pb, 1, slope);
            dp[kh] = d;
            sum[h] += d;
        }
    for (int h = 0; h < H; h++)
        b->ds_dst[(size_t)i * H + h] = sum[h];
}

/* Target row i: back through the weighted sum (d alpha' = dy_i . z_j), attention dropout,
 * softmax and the score: dp (the thread's (in-degree, H) row scratch) and ds_dst_i (gat), dq_i
 * and the score parameter's partials (the others); pe (the chunk's edge-term partial) when
 * D > 0. Row i's record (GAT_I_DY_HEAD) is written for the sources pass. */
INLINE void bwd_target_row(const gat_i_fl *l, const gat_i_fbw *b, gat_idx i, gat_real *dp,
                           gat_real *arow, gat_real *pe, const tgt_scratch *t, int H, gat_idx Fp,
                           int Sc)
{
    const gat_idx k0 = l->g->rowptr[i], k1 = l->g->rowptr[i + 1];
    const alpha_src src = alpha_src_of(l, Sc);
    gat_real *hd = b->dy + (size_t)i * b->dy_stride, *hdot = hd + 3 * H;
    if (!tgt_row_dy(l, b, i, hd + GAT_I_DY_HEAD(H), t, H, Fp, Sc)) return;
    /* the record's softmax terms and s_dst (what the sources pass recomputes alpha from) */
    if (src == ALPHA_RECOMPUTED) {
        memcpy(hd, l->soft + (size_t)i * 2 * H, 2 * (size_t)H * sizeof *hd);
        memcpy(hd + 2 * H, l->s_dst + (size_t)i * H, (size_t)H * sizeof *hd);
    }
    b->active[i] = 1;
    if (fwd_sums_of(l, Sc) == FWD_SUMS_KEEP) {
        tgt_row_sums(l, b, i, hd + GAT_I_DY_HEAD(H), hdot, t, H, Fp);
        return;
    }
    /* the row's (k - k0, h) coefficients */
    const gat_real *ar = src == ALPHA_RECOMPUTED ? arow : l->alpha + (size_t)k0 * H;
    if (H % 8 == 0)
        tgt_dalpha8(l, i, k0, k1, dp, ar, arow, src, hdot, t, H, Fp, Sc);
    else
        tgt_dalpha1(l, i, k0, k1, dp, ar, arow, src, hdot, t, H, Fp);
    if (Sc != GAT_SCORE_GAT) {
        family_backward_row(l, b, i, dp, t, pe, H, Fp, Sc);
        return;
    }
    if (H % 8 == 0)
        tgt_gat_back8(l, b, i, k0, k1, dp, ar, src, t, H);
    else
        tgt_gat_back1(l, b, i, k0, k1, dp, ar, src, t, H);
    if (l->D) edge_dm(l, dp, k0, k1, pe, H);
}

/* Target rows r0 .. r1 - 1 of chunk c, and the chunk's partials: pt (bias, the score's
 * parameter) and pe (the edge term's weight) */
INLINE void bwd_target_rows(const gat_i_fl *l, const gat_i_fbw *b, int c, gat_idx r0, gat_idx r1,
                            const tgt_scratch *t, int H, gat_idx Fp, int Sc)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H;
    for (int v = 0; v < NV; v++)
        t->Pv[v] = bc(0), t->db[v] = bc(0);
    for (int h = 0; h < H; h++)
        t->ph[h] = 0;
    gat_real *dp = b->drow + (size_t)thread_num() * b->drow_stride; /* the row's (k - k0, h) */
    /* gat without stored coefficients: the first loop over a row's edges recomputes them into
     * the thread's row scratch (the row's (k - k0, h)), the second reads them there */
    gat_real *arow = alpha_src_of(l, Sc) == ALPHA_RECOMPUTED
                         ? l->arow + (size_t)thread_num() * l->arow_stride
                         : NULL;
    /* the chunk's edge-term partial: gat's dM (D, H), gatv2's dW_e (D, Fp, H) */
    const size_t pel = (size_t)l->D * (Sc == GAT_SCORE_GAT ? (size_t)H : hw);
    gat_real *pe =
        l->D && (Sc == GAT_SCORE_GAT || Sc == GAT_SCORE_GATV2) ? b->pe + (size_t)c * pel : NULL;
    if (pe) memset(pe, 0, pel * sizeof *pe);
    for (gat_idx i = r0; i < r1; i++)
        bwd_target_row(l, b, i, dp, arow, pe, t, H, Fp, Sc);
    gat_real *pt = b->pt + (size_t)c * 2 * hw;
    for (int v = 0; v < NV; v++)
        st(pt + 8 * v, t->db[v]);
    if (Sc == GAT_SCORE_GATV2)
        for (int v = 0; v < NV; v++)
            st(pt + hw + 8 * v, t->Pv[v]);
    if (Sc == GAT_SCORE_COSINE || Sc == GAT_SCORE_GAUSSIAN)
        memcpy(pt + hw, t->ph, (size_t)H * sizeof *t->ph);
}

/* The targets pass's named parts of the thread's scratch pool s_ */
#define TARGET_ROWS                                                                                \
    do {                                                                                           \
        const tgt_scratch t_ = {.dy = s_.dy,                                                       \
                                .S = s_.S,                                                         \
                                .D = s_.D,                                                         \
                                .db = s_.E,                                                        \
                                .Q = s_.acc,                                                       \
                                .DQ = s_.F,                                                        \
                                .Pv = s_.G,                                                        \
                                .gk = s_.h1,                                                       \
                                .dot = s_.h2,                                                      \
                                .sum = s_.h3,                                                      \
                                .ph = s_.h4,                                                       \
                                .rs = s_.h5};                                                      \
        bwd_target_rows(l, b, c, r0, r1, &t_, Hc, Fc, Sc);                                         \
    } while (0)

void FN(gat_i_fused_att_backward_targets)(const gat_i_fl *l, const gat_i_fbw *b)
{
    const int nt = l->nt;
    FOR_CHUNKS(l->tc, nt, SCORES(l->score, SCORE_SHAPES(l->H, l->Fp, WITH_SCRATCH(TARGET_ROWS))));
}
