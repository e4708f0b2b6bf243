/* The GraphSAGE layout of node datasets (Hamilton et al. 2017; PPI, Reddit): PREFIX-G.json (a
 * networkx node_link_data graph with "val"/"test" flags per node), PREFIX-id_map.json (node id ->
 * feature row), PREFIX-feats.npy (n, F), PREFIX-class_map.json (node id -> class or multi-hot
 * list), and optionally PREFIX-graph_id.npy (n) when the nodes form many graphs (PPI's 24). */
#include "io/graphsage.h"
#include "core/core.h"
#include "core/strmap.h"
#include "data/data_i.h"
#include "io/fileio.h"
#include "io/npz.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The reader's state: the files' paths, the node rows and what is read into them. */
typedef struct sage {
    char *path[5]; /* G.json, id_map.json, feats.npy, class_map.json, graph_id.npy */
    char **ids;    /* (n) node id of each feature row */
    gat_i_strmap map;
    gat_idx n, F, L, C; /* nodes, features, labels per node (multi-hot) or classes */
    gat_real *x;        /* (n, F) */
    uint8_t *split, *multi;
    gat_idx *labels, *graph_ptr, G;
    gat_idx *src, *dst;
    size_t m;
} sage;

enum { P_G, P_IDS, P_FEATS, P_CLASS, P_GRAPH };
static const char *const suffix[5] = {"-G.json", "-id_map.json", "-feats.npy",
                                      "-class_map.json", "-graph_id.npy"};

static int is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* PREFIX for path: path itself when path-G.json exists, else DIR/NAME for a directory DIR whose
 * last component is NAME (gat_i_graphsage_is said one of them holds). */
static char *prefix_of(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    char *p = gat_malloc(2 * n - b + 2 + strlen(suffix[P_G]), 1);
    if (!p) return NULL;
    snprintf(p, 2 * n - b + 2 + strlen(suffix[P_G]), "%.*s%s", (int)n, path, suffix[P_G]);
    if (is_file(p))
        p[n] = '\0';
    else
        snprintf(p, 2 * n - b + 2, "%.*s/%.*s", (int)n, path, (int)(n - b), path + b);
    return p;
}

static char *with_suffix(const char *prefix, const char *s)
{
    const size_t a = strlen(prefix), b = strlen(s);
    char *p = gat_malloc(a + b + 1, 1);
    if (p) memcpy(p, prefix, a), memcpy(p + a, s, b + 1);
    return p;
}

int gat_i_graphsage_is(const char *path)
{
    /* on the stack: a probe that failed to allocate would send the load to another reader */
    char p[4096];
    struct stat sb;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (n + strlen(suffix[P_G]) >= sizeof p) return 0;
    snprintf(p, sizeof p, "%.*s%s", (int)n, path, suffix[P_G]);
    if (is_file(p)) return 1;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    if (2 * n - b + 1 + strlen(suffix[P_G]) >= sizeof p) return 0;
    snprintf(p, sizeof p, "%.*s/%.*s%s", (int)n, path, (int)(n - b), path + b, suffix[P_G]);
    return is_file(p);
}

/* A node id as its id_map key: a string as it is, an integer as its decimal; 0 otherwise. */
static int key_of(const cJSON *v, char *buf, size_t size, const char **key)
{
    if (cJSON_IsString(v)) {
        *key = v->valuestring;
        return 1;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
        fabs(v->valuedouble) > 9007199254740992.0)
        return 0;
    snprintf(buf, size, "%.0f", v->valuedouble);
    *key = buf;
    return 1;
}

