/* Check suite of the attention family in the float build: the `gat` score's outputs and gradients
 * on the layer-by-layer path bit for bit as before the family existed
 * (tests/data/scores/gat_outputs.txt, written by the library of commit a476b5e), score names,
 * configuration errors, the per-score parameter tables, deeper, residual and per-layer-head
 * models, determinism across thread counts and restricted outputs for every score. */
#include "testutil.h"
#include "core/core.h"
#include "model/model_i.h"
#include "layers/layers.h"
#include "layers/scores.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the `gat` path against the fixture ---- */

/* The fixture's two models: Cora's shape (8 heads of 8, one output head) on a skewed graph, and
 * 3 layers with 3 heads of 4 and 2 averaged output heads on the 7-node graph without self-loops
 * (node 6 has an empty neighbourhood). Parameters are the seeded initialisation. */
typedef struct gat_case {
    gat_graph g;
    gat_csr x;
    gat_model_config cfg;
    uint64_t seed;
} gat_case;

static void gat_case_init(gat_case *c, int k)
{
    memset(c, 0, sizeof *c);
    if (k == 0) {
        tu_graph_skewed(&c->g, 40, 60, GAT_GRAPH_SYMMETRIZE, 3);
        tu_features(&c->x, c->g.n, 30, 0.1, 4);
        gat_csr_normalize_rows(&c->x);
        gat_model_config_default(&c->cfg, 30, 5);
        c->seed = 5;
    } else {
        tu_graph_small(&c->g, GAT_GRAPH_NO_SELF_LOOPS);
        tu_features(&c->x, c->g.n, 5, 0.5, 6);
        gat_model_config_default(&c->cfg, 5, 3);
        c->cfg.layers = 3;
        c->cfg.heads = 3;
        c->cfg.hidden = 4;
        c->cfg.out_heads = 2;
        c->seed = 6;
    }
}

static void gat_case_free(gat_case *c)
{
    gat_graph_destroy(&c->g);
    gat_csr_destroy(&c->x);
}

/* Runs case k serially and returns, concatenated, the inference logits (N, C), the logits of a
 * training forward (N, C) and the gradients (P) of sum(logits * r) for r uniform in [-1, 1);
 * *n gets the total length. Dropout is off in the training forward: the fixture pins the
 * arithmetic of the gat path, not the dropout streams. */
static gat_real *gat_case_run(int k, size_t *n)
{
    gat_case c;
    gat_model *m = NULL;
    const gat_real *logits;
    size_t P = 0;
    gat_case_init(&c, k);
    ck_assert_int_eq(gat_model_create(&m, &c.cfg, c.seed), GAT_OK);
    gat_model_set_threads(m, 1);
    /* the layer-by-layer path, where the attention family branches off; the fused path of the
     * gat score (model/fast.c) is tested against it by test_model */
    ck_assert_int_eq(gat_i_model_set_fused(m, "none"), 0);
    gat_model_params(m, &P);
    const size_t nc = (size_t)c.g.n * c.cfg.classes;
    gat_real *out = calloc(2 * nc + P, sizeof *out), *r = calloc(nc, sizeof *r);
    ck_assert(out && r);
    ck_assert_int_eq(gat_model_forward(m, &c.g, &c.x, 0, &logits), GAT_OK);
    memcpy(out, logits, nc * sizeof *out);
    gat_i_model_set_dropout(m, 0, 0);
    ck_assert_int_eq(gat_model_forward(m, &c.g, &c.x, 1, &logits), GAT_OK);
    memcpy(out + nc, logits, nc * sizeof *out);
    tu_uniform(r, nc, -1, 1, 8 + (uint64_t)k);
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, r), GAT_OK);
    memcpy(out + 2 * nc, gat_model_grads(m, NULL), P * sizeof *out);
    *n = 2 * nc + P;
    free(r);
    gat_model_free(m);
    gat_case_free(&c);
    return out;
}

/* The fixture was written by the library before the attention family existed. GAT_WRITE_FIXTURE=1
 * rewrites it from the current build instead of comparing: only for an intended change to the
 * arithmetic of the gat path (its kernels' summation order, say). Values are C99 hex floats. */
