/* The attention backward's sources pass (fused.h): per source row j over the transposed CSR,
 * dz_j = sum_i alpha'_ij dy_i plus the score halves' and keys' terms, da_src, da_dst, and the
 * projections' backward (dW partials per source chunk; the input's gradient through dropout and
 * the previous layer's ELU, or layer 0's stored dz). Race-free: row j and chunk c only. */
#include "fused_drop.h"

/* The input's gradient d (fin; the identity residual's share on entry) += W dz_j, times the
 * shared mask's factors and the previous ELU's derivative; dW += x_d_j dz_j */
INLINE void dense_backward_shared(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j,
                                  const V8 *const *gp, int np, gat_real *dW0, gat_real *d, int H,
                                  gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H, fin = (size_t)l->fin;
    const gat_real *xj = l->xin + (size_t)j * fin;
    const uint8_t *kb = l->xkeep + (size_t)j * ((fin + 7) / 8);
    const gat_real sc = l->in.on ? l->in.scale : 1;
    const int id = b->identity;
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
}

/* head_drop (no identity residual): d (fin, zero on entry) = sum_h (W_h dz_jh) times head h's
 * factors of each element, times the previous ELU's derivative; dW_h += x_d^h_j dz_jh */
INLINE void dense_backward_heads(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j,
                                 const V8 *const *gp, int np, gat_real *dW0, gat_real *d, int H,
                                 gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H, fin = (size_t)l->fin;
    const gat_real *xj = l->xin + (size_t)j * fin;
    const uint8_t *kb = l->xkeep + (size_t)j * fin * (size_t)AB;
    V8 m[GAT_I_MAX_HEADS]; /* P <= H lane patterns */
    for (size_t c = 0; c < fin; c++) {
        const uint8_t *kc = kb + c * (size_t)AB;
        const gat_real y = xj[c];
        for (int q = 0; q < P; q++)
            m[q] = keep_pat(l, kc, H, q, l->in.scale);
        gat_real dx = d[c];
        for (int p = 0; p < np; p++)
            for (size_t e = 0; e < hw; e++)
                dx += m[(e / 8) % (size_t)P][e % 8] * gp[p][e / 8][e % 8] * b->Wt[p][e * fin + c];
        d[c] = dx * (y > 0 ? 1 : y + 1);
        for (int p = 0; p < np; p++) {
            gat_real *w = dW0 + ((size_t)p * fin + c) * hw;
            FOR_V(v, vq, NV, P)
                st(w + 8 * v, ld(w + 8 * v) + y * m[vq] * gp[p][v]);
        }
    }
}

/* l > 0, source row j with dz_j in acc: dW += x_d_j dz_j and the input's gradient
 * dx = W dz_j (from the transpose Wt), back through dropout and the previous layer's ELU
 * (derivative y + 1 below zero, from its output y), stored in the previous layer's (Fp, H). */
