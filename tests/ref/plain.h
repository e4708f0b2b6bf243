/* The plain kernels of the layer-by-layer reference model (tests/ref/loop.c), test-only: ops.c
 * (BLAS and sparse projections, input dropout and its mask, ELU, the bias gradient),
 * gat_attention.c (the GAT score's attention), and the row helpers the attention family
 * (scores.c, scores.h) shares with it. Shapes: N nodes, E edges (in-CSR order), H heads, Fo
 * per-head width, (N, H, Fo) = row-major N x (H*Fo). Kernels check nothing and never allocate;
 * backward kernels ADD into every gradient they write (+=), the caller zeroes. `nt` is the
 * OpenMP thread count. */
#ifndef GAT_REF_PLAIN_H
#define GAT_REF_PLAIN_H

#include "layers/layers.h"

/* exp for the plain float kernels: Cephes' single-precision polynomial (max. relative error ~2 ulp),
 * branch-free so that loops calling it vectorise, unlike libm's expf (the rounding of x log2(e)
 * is a truncation of t +- 0.5, which SSE2 has, not floorf, which it lacks). x is clamped to the
 * normal range; NaN stays NaN. The double build (gradient checks) uses libm's exp. */
#ifdef GAT_REAL_DOUBLE
#define gat_i_exp(x) exp(x)
#else
static inline float gat_i_exp(float x)
{
    x = x < -87.3f ? -87.3f : (x > 88.3f ? 88.3f : x);
    float t = x * 1.44269504088896341f;
    t = t == t ? t : 0.0f; /* no NaN into the integer conversion (undefined behaviour) */
    const int32_t ni = (int32_t)(t + (t >= 0 ? 0.5f : -0.5f));
    const float n = (float)ni;
    const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    union { int32_t i; float f; } u = {.i = (ni + 127) << 23};
    return p * u.f;
}
#endif

/* Attention dropout's factor for edge-head kh: 0 or 1 / (1 - p); 1 without a mask. */
static inline gat_real gat_i_att_keep(const uint8_t *amask, gat_real ascale, size_t kh)
{
    return amask ? (gat_real)amask[kh] * ascale : 1;
}

/* The end of target row i's edge softmax, shared by the GAT and the score-family kernels. On
 * entry al[k H + h] (k over the row's edges) holds the scores and mx (H) their row maxima; on
 * return al holds the softmax coefficients (before attention dropout) and out_i = sum_k
 * dropout(alpha_k) z_j per head, concatenated (H Fo) or head-averaged (Fo, `mean`). Always
 * inlined, so H and Fo stay compile-time constants where the caller's are. */
GAT_I_INLINE void gat_i_softmax_aggregate_row(const gat_graph *g, gat_idx i, int H, gat_idx Fo,
                                              const gat_real *restrict z, gat_real *restrict al,
                                              const gat_real *mx, const uint8_t *amask,
                                              gat_real ascale, int mean, gat_real *out)
{
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const size_t W = (size_t)H * Fo;
    gat_real sum[GAT_I_MAX_HEADS];
    for (int h = 0; h < H; h++)
        sum[h] = 0;
    for (gat_idx k = k0; k < k1; k++)
        for (int h = 0; h < H; h++) {
            const gat_real v = gat_i_exp(al[(size_t)k * H + h] - mx[h]);
            al[(size_t)k * H + h] = v;
            sum[h] += v;
        }
    for (int h = 0; h < H; h++)
        sum[h] = 1 / sum[h];

    /* normalise and aggregate together: out_i = sum_k dropout(alpha_k) z_j */
    const gat_real invh = mean ? (gat_real)1 / H : 1;
    const size_t ow = mean ? (size_t)Fo : W;
    gat_real *restrict o = out + (size_t)i * ow;
    memset(o, 0, ow * sizeof *o);
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *restrict zj = z + (size_t)g->col[k] * W;
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)k * H + h;
            const gat_real alpha = al[kh] * sum[h];
            al[kh] = alpha;
            const gat_real w = alpha * gat_i_att_keep(amask, ascale, kh) * invh;
            gat_real *restrict oh = mean ? o : o + (size_t)h * Fo;
            for (gat_idx f = 0; f < Fo; f++)
                oh[f] += w * zj[(size_t)h * Fo + f];
        }
    }
}

/* ---- projections ---- */
/* Z (N, M) = X (N, K) W (K, M), X dense row-major; row blocks over nt threads, BLAS inside. */
void gat_i_gemm_nn(gat_idx N, gat_idx K, gat_idx M, const gat_real *X, const gat_real *W,
                   gat_real *Z, int nt);
/* dW (K, M) += X^T (K, N) dZ (N, M); column blocks of X over threads. */
void gat_i_gemm_tn_acc(gat_idx N, gat_idx K, gat_idx M, const gat_real *X, const gat_real *dZ,
                       gat_real *dW, int nt);
/* dX (N, K) = dZ (N, M) W^T (M, K) (overwrites). */
void gat_i_gemm_nt(gat_idx N, gat_idx K, gat_idx M, const gat_real *dZ, const gat_real *W,
                   gat_real *dX, int nt);
