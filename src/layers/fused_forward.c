/* The attention forward of the fused kernels (fused.h; Velickovic et al. 2018, eq. 1-4, with
 * dropout): per target i, e_ij = LeakyReLU(s_dst_i + s_src_j (+ the edge term x_ij M, PyG's
 * GATConv(edge_dim))) or another score of the family, alpha = softmax (max subtracted),
 * out_i = act(sum_j dropout(alpha_ij) z_j + b); and alpha recomputed where it is not stored. */
#include "fused_drop.h"

/* ---- attention forward: one pass per target row ---- */

/* The scores of the other scores' family, e = s(q_i, k_j) per head (tests/ref/scores.h), into
 * alpha's slots, and the row maxima mx (H) and M. Q: scratch for q_i; e: (H) scratch. */
INLINE void family_scores(const gat_i_fl *l, gat_idx i, V8 *Q, V8 *M, V8 *S, gat_real *mx,
                          gat_real *e, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const gat_real slope = l->slope;
    gat_real *al = l->alpha;
    for (int v = 0; v < NV; v++)
        Q[v] = ld(l->q + (size_t)i * hw + 8 * v);
    for (int h = 0; h < H; h++)
        mx[h] = -INFINITY;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_idx j = g->col[k];
        const gat_real *kj = l->k + (size_t)j * hw;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(l->k + (size_t)g->col[k + AHEAD] * hw, hw);
        const gat_real *xe = Sc == GAT_SCORE_GATV2 && l->D ? l->ex + (size_t)k * l->D : NULL;
        for (int q = 0; q < P; q++)
            S[q] = bc(0);
        FOR_V(v, vq, NV, P) {
            const V8 kv = ld(kj + 8 * v);
            if (Sc == GAT_SCORE_GAUSSIAN) {
                const V8 d = Q[v] - kv;
                S[vq] += d * d;
            } else if (Sc == GAT_SCORE_GATV2) {
                const V8 t = xe ? Q[v] + kv + edge_v(l, xe, hw, v) : Q[v] + kv;
                S[vq] += ld(l->att_w + 8 * v) * sel(t > 0, t, t * slope);
            } else {
                S[vq] += Q[v] * kv;
            }
        }
        fold(l, S, H, e);
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)(k - l->e0) * H + h;
            gat_real t = e[h];
            if (Sc == GAT_SCORE_DOT) t *= l->coef[h];
            if (Sc == GAT_SCORE_COSINE) {
                t *= l->qinv[(size_t)i * H + h] * l->qinv[(size_t)j * H + h];
                l->esc[kh] = t;
                t *= l->coef[h];
            }
            if (Sc == GAT_SCORE_GAUSSIAN) {
                l->esc[kh] = t;
                t = -l->coef[h] * t;
            }
            al[kh] = t;
            mx[h] = t > mx[h] ? t : mx[h];
        }
    }
    for (int q = 0; q < P; q++)
        M[q] = pat(l, mx, H, q);
}

/* A row of NV vectors at p that is read again only in the backward: with stream (a large graph,
 * whose caches will not hold it until then) stored past the caches where the build can and p is
 * 32-byte aligned (the caller then fences), else stored. */
INLINE void put_row(gat_real *p, const V8 *v, int NV, int stream)
{
#ifdef HAVE_AVX
    if (stream && !((uintptr_t)p & 31)) {
        for (int k = 0; k < NV; k++)
            _mm256_stream_ps(p + 8 * k, (__m256)v[k]);
        return;
    }
#endif
    (void)stream;
    for (int k = 0; k < NV; k++)
        st(p + 8 * k, v[k]);
}

/* A forward row's scratch, from the thread's pool (WITH_SCRATCH): rows of NV vectors, (P)
 * vectors of per-head lanes and (H) per-head values. */
typedef struct fwd_scratch {
    V8 *acc; /* (NV) sum_j alpha'_ij z_j (the family's scores first hold q_i there) */
    V8 *A2;  /* (NV) sum_j alpha'_ij f_ij z_j (gat_i_fl.agg2) */
    V8 *M;   /* (P) the row maxima, then the inverses of the row sums */
    V8 *S;   /* (P) exponential sums, then one edge's factors alpha'_ij */
    V8 *S2;  /* (P) one edge's alpha'_ij f_ij */
    V8 *SG;  /* (P) sum_j alpha_ij f_ij (gat_i_fl.asig) */
    gat_real *mx, *sum, *w, *w2, *sg; /* (H): mx, 1 / sum, an edge's factors, sg as above */
} fwd_scratch;

