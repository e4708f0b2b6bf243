/* Datasets assembled from parts in memory (gat_dataset_from_parts), and the seeded random split
 * that every dataset source shares. */
#include "io/dataset_i.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "io/text.h"
#include "matrix_i.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

uint8_t gat_i_split_value(const char *word)
{
    if (strcmp(word, "train") == 0) return GAT_SPLIT_TRAIN;
    if (strcmp(word, "val") == 0) return GAT_SPLIT_VAL;
    if (strcmp(word, "test") == 0) return GAT_SPLIT_TEST;
    return GAT_SPLIT_NONE;
}

/* The sizes of o's random split over count (C) labelled nodes per class, labelled in all:
 * train[c] training nodes of class c, *val and *test; ds->split_adapted gets the bits of the
 * sizes that shrank (rules in gat_dataset_options). Returns GAT_EFORMAT for a strict size the
 * data cannot give. */
static gat_status plan_split(gat_dataset *ds, const gat_idx *count, gat_idx labelled,
                             const gat_dataset_options *o, const char *what, gat_idx *train,
                             gat_idx *val, gat_idx *test)
{
    const gat_idx T = o->train_per_class, V = o->n_val, X = o->n_test;
    const unsigned strict = o->split_strict;
    int64_t rest = labelled;
    unsigned adapted = 0;
    for (gat_idx c = 0; c < ds->n_classes; c++) {
        if (strict & GAT_SPLIT_STRICT_TRAIN) {
            if (count[c] < T)
                return gat_i_error(GAT_EFORMAT,
                                   "random split of %s: class '%s' has %d nodes, fewer than the %d "
                                   "training nodes per class requested",
                                   what, ds->class_names[c], count[c], T);
            train[c] = T;
        } else {
            train[c] = count[c] / 2 < T ? count[c] / 2 : T;
            if (train[c] < T) adapted |= GAT_SPLIT_STRICT_TRAIN;
        }
        rest -= train[c];
    }
    const int strict_val = (strict & GAT_SPLIT_STRICT_VAL) != 0;
    const int strict_test = (strict & GAT_SPLIT_STRICT_TEST) != 0;
    *val = V;
    *test = X;
    if (rest < (int64_t)V + X) {
        /* "after the 20 training nodes of each of 7 classes", or the total when classes differ */
        char after[96];
        if (adapted & GAT_SPLIT_STRICT_TRAIN)
            snprintf(after, sizeof after, "%lld training nodes", (long long)(labelled - rest));
        else
            snprintf(after, sizeof after, "%d training nodes of each of %d classes", T,
                     ds->n_classes);
        const char *lab = labelled < ds->n ? "labelled " : "";
        if (strict_val && strict_test)
            return gat_i_error(GAT_EFORMAT,
                               "random split of %s: %lld %snodes remain after the %s, fewer than "
                               "the %d validation + %d test nodes requested",
                               what, (long long)rest, lab, after, V, X);
        if ((strict_val && rest < V) || (strict_test && rest < X))
            return gat_i_error(GAT_EFORMAT,
                               "random split of %s: %lld %snodes remain after the %s, fewer than "
                               "the %d %s nodes requested",
                               what, (long long)rest, lab, after, strict_val ? V : X,
                               strict_val ? "validation" : "test");
        if (strict_val) {
            *test = (gat_idx)(rest - V);
        } else if (strict_test) {
            *val = (gat_idx)(rest - X);
        } else {
            /* rest in the ratio V : X, rounded, keeping one node for each asked-for set */
            int64_t v = (2 * rest * V + V + X) / (2 * ((int64_t)V + X));
            if (V > 0 && v == 0 && rest > 0) v = 1;
            if (X > 0 && v == rest && rest >= 2) v = rest - 1;
            *val = (gat_idx)v;
            *test = (gat_idx)(rest - v);
        }
        if (*val < V) adapted |= GAT_SPLIT_STRICT_VAL;
        if (*test < X) adapted |= GAT_SPLIT_STRICT_TEST;
    }
    ds->split_adapted = adapted;
    return GAT_OK;
}

