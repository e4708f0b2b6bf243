/* The .npz / .npy reader and the dataset layouts built on it (Platonov et al., Shchur et al.,
 * the Geom-GCN directory): files written here by a tiny zip writer (stored and deflated members),
 * good ones and malformed ones, each malformed one checked for its exact status and message. */
#include "testutil.h"

#include "core/core.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* ---- Byte buffers, .npy and zip writers --------------------------------------------------- */

/* Set by --write: outside a test, where ck_assert cannot report. */
static int writing;

/* The writers' checks: a test failure, or with --write an exit. */
static void need(int ok, const char *what)
{
    if (ok) return;
    if (writing) {
        fprintf(stderr, "test_npz: %s failed\n", what);
        exit(1);
    }
    ck_abort_msg("%s failed", what);
}

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        need(b->p != NULL, "realloc");
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put16(buf *b, unsigned v)
{
    const unsigned char c[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    put(b, c, 2);
}

static void put32(buf *b, uint32_t v)
{
    put16(b, v & 0xFFFF);
    put16(b, v >> 16);
}

static void set32(buf *b, size_t at, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        b->p[at + (size_t)k] = (unsigned char)(v >> (8 * k));
}

/* A .npy v1.0 array: header {'descr': D, 'fortran_order': F, 'shape': S, } padded to 64, data. */
static buf npy(const char *descr, int fortran, const char *shape, const void *data, size_t n)
{
    char h[512];
    buf b = {0};
    int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
                       fortran ? "True" : "False", shape);
    while ((10 + len + 1) % 64)
        h[len++] = ' ';
    h[len++] = '\n';
    put(&b, "\x93NUMPY\x01\x00", 8);
    put16(&b, (unsigned)len);
    put(&b, h, (size_t)len);
    put(&b, data, n);
    return b;
}

typedef struct member {
    const char *name; /* without ".npy" */
    buf data;
} member;

static void put64(buf *b, uint64_t v)
{
    put32(b, (uint32_t)v);
    put32(b, (uint32_t)(v >> 32));
}

/* zip()'s modes: members deflated unless ZIP_STORED; with ZIP64, in zip64 form as numpy's
 * np.savez writes them (every local header's sizes in a zip64 extra field) and more: each even
 * member's sizes and offset in its central-directory entry's zip64 extra field, each odd one's
 * offset alone, and the directory's count, size and offset in a zip64 end record. */
enum { ZIP_STORED = 1, ZIP64 = 2 };

/* A zip archive of the members, in order (see ZIP_STORED and ZIP64). */
static buf zip(member *m, int count, int mode)
{
    const int stored = mode & ZIP_STORED, z64 = mode & ZIP64;
    buf z = {0}, cd = {0};
    for (int k = 0; k < count; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s.npy", m[k].name);
        const uint32_t crc = (uint32_t)crc32(0, m[k].data.p, (uInt)m[k].data.n);
        buf c = {0};
        if (stored) {
            put(&c, m[k].data.p, m[k].data.n);
        } else {
            z_stream s = {0};
            need(deflateInit2(&s, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK,
                 "deflateInit2");
            c.cap = deflateBound(&s, m[k].data.n) + 16;
            c.p = malloc(c.cap);
            s.next_in = m[k].data.p;
            s.avail_in = (uInt)m[k].data.n;
            s.next_out = c.p;
            s.avail_out = (uInt)c.cap;
            need(c.p && deflate(&s, Z_FINISH) == Z_STREAM_END, "deflate");
            c.n = c.cap - s.avail_out;
            deflateEnd(&s);
        }
        const uint32_t at = (uint32_t)z.n;
        const unsigned method = stored ? 0 : 8;
        put32(&z, 0x04034b50u);
        put16(&z, 20), put16(&z, 0), put16(&z, method), put16(&z, 0), put16(&z, 0x21);
        put32(&z, crc);
        put32(&z, z64 ? 0xFFFFFFFFu : (uint32_t)c.n);
        put32(&z, z64 ? 0xFFFFFFFFu : (uint32_t)m[k].data.n);
        put16(&z, (unsigned)strlen(name)), put16(&z, z64 ? 20 : 0);
        put(&z, name, strlen(name));
        if (z64) put16(&z, 1), put16(&z, 16), put64(&z, m[k].data.n), put64(&z, c.n);
        put(&z, c.p, c.n);
        const int sizes64 = z64 && k % 2 == 0;
        put32(&cd, 0x02014b50u);
        put16(&cd, 20), put16(&cd, 20), put16(&cd, 0), put16(&cd, method), put16(&cd, 0);
        put16(&cd, 0x21), put32(&cd, crc);
        put32(&cd, sizes64 ? 0xFFFFFFFFu : (uint32_t)c.n);
        put32(&cd, sizes64 ? 0xFFFFFFFFu : (uint32_t)m[k].data.n);
        put16(&cd, (unsigned)strlen(name)), put16(&cd, !z64 ? 0 : sizes64 ? 28 : 12);
        put16(&cd, 0), put16(&cd, 0), put16(&cd, 0), put32(&cd, 0);
        put32(&cd, z64 ? 0xFFFFFFFFu : at);
        put(&cd, name, strlen(name));
        if (sizes64) put16(&cd, 1), put16(&cd, 24), put64(&cd, m[k].data.n), put64(&cd, c.n);
        if (z64 && !sizes64) put16(&cd, 1), put16(&cd, 8);
        if (z64) put64(&cd, at);
        free(c.p);
        free(m[k].data.p);
        m[k].data.p = NULL;
    }
    const uint32_t cd_at = (uint32_t)z.n;
    put(&z, cd.p, cd.n);
    if (z64) {
        const uint64_t end64 = z.n;
        put32(&z, 0x06064b50u), put64(&z, 44), put16(&z, 45), put16(&z, 45);
        put32(&z, 0), put32(&z, 0), put64(&z, (uint64_t)count), put64(&z, (uint64_t)count);
        put64(&z, cd.n), put64(&z, cd_at);
        put32(&z, 0x07064b50u), put32(&z, 0), put64(&z, end64), put32(&z, 1);
    }
    put32(&z, 0x06054b50u);
    put16(&z, 0), put16(&z, 0);
    put16(&z, z64 ? 0xFFFFu : (unsigned)count), put16(&z, z64 ? 0xFFFFu : (unsigned)count);
    put32(&z, z64 ? 0xFFFFFFFFu : (uint32_t)cd.n), put32(&z, z64 ? 0xFFFFFFFFu : cd_at);
    put16(&z, 0);
    free(cd.p);
    return z;
}

static uint32_t get32(const buf *b, size_t at)
{
    uint32_t v = 0;
    for (int k = 3; k >= 0; k--)
        v = v << 8 | b->p[at + (size_t)k];
    return v;
}

/* Offset of central-directory entry k of z. */
static size_t cd_entry(const buf *z, int k)
{
    for (size_t at = 0; at + 4 <= z->n; at++)
        if (!memcmp(z->p + at, "PK\1\2", 4) && k-- == 0) return at;
    ck_abort_msg("no central directory entry");
    return 0;
}

static char *dir;
static char path[4096];

static const char *save(const char *name, buf *b)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (b->n) ck_assert_uint_eq(fwrite(b->p, 1, b->n, f), b->n); /* b->p NULL when empty */
    ck_assert_int_eq(fclose(f), 0);
    free(b->p);
    memset(b, 0, sizeof *b);
    return path;
}

static void setup(void)
{
    dir = tu_tmpdir();
}

static void teardown(void)
{
    tu_rmtree(dir);
    free(dir);
}

