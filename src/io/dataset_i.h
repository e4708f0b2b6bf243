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
 * GAT_SPLIT_NONE. what names the data in messages ("random split of WHAT: ..."). Returns
 * GAT_EFORMAT (a class or the rest too small for o), GAT_ENOMEM. */
gat_status gat_i_random_split(gat_dataset *ds, const gat_dataset_options *o, const char *what);

/* Sets ds->n_train, n_val, n_test from ds->split. */
void gat_i_count_split(gat_dataset *ds);

/* Row-normalises ds->x (gat_csr_normalize_rows) and checks the result: a row whose values
 * nearly cancel (1e30, -1e30, 1e-10) would overflow to Inf. Returns GAT_ENUMERIC naming the node
 * and `what` (the data, for messages). */
gat_status gat_i_normalize_checked(gat_dataset *ds, const char *what);

/* gat_dataset_from_parts with the random split's messages naming `what` and `fn` naming the
 * public function in argument errors. */
gat_status gat_i_dataset_from_parts(gat_dataset *ds, const gat_dataset_parts *p,
                                    const gat_dataset_options *opt, const char *fn,
                                    const char *what);

#endif
