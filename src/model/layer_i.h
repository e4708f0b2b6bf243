/* Private: one attention layer as gat_model_create describes it, once. The model, its engine
 * (model/fast*.c), distributed training's exchange (src/mpi) and the tests' reference model
 * (tests/ref/loop.c) all read this table; nothing recomputes a shape, an offset or a padded
 * width from the configuration. */
#ifndef GAT_I_LAYER_H
#define GAT_I_LAYER_H

#include "gat/model.h"

#include <stddef.h>

typedef struct gat_i_layer {
    gat_idx fin, fo, width; /* input width, per-head width, output width (heads x fo hidden,
                             * fo on the output layer) */
    int heads, mean;        /* mean: the output layer (heads averaged, no ELU) */
    int linear;             /* with mean 0: heads concatenated without the ELU, the one layer
                             * of an engine whose output is the caller's (the graph
                             * transformer's gat-bn kind); its gradient comes as dlogits */
    gat_score score;        /* every layer of a model has the same */
    gat_idx Fp, hw;         /* the kernels' layout (layers/fused.h): fo padded to Fp
                             * (gat_i_fused_fp), rows of hw = Fp x heads values */
    int has_q, has_k;       /* the score projects queries / keys with weights of their own */
    /* offsets in the parameter (and gradient) buffer: W (fin, heads*fo), a_src, a_dst
     * (heads, fo; gat), b (width) */
    size_t w, a_src, a_dst, b;
    /* gat: 1 when a_src and a_dst are (heads, heads*fo), each head's score halves reading the
     * whole row z_i (s_src_ih = z_i . a_src[h]), as Platonov et al.'s GAT; 0: (heads, fo), each
     * head its own slice */
    int whole;
    /* other scores (gat/model.h): the query and key projections (fin, heads*fo), gatv2's att
     * (heads, fo), cosine's beta or gaussian's log sigma (heads) */
    size_t wq, wk, att, theta;
    int residual; /* 0 none; 1 x_d R with R (fin, width) at offset res; 2 x_d (identity,
                   * fin == width) */
    size_t res;
    gat_idx edge_dim; /* D > 0 (gat, gatv2): the edge term, W_e (D, heads*fo) at offset we and
                       * (gat) a_edge (heads, fo) at ae */
    size_t we, ae;
    /* the reference code's dropout placement (gat_model_config.head_dropout, proj_dropout;
     * gat_i_fl.head_drop, pdrop): a mask per head on the input, and the dropout probability of
     * the projections before aggregation (0: none) */
    int head_drop;
    double proj_p;
    /* gat_model_config.score_bias: 1, (2, heads) at offset sb, b_dst then b_src, added (summed)
     * to s_dst (gat_i_fl.s_bias); 2, one (heads) vector there (a graph transformer's whole-row
     * scores: the bias of Platonov et al.'s attn_linear_u) */
    int score_bias;
    size_t sb;
} gat_i_layer;

#endif
