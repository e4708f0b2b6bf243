/* Datasets in .npz files, in the two layouts in use: Platonov et al. 2023 (node_features,
 * node_labels, edges, train/val/test_masks with several fixed splits) and Shchur et al. 2018
 * (adjacency and attributes as scipy CSR parts, labels, no split). Both end in
 * gat_dataset_from_parts, so normalisation, self-loops and checks stay in one place. */
#include "io/npz.h"
#include "core/core.h"
#include "core/strmap.h"
#include "data/data_i.h"

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

/* Reads member key of z into a; a missing member is GAT_EFORMAT naming why it is needed. */
static gat_status get(const gat_i_npz *z, const char *key, const char *layout, gat_i_npy *a)
{
    memset(a, 0, sizeof *a);
    const long k = gat_i_npz_find(z, key);
    if (k < 0)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s.npy' is missing (the %s layout needs it)",
                           z->path, key, layout);
    return gat_i_npz_read(z, (size_t)k, a);
}

/* a is 1-D or 2-D as wanted (ndim), of an integer (or bool) type unless real is set. */
static gat_status want(const gat_i_npz *z, const char *key, const gat_i_npy *a, int ndim, int real,
                       const char *expected)
{
    char shape[256];
    if (a->ndim != ndim)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' has shape %s, expected %s", z->path, key,
                           gat_i_npy_shape_str(a, shape, sizeof shape), expected);
    if (!real && a->type == GAT_I_NPY_FLOAT)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' has dtype '%s', expected integers",
                           z->path, key, a->descr);
    return GAT_OK;
}

/* Dense (N, F) features from a 2-D numeric array, as a CSR of the non-zeros. */
static gat_status dense_features(const gat_i_npz *z, const char *key, const gat_i_npy *a,
                                 gat_csr *x)
{
    gat_status st = want(z, key, a, 2, 1, "(nodes, features)");
    if (st != GAT_OK) return st;
    const size_t N = a->shape[0], F = a->shape[1];
    if (N >= INT32_MAX || F > INT32_MAX)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s': %zu x %zu features exceed the index type",
                           z->path, key, N, F);
    size_t nnz = 0;
    for (size_t k = 0; k < a->count; k++) {
        const double v = gat_i_npy_real(a, k);
        if (!isfinite(v) || fabs(v) > REAL_MAX)
            return gat_i_error(GAT_ENUMERIC, "%s: member '%s': node %zu, feature %zu is %g",
                               z->path, key, k / F, k % F, v);
        nnz += v != 0;
    }
    if (nnz > INT32_MAX)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': %zu non-zero features exceed the index "
                           "type",
                           z->path, key, nnz);
    if ((st = gat_csr_init(x, (gat_idx)N, (gat_idx)F, nnz)) != GAT_OK) return st;
    size_t at = 0;
    for (size_t i = 0; i < N; i++) {
        for (size_t j = 0; j < F; j++) {
            const double v = gat_i_npy_real(a, i * F + j);
            if (v == 0) continue;
            x->col[at] = (gat_idx)j;
            x->val[at++] = (gat_real)v;
        }
        x->rowptr[i + 1] = (gat_idx)at;
    }
    return GAT_OK;
}

/* labels (N) from a 1-D integer array: values >= -1 (-1 unlabelled); *C = largest + 1 <= N. */
static gat_status read_labels(const gat_i_npz *z, const char *key, const gat_i_npy *a, size_t N,
                              gat_idx **labels, gat_idx *C)
{
    gat_status st = want(z, key, a, 1, 0, "(nodes,)");
    if (st != GAT_OK) return st;
    if (a->shape[0] != N)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' has %zu labels for %zu nodes", z->path,
                           key, a->shape[0], N);
    if (!(*labels = gat_malloc(N, sizeof **labels))) return GAT_ENOMEM;
    *C = 0;
    for (size_t i = 0; i < N; i++) {
        const int64_t v = gat_i_npy_int(a, i);
        if (v < -1 || v >= (int64_t)N)
            return gat_i_error(GAT_EFORMAT,
                               "%s: member '%s': node %zu has label %lld, expected -1 (unlabelled) "
                               "or a class below the node count %zu",
                               z->path, key, i, (long long)v, N);
        (*labels)[i] = (gat_idx)v;
        if (v + 1 > *C) *C = (gat_idx)(v + 1);
    }
    return GAT_OK;
}

