/* The first layer's weight gradients from stored projection gradients (fused.h,
 * gat_i_fused_ops.dw_sparse): dW = X_d^T dz, one feature row of x's transpose at a time. */
#include "fused_drop.h"

/* Feature row f of xt with a mask per head (gat_i_fl.head_drop): each entry's value times the
 * lane factors of its head bits */
INLINE void dw_heads(const gat_i_fl *l, const gat_csr *xt, const gat_idx *perm, int np,
                     const gat_real *const *dz, const uint8_t *nz, gat_idx f, V8 *const *acc, int H,
                     gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    V8 m[GAT_I_MAX_HEADS]; /* P <= H lane patterns */
    for (gat_idx p = xt->rowptr[f]; p < xt->rowptr[f + 1]; p++) {
        const gat_idx i = xt->col[p];
        if (!nz[i]) continue;
        const uint8_t *kb = l->xkeep + (size_t)perm[p] * (size_t)AB;
        for (int q = 0; q < P; q++)
            m[q] = keep_pat(l, kb, H, q, xt->val[p] * l->in.scale);
        for (int q = 0; q < np; q++) {
            const gat_real *d = dz[q] + (size_t)i * hw;
            FOR_V(v, vq, NV, P)
                acc[q][v] += m[vq] * ld(d + 8 * v);
        }
    }
}

/* dW[p] (F, H, Fo) += X_d^T dz[p] from the stored dz[p] (N, Fp, H) of np <= 4 projections, one
 * feature row per iteration; the entries dropped or on a zero row of dz are skipped (compacted
 * first, branch-free, once for every projection). */
INLINE void dw_sparse_rows(const gat_i_fl *l, const gat_csr *xt, const gat_idx *perm, int np,
                           const gat_real *const *dz, const uint8_t *nz, gat_real *const *dW,
                           gat_idx f0, gat_idx f1, V8 *A0, V8 *A1, V8 *A2, V8 *A3, gat_real *y,
                           int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H;
    const gat_idx Fo = H % 8 == 0 ? Fp : l->Fo;
    const gat_real sc = l->in.on ? l->in.scale : 1;
    V8 *acc[4] = {A0, A1, A2, A3};
    gat_real val[SEG];
    gat_idx row[SEG];
    for (gat_idx f = f0; f < f1; f++) {
        for (int q = 0; q < np; q++)
            for (int v = 0; v < NV; v++)
                acc[q][v] = bc(0);
        if (l->in.on && l->head_drop) {
            dw_heads(l, xt, perm, np, dz, nz, f, acc, H, Fp);
            goto sum;
        }
        for (gat_idx p0 = xt->rowptr[f]; p0 < xt->rowptr[f + 1]; p0 += SEG) {
            const gat_idx p1 = xt->rowptr[f + 1] - p0 < SEG ? xt->rowptr[f + 1] : p0 + SEG;
            int n = 0;
            for (gat_idx p = p0; p < p1; p++) {
                const gat_idx i = xt->col[p];
                row[n] = i;
                val[n] = xt->val[p] * sc;
                n += nz[i] & (l->in.on ? l->xkeep[perm[p]] : 1);
            }
            for (int q = 0; q < np; q++)
                for (int t = 0; t < n; t++) {
                    const gat_real *d = dz[q] + (size_t)row[t] * hw;
                    for (int v = 0; v < NV; v++)
                        acc[q][v] += val[t] * ld(d + 8 * v);
                }
        }
    sum:
        for (int q = 0; q < np; q++) {
            gat_real *w = dW[q] + (size_t)f * H * Fo;
            fh_to_model(acc[q], y, H, Fp, Fo);
            size_t e = 0;
            for (; e + 8 <= (size_t)H * Fo; e += 8)
                st(w + e, ld(w + e) + ld(y + e));
            for (; e < (size_t)H * Fo; e++)
                w[e] += y[e];
        }
    }
}

void FN(gat_i_fused_dw_sparse)(const gat_i_fl *l, const gat_csr *xt, const gat_idx *perm, int np,
                               const gat_real *const *dz, const uint8_t *dz_nonzero,
                               gat_real *const *dW)
{
    const int nt = l->nt;
    const gat_idx F = xt->rows;
    const int nch = F < 64 ? (int)F : 64;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
    for (int c = 0; c < nch; c++) {
        const gat_idx f0 = (gat_idx)((int64_t)F * c / nch),
                      f1 = (gat_idx)((int64_t)F * (c + 1) / nch);
        SHAPES(l->H, l->Fp,
               WITH_SCRATCH(dw_sparse_rows(l, xt, perm, np, dz, dz_nonzero, dW, f0, f1, s_.acc,
                                           s_.S, s_.D, s_.E, s_.y, Hc, Fc)));
    }
}
