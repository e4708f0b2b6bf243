/* A rank's local graph for distributed training (gat_dist_create, gat/dist.h): its owned rows
 * and their in-edges, then its halo rows (sources only); the whole graph's numbering of rows and
 * edges (dropout keys), the renumbering for locality, and the lists of rows each peer exchanges. */
#include "mpi/mpi_i.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "partition/partition_i.h"

#include <stdlib.h>
#include <string.h>

void gat_dist_options_default(gat_dist_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->normalize = GAT_NORMALIZE_AUTO;
    o->order = GAT_ORDER_AUTO;
}

void gat_dist_free(gat_dist *d)
{
    if (!d) return;
    if (d->comm != MPI_COMM_NULL) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) MPI_Comm_free(&d->comm);
    }
    gat_graph_destroy(&d->g);
    gat_csr_destroy(&d->x);
    gat_free(d->ex);
    gat_free(d->xkey);
    gat_free(d->ekey);
    gat_free(d->tekey);
    gat_free(d->labels);
    gat_free(d->gid);
    gat_free(d->perm);
    gat_free(d->hperm);
    gat_free(d->ids);
    gat_free(d->classes);
    for (int s = 0; s < 3; s++)
        gat_free(d->rows[s]);
    gat_free(d->add_ptr);
    gat_free(d->add_slot);
    gat_free(d->hoff);
    gat_free(d->soff);
    gat_free(d->sidx);
    gat_free(d->buf);
    gat_free(d->sums);
    gat_free(d->req);
    gat_free(d);
}

const gat_part *gat_dist_part(const gat_dist *d)
{
    return d ? d->p : NULL;
}

const gat_idx *gat_dist_global_ids(const gat_dist *d)
{
    return d ? d->gid : NULL;
}

const gat_graph *gat_dist_graph(const gat_dist *d)
{
    return d ? &d->g : NULL;
}

const gat_csr *gat_dist_features(const gat_dist *d)
{
    return d ? &d->x : NULL;
}

