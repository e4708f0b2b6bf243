/* Edge tables read by libgat itself rather than igraph: edge lists ("a b" per line, white space),
 * ncol files and CSV files (gat/graphfile.h), with '#' and '%' comments, a header line where the
 * file has one, numeric edge feature columns, and node ids that are vertex numbers or names. */
#include "io/graphfile_i.h"
#include "core/core.h"
#include "io/text.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GAT_REAL_DOUBLE
#define REAL_MAX DBL_MAX
#else
#define REAL_MAX FLT_MAX
#endif

/* The table being read: the text, then per data line its two node fields and its line. */
typedef struct table {
    gat_i_text t;  /* t.csv: a CSV file (by format, not only by name) */
    char **a, **b; /* (cap) node fields of data line k, inside t */
    long *line;    /* (cap) its line number */
    size_t m, cap;
    char **head; /* (n_head) the first data line's fields, kept until the header is decided */
    size_t n_head;
    long head_line;
    const char *head_start; /* where that line starts, for column numbers */
    int header;             /* the first line names the columns */
    gat_idx D;              /* edge feature columns read per line; -1 until the first data line */
    gat_idx *column;        /* (D) the field each edge feature comes from */
} table;

static void table_free(table *T)
{
    gat_i_text_free(&T->t);
    gat_free(T->a);
    gat_free(T->b);
    gat_free(T->line);
    gat_free(T->head);
    gat_free(T->column);
}

/* s as a vertex number: digits only, below INT32_MAX; -1 otherwise. */
static int64_t vertex_number(const char *s)
{
    return gat_i_gf_parse_count(s, INT32_MAX);
}

static int numeric_pair(char *const *f)
{
    return vertex_number(f[0]) >= 0 && vertex_number(f[1]) >= 0;
}

/* The columns of the edge features: with edge attributes named (c->eattr), the header's columns
 * of those names; else every field after the two nodes. n_fields: the first data line's. */
static gat_status pick_columns(const read_ctx *c, table *T, char *const *head, size_t n_fields,
                               const char *path)
{
    const gat_idx D = c->n_eattr > 0 ? c->n_eattr : (gat_idx)(n_fields - 2);
    if (n_fields - 2 > (size_t)INT32_MAX / 2)
        return gat_i_error(GAT_EFORMAT, "%s:%ld: %zu fields", path, T->head_line, n_fields);
    if (D > 0 && !(T->column = gat_malloc((size_t)D, sizeof *T->column))) return GAT_ENOMEM;
    for (gat_idx k = 0; k < D; k++) {
        if (c->n_eattr == 0) {
            T->column[k] = k + 2;
            continue;
        }
        if (!T->header)
            return gat_i_error(GAT_EINVAL,
                               "%s: edge attribute '%s' named, but the file has no header line "
                               "naming its columns",
                               path, c->eattr[k]);
        T->column[k] = -1;
        for (size_t f = 2; f < T->n_head; f++)
            if (!strcmp(head[f], c->eattr[k])) T->column[k] = (gat_idx)f;
        if (T->column[k] < 0)
            return gat_i_error(GAT_EINVAL,
                               "%s:%ld: edge attribute '%s' is not a column of the header (its "
                               "edge columns are the fields after the two nodes)",
                               path, T->head_line, c->eattr[k]);
    }
    T->D = D;
    return GAT_OK;
}

/* Stores the data line of fields f (n of them, line `line`): its node fields, and its edge
 * features in row T->m of c->crow. Every line has as many fields as the first data line. */
