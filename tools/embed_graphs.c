/* gat-embed on a graph model: per-graph readouts (embeddings), the attention readout's weights
 * per node and per-graph predictions, through gat_graph_embed (gat/readout.h); and on a graph
 * transformer (gat/gps.h): its logits or probabilities and predictions per node or per graph.
 * Printing only. */
#include "embed_graphs.h"
#include "cli.h"

#include <errno.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int fail(const char *what)
{
    fprintf(stderr, "gat-embed: %s: %s\n", what, gat_last_error());
    return 1;
}

/* Each graph's predicted class, its probability and its label to path (TSV), written under a
 * temporary name and renamed over it. */
static int write_predictions(const char *path, const gat_dataset *ds, const gat_model_meta *meta,
                             const gat_idx *pred, const gat_real *prob, unsigned flags)
{
    cli_afile a;
    if (cli_afile_open("gat-embed", &a, path) != 0) return 1;
    FILE *f = a.f;
    int err = 0;
    if (!(flags & GAT_WRITE_NO_HEADER)) fprintf(f, "graph\tclass\tprobability\tlabel\n");
    for (gat_idx g = 0; g < ds->n_graphs; g++) {
        const gat_idx y = ds->graph_labels ? ds->graph_labels[g] : -1;
        int n;
        if (meta->n_classes > 0)
            n = fprintf(f, "%d\t%s\t%.6g\t%s\n", g, meta->class_names[pred[g]], (double)prob[g],
                        y >= 0 && y < meta->n_classes ? meta->class_names[y] : "");
        else
            n = fprintf(f, "%d\t%d\t%.6g\t%d\n", g, pred[g], (double)prob[g], y);
        if (n < 0) {
            err = errno ? errno : EIO;
            break;
        }
    }
    return cli_afile_commit("gat-embed", &a, err);
}

/* A write bracketed by window (see embed_graphs.h): 128 + the signal received during it, else
 * rc. */
static int windowed(int (*window)(int), int rc)
{
    const int sig = window(0);
    return sig ? 128 + sig : rc;
}

