/* Check suite of the bounded unpickler (src/io/pickle.c) and the Planetoid reader
 * (src/io/planetoid.c): pickles assembled here opcode by opcode as Python 2's protocol 2 and
 * Python 3's protocols 2 to 5 write them (no Python needed), good ones of every type and bad ones
 * (refused GLOBALs and opcodes, truncation at every byte, unset memo slots, lengths past the end,
 * shapes that disagree), then a
 * tiny three-class Planetoid set in the Cora layout (sparse f4, i4 labels) and the Pubmed layout
 * (f8 features, dense as well as sparse) through gat_dataset_load. */
#include "testutil.h"
#include "core/core.h"
#include "io/pickle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- A small pickler: opcodes into a buffer ---------------------------------------------- */

typedef struct pkb {
    unsigned char b[1 << 15];
    size_t n;
    int memo; /* next memo slot */
} pkb;

static void raw(pkb *p, const void *s, size_t n)
{
    ck_assert_uint_le(p->n + n, sizeof p->b);
    memcpy(p->b + p->n, s, n);
    p->n += n;
}
static void op(pkb *p, unsigned char c)
{
    raw(p, &c, 1);
}
static void le(pkb *p, uint64_t v, int bytes)
{
    for (int k = 0; k < bytes; k++)
        op(p, (unsigned char)(v >> (8 * k)));
}
static void put(pkb *p) /* BINPUT the top of the stack, as Python's pickler does */
{
    op(p, 'q');
    op(p, (unsigned char)p->memo++);
}
static void start(pkb *p)
{
    memset(p, 0, sizeof *p);
    p->memo = 1;
    op(p, 0x80);
    op(p, 2);
}
static void pint(pkb *p, long v)
{
    if (v >= 0 && v < 256) {
        op(p, 'K');
        le(p, (uint64_t)v, 1);
    } else if (v >= 0 && v < 65536) {
        op(p, 'M');
        le(p, (uint64_t)v, 2);
    } else {
        op(p, 'J');
        le(p, (uint64_t)(uint32_t)(int32_t)v, 4);
    }
}
static void sstr(pkb *p, const char *s)
{
    op(p, 'U');
    op(p, (unsigned char)strlen(s));
    raw(p, s, strlen(s));
}
static void binstr(pkb *p, const void *s, size_t n)
{
    op(p, 'T');
    le(p, n, 4);
    raw(p, s, n);
}
static void global(pkb *p, const char *module, const char *name)
{
    op(p, 'c');
    raw(p, module, strlen(module));
    op(p, '\n');
    raw(p, name, strlen(name));
    op(p, '\n');
}
/* A dtype's state after (3, order: None, None, None, -1, -1, 0), the tuple closed and built */
static void dtype_state_rest(pkb *p)
{
    op(p, 'N');
    op(p, 'N');
    op(p, 'N');
    pint(p, -1);
    pint(p, -1);
    pint(p, 0);
    op(p, 't');
    op(p, 'b');
}
/* numpy.dtype(t, 0, 1) with its state (3, order, None, None, None, -1, -1, 0) */
static void dtype(pkb *p, const char *t, const char *order)
{
    global(p, "numpy", "dtype");
    sstr(p, t);
    pint(p, 0);
    pint(p, 1);
    op(p, 0x87);
    op(p, 'R');
    put(p);
    op(p, '(');
    pint(p, 3);
    sstr(p, order);
    dtype_state_rest(p);
}
/* _reconstruct(ndarray, (0,), 'b') + BUILD (1, shape, dtype, False, bytes) */
static void ndarray(pkb *p, const char *t, int ndim, const long *shape, const void *data,
                    size_t nbytes)
{
    global(p, "numpy.core.multiarray", "_reconstruct");
    put(p);
    global(p, "numpy", "ndarray");
    put(p);
    pint(p, 0);
    op(p, 0x85);
    sstr(p, "b");
    op(p, 0x87);
    op(p, 'R');
    put(p);
    op(p, '(');
    pint(p, 1);
    op(p, '(');
    for (int d = 0; d < ndim; d++)
        pint(p, shape[d]);
    op(p, 't');
    dtype(p, t, strcmp(t, "b1") ? "<" : "|");
    op(p, 0x89);
    binstr(p, data, nbytes);
    op(p, 't');
    op(p, 'b');
}
static void ndarray1(pkb *p, const char *t, long n, const void *data, size_t nbytes)
{
    ndarray(p, t, 1, &n, data, nbytes);
}
/* A csr_matrix as scipy 0.x pickled it: NEWOBJ (or copy_reg._reconstructor) + BUILD dict. */
static void csr(pkb *p, int reconstructor, long rows, long cols, const int32_t *indptr,
                const int32_t *indices, const char *t, const void *data)
{
    const long nnz = indptr[rows];
    if (reconstructor) {
        global(p, "copy_reg", "_reconstructor");
        global(p, "scipy.sparse.csr", "csr_matrix");
        global(p, "__builtin__", "object");
        op(p, 'N');
        op(p, 0x87);
        op(p, 'R');
    } else {
        global(p, "scipy.sparse.csr", "csr_matrix");
        put(p);
        op(p, ')');
        op(p, 0x81);
    }
    put(p);
    op(p, '}');
    op(p, '(');
    sstr(p, "format");
    sstr(p, "csr");
    sstr(p, "_shape");
    pint(p, rows);
    pint(p, cols);
    op(p, 0x86);
    sstr(p, "indptr");
    ndarray1(p, "i4", rows + 1, indptr, (size_t)(rows + 1) * 4);
    sstr(p, "indices");
    ndarray1(p, "i4", nnz, indices, (size_t)nnz * 4);
    sstr(p, "data");
    ndarray1(p, t, nnz, data, (size_t)nnz * (strcmp(t, "f8") && strcmp(t, "i8") ? 4 : 8));
    sstr(p, "maxprint");
    pint(p, 50);
    op(p, 'u');
    op(p, 'b');
}
static void stop(pkb *p)
{
    op(p, '.');
}

/* Python 3's way (protocol 4 and 5): strings memoised one by one (MEMOIZE), globals from two
 * strings (STACK_GLOBAL), all in one FRAME whose length py3_stop fills in. */
static size_t frame_at;
static void py3_start(pkb *p, int protocol)
{
    memset(p, 0, sizeof *p);
    op(p, 0x80);
    op(p, (unsigned char)protocol);
    op(p, 0x95);
    frame_at = p->n;
    le(p, 0, 8);
}
static void py3_stop(pkb *p)
{
    op(p, '.');
    const size_t n = p->n - frame_at - 8;
    for (int k = 0; k < 8; k++)
        p->b[frame_at + (size_t)k] = (unsigned char)((uint64_t)n >> (8 * k));
}
static void memoize(pkb *p)
{
    op(p, 0x94);
}
static void ustr(pkb *p, const char *s) /* SHORT_BINUNICODE */
{
    op(p, 0x8c);
    op(p, (unsigned char)strlen(s));
    raw(p, s, strlen(s));
    memoize(p);
}
static void sglobal(pkb *p, const char *module, const char *name)
{
    ustr(p, module);
    ustr(p, name);
    op(p, 0x93);
    memoize(p);
}
/* numpy.dtype(t, False, True) with its state, as protocol 4 writes it */
static void dtype3(pkb *p, const char *t)
{
    sglobal(p, "numpy", "dtype");
    ustr(p, t);
    op(p, 0x89);
    op(p, 0x88);
    op(p, 0x87);
    op(p, 'R');
    memoize(p);
    op(p, '(');
    pint(p, 3);
    ustr(p, "<");
    dtype_state_rest(p);
}
/* A 1-D array: _frombuffer(BYTEARRAY8, dtype, (n,), 'C') as protocol 5 writes it (bytes8 = 0),
 * or _reconstruct + BUILD with BINBYTES (bytes8 = 1: BINBYTES8) as protocols 3 and 4 do. */
