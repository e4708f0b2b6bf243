/* The OGB node property prediction layout (Hu et al. 2020: ogbn-arxiv, ogbn-products,
 * ogbn-proteins as ogb's NodePropPredDataset unpacks them, e.g. arxiv/): a directory with
 *   raw/edge.csv.gz           "src,dst" per edge, node numbers 0..N-1, no header
 *   raw/node-label.csv.gz     N rows: a class (NaN: unlabelled; a blank line is skipped, as in
 * every text file), or T > 1 values 0/1 (multi-label, as ogbn-proteins) raw/node-feat.csv.gz
 * optional: N rows of F values (absent: one constant feature) raw/edge-feat.csv.gz      optional: a
 * row of D values per edge raw/num-node-list.csv.gz  optional: N, checked
 *   split/NAME/{train,valid,test}.csv.gz  optional (one NAME): node numbers, one a line
 * Each file may also be plain (.csv). Numbers are read as CSV fields (io/text.h). */
#include "io/ogb.h"
#include "core/core.h"
#include "data/data_i.h"
#include "io/text.h"

#include <dirent.h>
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

/* dir/sub/name.csv.gz, else dir/sub/name.csv, into buf; 1 if one of them is a regular file. */
static int table_path(const char *dir, const char *sub, const char *name, char *buf, size_t size)
{
    static const char *const ext[2] = {".csv.gz", ".csv"};
    struct stat sb;
    for (int k = 0; k < 2; k++) {
        const int len = snprintf(buf, size, "%s/%s/%s%s", dir, sub, name, ext[k]);
        if (len > 0 && (size_t)len < size && stat(buf, &sb) == 0 && S_ISREG(sb.st_mode)) return 1;
    }
    return 0;
}

int gat_i_ogb_is(const char *path)
{
    /* no allocation: a probe that failed for want of memory would read as "not this format" */
    char p[4200];
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) &&
           table_path(path, "raw", "edge", p, sizeof p) &&
           table_path(path, "raw", "node-label", p, sizeof p);
}

/* A table of numbers read whole: rows of width values each (width from the first row). */
typedef struct table {
    char path[4200];
    gat_i_text t;
    size_t rows, width;
} table;

/* Opens dir/sub/name (.csv.gz or .csv) into T; *present 0 (GAT_OK) when neither exists and
 * required is 0. */
static gat_status table_open(table *T, const char *dir, const char *sub, const char *name,
                             size_t max_line, int required, int *present)
{
    int errnum;
    memset(T, 0, sizeof *T);
    *present = table_path(dir, sub, name, T->path, sizeof T->path);
    if (!*present) {
        if (!required) return GAT_OK;
        return gat_i_error(GAT_EIO, "%s/%s: no %s.csv.gz (nor %s.csv): %s", dir, sub, name, name,
                           strcmp(sub, "raw") ? "a split directory holds train, valid and test"
                                              : "an OGB dataset directory needs raw/edge and "
                                                "raw/node-label");
    }
    gat_status st = gat_i_text_load(&T->t, T->path, max_line, &errnum);
    T->t.csv = 1;
    return st;
}

/* The next row of T (n_fields 0 at the end), checked to hold T->width fields (set by the first). */
static gat_status table_row(table *T)
{
    gat_status st = gat_i_text_row(&T->t);
    if (st != GAT_OK || T->t.n_fields == 0) return st;
    if (T->rows++ == 0) T->width = T->t.n_fields;
    if (T->t.n_fields != T->width)
        return gat_i_error(GAT_EFORMAT, "%s:%ld: %zu fields, expected %zu as on the first line",
                           T->path, T->t.line, T->t.n_fields, T->width);
    return GAT_OK;
}

/* Field k of T's current row as an integer in [0, limit); what names it in messages. */
static gat_status table_index(const table *T, size_t k, int64_t limit, const char *what, gat_idx *v)
{
    const char *s = T->t.field[k];
    char *end;
    errno = 0;
    const long long x = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno || x < 0 || x >= limit)
        return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: %s '%s' is not an integer in [0, %lld)",
                           T->path, T->t.line, gat_i_text_column(&T->t, k), what, s,
                           (long long)limit);
    *v = (gat_idx)x;
    return GAT_OK;
}

