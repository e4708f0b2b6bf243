/* Synthetic datasets of many graphs (synth.h): inductive multi-label node tasks with labels that
 * depend on each node's neighbourhood, and graph classification with a planted ring motif.
 * Everything is drawn from one splitmix64 stream seeded by the options: same seed, same files. */
#include "synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the random draws of synth.c (splitmix64), with a node-count bound */
static gat_idx below(uint64_t *s, gat_idx n)
{
    return (gat_idx)synth_below(s, (uint64_t)n);
}

/* What is drawn before the dataset is assembled. */
typedef struct drawn {
    gat_idx n, G, *ptr, *type, *glabel;
    size_t m;
    gat_idx *src, *dst;
} drawn;

static void drawn_free(drawn *d)
{
    free(d->ptr);
    free(d->type);
    free(d->glabel);
    free(d->src);
    free(d->dst);
}

/* Graph sizes, node types, graph classes (graph kind) and edges. 0, or -1 out of memory. */
static int draw_graphs(const synth_graph_opts *o, uint64_t *r, drawn *d)
{
    const gat_idx G = o->graphs, T = o->types;
    const int graph_kind = o->labels == 0;
    d->G = G;
    if (!(d->ptr = malloc(((size_t)G + 1) * sizeof *d->ptr)) ||
        !(d->glabel = malloc((size_t)G * sizeof *d->glabel)))
        return -1;
    d->ptr[0] = 0;
    for (gat_idx g = 0; g < G; g++) {
        gat_idx size = (gat_idx)(o->nodes * (0.75 + 0.5 * synth_unif(r)) + 0.5);
        const gat_idx least = graph_kind ? 3 + o->classes + 1 : 2;
        d->ptr[g + 1] = d->ptr[g] + (size < least ? least : size);
        d->glabel[g] = g % (graph_kind ? o->classes : 1);
    }
    for (gat_idx g = G - 1; g > 0; g--) { /* classes in a shuffled order */
        const gat_idx u = below(r, g + 1), t = d->glabel[g];
        d->glabel[g] = d->glabel[u], d->glabel[u] = t;
    }
    d->n = d->ptr[G];
    size_t cap = (size_t)((double)d->n * o->degree / 2 + 1) + (size_t)G * (size_t)(3 + o->classes);
    if (!(d->type = malloc((size_t)d->n * sizeof *d->type)) ||
        !(d->src = malloc(cap * sizeof *d->src)) || !(d->dst = malloc(cap * sizeof *d->dst)))
        return -1;
    for (gat_idx g = 0; g < G; g++) {
        const gat_idx a = d->ptr[g], ng = d->ptr[g + 1] - a;
        const gat_idx ring = graph_kind ? 3 + d->glabel[g] : 0;
        /* the graph kind keeps type 0 for the motif's nodes, the first `ring` of the graph */
        for (gat_idx i = 0; i < ng; i++)
            d->type[a + i] = i < ring ? 0 : graph_kind ? 1 + below(r, T - 1) : below(r, T);
        for (gat_idx i = 0; i < ring; i++)
            d->src[d->m] = a + i, d->dst[d->m++] = a + (i + 1) % ring;
        const size_t mg = (size_t)((double)ng * o->degree / 2 + 0.5);
        for (size_t k = 0; k < mg && d->m < cap; k++) {
            const gat_idx u = below(r, ng);
            gat_idx v = below(r, ng);
            /* homophily: a few tries for a partner of u's type */
            if (synth_unif(r) < o->homophily)
                for (int t = 0; t < 16 && d->type[a + v] != d->type[a + u]; t++)
                    v = below(r, ng);
            if (u == v) continue;
            d->src[d->m] = a + u, d->dst[d->m++] = a + v;
        }
    }
    return 0;
}

/* Dense features: type mean in {-1, 1}^F times signal plus N(0, 1). */
static gat_status draw_features(const synth_graph_opts *o, uint64_t *r, const drawn *d, gat_csr *x)
{
    const size_t F = (size_t)o->features, T = (size_t)o->types;
    gat_real *mean = malloc(T * F * sizeof *mean), *v = malloc((size_t)d->n * F * sizeof *v);
    gat_status st = GAT_ENOMEM;
    if (mean && v) {
        for (size_t k = 0; k < T * F; k++)
            mean[k] = synth_next(r) & 1 ? 1 : -1;
        for (gat_idx i = 0; i < d->n; i++)
            for (size_t f = 0; f < F; f++)
                v[(size_t)i * F + f] =
                    (gat_real)(o->signal * mean[(size_t)d->type[i] * F + f] + synth_normal(r));
        st = gat_csr_from_dense(x, d->n, o->features, v);
    }
    free(mean);
    free(v);
    return st;
}

