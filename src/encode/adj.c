/* The undirected simple graph of a gat_graph (gat/encode.h): neighbours of i = in-sources and
 * out-targets of i merged (both CSRs are ascending within a row), self-loops and repeats dropped. */
#include "encode_i.h"
#include "core/core.h"

#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <time.h>

/* Merges the two ascending lists of node i, without i, into out (NULL: counts only). */
static gat_idx merge_row(const gat_graph *g, gat_idx i, gat_idx *out)
{
    gat_idx a = g->rowptr[i], ae = g->rowptr[i + 1], b = g->t_rowptr[i], be = g->t_rowptr[i + 1];
    gat_idx m = 0, last = -1;
    while (a < ae || b < be) {
        gat_idx j;
        if (b >= be || (a < ae && g->col[a] <= g->t_col[b])) j = g->col[a++];
        else j = g->t_col[b++];
        if (j == i || j == last) continue;
        if (out) out[m] = j;
        m++;
        last = j;
    }
    return m;
}

gat_status gat_i_simple_build(gat_i_simple *s, const gat_graph *g, size_t *bytes)
{
    const size_t n = (size_t)g->n;
    size_t off = 0;
    gat_i_carve(NULL, &off, n + 1, sizeof(gat_idx));
    size_t nnz = 0;
    for (gat_idx i = 0; i < g->n; i++) nnz += (size_t)merge_row(g, i, NULL);
    if (nnz > (size_t)INT32_MAX)
        return gat_i_error(GAT_EINVAL, "gat_lap_pe/gat_rw_pe: the undirected graph has %zu "
                           "adjacencies, more than gat_idx holds", nnz);
    gat_i_carve(NULL, &off, nnz, sizeof(gat_idx));
    char *block = gat_malloc(off ? off : 1, 1);
    if (!block) return GAT_ENOMEM;
    size_t at = 0;
    s->n = g->n;
    s->ptr = gat_i_carve(block, &at, n + 1, sizeof(gat_idx));
    s->col = gat_i_carve(block, &at, nnz, sizeof(gat_idx));
    s->block = block;
    s->ptr[0] = 0;
    for (gat_idx i = 0; i < g->n; i++)
        s->ptr[i + 1] = s->ptr[i] + merge_row(g, i, s->col + s->ptr[i]);
    if (bytes) *bytes = off;
    return GAT_OK;
}

void gat_i_simple_destroy(gat_i_simple *s)
{
    if (!s) return;
    gat_free(s->block);
    *s = (gat_i_simple){0};
}

double gat_i_encode_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gat_i_encode_threads(int threads)
{
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}
