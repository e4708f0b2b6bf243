/* The engine of a GAT model (fast.h): its caches in one allocation, laid out for a binding
 * (made or rebuilt in place), fixed row chunks balanced by edges, the accessors and the thread
 * governor's glue. The layer loop is fast_forward.c, the backward fast_backward.c. */
#define _DEFAULT_SOURCE /* madvise */
#include "fast_i.h"
#include "core/core.h"
#include "matrix_i.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A gat layer without edge features keeps its attention coefficients (E, H), LeakyReLU signs and
 * dropout keeps per edge while they take at most this many bytes, and recomputes them in the
 * backward above (the lean backward: O(N H) per layer instead of O(E H)), unless the model's
 * options.alpha says "store" or "recompute" for every graph (tests run both paths on small
 * graphs). Beyond the caches the sources pass's random reads of stored records cost more than
 * recomputing them (an exponential per edge and head): docs/performance.md, "Attention
 * coefficients recomputed from 8 MiB". */
#define ALPHA_STORE_BYTES ((size_t)8 << 20)

/* Layer-0 weight gradient: accumulate per source chunk (fused) unless the partial sums would
 * cost more than this fraction of the sparse product; then store dz and gather per feature. */
#define DW_FUSED_RATIO 4
/* gat_i_fast.gemm0: a dense layer-0 input of F columns projected to hw values goes to the kernels'
 * blocked GEMM when F hw reaches this (a 128 x 128 weight): narrower products stay with the
 * per-row loop (which keeps W in cache), wider ones are faster blocked (several times at
 * 512 x 512). Tests lower it. */
int64_t gat_i_fast_gemm_min = 16384;
/* gat_i_fast.stale: what a rebind for a sampled block's hops leaves in the block (-1 the earlier
 * binding's values; tests set a byte, 0xff making every value a NaN) */
int gat_i_fast_stale_fill = -1;

/* ---- chunks ---- */

/* nch chunk bounds of rows 0..n-1 with equal shares of rowptr[i + 1] - rowptr[i] + 2 (edges
 * plus a per-row overhead); nch depends only on the sizes: about one chunk per `per` of cost, at
 * most `most` (the source pass keeps partial sums per chunk, so it has fewer). */
static int chunk_count(gat_idx n, gat_idx nnz, int64_t per, int64_t most)
{
    const int64_t cost = 2 * (int64_t)n + nnz;
    int64_t c = cost / per;
    if (c > most) c = most;
    if (c > n) c = n;
    return c < 1 ? 1 : (int)c;
}

/* nch chunks of rows r0 .. r1 - 1: bound[0] = r0, ..., bound[nch] = r1 */
static void partition(const gat_idx *rowptr, gat_idx r0, gat_idx r1, int nch, gat_idx *bound)
{
    const int64_t base = 2 * (int64_t)r0 + rowptr[r0];
    const int64_t total = 2 * (int64_t)r1 + rowptr[r1] - base;
    gat_idx i = r0;
    bound[0] = r0;
    for (int c = 1; c < nch; c++) {
        const int64_t target = total * c / nch;
        while (i < r1 && 2 * (int64_t)i + rowptr[i] - base < target)
            i++;
        bound[c] = i;
    }
    bound[nch] = r1;
}

/* ---- allocation ---- */

/* Whether layer L of f keeps no per-edge arrays (gat without edge features, recomputed in the
 * backward from s_src, s_dst, soft and the dropout hash): as options.alpha says, or by default
 * above ALPHA_STORE_BYTES of them. */
static int recomputes_alpha(const gat_i_fast *f, const gat_i_layer *L)
{
    if (L->score != GAT_SCORE_GAT || L->edge_dim != 0) return 0;
    if (f->alpha != GAT_ALPHA_AUTO) return f->alpha == GAT_ALPHA_RECOMPUTE;
    const size_t H = (size_t)L->heads, ab = (H + 7) / 8;
    return (size_t)f->E * (H * sizeof(gat_real) + 2 * ab) > ALPHA_STORE_BYTES;
}

/* The buffers an inference binding shares between its layers: every layer writes its
 * projections and, chunk by chunk, its per-edge values there (each layer reads only the previous
 * layer's output, which it keeps), sized for the widest layer and one chunk of edges. */
typedef struct shared {
    gat_real *z, *s_src, *s_dst, *alpha, *q, *k, *res, *qinv, *esc;
    uint8_t *pos;
} shared;

