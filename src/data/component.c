/* A dataset cut to part of its nodes, as Shchur et al. 2018 prepare their benchmark sets: to its
 * graph's largest connected component (gat_dataset_largest_component) and to the classes with
 * enough labelled nodes (gat_dataset_remove_small_classes), each also an option of every public
 * dataset source (gat_i_dataset_finish); and a dataset renumbered (gat_dataset_permute,
 * gat_dataset_order). A breadth-first search over the in- and out-CSR finds the weak
 * components; the kept nodes' rows of every per-node and per-edge array are copied, in order or
 * in the new order, into a new dataset, which replaces the old one only when it is whole. */
#include "data/data_i.h"
#include "core/core.h"
#include "graph/graph_i.h"

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

/* (count) copies of the strings src[pick[k]] (pick NULL: src[k]) into *out */
static gat_status copy_strings(const char *const **out, const char *const *src, const gat_idx *pick,
                               gat_idx count)
{
    char **v = gat_calloc(count ? (size_t)count : 1, sizeof *v);
    if (!(*out = (const char *const *)v)) return GAT_ENOMEM;
    for (gat_idx k = 0; k < count; k++)
        if (!(v[k] = gat_strdup(src[pick ? pick[k] : k]))) return GAT_ENOMEM;
    return GAT_OK;
}

/* out (zeroed): the m nodes old[0..m) of ds (distinct), node old[k] renumbered k, with their
 * rows of every per-node array, their edges from nodes kept (each row's sources ascending in the
 * new numbers, its per-edge rows moved with them) and those edges' rows. classes (NULL: every
 * class as it is) lists the old number of each of the C classes kept, in order: labels are
 * renumbered and the names follow (every labelled node kept must be of a class kept). fn names
 * the public function in messages. On failure the caller destroys out. */
