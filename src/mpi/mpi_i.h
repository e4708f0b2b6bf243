/* Private: a rank's state of distributed training (struct gat_dist) and what the files of
 * src/mpi share: local.c builds the local graph, halo.c exchanges the halo rows in every layer,
 * collective.c holds the agreed statuses, sums and gathers, train.c the distributed passes. */
#ifndef GAT_I_MPI_H
#define GAT_I_MPI_H

#include "gat/dist.h"
#include "model/model_i.h"

#ifdef GAT_REAL_DOUBLE
#define MPI_GAT_REAL MPI_DOUBLE
#else
#define MPI_GAT_REAL MPI_FLOAT
#endif

struct gat_dist {
    MPI_Comm comm;
    int rank, size;
    const gat_part *p;
    gat_idx no, nh, nl;    /* owned, halo, local nodes */
    gat_graph g;           /* (nl) owned rows' in-edges; halo rows none (sources only) */
    gat_csr x;             /* (nl, F) owned features, then an empty row per halo node */
    gat_real *ex;          /* (g.nnz, D) the edges' features in g's in-CSR order, or NULL */
    int64_t *xkey, *ekey;  /* dropout keys (gat_i_binding) */
    int64_t *tekey;        /* ekey in the out-CSR's order (the sources pass reads it in turn) */
    gat_idx *labels;       /* (nl) owned labels, -1 on the halo */
    gat_idx *gid;          /* (nl) the whole graph's id of each local row */
    gat_idx *perm;         /* (nl) the part's local row at each local row, or NULL (the
                            * part's order) */
    gat_idx *hperm;        /* (nh) the part's halo row at each halo position, or NULL */
    gat_part own;          /* the part's sizes and names kept (d->p after create) */
    char **ids, **classes; /* own.node_ids (local order) and own.class_names */
    gat_idx *rows[3], n_rows[3]; /* owned train, val, test rows */
    double g_rows[3];            /* the whole graph's counts of them */
    /* the exchange: peer q's halo rows are local no + hoff[q] .. no + hoff[q + 1] - 1; the
     * rows q holds of ours are sidx[soff[q] .. soff[q + 1] - 1] */
    gat_idx *hoff, *soff, *sidx;
    gat_idx *add_ptr, *add_slot; /* (no + 1), (rows sent): gat_i_remote's slots of own rows */
    gat_i_remote remote;         /* the engine's view of the halo */
    gat_i_binding bind;          /* the local graph's binding: g, x, ex, keys, remote rows */
    gat_real *buf;               /* (rows sent, the widest projection rows of a layer) */
    double *sums;                /* (size, 2): sum_doubles' all-gather */
    size_t buf_cap;
    MPI_Request *req; /* (8 size): 4 arrays a layer, in and out per peer */
    int n_req;        /* the forward's requests in flight (send_projections) */
    int failed;       /* an MPI call of the exchange failed (reported after the pass) */
    gat_dist_stats stats;
};

/* ---- collective.c ---- */

/* CLOCK_MONOTONIC seconds. */
double gat_i_dist_now(void);

/* GAT_EDEP with "FN: CALL failed: <MPI's error string>". */
gat_status gat_i_dist_mpi_failed(const char *fn, const char *call, int rc);

/* Every rank's status: GAT_OK if all are; else a failing rank returns its own status and
 * message, and every other rank the first failing rank's status with the message "rank R
 * failed: <its message>". Allocates nothing (a rank short of memory still takes part). */
gat_status gat_i_dist_agree(MPI_Comm comm, int rank, int size, gat_status st);

/* Sums of n (<= 2) doubles over the ranks, in rank order, the same on every rank. */
gat_status gat_i_dist_sum_doubles(gat_dist *d, double *v, int n);

/* ---- halo.c ---- */

/* Binds m to d's local graph (d->bind: keys, remote rows; trusted, never renumbered) and sizes
 * the exchange's buffer. The binding stays after the dist's calls (their outputs are read after
 * a forward); a forward on other inputs binds those. Collective; statuses agreed. */
gat_status gat_i_dist_attach(gat_model *m, gat_dist *d);

/* The exchange's failures (allocation or MPI) after a pass, folded into st and agreed. */
gat_status gat_i_dist_pass_status(gat_dist *d, gat_status st);

#endif
