/* Neighbour sampling (gat/sample.h): per hop, each frontier node draws min(F, d) of its d
 * in-neighbours without replacement by Floyd's algorithm from a counter-based generator keyed by
 * (seed, step, node), in parallel; new sources are numbered in draw order; the block's in-CSR is
 * then built with rows sorted by local source id and its out-CSR by the counting-sort transpose. */
#include "gat/sample.h"
#include "graph_i.h"
#include "core/core.h"
#include "core/gov.h"

#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdlib.h>
#include <string.h>

/* How many items ahead the gathers from random rows prefetch (the node arrays are far larger
 * than the caches on graphs where sampling pays) */
#define PREFETCH 16

struct gat_sampler {
    const gat_graph *g;
    int hops;
    gat_idx fanout[GAT_MAX_LAYERS];
    uint64_t seed;
    int threads, fixed_threads;
    gat_i_gov gov;  /* one thread or all, for the draws (core/gov.h) */
    gat_idx *loop;  /* (n) in-CSR position of node i's self-loop, or -1 */
    gat_idx *local; /* (n) local id during a draw, else -1 */
    /* a draw's scratch, kept for the next (grown, never shrunk): the frontier's edge offsets,
     * the draws' positions and sources, build_rows' sort keys */
    gat_idx *off, *pos, *src;
    size_t cap_off, cap_pos, cap_src, cap_key, cap_done;
    uint64_t *key;
    int *done; /* draw_hops' chunk flags */
};

gat_status gat_sampler_create(gat_sampler **out, const gat_graph *g, int hops,
                              const gat_idx *fanout, uint64_t seed)
{
    gat_sampler *s = NULL;
    gat_status st;
    gat_i_clear_error();
    if (out) *out = NULL;
    if ((st = gat_i_check_args("gat_sampler_create", 3, (const void *[]){out, g, fanout},
                               (const char *[]){"out", "graph g", "fanout"})) != GAT_OK)
        return st;
    if (hops < 1 || hops > GAT_MAX_LAYERS)
        return gat_i_error(GAT_EINVAL, "gat_sampler_create: hops = %d, expected 1..%d", hops,
                           GAT_MAX_LAYERS);
    for (int h = 0; h < hops; h++)
        if (fanout[h] < -1)
            return gat_i_error(GAT_EINVAL, "gat_sampler_create: fanout[%d] = %d, expected -1 "
                               "(all neighbours) or a count >= 0", h, fanout[h]);
    if ((st = gat_i_graph_check(g, "gat_sampler_create: graph")) != GAT_OK) return st;
    if (!(s = gat_calloc(1, sizeof *s))) return GAT_ENOMEM;
    s->g = g;
    s->hops = hops;
    memcpy(s->fanout, fanout, (size_t)hops * sizeof *fanout);
    s->seed = seed;
    gat_i_gov_init(&s->gov, 0);
    if (!(s->loop = gat_malloc((size_t)g->n, sizeof *s->loop)) ||
        !(s->local = gat_malloc((size_t)g->n, sizeof *s->local))) {
        gat_sampler_free(s);
        return GAT_ENOMEM;
    }
    for (gat_idx i = 0; i < g->n; i++) {
        s->local[i] = -1;
        s->loop[i] = -1;
        for (gat_idx p = g->rowptr[i]; p < g->rowptr[i + 1]; p++)
            if (g->col[p] == i) {
                s->loop[i] = p;
                break;
            }
    }
    *out = s;
    return GAT_OK;
}

void gat_sampler_free(gat_sampler *s)
{
    if (!s) return;
    gat_free(s->loop);
    gat_free(s->local);
    gat_free(s->off);
    gat_free(s->pos);
    gat_free(s->src);
    gat_free(s->key);
    gat_free(s->done);
    gat_free(s);
}

void gat_sampler_set_threads(gat_sampler *s, int n)
{
    if (s) s->threads = n;
}

void gat_sampler_set_fixed_threads(gat_sampler *s, int on)
{
    if (!s) return;
    /* the governor starts afresh, from all threads, when it is turned on again */
    if (!on && s->fixed_threads) gat_i_gov_init(&s->gov, 0);
    s->fixed_threads = on != 0;
}

void gat_block_destroy(gat_block *b)
{
    if (!b) return;
    gat_free(b->nodes);
    gat_free(b->edge_parent);
    gat_graph_destroy(&b->graph);
    memset(b, 0, sizeof *b);
}

