/* gat-train --partitions: distributed training under mpirun, rank r on part r of a partition
 * (gat/dist.h); built only when libgat has MPI (train_nompi.c otherwise). */
#include "train.h"

#include "gat/dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --partitions: the flags that read a dataset or sample do not apply. */
static int dist_usage(const options *o)
{
    const char *size = train_split_size_option(o);
    const char *bad = o->data.graph                                   ? "--graph"
                      : o->batch_size                                 ? "--batch-size"
                      : o->random_split                               ? "--random-split"
                      : o->resplit                                    ? "--resplit"
                      : size                                          ? size
                      : o->save_split                                 ? "--save-split"
                      : o->split_seed >= 0                            ? "--split-seed"
                      : o->split_index                                ? "--split-index"
                      : o->data.largest_component && !o->data.dataset ? "--largest-component"
                      : o->data.min_class_nodes && !o->data.dataset   ? "--min-class-nodes"
                      : o->metric_name && o->metric == GAT_METRIC_AUC ? "--metric auc"
                                                                      : NULL;
    if (bad) {
        fprintf(stderr,
                "gat-train: --partitions: %s does not apply (the partition holds the "
                "dataset and its split%s; training is full-graph and follows the accuracy or "
                "the loss)\n",
                bad, o->split_index ? ": gat-partition --split-index K chooses it" : "");
        return 2;
    }
    return 0;
}

/* MPI, this rank's part and its gat_dist; with --dataset, the partition must be the dataset's.
 * Every rank returns the same verdict (a failure on one is reported by it and ends all). */
static int dist_open(const options *o, const gat_dataset_options *dopt, gat_part *part,
                     gat_dist **dist, int *rank)
{
    int size, bad = 0, any = 0;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "gat-train: --partitions: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    train_set_rank(*rank);
    gat_partition_manifest man;
    memset(part, 0, sizeof *part);
    if (gat_part_load(part, o->partitions, *rank) != GAT_OK) {
        bad = train_fail("cannot load its part");
    } else if (part->n_parts != size) {
        fprintf(stderr,
                "gat-train: rank %d: %s holds %d parts but mpirun started %d ranks "
                "(run mpirun -np %d)\n",
                *rank, o->partitions, part->n_parts, size, part->n_parts);
        bad = 1;
    }
    if (!bad && *rank == 0 && o->data.dataset) {
        /* the partition of this dataset? its graph and shapes, by the manifest's fingerprint */
        gat_dataset ds;
        const char *name;
        gat_dataset_options d = *dopt;
        d.normalize = GAT_NORMALIZE_OFF;
        if (cli_load_dataset("gat-train", &o->data, NULL, 1, &d, &ds, &name) != 0) {
            bad = 1;
        } else if (gat_partition_manifest_load(&man, o->partitions) != GAT_OK) {
            bad = train_fail("cannot read the manifest");
            gat_dataset_destroy(&ds);
        } else {
            if (gat_dataset_fingerprint(&ds) != man.fingerprint) {
                fprintf(stderr,
                        "gat-train: rank 0: %s is a partition of another dataset than "
                        "%s (fingerprints %016llx and %016llx)\n",
                        o->partitions, name, (unsigned long long)man.fingerprint,
                        (unsigned long long)gat_dataset_fingerprint(&ds));
                bad = 1;
            }
            gat_partition_manifest_destroy(&man);
            gat_dataset_destroy(&ds);
        }
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) {
        gat_dist_options dop;
        gat_dist_options_default(&dop);
        dop.normalize = dopt->normalize;
        if (o->order) gat_order_from_name(o->order, &dop.order); /* checked by main */
        if (gat_dist_create(dist, part, MPI_COMM_WORLD, &dop) != GAT_OK) {
            /* every rank fails together; the one that failed says why */
            train_fail("cannot set up");
            any = 1;
        }
    } else if (!bad && *rank == 0) {
        fprintf(stderr,
                "gat-train: rank 0: stopping: another rank failed (its message says why)\n");
    }
    /* the rank keeps what it needs of its part: give the part's memory back */
    gat_part_destroy(part);
    if (any) {
        MPI_Finalize();
        return 1;
    }
    const gat_part *kept = gat_dist_part(*dist);
    if (!o->quiet && *rank == 0) {
        gat_dist_stats st;
        gat_dist_get_stats(*dist, &st);
        printf("partition %s: %d parts, %d nodes; rank 0 owns %d nodes, %d halo, %d edges\n",
               o->partitions, kept->n_parts, kept->n_global, kept->n_owned, kept->n_halo,
               kept->nnz);
        if (st.order != GAT_ORDER_NONE)
            printf("rank 0's node order %s: %.2f s\n", gat_order_name(st.order), st.order_seconds);
        /* AUTO leaves the features as they are only when some rank holds a negative one: the
         * note of a one-process run (dataset_notes), without the node no single rank knows */
        if (dopt->normalize == GAT_NORMALIZE_AUTO && !st.normalized)
            fprintf(stderr, "gat-train: features have negative values (on some rank): not "
                            "row-normalised (use --no-normalize to silence this)\n");
    }
    return 0;
}

