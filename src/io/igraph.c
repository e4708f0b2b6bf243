/* The igraph bridge (gat/gat_igraph.h) and gat_i_igraph_call, the single wrapper every igraph
 * call of libgat goes through: silent handlers in, body, handlers restored, status mapped. */
#include "gat/gat_igraph.h"
#include "core/core.h"
#include "io/dataset_i.h"
#include "io/igraph_i.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef GAT_REAL_DOUBLE
#define REAL_MAX DBL_MAX
#else
#define REAL_MAX FLT_MAX
#endif

/* ---- The wrapper ------------------------------------------------------------------------- */

/* Keeps the first non-empty reason (igraph calls the handler again, with an empty reason, at
 * every level an error propagates through), then frees igraph's temporaries as its own ignoring
 * handler does. The reason lands in the thread's libgat message, cleared before the body. */
static void on_error(const char *reason, const char *file, int line, igraph_error_t err)
{
    if (reason && reason[0] && gat_last_error()[0] == '\0') gat_i_error(GAT_EDEP, "%s", reason);
    igraph_error_handler_ignore(reason, file, line, err);
}

gat_status gat_i_igraph_call(gat_i_igraph_body *body, void *ctx, gat_status fail, const char *what)
{
    char reason[400];
    gat_i_clear_error();
    igraph_error_handler_t *old_error = igraph_set_error_handler(on_error);
    igraph_warning_handler_t *old_warning =
        igraph_set_warning_handler(igraph_warning_handler_ignore);
    const igraph_error_t rc = body(ctx);
    igraph_set_warning_handler(old_warning);
    igraph_set_error_handler(old_error);
    if (rc == IGRAPH_SUCCESS) {
        gat_i_clear_error();
        return GAT_OK;
    }
    snprintf(reason, sizeof reason, "%s", gat_last_error());
    /* igraph's reasons may end in a full stop or a newline: drop them before our suffix */
    for (size_t k = strlen(reason); k > 0 && strchr(" .\n", reason[k - 1]); k--)
        reason[k - 1] = '\0';
    return gat_i_error(rc == IGRAPH_ENOMEM ? GAT_ENOMEM : fail, "%s: %s%s(igraph: %s)", what,
                       reason, reason[0] ? " " : "", igraph_strerror(rc));
}

/* ---- Graphs ------------------------------------------------------------------------------ */

typedef struct edges_ctx {
    const igraph_t *graph;
    int64_t n;
    size_t m;
    int directed;
    int64_t *src, *dst; /* (m) filled by copy_edges */
} edges_ctx;

static igraph_error_t graph_shape(void *p)
{
    edges_ctx *c = p;
    c->n = (int64_t)igraph_vcount(c->graph);
    c->m = (size_t)igraph_ecount(c->graph);
    c->directed = igraph_is_directed(c->graph) ? 1 : 0;
    return IGRAPH_SUCCESS;
}

static igraph_error_t copy_edges(void *p)
{
    edges_ctx *c = p;
    igraph_vector_int_t el;
    igraph_error_t rc = igraph_vector_int_init(&el, 0);
    if (rc != IGRAPH_SUCCESS) return rc;
    if ((rc = igraph_get_edgelist(c->graph, &el, 0)) == IGRAPH_SUCCESS)
        for (size_t e = 0; e < c->m; e++) {
            c->src[e] = (int64_t)VECTOR(el)[2 * e];
            c->dst[e] = (int64_t)VECTOR(el)[2 * e + 1];
        }
    igraph_vector_int_destroy(&el);
    return rc;
}

/* gat_graph_from_igraph for fn; *edge_input (if not NULL): allocated, the graph's edge
 * provenance by igraph edge id (gat_graph_from_edges_mapped), freed by the caller. */