/* In-neighbours of v other than itself. */
static gat_idx others(const gat_sampler *s, gat_idx v)
{
    return s->g->rowptr[v + 1] - s->g->rowptr[v] - (s->loop[v] >= 0);
}

/* The c in-CSR positions of v's sampled in-edges into pos, ascending: all d = others(v) of them
 * if c == d, else a uniform c-subset by Floyd's algorithm (for j = d - c .. d - 1 draw t in
 * [0, j]; take t unless already taken, then j), kept sorted by insertion; their source nodes
 * into src (read once here: the later passes read src in order instead of gathering from the
 * graph's columns again). */
static void draw(const gat_sampler *s, uint64_t key, gat_idx v, gat_idx c, gat_idx *pos,
                 gat_idx *src)
{
    const gat_idx b0 = s->g->rowptr[v], lp = s->loop[v], d = others(s, v);
    gat_idx k = 0;
    if (c == d) {
        for (gat_idx t = 0; t < d; t++) pos[t] = t;
    } else {
        gat_rng r;
        gat_rng_seed(&r, gat_i_hash64(key, (uint64_t)(uint32_t)v));
        for (gat_idx j = d - c; j < d; j++) {
            const gat_idx t = (gat_idx)gat_rng_below(&r, (uint64_t)j + 1);
            gat_idx z = k; /* after the last taken value < t (c is small: a linear scan) */
            while (z > 0 && pos[z - 1] > t)
                z--;
            if (z > 0 && pos[z - 1] == t) { /* taken: j, larger than every taken value */
                pos[k++] = j;
                continue;
            }
            for (gat_idx y = k; y > z; y--)
                pos[y] = pos[y - 1];
            pos[z] = t;
            k++;
        }
    }
    for (gat_idx q = 0; q < c; q++) { /* indices among the others -> positions, skipping lp */
        gat_idx p = b0 + pos[q];
        if (lp >= 0 && p >= lp) p++;
        pos[q] = p;
        src[q] = s->g->col[p];
    }
}

/* Grows the array *a (a pointer to a gat_idx or uint64_t pointer; values of size bytes) to hold
 * at least need values (doubling); GAT_ENOMEM leaves *a as it was. */
static gat_status reserve(void *a, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return GAT_OK;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *p = gat_realloc(*(void **)a, c, size);
    if (!p) return GAT_ENOMEM;
    *(void **)a = p;
    *cap = c;
    return GAT_OK;
}

/* The targets as local ids 0..n_targets-1 into out->nodes (capacity *cap), marked in s->local.
 * On failure the nodes marked so far are in out->nodes[0 .. *n - 1]. */
static gat_status add_targets(gat_sampler *s, const gat_idx *targets, gat_idx n_targets,
                              gat_block *out, size_t *cap, gat_idx *n)
{
    const gat_graph *g = s->g;
    gat_status st;
    if ((st = reserve(&out->nodes, cap, (size_t)n_targets, sizeof(gat_idx))) != GAT_OK) return st;
    for (gat_idx k = 0; k < n_targets; k++) {
        const gat_idx v = targets[k];
        if (v < 0 || v >= g->n)
            return gat_i_error(GAT_EINVAL, "gat_sampler_sample: targets[%d] = %d outside [0, %d)",
                               k, v, g->n);
        if (s->local[v] >= 0)
            return gat_i_error(GAT_EINVAL, "gat_sampler_sample: targets[%d] = %d repeats "
                               "targets[%d]", k, v, s->local[v]);
        s->local[v] = *n;
        out->nodes[(*n)++] = v;
    }
    return GAT_OK;
}

/* One hop's new sources (source nodes src[q0 .. total - 1], in draw order) numbered from n in
 * the order of their first sampled edge into nodes (room reserved by the caller) and s->local,
 * and every src[q] replaced by its source's local id (what build_rows reads, in order, instead
 * of gathering from s->local again); returns how many. One thread: the pass is random reads and
 * writes of s->local, which a second core slows (its cache lines move between the cores; the
 * parallel claims this replaced, compare-and-swap per edge then three more passes, took longer
 * on 2 threads than this on 1). */
static gat_idx new_sources(gat_sampler *s, gat_idx *src, size_t q0, size_t total, gat_idx *nodes,
                           gat_idx n)
{
    gat_idx *local = s->local, k = n;
    for (size_t q = q0; q < total; q++) {
        if (q + PREFETCH < total) __builtin_prefetch(&local[src[q + PREFETCH]], 1);
        const gat_idx j = src[q];
        gat_idx l = local[j];
        if (l == -1) {
            l = local[j] = k;
            nodes[k++] = j;
        }
        src[q] = l;
    }
    return k - n;
}

