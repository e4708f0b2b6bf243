/* Writing .gatd dataset files and the part files of a partition (the format atop gat/dataset.h
 * and gat/partition.h): the checks gat_dataset_save makes, the header, aligned tensors and
 * padding, through the atomic writer of io/fileio.h. */
#include "io/datafile_i.h"
#include "core/core.h"
#include "core/strmap.h"
#include "graph/graph_i.h"
#include "io/fileio.h"
#include "io/safetensors.h"
#include "matrix_i.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* ---- Saving ------------------------------------------------------------------------------ */

static const char fn[] = "gat_dataset_save"; /* what the messages of a refused save begin with */

/* The graph segments and multi-hot labels of ds, as the loader checks them (datafile_arrays.c). */
static gat_status check_many(const gat_dataset *ds)
{
    const gat_idx G = ds->n_graphs, *ptr = ds->graph_ptr;
    const gat_graph *g = &ds->graph;
    if (G < 0 || (G > 0 && !ptr) || ds->n_labels < 0 || (ds->n_labels > 0 && !ds->label_matrix) ||
        (ds->n_labels > 0 && ds->n_classes > 0))
        return gat_i_error(GAT_EINVAL,
                           "%s: n_graphs %d with graph_ptr %s, n_labels %d with label_matrix %s "
                           "and %d classes",
                           fn, G, ptr ? "set" : "NULL", ds->n_labels,
                           ds->label_matrix ? "set" : "NULL", ds->n_classes);
    for (size_t k = 0; k < (size_t)ds->n * (size_t)ds->n_labels; k++)
        if (ds->label_matrix[k] > 1)
            return gat_i_error(GAT_EINVAL, "%s: label_matrix of node %zu, label %zu is %d", fn,
                               k / (size_t)ds->n_labels, k % (size_t)ds->n_labels,
                               ds->label_matrix[k]);
    if (G == 0) return GAT_OK;
    if (ptr[0] != 0 || ptr[G] != ds->n)
        return gat_i_error(GAT_EINVAL, "%s: graph_ptr runs from %d to %d, expected 0 to %d", fn,
                           ptr[0], ptr[G], ds->n);
    for (gat_idx k = 0; k < G; k++) {
        if (ptr[k + 1] <= ptr[k])
            return gat_i_error(GAT_EINVAL, "%s: graph %d has no nodes", fn, k);
        for (gat_idx i = ptr[k]; i < ptr[k + 1]; i++)
            for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
                if (g->col[e] < ptr[k] || g->col[e] >= ptr[k + 1])
                    return gat_i_error(GAT_EINVAL, "%s: edge %d (node %d -> node %d) leaves graph %d",
                                       fn, e, g->col[e], i, k);
        if (ds->graph_labels &&
            (ds->graph_labels[k] < 0 || ds->graph_labels[k] >= ds->n_graph_classes))
            return gat_i_error(GAT_EINVAL, "%s: graph %d has label %d outside [0, %d)", fn, k,
                               ds->graph_labels[k], ds->n_graph_classes);
    }
    for (gat_idx c = 0; ds->graph_labels && c < ds->n_graph_classes; c++) {
        size_t at;
        const char *s = ds->graph_class_names ? ds->graph_class_names[c] : NULL;
        if (!s || !gat_i_utf8_valid((const unsigned char *)s, strlen(s), &at))
            return gat_i_error(GAT_EINVAL, "%s: graph class name %d is NULL or not UTF-8", fn, c);
    }
    return GAT_OK;
}

/* A split's values as the loader checks them: 0..3, and 0 for an unlabelled node (of a
 * single-label dataset). what names the split in the message. */
static gat_status check_split(const gat_dataset *ds, const uint8_t *split, const char *what)
{
    for (gat_idx i = 0; i < ds->n; i++)
        if (split[i] > GAT_SPLIT_TEST ||
            (split[i] != GAT_SPLIT_NONE && ds->labels[i] < 0 && ds->n_labels == 0))
            return gat_i_error(GAT_EINVAL,
                               "%s: node %d has %s value %d (expected 0..3, and 0 for an "
                               "unlabelled node)",
                               fn, i, what, split[i]);
    return GAT_OK;
}

/* What gat_dataset_save refuses: what the loader would refuse, named after the argument. splits
 * (S rows of n), when not NULL, stand for ds->split. */
