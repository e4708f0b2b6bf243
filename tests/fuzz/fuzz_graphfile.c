/* Fuzz target: datasets from a graph file (an edge table or a format igraph reads) plus text
 * files of features, labels and split (gat_dataset_read). Input: one options byte (bits 0-2 the
 * graph format - 1: edgelist to csv, 3 labels file, 4 split file, 5 symmetrize, 6 normalize,
 * 7 train), then graph, features, labels and split
 * separated by 0x01 bytes; with a CSV graph the three tables are named *.csv too (comma-separated,
 * header lines). A features file is always given: without one every vertex the graph
 * file declares (e.g. "*Vertices 2000000000" in 20 bytes of Pajek) gets a one-hot feature, which
 * is a legitimate request that fails only on memory, and the fuzzer's memory limit would report
 * that as a crash. With one, every vertex needs a features line, which bounds the graph. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const name[9] = {"g.edges", "g.edges", "g.ncol", "g.lgl",   "g.graphml",
                                        "g.gml",   "g.net",   "g.dimacs", "g.csv"};
    const uint8_t *part[4];
    size_t len[4];
    gat_dataset_options o;
    gat_dataset ds;
    gat_dataset_files files = {0};
    if (size < 1) return 0;
    const unsigned opt = data[0];
    const int n = fuzz_split(data + 1, size - 1, 4, part, len);
    const int fmt = 1 + (int)(opt & 7); /* edgelist .. csv */
    files.format = (gat_graph_format)fmt;
    files.graph = fuzz_path(0, name[fmt]);
    fuzz_write(files.graph, part[0], len[0]);
    const int csv = fmt == GAT_GRAPH_FORMAT_CSV;
    files.features = fuzz_path(1, csv ? "f.csv" : "g.features");
    fuzz_write(files.features, n > 1 ? part[1] : NULL, n > 1 ? len[1] : 0);
    if (opt & 8) {
        files.labels = fuzz_path(2, csv ? "l.csv" : "g.labels");
        fuzz_write(files.labels, n > 2 ? part[2] : NULL, n > 2 ? len[2] : 0);
    }
    if (opt & 16) {
        files.split = fuzz_path(3, csv ? "s.csv" : "g.split");
        fuzz_write(files.split, n > 3 ? part[3] : NULL, n > 3 ? len[3] : 0);
    }
    gat_dataset_options_default(&o);
    o.symmetrize = (opt >> 5) & 1;
    o.normalize = (opt >> 6) & 1;
    o.train_per_class = 1;
    o.n_val = 1;
    o.n_test = 1;
    gat_status st = gat_dataset_read(&ds, &files, &o);
    if (st == GAT_OK) {
        fuzz_check_dataset(&ds);
        fuzz_exercise(&ds, opt >> 7);
    } else {
        fuzz_check_failure(st, &ds, sizeof ds);
    }
    gat_dataset_destroy(&ds);
    return 0;
}
