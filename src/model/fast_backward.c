/* The engine's backward (fast.h): per layer from the last, the fused kernels' targets and
 * sources passes (layers/fused*.c), with the remote rows' exchange, and the per-chunk partial
 * gradients summed in chunk order into the model's gradients. */
#include "fast_i.h"
#include "core/core.h"

#include <string.h>

/* ---- backward ---- */

/* grad (rows, H, Fo) model order += the sum over the n chunks' partials (rows, Fp, H) at p,
 * p + stride, ..., added in chunk order; heads_sum: grad (rows, Fo) gets the sum over heads.
 * Blocks of whole rows (about RED_TILE values) are split over threads; within a block, tiles of
 * at most RED_TILE contiguous values are summed over the chunks, then scattered. */
#define RED_TILE 4096
static void reduce(const gat_real *p, size_t stride, int n, size_t rows, int H, gat_idx Fo,
                   gat_idx Fp, int heads_sum, gat_real *grad, int nt)
{
    const size_t hw = (size_t)Fp * H, RB = hw >= RED_TILE ? 1 : RED_TILE / hw;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && rows * n * hw > 65536)
    for (size_t r0 = 0; r0 < rows; r0 += RB) {
        gat_real acc[RED_TILE];
        const size_t r1 = r0 + RB < rows ? r0 + RB : rows, total = (r1 - r0) * hw;
        for (size_t e0 = 0; e0 < total; e0 += RED_TILE) {
            const size_t len = e0 + RED_TILE < total ? RED_TILE : total - e0;
            memset(acc, 0, len * sizeof *acc);
            for (int c = 0; c < n; c++) {
                const gat_real *q = p + (size_t)c * stride + r0 * hw + e0;
                for (size_t e = 0; e < len; e++)
                    acc[e] += q[e];
            }
            /* value e of the tile: row r, (fo, h) of its fh layout */
            size_t r = r0 + e0 / hw, fh = e0 % hw;
            for (size_t e = 0; e < len; e++) {
                const size_t fo = fh / (size_t)H, h = fh % (size_t)H;
                if (fo < (size_t)Fo) {
                    if (heads_sum)
                        grad[r * (size_t)Fo + fo] += acc[e];
                    else
                        grad[(r * (size_t)H + h) * Fo + fo] += acc[e];
                }
                if (++fh == hw) fh = 0, r++;
            }
        }
    }
}