START_TEST(test_gat_unchanged)
{
    const char *path = tu_data("scores/gat_outputs.txt");
    const int write = getenv("GAT_WRITE_FIXTURE") && !strcmp(getenv("GAT_WRITE_FIXTURE"), "1");
    FILE *f = fopen(path, write ? "w" : "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    if (write)
        fprintf(f, "# Outputs and gradients of the gat score (tests/test_scores_model.c), "
                   "as hex floats\n");
    else
        ck_assert_int_eq(fscanf(f, "%*[^\n]\n"), 0);
    for (int k = 0; k < 2; k++) {
        size_t n = 0, n_file = 0, differ = 0, first = 0;
        int k_file = -1;
        gat_real *got = gat_case_run(k, &n);
        if (write) {
            fprintf(f, "case %d %zu\n", k, n);
            for (size_t e = 0; e < n; e++)
                fprintf(f, "%a\n", (double)got[e]);
        } else {
            ck_assert_int_eq(fscanf(f, "case %d %zu\n", &k_file, &n_file), 2);
            ck_assert_int_eq(k_file, k);
            ck_assert_uint_eq(n_file, n);
            for (size_t e = 0; e < n; e++) {
                double v;
                ck_assert_int_eq(fscanf(f, "%la\n", &v), 1);
                if ((gat_real)v != got[e] && differ++ == 0) first = e;
            }
            printf("gat case %d: %zu of %zu values differ from the fixture\n", k, differ, n);
            ck_assert_msg(differ == 0,
                          "case %d: value %zu is %a, the fixture has another (if the "
                          "gat path's arithmetic changed on purpose, regenerate the fixture "
                          "with GAT_WRITE_FIXTURE=1)",
                          k, first, (double)got[first]);
        }
        free(got);
    }
    ck_assert_int_eq(fclose(f), 0);
}
END_TEST

/* ---- names and configuration ---- */

static void assert_message(const char *needle)
{
    ck_assert_msg(strstr(gat_last_error(), needle) != NULL, "message \"%s\" lacks \"%s\"",
                  gat_last_error(), needle);
}

START_TEST(test_names)
{
    const char *want[GAT_SCORE_COUNT] = {"gat",      "gatv2",  "dot",     "scaled-dot",
                                         "bilinear", "cosine", "gaussian"};
    for (int s = 0; s < GAT_SCORE_COUNT; s++) {
        gat_score got = (gat_score)-1;
        ck_assert_str_eq(gat_score_name((gat_score)s), want[s]);
        ck_assert_int_eq(gat_score_from_name(want[s], &got), GAT_OK);
        ck_assert_int_eq(got, s);
        ck_assert_str_eq(gat_last_error(), "");
    }
    ck_assert_ptr_null(gat_score_name((gat_score)GAT_SCORE_COUNT));
    ck_assert_ptr_null(gat_score_name((gat_score)-1));
    gat_score s = GAT_SCORE_DOT;
    ck_assert_int_eq(gat_score_from_name("GAT", &s), GAT_EINVAL);
    assert_message("'GAT'");
    assert_message("scaled-dot");
    ck_assert_int_eq(s, GAT_SCORE_DOT); /* untouched on failure */
    ck_assert_int_eq(gat_score_from_name("", &s), GAT_EINVAL);
    ck_assert_int_eq(gat_score_from_name(NULL, &s), GAT_EINVAL);
    assert_message("NULL");
    ck_assert_int_eq(gat_score_from_name("dot", NULL), GAT_EINVAL);
}
END_TEST

/* Breaks one of the attention family's config fields; returns the word the message must hold. */
static const char *break_config(int k, gat_model_config *c)
{
    switch (k) {
    case 0:
        c->score = (gat_score)GAT_SCORE_COUNT;
        return "score";
    case 1:
        c->score = (gat_score)-1;
        return "score";
    case 2:
        c->residual = 2;
        return "residual";
    case 3:
        c->residual = -1;
        return "residual";
    case 4:
        c->hidden_heads[0] = -1;
        return "hidden_heads[0]";
    case 5:
        c->hidden_heads[0] = 257;
        return "hidden_heads[0]";
    case 6:
        c->hidden_heads[1] = 2;
        return "hidden_heads[1]"; /* layer 1 is the output layer */
    case 7:
        c->hidden_heads[GAT_MAX_LAYERS - 1] = 1;
        return "not a hidden layer";
    case 8:
        c->hidden = 1 << 14, c->hidden_heads[0] = 128;
        return "hidden_heads x hidden";
    }
    return NULL;
}
enum { N_BAD_CONFIGS = 9 };

START_TEST(test_config_errors)
{
    gat_model_config cfg;
    gat_model_config_default(&cfg, 10, 3);
    ck_assert_int_eq(cfg.residual, 0);
    for (int l = 0; l < GAT_MAX_LAYERS; l++)
        ck_assert_int_eq(cfg.hidden_heads[l], 0);
    const char *field = break_config(_i, &cfg);
    ck_assert_ptr_nonnull(field);
    ck_assert_int_eq(gat_model_config_check(&cfg), GAT_EINVAL);
    assert_message(field);
    gat_model *m = (gat_model *)&cfg;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 1), GAT_EINVAL);
    ck_assert_ptr_null(m);
}
END_TEST

