/* Hardening: sizes read from files checked before allocating, models too large for memory,
 * non-finite and huge numbers (NaN/Inf features in every reader, row normalisation that would
 * overflow, 1e30 features through the softmax), and a diverging training that keeps a finite
 * model. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Writes a safetensors file: the header JSON (padded to 8 bytes), then `data` zero bytes. */
static const char *write_model(const char *dir, const char *json, size_t data)
{
    static char path[4200];
    size_t len = strlen(json), pad = (8 - len % 8) % 8;
    unsigned char len8[8];
    snprintf(path, sizeof path, "%s/m.gat", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (int b = 0; b < 8; b++)
        len8[b] = (unsigned char)((len + pad) >> (8 * b));
    ck_assert_uint_eq(fwrite(len8, 1, 8, f), 8);
    ck_assert_uint_eq(fwrite(json, 1, len, f), len);
    for (size_t k = 0; k < pad + data; k++)
        fputc(k < pad ? ' ' : 0, f);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

#define META(in, hidden, heads)                                                                    \
    "{\"__metadata__\":{\"in_features\":\"" in "\",\"classes\":\"2\",\"layers\":\"2\","            \
    "\"hidden\":\"" hidden "\",\"heads\":\"" heads "\",\"out_heads\":\"1\","                       \
    "\"negative_slope\":\"0.2\",\"score\":\"gat\",\"activation\":\"elu\"}}"

/* A model file whose configuration implies petabytes of parameters is rejected by its size
 * before anything is allocated (under ASan a huge allocation would abort). */
START_TEST(model_file_sizes_checked)
{
    char *dir = tu_tmpdir();
    gat_model *m = NULL;
    const char *p = write_model(dir, META("2000000000", "1024", "256"), 64);
    ASSERT_FAILS(gat_model_load(&m, NULL, p), GAT_EFORMAT, "needs at least");
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "data section holds 64 bytes"));
    /* small enough to allocate: the tensor table check reports the missing tensors */
    p = write_model(dir, META("3", "2", "2"), 1 << 12);
    ASSERT_FAILS(gat_model_load(&m, NULL, p), GAT_EFORMAT, "is missing");
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Graph files whose vertex numbers or declared counts exceed the features file's lines fail
 * before igraph allocates the vertices (every vertex needs a features line). */
START_TEST(graph_file_counts_checked)
{
    static const struct {
        const char *ext, *graph, *features, *message;
    } cases[] = {
        {"edges", "0 1\n1 2000000000\n", "0 1\n1 1\n2 1\n", "no line for node '3'"},
        {"edges", "0 1\n", "0 1\n1 1\n2000000000 1\n", "no line for node '2'"},
        /* the edge-table reader splits at blanks only, as every text reader does: a field
         * holding a \v is a name, no vertex number, and no vertex is allocated for the number
         * beside it (a fuzzer's find, when igraph read these files) */
        {"edges", "0\v5 2000000000\n", "0 1\n1 1\n2 1\n", "no line for node '0\v5'"},
        {"edges", "0\v1 2000000000 0.5\n", "0 1\n1 1\n2 1\n", "no line for node '0\v1'"},
        {"net", "*Vertices 2000000000\n*Edges\n1 2\n", "1 1\n2 1\n",
         "declares 2000000000 vertices but"},
        {"net", "*Vertices 2\n*Arcs\n1 3000000000\n", "1 1\n2 1\n", "declares 3000000000"},
        {"dimacs", "p max 2000000000 1\nn 1 s\n", "1 1\n2 1\n", "declares 2000000000"},
        {"dimacs", "c x\np max 2 1\na 1 3000000000 1\n", "1 1\n2 1\n", "declares 3000000000"},
        {"dimacs", "p max 2 1\na04000000000 1 1\n", "1 1\n2 1\n", "declares 4000000000"},
    };
    char *dir = tu_tmpdir();
    char g[4200], f[4200];
    gat_dataset ds;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char name[32];
        snprintf(name, sizeof name, "g.%s", cases[k].ext);
        snprintf(g, sizeof g, "%s", tu_write(dir, name, cases[k].graph));
        snprintf(f, sizeof f, "%s", tu_write(dir, "g.features", cases[k].features));
        gat_dataset_files files = {.graph = g, .features = f};
        ASSERT_FAILS(gat_dataset_read(&ds, &files, NULL), GAT_EFORMAT, cases[k].message);
    }
    /* within bounds, the same shapes read */
    snprintf(g, sizeof g, "%s", tu_write(dir, "g.dimacs", "p max 2 1\na 1 2 7\n"));
    snprintf(f, sizeof f, "%s", tu_write(dir, "g.features", "1 1\n2 1\n"));
    gat_dataset_files files = {.graph = g, .features = f};
    ck_assert_int_eq(gat_dataset_read(&ds, &files, NULL), GAT_OK);
    ck_assert_int_eq(ds.n, 2);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A DIMACS header's edge count is checked against the file's size before igraph reserves room
 * for that many edges ("p max 4 444444441", 18 bytes, asked igraph for 10 GB), with or without
 * a features file; and vertex numbers are found where igraph's scanf reads them, also when a
 * field sits on the next line (an arc's capacity there used to hide the next arc's endpoints). */
START_TEST(dimacs_header_counts_checked)
{
    static const struct {
        const char *graph, *features; /* features NULL: one-hot */
        const char *message;          /* after "<graph path>:" */
    } cases[] = {
        {"p max 4 444444441\n", "1 1\n2 1\n3 1\n4 1\n",
         "1: header declares 444444441 edges, more than a file of 18 bytes can hold"},
        {"p max 4 444444441\n", NULL,
         "1: header declares 444444441 edges, more than a file of 18 bytes can hold"},
        {"c a comment\np edge 2 6\ne 1 2\n", NULL,
         "2: header declares 6 edges, more than a file of 29 bytes can hold"},
        {"p max\n2\n9000000000\n", NULL,
         "1: header declares 9000000000 edges, more than a file of 19 bytes can hold"},
        {"p max 3 2\nn 1 s\nn 2 t\na 1 2\n3\na 1 3000000000 1\n", "1 1\n2 1\n3 1\n",
         " declares 3000000000 vertices but "},
    };
    char *dir = tu_tmpdir();
    char g[4200], f[4200], want[8400];
    gat_dataset ds;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        snprintf(g, sizeof g, "%s", tu_write(dir, "g.dimacs", cases[k].graph));
        if (cases[k].features)
            snprintf(f, sizeof f, "%s", tu_write(dir, "g.features", cases[k].features));
        gat_dataset_files files = {.graph = g, .features = cases[k].features ? f : NULL};
        snprintf(want, sizeof want, "%s:%s", g, cases[k].message);
        ck_assert_int_eq(gat_dataset_read(&ds, &files, NULL), GAT_EFORMAT);
        if (cases[k].message[0] == ' ')
            ASSERT_FAILS(gat_dataset_read(&ds, &files, NULL), GAT_EFORMAT, cases[k].message);
        else
            ck_assert_str_eq(gat_last_error(), want);
    }
    /* a header that fits, and as many edges as the smallest lines allow: read */
    const char *fits[] = {"p max 2 2\na 1 2 7\na 2 1 7\n", "p edge 2 3\ne 1 2\ne 2 1\ne 1 1"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(g, sizeof g, "%s", tu_write(dir, "g.dimacs", fits[k]));
        gat_dataset_files files = {.graph = g};
        ck_assert_msg(gat_dataset_read(&ds, &files, NULL) == GAT_OK, "%s", gat_last_error());
        ck_assert_int_eq(ds.n, 2);
        gat_dataset_destroy(&ds);
    }
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Without a features file every vertex becomes a one-hot node: a vertex count the file's size
 * cannot justify (a few bytes asking for 2e9 vertices took 20 GiB and minutes) is refused in every
 * format that numbers its vertices, and a count that fits is read. */
START_TEST(one_hot_vertex_count_bounded)
{
    static const struct {
        const char *name, *graph;
        size_t bytes;
    } cases[] = {
        {"g.edges", "0 1999999999\n", 13},
        {"g.net", "*Vertices 2000000000\n*Edges\n1 2\n", 32},
        {"g.dimacs", "p max 2000000000 1\na 1 2 3\n", 27},
    };
    char *dir = tu_tmpdir();
    char g[4200], want[4400];
    gat_dataset ds;
    for (size_t k = 0; k < LEN(cases); k++) {
        snprintf(g, sizeof g, "%s", tu_write(dir, cases[k].name, cases[k].graph));
        gat_dataset_files files = {.graph = g};
        snprintf(want, sizeof want,
                 "%s: implies 2000000000 vertices, more than a file of %zu bytes can name (each "
                 "would become a one-hot node); give a features file to declare isolated vertices",
                 g, cases[k].bytes);
        ck_assert_int_eq(gat_dataset_read(&ds, &files, NULL), GAT_EFORMAT);
        ck_assert_str_eq(gat_last_error(), want);
    }
    /* isolated vertices the file can name: 0..9 from a 12-byte edge list */
    snprintf(g, sizeof g, "%s", tu_write(dir, "g.edges", "0 1\n1 2\n2 9\n"));
    gat_dataset_files files = {.graph = g};
    ck_assert_msg(gat_dataset_read(&ds, &files, NULL) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(ds.n, 10);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Configurations too large for memory fail cleanly: widths past the limit with GAT_EINVAL, a
 * valid configuration whose parameters cannot be allocated with GAT_ENOMEM. */
START_TEST(huge_model_config)
{
    gat_model_config mc;
    gat_model *m = NULL;
    gat_model_config_default(&mc, 100000, 7);
    mc.hidden = 1000000;
    mc.heads = 200;
    ASSERT_FAILS(gat_model_create(&m, &mc, 1), GAT_EINVAL, "exceeds");
    ck_assert_ptr_null(m);
    gat_model_config_default(&mc, 2000000000, 7);
    mc.hidden = 4096;
    mc.heads = 256; /* width 2^20: 2e9 x 2^20 weights, 8 PB */
    ASSERT_FAILS(gat_model_create(&m, &mc, 1), GAT_ENOMEM, "out of memory");
    ck_assert_ptr_null(m);
}
END_TEST

/* Non-finite features are load errors naming the node and column, in every reader. */
START_TEST(nan_features_everywhere)
{
    char *dir = tu_tmpdir();
    gat_dataset ds;
    gat_csr x;
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    tu_write(dir, "d.content", "a 1 0 x\nb 0 inf y\n");
    tu_write(dir, "d.cites", "a b\n");
    char base[4200];
    snprintf(base, sizeof base, "%s/d", dir);
    ASSERT_FAILS(gat_dataset_load(&ds, base, &o), GAT_ENUMERIC,
                 "field 3 (feature column 1) of node 'b' is not finite");
    /* graph files: dense and sparse feature tables */
    gat_dataset_files files = {.graph = NULL, .format = GAT_GRAPH_FORMAT_EDGELIST};
    char g[4200], f[4200];
    snprintf(g, sizeof g, "%s", tu_write(dir, "g.edges", "0 1\n"));
    files.graph = g;
    files.features = f;
    snprintf(f, sizeof f, "%s", tu_write(dir, "g.features", "0 1 2\n1 -nan 2\n"));
    ASSERT_FAILS(gat_dataset_read(&ds, &files, &o), GAT_ENUMERIC,
                 "field 2 of node '1' is not finite");
    snprintf(f, sizeof f, "%s", tu_write(dir, "g.features", "0 0:1 3:2\n1 2:1e39\n"));
    ASSERT_FAILS(gat_dataset_read(&ds, &files, &o), GAT_ENUMERIC, "out of range");
    /* arrays from memory */
    const gat_real dense[4] = {1, 0, 0, (gat_real)INFINITY};
    ASSERT_FAILS(gat_csr_from_dense(&x, 2, 2, dense), GAT_ENUMERIC, "row 1, column 1");
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Finite features whose row sum nearly cancels would normalise to Inf: signed features are not
 * row-normalised by default, and an explicit request is an error naming the first negative one. */
START_TEST(normalization_overflow)
{
    char *dir = tu_tmpdir();
    gat_dataset ds;
    gat_dataset_options o;
    char base[4200];
    gat_dataset_options_default(&o);
    tu_write(dir, "d.content", "a 1 0 0 x\nb 1e30 -1e30 1e-10 y\n");
    tu_write(dir, "d.cites", "a b\n");
    snprintf(base, sizeof base, "%s/d", dir);
    o.ignore_split_file = 1;
    o.train_per_class = 1;
    o.n_val = 0;
    o.n_test = 0;
    ck_assert_int_eq(gat_dataset_load(&ds, base, &o), GAT_OK);
    ck_assert_int_eq(ds.normalized, 0);
    ck_assert_float_eq(ds.x.val[ds.x.rowptr[1]], 1e30f);
    gat_dataset_destroy(&ds);
    o.normalize = GAT_NORMALIZE_ON;
    ASSERT_FAILS(gat_dataset_load(&ds, base, &o), GAT_EINVAL,
                 "d.content has a negative feature: node 'b', column 1 is -1e+30 (the first one)");
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Features of 1e30 (not normalised) go through the softmax of the scores linear in the features
 * (gat, gatv2) and of gaussian: coefficients finite and summing to 1 per node and head, logits and
 * probabilities finite. The product scores (dot, scaled-dot, bilinear, cosine) multiply two such
 * values, 1e60, past float's range before any softmax, so they are not held to this. */
START_TEST(huge_features_softmax)
{
    const gat_idx n = 6, F = 4;
    const gat_idx src[] = {0, 1, 2, 3, 4, 0}, dst[] = {1, 2, 3, 4, 5, 5};
    gat_real dense[6 * 4];
    gat_graph g;
    gat_csr x;
    for (int k = 0; k < n * F; k++)
        dense[k] = (gat_real)((k % 3 ? 1 : -1) * 1e30 * (1 + k % 5));
    ck_assert_int_eq(gat_graph_from_edges(&g, n, 6, src, dst, GAT_GRAPH_SYMMETRIZE), GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(&x, n, F, dense), GAT_OK);
    const gat_score score[] = {GAT_SCORE_GAT, GAT_SCORE_GATV2, GAT_SCORE_GAUSSIAN};
    for (int s = 0; s < 3; s++) {
        gat_model_config mc;
        gat_model *m = NULL;
        const gat_real *logits, *alpha;
        gat_idx cls[6];
        gat_real prob[6];
        gat_model_config_default(&mc, F, 3);
        mc.score = score[s];
        ck_assert_int_eq(gat_model_create(&m, &mc, 1), GAT_OK);
        ck_assert_int_eq(gat_model_forward(m, &g, &x, 0, &logits), GAT_OK);
        for (int l = 0; l < 2; l++) {
            const int H = gat_model_layer_heads(m, l);
            ck_assert_int_eq(gat_model_attention(m, l, &alpha), GAT_OK);
            for (gat_idx i = 0; i < n; i++)
                for (int h = 0; h < H; h++) {
                    double sum = 0;
                    for (gat_idx e = g.rowptr[i]; e < g.rowptr[i + 1]; e++) {
                        ck_assert_msg(isfinite(alpha[(size_t)e * H + h]), "score %s: alpha %g",
                                      gat_score_name(score[s]), (double)alpha[(size_t)e * H + h]);
                        sum += alpha[(size_t)e * H + h];
                    }
                    ck_assert_msg(fabs(sum - 1) < 1e-4, "score %s layer %d node %d head %d: sum %g",
                                  gat_score_name(score[s]), l, i, h, sum);
                }
        }
        for (int k = 0; k < n * 3; k++)
            ck_assert_msg(isfinite(logits[k]), "score %s: logit %d is %g", gat_score_name(score[s]),
                          k, (double)logits[k]);
        ck_assert_int_eq(gat_model_predict(m, &g, &x, cls, prob), GAT_OK);
        for (gat_idx i = 0; i < n; i++)
            ck_assert(isfinite(prob[i]) && prob[i] > 0 && prob[i] <= 1);
        gat_model_free(m);
    }
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

/* A training that diverges stops with GAT_ENUMERIC and leaves the best (finite) model; features
 * of 3e38 overflow the first epoch's forward. */
START_TEST(divergence_keeps_finite_model)
{
    const gat_idx n = 6, F = 2;
    const gat_idx src[] = {0, 1, 2, 3, 4}, dst[] = {1, 2, 3, 4, 5};
    const gat_real dense[] = {3e38f, 3e38f, 1, 0, 3e38f, 1, 0, 1, 3e38f, 3e38f, 1, 1};
    const gat_idx labels[] = {0, 1, 0, 1, 0, 1};
    const uint8_t split[] = {1, 1, 2, 2, 3, 3};
    gat_graph g;
    gat_csr x;
    gat_dataset ds;
    gat_dataset_options o;
    gat_model_config mc;
    gat_model *m = NULL;
    gat_train_config tc;
    gat_train_result res;
    size_t P;
    ck_assert_int_eq(gat_graph_from_edges(&g, n, 5, src, dst, GAT_GRAPH_SYMMETRIZE), GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(&x, n, F, dense), GAT_OK);
    gat_dataset_parts parts = {
        .graph = &g, .features = &x, .labels = labels, .n_classes = 2, .split = split};
    gat_dataset_options_default(&o);
    o.normalize = 0;
    ck_assert_int_eq(gat_dataset_from_parts(&ds, &parts, &o), GAT_OK);
    gat_model_config_default(&mc, F, 2);
    ck_assert_int_eq(gat_model_create(&m, &mc, 1), GAT_OK);
    gat_train_config_default(&tc);
    tc.max_epochs = 50;
    tc.adam.lr = 10;
    gat_status st = gat_train(m, &ds, &tc, &res);
    ck_assert_int_eq(st, GAT_ENUMERIC);
    ck_assert_ptr_nonnull(strstr(gat_last_error(), "diverged"));
    const gat_real *p = gat_model_params(m, &P);
    for (size_t k = 0; k < P; k++)
        ck_assert(isfinite(p[k]));
    gat_model_free(m);
    gat_dataset_destroy(&ds);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("hardening");
    TCase *tc = tcase_create("hardening");
    tcase_add_test(tc, model_file_sizes_checked);
    tcase_add_test(tc, graph_file_counts_checked);
    tcase_add_test(tc, dimacs_header_counts_checked);
    tcase_add_test(tc, one_hot_vertex_count_bounded);
    tcase_add_test(tc, huge_model_config);
    tcase_add_test(tc, nan_features_everywhere);
    tcase_add_test(tc, normalization_overflow);
    tcase_add_test(tc, huge_features_softmax);
    tcase_add_test(tc, divergence_keeps_finite_model);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
