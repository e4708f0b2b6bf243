/* Check suite of the multi-label node task (issue 37): the sigmoid cross-entropy's gradient
 * against central differences and its value by hand, micro-F1 against a hand count, multi-hot
 * labels and graph segments through gat_dataset_from_parts and .gatd files (round trip, bad
 * tensors), the GraphSAGE reader on good and bad files written here, and gat_train on a tiny
 * multi-label dataset of three graphs. The loss accumulates in double from float logits, so the
 * float build's central differences (step 1e-2) agree to about 1e-4. */
#include "testutil.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- BCE and micro-F1 ---------------------------------------------------------------------- */

START_TEST(bce_gradient)
{
    enum { N = 4, L = 5 };
    gat_real z[N * L], d[N * L];
    uint8_t y[N * L], split[N] = {1, 0, 1, 1};
    double loss, f1, lp, lm;
    for (int k = 0; k < N * L; k++) {
        z[k] = (gat_real)(sin(1.7 * k + 0.3) * 3);
        y[k] = (uint8_t)((k * 7) % 3 == 0);
    }
    ck_assert_int_eq(gat_sigmoid_bce(z, N, L, y, split, GAT_SPLIT_TRAIN, &loss, &f1, d), GAT_OK);
    for (int k = 0; k < N * L; k++) {
        const gat_real keep = z[k], h = (gat_real)1e-2;
        z[k] = keep + h;
        ck_assert_int_eq(gat_sigmoid_bce(z, N, L, y, split, GAT_SPLIT_TRAIN, &lp, &f1, NULL),
                         GAT_OK);
        z[k] = keep - h;
        ck_assert_int_eq(gat_sigmoid_bce(z, N, L, y, split, GAT_SPLIT_TRAIN, &lm, &f1, NULL),
                         GAT_OK);
        z[k] = keep;
        const double fd = (lp - lm) / ((double)(keep + h) - (double)(keep - h));
        ck_assert_msg(fabs(fd - d[k]) <= 1e-3 * fabs(fd) + 1e-6, "d[%d] = %g, difference %g", k,
                      (double)d[k], fd);
        if (split[k / L] != GAT_SPLIT_TRAIN) ck_assert(d[k] == 0);
    }
    /* by hand: z = 0 costs log 2 whatever y; a large |z| on the wrong side costs about |z| */
    gat_real z2[2] = {0, -40};
    uint8_t y2[2] = {1, 1}, s2[1] = {GAT_SPLIT_VAL};
    ck_assert_int_eq(gat_sigmoid_bce(z2, 1, 2, y2, s2, GAT_SPLIT_VAL, &loss, &f1, NULL), GAT_OK);
    ck_assert_double_eq_tol(loss, (log(2.0) + 40) / 2, 1e-9);
}
END_TEST

START_TEST(micro_f1_by_hand)
{
    /* 3 nodes x 4 labels; node 2 is not in the split. Predictions (z > 0) against targets:
     *   node 0: pred 1 0 1 0, true 1 1 0 0 -> TP 1, FP 1, FN 1
     *   node 1: pred 1 1 1 1, true 1 1 1 0 -> TP 3, FP 1, FN 0
     *   node 2: pred 0 0 0 0, true 1 1 1 1 (ignored)
     * F1 = 2 * 4 / (2 * 4 + 2 + 1) = 8 / 11 */
    const gat_real z[12] = {2, -1, 0.5, 0, 1, 3, 0.1, 9, -1, -1, -1, -1};
    const uint8_t y[12] = {1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1};
    const uint8_t split[3] = {GAT_SPLIT_TEST, GAT_SPLIT_TEST, GAT_SPLIT_VAL};
    double f1, loss, f1b;
    ck_assert_int_eq(gat_micro_f1(z, 3, 4, y, split, GAT_SPLIT_TEST, &f1), GAT_OK);
    ck_assert_double_eq_tol(f1, 8.0 / 11.0, 1e-12);
    ck_assert_int_eq(gat_sigmoid_bce(z, 3, 4, y, split, GAT_SPLIT_TEST, &loss, &f1b, NULL),
                     GAT_OK);
    ck_assert_double_eq_tol(f1b, 8.0 / 11.0, 1e-12);
    /* node 2 alone: nothing predicted, 4 missed -> 0 */
    ck_assert_int_eq(gat_micro_f1(z, 3, 4, y, split, GAT_SPLIT_VAL, &f1), GAT_OK);
    ck_assert_double_eq(f1, 0);
    ASSERT_FAILS(gat_micro_f1(z, 3, 4, y, split, GAT_SPLIT_TRAIN, &f1), GAT_EINVAL, "no node");
    ASSERT_FAILS(gat_micro_f1(NULL, 3, 4, y, split, GAT_SPLIT_TEST, &f1), GAT_EINVAL, "logits");
    ASSERT_FAILS(gat_sigmoid_bce(z, 3, 0, y, split, GAT_SPLIT_TEST, &loss, &f1, NULL), GAT_EINVAL,
                 "n_labels = 0");
}
END_TEST

