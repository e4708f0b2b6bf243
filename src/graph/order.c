/* Node orders for locality (gat_graph_order), renumbering a graph (gat_graph_permute; with its
 * feature rows: gat_i_renumber) and the out-CSR of an in-CSR by a counting sort
 * (gat_i_graph_transpose). */
#include "graph_i.h"
#include "core/core.h"
#include "matrix_i.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *const order_names[GAT_ORDER_COUNT] = {"auto", "none", "rcm", "degree"};

const char *gat_order_name(gat_order o)
{
    return (unsigned)o < GAT_ORDER_COUNT ? order_names[o] : NULL;
}

gat_status gat_order_from_name(const char *name, gat_order *out)
{
    gat_i_clear_error();
    if (!name || !out)
        return gat_i_error(GAT_EINVAL, "gat_order_from_name: NULL %s", !name ? "name" : "out");
    for (int o = 0; o < GAT_ORDER_COUNT; o++)
        if (!strcmp(name, order_names[o])) {
            *out = (gat_order)o;
            return GAT_OK;
        }
    return gat_i_error(GAT_EINVAL, "unknown node order '%s' (expected auto, none, rcm or degree)",
                       name);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void gat_i_sort_keys(uint64_t *k, size_t n)
{
    if (n > 32) {
        qsort(k, n, sizeof *k, cmp_u64);
        return;
    }
    for (size_t a = 1; a < n; a++) {
        const uint64_t v = k[a];
        size_t b = a;
        for (; b > 0 && k[b - 1] > v; b--)
            k[b] = k[b - 1];
        k[b] = v;
    }
}

/* Nodes by degree into by (n), ascending (descending if desc), ties by node number: a counting
 * sort over the degrees. */
static gat_status by_degree(const gat_idx *deg, gat_idx n, int desc, gat_idx *by)
{
    gat_idx most = 0;
    for (gat_idx i = 0; i < n; i++)
        most = deg[i] > most ? deg[i] : most;
    gat_idx *start = gat_calloc((size_t)most + 2, sizeof *start);
    if (!start) return GAT_ENOMEM;
    for (gat_idx i = 0; i < n; i++)
        start[(desc ? most - deg[i] : deg[i]) + 1]++;
    for (gat_idx d = 0; d <= most; d++)
        start[d + 1] += start[d];
    for (gat_idx i = 0; i < n; i++)
        by[start[desc ? most - deg[i] : deg[i]]++] = i;
    gat_free(start);
    return GAT_OK;
}

/* Reverse Cuthill-McKee over the undirected view of g (in- and out-edges). perm doubles as the
 * breadth-first queue. */
static gat_status rcm(const gat_graph *g, gat_idx *perm)
{
    const gat_idx n = g->n;
    gat_idx *deg = gat_malloc((size_t)n, sizeof *deg), *start = gat_malloc((size_t)n, sizeof *start);
    uint8_t *seen = gat_calloc((size_t)n, 1);
    uint64_t *nb = NULL;
    gat_status st = GAT_ENOMEM;
    gat_idx most = 0;
    if (!deg || !start || !seen) goto cleanup;
    for (gat_idx i = 0; i < n; i++) {
        deg[i] = g->rowptr[i + 1] - g->rowptr[i] + g->t_rowptr[i + 1] - g->t_rowptr[i];
        most = deg[i] > most ? deg[i] : most;
    }
    if (!(nb = gat_malloc((size_t)most + 1, sizeof *nb))) goto cleanup;
    /* an undirected graph's out-rows repeat its in-rows: one side is enough (half the reads) */
    const size_t n1 = (size_t)n + 1, E = (size_t)g->nnz;
    const int sides = memcmp(g->rowptr, g->t_rowptr, n1 * sizeof *g->rowptr) ||
                      (E && memcmp(g->col, g->t_col, E * sizeof *g->col)) ? 2 : 1;
    if ((st = by_degree(deg, n, 0, start)) != GAT_OK) goto cleanup;
    gat_idx head = 0, tail = 0;
    for (gat_idx s = 0; s < n; s++) {
        if (seen[start[s]]) continue;
        seen[start[s]] = 1;
        perm[tail++] = start[s];
        while (head < tail) {
            const gat_idx v = perm[head++];
            size_t k = 0;
            for (int side = 0; side < sides; side++) {
                const gat_idx *rp = side ? g->t_rowptr : g->rowptr, *c = side ? g->t_col : g->col;
                for (gat_idx p = rp[v]; p < rp[v + 1]; p++)
                    if (!seen[c[p]]) {
                        seen[c[p]] = 1;
                        nb[k++] = (uint64_t)deg[c[p]] << 32 | (uint32_t)c[p];
                    }
            }
            gat_i_sort_keys(nb, k);
            for (size_t q = 0; q < k; q++)
                perm[tail++] = (gat_idx)(uint32_t)nb[q];
        }
    }
    for (gat_idx a = 0, b = n - 1; a < b; a++, b--) {
        const gat_idx t = perm[a];
        perm[a] = perm[b], perm[b] = t;
    }
    st = GAT_OK;
cleanup:
    gat_free(deg);
    gat_free(start);
    gat_free(seen);
    gat_free(nb);
    return st;
}

gat_status gat_graph_order(const gat_graph *g, gat_order method, gat_idx *perm)
{
    static const char fn[] = "gat_graph_order";
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args(fn, 2, (const void *[]){g, perm},
                               (const char *[]){"graph g", "perm"})) != GAT_OK)
        return st;
    if (method != GAT_ORDER_NONE && method != GAT_ORDER_RCM && method != GAT_ORDER_DEGREE)
        return gat_i_error(GAT_EINVAL, "%s: method %d is not none, rcm or degree", fn, (int)method);
    if (method == GAT_ORDER_NONE) {
        for (gat_idx i = 0; i < g->n; i++)
            perm[i] = i;
        return GAT_OK;
    }
    if (method == GAT_ORDER_RCM) return rcm(g, perm);
    gat_idx *deg = gat_malloc((size_t)g->n, sizeof *deg);
    if (!deg) return GAT_ENOMEM;
    for (gat_idx i = 0; i < g->n; i++)
        deg[i] = g->rowptr[i + 1] - g->rowptr[i];
    st = by_degree(deg, g->n, 1, perm);
    gat_free(deg);
    return st;
}

