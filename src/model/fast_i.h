/* Private to the engine's files (model/fast*.c): the state of a gat_i_fast (fast.h), its
 * per-layer kernel descriptors and permuted parameters, the restricted forwards' plans, and the
 * thread governor's glue. */
#ifndef GAT_I_FAST_STATE_H
#define GAT_I_FAST_STATE_H

#include "fast.h"
#include "core/gov.h"

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
    gat_real sbias[GAT_I_MAX_HEADS]; /* gat_i_fl.s_bias: b_dst + b_src per head */
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
    const gat_i_layer *L; /* the model's layers (borrowed) */
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
    /* the block's first bytes that a rebind for a sampled block left holding an earlier
     * binding's values (gat_i_fast_stale_fill), zeroed before a forward that does not trim;
     * 0: all zeroed or written since */
    size_t stale;
    /* backward scratch */
    gat_real *drow, *ds_dst, *pt, *ps, *dz, *dy[2], *Wt, *dq;
    gat_real *arow; /* (nt_cap, drow_stride): gat_i_fl.arow of the layers that keep no alpha */
    /* gat_i_fast_alpha of a layer that keeps no alpha: (E, H) made on first use (its own
     * allocation, freed by a rebind), and the forward it was computed after */
    gat_real *abuf[GAT_MAX_LAYERS];
    long abuf_at[GAT_MAX_LAYERS], fwd;
    gat_real *pe, *dm;  /* edge term: per target chunk dM partials (tc.n, D, max H); dM (D, H) */
    size_t drow_stride; /* gat_i_fbw.drow_stride */
    uint8_t *active, *dz_nonzero;
    size_t ps_stride;
    int dw_fused; /* layer 0: dW accumulated per chunk (1) or via dz and xt (0) */
    /* the binding asked for the input gradient (GAT_BIND_INPUT_GRADIENT; a training binding
     * without remote rows): layer 0 keeps dz (dw_fused 0), and each backward writes dx (nnz(x))
     * from it; dx_fwd is the forward it holds the gradient of (-1: none) */
    int input_grad;
    gat_real *dx;
    long dx_fwd;
    /* layer 0 by the kernels' blocked GEMM (gat_i_fast_gemm_min): x dense (every row holds all
     * its columns) and wide, the gat score without edge term, further projections or the
     * reference code's dropouts, no remote rows. A forward without input dropout and row lists
     * then projects Z = X W with one GEMM (gemm_run = 1), and its backward keeps dz (dw_fused 0)
     * for dW = X^T dz and dx = dz W^T, two more; other forwards run the row kernels. Its rounding
     * differs from the row kernels' (thread counts change neither). */
    int gemm0, gemm_run;
    /* restricted forwards: the plans of the last two row lists (the trainer alternates the
     * training and the validation rows) */
    plan plans[2];
    long plan_clock;
    int64_t plan_round; /* remote rows: the last round of plans made with the other bindings */
    uint8_t *mark;
    uint8_t *inner; /* remote rows: (n_own) 1 for an own row with no remote source */
    gat_csr xt;     /* transpose of x (dw_fused == 0) */
    gat_idx *xt_perm;
    /* xt holds the bound x's transpose: made by the first training forward whose backward
     * reads it (layer 0 not by GEMM), not by the binding (a graph transformer's layers bind
     * their input again at every forward and project it by GEMM: 10 transposes an epoch unused) */
    int xt_fresh;
    int trained;
    /* a trimmed forward (and its backward) on a sampled block's hops (gat_i_binding.hop_end,
     * gat_i_fast_trim): layer l attends rows 0 .. att_n[l] - 1 (the block's nodes of hops up to
     * L - 1 - l) and projects rows 0 .. prj_n[l] - 1 (one hop more), over the binding's chunks
     * cut at those rows (tr_att, tr_prj; tr_src for the sources pass): every partial sum keeps
     * its slot and its rows' order, so results are the untrimmed pass's, for any thread count */
    int trimmed;
    gat_idx att_n[GAT_MAX_LAYERS], prj_n[GAT_MAX_LAYERS];
    gat_i_chunks tr_att[GAT_MAX_LAYERS], tr_prj[GAT_MAX_LAYERS], tr_src[GAT_MAX_LAYERS];
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

/* The smallest F hw (input columns times layer 0's hw) projected by GEMM (gat_i_fast.gemm0):
 * read when a binding is made; tests change it, nothing else. */
extern int64_t gat_i_fast_gemm_min;

/* What a rebind for a sampled block leaves in the block (gat_i_fast.stale): -1 the earlier
 * binding's values; a byte value fills it (tests: 0xff, NaNs that no trimmed pass may read). */
extern int gat_i_fast_stale_fill;

/* Zeroes what a rebind left stale (gat_i_fast.stale), on nt threads; nothing if none. */
void gat_i_fast_unstale(gat_i_fast *f, int nt);

/* Whether binding b trims the layers of the forward about to run (a training binding without
 * remote rows whose hops are the model's layers and whose output rows are its targets, 0 ..
 * hop_end[0] - 1), and if so its rows and chunks (gat_i_fast.trimmed). */
int gat_i_fast_trim(gat_i_fast *f, const gat_i_binding *b);

/* Threads for this call (out of nt_max): the governor's choice (gov.h), or nt_max with
 * fixed_threads; gat_i_fast_gov_end reports the call's kind and time. */
int gat_i_fast_gov_begin(gat_i_fast *f, int nt_max);
void gat_i_fast_gov_end(gat_i_fast *f, int kind, int nt_max);

#endif
