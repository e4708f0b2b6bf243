/* Node-classification datasets in the Cora-style (LINQS) text layout.
 *
 * A dataset NAME is three files in one directory (datasets/README.md has the details):
 *   NAME.content[.gz]  one line per node: <node-id> <feature>... <label>   (dense features)
 *   NAME.cites         one line per edge: <a> <b> [<w1> ... <wD>]  (b -> a, i.e. citing ->
 *                      cited; optional numeric edge features, the same D on every line)
 *   NAME.split         optional; one line per node: <node-id> train|val|test
 * Fields are separated by runs of spaces or tabs; node ids and labels are arbitrary strings
 * without whitespace. Classes are numbered in the byte order of their names.
 * A dataset can also be assembled from parts in memory (gat_dataset_from_parts below), read from
 * a graph file and text tables (gat/graphfile.h) or built on an igraph graph (gat/gat_igraph.h).
 *
 * Dataset files (.gatd) hold a whole dataset in one binary file in the safetensors layout (as
 * model files do), for graphs too large to parse as text quickly: a u64 little-endian header
 * length, a JSON header padded with spaces so that the data starts 64-byte aligned, then the
 * tensors, little-endian, each at a 64-byte aligned offset (gaps are covered by U8 tensors named
 * "__padding__.K", which readers skip, so that strict safetensors readers see no hole):
 *   graph.indptr I32 (n+1), graph.indices I32 (E)   the in-neighbour CSR of gat_graph (rowptr,
 *                  col): sources strictly ascending in each row, every node with its self-loop
 *   features.indptr I32 (n+1), features.indices I32 (nnz), features.data F32 (nnz)
 *                  the features as a CSR (columns strictly ascending in each row), or instead
 *   features F32 (n, F)   dense features (files written by other programs, e.g. NumPy)
 *   labels I32 (n)  class in [-1, C) (-1: unlabelled)
 *   split U8 (n)    GAT_SPLIT_* (0..3), only labelled nodes in a split
 *   node_ids U8 (L) optional: n NUL-terminated distinct ids back to back (absent: "0".."n-1")
 *   edge_features F32 (E, D)  optional: gat_dataset.edge_x (absent: D = 0)
 *   edge_input I32 (E)        optional: gat_dataset.edge_input (absent: NULL); -1 exactly on
 *                  the self-loops, >= 0 elsewhere
 *   graphs.ptr I32 (G+1)      optional: gat_dataset.graph_ptr of a dataset of G graphs (absent:
 *                  one graph); no edge may join two graphs
 *   graphs.labels I32 (G)     optional, with graphs.ptr: gat_dataset.graph_labels, in [0, GC)
 *                  with the metadata "graph_classes" (GC) and "graph_class_names" (a JSON array
 *                  of GC strings encoded as a string; absent: "0".."GC-1")
 *   label_matrix U8 (n, L)    optional: multi-hot node labels (gat_dataset.n_labels = L), 0/1;
 *                  then "classes" is 0, labels are all -1 and any node may be in a split
 *   splits U8 (S, n)          optional: the S >= 2 fixed splits of the source (row k: split k,
 *                  each as "split" is checked; gat_dataset.splits), gat_dataset_options.
 *                  split_index chooses one and gat_dataset.n_splits is S; "split" then repeats
 *                  row 0 (for readers that do not know "splits"; the loader checks that it does)
 * Files without the optional tensors above (all files written before them) load as before.
 * "__metadata__" (strings): "format": "libgat-dataset", "version": "1", "nodes", "features",
 * "classes", "edges" (E, self-loops included) as decimals, "class_names" (a JSON array of C
 * strings, encoded as a string; absent: "0".."C-1"), "symmetrized" ("1" when every edge has its
 * reverse), "normalized" ("1" when the stored features are already row-normalised; absent: "0"),
 * optionally "name". The out-CSR (t_rowptr, t_col, t_edge) is not stored: the loader rebuilds it.
 *
 * Ownership: a gat_dataset owns all its arrays; release it with gat_dataset_destroy. A dataset
 * loaded from a .gatd file may keep arrays inside a private mapping of the file (`storage`): read
 * them freely, but do not free, reallocate or swap individual arrays (writes are private to the
 * process and never reach the file). */
#ifndef GAT_DATASET_H
#define GAT_DATASET_H

#include "graph.h"
#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values of gat_dataset.split (stored as uint8_t there), and the `which` argument of the
 * functions that pick one split (gat_softmax_xent, gat_model_evaluate). */
typedef enum gat_split {
    GAT_SPLIT_NONE = 0,
    GAT_SPLIT_TRAIN = 1,
    GAT_SPLIT_VAL = 2,
    GAT_SPLIT_TEST = 3
} gat_split;

/* Values of gat_dataset_options.normalize (existing callers' 0 and 1 keep their meaning). */
enum {
    GAT_NORMALIZE_OFF = 0,  /* keep the features as given */
    GAT_NORMALIZE_ON = 1,   /* row-normalise; GAT_EINVAL if any feature is negative */
    GAT_NORMALIZE_AUTO = 2  /* row-normalise when every feature is >= 0 (bag-of-words, as in the
                             * GAT paper), else keep them as given (the default) */
};

/* Values of gat_dataset_options.self_loop_fill: the edge features of the self-loop the builder
 * adds to every node (PyG's add_self_loops fill_value "mean" and 0). */
