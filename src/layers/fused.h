/* Private kernels of the fused GAT path (layers/fused*.c): per layer, a projection pass (dropout of
 * the input, Z = X_d W and the two score halves), one forward pass over the in-CSR rows (scores,
 * stable softmax, attention dropout, weighted sum, bias and ELU or head mean), and two backward
 * passes (over targets, then over sources through the transposed CSR, which also does the
 * projection's backward). Each kernel is one OpenMP loop over fixed row chunks; every reduction
 * goes through per-chunk partial sums added in chunk order, so results are bit-identical for any
 * thread count. The kernel files are compiled once per instruction set (fused.c holds each
 * build's table); a model runs the build its options name (gat_model_options.kernels,
 * gat_i_fused_get).
 *
 * Internal layout: per-head width Fo is padded to Fp (zeros) so that Fp * H is a multiple of 8,
 * and node rows of z, dy, dz are (Fp, H), heads inner ("fh" order), so the H = 8 kernels run
 * heads in vector lanes; the model's (H, Fo) tensors are permuted on entry and exit. Per-edge
 * arrays are (E, H) in in-CSR order as everywhere else. */
#ifndef GAT_I_FUSED_H
#define GAT_I_FUSED_H

#include "layers.h"
#include "gat/model.h" /* gat_score */
#include "core/core.h"

#include <stdint.h>

/* Row chunks: chunk c covers rows bound[c] .. bound[c + 1] - 1. */
typedef struct gat_i_chunks {
    int n;
    const gat_idx *bound; /* (n + 1) */
} gat_i_chunks;

/* Dropout of one stream: element k is kept iff gat_i_keep16(key, k) >= cut; kept values are
 * scaled by 1 / (1 - p). on == 0: nothing dropped. */
typedef struct gat_i_drop {
    int on;
    uint64_t key;
    uint32_t cut;
    gat_real scale;
} gat_i_drop;