static void array3(pkb *p, int protocol5, int bytes8, const char *t, long n, const void *data,
                   size_t nbytes)
{
    if (protocol5) {
        sglobal(p, "numpy.core.numeric", "_frombuffer");
        op(p, '(');
        op(p, 0x96);
        le(p, nbytes, 8);
        raw(p, data, nbytes);
        memoize(p);
        dtype3(p, t);
        pint(p, n);
        op(p, 0x85);
        ustr(p, "C");
        op(p, 't');
        op(p, 'R');
        memoize(p);
        return;
    }
    sglobal(p, "numpy.core.multiarray", "_reconstruct");
    sglobal(p, "numpy", "ndarray");
    pint(p, 0);
    op(p, 0x85);
    op(p, 'C'); /* SHORT_BINBYTES b'b' */
    op(p, 1);
    op(p, 'b');
    op(p, 0x87);
    op(p, 'R');
    memoize(p);
    op(p, '(');
    pint(p, 1);
    pint(p, n);
    op(p, 0x85);
    dtype3(p, t);
    op(p, 0x89);
    op(p, bytes8 ? 0x8e : 'B');
    le(p, nbytes, bytes8 ? 8 : 4);
    raw(p, data, nbytes);
    op(p, 't');
    op(p, 'b');
}
/* The csr_matrix of test_csr as Python 3 pickles it: indptr by _frombuffer (protocol 5) or
 * BINBYTES, indices by BINBYTES8, data as the first. */
static void good_csr3(pkb *p, int protocol)
{
    const int32_t indptr[] = {0, 2, 2, 3}, indices[] = {1, 0, 2};
    const float data[] = {0.5f, 2, -1};
    py3_start(p, protocol);
    sglobal(p, "scipy.sparse._csr", "csr_matrix");
    op(p, ')');
    op(p, 0x81);
    memoize(p);
    op(p, '}');
    memoize(p);
    op(p, '(');
    ustr(p, "_shape");
    pint(p, 3);
    pint(p, 4);
    op(p, 0x86);
    memoize(p);
    ustr(p, "indptr");
    array3(p, protocol == 5, 0, "i4", 4, indptr, sizeof indptr);
    ustr(p, "indices");
    array3(p, 0, 1, "i4", 3, indices, sizeof indices);
    ustr(p, "data");
    array3(p, protocol == 5, 0, "f4", 3, data, sizeof data);
    op(p, 'u');
    op(p, 'b');
    py3_stop(p);
}

static void write_bytes(const char *path, const pkb *p)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p->b, 1, p->n, f), p->n);
    ck_assert_int_eq(fclose(f), 0);
}

static void parse_ok(gat_i_pickle *pk, const pkb *p)
{
    gat_status st = gat_i_pickle_parse(pk, "t.pkl", p->b, p->n);
    ck_assert_msg(st == GAT_OK, "parse: %s", gat_last_error());
}

#define PARSE_FAILS(p, status, substr) ASSERT_FAILS(parse_bad(p), status, substr)
static gat_status parse_bad(const pkb *p)
{
    gat_i_pickle pk;
    gat_status st = gat_i_pickle_parse(&pk, "t.pkl", p->b, p->n);
    static const gat_i_pickle zero;
    if (st == GAT_OK)
        gat_i_pickle_free(&pk);
    else
        ck_assert(memcmp(&pk, &zero, sizeof zero) == 0);
    return st;
}

static const gat_i_pval *item(const gat_i_pickle *pk, const gat_i_pval *v, size_t k)
{
    ck_assert_uint_gt(v->u.seq.n, k);
    return gat_i_pickle_at(pk, v->u.seq.item[k]);
}

/* ---- Good pickles ------------------------------------------------------------------------ */

/* Ints of every width, strings, None, bools, tuples of 0..4, a list (APPEND, APPENDS), a dict
 * (SETITEM, SETITEMS) and the memo (BINPUT/BINGET, LONG_BINPUT/LONG_BINGET): [0, 255, 65535,
 * -7, 70000, LONG1 -2, 'ab', u'é', None, True, False, (), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4),
 * {'k': 1, 'j': 'ab'}, 'ab' again from the memo]. */
START_TEST(test_scalars_and_containers)
{
    pkb p;
    gat_i_pickle pk;
    start(&p);
    op(&p, ']');
    put(&p);
    pint(&p, 0);
    op(&p, 'a');
    op(&p, '(');
    pint(&p, 255);
    pint(&p, 65535);
    pint(&p, -7);
    pint(&p, 70000);
    op(&p, 0x8a); /* LONG1 of 1 byte: -2 */
    op(&p, 1);
    op(&p, 0xfe);
    sstr(&p, "ab");
    op(&p, 'r'); /* LONG_BINPUT 40 */
    le(&p, 40, 4);
    op(&p, 'X'); /* BINUNICODE u'\xe9' as UTF-8 */
    le(&p, 2, 4);
    raw(&p, "\xc3\xa9", 2);
    op(&p, 'N');
    op(&p, 0x88);
    op(&p, 0x89);
    op(&p, ')');
    pint(&p, 1);
    op(&p, 0x85);
    pint(&p, 1);
    pint(&p, 2);
    op(&p, 0x86);
    pint(&p, 1);
    pint(&p, 2);
    pint(&p, 3);
    op(&p, 0x87);
    op(&p, '(');
    for (int k = 1; k <= 4; k++)
        pint(&p, k);
    op(&p, 't');
    op(&p, '}');
    sstr(&p, "k");
    pint(&p, 1);
    op(&p, 's');
    op(&p, '(');
    sstr(&p, "j");
    op(&p, 'j'); /* LONG_BINGET 40 */
    le(&p, 40, 4);
    op(&p, 'u');
    op(&p, 'h'); /* BINGET 1: the list itself (a cycle, harmless: nothing recurses) */
    op(&p, 1);
    op(&p, 'e');
    stop(&p);
    parse_ok(&pk, &p);

    const gat_i_pval *l = gat_i_pickle_at(&pk, pk.root);
    ck_assert_int_eq(l->kind, GAT_I_PK_LIST);
    ck_assert_uint_eq(l->u.seq.n, 18);
    const long ints[] = {0, 255, 65535, -7, 70000, -2};
    for (size_t k = 0; k < LEN(ints); k++) {
        ck_assert_int_eq(item(&pk, l, k)->kind, GAT_I_PK_INT);
        ck_assert_int_eq(item(&pk, l, k)->u.i, ints[k]);
    }
    ck_assert_int_eq(item(&pk, l, 6)->kind, GAT_I_PK_STR);
    ck_assert_uint_eq(item(&pk, l, 6)->u.str.len, 2);
    ck_assert(!memcmp(item(&pk, l, 6)->u.str.s, "ab", 2));
    ck_assert(!memcmp(item(&pk, l, 7)->u.str.s, "\xc3\xa9", 2));
    ck_assert_int_eq(item(&pk, l, 8)->kind, GAT_I_PK_NONE);
    ck_assert_int_eq(item(&pk, l, 9)->kind, GAT_I_PK_BOOL);
    ck_assert_int_eq(item(&pk, l, 9)->u.i, 1);
    ck_assert_int_eq(item(&pk, l, 10)->u.i, 0);
    for (size_t k = 0; k <= 4; k++) {
        const gat_i_pval *t = item(&pk, l, 11 + k);
        ck_assert_int_eq(t->kind, GAT_I_PK_TUPLE);
        ck_assert_uint_eq(t->u.seq.n, k);
        for (size_t j = 0; j < k; j++)
            ck_assert_int_eq(item(&pk, t, j)->u.i, (long)j + 1);
    }
    const gat_i_pval *d = item(&pk, l, 16);
    ck_assert_int_eq(d->kind, GAT_I_PK_DICT);
    ck_assert_int_eq(gat_i_pickle_at(&pk, gat_i_pickle_dict_get(&pk, d, "k"))->u.i, 1);
    ck_assert_ptr_eq(gat_i_pickle_at(&pk, gat_i_pickle_dict_get(&pk, d, "j")), item(&pk, l, 6));
    ck_assert_uint_eq(gat_i_pickle_dict_get(&pk, d, "absent"), UINT32_MAX);
    ck_assert_ptr_eq(item(&pk, l, 17), l);
    gat_i_pickle_free(&pk);
}
END_TEST