static gat_status check_save(const gat_dataset *ds, const uint8_t *splits, gat_idx S,
                             int *default_ids, int *symmetric)
{
    const gat_graph *g = &ds->graph;
    gat_i_strmap map = {0};
    size_t at;
    gat_status st;
    if (ds->n < 0 || g->n != ds->n || ds->x.rows != ds->n || ds->x.cols != ds->n_features ||
        ds->n_classes < 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: inconsistent sizes: n %d, graph n %d, features %d x %d for %d "
                           "features, %d classes",
                           fn, ds->n, g->n, ds->x.rows, ds->x.cols, ds->n_features, ds->n_classes);
    if ((st = gat_i_graph_check(g, fn)) != GAT_OK ||
        (st = gat_i_csr_check_matrix(&ds->x, "gat_dataset_save: features x")) != GAT_OK)
        return st;
    for (gat_idx i = 0; i < g->n; i++) {
        int loop = 0;
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
            if (e > g->rowptr[i] && g->col[e] <= g->col[e - 1])
                return gat_i_error(GAT_EINVAL, "%s: graph row %d is not strictly ascending", fn, i);
            loop |= g->col[e] == i;
        }
        if (!loop)
            return gat_i_error(GAT_EINVAL,
                               "%s: graph row %d lacks its self-loop (dataset files store graphs "
                               "with one per node)",
                               fn, i);
    }
    if (ds->n_edge_features < 0 || (ds->n_edge_features > 0 && !ds->edge_x))
        return gat_i_error(GAT_EINVAL, "%s: n_edge_features = %d with edge_x %s", fn,
                           ds->n_edge_features, ds->edge_x ? "set" : "NULL");
    const size_t D = (size_t)ds->n_edge_features;
    for (size_t k = 0; k < (size_t)g->nnz * D; k++)
        if (!isfinite(ds->edge_x[k]))
            return gat_i_error(GAT_ENUMERIC, "%s: edge_x of edge %zu, column %zu is %g", fn, k / D,
                               k % D, (double)ds->edge_x[k]);
    for (gat_idx i = 0; ds->edge_input && i < g->n; i++)
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
            if (g->col[e] == i ? ds->edge_input[e] != -1 : ds->edge_input[e] < 0)
                return gat_i_error(GAT_EINVAL,
                                   "%s: edge_input[%d] = %d for the edge %d -> %d (expected -1 "
                                   "exactly on the self-loops)",
                                   fn, e, ds->edge_input[e], g->col[e], i);
    if (ds->n > 0 && (!ds->labels || (!splits && !ds->split)))
        return gat_i_error(GAT_EINVAL, "%s: NULL labels or split", fn);
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] < -1 || ds->labels[i] >= ds->n_classes)
            return gat_i_error(GAT_EINVAL, "%s: node %d has label %d outside [-1, %d)", fn, i,
                               ds->labels[i], ds->n_classes);
    if (!splits && (st = check_split(ds, ds->split, "split")) != GAT_OK) return st;
    for (gat_idx k = 0; splits && k < S; k++) {
        char what[40];
        snprintf(what, sizeof what, "splits[%d]", k);
        if ((st = check_split(ds, splits + (size_t)k * (size_t)ds->n, what)) != GAT_OK) return st;
    }
    for (gat_idx c = 0; c < ds->n_classes; c++) {
        const char *s = ds->class_names ? ds->class_names[c] : NULL;
        if (!s || !gat_i_utf8_valid((const unsigned char *)s, strlen(s), &at))
            return gat_i_error(GAT_EINVAL, "%s: class name %d is NULL or not UTF-8", fn, c);
    }
    /* distinct, as the loader requires */
    if ((st = gat_i_strmap_init(&map, (size_t)ds->n_classes)) != GAT_OK) return st;
    for (gat_idx c = 0; c < ds->n_classes && st == GAT_OK; c++) {
        gat_idx *slot = gat_i_strmap_slot(&map, (char *const *)ds->class_names, ds->class_names[c]);
        if (*slot >= 0)
            st = gat_i_error(GAT_EINVAL, "%s: class_names[%d] = '%s' repeats class_names[%d]", fn,
                             c, ds->class_names[c], *slot);
        *slot = c;
    }
    gat_i_strmap_free(&map);
    if (st != GAT_OK || (st = check_many(ds)) != GAT_OK) return st;
    *default_ids = 1;
    if (ds->n > 0 && !ds->node_ids) return gat_i_error(GAT_EINVAL, "%s: NULL node_ids", fn);
    if ((st = gat_i_strmap_init(&map, (size_t)ds->n)) != GAT_OK) return st;
    for (gat_idx i = 0; i < ds->n && st == GAT_OK; i++) {
        char num[16];
        if (!ds->node_ids[i]) {
            st = gat_i_error(GAT_EINVAL, "%s: node_ids[%d] is NULL", fn, i);
            break;
        }
        snprintf(num, sizeof num, "%d", i);
        *default_ids = *default_ids && !strcmp(num, ds->node_ids[i]);
        gat_idx *slot = gat_i_strmap_slot(&map, (char *const *)ds->node_ids, ds->node_ids[i]);
        if (*slot >= 0)
            st = gat_i_error(GAT_EINVAL, "%s: node_ids[%d] = '%s' repeats node_ids[%d]", fn, i,
                             ds->node_ids[i], *slot);
        *slot = i;
    }
    gat_i_strmap_free(&map);
    /* symmetric iff the in-CSR equals the out-CSR (both sorted, self-loops in both) */
    *symmetric = g->n == 0 || g->nnz == 0 ||
                 (!memcmp(g->rowptr, g->t_rowptr, ((size_t)g->n + 1) * sizeof(gat_idx)) &&
                  !memcmp(g->col, g->t_col, (size_t)g->nnz * sizeof(gat_idx)));
    return st;
}

