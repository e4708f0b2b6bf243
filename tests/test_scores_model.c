/* Check suite of the attention family in the float build: the `gat` score's initial draw bit for
 * bit as before the family existed, its logits and gradients on every path against a
 * double-precision reference, score names, configuration errors, the per-score parameter tables,
 * deeper, residual and per-layer-head models, determinism across thread counts and restricted
 * outputs for every score. */
#include "testutil.h"
#include "core/core.h"
#include "model/model_i.h"
#include "layers/layers.h"
#include "ref/ref.h"
#include "ref/scores.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ---- the `gat` path against a double-precision reference ---- */

/* Three models: Cora's shape (8 heads of 8, one output head) on a skewed graph; 3 layers with 3
 * heads of 4 and 2 averaged output heads on the 7-node graph without self-loops (node 6 has an
 * empty neighbourhood; 3 heads: the head pattern of a row repeats every 3 vectors); 3 layers
 * with 4 heads of 3 (padded widths in the fused kernels) and 2 output heads on a random variant of
 * that graph; 5 heads of 840 and 3 output heads (rows of 4200 values) on another variant.
 * Parameters are the seeded initialisation. */
typedef struct gat_case {
    gat_graph g;
    gat_csr x;
    gat_model_config cfg;
    uint64_t seed;
} gat_case;

enum { N_GAT_CASES = 4 };

static void gat_case_init(gat_case *c, int k)
{
    memset(c, 0, sizeof *c);
    if (k == 0) {
        tu_graph_skewed(&c->g, 40, 60, GAT_GRAPH_SYMMETRIZE, 3);
        tu_features(&c->x, c->g.n, 30, 0.1, 4);
        gat_csr_normalize_rows(&c->x);
        gat_model_config_default(&c->cfg, 30, 5);
        c->seed = 5;
    } else if (k == 1) {
        tu_graph_small(&c->g, GAT_GRAPH_NO_SELF_LOOPS);
        tu_features(&c->x, c->g.n, 5, 0.5, 6);
        gat_model_config_default(&c->cfg, 5, 3);
        c->cfg.layers = 3;
        c->cfg.heads = 3;
        c->cfg.hidden = 4;
        c->cfg.out_heads = 2;
        c->seed = 6;
    } else if (k == 2) {
        tu_graph_small_random(&c->g, GAT_GRAPH_NO_SELF_LOOPS, 7);
        tu_features(&c->x, c->g.n, 6, 0.5, 8);
        gat_model_config_default(&c->cfg, 6, 4);
        c->cfg.layers = 3;
        c->cfg.heads = 4;
        c->cfg.hidden = 3;
        c->cfg.out_heads = 2;
        c->seed = 9;
    } else {
        /* wide rows: 5 heads of 840 (4200 values per row, the second layer's input as wide) */
        tu_graph_small_random(&c->g, GAT_GRAPH_SYMMETRIZE, 11);
        tu_features(&c->x, c->g.n, 6, 0.5, 12);
        gat_model_config_default(&c->cfg, 6, 3);
        c->cfg.heads = 5;
        c->cfg.hidden = 840;
        c->cfg.out_heads = 3;
        c->seed = 13;
    }
}

static void gat_case_free(gat_case *c)
{
    gat_graph_destroy(&c->g);
    gat_csr_destroy(&c->x);
}

/* splitmix64 and Glorot-uniform, written out again: a gat model's initial parameters are this
 * draw, as in the library of commit a476b5e (before the attention family): per layer, W (fin,
 * H Fo) head by head and row by row within a head (fans fin, Fo), then att_src and att_dst (H Fo
 * each, fans Fo, 1); biases zero. Integer and correctly rounded double arithmetic only (no BLAS,
 * no kernel copy), so the values are the same bits on every machine. */
static uint64_t ref_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void ref_glorot(uint64_t *s, gat_real *p, size_t n, double fan_in, double fan_out)
{
    const double lim = sqrt(6.0 / (fan_in + fan_out));
    for (size_t k = 0; k < n; k++)
        p[k] = (gat_real)((2 * ((double)(ref_splitmix(s) >> 11) * 0x1.0p-53) - 1) * lim);
}

/* Offsets of one layer's tensors in the model's table, checked against the expected shapes. */
typedef struct ref_layer {
    gat_idx fin, fo, width;
    int H, mean;
    size_t w, a_src, a_dst, b;
} ref_layer;