/* NumPy integer scalars (numpy.core.multiarray.scalar(dtype, bytes)) read as ints: [i8 -3,
 * i4 7 (its dtype from the memo), b1 True]; a float scalar and a short payload are refused. */
START_TEST(test_numpy_scalars)
{
    pkb p;
    gat_i_pickle pk;
    const int64_t m3 = -3;
    const int32_t seven = 7;
    start(&p);
    op(&p, ']');
    op(&p, '(');
    global(&p, "numpy.core.multiarray", "scalar");
    put(&p); /* memo 1 */
    dtype(&p, "i8", "<");
    binstr(&p, &m3, 8);
    op(&p, 0x86);
    op(&p, 'R');
    op(&p, 'h');
    op(&p, 1);
    dtype(&p, "i4", "<"); /* memo 3 */
    binstr(&p, &seven, 4);
    op(&p, 0x86);
    op(&p, 'R');
    op(&p, 'h');
    op(&p, 1);
    dtype(&p, "b1", "|");
    binstr(&p, "\x01", 1);
    op(&p, 0x86);
    op(&p, 'R');
    op(&p, 'e');
    stop(&p);
    parse_ok(&pk, &p);
    const gat_i_pval *l = gat_i_pickle_at(&pk, pk.root);
    ck_assert_uint_eq(l->u.seq.n, 3);
    ck_assert_int_eq(item(&pk, l, 0)->kind, GAT_I_PK_INT);
    ck_assert_int_eq(item(&pk, l, 0)->u.i, -3);
    ck_assert_int_eq(item(&pk, l, 1)->u.i, 7);
    ck_assert_int_eq(item(&pk, l, 2)->kind, GAT_I_PK_BOOL);
    ck_assert_int_eq(item(&pk, l, 2)->u.i, 1);
    gat_i_pickle_free(&pk);

    start(&p);
    global(&p, "numpy.core.multiarray", "scalar");
    dtype(&p, "f8", "<");
    binstr(&p, &m3, 8);
    op(&p, 0x86);
    op(&p, 'R');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "REDUCE: a numpy scalar of dtype f8 is not supported");
    start(&p);
    global(&p, "numpy.core.multiarray", "scalar");
    dtype(&p, "i8", "<");
    binstr(&p, &seven, 4);
    op(&p, 0x86);
    op(&p, 'R');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "REDUCE: a numpy scalar of dtype i8 in 4 bytes");
}
END_TEST

/* A (2, 3) ndarray of each dtype, read back as a dense matrix. */
START_TEST(test_ndarray_dtypes)
{
    static const char *const types[] = {"f4", "f8", "i4", "i8", "b1"};
    const double want[6] = {1, 0, -2.5, 3, 0, 1};
    unsigned char data[48];
    pkb p;
    gat_i_pickle pk;
    gat_i_pmatrix m;
    const char *t = types[_i];
    for (int k = 0; k < 6; k++) {
        const double v = _i == 4 ? (want[k] != 0) : (_i >= 2 ? trunc(want[k]) : want[k]);
        const float f = (float)v;
        const int32_t i4 = (int32_t)v;
        const int64_t i8 = (int64_t)v;
        const unsigned char b = v != 0;
        if (_i == 0) memcpy(data + 4 * k, &f, 4);
        if (_i == 1) memcpy(data + 8 * k, &v, 8);
        if (_i == 2) memcpy(data + 4 * k, &i4, 4);
        if (_i == 3) memcpy(data + 8 * k, &i8, 8);
        if (_i == 4) data[k] = b;
    }
    const long shape[2] = {2, 3};
    start(&p);
    ndarray(&p, t, 2, shape, data, 6 * (_i == 4 ? 1 : strchr(t, '8') ? 8 : 4));
    stop(&p);
    parse_ok(&pk, &p);
    ck_assert_int_eq(gat_i_pickle_matrix(&pk, pk.root, &m), GAT_OK);
    ck_assert(!m.sparse);
    ck_assert_int_eq(m.rows, 2);
    ck_assert_int_eq(m.cols, 3);
    ck_assert_int_eq(m.dense.dtype, _i);
    for (size_t k = 0; k < 6; k++) {
        const double v = _i == 4 ? (want[k] != 0) : (_i >= 2 ? trunc(want[k]) : want[k]);
        ck_assert_double_eq(gat_i_parray_real(&m.dense, k), v);
    }
    gat_i_pickle_free(&pk);
}
END_TEST

/* Integer arrays of 1, 2, 4 and 8 bytes, signed and unsigned (one-hot labels of uint8, say):
 * [-1 or the largest, 0, 200] read back as numbers; a uint64 above INT64_MAX saturates. */
START_TEST(test_ndarray_integers)
{
    static const char *const types[] = {"i1", "i2", "u1", "u2", "u4", "u8"};
    static const int width[] = {1, 2, 1, 2, 4, 8};
    const char *t = types[_i];
    const int w = width[_i], is_signed = t[0] == 'i';
    unsigned char data[24] = {0};
    memset(data, 0xff, (size_t)w); /* -1, or the type's largest */
    data[2 * w] = is_signed && w == 1 ? 100 : 200;
    pkb p;
    gat_i_pickle pk;
    start(&p);
    ndarray1(&p, t, 3, data, 3 * (size_t)w);
    stop(&p);
    parse_ok(&pk, &p);
    const gat_i_pval *a = gat_i_pickle_at(&pk, pk.root);
    ck_assert_int_eq(a->kind, GAT_I_PK_NDARRAY);
    const int64_t first = is_signed ? -1
                          : w == 8  ? INT64_MAX
                                    : (int64_t)((UINT64_C(1) << (8 * w)) - 1);
    ck_assert_int_eq(gat_i_parray_int(&a->u.arr, 0), first);
    ck_assert_int_eq(gat_i_parray_int(&a->u.arr, 1), 0);
    ck_assert_int_eq(gat_i_parray_int(&a->u.arr, 2), is_signed && w == 1 ? 100 : 200);
    ck_assert_double_eq(gat_i_parray_real(&a->u.arr, 2), is_signed && w == 1 ? 100 : 200);
    gat_i_pickle_free(&pk);
}
END_TEST

/* A csr_matrix made by NEWOBJ (_i = 0) or copy_reg._reconstructor (_i = 1). */
START_TEST(test_csr)
{
    const int32_t indptr[] = {0, 2, 2, 3}, indices[] = {1, 0, 2};
    const float data[] = {0.5f, 2, -1};
    pkb p;
    gat_i_pickle pk;
    gat_i_pmatrix m;
    start(&p);
    csr(&p, _i, 3, 4, indptr, indices, "f4", data);
    stop(&p);
    parse_ok(&pk, &p);
    ck_assert_int_eq(gat_i_pickle_at(&pk, pk.root)->kind, GAT_I_PK_CSR);
    ck_assert_int_eq(gat_i_pickle_matrix(&pk, pk.root, &m), GAT_OK);
    ck_assert(m.sparse);
    ck_assert_int_eq(m.rows, 3);
    ck_assert_int_eq(m.cols, 4);
    ck_assert_uint_eq(m.indices.count, 3);
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(gat_i_parray_int(&m.indices, (size_t)k), indices[k]);
        ck_assert_double_eq(gat_i_parray_real(&m.data, (size_t)k), data[k]);
    }
    gat_i_pickle_free(&pk);
}
END_TEST