/* Split k of the masks m (S rows of n) into row; the errors name split k. */
static gat_status mask_row(const gat_i_npz *z, const char *const names[3], const gat_i_npy m[3],
                           gat_idx n, const gat_idx *labels, gat_idx k, uint8_t *row)
{
    static const char *const set[3] = {"train", "val", "test"};
    for (gat_idx i = 0; i < n; i++) {
        uint8_t v = GAT_SPLIT_NONE;
        for (int s = 0; s < 3; s++) {
            const int64_t b = gat_i_npy_int(&m[s], (size_t)k * (size_t)n + (size_t)i);
            if (b != 0 && b != 1)
                return gat_i_error(GAT_EFORMAT,
                                   "%s: member '%s': split %d, node %d has %lld, expected 0 or 1",
                                   z->path, names[s], k, i, (long long)b);
            if (!b) continue;
            if (v != GAT_SPLIT_NONE)
                return gat_i_error(GAT_EFORMAT,
                                   "%s: node %d is in both the %s and %s masks of split %d",
                                   z->path, i, set[v - 1], set[s], k);
            if (labels[i] < 0)
                return gat_i_error(GAT_EFORMAT,
                                   "%s: node %d is in the %s mask of split %d but has no label",
                                   z->path, i, set[s], k);
            v = (uint8_t)(GAT_SPLIT_TRAIN + s);
        }
        row[i] = v;
    }
    return GAT_OK;
}

