/* Exact global self-attention over the nodes of each segment (graph) of a batch (issue 39 item 2),
 * and its approximation on one large graph by attention over an anchor set of keys (item 4):
 *   O[i,h] = sum_{j in seg(i)} softmax_j(s q[i,h] . k[j,h]) v[j,h],   s = 1 / sqrt(D),
 * computed streaming (online maximum and sum per row, FlashAttention-style), so memory is the
 * inputs, the output and one log-sum-exp per (row, head): O(n H D), never O(n^2). Segment g holds
 * nodes seg_ptr[g] .. seg_ptr[g+1]-1 (gat_dataset.graph_ptr: 0 = seg_ptr[0] < ... <
 * seg_ptr[n_seg] = n); no row attends outside its segment. Not yet a model layer type (the
 * projections to q, k, v and the output are the caller's). Kernels: preconditions stated, nothing
 * checked, no allocation. Every output row is computed by one thread as a gather in a fixed
 * order, so results are the same bits for any thread count (no atomics). */
#ifndef GAT_I_GLOBAL_ATTN_H
#define GAT_I_GLOBAL_ATTN_H

#include "gat/status.h"

#include <stdint.h>

/* Forward. q, k, v, out: (n, H, D) row-major; lse: (n, H) cache, log sum_j exp(s q_i . k_j) (in
 * the scaled units), read by backward. nt: OpenMP threads (>= 1). Cost O(sum_g n_g^2 H D). */
void gat_i_global_attn_forward(gat_idx n, gat_idx H, gat_idx D, gat_idx n_seg,
                               const gat_idx *seg_ptr, const gat_real *q, const gat_real *k,
                               const gat_real *v, gat_real *out, gat_real *lse, int nt);

/* Backward from dout (n, H, D), adding into dq, dk, dv (n, H, D) (+=). out and lse: forward's.
 * delta: (n, H) scratch, overwritten (rowwise dout . out). Recomputes the coefficients twice:
 * once per row i for dq (gather over keys j), once per key j for dk and dv (gather over rows i),
 * so that each gradient row has one writer. Cost about 3x the forward. */
void gat_i_global_attn_backward(gat_idx n, gat_idx H, gat_idx D, gat_idx n_seg,
                                const gat_idx *seg_ptr, const gat_real *q, const gat_real *k,
                                const gat_real *v, const gat_real *out, const gat_real *lse,
                                const gat_real *dout, gat_real *delta, gat_real *dq,
                                gat_real *dk, gat_real *dv, int nt);

/* Anchor attention, the approximation of one segment's exact attention on a large graph: every
 * row attends to the M anchor rows only,
 *   O[i,h] = sum_{a < M} softmax_a(s q[i,h] . k[anchor[a],h]) v[anchor[a],h],
 * which for anchors drawn uniformly (gat_i_anchor_pick) is the self-normalised importance-
 * sampling estimate of the exact O (the n / M weights cancel in the ratio): biased by O(1/M),
 * with a spread of O(1/sqrt(M)) that grows with the spread of the attention weights (docs/
 * encodings.md measures it). anchor: (M) distinct rows, ascending. Shapes, lse and threads as
 * above. Cost O(n M H D) time, no memory beyond the arrays. */
void gat_i_anchor_attn_forward(gat_idx n, gat_idx H, gat_idx D, gat_idx M, const gat_idx *anchor,
                               const gat_real *q, const gat_real *k, const gat_real *v,
                               gat_real *out, gat_real *lse, int nt);
/* Backward of the anchor attention: adds dq (n, H, D) for every row and dk, dv at the anchor
 * rows only (other rows untouched); delta (n, H) scratch. Each anchor's rows are one gather
 * over the n query rows (one writer: the same bits for any thread count). Cost about 3x the
 * forward. */
void gat_i_anchor_attn_backward(gat_idx n, gat_idx H, gat_idx D, gat_idx M,
                                const gat_idx *anchor, const gat_real *q, const gat_real *k,
                                const gat_real *v, const gat_real *out, const gat_real *lse,
                                const gat_real *dout, gat_real *delta, gat_real *dq,
                                gat_real *dk, gat_real *dv, int nt);
/* M distinct rows of 0 .. n-1 (M <= n) drawn uniformly from seed, ascending, into anchor (M).
 * The same rows for a seed on every machine. Cost O(n). */
void gat_i_anchor_pick(gat_idx n, gat_idx M, uint64_t seed, gat_idx *anchor);

#endif
