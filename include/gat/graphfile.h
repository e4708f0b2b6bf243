/* Datasets from a graph file plus plain-text node features, labels and split (or the graph
 * file's own vertex attributes), so that an edge list and a feature table train without any
 * conversion.
 *
 * Graph formats. Edge tables, read by libgat: edgelist ("a b" per line, white space), ncol
 * ("name1 name2" per line) and csv (comma-separated, RFC 4180 quoting); plain or gzip; lines
 * whose first field starts with '#' or '%' are comments (SNAP, KONECT); every line has the same fields, those after
 * the two nodes numeric edge features (D columns). A header line naming the columns is skipped:
 * a CSV file's first line unless it holds two vertex numbers (pandas, Gephi and DGL write one;
 * OGB's numeric files none), another table's first line when it holds no vertex numbers and the
 * line after it does. Read by igraph 0.10: lgl ("# name" then neighbour lines), graphml, gml,
 * pajek, dimacs (max-flow "p max" or "p edge" files).
 *
 * Directions, one rule for every format: with gat_dataset_options.symmetrize (the default)
 * every edge gives both directions, whatever the file says; with symmetrize == 0 each edge keeps
 * the direction its file gives it (a -> b becomes the message direction a -> b): directed
 * graphml/gml/pajek files and every line of an edge table, lgl or dimacs file are directed, while
 * the edges of a file that declares itself undirected (graphml edgedefault="undirected", gml
 * "directed 0", pajek *Edges) still run both ways.
 *
 * Node ids, matched against the first field of the text files: in an edge table the fields
 * themselves (vertex numbers, 0-based, when every id of the file is a non-negative decimal
 * integer and the format is not ncol; else names); in igraph's formats the vertex attribute
 * "name" if the file gives one (lgl, pajek labels), in gml files "label" when every vertex has
 * a distinct one (networkx writes node names there), else "id" (graphml node ids, gml ids),
 * else the vertex number as the file counts it (1-based for pajek and dimacs).
 * Node order (the rows of x, labels, node_ids and every output): the order in which the graph
 * file declares its vertices (numbered tables and dimacs: by number; graphml, gml, pajek: as
 * listed); tables of names and lgl declare none, so with a features file their nodes follow the
 * features file's lines, and without one the order of first appearance in the edges. Vertices
 * without edges: a numbered table has 1 + the largest number in the graph or the features file
 * vertices; for names, ids of the features file that the graph file lacks are added as isolated
 * nodes; graphml, gml, pajek and dimacs declare every vertex.
 *
 * Text files: fields separated by spaces or tabs, lines starting with '#' ignored, plain or gzip.
 *   features, dense:  <node-id> <v1> ... <vF>            (every line F values)
 *   features, sparse: <node-id> <col>:<val> ...          (0-based columns, ascending; F = the
 *                     largest column + 1; chosen when the first value field holds a ':')
 *   Every node needs exactly one features line. Without a features file (or feature
 *   attributes) the features are the one-hot identity (gat_csr_identity).
 *   labels: <node-id> <label>   labels are strings; classes are numbered by numeric order when
 *                               every label is an integer, else by byte order; nodes not listed
 *                               are unlabelled (label -1, in no split); a labels file that
 *                               lists no node is an error.
 *   split:  <node-id> train|val|test   (labelled nodes only; without it, the seeded random split
 *                               of the options over the labelled nodes)
 *   In the labels and split files, as in the Cora layout's split file, lines whose first field
 *   starts with '#' are comments and a node listed twice is an error.
 * Numbers are read with '.' as the decimal point whatever the process locale.
 * Threads: igraph is not thread-safe; call gat_dataset_read from one thread at a time. */
#ifndef GAT_GRAPHFILE_H
#define GAT_GRAPHFILE_H

#include "dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gat_graph_format {
    GAT_GRAPH_FORMAT_AUTO = 0, /* from the graph file's extension (gat_graph_format_from_path) */
    GAT_GRAPH_FORMAT_EDGELIST = 1,
    GAT_GRAPH_FORMAT_NCOL = 2,
    GAT_GRAPH_FORMAT_LGL = 3,
    GAT_GRAPH_FORMAT_GRAPHML = 4,
    GAT_GRAPH_FORMAT_GML = 5,
    GAT_GRAPH_FORMAT_PAJEK = 6,
    GAT_GRAPH_FORMAT_DIMACS = 7,
    GAT_GRAPH_FORMAT_CSV = 8 /* an edge list with comma-separated fields (see above) */
} gat_graph_format;

