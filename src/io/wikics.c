/* The WikiCS layout (Mernyei and Cangea 2020, "Wiki-CS: a Wikipedia-based benchmark for graph
 * neural networks"; github.com/pmernyei/wiki-cs-dataset, dataset/data.json, which PyG's and
 * DGL's WikiCS classes read): one JSON object, described in wikics.h. */
#include "io/wikics.h"
#include "core/core.h"
#include "data/data_i.h"
#include "io/fileio.h"

#include <cJSON.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef GAT_REAL_DOUBLE
#define REAL_MAX DBL_MAX
#else
#define REAL_MAX FLT_MAX
#endif

static int ends_with(const char *s, size_t n, const char *tail)
{
    const size_t t = strlen(tail);
    return n >= t && memcmp(s + n - t, tail, t) == 0;
}

/* A regular file named *.json, not a GraphSAGE file, that starts with '{' after blanks. */
static int json_object_file(const char *p)
{
    struct stat sb;
    size_t n = strlen(p);
    if (!ends_with(p, n, ".json") || ends_with(p, n, "-G.json") ||
        ends_with(p, n, "-id_map.json") || ends_with(p, n, "-class_map.json"))
        return 0;
    if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    const int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1; /* the reader says why it cannot be read */
    char buf[256];
    const ssize_t got = read(fd, buf, sizeof buf);
    close(fd);
    for (ssize_t k = 0; k < got; k++)
        if (buf[k] != ' ' && buf[k] != '\t' && buf[k] != '\n' && buf[k] != '\r')
            return buf[k] == '{';
    return 0;
}

int gat_i_wikics_is(const char *path)
{
    /* on the stack: a probe that failed to allocate would send the load to another reader */
    char p[4096];
    struct stat sb;
    if (json_object_file(path)) return 1;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0;
    const int len = snprintf(p, sizeof p, "%s/data.json", path);
    return len > 0 && (size_t)len < sizeof p && json_object_file(p);
}

/* What the reader holds: the file's path (for messages), N, and the arrays read. */
typedef struct wikics {
    const char *path;
    const cJSON *root;
    gat_idx n, F, C;
} wikics;

static gat_status bad(const wikics *W, const char *fmt, const char *key, long i, long j)
{
    char where[96];
    if (j >= 0)
        snprintf(where, sizeof where, "\"%s\"[%ld][%ld]", key, i, j);
    else if (i >= 0)
        snprintf(where, sizeof where, "\"%s\"[%ld]", key, i);
    else
        snprintf(where, sizeof where, "\"%s\"", key);
    return gat_i_error(GAT_EFORMAT, "%s: %s: %s", W->path, where, fmt);
}

/* The array member key of the root: *out, or NULL when absent (GAT_OK); GAT_EFORMAT when it is
 * there but no array. */
static gat_status member(const wikics *W, const char *key, const cJSON **out)
{
    *out = cJSON_GetObjectItemCaseSensitive(W->root, key);
    if (*out && !cJSON_IsArray(*out)) return bad(W, "expected an array", key, -1, -1);
    return GAT_OK;
}

/* Whether a (key, or key[i] with i >= 0) is an array of n items of what: GAT_EFORMAT naming it
 * otherwise. */
static gat_status expect_len(const wikics *W, const cJSON *a, gat_idx n, const char *key, long i,
                             const char *what)
{
    char msg[128];
    if (!cJSON_IsArray(a)) {
        snprintf(msg, sizeof msg, "expected an array of %d %s", (int)n, what);
        return bad(W, msg, key, i, -1);
    }
    const int len = cJSON_GetArraySize(a);
    if (len == n) return GAT_OK;
    snprintf(msg, sizeof msg, "expected %d %s (one per node), got %d", (int)n, what, len);
    return bad(W, msg, key, i, -1);
}

/* An integer value in [0, max] into *v. */
static int whole(const cJSON *e, double max, gat_idx *v)
{
    if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0 ||
        e->valuedouble > max)
        return 0;
    *v = (gat_idx)e->valuedouble;
    return 1;
}

/* "labels": N, the classes, each below N (more classes than nodes is no dataset, and would
 * take memory the file does not hold); W->C = the largest + 1. */
