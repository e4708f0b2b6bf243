/* Loader of Cora-style datasets (datasets/README.md): NAME.content[.gz] -> sparse features, labels
 * and classes; NAME.cites -> the graph (edge b -> a per line "a b"); NAME.split, or a seeded random
 * split. Each file is read whole through zlib and cut into fields in place by one tokenizer. */
#include "gat/dataset.h"
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#ifdef GAT_REAL_DOUBLE
#define REAL_MAX DBL_MAX
#else
#define REAL_MAX FLT_MAX
#endif

/* ---- Growing arrays ---------------------------------------------------------------------- */

/* A capacity of at least need elements: cap doubled (from 64) until it fits. */
static size_t next_cap(size_t cap, size_t need)
{
    if (cap < 64) cap = 64;
    while (cap < need)
        cap *= 2;
    return cap;
}

/* ---- Whole-file text, split into lines and fields in place ------------------------------- */

typedef struct text {
    const char *path; /* borrowed, for messages */
    char *buf;        /* (len + 1) the file's bytes, NUL-terminated; fields are cut in place */
    size_t len;
    size_t pos;   /* offset of the first unread line */
    long line;    /* 1-based number of the current line */
    char *start;  /* first byte of the current line, for column numbers */
    char **field; /* (n_fields) fields of the current line, NUL-terminated */
    size_t n_fields, cap_fields;
} text;

static void text_free(text *t)
{
    gat_free(t->buf);
    gat_free(t->field);
    memset(t, 0, sizeof *t);
}

/* GAT_EIO naming path if gz met a read error or a truncated stream, else GAT_OK. */
static gat_status gz_status(gzFile gz, const char *path)
{
    int zerr;
    const char *msg = gzerror(gz, &zerr);
    if (zerr == Z_OK) return GAT_OK;
    return gat_i_error(GAT_EIO, "error reading %s: %s", path,
                       zerr == Z_ERRNO ? strerror(errno) : msg);
}

/* Reads the file at path whole into t (uninitialised; zeroed on failure). gzread inflates
 * gzip files and passes plain ones through, so .gz and plain text share this path. On GAT_EIO,
 * *errnum holds the errno of a failed open (0 for a read error). */
static gat_status text_load(text *t, const char *path, int *errnum)
{
    struct stat sb;
    gzFile gz;
    size_t cap;
    gat_status st = GAT_OK;

    memset(t, 0, sizeof *t);
    t->path = path;
    *errnum = 0;
    errno = 0;
    gz = gzopen(path, "rb");
    if (!gz) {
        *errnum = errno ? errno : ENOMEM;
        return gat_i_error(GAT_EIO, "cannot open %s: %s", path, strerror(*errnum));
    }
    gzbuffer(gz, 1u << 18);
    /* Start from the on-disk size (exact for plain text) and let inflation double it. */
    cap = stat(path, &sb) == 0 && sb.st_size > 0 ? (size_t)sb.st_size + 2 : 4096;
    if (!gzdirect(gz)) cap *= 4;
    t->buf = gat_malloc(cap, 1);
    if (!t->buf) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (;;) {
        size_t room;
        int got;
        if (cap - t->len < 2) {
            size_t c = next_cap(cap, cap + 1);
            char *p = gat_realloc(t->buf, c, 1);
            if (!p) {
                st = GAT_ENOMEM;
                goto cleanup;
            }
            t->buf = p;
            cap = c;
        }
        room = cap - t->len - 1; /* keep a byte for the terminating NUL */
        if (room > (size_t)INT_MAX / 2) room = (size_t)INT_MAX / 2;
        got = gzread(gz, t->buf + t->len, (unsigned)room);
        if (got <= 0) break;
        t->len += (size_t)got;
    }
    /* A truncated gzip stream ends like a complete one; only gzerror tells (Z_BUF_ERROR). */
    if ((st = gz_status(gz, path)) != GAT_OK) goto cleanup;
    t->buf[t->len] = '\0';
cleanup:
    gzclose(gz);
    if (st != GAT_OK) text_free(t);
    return st;
}

