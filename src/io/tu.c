/* The TU graph-classification format (tu.h): the files of a set read as comma-separated tables,
 * checked against each other (graph indicator sorted and contiguous, edges inside one graph, one
 * line per node / graph / edge), and handed to gat_dataset_from_parts as the disjoint union of the
 * graphs; also the fixed folds of benchmarking-gnns (gat_dataset_read_graph_folds). */
#include "io/tu.h"
#include "core/core.h"
#include "data/data_i.h"
#include "io/text.h"

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

/* Room for a path built from the caller's (longer paths are not TU prefixes). */
#define PATH_BUF 4096

/* Integers are kept in doubles: exact up to 2^53, far past any id or label of a real set. */
#define INT_LIMIT 9007199254740992.0

/* A file's values: rows lines of width values each, and the file line of each row. */
typedef struct table {
    double *v;  /* (rows, width) */
    long *line; /* (rows) 1-based line in the file */
    size_t rows, width, cap;
} table;

typedef struct reader {
    char prefix[PATH_BUF];
    char path[PATH_BUF]; /* the file in t */
    gat_i_text t;
    size_t max_line; /* gat_dataset_options.max_line (0: the default) */
} reader;

static void table_free(table *tb)
{
    gat_free(tb->v);
    gat_free(tb->line);
    memset(tb, 0, sizeof *tb);
}

/* ---- Paths ------------------------------------------------------------------------------- */

static int is_regular(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* prefix + "_" + part + ext, else + ext + ".gz", into buf: 1 when one of them is a file (buf
 * names it; the plain one first, as for .content), else 0 (buf names the plain one). */
static int part_path(const char *prefix, const char *part, const char *ext, char *buf, size_t size)
{
    const int w = snprintf(buf, size, "%s_%s%s", prefix, part, ext);
    if (w < 0 || (size_t)w >= size) return 0;
    if (is_regular(buf)) return 1;
    if ((size_t)w + sizeof ".gz" > size) return 0; /* no room for the .gz name */
    memcpy(buf + w, ".gz", sizeof ".gz");
    if (is_regular(buf)) return 1;
    buf[w] = '\0';
    return 0;
}

int gat_i_tu_is(const char *path)
{
    char prefix[PATH_BUF], p[PATH_BUF];
    struct stat sb;
    if (!gat_i_path_prefix(path, "", prefix, sizeof prefix) ||
        !part_path(prefix, "A", ".txt", p, sizeof p))
        return 0;
    /* a directory names its set by A alone; a prefix needs the indicator too */
    return (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) ||
           part_path(prefix, "graph_indicator", ".txt", p, sizeof p);
}

/* Loads prefix_part.txt[.gz] into R->t. *present (may be NULL when required): 0 when the
 * optional file is absent. */
static gat_status open_part(reader *R, const char *part, const char *ext, int *present)
{
    int errnum = 0;
    gat_i_text_free(&R->t);
    const int found = part_path(R->prefix, part, ext, R->path, sizeof R->path);
    if (present) *present = found;
    if (!found) {
        if (present) return GAT_OK;
        return gat_i_error(GAT_EIO, "cannot open %s (nor %s.gz): no such file", R->path, R->path);
    }
    return gat_i_text_load(&R->t, R->path, R->max_line, &errnum);
}

/* ---- Lines ------------------------------------------------------------------------------- */

/* Parses the current line of R->t as comma-separated numbers (integers when integer) appended
 * to tb->v; *count: how many. Spaces may surround the commas. */
static gat_status parse_line(reader *R, int integer, table *tb, size_t *count)
{
    gat_i_text *t = &R->t;
    int want = 1;
    *count = 0;
    for (size_t k = 0; k < t->n_fields; k++) {
        char *p = t->field[k];
        while (*p) {
            const long col = (long)(p - t->start) + 1;
            if (*p == ',') {
                if (want)
                    return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: empty value before ','", R->path,
                                       t->line, col);
                want = 1;
                p++;
                continue;
            }
            if (!want)
                return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: expected ',' between values", R->path,
                                   t->line, col);
            char *q = p + strcspn(p, ","), *end;
            const char c = *q;
            double d;
            int ok;
            *q = '\0';
            errno = 0;
            if (integer) {
                const long long v = strtoll(p, &end, 10);
                ok = end != p && !*end && errno == 0 && fabs((double)v) <= INT_LIMIT;
                d = (double)v;
            } else {
                d = strtod(p, &end);
                ok = end != p && !*end;
            }
            if (!ok) {
                gat_status st =
                    gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: '%s' is not %s", R->path, t->line, col, p,
                                integer ? "an integer (within +-2^53)" : "a number");
                *q = c;
                return st;
            }
            if (!(fabs(d) <= REAL_MAX)) { /* NaN, Inf, or past the range of gat_real */
                gat_status st =
                    gat_i_error(GAT_ENUMERIC, "%s:%ld:%ld: value '%s' is not finite as a gat_real",
                                R->path, t->line, col, p);
                *q = c;
                return st;
            }
            *q = c;
            if (tb->rows * tb->width + *count + 1 > tb->cap) {
                const size_t cap = gat_i_next_cap(tb->cap, tb->rows * tb->width + *count + 1);
                double *v = gat_realloc(tb->v, cap, sizeof *v);
                if (!v) return GAT_ENOMEM;
                tb->v = v;
                tb->cap = cap;
            }
            tb->v[tb->rows * tb->width + (*count)++] = d;
            want = 0;
            p = q;
        }
    }
    if (want && *count > 0)
        return gat_i_error(GAT_EFORMAT, "%s:%ld: the line ends with ','", R->path, t->line);
    return GAT_OK;
}

