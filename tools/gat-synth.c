/* gat-synth: writes a synthetic Cora-style dataset (PREFIX.content[.gz], PREFIX.cites,
 * PREFIX.split), or one binary dataset file PREFIX.gatd (--out-format binary), drawn by
 * tools/synth.c: a degree-corrected planted partition with features correlated with the blocks.
 * Option parsing and file writing only. */
#include "cli.h"
#include "synth.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The text files are written to temporary files beside their targets and renamed over them
 * only once all three are complete (cli_afile): a failed write (a full disk) leaves the previous
 * dataset whole. Each writer returns 0, or the errno of the failed write (EIO if none). */

static int why(void)
{
    return errno ? errno : EIO;
}

/* Writes buf through gz (if not NULL) or f; 0 or the errno. */
static int put(gzFile gz, FILE *f, const char *buf, size_t n)
{
    errno = 0;
    if (gz) {
        int zerr;
        if (gzwrite(gz, buf, (unsigned)n) == (int)n) return 0;
        gzerror(gz, &zerr);
        return zerr == Z_ERRNO ? why() : zerr == Z_MEM_ERROR ? ENOMEM : EIO;
    }
    return fwrite(buf, 1, n, f) == n ? 0 : why();
}

static int write_content(cli_afile *a, const synth_data *d, int gzip)
{
    gzFile gz = NULL;
    const gat_idx F = d->x.cols;
    size_t cap = (size_t)F * 24 + 64;
    char *line = malloc(cap);
    int err = 0;
    if (!line) return ENOMEM;
    if (gzip) {
        const int fd = dup(a->fd);
        if (fd < 0 || !(gz = gzdopen(fd, "wb1"))) {
            err = fd < 0 ? why() : ENOMEM;
            if (fd >= 0) close(fd);
            goto out;
        }
        gzbuffer(gz, 1 << 20);
    }
    for (gat_idx i = 0; i < d->n && !err; i++) {
        size_t n = (size_t)snprintf(line, cap, "%d", i);
        gat_idx p = d->x.rowptr[i];
        for (gat_idx c = 0; c < F; c++) {
            const int on = p < d->x.rowptr[i + 1] && d->x.col[p] == c;
            const double v = on ? (double)d->x.val[p++] : 0;
            if (v == 0)
                memcpy(line + n, "\t0", 2), n += 2;
            else if (v == 1)
                memcpy(line + n, "\t1", 2), n += 2;
            else
                n += (size_t)snprintf(line + n, cap - n, "\t%.4g", v);
        }
        n += (size_t)snprintf(line + n, cap - n, "\tc%02d\n", d->labels[i]);
        err = put(gz, a->f, line, n);
    }
out:
    if (gz) {
        errno = 0;
        const int zrc = gzclose(gz); /* the rest of the stream: may fail too */
        if (!err && zrc != Z_OK) err = zrc == Z_ERRNO ? why() : EIO;
    }
    free(line);
    return err;
}

static int write_cites(cli_afile *a, const synth_data *d)
{
    char line[64];
    for (size_t k = 0; k < d->m; k++) {
        if (d->src[k] == d->dst[k]) continue;
        errno = 0;
        if (fprintf(a->f, "%d\t%d", d->src[k], d->dst[k]) < 0) return why();
        for (int c = 0; c < d->edge_dim; c++) {
            const int n = snprintf(line, sizeof line, "\t%.9g",
                                   (double)d->edge_x[k * (size_t)d->edge_dim + (size_t)c]);
            const int err = put(NULL, a->f, line, (size_t)n);
            if (err) return err;
        }
        if (fputc('\n', a->f) == EOF) return why();
    }
    return 0;
}

static int write_split(cli_afile *a, const synth_data *d)
{
    static const char *name[] = {NULL, "train", "val", "test"};
    for (int s = 1; s <= 3; s++)
        for (gat_idx i = 0; i < d->n; i++) {
            errno = 0;
            if (d->split[i] == s && fprintf(a->f, "%d\t%s\n", i, name[s]) < 0) return why();
        }
    return 0;
}