/* The row of node id v (a "nodes" or "links" entry's value), or -1 with GAT_EFORMAT. */
static gat_idx row_of(sage *S, const cJSON *v, const char *where, gat_status *st)
{
    char buf[32];
    const char *key;
    if (!key_of(v, buf, sizeof buf, &key)) {
        *st = gat_i_error(GAT_EFORMAT, "%s: %s: expected a node id (a string or an integer)",
                          S->path[P_G], where);
        return -1;
    }
    const gat_idx r = *gat_i_strmap_slot(&S->map, S->ids, key);
    if (r < 0)
        *st = gat_i_error(GAT_EFORMAT, "%s: %s: node id \"%s\" is not in %s", S->path[P_G], where,
                          key, S->path[P_IDS]);
    return r;
}

/* id_map.json: an object of n node ids -> distinct rows 0..n-1. */
static gat_status read_ids(sage *S)
{
    cJSON *root = NULL;
    const cJSON *e;
    gat_status st = gat_i_json_read(S->path[P_IDS], &root);
    if (st != GAT_OK) return st;
    if (!cJSON_IsObject(root) || cJSON_GetArraySize(root) < 1) {
        st = gat_i_error(GAT_EFORMAT, "%s: expected a JSON object of node id -> feature row",
                         S->path[P_IDS]);
        goto cleanup;
    }
    S->n = cJSON_GetArraySize(root);
    if (!(S->ids = gat_calloc((size_t)S->n, sizeof *S->ids)) ||
        gat_i_strmap_init(&S->map, (size_t)S->n) != GAT_OK) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    cJSON_ArrayForEach(e, root)
    {
        const double v = cJSON_IsNumber(e) ? e->valuedouble : -1;
        const gat_idx r = v == floor(v) && v >= 0 && v < S->n ? (gat_idx)v : -1;
        if (r < 0 || S->ids[r]) {
            st = gat_i_error(GAT_EFORMAT,
                             r < 0 ? "%s: key \"%s\": expected a feature row in [0, %d)"
                                   : "%s: key \"%s\": row %d is already another node's",
                             S->path[P_IDS], e->string, r < 0 ? S->n : r);
            goto cleanup;
        }
        gat_idx *slot = gat_i_strmap_slot(&S->map, S->ids, e->string);
        if (*slot >= 0) {
            st = gat_i_error(GAT_EFORMAT, "%s: key \"%s\" appears twice", S->path[P_IDS],
                             e->string);
            goto cleanup;
        }
        if (!(S->ids[r] = gat_strdup(e->string))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        *slot = r;
    }
cleanup:
    cJSON_Delete(root);
    return st;
}

/* feats.npy (n, F) finite; graph_id.npy (n) non-decreasing without gaps, when present. */
static gat_status read_arrays(sage *S)
{
    gat_i_npy a;
    char shape[64];
    gat_status st = gat_i_npy_load(S->path[P_FEATS], &a);
    if (st != GAT_OK) return st;
    if (a.ndim != 2 || a.shape[0] != (size_t)S->n || a.shape[1] < 1 ||
        a.shape[1] > (size_t)INT32_MAX) {
        st = gat_i_error(GAT_EFORMAT, "%s: shape %s, expected (%d, F): one row per node of %s",
                         S->path[P_FEATS], gat_i_npy_shape_str(&a, shape, sizeof shape), S->n,
                         S->path[P_IDS]);
        goto cleanup;
    }
    S->F = (gat_idx)a.shape[1];
    if (!(S->x = gat_malloc(a.count, sizeof *S->x))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k < a.count; k++)
        if (!isfinite(S->x[k] = (gat_real)gat_i_npy_real(&a, k))) {
            st = gat_i_error(GAT_ENUMERIC, "%s: row %zu, column %zu is %g", S->path[P_FEATS],
                             k / (size_t)S->F, k % (size_t)S->F, (double)S->x[k]);
            goto cleanup;
        }
    gat_i_npy_free(&a);
    if (!is_file(S->path[P_GRAPH])) return GAT_OK;
    if ((st = gat_i_npy_load(S->path[P_GRAPH], &a)) != GAT_OK) return st;
    if (a.ndim != 1 || a.shape[0] != (size_t)S->n || a.type == GAT_I_NPY_FLOAT) {
        st = gat_i_error(GAT_EFORMAT, "%s: shape %s of %s, expected (%d) integers",
                         S->path[P_GRAPH], gat_i_npy_shape_str(&a, shape, sizeof shape), a.descr,
                         S->n);
        goto cleanup;
    }
    if (!(S->graph_ptr = gat_malloc((size_t)S->n + 1, sizeof *S->graph_ptr))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    S->graph_ptr[0] = 0;
    for (gat_idx i = 1; i < S->n; i++) {
        const int64_t d = gat_i_npy_int(&a, (size_t)i) - gat_i_npy_int(&a, (size_t)i - 1);
        if (d != 0 && d != 1) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: entry %d is %lld after %lld: graph ids must be sorted by "
                             "feature row and leave no gap",
                             S->path[P_GRAPH], i, (long long)gat_i_npy_int(&a, (size_t)i),
                             (long long)gat_i_npy_int(&a, (size_t)i - 1));
            goto cleanup;
        }
        if (d) S->graph_ptr[++S->G] = i;
    }
    S->graph_ptr[++S->G] = S->n;
cleanup:
    gat_i_npy_free(&a);
    return st;
}

