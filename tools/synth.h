/* Synthetic node-classification graphs for gat-synth and gat-bench: a degree-corrected planted
 * partition (one block per class, power-law expected degrees, a homophily share of edges inside
 * blocks) drawn with igraph's static fitness generator, and features correlated with the blocks. */
#ifndef GAT_SYNTH_H
#define GAT_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "gat/gat.h"

typedef struct synth_opts {
    gat_idx nodes;           /* N */
    double degree;           /* mean undirected degree (before duplicates are merged) */
    int classes;             /* C blocks = classes */
    int features;            /* F */
    double density;          /* sparse features: mean share of the F words a node has */
    int dense;               /* 1: dense Gaussian features instead of sparse words */
    double homophily;        /* share of edges drawn inside blocks */
    double exponent;         /* power-law exponent of the expected degrees (> 2) */
    double signal;           /* sparse: share of a node's words from its class's topic; dense: class
                              * mean scale */
    double train, val, test; /* split shares of the nodes */
    int ordered;             /* keep nodes in block order (default: a random order) */
    uint64_t seed;
    int edge_features;       /* D edge feature columns per edge (default 0): column 0 is 1 when
                              * the edge joins two nodes of one class, else 0, flipped with
                              * probability edge_noise; columns 1.. are N(0, 1) noise */
    double edge_noise;       /* default 0.1 */
} synth_opts;

typedef struct synth_data {
    gat_idx n;
    size_t m; /* undirected edges src[k] -- dst[k], each once (duplicates possible) */
    gat_idx *src, *dst;
    gat_idx *labels; /* (n) */
    uint8_t *split;  /* (n) GAT_SPLIT_* */
    gat_csr x;       /* (n, F) raw features (binary words, or dense values) */
    int edge_dim;    /* D, 0: none */
    gat_real *edge_x; /* (m, D) edge features of edge k, or NULL */
} synth_data;

void synth_defaults(synth_opts *o);

/* Draws a dataset; d is zeroed first. Returns 0, or -1 with a message in err. */
int synth_generate(const synth_opts *o, synth_data *d, char *err, size_t errlen);
void synth_free(synth_data *d);

/* A gat_dataset (row-normalised features, symmetrised graph with self-loops, edge features
 * merged as the loaders merge them, self-loops filled with the mean) from d. */
gat_status synth_dataset(const synth_data *d, int classes, gat_dataset *ds);

/* The same with normalize (GAT_NORMALIZE_*) applied to the features and class_names (C, may be
 * NULL for "0", "1", ...) as the class names: GAT_NORMALIZE_OFF keeps the raw features, as
 * gat-synth --out-format binary stores them. */
gat_status synth_dataset_with(const synth_data *d, int classes, int normalize,
                              const char *const *class_names, gat_dataset *ds);

#endif