gat_status gat_i_npz_masks(const gat_i_npz *z, const char *const names[3], gat_idx n,
                           const gat_idx *labels, gat_idx K, int use, uint8_t *split,
                           gat_idx *n_splits, uint8_t **all)
{
    gat_i_npy m[3] = {{0}};
    long at[3];
    size_t S = 0;
    gat_status st = GAT_OK;
    char shape[256];

    *n_splits = 0;
    if (all) *all = NULL;
    for (int s = 0; s < 3; s++)
        at[s] = gat_i_npz_find(z, names[s]);
    if (at[0] < 0 && at[1] < 0 && at[2] < 0) return GAT_OK;
    for (int s = 0; s < 3; s++)
        if (at[s] < 0)
            return gat_i_error(GAT_EFORMAT, "%s: member '%s.npy' is missing (with '%s.npy')",
                               z->path, names[s],
                               names[at[0] >= 0   ? 0
                                     : at[1] >= 0 ? 1
                                                  : 2]);
    for (int s = 0; s < 3 && st == GAT_OK; s++) {
        if ((st = gat_i_npz_read(z, (size_t)at[s], &m[s])) != GAT_OK) break;
        const gat_i_npy *a = &m[s];
        const size_t rows = a->ndim == 2 ? a->shape[0] : 1;
        if ((a->ndim != 1 && a->ndim != 2) || a->shape[a->ndim - 1] != (size_t)n ||
            a->type == GAT_I_NPY_FLOAT)
            st = gat_i_error(GAT_EFORMAT,
                             "%s: member '%s' has shape %s and dtype '%s', expected (%d,) or "
                             "(splits, %d) of bool",
                             z->path, names[s], gat_i_npy_shape_str(a, shape, sizeof shape),
                             a->descr, n, n);
        else if (s > 0 && rows != S)
            st = gat_i_error(GAT_EFORMAT, "%s: member '%s' holds %zu splits but '%s' holds %zu",
                             z->path, names[s], rows, names[0], S);
        else if (rows > INT32_MAX)
            st = gat_i_error(GAT_EFORMAT, "%s: member '%s': %zu splits are too many", z->path,
                             names[s], rows);
        S = rows;
    }
    if (st != GAT_OK) goto cleanup;
    *n_splits = (gat_idx)S;
    if (K < 0 || (size_t)K >= S) {
        st = gat_i_error(GAT_EINVAL,
                         "gat_dataset_load: split index %d is out of range: %s holds %zu "
                         "split%s (0..%zu)",
                         K, z->path, S, S == 1 ? "" : "s", S - 1);
        goto cleanup;
    }
    if (!use) goto cleanup;
    if ((st = mask_row(z, names, m, n, labels, 0, split)) != GAT_OK || !all || S < 2) goto cleanup;
    if (!(*all = gat_malloc(S, (size_t)n ? (size_t)n : 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k < S && st == GAT_OK; k++)
        st = mask_row(z, names, m, n, labels, (gat_idx)k, *all + k * (size_t)n);
    if (st != GAT_OK) {
        gat_free(*all);
        *all = NULL;
    }
cleanup:
    for (int s = 0; s < 3; s++)
        gat_i_npy_free(&m[s]);
    return st;
}

/* ---- The Shchur et al. CSR parts ---------------------------------------------------------- */

/* A scipy CSR matrix stored as PREFIX_data, _indices, _indptr, _shape: checked canonical enough
 * to use (indptr from 0, non-decreasing, to nnz; indices in range). Outputs owned. */
typedef struct csr_parts {
    size_t rows, cols, nnz;
    gat_i_npy data, indices, indptr, shape;
} csr_parts;

static void csr_parts_free(csr_parts *c)
{
    gat_i_npy_free(&c->data);
    gat_i_npy_free(&c->indices);
    gat_i_npy_free(&c->indptr);
    gat_i_npy_free(&c->shape);
}

static gat_status read_csr(const gat_i_npz *z, const char *prefix, int square, csr_parts *c)
{
    char key[4][32];
    static const char *const part[4] = {"data", "indices", "indptr", "shape"};
    gat_i_npy *a[4] = {&c->data, &c->indices, &c->indptr, &c->shape};
    gat_status st;
    memset(c, 0, sizeof *c);
    for (int k = 0; k < 4; k++) {
        snprintf(key[k], sizeof key[k], "%s_%s", prefix, part[k]);
        if ((st = get(z, key[k], "Shchur et al.", a[k])) != GAT_OK) return st;
        if ((st = want(z, key[k], a[k], 1, k == 0, k == 3 ? "(2,)" : "1-D")) != GAT_OK) return st;
    }
    if (c->shape.count != 2 || gat_i_npy_int(&c->shape, 0) < 0 || gat_i_npy_int(&c->shape, 1) < 0)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' is not two sizes (rows, columns)", z->path,
                           key[3]);
    c->rows = (size_t)gat_i_npy_int(&c->shape, 0);
    c->cols = (size_t)gat_i_npy_int(&c->shape, 1);
    if (square && c->rows != c->cols)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': the adjacency is %zu x %zu, expected "
                           "square",
                           z->path, key[3], c->rows, c->cols);
    if (c->rows >= INT32_MAX || c->cols > INT32_MAX)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s': %zu x %zu exceeds the index type",
                           z->path, key[3], c->rows, c->cols);
    if (c->indptr.count != c->rows + 1)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' has %zu entries, expected rows + 1 = %zu",
                           z->path, key[2], c->indptr.count, c->rows + 1);
    c->nnz = c->indices.count;
    if (c->data.count != c->nnz)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' has %zu entries but '%s' has %zu", z->path,
                           key[0], c->data.count, key[1], c->nnz);
    if (c->nnz > INT32_MAX)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s': %zu entries exceed the index type",
                           z->path, key[1], c->nnz);
    if (gat_i_npy_int(&c->indptr, 0) != 0)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' starts at %lld, expected 0", z->path,
                           key[2], (long long)gat_i_npy_int(&c->indptr, 0));
    for (size_t i = 0; i < c->rows; i++) {
        const int64_t lo = gat_i_npy_int(&c->indptr, i), hi = gat_i_npy_int(&c->indptr, i + 1);
        if (hi < lo || hi > (int64_t)c->nnz)
            return gat_i_error(GAT_EFORMAT,
                               "%s: member '%s' is not a CSR row pointer: entry %zu is %lld after "
                               "%lld (non-decreasing up to %zu expected)",
                               z->path, key[2], i + 1, (long long)hi, (long long)lo, c->nnz);
    }
    if (gat_i_npy_int(&c->indptr, c->rows) != (int64_t)c->nnz)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' ends at %lld, but '%s' has %zu entries",
                           z->path, key[2], (long long)gat_i_npy_int(&c->indptr, c->rows), key[1],
                           c->nnz);
    for (size_t k = 0; k < c->nnz; k++) {
        const int64_t j = gat_i_npy_int(&c->indices, k);
        if (j < 0 || j >= (int64_t)c->cols)
            return gat_i_error(GAT_EFORMAT, "%s: member '%s': entry %zu is %lld, outside [0, %zu)",
                               z->path, key[1], k, (long long)j, c->cols);
    }
    return GAT_OK;
}