/* Per-edge arrays of row i (its (k - k0, h) values): al the scores and then the coefficients
 * (in l->alpha, or in the thread's row scratch when alpha is not kept: gat only, the backward
 * recomputes it from soft), and the sign and keep bits where they are stored. */
typedef struct fwd_edges {
    gat_real *al;
    uint8_t *pos, *keep;
    int store_pos, store_keep; /* the bit rows are kept (gat_i_fl.pos, akeep) */
} fwd_edges;

/* gat, H a multiple of 8: e = LeakyReLU(s_dst_i + s_src_j + sum_d x_ij[d] M[d, h]) into the
 * row's slots, their signs (where kept), the row maxima M and mx (l->ex read only when D > 0) */
INLINE void gat_scores8(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1, const fwd_edges *ed,
                        const fwd_scratch *t, int H)
{
    const gat_graph *g = l->g;
    const int P = vper(H), AB = (H + 7) / 8;
    const gat_real slope = l->slope;
    const gat_real *sd = l->s_dst + (size_t)i * H;
    V8 *M = t->M;
    for (int q = 0; q < P; q++)
        M[q] = bc(-INFINITY);
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *ss = l->s_src + (size_t)g->col[k] * H;
        if (l->prefetch && k + AHEAD < g->nnz)
            __builtin_prefetch(l->s_src + (size_t)g->col[k + AHEAD] * H, 0, 3);
        const gat_real *xe = l->D ? l->ex + (size_t)k * (size_t)l->D : NULL;
        for (int q = 0; q < P; q++) {
            V8 e = ld(sd + 8 * q) + ld(ss + 8 * q);
            for (gat_idx d = 0; d < l->D; d++) /* the edge term: sum_d x_e[d] M[d, h] */
                e += bc(xe[d]) * ld(l->em + (size_t)d * H + 8 * q);
            const VI pos = e > 0;
            if (ed->store_pos) ed->pos[(size_t)(k - k0) * AB + q] = (uint8_t)movemask(pos);
            e = sel(pos, e, e * slope);
            st(ed->al + (size_t)(k - k0) * H + 8 * q, e);
            M[q] = sel(e > M[q], e, M[q]);
        }
    }
    for (int q = 0; q < P; q++)
        st(t->mx + 8 * q, M[q]);
}

/* The same for any H, one head at a time */
INLINE void gat_scores1(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1, const fwd_edges *ed,
                        const fwd_scratch *t, int H)
{
    const gat_graph *g = l->g;
    const int P = vper(H), AB = (H + 7) / 8;
    const gat_real slope = l->slope;
    const gat_real *sd = l->s_dst + (size_t)i * H;
    gat_real *mx = t->mx, *al = ed->al;
    for (int h = 0; h < H; h++)
        mx[h] = -INFINITY;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *ss = l->s_src + (size_t)g->col[k] * H;
        if (l->prefetch && k + AHEAD < g->nnz)
            __builtin_prefetch(l->s_src + (size_t)g->col[k + AHEAD] * H, 0, 3);
        uint8_t *pb = ed->store_pos ? ed->pos + (size_t)(k - k0) * AB : NULL;
        const gat_real *xe = l->D ? l->ex + (size_t)k * (size_t)l->D : NULL;
        unsigned bits = 0;
        for (int h = 0; h < H; h++) {
            gat_real e = sd[h] + ss[h];
            for (gat_idx d = 0; d < l->D; d++)
                e += xe[d] * l->em[(size_t)d * H + h];
            bits |= (unsigned)(e > 0) << (h & 7);
            if (ed->store_pos && ((h & 7) == 7 || h == H - 1)) pb[h >> 3] = (uint8_t)bits, bits = 0;
            e = sel1(e > 0, e, slope * e);
            al[(size_t)(k - k0) * H + h] = e;
            mx[h] = e > mx[h] ? e : mx[h];
        }
    }
    for (int q = 0; q < P; q++)
        t->M[q] = pat(l, mx, H, q);
}

/* gat, one head: gat_scores1's values eight edges at a time (the row's scores are contiguous
 * then), the row maximum reduced from the lanes' */