static gat_status data_line(read_ctx *c, table *T, char *const *f, size_t n, long line,
                            const char *start, size_t n_first, const char *path)
{
    if (n != n_first)
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld: %zu fields, expected %zu as on the first line (two nodes and "
                           "the same %zu edge feature column%s on every line)",
                           path, line, n, n_first, n_first - 2, n_first == 3 ? "" : "s");
    for (gat_idx k = 0; k < T->D; k++) {
        const char *s = f[T->column[k]];
        char *end;
        const double v = strtod(s, &end);
        const long col = (long)(s - start) + 1;
        if (end == s || *end != '\0')
            return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: edge feature %d is not a number: '%s'",
                               path, line, col, k + 1, s);
        if (!isfinite(v) || fabs(v) > REAL_MAX)
            return gat_i_error(GAT_ENUMERIC, "%s:%ld:%ld: edge feature %d is %s: '%s'", path, line,
                               col, k + 1, isfinite(v) ? "out of range for gat_real" : "not finite",
                               s);
        c->crow[T->m * (size_t)T->D + (size_t)k] = (gat_real)v;
    }
    T->a[T->m] = f[0];
    T->b[T->m] = f[1];
    T->line[T->m++] = line;
    return GAT_OK;
}

/* Decides whether the first data line (T->head) is a header, from it and the second data line
 * (second; NULL if there is none), then sets up the columns and stores it unless it is one. */
static gat_status first_line(read_ctx *c, table *T, char *const *second, size_t n_second,
                             const char *path)
{
    gat_status st;
    /* CSV files name their columns (pandas, Gephi, DGL write a header) unless the first line
     * holds vertex numbers; other tables only when column names stand above vertex numbers */
    T->header = !numeric_pair(T->head) && (T->t.csv || (second && numeric_pair(second)));
    if (T->header && !second) return GAT_OK; /* a header alone: no edges */
    if (T->header && n_second != T->n_head)
        return gat_i_error(GAT_EFORMAT, "%s:%ld: %zu fields, expected %zu as in the header line",
                           path, T->t.line, n_second, T->n_head);
    const size_t n_first = T->header ? n_second : T->n_head;
    if ((st = pick_columns(c, T, T->head, n_first, path)) != GAT_OK) return st;
    if (T->D > 0 && !(c->crow = gat_malloc(T->cap, (size_t)T->D * sizeof *c->crow)))
        return GAT_ENOMEM;
    c->n_cols = T->D;
    if (!T->header)
        return data_line(c, T, T->head, T->n_head, T->head_line, T->head_start, T->n_head, path);
    return GAT_OK;
}

/* Reads every line of the table into T (node fields, lines) and c->crow. */
static gat_status read_lines(read_ctx *c, table *T, const char *path)
{
    gat_i_text *t = &T->t;
    size_t n_first = 0;
    gat_status st;
    for (;;) {
        if ((st = gat_i_text_row(t)) != GAT_OK) return st;
        if (t->n_fields == 0) break;
        if (t->field[0][0] == '#' || t->field[0][0] == '%') continue; /* SNAP, KONECT */
        if (t->n_fields < 2)
            return gat_i_error(GAT_EFORMAT, "%s:%ld: 1 field, expected two node ids", path,
                               t->line);
        if (!T->head) { /* the first data line: kept until the second decides the header */
            if (!(T->head = gat_malloc(t->n_fields, sizeof *T->head))) return GAT_ENOMEM;
            memcpy(T->head, t->field, t->n_fields * sizeof *T->head);
            T->n_head = t->n_fields;
            T->head_line = t->line;
            T->head_start = t->start;
            continue;
        }
        if (T->D < 0) {
            if ((st = first_line(c, T, t->field, t->n_fields, path)) != GAT_OK) return st;
            n_first = T->header ? t->n_fields : T->n_head;
        }
        if ((st = data_line(c, T, t->field, t->n_fields, t->line, t->start, n_first, path)) !=
            GAT_OK)
            return st;
    }
    if (T->head && T->D < 0) return first_line(c, T, NULL, 0, path);
    return GAT_OK;
}

/* c->ids "0" .. "n-1". */
static gat_status number_ids(read_ctx *c)
{
    if (!(c->ids = gat_calloc((size_t)c->n, sizeof *c->ids))) return GAT_ENOMEM;
    for (int64_t v = 0; v < c->n; v++) {
        char num[24];
        snprintf(num, sizeof num, "%lld", (long long)v);
        if (!(c->ids[v] = gat_strdup(num))) return GAT_ENOMEM;
    }
    return GAT_OK;
}