/* The csr_matrix of test_csr as Python 3 writes it: protocol 4 (_i = 0; FRAME, MEMOIZE,
 * STACK_GLOBAL, BINBYTES, BINBYTES8) and 5 (_i = 1; numpy's _frombuffer of BYTEARRAY8). */
START_TEST(test_csr_python3)
{
    pkb p;
    gat_i_pickle pk;
    gat_i_pmatrix m;
    good_csr3(&p, 4 + _i);
    parse_ok(&pk, &p);
    ck_assert_int_eq(gat_i_pickle_matrix(&pk, pk.root, &m), GAT_OK);
    ck_assert(m.sparse);
    ck_assert_int_eq(m.rows, 3);
    ck_assert_int_eq(m.cols, 4);
    const int32_t indices[] = {1, 0, 2};
    const float data[] = {0.5f, 2, -1};
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(gat_i_parray_int(&m.indices, (size_t)k), indices[k]);
        ck_assert_double_eq(gat_i_parray_real(&m.data, (size_t)k), data[k]);
    }
    ck_assert_int_eq(gat_i_parray_int(&m.indptr, 3), 3);
    gat_i_pickle_free(&pk);
}
END_TEST

/* Python 3's protocol 2 writes bytes as _codecs.encode(str, 'latin1'), the str holding one code
 * point per byte (UTF-8 in the file): an f8 array of bytes above 0x7f, its str memoised and
 * encoded twice (the same bytes both times); a code point past U+00FF, another codec and the
 * encoding of bytes are refused. */
static void latin1(pkb *p, const unsigned char *bytes, size_t n) /* BINUNICODE of the bytes */
{
    unsigned char u[64];
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (bytes[k] < 0x80) {
            u[m++] = bytes[k];
        } else {
            u[m++] = (unsigned char)(0xC0 | bytes[k] >> 6);
            u[m++] = (unsigned char)(0x80 | (bytes[k] & 0x3F));
        }
    op(p, 'X');
    le(p, m, 4);
    raw(p, u, m);
}
static void encode(pkb *p, const unsigned char *bytes, size_t n)
{
    global(p, "_codecs", "encode");
    latin1(p, bytes, n);
    put(p);
    sstr(p, "latin1");
    op(p, 0x86);
    op(p, 'R');
}
static void arg_not_latin1(pkb *p) /* BINUNICODE "a\u0100" */
{
    op(p, 'X');
    le(p, 3, 4);
    raw(p, "a\xc4\x80", 3);
}
static void arg_ab(pkb *p)
{
    sstr(p, "ab");
}
static void arg_encoded(pkb *p)
{
    encode(p, (const unsigned char *)"ab", 2);
}
/* _codecs.encode(arg, codec) fails with msg. */
static void encode_fails(void (*arg)(pkb *), const char *codec, const char *msg)
{
    pkb p;
    start(&p);
    global(&p, "_codecs", "encode");
    arg(&p);
    sstr(&p, codec);
    op(&p, 0x86);
    op(&p, 'R');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, msg);
}
START_TEST(test_codecs_encode)
{
    const double v[2] = {-1.5e300, 0.1};
    unsigned char b[16];
    memcpy(b, v, sizeof v);
    pkb p;
    gat_i_pickle pk;
    int slot = 0;
    start(&p);
    op(&p, ']');
    op(&p, '(');
    for (int k = 0; k < 2; k++) {
        global(&p, "numpy.core.multiarray", "_reconstruct");
        global(&p, "numpy", "ndarray");
        pint(&p, 0);
        op(&p, 0x85);
        encode(&p, (const unsigned char *)"b", 1);
        op(&p, 0x87);
        op(&p, 'R');
        op(&p, '(');
        pint(&p, 1);
        pint(&p, 2);
        op(&p, 0x85);
        dtype(&p, "f8", "<");
        op(&p, 0x89);
        if (k == 0) {
            slot = p.memo; /* encode's put: the str */
            encode(&p, b, sizeof b);
        } else { /* the same str again, from the memo */
            global(&p, "_codecs", "encode");
            op(&p, 'h');
            op(&p, (unsigned char)slot);
            sstr(&p, "latin1");
            op(&p, 0x86);
            op(&p, 'R');
        }
        op(&p, 't');
        op(&p, 'b');
    }
    op(&p, 'e');
    stop(&p);
    parse_ok(&pk, &p);
    const gat_i_pval *l = gat_i_pickle_at(&pk, pk.root);
    for (size_t k = 0; k < 2; k++) {
        const gat_i_pval *a = item(&pk, l, k);
        ck_assert_int_eq(a->kind, GAT_I_PK_NDARRAY);
        ck_assert_double_eq(gat_i_parray_real(&a->u.arr, 0), v[0]);
        ck_assert_double_eq(gat_i_parray_real(&a->u.arr, 1), v[1]);
    }
    gat_i_pickle_free(&pk);

    /* U+0100; another codec; bytes encoded again */
    encode_fails(arg_not_latin1, "latin1",
                 "REDUCE: _codecs.encode: byte 1 of the string is not UTF-8 of a Latin-1 "
                 "character");
    encode_fails(arg_ab, "utf8", "REDUCE: _codecs.encode expects (str, 'latin1')");
    encode_fails(arg_encoded, "latin1", "REDUCE: _codecs.encode of bytes already encoded");
}
END_TEST

/* Faults of the protocol 4 and 5 opcodes: a frame or a bytes8 length past the end, a
 * STACK_GLOBAL of a non-str or a refused name, _frombuffer of a bad order or a Fortran-ordered
 * matrix, and protocol 6. */
START_TEST(test_python3_malformed)
{
    pkb p;
    py3_start(&p, 4);
    op(&p, 'N');
    py3_stop(&p);
    ck_assert_int_eq(parse_bad(&p), GAT_OK);
    p.b[frame_at] = 3; /* a frame of 3 bytes where 2 are */
    PARSE_FAILS(&p, GAT_EFORMAT, "t.pkl: byte 2: FRAME: a frame of 3 bytes, 2 are left");
    p.b[frame_at + 7] = 1;
    PARSE_FAILS(&p, GAT_EFORMAT, "FRAME: a frame of 72057594037927939 bytes, 2 are left");
    py3_start(&p, 4);
    op(&p, 0x8e);
    le(&p, (uint64_t)1 << 63, 8);
    py3_stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "byte 11: BINBYTES8: needs 9223372036854775808 bytes, 1 are left");
    py3_start(&p, 4);
    pint(&p, 1);
    ustr(&p, "ndarray");
    op(&p, 0x93);
    py3_stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "STACK_GLOBAL: the module is a int, not a str");
    py3_start(&p, 4);
    sglobal(&p, "builtins", "eval");
    py3_stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "STACK_GLOBAL: 'builtins.eval' is not allowed");
    const int32_t four[4] = {1, 2, 3, 4};
    for (int k = 0; k < 2; k++) {
        py3_start(&p, 5);
        sglobal(&p, "numpy._core.numeric", "_frombuffer");
        op(&p, '(');
        op(&p, 'C');
        op(&p, 16);
        raw(&p, four, 16);
        dtype3(&p, "i4");
        pint(&p, 2);
        pint(&p, 2);
        op(&p, 0x86);
        ustr(&p, k ? "F" : "X");
        op(&p, 't');
        op(&p, 'R');
        py3_stop(&p);
        PARSE_FAILS(&p, GAT_EFORMAT,
                    k ? "REDUCE: Fortran-ordered arrays are not supported"
                      : "REDUCE: numpy _frombuffer expects (bytes, dtype, shape, 'C' or 'F')");
    }
    p.n = 0;
    op(&p, 0x80);
    op(&p, 6);
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "byte 0: PROTO: protocol 6 is not supported (expected at most 5)");
}
END_TEST

