/* Datasets from a graph file read by igraph (edgelist, ncol, lgl, graphml, gml, pajek, dimacs)
 * and text files of features (dense or sparse), labels and split, matched by node id
 * (gat/graphfile.h). The graph is read, converted and released inside one igraph body; the node
 * tables are graphfile_tables.c's, the checks of declared sizes graphfile_counts.c's. */
#include "io/graphfile_i.h"
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

/* ---- Graph file via igraph --------------------------------------------------------------- */

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
    gat_status st = gat_i_text_load(&t, path, c->max_line, &errnum);
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
    if (st == GAT_EFORMAT && c->fmt == GAT_GRAPH_FORMAT_EDGELIST &&
        strstr(gat_last_error(), "while parsing integer")) {
        /* the usual cause: string ids, which only the named formats hold */
        char msg[1200];
        snprintf(msg, sizeof msg, "%s", gat_last_error());
        st = gat_i_error(GAT_EFORMAT,
                         "%s; an edge list holds 0-based vertex numbers: for node names, read "
                         "the file as ncol (the tools: --graph-format ncol)",
                         msg);
    }
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

/* ---- Assembly ---------------------------------------------------------------------------- */
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

/* ncol and lgl files declare no vertex list: igraph numbers their vertices by first appearance
 * in the edges, an order no user sees. With a features file F, the nodes are renumbered into
 * F's line order instead (after map_ids, which added F's isolated ids), so that row i of every
 * output is line i of F. Left as it is when some vertex has no line of F: that is an error
 * gat_i_gf_features_by_node reports. */
static gat_status order_by_features(read_ctx *c, gat_i_strmap *nodes, const features *F)
{
    const gat_idx n = (gat_idx)c->n;
    if (n != F->x.rows) return GAT_OK;
    gat_idx *perm = gat_malloc((size_t)n, sizeof *perm);
    char **ids = gat_malloc((size_t)n, sizeof *ids);
    gat_status st = GAT_OK;
    if (!perm || !ids) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (gat_idx v = 0; v < n; v++)
        if ((perm[v] = *gat_i_strmap_slot(&F->map, F->ids, c->ids[v])) < 0) goto cleanup;
    for (gat_idx v = 0; v < n; v++)
        ids[perm[v]] = c->ids[v];
    for (size_t e = 0; e < c->m; e++) {
        c->src[e] = perm[c->src[e]];
        c->dst[e] = perm[c->dst[e]];
    }
    for (size_t k = 0; k <= nodes->mask; k++)
        if (nodes->slot[k] >= 0) nodes->slot[k] = perm[nodes->slot[k]];
    gat_free(c->ids);
    c->ids = ids;
    ids = NULL;
cleanup:
    gat_free(perm);
    gat_free(ids);
    return st;
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
    if (files->features &&
        (st = gat_i_gf_read_features(&F, files->features, opt->max_line)) != GAT_OK)
        goto cleanup;
    c.directed = !opt->symmetrize;
    c.max_line = opt->max_line;
    c.min_n = F.max_number + 1;
    c.eattr = opt->edge_attributes;
    c.n_eattr = opt->n_edge_attributes;
    if ((c.fmt == GAT_GRAPH_FORMAT_EDGELIST || c.fmt == GAT_GRAPH_FORMAT_NCOL) &&
        (st = split_columns(&c, files->graph)) != GAT_OK)
        goto cleanup;
    if ((st = gat_i_gf_check_counts(&c, files->features ? &F : NULL, files->graph)) != GAT_OK)
        goto cleanup;
    if ((st = read_graph(&c, files->graph)) != GAT_OK) goto cleanup;
    const int named = c.fmt == GAT_GRAPH_FORMAT_NCOL || c.fmt == GAT_GRAPH_FORMAT_LGL;
    if ((st = map_ids(&nodes, &c, named && files->features ? &F : NULL, files->graph)) != GAT_OK ||
        (named && files->features && (st = order_by_features(&c, &nodes, &F)) != GAT_OK))
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
    st = files->features ? gat_i_gf_features_by_node(&x, &F, &nodes, c.ids, n, files->graph)
                         : gat_csr_identity(&x, n);
    if (st != GAT_OK) goto cleanup;
    if (!(known = gat_malloc(strlen(files->graph) + 16, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    sprintf(known, "a vertex of %s", files->graph);
    if (files->labels && (st = gat_i_gf_read_labels(&L, files->labels, opt->max_line, &nodes, c.ids,
                                                    n, known)) != GAT_OK)
        goto cleanup;
    if (files->split) {
        if (!(split = gat_calloc((size_t)n, sizeof *split))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        if ((st = gat_i_split_table_read(split, files->split, opt->max_line, NULL, &nodes, c.ids, n,
                                         known, L.label, files->labels)) != GAT_OK)
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
    gat_i_gf_features_free(&F);
    gat_i_gf_labels_free(&L);
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
