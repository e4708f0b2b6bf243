/* Datasets assembled from parts in memory (gat_dataset_from_parts), where the graph-file and
 * igraph readers end too: the parts are checked, copied, split and normalised. */
#include "data/data_i.h"
#include "core/core.h"
#include "core/strmap.h"
#include "graph/graph_i.h"
#include "matrix_i.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* names (count; NULL: none given) are non-NULL and distinct (what: the field, for messages). */
static gat_status distinct_names(const char *const *names, gat_idx count, const char *what,
                                 const char *fn)
{
    gat_i_strmap map = {0};
    gat_status st = GAT_OK;
    if (!names) return GAT_OK;
    if (gat_i_strmap_init(&map, (size_t)count) != GAT_OK) return GAT_ENOMEM;
    for (gat_idx i = 0; i < count && st == GAT_OK; i++) {
        gat_idx *slot;
        if (!names[i]) {
            st = gat_i_error(GAT_EINVAL, "%s: %s[%d] is NULL", fn, what, i);
            break;
        }
        /* the map only reads the names it is given */
        slot = gat_i_strmap_slot(&map, (char *const *)names, names[i]);
        if (*slot >= 0)
            st = gat_i_error(GAT_EINVAL, "%s: %s[%d] = '%s' repeats %s[%d]", fn, what, i, names[i],
                             what, *slot);
        *slot = i;
    }
    gat_i_strmap_free(&map);
    return st;
}

/* Checks labels, split and names of p against n nodes. */
static gat_status check_parts(const gat_dataset_parts *p, gat_idx n, const char *fn)
{
    static const char *const split_name[] = {"none", "train", "val", "test"};
    gat_status st = GAT_OK;

    if (p->n_classes < 0)
        return gat_i_error(GAT_EINVAL, "%s: negative class count %d", fn, p->n_classes);
    if (p->n_labels < 0 || (p->n_labels > 0 && !p->label_matrix) ||
        (p->n_labels > 0 && (p->labels || p->n_classes > 0)))
        return gat_i_error(GAT_EINVAL,
                           "%s: n_labels = %d with label_matrix %s, labels %s and n_classes %d "
                           "(multi-label parts have a label_matrix, no labels and no classes)",
                           fn, p->n_labels, p->label_matrix ? "given" : "NULL",
                           p->labels ? "given" : "NULL", p->n_classes);
    for (size_t k = 0; k < (size_t)n * (size_t)p->n_labels; k++)
        if (p->label_matrix[k] > 1)
            return gat_i_error(GAT_EINVAL, "%s: label_matrix of node %zu, label %zu is %d, expected "
                               "0 or 1", fn, k / (size_t)p->n_labels, k % (size_t)p->n_labels,
                               p->label_matrix[k]);
    for (gat_idx i = 0; p->labels && i < n; i++)
        if (p->labels[i] < -1 || p->labels[i] >= p->n_classes)
            return gat_i_error(GAT_EINVAL, "%s: node %d has label %d outside [-1, %d)", fn, i,
                               p->labels[i], p->n_classes);
    for (gat_idx i = 0; p->split && i < n; i++) {
        if (p->split[i] > GAT_SPLIT_TEST)
            return gat_i_error(GAT_EINVAL,
                               "%s: node %d has split value %d, expected 0..3 "
                               "(GAT_SPLIT_*)",
                               fn, i, p->split[i]);
        if (p->split[i] != GAT_SPLIT_NONE && p->n_labels == 0 && (!p->labels || p->labels[i] < 0))
            return gat_i_error(GAT_EINVAL, "%s: node %d is in the %s split but has no label", fn, i,
                               split_name[p->split[i]]);
    }
    const gat_idx E = p->graph->nnz, D = p->n_edge_features;
    if (D < 0 || (D > 0 && !p->edge_features))
        return gat_i_error(GAT_EINVAL, "%s: n_edge_features = %d with edge_features %s", fn, D,
                           p->edge_features ? "given" : "NULL");
    for (gat_idx e = 0; e < E; e++) {
        for (gat_idx d = 0; d < D; d++)
            if (!isfinite(p->edge_features[(size_t)e * (size_t)D + (size_t)d]))
                return gat_i_error(GAT_ENUMERIC, "%s: edge_features of edge %d, column %d is %g",
                                   fn, e, d,
                                   (double)p->edge_features[(size_t)e * (size_t)D + (size_t)d]);
        if (p->edge_input && p->edge_input[e] < -1)
            return gat_i_error(GAT_EINVAL, "%s: edge_input[%d] = %d, expected >= -1", fn, e,
                               p->edge_input[e]);
    }
    if ((st = distinct_names(p->class_names, p->n_classes, "class_names", fn)) != GAT_OK)
        return st;
    return distinct_names(p->node_ids, n, "node_ids", fn);
}

