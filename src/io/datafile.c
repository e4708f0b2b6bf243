/* Dataset files (.gatd; the format is described atop gat/dataset.h): the safetensors layout of
 * io/safetensors.h holding the graph's in-CSR, the raw features (CSR, or dense from other
 * writers), labels, split and node ids. The loader maps the file copy-on-write and points the
 * dataset's arrays into the mapping where byte order and alignment allow, after checking every
 * length, offset, index and value in one pass per array; the out-CSR is rebuilt by counting.
 * Part files of a partition (gat/partition.h; format "libgat-part") go through the same writer
 * and reader: a rectangular in-CSR over local ids plus the part.* tensors, no transpose. */
#include "gat/dataset.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "io/dataset_i.h"
#include "io/fileio.h"
#include "io/safetensors.h"
#include "io/text.h"
#include "matrix_i.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define GATD_FORMAT "libgat-dataset"
#define GATD_VERSION "1"
#define GATD_PART_FORMAT "libgat-part"
/* Alignment of the data section and of every tensor in the files we write: an mmap of the file
 * (page aligned) then gives cache-line aligned arrays. */
#define GATD_ALIGN 64
#define GATD_PAD "__padding__"

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0 /* unknown or big-endian: every array is converted into a copy */
#endif

/* ---- What a loaded dataset keeps (gat_dataset.storage) ------------------------------------ */

typedef struct storage {
    gat_i_storage base; /* gat_dataset.storage points here; base.context to this struct */
    void *map;          /* the file, mapped MAP_PRIVATE (writes stay in this process) */
    size_t map_len;
    char *ids; /* generated node ids "0".."n-1" back to back, or NULL */
    size_t ids_len;
} storage;

static int inside(const storage *s, const void *p)
{
    const char *c = p;
    /* <= end: an empty tensor at the very end of the file points there */
    return p && ((s->map && c >= (const char *)s->map && c <= (const char *)s->map + s->map_len) ||
                 (s->ids && c >= s->ids && c <= s->ids + s->ids_len));
}

/* *p = NULL if it points into s (the per-array frees of gat_dataset_destroy then skip it). */
static void forget(const storage *s, void *pp)
{
    void **p = pp;
    if (inside(s, *p)) *p = NULL;
}

/* gat_i_storage.release of a loaded file: clears the pointers into s, unmaps and frees s. */
static void release(gat_dataset *ds, void *context)
{
    storage *s = context;
    char **ids = gat_i_strv(ds->node_ids);
    for (gat_idx i = 0; ids && i < ds->n; i++)
        forget(s, &ids[i]);
    forget(s, &ds->x.rowptr);
    forget(s, &ds->x.col);
    forget(s, &ds->x.val);
    forget(s, &ds->graph.rowptr);
    forget(s, &ds->graph.col);
    forget(s, &ds->labels);
    forget(s, &ds->split);
    forget(s, &ds->edge_x);
    forget(s, &ds->edge_input);
    if (s->map) munmap(s->map, s->map_len);
    gat_free(s->ids);
    gat_free(s);
}

/* ---- Sniffing ---------------------------------------------------------------------------- */

static int has_suffix(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether path.EXT exists (a LINQS prefix wins over a file that merely looks binary). */
static int prefix_exists(const char *path, const char *ext)
{
    const size_t n = strlen(path), k = strlen(ext);
    struct stat sb;
    char *p = gat_malloc(n + k + 1, 1);
    int yes;
    if (!p) return 0;
    memcpy(p, path, n);
    memcpy(p + n, ext, k + 1);
    yes = stat(p, &sb) == 0;
    gat_free(p);
    return yes;
}

int gat_i_datafile_is(const char *path)
{
    unsigned char head[9];
    struct stat sb;
    uint64_t hlen = 0;
    const int found = stat(path, &sb) == 0;
    if (has_suffix(path, ".gatd") && !(found && S_ISDIR(sb.st_mode))) return 1;
    if (!found || !S_ISREG(sb.st_mode) || prefix_exists(path, ".content") ||
        prefix_exists(path, ".content.gz"))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    const size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got != sizeof head) return 0;
    for (int b = 7; b >= 0; b--)
        hlen = hlen << 8 | head[b];
    return hlen >= 2 && hlen <= GAT_I_ST_MAX_HEADER && head[8] == '{';
}