/* ---- The Platonov et al. layout: 6 nodes, 3 features, 2 classes, 2 splits ----------------- */

static const float FEAT[6][3] = {{1, 0, 0}, {0, 2, 0}, {0, 0, 3}, {1, 1, 0}, {0, 1, 1}, {4, 0, 0}};
static const int64_t LABELS[6] = {0, 1, 0, 1, 0, 1};
static const int64_t EDGES[5][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}};
/* split 0: train 0 1, val 2 3, test 4 5; split 1: train 4 5, val 0 1, test 2 3 */
static const uint8_t TRAIN[2][6] = {{1, 1, 0, 0, 0, 0}, {0, 0, 0, 0, 1, 1}};
static const uint8_t VAL[2][6] = {{0, 0, 1, 1, 0, 0}, {1, 1, 0, 0, 0, 0}};
static const uint8_t TEST[2][6] = {{0, 0, 0, 0, 1, 1}, {0, 0, 1, 1, 0, 0}};

/* The (2, 6) mask m in Fortran order: element (s, i) at i * 2 + s. */
static buf fortran_mask(const uint8_t m[2][6])
{
    uint8_t f[12];
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 6; i++)
            f[i * 2 + s] = m[s][i];
    return npy("|b1", 1, "(2, 6)", f, sizeof f);
}

/* The members of a good file; which (if >= 0) is replaced by repl. */
static int platonov_members(member *m, int which, buf repl)
{
    m[0] = (member){"node_features", npy("<f4", 0, "(6, 3)", FEAT, sizeof FEAT)};
    m[1] = (member){"node_labels", npy("<i8", 0, "(6,)", LABELS, sizeof LABELS)};
    m[2] = (member){"edges", npy("<i8", 0, "(5, 2)", EDGES, sizeof EDGES)};
    m[3] = (member){"train_masks", npy("|b1", 0, "(2, 6)", TRAIN, sizeof TRAIN)};
    m[4] = (member){"val_masks", fortran_mask(VAL)};
    m[5] = (member){"test_masks", fortran_mask(TEST)};
    if (which >= 0) {
        free(m[which].data.p);
        m[which].data = repl;
    }
    return 6;
}

static const char *platonov_file(int stored, int which, buf repl)
{
    member m[6];
    buf z = zip(m, platonov_members(m, which, repl), stored);
    return save(stored ? "stored.npz" : "p.npz", &z);
}

static void check_split(const gat_dataset *ds, int K)
{
    for (int i = 0; i < 6; i++) {
        const int want = TRAIN[K][i] ? GAT_SPLIT_TRAIN : VAL[K][i] ? GAT_SPLIT_VAL : GAT_SPLIT_TEST;
        ck_assert_int_eq(ds->split[i], want);
    }
    ck_assert_int_eq(ds->n_train, 2);
    ck_assert_int_eq(ds->n_val, 2);
    ck_assert_int_eq(ds->n_test, 2);
    /* with both splits: ds->splits, row k split k, not aliasing split; with one, none */
    if (ds->n_splits == 1) {
        ck_assert_ptr_null(ds->splits);
        return;
    }
    ck_assert_int_eq(ds->n_splits, 2);
    ck_assert_ptr_nonnull(ds->splits);
    ck_assert(ds->split + 6 <= ds->splits || ds->split >= ds->splits + 12);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 6; i++)
            ck_assert_int_eq(ds->splits[6 * k + i], TRAIN[k][i] ? GAT_SPLIT_TRAIN
                                                    : VAL[k][i] ? GAT_SPLIT_VAL
                                                                : GAT_SPLIT_TEST);
}

START_TEST(platonov_good)
{
    const char *p = platonov_file(_i, -1, (buf){0});
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    gat_dataset ds;
    ck_assert_int_eq(gat_dataset_load(&ds, p, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 6);
    ck_assert_int_eq(ds.n_features, 3);
    ck_assert_int_eq(ds.n_classes, 2);
    ck_assert_int_eq(ds.n_splits, 2);
    /* a path, symmetrised, plus self-loops: 2 * 5 + 6 */
    ck_assert_int_eq(ds.graph.nnz, 16);
    ck_assert_int_eq(ds.x.rowptr[6], 8);
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(ds.labels[i], (int)LABELS[i]);
        for (int k = ds.x.rowptr[i]; k < ds.x.rowptr[i + 1]; k++)
            ck_assert(ds.x.val[k] == FEAT[i][ds.x.col[k]]);
    }
    check_split(&ds, 0);
    gat_dataset_destroy(&ds);
    o.split_index = 1;
    ck_assert_int_eq(gat_dataset_load(&ds, p, &o), GAT_OK);
    check_split(&ds, 1);
    gat_dataset_destroy(&ds);
    o.split_index = 2;
    ASSERT_FAILS(gat_dataset_load(&ds, p, &o), GAT_EINVAL, "split index 2 is out of range");
    ck_assert_str_eq(strstr(gat_last_error(), "holds"), "holds 2 splits (0..1)");
    o.split_index = -1;
    ASSERT_FAILS(gat_dataset_load(&ds, p, &o), GAT_EINVAL, "negative split_index -1");
    /* the random split instead: the file's splits are still counted */
    o.split_index = 0;
    o.ignore_split_file = 1;
    o.train_per_class = 1;
    o.n_val = 1;
    o.n_test = 1;
    ck_assert_int_eq(gat_dataset_load(&ds, p, &o), GAT_OK);
    ck_assert_int_eq(ds.n_splits, 2);
    ck_assert_ptr_null(ds.splits); /* the split is none of them */
    ck_assert_int_eq(ds.n_train + ds.n_val + ds.n_test, 4);
    gat_dataset_destroy(&ds);
    /* directed: the edges as given (row k: edges[k][0] -> edges[k][1]) */
    o.ignore_split_file = 0;
    o.symmetrize = 0;
    ck_assert_int_eq(gat_dataset_load(&ds, p, &o), GAT_OK);
    ck_assert_int_eq(ds.graph.nnz, 11);
    ck_assert_int_eq(ds.graph.col[ds.graph.rowptr[1]], 0); /* node 1 hears 0 */
    gat_dataset_destroy(&ds);
}
END_TEST

/* One split as (N) masks, big-endian float64 features and int32 edges: converted. */
START_TEST(platonov_one_split_big_endian)
{
    member m[6];
    platonov_members(m, -1, (buf){0});
    unsigned char be[6][3][8];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 3; j++) {
            const double v = FEAT[i][j];
            unsigned char le[8];
            memcpy(le, &v, 8);
            for (int b = 0; b < 8; b++)
                be[i][j][b] = le[7 - b];
        }
    int32_t e32[5][2];
    for (int e = 0; e < 5; e++)
        e32[e][0] = (int32_t)EDGES[e][0], e32[e][1] = (int32_t)EDGES[e][1];
    free(m[0].data.p);
    m[0].data = npy(">f8", 0, "(6, 3)", be, sizeof be);
    free(m[2].data.p);
    m[2].data = npy("<i4", 0, "(5, 2)", e32, sizeof e32);
    free(m[3].data.p);
    m[3].data = npy("|b1", 0, "(6,)", TRAIN[1], 6);
    free(m[4].data.p);
    m[4].data = npy("|u1", 0, "(6,)", VAL[1], 6);
    free(m[5].data.p);
    m[5].data = npy("|b1", 0, "(6,)", TEST[1], 6);
    buf z = zip(m, 6, 1);
    const char *p = save("be.npz", &z);
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    gat_dataset ds;
    ck_assert_int_eq(gat_dataset_load(&ds, p, &o), GAT_OK);
    ck_assert_int_eq(ds.n_splits, 1);
    check_split(&ds, 1);
    for (int i = 0; i < 6; i++)
        for (int k = ds.x.rowptr[i]; k < ds.x.rowptr[i + 1]; k++)
            ck_assert(ds.x.val[k] == FEAT[i][ds.x.col[k]]);
    gat_dataset_destroy(&ds);
}
END_TEST