typedef struct colval {
    gat_idx col;
    gat_real val;
} colval;

static int cmp_colval(const void *a, const void *b)
{
    const gat_idx x = ((const colval *)a)->col, y = ((const colval *)b)->col;
    return (x > y) - (x < y);
}

/* The features from CSR parts: columns sorted per row, duplicates summed (scipy's meaning). */
static gat_status csr_features(const gat_i_npz *z, const csr_parts *c, gat_csr *x)
{
    size_t longest = 1;
    for (size_t i = 0; i < c->rows; i++) {
        const size_t len =
            (size_t)(gat_i_npy_int(&c->indptr, i + 1) - gat_i_npy_int(&c->indptr, i));
        if (len > longest) longest = len;
    }
    colval *row = gat_malloc(longest, sizeof *row);
    gat_status st = GAT_ENOMEM;
    if (!row || (st = gat_csr_init(x, (gat_idx)c->rows, (gat_idx)c->cols, c->nnz)) != GAT_OK)
        goto cleanup;
    size_t at = 0;
    for (size_t i = 0; i < c->rows; i++) {
        const size_t lo = (size_t)gat_i_npy_int(&c->indptr, i);
        const size_t hi = (size_t)gat_i_npy_int(&c->indptr, i + 1);
        for (size_t k = lo; k < hi; k++) {
            const double v = gat_i_npy_real(&c->data, k);
            if (!isfinite(v) || fabs(v) > REAL_MAX) {
                st = gat_i_error(GAT_ENUMERIC,
                                 "%s: member 'attr_data': node %zu, feature %lld "
                                 "is %g",
                                 z->path, i, (long long)gat_i_npy_int(&c->indices, k), v);
                goto cleanup;
            }
            row[k - lo].col = (gat_idx)gat_i_npy_int(&c->indices, k);
            row[k - lo].val = (gat_real)v;
        }
        qsort(row, hi - lo, sizeof *row, cmp_colval);
        const size_t first = at;
        for (size_t r = 0; r < hi - lo; r++) {
            if (at > first && row[r].col == x->col[at - 1]) {
                x->val[at - 1] += row[r].val;
                continue;
            }
            x->col[at] = row[r].col;
            x->val[at++] = row[r].val;
        }
        x->rowptr[i + 1] = (gat_idx)at;
    }
    st = GAT_OK;
cleanup:
    gat_free(row);
    return st;
}

/* ---- The layouts -------------------------------------------------------------------------- */