static gat_status read_labels(wikics *W, const cJSON *a, gat_idx *labels)
{
    gat_idx k = 0, C = 0;
    const cJSON *e;
    char msg[96];
    snprintf(msg, sizeof msg, "expected a class, an integer in [0, %d) (below the node count)",
             (int)W->n);
    cJSON_ArrayForEach(e, a)
    {
        if (!whole(e, (double)W->n - 1, &labels[k])) return bad(W, msg, "labels", (long)k, -1);
        if (labels[k] >= C) C = labels[k] + 1;
        k++;
    }
    W->C = C;
    return GAT_OK;
}

/* "features": N rows of F numbers into x (N, F), F from row 0. */
static gat_status read_features(wikics *W, const cJSON *a, gat_real **x)
{
    const cJSON *row = cJSON_GetArrayItem(a, 0), *e;
    if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) < 1)
        return bad(W, "expected an array of feature values", "features", 0, -1);
    W->F = (gat_idx)cJSON_GetArraySize(row);
    if ((size_t)W->n > SIZE_MAX / sizeof **x / (size_t)W->F) return GAT_ENOMEM;
    if (!(*x = gat_malloc((size_t)W->n * (size_t)W->F, sizeof **x))) return GAT_ENOMEM;
    gat_idx i = 0;
    cJSON_ArrayForEach(row, a)
    {
        if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != W->F) {
            char msg[96];
            snprintf(msg, sizeof msg, "expected %d feature values, as row 0 has", (int)W->F);
            return bad(W, msg, "features", (long)i, -1);
        }
        gat_real *out = *x + (size_t)i * (size_t)W->F;
        gat_idx j = 0;
        cJSON_ArrayForEach(e, row)
        {
            if (!cJSON_IsNumber(e))
                return bad(W, "expected a number", "features", (long)i, (long)j);
            if (!(fabs(e->valuedouble) <= REAL_MAX))
                return gat_i_error(GAT_ENUMERIC,
                                   "%s: \"features\"[%ld][%ld]: %g is beyond the "
                                   "range of the library's floating-point type",
                                   W->path, (long)i, (long)j, e->valuedouble);
            out[j++] = (gat_real)e->valuedouble;
        }
        i++;
    }
    return GAT_OK;
}

/* "links": N lists of node numbers into the edge arrays *src -> *dst (*m edges). */
static gat_status read_links(const wikics *W, const cJSON *a, gat_idx **src, gat_idx **dst,
                             size_t *m)
{
    const cJSON *row, *e;
    size_t total = 0;
    gat_idx i = 0;
    cJSON_ArrayForEach(row, a)
    {
        if (!cJSON_IsArray(row))
            return bad(W, "expected an array of the node numbers it links to", "links", (long)i,
                       -1);
        total += (size_t)cJSON_GetArraySize(row);
        i++;
    }
    if (!(*src = gat_malloc(total ? total : 1, sizeof **src)) ||
        !(*dst = gat_malloc(total ? total : 1, sizeof **dst)))
        return GAT_ENOMEM;
    size_t k = 0;
    i = 0;
    cJSON_ArrayForEach(row, a)
    {
        gat_idx j = 0;
        cJSON_ArrayForEach(e, row)
        {
            if (!whole(e, (double)W->n - 1, &(*dst)[k])) {
                char msg[96];
                snprintf(msg, sizeof msg, "expected a node number in [0, %d)", (int)W->n);
                return bad(W, msg, "links", (long)i, (long)j);
            }
            (*src)[k++] = i;
            j++;
        }
        i++;
    }
    *m = k;
    return GAT_OK;
}

/* Mask values: true/false or 0/1. */
static int flag(const cJSON *e, int *v)
{
    if (cJSON_IsBool(e)) {
        *v = cJSON_IsTrue(e);
        return 1;
    }
    if (cJSON_IsNumber(e) && (e->valuedouble == 0 || e->valuedouble == 1)) {
        *v = e->valuedouble == 1;
        return 1;
    }
    return 0;
}

/* One mask (N values) given as key[i] (i >= 0) or key (i < 0): its nodes get part in split
 * (NULL: checked only); a node already in a part is an error naming both. */