/* Lines in t (an upper bound on the records it holds: blank lines count too). */
static size_t text_count_lines(const text *t)
{
    size_t lines = 0;
    const char *p = t->buf, *end = t->buf + t->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        lines++;
        p = nl ? nl + 1 : end;
    }
    return lines;
}

/* Cuts line [s, end) (with *end == '\0') into fields separated by runs of spaces and tabs. */
static gat_status split_fields(text *t, char *s, char *end)
{
    char *p = s;
    t->n_fields = 0;
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p == end) return GAT_OK;
        if (t->n_fields == t->cap_fields) {
            size_t c = next_cap(t->cap_fields, t->n_fields + 1);
            char **f = gat_realloc(t->field, c, sizeof *f);
            if (!f) return GAT_ENOMEM;
            t->field = f;
            t->cap_fields = c;
        }
        t->field[t->n_fields++] = p;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        if (p == end) return GAT_OK;
        *p++ = '\0';
    }
}

/* Advances to the next non-blank line and splits it into t->field; t->n_fields == 0 at the end
 * of the file. A trailing '\r' is dropped. */
static gat_status text_next(text *t)
{
    t->n_fields = 0;
    while (t->n_fields == 0 && t->pos < t->len) {
        char *s = t->buf + t->pos;
        char *nl = memchr(s, '\n', t->len - t->pos);
        char *end = nl ? nl : t->buf + t->len;
        gat_status st;
        t->pos = (size_t)(end - t->buf) + (nl != NULL);
        t->line++;
        t->start = s;
        if (end > s && end[-1] == '\r') end--;
        *end = '\0';
        if ((st = split_fields(t, s, end)) != GAT_OK) return st;
    }
    return GAT_OK;
}

/* 1-based byte column of field k of the current line. */
static long text_column(const text *t, size_t k)
{
    return (long)(t->field[k] - t->start) + 1;
}

/* ---- String -> index hash table ---------------------------------------------------------- */

/* Open addressing with linear probing. The keys live in a caller's array of names; a slot holds
 * an index into it, or -1. Sized once for the most keys it will hold, at most half full. */
typedef struct strmap {
    gat_idx *slot; /* (mask + 1) */
    size_t mask;
} strmap;

static gat_status strmap_init(strmap *m, size_t max_keys)
{
    size_t cap = 16;
    while (cap < 2 * max_keys)
        cap *= 2;
    m->mask = 0;
    m->slot = gat_malloc(cap, sizeof *m->slot);
    if (!m->slot) return GAT_ENOMEM;
    for (size_t k = 0; k < cap; k++)
        m->slot[k] = -1;
    m->mask = cap - 1;
    return GAT_OK;
}

static void strmap_free(strmap *m)
{
    gat_free(m->slot);
    memset(m, 0, sizeof *m);
}

/* FNV-1a, 64 bits. */
static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* The slot of key: it holds key's index into names, or -1 where key would be stored. */
static gat_idx *strmap_slot(const strmap *m, char *const *names, const char *key)
{
    size_t k = (size_t)hash_str(key) & m->mask;
    while (m->slot[k] >= 0 && strcmp(names[m->slot[k]], key) != 0)
        k = (k + 1) & m->mask;
    return &m->slot[k];
}

/* ---- Loader state ------------------------------------------------------------------------ */

typedef struct loader {
    gat_dataset *ds;    /* being filled; destroy-safe at every step */
    strmap ids;         /* node id -> node index; keys are ds->node_ids */
    long *line_of;      /* (n) line where each node was met in the file being read */
    char *content_path; /* the .content or .content.gz file that was read */
} loader;

/* a followed by b, allocated. */
static char *concat(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    char *s = gat_malloc(alen + blen + 1, 1);
    if (!s) return NULL;
    memcpy(s, a, alen);
    memcpy(s + alen, b, blen + 1);
    return s;
}

/* The prefix of the dataset files: D/NAME for a directory D (NAME its last component, trailing
 * slashes ignored), else path itself. */
