/* The Planetoid raw dataset (planetoid.h): the eight ind.NAME.* files through the bounded
 * unpickler (pickle.h), assembled as tkipf/gcn's utils.load_data does (features = vstack(allx, tx)
 * with the test rows moved to their ids, Citeseer's missing test ids padded), then handed to
 * gat_dataset_from_parts. */
#include "io/planetoid.h"
#include "core/core.h"
#include "io/dataset_i.h"
#include "io/pickle.h"
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

/* Room for a path built from the caller's (longer paths are not Planetoid prefixes). */
#define PATH_BUF 4096

/* The validation set of the public split: the VAL_SIZE nodes after the training nodes. */
#define VAL_SIZE 500

enum { P_X, P_Y, P_TX, P_TY, P_ALLX, P_ALLY, P_GRAPH, N_PARTS };
static const char *const part_name[N_PARTS] = {"x", "y", "tx", "ty", "allx", "ally", "graph"};

/* ---- Paths ------------------------------------------------------------------------------- */

/* prefix + "." + part, allocated. */
static char *part_path(const char *prefix, const char *part)
{
    const size_t a = strlen(prefix), b = strlen(part);
    char *s = gat_malloc(a + b + 2, 1);
    if (!s) return NULL;
    memcpy(s, prefix, a);
    s[a] = '.';
    memcpy(s + a + 1, part, b + 1);
    return s;
}