/* A good file with one member replaced, loaded: the status and a message fragment. */
static void platonov_bad(int which, buf repl, gat_status st, const char *msg)
{
    const char *p = platonov_file(0, which, repl);
    gat_dataset ds;
    ASSERT_FAILS(gat_dataset_load(&ds, p, NULL), st, msg);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "p.npz"));
    ck_assert_int_eq(ds.n, 0);
}

/* float16 features (as large sets store them), little- and big-endian: 1, a subnormal (2^-24),
 * the largest half (65504), -0.5, 1.5 read exactly; an infinity is refused as any is. */
START_TEST(platonov_float16)
{
    static const uint16_t bits[6][3] = {{0x3C00, 0, 0},      {0, 0x0001, 0},      {0, 0, 0x7BFF},
                                        {0xB800, 0x3C00, 0}, {0, 0x3E00, 0x3C00}, {0x4400, 0, 0}};
    static const double want[6][3] = {{1, 0, 0},    {0, 0x1p-24, 0}, {0, 0, 65504},
                                      {-0.5, 1, 0}, {0, 1.5, 1},     {4, 0, 0}};
    uint16_t be[6][3];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 3; j++)
            be[i][j] = (uint16_t)(bits[i][j] >> 8 | bits[i][j] << 8);
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    for (int big = 0; big < 2; big++) {
        const char *p =
            platonov_file(0, 0,
                          npy(big ? ">f2" : "<f2", 0, "(6, 3)",
                              big ? (const void *)be : (const void *)bits, sizeof bits));
        gat_dataset ds;
        ck_assert_msg(gat_dataset_load(&ds, p, &o) == GAT_OK, "%s", gat_last_error());
        ck_assert_int_eq(ds.x.rowptr[6], 8);
        for (int i = 0; i < 6; i++)
            for (int k = ds.x.rowptr[i]; k < ds.x.rowptr[i + 1]; k++)
                ck_assert_double_eq((double)ds.x.val[k], want[i][ds.x.col[k]]);
        gat_dataset_destroy(&ds);
    }
    uint16_t inf[6][3];
    memcpy(inf, bits, sizeof inf);
    inf[2][1] = 0xFC00; /* -infinity */
    platonov_bad(0, npy("<f2", 0, "(6, 3)", inf, sizeof inf), GAT_ENUMERIC,
                 "node 2, feature 1 is -inf");
}
END_TEST

START_TEST(platonov_bad_members)
{
    const int64_t five[5] = {0, 1, 0, 1, 0};
    const double flabels[6] = {0, 1, 0, 1, 0, 1};
    const int64_t bad_edge[2][2] = {{0, 1}, {1, 6}};
    const uint8_t twice[6] = {1, 1, 1, 0, 0, 0}, two[6] = {2, 0, 0, 0, 0, 0};
    const float inf[6][3] = {{1, 0, 0}, {0, INFINITY, 0}};
    platonov_bad(0, npy("<c8", 0, "(6, 3)", FEAT, sizeof FEAT), GAT_EFORMAT,
                 "member 'node_features.npy': unsupported dtype '<c8'");
    platonov_bad(0, npy("<f4", 0, "(18,)", FEAT, sizeof FEAT), GAT_EFORMAT,
                 "member 'node_features' has shape (18,), expected (nodes, features)");
    platonov_bad(0, npy("<f4", 0, "(6, 3)", inf, sizeof inf), GAT_ENUMERIC,
                 "node 1, feature 1 is inf");
    platonov_bad(0, npy("|O", 0, "(6, 3)", "\x80\x02N.", 4), GAT_EFORMAT,
                 "is an object array (pickled Python objects)");
    platonov_bad(1, npy("<i8", 0, "(5,)", five, sizeof five), GAT_EFORMAT,
                 "member 'node_labels' has 5 labels for 6 nodes");
    platonov_bad(1, npy("<f8", 0, "(6,)", flabels, sizeof flabels), GAT_EFORMAT,
                 "member 'node_labels' has dtype '<f8', expected integers");
    platonov_bad(2, npy("<i8", 0, "(2, 2)", bad_edge, sizeof bad_edge), GAT_EFORMAT,
                 "edge 1 is (1, 6), a node outside [0, 6)");
    platonov_bad(2, npy("<i8", 0, "(5, 2)", EDGES, sizeof EDGES - 8), GAT_EFORMAT,
                 "the header declares shape (5, 2) of '<i8' (10 elements of 8 bytes), but the "
                 "member holds 72 bytes of data");
    platonov_bad(3, npy("|b1", 0, "(2, 5)", TRAIN, 10), GAT_EFORMAT,
                 "member 'train_masks' has shape (2, 5) and dtype '|b1', expected (6,) or "
                 "(splits, 6) of bool");
    platonov_bad(3, npy("|b1", 0, "(6,)", TRAIN, 6), GAT_EFORMAT,
                 "member 'val_masks' holds 2 splits but 'train_masks' holds 1");
    buf t2 = {0};
    uint8_t tw[12];
    memcpy(tw, twice, 6);
    memcpy(tw + 6, TRAIN[1], 6);
    t2 = npy("|b1", 0, "(2, 6)", tw, 12);
    platonov_bad(3, t2, GAT_EFORMAT, "node 2 is in both the train and val masks of split 0");
    uint8_t t3[12];
    memcpy(t3, two, 6);
    memcpy(t3 + 6, TRAIN[1], 6);
    platonov_bad(3, npy("|u1", 0, "(2, 6)", t3, 12), GAT_EFORMAT,
                 "member 'train_masks': split 0, node 0 has 2, expected 0 or 1");
    /* header syntax */
    buf h = {0};
    put(&h, "\x93NUMPY\x01\x00", 8);
    const char *text = "{'descr': '<i8', 'shape': (6,), 'fortran_order': Maybe}\n";
    put16(&h, (unsigned)strlen(text));
    put(&h, text, strlen(text));
    put(&h, LABELS, sizeof LABELS);
    platonov_bad(1, h, GAT_EFORMAT, "malformed .npy header: fortran_order is not True or False");
    h = (buf){0};
    text = "{'descr': '<i8', 'shape': (6,), 'fortran_order': False, 'x': 1}\n";
    put(&h, "\x93NUMPY\x01\x00", 8);
    put16(&h, (unsigned)strlen(text));
    put(&h, text, strlen(text));
    put(&h, LABELS, sizeof LABELS);
    platonov_bad(1, h, GAT_EFORMAT, ".npy header key 'x' is unknown");
    h = (buf){0};
    put(&h, "\x93NUMPY\x04\x00", 8);
    put16(&h, 0);
    platonov_bad(1, h, GAT_EFORMAT, ".npy format version 4.0 is not supported");
}
END_TEST

