/* The mini-batch loader (gat/sample.h): an epoch's batches drawn in order, each block with its
 * features, and with look-ahead one batch ahead on a thread of its own (pthreads) over two
 * slots, batch k in slot k % 2, handed over under one mutex and condition variable. */
#include "gat/sample.h"
#include "graph_i.h"
#include "core/core.h"
#include "core/gov.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct gat_loader {
    gat_sampler *s;
    const gat_csr *x;
    const gat_real *edge_x;
    gat_idx D;
    const gat_idx *order;
    gat_idx n, B, batches;
    uint64_t step0;
    gat_batch slot[2];
    size_t xrows_cap[2]; /* rows the arrays of slot[z].x hold (kept from batch to batch) */
    gat_status st[2];   /* the draw's status of the batch in each slot */
    char msg[2][512];   /* and its message (the drawing thread's, copied) */
    int full[2];        /* slot k % 2 holds batch k (drawn or failed); the consumer empties it */
    gat_idx next;       /* the batch gat_loader_next returns next */
    int threaded, stop; /* the loader's thread runs; it is to stop */
    gat_status spent;   /* a failure returned already: returned again */
    char spent_msg[512];
    double draw_s, wait_s;
    double sample_s, features_s; /* draw_s's parts: sampling, gathering features */
    int alive, peak; /* slots holding a batch (from its draw's start to its release): the
                      * bound of two, counted for the tests */
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static void batch_destroy(gat_batch *b)
{
    gat_block_destroy(&b->block);
    gat_csr_destroy(&b->x);
    gat_free(b->edge_x);
    memset(b, 0, sizeof *b);
}

/* Empties slot z for its next batch, keeping its feature matrix's arrays for that batch's
 * features (gat_i_block_features reuses them). */
static void batch_clear(gat_loader *l, int z)
{
    gat_batch *b = &l->slot[z];
    const gat_csr x = b->x;
    gat_block_destroy(&b->block);
    gat_free(b->edge_x);
    memset(b, 0, sizeof *b);
    b->x = x;
}

/* Batch k into slot k % 2 (empty), its status and message there; returns the seconds taken,
 * and those of the sampler in *sample_s. */
static double draw(gat_loader *l, gat_idx k, double *sample_s)
{
    const double t0 = gat_i_seconds();
    const int z = (int)(k % 2);
    gat_batch *b = &l->slot[z];
    const gat_idx at = k * l->B, nb = l->n - at < l->B ? l->n - at : l->B;
    gat_status st;
    b->step = l->step0 + (uint64_t)k;
    st = gat_sampler_sample(l->s, l->order + at, nb, b->step, &b->block);
    *sample_s = gat_i_seconds() - t0;
    if (st == GAT_OK &&
        (st = gat_i_block_features(&b->block, l->x, gat_i_sampler_threads_in_use(l->s), &b->x,
                                   &l->xrows_cap[z])) == GAT_OK &&
        l->D > 0) {
        if (!(b->edge_x = gat_malloc((size_t)b->block.graph.nnz, (size_t)l->D * sizeof *b->edge_x)))
            st = GAT_ENOMEM;
        else
            st = gat_block_edge_features(&b->block, l->edge_x, l->D, b->edge_x);
    }
    l->st[z] = st;
    l->msg[z][0] = 0;
    if (st != GAT_OK) {
        snprintf(l->msg[z], sizeof l->msg[z], "%s", gat_last_error());
        batch_destroy(b);
        l->xrows_cap[z] = 0;
    }
    return gat_i_seconds() - t0;
}

/* Adds a draw of t seconds, ts of them in the sampler, to l's counts (under the lock when
 * threaded). */
static void count_draw(gat_loader *l, double t, double ts)
{
    l->draw_s += t;
    l->sample_s += ts;
    l->features_s += t - ts;
}

/* The loader's thread: draws batch k as soon as slot k % 2 is empty (the consumer holds batch
 * k - 1 at most), until the last batch, a failure or stop. */
