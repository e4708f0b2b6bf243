/* Partitions of a dataset's graph for distributed training: K-way METIS partitions, one part
 * file per part and a manifest.
 *
 * Edge cut by destination: part k OWNS a set of nodes and all their in-edges, so a node's
 * softmax over its in-neighbourhood stays in one part. The sources of those edges owned by other
 * parts are the part's HALO nodes. A part numbers its nodes locally: the owned nodes first, in
 * ascending global id (local 0 .. n_owned-1), then the halo nodes sorted by (owner part, global
 * id) (local n_owned .. n_owned+n_halo-1), so that the halo rows coming from one part are
 * contiguous.
 *
 * A partition directory DIR holds
 *   DIR/part-K.gatd   one per part k = 0 .. parts-1, in the dataset file layout (gat/dataset.h)
 *                     with "format": "libgat-part": graph.indptr I32 (n_owned+1) and
 *                     graph.indices I32 (E_k) the owned nodes' in-edges with LOCAL sources
 *                     (ascending in each row, the self-loop i in row i); features.*, labels,
 *                     split, node_ids of the owned nodes; edge_features F32 (E_k, D) the
 *                     in-edges' features in that order, when the dataset has edge features;
 *                     part.global_ids I32 (n_owned+n_halo)
 *                     the global id of every local node; part.halo_owner I32 (n_halo) the part
 *                     owning each halo node. __metadata__ adds "halo", "part", "parts",
 *                     "global_nodes", "fingerprint" and "assignment" (16 hex digits each) to the
 *                     dataset file's keys ("nodes" and "edges" count the owned nodes and E_k).
 *   DIR/manifest.json written last: {"format": "libgat-partition", "version": 1, "name",
 *                     "parts", "nodes", "edges" (self-loops included), "features", "classes",
 *                     "edge_features" (D; absent: 0),
 *                     "fingerprint", "assignment", "edge_cut", "cut_in_edges",
 *                     "part_files": [{"file", "nodes", "edges", "halo", "train"}, ...]}.
 * A directory without a manifest is not a partition: readers refuse it. Every file is written
 * atomically (a temporary file renamed into place).
 *
 * The fingerprint (gat_dataset_fingerprint) hashes the graph (n, E, both CSR arrays) and the
 * features' and labels' shapes; the assignment hashes the part of every node. A part file whose
 * fingerprint, assignment, part count or sizes differ from the manifest's belongs to another
 * dataset or partition and is refused.
 *
 * METIS (libmetis 5) does the partitioning; it is called with fixed options, so a dataset and a
 * seed always give the same partition. During the call METIS installs its own SIGABRT and
 * SIGTERM handlers (restoring them after): do not partition in several threads at once. */
#ifndef GAT_PARTITION_H
#define GAT_PARTITION_H

#include "dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gat_partition_options {
    int seed;          /* METIS_OPTION_SEED, >= 0 (default 1) */
    int balance_train; /* 1 (default): balance the training nodes too (a third constraint, when
                        * the dataset has any); 0: nodes and in-edges only */
} gat_partition_options;

/* Fills o with the defaults above. */
GAT_API void gat_partition_options_default(gat_partition_options *o);

/* Computes a k-way partition of ds's graph (borrowed) with METIS_PartGraphKway on the
 * symmetrised graph without self-loops (an edge in either direction joins two nodes), balancing
 * the number of nodes and of in-edges (self-loops included) per part, and the training nodes
 * if opt->balance_train. k == 1 gives every node part 0 without calling METIS.
 * part: caller's (ds->n) array, receives each node's part in [0, k) (METIS may leave a part
 * empty). *edge_cut: the number of undirected edges between parts (METIS's objective).
 * opt may be NULL for the defaults. Returns GAT_EINVAL (NULL argument, k < 1 or k > n, a
 * negative seed, a malformed graph), GAT_ENOMEM, GAT_EDEP (METIS failed; the message names its
 * code). Cost: METIS's, about O(E log k); O(n + E) extra memory. */
GAT_API gat_status gat_partition_compute(const gat_dataset *ds, gat_idx k,
                                         const gat_partition_options *opt, gat_idx *part,
                                         int64_t *edge_cut);

/* A 64-bit hash of ds's graph (n, E, rowptr, col) and of n_features and n_classes; 0 for NULL.
 * Cost O(n + E). */
GAT_API uint64_t gat_dataset_fingerprint(const gat_dataset *ds);

/* Writes the partition part (ds->n values in [0, k), borrowed) of ds (borrowed) into the
 * existing directory dir: part-0.gatd .. part-(k-1).gatd, then manifest.json (format above; an
 * old manifest.json is removed first, so that an interrupted save leaves no manifest). name
 * (may be NULL) is recorded; edge_cut (>= 0, e.g. from gat_partition_compute) is recorded as it
 * is. Features are stored as ds->x holds them (see gat_dataset_save).
 * Returns GAT_EINVAL (NULL ds, part or dir, k < 1 or k > n, a part value out of range naming
 * the node, a negative edge_cut, a malformed dataset), GAT_EIO (a file cannot be written: the
 * message names it), GAT_ENOMEM. Cost O(n + E log d + nnz) time (d the largest in-degree),
 * O(n) plus one part's size of extra memory. */
