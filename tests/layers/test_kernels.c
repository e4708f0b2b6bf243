/* Check suite of the engine (src/model/fast.c, src/layers/fused*.c) in the float build: every
 * instruction-set build of its kernels against the layer-by-layer reference model (logits,
 * layer outputs, attention, gradients, with and without dropout) on graphs with a hub of 10^4
 * neighbours and many degree-1 nodes, for the specialised and the generic shapes; bit-identical
 * results across thread counts and repeats; restricted rows; the kernel options (build, alpha
 * storage, fixed threads); the GEMM and the wide blocks' dropout and GELU. The tests that do not
 * loop over the builds themselves run once per variant (tu_run_variants). */
#include "testutil.h"
#include "core/core.h"
#include "layers/fused.h"
#include "model/model_i.h"
#include "ref/loop.h"
#include "ref/ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double TOL = 2e-4; /* fused versus reference, relative to the largest value */
static const char *const ISAS[] = {"base", "avx2", "avx512"};

/* Model shapes: the paper's (8 heads of 8, one output head: the specialised kernels), and
 * generic ones (2 heads with padded widths, 16 heads of 4 over three layers, 1 head of 16; head
 * counts that neither divide 8 nor are multiples of it: 3, 6, 12; rows of thousands of values,
 * on a smaller graph; one output head of 20 classes, a width no shape is compiled for). */
typedef struct shape {
    const char *name;
    int layers, heads, hidden, out_heads;
    gat_idx F, C;
    gat_idx leaves; /* the fixture graph's hub leaves (0: hub_leaves) */
} shape;
static const shape SHAPES[] = {
    {"8x8 / 1x7", 2, 8, 8, 1, 50, 7, 0},
    {"2x5 / 2x5", 2, 2, 5, 2, 30, 5, 0},
    {"16x4 x2 / 1x16", 3, 16, 4, 1, 20, 16, 0},
    {"1x16 / 4x3", 2, 1, 16, 4, 24, 3, 0},
    {"8x8 / 1x7, 2000 sparse inputs", 2, 8, 8, 1, 2000, 7, 0}, /* dW by feature (as Cora) */
    {"3x5 x2 / 6x4", 3, 3, 5, 6, 40, 4, 0},
    {"12x3 / 3x6", 2, 12, 3, 3, 30, 6, 0},
    {"3x700 / 5x4, rows of 2112", 2, 3, 700, 5, 40, 4, 60}, /* layer 1's input: 2100 wide */
    {"8x4 / 1x20", 2, 8, 4, 1, 30, 20, 0}, /* one output head on run-time widths (24) */
};

/* The sanitizer run (GAT_TEST_QUICK) compares with the reference on the specialised shape and
 * three generic ones (16 heads; 3 and 6 heads; wide rows) only: memory errors and undefined
 * behaviour do not depend on the other shapes' sizes. */
static int quick_skips(int sh)
{
    return getenv("GAT_TEST_QUICK") && sh != 0 && sh != 2 && sh != 5 && sh != 7;
}

typedef struct fixture {
    gat_graph g;
    gat_csr x;
    gat_model_config cfg;
    size_t nc;
    int input_grad; /* bind with GAT_BIND_INPUT_GRADIENT: outputs.dx */
    gat_order order; /* the model's node order (GAT_ORDER_AUTO unless a test sets it) */
} fixture;

/* The hub's leaves of a shape: 10^4 unless the shape says; the sanitizer run (GAT_TEST_QUICK)
 * 2500, still a hub that holds most of the edges (the memory accesses are the same, on a
 * quarter of the rows). */
static gat_idx hub_leaves(const shape *s)
{
    if (s->leaves) return s->leaves;
    return getenv("GAT_TEST_QUICK") ? 2500 : 10000;
}

/* Hub 0 with hub_leaves(s) leaves of degree 1, then `others` nodes with random edges, an
 * isolated node. */
static void fixture_init_flags(fixture *f, const shape *s, gat_idx others, unsigned flags,
                               uint64_t seed)
{
    tu_graph_skewed(&f->g, hub_leaves(s), others, flags, seed);
    tu_features(&f->x, f->g.n, s->F, s->F > 100 ? 12.0 / s->F : 0.15, seed + 1);
    gat_csr_normalize_rows(&f->x);
    gat_model_config_default(&f->cfg, s->F, s->C);
    f->cfg.layers = s->layers;
    f->cfg.heads = s->heads;
    f->cfg.hidden = s->hidden;
    f->cfg.out_heads = s->out_heads;
    f->input_grad = 0;
    f->order = GAT_ORDER_AUTO;
    f->nc = (size_t)f->g.n * (size_t)s->C;
}

static void fixture_init_n(fixture *f, const shape *s, gat_idx others, uint64_t seed)
{
    fixture_init_flags(f, s, others, GAT_GRAPH_SYMMETRIZE, seed);
}

static void fixture_init(fixture *f, const shape *s, uint64_t seed)
{
    fixture_init_n(f, s, 300, seed);
}

static void fixture_free(fixture *f)
{
    gat_graph_destroy(&f->g);
    gat_csr_destroy(&f->x);
}

/* Everything one run produces: logits of an inference and a training forward, every layer's
 * output and attention after the training forward, and the gradients. */
typedef struct outputs {
    gat_real *infer, *train, *grads, *out[GAT_MAX_LAYERS], *alpha[GAT_MAX_LAYERS];
    gat_real *dx; /* the input gradient (nnz(x)) with fixture.input_grad, else NULL */
    size_t n_out[GAT_MAX_LAYERS], n_alpha[GAT_MAX_LAYERS], P;
    int layers;
} outputs;

static gat_real *copy(const gat_real *p, size_t n)
{
    gat_real *c = malloc((n + 1) * sizeof *c);
    ck_assert_ptr_nonnull(c);
    memcpy(c, p, n * sizeof *c);
    return c;
}

/* isa: a build of the engine's kernels (NULL: the suite's variant, tu_variant_now), or "none":
 * the layer-by-layer reference model (tests/ref/loop.c) on the same model; f->cfg.options.alpha
 * (default: the variant's) the alpha storage; rows: restrict the training forward (NULL: all);
 * dlogits are zeroed off the listed rows. */
