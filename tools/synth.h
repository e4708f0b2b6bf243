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

/* The generators' random draws: one splitmix64 stream *s; uniform in [0, 1); an integer in
 * [0, n) (n >= 1); a standard normal (Box-Muller). */
uint64_t synth_next(uint64_t *s);
double synth_unif(uint64_t *s);
uint64_t synth_below(uint64_t *s, uint64_t n);
double synth_normal(uint64_t *s);

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

/* Datasets of many graphs (synth_graphs.c), for gat-synth --graphs: G graphs of about `nodes`
 * nodes each (sizes uniform in [3/4, 5/4] of it), each node of one of `types` hidden types;
 * edges join random nodes of a graph (mean degree `degree`, a homophily share between nodes of
 * one type); dense features = type mean * signal + N(0, 1). Two kinds:
 *   labels L > 0: inductive multi-label node task. Label l of node i is 1 when
 *     a[l][t_i] + mean over i's neighbours j of b[l][t_j] + N(0, 1/4) > 0 (a, b ~ N(0, 1) per
 *     label and type): each label depends on the node and on its neighbourhood. Split by graph:
 *     the first graphs train, then split_graphs[1] validation and split_graphs[2] test graphs.
 *   labels 0: graph classification with `classes` classes. Graph g of class c = g mod C (in a
 *     shuffled order) holds a planted ring of 3 + c nodes of type 0 (the motif; other nodes are
 *     never of type 0); no node labels, no split (the folds are the caller's). */
typedef struct synth_graph_opts {
    gat_idx graphs, nodes; /* G graphs, mean nodes per graph */
    double degree, homophily, signal;
    int features, types, classes, labels;
    gat_idx split_graphs[3]; /* train, val, test graphs (labels > 0); sum = graphs */
    uint64_t seed;
} synth_graph_opts;

/* Draws the dataset into ds (uninitialised; raw features, GAT_NORMALIZE_OFF). Returns GAT_OK, or
 * a status with gat_last_error() (or err for bad options: GAT_EINVAL). Deterministic for a seed. */
gat_status synth_graphs(const synth_graph_opts *o, gat_dataset *ds, char *err, size_t errlen);

#endif
