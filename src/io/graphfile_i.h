/* Private to gat_dataset_read's files (graphfile.c reads the graph through igraph and assembles,
 * graphfile_tables.c reads the node tables: features and labels, graphfile_counts.c checks the
 * declared sizes before igraph allocates for them). */
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

/* A graph file being read through igraph (graphfile.c), with what it gave. */
typedef struct read_ctx {
    FILE *f;
    gat_graph_format fmt;
    int directed;  /* read edgelist, ncol, lgl and dimacs as directed */
    int64_t min_n; /* edgelist: at least this many vertices */
    /* results, gat-allocated */
    int64_t n;
    size_t m;
    int is_directed;
    int64_t *src, *dst; /* (m) */
    char **ids;         /* (n) vertex ids */
    /* edge attributes to read (inputs), and what they gave */
    const char *const *eattr;
    gat_idx n_eattr;
    int *etype;   /* (n_eattr) */
    double *erow; /* (m, n_eattr) */
    /* edgelist and ncol: numeric columns after the two node fields (split_columns) */
    gat_idx n_cols; /* D, 0 if the lines have two fields */
    gat_real *crow; /* (lines, D) */
    size_t n_lines; /* edge lines read */
    char *stripped; /* the file with the two node fields of each line, which igraph reads */
    size_t stripped_len;
    size_t max_line; /* gat_dataset_options.max_line, for split_columns */
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
/* Frees L and zeroes it; accepts a zeroed L. */
void gat_i_gf_labels_free(labels *L);

/* Checks the vertex and edge counts c's file declares (and F's ids, may be NULL) against the
 * index type and the file's size, before igraph allocates for them (graphfile_counts.c).
 * Returns GAT_EFORMAT naming path. */
gat_status gat_i_gf_check_counts(const read_ctx *c, const features *F, const char *path);

#endif