static void layout_shared(gat_i_fast *f, char *base, size_t *off, shared *sh)
{
    const size_t N = (size_t)f->N, CH = (size_t)f->chunk;
    size_t hw = 8, H = 1, ab = 1;
    int gat = 0, hq = 0, hk = 0, hr = 0, cos = 0, cached = 0;
    for (int l = 0; l < f->n_layers; l++) {
        const gat_i_layer *L = &f->L[l];
        const size_t h = (size_t)L->heads, w = (size_t)L->hw;
        hw = w > hw ? w : hw;
        H = h > H ? h : H;
        ab = (h + 7) / 8 > ab ? (h + 7) / 8 : ab;
        gat |= L->score == GAT_SCORE_GAT;
        hq |= gat_i_score_has_q(L->score);
        hk |= gat_i_score_has_k(L->score);
        hr |= L->residual != 0;
        cos |= L->score == GAT_SCORE_COSINE;
        cached |= L->score == GAT_SCORE_COSINE || L->score == GAT_SCORE_GAUSSIAN;
    }
    sh->z = gat_i_carve(base, off, N * hw, sizeof(gat_real));
    sh->s_src = gat_i_carve(base, off, gat ? N * H : 0, sizeof(gat_real));
    sh->s_dst = gat_i_carve(base, off, gat ? N * H : 0, sizeof(gat_real));
    sh->alpha = gat_i_carve(base, off, CH * H, sizeof(gat_real));
    sh->pos = gat_i_carve(base, off, gat ? CH * ab : 0, 1);
    sh->q = gat_i_carve(base, off, hq ? N * hw : 0, sizeof(gat_real));
    sh->k = gat_i_carve(base, off, hk ? N * hw : 0, sizeof(gat_real));
    sh->res = gat_i_carve(base, off, hr ? N * hw : 0, sizeof(gat_real));
    sh->qinv = gat_i_carve(base, off, cos ? N * H : 0, sizeof(gat_real));
    sh->esc = gat_i_carve(base, off, cached ? CH * H : 0, sizeof(gat_real));
}

/* Layer l's input dropout keep bits (a bit per element, or per stored entry of layer 0; with
 * head_drop a bit per head of each), and projection dropout's zd and keep bits (source side: N
 * rows; training bindings). T: 0 for an inference binding, which never drops. */
static void layout_keeps(const gat_i_fast *f, const gat_i_layer *L, int l, gat_i_fl *fl,
                         char *base, size_t *off, size_t T)
{
    const size_t N = (size_t)f->N, Nt = (size_t)f->n_own, fin = (size_t)L->fin;
    const size_t hw = (size_t)L->hw;
    const size_t hb = L->head_drop ? (size_t)(L->heads + 7) / 8 : 1;
    fl->xkeep = gat_i_carve(base, off,
                            T * (l == 0         ? (size_t)f->xnnz * hb
                                 : L->head_drop ? Nt * fin * hb
                                                : Nt * ((fin + 7) / 8)),
                            1);
    const int pd = L->proj_p > 0 && !f->lean;
    fl->zd = gat_i_carve(base, off, pd ? N * hw : 0, sizeof(gat_real));
    fl->zkeep = gat_i_carve(base, off, pd ? N * hw / 8 : 0, 1);
}

/* Layer l's caches and permuted parameters, carved at *off (an inference binding's shared
 * buffers from sh). */