enum { LEN_T = 14 }; /* tensors gat_dataset_save may write */

typedef struct out_tensor {
    const char *name, *dtype;
    size_t dims[2];
    int ndim;
    size_t bytes, at;           /* at: offset in the data section */
    const void *data;           /* I32: gat_idx, F32: gat_real, U8: uint8_t (or the strings) */
    const char *const *strings; /* U8 only: these n_strings written NUL-terminated back to back */
    size_t n_strings;
} out_tensor;

static int add_str(cJSON *o, const char *k, const char *v)
{
    return cJSON_AddStringToObject(o, k, v) != NULL;
}

static int add_num(cJSON *o, const char *k, long v)
{
    char s[32];
    snprintf(s, sizeof s, "%ld", v);
    return add_str(o, k, s);
}

static int add_entry(cJSON *root, const char *name, const char *dtype, const size_t *dims, int ndim,
                     size_t begin, size_t end)
{
    cJSON *e = cJSON_AddObjectToObject(root, name), *shape, *offs;
    if (!e || !add_str(e, "dtype", dtype) || !(shape = cJSON_AddArrayToObject(e, "shape")) ||
        !(offs = cJSON_AddArrayToObject(e, "data_offsets")))
        return 0;
    for (int d = 0; d < ndim; d++)
        if (!cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)dims[d]))) return 0;
    return cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)begin)) &&
           cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)end));
}

/* The dataset metadata of a file of the given format (a dataset or a part) into a new
 * "__metadata__" object of root; NULL if out of memory. */
static cJSON *dataset_meta(cJSON *root, const char *format, const gat_dataset *ds, const char *name)
{
    cJSON *md = NULL, *names = NULL;
    char *names_json = NULL;
    int ok = (md = cJSON_AddObjectToObject(root, "__metadata__")) &&
             add_str(md, "format", format) && add_str(md, "version", GATD_VERSION) &&
             add_num(md, "nodes", ds->n) && add_num(md, "features", ds->n_features) &&
             add_num(md, "classes", ds->n_classes) && add_num(md, "edges", ds->graph.nnz) &&
             add_num(md, "normalized", ds->normalized != 0) &&
             (names = ds->n_classes > 0 ? cJSON_CreateStringArray(ds->class_names, ds->n_classes)
                                        : cJSON_CreateArray()) &&
             (names_json = cJSON_PrintUnformatted(names)) &&
             add_str(md, "class_names", names_json) && (!name || add_str(md, "name", name));
    cJSON_Delete(names);
    cJSON_free(names_json);
    return ok ? md : NULL;
}

/* "graph_classes" and "graph_class_names" of a dataset of labelled graphs; 0 if out of memory. */
static int graph_meta(cJSON *md, const gat_dataset *ds)
{
    if (ds->n_graphs == 0 || !ds->graph_labels) return 1;
    cJSON *names = cJSON_CreateStringArray(ds->graph_class_names, ds->n_graph_classes);
    char *json = names ? cJSON_PrintUnformatted(names) : NULL;
    const int ok = json && add_num(md, "graph_classes", ds->n_graph_classes) &&
                   add_str(md, "graph_class_names", json);
    cJSON_Delete(names);
    cJSON_free(json);
    return ok;
}

