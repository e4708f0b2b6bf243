/* The engine of a GAT model: caches in one allocation, fixed row chunks balanced by edges,
 * the layer loop over the fused kernels (layers/fused*.c) with the parameters permuted to their
 * (Fp, H) layout, and the per-chunk partial gradients summed in chunk order. */
#define _DEFAULT_SOURCE /* madvise */
#include "fast.h"
#include "gov.h"
#include "core/core.h"
#include "matrix_i.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A gat layer without edge features keeps its attention coefficients (E, H), LeakyReLU signs and
 * dropout keeps per edge while they take at most this many bytes, and recomputes them in the
 * backward above (the lean backward: O(N H) per layer instead of O(E H)), unless the model's
 * options.alpha says "store" or "recompute" for every graph (tests run both paths on small
 * graphs). */
#define ALPHA_STORE_BYTES ((size_t)64 << 20)

/* Layer-0 weight gradient: accumulate per source chunk (fused) unless the partial sums would
 * cost more than this fraction of the sparse product; then store dz and gather per feature. */
#define DW_FUSED_RATIO 4

typedef struct flayer {
    gat_i_fl fl;
    gat_real *Wp, *asp, *adp;       /* permuted, padded parameters (fin, Fp, H), (Fp, H) x 2 */
    gat_real *Wqp, *Wkp, *attp;     /* other scores: query and key projections (fin, Fp, H), gatv2's
                                     * att (Fp, H), where the score has them */
    gat_real *q, *k;                /* their projections (N, Fp, H) */
    gat_real *Rp, *res;             /* residual: R (fin, Fp, H), per head on the output layer (the
                                     * identity matrix for identity residuals); x_d R (N, Fp, H) */
    gat_real *em;                   /* edge features, gat: M (D, H), gat_i_fl.em */
    gat_real *Wep;                  /* edge features, gatv2: W_e (D, Fp, H), gat_i_fl.we */
    gat_real *agg, *agg2, *asig;    /* gat without edge features, training bindings: gat_i_fl's
                                     * (set for training forwards only) */
    gat_real coef[GAT_I_MAX_HEADS]; /* gat_i_fl.coef */
    uint16_t lane_head[8 * GAT_I_MAX_HEADS]; /* gat_i_fl.lane_head */
} flayer;

/* A restricted forward's rows: layer l's attention computes att[l] (the last layer the listed
 * rows; layer l - 1 what layer l aggregates), its projection prj[l] = in-neighbours of att[l];
 * NULL means all rows. */
typedef struct plan {
    const gat_idx *ptr; /* the caller's list it was made for, and its length */
    gat_idx n;
    long used;             /* for replacing the least recently used plan */
    int64_t round;         /* remote rows: the bindings' round that made it (0: none) */
    gat_idx *copy, *lists; /* (N) the list's contents; (layers, N) the lists below */
    gat_idx *att[GAT_MAX_LAYERS], *prj[GAT_MAX_LAYERS], n_att[GAT_MAX_LAYERS],
        n_prj[GAT_MAX_LAYERS];
} plan;

