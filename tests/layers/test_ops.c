/* Check suite of src/layers in the float build: the fused attention against the composition of
 * the reference single ops of tests/ref (forward and backward) on a skewed graph, thread-count
 * invariance, softmax normalisation at extreme scores, dropout masks, restricted forwards, the
 * element kernels against their references, and the shared helpers (feature transpose, carve). */
#include "testutil.h"
#include "core/core.h"
#include "layers/layers.h"
#include "matrix_i.h"
#include "ref/ref.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


static const double SLOPE = 0.2;
static const double TOL = 1e-5;  /* fused versus reference, nt = 2 versus nt = 1 */
static const gat_idx HUB = 3000; /* the hub's degree; its neighbours have degree 1 */
static const gat_idx OTHERS = 400;

/* Loop index 0: undirected with self-loops; 1: directed without, so the isolated node's
 * neighbourhood is empty. */
static const unsigned graph_flags[] = {GAT_GRAPH_SYMMETRIZE, GAT_GRAPH_NO_SELF_LOOPS};

static void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count + 1, size);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* One attention problem: inputs, the fused kernel's caches and outputs, and gradients. */
typedef struct problem {
    gat_graph g;
    int H, nt, mean;
    gat_idx Fo;
    size_t nz, na, nh, eh, n_out;
    gat_real *z, *a_src, *a_dst, *s_src, *s_dst, *alpha, *out, *dout, *dy;
    gat_real *dz, *da_src, *da_dst;
    uint8_t *amask; /* filled with p = 0.5; used when args.amask is set */
    gat_i_att_scratch s;
    gat_i_att_args args;
} problem;

static void problem_init(problem *p, unsigned flags, int H, gat_idx Fo, int mean, int masked,
                         int nt, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    tu_graph_skewed(&p->g, HUB, OTHERS, flags, seed);
    const gat_idx N = p->g.n;
    p->H = H, p->Fo = Fo, p->mean = mean, p->nt = nt;
    p->nz = (size_t)N * H * Fo, p->na = (size_t)H * Fo, p->nh = (size_t)N * H;
    p->eh = (size_t)p->g.nnz * H;
    p->n_out = (size_t)N * (mean ? 1 : H) * Fo;
    p->z = xcalloc(p->nz, sizeof(gat_real));
    p->a_src = xcalloc(p->na, sizeof(gat_real));
    p->a_dst = xcalloc(p->na, sizeof(gat_real));
    p->s_src = xcalloc(p->nh, sizeof(gat_real));
    p->s_dst = xcalloc(p->nh, sizeof(gat_real));
    p->alpha = xcalloc(p->eh, sizeof(gat_real));
    p->out = xcalloc(p->n_out, sizeof(gat_real));
    p->dout = xcalloc(p->n_out, sizeof(gat_real));
    p->dy = xcalloc(p->nz, sizeof(gat_real));
    p->dz = xcalloc(p->nz, sizeof(gat_real));
    p->da_src = xcalloc(p->na, sizeof(gat_real));
    p->da_dst = xcalloc(p->na, sizeof(gat_real));
    p->amask = xcalloc(p->eh, 1);
    p->s.dpre = xcalloc(p->eh, sizeof(gat_real));
    p->s.ds_src = xcalloc(p->nh, sizeof(gat_real));
    p->s.ds_dst = xcalloc(p->nh, sizeof(gat_real));
    p->s.partial = xcalloc((size_t)nt * 2 * p->na, sizeof(gat_real));
    tu_uniform(p->z, p->nz, -1, 1, seed + 1);
    tu_uniform(p->a_src, p->na, -1, 1, seed + 2);
    tu_uniform(p->a_dst, p->na, -1, 1, seed + 3);
    tu_uniform(p->dout, p->n_out, -1, 1, seed + 4);
    gat_i_dropout_mask(p->eh, 0.5, seed + 5, p->amask, 1);
    p->args = (gat_i_att_args){.g = &p->g,
                               .H = H,
                               .Fo = Fo,
                               .slope = SLOPE,
                               .z = p->z,
                               .a_src = p->a_src,
                               .a_dst = p->a_dst,
                               .s_src = p->s_src,
                               .s_dst = p->s_dst,
                               .alpha = p->alpha,
                               .amask = masked ? p->amask : NULL,
                               .ascale = 2,
                               .mean = mean,
                               .nt = nt};
}

static void problem_free(problem *p)
{
    gat_real *bufs[] = {p->z,      p->a_src,    p->a_dst,    p->s_src,    p->s_dst,  p->alpha,
                        p->out,    p->dout,     p->dy,       p->dz,       p->da_src, p->da_dst,
                        p->s.dpre, p->s.ds_src, p->s.ds_dst, p->s.partial};
    for (size_t k = 0; k < LEN(bufs); k++)
        free(bufs[k]);
    free(p->amask);
    gat_graph_destroy(&p->g);
}