gat_status gat_i_random_split(gat_dataset *ds, const gat_dataset_options *o, const char *what)
{
    gat_idx *perm = gat_malloc((size_t)ds->n, sizeof *perm);
    gat_idx *count = gat_calloc((size_t)ds->n_classes, sizeof *count);
    gat_idx *train = gat_calloc((size_t)ds->n_classes, sizeof *train);
    gat_idx n_val = 0, n_test = 0, val = 0, test = 0, labelled = 0;
    gat_rng rng;
    gat_status st = GAT_ENOMEM;

    if (!perm || !count || !train) goto cleanup;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] >= 0) {
            count[ds->labels[i]]++;
            labelled++;
        }
    if ((st = plan_split(ds, count, labelled, o, what, train, &n_val, &n_test)) != GAT_OK)
        goto cleanup;
    gat_rng_seed(&rng, o->seed);
    for (gat_idx i = 0; i < ds->n; i++)
        perm[i] = i;
    for (gat_idx i = ds->n - 1; i > 0; i--) {
        gat_idx j = (gat_idx)gat_rng_below(&rng, (uint64_t)i + 1), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    memset(count, 0, (size_t)ds->n_classes * sizeof *count);
    for (gat_idx k = 0; k < ds->n; k++) {
        gat_idx i = perm[k];
        if (ds->labels[i] >= 0 && count[ds->labels[i]] < train[ds->labels[i]]) {
            count[ds->labels[i]]++;
            ds->split[i] = GAT_SPLIT_TRAIN;
        }
    }
    for (gat_idx k = 0; k < ds->n; k++) {
        gat_idx i = perm[k];
        if (ds->split[i] != GAT_SPLIT_NONE || ds->labels[i] < 0) continue;
        if (val < n_val) {
            ds->split[i] = GAT_SPLIT_VAL;
            val++;
        } else if (test < n_test) {
            ds->split[i] = GAT_SPLIT_TEST;
            test++;
        }
    }
cleanup:
    gat_free(perm);
    gat_free(count);
    gat_free(train);
    return st;
}

gat_status gat_i_check_options(const gat_dataset_options *o, const char *fn)
{
    if (o->train_per_class < 0 || o->n_val < 0 || o->n_test < 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: negative split size (train_per_class %d, n_val %d, n_test %d)", fn,
                           o->train_per_class, o->n_val, o->n_test);
    if (o->normalize != GAT_NORMALIZE_OFF && o->normalize != GAT_NORMALIZE_ON &&
        o->normalize != GAT_NORMALIZE_AUTO)
        return gat_i_error(GAT_EINVAL,
                           "%s: normalize is %d, expected GAT_NORMALIZE_OFF (0), GAT_NORMALIZE_ON "
                           "(1) or GAT_NORMALIZE_AUTO (2)",
                           fn, o->normalize);
    if (o->self_loop_fill != GAT_SELF_LOOP_FILL_MEAN && o->self_loop_fill != GAT_SELF_LOOP_FILL_ZERO)
        return gat_i_error(GAT_EINVAL,
                           "%s: self_loop_fill is %d, expected GAT_SELF_LOOP_FILL_MEAN (0) or "
                           "GAT_SELF_LOOP_FILL_ZERO (1)",
                           fn, o->self_loop_fill);
    if (o->n_edge_attributes < 0 || (o->n_edge_attributes > 0 && !o->edge_attributes))
        return gat_i_error(GAT_EINVAL, "%s: n_edge_attributes = %d with edge_attributes %s", fn,
                           o->n_edge_attributes, o->edge_attributes ? "set" : "NULL");
    for (gat_idx k = 0; k < o->n_edge_attributes; k++)
        if (!o->edge_attributes[k])
            return gat_i_error(GAT_EINVAL, "%s: edge_attributes[%d] is NULL", fn, k);
    return GAT_OK;
}