static gat_status graph_from_igraph(const char *fn, gat_graph *g, const igraph_t *graph,
                                    unsigned flags, gat_idx **edge_input)
{
    edges_ctx c = {.graph = graph};
    gat_status st;

    if (!g) return gat_i_error(GAT_EINVAL, "%s: NULL graph", fn);
    memset(g, 0, sizeof *g);
    if (!graph) return gat_i_error(GAT_EINVAL, "%s: NULL igraph graph", fn);
    if ((st = gat_i_igraph_call(graph_shape, &c, GAT_EDEP, fn)) != GAT_OK) return st;
    if (c.n >= INT32_MAX)
        return gat_i_error(GAT_EINVAL, "%s: %lld vertices exceed libgat's 32-bit node indices", fn,
                           (long long)c.n);
    flags |= c.directed ? 0u : (unsigned)GAT_GRAPH_SYMMETRIZE;
    if (!(c.src = gat_malloc(c.m, sizeof *c.src)) || !(c.dst = gat_malloc(c.m, sizeof *c.dst)) ||
        (edge_input &&
         !(*edge_input = gat_malloc(GAT_GRAPH_MAX_EDGES(c.n, c.m, flags), sizeof **edge_input)))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_i_igraph_call(copy_edges, &c, GAT_EDEP, fn)) != GAT_OK) goto cleanup;
    st = gat_graph_from_edges64_mapped(g, c.n, c.m, c.src, c.dst, flags,
                                       edge_input ? *edge_input : NULL);
cleanup:
    gat_free(c.src);
    gat_free(c.dst);
    return st;
}

gat_status gat_graph_from_igraph(gat_graph *g, const igraph_t *graph, unsigned flags)
{
    gat_i_clear_error();
    return graph_from_igraph("gat_graph_from_igraph", g, graph, flags, NULL);
}

/* ---- Features ---------------------------------------------------------------------------- */

gat_status gat_i_dense_to_csr(gat_csr *x, gat_idx rows, gat_idx cols, const double *dense,
                               const char *fn, const char *const *col_names)
{
    size_t nnz = 0, k = 0;
    gat_status st;
    for (size_t e = 0; e < (size_t)rows * (size_t)cols; e++) {
        const double v = dense[e];
        if (!isfinite(v) || fabs(v) > REAL_MAX) {
            const size_t r = e / (size_t)cols, c = e % (size_t)cols;
            if (col_names)
                return gat_i_error(GAT_ENUMERIC, "%s: attribute '%s' of vertex %zu is %g", fn,
                                   col_names[c], r, v);
            return gat_i_error(GAT_ENUMERIC, "%s: element (%zu, %zu) is %g%s", fn, r, c, v,
                               isfinite(v) ? ", beyond gat_real's range" : "");
        }
        nnz += v != 0;
    }
    if (nnz > INT32_MAX)
        return gat_i_error(GAT_EINVAL, "%s: %zu non-zeros exceed the index type", fn, nnz);
    if ((st = gat_csr_init(x, rows, cols, nnz)) != GAT_OK) return st;
    for (gat_idx r = 0; r < rows; r++) {
        for (gat_idx c = 0; c < cols; c++) {
            const double v = dense[(size_t)r * (size_t)cols + (size_t)c];
            if (v != 0) {
                x->col[k] = c;
                x->val[k++] = (gat_real)v;
            }
        }
        x->rowptr[r + 1] = (gat_idx)k;
    }
    return GAT_OK;
}

typedef struct matrix_ctx {
    const igraph_matrix_t *m;
    int64_t rows, cols;
} matrix_ctx;

static igraph_error_t matrix_shape(void *p)
{
    matrix_ctx *c = p;
    c->rows = (int64_t)igraph_matrix_nrow(c->m);
    c->cols = (int64_t)igraph_matrix_ncol(c->m);
    return IGRAPH_SUCCESS;
}

gat_status gat_csr_from_igraph_matrix(gat_csr *x, const igraph_matrix_t *features)
{
    static const char fn[] = "gat_csr_from_igraph_matrix";
    matrix_ctx c = {.m = features};
    double *dense = NULL;
    gat_status st;

    gat_i_clear_error();
    if (!x) return gat_i_error(GAT_EINVAL, "%s: NULL matrix", fn);
    memset(x, 0, sizeof *x);
    if (!features) return gat_i_error(GAT_EINVAL, "%s: NULL igraph matrix", fn);
    if ((st = gat_i_igraph_call(matrix_shape, &c, GAT_EDEP, fn)) != GAT_OK) return st;
    if (c.rows >= INT32_MAX || c.cols >= INT32_MAX)
        return gat_i_error(GAT_EINVAL, "%s: %lld x %lld exceeds the index type", fn,
                           (long long)c.rows, (long long)c.cols);
    const gat_idx rows = (gat_idx)c.rows, cols = (gat_idx)c.cols;
    if (!(dense = gat_malloc((size_t)rows * (size_t)cols, sizeof *dense))) return GAT_ENOMEM;
    /* igraph stores column-major: MATRIX(m, r, c) is data[c * rows + r] */
    for (gat_idx r = 0; r < rows; r++)
        for (gat_idx k = 0; k < cols; k++)
            dense[(size_t)r * (size_t)cols + (size_t)k] = (double)MATRIX(*features, r, k);
    st = gat_i_dense_to_csr(x, rows, cols, dense, fn, NULL);
    gat_free(dense);
    return st;
}