static int run(const fixture *f, const char *isa, int nt, const gat_idx *rows, gat_idx n_rows,
               double dropout, outputs *o)
{
    gat_model *m = NULL;
    const gat_real *logits;
    memset(o, 0, sizeof *o);
    ref_model *rm = NULL;
    const int ref = isa && !strcmp(isa, "none");
    ck_assert_int_eq(tu_model_create(&m, &f->cfg, 5), GAT_OK);
    /* the run's dropout; the training forward draws the masks of step 42 */
    const unsigned flags = f->input_grad ? GAT_BIND_INPUT_GRADIENT : 0;
    const gat_i_binding all = {.g = &f->g, .x = &f->x, .flags = flags},
                        part = {.g = &f->g, .x = &f->x, .rows = rows, .n_rows = n_rows,
                                .flags = flags};
    const gat_i_run infer = {.set_dropout = 1, .in_p = dropout, .att_p = dropout},
                    train = {.training = 1, .step = 42, .set_dropout = 1, .in_p = dropout,
                             .att_p = dropout};
    if (ref) {
        ck_assert_int_eq(ref_model_create(&rm, m, &all), GAT_OK);
    } else if (isa && tu_model_set_kernels(m, isa) != 0) {
        gat_model_free(m);
        return -1; /* this CPU cannot run it */
    }
    gat_model_set_threads(m, nt);
    ck_assert_int_eq(gat_model_set_order(m, f->order), GAT_OK);
    gat_real *params = gat_model_params(m, &o->P);
    for (size_t k = 0; k < o->P; k++) /* non-zero biases too */
        if (params[k] == 0) params[k] = (gat_real)(0.02 * (double)(k % 5) - 0.04);
#define FORWARD(b, r)                                                                              \
    (ref ? ref_model_forward(rm, m, b, r, &logits) : gat_i_model_forward(m, b, r, &logits))
    ck_assert_int_eq(FORWARD(&all, &infer), GAT_OK);
    o->infer = copy(logits, f->nc);
    if (isa && !ref) ck_assert_str_eq(gat_i_model_fused_isa(m), isa);
    if (!isa) ck_assert_ptr_nonnull(gat_i_model_fused_isa(m));
    ck_assert_int_eq(FORWARD(&part, &train), GAT_OK);
#undef FORWARD
    o->train = copy(logits, f->nc);
    o->layers = gat_model_layer_count(m);
    for (int l = 0; l < o->layers; l++) {
        const gat_real *p;
        o->n_out[l] = (size_t)f->g.n * (size_t)gat_model_layer_width(m, l);
        o->n_alpha[l] = (size_t)f->g.nnz * (size_t)gat_model_layer_heads(m, l);
        if (ref)
            p = ref_model_output(rm, l);
        else
            ck_assert_int_eq(gat_model_layer_output(m, l, &p), GAT_OK);
        o->out[l] = copy(p, o->n_out[l]);
        if (ref)
            p = ref_model_alpha(rm, l);
        else
            ck_assert_int_eq(gat_model_attention(m, l, &p), GAT_OK);
        o->alpha[l] = copy(p, o->n_alpha[l]);
    }
    gat_real *d = malloc(f->nc * sizeof *d);
    ck_assert_ptr_nonnull(d);
    tu_uniform(d, f->nc, -1, 1, 77);
    if (rows) {
        const gat_idx C = f->cfg.classes;
        for (gat_idx i = 0, r = 0; i < f->g.n; i++) {
            if (r < n_rows && rows[r] == i) {
                r++;
                continue;
            }
            for (gat_idx c = 0; c < C; c++)
                d[(size_t)i * C + c] = 0;
        }
    }
    gat_model_zero_grads(m);
    ck_assert_int_eq(ref ? ref_model_backward(rm, m, d) : gat_model_backward(m, d), GAT_OK);
    o->grads = copy(gat_model_grads(m, NULL), o->P);
    if (f->input_grad) {
        const gat_real *dx = NULL;
        if (ref)
            dx = ref_model_input_gradient(rm);
        else
            ck_assert_int_eq(gat_model_input_gradient(m, &dx), GAT_OK);
        o->dx = copy(dx, (size_t)f->x.rowptr[f->x.rows]);
    }
    free(d);
    ref_model_free(rm);
    gat_model_free(m);
    return 0;
}

static void outputs_free(outputs *o)
{
    free(o->infer);
    free(o->train);
    free(o->grads);
    free(o->dx);
    for (int l = 0; l < o->layers; l++)
        free(o->out[l]), free(o->alpha[l]);
}

static double compare(const char *what, const gat_real *got, const gat_real *want, size_t n)
{
    size_t at = 0;
    const double err = tu_max_rel_err(got, want, n, tu_max_abs(want, n), &at);
    printf("%-56s max err / max |ref| %.2e\n", what, err);
    fflush(stdout);
    return err;
}

/* The best build on 2 threads against the reference path on one, with dropout 0.6: inference
 * and training logits and the gradients. */
static void best_matches_reference(fixture *f, const char *what)
{
    outputs ref, got;
    char label[128];
    ck_assert_int_eq(run(f, "none", 1, NULL, 0, 0.6, &ref), 0);
    ck_assert_int_eq(run(f, NULL, 2, NULL, 0, 0.6, &got), 0);
    snprintf(label, sizeof label, "%s: inference logits", what);
    ck_assert(compare(label, got.infer, ref.infer, f->nc) <= TOL);
    snprintf(label, sizeof label, "%s: training logits", what);
    ck_assert(compare(label, got.train, ref.train, f->nc) <= TOL);
    snprintf(label, sizeof label, "%s: gradients", what);
    ck_assert(compare(label, got.grads, ref.grads, ref.P) <= TOL);
    outputs_free(&got);
    outputs_free(&ref);
}

/* A graph big enough (z over 8 MiB) for the large-graph code: software prefetch, keep flags
 * recomputed in the sources pass. The best build against the reference, with dropout. */
START_TEST(test_fused_large)
{
    const shape *s = &SHAPES[0];
    fixture f;
    fixture_init_n(&f, s, 40000 - hub_leaves(s), 500);
    ck_assert((size_t)f.g.n * 64 * sizeof(gat_real) > ((size_t)8 << 20));
    best_matches_reference(&f, "large graph");
    fixture_free(&f);
}
END_TEST

/* A dense graph whose per-edge records (alpha: E x 8 heads) outgrow 8 MiB while z does not:
 * the sources pass prefetches the records of the edges ahead (and the stored keep flags) but
 * not the node rows. The best build against the reference, with dropout. */