/* Whether prefix.part is a regular file. */
static int part_exists(const char *prefix, const char *part)
{
    char p[PATH_BUF];
    struct stat sb;
    const int w = snprintf(p, sizeof p, "%s.%s", prefix, part);
    return w >= 0 && (size_t)w < sizeof p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

int gat_i_planetoid_is(const char *path)
{
    char prefix[PATH_BUF];
    return gat_i_path_prefix(path, "ind.", prefix, sizeof prefix) && part_exists(prefix, "graph") &&
           part_exists(prefix, "allx");
}

/* ---- Rows of the pickled matrices -------------------------------------------------------- */

typedef struct entry {
    gat_idx col;
    double val;
} entry;

static int by_col(const void *a, const void *b)
{
    const gat_idx x = ((const entry *)a)->col, y = ((const entry *)b)->col;
    return (x > y) - (x < y);
}

/* The non-zeros of row r of m as (column, value), columns ascending and distinct (duplicates
 * summed, as scipy's tolil does) into e (room for the row's stored entries, or cols when dense);
 * *n gets their number. */
static void row_entries(const gat_i_pmatrix *m, int64_t r, entry *e, size_t *n)
{
    size_t k = 0;
    if (!m->sparse) {
        for (int64_t c = 0; c < m->cols; c++) {
            const double v = gat_i_parray_real(&m->dense, (size_t)(r * m->cols + c));
            if (v != 0) e[k++] = (entry){(gat_idx)c, v};
        }
        *n = k;
        return;
    }
    const size_t lo = (size_t)gat_i_parray_int(&m->indptr, (size_t)r);
    const size_t hi = (size_t)gat_i_parray_int(&m->indptr, (size_t)r + 1);
    int sorted = 1;
    for (size_t p = lo; p < hi; p++) {
        e[k] = (entry){(gat_idx)gat_i_parray_int(&m->indices, p), gat_i_parray_real(&m->data, p)};
        if (k && e[k].col <= e[k - 1].col) sorted = 0;
        k++;
    }
    if (!sorted) qsort(e, k, sizeof *e, by_col);
    size_t out = 0;
    for (size_t p = 0; p < k; p++) {
        if (out && e[out - 1].col == e[p].col)
            e[out - 1].val += e[p].val;
        else
            e[out++] = e[p];
    }
    k = out;
    out = 0;
    for (size_t p = 0; p < k; p++) /* explicit zeros (and duplicates that cancel) */
        if (e[p].val != 0) e[out++] = e[p];
    *n = out;
}

/* Most entries one row of m can give (the room row_entries needs). */
static size_t max_row(const gat_i_pmatrix *m)
{
    if (!m->sparse) return (size_t)m->cols;
    size_t most = 0;
    for (int64_t r = 0; r < m->rows; r++) {
        const size_t len = (size_t)(gat_i_parray_int(&m->indptr, (size_t)r + 1) -
                                    gat_i_parray_int(&m->indptr, (size_t)r));
        if (len > most) most = len;
    }
    return most;
}

/* Stored entries of m: an upper bound on its non-zeros. */
static size_t stored(const gat_i_pmatrix *m)
{
    return m->sparse ? m->indices.count : (size_t)(m->rows * m->cols);
}

/* ---- The loader -------------------------------------------------------------------------- */

typedef struct loader {
    char *prefix;
    char *path[N_PARTS + 1]; /* the files; path[N_PARTS]: test.index */
    gat_i_pickle pk[N_PARTS];
    gat_i_pmatrix mat[P_GRAPH]; /* x .. ally */
    gat_idx *test;              /* (T) test.index in file order */
    size_t n_test;
    long *test_line;  /* (T) line of each test id */
    gat_idx n, n_all; /* N nodes; rows of allx */
    int32_t *row_of;  /* (N) row of the node in allx (>= 0), in tx (-2 - k), or -1 (none) */
    entry *buf;       /* room for the longest row */
    gat_csr x;
    gat_idx *labels;
    uint8_t *split;
    gat_idx *src, *dst;
    gat_graph graph;
    char **class_names;
    gat_idx n_classes;
} loader;

static gat_status shape_error(const loader *L, int a, int b, const char *what, int64_t va,
                              int64_t vb)
{
    return gat_i_error(GAT_EFORMAT, "%s has %lld %s but %s has %lld", L->path[a], (long long)va,
                       what, L->path[b], (long long)vb);
}

/* The shapes of x, y, tx, ty, allx and ally agree with each other (and fit gat_idx). */
static gat_status check_shapes(const loader *L)
{
    const gat_i_pmatrix *m = L->mat;
    const int64_t F = m[P_ALLX].cols, C = m[P_ALLY].cols;
    for (int p = 0; p < P_GRAPH; p++)
        if (m[p].rows >= INT32_MAX || m[p].cols >= INT32_MAX)
            return gat_i_error(GAT_EFORMAT, "%s: a (%lld, %lld) matrix exceeds the index type",
                               L->path[p], (long long)m[p].rows, (long long)m[p].cols);
    if (m[P_X].cols != F) return shape_error(L, P_X, P_ALLX, "columns", m[P_X].cols, F);
    if (m[P_TX].cols != F) return shape_error(L, P_TX, P_ALLX, "columns", m[P_TX].cols, F);
    if (m[P_Y].cols != C) return shape_error(L, P_Y, P_ALLY, "columns", m[P_Y].cols, C);
    if (m[P_TY].cols != C) return shape_error(L, P_TY, P_ALLY, "columns", m[P_TY].cols, C);
    if (m[P_ALLY].rows != m[P_ALLX].rows)
        return shape_error(L, P_ALLY, P_ALLX, "rows", m[P_ALLY].rows, m[P_ALLX].rows);
    if (m[P_Y].rows != m[P_X].rows)
        return shape_error(L, P_Y, P_X, "rows", m[P_Y].rows, m[P_X].rows);
    if (m[P_TY].rows != m[P_TX].rows)
        return shape_error(L, P_TY, P_TX, "rows", m[P_TY].rows, m[P_TX].rows);
    if (m[P_Y].rows > m[P_ALLY].rows)
        return gat_i_error(GAT_EFORMAT,
                           "%s has %lld rows, more than the %lld of %s (the "
                           "training nodes are the first nodes of allx)",
                           L->path[P_Y], (long long)m[P_Y].rows, (long long)m[P_ALLY].rows,
                           L->path[P_ALLY]);
    if (C < 1) return gat_i_error(GAT_EFORMAT, "%s has no columns (no classes)", L->path[P_ALLY]);
    return GAT_OK;
}

/* test.index: one node id per line; ids distinct, the smallest = rows(allx) (the test nodes
 * follow the nodes of allx), as many as tx has rows. Sets L->n. */
static gat_status read_test_index(loader *L, size_t max_line)
{
    gat_i_text t;
    int errnum;
    const char *path = L->path[N_PARTS];
    gat_status st = gat_i_text_load(&t, path, max_line, &errnum);
    int64_t lo = INT64_MAX, hi = -1;
    if (st != GAT_OK) return st;
    const size_t cap = gat_i_text_count_lines(&t);
    L->test = gat_malloc(cap, sizeof *L->test);
    L->test_line = gat_malloc(cap, sizeof *L->test_line);
    if (!L->test || !L->test_line) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    while ((st = gat_i_text_next(&t)) == GAT_OK && t.n_fields > 0) {
        char *end;
        errno = 0;
        const long long v = strtoll(t.field[0], &end, 10);
        if (t.n_fields != 1 || *end || errno || v < 0 || v >= INT32_MAX - 1) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: expected one node id (an integer >= 0), got "
                             "'%s'%s",
                             path, t.line, t.field[0], t.n_fields > 1 ? " ..." : "");
            goto cleanup;
        }
        L->test_line[L->n_test] = t.line;
        L->test[L->n_test++] = (gat_idx)v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (st != GAT_OK) goto cleanup;
    if ((int64_t)L->n_test != L->mat[P_TX].rows) {
        st = gat_i_error(GAT_EFORMAT, "%s has %zu ids but %s has %lld rows", path, L->n_test,
                         L->path[P_TX], (long long)L->mat[P_TX].rows);
        goto cleanup;
    }
    L->n_all = (gat_idx)L->mat[P_ALLX].rows;
    if (L->n_test && lo != L->n_all) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: the smallest test id is %lld, expected %d (the rows "
                         "of %s: the test nodes follow them)",
                         path, (long long)lo, L->n_all, L->path[P_ALLX]);
        goto cleanup;
    }
    /* the padded nodes of the test range cost memory the files do not hold: bound them by the
     * test nodes (Citeseer pads 15 for 1000) */
    if (L->n_test && (uint64_t)(hi - lo + 1) - L->n_test > L->n_test) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: the test ids span %lld .. %lld, %zu ids for %lld "
                         "nodes: more than half of the range would be padding",
                         path, (long long)lo, (long long)hi, L->n_test, (long long)(hi - lo + 1));
        goto cleanup;
    }
    L->n = L->n_test ? (gat_idx)(hi + 1) : L->n_all;
