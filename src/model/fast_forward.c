/* The engine's forward (fast.h): the restricted forwards' plans, then per layer the parameters
 * permuted to their (Fp, H) layout and the fused kernels' projection and attention passes
 * (layers/fused*.c), with the remote rows' exchange and an inference binding's row chunks. */
#include "fast_i.h"
#include "core/core.h"
#include "matrix_i.h"

#include <math.h>
#include <string.h>

/* An inference binding's attention pass: the layer's rows (fl->rows, or all) in runs whose
 * edges span at most f->chunk, each with the per-edge arrays starting at its first edge. Rows
 * are independent, so the result is that of one pass over all rows. */
static void att_chunks(gat_i_fast *f, gat_i_fl *fl)
{
    const gat_idx *list = fl->rows ? fl->rows : f->ident, n = fl->rows ? fl->n_rows : f->N;
    const gat_idx *rp = f->g->rowptr;
    for (gat_idx a = 0; a < n;) {
        const gat_idx e0 = rp[list[a]];
        gat_idx b = a + 1;
        while (b < n && rp[list[b] + 1] - e0 <= f->chunk)
            b++;
        fl->rows = list + a;
        fl->n_rows = b - a;
        fl->e0 = e0;
        f->ops->att_forward(fl);
        a = b;
    }
    fl->e0 = 0;
}

/* ---- forward ---- */

/* Layer 0 of a gemm0 binding without input dropout: z (N, Fp, H) = X W by the kernels' GEMM (x's
 * values are X, row-major, since every row holds all its columns in order), then each row's
 * score halves s_src = z . a_src, s_dst = z . a_dst (+ the score bias) per head, by the
 * projections' code. */
static void proj_gemm(const gat_i_fast *f, const gat_i_fl *fl)
{
    const gat_csr *x = f->x;
    const gat_idx N = x->rows, F = x->cols, hw = fl->hw;
    const int nt = fl->nt;
    f->ops->gemm(N, hw, F, x->val, (size_t)F, 1, fl->W, (size_t)hw, 0, fl->z, (size_t)hw, nt);
    f->ops->proj_halves(fl);
}

static gat_i_drop drop(int on, double p, uint64_t key)
{
    gat_i_drop d = {0};
    d.on = on && p > 0;
    d.key = key;
    d.cut = gat_i_drop_cut(p);
    d.scale = (gat_real)(1 / (1 - p));
    return d;
}

/* The plan of the listed output rows (see plan), made or reused: exact, since a
 * row of layer l depends only on layer l - 1's rows in its in-neighbourhood. Lists covering most
 * rows are dropped (all rows, in edge-balanced chunks). With remote rows the lists hold own
 * rows, made together with the other bindings: a row is projected when this binding's attention
 * reads it or another's reads it as a remote row. Every binding uses its plan of the same round,
 * or all make theirs anew (a binding without rows takes part with every row). */
static const plan *plan_rows(gat_i_fast *f, const gat_idx *rows, gat_idx n)
{
    const int L = f->n_layers;
    const gat_graph *g = f->g;
    const gat_idx N = f->N, no = f->n_own;
    const gat_i_remote *rm = no < N ? f->remote : NULL;
    plan *hit = NULL;
    if (!rows && !rm) return NULL;
    f->plan_clock++;
    for (int k = 0; rows && k < 2; k++) {
        plan *p = &f->plans[k];
        if ((!rm || p->round > 0) && p->ptr == rows && p->n == n &&
            !memcmp(rows, p->copy, (size_t)n * sizeof *rows))
            hit = p;
    }
    if (rm) {
        /* mine: -1 no rows, -2 a plan to make, else the round of my plan */
        const int64_t mine = !rows ? -1 : hit ? hit->round : -2;
        int64_t v[3] = {mine, -mine, f->plan_round};
        rm->agree(rm->user, v);
        if (v[0] == -1) return NULL; /* no binding restricts */
        if (v[0] == -v[1] && v[0] > 0) {
            hit->used = f->plan_clock;
            return hit;
        }
        f->plan_round = v[2] + 1;
    } else if (hit) {
        hit->used = f->plan_clock;
        return hit;
    }
    plan *p = hit ? hit : f->plans[0].used <= f->plans[1].used ? &f->plans[0] : &f->plans[1];
    if (rows) {
        memcpy(p->copy, rows, (size_t)n * sizeof *rows);
        p->ptr = rows;
        p->n = n;
        p->used = f->plan_clock;
        p->round = rm ? f->plan_round : 0;
    }
    const gat_idx *cur = rows ? p->copy : NULL;
    gat_idx ncur = n;
    const gat_idx nrows = rm ? no : N; /* the rows a list may hold */
    for (int l = L - 1; l >= 0; l--) {
        if (rows) {
            p->att[l] = (gat_idx *)cur;
            p->n_att[l] = ncur;
        }
        if (!cur && !rm) { /* all rows from here down */
            p->prj[l] = NULL, p->n_prj[l] = 0;
            continue;
        }
        /* a row's own projection is read too (s_dst_i, q_i), with or without a self-loop */
        memset(f->mark, !cur, (size_t)N);
        for (gat_idx r = 0; cur && r < ncur; r++) {
            f->mark[cur[r]] = 1;
            for (gat_idx k = g->rowptr[cur[r]]; k < g->rowptr[cur[r] + 1]; k++)
                f->mark[g->col[k]] = 1;
        }
        if (rm) rm->need(rm->user, l, f->mark);
        if (!cur) { /* every own row (the other bindings asked what they read) */
            if (rows) p->prj[l] = NULL, p->n_prj[l] = 0;
            continue;
        }
        gat_idx *list = p->lists + (size_t)l * N, m = 0;
        for (gat_idx j = 0; j < nrows; j++)
            if (f->mark[j]) list[m++] = j;
        if ((int64_t)m * 4 >= (int64_t)nrows * 3) list = NULL, m = 0;
        p->prj[l] = list;
        p->n_prj[l] = m;
        cur = list;
        ncur = m;
    }
    return rows ? p : NULL; /* a binding without rows took part with every row */
}