START_TEST(test_fused_dense)
{
    const shape *s = &SHAPES[0];
    const gat_idx n = 2500, per = 120;
    const size_t m = (size_t)n * per;
    gat_idx *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    gat_rng r;
    fixture f;
    ck_assert(src && dst);
    gat_rng_seed(&r, 1900);
    for (size_t e = 0; e < m; e++) {
        src[e] = (gat_idx)(e / per);
        dst[e] = (gat_idx)gat_rng_below(&r, (uint64_t)n);
    }
    fixture_init_n(&f, s, 10, 1901); /* the configuration; its graph and features replaced */
    gat_graph_destroy(&f.g);
    gat_csr_destroy(&f.x);
    ck_assert_int_eq(gat_graph_from_edges(&f.g, n, m, src, dst, GAT_GRAPH_SYMMETRIZE), GAT_OK);
    free(src);
    free(dst);
    tu_features(&f.x, n, s->F, 0.15, 1902);
    gat_csr_normalize_rows(&f.x);
    f.nc = (size_t)n * (size_t)s->C;
    ck_assert((size_t)f.g.nnz * 8 * sizeof(gat_real) > ((size_t)8 << 20));
    ck_assert((size_t)f.g.n * 64 * sizeof(gat_real) <= ((size_t)8 << 20));
    best_matches_reference(&f, "dense graph");
    fixture_free(&f);
}
END_TEST

/* Loop index: shape. A directed graph without self-loops: empty neighbourhoods (the isolated
 * node, nodes without in-edges) give the bias alone, as on the reference path. */
START_TEST(test_empty_neighbourhoods)
{
    const shape *s = &SHAPES[_i];
    fixture f;
    fixture_init_flags(&f, s, 300, GAT_GRAPH_NO_SELF_LOOPS, 600 + (uint64_t)_i);
    ck_assert_int_eq(gat_graph_degree(&f.g, f.g.n - 1), 0);
    best_matches_reference(&f, "no self-loops");
    fixture_free(&f);
}
END_TEST

static void assert_same(const char *what, const gat_real *a, const gat_real *b, size_t n)
{
    ck_assert_msg(memcmp(a, b, n * sizeof *a) == 0, "%s differ", what);
}

/* One, two and three threads: bit-identical (fixture f with its configuration). */
static void threads_bit_identical(fixture *f)
{
    outputs one, other;
    ck_assert_int_eq(run(f, NULL, 1, NULL, 0, 0.6, &one), 0);
    for (int nt = 1; nt <= 3; nt++) {
        ck_assert_int_eq(run(f, NULL, nt, NULL, 0, 0.6, &other), 0);
        assert_same("inference logits", other.infer, one.infer, f->nc);
        assert_same("training logits", other.train, one.train, f->nc);
        assert_same("gradients", other.grads, one.grads, one.P);
        outputs_free(&other);
    }
    outputs_free(&one);
}

/* Loop index: 0, 1, 2 for the shapes 0, 2, 5: the reference code's dropout placement (a mask
 * per head and projection dropout) and score biases on one, two and three threads:
 * bit-identical; and on a graph whose z outgrows the caches (prefetch, keeps recomputed),
 * against the reference. */
START_TEST(test_placement_threads)
{
    static const int sh[] = {0, 2, 5};
    fixture f;
    fixture_init(&f, &SHAPES[sh[_i]], 1800 + (uint64_t)_i);
    f.cfg.head_dropout = 1;
    f.cfg.proj_dropout = 0.5;
    f.cfg.score_bias = 1;
    threads_bit_identical(&f);
    fixture_free(&f);
    if (_i) return;
    fixture_init_n(&f, &SHAPES[0], 40000 - hub_leaves(&SHAPES[0]), 1850);
    f.cfg.head_dropout = 1;
    f.cfg.proj_dropout = 0.5;
    f.cfg.score_bias = 1;
    best_matches_reference(&f, "large graph, head masks, projection dropout, score biases");
    fixture_free(&f);
}
END_TEST

/* Loop index: shape. One, two and three threads: bit-identical. */
START_TEST(test_threads_bit_identical)
{
    fixture f;
    fixture_init(&f, &SHAPES[_i], 200 + (uint64_t)_i);
    threads_bit_identical(&f);
    fixture_free(&f);
}
END_TEST

/* Loop index: shape. A restricted training forward gives the listed logits and, with dlogits
 * zero elsewhere, the gradients of the full one, bit for bit. */
START_TEST(test_restricted_rows)
{
    const shape *s = &SHAPES[_i];
    fixture f;
    outputs full, part;
    fixture_init(&f, s, 300 + (uint64_t)_i);
    gat_idx *rows = malloc((size_t)f.g.n * sizeof *rows), n_rows = 0;
    ck_assert_ptr_nonnull(rows);
    /* the hub, a few leaves, a run of the random nodes, the isolated node */
    const gat_idx run_from = hub_leaves(s) + 50;
    for (gat_idx i = 0; i < f.g.n; i++)
        if (i == 0 || i % 997 == 5 || (i > run_from && i % 3 == 0) || i == f.g.n - 1)
            rows[n_rows++] = i;
    ck_assert_int_eq(run(&f, NULL, 2, rows, n_rows, 0.6, &part), 0);
    ck_assert_int_eq(run(&f, NULL, 2, NULL, 0, 0.6, &full), 0);
    /* the full run's gradients are for dense dlogits: rerun with the same zeros */
    outputs full_z;
    ck_assert_int_eq(run(&f, NULL, 1, rows, n_rows, 0.6, &full_z), 0);
    const gat_idx C = f.cfg.classes;
    for (gat_idx r = 0; r < n_rows; r++)
        ck_assert_msg(memcmp(part.train + (size_t)rows[r] * C, full.train + (size_t)rows[r] * C,
                             (size_t)C * sizeof(gat_real)) == 0,
                      "row %d differs when restricted", rows[r]);
    assert_same("restricted gradients, 2 vs 1 threads", part.grads, full_z.grads, part.P);
    outputs_free(&full_z);
    outputs_free(&full);
    outputs_free(&part);
    free(rows);
    fixture_free(&f);
}
END_TEST

/* The restricted gradients equal those of a full forward with the same zeros in dlogits: the
 * reference path computes every row. */
START_TEST(test_restricted_vs_reference)
{
    const shape *s = &SHAPES[0];
    fixture f;
    outputs ref, got;
    fixture_init(&f, s, 400);
    gat_idx *rows = malloc((size_t)f.g.n * sizeof *rows), n_rows = 0;
    ck_assert_ptr_nonnull(rows);
    for (gat_idx i = 0; i < f.g.n; i += 7)
        rows[n_rows++] = i;
    ck_assert_int_eq(run(&f, "none", 1, rows, n_rows, 0.6, &ref), 0);
    ck_assert_int_eq(run(&f, NULL, 2, rows, n_rows, 0.6, &got), 0);
    ck_assert(compare("restricted gradients vs reference", got.grads, ref.grads, ref.P) <= TOL);
    outputs_free(&got);
    outputs_free(&ref);
    free(rows);
    fixture_free(&f);
}
END_TEST

