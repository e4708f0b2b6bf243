/* Loader of Cora-style datasets (datasets/README.md): NAME.content[.gz] -> sparse features, labels
 * and classes; NAME.cites -> the graph (edge b -> a per line "a b"); NAME.split, or a seeded random
 * split. Each file is read whole through zlib and cut into fields in place by the tokenizer of
 * text.c; the random split is shared with the other dataset sources (dataset_parts.c). */
#include "gat/dataset.h"
#include "core/core.h"
#include "io/dataset_i.h"
#include "io/idtable.h"
#include "io/npz.h"
#include "io/planetoid.h"
#include "io/text.h"
#include "io/tu.h"
#include "io/graphsage.h"
#include "io/ogb.h"
#include "io/wikics.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
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

/* ---- Loader state ------------------------------------------------------------------------ */

typedef struct loader {
    gat_dataset *ds;    /* being filled; destroy-safe at every step */
    gat_i_strmap ids;   /* node id -> node index; keys are ds->node_ids */
    long *line_of;      /* (n) line where each node was met in the file being read */
    char *content_path; /* the .content or .content.gz file that was read */
    size_t max_line;    /* gat_dataset_options.max_line */
} loader;

/* a followed by b, allocated. */
static char *concat(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    char *s = gat_malloc(alen + blen + 1, 1);
    if (!s) return NULL;
    memcpy(s, a, alen);
    memcpy(s + alen, b, blen + 1);
    return s;
}

/* ---- Dataset names ------------------------------------------------------------------------ */

#ifndef GAT_INSTALL_DATASETS
#define GAT_INSTALL_DATASETS "/usr/local/share/libgat/datasets"
#endif
#ifndef GAT_SOURCE_DATASETS
#define GAT_SOURCE_DATASETS ""
#endif

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* Whether base.content or base.content.gz exists (no allocation, so that a failed one is never
 * taken for an answer; a name too long to probe reads as "yes": the reader then says what fails). */
static int content_exists(const char *base)
{
    char p[4096];
    const int w = snprintf(p, sizeof p, "%s.content.gz", base);
    if (w < 0 || (size_t)w >= sizeof p) return 1;
    if (exists(p)) return 1;
    p[w - 3] = '\0';
    return exists(p);
}

/* Whether path names dataset files as it is: a directory or file, or a prefix P of P.content or
 * P.content.gz (out of memory reads as "no": the caller's next allocation fails too). */
static int exists_as_dataset(const char *path)
{
    size_t len = strlen(path);
    char *probe = NULL;
    int yes = exists(path);
    if (!yes && (probe = concat(path, len, ".content"))) yes = exists(probe);
    gat_free(probe);
    probe = NULL;
    if (!yes && (probe = concat(path, len, ".content.gz"))) yes = exists(probe);
    gat_free(probe);
    return yes || gat_i_planetoid_is(path) || gat_i_graphsage_is(path) || gat_i_wikics_is(path);
}

/* Resolves name as gat_dataset_locate documents it; *out: allocated path on success. */
static gat_status locate(const char *fn, const char *name, char **out)
{
    const char *env = getenv("GAT_DATASETS");
    const char *dirs[3] = {env && *env ? env : NULL, GAT_INSTALL_DATASETS, GAT_SOURCE_DATASETS};
    *out = NULL;
    if (exists_as_dataset(name))
        return (*out = concat(name, strlen(name), "")) ? GAT_OK : GAT_ENOMEM;
    if (strchr(name, '/'))
        return gat_i_error(GAT_EIO, "%s: no dataset '%s': neither it nor %s.content[.gz] exists",
                           fn, name, name);
    for (int k = 0; k < 3; k++) {
        if (!dirs[k] || !*dirs[k]) continue;
        char *dir = concat(dirs[k], strlen(dirs[k]), "/"), *p = NULL;
        if (dir) p = concat(dir, strlen(dir), name);
        gat_free(dir);
        if (!p) return GAT_ENOMEM;
        if (exists_as_dataset(p)) {
            *out = p;
            return GAT_OK;
        }
        gat_free(p);
    }
    return gat_i_error(GAT_EIO,
                       "%s: no dataset '%s': not a path, and not in $GAT_DATASETS (%s), the "
                       "installed datasets (%s) or the source tree's (%s)",
                       fn, name, dirs[0] ? dirs[0] : "unset", GAT_INSTALL_DATASETS,
                       *GAT_SOURCE_DATASETS ? GAT_SOURCE_DATASETS : "none");
}

