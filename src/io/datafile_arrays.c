/* The arrays of a .gatd or part file (io/datafile_i.h): each tensor checked in one pass (CSR
 * shape and order, ranges, finite values, UTF-8 ids) and pointed into the mapping where byte
 * order and alignment allow, else converted into a copy. */
#include "io/datafile_i.h"
#include "core/core.h"
#include "core/strmap.h"
#include "io/safetensors.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct gat_i_gatd_tensor gat_i_gatd_spec[T_COUNT] = {
    {"graph.indptr", "I32", 4},    {"graph.indices", "I32", 4},
    {"features.indptr", "I32", 4}, {"features.indices", "I32", 4},
    {"features.data", "F32", 4},   {"features", "F32", 4},
    {"labels", "I32", 4},          {"split", "U8", 1},
    {"node_ids", "U8", 1},         {"edge_features", "F32", 4},
    {"edge_input", "I32", 4},      {"graphs.ptr", "I32", 4},
    {"graphs.labels", "I32", 4},   {"label_matrix", "U8", 1},
    {"splits", "U8", 1},           {"part.global_ids", "I32", 4},
    {"part.halo_owner", "I32", 4},
};

/* Number of elements tensor k's shape holds, 0 for an absent tensor. */
size_t gat_i_gatd_count(const reader *R, int k)
{
    size_t c = 1;
    for (int d = 0; d < R->ndim[k]; d++)
        c *= R->dims[k][d];
    return R->present[k] ? c : 0;
}

/* The I32 tensor k as gat_idx values: a pointer into the mapping when aligned on a
 * little-endian host, else a converted copy (owned by the dataset through *out). */
gat_status gat_i_gatd_idx_array(const reader *R, int k, gat_idx **out)
{
    const unsigned char *p = R->data + R->span[k][0];
    const size_t c = gat_i_gatd_count(R, k);
    if (HOST_LE && (uintptr_t)p % sizeof(gat_idx) == 0) {
        *out = (gat_idx *)(uintptr_t)p;
        return GAT_OK;
    }
    if (!(*out = gat_malloc(c ? c : 1, sizeof **out))) return GAT_ENOMEM;
    for (size_t i = 0; i < c; i++, p += 4)
        (*out)[i] = (gat_idx)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                              (uint32_t)p[3] << 24);
    return GAT_OK;
}

static float f32_at(const unsigned char *p, size_t i)
{
    p += 4 * i;
    const uint32_t u =
        (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A CSR (row pointers ptr (rows+1), indices idx) of the tensors kp, ki: starts at 0, never
 * decreases, ends at nnz, indices in [0, cols) strictly ascending per row; with loops, every row
 * i holds i. */
gat_status gat_i_gatd_check_csr(const reader *R, int kp, int ki, const gat_idx *ptr,
                                const gat_idx *idx, gat_idx rows, gat_idx cols, int loops)
{
    const size_t nnz = gat_i_gatd_count(R, ki);
    if (ptr[0] != 0)
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" starts at %d, expected 0", R->path,
                           gat_i_gatd_spec[kp].name, ptr[0]);
    for (gat_idx i = 0; i < rows; i++)
        if (ptr[i + 1] < ptr[i])
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"%s\" decreases at row %d: %d after %d (row pointers "
                               "never decrease)",
                               R->path, gat_i_gatd_spec[kp].name, i, ptr[i + 1], ptr[i]);
    if ((size_t)ptr[rows] != nnz)
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"%s\" ends at %d, expected %zu (the length "
                           "of \"%s\")",
                           R->path, gat_i_gatd_spec[kp].name, ptr[rows], nnz,
                           gat_i_gatd_spec[ki].name);
    for (gat_idx i = 0; i < rows; i++) {
        int loop = 0;
        for (gat_idx e = ptr[i]; e < ptr[i + 1]; e++) {
            if (idx[e] < 0 || idx[e] >= cols)
                return gat_i_error(GAT_EFORMAT,
                                   "%s: tensor \"%s\" entry %d (row %d) is %d, outside [0, %d)",
                                   R->path, gat_i_gatd_spec[ki].name, e, i, idx[e], cols);
            if (e > ptr[i] && idx[e] <= idx[e - 1])
                return gat_i_error(GAT_EFORMAT,
                                   "%s: tensor \"%s\" row %d is not strictly ascending: %d "
                                   "after %d (entry %d)",
                                   R->path, gat_i_gatd_spec[ki].name, i, idx[e], idx[e - 1], e);
            loop |= idx[e] == i;
        }
        if (loops && !loop)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"%s\" row %d lacks the self-loop %d -> %d (every node "
                               "has one)",
                               R->path, gat_i_gatd_spec[ki].name, i, i, i);
    }
    return GAT_OK;
}