/* ---- parameter tables ---- */

/* Loop index: score (7) x residual (2). Two layers, 6 inputs, 3 hidden heads of 2 (width 6 =
 * the input width: layer 0's residual is the identity), 2 output heads, 4 classes. */
START_TEST(test_tensor_table)
{
    const gat_score S = (gat_score)(_i % GAT_SCORE_COUNT);
    const int residual = _i / GAT_SCORE_COUNT;
    gat_model_config cfg;
    gat_model *m = NULL;
    gat_model_config_default(&cfg, 6, 4);
    cfg.score = S;
    cfg.residual = residual;
    cfg.heads = 3;
    cfg.hidden = 2;
    cfg.out_heads = 2;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 9), GAT_OK);
    /* name, rows, columns (0: a vector) of every tensor, in table order */
    struct {
        char name[32];
        gat_idx d0, d1;
    } want[16];
    int n = 0;
    for (int l = 0; l < 2; l++) {
        const gat_idx fin = 6, heads = l ? 2 : 3, fo = l ? 4 : 2, width = l ? 4 : 6;
#define WANT(NAME, D0, D1)                                                                         \
    do {                                                                                           \
        snprintf(want[n].name, sizeof want[n].name, "layer%d." NAME, l);                           \
        want[n].d0 = (D0), want[n].d1 = (D1), n++;                                                 \
    } while (0)
        WANT("weight", fin, heads * fo);
        switch (S) {
        case GAT_SCORE_GAT:
            WANT("att_src", heads, fo);
            WANT("att_dst", heads, fo);
            break;
        case GAT_SCORE_GATV2:
            WANT("weight_dst", fin, heads * fo);
            WANT("att", heads, fo);
            break;
        case GAT_SCORE_SCALED_DOT:
        case GAT_SCORE_BILINEAR:
            WANT("query", fin, heads * fo);
            WANT("key", fin, heads * fo);
            break;
        case GAT_SCORE_COSINE:
            WANT("beta", heads, 0);
            break;
        case GAT_SCORE_GAUSSIAN:
            WANT("log_sigma", heads, 0);
            break;
        default:
            break;
        }
        WANT("bias", width, 0);
        if (residual && fin != width) WANT("res", fin, width);
#undef WANT
    }
    int count = 0;
    size_t P = 0, off = 0;
    const gat_model_tensor *t = gat_model_tensors(m, &count);
    const gat_real *p = gat_model_params(m, &P);
    ck_assert_int_eq(count, n);
    for (int k = 0; k < n; k++) {
        ck_assert_str_eq(t[k].name, want[k].name);
        ck_assert_int_eq(t[k].ndim, want[k].d1 ? 2 : 1);
        ck_assert_int_eq(t[k].shape[0], want[k].d0);
        if (want[k].d1) ck_assert_int_eq(t[k].shape[1], want[k].d1);
        ck_assert_uint_eq(t[k].offset, off);
        off += t[k].size;
        /* initial values: beta 1, sigma = sqrt(per-head width), projections Glorot-uniform */
        const gat_idx fo = want[k].name[5] == '1' ? 4 : 2;
        for (size_t e = 0; e < t[k].size; e++) {
            const gat_real v = p[t[k].offset + e];
            if (strstr(t[k].name, ".beta")) ck_assert(v == 1);
            if (strstr(t[k].name, ".log_sigma")) ck_assert(fabs(v - 0.5 * log((double)fo)) < 1e-6);
            if (strstr(t[k].name, ".query") || strstr(t[k].name, ".key") ||
                strstr(t[k].name, ".weight_dst") || strstr(t[k].name, ".res"))
                ck_assert(v != 0 && fabs(v) < 1);
        }
    }
    ck_assert_uint_eq(off, P);
    gat_model_free(m);
}
END_TEST