/* One attention layer of the fused path. Borrowed pointers; sizes in the comments. */
typedef struct gat_i_fl {
    const gat_graph *g;
    int H;
    gat_idx Fo, Fp, hw; /* per-head width, padded width, hw = Fp * H */
    gat_idx fin, width; /* input width; output width H * Fo (hidden) or Fo (output) */
    int mean;           /* 1: output layer (heads averaged, no ELU); 0: hidden (concat + ELU) */
    int linear;         /* mean 0 without the ELU (gat_i_layer.linear) */
    gat_real slope;
    const gat_real *W;             /* (fin, Fp, H) weights, fh columns (zero padding) */
    const gat_real *a_src, *a_dst; /* (Fp, H); whole: (H, Fp, H), head h's over all of z_i */
    int whole;                     /* gat_i_layer.whole */
    const gat_real *s_bias;        /* gat: (H) added to s_dst by the projection pass (the score
                                    * halves' biases b_dst + b_src), or NULL */
    const gat_real *b;             /* (width) bias, model order */
    /* input: layer 0 reads sparse x (rows = N); later layers the previous output (N, fin) */
    const gat_csr *x;
    const gat_real *xin;
    gat_i_drop in, att;
    /* Dropout keys (NULL: the element's own index): layer 0's entry p of row i is keyed
     * xkey[i] + (p - x->rowptr[i]), a later layer's element (i, c) rkey[i] fin + c and head h of
     * edge k ekey[k] H + h, so that a graph holding part of another (a partition's rows) draws
     * the masks the whole graph would. */
    const int64_t *xkey, *ekey;
    const gat_idx *rkey;
    const int64_t *tekey; /* ekey in the out-CSR's order (tekey[p] = ekey[t_edge[p]]), which the
                           * sources pass reads in sequence, or NULL (it reads ekey[t_edge[p]]) */
    /* edge features: gat adds the edge term sum_d ex[e, d] em[d, h] to the LeakyReLU input of
     * edge e, head h; gatv2 adds W_e x_e (Fp, H), formed per edge from we and never stored,
     * inside its LeakyReLU. D = 0 (ex, em, we NULL): none */
    gat_idx D;
    const gat_real *ex; /* (E, D) in-CSR order */
    const gat_real *em; /* gat: (D, H): M[d, h] = sum_f W_e[d, (h, f)] a_edge[h, f] */
    const gat_real *we; /* gatv2: (D, Fp, H) W_e, fh layout (zero padding) */
    /* caches written by the forward kernels */
    uint8_t *xkeep;          /* layer 0: (nnz(x)) 0/1; later: (N, ceil(fin / 8)) bits */
    gat_real *z;             /* (N, Fp, H) */
    gat_real *s_src, *s_dst; /* (N, H) */
    gat_real *alpha;         /* (E, H) before attention dropout, or NULL (gat without edge
                              * features only): not stored; the backward and att_alpha recompute
                              * alpha_ij = vexp(LeakyReLU(s_dst_i + s_src_j) - max_i) (1 / sum_i)
                              * from s_src, s_dst and soft with the forward's operations in its
                              * order (the same values), and the forward keeps a row's scores in
                              * arow */
    uint8_t *pos;            /* (E, ceil(H / 8)) bits: LeakyReLU input > 0; NULL: not stored (the
                              * sign of s_dst_i + s_src_j, recomputed) */
    uint8_t *akeep;          /* (E, ceil(H / 8)) bits: attention dropout keeps; NULL: not stored
                              * (recomputed from the dropout hash) */
    gat_real *soft;          /* (N, 2H) or NULL: per target row its softmax's maxima (H), then
                              * the inverses of its sums (H), written by att_forward; what the
                              * backward recomputes alpha from when alpha is NULL */
    /* gat without edge features, a training forward: per target row i its aggregate agg_i =
     * sum_j alpha'_ij z_j before the residual and bias, agg2_i = sum_j alpha'_ij f_ij z_j (both
     * (N, Fp, H)) and per head asig_i = sum_j alpha_ij f_ij (N, H), f_ij the LeakyReLU's slope
     * at the edge (1 or slope), alpha' after attention dropout. From them the targets pass has
     * the softmax backward's row terms without a gather: dy_i . agg_i is sum_j alpha_ij d
     * alpha_ij, and ds_dst_i = dy_i . agg2_i - that times asig_i. agg2 NULL: none written (the
     * targets pass gathers z_j per edge); agg alone NULL (an output layer of one head without
     * residual): agg_i is taken as out_i - b. */
    gat_real *agg, *agg2, *asig;
    gat_real *arow;     /* alpha NULL: per thread (nt of them, arow_stride apart) a row's
                         * (in-degree, H) scores and coefficients */
    size_t arow_stride; /* >= the largest in-degree times H */
    gat_idx e0;         /* att_forward: the per-edge arrays alpha, pos, akeep and esc hold
                         * edges e0, e0 + 1, ... (edge k at k - e0): 0 for all edges, the
                         * first edge of a chunk of rows in an inference binding (fast.c),
                         * whose per-edge arrays hold one chunk. Dropout masks are keyed by
                         * k itself. The backward passes need e0 = 0. */
    gat_real *out;      /* (N, width) model order: after bias and ELU, or the logits */
    /* The score (gat/model.h). GAT_SCORE_GAT uses a_src, a_dst, s_src, s_dst and pos (or
     * soft); every other score e = s(q_i, k_j) per head (tests/ref/scores.h has the definitions)
     * uses the fields below instead. A projection pass writes s_src / s_dst (gat) or qinv
     * (cosine) beside z; with any other score it writes z only (the query and key projections
     * run it with W and z pointing at their own arrays). */
    gat_score score;
    const gat_real *q, *k; /* (N, Fp, H) queries and keys; either may be z */
    const gat_real *att_w; /* gatv2: its attention vector (Fp, H) */
    const gat_real *coef;  /* (H): 1 / sqrt(Fo) (scaled-dot), beta (cosine), 1 / (2 sigma^2)
                            * (gaussian); unused otherwise */
    gat_real *qinv;        /* cosine: (N, H) 1 / |z_i| (smoothed, GAT_I_COS_EPS) */
    gat_real *esc;         /* cosine: (E, H) the cosines; gaussian: (E, H) |q_i - k_j|^2 */
    /* Further projections of the same input in the same pass and with the same dropout: the
     * score's queries and keys and the residual's x_d R, zx[p] = x_d Wx[p] (N, Fp, H) (no
     * per-node terms), n_extra of them (at most 3). */
    int n_extra;
    const gat_real *Wx[3];
    gat_real *zx[3];
    int x_identity; /* l > 0: the extra projection that is an identity residual (input and output
                     * of equal widths), written straight from the dropped-out input; -1: none */
    const gat_real *res; /* residual connection: (N, Fp, H) x_d R added before the bias and
                          * activation (R replicated per head on the output layer, whose head
                          * mean then adds x_d R once), or NULL */
    const gat_idx *rows; /* forward: only these attention rows (ascending), or NULL for all */
    gat_idx n_rows;
    const gat_idx *prows; /* forward: only these projection rows (ascending), or NULL for all */
    gat_idx n_prows;
    gat_i_chunks tc, sc, xc;   /* chunks of target rows, source rows, x rows */
    const uint16_t *lane_head; /* (gat_i_fused_vper(H), 8): the head of lane c of vector q of
                                * an (Fp, H) row, (8 q + c) mod H */
    gat_real *scratch;         /* per thread (nt of them): gat_i_fused_scratch(H, Fp, xin ? fin :
                                * 0) values each, scratch_stride apart, 64-byte aligned */
    size_t scratch_stride;
    int prefetch; /* gathered rows outgrow the caches: prefetch them ahead */
    int prefetch_edges; /* the per-edge records (alpha, pos) outgrow the caches: the sources
                         * pass, which reads them in the transpose's order, prefetches them */
    /* att_forward: only the rows i (of rows, or all) with pass[i] == pass_want; pass NULL: all */
    const uint8_t *pass;
    int pass_want;
    int nt;
    /* The reference code's dropout placement (PetarV-/GAT utils/layers.py attn_head), both off
     * when zero. head_drop: every head draws its own input mask (attn_head drops `seq` once per
     * head): element e of the input (the keys above: layer 0's entry, a later layer's (i, c))
     * is kept for head h iff element e H + h of `in`'s stream is, so one head draws the shared
     * mask; xkeep then holds per entry (layer 0: ceil(H / 8) bytes of head bits) or per row
     * and head (later layers: (N, H, ceil(fin / 8)) bits). pdrop: dropout of the projections
     * before they are aggregated (attn_head's second in_drop, on seq_fts): the projection pass
     * writes zd = z kept / (1 - p), element (i, h, f) keyed rkey(i) H Fo + h Fo + f, and its
     * keep bits zkeep; aggregation and its backward read zd, the scores z. */
    int head_drop;
    gat_i_drop pdrop;
    gat_real *zd;   /* (N, Fp, H) when pdrop.on */
    uint8_t *zkeep; /* (N, hw / 8) bits in (Fp, H) order when pdrop.on */
} gat_i_fl;