/* The fused forward, then its backward from dout into freshly zeroed gradients. */
static void fused_run(problem *p)
{
    gat_i_attention_forward(&p->args, p->out);
    const gat_real *dy = p->dout;
    if (p->mean) { /* averaged heads: every head receives dout / H */
        for (size_t i = 0; i < (size_t)p->g.n; i++)
            for (int h = 0; h < p->H; h++)
                for (gat_idx f = 0; f < p->Fo; f++)
                    p->dy[(i * p->H + h) * p->Fo + f] = p->dout[i * p->Fo + f] / p->H;
        dy = p->dy;
    }
    memset(p->dz, 0, p->nz * sizeof *p->dz);
    memset(p->da_src, 0, p->na * sizeof *p->da_src);
    memset(p->da_dst, 0, p->na * sizeof *p->da_dst);
    gat_i_attention_backward(&p->args, dy, &p->s, p->dz, p->da_src, p->da_dst);
}

/* The same layer from the reference ops: head_dot x2 -> edge_scores -> edge_softmax -> dropout of
 * alpha -> aggregate -> head_mean, and back through each op's backward. */
typedef struct reference {
    gat_real *s_src, *s_dst, *e, *alpha, *alpha_d, *agg, *out;
    gat_real *dagg, *dalpha_d, *dalpha, *de, *ds_src, *ds_dst, *dz, *da_src, *da_dst;
} reference;

static void reference_run(const problem *p, reference *r)
{
    const gat_graph *g = &p->g;
    const gat_idx N = g->n;
    const int H = p->H;
    const gat_idx Fo = p->Fo;
    gat_real **all[] = {&r->s_src,  &r->s_dst, &r->e,        &r->alpha,  &r->alpha_d, &r->agg,
                        &r->out,    &r->dagg,  &r->dalpha_d, &r->dalpha, &r->de,      &r->ds_src,
                        &r->ds_dst, &r->dz,    &r->da_src,   &r->da_dst};
    const size_t sizes[] = {p->nh, p->nh, p->eh, p->eh, p->eh, p->nz, p->n_out, p->nz,
                            p->eh, p->eh, p->eh, p->nh, p->nh, p->nz, p->na,    p->na};
    for (size_t k = 0; k < LEN(all); k++)
        *all[k] = xcalloc(sizes[k], sizeof(gat_real));

    ref_head_dot(N, H, Fo, p->z, p->a_src, r->s_src);
    ref_head_dot(N, H, Fo, p->z, p->a_dst, r->s_dst);
    ref_edge_scores(g, H, SLOPE, r->s_dst, r->s_src, r->e);
    ref_edge_softmax(g, H, r->e, r->alpha);
    if (p->args.amask)
        ref_dropout(p->eh, r->alpha, p->args.amask, p->args.ascale, r->alpha_d);
    else
        memcpy(r->alpha_d, r->alpha, p->eh * sizeof(gat_real));
    ref_aggregate(g, H, Fo, r->alpha_d, p->z, r->agg);
    if (p->mean)
        ref_head_mean(N, H, Fo, r->agg, r->out);
    else
        memcpy(r->out, r->agg, p->nz * sizeof(gat_real));

    if (p->mean)
        ref_head_mean_backward(N, H, Fo, p->dout, r->dagg);
    else
        memcpy(r->dagg, p->dout, p->nz * sizeof(gat_real));
    ref_aggregate_backward(g, H, Fo, r->alpha_d, p->z, r->dagg, r->dalpha_d, r->dz);
    if (p->args.amask)
        ref_dropout_backward(p->eh, p->args.amask, p->args.ascale, r->dalpha_d, r->dalpha);
    else
        memcpy(r->dalpha, r->dalpha_d, p->eh * sizeof(gat_real));
    ref_edge_softmax_backward(g, H, r->alpha, r->dalpha, r->de);
    ref_edge_scores_backward(g, H, SLOPE, r->s_dst, r->s_src, r->de, r->ds_dst, r->ds_src);
    ref_head_dot_backward(N, H, Fo, p->z, p->a_src, r->ds_src, r->dz, r->da_src);
    ref_head_dot_backward(N, H, Fo, p->z, p->a_dst, r->ds_dst, r->dz, r->da_dst);
}

static void reference_free(reference *r)
{
    gat_real *all[] = {r->s_src,  r->s_dst, r->e,        r->alpha,  r->alpha_d, r->agg,
                       r->out,    r->dagg,  r->dalpha_d, r->dalpha, r->de,      r->ds_src,
                       r->ds_dst, r->dz,    r->da_src,   r->da_dst};
    for (size_t k = 0; k < LEN(all); k++)
        free(all[k]);
}

/* Norm-wise relative error max |got - want| / max |want|, printed and asserted <= tol. Sums over
 * the hub's thousands of edges cancel: their float rounding is relative to the tensor's
 * magnitudes, not to each (possibly tiny) result. */
static double compare(const char *what, const char *tensor, const gat_real *got,
                      const gat_real *want, size_t n, double tol)
{
    size_t at = 0;
    const double scale = tu_max_abs(want, n);
    ck_assert_msg(scale > 0, "%s %s: reference is all zero", what, tensor);
    const double err = tu_max_rel_err(got, want, n, scale, &at);
    printf("%-40s %-15s max err / max |ref| %.2e (at %zu: %.9g vs %.9g)\n", what, tensor, err, at,
           (double)got[at], (double)want[at]);
    fflush(stdout);
    ck_assert_msg(err <= tol, "%s %s[%zu]: %.9g vs %.9g, err %.3g > %g (max |ref| %g)", what,
                  tensor, at, (double)got[at], (double)want[at], err, tol, scale);
    return err;
}