gat_status gat_dataset_locate(const char *name, char *path, size_t size)
{
    char *found = NULL;
    gat_status st;
    gat_i_clear_error();
    if (!name || !*name) return gat_i_error(GAT_EINVAL, "gat_dataset_locate: empty or NULL name");
    if (!path) return gat_i_error(GAT_EINVAL, "gat_dataset_locate: NULL path buffer");
    if ((st = locate("gat_dataset_locate", name, &found)) != GAT_OK) return st;
    if (strlen(found) >= size)
        st = gat_i_error(GAT_EINVAL,
                         "gat_dataset_locate: the path '%s' needs %zu bytes, the buffer "
                         "has %zu",
                         found, strlen(found) + 1, size);
    else
        memcpy(path, found, strlen(found) + 1);
    gat_free(found);
    return st;
}

/* The prefix of the dataset files: D/NAME for a directory D (NAME its last component, trailing
 * slashes ignored), else path itself. */
static gat_status dataset_base(const char *path, char **base)
{
    struct stat sb;
    size_t len = strlen(path), name;
    *base = NULL;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        *base = concat(path, len, "");
        return *base ? GAT_OK : GAT_ENOMEM;
    }
    while (len > 1 && path[len - 1] == '/')
        len--;
    for (name = len; name > 0 && path[name - 1] != '/'; name--)
        continue;
    if (name == len || (len - name == 1 && path[name] == '.') ||
        (len - name == 2 && path[name] == '.' && path[name + 1] == '.'))
        return gat_i_error(GAT_EINVAL,
                           "gat_dataset_load: cannot take a dataset name from the directory '%s'; "
                           "name it explicitly",
                           path);
    *base = gat_malloc(2 * len - name + 2, 1);
    if (!*base) return GAT_ENOMEM;
    memcpy(*base, path, len);
    (*base)[len] = '/';
    memcpy(*base + len + 1, path + name, len - name);
    (*base)[2 * len - name + 1] = '\0';
    return GAT_OK;
}

/* Index of the node named by field k of t's current line (-1 if none). An unknown id is a format
 * error unless skip (gat_dataset_options.skip_unknown_edges): the raw LINQS Citeseer .cites
 * names papers its .content lacks, and the Planetoid files of the GCN/GAT reference are that
 * data with those citations dropped (load them as ind.citeseer.*); dropping edges of a file
 * meant to be complete without being asked would hide a truncated or mismatched .content. */
static gat_status lookup_node(const loader *L, const gat_i_text *t, size_t k, int skip,
                              gat_idx *i)
{
    *i = *gat_i_strmap_slot(&L->ids, gat_i_strv(L->ds->node_ids), t->field[k]);
    if (*i < 0 && !skip)
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld:%ld: unknown node id '%s' (not in %s; every cited and "
                           "citing id needs a line there: remove citations of papers it lacks, "
                           "or skip such lines: --skip-unknown-cites)",
                           t->path, t->line, gat_i_text_column(t, k), t->field[k],
                           L->content_path);
    return GAT_OK;
}

/* ---- NAME.content ------------------------------------------------------------------------ */