/* The draws of frontier nodes u0 .. u1 - 1 (of the hop's lo .. hi - 1) at their offsets o[u] */
static void draw_nodes(const gat_sampler *s, uint64_t key, const gat_idx *nodes, const gat_idx *o,
                       gat_idx *p, gat_idx *j, gat_idx u0, gat_idx u1, gat_idx hi)
{
    const gat_graph *g = s->g;
    for (gat_idx u = u0; u < u1; u++) {
        /* what later draws read, ahead of them in two stages: a node's row pointer and self-loop
         * position 2 PREFETCH draws ahead, then (its row pointer now at hand) its columns
         * PREFETCH draws ahead; the columns' load was 74 % of the draws' time */
        if (u + 2 * PREFETCH < hi) {
            const gat_idx w = nodes[u + 2 * PREFETCH];
            __builtin_prefetch(&g->rowptr[w]);
            __builtin_prefetch(&s->loop[w]);
        }
        if (u + PREFETCH < hi) __builtin_prefetch(&g->col[g->rowptr[nodes[u + PREFETCH]]]);
        draw(s, key, nodes[u], o[u + 1] - o[u], p + o[u], j + o[u]);
    }
}

/* Frontier nodes a chunk of the pipelined draws holds */
#define CHUNK 256

/* One hop's draws of frontier lo .. hi - 1 and its new sources (new_sources) on nt threads, the
 * numbering overlapped with the draws: the frontier is cut in chunks that any thread draws, the
 * first taken first; thread 0 numbers the chunks' sources in chunk order as they are done,
 * drawing a chunk itself whenever the next to number is not. The numbering is new_sources'
 * over the whole hop (its order is the chunks'), so the block is the one thread's. done: (chunks)
 * flags, zeroed. Returns the new sources' count. */
static gat_idx draw_and_number(gat_sampler *s, uint64_t key, int nt, gat_idx lo, gat_idx hi,
                               gat_idx *nodes, gat_idx n, int *done)
{
    const gat_idx *o = s->off, chunks = (hi - lo + CHUNK - 1) / CHUNK;
    gat_idx *p = s->pos, *j = s->src, next = 0, added = 0;
#pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        const int first = omp_get_thread_num() == 0;
#else
        const int first = 1;
#endif
        for (gat_idx c = 0; !first || c < chunks;) {
            int ready = 0;
            if (first) {
#pragma omp atomic read seq_cst
                ready = done[c];
            }
            if (ready) { /* number chunk c's sources */
                const gat_idx u0 = lo + c * CHUNK, u1 = u0 + CHUNK < hi ? u0 + CHUNK : hi;
                added += new_sources(s, j, (size_t)o[u0], (size_t)o[u1], nodes, n + added);
                c++;
                continue;
            }
            gat_idx d = chunks, taken;
#pragma omp atomic read seq_cst
            taken = next;
            if (taken < chunks) { /* (claims stop there: a waiting thread does not count on) */
#pragma omp atomic capture seq_cst
                d = next++;
            }
            if (d >= chunks) {
                if (!first) break;
                continue; /* every chunk taken: wait for chunk c's */
            }
            const gat_idx u0 = lo + d * CHUNK, u1 = u0 + CHUNK < hi ? u0 + CHUNK : hi;
            draw_nodes(s, key, nodes, o, p, j, u0, u1, hi);
#pragma omp atomic write seq_cst
            done[d] = 1;
        }
    }
    return added;
}

/* The hops' draws: for each hop h its frontier's edge offsets off[lo..hi] into s->off, the draws
 * into s->pos and s->src, and the new sources appended to out->nodes; sets out->hop_end[1..hops]
 * and *n. */