INLINE void gat_scores_one(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1,
                           const fwd_edges *ed, const fwd_scratch *t)
{
    const gat_graph *g = l->g;
    const gat_real slope = l->slope, sd = l->s_dst[i];
    gat_real *al = ed->al;
    V8 M = bc(-INFINITY);
    gat_idx k = k0;
    for (; k + 8 <= k1; k += 8) {
        const gat_idx *col = g->col + k;
        V8 e;
        for (int c = 0; c < 8; c++)
            e[c] = l->s_src[col[c]];
        if (l->prefetch && k + AHEAD + 8 <= g->nnz)
            for (int c = 0; c < 8; c++)
                __builtin_prefetch(l->s_src + col[AHEAD + c], 0, 3);
        e = bc(sd) + e;
        for (gat_idx d = 0; d < l->D; d++) { /* the edge term, in gat_scores1's order */
            V8 x;
            for (int c = 0; c < 8; c++)
                x[c] = l->ex[(size_t)(k + c) * (size_t)l->D + (size_t)d];
            e += x * bc(l->em[d]);
        }
        const VI pos = e > 0;
        if (ed->store_pos)
            for (int c = 0; c < 8; c++)
                ed->pos[k - k0 + c] = (uint8_t)(pos[c] & 1);
        e = sel(pos, e, e * slope);
        st(al + (k - k0), e);
        M = sel(e > M, e, M);
    }
    gat_real mx = -INFINITY;
    for (int c = 0; c < 8; c++)
        mx = M[c] > mx ? M[c] : mx;
    for (; k < k1; k++) {
        gat_real e = sd + l->s_src[g->col[k]];
        for (gat_idx d = 0; d < l->D; d++)
            e += l->ex[(size_t)k * (size_t)l->D + (size_t)d] * l->em[d];
        if (ed->store_pos) ed->pos[k - k0] = (uint8_t)(e > 0);
        e = sel1(e > 0, e, slope * e);
        al[k - k0] = e;
        mx = e > mx ? e : mx;
    }
    t->mx[0] = mx;
    t->M[0] = bc(mx);
}

/* The softmax's exponentials in place (the row's (k, h) values are contiguous, 8 at a time) and
 * the inverses of their sums into sum, and soft (what the backward recomputes alpha from) */
INLINE void softmax_row(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1, gat_real *al,
                        const fwd_scratch *t, int H)
{
    const int P = vper(H);
    V8 *S = t->S;
    gat_real *sum = t->sum, *mx = t->mx;
    for (int q = 0; q < P; q++)
        S[q] = bc(0);
    for (int h = 0; h < H; h++)
        sum[h] = 0;
    const size_t e1 = (size_t)(k1 - k0) * H;
    size_t e = 0;
    for (int q = 0; e + 8 <= e1; e += 8, q = q + 1 == P ? 0 : q + 1) {
        const V8 v = vexp(ld(al + e) - t->M[q]);
        st(al + e, v);
        S[q] += v;
    }
    if (e < e1) { /* H < 8 only: the row's last (k1 - k0) H mod 8 values, in one vector */
        V8 x = bc(0);
        for (size_t u = e; u < e1; u++)
            x[u - e] = al[u] - mx[u % (size_t)H];
        x = vexp(x);
        for (size_t u = e; u < e1; u++)
            al[u] = x[u - e], sum[u % (size_t)H] += x[u - e];
    }
    fold(l, S, H, t->w);
    for (int h = 0; h < H; h++)
        sum[h] = 1 / (sum[h] + t->w[h]);
    if (l->soft) {
        memcpy(l->soft + (size_t)i * 2 * H, mx, (size_t)H * sizeof *mx);
        memcpy(l->soft + (size_t)i * 2 * H + H, sum, (size_t)H * sizeof *sum);
    }
}

/* H a multiple of 8: normalise, attention dropout, weighted sum of the z_j into acc (and with
 * sums the ones the targets pass reads, the LeakyReLU's slope from the score's input
 * recomputed) */