/* Reads the whole open file as a table: width values on every line (width 0: as many as on the
 * first line). tb: zeroed. */
static gat_status read_table(reader *R, int integer, size_t width, table *tb)
{
    gat_i_text *t = &R->t;
    size_t cap_lines = 0;
    gat_status st;
    tb->width = width;
    for (;;) {
        size_t count;
        if ((st = gat_i_text_next(t)) != GAT_OK) return st;
        if (t->n_fields == 0) return GAT_OK;
        if ((st = parse_line(R, integer, tb, &count)) != GAT_OK) return st;
        if (tb->rows == 0 && tb->width == 0) tb->width = count;
        if (count != tb->width || count == 0)
            return gat_i_error(GAT_EFORMAT, "%s:%ld: %zu values, expected %zu%s", R->path, t->line,
                               count, tb->width, width ? "" : " (as on the first line)");
        if (tb->rows == cap_lines) {
            const size_t cap = gat_i_next_cap(cap_lines, tb->rows + 1);
            long *l = gat_realloc(tb->line, cap, sizeof *l);
            if (!l) return GAT_ENOMEM;
            tb->line = l;
            cap_lines = cap;
        }
        tb->line[tb->rows++] = t->line;
    }
}

/* Opens and reads prefix_part.txt as a table (see read_table); *present as in open_part. A
 * table that is present must have `rows` rows, one per `one` (`of` says where they are counted),
 * else a count mismatch naming both numbers. */