START_TEST(platonov_missing_members)
{
    member m[6];
    platonov_members(m, -1, (buf){0});
    free(m[5].data.p);
    buf z = zip(m, 5, 0);
    gat_dataset ds;
    ASSERT_FAILS(gat_dataset_load(&ds, save("p.npz", &z), NULL), GAT_EFORMAT,
                 "member 'test_masks.npy' is missing (with 'train_masks.npy')");
    platonov_members(m, -1, (buf){0});
    free(m[1].data.p);
    m[1] = m[5];
    z = zip(m, 5, 0);
    ASSERT_FAILS(gat_dataset_load(&ds, save("p.npz", &z), NULL), GAT_EFORMAT,
                 "member 'node_labels.npy' is missing (the Platonov et al. layout needs it)");
    /* no masks at all: a random split, none counted, split index 1 refused */
    platonov_members(m, -1, (buf){0});
    for (int k = 3; k < 6; k++)
        free(m[k].data.p);
    z = zip(m, 3, 0);
    const char *p = save("p.npz", &z);
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.train_per_class = 1;
    o.n_val = o.n_test = 2;
    ck_assert_int_eq(gat_dataset_load(&ds, p, &o), GAT_OK);
    ck_assert_int_eq(ds.n_splits, 0);
    ck_assert_int_eq(ds.n_train, 2);
    gat_dataset_destroy(&ds);
    o.split_index = 1;
    ASSERT_FAILS(gat_dataset_load(&ds, p, &o), GAT_EINVAL, "split index 1 is out of range");
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "holds no fixed split"));
    /* neither layout */
    member one[1] = {{"weights", npy("<f4", 0, "(6, 3)", FEAT, sizeof FEAT)}};
    z = zip(one, 1, 0);
    ASSERT_FAILS(gat_dataset_load(&ds, save("w.npz", &z), NULL), GAT_EFORMAT,
                 "not a dataset .npz: expected the members node_features");
}
END_TEST

/* ---- The zip container -------------------------------------------------------------------- */

static buf good_zip(void)
{
    member m[6];
    return zip(m, platonov_members(m, -1, (buf){0}), 0);
}

static void zip_bad(buf *z, gat_status st, const char *msg)
{
    gat_dataset ds;
    ASSERT_FAILS(gat_dataset_load(&ds, save("z.npz", z), NULL), st, msg);
}

START_TEST(zip_malformed)
{
    buf z = good_zip();
    z.n /= 2;
    zip_bad(&z, GAT_EFORMAT, "no zip end-of-central-directory record: truncated");
    z = good_zip();
    z.n = 10;
    zip_bad(&z, GAT_EFORMAT, "truncated or not a zip archive: 10 bytes");
    /* the central directory offset one byte off */
    z = good_zip();
    set32(&z, z.n - 6, get32(&z, z.n - 6) + 1);
    zip_bad(&z, GAT_EFORMAT, "does not end where the end record starts");
    /* a member's local header offset past the central directory */
    z = good_zip();
    set32(&z, cd_entry(&z, 2) + 42, 0x7FFFFFF0u);
    zip_bad(&z, GAT_EFORMAT, "member 'edges.npy': local header offset 2147483632 is outside");
    /* a member declaring a huge size from a few compressed bytes */
    z = good_zip();
    set32(&z, cd_entry(&z, 1) + 24, 0xF0000000u);
    zip_bad(&z, GAT_EFORMAT,
            "member 'node_labels.npy' declares 4026531840 bytes uncompressed from");
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "more than deflate can produce (1032:1)"));
    /* a declared size within the ratio but beyond the array: the header says less */
    z = good_zip();
    set32(&z, cd_entry(&z, 1) + 24, 4000);
    zip_bad(&z, GAT_EFORMAT, "but the member holds 3872 bytes of data");
    /* a flipped data byte: the CRC (or the deflate stream) catches it */
    member m[6];
    z = zip(m, platonov_members(m, -1, (buf){0}), 1);
    z.p[get32(&z, cd_entry(&z, 1) + 42) + 30 + strlen("node_labels.npy") +
        get32(&z, cd_entry(&z, 1) + 24) - 1] ^= 1;
    zip_bad(&z, GAT_EFORMAT, "member 'node_labels.npy': CRC-32 mismatch");
    /* compression method 12 (bzip2) */
    z = good_zip();
    z.p[cd_entry(&z, 0) + 10] = 12;
    zip_bad(&z, GAT_EFORMAT, "uses compression method 12");
    /* a zip64 marker without the zip64 extra field */
    z = good_zip();
    set32(&z, cd_entry(&z, 0) + 20, 0xFFFFFFFFu);
    zip_bad(&z, GAT_EFORMAT,
            "member 'node_features.npy' marks its sizes or offset as zip64 (0xFFFFFFFF) but has "
            "no zip64 extra field");
    /* encrypted */
    z = good_zip();
    z.p[cd_entry(&z, 0) + 8] |= 1;
    zip_bad(&z, GAT_EFORMAT, "member 'node_features.npy' is encrypted");
}
END_TEST

static void set64(buf *b, size_t at, uint64_t v)
{
    set32(b, at, (uint32_t)v);
    set32(b, at + 4, (uint32_t)(v >> 32));
}

static buf good_zip64(void)
{
    member m[6];
    return zip(m, platonov_members(m, -1, (buf){0}), ZIP64);
}

/* zip64 archives whose zip64 records or fields are wrong, each with its message (the good ones
 * load in platonov_good). The zip64 end record is 56 bytes, its locator 20, the end record 22. */
START_TEST(zip64_malformed)
{
    buf z = good_zip64();
    const size_t loc = z.n - 22 - 20, rec = loc - 56;
    /* the locator points one byte before the record */
    set64(&z, loc + 8, rec - 1);
    zip_bad(&z, GAT_EFORMAT, "the zip64 end locator points to offset");
    /* ... or past the locator itself */
    z = good_zip64();
    set64(&z, loc + 8, UINT64_MAX - 5);
    zip_bad(&z, GAT_EFORMAT, "where no zip64 end record ends before it");
    /* the record's size field */
    z = good_zip64();
    set64(&z, rec + 4, 45);
    zip_bad(&z, GAT_EFORMAT, "declares 45 bytes, not the 44 up to its locator");
    /* a second disk, in the locator or the record */
    z = good_zip64();
    set32(&z, loc + 16, 2);
    zip_bad(&z, GAT_EFORMAT, "multi-disk zip archives are not supported");
    z = good_zip64();
    set32(&z, rec + 20, 1);
    zip_bad(&z, GAT_EFORMAT, "multi-disk zip archives are not supported");
    /* a count of members the directory cannot hold (no allocation for it) */
    z = good_zip64();
    set64(&z, rec + 24, 1ull << 40);
    set64(&z, rec + 32, 1ull << 40);
    zip_bad(&z, GAT_EFORMAT, "declares 1099511627776 members, more than its central directory");
    /* the directory's offset in the record one byte off */
    z = good_zip64();
    set64(&z, rec + 48, get32(&z, rec + 48) + 1);
    zip_bad(&z, GAT_EFORMAT, "does not end where the end record starts");
    /* an offset-only extra field (member 1) when the entry marks its compressed size too */
    z = good_zip64();
    set32(&z, cd_entry(&z, 1) + 20, 0xFFFFFFFFu);
    zip_bad(&z, GAT_EFORMAT,
            "member 'node_labels.npy': its zip64 extra field holds 8 bytes, too few for the sizes "
            "and offset its entry marks as held there");
    /* the 64-bit local header offset of member 2, in its extra field, past the directory */
    z = good_zip64();
    const size_t e2 = cd_entry(&z, 2);
    set64(&z, e2 + 46 + strlen("edges.npy") + 4 + 16, 1ull << 33);
    zip_bad(&z, GAT_EFORMAT, "member 'edges.npy': local header offset 8589934592 is outside");
    /* a 64-bit uncompressed size beyond what the compressed bytes inflate to */
    z = good_zip64();
    set64(&z, e2 + 46 + strlen("edges.npy") + 4, 1ull << 36);
    zip_bad(&z, GAT_EFORMAT, "member 'edges.npy' declares 68719476736 bytes uncompressed from");
}
END_TEST