/* The edge of g's row i whose source is j (columns ascending), or -1. */
static gat_idx find_edge(const gat_graph *g, gat_idx i, gat_idx j)
{
    gat_idx lo = g->rowptr[i], hi = g->rowptr[i + 1];
    while (lo < hi) {
        const gat_idx mid = lo + (hi - lo) / 2;
        if (g->col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->rowptr[i + 1] && g->col[lo] == j ? lo : -1;
}

/* Adds raw row r (D) into edge j -> i's row of x and counts it; 0 if g has no such edge. */
static int add_row(const gat_graph *g, gat_idx j, gat_idx i, const gat_real *r, gat_idx D,
                   gat_real *x, gat_idx *count)
{
    const gat_idx e = find_edge(g, i, j);
    if (e < 0) return 0;
    for (gat_idx d = 0; d < D; d++)
        x[(size_t)e * (size_t)D + (size_t)d] += r[d];
    count[e]++;
    return 1;
}

/* The merge of gat_edge_features_merge into x (E, D); *missing: the first input edge k that g
 * lacks (then GAT_EINVAL without a message), else SIZE_MAX. */
static gat_status merge_rows(const gat_graph *g, size_t m, const gat_idx *src, const gat_idx *dst,
                             int symmetrize, const gat_real *raw, gat_idx D, int fill,
                             gat_real *x, size_t *missing)
{
    const size_t E = (size_t)g->nnz, w = (size_t)D;
    gat_idx *count = gat_calloc(E, sizeof *count);

    *missing = SIZE_MAX;
    if (!count) return GAT_ENOMEM;
    memset(x, 0, E * w * sizeof *x);
    for (size_t k = 0; k < m; k++) {
        if (src[k] == dst[k]) continue; /* input self-loops are dropped with their rows */
        if (!add_row(g, src[k], dst[k], raw + k * w, D, x, count) ||
            (symmetrize && !add_row(g, dst[k], src[k], raw + k * w, D, x, count))) {
            *missing = k;
            gat_free(count);
            return GAT_EINVAL;
        }
    }
    for (size_t e = 0; e < E; e++)
        if (count[e] > 1)
            for (size_t d = 0; d < w; d++)
                x[e * w + d] /= (gat_real)count[e];
    /* a self-loop no input row reached (an added one) takes the fill */
    for (gat_idx i = 0; i < g->n && fill == GAT_SELF_LOOP_FILL_MEAN; i++) {
        const gat_idx loop = find_edge(g, i, i), deg = g->rowptr[i + 1] - g->rowptr[i] - 1;
        if (loop < 0 || deg == 0 || count[loop] > 0) continue;
        gat_real *r = x + (size_t)loop * w;
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
            if (e != loop)
                for (size_t d = 0; d < w; d++)
                    r[d] += x[(size_t)e * w + d];
        for (size_t d = 0; d < w; d++)
            r[d] /= (gat_real)deg;
    }
    gat_free(count);
    return GAT_OK;
}

gat_status gat_i_edge_rows(const gat_graph *g, size_t m, const gat_idx *src, const gat_idx *dst,
                           int symmetrize, const gat_real *raw, gat_idx D, int fill,
                           gat_real **out)
{
    size_t missing;
    gat_real *x;
    gat_status st;
    *out = NULL;
    if (D == 0) return GAT_OK;
    if (!(x = gat_malloc((size_t)g->nnz * (size_t)D, sizeof *x))) return GAT_ENOMEM;
    if ((st = merge_rows(g, m, src, dst, symmetrize, raw, D, fill, x, &missing)) != GAT_OK) {
        gat_free(x);
        return st == GAT_EINVAL ? gat_i_error(GAT_EINTERNAL,
                                              "edge %zu is not in the graph built from it",
                                              missing)
                                : st;
    }
    *out = x;
    return GAT_OK;
}

gat_status gat_edge_features_merge(gat_real *out, const gat_graph *g, size_t m, const gat_idx *src,
                                   const gat_idx *dst, unsigned flags, const gat_real *rows,
                                   gat_idx D, int fill)
{
    static const char fn[] = "gat_edge_features_merge";
    size_t missing;
    gat_status st;

    gat_i_clear_error();
    if (!out || !g) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !out ? "out" : "graph g");
    if ((st = gat_i_graph_check(g, fn)) != GAT_OK) return st;
    if (D < 0) return gat_i_error(GAT_EINVAL, "%s: D = %d edge feature columns", fn, D);
    if (m > 0 && (!src || !dst || (D > 0 && !rows)))
        return gat_i_error(GAT_EINVAL, "%s: src, dst or rows is NULL with m = %zu edges", fn, m);
    if (flags & ~(unsigned)GAT_I_GRAPH_FLAGS)
        return gat_i_error(GAT_EINVAL, "%s: unknown flags 0x%x", fn,
                           flags & ~(unsigned)GAT_I_GRAPH_FLAGS);
    if (fill != GAT_SELF_LOOP_FILL_MEAN && fill != GAT_SELF_LOOP_FILL_ZERO)
        return gat_i_error(GAT_EINVAL, "%s: fill is %d, expected GAT_SELF_LOOP_FILL_MEAN (0) or "
                           "GAT_SELF_LOOP_FILL_ZERO (1)", fn, fill);
    for (size_t k = 0; k < m; k++) {
        if (src[k] < 0 || src[k] >= g->n || dst[k] < 0 || dst[k] >= g->n)
            return gat_i_error(GAT_EINVAL, "%s: edge %zu (%d -> %d) has a node id outside [0, %d)",
                               fn, k, src[k], dst[k], g->n);
        for (gat_idx d = 0; d < D; d++)
            if (!isfinite(rows[k * (size_t)D + (size_t)d]))
                return gat_i_error(GAT_ENUMERIC, "%s: rows of edge %zu, column %d is %g", fn, k,
                                   d, (double)rows[k * (size_t)D + (size_t)d]);
    }
    if (D == 0) return GAT_OK;
    st = merge_rows(g, m, src, dst, (flags & GAT_GRAPH_SYMMETRIZE) != 0, rows, D, fill, out,
                    &missing);
    if (st == GAT_EINVAL)
        return gat_i_error(GAT_EINVAL, "%s: edge %zu (%d -> %d) is not in the graph g%s", fn,
                           missing, src[missing], dst[missing],
                           flags & GAT_GRAPH_SYMMETRIZE ? " (in both directions)" : "");
    return st;
}

void gat_i_count_split(gat_dataset *ds)
{
    ds->n_train = ds->n_val = ds->n_test = 0;
    for (gat_idx i = 0; i < ds->n; i++) {
        ds->n_train += ds->split[i] == GAT_SPLIT_TRAIN;
        ds->n_val += ds->split[i] == GAT_SPLIT_VAL;
        ds->n_test += ds->split[i] == GAT_SPLIT_TEST;
    }
}

/* Checks labels, split and names of p against n nodes. */
static gat_status check_parts(const gat_dataset_parts *p, gat_idx n, const char *fn)
{
    static const char *const split_name[] = {"none", "train", "val", "test"};
    gat_i_strmap ids = {0};
    gat_status st = GAT_OK;

    if (p->n_classes < 0)
        return gat_i_error(GAT_EINVAL, "%s: negative class count %d", fn, p->n_classes);
    for (gat_idx i = 0; p->labels && i < n; i++)
        if (p->labels[i] < -1 || p->labels[i] >= p->n_classes)
            return gat_i_error(GAT_EINVAL, "%s: node %d has label %d outside [-1, %d)", fn, i,
                               p->labels[i], p->n_classes);
    for (gat_idx i = 0; p->split && i < n; i++) {
        if (p->split[i] > GAT_SPLIT_TEST)
            return gat_i_error(GAT_EINVAL,
                               "%s: node %d has split value %d, expected 0..3 "
                               "(GAT_SPLIT_*)",
                               fn, i, p->split[i]);
        if (p->split[i] != GAT_SPLIT_NONE && (!p->labels || p->labels[i] < 0))
            return gat_i_error(GAT_EINVAL, "%s: node %d is in the %s split but has no label", fn, i,
                               split_name[p->split[i]]);
    }
    const gat_idx E = p->graph->nnz, D = p->n_edge_features;
    if (D < 0 || (D > 0 && !p->edge_features))
        return gat_i_error(GAT_EINVAL, "%s: n_edge_features = %d with edge_features %s", fn, D,
                           p->edge_features ? "given" : "NULL");
    for (gat_idx e = 0; e < E; e++) {
        for (gat_idx d = 0; d < D; d++)
            if (!isfinite(p->edge_features[(size_t)e * (size_t)D + (size_t)d]))
                return gat_i_error(GAT_ENUMERIC, "%s: edge_features of edge %d, column %d is %g",
                                   fn, e, d,
                                   (double)p->edge_features[(size_t)e * (size_t)D + (size_t)d]);
        if (p->edge_input && p->edge_input[e] < -1)
            return gat_i_error(GAT_EINVAL, "%s: edge_input[%d] = %d, expected >= -1", fn, e,
                               p->edge_input[e]);
    }
    for (gat_idx c = 0; p->class_names && c < p->n_classes; c++)
        if (!p->class_names[c])
            return gat_i_error(GAT_EINVAL, "%s: class_names[%d] is NULL", fn, c);
    if (!p->node_ids) return GAT_OK;
    if (gat_i_strmap_init(&ids, (size_t)n) != GAT_OK) return GAT_ENOMEM;
    for (gat_idx i = 0; i < n && st == GAT_OK; i++) {
        gat_idx *slot;
        if (!p->node_ids[i]) {
            st = gat_i_error(GAT_EINVAL, "%s: node_ids[%d] is NULL", fn, i);
            break;
        }
        /* the map only reads the names it is given */
        slot = gat_i_strmap_slot(&ids, (char *const *)p->node_ids, p->node_ids[i]);
        if (*slot >= 0)
            st = gat_i_error(GAT_EINVAL, "%s: node_ids[%d] = '%s' repeats node_ids[%d]", fn, i,
                             p->node_ids[i], *slot);
        *slot = i;
    }
    gat_i_strmap_free(&ids);
    return st;
}

/* names (count) copies of given[k], or of the decimal k when given is NULL. */
static gat_status copy_names(const char *const **names, gat_idx count, const char *const *given)
{
    char **out = gat_calloc((size_t)count, sizeof *out);
    if (!(*names = (const char *const *)out)) return GAT_ENOMEM;
    for (gat_idx k = 0; k < count; k++) {
        char num[16];
        snprintf(num, sizeof num, "%d", k);
        if (!(out[k] = gat_strdup(given ? given[k] : num))) return GAT_ENOMEM;
    }
    return GAT_OK;
}

gat_status gat_i_normalize_checked(gat_dataset *ds, int mode, const char *fn, const char *what)
{
    const gat_csr *x = &ds->x;
    ds->normalized = 0;
    ds->negative_value = 0;
    ds->negative_node = ds->negative_column = -1;
    for (gat_idx i = 0; i < x->rows && ds->negative_node < 0; i++)
        for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++)
            if (x->val[k] < 0) {
                ds->negative_value = x->val[k];
                ds->negative_node = i;
                ds->negative_column = x->col[k];
                break;
            }
    if (mode == GAT_NORMALIZE_ON && ds->negative_node >= 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: row normalisation was requested (GAT_NORMALIZE_ON) but %s has a "
                           "negative feature: node '%s', column %d is %g (the first one); row "
                           "sums of signed features can cancel, so only non-negative features "
                           "are row-normalised (GAT_NORMALIZE_AUTO keeps signed ones as they are)",
                           fn, what, ds->node_ids[ds->negative_node], ds->negative_column,
                           (double)ds->negative_value);
    if (mode == GAT_NORMALIZE_OFF || ds->negative_node >= 0) return GAT_OK;
    /* every value is >= 0, so each row sum is at least its largest value: the results lie in
     * [0, 1] */
    gat_csr_normalize_rows(&ds->x);
    ds->normalized = 1;
    return GAT_OK;
}