/* The share of g's edges j -> i, i != j, with |pos[i] - pos[j]| < GAT_I_ORDER_WINDOW (pos: each
 * node's position, NULL: its number); 0 without such edges. */
static double window_share(const gat_graph *g, const gat_idx *pos)
{
    int64_t near = 0, all = 0;
    for (gat_idx i = 0; i < g->n; i++) {
        const int64_t pi = pos ? pos[i] : i;
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
            const gat_idx j = g->col[e];
            const int64_t d = pi - (pos ? pos[j] : j);
            all += j != i;
            near += j != i && d < GAT_I_ORDER_WINDOW && d > -GAT_I_ORDER_WINDOW;
        }
    }
    return all ? (double)near / (double)all : 0;
}

gat_status gat_i_order_pick(const gat_graph *g, gat_order asked, gat_idx *perm, gat_order *used)
{
    gat_status st;
    *used = GAT_ORDER_NONE;
    if (!gat_i_order_considered(g, asked)) return GAT_OK;
    const gat_order method = asked == GAT_ORDER_AUTO ? GAT_ORDER_RCM : asked;
    if ((st = gat_graph_order(g, method, perm)) != GAT_OK) return st;
    if (asked == GAT_ORDER_AUTO) {
        gat_idx *pos = gat_malloc((size_t)g->n + 1, sizeof *pos);
        if (!pos) return GAT_ENOMEM;
        for (gat_idx k = 0; k < g->n; k++)
            pos[perm[k]] = k;
        const double gain = window_share(g, pos) - window_share(g, NULL);
        gat_free(pos);
        if (gain < GAT_I_ORDER_GAIN) return GAT_OK;
    }
    *used = method;
    return GAT_OK;
}

