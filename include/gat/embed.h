/* Inference outputs of a trained model (node embeddings, class probabilities, attention
 * coefficients) and writers of files that other tools read.
 *
 * Representations ("layers") of a model with L attention layers: l in 0..L-2 is hidden layer l's
 * output, (N, heads * hidden), heads concatenated, after the ELU; l = L-1 or GAT_LAYER_LOGITS is
 * the output layer's (N, C) logits; GAT_LAYER_PROBS is their softmax per row. Every call taking a
 * graph and features first runs an inference forward (no dropout) on them, so its results depend
 * only on the parameters and the inputs and repeat bit for bit for a given thread count.
 *
 * File formats of gat_matrix_save (one row per node):
 *   npy       NumPy .npy version 1.0: dtype '<f4' (float32; '<f8' in double builds), C order,
 *             shape (rows, cols); numpy.load reads it. Row ids are not stored in it:
 *             gat_ids_save writes them beside it (gat-embed: E.npy's ids in E.ids.txt).
 *   tsv, csv  a header line "id d0 d1 ... d<cols-1>" (unless GAT_WRITE_NO_HEADER), then per row
 *             the id and the values, %.9g (exactly float32's value). CSV quotes ids that hold a
 *             comma, a quote or a line break (RFC 4180); TSV refuses ids with a tab or line break.
 *   word2vec  the word2vec text format: a line "rows cols", then "id v1 ... v<cols>" separated by
 *             single spaces (gensim's KeyedVectors.load_word2vec_format(path, binary=False));
 *             ids must not hold whitespace.
 * Row ids are NUL-terminated strings (e.g. gat_dataset.node_ids); NULL means the row numbers.
 * Numbers are written with '.' whatever the process locale. Every file is written atomically:
 * under a temporary name in the same directory, synced, then renamed over the path, so a failure
 * never leaves a partial file and leaves any previous file intact. */
#ifndef GAT_EMBED_H
#define GAT_EMBED_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Layer selectors besides 0..L-1. */
#define GAT_LAYER_LOGITS (-1) /* the output layer's logits (the same as L-1) */
#define GAT_LAYER_PROBS (-2)  /* softmax of the logits */

/* Width of representation `layer` (see above), or -1 if there is no such layer or m is NULL. */
GAT_API gat_idx gat_model_embed_width(const gat_model *m, int layer);

/* Runs an inference forward of m on graph g and features x (borrowed; x->rows == g->n,
 * x->cols == in_features) and copies representation `layer` into out, (g->n,
 * gat_model_embed_width(m, layer)) row-major, caller-owned. Returns GAT_EINVAL (NULL argument,
 * no such layer, malformed g or x as gat_model_forward checks them), GAT_ENUMERIC (a NaN or Inf
 * in x), GAT_EDIM (x and g or the model disagree; the message names both sizes), GAT_ENOMEM.
 * Cost: one forward, O(nnz(x) K F' + E K F'). */
GAT_API gat_status gat_model_embed(gat_model *m, const gat_graph *g, const gat_csr *x, int layer,
                                   gat_real *out);

/* Runs an inference forward as gat_model_embed and copies layer l's (0..L-1) attention
 * coefficients into alpha, (g->nnz, heads of l) edge-major in g's in-CSR order (edge e goes
 * from g->col[e] into the node whose row holds e), caller-owned. Each node's coefficients sum to
 * 1 per head. Returns as gat_model_embed. */
GAT_API gat_status gat_model_attention_copy(gat_model *m, const gat_graph *g, const gat_csr *x,
                                            int l, gat_real *alpha);

/* File formats of gat_matrix_save. */
typedef enum gat_file_format {
    GAT_FORMAT_AUTO = 0, /* from the path's extension (gat_file_format_from_path) */
    GAT_FORMAT_NPY = 1,
    GAT_FORMAT_TSV = 2,
    GAT_FORMAT_CSV = 3,
    GAT_FORMAT_WORD2VEC = 4
} gat_file_format;

/* Flags of the writers. */
enum { GAT_WRITE_NO_HEADER = 1u /* tsv, csv, attention, predictions: omit the header line */ };

/* The format named "auto", "npy", "tsv", "csv" or "word2vec" (also "w2v"); ASCII letters match
 * case-insensitively ("NPY" too), as in every *_from_name function of libgat. *fmt: set on
 * success. Returns GAT_EINVAL (NULL argument; an unknown name, the message "unknown file format
 * 'NAME' (expected auto, npy, tsv, csv, word2vec or w2v)"). Cost O(1). */