/* ---- kernels: fused against the reference composition, thread counts ---- */

/* Loop index: family score (6) x bits: 1 averaged single head of 7 (else 8 heads of 8), 2 two
 * threads. A skewed graph (hub of in-degree 200, an isolated node), attention dropout on. */
START_TEST(test_fused_float)
{
    static const gat_score fam[] = {GAT_SCORE_GATV2,    GAT_SCORE_DOT,    GAT_SCORE_SCALED_DOT,
                                    GAT_SCORE_BILINEAR, GAT_SCORE_COSINE, GAT_SCORE_GAUSSIAN};
    const gat_score S = fam[_i % 6];
    const int v = _i / 6, mean = v & 1, nt = 1 + ((v >> 1) & 1);
    const int H = mean ? 1 : 8;
    const gat_idx Fo = mean ? 7 : 8;
    gat_graph g;
    tu_graph_skewed(&g, 200, 300, GAT_GRAPH_SYMMETRIZE, 17);
    const gat_idx N = g.n;
    const size_t nz = (size_t)N * H * Fo, eh = (size_t)g.nnz * H;
    const size_t n_out = (size_t)N * (mean ? 1 : H) * Fo;
    gat_real *z = malloc(nz * sizeof *z), *q = malloc(nz * sizeof *q), *k = malloc(nz * sizeof *k);
    gat_real *att = malloc((size_t)H * Fo * sizeof *att), theta[8];
    gat_real *qinv = malloc((size_t)N * H * sizeof *qinv),
             *kinv = malloc((size_t)N * H * sizeof *kinv);
    gat_real *alpha = malloc(eh * sizeof *alpha), *out = malloc(n_out * sizeof *out);
    gat_real *out1 = malloc(n_out * sizeof *out1), *ref = malloc(n_out * sizeof *ref);
    gat_real *e = malloc(eh * sizeof *e), *ra = malloc(eh * sizeof *ra),
             *rd = malloc(eh * sizeof *rd);
    gat_real *full = malloc(nz * sizeof *full);
    uint8_t *mask = malloc(eh);
    ck_assert(z && q && k && att && qinv && kinv && alpha && out && out1 && ref && e && ra && rd &&
              full && mask);
    tu_uniform(z, nz, -1, 1, 18);
    tu_uniform(q, nz, -1, 1, 19);
    tu_uniform(k, nz, -1, 1, 20);
    tu_uniform(att, (size_t)H * Fo, -1, 1, 21);
    tu_uniform(theta, 8, S == GAT_SCORE_COSINE ? 0.5 : -0.5, S == GAT_SCORE_COSINE ? 2 : 0.5, 22);
    gat_i_dropout_mask(eh, 0.3, 23, mask, 1);
    gat_i_score_args a = {.g = &g,
                          .score = S,
                          .H = H,
                          .Fo = Fo,
                          .D = Fo,
                          .slope = 0.2,
                          .z = z,
                          .q = q,
                          .k = k,
                          .att = att,
                          .theta = theta,
                          .qinv = qinv,
                          .kinv = kinv,
                          .alpha = alpha,
                          .amask = mask,
                          .ascale = (gat_real)(1 / 0.7),
                          .mean = mean,
                          .nt = 1};
    gat_i_score_forward(&a, out1);
    a.nt = nt;
    gat_i_score_forward(&a, out);
    /* rows are independent: the thread count changes no bit of the forward */
    ck_assert(memcmp(out, out1, n_out * sizeof *out) == 0);
    gat_i_score_edges(&a, e);
    gat_i_edge_softmax(&g, H, e, ra);
    gat_i_dropout(eh, ra, mask, a.ascale, rd);
    gat_i_aggregate(&g, H, Fo, rd, z, full);
    if (mean)
        memcpy(ref, full, n_out * sizeof *ref); /* H == 1 */
    else
        memcpy(ref, full, nz * sizeof *ref);
    const double err = tu_max_rel_err(out, ref, n_out, tu_max_abs(ref, n_out), NULL);
    const double err_a = tu_max_rel_err(alpha, ra, eh, 1, NULL);
    printf("fused %-10s H=%d Fo=%d nt=%d vs reference: out %.2e alpha %.2e\n", gat_score_name(S), H,
           Fo, nt, err, err_a);
    ck_assert(err < 1e-5 && err_a < 1e-5);
    free(z), free(q), free(k), free(att), free(qinv), free(kinv), free(alpha), free(out);
    free(out1), free(ref), free(e), free(ra), free(rd), free(full), free(mask);
    gat_graph_destroy(&g);
}
END_TEST