/* The node ids: the blob's n NUL-terminated strings (pointing into it), or "0".."n-1" in one
 * owned block; checked distinct. */
gat_status gat_i_gatd_read_ids(reader *R)
{
    gat_dataset *ds = R->ds;
    const gat_idx n = ds->n;
    gat_i_strmap map = {0};
    gat_status st = GAT_OK;
    char **ids = gat_calloc((size_t)n, sizeof *ids);
    if (!(ds->node_ids = (const char *const *)ids)) return GAT_ENOMEM;
    if (!R->present[T_IDS]) {
        /* a part's nodes are named by their global ids */
        const gat_idx *num = R->part ? R->part->global_ids : NULL;
        size_t len = 0;
        for (gat_idx i = 0; i < n; i++)
            len += (size_t)snprintf(NULL, 0, "%d", num ? num[i] : i) + 1;
        if (!(R->own->ids = gat_malloc(len ? len : 1, 1))) return GAT_ENOMEM;
        R->own->ids_len = len ? len : 1;
        char *w = R->own->ids;
        for (gat_idx i = 0; i < n; i++) {
            ids[i] = w;
            w += snprintf(w, 16, "%d", num ? num[i] : i) + 1;
        }
        return GAT_OK; /* distinct by construction */
    }
    /* the blob lies in the writable private mapping: its strings are used in place */
    char *blob = (char *)(uintptr_t)(R->data + R->span[T_IDS][0]);
    const size_t len = gat_i_gatd_count(R, T_IDS);
    size_t at = 0;
    gat_idx i = 0;
    for (; i < n && at < len; i++) {
        const char *nul = memchr(blob + at, '\0', len - at);
        if (!nul) break;
        ids[i] = blob + at;
        at = (size_t)(nul - blob) + 1;
    }
    if (i < n || at != len) {
        /* count the strings for the message */
        size_t k = 0;
        for (size_t b = 0; b < len; b++)
            k += blob[b] == '\0';
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"node_ids\" holds %zu NUL-terminated strings%s, expected "
                           "%d (one per node)",
                           R->path, k, len && blob[len - 1] ? " and an unterminated one" : "", n);
    }
    if ((st = gat_i_strmap_init(&map, (size_t)n)) != GAT_OK) return st;
    for (gat_idx j = 0; j < n; j++) {
        gat_idx *slot = gat_i_strmap_slot(&map, ids, ids[j]);
        if (*slot >= 0) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: tensor \"node_ids\": node %d has the id '%s' of node %d (ids "
                             "are distinct)",
                             R->path, j, ids[j], *slot);
            break;
        }
        *slot = j;
    }
    gat_i_strmap_free(&map);
    return st;
}

/* *out (C) from the metadata's JSON array of strings under key, or "0".."C-1" when absent; *count
 * is set to C as soon as *out is allocated (so that the dataset's destroy frees partial names). */