typedef struct attr_ctx {
    const igraph_t *graph;
    const char *const *names;
    gat_idx count;
    int has_table; /* the C attribute handler is installed and the graph has attributes */
    int64_t n;
    int *type;     /* (count) IGRAPH_ATTRIBUTE_* of each name, -1 if the graph lacks it */
    double *dense; /* (n, count) row-major, filled by attr_values */
} attr_ctx;

/* Whether igraph_cattribute_table is the installed handler (read by swapping it in and back). */
static int cattribute_installed(void)
{
    igraph_attribute_table_t *prev = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_set_attribute_table(prev);
    return prev == &igraph_cattribute_table;
}

/* The attribute lists of a graph, handed to a visitor: names and IGRAPH_ATTRIBUTE_* types of
 * the vertex attributes (vn, vt) and of the edge attributes (en, et). */
typedef igraph_error_t attr_visitor(void *ctx, const igraph_strvector_t *vn,
                                    const igraph_vector_int_t *vt, const igraph_strvector_t *en,
                                    const igraph_vector_int_t *et);

/* Lists graph's attributes (igraph_cattribute_list) and runs visit on them. */
static igraph_error_t visit_attr_lists(const igraph_t *graph, attr_visitor *visit, void *ctx)
{
    igraph_strvector_t gn, vn, en;
    igraph_vector_int_t gt, vt, et;
    igraph_error_t rc;

    if ((rc = igraph_strvector_init(&gn, 0)) != IGRAPH_SUCCESS) return rc;
    if ((rc = igraph_strvector_init(&vn, 0)) != IGRAPH_SUCCESS) goto free_gn;
    if ((rc = igraph_strvector_init(&en, 0)) != IGRAPH_SUCCESS) goto free_vn;
    if ((rc = igraph_vector_int_init(&gt, 0)) != IGRAPH_SUCCESS) goto free_en;
    if ((rc = igraph_vector_int_init(&vt, 0)) != IGRAPH_SUCCESS) goto free_gt;
    if ((rc = igraph_vector_int_init(&et, 0)) != IGRAPH_SUCCESS) goto free_vt;
    if ((rc = igraph_cattribute_list(graph, &gn, &gt, &vn, &vt, &en, &et)) == IGRAPH_SUCCESS)
        rc = visit(ctx, &vn, &vt, &en, &et);
    igraph_vector_int_destroy(&et);
free_vt:
    igraph_vector_int_destroy(&vt);
free_gt:
    igraph_vector_int_destroy(&gt);
free_en:
    igraph_strvector_destroy(&en);
free_vn:
    igraph_strvector_destroy(&vn);
free_gn:
    igraph_strvector_destroy(&gn);
    return rc;
}

typedef struct types_query {
    const char *const *names;
    gat_idx count;
    int *type;
    int edges;
} types_query;

static igraph_error_t find_types(void *ctx, const igraph_strvector_t *vn,
                                 const igraph_vector_int_t *vt, const igraph_strvector_t *en,
                                 const igraph_vector_int_t *et)
{
    const types_query *q = ctx;
    const igraph_strvector_t *sn = q->edges ? en : vn;
    const igraph_vector_int_t *st = q->edges ? et : vt;
    for (gat_idx k = 0; k < q->count; k++) {
        q->type[k] = -1;
        for (igraph_integer_t a = 0; a < igraph_strvector_size(sn); a++)
            if (strcmp(igraph_strvector_get(sn, a), q->names[k]) == 0)
                q->type[k] = (int)VECTOR(*st)[a];
    }
    return IGRAPH_SUCCESS;
}

