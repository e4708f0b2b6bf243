/* The Geom-GCN dataset layout (Pei et al. 2020; PyG's Actor and WebKB read it): a directory with
 *   out1_node_feature_label.txt  header, then "id<TAB>features<TAB>label" per node; features are
 *                                comma-separated dense values, or for film (Actor), whose header
 *                                says feature(feature_amount:K), the indices of the non-zero
 *                                (binary) features
 *   out1_graph_edges.txt         header, then "src<TAB>dst" per edge
 *   splits/NAME_split_0.6_0.2_K.npz  optional fixed splits K = 0.. (train_mask, val_mask,
 *                                test_mask of length N) */
#include "io/npz.h"
#include "core/core.h"
#include "data/data_i.h"
#include "io/text.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef GAT_REAL_DOUBLE
#define REAL_MAX DBL_MAX
#else
#define REAL_MAX FLT_MAX
#endif

#define FEATURE_AMOUNT "feature(feature_amount:"

int gat_i_geomgcn_is(const char *path)
{
    /* no allocation: a probe that failed for want of memory would read as "not this format" */
    char edges[4096];
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0;
    const int len = snprintf(edges, sizeof edges, "%s/out1_graph_edges.txt", path);
    return len > 0 && (size_t)len < sizeof edges && stat(edges, &sb) == 0;
}

/* s as a whole decimal integer in [0, max]; 0 if it is not one. */
static int parse_index(const char *s, long max, long *v)
{
    char *end;
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    const long x = strtol(s, &end, 10);
    if (errno || *end != '\0' || x > max) return 0;
    *v = x;
    return 1;
}

typedef struct nodes {
    gat_idx n;
    char **feat; /* (n) the feature field of each node, by id (into the text buffer) */
    long *line;  /* (n) its line */
    gat_idx *labels;
    gat_idx C;
    int sparse;  /* index lists (film) */
    long amount; /* the header's feature_amount, sparse only */
} nodes;

/* Number of comma-separated fields in s (not empty). */
static size_t split_commas(char *s)
{
    size_t count = 1;
    for (char *p = s; *p; p++)
        if (*p == ',') count++;
    return count;
}

/* The node file: ids 0..n-1 each once, labels >= 0, the feature fields kept for later. */
static gat_status read_nodes(gat_i_text *t, nodes *V)
{
    gat_status st;
    const size_t max = gat_i_text_count_lines(t);
    long v;
    if ((st = gat_i_text_next(t)) != GAT_OK) return st;
    if (t->n_fields != 3 || parse_index(t->field[0], LONG_MAX, &v))
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld: expected the header line 'node_id<TAB>feature<TAB>label'",
                           t->path, t->line);
    V->sparse = strncmp(t->field[1], FEATURE_AMOUNT, strlen(FEATURE_AMOUNT)) == 0;
    if (V->sparse) {
        char *end;
        V->amount = strtol(t->field[1] + strlen(FEATURE_AMOUNT), &end, 10);
        if (strcmp(end, ")") != 0 || V->amount < 0 || V->amount > INT32_MAX)
            return gat_i_error(GAT_EFORMAT, "%s:%ld: bad feature count in '%s'", t->path, t->line,
                               t->field[1]);
    }
    if (max > (size_t)INT32_MAX - 1)
        return gat_i_error(GAT_EFORMAT, "%s: %zu lines exceed the node index type", t->path, max);
    V->feat = gat_calloc(max, sizeof *V->feat);
    V->line = gat_malloc(max, sizeof *V->line);
    V->labels = gat_malloc(max, sizeof *V->labels);
    if (!V->feat || !V->line || !V->labels) return GAT_ENOMEM;
    char **feat = gat_malloc(max, sizeof *feat);
    long *id = gat_malloc(max, sizeof *id), *line = gat_malloc(max, sizeof *line);
    gat_idx *label = gat_malloc(max, sizeof *label);
    size_t n = 0;
    if (!feat || !id || !line || !label) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    while ((st = gat_i_text_next(t)) == GAT_OK && t->n_fields > 0) {
        if (t->n_fields != 3) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: expected 3 fields (node id, features, label), found %zu",
                             t->path, t->line, t->n_fields);
            goto cleanup;
        }
        if (!parse_index(t->field[0], (long)max, &id[n]) ||
            !parse_index(t->field[2], INT32_MAX - 1, &v)) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: the node id '%s' and the label '%s' must be integers >= 0",
                             t->path, t->line, t->field[0], t->field[2]);
            goto cleanup;
        }
        feat[n] = t->field[1];
        line[n] = t->line;
        label[n++] = (gat_idx)v;
    }
    if (st != GAT_OK) goto cleanup;
    if (n == 0) {
        st = gat_i_error(GAT_EFORMAT, "%s: no node lines after the header", t->path);
        goto cleanup;
    }
    V->n = (gat_idx)n;
    for (gat_idx i = 0; i < V->n; i++)
        V->line[i] = -1;
    for (size_t k = 0; k < n; k++) {
        if (id[k] >= (long)n) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: node id %ld is outside [0, %zu): the ids must "
                             "number the %zu nodes",
                             t->path, line[k], id[k], n, n);
            goto cleanup;
        }
        if (V->line[id[k]] >= 0) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: node id %ld repeats line %ld", t->path, line[k],
                             id[k], V->line[id[k]]);
            goto cleanup;
        }
        if (label[k] >= (gat_idx)n) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: label %d implies more classes than the %zu "
                             "nodes",
                             t->path, line[k], label[k], n);
            goto cleanup;
        }
        V->feat[id[k]] = feat[k];
        V->line[id[k]] = line[k];
        V->labels[id[k]] = label[k];
        if (label[k] + 1 > V->C) V->C = label[k] + 1;
    }