/* Shape `sh`, score and residual connections on every build this CPU runs against the reference
 * path (logits, layer outputs, attention, every gradient); fixture seed `seed`. */
static void vs_reference_with(int sh, double dropout, uint64_t seed, gat_score score, int residual,
                              int input_grad, int head_drop, double proj_p)
{
    const shape *s = &SHAPES[sh];
    fixture f;
    outputs ref, got;
    char what[200];
    fixture_init(&f, s, seed);
    f.input_grad = input_grad;
    f.cfg.score = score;
    f.cfg.residual = residual;
    f.cfg.head_dropout = head_drop;
    f.cfg.proj_dropout = proj_p;
    f.cfg.score_bias = head_drop && proj_p > 0; /* the reference code's whole setup */
    ck_assert_int_eq(run(&f, "none", 1, NULL, 0, dropout, &ref), 0);
    ck_assert(tu_rms(ref.grads, ref.P) > 0);
    int tested = 0;
    /* every build; gat (whose layers may recompute alpha in the backward) both ways */
    static const gat_alpha_storage ALPHAS[] = {GAT_ALPHA_STORE, GAT_ALPHA_RECOMPUTE};
    const int n_alpha = score == GAT_SCORE_GAT ? 2 : 1;
    for (size_t k = 0; k < LEN(ISAS) * (size_t)n_alpha; k++) {
        const gat_alpha_storage alpha = ALPHAS[k / LEN(ISAS)];
        f.cfg.options.alpha = n_alpha > 1 ? alpha : GAT_ALPHA_AUTO;
        if (run(&f, ISAS[k % LEN(ISAS)], 2, NULL, 0, dropout, &got)) continue;
        tested++;
#define CLOSE(label, a, b, n)                                                                      \
    snprintf(what, sizeof what, "%s%s%s%s %s %s%s p=%.1f %s", gat_score_name(score),               \
             residual ? " residual" : "", head_drop ? " head-masks" : "",                          \
             proj_p > 0 ? " proj-dropout" : "", s->name, ISAS[k % LEN(ISAS)],                      \
             n_alpha > 1 ? (alpha == GAT_ALPHA_STORE ? " store" : " recompute") : "", dropout,     \
             label);                                                                               \
    ck_assert_msg(compare(what, a, b, n) <= TOL, "%s", what)
        CLOSE("inference logits", got.infer, ref.infer, f.nc);
        CLOSE("training logits", got.train, ref.train, f.nc);
        for (int l = 0; l < ref.layers; l++) {
            CLOSE("layer output", got.out[l], ref.out[l], ref.n_out[l]);
            CLOSE("attention", got.alpha[l], ref.alpha[l], ref.n_alpha[l]);
        }
        CLOSE("gradients", got.grads, ref.grads, ref.P);
        if (f.input_grad) { /* CLOSE is two statements */
            CLOSE("input gradient", got.dx, ref.dx, (size_t)f.x.rowptr[f.x.rows]);
        }
#undef CLOSE
        outputs_free(&got);
    }
    ck_assert_int_ge(tested, n_alpha);
    outputs_free(&ref);
    fixture_free(&f);
}

static void vs_reference(int sh, double dropout, uint64_t seed, gat_score score, int residual)
{
    vs_reference_with(sh, dropout, seed, score, residual, 0, 0, 0);
}

/* Loop index: score * 2 + odd, dropout 0.6: even, the specialised 8x8 shape; odd, three
 * generic layers of 3 heads with residual connections. The input gradient
 * (GAT_BIND_INPUT_GRADIENT) of every build against the reference model's, with the logits and
 * the parameters' gradients (layer 0's weight gradient then comes from its stored projection
 * gradients). */
START_TEST(test_input_gradient_vs_reference)
{
    if (getenv("GAT_TEST_QUICK") && _i % 2 && _i != 1) return; /* residual layers: gat only */
    vs_reference_with(_i % 2 ? 5 : 0, 0.6, 1000 + (uint64_t)_i, (gat_score)(_i / 2), _i % 2, 1, 0, 0);
}
END_TEST

/* Loop index: shape. The input gradient on 1, 2 and 3 threads: the same bits; and through a
 * renumbered binding (GAT_ORDER_RCM), in the caller's entry order: the same values (without
 * dropout; two shapes). */
START_TEST(test_input_gradient_threads_order)
{
    const shape *s = &SHAPES[_i];
    fixture f;
    outputs one, other;
    fixture_init(&f, s, 1100 + (uint64_t)_i);
    f.input_grad = 1;
    f.order = GAT_ORDER_NONE;
    const size_t nnz = (size_t)f.x.rowptr[f.x.rows];
    ck_assert_int_eq(run(&f, NULL, 1, NULL, 0, 0.6, &one), 0);
    ck_assert(tu_rms(one.dx, nnz) > 0);
    for (int nt = 2; nt <= 3; nt++) {
        ck_assert_int_eq(run(&f, NULL, nt, NULL, 0, 0.6, &other), 0);
        assert_same("input gradient", other.dx, one.dx, nnz);
        outputs_free(&other);
    }
    outputs_free(&one);
    if (_i != 0 && _i != 4) { /* the specialised shape, and 2000 sparse inputs */
        fixture_free(&f);
        return;
    }
    /* without dropout (a renumbered binding draws its masks in its own numbering) */
    ck_assert_int_eq(run(&f, NULL, 2, NULL, 0, 0, &one), 0);
    f.order = GAT_ORDER_RCM;
    ck_assert_int_eq(run(&f, NULL, 2, NULL, 0, 0, &other), 0);
    ck_assert(compare("input gradient, RCM order vs none", other.dx, one.dx, nnz) <= TOL);
    outputs_free(&other);
    outputs_free(&one);
    fixture_free(&f);
}
END_TEST

/* gat_model_input_gradient's errors: NULL arguments, inputs bound without the flag, no
 * backward since the last forward; gat_model_bind refuses unknown flags. */