static gat_status read_names(reader *R, const cJSON *md, const char *key, gat_idx C,
                             const char *const **out, gat_idx *count)
{
    const char *s;
    const cJSON *it;
    cJSON *a = NULL;
    gat_i_strmap seen = {0};
    gat_status st = gat_i_st_meta_get(R->path, md, key, 0, &s);
    if (st != GAT_OK) return st;
    if (s && (!(a = cJSON_Parse(s)) || !cJSON_IsArray(a) || cJSON_GetArraySize(a) != C)) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: __metadata__ \"%s\" is not a JSON array of %d strings "
                         "(one per class)",
                         R->path, key, C);
        goto cleanup;
    }
    char **names = gat_calloc((size_t)C, sizeof *names);
    if (!(*out = (const char *const *)names)) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    *count = C;
    it = a ? a->child : NULL;
    for (gat_idx c = 0; c < C; c++, it = it ? it->next : NULL) {
        char num[16];
        snprintf(num, sizeof num, "%d", c);
        if (a && !cJSON_IsString(it)) {
            st = gat_i_error(GAT_EFORMAT, "%s: __metadata__ \"%s\" entry %d is not a string",
                             R->path, key, c);
            goto cleanup;
        }
        if (!(names[c] = gat_strdup(a ? it->valuestring : num))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
    }
    /* a class name must say which class: two classes of one name cannot be told apart in
     * predictions (the text readers make names distinct by construction) */
    if ((st = gat_i_strmap_init(&seen, (size_t)C)) != GAT_OK) goto cleanup;
    for (gat_idx c = 0; c < C; c++) {
        gat_idx *slot = gat_i_strmap_slot(&seen, names, names[c]);
        if (*slot >= 0) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: __metadata__ \"%s\" entries %d and %d are both '%s' "
                             "(class names must be distinct)",
                             R->path, key, *slot, c, names[c]);
            goto cleanup;
        }
        *slot = c;
    }
cleanup:
    gat_i_strmap_free(&seen);
    cJSON_Delete(a);
    return st;
}

gat_status gat_i_gatd_read_class_names(reader *R, const cJSON *md, gat_idx C)
{
    return read_names(R, md, "class_names", C, &R->ds->class_names, &R->ds->n_classes);
}

/* The graph segments of a dataset of many graphs: graphs.ptr (G + 1) from 0 to n strictly
 * increasing, no edge between two graphs (the CSR is checked already), graphs.labels (G) in
 * [0, graph_classes) with names "graph_class_names". */
static gat_status read_graphs(reader *R, const cJSON *md)
{
    gat_dataset *ds = R->ds;
    const gat_graph *g = &ds->graph;
    long GC = 0;
    gat_status st;
    if (!R->present[T_GRPTR]) {
        if (R->present[T_GRLAB])
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"graphs.labels\" without \"graphs.ptr\"",
                               R->path);
        return GAT_OK;
    }
    const size_t G1 = R->dims[T_GRPTR][0];
    if (G1 < 2 || G1 - 1 > (size_t)ds->n)
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"graphs.ptr\" has %zu entries, expected 2..%d (graphs + 1, "
                           "at most one graph per node)",
                           R->path, G1, ds->n + 1);
    const gat_idx G = (gat_idx)(G1 - 1);
    if ((st = gat_i_gatd_idx_array(R, T_GRPTR, &ds->graph_ptr)) != GAT_OK) return st;
    ds->n_graphs = G;
    const gat_idx *ptr = ds->graph_ptr;
    if (ptr[0] != 0 || ptr[G] != ds->n)
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"graphs.ptr\" runs from %d to %d, expected from 0 to %d "
                           "(the nodes)",
                           R->path, ptr[0], ptr[G], ds->n);
    for (gat_idx k = 0; k < G; k++) {
        if (ptr[k + 1] <= ptr[k])
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"graphs.ptr\": graph %d has no nodes (entries %d and "
                               "%d are %d and %d)",
                               R->path, k, k, k + 1, ptr[k], ptr[k + 1]);
        for (gat_idx i = ptr[k]; i < ptr[k + 1]; i++)
            for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
                if (g->col[e] < ptr[k] || g->col[e] >= ptr[k + 1])
                    return gat_i_error(GAT_EFORMAT,
                                       "%s: edge %d (node %d -> node %d) leaves graph %d (nodes "
                                       "%d..%d): no edge may join two graphs",
                                       R->path, e, g->col[e], i, k, ptr[k], ptr[k + 1] - 1);
    }
    if (!R->present[T_GRLAB]) return GAT_OK;
    if ((st = gat_i_st_meta_int(R->path, md, "graph_classes", 1, INT32_MAX, 1, &GC)) != GAT_OK)
        return st;
    if (R->dims[T_GRLAB][0] != (size_t)G)
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"graphs.labels\" has %zu entries, expected %d (graphs)",
                           R->path, R->dims[T_GRLAB][0], G);
    if ((st = gat_i_gatd_idx_array(R, T_GRLAB, &ds->graph_labels)) != GAT_OK) return st;
    for (gat_idx k = 0; k < G; k++)
        if (ds->graph_labels[k] < 0 || ds->graph_labels[k] >= GC)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"graphs.labels\": graph %d has label %d, outside "
                               "[0, %ld)",
                               R->path, k, ds->graph_labels[k], GC);
    return read_names(R, md, "graph_class_names", (gat_idx)GC, &ds->graph_class_names,
                      &ds->n_graph_classes);
}