/* Field k of T's current row as a finite number within gat_real's range; *nan (if not NULL) set
 * for an empty field or NaN (then *v = 0), which is an error without it. */
static gat_status table_value(const table *T, size_t k, double *v, int *nan)
{
    const char *s = T->t.field[k];
    char *end;
    const double d = *s ? strtod(s, &end) : NAN;
    if (*s && (end == s || *end != '\0'))
        return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: '%s' is not a number", T->path, T->t.line,
                           gat_i_text_column(&T->t, k), s);
    if (nan) *nan = d != d;
    if ((d != d && nan) || (isfinite(d) && fabs(d) <= REAL_MAX)) {
        *v = d != d ? 0 : d;
        return GAT_OK;
    }
    return gat_i_error(GAT_ENUMERIC, "%s:%ld:%ld: '%s' is %s", T->path, T->t.line,
                       gat_i_text_column(&T->t, k), s,
                       d != d || isinf(d) ? "not finite" : "out of range for gat_real");
}

/* Grows *p (elements of size) to hold need elements. */
static gat_status grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return GAT_OK;
    const size_t c = gat_i_next_cap(*cap, need);
    void *q = gat_realloc(*(void **)p, c, size);
    if (!q) return GAT_ENOMEM;
    *(void **)p = q;
    *cap = c;
    return GAT_OK;
}

/* What the directory holds, assembled for gat_dataset_from_parts. */
typedef struct ogb {
    gat_idx n;
    gat_idx *labels, C;    /* (n) classes, or NULL with label_matrix */
    uint8_t *label_matrix; /* (n, T) 0/1, multi-label */
    gat_idx T;
    gat_idx *src, *dst;
    size_t m;
    gat_csr x;
    gat_real *edge_raw; /* (m, D) */
    gat_idx D;
    uint8_t *split; /* (n) or NULL */
} ogb;

/* raw/node-label: n and the classes (T == 1) or the label matrix (T > 1). */
static gat_status read_labels(ogb *O, const char *dir, size_t max_line)
{
    table T;
    int present;
    size_t cap = 0;
    gat_status st = table_open(&T, dir, "raw", "node-label", max_line, 1, &present);
    while (st == GAT_OK && (st = table_row(&T)) == GAT_OK && T.t.n_fields > 0) {
        const size_t i = T.rows - 1, w = T.width;
        if (i >= (size_t)INT32_MAX - 1) {
            st = gat_i_error(GAT_EFORMAT, "%s: more rows than the node index type holds", T.path);
            break;
        }
        if ((st = w == 1 ? grow(&O->labels, &cap, i + 1, sizeof *O->labels)
                         : grow(&O->label_matrix, &cap, (i + 1) * w, 1)) != GAT_OK)
            break;
        for (size_t k = 0; k < w && st == GAT_OK; k++) {
            double v = 0;
            int nan = 0;
            if ((st = table_value(&T, k, &v, &nan)) != GAT_OK) break;
            if (w == 1) {
                if (!nan && (v != floor(v) || v < 0 || v >= INT32_MAX))
                    st = gat_i_error(GAT_EFORMAT,
                                     "%s:%ld: class '%s' is not an integer >= 0 (NaN: "
                                     "unlabelled)",
                                     T.path, T.t.line, T.t.field[0]);
                else
                    O->labels[i] = nan ? -1 : (gat_idx)v;
            } else {
                if (nan || (v != 0 && v != 1))
                    st = gat_i_error(GAT_EFORMAT,
                                     "%s:%ld:%ld: label '%s' of a multi-label row, "
                                     "expected 0 or 1",
                                     T.path, T.t.line, gat_i_text_column(&T.t, k), T.t.field[k]);
                else
                    O->label_matrix[i * w + k] = (uint8_t)v;
            }
        }
    }
    if (st == GAT_OK && T.rows == 0)
        st = gat_i_error(GAT_EFORMAT, "%s: no rows: expected one label row per node", T.path);
    if (st == GAT_OK) {
        O->n = (gat_idx)T.rows;
        O->T = T.width > 1 ? (gat_idx)T.width : 0;
        for (gat_idx i = 0; O->labels && i < O->n && st == GAT_OK; i++) {
            if (O->labels[i] >= O->n)
                st = gat_i_error(GAT_EFORMAT,
                                 "%s:%d: class %d is not below the node count %d "
                                 "(more classes than nodes)",
                                 T.path, i + 1, O->labels[i], O->n);
            else if (O->labels[i] + 1 > O->C)
                O->C = O->labels[i] + 1;
        }
    }
    gat_i_text_free(&T.t);
    return st;
}

