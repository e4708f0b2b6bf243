/* Private: the TU Dortmund graph-classification format (Morris et al., "TUDataset", 2020), read
 * by gat_dataset_load as one dataset holding the disjoint union of its graphs. */
#ifndef GAT_I_TU_H
#define GAT_I_TU_H

#include "gat/dataset.h"

/* Whether path names a TU dataset: a directory D holding D/NAME_A.txt[.gz] with NAME the last
 * component of D, or a prefix P with P_A.txt[.gz] and P_graph_indicator.txt[.gz] (e.g.
 * DIR/MUTAG). A few stat calls. */
int gat_i_tu_is(const char *path);

/* gat_dataset_load of a TU dataset (files P_NAME.txt or P_NAME.txt.gz, comma-separated):
 *   A               one line per directed edge "row, col" (1-based node ids, global): row -> col
 *   graph_indicator one line per node: its graph id, 1-based, sorted and contiguous
 *   graph_labels    one integer per graph; classes are the distinct values in ascending order
 *   node_labels     optional, one integer per node -> one-hot features (distinct values sorted)
 *   node_attributes optional, the same number of reals per node -> feature columns after those
 *   edge_labels     optional, one integer per A line -> one-hot edge features
 *   edge_attributes optional, reals per A line -> edge feature columns after those
 * Nodes keep the file order (node ids "1".."n"); a dataset with neither node file gets one
 * constant feature 1 per node. Edges are symmetrised unless opt->symmetrize is 0 (the files list
 * both directions anyway); edge features merge as gat_edge_features_merge says; opt->normalize
 * applies to the features as for every reader. labels are all -1 (no node task), no split.
 * ds zeroed on entry, opt checked; on failure ds is left for the caller's gat_dataset_destroy.
 * Returns GAT_EIO (a missing required file, an unreadable one), GAT_EFORMAT (a malformed line,
 * an unsorted or gapped graph indicator, a node id out of range, an edge joining two graphs, line
 * counts that disagree between files: each naming the file and line, or both counts),
 * GAT_ENUMERIC (a NaN or Inf attribute), GAT_ENOMEM. Cost O(file sizes + E log E). */
gat_status gat_i_tu_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt);

#endif
