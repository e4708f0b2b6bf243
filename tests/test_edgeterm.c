/* Check suite of the edge term of the gat and gatv2 scores (issue 16; PyG's GATConv(edge_dim),
 * GATv2Conv(edge_dim)) in the float build: every instruction-set build of the engine against the
 * layer-by-layer reference model (tests/ref/loop.c, which forms W_e x_ij as PyG does) for logits,
 * attention and every gradient; bit-identical results on 1, 2 and 3 threads; a renumbered binding
 * against an unrenumbered one; edge_dim 0 and all-zero edge features as the model without them; the
 * binding's bad inputs. */
#include "testutil.h"
#include "core/core.h"
#include "model/model_i.h"
#include "ref/loop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double TOL = 2e-4; /* engine versus reference, relative to the largest value */
static const char *const ISAS[] = {"base", "avx2", "avx512"};

/* Model shapes: the paper's (8 heads of 8, one output head: the specialised kernels, heads in
 * vector lanes), generic ones (3 heads of 5 over three layers, 6 output heads; 16 heads of 4). */
typedef struct shape {
    const char *name;
    int layers, heads, hidden, out_heads;
    gat_idx F, C, D;
    gat_score score;
} shape;
static const shape SHAPES[] = {
    {"8x8 / 1x7, D 3", 2, 8, 8, 1, 40, 7, 3, GAT_SCORE_GAT},
    {"3x5 x2 / 6x4, D 5", 3, 3, 5, 6, 30, 4, 5, GAT_SCORE_GAT},
    {"16x4 / 2x3, D 1", 2, 16, 4, 2, 20, 3, 1, GAT_SCORE_GAT},
    {"gatv2 8x8 / 1x7, D 3", 2, 8, 8, 1, 40, 7, 3, GAT_SCORE_GATV2},
    {"gatv2 3x5 x2 / 6x4, D 2", 3, 3, 5, 6, 30, 4, 2, GAT_SCORE_GATV2},
};

typedef struct fixture {
    gat_graph g;
    gat_csr x;
    gat_real *ex; /* (E, D) */
    gat_model_config cfg;
    size_t nc;
} fixture;

/* A hub of 1500 leaves, 300 nodes with random edges, self-loops; edge features uniform in
 * [-1, 1] with one column in [-3, 3] (the term then moves the scores across the LeakyReLU's
 * kink). */
static void fixture_init(fixture *f, const shape *s, unsigned flags, uint64_t seed)
{
    tu_graph_skewed(&f->g, 1500, 300, flags, seed);
    tu_features(&f->x, f->g.n, s->F, 0.15, seed + 1);
    gat_csr_normalize_rows(&f->x);
    gat_model_config_default(&f->cfg, s->F, s->C);
    f->cfg.layers = s->layers;
    f->cfg.heads = s->heads;
    f->cfg.hidden = s->hidden;
    f->cfg.out_heads = s->out_heads;
    f->cfg.edge_dim = s->D;
    f->cfg.score = s->score;
    f->nc = (size_t)f->g.n * (size_t)s->C;
    const size_t n = (size_t)f->g.nnz * (size_t)s->D;
    f->ex = malloc((n + 1) * sizeof *f->ex);
    ck_assert_ptr_nonnull(f->ex);
    tu_uniform(f->ex, n, -1, 1, seed + 2);
    for (size_t e = 0; e < (size_t)f->g.nnz; e++)
        f->ex[e * (size_t)s->D] *= 3;
}

static void fixture_free(fixture *f)
{
    gat_graph_destroy(&f->g);
    gat_csr_destroy(&f->x);
    free(f->ex);
}

typedef struct outputs {
    gat_real *infer, *train, *grads, *alpha[GAT_MAX_LAYERS];
    size_t n_alpha[GAT_MAX_LAYERS], P;
    int layers;
} outputs;

static gat_real *copy(const gat_real *p, size_t n)
{
    gat_real *c = malloc((n + 1) * sizeof *c);
    ck_assert_ptr_nonnull(c);
    memcpy(c, p, n * sizeof *c);
    return c;
}

static void outputs_free(outputs *o)
{
    free(o->infer);
    free(o->train);
    free(o->grads);
    for (int l = 0; l < o->layers; l++)
        free(o->alpha[l]);
}

