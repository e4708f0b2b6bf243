/* Distributed full-graph training on MPI over the parts of a partition (gat/partition.h).
 *
 * Every rank of a communicator holds one part (rank r part r; the communicator's size is the
 * partition's part count): its owned nodes, all their in-edges (so each node's softmax stays on
 * its rank) and the halo, the sources owned by other ranks. A rank binds a model to a LOCAL
 * graph of its owned nodes followed by its halo nodes (the part's local numbering); a halo row
 * is a source only: no in-edges, no features, never a training or evaluation row.
 *
 * Exchange. In every layer a rank projects its own rows only, then sends the projections other
 * ranks hold as halo (z and what the score reads of a source: gat's score half, the separate
 * keys of scaled-dot and bilinear, cosine's norms) and receives its halo's from their owners;
 * it attends its own rows without halo sources while these arrive, then the others. The
 * backward returns the gradients of the halo's projections to their owners, which add them (in
 * rank order) to their own rows' before the projection's backward. Parameter gradients, the loss
 * and the accuracies are summed over the ranks in rank order (an all-gather, then the same sum on
 * every rank), and every rank runs the same Adam step, so all ranks hold the same parameters. Per
 * epoch a rank sends, per halo row another rank holds of it and per layer, the projection and the
 * score's source terms in each forward and the projection's gradient in the backward
 * (gat_dist_stats). A model with an edge term (edge_dim D) reads the in-edges' features its part
 * carries (gat_part.edge_x, in the local order after a renumbering); a partition without them
 * fails with GAT_EDIM.
 * The training and validation forwards run only the rows their split's loss depends on, as
 * one process's do: the ranks make these plans together, each telling the owners which of
 * their rows its layers read.
 *
 * Dropout is keyed by the whole graph's numbering (node ids, feature positions, edge numbers
 * of the in-CSR order with self-loops), so that the masks do not depend on the partition: with
 * the same seed, K ranks train as one process would on the whole dataset, up to the order of
 * floating-point sums, with dropout on as well as off. The whole-graph numbers of the part's
 * nodes and edges are computed by gat_dist_create (two sums over the graph's N nodes).
 *
 * Every function here is collective over the communicator: all ranks call it with the same
 * arguments where they are shared (the model's configuration and seed, the training
 * configuration). A failure on one rank is agreed on: every rank returns an error, the failing
 * rank's message saying what failed there and the others' "rank R failed: ..." naming it (the
 * cause travels with the status), so no rank is left waiting. MPI's own errors (a rank that
 * died) follow the communicator's error handler: by default MPI aborts the job.
 *
 * Available when libgat is built with MPI (meson -Dmpi; gat/gat.h says GAT_HAVE_MPI). */
#ifndef GAT_DIST_H
#define GAT_DIST_H

#include <mpi.h>

#include "embed.h"
#include "partition.h"
#include "train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gat_dist gat_dist;

typedef struct gat_dist_options {
    int normalize; /* GAT_NORMALIZE_AUTO (default), _ON or _OFF, as for datasets: decided over
                    * the whole graph (AUTO: row-normalise when no rank has a negative
                    * feature); a part stored normalised is used as it is */
    gat_order order;  /* the owned rows' local order for locality (gat_model_set_order's rule:
                       * GAT_ORDER_AUTO (default) renumbers by RCM from GAT_ORDER_AUTO_EDGES
                       * local edges where that pays); internal: every result is in the part's and the whole
                       * graph's numbering, the dropout masks stay the whole graph's */
} gat_dist_options;

/* Fills o with the defaults above. */
GAT_API void gat_dist_options_default(gat_dist_options *o);

/* What one rank exchanges. */
typedef struct gat_dist_stats {
    gat_idx n_owned, n_halo; /* this rank's owned and halo nodes */
    gat_idx send_rows;       /* owned rows another rank holds as halo, counted per such rank */
    gat_idx peers;           /* ranks this rank exchanges rows with */
    int64_t epoch_bytes;     /* bytes this rank sends per training epoch (forward + backward) */
    int64_t sent_bytes;      /* bytes sent by exchanges so far (forwards and backwards) */
    double exchange_seconds; /* wall time spent in exchanges so far (packing and waiting) */
    int normalized;          /* 1: the features are row-normalised (gat_dist_options) */
    gat_order order;         /* the local order applied (GAT_ORDER_NONE: none) */
    double order_seconds;    /* what computing and applying it took */
} gat_dist_stats;

/* Sets up rank r of comm (borrowed; duplicated, so the caller's communicator sees none of its
 * messages) on part p (borrowed for the call: *out keeps copies of what it needs, so p may be
 * destroyed right after, giving its memory back; load it with gat_part_load(p, dir, r)):
 * checks that comm's size is p->n_parts and p->part its rank, agrees with every rank on the
 * partition (fingerprint, assignment), row-normalises per opt
 * (NULL: defaults) and numbers the dropout streams. *out: NULL on failure.
 * Returns GAT_EINVAL (NULL argument, a part of another rank or size, ranks disagreeing on the
 * partition, a label outside the classes), GAT_EDEP (an MPI call failed), GAT_ENOMEM, or on
 * every other rank the status of the one that failed. Cost O(n_owned + n_halo + E_k + nnz of
 * the owned features) per rank plus O(N) for the numbering. */
