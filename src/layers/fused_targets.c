/* The attention backward's targets pass (fused.h): per target row, back through the weighted
 * sum, attention dropout, the softmax and the score, leaving each row's record for the sources
 * pass, ds_dst, the score's query gradient and the per-chunk bias and score-parameter partials. */
#include "fused_drop.h"

/* ---- attention backward ---- */

/* Target row i: back through the weighted sum (d alpha' = dy_i . z_j), attention dropout,
 * softmax (de = alpha (d alpha - sum alpha d alpha)) and LeakyReLU: dpre (E, H), ds_dst_i.
 * The output layer first writes dy_i = dlogits_i / H per head into b->dy. Row i's record
 * (GAT_I_DY_HEAD) is written for the sources pass. */
/* Scores other than gat, active target row i, after the weighted sum's backward: dp (the row's
 * slice of dpre) holds d alpha' per edge and dot the per-head sums of alpha d alpha'. Back
 * through the softmax and the score's per-head transform: dp becomes the gradient of the score's
 * core (tests/ref/scores.h: the dot product, the cosine, the squared distance, or gatv2's e), q_i's
 * gradient goes to b->dq, the score parameter's to Pv (gatv2's att, (Fp, H)) or ph (H).
 * Q, DQ: row scratch; rs, gq: (H) scratch. */
