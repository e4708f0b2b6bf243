/* The reference kernels the tests hold the library's engine to: one plain, serial loop per
 * single op of a GAT layer and of the attention family, each forward beside its backward. They
 * are the specification, written to be read, not to be fast; they ship in no library (libgatref
 * is linked by the tests only), and the tests compare the engine with them within a tolerance.
 *
 * Shapes as in src/layers/layers.h: N nodes, E edges in in-CSR order (edge k of row i is j -> i
 * with j = col[k]), H heads, Fo per-head width, (N, H, Fo) row-major. Every backward ADDS into
 * the gradients it writes (+=); the caller zeroes them. Nothing checks its arguments. */
#ifndef GAT_TEST_REF_H
#define GAT_TEST_REF_H

#include "gat/graph.h"
#include "gat/matrix.h"
#include "scores.h"

#include <stddef.h>
#include <stdint.h>

/* ---- GAT's additive score ---- */
/* s (N, H): s_ih = Z_ih . a_h for Z (N, H, Fo), a (H, Fo). */
void ref_head_dot(gat_idx N, int H, gat_idx Fo, const gat_real *Z, const gat_real *a, gat_real *s);
/* dZ_ih += ds_ih a_h; da_h += sum_i ds_ih Z_ih. */
void ref_head_dot_backward(gat_idx N, int H, gat_idx Fo, const gat_real *Z, const gat_real *a,
                           const gat_real *ds, gat_real *dZ, gat_real *da);
/* e (E, H): e_kh = LeakyReLU(s_dst[i, h] + s_src[j, h]) for edge k = j -> i. */
void ref_edge_scores(const gat_graph *g, int H, double slope, const gat_real *s_dst,
                     const gat_real *s_src, gat_real *e);
/* ds_dst[i] and ds_src[j] += de_k LeakyReLU'(s_dst[i] + s_src[j]) per edge k = j -> i, head. */
void ref_edge_scores_backward(const gat_graph *g, int H, double slope, const gat_real *s_dst,
                              const gat_real *s_src, const gat_real *de, gat_real *ds_dst,
                              gat_real *ds_src);

/* ---- the attention family's scores (src/layers/scores.h) ---- */
/* e (E, H): e_kh = s(q_i, k_j; theta_h) for edge k = j -> i, from a's g, score, H, D, q, k, att,
 * theta, slope (a's caches are neither read nor written: norms are recomputed per edge). */
void ref_score_edges(const gat_i_score_args *a, gat_real *e);
/* dq_i += de ds/dq_i, dk_j += de ds/dk_j per edge; datt (H, D) for gatv2 and dtheta (H) for
 * cosine and gaussian when not NULL. */
void ref_score_edges_backward(const gat_i_score_args *a, const gat_real *de, gat_real *dq,
                              gat_real *dk, gat_real *datt, gat_real *dtheta);

/* ---- softmax, aggregation, head mean ---- */
/* alpha (E, H): per row i and head, exp(e_k - max) / sum over the row's edges (an empty row has
 * no edges and nothing to write). */
void ref_edge_softmax(const gat_graph *g, int H, const gat_real *e, gat_real *alpha);
/* de_k += alpha_k (dalpha_k - sum over the row of alpha dalpha). */
void ref_edge_softmax_backward(const gat_graph *g, int H, const gat_real *alpha,
                               const gat_real *dalpha, gat_real *de);
/* out (N, H, Fo): out_ih = sum over edges k = j -> i of alpha_kh Z_jh (overwrites). */
void ref_aggregate(const gat_graph *g, int H, gat_idx Fo, const gat_real *alpha, const gat_real *Z,
                   gat_real *out);
/* dalpha_kh += dout_ih . Z_jh; dZ_jh += alpha_kh dout_ih. */
void ref_aggregate_backward(const gat_graph *g, int H, gat_idx Fo, const gat_real *alpha,
                            const gat_real *Z, const gat_real *dout, gat_real *dalpha,
                            gat_real *dZ);
/* out (N, Fo) = mean over heads of in (N, H, Fo); backward din_ih += dout_i / H. */
void ref_head_mean(gat_idx N, int H, gat_idx Fo, const gat_real *in, gat_real *out);
void ref_head_mean_backward(gat_idx N, int H, gat_idx Fo, const gat_real *dout, gat_real *din);

/* ---- element-wise ops ---- */
/* mask (n): element k of stream key is kept (1) iff gat_i_keep16(key, k) >= gat_i_drop_cut(p). */
void ref_dropout_mask(size_t n, double p, uint64_t key, uint8_t *mask);
/* y (n) = mask ? x scale : 0; backward dx += mask ? dy scale : 0. */
void ref_dropout(size_t n, const gat_real *x, const uint8_t *mask, gat_real scale, gat_real *y);
void ref_dropout_backward(size_t n, const uint8_t *mask, gat_real scale, const gat_real *dy,
                          gat_real *dx);
/* y (n) = x > 0 ? x : exp(x) - 1; backward from the output: dx += dy (y > 0 ? 1 : y + 1). */
void ref_elu(size_t n, const gat_real *x, gat_real *y);
void ref_elu_backward(size_t n, const gat_real *y, const gat_real *dy, gat_real *dx);
/* y (N, M) += b (M) per row; backward db += column sums of dy (N, M). */
void ref_bias_add(gat_idx N, gat_idx M, const gat_real *b, gat_real *y);
void ref_bias_backward(gat_idx N, gat_idx M, const gat_real *dy, gat_real *db);

/* ---- sparse features ---- */
/* xt = x^T (cols x rows; initialised here, the caller destroys it) with perm[p] = the position in
 * x of xt's position p (nnz(x) values). Column by column over all of x: O(cols nnz). Returns
 * gat_csr_init's status. */
gat_status ref_csr_transpose_perm(const gat_csr *x, gat_csr *xt, gat_idx *perm);

#endif