cleanup:
    gat_i_text_free(&t);
    return st;
}

/* L->row_of: which row of allx or tx each node takes (tkipf's vstack and reordering). */
static gat_status map_rows(loader *L)
{
    if (!(L->row_of = gat_malloc((size_t)L->n, sizeof *L->row_of))) return GAT_ENOMEM;
    for (gat_idx i = 0; i < L->n; i++)
        L->row_of[i] = i < L->n_all ? i : -1;
    for (size_t k = 0; k < L->n_test; k++) {
        const gat_idx i = L->test[k];
        if (L->row_of[i] != -1) {
            size_t first = 0;
            while (L->test[first] != i)
                first++;
            return gat_i_error(GAT_EFORMAT,
                               "%s:%ld: test id %d is listed twice (first on line "
                               "%ld)",
                               L->path[N_PARTS], L->test_line[k], i, L->test_line[first]);
        }
        L->row_of[i] = -2 - (int32_t)k;
    }
    return GAT_OK;
}

/* The features: row i of L->x from the row of allx or tx that node i takes. */
static gat_status build_features(loader *L)
{
    const gat_i_pmatrix *ax = &L->mat[P_ALLX], *tx = &L->mat[P_TX];
    const size_t nnz = stored(ax) + stored(tx);
    gat_status st;
    if (nnz > INT32_MAX)
        return gat_i_error(GAT_EFORMAT, "%s and %s: %zu stored features exceed the index type",
                           L->path[P_ALLX], L->path[P_TX], nnz);
    if ((st = gat_csr_init(&L->x, L->n, (gat_idx)ax->cols, nnz)) != GAT_OK) return st;
    size_t k = 0;
    for (gat_idx i = 0; i < L->n; i++) {
        const int32_t r = L->row_of[i];
        const int part = r >= 0 ? P_ALLX : P_TX;
        const int64_t row = r >= 0 ? r : -2 - (int64_t)r;
        size_t len = 0;
        if (r != -1) row_entries(&L->mat[part], row, L->buf, &len);
        for (size_t e = 0; e < len; e++) {
            const double v = L->buf[e].val;
            if (!isfinite(v) || fabs(v) > REAL_MAX)
                return gat_i_error(GAT_ENUMERIC,
                                   "%s: row %lld, column %d: feature %g is not a "
                                   "finite %s",
                                   L->path[part], (long long)row, L->buf[e].col, v,
                                   sizeof(gat_real) == 4 ? "float" : "double");
            L->x.col[k] = L->buf[e].col;
            L->x.val[k++] = (gat_real)v;
        }
        L->x.rowptr[i + 1] = (gat_idx)k;
    }
    return GAT_OK;
}

/* The labels: the one-hot column of each node's row of ally or ty, -1 for a padded node or an
 * all-zero row; class names c0, c1, ... */
