/* Private to the graph transformer (gat/gps.h): the GAT term of a layer on dense input run by the
 * engine (gps_local.c), and the dense kernels of the layers (gps_ops.c). Shapes: N rows, width D,
 * H heads. */
#ifndef GAT_I_GPS_H
#define GAT_I_GPS_H

#include "gat/gps.h"
#include "fast.h"

/* The longest parameter table of a gat_gps (gps.c; model files read up to it) */
#define GAT_I_GPS_MAX_TENSORS (8 + 2 * GAT_MAX_CLASSIFIER_LAYERS + 21 * GAT_MAX_LAYERS)

/* The GAT term GAT(h) (N, D) of one layer, run by the engine (model/fast.h) on the graph
 * transformer's own parameters: one output layer (score gat, H heads of width D averaged, no
 * residual) whose descriptor's offsets are the layer's tensors in the gat_gps buffer, so the
 * engine reads W, a_src, a_dst, b there and adds their gradients into the gradient buffer at the
 * same offsets. The input h is bound as a dense (N, D) matrix with GAT_BIND_INPUT_GRADIENT, so
 * the backward also gives dh. Memory O(N H D + E H), nothing N-sized among the parameters. */
typedef struct gat_i_gps_local {
    gat_i_layer L; /* fin = fo = width = D; its offsets in the gat_gps parameter buffer */
    const gat_i_fused_ops *ops;
    gat_model_options opt; /* the defaults, fixed threads (a binding per forward) */
    double slope, att_p;
    int threads;
    gat_i_fast *f; /* the engine's caches for the last forward's graph, or NULL */
    gat_csr x;     /* (N, D) h, every entry stored; the pattern is made when N changes */
    gat_idx n;     /* rows of x's pattern (-1: none) */
} gat_i_gps_local;

/* A term for input width D, H heads of width Fo, averaged (concat 0: output width W = Fo) or
 * concatenated without an activation (concat 1, the engine's linear layer: W = H Fo), whose
 * tensors W (D, H Fo) head-major columns, a_src, a_dst (H, Fo) and b (W) sit at offsets w, as,
 * ad, b of the model's parameter (and gradient) buffer. Setting L.whole = 1 after it makes a_src,
 * a_dst (H, H Fo), every head's score reading the whole row (gat_gps_config.whole_scores). */
void gat_i_gps_local_init(gat_i_gps_local *t, gat_idx D, gat_idx Fo, int H, int concat, size_t w,
                          size_t as, size_t ad, size_t b, double slope, double att_p, int threads);
/* out (N, W) = GAT(h) on g (borrowed until the backward), h (N, D), with params the model's
 * buffer. training: attention dropout att_p with the masks of key. Returns GAT_ENOMEM. */
gat_status gat_i_gps_local_forward(gat_i_gps_local *t, const gat_graph *g, const gat_real *h,
                                   const gat_real *params, int training, uint64_t key,
                                   gat_real *out);
/* From dout (N, W): adds the term's parameter gradients into grads (the model's gradient
 * buffer) and its input gradient into dh (N, D). */
void gat_i_gps_local_backward(gat_i_gps_local *t, const gat_real *params, gat_real *grads,
                              const gat_real *dout, gat_real *dh);
void gat_i_gps_local_free(gat_i_gps_local *t);

/* Adam's moment buffers of m (the parameters' layout), for the trainer. */
void gat_i_gps_moments(gat_gps *m, gat_real **m1, gat_real **m2);
/* The dropout step counter (advanced by each training forward) and the seed of gat_gps_create:
 * what a checkpoint keeps and matches (io/checkpoint.h). */
uint64_t *gat_i_gps_dropout_step(gat_gps *m);
uint64_t gat_i_gps_seed(const gat_gps *m);

/* Layer normalisation of each row of x (N, D): y = g xhat + b, xhat = (x - mean) rstd,
 * rstd = 1 / sqrt(var + 1e-5); mean and rstd (N) cached for the backward. */
void gat_i_layernorm_forward(gat_idx N, gat_idx D, const gat_real *x, const gat_real *g,
                             const gat_real *b, gat_real *y, gat_real *mean, gat_real *rstd,
                             int nt);
/* dx (N, D) = (overwritten) the input gradient; dg, db (D) += the parameters', summed over the
 * rows in order. */
void gat_i_layernorm_backward(gat_idx N, gat_idx D, const gat_real *x, const gat_real *g,
                              const gat_real *mean, const gat_real *rstd, const gat_real *dy,
                              gat_real *dx, gat_real *dg, gat_real *db, int nt);

/* Batch normalisation of the columns of x (N, D) over its rows. training: the columns' mean and
 * biased variance into mean, rstd (D) (rstd = 1 / sqrt(var + 1e-5)), and the running statistics
 * rmean, rvar (D) moved 0.1 of the way to the mean and the unbiased variance (N > 1); else
 * mean, rstd from rmean, rvar. y = g (x - mean) rstd + b. Columns in parallel, each summed in
 * row order. */
void gat_i_batchnorm_forward(gat_idx N, gat_idx D, const gat_real *x, const gat_real *g,
                             const gat_real *b, int training, gat_real *rmean, gat_real *rvar,
                             gat_real *y, gat_real *mean, gat_real *rstd, int nt);
/* After a training forward: dx (N, D) (overwritten) and dg, db (D) += the parameters' gradients,
 * with xhat = (x - mean) rstd and gy = g dy per column: dx = rstd (gy - mean(gy) - xhat
 * mean(gy xhat)). */
void gat_i_batchnorm_backward(gat_idx N, gat_idx D, const gat_real *x, const gat_real *g,
                              const gat_real *mean, const gat_real *rstd, const gat_real *dy,
                              gat_real *dx, gat_real *dg, gat_real *db, int nt);

/* y (N, C) = x (N, R) W (R, C) + b (C; NULL: none): the kernels' GEMM (gat_i_fused_ops.gemm,
 * blocks of y over nt threads, the same bits for any nt). */
void gat_i_dense_forward(gat_idx N, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                         const gat_real *b, gat_real *y, int nt);
/* dx (N, R) += dy W^T (dx may be NULL), dW (R, C) += x^T dy (GEMM, as the forward), db (C) += the
 * column sums of dy in row order (db may be NULL); wt: (R C) scratch for W^T. The readout's
 * gat_i_linear_* are the serial form of these for a batch's few pooled rows. */
void gat_i_dense_backward(gat_idx N, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                          const gat_real *dy, gat_real *dx, gat_real *dW, gat_real *db,
                          gat_real *wt, int nt);

/* Dropout of x (n) in place with probability p from stream key (gat_i_keep16, as every dropout of
 * libgat): kept values scaled by 1 / (1 - p), elements in parallel on nt threads (each its own
 * decision: the same for any nt). The backward applies the same to the gradient. */
void gat_i_gps_dropout(gat_real *x, size_t n, double p, uint64_t key, int nt);

#endif
