/* Private reader of the tables keyed by node id that the dataset sources share (the split file of
 * the Cora layout and of gat_dataset_read, the labels file of gat_dataset_read): one
 * "<node-id> <value>" line per node, fields as in io/text.h, or comma-separated in a file named
 * *.csv or *.csv.gz, whose first line is a header (skipped) when its first field is no node id.
 * One rule for all of them: lines whose first field starts with '#' are comments; a line of
 * other than two fields, an id that is not a node, and a node listed twice are GAT_EFORMAT
 * errors naming file:line. */
#ifndef GAT_I_IDTABLE_H
#define GAT_I_IDTABLE_H

#include "core/strmap.h"
#include "io/text.h"

#include <stdint.h>

typedef struct gat_i_idtable {
    gat_i_text t;              /* the file; values point into its buffer */
    const gat_i_strmap *nodes; /* id -> node (borrowed) */
    char *const *ids;          /* (n) node ids, the keys of nodes (borrowed) */
    const char *known;         /* where the ids come from, for messages: "in X", "a vertex of X" */
    const char *value;         /* the second field's name, for messages ("label") */
    long *line_of;             /* (n) line where each node was listed, 0 if not yet */
    int rows;                  /* lines read so far (the header, if any, counted) */
} gat_i_idtable;

/* Opens the table at path (borrowed, must outlive r) into r (uninitialised; destroy-safe on
 * failure) over the n nodes of nodes/ids. known and value: see gat_i_idtable (borrowed).
 * max_line: as in gat_i_text_load. Returns GAT_EIO naming path (*errnum: the open's errno, else
 * 0), GAT_EFORMAT (a line over max_line), GAT_ENOMEM. */
gat_status gat_i_idtable_open(gat_i_idtable *r, const char *path, size_t max_line, int *errnum,
                              const gat_i_strmap *nodes, char *const *ids, gat_idx n,
                              const char *known, const char *value);

/* The next row: *node its node and *value its second field (inside r->t), or *node = -1 at the
 * end of the table. Returns GAT_EFORMAT (as above), GAT_ENOMEM. */
gat_status gat_i_idtable_next(gat_i_idtable *r, gat_idx *node, char **value);

/* Frees r and zeroes it; accepts a zeroed r. */
void gat_i_idtable_close(gat_i_idtable *r);

/* Reads a split table ("<node-id> train|val|test") at path into split (n, zeroed) over the n
 * nodes of nodes/ids (known as in gat_i_idtable_open). label (n; NULL: no labels) must give
 * every listed node a class; labels_path names where the labels came from (NULL: no labels
 * file). *absent (may be NULL): set to 1, with GAT_OK and split untouched, when the file does
 * not exist; NULL makes a missing file GAT_EIO. Returns GAT_EIO, GAT_EFORMAT (the table rules,
 * an unknown split word, a listed node without a label), GAT_ENOMEM. */
gat_status gat_i_split_table_read(uint8_t *split, const char *path, size_t max_line, int *absent,
                                  const gat_i_strmap *nodes, char *const *ids, gat_idx n,
                                  const char *known, const gat_idx *label, const char *labels_path);

#endif