static gat_status build_labels(loader *L)
{
    const gat_idx C = (gat_idx)L->mat[P_ALLY].cols;
    if (!(L->labels = gat_malloc((size_t)L->n, sizeof *L->labels))) return GAT_ENOMEM;
    for (gat_idx i = 0; i < L->n; i++) {
        const int32_t r = L->row_of[i];
        const int part = r >= 0 ? P_ALLY : P_TY;
        const int64_t row = r >= 0 ? r : -2 - (int64_t)r;
        size_t len = 0;
        if (r != -1) row_entries(&L->mat[part], row, L->buf, &len);
        if (len > 1 || (len == 1 && L->buf[0].val != 1))
            return gat_i_error(GAT_EFORMAT,
                               "%s: row %lld is not one-hot (%zu non-zero entries, "
                               "the first %g in column %d)",
                               L->path[part], (long long)row, len, L->buf[0].val, L->buf[0].col);
        L->labels[i] = len ? L->buf[0].col : -1;
    }
    if (!(L->class_names = gat_calloc((size_t)C, sizeof *L->class_names))) return GAT_ENOMEM;
    L->n_classes = C;
    for (gat_idx c = 0; c < C; c++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", c);
        if (!(L->class_names[c] = gat_strdup(name))) return GAT_ENOMEM;
    }
    return GAT_OK;
}

/* The public split; every node in it must have a label. */
static gat_status build_split(loader *L)
{
    const gat_idx n_train = (gat_idx)L->mat[P_Y].rows;
    const gat_idx val_end = n_train + VAL_SIZE < L->n_all ? n_train + VAL_SIZE : L->n_all;
    if (!(L->split = gat_calloc((size_t)L->n, sizeof *L->split))) return GAT_ENOMEM;
    for (gat_idx i = 0; i < val_end; i++)
        L->split[i] = i < n_train ? GAT_SPLIT_TRAIN : GAT_SPLIT_VAL;
    for (size_t k = 0; k < L->n_test; k++)
        L->split[L->test[k]] = GAT_SPLIT_TEST;
    for (gat_idx i = 0; i < L->n; i++)
        if (L->split[i] && L->labels[i] < 0) {
            static const char *const what[] = {"", "train", "val", "test"};
            const int32_t r = L->row_of[i];
            return gat_i_error(GAT_EFORMAT,
                               "%s: row %lld (node %d, in the %s split) has no "
                               "class: all zeros",
                               L->path[r >= 0 ? P_ALLY : P_TY],
                               (long long)(r >= 0 ? r : -2 - (int64_t)r), i, what[L->split[i]]);
        }
    return GAT_OK;
}

/* One graph entry as a node id: an int in [0, N). */
static gat_status graph_node(const loader *L, uint32_t id, gat_idx *out)
{
    const gat_i_pickle *pk = &L->pk[P_GRAPH];
    const gat_i_pval *v = gat_i_pickle_at(pk, id);
    if (v->kind != GAT_I_PK_INT || v->u.i < 0 || v->u.i >= L->n) {
        char got[48];
        if (v->kind == GAT_I_PK_INT)
            snprintf(got, sizeof got, "%lld", (long long)v->u.i);
        else
            snprintf(got, sizeof got, "a %s", gat_i_pkind_name(v->kind));
        return gat_i_error(GAT_EFORMAT, "%s: byte %zu: expected a node id in [0, %d), got %s",
                           pk->path, v->at, L->n, got);
    }
    *out = (gat_idx)v->u.i;
    return GAT_OK;
}