/* ---- Loading ----------------------------------------------------------------------------- */

/* clang-format off */
enum {
    T_GPTR, T_GIDX, T_XPTR, T_XIDX, T_XVAL, T_XDENSE, T_LABELS, T_SPLIT, T_IDS,
    T_EX, T_EIN,        /* optional edge features and provenance */
    T_GLOBAL, T_HOWNER, /* part files only */
    T_COUNT
};

static const struct {
    const char *name, *dtype;
    size_t esize;
} spec[T_COUNT] = {
    {"graph.indptr", "I32", 4},    {"graph.indices", "I32", 4}, {"features.indptr", "I32", 4},
    {"features.indices", "I32", 4}, {"features.data", "F32", 4}, {"features", "F32", 4},
    {"labels", "I32", 4},          {"split", "U8", 1},          {"node_ids", "U8", 1},
    {"edge_features", "F32", 4},   {"edge_input", "I32", 4},
    {"part.global_ids", "I32", 4}, {"part.halo_owner", "I32", 4},
};
/* clang-format on */

typedef struct reader {
    const char *path;
    gat_dataset *ds;
    storage *own;
    const unsigned char *data; /* the data section */
    size_t data_len;
    int present[T_COUNT];
    size_t span[T_COUNT][2];
    size_t dims[T_COUNT][2];
    int ndim[T_COUNT];
    gat_idx classes;       /* C from the metadata */
    gat_i_part_data *part; /* a part file (format libgat-part) is read into it; NULL: a dataset */
    gat_idx cols;          /* columns of the graph CSR: n, or n + halo in a part file */
} reader;

static gat_status map_file(reader *R)
{
    struct stat sb;
    gat_status st = GAT_OK;
    errno = 0;
    const int fd = open(R->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return gat_i_error(GAT_EIO, "cannot open %s: %s", R->path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        st = gat_i_error(GAT_EIO, "cannot read %s: %s", R->path, strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        st = gat_i_error(GAT_EIO, "cannot read %s: not a regular file", R->path);
    } else if (sb.st_size < 8 || (uintmax_t)sb.st_size > SIZE_MAX) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: truncated: %lld bytes, too short for the 8-byte header length of "
                         "a dataset file",
                         R->path, (long long)sb.st_size);
    } else {
        /* writable copy-on-write pages: normalisation and a random split may write in place */
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED)
            st = gat_i_error(GAT_EIO, "cannot map %s: %s", R->path, strerror(errno));
        else
            R->own->map = m, R->own->map_len = (size_t)sb.st_size;
    }
    close(fd);
    return st;
}

/* Number of elements tensor k's shape holds, 0 for an absent tensor. */
static size_t count(const reader *R, int k)
{
    size_t c = 1;
    for (int d = 0; d < R->ndim[k]; d++)
        c *= R->dims[k][d];
    return R->present[k] ? c : 0;
}