static gat_status read_part(reader *R, const char *part, int integer, size_t width, table *tb,
                            int *present, size_t rows, const char *one, const char *of)
{
    gat_status st;
    if ((st = open_part(R, part, ".txt", present)) != GAT_OK) return st;
    if (present && !*present) return GAT_OK;
    if ((st = read_table(R, integer, width, tb)) != GAT_OK) return st;
    if (tb->rows != rows)
        return gat_i_error(GAT_EFORMAT,
                           "%s: %zu lines, but %s has %zu %ss: expected one line per %s", R->path,
                           tb->rows, of, rows, one, one);
    return GAT_OK;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Classes of count integer values v: the distinct values in ascending order. *cls (count) the
 * class of each, *n_cls the number; *names (optional) their decimals. */
static gat_status classes_of(const double *v, size_t count, gat_idx **cls, gat_idx *n_cls,
                             char ***names)
{
    double *u = gat_malloc(count ? count : 1, sizeof *u);
    size_t k = 0;
    gat_status st = GAT_OK;
    if (!u || !(*cls = gat_malloc(count ? count : 1, sizeof **cls))) {
        gat_free(u);
        return GAT_ENOMEM;
    }
    if (count) memcpy(u, v, count * sizeof *u); /* v may be NULL when count is 0 */
    qsort(u, count, sizeof *u, cmp_double);
    for (size_t i = 0; i < count; i++)
        if (k == 0 || u[i] != u[k - 1]) u[k++] = u[i];
    for (size_t i = 0; i < count; i++) {
        size_t lo = 0, hi = k; /* the position of v[i] in u */
        while (hi - lo > 1) {
            const size_t mid = lo + (hi - lo) / 2;
            if (u[mid] <= v[i])
                lo = mid;
            else
                hi = mid;
        }
        (*cls)[i] = (gat_idx)lo;
    }
    *n_cls = (gat_idx)k;
    if (names) {
        if (!(*names = gat_calloc(k ? k : 1, sizeof **names))) st = GAT_ENOMEM;
        for (size_t c = 0; st == GAT_OK && c < k; c++) {
            char num[32];
            snprintf(num, sizeof num, "%lld", (long long)u[c]);
            if (!((*names)[c] = gat_strdup(num))) st = GAT_ENOMEM;
        }
    }
    gat_free(u);
    return st;
}

/* ---- The dataset ------------------------------------------------------------------------- */

/* Graph ids of the indicator (tb, n rows): graph_of (n) 0-based, ptr (G+1). */
static gat_status check_indicator(const reader *R, const table *tb, gat_idx *graph_of, gat_idx *ptr,
                                  gat_idx *G)
{
    double cur = 0;
    *G = 0;
    for (size_t i = 0; i < tb->rows; i++) {
        const double v = tb->v[i];
        if (i == 0 && v != 1)
            return gat_i_error(GAT_EFORMAT,
                               "%s:%ld: the first graph id is %lld, expected 1 "
                               "(graph ids are 1-based)",
                               R->path, tb->line[i], (long long)v);
        if (v < cur)
            return gat_i_error(GAT_EFORMAT,
                               "%s:%ld: graph id %lld after graph id %lld: the graph "
                               "indicator must be sorted (the nodes of each graph together, "
                               "graphs in ascending order)",
                               R->path, tb->line[i], (long long)v, (long long)cur);
        if (v > cur + 1)
            return gat_i_error(GAT_EFORMAT,
                               "%s:%ld: graph id %lld follows graph id %lld: graph "
                               "ids must be contiguous (graph %lld has no nodes)",
                               R->path, tb->line[i], (long long)v, (long long)cur,
                               (long long)cur + 1);
        if (v > cur) ptr[(*G)++] = (gat_idx)i;
        cur = v;
        graph_of[i] = *G - 1;
    }
    ptr[*G] = (gat_idx)tb->rows;
    return GAT_OK;
}

/* Edges of A (tb, m rows of 2) as 0-based src -> dst, checked against the n nodes and their
 * graphs; `ind` names the indicator file. */
static gat_status check_edges(const reader *R, const table *tb, gat_idx n, const gat_idx *graph_of,
                              const char *ind, gat_idx *src, gat_idx *dst)
{
    for (size_t e = 0; e < tb->rows; e++) {
        for (int k = 0; k < 2; k++) {
            const double v = tb->v[2 * e + (size_t)k];
            if (v < 1 || v > n)
                return gat_i_error(GAT_EFORMAT,
                                   "%s:%ld: node id %lld outside 1..%d (the nodes "
                                   "of %s)",
                                   R->path, tb->line[e], (long long)v, n, ind);
        }
        src[e] = (gat_idx)tb->v[2 * e] - 1;
        dst[e] = (gat_idx)tb->v[2 * e + 1] - 1;
        if (graph_of[src[e]] != graph_of[dst[e]])
            return gat_i_error(GAT_EFORMAT,
                               "%s:%ld: edge %d, %d joins graph %d and graph %d (of "
                               "%s): no edge may join two graphs",
                               R->path, tb->line[e], src[e] + 1, dst[e] + 1, graph_of[src[e]] + 1,
                               graph_of[dst[e]] + 1, ind);
    }
    return GAT_OK;
}

/* The node features: one-hot of the node label classes (L columns; lab NULL when L == 0), then
 * the attributes at (n, attr->width), as mode (GAT_TU_FEATURES_*) keeps them; a constant 1 when
 * nothing is kept. */
static gat_status node_features(gat_csr *x, gat_idx n, const gat_idx *lab, gat_idx L,
                                const table *attr, int mode)
{
    const size_t W = attr->width;
    size_t D = W;
    if (mode == GAT_TU_FEATURES_LABELS) D = 0;
    if (mode == GAT_TU_FEATURES_ATTRIBUTES && W > 0) L = 0;
    const gat_idx F = L + (gat_idx)D > 0 ? L + (gat_idx)D : 1;
    size_t nnz = 0;
    gat_status st;
    for (gat_idx i = 0; i < n; i++)
        for (size_t d = 0; d < D; d++)
            nnz += attr->v[(size_t)i * W + d] != 0;
    nnz += L > 0 || D == 0 ? (size_t)n : 0;
    if ((st = gat_csr_init(x, n, F, nnz)) != GAT_OK) return st;
    size_t p = 0;
    for (gat_idx i = 0; i < n; i++) {
        x->rowptr[i] = (gat_idx)p;
        if (L > 0 || D == 0) {
            x->col[p] = L > 0 ? lab[i] : 0;
            x->val[p++] = 1;
        }
        for (size_t d = 0; d < D; d++) {
            const double v = attr->v[(size_t)i * W + d];
            if (v == 0) continue;
            x->col[p] = L + (gat_idx)d;
            x->val[p++] = (gat_real)v;
        }
    }
    x->rowptr[n] = (gat_idx)p;
    return GAT_OK;
}

/* The optional node files of the n nodes of the indicator ind_path: node_labels (into *lab, their
 * classes *cls, *L of them; none when absent) and node_attributes (*attr). */
static gat_status read_node_files(reader *R, gat_idx n, const char *ind_path, table *lab,
                                  gat_idx **cls, gat_idx *L, table *attr)
{
    int present;
    gat_status st;
    if ((st = read_part(R, "node_labels", 1, 1, lab, &present, (size_t)n, "node", ind_path)) !=
            GAT_OK ||
        (present && (st = classes_of(lab->v, lab->rows, cls, L, NULL)) != GAT_OK))
        return st;
    return read_part(R, "node_attributes", 0, 0, attr, &present, (size_t)n, "node", ind_path);
}

/* The same for the m edges of A_path: edge_labels and edge_attributes. */
static gat_status read_edge_files(reader *R, size_t m, const char *A_path, table *lab,
                                  gat_idx **cls, gat_idx *L, table *attr)
{
    int present;
    gat_status st;
    if ((st = read_part(R, "edge_labels", 1, 1, lab, &present, m, "edge", A_path)) != GAT_OK ||
        (present && (st = classes_of(lab->v, lab->rows, cls, L, NULL)) != GAT_OK))
        return st;
    return read_part(R, "edge_attributes", 0, 0, attr, &present, m, "edge", A_path);
}

/* The edge features of g from its m input edges src -> dst (gat_i_edge_rows' rows, *rows): the
 * one-hot of their label classes ecls (Le columns; NULL when Le == 0), then their attributes;
 * *rows left NULL when there is neither. */
static gat_status edge_features(const gat_graph *g, size_t m, const gat_idx *src,
                                const gat_idx *dst, const gat_idx *ecls, gat_idx Le,
                                const table *eattr, const gat_dataset_options *opt, gat_real **rows)
{
    const gat_idx De = Le + (gat_idx)eattr->width;
    if (De == 0) return GAT_OK;
    gat_real *raw = gat_calloc(m ? m * (size_t)De : 1, sizeof *raw);
    if (!raw) return GAT_ENOMEM;
    for (size_t e = 0; e < m; e++) {
        gat_real *row = raw + e * (size_t)De;
        if (Le > 0) row[ecls[e]] = 1;
        for (size_t d = 0; d < eattr->width; d++)
            row[Le + (gat_idx)d] = (gat_real)eattr->v[e * eattr->width + d];
    }
    const gat_status st =
        gat_i_edge_rows(g, m, src, dst, opt->symmetrize, raw, De, opt->self_loop_fill, rows);
    gat_free(raw);
    return st;
}

/* Node ids "1".."n", as the files count them: *ids (n) pointing into *id_buf (n, 12), both the
 * caller's to free (also on failure). */
static gat_status node_ids(gat_idx n, char ***ids, char **id_buf)
{
    *ids = gat_malloc((size_t)n, sizeof **ids);
    *id_buf = gat_malloc((size_t)n, 12);
    if (!*ids || !*id_buf) return GAT_ENOMEM;
    for (gat_idx i = 0; i < n; i++) {
        (*ids)[i] = *id_buf + (size_t)i * 12;
        snprintf((*ids)[i], 12, "%d", i + 1);
    }
    return GAT_OK;
}

gat_status gat_i_tu_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt)
{
    reader R = {.max_line = opt->max_line};
    table ind = {0}, glab = {0}, A = {0}, nlab = {0}, nattr = {0}, elab = {0}, eattr = {0};
    gat_idx *graph_of = NULL, *ptr = NULL, *gcls = NULL, *ncls = NULL, *ecls = NULL;
    gat_idx *src = NULL, *dst = NULL, *edge_input = NULL;
    gat_idx G = 0, n_gcls = 0, L = 0, Le = 0;
    char **gnames = NULL, **ids = NULL, *id_buf = NULL, ind_path[PATH_BUF], what[PATH_BUF + 32];
    gat_real *erows = NULL;
    gat_graph g = {0};
    gat_csr x = {0};
    gat_status st;

    if (!gat_i_path_prefix(path, "", R.prefix, sizeof R.prefix))
        return gat_i_error(GAT_EIO, "gat_dataset_load: the path '%.64s...' is too long", path);
    /* graph_indicator: the nodes and their graphs */
    if ((st = open_part(&R, "graph_indicator", ".txt", NULL)) != GAT_OK ||
        (st = read_table(&R, 1, 1, &ind)) != GAT_OK)
        goto cleanup;
    memcpy(ind_path, R.path, sizeof ind_path);
    if (ind.rows == 0) {
        st = gat_i_error(GAT_EFORMAT, "%s: empty file: expected one graph id per node", R.path);
        goto cleanup;
    }
    if (ind.rows >= INT32_MAX) {
        st = gat_i_error(GAT_EFORMAT, "%s: %zu nodes exceed the index type", R.path, ind.rows);
        goto cleanup;
    }
    const gat_idx n = (gat_idx)ind.rows;
    graph_of = gat_malloc((size_t)n, sizeof *graph_of);
    ptr = gat_malloc((size_t)n + 1, sizeof *ptr);
    st = !graph_of || !ptr ? GAT_ENOMEM : check_indicator(&R, &ind, graph_of, ptr, &G);
    if (st != GAT_OK) goto cleanup;

    /* graph_labels: one per graph */
    if ((st = read_part(&R, "graph_labels", 1, 1, &glab, NULL, (size_t)G, "graph", ind_path)) !=
            GAT_OK ||
        (st = classes_of(glab.v, glab.rows, &gcls, &n_gcls, &gnames)) != GAT_OK)
        goto cleanup;

    /* A: the edges, each inside one graph */
    if ((st = open_part(&R, "A", ".txt", NULL)) != GAT_OK ||
        (st = read_table(&R, 1, 2, &A)) != GAT_OK)
        goto cleanup;
    const size_t m = A.rows;
    char A_path[PATH_BUF];
    memcpy(A_path, R.path, sizeof A_path);
    src = gat_malloc(m ? m : 1, sizeof *src);
    dst = gat_malloc(m ? m : 1, sizeof *dst);
    st = !src || !dst ? GAT_ENOMEM : check_edges(&R, &A, n, graph_of, ind_path, src, dst);
    if (st != GAT_OK) goto cleanup;

    /* the optional node and edge files */
    if ((st = read_node_files(&R, n, ind_path, &nlab, &ncls, &L, &nattr)) != GAT_OK ||
        (st = read_edge_files(&R, m, A_path, &elab, &ecls, &Le, &eattr)) != GAT_OK)
        goto cleanup;
    gat_i_text_free(&R.t);

    if ((st = node_features(&x, n, ncls, L, &nattr, opt->tu_features)) != GAT_OK) goto cleanup;

    /* the graph and its edge features */
    const unsigned flags = opt->symmetrize ? GAT_GRAPH_SYMMETRIZE : 0;
    if (!(edge_input = gat_malloc(GAT_GRAPH_MAX_EDGES(n, m, flags), sizeof *edge_input))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_graph_from_edges_mapped(&g, n, m, src, dst, flags, edge_input)) != GAT_OK)
        goto cleanup;
    const gat_idx De = Le + (gat_idx)eattr.width;
    if ((st = edge_features(&g, m, src, dst, ecls, Le, &eattr, opt, &erows)) != GAT_OK ||
        (st = node_ids(n, &ids, &id_buf)) != GAT_OK)
        goto cleanup;

    const gat_dataset_parts parts = {.graph = &g,
                                     .features = &x,
                                     .node_ids = (const char *const *)ids,
                                     .edge_features = erows,
                                     .n_edge_features = De,
                                     .edge_input = edge_input,
                                     .n_graphs = G,
                                     .graph_ptr = ptr,
                                     .graph_labels = gcls,
                                     .n_graph_classes = n_gcls,
                                     .graph_class_names = (const char *const *)gnames};
    snprintf(what, sizeof what, "the node features of %s", R.prefix);
    st = gat_i_dataset_from_parts(ds, &parts, opt, "gat_dataset_load", what, what);