void gat_i_fast_backward(gat_i_fast *f, const gat_real *params, gat_real *grads,
                         const gat_real *dlogits, int nt_req, gat_i_layer_hook hook,
                         void *hook_user)
{
    const int nt_max = nt_req < f->nt_cap ? nt_req : f->nt_cap,
              nt = gat_i_fast_gov_begin(f, nt_max);
    for (int l = f->n_layers - 1; l >= 0; l--) {
        const gat_i_fast_layer *L = &f->L[l];
        gat_i_fl *fl = &f->f[l].fl;
        const int H = L->heads;
        const gat_idx Fo = L->fo, Fp = fl->Fp;
        const size_t hw = (size_t)fl->hw;
        fl->nt = nt;
        gat_i_fbw b = {0};
        b.identity = -1;
        b.dlogits = L->mean ? dlogits : NULL;
        b.dy = f->dy[l % 2];
        b.dy_stride = GAT_I_DY_STRIDE(H, hw);
        b.drow = f->drow;
        b.drow_stride = f->drow_stride;
        b.ds_dst = f->ds_dst;
        b.active = f->active;
        const gat_score S = L->score;
        /* the projections in the kernels' order: z, the score's q and k, the residual's R */
        const gat_real *Wp[4];
        size_t Woff[4];
        int np = 0;
        Wp[np] = fl->W, Woff[np++] = L->w;
        if (gat_i_score_has_q(S)) Wp[np] = f->f[l].Wqp, Woff[np++] = L->wq;
        if (gat_i_score_has_k(S)) Wp[np] = f->f[l].Wkp, Woff[np++] = L->wk;
        const int pres = np;
        if (L->residual) Wp[np] = f->f[l].Rp, Woff[np++] = L->res;
        b.res = L->residual != 0;
        b.pt = f->pt;
        b.pe = f->pe;
        b.dq = f->dq;
        b.nproj = np;
        b.ps = f->ps;
        const size_t rows = l > 0 ? (size_t)L->fin : f->dw_fused ? (size_t)f->x->cols : 0;
        b.ps_stride = 2 * hw + (size_t)np * rows * hw;
        if (l > 0) {
            const gat_i_fast_layer *P = &f->L[l - 1];
            const size_t fin = (size_t)L->fin;
            b.identity = L->residual == 2 ? pres : -1;
            for (int p = 0; p < np; p++) {
                if (p == b.identity) continue;
                gat_real *Wt = f->Wt + (size_t)p * fin * hw;
                for (size_t r = 0; r < fin; r++)
                    for (size_t e = 0; e < hw; e++)
                        Wt[e * fin + r] = Wp[p][r * hw + e];
                b.Wt[p] = Wt;
            }
            b.prev_H = P->heads;
            b.prev_Fo = P->fo;
            b.prev_Fp = gat_i_fused_fp(P->heads, P->fo);
            b.dy_prev = f->dy[(l - 1) % 2];
            b.prev_stride = GAT_I_DY_STRIDE(b.prev_H, (size_t)b.prev_Fp * (size_t)b.prev_H);
        } else if (!f->dw_fused) {
            b.dz = f->dz;
            b.dz_nonzero = f->dz_nonzero;
        }
        b.n_own = f->n_own;
        f->ops->att_backward_targets(fl, &b);
        if (f->n_own < f->N) {
            /* the remote rows' gradients first, to their owners; then the own rows with the
             * gradients other bindings computed for them */
            const gat_i_chunks all = fl->sc;
            gat_i_remote_io io = {.layer = l,
                                  .hw = fl->hw,
                                  .H = H,
                                  .z = fl->z,
                                  .k = gat_i_score_has_k(S) ? f->f[l].k : NULL};
            fl->sc = (gat_i_chunks){.n = all.n - f->sc_own, .bound = all.bound + f->sc_own};
            b.c0 = f->sc_own;
            b.remote = 1;
            b.rz = io.z;
            b.rk = io.k;
            f->ops->att_backward_sources(fl, &b);
            f->remote->exchange(f->remote->user, 1, &io);
            fl->sc = (gat_i_chunks){.n = f->sc_own, .bound = all.bound};
            b.c0 = 0;
            b.remote = 0;
            b.add_ptr = f->remote->add_ptr;
            b.add_slot = f->remote->add_slot;
            b.add_z = io.add_z;
            b.add_k = io.add_k;
            f->ops->att_backward_sources(fl, &b);
            fl->sc = all;
        } else {
            f->ops->att_backward_sources(fl, &b);
        }

        /* per-chunk partials, in chunk order */
        reduce(f->pt, 2 * hw, f->tc.n, 1, H, Fo, Fp, L->mean, grads + L->b, nt);
        if (S == GAT_SCORE_GAT) {
            reduce(f->ps, b.ps_stride, f->sc.n, 1, H, Fo, Fp, 0, grads + L->a_src, nt);
            reduce(f->ps + hw, b.ps_stride, f->sc.n, 1, H, Fo, Fp, 0, grads + L->a_dst, nt);
        }
        if (S == GAT_SCORE_GATV2)
            reduce(f->pt + hw, 2 * hw, f->tc.n, 1, H, Fo, Fp, 0, grads + L->att, nt);
        if (fl->D > 0 && S == GAT_SCORE_GATV2) /* dW_e from the chunks' (D, Fp, H) partials */
            reduce(f->pe, (size_t)fl->D * hw, f->tc.n, (size_t)fl->D, H, Fo, Fp, 0, grads + L->we,
                   nt);
        if (fl->D > 0 && S == GAT_SCORE_GAT) {
            /* the edge term: dM = the chunks' partials in chunk order, then dW_e[d, (h, f)] +=
             * dM[d, h] a_edge[h, f] and da_edge[h, f] += sum_d W_e[d, (h, f)] dM[d, h] */
            const size_t D = (size_t)fl->D, DH = D * (size_t)H;
            memset(f->dm, 0, DH * sizeof *f->dm);
            for (int c = 0; c < f->tc.n; c++)
                for (size_t e = 0; e < DH; e++)
                    f->dm[e] += f->pe[(size_t)c * DH + e];
            for (size_t d = 0; d < D; d++)
                for (size_t h = 0; h < (size_t)H; h++) {
                    const gat_real dmv = f->dm[d * H + h];
                    const size_t w = L->we + (d * H + h) * (size_t)Fo, a = L->ae + h * (size_t)Fo;
                    for (size_t c = 0; c < (size_t)Fo; c++) {
                        grads[w + c] += dmv * params[a + c];
                        grads[a + c] += params[w + c] * dmv;
                    }
                }
        }
        if (S == GAT_SCORE_COSINE || S == GAT_SCORE_GAUSSIAN)
            for (int c = 0; c < f->tc.n; c++) /* chunk order */
                for (int h = 0; h < H; h++)
                    grads[L->theta + (size_t)h] += f->pt[(size_t)c * 2 * hw + hw + (size_t)h];
        for (int p = 0; p < np; p++) {
            if (p == pres && L->residual == 2) continue; /* the identity: no parameter */
            /* the output layer's R is replicated per head: its gradient sums the heads */
            const int heads_sum = p == pres && L->mean;
            gat_real *dW = grads + Woff[p];
            reduce(f->ps + 2 * hw + (size_t)p * rows * hw, b.ps_stride, f->sc.n, rows, H, Fo, Fp,
                   heads_sum, dW, nt);
        }
        if (l == 0 && !f->dw_fused) {
            /* dW of every projection from its stored gradient, in one pass over x's transpose; a
             * one-layer model's replicated R goes per head into scratch, then is summed */
            const gat_real *dz[4];
            gat_real *dW[4];
            int n = 0, rep = -1;
            for (int p = 0; p < np; p++) {
                if (p == pres && L->residual == 2) continue;
                dz[n] = f->dz + (size_t)p * f->n_own * hw;
                if (p == pres && L->mean) {
                    rep = p;
                    dW[n++] = f->Wt;
                    memset(f->Wt, 0, (size_t)f->x->cols * (size_t)H * (size_t)Fo * sizeof *f->Wt);
                } else {
                    dW[n++] = grads + Woff[p];
                }
            }
            f->ops->dw_sparse(fl, &f->xt, f->xt_perm, n, dz, f->dz_nonzero, dW);
            if (rep >= 0) {
                const gat_real *t = f->Wt;
                gat_real *g = grads + Woff[rep];
                for (size_t r = 0; r < (size_t)f->x->cols; r++)
                    for (int h = 0; h < H; h++)
                        for (gat_idx fo = 0; fo < Fo; fo++)
                            g[r * (size_t)Fo + (size_t)fo] +=
                                t[(r * (size_t)H + (size_t)h) * (size_t)Fo + (size_t)fo];
            }
        }
        if (hook) hook(hook_user, 1, l);
    }
    gat_i_fast_gov_end(f, GAT_I_GOV_BACKWARD, nt_max);
}