/* raw/num-node-list (optional): its first value must be n. */
static gat_status check_count(const ogb *O, const char *dir, size_t max_line)
{
    table T;
    int present;
    gat_idx v = 0;
    gat_status st = table_open(&T, dir, "raw", "num-node-list", max_line, 0, &present);
    if (st == GAT_OK && present && (st = table_row(&T)) == GAT_OK && T.t.n_fields > 0 &&
        (st = table_index(&T, 0, INT32_MAX, "the node count", &v)) == GAT_OK && v != O->n)
        st = gat_i_error(GAT_EFORMAT, "%s:%ld: %d nodes, but node-label has %d rows", T.path,
                         T.t.line, v, O->n);
    gat_i_text_free(&T.t);
    return st;
}

/* raw/edge: the m edges src[k] -> dst[k]. */
static gat_status read_edges(ogb *O, const char *dir, size_t max_line)
{
    table T;
    int present;
    size_t cap = 0, cap2 = 0;
    gat_status st = table_open(&T, dir, "raw", "edge", max_line, 1, &present);
    while (st == GAT_OK && (st = table_row(&T)) == GAT_OK && T.t.n_fields > 0) {
        if (T.width != 2) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: %zu fields, expected 2 (source, target)", T.path,
                             T.t.line, T.width);
            break;
        }
        if ((st = grow(&O->src, &cap, T.rows, sizeof *O->src)) != GAT_OK ||
            (st = grow(&O->dst, &cap2, T.rows, sizeof *O->dst)) != GAT_OK ||
            (st = table_index(&T, 0, O->n, "node", &O->src[T.rows - 1])) != GAT_OK ||
            (st = table_index(&T, 1, O->n, "node", &O->dst[T.rows - 1])) != GAT_OK)
            break;
    }
    O->m = T.rows;
    gat_i_text_free(&T.t);
    return st;
}

/* raw/node-feat (optional): x (n, F), zeros left out; one constant feature without the file. */
static gat_status read_features(ogb *O, const char *dir, size_t max_line)
{
    table T;
    int present;
    size_t cap_col = 0, cap_val = 0;
    gat_status st = table_open(&T, dir, "raw", "node-feat", max_line, 0, &present);
    gat_csr *x = &O->x;
    if (st == GAT_OK && !(x->rowptr = gat_calloc((size_t)O->n + 1, sizeof *x->rowptr)))
        st = GAT_ENOMEM;
    if (st == GAT_OK && !present) { /* one constant feature */
        x->rows = O->n, x->cols = 1;
        if (!(x->col = gat_calloc((size_t)O->n ? (size_t)O->n : 1, sizeof *x->col)) ||
            !(x->val = gat_malloc((size_t)O->n ? (size_t)O->n : 1, sizeof *x->val)))
            st = GAT_ENOMEM;
        for (gat_idx i = 0; st == GAT_OK && i < O->n; i++)
            x->val[i] = 1, x->rowptr[i + 1] = i + 1;
        x->capacity = (size_t)O->n;
        return st;
    }
    size_t nnz = 0;
    while (st == GAT_OK && (st = table_row(&T)) == GAT_OK && T.t.n_fields > 0) {
        if (T.rows > (size_t)O->n) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: more rows than the %d nodes of node-label",
                             T.path, T.t.line, O->n);
            break;
        }
        if (T.width > (size_t)INT32_MAX - 1 || nnz + T.width > (size_t)INT32_MAX) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: more feature values than the index type holds",
                             T.path, T.t.line);
            break;
        }
        if ((st = grow(&x->col, &cap_col, nnz + T.width, sizeof *x->col)) != GAT_OK ||
            (st = grow(&x->val, &cap_val, nnz + T.width, sizeof *x->val)) != GAT_OK)
            break;
        for (size_t k = 0; k < T.width && st == GAT_OK; k++) {
            double v = 0;
            if ((st = table_value(&T, k, &v, NULL)) == GAT_OK && v != 0)
                x->col[nnz] = (gat_idx)k, x->val[nnz++] = (gat_real)v;
        }
        x->rowptr[T.rows] = (gat_idx)nnz;
    }
    if (st == GAT_OK && T.rows != (size_t)O->n)
        st = gat_i_error(GAT_EFORMAT, "%s: %zu rows, expected one per node (%d, as node-label)",
                         T.path, T.rows, O->n);
    x->rows = O->n;
    x->cols = (gat_idx)T.width;
    x->capacity = cap_col < cap_val ? cap_col : cap_val;
    gat_i_text_free(&T.t);
    return st;
}