static void layout_layer(gat_i_fast *f, int l, char *base, size_t *off, const shared *sh)
{
    const size_t N = (size_t)f->N, E = (size_t)f->E, Nt = (size_t)f->n_own, T = !f->lean;
    const gat_i_layer *L = &f->L[l];
    flayer *fy = &f->f[l];
    gat_i_fl *fl = &fy->fl;
    const size_t H = (size_t)L->heads, hw = (size_t)L->hw, ab = (H + 7) / 8, fin = (size_t)L->fin;
    const gat_score S = L->score;
    const int gat = S == GAT_SCORE_GAT, hr = L->residual != 0;
    const int cached = S == GAT_SCORE_COSINE || S == GAT_SCORE_GAUSSIAN;
    /* gat without edge features on a large graph keeps no per-edge array: the backward
     * recomputes alpha, the LeakyReLU signs and the dropout keeps from s_src, s_dst, soft and
     * the hash */
    const int rec = recomputes_alpha(f, L);
    const size_t R = sizeof(gat_real);
    /* the masks are written only with dropout, which inference never applies */
    layout_keeps(f, L, l, fl, base, off, T);
    if (f->lean) {
        fl->z = sh->z, fl->s_src = sh->s_src, fl->s_dst = sh->s_dst, fl->alpha = sh->alpha;
        fl->pos = sh->pos, fl->qinv = sh->qinv, fl->esc = sh->esc;
        fl->akeep = NULL;
        fl->soft = NULL;
        fy->agg = fy->agg2 = fy->asig = NULL;
        fy->q = sh->q, fy->k = sh->k, fy->res = sh->res;
    } else {
        fl->z = gat_i_carve(base, off, N * hw, R);
        fl->s_src = gat_i_carve(base, off, gat ? N * H : 0, R);
        fl->s_dst = gat_i_carve(base, off, gat ? Nt * H : 0, R);
        /* NULL, not an empty carve: the kernels test these for being kept */
        fl->alpha = rec ? NULL : gat_i_carve(base, off, E * H, R);
        fl->pos = rec ? NULL : gat_i_carve(base, off, gat ? E * ab : 0, 1);
        fl->akeep = rec ? NULL : gat_i_carve(base, off, E * ab, 1);
        fl->soft = rec ? gat_i_carve(base, off, Nt * 2 * H, R) : NULL;
        /* the forward's sums that spare the targets pass its gathers (gat_i_fl.agg); an output
         * layer of one head without residual takes its logits less the bias */
        const int ag = gat && L->edge_dim == 0, from_out = L->mean && H == 1 && !hr;
        fy->agg = ag && !from_out ? gat_i_carve(base, off, Nt * hw, R) : NULL;
        fy->agg2 = ag ? gat_i_carve(base, off, Nt * hw, R) : NULL;
        fy->asig = ag ? gat_i_carve(base, off, Nt * H, R) : NULL;
        fy->q = gat_i_carve(base, off, L->has_q ? Nt * hw : 0, R);
        fy->k = gat_i_carve(base, off, L->has_k ? N * hw : 0, R);
        fy->res = gat_i_carve(base, off, hr ? Nt * hw : 0, R);
        fl->qinv = gat_i_carve(base, off, S == GAT_SCORE_COSINE ? N * H : 0, R);
        fl->esc = gat_i_carve(base, off, cached ? E * H : 0, R);
    }
    fl->out = gat_i_carve(base, off, Nt * (size_t)L->width, R);
    fy->Wp = gat_i_carve(base, off, fin * hw, R);
    const size_t aw = gat_i_fused_aw(L->whole, L->heads, (gat_idx)hw);
    fy->asp = gat_i_carve(base, off, gat ? aw : 0, R);
    fy->adp = gat_i_carve(base, off, gat ? aw : 0, R);
    fy->Wqp = gat_i_carve(base, off, L->has_q ? fin * hw : 0, R);
    fy->Wkp = gat_i_carve(base, off, L->has_k ? fin * hw : 0, R);
    fy->attp = gat_i_carve(base, off, S == GAT_SCORE_GATV2 ? hw : 0, R);
    fy->Rp = gat_i_carve(base, off, hr ? fin * hw : 0, R);
    fy->em = gat_i_carve(base, off, gat ? (size_t)L->edge_dim * H : 0, R);
    fy->Wep = gat_i_carve(base, off, S == GAT_SCORE_GATV2 ? (size_t)L->edge_dim * hw : 0, R);
}