/* ---- (a) fused = composition of reference ops ---- */

/* Head counts and widths: specialised at compile time in the fused kernels (both, or only the
 * width) and not at all. */
static const struct {
    int H;
    gat_idx Fo;
} shapes[] = {{4, 8}, {3, 16}, {3, 5}};

/* Loop index bits: 1 averaged heads, 2 attention dropout, 4 directed without self-loops; _i / 8
 * selects the shape. */
START_TEST(test_fused_vs_reference)
{
    const int mean = _i & 1, masked = (_i >> 1) & 1;
    const unsigned flags = graph_flags[(_i >> 2) & 1];
    const int H = shapes[_i / 8].H;
    const gat_idx Fo = shapes[_i / 8].Fo;
    problem p;
    reference r;
    char what[64];
    problem_init(&p, flags, H, Fo, mean, masked, 1, 1000 + (uint64_t)_i);
    fused_run(&p);
    reference_run(&p, &r);
    snprintf(what, sizeof what, "fused vs ref H=%d Fo=%d %s%s flags=%u", H, Fo,
             mean ? "mean" : "concat", masked ? "+mask" : "", flags);
    compare(what, "out", p.out, r.out, p.n_out, TOL);
    compare(what, "alpha", p.alpha, r.alpha, p.eh, TOL);
    compare(what, "s_src", p.s_src, r.s_src, p.nh, TOL);
    compare(what, "s_dst", p.s_dst, r.s_dst, p.nh, TOL);
    compare(what, "dz", p.dz, r.dz, p.nz, TOL);
    compare(what, "da_src", p.da_src, r.da_src, p.na, TOL);
    compare(what, "da_dst", p.da_dst, r.da_dst, p.na, TOL);
    /* the hub really is in play: its row holds HUB + 1 (or HUB) edges */
    ck_assert_int_ge(gat_graph_degree(&p.g, 0), HUB);
    /* the isolated node: only its self-loop (alpha 1, output its own z), or an empty row */
    const gat_idx iso = p.g.n - 1;
    const size_t w = p.n_out / (size_t)p.g.n;
    if (flags & GAT_GRAPH_NO_SELF_LOOPS) {
        ck_assert_int_eq(gat_graph_degree(&p.g, iso), 0);
        for (size_t c = 0; c < w; c++)
            ck_assert(p.out[(size_t)iso * w + c] == 0);
    } else {
        ck_assert_int_eq(gat_graph_degree(&p.g, iso), 1);
        for (int h = 0; h < p.H; h++)
            ck_assert(p.alpha[(size_t)p.g.rowptr[iso] * p.H + h] == 1);
    }
    reference_free(&r);
    problem_free(&p);
}
END_TEST

/* ---- (b) thread counts ---- */

typedef struct snapshot {
    gat_real *out, *alpha, *s_src, *s_dst, *dz, *da_src, *da_dst;
} snapshot;

static void snap(const problem *p, snapshot *s)
{
    const struct {
        gat_real **dst;
        const gat_real *src;
        size_t n;
    } t[] = {{&s->out, p->out, p->n_out},   {&s->alpha, p->alpha, p->eh},
             {&s->s_src, p->s_src, p->nh},  {&s->s_dst, p->s_dst, p->nh},
             {&s->dz, p->dz, p->nz},        {&s->da_src, p->da_src, p->na},
             {&s->da_dst, p->da_dst, p->na}};
    for (size_t k = 0; k < LEN(t); k++) {
        *t[k].dst = xcalloc(t[k].n, sizeof(gat_real));
        memcpy(*t[k].dst, t[k].src, t[k].n * sizeof(gat_real));
    }
}

static void snap_free(snapshot *s)
{
    gat_real *all[] = {s->out, s->alpha, s->s_src, s->s_dst, s->dz, s->da_src, s->da_dst};
    for (size_t k = 0; k < LEN(all); k++)
        free(all[k]);
}

/* Every output of the run equal bit for bit (exact) or within TOL. */
static void same_run(const char *what, const problem *p, const snapshot *s, int exact)
{
    const struct {
        const char *name;
        const gat_real *got, *want;
        size_t n;
    } t[] = {{"out", p->out, s->out, p->n_out},
             {"alpha", p->alpha, s->alpha, p->eh},
             {"s_src", p->s_src, s->s_src, p->nh},
             {"s_dst", p->s_dst, s->s_dst, p->nh},
             {"dz", p->dz, s->dz, p->nz},
             {"da_src", p->da_src, s->da_src, p->na},
             {"da_dst", p->da_dst, s->da_dst, p->na}};
    for (size_t k = 0; k < LEN(t); k++) {
        if (exact)
            ck_assert_msg(memcmp(t[k].got, t[k].want, t[k].n * sizeof(gat_real)) == 0,
                          "%s: %s differs between two runs", what, t[k].name);
        else
            compare(what, t[k].name, t[k].got, t[k].want, t[k].n, TOL);
    }
}

