/* Private to gat_dataset_read's files (graphfile.c reads the graph through igraph and assembles,
 * graphfile_edges.c reads edge tables itself, graphfile_tables.c reads the node tables: features
 * and labels, graphfile_counts.c checks the declared sizes before anything is allocated for
 * them). */
#ifndef GAT_I_GRAPHFILE_H
#define GAT_I_GRAPHFILE_H

#include "gat/graphfile.h"
#include "io/idtable.h"
#include "io/text.h"

#include <stdint.h>
#include <stdio.h>

/* A features file: one line per node, "<id> <v1> ... <vF>" (dense) or "<id> <col>:<v> ..."
 * (sparse), in file order. */
typedef struct features {
    gat_i_text t;       /* the file; ids point into its buffer */
    char **ids;         /* (rows) node id of each row */
    long *line;         /* (rows) line of each row */
    gat_csr x;          /* (rows, F) in file order */
    gat_i_strmap map;   /* id -> row */
    int64_t max_number; /* largest id that reads as a vertex number, -1 if none */
} features;

/* A graph file being read (through igraph by graphfile.c, or as an edge table by
 * graphfile_edges.c), with what it gave. */
typedef struct read_ctx {
    FILE *f;
    gat_graph_format fmt;
    int directed;    /* read edge tables, lgl and dimacs as directed */
    int64_t min_n;   /* edge tables of vertex numbers: at least this many vertices */
    size_t max_line; /* gat_dataset_options.max_line */
    /* results, gat-allocated */
    int64_t n;
    size_t m;
    int is_directed;
    int named;          /* the vertices are names (ncol, lgl, an edge table of names) */
    int64_t *src, *dst; /* (m) */
    char **ids;         /* (n) vertex ids */
    /* edge attributes to read (inputs), and what they gave */
    const char *const *eattr;
    gat_idx n_eattr;
    int *etype;   /* (n_eattr) */
    double *erow; /* (m, n_eattr) */
    /* vertex attributes to read (inputs: gat_dataset_files), and what they gave */
    const char *const *vattr; /* feature attributes (n_vattr > 0) */
    gat_idx n_vattr;          /* 0: none; GAT_ALL_ATTRIBUTES: every numeric one */
    const char *label_attr;   /* the class attribute, or NULL */
    char **vnames;            /* (n_vnames) the feature attributes read, owned copies */
    gat_idx n_vnames;
    int *vtype;     /* (n_vnames) */
    double *vrow;   /* (n, n_vnames) */
    int label_type; /* IGRAPH_ATTRIBUTE_* of label_attr, -1 if missing */
    char **vlabel;  /* (n) owned label strings, NULL where a vertex has none */
    /* edge tables: numeric columns after the two node fields (edge k: line k) */
    gat_idx n_cols; /* D, 0 if the lines have two fields */
    gat_real *crow; /* (lines, D) */
    size_t n_lines; /* edge lines read */
} read_ctx;

/* A labels file (an id table, io/idtable.h) and the classes it names. */
typedef struct labels {
    gat_i_idtable r; /* the file; class names point into it */
    gat_idx *label;  /* (n) class or -1 */
    char **names;    /* (C) class names, ordered */
    gat_idx n_classes;
} labels;

/* s as a non-negative decimal integer below limit (digits only), or -1. */
int64_t gat_i_gf_parse_count(const char *s, int64_t limit);

/* Reads the features file at path into F (uninitialised; destroy-safe on failure); max_line as
 * in gat_i_text_load. Returns GAT_EIO, GAT_EFORMAT, GAT_ENUMERIC naming path:line, GAT_ENOMEM. */
gat_status gat_i_gf_read_features(features *F, const char *path, size_t max_line);
/* Frees F and zeroes it; accepts a zeroed F. */
void gat_i_gf_features_free(features *F);

/* x (uninitialised) = F's rows in node order over the n nodes of nodes/ids; every node needs
 * exactly one row (GAT_EFORMAT naming F's file and graph_path). */
gat_status gat_i_gf_features_by_node(gat_csr *x, const features *F, const gat_i_strmap *nodes,
                                     char *const *ids, gat_idx n, const char *graph_path);

/* Reads the labels file at path into L (uninitialised; destroy-safe on failure): a label per
 * listed node (-1 for the others), classes numbered in numeric order when every label is an
 * integer, else in byte order. known, max_line: as in gat_i_idtable_open. */
gat_status gat_i_gf_read_labels(labels *L, const char *path, size_t max_line,
                                const gat_i_strmap *nodes, char *const *ids, gat_idx n,
                                const char *known);
/* L (zeroed) = classes of the label strings text (n; NULL: unlabelled; borrowed, must outlive
 * L), numbered as in gat_i_gf_read_labels; n_classes 0 when no node has one. GAT_ENOMEM. */
gat_status gat_i_gf_label_classes(labels *L, char *const *text, gat_idx n);
/* Frees L and zeroes it; accepts a zeroed L. */
void gat_i_gf_labels_free(labels *L);

/* Checks the vertex and edge counts c's file (pajek, dimacs) declares (and F's ids, may be NULL)
 * against the index type and the file's size, before igraph allocates for them
 * (graphfile_counts.c). Returns GAT_EFORMAT naming path. */
gat_status gat_i_gf_check_counts(const read_ctx *c, const features *F, const char *path);
/* Checks n vertices that the graph file at path (bytes long) declares against F (NULL: no
 * features file; then at most one vertex per byte). numbered: the vertices are 0..n-1 by number,
 * so that the message can name the first one F lacks. Returns GAT_EFORMAT, GAT_ENOMEM. */
gat_status gat_i_gf_check_vertices(const features *F, const char *path, int64_t n, size_t bytes,
                                   int numbered);

/* Reads the edge table (c->fmt edgelist, ncol or csv) at path into c (inputs set; results owned
 * by c), with libgat's own parser: fields split at white space (csv: at commas, RFC 4180
 * quoting), lines whose first field starts with '#' or '%' skipped, a header line skipped (a CSV
 * file's first line unless it holds two vertex numbers; another table's when it stands above a line
 * of vertex numbers and holds none itself), the same fields on every line, columns after the two
 * nodes numeric edge features (with c->eattr: the header's columns of those names). Vertices are
 * numbers when every node field is one (not in ncol), else names in order of first appearance
 * (c->named). F (may be NULL) bounds the vertex count. Returns GAT_EIO, GAT_EFORMAT and
 * GAT_ENUMERIC naming path:line[:column], GAT_EINVAL (an edge attribute no header column
 * names), GAT_ENOMEM. */
gat_status gat_i_gf_read_edges(read_ctx *c, const features *F, const char *path);

#endif