/* Backward buffers of one layer. */
typedef struct gat_i_fbw {
    const gat_real *dlogits; /* output layer: (N, Fo) gradient of the logits (a linear layer's:
                              * (N, H Fo), heads concatenated), else NULL */
    gat_real *dy;            /* (N, dy_stride) per target row: its record (GAT_I_DY_HEAD), then
                              * the gradient of the attention output (Fp, H) at offset 4H: hidden
                              * layers' rows are written by the next layer; the output layer's
                              * targets pass fills them from dlogits */
    size_t dy_stride;        /* GAT_I_DY_STRIDE(H, hw) */
    gat_real *drow;          /* per thread (nt of them, drow_stride apart): a target row's per-edge
                              * scratch, (in-degree, H): d loss / d LeakyReLU input (gat); d loss /
                              * d of the score's core (the dot product, cosine or squared distance
                              * of q_i and k_j, or gatv2's e) for the other scores */
    size_t drow_stride;      /* >= the largest in-degree times H */
    gat_real *ds_dst;        /* (N, H) scratch */
    uint8_t *active;         /* (N) scratch: target row has a non-zero gradient (its record and
                              * gradient are written, and read by the sources pass) */
    gat_real *pe;            /* l->D > 0, per target chunk: gat (tc.n, D H), the edge term's
                              * dM[d, h] = sum over the chunk's edges of ex[e, d] d loss / d pre[e,
                              * h]; gatv2 (tc.n, D hw), dW_e (D, Fp, H) */
    gat_real *pt;            /* (tc.n, 2 hw) per target chunk: the bias gradient (hw, fh order),
                              * then the score's parameter gradient: gatv2's att (hw, fh order),
                              * cosine's beta or gaussian's log sigma (H) */
    gat_real *dq;            /* (N, Fp, H) scratch, scores other than gat: the targets pass writes
                              * the gradient of q_i, the sources pass reads it */
    int nproj;               /* projections: z, the score's q and k where separate (gatv2: q;
                              * scaled-dot, bilinear: q, k), the residual's R if res */
    int res;                 /* the layer has a residual connection (l->res) */
    gat_real *ps;            /* (sc.n, ps_stride) per source chunk: da_src, da_dst (hw each, or
                              * H hw with gat_i_fl.whole), then
                              * for l > 0 dW (fin, hw) of each projection (z, q, k), for layer 0
                              * with dz == NULL dW (F, hw) of each */
    size_t ps_stride;
    gat_real *dz;          /* layer 0: (nproj, N, Fp, H) to store the projections' gradients for
                            * gat_i_fused_ops.dw_sparse, or NULL to accumulate dW into ps */
    uint8_t *dz_nonzero;   /* layer 0 with dz: (N) row j of dz is not all zero */
    const gat_real *Wt[4]; /* l > 0: (hw, fin) transposes of the nproj projections' weights */
    int identity; /* l > 0: the projection (index as in Wt) that is an identity residual: its
                   * gradient goes straight to the input's (no Wt, no dW); -1: none */
    /* l > 0: the previous (hidden) layer, whose output is this layer's input */
    gat_idx prev_Fo, prev_Fp;
    int prev_H;
    gat_real *dy_prev; /* (N, prev_stride) written: gradient before the previous ELU, (prev_Fp,
                        * prev_H) at offset 4 prev_H of each row (the previous layer's dy) */
    size_t prev_stride;
    /* Remote rows (gat_i_fast's n_own < N: a partition's halo, whose projections other
     * bindings own): rows n_own .. N - 1 are sources only. The target-side arrays (ds_dst, dq,
     * dy, dy_prev, dz) hold rows 0 .. n_own - 1 (dz's row stride is n_own); the sources pass
     * reads zeros for a remote row's. */
    gat_idx n_own;
    int c0;     /* chunk index of l->sc's first chunk: its partial sums are ps row c0 + c */
    int remote; /* 1: l->sc covers remote rows: each row's projection gradients, z's and (with
                 * a separate key projection) k's, are stored at that row of rz (and rk) instead
                 * of back-propagated (all-zero rows too) */
    gat_real *rz, *rk; /* (N, Fp, H): rows n_own .. N - 1 written when remote (may be l->z and
                        * the key projection: the sources pass reads a row's own projection
                        * before it writes the row) */
    /* own rows (remote == 0): gradients other bindings computed for row j's projections, added
     * before its projection backward in slot order: the rows add_slot[s] of add_z (and add_k)
     * for s in add_ptr[j] .. add_ptr[j + 1] - 1; add_ptr NULL: none */
    const gat_idx *add_ptr, *add_slot;
    const gat_real *add_z, *add_k; /* (slots, Fp, H) */
} gat_i_fbw;

