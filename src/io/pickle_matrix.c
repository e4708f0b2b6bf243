/* The checks that turn an unpickled value into a matrix (pickle.h, gat_i_pickle_matrix): a 2-D
 * ndarray as it is, or a scipy csr_matrix whose state dict holds a well-formed CSR. */
#include "core/core.h"
#include "io/pickle.h"

#include <stdio.h>
#include <string.h>

#define NO_VALUE UINT32_MAX

uint32_t gat_i_pickle_dict_get(const gat_i_pickle *pk, const gat_i_pval *d, const char *key)
{
    const size_t len = strlen(key);
    for (size_t k = 0; k + 1 < d->u.seq.n; k += 2) {
        const gat_i_pval *kv = &pk->val[d->u.seq.item[k]];
        if (kv->kind == GAT_I_PK_STR && kv->u.str.len == len && !memcmp(kv->u.str.s, key, len))
            return d->u.seq.item[k + 1];
    }
    return NO_VALUE;
}

static gat_status bad_matrix(const gat_i_pickle *pk, const gat_i_pval *v, const char *what)
{
    return gat_i_error(GAT_EFORMAT, "%s: the %s at byte %zu: %s", pk->path,
                       gat_i_pkind_name(v->kind), v->at, what);
}

/* State entry key of csr v as a 1-D integer (or, for data, any) array. */
static gat_status csr_array(const gat_i_pickle *pk, const gat_i_pval *v, const gat_i_pval *state,
                            const char *key, int integer, gat_i_parray *out)
{
    char msg[128];
    const uint32_t id = gat_i_pickle_dict_get(pk, state, key);
    const gat_i_pval *a = id == NO_VALUE ? NULL : &pk->val[id];
    if (!a) {
        snprintf(msg, sizeof msg, "its state has no '%s'", key);
        return bad_matrix(pk, v, msg);
    }
    if (a->kind != GAT_I_PK_NDARRAY || a->u.arr.ndim != 1) {
        snprintf(msg, sizeof msg, "'%s' is not a 1-D numpy.ndarray", key);
        return bad_matrix(pk, v, msg);
    }
    if (integer && a->u.arr.dtype != GAT_I_PD_I4 && a->u.arr.dtype != GAT_I_PD_I8) {
        snprintf(msg, sizeof msg, "'%s' has dtype %s, expected i4 or i8", key,
                 gat_i_pdtype_name(a->u.arr.dtype));
        return bad_matrix(pk, v, msg);
    }
    *out = a->u.arr;
    return GAT_OK;
}

static gat_status csr_matrix(const gat_i_pickle *pk, const gat_i_pval *v, gat_i_pmatrix *m)
{
    char msg[192];
    gat_status st;
    if (!v->flag) return bad_matrix(pk, v, "it has no state (no BUILD)");
    const gat_i_pval *state = &pk->val[v->u.state];
    const uint32_t fmt = gat_i_pickle_dict_get(pk, state, "format");
    const uint32_t shape_id = gat_i_pickle_dict_get(pk, state, "_shape");
    if (fmt != NO_VALUE && (pk->val[fmt].kind != GAT_I_PK_STR || pk->val[fmt].u.str.len != 3 ||
                            memcmp(pk->val[fmt].u.str.s, "csr", 3)))
        return bad_matrix(pk, v, "its 'format' is not 'csr'");
    const gat_i_pval *shape = shape_id == NO_VALUE ? NULL : &pk->val[shape_id];
    if (!shape || shape->kind != GAT_I_PK_TUPLE || shape->u.seq.n != 2 ||
        pk->val[shape->u.seq.item[0]].kind != GAT_I_PK_INT ||
        pk->val[shape->u.seq.item[1]].kind != GAT_I_PK_INT ||
        pk->val[shape->u.seq.item[0]].u.i < 0 || pk->val[shape->u.seq.item[1]].u.i < 0)
        return bad_matrix(pk, v, "its '_shape' is not a tuple of two ints >= 0");
    m->sparse = 1;
    m->rows = pk->val[shape->u.seq.item[0]].u.i;
    m->cols = pk->val[shape->u.seq.item[1]].u.i;
    if ((st = csr_array(pk, v, state, "indptr", 1, &m->indptr)) != GAT_OK ||
        (st = csr_array(pk, v, state, "indices", 1, &m->indices)) != GAT_OK ||
        (st = csr_array(pk, v, state, "data", 0, &m->data)) != GAT_OK)
        return st;
    if ((uint64_t)m->rows + 1 != m->indptr.count) {
        snprintf(msg, sizeof msg, "'indptr' has %zu entries, its %lld rows need %lld",
                 m->indptr.count, (long long)m->rows, (long long)m->rows + 1);
        return bad_matrix(pk, v, msg);
    }
    if (m->indices.count != m->data.count) {
        snprintf(msg, sizeof msg, "'indices' has %zu entries, 'data' %zu", m->indices.count,
                 m->data.count);
        return bad_matrix(pk, v, msg);
    }
    int64_t prev = 0;
    for (size_t r = 0; r <= (size_t)m->rows; r++) {
        const int64_t p = gat_i_parray_int(&m->indptr, r);
        if ((r == 0 && p != 0) || p < prev || (uint64_t)p > m->indices.count) {
            snprintf(msg, sizeof msg, "'indptr'[%zu] = %lld (expected %s)", r, (long long)p,
                     r == 0 ? "0" : "non-decreasing, at most the number of indices");
            return bad_matrix(pk, v, msg);
        }
        prev = p;
    }
    if ((uint64_t)prev != m->indices.count) {
        snprintf(msg, sizeof msg, "'indptr' ends at %lld, 'indices' has %zu entries",
                 (long long)prev, m->indices.count);
        return bad_matrix(pk, v, msg);
    }
    for (size_t k = 0; k < m->indices.count; k++) {
        const int64_t c = gat_i_parray_int(&m->indices, k);
        if (c < 0 || c >= m->cols) {
            snprintf(msg, sizeof msg, "'indices'[%zu] = %lld is outside [0, %lld)", k, (long long)c,
                     (long long)m->cols);
            return bad_matrix(pk, v, msg);
        }
    }
    return GAT_OK;
}

gat_status gat_i_pickle_matrix(const gat_i_pickle *pk, uint32_t k, gat_i_pmatrix *m)
{
    const gat_i_pval *v = &pk->val[k];
    memset(m, 0, sizeof *m);
    if (v->kind == GAT_I_PK_CSR) return csr_matrix(pk, v, m);
    if (v->kind != GAT_I_PK_NDARRAY)
        return bad_matrix(pk, v, "expected a scipy csr_matrix or a 2-D numpy.ndarray");
    if (!v->flag) return bad_matrix(pk, v, "it has no state (no BUILD)");
    if (v->u.arr.ndim != 2) {
        char msg[64];
        snprintf(msg, sizeof msg, "it has %d dimensions, expected 2", v->u.arr.ndim);
        return bad_matrix(pk, v, msg);
    }
    m->rows = v->u.arr.shape[0];
    m->cols = v->u.arr.shape[1];
    m->dense = v->u.arr;
    return GAT_OK;
}