/* Vertices from numbers: vertex k is number k, n = 1 + the largest (at least c->min_n). */
static gat_status by_number(read_ctx *c, const table *T, const features *F, const char *path)
{
    int64_t n = c->min_n;
    for (size_t e = 0; e < T->m; e++) {
        c->src[e] = vertex_number(T->a[e]);
        c->dst[e] = vertex_number(T->b[e]);
        if (c->src[e] >= n) n = c->src[e] + 1;
        if (c->dst[e] >= n) n = c->dst[e] + 1;
    }
    gat_status st = gat_i_gf_check_vertices(F, path, n, T->t.len, 1);
    if (st != GAT_OK) return st;
    c->n = n;
    return number_ids(c);
}

/* Vertices from names: numbered by first appearance (a, then b, line by line), as igraph's ncol
 * reader does; the caller may renumber them into the features file's order. */
static gat_status by_name(read_ctx *c, const table *T)
{
    gat_i_strmap map = {0};
    gat_status st = gat_i_strmap_init(&map, 2 * T->m);
    if (st != GAT_OK) return st;
    if (!(c->ids = gat_calloc(2 * T->m + 1, sizeof *c->ids))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    c->n = 0;
    for (size_t e = 0; e < 2 * T->m; e++) {
        const char *name = e % 2 ? T->b[e / 2] : T->a[e / 2];
        gat_idx *slot = gat_i_strmap_slot(&map, c->ids, name);
        if (*slot < 0) {
            if (!(c->ids[c->n] = gat_strdup(name))) {
                st = GAT_ENOMEM;
                goto cleanup;
            }
            *slot = (gat_idx)c->n++;
        }
        (e % 2 ? c->dst : c->src)[e / 2] = *slot;
    }
cleanup:
    gat_i_strmap_free(&map);
    return st;
}

gat_status gat_i_gf_read_edges(read_ctx *c, const features *F, const char *path)
{
    table T = {.D = -1};
    int errnum = 0;
    gat_status st = gat_i_text_load(&T.t, path, c->max_line, &errnum);
    if (st != GAT_OK) return st;
    T.t.csv = c->fmt == GAT_GRAPH_FORMAT_CSV;
    T.cap = gat_i_text_count_lines(&T.t) + 1;
    if (!(T.a = gat_malloc(T.cap, sizeof *T.a)) || !(T.b = gat_malloc(T.cap, sizeof *T.b)) ||
        !(T.line = gat_malloc(T.cap, sizeof *T.line))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = read_lines(c, &T, path)) != GAT_OK) goto cleanup;
    if (c->n_eattr > 0 && T.D < 0) { /* no data line: the attributes name no column */
        st = gat_i_error(GAT_EINVAL, "%s: edge attribute '%s' named, but the file has no lines",
                         path, c->eattr[0]);
        goto cleanup;
    }
    /* names unless every node field is a vertex number (ncol: always names) */
    c->named = c->fmt == GAT_GRAPH_FORMAT_NCOL;
    for (size_t e = 0; e < T.m && !c->named; e++)
        c->named = vertex_number(T.a[e]) < 0 || vertex_number(T.b[e]) < 0;
    c->m = T.m;
    c->n_lines = T.m;
    c->is_directed = c->directed;
    if (!(c->src = gat_malloc(T.m, sizeof *c->src)) ||
        !(c->dst = gat_malloc(T.m, sizeof *c->dst))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    st = c->named ? by_name(c, &T) : by_number(c, &T, F, path);
    if (st == GAT_OK && c->n >= INT32_MAX)
        st = gat_i_error(GAT_EINVAL, "%s: %lld vertices exceed libgat's 32-bit node indices", path,
                         (long long)c->n);
cleanup:
    table_free(&T);
    return st;
}