INLINE void aggregate8(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1, const fwd_edges *ed,
                       fwd_sums sums, const fwd_scratch *t, int H, gat_idx Fp)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_real slope = l->slope;
    gat_real *al = ed->al;
    V8 *acc = t->acc, *A2 = t->A2, *M = t->M, *S = t->S, *S2 = t->S2, *SG = t->SG;
    for (int q = 0; q < P; q++)
        M[q] = ld(t->sum + 8 * q), SG[q] = bc(0); /* M: 1 / row sums now */
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *zj = zagg_of(l) + (size_t)g->col[k] * hw;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(zagg_of(l) + (size_t)g->col[k + AHEAD] * hw, hw);
        for (int q = 0; q < P; q++) {
            const size_t kh = (size_t)ekey_of(l, k) * H + 8 * q, ka = (size_t)(k - k0) * H + 8 * q;
            const V8 a = ld(al + ka) * M[q];
            st(al + ka, a);
            S[q] = a;
            if (l->att.on) {
                const VI m = keep8(&l->att, kh); /* masks by the edge's own number */
                if (ed->store_keep) ed->keep[(size_t)(k - k0) * AB + q] = (uint8_t)movemask(m);
                S[q] = a * (V8)((VI)bc(l->att.scale) & m);
            }
            if (sums == FWD_SUMS_KEEP) {
                const V8 f = sel(pre8(l, i, g->col[k], q, H) > 0, bc(1), bc(slope));
                SG[q] += a * f;
                S2[q] = S[q] * f;
            }
        }
        FOR_V(v, vq, NV, P)
            acc[v] += S[vq] * ld(zj + 8 * v);
        if (sums == FWD_SUMS_KEEP)
            FOR_V(v, vq, NV, P)
                A2[v] += S2[vq] * ld(zj + 8 * v);
    }
    if (sums == FWD_SUMS_KEEP)
        for (int q = 0; q < P; q++)
            st(t->sg + 8 * q, SG[q]);
}

/* The same for any H, one head at a time */
INLINE void aggregate1(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1, const fwd_edges *ed,
                       fwd_sums sums, const fwd_scratch *t, int H, gat_idx Fp)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_real slope = l->slope;
    gat_real *w = t->w, *w2 = t->w2, *sg = t->sg, *sum = t->sum;
    V8 *acc = t->acc, *A2 = t->A2, *S = t->S, *S2 = t->S2;
    for (int h = 0; h < H; h++)
        sg[h] = 0;
    uint64_t hv = 0, blk = UINT64_MAX;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *zj = zagg_of(l) + (size_t)g->col[k] * hw;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(zagg_of(l) + (size_t)g->col[k + AHEAD] * hw, hw);
        gat_real *a = ed->al + (size_t)(k - k0) * H;
        unsigned bits = 0;
        for (int h = 0; h < H; h++) {
            a[h] *= sum[h];
            w[h] = a[h];
            if (l->att.on) {
                const unsigned keep = keep1(&l->att, ekey_of(l, k) * H + h, &blk, &hv);
                bits |= keep << (h & 7);
                if (ed->store_keep && ((h & 7) == 7 || h == H - 1))
                    ed->keep[(size_t)(k - k0) * AB + (h >> 3)] = (uint8_t)bits, bits = 0;
                w[h] = sel1((int)keep, w[h] * l->att.scale, 0);
            }
        }
        for (int q = 0; q < P; q++)
            S[q] = pat(l, w, H, q);
        FOR_V(v, vq, NV, P)
            acc[v] += S[vq] * ld(zj + 8 * v);
        if (sums != FWD_SUMS_KEEP) continue;
        for (int h = 0; h < H; h++) {
            const gat_real f = sel1(pre1(l, i, g->col[k], h, H) > 0, 1, slope);
            sg[h] += a[h] * f;
            w2[h] = w[h] * f;
        }
        for (int q = 0; q < P; q++)
            S2[q] = pat(l, w2, H, q);
        FOR_V(v, vq, NV, P)
            A2[v] += S2[vq] * ld(zj + 8 * v);
    }
}

/* One head: aggregate1's operations eight edges at a time for the coefficients, their keeps and
 * slopes, and the sums edge by edge in its order (the same values) */