/* Opens base.content, or base.content.gz when the former does not exist. */
static gat_status content_open(loader *L, gat_i_text *t, const char *base)
{
    size_t len = strlen(base);
    char *plain = concat(base, len, ".content");
    int errnum;
    gat_status st;
    if (!plain) return GAT_ENOMEM;
    st = gat_i_text_load(t, plain, L->max_line, &errnum);
    if (st == GAT_OK || errnum != ENOENT) {
        L->content_path = plain;
        return st;
    }
    L->content_path = concat(plain, len + 8, ".gz");
    if (!L->content_path) {
        st = GAT_ENOMEM;
    } else {
        st = gat_i_text_load(t, L->content_path, L->max_line, &errnum);
        if (st != GAT_OK && errnum == ENOENT)
            gat_i_error(GAT_EIO, "cannot open %s or %s: %s", plain, L->content_path,
                        strerror(ENOENT));
    }
    gat_free(plain);
    return st;
}

/* Field k (0-based) of t's current line as a feature value; messages number fields from 1 and
 * features from 0, as columns of x. The tokens "0" and "1" (all of a bag-of-words file) skip
 * strtod. */
static gat_status parse_feature(const gat_i_text *t, size_t k, gat_real *v)
{
    const char *s = t->field[k];
    char *end;
    double d;
    if (s[0] == '0' && s[1] == '\0') {
        *v = 0;
        return GAT_OK;
    }
    if (s[0] == '1' && s[1] == '\0') {
        *v = 1;
        return GAT_OK;
    }
    d = strtod(s, &end);
    if (end == s || *end != '\0' || isspace((unsigned char)s[0]))
        return gat_i_error(
            GAT_EFORMAT,
            "%s:%ld:%ld: field %zu (feature column %zu) of node '%s' is not a number: '%s'",
            t->path, t->line, gat_i_text_column(t, k), k + 1, k - 1, t->field[0], s);
    if (!isfinite(d) || fabs(d) > REAL_MAX)
        return gat_i_error(GAT_ENUMERIC,
                           "%s:%ld:%ld: field %zu (feature column %zu) of node '%s' is %s: '%s'",
                           t->path, t->line, gat_i_text_column(t, k), k + 1, k - 1, t->field[0],
                           isfinite(d) ? "out of range for gat_real" : "not finite", s);
    *v = (gat_real)d;
    return GAT_OK;
}

/* Appends the non-zero features of t's current line to x as row x->rows (then counted). */
static gat_status content_row(gat_csr *x, size_t *cap, const gat_i_text *t)
{
    size_t nnz = (size_t)x->rowptr[x->rows], F = (size_t)x->cols;
    if (nnz + F > (size_t)INT32_MAX)
        return gat_i_error(GAT_ENOMEM, "%s:%ld: more than %d non-zero features", t->path, t->line,
                           INT32_MAX);
    if (nnz + F > *cap || !x->col) { /* allocated even when F == 0 */
        size_t c = gat_i_next_cap(*cap, nnz + F);
        gat_idx *col;
        gat_real *val;
        if (!(col = gat_realloc(x->col, c, sizeof *col))) return GAT_ENOMEM;
        x->col = col;
        if (!(val = gat_realloc(x->val, c, sizeof *val))) return GAT_ENOMEM;
        x->val = val;
        *cap = x->capacity = c;
    }
    for (size_t f = 0; f < F; f++) {
        gat_real v = 0;
        gat_status st = parse_feature(t, f + 1, &v);
        if (st != GAT_OK) return st;
        if (v == 0) continue;
        x->col[nnz] = (gat_idx)f;
        x->val[nnz++] = v;
    }
    x->rowptr[++x->rows] = (gat_idx)nnz;
    return GAT_OK;
}

/* Checks the field count of t's current line; the first line fixes the feature count F. */
static gat_status content_shape(gat_csr *x, const gat_i_text *t, int first)
{
    if (first) {
        if (t->n_fields < 2)
            return gat_i_error(GAT_EFORMAT,
                               "%s:%ld: expected at least 2 fields (id, features, label), found 1",
                               t->path, t->line);
        if (t->n_fields - 2 > (size_t)INT32_MAX)
            return gat_i_error(GAT_EFORMAT, "%s:%ld: %zu features exceed the index type", t->path,
                               t->line, t->n_fields - 2);
        x->cols = (gat_idx)(t->n_fields - 2);
    } else if (t->n_fields != (size_t)x->cols + 2) {
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld: expected %zu fields (id, %d features, label), found %zu",
                           t->path, t->line, (size_t)x->cols + 2, x->cols, t->n_fields);
    }
    return GAT_OK;
}

