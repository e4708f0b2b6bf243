/* The projections of the fused kernels (fused.h): z = dropout(x) W with the score's per-node
 * terms (gat's halves s_src = z . a_src, s_dst = z . a_dst; cosine's inverse norms) and the
 * further projections of the same dropped-out input (queries, keys, the residual), for the
 * sparse first layer and dense later ones; and the weights' layout change to (Fp, H). */
#include "fused_drop.h"

/* ---- projection: z = dropout(x) W, then s_src = z . a_src, s_dst = z . a_dst per head ---- */

/* What a score keeps per node beside z_i (in acc): the score halves s_src, s_dst (gat), the
 * inverse norm 1 / |z_i| per head (cosine); nothing for the others. */
INLINE void halves(const gat_i_fl *l, gat_idx i, const V8 *acc, V8 *S, V8 *D, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), P = vper(H);
    if (l->score == GAT_SCORE_COSINE) {
        gat_real *qi = l->qinv + (size_t)i * H;
        for (int q = 0; q < P; q++)
            S[q] = bc(0);
        FOR_V(v, vq, NV, P)
            S[vq] += acc[v] * acc[v];
        fold(l, S, H, qi);
        for (int h = 0; h < H; h++)
            qi[h] = (gat_real)(1 / sqrt((double)qi[h] + GAT_I_COS_EPS));
        return;
    }
    if (l->score != GAT_SCORE_GAT) return;
    if (l->whole) { /* head h: z_i . a_src[h], a_src[h] over the whole row */
        const size_t hw = (size_t)Fp * H;
        for (int h = 0; h < H; h++) {
            const gat_real *as = l->a_src + (size_t)h * hw, *ad = l->a_dst + (size_t)h * hw;
            V8 s = bc(0), d = bc(0);
            for (int v = 0; v < NV; v++) {
                s += acc[v] * ld(as + 8 * v);
                d += acc[v] * ld(ad + 8 * v);
            }
            l->s_src[(size_t)i * H + h] = hsum(s);
            l->s_dst[(size_t)i * H + h] = hsum(d);
        }
    } else {
        for (int q = 0; q < P; q++)
            S[q] = D[q] = bc(0);
        FOR_V(v, vq, NV, P) {
            S[vq] += acc[v] * ld(l->a_src + 8 * v);
            D[vq] += acc[v] * ld(l->a_dst + 8 * v);
        }
        fold(l, S, H, l->s_src + (size_t)i * H);
        fold(l, D, H, l->s_dst + (size_t)i * H);
    }
    if (l->s_bias)
        for (int h = 0; h < H; h++)
            l->s_dst[(size_t)i * H + h] += l->s_bias[h];
}

/* Layer 0's row i with a mask per head (gat_i_fl.head_drop, which the model allows with the gat
 * score and no residual only: no further projections): each entry's head bits into xkeep
 * (ceil(H / 8) bytes per entry) and its value times the lane factors of the heads that keep it,
 * into acc */
INLINE void proj_sparse_heads(const gat_i_fl *l, gat_idx i, uint64_t kb0, V8 *acc, int H,
                              gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_csr *x = l->x;
    for (gat_idx p = x->rowptr[i]; p < x->rowptr[i + 1]; p++) {
        uint8_t *kb = l->xkeep + (size_t)p * (size_t)AB;
        head_bits(&l->in, kb0 + (uint64_t)p, H, kb);
        const gat_real *w = l->W + (size_t)x->col[p] * hw;
        V8 m[GAT_I_MAX_HEADS]; /* P <= H lane patterns */
        for (int q = 0; q < P; q++)
            m[q] = keep_pat(l, kb, H, q, x->val[p] * l->in.scale);
        FOR_V(v, vq, NV, P)
            acc[v] += m[vq] * ld(w + 8 * v);
    }
}

