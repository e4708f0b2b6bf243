/* Shared command-line parsing of the libgat tools: a table of long options, each with a typed
 * destination, a range and a help line; usage output; dataset name resolution. */
#ifndef GAT_CLI_H
#define GAT_CLI_H

#include <stdio.h>

#include "gat/gat.h"

typedef enum cli_type { CLI_FLAG, CLI_INT, CLI_REAL, CLI_STRING } cli_type;

typedef struct cli_option {
    const char *name;  /* without the leading "--" */
    cli_type type;
    void *dest;        /* int* (FLAG, INT), double* (REAL), const char** (STRING) */
    double min, max;   /* accepted range of INT and REAL values */
    const char *arg;   /* placeholder in the help, e.g. "N" */
    const char *help;  /* NULL: a deprecated spelling (CLI_DEPRECATED), hidden from --help */
} cli_option;

/* A deprecated spelling OLD of the option NEW (both without "--"), kept for one release: it
 * parses as --NEW, after "PROG: --OLD is deprecated, use --NEW" on stderr; --help omits it. */
#define CLI_DEPRECATED(old, now) {old, CLI_FLAG, NULL, 0, 0, now, NULL}

/* Parses argv against opts (terminated by an entry with name NULL). Returns 0 on success,
 * 2 after printing a one-line error for a bad or unknown option to stderr (an unknown one names
 * the nearest option, within two edits: "did you mean --epochs?"). A value given as the next
 * argument never starts with "--" ("--dataset --quiet" is a usage error); such a value is
 * written --OPT=VALUE. --help and --version are handled here: they print and set *exit_now to 1
 * (return 0). */
int cli_parse(int argc, char **argv, const cli_option *opts, const char *prog, const char *synopsis,
              int *exit_now);
void cli_usage(FILE *out, const cli_option *opts, const char *prog, const char *synopsis);

/* Parses the comma-separated integers "V1,V2,..." given to --opt into out (room for max), each
 * in [lo, hi]; *n gets how many the list holds, even past max (the caller says how many it
 * wanted). Returns 0, or 2 after "PROG: --OPT: expected WHAT, got 'LIST'" on stderr for an empty
 * item, a non-number or a value out of range. */
int cli_parse_list(const char *prog, const char *opt, const char *list, long lo, long hi,
                   const char *what, int max, int *out, int *n);

/* Checks that the directory of output path (of option --opt) exists and is writable, so that a
 * long run does not end in a failed write. Returns 0, or 1 after "PROG: --OPT: cannot write PATH:
 * directory DIR: REASON" on stderr. */
int cli_check_output(const char *prog, const char *opt, const char *path);

/* An output file of a tool written under a temporary name beside it (".NAME.tmp-XXXXXX") and
 * renamed over it by cli_afile_commit, so that a failed write (a full disk) leaves the previous
 * file as it was; the library's rule (src/io/fileio.c) for what is not a regular file: an
 * existing device or FIFO is written straight into, a symbolic link (dangling or not) replaces
 * the file it names. Write through f, or through fd (e.g. zlib's gzdopen(dup(fd))) with f
 * left empty. */
typedef struct cli_afile {
    FILE *f;
    int fd;
    char path[4096]; /* the file replaced or written into */
    char tmp[4160];  /* the temporary file; "" when writing straight into path */
} cli_afile;

/* Opens the temporary file for path. Returns 0, or 1 after "PROG: cannot write PATH: REASON" on
 * stderr (a is then zeroed). */
int cli_afile_open(const char *prog, cli_afile *a, const char *path);
/* Flushes, syncs and closes the file and renames it over the target. Returns 0, or 1 after
 * "PROG: cannot write PATH: REASON" on stderr, the temporary file removed. err: the errno of an
 * earlier failed write through a (0: none); the message gives its reason. */
int cli_afile_commit(const char *prog, cli_afile *a, int err);
/* Closes and removes the temporary file (the target stays as it was); accepts a zeroed a. */
void cli_afile_abort(cli_afile *a);

/* The environment's run-time model options: GAT_ISA=base|avx2|avx512 names options->kernels
 * and GAT_ALPHA=store|recompute options->alpha (the library reads no environment); unset or
 * empty leaves the field as it is, and so does any other value, which cli_check_env refuses. */
void cli_model_env(gat_model_options *options);
/* 0, or 2 after a one-line message naming the variable when GAT_ISA or GAT_ALPHA holds another
 * value than cli_model_env reads (the tools that build models call it first) */
int cli_check_env(const char *prog);

/* --threads T for OpenBLAS, which the tools link through libgat (LAPACK for the PCA of the
 * pictures) and whose threads start when it loads, before main: T >= 1 caps OpenBLAS's thread
 * count at T (openblas_set_num_threads, before the first BLAS call); T = 0 ("all cores")
 * leaves it as OpenBLAS chose (OPENBLAS_NUM_THREADS, else the cores). The library never
 * changes it: the thread count is the process's, so the tool sets it. */
