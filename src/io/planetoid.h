/* Private: the Planetoid raw dataset (ind.NAME.{x,y,tx,ty,allx,ally,graph,test.index}, the files
 * of kimiyoung/planetoid that the GCN and GAT reference code loads), read by gat_dataset_load. */
#ifndef GAT_I_PLANETOID_H
#define GAT_I_PLANETOID_H

#include "gat/dataset.h"

/* Whether path names a Planetoid dataset: a prefix P with files P.graph and P.allx (e.g.
 * DIR/ind.cora), or a directory D holding D/ind.NAME.graph and D/ind.NAME.allx with NAME the
 * last component of D (as a directory names a Cora-layout dataset). A few stat calls. */
int gat_i_planetoid_is(const char *path);

/* gat_dataset_load of a Planetoid dataset, as tkipf/gcn's utils.load_data (which the GAT code
 * uses) builds it: nodes 0..N-1 with N = rows(allx) + max(test.index) - min(test.index) + 1;
 * node i < rows(allx) has row i of allx/ally, node test.index[k] row k of tx/ty, and the nodes
 * of the test range that test.index skips (Citeseer's 15) have no features and no label; labels
 * are the one-hot columns, named c0, c1, ... (as tools/planetoid_convert.py names them); edges
 * key -> v for every v in graph[key] (symmetrised unless opt->symmetrize is 0; self-loops and
 * duplicates merged); the public split train = 0..len(y)-1, val = the next 500 (fewer when the
 * test nodes come sooner), test = test.index, unless opt->ignore_split_file (then the random
 * split of opt). x, tx and allx may be csr_matrix or dense 2-D ndarrays of any supported dtype
 * (Pubmed's TF-IDF features are f8), y, ty and ally likewise. ds zeroed on entry by the caller,
 * opt checked; on failure ds is left for the caller's gat_dataset_destroy.
 * Returns GAT_EIO (a missing or unreadable file), GAT_EFORMAT (a malformed pickle, shapes that
 * disagree between the files, a label row that is not one-hot, a bad or duplicate test id, a
 * graph entry that is not an int node id in [0, N), a node of the split without a label; each
 * naming the file and what is wrong), GAT_ENUMERIC (a NaN or Inf feature, naming file, row and
 * column), GAT_ENOMEM. Cost O(file sizes + nnz log(row length) + E). */
gat_status gat_i_planetoid_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt);

#endif
