/* Private interface of src/data, the module that owns gat_dataset: its lifecycle, the options'
 * checks, the random split, normalisation and the assembly from parts. The readers of src/io
 * build on it; nothing here depends on a reader. */
#ifndef GAT_I_DATA_H
#define GAT_I_DATA_H

#include "gat/dataset.h"

#include <stdint.h>

/* What gat_dataset.storage points to when a reader keeps arrays of the dataset in bulk storage
 * of its own (the file mapping of a .gatd load): gat_dataset_destroy calls release(ds, context)
 * first, with ds->storage already NULL. release clears every array pointer of ds that lies
 * inside the storage (so that the per-array frees that follow skip them) and frees the storage,
 * this struct included if it lives there. */
typedef struct gat_i_storage {
    void (*release)(gat_dataset *ds, void *context);
    void *context;
} gat_i_storage;

/* The dataset's own string arrays (node_ids, class_names), writable by the builders that
 * allocated them: the public fields are const for the caller. */
static inline char **gat_i_strv(const char *const *v)
{
    return (char **)(uintptr_t)v;
}

/* GAT_SPLIT_* value of "train", "val" or "test", or GAT_SPLIT_NONE for any other word. */
uint8_t gat_i_split_value(const char *word);

/* Fills ds->split ((n), cleared first) at random from ds->labels: after a seeded Fisher-Yates
 * shuffle of the nodes, the first train_per_class labelled nodes of each class train; a second
 * shuffle of the other labelled nodes (same stream) gives the first n_val to validation and the
 * next n_test to test, so both are uniform draws from the remainder (as PyG's RandomNodeSplit);
 * unlabelled nodes (label -1) stay GAT_SPLIT_NONE. Sizes that are not in o->split_strict shrink to
 * fit the data as gat_dataset_options says; ds->split_adapted gets the bits of those that did. what
 * names the data in messages ("random split of WHAT: ..."). Returns GAT_EFORMAT (a strict size the
 * data cannot give), GAT_ENOMEM, before writing: ds->split (whatever it held) and
 * split_adapted change only on success. */
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

/* gat_dataset_largest_component with fn naming the public function in messages. */
gat_status gat_i_largest_component(gat_dataset *ds, gat_idx *removed, const char *fn);

/* gat_dataset_remove_small_classes with fn naming the public function in messages. */
gat_status gat_i_remove_small_classes(gat_dataset *ds, gat_idx min_nodes, gat_idx *classes,
                                      gat_idx *nodes, const char *fn);

/* Whether opt cuts the dataset at its end (largest_component, min_class_nodes): a source then
 * leaves its random split undrawn (GAT_SPLIT_NONE) for gat_i_dataset_finish to draw over the
 * nodes kept (a strict size checked against the whole graph could fail on a class removed). */
static inline int gat_i_cuts(const gat_dataset_options *opt)
{
    return opt && (opt->largest_component || opt->min_class_nodes > 0);
}

/* What every public dataset source does last with its options: when gat_i_cuts(opt), the
 * dataset cut to its largest component and/or to its classes of at least opt->min_class_nodes
 * nodes (alternating until neither removes a node) and, when its split is random (drawn: the
 * source gave none, n_splits 0, or gat_dataset_load ignored it, ignore_split_file), the random
 * split drawn over the nodes kept. Nothing otherwise (opt may be NULL). */
gat_status gat_i_dataset_finish(gat_dataset *ds, const gat_dataset_options *opt, int drawn,
                                const char *fn);

#endif