/* Whether every rank goes on to the next run (collective: ranks stop together, e.g. when a
 * signal reached one of them between runs). */
static int all_continue(void *user, int go)
{
    (void)user;
    int all = 0;
    if (MPI_Allreduce(&go, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return 0;
    return all;
}

/* Every rank's exchange figures, printed by rank 0 (collective: every rank calls it). */
static void dist_report(void *user, const options *o, gat_idx epochs)
{
    const gat_dist *d = user;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gat_dist_stats st;
    gat_dist_get_stats(d, &st);
    double mine[6] = {st.n_owned,         st.n_halo, st.peers, st.send_rows, (double)st.epoch_bytes,
                      st.exchange_seconds},
           *all = rank == 0 ? malloc(6 * (size_t)size * sizeof *all) : NULL;
    int ok = rank != 0 || all;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) return;
    MPI_Gather(mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0 && !o->quiet) {
        printf("%4s %10s %10s %6s %10s %12s %14s\n", "rank", "owned", "halo", "peers", "send rows",
               "MB/epoch", "exchange s/ep");
        for (int q = 0; q < size; q++) {
            const double *v = all + 6 * q;
            printf("%4d %10.0f %10.0f %6.0f %10.0f %12.2f %14.4f\n", q, v[0], v[1], v[2], v[3],
                   v[4] / 1e6, v[5] / (epochs > 0 ? epochs : 1));
        }
    }
    free(all);
}

static int dist_normalized(const gat_dist *d)
{
    gat_dist_stats st;
    gat_dist_get_stats(d, &st);
    return st.normalized;
}

static gat_status dist_train(void *user, gat_model *m, const gat_train_config *tc,
                             gat_train_result *res)
{
    return gat_dist_train(m, user, tc, res);
}

int train_partitions(options *o, const gat_dataset_options *dopt)
{
    gat_part part;
    gat_dist *dist = NULL;
    int rank = 0, rc;
    if ((rc = dist_usage(o)) != 0) return rc;
    if ((rc = dist_open(o, dopt, &part, &dist, &rank)) != 0) return rc;
    /* every rank prints nothing but its errors; rank 0 reports and writes the files */
    if (rank > 0) {
        o->quiet = 1, o->metrics = o->plot = o->save = NULL, o->draw = 0;
        if (!freopen("/dev/null", "w", stdout)) rc = 1;
    }
    const gat_part *kept = gat_dist_part(dist);
    const source src = {.name = o->partitions,
                        .n_features = kept->n_features,
                        .n_classes = kept->n_classes,
                        .class_names = kept->class_names,
                        /* the model's edge_dim; each rank binds its own edges */
                        .n_edge_features = kept->n_edge_features,
                        .normalized = dist_normalized(dist),
                        .symmetrize = dopt->symmetrize,
                        .rank = rank,
                        .distributed = 1,
                        .train = dist_train,
                        .agree = all_continue,
                        .report = dist_report,
                        .user = dist};
    if (rc == 0 && o->edge_features && kept->n_edge_features == 0) {
        if (rank == 0)
            fprintf(stderr,
                    "gat-train: --edge-features: partition %s carries no edge "
                    "features (its dataset had none)\n",
                    src.name);
        rc = 1;
    }
    if (rc == 0) rc = train_runs(o, &src);
    gat_dist_free(dist);
    MPI_Finalize();
    return rc;
}