/* One model (seed 5, parameters made non-zero) on f: an inference and a training forward (step
 * 41) and a backward from a fixed random dlogits. isa: a build of the kernels, NULL the best,
 * "none" the reference model; order: the binding's node order; ex: the edge features bound
 * (f->ex normally). Returns -1 if this CPU cannot run isa. */
static int run(const fixture *f, const char *isa, int nt, double dropout, gat_order order,
               const gat_real *ex, outputs *o)
{
    gat_model *m = NULL;
    ref_model *rm = NULL;
    const gat_real *logits;
    const int ref = isa && !strcmp(isa, "none");
    memset(o, 0, sizeof *o);
    ck_assert_int_eq(tu_model_create(&m, &f->cfg, 5), GAT_OK);
    /* the run's dropout; the training forward draws the masks of step 42 */
    const gat_i_binding b = {.g = &f->g, .x = &f->x, .ex = ex};
    const gat_i_run infer = {.set_dropout = 1, .in_p = dropout, .att_p = dropout},
                    train = {.training = 1, .step = 42, .set_dropout = 1, .in_p = dropout,
                             .att_p = dropout};
    if (ref) {
        ck_assert_int_eq(ref_model_create(&rm, m, &b), GAT_OK);
    } else if (isa && tu_model_set_kernels(m, isa) != 0) { /* NULL: the suite's variant */
        gat_model_free(m);
        return -1;
    }
    gat_model_set_threads(m, nt);
    ck_assert_int_eq(gat_model_set_order(m, order), GAT_OK);
    gat_real *params = gat_model_params(m, &o->P);
    for (size_t k = 0; k < o->P; k++) /* non-zero biases too */
        if (params[k] == 0) params[k] = (gat_real)(0.02 * (double)(k % 5) - 0.04);
    if (!ref) {
        ck_assert_int_eq(gat_model_bind(m, &f->g, &f->x, 0), GAT_OK);
        ck_assert_int_eq(gat_model_bind_edge_features(m, ex, f->cfg.edge_dim), GAT_OK);
    }
#define FORWARD(r)                                                                                 \
    (ref ? ref_model_forward(rm, m, &b, r, &logits) : gat_i_model_forward(m, &b, r, &logits))
    ck_assert_int_eq(FORWARD(&infer), GAT_OK);
    o->infer = copy(logits, f->nc);
    ck_assert_int_eq(FORWARD(&train), GAT_OK);
#undef FORWARD
    o->train = copy(logits, f->nc);
    if (!ref && order != GAT_ORDER_NONE) ck_assert_int_eq(gat_model_order(m, NULL), order);
    o->layers = gat_model_layer_count(m);
    for (int l = 0; l < o->layers; l++) {
        const gat_real *p;
        o->n_alpha[l] = (size_t)f->g.nnz * (size_t)gat_model_layer_heads(m, l);
        if (ref)
            p = ref_model_alpha(rm, l);
        else
            ck_assert_int_eq(gat_model_attention(m, l, &p), GAT_OK);
        o->alpha[l] = copy(p, o->n_alpha[l]);
    }
    gat_real *d = malloc(f->nc * sizeof *d);
    ck_assert_ptr_nonnull(d);
    tu_uniform(d, f->nc, -1, 1, 77);
    gat_model_zero_grads(m);
    ck_assert_int_eq(ref ? ref_model_backward(rm, m, d) : gat_model_backward(m, d), GAT_OK);
    o->grads = copy(gat_model_grads(m, NULL), o->P);
    free(d);
    ref_model_free(rm);
    gat_model_free(m);
    return 0;
}

static double compare(const char *what, const gat_real *got, const gat_real *want, size_t n)
{
    size_t at = 0;
    const double err = tu_max_rel_err(got, want, n, tu_max_abs(want, n), &at);
    printf("%-64s max err / max |ref| %.2e\n", what, err);
    fflush(stdout);
    return err;
}

/* got against want: logits, attention, and every tensor's gradient on its own (the edge
 * term's tensors are small beside the weights); the largest error of all. */