static void *run(void *arg)
{
    gat_loader *l = arg;
    pthread_mutex_lock(&l->mu);
    for (gat_idx k = 0; k < l->batches; k++) {
        while (!l->stop && l->full[k % 2])
            pthread_cond_wait(&l->cv, &l->mu);
        if (l->stop) break;
        if (++l->alive > l->peak) l->peak = l->alive;
        pthread_mutex_unlock(&l->mu);
        double ts;
        const double t = draw(l, k, &ts);
        pthread_mutex_lock(&l->mu);
        count_draw(l, t, ts);
        l->full[k % 2] = 1;
        pthread_cond_broadcast(&l->cv);
        if (l->st[k % 2] != GAT_OK) break;
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* Starts the loader's thread with every signal blocked; the caller's mask is restored. */
static int start(gat_loader *l)
{
    sigset_t all, old;
    sigfillset(&all);
    if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0) return 0;
    const int ok = pthread_create(&l->tid, NULL, run, l) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

gat_status gat_loader_create(gat_loader **out, gat_sampler *s, const gat_csr *x,
                             const gat_real *edge_x, gat_idx D, const gat_idx *order, gat_idx n,
                             gat_idx batch_size, uint64_t step0, int lookahead)
{
    gat_loader *l;
    gat_status st;
    gat_i_clear_error();
    if (out) *out = NULL;
    if ((st = gat_i_check_args("gat_loader_create", 4, (const void *[]){out, s, x, order},
                               (const char *[]){"out", "sampler s", "features x", "order"})) !=
        GAT_OK)
        return st;
    if (n < 1 || batch_size < 1)
        return gat_i_error(GAT_EINVAL, "gat_loader_create: %s = %d, expected at least 1",
                           n < 1 ? "n" : "batch_size", n < 1 ? n : batch_size);
    if (D < 0 || (D > 0 && !edge_x))
        return gat_i_error(GAT_EINVAL, "gat_loader_create: %s",
                           D < 0 ? "D < 0" : "NULL edge_x with D > 0");
    if (!(l = gat_calloc(1, sizeof *l))) return GAT_ENOMEM;
    *l = (gat_loader){.s = s,
                      .x = x,
                      .edge_x = edge_x,
                      .D = D,
                      .order = order,
                      .n = n,
                      .B = batch_size,
                      .batches = (gat_idx)(((int64_t)n + batch_size - 1) / batch_size),
                      .step0 = step0};
    if (lookahead && pthread_mutex_init(&l->mu, NULL) == 0) {
        if (pthread_cond_init(&l->cv, NULL) == 0) {
            l->threaded = start(l);
            if (!l->threaded) pthread_cond_destroy(&l->cv);
        }
        if (!l->threaded) pthread_mutex_destroy(&l->mu);
    }
    *out = l;
    return GAT_OK;
}

gat_status gat_loader_next(gat_loader *l, const gat_batch **b)
{
    gat_i_clear_error();
    if (b) *b = NULL;
    if (!l || !b) return gat_i_error(GAT_EINVAL, "gat_loader_next: NULL %s", !l ? "l" : "b");
    if (l->spent != GAT_OK) return gat_i_error(l->spent, "%s", l->spent_msg);
    if (l->next > 0) { /* the batch returned before: its slot is for batch next + 1 */
        const int z = (int)((l->next - 1) % 2);
        batch_clear(l, z);
        if (l->threaded) pthread_mutex_lock(&l->mu);
        l->full[z] = 0;
        l->alive--;
        if (l->threaded) {
            pthread_cond_broadcast(&l->cv);
            pthread_mutex_unlock(&l->mu);
        }
    }
    if (l->next >= l->batches) return GAT_OK;
    const int z = (int)(l->next % 2);
    const double t0 = gat_i_seconds();
    if (l->threaded) {
        pthread_mutex_lock(&l->mu);
        while (!l->full[z])
            pthread_cond_wait(&l->cv, &l->mu);
        pthread_mutex_unlock(&l->mu);
    } else {
        if (++l->alive > l->peak) l->peak = l->alive;
        double ts;
        const double t = draw(l, l->next, &ts);
        count_draw(l, t, ts);
        l->full[z] = 1;
    }
    l->wait_s += gat_i_seconds() - t0;
    if (l->st[z] != GAT_OK) {
        l->spent = l->st[z];
        snprintf(l->spent_msg, sizeof l->spent_msg, "%s", l->msg[z]);
        return gat_i_error(l->spent, "%s", l->spent_msg);
    }
    l->next++;
    *b = &l->slot[z];
    return GAT_OK;
}

/* l's second counts (drawing, waiting, sampling, gathering features) into t, read under the
 * loader's lock; zeros for NULL l. */
static void read_times(gat_loader *l, double t[4])
{
    t[0] = t[1] = t[2] = t[3] = 0;
    if (!l) return;
    if (l->threaded) pthread_mutex_lock(&l->mu);
    t[0] = l->draw_s, t[1] = l->wait_s, t[2] = l->sample_s, t[3] = l->features_s;
    if (l->threaded) pthread_mutex_unlock(&l->mu);
}

void gat_loader_times(gat_loader *l, double *draw_s, double *wait_s)
{
    double t[4];
    read_times(l, t);
    if (draw_s) *draw_s = t[0];
    if (wait_s) *wait_s = t[1];
}

void gat_loader_draw_times(gat_loader *l, double *sample_s, double *features_s)
{
    double t[4];
    read_times(l, t);
    if (sample_s) *sample_s = t[2];
    if (features_s) *features_s = t[3];
}

int gat_i_loader_peak(gat_loader *l)
{
    if (l->threaded) pthread_mutex_lock(&l->mu);
    const int p = l->peak;
    if (l->threaded) pthread_mutex_unlock(&l->mu);
    return p;
}

void gat_loader_free(gat_loader *l)
{
    if (!l) return;
    if (l->threaded) {
        pthread_mutex_lock(&l->mu);
        l->stop = 1;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        pthread_join(l->tid, NULL);
        pthread_cond_destroy(&l->cv);
        pthread_mutex_destroy(&l->mu);
    }
    batch_destroy(&l->slot[0]);
    batch_destroy(&l->slot[1]);
    gat_free(l);
}
