/* Positional and structural node encodings for attention over whole graphs (issue 39), and
 * exact global self-attention over the nodes of each graph of a batch.
 *
 * The graph both encodings see: the undirected simple graph of a gat_graph, i.e. j and i are
 * adjacent (weight 1) when an edge i <- j or j <- i exists and i != j (the builder's self-loops
 * and the direction of a directed graph are ignored; duplicate edges count once). d_i is the
 * degree there, A the adjacency, S = D^-1/2 A D^-1/2 and L = I - S the normalised Laplacian
 * (a node of degree 0 has a zero row in S).
 *
 * Laplacian eigenvector encoding (lap:K): per connected component C (so per graph of a dataset
 * of many graphs, gat_dataset.graph_ptr, and per component of a disconnected graph) the
 * eigenvectors of L restricted to C for its K smallest eigenvalues after the trivial one
 * (lambda_1 = 0, eigenvector D^1/2 1), ascending, each of unit norm over C, written to the
 * component's rows; the other rows of that column are 0. A component of c <= K nodes has only
 * c - 1 such eigenvectors: its remaining columns are 0 (so an isolated node's row is all 0).
 * Sign: the entry of largest magnitude of each eigenvector (the first such in node order) is
 * positive. Within a repeated eigenvalue the basis is one LAPACK or ARPACK chose; it is a
 * function of the graph and the options only.
 * Components of at most gat_pe_options.dense_max nodes: the dense L, LAPACK dsyevr (eigenpairs
 * 2 .. K+1), O(c^3) time and 8 c^2 bytes. Larger ones: ARPACK's implicitly restarted Lanczos
 * (dsaupd/dseupd, mode 1, "LA") on M = 2I - L - 2 u u^T with u = D^1/2 1 / |D^1/2 1|: its
 * largest eigenvalues are 2 - lambda_2, 2 - lambda_3, ... (the trivial pair is deflated exactly
 * to 0), O(restarts * (E_c + c * ncv^2)) time and about 8 c (ncv + 4) bytes, ncv = max(2K+1, 20).
 * Lanczos needs no factorisation (shift-invert would need a sparse Cholesky with its fill-in);
 * its convergence slows when lambda_2..lambda_K+2 are close to each other relative to 2.
 *
 * Random-walk structural encoding (rw:K): for k = 1..K, the probability (D^-1 A)^k_ii that a
 * random walk from i is back at i after k steps. Exact: (D^-1 A)^k = D^-1/2 S^k D^1/2 has the
 * diagonal of S^k, and S^k_ii = (S^a e_i) . (S^b e_i) with a = floor(k/2), b = k - a, so each node
 * propagates a sparse vector over its ceil(K/2)-hop ball only: time O(sum_i of the edges within
 * ceil(K/2) hops of i), which grows quickly on graphs with hubs; memory per thread about
 * 16 n (ceil(K/2) + 1) bytes.
 *
 * Both are deterministic and identical for any thread count (each output row or matrix-vector
 * product row is computed by one thread in a fixed order; LAPACK and ARPACK run as the BLAS
 * they link is configured). ARPACK keeps state in static variables: do not run two gat_lap_pe
 * calls with components larger than dense_max at once in one process. */
#ifndef GAT_ENCODE_H
#define GAT_ENCODE_H

#include "graph.h"
#include "matrix.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which encodings, in the column order they are written: lap_k Laplacian columns, then rw_k
 * random-walk columns. 0 leaves one out. */
typedef struct gat_pe_spec {
    gat_idx lap_k;
    gat_idx rw_k;
} gat_pe_spec;

/* The largest K of one encoding (a limit of this implementation, not of the method). */
#define GAT_PE_MAX_K 64

/* Parses "lap:K", "rw:K" or "lap:K,rw:K" (either order, each at most once, K in
 * 1..GAT_PE_MAX_K) into *out (set on success only). GAT_EINVAL names the offending part. */
GAT_API gat_status gat_pe_spec_parse(const char *text, gat_pe_spec *out);
/* Writes the canonical text of spec ("lap:8,rw:16", "rw:4", "" for none) to buf (size bytes,
 * NUL-terminated); GAT_EINVAL for a bad spec or a buffer too small (32 bytes always suffice). */
GAT_API gat_status gat_pe_spec_format(const gat_pe_spec *spec, char *buf, size_t size);

typedef struct gat_pe_options {
    gat_idx dense_max; /* components of at most this many nodes use dsyevr (default 512) */
    double tol;        /* ARPACK's relative residual tolerance (default 1e-9) */
    int max_restarts;  /* ARPACK's restart limit (default 3000) */
    int threads;       /* OpenMP threads, 0: the OpenMP default (results do not depend on it) */
} gat_pe_options;