/* raw/edge-feat (optional): a row of D values per edge of raw/edge. */
static gat_status read_edge_features(ogb *O, const char *dir, size_t max_line)
{
    table T;
    int present;
    size_t cap = 0;
    gat_status st = table_open(&T, dir, "raw", "edge-feat", max_line, 0, &present);
    while (st == GAT_OK && present && (st = table_row(&T)) == GAT_OK && T.t.n_fields > 0) {
        if (T.rows > O->m) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: more rows than the %zu edges of raw/edge",
                             T.path, T.t.line, O->m);
            break;
        }
        if ((st = grow(&O->edge_raw, &cap, T.rows * T.width, sizeof *O->edge_raw)) != GAT_OK) break;
        for (size_t k = 0; k < T.width && st == GAT_OK; k++) {
            double v = 0;
            st = table_value(&T, k, &v, NULL);
            O->edge_raw[(T.rows - 1) * T.width + k] = (gat_real)v;
        }
    }
    if (st == GAT_OK && present && T.rows != O->m)
        st = gat_i_error(GAT_EFORMAT, "%s: %zu rows, expected one per edge (%zu, as raw/edge)",
                         T.path, T.rows, O->m);
    O->D = present && T.width <= (size_t)INT32_MAX ? (gat_idx)T.width : 0;
    gat_i_text_free(&T.t);
    return st;
}

/* split/NAME: the one subdirectory's name into name (size), or name[0] = 0 when there is no
 * split directory. */