/* What both layouts assemble before gat_dataset_from_parts. */
typedef struct assembly {
    gat_csr x;
    gat_idx *labels, C;
    gat_idx *src, *dst;
    size_t m;
    uint8_t *split; /* NULL: random split */
    gat_idx n_splits;
    uint8_t *splits; /* (n_splits, N) every fixed split, or NULL (one, or a random split) */
    char **class_names, **node_ids; /* (n_class_names = C), (n_node_ids = N) or NULL: none */
    size_t n_class_names, n_node_ids;
} assembly;

static void free_names(char **names, size_t n)
{
    for (size_t k = 0; names && k < n; k++)
        gat_free(names[k]);
    gat_free(names);
}

/* The names in member key (if present and not an object array, which is skipped) as *out
 * (allocated, count UTF-8 strings: a string array's, or an integer array's decimals); *count =
 * its length, which must be at least min (the classes the labels use) and at most max (the
 * nodes). GAT_EFORMAT for another dtype or shape, or a name that repeats. */
static gat_status read_names(const gat_i_npz *z, const char *key, size_t min, size_t max,
                             char ***out, size_t *count)
{
    gat_i_npy a = {0};
    gat_i_strmap map = {0};
    char what[600], shape[256], *buf = NULL;
    const long k = gat_i_npz_find(z, key);
    gat_status st;
    *out = NULL;
    *count = 0;
    if (k < 0) return GAT_OK;
    if ((st = gat_i_npz_read_strings(z, (size_t)k, &a)) != GAT_OK || a.type == GAT_I_NPY_OBJECT)
        goto cleanup;
    if (a.ndim != 1 || a.shape[0] < min || a.shape[0] > max) {
        st = gat_i_error(GAT_EFORMAT, "%s: member '%s' has shape %s, expected (%zu,)%s", z->path,
                         key, gat_i_npy_shape_str(&a, shape, sizeof shape), min,
                         min < max ? " or longer" : "");
        goto cleanup;
    }
    snprintf(what, sizeof what, "%s: member '%s'", z->path, key);
    if (!(buf = gat_malloc(a.itemsize + 1, 4)) ||
        !(*out = gat_calloc(a.shape[0] + 1, sizeof **out))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_i_strmap_init(&map, a.shape[0])) != GAT_OK) goto cleanup;
    for (size_t i = 0; i < a.shape[0]; i++, ++*count) {
        if ((st = gat_i_npy_string(&a, i, buf, 4 * a.itemsize + 4, what)) != GAT_OK) goto cleanup;
        if (!((*out)[i] = gat_strdup(buf))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        gat_idx *slot = gat_i_strmap_slot(&map, *out, buf);
        if (*slot >= 0) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: name %zu, '%s', repeats name %d: names must be "
                             "distinct",
                             what, i, buf, *slot);
            ++*count; /* (*out)[i] is freed with the others */
            goto cleanup;
        }
        *slot = (gat_idx)i;
    }
cleanup:
    gat_i_strmap_free(&map);
    gat_free(buf);
    gat_i_npy_free(&a);
    if (st != GAT_OK) {
        free_names(*out, *count);
        *out = NULL;
        *count = 0;
    }
    return st;
}

