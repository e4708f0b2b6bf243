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

/* A layer's projections in the kernels' order: z, the score's q and k, the residual's R. */
typedef struct projections {
    const gat_real *Wp[4];
    size_t off[4]; /* their weights' offsets in the parameter buffer */
    int n, pres;   /* count; index of R (== n without a residual) */
} projections;

static projections layer_projections(const gat_i_fast *f, int l)
{
    const gat_i_layer *L = &f->L[l];
    const flayer *fy = &f->f[l];
    projections p = {.n = 0};
    p.Wp[p.n] = fy->fl.W, p.off[p.n++] = L->w;
    if (L->has_q) p.Wp[p.n] = fy->Wqp, p.off[p.n++] = L->wq;
    if (L->has_k) p.Wp[p.n] = fy->Wkp, p.off[p.n++] = L->wk;
    p.pres = p.n;
    if (L->residual) p.Wp[p.n] = fy->Rp, p.off[p.n++] = L->res;
    return p;
}

/* Layer l's backward buffers (gat_i_fbw), and for l > 0 the transposes of its weights. */
static gat_i_fbw layer_buffers(gat_i_fast *f, int l, const projections *p, const gat_real *dlogits)
{
    const gat_i_layer *L = &f->L[l];
    const size_t hw = (size_t)L->hw;
    gat_i_fbw b = {.identity = -1,
                   .dlogits = L->mean || L->linear ? dlogits : NULL,
                   .dy = f->dy[l % 2],
                   .dy_stride = GAT_I_DY_STRIDE(L->heads, hw),
                   .drow = f->drow,
                   .drow_stride = f->drow_stride,
                   .ds_dst = f->ds_dst,
                   .active = f->active,
                   .res = L->residual != 0,
                   .pt = f->pt,
                   .pe = f->pe,
                   .dq = f->dq,
                   .nproj = p->n,
                   .ps = f->ps,
                   .n_own = f->n_own};
    const size_t rows = l > 0 ? (size_t)L->fin : f->dw_fused ? (size_t)f->x->cols : 0;
    b.ps_stride = 2 * gat_i_fused_aw(L->whole, L->heads, L->hw) + (size_t)p->n * rows * hw;
    if (l == 0) {
        if (!f->dw_fused) b.dz = f->dz, b.dz_nonzero = f->dz_nonzero;
        return b;
    }
    const gat_i_layer *P = &f->L[l - 1];
    const size_t fin = (size_t)L->fin;
    b.identity = L->residual == 2 ? p->pres : -1;
    for (int q = 0; q < p->n; q++) {
        if (q == b.identity) continue;
        gat_real *Wt = f->Wt + (size_t)q * fin * hw;
        for (size_t r = 0; r < fin; r++)
            for (size_t e = 0; e < hw; e++)
                Wt[e * fin + r] = p->Wp[q][r * hw + e];
        b.Wt[q] = Wt;
    }
    b.prev_H = P->heads, b.prev_Fo = P->fo, b.prev_Fp = P->Fp;
    b.dy_prev = f->dy[(l - 1) % 2];
    b.prev_stride = GAT_I_DY_STRIDE(P->heads, (size_t)P->hw);
    return b;
}

/* The sources pass; with remote rows the remote rows' gradients first, to their owners, then the
 * own rows with the gradients other bindings computed for them. */
static void sources(gat_i_fast *f, int l, gat_i_fbw *b)
{
    gat_i_fl *fl = &f->f[l].fl;
    if (f->n_own == f->N) {
        f->ops->att_backward_sources(fl, b);
        return;
    }
    const gat_i_chunks all = fl->sc;
    gat_i_remote_io io = {.layer = l,
                          .hw = fl->hw,
                          .H = fl->H,
                          .z = fl->z,
                          .k = f->L[l].has_k ? f->f[l].k : NULL};
    fl->sc = (gat_i_chunks){.n = all.n - f->sc_own, .bound = all.bound + f->sc_own};
    b->c0 = f->sc_own;
    b->remote = 1;
    b->rz = io.z;
    b->rk = io.k;
    f->ops->att_backward_sources(fl, b);
    f->remote->exchange(f->remote->user, 1, &io);
    fl->sc = (gat_i_chunks){.n = f->sc_own, .bound = all.bound};
    b->c0 = 0;
    b->remote = 0;
    b->add_ptr = f->remote->add_ptr;
    b->add_slot = f->remote->add_slot;
    b->add_z = io.add_z;
    b->add_k = io.add_k;
    f->ops->att_backward_sources(fl, b);
    fl->sc = all;
}