enum {
    GAT_SELF_LOOP_FILL_MEAN = 0, /* the mean of the rows of the node's other in-edges (after
                                  * duplicates merged); zeros for a node without in-edges */
    GAT_SELF_LOOP_FILL_ZERO = 1  /* zeros */
};

/* Values of gat_dataset_options.tu_features: which of a TU set's node files make the features. */
enum {
    GAT_TU_FEATURES_ALL = 0,        /* the one-hot node labels, then the node attributes (default) */
    GAT_TU_FEATURES_LABELS = 1,     /* the one-hot node labels alone */
    GAT_TU_FEATURES_ATTRIBUTES = 2  /* the node attributes alone; a set without attributes its
                                     * one-hot node labels (DGL's LegacyTUDataset, which
                                     * benchmarking-gnns reads its TU sets with) */
};

/* The name of a GAT_TU_FEATURES_* value ("all", "labels", "attributes"; static), or NULL for
 * another value. */
GAT_API const char *gat_tu_features_name(int mode);
/* The GAT_TU_FEATURES_* value a name gives (ASCII case-insensitive). GAT_EINVAL for NULL name
 * or out, or an unknown name (the message lists the names). */
GAT_API gat_status gat_tu_features_from_name(const char *name, int *out);

/* Bits of gat_dataset_options.split_strict and gat_dataset.split_adapted: the three sizes of the
 * random split. */
enum {
    GAT_SPLIT_STRICT_TRAIN = 1, /* train_per_class */
    GAT_SPLIT_STRICT_VAL = 2,   /* n_val */
    GAT_SPLIT_STRICT_TEST = 4,  /* n_test */
    GAT_SPLIT_STRICT_ALL = 7
};

/* gat_dataset_options.n_test for "every labelled node the training and validation nodes leave"
 * (the protocol of Shchur et al. 2018: 20 training and 30 validation nodes per class, the rest
 * test). */
enum { GAT_SPLIT_REST = -1 };

typedef struct gat_dataset {
    gat_idx n;            /* nodes, in .content order */
    gat_idx n_features;   /* F */
    gat_idx n_classes;    /* C */
    gat_csr x;            /* (n, F) features, sparse; row-normalised if `normalized` */
    gat_idx *labels;      /* (n) class index in [0, C), or -1 for an unlabelled node (only from
                           * gat_dataset_from_parts and gat_dataset_read; never in a split) */
    uint8_t *split;       /* (n) GAT_SPLIT_* of each node */
    /* Strings owned by the dataset, read-only for the caller; const so that they pass as they
     * are to every API taking names (gat_model_meta.class_names, gat_matrix_save's ids, ...). */
    const char *const *node_ids;    /* (n) node id strings, NUL-terminated */
    const char *const *class_names; /* (C) class names, sorted */
    gat_graph graph;      /* in-CSR over nodes 0..n-1, self-loops added */
    gat_idx n_train, n_val, n_test; /* split sizes */
    /* What the loader did, for the caller to report (gat_train does not read these): */
    int normalized;          /* 1: x was row-normalised; 0: x holds the features as given */
    gat_real negative_value; /* the first negative feature as given (in node order, then column
                              * order), or 0 when every feature is >= 0 */
    gat_idx negative_node, negative_column; /* where that feature is, or -1, -1 when none */
    unsigned split_adapted;  /* GAT_SPLIT_STRICT_* bits of the random split's sizes that were
                              * reduced to fit the data (0: as requested, or a given split) */
    void *storage;           /* private: the file mapping of a .gatd dataset and what the loader
                              * allocated in bulk, released by gat_dataset_destroy; NULL otherwise */
    /* Edge features and provenance. Edge e is edge e of graph (in-CSR order, self-loops
     * included). Rows of input edges that merge into one edge (duplicates, and with symmetrize
     * an edge given in both directions) are averaged; an added self-loop's row follows
     * gat_dataset_options.self_loop_fill. */
    gat_idx n_edge_features; /* D: edge feature columns; 0 when the data has none */
    gat_real *edge_x;        /* (E, D) row-major, finite; NULL when D == 0 */
    gat_idx *edge_input;     /* (E) the input edge each edge came from, by the rule of
                              * gat_graph_from_edges_mapped: the 0-based data line of a .cites or
                              * edge-list file (comments and blank lines not counted), the igraph
                              * edge id, the caller's index for gat_dataset_from_parts; -1 for an
                              * added self-loop. NULL when the source does not say (a .gatd file
                              * without it, parts without it). */
    gat_idx n_splits; /* fixed splits the source holds, whether used or not (split holds the one
                       * gat_dataset_options.split_index chose, unless a random split was drawn):
                       * the masks of an .npz file or the split files of a Geom-GCN directory,
                       * the rows of a .gatd file's "splits" (else 1), 1 for a NAME.split file
                       * or parts with a split; 0 when the
                       * source has none (the split was drawn at random) */
    /* Many graphs (graph classification, inductive node tasks): the dataset is then the disjoint
     * union of n_graphs graphs (stored in .gatd files as graphs.ptr / graphs.labels), one
     * block-diagonal graph with no edge between two of them (the builder's one self-loop per node
     * included). Nodes are sorted by graph: the nodes of graph g are graph_ptr[g] ..
     * graph_ptr[g+1]-1, and every graph has at least one node. A TU dataset (gat_dataset_load) has
     * no node task (labels all -1, n_classes 0, no split) and no graph split: the split of the
     * graphs (k-fold cross-validation, gat_dataset_read_graph_folds) is the caller's. */
    gat_idx n_graphs;       /* 0 for a dataset of one graph (a node dataset); then all below are
                             * NULL / 0 */
    gat_idx *graph_ptr;     /* (n_graphs + 1) node offsets: graph_ptr[0] = 0, strictly
                             * increasing, graph_ptr[n_graphs] = n */
    gat_idx *graph_labels;  /* (n_graphs) class of each graph in [0, n_graph_classes), or NULL
                             * when the graphs have no labels (n_graph_classes 0) */
    gat_idx n_graph_classes; /* graph classes; 0 without graph labels */
    const char *const *graph_class_names; /* (n_graph_classes) names, NULL when 0; for a TU
                             * dataset the label values of the file as decimals, in ascending
                             * numeric order (class c is the c-th smallest value) */
    /* Multi-label node targets (PPI: 121 labels per node), instead of one class per node: node i
     * has label l when label_matrix[i * n_labels + l] is 1. A multi-label dataset has
     * n_classes 0 and labels all -1; every node counts as labelled (it may be in a split), and
     * the model predicts n_labels independent logits (sigmoid cross-entropy, micro-F1: see
     * gat/train.h). Its split is usually by graph (the inductive setup: train, validation and
     * test graphs), i.e. every node of a graph in its graph's split. */
    gat_idx n_labels;       /* L: labels per node; 0 for a single-label dataset */
    uint8_t *label_matrix;  /* (n, n_labels) 0 or 1, row-major; NULL when n_labels is 0 (may
                             * point into a .gatd file's mapping, as the other arrays) */
    int64_t skipped_edges;  /* Cora layout with gat_dataset_options.skip_unknown_edges: the
                             * .cites lines skipped for naming an id .content lacks; else 0 */
    uint8_t *splits;        /* (n_splits, n) every fixed split of the source, row k split k (split
                             * holds row split_index), when it holds more than one and split is
                             * one of them; NULL otherwise (one split, a random split, parts).
                             * gat_dataset_save stores them (may point into a .gatd mapping) */
    gat_idx removed_nodes;  /* nodes removed: outside the largest connected component
                             * (gat_dataset_largest_component, gat_dataset_options.
                             * largest_component) or of a class too small (gat_dataset_remove_
                             * small_classes, gat_dataset_options.min_class_nodes); 0 otherwise */
    gat_idx removed_classes; /* classes gat_dataset_remove_small_classes (or gat_dataset_
                              * options.min_class_nodes) removed; 0 otherwise */
} gat_dataset;

