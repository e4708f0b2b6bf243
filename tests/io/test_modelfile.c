/* Model files and exports: save/load round trips bit for bit, every malformed-file case, atomic
 * replacement (a failed write leaves the old file), the matrix/attention/prediction writers, and
 * gat-embed against the library (GAT_EMBED names the tool). */
#include "testutil.h"
#include "core/core.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------------------------- */

/* A model with 5 inputs, 3 classes, the given layers, hidden 4, heads 2 (8 wide), out_heads
 * out_heads, and every parameter random (biases too, which creation leaves at zero). */
static gat_model *make_model(int layers, int out_heads, uint64_t seed)
{
    gat_model_config cfg;
    gat_model *m = NULL;
    size_t n;
    gat_model_config_default(&cfg, 5, 3);
    cfg.layers = layers;
    cfg.hidden = 4;
    cfg.heads = 2;
    cfg.out_heads = out_heads;
    cfg.negative_slope = 0.15;
    cfg.in_dropout = 0.25;
    cfg.att_dropout = 0.5;
    ck_assert_int_eq(gat_model_create(&m, &cfg, seed), GAT_OK);
    gat_real *p = gat_model_params(m, &n);
    tu_uniform(p, n, -1, 1, seed + 100);
    gat_model_set_threads(m, 1);
    return m;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    unsigned char *b = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            b = realloc(b, cap + 1);
            ck_assert_ptr_nonnull(b);
        }
        got = fread(b + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    b[n] = '\0';
    *len = n;
    return b;
}

static void spill(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static char *join(const char *dir, const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    ck_assert_ptr_nonnull(p);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* Number of entries in dir besides "." and "..". */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

#define ck_assert_error(call, status, fragment)                                                    \
    do {                                                                                           \
        const gat_status st_ = (call);                                                             \
        ck_assert_msg(st_ == (status), "%s: status %d (%s), expected %d", #call, st_,              \
                      gat_last_error(), (status));                                                 \
        ck_assert_msg(strstr(gat_last_error(), fragment) != NULL,                                  \
                      "%s: message \"%s\" lacks \"%s\"", #call, gat_last_error(), fragment);       \
    } while (0)

/* The small graph and features every model here runs on. */
typedef struct fixture {
    gat_graph g;
    gat_csr x;
} fixture;

static void fixture_init(fixture *f)
{
    tu_graph_small(&f->g, 0);
    tu_features(&f->x, f->g.n, 5, 0.4, 11);
}

static void fixture_destroy(fixture *f)
{
    gat_graph_destroy(&f->g);
    gat_csr_destroy(&f->x);
}

/* Every representation and every attention layer of a and b agree bit for bit. */
static void assert_same_outputs(gat_model *a, gat_model *b, const fixture *f)
{
    const int L = gat_model_layer_count(a);
    ck_assert_int_eq(gat_model_layer_count(b), L);
    for (int layer = GAT_LAYER_PROBS; layer < L; layer++) {
        const gat_idx w = gat_model_embed_width(a, layer);
        const size_t n = (size_t)f->g.n * (size_t)w;
        gat_real *ya = malloc(n * sizeof *ya), *yb = malloc(n * sizeof *yb);
        ck_assert(ya && yb && w > 0);
        ck_assert_int_eq(gat_model_embed(a, &f->g, &f->x, layer, ya), GAT_OK);
        ck_assert_int_eq(gat_model_embed(b, &f->g, &f->x, layer, yb), GAT_OK);
        ck_assert_msg(memcmp(ya, yb, n * sizeof *ya) == 0, "layer %d differs", layer);
        free(ya);
        free(yb);
    }
    for (int l = 0; l < L; l++) {
        const size_t n = (size_t)f->g.nnz * (size_t)gat_model_layer_heads(a, l);
        gat_real *aa = malloc(n * sizeof *aa), *ab = malloc(n * sizeof *ab);
        ck_assert(aa && ab);
        ck_assert_int_eq(gat_model_attention_copy(a, &f->g, &f->x, l, aa), GAT_OK);
        ck_assert_int_eq(gat_model_attention_copy(b, &f->g, &f->x, l, ab), GAT_OK);
        ck_assert_msg(memcmp(aa, ab, n * sizeof *aa) == 0, "attention of layer %d differs", l);
        free(aa);
        free(ab);
    }
}

/* ---- round trips ---------------------------------------------------------------------------- */

START_TEST(roundtrip_bit_identical)
{
    char *dir = tu_tmpdir(), *path = join(dir, "m.gat");
    const char *names[] = {"alpha", "b\"q,uote\\", "\xc3\xbcnicode"};
    gat_model_meta meta, got;
    gat_model *m = make_model(3, 2, 5), *r = NULL;
    fixture f;
    size_t n, nr;

    fixture_init(&f);
    gat_model_meta_init(&meta);
    meta.n_classes = 3;
    meta.class_names = names;
    meta.normalize = 0;
    meta.symmetrize = 0;
    meta.dataset = "some/where";
    meta.tu_features = GAT_TU_FEATURES_ATTRIBUTES;
    meta.largest_component = 1;
    meta.min_class_nodes = 51;
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&r, &got, path), GAT_OK);
    ck_assert_ptr_nonnull(r);

    const gat_model_config *a = gat_model_get_config(m), *b = gat_model_get_config(r);
    ck_assert_int_eq(a->in_features, b->in_features);
    ck_assert_int_eq(a->classes, b->classes);
    ck_assert_int_eq(a->layers, b->layers);
    ck_assert_int_eq(a->hidden, b->hidden);
    ck_assert_int_eq(a->heads, b->heads);
    ck_assert_int_eq(a->out_heads, b->out_heads);
    ck_assert(a->negative_slope == b->negative_slope);
    ck_assert(a->in_dropout == b->in_dropout && a->att_dropout == b->att_dropout);
    ck_assert_int_eq(a->score, b->score);
    const gat_real *pa = gat_model_params(m, &n), *pb = gat_model_params(r, &nr);
    ck_assert_uint_eq(n, nr);
    ck_assert(memcmp(pa, pb, n * sizeof *pa) == 0);

    ck_assert_int_eq(got.n_classes, 3);
    for (int c = 0; c < 3; c++)
        ck_assert_str_eq(got.class_names[c], names[c]);
    ck_assert_int_eq(got.normalize, 0);
    ck_assert_int_eq(got.symmetrize, 0);
    ck_assert_str_eq(got.dataset, "some/where");
    ck_assert_int_eq(got.tu_features, GAT_TU_FEATURES_ATTRIBUTES);
    ck_assert_int_eq(got.largest_component, 1);
    ck_assert_int_eq(got.min_class_nodes, 51);
    ck_assert_str_eq(got.version, gat_version());

    gat_model_set_threads(r, 1);
    assert_same_outputs(m, r, &f);

    /* saving the loaded model again gives the same bytes */
    char *again = join(dir, "again.gat");
    size_t l1, l2;
    ck_assert_int_eq(gat_model_save(r, &got, again), GAT_OK);
    unsigned char *b1 = slurp(path, &l1), *b2 = slurp(again, &l2);
    ck_assert_uint_eq(l1, l2);
    ck_assert(memcmp(b1, b2, l1) == 0);
    ck_assert_uint_eq(l1 % 8, 4 * n % 8); /* the data starts 8-byte aligned */

    free(b1);
    free(b2);
    free(again);
    gat_model_meta_destroy(&got);
    ck_assert_ptr_null(got.class_names);
    gat_model_meta_destroy(&got); /* twice is fine */
    gat_model_free(m);
    gat_model_free(r);
    fixture_destroy(&f);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

START_TEST(roundtrip_defaults_and_one_layer)
{
    char *dir = tu_tmpdir(), *path = join(dir, "one.gat");
    gat_model *m = make_model(1, 3, 9), *r = NULL;
    gat_model_meta got;
    fixture f;

    fixture_init(&f);
    ck_assert_int_eq(gat_model_save(m, NULL, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&r, &got, path), GAT_OK);
    ck_assert_int_eq(got.n_classes, 0);
    ck_assert_ptr_null(got.class_names);
    ck_assert_ptr_null(got.dataset);
    ck_assert_int_eq(got.normalize, 1);
    ck_assert_int_eq(got.symmetrize, 1);
    gat_model_set_threads(r, 1);
    assert_same_outputs(m, r, &f);
    gat_model_free(r);
    /* meta may be NULL on load too */
    ck_assert_int_eq(gat_model_load(&r, NULL, path), GAT_OK);
    gat_model_meta_destroy(&got);
    gat_model_free(m);
    gat_model_free(r);
    fixture_destroy(&f);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

START_TEST(roundtrip_every_score)
{
    char *dir = tu_tmpdir(), *path = join(dir, "s.gat");
    fixture f;
    fixture_init(&f);
    for (int s = 0; s < GAT_SCORE_COUNT; s++) {
        gat_model_config cfg;
        gat_model *m = NULL, *r = NULL;
        size_t n, nr;
        gat_model_config_default(&cfg, 5, 3);
        cfg.layers = 3;
        cfg.hidden = 4;
        cfg.heads = 2;
        cfg.hidden_heads[1] = 3;
        cfg.residual = s % 2;
        cfg.score = (gat_score)s;
        ck_assert_int_eq(gat_model_create(&m, &cfg, 40 + (uint64_t)s), GAT_OK);
        gat_real *p = gat_model_params(m, &n);
        tu_uniform(p, n, -0.5, 0.5, 50 + (uint64_t)s);
        gat_model_set_threads(m, 1);
        ck_assert_int_eq(gat_model_save(m, NULL, path), GAT_OK);
        ck_assert_msg(gat_model_load(&r, NULL, path) == GAT_OK, "score %s: %s",
                      gat_score_name((gat_score)s), gat_last_error());
        const gat_model_config *c = gat_model_get_config(r);
        ck_assert_int_eq(c->score, s);
        ck_assert_int_eq(c->residual, s % 2);
        ck_assert_int_eq(c->hidden_heads[0], 0);
        ck_assert_int_eq(c->hidden_heads[1], 3);
        ck_assert_int_eq(gat_model_layer_heads(r, 1), 3);
        const gat_real *q = gat_model_params(r, &nr);
        ck_assert_uint_eq(n, nr);
        ck_assert(memcmp(p, q, n * sizeof *p) == 0);
        gat_model_set_threads(r, 1);
        assert_same_outputs(m, r, &f);
        gat_model_free(m);
        gat_model_free(r);
    }
    fixture_destroy(&f);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

/* edge_dim is recorded ("edge_dim":"3"), and the loaded model has the edge term's tensors and
 * values and computes the same logits on the same edge features; a model without edge features
 * records "0". */
START_TEST(roundtrip_edge_dim)
{
    char *dir = tu_tmpdir(), *path = join(dir, "e.gat");
    fixture f;
    fixture_init(&f);
    gat_model_config cfg;
    gat_model *m = NULL, *r = NULL;
    size_t n, nr;
    gat_model_config_default(&cfg, 5, 3);
    cfg.heads = 2;
    cfg.hidden = 4;
    cfg.edge_dim = 3;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 60), GAT_OK);
    gat_real *p = gat_model_params(m, &n);
    tu_uniform(p, n, -0.5, 0.5, 61);
    ck_assert_int_eq(gat_model_save(m, NULL, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&r, NULL, path), GAT_OK);
    ck_assert_int_eq(gat_model_get_config(r)->edge_dim, 3);
    const gat_real *q = gat_model_params(r, &nr);
    ck_assert_uint_eq(n, nr);
    ck_assert(memcmp(p, q, n * sizeof *p) == 0);
    int nt = 0;
    const gat_model_tensor *t = gat_model_tensors(r, &nt);
    ck_assert_str_eq(t[nt - 2].name, "layer1.weight_edge");
    ck_assert_str_eq(t[nt - 1].name, "layer1.att_edge");
    {
        FILE *fp = fopen(path, "rb");
        char head[4096] = {0};
        ck_assert_ptr_nonnull(fp);
        ck_assert_uint_gt(fread(head, 1, sizeof head - 1, fp), 8);
        fclose(fp);
        ck_assert_ptr_nonnull(strstr(head + 8, "\"edge_dim\":\"3\""));
    }
    const size_t ne = (size_t)f.g.nnz * 3;
    gat_real *ex = malloc(ne * sizeof *ex);
    ck_assert_ptr_nonnull(ex);
    tu_uniform(ex, ne, -1, 1, 62);
    gat_model *both[2] = {m, r};
    gat_real *out[2];
    for (int k = 0; k < 2; k++) {
        const gat_real *logits;
        gat_model_set_threads(both[k], 1);
        ck_assert_int_eq(gat_model_bind(both[k], &f.g, &f.x, 0), GAT_OK);
        ck_assert_int_eq(gat_model_bind_edge_features(both[k], ex, 3), GAT_OK);
        ck_assert_int_eq(gat_model_forward(both[k], &f.g, &f.x, 0, &logits), GAT_OK);
        out[k] = malloc((size_t)f.g.n * 3 * sizeof *out[k]);
        ck_assert_ptr_nonnull(out[k]);
        memcpy(out[k], logits, (size_t)f.g.n * 3 * sizeof *logits);
    }
    ck_assert(memcmp(out[0], out[1], (size_t)f.g.n * 3 * sizeof *out[0]) == 0);
    free(out[0]);
    free(out[1]);
    free(ex);
    gat_model_free(m);
    gat_model_free(r);
    /* without edge features: "0", and the model as before */
    cfg.edge_dim = 0;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 60), GAT_OK);
    ck_assert_int_eq(gat_model_save(m, NULL, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&r, NULL, path), GAT_OK);
    ck_assert_int_eq(gat_model_get_config(r)->edge_dim, 0);
    assert_same_outputs(m, r, &f);
    gat_model_free(m);
    gat_model_free(r);
    fixture_destroy(&f);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

/* The reference code's dropout placement is recorded when used ("head_dropout":"1",
 * "proj_dropout") and read back, as are score biases and whole-row scores; a model without them
 * records none (its file as before). */
START_TEST(roundtrip_dropout_placement)
{
    char *dir = tu_tmpdir(), *path = join(dir, "d.gat");
    gat_model_config cfg;
    gat_model *m = NULL, *r = NULL;
    gat_model_config_default(&cfg, 5, 3);
    cfg.head_dropout = 1;
    cfg.proj_dropout = 0.25;
    cfg.score_bias = 1;
    cfg.whole_scores = 1;
    for (int used = 1; used >= 0; used--) {
        ck_assert_int_eq(gat_model_create(&m, &cfg, 70), GAT_OK);
        size_t n = 0;
        gat_real *p = gat_model_params(m, &n);
        for (size_t k = 0; k < n; k++)
            p[k] = (gat_real)(0.01 * (double)(k % 7));
        ck_assert_int_eq(gat_model_save(m, NULL, path), GAT_OK);
        ck_assert_int_eq(gat_model_load(&r, NULL, path), GAT_OK);
        ck_assert_int_eq(gat_model_get_config(r)->head_dropout, cfg.head_dropout);
        ck_assert(gat_model_get_config(r)->proj_dropout == cfg.proj_dropout);
        ck_assert_int_eq(gat_model_get_config(r)->score_bias, cfg.score_bias);
        ck_assert_int_eq(gat_model_get_config(r)->whole_scores, cfg.whole_scores);
        size_t nr = 0;
        ck_assert_mem_eq(gat_model_params(r, &nr), p, n * sizeof *p);
        ck_assert_uint_eq(nr, n);
        FILE *fp = fopen(path, "rb");
        char head[4096] = {0};
        ck_assert_ptr_nonnull(fp);
        ck_assert_uint_gt(fread(head, 1, sizeof head - 1, fp), 8);
        fclose(fp);
        ck_assert_int_eq(strstr(head + 8, "\"head_dropout\":\"1\"") != NULL, used);
        ck_assert_int_eq(strstr(head + 8, "\"proj_dropout\":") != NULL, used);
        ck_assert_int_eq(strstr(head + 8, "\"score_bias\":\"1\"") != NULL, used);
        ck_assert_int_eq(strstr(head + 8, "\"layer1.att_bias\":") != NULL, used);
        ck_assert_int_eq(strstr(head + 8, "\"whole_scores\":\"1\"") != NULL, used);
        /* 8 heads of 8 in the hidden layer: each head's vectors over the whole 64-wide row */
        ck_assert_int_eq(
            strstr(head + 8, "\"layer0.att_src\":{\"dtype\":\"F32\",\"shape\":[8,64]") != NULL,
            used);
        gat_model_free(m);
        gat_model_free(r);
        cfg.head_dropout = 0;
        cfg.proj_dropout = 0;
        cfg.score_bias = 0;
        cfg.whole_scores = 0;
    }
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

/* The features' standardisation (gat_model_meta.feature_shift / feature_scale): bit for bit
 * through a file, absent from files without it, refused on save when out of range or not
 * finite, and on load when the pair is broken or a value is not a finite number. */
START_TEST(roundtrip_standardization)
{
    char *dir = tu_tmpdir(), *path = join(dir, "s.gat");
    gat_model *m = make_model(2, 1, 8), *r = NULL;
    const gat_real shift[] = {0.1f, -7.25f, 1e-9f}, scale[] = {3.3f, 1, 0.0625f};
    gat_model_meta meta, got;
    gat_model_meta_init(&meta);
    ck_assert_int_eq(meta.n_standardized, 0);
    meta.n_standardized = 3;
    meta.feature_shift = shift;
    meta.feature_scale = scale;
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&r, &got, path), GAT_OK);
    ck_assert_int_eq(got.n_standardized, 3);
    ck_assert_mem_eq(got.feature_shift, shift, sizeof shift);
    ck_assert_mem_eq(got.feature_scale, scale, sizeof scale);
    gat_model_meta_destroy(&got);
    ck_assert_ptr_null(got.feature_shift);
    gat_model_free(r);
    /* without: nothing in the file, nothing loaded */
    meta.n_standardized = 0;
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&r, &got, path), GAT_OK);
    ck_assert_int_eq(got.n_standardized, 0);
    ck_assert_ptr_null(got.feature_shift);
    ck_assert_ptr_null(got.feature_scale);
    gat_model_meta_destroy(&got);
    gat_model_free(r);
    size_t len;
    unsigned char *b = slurp(path, &len);
    ck_assert_ptr_null(strstr((char *)b + 8, "feature_"));
    free(b);
    /* save errors: the old file stays */
    meta.n_standardized = 6;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL,
                    "n_standardized is 6, the model has 5 input features");
    meta.n_standardized = 3;
    meta.feature_scale = NULL;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL, "meta feature_scale is NULL");
    const gat_real inf[] = {1, INFINITY, 1};
    meta.feature_scale = inf;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL,
                    "feature column 1: shift -7.25, scale inf (not finite)");
    ck_assert_int_eq(gat_model_load(&r, NULL, path), GAT_OK);
    gat_model_free(r);
    gat_model_free(m);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