static gat_status platonov(const gat_i_npz *z, const gat_dataset_options *opt, assembly *A)
{
    static const char *const masks[3] = {"train_masks", "val_masks", "test_masks"};
    static const char *const layout = "Platonov et al.";
    gat_i_npy a = {0};
    gat_status st;
    char shape[256];

    if ((st = get(z, "node_features", layout, &a)) != GAT_OK ||
        (st = dense_features(z, "node_features", &a, &A->x)) != GAT_OK)
        goto cleanup;
    gat_i_npy_free(&a);
    const size_t N = (size_t)A->x.rows;
    if ((st = get(z, "node_labels", layout, &a)) != GAT_OK ||
        (st = read_labels(z, "node_labels", &a, N, &A->labels, &A->C)) != GAT_OK)
        goto cleanup;
    gat_i_npy_free(&a);
    if ((st = get(z, "edges", layout, &a)) != GAT_OK ||
        (st = want(z, "edges", &a, 2, 0, "(edges, 2)")) != GAT_OK)
        goto cleanup;
    if (a.shape[1] != 2) {
        st = gat_i_error(GAT_EFORMAT, "%s: member 'edges' has shape %s, expected (edges, 2)",
                         z->path, gat_i_npy_shape_str(&a, shape, sizeof shape));
        goto cleanup;
    }
    A->m = a.shape[0];
    A->src = gat_malloc(A->m, sizeof *A->src);
    A->dst = gat_malloc(A->m, sizeof *A->dst);
    if (!A->src || !A->dst) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (size_t e = 0; e < A->m; e++) {
        const int64_t s = gat_i_npy_int(&a, 2 * e), d = gat_i_npy_int(&a, 2 * e + 1);
        if (s < 0 || s >= (int64_t)N || d < 0 || d >= (int64_t)N) {
            st =
                gat_i_error(GAT_EFORMAT,
                            "%s: member 'edges': edge %zu is (%lld, %lld), a node outside [0, %zu)",
                            z->path, e, (long long)s, (long long)d, N);
            goto cleanup;
        }
        A->src[e] = (gat_idx)s;
        A->dst[e] = (gat_idx)d;
    }
    if (!(A->split = gat_calloc(N, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    st = gat_i_npz_masks(z, masks, (gat_idx)N, A->labels, opt->split_index, !opt->ignore_split_file,
                         A->split, &A->n_splits, &A->splits);
    if (st == GAT_OK && (A->n_splits == 0 || opt->ignore_split_file)) {
        gat_free(A->split);
        A->split = NULL;
    }
cleanup:
    gat_i_npy_free(&a);
    return st;
}

static gat_status shchur(const gat_i_npz *z, assembly *A)
{
    static const char *const layout = "Shchur et al.";
    csr_parts adj, attr;
    gat_i_npy a = {0};
    gat_status st;

    memset(&attr, 0, sizeof attr);
    if ((st = read_csr(z, "adj", 1, &adj)) != GAT_OK) goto cleanup;
    const size_t N = adj.rows;
    A->m = adj.nnz;
    A->src = gat_malloc(A->m, sizeof *A->src);
    A->dst = gat_malloc(A->m, sizeof *A->dst);
    if (!A->src || !A->dst) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    /* entry (i, j) is the edge i -> j (as PyG's read_npz takes it) */
    for (size_t i = 0; i < N; i++)
        for (int64_t k = gat_i_npy_int(&adj.indptr, i); k < gat_i_npy_int(&adj.indptr, i + 1);
             k++) {
            A->src[k] = (gat_idx)i;
            A->dst[k] = (gat_idx)gat_i_npy_int(&adj.indices, (size_t)k);
        }
    if (gat_i_npz_find(z, "attr_indptr") >= 0) {
        if ((st = read_csr(z, "attr", 0, &attr)) != GAT_OK ||
            (st = csr_features(z, &attr, &A->x)) != GAT_OK)
            goto cleanup;
    } else if (gat_i_npz_find(z, "attr_matrix") >= 0) {
        if ((st = get(z, "attr_matrix", layout, &a)) != GAT_OK ||
            (st = dense_features(z, "attr_matrix", &a, &A->x)) != GAT_OK)
            goto cleanup;
        gat_i_npy_free(&a);
    } else {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: no node features: expected the members attr_data, "
                         "attr_indices, attr_indptr, attr_shape or attr_matrix",
                         z->path);
        goto cleanup;
    }
    if ((size_t)A->x.rows != N) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: the features have %d rows but the adjacency has %zu "
                         "nodes",
                         z->path, A->x.rows, N);
        goto cleanup;
    }
    if (gat_i_npz_find(z, "labels") < 0 && gat_i_npz_find(z, "labels_indptr") >= 0) {
        st = gat_i_error(GAT_EFORMAT, "%s: multi-label data (labels_*) is not supported", z->path);
        goto cleanup;
    }
    if ((st = get(z, "labels", layout, &a)) != GAT_OK ||
        (st = read_labels(z, "labels", &a, N, &A->labels, &A->C)) != GAT_OK)
        goto cleanup;
    /* class and node names where the file holds them as string arrays (gnn-benchmark's
     * pickled dicts and object arrays are skipped: the classes are then 0..C-1) */
    if ((st = read_names(z, "class_names", (size_t)A->C, N, &A->class_names, &A->n_class_names)) !=
        GAT_OK)
        goto cleanup;
    if (A->class_names) A->C = (gat_idx)A->n_class_names; /* a class no node has keeps its name */
    if ((st = read_names(z, "idx_to_node", N, N, &A->node_ids, &A->n_node_ids)) != GAT_OK)
        goto cleanup;
cleanup:
    gat_i_npy_free(&a);
    csr_parts_free(&adj);
    csr_parts_free(&attr);
    return st;
}