static gat_status read_entries(reader *R, const cJSON *root)
{
    const cJSON *e;
    const char *dtype;
    gat_status st;
    cJSON_ArrayForEach(e, root)
    {
        size_t dims[2], span[2];
        int ndim, k = 0;
        if (!strcmp(e->string, "__metadata__")) continue;
        const int pad = !strncmp(e->string, GATD_PAD, strlen(GATD_PAD));
        while (!pad && k < T_COUNT && strcmp(e->string, spec[k].name) != 0)
            k++;
        if (!R->part && (k == T_GLOBAL || k == T_HOWNER)) k = T_COUNT;
        if (k == T_COUNT && R->part)
            return gat_i_error(GAT_EFORMAT,
                               "%s: unexpected tensor \"%s\" (a part file holds graph.*, "
                               "features.*, labels, split, node_ids and part.*)",
                               R->path, e->string);
        if (k == T_COUNT)
            return gat_i_error(
                GAT_EFORMAT,
                "%s: unexpected tensor \"%s\" (a dataset file holds graph.*, "
                "features[.*], labels, split, node_ids, edge_features and edge_input)",
                R->path, e->string);
        if ((st = gat_i_st_entry(R->path, e, e->string, R->data_len, &dtype, dims, 2, &ndim,
                                 span)) != GAT_OK)
            return st;
        if (pad) continue; /* alignment filler: never read */
        if (R->present[k])
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" appears twice in the header",
                               R->path, spec[k].name);
        if (strcmp(dtype, spec[k].dtype) != 0)
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" has dtype \"%s\", expected \"%s\"",
                               R->path, spec[k].name, dtype, spec[k].dtype);
        const int want_ndim = k == T_XDENSE || k == T_EX ? 2 : 1;
        if (ndim != want_ndim)
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" has %d dimensions, expected %d",
                               R->path, spec[k].name, ndim, want_ndim);
        /* each dimension is at most 2^53 and the span at most the file: check by division */
        if ((ndim == 2 && dims[1] != 0 && dims[0] > (span[1] - span[0]) / dims[1]) ||
            dims[0] * (ndim == 2 ? dims[1] : 1) * spec[k].esize != span[1] - span[0])
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"%s\" spans %zu bytes but its shape needs %zu x %zu "
                               "elements of %zu bytes",
                               R->path, spec[k].name, span[1] - span[0], dims[0],
                               ndim == 2 ? dims[1] : 1, spec[k].esize);
        R->present[k] = 1;
        R->ndim[k] = ndim;
        memcpy(R->dims[k], dims, sizeof dims);
        memcpy(R->span[k], span, sizeof span);
    }
    static const int required[] = {T_GPTR, T_GIDX, T_LABELS, T_SPLIT, T_GLOBAL, T_HOWNER};
    for (size_t r = 0; r < sizeof required / sizeof *required - (R->part ? 0 : 2); r++)
        if (!R->present[required[r]])
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" is missing", R->path,
                               spec[required[r]].name);
    const int csr = R->present[T_XPTR] || R->present[T_XIDX] || R->present[T_XVAL];
    if (csr && R->present[T_XDENSE])
        return gat_i_error(GAT_EFORMAT,
                           "%s: both \"features\" (dense) and \"features.*\" (CSR) are present; "
                           "expected one of them",
                           R->path);
    if (!csr && !R->present[T_XDENSE])
        return gat_i_error(GAT_EFORMAT,
                           "%s: no features: expected \"features.indptr\", \"features.indices\" "
                           "and \"features.data\", or a dense \"features\"",
                           R->path);
    for (int k = T_XPTR; csr && k <= T_XVAL; k++)
        if (!R->present[k])
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" is missing", R->path, spec[k].name);
    /* sorted by start, each tensor must begin at or after the previous one's end */
    int order[T_COUNT], m = 0;
    for (int k = 0; k < T_COUNT; k++) {
        if (!R->present[k]) continue;
        int j = m++;
        for (; j > 0 && R->span[order[j - 1]][0] > R->span[k][0]; j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
    for (int j = 1; j < m; j++)
        if (R->span[order[j]][0] < R->span[order[j - 1]][1])
            return gat_i_error(GAT_EFORMAT,
                               "%s: the data of tensors \"%s\" [%zu, %zu) and \"%s\" [%zu, %zu) "
                               "overlap",
                               R->path, spec[order[j - 1]].name, R->span[order[j - 1]][0],
                               R->span[order[j - 1]][1], spec[order[j]].name, R->span[order[j]][0],
                               R->span[order[j]][1]);
    return GAT_OK;
}

/* Checks tensor k's first dimension against want (from the metadata or another tensor). */
static gat_status expect_dim(const reader *R, int k, int d, size_t want, const char *why)
{
    if (R->dims[k][d] != want)
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" has %zu %s, expected %zu (%s)", R->path,
                           spec[k].name, R->dims[k][d], d ? "columns" : "entries", want, why);
    return GAT_OK;
}

/* The metadata string under key as 16 hexadecimal digits (a part file's hashes). */
static gat_status meta_hex(const reader *R, const cJSON *md, const char *key, uint64_t *out)
{
    const char *s;
    gat_status st = gat_i_st_meta_get(R->path, md, key, 1, &s);
    uint64_t v = 0;
    if (st != GAT_OK) return st;
    for (int k = 0; k < 16; k++) {
        const char c = s[k];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) {
            v = 0;
            break;
        }
        v = v << 4 | (uint64_t)d;
    }
    if (strlen(s) != 16 || (v == 0 && strcmp(s, "0000000000000000") != 0))
        return gat_i_error(GAT_EFORMAT,
                           "%s: __metadata__ \"%s\" is \"%s\", expected 16 hexadecimal digits",
                           R->path, key, s);
    *out = v;
    return GAT_OK;
}