/* A target row's record, the first 4H values of its dy row: written by the targets pass for a
 * row with a gradient, and gathered by the sources pass with that gradient, so that each edge
 * there reads one contiguous row instead of five arrays. (2H) the row's soft (maxima, then
 * inverse sums) and (H) s_dst, for gat without stored alpha (what the sources pass recomputes
 * alpha from; else unused); (H) the row's sum_j alpha_ij d alpha'_ij (the softmax backward's
 * row term), from which the sources pass recomputes each edge's score gradient instead of
 * reading an (E, H) array. */
#define GAT_I_DY_HEAD(H) (4 * (size_t)(H))
#define GAT_I_DY_STRIDE(H, hw) GAT_I_R16(GAT_I_DY_HEAD(H) + (size_t)(hw))

/* The names of a per-ISA copy's functions: GAT_I_FN(name) is name_base, name_avx2 or
 * name_avx512 in the copy GAT_I_ISA names (src/meson.build compiles every file of the kernels
 * once per instruction set), so that the copies link into one library side by side. */
#ifndef GAT_I_ISA
#define GAT_I_ISA base
#endif
#define GAT_I_CAT2_(a, b) a##_##b
#define GAT_I_CAT_(a, b) GAT_I_CAT2_(a, b)
#define GAT_I_FN(name) GAT_I_CAT_(name, GAT_I_ISA)