/* ---- graph transformers (gat_gps_save, gat_gps_load) ------------------------------------- */

/* A graph transformer of kind k on the fixture's 5 features, 3 classes: dim 8, 2 heads, 2
 * layers; graph: the attention readout with 2 heads and one classifier layer; gat-bn its last
 * layer of one head and the residual; whole: every head's scores from the whole row and
 * PyTorch's initial values. One training forward moves gat-bn's running statistics. */
static gat_gps *make_gps_scores(gat_gps_kind k, gat_task task, const fixture *f, uint64_t seed,
                                int whole)
{
    gat_gps_config c;
    gat_gps *m = NULL;
    gat_gps_config_default(&c, 5, 3);
    c.kind = k, c.task = task, c.dim = 8, c.heads = 2, c.layers = 2;
    c.dropout = 0.25, c.att_dropout = 0.125, c.negative_slope = 0.3;
    if (k == GAT_GPS_BN) c.last_heads = 1, c.residual = 1;
    if (task == GAT_TASK_GRAPH) c.readout = GAT_READOUT_ATTENTION, c.readout_heads = 2;
    if (task == GAT_TASK_GRAPH) c.classifier_layers = 1;
    c.whole_scores = whole, c.linear_init = whole;
    ck_assert_int_eq(gat_gps_create(&m, &c, seed), GAT_OK);
    gat_gps_set_threads(m, 1);
    const gat_idx seg[2] = {0, f->g.n};
    const gat_real *y;
    ck_assert_int_eq(gat_gps_forward(m, &f->g, &f->x, 1, seg, 1, &y), GAT_OK);
    return m;
}

static gat_gps *make_gps(gat_gps_kind k, gat_task task, const fixture *f, uint64_t seed)
{
    return make_gps_scores(k, task, f, seed, 0);
}