INLINE void family_backward_row(const gat_i_fl *l, const gat_i_fbw *b, gat_idx i, gat_real *dp,
                                const gat_real *dot, V8 *Q, V8 *DQ, V8 *Pv, gat_real *ph,
                                gat_real *rs, gat_real *gq, gat_real *pe, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const gat_real slope = l->slope, *al = l->alpha;
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
        const gat_real *xe = Sc == GAT_SCORE_GATV2 && pe ? l->ex + (size_t)k * l->D : NULL;
        for (int v = 0; v < NV; v++) {
            const V8 G = pat(l, gk, H, v % P), kv = ld(kj + 8 * v);
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
        for (int v = 0; v < NV; v++)
            DQ[v] -= pat(l, rs, H, v % P) * Q[v];
    }
    if (Sc == GAT_SCORE_GAUSSIAN)
        for (int v = 0; v < NV; v++)
            DQ[v] += 2 * pat(l, rs, H, v % P) * Q[v];
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

INLINE void bwd_target_rows(const gat_i_fl *l, const gat_i_fbw *b, int c, gat_idx r0, gat_idx r1,
                            V8 *dy, V8 *S, V8 *D, V8 *db, gat_real *gk, gat_real *dot,
                            gat_real *sum, V8 *Q, V8 *DQ, V8 *Pv, gat_real *ph, gat_real *rs, int H,
                            gat_idx Fp, int Sc)
{
    for (int v = 0; v < (int)(Fp * H / 8); v++)
        Pv[v] = bc(0);
    for (int h = 0; h < H; h++)
        ph[h] = 0;
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_real slope = l->slope, as = l->att.on ? l->att.scale : 1;
    const gat_real *al = l->alpha;
    gat_real *dp = b->drow + (size_t)thread_num() * b->drow_stride; /* the row's (k - k0, h) */
    /* gat without stored coefficients: the first loop over a row's edges recomputes them into
     * the thread's row scratch (the row's (k - k0, h)), the second reads them there */
    const int rec = Sc == GAT_SCORE_GAT && !al;
    gat_real *arow = rec ? l->arow + (size_t)thread_num() * l->arow_stride : NULL;
    uint64_t hv = 0, blk = UINT64_MAX;
    for (int v = 0; v < NV; v++)
        db[v] = bc(0);
    /* the chunk's edge-term partial: gat's dM (D, H), gatv2's dW_e (D, Fp, H) */
    const size_t pel = (size_t)l->D * (Sc == GAT_SCORE_GAT ? (size_t)H : hw);
    gat_real *pe =
        l->D && (Sc == GAT_SCORE_GAT || Sc == GAT_SCORE_GATV2) ? b->pe + (size_t)c * pel : NULL;
    if (pe) memset(pe, 0, pel * sizeof *pe);
    for (gat_idx i = r0; i < r1; i++) {
        const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
        gat_real *hd = b->dy + (size_t)i * b->dy_stride, *dyi = hd + GAT_I_DY_HEAD(H);
        if (b->dlogits) {
            const gat_real *d = b->dlogits + (size_t)i * l->Fo;
            const gat_real s = H == 1 ? 1 : (gat_real)1 / H;
            for (gat_idx f = 0; f < Fp; f++)
                for (int h = 0; h < H; h++)
                    dyi[(size_t)f * H + h] = f < l->Fo ? d[f] * s : 0;
        }
        V8 any = bc(0);
        for (int v = 0; v < NV; v++)
            dy[v] = ld(dyi + 8 * v), db[v] += dy[v], any += dy[v] * dy[v];
        if (hsum(any) == 0) { /* rows the loss does not read: no gradient */
            b->active[i] = 0;
            memset(b->ds_dst + (size_t)i * H, 0, (size_t)H * sizeof *dp);
            if (Sc != GAT_SCORE_GAT) memset(b->dq + (size_t)i * hw, 0, hw * sizeof *dp);
            continue;
        }
        /* the record's softmax terms and s_dst (what the sources pass recomputes alpha from) */
        if (rec) {
            memcpy(hd, l->soft + (size_t)i * 2 * H, 2 * (size_t)H * sizeof *hd);
            memcpy(hd + 2 * H, l->s_dst + (size_t)i * H, (size_t)H * sizeof *hd);
        }
        b->active[i] = 1;
        gat_real *hdot = hd + 3 * H;
        if (Sc == GAT_SCORE_GAT && l->agg2 && !l->D) {
            /* the row terms from the forward's sums: dot_i = dy_i . sum_j alpha'_ij z_j and
             * ds_dst_i = dy_i . sum_j alpha'_ij f_ij z_j - dot_i sum_j alpha_ij f_ij */
            const gat_real *r2 = l->agg2 + (size_t)i * hw, *sg = l->asig + (size_t)i * H;
            for (int q = 0; q < P; q++)
                D[q] = bc(0), S[q] = bc(0);
            for (int v = 0; v < NV; v++)
                S[v % P] += dy[v] * ld(r2 + 8 * v);
            fold(l, S, H, sum);
            if (l->agg) {
                const gat_real *r = l->agg + (size_t)i * hw;
                for (int v = 0; v < NV; v++)
                    D[v % P] += dy[v] * ld(r + 8 * v);
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
            continue;
        }
        const gat_real *ar = rec ? arow : al + (size_t)k0 * H; /* the row's (k - k0, h) */
        if (H % 8 == 0) {
            for (int q = 0; q < P; q++)
                D[q] = bc(0);
            for (gat_idx k = k0; k < k1; k++) {
                const gat_real *zj = l->z + (size_t)g->col[k] * hw;
                if (l->prefetch && k + AHEAD < g->nnz)
                    prefetch_row(l->z + (size_t)g->col[k + AHEAD] * hw, hw);
                for (int q = 0; q < P; q++)
                    S[q] = bc(0);
                for (int v = 0; v < NV; v++)
                    S[v % P] += dy[v] * ld(zj + 8 * v);
                for (int q = 0; q < P; q++) {
                    const size_t kh = (size_t)(k - k0) * H + 8 * q;
                    const V8 km =
                        !l->att.on ? bc(1)
                        : l->akeep
                            ? keep_pat(l, l->akeep + (size_t)k * AB, H, q, as)
                            : (V8)((VI)bc(as) & keep8(&l->att, ekey_of(l, k) * H + 8 * (size_t)q));
                    const V8 d = l->att.on ? S[q] * km : S[q];
                    st(dp + kh, d);
                    if (rec) st(arow + kh, alpha8(l, i, pre8(l, i, g->col[k], q, H), q, H));
                    D[q] += ld(ar + kh) * d;
                }
            }
            for (int q = 0; q < P; q++)
                st(hdot + 8 * q, D[q]);
            if (Sc != GAT_SCORE_GAT) {
                for (int q = 0; q < P; q++)
                    st(dot + 8 * q, D[q]);
                family_backward_row(l, b, i, dp, dot, Q, DQ, Pv, ph, rs, sum, pe, H, Fp, Sc);
                continue;
            }
            for (int q = 0; q < P; q++)
                S[q] = bc(0);
            for (gat_idx k = k0; k < k1; k++)
                for (int q = 0; q < P; q++) {
                    const size_t kh = (size_t)(k - k0) * H + 8 * q;
                    const VI pm =
                        rec ? pre8(l, i, g->col[k], q, H) > 0 : expand(l->pos[(size_t)k * AB + q]);
                    const V8 f = sel(pm, bc(1), bc(slope));
                    const V8 d = ld(ar + kh) * (ld(dp + kh) - D[q]) * f;
                    st(dp + kh, d);
                    S[q] += d;
                }
            for (int q = 0; q < P; q++)
                st(b->ds_dst + (size_t)i * H + 8 * q, S[q]);
            if (pe) edge_dm(l, dp, k0, k1, pe, H);
            continue;
        }
        for (int h = 0; h < H; h++)
            dot[h] = 0, sum[h] = 0;
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real *zj = l->z + (size_t)g->col[k] * hw;
            if (l->prefetch && k + AHEAD < g->nnz)
                prefetch_row(l->z + (size_t)g->col[k + AHEAD] * hw, hw);
            for (int q = 0; q < P; q++)
                S[q] = bc(0);
            for (int v = 0; v < NV; v++)
                S[v % P] += dy[v] * ld(zj + 8 * v);
            fold(l, S, H, gk);
            for (int h = 0; h < H; h++) {
                const unsigned kept =
                    !l->att.on ||
                    (l->akeep ? bit_of(l->akeep + (size_t)k * AB, h)
                              : keep1(&l->att, ekey_of(l, k) * H + (uint64_t)h, &blk, &hv));
                const gat_real d = !l->att.on ? gk[h] : kept ? gk[h] * as : 0;
                const size_t kh = (size_t)(k - k0) * H + h;
                dp[kh] = d;
                if (rec) arow[kh] = alpha1(l, i, pre1(l, i, g->col[k], h, H), h, H);
                dot[h] += ar[kh] * d;
            }
        }
        memcpy(hdot, dot, (size_t)H * sizeof *dot);
        if (Sc != GAT_SCORE_GAT) {
            family_backward_row(l, b, i, dp, dot, Q, DQ, Pv, ph, rs, sum, pe, H, Fp, Sc);
            continue;
        }
        for (gat_idx k = k0; k < k1; k++)
            for (int h = 0; h < H; h++) {
                const size_t kh = (size_t)(k - k0) * H + h;
                const unsigned pb =
                    rec ? pre1(l, i, g->col[k], h, H) > 0 : bit_of(l->pos + (size_t)k * AB, h);
                const gat_real d = ar[kh] * (dp[kh] - dot[h]) * (pb ? 1 : slope);
                dp[kh] = d;
                sum[h] += d;
            }
        for (int h = 0; h < H; h++)
            b->ds_dst[(size_t)i * H + h] = sum[h];
        if (pe) edge_dm(l, dp, k0, k1, pe, H);
    }
    gat_real *pt = b->pt + (size_t)c * 2 * hw;
    for (int v = 0; v < NV; v++)
        st(pt + 8 * v, db[v]);
    if (Sc == GAT_SCORE_GATV2)
        for (int v = 0; v < NV; v++)
            st(pt + hw + 8 * v, Pv[v]);
    if (Sc == GAT_SCORE_COSINE || Sc == GAT_SCORE_GAUSSIAN)
        memcpy(pt + hw, ph, (size_t)H * sizeof *ph);
}

void FN(gat_i_fused_att_backward_targets)(const gat_i_fl *l, const gat_i_fbw *b)
{
    const int nt = l->nt;
    FOR_CHUNKS(
        l->tc, nt,
        SCORES(l->score, SCORE_SHAPES(l->H, l->Fp,
                                      WITH_SCRATCH(bwd_target_rows(
                                          l, b, c, r0, r1, s_.dy, s_.S, s_.D, s_.E, s_.h1, s_.h2,
                                          s_.h3, s_.acc, s_.F, s_.G, s_.h4, s_.h5, Hc, Fc, Sc)))));
}