/* ---- The toy multi-label dataset: 3 graphs (a triangle, a path of 3, a pair) ---------------- */

#define TN 8
#define TL 3
static const gat_idx toy_src[] = {0, 1, 2, 3, 4, 6}, toy_dst[] = {1, 2, 0, 4, 5, 7};
static const gat_idx toy_ptr[] = {0, 3, 6, 8};

static void toy_parts(gat_graph *g, gat_csr *x, uint8_t *y, uint8_t *split)
{
    gat_real dense[TN * 2];
    for (int i = 0; i < TN; i++) {
        dense[2 * i] = (gat_real)(i % 3), dense[2 * i + 1] = (gat_real)(i % 2);
        for (int l = 0; l < TL; l++)
            y[i * TL + l] = (uint8_t)((i + l) % 2);
        split[i] = i < 3 ? GAT_SPLIT_TRAIN : i < 6 ? GAT_SPLIT_VAL : GAT_SPLIT_TEST;
    }
    ck_assert_int_eq(gat_graph_from_edges(g, TN, LEN(toy_src), toy_src, toy_dst,
                                          GAT_GRAPH_SYMMETRIZE),
                     GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(x, TN, 2, dense), GAT_OK);
}

static void toy_dataset(gat_dataset *ds)
{
    gat_graph g = {0};
    gat_csr x = {0};
    uint8_t y[TN * TL], split[TN];
    toy_parts(&g, &x, y, split);
    const gat_idx glab[3] = {1, 0, 1};
    const char *const gnames[2] = {"small", "big"};
    gat_dataset_parts p = {.graph = &g, .features = &x, .split = split, .n_graphs = 3,
                           .graph_ptr = toy_ptr, .graph_labels = glab, .n_graph_classes = 2,
                           .graph_class_names = gnames, .n_labels = TL, .label_matrix = y};
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    ck_assert_int_eq(gat_dataset_from_parts(ds, &p, &o), GAT_OK);
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}

START_TEST(parts_multi_hot)
{
    gat_dataset ds;
    toy_dataset(&ds);
    ck_assert_int_eq(ds.n_labels, TL);
    ck_assert_int_eq(ds.n_classes, 0);
    ck_assert_int_eq(ds.n_train, 3);
    ck_assert_int_eq(ds.n_val, 3);
    ck_assert_int_eq(ds.label_matrix[1 * TL + 0], 1);
    ck_assert_int_eq(ds.labels[0], -1);
    gat_dataset_destroy(&ds);

    gat_graph g = {0};
    gat_csr x = {0};
    uint8_t y[TN * TL], split[TN];
    const gat_idx labels[TN] = {0};
    toy_parts(&g, &x, y, split);
    gat_dataset_parts p = {.graph = &g, .features = &x, .n_labels = TL, .label_matrix = y};
    y[5] = 2;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL, "node 1, label 2 is 2");
    y[5] = 1;
    p.labels = labels;
    p.n_classes = 1;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL, "no labels and no classes");
    p.labels = NULL, p.n_classes = 0, p.label_matrix = NULL;
    ASSERT_FAILS(gat_dataset_from_parts(&ds, &p, NULL), GAT_EINVAL, "label_matrix NULL");
    gat_graph_destroy(&g);
    gat_csr_destroy(&x);
}
END_TEST

