/* Private dataset assembly shared by the readers of src/io: the seeded random split, split
 * names, and a dataset built from caller-supplied parts (gat_dataset_from_parts and the graph-file
 * and igraph readers all end there). */
#ifndef GAT_I_DATASET_H
#define GAT_I_DATASET_H

#include "gat/dataset.h"

/* The dataset's own string arrays (node_ids, class_names), writable by the builders that
 * allocated them: the public fields are const for the caller. */
static inline char **gat_i_strv(const char *const *v)
{
    return (char **)(uintptr_t)v;
}

/* GAT_SPLIT_* value of "train", "val" or "test", or GAT_SPLIT_NONE for any other word. */
uint8_t gat_i_split_value(const char *word);

/* Fills ds->split (zeroed, (n)) at random from ds->labels: after a seeded Fisher-Yates shuffle
 * of the nodes, the first train_per_class labelled nodes of each class train, then the next
 * n_val other labelled nodes validate and the next n_test test; unlabelled nodes (label -1) stay
 * GAT_SPLIT_NONE. Sizes that are not in o->split_strict shrink to fit the data as
 * gat_dataset_options says; ds->split_adapted gets the bits of those that did. what names the
 * data in messages ("random split of WHAT: ..."). Returns GAT_EFORMAT (a strict size the data
 * cannot give), GAT_ENOMEM. */
gat_status gat_i_random_split(gat_dataset *ds, const gat_dataset_options *o, const char *what);

/* Checks the option fields every dataset source reads (split sizes, normalize); GAT_EINVAL
 * naming fn and the field. */
gat_status gat_i_check_options(const gat_dataset_options *o, const char *fn);

/* Edge features per edge of g (built from the m input edges src[k] -> dst[k], with symmetrize as
 * given to the builder) from the input rows raw (m, D): each edge averages the rows of the input
 * edges that gave it (duplicates, reverses); input self-loops are dropped; an added self-loop gets
 * per fill (GAT_SELF_LOOP_FILL_*) the mean of its node's other in-edge rows or zeros. *out: NULL
 * for D == 0, else allocated (E, D). Returns GAT_ENOMEM. Cost O(n + E D + m (D + log deg)). */
gat_status gat_i_edge_rows(const gat_graph *g, size_t m, const gat_idx *src, const gat_idx *dst,
                           int symmetrize, const gat_real *raw, gat_idx D, int fill,
                           gat_real **out);

/* Sets ds->n_train, n_val, n_test from ds->split. */
void gat_i_count_split(gat_dataset *ds);

/* Applies the normalisation mode (GAT_NORMALIZE_*) to ds->x: records the first negative
 * feature in ds->negative_value/_node/_column, then row-normalises (gat_csr_normalize_rows) with
 * GAT_NORMALIZE_ON, or with GAT_NORMALIZE_AUTO when no feature is negative, and sets
 * ds->normalized. Returns GAT_EINVAL for GAT_NORMALIZE_ON with a negative feature, naming fn,
 * `what` (the features, for messages), the node id, the column and the value. O(nnz). */
gat_status gat_i_normalize_checked(gat_dataset *ds, int mode, const char *fn, const char *what);

/* gat_dataset_from_parts with the random split's messages naming `what`, normalisation
 * messages naming `features` (NULL: "the features") and `fn` naming the public function in
 * argument errors. */
gat_status gat_i_dataset_from_parts(gat_dataset *ds, const gat_dataset_parts *p,
                                    const gat_dataset_options *opt, const char *fn,
                                    const char *what, const char *features);

/* ---- Dataset files (.gatd, datafile.c) ---------------------------------------------------- */

/* Whether path names a dataset file: it ends in ".gatd", or it is a regular file whose first
 * bytes are a safetensors header length followed by '{' (a sniff; the loader checks the rest). */
int gat_i_datafile_is(const char *path);

/* gat_dataset_load of a .gatd file: ds zeroed on entry (done by the caller), opt checked.
 * On failure ds is left for the caller's gat_dataset_destroy. */
gat_status gat_i_datafile_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt);

/* ---- Part files (datafile.c; the format is described atop gat/partition.h) ------------------ */

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

/* Part of gat_dataset_destroy: releases ds->storage (the file mapping and the bulk blocks of a
 * .gatd load) after clearing every array pointer of ds that lies inside it, so that the
 * per-array frees that follow skip them. Accepts ds->storage NULL. */
void gat_i_dataset_release(gat_dataset *ds);

#endif