gat_status gat_i_gatd_read_many(reader *R, const cJSON *md)
{
    gat_dataset *ds = R->ds;
    gat_status st;
    if ((st = read_graphs(R, md)) != GAT_OK || !R->present[T_LMAT]) return st;
    const size_t L = R->dims[T_LMAT][1];
    if (R->dims[T_LMAT][0] != (size_t)ds->n || L == 0 || L > (size_t)INT32_MAX)
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"label_matrix\" has shape (%zu, %zu), expected (%d, L) "
                           "with 1 <= L",
                           R->path, R->dims[T_LMAT][0], L, ds->n);
    if (R->classes != 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: a multi-label dataset (tensor \"label_matrix\") with %d classes, "
                           "expected 0",
                           R->path, R->classes);
    uint8_t *m = (uint8_t *)(uintptr_t)(R->data + R->span[T_LMAT][0]);
    for (size_t k = 0; k < (size_t)ds->n * L; k++)
        if (m[k] > 1)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"label_matrix\": node %zu, label %zu is %d, expected 0 "
                               "or 1",
                               R->path, k / L, k % L, m[k]);
    ds->label_matrix = m;
    ds->n_labels = (gat_idx)L;
    return GAT_OK;
}

/* ds->x from the CSR tensors (pointing into the mapping where possible) or the dense one. */
gat_status gat_i_gatd_read_features(reader *R)
{
    gat_dataset *ds = R->ds;
    gat_csr *x = &ds->x;
    const gat_idx n = ds->n, F = ds->n_features;
    gat_status st;
    x->rows = n;
    x->cols = F;
    if (R->present[T_XDENSE]) {
        const unsigned char *p = R->data + R->span[T_XDENSE][0];
        size_t nnz = 0;
        for (gat_idx i = 0; i < n; i++)
            for (gat_idx f = 0; f < F; f++) {
                const float v = f32_at(p, (size_t)i * (size_t)F + (size_t)f);
                if (!isfinite(v))
                    return gat_i_error(GAT_ENUMERIC,
                                       "%s: tensor \"features\": node %d ('%s'), column %d is %g "
                                       "(features must be finite)",
                                       R->path, i, ds->node_ids[i], f, (double)v);
                nnz += v != 0;
            }
        if (nnz > (size_t)INT32_MAX)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"features\" has %zu non-zeros, more "
                               "than %d",
                               R->path, nnz, INT32_MAX);
        if ((st = gat_csr_init(x, n, F, nnz)) != GAT_OK) return st;
        size_t k = 0;
        for (gat_idx i = 0; i < n; i++) {
            for (gat_idx f = 0; f < F; f++) {
                const float v = f32_at(p, (size_t)i * (size_t)F + (size_t)f);
                if (v != 0) x->col[k] = f, x->val[k++] = (gat_real)v;
            }
            x->rowptr[i + 1] = (gat_idx)k;
        }
        return GAT_OK;
    }
    if ((st = gat_i_gatd_idx_array(R, T_XPTR, &x->rowptr)) != GAT_OK ||
        (st = gat_i_gatd_idx_array(R, T_XIDX, &x->col)) != GAT_OK ||
        (st = gat_i_gatd_check_csr(R, T_XPTR, T_XIDX, x->rowptr, x->col, n, F, 0)) != GAT_OK)
        return st;
    const size_t nnz = gat_i_gatd_count(R, T_XIDX);
    const unsigned char *p = R->data + R->span[T_XVAL][0];
    x->capacity = nnz;
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++) {
            const float v = f32_at(p, (size_t)k);
            if (!isfinite(v))
                return gat_i_error(GAT_ENUMERIC,
                                   "%s: tensor \"features.data\": node %d ('%s'), column %d is %g "
                                   "(features must be finite)",
                                   R->path, i, ds->node_ids[i], x->col[k], (double)v);
        }
    if (HOST_LE && sizeof(gat_real) == 4 && (uintptr_t)p % 4 == 0) {
        x->val = (gat_real *)(uintptr_t)p;
        return GAT_OK;
    }
    if (!(x->val = gat_malloc(nnz ? nnz : 1, sizeof *x->val))) return GAT_ENOMEM;
    for (size_t k = 0; k < nnz; k++)
        x->val[k] = (gat_real)f32_at(p, k);
    return GAT_OK;
}