INLINE void proj_dense_backward(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j,
                                const V8 *const *gp, int np, gat_real *dW0, gat_real *d, int H,
                                gat_idx Fp)
{
    const size_t fin = (size_t)l->fin;
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
    if (l->in.on && l->head_drop)
        dense_backward_heads(l, b, j, gp, np, dW0, d, H, Fp);
    else
        dense_backward_shared(l, b, j, gp, np, dW0, d, H, Fp);
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

/* A sources-pass row's scratch, from the thread's pool (WITH_SCRATCH): rows of NV vectors, (P)
 * vectors of per-head lanes and (H) per-head values. */
typedef struct src_scratch {
    V8 *acc;       /* (NV) dz_j, the gradient of z_j */
    V8 *W;         /* (P) an edge's alpha'_ij per lane */
    V8 *ES;        /* (P) gat, H a multiple of 8: ds_src_j, summed over the edges */
    V8 *das, *dad; /* (NV) the chunk's da_src, da_dst */
    V8 *K;         /* (NV) the score's key terms of dz_j, or k_j's gradient (a key projection) */
    V8 *DQ;        /* (NV) per edge its head sums d alpha'_ij (T), then q_j's gradient */
    V8 *RS;        /* (NV) the residual's gradient */
    gat_real *w;   /* (H) an edge's alpha'_ij (any H) */
    gat_real *dss; /* (H) ds_src_j */
    gat_real *gq;  /* (H) cosine: the core's gradient scaled by the norms */
    gat_real *rs;  /* (H) the key's per-head sums (cosine, gaussian) */
    gat_real *gd;  /* (H) an edge's score gradient */
    gat_real *xd;  /* (fin) proj_dense_backward's input gradient row */
} src_scratch;

/* What the projections' backward does with a source row's gradients dz_j */
typedef enum src_proj {
    PROJ_DENSE,     /* l > 0: dW partials and the input's gradient (proj_dense_backward) */
    PROJ_STORE_DZ,  /* layer 0: stored in b->dz for gat_i_fused_ops.dw_sparse */
    PROJ_SPARSE_DW, /* layer 0: dW partials from x's row, here */
} src_proj;
INLINE src_proj src_proj_of(const gat_i_fl *l, const gat_i_fbw *b)
{
    return l->xin ? PROJ_DENSE : b->dz ? PROJ_STORE_DZ : PROJ_SPARSE_DW;
}

/* Prefetch for out-edge p: a row without gradient is not read (nor its edge's stored values):
 * its flag is fetched AHEAD edges before the row is */
INLINE void src_prefetch(const gat_i_fl *l, const gat_i_fbw *b, gat_idx p, alpha_src src, int H,
                         int Sc)
{
    const gat_graph *g = l->g;
    const int AB = (H + 7) / 8;
    const gat_idx ia = g->t_col[p + AHEAD];
    const size_t ka = (size_t)g->t_edge[p + AHEAD];
    if (l->prefetch) { /* the node rows: only where they outgrow the caches */
        if (p + 2 * AHEAD < g->nnz)
            __builtin_prefetch(b->active + g->t_col[p + 2 * AHEAD], 0, 3);
        if (!b->active[ia]) return;
        prefetch_row(b->dy + (size_t)ia * b->dy_stride, b->dy_stride);
    } else if (!b->active[ia]) {
        return;
    }
    if (src == ALPHA_STORED) {
        __builtin_prefetch(l->alpha + ka * H, 0, 3);
        if (Sc == GAT_SCORE_GAT) __builtin_prefetch(l->pos + ka * AB, 0, 3);
        /* the stored keep flags, where src_edge8/src_edge1 read them */
        if (l->att.on && l->akeep && (H % 8 || !l->prefetch))
            __builtin_prefetch(l->akeep + ka * AB, 0, 3);
    }
}

/* H a multiple of 8, out-edge p (edge k) of source row j to active target i with record hdi,
 * T its d alpha'_ij head sums: t->W = alpha'_ij, and the edge's score gradient from d alpha' and
 * row i's softmax term: ds_src summed into t->ES (gat) or into t->gd (the others) */
INLINE void src_edge8(const gat_i_fl *l, gat_idx j, gat_idx p, size_t k, const gat_real *hdi,
                      const V8 *T, alpha_src src, const src_scratch *t, int H, int Sc)
{
    const int P = vper(H), AB = (H + 7) / 8;
    const gat_real as = l->att.on ? l->att.scale : 1, *doti = hdi + 3 * H;
    for (int q = 0; q < P; q++) {
        V8 a;
        VI pm = (VI){0};
        if (src == ALPHA_RECOMPUTED) {
            const V8 e = ld(hdi + 2 * H + 8 * q) + ld(l->s_src + (size_t)j * H + 8 * q);
            pm = e > 0;
            a = alpha8_of(e, hdi, hdi + H, l->slope, q);
        } else {
            a = ld(l->alpha + k * H + 8 * q);
            if (Sc == GAT_SCORE_GAT) pm = expand(l->pos[k * AB + q]);
        }
        /* large graphs: the keep flags are recomputed (two hashes), cheaper than one more
         * random cache line per edge; so is any layer that does not store them */
        const V8 km = !l->att.on ? bc(1)
                      : l->prefetch || !l->akeep
                          ? (V8)((VI)bc(as) & keep8(&l->att, tkey_of(l, p, k) * H + 8 * (size_t)q))
                          : keep_pat(l, l->akeep + k * AB, H, q, as);
        t->W[q] = a * km;
        const V8 de = a * ((l->att.on ? T[q] * km : T[q]) - ld(doti + 8 * q));
        if (Sc == GAT_SCORE_GAT)
            t->ES[q] += de * sel(pm, bc(1), bc(l->slope));
        else
            st(t->gd + 8 * q, de);
    }
}

/* The same for any H, one head at a time (ds_src into t->dss); *blk, *hv: keep1's hash */
INLINE void src_edge1(const gat_i_fl *l, gat_idx j, gat_idx p, size_t k, const gat_real *hdi,
                      const V8 *T, alpha_src src, const src_scratch *t, uint64_t *blk, uint64_t *hv,
                      int H, int Sc)
{
    const int P = vper(H), AB = (H + 7) / 8;
    const gat_real as = l->att.on ? l->att.scale : 1, *doti = hdi + 3 * H;
    gat_real *gd = t->gd, *w = t->w;
    fold(l, T, H, gd);
    for (int h = 0; h < H; h++) {
        gat_real a;
        unsigned pb = 0;
        if (src == ALPHA_RECOMPUTED) {
            const gat_real e = hdi[2 * H + h] + l->s_src[(size_t)j * H + h];
            pb = e > 0;
            a = alpha1_of(e, hdi[h], hdi[H + h], l->slope);
        } else {
            a = l->alpha[k * H + h];
            if (Sc == GAT_SCORE_GAT) pb = bit_of(l->pos + k * AB, h);
        }
        const unsigned kept =
            !l->att.on || (l->akeep ? bit_of(l->akeep + k * AB, h)
                                    : keep1(&l->att, tkey_of(l, p, k) * H + (uint64_t)h, blk, hv));
        w[h] = !l->att.on ? a : sel1((int)kept, a * as, 0);
        const gat_real de = a * ((!l->att.on ? gd[h] : sel1((int)kept, gd[h] * as, 0)) - doti[h]);
        if (Sc == GAT_SCORE_GAT)
            t->dss[h] += de * sel1((int)pb, 1, l->slope);
        else
            gd[h] = de;
    }
    for (int q = 0; q < P; q++)
        t->W[q] = pat(l, w, H, q);
}

/* Scores other than gat, edge k from source j to target i, t->gd its score gradient: the score's
 * per-head transform (family_backward_row), then the key k_j's share of the gradient from q_i
 * and the core's gradient into t->K, and the key's per-head sums into t->rs */
INLINE void src_family_key(const gat_i_fl *l, gat_idx i, gat_idx j, size_t k, const src_scratch *t,
                           int H, gat_idx Fp, int Sc)
{
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    const gat_real *kj = l->k + (size_t)j * hw;
    gat_real *gd = t->gd, *rs = t->rs;
    for (int h = 0; h < H; h++) {
        if (Sc == GAT_SCORE_DOT || Sc == GAT_SCORE_COSINE) gd[h] *= l->coef[h];
        if (Sc == GAT_SCORE_GAUSSIAN) gd[h] = -gd[h] * l->coef[h];
    }
    const gat_real *qi = l->q + (size_t)i * hw, *gk = gd;
    if (Sc == GAT_SCORE_COSINE) {
        for (int h = 0; h < H; h++) {
            t->gq[h] = gk[h] * l->qinv[(size_t)i * H + h] * l->qinv[(size_t)j * H + h];
            rs[h] += gk[h] * l->esc[k * H + h];
        }
        gk = t->gq;
    }
    if (Sc == GAT_SCORE_GAUSSIAN)
        for (int h = 0; h < H; h++)
            rs[h] += gk[h];
    const gat_real *xe = Sc == GAT_SCORE_GATV2 && l->D ? l->ex + k * (size_t)l->D : NULL;
    FOR_V(v, vq, NV, P) {
        const V8 G = pat(l, gk, H, vq), qv = ld(qi + 8 * v);
        if (Sc == GAT_SCORE_GATV2) {
            const V8 e = xe ? qv + ld(kj + 8 * v) + edge_v(l, xe, hw, v) : qv + ld(kj + 8 * v);
            t->K[v] += G * ld(l->att_w + 8 * v) * sel(e > 0, bc(1), bc(l->slope));
        } else if (Sc == GAT_SCORE_GAUSSIAN) {
            t->K[v] -= 2 * G * qv;
        } else {
            t->K[v] += G * qv;
        }
    }
}

/* Out-edge p of source row j, to row i = t_col[p] with a gradient: its term of dz_j's
 * aggregation sum_i alpha'_ij dy_i (into t->acc), of ds_src_j (gat) or the key's (the others).
 * T: scratch for the edge's head sums; zr: z_j as the aggregation read it; *blk, *hv: keep1's
 * hash. */
INLINE void src_edge(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j, gat_idx p, alpha_src src,
                     const src_scratch *t, V8 *T, const gat_real *zr, uint64_t *blk, uint64_t *hv,
                     int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const gat_idx i = g->t_col[p];
    const gat_real *hdi = b->dy + (size_t)i * b->dy_stride; /* its record */
    const size_t k = (size_t)g->t_edge[p];
    const gat_real *dyi = hdi + GAT_I_DY_HEAD(H);
    /* d alpha'_ij = dy_i . z_j per head (as the targets pass computed it), then the edge's score
     * gradient from it: recomputed here rather than stored per edge by the targets pass */
    for (int q = 0; q < P; q++)
        T[q] = bc(0);
    FOR_V(v, vq, NV, P)
        T[vq] += ld(dyi + 8 * v) * ld(zr + 8 * v);
    if (H % 8 == 0)
        src_edge8(l, j, p, k, hdi, T, src, t, H, Sc);
    else
        src_edge1(l, j, p, k, hdi, T, src, t, blk, hv, H, Sc);
    FOR_V(v, vq, NV, P)
        t->acc[v] += t->W[vq] * ld(dyi + 8 * v);
    if (Sc != GAT_SCORE_GAT) src_family_key(l, i, j, k, t, H, Fp, Sc);
}

/* Out-edges listed at a time by src_edges (a stack array) */
#define SRC_BLOCK 64

/* Source row j's out-edges to rows with a gradient: dz_j's aggregation term sum_i alpha'_ij dy_i
 * into t->acc, ds_src_j (gat) or the key's terms (the others). The edges are listed SRC_BLOCK at
 * a time without a branch and then run: which rows have a gradient is data (an output layer's
 * training rows), and a branch on it per edge is mispredicted about as often as they alternate.
 * The order of the edges, and so every sum, is the same. */
INLINE void src_edges(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j, alpha_src src,
                      const src_scratch *t, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const size_t hw = (size_t)Fp * H;
    const gat_real *zr = zagg_of(l) + (size_t)j * hw; /* what the aggregation read */
    V8 *T = t->DQ; /* per-edge head sums; DQ is set only after a row's edges */
    uint64_t hv = 0, blk = UINT64_MAX;
    const gat_idx end = g->t_rowptr[j + 1];
    gat_idx list[SRC_BLOCK];
    for (gat_idx p0 = g->t_rowptr[j]; p0 < end; p0 += SRC_BLOCK) {
        const gat_idx p1 = end - p0 < SRC_BLOCK ? end : p0 + SRC_BLOCK;
        int n = 0;
        for (gat_idx p = p0; p < p1; p++) {
            if (l->prefetch_edges && p + AHEAD < g->nnz) src_prefetch(l, b, p, src, H, Sc);
            list[n] = p;
            n += b->active[g->t_col[p]] != 0;
        }
        for (int u = 0; u < n; u++)
            src_edge(l, b, j, list[u], src, t, T, zr, &blk, &hv, H, Fp, Sc);
    }
}

/* gat, after row j's edges: dz_j += ds_src_j a_src + ds_dst_j a_dst (the score halves), and
 * the chunk's da_src, da_dst (whole: sum over the heads h of ds_src_jh a_src[h] + ds_dst_jh
 * a_dst[h], and the chunk's da_src[h], da_dst[h] added in ps, its partials) */
INLINE void src_gat_halves(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j, const src_scratch *t,
                           gat_real *ps, int H, gat_idx Fp)
{
    /* a remote row's target-side terms (ds_dst): zero */
    static const gat_real zero_h[GAT_I_MAX_HEADS] = {0};
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    if (H % 8 == 0)
        for (int q = 0; q < P; q++)
            st(t->dss + 8 * q, t->ES[q]);
    const gat_real *zj = l->z + (size_t)j * hw,
                   *dsd = j < b->n_own ? b->ds_dst + (size_t)j * H : zero_h;
    if (l->whole) {
        const size_t aw = (size_t)H * hw;
        for (int h = 0; h < H; h++) {
            if (t->dss[h] == 0 && dsd[h] == 0) continue;
            const V8 es = bc(t->dss[h]), ed = bc(dsd[h]);
            const gat_real *as = l->a_src + (size_t)h * hw, *ad = l->a_dst + (size_t)h * hw;
            gat_real *gs = ps + (size_t)h * hw, *gd = ps + aw + (size_t)h * hw;
            for (int v = 0; v < NV; v++) {
                const V8 zv = ld(zj + 8 * v);
                t->acc[v] += es * ld(as + 8 * v) + ed * ld(ad + 8 * v);
                st(gs + 8 * v, ld(gs + 8 * v) + es * zv);
                st(gd + 8 * v, ld(gd + 8 * v) + ed * zv);
            }
        }
        return;
    }
    FOR_V(v, vq, NV, P) {
        const V8 es = pat(l, t->dss, H, vq), ed = pat(l, dsd, H, vq), zv = ld(zj + 8 * v);
        t->acc[v] += es * ld(l->a_src + 8 * v) + ed * ld(l->a_dst + 8 * v);
        t->das[v] += es * zv;
        t->dad[v] += ed * zv;
    }
}

/* The other scores, after row j's edges: the key's per-head terms, then the projections'
 * gradients: z (values, and queries and keys where they are z), the separate query and key
 * projections (nsc of them in all) */
INLINE void src_family_row(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j, int nsc,
                           const src_scratch *t, int H, gat_idx Fp, int Sc)
{
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    const gat_real *kj = l->k + (size_t)j * hw;
    gat_real *rs = t->rs;
    V8 *acc = t->acc, *K = t->K;
    if (Sc == GAT_SCORE_COSINE)
        for (int h = 0; h < H; h++) {
            const gat_real kv = l->qinv[(size_t)j * H + h];
            rs[h] *= -kv * kv;
        }
    if (Sc == GAT_SCORE_GAUSSIAN)
        for (int h = 0; h < H; h++)
            rs[h] *= 2;
    if (Sc == GAT_SCORE_COSINE || Sc == GAT_SCORE_GAUSSIAN)
        FOR_V(v, vq, NV, P)
            K[v] += pat(l, rs, H, vq) * ld(kj + 8 * v);
    const int own = j < b->n_own;
    const gat_real *dqj = b->dq + (size_t)j * hw;
    for (int v = 0; v < NV; v++) {
        const V8 dq = own ? ld(dqj + 8 * v) : bc(0);
        if (nsc == 1) acc[v] += K[v] + dq;
        if (nsc == 2) acc[v] += K[v], K[v] = dq;
        if (nsc == 3) t->DQ[v] = dq;
    }
}

/* Row j's projection gradients gp[0 .. np - 1] (acc = dz_j, then q, k, the residual's): stored
 * for their owner (a remote row), or other bindings' shares added and back through the
 * projections as mode says; nothing to add for a zero row (no out-edge to a row with a
 * gradient, and ds_dst_j = 0). */
/* Layer 0, head_drop: dW partials from x's row j, each entry's value times the lane factors of
 * its head bits */
INLINE void src_sparse_heads(const gat_i_fl *l, gat_idx j, const V8 *const *gp, int np,
                             gat_real *dW, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_csr *x = l->x;
    const size_t pstride = (size_t)x->cols * hw;
    V8 m[GAT_I_MAX_HEADS]; /* P <= H lane patterns */
    for (gat_idx q = x->rowptr[j]; q < x->rowptr[j + 1]; q++) {
        for (int u = 0; u < P; u++)
            m[u] = keep_pat(l, l->xkeep + (size_t)q * (size_t)AB, H, u, x->val[q] * l->in.scale);
        for (int p = 0; p < np; p++) {
            gat_real *wr = dW + p * pstride + (size_t)x->col[q] * hw;
            FOR_V(v, vq, NV, P)
                st(wr + 8 * v, ld(wr + 8 * v) + m[vq] * gp[p][v]);
        }
    }
}

INLINE void src_proj_backward(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j, src_proj mode,
                              const V8 *const *gp, int np, int nsc, gat_real *dW,
                              const src_scratch *t, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H;
    if (b->remote) { /* the owner back-propagates them */
        store_row(b->rz + (size_t)j * hw, t->acc, NV);
        if (nsc == 3) store_row(b->rk + (size_t)j * hw, t->K, NV);
        return;
    }
    if (b->add_ptr) /* other bindings' shares, in slot order */
        for (gat_idx s = b->add_ptr[j]; s < b->add_ptr[j + 1]; s++) {
            const gat_real *az = b->add_z + (size_t)b->add_slot[s] * hw;
            for (int v = 0; v < NV; v++)
                t->acc[v] += ld(az + 8 * v);
            if (nsc == 3) {
                const gat_real *ak = b->add_k + (size_t)b->add_slot[s] * hw;
                for (int v = 0; v < NV; v++)
                    t->K[v] += ld(ak + 8 * v);
            }
        }
    V8 any = bc(0);
    for (int p = 0; p < np; p++)
        for (int v = 0; v < NV; v++)
            any += gp[p][v] * gp[p][v];
    if (hsum(any) == 0) {
        if (mode == PROJ_DENSE) {
            const size_t pw = (size_t)b->prev_Fp * b->prev_H;
            memset(b->dy_prev + (size_t)j * b->prev_stride + GAT_I_DY_HEAD(b->prev_H), 0,
                   pw * sizeof(gat_real));
        } else if (mode == PROJ_STORE_DZ) {
            b->dz_nonzero[j] = 0;
        }
        return;
    }
    if (mode == PROJ_DENSE) {
        proj_dense_backward(l, b, j, gp, np, dW, t->xd, H, Fp);
    } else if (mode == PROJ_STORE_DZ) {
        b->dz_nonzero[j] = 1;
        for (int p = 0; p < np; p++)
            store_row(b->dz + ((size_t)p * (size_t)b->n_own + (size_t)j) * hw, gp[p], NV);
    } else {
        const gat_csr *x = l->x;
        const size_t pstride = (size_t)x->cols * hw;
        if (l->in.on && l->head_drop) {
            src_sparse_heads(l, j, gp, np, dW, H, Fp);
            return;
        }
        for (gat_idx q = x->rowptr[j]; q < x->rowptr[j + 1]; q++) {
            const gat_real xv = !l->in.on ? x->val[q] : l->xkeep[q] ? x->val[q] * l->in.scale : 0;
            for (int p = 0; p < np; p++) {
                gat_real *wr = dW + p * pstride + (size_t)x->col[q] * hw;
                for (int v = 0; v < NV; v++)
                    st(wr + 8 * v, ld(wr + 8 * v) + xv * gp[p][v]);
            }
        }
    }
}

/* Source rows r0 .. r1 - 1 of chunk c: per row j, dz_j = sum over j's out-edges of alpha'_ij
 * dy_i (aggregation) + ds_src_j a_src + ds_dst_j a_dst (score halves), or the other scores'
 * key and query terms; then the projection's backward; and the chunk's da_src, da_dst. Only
 * row j of dz / dy_prev and chunk c's partial sums are written: race-free. */
INLINE void bwd_source_rows(const gat_i_fl *l, const gat_i_fbw *b, int c, gat_idx r0, gat_idx r1,
                            const src_scratch *t, int H, gat_idx Fp, int Sc)
{
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    gat_real *ps = b->ps + (size_t)(b->c0 + c) * b->ps_stride;
    gat_real *dW = ps + 2 * gat_i_fused_aw(l->whole, H, (gat_idx)hw);
    /* gat without stored coefficients, signs or keeps: each edge's from row i's node terms */
    const alpha_src src = alpha_src_of(l, Sc);
    const src_proj mode = src_proj_of(l, b);
    for (int v = 0; v < NV; v++)
        t->das[v] = t->dad[v] = bc(0);
    memset(ps, 0, b->ps_stride * sizeof *ps);

    /* the projections' gradients: z, then the score's q and k, then the residual's */
    const int nsc = b->nproj - (b->res ? 1 : 0);
    const V8 *gp[4];
    int np = 0;
    gp[np++] = t->acc;
    if (nsc == 2) gp[np++] = t->K;
    if (nsc == 3) gp[np++] = t->DQ, gp[np++] = t->K;
    if (b->res) gp[np++] = t->RS;
    for (gat_idx j = r0; j < r1; j++) {
        for (int v = 0; v < NV; v++)
            t->acc[v] = bc(0), t->K[v] = bc(0);
        for (int q = 0; q < P; q++)
            t->ES[q] = bc(0);
        for (int h = 0; h < H; h++)
            t->dss[h] = 0, t->rs[h] = 0;
        src_edges(l, b, j, src, t, H, Fp, Sc);
        if (l->pdrop.on) /* the aggregation read zd_j: its gradient reaches z_j kept / (1 - p) */
            for (int v = 0; v < NV; v++)
                t->acc[v] *= zkeep_factor(l, j, NV, v);
        if (Sc == GAT_SCORE_GAT)
            src_gat_halves(l, b, j, t, ps, H, Fp);
        else
            src_family_row(l, b, j, nsc, t, H, Fp, Sc);
        /* the residual's gradient is row j's own pre-activation gradient */
        if (b->res)
            for (int v = 0; v < NV; v++)
                t->RS[v] = j < b->n_own
                               ? ld(b->dy + (size_t)j * b->dy_stride + GAT_I_DY_HEAD(H) + 8 * v)
                               : bc(0);
        src_proj_backward(l, b, j, mode, gp, np, nsc, dW, t, H, Fp);
    }
    if (Sc == GAT_SCORE_GAT && !l->whole)
        for (int v = 0; v < NV; v++)
            st(ps + 8 * v, t->das[v]), st(ps + hw + 8 * v, t->dad[v]);
}

/* The sources pass's named parts of the thread's scratch pool s_ */
#define SOURCE_ROWS                                                                                \
    do {                                                                                           \
        const src_scratch t_ = {.acc = s_.acc,                                                     \
                                .W = s_.S,                                                         \
                                .ES = s_.D,                                                        \
                                .das = s_.E,                                                       \
                                .dad = s_.F,                                                       \
                                .K = s_.K,                                                         \
                                .DQ = s_.G,                                                        \
                                .RS = s_.dy,                                                       \
                                .w = s_.h1,                                                        \
                                .dss = s_.h2,                                                      \
                                .gq = s_.h3,                                                       \
                                .rs = s_.h4,                                                       \
                                .gd = s_.h5,                                                       \
                                .xd = s_.xd};                                                      \
        bwd_source_rows(l, b, c, r0, r1, &t_, Hc, Fc, Sc);                                         \
    } while (0)

void FN(gat_i_fused_att_backward_sources)(const gat_i_fl *l, const gat_i_fbw *b)
{
    const int nt = l->nt;
    FOR_CHUNKS(l->sc, nt, SCORES(l->score, SCORE_SHAPES(l->H, l->Fp, WITH_SCRATCH(SOURCE_ROWS))));
}
