/* Batches of graphs (gat/readout.h): the block-diagonal graph, features, edge features, node
 * label rows and node -> graph segments of a list of a dataset's graphs, copied block by block (a dataset of many
 * graphs is block-diagonal already: each graph's rows, edges and out-edges are contiguous). */
#include "gat/readout.h"
#include "core/core.h"

#include <string.h>

/* Grows *p to hold n items of size bytes (capacity *cap in items); its contents are dropped. */
static gat_status reserve(void **p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap && *p) return GAT_OK;
    void *q = gat_malloc(n ? n : 1, size);
    if (!q) return GAT_ENOMEM;
    gat_free(*p);
    *p = q;
    *cap = n;
    return GAT_OK;
}

static gat_status check_args(const gat_graph_batch *b, const gat_dataset *ds, const gat_idx *ids,
                             gat_idx count)
{
    if (!b || !ds || !ids)
        return gat_i_error(GAT_EINVAL, "gat_graph_batch_make: NULL %s",
                           !b ? "batch" : !ds ? "dataset" : "ids");
    if (ds->n_graphs <= 0 || !ds->graph_ptr)
        return gat_i_error(GAT_EINVAL, "gat_graph_batch_make: the dataset holds one graph "
                                       "(n_graphs = 0), not a set of graphs");
    if (count < 1)
        return gat_i_error(GAT_EINVAL, "gat_graph_batch_make: count = %d, expected >= 1", count);
    for (gat_idx k = 0; k < count; k++)
        if (ids[k] < 0 || ids[k] >= ds->n_graphs)
            return gat_i_error(GAT_EINVAL,
                               "gat_graph_batch_make: ids[%d] = %d outside 0..%d (the "
                               "dataset's graphs)",
                               k, ids[k], ds->n_graphs - 1);
    return GAT_OK;
}

/* Copies graph g of ds to node offset n0, edge offset e0 and feature offset z0 of b. */
static void copy_graph(gat_graph_batch *b, const gat_dataset *ds, gat_idx g, gat_idx n0,
                       gat_idx e0, gat_idx z0)
{
    const gat_graph *G = &ds->graph;
    const gat_idx lo = ds->graph_ptr[g], hi = ds->graph_ptr[g + 1], shift = n0 - lo;
    const gat_idx elo = G->rowptr[lo], ehi = G->rowptr[hi], eshift = e0 - elo;
    const gat_idx zlo = ds->x.rowptr[lo], zhi = ds->x.rowptr[hi];
    for (gat_idx i = lo; i < hi; i++) {
        b->graph.rowptr[i + shift] = G->rowptr[i] + eshift;
        b->graph.t_rowptr[i + shift] = G->t_rowptr[i] + eshift;
        b->x.rowptr[i + shift] = ds->x.rowptr[i] - zlo + z0;
    }
    for (gat_idx e = elo; e < ehi; e++) {
        b->graph.col[e + eshift] = G->col[e] + shift;
        b->graph.t_col[e + eshift] = G->t_col[e] + shift;
        b->graph.t_edge[e + eshift] = G->t_edge[e] + eshift;
    }
    memcpy(b->x.col + z0, ds->x.col + zlo, (size_t)(zhi - zlo) * sizeof *b->x.col);
    memcpy(b->x.val + z0, ds->x.val + zlo, (size_t)(zhi - zlo) * sizeof *b->x.val);
    if (b->edge_x)
        memcpy(b->edge_x + (size_t)e0 * ds->n_edge_features,
               ds->edge_x + (size_t)elo * ds->n_edge_features,
               (size_t)(ehi - elo) * ds->n_edge_features * sizeof *b->edge_x);
}