START_TEST(test_input_gradient_errors)
{
    fixture f;
    gat_model *m = NULL;
    const gat_real *dx = NULL, *logits;
    fixture_init_n(&f, &SHAPES[1], 50, 1200);
    ck_assert_int_eq(tu_model_create(&m, &f.cfg, 5), GAT_OK);
    ck_assert_int_eq(gat_model_input_gradient(NULL, &dx), GAT_EINVAL);
    ck_assert_int_eq(gat_model_input_gradient(m, NULL), GAT_EINVAL);
    ck_assert_str_eq(gat_last_error(), "gat_model_input_gradient: NULL dx");
    ck_assert_int_eq(gat_model_input_gradient(m, &dx), GAT_EINVAL);
    ck_assert(strstr(gat_last_error(), "not bound with GAT_BIND_INPUT_GRADIENT"));
    ck_assert_int_eq(gat_model_bind(m, &f.g, &f.x, 0), GAT_OK);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 1, &logits), GAT_OK);
    ck_assert_int_eq(gat_model_input_gradient(m, &dx), GAT_EINVAL);
    ck_assert(strstr(gat_last_error(), "not bound with GAT_BIND_INPUT_GRADIENT"));
    ck_assert_int_eq(gat_model_bind(m, &f.g, &f.x, 64), GAT_EINVAL);
    ck_assert(strstr(gat_last_error(), "unknown flags 0x40"));
    ck_assert_int_eq(gat_model_bind(m, &f.g, &f.x, GAT_BIND_INPUT_GRADIENT), GAT_OK);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 1, &logits), GAT_OK);
    ck_assert_int_eq(gat_model_input_gradient(m, &dx), GAT_EINVAL);
    ck_assert_str_eq(gat_last_error(),
                     "gat_model_input_gradient: no backward has run since the last forward");
    gat_real *d = calloc(f.nc, sizeof *d);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    ck_assert_int_eq(gat_model_input_gradient(m, &dx), GAT_OK);
    ck_assert_ptr_nonnull(dx);
    ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
    ck_assert_int_eq(gat_model_input_gradient(m, &dx), GAT_EINVAL);
    free(d);
    gat_model_free(m);
    fixture_free(&f);
}
END_TEST

/* Loop index: shape * 3 + variant. The reference code's dropout placement with dropout 0.6: a
 * mask per head (variant 0), projection dropout 0.5 (1), both and the score biases (2). */
START_TEST(test_placement_vs_reference)
{
    const int v = _i % 3;
    if (quick_skips(_i / 3)) return;
    vs_reference_with(_i / 3, 0.6, 1700 + (uint64_t)_i, GAT_SCORE_GAT, 0, 0, v != 1, v ? 0.5 : 0);
}
END_TEST

/* Loop index: shape * 2 + dropout. The gat score. */
START_TEST(test_fused_vs_reference)
{
    if (quick_skips(_i / 2)) return;
    vs_reference(_i / 2, _i % 2 ? 0.6 : 0, 100 + (uint64_t)_i, GAT_SCORE_GAT, 0);
}
END_TEST

/* The other scores and residual connections, loop index (score - first) * shapes + shape,
 * dropout on every other case (quick_skips: the sanitizer run's shapes). */
static void family_vs_reference(int _i, gat_score first, int residual)
{
    const int sh = _i % (int)LEN(SHAPES);
    if (quick_skips(sh)) return;
    vs_reference(sh, _i % 2 ? 0.6 : 0, 800 + (uint64_t)_i,
                 (gat_score)((int)first + _i / (int)LEN(SHAPES)), residual);
}

START_TEST(test_scores_vs_reference)
{
    family_vs_reference(_i, GAT_SCORE_GATV2, 0);
}
END_TEST

/* Loop index: score * shapes + shape. Residual connections (projected: the shapes' widths all
 * differ from their inputs; 16x4 x2 adds its input in layer 1) on every score. */
START_TEST(test_residual_vs_reference)
{
    family_vs_reference(_i, GAT_SCORE_GAT, 1);
}
END_TEST

/* Loop index: score. A graph without self-loops and a restricted training forward (rows whose
 * own projection is read though no edge points to them): the best build against the reference
 * path, and the same bits on 1 and 3 threads. */
START_TEST(test_scores_restricted_no_self_loops)
{
    const gat_score score = (gat_score)_i;
    fixture f;
    outputs ref, got, other;
    fixture_init_flags(&f, &SHAPES[0], 300, GAT_GRAPH_NO_SELF_LOOPS, 900 + (uint64_t)_i);
    f.cfg.score = score;
    gat_idx *rows = malloc((size_t)f.g.n * sizeof *rows), n_rows = 0;
    ck_assert_ptr_nonnull(rows);
    for (gat_idx i = 0; i < f.g.n; i += 5)
        rows[n_rows++] = i;
    ck_assert_int_eq(run(&f, "none", 1, rows, n_rows, 0.6, &ref), 0);
    ck_assert_int_eq(run(&f, NULL, 3, rows, n_rows, 0.6, &got), 0);
    ck_assert_int_eq(run(&f, NULL, 1, rows, n_rows, 0.6, &other), 0);
    char what[96];
    snprintf(what, sizeof what, "%s restricted, no self-loops: gradients", gat_score_name(score));
    ck_assert_msg(compare(what, got.grads, ref.grads, ref.P) <= TOL, "%s", what);
    const gat_idx C = f.cfg.classes;
    for (gat_idx r = 0; r < n_rows; r++)
        ck_assert(tu_max_rel_err(got.train + (size_t)rows[r] * C, ref.train + (size_t)rows[r] * C,
                                 (size_t)C, tu_max_abs(ref.train, f.nc), NULL) <= TOL);
    assert_same("gradients, 3 vs 1 threads", got.grads, other.grads, got.P);
    assert_same("training logits, 3 vs 1 threads", got.train, other.train, f.nc);
    outputs_free(&other);
    outputs_free(&got);
    outputs_free(&ref);
    free(rows);
    fixture_free(&f);
}
END_TEST

/* The wide layers' GEMM (gat_i_fused_ops.gemm, every build this CPU runs): C = A B and C += A B
 * with A row-major (am = K) or read transposed (am = 1, ak = M), on shapes with partial tiles
 * (every count of last rows, with and without B's panels, blocks of fewer than 6 rows) and
 * several K slices, against sums in double; the same bits for 1, 2 and 3 threads. */