static gat_status dataset_base(const char *path, char **base)
{
    struct stat sb;
    size_t len = strlen(path), name;
    *base = NULL;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        *base = concat(path, len, "");
        return *base ? GAT_OK : GAT_ENOMEM;
    }
    while (len > 1 && path[len - 1] == '/')
        len--;
    for (name = len; name > 0 && path[name - 1] != '/'; name--)
        continue;
    if (name == len || (len - name == 1 && path[name] == '.') ||
        (len - name == 2 && path[name] == '.' && path[name + 1] == '.'))
        return gat_i_error(GAT_EINVAL,
                           "gat_dataset_load: cannot take a dataset name from the directory '%s'; "
                           "name it explicitly",
                           path);
    *base = gat_malloc(2 * len - name + 2, 1);
    if (!*base) return GAT_ENOMEM;
    memcpy(*base, path, len);
    (*base)[len] = '/';
    memcpy(*base + len + 1, path + name, len - name);
    (*base)[2 * len - name + 1] = '\0';
    return GAT_OK;
}

/* Index of the node named by field k of t's current line; an unknown id is a format error. */
static gat_status lookup_node(const loader *L, const text *t, size_t k, gat_idx *i)
{
    *i = *strmap_slot(&L->ids, L->ds->node_ids, t->field[k]);
    if (*i < 0)
        return gat_i_error(GAT_EFORMAT, "%s:%ld:%ld: unknown node id '%s' (not in %s)", t->path,
                           t->line, text_column(t, k), t->field[k], L->content_path);
    return GAT_OK;
}

/* ---- NAME.content ------------------------------------------------------------------------ */

/* Opens base.content, or base.content.gz when the former does not exist. */
static gat_status content_open(loader *L, text *t, const char *base)
{
    size_t len = strlen(base);
    char *plain = concat(base, len, ".content");
    int errnum;
    gat_status st;
    if (!plain) return GAT_ENOMEM;
    st = text_load(t, plain, &errnum);
    if (st == GAT_OK || errnum != ENOENT) {
        L->content_path = plain;
        return st;
    }
    L->content_path = concat(plain, len + 8, ".gz");
    if (!L->content_path) {
        st = GAT_ENOMEM;
    } else {
        st = text_load(t, L->content_path, &errnum);
        if (st != GAT_OK && errnum == ENOENT)
            gat_i_error(GAT_EIO, "cannot open %s or %s: %s", plain, L->content_path,
                        strerror(ENOENT));
    }
    gat_free(plain);
    return st;
}

/* Field k (0-based) of t's current line as a feature value; messages number fields from 1 and
 * features from 0, as columns of x. The tokens "0" and "1" (all of a bag-of-words file) skip
 * strtod. */
static gat_status parse_feature(const text *t, size_t k, gat_real *v)
{
    const char *s = t->field[k];
    char *end;
    double d;
    if (s[0] == '0' && s[1] == '\0') {
        *v = 0;
        return GAT_OK;
    }
    if (s[0] == '1' && s[1] == '\0') {
        *v = 1;
        return GAT_OK;
    }
    d = strtod(s, &end);
    if (end == s || *end != '\0' || isspace((unsigned char)s[0]))
        return gat_i_error(
            GAT_EFORMAT,
            "%s:%ld:%ld: field %zu (feature column %zu) of node '%s' is not a number: '%s'",
            t->path, t->line, text_column(t, k), k + 1, k - 1, t->field[0], s);
    if (!isfinite(d) || fabs(d) > REAL_MAX)
        return gat_i_error(GAT_ENUMERIC,
                           "%s:%ld:%ld: field %zu (feature column %zu) of node '%s' is %s: '%s'",
                           t->path, t->line, text_column(t, k), k + 1, k - 1, t->field[0],
                           isfinite(d) ? "out of range for gat_real" : "not finite", s);
    *v = (gat_real)d;
    return GAT_OK;
}