/* gat's edge term: dM = the chunks' partials in chunk order, then dW_e[d, (h, f)] += dM[d, h]
 * a_edge[h, f] and da_edge[h, f] += sum_d W_e[d, (h, f)] dM[d, h] */
static void edge_term_grads(gat_i_fast *f, int l, const gat_real *params, gat_real *grads)
{
    const gat_i_layer *L = &f->L[l];
    const size_t D = (size_t)L->edge_dim, H = (size_t)L->heads, Fo = (size_t)L->fo, DH = D * H;
    memset(f->dm, 0, DH * sizeof *f->dm);
    for (int c = 0; c < f->tc.n; c++)
        for (size_t e = 0; e < DH; e++)
            f->dm[e] += f->pe[(size_t)c * DH + e];
    for (size_t d = 0; d < D; d++)
        for (size_t h = 0; h < H; h++) {
            const gat_real dmv = f->dm[d * H + h];
            const size_t w = L->we + (d * H + h) * Fo, a = L->ae + h * Fo;
            for (size_t c = 0; c < Fo; c++) {
                grads[w + c] += dmv * params[a + c];
                grads[a + c] += params[w + c] * dmv;
            }
        }
}

/* Layer 0's dW of every projection from its stored gradient, in one pass over x's transpose; a
 * one-layer model's replicated R goes per head into scratch, then is summed. */
static void dw_stored(gat_i_fast *f, const projections *p, gat_real *grads)
{
    const gat_i_layer *L = &f->L[0];
    const size_t hw = (size_t)L->hw, H = (size_t)L->heads, Fo = (size_t)L->fo;
    const gat_real *dz[4];
    gat_real *dW[4];
    int n = 0, rep = -1;
    for (int q = 0; q < p->n; q++) {
        if (q == p->pres && L->residual == 2) continue;
        dz[n] = f->dz + (size_t)q * f->n_own * hw;
        if (q == p->pres && L->mean) {
            rep = q;
            dW[n++] = f->Wt;
            memset(f->Wt, 0, (size_t)f->x->cols * H * Fo * sizeof *f->Wt);
        } else {
            dW[n++] = grads + p->off[q];
        }
    }
    f->ops->dw_sparse(&f->f[0].fl, &f->xt, f->xt_perm, n, dz, f->dz_nonzero, dW);
    if (rep < 0) return;
    gat_real *g = grads + p->off[rep];
    for (size_t r = 0; r < (size_t)f->x->cols; r++)
        for (size_t h = 0; h < H; h++)
            for (size_t fo = 0; fo < Fo; fo++)
                g[r * Fo + fo] += f->Wt[(r * H + h) * Fo + fo];
}

/* Layer 0's dW after a GEMM forward (gat_i_fast.gemm_run): the rows of dz the sources pass left
 * unwritten (dz_nonzero 0) zeroed, then dW (F, Fp, H) = X^T dz by the kernels' GEMM into Wt,
 * added to the gradient in the model's (F, H, Fo) order. */
static void dw_gemm(gat_i_fast *f, gat_real *grads, int nt)
{
    const gat_i_layer *L = &f->L[0];
    const gat_csr *x = f->x;
    const gat_idx N = x->rows, F = x->cols, hw = L->hw, Fo = L->fo;
    const int H = L->heads;
    for (gat_idx j = 0; j < N; j++)
        if (!f->dz_nonzero[j]) memset(f->dz + (size_t)j * hw, 0, (size_t)hw * sizeof *f->dz);
    f->ops->gemm(F, hw, N, x->val, 1, (size_t)F, f->dz, (size_t)hw, 0, f->Wt, (size_t)hw, nt);
    gat_real *g = grads + L->w;
    for (size_t r = 0; r < (size_t)F; r++)
        for (int h = 0; h < H; h++)
            for (gat_idx c = 0; c < Fo; c++)
                g[(r * H + (size_t)h) * (size_t)Fo + (size_t)c] +=
                    f->Wt[r * (size_t)hw + (size_t)c * H + (size_t)h];
}