static gat_status draw_hops(gat_sampler *s, uint64_t step, int nt, gat_block *out, size_t *cap,
                            gat_idx *n)
{
    const uint64_t k0 = gat_i_hash64(s->seed, step);
    gat_status st = GAT_OK;
    if ((st = reserve(&s->off, &s->cap_off, (size_t)*n + 1, sizeof(gat_idx))) != GAT_OK) return st;
    s->off[0] = 0;
    for (int h = 0; h < s->hops; h++) {
        const gat_idx lo = h ? out->hop_end[h - 1] : 0, hi = out->hop_end[h], F = s->fanout[h];
        if ((st = reserve(&s->off, &s->cap_off, (size_t)hi + 1, sizeof(gat_idx))) != GAT_OK) break;
        gat_idx *o = s->off;
        /* each frontier node's draw count at o[u + 1] (in parallel: its row pointers are
         * random reads), then their running sum */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && hi - lo > 4096)
        for (gat_idx u = lo; u < hi; u++) {
            if (u + PREFETCH < hi) {
                const gat_idx w = out->nodes[u + PREFETCH];
                __builtin_prefetch(&s->g->rowptr[w]);
                __builtin_prefetch(&s->loop[w]);
            }
            const gat_idx d = others(s, out->nodes[u]);
            o[u + 1] = F < 0 || F > d ? d : F;
        }
        size_t total = (size_t)o[lo];
        for (gat_idx u = lo; u < hi; u++) {
            total += (size_t)o[u + 1];
            /* the block's edges: the sampled ones and at most a self-loop per node, which are
             * at most n_targets + the sampled ones */
            if (total > ((size_t)INT32_MAX - (size_t)out->n_targets) / 2) {
                st = gat_i_error(GAT_EINVAL,
                                 "gat_sampler_sample: the block's edges exceed "
                                 "32-bit edge indices at hop %d (use fewer targets or smaller "
                                 "fan-outs)",
                                 h);
                break;
            }
            o[u + 1] = (gat_idx)total;
        }
        if (st != GAT_OK) break;
        const size_t q0 = (size_t)o[lo];
        const gat_idx chunks = (hi - lo + CHUNK - 1) / CHUNK;
        if ((st = reserve(&s->pos, &s->cap_pos, total, sizeof(gat_idx))) != GAT_OK ||
            (st = reserve(&s->src, &s->cap_src, total, sizeof(gat_idx))) != GAT_OK ||
            (st = reserve(&out->nodes, cap, (size_t)*n + (total - q0), sizeof(gat_idx))) !=
                GAT_OK ||
            (st = reserve(&s->done, &s->cap_done, (size_t)chunks, sizeof(int))) != GAT_OK)
            break;
        /* every node's draw depends on (seed, step, node) alone and lands at its own offset */
        if (nt > 1 && hi - lo > 4096) {
            memset(s->done, 0, (size_t)chunks * sizeof *s->done);
            *n += draw_and_number(s, k0, nt, lo, hi, out->nodes, *n, s->done);
        } else {
            draw_nodes(s, k0, out->nodes, o, s->pos, s->src, lo, hi, hi);
            *n += new_sources(s, s->src, q0, total, out->nodes, *n);
        }
        out->hop_end[h + 1] = *n;
    }
    return st;
}

/* The block's in-CSR from the draws (off, pos): the sampled rows of hops 0..L-1 sorted by
 * (local source, parent edge), each node's self-loop included, then the last hop's self-loops;
 * each row is written at its own place, so in parallel. */
static gat_status build_rows(gat_sampler *s, int nt, gat_block *out)
{
    const gat_idx n = out->n, R = out->hop_end[s->hops - 1];
    const gat_idx *off = s->off, *pos = s->pos, *src = s->src;
    out->graph.n = n;
    if (!(out->graph.rowptr = gat_malloc((size_t)n + 1, sizeof *out->graph.rowptr)))
        return GAT_ENOMEM;
    gat_idx *rp = out->graph.rowptr;
    rp[0] = 0;
    /* each row's length (its self-loop is a random read: in parallel, ahead), then their sum */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 4096)
    for (gat_idx u = 0; u < n; u++) {
        if (u + PREFETCH < n) __builtin_prefetch(&s->loop[out->nodes[u + PREFETCH]]);
        rp[u + 1] = (u < R ? off[u + 1] - off[u] : 0) + (s->loop[out->nodes[u]] >= 0);
    }
    for (gat_idx u = 0; u < n; u++)
        rp[u + 1] += rp[u];
    const gat_idx E = out->graph.rowptr[n];
    out->graph.nnz = E;
    if (!(out->graph.col = gat_malloc((size_t)E, sizeof *out->graph.col)) ||
        !(out->edge_parent = gat_malloc((size_t)E, sizeof *out->edge_parent)))
        return GAT_ENOMEM;
    if (reserve(&s->key, &s->cap_key, (size_t)E, sizeof *s->key) != GAT_OK) return GAT_ENOMEM;
    uint64_t *key = s->key;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 256) if (nt > 1 && n > 4096)
    for (gat_idx u = 0; u < n; u++) {
        const gat_idx v = out->nodes[u], at = out->graph.rowptr[u];
        gat_idx c = 0;
        if (u < R)
            for (gat_idx q = off[u]; q < off[u + 1]; q++) {
                key[at + c++] = (uint64_t)(uint32_t)src[q] << 32 | (uint32_t)pos[q];
            }
        if (s->loop[v] >= 0) key[at + c++] = (uint64_t)(uint32_t)u << 32 | (uint32_t)s->loop[v];
        gat_i_sort_keys(key + at, (size_t)c);
        for (gat_idx q = 0; q < c; q++) {
            out->graph.col[at + q] = (gat_idx)(key[at + q] >> 32);
            out->edge_parent[at + q] = (gat_idx)(uint32_t)key[at + q];
        }
    }
    return gat_i_graph_transpose(&out->graph);
}