START_TEST(roundtrip_gps)
{
    char *dir = tu_tmpdir(), *path = join(dir, "t.gat");
    const char *names[] = {"a", "b", "c"};
    const gat_real shift[] = {1, 2}, scale[] = {0.5f, 4};
    fixture f;
    fixture_init(&f);
    const gat_idx seg[2] = {0, f.g.n};
    for (int k = 0; k < GAT_GPS_KIND_COUNT; k++)
        for (int task = 0; task < 4; task++) {
            const gat_task tk = task % 2 ? GAT_TASK_GRAPH : GAT_TASK_NODE;
            const int whole = task / 2; /* the transformer has no GAT term */
            if (whole && k == GAT_GPS_GLOBAL) continue;
            gat_gps *m = make_gps_scores((gat_gps_kind)k, tk, &f, 30 + (uint64_t)k, whole),
                    *r = NULL;
            gat_model_meta meta, got;
            gat_model_meta_init(&meta);
            meta.n_classes = 3, meta.class_names = names, meta.dataset = "some/where";
            meta.normalize = 0, meta.tu_features = GAT_TU_FEATURES_LABELS;
            meta.n_standardized = 2, meta.feature_shift = shift, meta.feature_scale = scale;
            meta.min_class_nodes = k + task; /* 0 (not written) too */
            ck_assert_int_eq(gat_gps_save(m, &meta, path), GAT_OK);
            int gps = 0;
            ck_assert_int_eq(gat_model_file_is_gps(path, &gps), GAT_OK);
            ck_assert_int_eq(gps, 1);
            ck_assert_int_eq(gat_gps_load(&r, &got, path), GAT_OK);
            const gat_gps_config *ca = gat_gps_get_config(m), *cb = gat_gps_get_config(r);
            ck_assert(ca->in_features == cb->in_features && ca->classes == cb->classes &&
                      ca->task == cb->task && ca->readout == cb->readout && ca->kind == cb->kind &&
                      ca->dim == cb->dim && ca->layers == cb->layers && ca->heads == cb->heads &&
                      ca->dropout == cb->dropout && ca->att_dropout == cb->att_dropout &&
                      ca->negative_slope == cb->negative_slope && ca->anchors == cb->anchors &&
                      ca->last_heads == cb->last_heads && ca->residual == cb->residual &&
                      ca->classifier_layers == cb->classifier_layers &&
                      ca->readout_heads == cb->readout_heads &&
                      ca->readout_hidden == cb->readout_hidden &&
                      ca->whole_scores == cb->whole_scores && ca->linear_init == cb->linear_init);
            size_t na, nb;
            const gat_real *pa = gat_gps_params(m, &na), *pb = gat_gps_params(r, &nb);
            ck_assert_uint_eq(na, nb);
            ck_assert_msg(memcmp(pa, pb, na * sizeof *pa) == 0, "kind %d task %d: parameters", k,
                          task);
            ck_assert_int_eq(got.n_classes, 3);
            ck_assert_str_eq(got.class_names[2], "c");
            ck_assert_str_eq(got.dataset, "some/where");
            ck_assert_int_eq(got.normalize, 0);
            ck_assert_int_eq(got.symmetrize, 1);
            ck_assert_int_eq(got.tu_features, GAT_TU_FEATURES_LABELS);
            ck_assert_int_eq(got.min_class_nodes, k + task);
            ck_assert_int_eq(got.largest_component, 0);
            ck_assert_int_eq(got.n_standardized, 2);
            ck_assert_mem_eq(got.feature_scale, scale, sizeof scale);
            /* the same inference: logits bit for bit */
            const gat_real *ya, *yb;
            const size_t ny = (size_t)(tk == GAT_TASK_GRAPH ? 1 : f.g.n) * 3;
            gat_gps_set_threads(r, 1);
            ck_assert_int_eq(gat_gps_forward(m, &f.g, &f.x, 1, seg, 0, &ya), GAT_OK);
            gat_real *keep = malloc(ny * sizeof *keep);
            ck_assert_ptr_nonnull(keep);
            memcpy(keep, ya, ny * sizeof *keep);
            ck_assert_int_eq(gat_gps_forward(r, &f.g, &f.x, 1, seg, 0, &yb), GAT_OK);
            ck_assert_msg(memcmp(keep, yb, ny * sizeof *yb) == 0, "kind %d task %d: logits", k,
                          task);
            free(keep);
            /* each loader refuses the other's files */
            gat_model *g = (gat_model *)1;
            ck_assert_error(gat_model_load(&g, NULL, path), GAT_EFORMAT,
                            "holds a graph transformer (gat-train --arch): gat_gps_load reads it");
            ck_assert_ptr_null(g);
            gat_model_meta_destroy(&got);
            gat_gps_free(r);
            gat_gps_free(m);
        }
    gat_model *g = make_model(2, 1, 5);
    gat_gps *r = (gat_gps *)1;
    ck_assert_int_eq(gat_model_save(g, NULL, path), GAT_OK);
    ck_assert_error(gat_gps_load(&r, NULL, path), GAT_EFORMAT,
                    "holds a GAT model: gat_model_load reads it");
    ck_assert_ptr_null(r);
    int gps = -1;
    ck_assert_int_eq(gat_model_file_is_gps(path, &gps), GAT_OK);
    ck_assert_int_eq(gps, 0);
    ck_assert_error(gat_model_file_is_gps(NULL, &gps), GAT_EINVAL,
                    "gat_model_file_is_gps: NULL path");
    ck_assert_error(gat_model_file_is_gps(path, NULL), GAT_EINVAL,
                    "gat_model_file_is_gps: NULL gps");
    char *none = join(dir, "none.gat");
    ck_assert_int_eq(gat_model_file_is_gps(none, &gps), GAT_EIO);
    free(none);
    gat_model_free(g);
    fixture_destroy(&f);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

/* path's bytes with the first `from` in the header replaced by `to`, the header's length
 * adjusted, written to out */
static void rewrite(const char *path, const char *from, const char *to, const char *out)
{
    size_t len;
    unsigned char *b = slurp(path, &len);
    const size_t n = strlen(from), m = strlen(to);
    size_t at = 8;
    while (at + n <= len && memcmp(b + at, from, n) != 0)
        at++;
    ck_assert_msg(at + n <= len, "\"%s\" not in %s", from, path);
    unsigned char *c = malloc(len - n + m);
    ck_assert_ptr_nonnull(c);
    memcpy(c, b, at);
    memcpy(c + at, to, m);
    memcpy(c + at + m, b + at + n, len - at - n);
    uint64_t h = 0;
    for (int k = 7; k >= 0; k--)
        h = h << 8 | b[k];
    h = h - n + m;
    for (int k = 0; k < 8; k++)
        c[k] = (unsigned char)(h >> (8 * k));
    spill(out, c, len - n + m);
    free(c);
    free(b);
}

START_TEST(bad_gps_files)
{
    char *dir = tu_tmpdir(), *path = join(dir, "t.gat"), *bad = join(dir, "bad.gat");
    const char *two[] = {"a", "b"};
    fixture f;
    fixture_init(&f);
    gat_gps *m = make_gps(GAT_GPS_BN, GAT_TASK_GRAPH, &f, 3), *r = (gat_gps *)1;
    gat_model_meta meta;
    gat_model_meta_init(&meta);
    ck_assert_error(gat_gps_save(NULL, NULL, path), GAT_EINVAL, "gat_gps_save: NULL model m");
    meta.n_classes = 2, meta.class_names = two;
    ck_assert_error(gat_gps_save(m, &meta, path), GAT_EINVAL,
                    "gat_gps_save: meta names 2 classes but the model has 3");
    meta.n_classes = 0, meta.n_standardized = 6;
    ck_assert_error(gat_gps_save(m, &meta, path), GAT_EINVAL,
                    "gat_gps_save: meta n_standardized is 6, the model has 5 input features");
    ck_assert_int_eq(access(path, F_OK), -1); /* nothing written */
    ck_assert_int_eq(gat_gps_save(m, NULL, path), GAT_OK);
    /* the header's values */
    static const struct {
        const char *from, *to, *msg;
    } cases[] = {
        {"\"model\":\"gps\"", "\"model\":\"gpx\"", "\"model\" is \"gpx\" (libgat "},
        {"\"kind\":\"gat-bn\"", "\"kind\":\"gat-bx\"", "__metadata__ \"kind\": "},
        {"\"task\":\"graph\"", "\"task\":\"grape\"",
         "\"task\" is \"grape\" (expected node or graph)"},
        {"\"readout\":\"attention\"", "\"readout\":\"attentiox\"", "\"readout\" is \"attentiox\""},
        {"\"layers\":\"2\"", "\"layers\":\"0\"", "\"layers\""},
        {"\"dim\":\"8\"", "\"dim\":\"7\"", "describes an invalid model"},
        {"\"dropout\":\"0.25\"", "\"dropout\":\"0.2x\"", "not a finite number"},
        {"input.weight", "input.weighx",
         "unexpected tensor \"input.weighx\": the configuration "
         "in __metadata__ (kind gat-bn, 2 layers)"},
        {"\"in_features\":\"5\"", "\"in_features\":\"50000000\"",
         "needs at least 400000131 parameters (1600000524 bytes as F32) but the data section "
         "holds"},
        {"\"classes\":\"3\"", "\"classes\":\"2000000000\"", "needs at least 2000000168 "},
        {"\"residual\":\"1\"", "\"residual\":\"1\",\"whole_scores\":\"2\"", "\"whole_scores\""},
        {"\"residual\":\"1\"", "\"residual\":\"1\",\"whole_scores\":\"1\"", "layer0.gat.att_src"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        rewrite(path, cases[c].from, cases[c].to, bad);
        ck_assert_error(gat_gps_load(&r, NULL, bad), GAT_EFORMAT, cases[c].msg);
        ck_assert_ptr_null(r);
    }
    /* a truncated file */
    size_t len;
    unsigned char *b = slurp(path, &len);
    spill(bad, b, len - 4);
    free(b);
    ck_assert_error(gat_gps_load(&r, NULL, bad), GAT_EFORMAT, "bad.gat");
    ck_assert_error(gat_gps_load(NULL, NULL, path), GAT_EINVAL, "gat_gps_load: NULL out");
    gat_gps_free(m);
    fixture_destroy(&f);
    tu_rmtree(dir);
    free(path);
    free(bad);
    free(dir);
}
END_TEST

START_TEST(embed_values)
{
    gat_model *m = make_model(2, 1, 3);
    fixture f;
    fixture_init(&f);
    const gat_idx N = f.g.n, C = 3;
    gat_real *logits = malloc((size_t)N * C * sizeof *logits);
    gat_real *probs = malloc((size_t)N * C * sizeof *probs);
    const gat_real *fw;
    ck_assert_int_eq(gat_model_embed_width(m, 0), 8);
    ck_assert_int_eq(gat_model_embed_width(m, 1), 3);
    ck_assert_int_eq(gat_model_embed_width(m, GAT_LAYER_LOGITS), 3);
    ck_assert_int_eq(gat_model_embed_width(m, GAT_LAYER_PROBS), 3);
    ck_assert_int_eq(gat_model_embed_width(m, 2), -1);
    ck_assert_int_eq(gat_model_embed_width(m, -3), -1);
    ck_assert_int_eq(gat_model_embed(m, &f.g, &f.x, GAT_LAYER_LOGITS, logits), GAT_OK);
    ck_assert_int_eq(gat_model_embed(m, &f.g, &f.x, GAT_LAYER_PROBS, probs), GAT_OK);
    /* the logits are those of an inference forward */
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &fw), GAT_OK);
    ck_assert(memcmp(fw, logits, (size_t)N * C * sizeof *fw) == 0);
    for (gat_idx i = 0; i < N; i++) {
        double s = 0, z = 0;
        for (gat_idx c = 0; c < C; c++)
            z += exp(logits[i * C + c]);
        for (gat_idx c = 0; c < C; c++) {
            s += probs[i * C + c];
            ck_assert_double_eq_tol(probs[i * C + c], exp(logits[i * C + c]) / z, 1e-6);
        }
        ck_assert_double_eq_tol(s, 1, 1e-6);
    }
    /* attention: per node and head the coefficients sum to 1 */
    for (int l = 0; l < 2; l++) {
        const int H = gat_model_layer_heads(m, l);
        gat_real *a = malloc((size_t)f.g.nnz * H * sizeof *a);
        ck_assert_int_eq(gat_model_attention_copy(m, &f.g, &f.x, l, a), GAT_OK);
        for (gat_idx i = 0; i < N; i++)
            for (int h = 0; h < H; h++) {
                double s = 0;
                for (gat_idx e = f.g.rowptr[i]; e < f.g.rowptr[i + 1]; e++)
                    s += a[e * H + h];
                ck_assert_double_eq_tol(s, 1, 1e-5);
            }
        free(a);
    }
    free(logits);
    free(probs);
    gat_model_free(m);
    fixture_destroy(&f);
}
END_TEST

