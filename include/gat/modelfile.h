/* Model files: a trained gat_model and what is needed to use it again, in the safetensors layout.
 *
 * The file is: an unsigned 64-bit little-endian header length N; N bytes of UTF-8 JSON (padded
 * with spaces so that the data starts at a multiple of 8); then the data. The JSON maps each
 * tensor name of gat_model_tensors ("layer0.weight", "layer0.att_src", ...) to
 * {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]} (byte offsets into the data),
 * and "__metadata__" to a string -> string map holding the configuration:
 *   format_version "1"; libgat_version; in_features, classes, layers, hidden, heads, out_heads
 *   (decimal integers); negative_slope, in_dropout, att_dropout (the shortest decimal that reads
 *   back exactly); score (gat_score_name: "gat", "gatv2", ...); activation ("elu"); residual
 *   ("0"/"1"); edge_dim (edge feature columns of the score's edge term, decimal; files written
 *   before it load as "0"); hidden_heads (the heads of each hidden layer as a JSON array, in a
 *   string);
 *   task, readout, readout_heads, readout_hidden, graph_classes (graph models only,
 *   gat/readout.h; a file without "task" is a node model); normalize, symmetrize ("0"/"1": how
 *   the dataset was read); class_names (the class names as a
 *   JSON array, in a string); dataset (free-form); pe (the encoding spec, gat/encode.h, only
 *   when there is one). Unknown keys are ignored; unknown score or
 *   activation values are rejected. The tensors are those of gat_model_tensors for the
 *   configuration (which differ between score functions).
 * Tensors are written in table order, so the data is the parameter buffer as it is (little-endian
 * F32; F64 in double builds). Python's `safetensors.numpy.load_file` reads the file.
 *
 * Loading checks the header length against the file size, the JSON, every dtype (F32 or F64),
 * shape (against the shapes the metadata's configuration implies), offset range and overlap,
 * and that every value is finite. Saving is atomic: the file is written under a temporary name
 * in the same directory, synced and renamed over PATH, so a crash, a full disk or an unwritable
 * directory leave any previous file at PATH as it was. */
#ifndef GAT_MODELFILE_H
#define GAT_MODELFILE_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a model file records besides the configuration and the parameters.
 * Two uses, one type:
 * - saving: start from gat_model_meta_init (or `= {0}`) and point the fields at strings the
 *   caller owns; they are borrowed (read) by gat_model_save only. Any array of names fits
 *   without a cast: a gat_dataset's class_names, or `const char *names[]`.
 * - loading: gat_model_load points the fields into copies it allocates and records them in the
 *   private `storage`; the caller reads them and releases them with gat_model_meta_destroy.
 * gat_model_meta_destroy frees only `storage`, so it is safe on both kinds (on a caller-filled
 * meta it frees nothing and re-initialises it). Do not set `storage`, and do not destroy two
 * copies of one loaded meta. */
typedef struct gat_model_meta {
    gat_idx n_classes;              /* entries of class_names: 0 (none) or the model's classes C */
    const char *const *class_names; /* (n_classes) name of each output column, UTF-8, or NULL */
    int normalize;          /* features were row-normalised for training (1) or not (0) */
    int symmetrize;         /* the graph's edges were made undirected (1) or kept directed (0) */
    const char *dataset;    /* free-form name or path of the training data (UTF-8), or NULL */
    const char *version;    /* load: libgat version that wrote the file, or NULL; save: ignored */
    void *storage;          /* private: what gat_model_load allocated (NULL otherwise) */
    /* Added with positional encodings (gat/encode.h); NULL or "" (the default) means none. */
    const char *pe; /* the encoding spec ("lap:8,rw:16", gat_pe_spec_format's text) whose
                     * columns were appended to the features (gat_pe_append), so that the last
                     * lap_k + rw_k of in_features are encodings a tool computes again */
    /* Added with the TU feature choice: gat_dataset_options.tu_features of the training data
     * (GAT_TU_FEATURES_*; 0, the default, is what older files mean). */
    int tu_features;
    /* Added with feature standardisation (gat_csr_standardize_columns): the training features'
     * columns c < n_standardized were (x - feature_shift[c]) * feature_scale[c]; a tool repeats
     * that on the data it feeds the model. 0 and NULL (the default): the features as given. */
    gat_idx n_standardized;
    const gat_real *feature_shift, *feature_scale; /* (n_standardized) each, finite */
    /* Added with the dataset cuts: gat_dataset_options.largest_component (0 or 1) and
     * min_class_nodes (>= 0) of the training data, which a tool repeats to feed the model the
     * nodes it was trained on. 0 (the default) is what older files mean: every node. */
    int largest_component;
    gat_idx min_class_nodes;
} gat_model_meta;

/* Fills meta with the defaults: no class names, normalize 1, symmetrize 1, NULL strings, no
 * storage. NULL meta: nothing (the rule of status.h). */
GAT_API void gat_model_meta_init(gat_model_meta *meta);

/* Frees what gat_model_load allocated for meta (nothing for a meta the caller filled) and
 * re-initialises it (gat_model_meta_init). Accepts NULL. */
GAT_API void gat_model_meta_destroy(gat_model_meta *meta);

/* Writes m's configuration and parameters, with meta (borrowed; NULL for the defaults), to path.
 * Returns GAT_EINVAL (NULL m or path, n_classes neither 0 nor C, a NULL or non-UTF-8 string, a pe
 * that gat_pe_spec_parse refuses or whose columns outnumber in_features, n_standardized outside
 * [0, in_features] or with a NULL or non-finite feature_shift / feature_scale, largest_component
 * not 0 or 1, negative min_class_nodes),
 * GAT_ENUMERIC (a parameter is NaN or Inf; such a model would not load), GAT_EIO (the file could
 * not be created, written or renamed into place; any old file at path is intact), GAT_ENOMEM.
 * Cost O(parameters). */
GAT_API gat_status gat_model_save(const gat_model *m, const gat_model_meta *meta, const char *path);

/* Reads a model file. *out: set to a new model (free with gat_model_free) on success, NULL on
 * failure. meta: may be NULL; otherwise uninitialised, filled on success (free with
 * gat_model_meta_destroy) and left initialised-empty on failure. Returns GAT_EIO (cannot read),
 * GAT_EFORMAT (not a valid model file: truncated, header length past the end, JSON syntax error,
 * unknown dtype, shape not matching the configuration, offsets outside the data or overlapping,
 * missing or unknown tensor, missing or malformed metadata, unknown score function or
 * activation, a pe spec that does not parse or has more columns than in_features,
 * feature_shift / feature_scale not arrays of finite numbers of one length <= in_features; the
 * message names the file and the fault), GAT_ENUMERIC (a NaN or Inf parameter), GAT_EINVAL (NULL
 * out or path), GAT_ENOMEM. Cost O(file size). */
GAT_API gat_status gat_model_load(gat_model **out, gat_model_meta *meta, const char *path);

#ifdef __cplusplus
}
#endif
#endif