INLINE void aggregate_one(const gat_i_fl *l, gat_idx i, gat_idx k0, gat_idx k1, const fwd_edges *ed,
                          fwd_sums sums, const fwd_scratch *t, gat_idx Fp)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp / 8);
    const size_t hw = (size_t)Fp;
    const gat_real slope = l->slope, isum = t->sum[0], *za = zagg_of(l);
    gat_real *al = ed->al, sg = 0;
    V8 *acc = t->acc, *A2 = t->A2;
    uint64_t hv = 0, blk = UINT64_MAX;
    gat_idx k = k0;
    for (; k + 8 <= k1; k += 8) {
        const gat_idx *col = g->col + k;
        const V8 a = ld(al + (k - k0)) * bc(isum);
        st(al + (k - k0), a);
        V8 w = a, f = bc(1);
        if (l->att.on) {
            VI m;
            for (int c = 0; c < 8; c++)
                m[c] = -(int)keep1(&l->att, ekey_of(l, k + c), &blk, &hv);
            if (ed->store_keep)
                for (int c = 0; c < 8; c++)
                    ed->keep[k - k0 + c] = (uint8_t)(m[c] & 1);
            w = sel(m, a * bc(l->att.scale), bc(0));
        }
        if (sums == FWD_SUMS_KEEP) {
            V8 pre;
            for (int c = 0; c < 8; c++)
                pre[c] = pre1(l, i, col[c], 0, 1);
            f = sel(pre > 0, bc(1), bc(slope));
        }
        const V8 w2 = w * f;
        for (int c = 0; c < 8; c++) {
            const gat_real *zj = za + (size_t)col[c] * hw;
            if (l->prefetch && k + c + AHEAD < g->nnz)
                prefetch_row(za + (size_t)col[c + AHEAD] * hw, hw);
            for (int v = 0; v < NV; v++)
                acc[v] += bc(w[c]) * ld(zj + 8 * v);
            if (sums != FWD_SUMS_KEEP) continue;
            sg += a[c] * f[c];
            for (int v = 0; v < NV; v++)
                A2[v] += bc(w2[c]) * ld(zj + 8 * v);
        }
    }
    for (; k < k1; k++) {
        const gat_real *zj = za + (size_t)g->col[k] * hw;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(za + (size_t)g->col[k + AHEAD] * hw, hw);
        const gat_real a = al[k - k0] * isum;
        al[k - k0] = a;
        gat_real w = a;
        if (l->att.on) {
            const unsigned keep = keep1(&l->att, ekey_of(l, k), &blk, &hv);
            if (ed->store_keep) ed->keep[k - k0] = (uint8_t)keep;
            w = sel1((int)keep, a * l->att.scale, 0);
        }
        for (int v = 0; v < NV; v++)
            acc[v] += bc(w) * ld(zj + 8 * v);
        if (sums != FWD_SUMS_KEEP) continue;
        const gat_real f = sel1(pre1(l, i, g->col[k], 0, 1) > 0, 1, slope);
        sg += a * f;
        for (int v = 0; v < NV; v++)
            A2[v] += bc(w * f) * ld(zj + 8 * v);
    }
    t->sg[0] = sg;
}

/* The residual x_d R (fh layout; replicated per head on the output layer), then the epilogue in
 * the model's order: hidden ELU(acc + b) as (H, Fo) (a linear layer's acc + b); output
 * mean_h acc + b */
INLINE void fwd_epilogue(const gat_i_fl *l, gat_idx i, V8 *acc, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H;
    if (l->res)
        for (int v = 0; v < NV; v++)
            acc[v] += ld(l->res + (size_t)i * hw + 8 * v);
    const gat_idx Fo = H % 8 == 0 ? Fp : l->Fo;
    if (!l->mean) {
        gat_real *o = l->out + (size_t)i * H * Fo;
        fh_to_model(acc, o, H, Fp, Fo);
        const gat_idx n = H * Fo;
        gat_idx c = 0;
        if (l->linear) {
            for (; c + 8 <= n; c += 8)
                st(o + c, ld(o + c) + ld(l->b + c));
            for (; c < n; c++)
                o[c] += l->b[c];
            return;
        }
        for (; c + 8 <= n; c += 8)
            st(o + c, velu(ld(o + c) + ld(l->b + c)));
        for (; c < n; c++)
            o[c] = elu1(o[c] + l->b[c]);
    } else {
        gat_real *o = l->out + (size_t)i * Fo;
        const gat_real invh = (gat_real)1 / H;
        for (gat_idx f = 0; f < Fo; f++) {
            gat_real s = 0;
            for (int h = 0; h < H; h++)
                s += acc[((size_t)f * H + h) / 8][((size_t)f * H + h) % 8];
            o[f] = (H == 1 ? s : s * invh) + l->b[f];
        }
    }
}

/* Target row i: scores, softmax, attention dropout, weighted sum, epilogue (out_i), and what the
 * layer keeps of the row for the backward (alpha, pos, akeep, soft, agg, agg2, asig) */