/* ---- whole models of every score ---- */

typedef struct mfix {
    gat_graph g;
    gat_csr x;
    gat_model_config cfg;
} mfix;

/* 3 layers (hidden heads 4 then 2, 8 wide; 2 output heads), residual, on a skewed graph. */
static void mfix_init(mfix *f, gat_score S)
{
    tu_graph_skewed(&f->g, 100, 200, GAT_GRAPH_SYMMETRIZE, 27);
    tu_features(&f->x, f->g.n, 24, 0.2, 28);
    gat_csr_normalize_rows(&f->x);
    gat_model_config_default(&f->cfg, 24, 5);
    f->cfg.score = S;
    f->cfg.layers = 3;
    f->cfg.hidden_heads[0] = 4;
    f->cfg.hidden_heads[1] = 2;
    f->cfg.out_heads = 2;
    f->cfg.residual = 1;
}

static gat_real *forward_copy(gat_model *m, const mfix *f, int training)
{
    const gat_real *logits = NULL;
    const size_t n = (size_t)f->g.n * f->cfg.classes;
    ck_assert_int_eq(gat_model_forward(m, &f->g, &f->x, training, &logits), GAT_OK);
    gat_real *copy = malloc(n * sizeof *copy);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, logits, n * sizeof *copy);
    for (size_t k = 0; k < n; k++)
        ck_assert_msg(isfinite(copy[k]), "logit %zu = %g", k, copy[k]);
    return copy;
}

/* Loop index: score (7). Repeats, thread counts, restricted output rows, attention rows summing
 * to one, and backward after a restricted forward against backward after a full one. */