/* The metadata: format, version, sizes, flags; the sizes are checked against the shapes. */
static gat_status read_meta(reader *R, const cJSON *md, long *v_norm)
{
    gat_dataset *ds = R->ds;
    const char *s, *format = R->part ? GATD_PART_FORMAT : GATD_FORMAT;
    long v[4] = {0, 0, 0, 0}, sym = 0;
    gat_status st;
    if (!md || (st = gat_i_st_meta_get(R->path, md, "format", 0, &s)) != GAT_OK || !s ||
        strcmp(s, format) != 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: __metadata__ \"format\" is not \"%s\": not a libgat %s file",
                           R->path, format, R->part ? "part" : "dataset");
    if ((st = gat_i_st_meta_get(R->path, md, "version", 1, &s)) != GAT_OK) return st;
    if (strcmp(s, GATD_VERSION) != 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: %s file version \"%s\" is not supported (this libgat reads "
                           "version " GATD_VERSION ")",
                           R->path, R->part ? "part" : "dataset", s);
    *v_norm = 0;
    if ((st = gat_i_st_meta_int(R->path, md, "nodes", 0, INT32_MAX - 1, 1, &v[0])) != GAT_OK ||
        (st = gat_i_st_meta_int(R->path, md, "features", 0, INT32_MAX, 1, &v[1])) != GAT_OK ||
        (st = gat_i_st_meta_int(R->path, md, "classes", 0, INT32_MAX, 1, &v[2])) != GAT_OK ||
        (st = gat_i_st_meta_int(R->path, md, "edges", 0, INT32_MAX, 1, &v[3])) != GAT_OK ||
        (st = gat_i_st_meta_int(R->path, md, "symmetrized", 0, 1, !R->part, &sym)) != GAT_OK ||
        (st = gat_i_st_meta_int(R->path, md, "normalized", 0, 1, 0, v_norm)) != GAT_OK)
        return st;
    const size_t n = (size_t)v[0], F = (size_t)v[1];
    R->cols = (gat_idx)v[0];
    if (R->part) {
        gat_i_part_data *p = R->part;
        long w[4] = {0, 0, 0, 0};
        if ((st = gat_i_st_meta_int(R->path, md, "halo", 0, INT32_MAX - 1 - v[0], 1, &w[0])) !=
                GAT_OK ||
            (st = gat_i_st_meta_int(R->path, md, "part", 0, INT32_MAX - 1, 1, &w[1])) != GAT_OK ||
            (st = gat_i_st_meta_int(R->path, md, "parts", 1, INT32_MAX, 1, &w[2])) != GAT_OK ||
            (st = gat_i_st_meta_int(R->path, md, "global_nodes", 0, INT32_MAX - 1, 1, &w[3])) !=
                GAT_OK ||
            (st = meta_hex(R, md, "fingerprint", &p->fingerprint)) != GAT_OK ||
            (st = meta_hex(R, md, "assignment", &p->assignment)) != GAT_OK)
            return st;
        p->n_halo = (gat_idx)w[0];
        p->part = (gat_idx)w[1];
        p->n_parts = (gat_idx)w[2];
        p->n_global = (gat_idx)w[3];
        R->cols = (gat_idx)(v[0] + w[0]);
        if ((st = expect_dim(R, T_GLOBAL, 0, n + (size_t)w[0], "nodes + halo")) != GAT_OK ||
            (st = expect_dim(R, T_HOWNER, 0, (size_t)w[0], "halo")) != GAT_OK)
            return st;
    }
    if ((st = expect_dim(R, T_GPTR, 0, n + 1, "nodes + 1")) != GAT_OK ||
        (st = expect_dim(R, T_GIDX, 0, (size_t)v[3], "edges")) != GAT_OK ||
        (st = expect_dim(R, T_LABELS, 0, n, "nodes")) != GAT_OK ||
        (st = expect_dim(R, T_SPLIT, 0, n, "nodes")) != GAT_OK)
        return st;
    if (R->present[T_XDENSE]) {
        if ((st = expect_dim(R, T_XDENSE, 0, n, "nodes")) != GAT_OK ||
            (st = expect_dim(R, T_XDENSE, 1, F, "features")) != GAT_OK)
            return st;
    } else {
        if ((st = expect_dim(R, T_XPTR, 0, n + 1, "nodes + 1")) != GAT_OK ||
            (st = expect_dim(R, T_XVAL, 0, R->dims[T_XIDX][0], "one per features.indices entry")) !=
                GAT_OK)
            return st;
        if (R->dims[T_XIDX][0] > (size_t)INT32_MAX)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"features.indices\" has %zu entries, more than %d",
                               R->path, R->dims[T_XIDX][0], INT32_MAX);
    }
    if (R->present[T_EX]) {
        if ((st = expect_dim(R, T_EX, 0, (size_t)v[3], "edges")) != GAT_OK) return st;
        if (R->dims[T_EX][1] == 0 || R->dims[T_EX][1] > (size_t)INT32_MAX)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"edge_features\" has %zu columns, expected 1..%d",
                               R->path, R->dims[T_EX][1], INT32_MAX);
    }
    if (R->present[T_EIN] && (st = expect_dim(R, T_EIN, 0, (size_t)v[3], "edges")) != GAT_OK)
        return st;
    ds->n = (gat_idx)v[0];
    ds->n_features = (gat_idx)v[1];
    R->classes = (gat_idx)v[2]; /* ds->n_classes is set with the class names */
    return GAT_OK;
}