static size_t tensor_offset(gat_model *m, int l, const char *kind, gat_idx d0, gat_idx d1)
{
    int count = 0;
    char name[32];
    const gat_model_tensor *t = gat_model_tensors(m, &count);
    snprintf(name, sizeof name, "layer%d.%s", l, kind);
    for (int k = 0; k < count; k++)
        if (!strcmp(t[k].name, name)) {
            ck_assert_int_eq(t[k].shape[0], d0);
            ck_assert_uint_eq(t[k].size, (size_t)d0 * (size_t)(d1 ? d1 : 1));
            return t[k].offset;
        }
    ck_abort_msg("no tensor %s", name);
    return 0;
}

/* The layers of model m (config cfg): widths and tensor offsets. Returns the layer count. */
static int ref_layers(gat_model *m, const gat_model_config *cfg, ref_layer *R)
{
    for (int l = 0; l < cfg->layers; l++) {
        ref_layer *r = &R[l];
        r->mean = l == cfg->layers - 1;
        r->fin = l ? R[l - 1].width : cfg->in_features;
        r->fo = r->mean ? cfg->classes : cfg->hidden;
        r->H = r->mean ? cfg->out_heads : cfg->heads;
        r->width = r->mean ? r->fo : r->H * r->fo;
        r->w = tensor_offset(m, l, "weight", r->fin, r->H * r->fo);
        r->a_src = tensor_offset(m, l, "att_src", r->H, r->fo);
        r->a_dst = tensor_offset(m, l, "att_dst", r->H, r->fo);
        r->b = tensor_offset(m, l, "bias", r->width, 0);
    }
    return cfg->layers;
}

/* Loop index: case. Every parameter bit for bit as the draw above. */
START_TEST(test_gat_initial_draw)
{
    gat_case c;
    gat_model *m = NULL;
    ref_layer R[GAT_MAX_LAYERS];
    size_t P = 0;
    gat_case_init(&c, _i);
    ck_assert_int_eq(tu_model_create(&m, &c.cfg, c.seed), GAT_OK);
    const gat_real *got = gat_model_params(m, &P);
    gat_real *want = calloc(P, sizeof *want);
    ck_assert_ptr_nonnull(want);
    uint64_t s = c.seed;
    const int L = ref_layers(m, &c.cfg, R);
    for (int l = 0; l < L; l++) {
        const ref_layer *r = &R[l];
        for (int h = 0; h < r->H; h++)
            for (gat_idx row = 0; row < r->fin; row++)
                ref_glorot(&s, want + r->w + (size_t)row * r->H * r->fo + (size_t)h * r->fo,
                           (size_t)r->fo, r->fin, r->fo);
        ref_glorot(&s, want + r->a_src, (size_t)r->H * r->fo, r->fo, 1);
        ref_glorot(&s, want + r->a_dst, (size_t)r->H * r->fo, r->fo, 1);
    }
    size_t differ = 0;
    for (size_t k = 0; k < P; k++)
        differ += memcmp(&got[k], &want[k], sizeof *got) != 0;
    ck_assert_msg(differ == 0, "case %d: %zu of %zu initial parameters differ from the draw", _i,
                  differ, P);
    free(want);
    gat_model_free(m);
    gat_case_free(&c);
}
END_TEST

/* The gat model's forward and the gradients of sum(logits * r) in double precision, written
 * independently of the library's kernels: z = X W; per head s_src = z . a_src, s_dst = z . a_dst;
 * e_ij = LeakyReLU(s_dst_i + s_src_j) over the in-edges j -> i; alpha = softmax_j e_ij;
 * hidden layers ELU(concat_h sum_j alpha_ij z_j + b), the output layer mean_h (...) + b. Empty
 * neighbourhoods aggregate to zero. No dropout. params: the model's (P); logits (N, C) and grads
 * (P) are written. */