/* Adds the tensors (t, nt) to the header root at 64-byte aligned offsets, with U8 padding
 * tensors covering the gaps; 0 if out of memory. */
static int add_tensors(cJSON *root, out_tensor *t, int nt)
{
    size_t at = 0;
    int ok = 1;
    for (int k = 0, pad = 0; ok && k < nt; k++) {
        const size_t begin = (at + GATD_ALIGN - 1) / GATD_ALIGN * GATD_ALIGN;
        if (begin > at) {
            char pname[32];
            const size_t len = begin - at;
            snprintf(pname, sizeof pname, GATD_PAD ".%d", pad++);
            ok = add_entry(root, pname, "U8", &len, 1, at, begin);
        }
        t[k].at = begin;
        at = begin + t[k].bytes;
        ok = ok && add_entry(root, t[k].name, t[k].dtype, t[k].dims, t[k].ndim, begin, at);
    }
    return ok;
}

static int write_i32(FILE *f, const gat_idx *v, size_t n)
{
    unsigned char buf[4096];
    while (n > 0) {
        const size_t k = n < sizeof buf / 4 ? n : sizeof buf / 4;
        for (size_t i = 0; i < k; i++) {
            const uint32_t u = (uint32_t)v[i];
            for (int b = 0; b < 4; b++)
                buf[4 * i + (size_t)b] = (unsigned char)(u >> (8 * b));
        }
        if (fwrite(buf, 4, k, f) != k) return -1;
        v += k;
        n -= k;
    }
    return 0;
}

static int write_f32(FILE *f, const gat_real *v, size_t n)
{
    unsigned char buf[4096];
    while (n > 0) {
        const size_t k = n < sizeof buf / 4 ? n : sizeof buf / 4;
        for (size_t i = 0; i < k; i++) {
            const float x = (float)v[i];
            uint32_t u;
            memcpy(&u, &x, sizeof u);
            for (int b = 0; b < 4; b++)
                buf[4 * i + (size_t)b] = (unsigned char)(u >> (8 * b));
        }
        if (fwrite(buf, 4, k, f) != k) return -1;
        v += k;
        n -= k;
    }
    return 0;
}

static int write_zeros(FILE *f, size_t n)
{
    static const unsigned char zero[GATD_ALIGN];
    return n == 0 || fwrite(zero, 1, n, f) == n ? 0 : -1;
}

/* Writes the header root (its tensor entries made by add_tensors from t) and the tensors' data
 * to path atomically. */
static gat_status write_file(const char *path, const cJSON *root, const out_tensor *t, int nt)
{
    gat_i_afile af;
    char *json = NULL;
    size_t at = 0;
    gat_status st;
    memset(&af, 0, sizeof af);
    if (!(json = cJSON_PrintUnformatted(root)))
        return gat_i_error(GAT_ENOMEM, "out of memory building the header of %s", path);
    if ((st = gat_i_afile_open(&af, path)) != GAT_OK) goto cleanup;
    errno = 0;
    int bad = gat_i_st_write_header(af.f, json, GATD_ALIGN) != 0;
    for (int k = 0; !bad && k < nt; k++) {
        const size_t c = t[k].ndim == 2 ? t[k].dims[0] * t[k].dims[1] : t[k].dims[0];
        bad = write_zeros(af.f, t[k].at - at) != 0;
        if (t[k].strings) {
            for (size_t i = 0; !bad && i < t[k].n_strings; i++) {
                const size_t len = strlen(t[k].strings[i]) + 1;
                bad = fwrite(t[k].strings[i], 1, len, af.f) != len;
            }
        } else if (!strcmp(t[k].dtype, "I32")) {
            bad = bad || write_i32(af.f, t[k].data, c);
        } else if (!strcmp(t[k].dtype, "F32")) {
            bad = bad || write_f32(af.f, t[k].data, c);
        } else {
            bad = bad || (c && fwrite(t[k].data, 1, c, af.f) != c);
        }
        at = t[k].at + t[k].bytes;
    }
    if (bad) {
        st = gat_i_afile_write_error(&af);
        goto cleanup;
    }
    st = gat_i_afile_commit(&af);

cleanup:
    gat_i_afile_abort(&af);
    cJSON_free(json);
    return st;
}