static gat_status apply_mask(const wikics *W, const cJSON *mask, const char *key, long i,
                             uint8_t part, uint8_t *split)
{
    static const char *const name[4] = {"", "training", "validation", "test"};
    gat_status st = expect_len(W, mask, W->n, key, i, "booleans");
    if (st != GAT_OK) return st;
    const cJSON *e;
    gat_idx j = 0;
    cJSON_ArrayForEach(e, mask)
    {
        int v;
        if (!flag(e, &v))
            return i >= 0 ? bad(W, "expected true, false, 0 or 1", key, i, (long)j)
                          : bad(W, "expected true, false, 0 or 1", key, (long)j, -1);
        if (v && split) {
            if (split[j] != GAT_SPLIT_NONE) {
                char msg[160];
                snprintf(msg, sizeof msg, "node %d is also a %s node of the split", (int)j,
                         name[split[j]]);
                return i >= 0 ? bad(W, msg, key, i, (long)j) : bad(W, msg, key, (long)j, -1);
            }
            split[j] = part;
        }
        j++;
    }
    return GAT_OK;
}

/* The masks: S splits (*S = 0 without them); with use, split K's parts into split. */
static gat_status read_split(const wikics *W, gat_idx K, int use, uint8_t *split, gat_idx *S)
{
    static const char *const keys[3] = {"train_masks", "stopping_masks", "val_masks"};
    const cJSON *m[3], *test;
    gat_status st;
    *S = 0;
    for (int k = 0; k < 3; k++)
        if ((st = member(W, keys[k], &m[k])) != GAT_OK) return st;
    if ((st = member(W, "test_mask", &test)) != GAT_OK) return st;
    const int have = !!m[0] + !!m[1] + !!test;
    if (have == 0 && !m[2]) return GAT_OK;
    if (have < 3)
        return gat_i_error(GAT_EFORMAT,
                           "%s: a split needs \"train_masks\", \"stopping_masks\" "
                           "and \"test_mask\"; \"%s\" is missing",
                           W->path,
                           !m[0]   ? keys[0]
                           : !m[1] ? keys[1]
                                   : "test_mask");
    const int s = cJSON_GetArraySize(m[0]);
    if (s < 1) return bad(W, "expected at least one mask", keys[0], -1, -1);
    for (int k = 1; k < 3; k++)
        if (m[k] && cJSON_GetArraySize(m[k]) != s) {
            char msg[128];
            snprintf(msg, sizeof msg, "%d masks, but \"%s\" has %d", cJSON_GetArraySize(m[k]),
                     keys[0], s);
            return bad(W, msg, keys[k], -1, -1);
        }
    *S = (gat_idx)s;
    if (K >= *S) return GAT_OK; /* the caller names the index */
    /* every mask checked; the split's parts only from split K's and the test mask */
    static const uint8_t part[3] = {GAT_SPLIT_TRAIN, GAT_SPLIT_VAL, GAT_SPLIT_NONE};
    for (int k = 0; k < 3; k++) {
        const cJSON *e;
        long i = 0;
        if (!m[k]) continue;
        cJSON_ArrayForEach(e, m[k])
        {
            const int mine = use && i == K && part[k] != GAT_SPLIT_NONE;
            if ((st = apply_mask(W, e, keys[k], i, part[k], mine ? split : NULL)) != GAT_OK)
                return st;
            i++;
        }
    }
    if ((st = apply_mask(W, test, "test_mask", -1, GAT_SPLIT_TEST, use ? split : NULL)) != GAT_OK)
        return st;
    /* val_masks' nodes of split K: in no part, but not in another either */
    if (use && m[2]) {
        const cJSON *e;
        gat_idx j = 0;
        cJSON_ArrayForEach(e, cJSON_GetArrayItem(m[2], (int)K))
        {
            int v = 0;
            flag(e, &v);
            if (v && split[j] != GAT_SPLIT_NONE) {
                char msg[128];
                snprintf(msg, sizeof msg, "node %d is also a %s node of the split", (int)j,
                         split[j] == GAT_SPLIT_TRAIN ? "training"
                         : split[j] == GAT_SPLIT_VAL ? "validation (stopping)"
                                                     : "test");
                return bad(W, msg, keys[2], (long)K, (long)j);
            }
            j++;
        }
    }
    return GAT_OK;
}

/* The file a path names: path itself, or DIR/data.json. */
static char *file_of(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) return gat_i_path_join(path, "data.json");
    const size_t n = strlen(path);
    char *p = gat_malloc(n + 1, 1);
    if (p) memcpy(p, path, n + 1);
    return p;
}