void gat_dist_get_stats(const gat_dist *d, gat_dist_stats *s)
{
    if (!s) return;
    if (!d) {
        memset(s, 0, sizeof *s);
        return;
    }
    *s = d->stats;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The local part of create (everything before the halo features arrive); collective calls
 * only where every rank reaches them. */
static gat_status plan(gat_dist *d)
{
    static const char *fn = "gat_dist_create";
    const gat_part *p = d->p;
    const int K = d->size;
    int *rc = NULL, *sc = NULL, *rd = NULL, *sd = NULL;
    gat_status st = GAT_OK;
    if (!(d->hoff = gat_calloc((size_t)K + 1, sizeof *d->hoff)) ||
        !(d->soff = gat_calloc((size_t)K + 1, sizeof *d->soff)) ||
        !(rc = gat_calloc((size_t)K, sizeof *rc)) || !(sc = gat_calloc((size_t)K, sizeof *sc)) ||
        !(rd = gat_calloc((size_t)K, sizeof *rd)) || !(sd = gat_calloc((size_t)K, sizeof *sd)) ||
        !(d->req = gat_malloc(8 * (size_t)K, sizeof *d->req)))
        st = GAT_ENOMEM;
    if ((st = gat_i_dist_agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    for (gat_idx h = 0; h < d->nh; h++)
        rc[p->halo_owner[h]]++;
    for (int q = 0; q < K; q++)
        d->hoff[q + 1] = d->hoff[q] + rc[q], rd[q] = d->hoff[q];
    if (MPI_Alltoall(rc, 1, MPI_INT, sc, 1, MPI_INT, d->comm) != MPI_SUCCESS) {
        st = gat_i_error(GAT_EDEP, "%s: MPI_Alltoall failed", fn);
        goto done;
    }
    for (int q = 0; q < K; q++)
        d->soff[q + 1] = d->soff[q] + sc[q], sd[q] = d->soff[q];
    const size_t ns = (size_t)d->soff[K];
    if (!(d->sidx = gat_malloc(ns + 1, sizeof *d->sidx))) st = GAT_ENOMEM;
    if ((st = gat_i_dist_agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    /* the global ids each peer wants of ours, in its (owner, id) order */
    if (MPI_Alltoallv(p->global_ids + d->no, rc, rd, MPI_INT, d->sidx, sc, sd, MPI_INT, d->comm) !=
        MPI_SUCCESS) {
        st = gat_i_error(GAT_EDEP, "%s: MPI_Alltoallv failed", fn);
        goto done;
    }
    for (size_t t = 0; t < ns && st == GAT_OK; t++) {
        const gat_idx *hit = bsearch(&d->sidx[t], p->global_ids, (size_t)d->no,
                                     sizeof *p->global_ids, gat_i_cmp_idx);
        if (!hit)
            st = gat_i_error(GAT_EINVAL,
                             "%s: rank %d: another rank holds node %d as halo of "
                             "this part, which does not own it (parts of different partitions)",
                             fn, d->rank, d->sidx[t]);
        else
            d->sidx[t] = (gat_idx)(hit - p->global_ids);
    }
    st = gat_i_dist_agree(d->comm, d->rank, K, st);
    d->stats.send_rows = (gat_idx)ns;
    for (int q = 0; q < K; q++)
        d->stats.peers += rc[q] > 0 || sc[q] > 0;
done:
    gat_free(rc);
    gat_free(sc);
    gat_free(rd);
    gat_free(sd);
    return st;
}

/* The whole graph's numbering of the owned rows: xb[i] the first position of row i in the
 * whole feature matrix, eb[i] its first edge in the whole in-CSR (prefix sums in global id
 * order over every rank's counts). */
static gat_status numbering(gat_dist *d, int64_t *xb, int64_t *eb)
{
    const gat_part *p = d->p;
    const size_t N = (size_t)p->n_global;
    int64_t *cnt = gat_calloc(2 * N + 1, sizeof *cnt);
    gat_status st = gat_i_dist_agree(d->comm, d->rank, d->size, cnt ? GAT_OK : GAT_ENOMEM);
    if (st != GAT_OK) {
        gat_free(cnt);
        return st;
    }
    for (gat_idx i = 0; i < d->no; i++) {
        const size_t j = (size_t)p->global_ids[i];
        cnt[j] = p->x.rowptr[i + 1] - p->x.rowptr[i];
        cnt[N + j] = p->rowptr[i + 1] - p->rowptr[i];
    }
    if (MPI_Allreduce(MPI_IN_PLACE, cnt, (int)(2 * N), MPI_INT64_T, MPI_SUM, d->comm) !=
        MPI_SUCCESS) {
        gat_free(cnt);
        return gat_i_error(GAT_EDEP, "gat_dist_create: MPI_Allreduce failed");
    }
    int64_t sx = 0, se = 0;
    for (size_t j = 0; j < N; j++) {
        const int64_t a = cnt[j], b = cnt[N + j];
        cnt[j] = sx, cnt[N + j] = se;
        sx += a, se += b;
    }
    for (gat_idx i = 0; i < d->no; i++) {
        xb[i] = cnt[p->global_ids[i]];
        eb[i] = cnt[N + (size_t)p->global_ids[i]];
    }
    gat_free(cnt);
    return GAT_OK;
}

/* The local feature matrix: the owned rows, then an empty row per halo node (its owner projects
 * it), and the owned rows' layer-0 dropout keys. */
static gat_status local_features(gat_dist *d, const int64_t *xb)
{
    const gat_part *p = d->p;
    const size_t nnz = (size_t)p->x.rowptr[d->no];
    gat_status st = GAT_OK;
    if (!(d->xkey = gat_calloc((size_t)d->nl + 1, sizeof *d->xkey)) ||
        (st = gat_csr_init(&d->x, d->nl, p->n_features, (gat_idx)nnz)) != GAT_OK)
        return st != GAT_OK ? st : GAT_ENOMEM;
    memcpy(d->xkey, xb, (size_t)d->no * sizeof *xb);
    memcpy(d->x.rowptr, p->x.rowptr, ((size_t)d->no + 1) * sizeof *d->x.rowptr);
    for (gat_idx h = 0; h < d->nh; h++)
        d->x.rowptr[d->no + h + 1] = (gat_idx)nnz;
    memcpy(d->x.col, p->x.col, nnz * sizeof *d->x.col);
    memcpy(d->x.val, p->x.val, nnz * sizeof *d->x.val);
    return GAT_OK;
}

/* Row normalisation decided over every rank's features (gat_dist_options.normalize). */
static gat_status normalise(gat_dist *d, int mode)
{
    int neg = 0, any = 0;
    for (size_t t = 0; t < (size_t)d->x.rowptr[d->no] && !neg; t++)
        neg = d->x.val[t] < 0;
    if (MPI_Allreduce(&neg, &any, 1, MPI_INT, MPI_MAX, d->comm) != MPI_SUCCESS)
        return gat_i_error(GAT_EDEP, "gat_dist_create: MPI_Allreduce failed");
    d->stats.normalized = d->p->normalized;
    if (d->p->normalized || mode == GAT_NORMALIZE_OFF) return GAT_OK;
    if (any && mode == GAT_NORMALIZE_ON)
        return gat_i_error(GAT_EINVAL,
                           "gat_dist_create: rank %d: cannot row-normalise the "
                           "features: %s",
                           d->rank,
                           neg ? "this part has a negative one" : "a part has a negative one");
    if (!any) gat_csr_normalize_rows(&d->x), d->stats.normalized = 1;
    return GAT_OK;
}

/* Renumbers the owned rows by `order`, in the sequence perm gives (gat_i_order_pick's; taken
 * over: freed here), and the halo rows within each peer's block (the halo stays
 * last and each peer's rows contiguous) by the first owned row that reads them, so that the
 * gathers of halo rows follow the owned rows' sweep: the graph, features, keys, the rows sent,
 * d->perm (the part's row at each new position), d->gid and d->hperm (what the peers learn in
 * halo_order). edge_of: (g.nnz) or NULL: the edge each new edge was. */
static gat_status reorder(gat_dist *d, gat_order order, gat_idx *perm, double t0, int64_t *eb,
                          gat_idx *edge_of)
{
    const gat_idx no = d->no, nl = d->nl;
    gat_idx *pos = NULL;
    int64_t *t64 = NULL;
    gat_graph g2;
    gat_csr x2;
    gat_status st;
    memset(&x2, 0, sizeof x2);
    /* the owned rows in the order's sequence, then each peer's halo rows by (first reader, id) */
    gat_idx k = 0;
    for (gat_idx r = 0; r < nl; r++)
        if (perm[r] < no) perm[k++] = perm[r];
    if (!(pos = gat_malloc((size_t)nl + 1, sizeof *pos)) ||
        !(t64 = gat_malloc((size_t)nl + 1, sizeof *t64)) ||
        !(d->hperm = gat_malloc((size_t)d->nh + 1, sizeof *d->hperm))) {
        st = GAT_ENOMEM;
        goto done;
    }
    for (gat_idx r = 0; r < no; r++)
        pos[perm[r]] = r;
    for (gat_idx h = 0; h < d->nh; h++)
        t64[h] = (int64_t)no << 32 | h;
    for (gat_idx i = 0; i < no; i++)
        for (gat_idx e = d->g.rowptr[i]; e < d->g.rowptr[i + 1]; e++) {
            const gat_idx j = d->g.col[e];
            if (j < no) continue;
            const int64_t key = (int64_t)pos[i] << 32 | (j - no);
            if (key < t64[j - no]) t64[j - no] = key;
        }
    for (int q = 0; q < d->size; q++)
        qsort(t64 + d->hoff[q], (size_t)(d->hoff[q + 1] - d->hoff[q]), sizeof *t64, cmp_u64);
    for (gat_idx h = 0; h < d->nh; h++) {
        d->hperm[h] = (gat_idx)(t64[h] & 0xffffffff);
        perm[no + h] = no + d->hperm[h];
    }
    if ((st = gat_i_renumber(&d->g, &d->x, perm, &g2, &x2, edge_of)) != GAT_OK) goto done;
    gat_graph_destroy(&d->g);
    d->g = g2;
    gat_csr_destroy(&d->x);
    d->x = x2;
    memset(&x2, 0, sizeof x2);
    for (gat_idx r = 0; r < nl; r++)
        pos[perm[r]] = r;
    for (gat_idx r = 0; r < nl; r++)
        t64[r] = d->xkey[perm[r]];
    memcpy(d->xkey, t64, (size_t)nl * sizeof *t64);
    for (gat_idx r = 0; r < no; r++)
        t64[r] = eb[perm[r]];
    memcpy(eb, t64, (size_t)no * sizeof *t64);
    for (gat_idx r = 0; r < nl; r++)
        d->gid[r] = d->p->global_ids[perm[r]];
    for (gat_idx t = 0; t < d->soff[d->size]; t++)
        d->sidx[t] = pos[d->sidx[t]];
    d->perm = perm;
    perm = NULL;
    d->stats.order = order;
    d->stats.order_seconds = gat_i_dist_now() - t0;
done:
    gat_free(perm);
    gat_free(pos);
    gat_free(t64);
    gat_csr_destroy(&x2);
    return st;
}

/* Removes the halo rows' self-loops (gat_graph_from_csr gives every row one): a halo row is a
 * source only, with no in-edge (gat_i_remote). The halo rows are last, so their loops are the
 * last edges of the in-CSR; the out-CSR keeps the other edges in order. */
static void drop_halo_loops(gat_graph *g, gat_idx no)
{
    const gat_idx E = g->rowptr[no];
    for (gat_idx i = no; i < g->n; i++)
        g->rowptr[i + 1] = E;
    gat_idx w = 0;
    for (gat_idx j = 0; j < g->n; j++) {
        const gat_idx a = g->t_rowptr[j], b = g->t_rowptr[j + 1];
        g->t_rowptr[j] = w;
        for (gat_idx q = a; q < b; q++)
            if (g->t_edge[q] < E) g->t_col[w] = g->t_col[q], g->t_edge[w++] = g->t_edge[q];
    }
    g->t_rowptr[g->n] = w;
    g->nnz = E;
}

/* The local graph (halo rows: no in-edges), renumbered for locality per order, the edge keys,
 * labels and split rows. */
static gat_status local_graph(gat_dist *d, gat_order order, int64_t *eb)
{
    const gat_part *p = d->p;
    gat_idx *rowptr = gat_malloc((size_t)d->nl + 1, sizeof *rowptr);
    uint64_t *tmp = NULL;
    gat_status st;
    if (!rowptr || !(d->gid = gat_malloc((size_t)d->nl + 1, sizeof *d->gid))) {
        gat_free(rowptr);
        return GAT_ENOMEM;
    }
    memcpy(d->gid, p->global_ids, (size_t)d->nl * sizeof *d->gid);
    memcpy(rowptr, p->rowptr, ((size_t)d->no + 1) * sizeof *rowptr);
    for (gat_idx h = 0; h < d->nh; h++)
        rowptr[d->no + h + 1] = rowptr[d->no];
    st = gat_graph_from_csr(&d->g, d->nl, rowptr, p->col, 0);
    gat_free(rowptr);
    if (st != GAT_OK) return st;
    drop_halo_loops(&d->g, d->no);
    for (gat_idx i = 0; i < d->no; i++)
        if (d->g.rowptr[i + 1] - d->g.rowptr[i] != p->rowptr[i + 1] - p->rowptr[i])
            return gat_i_error(GAT_EINVAL,
                               "gat_dist_create: rank %d: owned row %d (global %d) "
                               "has a duplicate source or lacks its self-loop",
                               d->rank, i, p->global_ids[i]);
    const double t0 = gat_i_dist_now();
    gat_idx *perm = NULL;
    gat_order use = GAT_ORDER_NONE;
    if (gat_i_order_considered(&d->g, order)) {
        if (!(perm = gat_malloc((size_t)d->nl + 1, sizeof *perm))) return GAT_ENOMEM;
        if ((st = gat_i_order_pick(&d->g, order, perm, &use)) != GAT_OK) {
            gat_free(perm);
            return st;
        }
    }
    /* the edges' features follow the renumbering (before it, edge e is the part's edge e) */
    const size_t D = p->edge_x ? (size_t)p->n_edge_features : 0;
    gat_idx *edge_of = NULL;
    if (D && (!(d->ex = gat_malloc((size_t)d->g.nnz * D + 1, sizeof *d->ex)) ||
              (use != GAT_ORDER_NONE &&
               !(edge_of = gat_malloc((size_t)d->g.nnz + 1, sizeof *edge_of))))) {
        gat_free(perm);
        return GAT_ENOMEM;
    }
    if (use == GAT_ORDER_NONE)
        gat_free(perm);
    else if ((st = reorder(d, use, perm, t0, eb, edge_of)) != GAT_OK) {
        gat_free(edge_of);
        return st;
    }
    for (gat_idx e = 0; D && e < d->g.nnz; e++)
        memcpy(d->ex + (size_t)e * D, p->edge_x + (size_t)(edge_of ? edge_of[e] : e) * D,
               D * sizeof *d->ex);
    gat_free(edge_of);
    gat_idx dmax = 1;
    for (gat_idx i = 0; i < d->no; i++)
        if (d->g.rowptr[i + 1] - d->g.rowptr[i] > dmax) dmax = d->g.rowptr[i + 1] - d->g.rowptr[i];
    if (!(d->ekey = gat_calloc((size_t)d->g.nnz + 1, sizeof *d->ekey)) ||
        !(tmp = gat_malloc((size_t)dmax, sizeof *tmp)) ||
        !(d->labels = gat_malloc((size_t)d->nl + 1, sizeof *d->labels))) {
        gat_free(tmp);
        return GAT_ENOMEM;
    }
    /* edge k of owned row i: the whole graph's in-CSR lists i's sources by global id */
    for (gat_idx i = 0; i < d->no; i++) {
        const gat_idx a = d->g.rowptr[i], n = d->g.rowptr[i + 1] - a;
        for (gat_idx t = 0; t < n; t++)
            tmp[t] = (uint64_t)d->gid[d->g.col[a + t]] << 32 | (uint64_t)t;
        qsort(tmp, (size_t)n, sizeof *tmp, cmp_u64);
        for (gat_idx r = 0; r < n; r++)
            d->ekey[a + (gat_idx)(tmp[r] & 0xffffffffu)] = eb[i] + r;
    }
    gat_free(tmp);
    if (!(d->tekey = gat_malloc((size_t)d->g.nnz + 1, sizeof *d->tekey))) return GAT_ENOMEM;
    for (gat_idx q = 0; q < d->g.nnz; q++)
        d->tekey[q] = d->ekey[d->g.t_edge[q]];
    const gat_split which[3] = {GAT_SPLIT_TRAIN, GAT_SPLIT_VAL, GAT_SPLIT_TEST};
    for (int s = 0; s < 3; s++) {
        gat_idx n = 0;
        for (gat_idx i = 0; i < d->no; i++)
            n += p->split[i] == which[s];
        if (!(d->rows[s] = gat_malloc((size_t)n + 1, sizeof *d->rows[s]))) return GAT_ENOMEM;
        n = 0;
        for (gat_idx r = 0; r < d->no; r++) {
            const gat_idx i = d->perm ? d->perm[r] : r;
            if (p->split[i] == which[s]) {
                if (p->labels[i] < 0 || p->labels[i] >= p->n_classes)
                    return gat_i_error(GAT_EINVAL,
                                       "gat_dist_create: rank %d: node %d (global %d) "
                                       "of a split has label %d outside [0, %d)",
                                       d->rank, i, p->global_ids[i], p->labels[i], p->n_classes);
                d->rows[s][n++] = r;
            }
        }
        d->n_rows[s] = n;
    }
    for (gat_idx r = 0; r < d->nl; r++)
        d->labels[r] = r < d->no ? p->labels[d->perm ? d->perm[r] : r] : -1;
    return GAT_OK;
}

/* Each peer's list of the rows it sends us follows our halo order: every rank tells each peer the
 * order of that peer's halo block (d->hperm within the block; as it was without a renumbering)
 * and orders its own lists as its peers ask. Then the slots of the gradients peers return
 * (gat_i_remote): own row j's are the t with sidx[t] = j, in rank order (t ascending). */
static gat_status halo_order(gat_dist *d)
{
    static const char *fn = "gat_dist_create";
    const int K = d->size;
    const size_t ns = (size_t)d->soff[K];
    int *hc = NULL, *hd = NULL, *sc = NULL, *sd = NULL;
    gat_idx *rel = NULL, *want = NULL, *old = NULL;
    gat_status st = GAT_OK;
    if (!(hc = gat_malloc((size_t)K, sizeof *hc)) || !(hd = gat_malloc((size_t)K, sizeof *hd)) ||
        !(sc = gat_malloc((size_t)K, sizeof *sc)) || !(sd = gat_malloc((size_t)K, sizeof *sd)) ||
        !(rel = gat_malloc((size_t)d->nh + 1, sizeof *rel)) ||
        !(want = gat_malloc(ns + 1, sizeof *want)) || !(old = gat_malloc(ns + 1, sizeof *old)) ||
        !(d->add_ptr = gat_calloc((size_t)d->no + 2, sizeof *d->add_ptr)) ||
        !(d->add_slot = gat_malloc(ns + 1, sizeof *d->add_slot)))
        st = GAT_ENOMEM;
    if ((st = gat_i_dist_agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    for (int q = 0; q < K; q++) {
        hc[q] = (int)(d->hoff[q + 1] - d->hoff[q]), hd[q] = (int)d->hoff[q];
        sc[q] = (int)(d->soff[q + 1] - d->soff[q]), sd[q] = (int)d->soff[q];
        for (gat_idx h = d->hoff[q]; h < d->hoff[q + 1]; h++)
            rel[h] = (d->hperm ? d->hperm[h] : h) - d->hoff[q];
    }
    int rc = MPI_Alltoallv(rel, hc, hd, MPI_INT, want, sc, sd, MPI_INT, d->comm);
    if (rc != MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Alltoallv", rc);
        goto done;
    }
    memcpy(old, d->sidx, ns * sizeof *old);
    for (int q = 0; q < K && st == GAT_OK; q++)
        for (gat_idx k = 0; k < sc[q]; k++) {
            const gat_idx w = want[d->soff[q] + k];
            if (w < 0 || w >= sc[q]) {
                st = gat_i_error(GAT_EINVAL,
                                 "%s: rank %d: rank %d asks for row %d of the %d it "
                                 "holds of ours",
                                 fn, d->rank, q, w, sc[q]);
                break;
            }
            d->sidx[d->soff[q] + k] = old[d->soff[q] + w];
        }
    for (size_t t = 0; t < ns; t++)
        d->add_ptr[d->sidx[t] + 2]++;
    for (gat_idx i = 0; i < d->no; i++)
        d->add_ptr[i + 2] += d->add_ptr[i + 1];
    for (size_t t = 0; t < ns; t++)
        d->add_slot[d->add_ptr[d->sidx[t] + 1]++] = (gat_idx)t;
    st = gat_i_dist_agree(d->comm, d->rank, K, st);
done:
    gat_free(hc);
    gat_free(hd);
    gat_free(sc);
    gat_free(sd);
    gat_free(rel);
    gat_free(want);
    gat_free(old);
    return st;
}

/* n strings into one block: the pointers, then the characters (one gat_free). */
static char **copy_strings(const char *const *src, const gat_idx *order, gat_idx n)
{
    size_t len = 0;
    for (gat_idx i = 0; i < n; i++)
        len += strlen(src[order ? order[i] : i]) + 1;
    char **out = gat_malloc((size_t)n + 1 + len / sizeof(char *) + 1, sizeof *out);
    if (!out) return NULL;
    char *str = (char *)(out + n + 1);
    for (gat_idx i = 0; i < n; i++) {
        const char *s = src[order ? order[i] : i];
        const size_t l = strlen(s) + 1;
        memcpy(str, s, l);
        out[i] = str;
        str += l;
    }
    out[n] = NULL;
    return out;
}

/* d->own: the part's sizes and names in the local order, which d uses from now on. */
static gat_status keep_part(gat_dist *d)
{
    const gat_part *p = d->p;
    d->own = *p;
    d->own.rowptr = d->own.col = d->own.halo_owner = d->own.labels = NULL;
    d->own.split = NULL;
    memset(&d->own.x, 0, sizeof d->own.x);
    d->own.edge_x = NULL; /* d->ex holds them, in the local order */
    d->own.storage = NULL;
    d->own.global_ids = d->gid;
    d->own.node_ids = d->own.class_names = NULL;
    if (p->node_ids && !(d->ids = copy_strings(p->node_ids, d->perm, d->no))) return GAT_ENOMEM;
    if (p->class_names && !(d->classes = copy_strings(p->class_names, NULL, p->n_classes)))
        return GAT_ENOMEM;
    d->own.node_ids = (const char *const *)d->ids;
    d->own.class_names = (const char *const *)d->classes;
    d->p = &d->own;
    return GAT_OK;
}

gat_status gat_dist_create(gat_dist **out, const gat_part *p, MPI_Comm comm,
                           const gat_dist_options *opt)
{
    static const char *fn = "gat_dist_create";
    gat_dist_options defaults;
    gat_dist *d = NULL;
    int64_t *xb = NULL, *eb = NULL;
    gat_status st;
    gat_i_clear_error();
    if (out) *out = NULL;
    if ((st = gat_i_check_args(fn, 2, (const void *[]){out, p},
                               (const char *[]){"out", "part p"})) != GAT_OK)
        return st;
    if (!opt) gat_dist_options_default(&defaults), opt = &defaults;
    if (!(d = gat_calloc(1, sizeof *d))) return GAT_ENOMEM;
    d->comm = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(comm, &d->comm);
    if (rc != MPI_SUCCESS) {
        gat_free(d);
        return gat_i_dist_mpi_failed(fn, "MPI_Comm_dup", rc);
    }
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->size);
    d->p = p;
    d->stats.order = GAT_ORDER_NONE;
    d->no = p->n_owned;
    d->nh = p->n_halo;
    d->nl = p->n_owned + p->n_halo;
    st = GAT_OK;
    if (p->n_parts != d->size || p->part != d->rank)
        st = gat_i_error(GAT_EINVAL,
                         "%s: rank %d of %d holds part %d of a partition of %d parts "
                         "(run as many ranks as parts, rank r on part r)",
                         fn, d->rank, d->size, p->part, p->n_parts);
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto fail;
    /* every rank's part of the same partition */
    uint64_t mine[2] = {p->fingerprint, p->assignment}, r0[2] = {p->fingerprint, p->assignment};
    if ((rc = MPI_Bcast(r0, 2, MPI_UINT64_T, 0, d->comm)) != MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Bcast", rc);
        goto fail;
    }
    if (mine[0] != r0[0] || mine[1] != r0[1])
        st = gat_i_error(GAT_EINVAL,
                         "%s: rank %d holds a part of another partition than rank "
                         "0's (fingerprint %016llx, assignment %016llx; rank 0's %016llx, "
                         "%016llx)",
                         fn, d->rank, (unsigned long long)mine[0], (unsigned long long)mine[1],
                         (unsigned long long)r0[0], (unsigned long long)r0[1]);
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto fail;
    if ((st = plan(d)) != GAT_OK) goto fail;
    if (!(xb = gat_malloc((size_t)d->no + 1, sizeof *xb)) ||
        !(eb = gat_malloc((size_t)d->no + 1, sizeof *eb)) ||
        !(d->sums = gat_malloc(2 * (size_t)d->size, sizeof *d->sums)))
        st = GAT_ENOMEM;
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto fail;
    if ((st = numbering(d, xb, eb)) != GAT_OK) goto fail;
    st = local_features(d, xb);
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto fail;
    if ((st = normalise(d, opt->normalize)) != GAT_OK) goto fail_agree;
    st = local_graph(d, opt->order, eb);
fail_agree:
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) != GAT_OK ||
        (st = halo_order(d)) != GAT_OK)
        goto fail;
    /* the whole graph's split counts */
    double c[3] = {(double)d->n_rows[0], (double)d->n_rows[1], (double)d->n_rows[2]};
    if ((rc = MPI_Allreduce(c, d->g_rows, 3, MPI_DOUBLE, MPI_SUM, d->comm)) != MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Allreduce", rc);
        goto fail;
    }
    /* what the rank keeps of the part: sizes and names (the caller may free it now) */
    if ((st = keep_part(d)) != GAT_OK) goto fail;
    d->stats.n_owned = d->no;
    d->stats.n_halo = d->nh;
    gat_free(xb);
    gat_free(eb);
    *out = d;
    return GAT_OK;
fail:
    gat_free(xb);
    gat_free(eb);
    gat_dist_free(d);
    return st;
}