static double compare_all(const fixture *f, const char *what, const outputs *got,
                          const outputs *want)
{
    char label[160];
    double worst = 0;
    gat_model *m = NULL;
    int nt = 0;
    ck_assert_int_eq(tu_model_create(&m, &f->cfg, 5), GAT_OK);
    const gat_model_tensor *t = gat_model_tensors(m, &nt);
    snprintf(label, sizeof label, "%s: inference logits", what);
    worst = fmax(worst, compare(label, got->infer, want->infer, f->nc));
    snprintf(label, sizeof label, "%s: training logits", what);
    worst = fmax(worst, compare(label, got->train, want->train, f->nc));
    for (int l = 0; l < got->layers; l++) {
        snprintf(label, sizeof label, "%s: layer %d attention", what, l);
        worst = fmax(worst, compare(label, got->alpha[l], want->alpha[l], got->n_alpha[l]));
    }
    for (int k = 0; k < nt; k++) {
        snprintf(label, sizeof label, "%s: d %s", what, t[k].name);
        ck_assert(tu_max_abs(want->grads + t[k].offset, t[k].size) > 0);
        worst = fmax(
            worst, compare(label, got->grads + t[k].offset, want->grads + t[k].offset, t[k].size));
    }
    gat_model_free(m);
    return worst;
}

/* Loop index: bit 0 dropout 0.6 (else none), bit 1 a directed graph without self-loops (empty
 * neighbourhoods), then the shape. Every build against the reference model. */
START_TEST(test_vs_reference)
{
    const shape *s = &SHAPES[_i >> 2];
    const double p = _i & 1 ? 0.6 : 0;
    const unsigned flags = _i & 2 ? GAT_GRAPH_NO_SELF_LOOPS : GAT_GRAPH_SYMMETRIZE;
    fixture f;
    outputs ref, got;
    char what[128];
    fixture_init(&f, s, flags, 100 + (uint64_t)_i);
    ck_assert_int_eq(run(&f, "none", 1, p, GAT_ORDER_NONE, f.ex, &ref), 0);
    int tested = 0;
    for (size_t k = 0; k < LEN(ISAS); k++) {
        if (run(&f, ISAS[k], 2, p, GAT_ORDER_NONE, f.ex, &got)) continue;
        tested++;
        snprintf(what, sizeof what, "%s %s p=%.1f %s", s->name, ISAS[k], p,
                 _i & 2 ? "directed" : "symmetric");
        ck_assert(compare_all(&f, what, &got, &ref) <= TOL);
        outputs_free(&got);
    }
    ck_assert_int_ge(tested, 1);
    outputs_free(&ref);
    fixture_free(&f);
}
END_TEST

/* The edge term's weight really is in the gradient: features scaled by 2 change the reference's
 * edge gradients, so matching them is not a coincidence of zeros. And the term moves the
 * logits: other edge features, other outputs. */
START_TEST(test_features_matter)
{
    const shape *s = &SHAPES[0];
    fixture f;
    outputs a, b;
    fixture_init(&f, s, GAT_GRAPH_SYMMETRIZE, 150);
    gat_real *ex2 = copy(f.ex, (size_t)f.g.nnz * (size_t)s->D);
    for (size_t k = 0; k < (size_t)f.g.nnz * (size_t)s->D; k++)
        ex2[k] = -ex2[k];
    ck_assert_int_eq(run(&f, NULL, 1, 0, GAT_ORDER_NONE, f.ex, &a), 0);
    ck_assert_int_eq(run(&f, NULL, 1, 0, GAT_ORDER_NONE, ex2, &b), 0);
    ck_assert(compare("negated edge features: logits", a.infer, b.infer, f.nc) > 1e-2);
    outputs_free(&a);
    outputs_free(&b);
    free(ex2);
    fixture_free(&f);
}
END_TEST

static void assert_same(const char *what, const gat_real *a, const gat_real *b, size_t n)
{
    ck_assert_msg(memcmp(a, b, n * sizeof *a) == 0, "%s differ", what);
}

