/* MPI smoke test (meson -Dmpi): every rank loads its own part of a partition directory with
 * gat_part_load and the ranks sum their owned nodes and in-edges with MPI_Allreduce; rank 0
 * checks the sums against the manifest. Usage: mpirun -np K mpi_smoke DIR (K = the parts). */
#include "gat/gat.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gat_part p;
    long long mine[3] = {0, 0, 0}, sum[3];
    if (argc != 2 || gat_part_load(&p, argv[1], rank) != GAT_OK) {
        fprintf(stderr, "mpi_smoke: rank %d: %s\n", rank, argc != 2 ? "usage: mpi_smoke DIR" : gat_last_error());
        bad = 1;
    } else {
        mine[0] = p.n_owned;
        mine[1] = p.nnz;
        mine[2] = p.n_parts == size ? 0 : 1;
        gat_part_destroy(&p);
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(mine, sum, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && !any_bad) {
        gat_partition_manifest m;
        if (gat_partition_manifest_load(&m, argv[1]) != GAT_OK) {
            fprintf(stderr, "mpi_smoke: %s\n", gat_last_error());
            any_bad = 1;
        } else {
            any_bad = sum[0] != m.n_nodes || sum[1] != m.n_edges || sum[2] != 0;
            printf("mpi_smoke: %d ranks read their parts: %lld nodes, %lld in-edges (manifest: "
                   "%d, %d)%s\n", size, sum[0], sum[1], m.n_nodes, m.n_edges,
                   any_bad ? ": MISMATCH" : "");
            gat_partition_manifest_destroy(&m);
        }
    }
    MPI_Bcast(&any_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