/* The optional edge tensors: edge_features (E, D) finite, copied into ds->edge_x; edge_input (E)
 * -1 exactly on the self-loops (all of them added by the builder), >= 0 elsewhere. */
gat_status gat_i_gatd_read_edges(reader *R)
{
    gat_dataset *ds = R->ds;
    const gat_graph *g = &ds->graph;
    gat_status st;
    if (R->present[T_EX]) {
        const size_t D = R->dims[T_EX][1], c = gat_i_gatd_count(R, T_EX);
        const unsigned char *p = R->data + R->span[T_EX][0];
        if (!(ds->edge_x = gat_malloc(c ? c : 1, sizeof *ds->edge_x))) return GAT_ENOMEM;
        for (size_t k = 0; k < c; k++) {
            const float v = f32_at(p, k);
            if (!isfinite(v))
                return gat_i_error(GAT_ENUMERIC,
                                   "%s: tensor \"edge_features\": edge %zu, column %zu is %g "
                                   "(edge features must be finite)",
                                   R->path, k / D, k % D, (double)v);
            ds->edge_x[k] = (gat_real)v;
        }
        ds->n_edge_features = (gat_idx)D;
    }
    if (!R->present[T_EIN]) return GAT_OK;
    if ((st = gat_i_gatd_idx_array(R, T_EIN, &ds->edge_input)) != GAT_OK) return st;
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
            const int loop = g->col[e] == i;
            if (loop ? ds->edge_input[e] != -1 : ds->edge_input[e] < 0)
                return gat_i_error(GAT_EFORMAT,
                                   "%s: tensor \"edge_input\" entry %d (edge %d -> %d) is %d, "
                                   "expected %s",
                                   R->path, e, g->col[e], i, ds->edge_input[e],
                                   loop ? "-1 (an added self-loop)" : "an input edge index >= 0");
        }
    return GAT_OK;
}

/* Checks a split row (tensor `tensor`, row `row` of it, or -1 for a 1-D tensor): values 0..3,
 * only labelled nodes in a split (any node of a multi-label dataset). */