/* Appends the non-zero features of t's current line to x as row x->rows (then counted). */
static gat_status content_row(gat_csr *x, size_t *cap, const text *t)
{
    size_t nnz = (size_t)x->rowptr[x->rows], F = (size_t)x->cols;
    if (nnz + F > (size_t)INT32_MAX)
        return gat_i_error(GAT_ENOMEM, "%s:%ld: more than %d non-zero features", t->path, t->line,
                           INT32_MAX);
    if (nnz + F > *cap || !x->col) { /* allocated even when F == 0 */
        size_t c = next_cap(*cap, nnz + F);
        gat_idx *col;
        gat_real *val;
        if (!(col = gat_realloc(x->col, c, sizeof *col))) return GAT_ENOMEM;
        x->col = col;
        if (!(val = gat_realloc(x->val, c, sizeof *val))) return GAT_ENOMEM;
        x->val = val;
        *cap = c;
    }
    for (size_t f = 0; f < F; f++) {
        gat_real v = 0;
        gat_status st = parse_feature(t, f + 1, &v);
        if (st != GAT_OK) return st;
        if (v == 0) continue;
        x->col[nnz] = (gat_idx)f;
        x->val[nnz++] = v;
    }
    x->rowptr[++x->rows] = (gat_idx)nnz;
    return GAT_OK;
}

/* Checks the field count of t's current line; the first line fixes the feature count F. */
static gat_status content_shape(gat_csr *x, const text *t, int first)
{
    if (first) {
        if (t->n_fields < 2)
            return gat_i_error(GAT_EFORMAT,
                               "%s:%ld: expected at least 2 fields (id, features, label), found 1",
                               t->path, t->line);
        if (t->n_fields - 2 > (size_t)INT32_MAX)
            return gat_i_error(GAT_EFORMAT, "%s:%ld: %zu features exceed the index type", t->path,
                               t->line, t->n_fields - 2);
        x->cols = (gat_idx)(t->n_fields - 2);
    } else if (t->n_fields != (size_t)x->cols + 2) {
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld: expected %zu fields (id, %d features, label), found %zu",
                           t->path, t->line, (size_t)x->cols + 2, x->cols, t->n_fields);
    }
    return GAT_OK;
}

/* Registers the id in field 0 of t's current line as node ds->n (then counted). */
static gat_status content_id(loader *L, const text *t)
{
    gat_dataset *ds = L->ds;
    gat_idx *slot = strmap_slot(&L->ids, ds->node_ids, t->field[0]);
    if (*slot >= 0)
        return gat_i_error(GAT_EFORMAT, "%s:%ld: duplicate node id '%s' (first on line %ld)",
                           t->path, t->line, t->field[0], L->line_of[*slot]);
    if (!(ds->node_ids[ds->n] = gat_strdup(t->field[0]))) return GAT_ENOMEM;
    L->line_of[ds->n] = t->line;
    *slot = ds->n++;
    return GAT_OK;
}

/* First-seen class number of label, numbering it C (then counted) if new. names: (C) distinct
 * labels so far, the keys of classes. */