START_TEST(test_gemm)
{
    static const gat_idx shapes[][3] = {
        {1, 1, 1},   {3, 17, 5}, {70, 130, 300}, {131, 40, 600}, {64, 128, 256},
        {13, 32, 9}, {9, 96, 7}, {2, 64, 40},    {250, 64, 300}, {245, 48, 520}};
    for (size_t k = 0; k < LEN(ISAS); k++) {
        const gat_i_fused_ops *ops = gat_i_fused_named(ISAS[k]);
        if (!ops) continue;
        for (size_t s = 0; s < LEN(shapes); s++)
            for (int tr = 0; tr < 2; tr++)
                for (int beta = 0; beta < 2; beta++) {
                    const gat_idx M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
                    const size_t am = tr ? 1 : (size_t)K, ak = tr ? (size_t)M : 1;
                    gat_real *a = malloc((size_t)M * K * sizeof *a),
                             *b = malloc((size_t)K * N * sizeof *b),
                             *c0 = malloc((size_t)M * N * sizeof *c0), *c[3];
                    ck_assert(a && b && c0);
                    tu_uniform(a, (size_t)M * K, -1, 1, 1 + s);
                    tu_uniform(b, (size_t)K * N, -1, 1, 11 + s);
                    tu_uniform(c0, (size_t)M * N, -1, 1, 21 + s);
                    for (int nt = 1; nt <= 3; nt++) {
                        c[nt - 1] = malloc((size_t)M * N * sizeof *c[0]);
                        ck_assert_ptr_nonnull(c[nt - 1]);
                        memcpy(c[nt - 1], c0, (size_t)M * N * sizeof *c0);
                        ops->gemm(M, N, K, a, am, ak, b, (size_t)N, beta, c[nt - 1], (size_t)N, nt);
                    }
                    for (gat_idx i = 0; i < M; i++)
                        for (gat_idx j = 0; j < N; j++) {
                            double want = beta ? c0[(size_t)i * N + j] : 0, mag = fabs(want);
                            for (gat_idx q = 0; q < K; q++) {
                                const double t = (double)a[i * am + q * ak] * b[(size_t)q * N + j];
                                want += t, mag += fabs(t);
                            }
                            const double got = c[0][(size_t)i * N + j];
                            ck_assert_msg(fabs(got - want) <= 1e-6 * (mag + 1),
                                          "%s gemm %dx%dx%d%s beta %d: C[%d, %d] = %g, want %g",
                                          ops->isa, M, N, K, tr ? " (A^T)" : "", beta, i, j, got,
                                          want);
                        }
                    for (int nt = 2; nt <= 3; nt++)
                        ck_assert_int_eq(memcmp(c[0], c[nt - 1], (size_t)M * N * sizeof *c0), 0);
                    for (int nt = 0; nt < 3; nt++)
                        free(c[nt]);
                    free(a), free(b), free(c0);
                }
    }
}
END_TEST

/* GELU and its derivative in double: x Phi(x) and Phi(x) + x phi(x), Phi from erfc (exact in
 * the tails, where 1 + erf cancels). */
static double gelu_ref(double x)
{
    return x * 0.5 * erfc(-x / sqrt(2.0));
}
static double gelu_grad_ref(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0)) +
           x * exp(-0.5 * x * x) * 0.39894228040143267794; /* 1 / sqrt(2 pi) */
}

/* Inputs of the element-wise tests: every 4099th float of either sign by bit pattern (denormals
 * to the largest), both sides of where the vector erf clamps (|x| / sqrt 2 = 3.92) and where
 * phi(x) leaves the floats, then the special values; *n of them, allocated. */
static const double ELEM_SPECIAL[] = {0.0,    -0.0,    INFINITY, -INFINITY, NAN,
                                      5.5437, -5.5437, 5.5438,   -5.5438,   13.2,
                                      -13.2,  13.3,    -13.3,    1e-3,      -1e-3};
static gat_real *elem_inputs(size_t *n)
{
    const size_t half = 0x7F800000u / 4099 + 1, ns = LEN(ELEM_SPECIAL);
    gat_real *x = malloc((2 * half + ns) * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t k = 0; k < half; k++) {
        const uint32_t b = (uint32_t)(k * 4099);
        float f;
        memcpy(&f, &b, sizeof f);
        x[2 * k] = f, x[2 * k + 1] = -f;
    }
    for (size_t k = 0; k < ns; k++)
        x[2 * half + k] = (gat_real)ELEM_SPECIAL[k];
    *n = 2 * half + ns;
    return x;
}

/* The wide blocks' element-wise passes (gat_i_fused_ops.gelu, gelu_grad, dropout; every build
 * this CPU runs). GELU against erfc in double: within 2.5e-7 of the value plus 1e-7 of |x| (the
 * float formula's 1 + erf(x / sqrt 2) is good to about 1e-7 absolute, as float erff's is), its
 * derivative within 3e-7 relative plus 1e-7; the special values exactly (GELU(-inf) = 0,
 * GELU'(+-inf) = 1 and 0, NaN kept); every length's tail; dropout element by element as the
 * stream defines it (ref_dropout_mask), NaN and inf dropped to 0; the same bits for 1, 2 and 3
 * threads (the arrays pass the parallel loops' threshold). */
START_TEST(test_elementwise)
{
    size_t n;
    gat_real *x = elem_inputs(&n);
    gat_real *y[3], *g[3];
    for (size_t k = 0; k < LEN(ISAS); k++) {
        const gat_i_fused_ops *ops = gat_i_fused_named(ISAS[k]);
        if (!ops) continue;
        for (int nt = 1; nt <= 3; nt++) {
            y[nt - 1] = malloc(n * sizeof *y[0]), g[nt - 1] = malloc(n * sizeof *g[0]);
            ck_assert(y[nt - 1] && g[nt - 1]);
            ops->gelu(x, y[nt - 1], n, nt);
            for (size_t e = 0; e < n; e++)
                g[nt - 1][e] = 1;
            ops->gelu_grad(x, g[nt - 1], n, nt);
        }
        for (size_t e = 0; e < n; e++) {
            const double v = x[e], wy = gelu_ref(v), wg = gelu_grad_ref(v);
            if (isnan(v)) {
                ck_assert(isnan(y[0][e]) && isnan(g[0][e]));
            } else if (isinf(v)) {
                ck_assert_msg(y[0][e] == (v > 0 ? v : 0) && g[0][e] == (v > 0 ? 1 : 0),
                              "%s: GELU(%g) = %g, GELU' %g", ops->isa, v, y[0][e], g[0][e]);
            } else {
                ck_assert_msg(fabs(y[0][e] - wy) <= 2.5e-7 * fabs(wy) + 1e-7 * fabs(v) + 1e-44,
                              "%s: GELU(%.9g) = %.9g, want %.9g", ops->isa, v, y[0][e], wy);
                ck_assert_msg(fabs(g[0][e] - wg) <= 3e-7 * fabs(wg) + 1e-7,
                              "%s: GELU'(%.9g) = %.9g, want %.9g", ops->isa, v, g[0][e], wg);
            }
        }
        ck_assert(y[0][0] == 0 && !signbit(y[0][0]) && y[0][1] == 0 && signbit(y[0][1]));
        for (int nt = 2; nt <= 3; nt++) {
            ck_assert_int_eq(memcmp(y[0], y[nt - 1], n * sizeof *x), 0);
            ck_assert_int_eq(memcmp(g[0], g[nt - 1], n * sizeof *x), 0);
        }
        /* every tail length: values from the whole array's pass; nothing past the end written */
        for (size_t m = 0; m <= 40; m++) {
            gat_real a[48], b[48];
            for (size_t e = 0; e < 48; e++)
                a[e] = b[e] = -7;
            ops->gelu(x + 1000, a, m, 1);
            for (size_t e = 0; e < m; e++)
                b[e] = 1.5;
            ops->gelu_grad(x + 1000, b, m, 1);
            for (size_t e = 0; e < 48; e++) {
                ck_assert(e < m ? a[e] == y[0][1000 + e] : a[e] == -7);
                ck_assert(e < m ? b[e] == (gat_real)1.5 * g[0][1000 + e] : b[e] == -7);
            }
        }
        /* dropout */
        static const double ps[] = {0.1, 0.5, 0.95};
        const size_t lens[] = {0, 1, 7, 31, 32, 33, 70, 100003};
        for (size_t pi = 0; pi < LEN(ps); pi++)
            for (size_t li = 0; li < LEN(lens); li++) {
                const size_t m = lens[li];
                const uint64_t key = 1234567 + 17 * li + pi;
                const gat_real scale = (gat_real)(1 / (1 - ps[pi]));
                uint8_t *mask = malloc(m + 1);
                gat_real *want = malloc((m + 1) * sizeof *want);
                ck_assert(mask && want);
                ref_dropout_mask(m, ps[pi], key, mask);
                ref_dropout(m, x + n - m, mask, scale, want);
                for (int nt = 1; nt <= 3; nt++) {
                    memcpy(y[nt - 1], x + n - m, m * sizeof *x);
                    ops->dropout(y[nt - 1], m, gat_i_drop_cut(ps[pi]), scale, key, nt);
                    ck_assert_msg(!memcmp(y[nt - 1], want, m * sizeof *want),
                                  "%s: dropout p %g of %zu values, %d threads", ops->isa, ps[pi], m,
                                  nt);
                }
                free(mask), free(want);
            }
        for (int nt = 0; nt < 3; nt++)
            free(y[nt]), free(g[nt]);
    }
    free(x);
}
END_TEST