struct gat_i_fast {
    const gat_i_fused_ops *ops;
    int n_layers;
    gat_i_fast_layer L[GAT_MAX_LAYERS];
    flayer f[GAT_MAX_LAYERS];
    const gat_graph *g;
    const gat_csr *x;
    gat_idx N, E, xnnz;
    gat_idx n_own; /* rows 0 .. n_own - 1 are own, the rest remote (gat_i_remote); N: none */
    int sc_own;    /* source chunks of the own rows (sc's first; the remote rows' follow) */
    const gat_i_remote *remote; /* the exchange of the remote rows (used when n_own < N) */
    gat_idx maxdeg;             /* the largest in-degree */
    int nt_cap;                 /* threads the kernel scratch is laid out for */
    gat_real *scratch;          /* (nt_cap, scratch_stride) kernel scratch (gat_i_fl.scratch) */
    size_t scratch_stride;
    gat_i_chunks tc, sc, xc;
    gat_idx *bounds; /* tc, sc, xc bounds, one allocation */
    void *block;     /* every cache and scratch buffer */
    /* backward scratch */
    gat_real *drow, *ds_dst, *pt, *ps, *dz, *dy[2], *Wt, *dq;
    gat_real *arow; /* (nt_cap, drow_stride): gat_i_fl.arow of the layers that keep no alpha */
    /* gat_i_fast_alpha of a layer that keeps no alpha: (E, H) made on first use (its own
     * allocation, freed by a rebind), and the forward it was computed after */
    gat_real *abuf[GAT_MAX_LAYERS];
    long abuf_at[GAT_MAX_LAYERS], fwd;
    const gat_real *ex; /* edge features (E, D) or NULL (gat_i_fast_set_edges) */
    gat_real *pe, *dm;  /* edge term: per target chunk dM partials (tc.n, D, max H); dM (D, H) */
    size_t drow_stride; /* gat_i_fbw.drow_stride */
    uint8_t *active, *dz_nonzero;
    size_t ps_stride;
    int dw_fused; /* layer 0: dW accumulated per chunk (1) or via dz and xt (0) */
    /* restricted forwards: the plans of the last two row lists (the trainer alternates the
     * training and the validation rows) */
    plan plans[2];
    long plan_clock;
    int64_t plan_round; /* remote rows: the last round of plans made with the other bindings */
    uint8_t *mark;
    uint8_t *inner; /* remote rows: (n_own) 1 for an own row with no remote source */
    gat_csr xt;     /* transpose of x (dw_fused == 0) */
    gat_idx *xt_perm;
    int trained;
    /* an inference binding (gat_i_fast_create's lean): no backward scratch, one set of
     * projection buffers for all layers, and per-edge arrays for one chunk of at most chunk
     * edges, which att_forward runs on in turn */
    int lean;
    gat_idx chunk;
    gat_idx *ident;   /* lean: (N) 0, 1, ..., N - 1, the row list of an unrestricted layer */
    size_t cap_bytes; /* block's size, and the bounds' length: what a rebind may reuse */
    int cap_bounds;
    gat_alpha_storage alpha; /* the model's options.alpha */
    int fixed_threads;       /* options.fixed_threads: no governor, every call nt threads */
    gat_i_gov gov;
    double t0;
};

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
static int recomputes_alpha(const gat_i_fast *f, const gat_i_fast_layer *L)
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
        const gat_i_fast_layer *L = &f->L[l];
        const size_t h = (size_t)L->heads, w = (size_t)gat_i_fused_fp(L->heads, L->fo) * h;
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

