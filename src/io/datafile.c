/* Dataset files (.gatd; the format is described atop gat/dataset.h): the safetensors layout of
 * io/safetensors.h holding the graph's in-CSR, the raw features (CSR, or dense from other
 * writers), labels, split and node ids. The loader maps the file copy-on-write and points the
 * dataset's arrays into the mapping where byte order and alignment allow, after checking every
 * length, offset, index and value in one pass per array; the out-CSR is rebuilt by counting.
 * Part files of a partition (gat/partition.h; format "libgat-part") go through the same writer
 * and reader: a rectangular in-CSR over local ids plus the part.* tensors, no transpose.
 * This file maps the file and reads its header; datafile_arrays.c checks and converts each array,
 * datafile_write.c writes. */
#include "io/datafile_i.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "io/fileio.h"
#include "io/safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- What a loaded dataset keeps (gat_dataset.storage) ------------------------------------ */

int gat_i_gatd_inside(const storage *s, const void *p)
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
    if (gat_i_gatd_inside(s, *p)) *p = NULL;
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
    forget(s, &ds->graph_ptr);
    forget(s, &ds->graph_labels);
    forget(s, &ds->label_matrix);
    forget(s, &ds->splits);
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

int gat_dataset_is_file(const char *path)
{
    return path && gat_i_datafile_is(path);
}

/* ---- Loading ----------------------------------------------------------------------------- */

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
        while (!pad && k < T_COUNT && strcmp(e->string, gat_i_gatd_spec[k].name) != 0)
            k++;
        if (!R->part && (k == T_GLOBAL || k == T_HOWNER)) k = T_COUNT;
        if (R->part && (k == T_GRPTR || k == T_GRLAB || k == T_LMAT || k == T_SPLITS)) k = T_COUNT;
        if (k == T_COUNT && R->part)
            return gat_i_error(GAT_EFORMAT,
                               "%s: unexpected tensor \"%s\" (a part file holds graph.*, "
                               "features.*, labels, split, node_ids and part.*)",
                               R->path, e->string);
        if (k == T_COUNT)
            return gat_i_error(
                GAT_EFORMAT,
                "%s: unexpected tensor \"%s\" (a dataset file holds graph.*, "
                "features[.*], labels, split, node_ids, edge_features, edge_input, graphs.ptr, "
                "graphs.labels, label_matrix and splits)",
                R->path, e->string);
        if ((st = gat_i_st_entry(R->path, e, e->string, R->data_len, &dtype, dims, 2, &ndim,
                                 span)) != GAT_OK)
            return st;
        if (pad) continue; /* alignment filler: never read */
        if (R->present[k])
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" appears twice in the header",
                               R->path, gat_i_gatd_spec[k].name);
        if (strcmp(dtype, gat_i_gatd_spec[k].dtype) != 0)
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" has dtype \"%s\", expected \"%s\"",
                               R->path, gat_i_gatd_spec[k].name, dtype, gat_i_gatd_spec[k].dtype);
        const int want_ndim = k == T_XDENSE || k == T_EX || k == T_LMAT || k == T_SPLITS ? 2 : 1;
        if (ndim != want_ndim)
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" has %d dimensions, expected %d",
                               R->path, gat_i_gatd_spec[k].name, ndim, want_ndim);
        /* each dimension is at most 2^53 and the span at most the file: check by division */
        if ((ndim == 2 && dims[1] != 0 && dims[0] > (span[1] - span[0]) / dims[1]) ||
            dims[0] * (ndim == 2 ? dims[1] : 1) * gat_i_gatd_spec[k].esize != span[1] - span[0])
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"%s\" spans %zu bytes but its shape needs %zu x %zu "
                               "elements of %zu bytes",
                               R->path, gat_i_gatd_spec[k].name, span[1] - span[0], dims[0],
                               ndim == 2 ? dims[1] : 1, gat_i_gatd_spec[k].esize);
        R->present[k] = 1;
        R->ndim[k] = ndim;
        memcpy(R->dims[k], dims, sizeof dims);
        memcpy(R->span[k], span, sizeof span);
    }
    static const int required[] = {T_GPTR, T_GIDX, T_LABELS, T_SPLIT, T_GLOBAL, T_HOWNER};
    for (size_t r = 0; r < sizeof required / sizeof *required - (R->part ? 0 : 2); r++)
        if (!R->present[required[r]])
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" is missing", R->path,
                               gat_i_gatd_spec[required[r]].name);
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
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" is missing", R->path,
                               gat_i_gatd_spec[k].name);
    /* sorted by start, each tensor must begin at or after the previous one's end; an empty
     * tensor holds no bytes, so it overlaps nothing (a one-part partition's "part.halo_owner"
     * sits where the next tensor starts) */
    int order[T_COUNT], m = 0;
    for (int k = 0; k < T_COUNT; k++) {
        if (!R->present[k] || R->span[k][0] == R->span[k][1]) continue;
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
                               R->path, gat_i_gatd_spec[order[j - 1]].name,
                               R->span[order[j - 1]][0], R->span[order[j - 1]][1],
                               gat_i_gatd_spec[order[j]].name, R->span[order[j]][0],
                               R->span[order[j]][1]);
    return GAT_OK;
}

/* Checks tensor k's first dimension against want (from the metadata or another tensor). */
static gat_status expect_dim(const reader *R, int k, int d, size_t want, const char *why)
{
    if (R->dims[k][d] != want)
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" has %zu %s, expected %zu (%s)", R->path,
                           gat_i_gatd_spec[k].name, R->dims[k][d], d ? "columns" : "entries", want,
                           why);
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
    if (R->part && ((st = gat_i_gatd_idx_array(R, T_GLOBAL, &R->part->global_ids)) != GAT_OK ||
                    (st = gat_i_gatd_idx_array(R, T_HOWNER, &R->part->halo_owner)) != GAT_OK))
        goto cleanup;
    if ((st = gat_i_gatd_read_ids(R)) != GAT_OK ||
        (st = gat_i_gatd_read_class_names(R, md, R->classes)) != GAT_OK)
        goto cleanup;
    gat_graph *g = &ds->graph;
    g->n = ds->n;
    g->nnz = (gat_idx)gat_i_gatd_count(R, T_GIDX);
    /* a part's graph is rectangular (sources include the halo): no transpose */
    if ((st = gat_i_gatd_idx_array(R, T_GPTR, &g->rowptr)) != GAT_OK ||
        (st = gat_i_gatd_idx_array(R, T_GIDX, &g->col)) != GAT_OK ||
        (st = gat_i_gatd_check_csr(R, T_GPTR, T_GIDX, g->rowptr, g->col, g->n, R->cols, 1)) !=
            GAT_OK ||
        (!R->part && (st = gat_i_graph_transpose(g)) != GAT_OK) ||
        (st = gat_i_gatd_read_features(R)) != GAT_OK || (st = gat_i_gatd_read_edges(R)) != GAT_OK ||
        (!R->part && (st = gat_i_gatd_read_many(R, md)) != GAT_OK) ||
        (st = gat_i_gatd_read_labels_split(R, opt)) != GAT_OK)
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
    const gat_status st = load_file(&R, opt);
    if (st == GAT_OK) ds->n_splits = R.n_splits; /* the stored split, or the rows of "splits" */
    return st;
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
    if (!s || !gat_i_gatd_inside(s, p->global_ids)) gat_free(p->global_ids);
    if (!s || !gat_i_gatd_inside(s, p->halo_owner)) gat_free(p->halo_owner);
    gat_dataset_destroy(&p->ds);
    memset(p, 0, sizeof *p);
}