/* Prefixes of a good file (every 7th length), and copies with a few bytes flipped (a fixed
 * pseudo-random sequence): each loads or fails with a file-format status, never crashes (ASan/UBSan
 * builds check the accesses). */
START_TEST(damaged_files)
{
    member m[6];
    buf good = zip(m, platonov_members(m, -1, (buf){0}), _i);
    uint64_t r = 12345;
    for (size_t k = 0; k < good.n + 300; k += k < good.n ? 7 : 1) {
        buf b = {0};
        put(&b, good.p, good.n);
        if (k < good.n) {
            b.n = k; /* a truncated copy */
        } else {
            for (int f = 0; f < 3; f++) {
                r = r * 6364136223846793005ull + 1442695040888963407ull;
                b.p[(r >> 33) % b.n] ^= (unsigned char)(1u << ((r >> 20) & 7));
            }
        }
        gat_dataset ds;
        const gat_status st = gat_dataset_load(&ds, save("d.npz", &b), NULL);
        ck_assert_msg(st == GAT_OK || st == GAT_EFORMAT || st == GAT_ENUMERIC || st == GAT_EINVAL,
                      "copy %zu: status %d (%s)", k, st, gat_last_error());
        if (st == GAT_OK)
            gat_dataset_destroy(&ds);
        else
            ck_assert_int_eq(ds.n, 0);
    }
    free(good.p);
}
END_TEST

/* Every allocation of a load failing in turn: GAT_ENOMEM and nothing leaked (ASan), except
 * where the loader only probes the path (gat_dataset_load's format sniffing reads out of memory
 * as "not this format"), which lets the load go on. */
START_TEST(alloc_failure)
{
    const char *p = platonov_file(0, -1, (buf){0});
    gat_dataset ds;
    gat_i_alloc_fail_at(-1);
    ck_assert_int_eq(gat_dataset_load(&ds, p, NULL), GAT_OK);
    gat_dataset_destroy(&ds);
    const long total = gat_i_alloc_fail_at(-1);
    long failed = 0;
    for (long k = 0; k < total; k++) {
        gat_i_alloc_fail_at(k);
        const gat_status st = gat_dataset_load(&ds, p, NULL);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) {
            gat_dataset_destroy(&ds);
            continue;
        }
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_int_eq(ds.n, 0);
        failed++;
    }
    ck_assert_int_ge(total, 20);
    ck_assert_int_ge(failed, total - 3);
}
END_TEST

/* ---- The Shchur et al. layout -------------------------------------------------------------- */

/* 6 nodes: adjacency rows with unsorted and repeated columns, attributes as CSR with a repeated
 * column (summed) or dense; an object array the reader ignores. */
static int shchur_members(member *m, int dense, int which, buf repl)
{
    static const int32_t adj_indptr[7] = {0, 2, 3, 5, 5, 6, 7};
    static const int32_t adj_indices[7] = {2, 1, 0, 4, 3, 0, 5};
    static const float adj_data[7] = {1, 1, 1, 1, 1, 1, 1};
    static const int64_t adj_shape[2] = {6, 6};
    static const int64_t attr_indptr[7] = {0, 2, 3, 4, 5, 6, 8};
    static const int64_t attr_indices[8] = {2, 0, 1, 2, 0, 1, 3, 3};
    static const double attr_data[8] = {1, 2, 3, 4, 5, 6, 1, 1};
    static const int64_t attr_shape[2] = {6, 4};
    static const int32_t labels[6] = {0, 1, 2, 0, 1, 2};
    int n = 0;
    m[n++] = (member){"adj_data", npy("<f4", 0, "(7,)", adj_data, sizeof adj_data)};
    m[n++] = (member){"adj_indices", npy("<i4", 0, "(7,)", adj_indices, sizeof adj_indices)};
    m[n++] = (member){"adj_indptr", npy("<i4", 0, "(7,)", adj_indptr, sizeof adj_indptr)};
    m[n++] = (member){"adj_shape", npy("<i8", 0, "(2,)", adj_shape, sizeof adj_shape)};
    if (dense) {
        m[n++] = (member){"attr_matrix", npy("<f4", 0, "(6, 3)", FEAT, sizeof FEAT)};
    } else {
        m[n++] = (member){"attr_data", npy("<f8", 0, "(8,)", attr_data, sizeof attr_data)};
        m[n++] = (member){"attr_indices", npy("<i8", 0, "(8,)", attr_indices, sizeof attr_indices)};
        m[n++] = (member){"attr_indptr", npy("<i8", 0, "(7,)", attr_indptr, sizeof attr_indptr)};
        m[n++] = (member){"attr_shape", npy("<i8", 0, "(2,)", attr_shape, sizeof attr_shape)};
    }
    m[n++] = (member){"labels", npy("<i4", 0, "(6,)", labels, sizeof labels)};
    m[n++] = (member){"idx_to_node", npy("|O", 0, "()", "\x80\x02}q\x00.", 6)};
    if (which >= 0) {
        free(m[which].data.p);
        m[which].data = repl;
    }
    return n;
}

static const char *shchur_file(int dense, int which, buf repl)
{
    member m[12];
    buf z = zip(m, shchur_members(m, dense, which, repl), dense);
    return save("s.npz", &z);
}

START_TEST(shchur_good)
{
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    o.train_per_class = 1;
    o.n_val = 1;
    o.n_test = 2;
    gat_dataset ds;
    ck_assert_int_eq(gat_dataset_load(&ds, shchur_file(0, -1, (buf){0}), &o), GAT_OK);
    ck_assert_int_eq(ds.n, 6);
    ck_assert_int_eq(ds.n_features, 4);
    ck_assert_int_eq(ds.n_classes, 3);
    ck_assert_int_eq(ds.n_splits, 0);
    ck_assert_int_eq(ds.n_train, 3);
    ck_assert_int_eq(ds.n_val + ds.n_test, 3);
    /* edges 0-2, 0-1, 2-4, 2-3, 4-0 (5 undirected) and a self-loop 5-5, plus 6 loops */
    ck_assert_int_eq(ds.graph.nnz, 16);
    /* row 0 sorted (0: 2, 2: 1); row 5 merged (3: 1 + 1) */
    ck_assert_int_eq(ds.x.rowptr[1], 2);
    ck_assert_int_eq(ds.x.col[0], 0);
    ck_assert(ds.x.val[0] == 2);
    ck_assert_int_eq(ds.x.col[1], 2);
    ck_assert_int_eq(ds.x.rowptr[6] - ds.x.rowptr[5], 1);
    ck_assert(ds.x.val[ds.x.rowptr[5]] == 2);
    gat_dataset_destroy(&ds);
    ck_assert_int_eq(gat_dataset_load(&ds, shchur_file(1, -1, (buf){0}), &o), GAT_OK);
    ck_assert_int_eq(ds.n_features, 3);
    ck_assert_int_eq(ds.x.rowptr[6], 8);
    gat_dataset_destroy(&ds);
    o.split_index = 1;
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_file(1, -1, (buf){0}), &o), GAT_EINVAL,
                 "holds no fixed split");
}
END_TEST

