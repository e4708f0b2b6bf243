/* Fuzz target: the Cora-layout loader (gat_dataset_load) on NAME.content, NAME.cites and
 * NAME.split. Input: one options byte, then the three files separated by 0x01 bytes (the
 * input's size, mod 16, picks the random split's variants and the largest component). A loaded
 * dataset must be well-formed and train a tiny model; a failure must be a documented status with
 * a message and a zeroed dataset. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[3];
    size_t len[3];
    gat_dataset_options o;
    gat_dataset ds;
    if (size < 1) return 0;
    const unsigned opt = data[0];
    const int n = fuzz_split(data + 1, size - 1, 3, part, len);
    const int gz = (opt >> 4) & 1; /* the loader also looks for NAME.content.gz */
    unlink(fuzz_path(0, gz ? "d.content" : "d.content.gz"));
    fuzz_write(fuzz_path(1, gz ? "d.content.gz" : "d.content"), part[0], len[0]);
    if (n > 1)
        fuzz_write(fuzz_path(2, "d.cites"), part[1], len[1]);
    else
        unlink(fuzz_path(2, "d.cites"));
    if (n > 2 && (opt & 4))
        fuzz_write(fuzz_path(3, "d.split"), part[2], len[2]);
    else
        unlink(fuzz_path(3, "d.split"));

    gat_dataset_options_default(&o);
    o.symmetrize = opt & 1;
    o.normalize = (opt >> 1) & 1;
    o.ignore_split_file = (opt >> 3) & 1;
    o.train_per_class = 1 + ((opt >> 5) & 3);
    o.n_val = 2;
    o.n_test = 1;
    /* the options byte is full: the input's size picks the per-class and rest variants */
    if (size & 1) o.val_per_class = 1;
    if (size & 2) o.n_test = GAT_SPLIT_REST;
    if (size & 4) o.split_strict = GAT_SPLIT_STRICT_VAL | GAT_SPLIT_STRICT_TEST;
    if (size & 8) o.largest_component = 1;
    if (size & 16) o.min_class_nodes = 2;
    gat_status st = gat_dataset_load(&ds, fuzz_path(4, "d"), &o);
    if (st == GAT_OK) {
        FUZZ_CHECK(ds.n > 0);
        fuzz_check_dataset(&ds);
        fuzz_exercise(&ds, opt >> 7);
    } else {
        fuzz_check_failure(st, &ds, sizeof ds);
    }
    gat_dataset_destroy(&ds);
    return 0;
}