/* type[k] for names[k] among the attributes of kind `edges` (1: edge, 0: vertex). */
static igraph_error_t attr_types_of(const igraph_t *graph, const char *const *names,
                                    gat_idx count, int *type, int edges)
{
    types_query q = {names, count, type, edges};
    return visit_attr_lists(graph, find_types, &q);
}

igraph_error_t gat_i_igraph_vertex_attr_types(const igraph_t *graph, const char *const *names,
                                              gat_idx count, int *type)
{
    return attr_types_of(graph, names, count, type, 0);
}

/* type[k] for names[k] among the attributes of kind edges (1: edge, 0: vertex); when every one is
 * numeric, rows (count of that kind, count) receives their values. */
static igraph_error_t attr_rows(const igraph_t *graph, const char *const *names, gat_idx count,
                                int *type, double *rows, int edges)
{
    igraph_vector_t v;
    const size_t n = (size_t)(edges ? igraph_ecount(graph) : igraph_vcount(graph));
    igraph_error_t rc = attr_types_of(graph, names, count, type, edges);
    if (rc != IGRAPH_SUCCESS) return rc;
    for (gat_idx k = 0; k < count; k++)
        if (type[k] != IGRAPH_ATTRIBUTE_NUMERIC) return IGRAPH_SUCCESS;
    if ((rc = igraph_vector_init(&v, 0)) != IGRAPH_SUCCESS) return rc;
    for (gat_idx k = 0; k < count && rc == IGRAPH_SUCCESS; k++) {
        rc = edges ? igraph_cattribute_EANV(graph, names[k], igraph_ess_all(IGRAPH_EDGEORDER_ID), &v)
                   : igraph_cattribute_VANV(graph, names[k], igraph_vss_all(), &v);
        if (rc != IGRAPH_SUCCESS) break;
        for (size_t i = 0; i < n; i++)
            rows[i * (size_t)count + (size_t)k] = (double)VECTOR(v)[(igraph_integer_t)i];
    }
    igraph_vector_destroy(&v);
    return rc;
}

igraph_error_t gat_i_igraph_vertex_attrs(const igraph_t *graph, const char *const *names,
                                         gat_idx count, int *type, double *rows)
{
    return attr_rows(graph, names, count, type, rows, 0);
}

typedef struct numeric_query {
    const char *const *skip;
    int n_skip;
    char ***names;
    gat_idx *count;
} numeric_query;

static igraph_error_t find_numeric(void *ctx, const igraph_strvector_t *vn,
                                   const igraph_vector_int_t *vt, const igraph_strvector_t *en,
                                   const igraph_vector_int_t *et)
{
    const numeric_query *q = ctx;
    const igraph_integer_t total = igraph_strvector_size(vn);
    (void)en, (void)et;
    if (!(*q->names = gat_calloc((size_t)total + 1, sizeof **q->names))) return IGRAPH_ENOMEM;
    for (igraph_integer_t a = 0; a < total; a++) {
        const char *name = igraph_strvector_get(vn, a);
        int skipped = VECTOR(*vt)[a] != IGRAPH_ATTRIBUTE_NUMERIC;
        for (int k = 0; k < q->n_skip; k++)
            skipped |= q->skip[k] && !strcmp(name, q->skip[k]);
        if (skipped) continue;
        if (!((*q->names)[*q->count] = gat_strdup(name))) return IGRAPH_ENOMEM;
        ++*q->count;
    }
    return IGRAPH_SUCCESS;
}

igraph_error_t gat_i_igraph_numeric_vertex_attrs(const igraph_t *graph, const char *const *skip,
                                                 int n_skip, char ***names, gat_idx *count)
{
    numeric_query q = {skip, n_skip, names, count};
    *names = NULL;
    *count = 0;
    return visit_attr_lists(graph, find_numeric, &q);
}

igraph_error_t gat_i_igraph_edge_attrs(const igraph_t *graph, const char *const *names,
                                       gat_idx count, int *type, double *rows)
{
    return attr_rows(graph, names, count, type, rows, 1);
}

