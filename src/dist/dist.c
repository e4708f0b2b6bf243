/* Distributed full-graph training on MPI (gat/dist.h): a rank's local graph and features, the
 * halo exchange in every layer (the engine's remote rows: projections out, their gradients
 * back), the fixed-order sums of gradients and
 * figures, and gat_train's epoch loop over them. */
#include "gat/dist.h"
#include "core/core.h"
#include "dist/dist_i.h"
#include "graph/graph_i.h"
#include "layers/fused.h"
#include "matrix_i.h"
#include "model/model_i.h"
#include "train/train_i.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef GAT_REAL_DOUBLE
#define MPI_GAT_REAL MPI_DOUBLE
#else
#define MPI_GAT_REAL MPI_FLOAT
#endif

struct gat_dist {
    MPI_Comm comm;
    int rank, size;
    const gat_part *p;
    gat_idx no, nh, nl;       /* owned, halo, local nodes */
    gat_graph g;              /* (nl) owned rows' in-edges; halo rows none (sources only) */
    gat_csr x;                /* (nl, F) owned features, then an empty row per halo node */
    gat_real *ex;             /* (g.nnz, D) the edges' features in g's in-CSR order, or NULL */
    int64_t *xkey, *ekey;     /* dropout keys (gat_i_model_set_keys) */
    int64_t *tekey;           /* ekey in the out-CSR's order (the sources pass reads it in turn) */
    gat_idx *labels;          /* (nl) owned labels, -1 on the halo */
    gat_idx *gid;             /* (nl) the whole graph's id of each local row */
    gat_idx *perm;            /* (nl) the part's local row at each local row, or NULL (the
                               * part's order) */
    gat_idx *hperm;           /* (nh) the part's halo row at each halo position, or NULL */
    gat_part own;             /* the part's sizes and names kept (d->p after create) */
    char **ids, **classes;    /* own.node_ids (local order) and own.class_names */
    gat_idx *rows[3], n_rows[3]; /* owned train, val, test rows */
    double g_rows[3];         /* the whole graph's counts of them */
    /* the exchange: peer q's halo rows are local no + hoff[q] .. no + hoff[q + 1] - 1; the
     * rows q holds of ours are sidx[soff[q] .. soff[q + 1] - 1] */
    gat_idx *hoff, *soff, *sidx;
    gat_idx *add_ptr, *add_slot; /* (no + 1), (rows sent): gat_i_remote's slots of own rows */
    gat_i_remote remote;      /* the engine's view of the halo */
    gat_real *buf;            /* (rows sent, the widest projection rows of a layer) */
    double *sums;             /* (size, 2): sum_doubles' all-gather */
    size_t buf_cap;
    MPI_Request *req;         /* (8 size): 4 arrays a layer, in and out per peer */
    int n_req;                /* the forward's requests in flight (send_projections) */
    int failed;               /* an MPI call of the exchange failed (reported after the pass) */
    gat_dist_stats stats;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static gat_status mpi_failed(const char *fn, const char *call, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", rc);
    return gat_i_error(GAT_EDEP, "%s: %s failed: %s", fn, call, s);
}

/* Every rank's status: GAT_OK if all are; else a failing rank returns its own status and
 * message, and every other rank the first failing rank's status with the message "rank R
 * failed: <its message>". Allocates nothing (a rank short of memory still takes part). */
static gat_status agree(MPI_Comm comm, int rank, int size, gat_status st)
{
    int bad = st != GAT_OK ? rank : size, first = size;
    int rc = MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return mpi_failed("gat_dist", "MPI_Allreduce", rc);
    if (first >= size) return GAT_OK;
    struct {
        int st;
        char msg[240];
    } m = {0};
    if (rank == first) {
        m.st = (int)st;
        snprintf(m.msg, sizeof m.msg, "%s", gat_last_error());
    }
    if ((rc = MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm)) != MPI_SUCCESS)
        return mpi_failed("gat_dist", "MPI_Bcast", rc);
    if (st != GAT_OK) return st;
    return gat_i_error((gat_status)m.st, "rank %d failed: %s", first, m.msg);
}

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
    for (int s = 0; s < 3; s++) gat_free(d->rows[s]);
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
    if ((st = agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    for (gat_idx h = 0; h < d->nh; h++) rc[p->halo_owner[h]]++;
    for (int q = 0; q < K; q++) d->hoff[q + 1] = d->hoff[q] + rc[q], rd[q] = d->hoff[q];
    if (MPI_Alltoall(rc, 1, MPI_INT, sc, 1, MPI_INT, d->comm) != MPI_SUCCESS) {
        st = gat_i_error(GAT_EDEP, "%s: MPI_Alltoall failed", fn);
        goto done;
    }
    for (int q = 0; q < K; q++) d->soff[q + 1] = d->soff[q] + sc[q], sd[q] = d->soff[q];
    const size_t ns = (size_t)d->soff[K];
    if (!(d->sidx = gat_malloc(ns + 1, sizeof *d->sidx))) st = GAT_ENOMEM;
    if ((st = agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    /* the global ids each peer wants of ours, in its (owner, id) order */
    if (MPI_Alltoallv(p->global_ids + d->no, rc, rd, MPI_INT, d->sidx, sc, sd, MPI_INT,
                      d->comm) != MPI_SUCCESS) {
        st = gat_i_error(GAT_EDEP, "%s: MPI_Alltoallv failed", fn);
        goto done;
    }
    for (size_t t = 0; t < ns && st == GAT_OK; t++) {
        const gat_idx *hit = bsearch(&d->sidx[t], p->global_ids, (size_t)d->no,
                                     sizeof *p->global_ids, gat_i_cmp_idx);
        if (!hit)
            st = gat_i_error(GAT_EINVAL, "%s: rank %d: another rank holds node %d as halo of "
                             "this part, which does not own it (parts of different partitions)",
                             fn, d->rank, d->sidx[t]);
        else
            d->sidx[t] = (gat_idx)(hit - p->global_ids);
    }
    st = agree(d->comm, d->rank, K, st);
    d->stats.send_rows = (gat_idx)ns;
    for (int q = 0; q < K; q++) d->stats.peers += rc[q] > 0 || sc[q] > 0;
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
    gat_status st = agree(d->comm, d->rank, d->size, cnt ? GAT_OK : GAT_ENOMEM);
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
    for (gat_idx h = 0; h < d->nh; h++) d->x.rowptr[d->no + h + 1] = (gat_idx)nnz;
    memcpy(d->x.col, p->x.col, nnz * sizeof *d->x.col);
    memcpy(d->x.val, p->x.val, nnz * sizeof *d->x.val);
    return GAT_OK;
}

/* Row normalisation decided over every rank's features (gat_dist_options.normalize). */
static gat_status normalise(gat_dist *d, int mode)
{
    int neg = 0, any = 0;
    for (size_t t = 0; t < (size_t)d->x.rowptr[d->no] && !neg; t++) neg = d->x.val[t] < 0;
    if (MPI_Allreduce(&neg, &any, 1, MPI_INT, MPI_MAX, d->comm) != MPI_SUCCESS)
        return gat_i_error(GAT_EDEP, "gat_dist_create: MPI_Allreduce failed");
    d->stats.normalized = d->p->normalized;
    if (d->p->normalized || mode == GAT_NORMALIZE_OFF) return GAT_OK;
    if (any && mode == GAT_NORMALIZE_ON)
        return gat_i_error(GAT_EINVAL, "gat_dist_create: rank %d: cannot row-normalise the "
                           "features: %s", d->rank, neg ? "this part has a negative one"
                                                        : "a part has a negative one");
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
    for (gat_idx r = 0; r < no; r++) pos[perm[r]] = r;
    for (gat_idx h = 0; h < d->nh; h++) t64[h] = (int64_t)no << 32 | h;
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
    if ((st = gat_graph_permute(&g2, &d->g, perm, edge_of)) != GAT_OK) goto done;
    gat_graph_destroy(&d->g);
    d->g = g2;
    for (gat_idx r = 0; r < nl; r++) pos[perm[r]] = r;
    if ((st = gat_i_csr_permute_rows(&d->x, perm, &x2)) != GAT_OK) goto done;
    gat_csr_destroy(&d->x);
    d->x = x2;
    memset(&x2, 0, sizeof x2);
    for (gat_idx r = 0; r < nl; r++) t64[r] = d->xkey[perm[r]];
    memcpy(d->xkey, t64, (size_t)nl * sizeof *t64);
    for (gat_idx r = 0; r < no; r++) t64[r] = eb[perm[r]];
    memcpy(eb, t64, (size_t)no * sizeof *t64);
    for (gat_idx r = 0; r < nl; r++) d->gid[r] = d->p->global_ids[perm[r]];
    for (gat_idx t = 0; t < d->soff[d->size]; t++) d->sidx[t] = pos[d->sidx[t]];
    d->perm = perm;
    perm = NULL;
    d->stats.order = order;
    d->stats.order_seconds = now() - t0;
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
    for (gat_idx i = no; i < g->n; i++) g->rowptr[i + 1] = E;
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
    for (gat_idx h = 0; h < d->nh; h++) rowptr[d->no + h + 1] = rowptr[d->no];
    st = gat_graph_from_csr(&d->g, d->nl, rowptr, p->col, 0);
    gat_free(rowptr);
    if (st != GAT_OK) return st;
    drop_halo_loops(&d->g, d->no);
    for (gat_idx i = 0; i < d->no; i++)
        if (d->g.rowptr[i + 1] - d->g.rowptr[i] != p->rowptr[i + 1] - p->rowptr[i])
            return gat_i_error(GAT_EINVAL, "gat_dist_create: rank %d: owned row %d (global %d) "
                               "has a duplicate source or lacks its self-loop", d->rank, i,
                               p->global_ids[i]);
    const double t0 = now();
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
        for (gat_idx r = 0; r < n; r++) d->ekey[a + (gat_idx)(tmp[r] & 0xffffffffu)] = eb[i] + r;
    }
    gat_free(tmp);
    if (!(d->tekey = gat_malloc((size_t)d->g.nnz + 1, sizeof *d->tekey))) return GAT_ENOMEM;
    for (gat_idx q = 0; q < d->g.nnz; q++) d->tekey[q] = d->ekey[d->g.t_edge[q]];
    const gat_split which[3] = {GAT_SPLIT_TRAIN, GAT_SPLIT_VAL, GAT_SPLIT_TEST};
    for (int s = 0; s < 3; s++) {
        gat_idx n = 0;
        for (gat_idx i = 0; i < d->no; i++) n += p->split[i] == which[s];
        if (!(d->rows[s] = gat_malloc((size_t)n + 1, sizeof *d->rows[s]))) return GAT_ENOMEM;
        n = 0;
        for (gat_idx r = 0; r < d->no; r++) {
            const gat_idx i = d->perm ? d->perm[r] : r;
            if (p->split[i] == which[s]) {
                if (p->labels[i] < 0 || p->labels[i] >= p->n_classes)
                    return gat_i_error(GAT_EINVAL, "gat_dist_create: rank %d: node %d (global %d) "
                                       "of a split has label %d outside [0, %d)", d->rank, i,
                                       p->global_ids[i], p->labels[i], p->n_classes);
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
    if ((st = agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    for (int q = 0; q < K; q++) {
        hc[q] = (int)(d->hoff[q + 1] - d->hoff[q]), hd[q] = (int)d->hoff[q];
        sc[q] = (int)(d->soff[q + 1] - d->soff[q]), sd[q] = (int)d->soff[q];
        for (gat_idx h = d->hoff[q]; h < d->hoff[q + 1]; h++)
            rel[h] = (d->hperm ? d->hperm[h] : h) - d->hoff[q];
    }
    int rc = MPI_Alltoallv(rel, hc, hd, MPI_INT, want, sc, sd, MPI_INT, d->comm);
    if (rc != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Alltoallv", rc);
        goto done;
    }
    memcpy(old, d->sidx, ns * sizeof *old);
    for (int q = 0; q < K && st == GAT_OK; q++)
        for (gat_idx k = 0; k < sc[q]; k++) {
            const gat_idx w = want[d->soff[q] + k];
            if (w < 0 || w >= sc[q]) {
                st = gat_i_error(GAT_EINVAL, "%s: rank %d: rank %d asks for row %d of the %d it "
                                 "holds of ours", fn, d->rank, q, w, sc[q]);
                break;
            }
            d->sidx[d->soff[q] + k] = old[d->soff[q] + w];
        }
    for (size_t t = 0; t < ns; t++) d->add_ptr[d->sidx[t] + 2]++;
    for (gat_idx i = 0; i < d->no; i++) d->add_ptr[i + 2] += d->add_ptr[i + 1];
    for (size_t t = 0; t < ns; t++) d->add_slot[d->add_ptr[d->sidx[t] + 1]++] = (gat_idx)t;
    st = agree(d->comm, d->rank, K, st);
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
    for (gat_idx i = 0; i < n; i++) len += strlen(src[order ? order[i] : i]) + 1;
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
        return mpi_failed(fn, "MPI_Comm_dup", rc);
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
        st = gat_i_error(GAT_EINVAL, "%s: rank %d of %d holds part %d of a partition of %d parts "
                         "(run as many ranks as parts, rank r on part r)", fn, d->rank, d->size,
                         p->part, p->n_parts);
    if ((st = agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto fail;
    /* every rank's part of the same partition */
    uint64_t mine[2] = {p->fingerprint, p->assignment}, r0[2] = {p->fingerprint, p->assignment};
    if ((rc = MPI_Bcast(r0, 2, MPI_UINT64_T, 0, d->comm)) != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Bcast", rc);
        goto fail;
    }
    if (mine[0] != r0[0] || mine[1] != r0[1])
        st = gat_i_error(GAT_EINVAL, "%s: rank %d holds a part of another partition than rank "
                         "0's (fingerprint %016llx, assignment %016llx; rank 0's %016llx, "
                         "%016llx)", fn, d->rank, (unsigned long long)mine[0],
                         (unsigned long long)mine[1], (unsigned long long)r0[0],
                         (unsigned long long)r0[1]);
    if ((st = agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto fail;
    if ((st = plan(d)) != GAT_OK) goto fail;
    if (!(xb = gat_malloc((size_t)d->no + 1, sizeof *xb)) ||
        !(eb = gat_malloc((size_t)d->no + 1, sizeof *eb)) ||
        !(d->sums = gat_malloc(2 * (size_t)d->size, sizeof *d->sums)))
        st = GAT_ENOMEM;
    if ((st = agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto fail;
    if ((st = numbering(d, xb, eb)) != GAT_OK) goto fail;
    st = local_features(d, xb);
    if ((st = agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto fail;
    if ((st = normalise(d, opt->normalize)) != GAT_OK) goto fail_agree;
    st = local_graph(d, opt->order, eb);
fail_agree:
    if ((st = agree(d->comm, d->rank, d->size, st)) != GAT_OK || (st = halo_order(d)) != GAT_OK)
        goto fail;
    /* the whole graph's split counts */
    double c[3] = {(double)d->n_rows[0], (double)d->n_rows[1], (double)d->n_rows[2]};
    if ((rc = MPI_Allreduce(c, d->g_rows, 3, MPI_DOUBLE, MPI_SUM, d->comm)) != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Allreduce", rc);
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

/* ---- the exchange ---- */

/* The exchange's one buffer (forward: the rows sent; backward: the gradients received). */
static int grow(gat_dist *d, size_t values)
{
    if (values <= d->buf_cap) return 1;
    gat_real *s = gat_realloc(d->buf, values, sizeof *s);
    if (!s) return 0;
    d->buf = s;
    d->buf_cap = values;
    return 1;
}

/* Posts one exchange with every peer q: a receive into rbuf's rows roff[q] .. roff[q + 1] - 1 and
 * a send of sbuf's rows soff[q] .. soff[q + 1] - 1, rows of w values of type (esize bytes each);
 * the requests go to d->req from *nr on. sent (or NULL) counts the bytes sent. 0 if a post
 * failed. */
static int post_rows(gat_dist *d, void *rbuf, const gat_idx *roff, const void *sbuf,
                     const gat_idx *soff, size_t w, MPI_Datatype type, size_t esize, int tag,
                     int *nr, int64_t *sent)
{
    int ok = 1;
    for (int q = 0; q < d->size; q++) {
        const size_t n = (size_t)(roff[q + 1] - roff[q]) * w;
        if (n)
            ok &= MPI_Irecv((char *)rbuf + (size_t)roff[q] * w * esize, (int)n, type, q, tag,
                            d->comm, &d->req[(*nr)++]) == MPI_SUCCESS;
    }
    for (int q = 0; q < d->size; q++) {
        const size_t n = (size_t)(soff[q + 1] - soff[q]) * w;
        if (n)
            ok &= MPI_Isend((const char *)sbuf + (size_t)soff[q] * w * esize, (int)n, type, q,
                            tag, d->comm, &d->req[(*nr)++]) == MPI_SUCCESS;
        if (sent) *sent += (int64_t)(n * esize);
    }
    return ok;
}

/* Forward, after layer io->layer's projection: each array's rows that peers hold as halo go out
 * (packed per peer), the halo's come in from their owners straight into its rows. One message
 * per peer and array, started here and completed by projections_arrived, which the engine calls
 * after attending the own rows without halo sources. */
static void send_projections(gat_dist *d, gat_i_remote_io *io)
{
    const int K = d->size;
    const size_t ns = (size_t)d->soff[K];
    gat_real *arr[4] = {io->z, io->s_src, io->k, io->qinv};
    const size_t w[4] = {(size_t)io->hw, (size_t)io->H, (size_t)io->hw, (size_t)io->H};
    int nr = 0, ok = 1;
    size_t off = 0;
    for (int a = 0; a < 4; a++) {
        if (!arr[a]) continue;
        gat_real *sb = d->buf + off;
        for (size_t t = 0; t < ns; t++)
            memcpy(sb + t * w[a], arr[a] + (size_t)d->sidx[t] * w[a], w[a] * sizeof *sb);
        ok &= post_rows(d, arr[a] + (size_t)d->no * w[a], d->hoff, sb, d->soff, w[a],
                        MPI_GAT_REAL, sizeof *sb, 8 * io->layer + a, &nr, &d->stats.sent_bytes);
        off += ns * w[a];
    }
    d->n_req = nr;
    if (!ok) d->failed = 1;
}

/* The forward's transfers, completed (gat_i_remote.finish). */
static void projections_arrived(void *user, gat_i_remote_io *io)
{
    gat_dist *d = user;
    const double t0 = now();
    (void)io;
    if (MPI_Waitall(d->n_req, d->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) d->failed = 1;
    d->n_req = 0;
    d->stats.exchange_seconds += now() - t0;
}

/* Backward: the halo rows' projection gradients (in their rows of z, and k) go to their owners;
 * the gradients peers computed for our rows arrive in d->buf, z's then k's, slot t for sidx[t]
 * (the engine adds them per row in slot order, which is rank order). */
static void return_gradients(gat_dist *d, gat_i_remote_io *io)
{
    const int K = d->size;
    const size_t ns = (size_t)d->soff[K], w = (size_t)io->hw;
    gat_real *arr[2] = {io->z, io->k};
    int nr = 0, ok = 1;
    io->add_z = d->buf;
    io->add_k = io->k ? d->buf + ns * w : NULL;
    for (int a = 0; a < 2; a++) {
        if (!arr[a]) continue;
        ok &= post_rows(d, d->buf + (size_t)a * ns * w, d->soff, arr[a] + (size_t)d->no * w,
                        d->hoff, w, MPI_GAT_REAL, sizeof *d->buf, 8 * io->layer + 4 + a, &nr,
                        &d->stats.sent_bytes);
    }
    ok &= MPI_Waitall(nr, d->req, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
    if (!ok) {
        d->failed = 1;
        /* nothing half-received is added */
        memset(d->buf, 0, (io->k ? 2 : 1) * ns * w * sizeof *d->buf);
    }
}

static void exchange(void *user, int backward, gat_i_remote_io *io)
{
    gat_dist *d = user;
    const double t0 = now();
    if (backward)
        return_gradients(d, io);
    else
        send_projections(d, io);
    d->stats.exchange_seconds += now() - t0;
}

/* The restricted forwards' plans, made with the other ranks (gat_i_remote.agree, .need). */
static void plan_agree(void *user, int64_t v[3])
{
    gat_dist *d = user;
    int64_t in[3] = {v[0], v[1], v[2]};
    if (MPI_Allreduce(in, v, 3, MPI_INT64_T, MPI_MAX, d->comm) != MPI_SUCCESS) {
        d->failed = 1;
        v[0] = -2, v[1] = 2, v[2] = in[2]; /* make a plan: need's failure marks every row */
    }
}

/* mark's halo flags go to their owners; the own rows a peer flags are flagged here */
static void plan_need(void *user, int layer, uint8_t *mark)
{
    gat_dist *d = user;
    const size_t ns = (size_t)d->soff[d->size];
    uint8_t *rb = (uint8_t *)d->buf; /* (rows sent) bytes: the buffer holds as many reals */
    int nr = 0;
    int ok = post_rows(d, rb, d->soff, mark + d->no, d->hoff, 1, MPI_BYTE, 1, 8 * layer + 6, &nr,
                       NULL);
    ok &= MPI_Waitall(nr, d->req, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
    if (!ok) { /* every own row (the failure is reported after the pass) */
        d->failed = 1;
        memset(mark, 1, (size_t)d->no);
        return;
    }
    for (size_t t = 0; t < ns; t++)
        if (rb[t]) mark[d->sidx[t]] = 1;
}

/* Binds m to the local graph for the exchange (order none, keys, remote rows). */
static gat_status attach(gat_model *m, gat_dist *d, gat_order *saved)
{
    const gat_model_config *c = gat_model_get_config(m);
    gat_status st = GAT_OK;
    *saved = gat_model_order(m, NULL);
    if (c->in_features != d->p->n_features || c->classes != d->p->n_classes)
        st = gat_i_error(GAT_EDIM, "the partition's dataset has %d features and %d classes but "
                         "the model expects %d and %d", d->p->n_features, d->p->n_classes,
                         c->in_features, c->classes);
    else if (c->edge_dim > 0 && c->edge_dim != d->own.n_edge_features)
        st = gat_i_error(GAT_EDIM, "the model reads %d edge features but the partition's "
                         "edges carry %d", c->edge_dim, d->own.n_edge_features);
    d->remote = (gat_i_remote){.n_own = d->no, .add_ptr = d->add_ptr, .add_slot = d->add_slot,
                               .exchange = exchange, .finish = projections_arrived,
                               .agree = plan_agree,
                               .need = plan_need, .user = d};
    if (st == GAT_OK && (st = gat_model_set_order(m, GAT_ORDER_NONE)) == GAT_OK) {
        gat_i_model_set_remote(m, &d->remote);
        st = c->edge_dim > 0 ? gat_i_model_bind_edges_of(m, &d->g, &d->x, d->ex, c->edge_dim, 0)
                             : gat_model_bind(m, &d->g, &d->x, 0);
    }
    /* the exchange's buffer for a layer's widest rows, now (the passes allocate nothing):
     * forward z (hw), s_src (gat: H), k (separate keys: hw), qinv (cosine: H) sent; backward the
     * gradients of z and k received */
    size_t w = 1;
    const gat_score S = c->score;
    const size_t nk = (size_t)gat_i_score_has_k(S);
    for (gat_idx l = 0; st == GAT_OK && l < gat_model_layer_count(m); l++) {
        const size_t H = (size_t)gat_model_layer_heads(m, l);
        const size_t hw = (size_t)gat_i_fused_fp((int)H, gat_model_layer_width(m, l) / (gat_idx)H) * H;
        const size_t fwd = hw * (1 + nk) + (S == GAT_SCORE_GAT || S == GAT_SCORE_COSINE ? H : 0);
        const size_t r = fwd > hw * (1 + nk) ? fwd : hw * (1 + nk);
        w = r > w ? r : w;
    }
    if (st == GAT_OK && !grow(d, (size_t)d->soff[d->size] * w + 1)) st = GAT_ENOMEM;
    if (st != GAT_OK) gat_i_model_set_remote(m, NULL);
    if ((st = agree(d->comm, d->rank, d->size, st)) != GAT_OK) return st;
    d->failed = 0;
    gat_i_model_set_keys(m, d->gid, d->xkey, d->ekey, d->tekey);
    return GAT_OK;
}

/* The model's binding stays (its outputs are read after a forward); the next forward outside
 * the dist's calls binds again (gat_i_model_set_remote). */
static void detach(gat_model *m)
{
    gat_i_model_set_remote(m, NULL);
    gat_i_model_set_keys(m, NULL, NULL, NULL, NULL);
}

/* The exchange's failures (allocation or MPI) after a pass, agreed. */
static gat_status pass_status(gat_dist *d, gat_status st)
{
    if (st == GAT_OK && d->failed)
        st = gat_i_error(GAT_EDEP, "rank %d: the halo exchange failed (out of memory or an MPI "
                         "error)", d->rank);
    d->failed = 0;
    return agree(d->comm, d->rank, d->size, st);
}

/* Sums of n doubles over the ranks, in rank order, the same on every rank. */
static gat_status sum_doubles(gat_dist *d, double *v, int n)
{
    double *all = d->sums; /* (size, 2), made by create: nothing allocated between collectives */
    const int rc = MPI_Allgather(v, n, MPI_DOUBLE, all, n, MPI_DOUBLE, d->comm);
    if (rc == MPI_SUCCESS)
        for (int k = 0; k < n; k++) {
            double s = 0;
            for (int q = 0; q < d->size; q++) s += all[(size_t)q * (size_t)n + (size_t)k];
            v[k] = s;
        }
    return rc == MPI_SUCCESS ? GAT_OK : mpi_failed("gat_dist", "MPI_Allgather", rc);
}

static gat_status forward_logits(gat_model *m, gat_dist *d, const gat_real **logits)
{
    gat_status st = gat_model_forward(m, &d->g, &d->x, 0, logits);
    return pass_status(d, st);
}

static gat_status evaluate(gat_model *m, gat_dist *d, gat_split which, double *loss, double *acc)
{
    const int s = which == GAT_SPLIT_TRAIN ? 0 : which == GAT_SPLIT_VAL ? 1 : 2;
    const gat_real *logits;
    /* the split's rows alone (every rank's, the plans made together) */
    gat_i_model_set_output_rows(m, d->rows[s], d->n_rows[s]);
    gat_status st = forward_logits(m, d, &logits);
    gat_i_model_set_output_rows(m, NULL, 0);
    if (st != GAT_OK) return st;
    if (d->g_rows[s] == 0) return gat_i_error(GAT_EINVAL, "no node in split %d", (int)which);
    double v[2] = {0, 0};
    st = gat_i_xent_rows(logits, d->nl, d->p->n_classes, d->labels, d->rows[s], d->n_rows[s],
                         d->g_rows[s], &v[0], &v[1]);
    if ((st = agree(d->comm, d->rank, d->size, st)) != GAT_OK ||
        (st = sum_doubles(d, v, 2)) != GAT_OK)
        return st;
    *loss = v[0];
    *acc = v[1];
    return GAT_OK;
}

gat_status gat_dist_forward(gat_model *m, gat_dist *d, const gat_real **logits)
{
    gat_order saved;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_dist_forward", 3, (const void *[]){m, d, logits},
                               (const char *[]){"model m", "dist d", "logits"})) != GAT_OK)
        return st;
    if ((st = attach(m, d, &saved)) != GAT_OK) return st;
    st = forward_logits(m, d, logits);
    detach(m);
    return st;
}

gat_status gat_dist_evaluate(gat_model *m, gat_dist *d, gat_split which, double *loss,
                             double *acc)
{
    gat_order saved;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_dist_evaluate", 4, (const void *[]){m, d, loss, acc},
                               (const char *[]){"model m", "dist d", "loss", "acc"})) != GAT_OK)
        return st;
    if ((st = attach(m, d, &saved)) != GAT_OK) return st;
    st = evaluate(m, d, which, loss, acc);
    detach(m);
    return st;
}

gat_status gat_dist_gather(gat_dist *d, const gat_real *rows, gat_idx width, int root,
                           gat_real *out)
{
    static const char *fn = "gat_dist_gather";
    gat_status st = GAT_OK;
    gat_i_clear_error();
    if (!d || (!rows && d->no > 0) || width < 1)
        return gat_i_error(GAT_EINVAL, "%s: NULL dist or rows, or width %d < 1", fn, width);
    const int K = d->size, me = d->rank == root;
    const size_t w = (size_t)width;
    int *cnt = NULL, *dis = NULL;
    gat_idx *ids = NULL;
    gat_real *all = NULL;
    if (me && !out) st = gat_i_error(GAT_EINVAL, "%s: NULL out on the root", fn);
    if (st == GAT_OK && me &&
        (!(cnt = gat_malloc((size_t)K, sizeof *cnt)) || !(dis = gat_malloc((size_t)K, sizeof *dis)) ||
         !(ids = gat_malloc((size_t)d->p->n_global + 1, sizeof *ids)) ||
         !(all = gat_malloc((size_t)d->p->n_global * w + 1, sizeof *all))))
        st = GAT_ENOMEM;
    if ((st = agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    int n = (int)d->no, rc;
    if ((rc = MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, root, d->comm)) != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Gather", rc);
        goto done;
    }
    if (me) {
        int64_t s = 0;
        for (int q = 0; q < K; q++) dis[q] = (int)s, s += cnt[q];
    }
    if ((rc = MPI_Gatherv(d->gid, n, MPI_INT, ids, cnt, dis, MPI_INT, root,
                          d->comm)) != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Gatherv", rc);
        goto done;
    }
    if (me)
        for (int q = 0; q < K; q++) dis[q] *= (int)w, cnt[q] *= (int)w;
    if (d->no * w > (size_t)INT32_MAX || (me && (size_t)d->p->n_global * w > (size_t)INT32_MAX)) {
        st = gat_i_error(GAT_EINVAL, "%s: %d x %d values exceed one MPI message", fn,
                         d->p->n_global, width);
    }
    if ((st = agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    if ((rc = MPI_Gatherv(rows, (int)(d->no * w), MPI_GAT_REAL, all, cnt, dis, MPI_GAT_REAL,
                          root, d->comm)) != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Gatherv", rc);
        goto done;
    }
    if (me)
        for (gat_idx t = 0; t < d->p->n_global; t++)
            memcpy(out + (size_t)ids[t] * w, all + (size_t)t * w, w * sizeof *out);
done:
    gat_free(cnt);
    gat_free(dis);
    gat_free(ids);
    gat_free(all);
    return st;
}

/* ---- training ---- */

typedef struct dtrain {
    gat_model *m;
    gat_dist *d;
    const gat_train_config *cfg;
    gat_real *all; /* (K, P) every rank's gradients */
} dtrain;

static gat_status reduce_grads(void *u, gat_real *grads, size_t P, double *loss, double *acc)
{
    dtrain *t = u;
    gat_dist *d = t->d;
    gat_status st = pass_status(d, GAT_OK);
    if (st != GAT_OK) return st;
    const int rc = MPI_Allgather(grads, (int)P, MPI_GAT_REAL, t->all, (int)P, MPI_GAT_REAL, d->comm);
    if (rc != MPI_SUCCESS) return mpi_failed("gat_dist_train", "MPI_Allgather", rc);
    for (size_t k = 0; k < P; k++) {
        gat_real s = t->all[k];
        for (int q = 1; q < d->size; q++) s += t->all[(size_t)q * P + k];
        grads[k] = s;
    }
    double v[2] = {*loss, *acc};
    if ((st = sum_doubles(d, v, 2)) != GAT_OK) return st;
    *loss = v[0];
    *acc = v[1];
    return GAT_OK;
}

static gat_status dist_train_epoch(void *u, gat_idx epoch, double *loss, double *acc,
                                   int *diverged)
{
    dtrain *t = u;
    gat_dist *d = t->d;
    const gat_i_step_opts o = {.denom = d->g_rows[0], .reduce = reduce_grads, .user = t};
    const int64_t s0 = d->stats.sent_bytes;
    gat_status st = gat_i_train_step_with(t->m, &d->g, &d->x, d->labels, d->rows[0],
                                          d->n_rows[0], &t->cfg->adam, epoch, loss, acc,
                                          "epoch", "; the best model so far is kept", &o,
                                          diverged);
    d->stats.epoch_bytes = d->stats.sent_bytes - s0;
    return st;
}

static gat_status dist_evaluate(void *u, gat_split which, int final, double *loss, double *acc)
{
    dtrain *t = u;
    (void)final;
    return evaluate(t->m, t->d, which, loss, acc);
}

static int dist_agree(void *u, int stop)
{
    dtrain *t = u;
    int any = stop;
    if (MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_MAX, t->d->comm) != MPI_SUCCESS) return 1;
    return any;
}

gat_status gat_dist_train(gat_model *m, gat_dist *d, const gat_train_config *cfg,
                          gat_train_result *res)
{
    static const char *fn = "gat_dist_train";
    gat_order saved;
    gat_status st;
    size_t P;
    gat_i_clear_error();
    if ((st = gat_i_check_args(fn, 3, (const void *[]){m, d, cfg},
                               (const char *[]){"model m", "dist d", "config cfg"})) != GAT_OK)
        return st;
    st = gat_i_train_config_check(m, cfg);
    if (st == GAT_OK && cfg->batch_size != 0)
        st = gat_i_error(GAT_EINVAL, "%s: batch_size = %d: distributed training is full-graph "
                         "(batch_size 0)", fn, cfg->batch_size);
    if (st == GAT_OK && (d->g_rows[0] == 0 || d->g_rows[1] == 0))
        st = gat_i_error(GAT_EINVAL, "%s: the partition's dataset has %.0f training and %.0f "
                         "validation nodes; both must be non-zero", fn, d->g_rows[0], d->g_rows[1]);
    dtrain t = {.m = m, .d = d, .cfg = cfg};
    gat_real *params = gat_model_params(m, &P), *m1, *m2;
    if (st == GAT_OK && !(t.all = gat_malloc((size_t)d->size * P, sizeof *t.all)))
        st = GAT_ENOMEM;
    if ((st = agree(d->comm, d->rank, d->size, st)) != GAT_OK) goto done;
    /* rank 0's model: parameters, Adam's moments and the dropout step */
    gat_i_model_moments(m, &m1, &m2);
    uint64_t step = gat_i_model_step(m);
    int rc;
    if ((rc = MPI_Bcast(params, (int)P, MPI_GAT_REAL, 0, d->comm)) != MPI_SUCCESS ||
        (rc = MPI_Bcast(m1, (int)P, MPI_GAT_REAL, 0, d->comm)) != MPI_SUCCESS ||
        (rc = MPI_Bcast(m2, (int)P, MPI_GAT_REAL, 0, d->comm)) != MPI_SUCCESS ||
        (rc = MPI_Bcast(&step, 1, MPI_UINT64_T, 0, d->comm)) != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Bcast", rc);
        goto done;
    }
    gat_i_model_set_step(m, step);
    if ((st = attach(m, d, &saved)) != GAT_OK) goto done;
    const gat_i_train_ops ops = {.train = dist_train_epoch, .evaluate = dist_evaluate,
                                 .agree = dist_agree, .has_test = d->g_rows[2] > 0};
    st = gat_i_train_loop(m, cfg, &ops, &t, res);
    detach(m);
    if (saved != GAT_ORDER_NONE) gat_model_set_order(m, saved);
done:
    gat_free(t.all);
    return st;
}

/* ---- embeddings, predictions and node ids on one rank ---- */

gat_status gat_dist_embed(gat_model *m, gat_dist *d, int layer, int root, gat_real *out)
{
    const gat_real *logits, *y;
    gat_real *rows = NULL;
    gat_status st;
    gat_i_clear_error();
    if (!m || !d) return gat_i_error(GAT_EINVAL, "gat_dist_embed: NULL %s", !m ? "model m" : "dist d");
    const gat_idx w = gat_model_embed_width(m, layer);
    if (w < 0)
        return gat_i_error(GAT_EINVAL, "gat_dist_embed: no layer %d: the model has layers 0..%d, "
                           "GAT_LAYER_LOGITS and GAT_LAYER_PROBS", layer,
                           gat_model_layer_count(m) - 1);
    if ((st = gat_dist_forward(m, d, &logits)) != GAT_OK) return st;
    const int l = layer < 0 ? (int)gat_model_layer_count(m) - 1 : layer;
    st = gat_model_layer_output(m, (gat_idx)l, &y);
    if (st == GAT_OK && !(rows = gat_malloc((size_t)d->no * (size_t)w + 1, sizeof *rows)))
        st = GAT_ENOMEM;
    if (st == GAT_OK) {
        memcpy(rows, y, (size_t)d->no * (size_t)w * sizeof *rows);
        if (layer == GAT_LAYER_PROBS) gat_i_softmax_rows(rows, (size_t)d->no, (size_t)w);
    }
    if ((st = agree(d->comm, d->rank, d->size, st)) == GAT_OK)
        st = gat_dist_gather(d, rows, w, root, out);
    gat_free(rows);
    return st;
}

gat_status gat_dist_predict(gat_model *m, gat_dist *d, int root, gat_idx *classes,
                            gat_real *probability)
{
    const gat_real *logits;
    gat_real *rows = NULL, *all = NULL;
    gat_status st;
    gat_i_clear_error();
    if (!m || !d) return gat_i_error(GAT_EINVAL, "gat_dist_predict: NULL %s", !m ? "model m" : "dist d");
    const gat_idx C = gat_model_get_config(m)->classes;
    const int me = d->rank == root;
    if ((st = gat_dist_forward(m, d, &logits)) != GAT_OK) return st;
    if (me && (!classes || !probability))
        st = gat_i_error(GAT_EINVAL, "gat_dist_predict: NULL classes or probability on the root");
    else if (!(rows = gat_malloc((size_t)d->no * (size_t)C + 1, sizeof *rows)) ||
             (me && !(all = gat_malloc((size_t)d->p->n_global * (size_t)C + 1, sizeof *all))))
        st = GAT_ENOMEM;
    if (st == GAT_OK) memcpy(rows, logits, (size_t)d->no * (size_t)C * sizeof *rows);
    if ((st = agree(d->comm, d->rank, d->size, st)) == GAT_OK &&
        (st = gat_dist_gather(d, rows, C, root, all)) == GAT_OK && me)
        gat_i_predict_rows(all, d->p->n_global, C, classes, probability);
    gat_free(rows);
    gat_free(all);
    return st;
}

gat_status gat_dist_gather_ids(gat_dist *d, int root, char ***ids)
{
    static const char *fn = "gat_dist_gather_ids";
    gat_status st = GAT_OK;
    gat_i_clear_error();
    if (!d || !ids) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !d ? "dist d" : "ids");
    *ids = NULL;
    const int K = d->size, me = d->rank == root;
    const gat_part *p = d->p;
    const size_t N = (size_t)p->n_global;
    size_t len = 0;
    char *mine = NULL, *text = NULL, **out = NULL;
    int *cnt = NULL, *dis = NULL, *gid = NULL, n, rc;
    if (!p->node_ids) return gat_i_error(GAT_EINVAL, "%s: the part has no node ids", fn);
    for (gat_idx i = 0; i < d->no; i++) len += strlen(p->node_ids[i]) + 1;
    if (len > (size_t)INT32_MAX)
        st = gat_i_error(GAT_EINVAL, "%s: rank %d: %zu bytes of node ids exceed one MPI message",
                         fn, d->rank, len);
    else if (!(mine = gat_malloc(len + 1, 1)) ||
             (me && (!(cnt = gat_malloc((size_t)K, sizeof *cnt)) ||
                     !(dis = gat_malloc((size_t)K, sizeof *dis)) ||
                     !(gid = gat_malloc(N + 1, sizeof *gid)))))
        st = GAT_ENOMEM;
    if ((st = agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    len = 0;
    for (gat_idx i = 0; i < d->no; i++) {
        const char *id = p->node_ids[i];
        const size_t l = strlen(id) + 1;
        memcpy(mine + len, id, l);
        len += l;
    }
    /* the global ids first (the order of the strings), then the strings */
    n = (int)d->no;
    if ((rc = MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, root, d->comm)) != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Gather", rc);
        goto done;
    }
    if (me)
        for (int q = 0, s = 0; q < K; q++) dis[q] = s, s += cnt[q];
    if ((rc = MPI_Gatherv(d->gid, n, MPI_INT, gid, cnt, dis, MPI_INT, root, d->comm)) !=
        MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Gatherv", rc);
        goto done;
    }
    n = (int)len;
    if ((rc = MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, root, d->comm)) != MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Gather", rc);
        goto done;
    }
    size_t total = 0;
    if (me) {
        for (int q = 0; q < K; q++) total += (size_t)cnt[q];
        if (total > (size_t)INT32_MAX)
            st = gat_i_error(GAT_EINVAL, "%s: %zu bytes of node ids exceed one MPI message", fn,
                             total);
        else if (!(out = gat_malloc(N + 1, sizeof *out)) || !(text = gat_malloc(total + 1, 1)))
            st = GAT_ENOMEM;
        else
            for (int q = 0, s = 0; q < K; q++) dis[q] = s, s += cnt[q];
    }
    if ((st = agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    if ((rc = MPI_Gatherv(mine, n, MPI_CHAR, text, cnt, dis, MPI_CHAR, root, d->comm)) !=
        MPI_SUCCESS) {
        st = mpi_failed(fn, "MPI_Gatherv", rc);
        goto done;
    }
    if (me) {
        /* one block: the pointers, then the strings (gat_dist_ids_free frees both) */
        char **blk = gat_realloc(out, N + 1 + (total + sizeof(char *)) / sizeof(char *) + 1,
                                 sizeof *blk);
        if (!blk) {
            st = GAT_ENOMEM;
            goto done;
        }
        out = blk;
        char *str = (char *)(out + N + 1);
        memcpy(str, text, total);
        size_t o = 0;
        for (size_t t = 0; t < N; t++) {
            out[gid[t]] = str + o;
            o += strlen(str + o) + 1;
        }
        out[N] = NULL;
        *ids = out;
        out = NULL;
    }
done:
    gat_free(mine);
    gat_free(text);
    gat_free(out);
    gat_free(cnt);
    gat_free(dis);
    gat_free(gid);
    return st;
}

void gat_dist_ids_free(char **ids)
{
    gat_free(ids);
}