/* Threads of the transpose: up to 4 on graphs large enough to pay for the per-thread counts. */
static int transpose_threads(const gat_graph *g)
{
    const int nt = gat_i_threads(0);
    return g->nnz < (1 << 20) ? 1 : nt > 4 ? 4 : nt;
}

gat_status gat_i_graph_transpose(gat_graph *g)
{
    const size_t n = (size_t)g->n, nnz = (size_t)g->nnz;
    const int nt = transpose_threads(g);
    gat_idx *cur = NULL, bound[5];
    g->t_rowptr = gat_calloc(n + 1, sizeof *g->t_rowptr);
    g->t_col = gat_malloc(nnz, sizeof *g->t_col);
    g->t_edge = gat_malloc(nnz, sizeof *g->t_edge);
    if (!g->t_rowptr || !g->t_col || !g->t_edge ||
        (nt > 1 && !(cur = gat_calloc((size_t)nt * n, sizeof *cur)))) {
        gat_free(cur);
        return GAT_ENOMEM;
    }
    if (nt == 1) {
        for (size_t e = 0; e < nnz; e++)
            g->t_rowptr[g->col[e] + 1]++;
        for (size_t j = 0; j < n; j++)
            g->t_rowptr[j + 1] += g->t_rowptr[j];
        /* t_rowptr[j] is out-row j's fill cursor (no extra array); rows in ascending order, so
         * each out-row's targets come out ascending */
        for (gat_idx i = 0; i < g->n; i++)
            for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
                const gat_idx p = g->t_rowptr[g->col[e]]++;
                g->t_col[p] = i;
                g->t_edge[p] = e;
            }
        /* each t_rowptr[j] now holds the end of row j, the start of row j + 1: shift back */
        for (size_t j = n; j > 0; j--)
            g->t_rowptr[j] = g->t_rowptr[j - 1];
        g->t_rowptr[0] = 0;
        return GAT_OK;
    }
    /* The same counting sort in nt blocks of rows balanced by edges: block t counts its sources,
     * its slots in out-row j follow those of blocks before it (so targets still ascend and the
     * result is the one-thread result), then every block scatters its own rows. */
    bound[0] = 0;
    for (int t = 1; t < nt; t++) {
        const gat_idx want = (gat_idx)((int64_t)g->nnz * t / nt);
        gat_idx lo = bound[t - 1], hi = g->n;
        while (lo < hi) {
            const gat_idx mid = lo + (hi - lo) / 2;
            if (g->rowptr[mid] < want) lo = mid + 1;
            else hi = mid;
        }
        bound[t] = lo;
    }
    bound[nt] = g->n;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; t++) {
        gat_idx *c = cur + (size_t)t * n;
        for (gat_idx e = g->rowptr[bound[t]]; e < g->rowptr[bound[t + 1]]; e++)
            c[g->col[e]]++;
    }
    gat_idx at = 0;
    for (size_t j = 0; j < n; j++) {
        g->t_rowptr[j] = at;
        for (int t = 0; t < nt; t++) {
            const gat_idx k = cur[(size_t)t * n + j];
            cur[(size_t)t * n + j] = at;
            at += k;
        }
    }
    g->t_rowptr[n] = at;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; t++) {
        gat_idx *c = cur + (size_t)t * n;
        for (gat_idx i = bound[t]; i < bound[t + 1]; i++)
            for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
                const gat_idx p = c[g->col[e]]++;
                g->t_col[p] = i;
                g->t_edge[p] = e;
            }
    }
    gat_free(cur);
    return GAT_OK;
}