typedef struct gat_dataset_options {
    int normalize;        /* GAT_NORMALIZE_AUTO (default), _ON or _OFF: row normalisation */
    int symmetrize;       /* treat .cites edges as undirected (default 1) */
    /* Used only when there is no split file: a seeded random split with train_per_class nodes of
     * every class for training, then n_val and n_test nodes drawn uniformly from the rest (a
     * second shuffle, as PyG's RandomNodeSplit). val_per_class (below) makes validation per
     * class instead. */
    gat_idx train_per_class; /* default 20 */
    gat_idx n_val;           /* default 500 */
    gat_idx n_test;          /* default 1000; GAT_SPLIT_REST: every labelled node left */
    uint64_t seed;           /* default 1 */
    int ignore_split_file;   /* make the random split even if NAME.split exists (default 0) */
    /* GAT_SPLIT_STRICT_* bits of the sizes above that must be met exactly (default 0: none).
     * A strict size the data cannot give is a GAT_EFORMAT error. A size that is not strict is
     * an upper bound: a class with fewer than 2 * train_per_class labelled nodes gives half of
     * them, rounded down (at least 1 from 2 nodes; none from 1); when fewer than n_val + n_test
     * labelled nodes remain, the sizes that are not strict shrink to what remains: both, in the
     * ratio n_val : n_test (at least 1 each while there are 2), or the one that is not strict
     * takes what the strict one leaves. gat_dataset.split_adapted says which sizes shrank. */
    unsigned split_strict;
    int self_loop_fill; /* GAT_SELF_LOOP_FILL_MEAN (default) or _ZERO: edge features of added
                         * self-loops (used only when the data has edge features) */
    /* Numeric edge attributes read as edge features, in this order, by the igraph-based sources
     * (gat_dataset_read: GraphML, GML and every other igraph format that carries edge attributes;
     * gat_dataset_from_igraph); other sources ignore them. Borrowed for the call; default NULL, 0.
     * An attribute the graph lacks or that is not numeric is GAT_EINVAL naming it. */
    const char *const *edge_attributes;
    gat_idx n_edge_attributes;
    /* Which of the source's fixed splits to use (gat_dataset.n_splits of them), 0-based; default
     * 0. A value other than 0 must be below n_splits (GAT_EINVAL naming both otherwise, also with
     * ignore_split_file); negative is GAT_EINVAL. */
    gat_idx split_index;
    /* The longest line the text readers accept, in bytes before its '\n' (0: GAT_DATASET_MAX_LINE,
     * the default): every text file a loader reads (.content, .cites, split, labels, features,
     * edge lists, test.index, Geom-GCN text files), plain or gzip. A longer line is GAT_EFORMAT
     * naming the file, the line and the limit, found as the file is read: an input of one
     * endless line (/dev/zero, a FIFO, a small gzip inflating to gigabytes) costs about twice
     * the limit in memory, not its whole size. */
    size_t max_line;
    /* Fractions of each class for training, validation and test (the Geom-GCN convention,
     * "60/20/20": the nodes of each class split 60 %, 20 %, 20 %). All 0 (the default): the
     * random split by sizes above. Otherwise it replaces it: each in [0, 1], the sum at most 1
     * (GAT_EINVAL otherwise); a class of c labelled nodes gives floor(train * c) training and
     * floor(val * c) validation nodes, and test the rest when the three sum to 1 (else
     * floor(test * c)), drawn uniformly within the class (seeded by seed); split_strict,
     * train_per_class, n_val and n_test are not used. */
    double split_fractions[3];
    /* Cora layout: a .cites line naming an id that .content lacks is skipped and counted in
     * gat_dataset.skipped_edges (the raw LINQS Citeseer has such lines) instead of GAT_EFORMAT
     * naming it (the default 0: a .content truncated or of another set is not hidden). */
    int skip_unknown_edges;
    /* TU layout: the node features, GAT_TU_FEATURES_* (default GAT_TU_FEATURES_ALL); a set
     * with neither node labels nor attributes has one constant feature whatever the value.
     * Other sources ignore it. */
    int tu_features;
    /* Validation nodes per class of the random split (default 0: n_val in all). When > 0 each
     * class gives val_per_class validation nodes, drawn uniformly from those its training nodes
     * leave, and n_val is not used; test nodes are then drawn uniformly from what is left (a
     * third shuffle). GAT_SPLIT_STRICT_VAL makes it exact (a class with fewer nodes than
     * train_per_class + val_per_class is GAT_EFORMAT naming it); otherwise a class gives at most
     * half of what its training nodes leave. */
    gat_idx val_per_class;
    /* 1: keep only the nodes of the graph's largest connected component (gat_dataset_
     * largest_component; Shchur et al. 2018 prepare their benchmark sets so), as the last step
     * of every source (gat_dataset_load, gat_dataset_read, gat_dataset_from_parts,
     * gat_dataset_from_igraph): a random split is then drawn over the nodes kept, a fixed split
     * (and every one of gat_dataset.splits) keeps its kept nodes. Default 0: every node. A dataset
     * of many graphs is GAT_EINVAL. */
    int largest_component;
    /* > 0: remove the classes with fewer than min_class_nodes labelled nodes, with their nodes
     * (gat_dataset_remove_small_classes), as the last step of every source, like
     * largest_component (and a random split then drawn over the nodes kept). Shchur et al. 2018
     * keep the classes of more than train + validation nodes per class (min_class_nodes 51 for
     * their 20 and 30). With largest_component too, the two cuts alternate until neither removes
     * a node: the largest component of the nodes kept, whose classes are all large enough.
     * Default 0: every class; negative is GAT_EINVAL. */
    gat_idx min_class_nodes;
} gat_dataset_options;

