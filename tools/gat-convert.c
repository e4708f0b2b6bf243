/* gat-convert: writes any dataset libgat reads (Cora-style text, a graph file with feature,
 * label and split tables, or a .gatd file) to a binary .gatd dataset file, keeping the raw
 * features (loaded with GAT_NORMALIZE_OFF). Option parsing and reporting only. */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    cli_serial_blas(); /* this tool never trains */
    cli_data d = {0};
    const char *name = NULL;
    int quiet = 0, directed = 0;
    const cli_option opts[] = {
        CLI_GRAPH_OPTIONS(d),
        CLI_LABEL_OPTIONS(d),
        {"directed", CLI_FLAG, &directed, 0, 0, NULL,
         "keep edges directed, as gat-train --directed (.cites: b -> a; --graph: as the file "
         "says): the file stores the graph as built"},
        {"name", CLI_STRING, &name, 0, 0, "NAME",
         "dataset name recorded in the file (default: the last component of IN)"},
        {"quiet", CLI_FLAG, &quiet, 0, 0, NULL, "print nothing on success"},
        {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    static const char *synopsis = "IN OUT.gatd | --graph FILE [--features F --labels L "
                                  "--split S] OUT.gatd [options]";
    /* the positional arguments: cli_parse takes options only, so they are set aside first */
    const char *pos[2], *extra = NULL; /* extra: a third positional (after an unknown option's
                                        * value, say: options are checked first) */
    int n_pos = 0, exit_now, rc;
    char *args[256];
    int n_args = 0;
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        if (k > 0 && strncmp(a, "--", 2) != 0) {
            if (n_pos == 2) {
                if (!extra) extra = a;
                continue;
            }
            pos[n_pos++] = a;
            continue;
        }
        if (n_args == (int)(sizeof args / sizeof *args) - 1) {
            fprintf(stderr, "gat-convert: too many arguments\n");
            return 2;
        }
        args[n_args++] = argv[k];
        /* an option's separate value follows it */
        if (k > 0 && !strchr(a, '=') && k + 1 < argc) {
            const cli_option *o = opts;
            while (o->name && strcmp(o->name, a + 2) != 0) o++;
            if (o->name && o->type != CLI_FLAG) args[n_args++] = argv[++k];
        }
    }
    args[n_args] = NULL;
    if ((rc = cli_parse(n_args, args, opts, "gat-convert", synopsis, &exit_now)) || exit_now)
        return rc;
    if (extra) {
        fprintf(stderr, "gat-convert: unexpected argument '%s' (try --help)\n", extra);
        return 2;
    }
    if (n_pos != (d.graph ? 1 : 2)) {
        fprintf(stderr, "gat-convert: expected %s (try --help)\n",
                d.graph ? "one output path after --graph FILE" : "IN and OUT.gatd");
        return 2;
    }
    const char *out = pos[n_pos - 1];
    if (!d.graph) d.dataset = pos[0];

    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF; /* store the raw features */
    o.symmetrize = !directed;
    d.direction = directed ? "--directed" : NULL;
    gat_dataset ds;
    const char *in;
    char base[256];
    const double t0 = now();
    if ((rc = cli_load_dataset("gat-convert", &d, NULL, 0, &o, &ds, &in)) != 0) return rc;
    if (!name) { /* the input's last path component, e.g. "cora" */
        size_t len = strlen(in);
        while (len > 1 && in[len - 1] == '/') len--;
        size_t start = len;
        while (start > 0 && in[start - 1] != '/') start--;
        snprintf(base, sizeof base, "%.*s", (int)(len - start), in + start);
        name = base;
    }
    if (gat_dataset_save(&ds, out, name) != GAT_OK) {
        fprintf(stderr, "gat-convert: cannot write %s: %s\n", out, gat_last_error());
        gat_dataset_destroy(&ds);
        return 1;
    }
    struct stat sb;
    cli_dataset_notes("gat-convert", &d, &ds, quiet);
    if (!quiet)
        printf("gat-convert: %s -> %s: %d nodes, %d edges (self-loops included), %d feature "
               "non-zeros, %lld bytes, %.2f s\n",
               in, out, ds.n, ds.graph.nnz, ds.x.rowptr[ds.n],
               stat(out, &sb) == 0 ? (long long)sb.st_size : -1LL, now() - t0);
    if (!quiet && ds.splits) /* every fixed split of the source, unless --split drew one */
        printf("gat-convert: %s holds the %d fixed splits of %s (--split-index K chooses one)\n",
               out, ds.n_splits, in);
    gat_dataset_destroy(&ds);
    return 0;
}