gat_status gat_i_edge_attr_rows(const char *what, const char *const *names, gat_idx count,
                                const int *type, const double *rows, size_t m, gat_real **out)
{
    *out = NULL;
    for (gat_idx k = 0; k < count; k++)
        if (type[k] != IGRAPH_ATTRIBUTE_NUMERIC)
            return gat_i_error(GAT_EINVAL, "%s: edge attribute '%s' %s", what, names[k],
                               type[k] < 0 ? "does not exist" : "is not numeric");
    if (!(*out = gat_malloc(m ? m * (size_t)count : 1, sizeof **out))) return GAT_ENOMEM;
    for (size_t e = 0; e < m; e++)
        for (gat_idx k = 0; k < count; k++) {
            const double v = rows[e * (size_t)count + (size_t)k];
            if (!isfinite(v) || fabs(v) > REAL_MAX) {
                gat_free(*out);
                *out = NULL;
                return gat_i_error(GAT_ENUMERIC, "%s: edge attribute '%s' of edge %zu is %g", what,
                                   names[k], e, v);
            }
            (*out)[e * (size_t)count + (size_t)k] = (gat_real)v;
        }
    return GAT_OK;
}

static igraph_error_t attr_types(void *p)
{
    attr_ctx *c = p;
    c->n = (int64_t)igraph_vcount(c->graph);
    c->has_table = cattribute_installed() && c->graph->attr != NULL;
    if (!c->has_table) return IGRAPH_SUCCESS;
    return gat_i_igraph_vertex_attr_types(c->graph, c->names, c->count, c->type);
}

static igraph_error_t attr_values(void *p)
{
    attr_ctx *c = p;
    return gat_i_igraph_vertex_attrs(c->graph, c->names, c->count, c->type, c->dense);
}

gat_status gat_csr_from_igraph_attributes(gat_csr *x, const igraph_t *graph,
                                          const char *const *names, gat_idx count)
{
    static const char fn[] = "gat_csr_from_igraph_attributes";
    attr_ctx c = {.graph = graph, .names = names, .count = count};
    gat_status st;

    gat_i_clear_error();
    if (!x) return gat_i_error(GAT_EINVAL, "%s: NULL matrix", fn);
    memset(x, 0, sizeof *x);
    if (!graph || !names || count < 1)
        return gat_i_error(GAT_EINVAL, "%s: NULL graph or names, or count %d < 1", fn, count);
    for (gat_idx k = 0; k < count; k++)
        if (!names[k]) return gat_i_error(GAT_EINVAL, "%s: names[%d] is NULL", fn, k);
    if (!(c.type = gat_malloc((size_t)count, sizeof *c.type))) return GAT_ENOMEM;
    if ((st = gat_i_igraph_call(attr_types, &c, GAT_EDEP, fn)) != GAT_OK) goto cleanup;
    if (!c.has_table) {
        st = gat_i_error(GAT_EINVAL,
                         "%s: the graph has no attributes from igraph's C attribute "
                         "handler: call igraph_set_attribute_table(&igraph_cattribute_table) "
                         "before creating or reading it",
                         fn);
        goto cleanup;
    }
    if (c.n >= INT32_MAX) {
        st = gat_i_error(GAT_EINVAL, "%s: %lld vertices exceed the index type", fn, (long long)c.n);
        goto cleanup;
    }
    for (gat_idx k = 0; k < count; k++)
        if (c.type[k] != IGRAPH_ATTRIBUTE_NUMERIC) {
            st = gat_i_error(GAT_EINVAL, "%s: vertex attribute '%s' %s", fn, names[k],
                             c.type[k] < 0 ? "does not exist" : "is not numeric");
            goto cleanup;
        }
    if (!(c.dense = gat_malloc((size_t)c.n * (size_t)count, sizeof *c.dense))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_i_igraph_call(attr_values, &c, GAT_EDEP, fn)) != GAT_OK) goto cleanup;
    st = gat_i_dense_to_csr(x, (gat_idx)c.n, count, c.dense, fn, names);
cleanup:
    gat_free(c.type);
    gat_free(c.dense);
    return st;
}

/* ---- Datasets ---------------------------------------------------------------------------- */

typedef struct ivec_ctx {
    const igraph_vector_int_t *v;
    int64_t size;
} ivec_ctx;