/* The default of gat_dataset_options.max_line: 64 MiB. */
#define GAT_DATASET_MAX_LINE ((size_t)64 << 20)

/* Fills o with the defaults above. */
GAT_API void gat_dataset_options_default(gat_dataset_options *o);

/* Where the dataset called name is, as gat_dataset_load and gat-train --dataset find it:
 *   1. name itself if it exists as a directory or file, or name.content[.gz] does (a prefix),
 *      or name.graph and name.allx do (a Planetoid prefix, e.g. DIR/ind.cora);
 *   2. otherwise, for a bare name (no '/'), DIR/name in the first of these folders that has it:
 *      $GAT_DATASETS (if set and not empty), the installed datasets folder
 *      (PREFIX/share/libgat/datasets, fixed at build time; `pkg-config --variable=datasetsdir gat`
 *      prints it), then the build's source tree datasets/ (so an uninstalled build finds them).
 * path: caller's buffer of size bytes, receives the path on success. Returns GAT_EIO (not
 * found; the message lists where it looked), GAT_EINVAL (NULL or empty name, NULL path, a
 * buffer too small), GAT_ENOMEM. Cost: a few stat calls. */
GAT_API gat_status gat_dataset_locate(const char *name, char *path, size_t size);

/* Whether gat_dataset_load reads path (as located) as a dataset file (.gatd), whose graph,
 * features and split are stored as built (the options that build them do not apply): a name
 * ending in ".gatd" that is no directory, or a regular file, no prefix of NAME.content[.gz],
 * that starts as one (an 8-byte header length, then '{'). NULL: 0. Cost: a stat and a read of 9
 * bytes. */
GAT_API int gat_dataset_is_file(const char *path);

