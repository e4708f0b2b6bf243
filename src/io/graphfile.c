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

static const char *const format_names[] = {"auto", "edgelist", "ncol",   "lgl", "graphml",
                                           "gml",  "pajek",    "dimacs", "csv"};
#define N_FORMATS ((int)(sizeof format_names / sizeof *format_names))

const char *gat_graph_format_name(gat_graph_format fmt)
{
    return (int)fmt >= 0 && (int)fmt < N_FORMATS ? format_names[fmt] : NULL;
}

gat_status gat_graph_format_from_name(const char *name, gat_graph_format *fmt)
{
    static const int values[N_FORMATS] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
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

/* The format of extension ext (without the dot; case-insensitive), or AUTO if none. */
static gat_graph_format format_of_extension(const char *ext, size_t len)
{
    static const struct {
        const char *ext;
        gat_graph_format fmt;
    } table[] = {{"edgelist", GAT_GRAPH_FORMAT_EDGELIST}, {"edges", GAT_GRAPH_FORMAT_EDGELIST},
                 {"el", GAT_GRAPH_FORMAT_EDGELIST},       {"txt", GAT_GRAPH_FORMAT_EDGELIST},
                 {"tsv", GAT_GRAPH_FORMAT_EDGELIST},      {"csv", GAT_GRAPH_FORMAT_CSV},
                 {"ncol", GAT_GRAPH_FORMAT_NCOL},         {"lgl", GAT_GRAPH_FORMAT_LGL},
                 {"graphml", GAT_GRAPH_FORMAT_GRAPHML},   {"xml", GAT_GRAPH_FORMAT_GRAPHML},
                 {"gml", GAT_GRAPH_FORMAT_GML},           {"net", GAT_GRAPH_FORMAT_PAJEK},
                 {"paj", GAT_GRAPH_FORMAT_PAJEK},         {"pajek", GAT_GRAPH_FORMAT_PAJEK},
                 {"dimacs", GAT_GRAPH_FORMAT_DIMACS},     {"max", GAT_GRAPH_FORMAT_DIMACS},
                 {"col", GAT_GRAPH_FORMAT_DIMACS}};
    for (size_t k = 0; k < sizeof table / sizeof *table; k++)
        if (strlen(table[k].ext) == len && strncasecmp(ext, table[k].ext, len) == 0)
            return table[k].fmt;
    return GAT_GRAPH_FORMAT_AUTO;
}

gat_status gat_graph_format_from_path(const char *path, gat_graph_format *fmt)
{
    gat_i_clear_error();
    if (!path || !fmt) return gat_i_error(GAT_EINVAL, "gat_graph_format_from_path: NULL argument");
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    gat_graph_format f =
        dot ? format_of_extension(dot + 1, strlen(dot + 1)) : GAT_GRAPH_FORMAT_AUTO;
    if (dot && dot > base && !strcasecmp(dot + 1, "gz")) {
        /* NAME.EXT.gz: the edge tables, which libgat reads, inflate; igraph's formats do not */
        const char *prev = dot - 1;
        while (prev > base && *prev != '.')
            prev--;
        if (*prev == '.') f = format_of_extension(prev + 1, (size_t)(dot - prev - 1));
        if (f != GAT_GRAPH_FORMAT_EDGELIST && f != GAT_GRAPH_FORMAT_NCOL &&
            f != GAT_GRAPH_FORMAT_CSV && f != GAT_GRAPH_FORMAT_AUTO)
            return gat_i_error(GAT_EINVAL,
                               "%s: igraph reads %s files uncompressed: gunzip it first (edge "
                               "lists, ncol and csv files may be gzipped)",
                               path, format_names[f]);
    }
    if (f != GAT_GRAPH_FORMAT_AUTO) {
        *fmt = f;
        return GAT_OK;
    }
    return gat_i_error(GAT_EINVAL,
                       "cannot tell the graph format of %s from its extension; name "
                       "it (edgelist, ncol, csv, lgl, graphml, gml, pajek or dimacs)",
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
    for (gat_idx k = 0; c->vnames && k < c->n_vnames; k++)
        gat_free(c->vnames[k]);
    gat_free(c->vnames);
    gat_free(c->vtype);
    gat_free(c->vrow);
    for (int64_t v = 0; c->vlabel && v < c->n; v++)
        gat_free(c->vlabel[v]);
    gat_free(c->vlabel);
    c->vnames = NULL;
    c->vtype = NULL;
    c->vrow = NULL;
    c->vlabel = NULL;
    c->src = c->dst = NULL;
    c->ids = NULL;
    c->etype = NULL;
    c->erow = NULL;
    c->crow = NULL;
}

static igraph_error_t read_format(read_ctx *c, igraph_t *g)
{
    igraph_error_t rc;
    switch (c->fmt) {
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
    default: /* AUTO is resolved first; the edge tables are graphfile_edges.c's */
        break;
    }
    return IGRAPH_UNIMPLEMENTED; /* not reached */
}

/* d as the text of an id or a label: integers without a decimal point. */
static void number_text(char *buf, size_t size, double d)
{
    snprintf(buf, size, d == floor(d) && fabs(d) < 1e15 ? "%.0f" : "%.17g", d);
}

/* Whether every vertex of g has a distinct non-empty string attribute "label" (GML files from
 * networkx keep the node names there, their ids being 0, 1, ...). */
static igraph_error_t gml_labels_name(const igraph_t *g, int64_t n, int *yes)
{
    gat_i_strmap seen = {0};
    char **label = gat_malloc((size_t)n + 1, sizeof *label);
    *yes = 0;
    if (!label || gat_i_strmap_init(&seen, (size_t)n) != GAT_OK) {
        gat_free(label);
        gat_i_strmap_free(&seen);
        return IGRAPH_ENOMEM;
    }
    *yes = 1;
    for (int64_t v = 0; v < n && *yes; v++) {
        label[v] = (char *)igraph_cattribute_VAS(g, "label", (igraph_integer_t)v);
        gat_idx *slot = gat_i_strmap_slot(&seen, label, label[v] ? label[v] : "");
        *yes = label[v] && label[v][0] && *slot < 0;
        *slot = (gat_idx)v;
    }
    gat_free(label);
    gat_i_strmap_free(&seen);
    return IGRAPH_SUCCESS;
}

/* c->ids from the "name" attribute, in GML files "label" (when distinct: gml_labels_name), else
 * "id", or the vertex numbers (1-based where the file counts so). */
static igraph_error_t extract_ids(read_ctx *c, const igraph_t *g)
{
    static const char *const names[3] = {"name", "label", "id"};
    const char *attr = NULL;
    int types[3], type = -1, distinct = 0;
    igraph_error_t rc = gat_i_igraph_vertex_attr_types(g, names, 3, types);
    if (rc != IGRAPH_SUCCESS) return rc;
    if (c->fmt == GAT_GRAPH_FORMAT_GML && types[1] == IGRAPH_ATTRIBUTE_STRING &&
        (rc = gml_labels_name(g, c->n, &distinct)) != IGRAPH_SUCCESS)
        return rc;
    if (!distinct) types[1] = -1;
    for (int k = 2; k >= 0; k--) /* "name" wins over "label", "label" over "id" */
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
            number_text(num, sizeof num,
                        (double)igraph_cattribute_VAN(g, attr, (igraph_integer_t)v));
        } else {
            snprintf(num, sizeof num, "%lld", (long long)(v + base));
        }
        if (!(c->ids[v] = gat_strdup(s ? s : ""))) return IGRAPH_ENOMEM;
    }
    return IGRAPH_SUCCESS;
}