static size_t layout(gat_i_fast *f, char *base)
{
    /* Nt: the target-side arrays' rows (the own rows); the source side (z, s_src, k, qinv) N */
    const size_t N = (size_t)f->N, Nt = (size_t)f->n_own;
    /* an inference binding keeps no backward scratch: T is 0 for it, 1 otherwise */
    const size_t T = !f->lean;
    shared sh = {0};
    size_t off = 0, maxh = 1, maxhw = 8, maxdy[2] = {0, 0}, stride = 0, maxwt = 0, np0 = 1,
           scr = 16;
    int family = 0, rec = 0;
    if (f->lean) {
        layout_shared(f, base, &off, &sh);
        f->ident = gat_i_carve(base, &off, N, sizeof(gat_idx));
    }
    for (int l = 0; l < f->n_layers; l++) {
        const gat_i_layer *L = &f->L[l];
        const size_t H = (size_t)L->heads, hw = (size_t)L->hw, fin = (size_t)L->fin;
        const size_t np = 1 + (size_t)L->has_q + (size_t)L->has_k + (L->residual != 0);
        const size_t cols = (size_t)f->x->cols;
        layout_layer(f, l, base, &off, &sh);
        family |= L->score != GAT_SCORE_GAT;
        rec |= recomputes_alpha(f, L);
        const size_t t = gat_i_fused_scratch(L->heads, L->Fp, l > 0 ? fin : 0);
        scr = t > scr ? t : scr;
        if (l == 0) np0 = np;
        maxh = H > maxh ? H : maxh;
        maxhw = hw > maxhw ? hw : maxhw;
        const size_t ds = GAT_I_DY_STRIDE(H, hw);
        maxdy[l % 2] = ds > maxdy[l % 2] ? ds : maxdy[l % 2];
        if (l > 0) maxwt = np * fin * hw > maxwt ? np * fin * hw : maxwt;
        if (l == 0 && ((L->mean && L->residual && !f->dw_fused) || f->gemm0))
            maxwt = cols * hw > maxwt ? cols * hw : maxwt; /* the replicated R's or GEMM's dW */
        const size_t s =
            2 * gat_i_fused_aw(L->whole, L->heads, hw) + np * (l > 0         ? fin * hw
                                                               : f->dw_fused ? cols * hw
                                                                             : 0);
        stride = s > stride ? s : stride;
    }
    f->ps_stride = stride;
    f->drow_stride = GAT_I_R16((size_t)f->maxdeg * maxh);
    f->drow = gat_i_carve(base, &off, T * (size_t)f->nt_cap * f->drow_stride, sizeof(gat_real));
    f->arow = rec ? gat_i_carve(base, &off, T * (size_t)f->nt_cap * f->drow_stride,
                                sizeof(gat_real))
                  : NULL;
    for (int l = 0; l < f->n_layers; l++)
        f->f[l].fl.arow = f->arow, f->f[l].fl.arow_stride = f->drow_stride;
    f->ds_dst = gat_i_carve(base, &off, T * Nt * maxh, sizeof(gat_real));
    f->active = gat_i_carve(base, &off, T * Nt, 1);
    f->dz_nonzero = gat_i_carve(base, &off, f->dw_fused ? 0 : T * Nt, 1);
    f->pt = gat_i_carve(base, &off, T * (size_t)f->tc.n * 2 * maxhw, sizeof(gat_real));
    /* every layer has the model's D; gat's partials are (D, H), gatv2's (D, Fp, H) */
    const size_t D = (size_t)f->L[0].edge_dim;
    const size_t w = f->L[0].score == GAT_SCORE_GAT ? maxh : maxhw;
    f->pe = gat_i_carve(base, &off, T * (size_t)f->tc.n * D * w, sizeof(gat_real));
    f->dm = gat_i_carve(base, &off, T * D * maxh, sizeof(gat_real));
    f->dq = gat_i_carve(base, &off, family ? T * Nt * maxhw : 0, sizeof(gat_real));
    f->ps = gat_i_carve(base, &off, T * (size_t)f->sc.n * stride, sizeof(gat_real));
    for (int k = 0; k < 2; k++)
        f->dy[k] = gat_i_carve(base, &off, T * Nt * maxdy[k], sizeof(gat_real));
    f->Wt = gat_i_carve(base, &off, T * maxwt, sizeof(gat_real));
    for (int k = 0; k < 2; k++) {
        f->plans[k].lists = gat_i_carve(base, &off, (size_t)f->n_layers * N, sizeof(gat_idx));
        f->plans[k].copy = gat_i_carve(base, &off, N, sizeof(gat_idx));
    }
    f->mark = gat_i_carve(base, &off, N, 1);
    f->inner = gat_i_carve(base, &off, Nt < N ? Nt : 0, 1);
    f->scratch_stride = scr;
    /* 64-byte aligned, as every carve of the block (block_base), which the kernels' vectors there
     * need; scr is a multiple of 16 values, so every thread's part is aligned too */
    f->scratch = gat_i_carve(base, &off, (size_t)f->nt_cap * scr, sizeof(gat_real));
    if (base && f->lean)
        for (size_t i = 0; i < N; i++)
            f->ident[i] = (gat_idx)i;
    f->dz = gat_i_carve(base, &off, f->dw_fused ? 0 : T * np0 * Nt * (size_t)f->L[0].hw,
                        sizeof(gat_real));
    f->dx = gat_i_carve(base, &off, f->input_grad ? (size_t)f->xnnz : 0, sizeof(gat_real));
    return off;
}

/* Where the block's carves start: its first 64-byte boundary (the kernels stream some rows,
 * which needs aligned addresses) */
static char *block_base(const gat_i_fast *f)
{
    return (char *)(((uintptr_t)f->block + 63) & ~(uintptr_t)63);
}

/* Asks for transparent huge pages on the caches: the kernels gather rows of z, dy and alpha at
 * random, and with 4 KiB pages nearly every gather of a large graph also misses the TLB (random
 * 256-byte gathers ran 3.7 times faster here). Advice only: ignored where unsupported. */