cleanup:
    gat_free(feat);
    gat_free(id);
    gat_free(line);
    gat_free(label);
    return st;
}

static int cmp_idx(const void *a, const void *b)
{
    const gat_idx x = *(const gat_idx *)a, y = *(const gat_idx *)b;
    return (x > y) - (x < y);
}

/* The features of V as a CSR: binary from the index lists, or the dense values. */
static gat_status build_features(const char *path, const nodes *V, gat_csr *x)
{
    size_t total = 0, width = 0;
    long top = -1;
    gat_status st;
    for (gat_idx i = 0; i < V->n; i++) {
        const size_t c = *V->feat[i] ? split_commas(V->feat[i]) : 0;
        if (!V->sparse && i == 0) width = c;
        if (!V->sparse && c != width)
            return gat_i_error(GAT_EFORMAT, "%s:%ld: %zu feature values, but node 0 has %zu", path,
                               V->line[i], c, width);
        total += c;
    }
    if (total > INT32_MAX || width > INT32_MAX)
        return gat_i_error(GAT_EFORMAT, "%s: %zu feature values exceed the index type", path,
                           total);
    /* first pass for the sparse lists: the largest index gives the column count */
    gat_idx cols = (gat_idx)width;
    if ((st = gat_csr_init(x, V->n, 0, total)) != GAT_OK) return st;
    size_t at = 0;
    for (gat_idx i = 0; i < V->n; i++) {
        const size_t first = at;
        char *p = V->feat[i];
        const size_t c = *p ? split_commas(p) : 0;
        for (size_t j = 0; j < c; j++) {
            char *end;
            const char want = j + 1 < c ? ',' : '\0';
            if (V->sparse) {
                errno = 0;
                const long k = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
                if (k < 0 || errno || k >= INT32_MAX || *end != want)
                    return gat_i_error(GAT_EFORMAT,
                                       "%s:%ld: feature %zu of node %d is not an index >= 0", path,
                                       V->line[i], j, i);
                if (k > top) top = k;
                x->col[at] = (gat_idx)k;
                x->val[at++] = 1;
            } else {
                const double v = strtod(p, &end);
                if (end == p || *end != want)
                    return gat_i_error(GAT_EFORMAT,
                                       "%s:%ld: feature %zu of node %d is not a "
                                       "number",
                                       path, V->line[i], j, i);
                if (!isfinite(v) || fabs(v) > REAL_MAX)
                    return gat_i_error(GAT_ENUMERIC, "%s:%ld: feature %zu of node %d is %g", path,
                                       V->line[i], j, i, v);
                if (v != 0) {
                    x->col[at] = (gat_idx)j;
                    x->val[at++] = (gat_real)v;
                }
            }
            p = end + 1;
        }
        if (V->sparse) {
            /* indices may repeat (binary features: once) and come in any order */
            qsort(x->col + first, at - first, sizeof *x->col, cmp_idx);
            size_t w = first;
            for (size_t k = first; k < at; k++)
                if (w == first || x->col[k] != x->col[w - 1]) x->col[w++] = x->col[k];
            at = w;
        }
        x->rowptr[i + 1] = (gat_idx)at;
    }
    /* Geom-GCN's loader sizes film's rows 932 for feature_amount 931 (indices 0..931), PyG's
     * Actor the largest index + 1: the larger of the two rules */
    if (V->sparse) cols = (gat_idx)(top + 1 > V->amount ? top + 1 : V->amount);
    x->cols = cols;
    return GAT_OK;
}