/* Loop index: shape. One, two and three threads, with dropout: bit-identical, every build. */
START_TEST(test_threads_bit_identical)
{
    const shape *s = &SHAPES[_i];
    fixture f;
    fixture_init(&f, s, GAT_GRAPH_SYMMETRIZE, 200 + (uint64_t)_i);
    for (size_t k = 0; k < LEN(ISAS); k++) {
        outputs one, other;
        if (run(&f, ISAS[k], 1, 0.6, GAT_ORDER_NONE, f.ex, &one)) continue;
        for (int nt = 2; nt <= 3; nt++) {
            ck_assert_int_eq(run(&f, ISAS[k], nt, 0.6, GAT_ORDER_NONE, f.ex, &other), 0);
            assert_same("inference logits", other.infer, one.infer, f.nc);
            assert_same("training logits", other.train, one.train, f.nc);
            assert_same("gradients", other.grads, one.grads, one.P);
            outputs_free(&other);
        }
        outputs_free(&one);
    }
    fixture_free(&f);
}
END_TEST

/* Loop index: shape. A binding renumbered by RCM and by degree (the engine runs on its own copy
 * of the edge rows, in its edge order) against the caller's numbering, without dropout (masks
 * follow the engine's numbering): the same up to the summation order (1e-4, as test_order). */
START_TEST(test_renumbered)
{
    const shape *s = &SHAPES[_i];
    fixture f;
    outputs plain, renum;
    char what[128];
    fixture_init(&f, s, GAT_GRAPH_SYMMETRIZE, 300 + (uint64_t)_i);
    ck_assert_int_eq(run(&f, NULL, 2, 0, GAT_ORDER_NONE, f.ex, &plain), 0);
    const gat_order orders[] = {GAT_ORDER_RCM, GAT_ORDER_DEGREE};
    for (size_t k = 0; k < LEN(orders); k++) {
        ck_assert_int_eq(run(&f, NULL, 2, 0, orders[k], f.ex, &renum), 0);
        snprintf(what, sizeof what, "%s order %d", s->name, (int)orders[k]);
        ck_assert(compare_all(&f, what, &renum, &plain) <= 1e-4);
        outputs_free(&renum);
    }
    outputs_free(&plain);
    fixture_free(&f);
}
END_TEST

/* edge_dim 0 is the model as before: the same tensors, values and outputs as a model with edge
 * features all zero (whose other tensors are drawn as without them), bit for bit. */
START_TEST(test_zero_features)
{
    const shape *s = &SHAPES[_i];
    fixture f;
    fixture_init(&f, s, GAT_GRAPH_SYMMETRIZE, 400 + (uint64_t)_i);
    const size_t n = (size_t)f.g.nnz * (size_t)s->D;
    memset(f.ex, 0, n * sizeof *f.ex);
    gat_model *with = NULL, *without = NULL;
    gat_model_config c0 = f.cfg;
    c0.edge_dim = 0;
    ck_assert_int_eq(tu_model_create(&with, &f.cfg, 9), GAT_OK);
    ck_assert_int_eq(tu_model_create(&without, &c0, 9), GAT_OK);
    int n0 = 0, n1 = 0;
    const gat_model_tensor *t0 = gat_model_tensors(without, &n0),
                           *t1 = gat_model_tensors(with, &n1);
    const int per = s->score == GAT_SCORE_GAT ? 2 : 1; /* gatv2: weight_edge only */
    ck_assert_int_eq(n1, n0 + per * s->layers);
    size_t P0 = 0, P1 = 0;
    gat_real *p0 = gat_model_params(without, &P0), *p1 = gat_model_params(with, &P1);
    for (int k = 0, j = 0; k < n1; k++) {
        if (strstr(t1[k].name, "_edge")) continue;
        ck_assert_str_eq(t1[k].name, t0[j].name);
        assert_same(t0[j].name, p1 + t1[k].offset, p0 + t0[j].offset, t0[j].size);
        j++;
    }
    char last[32];
    snprintf(last, sizeof last, "layer%d.%s", s->layers - 1,
             s->score == GAT_SCORE_GAT ? "att_edge" : "weight_edge");
    ck_assert_str_eq(t1[n1 - 1].name, last);
    ck_assert_int_eq(t1[n1 - per].shape[0], s->D);
    ck_assert_int_eq(gat_model_bind(with, &f.g, &f.x, 0), GAT_OK);
    ck_assert_int_eq(gat_model_bind_edge_features(with, f.ex, s->D), GAT_OK);
    const gat_real *l0, *l1;
    ck_assert_int_eq(gat_model_forward(without, &f.g, &f.x, 0, &l0), GAT_OK);
    ck_assert_int_eq(gat_model_forward(with, &f.g, &f.x, 0, &l1), GAT_OK);
    assert_same("logits", l1, l0, f.nc);
    gat_model_free(with);
    gat_model_free(without);
    fixture_free(&f);
}
END_TEST

