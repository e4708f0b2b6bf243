/* The node tables of gat_dataset_read (gat/graphfile.h): the features file (dense or sparse
 * rows keyed by node id), the labels file (classes in numeric or byte order) and the features
 * put in node order. */
#include "io/graphfile_i.h"
#include "core/core.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef GAT_REAL_DOUBLE
#define REAL_MAX DBL_MAX
#else
#define REAL_MAX FLT_MAX
#endif

/* ---- Numbers ----------------------------------------------------------------------------- */

/* Field k of t's current line, s (the whole field or the value after "col:"), as a value. */
static gat_status parse_value(const gat_i_text *t, size_t k, const char *s, gat_real *v)
{
    char *end;
    double d;
    if (s[0] == '0' && s[1] == '\0') { /* bag-of-words files are mostly these two tokens */
        *v = 0;
        return GAT_OK;
    }
    if (s[0] == '1' && s[1] == '\0') {
        *v = 1;
        return GAT_OK;
    }
    d = strtod(s, &end);
    if (end == s || *end != '\0' || s[0] == ' ')
        return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: field %zu of node '%s' is not a number: '%s'",
                           t->path, t->line, gat_i_text_column(t, k), k + 1, t->field[0], s);
    if (!isfinite(d) || fabs(d) > REAL_MAX)
        return gat_i_error(GAT_ENUMERIC, "%s:%ld:%ld: field %zu of node '%s' is %s: '%s'", t->path,
                           t->line, gat_i_text_column(t, k), k + 1, t->field[0],
                           isfinite(d) ? "out of range for gat_real" : "not finite", s);
    *v = (gat_real)d;
    return GAT_OK;
}

/* s as a non-negative decimal integer below limit (digits only), or -1. */
int64_t gat_i_gf_parse_count(const char *s, int64_t limit)
{
    int64_t v = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (*s - '0');
        if (v >= limit) return -1;
    }
    return v;
}

/* Whether every field after the first of t's current line is a number or a sparse "col:value"
 * (else a CSV features file's first line is its header: "id,f0,f1"). */
static int values_numeric(const gat_i_text *t)
{
    for (size_t k = 1; k < t->n_fields; k++) {
        const char *s = strchr(t->field[k], ':');
        char *end;
        s = s ? s + 1 : t->field[k];
        strtod(s, &end);
        if (end == s || *end != '\0') return 0;
    }
    return 1;
}

/* Whether the current line is a comment. */
static int comment(const gat_i_text *t)
{
    return t->field[0][0] == '#';
}

/* ---- Features file ----------------------------------------------------------------------- */

void gat_i_gf_features_free(features *F)
{
    gat_i_text_free(&F->t);
    gat_free(F->ids);
    gat_free(F->line);
    gat_csr_destroy(&F->x);
    gat_i_strmap_free(&F->map);
    memset(F, 0, sizeof *F);
}

/* Room for `more` values after nnz in F->x. */
static gat_status features_reserve(features *F, size_t *cap, size_t nnz, size_t more)
{
    if (nnz + more > (size_t)INT32_MAX)
        return gat_i_error(GAT_EFORMAT, "%s:%ld: more than %d non-zero features", F->t.path,
                           F->t.line, INT32_MAX);
    if (nnz + more <= *cap && F->x.col) return GAT_OK;
    size_t c = gat_i_next_cap(*cap, nnz + more);
    gat_idx *col = gat_realloc(F->x.col, c, sizeof *col);
    if (!col) return GAT_ENOMEM;
    F->x.col = col;
    gat_real *val = gat_realloc(F->x.val, c, sizeof *val);
    if (!val) return GAT_ENOMEM;
    F->x.val = val;
    *cap = c;
    return GAT_OK;
}

/* Appends the current line's values as row F->x.rows (not yet counted). *max_col tracks the
 * largest sparse column. */
static gat_status features_row(features *F, int sparse, size_t *cap, int64_t *max_col)
{
    const gat_i_text *t = &F->t;
    size_t nnz = (size_t)F->x.rowptr[F->x.rows];
    gat_status st;
    if (!sparse && t->n_fields != (size_t)F->x.cols + 1)
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld: expected %zu fields (node id and %d feature "
                           "values, as on the first line), found %zu",
                           t->path, t->line, (size_t)F->x.cols + 1, F->x.cols, t->n_fields);
    if ((st = features_reserve(F, cap, nnz, t->n_fields - 1)) != GAT_OK) return st;
    for (size_t k = 1; k < t->n_fields; k++) {
        const char *s = t->field[k];
        int64_t col = (int64_t)k - 1;
        gat_real v = 0;
        if (sparse) {
            char *colon = strchr(t->field[k], ':');
            if (!colon)
                return gat_i_error(GAT_EFORMAT,
                                   "%s:%ld:%ld: expected <column>:<value> in a "
                                   "sparse features file, found '%s'",
                                   t->path, t->line, gat_i_text_column(t, k), s);
            *colon = '\0';
            col = gat_i_gf_parse_count(s, INT32_MAX);
            if (col < 0)
                return gat_i_error(GAT_EFORMAT,
                                   "%s:%ld:%ld: column '%s' is not a number in "
                                   "[0, %d)",
                                   t->path, t->line, gat_i_text_column(t, k), s, INT32_MAX);
            if (nnz > (size_t)F->x.rowptr[F->x.rows] && col <= F->x.col[nnz - 1])
                return gat_i_error(GAT_EFORMAT,
                                   "%s:%ld:%ld: column %lld after column %d "
                                   "(columns must be strictly ascending)",
                                   t->path, t->line, gat_i_text_column(t, k), (long long)col,
                                   F->x.col[nnz - 1]);
            s = colon + 1;
        }
        if ((st = parse_value(t, k, s, &v)) != GAT_OK) return st;
        if (col > *max_col) *max_col = col;
        if (v == 0) continue;
        F->x.col[nnz] = (gat_idx)col;
        F->x.val[nnz++] = v;
    }
    F->x.rowptr[F->x.rows + 1] = (gat_idx)nnz;
    return GAT_OK;
}