/* The ISA builds run the same kernels: each named build is either unavailable or reports its
 * name, and the default is one of them. */
START_TEST(test_dispatch)
{
    const gat_i_fused_ops *best = gat_i_fused_get(GAT_KERNELS_AUTO);
    ck_assert_ptr_nonnull(best);
    int found = 0;
    for (size_t k = 0; k < LEN(ISAS); k++) {
        const gat_i_fused_ops *ops = gat_i_fused_named(ISAS[k]);
        if (!ops) continue;
        ck_assert_str_eq(ops->isa, ISAS[k]);
        found += ops == best;
    }
    ck_assert_ptr_nonnull(gat_i_fused_named("base"));
    ck_assert_ptr_null(gat_i_fused_named("sse9"));
    ck_assert_int_eq(found, 1);
    printf("fused kernels for this CPU: %s\n", best->isa);
}
END_TEST

/* gat_model_options.kernels: a build this CPU runs is what the model runs (gat_model_kernels),
 * AUTO the widest; a build it does not run, or a value that is not a gat_kernels, is refused at
 * create and by gat_model_set_options, which leaves the model as it was. The names. */
START_TEST(test_kernels_option)
{
    const gat_i_fused_ops *best = gat_i_fused_get(GAT_KERNELS_AUTO);
    fixture f;
    fixture_init_n(&f, &SHAPES[0], 50, 700);
    for (int k = 0; k < GAT_KERNELS_COUNT; k++) {
        gat_model *m = NULL;
        const gat_real *logits;
        f.cfg.options.kernels = (gat_kernels)k;
        if (!gat_kernels_supported((gat_kernels)k)) {
            ck_assert_ptr_null(gat_i_fused_get((gat_kernels)k));
            ASSERT_FAILS(gat_model_create(&m, &f.cfg, 5), GAT_EINVAL, "do not run on this CPU");
            ck_assert_ptr_null(m);
            printf("kernels %s: refused (%s)\n", gat_kernels_name((gat_kernels)k),
                   gat_last_error());
            continue;
        }
        ck_assert_int_eq(gat_model_create(&m, &f.cfg, 5), GAT_OK);
        ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
        ck_assert_str_eq(gat_model_kernels(m),
                         k == GAT_KERNELS_AUTO ? best->isa : gat_kernels_name((gat_kernels)k));
        ck_assert_ptr_eq(gat_i_model_ops(m), gat_i_fused_get((gat_kernels)k));
        printf("kernels %s: models run the %s kernels\n", gat_kernels_name((gat_kernels)k),
               gat_model_kernels(m));
        /* bad options change nothing */
        gat_model_options o = {.kernels = (gat_kernels)GAT_KERNELS_COUNT};
        ASSERT_FAILS(gat_model_set_options(m, &o), GAT_EINVAL, "is not a gat_kernels");
        o = (gat_model_options){.alpha = (gat_alpha_storage)GAT_ALPHA_COUNT};
        ASSERT_FAILS(gat_model_set_options(m, &o), GAT_EINVAL, "is not a gat_alpha_storage");
        o = (gat_model_options){.fixed_threads = 2};
        ASSERT_FAILS(gat_model_set_options(m, &o), GAT_EINVAL, "fixed_threads must be 0 or 1");
        ASSERT_FAILS(gat_model_set_options(m, NULL), GAT_EINVAL, "NULL o");
        ck_assert_int_eq(gat_model_get_config(m)->options.kernels, k);
        /* a good one: the next forward runs the baseline */
        o = (gat_model_options){.kernels = GAT_KERNELS_BASE};
        ck_assert_int_eq(gat_model_set_options(m, &o), GAT_OK);
        ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
        ck_assert_str_eq(gat_model_kernels(m), "base");
        gat_model_free(m);
    }
    f.cfg.options.kernels = (gat_kernels)7;
    gat_model *m = NULL;
    ASSERT_FAILS(gat_model_create(&m, &f.cfg, 5), GAT_EINVAL,
                 "options.kernels 7 is not a gat_kernels");
    ASSERT_FAILS(gat_model_config_check(&f.cfg), GAT_EINVAL, "options.kernels 7");
    ck_assert_int_eq(gat_kernels_supported((gat_kernels)7), 0);
    ck_assert_int_eq(gat_kernels_supported(GAT_KERNELS_AUTO), 1);
    ck_assert_int_eq(gat_kernels_supported(GAT_KERNELS_BASE), 1);
    ck_assert_ptr_null(gat_kernels_name((gat_kernels)7));
    gat_kernels k;
    ck_assert_int_eq(gat_kernels_from_name("AVX2", &k), GAT_OK);
    ck_assert_int_eq(k, GAT_KERNELS_AVX2);
    ck_assert_int_eq(gat_kernels_from_name("auto", &k), GAT_OK);
    ck_assert_int_eq(k, GAT_KERNELS_AUTO);
    ASSERT_FAILS(gat_kernels_from_name("sse9", &k), GAT_EINVAL, "unknown kernel build 'sse9'");
    ASSERT_FAILS(gat_kernels_from_name(NULL, &k), GAT_EINVAL, "NULL name");
    fixture_free(&f);
}
END_TEST

