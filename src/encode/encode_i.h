/* Private to src/encode: the undirected simple graph both encodings see (gat/encode.h), its
 * connected components, and the clock of the cost lines. */
#ifndef GAT_I_ENCODE_H
#define GAT_I_ENCODE_H

#include "gat/encode.h"

/* Symmetric CSR without self-loops: neighbours of i are col[ptr[i]] .. col[ptr[i+1]-1],
 * ascending. One allocation (ptr and col carved from `block`). */
typedef struct gat_i_simple {
    gat_idx n;
    gat_idx *ptr; /* (n+1) */
    gat_idx *col; /* (ptr[n]) */
    void *block;
} gat_i_simple;

/* Builds s from g's in- and out-CSR (the union of both neighbour lists, i itself left out).
 * Returns GAT_ENOMEM. *bytes: the block's size. */
gat_status gat_i_simple_build(gat_i_simple *s, const gat_graph *g, size_t *bytes);
void gat_i_simple_destroy(gat_i_simple *s);

/* The OpenMP thread count for gat_pe_options.threads (0: the OpenMP default; 1 without OpenMP). */
int gat_i_encode_threads(int threads);

/* CLOCK_MONOTONIC seconds. */
double gat_i_encode_now(void);

#endif