static igraph_error_t ivec_size(void *p)
{
    ivec_ctx *c = p;
    c->size = (int64_t)igraph_vector_int_size(c->v);
    return IGRAPH_SUCCESS;
}

/* Checks that v (NULL allowed) holds n values in [lo, hi] ... copied into out (n). */
static gat_status copy_ivec(const igraph_vector_int_t *v, gat_idx n, int64_t lo, int64_t hi,
                            const char *fn, const char *name, int64_t *out_max, gat_idx *out)
{
    ivec_ctx c = {.v = v};
    gat_status st;
    if ((st = gat_i_igraph_call(ivec_size, &c, GAT_EDEP, fn)) != GAT_OK) return st;
    if (c.size != n)
        return gat_i_error(GAT_EDIM, "%s: %s has %lld elements but the graph has %d vertices", fn,
                           name, (long long)c.size, n);
    *out_max = -1;
    for (gat_idx i = 0; i < n; i++) {
        const int64_t x = (int64_t)VECTOR(*v)[i];
        if (x < lo || x > hi)
            return gat_i_error(GAT_EINVAL, "%s: %s of vertex %d is %lld, outside [%lld, %lld]", fn,
                               name, i, (long long)x, (long long)lo, (long long)hi);
        out[i] = (gat_idx)x;
        if (x > *out_max) *out_max = x;
    }
    return GAT_OK;
}

typedef struct eattr_ctx {
    const igraph_t *graph;
    const char *const *names;
    gat_idx count;
    int has_table;
    size_t m;
    int64_t *src, *dst; /* (m) */
    int *type;          /* (count) */
    double *rows;       /* (m, count) */
} eattr_ctx;

static igraph_error_t eattr_body(void *p)
{
    eattr_ctx *c = p;
    igraph_vector_int_t el;
    igraph_error_t rc;
    c->has_table = cattribute_installed() && c->graph->attr != NULL;
    c->m = (size_t)igraph_ecount(c->graph);
    if (!c->has_table) return IGRAPH_SUCCESS;
    if (!(c->src = gat_malloc(c->m, sizeof *c->src)) ||
        !(c->dst = gat_malloc(c->m, sizeof *c->dst)) ||
        !(c->type = gat_malloc((size_t)c->count, sizeof *c->type)) ||
        !(c->rows = gat_malloc(c->m * (size_t)c->count, sizeof *c->rows)))
        return IGRAPH_ENOMEM;
    if ((rc = igraph_vector_int_init(&el, 0)) != IGRAPH_SUCCESS) return rc;
    if ((rc = igraph_get_edgelist(c->graph, &el, 0)) == IGRAPH_SUCCESS)
        for (size_t e = 0; e < c->m; e++) {
            c->src[e] = (int64_t)VECTOR(el)[2 * e];
            c->dst[e] = (int64_t)VECTOR(el)[2 * e + 1];
        }
    igraph_vector_int_destroy(&el);
    if (rc != IGRAPH_SUCCESS) return rc;
    return gat_i_igraph_edge_attrs(c->graph, c->names, c->count, c->type, c->rows);
}

/* Edge features of g (built from graph with flags) from the numeric edge attributes names of
 * graph, merged by the dataset rule: *out allocated (E, count). */
static gat_status igraph_edge_features(const char *fn, const igraph_t *graph, const gat_graph *g,
                                       unsigned flags, const char *const *names, gat_idx count,
                                       int fill, gat_real **out)
{
    eattr_ctx c = {.graph = graph, .names = names, .count = count};
    gat_real *raw = NULL;
    gat_idx *s = NULL, *d = NULL;
    gat_status st = gat_i_igraph_call(eattr_body, &c, GAT_EDEP, fn);
    if (st != GAT_OK) goto cleanup;
    if (!c.has_table) {
        st = gat_i_error(GAT_EINVAL,
                         "%s: edge attributes requested but the graph has no attributes from "
                         "igraph's C attribute handler: call "
                         "igraph_set_attribute_table(&igraph_cattribute_table) before creating "
                         "or reading it",
                         fn);
        goto cleanup;
    }
    if ((st = gat_i_edge_attr_rows(fn, names, count, c.type, c.rows, c.m, &raw)) != GAT_OK)
        goto cleanup;
    if (!(s = gat_malloc(c.m, sizeof *s)) || !(d = gat_malloc(c.m, sizeof *d))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k < c.m; k++)
        s[k] = (gat_idx)c.src[k], d[k] = (gat_idx)c.dst[k]; /* g was built from them */
    flags |= igraph_is_directed(graph) ? 0u : (unsigned)GAT_GRAPH_SYMMETRIZE;
    st = gat_i_edge_rows(g, c.m, s, d, (flags & GAT_GRAPH_SYMMETRIZE) != 0, raw, count, fill, out);
cleanup:
    gat_free(c.src);
    gat_free(c.dst);
    gat_free(c.type);
    gat_free(c.rows);
    gat_free(raw);
    gat_free(s);
    gat_free(d);
    return st;
}

