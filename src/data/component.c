/* A dataset cut to its graph's largest connected component (gat_dataset_largest_component, and
 * gat_dataset_options.largest_component at every public dataset source), as Shchur et al. 2018
 * prepare their benchmark sets: a breadth-first search over the in- and out-CSR finds the weak
 * components; the kept nodes' rows of every per-node and per-edge array are copied in order and
 * assembled again through gat_i_dataset_from_parts, which checks them as it checks any parts. */
#include "data/data_i.h"
#include "core/core.h"

#include <string.h>

/* The nodes of g's largest weak component get keep[i] = 1 (the others 0); of components of one
 * size the first met in node order. Returns the component's size, or -1 (no memory). */
static gat_idx mark_largest(const gat_graph *g, uint8_t *keep)
{
    const gat_idx n = g->n;
    gat_idx *comp = gat_malloc((size_t)n, sizeof *comp),
            *queue = gat_malloc((size_t)n, sizeof *queue);
    gat_idx best = -1, best_size = 0, count = 0;
    if (!comp || !queue) {
        gat_free(comp);
        gat_free(queue);
        return -1;
    }
    for (gat_idx i = 0; i < n; i++)
        comp[i] = -1;
    for (gat_idx s = 0; s < n; s++) {
        if (comp[s] >= 0) continue;
        gat_idx head = 0, tail = 0;
        comp[s] = count;
        queue[tail++] = s;
        while (head < tail) {
            const gat_idx v = queue[head++];
            for (int dir = 0; dir < 2; dir++) {
                const gat_idx *ptr = dir ? g->t_rowptr : g->rowptr, *adj = dir ? g->t_col : g->col;
                for (gat_idx e = ptr[v]; e < ptr[v + 1]; e++)
                    if (comp[adj[e]] < 0) comp[adj[e]] = count, queue[tail++] = adj[e];
            }
        }
        if (tail > best_size) best = count, best_size = tail;
        count++;
    }
    for (gat_idx i = 0; i < n; i++)
        keep[i] = comp[i] == best;
    gat_free(comp);
    gat_free(queue);
    return best_size;
}

/* The kept rows' parts of ds (m nodes of n, their number in ds's order is old[k]) into the
 * arrays of *a, for gat_i_dataset_from_parts */
typedef struct kept {
    gat_idx *old, *rowptr, *col, *labels, *edge_input;
    uint8_t *split, *splits, *label_matrix;
    gat_real *edge_x;
    const char **ids;
    gat_csr x;
    gat_graph g;
} kept;

static void kept_free(kept *a)
{
    gat_free(a->old);
    gat_free(a->rowptr);
    gat_free(a->col);
    gat_free(a->labels);
    gat_free(a->edge_input);
    gat_free(a->split);
    gat_free(a->splits);
    gat_free(a->label_matrix);
    gat_free(a->edge_x);
    gat_free((void *)a->ids);
    gat_csr_destroy(&a->x);
    gat_graph_destroy(&a->g);
}

static gat_status restrict_rows(const gat_dataset *ds, const uint8_t *keep, gat_idx m, kept *a)
{
    const gat_graph *g = &ds->graph;
    const gat_idx n = ds->n, D = ds->n_edge_features, L = ds->n_labels;
    const size_t S = ds->splits ? (size_t)ds->n_splits : 0;
    gat_idx *to = gat_malloc((size_t)n, sizeof *to); /* new number of each kept node */
    size_t E = 0, nnz = 0;
    gat_status st = GAT_ENOMEM;
    a->old = gat_malloc((size_t)m, sizeof *a->old);
    if (!to || !a->old) goto out;
    for (gat_idx i = 0, k = 0; i < n; i++) {
        to[i] = keep[i] ? k : -1;
        if (keep[i]) {
            a->old[k++] = i;
            E += (size_t)(g->rowptr[i + 1] - g->rowptr[i]);
            nnz += (size_t)(ds->x.rowptr[i + 1] - ds->x.rowptr[i]);
        }
    }
    a->rowptr = gat_malloc((size_t)m + 1, sizeof *a->rowptr);
    a->col = gat_malloc(E ? E : 1, sizeof *a->col);
    a->labels = ds->labels ? gat_malloc((size_t)m ? (size_t)m : 1, sizeof *a->labels) : NULL;
    a->split = gat_calloc((size_t)m ? (size_t)m : 1, sizeof *a->split);
    a->ids = ds->node_ids ? gat_malloc((size_t)m ? (size_t)m : 1, sizeof *a->ids) : NULL;
    if (!a->rowptr || !a->col || (ds->labels && !a->labels) || !a->split ||
        (ds->node_ids && !a->ids))
        goto out;
    if (D > 0 && !(a->edge_x = gat_malloc(E ? E * (size_t)D : 1, sizeof *a->edge_x))) goto out;
    if (ds->edge_input && !(a->edge_input = gat_malloc(E ? E : 1, sizeof *a->edge_input))) goto out;
    if (L > 0 && !(a->label_matrix = gat_malloc((size_t)m * (size_t)L + 1, 1))) goto out;
    if (S > 0 && !(a->splits = gat_malloc(S * (size_t)m + 1, 1))) goto out;
    if (gat_csr_init(&a->x, m, ds->x.cols, nnz) != GAT_OK) goto out;
    a->rowptr[0] = a->x.rowptr[0] = 0;
    for (gat_idx k = 0; k < m; k++) {
        const gat_idx i = a->old[k], e0 = g->rowptr[i], e1 = g->rowptr[i + 1];
        gat_idx at = a->rowptr[k];
        for (gat_idx e = e0; e < e1;
             e++, at++) { /* a kept node's sources are kept: one component */
            a->col[at] = to[g->col[e]];
            if (D > 0)
                memcpy(a->edge_x + (size_t)at * (size_t)D, ds->edge_x + (size_t)e * (size_t)D,
                       (size_t)D * sizeof *a->edge_x);
            if (ds->edge_input) a->edge_input[at] = ds->edge_input[e];
        }
        a->rowptr[k + 1] = at;
        const gat_idx q0 = ds->x.rowptr[i], q1 = ds->x.rowptr[i + 1], xq = a->x.rowptr[k];
        memcpy(a->x.col + xq, ds->x.col + q0, (size_t)(q1 - q0) * sizeof *a->x.col);
        memcpy(a->x.val + xq, ds->x.val + q0, (size_t)(q1 - q0) * sizeof *a->x.val);
        a->x.rowptr[k + 1] = xq + (q1 - q0);
        if (a->labels) a->labels[k] = ds->labels[i];
        if (ds->split) a->split[k] = ds->split[i];
        if (a->ids) a->ids[k] = ds->node_ids[i];
        if (L > 0)
            memcpy(a->label_matrix + (size_t)k * (size_t)L,
                   ds->label_matrix + (size_t)i * (size_t)L, (size_t)L);
        for (size_t r = 0; r < S; r++)
            a->splits[r * (size_t)m + (size_t)k] = ds->splits[r * (size_t)n + (size_t)i];
    }
    st = gat_graph_from_csr(&a->g, m, a->rowptr, a->col, 0);
    /* the rows were sorted, with their self-loops: the builder keeps them edge for edge */
    if (st == GAT_OK && (size_t)a->g.nnz != E)
        st = gat_i_error(GAT_EINVAL,
                         "gat_dataset_largest_component: the graph's rows are not "
                         "sorted with one self-loop each (%zu edges became %d)",
                         E, a->g.nnz);
out:
    gat_free(to);
    return st;
}