void cli_blas_threads(int threads);

/* For the tools that never train (gat-convert, gat-partition, gat-synth, gat-embed): OpenBLAS
 * on one thread, and the pool of threads it started when it loaded stopped (OpenBLAS's
 * blas_thread_shutdown_, where the OpenBLAS build has one); their BLAS calls, a picture's PCA,
 * are small. Call it first in main. */
void cli_serial_blas(void);

/* Resolves --dataset with gat_dataset_locate (the library's rule: an existing path as it is, a
 * bare name in $GAT_DATASETS, the installed, then the source tree's datasets). Returns a static
 * buffer, or NULL with a message on stderr. */
const char *cli_dataset_path(const char *prog, const char *name);

/* What a model file records as its --dataset NAME (gat_model_meta.dataset): a bundled name found
 * on the dataset search path as it is (it moves with the installation), an existing path made
 * absolute (its directory resolved, so a Cora-style prefix DIR/NAME works too), so that gat-embed
 * finds it from any directory. Returns name or buf (size bytes). */
const char *cli_dataset_record(const char *name, char *buf, size_t size);

/* The dataset a model records (rec, gat_model_meta.dataset) as seen from here: an absolute path
 * or a bare name as it is; a relative path (older files) against the model file's directory
 * when it names a dataset there, else as it is (the working directory). Returns rec or buf. */
const char *cli_dataset_recorded(const char *rec, const char *model_path, char *buf, size_t size);

/* Where a tool's dataset comes from: a Cora-style dataset (--dataset), or a graph file read by
 * igraph with node features, labels and split from text files (--graph ...; gat/graphfile.h). */
typedef struct cli_data {
    const char *dataset;      /* --dataset NAME|PATH, or NULL */
    const char *graph;        /* --graph FILE, or NULL */
    const char *graph_format; /* --graph-format F, or NULL: from the extension */
    const char *features;     /* --features FILE, or NULL: one-hot node features */
    const char *labels;       /* --labels FILE, or NULL */
    const char *split;        /* --split FILE or TR/VA/TE percentages, or NULL: random split */
    const char *edge_attributes; /* --edge-attributes NAME[,NAME...], or NULL */
    const char *feature_attributes; /* --feature-attributes all|NAME[,NAME...], or NULL */
    const char *label_attribute;    /* --label-attribute NAME, or NULL */
    int skip_unknown_cites;         /* --skip-unknown-cites */
    const char *self_loop_fill;  /* --self-loop-fill mean|zero, or NULL: the library's default */
    const char *tu_features;     /* --tu-features all|labels|attributes, or NULL: opt's */
    int largest_component;       /* --largest-component: gat_dataset_options.largest_component */
    int min_class_nodes;         /* --min-class-nodes N: gat_dataset_options.min_class_nodes */
    const char *direction;       /* set by the tool: "--directed" or "--undirected" when given
                                  * (refused on a .gatd file, whose graph is stored as built) */
} cli_data;

/* Option-table entries for cli_data d (the tools add --dataset themselves, with their default). */
#define CLI_GRAPH_OPTIONS(d)                                                                       \
    {"graph", CLI_STRING, &(d).graph, 0, 0, "FILE",                                                \
     "graph file: an edge list or CSV, or a format igraph reads (instead of a Cora-style "      \
     "dataset)"},                                                                                 \
    {"graph-format", CLI_STRING, &(d).graph_format, 0, 0, "F",                                     \
     "edgelist, ncol, csv, lgl, graphml, gml, pajek or dimacs (default: from the extension)"},   \
    {"features", CLI_STRING, &(d).features, 0, 0, "FILE",                                          \
     "with --graph: '<id> <v1> ... <vF>' or '<id> <col>:<val> ...' per node, or a .csv table "  \
     "with a header (default one-hot)"},                                                          \
    {"feature-attributes", CLI_STRING, &(d).feature_attributes, 0, 0, "all|NAME[,NAME...]",        \
     "with --graph (GraphML, GML): numeric vertex attributes read as the features (all: every "   \
     "one but the label attribute and id)"},                                                      \
    {"edge-attributes", CLI_STRING, &(d).edge_attributes, 0, 0, "NAME[,NAME...]",                  \
     "with --graph: numeric edge attributes (GraphML, GML) or header columns (edge tables) read " \
     "as edge feature columns"},                                                                  \
    {"skip-unknown-cites", CLI_FLAG, &(d).skip_unknown_cites, 0, 0, NULL,                          \
     "Cora layout: skip .cites lines naming an id .content lacks (raw LINQS Citeseer has them; "  \
     "default: an error naming the line)"},                                                       \
    {"self-loop-fill", CLI_STRING, &(d).self_loop_fill, 0, 0, "mean|zero",                         \
     "edge features of the self-loops the graph builder adds: the mean of the node's in-edges' "   \
     "(default) or zeros"},                                                                       \
    {"tu-features", CLI_STRING, &(d).tu_features, 0, 0, "all|labels|attributes",                   \
     "TU set: the node features, one-hot node labels then attributes (all, the default), the "    \
     "labels or the attributes alone (a set without attributes: its labels)"},                   \
    {"largest-component", CLI_FLAG, &(d).largest_component, 0, 0, NULL,                            \
     "keep only the nodes of the graph's largest connected component (as Shchur et al. 2018), "  \
     "the random split drawn over them"},                                                         \
    {"min-class-nodes", CLI_INT, &(d).min_class_nodes, 0, 2147483647, "N",                         \
     "remove the classes of fewer than N labelled nodes, with their nodes (Shchur et al.: 51 "    \
     "for 20 training and 30 validation nodes a class), the random split drawn after"}