/* Layer l's parameter gradients from the passes' per-chunk partials, added in chunk order. */
static void layer_grads(gat_i_fast *f, int l, const projections *p, const gat_i_fbw *b,
                        const gat_real *params, gat_real *grads, int nt)
{
    const gat_i_layer *L = &f->L[l];
    const gat_score S = L->score;
    const int H = L->heads;
    const gat_idx Fo = L->fo, Fp = L->Fp;
    const size_t hw = (size_t)L->hw, D = (size_t)L->edge_dim;
    reduce(f->pt, 2 * hw, f->tc.n, 1, H, Fo, Fp, L->mean, grads + L->b, nt);
    if (S == GAT_SCORE_GAT) {
        /* whole: (H, Fp, H) partials into (H, H Fo), head h's vector a row */
        const size_t ar = L->whole ? (size_t)H : 1;
        reduce(f->ps, b->ps_stride, f->sc.n, ar, H, Fo, Fp, 0, grads + L->a_src, nt);
        reduce(f->ps + ar * hw, b->ps_stride, f->sc.n, ar, H, Fo, Fp, 0, grads + L->a_dst, nt);
    }
    if (S == GAT_SCORE_GATV2)
        reduce(f->pt + hw, 2 * hw, f->tc.n, 1, H, Fo, Fp, 0, grads + L->att, nt);
    if (D > 0 && S == GAT_SCORE_GATV2) /* dW_e from the chunks' (D, Fp, H) partials */
        reduce(f->pe, D * hw, f->tc.n, D, H, Fo, Fp, 0, grads + L->we, nt);
    if (D > 0 && S == GAT_SCORE_GAT) edge_term_grads(f, l, params, grads);
    if (L->score_bias) { /* d loss / d b_dst = d loss / d b_src = sum_i ds_dst_i, in row order */
        const gat_i_chunks *tc = &f->f[l].fl.tc;
        const gat_idx r0 = tc->bound[0],
                      r1 = tc->bound[tc->n] < f->n_own ? tc->bound[tc->n] : f->n_own;
        gat_real s[GAT_I_MAX_HEADS] = {0};
        for (gat_idx i = r0; i < r1; i++)
            for (int h = 0; h < H; h++)
                s[h] += f->ds_dst[(size_t)i * (size_t)H + (size_t)h];
        for (int h = 0; h < H; h++) {
            grads[L->sb + (size_t)h] += s[h];
            if (L->score_bias == 1) grads[L->sb + (size_t)H + (size_t)h] += s[h];
        }
    }
    if (S == GAT_SCORE_COSINE || S == GAT_SCORE_GAUSSIAN)
        for (int c = 0; c < f->tc.n; c++) /* chunk order */
            for (int h = 0; h < H; h++)
                grads[L->theta + (size_t)h] += f->pt[(size_t)c * 2 * hw + hw + (size_t)h];
    const size_t rows = l > 0 ? (size_t)L->fin : f->dw_fused ? (size_t)f->x->cols : 0;
    for (int q = 0; q < p->n; q++) {
        if (q == p->pres && L->residual == 2) continue; /* the identity: no parameter */
        /* the output layer's R is replicated per head: its gradient sums the heads */
        reduce(f->ps + 2 * gat_i_fused_aw(L->whole, H, L->hw) + (size_t)q * rows * hw, b->ps_stride,
               f->sc.n, rows, H, Fo, Fp, q == p->pres && L->mean, grads + p->off[q], nt);
    }
    if (l == 0 && f->gemm_run)
        dw_gemm(f, grads, nt);
    else if (l == 0 && !f->dw_fused)
        dw_stored(f, p, grads);
}

/* A trimmed backward's layer l (gat_i_fast.trimmed): its targets pass covers rows 0 ..
 * att_n[l] - 1 only, so the rows beyond get what the full pass gives a row without a gradient:
 * no active flag (the sources pass gathers only from active rows), and for the rows the sources
 * pass still reads as its own (up to prj_n[l]) zero target-side terms: ds_dst (gat), dq (the
 * other scores), the residual's share of dy. */
static void clear_untrimmed(gat_i_fast *f, int l)
{
    const gat_i_layer *L = &f->L[l];
    const size_t A = (size_t)f->att_n[l], P = (size_t)f->prj_n[l], H = (size_t)L->heads,
                 hw = (size_t)L->hw, stride = GAT_I_DY_STRIDE(H, hw);
    memset(f->active + A, 0, (size_t)f->n_own - A);
    if (L->score == GAT_SCORE_GAT)
        memset(f->ds_dst + A * H, 0, (P - A) * H * sizeof *f->ds_dst);
    else
        memset(f->dq + A * hw, 0, (P - A) * hw * sizeof *f->dq);
    for (size_t i = A; L->residual && i < P; i++)
        memset(f->dy[l % 2] + i * stride + GAT_I_DY_HEAD(H), 0, hw * sizeof(gat_real));
}