START_TEST(shchur_bad)
{
    const int32_t down[7] = {0, 2, 1, 5, 5, 6, 7}, out[7] = {2, 1, 0, 4, 3, 0, 6};
    const int32_t short_end[7] = {0, 2, 3, 5, 5, 6, 6};
    const int64_t rect[2] = {6, 5};
    gat_dataset ds;
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_file(0, 2, npy("<i4", 0, "(7,)", down, 28)), NULL),
                 GAT_EFORMAT, "member 'adj_indptr' is not a CSR row pointer: entry 2 is 1 after 2");
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_file(0, 1, npy("<i4", 0, "(7,)", out, 28)), NULL),
                 GAT_EFORMAT, "member 'adj_indices': entry 6 is 6, outside [0, 6)");
    ASSERT_FAILS(
        gat_dataset_load(&ds, shchur_file(0, 2, npy("<i4", 0, "(7,)", short_end, 28)), NULL),
        GAT_EFORMAT, "member 'adj_indptr' ends at 6, but 'adj_indices' has 7 entries");
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_file(0, 3, npy("<i8", 0, "(2,)", rect, 16)), NULL),
                 GAT_EFORMAT, "the adjacency is 6 x 5, expected square");
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_file(1, 4, npy("<f4", 0, "(5, 3)", FEAT, 60)), NULL),
                 GAT_EFORMAT, "the features have 5 rows but the adjacency has 6 nodes");
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_file(1, 5, npy("<i4", 0, "(5,)", out, 20)), NULL),
                 GAT_EFORMAT, "member 'labels' has 5 labels for 6 nodes");
}
END_TEST

/* The Shchur file (CSR attributes) with extra members appended. */
static const char *shchur_with(member *extra, int count)
{
    member m[16];
    int n = shchur_members(m, 0, -1, (buf){0});
    for (int k = 0; k < count; k++) {
        int at = n;
        for (int j = 0; j < n; j++)
            if (!strcmp(m[j].name, extra[k].name)) { /* idx_to_node: the object one replaced */
                free(m[j].data.p);
                at = j;
            }
        m[at] = extra[k];
        n += at == n;
    }
    buf z = zip(m, n, 0);
    return save("s.npz", &z);
}

/* UTF-32 little-endian of the ASCII or BMP code points in s (width chars each, NUL-padded). */
static buf utf32(const uint32_t *cp, int count, int width, int big)
{
    buf b = {0};
    for (int k = 0; k < count * width; k++) {
        const uint32_t u = cp[k];
        const unsigned char le[4] = {(unsigned char)u, (unsigned char)(u >> 8),
                                     (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
        const unsigned char be[4] = {le[3], le[2], le[1], le[0]};
        put(&b, big ? be : le, 4);
    }
    return b;
}

/* class_names and idx_to_node as numpy string arrays ('<U', '>U', '|S') name the classes and
 * nodes; an object array (gnn-benchmark's pickled dicts) is skipped; wrong shapes, dtypes and
 * code points are named. */
START_TEST(shchur_names)
{
    /* 4 class names (one class no node has) of width 3, 'é' and U+1F600 among them */
    const uint32_t cls[12] = {'a', 0, 0, 'b', 'c', 0, 0xE9, 't', 0xE9, 0x1F600, 0, 0};
    const char nodes[6][3] = {"n0", "n1", "n2", "n3", "n4", "n5"};
    gat_dataset ds;
    buf c = utf32(cls, 4, 3, 0), cb = utf32(cls, 4, 3, 1);
    member le[2] = {{"class_names", npy("<U3", 0, "(4,)", c.p, c.n)},
                    {"idx_to_node", npy("|S3", 0, "(6,)", nodes, sizeof nodes)}};
    ck_assert_msg(gat_dataset_load(&ds, shchur_with(le, 2), NULL) == GAT_OK, "%s",
                  gat_last_error());
    ck_assert_int_eq(ds.n_classes, 4);
    ck_assert_str_eq(ds.class_names[0], "a");
    ck_assert_str_eq(ds.class_names[1], "bc");
    ck_assert_str_eq(ds.class_names[2], "\xc3\xa9t\xc3\xa9");
    ck_assert_str_eq(ds.class_names[3], "\xf0\x9f\x98\x80");
    ck_assert_str_eq(ds.node_ids[5], "n5");
    gat_dataset_destroy(&ds);
    member be[1] = {{"class_names", npy(">U3", 0, "(4,)", cb.p, cb.n)}};
    ck_assert_int_eq(gat_dataset_load(&ds, shchur_with(be, 1), NULL), GAT_OK);
    ck_assert_str_eq(ds.class_names[1], "bc");
    ck_assert_str_eq(ds.node_ids[5], "5");
    gat_dataset_destroy(&ds);
    /* too few class names for the labels (0..2), numbers, a surrogate, a duplicate */
    member few[1] = {{"class_names", npy("<U3", 0, "(2,)", c.p, 24)}};
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_with(few, 1), NULL), GAT_EFORMAT,
                 "s.npz: member 'class_names' has shape (2,), expected (3,) or longer");
    const double real[3] = {1, 2, 3};
    member reals[1] = {{"class_names", npy("<f8", 0, "(3,)", real, sizeof real)}};
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_with(reals, 1), NULL), GAT_EFORMAT,
                 "s.npz: member 'class_names.npy' has dtype '<f8', expected strings or integers");
    const uint32_t sur[3] = {'x', 0xD800, 'y'};
    buf bs = utf32(sur, 3, 1, 0);
    member surr[1] = {{"class_names", npy("<U1", 0, "(3,)", bs.p, bs.n)}};
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_with(surr, 1), NULL), GAT_EFORMAT,
                 "s.npz: member 'class_names': string 1: character 0 is U+D800, not a character "
                 "of a name");
    const char dup[3][2] = {"x", "y", "x"};
    member dups[1] = {{"class_names", npy("|S2", 0, "(3,)", dup, sizeof dup)}};
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_with(dups, 1), NULL), GAT_EFORMAT,
                 "s.npz: member 'class_names': name 2, 'x', repeats name 0: names must be "
                 "distinct");
    const int64_t dup_ids[6] = {4, 1, 2, 3, 1, 5};
    member dup_nums[1] = {{"idx_to_node", npy("<i8", 0, "(6,)", dup_ids, sizeof dup_ids)}};
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_with(dup_nums, 1), NULL), GAT_EFORMAT,
                 "s.npz: member 'idx_to_node': name 4, '1', repeats name 1: names must be "
                 "distinct");
    member short_ids[1] = {{"idx_to_node", npy("|S3", 0, "(5,)", nodes, 15)}};
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_with(short_ids, 1), NULL), GAT_EFORMAT,
                 "s.npz: member 'idx_to_node' has shape (5,), expected (6,)");
    /* strings where numbers belong */
    ASSERT_FAILS(gat_dataset_load(&ds, shchur_file(0, 8, npy("|S3", 0, "(6,)", nodes, 18)), NULL),
                 GAT_EFORMAT, "s.npz: member 'labels.npy' has dtype '|S3', expected numbers");
    free(c.p), free(cb.p), free(bs.p);
}
END_TEST

/* Integer arrays name the classes and nodes by their decimals (int8..int64 either order, uint64
 * above INT64_MAX too). */