#define CLI_LABEL_OPTIONS(d)                                                                       \
    {"labels", CLI_STRING, &(d).labels, 0, 0, "FILE", "with --graph: '<id> <label>' per labelled node"}, \
    {"label-attribute", CLI_STRING, &(d).label_attribute, 0, 0, "NAME",                           \
     "with --graph (GraphML, GML): the vertex attribute holding each node's class (instead of "  \
     "--labels)"},                                                                                \
    {"split", CLI_STRING, &(d).split, 0, 0, "FILE|TR/VA/TE",                                       \
     "with --graph: '<id> train|val|test' per node (default: random split); or percentages of "  \
     "each class, e.g. 60/20/20 (Geom-GCN): a random split, also without --graph"}

/* The GAT_TU_FEATURES_* value of --tu-features (fallback when not given or not a name). */
int cli_tu_features(const cli_data *d, int fallback);

/* --split TR/VA/TE: three numbers (digits and '.') joined by '/' are percentages of each class,
 * anything else a split file (a file of that name is given as ./TR/VA/TE). Returns 1 with the
 * fractions in f, 0 for a file name, -1 for percentages out of range (printed unless prog is
 * NULL). */
int cli_split_percentages(const char *prog, const char *s, double *f);

/* Loads the dataset d names, with opt (NULL: defaults): --graph and its files through
 * gat_dataset_read, else --dataset or default_name through gat_dataset_load (with
 * --skip-unknown-cites: gat_dataset_options.skip_unknown_edges; the caller reports
 * ds->skipped_edges; --tu-features: gat_dataset_options.tu_features, a usage error (2) when the
 * data is not a set of graphs). need_labels: a
 * --graph needs --labels or --label-attribute. *name gets a name for messages (borrowed from d or default_name).
 * Returns 0 (ds filled), 1 (failure; the error printed) or 2 (bad option combination; printed). */
int cli_load_dataset(const char *prog, const cli_data *d, const char *default_name,
                     int need_labels, const gat_dataset_options *opt, gat_dataset *ds,
                     const char **name);

/* The features' column standardisation (gat-train --standardize, and gat-embed repeating a
 * model's): ds->x becomes a copy of the features as loaded with columns c < n set to (x -
 * shift[c]) * scale[c] (gat_csr_standardize_columns). The features as loaded go to *keep (zeroed
 * by the caller before the first call) and stay there: later calls standardise them again, and
 * cli_restore_features gives them back to ds (before gat_dataset_destroy or tool_pe_destroy).
 * Returns 0, or 1 after a message. */
int cli_standardize_features(const char *prog, gat_dataset *ds, gat_csr *keep, gat_idx n,
                             const gat_real *shift, const gat_real *scale);
/* The same with shift and scale ((n) each) fitted first: the moments of the features as loaded
 * over the nodes i with use[i] != 0 (gat_csr_column_moments; the training nodes). */
int cli_standardize_fit(const char *prog, gat_dataset *ds, gat_csr *keep, gat_idx n,
                        const uint8_t *use, gat_real *shift, gat_real *scale);
void cli_restore_features(gat_dataset *ds, gat_csr *keep);
/* What the loader dropped, on stderr unless quiet: the .cites lines --skip-unknown-cites
 * skipped, the nodes outside the largest component (--largest-component) and the classes
 * smaller than d->min_class_nodes (--min-class-nodes) with their nodes. */
void cli_dataset_notes(const char *prog, const cli_data *d, const gat_dataset *ds, int quiet);
/* A note on stderr (unless quiet) when every training node of ds (graphs: every graph) has
 * one class: the model can only learn to predict it. */
void cli_one_class_note(const char *prog, const gat_dataset *ds, const char *name, int graphs,
                        int quiet);
/* A note on stderr (unless quiet) when every node of ds has the same features (a TU set without
 * node labels or attributes gets the constant 1) and pe is NULL (no --pe): attention averages
 * equal vectors, so every layer gives every node the same embedding. */
void cli_constant_features_note(const char *prog, const gat_dataset *ds, const char *name,
                                const char *pe, int quiet);

#endif