START_TEST(embed_errors)
{
    gat_model *m = make_model(2, 1, 3);
    fixture f;
    gat_csr x4;
    gat_real buf[1024];
    fixture_init(&f);
    tu_features(&x4, f.g.n, 4, 0.5, 2);
    ck_assert_error(gat_model_embed(m, &f.g, &f.x, 2, buf), GAT_EINVAL, "no layer 2");
    ck_assert_error(gat_model_embed(m, &f.g, &f.x, -3, buf), GAT_EINVAL, "no layer -3");
    ck_assert_error(gat_model_embed(m, &f.g, &f.x, 0, NULL), GAT_EINVAL, "NULL");
    ck_assert_error(gat_model_embed(NULL, &f.g, &f.x, 0, buf), GAT_EINVAL, "NULL");
    ck_assert_error(gat_model_embed(m, &f.g, &x4, 0, buf), GAT_EDIM, "4 columns");
    ck_assert_error(gat_model_attention_copy(m, &f.g, &f.x, 2, buf), GAT_EINVAL, "no layer 2");
    ck_assert_error(gat_model_attention_copy(m, NULL, &f.x, 0, buf), GAT_EINVAL, "NULL");
    gat_csr_destroy(&x4);
    gat_model_free(m);
    fixture_destroy(&f);
}
END_TEST

/* ---- save errors ---------------------------------------------------------------------------- */

START_TEST(save_errors)
{
    char *dir = tu_tmpdir(), *path = join(dir, "m.gat");
    gat_model *m = make_model(2, 1, 3), *r = (gat_model *)1;
    gat_model_meta meta, got;
    const char *names[] = {"a", "b", "c"}, *bad[] = {"a", "\xff", "c"};
    size_t n;

    gat_model_meta_init(&meta);
    ck_assert_error(gat_model_save(NULL, NULL, path), GAT_EINVAL, "NULL");
    ck_assert_error(gat_model_save(m, NULL, NULL), GAT_EINVAL, "NULL");
    meta.n_classes = 2;
    meta.class_names = names;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL,
                    "names 2 classes but the model has 3");
    meta.n_classes = 3;
    meta.class_names = bad;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL, "class name 1 is not valid UTF-8");
    meta.class_names = NULL;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL, "class_names is NULL");
    meta.n_classes = 0;
    meta.tu_features = 3;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL,
                    "meta tu_features is 3, not a GAT_TU_FEATURES_* value");
    meta.tu_features = GAT_TU_FEATURES_ALL;
    meta.largest_component = 2;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL,
                    "meta largest_component is 2, expected 0 or 1");
    meta.largest_component = 0;
    meta.min_class_nodes = -1;
    ck_assert_error(gat_model_save(m, &meta, path), GAT_EINVAL,
                    "meta min_class_nodes is -1, negative");
    meta.min_class_nodes = 0;
    ck_assert_error(gat_model_save(m, NULL, ""), GAT_EINVAL, "output path is empty");
    ck_assert_error(gat_model_save(m, NULL, "/tmp/"), GAT_EINVAL, "names a directory");
    gat_model_params(m, &n)[n - 1] = (gat_real)NAN;
    ck_assert_error(gat_model_save(m, NULL, path), GAT_ENUMERIC,
                    "layer1.bias holds nan at index 2");
    ck_assert_int_eq(access(path, F_OK), -1); /* nothing was created */

    ck_assert_error(gat_model_load(NULL, NULL, path), GAT_EINVAL, "NULL");
    ck_assert_error(gat_model_load(&r, &got, NULL), GAT_EINVAL, "NULL");
    ck_assert_ptr_null(r);
    ck_assert_ptr_null(got.class_names);
    ck_assert_error(gat_model_load(&r, &got, path), GAT_EIO, "No such file");
    ck_assert_error(gat_model_load(&r, &got, dir), GAT_EIO, "is a directory");
    gat_model_free(m);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

/* ---- malformed files ------------------------------------------------------------------------ */

/* A good 2-layer file (in 5, hidden 4 x 2 heads, 3 classes), split into its JSON and its data:
 * tensors layer0.weight [5,8] bytes [0,160], att_src/att_dst [2,4] [160,192]/[192,224], bias [8]
 * [224,256], layer1.weight [8,3] [256,352], att_src/att_dst [1,3] [352,364]/[364,376],
 * bias [3] [376,388]. */
typedef struct good_file {
    char *dir;
    unsigned char *bytes;
    size_t len;
    char *json;     /* the header without its padding */
    size_t data_at; /* offset of the data */
} good_file;

static void good_file_init(good_file *gf)
{
    const char *names[] = {"x", "y", "z"};
    gat_model_meta meta;
    gat_model *m = make_model(2, 1, 4);
    gf->dir = tu_tmpdir();
    char *path = join(gf->dir, "good.gat");
    gat_model_meta_init(&meta);
    meta.n_classes = 3;
    meta.class_names = names;
    meta.dataset = "ds";
    ck_assert_int_eq(gat_model_save(m, &meta, path), GAT_OK);
    gat_model_free(m);
    gf->bytes = slurp(path, &gf->len);
    uint64_t h = 0;
    for (int b = 7; b >= 0; b--)
        h = h << 8 | gf->bytes[b];
    gf->data_at = 8 + (size_t)h;
    ck_assert_uint_eq(gf->len, gf->data_at + 388);
    gf->json = strndup((const char *)gf->bytes + 8, (size_t)h);
    ck_assert_ptr_nonnull(gf->json);
    for (size_t k = strlen(gf->json); k > 0 && gf->json[k - 1] == ' '; k--)
        gf->json[k - 1] = '\0';
    free(path);
}

static void good_file_destroy(good_file *gf)
{
    tu_rmtree(gf->dir);
    free(gf->dir);
    free(gf->bytes);
    free(gf->json);
}

/* Writes a file made of header json and the good file's data to dir/bad.gat; returns its path
 * (static). */
static const char *write_with_header(const good_file *gf, const char *json)
{
    static char path[4200];
    const size_t jl = strlen(json), dl = gf->len - gf->data_at;
    unsigned char *b = malloc(8 + jl + dl);
    ck_assert_ptr_nonnull(b);
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)((uint64_t)jl >> (8 * k));
    memcpy(b + 8, json, jl);
    memcpy(b + 8 + jl, gf->bytes + gf->data_at, dl);
    snprintf(path, sizeof path, "%s/bad.gat", gf->dir);
    spill(path, b, 8 + jl + dl);
    free(b);
    return path;
}

/* The good header with the first `from` replaced by `to`, written as dir/bad.gat. */
static const char *edit(const good_file *gf, const char *from, const char *to)
{
    const char *at = strstr(gf->json, from);
    ck_assert_msg(at != NULL, "\"%s\" not in the header %s", from, gf->json);
    const size_t pre = (size_t)(at - gf->json);
    char *j = malloc(strlen(gf->json) + strlen(to) + 1);
    ck_assert_ptr_nonnull(j);
    memcpy(j, gf->json, pre);
    strcpy(j + pre, to);
    strcat(j, at + strlen(from));
    const char *path = write_with_header(gf, j);
    free(j);
    return path;
}

/* The good file with bytes [at, at + n) replaced by p, written as dir/bad.gat. */
static const char *patch(const good_file *gf, size_t at, const void *p, size_t n)
{
    static char path[4200];
    unsigned char *b = malloc(gf->len);
    ck_assert_ptr_nonnull(b);
    memcpy(b, gf->bytes, gf->len);
    memcpy(b + at, p, n);
    snprintf(path, sizeof path, "%s/bad.gat", gf->dir);
    spill(path, b, gf->len);
    free(b);
    return path;
}

static const char *truncated(const good_file *gf, size_t len)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/bad.gat", gf->dir);
    spill(path, gf->bytes, len);
    return path;
}

/* Loading path fails with status and a message holding fragment, and leaves outputs empty. */
static void assert_rejected(const char *path, gat_status status, const char *fragment)
{
    gat_model *m = (gat_model *)1;
    gat_model_meta meta;
    ck_assert_error(gat_model_load(&m, &meta, path), status, fragment);
    ck_assert_ptr_null(m);
    ck_assert_ptr_null(meta.class_names);
    ck_assert_ptr_null(meta.dataset);
    ck_assert_ptr_null(meta.version);
}

