/* gat-embed: runs a model saved by gat-train --save on a dataset or graph file (the training
 * graph or another one with the same features) and exports node embeddings, attention
 * coefficients and predictions. Option parsing and printing only; libgat computes and writes. */
#include "cli.h"
#include "pe.h"
#include "plot.h"
#include "embed_graphs.h"

#include "gat/gat.h"
#include "gat_config.h"
#if GAT_HAVE_MPI
#include "gat/dist.h"
#endif

#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct options {
    cli_data data;
    const char *model, *out, *format, *layer, *attention, *predict, *order;
    const char *partitions; /* --partitions DIR (under mpirun) */
    const char *plot, *plot_attention, *plot_size; /* --plot, --plot-attention FILE; WxH */
    int no_header, normalize, no_normalize, directed, undirected, threads, quiet;
    int all_nodes; /* --all-nodes: not the cuts the model records (data.min_class_nodes is -1
                    * until --min-class-nodes is given) */
} options;

/* Signals. SIGINT, SIGTERM, SIGHUP and SIGXFSZ end the process with exit code 128 + N and leave
 * no temporary file: outside a write there is none of ours (but a picture's and its script,
 * removed here, with its gnuplot stopped); during a library write (writing set) the signal waits for the write to
 * end, which either renames its temporary file into place or, interrupted (a FIFO's write, or
 * a write past ulimit -f, which raises SIGXFSZ inside it), removes it. A signal the parent left
 * ignored (nohup, a background job) stays ignored. */
static atomic_int writing, pending;
static plot *volatile picture; /* the picture being drawn, or NULL */

static void on_signal(int sig)
{
    atomic_store(&pending, sig);
    if (atomic_load(&writing)) return;
    plot *pl = picture;
    if (pl) {
        if (pl->pid > 0) kill(pl->pid, SIGKILL);
        if (pl->tmp[0]) unlink(pl->tmp);
        if (pl->script[0]) unlink(pl->script);
    }
    _exit(128 + sig);
}

static void catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
    for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) {
        struct sigaction sa, old;
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal; /* no SA_RESTART: a blocked write returns, then we exit */
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[k], &sa, NULL);
    }
}

/* Brackets a library write: write_window(1) before, write_window(0) after it, which returns
 * the signal received during it (0 if none): the caller then reports and exits with 128 + N. */
static int write_window(int on)
{
    atomic_store(&writing, on);
    return on ? 0 : atomic_load(&pending);
}

static int fail(const char *what)
{
    fprintf(stderr, "gat-embed: %s: %s\n", what, gat_last_error());
    return 1;
}

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("gat-embed: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (try --help)\n", stderr);
    return 2;
}

/* --layer: an index 0..L-1, "logits" or "probs"; NULL: the last hidden layer (logits if none).
 * Returns 0, or 2 after a usage message. */
static int parse_layer(const char *s, int n_layers, int *layer)
{
    char *end;
    if (!s) {
        *layer = n_layers >= 2 ? n_layers - 2 : GAT_LAYER_LOGITS;
        return 0;
    }
    if (!strcmp(s, "logits")) {
        *layer = GAT_LAYER_LOGITS;
        return 0;
    }
    if (!strcmp(s, "probs") || !strcmp(s, "probabilities")) {
        *layer = GAT_LAYER_PROBS;
        return 0;
    }
    const long l = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || l >= n_layers)
        return usage_error("--layer: expected 0..%d, logits or probs, got '%s'", n_layers - 1, s);
    *layer = (int)l;
    return 0;
}

static const char *layer_name(int layer, char *buf, size_t cap)
{
    if (layer == GAT_LAYER_LOGITS) return "logits";
    if (layer == GAT_LAYER_PROBS) return "probs";
    snprintf(buf, cap, "layer %d", layer);
    return buf;
}

/* The last component of a dataset name or path, for titles. */
static const char *base_name(const char *name)
{
    const char *slash = strrchr(name, '/');
    return slash && slash[1] ? slash + 1 : name;
}

