/* Private: node datasets in the GraphSAGE layout (Hamilton et al. 2017, the PPI and Reddit files
 * of its repository), read by gat_dataset_load. */
#ifndef GAT_I_GRAPHSAGE_H
#define GAT_I_GRAPHSAGE_H

#include "gat/dataset.h"

/* Whether path names a GraphSAGE dataset: a prefix P with P-G.json, or a directory D holding
 * D/NAME-G.json with NAME the last component of D. A few stat calls. */
int gat_i_graphsage_is(const char *path);

/* gat_dataset_load of the GraphSAGE files of prefix P:
 *   P-id_map.json     {"node id": row, ...}: the n nodes, rows 0..n-1 distinct (node order)
 *   P-feats.npy       (n, F) numbers, row r the features of the node mapped to r
 *   P-G.json          networkx node_link_data: "nodes" [{"id": ID, "val": bool, "test": bool}]
 *                     (every node once; val -> validation, test -> test, else training) and
 *                     "links" [{"source": ID, "target": ID}] (node ids, as networkx >= 2
 *                     writes them; symmetrised unless opt->symmetrize is 0)
 *   P-class_map.json  {"node id": class} (one class per node, C = largest + 1) or
 *                     {"node id": [0/1, ...]} (L labels per node: gat_dataset.n_labels)
 *   P-graph_id.npy    optional (n) integers: the graph of each row, sorted and without gaps
 *                     (PPI's 24 graphs, as DGL's *_graph_id.npy): gat_dataset.n_graphs
 * Node ids are the id map's keys (integer ids in G.json match their decimals). ds zeroed on entry,
 * opt checked; on failure ds is left for the caller's destroy. Returns GAT_EIO (a missing file),
 * GAT_EFORMAT (malformed JSON naming file:line; a wrong value naming the file and the key or
 * index path, e.g. "links[7].target"; an unknown or repeated node, a link joining two graphs, an
 * unsorted or gapped graph id, shapes that disagree), GAT_ENUMERIC (a NaN/Inf feature, naming row
 * and column), GAT_ENOMEM. Cost O(file sizes + E log E). */
gat_status gat_i_graphsage_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt);

#endif