/* Loads a dataset. path is a directory D (files D/NAME.* with NAME the last component of D), a
 * prefix P (files P.content[.gz], P.cites, P.split), a dataset file (a name ending in .gatd, or a
 * regular file that starts like one and is no prefix P as above), a Planetoid dataset (the raw
 * pickles ind.NAME.{x,y,tx,ty,allx,ally,graph,test.index} of the GCN/GAT reference code, named by
 * the prefix DIR/ind.NAME or by a directory NAME holding them: read as tkipf/gcn's load_data
 * builds them, with the public split as the split file; no Python involved, and only the types
 * these pickles hold are accepted), an .npz file (a name ending in .npz, or a file that starts
 * like a zip archive), a Geom-GCN directory (one holding out1_graph_edges.txt), a TU
 * graph-classification dataset (Morris et al., TUDataset: a directory D holding
 * D/NAME_A.txt[.gz], or a prefix P with P_A.txt and P_graph_indicator.txt; the files
 * PREFIX_{A,graph_indicator,graph_labels}.txt and the optional node_labels (one-hot features),
 * node_attributes (feature columns after them), edge_labels (one-hot edge features) and
 * edge_attributes, plain or .txt.gz: read as the disjoint union of the graphs, see
 * gat_dataset.n_graphs; no node labels, no split; a malformed line, an unsorted or gapped graph
 * indicator, an edge joining two graphs or a line count that disagrees between files is
 * GAT_EFORMAT naming file and line or both counts), a GraphSAGE node dataset (a prefix P with
 * P-G.json, or a directory D holding D/NAME-G.json: P-id_map.json, P-feats.npy, P-G.json with
 * val/test flags as the split, P-class_map.json with a class or a multi-hot list per node (then a
 * multi-label dataset, see gat_dataset.n_labels) and optionally P-graph_id.npy, the graph of each
 * row, sorted: docs/formats.md; a bad value is GAT_EFORMAT naming the file and its key or index
 * path, malformed JSON its line), or the bare name of a bundled dataset ("cora", "citeseer") found as gat_dataset_locate says.
 * An .npz file (zip of .npy arrays: stored or deflated members, .npy format 1-3, dtypes bool,
 * int8..int64, uint8..uint64, float16/float32/float64, either byte order (big-endian is converted), C or
 * Fortran order; zip64 archives and members too; object arrays are refused) holds one of two
 * layouts:
 *   Platonov et al. 2023: node_features (N, F), node_labels (N) integers (-1: unlabelled),
 *     edges (M, 2) integers (row k: edge edges[k][0] -> edges[k][1], symmetrised per
 *     opt->symmetrize), optional train_masks, val_masks, test_masks (S, N) or (N) of bool or 0/1:
 *     S fixed splits, opt->split_index picks one (no masks: the random split);
 *   Shchur et al. 2018: the adjacency as scipy CSR parts adj_data, adj_indices, adj_indptr,
 *     adj_shape (entry (i, j): edge i -> j; data values ignored), features as attr_data,
 *     attr_indices, attr_indptr, attr_shape (duplicate entries summed) or dense attr_matrix,
 *     labels (N); class_names and idx_to_node as string or integer arrays name the classes and
 *     nodes (object arrays, as gnn-benchmark's files hold, are skipped: classes "0".."C-1"); no
 *     split: the random split.
 * A Geom-GCN directory (Pei et al. 2020): out1_node_feature_label.txt (a header line, then
 * "id<TAB>features<TAB>label" per node with ids 0..N-1; the features comma-separated dense values,
 * or, when the header says feature(feature_amount:K) as film/Actor's does, the indices of the
 * non-zero binary features, with max(K, largest index + 1) columns as Geom-GCN's loader and PyG's
 * Actor size them), out1_graph_edges.txt (a header, then "src<TAB>dst" per edge) and optionally
 * splits/NAME_split_A_B_K.npz (train_mask, val_mask, test_mask (N)) for K = 0..S-1.
 * An OGB node dataset directory (Hu et al. 2020, as ogb's NodePropPredDataset unpacks it):
 * raw/edge.csv[.gz] ("src,dst" per edge), raw/node-label.csv[.gz] (N lines: a class, nan for
 * unlabelled, or T > 1 values 0/1: a multi-label dataset), optional raw/node-feat (N lines of F
 * values; absent: one constant feature), raw/edge-feat (a line per edge: edge features),
 * raw/num-node-list (N, checked) and split/NAME/{train,valid,test} (node numbers: one fixed
 * split); docs/formats.md.
 * In these, the fixed splits are counted in ds->n_splits and node ids are "0".."N-1".
 * A .gatd file is mapped into memory (mmap) and the dataset's arrays point into the mapping where
 * the host's byte order and the alignment allow (copies otherwise); it is checked whole first
 * (header, every tensor's dtype, shape and offsets, row pointers, indices sorted and in range,
 * self-loops, labels, split, finite features, distinct node ids; GAT_EFORMAT naming the file, the
 * tensor or field, expected and found; GAT_ENUMERIC for a NaN or Inf feature naming its node and
 * column). Its split is used as a .split file is (opt->ignore_split_file draws the random split
 * instead); opt->normalize applies as for text datasets, except that features the file marks
 * "normalized" are taken as already row-normalised (never twice); opt->symmetrize is ignored (the
 * graph is stored as built). Cost O(n + E + nnz) for a .gatd file, plus the pages touched. ds: uninitialised; on failure it is
 * zeroed and the message names the file, the line and what is wrong. opt may be NULL for defaults.
 * Returns GAT_EIO (unreadable file, unknown bare name), GAT_EFORMAT (malformed contents: wrong column count,
 * non-numeric feature, unknown node id, duplicate id, empty file, bad split name, too few nodes
 * for a strict size of the random split), GAT_ENUMERIC (NaN/Inf feature), GAT_EINVAL (NULL or
 * empty argument, negative split size, normalize not a GAT_NORMALIZE_* value, or
 * GAT_NORMALIZE_ON with a negative feature: the message names the .content file, the node, the
 * column and the value of the first one), GAT_ENOMEM. Cost O(file size + E log E). */