/* The defaults above. */
GAT_API void gat_pe_options_init(gat_pe_options *opt);

/* What one computation cost, for the caller to print. */
typedef struct gat_pe_cost {
    double seconds;      /* wall time of the call */
    size_t bytes;        /* peak working memory allocated by the call (the output excluded) */
    gat_idx components;  /* connected components (lap) */
    gat_idx dense;       /* components solved with dsyevr */
    gat_idx iterative;   /* components solved with ARPACK */
    long matvecs;        /* ARPACK operator applications, all components */
} gat_pe_cost;

/* Laplacian eigenvector encoding (above) of g into out: row i of node i at out + i * ld, columns
 * 0..k-1 (ld >= k, so that it can fill columns of a wider matrix). g: a built graph (gat/graph.h),
 * borrowed; opt: NULL for the defaults; cost: NULL or filled on success.
 * Returns GAT_EINVAL (NULL g or out, k outside 1..GAT_PE_MAX_K, ld < k, bad options),
 * GAT_ENOMEM, GAT_EDEP (dsyevr failed or ARPACK did not converge: the message names the
 * component's first node, its size and ARPACK's info code). */
GAT_API gat_status gat_lap_pe(const gat_graph *g, gat_idx k, const gat_pe_options *opt,
                              gat_real *out, size_t ld, gat_pe_cost *cost);

/* Random-walk encoding (above) of g into out: (D^-1 A)^k_ii for k = 1..K in columns 0..K-1 of
 * row i at out + i * ld (ld >= K). threads: as gat_pe_options.threads. cost: NULL or filled.
 * Returns GAT_EINVAL (NULL g or out, K outside 1..GAT_PE_MAX_K, ld < K), GAT_ENOMEM. */
GAT_API gat_status gat_rw_pe(const gat_graph *g, gat_idx K, int threads, gat_real *out,
                             size_t ld, gat_pe_cost *cost);

/* Both encodings of spec into out (n, width) row-major: the lap_k columns, then the rw_k ones,
 * written at column offset `col` of each row (width >= col + lap_k + rw_k). cost: NULL or the
 * sums of both calls. Statuses of gat_lap_pe and gat_rw_pe; GAT_EINVAL for a spec with no
 * encoding. */
GAT_API gat_status gat_pe_compute(const gat_graph *g, const gat_pe_spec *spec,
                                  const gat_pe_options *opt, gat_real *out, size_t width,
                                  size_t col, gat_pe_cost *cost);

/* Multiplies each of the n_cols columns col .. col + n_cols - 1 of x (n, width) by a sign drawn
 * from (seed, column): the random sign flip of Laplacian encodings during training (an
 * eigenvector's sign is arbitrary, so the model should not learn it). Deterministic in seed. */
GAT_API void gat_pe_flip_signs(gat_real *x, gat_idx n, size_t width, size_t col, size_t n_cols,
                               uint64_t seed);

/* Node features with encodings: *out (uninitialised; owned by the caller, gat_csr_destroy) =
 * [x | P], x's columns 0..F-1 as they are, then spec's encodings of g (gat_pe_compute) in columns
 * F .. F + lap_k + rw_k - 1, every one of them stored in every row (zeros too, so that the
 * pattern never depends on the values). This is how gat-train feeds encodings to a model:
 * concatenated to the input, which the first layer projects, x W + P W_p = [x | P] [W; W_p], the
 * same function as adding a learned projection of P. g, x: borrowed, x->rows == g->n. cost: NULL or
 * filled, its bytes including the dense (n, K) encodings held while merging. Returns GAT_EINVAL
 * (NULL argument, a spec with no encoding, more than INT32_MAX values or columns; x malformed as
 * gat_csr_check says), GAT_ENUMERIC (x), GAT_EDIM (x->rows != g->n), GAT_ENOMEM, and the statuses
 * of gat_lap_pe and gat_rw_pe. Cost: the encodings' + O(nnz(x) + n K). */
GAT_API gat_status gat_pe_append(const gat_graph *g, const gat_csr *x, const gat_pe_spec *spec,
                                 const gat_pe_options *opt, gat_csr *out, gat_pe_cost *cost);

/* gat_pe_flip_signs on a CSR matrix: the stored values of columns col .. col + n_cols - 1 of x
 * change sign where gat_pe_flip_signs would flip that column (the same draw from seed and the
 * column's offset c = column - col); flipping twice with one seed restores x. Returns GAT_EINVAL
 * (NULL x, the columns outside x). Cost O(nnz(x)). */
GAT_API gat_status gat_pe_flip_signs_csr(gat_csr *x, gat_idx col, gat_idx n_cols, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
