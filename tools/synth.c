/* Synthetic graphs: degree-corrected planted partition. Node v of block b gets a power-law
 * weight w_v (Pareto, exponent gamma, capped); homophily * m edges are drawn inside the blocks
 * and the rest over all nodes, each edge's ends with probability proportional to their weights
 * (igraph_static_fitness_game, O(m log n)). Sparse features: a node's words come from its
 * class's topic with probability `signal`, else uniformly; dense: class mean * signal + N(0, 1). */
#include "synth.h"

#include <igraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void synth_defaults(synth_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nodes = 10000;
    o->degree = 10;
    o->classes = 8;
    o->features = 128;
    o->density = 0.1;
    o->homophily = 0.8;
    o->exponent = 2.5;
    o->signal = 0.3;
    o->train = 0.1;
    o->val = 0.1;
    o->test = 0.2;
    o->seed = 1;
    o->edge_features = 0;
    o->edge_noise = 0.1;
}

/* splitmix64 */
uint64_t synth_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
double synth_unif(uint64_t *s)
{
    return (double)(synth_next(s) >> 11) * 0x1.0p-53;
}
uint64_t synth_below(uint64_t *s, uint64_t n)
{
    return (uint64_t)(synth_unif(s) * (double)n) % n;
}
double synth_normal(uint64_t *s)
{
    const double u = 1 - synth_unif(s), v = synth_unif(s);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

void synth_free(synth_data *d)
{
    free(d->src);
    free(d->dst);
    free(d->labels);
    free(d->split);
    free(d->edge_x);
    gat_csr_destroy(&d->x);
    memset(d, 0, sizeof *d);
}

/* Appends m edges drawn by igraph over nodes ids[0..n-1] with weights w; each igraph call runs
 * with silent handlers (igraph would print and abort by default). */
static int draw_edges(const double *w, const gat_idx *ids, gat_idx n, size_t m, synth_data *d,
                      char *err, size_t errlen)
{
    igraph_vector_t fit;
    igraph_vector_int_t el;
    igraph_t g;
    igraph_error_t e;
    if (m == 0 || n < 2) return 0;
    igraph_error_handler_t *old = igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_warning_handler_t *oldw = igraph_set_warning_handler(igraph_warning_handler_ignore);
    igraph_vector_view(&fit, w, n);
    e = igraph_static_fitness_game(&g, (igraph_integer_t)m, &fit, NULL, 0, 1);
    if (e == IGRAPH_SUCCESS) {
        e = igraph_vector_int_init(&el, 0);
        if (e == IGRAPH_SUCCESS) {
            e = igraph_get_edgelist(&g, &el, 0);
            if (e == IGRAPH_SUCCESS)
                for (size_t k = 0; k < m; k++) {
                    d->src[d->m] = ids[VECTOR(el)[2 * k]];
                    d->dst[d->m++] = ids[VECTOR(el)[2 * k + 1]];
                }
            igraph_vector_int_destroy(&el);
        }
        igraph_destroy(&g);
    }
    igraph_set_warning_handler(oldw);
    igraph_set_error_handler(old);
    if (e != IGRAPH_SUCCESS) {
        snprintf(err, errlen, "igraph_static_fitness_game failed: %s", igraph_strerror(e));
        return -1;
    }
    return 0;
}

static int features(const synth_opts *o, const gat_idx *block, const gat_idx *id, synth_data *d,
                    uint64_t *rng, char *err, size_t errlen)
{
    const gat_idx N = o->nodes, F = o->features;
    const int C = o->classes;
    gat_idx *rowptr = NULL, *col = NULL;
    gat_real *val = NULL;
    size_t nnz = 0, cap;
    int rc = -1;
    gat_idx *topic = NULL, *words = NULL;
    uint8_t *seen = NULL;
    /* sparse: class c's topic is F / C * 2 words (overlapping neighbours' topics);
     * dense: class means in {-1, 1}^F */
    const gat_idx tsize = F / C * 2 > 0 ? F / C * 2 : 1;
    if (!(topic = malloc((size_t)C * (size_t)(o->dense ? F : tsize) * sizeof *topic)) ||
        !(rowptr = calloc((size_t)N + 1, sizeof *rowptr)) ||
        !(words = malloc((size_t)F * sizeof *words)) || !(seen = calloc((size_t)F, 1)))
        goto out;
    for (int c = 0; c < C; c++)
        for (gat_idx t = 0; t < (o->dense ? F : tsize); t++)
            topic[(size_t)c * (size_t)(o->dense ? F : tsize) + (size_t)t] =
                o->dense ? (synth_next(rng) & 1 ? 1 : -1)
                         : (gat_idx)(((size_t)c * F / C + (size_t)t) % (size_t)F);
    cap = o->dense ? (size_t)N * F : (size_t)((double)N * F * o->density * 1.2) + (size_t)N + 16;
    if (!(col = malloc(cap * sizeof *col)) || !(val = malloc(cap * sizeof *val))) goto out;
    /* rows in output order: row id[v] of generator node v */
    gat_idx *inv = malloc((size_t)N * sizeof *inv);
    if (!inv) goto out;
    for (gat_idx v = 0; v < N; v++)
        inv[id[v]] = v;
    for (gat_idx r = 0; r < N; r++) {
        const gat_idx v = inv[r], c = block[v];
        rowptr[r] = (gat_idx)nnz;
        if (o->dense) {
            for (gat_idx f = 0; f < F; f++) {
                col[nnz] = f;
                val[nnz++] = (gat_real)(o->signal * topic[(size_t)c * F + f] + synth_normal(rng));
            }
            continue;
        }
        /* k words, about density * F (uniform in [k/2, 3k/2]) */
        const double mean = o->density * F;
        gat_idx k = (gat_idx)(mean * (0.5 + synth_unif(rng)) + 0.5), n = 0;
        if (k < 1) k = 1;
        if (k > F) k = F;
        for (gat_idx t = 0; t < 3 * k && n < k; t++) {
            const gat_idx wd = synth_unif(rng) < o->signal
                                   ? topic[(size_t)c * tsize + synth_below(rng, (uint64_t)tsize)]
                                   : (gat_idx)synth_below(rng, (uint64_t)F);
            if (!seen[wd]) seen[wd] = 1, words[n++] = wd;
        }
        if (nnz + (size_t)n > cap) {
            cap = 2 * cap + (size_t)n;
            gat_idx *c2 = realloc(col, cap * sizeof *col);
            if (c2) col = c2;
            gat_real *v2 = realloc(val, cap * sizeof *val);
            if (v2) val = v2;
            if (!c2 || !v2) {
                free(inv);
                goto out;
            }
        }
        /* ascending columns */
        for (gat_idx f = 0, t = 0; f < F && t < n; f++)
            if (seen[f]) seen[f] = 0, col[nnz] = f, val[nnz++] = 1, t++;
    }
    rowptr[N] = (gat_idx)nnz;
    free(inv);
    if (gat_csr_from_arrays(&d->x, N, F, rowptr, col, val) != GAT_OK) {
        snprintf(err, errlen, "features: %s", gat_last_error());
        goto out;
    }
    rc = 0;
out:
    if (rc && !err[0]) snprintf(err, errlen, "out of memory");
    free(topic);
    free(rowptr);
    free(col);
    free(val);
    free(words);
    free(seen);
    return rc;
}

int synth_generate(const synth_opts *o, synth_data *d, char *err, size_t errlen)
{
    const gat_idx N = o->nodes;
    const int C = o->classes;
    uint64_t rng = o->seed * 0x2545F4914F6CDD1Dull + 1;
    double *w = NULL, *wb = NULL;
    gat_idx *block = NULL, *id = NULL, *ids = NULL, *start = NULL;
    int rc = -1;
    memset(d, 0, sizeof *d);
    err[0] = '\0';
    if (N < 2 || C < 1 || C > N || o->features < 1 || !(o->exponent > 2) || !(o->degree > 0) ||
        !(o->homophily >= 0 && o->homophily <= 1) || o->train + o->val + o->test > 1) {
        snprintf(err, errlen,
                 "bad options: need nodes >= 2, 1 <= classes <= nodes, features >= 1, "
                 "exponent > 2, degree > 0, homophily in [0, 1], train + val + test <= 1");
        return -1;
    }
    const size_t m = (size_t)((double)N * o->degree / 2 + 0.5);
    if (!(w = malloc((size_t)N * sizeof *w)) || !(wb = malloc((size_t)N * sizeof *wb)) ||
        !(block = malloc((size_t)N * sizeof *block)) || !(id = malloc((size_t)N * sizeof *id)) ||
        !(ids = malloc((size_t)N * sizeof *ids)) ||
        !(start = malloc(((size_t)C + 1) * sizeof *start)) ||
        !(d->src = malloc(m * sizeof *d->src)) || !(d->dst = malloc(m * sizeof *d->dst)) ||
        !(d->labels = malloc((size_t)N * sizeof *d->labels)) || !(d->split = calloc((size_t)N, 1)))
        goto out;
    igraph_rng_seed(igraph_rng_default(), (igraph_uint_t)(o->seed & 0x7FFFFFFF));
    /* blocks of (nearly) equal size in generator order; weights Pareto(exponent - 1) (mean
     * (exponent - 1) / (exponent - 2)), capped so that expected degrees stay below 8 sqrt(N) */
    const double cap = sqrt((double)N) * 8 / o->degree * (o->exponent - 1) / (o->exponent - 2);
    double wsum = 0;
    for (int c = 0; c <= C; c++)
        start[c] = (gat_idx)((int64_t)N * c / C);
    for (gat_idx v = 0; v < N; v++) {
        block[v] = (gat_idx)((int64_t)v * C / N);
        double x = pow(1 - synth_unif(&rng), -1 / (o->exponent - 1));
        w[v] = x < cap || cap < 1 ? x : cap;
        wsum += w[v];
    }
    /* output ids: a random permutation unless ordered */
    for (gat_idx v = 0; v < N; v++)
        id[v] = v;
    if (!o->ordered)
        for (gat_idx v = N - 1; v > 0; v--) {
            const gat_idx u = (gat_idx)synth_below(&rng, (uint64_t)v + 1), t = id[v];
            id[v] = id[u], id[u] = t;
        }
    for (gat_idx v = 0; v < N; v++)
        d->labels[id[v]] = block[v];
    d->n = N;
    /* inside blocks: each block's share of homophily * m by its weight */
    size_t m_in = 0;
    for (int c = 0; c < C; c++) {
        double sb = 0;
        const gat_idx n_b = start[c + 1] - start[c];
        for (gat_idx t = 0; t < n_b; t++)
            sb += w[start[c] + t], wb[t] = w[start[c] + t], ids[t] = id[start[c] + t];
        size_t mb = (size_t)(o->homophily * (double)m * sb / wsum + 0.5);
        if (m_in + mb > m) mb = m - m_in;
        if (draw_edges(wb, ids, n_b, mb, d, err, errlen)) goto out;
        m_in += mb;
    }
    if (draw_edges(w, id, N, m - d->m, d, err, errlen)) goto out;
    /* split: a random order of the nodes, cut by the shares */
    {
        for (gat_idx v = 0; v < N; v++)
            ids[v] = v;
        for (gat_idx v = N - 1; v > 0; v--) {
            const gat_idx u = (gat_idx)synth_below(&rng, (uint64_t)v + 1), t = ids[v];
            ids[v] = ids[u], ids[u] = t;
        }
        const gat_idx a = (gat_idx)(o->train * N), b = a + (gat_idx)(o->val * N),
                      c = b + (gat_idx)(o->test * N);
        for (gat_idx r = 0; r < c; r++)
            d->split[ids[r]] = r < a ? GAT_SPLIT_TRAIN : r < b ? GAT_SPLIT_VAL : GAT_SPLIT_TEST;
    }
    if (features(o, block, id, d, &rng, err, errlen)) goto out;
    /* edge features last, so that the draws before them do not depend on D */
    if (o->edge_features > 0) {
        const size_t D = (size_t)o->edge_features;
        if (!(d->edge_x = malloc((d->m ? d->m : 1) * D * sizeof *d->edge_x))) goto out;
        d->edge_dim = o->edge_features;
        for (size_t k = 0; k < d->m; k++) {
            int same = d->labels[d->src[k]] == d->labels[d->dst[k]];
            if (synth_unif(&rng) < o->edge_noise) same = !same;
            d->edge_x[k * D] = (gat_real)same;
            for (size_t c = 1; c < D; c++)
                d->edge_x[k * D + c] = (gat_real)synth_normal(&rng);
        }
    }
    rc = 0;
out:
    if (rc) {
        if (!err[0]) snprintf(err, errlen, "out of memory");
        synth_free(d);
    }
    free(w);
    free(wb);
    free(block);
    free(id);
    free(ids);
    free(start);
    return rc;
}

/* synth_dataset_with. gat_dataset.edge_input (the .cites line of each edge) is kept only with
 * edge features: without them it would cost 4 bytes per edge in every file and load (0.5 GB on
 * a products-sized graph) for a mapping nobody asked for. */
static gat_status build(const synth_data *d, int classes, int normalize,
                        const char *const *class_names, gat_dataset *ds)
{
    gat_graph g = {0};
    gat_idx *map = NULL;
    gat_real *rows = NULL;
    gat_status st = GAT_ENOMEM;
    const unsigned flags = GAT_GRAPH_SYMMETRIZE;
    if (d->edge_dim > 0 &&
        !(map = malloc((GAT_GRAPH_MAX_EDGES(d->n, d->m, flags) + 1) * sizeof *map)))
        goto out;
    if ((st = gat_graph_from_edges_mapped(&g, d->n, d->m, d->src, d->dst, flags, map)) != GAT_OK)
        goto out;
    if (d->edge_dim > 0) {
        st = GAT_ENOMEM;
        if (!(rows = malloc(((size_t)g.nnz * (size_t)d->edge_dim + 1) * sizeof *rows))) goto out;
        if ((st = gat_edge_features_merge(rows, &g, d->m, d->src, d->dst, flags, d->edge_x,
                                          d->edge_dim, GAT_SELF_LOOP_FILL_MEAN)) != GAT_OK)
            goto out;
    }
    gat_dataset_parts p = {.graph = &g,
                           .features = &d->x,
                           .labels = d->labels,
                           .n_classes = classes,
                           .split = d->split,
                           .class_names = class_names,
                           .edge_features = rows,
                           .n_edge_features = d->edge_dim,
                           .edge_input = map};
    gat_dataset_options opt;
    gat_dataset_options_default(&opt);
    opt.normalize = normalize;
    st = gat_dataset_from_parts(ds, &p, &opt);
out:
    gat_graph_destroy(&g);
    free(map);
    free(rows);
    return st;
}

gat_status synth_dataset(const synth_data *d, int classes, gat_dataset *ds)
{
    return build(d, classes, GAT_NORMALIZE_AUTO, NULL, ds);
}

gat_status synth_dataset_with(const synth_data *d, int classes, int normalize,
                              const char *const *class_names, gat_dataset *ds)
{
    return build(d, classes, normalize, class_names, ds);
}
