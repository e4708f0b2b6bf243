/* Private kernels of the attention family (scores.c): every score function but GAT's additive
 * one, in one general form. Per edge j -> i and head h the score is e = s(q_i, k_j; theta_h) of a
 * node-level query q_i and key k_j (N, H, D):
 *   gatv2       a_h . LeakyReLU(q_i + k_j (+ ze_ij))         (q = W_dst h, k = z = W h; ze =
 *                                                             W_e x_ij with edge features)
 *   dot         q_i . k_j                                    (q = k = z)
 *   scaled-dot  q_i . k_j / sqrt(D)                          (q = Q h, k = K h)
 *   bilinear    q_i . k_j                                    (q = W_q h, k = W_k h)
 *   cosine      beta_h q_i . k_j / (|q_i| |k_j|)             (q = k = z)
 *   gaussian    -|q_i - k_j|^2 / (2 sigma_h^2), sigma_h = exp(theta_h)   (q = k = z)
 * then alpha = softmax over i's in-neighbourhood (max subtracted) and out_i = sum_j alpha z_j of
 * the values z (N, H, Fo), heads concatenated or averaged. Norms are smoothed,
 * |v| = sqrt(v . v + GAT_I_COS_EPS), so cosine stays differentiable at v = 0.
 * Kernels check nothing, never allocate, and ADD into every gradient (+=). */
#ifndef GAT_I_SCORES_H
#define GAT_I_SCORES_H

#include "plain.h"
#include "gat/model.h"

typedef struct gat_i_score_args {
    const gat_graph *g;
    gat_score score; /* any but GAT_SCORE_GAT */
    int H;
    gat_idx Fo, D;         /* value width, query/key width (per head) */
    double slope;          /* gatv2's LeakyReLU slope */
    const gat_real *z;     /* (N, H, Fo) values */
    const gat_real *q, *k; /* (N, H, D) queries and keys; may alias each other and z */
    const gat_real *att;   /* gatv2: (H, D); else unused */
    const gat_real *ze;    /* gatv2 with edge features: (E, H, D) W_e x_ij, added inside the
                            * LeakyReLU (GATv2Conv(edge_dim)), or NULL */
    gat_real *dze;         /* with ze: (E, H, D) its gradient, ADDED by the backward */
    const gat_real *theta; /* cosine: beta (H); gaussian: log sigma (H); else unused */
    gat_real *qinv, *kinv; /* cosine: (N, H) cached 1 / |q_i|, 1 / |k_j|; else unused */
    gat_real *alpha;       /* (E, H) cached softmax coefficients (before attention dropout) */
    const uint8_t *amask;  /* (E, H) attention dropout mask, or NULL for none */
    gat_real ascale;       /* 1 / (1 - p) */
    int mean;              /* 1: average heads into (N, Fo); 0: concatenate (N, H, Fo) */
    const gat_idx *rows;   /* forward: compute only these output rows (ascending), or NULL */
    gat_idx n_rows;
    int nt;
} gat_i_score_args;

/* out = sum_j dropout(alpha_ij) z_j per head, concatenated (N, H, Fo) or averaged (N, Fo), for
 * every target row (or only a->rows; the cosine norms are computed for all nodes). One pass per
 * CSR row: scores, max, exponentials, normalisation and the weighted sum together. Caches only
 * alpha (E, H) and, for cosine, the inverse norms (N, H). Cost O(E H (D + Fo)). */
void gat_i_score_forward(const gat_i_score_args *a, gat_real *out);

/* Scratch of gat_i_score_backward: de (E, H); partial (nt, H * D + H) per-thread sums. */
typedef struct gat_i_score_scratch {
    gat_real *de, *partial;
} gat_i_score_scratch;

/* Size of gat_i_score_scratch.partial for nt threads, in values. */
static inline size_t gat_i_score_partial_size(int nt, int H, gat_idx D)
{
    return (size_t)nt * ((size_t)H * D + (size_t)H);
}

/* Given dy (N, H, Fo) (for averaged heads pass dout / H expanded per head), adds dz (N, H, Fo),
 * dq and dk (N, H, D; pass the same buffer wherever the forward's inputs alias), datt (H, D) for
 * gatv2 and dtheta (H) for cosine and gaussian (NULL otherwise). Query-side gradients go row by
 * row over the CSR, key-side and value gradients gather over the transposed CSR: each thread
 * writes only its own rows, no atomics; per-edge values are recomputed from q_i and k_j rather
 * than cached (nothing of size E H D is kept). Parameter sums are added in thread order, so a
 * thread count always gives the same bits. Cost O(E H (D + Fo)). */
void gat_i_score_backward(const gat_i_score_args *a, const gat_real *dy,
                          const gat_i_score_scratch *s, gat_real *dz, gat_real *dq, gat_real *dk,
                          gat_real *datt, gat_real *dtheta);

/* (The plain reference of the edge scores, the specification these kernels are tested
 * against, is ref_score_edges in tests/ref/; the projections for the extra tensors, gat_i_spmm_acc,
 * gat_i_gemm_nn_acc and gat_i_gemm_nt_acc, are in layers.h.) */

#endif