/* PREFIX.content[.gz], PREFIX.cites and PREFIX.split, renamed into place together. Returns 0,
 * or 1 after "gat-synth: cannot write FILE: REASON" on stderr. */
static int write_text(const char *out, const synth_data *d, int plain)
{
    static const char *const suffix[3] = {".content.gz", ".cites", ".split"};
    cli_afile a[3];
    char path[4096];
    int k, err = 0, rc = 0;
    memset(a, 0, sizeof a);
    for (k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s%s", out, k == 0 && plain ? ".content" : suffix[k]);
        if (cli_afile_open("gat-synth", &a[k], path)) break;
        err = k == 0   ? write_content(&a[k], d, !plain)
              : k == 1 ? write_cites(&a[k], d)
                       : write_split(&a[k], d);
        /* everything out of the buffers before the first rename (a device written straight
         * into fails here, not after the other files replaced theirs) */
        errno = 0;
        if (!err && fflush(a[k].f) != 0) err = why();
        if (err) break;
    }
    if (k < 3) { /* the failed file says why; the others are dropped */
        if (err) cli_afile_commit("gat-synth", &a[k], err);
        for (int j = 0; j < 3; j++)
            cli_afile_abort(&a[j]);
        return 1;
    }
    for (k = 0; k < 3; k++)
        if (!rc && cli_afile_commit("gat-synth", &a[k], 0)) rc = 1;
    for (k = 0; k < 3; k++)
        cli_afile_abort(&a[k]);
    return rc;
}

/* PREFIX.gatd through the library: raw features, the drawn split, class names c00, c01, ... as
 * in the text files. d is released once the dataset holds its copy (one copy at a time). */
static int write_binary(const char *path, synth_data *d, int classes)
{
    gat_dataset ds;
    char **names = calloc((size_t)classes, sizeof *names);
    int rc = 1;
    if (!names) return 1;
    for (int c = 0; c < classes; c++)
        if ((names[c] = malloc(16))) snprintf(names[c], 16, "c%02d", c);
    for (int c = 0; c < classes; c++)
        if (!names[c]) goto out;
    if (synth_dataset_with(d, classes, GAT_NORMALIZE_OFF, (const char *const *)names, &ds) !=
        GAT_OK) {
        fprintf(stderr, "gat-synth: cannot build the dataset: %s\n", gat_last_error());
        goto out;
    }
    synth_free(d);
    if (gat_dataset_save(&ds, path, NULL) != GAT_OK)
        fprintf(stderr, "gat-synth: %s\n", gat_last_error());
    else
        rc = 0;
    gat_dataset_destroy(&ds);
out:
    for (int c = 0; c < classes; c++)
        free(names[c]);
    free(names);
    return rc;
}