START_TEST(bad_truncated)
{
    good_file gf;
    good_file_init(&gf);
    assert_rejected(truncated(&gf, 0), GAT_EFORMAT, "0 bytes, too short");
    assert_rejected(truncated(&gf, 7), GAT_EFORMAT, "7 bytes, too short");
    assert_rejected(truncated(&gf, 8), GAT_EFORMAT, "runs past the end of the file (8 bytes)");
    assert_rejected(truncated(&gf, gf.data_at / 2), GAT_EFORMAT, "runs past the end of the file");
    assert_rejected(truncated(&gf, gf.data_at - 1), GAT_EFORMAT, "runs past the end of the file");
    /* data cut: the last tensor no longer fits */
    assert_rejected(
        truncated(&gf, gf.len - 1), GAT_EFORMAT,
        "tensor \"layer1.bias\" bytes [376, 388) lie past the end of the data (387 bytes)");
    /* no data at all: the configuration's size is checked before the model is allocated */
    assert_rejected(truncated(&gf, gf.data_at), GAT_EFORMAT,
                    "but the data section holds 0 bytes: truncated");
    good_file_destroy(&gf);
}
END_TEST

START_TEST(bad_header_length)
{
    good_file gf;
    unsigned char len[8];
    good_file_init(&gf);
    for (int k = 0; k < 8; k++)
        len[k] = (unsigned char)((uint64_t)gf.len >> (8 * k));
    assert_rejected(patch(&gf, 0, len, 8), GAT_EFORMAT, "runs past the end of the file");
    memset(len, 0xff, 8); /* 2^64 - 1: must not wrap around */
    assert_rejected(patch(&gf, 0, len, 8), GAT_EFORMAT,
                    "header length 18446744073709551615 runs past the end");
    memset(len, 0, 8);
    assert_rejected(patch(&gf, 0, len, 8), GAT_EFORMAT, "does not start with a JSON object");
    len[0] = 4; /* a shorter header: "{\"__" is not JSON */
    assert_rejected(patch(&gf, 0, len, 8), GAT_EFORMAT, "JSON syntax error");
    good_file_destroy(&gf);
}
END_TEST

START_TEST(bad_json)
{
    good_file gf;
    good_file_init(&gf);
    assert_rejected(edit(&gf, "\"dtype\":", "\"dtype\"::"), GAT_EFORMAT,
                    "JSON syntax error in the header at file offset");
    assert_rejected(edit(&gf, "}}", "}"), GAT_EFORMAT, "JSON syntax error");
    assert_rejected(edit(&gf, "\"format_version\"", "format_version"), GAT_EFORMAT,
                    "JSON syntax error");
    assert_rejected(edit(&gf, "\"ds\"", "\"d\xff\""), GAT_EFORMAT, "not UTF-8 JSON text");
    assert_rejected(edit(&gf, "\"ds\"", "\"\xc0\xaf\""), GAT_EFORMAT, "not UTF-8"); /* overlong */
    size_t l = strlen(gf.json);
    char *j = malloc(l + 8);
    ck_assert_ptr_nonnull(j);
    sprintf(j, "%s  x", gf.json);
    assert_rejected(write_with_header(&gf, j), GAT_EFORMAT,
                    "unexpected bytes after the header's JSON object");
    sprintf(j, "[%s]", gf.json);
    assert_rejected(write_with_header(&gf, j), GAT_EFORMAT, "does not start with a JSON object");
    free(j);
    good_file_destroy(&gf);
}
END_TEST

START_TEST(bad_tensors)
{
    good_file gf;
    good_file_init(&gf);
    assert_rejected(edit(&gf, "\"F32\"", "\"Q8\""), GAT_EFORMAT,
                    "tensor \"layer0.weight\" has dtype \"Q8\"; libgat reads F32 and F64");
    assert_rejected(edit(&gf, "\"F32\"", "\"F16\""), GAT_EFORMAT, "dtype \"F16\"");
    assert_rejected(edit(&gf, "\"dtype\":\"F32\"", "\"dtype\":32"), GAT_EFORMAT,
                    "is not an object with a string \"dtype\"");
    assert_rejected(edit(&gf, "[5,8]", "[6,8]"), GAT_EFORMAT,
                    "tensor \"layer0.weight\" has shape [6,8] but the configuration in "
                    "__metadata__ implies [5, 8]");
    assert_rejected(edit(&gf, "[5,8]", "[40]"), GAT_EFORMAT, "has shape [40]");
    assert_rejected(edit(&gf, "[5,8]", "[5,8,1]"), GAT_EFORMAT, "has shape [5,8,1]");
    assert_rejected(edit(&gf, "[5,8]", "[5,-8]"), GAT_EFORMAT, "not a non-negative integer");
    assert_rejected(edit(&gf, "[5,8]", "[5,8.5]"), GAT_EFORMAT, "not a non-negative integer");
    /* the configuration decides the shapes: 5 hidden units imply [5, 10] */
    assert_rejected(edit(&gf, "\"hidden\":\"4\"", "\"hidden\":\"5\""), GAT_EFORMAT,
                    "has shape [5,8] but the configuration in __metadata__ implies [5, 10]");
    assert_rejected(edit(&gf, "[376,388]", "[376,400]"), GAT_EFORMAT,
                    "bytes [376, 400) lie past the end of the data (388 bytes)");
    assert_rejected(edit(&gf, "[376,388]", "[376,384]"), GAT_EFORMAT,
                    "tensor \"layer1.bias\" spans 8 bytes but F32 [3] needs 12");
    assert_rejected(edit(&gf, "[376,388]", "[388,376]"), GAT_EFORMAT, "malformed data_offsets");
    assert_rejected(edit(&gf, "[376,388]", "[376]"), GAT_EFORMAT, "malformed data_offsets");
    assert_rejected(edit(&gf, "[376,388]", "[1e300,1e300]"), GAT_EFORMAT, "malformed data_offsets");
    assert_rejected(edit(&gf, "[160,192]", "[0,32]"), GAT_EFORMAT,
                    "the data of tensors \"layer0.weight\" and \"layer0.att_src\" overlap");
    assert_rejected(edit(&gf, "\"layer0.bias\"", "\"layer0.biaz\""), GAT_EFORMAT,
                    "unexpected tensor \"layer0.biaz\"");
    assert_rejected(edit(&gf, "\"layer0.att_dst\"", "\"layer0.att_src\""), GAT_EFORMAT,
                    "tensor \"layer0.att_src\" appears twice");
    assert_rejected(edit(&gf,
                         ",\"layer1.bias\":{\"dtype\":\"F32\",\"shape\":[3],"
                         "\"data_offsets\":[376,388]}",
                         ""),
                    GAT_EFORMAT, "tensor \"layer1.bias\" is missing");
    assert_rejected(edit(&gf, "{\"__metadata__\":{", "{\"__metadata__\":{},\"__metadata__\":{"),
                    GAT_EFORMAT, "holds __metadata__ twice");
    good_file_destroy(&gf);
}
END_TEST