/* The I32 tensor k as gat_idx values: a pointer into the mapping when aligned on a
 * little-endian host, else a converted copy (owned by the dataset through *out). */
static gat_status idx_array(const reader *R, int k, gat_idx **out)
{
    const unsigned char *p = R->data + R->span[k][0];
    const size_t c = count(R, k);
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
static gat_status check_csr(const reader *R, int kp, int ki, const gat_idx *ptr, const gat_idx *idx,
                            gat_idx rows, gat_idx cols, int loops)
{
    const size_t nnz = count(R, ki);
    if (ptr[0] != 0)
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" starts at %d, expected 0", R->path,
                           spec[kp].name, ptr[0]);
    for (gat_idx i = 0; i < rows; i++)
        if (ptr[i + 1] < ptr[i])
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"%s\" decreases at row %d: %d after %d (row pointers "
                               "never decrease)",
                               R->path, spec[kp].name, i, ptr[i + 1], ptr[i]);
    if ((size_t)ptr[rows] != nnz)
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"%s\" ends at %d, expected %zu (the length "
                           "of \"%s\")",
                           R->path, spec[kp].name, ptr[rows], nnz, spec[ki].name);
    for (gat_idx i = 0; i < rows; i++) {
        int loop = 0;
        for (gat_idx e = ptr[i]; e < ptr[i + 1]; e++) {
            if (idx[e] < 0 || idx[e] >= cols)
                return gat_i_error(GAT_EFORMAT,
                                   "%s: tensor \"%s\" entry %d (row %d) is %d, outside [0, %d)",
                                   R->path, spec[ki].name, e, i, idx[e], cols);
            if (e > ptr[i] && idx[e] <= idx[e - 1])
                return gat_i_error(GAT_EFORMAT,
                                   "%s: tensor \"%s\" row %d is not strictly ascending: %d "
                                   "after %d (entry %d)",
                                   R->path, spec[ki].name, i, idx[e], idx[e - 1], e);
            loop |= idx[e] == i;
        }
        if (loops && !loop)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"%s\" row %d lacks the self-loop %d -> %d (every node "
                               "has one)",
                               R->path, spec[ki].name, i, i, i);
    }
    return GAT_OK;
}

/* The node ids: the blob's n NUL-terminated strings (pointing into it), or "0".."n-1" in one
 * owned block; checked distinct. */
static gat_status read_ids(reader *R)
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
    const size_t len = count(R, T_IDS);
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