static void advise_huge_pages(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t page = 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1);
    const uintptr_t e = ((uintptr_t)p + bytes) & ~(page - 1);
    if (bytes >= ((size_t)8 << 20) && e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

/* Sizes, chunk counts and the layer-0 weight-gradient strategy for binding b's graph and
 * features. */
static void size_inputs(gat_i_fast *f, const gat_i_binding *b)
{
    const gat_graph *g = b->g;
    const gat_csr *x = b->x;
    const gat_i_remote *remote = b->remote;
    f->g = g;
    f->x = x;
    f->N = g->n;
    f->remote = remote;
    f->n_own = remote && remote->n_own > 0 && remote->n_own < g->n ? remote->n_own : g->n;
    f->E = g->nnz;
    f->xnnz = x->rowptr[x->rows];
    f->maxdeg = 0;
    for (gat_idx i = 0; i < g->n; i++) {
        const gat_idx d = g->rowptr[i + 1] - g->rowptr[i];
        f->maxdeg = d > f->maxdeg ? d : f->maxdeg;
    }
    /* targets and projections: the own rows; sources: the own rows' chunks, then the remote
     * rows' (the remote rows have no in-edges and no features) */
    const gat_idx Nt = f->n_own, ot = g->t_rowptr[Nt];
    f->tc.n = chunk_count(Nt, g->rowptr[Nt], 512, 512);
    f->sc_own = chunk_count(Nt, ot, 2048, 128);
    f->sc.n = f->sc_own + (Nt < g->n ? chunk_count(g->n - Nt, g->nnz - ot, 2048, 128) : 0);
    f->xc.n = chunk_count(Nt, x->rowptr[Nt], 512, 512);
    /* partial dW sums cost F * hw per chunk; the per-feature pass needs dz (N, hw) and xt; the
     * input gradient is computed from dz too */
    f->input_grad = (b->flags & GAT_BIND_INPUT_GRADIENT) && !(b->flags & GAT_BIND_INFERENCE) &&
                    f->n_own == f->N;
    f->dx_fwd = -1;
    const gat_i_layer *L0 = &f->L[0];
    f->gemm0 = (int64_t)x->rows * x->cols == (int64_t)f->xnnz && x->rows > 0 &&
               (int64_t)x->cols * L0->hw >= gat_i_fast_gemm_min && L0->score == GAT_SCORE_GAT &&
               !L0->residual && !L0->has_q && !L0->has_k && L0->edge_dim == 0 && !L0->head_drop &&
               L0->proj_p == 0 && f->n_own == f->N;
    f->dw_fused = !f->input_grad && !f->gemm0 &&
                  (int64_t)x->cols * f->sc.n * DW_FUSED_RATIO <= (int64_t)f->xnnz;
}

/* The bounds' length: the binding's chunks (tc, sc, xc), then a trimmed pass's per layer. */
static int bounds_len(const gat_i_fast *f)
{
    return f->tc.n + f->sc.n + f->xc.n + 3 +
           f->n_layers * (2 * f->tc.n + f->xc.n + f->sc.n + 3);
}

/* Chunks c of rows 0 .. n - 1: those of `all` cut at n (the rows below n in the same chunks, in
 * the same order, so that every partial sum adds what the untrimmed pass adds less its zeros:
 * the same values), carved at *bd. */
static gat_i_chunks cut_chunks(gat_i_chunks all, gat_idx n, gat_idx **bd)
{
    const gat_i_chunks c = {.n = all.n, .bound = *bd};
    for (int k = 0; k <= all.n; k++)
        (*bd)[k] = all.bound[k] < n ? all.bound[k] : n;
    *bd += all.n + 1;
    return c;
}

/* Whether b binds a sampled block with a hop for each layer (gat_i_binding.hop_end): a training
 * binding without remote rows, which forwards with its targets as rows trim. */
static int block_hops(const gat_i_fast *f, const gat_i_binding *b)
{
    return b->hop_end && b->hops == f->n_layers && !f->lean && f->n_own == f->N &&
           b->hop_end[f->n_layers] == f->N;
}

int gat_i_fast_trim(gat_i_fast *f, const gat_i_binding *b)
{
    const int L = f->n_layers;
    const gat_idx *he = b->hop_end, n = b->n_rows;
    f->trimmed = block_hops(f, b) && b->rows && n > 0 && n == he[0] && b->rows[0] == 0 &&
                 b->rows[n - 1] == n - 1;
    if (!f->trimmed) return 0;
    gat_idx *bd = f->bounds + f->tc.n + f->sc.n + f->xc.n + 3;
    for (int l = 0; l < L; l++) {
        const gat_idx A = he[L - 1 - l], P = he[L - l];
        f->att_n[l] = A, f->prj_n[l] = P;
        f->tr_att[l] = cut_chunks(f->tc, A, &bd);
        f->tr_prj[l] = cut_chunks(l == 0 ? f->xc : f->tc, P, &bd);
        f->tr_src[l] = cut_chunks(f->sc, P, &bd);
    }
    return 1;
}

/* The chunk bounds of the current inputs, in f->bounds. */
static void partition_all(gat_i_fast *f)
{
    gat_idx *b = f->bounds;
    const gat_idx Nt = f->n_own;
    partition(f->g->rowptr, 0, Nt, f->tc.n, b);
    f->tc.bound = b;
    b += f->tc.n + 1;
    partition(f->g->t_rowptr, 0, Nt, f->sc_own, b);
    if (f->sc.n > f->sc_own)
        partition(f->g->t_rowptr, Nt, f->N, f->sc.n - f->sc_own, b + f->sc_own);
    f->sc.bound = b;
    b += f->sc.n + 1;
    partition(f->x->rowptr, 0, Nt, f->xc.n, b);
    f->xc.bound = b;
}

/* An inference binding's chunk: at most b's lean_chunk edges, and at least the largest row;
 * a binding with remote rows is a training binding. */
static void set_lean(gat_i_fast *f, const gat_i_binding *b)
{
    gat_idx chunk = b->lean_chunk > 0 ? b->lean_chunk : GAT_I_LEAN_CHUNK;
    f->lean = (b->flags & GAT_BIND_INFERENCE) && !b->remote;
    if (!f->lean) {
        f->chunk = 0;
        return;
    }
    if (chunk > f->E) chunk = f->E;           /* no more room than the graph's edges */
    if (chunk < f->maxdeg) chunk = f->maxdeg; /* a chunk holds whole rows */
    f->chunk = chunk > 0 ? chunk : 1;
}

/* What does not change between forwards of a binding: layer l's shape, caches, chunks and
 * scratch in its kernel descriptor (the engine's create and rebind). */
static void describe(gat_i_fast *f, int l)
{
    const gat_i_layer *L = &f->L[l];
    flayer *fy = &f->f[l];
    gat_i_fl *fl = &fy->fl;
    const gat_score S = L->score;
    fl->g = f->g, fl->x = f->x;
    fl->H = L->heads, fl->Fo = L->fo, fl->Fp = L->Fp, fl->hw = L->hw;
    fl->fin = L->fin, fl->width = L->width, fl->mean = L->mean, fl->score = S;
    fl->linear = L->linear;
    fl->W = fy->Wp, fl->a_src = fy->asp, fl->a_dst = fy->adp, fl->whole = L->whole;
    fl->xin = l == 0 ? NULL : f->f[l - 1].fl.out;
    fl->D = L->edge_dim > 0 ? L->edge_dim : 0;
    fl->em = fl->D && S == GAT_SCORE_GAT ? fy->em : NULL;
    fl->we = fl->D && S == GAT_SCORE_GATV2 ? fy->Wep : NULL;
    /* software prefetch pays once z (N, Fp, H) is well beyond a core's L2 */
    fl->prefetch = (size_t)f->N * (size_t)fl->hw * sizeof(gat_real) > ((size_t)8 << 20);
    /* and on dense graphs, whose per-edge records outgrow it first (tolokers: 3 MB of z, 34 MB
     * of alpha) */
    fl->prefetch_edges =
        fl->prefetch || (size_t)f->E * (size_t)fl->H * sizeof(gat_real) > ((size_t)8 << 20);
    fl->tc = f->tc, fl->sc = f->sc, fl->xc = f->xc;
    fl->scratch = f->scratch, fl->scratch_stride = f->scratch_stride;
    fl->q = L->has_q ? fy->q : fl->z;
    fl->k = L->has_k ? fy->k : fl->z;
    fl->att_w = fy->attp;
    fl->coef = fy->coef;
    for (int e = 0; e < 8 * gat_i_fused_vper(L->heads); e++)
        fy->lane_head[e] = (uint16_t)(e % L->heads);
    fl->lane_head = fy->lane_head;
    /* the separate query and key projections and the residual's x_d R: the same pass (and
     * dropout) with their weights; an identity on a dense layer is a copy of x_d (layer 0
     * multiplies by the identity) */
    fl->n_extra = 0;
    if (L->has_q) fl->Wx[fl->n_extra] = fy->Wqp, fl->zx[fl->n_extra++] = fy->q;
    if (L->has_k) fl->Wx[fl->n_extra] = fy->Wkp, fl->zx[fl->n_extra++] = fy->k;
    fl->x_identity = L->residual == 2 && l > 0 ? fl->n_extra : -1;
    if (L->residual) fl->Wx[fl->n_extra] = fy->Rp, fl->zx[fl->n_extra++] = fy->res;
    fl->res = L->residual ? fy->res : NULL;
}

/* memset(p, 0, bytes) on nt threads, each zeroing its own span (a rebind's arrays are tens of
 * MB; one thread left the others waiting). */
static void zero_par(void *p, size_t bytes, int nt)
{
    if (nt < 2 || bytes < ((size_t)1 << 20)) {
        memset(p, 0, bytes);
        return;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int t = 0; t < nt; t++) {
        const size_t a = bytes / (size_t)nt * (size_t)t;
        memset((char *)p + a, 0, t == nt - 1 ? bytes - a : bytes / (size_t)nt);
    }
}

/* With remote rows: which own rows read no remote row (gat_i_remote.finish). */
static void mark_inner(gat_i_fast *f)
{
    const gat_graph *g = f->g;
    if (f->n_own == f->N) { /* none carved */
        f->inner = NULL;
        return;
    }
    for (gat_idx i = 0; i < f->n_own; i++) {
        uint8_t in = 1;
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1] && in; k++)
            in = g->col[k] < f->n_own;
        f->inner[i] = in;
    }
}