INLINE void proj_sparse_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, V8 *acc, V8 *S, V8 *D,
                             V8 *E, V8 *F, V8 *G, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), nx = l->n_extra;
    const size_t hw = (size_t)Fp * H;
    const gat_csr *x = l->x;
    const gat_i_drop in = l->in;
    V8 *ax[3] = {E, F, G};
    gat_idx col[SEG];
    gat_real val[SEG];
    for (gat_idx r = r0; r < r1; r++) {
        const gat_idx i = l->prows ? l->prows[r] : r;
        for (int v = 0; v < NV; v++)
            acc[v] = bc(0);
        for (int q = 0; q < nx; q++)
            for (int v = 0; v < NV; v++)
                ax[q][v] = bc(0);
        uint64_t hv = 0, blk = UINT64_MAX;
        const uint64_t kb0 = l->xkey ? (uint64_t)l->xkey[i] - (uint64_t)x->rowptr[i] : 0;
        if (in.on && l->head_drop) {
            proj_sparse_heads(l, i, kb0, acc, H, Fp);
            goto stored;
        }
        for (gat_idx p0 = x->rowptr[i]; p0 < x->rowptr[i + 1]; p0 += SEG) {
            const gat_idx p1 = x->rowptr[i + 1] - p0 < SEG ? x->rowptr[i + 1] : p0 + SEG;
            int n = 0;
            if (in.on) {
                for (gat_idx p = p0; p < p1; p++) {
                    const unsigned keep = keep1(&in, kb0 + (uint64_t)p, &blk, &hv);
                    l->xkeep[p] = (uint8_t)keep;
                    col[n] = x->col[p];
                    val[n] = x->val[p] * in.scale;
                    n += (int)keep;
                }
            } else {
                for (gat_idx p = p0; p < p1; p++)
                    col[n] = x->col[p], val[n++] = x->val[p];
            }
            /* the kept entries once, each projection's sum over them in turn */
            for (int t = 0; t < n; t++) {
                const gat_real *w = l->W + (size_t)col[t] * hw;
                for (int v = 0; v < NV; v++)
                    acc[v] += val[t] * ld(w + 8 * v);
            }
            for (int q = 0; q < nx; q++)
                for (int t = 0; t < n; t++) {
                    const gat_real *w = l->Wx[q] + (size_t)col[t] * hw;
                    for (int v = 0; v < NV; v++)
                        ax[q][v] += val[t] * ld(w + 8 * v);
                }
        }
    stored:
        store_row(l->z + (size_t)i * hw, acc, NV);
        if (l->pdrop.on) pdrop_row(l, i, acc, H, Fp);
        halves(l, i, acc, S, D, H, Fp);
        for (int q = 0; q < nx; q++)
            store_row(l->zx[q] + (size_t)i * hw, ax[q], NV);
    }
}

/* The halves of rows r0 .. r1 - 1 from z as stored (acc: their scratch copy) */
INLINE void halves_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, V8 *acc, V8 *S, V8 *D, int H,
                        gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    for (gat_idx i = r0; i < r1; i++) {
        const gat_real *zi = l->z + (size_t)i * (size_t)Fp * H;
        for (int v = 0; v < NV; v++)
            acc[v] = ld(zi + 8 * v);
        halves(l, i, acc, S, D, H, Fp);
    }
}

void FN(gat_i_fused_proj_halves)(const gat_i_fl *l)
{
    const int nt = l->nt;
    FOR_CHUNKS(
        l->xc, nt,
        SHAPES(l->H, l->Fp, WITH_SCRATCH(halves_rows(l, r0, r1, s_.acc, s_.S, s_.D, Hc, Fc))));
}

void FN(gat_i_fused_proj_sparse)(const gat_i_fl *l)
{
    const int nt = l->nt;
    FOR_ROWS(l->xc, l->prows, l->n_prows, nt,
             SHAPES(l->H, l->Fp,
                    WITH_SCRATCH(proj_sparse_rows(l, r0, r1, s_.acc, s_.S, s_.D, s_.E, s_.F, s_.G,
                                                  Hc, Fc))));
}

/* One input row of a dense layer after dropout: xd (fin) and its keep bytes. Elements
 * i * fin + c; eight at a time when i * fin is a multiple of 4. */
INLINE void dropout_row(const gat_i_drop *in, const gat_real *xi, size_t fin, uint64_t k0,
                        gat_real *xd, uint8_t *kb)
{
    size_t c = 0;
    if (!in->on) {
        memcpy(xd, xi, fin * sizeof *xd);
        return;
    }
    if (k0 % 4 == 0)
        for (; c + 8 <= fin; c += 8) {
            const VI m = keep8(in, k0 + c);
            kb[c / 8] = (uint8_t)movemask(m);
            st(xd + c, ld(xi + c) * (V8)((VI)bc(in->scale) & m));
        }
    uint64_t hv = 0, blk = UINT64_MAX;
    for (; c < fin; c += 8) {
        unsigned bits = 0;
        for (size_t t = c; t < fin && t < c + 8; t++) {
            const unsigned keep = keep1(in, k0 + t, &blk, &hv);
            bits |= keep << (t - c);
            xd[t] = keep ? xi[t] * in->scale : 0;
        }
        kb[c / 8] = (uint8_t)bits;
    }
}

/* acc (NV vectors) = xd (fin) W (fin, NV * 8) */
INLINE void dense_row(const gat_real *xd, size_t fin, const gat_real *W, size_t hw, int NV, V8 *acc)
{
    for (int v = 0; v < NV; v++)
        acc[v] = bc(0);
    size_t c = 0;
    if (NV <= 2) { /* narrow rows: four independent sums, not one chain of fin FMAs */
        V8 a[4][2] = {{bc(0), bc(0)}, {bc(0), bc(0)}, {bc(0), bc(0)}, {bc(0), bc(0)}};
        for (; c + 4 <= fin; c += 4)
            for (int u = 0; u < 4; u++)
                for (int v = 0; v < NV; v++)
                    a[u][v] += xd[c + u] * ld(W + (c + u) * hw + 8 * v);
        for (int v = 0; v < NV; v++)
            acc[v] = (a[0][v] + a[1][v]) + (a[2][v] + a[3][v]);
    }
    for (; c < fin; c++) {
        const gat_real *w = W + c * hw;
        for (int v = 0; v < NV; v++)
            acc[v] += xd[c] * ld(w + 8 * v);
    }
}

