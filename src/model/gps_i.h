/* Private to the graph transformer (gat/gps.h): the GAT term of a layer on dense input run by the
 * engine (gps_local.c), and the dense kernels of the layers (gps_ops.c). Shapes: N rows, width D,
 * H heads. */
#ifndef GAT_I_GPS_H
#define GAT_I_GPS_H

#include "gat/gps.h"

/* The GAT term GAT(h) (N, D) of one layer, run by the engine through the public model API: a
 * one-layer gat_model whose input is [h | I_N], D + cap columns, the identity block's weight
 * rows zero. z = [h | I] [W; 0] = h W as a GAT layer on h computes it, and the engine's weight
 * gradient of the identity rows is d loss / d z (N, H D) itself, which gives the input gradient
 * dh = dz W^T that the engine does not compute for its first layer. The identity block costs
 * O(N H D) memory, the size of z. */
typedef struct gat_i_gps_local {
    gat_model *m;  /* the engine's model; in_features D + cap, recreated when N > cap */
    gat_idx D, H, cap;
    double slope, att_p;
    uint64_t seed;
    int threads;
    gat_csr x;     /* (N, D + cap): h_i then a 1 in column D + i */
    gat_idx n;     /* rows of the last forward */
    const gat_graph *g;
} gat_i_gps_local;

/* Parameters of the term (borrowed from the model's buffer): W (D, H D) head-major columns,
 * a_src, a_dst (H, D), b (D); and their gradients. */
typedef struct gat_i_gps_local_params {
    const gat_real *W, *a_src, *a_dst, *b;
    gat_real *dW, *da_src, *da_dst, *db;
} gat_i_gps_local_params;

/* out (N, D) = GAT(h) on g (borrowed until the backward), h (N, D). training: the engine's
 * attention dropout att_p (its own step counter, seeded by seed). Returns GAT_ENOMEM, and the
 * engine's statuses (GAT_EINVAL for a malformed g). */
gat_status gat_i_gps_local_forward(gat_i_gps_local *t, const gat_graph *g, const gat_real *h,
                                   const gat_i_gps_local_params *p, int training, gat_real *out);
/* From dout (N, D): adds dW, da_src, da_dst, db into p's gradients and dh (N, D) += dz W^T. */
gat_status gat_i_gps_local_backward(gat_i_gps_local *t, const gat_i_gps_local_params *p,
                                    const gat_real *dout, gat_real *dh);
void gat_i_gps_local_free(gat_i_gps_local *t);

/* Adam's moment buffers of m (the parameters' layout), for the trainer. */
void gat_i_gps_moments(gat_gps *m, gat_real **m1, gat_real **m2);

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

/* y (N, C) = x (N, R) W (R, C) + b (C; NULL: none), rows in parallel. */
void gat_i_dense_forward(gat_idx N, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                         const gat_real *b, gat_real *y, int nt);
/* dx (N, R) += dy W^T (dx may be NULL), dW (R, C) += x^T dy, db (C) += the column sums of dy (db
 * may be NULL); each output row has one writer and sums in row order (the same bits for any nt).
 * The readout's gat_i_linear_* are the serial form of these for a batch's few pooled rows. */
void gat_i_dense_backward(gat_idx N, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                          const gat_real *dy, gat_real *dx, gat_real *dW, gat_real *db, int nt);

/* Dropout of x (n) in place with probability p from stream key (gat_i_keep16, as every dropout of
 * libgat): kept values scaled by 1 / (1 - p). The backward applies the same to the gradient. */
void gat_i_gps_dropout(gat_real *x, size_t n, double p, uint64_t key);

#endif
