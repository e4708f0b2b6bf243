/* A bounded unpickler for exactly what the Planetoid pickles hold (pickle.h): one loop over the
 * opcodes of protocols 2 to 5 that such files use, a value stack, a mark stack and a memo, all
 * grown from the file's own opcodes (the matrix checks are in pickle_matrix.c). */
#include "io/pickle.h"
#include "core/core.h"
#include "io/fileio.h"

#include <stdio.h>
#include <string.h>

#define NO_VALUE UINT32_MAX

/* ---- Values ------------------------------------------------------------------------------ */

size_t gat_i_pdtype_size(gat_i_pdtype t)
{
    static const size_t size[] = {4, 8, 4, 8, 1, 1, 2, 1, 2, 4, 8};
    return size[t];
}

const char *gat_i_pdtype_name(gat_i_pdtype t)
{
    static const char *const name[] = {"f4", "f8", "i4", "i8", "b1", "i1",
                                       "i2", "u1", "u2", "u4", "u8"};
    return name[t];
}

const char *gat_i_pkind_name(gat_i_pkind k)
{
    static const char *const name[] = {
        "None", "bool",  "int",         "str",           "tuple",           "list",
        "dict", "class", "numpy.dtype", "numpy.ndarray", "scipy csr_matrix"};
    return name[k];
}

static uint64_t le_u(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t b = n; b-- > 0;)
        v = v << 8 | p[b];
    return v;
}

int64_t gat_i_parray_int(const gat_i_parray *a, size_t k)
{
    const unsigned char *p = a->data + k * gat_i_pdtype_size(a->dtype);
    switch (a->dtype) {
    case GAT_I_PD_I1:
        return (int8_t)p[0];
    case GAT_I_PD_I2:
        return (int16_t)(uint16_t)le_u(p, 2);
    case GAT_I_PD_I4:
        return (int32_t)(uint32_t)le_u(p, 4);
    case GAT_I_PD_I8:
        return (int64_t)le_u(p, 8);
    case GAT_I_PD_U1:
    case GAT_I_PD_U2:
    case GAT_I_PD_U4:
        return (int64_t)le_u(p, gat_i_pdtype_size(a->dtype));
    case GAT_I_PD_U8: {
        const uint64_t u = le_u(p, 8);
        return u > INT64_MAX ? INT64_MAX : (int64_t)u;
    }
    case GAT_I_PD_B1:
        return p[0] != 0;
    default: { /* a float: truncated, 0 for NaN or out of range (callers use integer arrays) */
        const double d = gat_i_parray_real(a, k);
        return d > -9.2e18 && d < 9.2e18 ? (int64_t)d : 0;
    }
    }
}