/* ---- .gatd ------------------------------------------------------------------------------------ */

/* The offset in the file of the first data byte of tensor name (the header parsed by hand). */
static long tensor_at(const char *path, const char *name)
{
    FILE *f = fopen(path, "rb");
    unsigned char len8[8];
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fread(len8, 1, 8, f), 8);
    long hlen = 0;
    for (int b = 7; b >= 0; b--)
        hlen = hlen << 8 | len8[b];
    char *h = calloc((size_t)hlen + 1, 1);
    ck_assert_int_eq(fread(h, 1, (size_t)hlen, f), (size_t)hlen);
    fclose(f);
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *at = strstr(h, key), *offs = at ? strstr(at, "\"data_offsets\":[") : NULL;
    ck_assert_ptr_nonnull(offs);
    const long begin = strtol(offs + strlen("\"data_offsets\":["), NULL, 10);
    free(h);
    return 8 + hlen + begin;
}

static void poke(const char *path, long at, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
    ck_assert_int_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

START_TEST(gatd_round_trip)
{
    char *dir = tu_tmpdir(), path[4200], bad[4200];
    gat_dataset ds, back;
    toy_dataset(&ds);
    snprintf(path, sizeof path, "%s/toy.gatd", dir);
    ck_assert_int_eq(gat_dataset_save(&ds, path, "toy"), GAT_OK);
    ck_assert_int_eq(gat_dataset_load(&back, path, NULL), GAT_OK);
    ck_assert_int_eq(back.n_graphs, 3);
    ck_assert_mem_eq(back.graph_ptr, toy_ptr, sizeof toy_ptr);
    ck_assert_int_eq(back.n_graph_classes, 2);
    ck_assert_str_eq(back.graph_class_names[1], "big");
    ck_assert_int_eq(back.graph_labels[2], 1);
    ck_assert_int_eq(back.n_labels, TL);
    ck_assert_mem_eq(back.label_matrix, ds.label_matrix, TN * TL);
    ck_assert_mem_eq(back.split, ds.split, TN);
    ck_assert_int_eq(back.n_val, 3);
    gat_dataset_destroy(&back);

    /* a corrupt label value, a graph pointer that cuts the triangle: named errors */
    const uint8_t two = 2;
    const int32_t cut = 2;
    snprintf(bad, sizeof bad, "%s/bad.gatd", dir);
    ck_assert_int_eq(gat_dataset_save(&ds, bad, NULL), GAT_OK);
    poke(bad, tensor_at(bad, "label_matrix") + 4, &two, 1);
    ASSERT_FAILS(gat_dataset_load(&back, bad, NULL), GAT_EFORMAT, "node 1, label 1 is 2");
    ck_assert_int_eq(gat_dataset_save(&ds, bad, NULL), GAT_OK);
    poke(bad, tensor_at(bad, "graphs.ptr") + 4, &cut, 4);
    ASSERT_FAILS(gat_dataset_load(&back, bad, NULL), GAT_EFORMAT, "no edge may join two graphs");

    /* a dataset of one graph writes no new tensor: the file an older libgat wrote */
    gat_dataset one;
    ck_assert_int_eq(gat_dataset_load(&one, tu_dataset("cora"), NULL), GAT_OK);
    snprintf(path, sizeof path, "%s/cora.gatd", dir);
    ck_assert_int_eq(gat_dataset_save(&one, path, NULL), GAT_OK);
    ck_assert_int_eq(gat_dataset_load(&back, path, NULL), GAT_OK);
    ck_assert_int_eq(back.n_graphs, 0);
    ck_assert_int_eq(back.n_labels, 0);
    ck_assert_ptr_null(back.label_matrix);
    ck_assert_int_eq(back.n_classes, one.n_classes);
    gat_dataset_destroy(&back);
    gat_dataset_destroy(&one);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- GraphSAGE files ------------------------------------------------------------------------- */

/* dir/name as a .npy file (format 1.0) of the given descr, shape and raw little-endian data. */
static void write_npy(const char *dir, const char *name, const char *descr, const char *shape,
                      const void *data, size_t bytes)
{
    char path[4200], head[256];
    int n = snprintf(head, sizeof head, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    while ((10 + n + 1) % 64 != 0)
        head[n++] = ' ';
    head[n++] = '\n';
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    const unsigned char magic[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 255),
                                     (unsigned char)(n >> 8)};
    ck_assert_int_eq(fwrite(magic, 1, 10, f), 10);
    ck_assert_int_eq(fwrite(head, 1, (size_t)n, f), (size_t)n);
    if (bytes) ck_assert_int_eq(fwrite(data, 1, bytes, f), bytes);
    fclose(f);
}

/* The toy graphs as GraphSAGE files dir/toy-*: node ids "n0".."n7" mapped to rows 7..0. */
static void write_sage(const char *dir, int graph_ids)
{
    char buf[4096];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{");
    for (int i = 0; i < TN; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"n%d\": %d", i ? ", " : "", i,
                              TN - 1 - i);
    snprintf(buf + n, sizeof buf - n, "}\n");
    tu_write(dir, "toy-id_map.json", buf);
    float x[TN * 2];
    for (int i = 0; i < TN; i++) /* row r holds node n(7 - r) */
        x[2 * (TN - 1 - i)] = (float)i, x[2 * (TN - 1 - i) + 1] = (float)(10 * i);
    write_npy(dir, "toy-feats.npy", "<f4", "(8, 2)", x, sizeof x);
    n = (size_t)snprintf(buf, sizeof buf, "{\"directed\": false, \"graph\": {},\n\"nodes\": [");
    for (int i = 0; i < TN; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\n{\"id\": \"n%d\", \"val\": %s, "
                              "\"test\": %s}", i ? "," : "", i, i >= 3 && i < 6 ? "true" : "false",
                              i >= 6 ? "true" : "false");
    n += (size_t)snprintf(buf + n, sizeof buf - n, "],\n\"links\": [");
    for (size_t k = 0; k < LEN(toy_src); k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s{\"source\": \"n%d\", \"target\": "
                              "\"n%d\"}", k ? ", " : "", toy_src[k], toy_dst[k]);
    snprintf(buf + n, sizeof buf - n, "]}\n");
    tu_write(dir, "toy-G.json", buf);
    n = (size_t)snprintf(buf, sizeof buf, "{");
    for (int i = 0; i < TN; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"n%d\": [%d, %d, %d]", i ? ", " : "",
                              i, (i + 0) % 2, (i + 1) % 2, (i + 2) % 2);
    snprintf(buf + n, sizeof buf - n, "}\n");
    tu_write(dir, "toy-class_map.json", buf);
    /* rows 0..7 are nodes 7..0: graphs (by row) 2 2 1 1 1 0 0 0, ids 5 5 6 6 6 7 7 7 */
    const int64_t gid[TN] = {5, 5, 6, 6, 6, 7, 7, 7};
    if (graph_ids) write_npy(dir, "toy-graph_id.npy", "<i8", "(8,)", gid, sizeof gid);
}

START_TEST(graphsage_good)
{
    char *dir = tu_tmpdir(), prefix[4200];
    gat_dataset ds;
    write_sage(dir, 1);
    snprintf(prefix, sizeof prefix, "%s/toy", dir);
    ck_assert_int_eq(gat_dataset_load(&ds, prefix, NULL), GAT_OK);
    ck_assert_int_eq(ds.n, TN);
    ck_assert_int_eq(ds.n_features, 2);
    ck_assert_int_eq(ds.n_labels, TL);
    ck_assert_int_eq(ds.n_graphs, 3);
    const gat_idx ptr[4] = {0, 2, 5, 8};
    ck_assert_mem_eq(ds.graph_ptr, ptr, sizeof ptr);
    /* row 0 is node n7: test, labels 1 0 1, features 7, 70 (not normalised: AUTO sums rows) */
    ck_assert_str_eq(ds.node_ids[0], "n7");
    ck_assert_int_eq(ds.split[0], GAT_SPLIT_TEST);
    ck_assert_int_eq(ds.split[7], GAT_SPLIT_TRAIN);
    ck_assert_int_eq(ds.split[3], GAT_SPLIT_VAL);
    ck_assert_int_eq(ds.label_matrix[0], 1);
    ck_assert_int_eq(ds.label_matrix[1], 0);
    ck_assert_int_eq(ds.label_matrix[2], 1);
    /* 6 links both ways + 8 self-loops */
    ck_assert_int_eq(ds.graph.nnz, 20);
    gat_dataset_destroy(&ds);
    /* a directory named after the prefix, without graph ids: one graph */
    char *dir2 = tu_tmpdir(), sub[4300];
    snprintf(sub, sizeof sub, "%s/toy", dir2);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    write_sage(sub, 0);
    ck_assert_int_eq(gat_dataset_load(&ds, sub, NULL), GAT_OK);
    ck_assert_int_eq(ds.n_graphs, 0);
    ck_assert_int_eq(ds.n_train, 3);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir2);
    free(dir2);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Loads dir/toy after file name was replaced by text: the status and a message part. */
static void sage_bad(const char *name, const char *text, gat_status want, const char *part)
{
    char *dir = tu_tmpdir(), prefix[4200];
    gat_dataset ds;
    write_sage(dir, 1);
    if (text) tu_write(dir, name, text);
    snprintf(prefix, sizeof prefix, "%s/toy", dir);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), want, part);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), want, name);
    tu_rmtree(dir);
    free(dir);
}

START_TEST(graphsage_bad)
{
    sage_bad("toy-id_map.json", "{\"n0\": 0,\n\"n1\": }", GAT_EFORMAT, "toy-id_map.json:2:");
    sage_bad("toy-id_map.json", "{\"n0\": 0, \"n1\": 0}", GAT_EFORMAT, "already another node's");
    sage_bad("toy-G.json", "{\"nodes\": [], \"links\": []}", GAT_EFORMAT, "holds 0 nodes");
    sage_bad("toy-G.json",
             "{\"nodes\": [{\"id\": \"n0\"}, {\"id\": \"n1\"}, {\"id\": \"n2\"}, {\"id\": \"n3\"}, "
             "{\"id\": \"n4\"}, {\"id\": \"n5\"}, {\"id\": \"n6\"}, {\"id\": \"x\"}], \"links\": []}",
             GAT_EFORMAT, "nodes[7].id: node id \"x\" is not in");
    sage_bad("toy-G.json",
             "{\"nodes\": [{\"id\": \"n0\"}, {\"id\": \"n1\"}, {\"id\": \"n2\"}, {\"id\": \"n3\"}, "
             "{\"id\": \"n4\"}, {\"id\": \"n5\"}, {\"id\": \"n6\"}, {\"id\": \"n7\"}], "
             "\"links\": [{\"source\": \"n0\", \"target\": \"n1\"}, "
             "{\"source\": \"n2\", \"target\": \"n3\"}]}",
             GAT_EFORMAT, "links[1]: node \"n2\" (graph 2) -> node \"n3\" (graph 1) joins two");
    sage_bad("toy-class_map.json",
             "{\"n0\": [1, 0, 1], \"n1\": [1, 0], \"n2\": [0, 0, 0], \"n3\": [0, 0, 0], "
             "\"n4\": [0, 0, 0], \"n5\": [0, 0, 0], \"n6\": [0, 0, 0], \"n7\": [0, 0, 0]}",
             GAT_EFORMAT, "key \"n1\": expected 3 labels");
    sage_bad("toy-class_map.json", "{\"n0\": 1}", GAT_EFORMAT, "expected a JSON object of 8");
    sage_bad("toy-class_map.json",
             "{\"n0\": 1, \"n1\": 0, \"n2\": 8, \"n3\": 0, \"n4\": 0, \"n5\": 0, \"n6\": 0, "
             "\"n7\": 0}",
             GAT_EFORMAT,
             "key \"n2\": expected a class, an integer in [0, 8) (below the node count)");
    sage_bad("toy-class_map.json",
             "{\"n0\": [1, 0, 1], \"n1\": 0, \"n2\": 8, \"n3\": 0, \"n4\": 0, \"n5\": 0, "
             "\"n6\": 0, \"n7\": 0}",
             GAT_EFORMAT, "key \"n1\": expected a list of 0/1 labels as the first key's");
}
END_TEST

/* networkx 3.4's node_link_data(G, edges="edges") (its default from 3.6) names the links
 * "edges": the same dataset, and the messages name the key. */
START_TEST(graphsage_edges_key)
{
    char *dir = tu_tmpdir(), prefix[4200], path[4300];
    gat_dataset a, b;
    write_sage(dir, 1);
    snprintf(prefix, sizeof prefix, "%s/toy", dir);
    ck_assert_int_eq(gat_dataset_load(&a, prefix, NULL), GAT_OK);
    snprintf(path, sizeof path, "%s/toy-G.json", dir);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char text[4096];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *links = strstr(text, "\"links\"");
    ck_assert_ptr_nonnull(links);
    memcpy(links, "\"edges\"", 7);
    tu_write(dir, "toy-G.json", text);
    ck_assert_msg(gat_dataset_load(&b, prefix, NULL) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(b.graph.nnz, a.graph.nnz);
    ck_assert(!memcmp(b.graph.col, a.graph.col, (size_t)a.graph.nnz * sizeof *a.graph.col));
    gat_dataset_destroy(&a);
    gat_dataset_destroy(&b);
    tu_rmtree(dir);
    free(dir);
    sage_bad("toy-G.json",
             "{\"nodes\": [{\"id\": \"n0\"}, {\"id\": \"n1\"}, {\"id\": \"n2\"}, {\"id\": \"n3\"}, "
             "{\"id\": \"n4\"}, {\"id\": \"n5\"}, {\"id\": \"n6\"}, {\"id\": \"n7\"}], "
             "\"edges\": [{\"source\": \"n0\", \"target\": \"n1\"}, "
             "{\"source\": \"n2\", \"target\": \"n3\"}]}",
             GAT_EFORMAT, "edges[1]: node \"n2\" (graph 2) -> node \"n3\" (graph 1) joins two");
    sage_bad("toy-G.json", "{\"nodes\": []}", GAT_EFORMAT,
             "expected an object with arrays \"nodes\" and \"links\" (or \"edges\"");
}
END_TEST

START_TEST(graphsage_bad_arrays)
{
    char *dir = tu_tmpdir(), prefix[4200];
    gat_dataset ds;
    snprintf(prefix, sizeof prefix, "%s/toy", dir);
    write_sage(dir, 1);
    const int64_t unsorted[TN] = {1, 1, 2, 2, 1, 3, 3, 3};
    write_npy(dir, "toy-graph_id.npy", "<i8", "(8,)", unsorted, sizeof unsorted);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "toy-graph_id.npy: entry 4 is 1 after 2");
    const int64_t gap[TN] = {1, 1, 3, 3, 3, 4, 4, 4};
    write_npy(dir, "toy-graph_id.npy", "<i8", "(8,)", gap, sizeof gap);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT, "leave no gap");
    const float x[6] = {0};
    write_npy(dir, "toy-feats.npy", "<f4", "(3, 2)", x, sizeof x);
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT,
                 "toy-feats.npy: shape (3, 2), expected (8, F)");
    write_npy(dir, "toy-feats.npy", "<f4", "(8, 2)", x, sizeof x); /* 24 bytes short */
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EFORMAT, "toy-feats.npy");
    remove(tu_write(dir, "toy-class_map.json", ""));
    ASSERT_FAILS(gat_dataset_load(&ds, prefix, NULL), GAT_EIO, "toy-class_map.json: missing");
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Loading path with allocation k failing, for every k < the allocations of a load: GAT_ENOMEM
 * and a zeroed dataset, or GAT_OK where the failure fell in a format probe, which only answers
 * "not this format" (ASan finds what a failure leaks). At least `least` of them fail. */