static gat_idx content_label(strmap *classes, char **names, gat_idx *C, char *label)
{
    gat_idx *slot = strmap_slot(classes, names, label);
    if (*slot < 0) {
        names[*C] = label;
        *slot = (*C)++;
    }
    return *slot;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Numbers the classes by the byte order of their names: ds->labels holds first-seen class
 * numbers on entry (names (C) in first-seen order, found through map) and sorted ones on exit;
 * ds->class_names receives copies of the sorted names. */
static gat_status number_classes(gat_dataset *ds, char **names, gat_idx C, const strmap *map)
{
    char **sorted = gat_malloc((size_t)C, sizeof *sorted);
    gat_idx *rank = gat_malloc((size_t)C, sizeof *rank);
    gat_status st = GAT_ENOMEM;
    if (!sorted || !rank) goto cleanup;
    memcpy(sorted, names, (size_t)C * sizeof *sorted);
    qsort(sorted, (size_t)C, sizeof *sorted, cmp_str);
    for (gat_idx k = 0; k < C; k++)
        rank[*strmap_slot(map, names, sorted[k])] = k;
    for (gat_idx i = 0; i < ds->n; i++)
        ds->labels[i] = rank[ds->labels[i]];
    if (!(ds->class_names = gat_calloc((size_t)C, sizeof *ds->class_names))) goto cleanup;
    for (; ds->n_classes < C; ds->n_classes++)
        if (!(ds->class_names[ds->n_classes] = gat_strdup(sorted[ds->n_classes]))) goto cleanup;
    st = GAT_OK;
cleanup:
    gat_free(sorted);
    gat_free(rank);
    return st;
}

/* Reads the nodes: ids, sparse features into ds->x, labels and classes. */
static gat_status read_content(loader *L, const char *base)
{
    gat_dataset *ds = L->ds;
    text t;
    strmap classes = {0};
    char **names = NULL; /* (max_nodes) distinct labels in first-seen order, into t.buf */
    gat_idx C = 0;
    size_t max_nodes, cap = 0;
    gat_status st;

    if ((st = content_open(L, &t, base)) != GAT_OK) return st;
    max_nodes = text_count_lines(&t);
    if (max_nodes > (size_t)INT32_MAX - 1) {
        st =
            gat_i_error(GAT_EFORMAT, "%s: %zu lines exceed the node index type", t.path, max_nodes);
        goto cleanup;
    }
    ds->node_ids = gat_calloc(max_nodes, sizeof *ds->node_ids);
    ds->labels = gat_malloc(max_nodes, sizeof *ds->labels);
    ds->x.rowptr = gat_calloc(max_nodes + 1, sizeof *ds->x.rowptr);
    L->line_of = gat_malloc(max_nodes, sizeof *L->line_of);
    names = gat_malloc(max_nodes, sizeof *names);
    if (!ds->node_ids || !ds->labels || !ds->x.rowptr || !L->line_of || !names ||
        strmap_init(&L->ids, max_nodes) != GAT_OK || strmap_init(&classes, max_nodes) != GAT_OK) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    while ((st = text_next(&t)) == GAT_OK && t.n_fields > 0) {
        if ((st = content_shape(&ds->x, &t, ds->n == 0)) != GAT_OK ||
            (st = content_id(L, &t)) != GAT_OK || (st = content_row(&ds->x, &cap, &t)) != GAT_OK)
            goto cleanup;
        ds->labels[ds->n - 1] = content_label(&classes, names, &C, t.field[t.n_fields - 1]);
    }
    if (st != GAT_OK) goto cleanup;
    if (ds->n == 0) {
        st = gat_i_error(GAT_EFORMAT, "%s: empty file: expected one line per node", t.path);
        goto cleanup;
    }
    ds->n_features = ds->x.cols;
    st = number_classes(ds, names, C, &classes);
cleanup:
    text_free(&t);
    strmap_free(&classes);
    gat_free(names);
    return st;
}

/* ---- NAME.cites -------------------------------------------------------------------------- */

/* Reads the edges (line "a b" is the edge b -> a) and builds ds->graph. */
static gat_status read_cites(loader *L, const char *path, int symmetrize)
{
    gat_dataset *ds = L->ds;
    text t;
    gat_idx *src = NULL, *dst = NULL;
    size_t m = 0, max_edges;
    int errnum;
    gat_status st;

    if ((st = text_load(&t, path, &errnum)) != GAT_OK) return st;
    max_edges = text_count_lines(&t);
    src = gat_malloc(max_edges, sizeof *src);
    dst = gat_malloc(max_edges, sizeof *dst);
    if (!src || !dst) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    while ((st = text_next(&t)) == GAT_OK && t.n_fields > 0) {
        if (t.n_fields != 2) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: expected 2 fields (cited id, citing id), found %zu", path,
                             t.line, t.n_fields);
            goto cleanup;
        }
        if ((st = lookup_node(L, &t, 1, &src[m])) != GAT_OK ||
            (st = lookup_node(L, &t, 0, &dst[m])) != GAT_OK)
            goto cleanup;
        m++;
    }
    if (st != GAT_OK) goto cleanup;
    st =
        gat_graph_from_edges(&ds->graph, ds->n, m, src, dst, symmetrize ? GAT_GRAPH_SYMMETRIZE : 0);
cleanup:
    text_free(&t);
    gat_free(src);
    gat_free(dst);
    return st;
}

/* ---- NAME.split or a random split -------------------------------------------------------- */

