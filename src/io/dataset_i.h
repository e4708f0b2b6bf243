/* Private interface of the dataset readers of src/io that other modules use: .gatd dataset files
 * and the part files of a partition (datafile*.c). The dataset type itself is src/data's
 * (data/data_i.h, included here). */
#ifndef GAT_I_DATASET_H
#define GAT_I_DATASET_H

#include "data/data_i.h"

/* ---- Dataset files (.gatd, datafile*.c) ------------------------------------------------------ */

/* Whether path names a dataset file: it ends in ".gatd", or it is a regular file whose first
 * bytes are a safetensors header length followed by '{' (a sniff; the loader checks the rest). */
int gat_i_datafile_is(const char *path);

/* gat_dataset_load of a .gatd file: ds zeroed on entry (done by the caller), opt checked.
 * On failure ds is left for the caller's gat_dataset_destroy. */
gat_status gat_i_datafile_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt);

/* ---- Paths in no layout (dataset_probe.c) ---------------------------------------------------- */

/* The error (set and returned) for a path that exists but is in no layout gat_dataset_load
 * reads, fn naming the caller: one of a dataset's own files (GAT_EINVAL, naming the dataset); a
 * directory holding datasets (GAT_EINVAL, listing them); anything else (GAT_EFORMAT, listing
 * the layouts). */
gat_status gat_i_dataset_unknown(const char *fn, const char *path);

/* ---- Part files (datafile*.c; the format is described atop gat/partition.h) ------------------ */

/* One part of a partitioned dataset as its file holds it. */
typedef struct gat_i_part_data {
    /* The owned nodes as a dataset: n owned nodes; graph.rowptr (n+1) and graph.col (nnz) their
     * in-edges with LOCAL sources in [0, n + n_halo), ascending, self-loop i in row i; no
     * transpose (the CSR is rectangular); x, labels, split, node_ids (NULL when writing: the
     * global ids), class_names, n_features, n_classes, normalized. */
    gat_dataset ds;
    gat_idx n_halo, part, n_parts, n_global;
    gat_idx *global_ids; /* (n + n_halo) global id of each local node */
    gat_idx *halo_owner; /* (n_halo) part owning each halo node */
    uint64_t fingerprint, assignment;
} gat_i_part_data;

/* Writes p (borrowed) to path atomically; name (may be NULL) goes into the metadata. The
 * caller built p consistently (nothing is checked here). Returns GAT_EIO, GAT_ENOMEM. */
gat_status gat_i_partfile_save(const gat_i_part_data *p, const char *path, const char *name);

/* Reads the part file at path into p (uninitialised; zeroed on failure), checking the format as
 * gat_dataset_load checks a .gatd file, with sources in [0, n + halo) and the part tensors'
 * shapes; the semantic checks (ranges of global ids and owners, the manifest) are the caller's.
 * Returns GAT_EIO, GAT_EFORMAT, GAT_ENUMERIC, GAT_ENOMEM naming path. */
gat_status gat_i_partfile_load(gat_i_part_data *p, const char *path);

/* Frees what p holds and zeroes it; accepts a zeroed p. */
void gat_i_partfile_destroy(gat_i_part_data *p);

#endif