/* Reads the features file at path into F (uninitialised; destroy-safe on failure). */
gat_status gat_i_gf_read_features(features *F, const char *path, size_t max_line)
{
    size_t max_rows, cap = 0;
    int sparse = -1, errnum;
    int64_t max_col = -1;
    gat_status st;

    memset(F, 0, sizeof *F);
    F->max_number = -1;
    if ((st = gat_i_text_load(&F->t, path, max_line, &errnum)) != GAT_OK) return st;
    F->t.csv = gat_i_text_csv_name(path);
    max_rows = gat_i_text_count_lines(&F->t);
    if (max_rows > (size_t)INT32_MAX - 1)
        return gat_i_error(GAT_EFORMAT, "%s: %zu lines exceed the node index type", path, max_rows);
    F->ids = gat_malloc(max_rows, sizeof *F->ids);
    F->line = gat_malloc(max_rows, sizeof *F->line);
    F->x.rowptr = gat_calloc(max_rows + 1, sizeof *F->x.rowptr);
    if (!F->ids || !F->line || !F->x.rowptr || gat_i_strmap_init(&F->map, max_rows) != GAT_OK)
        return GAT_ENOMEM;
    int first = 1;
    while ((st = gat_i_text_row(&F->t)) == GAT_OK && F->t.n_fields > 0) {
        const gat_i_text *t = &F->t;
        if (comment(t)) continue;
        const int header = first && t->csv && !values_numeric(t); /* "id,f0,f1" */
        first = 0;
        if (header) continue;
        gat_idx *slot = gat_i_strmap_slot(&F->map, F->ids, t->field[0]);
        if (*slot >= 0)
            return gat_i_error(GAT_EFORMAT, "%s:%ld: duplicate node id '%s' (first on line %ld)",
                               path, t->line, t->field[0], F->line[*slot]);
        if (sparse < 0) {
            sparse = t->n_fields >= 2 && strchr(t->field[1], ':') != NULL;
            if (!sparse && t->n_fields < 2)
                return gat_i_error(GAT_EFORMAT,
                                   "%s:%ld: expected a node id and feature values, "
                                   "found 1 field",
                                   path, t->line);
            if (!sparse && t->n_fields - 1 > (size_t)INT32_MAX - 1)
                return gat_i_error(GAT_EFORMAT, "%s:%ld: %zu feature values exceed the index type",
                                   path, t->line, t->n_fields - 1);
            if (!sparse) F->x.cols = (gat_idx)(t->n_fields - 1);
        }
        if ((st = features_row(F, sparse, &cap, &max_col)) != GAT_OK) return st;
        const int64_t number = gat_i_gf_parse_count(t->field[0], INT32_MAX);
        if (number > F->max_number) F->max_number = number;
        F->ids[F->x.rows] = t->field[0];
        F->line[F->x.rows] = t->line;
        *slot = F->x.rows++;
    }
    if (st != GAT_OK) return st;
    if (F->x.rows == 0)
        return gat_i_error(GAT_EFORMAT, "%s: no features: expected one line per node", path);
    if (sparse) F->x.cols = (gat_idx)(max_col + 1);
    return GAT_OK;
}

/* ---- Labels and split files -------------------------------------------------------------- */

void gat_i_gf_labels_free(labels *L)
{
    gat_i_idtable_close(&L->r);
    gat_free(L->label);
    gat_free(L->names);
    memset(L, 0, sizeof *L);
}

typedef struct class_key {
    char *name;
    double value; /* numeric value when every label is an integer */
} class_key;

static int cmp_numeric(const void *a, const void *b)
{
    const class_key *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_bytes(const void *a, const void *b)
{
    return strcmp(((const class_key *)a)->name, ((const class_key *)b)->name);
}

/* Whether s is a decimal integer (optional sign); *v gets its value. */
static int integer_label(const char *s, double *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno) return 0;
    *v = (double)x;
    return 1;
}

/* Classes of the label strings text (n; NULL: unlabelled; they must outlive L), numbered in
 * numeric order when every one is an integer, else in byte order, into L (zeroed). */