static gat_status restrict_rows(const gat_dataset *ds, const gat_idx *old, gat_idx m,
                                const gat_idx *classes, gat_idx C, gat_dataset *out, const char *fn)
{
    const gat_graph *g = &ds->graph;
    const gat_idx n = ds->n, D = ds->n_edge_features, L = ds->n_labels;
    const size_t S = ds->splits ? (size_t)ds->n_splits : 0, mz = m ? (size_t)m : 1;
    gat_idx *to = gat_malloc((size_t)n + 1, sizeof *to);
    gat_idx *rowptr = gat_malloc(mz + 1, sizeof *rowptr), *col = NULL;
    gat_idx *class_to =
        classes ? gat_malloc(ds->n_classes ? (size_t)ds->n_classes : 1, sizeof *class_to) : NULL;
    uint64_t *key = NULL; /* a row's (new source << 32 | edge in the row), sorted */
    size_t E = 0, nnz = 0;
    gat_idx loops = 0, most = 0; /* kept rows with their self-loop: all or none (the builders'
                                  * rule); the largest degree */
    gat_status st = GAT_ENOMEM;
    if (!to || !rowptr || (classes && !class_to)) goto out;
    if (classes) {
        for (gat_idx c = 0; c < ds->n_classes; c++)
            class_to[c] = -1;
        for (gat_idx c = 0; c < C; c++)
            class_to[classes[c]] = c;
    }
    for (gat_idx i = 0; i < n; i++)
        to[i] = -1;
    for (gat_idx k = 0; k < m; k++)
        to[old[k]] = k;
    for (gat_idx k = 0; k < m; k++) {
        const gat_idx i = old[k];
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
            E += to[g->col[e]] >= 0;
        most = gat_graph_degree(g, i) > most ? gat_graph_degree(g, i) : most;
        nnz += (size_t)(ds->x.rowptr[i + 1] - ds->x.rowptr[i]);
    }
    out->n = m;
    out->n_features = ds->n_features;
    out->n_classes = classes ? C : ds->n_classes;
    out->n_labels = L;
    out->n_edge_features = D;
    if (!(col = gat_malloc(E ? E : 1, sizeof *col)) ||
        !(key = gat_malloc(most ? (size_t)most : 1, sizeof *key)) ||
        !(out->split = gat_calloc(mz, sizeof *out->split)) ||
        (ds->labels && !(out->labels = gat_malloc(mz, sizeof *out->labels))) ||
        (D > 0 && !(out->edge_x = gat_malloc(E ? E * (size_t)D : 1, sizeof *out->edge_x))) ||
        (ds->edge_input && !(out->edge_input = gat_malloc(E ? E : 1, sizeof *out->edge_input))) ||
        (L > 0 && !(out->label_matrix = gat_malloc(mz * (size_t)L, 1))) ||
        (S > 0 && !(out->splits = gat_malloc(S * mz, 1))))
        goto out;
    if ((st = gat_csr_init(&out->x, m, ds->x.cols, nnz)) != GAT_OK) goto out;
    rowptr[0] = out->x.rowptr[0] = 0;
    for (gat_idx k = 0; k < m; k++) {
        const gat_idx i = old[k], e0 = g->rowptr[i], e1 = g->rowptr[i + 1];
        gat_idx at = rowptr[k], d = 0;
        for (gat_idx e = e0; e < e1; e++) /* edges from a node removed go */
            if (to[g->col[e]] >= 0) key[d++] = (uint64_t)to[g->col[e]] << 32 | (uint64_t)(e - e0);
        gat_i_sort_keys(key, (size_t)d); /* already in order unless renumbered */
        for (gat_idx a = 0; a < d; a++, at++) {
            const gat_idx e = e0 + (gat_idx)(key[a] & 0xffffffffu);
            col[at] = (gat_idx)(key[a] >> 32);
            loops += g->col[e] == i;
            if (D > 0)
                memcpy(out->edge_x + (size_t)at * (size_t)D, ds->edge_x + (size_t)e * (size_t)D,
                       (size_t)D * sizeof *out->edge_x);
            if (ds->edge_input) out->edge_input[at] = ds->edge_input[e];
        }
        rowptr[k + 1] = at;
        const gat_idx q0 = ds->x.rowptr[i], q1 = ds->x.rowptr[i + 1], xq = out->x.rowptr[k];
        memcpy(out->x.col + xq, ds->x.col + q0, (size_t)(q1 - q0) * sizeof *out->x.col);
        memcpy(out->x.val + xq, ds->x.val + q0, (size_t)(q1 - q0) * sizeof *out->x.val);
        out->x.rowptr[k + 1] = xq + (q1 - q0);
        if (out->labels)
            out->labels[k] =
                classes && ds->labels[i] >= 0 ? class_to[ds->labels[i]] : ds->labels[i];
        if (ds->split) out->split[k] = ds->split[i];
        if (L > 0)
            memcpy(out->label_matrix + (size_t)k * (size_t)L,
                   ds->label_matrix + (size_t)i * (size_t)L, (size_t)L);
        for (size_t r = 0; r < S; r++)
            out->splits[r * (size_t)m + (size_t)k] = ds->splits[r * (size_t)n + (size_t)i];
    }
    if ((ds->node_ids && (st = copy_strings(&out->node_ids, ds->node_ids, old, m)) != GAT_OK) ||
        (ds->class_names && (st = copy_strings(&out->class_names, ds->class_names, classes,
                                               out->n_classes)) != GAT_OK) ||
        (st = gat_graph_from_csr(&out->graph, m, rowptr, col,
                                 loops ? 0u : (unsigned)GAT_GRAPH_NO_SELF_LOOPS)) != GAT_OK)
        goto out;
    /* rows sorted and without duplicates, the self-loops as the builder puts them: it keeps them
     * edge for edge, so the edges' rows copied above stay in step */
    if ((size_t)out->graph.nnz != E) {
        st = gat_i_error(GAT_EINVAL,
                         "%s: the graph was not built by "
                         "gat_graph_from_* (%d of the %d nodes kept have their self-loop; %zu "
                         "edges became %d)",
                         fn, loops, m, E, out->graph.nnz);
        goto out;
    }
    gat_i_count_split(out);
    gat_i_normalize_checked(out, GAT_NORMALIZE_OFF, "", ""); /* the first negative feature kept */
    out->normalized = ds->normalized;
    out->n_splits = ds->n_splits;
    out->split_adapted = ds->split_adapted;
    out->skipped_edges = ds->skipped_edges;
    out->removed_nodes = ds->removed_nodes + (n - m);
    out->removed_classes = ds->removed_classes + (ds->n_classes - out->n_classes);
out:
    gat_free(class_to);
    gat_free(to);
    gat_free(key);
    gat_free(rowptr);
    gat_free(col);
    return st;
}

