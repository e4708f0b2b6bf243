/* gat-embed: runs a model saved by gat-train --save on a dataset or graph file (the training
 * graph or another one with the same features) and exports node embeddings, attention
 * coefficients and predictions. Option parsing and printing only; libgat computes and writes. */
#include "cli.h"

#include "gat/gat.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
    cli_data data;
    const char *model, *out, *format, *layer, *attention, *predict, *order;
    int no_header, normalize, no_normalize, directed, undirected, threads, quiet;
} options;

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

int main(int argc, char **argv)
{
    options o = {.threads = 0};
    const cli_option opts[] = {
        {"model", CLI_STRING, &o.model, 0, 0, "FILE",
         "model file written by gat-train --save (required)"},
        {"dataset", CLI_STRING, &o.data.dataset, 0, 0, "NAME|PATH",
         "bundled dataset or path (default: the model's)"},
        CLI_GRAPH_OPTIONS(o.data),
        {"out", CLI_STRING, &o.out, 0, 0, "FILE", "write one embedding row per node to FILE"},
        {"format", CLI_STRING, &o.format, 0, 0, "FMT",
         "npy, tsv, csv or word2vec (default: from --out's extension)"},
        {"layer", CLI_STRING, &o.layer, 0, 0, "L",
         "hidden layer 0..L-2, logits or probs (default: last hidden)"},
        {"attention", CLI_STRING, &o.attention, 0, 0, "FILE",
         "write 'layer head dst src alpha' per edge (TSV)"},
        {"predict", CLI_STRING, &o.predict, 0, 0, "FILE",
         "write 'id class probability' per node (TSV)"},
        {"no-header", CLI_FLAG, &o.no_header, 0, 0, NULL,
         "omit the header line of TSV/CSV outputs"},
        {"normalize", CLI_FLAG, &o.normalize, 0, 0, NULL,
         "row-normalise the features; an error if one is negative (default: as trained)"},
        {"no-normalize", CLI_FLAG, &o.no_normalize, 0, 0, NULL,
         "do not row-normalise the features"},
        {"directed", CLI_FLAG, &o.directed, 0, 0, NULL,
         "keep edges directed (default: as trained)"},
        {"undirected", CLI_FLAG, &o.undirected, 0, 0, NULL,
         "make edges undirected (default: as trained)"},
        {"threads", CLI_INT, &o.threads, 0, 1024, "T", "kernel threads, 0 = all cores (default 0)"},
        {"order", CLI_STRING, &o.order, 0, 0, "NAME", "node order for locality: auto (rcm from 2M edges), none, rcm or degree (default auto); outputs stay in the input's order"},
        {"quiet", CLI_FLAG, &o.quiet, 0, 0, NULL, "print nothing on success"},
        {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    const char *synopsis = "--model FILE [--dataset NAME|PATH | --graph FILE] [--out FILE] "
                           "[--attention FILE] [--predict FILE] [options]";
    int exit_now, rc, layer = GAT_LAYER_LOGITS;
    gat_file_format fmt = GAT_FORMAT_AUTO;

    if ((rc = cli_parse(argc, argv, opts, "gat-embed", synopsis, &exit_now)) || exit_now) return rc;
    const unsigned flags = o.no_header ? GAT_WRITE_NO_HEADER : 0;
    if (!o.model) return usage_error("--model is required");
    if (!o.out && !o.attention && !o.predict)
        return usage_error("nothing to do: give --out, --attention or --predict");
    if (o.normalize && o.no_normalize)
        return usage_error("--normalize and --no-normalize conflict");
    if (o.directed && o.undirected) return usage_error("--directed and --undirected conflict");
    if ((o.format || o.layer) && !o.out) return usage_error("--format and --layer need --out");
    if (o.out && (o.format ? gat_file_format_from_name(o.format, &fmt)
                           : gat_file_format_from_path(o.out, &fmt)) != GAT_OK)
        return usage_error("%s", gat_last_error());

    gat_order order = GAT_ORDER_AUTO;
    if (o.order && gat_order_from_name(o.order, &order) != GAT_OK)
        return usage_error("--order: %s", gat_last_error());
    gat_model *m = NULL;
    gat_model_meta meta;
    gat_dataset ds;
    gat_real *emb = NULL;
    memset(&ds, 0, sizeof ds);
    if (gat_model_load(&m, &meta, o.model) != GAT_OK) return fail("cannot load the model");
    const gat_model_config *cfg = gat_model_get_config(m);
    rc = 0;
    if (o.out && (rc = parse_layer(o.layer, gat_model_layer_count(m), &layer)) != 0) goto done;
    gat_model_set_threads(m, o.threads);
    gat_model_set_order(m, order);

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
    dopt.ignore_split_file = 1;
    dopt.train_per_class = dopt.n_val = dopt.n_test = 0;
    const char *name;
    if ((rc = cli_load_dataset("gat-embed", &o.data, meta.dataset, 0, &dopt, &ds, &name)) != 0)
        goto done;
    if (dopt.normalize == GAT_NORMALIZE_AUTO && !ds.normalized) {
        fprintf(stderr, "gat-embed: model %s was trained on row-normalised features, but dataset %s "
                        "has a negative feature (node '%s', column %d, %g) and signed features "
                        "are not row-normalised (--no-normalize to use them as they are)\n",
                o.model, name, ds.node_ids[ds.negative_node], ds.negative_column,
                (double)ds.negative_value);
        rc = 1;
        goto done;
    }
    if (ds.n_features != cfg->in_features) {
        fprintf(stderr, "gat-embed: dataset %s has %d features per node but model %s expects %d\n",
                name, ds.n_features, o.model, cfg->in_features);
        rc = 1;
        goto done;
    }
    const char *const *ids = ds.node_ids;

    if (o.out) {
        const gat_idx w = gat_model_embed_width(m, layer);
        char lname[32];
        if (!(emb = malloc(((size_t)ds.n * (size_t)w + 1) * sizeof *emb))) {
            fprintf(stderr, "gat-embed: out of memory for a %d x %d embedding\n", ds.n, w);
            rc = 1;
            goto done;
        }
        if (gat_model_embed(m, &ds.graph, &ds.x, layer, emb) != GAT_OK) {
            rc = fail("inference failed");
            goto done;
        }
        if (gat_matrix_save(o.out, fmt, ds.n, w, emb, ids, flags) != GAT_OK) {
            rc = fail("cannot write the embeddings");
            goto done;
        }
        if (!o.quiet)
            printf("wrote %s: %d x %d (%s, %s)\n", o.out, ds.n, w,
                   layer_name(layer, lname, sizeof lname), gat_file_format_name(fmt));
    }
    if (o.attention) {
        if (gat_attention_save(o.attention, m, &ds.graph, &ds.x, ids, flags) != GAT_OK) {
            rc = fail("cannot write the attention coefficients");
            goto done;
        }
        if (!o.quiet)
            printf("wrote %s: attention of %d edges (self-loops included), %d layers\n",
                   o.attention, ds.graph.nnz, gat_model_layer_count(m));
    }
    if (o.predict) {
        /* class names from the model: the dataset may be another graph with other labels */
        const char *const *classes = meta.class_names;
        if (gat_predictions_save(o.predict, m, &ds.graph, &ds.x, ids, classes, flags) != GAT_OK) {
            rc = fail("cannot write the predictions");
            goto done;
        }
        if (!o.quiet) printf("wrote %s: predictions of %d nodes\n", o.predict, ds.n);
    }

done:
    free(emb);
    gat_dataset_destroy(&ds);
    gat_model_meta_destroy(&meta);
    gat_model_free(m);
    return rc;
}