/* The edge file: a header line, then "src dst" per line with ids in [0, n). */
static gat_status read_edges(const char *path, size_t max_line, gat_idx n, gat_idx **src,
                             gat_idx **dst, size_t *m)
{
    gat_i_text t;
    int errnum;
    long a, b;
    gat_status st = gat_i_text_load(&t, path, max_line, &errnum);
    if (st != GAT_OK) return st;
    const size_t max = gat_i_text_count_lines(&t);
    *src = gat_malloc(max, sizeof **src);
    *dst = gat_malloc(max, sizeof **dst);
    *m = 0;
    if (!*src || !*dst) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    int first = 1;
    while ((st = gat_i_text_next(&t)) == GAT_OK && t.n_fields > 0) {
        if (first && !parse_index(t.field[0], LONG_MAX, &a)) { /* the header */
            first = 0;
            continue;
        }
        first = 0;
        if (t.n_fields != 2 || !parse_index(t.field[0], LONG_MAX, &a) ||
            !parse_index(t.field[1], LONG_MAX, &b) || a >= n || b >= n) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: expected 2 node ids in [0, %d) (source, target)",
                             path, t.line, n);
            goto cleanup;
        }
        (*src)[*m] = (gat_idx)a;
        (*dst)[(*m)++] = (gat_idx)b;
    }
cleanup:
    gat_i_text_free(&t);
    return st;
}

/* The split files in dir/splits: *count files PREFIX0.npz .. PREFIX<count-1>.npz, PREFIX (owned)
 * ending in "_"; count 0 without a splits folder or such files. */
static gat_status find_splits(const char *dir, char **prefix, gat_idx *count)
{
    char *sdir = gat_i_path_join(dir, "splits");
    DIR *d = NULL;
    long top = -1;
    size_t found = 0;
    gat_status st = GAT_ENOMEM;
    *prefix = NULL;
    *count = 0;
    if (!sdir) return GAT_ENOMEM;
    if (!(d = opendir(sdir))) {
        gat_free(sdir);
        return GAT_OK;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        const size_t len = strlen(name);
        if (len < 5 || strcmp(name + len - 4, ".npz") || !strstr(name, "_split_")) continue;
        size_t u = len - 4;
        while (u > 0 && name[u - 1] >= '0' && name[u - 1] <= '9')
            u--;
        if (u == len - 4 || u == 0 || name[u - 1] != '_') continue;
        if (len - 4 - u > 6 || (name[u] == '0' && len - 4 - u > 1)) continue;
        const long k = strtol(name + u, NULL, 10);
        if (!*prefix) {
            if (!(*prefix = gat_malloc(u + 1, 1))) goto cleanup;
            memcpy(*prefix, name, u);
            (*prefix)[u] = '\0';
        } else if (strlen(*prefix) != u || strncmp(*prefix, name, u)) {
            st = gat_i_error(GAT_EFORMAT, "%s: split files of two families: '%s*.npz' and '%s'",
                             sdir, *prefix, name);
            goto cleanup;
        }
        found++;
        if (k > top) top = k;
    }
    if (found > 0 && (size_t)(top + 1) != found) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: %zu split files '%s*.npz' but the largest is %ld: "
                         "expected 0..%zu",
                         sdir, found, *prefix, top, found - 1);
        goto cleanup;
    }
    *count = (gat_idx)found;
    st = GAT_OK;
cleanup:
    if (d) closedir(d);
    gat_free(sdir);
    if (st != GAT_OK) {
        gat_free(*prefix);
        *prefix = NULL;
    }
    return st;
}