/* The format called name: "auto", "edgelist", "ncol", "lgl", "graphml", "gml", "pajek",
 * "dimacs" or "csv"; ASCII letters match case-insensitively ("GraphML" too), as in every *_from_name
 * function of libgat. *fmt: set on success. Returns GAT_EINVAL (NULL argument; an unknown name,
 * the message "unknown graph format 'NAME' (expected auto, edgelist, ... or dimacs)"). */
GAT_API gat_status gat_graph_format_from_name(const char *name, gat_graph_format *fmt);

/* The format of path's extension (case-insensitive): .edgelist .edges .el .txt .tsv -> edgelist;
 * .csv; .ncol; .lgl; .graphml .xml; .gml; .net .paj .pajek; .dimacs .max .col -> dimacs; the edge
 * tables may end in .gz too (x.csv.gz), igraph's formats may not (GAT_EINVAL saying so).
 * Returns GAT_EINVAL for any other extension. */
GAT_API gat_status gat_graph_format_from_path(const char *path, gat_graph_format *fmt);

/* The lowercase name of fmt ("auto", "edgelist", ...; static), which gat_graph_format_from_name
 * maps back to fmt, or NULL if fmt is not a gat_graph_format. */
GAT_API const char *gat_graph_format_name(gat_graph_format fmt);

/* The files of a dataset (paths borrowed for the call). */
typedef struct gat_dataset_files {
    const char *graph;       /* required: the graph file */
    gat_graph_format format; /* its format (GAT_GRAPH_FORMAT_AUTO: from the extension) */
    const char *features;    /* features file, or NULL for one-hot identity features */
    const char *labels;      /* labels file, or NULL: every node unlabelled, no classes */
    const char *split;       /* split file, or NULL: random split of the labelled nodes */
    /* Since 0.2: node tables from the graph file's own vertex attributes (GraphML, GML and the
     * other formats igraph reads; not the edge tables), instead of the text files above. */
    const char *label_attribute; /* the vertex attribute holding each node's class (numeric or
                                    string, named as a labels file's; a missing, NaN or negative
                                    number or an empty string: unlabelled), or NULL */
    const char *const *feature_attributes; /* (n_feature_attributes) numeric vertex attributes
                                              read as feature columns, in this order, or NULL */
    gat_idx n_feature_attributes; /* 0: none (features file or one-hot); GAT_ALL_ATTRIBUTES:
                                     every numeric vertex attribute but label_attribute and "id",
                                     in the file's order (one-hot if there is none) */
} gat_dataset_files;

/* n_feature_attributes: every numeric vertex attribute. */
#define GAT_ALL_ATTRIBUTES (-1)

/* Reads a dataset from the files above. ds: uninitialised; filled on success, zeroed on
 * failure. opt may be NULL for defaults (symmetrize, normalize and the random split apply; see
 * gat_dataset_options and the report fields of gat_dataset). opt->edge_attributes names numeric
 * edge attributes to read as edge features (merged as gat_dataset_options says): those the
 * format's igraph reader keeps (GraphML, GML), or an edge table's header columns. ds->edge_input
 * holds the input edge of each CSR edge (file order: an edge table's data line k is edge k).
 * Returns GAT_EINVAL (NULL argument, unknown format, an edge or vertex attribute missing or not
 * numeric, a file and the attributes replacing it both given, vertex attributes of an edge
 * table), GAT_EIO (a file cannot be opened or read:
 * the message names it and the system's reason), GAT_EFORMAT (igraph cannot parse the graph
 * file: the message names it, the format and igraph's reason; a text file is malformed or names
 * an unknown or repeated node: the message gives file:line; duplicate vertex ids; a node without
 * a features line; too few labelled nodes for a strict size of the random split), GAT_ENUMERIC
 * (a NaN or Inf feature, with file:line), GAT_EINVAL (also: normalize = GAT_NORMALIZE_ON with a
 * negative feature; the message names the features file, the node, the column and the value),
 * GAT_EDEP (igraph failed otherwise), GAT_ENOMEM.
 * Cost O(file sizes + E log E). */
GAT_API gat_status gat_dataset_read(gat_dataset *ds, const gat_dataset_files *files,
                                    const gat_dataset_options *opt);

#ifdef __cplusplus
}
#endif
#endif