GAT_API gat_status gat_dataset_load(gat_dataset *ds, const char *path,
                                    const gat_dataset_options *opt);

/* The pieces of a dataset held in memory, for gat_dataset_from_parts. Everything is borrowed for
 * the call and copied: the caller keeps ownership and may free it afterwards. */
typedef struct gat_dataset_parts {
    const gat_graph *graph;         /* required: n nodes (e.g. from gat_graph_from_edges) */
    const gat_csr *features;        /* required: (n, F) node features */
    const gat_idx *labels;          /* (n) class in [0, n_classes) or -1 (unlabelled); NULL: all
                                     * nodes unlabelled */
    gat_idx n_classes;              /* C >= 0 (> every label) */
    const uint8_t *split;           /* (n) GAT_SPLIT_* per node, only labelled nodes in a split;
                                     * NULL: the seeded random split of the options over the
                                     * labelled nodes (no split at all when none is labelled) */
    const char *const *node_ids;    /* (n) distinct id strings, or NULL for "0", "1", ... */
    const char *const *class_names; /* (C) class names, or NULL for "0", "1", ... */
    const gat_real *edge_features;  /* (E, D) finite rows, one per edge of graph in in-CSR order
                                     * (self-loops included), copied as given; NULL when D == 0 */
    gat_idx n_edge_features;        /* D >= 0 */
    const gat_idx *edge_input;      /* (E) values >= -1 (see gat_dataset.edge_input, e.g. from
                                     * gat_graph_from_edges_mapped), or NULL */
    /* Many graphs (see gat_dataset.n_graphs); all 0 / NULL for one graph. */
    gat_idx n_graphs;                     /* >= 0 */
    const gat_idx *graph_ptr;             /* (n_graphs + 1) node offsets, 0 .. n strictly
                                           * increasing (no empty graph); no edge of graph may
                                           * join two graphs */
    const gat_idx *graph_labels;          /* (n_graphs) in [0, n_graph_classes), or NULL */
    gat_idx n_graph_classes;              /* >= 0; 0 when graph_labels is NULL */
    const char *const *graph_class_names; /* (n_graph_classes) or NULL for "0", "1", ... */
    /* Multi-label targets (see gat_dataset.n_labels); 0 / NULL for single-label parts. With
     * n_labels > 0, labels must be NULL and n_classes 0, and split (if given) may hold any node. */
    gat_idx n_labels;                     /* >= 0 */
    const uint8_t *label_matrix;          /* (n, n_labels) values 0 or 1 */
} gat_dataset_parts;

/* Builds a dataset from parts held in memory (copies; see gat_dataset_parts), e.g. a graph built
 * with gat_graph_from_edges and features with gat_csr_from_dense, so that gat_train can run on
 * it. Edge features and edge_input, if given, are copied as they are (rows already per edge of
 * the built graph: no merging, no self-loop fill). ds: uninitialised; filled on success, zeroed on failure. opt may be NULL for the defaults;
 * its normalize (row-normalise the copied features) and random-split fields are used, symmetrize
 * and ignore_split_file are not (the graph is already built).
 * Returns GAT_EINVAL (NULL graph or features or a NULL id, a label outside [-1, C), a split value
 * outside GAT_SPLIT_*, an unlabelled node in a split, duplicate node ids, a malformed graph or
 * CSR, a negative split size, normalize not a GAT_NORMALIZE_* value, GAT_NORMALIZE_ON with a
 * negative feature: the message names its node, column and value; n_edge_features < 0, NULL
 * edge_features with D > 0, an edge_input value below -1; with n_graphs > 0: a NULL graph_ptr,
 * one that does not run from 0 to n, a graph with no nodes, an edge joining two graphs (naming
 * the edge and both graphs), a graph label outside [0, n_graph_classes); n_labels < 0, a NULL
 * label_matrix with n_labels > 0, labels or classes given with it, a value other than 0 or 1 in
 * it; multi-label parts without a split get none: the split is by graph, the caller's), GAT_EDIM (features rows != graph
 * nodes), GAT_ENUMERIC (a non-finite feature or edge feature, naming the edge and column), GAT_EFORMAT (too few labelled nodes for a
 * strict size of the random split), GAT_ENOMEM. Cost O(n + E + nnz). */
GAT_API gat_status gat_dataset_from_parts(gat_dataset *ds, const gat_dataset_parts *parts,
                                          const gat_dataset_options *opt);