/* GAT_SPLIT_* value of a split word, or GAT_SPLIT_NONE if it is none of them. */
static uint8_t split_value(const char *word)
{
    if (strcmp(word, "train") == 0) return GAT_SPLIT_TRAIN;
    if (strcmp(word, "val") == 0) return GAT_SPLIT_VAL;
    if (strcmp(word, "test") == 0) return GAT_SPLIT_TEST;
    return GAT_SPLIT_NONE;
}

/* Reads ds->split from the file at path; *absent = 1 (and GAT_OK) if it does not exist. */
static gat_status read_split(loader *L, const char *path, int *absent)
{
    gat_dataset *ds = L->ds;
    text t;
    int errnum;
    gat_status st = text_load(&t, path, &errnum);

    *absent = st != GAT_OK && errnum == ENOENT;
    if (*absent) gat_i_clear_error();
    if (st != GAT_OK) return *absent ? GAT_OK : st;
    while ((st = text_next(&t)) == GAT_OK && t.n_fields > 0) {
        gat_idx i;
        uint8_t v;
        if (t.n_fields != 2) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld: expected 2 fields (id, train|val|test), found %zu", path,
                             t.line, t.n_fields);
            break;
        }
        if ((st = lookup_node(L, &t, 0, &i)) != GAT_OK) break;
        if ((v = split_value(t.field[1])) == GAT_SPLIT_NONE) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s:%ld:%ld: unknown split '%s' (expected train, val or test)", path,
                             t.line, text_column(&t, 1), t.field[1]);
            break;
        }
        if (ds->split[i] != GAT_SPLIT_NONE) {
            st = gat_i_error(GAT_EFORMAT, "%s:%ld: node '%s' is listed twice (first on line %ld)",
                             path, t.line, t.field[0], L->line_of[i]);
            break;
        }
        ds->split[i] = v;
        L->line_of[i] = t.line;
    }
    text_free(&t);
    return st;
}

/* Checks that the nodes suffice for o's random split. count: (C) nodes per class. */
static gat_status check_split_sizes(const gat_dataset *ds, const gat_idx *count,
                                    const gat_dataset_options *o, const char *content_path)
{
    int64_t rest = ds->n;
    for (gat_idx c = 0; c < ds->n_classes; c++) {
        if (count[c] < o->train_per_class)
            return gat_i_error(GAT_EFORMAT,
                               "random split of %s: class '%s' has %d nodes, fewer than the %d "
                               "training nodes per class requested",
                               content_path, ds->class_names[c], count[c], o->train_per_class);
        rest -= o->train_per_class;
    }
    if (rest < (int64_t)o->n_val + o->n_test)
        return gat_i_error(
            GAT_EFORMAT,
            "random split of %s: %lld nodes remain after the %d training nodes of each of %d "
            "classes, fewer than the %d validation + %d test nodes requested",
            content_path, (long long)rest, o->train_per_class, ds->n_classes, o->n_val, o->n_test);
    return GAT_OK;
}

/* Fills ds->split at random: after a seeded Fisher-Yates shuffle of the nodes, the first
 * train_per_class nodes of each class train, then the next n_val other nodes validate and the
 * next n_test test. */