static gat_status read_class_names(reader *R, const cJSON *md, gat_idx C)
{
    gat_dataset *ds = R->ds;
    const char *s;
    const cJSON *it;
    cJSON *a = NULL;
    gat_status st = gat_i_st_meta_get(R->path, md, "class_names", 0, &s);
    if (st != GAT_OK) return st;
    if (s && (!(a = cJSON_Parse(s)) || !cJSON_IsArray(a) || cJSON_GetArraySize(a) != C)) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: __metadata__ \"class_names\" is not a JSON array of %d strings "
                         "(one per class)",
                         R->path, C);
        goto cleanup;
    }
    char **names = gat_calloc((size_t)C, sizeof *names);
    if (!(ds->class_names = (const char *const *)names)) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    ds->n_classes = C;
    it = a ? a->child : NULL;
    for (gat_idx c = 0; c < C; c++, it = it ? it->next : NULL) {
        char num[16];
        snprintf(num, sizeof num, "%d", c);
        if (a && !cJSON_IsString(it)) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: __metadata__ \"class_names\" entry %d is not a string", R->path,
                             c);
            goto cleanup;
        }
        if (!(names[c] = gat_strdup(a ? it->valuestring : num))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
    }
cleanup:
    cJSON_Delete(a);
    return st;
}

/* ds->x from the CSR tensors (pointing into the mapping where possible) or the dense one. */
static gat_status read_features(reader *R)
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
    if ((st = idx_array(R, T_XPTR, &x->rowptr)) != GAT_OK ||
        (st = idx_array(R, T_XIDX, &x->col)) != GAT_OK ||
        (st = check_csr(R, T_XPTR, T_XIDX, x->rowptr, x->col, n, F, 0)) != GAT_OK)
        return st;
    const size_t nnz = count(R, T_XIDX);
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
static gat_status read_edges(reader *R)
{
    gat_dataset *ds = R->ds;
    const gat_graph *g = &ds->graph;
    gat_status st;
    if (R->present[T_EX]) {
        const size_t D = R->dims[T_EX][1], c = count(R, T_EX);
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
    if ((st = idx_array(R, T_EIN, &ds->edge_input)) != GAT_OK) return st;
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

/* Labels in [-1, C), split values in 0..3 and only on labelled nodes. */
static gat_status read_labels_split(reader *R, const gat_dataset_options *opt)
{
    static const char *const split_name[] = {"none", "train", "val", "test"};
    gat_dataset *ds = R->ds;
    gat_status st;
    if ((st = idx_array(R, T_LABELS, &ds->labels)) != GAT_OK) return st;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] < -1 || ds->labels[i] >= ds->n_classes)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"labels\": node %d ('%s') has label %d, outside "
                               "[-1, %d)",
                               R->path, i, ds->node_ids[i], ds->labels[i], ds->n_classes);
    uint8_t *split = (uint8_t *)(uintptr_t)(R->data + R->span[T_SPLIT][0]);
    for (gat_idx i = 0; i < ds->n; i++) {
        if (split[i] > GAT_SPLIT_TEST)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"split\": node %d ('%s') has split value %d, "
                               "expected 0..3 (none, train, val, test)",
                               R->path, i, ds->node_ids[i], split[i]);
        if (split[i] != GAT_SPLIT_NONE && ds->labels[i] < 0)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"split\": node %d ('%s') is in the %s split but "
                               "has no label",
                               R->path, i, ds->node_ids[i], split_name[split[i]]);
    }
    if (!opt->ignore_split_file) {
        ds->split = split;
        return GAT_OK;
    }
    if (!(ds->split = gat_calloc((size_t)ds->n, sizeof *ds->split))) return GAT_ENOMEM;
    return gat_i_random_split(ds, opt, R->path);
}

/* Reads the file R->path into R->ds (and R->part for a part file): opt's split and
 * normalisation apply to datasets; a part keeps its stored split and features. */
