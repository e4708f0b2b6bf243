/* The attention backward's sources pass (fused.h): per source row j over the transposed CSR,
 * dz_j = sum_i alpha'_ij dy_i plus the score halves' and keys' terms, da_src, da_dst, and the
 * projections' backward (dW partials per source chunk; the input's gradient through dropout and
 * the previous layer's ELU, or layer 0's stored dz). Race-free: row j and chunk c only. */
#include "fused_drop.h"

/* l > 0, source row j with dz_j in acc: dW += x_d_j dz_j and the input's gradient
 * dx = W dz_j (from the transpose Wt), back through dropout and the previous layer's ELU
 * (derivative y + 1 below zero, from its output y), stored in the previous layer's (Fp, H). */
INLINE void proj_dense_backward(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j,
                                const V8 *const *gp, int np, gat_real *dW0, gat_real *d, int H,
                                gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H, fin = (size_t)l->fin;
    const gat_real *xj = l->xin + (size_t)j * fin;
    const uint8_t *kb = l->xkeep + (size_t)j * ((fin + 7) / 8);
    const gat_real sc = l->in.on ? l->in.scale : 1;
    const int id = b->identity;
    /* an identity residual's gradient, in the input's (model) order: the output element of
     * input element c, or on an averaging layer the sum over the heads' copies */
    if (id >= 0) {
        const V8 *gi = gp[id];
        const size_t Fo = (size_t)l->Fo;
        for (size_t e = 0; e < fin; e++) {
            gat_real v = 0;
            if (l->mean)
                for (size_t h = 0; h < (size_t)H; h++)
                    v += gi[(e * H + h) / 8][(e * H + h) % 8];
            else
                v = gi[((e % Fo) * H + e / Fo) / 8][((e % Fo) * H + e / Fo) % 8];
            d[e] = v;
        }
    } else {
        memset(d, 0, fin * sizeof *d);
    }
    size_t c = 0;
    for (; c + 8 <= fin; c += 8) {
        const V8 y = ld(xj + c);
        const V8 kf = l->in.on ? (V8)((VI)bc(sc) & expand(kb[c / 8])) : bc(1);
        const V8 xd = y * kf;
        V8 dx = ld(d + c);
        for (int p = 0; p < np; p++) {
            if (p == id) continue;
            for (size_t e = 0; e < hw; e++)
                dx += gp[p][e / 8][e % 8] * ld(b->Wt[p] + e * fin + c);
        }
        st(d + c, dx * kf * sel(y > 0, bc(1), y + 1));
        for (int p = 0; p < np; p++)
            for (int t = 0; t < 8 && p != id; t++) {
                gat_real *w = dW0 + ((size_t)p * fin + c + (size_t)t) * hw;
                for (int v = 0; v < NV; v++)
                    st(w + 8 * v, ld(w + 8 * v) + xd[t] * gp[p][v]);
            }
    }
    for (; c < fin; c++) {
        const int kept = !l->in.on || ((kb[c / 8] >> (c % 8)) & 1);
        const gat_real y = xj[c], kf = kept ? sc : 0;
        gat_real dx = d[c];
        for (int p = 0; p < np; p++) {
            if (p == id) continue;
            for (size_t e = 0; e < hw; e++)
                dx += gp[p][e / 8][e % 8] * b->Wt[p][e * fin + c];
        }
        d[c] = dx * kf * (y > 0 ? 1 : y + 1);
        for (int p = 0; p < np; p++) {
            if (p == id) continue;
            gat_real *w = dW0 + ((size_t)p * fin + c) * hw;
            for (int v = 0; v < NV; v++)
                st(w + 8 * v, ld(w + 8 * v) + (y * kf) * gp[p][v]);
        }
    }
    /* model order (h, f) of the previous layer -> its (Fp, H) rows, zero padding */
    const int pH = b->prev_H;
    const gat_idx pFo = b->prev_Fo, pFp = b->prev_Fp;
    gat_real *dyp = b->dy_prev + (size_t)j * b->prev_stride + GAT_I_DY_HEAD(pH);
    if (pH == 8 && pFp == 8) {
        V8 in[8], out[8];
        for (int h = 0; h < 8; h++)
            in[h] = ld(d + 8 * h);
        transpose8(in, out);
        for (int f = 0; f < 8; f++)
            st(dyp + 8 * f, out[f]);
        return;
    }
    for (gat_idx f = 0; f < pFp; f++)
        for (int h = 0; h < pH; h++)
            dyp[(size_t)f * pH + h] = f < pFo ? d[(size_t)h * pFo + f] : 0;
}

/* Source row j: dz_j = sum over j's out-edges of alpha'_ij dy_i (aggregation) + ds_src_j a_src
 * + ds_dst_j a_dst (score halves); da_src, da_dst; then the projection's backward. Only row j of
 * dz / dy_prev and chunk c's partial sums are written: race-free. */