gat_status gat_graph_batch_make(gat_graph_batch *b, const gat_dataset *ds, const gat_idx *ids,
                                gat_idx count)
{
    gat_status st;
    size_t N = 0, E = 0, Z = 0;
    gat_i_clear_error();
    if ((st = check_args(b, ds, ids, count)) != GAT_OK) return st;
    for (gat_idx k = 0; k < count; k++) {
        const gat_idx lo = ds->graph_ptr[ids[k]], hi = ds->graph_ptr[ids[k] + 1];
        N += (size_t)(hi - lo);
        E += (size_t)(ds->graph.rowptr[hi] - ds->graph.rowptr[lo]);
        Z += (size_t)(ds->x.rowptr[hi] - ds->x.rowptr[lo]);
    }
    if (N >= INT32_MAX || E >= INT32_MAX || Z >= INT32_MAX)
        return gat_i_error(GAT_EINVAL, "gat_graph_batch_make: %zu nodes, %zu edges: too many for "
                                       "one batch (gat_idx)", N, E);
    const gat_idx D = ds->edge_x ? ds->n_edge_features : 0;
    /* one capacity per array, in items; each array grows alone and never shrinks */
    void **arr[12] = {(void **)&b->graph_ptr, (void **)&b->graph_ids, (void **)&b->labels,
                      (void **)&b->graph.rowptr, (void **)&b->graph.t_rowptr,
                      (void **)&b->x.rowptr, (void **)&b->graph.col, (void **)&b->graph.t_col,
                      (void **)&b->graph.t_edge, (void **)&b->x.col, (void **)&b->x.val,
                      (void **)&b->edge_x};
    const size_t need[12] = {(size_t)count + 1, (size_t)count, (size_t)count, N + 1, N + 1, N + 1,
                             E, E, E, Z, Z, E * (size_t)D};
    for (int k = 0; k < 12; k++) {
        const size_t size = k == 10 || k == 11 ? sizeof(gat_real) : sizeof(gat_idx);
        if (k == 11 && D == 0) {
            gat_free(b->edge_x);
            b->edge_x = NULL;
            b->cap[k] = 0;
        } else if ((st = reserve(arr[k], &b->cap[k], need[k], size)) != GAT_OK) {
            return st;
        }
    }
    const gat_idx L = ds->label_matrix ? ds->n_labels : 0;
    if (L == 0) {
        gat_free(b->label_matrix);
        b->label_matrix = NULL;
        b->cap_labels = 0;
    } else if ((st = reserve((void **)&b->label_matrix, &b->cap_labels, N * (size_t)L, 1)) !=
               GAT_OK) {
        return st;
    }
    b->x.capacity = b->cap[9] < b->cap[10] ? b->cap[9] : b->cap[10];
    gat_idx n0 = 0, e0 = 0, z0 = 0;
    b->graph_ptr[0] = 0;
    for (gat_idx k = 0; k < count; k++) {
        const gat_idx g = ids[k], lo = ds->graph_ptr[g], hi = ds->graph_ptr[g + 1];
        copy_graph(b, ds, g, n0, e0, z0);
        n0 += hi - lo;
        e0 += ds->graph.rowptr[hi] - ds->graph.rowptr[lo];
        z0 += ds->x.rowptr[hi] - ds->x.rowptr[lo];
        if (L > 0) /* the graph's nodes are contiguous: so are their label rows */
            memcpy(b->label_matrix + (size_t)b->graph_ptr[k] * L,
                   ds->label_matrix + (size_t)lo * L, (size_t)(hi - lo) * L);
        b->graph_ptr[k + 1] = n0;
        b->graph_ids[k] = g;
        b->labels[k] = ds->graph_labels ? ds->graph_labels[g] : -1;
    }
    b->graph.rowptr[N] = b->graph.t_rowptr[N] = e0;
    b->x.rowptr[N] = z0;
    b->graph.n = (gat_idx)N;
    b->graph.nnz = (gat_idx)E;
    b->x.rows = (gat_idx)N;
    b->x.cols = ds->x.cols;
    b->n_graphs = count;
    b->n_edge_features = D;
    b->n_labels = L;
    return GAT_OK;
}

void gat_graph_batch_destroy(gat_graph_batch *b)
{
    if (!b) return;
    gat_free(b->graph_ptr);
    gat_free(b->graph_ids);
    gat_free(b->labels);
    gat_free(b->graph.rowptr);
    gat_free(b->graph.t_rowptr);
    gat_free(b->graph.col);
    gat_free(b->graph.t_col);
    gat_free(b->graph.t_edge);
    gat_free(b->x.rowptr);
    gat_free(b->x.col);
    gat_free(b->x.val);
    gat_free(b->edge_x);
    gat_free(b->label_matrix);
    memset(b, 0, sizeof *b);
}