/* Registers the id in field 0 of t's current line as node ds->n (then counted). */
static gat_status content_id(loader *L, const gat_i_text *t)
{
    gat_dataset *ds = L->ds;
    char **ids = gat_i_strv(ds->node_ids);
    gat_idx *slot = gat_i_strmap_slot(&L->ids, ids, t->field[0]);
    if (*slot >= 0)
        return gat_i_error(GAT_EFORMAT, "%s:%ld: duplicate node id '%s' (first on line %ld)",
                           t->path, t->line, t->field[0], L->line_of[*slot]);
    if (!(ids[ds->n] = gat_strdup(t->field[0]))) return GAT_ENOMEM;
    L->line_of[ds->n] = t->line;
    *slot = ds->n++;
    return GAT_OK;
}

/* First-seen class number of label, numbering it C (then counted) if new. names: (C) distinct
 * labels so far, the keys of classes. */
static gat_idx content_label(gat_i_strmap *classes, char **names, gat_idx *C, char *label)
{
    gat_idx *slot = gat_i_strmap_slot(classes, names, label);
    if (*slot < 0) {
        names[*C] = label;
        *slot = (*C)++;
    }
    return *slot;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Numbers the classes by the byte order of their names: ds->labels holds first-seen class
 * numbers on entry (names (C) in first-seen order, found through map) and sorted ones on exit;
 * ds->class_names receives copies of the sorted names. */
static gat_status number_classes(gat_dataset *ds, char **names, gat_idx C, const gat_i_strmap *map)
{
    char **sorted = gat_malloc((size_t)C, sizeof *sorted);
    gat_idx *rank = gat_malloc((size_t)C, sizeof *rank);
    gat_status st = GAT_ENOMEM;
    if (!sorted || !rank) goto cleanup;
    memcpy(sorted, names, (size_t)C * sizeof *sorted);
    qsort(sorted, (size_t)C, sizeof *sorted, cmp_str);
    for (gat_idx k = 0; k < C; k++)
        rank[*gat_i_strmap_slot(map, names, sorted[k])] = k;
    for (gat_idx i = 0; i < ds->n; i++)
        ds->labels[i] = rank[ds->labels[i]];
    char **out = gat_calloc((size_t)C, sizeof *out);
    if (!(ds->class_names = (const char *const *)out)) goto cleanup;
    for (; ds->n_classes < C; ds->n_classes++)
        if (!(out[ds->n_classes] = gat_strdup(sorted[ds->n_classes]))) goto cleanup;
    st = GAT_OK;
cleanup:
    gat_free(sorted);
    gat_free(rank);
    return st;
}

/* Reads the nodes: ids, sparse features into ds->x, labels and classes. */
static gat_status read_content(loader *L, const char *base)
{
    gat_dataset *ds = L->ds;
    gat_i_text t;
    gat_i_strmap classes = {0};
    char **names = NULL; /* (max_nodes) distinct labels in first-seen order, into t.buf */
    gat_idx C = 0;
    size_t max_nodes, cap = 0;
    gat_status st;

    if ((st = content_open(L, &t, base)) != GAT_OK) return st;
    max_nodes = gat_i_text_count_lines(&t);
    if (max_nodes > (size_t)INT32_MAX - 1) {
        st =
            gat_i_error(GAT_EFORMAT, "%s: %zu lines exceed the node index type", t.path, max_nodes);
        goto cleanup;
    }
    ds->node_ids = (const char *const *)gat_calloc(max_nodes, sizeof(char *));
    ds->labels = gat_malloc(max_nodes, sizeof *ds->labels);
    ds->x.rowptr = gat_calloc(max_nodes + 1, sizeof *ds->x.rowptr);
    L->line_of = gat_malloc(max_nodes, sizeof *L->line_of);
    names = gat_malloc(max_nodes, sizeof *names);
    if (!ds->node_ids || !ds->labels || !ds->x.rowptr || !L->line_of || !names ||
        gat_i_strmap_init(&L->ids, max_nodes) != GAT_OK ||
        gat_i_strmap_init(&classes, max_nodes) != GAT_OK) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    while ((st = gat_i_text_next(&t)) == GAT_OK && t.n_fields > 0) {
        if ((st = content_shape(&ds->x, &t, ds->n == 0)) != GAT_OK ||
            (st = content_id(L, &t)) != GAT_OK || (st = content_row(&ds->x, &cap, &t)) != GAT_OK)
            goto cleanup;
        ds->labels[ds->n - 1] = content_label(&classes, names, &C, t.field[t.n_fields - 1]);
    }
    if (st != GAT_OK) goto cleanup;
    if (ds->n == 0) {
        st = gat_i_error(GAT_EFORMAT, "%s: empty file: expected one line per node", t.path);
        goto cleanup;
    }
    ds->n_features = ds->x.cols;
    st = number_classes(ds, names, C, &classes);
cleanup:
    gat_i_text_free(&t);
    gat_i_strmap_free(&classes);
    gat_free(names);
    return st;
}

/* ---- NAME.cites -------------------------------------------------------------------------- */

/* Field k of t's current line as a finite edge feature (file:line:column on failure). */
static gat_status parse_edge_value(const gat_i_text *t, size_t k, gat_real *v)
{
    const char *s = t->field[k];
    char *end;
    double d = strtod(s, &end);
    if (end == s || *end != '\0')
        return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: edge feature %zu is not a number: '%s'",
                           t->path, t->line, gat_i_text_column(t, k), k - 1, s);
    if (!isfinite(d) || fabs(d) > REAL_MAX)
        return gat_i_error(GAT_ENUMERIC, "%s:%ld:%ld: edge feature %zu is %s: '%s'", t->path,
                           t->line, gat_i_text_column(t, k), k - 1,
                           isfinite(d) ? "out of range for gat_real" : "not finite", s);
    *v = (gat_real)d;
    return GAT_OK;
}