gat_status gat_i_fast_rebind(gat_i_fast *f, const gat_i_binding *b, int nt, int *done)
{
    gat_i_fast t = *f;
    gat_status st;
    const int exact = (b->flags & GAT_BIND_EXACT) != 0;
    *done = 0;
    size_inputs(&t, b);
    set_lean(&t, b);
    t.nt_cap = nt < 1 ? 1 : nt;
    /* the layer-0 weight gradient keeps its strategy: both are exact, and the per-chunk one
     * (dw_fused) needs no transpose while its partial sums fit (fewer chunks; a model's inputs
     * always have its in_features columns) */
    if (f->dw_fused && !t.input_grad && !t.gemm0) t.dw_fused = 1;
    if (bounds_len(&t) > f->cap_bounds) return GAT_OK;
    const size_t bytes = layout(&t, NULL);
    if (bytes > f->cap_bytes || (exact && bytes != f->cap_bytes)) return GAT_OK;
    /* the transpose serves the weight gradient alone: an inference binding keeps the old one;
     * room here, filled by the first training forward that needs it (gat_i_fast.xt_fresh) */
    if (!t.dw_fused && !t.lean &&
        (st = gat_i_csr_transpose_reserve(b->x, &f->xt, &f->xt_perm, exact)) != GAT_OK)
        return st;
    t.xt = f->xt;
    t.xt_perm = f->xt_perm;
    t.xt_fresh = 0;
    partition_all(&t);
    /* zeroed as by create: rows a restricted forward skips hold finite values for backward.
     * A sampled block's trimmed passes write every value they read, so its rebind (each
     * mini-batch step's: tens of MB, a tenth of the step) leaves the block as it is until a
     * forward that does not trim (gat_i_fast_unstale). */
    t.stale = block_hops(&t, b) ? bytes : 0;
    if (!t.stale)
        zero_par(block_base(&t), bytes, gat_i_threads(nt));
    else if (gat_i_fast_stale_fill >= 0)
        memset(block_base(&t), gat_i_fast_stale_fill, bytes);
    layout(&t, block_base(&t));
    mark_inner(&t);
    for (int k = 0; k < 2; k++)
        t.plans[k].ptr = NULL, t.plans[k].n = 0, t.plans[k].used = 0, t.plans[k].round = 0;
    t.plan_clock = 0;
    t.trained = t.trimmed = 0;
    for (int l = 0; l < t.n_layers; l++) {
        gat_free(t.abuf[l]);
        t.abuf[l] = NULL;
    }
    *f = t;
    for (int l = 0; l < f->n_layers; l++)
        describe(f, l);
    *done = 1;
    return GAT_OK;
}