/* Multi-hot labels (n, L) from each node's type and its neighbours' types (self-loop excluded). */
static int draw_labels(const synth_graph_opts *o, uint64_t *r, const drawn *d, const gat_graph *g,
                       uint8_t *y)
{
    const size_t L = (size_t)o->labels, T = (size_t)o->types;
    double *a = malloc(L * T * sizeof *a), *b = malloc(L * T * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    for (size_t k = 0; k < L * T; k++)
        a[k] = synth_normal(r), b[k] = 1.5 * synth_normal(r);
    for (gat_idx i = 0; i < d->n; i++) {
        const gat_idx deg = g->rowptr[i + 1] - g->rowptr[i] - 1;
        for (size_t l = 0; l < L; l++) {
            double s = 0;
            for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
                if (g->col[e] != i) s += b[l * T + (size_t)d->type[g->col[e]]];
            s = a[l * T + (size_t)d->type[i]] + (deg > 0 ? s / deg : 0) + 0.5 * synth_normal(r);
            y[(size_t)i * L + l] = s > 0;
        }
    }
    free(a);
    free(b);
    return 0;
}

gat_status synth_graphs(const synth_graph_opts *o, gat_dataset *ds, char *err, size_t errlen)
{
    drawn d = {0};
    gat_graph g = {0};
    gat_csr x = {0};
    uint8_t *y = NULL, *split = NULL;
    gat_status st = GAT_ENOMEM;
    uint64_t r = o->seed * 0x2545F4914F6CDD1Dull + 7;
    memset(ds, 0, sizeof *ds);
    err[0] = '\0';
    const gat_idx *sg = o->split_graphs;
    if (o->graphs < 1 || o->nodes < 2 || o->features < 1 || o->types < 2 || o->labels < 0 ||
        (o->labels == 0 && o->classes < 2) || !(o->degree >= 0) ||
        (o->labels > 0 && (sg[0] < 1 || sg[1] < 1 || sg[2] < 0 ||
                           sg[0] + sg[1] + sg[2] != o->graphs))) {
        snprintf(err, errlen,
                 "bad options: need graphs >= 1, nodes >= 2, features >= 1, types >= 2, degree "
                 ">= 0; with labels at least 1 training and 1 validation graph (train + val + "
                 "test = graphs), without them classes >= 2");
        return GAT_EINVAL;
    }
    if (draw_graphs(o, &r, &d)) goto out;
    if ((st = gat_graph_from_edges(&g, d.n, d.m, d.src, d.dst, GAT_GRAPH_SYMMETRIZE)) != GAT_OK ||
        (st = draw_features(o, &r, &d, &x)) != GAT_OK)
        goto out;
    st = GAT_ENOMEM;
    if (o->labels > 0) {
        if (!(y = malloc((size_t)d.n * (size_t)o->labels)) || !(split = malloc((size_t)d.n)) ||
            draw_labels(o, &r, &d, &g, y))
            goto out;
        for (gat_idx k = 0; k < d.G; k++)
            memset(split + d.ptr[k],
                   k < sg[0] ? GAT_SPLIT_TRAIN : k < sg[0] + sg[1] ? GAT_SPLIT_VAL : GAT_SPLIT_TEST,
                   (size_t)(d.ptr[k + 1] - d.ptr[k]));
    }
    const gat_dataset_parts p = {.graph = &g,
                                 .features = &x,
                                 .split = split,
                                 .n_graphs = d.G,
                                 .graph_ptr = d.ptr,
                                 .graph_labels = o->labels == 0 ? d.glabel : NULL,
                                 .n_graph_classes = o->labels == 0 ? o->classes : 0,
                                 .n_labels = o->labels,
                                 .label_matrix = y};
    gat_dataset_options opt;
    gat_dataset_options_default(&opt);
    opt.normalize = GAT_NORMALIZE_OFF;
    st = gat_dataset_from_parts(ds, &p, &opt);
out:
    if (st == GAT_ENOMEM && !err[0]) snprintf(err, errlen, "out of memory");
    drawn_free(&d);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
    free(y);
    free(split);
    return st;
}