/* Reads the edges (line "a b [w1 ... wD]" is the edge b -> a with edge features w) and builds
 * ds->graph, ds->edge_input and, when the lines have D > 0 extra fields, ds->edge_x. */
static gat_status read_cites(loader *L, const char *path, const gat_dataset_options *opt)
{
    gat_dataset *ds = L->ds;
    gat_i_text t;
    gat_idx *src = NULL, *dst = NULL, *map = NULL, *line_of = NULL;
    gat_real *raw = NULL;
    size_t m = 0, max_edges, width = 0;
    const unsigned flags = opt->symmetrize ? GAT_GRAPH_SYMMETRIZE : 0;
    int errnum;
    gat_status st;

    if ((st = gat_i_text_load(&t, path, L->max_line, &errnum)) != GAT_OK) return st;
    max_edges = gat_i_text_count_lines(&t);
    src = gat_malloc(max_edges, sizeof *src);
    dst = gat_malloc(max_edges, sizeof *dst);
    line_of = gat_malloc(max_edges, sizeof *line_of);
    if (!src || !dst || !line_of) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    while ((st = gat_i_text_next(&t)) == GAT_OK && t.n_fields > 0) {
        const int first = m + (size_t)ds->skipped_edges == 0;
        if (first) width = t.n_fields;
        if (t.n_fields < 2 || t.n_fields != width) {
            if (width > 2 && t.n_fields > width)
                st = gat_i_error(GAT_EFORMAT,
                                 "%s:%ld:%ld: extra field '%s': expected %zu fields (cited id, "
                                 "citing id, %zu edge features, as on the first line), found %zu",
                                 path, t.line, gat_i_text_column(&t, width), t.field[width], width,
                                 width - 2, t.n_fields);
            else if (width > 2)
                st = gat_i_error(
                    GAT_EFORMAT,
                    "%s:%ld:%ld: edge feature %zu is missing: expected %zu fields "
                    "(cited id, citing id, %zu edge features, as on the first "
                    "line), found %zu",
                    path, t.line,
                    gat_i_text_column(&t, t.n_fields - 1) + (long)strlen(t.field[t.n_fields - 1]),
                    t.n_fields >= 2 ? t.n_fields - 1 : 1, width, width - 2, t.n_fields);
            else
                st = gat_i_error(GAT_EFORMAT,
                                 "%s:%ld: expected 2 fields (cited id, citing id), found %zu", path,
                                 t.line, t.n_fields);
            goto cleanup;
        }
        if (first && width > 2 && width - 2 > (size_t)INT32_MAX / 2) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: %zu edge features are too many", path, t.line,
                             width - 2);
            goto cleanup;
        }
        if (first && width > 2 && !(raw = gat_malloc(max_edges, (width - 2) * sizeof *raw))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        if ((st = lookup_node(L, &t, 1, opt->skip_unknown_edges, &src[m])) != GAT_OK ||
            (st = lookup_node(L, &t, 0, opt->skip_unknown_edges, &dst[m])) != GAT_OK)
            goto cleanup;
        if (src[m] < 0 || dst[m] < 0) {
            ds->skipped_edges++;
            continue;
        }
        line_of[m] = (gat_idx)(m + (size_t)ds->skipped_edges); /* edge_input: data lines */
        for (size_t k = 2; k < width; k++)
            if ((st = parse_edge_value(&t, k, &raw[m * (width - 2) + k - 2])) != GAT_OK)
                goto cleanup;
        m++;
    }
    if (st != GAT_OK) goto cleanup;
    if (!(map = gat_malloc(GAT_GRAPH_MAX_EDGES(ds->n, m, flags), sizeof *map))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_graph_from_edges_mapped(&ds->graph, ds->n, m, src, dst, flags, map)) != GAT_OK)
        goto cleanup;
    /* keep E entries only */
    if (!(ds->edge_input = gat_realloc(map, (size_t)ds->graph.nnz, sizeof *map))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    map = NULL;
    for (gat_idx e = 0; ds->skipped_edges && e < ds->graph.nnz; e++)
        if (ds->edge_input[e] >= 0) ds->edge_input[e] = line_of[ds->edge_input[e]];
    if (width > 2) {
        if ((st = gat_i_edge_rows(&ds->graph, m, src, dst, opt->symmetrize, raw,
                                  (gat_idx)(width - 2), opt->self_loop_fill, &ds->edge_x)) !=
            GAT_OK)
            goto cleanup;
        ds->n_edge_features = (gat_idx)(width - 2);
    }
cleanup:
    gat_i_text_free(&t);
    gat_free(src);
    gat_free(dst);
    gat_free(map);
    gat_free(raw);
    gat_free(line_of);
    return st;
}

