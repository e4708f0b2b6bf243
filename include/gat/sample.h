/* Neighbour sampling for mini-batch training: a sampler over a graph draws, for a batch of target
 * nodes, up to F_h in-neighbours of every node reached at hop h, and returns the sampled *block*
 * the engine is then bound to (gat_model_bind, gat_train_step), as PyG's NeighborLoader and DGL's
 * multi-layer samplers do.
 *
 * Hops. Hop 0 are the targets; each node first reached at hop h < L (L = the model's layers) has
 * its in-neighbourhood sampled once, with fan-out fanout[h], and its sampled sources not seen
 * before form hop h + 1. So fanout[0] is the fan-out of the targets (the output layer's rows),
 * fanout[L - 1] that of the nodes the first layer computes last (PyG's num_neighbors order).
 * A fan-out F >= 0 draws min(F, d) of the node's d in-neighbours other than itself, uniformly
 * without replacement; F = -1 takes all d; F = 0 none. The node's self-loop, if the graph has
 * one, is always kept and not counted in F. Nodes of hop L get their self-loop only.
 *
 * The block is a gat_graph over local ids 0..n-1: the targets first, in the order given, then
 * the nodes of hop 1, 2, ..., L in the order they were first drawn. Its rows hold the sampled
 * edges (sources ascending by local id, self-loop included), so the softmax of a node is over
 * its sampled neighbourhood (as in PyG and DGL). Layer l of an L-layer model needs the rows of
 * the nodes of hops 0..L-1-l, local ids below hop_end[L - 1 - l]; every row it computes beyond
 * those only costs time. A model run on the block with the last layer restricted to the targets
 * (gat_train_step with rows 0..n_targets-1) gives the targets the outputs the full graph would
 * give them when every fan-out is -1.
 *
 * Randomness: node v's sample in the draw with step counter `step` is a function of (seed, step,
 * v) only (a counter-based generator), so a block is identical for any thread count and for any
 * order of the targets. A sampler is not thread-safe (it keeps a per-node scratch array): use
 * one per thread; the graph it samples from may be shared. */
#ifndef GAT_SAMPLE_H
#define GAT_SAMPLE_H

#include "graph.h"
#include "matrix.h"
#include "model.h" /* GAT_MAX_LAYERS */