static gat_status load_file(reader *R, const gat_dataset_options *opt)
{
    gat_dataset *ds = R->ds;
    cJSON *root = NULL;
    const cJSON *md;
    gat_i_clocale loc = {0};
    size_t data_at;
    long normalized = 0;
    gat_status st;

    if (!(R->own = gat_calloc(1, sizeof(storage)))) return GAT_ENOMEM;
    R->own->base.release = release;
    R->own->base.context = R->own;
    ds->storage = &R->own->base;
    if ((st = map_file(R)) != GAT_OK) goto cleanup;
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) goto cleanup;
    if ((st = gat_i_st_parse_header(R->path, R->own->map, R->own->map_len, &root, &data_at)) !=
        GAT_OK)
        goto cleanup;
    R->data = (const unsigned char *)R->own->map + data_at;
    R->data_len = R->own->map_len - data_at;
    if ((st = gat_i_st_metadata(R->path, root, &md)) != GAT_OK ||
        (st = read_entries(R, root)) != GAT_OK || (st = read_meta(R, md, &normalized)) != GAT_OK)
        goto cleanup;
    if (R->part && ((st = idx_array(R, T_GLOBAL, &R->part->global_ids)) != GAT_OK ||
                    (st = idx_array(R, T_HOWNER, &R->part->halo_owner)) != GAT_OK))
        goto cleanup;
    if ((st = read_ids(R)) != GAT_OK || (st = read_class_names(R, md, R->classes)) != GAT_OK)
        goto cleanup;
    gat_graph *g = &ds->graph;
    g->n = ds->n;
    g->nnz = (gat_idx)count(R, T_GIDX);
    /* a part's graph is rectangular (sources include the halo): no transpose */
    if ((st = idx_array(R, T_GPTR, &g->rowptr)) != GAT_OK ||
        (st = idx_array(R, T_GIDX, &g->col)) != GAT_OK ||
        (st = check_csr(R, T_GPTR, T_GIDX, g->rowptr, g->col, g->n, R->cols, 1)) != GAT_OK ||
        (!R->part && (st = gat_i_graph_transpose(g)) != GAT_OK) ||
        (st = read_features(R)) != GAT_OK || (st = read_edges(R)) != GAT_OK ||
        (st = read_labels_split(R, opt)) != GAT_OK)
        goto cleanup;
    gat_i_count_split(ds);
    if (normalized || R->part) {
        /* stored normalised: record negatives as usual, never normalise twice */
        if ((st = gat_i_normalize_checked(ds, GAT_NORMALIZE_OFF, "gat_dataset_load", R->path)) !=
            GAT_OK)
            goto cleanup;
        ds->normalized = normalized != 0;
    } else {
        st = gat_i_normalize_checked(ds, opt->normalize, "gat_dataset_load", R->path);
    }

cleanup:
    cJSON_Delete(root);
    gat_i_clocale_leave(&loc);
    return st;
}

gat_status gat_i_datafile_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt)
{
    reader R;
    memset(&R, 0, sizeof R);
    R.path = path;
    R.ds = ds;
    return load_file(&R, opt);
}

gat_status gat_i_partfile_load(gat_i_part_data *p, const char *path)
{
    gat_dataset_options opt;
    reader R;
    memset(p, 0, sizeof *p);
    memset(&R, 0, sizeof R);
    gat_dataset_options_default(&opt);
    R.path = path;
    R.ds = &p->ds;
    R.part = p;
    const gat_status st = load_file(&R, &opt);
    if (st != GAT_OK) gat_i_partfile_destroy(p);
    return st;
}

void gat_i_partfile_destroy(gat_i_part_data *p)
{
    if (!p) return;
    const gat_i_storage *base = p->ds.storage;
    const storage *s = base ? base->context : NULL;
    if (!s || !inside(s, p->global_ids)) gat_free(p->global_ids);
    if (!s || !inside(s, p->halo_owner)) gat_free(p->halo_owner);
    gat_dataset_destroy(&p->ds);
    memset(p, 0, sizeof *p);
}

/* ---- Saving ------------------------------------------------------------------------------ */

