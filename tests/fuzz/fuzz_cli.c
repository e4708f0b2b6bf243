/* Fuzz target: the tools' option parser (tools/cli.c, cli_parse) with an option table of every
 * kind the tools use (flags, integers, reals, strings, the --graph options). The input is argv[1..]
 * separated by NUL bytes. Parsing must return 0 or 2 and leave every value in its range. */
#include "fuzz_util.h"

#include "../../tools/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[258];
    int argc = 1, exit_now = 0;
    FUZZ_CHECK(buf != NULL);
    memcpy(buf, data, size);
    buf[size] = '\0';
    argv[0] = "gat-fuzz";
    for (size_t k = 0; k <= size && argc < 257;) {
        argv[argc++] = buf + k;
        k += strlen(buf + k) + 1;
    }
    argv[argc] = NULL;

    cli_data d = {0};
    const char *save = NULL;
    int layers = 2, heads = 8, quiet = 0, seed = 1;
    double lr = 0.005, dropout = -1;
    const cli_option opts[] = {{"dataset", CLI_STRING, &d.dataset, 0, 0, "NAME|PATH", "dataset"},
                               CLI_GRAPH_OPTIONS(d),
                               CLI_LABEL_OPTIONS(d),
                               {"layers", CLI_INT, &layers, 1, GAT_MAX_LAYERS, "L", "layers"},
                               {"heads", CLI_INT, &heads, 1, 1024, "K", "heads"},
                               {"seed", CLI_INT, &seed, 0, 2147483647, "S", "seed"},
                               {"lr", CLI_REAL, &lr, 1e-12, 10, "X", "learning rate"},
                               {"dropout", CLI_REAL, &dropout, 0, 0.99, "P", "dropout"},
                               {"quiet", CLI_FLAG, &quiet, 0, 0, NULL, "quiet"},
                               {"save", CLI_STRING, &save, 0, 0, "MODEL", "save"},
                               {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    const int rc = cli_parse(argc, argv, opts, "gat-fuzz", "[options]", &exit_now);
    FUZZ_CHECK(rc == 0 || rc == 2);
    FUZZ_CHECK(layers >= 1 && layers <= GAT_MAX_LAYERS && heads >= 1 && heads <= 1024 && seed >= 0);
    FUZZ_CHECK(lr >= 1e-12 && lr <= 10 && (dropout == -1 || (dropout >= 0 && dropout <= 0.99)));
    FUZZ_CHECK(quiet == 0 || quiet == 1);
    free(buf);
    return 0;
}