/* The graph of row i (graph_ptr is sorted), 0 without graph ids. */
static gat_idx graph_of(const sage *S, gat_idx i)
{
    gat_idx lo = 0, hi = S->G;
    while (hi - lo > 1) {
        const gat_idx mid = lo + (hi - lo) / 2;
        if (S->graph_ptr[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* G.json: every node once with its val/test flags (the split), links between nodes of one graph. */
static gat_status read_graph(sage *S)
{
    static const char *const flag[2] = {"val", "test"};
    cJSON *root = NULL;
    const cJSON *e;
    char where[64];
    gat_status st = gat_i_json_read(S->path[P_G], &root);
    if (st != GAT_OK) return st;
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    /* "links", or "edges" as networkx 3.4's node_link_data(G, edges="edges") writes (its
     * default from networkx 3.6) */
    const char *lk = cJSON_HasObjectItem(root, "links") ? "links" : "edges";
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(root, lk);
    if (!cJSON_IsArray(nodes) || !cJSON_IsArray(links)) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: expected an object with arrays \"nodes\" and \"links\" "
                         "(or \"edges\"; networkx node_link_data)",
                         S->path[P_G]);
        goto cleanup;
    }
    if (cJSON_GetArraySize(nodes) != S->n) {
        st = gat_i_error(GAT_EFORMAT, "%s: \"nodes\" holds %d nodes but %s maps %d",
                         S->path[P_G], cJSON_GetArraySize(nodes), S->path[P_IDS], S->n);
        goto cleanup;
    }
    S->m = (size_t)cJSON_GetArraySize(links);
    if (!(S->split = gat_calloc((size_t)S->n, 1)) ||
        !(S->src = gat_malloc(S->m ? S->m : 1, sizeof *S->src)) ||
        !(S->dst = gat_malloc(S->m ? S->m : 1, sizeof *S->dst))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    int k = 0;
    cJSON_ArrayForEach(e, nodes)
    {
        snprintf(where, sizeof where, "nodes[%d].id", k++);
        const gat_idx r = row_of(S, cJSON_GetObjectItemCaseSensitive(e, "id"), where, &st);
        if (r < 0) goto cleanup;
        if (S->split[r]) {
            st = gat_i_error(GAT_EFORMAT, "%s: %s: node \"%s\" appears twice", S->path[P_G], where,
                             S->ids[r]);
            goto cleanup;
        }
        int f[2];
        for (int j = 0; j < 2; j++)
            f[j] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, flag[j]));
        if (f[0] && f[1]) {
            st = gat_i_error(GAT_EFORMAT, "%s: nodes[%d]: node \"%s\" is both val and test",
                             S->path[P_G], k - 1, S->ids[r]);
            goto cleanup;
        }
        S->split[r] = f[0] ? GAT_SPLIT_VAL : f[1] ? GAT_SPLIT_TEST : GAT_SPLIT_TRAIN;
    }
    k = 0;
    cJSON_ArrayForEach(e, links)
    {
        snprintf(where, sizeof where, "%s[%d].source", lk, k);
        const gat_idx a = row_of(S, cJSON_GetObjectItemCaseSensitive(e, "source"), where, &st);
        snprintf(where, sizeof where, "%s[%d].target", lk, k);
        const gat_idx b = a < 0 ? -1 : row_of(S, cJSON_GetObjectItemCaseSensitive(e, "target"),
                                              where, &st);
        if (b < 0) goto cleanup;
        if (S->G > 0 && graph_of(S, a) != graph_of(S, b)) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: %s[%d]: node \"%s\" (graph %d) -> node \"%s\" (graph %d) "
                             "joins two graphs of %s",
                             S->path[P_G], lk, k, S->ids[a], graph_of(S, a), S->ids[b],
                             graph_of(S, b), S->path[P_GRAPH]);
            goto cleanup;
        }
        S->src[k] = a, S->dst[k++] = b;
    }
