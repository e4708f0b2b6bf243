/* Private helpers of the partition writer (partition.c) and reader (part.c). */
#ifndef GAT_I_PARTITION_H
#define GAT_I_PARTITION_H

#include "gat/partition.h"

#define GAT_I_MANIFEST_FORMAT "libgat-partition"
#define GAT_I_MANIFEST_VERSION 1

/* The hash of a partition: k and every node's part (n). */
uint64_t gat_i_assignment_hash(const gat_idx *part, gat_idx n, gat_idx k);

/* qsort comparison of two gat_idx. */
int gat_i_cmp_idx(const void *a, const void *b);

#endif