static gat_status check_split_row(const reader *R, const uint8_t *split, const char *tensor,
                                  gat_idx row)
{
    static const char *const split_name[] = {"none", "train", "val", "test"};
    const gat_dataset *ds = R->ds;
    char where[48] = "";
    if (row >= 0) snprintf(where, sizeof where, " (split %d)", row);
    for (gat_idx i = 0; i < ds->n; i++) {
        if (split[i] > GAT_SPLIT_TEST)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"%s\"%s: node %d ('%s') has split value %d, "
                               "expected 0..3 (none, train, val, test)",
                               R->path, tensor, where, i, ds->node_ids[i], split[i]);
        if (split[i] != GAT_SPLIT_NONE && ds->labels[i] < 0 && ds->n_labels == 0)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"%s\"%s: node %d ('%s') is in the %s split but "
                               "has no label",
                               R->path, tensor, where, i, ds->node_ids[i], split_name[split[i]]);
    }
    return GAT_OK;
}

/* Labels in [-1, C), split values in 0..3 and only on labelled nodes, in "split" and every row
 * of "splits". */
gat_status gat_i_gatd_read_labels_split(reader *R, const gat_dataset_options *opt)
{
    gat_dataset *ds = R->ds;
    gat_status st;
    if ((st = gat_i_gatd_idx_array(R, T_LABELS, &ds->labels)) != GAT_OK) return st;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] < -1 || ds->labels[i] >= ds->n_classes)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"labels\": node %d ('%s') has label %d, outside "
                               "[-1, %d)",
                               R->path, i, ds->node_ids[i], ds->labels[i], ds->n_classes);
    uint8_t *split = (uint8_t *)(uintptr_t)(R->data + R->span[T_SPLIT][0]);
    if ((st = check_split_row(R, split, "split", -1)) != GAT_OK) return st;
    R->n_splits = 1;
    if (R->present[T_SPLITS]) {
        /* all S fixed splits, row k split k; "split" repeats row 0 for readers without them */
        uint8_t *rows = (uint8_t *)(uintptr_t)(R->data + R->span[T_SPLITS][0]);
        const size_t S = R->dims[T_SPLITS][0], n = (size_t)ds->n;
        if (R->dims[T_SPLITS][1] != n || S < 2 || S > (size_t)INT32_MAX)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"splits\" has shape (%zu, %zu), expected (S, %zu) "
                               "with S >= 2 (one row per fixed split, one column per node)",
                               R->path, S, R->dims[T_SPLITS][1], n);
        for (size_t k = 0; k < S; k++)
            if ((st = check_split_row(R, rows + k * n, "splits", (gat_idx)k)) != GAT_OK) return st;
        for (size_t i = 0; i < n; i++)
            if (rows[i] != split[i])
                return gat_i_error(GAT_EFORMAT,
                                   "%s: tensor \"split\" differs from row 0 of \"splits\" at "
                                   "node %zu ('%s'): %d against %d (it repeats that row)",
                                   R->path, i, ds->node_ids[i], split[i], rows[i]);
        R->n_splits = (gat_idx)S;
        /* split is the private mapping's copy of row 0, so that ds->split never aliases a row
         * of ds->splits (a caller may change it); gat_dataset_load switches to split K */
        if (!opt->ignore_split_file) ds->splits = rows;
    }
    if (!opt->ignore_split_file) {
        ds->split = split;
        return GAT_OK;
    }
    if (!(ds->split = gat_calloc((size_t)ds->n, sizeof *ds->split))) return GAT_ENOMEM;
    return gat_i_cuts(opt) ? GAT_OK : gat_i_random_split(ds, opt, R->path);
}

/* Reads the file R->path into R->ds (and R->part for a part file): opt's split and
 * normalisation apply to datasets; a part keeps its stored split and features. */