/* Colours of the classes (matplotlib's tab10); after ten, the point shape changes. */
static const char *const class_color[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                            "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
static const int class_shape[3] = {7, 5, 9}; /* filled circle, square, triangle */

/* The classes the points of --plot are coloured by: n labels in [-1, C) (-1 unlabelled) and
 * the C names of the legend. */
typedef struct colouring {
    gat_idx n, classes;
    const gat_idx *label;
    const char *const *names;
    const char *note; /* in the title: where the classes come from */
} colouring;

/* --plot: the (n, 2) PCA coordinates xy, one colour per class of k (unlabelled nodes grey,
 * underneath), the legend from its class names. */
static int plot_embedding(const char *path, plot_format fmt, int width, int height,
                          const colouring *k, const double *xy, const double var[2],
                          const char *what, gat_idx dims, const char *name)
{
    plot pl;
    if (plot_open(&pl, "gat-embed", path, fmt, width, height) != 0) return 1;
    picture = &pl;
    FILE *f = pl.f;
    int any_unlabelled = 0;
    /* one data block per class, c = -1 the unlabelled nodes */
    for (gat_idx c = -1; c < k->classes; c++) {
        fprintf(f, "$c%d << EOD\n", c + 1);
        for (gat_idx i = 0; i < k->n; i++) {
            if (k->label[i] != c) continue;
            any_unlabelled |= c < 0;
            fprintf(f, "%.9g %.9g\n", xy[2 * i], xy[2 * i + 1]);
        }
        fprintf(f, "EOD\n");
    }
    char title[512];
    snprintf(title, sizeof title, "%s of %s (%d-d), PCA to 2-D%s", what, base_name(name), dims,
             k->note);
    fprintf(f, "set title ");
    plot_quote(f, title);
    fprintf(f, "\nset xlabel 'PC1 (variance %.3g)'\nset ylabel 'PC2 (variance %.3g)'\n"
               "set key outside right top\nset grid\nplot ", var[0], var[1]);
    int first = 1;
    if (any_unlabelled) {
        fprintf(f, "$c0 using 1:2 with points pt 7 ps 0.35 lc rgb '#c0c0c0' title 'unlabelled'");
        first = 0;
    }
    for (gat_idx c = 0; c < k->classes; c++) {
        int count = 0;
        for (gat_idx i = 0; i < k->n && !count; i++) count = k->label[i] == c;
        if (!count) continue; /* gnuplot refuses an empty data block */
        fprintf(f, "%s$c%d using 1:2 with points pt %d ps 0.45 lc rgb '%s' title ",
                first ? "" : ", ", c + 1, class_shape[(c / 10) % 3], class_color[c % 10]);
        char num[32];
        snprintf(num, sizeof num, "class %d", c);
        plot_quote(f, k->names && k->names[c] ? k->names[c] : num);
        first = 0;
    }
    if (first) fprintf(f, "$c0 using 1:2 with points notitle"); /* no node at all: n >= 1 */
    fprintf(f, "\n");
    const int rc = plot_close(&pl, "gat-embed");
    picture = NULL;
    return rc;
}

/* --plot-attention: per layer, histograms of the attention entropy of every (node, head) and of
 * the uniform entropy ln(in-degree) of every node, as fractions, on common bins; gnuplot's stats
 * put both means in the panel's title. */
static int plot_attention(const char *path, plot_format fmt, int width, int height, gat_model *m,
                          const gat_dataset *ds, const char *name)
{
    const gat_idx L = gat_model_layer_count(m);
    gat_real *alpha = NULL;
    double *ent = NULL, *uni = NULL;
    int rc = 0;
    plot pl = {0};
    if (!(uni = malloc(((size_t)ds->n + 1) * sizeof *uni))) {
        fprintf(stderr, "gat-embed: out of memory for the attention entropies\n");
        return 1;
    }
    if (plot_open(&pl, "gat-embed", path, fmt, width, height) != 0) {
        free(uni);
        return 1;
    }
    picture = &pl;
    FILE *f = pl.f;
    for (gat_idx l = 0; l < L && rc == 0; l++) {
        const size_t K = (size_t)gat_model_layer_heads(m, l);
        gat_real *a = realloc(alpha, ((size_t)ds->graph.nnz * K + 1) * sizeof *a);
        double *e = a ? realloc(ent, ((size_t)ds->n * K + 1) * sizeof *e) : NULL;
        if (a) alpha = a;
        if (e) ent = e;
        if (!a || !e) {
            fprintf(stderr, "gat-embed: out of memory for the attention of layer %d\n", l);
            rc = 1;
            break;
        }
        if (gat_model_attention_copy(m, &ds->graph, &ds->x, l, alpha) != GAT_OK ||
            gat_attention_entropy(&ds->graph, alpha, (gat_idx)K, ent, uni) != GAT_OK) {
            rc = fail("cannot compute the attention entropy");
            break;
        }
        fprintf(f, "$e%d << EOD\n", l);
        for (size_t k = 0; k < (size_t)ds->n * K; k++) fprintf(f, "%.9g\n", ent[k]);
        fprintf(f, "EOD\n$u%d << EOD\n", l);
        for (gat_idx i = 0; i < ds->n; i++) fprintf(f, "%.9g\n", uni[i]);
        fprintf(f, "EOD\n");
    }
    if (rc == 0) {
        const int cols = L < 3 ? L : 3, rows = (L + cols - 1) / cols;
        char title[512];
        snprintf(title, sizeof title, "attention entropy on %s (nats) against uniform attention "
                 "over the same in-neighbours", base_name(name));
        fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
        plot_quote(f, title);
        fprintf(f, "\nset grid\nset style fill transparent solid 0.45 noborder\n"
                   "set xlabel 'entropy (nats)'\nset ylabel 'fraction'\nset key top left\n"
                   "set yrange [0:*]\n");
        for (gat_idx l = 0; l < L; l++) {
            const int K = gat_model_layer_heads(m, l);
            fprintf(f, "stats $e%d using 1 name 'E' nooutput\nstats $u%d using 1 name 'U' "
                       "nooutput\n", l, l);
            /* 30 bins up to the largest uniform entropy, which bounds every entropy */
            fprintf(f, "bw = (U_max > 0 ? U_max : 1) / 30.0\nbin(x) = bw * (floor(x / bw) + 0.5)\n"
                       "set xrange [0:(U_max > 0 ? U_max : 1) + bw]\n"
                       "set title sprintf('layer %d (%d head%s): mean %%.2f, uniform %%.2f', "
                       "E_mean, U_mean)\n", l, K, K == 1 ? "" : "s");
            fprintf(f, "plot $u%d using (bin($1)):(1.0 / U_records) smooth frequency with boxes "
                       "lc rgb '#7f7f7f' title 'uniform: ln(in-degree)', $e%d using (bin($1)):"
                       "(1.0 / E_records) smooth frequency with boxes lc rgb '#d62728' "
                       "title 'attention'\n", l, l);
        }
        fprintf(f, "unset multiplot\n");
    }
    /* on a failure gnuplot never runs: no picture is published */
    const int prc = rc == 0 ? plot_close(&pl, "gat-embed") : (plot_abort(&pl), 0);
    picture = NULL;
    free(alpha);
    free(ent);
    free(uni);
    return rc ? rc : prc;
}

#if GAT_HAVE_MPI
/* --partitions: every rank loads its part and runs the model on it with the others; rank 0
 * writes --out and --predict for every node. The same verdict on every rank; a rank that fails
 * says why. */
static int embed_partitions(const options *o, gat_model *m, const gat_model_meta *meta, int layer,
                            gat_file_format fmt, unsigned flags)
{
    int rank, size, bad = 0, any = 0, rc = 0;
    gat_part part;
    gat_dist *d = NULL;
    gat_real *emb = NULL, *prob = NULL;
    gat_idx *cls = NULL;
    char **ids = NULL;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "gat-embed: --partitions: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0 && !freopen("/dev/null", "w", stdout)) bad = 1;
#define RANK_FAIL(what)                                                                       \
    do {                                                                                      \
        const char *msg_ = gat_last_error();                                                  \
        if (rank == 0 || strncmp(msg_, "rank ", 5) != 0)                                      \
            fprintf(stderr, "gat-embed: rank %d: %s: %s\n", rank, what, msg_);                \
        rc = 1;                                                                               \
    } while (0)
    memset(&part, 0, sizeof part);
    if (gat_part_load(&part, o->partitions, rank) != GAT_OK) {
        RANK_FAIL("cannot load its part");
        bad = 1;
    } else if (part.n_parts != size) {
        fprintf(stderr, "gat-embed: rank %d: %s holds %d parts but mpirun started %d ranks (run "
                        "mpirun -np %d)\n", rank, o->partitions, part.n_parts, size, part.n_parts);
        bad = 1;
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        rc = 1;
        goto done;
    }
    gat_dist_options dop;
    gat_dist_options_default(&dop);
    dop.normalize = o->normalize      ? GAT_NORMALIZE_ON
                    : o->no_normalize ? GAT_NORMALIZE_OFF
                    : meta->normalize ? GAT_NORMALIZE_AUTO
                                      : GAT_NORMALIZE_OFF;
    if (o->order) gat_order_from_name(o->order, &dop.order); /* checked by main */
    const gat_status cst = gat_dist_create(&d, &part, MPI_COMM_WORLD, &dop);
    gat_part_destroy(&part); /* the rank keeps what it needs of it */
    if (cst != GAT_OK) {
        RANK_FAIL("cannot set up");
        goto done;
    }
    if (gat_dist_gather_ids(d, 0, &ids) != GAT_OK) {
        RANK_FAIL("cannot gather the node ids");
        goto done;
    }
    const gat_idx N = gat_dist_part(d)->n_global, parts = gat_dist_part(d)->n_parts;
    if (o->out) {
        const gat_idx w = gat_model_embed_width(m, layer);
        if (rank == 0 && !(emb = malloc(((size_t)N * (size_t)w + 1) * sizeof *emb))) bad = 1;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) {
            if (rank == 0) fprintf(stderr, "gat-embed: rank 0: out of memory for %d x %d\n", N, w);
            rc = 1;
            goto done;
        }
        if (gat_dist_embed(m, d, layer, 0, emb) != GAT_OK) {
            RANK_FAIL("inference failed");
            goto done;
        }
        if (rank == 0) {
            char lname[32];
            write_window(1);
            const gat_status st =
                gat_matrix_save(o->out, fmt, N, w, emb, (const char *const *)ids, flags);
            const int sig = write_window(0);
            if (st != GAT_OK) RANK_FAIL("cannot write the embeddings");
            if (sig) rc = 128 + sig;
            char ids_path[4096] = "";
            if (!rc && fmt == GAT_FORMAT_NPY)
                rc = embed_npy_ids(o->out, N, (const char *const *)ids, write_window, ids_path,
                                   sizeof ids_path);
            if (rc) goto done;
            if (!o->quiet)
                printf("wrote %s: %d x %d (%s, %s) from %d parts%s%s\n", o->out, N, w,
                       layer_name(layer, lname, sizeof lname), gat_file_format_name(fmt), parts,
                       ids_path[0] ? "; row ids in " : "", ids_path);
        }
    }
    if (o->predict) {
        if (rank == 0 && (!(cls = malloc(((size_t)N + 1) * sizeof *cls)) ||
                          !(prob = malloc(((size_t)N + 1) * sizeof *prob))))
            bad = 1;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) {
            if (rank == 0) fprintf(stderr, "gat-embed: rank 0: out of memory for %d predictions\n", N);
            rc = 1;
            goto done;
        }
        if (gat_dist_predict(m, d, 0, cls, prob) != GAT_OK) {
            RANK_FAIL("inference failed");
            goto done;
        }
        if (rank == 0) {
            write_window(1);
            const gat_status st =
                gat_predictions_write(o->predict, N, gat_model_get_config(m)->classes, cls, prob,
                                      (const char *const *)ids, meta->class_names, flags);
            const int sig = write_window(0);
            if (st != GAT_OK) RANK_FAIL("cannot write the predictions");
            if (sig) rc = 128 + sig;
            if (rc) goto done;
            if (!o->quiet)
                printf("wrote %s: predictions of %d nodes from %d parts\n", o->predict, N, parts);
        }
    }