/* Layer l's parameters in the kernels' (Fp, H) layouts: W, the score's vectors and projections,
 * gat's edge term M, the residual's R (or the identity) and the score's per-head coefficients. */
static void permute_params(gat_i_fast *f, int l, const gat_real *params, int nt)
{
    const gat_i_layer *L = &f->L[l];
    flayer *fy = &f->f[l];
    const int H = L->heads;
    const gat_idx Fp = L->Fp;
    const gat_score S = L->score;
    f->ops->to_fh(params + L->w, fy->Wp, (size_t)L->fin, H, L->fo, Fp, nt);
    if (S == GAT_SCORE_GAT) {
        /* whole: head h's (H, Fo) row of a_src and a_dst to (Fp, H), at h hw */
        const size_t ar = L->whole ? (size_t)H : 1;
        f->ops->to_fh(params + L->a_src, fy->asp, ar, H, L->fo, Fp, 1);
        f->ops->to_fh(params + L->a_dst, fy->adp, ar, H, L->fo, Fp, 1);
    }
    if (L->has_q) f->ops->to_fh(params + L->wq, fy->Wqp, (size_t)L->fin, H, L->fo, Fp, nt);
    if (L->has_k) f->ops->to_fh(params + L->wk, fy->Wkp, (size_t)L->fin, H, L->fo, Fp, nt);
    if (S == GAT_SCORE_GATV2) f->ops->to_fh(params + L->att, fy->attp, 1, H, L->fo, Fp, 1);
    if (L->edge_dim > 0 && S == GAT_SCORE_GATV2)
        f->ops->to_fh(params + L->we, fy->Wep, (size_t)L->edge_dim, H, L->fo, Fp, 1);
    /* gat's edge term: M[d, h] = sum_f W_e[d, (h, f)] a_edge[h, f] */
    const size_t Fo = (size_t)L->fo;
    for (size_t d = 0; L->edge_dim > 0 && S == GAT_SCORE_GAT && d < (size_t)L->edge_dim; d++)
        for (int h = 0; h < H; h++) {
            const gat_real *we = params + L->we + (d * H + (size_t)h) * Fo,
                           *ae = params + L->ae + (size_t)h * Fo;
            gat_real s = 0;
            for (size_t c = 0; c < Fo; c++)
                s += we[c] * ae[c];
            fy->em[d * H + (size_t)h] = s;
        }
    /* R (or the identity) in the fh layout, per head on the output layer */
    const size_t fin = L->residual ? (size_t)L->fin : 0, width = (size_t)L->width;
    for (size_t c = 0; c < fin; c++)
        for (gat_idx fp = 0; fp < Fp; fp++)
            for (int h = 0; h < H; h++) {
                const size_t col = L->mean ? (size_t)fp : (size_t)h * Fo + (size_t)fp;
                gat_real v = 0;
                if (fp < L->fo) v = L->residual == 1 ? params[L->res + c * width + col] : c == col;
                fy->Rp[(c * (size_t)Fp + (size_t)fp) * H + (size_t)h] = v;
            }
    for (int h = 0; h < H; h++)
        fy->coef[h] = S == GAT_SCORE_SCALED_DOT ? (gat_real)(1 / sqrt((double)L->fo))
                      : S == GAT_SCORE_COSINE   ? params[L->theta + (size_t)h]
                      : S == GAT_SCORE_GAUSSIAN
                          ? (gat_real)(exp(-2 * (double)params[L->theta + (size_t)h]) / 2)
                          : 1;
}

/* Layer l's attention pass: with remote rows, the rows without remote sources while the remote
 * rows' projections arrive, then the others; an inference binding's in chunks of rows. */