/* The feature attributes (c->vnames: those named, or every numeric one but the label attribute
 * and "id") and their values, and the label attribute's values as strings (c->vlabel: a
 * missing, NaN or negative number or an empty string is no label). */
static igraph_error_t vertex_attributes(read_ctx *c, const igraph_t *g)
{
    igraph_error_t rc = IGRAPH_SUCCESS;
    if (c->n_vattr < 0) {
        const char *skip[2] = {c->label_attr, "id"};
        rc = gat_i_igraph_numeric_vertex_attrs(g, skip, 2, &c->vnames, &c->n_vnames);
    } else if (c->n_vattr > 0) {
        if (!(c->vnames = gat_calloc((size_t)c->n_vattr, sizeof *c->vnames))) return IGRAPH_ENOMEM;
        for (; c->n_vnames < c->n_vattr; c->n_vnames++)
            if (!(c->vnames[c->n_vnames] = gat_strdup(c->vattr[c->n_vnames]))) return IGRAPH_ENOMEM;
    }
    if (rc != IGRAPH_SUCCESS) return rc;
    if (c->n_vnames > 0) {
        if (!(c->vtype = gat_malloc((size_t)c->n_vnames, sizeof *c->vtype)) ||
            !(c->vrow = gat_malloc((size_t)c->n, (size_t)c->n_vnames * sizeof *c->vrow)))
            return IGRAPH_ENOMEM;
        rc = gat_i_igraph_vertex_attrs(g, (const char *const *)c->vnames, c->n_vnames, c->vtype,
                                       c->vrow);
        if (rc != IGRAPH_SUCCESS) return rc;
    }
    if (!c->label_attr) return IGRAPH_SUCCESS;
    if ((rc = gat_i_igraph_vertex_attr_types(g, &c->label_attr, 1, &c->label_type)) !=
        IGRAPH_SUCCESS)
        return rc;
    const int str = c->label_type == IGRAPH_ATTRIBUTE_STRING;
    if (!str && c->label_type != IGRAPH_ATTRIBUTE_NUMERIC) return IGRAPH_SUCCESS;
    if (!(c->vlabel = gat_calloc((size_t)c->n + 1, sizeof *c->vlabel))) return IGRAPH_ENOMEM;
    for (int64_t v = 0; v < c->n; v++) {
        char num[40];
        const char *s = num;
        if (str) {
            s = igraph_cattribute_VAS(g, c->label_attr, (igraph_integer_t)v);
        } else {
            const double y = (double)igraph_cattribute_VAN(g, c->label_attr, (igraph_integer_t)v);
            if (!(y >= 0) || isinf(y)) continue;
            number_text(num, sizeof num, y);
        }
        if (s && s[0] && !(c->vlabel[v] = gat_strdup(s))) return IGRAPH_ENOMEM;
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
        if (rc == IGRAPH_SUCCESS) rc = vertex_attributes(c, &g);
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

/* Reads the graph file into c through igraph (inputs set; results owned by c). */
static gat_status read_graph(read_ctx *c, const char *path)
{
    char what[600];
    gat_status st;
    errno = 0;
    if (!(c->f = fopen(path, "rb")))
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
    c->named = c->fmt == GAT_GRAPH_FORMAT_LGL;
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

/* Whether fmt is an edge table, which libgat reads itself (graphfile_edges.c). */
static int edge_table(gat_graph_format fmt)
{
    return fmt == GAT_GRAPH_FORMAT_EDGELIST || fmt == GAT_GRAPH_FORMAT_NCOL ||
           fmt == GAT_GRAPH_FORMAT_CSV;
}

static gat_status check_files(const gat_dataset_files *files, gat_graph_format *fmt)
{
    static const char fn[] = "gat_dataset_read";
    if (!files || !files->graph || !files->graph[0])
        return gat_i_error(GAT_EINVAL, "%s: NULL files or graph path", fn);
    if ((int)files->format < 0 || (int)files->format >= N_FORMATS)
        return gat_i_error(GAT_EINVAL, "%s: unknown graph format %d", fn, (int)files->format);
    if (files->n_feature_attributes < GAT_ALL_ATTRIBUTES ||
        (files->n_feature_attributes > 0 && !files->feature_attributes))
        return gat_i_error(GAT_EINVAL, "%s: %d feature attributes%s", fn,
                           files->n_feature_attributes,
                           files->n_feature_attributes > 0 ? " but NULL names" : "");
    for (gat_idx k = 0; k < files->n_feature_attributes; k++)
        if (!files->feature_attributes[k])
            return gat_i_error(GAT_EINVAL, "%s: feature_attributes[%d] is NULL", fn, k);
    if (files->features && files->n_feature_attributes != 0)
        return gat_i_error(GAT_EINVAL, "%s: a features file and feature attributes both given", fn);
    if (files->labels && files->label_attribute)
        return gat_i_error(GAT_EINVAL, "%s: a labels file and a label attribute both given", fn);
    *fmt = files->format;
    gat_status st =
        *fmt == GAT_GRAPH_FORMAT_AUTO ? gat_graph_format_from_path(files->graph, fmt) : GAT_OK;
    if (st == GAT_OK && edge_table(*fmt) &&
        (files->n_feature_attributes != 0 || files->label_attribute))
        return gat_i_error(GAT_EINVAL,
                           "%s: %s files have no vertex attributes to read features or labels "
                           "from (GraphML and GML files have): give a features or labels file",
                           files->graph, format_names[*fmt]);
    return st;
}

/* Features and labels from the vertex attributes c read (files->feature_attributes and
 * label_attribute): x (uninitialised) and L (zeroed). */
static gat_status attribute_tables(const read_ctx *c, const gat_dataset_files *files, gat_csr *x,
                                   labels *L)
{
    const char *path = files->graph;
    gat_status st;
    for (gat_idx k = 0; k < c->n_vnames; k++)
        if (c->vtype[k] != IGRAPH_ATTRIBUTE_NUMERIC)
            return gat_i_error(GAT_EINVAL, "%s: vertex attribute '%s' %s", path, c->vnames[k],
                               c->vtype[k] < 0 ? "does not exist" : "is not numeric");
    if (c->label_attr && c->label_type != IGRAPH_ATTRIBUTE_NUMERIC &&
        c->label_type != IGRAPH_ATTRIBUTE_STRING)
        return gat_i_error(GAT_EINVAL, "%s: vertex attribute '%s' %s", path, c->label_attr,
                           c->label_type < 0 ? "does not exist"
                                             : "is neither a number nor a string");
    if (files->n_feature_attributes != 0 &&
        (st = c->n_vnames > 0 ? gat_i_dense_to_csr(x, (gat_idx)c->n, c->n_vnames, c->vrow, path,
                                                   (const char *const *)c->vnames)
                              : gat_csr_identity(x, (gat_idx)c->n)) != GAT_OK)
        return st;
    if (!c->label_attr) return GAT_OK;
    if ((st = gat_i_gf_label_classes(L, c->vlabel, (gat_idx)c->n)) != GAT_OK) return st;
    if (L->n_classes == 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: vertex attribute '%s' gives no vertex a class (every value is "
                           "missing, negative or empty)",
                           path, c->label_attr);
    return GAT_OK;
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
    c.vattr = files->feature_attributes;
    c.n_vattr = files->n_feature_attributes;
    c.label_attr = files->label_attribute;
    c.label_type = -1;
    if (edge_table(c.fmt))
        st = gat_i_gf_read_edges(&c, files->features ? &F : NULL, files->graph);
    else if ((st = gat_i_gf_check_counts(&c, files->features ? &F : NULL, files->graph)) == GAT_OK)
        st = read_graph(&c, files->graph);
    if (st != GAT_OK) goto cleanup;
    const int named = c.named && files->features;
    if ((st = map_ids(&nodes, &c, named ? &F : NULL, files->graph)) != GAT_OK ||
        (named && (st = order_by_features(&c, &nodes, &F)) != GAT_OK))
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
    if (c.n_eattr > 0 && !edge_table(c.fmt) &&
        (st = edge_features(&c, &g, gflags, opt, files->graph, &erows)) != GAT_OK)
        goto cleanup;
    /* the columns of edge k are line k's: igraph keeps the file's order */
    if (c.n_cols > 0 &&
        (st = rows_per_edge(&c, &g, gflags, opt, c.crow, c.n_cols, &erows)) != GAT_OK)
        goto cleanup;
    if ((st = attribute_tables(&c, files, &x, &L)) != GAT_OK) goto cleanup;
    st = files->features ? gat_i_gf_features_by_node(&x, &F, &nodes, c.ids, n, files->graph)
         : files->n_feature_attributes == 0 ? gat_csr_identity(&x, n)
                                            : GAT_OK;
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
    parts.n_edge_features = !erows ? 0 : edge_table(c.fmt) ? c.n_cols : c.n_eattr;
    st = gat_i_dataset_from_parts(ds, &parts, opt, "gat_dataset_read",
                                  files->labels ? files->labels : files->graph, files->features);
    if (st == GAT_OK &&
        (st = gat_i_dataset_finish(ds, opt, ds->n_splits == 0, "gat_dataset_read")) != GAT_OK)
        gat_dataset_destroy(ds);
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