/* ---- NAME.split or a random split -------------------------------------------------------- */

/* Reads ds->split from the split table at path (io/idtable.h); *absent = 1 (and GAT_OK) if it
 * does not exist. */
static gat_status read_split(loader *L, const char *path, int *absent)
{
    char *known = concat("in ", 3, L->content_path);
    if (!known) return GAT_ENOMEM;
    const gat_status st =
        gat_i_split_table_read(L->ds->split, path, L->max_line, absent, &L->ids,
                               gat_i_strv(L->ds->node_ids), L->ds->n, known, L->ds->labels, NULL);
    gat_free(known);
    return st;
}

/* ---- Public API -------------------------------------------------------------------------- */

gat_status gat_dataset_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt)
{
    gat_dataset_options defaults;
    loader L = {0};
    char *base = NULL, *cites = NULL, *split = NULL, *found = NULL;
    int absent = 1;
    gat_status st;

    gat_i_clear_error();
    if (!ds) return gat_i_error(GAT_EINVAL, "gat_dataset_load: NULL dataset");
    memset(ds, 0, sizeof *ds);
    if (!path || !*path) return gat_i_error(GAT_EINVAL, "gat_dataset_load: empty or NULL path");
    if (!opt) {
        gat_dataset_options_default(&defaults);
        opt = &defaults;
    }
    if ((st = gat_i_check_options(opt, "gat_dataset_load")) != GAT_OK) return st;
    L.ds = ds;
    L.max_line = opt->max_line;
    /* a bare name that is no file here: a bundled dataset (a path keeps the readers' messages) */
    if (!exists_as_dataset(path) && !strchr(path, '/')) {
        if ((st = locate("gat_dataset_load", path, &found)) != GAT_OK) goto cleanup;
        path = found;
    }
    if (gat_i_tu_is(path)) {
        st = gat_i_tu_load(ds, path, opt);
        goto cleanup;
    }
    if (gat_i_graphsage_is(path)) {
        st = gat_i_graphsage_load(ds, path, opt);
        goto cleanup;
    }
    if (gat_i_planetoid_is(path)) {
        st = gat_i_planetoid_load(ds, path, opt);
        goto cleanup;
    }
    if (gat_i_datafile_is(path)) {
        st = gat_i_datafile_load(ds, path, opt);
        goto cleanup;
    }
    if (gat_i_npz_is(path) || gat_i_geomgcn_is(path)) {
        st = gat_i_npz_is(path) ? gat_i_npz_dataset_read(ds, path, opt)
                                : gat_i_geomgcn_read(ds, path, opt);
        goto cleanup;
    }
    if (gat_i_wikics_is(path)) {
        st = gat_i_wikics_load(ds, path, opt);
        goto cleanup;
    }
    if (gat_i_ogb_is(path)) {
        st = gat_i_ogb_read(ds, path, opt);
        goto cleanup;
    }
    if ((st = dataset_base(path, &base)) != GAT_OK) goto cleanup;
    if (exists(path) && !content_exists(base)) { /* in no layout: say what path is instead */
        st = gat_i_dataset_unknown("gat_dataset_load", path);
        goto cleanup;
    }
    if ((st = read_content(&L, base)) != GAT_OK) goto cleanup;
    if (!(cites = concat(base, strlen(base), ".cites")) ||
        !(split = concat(base, strlen(base), ".split")) ||
        !(ds->split = gat_calloc((size_t)ds->n, sizeof *ds->split))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = read_cites(&L, cites, opt)) != GAT_OK) goto cleanup;
    if (!opt->ignore_split_file && (st = read_split(&L, split, &absent)) != GAT_OK) goto cleanup;
    if (absent && !gat_i_cuts(opt) && (st = gat_i_random_split(ds, opt, L.content_path)) != GAT_OK)
        goto cleanup;
    gat_i_count_split(ds);
    ds->n_splits = exists(split);
    st = gat_i_normalize_checked(ds, opt->normalize, "gat_dataset_load", L.content_path);
cleanup:
    if (st == GAT_OK && opt->split_index != 0 && opt->split_index >= ds->n_splits)
        st = gat_i_error(GAT_EINVAL, "gat_dataset_load: split index %d is out of range: %s holds "
                         "%d fixed split%s", opt->split_index, path, ds->n_splits,
                         ds->n_splits == 1 ? "" : "s");
    /* every loader leaves split 0 in use (and every split in ds->splits): split K from them */
    if (st == GAT_OK && opt->split_index != 0 && ds->splits)
        st = gat_dataset_use_split(ds, opt->split_index);
    if (st == GAT_OK)
        st = gat_i_dataset_finish(ds, opt, ds->n_splits == 0 || opt->ignore_split_file,
                                  "gat_dataset_load");
    gat_i_strmap_free(&L.ids);
    gat_free(L.line_of);
    gat_free(L.content_path);
    gat_free(base);
    gat_free(cites);
    gat_free(split);
    gat_free(found);
    if (st != GAT_OK) gat_dataset_destroy(ds);
    return st;
}