static void ref_gat(const gat_case *c, const ref_layer *R, int L, const gat_real *params,
                    const gat_real *r, double *logits, double *grads, size_t P)
{
    const gat_graph *g = &c->g;
    const gat_idx N = g->n;
    const double slope = c->cfg.negative_slope;
    double *xin[GAT_MAX_LAYERS + 1], *z[GAT_MAX_LAYERS], *ss[GAT_MAX_LAYERS], *sd[GAT_MAX_LAYERS],
        *pre[GAT_MAX_LAYERS], *al[GAT_MAX_LAYERS];
#define P_(off) ((double)params[(off)])
    xin[0] = calloc((size_t)N * c->x.cols + 1, sizeof(double));
    ck_assert_ptr_nonnull(xin[0]);
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx k = c->x.rowptr[i]; k < c->x.rowptr[i + 1]; k++)
            xin[0][(size_t)i * c->x.cols + c->x.col[k]] = c->x.val[k];
    for (int l = 0; l < L; l++) {
        const ref_layer *q = &R[l];
        const int H = q->H;
        const gat_idx Fo = q->fo, W = H * Fo;
        z[l] = calloc((size_t)N * W + 1, sizeof(double));
        ss[l] = calloc((size_t)N * H + 1, sizeof(double));
        sd[l] = calloc((size_t)N * H + 1, sizeof(double));
        pre[l] = calloc((size_t)g->nnz * H + 1, sizeof(double));
        al[l] = calloc((size_t)g->nnz * H + 1, sizeof(double));
        xin[l + 1] = calloc((size_t)N * q->width + 1, sizeof(double));
        ck_assert(z[l] && ss[l] && sd[l] && pre[l] && al[l] && xin[l + 1]);
        for (gat_idx i = 0; i < N; i++)
            for (gat_idx f = 0; f < q->fin; f++)
                for (gat_idx o = 0; o < W; o++)
                    z[l][(size_t)i * W + o] +=
                        xin[l][(size_t)i * q->fin + f] * P_(q->w + (size_t)f * W + o);
        for (gat_idx i = 0; i < N; i++)
            for (int h = 0; h < H; h++)
                for (gat_idx f = 0; f < Fo; f++) {
                    const double v = z[l][(size_t)i * W + (size_t)h * Fo + f];
                    ss[l][(size_t)i * H + h] += v * P_(q->a_src + (size_t)h * Fo + f);
                    sd[l][(size_t)i * H + h] += v * P_(q->a_dst + (size_t)h * Fo + f);
                }
        double *out = xin[l + 1];
        for (gat_idx i = 0; i < N; i++)
            for (int h = 0; h < H; h++) {
                const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
                double mx = -INFINITY, sum = 0;
                for (gat_idx k = k0; k < k1; k++) {
                    const double p = sd[l][(size_t)i * H + h] + ss[l][(size_t)g->col[k] * H + h];
                    pre[l][(size_t)k * H + h] = p;
                    mx = fmax(mx, p > 0 ? p : slope * p);
                }
                for (gat_idx k = k0; k < k1; k++) {
                    const double p = pre[l][(size_t)k * H + h];
                    sum += al[l][(size_t)k * H + h] = exp((p > 0 ? p : slope * p) - mx);
                }
                for (gat_idx k = k0; k < k1; k++) {
                    const double a = al[l][(size_t)k * H + h] /= sum;
                    const double *zj = z[l] + (size_t)g->col[k] * W + (size_t)h * Fo;
                    for (gat_idx f = 0; f < Fo; f++)
                        out[(size_t)i * q->width + (q->mean ? 0 : (size_t)h * Fo) + f] +=
                            a * zj[f] / (q->mean ? H : 1);
                }
            }
        for (gat_idx i = 0; i < N; i++)
            for (gat_idx o = 0; o < q->width; o++) {
                double *y = &out[(size_t)i * q->width + o];
                *y += P_(q->b + (size_t)o);
                if (!q->mean && *y <= 0) *y = expm1(*y);
            }
    }
    const gat_idx C = R[L - 1].width;
    memcpy(logits, xin[L], (size_t)N * C * sizeof *logits);

    /* backward: d holds d loss / d (layer output), then d loss / d (pre-activation) */
    memset(grads, 0, P * sizeof *grads);
    double *d = calloc((size_t)N * C + 1, sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (size_t k = 0; k < (size_t)N * C; k++)
        d[k] = r[k];
    for (int l = L - 1; l >= 0; l--) {
        const ref_layer *q = &R[l];
        const int H = q->H;
        const gat_idx Fo = q->fo, W = H * Fo;
        const double *out = xin[l + 1];
        double *dz = calloc((size_t)N * W + 1, sizeof *dz), *dagg = calloc((size_t)N * W + 1, 8);
        double *dss = calloc((size_t)N * H + 1, 8), *dsd = calloc((size_t)N * H + 1, 8);
        double *dal = calloc((size_t)g->nnz * H + 1, 8);
        ck_assert(dz && dagg && dss && dsd && dal);
        for (gat_idx i = 0; i < N; i++)
            for (gat_idx o = 0; o < q->width; o++) {
                const size_t at = (size_t)i * q->width + o;
                if (!q->mean && out[at] <= 0) d[at] *= out[at] + 1; /* ELU' = exp(x) = y + 1 */
                grads[q->b + (size_t)o] += d[at];
            }
        for (gat_idx i = 0; i < N; i++)
            for (int h = 0; h < H; h++)
                for (gat_idx f = 0; f < Fo; f++)
                    dagg[(size_t)i * W + (size_t)h * Fo + f] =
                        q->mean ? d[(size_t)i * q->width + f] / H
                                : d[(size_t)i * q->width + (size_t)h * Fo + f];
        for (gat_idx i = 0; i < N; i++)
            for (int h = 0; h < H; h++) {
                const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
                const double *di = dagg + (size_t)i * W + (size_t)h * Fo;
                double s = 0;
                for (gat_idx k = k0; k < k1; k++) {
                    const size_t j = (size_t)g->col[k], kh = (size_t)k * H + h;
                    for (gat_idx f = 0; f < Fo; f++) {
                        dal[kh] += di[f] * z[l][j * W + (size_t)h * Fo + f];
                        dz[j * W + (size_t)h * Fo + f] += al[l][kh] * di[f];
                    }
                    s += al[l][kh] * dal[kh];
                }
                for (gat_idx k = k0; k < k1; k++) {
                    const size_t kh = (size_t)k * H + h;
                    const double de = al[l][kh] * (dal[kh] - s);
                    const double dp = de * (pre[l][kh] > 0 ? 1 : slope);
                    dsd[(size_t)i * H + h] += dp;
                    dss[(size_t)g->col[k] * H + h] += dp;
                }
            }
        for (gat_idx i = 0; i < N; i++)
            for (int h = 0; h < H; h++)
                for (gat_idx f = 0; f < Fo; f++) {
                    const size_t o = (size_t)h * Fo + f, at = (size_t)i * W + o;
                    const double vs = dss[(size_t)i * H + h], vd = dsd[(size_t)i * H + h];
                    grads[q->a_src + o] += vs * z[l][at];
                    grads[q->a_dst + o] += vd * z[l][at];
                    dz[at] += vs * P_(q->a_src + o) + vd * P_(q->a_dst + o);
                }
        free(d);
        d = calloc((size_t)N * q->fin + 1, sizeof *d);
        ck_assert_ptr_nonnull(d);
        for (gat_idx i = 0; i < N; i++)
            for (gat_idx f = 0; f < q->fin; f++)
                for (gat_idx o = 0; o < W; o++) {
                    const double v = dz[(size_t)i * W + o];
                    grads[q->w + (size_t)f * W + o] += xin[l][(size_t)i * q->fin + f] * v;
                    d[(size_t)i * q->fin + f] += v * P_(q->w + (size_t)f * W + o);
                }
        free(dz), free(dagg), free(dss), free(dsd), free(dal);
    }
#undef P_
    free(d);
    for (int l = 0; l < L; l++)
        free(z[l]), free(ss[l]), free(sd[l]), free(pre[l]), free(al[l]);
    for (int l = 0; l <= L; l++)
        free(xin[l]);
}