/* out (zeroed): ds cut to its nodes with keep[i] = 1 (m of them), in their order */
static gat_status keep_rows(const gat_dataset *ds, const uint8_t *keep, gat_idx m,
                            const gat_idx *classes, gat_idx C, gat_dataset *out, const char *fn)
{
    gat_idx *old = gat_malloc(m ? (size_t)m : 1, sizeof *old);
    if (!old) return GAT_ENOMEM;
    for (gat_idx i = 0, k = 0; i < ds->n; i++)
        if (keep[i]) old[k++] = i;
    const gat_status st = restrict_rows(ds, old, m, classes, C, out, fn);
    gat_free(old);
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
    gat_dataset out = {0};
    const gat_status st = keep_rows(ds, keep, m, NULL, 0, &out, fn);
    gat_free(keep);
    if (st != GAT_OK) {
        gat_dataset_destroy(&out);
        return st;
    }
    if (removed) *removed = ds->n - m;
    gat_dataset_destroy(ds);
    *ds = out;
    return GAT_OK;
}

gat_status gat_dataset_largest_component(gat_dataset *ds, gat_idx *removed)
{
    gat_i_clear_error();
    return gat_i_largest_component(ds, removed, "gat_dataset_largest_component");
}

gat_status gat_i_remove_small_classes(gat_dataset *ds, gat_idx min_nodes, gat_idx *classes,
                                      gat_idx *nodes, const char *fn)
{
    if (classes) *classes = 0;
    if (nodes) *nodes = 0;
    if (!ds) return gat_i_error(GAT_EINVAL, "%s: NULL dataset", fn);
    if (min_nodes < 0)
        return gat_i_error(GAT_EINVAL, "%s: negative smallest class size %d", fn, min_nodes);
    if (min_nodes == 0) return GAT_OK;
    if (ds->n_graphs > 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: the dataset holds %d graphs; classes are removed from a dataset "
                           "of one graph",
                           fn, ds->n_graphs);
    if (ds->n_labels > 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: the dataset has %d labels per node (multi-hot), not one class per "
                           "node",
                           fn, ds->n_labels);
    const gat_idx C = ds->n_classes;
    if (C == 0 || !ds->labels)
        return gat_i_error(GAT_EINVAL, "%s: the dataset has no classes to keep %d nodes of", fn,
                           min_nodes);
    gat_idx *count = gat_calloc((size_t)C, sizeof *count),
            *kept = gat_malloc((size_t)C, sizeof *kept);
    uint8_t *keep = gat_malloc(ds->n ? (size_t)ds->n : 1, 1);
    gat_status st = GAT_ENOMEM;
    gat_dataset out = {0};
    if (!count || !kept || !keep) goto done;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] >= 0) count[ds->labels[i]]++;
    gat_idx K = 0, largest = 0, m = 0;
    for (gat_idx c = 0; c < C; c++) {
        if (count[c] >= min_nodes) kept[K++] = c;
        if (count[c] > count[largest]) largest = c;
    }
    if (K == 0) {
        st = gat_i_error(GAT_EINVAL,
                         "%s: no class has %d labelled nodes: the largest, class %d%s%s%s, has %d",
                         fn, min_nodes, largest, ds->class_names ? " ('" : "",
                         ds->class_names ? ds->class_names[largest] : "",
                         ds->class_names ? "')" : "", count[largest]);
        goto done;
    }
    st = GAT_OK;
    if (K == C) goto done;
    for (gat_idx i = 0; i < ds->n; i++)
        m += keep[i] = ds->labels[i] < 0 || count[ds->labels[i]] >= min_nodes;
    if ((st = keep_rows(ds, keep, m, kept, K, &out, fn)) != GAT_OK) goto done;
    if (classes) *classes = C - K;
    if (nodes) *nodes = ds->n - m;
    gat_dataset_destroy(ds);
    *ds = out;
    memset(&out, 0, sizeof out);
done:
    gat_dataset_destroy(&out);
    gat_free(count);
    gat_free(kept);
    gat_free(keep);
    return st;
}

gat_status gat_dataset_remove_small_classes(gat_dataset *ds, gat_idx min_nodes, gat_idx *classes,
                                            gat_idx *nodes)
{
    gat_i_clear_error();
    return gat_i_remove_small_classes(ds, min_nodes, classes, nodes,
                                      "gat_dataset_remove_small_classes");
}