/* Checks the graph segments of p (n_graphs > 0) against its graph of n nodes. */
static gat_status check_graphs(const gat_dataset_parts *p, gat_idx n, const char *fn)
{
    const gat_idx G = p->n_graphs, *ptr = p->graph_ptr;
    const gat_graph *g = p->graph;
    if (G < 0) return gat_i_error(GAT_EINVAL, "%s: negative graph count %d", fn, G);
    if (p->n_graph_classes < 0 || (p->n_graph_classes > 0 && !p->graph_labels))
        return gat_i_error(GAT_EINVAL, "%s: n_graph_classes = %d with graph_labels %s", fn,
                           p->n_graph_classes, p->graph_labels ? "given" : "NULL");
    if (G == 0) return GAT_OK;
    if (!ptr) return gat_i_error(GAT_EINVAL, "%s: n_graphs = %d with a NULL graph_ptr", fn, G);
    if (ptr[0] != 0 || ptr[G] != n)
        return gat_i_error(GAT_EINVAL,
                           "%s: graph_ptr runs from %d to %d, expected from 0 to %d (the nodes)",
                           fn, ptr[0], ptr[G], n);
    for (gat_idx k = 0; k < G; k++) {
        if (ptr[k + 1] <= ptr[k])
            return gat_i_error(GAT_EINVAL,
                               "%s: graph %d has no nodes (graph_ptr[%d] = %d, graph_ptr[%d] = %d)",
                               fn, k, k, ptr[k], k + 1, ptr[k + 1]);
        if (p->graph_labels && (p->graph_labels[k] < 0 || p->graph_labels[k] >= p->n_graph_classes))
            return gat_i_error(GAT_EINVAL, "%s: graph %d has label %d outside [0, %d)", fn, k,
                               p->graph_labels[k], p->n_graph_classes);
    }
    for (gat_idx k = 0; k < G; k++)
        for (gat_idx i = ptr[k]; i < ptr[k + 1]; i++)
            for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
                const gat_idx j = g->col[e];
                if (j >= ptr[k] && j < ptr[k + 1]) continue;
                gat_idx other = 0, hi = G; /* the graph of j: the last k with ptr[k] <= j */
                while (hi - other > 1) {
                    const gat_idx mid = other + (hi - other) / 2;
                    if (ptr[mid] <= j)
                        other = mid;
                    else
                        hi = mid;
                }
                return gat_i_error(GAT_EINVAL,
                                   "%s: edge %d (node %d -> node %d) joins graph %d and graph %d: "
                                   "no edge may join two graphs",
                                   fn, e, j, i, other, k);
            }
    for (gat_idx c = 0; p->graph_class_names && c < p->n_graph_classes; c++)
        if (!p->graph_class_names[c])
            return gat_i_error(GAT_EINVAL, "%s: graph_class_names[%d] is NULL", fn, c);
    return GAT_OK;
}

/* names (count) copies of given[k], or of the decimal k when given is NULL. */
static gat_status copy_names(const char *const **names, gat_idx count, const char *const *given)
{
    char **out = gat_calloc((size_t)count, sizeof *out);
    if (!(*names = (const char *const *)out)) return GAT_ENOMEM;
    for (gat_idx k = 0; k < count; k++) {
        char num[16];
        snprintf(num, sizeof num, "%d", k);
        if (!(out[k] = gat_strdup(given ? given[k] : num))) return GAT_ENOMEM;
    }
    return GAT_OK;
}

