/* Exact global self-attention over the nodes of each segment (graph) of a batch (issue 39 item 2):
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

#endif