static void load_failing(const char *path, long least)
{
    static const gat_dataset zero;
    gat_dataset ds;
    gat_i_alloc_fail_at(-1);
    ck_assert_int_eq(gat_dataset_load(&ds, path, NULL), GAT_OK);
    gat_dataset_destroy(&ds);
    const long made = gat_i_alloc_fail_at(-1);
    long failed = 0;
    for (long k = 0; k < made; k++) {
        gat_i_alloc_fail_at(k);
        const gat_status st = gat_dataset_load(&ds, path, NULL);
        gat_i_alloc_fail_at(-1);
        ck_assert_msg(st == GAT_ENOMEM || st == GAT_OK, "failing allocation %ld: %s (%s)", k,
                      gat_strerror(st), gat_last_error());
        if (st == GAT_OK) {
            ck_assert_int_eq(ds.n_labels, TL);
            gat_dataset_destroy(&ds);
        } else {
            ck_assert(memcmp(&ds, &zero, sizeof zero) == 0);
            failed++;
        }
    }
    ck_assert_int_ge(failed, least);
}

START_TEST(alloc_failures)
{
    char *dir = tu_tmpdir(), path[4200];
    gat_dataset ds;
    write_sage(dir, 1);
    snprintf(path, sizeof path, "%s/toy", dir);
    load_failing(path, 20);
    toy_dataset(&ds);
    snprintf(path, sizeof path, "%s/toy.gatd", dir);
    ck_assert_int_eq(gat_dataset_save(&ds, path, NULL), GAT_OK);
    gat_dataset_destroy(&ds);
    load_failing(path, 5);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- Training ----------------------------------------------------------------------------- */

START_TEST(train_multilabel)
{
    gat_dataset ds;
    gat_model *m = NULL;
    gat_model_config mc;
    gat_train_config tc;
    gat_train_result r1, r2;
    double loss, f1;
    toy_dataset(&ds);
    gat_model_config_default(&mc, 2, TL);
    mc.hidden = 4, mc.heads = 2, mc.in_dropout = mc.att_dropout = 0;
    gat_train_config_default(&tc);
    tc.max_epochs = 20;
    for (int run = 0; run < 2; run++) {
        ck_assert_int_eq(gat_model_create(&m, &mc, 3), GAT_OK);
        ck_assert_int_eq(gat_train(m, &ds, &tc, run ? &r2 : &r1), GAT_OK);
        ck_assert_int_eq(gat_model_evaluate(m, &ds, GAT_SPLIT_TEST, &loss, &f1), GAT_OK);
        ck_assert(f1 >= 0 && f1 <= 1 && isfinite(loss));
        ck_assert_double_eq(f1, run ? r2.test_acc : r1.test_acc);
        gat_model_free(m);
    }
    ck_assert_double_eq(r1.val_loss, r2.val_loss); /* a seed repeats exactly */
    /* the model must predict one logit per label; mini-batches are refused */
    gat_model_config_default(&mc, 2, TL + 1);
    ck_assert_int_eq(gat_model_create(&m, &mc, 3), GAT_OK);
    ASSERT_FAILS(gat_train(m, &ds, &tc, NULL), GAT_EDIM, "3 labels per node");
    gat_model_free(m);
    gat_model_config_default(&mc, 2, TL);
    ck_assert_int_eq(gat_model_create(&m, &mc, 3), GAT_OK);
    tc.batch_size = 2, tc.n_fanout = 2, tc.fanout[0] = tc.fanout[1] = -1;
    ASSERT_FAILS(gat_train(m, &ds, &tc, NULL), GAT_EINVAL, "multi-label");
    gat_model_free(m);
    gat_dataset_destroy(&ds);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("multilabel");
    TCase *t = tcase_create("loss");
    tcase_add_test(t, bce_gradient);
    tcase_add_test(t, micro_f1_by_hand);
    suite_add_tcase(s, t);
    t = tcase_create("data");
    tcase_add_test(t, parts_multi_hot);
    tcase_add_test(t, gatd_round_trip);
    suite_add_tcase(s, t);
    t = tcase_create("graphsage");
    tcase_add_test(t, graphsage_good);
    tcase_add_test(t, graphsage_bad);
    tcase_add_test(t, graphsage_edges_key);
    tcase_add_test(t, graphsage_bad_arrays);
    tcase_add_test(t, alloc_failures);
    suite_add_tcase(s, t);
    t = tcase_create("train");
    tcase_add_test(t, train_multilabel);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