gat_status gat_i_dataset_from_parts(gat_dataset *ds, const gat_dataset_parts *p,
                                    const gat_dataset_options *opt, const char *fn,
                                    const char *what, const char *features)
{
    gat_dataset_options defaults;
    gat_dataset out = {0};
    gat_idx labelled = 0;
    gat_status st;

    if (!ds) return gat_i_error(GAT_EINVAL, "%s: NULL dataset", fn);
    memset(ds, 0, sizeof *ds);
    if (!p || !p->graph || !p->features)
        return gat_i_error(GAT_EINVAL, "%s: NULL parts, graph or features", fn);
    if (!opt) {
        gat_dataset_options_default(&defaults);
        opt = &defaults;
    }
    if ((st = gat_i_check_options(opt, fn)) != GAT_OK) return st;
    const gat_idx n = p->graph->n;
    const gat_csr *x = p->features;
    if ((st = gat_i_graph_check(p->graph, fn)) != GAT_OK) return st;
    if (x->rows != n)
        return gat_i_error(GAT_EDIM, "%s: the features have %d rows but the graph has %d nodes", fn,
                           x->rows, n);
    if ((st = gat_i_csr_check_matrix(x, fn)) != GAT_OK) return st;
    if ((st = check_parts(p, n, fn)) != GAT_OK || (st = check_graphs(p, n, fn)) != GAT_OK)
        return st;
    if (opt->split_index != 0)
        return gat_i_error(GAT_EINVAL, "%s: split index %d is out of range: the data holds %s",
                           fn, opt->split_index, p->split ? "1 split (0)" : "no fixed split");

    out.n = n;
    out.n_features = x->cols;
    out.n_classes = p->n_classes;
    if ((st = gat_graph_copy(&out.graph, p->graph)) != GAT_OK ||
        (st = gat_csr_copy(&out.x, x)) != GAT_OK ||
        (st = copy_names(&out.node_ids, n, p->node_ids)) != GAT_OK ||
        (st = copy_names(&out.class_names, p->n_classes, p->class_names)) != GAT_OK)
        goto cleanup;
    out.labels = gat_malloc((size_t)n, sizeof *out.labels);
    out.split = gat_calloc((size_t)n, sizeof *out.split);
    if (!out.labels || !out.split) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    const size_t E = (size_t)p->graph->nnz;
    if (p->n_edge_features > 0) {
        if (!(out.edge_x = gat_malloc(E * (size_t)p->n_edge_features, sizeof *out.edge_x))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        memcpy(out.edge_x, p->edge_features, E * (size_t)p->n_edge_features * sizeof *out.edge_x);
        out.n_edge_features = p->n_edge_features;
    }
    if (p->edge_input) {
        if (!(out.edge_input = gat_malloc(E, sizeof *out.edge_input))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        memcpy(out.edge_input, p->edge_input, E * sizeof *out.edge_input);
    }
    if (p->n_graphs > 0) {
        const size_t G = (size_t)p->n_graphs;
        if (!(out.graph_ptr = gat_malloc(G + 1, sizeof *out.graph_ptr))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        memcpy(out.graph_ptr, p->graph_ptr, (G + 1) * sizeof *out.graph_ptr);
        out.n_graphs = p->n_graphs;
        if (p->graph_labels) {
            if (!(out.graph_labels = gat_malloc(G, sizeof *out.graph_labels))) {
                st = GAT_ENOMEM;
                goto cleanup;
            }
            memcpy(out.graph_labels, p->graph_labels, G * sizeof *out.graph_labels);
            out.n_graph_classes = p->n_graph_classes; /* first: destroy frees partial names */
            if ((st = copy_names(&out.graph_class_names, p->n_graph_classes,
                                 p->graph_class_names)) != GAT_OK)
                goto cleanup;
        }
    }
    if (p->n_labels > 0) {
        const size_t cells = (size_t)n * (size_t)p->n_labels;
        if (!(out.label_matrix = gat_malloc(cells ? cells : 1, 1))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        memcpy(out.label_matrix, p->label_matrix, cells);
        out.n_labels = p->n_labels;
    }
    for (gat_idx i = 0; i < n; i++) {
        out.labels[i] = p->labels ? p->labels[i] : -1;
        labelled += out.labels[i] >= 0;
    }
    out.n_splits = p->split != NULL;
    if (p->split)
        memcpy(out.split, p->split, (size_t)n * sizeof *out.split);
    else if (labelled > 0 && !gat_i_cuts(opt) &&
             (st = gat_i_random_split(&out, opt, what)) != GAT_OK)
        goto cleanup;
    gat_i_count_split(&out);
    if ((st = gat_i_normalize_checked(&out, opt->normalize, fn,
                                      features ? features : "the features argument")) != GAT_OK)
        goto cleanup;
    *ds = out;
    return GAT_OK;
cleanup:
    gat_dataset_destroy(&out);
    return st;
}

gat_status gat_dataset_from_parts(gat_dataset *ds, const gat_dataset_parts *parts,
                                  const gat_dataset_options *opt)
{
    static const char fn[] = "gat_dataset_from_parts";
    gat_i_clear_error();
    gat_status st = gat_i_dataset_from_parts(ds, parts, opt, fn, "the labelled nodes", NULL);
    if (st == GAT_OK && (st = gat_i_dataset_finish(ds, opt, ds->n_splits == 0, fn)) != GAT_OK)
        gat_dataset_destroy(ds);
    return st;
}