GAT_API gat_status gat_dist_create(gat_dist **out, const gat_part *p, MPI_Comm comm,
                                   const gat_dist_options *opt);

/* Frees d (not collective). Accepts NULL. */
GAT_API void gat_dist_free(gat_dist *d);

/* The local graph and features a model is bound to (borrowed, valid while d lives): owned rows
 * 0 .. n_owned - 1 (in the part's order, or renumbered for locality, see
 * gat_dist_options.order), then the halo (sources only: no in-edges, empty feature rows; each
 * peer's halo rows contiguous, ordered for locality when the owned rows are renumbered);
 * gat_dist_global_ids gives the whole graph's id of
 * every local row (n_owned + n_halo). gat_dist_part: the part's sizes, fingerprint and names as
 * d keeps them: global_ids, node_ids (n_owned) in the local order and class_names; its other
 * arrays are NULL. */
GAT_API const gat_part *gat_dist_part(const gat_dist *d);
GAT_API const gat_idx *gat_dist_global_ids(const gat_dist *d);
GAT_API const gat_graph *gat_dist_graph(const gat_dist *d);
GAT_API const gat_csr *gat_dist_features(const gat_dist *d);

/* Trains m as gat_train trains it on the whole dataset, full-graph (cfg->batch_size must be 0;
 * cfg->stage is not called): every rank passes a model created with the same configuration
 * (rank 0's parameters are broadcast first, so the seeds need not agree) and the same cfg.
 * cfg->progress is called on every rank with the epoch's figures over the whole graph (the
 * same on every rank); training stops when it returns non-zero on any rank. On return every
 * rank holds the restored best model and the same *res. The model's node order is
 * GAT_ORDER_NONE during the call and restored after it; m stays bound to the local graph.
 * Returns what gat_train returns (on every rank), GAT_EDIM (model and partition disagree), or
 * GAT_EINVAL (batch_size > 0, the edge features of a part: not supported yet). */
GAT_API gat_status gat_dist_train(gat_model *m, gat_dist *d, const gat_train_config *cfg,
                                  gat_train_result *res);

/* Inference of m on the whole graph: *logits (n_owned, C) the logits of this rank's owned
 * nodes in the local order (gat_dist_global_ids; owned by m, valid until its next forward);
 * after it gat_model_layer_output(m, l, &y) gives layer l's rows of the owned nodes (n_owned:
 * the halo's are computed by their owners). The model's order is left GAT_ORDER_NONE and m
 * bound to the local graph (its next forward outside these calls binds again). Returns
 * GAT_EDIM, GAT_ENOMEM. */
GAT_API gat_status gat_dist_forward(gat_model *m, gat_dist *d, const gat_real **logits);

/* Loss and accuracy of m over the whole graph's nodes of split `which`. GAT_EINVAL if there is
 * none on any rank. */
GAT_API gat_status gat_dist_evaluate(gat_model *m, gat_dist *d, gat_split which, double *loss,
                                     double *acc);

/* Gathers every rank's rows (n_owned, width), borrowed, into out (N, width) on rank `root` in
 * the whole graph's node order (out is read on root only; NULL elsewhere). */
GAT_API gat_status gat_dist_gather(gat_dist *d, const gat_real *rows, gat_idx width, int root,
                                   gat_real *out);

/* Layer `layer`'s rows of every node (gat_model_embed's layers: 0..L-1, GAT_LAYER_LOGITS,
 * GAT_LAYER_PROBS) into out (N, gat_model_embed_width) on rank root in the whole graph's node
 * order. Returns as gat_dist_forward, GAT_EINVAL (no such layer). */
GAT_API gat_status gat_dist_embed(gat_model *m, gat_dist *d, int layer, int root, gat_real *out);

/* gat_model_predict over the whole graph: classes and probability (N) on rank root (NULL
 * elsewhere), in the whole graph's node order. */
GAT_API gat_status gat_dist_predict(gat_model *m, gat_dist *d, int root, gat_idx *classes,
                                    gat_real *probability);

/* The dataset's node ids in the whole graph's order on rank root: *ids (N + 1 entries, the
 * last NULL; free with gat_dist_ids_free), NULL elsewhere. */
GAT_API gat_status gat_dist_gather_ids(gat_dist *d, int root, char ***ids);
GAT_API void gat_dist_ids_free(char **ids);

/* This rank's exchange figures. */
GAT_API void gat_dist_get_stats(const gat_dist *d, gat_dist_stats *s);

#ifdef __cplusplus
}
#endif
#endif