gat_status gat_i_dataset_finish(gat_dataset *ds, const gat_dataset_options *opt, int drawn,
                                const char *fn)
{
    if (!gat_i_cuts(opt)) return GAT_OK;
    const int lcc = opt->largest_component, small = opt->min_class_nodes > 0;
    gat_status st = GAT_OK;
    /* the largest component, then the classes it leaves large enough; removing a class can
     * split the component, so both again until neither removes a node (each cut alone is done
     * in one pass) */
    for (gat_idx more = 1; st == GAT_OK && more > 0;) {
        gat_idx removed = 0;
        if (lcc) st = gat_i_largest_component(ds, NULL, fn);
        if (st == GAT_OK && small)
            st = gat_i_remove_small_classes(ds, opt->min_class_nodes, NULL, &removed, fn);
        more = lcc ? removed : 0;
    }
    /* the sources leave a random split to this step (gat_i_cuts), drawn over the nodes kept */
    if (st == GAT_OK && drawn && ds->n_labels == 0 && ds->labels) {
        gat_idx labelled = 0;
        for (gat_idx i = 0; i < ds->n; i++)
            labelled += ds->labels[i] >= 0;
        const char *what = !small ? "the largest component"
                           : lcc  ? "the largest component of the classes kept"
                                  : "the classes kept";
        if (labelled > 0 && (st = gat_i_random_split(ds, opt, what)) == GAT_OK)
            gat_i_count_split(ds);
    }
    return st;
}

/* ds renumbered by perm (a permutation of its nodes, as gat_dataset_permute's); ds unchanged on
 * failure */
static gat_status renumber(gat_dataset *ds, const gat_idx *perm, const char *fn)
{
    gat_dataset out = {0};
    const gat_status st = restrict_rows(ds, perm, ds->n, NULL, 0, &out, fn);
    if (st != GAT_OK) {
        gat_dataset_destroy(&out);
        return st;
    }
    gat_dataset_destroy(ds);
    *ds = out;
    return GAT_OK;
}

/* fn's refusal of a dataset of many graphs */
static gat_status one_graph(const gat_dataset *ds, const char *fn)
{
    return ds->n_graphs > 0 ? gat_i_error(GAT_EINVAL,
                                          "%s: the dataset holds %d graphs; nodes are renumbered "
                                          "in a dataset of one graph",
                                          fn, ds->n_graphs)
                            : GAT_OK;
}

gat_status gat_dataset_permute(gat_dataset *ds, const gat_idx *perm)
{
    static const char fn[] = "gat_dataset_permute";
    gat_status st;
    gat_i_clear_error();
    if (!ds || !perm) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !ds ? "dataset" : "perm");
    if ((st = one_graph(ds, fn)) != GAT_OK) return st;
    gat_idx *iperm = gat_malloc(ds->n ? (size_t)ds->n : 1, sizeof *iperm);
    if (!iperm) return GAT_ENOMEM;
    st = gat_i_perm_inverse(perm, ds->n, iperm, fn);
    gat_free(iperm);
    return st == GAT_OK ? renumber(ds, perm, fn) : st;
}

gat_status gat_dataset_order(gat_dataset *ds, gat_order order, gat_order *used)
{
    static const char fn[] = "gat_dataset_order";
    gat_status st;
    gat_i_clear_error();
    if (used) *used = GAT_ORDER_NONE;
    if (!ds) return gat_i_error(GAT_EINVAL, "%s: NULL dataset", fn);
    if ((unsigned)order >= GAT_ORDER_COUNT)
        return gat_i_error(GAT_EINVAL, "%s: order %d is not a gat_order", fn, (int)order);
    if ((st = one_graph(ds, fn)) != GAT_OK) return st;
    if (!gat_i_order_considered(&ds->graph, order)) return GAT_OK;
    gat_idx *perm = gat_malloc(ds->n ? (size_t)ds->n : 1, sizeof *perm);
    if (!perm) return GAT_ENOMEM;
    gat_order pick;
    if ((st = gat_i_order_pick(&ds->graph, order, perm, &pick)) == GAT_OK &&
        pick != GAT_ORDER_NONE && (st = renumber(ds, perm, fn)) == GAT_OK && used)
        *used = pick;
    gat_free(perm);
    return st;
}