#ifdef __cplusplus
extern "C" {
#endif

/* A sampled block: fields written by gat_sampler_sample, owned by the block, read-only to the
 * caller; free with gat_block_destroy. A zeroed block is the empty block. */
typedef struct gat_block {
    gat_idx n;          /* local nodes */
    gat_idx n_targets;  /* the first n_targets local nodes are the targets, in the given order */
    int hops;           /* L, the sampler's hop count */
    gat_idx hop_end[GAT_MAX_LAYERS + 1]; /* nodes first reached at hop h are local ids
                                          * hop_end[h - 1] .. hop_end[h] - 1 (hop_end[-1] read as
                                          * 0): hop_end[0] = n_targets, hop_end[hops] = n */
    gat_idx *nodes;     /* (n) the graph's node id of each local node */
    gat_graph graph;    /* the sampled subgraph over local ids, in-CSR and out-CSR */
    gat_idx *edge_parent; /* (graph.nnz) the sampled graph's edge number (its in-CSR position)
                           * of each block edge */
} gat_block;

typedef struct gat_sampler gat_sampler;

/* Creates a sampler of L = hops hops over g (borrowed: must outlive the sampler) with fanout
 * (hops values, copied; each -1 or >= 0) and seed. *out: set on success (free with
 * gat_sampler_free), NULL on failure. g is checked as gat_graph_check does.
 * Returns GAT_EINVAL (NULL argument, hops outside [1, GAT_MAX_LAYERS], a fan-out below -1,
 * malformed g; the message names the hop and the value), GAT_ENOMEM. Cost O(n + E), and the
 * sampler keeps 8 bytes per node of g, and from its draws the scratch of the largest block drawn
 * so far (about 20 bytes per block edge). One sampler draws one block at a time: calls on the
 * same sampler must not overlap. */
GAT_API gat_status gat_sampler_create(gat_sampler **out, const gat_graph *g, int hops,
                                      const gat_idx *fanout, uint64_t seed);

/* Frees s. Accepts NULL. */
GAT_API void gat_sampler_free(gat_sampler *s);

/* Threads the sampling uses (OpenMP); n <= 0 means all cores. Blocks do not depend on it.
 * The thread governor (as gat_model_set_threads'): unless gat_sampler_set_fixed_threads is on,
 * n is the most a draw uses; the sampler times its draws (clock reads around each) and now and
 * then tries one thread against n, keeping one where n ran slower (an oversubscribed machine).
 * NULL s: nothing. */
GAT_API void gat_sampler_set_threads(gat_sampler *s, int n);

/* on != 0: every draw runs the threads of gat_sampler_set_threads, untimed; 0 (the default):
 * the governor decides. NULL s: nothing. */
GAT_API void gat_sampler_set_fixed_threads(gat_sampler *s, int on);

/* Samples the block of n_targets distinct nodes targets (borrowed) for step counter `step` into
 * b (uninitialised; filled on success, zeroed on failure).
 * Returns GAT_EINVAL (NULL argument, n_targets < 1, a target outside [0, g->n) or repeated:
 * "targets[k] = v repeats targets[j]"), GAT_ENOMEM. Cost O(sum over the sampled nodes of their
 * fan-out, plus the targets' count), independent of the graph's size. */
GAT_API gat_status gat_sampler_sample(gat_sampler *s, const gat_idx *targets, gat_idx n_targets,
                                      uint64_t step, gat_block *b);

/* The block's input features: out (uninitialised; owned by the caller, free with
 * gat_csr_destroy) gets row k = row b->nodes[k] of x (borrowed; x->rows must be the sampled
 * graph's node count, which the block does not know: it checks only that every id is a row).
 * Large blocks are copied on all cores (OpenMP); the result does not depend on it.
 * Returns GAT_EINVAL (NULL argument, a node id outside x's rows, more than 2^31 - 1 values),
 * GAT_ENOMEM. Cost O(b->n + the rows' non-zeros). */
GAT_API gat_status gat_block_features(const gat_block *b, const gat_csr *x, gat_csr *out);

/* The block's edge features: out (b->graph.nnz, D), caller-owned, gets for each block edge the
 * row of edge_x ((E, D) of the sampled graph, in its in-CSR order, borrowed) of the graph edge
 * behind it (b->edge_parent), for gat_model_bind_edge_features on the block. D = 0 writes nothing.
 * Returns GAT_EINVAL (NULL argument with D > 0, D < 0). Cost O(b->graph.nnz D). */
GAT_API gat_status gat_block_edge_features(const gat_block *b, const gat_real *edge_x, gat_idx D,
                                           gat_real *out);

/* Frees b's arrays and zeroes it. Accepts NULL and a zeroed block. */
GAT_API void gat_block_destroy(gat_block *b);

/* A loader: the batches of one epoch, each a block with its features, drawn in order, and with
 * look-ahead one batch ahead on a thread of its own while the caller trains on the current one.
 * Batch k holds the targets order[k B .. min((k + 1) B, n) - 1] (B = batch_size) and is sampled
 * with step counter step0 + k, so it is the same block with the look-ahead on or off and on any
 * thread count. At most two batches are alive: the one gat_loader_next returned last and the
 * one being drawn. The loader's thread starts with every signal blocked (so that signals reach
 * the caller's threads; the caller's own mask is restored before gat_loader_create returns) and
 * is joined by gat_loader_free, which waits for the draw under way. The test hook that fails
 * allocations (per thread) does not reach the loader's thread. */
typedef struct gat_batch {
    gat_block block;   /* the sampled block of the batch's targets (block.n_targets of them) */
    gat_csr x;         /* (block.n, F) its input features: gat_block_features of the loader's x */
    gat_real *edge_x;  /* (block.graph.nnz, D) its edge features (gat_block_edge_features), or
                        * NULL when D = 0 */
    uint64_t step;     /* the step counter it was drawn with */
} gat_batch;

typedef struct gat_loader gat_loader;

/* Creates a loader of the n targets order (borrowed: must outlive the loader; each batch's
 * targets distinct) in batches of batch_size over sampler s (borrowed, used only by the loader
 * until it is freed), features x (borrowed, x->rows = the sampled graph's nodes), edge features
 * edge_x ((E, D) as gat_block_edge_features, borrowed; NULL with D = 0). lookahead: 1 draws the
 * next batch on the loader's thread (if the thread cannot be started, the batches are drawn
 * in gat_loader_next, the same ones), 0 draws each batch in gat_loader_next.
 * *out: set on success (free with gat_loader_free), NULL on failure.
 * Returns GAT_EINVAL (NULL argument, n < 1, batch_size < 1, D < 0, NULL edge_x with D > 0),
 * GAT_ENOMEM. Cost O(1); with look-ahead the first batch's draw starts at once. */
GAT_API gat_status gat_loader_create(gat_loader **out, gat_sampler *s, const gat_csr *x,
                                     const gat_real *edge_x, gat_idx D, const gat_idx *order,
                                     gat_idx n, gat_idx batch_size, uint64_t step0,
                                     int lookahead);

/* The next batch into *b (owned by the loader, valid until the next call or gat_loader_free;
 * the call frees the batch it returned before), or *b = NULL after the last batch.
 * Returns what gat_sampler_sample, gat_block_features and gat_block_edge_features return for
 * the batch (with their messages; *b = NULL): the loader is then spent and returns the same
 * status again. Cost: the draw of the batch, or waiting for the loader's thread to finish it. */
GAT_API gat_status gat_loader_next(gat_loader *l, const gat_batch **b);

/* Seconds the loader spent drawing batches (sampling and gathering features, on whichever
 * thread), and waiting in gat_loader_next for a batch not yet drawn (all of the drawing
 * without look-ahead). Call it from the thread that calls gat_loader_next. NULL l: zeros. */
GAT_API void gat_loader_times(gat_loader *l, double *draw_s, double *wait_s);

/* The drawing seconds of gat_loader_times in two parts: in the sampler (gat_sampler_sample) and
 * gathering the blocks' features (gat_block_features, gat_block_edge_features). The sampler's
 * rate is the blocks' edges over *sample_s. Call it from the thread that calls gat_loader_next.
 * NULL l: zeros. */
GAT_API void gat_loader_draw_times(gat_loader *l, double *sample_s, double *features_s);

/* Stops the loader's thread (after the draw under way) and frees l with its batches. Accepts
 * NULL. */
GAT_API void gat_loader_free(gat_loader *l);

#ifdef __cplusplus
}
#endif
#endif