/* gat-synth --graphs: PREFIX.gatd of many graphs (synth_graphs), split "A,B,C" or the default. */
static int write_graphs(const char *out, synth_graph_opts *go, const char *split, int quiet)
{
    gat_dataset ds;
    char err[256], path[4096], tail;
    if (split) {
        int a, b, c;
        if (sscanf(split, "%d,%d,%d%c", &a, &b, &c, &tail) != 3 || a < 1 || b < 1 || c < 0 ||
            (long)a + b + c != go->graphs) {
            fprintf(stderr,
                    "gat-synth: --graph-split '%s': expected A,B,C with A >= 1, B >= 1, C >= 0 "
                    "and A + B + C = --graphs (%d)\n",
                    split, go->graphs);
            return 2;
        }
        go->split_graphs[0] = a, go->split_graphs[1] = b, go->split_graphs[2] = c;
    } else if (go->labels > 0) {
        const gat_idx k = go->graphs / 10 > 0 ? go->graphs / 10 : 1;
        go->split_graphs[1] = k, go->split_graphs[2] = go->graphs > 2 * k ? k : 0;
        go->split_graphs[0] = go->graphs - k - go->split_graphs[2];
        if (go->split_graphs[0] < 1) {
            fprintf(stderr, "gat-synth: --graphs %d with --node-labels: need at least 2 graphs\n",
                    go->graphs);
            return 2;
        }
    }
    const double t0 = now();
    const gat_status st = synth_graphs(go, &ds, err, sizeof err);
    if (st != GAT_OK) {
        fprintf(stderr, "gat-synth: %s\n", err[0] ? err : gat_last_error());
        return st == GAT_EINVAL && err[0] ? 2 : 1;
    }
    snprintf(path, sizeof path, "%s.gatd", out);
    int rc = 0;
    if (gat_dataset_save(&ds, path, NULL) != GAT_OK) {
        fprintf(stderr, "gat-synth: %s\n", gat_last_error());
        rc = 1;
    } else if (!quiet) {
        printf("gat-synth: %d graphs, %d nodes, %d edges with self-loops, %d features, ", ds.n_graphs,
               ds.n, ds.graph.nnz, ds.n_features);
        if (go->labels > 0)
            printf("%d labels per node, %d/%d/%d graphs train/val/test", ds.n_labels,
                   go->split_graphs[0], go->split_graphs[1], go->split_graphs[2]);
        else
            printf("%d graph classes", ds.n_graph_classes);
        printf(": %.2f s (%s)\n", now() - t0, path);
    }
    gat_dataset_destroy(&ds);
    return rc;
}

/* The options a mode would not read, as usage errors (given: so's NaN fields, go.types,
 * format and classes -1 or NULL when not). Returns 0, or 2 after a message. */