GAT_API gat_status gat_partition_save(const gat_dataset *ds, gat_idx k, const gat_idx *part,
                                      int64_t edge_cut, const char *dir, const char *name);

/* What DIR/manifest.json says. */
typedef struct gat_partition_manifest {
    gat_idx n_parts;          /* K */
    gat_idx n_nodes, n_edges; /* of the whole dataset (edges with self-loops) */
    gat_idx n_features, n_classes;
    gat_idx n_edge_features;  /* D: the edges' feature columns the parts carry (0: none) */
    uint64_t fingerprint;     /* gat_dataset_fingerprint of the dataset */
    uint64_t assignment;      /* hash of every node's part */
    int64_t edge_cut;         /* METIS's edge cut (undirected edges between parts) */
    int64_t cut_in_edges;     /* in-edges whose source is owned by another part */
    gat_idx *part_nodes;      /* (K) owned nodes per part */
    gat_idx *part_edges;      /* (K) in-edges per part */
    gat_idx *part_halo;       /* (K) halo nodes per part */
    gat_idx *part_train;      /* (K) owned training nodes per part */
    char *name;               /* the dataset's name, or NULL */
} gat_partition_manifest;

/* Reads dir/manifest.json into m (uninitialised; zeroed on failure), checking every field
 * (types, ranges, K entries, each file named part-K.gatd, the per-part counts summing to the
 * dataset's nodes). Returns GAT_EINVAL (NULL argument), GAT_EIO (no manifest: the message says
 * the directory is no complete partition), GAT_EFORMAT (naming the file and the field),
 * GAT_ENOMEM. Cost O(K). */
GAT_API gat_status gat_partition_manifest_load(gat_partition_manifest *m, const char *dir);

/* Frees m's arrays and zeroes it; accepts NULL and a zeroed m. */
GAT_API void gat_partition_manifest_destroy(gat_partition_manifest *m);

/* One part, as a rank loads it. Every array is read-only and owned by the part (storage). */
typedef struct gat_part {
    gat_idx part, n_parts;     /* this part's index k in [0, K), and K */
    gat_idx n_global;          /* nodes of the whole dataset */
    gat_idx n_owned, n_halo;   /* local nodes: owned 0..n_owned-1, then halo */
    gat_idx nnz;               /* in-edges of the owned nodes, self-loops included */
    const gat_idx *rowptr;     /* (n_owned+1) in-CSR row pointers */
    const gat_idx *col;        /* (nnz) local source of each edge, ascending in each row */
    const gat_idx *global_ids; /* (n_owned+n_halo) global id of each local node */
    const gat_idx *halo_owner; /* (n_halo) part owning halo node n_owned + h */
    gat_idx n_features, n_classes;
    gat_csr x;                 /* (n_owned, F) features of the owned nodes (read-only) */
    gat_idx n_edge_features;   /* D, or 0: the part carries no edge features */
    const gat_real *edge_x;    /* (nnz, D) the features of each edge (in-CSR order), or NULL */
    const gat_idx *labels;     /* (n_owned) class or -1 */
    const uint8_t *split;      /* (n_owned) GAT_SPLIT_* */
    gat_idx n_train, n_val, n_test;
    const char *const *node_ids;    /* (n_owned) the dataset's ids of the owned nodes */
    const char *const *class_names; /* (C) */
    int normalized;            /* 1: x is row-normalised as stored */
    uint64_t fingerprint, assignment;
    void *storage;             /* private */
} gat_part;

/* Loads part k of the partition in dir into p (uninitialised; zeroed on failure): reads
 * dir/manifest.json and dir/part-K.gatd only, checks the file as gat_dataset_load checks a
 * dataset file, then against the manifest (part index, K, fingerprint, assignment, global nodes,
 * features, classes, the part's node, edge and halo counts) and the index ranges (global ids in
 * [0, N), owned ids ascending, halo ids sorted by (owner, id), not owned, each the source of an
 * edge, owners in [0, K) and not k).
 * Returns GAT_EINVAL (NULL argument, k outside [0, K)), GAT_EIO (missing manifest or part
 * file), GAT_EFORMAT (malformed or mismatched file: the message names the file and the fault),
 * GAT_ENUMERIC, GAT_ENOMEM. Cost O(n_owned + n_halo + nnz + the features) and the file's pages. */
GAT_API gat_status gat_part_load(gat_part *p, const char *dir, gat_idx k);

/* Frees everything p holds and zeroes it; accepts NULL and a zeroed p. */
GAT_API void gat_part_destroy(gat_part *p);

#ifdef __cplusplus
}
#endif
#endif