START_TEST(test_model_behaviour)
{
    const gat_score S = (gat_score)_i;
    mfix f;
    gat_model *m = NULL;
    mfix_init(&f, S);
    ck_assert_int_eq(gat_model_create(&m, &f.cfg, 29), GAT_OK);
    ck_assert_int_eq(gat_model_layer_heads(m, 0), 4);
    ck_assert_int_eq(gat_model_layer_heads(m, 1), 2);
    ck_assert_int_eq(gat_model_layer_heads(m, 2), 2);
    ck_assert_int_eq(gat_model_layer_width(m, 1), 16);
    const gat_idx N = f.g.n, C = f.cfg.classes;
    const size_t n = (size_t)N * C;
    size_t P = 0;
    gat_model_params(m, &P);

    gat_model_set_threads(m, 1);
    gat_real *one = forward_copy(m, &f, 0), *again = forward_copy(m, &f, 0);
    ck_assert(memcmp(one, again, n * sizeof *one) == 0);
    gat_model_set_threads(m, 2);
    gat_real *two = forward_copy(m, &f, 0);
    const double e_nt = tu_max_rel_err(two, one, n, tu_max_abs(one, n), NULL);

    /* every layer's attention: each non-empty row sums to one per head */
    double worst_sum = 0;
    for (int l = 0; l < 3; l++) {
        const gat_real *alpha = NULL;
        const int H = gat_model_layer_heads(m, l);
        ck_assert_int_eq(gat_model_attention(m, l, &alpha), GAT_OK);
        for (gat_idx i = 0; i < N; i++)
            for (int h = 0; h < H; h++) {
                double s = 0;
                for (gat_idx k = f.g.rowptr[i]; k < f.g.rowptr[i + 1]; k++)
                    s += alpha[(size_t)k * H + h];
                worst_sum = fmax(worst_sum, fabs(s - 1));
            }
    }

    /* restricted rows: the listed rows as in the full forward */
    gat_idx rows[50];
    for (int r = 0; r < 50; r++)
        rows[r] = 3 + 6 * r;
    gat_i_model_set_output_rows(m, rows, 50);
    gat_real *sub = forward_copy(m, &f, 0);
    double e_rows = 0;
    for (int r = 0; r < 50; r++)
        for (gat_idx c = 0; c < C; c++)
            e_rows = fmax(
                e_rows, fabs((double)sub[(size_t)rows[r] * C + c] - two[(size_t)rows[r] * C + c]));

    /* training: backward through a restricted forward = through a full one when dlogits is zero
     * elsewhere */
    gat_real *d = calloc(n, sizeof *d), *g_sub = malloc(P * sizeof *g_sub);
    ck_assert(d && g_sub);
    for (int r = 0; r < 50; r++)
        tu_uniform(d + (size_t)rows[r] * C, (size_t)C, -1, 1, 30 + (uint64_t)r);
    const uint64_t step = gat_i_model_step(m);
    free(forward_copy(m, &f, 1));
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    memcpy(g_sub, gat_model_grads(m, NULL), P * sizeof *g_sub);
    gat_i_model_set_output_rows(m, NULL, 0);
    gat_i_model_set_step(m, step);
    free(forward_copy(m, &f, 1));
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    const gat_real *g_full = gat_model_grads(m, NULL);
    const double e_grad = tu_max_rel_err(g_sub, g_full, P, tu_max_abs(g_full, P), NULL);
    ck_assert(tu_rms(g_full, P) > 0);
    printf("model %-10s nt=2 vs 1 %.1e, attention rows %.1e, restricted rows %.1e, grads %.1e\n",
           gat_score_name(S), e_nt, worst_sum, e_rows, e_grad);
    ck_assert(e_nt < 1e-5 && worst_sum < 1e-5 && e_rows < 1e-5 && e_grad < 1e-5);
    free(one), free(again), free(two), free(sub), free(d), free(g_sub);
    gat_model_free(m);
    gat_graph_destroy(&f.g);
    gat_csr_destroy(&f.x);
}
END_TEST

/* Loop index: score (7). Allocation k = 0, 1, ... fails in create and the first forward until
 * both succeed: each failure is GAT_ENOMEM, leaks nothing (ASan), and the outputs then match. */
START_TEST(test_alloc_failure)
{
    mfix f;
    mfix_init(&f, (gat_score)_i);
    gat_model *ref = NULL, *m = NULL;
    ck_assert_int_eq(gat_model_create(&ref, &f.cfg, 31), GAT_OK);
    gat_real *want = forward_copy(ref, &f, 0);
    gat_model_free(ref);
    long k = 0;
    for (;; k++) {
        const gat_real *logits = NULL;
        gat_i_alloc_fail_at(k);
        gat_status st = gat_model_create(&m, &f.cfg, 31);
        if (st == GAT_OK) st = gat_model_forward(m, &f.g, &f.x, 0, &logits);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        gat_model_free(m);
        m = NULL;
    }
    gat_real *got = forward_copy(m, &f, 0);
    ck_assert(memcmp(got, want, (size_t)f.g.n * f.cfg.classes * sizeof *got) == 0);
    free(got);
    free(want);
    gat_model_free(m);
    gat_graph_destroy(&f.g);
    gat_csr_destroy(&f.x);
}
END_TEST

static Suite *scores_model_suite(void)
{
    Suite *s = suite_create("scores_model");
    struct {
        const char *name;
        const TTest *test;
        int loops;
    } cases[] = {
        {"gat_unchanged", test_gat_unchanged, 1},
        {"names", test_names, 1},
        {"config_errors", test_config_errors, N_BAD_CONFIGS},
        {"tensor_table", test_tensor_table, 2 * GAT_SCORE_COUNT},
        {"fused_float", test_fused_float, 4 * 6},
        {"model_behaviour", test_model_behaviour, GAT_SCORE_COUNT},
        {"alloc_failure", test_alloc_failure, GAT_SCORE_COUNT},
    };
    for (size_t c = 0; c < LEN(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_add_loop_test(tc, cases[c].test, 0, cases[c].loops);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    return tu_run(scores_model_suite());
}