static gat_status split_name(const char *dir, char *name, size_t size)
{
    char path[4200];
    name[0] = '\0';
    snprintf(path, sizeof path, "%s/split", dir);
    DIR *d = opendir(path);
    if (!d) return GAT_OK;
    struct dirent *e;
    int found = 0;
    gat_status st = GAT_OK;
    while ((e = readdir(d)) != NULL) {
        char sub[4700];
        struct stat sb;
        if (e->d_name[0] == '.') continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (stat(sub, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
        if (found++ || strlen(e->d_name) >= size) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: expected one split directory (as 'time' or "
                             "'sales_ranking'), found several or a long name ('%s')",
                             path, e->d_name);
            break;
        }
        snprintf(name, size, "%s", e->d_name);
    }
    closedir(d);
    return st;
}

/* split/NAME/{train,valid,test}: the split (n), every listed node once, labelled (one class a
 * node) or any (multi-label). */
static gat_status read_split(ogb *O, const char *dir, const char *name, size_t max_line)
{
    static const char *const file[3] = {"train", "valid", "test"};
    static const uint8_t value[3] = {GAT_SPLIT_TRAIN, GAT_SPLIT_VAL, GAT_SPLIT_TEST};
    char sub[300];
    snprintf(sub, sizeof sub, "split/%s", name);
    if (!(O->split = gat_calloc((size_t)O->n ? (size_t)O->n : 1, 1))) return GAT_ENOMEM;
    gat_status st = GAT_OK;
    for (int s = 0; s < 3 && st == GAT_OK; s++) {
        table T;
        int present;
        st = table_open(&T, dir, sub, file[s], max_line, 1, &present);
        while (st == GAT_OK && (st = table_row(&T)) == GAT_OK && T.t.n_fields > 0) {
            gat_idx i;
            if (T.width != 1)
                st = gat_i_error(GAT_EFORMAT, "%s:%ld: %zu fields, expected a node number", T.path,
                                 T.t.line, T.width);
            else if ((st = table_index(&T, 0, O->n, "node", &i)) != GAT_OK)
                break;
            else if (O->split[i])
                st = gat_i_error(GAT_EFORMAT, "%s:%ld: node %d is listed twice", T.path, T.t.line,
                                 i);
            else if (O->labels && O->labels[i] < 0)
                st = gat_i_error(GAT_EFORMAT, "%s:%ld: node %d is in the split but unlabelled",
                                 T.path, T.t.line, i);
            else
                O->split[i] = value[s];
        }
        gat_i_text_free(&T.t);
    }
    return st;
}

gat_status gat_i_ogb_read(gat_dataset *ds, const char *dir, const gat_dataset_options *opt)
{
    ogb O = {0};
    gat_graph g = {0};
    gat_idx *map = NULL;
    gat_real *edge_x = NULL;
    char name[256];
    gat_status st;
    if ((st = read_labels(&O, dir, opt->max_line)) != GAT_OK ||
        (st = check_count(&O, dir, opt->max_line)) != GAT_OK ||
        (st = read_edges(&O, dir, opt->max_line)) != GAT_OK ||
        (st = read_features(&O, dir, opt->max_line)) != GAT_OK ||
        (st = read_edge_features(&O, dir, opt->max_line)) != GAT_OK ||
        (st = split_name(dir, name, sizeof name)) != GAT_OK)
        goto cleanup;
    if (opt->split_index != 0 && opt->split_index >= (name[0] != '\0')) {
        st = gat_i_error(GAT_EINVAL,
                         "gat_dataset_load: split index %d is out of range: %s holds "
                         "%d split%s",
                         opt->split_index, dir, name[0] != '\0', name[0] ? "" : "s");
        goto cleanup;
    }
    if (name[0] && !opt->ignore_split_file &&
        (st = read_split(&O, dir, name, opt->max_line)) != GAT_OK)
        goto cleanup;
    const unsigned flags = opt->symmetrize ? GAT_GRAPH_SYMMETRIZE : 0;
    if (!(map = gat_malloc(GAT_GRAPH_MAX_EDGES(O.n, O.m, flags), sizeof *map))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_graph_from_edges_mapped(&g, O.n, O.m, O.src, O.dst, flags, map)) != GAT_OK ||
        (O.D > 0 && (st = gat_i_edge_rows(&g, O.m, O.src, O.dst, opt->symmetrize, O.edge_raw, O.D,
                                          opt->self_loop_fill, &edge_x)) != GAT_OK))
        goto cleanup;
    gat_dataset_options o = *opt;
    o.split_index = 0;
    const gat_dataset_parts parts = {.graph = &g,
                                     .features = &O.x,
                                     .labels = O.labels,
                                     .n_classes = O.C,
                                     .split = O.split,
                                     .edge_features = edge_x,
                                     .n_edge_features = O.D,
                                     .edge_input = map,
                                     .n_labels = O.T,
                                     .label_matrix = O.label_matrix};
    if ((st = gat_i_dataset_from_parts(ds, &parts, &o, "gat_dataset_load", dir, dir)) != GAT_OK)
        goto cleanup;
    ds->n_splits = name[0] != '\0';
cleanup:
    gat_free(O.labels);
    gat_free(O.label_matrix);
    gat_free(O.src);
    gat_free(O.dst);
    gat_csr_destroy(&O.x);
    gat_free(O.edge_raw);
    gat_free(O.split);
    gat_graph_destroy(&g);
    gat_free(map);
    gat_free(edge_x);
    return st;
}