INLINE void bwd_source_rows(const gat_i_fl *l, const gat_i_fbw *b, int c, gat_idx r0, gat_idx r1,
                            V8 *acc, V8 *W, V8 *ES, V8 *das, V8 *dad, gat_real *w, gat_real *dss,
                            V8 *K, V8 *DQ, V8 *RS, gat_real *gq, gat_real *rs, gat_real *gd,
                            gat_real *xd, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_real as = l->att.on ? l->att.scale : 1;
    gat_real *ps = b->ps + (size_t)(b->c0 + c) * b->ps_stride;
    gat_real *dW = ps + 2 * hw;
    /* a remote row's target-side terms (ds_dst, dq, its own dy): zero */
    static const gat_real zero_h[GAT_I_MAX_HEADS] = {0};
    /* gat without stored coefficients, signs or keeps: each edge's from row i's node terms */
    const int rec = Sc == GAT_SCORE_GAT && !l->alpha;
    uint64_t hv = 0, blk = UINT64_MAX;
    for (int v = 0; v < NV; v++)
        das[v] = dad[v] = bc(0);
    memset(ps, 0, b->ps_stride * sizeof *ps);

    /* the projections' gradients: z, then the score's q and k, then the residual's */
    const int nsc = b->nproj - (b->res ? 1 : 0);
    const V8 *gp[4];
    int np = 0;
    gp[np++] = acc;
    if (nsc == 2) gp[np++] = K;
    if (nsc == 3) gp[np++] = DQ, gp[np++] = K;
    if (b->res) gp[np++] = RS;
    V8 *T = DQ; /* per-edge head sums; DQ is set only after a row's edges */
    for (gat_idx j = r0; j < r1; j++) {
        const gat_real *kj = Sc == GAT_SCORE_GAT ? NULL : l->k + (size_t)j * hw;
        const gat_real *zr = l->z + (size_t)j * hw;
        for (int v = 0; v < NV; v++)
            acc[v] = bc(0), K[v] = bc(0);
        for (int q = 0; q < P; q++)
            ES[q] = bc(0);
        for (int h = 0; h < H; h++)
            dss[h] = 0, rs[h] = 0;
        for (gat_idx p = g->t_rowptr[j]; p < g->t_rowptr[j + 1]; p++) {
            const gat_idx i = g->t_col[p];
            if (l->prefetch && p + AHEAD < g->nnz) {
                const gat_idx ia = g->t_col[p + AHEAD];
                const size_t ka = (size_t)g->t_edge[p + AHEAD];
                /* a row without gradient is not read (nor its edge's stored values): its flag
                 * is fetched AHEAD edges before the row is */
                if (p + 2 * AHEAD < g->nnz)
                    __builtin_prefetch(b->active + g->t_col[p + 2 * AHEAD], 0, 3);
                if (b->active[ia]) {
                    prefetch_row(b->dy + (size_t)ia * b->dy_stride, b->dy_stride);
                    if (!rec) {
                        __builtin_prefetch(l->alpha + ka * H, 0, 3);
                        if (Sc == GAT_SCORE_GAT) __builtin_prefetch(l->pos + ka * AB, 0, 3);
                        if (H % 8) __builtin_prefetch(l->akeep + ka * AB, 0, 3);
                    }
                }
            }
            if (!b->active[i]) continue;
            const gat_real *hdi = b->dy + (size_t)i * b->dy_stride; /* its record */
            const size_t k = (size_t)g->t_edge[p];
            const gat_real *dyi = hdi + GAT_I_DY_HEAD(H), *doti = hdi + 3 * H;
            /* d alpha'_ij = dy_i . z_j per head (as the targets pass computed it), then the edge's
             * score gradient from it and row i's softmax term: recomputed here rather than
             * stored per edge by the targets pass */
            for (int q = 0; q < P; q++)
                T[q] = bc(0);
            for (int v = 0; v < NV; v++)
                T[v % P] += ld(dyi + 8 * v) * ld(zr + 8 * v);
            if (H % 8 == 0) {
                for (int q = 0; q < P; q++) {
                    V8 a;
                    VI pm = (VI){0};
                    if (rec) {
                        const V8 t = ld(hdi + 2 * H + 8 * q) + ld(l->s_src + (size_t)j * H + 8 * q);
                        pm = t > 0;
                        a = alpha8_of(t, hdi, hdi + H, l->slope, q);
                    } else {
                        a = ld(l->alpha + k * H + 8 * q);
                        if (Sc == GAT_SCORE_GAT) pm = expand(l->pos[k * AB + q]);
                    }
                    /* large graphs: the keep flags are recomputed (two hashes), cheaper than one
                     * more random cache line per edge; so is any layer that does not store them */
                    const V8 km = !l->att.on ? bc(1)
                                  : l->prefetch || !l->akeep
                                      ? (V8)((VI)bc(as) &
                                             keep8(&l->att, tkey_of(l, p, k) * H + 8 * (size_t)q))
                                      : keep_pat(l, l->akeep + k * AB, H, q, as);
                    W[q] = a * km;
                    const V8 de = a * ((l->att.on ? T[q] * km : T[q]) - ld(doti + 8 * q));
                    if (Sc == GAT_SCORE_GAT)
                        ES[q] += de * sel(pm, bc(1), bc(l->slope));
                    else
                        st(gd + 8 * q, de);
                }
            } else {
                fold(l, T, H, gd);
                for (int h = 0; h < H; h++) {
                    gat_real a;
                    unsigned pb = 0;
                    if (rec) {
                        const gat_real t = hdi[2 * H + h] + l->s_src[(size_t)j * H + h];
                        pb = t > 0;
                        a = alpha1_of(t, hdi[h], hdi[H + h], l->slope);
                    } else {
                        a = l->alpha[k * H + h];
                        if (Sc == GAT_SCORE_GAT) pb = bit_of(l->pos + k * AB, h);
                    }
                    const unsigned kept =
                        !l->att.on ||
                        (l->akeep ? bit_of(l->akeep + k * AB, h)
                                  : keep1(&l->att, tkey_of(l, p, k) * H + (uint64_t)h, &blk, &hv));
                    w[h] = !l->att.on ? a : kept ? a * as : 0;
                    const gat_real de = a * ((!l->att.on ? gd[h]
                                              : kept     ? gd[h] * as
                                                         : 0) -
                                             doti[h]);
                    if (Sc == GAT_SCORE_GAT)
                        dss[h] += de * (pb ? 1 : l->slope);
                    else
                        gd[h] = de;
                }
                for (int q = 0; q < P; q++)
                    W[q] = pat(l, w, H, q);
            }
            for (int v = 0; v < NV; v++)
                acc[v] += W[v % P] * ld(dyi + 8 * v);
            if (Sc == GAT_SCORE_GAT) continue;
            /* the score's per-head transform (family_backward_row): gd becomes the gradient of
             * the score's core */
            for (int h = 0; h < H; h++) {
                if (Sc == GAT_SCORE_DOT || Sc == GAT_SCORE_COSINE) gd[h] *= l->coef[h];
                if (Sc == GAT_SCORE_GAUSSIAN) gd[h] = -gd[h] * l->coef[h];
            }
            /* the key k_j's share of the score's gradient, from q_i and the core's gradient */
            const gat_real *qi = l->q + (size_t)i * hw, *gk = gd;
            if (Sc == GAT_SCORE_COSINE) {
                for (int h = 0; h < H; h++) {
                    gq[h] = gk[h] * l->qinv[(size_t)i * H + h] * l->qinv[(size_t)j * H + h];
                    rs[h] += gk[h] * l->esc[k * H + h];
                }
                gk = gq;
            }
            if (Sc == GAT_SCORE_GAUSSIAN)
                for (int h = 0; h < H; h++)
                    rs[h] += gk[h];
            const gat_real *xe = Sc == GAT_SCORE_GATV2 && l->D ? l->ex + k * (size_t)l->D : NULL;
            for (int v = 0; v < NV; v++) {
                const V8 G = pat(l, gk, H, v % P), qv = ld(qi + 8 * v);
                if (Sc == GAT_SCORE_GATV2) {
                    const V8 t =
                        xe ? qv + ld(kj + 8 * v) + edge_v(l, xe, hw, v) : qv + ld(kj + 8 * v);
                    K[v] += G * ld(l->att_w + 8 * v) * sel(t > 0, bc(1), bc(l->slope));
                } else if (Sc == GAT_SCORE_GAUSSIAN) {
                    K[v] -= 2 * G * qv;
                } else {
                    K[v] += G * qv;
                }
            }
        }
        const int own = j < b->n_own;
        if (Sc == GAT_SCORE_GAT) {
            if (H % 8 == 0)
                for (int q = 0; q < P; q++)
                    st(dss + 8 * q, ES[q]);
            const gat_real *zj = l->z + (size_t)j * hw,
                           *dsd = own ? b->ds_dst + (size_t)j * H : zero_h;
            for (int v = 0; v < NV; v++) {
                const V8 es = pat(l, dss, H, v % P), ed = pat(l, dsd, H, v % P),
                         zv = ld(zj + 8 * v);
                acc[v] += es * ld(l->a_src + 8 * v) + ed * ld(l->a_dst + 8 * v);
                das[v] += es * zv;
                dad[v] += ed * zv;
            }
        } else {
            if (Sc == GAT_SCORE_COSINE)
                for (int h = 0; h < H; h++) {
                    const gat_real kv = l->qinv[(size_t)j * H + h];
                    rs[h] *= -kv * kv;
                }
            if (Sc == GAT_SCORE_GAUSSIAN)
                for (int h = 0; h < H; h++)
                    rs[h] *= 2;
            if (Sc == GAT_SCORE_COSINE || Sc == GAT_SCORE_GAUSSIAN)
                for (int v = 0; v < NV; v++)
                    K[v] += pat(l, rs, H, v % P) * ld(kj + 8 * v);
            /* gradients of the projections: z (values, and queries and keys where they are z),
             * then the separate query and key projections */
            const gat_real *dqj = b->dq + (size_t)j * hw;
            for (int v = 0; v < NV; v++) {
                const V8 dq = own ? ld(dqj + 8 * v) : bc(0);
                if (nsc == 1) acc[v] += K[v] + dq;
                if (nsc == 2) acc[v] += K[v], K[v] = dq;
                if (nsc == 3) DQ[v] = dq;
            }
        }
        /* acc = dz_j: the projection's backward; nothing to add for a zero row (no out-edge to
         * a row with a gradient, and ds_dst_j = 0) */
        /* the residual's gradient is row j's own pre-activation gradient */
        if (b->res)
            for (int v = 0; v < NV; v++)
                RS[v] =
                    own ? ld(b->dy + (size_t)j * b->dy_stride + GAT_I_DY_HEAD(H) + 8 * v) : bc(0);
        if (b->remote) { /* the owner back-propagates them */
            store_row(b->rz + (size_t)j * hw, acc, NV);
            if (nsc == 3) store_row(b->rk + (size_t)j * hw, K, NV);
            continue;
        }
        if (b->add_ptr) /* other bindings' shares, in slot order */
            for (gat_idx s = b->add_ptr[j]; s < b->add_ptr[j + 1]; s++) {
                const gat_real *az = b->add_z + (size_t)b->add_slot[s] * hw;
                for (int v = 0; v < NV; v++)
                    acc[v] += ld(az + 8 * v);
                if (nsc == 3) {
                    const gat_real *ak = b->add_k + (size_t)b->add_slot[s] * hw;
                    for (int v = 0; v < NV; v++)
                        K[v] += ld(ak + 8 * v);
                }
            }
        V8 any = bc(0);
        for (int p = 0; p < np; p++)
            for (int v = 0; v < NV; v++)
                any += gp[p][v] * gp[p][v];
        if (hsum(any) == 0) {
            if (l->xin) {
                const size_t pw = (size_t)b->prev_Fp * b->prev_H;
                memset(b->dy_prev + (size_t)j * b->prev_stride + GAT_I_DY_HEAD(b->prev_H), 0,
                       pw * sizeof(gat_real));
            } else if (b->dz) {
                b->dz_nonzero[j] = 0;
            }
            continue;
        }
        if (l->xin) {
            proj_dense_backward(l, b, j, gp, np, dW, xd, H, Fp);
        } else if (b->dz) {
            b->dz_nonzero[j] = 1;
            for (int p = 0; p < np; p++)
                store_row(b->dz + ((size_t)p * (size_t)b->n_own + (size_t)j) * hw, gp[p], NV);
        } else {
            const gat_csr *x = l->x;
            const size_t pstride = (size_t)x->cols * hw;
            for (gat_idx q = x->rowptr[j]; q < x->rowptr[j + 1]; q++) {
                const gat_real xv = !l->in.on     ? x->val[q]
                                    : l->xkeep[q] ? x->val[q] * l->in.scale
                                                  : 0;
                for (int p = 0; p < np; p++) {
                    gat_real *wr = dW + p * pstride + (size_t)x->col[q] * hw;
                    for (int v = 0; v < NV; v++)
                        st(wr + 8 * v, ld(wr + 8 * v) + xv * gp[p][v]);
                }
            }
        }
    }
    if (Sc == GAT_SCORE_GAT)
        for (int v = 0; v < NV; v++)
            st(ps + 8 * v, das[v]), st(ps + hw + 8 * v, dad[v]);
}

void FN(gat_i_fused_att_backward_sources)(const gat_i_fl *l, const gat_i_fbw *b)
{
    const int nt = l->nt;
    FOR_CHUNKS(l->sc, nt,
               SCORES(l->score, SCORE_SHAPES(l->H, l->Fp,
                                             WITH_SCRATCH(bwd_source_rows(
                                                 l, b, c, r0, r1, s_.acc, s_.S, s_.D, s_.E, s_.F,
                                                 s_.h1, s_.h2, s_.K, s_.G, s_.dy, s_.h3, s_.h4,
                                                 s_.h5, s_.xd, Hc, Fc, Sc)))));
}
