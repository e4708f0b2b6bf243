/* Datasets from a graph file read by igraph (edgelist, ncol, lgl, graphml, gml, pajek, dimacs)
 * and text files of features (dense or sparse), labels and split, matched by node id
 * (gat/graphfile.h). The graph is read, converted and released inside one igraph body. */
#include "gat/graphfile.h"
#include "core/core.h"
#include "io/dataset_i.h"
#include "io/fileio.h"
#include "io/idtable.h"
#include "io/igraph_i.h"
#include "io/text.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef GAT_REAL_DOUBLE
#define REAL_MAX DBL_MAX
#else
#define REAL_MAX FLT_MAX
#endif

/* ---- Formats ----------------------------------------------------------------------------- */

static const char *const format_names[] = {"auto",    "edgelist", "ncol",  "lgl",
                                           "graphml", "gml",      "pajek", "dimacs"};
#define N_FORMATS ((int)(sizeof format_names / sizeof *format_names))

const char *gat_graph_format_name(gat_graph_format fmt)
{
    return (int)fmt >= 0 && (int)fmt < N_FORMATS ? format_names[fmt] : NULL;
}

gat_status gat_graph_format_from_name(const char *name, gat_graph_format *fmt)
{
    static const int values[N_FORMATS] = {0, 1, 2, 3, 4, 5, 6, 7};
    int v;
    gat_status st;
    gat_i_clear_error();
    if (!name || !fmt)
        return gat_i_error(GAT_EINVAL, "gat_graph_format_from_name: NULL %s",
                           !name ? "name" : "fmt");
    if ((st = gat_i_name_lookup("graph format", name, format_names, values, N_FORMATS, &v)) ==
        GAT_OK)
        *fmt = (gat_graph_format)v;
    return st;
}

gat_status gat_graph_format_from_path(const char *path, gat_graph_format *fmt)
{
    static const struct {
        const char *ext;
        gat_graph_format fmt;
    } ext[] = {{"edgelist", GAT_GRAPH_FORMAT_EDGELIST}, {"edges", GAT_GRAPH_FORMAT_EDGELIST},
               {"el", GAT_GRAPH_FORMAT_EDGELIST},       {"txt", GAT_GRAPH_FORMAT_EDGELIST},
               {"ncol", GAT_GRAPH_FORMAT_NCOL},         {"lgl", GAT_GRAPH_FORMAT_LGL},
               {"graphml", GAT_GRAPH_FORMAT_GRAPHML},   {"xml", GAT_GRAPH_FORMAT_GRAPHML},
               {"gml", GAT_GRAPH_FORMAT_GML},           {"net", GAT_GRAPH_FORMAT_PAJEK},
               {"paj", GAT_GRAPH_FORMAT_PAJEK},         {"pajek", GAT_GRAPH_FORMAT_PAJEK},
               {"dimacs", GAT_GRAPH_FORMAT_DIMACS},     {"max", GAT_GRAPH_FORMAT_DIMACS},
               {"col", GAT_GRAPH_FORMAT_DIMACS}};
    gat_i_clear_error();
    if (!path || !fmt) return gat_i_error(GAT_EINVAL, "gat_graph_format_from_path: NULL argument");
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash))
        for (size_t k = 0; k < sizeof ext / sizeof *ext; k++)
            if (strcasecmp(dot + 1, ext[k].ext) == 0) {
                *fmt = ext[k].fmt;
                return GAT_OK;
            }
    return gat_i_error(GAT_EINVAL,
                       "cannot tell the graph format of %s from its extension; name "
                       "it (edgelist, ncol, lgl, graphml, gml, pajek or dimacs)",
                       path);
}

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
static int64_t parse_count(const char *s, int64_t limit)
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

/* Whether the current line is a comment. */
static int comment(const gat_i_text *t)
{
    return t->field[0][0] == '#';
}

/* ---- Features file ----------------------------------------------------------------------- */

typedef struct features {
    gat_i_text t;       /* the file; ids point into its buffer */
    char **ids;         /* (rows) node id of each row */
    long *line;         /* (rows) line of each row */
    gat_csr x;          /* (rows, F) in file order */
    gat_i_strmap map;   /* id -> row */
    int64_t max_number; /* largest id that reads as a vertex number, -1 if none */
} features;