gat_status gat_sampler_sample(gat_sampler *s, const gat_idx *targets, gat_idx n_targets,
                              uint64_t step, gat_block *b)
{
    gat_block out = {0};
    gat_idx n = 0;
    size_t cap_nodes = 0;
    double t0 = 0;
    gat_status st;

    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_sampler_sample", 3, (const void *[]){s, targets, b},
                               (const char *[]){"sampler s", "targets", "block b"})) != GAT_OK)
        return st;
    memset(b, 0, sizeof *b);
    if (n_targets < 1 || n_targets > s->g->n)
        return gat_i_error(GAT_EINVAL, "gat_sampler_sample: n_targets = %d, expected 1..%d (the "
                           "graph's nodes)", n_targets, s->g->n);
    /* the governor picks one thread or all for this draw unless they are fixed */
    const int nt_max = gat_i_threads(s->threads), gov = !s->fixed_threads && nt_max > 1;
    const int nt = gov && !gat_i_gov_begin(&s->gov) ? 1 : nt_max;
    if (gov) t0 = gat_i_seconds();
    if ((st = add_targets(s, targets, n_targets, &out, &cap_nodes, &n)) != GAT_OK) goto cleanup;
    out.n_targets = n_targets;
    out.hops = s->hops;
    out.hop_end[0] = n;
    if ((st = draw_hops(s, step, nt, &out, &cap_nodes, &n)) != GAT_OK) goto cleanup;
    out.n = n;
    if ((st = build_rows(s, nt, &out)) != GAT_OK) goto cleanup;
    if (gov) gat_i_gov_end(&s->gov, 0, gat_i_seconds() - t0);
    *b = out;
    memset(&out, 0, sizeof out);
    st = GAT_OK;

cleanup:;
    const gat_idx *drawn = b->nodes ? b->nodes : out.nodes;
    for (gat_idx u = 0; u < n; u++) {
        if (u + PREFETCH < n) __builtin_prefetch(&s->local[drawn[u + PREFETCH]], 1);
        s->local[drawn[u]] = -1;
    }
    gat_block_destroy(&out);
    return st;
}

gat_status gat_block_features(const gat_block *b, const gat_csr *x, gat_csr *out)
{
    return gat_i_block_features(b, x, gat_i_threads(0), out, NULL);
}

int gat_i_sampler_threads_in_use(const gat_sampler *s)
{
    const int nt = gat_i_threads(s->threads);
    return s->fixed_threads || s->gov.all || nt <= 1 ? nt : 1;
}

/* out's arrays for rows x cols with nnz values: those it holds when they are large enough (rows
 * for *rows_cap rows, out->capacity values), else new ones an eighth larger than asked (the
 * blocks of one loader differ a little in size: a few grow steps, then none) */
static gat_status csr_reserve(gat_csr *out, size_t *rows_cap, gat_idx rows, gat_idx cols,
                              size_t nnz)
{
    if (out->rowptr && out->col && out->val && (size_t)rows <= *rows_cap && nnz <= out->capacity) {
        out->rows = rows;
        out->cols = cols;
        return GAT_OK;
    }
    const size_t r = gat_i_grown((size_t)rows, SIZE_MAX - 1), v = gat_i_grown(nnz, SIZE_MAX);
    gat_csr_destroy(out);
    *rows_cap = 0;
    out->rowptr = gat_malloc(r + 1, sizeof *out->rowptr);
    out->col = gat_malloc(v ? v : 1, sizeof *out->col);
    out->val = gat_malloc(v ? v : 1, sizeof *out->val);
    if (!out->rowptr || !out->col || !out->val) {
        gat_csr_destroy(out);
        return GAT_ENOMEM;
    }
    out->rows = rows;
    out->cols = cols;
    out->capacity = v ? v : 1;
    *rows_cap = r;
    return GAT_OK;
}