static size_t layout(gat_i_fast *f, char *base)
{
    /* Nt: the target-side arrays' rows (the own rows); the source side (z, s_src, k, qinv) N */
    const size_t N = (size_t)f->N, E = (size_t)f->E, Nt = (size_t)f->n_own;
    /* an inference binding keeps no backward scratch: T is 0 for it, 1 otherwise */
    const size_t T = !f->lean;
    shared sh = {0};
    size_t off = 0, maxh = 1, maxhw = 8, maxdy[2] = {0, 0}, stride = 0, maxwt = 0, np0 = 1,
           scr = 16;
    int family = 0;
    if (f->lean) {
        layout_shared(f, base, &off, &sh);
        f->ident = gat_i_carve(base, &off, N, sizeof(gat_idx));
    }
    for (int l = 0; l < f->n_layers; l++) {
        const gat_i_fast_layer *L = &f->L[l];
        gat_i_fl *fl = &f->f[l].fl;
        const int H = L->heads;
        const gat_idx Fp = gat_i_fused_fp(H, L->fo);
        const size_t hw = (size_t)Fp * H, ab = (size_t)(H + 7) / 8;
        const gat_score S = L->score;
        const int gat = S == GAT_SCORE_GAT, hq = gat_i_score_has_q(S), hk = gat_i_score_has_k(S);
        const int hr = L->residual != 0, np = 1 + hq + hk + hr;
        const int cached = S == GAT_SCORE_COSINE || S == GAT_SCORE_GAUSSIAN;
        /* gat without edge features on a large graph keeps no per-edge array: the backward
         * recomputes alpha, the LeakyReLU signs and the dropout keeps from s_src, s_dst, soft
         * and the hash */
        const int rec = recomputes_alpha(f, L);
        /* the masks are written only with dropout, which inference never applies */
        fl->xkeep = gat_i_carve(
            base, &off, T * (l == 0 ? (size_t)f->xnnz : Nt * (((size_t)L->fin + 7) / 8)), 1);
        if (f->lean) {
            fl->z = sh.z, fl->s_src = sh.s_src, fl->s_dst = sh.s_dst, fl->alpha = sh.alpha;
            fl->pos = sh.pos, fl->qinv = sh.qinv, fl->esc = sh.esc;
            fl->akeep = NULL;
            fl->soft = NULL;
            f->f[l].agg = f->f[l].agg2 = f->f[l].asig = NULL;
        } else {
            fl->z = gat_i_carve(base, &off, N * hw, sizeof(gat_real));
            fl->s_src = gat_i_carve(base, &off, gat ? N * H : 0, sizeof(gat_real));
            fl->s_dst = gat_i_carve(base, &off, gat ? Nt * H : 0, sizeof(gat_real));
            /* NULL, not an empty carve: the kernels test these for being kept */
            fl->alpha = rec ? NULL : gat_i_carve(base, &off, E * H, sizeof(gat_real));
            fl->pos = rec ? NULL : gat_i_carve(base, &off, gat ? E * ab : 0, 1);
            fl->akeep = rec ? NULL : gat_i_carve(base, &off, E * ab, 1);
            fl->soft = rec ? gat_i_carve(base, &off, Nt * 2 * (size_t)H, sizeof(gat_real)) : NULL;
            /* the forward's sums that spare the targets pass its gathers (gat_i_fl.agg) */
            const int ag = gat && L->edge_dim == 0;
            /* an output layer of one head without residual: its logits less the bias */
            const int from_out = L->mean && H == 1 && !hr;
            f->f[l].agg =
                ag && !from_out ? gat_i_carve(base, &off, Nt * hw, sizeof(gat_real)) : NULL;
            f->f[l].agg2 = ag ? gat_i_carve(base, &off, Nt * hw, sizeof(gat_real)) : NULL;
            f->f[l].asig = ag ? gat_i_carve(base, &off, Nt * (size_t)H, sizeof(gat_real)) : NULL;
        }
        fl->out = gat_i_carve(base, &off, Nt * (size_t)L->width, sizeof(gat_real));
        f->f[l].Wp = gat_i_carve(base, &off, (size_t)L->fin * hw, sizeof(gat_real));
        f->f[l].asp = gat_i_carve(base, &off, gat ? hw : 0, sizeof(gat_real));
        f->f[l].adp = gat_i_carve(base, &off, gat ? hw : 0, sizeof(gat_real));
        f->f[l].Wqp = gat_i_carve(base, &off, hq ? (size_t)L->fin * hw : 0, sizeof(gat_real));
        f->f[l].Wkp = gat_i_carve(base, &off, hk ? (size_t)L->fin * hw : 0, sizeof(gat_real));
        f->f[l].attp = gat_i_carve(base, &off, S == GAT_SCORE_GATV2 ? hw : 0, sizeof(gat_real));
        f->f[l].Rp = gat_i_carve(base, &off, hr ? (size_t)L->fin * hw : 0, sizeof(gat_real));
        if (f->lean) {
            f->f[l].q = sh.q, f->f[l].k = sh.k, f->f[l].res = sh.res;
        } else {
            f->f[l].q = gat_i_carve(base, &off, hq ? Nt * hw : 0, sizeof(gat_real));
            f->f[l].k = gat_i_carve(base, &off, hk ? N * hw : 0, sizeof(gat_real));
            f->f[l].res = gat_i_carve(base, &off, hr ? Nt * hw : 0, sizeof(gat_real));
            fl->qinv = gat_i_carve(base, &off, S == GAT_SCORE_COSINE ? N * H : 0, sizeof(gat_real));
            fl->esc = gat_i_carve(base, &off, cached ? E * H : 0, sizeof(gat_real));
        }
        f->f[l].em = gat_i_carve(base, &off, gat ? (size_t)L->edge_dim * H : 0, sizeof(gat_real));
        f->f[l].Wep = gat_i_carve(base, &off, S == GAT_SCORE_GATV2 ? (size_t)L->edge_dim * hw : 0,
                                  sizeof(gat_real));
        if (!gat) family = 1;
        {
            const size_t t = gat_i_fused_scratch(H, Fp, l > 0 ? (size_t)L->fin : 0);
            scr = t > scr ? t : scr;
        }
        if (l == 0) np0 = (size_t)np;
        maxh = (size_t)H > maxh ? (size_t)H : maxh;
        maxhw = hw > maxhw ? hw : maxhw;
        {
            const size_t ds = GAT_I_DY_STRIDE(H, hw);
            maxdy[l % 2] = ds > maxdy[l % 2] ? ds : maxdy[l % 2];
        }
        if (l > 0) maxwt = np * (size_t)L->fin * hw > maxwt ? np * (size_t)L->fin * hw : maxwt;
        if (l == 0 && L->mean && hr && !f->dw_fused) /* scratch for the replicated R's gradient */
            maxwt = (size_t)f->x->cols * hw > maxwt ? (size_t)f->x->cols * hw : maxwt;
        const size_t s = 2 * hw + (size_t)np * (l > 0         ? (size_t)L->fin * hw
                                                : f->dw_fused ? (size_t)f->x->cols * hw
                                                              : 0);
        stride = s > stride ? s : stride;
    }
    f->ps_stride = stride;
    f->drow_stride = GAT_I_R16((size_t)f->maxdeg * maxh);
    f->drow = gat_i_carve(base, &off, T * (size_t)f->nt_cap * f->drow_stride, sizeof(gat_real));
    {
        int rec = 0;
        for (int l = 0; l < f->n_layers; l++)
            rec |= recomputes_alpha(f, &f->L[l]);
        f->arow =
            rec ? gat_i_carve(base, &off, T * (size_t)f->nt_cap * f->drow_stride, sizeof(gat_real))
                : NULL;
        for (int l = 0; l < f->n_layers; l++)
            f->f[l].fl.arow = f->arow, f->f[l].fl.arow_stride = f->drow_stride;
    }
    f->ds_dst = gat_i_carve(base, &off, T * Nt * maxh, sizeof(gat_real));
    f->active = gat_i_carve(base, &off, T * Nt, 1);
    f->dz_nonzero = gat_i_carve(base, &off, f->dw_fused ? 0 : T * Nt, 1);
    f->pt = gat_i_carve(base, &off, T * (size_t)f->tc.n * 2 * maxhw, sizeof(gat_real));
    {
        /* every layer has the model's D; gat's partials are (D, H), gatv2's (D, Fp, H) */
        const size_t D = (size_t)f->L[0].edge_dim;
        const size_t w = f->L[0].score == GAT_SCORE_GAT ? maxh : maxhw;
        f->pe = gat_i_carve(base, &off, T * (size_t)f->tc.n * D * w, sizeof(gat_real));
        f->dm = gat_i_carve(base, &off, T * D * maxh, sizeof(gat_real));
    }
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
    f->dz =
        gat_i_carve(base, &off,
                    f->dw_fused ? 0
                                : T * np0 * Nt * (size_t)gat_i_fused_fp(f->L[0].heads, f->L[0].fo) *
                                      f->L[0].heads,
                    sizeof(gat_real));
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

/* Sizes, chunk counts and the layer-0 weight-gradient strategy for graph g and features x. */
static void size_inputs(gat_i_fast *f, const gat_graph *g, const gat_csr *x,
                        const gat_i_remote *remote)
{
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
    /* partial dW sums cost F * hw per chunk; the per-feature pass needs dz (N, hw) and xt */
    f->dw_fused = (int64_t)x->cols * f->sc.n * DW_FUSED_RATIO <= (int64_t)f->xnnz;
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

/* An inference binding's chunk: at most `chunk` edges, and at least the largest row. */
static void set_lean(gat_i_fast *f, gat_idx chunk)
{
    f->lean = chunk > 0;
    if (!f->lean) {
        f->chunk = 0;
        return;
    }
    if (chunk > f->E) chunk = f->E;           /* no more room than the graph's edges */
    if (chunk < f->maxdeg) chunk = f->maxdeg; /* a chunk holds whole rows */
    f->chunk = chunk > 0 ? chunk : 1;
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

gat_status gat_i_fast_rebind(gat_i_fast *f, const gat_graph *g, const gat_csr *x, int exact, int nt,
                             gat_idx lean_chunk, const gat_i_remote *remote, int *done)
{
    gat_i_fast t = *f;
    gat_status st;
    *done = 0;
    size_inputs(&t, g, x, remote);
    set_lean(&t, lean_chunk);
    t.nt_cap = nt < 1 ? 1 : nt;
    /* the layer-0 weight gradient keeps its strategy: both are exact, and the per-chunk one
     * (dw_fused) needs no transpose while its partial sums fit (fewer chunks; a model's inputs
     * always have its in_features columns) */
    if (f->dw_fused) t.dw_fused = 1;
    if (t.tc.n + t.sc.n + t.xc.n + 3 > f->cap_bounds) return GAT_OK;
    const size_t bytes = layout(&t, NULL);
    if (bytes > f->cap_bytes || (exact && bytes != f->cap_bytes)) return GAT_OK;
    /* the transpose serves the weight gradient alone: an inference binding keeps the old one */
    if (!t.dw_fused && !t.lean &&
        (st = gat_i_csr_transpose_perm_reuse(x, &f->xt, &f->xt_perm, exact)) != GAT_OK)
        return st;
    t.xt = f->xt;
    t.xt_perm = f->xt_perm;
    partition_all(&t);
    /* zeroed as by create: rows a restricted forward skips hold finite values for backward */
    memset(block_base(&t), 0, bytes);
    layout(&t, block_base(&t));
    mark_inner(&t);
    for (int k = 0; k < 2; k++)
        t.plans[k].ptr = NULL, t.plans[k].n = 0, t.plans[k].used = 0, t.plans[k].round = 0;
    t.plan_clock = 0;
    t.trained = 0;
    for (int l = 0; l < t.n_layers; l++) {
        gat_free(t.abuf[l]);
        t.abuf[l] = NULL;
    }
    *f = t;
    *done = 1;
    return GAT_OK;
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
                             const gat_model_options *opt, int n_layers, const gat_i_fast_layer *L,
                             const gat_graph *g, const gat_csr *x, int nt, gat_idx lean_chunk,
                             const gat_i_remote *remote)
{
    gat_i_fast *f = NULL;
    gat_status st = GAT_ENOMEM;
    *out = NULL;
    if (!(f = gat_calloc(1, sizeof *f))) return GAT_ENOMEM;
    f->ops = ops;
    f->alpha = opt->alpha;
    f->fixed_threads = opt->fixed_threads;
    f->n_layers = n_layers;
    memcpy(f->L, L, (size_t)n_layers * sizeof *L);
    /* start with all threads unless other processes already fill the cores (a prior only:
     * the timings decide from the first probe on) */
    gat_i_gov_init(&f->gov, !f->fixed_threads && nt > 1 && gat_i_gov_busy(nt));

    size_inputs(f, g, x, remote);
    set_lean(f, lean_chunk);
    f->nt_cap = nt < 1 ? 1 : nt;
    f->cap_bounds = f->tc.n + f->sc.n + f->xc.n + 3;
    if (!(f->bounds = gat_malloc((size_t)f->cap_bounds, sizeof(gat_idx)))) goto cleanup;
    partition_all(f);
    const size_t bytes = layout(f, NULL);
    /* 64 bytes more: the carves start at the block's first 64-byte boundary */
    if (bytes > SIZE_MAX - 64 || !(f->block = gat_calloc(bytes + 64, 1))) goto cleanup;
    f->cap_bytes = bytes;
    advise_huge_pages(block_base(f), bytes);
    layout(f, block_base(f));
    mark_inner(f);
    if (!f->dw_fused && !f->lean &&
        (st = gat_i_csr_transpose_perm(x, &f->xt, &f->xt_perm)) != GAT_OK)
        goto cleanup;
    *out = f;
    return GAT_OK;
cleanup:
    gat_i_fast_free(f);
    return st;
}

const gat_i_remote *gat_i_fast_remote(const gat_i_fast *f)
{
    return f->remote;
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

int gat_i_fast_lean(const gat_i_fast *f)
{
    return f->lean;
}

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

/* ---- thread governor ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Threads for this call (out of nt_max). */
static int gov_begin(gat_i_fast *f, int nt_max)
{
    if (f->fixed_threads) return nt_max;
    if (nt_max <= 1) return 1;
    const int all = gat_i_gov_begin(&f->gov);
    f->t0 = now();
    return all ? nt_max : 1;
}

static void gov_end(gat_i_fast *f, int kind, int nt_max)
{
    if (nt_max > 1 && !f->fixed_threads) gat_i_gov_end(&f->gov, kind, now() - f->t0);
}

void gat_i_fast_set_fixed_threads(gat_i_fast *f, int on)
{
    /* the governor starts afresh, from all threads, when it is turned on again */
    if (!on && f->fixed_threads) gat_i_gov_init(&f->gov, 0);
    f->fixed_threads = on;
}

void gat_i_fast_set_edges(gat_i_fast *f, const gat_real *ex)
{
    f->ex = ex;
}

int gat_i_fast_threads_in_use(const gat_i_fast *f, int nt_max)
{
    if (nt_max > f->nt_cap) nt_max = f->nt_cap;
    return f->fixed_threads || f->gov.all || nt_max <= 1 ? nt_max : 1;
}

/* ---- forward ---- */

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

void gat_i_fast_forward(gat_i_fast *f, const gat_real *params, const gat_i_fast_run *run)
{
    const int nt_max = run->nt < f->nt_cap ? run->nt : f->nt_cap, nt = gov_begin(f, nt_max);
    const int remote = f->n_own < f->N;
    const plan *pl = plan_rows(f, run->rows, run->rows ? run->n_rows : 0);
    for (int l = 0; l < f->n_layers; l++) {
        const gat_i_fast_layer *L = &f->L[l];
        flayer *fy = &f->f[l];
        gat_i_fl *fl = &fy->fl;
        const int H = L->heads;
        const gat_idx Fp = gat_i_fused_fp(H, L->fo);
        const uint64_t lkey = gat_i_hash64(run->key, 4u * (uint64_t)l);
        const gat_score S = L->score;
        f->ops->to_fh(params + L->w, fy->Wp, (size_t)L->fin, H, L->fo, Fp, nt);
        if (S == GAT_SCORE_GAT) {
            f->ops->to_fh(params + L->a_src, fy->asp, 1, H, L->fo, Fp, 1);
            f->ops->to_fh(params + L->a_dst, fy->adp, 1, H, L->fo, Fp, 1);
        }
        if (gat_i_score_has_q(S))
            f->ops->to_fh(params + L->wq, fy->Wqp, (size_t)L->fin, H, L->fo, Fp, nt);
        if (gat_i_score_has_k(S))
            f->ops->to_fh(params + L->wk, fy->Wkp, (size_t)L->fin, H, L->fo, Fp, nt);
        if (S == GAT_SCORE_GATV2) f->ops->to_fh(params + L->att, fy->attp, 1, H, L->fo, Fp, 1);
        if (L->edge_dim > 0 && S == GAT_SCORE_GATV2)
            f->ops->to_fh(params + L->we, fy->Wep, (size_t)L->edge_dim, H, L->fo, Fp, 1);
        /* gat's edge term: M[d, h] = sum_f W_e[d, (h, f)] a_edge[h, f] */
        if (L->edge_dim > 0 && S == GAT_SCORE_GAT) {
            const size_t Fo = (size_t)L->fo;
            for (size_t d = 0; d < (size_t)L->edge_dim; d++)
                for (int h = 0; h < H; h++) {
                    const gat_real *we = params + L->we + (d * H + (size_t)h) * Fo,
                                   *ae = params + L->ae + (size_t)h * Fo;
                    gat_real s = 0;
                    for (size_t c = 0; c < Fo; c++)
                        s += we[c] * ae[c];
                    fy->em[d * H + (size_t)h] = s;
                }
        }
        if (L->residual) { /* R (or the identity) in the fh layout, per head on the output layer */
            const size_t fin = (size_t)L->fin, width = (size_t)L->width;
            for (size_t c = 0; c < fin; c++)
                for (gat_idx fp = 0; fp < Fp; fp++)
                    for (int h = 0; h < H; h++) {
                        const size_t col = L->mean ? (size_t)fp : (size_t)h * L->fo + (size_t)fp;
                        gat_real v = 0;
                        if (fp < L->fo)
                            v = L->residual == 1 ? params[L->res + c * width + col] : c == col;
                        fy->Rp[(c * (size_t)Fp + (size_t)fp) * H + (size_t)h] = v;
                    }
        }
        for (int h = 0; h < H; h++)
            fy->coef[h] = S == GAT_SCORE_SCALED_DOT ? (gat_real)(1 / sqrt((double)L->fo))
                          : S == GAT_SCORE_COSINE   ? params[L->theta + (size_t)h]
                          : S == GAT_SCORE_GAUSSIAN
                              ? (gat_real)(exp(-2 * (double)params[L->theta + (size_t)h]) / 2)
                              : 1;
        fl->g = f->g;
        fl->H = H;
        fl->Fo = L->fo;
        fl->Fp = Fp;
        fl->hw = Fp * H;
        fl->fin = L->fin;
        fl->width = L->width;
        fl->mean = L->mean;
        fl->slope = (gat_real)run->slope;
        fl->W = fy->Wp;
        fl->a_src = fy->asp;
        fl->a_dst = fy->adp;
        fl->b = params + L->b;
        fl->x = f->x;
        fl->xin = l == 0 ? NULL : f->f[l - 1].fl.out;
        fl->D = L->edge_dim > 0 ? L->edge_dim : 0;
        fl->ex = fl->D ? f->ex : NULL;
        fl->em = fl->D && S == GAT_SCORE_GAT ? fy->em : NULL;
        fl->we = fl->D && S == GAT_SCORE_GATV2 ? fy->Wep : NULL;
        fl->agg = run->training ? fy->agg : NULL;
        fl->agg2 = run->training ? fy->agg2 : NULL;
        fl->asig = run->training ? fy->asig : NULL;
        fl->in = drop(run->training, run->in_p, lkey);
        fl->att = drop(run->training, run->att_p, gat_i_hash64(lkey, 1));
        fl->xkey = run->xkey;
        fl->ekey = run->ekey;
        fl->tekey = run->tekey;
        fl->rkey = run->rkey;
        fl->rows = pl ? pl->att[l] : NULL;
        fl->n_rows = pl ? pl->n_att[l] : 0;
        fl->prows = pl ? pl->prj[l] : NULL;
        fl->n_prows = pl ? pl->n_prj[l] : 0;
        /* software prefetch pays once z (N, Fp, H) is well beyond a core's L2 */
        fl->prefetch = (size_t)f->N * (size_t)fl->hw * sizeof(gat_real) > ((size_t)8 << 20);
        fl->tc = f->tc;
        fl->sc = f->sc;
        fl->xc = f->xc;
        fl->nt = nt;
        fl->scratch = f->scratch;
        fl->scratch_stride = f->scratch_stride;
        fl->score = S;
        fl->q = gat_i_score_has_q(S) ? fy->q : fl->z;
        fl->k = gat_i_score_has_k(S) ? fy->k : fl->z;
        fl->att_w = fy->attp;
        fl->coef = fy->coef;
        for (int e = 0; e < 8 * gat_i_fused_vper(H); e++)
            fy->lane_head[e] = (uint16_t)(e % H);
        fl->lane_head = fy->lane_head;
        /* the separate query and key projections and the residual's x_d R: the same pass (and
         * dropout) with their weights */
        fl->n_extra = 0;
        if (gat_i_score_has_q(S)) fl->Wx[fl->n_extra] = fy->Wqp, fl->zx[fl->n_extra++] = fy->q;
        if (gat_i_score_has_k(S)) fl->Wx[fl->n_extra] = fy->Wkp, fl->zx[fl->n_extra++] = fy->k;
        fl->x_identity = -1;
        if (L->residual) {
            /* an identity on a dense layer is a copy of x_d (layer 0 multiplies by the identity) */
            if (L->residual == 2 && l > 0) fl->x_identity = fl->n_extra;
            fl->Wx[fl->n_extra] = fy->Rp, fl->zx[fl->n_extra++] = fy->res;
        }
        if (l == 0)
            f->ops->proj_sparse(fl);
        else
            f->ops->proj_dense(fl);
        fl->res = L->residual ? fy->res : NULL;
        if (remote) { /* the remote rows' projections, from their owners */
            gat_i_remote_io io = {.layer = l,
                                  .hw = fl->hw,
                                  .H = H,
                                  .z = fl->z,
                                  .s_src = S == GAT_SCORE_GAT ? fl->s_src : NULL,
                                  .k = gat_i_score_has_k(S) ? fy->k : NULL,
                                  .qinv = S == GAT_SCORE_COSINE ? fl->qinv : NULL};
            f->remote->exchange(f->remote->user, 0, &io);
            /* the rows without remote sources while they arrive, then the others */
            fl->pass = f->inner;
            fl->pass_want = 1;
            f->ops->att_forward(fl);
            f->remote->finish(f->remote->user, &io);
            fl->pass_want = 0;
            f->ops->att_forward(fl);
            fl->pass = NULL;
        } else if (f->lean) {
            att_chunks(f, fl);
        } else {
            f->ops->att_forward(fl);
        }
        if (run->hook) run->hook(run->hook_user, 0, l);
    }
    f->trained = run->training;
    f->fwd++;
    gov_end(f,
            run->training ? GAT_I_GOV_TRAIN
            : run->rows   ? GAT_I_GOV_EVAL_ROWS
                          : GAT_I_GOV_EVAL,
            nt_max);
}

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
    const int nt_max = nt_req < f->nt_cap ? nt_req : f->nt_cap, nt = gov_begin(f, nt_max);
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
    gov_end(f, GAT_I_GOV_BACKWARD, nt_max);
}