/* Loop index bits: 1 averaged heads, 2 attention dropout. */
START_TEST(test_fused_threads)
{
    const int mean = _i & 1, masked = (_i >> 1) & 1;
    problem p;
    snapshot one, two;
    char what[64];
    snprintf(what, sizeof what, "fused nt=2 vs nt=1 %s%s", mean ? "mean" : "concat",
             masked ? "+mask" : "");
    problem_init(&p, GAT_GRAPH_SYMMETRIZE, 4, 8, mean, masked, 2, 2000 + (uint64_t)_i);
    p.args.nt = 1;
    fused_run(&p);
    snap(&p, &one);
    memset(p.out, 0, p.n_out * sizeof *p.out);
    fused_run(&p);
    same_run("fused nt=1 repeated", &p, &one, 1);
    p.args.nt = 2;
    fused_run(&p);
    snap(&p, &two);
    memset(p.alpha, 0, p.eh * sizeof *p.alpha);
    fused_run(&p);
    same_run("fused nt=2 repeated", &p, &two, 1);
    same_run(what, &p, &one, 0);
    snap_free(&one);
    snap_free(&two);
    problem_free(&p);
}
END_TEST

/* The projections with nt = 1 and 2: within TOL, and bit-identical when repeated. */
START_TEST(test_projection_threads)
{
    const gat_idx N = 1001, K = 37, M = 24;
    gat_csr x;
    gat_real *X = xcalloc((size_t)N * K, sizeof *X), *W = xcalloc((size_t)K * M, sizeof *W);
    gat_real *dZ = xcalloc((size_t)N * M, sizeof *dZ);
    gat_real *res[2][5];
    const size_t sizes[5] = {(size_t)N * M, (size_t)K * M, (size_t)N * K, (size_t)N * M,
                             (size_t)K * M};
    const char *names[5] = {"gemm_nn", "gemm_tn_acc", "gemm_nt", "spmm", "spmm_backward_w"};
    openblas_set_num_threads(1);
    tu_uniform(X, (size_t)N * K, -1, 1, 3001);
    tu_uniform(W, (size_t)K * M, -1, 1, 3002);
    tu_uniform(dZ, (size_t)N * M, -1, 1, 3003);
    tu_features(&x, N, K, 0.1, 3004);
    /* the model's transpose layout: xt (K, N) and the x position of each of its entries */
    gat_csr xt;
    gat_idx *perm = NULL;
    ck_assert_int_eq(gat_i_csr_transpose_perm(&x, &xt, &perm), GAT_OK);
    for (int run = 0; run < 4; run++) {
        const int nt = 1 + run / 2, slot = run / 2;
        gat_real *r[5];
        for (int k = 0; k < 5; k++)
            r[k] = xcalloc(sizes[k], sizeof(gat_real));
        gat_i_gemm_nn(N, K, M, X, W, r[0], nt);
        tu_uniform(r[1], sizes[1], -1, 1, 3005); /* accumulates onto what is there */
        gat_i_gemm_tn_acc(N, K, M, X, dZ, r[1], nt);
        gat_i_gemm_nt(N, K, M, dZ, W, r[2], nt);
        gat_i_spmm(&x, x.val, M, W, r[3], nt);
        gat_i_spmm_backward_w(&xt, perm, x.val, M, dZ, r[4], nt);
        if (run % 2 == 0) {
            for (int k = 0; k < 5; k++)
                res[slot][k] = r[k];
        } else {
            for (int k = 0; k < 5; k++) {
                ck_assert_msg(memcmp(r[k], res[slot][k], sizes[k] * sizeof(gat_real)) == 0,
                              "%s nt=%d differs between two runs", names[k], nt);
                free(r[k]);
            }
        }
    }
    for (int k = 0; k < 5; k++)
        compare("projection nt=2 vs nt=1", names[k], res[1][k], res[0][k], sizes[k], TOL);
    /* gemm_nn against a plain triple loop */
    double worst = 0;
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx c = 0; c < M; c++) {
            double acc = 0;
            for (gat_idx k = 0; k < K; k++)
                acc += (double)X[(size_t)i * K + k] * W[(size_t)k * M + c];
            worst = fmax(worst, fabs(acc - res[0][0][(size_t)i * M + c]));
        }
    ck_assert_msg(worst < 1e-4, "gemm_nn differs from a plain product by %g", worst);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 5; k++)
            free(res[s][k]);
    free(X);
    free(W);
    free(dZ);
    gat_free(perm);
    gat_csr_destroy(&x);
    gat_csr_destroy(&xt);
}
END_TEST

/* ---- (c) softmax normalisation ---- */