static void assert_error(gat_status got, gat_status want, const char *part1, const char *part2)
{
    ck_assert_int_eq(got, want);
    ck_assert_msg(strstr(gat_last_error(), part1) && (!part2 || strstr(gat_last_error(), part2)),
                  "message '%s' lacks '%s' / '%s'", gat_last_error(), part1, part2 ? part2 : "");
}

/* Missing edge features, another D, NULL, NaN and Inf, nothing bound, rebinding, other scores. */
START_TEST(test_bad_inputs)
{
    const shape *s = &SHAPES[0];
    fixture f;
    fixture_init(&f, s, GAT_GRAPH_SYMMETRIZE, 500);
    gat_model *m = NULL;
    const gat_real *logits;
    ck_assert_int_eq(tu_model_create(&m, &f.cfg, 1), GAT_OK);
    /* nothing bound yet */
    assert_error(gat_model_bind_edge_features(m, f.ex, 3), GAT_EINVAL, "nothing is bound", NULL);
    assert_error(gat_model_bind_edge_features(NULL, f.ex, 3), GAT_EINVAL, "NULL model", NULL);
    /* a forward without edge features */
    assert_error(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_EDIM,
                 "the model was trained with edge_dim 3 but the graph has 0 edge feature columns",
                 NULL);
    ck_assert_int_eq(gat_model_bind(m, &f.g, &f.x, 0), GAT_OK);
    assert_error(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_EDIM, "edge_dim 3", "0 edge");
    /* another D, NULL rows, a negative D */
    assert_error(gat_model_bind_edge_features(m, f.ex, 2), GAT_EDIM,
                 "the model was trained with edge_dim 3 but the graph has 2 edge feature columns",
                 NULL);
    assert_error(gat_model_bind_edge_features(m, NULL, 0), GAT_EDIM, "edge_dim 3", "has 0 edge");
    assert_error(gat_model_bind_edge_features(m, NULL, 3), GAT_EINVAL, "edge_x is NULL", NULL);
    assert_error(gat_model_bind_edge_features(m, f.ex, -1), GAT_EINVAL, "D must be >= 0", NULL);
    /* NaN and Inf: named by edge and column; the model is left without edge features */
    const size_t at = 7 * 3 + 2;
    const gat_real keep = f.ex[at];
    f.ex[at] = NAN;
    assert_error(gat_model_bind_edge_features(m, f.ex, 3), GAT_ENUMERIC, "edge 7, column 2", "nan");
    assert_error(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_EDIM, "edge_dim 3", NULL);
    f.ex[at] = INFINITY;
    assert_error(gat_model_bind_edge_features(m, f.ex, 3), GAT_ENUMERIC, "edge 7, column 2", "inf");
    f.ex[at] = keep;
    /* bound: forwards run; the threads rising since (a re-laid binding) keep them */
    ck_assert_int_eq(gat_model_bind_edge_features(m, f.ex, 3), GAT_OK);
    gat_model_set_threads(m, 1);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
    gat_model_set_threads(m, 3);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 1, &logits), GAT_OK);
    /* binding edge features invalidates the last forward: no backward through old caches */
    ck_assert_int_eq(gat_model_bind_edge_features(m, f.ex, 3), GAT_OK);
    assert_error(gat_model_backward(m, logits), GAT_EINVAL, "not a training forward", NULL);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 1, &logits), GAT_OK);
    /* other inputs drop them, and the failed forward binds nothing */
    gat_graph g2;
    gat_csr x2;
    tu_graph_skewed(&g2, 10, 20, GAT_GRAPH_SYMMETRIZE, 501);
    tu_features(&x2, g2.n, s->F, 0.2, 502);
    assert_error(gat_model_forward(m, &g2, &x2, 0, &logits), GAT_EDIM, "edge_dim 3", NULL);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
    ck_assert_int_eq(gat_model_bind(m, &g2, &x2, 0), GAT_OK);
    assert_error(gat_model_forward(m, &g2, &x2, 0, &logits), GAT_EDIM, "edge_dim 3", NULL);
    gat_model_free(m);
    /* a model without edge features: (NULL, 0) does nothing, D > 0 is refused */
    gat_model_config c0 = f.cfg;
    c0.edge_dim = 0;
    ck_assert_int_eq(tu_model_create(&m, &c0, 1), GAT_OK);
    ck_assert_int_eq(gat_model_bind_edge_features(m, NULL, 0), GAT_OK);
    assert_error(gat_model_bind_edge_features(m, f.ex, 3), GAT_EDIM,
                 "trained with edge_dim 0 but the graph has 3", NULL);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
    gat_model_free(m);
    /* the configuration: other scores have no edge term; the range */
    gat_model_config c = f.cfg;
    const gat_score others[] = {GAT_SCORE_DOT, GAT_SCORE_SCALED_DOT, GAT_SCORE_BILINEAR,
                                GAT_SCORE_COSINE, GAT_SCORE_GAUSSIAN};
    for (size_t k = 0; k < LEN(others); k++) {
        char msg[96];
        c.score = others[k];
        snprintf(msg, sizeof msg, "the %s score has no edge term", gat_score_name(others[k]));
        assert_error(gat_model_config_check(&c), GAT_EINVAL,
                     "edge_dim 3 needs the gat or gatv2 score", msg);
        assert_error(tu_model_create(&m, &c, 1), GAT_EINVAL, msg, NULL);
    }
    c = f.cfg;
    c.edge_dim = -1;
    assert_error(gat_model_config_check(&c), GAT_EINVAL, "edge_dim must be in 0..1024", "-1");
    c.edge_dim = GAT_MAX_EDGE_DIM + 1;
    assert_error(gat_model_config_check(&c), GAT_EINVAL, "edge_dim must be in 0..1024", "1025");
    gat_graph_destroy(&g2);
    gat_csr_destroy(&x2);
    fixture_free(&f);
}
END_TEST