/* ---- Bad pickles ------------------------------------------------------------------------- */

/* The pickle of test_csr, for the corruption tests. */
static void good_csr(pkb *p)
{
    const int32_t indptr[] = {0, 2, 2, 3}, indices[] = {1, 0, 2};
    const float data[] = {0.5f, 2, -1};
    start(p);
    csr(p, 0, 3, 4, indptr, indices, "f4", data);
    stop(p);
}

START_TEST(test_refused)
{
    pkb p;
    /* the classic exploit: os.system('...') */
    start(&p);
    global(&p, "os", "system");
    sstr(&p, "echo hi");
    op(&p, 0x85);
    op(&p, 'R');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "t.pkl: byte 2: GLOBAL: 'os.system' is not allowed");
    /* an allowed name in the wrong module */
    start(&p);
    global(&p, "posix", "ndarray");
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "'posix.ndarray' is not allowed");
    /* an allowed class called with REDUCE */
    start(&p);
    global(&p, "__builtin__", "list");
    op(&p, ')');
    op(&p, 'R');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "byte 21: REDUCE: this class or function may not be called");
    /* a text-protocol opcode (INT) and a protocol from the future */
    start(&p);
    raw(&p, "I1\n.", 4);
    PARSE_FAILS(&p, GAT_EFORMAT, "byte 2: opcode: 0x49 is not one this reader accepts");
    p.n = 0;
    op(&p, 0x80);
    op(&p, 200);
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT,
                "byte 0: PROTO: protocol 200 is not supported (expected at most 5)");
    /* a big-endian dtype, a string dtype, a Fortran-ordered matrix */
    const int32_t one = 1;
    const long shape[2] = {1, 1};
    start(&p);
    global(&p, "numpy", "dtype");
    sstr(&p, "i4");
    pint(&p, 0);
    pint(&p, 1);
    op(&p, 0x87);
    op(&p, 'R');
    op(&p, '(');
    pint(&p, 3);
    sstr(&p, ">");
    op(&p, 'N');
    op(&p, 'N');
    op(&p, 'N');
    op(&p, 't');
    op(&p, 'b');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "BUILD: numpy.dtype byte order '>' is not supported");
    start(&p);
    ndarray(&p, "S4", 2, shape, &one, 4);
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "REDUCE: numpy.dtype 'S4' is not supported");
    start(&p);
    ndarray(&p, "i4", 2, shape, &one, 4);
    p.b[p.n - 12] = 0x88; /* the fortran flag: before BINSTRING (9 bytes), TUPLE and BUILD */
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "Fortran-ordered arrays are not supported");
    /* BUILD on an int */
    start(&p);
    pint(&p, 1);
    op(&p, '}');
    op(&p, 'b');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "BUILD: a int takes no state");
}
END_TEST

START_TEST(test_malformed)
{
    pkb p;
    /* BINGET of a memo slot never set */
    start(&p);
    op(&p, 'N');
    put(&p);
    op(&p, 'h');
    op(&p, 7);
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "byte 5: BINGET: memo slot 7 was never set");
    /* a LONG_BINPUT index no pickler writes */
    start(&p);
    op(&p, 'N');
    op(&p, 'r');
    le(&p, 4000000000u, 4);
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "LONG_BINPUT: memo index 4000000000 is larger than the file");
    /* a length past the end */
    start(&p);
    op(&p, 'T');
    le(&p, 1000, 4);
    raw(&p, "abc", 3);
    PARSE_FAILS(&p, GAT_EFORMAT, "byte 2: BINSTRING: needs 1000 bytes, 3 are left");
    start(&p);
    op(&p, 'T');
    le(&p, 0xfffffff0u, 4);
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "BINSTRING: a negative length");
    /* array bytes that do not match the shape */
    const int32_t v[3] = {1, 2, 3};
    start(&p);
    ndarray1(&p, "i4", 3, v, 8);
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT,
                "numpy.ndarray data holds 8 bytes, its shape needs 12 (3 "
                "elements of i4)");
    /* stack faults: too few values, no mark, two values at STOP, bytes after STOP */
    start(&p);
    op(&p, 'N');
    op(&p, 0x86);
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "byte 3: TUPLE2: the stack holds too few values");
    start(&p);
    op(&p, 't');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "TUPLE: no MARK before it");
    start(&p);
    op(&p, 'N');
    op(&p, 'N');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "STOP: the stack does not hold exactly one value");
    start(&p);
    op(&p, 'N');
    stop(&p);
    op(&p, 'N');
    PARSE_FAILS(&p, GAT_EFORMAT, "STOP: 1 bytes follow it");
    start(&p);
    pint(&p, 1);
    op(&p, '(');
    op(&p, 'e');
    stop(&p);
    PARSE_FAILS(&p, GAT_EFORMAT, "APPENDS: appends to a int, not a list");
    /* a tuple from an empty stack is fine: "(t." is () */
    start(&p);
    op(&p, '(');
    op(&p, 't');
    stop(&p);
    ck_assert_int_eq(parse_bad(&p), GAT_OK);
    /* an empty file */
    p.n = 0;
    PARSE_FAILS(&p, GAT_EFORMAT, "byte 0: the end of the file: no STOP opcode");
}
END_TEST

/* The good csr_matrix pickle _i: Python 2's (0), Python 3's protocol 4 (1) and 5 (2). */
static void good_pickle(pkb *p, int i)
{
    if (i == 0)
        good_csr(p);
    else
        good_csr3(p, 3 + i);
}

/* Every proper prefix of a good pickle fails with GAT_EFORMAT (never reads past the end); for
 * Python 3's, with the frame's length cut too, so that the opcodes after it are cut. */
START_TEST(test_truncated)
{
    pkb p, cut;
    good_pickle(&p, _i);
    for (size_t n = 0; n < p.n; n++) {
        memcpy(&cut, &p, sizeof p);
        cut.n = n;
        for (int k = 0; _i && k < 8 && n > frame_at + 8; k++)
            cut.b[frame_at + (size_t)k] = (unsigned char)((uint64_t)(n - frame_at - 8) >> (8 * k));
        ck_assert_int_eq(parse_bad(&cut), GAT_EFORMAT);
    }
    if (_i) return;
    /* cut 3 bytes into indptr's 16 bytes */
    for (size_t k = 0; k + 5 <= p.n; k++)
        if (!memcmp(p.b + k, "T\x10\x00\x00\x00", 5)) {
            cut.n = k + 8;
            break;
        }
    PARSE_FAILS(&cut, GAT_EFORMAT, "BINSTRING: needs 16 bytes, 3 are left");
}
END_TEST

/* Every byte of a good pickle replaced by each of a few values: the parser and the matrix
 * check either accept or fail with GAT_EFORMAT, never anything else (ASan watches the reads). */
START_TEST(test_mutations)
{
    static const unsigned char vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff, '(', 't', 'h', 'b', 'R'};
    pkb p, bad;
    good_pickle(&p, _i);
    for (size_t k = 0; k < p.n; k++)
        for (size_t v = 0; v < LEN(vals); v++) {
            gat_i_pickle pk;
            gat_i_pmatrix m;
            memcpy(&bad, &p, sizeof p);
            bad.b[k] = vals[v];
            gat_status st = gat_i_pickle_parse(&pk, "t.pkl", bad.b, bad.n);
            if (st == GAT_OK) {
                st = gat_i_pickle_matrix(&pk, pk.root, &m);
                gat_i_pickle_free(&pk);
            }
            ck_assert_msg(st == GAT_OK || st == GAT_EFORMAT, "byte %zu = %u: %s", k, vals[v],
                          gat_last_error());
        }
}
END_TEST