/* The input gradient (GAT_BIND_INPUT_GRADIENT): for each stored entry q of x (row j, column
 * c), dx[q] = keep_q s sum over the projections k of dz_k[j] . Wp_k[c], from layer 0's stored
 * dz (N, Fp, H) and the permuted weights (fin, Fp, H) the forward projected with (an identity
 * residual's the identity matrix), through the forward's input dropout (keep_q, s = 1 / (1 -
 * p)). A row whose dz is zero (dz_nonzero) or that a trimmed layer 0 does not project gets
 * zeros. One writer per row, each value summed in a fixed order: the same bits for any nt. */
static void input_gradient(gat_i_fast *f, int nt)
{
    const projections p = layer_projections(f, 0);
    if (f->gemm_run) { /* dx (N, F) = dz W^T (W^T (hw, F) into Wt), dz's rows zeroed by dw_gemm */
        const gat_idx N = f->x->rows, F = f->x->cols, hw = f->L[0].hw;
        for (gat_idx c = 0; c < F; c++)
            for (gat_idx e = 0; e < hw; e++)
                f->Wt[(size_t)e * F + c] = p.Wp[0][(size_t)c * hw + e];
        f->ops->gemm(N, F, hw, f->dz, (size_t)hw, 1, f->Wt, (size_t)F, 0, f->dx, (size_t)F, nt);
        return;
    }
    const gat_i_fl *fl = &f->f[0].fl;
    const gat_csr *x = f->x;
    const size_t hw = (size_t)f->L[0].hw;
    const gat_idx n = f->trimmed ? f->prj_n[0] : f->n_own;
    const gat_real sc = fl->in.on ? fl->in.scale : 1;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 256)
    for (gat_idx j = 0; j < n; j++)
        for (gat_idx q = x->rowptr[j]; q < x->rowptr[j + 1]; q++) {
            gat_real s = 0;
            if (f->dz_nonzero[j] && (!fl->in.on || fl->xkeep[q])) {
                const size_t c = (size_t)x->col[q];
                /* eight partial sums (hw is a multiple of 8), added in a fixed order: the
                 * compiler's vectors for any instruction set, the same bits for any nt */
                gat_real acc[8] = {0};
                for (int k = 0; k < p.n; k++) {
                    const gat_real *d = f->dz + ((size_t)k * (size_t)f->n_own + (size_t)j) * hw,
                                   *w = p.Wp[k] + c * hw;
                    for (size_t e = 0; e < hw; e += 8)
                        for (int u = 0; u < 8; u++)
                            acc[u] += d[e + (size_t)u] * w[e + (size_t)u];
                }
                s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
                s *= sc;
            }
            f->dx[q] = s;
        }
    const size_t done = (size_t)x->rowptr[n], all = (size_t)x->rowptr[x->rows];
    memset(f->dx + done, 0, (all - done) * sizeof *f->dx);
}

const gat_real *gat_i_fast_input_grad(const gat_i_fast *f)
{
    return f->input_grad && f->dx_fwd == f->fwd ? f->dx : NULL;
}

void gat_i_fast_backward(gat_i_fast *f, const gat_real *params, gat_real *grads,
                         const gat_real *dlogits, int nt_req, gat_i_layer_hook hook,
                         void *hook_user)
{
    const int nt_max = nt_req < f->nt_cap ? nt_req : f->nt_cap,
              nt = gat_i_fast_gov_begin(f, nt_max);
    for (int l = f->n_layers - 1; l >= 0; l--) {
        const projections p = layer_projections(f, l);
        gat_i_fbw b = layer_buffers(f, l, &p, dlogits);
        f->f[l].fl.nt = nt;
        if (f->trimmed) clear_untrimmed(f, l);
        f->ops->att_backward_targets(&f->f[l].fl, &b);
        sources(f, l, &b);
        layer_grads(f, l, &p, &b, params, grads, nt);
        if (hook) hook(hook_user, 1, l);
    }
    if (f->input_grad) {
        input_gradient(f, nt);
        f->dx_fwd = f->fwd;
    }
    gat_i_fast_gov_end(f, GAT_I_GOV_BACKWARD, nt_max);
}