void gat_i_fast_unstale(gat_i_fast *f, int nt)
{
    if (!f->stale) return;
    zero_par(block_base(f), f->stale, nt);
    f->stale = 0;
}

void gat_i_fast_free(gat_i_fast *f)
{
    if (!f) return;
    gat_free(f->block);
    gat_free(f->bounds);
    for (int l = 0; l < f->n_layers; l++)
        gat_free(f->abuf[l]);
    gat_csr_destroy(&f->xt);
    gat_free(f->xt_perm);
    gat_free(f);
}

gat_status gat_i_fast_create(gat_i_fast **out, const gat_i_fused_ops *ops,
                             const gat_model_options *opt, int n_layers, const gat_i_layer *L,
                             const gat_i_binding *b, int nt, int grow)
{
    gat_i_fast *f = NULL;
    gat_status st = GAT_ENOMEM;
    *out = NULL;
    if (!(f = gat_calloc(1, sizeof *f))) return GAT_ENOMEM;
    f->ops = ops;
    f->alpha = opt->alpha;
    f->fixed_threads = opt->fixed_threads;
    f->n_layers = n_layers;
    f->L = L;
    /* start with all threads unless other processes already fill the cores (a prior only:
     * the timings decide from the first probe on) */
    gat_i_gov_init(&f->gov, !f->fixed_threads && nt > 1 && gat_i_gov_busy(nt));

    size_inputs(f, b);
    set_lean(f, b);
    f->nt_cap = nt < 1 ? 1 : nt;
    const int nb = bounds_len(f);
    f->cap_bounds = grow ? (int)gat_i_grown((size_t)nb, INT_MAX) : nb;
    if (!(f->bounds = gat_malloc((size_t)f->cap_bounds, sizeof(gat_idx)))) goto cleanup;
    partition_all(f);
    const size_t bytes = layout(f, NULL),
                 room = grow ? gat_i_grown(bytes, SIZE_MAX - 64) - bytes : 0;
    /* 64 bytes more: the carves start at the block's first 64-byte boundary. The room to grow
     * is allocated but not touched (calloc's fresh pages: no memory until a larger binding
     * uses them). */
    if (bytes > SIZE_MAX - 64 - room || !(f->block = gat_calloc(bytes + room + 64, 1)))
        goto cleanup;
    f->cap_bytes = bytes + room;
    advise_huge_pages(block_base(f), f->cap_bytes);
    layout(f, block_base(f));
    mark_inner(f);
    if (!f->dw_fused && !f->lean &&
        (st = gat_i_csr_transpose_reserve(b->x, &f->xt, &f->xt_perm, !grow)) != GAT_OK)
        goto cleanup;
    for (int l = 0; l < f->n_layers; l++)
        describe(f, l);
    *out = f;
    return GAT_OK;
cleanup:
    gat_i_fast_free(f);
    return st;
}