/* Largest |got - want| / max(max |want|, floor) over n values. */
static double rel_err_d(const gat_real *got, const double *want, size_t n, double floor)
{
    double worst = 0, scale = floor;
    for (size_t k = 0; k < n; k++)
        scale = fmax(scale, fabs(want[k]));
    for (size_t k = 0; k < n; k++) {
        const double e = fabs((double)got[k] - want[k]) / scale;
        worst = isnan(e) ? INFINITY : fmax(worst, e);
    }
    return worst;
}

/* One run of case c on a build of the engine's kernels and thread count:
 * inference logits, training logits (dropout off: the reference has none), gradients of
 * sum(logits * r). Returns -1 if this CPU cannot run the build. */
typedef struct gat_run {
    gat_real *infer, *train, *grads;
    size_t nc, P;
} gat_run;

static int gat_case_run(const gat_case *c, gat_model *m, const char *path, int nt,
                        const gat_real *r, gat_run *o)
{
    const gat_real *logits;
    /* dropout off: the reference has none */
    const gat_i_binding b = {.g = &c->g, .x = &c->x};
    const gat_i_run train = {.training = 1, .set_dropout = 1};
    if (tu_model_set_kernels(m, path) != 0) return -1;
    gat_model_set_threads(m, nt);
    o->nc = (size_t)c->g.n * c->cfg.classes;
    gat_model_params(m, &o->P);
    o->infer = malloc(o->nc * sizeof *o->infer);
    o->train = malloc(o->nc * sizeof *o->train);
    o->grads = malloc(o->P * sizeof *o->grads);
    ck_assert(o->infer && o->train && o->grads);
    ck_assert_int_eq(gat_model_forward(m, &c->g, &c->x, 0, &logits), GAT_OK);
    memcpy(o->infer, logits, o->nc * sizeof *logits);
    const char *isa = gat_i_model_fused_isa(m);
    ck_assert_str_eq(isa, path); /* the build asked for really ran */
    ck_assert_int_eq(gat_i_model_forward(m, &b, &train, &logits), GAT_OK);
    memcpy(o->train, logits, o->nc * sizeof *logits);
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, r), GAT_OK);
    memcpy(o->grads, gat_model_grads(m, NULL), o->P * sizeof *o->grads);
    return 0;
}