gat_status gat_i_largest_component(gat_dataset *ds, gat_idx *removed, const char *fn)
{
    if (removed) *removed = 0;
    if (!ds) return gat_i_error(GAT_EINVAL, "%s: NULL dataset", fn);
    if (ds->n_graphs > 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: the dataset holds %d graphs; the largest component is for a "
                           "dataset of one graph",
                           fn, ds->n_graphs);
    if (ds->n == 0) return GAT_OK;
    uint8_t *keep = gat_malloc((size_t)ds->n, 1);
    if (!keep) return GAT_ENOMEM;
    const gat_idx m = mark_largest(&ds->graph, keep);
    if (m < 0 || m == ds->n) {
        gat_free(keep);
        return m < 0 ? GAT_ENOMEM : GAT_OK;
    }
    kept a = {0};
    gat_dataset out = {0};
    gat_status st = restrict_rows(ds, keep, m, &a);
    gat_free(keep);
    if (st == GAT_OK) {
        gat_dataset_options o;
        gat_dataset_options_default(&o);
        o.normalize = GAT_NORMALIZE_OFF; /* the rows as they are: normalised or not */
        const gat_dataset_parts p = {.graph = &a.g,
                                     .features = &a.x,
                                     .labels = ds->n_labels > 0 ? NULL : a.labels,
                                     .n_classes = ds->n_classes,
                                     .split = a.split,
                                     .node_ids = a.ids,
                                     .class_names = ds->class_names,
                                     .edge_features = a.edge_x,
                                     .n_edge_features = ds->n_edge_features,
                                     .edge_input = a.edge_input,
                                     .n_labels = ds->n_labels,
                                     .label_matrix = a.label_matrix};
        st = gat_i_dataset_from_parts(&out, &p, &o, fn, "the largest component", NULL);
    }
    if (st == GAT_OK) {
        out.normalized = ds->normalized;
        out.n_splits = ds->n_splits;
        out.splits = a.splits;
        a.splits = NULL;
        out.split_adapted = ds->split_adapted;
        out.skipped_edges = ds->skipped_edges;
        out.removed_nodes = ds->removed_nodes + (ds->n - m);
        if (removed) *removed = ds->n - m;
        gat_dataset_destroy(ds);
        *ds = out;
    }
    kept_free(&a);
    return st;
}

gat_status gat_dataset_largest_component(gat_dataset *ds, gat_idx *removed)
{
    gat_i_clear_error();
    return gat_i_largest_component(ds, removed, "gat_dataset_largest_component");
}

gat_status gat_i_dataset_finish(gat_dataset *ds, const gat_dataset_options *opt, const char *fn)
{
    if (!opt || !opt->largest_component) return GAT_OK;
    gat_idx removed;
    gat_status st = gat_i_largest_component(ds, &removed, fn);
    /* a random split (the source holds none, or its splits are ignored) is drawn again over the
     * component's nodes, as a load of the component would draw it */
    const int random = ds->n_splits == 0 || opt->ignore_split_file;
    if (st == GAT_OK && removed > 0 && random && ds->n_labels == 0 && ds->labels) {
        gat_idx labelled = 0;
        for (gat_idx i = 0; i < ds->n; i++)
            labelled += ds->labels[i] >= 0;
        if (labelled > 0 && (st = gat_i_random_split(ds, opt, "the largest component")) == GAT_OK)
            gat_i_count_split(ds);
    }
    return st;
}