int embed_npy_ids(const char *out, gat_idx n, const char *const *ids, int (*window)(int),
                  char *ids_path, size_t cap)
{
    struct stat sb;
    ids_path[0] = '\0';
    if (stat(out, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    size_t stem = strlen(out);
    if (stem > 4 && !strcasecmp(out + stem - 4, ".npy")) stem -= 4;
    if (snprintf(ids_path, cap, "%.*s.ids.txt", (int)stem, out) >= (int)cap) {
        fprintf(stderr, "gat-embed: cannot name the ids file of %s: path too long\n", out);
        ids_path[0] = '\0';
        return 1;
    }
    window(1);
    const gat_status st = gat_ids_save(ids_path, n, ids);
    const int sig = window(0);
    if (sig) return 128 + sig;
    if (st != GAT_OK) {
        fprintf(stderr, "gat-embed: cannot write the row ids of %s: %s\n", out, gat_last_error());
        return 1;
    }
    return 0;
}

int embed_graphs(gat_model *m, const gat_model_meta *meta, const gat_dataset *ds, const char *name,
                 const char *out, gat_file_format fmt, const char *attention, const char *predict,
                 unsigned flags, int quiet, int (*window)(int))
{
    const gat_model_config *c = gat_model_get_config(m);
    const gat_idx G = ds->n_graphs, K = c->readout_heads > 0 ? c->readout_heads : 1;
    const gat_idx R = c->readout == GAT_READOUT_ATTENTION ? K * c->classes : c->classes;
    if (G < 1) {
        fprintf(stderr, "gat-embed: model is a graph model but dataset %s is one graph\n", name);
        return 1;
    }
    if (attention && c->readout != GAT_READOUT_ATTENTION) {
        fprintf(stderr, "gat-embed: --attention-out: the model's readout is %s, not attention\n",
                gat_readout_name(c->readout));
        return 1;
    }
    gat_real *pooled = out ? malloc((size_t)G * R * sizeof *pooled) : NULL;
    gat_real *att = attention ? malloc((size_t)ds->n * K * sizeof *att) : NULL;
    gat_idx *pred = malloc((size_t)G * sizeof *pred);
    gat_real *prob = malloc((size_t)G * sizeof *prob);
    char **ids = malloc((size_t)G * sizeof *ids);
    int rc = 0;
    if ((out && !pooled) || (attention && !att) || !pred || !prob || !ids) {
        fprintf(stderr, "gat-embed: out of memory for %d graphs\n", G);
        rc = 1;
        goto done;
    }
    for (gat_idx g = 0; g < G; g++)
        if ((ids[g] = malloc(16))) snprintf(ids[g], 16, "%d", g);
    if (gat_graph_embed(m, ds, 128, pooled, att, pred, prob) != GAT_OK) {
        rc = fail("inference failed");
        goto done;
    }
    if (out) {
        window(1);
        if (gat_matrix_save(out, fmt, G, R, pooled, (const char *const *)ids, flags) != GAT_OK)
            rc = fail("cannot write the graph embeddings");
        if ((rc = windowed(window, rc)) != 0) goto done;
        char ids_path[4096] = "";
        if (fmt == GAT_FORMAT_NPY && (rc = embed_npy_ids(out, G, (const char *const *)ids, window,
                                                         ids_path, sizeof ids_path)) != 0)
            goto done;
        if (!quiet)
            printf("wrote %s: %d x %d (readout %s)%s%s\n", out, G, R, gat_readout_name(c->readout),
                   ids_path[0] ? "; row ids in " : "", ids_path);
    }
    if (attention) {
        window(1);
        if (gat_matrix_save(attention, GAT_FORMAT_TSV, ds->n, K, att, ds->node_ids, flags) !=
            GAT_OK)
            rc = fail("cannot write the readout attention");
        if ((rc = windowed(window, rc)) != 0) goto done;
        if (!quiet) printf("wrote %s: readout attention of %d nodes, %d heads\n", attention, ds->n, K);
    }
    if (predict) {
        window(1);
        rc = write_predictions(predict, ds, meta, pred, prob, flags);
        if ((rc = windowed(window, rc)) != 0) goto done;
        if (!quiet) printf("wrote %s: predictions of %d graphs\n", predict, G);
    }
done:
    for (gat_idx g = 0; ids && g < G; g++)
        free(ids[g]);
    free(ids);
    free(pooled), free(att), free(pred), free(prob);
    return rc;
}

int embed_gps(gat_gps *m, const gat_model_meta *meta, const gat_dataset *ds, const char *name,
              const char *out, gat_file_format fmt, int probs, const char *predict, unsigned flags,
              int quiet, int (*window)(int))
{
    const gat_gps_config *c = gat_gps_get_config(m);
    const int graph = c->task == GAT_TASK_GRAPH;
    const gat_idx C = c->classes, one[2] = {0, ds->n};
    if (graph && ds->n_graphs < 1) {
        fprintf(stderr, "gat-embed: model is a graph model but dataset %s is one graph\n", name);
        return 1;
    }
    const gat_idx n_seg = ds->n_graphs > 0 ? ds->n_graphs : 1;
    const gat_idx rows = graph ? ds->n_graphs : ds->n;
    const gat_real *y;
    if (gat_gps_forward(m, &ds->graph, &ds->x, n_seg, ds->n_graphs > 0 ? ds->graph_ptr : one, 0,
                        &y) != GAT_OK)
        return fail("inference failed");
    gat_real *p = malloc(((size_t)rows * C + 1) * sizeof *p),
             *prob = malloc(((size_t)rows + 1) * sizeof *prob);
    gat_idx *pred = malloc(((size_t)rows + 1) * sizeof *pred);
    char **ids = graph ? calloc((size_t)rows + 1, sizeof *ids) : NULL;
    int rc = 0;
    if (!p || !prob || !pred || (graph && !ids)) {
        fprintf(stderr, "gat-embed: out of memory for %d rows\n", rows);
        rc = 1;
        goto done;
    }
    /* per row: the softmax (stable), the first class of the largest logit */
    for (gat_idx r = 0; r < rows; r++) {
        const gat_real *yr = y + (size_t)r * C;
        gat_real *pr = p + (size_t)r * C;
        gat_idx best = 0;
        for (gat_idx k = 1; k < C; k++)
            if (yr[k] > yr[best]) best = k;
        double sum = 0;
        for (gat_idx k = 0; k < C; k++)
            sum += exp((double)yr[k] - (double)yr[best]);
        for (gat_idx k = 0; k < C; k++)
            pr[k] = probs ? (gat_real)(exp((double)yr[k] - (double)yr[best]) / sum) : yr[k];
        pred[r] = best;
        prob[r] = (gat_real)(1 / sum);
    }
    for (gat_idx g = 0; graph && g < rows; g++)
        if (!(ids[g] = malloc(16))) {
            fprintf(stderr, "gat-embed: out of memory for %d rows\n", rows);
            rc = 1;
            goto done;
        } else {
            snprintf(ids[g], 16, "%d", g);
        }
    const char *const *row_ids = graph ? (const char *const *)ids : ds->node_ids;
    if (out) {
        window(1);
        if (gat_matrix_save(out, fmt, rows, C, p, row_ids, flags) != GAT_OK)
            rc = fail("cannot write the outputs");
        if ((rc = windowed(window, rc)) != 0) goto done;
        char ids_path[4096] = "";
        if (fmt == GAT_FORMAT_NPY &&
            (rc = embed_npy_ids(out, rows, row_ids, window, ids_path, sizeof ids_path)) != 0)
            goto done;
        if (!quiet)
            printf("wrote %s: %d x %d (%s of %s)%s%s\n", out, rows, C, probs ? "probs" : "logits",
                   graph ? "the graphs" : "the nodes", ids_path[0] ? "; row ids in " : "",
                   ids_path);
    }
    if (predict) {
        window(1);
        if (graph)
            rc = write_predictions(predict, ds, meta, pred, prob, flags);
        else if (gat_predictions_write(predict, rows, C, pred, prob, row_ids,
                                       meta->n_classes == C ? meta->class_names : NULL,
                                       flags) != GAT_OK)
            rc = fail("cannot write the predictions");
        if ((rc = windowed(window, rc)) != 0) goto done;
        if (!quiet)
            printf("wrote %s: predictions of %d %s\n", predict, rows, graph ? "graphs" : "nodes");
    }
done:
    for (gat_idx g = 0; ids && g < rows; g++)
        free(ids[g]);
    free(ids);
    free(p), free(prob), free(pred);
    return rc;
}