static void gat_run_free(gat_run *o)
{
    free(o->infer), free(o->train), free(o->grads);
}

/* Loop index: case x build (the base, AVX2 and AVX-512 builds of the engine's kernels; those this
 * CPU cannot run are skipped). Logits and every gradient tensor against the double reference
 * within 1e-4 of the tensor's largest value (float rounding under any instruction set gives
 * ~1e-6); then 2 and 3 threads bit-identical to 1 thread (reductions go through fixed chunks). */
START_TEST(test_gat_vs_reference)
{
    static const char *const paths[] = {"base", "avx2", "avx512"};
    const int k = _i % N_GAT_CASES;
    const char *path = paths[_i / N_GAT_CASES];
    const double tol = 1e-4;
    gat_case c;
    gat_model *m = NULL;
    ref_layer R[GAT_MAX_LAYERS];
    gat_run one, other;
    gat_case_init(&c, k);
    ck_assert_int_eq(tu_model_create(&m, &c.cfg, c.seed), GAT_OK);
    const size_t nc = (size_t)c.g.n * c.cfg.classes;
    gat_real *r = malloc(nc * sizeof *r);
    ck_assert_ptr_nonnull(r);
    tu_uniform(r, nc, -1, 1, 10 + (uint64_t)k);
    if (gat_case_run(&c, m, path, 1, r, &one) != 0) {
        printf("gat case %d %s: this CPU cannot run these kernels\n", k, path);
        gat_model_free(m), gat_case_free(&c), free(r);
        return;
    }
    size_t P = 0;
    const gat_real *params = gat_model_params(m, &P);
    const int L = ref_layers(m, &c.cfg, R);
    double *logits = malloc(nc * sizeof *logits), *grads = malloc(P * sizeof *grads);
    ck_assert(logits && grads);
    ref_gat(&c, R, L, params, r, logits, grads, P);

    const double e_inf = rel_err_d(one.infer, logits, nc, 0);
    const double e_tr = rel_err_d(one.train, logits, nc, 0);
    printf("gat case %d %-6s logits vs double reference %.1e (training forward %.1e)\n", k, path,
           e_inf, e_tr);
    ck_assert_msg(e_inf <= tol && e_tr <= tol, "case %d %s: logits differ from the reference by %g",
                  k, path, fmax(e_inf, e_tr));
    /* a tensor whose gradient vanishes (att_dst where every row's LeakyReLU inputs share a sign)
     * is compared on the scale of the largest gradient */
    double gmax = 0;
    for (size_t e = 0; e < P; e++)
        gmax = fmax(gmax, fabs(grads[e]));
    ck_assert(gmax > 0);
    int count = 0;
    const gat_model_tensor *t = gat_model_tensors(m, &count);
    for (int q = 0; q < count; q++) {
        const double e =
            rel_err_d(one.grads + t[q].offset, grads + t[q].offset, t[q].size, 1e-3 * gmax);
        printf("gat case %d %-6s d %-16s vs double reference %.1e\n", k, path, t[q].name, e);
        ck_assert_msg(e <= tol, "case %d %s: gradient of %s differs from the reference by %g", k,
                      path, t[q].name, e);
    }

    for (int nt = 2; nt <= 3; nt++) {
        ck_assert_int_eq(gat_case_run(&c, m, path, nt, r, &other), 0);
        ck_assert_msg(!memcmp(other.infer, one.infer, nc * sizeof *r) &&
                          !memcmp(other.train, one.train, nc * sizeof *r) &&
                          !memcmp(other.grads, one.grads, P * sizeof *r),
                      "case %d %s: %d threads differ from 1", k, path, nt);
        gat_run_free(&other);
    }
    gat_run_free(&one);
    free(logits), free(grads), free(r);
    gat_model_free(m);
    gat_case_free(&c);
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
    /* the rule of every *_from_name: ASCII case-insensitive, nothing else folded */
    ck_assert_int_eq(gat_score_from_name("GAT", &s), GAT_OK);
    ck_assert_int_eq(s, GAT_SCORE_GAT);
    ck_assert_int_eq(gat_score_from_name("Scaled-DOT", &s), GAT_OK);
    ck_assert_int_eq(s, GAT_SCORE_SCALED_DOT);
    ck_assert_int_eq(gat_score_from_name("gat ", &s), GAT_EINVAL);
    ck_assert_str_eq(gat_last_error(), "unknown score function 'gat ' (expected gat, gatv2, dot, "
                                       "scaled-dot, bilinear, cosine or gaussian)");
    ck_assert_int_eq(gat_score_from_name("scaled_dot", &s), GAT_EINVAL);
    assert_message("'scaled_dot'");
    ck_assert_int_eq(s, GAT_SCORE_SCALED_DOT); /* untouched on failure */
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
    ck_assert_int_eq(tu_model_create(&m, &cfg, 1), GAT_EINVAL);
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
    ck_assert_int_eq(tu_model_create(&m, &cfg, 9), GAT_OK);
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
    ref_score_edges(&a, e);
    ref_edge_softmax(&g, H, e, ra);
    ref_dropout(eh, ra, mask, a.ascale, rd);
    ref_aggregate(&g, H, Fo, rd, z, full);
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

/* The logits of a forward of run r on f restricted to rows (n_rows of them; NULL: all), copied. */
static gat_real *forward_rows(gat_model *m, const mfix *f, const gat_idx *rows, gat_idx n_rows,
                              const gat_i_run *r)
{
    const gat_real *logits = NULL;
    const size_t n = (size_t)f->g.n * f->cfg.classes;
    const gat_i_binding b = {.g = &f->g, .x = &f->x, .rows = rows, .n_rows = n_rows};
    ck_assert_int_eq(gat_i_model_forward(m, &b, r, &logits), GAT_OK);
    gat_real *copy = malloc(n * sizeof *copy);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, logits, n * sizeof *copy);
    for (size_t k = 0; k < n; k++)
        ck_assert_msg(isfinite(copy[k]), "logit %zu = %g", k, copy[k]);
    return copy;
}