gat_status gat_dataset_from_igraph(gat_dataset *ds, const igraph_t *graph, unsigned flags,
                                   const gat_csr *x, const igraph_vector_int_t *labels,
                                   const igraph_vector_int_t *split, const gat_dataset_options *opt)
{
    static const char fn[] = "gat_dataset_from_igraph";
    gat_graph g = {0};
    gat_idx *lab = NULL, *spl = NULL, *edge_input = NULL;
    gat_real *erows = NULL;
    uint8_t *split8 = NULL;
    int64_t max_label = -1, max_split;
    gat_dataset_parts parts = {0};
    gat_status st;

    gat_i_clear_error();
    if (!ds) return gat_i_error(GAT_EINVAL, "%s: NULL dataset", fn);
    memset(ds, 0, sizeof *ds);
    if (!graph || !x) return gat_i_error(GAT_EINVAL, "%s: NULL graph or features", fn);
    if ((st = graph_from_igraph(fn, &g, graph, flags, &edge_input)) != GAT_OK) goto cleanup;
    const size_t n = (size_t)g.n;
    if ((labels && !(lab = gat_malloc(n, sizeof *lab))) ||
        (split &&
         (!(spl = gat_malloc(n, sizeof *spl)) || !(split8 = gat_malloc(n, sizeof *split8))))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if (labels &&
        (st = copy_ivec(labels, g.n, -1, INT32_MAX - 1, fn, "labels", &max_label, lab)) != GAT_OK)
        goto cleanup;
    if (split && (st = copy_ivec(split, g.n, GAT_SPLIT_NONE, GAT_SPLIT_TEST, fn, "split",
                                 &max_split, spl)) != GAT_OK)
        goto cleanup;
    for (size_t i = 0; split && i < n; i++)
        split8[i] = (uint8_t)spl[i];
    parts.graph = &g;
    parts.features = x;
    parts.labels = lab;
    parts.n_classes = (gat_idx)(max_label + 1);
    parts.split = split8;
    parts.edge_input = edge_input;
    if (opt && opt->n_edge_attributes > 0) {
        if ((st = gat_i_check_options(opt, fn)) != GAT_OK ||
            (st = igraph_edge_features(fn, graph, &g, flags, opt->edge_attributes,
                                       opt->n_edge_attributes, opt->self_loop_fill, &erows)) !=
                GAT_OK)
            goto cleanup;
        parts.edge_features = erows;
        parts.n_edge_features = opt->n_edge_attributes;
    }
    st = gat_i_dataset_from_parts(ds, &parts, opt, fn, "the labelled vertices", NULL);
    if (st == GAT_OK && (st = gat_i_dataset_finish(ds, opt, ds->n_splits == 0, fn)) != GAT_OK)
        gat_dataset_destroy(ds);
cleanup:
    gat_graph_destroy(&g);
    gat_free(edge_input);
    gat_free(erows);
    gat_free(lab);
    gat_free(spl);
    gat_free(split8);
    return st;
}

/* ---- Results ----------------------------------------------------------------------------- */

typedef struct out_ctx {
    igraph_matrix_t *matrix;
    igraph_vector_int_t *classes;
    igraph_vector_t *probability;
    gat_idx rows, cols;
    const gat_real *data; /* (rows, cols) for matrix */
    const gat_idx *cls;   /* (rows) for classes */
    const gat_real *prob; /* (rows) for probability */
} out_ctx;

static igraph_error_t fill_outputs(void *p)
{
    out_ctx *c = p;
    igraph_error_t rc;
    if (c->matrix) {
        if ((rc = igraph_matrix_resize(c->matrix, c->rows, c->cols)) != IGRAPH_SUCCESS) return rc;
        for (gat_idx r = 0; r < c->rows; r++)
            for (gat_idx k = 0; k < c->cols; k++)
                MATRIX(*c->matrix, r, k) = (igraph_real_t)c->data[(size_t)r * c->cols + k];
    }
    if (c->classes) {
        if ((rc = igraph_vector_int_resize(c->classes, c->rows)) != IGRAPH_SUCCESS) return rc;
        for (gat_idx r = 0; r < c->rows; r++)
            VECTOR(*c->classes)[r] = c->cls[r];
    }
    if (c->probability) {
        if ((rc = igraph_vector_resize(c->probability, c->rows)) != IGRAPH_SUCCESS) return rc;
        for (gat_idx r = 0; r < c->rows; r++)
            VECTOR(*c->probability)[r] = (igraph_real_t)c->prob[r];
    }
    return IGRAPH_SUCCESS;
}

gat_status gat_igraph_matrix_from_rows(igraph_matrix_t *res, gat_idx rows, gat_idx cols,
                                       const gat_real *data)
{
    static const char fn[] = "gat_igraph_matrix_from_rows";
    out_ctx c = {.matrix = res, .rows = rows, .cols = cols, .data = data};
    gat_i_clear_error();
    if (!res || rows < 0 || cols < 0 || (!data && rows > 0 && cols > 0))
        return gat_i_error(GAT_EINVAL, "%s: NULL argument or negative size %d x %d", fn, rows,
                           cols);
    return gat_i_igraph_call(fill_outputs, &c, GAT_EDEP, fn);
}

gat_status gat_model_embed_igraph(gat_model *m, const gat_graph *g, const gat_csr *x, int layer,
                                  igraph_matrix_t *res)
{
    static const char fn[] = "gat_model_embed_igraph";
    gat_real *buf = NULL;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args(fn, 4, (const void *[]){m, g, x, res},
                               (const char *[]){"model m", "graph g", "features x", "res"})) != GAT_OK)
        return st;
    const gat_idx w = gat_model_embed_width(m, layer);
    if (w < 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: no layer %d: the model has layers 0..%d, "
                           "GAT_LAYER_LOGITS and GAT_LAYER_PROBS",
                           fn, layer, gat_model_layer_count(m) - 1);
    if (g->n < 0) return gat_i_error(GAT_EINVAL, "%s: negative node count %d", fn, g->n);
    if (!(buf = gat_malloc((size_t)g->n * (size_t)w, sizeof *buf))) return GAT_ENOMEM;
    if ((st = gat_model_embed(m, g, x, layer, buf)) == GAT_OK) {
        out_ctx c = {.matrix = res, .rows = g->n, .cols = w, .data = buf};
        st = gat_i_igraph_call(fill_outputs, &c, GAT_EDEP, fn);
    }
    gat_free(buf);
    return st;
}

gat_status gat_model_predict_igraph(gat_model *m, const gat_graph *g, const gat_csr *x,
                                    igraph_vector_int_t *classes, igraph_vector_t *probability)
{
    static const char fn[] = "gat_model_predict_igraph";
    gat_idx *cls = NULL;
    gat_real *prob = NULL;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args(fn, 4, (const void *[]){m, g, x, classes},
                               (const char *[]){"model m", "graph g", "features x", "classes"})) !=
        GAT_OK)
        return st;
    if (g->n < 0) return gat_i_error(GAT_EINVAL, "%s: negative node count %d", fn, g->n);
    if (!(cls = gat_malloc((size_t)g->n, sizeof *cls)) ||
        (probability && !(prob = gat_malloc((size_t)g->n, sizeof *prob)))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_model_predict(m, g, x, cls, prob)) == GAT_OK) {
        out_ctx c = {
            .classes = classes, .probability = probability, .rows = g->n, .cls = cls, .prob = prob};
        st = gat_i_igraph_call(fill_outputs, &c, GAT_EDEP, fn);
    }
cleanup:
    gat_free(cls);
    gat_free(prob);
    return st;
}