/* Every row's alpha (per head) is finite, in [0, 1], and sums to 1; returns the worst |sum - 1|. */
static double check_rows_normalised(const char *what, const gat_graph *g, int H,
                                    const gat_real *alpha)
{
    double worst = 0;
    for (gat_idx i = 0; i < g->n; i++)
        for (int h = 0; h < H; h++) {
            double sum = 0;
            const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
            for (gat_idx k = k0; k < k1; k++) {
                const gat_real a = alpha[(size_t)k * H + h];
                ck_assert_msg(isfinite(a) && a >= 0 && a <= 1, "%s: alpha[%d, %d] = %g", what, k, h,
                              (double)a);
                sum += a;
            }
            if (k1 == k0) continue; /* an empty row has nothing to normalise */
            /* float rounding of the row sum grows with the degree */
            const double tol = 1e-6 * (1 + sqrt((double)(k1 - k0)));
            ck_assert_msg(fabs(sum - 1) <= tol, "%s: row %d head %d (degree %d) sums to %.9g", what,
                          i, h, k1 - k0, sum);
            worst = fmax(worst, fabs(sum - 1));
        }
    printf("%-40s worst |row sum - 1| %.2e\n", what, worst);
    fflush(stdout);
    return worst;
}

/* Loop index: 0 scores of order 1, 1 of order +-1e4 (exp would overflow without the max
 * subtraction), 2 and 3 likewise on the directed graph without self-loops. */
START_TEST(test_softmax_normalised)
{
    const double scale = _i & 1 ? 1e4 : 1;
    const unsigned flags = graph_flags[(_i >> 1) & 1];
    char what[64];
    problem p;
    problem_init(&p, flags, 4, 8, 0, 0, 2, 4000 + (uint64_t)_i);
    /* |z| <= 1 and |a| = scale / Fo make every score half of order scale */
    for (size_t k = 0; k < p.na; k++) {
        p.a_src[k] *= (gat_real)(scale / p.Fo);
        p.a_dst[k] *= (gat_real)(scale / p.Fo);
    }
    gat_i_attention_forward(&p.args, p.out);
    double smax = 0;
    for (size_t k = 0; k < p.nh; k++)
        smax = fmax(smax, fabs((double)p.s_src[k]));
    ck_assert(smax > 0.1 * scale);
    snprintf(what, sizeof what, "fused softmax scores ~%g flags=%u", scale, flags);
    check_rows_normalised(what, &p.g, p.H, p.alpha);
    for (size_t k = 0; k < p.n_out; k++)
        ck_assert_msg(isfinite(p.out[k]), "out[%zu] = %g", k, (double)p.out[k]);

    /* the reference softmax on scores spread over [-scale, scale] */
    gat_real *e = xcalloc(p.eh, sizeof *e), *alpha = xcalloc(p.eh, sizeof *alpha);
    tu_uniform(e, p.eh, -scale, scale, 4100 + (uint64_t)_i);
    ref_edge_softmax(&p.g, p.H, e, alpha);
    snprintf(what, sizeof what, "reference softmax scores ~%g flags=%u", scale, flags);
    check_rows_normalised(what, &p.g, p.H, alpha);
    free(e);
    free(alpha);
    problem_free(&p);
}
END_TEST

/* ---- (d) dropout masks ---- */

START_TEST(test_dropout_mask)
{
    const size_t n = (size_t)1 << 18; /* above the kernel's threading threshold */
    const double ps[] = {0, 0.1, 0.5, 0.6, 0.9};
    uint8_t *a = xcalloc(n, 1), *b = xcalloc(n, 1), *c = xcalloc(n, 1);
    for (size_t q = 0; q < LEN(ps); q++) {
        const double p = ps[q];
        const uint64_t key = 77 + q;
        memset(a, 7, n);
        gat_i_dropout_mask(n, p, key, a, 1);
        size_t kept = 0, other = 0;
        for (size_t k = 0; k < n; k++) {
            ck_assert_msg(a[k] == 0 || a[k] == 1, "mask[%zu] = %d", k, a[k]);
            kept += a[k];
        }
        const double frac = (double)kept / (double)n;
        printf("dropout p=%.1f: kept %.5f (expected %.1f)\n", p, frac, 1 - p);
        ck_assert_msg(fabs(frac - (1 - p)) <= 0.01, "p = %g keeps %g", p, frac);
        gat_i_dropout_mask(n, p, key, b, 1);
        ck_assert_msg(memcmp(a, b, n) == 0, "p = %g: same key, different mask", p);
        memset(b, 7, n);
        gat_i_dropout_mask(n, p, key, b, 2);
        ck_assert_msg(memcmp(a, b, n) == 0, "p = %g: nt = 2 differs from nt = 1", p);
        gat_i_dropout_mask(n, p, key + 1000, c, 2);
        for (size_t k = 0; k < n; k++)
            other += a[k] != c[k];
        if (p == 0) {
            ck_assert_uint_eq(other, 0); /* nothing dropped whatever the key */
        } else {
            /* independent masks disagree on a fraction 2 p (1 - p) */
            const double dis = (double)other / (double)n;
            ck_assert_msg(fabs(dis - 2 * p * (1 - p)) <= 0.01,
                          "p = %g: another key disagrees "
                          "on %g",
                          p, dis);
        }
    }
    free(a);
    free(b);
    free(c);
}
END_TEST

/* ---- (e) restricted forward ---- */