/* Adam's update loop of the copy being compiled (src/layers/fused_adam.c): gat_i_fused_ops.adam. */
void GAT_I_FN(gat_i_adam_loop)(size_t n, gat_real *p, const gat_real *g, gat_real *m, gat_real *v,
                               gat_real b1, gat_real b2, gat_real wd, gat_real lr, gat_real s2,
                               gat_real eps);

typedef struct gat_i_fused_ops {
    const char *isa;
    /* layer 0: z = dropout(x) W, s_src, s_dst, xkeep, and the n_extra projections; over xc
     * chunks */
    void (*proj_sparse)(const gat_i_fl *l);
    /* l > 0: z = dropout(xin) W, s_src, s_dst, xkeep, and the n_extra projections; over tc
     * chunks */
    void (*proj_dense)(const gat_i_fl *l);
    /* layer 0 after z = x W by gemm: s_src, s_dst (gat) of every row from z, as the
     * projections compute them; over xc chunks */
    void (*proj_halves)(const gat_i_fl *l);
    /* out, alpha, pos, akeep (those not NULL) and soft for every row (or l->rows) */
    void (*att_forward)(const gat_i_fl *l);
    /* gat with alpha NULL, after att_forward: alpha (E, H) of every row (or l->rows), the values
     * att_forward would have stored */
    void (*att_alpha)(const gat_i_fl *l, gat_real *alpha);
    /* dy's records, ds_dst, pt (and dq; pe with edge features) */
    void (*att_backward_targets)(const gat_i_fl *l, const gat_i_fbw *b);
    /* ps, and dz (layer 0) or dy_prev (l > 0) */
    void (*att_backward_sources)(const gat_i_fl *l, const gat_i_fbw *b);
    /* layer 0 from stored gradients: dW[p] (F, hw) += X_d^T dz[p] for np <= 4 projections in
     * one pass, over the features of xt (x's transpose, position p holding x's position perm[p]);
     * rows of dW split over threads */
    void (*dw_sparse)(const gat_i_fl *l, const gat_csr *xt, const gat_idx *perm, int np,
                      const gat_real *const *dz, const uint8_t *dz_nonzero, gat_real *const *dW);
    /* Adam's update (gat_adam_step's loop, src/layers/fused_adam.c) with the bias corrections
     * folded into lr and s2 */
    void (*adam)(size_t n, gat_real *p, const gat_real *g, gat_real *m, gat_real *v, gat_real b1,
                 gat_real b2, gat_real wd, gat_real lr, gat_real s2, gat_real eps);
    /* dst (n, Fp, H) = src (n, H, Fo) rows with zero padding (the weights' layout change) */
    void (*to_fh)(const gat_real *src, gat_real *dst, size_t n, int H, gat_idx Fo, gat_idx Fp,
                  int nt);
    /* C (M, N) = A B (beta 0) or C += A B (beta 1), with A (M, K) read at a[m am + k ak] (am = K,
     * ak = 1: row-major A; am = 1, ak = M: A^T of a row-major (K, M)), B (K, N) and C row-major
     * with row strides ldb, ldc; blocks of C over nt threads, the same bits for any nt
     * (src/layers/fused_gemm.c) */
    void (*gemm)(gat_idx M, gat_idx N, gat_idx K, const gat_real *a, size_t am, size_t ak,
                 const gat_real *b, size_t ldb, int beta, gat_real *c, size_t ldc, int nt);
    /* The wide blocks' element-wise passes (src/layers/fused_elem.c), each over nt threads with
     * the same bits for any nt: x (n) through dropout stream key (layers/layers.h: element k kept
     * times scale iff gat_i_keep16(key, k) >= cut, else 0); y (n) = GELU(x), the exact one; dy
     * (n) *= GELU'(x) */
    void (*dropout)(gat_real *x, size_t n, uint32_t cut, gat_real scale, uint64_t key, int nt);
    void (*gelu)(const gat_real *x, gat_real *y, size_t n, int nt);
    void (*gelu_grad)(const gat_real *x, gat_real *dy, size_t n, int nt);
} gat_i_fused_ops;