/* Edge features per edge of a built graph from rows given per input edge, as the readers make
 * them (e.g. for gat_dataset_parts.edge_features): g (borrowed, well-formed, columns ascending
 * per row, as gat_graph_from_edges builds it) was built from the m input edges src[k] -> dst[k]
 * with flags (only GAT_GRAPH_SYMMETRIZE matters here); rows (m, D) borrowed. out: caller-owned
 * (g->nnz, D), overwritten: each edge gets the mean of the rows of the input edges that gave it
 * (duplicates and, with GAT_GRAPH_SYMMETRIZE, both directions); input self-loops are dropped
 * with their rows; an added self-loop gets, per fill (GAT_SELF_LOOP_FILL_*), the mean of its
 * node's other in-edge rows (zeros when it has none) or zeros. D == 0 writes nothing.
 * Returns GAT_EINVAL (NULL argument, malformed g, D < 0, unknown flags or fill, a node id outside
 * [0, n), an input edge g lacks), GAT_ENUMERIC (a non-finite row value, naming edge and column),
 * GAT_ENOMEM. Cost O(n + E D + m (D + log deg)). */
GAT_API gat_status gat_edge_features_merge(gat_real *out, const gat_graph *g, size_t m,
                                           const gat_idx *src, const gat_idx *dst, unsigned flags,
                                           const gat_real *rows, gat_idx D, int fill);

/* Reads fold `fold` of fixed k-fold splits of a dataset's graphs, in the layout of the
 * benchmarking-gnns repository (Dwivedi et al., data/TUs/DS_{train,val,test}.index): three files
 * PREFIX_train.index, PREFIX_val.index, PREFIX_test.index (each may be gzipped: .index.gz), each
 * with one line per fold holding the comma-separated 0-based indices of the graphs of that part
 * (graph g is graph g of a TU dataset, i.e. the graph with id g + 1 in its graph indicator).
 * Every graph must be in exactly one part of the fold. prefix: borrowed (e.g. DIR/ENZYMES).
 * split: caller's (n_graphs), receives GAT_SPLIT_TRAIN, _VAL or _TEST per graph on success
 * (unchanged on failure). n_folds: may be NULL, else receives the number of folds (lines).
 * Returns GAT_EINVAL (NULL or empty argument, n_graphs <= 0, a fold outside the files' folds),
 * GAT_EIO (a missing or unreadable file), GAT_EFORMAT (a malformed line, an index outside
 * [0, n_graphs), a graph in two parts or in none, files with different numbers of folds; naming
 * file and line), GAT_ENOMEM. Cost O(file sizes + n_graphs). */
GAT_API gat_status gat_dataset_read_graph_folds(const char *prefix, gat_idx n_graphs,
                                                gat_idx fold, uint8_t *split, gat_idx *n_folds);

/* Writes ds (borrowed, unchanged) to a .gatd dataset file at path (format above), replacing it
 * atomically: a temporary file beside it is written, flushed to disk and renamed over path, so
 * that on any failure the old file (or none) stays. name (may be NULL) is recorded in the
 * metadata. The features are stored as ds->x holds them, and "normalized" as ds->normalized says:
 * to keep the raw features, load the source with GAT_NORMALIZE_OFF (a loader with AUTO or ON then
 * normalises them as it would the text); a normalised dataset is stored as normalised and never
 * normalised again. node_ids that are exactly "0".."n-1" are not stored.
 * Graph segments, graph labels and multi-hot labels are stored when ds has them.
 * Returns GAT_EINVAL (NULL ds or path, a malformed graph or features, a graph row without its
 * self-loop or with unsorted sources, a label or split value out of range, a NULL, duplicate or
 * non-UTF-8 id or class name, graph segments that gat_dataset_from_parts would refuse, a
 * label_matrix value other than 0/1), GAT_EIO (cannot write; the message names the path and the
 * reason), GAT_ENOMEM. Cost O(n + E + nnz) time, O(n) extra memory. With ds->splits (a source's
 * fixed splits, n_splits of them) and ds->split one of their rows, the file holds them all
 * (tensor "splits"): a load with split_index k gives row k; else it holds ds->split alone (a
 * split changed after loading is what is stored). Each row is checked as ds->split is (GAT_EINVAL
 * naming the row). */
GAT_API gat_status gat_dataset_save(const gat_dataset *ds, const char *path, const char *name);

/* Writes ds's split as a split file ("<node-id> train|val|test" per node in a split, in node
 * order; the format NAME.split and gat_dataset_files.split are read in), atomically (a temporary
 * file renamed over path), so that a later load with it gives the same split. Returns GAT_EINVAL
 * (NULL argument, a dataset without node ids or split, a node id holding white space or starting
 * with '#', which the reader would not read back), GAT_EIO (cannot write: the path and the
 * reason), GAT_ENOMEM. Cost O(n). */
GAT_API gat_status gat_dataset_save_split(const gat_dataset *ds, const char *path);

/* Makes fixed split k of ds its split: row k of ds->splits copied into ds->split (whatever it
 * held, a split changed since loading included) and n_train, n_val and n_test recounted, as a
 * load with split_index k gives them, so that one model per split (the heterophily benchmarks'
 * mean over 10 splits) needs no reload. Returns GAT_EINVAL for NULL ds, ds without fixed splits
 * (splits NULL: the source holds one, or the split was drawn at random) or k outside [0,
 * n_splits) (the message names k and n_splits). Cost O(n). */
GAT_API gat_status gat_dataset_use_split(gat_dataset *ds, gat_idx k);