/* csr_matrix states that break the CSR rules. */
START_TEST(test_bad_csr)
{
    const float data[] = {1, 2, 3};
    pkb p;
    gat_i_pickle pk;
    gat_i_pmatrix m;
    struct {
        long rows, cols;
        int32_t indptr[4], indices[3];
        const char *msg;
    } cases[] = {
        {3, 4, {0, 2, 1, 3}, {0, 1, 2}, "'indptr'[2] = 1 (expected non-decreasing"},
        {3, 4, {1, 2, 2, 3}, {0, 1, 2}, "'indptr'[0] = 1 (expected 0)"},
        {3, 2, {0, 2, 2, 3}, {0, 1, 2}, "'indices'[2] = 2 is outside [0, 2)"},
        {2, 4, {0, 2, 3, 0}, {0, 1, 2}, "'indptr' has 4 entries, its 2 rows need 3"},
    };
    for (size_t c = 0; c < LEN(cases); c++) {
        start(&p);
        /* written with the shape of the arrays, then _shape patched to the case's */
        csr(&p, 0, 3, 4, cases[c].indptr, cases[c].indices, "f4", data);
        stop(&p);
        for (size_t k = 0; k + 12 <= p.n; k++)
            if (!memcmp(p.b + k, "U\x06_shapeK\x03K\x04", 12)) {
                p.b[k + 9] = (unsigned char)cases[c].rows;
                p.b[k + 11] = (unsigned char)cases[c].cols;
            }
        parse_ok(&pk, &p);
        ASSERT_FAILS(gat_i_pickle_matrix(&pk, pk.root, &m), GAT_EFORMAT, cases[c].msg);
        ck_assert_msg(strstr(gat_last_error(), "t.pkl: the scipy csr_matrix at byte 34"), "%s",
                      gat_last_error());
        gat_i_pickle_free(&pk);
    }
    /* a 1-D array is no matrix; a dict is neither */
    start(&p);
    ndarray1(&p, "f4", 3, data, 12);
    stop(&p);
    parse_ok(&pk, &p);
    ASSERT_FAILS(gat_i_pickle_matrix(&pk, pk.root, &m), GAT_EFORMAT,
                 "the numpy.ndarray at byte 64: it has 1 dimensions, expected 2");
    gat_i_pickle_free(&pk);
    start(&p);
    op(&p, '}');
    stop(&p);
    parse_ok(&pk, &p);
    ASSERT_FAILS(gat_i_pickle_matrix(&pk, pk.root, &m), GAT_EFORMAT,
                 "expected a scipy csr_matrix or a 2-D numpy.ndarray");
    gat_i_pickle_free(&pk);
}
END_TEST

/* ---- A tiny Planetoid set ---------------------------------------------------------------- */

/* 13 nodes, 4 features, 3 classes: allx rows 0..7 (y: the first 3, one per class), test ids 11,
 * 8, 12, 9 in that order (tx rows 0..3), so that node 10 is a gap in the test range (as in
 * Citeseer). Features of node i: column i % 4 = i + 1, and column (i + 1) % 4 = 0.5 for even i;
 * class i % 3; node 10: none. */
#define TN 13
#define TF 4
#define TC 3
#define TA 8
static const long test_ids[] = {11, 8, 12, 9};

/* The feature columns the writers use: TF, or Pubmed's 500 TF-IDF values (test_planetoid_pubmed),
 * where node i has (i + 1) / 64 in column 37 i mod 500 and 1 / 128 in the next one for even i
 * (fractions exact in float and double alike). */
#define PUBMED_F 500
static int nf = TF;

static double feat(int i, int c)
{
    if (i == 10) return 0;
    if (nf == PUBMED_F) {
        if (c == 37 * i % nf) return (i + 1) / 64.0;
        if (i % 2 == 0 && c == (37 * i + 1) % nf) return 1 / 128.0;
        return 0;
    }
    if (c == i % TF) return i + 1;
    if (i % 2 == 0 && c == (i + 1) % TF) return 0.5;
    return 0;
}

/* Node of row r of the matrix `part` (0: x/y, 1: allx/ally, 2: tx/ty). */
static int node_of(int part, int r)
{
    return part == 2 ? (int)test_ids[r] : r;
}

/* layout 0: Cora's (csr f4 features with one unsorted row and a duplicate entry, i4 labels);
 * 1: Pubmed's types (csr f8 features, i8 labels, written with copy_reg._reconstructor);
 * 2: dense f8 features and f8 labels. */
static void write_matrix(const char *dir, const char *name, int part, int labels, int layout)
{
    const int rows = part == 0 ? 3 : part == 1 ? TA : 4, cols = labels ? TC : nf;
    char path[4200];
    int32_t indptr[TA + 1], indices[2 * TA + 2];
    double vals[2 * TA + 2], dense[TA * PUBMED_F];
    int nnz = 0;
    pkb p;
    start(&p);
    indptr[0] = 0;
    for (int r = 0; r < rows; r++) {
        const int i = node_of(part, r);
        for (int c = 0; c < cols; c++) {
            const double v = labels ? (c == i % TC) : feat(i, c);
            dense[r * cols + c] = v;
            if (v != 0) {
                indices[nnz] = c;
                vals[nnz++] = v;
            }
        }
        indptr[r + 1] = nnz;
    }
    if (!labels && part == 2 && layout == 0) {
        /* tx row 1 (node 8: columns 0 = 9 and 1 = 0.5) stored as 1 = 0.25, 0 = 9, 1 = 0.25 */
        const int at = indptr[1];
        memmove(indices + at + 3, indices + at + 2, (size_t)(nnz - at - 2) * sizeof *indices);
        memmove(vals + at + 3, vals + at + 2, (size_t)(nnz - at - 2) * sizeof *vals);
        indices[at] = 1, vals[at] = 0.25;
        indices[at + 1] = 0, vals[at + 1] = 9;
        indices[at + 2] = 1, vals[at + 2] = 0.25;
        nnz++;
        for (int r = 2; r <= rows; r++)
            indptr[r]++;
    }
    if (labels && layout < 2) {
        int32_t i4[TA * TC];
        int64_t i8[TA * TC];
        for (int k = 0; k < rows * cols; k++)
            i4[k] = (int32_t)dense[k], i8[k] = (int64_t)dense[k];
        const long shape[2] = {rows, cols};
        if (layout == 0)
            ndarray(&p, "i4", 2, shape, i4, (size_t)(rows * cols) * 4);
        else
            ndarray(&p, "i8", 2, shape, i8, (size_t)(rows * cols) * 8);
    } else if (layout == 2) {
        const long shape[2] = {rows, cols};
        ndarray(&p, "f8", 2, shape, dense, (size_t)(rows * cols) * 8);
    } else if (layout == 0) {
        float f4[2 * TA + 2];
        for (int k = 0; k < nnz; k++)
            f4[k] = (float)vals[k];
        csr(&p, 0, rows, cols, indptr, indices, "f4", f4);
    } else {
        csr(&p, 1, rows, cols, indptr, indices, "f8", vals);
    }
    stop(&p);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_bytes(path, &p);
}

/* The graph: defaultdict(list) {0: [1, 1, 0], 1: [2], 2: [], 3: [4], 5: [6, 7, 8], 9: [12],
 * 11: [12, 3], 12: [11]} (duplicates, a self-loop, an empty list; 4, 6, 7, 8, 10 never keys;
 * node 10 isolated). layout 1 writes the ids as LONG1 (Python 2 longs). */