START_TEST(shchur_integer_names)
{
    const int16_t cls[3] = {-7, 30, 200};
    const unsigned char ids_be[6][4] = {
        {0x80, 0, 0, 0},         {0, 0, 0, 1}, {0, 0, 0, 2}, {0, 0, 1, 0}, {0x7F, 0xFF, 0xFF, 0xFF},
        {0xFF, 0xFF, 0xFF, 0xFF}};
    gat_dataset ds;
    member m[2] = {{"class_names", npy("<i2", 0, "(3,)", cls, sizeof cls)},
                   {"idx_to_node", npy(">i4", 0, "(6,)", ids_be, sizeof ids_be)}};
    ck_assert_msg(gat_dataset_load(&ds, shchur_with(m, 2), NULL) == GAT_OK, "%s", gat_last_error());
    const char *want_cls[3] = {"-7", "30", "200"};
    const char *want_ids[6] = {"-2147483648", "1", "2", "256", "2147483647", "-1"};
    for (int c = 0; c < 3; c++)
        ck_assert_str_eq(ds.class_names[c], want_cls[c]);
    for (int i = 0; i < 6; i++)
        ck_assert_str_eq(ds.node_ids[i], want_ids[i]);
    gat_dataset_destroy(&ds);
    const uint64_t big[6] = {UINT64_MAX, 0, (uint64_t)INT64_MAX + 1, 3, 4, 5};
    const uint8_t small[3] = {0, 1, 255};
    member u[2] = {{"idx_to_node", npy("<u8", 0, "(6,)", big, sizeof big)},
                   {"class_names", npy("|u1", 0, "(3,)", small, sizeof small)}};
    ck_assert_msg(gat_dataset_load(&ds, shchur_with(u, 2), NULL) == GAT_OK, "%s", gat_last_error());
    ck_assert_str_eq(ds.node_ids[0], "18446744073709551615");
    ck_assert_str_eq(ds.node_ids[2], "9223372036854775808");
    ck_assert_str_eq(ds.class_names[2], "255");
    gat_dataset_destroy(&ds);
}
END_TEST

/* ---- The Geom-GCN directory ---------------------------------------------------------------- */

static const char *FILM = "node_id\tfeature(feature_amount:5)\tlabel\n"
                          "3\t0,4\t1\n"
                          "0\t1,2,2\t0\n"
                          "1\t5\t1\n"
                          "2\t3,0\t0\n"
                          "5\t2\t2\n"
                          "4\t3\t2\n";

static const char *EDGES_TXT = "node_id\tnode_id\n0\t1\n1\t0\n1\t2\n2\t3\n3\t3\n4\t5\n";

static void write_split(const char *gdir, const char *name, const uint8_t *t, const uint8_t *v,
                        const uint8_t *x)
{
    member m[3] = {{"train_mask", npy("|u1", 0, "(6,)", t, 6)},
                   {"val_mask", npy("|u1", 0, "(6,)", v, 6)},
                   {"test_mask", npy("|u1", 0, "(6,)", x, 6)}};
    buf z = zip(m, 3, 0);
    char rel[256];
    snprintf(rel, sizeof rel, "%s/splits/%s", strrchr(gdir, '/') + 1, name);
    save(rel, &z);
}

static const char *geomgcn_dir(const char *nodes, int splits)
{
    static char gdir[4096];
    static int count;
    snprintf(gdir, sizeof gdir, "%s/film%d", dir, count++);
    mkdir(gdir, 0777);
    tu_write(gdir, "out1_node_feature_label.txt", nodes);
    tu_write(gdir, "out1_graph_edges.txt", EDGES_TXT);
    if (splits) {
        char s[4200];
        snprintf(s, sizeof s, "%s/splits", gdir);
        mkdir(s, 0777);
        for (int k = 0; k < splits; k++) {
            char name[64];
            snprintf(name, sizeof name, "film_split_0.6_0.2_%d.npz", k);
            write_split(gdir, name, TRAIN[k % 2], VAL[k % 2], TEST[k % 2]);
        }
    }
    return gdir;
}

START_TEST(geomgcn_film)
{
    const char *g = geomgcn_dir(FILM, 2);
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    o.split_index = 1;
    gat_dataset ds;
    ck_assert_int_eq(gat_dataset_load(&ds, g, &o), GAT_OK);
    ck_assert_int_eq(ds.n, 6);
    ck_assert_int_eq(ds.n_features, 6); /* the largest index + 1 > feature_amount 5 */
    ck_assert_int_eq(ds.n_classes, 3);
    ck_assert_int_eq(ds.n_splits, 2);
    check_split(&ds, 1);
    /* node 0: {1, 2} once each (binary) */
    ck_assert_int_eq(ds.x.rowptr[1], 2);
    ck_assert_int_eq(ds.x.col[0], 1);
    ck_assert_int_eq(ds.x.col[1], 2);
    ck_assert(ds.x.val[1] == 1);
    ck_assert_int_eq(ds.labels[3], 1);
    /* edges 0-1, 1-2, 2-3, 4-5 undirected (the loop 3-3 is the builder's) + 6 loops */
    ck_assert_int_eq(ds.graph.nnz, 14);
    gat_dataset_destroy(&ds);
    o.split_index = 2;
    ASSERT_FAILS(gat_dataset_load(&ds, g, &o), GAT_EINVAL, "split index 2 is out of range");
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "holds 2 split files"));
}
END_TEST

START_TEST(geomgcn_dense_and_bad)
{
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.train_per_class = 1;
    o.n_val = o.n_test = 1;
    gat_dataset ds;
    const char *dense = "node_id\tfeature\tlabel\n0\t1,0,1\t0\n1\t0,1,0\t1\n2\t1,1,0\t0\n"
                        "3\t0,0,1\t1\n4\t1,0,0\t0\n5\t0,1,1\t1\n";
    ck_assert_int_eq(gat_dataset_load(&ds, geomgcn_dir(dense, 0), &o), GAT_OK);
    ck_assert_int_eq(ds.n_features, 3);
    ck_assert_int_eq(ds.n_splits, 0);
    ck_assert_int_eq(ds.x.rowptr[6], 9);
    ck_assert_int_eq(ds.n_train, 2);
    gat_dataset_destroy(&ds);
    ASSERT_FAILS(gat_dataset_load(&ds,
                                  geomgcn_dir("node_id\tfeature\tlabel\n0\t1,0\t0\n"
                                              "1\t1\t1\n",
                                              0),
                                  &o),
                 GAT_EFORMAT, "out1_node_feature_label.txt:3: 1 feature values, but node 0 has 2");
    ASSERT_FAILS(gat_dataset_load(&ds,
                                  geomgcn_dir("node_id\tfeature\tlabel\n0\t1,x\t0\n"
                                              "1\t1,1\t1\n",
                                              0),
                                  &o),
                 GAT_EFORMAT, ":2: feature 1 of node 0 is not a number");
    ASSERT_FAILS(gat_dataset_load(&ds,
                                  geomgcn_dir("node_id\tfeature\tlabel\n0\t1,0\t0\n"
                                              "0\t1,1\t1\n",
                                              0),
                                  &o),
                 GAT_EFORMAT, ":3: node id 0 repeats line 2");
    ASSERT_FAILS(gat_dataset_load(&ds, geomgcn_dir("0\t1,0\t0\n", 0), &o), GAT_EFORMAT,
                 ":1: expected the header line");
    /* an edge to a node that does not exist */
    ASSERT_FAILS(gat_dataset_load(&ds,
                                  geomgcn_dir("node_id\tfeature\tlabel\n0\t1\t0\n"
                                              "1\t1\t1\n",
                                              0),
                                  &o),
                 GAT_EFORMAT, "out1_graph_edges.txt:4: expected 2 node ids in [0, 2)");
    /* split files with a gap: 0 and 2 */
    const char *g = geomgcn_dir(FILM, 1);
    write_split(g, "film_split_0.6_0.2_2.npz", TRAIN[0], VAL[0], TEST[0]);
    ASSERT_FAILS(gat_dataset_load(&ds, g, NULL), GAT_EFORMAT,
                 "2 split files 'film_split_0.6_0.2_*.npz' but the largest is 2");
    /* a split mask of the wrong length */
    g = geomgcn_dir(FILM, 0);
    char rel[4200];
    snprintf(rel, sizeof rel, "%s/splits", g);
    mkdir(rel, 0777);
    snprintf(rel, sizeof rel, "%s/splits/film_split_0.6_0.2_0.npz", strrchr(g, '/') + 1);
    save(rel, &(buf){0});
    ASSERT_FAILS(gat_dataset_load(&ds, g, NULL), GAT_EFORMAT,
                 "film_split_0.6_0.2_0.npz: truncated or not a zip archive: 0 bytes");
    member m[3] = {{"train_mask", npy("|u1", 0, "(5,)", TRAIN[0], 5)},
                   {"val_mask", npy("|u1", 0, "(6,)", VAL[0], 6)},
                   {"test_mask", npy("|u1", 0, "(6,)", TEST[0], 6)}};
    buf z = zip(m, 3, 0);
    save(rel, &z);
    ASSERT_FAILS(
        gat_dataset_load(&ds, g, NULL), GAT_EFORMAT,
        "member 'train_mask' has shape (5,) and dtype '|u1', expected (6,) or (splits, 6)");
}
END_TEST