gat_status gat_i_npz_dataset_read(gat_dataset *ds, const char *path, const gat_dataset_options *opt)
{
    gat_i_npz z;
    assembly A = {0};
    gat_graph g = {0};
    gat_idx *map = NULL;
    gat_status st;

    if ((st = gat_i_npz_open(&z, path)) != GAT_OK) goto cleanup;
    if (gat_i_npz_find(&z, "node_features") >= 0 || gat_i_npz_find(&z, "edges") >= 0) {
        st = platonov(&z, opt, &A);
    } else if (gat_i_npz_find(&z, "adj_indptr") >= 0) {
        st = shchur(&z, &A);
    } else {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: not a dataset .npz: expected the members node_features, "
                         "node_labels, edges (Platonov et al.) or adj_data, adj_indices, "
                         "adj_indptr, adj_shape (Shchur et al.)",
                         path);
    }
    if (st == GAT_OK && A.n_splits == 0 && opt->split_index != 0)
        st = gat_i_error(GAT_EINVAL,
                         "gat_dataset_load: split index %d is out of range: %s holds "
                         "no fixed split",
                         opt->split_index, path);
    if (st != GAT_OK) goto cleanup;
    const unsigned flags = opt->symmetrize ? GAT_GRAPH_SYMMETRIZE : 0;
    if (!(map = gat_malloc(GAT_GRAPH_MAX_EDGES(A.x.rows, A.m, flags), sizeof *map))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_graph_from_edges_mapped(&g, A.x.rows, A.m, A.src, A.dst, flags, map)) != GAT_OK)
        goto cleanup;
    gat_dataset_options o = *opt;
    o.split_index = 0;
    const gat_dataset_parts parts = {.graph = &g,
                                     .features = &A.x,
                                     .labels = A.labels,
                                     .n_classes = A.C,
                                     .split = A.split,
                                     .edge_input = map,
                                     .class_names = (const char *const *)A.class_names,
                                     .node_ids = (const char *const *)A.node_ids};
    if ((st = gat_i_dataset_from_parts(ds, &parts, &o, "gat_dataset_load", path, path)) != GAT_OK)
        goto cleanup;
    ds->n_splits = A.n_splits;
    ds->splits = A.splits;
    A.splits = NULL;
cleanup:
    gat_i_npz_close(&z);
    gat_csr_destroy(&A.x);
    gat_free(A.labels);
    gat_free(A.src);
    gat_free(A.dst);
    gat_free(A.split);
    gat_free(A.splits);
    free_names(A.class_names, A.n_class_names);
    free_names(A.node_ids, A.n_node_ids);
    gat_graph_destroy(&g);
    gat_free(map);
    return st;
}