/* Loop index bits: 1 averaged heads, 2 attention dropout, 4 two threads. */
START_TEST(test_restricted_rows)
{
    const int mean = _i & 1, masked = (_i >> 1) & 1, nt = 1 + ((_i >> 2) & 1);
    problem p;
    problem_init(&p, GAT_GRAPH_SYMMETRIZE, 3, 5, mean, masked, nt, 5000 + (uint64_t)_i);
    const gat_idx N = p.g.n;
    const size_t w = p.n_out / (size_t)N;
    gat_idx *rows = xcalloc((size_t)N, sizeof *rows), n_rows = 0;
    /* the hub, some of its leaves, some other nodes, the isolated last node */
    for (gat_idx i = 0; i < N; i++)
        if (i == 0 || i % 7 == 3 || i == N - 1) rows[n_rows++] = i;
    gat_i_attention_forward(&p.args, p.out);
    gat_real *full = xcalloc(p.n_out, sizeof *full),
             *full_alpha = xcalloc(p.eh, sizeof *full_alpha);
    memcpy(full, p.out, p.n_out * sizeof *full);
    memcpy(full_alpha, p.alpha, p.eh * sizeof *full_alpha);

    for (size_t k = 0; k < p.n_out; k++)
        p.out[k] = NAN;
    for (size_t k = 0; k < p.eh; k++)
        p.alpha[k] = NAN;
    for (size_t k = 0; k < p.nh; k++)
        p.s_src[k] = p.s_dst[k] = NAN;
    p.args.rows = rows;
    p.args.n_rows = n_rows;
    gat_i_attention_forward(&p.args, p.out);
    for (gat_idx r = 0, next = 0; r < N; r++) {
        const int listed = next < n_rows && rows[next] == r;
        const gat_real *o = p.out + (size_t)r * w;
        if (listed) {
            next++;
            ck_assert_msg(memcmp(o, full + (size_t)r * w, w * sizeof *o) == 0,
                          "restricted row %d differs from the full forward", r);
            const size_t k0 = (size_t)p.g.rowptr[r] * p.H, k1 = (size_t)p.g.rowptr[r + 1] * p.H;
            ck_assert_msg(memcmp(p.alpha + k0, full_alpha + k0, (k1 - k0) * sizeof(gat_real)) == 0,
                          "restricted row %d: alpha differs", r);
        } else {
            for (size_t c = 0; c < w; c++)
                ck_assert_msg(isnan(o[c]), "row %d is not listed but was written", r);
        }
    }
    /* score halves are computed for every node: the listed rows read other nodes' s_src */
    for (size_t k = 0; k < p.nh; k++)
        ck_assert(!isnan(p.s_src[k]) && !isnan(p.s_dst[k]));
    free(rows);
    free(full);
    free(full_alpha);
    problem_free(&p);
}
END_TEST

/* ---- (f) element kernels against the references ---- */

/* gat_i_dropout_mask is ref_dropout_mask (masks are integers: equal), for any thread count and
 * length (not a multiple of the four elements one hash serves); ELU, input dropout and the bias
 * gradient within TOL of theirs. */
START_TEST(test_elementwise_vs_reference)
{
    const size_t ns[] = {1, 6, 1001, ((size_t)1 << 17) + 3}; /* the last one runs threaded */
    const double ps[] = {0, 0.3, 0.999};
    for (size_t a = 0; a < LEN(ns); a++)
        for (size_t b = 0; b < LEN(ps); b++) {
            const size_t n = ns[a];
            uint8_t *got = xcalloc(n, 1), *want = xcalloc(n, 1);
            ref_dropout_mask(n, ps[b], 90 + b, want);
            for (int nt = 1; nt <= 2; nt++) {
                memset(got, 7, n);
                gat_i_dropout_mask(n, ps[b], 90 + b, got, nt);
                ck_assert_msg(memcmp(got, want, n) == 0,
                              "dropout mask n=%zu p=%g nt=%d differs from the reference", n, ps[b],
                              nt);
            }
            free(got);
            free(want);
        }

    const size_t n = 1000;
    const gat_real scale = (gat_real)(1 / (1 - 0.4));
    gat_real *x = xcalloc(n, sizeof *x), *y = xcalloc(n, sizeof *y), *r = xcalloc(n, sizeof *r);
    uint8_t *mask = xcalloc(n, 1);
    tu_uniform(x, n, -6, 6, 91);
    x[0] = 0, x[1] = -30, x[2] = 1e-7f, x[3] = -1e-7f; /* ELU's join and its flat tail */
    gat_i_elu(n, x, y);
    ref_elu(n, x, r);
    compare("elu vs ref", "y", y, r, n, TOL);
    gat_i_dropout_mask(n, 0.4, 92, mask, 1);
    gat_i_dropout(n, x, mask, scale, y);
    ref_dropout(n, x, mask, scale, r);
    compare("dropout vs ref", "y", y, r, n, TOL);

    const gat_idx N = 250, M = 4; /* N M = n */
    gat_real db[4], rdb[4];
    tu_uniform(db, 4, -1, 1, 93); /* both accumulate onto what is there */
    memcpy(rdb, db, sizeof db);
    gat_i_bias_backward(N, M, x, db);
    ref_bias_backward(N, M, x, rdb);
    compare("bias_backward vs ref", "db", db, rdb, 4, TOL);
    free(x);
    free(y);
    free(r);
    free(mask);
}
END_TEST