/* The graph: a dict (defaultdict(list)) of node -> list of neighbours; edge key -> neighbour. */
static gat_status build_graph(loader *L, const gat_dataset_options *opt)
{
    const gat_i_pickle *pk = &L->pk[P_GRAPH];
    const gat_i_pval *d = gat_i_pickle_at(pk, pk->root);
    size_t m = 0;
    gat_status st;
    if (d->kind != GAT_I_PK_DICT)
        return gat_i_error(GAT_EFORMAT,
                           "%s: the pickle holds a %s, expected a dict of node -> "
                           "list of neighbours",
                           pk->path, gat_i_pkind_name(d->kind));
    for (size_t k = 0; k + 1 < d->u.seq.n; k += 2) {
        const gat_i_pval *nb = gat_i_pickle_at(pk, d->u.seq.item[k + 1]);
        if (nb->kind != GAT_I_PK_LIST && nb->kind != GAT_I_PK_TUPLE)
            return gat_i_error(GAT_EFORMAT,
                               "%s: byte %zu: the neighbours are a %s, expected a "
                               "list",
                               pk->path, nb->at, gat_i_pkind_name(nb->kind));
        m += nb->u.seq.n;
    }
    if (!(L->src = gat_malloc(m, sizeof *L->src)) || !(L->dst = gat_malloc(m, sizeof *L->dst)))
        return GAT_ENOMEM;
    size_t e = 0;
    for (size_t k = 0; k + 1 < d->u.seq.n; k += 2) {
        gat_idx a;
        if ((st = graph_node(L, d->u.seq.item[k], &a)) != GAT_OK) return st;
        const gat_i_pval *nb = gat_i_pickle_at(pk, d->u.seq.item[k + 1]);
        for (size_t j = 0; j < nb->u.seq.n; j++, e++) {
            L->src[e] = a;
            if ((st = graph_node(L, nb->u.seq.item[j], &L->dst[e])) != GAT_OK) return st;
        }
    }
    return gat_graph_from_edges(&L->graph, L->n, m, L->src, L->dst,
                                opt->symmetrize ? GAT_GRAPH_SYMMETRIZE : 0);
}

static void loader_free(loader *L)
{
    for (int p = 0; p < N_PARTS; p++)
        gat_i_pickle_free(&L->pk[p]);
    for (int p = 0; p <= N_PARTS; p++)
        gat_free(L->path[p]);
    if (L->class_names)
        for (gat_idx c = 0; c < L->n_classes; c++)
            gat_free(L->class_names[c]);
    gat_free(L->class_names);
    gat_free(L->prefix);
    gat_free(L->test);
    gat_free(L->test_line);
    gat_free(L->row_of);
    gat_free(L->buf);
    gat_free(L->labels);
    gat_free(L->split);
    gat_free(L->src);
    gat_free(L->dst);
    gat_csr_destroy(&L->x);
    gat_graph_destroy(&L->graph);
}

gat_status gat_i_planetoid_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt)
{
    loader L = {0};
    gat_status st = GAT_ENOMEM;
    char prefix[PATH_BUF];
    if (!gat_i_path_prefix(path, "ind.", prefix, sizeof prefix)) /* gat_i_planetoid_is said yes */
        return gat_i_error(GAT_EINTERNAL, "gat_dataset_load: '%s' is no Planetoid prefix", path);
    if (!(L.prefix = gat_strdup(prefix))) goto cleanup;
    for (int p = 0; p <= N_PARTS; p++)
        if (!(L.path[p] = part_path(L.prefix, p < N_PARTS ? part_name[p] : "test.index")))
            goto cleanup;
    for (int p = 0; p < N_PARTS; p++)
        if ((st = gat_i_pickle_load(&L.pk[p], L.path[p])) != GAT_OK) goto cleanup;
    for (int p = 0; p < P_GRAPH; p++)
        if ((st = gat_i_pickle_matrix(&L.pk[p], L.pk[p].root, &L.mat[p])) != GAT_OK) goto cleanup;
    if ((st = check_shapes(&L)) != GAT_OK || (st = read_test_index(&L, opt->max_line)) != GAT_OK ||
        (st = map_rows(&L)) != GAT_OK)
        goto cleanup;
    size_t room = 1;
    for (int p = P_TX; p < P_GRAPH; p++)
        if (max_row(&L.mat[p]) > room) room = max_row(&L.mat[p]);
    st = GAT_ENOMEM;
    if (!(L.buf = gat_malloc(room, sizeof *L.buf))) goto cleanup;
    if ((st = build_features(&L)) != GAT_OK || (st = build_labels(&L)) != GAT_OK ||
        (st = build_split(&L)) != GAT_OK || (st = build_graph(&L, opt)) != GAT_OK)
        goto cleanup;
    const gat_dataset_parts parts = {
        .graph = &L.graph,
        .features = &L.x,
        .labels = L.labels,
        .n_classes = L.n_classes,
        .split = opt->ignore_split_file ? NULL : L.split,
        .class_names = (const char *const *)L.class_names,
    };
    char features[4200];
    snprintf(features, sizeof features, "%s and %s", L.path[P_ALLX], L.path[P_TX]);
    st = gat_i_dataset_from_parts(ds, &parts, opt, "gat_dataset_load", L.prefix, features);
cleanup:
    loader_free(&L);
    return st;
}