gat_status gat_i_perm_inverse(const gat_idx *perm, gat_idx n, gat_idx *iperm, const char *fn)
{
    for (gat_idx i = 0; i < n; i++)
        iperm[i] = -1;
    for (gat_idx k = 0; k < n; k++) {
        if (perm[k] < 0 || perm[k] >= n || iperm[perm[k]] >= 0)
            return gat_i_error(
                GAT_EINVAL, "%s: perm is not a permutation of 0..%d: perm[%d] = %d %s", fn, n - 1,
                k, perm[k], perm[k] < 0 || perm[k] >= n ? "is out of range" : "occurs twice");
        iperm[perm[k]] = k;
    }
    return GAT_OK;
}

gat_status gat_graph_permute(gat_graph *dst, const gat_graph *src, const gat_idx *perm,
                             gat_idx *edge_of)
{
    static const char fn[] = "gat_graph_permute";
    gat_graph out = {0};
    gat_idx *iperm = NULL;
    uint64_t *scratch = NULL;
    gat_status st;
    gat_i_clear_error();
    if (dst) memset(dst, 0, sizeof *dst);
    if ((st = gat_i_check_args(fn, 3, (const void *[]){dst, src, perm},
                               (const char *[]){"graph dst", "graph src", "perm"})) != GAT_OK)
        return st;
    if ((st = gat_i_graph_check(src, fn)) != GAT_OK) return st;
    const gat_idx n = src->n;
    st = GAT_ENOMEM;
    if (!(iperm = gat_malloc((size_t)n, sizeof *iperm))) goto cleanup;
    if ((st = gat_i_perm_inverse(perm, n, iperm, fn)) != GAT_OK) goto cleanup;
    st = GAT_ENOMEM;
    out.n = n;
    out.nnz = src->nnz;
    gat_idx most = 0;
    if (!(out.rowptr = gat_malloc((size_t)n + 1, sizeof *out.rowptr)) ||
        !(out.col = gat_malloc((size_t)src->nnz, sizeof *out.col)))
        goto cleanup;
    out.rowptr[0] = 0;
    for (gat_idx k = 0; k < n; k++) {
        const gat_idx d = src->rowptr[perm[k] + 1] - src->rowptr[perm[k]];
        out.rowptr[k + 1] = out.rowptr[k] + d;
        most = d > most ? d : most;
    }
    const int nt = gat_i_threads(0);
    if (!(scratch = gat_malloc((size_t)nt * ((size_t)most + 1), sizeof *scratch))) goto cleanup;
    /* rows are independent and land at fixed places: the result does not depend on threads */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1024) if (nt > 1 && n > 65536)
    for (gat_idx k = 0; k < n; k++) {
#ifdef _OPENMP
        uint64_t *key = scratch + (size_t)omp_get_thread_num() * ((size_t)most + 1);
#else
        uint64_t *key = scratch;
#endif
        const gat_idx i = perm[k], b = src->rowptr[i], d = src->rowptr[i + 1] - b;
        for (gat_idx q = 0; q < d; q++)
            key[q] = (uint64_t)(uint32_t)iperm[src->col[b + q]] << 32 | (uint32_t)(b + q);
        gat_i_sort_keys(key, (size_t)d);
        for (gat_idx q = 0; q < d; q++) {
            out.col[out.rowptr[k] + q] = (gat_idx)(key[q] >> 32);
            if (edge_of) edge_of[out.rowptr[k] + q] = (gat_idx)(uint32_t)key[q];
        }
    }
    if ((st = gat_i_graph_transpose(&out)) != GAT_OK) goto cleanup;
    *dst = out;
    memset(&out, 0, sizeof out);
cleanup:
    gat_graph_destroy(&out);
    gat_free(iperm);
    gat_free(scratch);
    return st;
}

gat_status gat_i_renumber(const gat_graph *g, const gat_csr *x, const gat_idx *perm, gat_graph *pg,
                          gat_csr *px, gat_idx *edge_of)
{
    gat_status st;
    memset(px, 0, sizeof *px);
    if ((st = gat_graph_permute(pg, g, perm, edge_of)) != GAT_OK) return st;
    if ((st = gat_i_csr_permute_rows(x, perm, px)) != GAT_OK) gat_graph_destroy(pg);
    return st;
}