/* ---- (g) shared helpers ---- */

/* gat_i_csr_transpose_perm against the reference transpose (column by column over x): the same
 * rowptr, columns, values and position map; on an empty matrix too. Loop index: 0 sparse, 1 with
 * empty columns and rows, 2 no rows at all. */
START_TEST(test_transpose_perm)
{
    const struct {
        gat_idx rows, cols;
        double density;
    } c[] = {{300, 37, 0.1}, {50, 200, 0.01}, {0, 5, 0.5}};
    gat_csr x, t, rt;
    gat_idx *perm = NULL;
    tu_features(&x, c[_i].rows, c[_i].cols, c[_i].density, 95 + (uint64_t)_i);
    const gat_idx nnz = x.rowptr[x.rows];
    gat_idx *rperm = xcalloc((size_t)nnz, sizeof *rperm);
    ck_assert_int_eq(ref_csr_transpose_perm(&x, &rt, rperm), GAT_OK);
    ck_assert_int_eq(gat_i_csr_transpose_perm(&x, &t, &perm), GAT_OK);
    ck_assert_int_eq(t.rows, x.cols);
    ck_assert_int_eq(t.cols, x.rows);
    ck_assert_uint_eq(t.capacity, (size_t)nnz);
    ck_assert_ptr_nonnull(perm);
    ck_assert(memcmp(t.rowptr, rt.rowptr, ((size_t)t.rows + 1) * sizeof *t.rowptr) == 0);
    ck_assert(memcmp(t.col, rt.col, (size_t)nnz * sizeof *t.col) == 0);
    ck_assert(memcmp(t.val, rt.val, (size_t)nnz * sizeof *t.val) == 0);
    ck_assert(memcmp(perm, rperm, (size_t)nnz * sizeof *perm) == 0);
    ck_assert_int_eq(gat_csr_check(&t), GAT_OK);
    if (_i == 1) { /* the case has empty columns: empty rows of t */
        gat_idx empty = 0;
        for (gat_idx f = 0; f < t.rows; f++)
            empty += t.rowptr[f + 1] == t.rowptr[f];
        ck_assert_int_gt(empty, 0);
    }
    gat_free(perm);
    gat_csr_destroy(&t);
    gat_csr_destroy(&rt);
    free(rperm);
    gat_csr_destroy(&x);
}
END_TEST

/* Every failed allocation of gat_i_csr_transpose_perm: GAT_ENOMEM with the allocator's message,
 * t zeroed and perm NULL (ASan and valgrind see any leak). */
START_TEST(test_transpose_perm_nomem)
{
    gat_csr x, t;
    gat_idx *perm = NULL;
    tu_features(&x, 40, 9, 0.3, 97);
    long k = 0;
    for (;; k++) {
        gat_idx dummy = 0;
        perm = &dummy;              /* set to NULL on failure */
        memset(&t, 0xA5, sizeof t); /* uninitialised on entry, zeroed on failure */
        gat_i_alloc_fail_at(k);
        const gat_status st = gat_i_csr_transpose_perm(&x, &t, &perm);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_ptr_nonnull(strstr(gat_last_error(), "out of memory allocating"));
        ck_assert_ptr_null(perm);
        ck_assert_ptr_null(t.rowptr);
        ck_assert_ptr_null(t.col);
        ck_assert_ptr_null(t.val);
        ck_assert_int_eq(t.rows, 0);
    }
    ck_assert_int_eq(k, 4); /* t's three arrays and the map: each one failed once */
    gat_free(perm);
    gat_csr_destroy(&t);
    gat_csr_destroy(&x);
}
END_TEST

/* gat_i_carve: a measuring pass (base NULL) and a carving pass give the same offsets, 64-byte
 * aligned, disjoint, in order; a size past SIZE_MAX saturates the offset for good. */
START_TEST(test_carve)
{
    const size_t counts[] = {1, 0, 100, 7, 3};
    const size_t sizes[] = {1, 8, 4, 1, 8};
    size_t off = 0, end[LEN(counts)];
    for (size_t k = 0; k < LEN(counts); k++) {
        ck_assert_ptr_null(gat_i_carve(NULL, &off, counts[k], sizes[k]));
        end[k] = off;
    }
    /* 1 byte at 0, 0 bytes at 64, 400 at 64, 7 at 512, 24 at 576 */
    ck_assert_uint_eq(off, 576 + 24);
    char *block = aligned_alloc(64, (off + 63) / 64 * 64);
    ck_assert_ptr_nonnull(block);
    size_t off2 = 0, prev_end = 0;
    for (size_t k = 0; k < LEN(counts); k++) {
        char *p = gat_i_carve(block, &off2, counts[k], sizes[k]);
        ck_assert_uint_eq((uintptr_t)p % 64, 0);
        ck_assert_uint_ge((size_t)(p - block), prev_end);
        ck_assert_uint_eq(off2, end[k]);
        ck_assert_uint_eq((size_t)(p - block) + counts[k] * sizes[k], end[k]);
        memset(p, (int)k, counts[k] * sizes[k]); /* inside the block (ASan) */
        prev_end = end[k];
    }
    free(block);
    /* overflow: count x size past SIZE_MAX, or the aligned offset itself */
    size_t big = 64;
    ck_assert_ptr_null(gat_i_carve(NULL, &big, SIZE_MAX / 4, 8));
    ck_assert_uint_eq(big, SIZE_MAX);
    ck_assert_ptr_null(gat_i_carve(NULL, &big, 1, 1));
    ck_assert_uint_eq(big, SIZE_MAX);
    big = SIZE_MAX - 10;
    ck_assert_ptr_null(gat_i_carve(NULL, &big, 0, 1));
    ck_assert_uint_eq(big, SIZE_MAX);
    big = SIZE_MAX - 200; /* aligns to 2^64 - 192, 64 bytes fit, then 300 do not */
    gat_i_carve(NULL, &big, 64, 1);
    ck_assert_uint_eq(big, SIZE_MAX - 191 + 64);
    gat_i_carve(NULL, &big, 300, 1);
    ck_assert_uint_eq(big, SIZE_MAX);
}
END_TEST

