/* A graph model's caches for its batches of graphs: the readout's and the classifier's buffers,
 * grown by graph_model.c and freed with the model (readout_ws.c). */
#ifndef GAT_READOUT_WS_H
#define GAT_READOUT_WS_H

#include "readout_i.h"

struct gat_i_readout_ws {
    gat_i_readout_op op;
    gat_idx B, N, D, R, C;
    size_t cap_b, cap_n;   /* graphs and nodes the buffers hold */
    gat_idx *ptr;          /* (B + 1) a copy of the batch's segments */
    gat_real *r, *logits;  /* (B, R), (B, C) */
    gat_real *dr;          /* (B, R) */
    gat_real *dh;          /* (N, D) d loss / d node embeddings */
    gat_real *u, *a, *dz, *dg; /* attention caches and scratch */
    gat_idx *arg;          /* (B, D) max */
    const gat_real *h;     /* the layers' output (N, D), owned by the model */
    gat_i_mlp_op mlp;      /* the classifier */
    gat_real *act, *scratch; /* the classifier's hidden outputs and backward scratch */
    size_t cap_act;        /* graphs act and scratch hold */
    gat_real *dl;          /* (cap_s, C) the training step's d loss / d logits */
    uint8_t *all;          /* (cap_s) GAT_SPLIT_TRAIN */
    size_t cap_s;
    int trained, ran;
};

#endif