gat_status gat_i_wikics_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt)
{
    cJSON *root = NULL;
    const cJSON *features, *labels_a, *links;
    gat_real *x = NULL;
    gat_idx *labels = NULL, *src = NULL, *dst = NULL, *map = NULL, S = 0;
    uint8_t *split = NULL, *splits = NULL;
    gat_csr xs = {0};
    gat_graph g = {0};
    size_t m = 0;
    char *file = file_of(path);
    wikics W = {.path = file};
    gat_status st = GAT_ENOMEM;

    if (!file) goto cleanup;
    if ((st = gat_i_json_read(file, &root)) != GAT_OK) goto cleanup;
    W.root = root;
    if (!cJSON_IsObject(root)) {
        st = gat_i_error(GAT_EFORMAT, "%s: expected a JSON object (WikiCS's data.json)", file);
        goto cleanup;
    }
    if ((st = member(&W, "features", &features)) != GAT_OK ||
        (st = member(&W, "labels", &labels_a)) != GAT_OK ||
        (st = member(&W, "links", &links)) != GAT_OK)
        goto cleanup;
    if (!features || !labels_a || !links) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: no \"%s\" array: a WikiCS file holds \"features\", "
                         "\"labels\" and \"links\"",
                         file,
                         !features   ? "features"
                         : !labels_a ? "labels"
                                     : "links");
        goto cleanup;
    }
    const int n = cJSON_GetArraySize(labels_a);
    if (n < 1 || n > INT32_MAX - 1) {
        st = bad(&W, "expected one class per node, at least one node", "labels", -1, -1);
        goto cleanup;
    }
    W.n = (gat_idx)n;
    if ((st = expect_len(&W, features, W.n, "features", -1, "feature rows")) != GAT_OK ||
        (st = expect_len(&W, links, W.n, "links", -1, "lists of links")) != GAT_OK)
        goto cleanup;
    if (!(labels = gat_malloc((size_t)W.n, sizeof *labels)) ||
        !(split = gat_calloc((size_t)W.n, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    const int use = !opt->ignore_split_file;
    if ((st = read_labels(&W, labels_a, labels)) != GAT_OK ||
        (st = read_features(&W, features, &x)) != GAT_OK ||
        (st = read_links(&W, links, &src, &dst, &m)) != GAT_OK ||
        (st = read_split(&W, 0, use, split, &S)) != GAT_OK)
        goto cleanup;
    /* every split (gat_dataset.splits) when there are several, each read as split 0 was
     * (gat_dataset_load switches to split K) */
    if (use && S > 1 && opt->split_index < S) {
        if (!(splits = gat_calloc((size_t)S * (W.n ? (size_t)W.n : 1), 1))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        for (gat_idx k = 0; k < S && st == GAT_OK; k++)
            st = read_split(&W, k, 1, splits + (size_t)k * (size_t)W.n, &S);
        if (st != GAT_OK) goto cleanup;
    }
    if (opt->split_index != 0 && opt->split_index >= S) {
        st = gat_i_error(GAT_EINVAL,
                         "gat_dataset_load: split index %d is out of range: %s holds %d split%s "
                         "(\"train_masks\")",
                         opt->split_index, file, S, S == 1 ? "" : "s");
        goto cleanup;
    }
    cJSON_Delete(root); /* the parse is the largest part: gone before the dataset is built */
    root = NULL;
    const unsigned flags = opt->symmetrize ? GAT_GRAPH_SYMMETRIZE : 0;
    if ((st = gat_csr_from_dense(&xs, W.n, W.F, x)) != GAT_OK) goto cleanup;
    gat_free(x);
    x = NULL;
    if (!(map = gat_malloc(GAT_GRAPH_MAX_EDGES(W.n, m, flags), sizeof *map))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_graph_from_edges_mapped(&g, W.n, m, src, dst, flags, map)) != GAT_OK)
        goto cleanup;
    gat_dataset_options o = *opt;
    o.split_index = 0;
    const gat_dataset_parts parts = {.graph = &g,
                                     .features = &xs,
                                     .labels = labels,
                                     .n_classes = W.C,
                                     .split = S > 0 && use ? split : NULL,
                                     .edge_input = map};
    if ((st = gat_i_dataset_from_parts(ds, &parts, &o, "gat_dataset_load", file, file)) != GAT_OK)
        goto cleanup;
    ds->n_splits = S;
    ds->splits = splits;
    splits = NULL;
cleanup:
    cJSON_Delete(root);
    gat_free(splits);
    gat_free(file);
    gat_free(x);
    gat_free(labels);
    gat_free(src);
    gat_free(dst);
    gat_free(map);
    gat_free(split);
    gat_csr_destroy(&xs);
    gat_graph_destroy(&g);
    return st;
}