cleanup:
    cJSON_Delete(root);
    return st;
}

/* One class_map value: a class (single-label) or a 0/1 list (multi-hot), the same kind and
 * length for every node (set by the first). */
static gat_status class_value(sage *S, const cJSON *e, gat_idx r)
{
    const char *p = S->path[P_CLASS];
    const int list = cJSON_IsArray(e);
    if (!S->labels && !S->multi) {
        S->L = list ? cJSON_GetArraySize(e) : 0;
        if (list && S->L < 1)
            return gat_i_error(GAT_EFORMAT, "%s: key \"%s\": an empty label list", p, e->string);
        if (list ? !(S->multi = gat_calloc((size_t)S->n, (size_t)S->L))
                 : !(S->labels = gat_malloc((size_t)S->n, sizeof *S->labels)))
            return GAT_ENOMEM;
        for (gat_idx i = 0; !list && i < S->n; i++)
            S->labels[i] = -1;
    }
    if (!list) {
        const double v = cJSON_IsNumber(e) ? e->valuedouble : -1;
        if (!S->labels)
            return gat_i_error(GAT_EFORMAT,
                               "%s: key \"%s\": expected a list of 0/1 labels as the first key's",
                               p, e->string);
        if (v != floor(v) || v < 0 || v >= S->n) /* no more classes than nodes */
            return gat_i_error(GAT_EFORMAT,
                               "%s: key \"%s\": expected a class, an integer in [0, %d) (below "
                               "the node count)",
                               p, e->string, (int)S->n);
        S->labels[r] = (gat_idx)v;
        S->C = S->labels[r] + 1 > S->C ? S->labels[r] + 1 : S->C;
        return GAT_OK;
    }
    if (!S->multi || cJSON_GetArraySize(e) != S->L)
        return gat_i_error(GAT_EFORMAT, "%s: key \"%s\": expected %s%d labels", p, e->string,
                           S->multi ? "" : "a class, not a list of ", S->L);
    const cJSON *v;
    int l = 0;
    cJSON_ArrayForEach(v, e)
    {
        if (!cJSON_IsNumber(v) || (v->valuedouble != 0 && v->valuedouble != 1))
            return gat_i_error(GAT_EFORMAT, "%s: key \"%s\"[%d]: expected 0 or 1", p, e->string,
                               l);
        S->multi[(size_t)r * (size_t)S->L + (size_t)l++] = v->valuedouble == 1;
    }
    return GAT_OK;
}