START_TEST(bad_metadata)
{
    good_file gf;
    good_file_init(&gf);
    assert_rejected(edit(&gf, "\"__metadata__\"", "\"__other__\""), GAT_EFORMAT,
                    "no __metadata__ with a model configuration");
    assert_rejected(edit(&gf, "\"layers\":\"2\"", "\"layers\":2"), GAT_EFORMAT,
                    "__metadata__ value \"layers\" is not a string");
    assert_rejected(edit(&gf, "\"layers\":\"2\",", ""), GAT_EFORMAT,
                    "__metadata__ lacks \"layers\"");
    assert_rejected(edit(&gf, "\"heads\":\"2\"", "\"heads\":\"2x\""), GAT_EFORMAT,
                    "\"heads\" is \"2x\", not an integer");
    assert_rejected(edit(&gf, "\"heads\":\"2\"", "\"heads\":\" 2\""), GAT_EFORMAT,
                    "not an integer");
    assert_rejected(edit(&gf, "\"layers\":\"2\"", "\"layers\":\"17\""), GAT_EFORMAT,
                    "\"layers\" is \"17\", not an integer in [1, 16]");
    assert_rejected(edit(&gf, "\"in_features\":\"5\"", "\"in_features\":\"99999999999\""),
                    GAT_EFORMAT, "not an integer");
    assert_rejected(edit(&gf, "\"negative_slope\":\"0.15\"", "\"negative_slope\":\"nan\""),
                    GAT_EFORMAT, "\"negative_slope\" is \"nan\", not a finite number");
    assert_rejected(edit(&gf, "\"in_dropout\":\"0.25\"", "\"in_dropout\":\"1.5\""), GAT_EFORMAT,
                    "describes an invalid model: in_dropout must be in [0, 1)");
    assert_rejected(edit(&gf, "\"score\":\"gat\"", "\"score\":\"gatv9\""), GAT_EFORMAT,
                    "unknown score function \"gatv9\" (libgat " GAT_VERSION_STRING
                    " knows gat, gatv2");
    assert_rejected(edit(&gf, "\"activation\":\"elu\"", "\"activation\":\"relu\""), GAT_EFORMAT,
                    "unknown activation \"relu\"");
    assert_rejected(edit(&gf, "\"format_version\":\"1\"", "\"format_version\":\"2\""), GAT_EFORMAT,
                    "format_version \"2\" is not supported");
    assert_rejected(edit(&gf, "\"hidden_heads\":\"[2]\"", "\"hidden_heads\":\"[2,2]\""),
                    GAT_EFORMAT, "not a JSON array of the 1 hidden layers' heads");
    assert_rejected(edit(&gf, "\"hidden_heads\":\"[2]\"", "\"hidden_heads\":\"[0]\""), GAT_EFORMAT,
                    "\"hidden_heads\" entry 0 is not a positive integer");
    assert_rejected(edit(&gf, "\"hidden_heads\":\"[2]\"", "\"hidden_heads\":\"[3]\""), GAT_EFORMAT,
                    "has shape [5,8] but the configuration in __metadata__ implies "
                    "[5, 12]");
    /* the features' standardisation (5 inputs): the metadata after "residual" */
    static const char *const std_bad[][2] = {
        {",\"feature_shift\":\"[1,2]\"", "has \"feature_shift\" without \"feature_scale\""},
        {",\"feature_shift\":\"[1,2]\",\"feature_scale\":\"[1]\"",
         "\"feature_shift\" has 2 values, \"feature_scale\" 1"},
        {",\"feature_shift\":\"[1,2,3,4,5,6]\",\"feature_scale\":\"[1,2,3,4,5,6]\"",
         "\"feature_shift\" is not a JSON array of at most 5 numbers"},
        {",\"feature_shift\":\"[1,2]\",\"feature_scale\":\"[1,1e99]\"",
         "\"feature_scale\": value 1 is not a finite number"},
        {",\"feature_shift\":\"[1,\\\"a\\\"]\",\"feature_scale\":\"[1,1]\"",
         "\"feature_shift\": value 1 is not a finite number"},
    };
    for (size_t c = 0; c < sizeof std_bad / sizeof *std_bad; c++) {
        char to[256];
        snprintf(to, sizeof to, "\"residual\":\"0\"%s", std_bad[c][0]);
        assert_rejected(edit(&gf, "\"residual\":\"0\"", to), GAT_EFORMAT, std_bad[c][1]);
    }
    assert_rejected(edit(&gf, "\"residual\":\"0\"", "\"residual\":\"2\""), GAT_EFORMAT,
                    "\"residual\" is \"2\", not an integer in [0, 1]");
    assert_rejected(edit(&gf, "\"edge_dim\":\"0\"", "\"edge_dim\":\"-1\""), GAT_EFORMAT,
                    "\"edge_dim\" is \"-1\", not an integer in [0, 1024]");
    assert_rejected(edit(&gf, "\"edge_dim\":\"0\"", "\"edge_dim\":\"2\""), GAT_EFORMAT,
                    "tensor \"layer0.weight_edge\" is missing");
    assert_rejected(edit(&gf, "\"score\":\"gat\"", "\"score\":\"dot\",\"edge_dim\":\"2\""),
                    GAT_EFORMAT, "describes an invalid model: edge_dim 2 needs the gat or gatv2 score");
    assert_rejected(edit(&gf, "\"score\":\"gat\"", "\"score\":\"dot\""), GAT_EFORMAT,
                    "unexpected tensor \"layer0.att_src\": the configuration in __metadata__ "
                    "(score dot, 2 layers) has no such tensor");
    assert_rejected(edit(&gf, "[\\\"x\\\",", "[\\\"w\\\",\\\"x\\\","), GAT_EFORMAT,
                    "\"class_names\" lists 4 names for 3 classes");
    assert_rejected(edit(&gf, "[\\\"x\\\",", "[1,"), GAT_EFORMAT, "class name 0");
    assert_rejected(edit(&gf, "[\\\"x\\\",", "[\\\"x\\\""), GAT_EFORMAT,
                    "\"class_names\" is not a JSON array");
    assert_rejected(edit(&gf, "\"__metadata__\":{", "\"__metadata__\":[{"), GAT_EFORMAT,
                    "JSON syntax error");
    assert_rejected(edit(&gf, "\"score\"", "\"tu_features\":\"edges\",\"score\""), GAT_EFORMAT,
                    "\"tu_features\" is 'edges', expected all, labels or attributes");
    assert_rejected(edit(&gf, "\"score\"", "\"largest_component\":\"2\",\"score\""), GAT_EFORMAT,
                    "\"largest_component\" is \"2\", not an integer in [0, 1]");
    assert_rejected(edit(&gf, "\"score\"", "\"min_class_nodes\":\"-3\",\"score\""), GAT_EFORMAT,
                    "\"min_class_nodes\" is \"-3\", not an integer in [0, 2147483647]");
    /* the TU feature choice: absent (older files, the good file) means all */
    gat_model_meta meta;
    gat_model *m = NULL;
    ck_assert_int_eq(gat_model_load(&m, &meta, edit(&gf, "\"score\"", "\"tu_features\":\"Labels\",\"score\"")),
                     GAT_OK);
    ck_assert_int_eq(meta.tu_features, GAT_TU_FEATURES_LABELS);
    gat_model_meta_destroy(&meta);
    gat_model_free(m);
    m = NULL;
    ck_assert_int_eq(gat_model_load(&m, &meta, edit(&gf, "\"score\"", "\"score\"")), GAT_OK);
    ck_assert_int_eq(meta.tu_features, GAT_TU_FEATURES_ALL);
    ck_assert_int_eq(meta.largest_component, 0); /* the cuts: absent means none */
    ck_assert_int_eq(meta.min_class_nodes, 0);
    gat_model_meta_destroy(&meta);
    gat_model_free(m);
    m = NULL;
    /* unknown keys are ignored */
    ck_assert_int_eq(gat_model_load(&m, NULL, edit(&gf, "\"score\"", "\"future\":\"x\",\"score\"")),
                     GAT_OK);
    gat_model_free(m);
    good_file_destroy(&gf);
}
END_TEST

START_TEST(bad_values)
{
    good_file gf;
    const unsigned char qnan[4] = {0x00, 0x00, 0xc0, 0x7f}, inf[4] = {0x00, 0x00, 0x80, 0xff};
    good_file_init(&gf);
    assert_rejected(patch(&gf, gf.data_at + 8, qnan, 4), GAT_ENUMERIC,
                    "tensor \"layer0.weight\" holds nan at index 2");
    assert_rejected(patch(&gf, gf.len - 4, inf, 4), GAT_ENUMERIC,
                    "tensor \"layer1.bias\" holds -inf at index 2");
    good_file_destroy(&gf);
}
END_TEST

/* ---- atomic replacement --------------------------------------------------------------------- */

/* In a child process limited to writing `limit` bytes per file (as on a full disk), runs
 * gat_model_save (model != NULL) or gat_matrix_save of a 100 x 100 matrix; returns its status. */
static gat_status save_with_file_limit(gat_model *m, const char *path, rlim_t limit)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct rlimit rl = {limit, limit};
        gat_status st;
        signal(SIGXFSZ, SIG_IGN); /* make the write fail with EFBIG instead of killing us */
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(100);
        if (m) {
            st = gat_model_save(m, NULL, path);
        } else {
            static gat_real big[100 * 100];
            st = gat_matrix_save(path, GAT_FORMAT_TSV, 100, 100, big, NULL, 0);
        }
        if (st != GAT_OK && !strstr(gat_last_error(), "File too large")) _exit(101);
        _exit((int)st);
    }
    int ws;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert(WIFEXITED(ws));
    ck_assert_int_lt(WEXITSTATUS(ws), 100);
    return (gat_status)WEXITSTATUS(ws);
}

START_TEST(atomic_model_save)
{
    char *dir = tu_tmpdir(), *path = join(dir, "m.gat"), *sub = join(dir, "sub");
    char *missing = join(dir, "no/such/dir/m.gat");
    gat_model *a = make_model(2, 1, 1), *b = make_model(3, 2, 2);
    size_t l0, l1;

    ck_assert_int_eq(gat_model_save(a, NULL, path), GAT_OK);
    unsigned char *before = slurp(path, &l0);
    ck_assert_int_eq(chmod(path, 0640), 0);

    /* a write that fails midway (file size limit, as a full disk) leaves the old file */
    ck_assert_int_eq(save_with_file_limit(b, path, 100), GAT_EIO);
    unsigned char *after = slurp(path, &l1);
    ck_assert_uint_eq(l0, l1);
    ck_assert(memcmp(before, after, l0) == 0);
    free(after);
    ck_assert_int_eq(count_entries(dir), 1); /* no temporary file left behind */

    /* the target is a directory: rename fails, the directory and the old file are untouched */
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_error(gat_model_save(b, NULL, sub), GAT_EIO, "cannot replace");
    ck_assert_int_eq(count_entries(dir), 2);
    ck_assert_int_eq(count_entries(sub), 0);

    /* a directory that does not exist */
    ck_assert_error(gat_model_save(b, NULL, missing), GAT_EIO, "cannot create a temporary file");
    ck_assert_error(gat_model_save(b, NULL, "/nonexistent-gat-dir/m.gat"), GAT_EIO,
                    "in /nonexistent-gat-dir/");

    /* a successful save replaces the file and keeps its permissions */
    struct stat sb;
    ck_assert_int_eq(gat_model_save(b, NULL, path), GAT_OK);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 0777, 0640);
    gat_model *r = NULL;
    ck_assert_int_eq(gat_model_load(&r, NULL, path), GAT_OK);
    ck_assert_int_eq(gat_model_layer_count(r), 3);
    ck_assert_int_eq(count_entries(dir), 2);

    gat_model_free(r);
    free(before);
    gat_model_free(a);
    gat_model_free(b);
    tu_rmtree(dir);
    free(path);
    free(sub);
    free(missing);
    free(dir);
}
END_TEST