static void write_graph(const char *dir, const char *name, int layout)
{
    static const int keys[] = {0, 1, 2, 3, 5, 9, 11, 12};
    static const int nb[][4] = {{3, 1, 1, 0}, {1, 2},  {0},        {1, 4},
                                {3, 6, 7, 8}, {1, 12}, {2, 12, 3}, {1, 11}};
    char path[4200];
    pkb p;
    start(&p);
    global(&p, "collections", "defaultdict");
    put(&p);
    global(&p, "__builtin__", "list");
    put(&p);
    op(&p, 0x85);
    op(&p, 'R');
    put(&p);
    op(&p, '(');
    for (size_t k = 0; k < LEN(keys); k++) {
        pint(&p, keys[k]);
        op(&p, ']');
        put(&p);
        if (nb[k][0]) op(&p, '(');
        for (int j = 1; j <= nb[k][0]; j++) {
            if (layout == 1) {
                op(&p, 0x8a);
                op(&p, 1);
                op(&p, (unsigned char)nb[k][j]);
            } else {
                pint(&p, nb[k][j]);
            }
        }
        if (nb[k][0]) op(&p, 'e');
    }
    op(&p, 'u');
    stop(&p);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_bytes(path, &p);
}

/* dir/ind.NAME.* in the given layout. */
static void write_planetoid(const char *dir, const char *name, int layout)
{
    static const char *const parts[3][2] = {{"x", "y"}, {"allx", "ally"}, {"tx", "ty"}};
    char file[256], text[64] = "";
    for (int part = 0; part < 3; part++)
        for (int l = 0; l < 2; l++) {
            snprintf(file, sizeof file, "ind.%s.%s", name, parts[part][l]);
            write_matrix(dir, file, part, l, layout);
        }
    snprintf(file, sizeof file, "ind.%s.graph", name);
    write_graph(dir, file, layout);
    for (size_t k = 0; k < LEN(test_ids); k++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%ld\n", test_ids[k]);
    snprintf(file, sizeof file, "ind.%s.test.index", name);
    tu_write(dir, file, text);
}

static int has_edge(const gat_graph *g, gat_idx j, gat_idx i)
{
    return tu_has_edge(g, j, i);
}

static void check_tiny(const gat_dataset *ds)
{
    static const int edges[][2] = {{0, 1}, {1, 2},  {3, 4},   {5, 6}, {5, 7},
                                   {5, 8}, {9, 12}, {11, 12}, {11, 3}};
    ck_assert_int_eq(ds->n, TN);
    ck_assert_int_eq(ds->n_features, nf);
    ck_assert_int_eq(ds->n_classes, TC);
    ck_assert_int_eq(ds->normalized, 0);
    for (gat_idx c = 0; c < TC; c++) {
        char name[8];
        snprintf(name, sizeof name, "c%d", c);
        ck_assert_str_eq(ds->class_names[c], name);
    }
    for (gat_idx i = 0; i < TN; i++) {
        char id[8];
        snprintf(id, sizeof id, "%d", i);
        ck_assert_str_eq(ds->node_ids[i], id);
        ck_assert_int_eq(ds->labels[i], i == 10 ? -1 : i % TC);
        double row[PUBMED_F] = {0};
        for (gat_idx e = ds->x.rowptr[i]; e < ds->x.rowptr[i + 1]; e++)
            row[ds->x.col[e]] = ds->x.val[e];
        for (int c = 0; c < nf; c++)
            ck_assert_msg(row[c] == feat(i, c), "node %d column %d: %g, expected %g", i, c, row[c],
                          feat(i, c));
        const uint8_t want = i < 3     ? GAT_SPLIT_TRAIN
                             : i < TA  ? GAT_SPLIT_VAL
                             : i == 10 ? GAT_SPLIT_NONE
                                       : GAT_SPLIT_TEST;
        ck_assert_int_eq(ds->split[i], want);
    }
    ck_assert_int_eq(ds->n_train, 3);
    ck_assert_int_eq(ds->n_val, 5);
    ck_assert_int_eq(ds->n_test, 4);
    /* symmetric edges plus one self-loop per node */
    ck_assert_int_eq(ds->graph.nnz, 2 * (gat_idx)LEN(edges) + TN);
    for (size_t k = 0; k < LEN(edges); k++) {
        ck_assert(has_edge(&ds->graph, edges[k][0], edges[k][1]));
        ck_assert(has_edge(&ds->graph, edges[k][1], edges[k][0]));
    }
    for (gat_idx i = 0; i < TN; i++)
        ck_assert(has_edge(&ds->graph, i, i));
}

/* The tiny set in each layout, as a prefix and as a directory named after it. */
START_TEST(test_planetoid_tiny)
{
    char *dir = tu_tmpdir(), sub[4200], prefix[4300];
    gat_dataset_options o;
    gat_dataset ds;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    snprintf(sub, sizeof sub, "%s/tiny", dir);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    write_planetoid(sub, "tiny", _i);
    snprintf(prefix, sizeof prefix, "%s/ind.tiny", sub);
    const char *paths[] = {prefix, sub};
    for (int k = 0; k < 2; k++) {
        gat_status st = gat_dataset_load(&ds, paths[k], &o);
        ck_assert_msg(st == GAT_OK, "%s: %s", paths[k], gat_last_error());
        check_tiny(&ds);
        gat_dataset_destroy(&ds);
    }
    char found[4400];
    ck_assert_int_eq(gat_dataset_locate(prefix, found, sizeof found), GAT_OK);
    ck_assert_str_eq(found, prefix);
    /* directed: edges key -> neighbour only */
    o.symmetrize = 0;
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, &o), GAT_OK);
    ck_assert(has_edge(&ds.graph, 0, 1) && !has_edge(&ds.graph, 1, 0));
    ck_assert(has_edge(&ds.graph, 12, 11) && has_edge(&ds.graph, 11, 12));
    gat_dataset_destroy(&ds);
    /* the default options row-normalise; ignore_split_file draws the random split */
    gat_dataset_options_default(&o);
    o.ignore_split_file = 1;
    o.train_per_class = 1;
    o.n_val = o.n_test = 2;
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, &o), GAT_OK);
    ck_assert_int_eq(ds.normalized, 1);
    ck_assert_int_eq(ds.n_train, 3);
    ck_assert_int_eq(ds.n_val, 2);
    ck_assert_int_eq(ds.n_test, 2);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Pubmed's layout (its files are not available offline): 3 classes, 500 TF-IDF features as a
 * float64 CSR, int64 one-hot labels, copy_reg._reconstructor (layout 1), read as the tiny set:
 * every feature of every node in place, the public split. */
START_TEST(test_planetoid_pubmed)
{
    char *dir = tu_tmpdir(), prefix[4200];
    gat_dataset_options o;
    gat_dataset ds;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    nf = PUBMED_F;
    write_planetoid(dir, "pubmed", 1);
    snprintf(prefix, sizeof prefix, "%s/ind.pubmed", dir);
    gat_status st = gat_dataset_load(&ds, prefix, &o);
    nf = TF;
    ck_assert_msg(st == GAT_OK, "%s", gat_last_error());
    nf = PUBMED_F;
    check_tiny(&ds); /* n_features 500, 3 classes, every value, the split */
    nf = TF;
    ck_assert_int_eq(ds.x.rowptr[TN], 6 * 2 + 6); /* 6 even nodes with 2 values, 6 odd with 1 */
    gat_dataset_destroy(&ds);
    /* the default options row-normalise TF-IDF rows (non-negative) */
    gat_dataset_options_default(&o);
    nf = PUBMED_F;
    write_planetoid(dir, "pubmed", 1);
    nf = TF;
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, &o), GAT_OK);
    ck_assert_int_eq(ds.normalized, 1);
    ck_assert_int_eq(ds.n_features, PUBMED_F);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Files that disagree, each with its exact status and message. */