/* Split file K (splits/PREFIXK.npz) of the Geom-GCN directory dir into row (V->n). */
static gat_status read_split_file(const char *dir, const char *prefix, gat_idx K, const nodes *V,
                                  uint8_t *row)
{
    static const char *const masks[3] = {"train_mask", "val_mask", "test_mask"};
    gat_i_npz z = {0};
    gat_idx one;
    char name[32];
    snprintf(name, sizeof name, "%d.npz", K);
    const size_t a = strlen(prefix), b = strlen(name);
    char *rel = gat_malloc(a + b + 8, 1), *path = NULL;
    if (!rel) return GAT_ENOMEM;
    snprintf(rel, a + b + 8, "splits/%s%s", prefix, name);
    path = gat_i_path_join(dir, rel);
    gat_free(rel);
    if (!path) return GAT_ENOMEM;
    gat_status st = gat_i_npz_open(&z, path);
    if (st == GAT_OK) st = gat_i_npz_masks(&z, masks, V->n, V->labels, 0, 1, row, &one, NULL);
    if (st == GAT_OK && one == 0)
        st = gat_i_error(GAT_EFORMAT, "%s: no train_mask, val_mask, test_mask members", path);
    gat_i_npz_close(&z);
    gat_free(path);
    return st;
}

gat_status gat_i_geomgcn_read(gat_dataset *ds, const char *dir, const gat_dataset_options *opt)
{
    gat_i_text t = {0};
    nodes V = {0};
    gat_csr x = {0};
    gat_graph g = {0};
    gat_idx *src = NULL, *dst = NULL, *map = NULL, S = 0;
    uint8_t *split = NULL, *splits = NULL;
    char *nodes_path = gat_i_path_join(dir, "out1_node_feature_label.txt");
    char *edges_path = gat_i_path_join(dir, "out1_graph_edges.txt");
    char *prefix = NULL;
    size_t m = 0;
    int errnum;
    gat_status st = GAT_ENOMEM;

    if (!nodes_path || !edges_path) goto cleanup;
    if ((st = gat_i_text_load(&t, nodes_path, opt->max_line, &errnum)) != GAT_OK ||
        (st = read_nodes(&t, &V)) != GAT_OK ||
        (st = build_features(nodes_path, &V, &x)) != GAT_OK ||
        (st = read_edges(edges_path, opt->max_line, V.n, &src, &dst, &m)) != GAT_OK ||
        (st = find_splits(dir, &prefix, &S)) != GAT_OK)
        goto cleanup;
    if (opt->split_index != 0 && opt->split_index >= S) {
        st = gat_i_error(GAT_EINVAL,
                         "gat_dataset_load: split index %d is out of range: %s holds "
                         "%d split files (splits/*_split_*_K.npz)",
                         opt->split_index, dir, S);
        goto cleanup;
    }
    if (S > 0 && !opt->ignore_split_file) {
        /* every split file when there are several (gat_dataset.splits), else the one; split
         * 0 in split (gat_dataset_load switches to split K) */
        const size_t n = (size_t)V.n;
        if (!(split = gat_calloc(n ? n : 1, 1)) ||
            (S > 1 && !(splits = gat_calloc((size_t)S * (n ? n : 1), 1))))
            goto nomem;
        for (gat_idx k = 0; k < S; k++)
            if ((st = read_split_file(dir, prefix, k, &V,
                                      S > 1 ? splits + (size_t)k * n : split)) != GAT_OK)
                goto cleanup;
        if (S > 1) memcpy(split, splits, n);
    }
    const unsigned flags = opt->symmetrize ? GAT_GRAPH_SYMMETRIZE : 0;
    if (!(map = gat_malloc(GAT_GRAPH_MAX_EDGES(V.n, m, flags), sizeof *map))) goto nomem;
    if ((st = gat_graph_from_edges_mapped(&g, V.n, m, src, dst, flags, map)) != GAT_OK)
        goto cleanup;
    gat_dataset_options o = *opt;
    o.split_index = 0;
    const gat_dataset_parts parts = {.graph = &g,
                                     .features = &x,
                                     .labels = V.labels,
                                     .n_classes = V.C,
                                     .split = split,
                                     .edge_input = map};
    if ((st = gat_i_dataset_from_parts(ds, &parts, &o, "gat_dataset_load", dir, nodes_path)) !=
        GAT_OK)
        goto cleanup;
    ds->n_splits = S;
    ds->splits = splits;
    splits = NULL;
    goto cleanup;
nomem:
    st = GAT_ENOMEM;
cleanup:
    gat_i_text_free(&t);
    gat_free(V.feat);
    gat_free(V.line);
    gat_free(V.labels);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
    gat_free(src);
    gat_free(dst);
    gat_free(map);
    gat_free(split);
    gat_free(splits);
    gat_free(nodes_path);
    gat_free(edges_path);
    gat_free(prefix);
    return st;
}