/* Draws a fresh random split of ds into ds->split (whatever it held) from o's random split
 * settings: train_per_class, n_val, val_per_class, n_test, split_strict, split_fractions and
 * seed, as gat_dataset_load draws one (the same seed and options give the split a load gives);
 * ds->split_adapted and n_train, n_val, n_test follow. One model per random split (mean and
 * std over splits, as Shchur et al. 2018 report) then needs no reload. ds->splits is left as it
 * is (gat_dataset_use_split returns to a fixed split). Returns GAT_EINVAL for NULL ds or o,
 * options gat_dataset_load refuses, or a dataset without one class per node (no classes,
 * multi-hot labels: the split is drawn by class), GAT_EFORMAT for a strict size the data cannot
 * give and GAT_ENOMEM; ds is unchanged on failure. Cost O(n). */
GAT_API gat_status gat_dataset_random_split(gat_dataset *ds, const gat_dataset_options *o);

/* Cuts ds to the nodes of its graph's largest weakly connected component (edge directions
 * ignored; of two components of the same size, the one holding the lower node number), as
 * Shchur et al. 2018 prepare their benchmark sets. The kept nodes keep their order and ids
 * (node_ids) and are renumbered 0..n'-1; their features, labels, split, every fixed split of
 * ds->splits, multi-hot labels, edges, edge features and edge_input come along; feature
 * columns and classes stay as they are (a class may be left without nodes). A split drawn at
 * random keeps only its kept nodes: draw it again with gat_dataset_random_split (what
 * gat_dataset_options.largest_component does). ds->removed_nodes grows by the nodes removed,
 * also given in *removed (may be NULL). A connected graph (or n == 0) is left as it is.
 * Returns GAT_EINVAL (NULL ds, a dataset of many graphs: n_graphs > 0), GAT_ENOMEM; on failure
 * ds is unchanged. Cost O(n + E D + nnz), and a copy of the kept parts. */
GAT_API gat_status gat_dataset_largest_component(gat_dataset *ds, gat_idx *removed);

/* Removes the classes of ds with fewer than min_nodes labelled nodes, and their nodes with their
 * edges (Shchur et al. 2018's remove_underrepresented_classes keeps the classes of more than
 * train + validation nodes per class, i.e. min_nodes = train + validation + 1). The classes kept
 * are renumbered 0..n_classes'-1 in their order, with their class_names; unlabelled nodes
 * (label -1) stay. The kept nodes keep their order and ids as in gat_dataset_largest_component
 * (every per-node and per-edge array comes along; an edge from a removed node goes), and so
 * does a random split: draw it again with gat_dataset_random_split. ds->removed_classes and
 * ds->removed_nodes grow by the classes and nodes removed, also given in *classes and *nodes
 * (each may be NULL). min_nodes <= 0, or every class large enough: ds is left as it is. Returns
 * GAT_EINVAL (NULL ds, negative min_nodes, a dataset of many graphs or with multi-hot labels,
 * or min_nodes that no class reaches: the message names the largest class), GAT_ENOMEM; on
 * failure ds is unchanged. Cost O(n + E D + nnz), and a copy of the kept parts. */
GAT_API gat_status gat_dataset_remove_small_classes(gat_dataset *ds, gat_idx min_nodes,
                                                    gat_idx *classes, gat_idx *nodes);

/* Renumbers the nodes of ds, a dataset of one graph: node perm[k] becomes node k (perm: (ds->n)
 * a permutation of 0..n-1, as gat_graph_order gives; borrowed). Every per-node array (features,
 * labels, split, every fixed split, multi-hot labels, node_ids) moves with its node and every
 * edge (with its edge features and edge_input) with its ends, each row's sources ascending in
 * the new numbers; the first negative feature is looked up again in the new order. A model
 * trained on the renumbered dataset sees the same graph, except that dropout masks, keyed by
 * position, differ. Returns GAT_EINVAL (NULL argument, a dataset of many graphs, perm not a
 * permutation: the message names the first entry out of range or repeated), GAT_ENOMEM; on
 * failure ds is unchanged. Cost O(n + E log(max degree) + nnz + E D), and a copy of ds. */
GAT_API gat_status gat_dataset_permute(gat_dataset *ds, const gat_idx *perm);

/* Renumbers ds (a dataset of one graph) for locality as gat_model_set_order renumbers the graph
 * a model binds, for the models that take a dataset as it is (gat_gps_train): a method
 * (GAT_ORDER_RCM, GAT_ORDER_DEGREE) always, GAT_ORDER_AUTO by its rule (gat/graph.h: RCM on
 * graphs of GAT_ORDER_AUTO_EDGES edges or more where it brings neighbours closer), GAT_ORDER_NONE
 * never; by gat_dataset_permute with gat_graph_order's permutation. *used (may be NULL) receives
 * the order applied (GAT_ORDER_NONE: ds is as it was). Returns GAT_EINVAL (NULL ds, order not a
 * gat_order, a dataset of many graphs), GAT_ENOMEM; on failure ds is unchanged. Cost
 * gat_graph_order's and gat_dataset_permute's. */
GAT_API gat_status gat_dataset_order(gat_dataset *ds, gat_order order, gat_order *used);

/* Frees everything ds owns and zeroes it. Accepts NULL and a zeroed dataset. */
GAT_API void gat_dataset_destroy(gat_dataset *ds);

#ifdef __cplusplus
}
#endif
#endif