/* gat_i_grown: an eighth more (rounded down), n alone when that passes the limit or n already
 * does, and no wrap-around at SIZE_MAX. */
START_TEST(test_grown)
{
    ck_assert_uint_eq(gat_i_grown(0, 100), 0);
    ck_assert_uint_eq(gat_i_grown(7, 100), 7);
    ck_assert_uint_eq(gat_i_grown(80, 100), 90);
    ck_assert_uint_eq(gat_i_grown(88, 99), 99);
    ck_assert_uint_eq(gat_i_grown(89, 99), 89);
    ck_assert_uint_eq(gat_i_grown(200, 100), 200);
    ck_assert_uint_eq(gat_i_grown(INT32_MAX, INT32_MAX), INT32_MAX);
    ck_assert_uint_eq(gat_i_grown(SIZE_MAX - 8, SIZE_MAX), SIZE_MAX - 8);
    ck_assert_uint_eq(gat_i_grown(SIZE_MAX / 9 * 8, SIZE_MAX), SIZE_MAX / 9 * 9);
}
END_TEST

/* gat_i_spmm_acc: onto zeros over all rows it is gat_i_spmm; only listed rows change; W NULL adds
 * x itself. */
START_TEST(test_spmm_acc)
{
    const gat_idx N = 200, K = 13, M = 6;
    gat_csr x;
    tu_features(&x, N, K, 0.2, 98);
    gat_real *W = xcalloc((size_t)K * M, sizeof *W), *Z = xcalloc((size_t)N * M, sizeof *Z);
    gat_real *A = xcalloc((size_t)N * M, sizeof *A), *B = xcalloc((size_t)N * K, sizeof *B);
    tu_uniform(W, (size_t)K * M, -1, 1, 99);
    gat_i_spmm(&x, x.val, M, W, Z, 2);
    gat_i_spmm_acc(&x, x.val, M, W, NULL, 0, A, 2);
    compare("spmm_acc vs spmm", "Z", A, Z, (size_t)N * M, TOL);
    const gat_idx rows[] = {0, 17, 18, N - 1};
    gat_i_spmm_acc(&x, x.val, M, W, rows, LEN(rows), A, 1);
    for (gat_idx i = 0, next = 0; i < N; i++) {
        const int listed = next < (gat_idx)LEN(rows) && rows[next] == i;
        next += listed;
        for (gat_idx c = 0; c < M; c++) {
            const double want = (listed ? 2 : 1) * (double)Z[(size_t)i * M + c];
            ck_assert_msg(fabs(A[(size_t)i * M + c] - want) <= 1e-5 * (1 + fabs(want)),
                          "row %d (%s) col %d: %g vs %g", i, listed ? "listed" : "not listed", c,
                          (double)A[(size_t)i * M + c], want);
        }
    }
    gat_i_spmm_acc(&x, x.val, K, NULL, NULL, 0, B, 1);
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx k = x.rowptr[i]; k < x.rowptr[i + 1]; k++)
            ck_assert(B[(size_t)i * K + x.col[k]] == x.val[k]);
    free(W);
    free(Z);
    free(A);
    free(B);
    gat_csr_destroy(&x);
}
END_TEST

static Suite *ops_suite(void)
{
    Suite *s = suite_create("ops");
    struct {
        const char *name;
        const TTest *test;
        int loops;
    } cases[] = {
        {"fused_vs_reference", test_fused_vs_reference, 8 * (int)LEN(shapes)},
        {"fused_threads", test_fused_threads, 4},
        {"projection_threads", test_projection_threads, 1},
        {"softmax_normalised", test_softmax_normalised, 4},
        {"dropout_mask", test_dropout_mask, 1},
        {"restricted_rows", test_restricted_rows, 8},
        {"elementwise_vs_reference", test_elementwise_vs_reference, 1},
        {"transpose_perm", test_transpose_perm, 3},
        {"transpose_perm_nomem", test_transpose_perm_nomem, 1},
        {"carve", test_carve, 1},
        {"grown", test_grown, 1},
        {"spmm_acc", test_spmm_acc, 1},
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
    return tu_run(ops_suite());
}