/* What gat_dataset_save refuses: what the loader would refuse, named after the argument. */
static gat_status check_save(const gat_dataset *ds, int *default_ids, int *symmetric)
{
    static const char *fn = "gat_dataset_save";
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
    if (ds->n > 0 && (!ds->labels || !ds->split))
        return gat_i_error(GAT_EINVAL, "%s: NULL labels or split", fn);
    for (gat_idx i = 0; i < ds->n; i++) {
        if (ds->labels[i] < -1 || ds->labels[i] >= ds->n_classes)
            return gat_i_error(GAT_EINVAL, "%s: node %d has label %d outside [-1, %d)", fn, i,
                               ds->labels[i], ds->n_classes);
        if (ds->split[i] > GAT_SPLIT_TEST || (ds->split[i] != GAT_SPLIT_NONE && ds->labels[i] < 0))
            return gat_i_error(GAT_EINVAL,
                               "%s: node %d has split value %d (expected 0..3, and 0 for an "
                               "unlabelled node)",
                               fn, i, ds->split[i]);
    }
    for (gat_idx c = 0; c < ds->n_classes; c++) {
        const char *s = ds->class_names ? ds->class_names[c] : NULL;
        if (!s || !gat_i_utf8_valid((const unsigned char *)s, strlen(s), &at))
            return gat_i_error(GAT_EINVAL, "%s: class name %d is NULL or not UTF-8", fn, c);
    }
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

enum { LEN_T = 10 }; /* tensors gat_dataset_save may write */

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

gat_status gat_dataset_save(const gat_dataset *ds, const char *path, const char *name)
{
    gat_i_clocale loc = {0};
    cJSON *root = NULL, *md;
    size_t at, ids_len = 0;
    int default_ids = 1, symmetric = 0;
    gat_status st;

    gat_i_clear_error();
    if (!ds || !path)
        return gat_i_error(GAT_EINVAL, "gat_dataset_save: NULL %s", !ds ? "dataset ds" : "path");
    if (name && !gat_i_utf8_valid((const unsigned char *)name, strlen(name), &at))
        return gat_i_error(GAT_EINVAL, "gat_dataset_save: name is not UTF-8 (byte %zu)", at);
    if ((st = check_save(ds, &default_ids, &symmetric)) != GAT_OK) return st;
    static const gat_idx zero_row[1] = {0}; /* the row pointers of a zeroed (empty) dataset */
    const gat_idx *gptr = ds->graph.rowptr ? ds->graph.rowptr : zero_row;
    const gat_idx *xptr = ds->x.rowptr ? ds->x.rowptr : zero_row;
    const size_t n = (size_t)ds->n, E = (size_t)ds->graph.nnz, nnz = (size_t)xptr[ds->n];
    const size_t D = (size_t)ds->n_edge_features;
    for (gat_idx i = 0; !default_ids && i < ds->n; i++)
        ids_len += strlen(ds->node_ids[i]) + 1;
    const out_tensor all[LEN_T] = {
        {"graph.indptr", "I32", {n + 1, 0}, 1, 4 * (n + 1), 0, gptr, NULL, 0},
        {"graph.indices", "I32", {E, 0}, 1, 4 * E, 0, ds->graph.col, NULL, 0},
        {"features.indptr", "I32", {n + 1, 0}, 1, 4 * (n + 1), 0, xptr, NULL, 0},
        {"features.indices", "I32", {nnz, 0}, 1, 4 * nnz, 0, ds->x.col, NULL, 0},
        {"features.data", "F32", {nnz, 0}, 1, 4 * nnz, 0, ds->x.val, NULL, 0},
        {"labels", "I32", {n, 0}, 1, 4 * n, 0, ds->labels, NULL, 0},
        {"split", "U8", {n, 0}, 1, n, 0, ds->split, NULL, 0},
        {"edge_features", "F32", {E, D}, 2, 4 * E * D, 0, ds->edge_x, NULL, 0},
        {"edge_input", "I32", {E, 0}, 1, 4 * E, 0, ds->edge_input, NULL, 0},
        {"node_ids", "U8", {ids_len, 0}, 1, ids_len, 0, NULL, ds->node_ids, n},
    };
    /* the optional tensors only when the dataset has them */
    out_tensor t[LEN_T];
    int nt = 0;
    for (int k = 0; k < LEN_T; k++)
        if ((k != 7 || D > 0) && (k != 8 || ds->edge_input) && (k != 9 || !default_ids))
            t[nt++] = all[k];
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) return st;
    if (!(root = cJSON_CreateObject()) || !(md = dataset_meta(root, GATD_FORMAT, ds, name)) ||
        !add_num(md, "symmetrized", symmetric) || !add_tensors(root, t, nt)) {
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