/* class_map.json: every node once. */
static gat_status read_classes(sage *S)
{
    cJSON *root = NULL;
    const cJSON *e;
    uint8_t *seen = NULL;
    gat_status st = gat_i_json_read(S->path[P_CLASS], &root);
    if (st != GAT_OK) return st;
    if (!cJSON_IsObject(root) || cJSON_GetArraySize(root) != S->n) {
        st = gat_i_error(GAT_EFORMAT, "%s: expected a JSON object of %d node ids (those of %s)",
                         S->path[P_CLASS], S->n, S->path[P_IDS]);
        goto cleanup;
    }
    if (!(seen = gat_calloc((size_t)S->n, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    cJSON_ArrayForEach(e, root)
    {
        const gat_idx r = *gat_i_strmap_slot(&S->map, S->ids, e->string);
        if (r < 0 || seen[r]) {
            st = gat_i_error(GAT_EFORMAT, "%s: key \"%s\": %s", S->path[P_CLASS], e->string,
                             r < 0 ? "not a node id of the id map" : "a node given twice");
            goto cleanup;
        }
        seen[r] = 1;
        if ((st = class_value(S, e, r)) != GAT_OK) goto cleanup;
    }
cleanup:
    gat_free(seen);
    cJSON_Delete(root);
    return st;
}

static gat_status build(sage *S, gat_dataset *ds, const gat_dataset_options *opt)
{
    gat_graph g = {0};
    gat_csr x = {0};
    gat_status st;
    const unsigned flags = opt->symmetrize ? GAT_GRAPH_SYMMETRIZE : 0;
    if ((st = gat_graph_from_edges(&g, S->n, S->m, S->src, S->dst, flags)) != GAT_OK ||
        (st = gat_csr_from_dense(&x, S->n, S->F, S->x)) != GAT_OK)
        goto cleanup;
    const gat_dataset_parts p = {.graph = &g,
                                 .features = &x,
                                 .labels = S->labels,
                                 .n_classes = S->labels ? S->C : 0,
                                 .split = S->split,
                                 .node_ids = (const char *const *)S->ids,
                                 .n_graphs = S->G,
                                 .graph_ptr = S->graph_ptr,
                                 .n_labels = S->multi ? S->L : 0,
                                 .label_matrix = S->multi};
    gat_dataset_options o = *opt;
    o.split_index = 0; /* the file's one split: checked by the caller */
    st = gat_i_dataset_from_parts(ds, &p, &o, "gat_dataset_load", S->path[P_G], S->path[P_FEATS]);
    if (st == GAT_OK) ds->n_splits = 1;
cleanup:
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
    return st;
}

gat_status gat_i_graphsage_load(gat_dataset *ds, const char *path, const gat_dataset_options *opt)
{
    sage S;
    gat_status st = GAT_ENOMEM;
    memset(&S, 0, sizeof S);
    char *prefix = prefix_of(path);
    for (int k = 0; prefix && k < 5; k++)
        if (!(S.path[k] = with_suffix(prefix, suffix[k]))) goto cleanup;
    if (!prefix) goto cleanup;
    for (int k = 0; k < 4; k++)
        if (!is_file(S.path[k])) {
            st = gat_i_error(GAT_EIO, "%s: missing (a GraphSAGE dataset %s needs %s-G.json, "
                             "-id_map.json, -feats.npy and -class_map.json)", S.path[k], prefix,
                             prefix);
            goto cleanup;
        }
    if ((st = read_ids(&S)) != GAT_OK || (st = read_arrays(&S)) != GAT_OK ||
        (st = read_graph(&S)) != GAT_OK || (st = read_classes(&S)) != GAT_OK)
        goto cleanup;
    st = build(&S, ds, opt);
cleanup:
    for (gat_idx i = 0; S.ids && i < S.n; i++)
        gat_free(S.ids[i]);
    for (int k = 0; k < 5; k++)
        gat_free(S.path[k]);
    gat_free(S.ids);
    gat_i_strmap_free(&S.map);
    gat_free(S.x);
    gat_free(S.split);
    gat_free(S.multi);
    gat_free(S.labels);
    gat_free(S.graph_ptr);
    gat_free(S.src);
    gat_free(S.dst);
    gat_free(prefix);
    return st;
}