cleanup:
    gat_i_text_free(&R.t);
    table_free(&ind);
    table_free(&glab);
    table_free(&A);
    table_free(&nlab);
    table_free(&nattr);
    table_free(&elab);
    table_free(&eattr);
    if (gnames)
        for (gat_idx c = 0; c < n_gcls; c++)
            gat_free(gnames[c]);
    gat_free(gnames);
    gat_free(graph_of);
    gat_free(ptr);
    gat_free(gcls);
    gat_free(ncls);
    gat_free(ecls);
    gat_free(src);
    gat_free(dst);
    gat_free(edge_input);
    gat_free(erows);
    gat_free(ids);
    gat_free(id_buf);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
    return st;
}

/* ---- Fixed folds ------------------------------------------------------------------------- */

gat_status gat_dataset_read_graph_folds(const char *prefix, gat_idx n_graphs, gat_idx fold,
                                        uint8_t *split, gat_idx *n_folds)
{
    static const char *const part[3] = {"train", "val", "test"};
    reader R = {0};
    table tb = {0};
    uint8_t *mark = NULL;
    long lines[3] = {0, 0, 0}, first_line = 0;
    char first[PATH_BUF];
    gat_status st = GAT_OK;

    gat_i_clear_error();
    if (!prefix || !*prefix || !split)
        return gat_i_error(GAT_EINVAL, "gat_dataset_read_graph_folds: NULL or empty prefix, or "
                                       "NULL split");
    if (n_graphs <= 0 || fold < 0)
        return gat_i_error(GAT_EINVAL,
                           "gat_dataset_read_graph_folds: n_graphs = %d and fold = "
                           "%d, expected n_graphs > 0 and fold >= 0",
                           n_graphs, fold);
    if (snprintf(R.prefix, sizeof R.prefix, "%s", prefix) >= (int)sizeof R.prefix)
        return gat_i_error(GAT_EIO, "gat_dataset_read_graph_folds: the prefix is too long");
    if (!(mark = gat_calloc((size_t)n_graphs, sizeof *mark))) return GAT_ENOMEM;
    for (int p = 0; p < 3; p++) {
        size_t count;
        if ((st = open_part(&R, part[p], ".index", NULL)) != GAT_OK) goto cleanup;
        for (;;) { /* every line is read: the files must agree on the number of folds */
            if ((st = gat_i_text_next(&R.t)) != GAT_OK) goto cleanup;
            if (R.t.n_fields == 0) break;
            if (lines[p]++ != fold) continue;
            tb.rows = tb.width = 0;
            if ((st = parse_line(&R, 1, &tb, &count)) != GAT_OK) goto cleanup;
            for (size_t k = 0; k < count; k++) {
                const double v = tb.v[k];
                if (v < 0 || v >= n_graphs) {
                    st = gat_i_error(GAT_EFORMAT,
                                     "%s:%ld: graph index %lld outside 0..%d (the "
                                     "indices are 0-based)",
                                     R.path, R.t.line, (long long)v, n_graphs - 1);
                    goto cleanup;
                }
                if (mark[(gat_idx)v]) {
                    st = gat_i_error(GAT_EFORMAT,
                                     "%s:%ld: graph %lld is already in the %s part "
                                     "of fold %d",
                                     R.path, R.t.line, (long long)v, part[mark[(gat_idx)v] - 1],
                                     fold);
                    goto cleanup;
                }
                mark[(gat_idx)v] = (uint8_t)(p + 1);
            }
        }
        if (p == 0) {
            memcpy(first, R.path, sizeof first);
            first_line = lines[0];
        } else if (lines[p] != first_line) {
            st = gat_i_error(GAT_EFORMAT, "%s: %ld folds (lines), but %s has %ld", R.path, lines[p],
                             first, first_line);
            goto cleanup;
        }
    }
    if (fold >= first_line) {
        st = gat_i_error(GAT_EINVAL,
                         "gat_dataset_read_graph_folds: fold %d outside 0..%ld (the "
                         "folds of %s)",
                         fold, first_line - 1, first);
        goto cleanup;
    }
    for (gat_idx gi = 0; gi < n_graphs; gi++)
        if (!mark[gi]) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s_{train,val,test}.index: graph %d is in no part of "
                             "fold %d",
                             prefix, gi, fold);
            goto cleanup;
        }
    for (gat_idx gi = 0; gi < n_graphs; gi++)
        split[gi] = mark[gi]; /* 1, 2, 3: GAT_SPLIT_TRAIN, _VAL, _TEST */
    if (n_folds) *n_folds = (gat_idx)first_line;
cleanup:
    gat_i_text_free(&R.t);
    table_free(&tb);
    gat_free(mark);
    return st;
}