#undef RANK_FAIL
done:
    free(emb);
    free(cls);
    free(prob);
    gat_dist_ids_free(ids);
    gat_dist_free(d);
    gat_part_destroy(&part);
    MPI_Finalize();
    return rc;
}
#endif

int main(int argc, char **argv)
{
    cli_serial_blas(); /* this tool never trains */
    options o = {.threads = 0, .data.min_class_nodes = -1};
    const cli_option opts[] = {
        {"model", CLI_STRING, &o.model, 0, 0, "FILE",
         "model file written by gat-train --save (required)"},
        {"dataset", CLI_STRING, &o.data.dataset, 0, 0, "NAME|PATH",
         "bundled dataset or path (default: the one the model was trained on with --dataset; "
         "a relative path against the model file's directory)"},
        CLI_GRAPH_OPTIONS(o.data),
        {"out", CLI_STRING, &o.out, 0, 0, "FILE",
         "write one embedding row per node to FILE, in the dataset's node order (a graph model: "
         "one readout row per graph; a .npy gets its row ids in FILE.ids.txt, FILE without "
         ".npy)"},
        {"format", CLI_STRING, &o.format, 0, 0, "FMT",
         "npy, tsv, csv or word2vec (default: from --out's extension)"},
        {"layer", CLI_STRING, &o.layer, 0, 0, "L",
         "hidden layer 0..L-2, logits or probs (default: last hidden)"},
        {"attention-out", CLI_STRING, &o.attention, 0, 0, "FILE",
         "write 'layer head dst src alpha edge self_loop' per edge (TSV); a graph model with "
         "the attention readout: each node's readout weight per head"},
        CLI_DEPRECATED("attention", "attention-out"), /* --attention names a score elsewhere */
        {"partitions", CLI_STRING, &o.partitions, 0, 0, "DIR",
         "under mpirun -np K: rank r runs part r of the partition in DIR; rank 0 writes --out and "
         "--predict for every node in the dataset's order"},
        {"predict", CLI_STRING, &o.predict, 0, 0, "FILE",
         "write 'id class probability' per node (TSV; a graph model: per graph, with its "
         "label)"},
        {"plot", CLI_STRING, &o.plot, 0, 0, "FILE",
         "draw --layer's embeddings by PCA to FILE (.png or .svg), coloured by class (gnuplot)"},
        {"plot-attention", CLI_STRING, &o.plot_attention, 0, 0, "FILE",
         "draw histograms of attention entropy per layer against uniform attention (gnuplot)"},
        {"plot-size", CLI_STRING, &o.plot_size, 0, 0, "WxH",
         "size of the plots in pixels (default 640x400)"},
        {"no-header", CLI_FLAG, &o.no_header, 0, 0, NULL,
         "omit the header line of TSV/CSV outputs"},
        {"all-nodes", CLI_FLAG, &o.all_nodes, 0, 0, NULL,
         "every node of the dataset (default: as trained, the largest component and the classes "
         "kept when the model records --largest-component or --min-class-nodes)"},
        {"normalize", CLI_FLAG, &o.normalize, 0, 0, NULL,
         "row-normalise the features; an error if one is negative (default: as trained)"},
        {"no-normalize", CLI_FLAG, &o.no_normalize, 0, 0, NULL,
         "do not row-normalise the features"},
        {"directed", CLI_FLAG, &o.directed, 0, 0, NULL,
         "keep edges directed (default: as trained)"},
        {"undirected", CLI_FLAG, &o.undirected, 0, 0, NULL,
         "make edges undirected (default: as trained)"},
        {"threads", CLI_INT, &o.threads, 0, 1024, "T",
         "kernel threads, 0 = all cores (default 0; OpenBLAS runs on one)"},
        {"order", CLI_STRING, &o.order, 0, 0, "NAME",
         "node order for locality: auto (rcm from 2M edges where it brings neighbours closer), "
         "none, rcm or degree (default auto); outputs stay in the input's order"},
        {"quiet", CLI_FLAG, &o.quiet, 0, 0, NULL, "print nothing on success"},
        {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    const char *synopsis = "--model FILE [--dataset NAME|PATH | --graph FILE] [--out FILE] "
                           "[--attention-out FILE] [--predict FILE] [--plot FILE] "
                           "[--plot-attention FILE] [options]";
    int exit_now, rc, layer = GAT_LAYER_LOGITS;
    gat_file_format fmt = GAT_FORMAT_AUTO;

    if ((rc = cli_parse(argc, argv, opts, "gat-embed", synopsis, &exit_now)) || exit_now) return rc;
    if ((rc = cli_check_env("gat-embed")) != 0) return rc;
    const unsigned flags = o.no_header ? GAT_WRITE_NO_HEADER : 0;
    if (!o.model) return usage_error("--model is required");
    if (!o.out && !o.attention && !o.predict && !o.plot && !o.plot_attention)
        return usage_error("nothing to do: give --out, --attention-out, --predict, --plot or "
                           "--plot-attention");
    if (o.normalize && o.no_normalize)
        return usage_error("--normalize and --no-normalize conflict");
    if (o.directed && o.undirected) return usage_error("--directed and --undirected conflict");
    if (o.all_nodes && (o.data.largest_component || o.data.min_class_nodes >= 0))
        return usage_error("--all-nodes and %s conflict",
                           o.data.largest_component ? "--largest-component" : "--min-class-nodes");
    if (o.format && !o.out) return usage_error("--format needs --out");
    /* the partition holds the graph and its features as gat-partition wrote them: the options
     * that read or build data do not reach it */
    const char *part_bad = o.attention                   ? "--attention-out"
                           : o.plot                      ? "--plot"
                           : o.plot_attention            ? "--plot-attention"
                           : o.data.dataset              ? "--dataset"
                           : o.data.graph                ? "--graph"
                           : o.data.graph_format         ? "--graph-format"
                           : o.data.features             ? "--features"
                           : o.data.feature_attributes   ? "--feature-attributes"
                           : o.data.edge_attributes      ? "--edge-attributes"
                           : o.data.skip_unknown_cites   ? "--skip-unknown-cites"
                           : o.data.self_loop_fill       ? "--self-loop-fill"
                           : o.data.tu_features          ? "--tu-features"
                           : o.data.largest_component    ? "--largest-component"
                           : o.data.min_class_nodes >= 0 ? "--min-class-nodes"
                           : o.all_nodes                 ? "--all-nodes"
                           : o.directed                  ? "--directed"
                           : o.undirected                ? "--undirected"
                                                         : NULL;
    if (o.partitions && part_bad)
        return usage_error("--partitions: %s does not apply (the partition holds the graph and "
                           "its features; --out and --predict are written)",
                           part_bad);
    if (o.layer && !o.out && !o.plot) return usage_error("--layer needs --out or --plot");
    if (o.plot_size && !o.plot && !o.plot_attention)
        return usage_error("--plot-size needs --plot or --plot-attention");
    if (o.out && (o.format ? gat_file_format_from_name(o.format, &fmt)
                           : gat_file_format_from_path(o.out, &fmt)) != GAT_OK)
        return usage_error("%s", gat_last_error());
    if (o.no_header && !(o.out && (fmt == GAT_FORMAT_TSV || fmt == GAT_FORMAT_CSV)) &&
        !o.attention && !o.predict)
        return usage_error("--no-header omits the header of TSV and CSV outputs (--out FILE.tsv "
                           "or .csv, --attention-out, --predict); none is written");

    plot_format plot_fmt = PLOT_PNG, att_fmt = PLOT_PNG;
    int plot_w = PLOT_WIDTH, plot_h = PLOT_HEIGHT, draw = 0;
    if (o.plot_size && (rc = plot_parse_size("gat-embed", o.plot_size, &plot_w, &plot_h)) != 0)
        return rc;
    if (o.plot && (rc = plot_check_path("gat-embed", "plot", o.plot, &plot_fmt)) != 0) return rc;
    if (o.plot_attention &&
        (rc = plot_check_path("gat-embed", "plot-attention", o.plot_attention, &att_fmt)) != 0)
        return rc;
    if (o.plot || o.plot_attention) {
        /* the pictures are what was asked for: without gnuplot the other outputs are still
         * written, then the exit code is 1 */
        draw = plot_available();
        if (!draw)
            fprintf(stderr, "gat-embed: gnuplot not found on PATH: cannot draw %s%s%s (install "
                            "it: %s)\n", o.plot ? o.plot : "",
                    o.plot && o.plot_attention ? " and " : "",
                    o.plot_attention ? o.plot_attention : "", PLOT_INSTALL_HINT);
    }

    gat_order order = GAT_ORDER_AUTO;
    if (o.order && gat_order_from_name(o.order, &order) != GAT_OK)
        return usage_error("--order: %s", gat_last_error());
    gat_model *m = NULL;
    gat_gps *gm = NULL; /* a graph transformer's file (gat-train --arch) instead */
    gat_model_meta meta;
    gat_dataset ds;
    gat_real *emb = NULL;
    double *xy = NULL;
    gat_idx *pred = NULL;
    tool_pe pe = {0};
    gat_csr raw = {0}; /* the features as loaded, while ds.x holds them standardised */
    memset(&ds, 0, sizeof ds);
    catch_signals();
    int gps = 0;
    if (gat_model_file_is_gps(o.model, &gps) != GAT_OK ||
        (gps ? gat_gps_load(&gm, &meta, o.model) : gat_model_load(&m, &meta, o.model)) != GAT_OK)
        return fail("cannot load the model");
    /* a graph transformer writes its logits, probabilities and predictions */
    const char *not_gps = o.attention        ? "--attention-out"
                          : o.plot           ? "--plot"
                          : o.plot_attention ? "--plot-attention"
                          : o.partitions     ? "--partitions"
                          : o.order          ? "--order"
                          : o.layer && strcmp(o.layer, "logits") && strcmp(o.layer, "probs")
                              ? "--layer (logits or probs only)"
                              : NULL;
    if (gps && not_gps) {
        rc = usage_error("model %s is a graph transformer (gat-train --arch %s): %s does not "
                         "apply (it writes --out with --layer logits or probs, and --predict)",
                         o.model, gat_gps_kind_name(gat_gps_get_config(gm)->kind), not_gps);
        goto done;
    }
    const gat_model_config *cfg = gps ? NULL : gat_model_get_config(m);
    const gat_idx in_features = gps ? gat_gps_get_config(gm)->in_features : cfg->in_features;
    rc = 0;
    if (gps) {
        gat_gps_set_threads(gm, o.threads);
    } else {
        gat_model_options mo = cfg->options;
        cli_model_env(&mo);
        if (gat_model_set_options(m, &mo) != GAT_OK) {
            rc = fail("cannot run the model");
            goto done;
        }
        if ((o.out || o.plot) && (rc = parse_layer(o.layer, gat_model_layer_count(m), &layer)) != 0)
            goto done;
        gat_model_set_threads(m, o.threads);
        gat_model_set_order(m, order);
    }
    if (o.partitions && meta.n_standardized > 0) {
        fprintf(stderr,
                "gat-embed: model %s was trained on standardised features (gat-train "
                "--standardize), which --partitions does not repeat on the parts: embed "
                "it on the whole dataset\n",
                o.model);
        rc = 1;
        goto done;
    }
    if (o.partitions && meta.pe && *meta.pe) {
        fprintf(stderr, "gat-embed: model %s was trained with encodings (pe %s), which "
                        "--partitions cannot compute on the parts: embed it on the whole dataset\n",
                o.model, meta.pe);
        rc = 1;
        goto done;
    }
    if (o.partitions) {
#if GAT_HAVE_MPI
        rc = embed_partitions(&o, m, &meta, layer, fmt, flags);
#else
        fprintf(stderr, "gat-embed: --partitions: this build has no MPI (install libopenmpi-dev "
                        "and rebuild: meson -Dmpi=enabled)\n");
        rc = 2;
#endif
        goto done;
    }

    /* no split is needed: ignore split files and draw an empty random split */
    gat_dataset_options dopt;
    gat_dataset_options_default(&dopt);
    /* as trained: normalised training features were non-negative, so signed ones here are an
     * error (AUTO then checked, for a message that names the model) */
    dopt.normalize = o.normalize      ? GAT_NORMALIZE_ON
                     : o.no_normalize ? GAT_NORMALIZE_OFF
                     : meta.normalize ? GAT_NORMALIZE_AUTO
                                      : GAT_NORMALIZE_OFF;
    dopt.symmetrize = o.undirected ? 1 : o.directed ? 0 : meta.symmetrize;
    o.data.direction = o.undirected ? "--undirected" : o.directed ? "--directed" : NULL;
    dopt.tu_features = meta.tu_features; /* as trained; --tu-features overrides */
    dopt.ignore_split_file = 1;
    dopt.train_per_class = dopt.n_val = dopt.n_test = 0;
    const char *name;
    if (!o.data.dataset && !o.data.graph && !meta.dataset) {
        rc = usage_error("model %s records no dataset (trained on --graph or --partitions): give "
                         "--dataset or --graph",
                         o.model);
        goto done;
    }
    /* the nodes the model was trained on, as trained (a graph without labels has no classes
     * to keep); --largest-component and --min-class-nodes override, --all-nodes drops them */
    if (!o.all_nodes && !o.data.largest_component)
        o.data.largest_component = meta.largest_component;
    if (o.data.min_class_nodes < 0)
        o.data.min_class_nodes =
            o.all_nodes || (o.data.graph && !o.data.labels && !o.data.label_attribute)
                ? 0
                : meta.min_class_nodes;
    char recorded[4096];
    const char *model_dataset =
        cli_dataset_recorded(meta.dataset, o.model, recorded, sizeof recorded);
    if ((rc = cli_load_dataset("gat-embed", &o.data, model_dataset, 0, &dopt, &ds, &name)) != 0)
        goto done;
    cli_dataset_notes("gat-embed", &o.data, &ds, o.quiet);
    if (dopt.normalize == GAT_NORMALIZE_AUTO && !ds.normalized) {
        fprintf(stderr, "gat-embed: model %s was trained on row-normalised features, but dataset %s "
                        "has a negative feature (node '%s', column %d, %g) and signed features "
                        "are not row-normalised (--no-normalize to use them as they are)\n",
                o.model, name, ds.node_ids[ds.negative_node], ds.negative_column,
                (double)ds.negative_value);
        rc = 1;
        goto done;
    }
    /* the encodings the model was trained with, computed again (with their fixed signs) */
    if ((rc = tool_pe_parse("gat-embed", meta.pe, &pe)) != 0) {
        rc = 1;
        goto done;
    }
    if (pe.on && ds.n_features + pe.spec.lap_k + pe.spec.rw_k != in_features) {
        fprintf(stderr,
                "gat-embed: dataset %s has %d features per node; with the %d encoding "
                "columns of model %s (pe %s) that makes %d, the model expects %d\n",
                name, ds.n_features, pe.spec.lap_k + pe.spec.rw_k, o.model, pe.text,
                ds.n_features + pe.spec.lap_k + pe.spec.rw_k, in_features);
        rc = 1;
        goto done;
    }
    if ((rc = tool_pe_build("gat-embed", &pe, &ds, o.threads, o.quiet)) != 0) goto done;
    if (!o.quiet && ds.n_edge_features > 0 && (gps || cfg->edge_dim == 0))
        fprintf(stderr, "gat-embed: %s has %d edge feature column%s: read, not used (model %s "
                        "was trained without edge features)\n",
                name, ds.n_edge_features, ds.n_edge_features == 1 ? "" : "s", o.model);
    if (ds.n_features != in_features) {
        fprintf(stderr,
                "gat-embed: dataset %s has %d features per node but model %s expects %d%s\n", name,
                ds.n_features, o.model, in_features,
                o.data.graph && !o.data.features
                    ? " (one-hot: --graph without --features; give the training --features FILE)"
                    : "");
        rc = 1;
        goto done;
    }
    /* the training features' standardisation (gat-train --standardize), repeated */
    if (meta.n_standardized > 0 &&
        (rc = cli_standardize_features("gat-embed", &ds, &raw, meta.n_standardized,
                                       meta.feature_shift, meta.feature_scale)) != 0)
        goto done;
    const int gps_probs = o.layer && !strcmp(o.layer, "probs");
    if (gps && gat_gps_get_config(gm)->task == GAT_TASK_GRAPH) {
        rc = embed_gps(gm, &meta, &ds, name, o.out, fmt, gps_probs, o.predict, flags, o.quiet,
                       write_window);
        goto done;
    }
    if (!gps && cfg->task == GAT_TASK_GRAPH) { /* per-graph outputs */
        if (o.plot || o.plot_attention || o.layer) {
            rc = usage_error("%s does not apply to a graph model (it writes --out, "
                             "--attention-out, --predict)",
                             o.plot ? "--plot" : o.plot_attention ? "--plot-attention" : "--layer");
            goto done;
        }
        rc = embed_graphs(m, &meta, &ds, name, o.out, fmt, o.attention, o.predict, flags, o.quiet,
                          write_window);
        goto done;
    }
    /* the file records no fingerprint of its data: its class names are what tells another
     * dataset apart (a dataset without labels has none to compare) */
    if (meta.n_classes > 0 && ds.n_classes > 0) {
        const gat_idx n = meta.n_classes < ds.n_classes ? meta.n_classes : ds.n_classes;
        gat_idx c = 0, k = 0;
        while (c < n && !strcmp(meta.class_names[c], ds.class_names[c]))
            c++;
        /* the model's classes, in order, among more of the dataset's: some were removed for
         * training (gat-train --min-class-nodes) */
        for (gat_idx d = 0; d < ds.n_classes && k < meta.n_classes; d++)
            k += !strcmp(meta.class_names[k], ds.class_names[d]);
        if (meta.n_classes < ds.n_classes && k == meta.n_classes) {
            if (!o.quiet)
                fprintf(stderr,
                        "gat-embed: model %s predicts %d of the %d classes of dataset %s (it was "
                        "trained without the others, as --min-class-nodes leaves them out)\n",
                        o.model, (int)meta.n_classes, (int)ds.n_classes, name);
        } else if (c < n)
            fprintf(stderr,
                    "gat-embed: dataset %s may not be the one model %s was trained on%s%s%s: "
                    "its class %d is '%s', the model's '%s'\n",
                    name, o.model, meta.dataset ? " (" : "", meta.dataset ? meta.dataset : "",
                    meta.dataset ? ")" : "", (int)c, ds.class_names[c], meta.class_names[c]);
        else if (meta.n_classes != ds.n_classes)
            fprintf(stderr,
                    "gat-embed: dataset %s may not be the one model %s was trained on%s%s%s: "
                    "it has %d classes, the model %d\n",
                    name, o.model, meta.dataset ? " (" : "", meta.dataset ? meta.dataset : "",
                    meta.dataset ? ")" : "", (int)ds.n_classes, (int)meta.n_classes);
    }
    if (gps) {
        rc = embed_gps(gm, &meta, &ds, name, o.out, fmt, gps_probs, o.predict, flags, o.quiet,
                       write_window);
        goto done;
    }
    /* every call below runs on this binding: for embeddings and predictions alone an inference
     * binding (layer-wise inference, no per-edge array of the graph's size; attention exports
     * need the ordinary one), with the dataset's edge features when the model has an edge term */
    if (cfg->edge_dim > 0 && ds.n_edge_features != cfg->edge_dim) {
        fprintf(stderr, "gat-embed: model %s was trained with edge_dim %d but dataset %s has "
                        "%d edge feature columns\n",
                o.model, cfg->edge_dim, name, ds.n_edge_features);
        rc = 1;
        goto done;
    }
    const unsigned bind_flags = !o.attention && !o.plot_attention ? GAT_BIND_INFERENCE : 0u;
    if ((bind_flags || cfg->edge_dim > 0) &&
        (gat_model_bind(m, &ds.graph, &ds.x, bind_flags) != GAT_OK ||
         (cfg->edge_dim > 0 &&
          gat_model_bind_edge_features(m, ds.edge_x, ds.n_edge_features) != GAT_OK))) {
        rc = fail("cannot bind the dataset");
        goto done;
    }
    const char *const *ids = ds.node_ids;

    if (o.out || (o.plot && draw)) {
        const gat_idx w = gat_model_embed_width(m, layer);
        char lname[32], ids_path[4096] = "";
        if (!(emb = malloc(((size_t)ds.n * (size_t)w + 1) * sizeof *emb))) {
            fprintf(stderr, "gat-embed: out of memory for a %d x %d embedding\n", ds.n, w);
            rc = 1;
            goto done;
        }
        if (gat_model_embed(m, &ds.graph, &ds.x, layer, emb) != GAT_OK) {
            rc = fail("inference failed");
            goto done;
        }
        if (o.out) {
            write_window(1);
            const gat_status st = gat_matrix_save(o.out, fmt, ds.n, w, emb, ids, flags);
            const int sig = write_window(0);
            if (st != GAT_OK) rc = fail("cannot write the embeddings");
            if (sig) rc = 128 + sig;
            if (!rc && fmt == GAT_FORMAT_NPY)
                rc = embed_npy_ids(o.out, ds.n, ids, write_window, ids_path, sizeof ids_path);
            if (rc) goto done;
        }
        if (o.out && !o.quiet)
            printf("wrote %s: %d x %d (%s, %s)%s%s\n", o.out, ds.n, w,
                   layer_name(layer, lname, sizeof lname), gat_file_format_name(fmt),
                   ids_path[0] ? "; row ids in " : "", ids_path);
        if (o.plot && draw) {
            double var[2];
            if (!(xy = malloc(2 * (size_t)ds.n * sizeof *xy))) {
                fprintf(stderr, "gat-embed: out of memory for the projection of %d nodes\n",
                        ds.n);
                rc = 1;
                goto done;
            }
            if (gat_pca_2d(emb, ds.n, w, xy, var) != GAT_OK) {
                rc = fail("cannot project the embeddings");
                goto done;
            }
            /* the dataset's classes; a graph without labels gets the model's predictions */
            colouring k = {ds.n, ds.n_classes, ds.labels, ds.class_names, ""};
            int labelled = 0;
            for (gat_idx i = 0; ds.labels && i < ds.n && !labelled; i++) labelled = ds.labels[i] >= 0;
            if (!labelled) {
                if (!(pred = malloc(((size_t)ds.n + 1) * sizeof *pred))) {
                    fprintf(stderr, "gat-embed: out of memory for the predictions of %d nodes\n",
                            ds.n);
                    rc = 1;
                    goto done;
                }
                if (gat_model_predict(m, &ds.graph, &ds.x, pred, NULL) != GAT_OK) {
                    rc = fail("inference failed");
                    goto done;
                }
                k = (colouring){ds.n, cfg->classes, pred,
                                meta.n_classes == cfg->classes ? meta.class_names : NULL,
                                "; colour: predicted class"};
            }
            if ((rc = plot_embedding(o.plot, plot_fmt, plot_w, plot_h, &k, xy, var,
                                     layer_name(layer, lname, sizeof lname), w, name)) != 0)
                goto done;
            if (!o.quiet) printf("wrote %s: %dx%d\n", o.plot, plot_w, plot_h);
        }
    }
    if (o.plot_attention && draw) {
        if ((rc = plot_attention(o.plot_attention, att_fmt, plot_w, plot_h, m, &ds, name)) != 0)
            goto done;
        if (!o.quiet) printf("wrote %s: %dx%d\n", o.plot_attention, plot_w, plot_h);
    }
    if (o.attention) {
        write_window(1);
        const gat_status st =
            gat_attention_save_edges(o.attention, m, &ds.graph, &ds.x, ids, ds.edge_input, flags);
        const int sig = write_window(0);
        if (st != GAT_OK) rc = fail("cannot write the attention coefficients");
        if (sig) rc = 128 + sig;
        if (rc) goto done;
        if (!o.quiet)
            printf("wrote %s: attention of %d edges (self-loops included), %d layers\n",
                   o.attention, ds.graph.nnz, gat_model_layer_count(m));
    }
    if (o.predict) {
        /* class names from the model: the dataset may be another graph with other labels */
        const char *const *classes = meta.class_names;
        write_window(1);
        const gat_status st =
            gat_predictions_save(o.predict, m, &ds.graph, &ds.x, ids, classes, flags);
        const int sig = write_window(0);
        if (st != GAT_OK) rc = fail("cannot write the predictions");
        if (sig) rc = 128 + sig;
        if (rc) goto done;
        if (!o.quiet) printf("wrote %s: predictions of %d nodes\n", o.predict, ds.n);
    }

    if ((o.plot || o.plot_attention) && !draw) rc = 1; /* said at the start */

done:
    free(emb);
    free(xy);
    free(pred);
    cli_restore_features(&ds, &raw);
    tool_pe_destroy(&pe);
    gat_dataset_destroy(&ds);
    gat_model_meta_destroy(&meta);
    gat_model_free(m);
    gat_gps_free(gm);
    return rc;
}