/* The split index on the other sources: a NAME.split file, a .gatd file and parts hold one
 * split, a random split none. */
START_TEST(split_index_other_sources)
{
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    gat_dataset ds;
    ck_assert_int_eq(gat_dataset_load(&ds, tu_data("tiny"), &o), GAT_OK);
    ck_assert_int_eq(ds.n_splits, 1);
    snprintf(path, sizeof path, "%s/tiny.gatd", dir);
    ck_assert_int_eq(gat_dataset_save(&ds, path, "tiny"), GAT_OK);
    const gat_csr x = ds.x;
    const gat_dataset_parts parts = {.graph = &ds.graph,
                                     .features = &x,
                                     .labels = ds.labels,
                                     .n_classes = ds.n_classes,
                                     .split = ds.split};
    gat_dataset from;
    o.split_index = 1;
    ASSERT_FAILS(gat_dataset_from_parts(&from, &parts, &o), GAT_EINVAL,
                 "gat_dataset_from_parts: split index 1 is out of range: the data holds 1 split");
    o.split_index = 0;
    ck_assert_int_eq(gat_dataset_from_parts(&from, &parts, &o), GAT_OK);
    ck_assert_int_eq(from.n_splits, 1);
    gat_dataset_destroy(&from);
    gat_dataset_destroy(&ds);
    ck_assert_int_eq(gat_dataset_load(&ds, path, &o), GAT_OK);
    ck_assert_int_eq(ds.n_splits, 1);
    gat_dataset_destroy(&ds);
    o.split_index = 1;
    ASSERT_FAILS(gat_dataset_load(&ds, path, &o), GAT_EINVAL, "holds 1 fixed split");
    ASSERT_FAILS(gat_dataset_load(&ds, tu_data("tiny"), &o), GAT_EINVAL,
                 "split index 1 is out of range");
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "holds 1 fixed split"));
    /* a text dataset without a split file */
    o.split_index = 0;
    ck_assert_int_eq(gat_dataset_load(&ds, tu_data("small/small"), &o), GAT_OK);
    gat_dataset_destroy(&ds);
}
END_TEST

START_TEST(labels_and_empty_files)
{
    const int64_t big[6] = {0, 1, 6, 1, 0, 1};
    platonov_bad(1, npy("<i8", 0, "(6,)", big, sizeof big), GAT_EFORMAT,
                 "node 2 has label 6, expected -1 (unlabelled) or a class below the node count 6");
    gat_dataset ds;
    ASSERT_FAILS(gat_dataset_load(&ds, geomgcn_dir("node_id\tfeature\tlabel\n", 0), NULL),
                 GAT_EFORMAT, "out1_node_feature_label.txt: no node lines after the header");
}
END_TEST

START_TEST(write_geomgcn)
{
    geomgcn_dir(FILM, 2);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("npz");
    struct {
        const char *name;
        const TTest *test;
        int from, to;
    } cases[] = {
        {"platonov_good", platonov_good, 0, 4}, /* zip()'s modes */
        {"platonov_one_split_big_endian", platonov_one_split_big_endian, 0, 1},
        {"platonov_float16", platonov_float16, 0, 1},
        {"platonov_bad_members", platonov_bad_members, 0, 1},
        {"platonov_missing_members", platonov_missing_members, 0, 1},
        {"zip_malformed", zip_malformed, 0, 1},
        {"alloc_failure", alloc_failure, 0, 1},
        {"zip64_malformed", zip64_malformed, 0, 1},
        {"damaged_files", damaged_files, 0, 4},
        {"shchur_good", shchur_good, 0, 1},
        {"shchur_bad", shchur_bad, 0, 1},
        {"shchur_names", shchur_names, 0, 1},
        {"shchur_integer_names", shchur_integer_names, 0, 1},
        {"geomgcn_film", geomgcn_film, 0, 1},
        {"geomgcn_dense_and_bad", geomgcn_dense_and_bad, 0, 1},
        {"split_index_other_sources", split_index_other_sources, 0, 1},
        {"labels_and_empty_files", labels_and_empty_files, 0, 1},
    };
    for (size_t k = 0; k < LEN(cases); k++) {
        TCase *tc = tcase_create(cases[k].name);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_loop_test(tc, cases[k].test, cases[k].from, cases[k].to);
        suite_add_tcase(s, tc);
    }
    return s;
}

/* test_npz --write FILE: a small Platonov-layout file for the CLI check (test_npz_cli.sh): 48
 * nodes in 2 classes on a ring of same-class neighbours, features that say the class (and one of
 * noise), 3 fixed splits. */
static int write_tiny(const char *file)
{
    enum { N = 48, S = 3 };
    float feat[N][3];
    int64_t labels[N], edges[N][2];
    uint8_t masks[3][S][N];
    uint64_t r = 7;
    for (int i = 0; i < N; i++) {
        labels[i] = i % 2;
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        feat[i][0] = labels[i] == 0;
        feat[i][1] = labels[i] == 1;
        feat[i][2] = (float)(r >> 40) / (float)(1 << 24);
        edges[i][0] = i;
        edges[i][1] = (i + 2) % N;
        for (int k = 0; k < S; k++) {
            const int part = (i + 16 * k) % N / 16; /* 0 train, 1 val, 2 test */
            for (int s = 0; s < 3; s++)
                masks[s][k][i] = part == s;
        }
    }
    member m[6] = {{"node_features", npy("<f4", 0, "(48, 3)", feat, sizeof feat)},
                   {"node_labels", npy("<i8", 0, "(48,)", labels, sizeof labels)},
                   {"edges", npy("<i8", 0, "(48, 2)", edges, sizeof edges)},
                   {"train_masks", npy("|b1", 0, "(3, 48)", masks[0], sizeof masks[0])},
                   {"val_masks", npy("|b1", 0, "(3, 48)", masks[1], sizeof masks[1])},
                   {"test_masks", npy("|b1", 0, "(3, 48)", masks[2], sizeof masks[2])}};
    buf z = zip(m, 6, 0);
    FILE *f = fopen(file, "wb");
    if (!f || fwrite(z.p, 1, z.n, f) != z.n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", file);
        return 1;
    }
    free(z.p);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        writing = 1;
        return write_tiny(argv[2]);
    }
    /* test_npz --write-geomgcn PARENT: the film fixture with 2 split files as PARENT/film0,
     * written by a Check test (the writers assert) */
    if (argc == 3 && strcmp(argv[1], "--write-geomgcn") == 0) {
        dir = argv[2];
        Suite *w = suite_create("write");
        TCase *tc = tcase_create("geomgcn");
        tcase_add_test(tc, write_geomgcn);
        suite_add_tcase(w, tc);
        return tu_run(w);
    }
    return tu_run(suite());
}