GAT_API gat_status gat_file_format_from_name(const char *name, gat_file_format *fmt);

/* The format of path's extension: .npy; .tsv, .tab; .csv; .w2v, .vec, .word2vec (case
 * insensitive). Returns GAT_EINVAL if the extension is none of these. */
GAT_API gat_status gat_file_format_from_path(const char *path, gat_file_format *fmt);

/* The lowercase name of fmt ("auto", "npy", "tsv", "csv", "word2vec"; static), which
 * gat_file_format_from_name maps back to fmt, or NULL if fmt is not a gat_file_format. */
GAT_API const char *gat_file_format_name(gat_file_format fmt);

/* Writes the (rows, cols) row-major matrix data (borrowed) to path in format fmt (AUTO: from the
 * extension), with row ids ids ((rows) borrowed strings, or NULL for 0..rows-1) and flags
 * GAT_WRITE_*. Returns GAT_EINVAL (NULL path or data, negative size, unknown format, an id the
 * format cannot hold), GAT_EIO (cannot create, write or rename; the previous file is intact),
 * GAT_ENOMEM. Cost O(rows cols). */
GAT_API gat_status gat_matrix_save(const char *path, gat_file_format fmt, gat_idx rows,
                                   gat_idx cols, const gat_real *data, const char *const *ids,
                                   unsigned flags);

/* Writes the n ids ((n) borrowed strings, or NULL for 0..n-1) to path, one per line in order,
 * nothing else: the row ids of a .npy file that gat_matrix_save wrote with the same ids, for
 * numpy.loadtxt(path, dtype=str) or a plain read. Atomic as gat_matrix_save. Returns GAT_EINVAL
 * (NULL path, negative n, an id that is NULL or holds a tab or a line break), GAT_EIO (the
 * previous file intact), GAT_ENOMEM. Cost O(total length of the ids). */
GAT_API gat_status gat_ids_save(const char *path, gat_idx n, const char *const *ids);

/* Runs an inference forward of m on g and x and writes every edge's attention coefficient, for
 * every layer and head, to path as TSV: a header "layer head dst src alpha edge self_loop"
 * (unless GAT_WRITE_NO_HEADER), then one line per (layer, head, edge) in that order, edges in g's
 * in-CSR order (self-loops included), dst and src as ids ((g->n) borrowed strings, or NULL for
 * node numbers). `edge` is edge_input[e]: the input edge the CSR edge came from (a dataset's
 * gat_dataset.edge_input, or gat_graph_from_edges_mapped's output; (g->nnz) borrowed, values
 * >= -1), -1 for an added self-loop; with edge_input NULL it is -1 on self-loops and "NA"
 * elsewhere (unknown). `self_loop` is 1 when dst == src, else 0.
 * Returns as gat_model_embed and gat_matrix_save; GAT_EINVAL for an edge_input value below -1.
 * Cost O(E sum of heads). */
GAT_API gat_status gat_attention_save_edges(const char *path, gat_model *m, const gat_graph *g,
                                            const gat_csr *x, const char *const *ids,
                                            const gat_idx *edge_input, unsigned flags);

/* gat_attention_save_edges without provenance (edge_input NULL). */
GAT_API gat_status gat_attention_save(const char *path, gat_model *m, const gat_graph *g,
                                      const gat_csr *x, const char *const *ids, unsigned flags);

/* Runs an inference forward of m on g and x and writes each node's predicted class (the largest
 * logit; the first on ties) and its softmax probability to path as TSV: a header
 * "id class probability" (unless GAT_WRITE_NO_HEADER), then one line per node. class_names:
 * (C) borrowed strings, or NULL for class numbers; ids as in gat_attention_save. Returns as
 * gat_attention_save. Cost one forward + O(N C). */
GAT_API gat_status gat_predictions_save(const char *path, gat_model *m, const gat_graph *g,
                                        const gat_csr *x, const char *const *ids,
                                        const char *const *class_names, unsigned flags);

/* The file of gat_predictions_save from predictions made elsewhere (e.g. gathered from the ranks
 * of a distributed run, gat/dist.h): classes (n) in [0, n_classes) and probability (n),
 * borrowed; ids and class_names as there. Returns GAT_EINVAL (NULL argument, a class out of
 * range, a bad id), GAT_EIO, GAT_ENOMEM. Cost O(n). */
GAT_API gat_status gat_predictions_write(const char *path, gat_idx n, gat_idx n_classes,
                                         const gat_idx *classes, const gat_real *probability,
                                         const char *const *ids, const char *const *class_names,
                                         unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