/* gat_model_options.alpha: a small graph's gat layers keep their coefficients (alpha, signs,
 * keeps) unless told to recompute them; other scores always keep them. gat_model_set_options
 * switches a model (at its next bind). */
START_TEST(test_alpha_option)
{
    fixture f;
    fixture_init_n(&f, &SHAPES[0], 50, 700);
    for (int s = 0; s < 2; s++)
        for (int a = 0; a < GAT_ALPHA_COUNT; a++) {
            gat_model *m = NULL;
            const gat_real *logits;
            f.cfg.score = s ? GAT_SCORE_DOT : GAT_SCORE_GAT;
            f.cfg.options.alpha = (gat_alpha_storage)a;
            const int keeps = s == 1 || a != GAT_ALPHA_RECOMPUTE;
            ck_assert_int_eq(gat_model_create(&m, &f.cfg, 5), GAT_OK);
            ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 1, &logits), GAT_OK);
            for (int l = 0; l < (int)gat_model_layer_count(m); l++)
                ck_assert_int_eq(gat_i_model_keeps_alpha(m, l), keeps);
            gat_model_options o = f.cfg.options;
            o.alpha = a == GAT_ALPHA_RECOMPUTE ? GAT_ALPHA_STORE : GAT_ALPHA_RECOMPUTE;
            ck_assert_int_eq(gat_model_set_options(m, &o), GAT_OK);
            ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 1, &logits), GAT_OK);
            for (int l = 0; l < (int)gat_model_layer_count(m); l++)
                ck_assert_int_eq(gat_i_model_keeps_alpha(m, l), s == 1 || !keeps);
            gat_model_free(m);
        }
    fixture_free(&f);
}
END_TEST

/* gat_model_options.fixed_threads: every call runs the threads asked for, where the governor
 * would start with one (more threads than this process may use CPUs: its prior, gov.h, always
 * says busy then on Linux). Results are the same bits either way. */
START_TEST(test_fixed_threads)
{
    fixture f;
    fixture_init_n(&f, &SHAPES[0], 50, 700);
    const int nt = gat_i_threads(0) + 1;
    gat_real *want = NULL;
    for (int fixed = 0; fixed < 2; fixed++) {
        gat_model *m = NULL;
        const gat_real *logits;
        f.cfg.options.fixed_threads = fixed;
        ck_assert_int_eq(gat_model_create(&m, &f.cfg, 5), GAT_OK);
        gat_model_set_threads(m, nt);
        ck_assert_int_eq(gat_model_forward(m, &f.g, &f.x, 0, &logits), GAT_OK);
        const int used = gat_i_model_threads_in_use(m);
#if defined(__linux__) && defined(_OPENMP)
        ck_assert_int_eq(used, fixed ? nt : 1);
#else
        ck_assert(used == 1 || used == nt);
#endif
        if (fixed) {
            ck_assert_mem_eq(logits, want, f.nc * sizeof *logits);
            /* and back to the governor */
            gat_model_options o = {.fixed_threads = 0};
            ck_assert_int_eq(gat_model_set_options(m, &o), GAT_OK);
            ck_assert_int_eq(gat_model_get_config(m)->options.fixed_threads, 0);
        } else {
            want = copy(logits, f.nc);
        }
        gat_model_free(m);
    }
    free(want);
    fixture_free(&f);
}
END_TEST

/* The comparisons with the reference that loop over every build and alpha storage themselves
 * run once; the rest once per variant (tu_variants: every build, and alpha recomputed). */
static Suite *suite(void)
{
    const int first = tu_variant_index() == 0;
    Suite *s = suite_create("kernels");
    TCase *t = tcase_create("fused vs reference");
    if (first) {
        tcase_add_loop_test(t, test_fused_vs_reference, 0, (int)LEN(SHAPES) * 2);
        tcase_add_test(t, test_alpha_option);
        tcase_add_loop_test(t, test_scores_vs_reference, 0,
                            (GAT_SCORE_COUNT - 1) * (int)LEN(SHAPES));
        tcase_add_loop_test(t, test_residual_vs_reference, 0, GAT_SCORE_COUNT * (int)LEN(SHAPES));
    }
    tcase_add_test(t, test_fused_large);
    tcase_add_test(t, test_fused_dense);
    tcase_add_loop_test(t, test_empty_neighbourhoods, 0, (int)LEN(SHAPES));
    tcase_add_loop_test(t, test_scores_restricted_no_self_loops, 0, GAT_SCORE_COUNT);
    suite_add_tcase(s, t);
    t = tcase_create("threads");
    tcase_add_loop_test(t, test_threads_bit_identical, 0, (int)LEN(SHAPES));
    if (first) tcase_add_test(t, test_fixed_threads);
    suite_add_tcase(s, t);
    t = tcase_create("input gradient");
    if (first)
        tcase_add_loop_test(t, test_input_gradient_vs_reference, 0, GAT_SCORE_COUNT * 2);
    tcase_add_loop_test(t, test_input_gradient_threads_order, 0, (int)LEN(SHAPES));
    if (first) tcase_add_test(t, test_input_gradient_errors);
    suite_add_tcase(s, t);
    /* the reference code's dropout placement (CK_RUN_CASE="dropout placement" runs it alone) */
    t = tcase_create("dropout placement");
    if (first) tcase_add_loop_test(t, test_placement_vs_reference, 0, 3 * (int)LEN(SHAPES));
    tcase_add_loop_test(t, test_placement_threads, 0, 3);
    suite_add_tcase(s, t);
    t = tcase_create("restricted rows");
    tcase_add_loop_test(t, test_restricted_rows, 0, (int)LEN(SHAPES));
    tcase_add_test(t, test_restricted_vs_reference);
    suite_add_tcase(s, t);
    if (first) {
        t = tcase_create("dispatch");
        tcase_add_test(t, test_dispatch);
        tcase_add_test(t, test_gemm);
        tcase_add_test(t, test_elementwise);
        tcase_add_test(t, test_kernels_option);
        suite_add_tcase(s, t);
    }
    return s;
}

int main(void)
{
    return tu_run_variants(suite);
}
