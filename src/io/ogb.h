/* Private: the OGB node property prediction layout (ogb.c). */
#ifndef GAT_I_OGB_H
#define GAT_I_OGB_H

#include "gat/dataset.h"

/* Whether path is a directory holding raw/edge.csv(.gz) and raw/node-label.csv(.gz). */
int gat_i_ogb_is(const char *path);

/* gat_dataset_load of an OGB node dataset directory (layout in ogb.c); ds zeroed on entry, opt
 * checked. On failure ds is left for the caller's destroy. Messages name the file, line and
 * column. Cost O(file sizes + E log E). */
gat_status gat_i_ogb_read(gat_dataset *ds, const char *dir, const gat_dataset_options *opt);

#endif