gat_status gat_i_block_features(const gat_block *b, const gat_csr *x, int nt, gat_csr *out,
                                size_t *rows_cap)
{
    gat_status st;
    size_t nnz = 0;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_block_features", 3, (const void *[]){b, x, out},
                               (const char *[]){"block b", "features x", "out"})) != GAT_OK)
        return st;
    if (!rows_cap) memset(out, 0, sizeof *out);
    if (b->n > 0 && (!b->nodes || !x->rowptr))
        return gat_i_error(GAT_EINVAL, "gat_block_features: NULL %s",
                           !b->nodes ? "block nodes" : "features rowptr");
    /* the rows' starts and lengths (one gather from x's row pointers, not one per pass; in
     * parallel, as they are random reads; none for a node that is no row of x), then in order
     * their sum, or the first such node */
    gat_idx *start = gat_malloc(2 * (size_t)b->n + 1, sizeof *start), *len = start + b->n;
    if (!start) return GAT_ENOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && b->n > 8192)
    for (gat_idx k = 0; k < b->n; k++) {
        const gat_idx v = b->nodes[k];
        if (k + PREFETCH < b->n) {
            const gat_idx w = b->nodes[k + PREFETCH];
            if (w >= 0 && w < x->rows) __builtin_prefetch(&x->rowptr[w]);
        }
        if (v < 0 || v >= x->rows) continue;
        start[k] = x->rowptr[v];
        len[k] = x->rowptr[v + 1] - start[k];
    }
    for (gat_idx k = 0; k < b->n; k++) {
        const gat_idx v = b->nodes[k];
        if (v < 0 || v >= x->rows) {
            gat_free(start);
            return gat_i_error(GAT_EINVAL,
                               "gat_block_features: block node %d is node %d, not a "
                               "row of the features (%d rows)",
                               k, v, x->rows);
        }
        nnz += (size_t)len[k];
    }
    if (nnz > (size_t)INT32_MAX) {
        gat_free(start);
        return gat_i_error(GAT_EINVAL, "gat_block_features: the block's rows hold %zu values, "
                           "more than 32-bit indices address", nnz);
    }
    if ((st = rows_cap ? csr_reserve(out, rows_cap, b->n, x->cols, nnz)
                       : gat_csr_init(out, b->n, x->cols, nnz)) != GAT_OK) {
        gat_free(start);
        return st;
    }
    out->rowptr[0] = 0;
    for (gat_idx k = 0; k < b->n; k++)
        out->rowptr[k + 1] = out->rowptr[k] + len[k];
    /* rows land at their own offsets: the copy is the same on any number of threads (the gathers
     * from random rows of x are what it waits for, so the rows ahead are prefetched) */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 512) if (nt > 1 && b->n > 8192)
    for (gat_idx k = 0; k < b->n; k++) {
        if (k + PREFETCH < b->n) {
            __builtin_prefetch(x->col + start[k + PREFETCH]);
            __builtin_prefetch(x->val + start[k + PREFETCH]);
        }
        const gat_idx a = start[k], at = out->rowptr[k];
        const size_t c = (size_t)(out->rowptr[k + 1] - at);
        memcpy(out->col + at, x->col + a, c * sizeof *out->col);
        memcpy(out->val + at, x->val + a, c * sizeof *out->val);
    }
    gat_free(start);
    return GAT_OK;
}

gat_status gat_block_edge_features(const gat_block *b, const gat_real *edge_x, gat_idx D,
                                   gat_real *out)
{
    gat_i_clear_error();
    if (!b) return gat_i_error(GAT_EINVAL, "gat_block_edge_features: NULL block b");
    if (D < 0) return gat_i_error(GAT_EINVAL, "gat_block_edge_features: D = %d, expected >= 0", D);
    if (D == 0) return GAT_OK;
    if (!edge_x || !out || (b->graph.nnz > 0 && !b->edge_parent))
        return gat_i_error(GAT_EINVAL, "gat_block_edge_features: NULL %s",
                           !edge_x ? "edge_x" : !out ? "out" : "block edge_parent");
    for (gat_idx e = 0; e < b->graph.nnz; e++)
        memcpy(out + (size_t)e * (size_t)D, edge_x + (size_t)b->edge_parent[e] * (size_t)D,
               (size_t)D * sizeof *out);
    return GAT_OK;
}