const gat_real *gat_i_fast_output(const gat_i_fast *f, int l)
{
    return f->f[l].fl.out;
}

const gat_real *gat_i_fast_alpha(gat_i_fast *f, int l)
{
    gat_i_fl *fl = &f->f[l].fl;
    if (f->lean) return NULL;
    if (fl->alpha) return fl->alpha;
    /* recomputed from the last forward's node terms: the values it would have stored */
    if (!f->abuf[l]) {
        const size_t n = (size_t)f->E * (size_t)fl->H;
        if (!(f->abuf[l] = gat_calloc(n ? n : 1, sizeof(gat_real)))) return NULL;
        f->abuf_at[l] = -1;
    }
    if (f->abuf_at[l] != f->fwd) {
        f->ops->att_alpha(fl, f->abuf[l]);
        f->abuf_at[l] = f->fwd;
    }
    return f->abuf[l];
}

int gat_i_fast_keeps_alpha(const gat_i_fast *f, int l)
{
    return !f->lean && f->f[l].fl.alpha != NULL;
}

int gat_i_fast_trimmed(const gat_i_fast *f)
{
    return f->trimmed;
}

int gat_i_fast_lean(const gat_i_fast *f)
{
    return f->lean;
}

/* ---- thread governor ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gat_i_fast_gov_begin(gat_i_fast *f, int nt_max)
{
    if (f->fixed_threads) return nt_max;
    if (nt_max <= 1) return 1;
    const int all = gat_i_gov_begin(&f->gov);
    f->t0 = now();
    return all ? nt_max : 1;
}

void gat_i_fast_gov_end(gat_i_fast *f, int kind, int nt_max)
{
    if (nt_max > 1 && !f->fixed_threads) gat_i_gov_end(&f->gov, kind, now() - f->t0);
}

void gat_i_fast_set_fixed_threads(gat_i_fast *f, int on)
{
    /* the governor starts afresh, from all threads, when it is turned on again */
    if (!on && f->fixed_threads) gat_i_gov_init(&f->gov, 0);
    f->fixed_threads = on;
}

int gat_i_fast_threads_in_use(const gat_i_fast *f, int nt_max)
{
    if (nt_max > f->nt_cap) nt_max = f->nt_cap;
    return f->fixed_threads || f->gov.all || nt_max <= 1 ? nt_max : 1;
}
