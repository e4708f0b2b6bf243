/* gat_rw_pe (gat/encode.h): (D^-1 A)^k_ii = S^k_ii = (S^a e_i) . (S^b e_i), a = floor(k/2),
 * b = k - a, S = D^-1/2 A D^-1/2: each node propagates e_i over ceil(K/2) hops of S only. */
#include "encode_i.h"
#include "core/core.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* One thread's buffers: level t (0..T) has the dense vector u[t] (n), its support list sup[t]
 * (n) of size len[t], and mark[t] (n): the node + 1 whose propagation last touched an entry. */
typedef struct level_bufs {
    double *u[GAT_PE_MAX_K / 2 + 1];
    gat_idx *sup[GAT_PE_MAX_K / 2 + 1], *mark[GAT_PE_MAX_K / 2 + 1];
    gat_idx len[GAT_PE_MAX_K / 2 + 1];
} level_bufs;

static void carve_levels(level_bufs *b, char *base, size_t *off, size_t n, int T)
{
    for (int t = 0; t <= T; t++) {
        b->u[t] = gat_i_carve(base, off, n, sizeof(double));
        b->sup[t] = gat_i_carve(base, off, n, sizeof(gat_idx));
        b->mark[t] = gat_i_carve(base, off, n, sizeof(gat_idx));
    }
}

/* Row i: u_0 = e_i, u_{t+1} = S u_t over the supports, then out[k-1] = u_a . u_b. The order of
 * every sum is fixed by the CSR and the discovery order, so the row does not depend on which
 * thread computes it. u entries are reset through the supports afterwards. */
static void rw_row(const gat_i_simple *s, const double *dinv, gat_idx i, int K, int T,
                   level_bufs *b, gat_real *out)
{
    b->u[0][i] = 1;
    b->sup[0][0] = i;
    b->len[0] = 1;
    for (int t = 0; t < T; t++) {
        double *un = b->u[t + 1];
        gat_idx *mk = b->mark[t + 1], *sp = b->sup[t + 1], m = 0;
        for (gat_idx p = 0; p < b->len[t]; p++) {
            const gat_idx l = b->sup[t][p];
            const double x = b->u[t][l] * dinv[l];
            for (gat_idx e = s->ptr[l]; e < s->ptr[l + 1]; e++) {
                const gat_idx j = s->col[e];
                if (mk[j] != i + 1) {
                    mk[j] = i + 1;
                    un[j] = 0;
                    sp[m++] = j;
                }
                un[j] += x;
            }
        }
        for (gat_idx p = 0; p < m; p++) un[sp[p]] *= dinv[sp[p]];
        b->len[t + 1] = m;
    }
    for (int k = 1; k <= K; k++) {
        const int a = k / 2, c = k - a;
        double acc = 0;
        for (gat_idx p = 0; p < b->len[a]; p++) {
            const gat_idx j = b->sup[a][p];
            acc += b->u[a][j] * b->u[c][j];
        }
        out[k - 1] = (gat_real)acc;
    }
    for (int t = 0; t <= T; t++)
        for (gat_idx p = 0; p < b->len[t]; p++) b->u[t][b->sup[t][p]] = 0;
}

gat_status gat_rw_pe(const gat_graph *g, gat_idx K, int threads, gat_real *out, size_t ld,
                     gat_pe_cost *cost)
{
    const double t0 = gat_i_encode_now();
    gat_i_simple s = {0};
    char *block = NULL;
    size_t bytes = 0, off = 0;
    gat_status st;

    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_rw_pe", 2, (const void *[]){g, out},
                               (const char *[]){"graph g", "out"})) != GAT_OK)
        return st;
    if (K < 1 || K > GAT_PE_MAX_K)
        return gat_i_error(GAT_EINVAL, "gat_rw_pe: K = %d, expected 1..%d", K, GAT_PE_MAX_K);
    if (ld < (size_t)K)
        return gat_i_error(GAT_EINVAL, "gat_rw_pe: row stride ld = %zu is less than K = %d", ld,
                           K);
    if (threads < 0)
        return gat_i_error(GAT_EINVAL, "gat_rw_pe: threads = %d, expected >= 0", threads);
    if (g->n < 0 || (g->n > 0 && (!g->rowptr || !g->col || !g->t_rowptr || !g->t_col)))
        return gat_i_error(GAT_EINVAL, "gat_rw_pe: graph g is not built (n %d, missing CSR "
                           "arrays)", g->n);
    const size_t n = (size_t)g->n;
    const int T = (K + 1) / 2;
    int nt = gat_i_encode_threads(threads);
    if ((size_t)nt > n / 64 + 1) nt = (int)(n / 64 + 1);
    if ((st = gat_i_simple_build(&s, g, &bytes)) != GAT_OK) goto cleanup;
    double *dinv = gat_i_carve(NULL, &off, n, sizeof(double));
    level_bufs bufs[1];
    for (int t = 0; t < nt; t++) carve_levels(bufs, NULL, &off, n, T);
    if (!(block = gat_calloc(off ? off : 1, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    bytes += off;
    off = 0;
    dinv = gat_i_carve(block, &off, n, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        const gat_idx d = s.ptr[i + 1] - s.ptr[i];
        dinv[i] = d > 0 ? 1 / sqrt((double)d) : 0;
    }
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int me = 0;
#ifdef _OPENMP
        me = omp_get_thread_num();
#endif
        level_bufs b;
        size_t at = off;
        for (int t = 0; t < me; t++) carve_levels(&b, NULL, &at, n, T);
        carve_levels(&b, block, &at, n, T);
#pragma omp for schedule(dynamic, 256)
        for (gat_idx i = 0; i < g->n; i++) rw_row(&s, dinv, i, K, T, &b, out + (size_t)i * ld);
    }
    if (cost)
        *cost = (gat_pe_cost){.seconds = gat_i_encode_now() - t0, .bytes = bytes,
                              .components = 0};
cleanup:
    gat_free(block);
    gat_i_simple_destroy(&s);
    return st;
}