double gat_i_parray_real(const gat_i_parray *a, size_t k)
{
    const unsigned char *p = a->data + k * gat_i_pdtype_size(a->dtype);
    if (a->dtype == GAT_I_PD_F4) {
        uint32_t u = (uint32_t)le_u(p, 4);
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    if (a->dtype == GAT_I_PD_F8) {
        uint64_t u = le_u(p, 8);
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    return (double)gat_i_parray_int(a, k);
}

/* ---- The machine ------------------------------------------------------------------------- */

typedef struct machine {
    gat_i_pickle *pk;
    size_t pos, op_at; /* next byte; offset of the current opcode */
    const char *op;    /* name of the current opcode, for messages */
    uint32_t *stack;
    size_t sp, cap_stack;
    size_t *marks;
    size_t n_marks, cap_marks;
    uint32_t *memo;
    size_t cap_memo, memo_used; /* memo_used: the slots set, MEMOIZE's next index */
} machine;

static gat_status fail(const machine *m, const char *fmt, const char *a, const char *b)
{
    char what[320];
    snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
    return gat_i_error(GAT_EFORMAT, "%s: byte %zu: %s: %s", m->pk->path, m->op_at, m->op, what);
}

/* Grows *p (elements of size) to hold need elements. */
static gat_status grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return GAT_OK;
    size_t c = *cap < 16 ? 16 : *cap;
    while (c < need)
        c *= 2;
    void *q = gat_realloc(*(void **)p, c, size);
    if (!q) return GAT_ENOMEM;
    *(void **)p = q;
    *cap = c;
    return GAT_OK;
}

/* A new value of kind k made by the current opcode; *id gets its id. */
static gat_status new_value(machine *m, gat_i_pkind k, uint32_t *id)
{
    *id = 0;
    gat_i_pickle *pk = m->pk;
    if (pk->n_val >= NO_VALUE) return fail(m, "too many values%s%s", NULL, NULL);
    if (grow(&pk->val, &pk->cap_val, pk->n_val + 1, sizeof *pk->val) != GAT_OK) return GAT_ENOMEM;
    gat_i_pval *v = &pk->val[pk->n_val];
    memset(v, 0, sizeof *v);
    v->kind = k;
    v->at = m->op_at;
    *id = (uint32_t)pk->n_val++;
    return GAT_OK;
}

static gat_status push(machine *m, uint32_t id)
{
    if (grow(&m->stack, &m->cap_stack, m->sp + 1, sizeof *m->stack) != GAT_OK) return GAT_ENOMEM;
    m->stack[m->sp++] = id;
    return GAT_OK;
}

/* Pushes a new value of kind k; *out (if not NULL) points at it until the next new value. */
static gat_status push_new(machine *m, gat_i_pkind k, gat_i_pval **out)
{
    uint32_t id = 0;
    gat_status st;
    if ((st = new_value(m, k, &id)) != GAT_OK || (st = push(m, id)) != GAT_OK) return st;
    if (out) *out = &m->pk->val[id];
    return GAT_OK;
}

/* The bottom of the values above the last mark, which count gets (the opcode fails without a
 * mark or with one past the stack). */
static gat_status mark_base(machine *m, size_t *base)
{
    if (m->n_marks == 0) return fail(m, "no MARK before it%s%s", NULL, NULL);
    *base = m->marks[--m->n_marks];
    return GAT_OK;
}

/* The top n values must exist (above the last mark if any). */
static gat_status need(machine *m, size_t n)
{
    size_t floor = m->n_marks ? m->marks[m->n_marks - 1] : 0;
    if (m->sp - floor < n) return fail(m, "the stack holds too few values%s%s", NULL, NULL);
    return GAT_OK;
}

static gat_i_pval *at(const machine *m, uint32_t id)
{
    return &m->pk->val[id];
}

/* Appends count ids to seq value v. */
static gat_status seq_add(gat_i_pval *v, const uint32_t *ids, size_t count)
{
    if (count == 0) return GAT_OK; /* an empty tuple keeps item NULL */
    if (grow(&v->u.seq.item, &v->u.seq.cap, v->u.seq.n + count, sizeof *v->u.seq.item) != GAT_OK)
        return GAT_ENOMEM;
    memcpy(v->u.seq.item + v->u.seq.n, ids, count * sizeof *ids);
    v->u.seq.n += count;
    return GAT_OK;
}

/* Reads n bytes at the current position; fails when fewer are left. */
static gat_status take(machine *m, size_t n, const unsigned char **p)
{
    if (n > m->pk->len - m->pos) {
        char need_s[32], left[32];
        snprintf(need_s, sizeof need_s, "%zu", n);
        snprintf(left, sizeof left, "%zu", m->pk->len - m->pos);
        return fail(m, "needs %s bytes, %s are left", need_s, left);
    }
    *p = m->pk->buf + m->pos;
    m->pos += n;
    return GAT_OK;
}

/* A pushed tuple of the top n values (n <= 3, or all above the mark). */
static gat_status make_tuple(machine *m, size_t base)
{
    gat_i_pval *t;
    uint32_t items[3];
    size_t n = m->sp - base;
    gat_status st;
    /* the items leave the stack before the tuple is pushed: copy them first if few, else build
     * the tuple from the stack and then pop (an empty stack may not be allocated yet: no
     * pointer into it then) */
    if (n <= 3) {
        if (n) memcpy(items, m->stack + base, n * sizeof *items);
        m->sp = base;
        if ((st = push_new(m, GAT_I_PK_TUPLE, &t)) != GAT_OK) return st;
        return seq_add(t, items, n);
    }
    uint32_t id = 0;
    if ((st = new_value(m, GAT_I_PK_TUPLE, &id)) != GAT_OK ||
        (st = seq_add(at(m, id), m->stack + base, n)) != GAT_OK)
        return st;
    m->sp = base;
    return push(m, id);
}

/* ---- GLOBAL, REDUCE, NEWOBJ, BUILD ------------------------------------------------------- */

static const struct {
    const char *module, *name;
    gat_i_pglobal which;
} allowed[] = {
    {"numpy.core.multiarray", "_reconstruct", GAT_I_PG_RECONSTRUCT},
    {"numpy._core.multiarray", "_reconstruct", GAT_I_PG_RECONSTRUCT},
    {"numpy.core.multiarray", "scalar", GAT_I_PG_SCALAR},
    {"numpy._core.multiarray", "scalar", GAT_I_PG_SCALAR},
    {"numpy", "ndarray", GAT_I_PG_NDARRAY},
    {"numpy", "dtype", GAT_I_PG_DTYPE},
    {"scipy.sparse.csr", "csr_matrix", GAT_I_PG_CSR},
    {"scipy.sparse._csr", "csr_matrix", GAT_I_PG_CSR},
    {"scipy.sparse._csr", "csr_array", GAT_I_PG_CSR},
    {"scipy.sparse._arrays", "csr_array", GAT_I_PG_CSR},
    {"_codecs", "encode", GAT_I_PG_ENCODE},
    {"numpy.core.numeric", "_frombuffer", GAT_I_PG_FROMBUFFER},
    {"numpy._core.numeric", "_frombuffer", GAT_I_PG_FROMBUFFER},
    {"collections", "defaultdict", GAT_I_PG_DEFAULTDICT},
    {"__builtin__", "list", GAT_I_PG_LIST},
    {"builtins", "list", GAT_I_PG_LIST},
    {"copy_reg", "_reconstructor", GAT_I_PG_RECONSTRUCTOR},
    {"copyreg", "_reconstructor", GAT_I_PG_RECONSTRUCTOR},
    {"__builtin__", "object", GAT_I_PG_OBJECT},
    {"builtins", "object", GAT_I_PG_OBJECT},
};

/* One newline-terminated line of GLOBAL's argument, NUL-terminated into out. */
static gat_status global_line(machine *m, char *out, size_t size)
{
    const unsigned char *s = m->pk->buf + m->pos;
    const size_t left = m->pk->len - m->pos;
    const unsigned char *nl = memchr(s, '\n', left);
    if (!nl)
        return fail(m, "its name has no end of line before the end of the file%s%s", NULL, NULL);
    size_t n = (size_t)(nl - s);
    if (n >= size) return fail(m, "a name longer than 63 bytes%s%s", NULL, NULL);
    memcpy(out, s, n);
    out[n] = '\0';
    for (size_t k = 0; k < n; k++)
        if (out[k] < 0x20 || out[k] > 0x7e) out[k] = '?';
    m->pos += n + 1;
    return GAT_OK;
}

/* Pushes the allowed global module.name, or fails naming it. */
static gat_status push_global(machine *m, const char *module, const char *name)
{
    gat_status st;
    gat_i_pval *v;
    for (size_t k = 0; k < sizeof allowed / sizeof *allowed; k++)
        if (!strcmp(module, allowed[k].module) && !strcmp(name, allowed[k].name)) {
            if ((st = push_new(m, GAT_I_PK_GLOBAL, &v)) != GAT_OK) return st;
            v->u.i = allowed[k].which;
            return GAT_OK;
        }
    return fail(m,
                "'%s.%s' is not allowed (only the NumPy, SciPy and collections types of a "
                "Planetoid pickle are)",
                module, name);
}

static gat_status op_global(machine *m)
{
    char module[64], name[64];
    gat_status st;
    if ((st = global_line(m, module, sizeof module)) != GAT_OK ||
        (st = global_line(m, name, sizeof name)) != GAT_OK)
        return st;
    return push_global(m, module, name);
}

/* STACK_GLOBAL (protocol 4): module and name are the two strings on top of the stack. */
static gat_status op_stack_global(machine *m)
{
    char text[2][64];
    gat_status st;
    if ((st = need(m, 2)) != GAT_OK) return st;
    for (int k = 0; k < 2; k++) {
        const gat_i_pval *v = at(m, m->stack[m->sp - 2 + k]);
        if (v->kind != GAT_I_PK_STR)
            return fail(m, "the %s is a %s, not a str", k ? "name" : "module",
                        gat_i_pkind_name(v->kind));
        if (v->u.str.len >= sizeof text[k])
            return fail(m, "a name longer than 63 bytes%s%s", NULL, NULL);
        memcpy(text[k], v->u.str.s, v->u.str.len);
        text[k][v->u.str.len] = '\0';
        for (size_t c = 0; c < v->u.str.len; c++)
            if (text[k][c] < 0x20 || text[k][c] > 0x7e) text[k][c] = '?';
    }
    m->sp -= 2;
    return push_global(m, text[0], text[1]);
}

static int is_global(const gat_i_pval *v, gat_i_pglobal g)
{
    return v->kind == GAT_I_PK_GLOBAL && v->u.i == g;
}

/* The dtype named by a NumPy type string. */
static gat_status dtype_of(machine *m, const gat_i_pval *s, gat_i_pdtype *t)
{
    char shown[24];
    for (int k = 0; k <= GAT_I_PD_U8; k++)
        if (s->u.str.len == 2 && !memcmp(s->u.str.s, gat_i_pdtype_name((gat_i_pdtype)k), 2)) {
            *t = (gat_i_pdtype)k;
            return GAT_OK;
        }
    snprintf(shown, sizeof shown, "%.*s", s->u.str.len < 16 ? (int)s->u.str.len : 16,
             (const char *)s->u.str.s);
    for (char *c = shown; *c; c++)
        if (*c < 0x20 || *c > 0x7e) *c = '?';
    return fail(m,
                "numpy.dtype '%s' is not supported (expected f4, f8, b1, or i or u of 1, 2, 4 or "
                "8 bytes)%s",
                shown, NULL);
}

/* Whether t is a tuple of n items (any number with n == SIZE_MAX); *items gets them. */
static int is_tuple(const gat_i_pval *t, size_t n, const uint32_t **items)
{
    if (t->kind != GAT_I_PK_TUPLE || (n != SIZE_MAX && t->u.seq.n != n)) return 0;
    *items = t->u.seq.item;
    return 1;
}

/* Makes v (an ndarray) the array of shape (a tuple of ints), dt (a complete dtype) and raw
 * bytes (raw: a str or bytes of exactly the elements' size), C order (fortran only when at most
 * 1-D). */
static gat_status set_array(machine *m, gat_i_pval *v, const gat_i_pval *shape,
                            const gat_i_pval *dt, int fortran, const gat_i_pval *raw)
{
    if (shape->kind != GAT_I_PK_TUPLE || shape->u.seq.n > GAT_I_PK_MAXDIM)
        return fail(m, "numpy.ndarray shape is not a tuple of at most 4 ints%s%s", NULL, NULL);
    if (dt->kind != GAT_I_PK_DTYPE || !dt->flag)
        return fail(m, "numpy.ndarray state has no complete numpy.dtype%s%s", NULL, NULL);
    if (raw->kind != GAT_I_PK_STR)
        return fail(m,
                    "numpy.ndarray data is a %s, not raw bytes (object arrays are not "
                    "supported)",
                    gat_i_pkind_name(raw->kind), NULL);
    gat_i_parray a = {.dtype = (gat_i_pdtype)dt->u.i, .ndim = (int)shape->u.seq.n, .count = 1};
    for (int d = 0; d < a.ndim; d++) {
        const gat_i_pval *e = at(m, shape->u.seq.item[d]);
        if (e->kind != GAT_I_PK_INT || e->u.i < 0)
            return fail(m, "numpy.ndarray shape has a negative or non-int entry%s%s", NULL, NULL);
        a.shape[d] = e->u.i;
        /* SIZE_MAX stands for "too many", which no payload matches */
        if (a.count != SIZE_MAX)
            a.count = e->u.i && a.count > SIZE_MAX / (uint64_t)e->u.i ? SIZE_MAX
                                                                      : a.count * (size_t)e->u.i;
    }
    if (fortran && a.ndim > 1)
        return fail(m, "Fortran-ordered arrays are not supported%s%s", NULL, NULL);
    const size_t item = gat_i_pdtype_size(a.dtype);
    if (a.count == SIZE_MAX || a.count > SIZE_MAX / item || a.count * item != raw->u.str.len) {
        char got[48], want[64];
        snprintf(got, sizeof got, "%zu", raw->u.str.len);
        if (a.count == SIZE_MAX || a.count > SIZE_MAX / item)
            snprintf(want, sizeof want, "more than the file holds");
        else
            snprintf(want, sizeof want, "%zu (%zu elements of %s)", a.count * item, a.count,
                     gat_i_pdtype_name(a.dtype));
        return fail(m, "numpy.ndarray data holds %s bytes, its shape needs %s", got, want);
    }
    a.data = raw->u.str.s;
    v->u.arr = a;
    v->flag = 1;
    return GAT_OK;
}

/* _codecs.encode(s, 'latin1'): how Python 3 pickles bytes in protocol 2 (NumPy's raw data among
 * them), a str of code points below 256 (s: UTF-8 in the file) back to its bytes. They go to
 * pk->aux at s's own offset: no longer than s, so every string has room of its own there and
 * the same string encoded again writes the same bytes (memory stays the file's size). */
static gat_status latin1_bytes(machine *m, const gat_i_pval *s, const gat_i_pval *codec)
{
    gat_i_pickle *pk = m->pk;
    gat_i_pval *v;
    gat_status st;
    if (s->kind != GAT_I_PK_STR || codec->kind != GAT_I_PK_STR ||
        !((codec->u.str.len == 6 && !memcmp(codec->u.str.s, "latin1", 6)) ||
          (codec->u.str.len == 7 && !memcmp(codec->u.str.s, "latin-1", 7))))
        return fail(m, "_codecs.encode expects (str, 'latin1')%s%s", NULL, NULL);
    if (s->u.str.len && (s->u.str.s < pk->buf || s->u.str.s >= pk->buf + pk->len))
        return fail(m, "_codecs.encode of bytes already encoded%s%s", NULL, NULL);
    if (!pk->aux && !(pk->aux = gat_malloc(pk->len + 1, 1))) return GAT_ENOMEM;
    const size_t off = s->u.str.len ? (size_t)(s->u.str.s - pk->buf) : 0;
    unsigned char *out = pk->aux + off;
    size_t n = 0;
    for (size_t k = 0; k < s->u.str.len; k++) {
        const unsigned char c = s->u.str.s[k];
        if (c < 0x80) {
            out[n++] = c;
        } else if ((c == 0xC2 || c == 0xC3) && k + 1 < s->u.str.len &&
                   (s->u.str.s[k + 1] & 0xC0) == 0x80) {
            out[n++] = (unsigned char)((c & 0x03) << 6 | (s->u.str.s[++k] & 0x3F));
        } else {
            char where[32];
            snprintf(where, sizeof where, "%zu", k);
            return fail(m,
                        "_codecs.encode: byte %s of the string is not UTF-8 of a Latin-1 "
                        "character%s",
                        where, NULL);
        }
    }
    if ((st = push_new(m, GAT_I_PK_STR, &v)) != GAT_OK) return st;
    v->u.str.s = out;
    v->u.str.len = n;
    return GAT_OK;
}

static gat_status op_reduce(machine *m)
{
    gat_status st;
    if ((st = need(m, 2)) != GAT_OK) return st;
    const gat_i_pval *f = at(m, m->stack[m->sp - 2]), *args = at(m, m->stack[m->sp - 1]);
    const uint32_t *a;
    gat_i_pval *v;
    if (f->kind != GAT_I_PK_GLOBAL)
        return fail(m, "the callable is a %s%s", gat_i_pkind_name(f->kind), NULL);
    if (args->kind != GAT_I_PK_TUPLE)
        return fail(m, "the arguments are a %s, not a tuple%s", gat_i_pkind_name(args->kind), NULL);
    m->sp -= 2;
    switch ((gat_i_pglobal)f->u.i) {
    case GAT_I_PG_RECONSTRUCT: /* _reconstruct(ndarray, (0,), 'b'): an empty array to BUILD */
        if (!is_tuple(args, 3, &a) || !is_global(at(m, a[0]), GAT_I_PG_NDARRAY))
            return fail(m, "numpy _reconstruct expects (numpy.ndarray, shape, typecode)%s%s", NULL,
                        NULL);
        return push_new(m, GAT_I_PK_NDARRAY, NULL);
    case GAT_I_PG_DTYPE: { /* dtype('f4', 0, 1) */
        gat_i_pdtype t = GAT_I_PD_F4;
        if (!is_tuple(args, 3, &a) || at(m, a[0])->kind != GAT_I_PK_STR)
            return fail(m, "numpy.dtype expects (str, int, int)%s%s", NULL, NULL);
        if ((st = dtype_of(m, at(m, a[0]), &t)) != GAT_OK ||
            (st = push_new(m, GAT_I_PK_DTYPE, &v)) != GAT_OK)
            return st;
        v->u.i = t;
        return GAT_OK;
    }
    case GAT_I_PG_SCALAR: { /* scalar(dtype, bytes): a NumPy integer, e.g. a node id */
        const gat_i_pval *dt, *raw;
        if (!is_tuple(args, 2, &a) || (dt = at(m, a[0]))->kind != GAT_I_PK_DTYPE || !dt->flag ||
            (raw = at(m, a[1]))->kind != GAT_I_PK_STR)
            return fail(m, "numpy scalar expects (numpy.dtype, bytes)%s%s", NULL, NULL);
        const gat_i_parray one = {
            .dtype = (gat_i_pdtype)dt->u.i, .ndim = 0, .count = 1, .data = raw->u.str.s};
        if (one.dtype == GAT_I_PD_F4 || one.dtype == GAT_I_PD_F8)
            return fail(m, "a numpy scalar of dtype %s is not supported (integers only)%s",
                        gat_i_pdtype_name(one.dtype), NULL);
        if (raw->u.str.len != gat_i_pdtype_size(one.dtype)) {
            char got[32];
            snprintf(got, sizeof got, "%zu", raw->u.str.len);
            return fail(m, "a numpy scalar of dtype %s in %s bytes", gat_i_pdtype_name(one.dtype),
                        got);
        }
        if ((st = push_new(m, dt->u.i == GAT_I_PD_B1 ? GAT_I_PK_BOOL : GAT_I_PK_INT, &v)) != GAT_OK)
            return st;
        v->u.i = gat_i_parray_int(&one, 0);
        return GAT_OK;
    }
    case GAT_I_PG_ENCODE:
        if (!is_tuple(args, 2, &a))
            return fail(m, "_codecs.encode expects (str, 'latin1')%s%s", NULL, NULL);
        return latin1_bytes(m, at(m, a[0]), at(m, a[1]));
    case GAT_I_PG_FROMBUFFER: { /* _frombuffer(bytes, dtype, shape, order): protocol 5's arrays */
        const gat_i_pval *order;
        if (!is_tuple(args, 4, &a) || (order = at(m, a[3]))->kind != GAT_I_PK_STR ||
            order->u.str.len != 1 || (order->u.str.s[0] != 'C' && order->u.str.s[0] != 'F'))
            return fail(m, "numpy _frombuffer expects (bytes, dtype, shape, 'C' or 'F')%s%s", NULL,
                        NULL);
        const int fortran = order->u.str.s[0] == 'F'; /* order moves with the values */
        if ((st = push_new(m, GAT_I_PK_NDARRAY, &v)) != GAT_OK) return st;
        return set_array(m, v, at(m, a[2]), at(m, a[1]), fortran, at(m, a[0]));
    }
    case GAT_I_PG_DEFAULTDICT: /* defaultdict(list) */
        if (!is_tuple(args, 1, &a) || !is_global(at(m, a[0]), GAT_I_PG_LIST))
            return fail(m, "collections.defaultdict expects (list,)%s%s", NULL, NULL);
        if ((st = push_new(m, GAT_I_PK_DICT, &v)) != GAT_OK) return st;
        v->flag = 1;
        return GAT_OK;
    case GAT_I_PG_RECONSTRUCTOR: /* copy_reg._reconstructor(csr_matrix, object, None) */
        if (!is_tuple(args, 3, &a) || !is_global(at(m, a[0]), GAT_I_PG_CSR) ||
            !is_global(at(m, a[1]), GAT_I_PG_OBJECT) || at(m, a[2])->kind != GAT_I_PK_NONE)
            return fail(m, "copy_reg._reconstructor expects (csr_matrix, object, None)%s%s", NULL,
                        NULL);
        if ((st = push_new(m, GAT_I_PK_CSR, &v)) != GAT_OK) return st;
        v->u.state = NO_VALUE;
        return GAT_OK;
    default:
        return fail(m, "this class or function may not be called%s%s", NULL, NULL);
    }
}

static gat_status op_newobj(machine *m)
{
    const uint32_t *a;
    gat_status st;
    gat_i_pval *v;
    if ((st = need(m, 2)) != GAT_OK) return st;
    const gat_i_pval *cls = at(m, m->stack[m->sp - 2]), *args = at(m, m->stack[m->sp - 1]);
    if (!is_global(cls, GAT_I_PG_CSR) || !is_tuple(args, 0, &a))
        return fail(m, "only csr_matrix.__new__(csr_matrix) is allowed%s%s", NULL, NULL);
    m->sp -= 2;
    if ((st = push_new(m, GAT_I_PK_CSR, &v)) != GAT_OK) return st;
    v->u.state = NO_VALUE;
    return GAT_OK;
}

/* ndarray.__setstate__((version,) shape, dtype, is_fortran, raw bytes). */
static gat_status build_ndarray(machine *m, gat_i_pval *v, const gat_i_pval *state)
{
    const uint32_t *s = NULL;
    size_t n = is_tuple(state, SIZE_MAX, &s) ? state->u.seq.n : 0;
    if (n == 5) s++, n--;
    if (n != 4)
        return fail(m, "numpy.ndarray state is not (version, shape, dtype, fortran, data)%s%s",
                    NULL, NULL);
    const gat_i_pval *fortran = at(m, s[2]);
    if ((fortran->kind != GAT_I_PK_BOOL && fortran->kind != GAT_I_PK_INT))
        return fail(m, "numpy.ndarray fortran flag is a %s%s", gat_i_pkind_name(fortran->kind),
                    NULL);
    return set_array(m, v, at(m, s[0]), at(m, s[1]), fortran->u.i != 0, at(m, s[3]));
}

/* dtype.__setstate__((version, byteorder, subarray, names, fields, elsize, alignment, flags)). */
static gat_status build_dtype(machine *m, gat_i_pval *v, const gat_i_pval *state)
{
    const uint32_t *s = NULL;
    if (!is_tuple(state, SIZE_MAX, &s) || state->u.seq.n < 5 || at(m, s[1])->kind != GAT_I_PK_STR ||
        at(m, s[1])->u.str.len != 1)
        return fail(m, "numpy.dtype state is not (version, byteorder, subarray, names, ...)%s%s",
                    NULL, NULL);
    if (at(m, s[2])->kind != GAT_I_PK_NONE || at(m, s[3])->kind != GAT_I_PK_NONE)
        return fail(m, "structured or subarray dtypes are not supported%s%s", NULL, NULL);
    const char order = (char)at(m, s[1])->u.str.s[0];
    const int one_byte = gat_i_pdtype_size((gat_i_pdtype)v->u.i) == 1;
    if (!(order == '<' || (one_byte && order == '|'))) {
        char o[2] = {order >= 0x20 && order < 0x7f ? order : '?', '\0'};
        return fail(m,
                    "numpy.dtype byte order '%s' is not supported (expected '<', little-endian)%s",
                    o, NULL);
    }
    v->flag = 1;
    return GAT_OK;
}

static gat_status op_build(machine *m)
{
    gat_status st;
    if ((st = need(m, 2)) != GAT_OK) return st;
    gat_i_pval *v = at(m, m->stack[m->sp - 2]);
    const uint32_t state_id = m->stack[m->sp - 1];
    const gat_i_pval *state = at(m, state_id);
    m->sp--;
    if (v->flag && v->kind != GAT_I_PK_DICT)
        return fail(m, "the %s already has its state%s", gat_i_pkind_name(v->kind), NULL);
    switch (v->kind) {
    case GAT_I_PK_NDARRAY:
        return build_ndarray(m, v, state);
    case GAT_I_PK_DTYPE:
        return build_dtype(m, v, state);
    case GAT_I_PK_CSR:
        if (state->kind != GAT_I_PK_DICT)
            return fail(m, "csr_matrix state is a %s, not a dict%s", gat_i_pkind_name(state->kind),
                        NULL);
        v->u.state = state_id;
        v->flag = 1;
        return GAT_OK;
    default:
        return fail(m, "a %s takes no state%s", gat_i_pkind_name(v->kind), NULL);
    }
}

/* ---- The opcode loop --------------------------------------------------------------------- */

static gat_status op_int(machine *m, int64_t value)
{
    gat_i_pval *v;
    gat_status st = push_new(m, GAT_I_PK_INT, &v);
    if (st == GAT_OK) v->u.i = value;
    return st;
}

static gat_status op_str(machine *m, size_t len)
{
    const unsigned char *p = NULL;
    gat_i_pval *v;
    gat_status st;
    if ((st = take(m, len, &p)) != GAT_OK || (st = push_new(m, GAT_I_PK_STR, &v)) != GAT_OK)
        return st;
    v->u.str.s = p;
    v->u.str.len = len;
    return GAT_OK;
}

static gat_status memo_put(machine *m, uint64_t idx)
{
    gat_status st;
    if ((st = need(m, 1)) != GAT_OK) return st;
    /* Pickler memo ids count up from 0, one per stored value, each put taking >= 2 bytes: an id
     * at or past the file's length is no pickler's and would only make the memo large */
    if (idx >= m->pk->len) {
        char s[32];
        snprintf(s, sizeof s, "%llu", (unsigned long long)idx);
        return fail(m, "memo index %s is larger than the file%s", s, NULL);
    }
    size_t old = m->cap_memo;
    if (grow(&m->memo, &m->cap_memo, (size_t)idx + 1, sizeof *m->memo) != GAT_OK) return GAT_ENOMEM;
    for (size_t k = old; k < m->cap_memo; k++)
        m->memo[k] = NO_VALUE;
    m->memo_used += m->memo[idx] == NO_VALUE;
    m->memo[idx] = m->stack[m->sp - 1];
    return GAT_OK;
}

static gat_status memo_get(machine *m, uint64_t idx)
{
    if (idx >= m->cap_memo || m->memo[idx] == NO_VALUE) {
        char s[32];
        snprintf(s, sizeof s, "%llu", (unsigned long long)idx);
        return fail(m, "memo slot %s was never set%s", s, NULL);
    }
    return push(m, m->memo[idx]);
}

static gat_status op_append(machine *m, size_t base)
{
    gat_i_pval *list = at(m, m->stack[base - 1]);
    if (list->kind != GAT_I_PK_LIST)
        return fail(m, "appends to a %s, not a list%s", gat_i_pkind_name(list->kind), NULL);
    gat_status st = seq_add(list, m->stack + base, m->sp - base);
    m->sp = base;
    return st;
}

static gat_status op_setitems(machine *m, size_t base)
{
    gat_i_pval *d = at(m, m->stack[base - 1]);
    if (d->kind != GAT_I_PK_DICT)
        return fail(m, "sets items of a %s, not a dict%s", gat_i_pkind_name(d->kind), NULL);
    if ((m->sp - base) % 2) return fail(m, "an odd number of keys and values%s%s", NULL, NULL);
    gat_status st = seq_add(d, m->stack + base, m->sp - base);
    m->sp = base;
    return st;
}

/* The opcode families: each runs one opcode of its own (step names which). */

/* PROTO, FRAME, STOP, MARK: the stream's frame. *stop set at STOP. */
static gat_status op_frame(machine *m, unsigned char code, int *stop)
{
    const unsigned char *p = NULL;
    gat_status st;
    switch (code) {
    case 0x80: /* PROTO */
        m->op = "PROTO";
        if ((st = take(m, 1, &p)) != GAT_OK) return st;
        if (p[0] > 5) { /* as Python's own unpickler: 0 to its highest */
            char s[8];
            snprintf(s, sizeof s, "%u", p[0]);
            return fail(m, "protocol %s is not supported (expected at most 5)%s", s, NULL);
        }
        return GAT_OK;
    case 0x95: { /* FRAME: an 8-byte length of the opcodes that follow, read as they come */
        m->op = "FRAME";
        if ((st = take(m, 8, &p)) != GAT_OK) return st;
        const uint64_t n = le_u(p, 8);
        if (n > m->pk->len - m->pos) {
            char need_s[32], left[32];
            snprintf(need_s, sizeof need_s, "%llu", (unsigned long long)n);
            snprintf(left, sizeof left, "%zu", m->pk->len - m->pos);
            return fail(m, "a frame of %s bytes, %s are left", need_s, left);
        }
        return GAT_OK;
    }
    case '.': /* STOP */
        m->op = "STOP";
        if (m->n_marks || m->sp != 1)
            return fail(m, "the stack does not hold exactly one value%s%s", NULL, NULL);
        if (m->pos != m->pk->len) {
            char s[32];
            snprintf(s, sizeof s, "%zu", m->pk->len - m->pos);
            return fail(m, "%s bytes follow it%s", s, NULL);
        }
        m->pk->root = m->stack[0];
        *stop = 1;
        return GAT_OK;
    default: /* '(' MARK */
        m->op = "MARK";
        if (grow(&m->marks, &m->cap_marks, m->n_marks + 1, sizeof *m->marks) != GAT_OK)
            return GAT_ENOMEM;
        m->marks[m->n_marks++] = m->sp;
        return GAT_OK;
    }
}

/* GLOBAL, STACK_GLOBAL, REDUCE, NEWOBJ, BUILD: objects of the classes the reader knows */
static gat_status op_object(machine *m, unsigned char code)
{
    switch (code) {
    case 'c':
        m->op = "GLOBAL";
        return op_global(m);
    case 0x93:
        m->op = "STACK_GLOBAL";
        return op_stack_global(m);
    case 'R':
        m->op = "REDUCE";
        return op_reduce(m);
    case 0x81:
        m->op = "NEWOBJ";
        return op_newobj(m);
    default: /* 'b' */
        m->op = "BUILD";
        return op_build(m);
    }
}

/* BINPUT, LONG_BINPUT, BINGET, LONG_BINGET, MEMOIZE: the memo */
static gat_status op_memo(machine *m, unsigned char code)
{
    static const char *const names[] = {"BINPUT", "LONG_BINPUT", "BINGET", "LONG_BINGET"};
    const int put = code == 'q' || code == 'r', wide = code == 'r' || code == 'j';
    const unsigned char *p = NULL;
    gat_status st;
    if (code == 0x94) { /* MEMOIZE (protocol 4): the next slot, as many as are set */
        m->op = "MEMOIZE";
        return memo_put(m, m->memo_used);
    }
    m->op = names[(put ? 0 : 2) + wide];
    if ((st = take(m, wide ? 4 : 1, &p)) != GAT_OK) return st;
    const uint64_t idx = wide ? le_u(p, 4) : p[0];
    return put ? memo_put(m, idx) : memo_get(m, idx);
}

/* NONE, NEWTRUE, NEWFALSE, BININT1, BININT2, BININT, LONG1: scalars */
static gat_status op_scalar(machine *m, unsigned char code)
{
    const unsigned char *p = NULL;
    gat_status st;
    gat_i_pval *v;
    switch (code) {
    case 'N':
        m->op = "NONE";
        return push_new(m, GAT_I_PK_NONE, NULL);
    case 0x88:
    case 0x89:
        m->op = code == 0x88 ? "NEWTRUE" : "NEWFALSE";
        if ((st = push_new(m, GAT_I_PK_BOOL, &v)) == GAT_OK) v->u.i = code == 0x88;
        return st;
    case 'K':
        m->op = "BININT1";
        if ((st = take(m, 1, &p)) != GAT_OK) return st;
        return op_int(m, p[0]);
    case 'M':
        m->op = "BININT2";
        if ((st = take(m, 2, &p)) != GAT_OK) return st;
        return op_int(m, (int64_t)le_u(p, 2));
    case 'J':
        m->op = "BININT";
        if ((st = take(m, 4, &p)) != GAT_OK) return st;
        return op_int(m, (int32_t)(uint32_t)le_u(p, 4));
    default: { /* 0x8a LONG1: n little-endian two's-complement bytes */
        m->op = "LONG1";
        if ((st = take(m, 1, &p)) != GAT_OK) return st;
        const size_t n = p[0];
        if (n > 8) return fail(m, "an integer wider than 64 bits%s%s", NULL, NULL);
        if ((st = take(m, n, &p)) != GAT_OK) return st;
        uint64_t u = le_u(p, n);
        if (n > 0 && n < 8 && (p[n - 1] & 0x80)) u |= ~(uint64_t)0 << (8 * n);
        return op_int(m, (int64_t)u);
    }
    }
}

/* Strings and bytes, by the bytes of their length: SHORT_BINSTRING, SHORT_BINUNICODE,
 * SHORT_BINBYTES (1), BINSTRING, BINUNICODE, BINBYTES (4), BINUNICODE8, BINBYTES8, BYTEARRAY8
 * (8); borrowed from the file's buffer (UTF-8 for unicode, as stored) */
static gat_status op_string(machine *m, unsigned char code)
{
    static const struct {
        unsigned char code, width;
        const char *name;
    } ops[] = {
        {'U', 1, "SHORT_BINSTRING"}, {0x8c, 1, "SHORT_BINUNICODE"}, {'C', 1, "SHORT_BINBYTES"},
        {'T', 4, "BINSTRING"},       {'X', 4, "BINUNICODE"},        {'B', 4, "BINBYTES"},
        {0x8d, 8, "BINUNICODE8"},    {0x8e, 8, "BINBYTES8"},        {0x96, 8, "BYTEARRAY8"}};
    const unsigned char *p = NULL;
    gat_status st;
    size_t k = 0;
    while (ops[k].code != code)
        k++;
    m->op = ops[k].name;
    if ((st = take(m, ops[k].width, &p)) != GAT_OK) return st;
    const uint64_t n = le_u(p, ops[k].width);
    if (code == 'T' && (n & 0x80000000u)) return fail(m, "a negative length%s%s", NULL, NULL);
    if (n > m->pk->len - m->pos) { /* take would say so; an 8-byte n may not fit a size_t */
        char need_s[32], left[32];
        snprintf(need_s, sizeof need_s, "%llu", (unsigned long long)n);
        snprintf(left, sizeof left, "%zu", m->pk->len - m->pos);
        return fail(m, "needs %s bytes, %s are left", need_s, left);
    }
    return op_str(m, (size_t)n);
}

/* The containers: EMPTY_TUPLE, TUPLE1..3, TUPLE, EMPTY_LIST, EMPTY_DICT, APPEND(S),
 * SETITEM(S) */
static gat_status op_container(machine *m, unsigned char code)
{
    gat_status st;
    size_t base = 0;
    switch (code) {
    case ')':
        m->op = "EMPTY_TUPLE";
        return push_new(m, GAT_I_PK_TUPLE, NULL);
    case 0x85:
    case 0x86:
    case 0x87: {
        static const char *const names[] = {"TUPLE1", "TUPLE2", "TUPLE3"};
        const size_t n = (size_t)(code - 0x84);
        m->op = names[n - 1];
        if ((st = need(m, n)) != GAT_OK) return st;
        return make_tuple(m, m->sp - n);
    }
    case 't':
        m->op = "TUPLE";
        if ((st = mark_base(m, &base)) != GAT_OK) return st;
        return make_tuple(m, base);
    case ']':
        m->op = "EMPTY_LIST";
        return push_new(m, GAT_I_PK_LIST, NULL);
    case '}':
        m->op = "EMPTY_DICT";
        return push_new(m, GAT_I_PK_DICT, NULL);
    case 'a':
        m->op = "APPEND";
        if ((st = need(m, 2)) != GAT_OK) return st;
        return op_append(m, m->sp - 1);
    case 'e':
        m->op = "APPENDS";
        if ((st = mark_base(m, &base)) != GAT_OK) return st;
        if (base == 0 || (m->n_marks && base - 1 < m->marks[m->n_marks - 1]))
            return fail(m, "no list below the MARK%s%s", NULL, NULL);
        return op_append(m, base);
    case 's':
        m->op = "SETITEM";
        if ((st = need(m, 3)) != GAT_OK) return st;
        return op_setitems(m, m->sp - 2);
    default: /* 'u' */
        m->op = "SETITEMS";
        if ((st = mark_base(m, &base)) != GAT_OK) return st;
        if (base == 0 || (m->n_marks && base - 1 < m->marks[m->n_marks - 1]))
            return fail(m, "no dict below the MARK%s%s", NULL, NULL);
        return op_setitems(m, base);
    }
}

/* One opcode at m->pos, run by its family. *stop set at STOP. */
static gat_status step(machine *m, int *stop)
{
    m->op_at = m->pos;
    m->op = "the end of the file";
    if (m->pos >= m->pk->len) return fail(m, "no STOP opcode%s%s", NULL, NULL);
    const unsigned char code = m->pk->buf[m->pos++];
    switch (code) {
    case 0x80:
    case 0x95:
    case '.':
    case '(':
        return op_frame(m, code, stop);
    case 'c':
    case 0x93:
    case 'R':
    case 0x81:
    case 'b':
        return op_object(m, code);
    case 'q':
    case 'r':
    case 'h':
    case 'j':
    case 0x94:
        return op_memo(m, code);
    case 'N':
    case 0x88:
    case 0x89:
    case 'K':
    case 'M':
    case 'J':
    case 0x8a:
        return op_scalar(m, code);
    case 'U':
    case 0x8c:
    case 'C':
    case 'T':
    case 'X':
    case 'B':
    case 0x8d:
    case 0x8e:
    case 0x96:
        return op_string(m, code);
    case ')':
    case 0x85:
    case 0x86:
    case 0x87:
    case 't':
    case ']':
    case '}':
    case 'a':
    case 'e':
    case 's':
    case 'u':
        return op_container(m, code);
    default: {
        char s[8];
        snprintf(s, sizeof s, "0x%02x", code);
        m->op = "opcode";
        return fail(m,
                    "%s is not one this reader accepts (only those of the Planetoid pickles, "
                    "protocols 2 to 5)%s",
                    s, NULL);
    }
    }
}

void gat_i_pickle_free(gat_i_pickle *pk)
{
    if (!pk) return;
    for (size_t k = 0; k < pk->n_val; k++) {
        gat_i_pkind kind = pk->val[k].kind;
        if (kind == GAT_I_PK_TUPLE || kind == GAT_I_PK_LIST || kind == GAT_I_PK_DICT)
            gat_free(pk->val[k].u.seq.item);
    }
    gat_free(pk->val);
    gat_free(pk->buf);
    gat_free(pk->aux);
    gat_free(pk->path);
    memset(pk, 0, sizeof *pk);
}

/* Parses pk->buf (pk->len bytes), which pk owns already. */
static gat_status parse(gat_i_pickle *pk)
{
    machine m = {.pk = pk};
    int stop = 0;
    gat_status st = GAT_OK;
    while (!stop && (st = step(&m, &stop)) == GAT_OK)
        continue;
    gat_free(m.stack);
    gat_free(m.marks);
    gat_free(m.memo);
    return st;
}

gat_status gat_i_pickle_parse(gat_i_pickle *pk, const char *name, const void *bytes, size_t len)
{
    gat_status st;
    memset(pk, 0, sizeof *pk);
    if (!(pk->path = gat_strdup(name)) || !(pk->buf = gat_malloc(len + 1, 1))) {
        gat_i_pickle_free(pk);
        return GAT_ENOMEM;
    }
    if (len) memcpy(pk->buf, bytes, len);
    pk->len = len;
    if ((st = parse(pk)) != GAT_OK) gat_i_pickle_free(pk);
    return st;
}

gat_status gat_i_pickle_load(gat_i_pickle *pk, const char *path)
{
    gat_status st;
    memset(pk, 0, sizeof *pk);
    if (!(pk->path = gat_strdup(path))) return GAT_ENOMEM;
    if ((st = gat_i_read_file(path, &pk->buf, &pk->len)) != GAT_OK || (st = parse(pk)) != GAT_OK)
        gat_i_pickle_free(pk);
    return st;
}