/* head_drop, a dense layer's row i: the head bits of its fin elements into xkeep, (fin,
 * ceil(H / 8)) bytes at row i */
INLINE void dense_heads_bits(const gat_i_fl *l, gat_idx i, int H)
{
    const size_t fin = (size_t)l->fin, AB = (size_t)(H + 7) / 8;
    uint8_t *kb = l->xkeep + (size_t)i * fin * AB;
    for (size_t c = 0; c < fin; c++)
        head_bits(&l->in, rkey_of(l, i) * fin + c, H, kb + c * AB);
}

/* head_drop: acc (NV vectors) = sum_c x_ic (lane factors of element c's head bits) W_c, W (fin,
 * Fp, H) */
INLINE void dense_row_heads(const gat_i_fl *l, gat_idx i, const gat_real *W, V8 *acc, int H,
                            gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H, fin = (size_t)l->fin;
    const gat_real *xi = l->xin + (size_t)i * fin;
    const uint8_t *kb = l->xkeep + (size_t)i * fin * (size_t)AB;
    for (int v = 0; v < NV; v++)
        acc[v] = bc(0);
    V8 m[GAT_I_MAX_HEADS]; /* P <= H lane patterns */
    for (size_t c = 0; c < fin; c++) {
        if (xi[c] == 0) continue;
        const gat_real *w = W + c * hw;
        for (int q = 0; q < P; q++)
            m[q] = keep_pat(l, kb + c * (size_t)AB, H, q, xi[c] * l->in.scale);
        FOR_V(v, vq, NV, P)
            acc[v] += m[vq] * ld(w + 8 * v);
    }
}

INLINE void proj_dense_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, V8 *acc, V8 *S, V8 *D,
                            gat_real *xd, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H, fin = (size_t)l->fin, fb = (fin + 7) / 8;
    /* a mask per head: gat score, no residual (the model's rule), so no further projections */
    const int heads = l->in.on && l->head_drop;
    for (gat_idx r = r0; r < r1; r++) {
        const gat_idx i = l->prows ? l->prows[r] : r;
        if (heads)
            dense_heads_bits(l, i, H);
        else
            dropout_row(&l->in, l->xin + (size_t)i * fin, fin, rkey_of(l, i) * fin, xd,
                        l->xkeep + (size_t)i * fb);
        if (heads)
            dense_row_heads(l, i, l->W, acc, H, Fp);
        else
            dense_row(xd, fin, l->W, hw, NV, acc);
        store_row(l->z + (size_t)i * hw, acc, NV);
        if (l->pdrop.on) pdrop_row(l, i, acc, H, Fp);
        halves(l, i, acc, S, D, H, Fp);
        /* the further projections of the same dropped-out row */
        for (int q = 0; q < l->n_extra; q++) {
            if (q == l->x_identity) { /* x_d itself in the fh layout, per head if averaged */
                gat_real *o = l->zx[q] + (size_t)i * hw;
                for (gat_idx f = 0; f < Fp; f++)
                    for (int h = 0; h < H; h++)
                        o[(size_t)f * H + h] =
                            f < l->Fo ? xd[(l->mean ? 0 : (size_t)h * l->Fo) + (size_t)f] : 0;
                continue;
            }
            dense_row(xd, fin, l->Wx[q], hw, NV, acc);
            store_row(l->zx[q] + (size_t)i * hw, acc, NV);
        }
    }
}

void FN(gat_i_fused_proj_dense)(const gat_i_fl *l)
{
    const int nt = l->nt;
    FOR_ROWS(l->tc, l->prows, l->n_prows, nt,
             SHAPES(l->H, l->Fp,
                    WITH_SCRATCH(proj_dense_rows(l, r0, r1, s_.acc, s_.S, s_.D, s_.xd, Hc, Fc))));
}

/* Rows (H, Fo) model order -> (Fp, H) with zero padding (weights, attention vectors). */
void FN(gat_i_fused_to_fh)(const gat_real *src, gat_real *dst, size_t n, int H, gat_idx Fo,
                           gat_idx Fp, int nt)
{
    const size_t hw = (size_t)Fp * H;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n * hw > 65536)
    for (size_t r = 0; r < n; r++) {
        const gat_real *s = src + r * (size_t)H * Fo;
        gat_real *d = dst + r * hw;
        if (H == 8 && Fo == 8) {
            V8 in[8], out[8];
            for (int h = 0; h < 8; h++)
                in[h] = ld(s + 8 * h);
            transpose8(in, out);
            for (int f = 0; f < 8; f++)
                st(d + 8 * f, out[f]);
            continue;
        }
        for (gat_idx f = 0; f < Fp; f++)
            for (int h = 0; h < H; h++)
                d[(size_t)f * H + h] = f < Fo ? s[(size_t)h * Fo + f] : 0;
    }
}