static gat_status random_split(gat_dataset *ds, const gat_dataset_options *o,
                               const char *content_path)
{
    gat_idx *perm = gat_malloc((size_t)ds->n, sizeof *perm);
    gat_idx *count = gat_calloc((size_t)ds->n_classes, sizeof *count);
    gat_idx val = 0, test = 0;
    gat_rng rng;
    gat_status st = GAT_ENOMEM;

    if (!perm || !count) goto cleanup;
    for (gat_idx i = 0; i < ds->n; i++)
        count[ds->labels[i]]++;
    if ((st = check_split_sizes(ds, count, o, content_path)) != GAT_OK) goto cleanup;
    gat_rng_seed(&rng, o->seed);
    for (gat_idx i = 0; i < ds->n; i++)
        perm[i] = i;
    for (gat_idx i = ds->n - 1; i > 0; i--) {
        gat_idx j = (gat_idx)gat_rng_below(&rng, (uint64_t)i + 1), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    memset(count, 0, (size_t)ds->n_classes * sizeof *count);
    for (gat_idx k = 0; k < ds->n; k++) {
        gat_idx i = perm[k];
        if (count[ds->labels[i]] < o->train_per_class) {
            count[ds->labels[i]]++;
            ds->split[i] = GAT_SPLIT_TRAIN;
        }
    }
    for (gat_idx k = 0; k < ds->n; k++) {
        gat_idx i = perm[k];
        if (ds->split[i] != GAT_SPLIT_NONE) continue;
        if (val < o->n_val) {
            ds->split[i] = GAT_SPLIT_VAL;
            val++;
        } else if (test < o->n_test) {
            ds->split[i] = GAT_SPLIT_TEST;
            test++;
        }
    }
cleanup:
    gat_free(perm);
    gat_free(count);
    return st;
}

static void count_split(gat_dataset *ds)
{
    ds->n_train = ds->n_val = ds->n_test = 0;
    for (gat_idx i = 0; i < ds->n; i++) {
        ds->n_train += ds->split[i] == GAT_SPLIT_TRAIN;
        ds->n_val += ds->split[i] == GAT_SPLIT_VAL;
        ds->n_test += ds->split[i] == GAT_SPLIT_TEST;
    }
}

/* ---- Public API -------------------------------------------------------------------------- */

void gat_dataset_options_default(gat_dataset_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->normalize = 1;
    o->symmetrize = 1;
    o->train_per_class = 20;
    o->n_val = 500;
    o->n_test = 1000;
    o->seed = 1;
    o->ignore_split_file = 0;
}

gat_status gat_dataset_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt)
{
    gat_dataset_options defaults;
    loader L = {0};
    char *base = NULL, *cites = NULL, *split = NULL;
    int absent = 1;
    gat_status st;

    gat_i_clear_error();
    if (!ds) return gat_i_error(GAT_EINVAL, "gat_dataset_load: NULL dataset");
    memset(ds, 0, sizeof *ds);
    if (!path || !*path) return gat_i_error(GAT_EINVAL, "gat_dataset_load: empty or NULL path");
    if (!opt) {
        gat_dataset_options_default(&defaults);
        opt = &defaults;
    }
    if (opt->train_per_class < 0 || opt->n_val < 0 || opt->n_test < 0)
        return gat_i_error(
            GAT_EINVAL,
            "gat_dataset_load: negative split size (train_per_class %d, n_val %d, n_test %d)",
            opt->train_per_class, opt->n_val, opt->n_test);
    L.ds = ds;
    if ((st = dataset_base(path, &base)) != GAT_OK || (st = read_content(&L, base)) != GAT_OK)
        goto cleanup;
    if (!(cites = concat(base, strlen(base), ".cites")) ||
        !(split = concat(base, strlen(base), ".split")) ||
        !(ds->split = gat_calloc((size_t)ds->n, sizeof *ds->split))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = read_cites(&L, cites, opt->symmetrize)) != GAT_OK) goto cleanup;
    if (!opt->ignore_split_file && (st = read_split(&L, split, &absent)) != GAT_OK) goto cleanup;
    if (absent && (st = random_split(ds, opt, L.content_path)) != GAT_OK) goto cleanup;
    count_split(ds);
    if (opt->normalize) gat_csr_normalize_rows(&ds->x);
cleanup:
    strmap_free(&L.ids);
    gat_free(L.line_of);
    gat_free(L.content_path);
    gat_free(base);
    gat_free(cites);
    gat_free(split);
    if (st != GAT_OK) gat_dataset_destroy(ds);
    return st;
}

void gat_dataset_destroy(gat_dataset *ds)
{
    if (!ds) return;
    gat_csr_destroy(&ds->x);
    gat_graph_destroy(&ds->graph);
    if (ds->node_ids)
        for (gat_idx i = 0; i < ds->n; i++)
            gat_free(ds->node_ids[i]);
    if (ds->class_names)
        for (gat_idx c = 0; c < ds->n_classes; c++)
            gat_free(ds->class_names[c]);
    gat_free(ds->node_ids);
    gat_free(ds->class_names);
    gat_free(ds->labels);
    gat_free(ds->split);
    memset(ds, 0, sizeof *ds);
}