START_TEST(atomic_matrix_save)
{
    char *dir = tu_tmpdir(), *path = join(dir, "e.tsv");
    const gat_real v[2] = {1, 2};
    size_t l0, l1;
    ck_assert_int_eq(gat_matrix_save(path, GAT_FORMAT_AUTO, 2, 1, v, NULL, 0), GAT_OK);
    unsigned char *before = slurp(path, &l0);
    ck_assert_int_eq(save_with_file_limit(NULL, path, 1000), GAT_EIO);
    unsigned char *after = slurp(path, &l1);
    ck_assert_uint_eq(l0, l1);
    ck_assert(memcmp(before, after, l0) == 0);
    ck_assert_int_eq(count_entries(dir), 1);
    ck_assert_error(gat_matrix_save(dir, GAT_FORMAT_TSV, 2, 1, v, NULL, 0), GAT_EIO,
                    "cannot replace");
    ck_assert_int_eq(count_entries(dir), 1);
    free(before);
    free(after);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

/* ---- writers -------------------------------------------------------------------------------- */

static void assert_file_text(const char *path, const char *want)
{
    size_t n;
    unsigned char *b = slurp(path, &n);
    ck_assert_str_eq((const char *)b, want);
    ck_assert_uint_eq(n, strlen(want));
    free(b);
}

START_TEST(writers_text)
{
    char *dir = tu_tmpdir(), *tsv = join(dir, "a.tsv"), *csv = join(dir, "a.CSV");
    char *w2v = join(dir, "a.vec"), *txt = join(dir, "a.txt");
    const gat_real v[6] = {0.5f, -1, 3.25f, 1e-3f, 0, 7};
    const char *ids[] = {"a", "b,\"c\""}, *spaced[] = {"a b", "c"}, *tabbed[] = {"a\tb", "c"};
    gat_file_format f;

    ck_assert_int_eq(gat_matrix_save(tsv, GAT_FORMAT_AUTO, 2, 3, v, ids, 0), GAT_OK);
    assert_file_text(tsv, "id\td0\td1\td2\na\t0.5\t-1\t3.25\nb,\"c\"\t0.00100000005\t0\t7\n");
    ck_assert_int_eq(gat_matrix_save(tsv, GAT_FORMAT_TSV, 2, 3, v, NULL, GAT_WRITE_NO_HEADER),
                     GAT_OK);
    assert_file_text(tsv, "0\t0.5\t-1\t3.25\n1\t0.00100000005\t0\t7\n");
    ck_assert_int_eq(gat_matrix_save(csv, GAT_FORMAT_AUTO, 2, 3, v, ids, 0), GAT_OK);
    assert_file_text(csv, "id,d0,d1,d2\na,0.5,-1,3.25\n\"b,\"\"c\"\"\",0.00100000005,0,7\n");
    ck_assert_int_eq(gat_matrix_save(w2v, GAT_FORMAT_AUTO, 2, 3, v, ids, 0), GAT_OK);
    assert_file_text(w2v, "2 3\na 0.5 -1 3.25\nb,\"c\" 0.00100000005 0 7\n");
    ck_assert_int_eq(gat_matrix_save(txt, GAT_FORMAT_WORD2VEC, 0, 3, NULL, NULL, 0), GAT_OK);
    assert_file_text(txt, "0 3\n");

    ck_assert_error(gat_matrix_save(w2v, GAT_FORMAT_AUTO, 2, 3, v, spaced, 0), GAT_EINVAL,
                    "row id 0 ('a b') holds whitespace, which word2vec cannot hold");
    ck_assert_error(gat_matrix_save(tsv, GAT_FORMAT_AUTO, 2, 3, v, tabbed, 0), GAT_EINVAL,
                    "holds a tab or a line break, which TSV cannot hold");
    ck_assert_error(gat_matrix_save(txt, GAT_FORMAT_AUTO, 2, 3, v, NULL, 0), GAT_EINVAL,
                    "cannot tell the format of");
    ck_assert_error(gat_matrix_save(NULL, GAT_FORMAT_TSV, 2, 3, v, NULL, 0), GAT_EINVAL, "NULL");
    ck_assert_error(gat_matrix_save(tsv, GAT_FORMAT_TSV, 2, 3, NULL, NULL, 0), GAT_EINVAL, "NULL");
    ck_assert_error(gat_matrix_save(tsv, GAT_FORMAT_TSV, -1, 3, v, NULL, 0), GAT_EINVAL,
                    "negative");
    ck_assert_error(gat_matrix_save(tsv, (gat_file_format)9, 2, 3, v, NULL, 0), GAT_EINVAL,
                    "unknown format 9");
    ck_assert_error(gat_matrix_save(tsv, GAT_FORMAT_TSV, 2, 3, v, NULL, 8), GAT_EINVAL, "flag");
    ck_assert_int_eq(count_entries(dir), 4); /* the failures created nothing */

    ck_assert_int_eq(gat_file_format_from_path("x/y.NPY", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_FORMAT_NPY);
    ck_assert_int_eq(gat_file_format_from_path("y.tab", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_FORMAT_TSV);
    ck_assert_int_eq(gat_file_format_from_path("y.word2vec", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_FORMAT_WORD2VEC);
    ck_assert_error(gat_file_format_from_path("x.npy/y", &f), GAT_EINVAL, "extension");
    ck_assert_int_eq(gat_file_format_from_name("W2V", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_FORMAT_WORD2VEC);
    ck_assert_error(gat_file_format_from_name("parquet", &f), GAT_EINVAL,
                    "unknown file format 'parquet' (expected auto, npy, tsv, csv, word2vec or w2v)");
    ck_assert_int_eq(f, GAT_FORMAT_WORD2VEC); /* untouched on failure */
    ck_assert_str_eq(gat_file_format_name(GAT_FORMAT_CSV), "csv");
    ck_assert_ptr_null(gat_file_format_name((gat_file_format)42));
    ck_assert_ptr_null(gat_file_format_name((gat_file_format)-1));
    /* every value's name maps back to it, in any ASCII case */
    for (int v = GAT_FORMAT_AUTO; v <= GAT_FORMAT_WORD2VEC; v++) {
        const char *name = gat_file_format_name((gat_file_format)v);
        char upper[32];
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(gat_file_format_from_name(name, &f), GAT_OK);
        ck_assert_int_eq(f, v);
        for (size_t k = 0; k <= strlen(name); k++)
            upper[k] = (char)(name[k] >= 'a' && name[k] <= 'z' ? name[k] - 32 : name[k]);
        f = (gat_file_format)-1;
        ck_assert_int_eq(gat_file_format_from_name(upper, &f), GAT_OK);
        ck_assert_int_eq(f, v);
    }
    ck_assert_int_eq(gat_file_format_from_name("Auto", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_FORMAT_AUTO);
    tu_rmtree(dir);
    free(tsv);
    free(csv);
    free(w2v);
    free(txt);
    free(dir);
}
END_TEST

START_TEST(writers_npy)
{
    char *dir = tu_tmpdir(), *path = join(dir, "a.npy");
    const gat_real v[6] = {0.5f, -1, 3.25f, 1e-3f, 0, 7};
    const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    size_t n;
    ck_assert_int_eq(gat_matrix_save(path, GAT_FORMAT_AUTO, 2, 3, v, NULL, 0), GAT_OK);
    unsigned char *b = slurp(path, &n);
    ck_assert_uint_eq(n, 128 + 6 * 4);
    ck_assert(memcmp(b, "\x93NUMPY\x01\x00", 8) == 0);
    ck_assert_uint_eq(b[8] | b[9] << 8, 118);
    ck_assert(memcmp(b + 10, dict, sizeof dict - 1) == 0);
    for (size_t k = 10 + sizeof dict - 1; k < 127; k++)
        ck_assert_uint_eq(b[k], ' ');
    ck_assert_uint_eq(b[127], '\n');
    for (int k = 0; k < 6; k++) {
        uint32_t u = (uint32_t)b[128 + 4 * k] | (uint32_t)b[129 + 4 * k] << 8 |
                     (uint32_t)b[130 + 4 * k] << 16 | (uint32_t)b[131 + 4 * k] << 24;
        float x;
        memcpy(&x, &u, 4);
        ck_assert(x == v[k]);
    }
    free(b);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

START_TEST(writers_attention_predictions)
{
    char *dir = tu_tmpdir(), *att = join(dir, "att.tsv"), *pred = join(dir, "pred.tsv");
    const char *ids[] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6"};
    const char *classes[] = {"red", "green", "blue"}, *bad[] = {"red", "gr\teen", "blue"};
    gat_model *m = make_model(2, 2, 8);
    fixture f;
    size_t n;

    fixture_init(&f);
    ck_assert_int_eq(gat_attention_save(att, m, &f.g, &f.x, ids, 0), GAT_OK);
    char *text = (char *)slurp(att, &n), *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    ck_assert_str_eq(line, "layer\thead\tdst\tsrc\talpha\tedge\tself_loop");
    /* sums per (layer, head, dst) and the self-loop of each; without provenance `edge` is -1 on
     * self-loops and NA elsewhere */
    double sum[2][2][7] = {{{0}}};
    int lines = 0, loops[2][2][7] = {{{0}}};
    while ((line = strtok_r(NULL, "\n", &save))) {
        int l, h, i, j, self_loop;
        double a;
        char edge[8];
        ck_assert_int_eq(sscanf(line, "%d\t%d\tn%d\tn%d\t%lf\t%7s\t%d", &l, &h, &i, &j, &a, edge,
                                &self_loop),
                         7);
        ck_assert(l >= 0 && l < 2 && h >= 0 && h < 2 && i >= 0 && i < 7);
        ck_assert_int_eq(self_loop, i == j);
        ck_assert_str_eq(edge, i == j ? "-1" : "NA");
        sum[l][h][i] += a;
        loops[l][h][i] += i == j;
        lines++;
    }
    ck_assert_int_eq(lines, 2 * 2 * f.g.nnz);
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 7; i++) {
                ck_assert_double_eq_tol(sum[l][h][i], 1, 1e-6);
                ck_assert_int_eq(loops[l][h][i], 1);
            }
    free(text);
    /* with provenance: `edge` echoes edge_input in in-CSR order (here 100 + e off the loops) */
    gat_idx *map = malloc((size_t)f.g.nnz * sizeof *map);
    ck_assert_ptr_nonnull(map);
    for (gat_idx i = 0; i < f.g.n; i++)
        for (gat_idx e = f.g.rowptr[i]; e < f.g.rowptr[i + 1]; e++)
            map[e] = f.g.col[e] == i ? -1 : 100 + e;
    ck_assert_int_eq(gat_attention_save_edges(att, m, &f.g, &f.x, NULL, map, 0), GAT_OK);
    text = (char *)slurp(att, &n);
    line = strtok_r(text, "\n", &save);
    for (gat_idx k = 0; (line = strtok_r(NULL, "\n", &save)); k++) {
        int l, h, i, j, edge, self_loop;
        double a;
        ck_assert_int_eq(sscanf(line, "%d\t%d\t%d\t%d\t%lf\t%d\t%d", &l, &h, &i, &j, &a, &edge,
                                &self_loop),
                         7);
        const gat_idx e = k % f.g.nnz; /* lines run over (layer, head, edge) */
        ck_assert_int_eq(edge, map[e]);
        ck_assert_int_eq(self_loop, i == j);
        ck_assert_int_eq(j, f.g.col[e]);
    }
    free(text);
    map[1] = -2;
    ck_assert_error(gat_attention_save_edges(att, m, &f.g, &f.x, NULL, map, 0), GAT_EINVAL,
                    "edge_input[1] = -2");
    free(map);

    gat_real logits[7 * 3];
    ck_assert_int_eq(gat_model_embed(m, &f.g, &f.x, GAT_LAYER_LOGITS, logits), GAT_OK);
    ck_assert_int_eq(gat_predictions_save(pred, m, &f.g, &f.x, NULL, classes, 0), GAT_OK);
    text = (char *)slurp(pred, &n);
    line = strtok_r(text, "\n", &save);
    ck_assert_str_eq(line, "id\tclass\tprobability");
    for (int i = 0; i < 7; i++) {
        char name[16];
        int id, best = 0;
        double p, z = 0;
        line = strtok_r(NULL, "\n", &save);
        ck_assert_ptr_nonnull(line);
        ck_assert_int_eq(sscanf(line, "%d\t%15s\t%lf", &id, name, &p), 3);
        ck_assert_int_eq(id, i);
        for (int c = 1; c < 3; c++)
            best = logits[i * 3 + c] > logits[i * 3 + best] ? c : best;
        for (int c = 0; c < 3; c++)
            z += exp(logits[i * 3 + c] - logits[i * 3 + best]);
        ck_assert_str_eq(name, classes[best]);
        ck_assert_double_eq_tol(p, 1 / z, 1e-7);
    }
    ck_assert_ptr_null(strtok_r(NULL, "\n", &save));
    free(text);
    ck_assert_int_eq(gat_predictions_save(pred, m, &f.g, &f.x, ids, NULL, GAT_WRITE_NO_HEADER),
                     GAT_OK);
    text = (char *)slurp(pred, &n);
    ck_assert(strncmp(text, "n0\t", 3) == 0);
    free(text);

    ck_assert_error(gat_predictions_save(pred, m, &f.g, &f.x, NULL, bad, 0), GAT_EINVAL,
                    "class name 1");
    ck_assert_error(gat_attention_save(att, NULL, &f.g, &f.x, NULL, 0), GAT_EINVAL, "NULL");
    ck_assert_error(gat_predictions_save(NULL, m, &f.g, &f.x, NULL, NULL, 0), GAT_EINVAL, "NULL");
    gat_model_free(m);
    fixture_destroy(&f);
    tu_rmtree(dir);
    free(att);
    free(pred);
    free(dir);
}
END_TEST

/* ---- allocation failures -------------------------------------------------------------------- */

START_TEST(alloc_failures)
{
    char *dir = tu_tmpdir(), *path = join(dir, "m.gat"), *out = join(dir, "o.tsv");
    const char *names[] = {"a", "b", "c"};
    gat_model_meta meta;
    gat_model *m = make_model(2, 1, 6), *r = NULL;
    const gat_real v[4] = {1, 2, 3, 4};
    gat_status st;

    gat_model_meta_init(&meta);
    meta.n_classes = 3;
    meta.class_names = names;
    meta.dataset = "d";
    for (long k = 0;; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_model_save(m, &meta, path);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_int_eq(count_entries(dir), 0);
    }
    for (long k = 0;; k++) {
        gat_model_meta got;
        gat_i_alloc_fail_at(k);
        st = gat_model_load(&r, &got, path);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) {
            gat_model_meta_destroy(&got);
            break;
        }
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_ptr_null(r);
    }
    for (long k = 0;; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_matrix_save(out, GAT_FORMAT_TSV, 2, 2, v, NULL, 0);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
    }
    gat_model_free(m);
    gat_model_free(r);
    tu_rmtree(dir);
    free(path);
    free(out);
    free(dir);
}
END_TEST

/* ---- gat-embed against the library ------------------------------------------------------------
 */

/* Runs the shell command; returns its exit code. */
static int run(const char *cmd)
{
    int rc = system(cmd);
    ck_assert_msg(rc != -1 && WIFEXITED(rc), "cannot run %s", cmd);
    return WEXITSTATUS(rc);
}

START_TEST(cli_matches_library)
{
    const char *tool = getenv("GAT_EMBED");
    if (!tool) return; /* run from meson, which sets it */
    char *dir = tu_tmpdir(), *model = join(dir, "tiny.gat"), *npy = join(dir, "e.npy");
    char *tsv = join(dir, "p.tsv"), *err = join(dir, "err.txt");
    char data[4096], cmd[16384];
    gat_dataset ds;
    gat_dataset_options opt;
    gat_model_config cfg;
    gat_model *m = NULL;
    size_t n;

    snprintf(data, sizeof data, "%s", tu_data("tiny/tiny"));
    gat_dataset_options_default(&opt);
    ck_assert_int_eq(gat_dataset_load(&ds, data, &opt), GAT_OK);
    gat_model_config_default(&cfg, ds.n_features, ds.n_classes);
    cfg.hidden = 3;
    cfg.heads = 2;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 21), GAT_OK);
    gat_real *p = gat_model_params(m, &n);
    tu_uniform(p, n, -1, 1, 22);
    gat_model_set_threads(m, 1);
    ck_assert_int_eq(gat_model_save(m, NULL, model), GAT_OK);

    /* default layer: the last hidden one, (n, 6) */
    snprintf(cmd, sizeof cmd, "'%s' --model '%s' --dataset '%s' --out '%s' --threads 1 --quiet",
             tool, model, data, npy);
    ck_assert_int_eq(run(cmd), 0);
    gat_real *want = malloc((size_t)ds.n * 6 * sizeof *want);
    ck_assert_int_eq(gat_model_embed(m, &ds.graph, &ds.x, 0, want), GAT_OK);
    unsigned char *b = slurp(npy, &n);
    ck_assert_uint_eq(n, 128 + (size_t)ds.n * 6 * 4);
    ck_assert(memcmp(b + 128, want, (size_t)ds.n * 6 * 4) == 0); /* little-endian host */
    free(b);

    /* probabilities through TSV: %.9g reads back as the same float */
    gat_real *probs = malloc((size_t)ds.n * 4 * sizeof *probs);
    ck_assert_int_eq(ds.n_classes, 4);
    ck_assert_int_eq(gat_model_embed(m, &ds.graph, &ds.x, GAT_LAYER_PROBS, probs), GAT_OK);
    snprintf(cmd, sizeof cmd,
             "'%s' --model '%s' --dataset '%s' --out '%s' --layer probs "
             "--no-header --threads 1 --quiet",
             tool, model, data, tsv);
    ck_assert_int_eq(run(cmd), 0);
    FILE *f = fopen(tsv, "r");
    ck_assert_ptr_nonnull(f);
    for (gat_idx i = 0; i < ds.n; i++) {
        char id[64];
        float q[4];
        ck_assert_int_eq(fscanf(f, "%63s %f %f %f %f", id, &q[0], &q[1], &q[2], &q[3]), 5);
        ck_assert_str_eq(id, ds.node_ids[i]);
        for (int c = 0; c < 4; c++)
            ck_assert(q[c] == probs[i * 4 + c]);
    }
    fclose(f);

    /* exit codes: usage 2, failures 1 with a message */
    snprintf(cmd, sizeof cmd, "'%s' 2>'%s'", tool, err);
    ck_assert_int_eq(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s' --model '%s' --dataset '%s' --out '%s' --layer 5 2>'%s'", tool,
             model, data, npy, err);
    ck_assert_int_eq(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s' --model '%s' --dataset '%s' --out x.parquet 2>'%s'", tool,
             model, data, err);
    ck_assert_int_eq(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s' --model '%s' --dataset '%s' --out '%s' 2>'%s'", tool, data,
             data, npy, err);
    ck_assert_int_eq(run(cmd), 1);
    b = slurp(err, &n);
    ck_assert_msg(strstr((char *)b, "gat-embed: cannot load the model: ") != NULL, "%s", b);
    free(b);
    snprintf(cmd, sizeof cmd, "'%s' --model '%s' --dataset '%s' --out '%s' 2>'%s'", tool, model,
             tu_dataset("cora"), npy, err);
    ck_assert_int_eq(run(cmd), 1);
    b = slurp(err, &n);
    ck_assert_msg(strstr((char *)b, "has 1433 features per node but model") != NULL &&
                      strstr((char *)b, "expects 5") != NULL,
                  "%s", b);
    free(b);

    free(want);
    free(probs);
    gat_model_free(m);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(model);
    free(npy);
    free(tsv);
    free(err);
    free(dir);
}
END_TEST

/* A model file that is not a regular file (a FIFO, a device) has no size to check the header
 * length against: it is read only as far as it declares (issue 35.11). */
START_TEST(nonregular_inputs)
{
    good_file gf;
    unsigned char len[8];
    gat_model *m = NULL;
    int pid;
    good_file_init(&gf);
    /* a header length over the limit: refused after its 8 bytes, the rest never read */
    const uint64_t big = 200000000u;
    for (int k = 0; k < 8; k++)
        len[k] = (unsigned char)(big >> (8 * k));
    const char *fifo = tu_fifo(gf.dir, "big.gat", len, 8, (size_t)16 << 20, ' ', &pid);
    assert_rejected(fifo, GAT_EFORMAT, "header length 200000000 exceeds the limit of 100000000");
    ck_assert_msg(!tu_fifo_drained(pid), "the loader read past the header length");
    unlink(fifo);
    /* a good file through a FIFO loads, and what follows its data is not read */
    fifo = tu_fifo(gf.dir, "good.fifo", gf.bytes, gf.len, (size_t)16 << 20, 0, &pid);
    ck_assert_msg(gat_model_load(&m, NULL, fifo) == GAT_OK, "%s", gat_last_error());
    gat_model_free(m);
    ck_assert_msg(!tu_fifo_drained(pid), "the loader read past the declared data");
    unlink(fifo);
    /* cut short inside the data */
    fifo = tu_fifo(gf.dir, "cut.fifo", gf.bytes, gf.len - 1, 0, 0, &pid);
    assert_rejected(fifo, GAT_EFORMAT, "the input ends at byte");
    ck_assert(tu_fifo_drained(pid));
    unlink(fifo);
    /* /dev/zero: a zero header length, refused after 8 bytes */
    assert_rejected("/dev/zero", GAT_EFORMAT, "does not start with a JSON object");
    good_file_destroy(&gf);
}
END_TEST

static Suite *modelfile_suite(void)
{
    Suite *s = suite_create("modelfile");
    TCase *tc;

    tc = tcase_create("roundtrip");
    tcase_add_test(tc, roundtrip_bit_identical);
    tcase_add_test(tc, roundtrip_defaults_and_one_layer);
    tcase_add_test(tc, roundtrip_every_score);
    tcase_add_test(tc, roundtrip_edge_dim);
    tcase_add_test(tc, roundtrip_dropout_placement);
    tcase_add_test(tc, roundtrip_standardization);
    tcase_add_test(tc, roundtrip_gps);
    tcase_add_test(tc, bad_gps_files);
    suite_add_tcase(s, tc);

    tc = tcase_create("embed");
    tcase_add_test(tc, embed_values);
    tcase_add_test(tc, embed_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("save_errors");
    tcase_add_test(tc, save_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("malformed");
    tcase_add_test(tc, bad_truncated);
    tcase_add_test(tc, bad_header_length);
    tcase_add_test(tc, bad_json);
    tcase_add_test(tc, bad_tensors);
    tcase_add_test(tc, bad_metadata);
    tcase_add_test(tc, bad_values);
    tcase_add_test(tc, nonregular_inputs);
    suite_add_tcase(s, tc);

    tc = tcase_create("atomic");
    tcase_add_test(tc, atomic_model_save);
    tcase_add_test(tc, atomic_matrix_save);
    suite_add_tcase(s, tc);

    tc = tcase_create("writers");
    tcase_add_test(tc, writers_text);
    tcase_add_test(tc, writers_npy);
    tcase_add_test(tc, writers_attention_predictions);
    suite_add_tcase(s, tc);

    tc = tcase_create("alloc");
    tcase_add_test(tc, alloc_failures);
    suite_add_tcase(s, tc);

    tc = tcase_create("cli");
    tcase_add_test(tc, cli_matches_library);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(modelfile_suite());
}
