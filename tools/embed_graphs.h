/* gat-embed on a graph model and on a graph transformer (embed_graphs.c). */
#ifndef GAT_TOOL_EMBED_GRAPHS_H
#define GAT_TOOL_EMBED_GRAPHS_H

#include "gat/gat.h"

/* The ids file beside a .npy output written to out (a .npy stores no row ids): out without its
 * ".npy" extension (any case) plus ".ids.txt", one id per line, row i's id on line i. An out
 * that is not a regular file (a device, a FIFO, /dev/stdout) gets none: there is no file to put
 * it beside. Written between window(1) and window(0) as every output. Returns 0, 1 after a
 * message, or 128 + N for a signal received meanwhile; ids_path (cap bytes) is the file, "" if
 * none. */
int embed_npy_ids(const char *out, gat_idx n, const char *const *ids, int (*window)(int),
                  char *ids_path, size_t cap);

/* Writes, for graph model m on ds (a dataset of many graphs), the readout of each graph to out
 * (format fmt, rows named by the 0-based graph index), the attention readout's weights per node
 * to attention (rows named by node id, one column per head) and each graph's predicted class,
 * its probability and its label to predict (TSV); each path may be NULL. flags: GAT_WRITE_*.
 * Every write runs between window(1) and window(0) (gat-embed's write_window: a signal waits
 * for the write under way, which renames its temporary file into place or removes it; window(0)
 * returns it). Returns the exit code (0, 1 after a message, 128 + a signal received while
 * writing). */
int embed_graphs(gat_model *m, const gat_model_meta *meta, const gat_dataset *ds, const char *name,
                 const char *out, gat_file_format fmt, const char *attention, const char *predict,
                 unsigned flags, int quiet, int (*window)(int));

/* Writes, for graph transformer m on ds, its logits (probs 0) or class probabilities (probs 1)
 * per node (a node model; rows named by node id) or per graph (a graph model; rows named by the
 * 0-based graph index) to out (format fmt), and the predicted class and its probability per
 * node (gat_predictions_write's TSV) or per graph (as embed_graphs) to predict; each path may be
 * NULL. Writes and the exit code as embed_graphs'. */
int embed_gps(gat_gps *m, const gat_model_meta *meta, const gat_dataset *ds, const char *name,
              const char *out, gat_file_format fmt, int probs, const char *predict, unsigned flags,
              int quiet, int (*window)(int));

#endif