/* Allocation failures of a renumbered binding's edge copy: GAT_ENOMEM, then success. */
START_TEST(test_alloc_failures)
{
    const shape *s = &SHAPES[0];
    fixture f;
    fixture_init(&f, s, GAT_GRAPH_SYMMETRIZE, 600);
    gat_model *m = NULL;
    const gat_real *logits;
    ck_assert_int_eq(tu_model_create(&m, &f.cfg, 1), GAT_OK);
    ck_assert_int_eq(gat_model_set_order(m, GAT_ORDER_RCM), GAT_OK);
    int ok = 0;
    for (int k = 0; k < 200 && !ok; k++) {
        ck_assert_int_eq(gat_model_bind(m, &f.g, &f.x, 0), GAT_OK);
        gat_i_alloc_fail_at(k);
        const gat_status st = gat_model_bind_edge_features(m, f.ex, 3);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) {
            ok = 1;
            break;
        }
        ck_assert_int_eq(st, GAT_ENOMEM);
        assert_error(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_EDIM, "edge_dim 3", NULL);
    }
    ck_assert(ok);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

static Suite *edgeterm_suite(void)
{
    Suite *s = suite_create("edgeterm");
    struct {
        const char *name;
        const TTest *test;
        int loops;
    } cases[] = {
        {"vs_reference", test_vs_reference, 4 * (int)LEN(SHAPES)},
        {"features_matter", test_features_matter, 1},
        {"threads_bit_identical", test_threads_bit_identical, (int)LEN(SHAPES)},
        {"renumbered", test_renumbered, (int)LEN(SHAPES)},
        {"zero_features", test_zero_features, (int)LEN(SHAPES)},
        {"bad_inputs", test_bad_inputs, 1},
        {"alloc_failures", test_alloc_failures, 1},
    };
    for (size_t c = 0; c < LEN(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_add_loop_test(tc, cases[c].test, 0, cases[c].loops);
        suite_add_tcase(s, tc);
    }
    return s;
}

/* once per kernel build and alpha storage (tu_variants) */
int main(void)
{
    return tu_run_variants(edgeterm_suite);
}