/* The fixed splits gat_dataset_save stores: ds->splits when ds->split is one of their rows
 * (else the split was changed after loading: it alone is stored). */
static const uint8_t *stored_splits(const gat_dataset *ds)
{
    if (!ds->splits || ds->n_splits < 2 || ds->n < 0) return NULL;
    if (ds->n == 0) return ds->splits;
    if (!ds->split) return NULL;
    for (gat_idx k = 0; k < ds->n_splits; k++)
        if (!memcmp(ds->splits + (size_t)k * (size_t)ds->n, ds->split, (size_t)ds->n))
            return ds->splits;
    return NULL;
}

gat_status gat_dataset_save(const gat_dataset *ds, const char *path, const char *name)
{
    gat_i_clocale loc = {0};
    cJSON *root = NULL, *md;
    size_t at, ids_len = 0;
    int default_ids = 1, symmetric = 0;
    gat_status st;

    gat_i_clear_error();
    if (!ds || !path)
        return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !ds ? "dataset ds" : "path");
    const uint8_t *splits = stored_splits(ds); /* NULL: ds->split alone */
    const gat_idx S = splits ? ds->n_splits : 0;
    if (name && !gat_i_utf8_valid((const unsigned char *)name, strlen(name), &at))
        return gat_i_error(GAT_EINVAL, "%s: name is not UTF-8 (byte %zu)", fn, at);
    if ((st = check_save(ds, splits, S, &default_ids, &symmetric)) != GAT_OK) return st;
    const uint8_t *split = splits ? splits : ds->split; /* "split" repeats row 0 of "splits" */
    const size_t nS = (size_t)S;                        /* stored_splits: S > 1, or 0 */
    static const gat_idx zero_row[1] = {0}; /* the row pointers of a zeroed (empty) dataset */
    const gat_idx *gptr = ds->graph.rowptr ? ds->graph.rowptr : zero_row;
    const gat_idx *xptr = ds->x.rowptr ? ds->x.rowptr : zero_row;
    const size_t n = (size_t)ds->n, E = (size_t)ds->graph.nnz, nnz = (size_t)xptr[ds->n];
    const size_t D = (size_t)ds->n_edge_features, G = (size_t)ds->n_graphs,
                 L = (size_t)ds->n_labels;
    for (gat_idx i = 0; !default_ids && i < ds->n; i++)
        ids_len += strlen(ds->node_ids[i]) + 1;
    const out_tensor all[LEN_T] = {
        {"graph.indptr", "I32", {n + 1, 0}, 1, 4 * (n + 1), 0, gptr, NULL, 0},
        {"graph.indices", "I32", {E, 0}, 1, 4 * E, 0, ds->graph.col, NULL, 0},
        {"features.indptr", "I32", {n + 1, 0}, 1, 4 * (n + 1), 0, xptr, NULL, 0},
        {"features.indices", "I32", {nnz, 0}, 1, 4 * nnz, 0, ds->x.col, NULL, 0},
        {"features.data", "F32", {nnz, 0}, 1, 4 * nnz, 0, ds->x.val, NULL, 0},
        {"labels", "I32", {n, 0}, 1, 4 * n, 0, ds->labels, NULL, 0},
        {"split", "U8", {n, 0}, 1, n, 0, split, NULL, 0},
        {"edge_features", "F32", {E, D}, 2, 4 * E * D, 0, ds->edge_x, NULL, 0},
        {"edge_input", "I32", {E, 0}, 1, 4 * E, 0, ds->edge_input, NULL, 0},
        {"node_ids", "U8", {ids_len, 0}, 1, ids_len, 0, NULL, ds->node_ids, n},
        {"graphs.ptr", "I32", {G + 1, 0}, 1, 4 * (G + 1), 0, ds->graph_ptr, NULL, 0},
        {"graphs.labels", "I32", {G, 0}, 1, 4 * G, 0, ds->graph_labels, NULL, 0},
        {"label_matrix", "U8", {n, L}, 2, n * L, 0, ds->label_matrix, NULL, 0},
        {"splits", "U8", {nS, n}, 2, nS * n, 0, splits, NULL, 0},
    };
    /* the optional tensors only when the dataset has them */
    out_tensor t[LEN_T];
    int nt = 0;
    for (int k = 0; k < LEN_T; k++)
        if ((k != 7 || D > 0) && (k != 8 || ds->edge_input) && (k != 9 || !default_ids) &&
            (k != 10 || G > 0) && (k != 11 || (G > 0 && ds->graph_labels)) && (k != 12 || L > 0) &&
            (k != 13 || nS > 0))
            t[nt++] = all[k];
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) return st;
    if (!(root = cJSON_CreateObject()) || !(md = dataset_meta(root, GATD_FORMAT, ds, name)) ||
        !add_num(md, "symmetrized", symmetric) || !graph_meta(md, ds) ||
        !add_tensors(root, t, nt)) {
        st = gat_i_error(GAT_ENOMEM, "out of memory building the header of %s", path);
        goto cleanup;
    }
    st = write_file(path, root, t, nt);

