/* Fuzz target: the dataset-file loader (gat_dataset_load of a .gatd file). Input: one options
 * byte, then the file. A loaded dataset must be well-formed, save and load back the same, switch
 * to each of its fixed splits (gat_dataset_use_split), and train a tiny model; a failure must be a
 * documented status with a message and a zeroed dataset. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gat_dataset_options o;
    gat_dataset ds, again;
    if (size < 1) return 0;
    const unsigned opt = data[0];
    /* bit 6: no extension, so that the loader has to sniff the file */
    const char *path = fuzz_path(0, opt & 64 ? "sniffed" : "d.gatd");
    fuzz_write(path, data + 1, size - 1);

    gat_dataset_options_default(&o);
    o.normalize = opt & 3; /* 3 is no mode: GAT_EINVAL */
    o.ignore_split_file = (opt >> 2) & 1;
    o.train_per_class = 1 + ((opt >> 3) & 3);
    o.n_val = 2;
    o.n_test = 1;
    o.split_index = (opt >> 5) & 1; /* split 1 of a file with "splits"; else GAT_EINVAL */
    gat_status st = gat_dataset_load(&ds, path, &o);
    if (st != GAT_OK) {
        fuzz_check_failure(st, &ds, sizeof ds);
        return 0;
    }
    fuzz_check_dataset(&ds);
    FUZZ_CHECK(gat_graph_check(&ds.graph) == GAT_OK);
    /* what loaded saves, and loads back equal (features as they are now: no normalisation) */
    const char *copy = fuzz_path(1, "copy.gatd");
    FUZZ_CHECK(gat_dataset_save(&ds, copy, "fuzz") == GAT_OK);
    o.normalize = GAT_NORMALIZE_OFF;
    o.ignore_split_file = 0;
    /* the copy holds the file's splits (the same split index), or the split that loaded */
    o.split_index = ds.splits ? o.split_index : 0;
    FUZZ_CHECK(gat_dataset_load(&again, copy, &o) == GAT_OK);
    FUZZ_CHECK(again.n_splits == (ds.splits ? ds.n_splits : 1) && !again.splits == !ds.splits);
    FUZZ_CHECK(!ds.splits ||
               memcmp(again.splits, ds.splits, (size_t)ds.n_splits * (size_t)ds.n) == 0);
    FUZZ_CHECK(again.n == ds.n && again.graph.nnz == ds.graph.nnz &&
               again.n_classes == ds.n_classes && again.normalized == ds.normalized);
    const size_t nnz = (size_t)ds.x.rowptr[ds.n];
    FUZZ_CHECK(memcmp(again.x.val, ds.x.val, nnz * sizeof *ds.x.val) == 0);
    FUZZ_CHECK(memcmp(again.graph.t_edge, ds.graph.t_edge,
                      (size_t)ds.graph.nnz * sizeof *ds.graph.t_edge) == 0);
    for (gat_idx i = 0; i < ds.n; i++)
        FUZZ_CHECK(!strcmp(again.node_ids[i], ds.node_ids[i]) && again.split[i] == ds.split[i]);
    gat_dataset_destroy(&again);
    /* gat_dataset_use_split: every fixed split in turn, as loaded; none past them or without */
    for (gat_idx k = ds.splits ? ds.n_splits - 1 : -1; k >= 0; k--) {
        FUZZ_CHECK(gat_dataset_use_split(&ds, k) == GAT_OK);
        gat_idx c[4] = {0};
        for (gat_idx i = 0; i < ds.n; i++)
            c[ds.split[i] & 3]++;
        FUZZ_CHECK(memcmp(ds.split, ds.splits + (size_t)k * (size_t)ds.n, (size_t)ds.n) == 0 &&
                   c[GAT_SPLIT_TRAIN] == ds.n_train && c[GAT_SPLIT_VAL] == ds.n_val &&
                   c[GAT_SPLIT_TEST] == ds.n_test);
    }
    FUZZ_CHECK(gat_dataset_use_split(&ds, ds.splits ? ds.n_splits : 0) == GAT_EINVAL &&
               gat_last_error()[0] != '\0');
    fuzz_exercise(&ds, opt >> 7);
    gat_dataset_destroy(&ds);
    return 0;
}
