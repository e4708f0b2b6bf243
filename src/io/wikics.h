/* Private: the WikiCS node dataset's JSON layout (Mernyei and Cangea 2020), read by
 * gat_dataset_load. */
#ifndef GAT_I_WIKICS_H
#define GAT_I_WIKICS_H

#include "gat/dataset.h"

/* Whether path names a WikiCS dataset: a regular file whose name ends in ".json" (not one of the
 * GraphSAGE layout's -G.json, -id_map.json, -class_map.json files) and whose first non-blank
 * byte is '{', or a directory holding data.json (the name the dataset ships under). A stat and
 * a read of at most 256 bytes; no allocation. */
int gat_i_wikics_is(const char *path);

/* gat_dataset_load of a WikiCS file (or DIR/data.json), one JSON object of
 *   "features"        N rows of F numbers (the same F)
 *   "labels"          N classes, integers >= 0 (C = the largest + 1)
 *   "links"           N lists of node numbers in [0, N): node i links to each j of links[i]
 *                     (the edges i -> j, symmetrised unless opt->symmetrize is 0)
 *   "train_masks"     S lists of N booleans (true/false or 0/1): split K's training nodes
 *   "stopping_masks"  S lists of N booleans: the nodes that split K's early stopping watches
 *   "val_masks"       S lists of N booleans: split K's hyper-parameter validation nodes
 *   "test_mask"       N booleans: the test nodes of every split
 * Fixed split K (opt->split_index; gat_dataset.n_splits = S): training train_masks[K],
 * validation stopping_masks[K] (gat_train's validation nodes drive early stopping and the model
 * kept, as the stopping masks do in the dataset authors' training code), test test_mask;
 * val_masks[K]'s nodes are in no part (checked like the others when present). The load leaves
 * split 0 in ds->split and every split in ds->splits (gat_dataset_load switches to split K,
 * whose index is checked here). Without the masks
 * (all three absent) the options' random split; other keys are ignored.
 * ds zeroed on entry, opt checked; on failure ds is left for the caller's destroy. Returns
 * GAT_EIO (cannot read), GAT_EFORMAT (malformed JSON naming file:line; a missing key, a value of
 * the wrong type or length naming the key and index, e.g. "links[7][2]"; a node in two parts of
 * a split; one or two of the three masks), GAT_EINVAL (split index out of range), GAT_ENUMERIC
 * (a feature beyond the float range), GAT_ENOMEM. Cost O(file size + E log E); the parse holds
 * about 80 bytes per JSON value. */
gat_status gat_i_wikics_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt);

#endif