gat_status gat_i_gf_label_classes(labels *L, char *const *text, gat_idx n)
{
    class_key *keys = gat_malloc((size_t)n, sizeof *keys);
    gat_idx *first = gat_malloc((size_t)n, sizeof *first); /* rank of each first-seen label */
    gat_i_strmap classes = {0};
    gat_idx C = 0;
    int all_integer = 1;
    gat_status st = GAT_OK;

    if (!keys || !first || !(L->label = gat_malloc((size_t)n, sizeof *L->label)) ||
        !(L->names = gat_malloc((size_t)n, sizeof *L->names)) ||
        gat_i_strmap_init(&classes, (size_t)n) != GAT_OK) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (gat_idx v = 0; v < n; v++) {
        if (!text[v]) continue;
        gat_idx *slot = gat_i_strmap_slot(&classes, L->names, text[v]);
        if (*slot < 0) {
            L->names[C] = text[v];
            keys[C].name = text[v];
            all_integer &= integer_label(text[v], &keys[C].value);
            *slot = C++;
        }
    }
    qsort(keys, (size_t)C, sizeof *keys, all_integer ? cmp_numeric : cmp_bytes);
    for (gat_idx k = 0; k < C; k++)
        first[*gat_i_strmap_slot(&classes, L->names, keys[k].name)] = k;
    for (gat_idx v = 0; v < n; v++)
        L->label[v] = text[v] ? first[*gat_i_strmap_slot(&classes, L->names, text[v])] : -1;
    for (gat_idx k = 0; k < C; k++)
        L->names[k] = keys[k].name;
    L->n_classes = C;
cleanup:
    gat_free(keys);
    gat_free(first);
    gat_i_strmap_free(&classes);
    return st;
}

/* Reads the labels file (an id table, io/idtable.h): label strings per node, then classes
 * numbered in order. */
gat_status gat_i_gf_read_labels(labels *L, const char *path, size_t max_line,
                                const gat_i_strmap *nodes, char *const *ids, gat_idx n,
                                const char *known)
{
    char **text_label = gat_calloc((size_t)n, sizeof *text_label); /* into L->r.t */
    gat_idx i;
    char *label;
    int errnum;
    gat_status st;

    memset(L, 0, sizeof *L);
    if (!text_label) return GAT_ENOMEM;
    if ((st = gat_i_idtable_open(&L->r, path, max_line, &errnum, nodes, ids, n, known, "label")) !=
        GAT_OK)
        goto cleanup;
    while ((st = gat_i_idtable_next(&L->r, &i, &label)) == GAT_OK && i >= 0)
        text_label[i] = label;
    if (st != GAT_OK || (st = gat_i_gf_label_classes(L, text_label, n)) != GAT_OK) goto cleanup;
    if (L->n_classes == 0)
        /* a labels file was given: training on it would fail later, naming no file */
        st = gat_i_error(GAT_EFORMAT,
                         "%s: no labels (the file is empty or holds only comments): expected "
                         "'<node id> <label>' lines",
                         path);
cleanup:
    gat_free(text_label);
    return st;
}

/* x (uninitialised) = F's rows in node order; every node needs exactly one row. */
gat_status gat_i_gf_features_by_node(gat_csr *x, const features *F, const gat_i_strmap *nodes,
                                     char *const *ids, gat_idx n, const char *graph_path)
{
    gat_idx *row_of = gat_malloc((size_t)n, sizeof *row_of);
    gat_status st = GAT_OK;
    memset(x, 0, sizeof *x);
    if (!row_of) return GAT_ENOMEM;
    for (gat_idx i = 0; i < n; i++)
        row_of[i] = -1;
    for (gat_idx r = 0; r < F->x.rows; r++) {
        const gat_idx i = *gat_i_strmap_slot(nodes, ids, F->ids[r]);
        if (i < 0) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: unknown node id '%s' (not a vertex of %s)",
                             F->t.path, F->line[r], F->ids[r], graph_path);
            goto cleanup;
        }
        row_of[i] = r; /* ids are distinct in both, so no node is met twice */
    }
    for (gat_idx i = 0; i < n; i++)
        if (row_of[i] < 0) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: no line for node '%s' (every vertex of %s needs "
                             "its features)",
                             F->t.path, ids[i], graph_path);
            goto cleanup;
        }
    if ((st = gat_csr_init(x, n, F->x.cols, (size_t)F->x.rowptr[F->x.rows])) != GAT_OK)
        goto cleanup;
    for (gat_idx i = 0; i < n; i++) {
        const gat_idx r = row_of[i], len = F->x.rowptr[r + 1] - F->x.rowptr[r];
        memcpy(x->col + x->rowptr[i], F->x.col + F->x.rowptr[r], (size_t)len * sizeof *x->col);
        memcpy(x->val + x->rowptr[i], F->x.val + F->x.rowptr[r], (size_t)len * sizeof *x->val);
        x->rowptr[i + 1] = x->rowptr[i] + len;
    }
cleanup:
    gat_free(row_of);
    return st;
}