START_TEST(test_planetoid_bad)
{
    char *dir = tu_tmpdir(), prefix[4200], file[4300];
    gat_dataset ds;
    pkb p;
    snprintf(prefix, sizeof prefix, "%s/ind.bad", dir);

    /* ally with one row fewer than allx */
    write_planetoid(dir, "bad", 0);
    write_matrix(dir, "ind.bad.ally", 0, 1, 0);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT, "ind.bad.ally has 3 rows but");
    ck_assert(strstr(gat_last_error(), "ind.bad.allx has 8"));
    /* tx with a different number of columns */
    write_planetoid(dir, "bad", 0);
    write_matrix(dir, "ind.bad.tx", 2, 1, 0);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT, "ind.bad.tx has 3 columns but");
    /* test.index: a duplicate, an id before the test nodes, too few, not a number */
    write_planetoid(dir, "bad", 0);
    tu_write(dir, "ind.bad.test.index", "11\n8\n11\n9\n");
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "ind.bad.test.index:3: test id 11 is listed twice (first on line 1)");
    tu_write(dir, "ind.bad.test.index", "11\n7\n12\n9\n");
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "the smallest test id is 7, expected 8");
    tu_write(dir, "ind.bad.test.index", "11\n8\n12\n");
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "ind.bad.test.index has 3 ids but");
    tu_write(dir, "ind.bad.test.index", "8\n9\n11\n20\n");
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "the test ids span 8 .. 20, 4 ids for 13 nodes: more than half of the range");
    tu_write(dir, "ind.bad.test.index", "11\n8\nx12\n9\n");
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "ind.bad.test.index:3: expected one node id (an integer >= 0), got 'x12'");
    /* a label row that is not one-hot; a training node without a class */
    write_planetoid(dir, "bad", 0);
    int64_t ally[TA * TC] = {0};
    for (int r = 0; r < TA; r++)
        ally[r * TC + r % TC] = r == 1 ? 2 : 1;
    const long ashape[2] = {TA, TC};
    start(&p);
    ndarray(&p, "i8", 2, ashape, ally, sizeof ally);
    stop(&p);
    snprintf(file, sizeof file, "%s/ind.bad.ally", dir);
    write_bytes(file, &p);
    ASSERT_FAILS(
        gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
        "ind.bad.ally: row 1 is not one-hot (1 non-zero entries, the first 2 in column 1)");
    ally[1 * TC + 1] = 0;
    start(&p);
    ndarray(&p, "i8", 2, ashape, ally, sizeof ally);
    stop(&p);
    write_bytes(file, &p);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "ind.bad.ally: row 1 (node 1, in the train split) has no class: all zeros");
    /* a graph entry outside the nodes, a graph that is a list */
    write_planetoid(dir, "bad", 0);
    start(&p);
    op(&p, '}');
    pint(&p, 3);
    op(&p, ']');
    pint(&p, 13);
    op(&p, 'a');
    op(&p, 's');
    stop(&p);
    snprintf(file, sizeof file, "%s/ind.bad.graph", dir);
    write_bytes(file, &p);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "ind.bad.graph: byte 6: expected a node id in [0, 13), got 13");
    start(&p);
    op(&p, ']');
    stop(&p);
    write_bytes(file, &p);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "ind.bad.graph: the pickle holds a list, expected a dict");
    /* a NaN feature; a refused GLOBAL inside one of the files; a missing file */
    write_planetoid(dir, "bad", 0);
    double nan_rows[TA * TF] = {0};
    nan_rows[2 * TF + 3] = NAN;
    const long xshape[2] = {TA, TF};
    start(&p);
    ndarray(&p, "f8", 2, xshape, nan_rows, sizeof nan_rows);
    stop(&p);
    snprintf(file, sizeof file, "%s/ind.bad.allx", dir);
    write_bytes(file, &p);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_ENUMERIC,
                 "ind.bad.allx: row 2, column 3: feature nan is not a finite");
    start(&p);
    global(&p, "subprocess", "call");
    stop(&p);
    write_bytes(file, &p);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "ind.bad.allx: byte 2: GLOBAL: 'subprocess.call' is not allowed");
    write_planetoid(dir, "bad", 0);
    snprintf(file, sizeof file, "%s/ind.bad.ty", dir);
    ck_assert_int_eq(remove(file), 0);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EIO, "ind.bad.ty");
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Fails allocation k = 0, 1, ... until the load succeeds: GAT_ENOMEM each time, ds zeroed (leaks
 * show under ASan). */
START_TEST(test_planetoid_alloc_failures)
{
    char *dir = tu_tmpdir(), sub[4200];
    gat_dataset ds;
    static const gat_dataset zero;
    gat_status st = GAT_ENOMEM;
    long k;
    /* the directory form: gat_dataset_load's probe for DIR/ind.tiny.content allocates (and
     * takes a failure there as "no such file"), the directory's does not */
    snprintf(sub, sizeof sub, "%s/tiny", dir);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    write_planetoid(sub, "tiny", _i);
    for (k = 0; k < 100000; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_dataset_load(&ds, sub, NULL);
        if (st == GAT_OK) break;
        ck_assert_msg(st == GAT_ENOMEM, "failing allocation %ld: %s (%s)", k, gat_strerror(st),
                      gat_last_error());
        ck_assert(memcmp(&ds, &zero, sizeof zero) == 0);
    }
    gat_i_alloc_fail_at(-1);
    ck_assert_int_eq(st, GAT_OK);
    ck_assert_int_gt(k, 20);
    ck_assert_int_eq(ds.n, TN);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

static const char *write_to;

START_TEST(write_files)
{
    write_planetoid(write_to, "tiny", 1);
}
END_TEST

int main(int argc, char **argv)
{
    /* test_pickle --write-planetoid DIR: the tiny set in Pubmed's types as DIR/ind.tiny.*,
     * written by a Check test (the writers assert) */
    if (argc == 3 && !strcmp(argv[1], "--write-planetoid")) {
        write_to = argv[2];
        Suite *w = suite_create("write");
        TCase *tc = tcase_create("planetoid");
        tcase_add_test(tc, write_files);
        suite_add_tcase(w, tc);
        return tu_run(w);
    }
    Suite *s = suite_create("pickle");
    TCase *tc = tcase_create("good");
    tcase_add_test(tc, test_scalars_and_containers);
    tcase_add_test(tc, test_numpy_scalars);
    tcase_add_loop_test(tc, test_ndarray_dtypes, 0, 5);
    tcase_add_loop_test(tc, test_ndarray_integers, 0, 6);
    tcase_add_loop_test(tc, test_csr, 0, 2);
    tcase_add_loop_test(tc, test_csr_python3, 0, 2);
    tcase_add_test(tc, test_codecs_encode);
    suite_add_tcase(s, tc);

    tc = tcase_create("bad");
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_python3_malformed);
    tcase_add_loop_test(tc, test_truncated, 0, 3);
    tcase_add_loop_test(tc, test_mutations, 0, 3);
    tcase_add_test(tc, test_bad_csr);
    suite_add_tcase(s, tc);

    tc = tcase_create("planetoid");
    tcase_add_loop_test(tc, test_planetoid_tiny, 0, 3);
    tcase_add_test(tc, test_planetoid_pubmed);
    tcase_add_test(tc, test_planetoid_bad);
    tcase_add_loop_test(tc, test_planetoid_alloc_failures, 0, 3);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
