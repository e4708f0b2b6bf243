/* Distributed training's collectives (gat/dist.h): statuses agreed over the ranks, sums in rank
 * order, and the gathers of rows and node ids onto one rank. */
#include "mpi/mpi_i.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

double gat_i_dist_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

gat_status gat_i_dist_mpi_failed(const char *fn, const char *call, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", rc);
    return gat_i_error(GAT_EDEP, "%s: %s failed: %s", fn, call, s);
}

/* The first failing rank's status and message travel to every rank (mpi_i.h). */
gat_status gat_i_dist_agree(MPI_Comm comm, int rank, int size, gat_status st)
{
    int bad = st != GAT_OK ? rank : size, first = size;
    int rc = MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return gat_i_dist_mpi_failed("gat_dist", "MPI_Allreduce", rc);
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
        return gat_i_dist_mpi_failed("gat_dist", "MPI_Bcast", rc);
    if (st != GAT_OK) return st;
    return gat_i_error((gat_status)m.st, "rank %d failed: %s", first, m.msg);
}

gat_status gat_i_dist_sum_doubles(gat_dist *d, double *v, int n)
{
    double *all = d->sums; /* (size, 2), made by create: nothing allocated between collectives */
    const int rc = MPI_Allgather(v, n, MPI_DOUBLE, all, n, MPI_DOUBLE, d->comm);
    if (rc == MPI_SUCCESS)
        for (int k = 0; k < n; k++) {
            double s = 0;
            for (int q = 0; q < d->size; q++)
                s += all[(size_t)q * (size_t)n + (size_t)k];
            v[k] = s;
        }
    return rc == MPI_SUCCESS ? GAT_OK : gat_i_dist_mpi_failed("gat_dist", "MPI_Allgather", rc);
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
        (!(cnt = gat_malloc((size_t)K, sizeof *cnt)) ||
         !(dis = gat_malloc((size_t)K, sizeof *dis)) ||
         !(ids = gat_malloc((size_t)d->p->n_global + 1, sizeof *ids)) ||
         !(all = gat_malloc((size_t)d->p->n_global * w + 1, sizeof *all))))
        st = GAT_ENOMEM;
    if ((st = gat_i_dist_agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    int n = (int)d->no, rc;
    if ((rc = MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, root, d->comm)) != MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Gather", rc);
        goto done;
    }
    if (me) {
        int64_t s = 0;
        for (int q = 0; q < K; q++)
            dis[q] = (int)s, s += cnt[q];
    }
    if ((rc = MPI_Gatherv(d->gid, n, MPI_INT, ids, cnt, dis, MPI_INT, root, d->comm)) !=
        MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Gatherv", rc);
        goto done;
    }
    if (me)
        for (int q = 0; q < K; q++)
            dis[q] *= (int)w, cnt[q] *= (int)w;
    if (d->no * w > (size_t)INT32_MAX || (me && (size_t)d->p->n_global * w > (size_t)INT32_MAX)) {
        st = gat_i_error(GAT_EINVAL, "%s: %d x %d values exceed one MPI message", fn,
                         d->p->n_global, width);
    }
    if ((st = gat_i_dist_agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    if ((rc = MPI_Gatherv(rows, (int)(d->no * w), MPI_GAT_REAL, all, cnt, dis, MPI_GAT_REAL, root,
                          d->comm)) != MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Gatherv", rc);
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
    for (gat_idx i = 0; i < d->no; i++)
        len += strlen(p->node_ids[i]) + 1;
    if (len > (size_t)INT32_MAX)
        st = gat_i_error(GAT_EINVAL, "%s: rank %d: %zu bytes of node ids exceed one MPI message",
                         fn, d->rank, len);
    else if (!(mine = gat_malloc(len + 1, 1)) ||
             (me && (!(cnt = gat_malloc((size_t)K, sizeof *cnt)) ||
                     !(dis = gat_malloc((size_t)K, sizeof *dis)) ||
                     !(gid = gat_malloc(N + 1, sizeof *gid)))))
        st = GAT_ENOMEM;
    if ((st = gat_i_dist_agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
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
        st = gat_i_dist_mpi_failed(fn, "MPI_Gather", rc);
        goto done;
    }
    if (me)
        for (int q = 0, s = 0; q < K; q++)
            dis[q] = s, s += cnt[q];
    if ((rc = MPI_Gatherv(d->gid, n, MPI_INT, gid, cnt, dis, MPI_INT, root, d->comm)) !=
        MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Gatherv", rc);
        goto done;
    }
    n = (int)len;
    if ((rc = MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, root, d->comm)) != MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Gather", rc);
        goto done;
    }
    size_t total = 0;
    if (me) {
        for (int q = 0; q < K; q++)
            total += (size_t)cnt[q];
        if (total > (size_t)INT32_MAX)
            st = gat_i_error(GAT_EINVAL, "%s: %zu bytes of node ids exceed one MPI message", fn,
                             total);
        else if (!(out = gat_malloc(N + 1, sizeof *out)) || !(text = gat_malloc(total + 1, 1)))
            st = GAT_ENOMEM;
        else
            for (int q = 0, s = 0; q < K; q++)
                dis[q] = s, s += cnt[q];
    }
    if ((st = gat_i_dist_agree(d->comm, d->rank, K, st)) != GAT_OK) goto done;
    if ((rc = MPI_Gatherv(mine, n, MPI_CHAR, text, cnt, dis, MPI_CHAR, root, d->comm)) !=
        MPI_SUCCESS) {
        st = gat_i_dist_mpi_failed(fn, "MPI_Gatherv", rc);
        goto done;
    }
    if (me) {
        /* one block: the pointers, then the strings (gat_dist_ids_free frees both) */
        char **blk =
            gat_realloc(out, N + 1 + (total + sizeof(char *)) / sizeof(char *) + 1, sizeof *blk);
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