static void attend(gat_i_fast *f, int l)
{
    gat_i_fl *fl = &f->f[l].fl;
    const gat_i_layer *L = &f->L[l];
    if (f->n_own == f->N) {
        if (f->lean)
            att_chunks(f, fl);
        else
            f->ops->att_forward(fl);
        return;
    }
    gat_i_remote_io io = {.layer = l,
                          .hw = fl->hw,
                          .H = L->heads,
                          .z = fl->z,
                          .s_src = L->score == GAT_SCORE_GAT ? fl->s_src : NULL,
                          .k = L->has_k ? f->f[l].k : NULL,
                          .qinv = L->score == GAT_SCORE_COSINE ? fl->qinv : NULL};
    f->remote->exchange(f->remote->user, 0, &io);
    fl->pass = f->inner;
    fl->pass_want = 1;
    f->ops->att_forward(fl);
    f->remote->finish(f->remote->user, &io);
    fl->pass_want = 0;
    f->ops->att_forward(fl);
    fl->pass = NULL;
}

void gat_i_fast_forward(gat_i_fast *f, const gat_real *params, const gat_i_binding *b,
                        const gat_i_fast_run *run)
{
    const int nt_max = run->nt < f->nt_cap ? run->nt : f->nt_cap,
              nt = gat_i_fast_gov_begin(f, nt_max);
    /* a sampled block's hops give each layer's rows; other output rows make a plan */
    const int trim = gat_i_fast_trim(f, b);
    if (!trim) gat_i_fast_unstale(f, nt);
    const plan *pl = trim ? NULL : plan_rows(f, b->rows, b->rows ? b->n_rows : 0);
    for (int l = 0; l < f->n_layers; l++) {
        flayer *fy = &f->f[l];
        gat_i_fl *fl = &fy->fl;
        const uint64_t lkey = gat_i_hash64(run->key, 4u * (uint64_t)l);
        permute_params(f, l, params, nt);
        fl->slope = (gat_real)run->slope;
        fl->b = params + f->L[l].b;
        if (f->L[l].score_bias) {
            const gat_real *sb = params + f->L[l].sb;
            for (int h = 0; h < f->L[l].heads; h++)
                fy->sbias[h] = sb[h] + (f->L[l].score_bias == 1 ? sb[f->L[l].heads + h] : 0);
        }
        fl->s_bias = f->L[l].score_bias ? fy->sbias : NULL;
        fl->ex = fl->D ? b->ex : NULL;
        fl->agg = run->training ? fy->agg : NULL;
        fl->agg2 = run->training ? fy->agg2 : NULL;
        fl->asig = run->training ? fy->asig : NULL;
        fl->in = drop(run->training, run->in_p, lkey);
        fl->att = drop(run->training, run->att_p, gat_i_hash64(lkey, 1));
        fl->xkey = b->xkey, fl->ekey = b->ekey, fl->rkey = b->rkey;
        fl->tekey = b->ekey ? b->tekey : NULL;
        fl->head_drop = f->L[l].head_drop;
        fl->pdrop = drop(run->training && f->L[l].proj_p > 0 && !f->lean, f->L[l].proj_p,
                         gat_i_hash64(lkey, 2));
        fl->rows = pl ? pl->att[l] : NULL;
        fl->n_rows = pl ? pl->n_att[l] : 0;
        fl->prows = pl ? pl->prj[l] : NULL;
        fl->n_prows = pl ? pl->n_prj[l] : 0;
        fl->nt = nt;
        /* trimmed: the projection's rows, then the attention's, each in its chunks */
        fl->xc = trim && l == 0 ? f->tr_prj[0] : f->xc;
        fl->tc = trim && l > 0 ? f->tr_prj[l] : f->tc;
        fl->sc = trim ? f->tr_src[l] : f->sc;
        if (l == 0) {
            f->gemm_run = f->gemm0 && !fl->in.on && !trim && !pl;
            if (run->training && !f->gemm_run && !f->dw_fused && !f->lean && !f->xt_fresh) {
                gat_i_csr_transpose_fill(f->x, &f->xt, f->xt_perm); /* for dw_stored */
                f->xt_fresh = 1;
            }
            if (f->gemm_run)
                proj_gemm(f, fl);
            else
                f->ops->proj_sparse(fl);
        } else {
            f->ops->proj_dense(fl);
        }
        if (trim) fl->tc = f->tr_att[l];
        attend(f, l);
        if (run->hook) run->hook(run->hook_user, 0, l);
    }
    f->trained = run->training;
    f->fwd++;
    gat_i_fast_gov_end(f,
                       run->training ? GAT_I_GOV_TRAIN
                       : b->rows     ? GAT_I_GOV_EVAL_ROWS
                                     : GAT_I_GOV_EVAL,
                       nt_max);
}