/* Build k of the kernels (GAT_KERNELS_AUTO: the widest this CPU runs), or NULL if this CPU
 * does not run it, this library was built without it, or k is not a gat_kernels. */
const gat_i_fused_ops *gat_i_fused_get(gat_kernels k);
/* A named build ("base", "avx2", "avx512", exactly) if this CPU runs it, else NULL (tests). */
const gat_i_fused_ops *gat_i_fused_named(const char *isa);
/* GAT_OK if this CPU runs build k, else GAT_EINVAL naming it and the builds it runs (fn: the
 * public function's name that starts the message, or NULL). */
gat_status gat_i_kernels_check(gat_kernels k, const char *fn);

/* Whether a score projects queries (gatv2, scaled-dot, bilinear) or keys (scaled-dot, bilinear)
 * with weights of their own; the others use z. */
static inline int gat_i_score_has_q(gat_score s)
{
    return s == GAT_SCORE_GATV2 || s == GAT_SCORE_SCALED_DOT || s == GAT_SCORE_BILINEAR;
}
static inline int gat_i_score_has_k(gat_score s)
{
    return s == GAT_SCORE_SCALED_DOT || s == GAT_SCORE_BILINEAR;
}

/* Fp for a layer: Fo padded so that Fp * H is a multiple of 8 (H * Fo if H is a multiple of 8). */
static inline gat_idx gat_i_fused_fp(int H, gat_idx Fo)
{
    gat_idx fp = Fo;
    while (((size_t)fp * (size_t)H) % 8 != 0)
        fp++;
    return fp;
}

/* Length of each of gat's score vectors a_src, a_dst in the kernels' layout: hw, or H hw when
 * each head reads the whole row (gat_i_fl.whole); the source chunks' partials hold two. */
static inline size_t gat_i_fused_aw(int whole, int H, gat_idx hw)
{
    return whole ? (size_t)H * (size_t)hw : (size_t)hw;
}

/* Vectors per period of an (Fp, H) row's head pattern: lane c of vector v holds head
 * (8v + c) mod H, which repeats every lcm(8, H) / 8 vectors (1 when H divides 8, H / 8 when 8
 * divides H). Fp H is a multiple of 8 and of H, so a row's vectors are whole periods. */
static inline int gat_i_fused_vper(int H)
{
    const int g = H & -H;
    return H / (g > 8 ? 8 : g);
}

/* n rounded up to a multiple of 16 (64-byte aligned parts of a scratch area). */
#define GAT_I_R16(n) (((size_t)(n) + 15) & ~(size_t)15)

/* Values of one thread's kernel scratch for a layer of H heads of padded width Fp whose dense
 * input rows have fin values (0 for the sparse first layer): an input row and a model-order row,
 * and for the shapes without compile-time sizes five per-head arrays and eight row accumulators
 * (fused_vec.h, scratch_carve). A multiple of 16. */
static inline size_t gat_i_fused_scratch(int H, gat_idx Fp, size_t fin)
{
    const size_t hw = (size_t)Fp * (size_t)H;
    return GAT_I_R16(fin) + GAT_I_R16(hw) + 5 * GAT_I_R16((size_t)H) + 8 * GAT_I_R16(hw);
}

#endif