/* Z (N, M) += X (N, K) W (K, M), dense X; row blocks over threads. */
void gat_i_gemm_nn_acc(gat_idx N, gat_idx K, gat_idx M, const gat_real *X, const gat_real *W,
                       gat_real *Z, int nt);
/* dX (N, K) += dZ (N, M) W^T; row blocks over threads. */
void gat_i_gemm_nt_acc(gat_idx N, gat_idx K, gat_idx M, const gat_real *dZ, const gat_real *W,
                       gat_real *dX, int nt);
/* Z (N, M) = X W with X sparse (N, K) whose values are `val` (nnz), W (K, M). */
void gat_i_spmm(const gat_csr *x, const gat_real *val, gat_idx M, const gat_real *W, gat_real *Z,
                int nt);
/* Rows of Z (N, M) += X W for X sparse with values val (nnz(x)), only the listed rows (ascending)
 * or all rows if rows == NULL; W NULL means the identity (requires M == x->cols). */
void gat_i_spmm_acc(const gat_csr *x, const gat_real *val, gat_idx M, const gat_real *W,
                    const gat_idx *rows, gat_idx n_rows, gat_real *Z, int nt);
/* dW (K, M) += X^T dZ, X sparse given by its transpose xt (K, N) whose position p holds the
 * value val[perm[p]] of x. Rows of dW are split over threads (race-free). */
void gat_i_spmm_backward_w(const gat_csr *xt, const gat_idx *perm, const gat_real *val,
                           gat_idx M, const gat_real *dZ, gat_real *dW, int nt);

/* ---- element-wise ops ---- */
/* y = x * mask * scale (n); the reference model's input dropout. */
void gat_i_dropout(size_t n, const gat_real *x, const uint8_t *mask, gat_real scale, gat_real *y);
/* mask (n) = 1 with probability 1 - p, from the counter-based stream key (gat_i_keep16). */
void gat_i_dropout_mask(size_t n, double p, uint64_t key, uint8_t *mask, int nt);
/* y = ELU(x) (in place allowed). */
void gat_i_elu(size_t n, const gat_real *x, gat_real *y);
/* db (M) += column sums of dy (N, M). */
void gat_i_bias_backward(gat_idx N, gat_idx M, const gat_real *dy, gat_real *db);

/* ---- fused attention (gat_attention.c) ---- */
typedef struct gat_i_att_args {
    const gat_graph *g;
    int H;
    gat_idx Fo;
    double slope;
    const gat_real *z;       /* (N, H, Fo) projected features */
    const gat_real *a_src;   /* (H, Fo) */
    const gat_real *a_dst;   /* (H, Fo) */
    const gat_real *sb;      /* (2, H) the score halves' biases b_dst, b_src, both added to s_dst
                              * (gat_model_config.score_bias), or NULL */
    gat_real *s_src, *s_dst; /* (N, H) cached per-node score halves */
    const gat_real *eterm;   /* (E, H) the edge term a_edge . (W_e x_ij), added to the LeakyReLU
                              * input, or NULL (no edge features) */
    gat_real *alpha;         /* (E, H) cached softmax coefficients (before attention dropout) */
    const uint8_t *amask;    /* (E, H) attention dropout mask, or NULL for none */
    gat_real ascale;         /* 1 / (1 - p) */
    int mean;                /* 1: average heads into (N, Fo); 0: concatenate (N, H, Fo) */
    const gat_idx *rows;     /* forward: compute only these output rows (ascending), or NULL */
    gat_idx n_rows;
    int nt;
    /* projection dropout (gat_model_config.proj_dropout): the aggregation reads zagg (N, H, Fo) =
     * z times zmask (N, H, Fo) and zscale instead of z (the scores read z); zagg NULL: z */
    const gat_real *zagg;
    const uint8_t *zmask;
    gat_real zscale;
} gat_i_att_args;

/* out = sum_j dropout(alpha_ij) z_j per head, concatenated or averaged, for every target row
 * (or only args->rows; s_src/s_dst are computed for all nodes). One pass over each CSR row:
 * scores, max, exponentials, normalisation and the weighted sum together. */
void gat_i_attention_forward(const gat_i_att_args *a, gat_real *out);

/* Scratch of gat_i_attention_backward: dpre (E, H) (on return d loss / d LeakyReLU input, which
 * the edge term's backward reads), ds_src and ds_dst (N, H), partial sums
 * (nt, 2, H, Fo). */
typedef struct gat_i_att_scratch {
    gat_real *dpre, *ds_src, *ds_dst, *partial;
} gat_i_att_scratch;

/* Given dy (N, H, Fo) (the gradient of the concatenated output; for averaged heads pass
 * dout / H expanded per head), adds dz (N, H, Fo), da_src and da_dst (H, Fo). Gathers over the
 * transposed CSR, so each thread writes only its own rows. */
void gat_i_attention_backward(const gat_i_att_args *a, const gat_real *dy,
                              const gat_i_att_scratch *s, gat_real *dz, gat_real *da_src,
                              gat_real *da_dst);

#endif
