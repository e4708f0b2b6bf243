/* The halo exchange of distributed training (gat/dist.h): in every layer's forward the
 * projections peers hold as halo go out and the halo's come in (the engine's remote rows,
 * gat_i_remote), in the backward their gradients return to the owners; the restricted forwards'
 * plans are made with the peers. attach binds a model to the local graph for it. */
#include "mpi/mpi_i.h"
#include "core/core.h"
#include "layers/fused.h"

#include <string.h>

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
            ok &= MPI_Isend((const char *)sbuf + (size_t)soff[q] * w * esize, (int)n, type, q, tag,
                            d->comm, &d->req[(*nr)++]) == MPI_SUCCESS;
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
        ok &= post_rows(d, arr[a] + (size_t)d->no * w[a], d->hoff, sb, d->soff, w[a], MPI_GAT_REAL,
                        sizeof *sb, 8 * io->layer + a, &nr, &d->stats.sent_bytes);
        off += ns * w[a];
    }
    d->n_req = nr;
    if (!ok) d->failed = 1;
}

/* The forward's transfers, completed (gat_i_remote.finish). */
static void projections_arrived(void *user, gat_i_remote_io *io)
{
    gat_dist *d = user;
    const double t0 = gat_i_dist_now();
    (void)io;
    if (MPI_Waitall(d->n_req, d->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) d->failed = 1;
    d->n_req = 0;
    d->stats.exchange_seconds += gat_i_dist_now() - t0;
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
    const double t0 = gat_i_dist_now();
    if (backward)
        return_gradients(d, io);
    else
        send_projections(d, io);
    d->stats.exchange_seconds += gat_i_dist_now() - t0;
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
    int ok =
        post_rows(d, rb, d->soff, mark + d->no, d->hoff, 1, MPI_BYTE, 1, 8 * layer + 6, &nr, NULL);
    ok &= MPI_Waitall(nr, d->req, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
    if (!ok) { /* every own row (the failure is reported after the pass) */
        d->failed = 1;
        memset(mark, 1, (size_t)d->no);
        return;
    }
    for (size_t t = 0; t < ns; t++)
        if (rb[t]) mark[d->sidx[t]] = 1;
}

gat_status gat_i_dist_attach(gat_model *m, gat_dist *d)
{
    const gat_model_config *c = gat_model_get_config(m);
    gat_status st = GAT_OK;
    if (c->in_features != d->p->n_features || c->classes != d->p->n_classes)
        st = gat_i_error(GAT_EDIM,
                         "the partition's dataset has %d features and %d classes but "
                         "the model expects %d and %d",
                         d->p->n_features, d->p->n_classes, c->in_features, c->classes);
    else if (c->edge_dim > 0 && c->edge_dim != d->own.n_edge_features)
        st = gat_i_error(GAT_EDIM,
                         "the model reads %d edge features but the partition's "
                         "edges carry %d",
                         c->edge_dim, d->own.n_edge_features);
    d->remote = (gat_i_remote){.n_own = d->no,
                               .add_ptr = d->add_ptr,
                               .add_slot = d->add_slot,
                               .exchange = exchange,
                               .finish = projections_arrived,
                               .agree = plan_agree,
                               .need = plan_need,
                               .user = d};
    /* the local graph was built by gat_dist_create: bound without a check */
    d->bind = (gat_i_binding){.g = &d->g,
                              .x = &d->x,
                              .ex = c->edge_dim > 0 ? d->ex : NULL,
                              .rkey = d->gid,
                              .xkey = d->xkey,
                              .ekey = d->ekey,
                              .tekey = d->tekey,
                              .remote = &d->remote,
                              .flags = GAT_I_BIND_TRUSTED};
    if (st == GAT_OK) st = gat_i_model_bind(m, &d->bind, "gat_dist");
    /* the exchange's buffer for a layer's widest rows, now (the passes allocate nothing):
     * forward z (hw), s_src (gat: H), k (separate keys: hw), qinv (cosine: H) sent; backward the
     * gradients of z and k received */
    int n_layers;
    const gat_i_layer *L = gat_i_model_layers(m, &n_layers);
    size_t w = 1;
    for (int l = 0; st == GAT_OK && l < n_layers; l++) {
        const size_t H = (size_t)L[l].heads, hw = (size_t)L[l].hw, nk = (size_t)L[l].has_k;
        const gat_score S = L[l].score;
        const size_t fwd = hw * (1 + nk) + (S == GAT_SCORE_GAT || S == GAT_SCORE_COSINE ? H : 0);
        w = fwd > w ? fwd : w;
    }
    if (st == GAT_OK && !grow(d, (size_t)d->soff[d->size] * w + 1)) st = GAT_ENOMEM;
    if ((st = gat_i_dist_agree(d->comm, d->rank, d->size, st)) != GAT_OK) return st;
    d->failed = 0;
    return GAT_OK;
}

/* The exchange's failures (allocation or MPI) after a pass, agreed. */
gat_status gat_i_dist_pass_status(gat_dist *d, gat_status st)
{
    if (st == GAT_OK && d->failed)
        st = gat_i_error(GAT_EDEP,
                         "rank %d: the halo exchange failed (out of memory or an MPI "
                         "error)",
                         d->rank);
    d->failed = 0;
    return gat_i_dist_agree(d->comm, d->rank, d->size, st);
}
