/* gat-train --partitions in a build of libgat without MPI: a usage error saying how to get it. */
#include "train.h"

#include <stdio.h>

int train_partitions(options *o, const gat_dataset_options *dopt)
{
    (void)o;
    (void)dopt;
    fprintf(stderr, "gat-train: --partitions: this build has no MPI (install libopenmpi-dev "
                    "and rebuild: meson -Dmpi=enabled)\n");
    return 2;
}