static gat_real *forward_copy(gat_model *m, const mfix *f, int training)
{
    return forward_rows(m, f, NULL, 0, &(gat_i_run){.training = training});
}

/* Loop index: score (7). Repeats, thread counts, restricted output rows, attention rows summing
 * to one, and backward after a restricted forward against backward after a full one. */
START_TEST(test_model_behaviour)
{
    const gat_score S = (gat_score)_i;
    mfix f;
    gat_model *m = NULL;
    mfix_init(&f, S);
    ck_assert_int_eq(tu_model_create(&m, &f.cfg, 29), GAT_OK);
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
    gat_real *sub = forward_rows(m, &f, rows, 50, &(gat_i_run){.training = 0});
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
    const gat_i_run train = {.training = 1, .step = gat_i_model_step(m) + 1};
    free(forward_rows(m, &f, rows, 50, &train));
    gat_model_zero_grads(m);
    ck_assert_int_eq(gat_model_backward(m, d), GAT_OK);
    memcpy(g_sub, gat_model_grads(m, NULL), P * sizeof *g_sub);
    free(forward_rows(m, &f, NULL, 0, &train));
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
    ck_assert_int_eq(tu_model_create(&ref, &f.cfg, 31), GAT_OK);
    gat_real *want = forward_copy(ref, &f, 0);
    gat_model_free(ref);
    long k = 0;
    for (;; k++) {
        const gat_real *logits = NULL;
        gat_i_alloc_fail_at(k);
        gat_status st = tu_model_create(&m, &f.cfg, 31);
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
        {"gat_initial_draw", test_gat_initial_draw, N_GAT_CASES},
        {"gat_vs_reference", test_gat_vs_reference, N_GAT_CASES * 3},
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

/* once per kernel build and alpha storage (tu_variants) */
int main(void)
{
    return tu_run_variants(scores_model_suite);
}