static void features_free(features *F)
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
            col = parse_count(s, INT32_MAX);
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
static gat_status read_features(features *F, const char *path)
{
    size_t max_rows, cap = 0;
    int sparse = -1, errnum;
    int64_t max_col = -1;
    gat_status st;

    memset(F, 0, sizeof *F);
    F->max_number = -1;
    if ((st = gat_i_text_load(&F->t, path, &errnum)) != GAT_OK) return st;
    max_rows = gat_i_text_count_lines(&F->t);
    if (max_rows > (size_t)INT32_MAX - 1)
        return gat_i_error(GAT_EFORMAT, "%s: %zu lines exceed the node index type", path, max_rows);
    F->ids = gat_malloc(max_rows, sizeof *F->ids);
    F->line = gat_malloc(max_rows, sizeof *F->line);
    F->x.rowptr = gat_calloc(max_rows + 1, sizeof *F->x.rowptr);
    if (!F->ids || !F->line || !F->x.rowptr || gat_i_strmap_init(&F->map, max_rows) != GAT_OK)
        return GAT_ENOMEM;
    while ((st = gat_i_text_next(&F->t)) == GAT_OK && F->t.n_fields > 0) {
        const gat_i_text *t = &F->t;
        if (comment(t)) continue;
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
        const int64_t number = parse_count(t->field[0], INT32_MAX);
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

/* ---- Graph file via igraph --------------------------------------------------------------- */

typedef struct read_ctx {
    FILE *f;
    gat_graph_format fmt;
    int directed;  /* read edgelist, ncol, lgl and dimacs as directed */
    int64_t min_n; /* edgelist: at least this many vertices */
    /* results, gat-allocated */
    int64_t n;
    size_t m;
    int is_directed;
    int64_t *src, *dst; /* (m) */
    char **ids;         /* (n) vertex ids */
    /* edge attributes to read (inputs), and what they gave */
    const char *const *eattr;
    gat_idx n_eattr;
    int *etype;   /* (n_eattr) */
    double *erow; /* (m, n_eattr) */
    /* edgelist and ncol: numeric columns after the two node fields (split_columns) */
    gat_idx n_cols; /* D, 0 if the lines have two fields */
    gat_real *crow; /* (lines, D) */
    size_t n_lines; /* edge lines read */
    char *stripped; /* the file with the two node fields of each line, which igraph reads */
    size_t stripped_len;
} read_ctx;

static void read_ctx_free(read_ctx *c)
{
    gat_free(c->src);
    gat_free(c->dst);
    for (int64_t v = 0; c->ids && v < c->n; v++)
        gat_free(c->ids[v]);
    gat_free(c->ids);
    gat_free(c->etype);
    gat_free(c->erow);
    gat_free(c->crow);
    gat_free(c->stripped);
    c->src = c->dst = NULL;
    c->ids = NULL;
    c->etype = NULL;
    c->erow = NULL;
    c->crow = NULL;
    c->stripped = NULL;
}

/* Edge-list and ncol files may carry edge features, "a b w1 ... wD", with the same D on every
 * line (the .cites rule): when the first line has more than two fields, every line's columns 3..
 * go to c->crow and the two node fields to c->stripped, which igraph reads instead of the file
 * (its readers take two fields, and ncol a weight, per line). A first line of two fields leaves
 * the file to igraph as it is. Faults name path, line and column. */
static gat_status split_columns(read_ctx *c, const char *path)
{
    gat_i_text t = {0};
    int errnum = 0;
    size_t cap = 0, at = 0;
    gat_status st = gat_i_text_load(&t, path, &errnum);
    if (st != GAT_OK) return st;
    const size_t lines = gat_i_text_count_lines(&t); /* before fields are cut in place */
    if ((st = gat_i_text_next(&t)) != GAT_OK || t.n_fields <= 2) goto cleanup;
    const size_t D = t.n_fields - 2;
    if (D > INT32_MAX / 2) {
        st = gat_i_error(GAT_EFORMAT, "%s:%ld: %zu fields", path, t.line, t.n_fields);
        goto cleanup;
    }
    if (!(c->crow = gat_malloc(lines, D * sizeof *c->crow)) ||
        !(c->stripped = gat_malloc(t.len + 1, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    cap = t.len + 1;
    for (; t.n_fields > 0; st = gat_i_text_next(&t)) {
        if (st != GAT_OK) goto cleanup;
        if (t.n_fields != D + 2) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: %zu fields, expected %zu as on the first line "
                             "(two nodes and the same %zu edge feature column%s on every line)",
                             path, t.line, t.n_fields, D + 2, D, D == 1 ? "" : "s");
            goto cleanup;
        }
        for (size_t k = 0; k < D; k++) {
            const char *f = t.field[k + 2];
            char *end;
            const double v = strtod(f, &end);
            if (end == f || *end != '\0') {
                st = gat_i_error(GAT_EFORMAT,
                                 "%s:%ld:%ld: edge feature %zu is not a number: "
                                 "'%s'",
                                 path, t.line, gat_i_text_column(&t, k + 2), k + 1, f);
                goto cleanup;
            }
            if (!isfinite(v) || fabs(v) > REAL_MAX) {
                st = gat_i_error(GAT_ENUMERIC, "%s:%ld:%ld: edge feature %zu is %s: '%s'", path,
                                 t.line, gat_i_text_column(&t, k + 2), k + 1,
                                 isfinite(v) ? "out of range for gat_real" : "not finite", f);
                goto cleanup;
            }
            c->crow[c->n_lines * D + k] = (gat_real)v;
        }
        /* the two node fields are shorter than the line they came from: the copy fits */
        const int w = snprintf(c->stripped + at, cap - at, "%s %s\n", t.field[0], t.field[1]);
        at += (size_t)w;
        c->n_lines++;
    }
    c->n_cols = (gat_idx)D;
    c->stripped_len = at;
cleanup:
    gat_i_text_free(&t);
    if (st != GAT_OK || !c->n_cols) {
        gat_free(c->crow);
        gat_free(c->stripped);
        c->crow = NULL;
        c->stripped = NULL;
        c->n_cols = 0;
        c->n_lines = 0;
    }
    return st;
}

static igraph_error_t read_format(read_ctx *c, igraph_t *g)
{
    igraph_error_t rc;
    switch (c->fmt) {
    case GAT_GRAPH_FORMAT_EDGELIST:
        return igraph_read_graph_edgelist(g, c->f, (igraph_integer_t)c->min_n, c->directed);
    case GAT_GRAPH_FORMAT_NCOL:
        /* no predefined names: igraph 0.10.2 fails on one that no edge mentions; map_ids adds
         * such vertices instead */
        return igraph_read_graph_ncol(g, c->f, NULL, 1, IGRAPH_ADD_WEIGHTS_NO, c->directed);
    case GAT_GRAPH_FORMAT_LGL:
        return igraph_read_graph_lgl(g, c->f, 1, IGRAPH_ADD_WEIGHTS_NO, c->directed);
    case GAT_GRAPH_FORMAT_GRAPHML:
        return igraph_read_graph_graphml(g, c->f, 0);
    case GAT_GRAPH_FORMAT_GML:
        return igraph_read_graph_gml(g, c->f);
    case GAT_GRAPH_FORMAT_PAJEK:
        return igraph_read_graph_pajek(g, c->f);
    case GAT_GRAPH_FORMAT_DIMACS: {
        igraph_strvector_t problem;
        igraph_vector_int_t label;
        igraph_vector_t capacity;
        igraph_integer_t source, target;
        if ((rc = igraph_strvector_init(&problem, 0)) != IGRAPH_SUCCESS) return rc;
        if ((rc = igraph_vector_int_init(&label, 0)) == IGRAPH_SUCCESS) {
            if ((rc = igraph_vector_init(&capacity, 0)) == IGRAPH_SUCCESS) {
                rc = igraph_read_graph_dimacs_flow(g, c->f, &problem, &label, &source, &target,
                                                   &capacity, c->directed);
                igraph_vector_destroy(&capacity);
            }
            igraph_vector_int_destroy(&label);
        }
        igraph_strvector_destroy(&problem);
        return rc;
    }
    case GAT_GRAPH_FORMAT_AUTO:
        break;
    }
    return IGRAPH_UNIMPLEMENTED; /* not reached: the format is resolved and checked first */
}

/* c->ids from the "name" or "id" attribute, or the vertex numbers (1-based where the file
 * counts so). */
static igraph_error_t extract_ids(read_ctx *c, const igraph_t *g)
{
    static const char *const names[2] = {"name", "id"};
    const char *attr = NULL;
    int types[2], type = -1;
    igraph_error_t rc = gat_i_igraph_vertex_attr_types(g, names, 2, types);
    if (rc != IGRAPH_SUCCESS) return rc;
    for (int k = 1; k >= 0; k--) /* "name" wins over "id" */
        if (types[k] == IGRAPH_ATTRIBUTE_STRING || types[k] == IGRAPH_ATTRIBUTE_NUMERIC) {
            attr = names[k];
            type = types[k];
        }
    const int64_t base =
        c->fmt == GAT_GRAPH_FORMAT_PAJEK || c->fmt == GAT_GRAPH_FORMAT_DIMACS ? 1 : 0;
    if (!(c->ids = gat_calloc((size_t)c->n, sizeof *c->ids))) return IGRAPH_ENOMEM;
    for (int64_t v = 0; v < c->n; v++) {
        char num[40];
        const char *s = num;
        if (attr && type == IGRAPH_ATTRIBUTE_STRING) {
            s = igraph_cattribute_VAS(g, attr, (igraph_integer_t)v);
        } else if (attr) {
            const double d = (double)igraph_cattribute_VAN(g, attr, (igraph_integer_t)v);
            snprintf(num, sizeof num, d == floor(d) && fabs(d) < 1e15 ? "%.0f" : "%.17g", d);
        } else {
            snprintf(num, sizeof num, "%lld", (long long)(v + base));
        }
        if (!(c->ids[v] = gat_strdup(s ? s : ""))) return IGRAPH_ENOMEM;
    }
    return IGRAPH_SUCCESS;
}

static igraph_error_t extract(read_ctx *c, const igraph_t *g)
{
    igraph_vector_int_t el;
    igraph_error_t rc;
    c->n = (int64_t)igraph_vcount(g);
    c->m = (size_t)igraph_ecount(g);
    c->is_directed = igraph_is_directed(g) ? 1 : 0;
    if (c->n >= INT32_MAX) return IGRAPH_EOVERFLOW;
    if (!(c->src = gat_malloc(c->m, sizeof *c->src)) ||
        !(c->dst = gat_malloc(c->m, sizeof *c->dst)))
        return IGRAPH_ENOMEM;
    if ((rc = igraph_vector_int_init(&el, 0)) != IGRAPH_SUCCESS) return rc;
    if ((rc = igraph_get_edgelist(g, &el, 0)) == IGRAPH_SUCCESS)
        for (size_t e = 0; e < c->m; e++) {
            c->src[e] = (int64_t)VECTOR(el)[2 * e];
            c->dst[e] = (int64_t)VECTOR(el)[2 * e + 1];
        }
    igraph_vector_int_destroy(&el);
    return rc == IGRAPH_SUCCESS ? extract_ids(c, g) : rc;
}

/* The body: igraph's C attribute handler is swapped in for the read (the readers keep vertex
 * names only through an attribute handler) and the graph released before it is swapped back. */
static igraph_error_t read_graph_body(void *p)
{
    read_ctx *c = p;
    igraph_attribute_table_t *prev = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_t g;
    igraph_error_t rc = read_format(c, &g);
    if (rc == IGRAPH_SUCCESS) {
        rc = extract(c, &g);
        if (rc == IGRAPH_SUCCESS && c->n_eattr > 0) {
            if (!(c->etype = gat_malloc((size_t)c->n_eattr, sizeof *c->etype)) ||
                !(c->erow = gat_malloc(c->m * (size_t)c->n_eattr, sizeof *c->erow)))
                rc = IGRAPH_ENOMEM;
            else
                rc = gat_i_igraph_edge_attrs(&g, c->eattr, c->n_eattr, c->etype, c->erow);
        }
        igraph_destroy(&g);
    }
    igraph_set_attribute_table(prev);
    return rc;
}

/* Reads the graph file into c (inputs set, split_columns done; results owned by c). */
static gat_status read_graph(read_ctx *c, const char *path)
{
    char what[600];
    gat_status st;
    errno = 0;
    if (c->stripped ? !(c->f = fmemopen(c->stripped, c->stripped_len ? c->stripped_len : 1, "r"))
                    : !(c->f = fopen(path, "rb")))
        return gat_i_error(GAT_EIO, "cannot open %s: %s", path, strerror(errno ? errno : ENOENT));
    snprintf(what, sizeof what, "%s: igraph cannot read it as %s", path,
             gat_graph_format_name(c->fmt));
    st = gat_i_igraph_call(read_graph_body, c, GAT_EFORMAT, what);
    if (st == GAT_OK && ferror(c->f))
        st = gat_i_error(GAT_EIO, "error reading %s: %s", path, strerror(errno ? errno : EIO));
    fclose(c->f);
    c->f = NULL;
    if (st == GAT_OK && c->n >= INT32_MAX)
        st = gat_i_error(GAT_EINVAL, "%s: %lld vertices exceed libgat's 32-bit node indices", path,
                         (long long)c->n);
    if (st == GAT_OK && c->n_cols > 0 && c->m != c->n_lines)
        st = gat_i_error(GAT_EFORMAT, "%s: igraph read %zu edges from %zu lines", path, c->m,
                         c->n_lines);
    return st;
}

/* The largest vertex number field s can stand for: the largest run of digits in it, or its value
 * if it reads whole as a number (igraph's Pajek and DIMACS parsers take "1e9"); saturates at
 * INT64_MAX / 10. Over-estimates are harmless: they only trip the features-file bound below. */
static int64_t id_value(const char *s)
{
    int64_t best = -1;
    char *end;
    const double d = strtod(s, &end);
    if (end != s && !*end && d >= 0)
        best = d < (double)(INT64_MAX / 10) ? (int64_t)d : INT64_MAX / 10;
    for (const char *p = s; *p;) {
        if (*p < '0' || *p > '9') {
            p++;
            continue;
        }
        int64_t x = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            x = x < INT64_MAX / 100 ? x * 10 + (*p - '0') : INT64_MAX / 10;
        if (x > best) best = x;
    }
    return best;
}

/* scanf's %ld on b[*at..len) as glibc does it: white space skipped (across line ends), an
 * optional sign, digits; the value saturates at INT64_MAX / 10. On failure the white space and
 * the sign stay consumed. Returns 0 (nothing converted: scanf would fail) or 1. */
static int scan_long(const char *b, size_t len, size_t *at, int64_t *v)
{
    size_t p = *at;
    int neg = 0;
    while (p < len && isspace((unsigned char)b[p]))
        p++;
    if (p < len && (b[p] == '+' || b[p] == '-')) neg = b[p++] == '-';
    *at = p;
    if (p >= len || b[p] < '0' || b[p] > '9') return 0;
    int64_t x = 0;
    for (; p < len && b[p] >= '0' && b[p] <= '9'; p++)
        x = x < INT64_MAX / 100 ? x * 10 + (b[p] - '0') : INT64_MAX / 10;
    *v = neg ? -x : x;
    *at = p;
    return 1;
}

/* scanf's %Ns (max == N) or %lf, as far as where it stops matters: white space skipped (across
 * line ends), then up to max characters of the next word (a number's conversion stops inside
 * the word at the latest; igraph then skips to the line end, which is the same line end).
 * Returns 0 at the end of the input. */
static int scan_word(const char *b, size_t len, size_t *at, size_t max, const char **word,
                     size_t *n)
{
    size_t p = *at;
    while (p < len && isspace((unsigned char)b[p]))
        p++;
    *word = b + p;
    for (*n = 0; *n < max && p < len && !isspace((unsigned char)b[p]); p++)
        ++*n;
    *at = p;
    return *n > 0;
}

/* What igraph 0.10's DIMACS reader (igraph_read_graph_dimacs_flow) takes from a file, found by
 * repeating its scanf calls on the bytes: per line, two characters ("%2c"), then by the first:
 * "p" the problem ("%20s %ld %ld": name, vertex count N, edge count M), "n" a node ("%ld %1s"
 * in max problems, "%ld %ld" else), "a" an arc ("%ld %ld %lf"), "e" an edge ("%ld %ld"), "c"
 * nothing; then the rest of the line is skipped. Conversions skip white space across line ends,
 * so a field may sit on the next line, and then igraph skips the rest of that line. The scan
 * stops where igraph surely fails (unknown line type, a missing field, a second "p" line) and
 * goes on where it may not, so it never misses what igraph reads. igraph creates max(N, the
 * largest arc or edge endpoint) vertices (numbered from 1) and reserves room for M edges. */
typedef struct dimacs_counts {
    int64_t vertices; /* that vertex count; -1 if the file gives none */
    int64_t edges;    /* M of the "p" line; -1 without one */
    long edges_line;  /* the line of the "p" line */
} dimacs_counts;

static void dimacs_scan(const char *b, size_t len, dimacs_counts *out)
{
    enum { NONE, EDGE, MAX } problem = NONE;
    size_t at = 0;
    out->vertices = out->edges = -1;
    out->edges_line = 0;
    while (at + 2 <= len) {
        const size_t start = at;
        const char kind = b[at];
        const char *w;
        size_t wn;
        int64_t v[2];
        at += 2;
        if (kind == 'p') {
            if (problem != NONE || !scan_word(b, len, &at, 20, &w, &wn) ||
                !scan_long(b, len, &at, &v[0]) || !scan_long(b, len, &at, &v[1]))
                return;
            if (v[0] > out->vertices) out->vertices = v[0];
            out->edges = v[1];
            out->edges_line = 1;
            for (size_t k = 0; k < start; k++)
                out->edges_line += b[k] == '\n';
            problem = wn == 3 && !memcmp(w, "max", 3) ? MAX : EDGE;
        } else if (kind == 'n') {
            if (!scan_long(b, len, &at, &v[0])) return;
            if (problem == MAX) {
                if (!scan_word(b, len, &at, 1, &w, &wn)) return;
            } else {
                scan_long(b, len, &at, &v[1]); /* optional: only the first must convert */
            }
        } else if (kind == 'a' || kind == 'e') {
            if (!scan_long(b, len, &at, &v[0]) || !scan_long(b, len, &at, &v[1])) return;
            if (kind == 'a' && !scan_word(b, len, &at, SIZE_MAX, &w, &wn)) return;
            for (int k = 0; k < 2; k++)
                if (v[k] > out->vertices) out->vertices = v[k];
        } else if (kind != 'c') {
            return;
        }
        while (at < len && b[at++] != '\n')
            continue;
    }
}

/* The shortest text an edge of a DIMACS file takes: an "e" line ("e", a separator, two numbers
 * with white space between them, a line end) has at least 6 bytes, an "a" line more. */
#define DIMACS_MIN_EDGE_BYTES 6

/* Pajek sections, from the "*word" line that opens them. */
enum { PAJEK_OTHER, PAJEK_VERTICES, PAJEK_PAIRS, PAJEK_LISTS };

/* The vertex count that the graph file declares or implies through its vertex numbers (edgelist:
 * every number, from 0; pajek: "*Vertices N", vertex lines and edge/arc endpoints, from 1;
 * dimacs: dimacs_scan), read before igraph allocates that many vertices; -1 for formats that
 * list their vertices (ncol, lgl, graphml, gml), whose count the file's size bounds. For dimacs
 * also *dc, the counts of its header, and *bytes, the file's size. */
static gat_status declared_vertices(const read_ctx *c, const char *path, int64_t *n,
                                    dimacs_counts *dc, size_t *bytes)
{
    gat_i_text t = {0};
    unsigned char *raw;
    int section = PAJEK_OTHER;
    const int base0 = c->fmt == GAT_GRAPH_FORMAT_EDGELIST; /* pajek counts from 1 */
    gat_status st;
    *n = -1;
    if (c->fmt != GAT_GRAPH_FORMAT_EDGELIST && c->fmt != GAT_GRAPH_FORMAT_PAJEK &&
        c->fmt != GAT_GRAPH_FORMAT_DIMACS)
        return GAT_OK;
    /* the bytes as igraph sees them (no gzip inflation; an edge list with feature columns:
     * c->stripped, its node fields), cut into fields by the text reader */
    if ((st = gat_i_read_file(path, &raw, &t.len)) != GAT_OK) return st;
    *bytes = t.len;
    if (c->stripped) {
        gat_free(raw);
        if (!(raw = gat_malloc(c->stripped_len + 1, 1))) return GAT_ENOMEM;
        memcpy(raw, c->stripped, c->stripped_len);
        t.len = c->stripped_len;
    }
    t.path = path;
    t.buf = (char *)raw;
    if (c->fmt == GAT_GRAPH_FORMAT_DIMACS) {
        dimacs_scan(t.buf, t.len, dc);
        *n = dc->vertices;
        gat_i_text_free(&t);
        return GAT_OK;
    }
    /* igraph reads past NUL bytes and splits at any white space: so do we, here */
    for (size_t k = 0; k < t.len; k++)
        if ((unsigned char)t.buf[k] < 0x20 && t.buf[k] != '\n') t.buf[k] = ' ';
    while ((st = gat_i_text_next(&t)) == GAT_OK && t.n_fields > 0) {
        size_t last = 0;    /* fields [0, last) hold vertex numbers */
        int64_t count = -1; /* a declared count */
        const char *f0 = t.field[0];
        if (c->fmt == GAT_GRAPH_FORMAT_EDGELIST) {
            last = t.n_fields; /* igraph reads a stream of numbers, line ends or not */
        } else if (c->fmt == GAT_GRAPH_FORMAT_PAJEK && f0[0] == '*') {
            section = !strcasecmp(f0, "*vertices")                            ? PAJEK_VERTICES
                      : !strcasecmp(f0, "*edges") || !strcasecmp(f0, "*arcs") ? PAJEK_PAIRS
                      : !strcasecmp(f0, "*edgeslist") || !strcasecmp(f0, "*arcslist") ? PAJEK_LISTS
                                                                                      : PAJEK_OTHER;
            if (section == PAJEK_VERTICES && t.n_fields >= 2) count = id_value(t.field[1]);
        } else if (c->fmt == GAT_GRAPH_FORMAT_PAJEK) {
            last = section == PAJEK_VERTICES ? 1
                   : section == PAJEK_PAIRS  ? 2
                   : section == PAJEK_LISTS  ? t.n_fields
                                             : 0;
        }
        if (last > t.n_fields) last = t.n_fields;
        for (size_t k = 0; k < last; k++) {
            const int64_t v = id_value(t.field[k]) + base0; /* vertices 0..v or 1..v */
            if (v >= 0 && v > count) count = v;
        }
        if (count > *n) *n = count;
    }
    gat_i_text_free(&t);
    return st;
}

/* The counts a graph file declares, checked before igraph allocates for them. A DIMACS header's
 * edge count must fit the file's size (igraph reserves room for that many edges: "p max 4
 * 444444441" would ask for gigabytes). With a features file F, every vertex needs a features
 * line, so a graph file declaring more vertices than F has lines fails (a few bytes of
 * "*Vertices 2000000000" would otherwise ask for gigabytes). Without one, every vertex becomes a
 * one-hot node, and a vertex count the file's own size cannot justify is refused: more vertices
 * than the file has bytes (a real graph names nearly all its vertices, each in two bytes or more;
 * "0 1999999999" alone asked for 20 GiB and minutes). Isolated vertices beyond that need a
 * features file, whose lines declare them. */
static gat_status check_counts(const read_ctx *c, const features *F, const char *path)
{
    int64_t n;
    dimacs_counts dc = {.vertices = -1, .edges = -1};
    size_t bytes = 0;
    gat_status st = declared_vertices(c, path, &n, &dc, &bytes);
    if (st != GAT_OK) return st;
    if (dc.edges > 0 && (uint64_t)dc.edges > (bytes + 1) / DIMACS_MIN_EDGE_BYTES)
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld: header declares %lld edges, more than a file of %zu bytes "
                           "can hold",
                           path, dc.edges_line, (long long)dc.edges, bytes);
    if (!F) {
        if (n <= (int64_t)bytes) return GAT_OK;
        return gat_i_error(GAT_EFORMAT,
                           "%s: implies %lld vertices, more than a file of %zu bytes can name "
                           "(each would become a one-hot node); give a features file to declare "
                           "isolated vertices",
                           path, (long long)n, bytes);
    }
    if (c->fmt == GAT_GRAPH_FORMAT_EDGELIST && c->min_n > n) n = c->min_n;
    if (n <= F->x.rows) return GAT_OK;
    if (c->fmt != GAT_GRAPH_FORMAT_EDGELIST)
        return gat_i_error(GAT_EFORMAT,
                           "%s: declares %lld vertices but %s has %d lines: every vertex needs "
                           "its features",
                           path, (long long)n, F->t.path, F->x.rows);
    /* vertices are named by their numbers 0..n-1: name the first one without a line */
    unsigned char *has = gat_calloc((size_t)F->x.rows + 1, 1);
    int64_t missing = 0;
    if (!has) return GAT_ENOMEM;
    for (gat_idx r = 0; r < F->x.rows; r++) {
        const int64_t v = parse_count(F->ids[r], (int64_t)F->x.rows + 1);
        if (v >= 0) has[v] = 1;
    }
    while (has[missing])
        missing++;
    gat_free(has);
    return gat_i_error(GAT_EFORMAT,
                       "%s: no line for node '%lld' (every vertex of %s needs its "
                       "features)",
                       F->t.path, (long long)missing, path);
}

/* ---- Labels and split files -------------------------------------------------------------- */

typedef struct labels {
    gat_i_idtable r; /* the file; class names point into it */
    gat_idx *label;  /* (n) class or -1 */
    char **names;    /* (C) class names, ordered */
    gat_idx n_classes;
} labels;

static void labels_free(labels *L)
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

/* Reads the labels file (an id table, io/idtable.h): label strings per node, then classes
 * numbered in order. */
static gat_status read_labels(labels *L, const char *path, const gat_i_strmap *nodes,
                              char *const *ids, gat_idx n, const char *known)
{
    char **text_label = gat_calloc((size_t)n, sizeof *text_label); /* into L->r.t */
    class_key *keys = NULL;
    gat_i_strmap classes = {0};
    gat_idx *first = NULL; /* (n) class of each distinct label in first-seen order */
    size_t max_lines;
    gat_idx C = 0, i;
    char *label;
    int errnum, all_integer = 1;
    gat_status st;

    memset(L, 0, sizeof *L);
    if (!text_label || !(L->label = gat_malloc((size_t)n, sizeof *L->label))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_i_idtable_open(&L->r, path, &errnum, nodes, ids, n, known, "label")) != GAT_OK)
        goto cleanup;
    max_lines = gat_i_text_count_lines(&L->r.t);
    if (!(L->names = gat_malloc(max_lines, sizeof *L->names)) ||
        !(keys = gat_malloc(max_lines, sizeof *keys)) ||
        !(first = gat_malloc(max_lines, sizeof *first)) ||
        gat_i_strmap_init(&classes, max_lines) != GAT_OK) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    while ((st = gat_i_idtable_next(&L->r, &i, &label)) == GAT_OK && i >= 0) {
        text_label[i] = label;
        gat_idx *slot = gat_i_strmap_slot(&classes, L->names, label);
        if (*slot < 0) {
            L->names[C] = label;
            keys[C].name = label;
            all_integer &= integer_label(label, &keys[C].value);
            *slot = C++;
        }
    }
    if (st != GAT_OK) goto cleanup;
    qsort(keys, (size_t)C, sizeof *keys, all_integer ? cmp_numeric : cmp_bytes);
    /* rank: class number of each first-seen label, through the map */
    for (gat_idx k = 0; k < C; k++)
        first[*gat_i_strmap_slot(&classes, L->names, keys[k].name)] = k;
    for (gat_idx v = 0; v < n; v++)
        L->label[v] =
            text_label[v] ? first[*gat_i_strmap_slot(&classes, L->names, text_label[v])] : -1;
    for (gat_idx k = 0; k < C; k++)
        L->names[k] = keys[k].name;
    L->n_classes = C;
cleanup:
    gat_free(text_label);
    gat_free(keys);
    gat_free(first);
    gat_i_strmap_free(&classes);
    return st;
}

/* ---- Assembly ---------------------------------------------------------------------------- */

/* x (uninitialised) = F's rows in node order; every node needs exactly one row. */
static gat_status features_by_node(gat_csr *x, const features *F, const gat_i_strmap *nodes,
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

/* The map id -> vertex over c's vertex ids; repeated ids are a format error of the graph file.
 * With F (ncol and lgl: files that know vertices only through edges), ids of F the graph lacks
 * become new isolated vertices after the graph's, in F's order. */
static gat_status map_ids(gat_i_strmap *nodes, read_ctx *c, const features *F, const char *path)
{
    const size_t extra = F ? (size_t)F->x.rows : 0;
    gat_status st;
    if ((st = gat_i_strmap_init(nodes, (size_t)c->n + extra)) != GAT_OK) return st;
    for (gat_idx v = 0; v < (gat_idx)c->n; v++) {
        gat_idx *slot = gat_i_strmap_slot(nodes, c->ids, c->ids[v]);
        if (*slot >= 0)
            return gat_i_error(GAT_EFORMAT, "%s: vertices %d and %d have the same id '%s'", path,
                               *slot, v, c->ids[v]);
        *slot = v;
    }
    if (!extra) return GAT_OK;
    if (c->n + (int64_t)extra >= INT32_MAX)
        return gat_i_error(GAT_EFORMAT, "%s: %lld vertices exceed the node index type", path,
                           (long long)c->n + (long long)extra);
    char **ids = gat_realloc(c->ids, (size_t)c->n + extra, sizeof *ids);
    if (!ids) return GAT_ENOMEM;
    c->ids = ids;
    for (gat_idx r = 0; r < F->x.rows; r++) {
        gat_idx *slot = gat_i_strmap_slot(nodes, c->ids, F->ids[r]);
        if (*slot >= 0) continue;
        if (!(c->ids[c->n] = gat_strdup(F->ids[r]))) return GAT_ENOMEM;
        *slot = (gat_idx)c->n++;
    }
    return GAT_OK;
}

static gat_status check_files(const gat_dataset_files *files, gat_graph_format *fmt)
{
    static const char fn[] = "gat_dataset_read";
    if (!files || !files->graph || !files->graph[0])
        return gat_i_error(GAT_EINVAL, "%s: NULL files or graph path", fn);
    if ((int)files->format < 0 || (int)files->format >= N_FORMATS)
        return gat_i_error(GAT_EINVAL, "%s: unknown graph format %d", fn, (int)files->format);
    *fmt = files->format;
    return *fmt == GAT_GRAPH_FORMAT_AUTO ? gat_graph_format_from_path(files->graph, fmt) : GAT_OK;
}

/* Edge features per edge of g (built from c's edges with flags) from rows raw (c->m, D) per input
 * edge, merged by the dataset rule; *out allocated (E, D). */
static gat_status rows_per_edge(const read_ctx *c, const gat_graph *g, unsigned flags,
                                const gat_dataset_options *opt, const gat_real *raw, gat_idx D,
                                gat_real **out)
{
    gat_idx *s = gat_malloc(c->m, sizeof *s), *d = gat_malloc(c->m, sizeof *d);
    gat_status st = GAT_ENOMEM;
    if (s && d) {
        for (size_t k = 0; k < c->m; k++)
            s[k] = (gat_idx)c->src[k], d[k] = (gat_idx)c->dst[k]; /* n < INT32_MAX: checked */
        st = gat_i_edge_rows(g, c->m, s, d, (flags & GAT_GRAPH_SYMMETRIZE) != 0, raw, D,
                             opt->self_loop_fill, out);
    }
    gat_free(s);
    gat_free(d);
    return st;
}

/* The edge features of the attributes c read, per edge of g; *out allocated (E, D). */
static gat_status edge_features(const read_ctx *c, const gat_graph *g, unsigned flags,
                                const gat_dataset_options *opt, const char *path, gat_real **out)
{
    gat_real *raw = NULL;
    gat_status st = gat_i_edge_attr_rows(path, c->eattr, c->n_eattr, c->etype, c->erow, c->m, &raw);
    if (st == GAT_OK) st = rows_per_edge(c, g, flags, opt, raw, c->n_eattr, out);
    gat_free(raw);
    return st;
}

gat_status gat_dataset_read(gat_dataset *ds, const gat_dataset_files *files,
                            const gat_dataset_options *opt)
{
    gat_dataset_options defaults;
    gat_i_clocale loc = {0};
    features F = {0};
    labels L = {0};
    read_ctx c = {0};
    gat_i_strmap nodes = {0};
    gat_graph g = {0};
    gat_csr x = {0};
    uint8_t *split = NULL;
    char *known = NULL; /* "a vertex of GRAPH", for the tables' messages */
    gat_idx *edge_input = NULL;
    gat_real *erows = NULL;
    gat_dataset_parts parts = {0};
    gat_status st;

    gat_i_clear_error();
    if (!ds) return gat_i_error(GAT_EINVAL, "gat_dataset_read: NULL dataset");
    memset(ds, 0, sizeof *ds);
    if ((st = check_files(files, &c.fmt)) != GAT_OK) return st;
    if (!opt) {
        gat_dataset_options_default(&defaults);
        opt = &defaults;
    }
    if ((st = gat_i_check_options(opt, "gat_dataset_read")) != GAT_OK) return st;
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) return st;
    if (files->features && (st = read_features(&F, files->features)) != GAT_OK) goto cleanup;
    c.directed = !opt->symmetrize;
    c.min_n = F.max_number + 1;
    c.eattr = opt->edge_attributes;
    c.n_eattr = opt->n_edge_attributes;
    if ((c.fmt == GAT_GRAPH_FORMAT_EDGELIST || c.fmt == GAT_GRAPH_FORMAT_NCOL) &&
        (st = split_columns(&c, files->graph)) != GAT_OK)
        goto cleanup;
    if ((st = check_counts(&c, files->features ? &F : NULL, files->graph)) != GAT_OK) goto cleanup;
    if ((st = read_graph(&c, files->graph)) != GAT_OK) goto cleanup;
    const int named = c.fmt == GAT_GRAPH_FORMAT_NCOL || c.fmt == GAT_GRAPH_FORMAT_LGL;
    if ((st = map_ids(&nodes, &c, named && files->features ? &F : NULL, files->graph)) != GAT_OK)
        goto cleanup;
    const gat_idx n = (gat_idx)c.n;
    const unsigned gflags = c.is_directed && !opt->symmetrize ? 0u : (unsigned)GAT_GRAPH_SYMMETRIZE;
    /* provenance: igraph's edge ids, which follow the file's edge order */
    if (!(edge_input = gat_malloc(GAT_GRAPH_MAX_EDGES(c.n, c.m, gflags), sizeof *edge_input))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_graph_from_edges64_mapped(&g, c.n, c.m, c.src, c.dst, gflags, edge_input)) !=
        GAT_OK)
        goto cleanup;
    if (c.n_eattr > 0 && c.n_cols > 0) {
        st = gat_i_error(GAT_EINVAL,
                         "%s: edge feature columns and edge attributes (%s) both given: "
                         "%s files have no edge attributes",
                         files->graph, c.eattr[0], gat_graph_format_name(c.fmt));
        goto cleanup;
    }
    if (c.n_eattr > 0 && (st = edge_features(&c, &g, gflags, opt, files->graph, &erows)) != GAT_OK)
        goto cleanup;
    /* the columns of edge k are line k's: igraph keeps the file's order */
    if (c.n_cols > 0 &&
        (st = rows_per_edge(&c, &g, gflags, opt, c.crow, c.n_cols, &erows)) != GAT_OK)
        goto cleanup;
    st = files->features ? features_by_node(&x, &F, &nodes, c.ids, n, files->graph)
                         : gat_csr_identity(&x, n);
    if (st != GAT_OK) goto cleanup;
    if (!(known = gat_malloc(strlen(files->graph) + 16, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    sprintf(known, "a vertex of %s", files->graph);
    if (files->labels && (st = read_labels(&L, files->labels, &nodes, c.ids, n, known)) != GAT_OK)
        goto cleanup;
    if (files->split) {
        if (!(split = gat_calloc((size_t)n, sizeof *split))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        if ((st = gat_i_split_table_read(split, files->split, NULL, &nodes, c.ids, n, known,
                                         L.label, files->labels)) != GAT_OK)
            goto cleanup;
    }
    parts.graph = &g;
    parts.features = &x;
    parts.labels = L.label;
    parts.n_classes = L.n_classes;
    parts.split = split;
    parts.node_ids = (const char *const *)c.ids;
    parts.class_names = (const char *const *)L.names;
    parts.edge_input = edge_input;
    parts.edge_features = erows;
    parts.n_edge_features = !erows ? 0 : c.n_cols > 0 ? c.n_cols : c.n_eattr;
    st = gat_i_dataset_from_parts(ds, &parts, opt, "gat_dataset_read",
                                  files->labels ? files->labels : files->graph, files->features);
cleanup:
    gat_i_clocale_leave(&loc);
    features_free(&F);
    labels_free(&L);
    read_ctx_free(&c);
    gat_i_strmap_free(&nodes);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
    gat_free(split);
    gat_free(known);
    gat_free(edge_input);
    gat_free(erows);
    return st;
}