static int synth_usage(const synth_opts *so, const synth_graph_opts *go, const char *graph_split,
                       const char *format, int classes, int plain)
{
    if (go->graphs > 0) {
        /* --graphs draws its own graphs, features and split into one .gatd */
        const char *bad = so->dense                ? "--dense"
                          : !isnan(so->density)    ? "--density"
                          : !isnan(so->exponent)   ? "--exponent"
                          : !isnan(so->train)      ? "--train"
                          : !isnan(so->val)        ? "--val"
                          : !isnan(so->test)       ? "--test"
                          : so->edge_features      ? "--edge-dim"
                          : !isnan(so->edge_noise) ? "--edge-noise"
                          : so->ordered            ? "--ordered"
                          : plain                  ? "--plain"
                          : format                 ? "--out-format"
                                                   : NULL;
        if (bad) {
            fprintf(stderr,
                    "gat-synth: %s does not apply to --graphs (one .gatd file of many "
                    "graphs, with their own features and split)\n",
                    bad);
            return 2;
        }
        if (graph_split && go->labels == 0) {
            fprintf(stderr, "gat-synth: --graph-split needs --node-labels (graph classification "
                            "is split into folds by gat-train)\n");
            return 2;
        }
        if (classes >= 0 && go->labels > 0) {
            fprintf(stderr, "gat-synth: --classes does not apply to --node-labels (the labels "
                            "come from the hidden --types)\n");
            return 2;
        }
        return 0;
    }
    if (go->labels > 0 || graph_split || go->types >= 0) {
        fprintf(stderr, "gat-synth: %s needs --graphs\n",
                go->labels > 0 ? "--node-labels"
                : graph_split  ? "--graph-split"
                               : "--types");
        return 2;
    }
    if (plain && format && !strcmp(format, "binary")) {
        fprintf(stderr, "gat-synth: --plain applies to the text files; --out-format binary writes "
                        "one .gatd\n");
        return 2;
    }
    if (so->dense && !isnan(so->density)) {
        fprintf(stderr, "gat-synth: --density applies to sparse features, not --dense\n");
        return 2;
    }
    if (!so->edge_features && !isnan(so->edge_noise)) {
        fprintf(stderr, "gat-synth: --edge-noise needs --edge-dim D > 0\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    cli_serial_blas(); /* this tool never trains */
    synth_opts so, def;
    synth_defaults(&so);
    synth_defaults(&def);
    /* NaN and -1: not given (the defaults are filled in after the usage checks) */
    so.density = so.exponent = so.train = so.val = so.test = so.edge_noise = NAN;
    synth_graph_opts go = {.types = -1};
    const char *graph_split = NULL;
    const char *out = NULL, *format = NULL;
    int nodes = so.nodes, classes = -1, features = so.features, seed = 1, plain = 0, quiet = 0;
    const cli_option opts[] = {
        {"out", CLI_STRING, &out, 0, 0, "PREFIX", "write PREFIX.content.gz, PREFIX.cites, PREFIX.split, or PREFIX.gatd (required)"},
        {"out-format", CLI_STRING, &format, 0, 0, "F", "text (Cora-style files, default) or binary (one .gatd dataset file)"},
        {"nodes", CLI_INT, &nodes, 2, 2000000000, "N", "nodes (default 10000)"},
        {"degree", CLI_REAL, &so.degree, 0.01, 1e6, "D", "mean degree, undirected (default 10)"},
        {"classes", CLI_INT, &classes, 1, 1000000, "C", "classes = blocks (default 8)"},
        {"feature-dim", CLI_INT, &features, 1, 1000000, "F", "feature columns (default 128)"},
        {"density", CLI_REAL, &so.density, 0, 1, "P", "sparse features: mean share of non-zeros (default 0.1)"},
        {"dense", CLI_FLAG, &so.dense, 0, 0, NULL, "dense Gaussian features (class mean + noise)"},
        {"homophily", CLI_REAL, &so.homophily, 0, 1, "H", "share of edges inside blocks (default 0.8)"},
        {"exponent", CLI_REAL, &so.exponent, 2.01, 100, "G", "power-law exponent of expected degrees (default 2.5)"},
        {"signal", CLI_REAL, &so.signal, 0, 100, "S", "feature signal: topic share (sparse) or mean scale (dense) (default 0.3)"},
        {"train", CLI_REAL, &so.train, 0, 1, "P", "training share of the nodes (default 0.1)"},
        {"val", CLI_REAL, &so.val, 0, 1, "P", "validation share (default 0.1)"},
        {"test", CLI_REAL, &so.test, 0, 1, "P", "test share (default 0.2)"},
        {"edge-dim", CLI_INT, &so.edge_features, 0, 4096, "D", "edge feature columns (default 0): column 0 says whether the edge joins two nodes of one class (flipped with probability --edge-noise), the others are N(0, 1) noise"},
        {"edge-noise", CLI_REAL, &so.edge_noise, 0, 1, "P", "flip probability of edge feature column 0 (default 0.1)"},
        {"ordered", CLI_FLAG, &so.ordered, 0, 0, NULL, "number nodes block by block (default: random order)"},
        {"seed", CLI_INT, &seed, 0, 2147483647, "S", "random seed (default 1)"},
        {"plain", CLI_FLAG, &plain, 0, 0, NULL, "write PREFIX.content uncompressed"},
        {"quiet", CLI_FLAG, &quiet, 0, 0, NULL, "print nothing on success"},
        /* many graphs (issue 37): one .gatd file */
        {"graphs", CLI_INT, &go.graphs, 1, 10000000, "G", "write G graphs of about --nodes nodes each (sizes 3/4 to 5/4 of it) to PREFIX.gatd: a multi-label node task with --node-labels, else graph classification into --classes classes by a planted ring motif"},
        {"node-labels", CLI_INT, &go.labels, 0, 100000, "L", "with --graphs: L labels per node (multi-hot), each from the node's hidden type and its neighbours' (default 0: graph classification)"},
        {"types", CLI_INT, &go.types, 2, 100000, "T", "with --graphs: hidden node types that set the features' means (default 8)"},
        {"graph-split", CLI_STRING, &graph_split, 0, 0, "A,B,C", "with --graphs and --node-labels: training, validation and test graphs, the first A graphs train (default: 10 % each for validation and test, at least 1)"},
        /* elsewhere --format is an embedding format, --features a file, --edge-features a switch */
        CLI_DEPRECATED("format", "out-format"),
        CLI_DEPRECATED("features", "feature-dim"),
        CLI_DEPRECATED("edge-features", "edge-dim"),
        {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    int exit_now, rc;
    if ((rc = cli_parse(argc, argv, opts, "gat-synth", "--out PREFIX [options]", &exit_now)) || exit_now)
        return rc;
    if ((rc = synth_usage(&so, &go, graph_split, format, classes, plain)) != 0) return rc;
    if (classes < 0) classes = def.classes;
    if (go.types < 0) go.types = 8;
    if (isnan(so.density)) so.density = def.density;
    if (isnan(so.exponent)) so.exponent = def.exponent;
    if (isnan(so.train)) so.train = def.train;
    if (isnan(so.val)) so.val = def.val;
    if (isnan(so.test)) so.test = def.test;
    if (isnan(so.edge_noise)) so.edge_noise = def.edge_noise;
    if (!format) format = "text";
    if (go.graphs > 0) {
        if (!out) {
            fprintf(stderr, "gat-synth: --out PREFIX is required (try --help)\n");
            return 2;
        }
        go.nodes = nodes, go.features = features, go.classes = classes, go.seed = (uint64_t)seed;
        go.degree = so.degree, go.homophily = so.homophily, go.signal = so.signal;
        return write_graphs(out, &go, graph_split, quiet);
    }
    if (!out) {
        fprintf(stderr, "gat-synth: --out PREFIX is required (try --help)\n");
        return 2;
    }
    const int binary = !strcmp(format, "binary");
    if (!binary && strcmp(format, "text") != 0) {
        fprintf(stderr, "gat-synth: --out-format: expected text or binary, got '%s'\n", format);
        return 2;
    }
    so.nodes = nodes, so.classes = classes, so.features = features, so.seed = (uint64_t)seed;
    if (classes > nodes || so.train + so.val + so.test > 1) {
        fprintf(stderr, "gat-synth: need --classes <= --nodes and --train + --val + --test <= 1\n");
        return 2;
    }
    const double t0 = now();
    synth_data d;
    char err[256];
    if (synth_generate(&so, &d, err, sizeof err)) {
        fprintf(stderr, "gat-synth: %s\n", err);
        return 1;
    }
    const double t1 = now();
    const size_t len = strlen(out) + 16;
    char *path = malloc(len);
    if (!path) return 1;
    rc = 0;
    const size_t n_edges = d.m, nnz = (size_t)d.x.rowptr[d.n];
    const gat_idx n_nodes = d.n;
    if (binary) {
        snprintf(path, len, "%s.gatd", out);
        rc = write_binary(path, &d, classes);
        if (!rc && !quiet)
            printf("gat-synth: %d nodes, %zu edges drawn, %zu feature non-zeros, %d classes: "
                   "generated in %.2f s, written in %.2f s (%s)\n", n_nodes, n_edges, nnz,
                   classes, t1 - t0, now() - t1, path);
        free(path);
        synth_free(&d);
        return rc;
    }
    rc = write_text(out, &d, plain);
    if (!rc && !quiet)
        printf("gat-synth: %d nodes, %zu edges drawn, %zu feature non-zeros, %d classes: "
               "generated in %.2f s, written in %.2f s (%s.*)\n", d.n, d.m,
               (size_t)d.x.rowptr[d.n], classes, t1 - t0, now() - t1, out);
    free(path);
    synth_free(&d);
    return rc;
}