cleanup:
    cJSON_Delete(root);
    gat_i_clocale_leave(&loc);
    return st;
}

/* ---- Part files -------------------------------------------------------------------------- */

static int add_hex(cJSON *o, const char *k, uint64_t v)
{
    char s[17];
    snprintf(s, sizeof s, "%016llx", (unsigned long long)v);
    return add_str(o, k, s);
}

gat_status gat_i_partfile_save(const gat_i_part_data *p, const char *path, const char *name)
{
    const gat_dataset *ds = &p->ds;
    gat_i_clocale loc = {0};
    cJSON *root = NULL, *md;
    size_t ids_len = 0;
    gat_status st;

    /* node ids that are the global ids' decimals are not stored (the reader makes them) */
    int default_ids = 1;
    for (gat_idx i = 0; ds->node_ids && default_ids && i < ds->n; i++) {
        char num[16];
        snprintf(num, sizeof num, "%d", p->global_ids[i]);
        default_ids = !strcmp(num, ds->node_ids[i]);
    }
    for (gat_idx i = 0; !default_ids && i < ds->n; i++)
        ids_len += strlen(ds->node_ids[i]) + 1;
    const size_t n = (size_t)ds->n, E = (size_t)ds->graph.nnz, nnz = (size_t)ds->x.rowptr[ds->n];
    const size_t nl = n + (size_t)p->n_halo, nh = (size_t)p->n_halo;
    const size_t D = ds->edge_x ? (size_t)ds->n_edge_features : 0;
    out_tensor t[] = {
        {"graph.indptr", "I32", {n + 1, 0}, 1, 4 * (n + 1), 0, ds->graph.rowptr, NULL, 0},
        {"graph.indices", "I32", {E, 0}, 1, 4 * E, 0, ds->graph.col, NULL, 0},
        {"features.indptr", "I32", {n + 1, 0}, 1, 4 * (n + 1), 0, ds->x.rowptr, NULL, 0},
        {"features.indices", "I32", {nnz, 0}, 1, 4 * nnz, 0, ds->x.col, NULL, 0},
        {"features.data", "F32", {nnz, 0}, 1, 4 * nnz, 0, ds->x.val, NULL, 0},
        {"labels", "I32", {n, 0}, 1, 4 * n, 0, ds->labels, NULL, 0},
        {"split", "U8", {n, 0}, 1, n, 0, ds->split, NULL, 0},
        {"part.global_ids", "I32", {nl, 0}, 1, 4 * nl, 0, p->global_ids, NULL, 0},
        {"part.halo_owner", "I32", {nh, 0}, 1, 4 * nh, 0, p->halo_owner, NULL, 0},
        {"node_ids", "U8", {ids_len, 0}, 1, ids_len, 0, NULL, ds->node_ids, n},
        {"edge_features", "F32", {E, D}, 2, 4 * E * D, 0, ds->edge_x, NULL, 0},
    };
    int nt = default_ids ? 9 : 10;
    if (D > 0) t[nt++] = t[10]; /* the edges' features, in the part's in-CSR order */
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) return st;
    if (!(root = cJSON_CreateObject()) || !(md = dataset_meta(root, GATD_PART_FORMAT, ds, name)) ||
        !add_num(md, "halo", p->n_halo) || !add_num(md, "part", p->part) ||
        !add_num(md, "parts", p->n_parts) || !add_num(md, "global_nodes", p->n_global) ||
        !add_hex(md, "fingerprint", p->fingerprint) || !add_hex(md, "assignment", p->assignment) ||
        !add_tensors(root, t, nt)) {
        st = gat_i_error(GAT_ENOMEM, "out of memory building the header of %s", path);
        goto cleanup;
    }
    st = write_file(path, root, t, nt);

cleanup:
    cJSON_Delete(root);
    gat_i_clocale_leave(&loc);
    return st;
}