gat_status gat_i_dataset_from_parts(gat_dataset *ds, const gat_dataset_parts *p,
                                    const gat_dataset_options *opt, const char *fn,
                                    const char *what, const char *features)
{
    gat_dataset_options defaults;
    gat_dataset out = {0};
    gat_idx labelled = 0;
    gat_status st;

    if (!ds) return gat_i_error(GAT_EINVAL, "%s: NULL dataset", fn);
    memset(ds, 0, sizeof *ds);
    if (!p || !p->graph || !p->features)
        return gat_i_error(GAT_EINVAL, "%s: NULL parts, graph or features", fn);
    if (!opt) {
        gat_dataset_options_default(&defaults);
        opt = &defaults;
    }
    if ((st = gat_i_check_options(opt, fn)) != GAT_OK) return st;
    const gat_idx n = p->graph->n;
    const gat_csr *x = p->features;
    if ((st = gat_i_graph_check(p->graph, fn)) != GAT_OK) return st;
    if (x->rows != n)
        return gat_i_error(GAT_EDIM, "%s: the features have %d rows but the graph has %d nodes", fn,
                           x->rows, n);
    if ((st = gat_i_csr_check_matrix(x, fn)) != GAT_OK) return st;
    if ((st = check_parts(p, n, fn)) != GAT_OK) return st;

    out.n = n;
    out.n_features = x->cols;
    out.n_classes = p->n_classes;
    if ((st = gat_graph_copy(&out.graph, p->graph)) != GAT_OK ||
        (st = gat_csr_copy(&out.x, x)) != GAT_OK ||
        (st = copy_names(&out.node_ids, n, p->node_ids)) != GAT_OK ||
        (st = copy_names(&out.class_names, p->n_classes, p->class_names)) != GAT_OK)
        goto cleanup;
    out.labels = gat_malloc((size_t)n, sizeof *out.labels);
    out.split = gat_calloc((size_t)n, sizeof *out.split);
    if (!out.labels || !out.split) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    const size_t E = (size_t)p->graph->nnz;
    if (p->n_edge_features > 0) {
        if (!(out.edge_x = gat_malloc(E * (size_t)p->n_edge_features, sizeof *out.edge_x))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        memcpy(out.edge_x, p->edge_features, E * (size_t)p->n_edge_features * sizeof *out.edge_x);
        out.n_edge_features = p->n_edge_features;
    }
    if (p->edge_input) {
        if (!(out.edge_input = gat_malloc(E, sizeof *out.edge_input))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        memcpy(out.edge_input, p->edge_input, E * sizeof *out.edge_input);
    }
    for (gat_idx i = 0; i < n; i++) {
        out.labels[i] = p->labels ? p->labels[i] : -1;
        labelled += out.labels[i] >= 0;
    }
    if (p->split)
        memcpy(out.split, p->split, (size_t)n * sizeof *out.split);
    else if (labelled > 0 && (st = gat_i_random_split(&out, opt, what)) != GAT_OK)
        goto cleanup;
    gat_i_count_split(&out);
    if ((st = gat_i_normalize_checked(&out, opt->normalize, fn,
                                      features ? features : "the features argument")) != GAT_OK)
        goto cleanup;
    *ds = out;
    return GAT_OK;
cleanup:
    gat_dataset_destroy(&out);
    return st;
}

gat_status gat_dataset_from_parts(gat_dataset *ds, const gat_dataset_parts *parts,
                                  const gat_dataset_options *opt)
{
    gat_i_clear_error();
    return gat_i_dataset_from_parts(ds, parts, opt, "gat_dataset_from_parts", "the labelled nodes",
                                    NULL);
}