INLINE void fwd_row(const gat_i_fl *l, gat_idx i, const fwd_scratch *t, int H, gat_idx Fp, int Sc)
{
    const int NV = (int)(Fp * H / 8), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_idx k0 = l->g->rowptr[i], k1 = l->g->rowptr[i + 1];
    const size_t r0 = (size_t)(k0 - l->e0); /* per-edge arrays hold edges e0.. (gat_i_fl.e0) */
    const fwd_edges ed = {
        .al = alpha_src_of(l, Sc) == ALPHA_STORED ? l->alpha + r0 * H
                                                  : l->arow + (size_t)thread_num() * l->arow_stride,
        .pos = l->pos ? l->pos + r0 * AB : NULL,
        .keep = l->akeep ? l->akeep + r0 * AB : NULL,
        .store_pos = l->pos != NULL,
        .store_keep = l->akeep != NULL,
    };
    const fwd_sums sums = fwd_sums_of(l, Sc);

    if (Sc != GAT_SCORE_GAT)
        family_scores(l, i, t->acc, t->M, t->S, t->mx, t->w, H, Fp, Sc);
    else if (H % 8 == 0)
        gat_scores8(l, i, k0, k1, &ed, t, H);
    else if (H == 1)
        gat_scores_one(l, i, k0, k1, &ed, t);
    else
        gat_scores1(l, i, k0, k1, &ed, t, H);
    softmax_row(l, i, k0, k1, ed.al, t, H);
    for (int v = 0; v < NV; v++)
        t->acc[v] = bc(0), t->A2[v] = bc(0);
    if (H % 8 == 0)
        aggregate8(l, i, k0, k1, &ed, sums, t, H, Fp);
    else if (H == 1)
        aggregate_one(l, i, k0, k1, &ed, sums, t, Fp);
    else
        aggregate1(l, i, k0, k1, &ed, sums, t, H, Fp);
    if (sums == FWD_SUMS_KEEP) {
        if (l->agg) put_row(l->agg + (size_t)i * hw, t->acc, NV, l->prefetch);
        put_row(l->agg2 + (size_t)i * hw, t->A2, NV, l->prefetch);
        memcpy(l->asig + (size_t)i * H, t->sg, (size_t)H * sizeof *t->sg);
    }
    fwd_epilogue(l, i, t->acc, H, Fp);
}

INLINE void fwd_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, const fwd_scratch *t, int H,
                     gat_idx Fp, int Sc)
{
    for (gat_idx r = r0; r < r1; r++) {
        const gat_idx i = l->rows ? l->rows[r] : r;
        if (!l->pass || l->pass[i] == l->pass_want) fwd_row(l, i, t, H, Fp, Sc);
    }
#ifdef HAVE_AVX
    if (l->agg2 && l->prefetch) _mm_sfence(); /* put_row's streaming stores */
#endif
}

/* The forward's named parts of the thread's scratch pool s_ */
#define FWD_ROWS                                                                                   \
    do {                                                                                           \
        const fwd_scratch t_ = {.acc = s_.acc,                                                     \
                                .A2 = s_.D,                                                        \
                                .M = s_.dy,                                                        \
                                .S = s_.S,                                                         \
                                .S2 = s_.E,                                                        \
                                .SG = s_.F,                                                        \
                                .mx = s_.h1,                                                       \
                                .sum = s_.h2,                                                      \
                                .w = s_.h3,                                                        \
                                .w2 = s_.h4,                                                       \
                                .sg = s_.h5};                                                      \
        fwd_rows(l, r0, r1, &t_, Hc, Fc, Sc);                                                      \
    } while (0)

void FN(gat_i_fused_att_forward)(const gat_i_fl *l)
{
    const int nt = l->nt;
    FOR_ROWS(l->tc, l->rows, l->n_rows, nt,
             SCORES(l->score, SCORE_SHAPES(l->H, l->Fp, WITH_SCRATCH(FWD_ROWS))));
}

/* gat with alpha not stored: alpha (E, H) of rows r0 .. r1 - 1 (of l->rows, or all) recomputed
 * as the backward does, the values fwd_row would have stored */
INLINE void alpha_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, gat_real *alpha)
{
    const gat_graph *g = l->g;
    const int H = l->H;
    for (gat_idx r = r0; r < r1; r++) {
        const gat_idx i = l->rows ? l->rows[r] : r;
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++) {
            const gat_idx j = g->col[k];
            gat_real *a = alpha + (size_t)k * H;
            if (H % 8 == 0)
                for (int q = 0; q < H / 8; q++)
                    st(a + 8 * q, alpha8(l, i, pre8(l, i, j, q, H), q, H));
            else
                for (int h = 0; h < H; h++)
                    a[h] = alpha1(l, i, pre1(l, i, j, h, H), h, H);
        }
    }
}

void FN(gat_i_fused_att_alpha)(const gat_i_fl *l, gat_real *alpha)
{
    const int nt = l->nt;
    FOR_ROWS(l->tc, l->rows, l->n_rows, nt, alpha_rows(l, r0, r1, alpha));
}
