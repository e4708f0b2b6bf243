/* Check suite "global_attn" (double build): the streaming global self-attention kernels
 * (layers/global_attn.c) against a dense reference written here (full score matrix, block mask,
 * two-pass softmax), finite-difference gradient checks of q, k, v, no leak between segments, the
 * same bits for 1..3 threads, and one-node segments; the anchor attention (the approximation on
 * one large graph) against the same reference with the keys masked to the anchors, its gradient
 * check, threads, the anchor draw, and a loose bound on its error against exact attention. */
#include "gradcheck.h"

#include "layers/global_attn.h"

#include <math.h>
#include <stdlib.h>

/* Dense reference: for each head the (n, n) score matrix with -inf outside the block diagonal,
 * row softmax by max then sum, then P V. */
static void ref_forward(gat_idx n, gat_idx H, gat_idx D, gat_idx n_seg, const gat_idx *ptr,
                        const gat_real *q, const gat_real *k, const gat_real *v, gat_real *out)
{
    double *row = malloc((size_t)n * sizeof *row);
    ck_assert_ptr_nonnull(row);
    gat_idx *seg = malloc((size_t)n * sizeof *seg);
    ck_assert_ptr_nonnull(seg);
    for (gat_idx g = 0; g < n_seg; g++)
        for (gat_idx i = ptr[g]; i < ptr[g + 1]; i++) seg[i] = g;
    for (gat_idx h = 0; h < H; h++)
        for (gat_idx i = 0; i < n; i++) {
            double mx = -INFINITY, sum = 0;
            for (gat_idx j = 0; j < n; j++) {
                double x = 0;
                for (gat_idx d = 0; d < D; d++)
                    x += q[((size_t)i * H + h) * D + d] * k[((size_t)j * H + h) * D + d];
                row[j] = seg[j] == seg[i] ? x / sqrt((double)D) : -INFINITY;
                if (row[j] > mx) mx = row[j];
            }
            for (gat_idx j = 0; j < n; j++) sum += row[j] = exp(row[j] - mx);
            for (gat_idx d = 0; d < D; d++) {
                double o = 0;
                for (gat_idx j = 0; j < n; j++) o += row[j] / sum * v[((size_t)j * H + h) * D + d];
                out[((size_t)i * H + h) * D + d] = o;
            }
        }
    free(row);
    free(seg);
}

typedef struct ga_ctx {
    gat_idx n, H, D, n_seg;
    const gat_idx *ptr;
    gat_real *q, *k, *v, *dq, *dk, *dv, *out, *lse, *delta;
    int nt;
} ga_ctx;

static void ga_fwd(void *c, gat_real *out)
{
    ga_ctx *a = c;
    gat_i_global_attn_forward(a->n, a->H, a->D, a->n_seg, a->ptr, a->q, a->k, a->v, out, a->lse,
                              a->nt);
    memcpy(a->out, out, (size_t)a->n * a->H * a->D * sizeof *out);
}

static void ga_bwd(void *c, const gat_real *dout)
{
    ga_ctx *a = c;
    gat_i_global_attn_backward(a->n, a->H, a->D, a->n_seg, a->ptr, a->q, a->k, a->v, a->out,
                               a->lse, dout, a->delta, a->dq, a->dk, a->dv, a->nt);
}

static void ctx_init(ga_ctx *a, pool *pl, gat_idx n, gat_idx H, gat_idx D, gat_idx n_seg,
                     const gat_idx *ptr, uint64_t seed)
{
    const size_t m = (size_t)n * H * D;
    *a = (ga_ctx){n, H, D, n_seg, ptr, reals(pl, m), reals(pl, m), reals(pl, m), reals(pl, m),
                  reals(pl, m), reals(pl, m), reals(pl, m), reals(pl, (size_t)n * H),
                  reals(pl, (size_t)n * H), 1};
    tu_uniform(a->q, m, -1.5, 1.5, seed);
    tu_uniform(a->k, m, -1.5, 1.5, seed + 1);
    tu_uniform(a->v, m, -1, 1, seed + 2);
}

static const gat_idx PTR[] = {0, 5, 6, 13}; /* segments of 5, 1 and 7 nodes */

START_TEST(against_dense_reference)
{
    pool pl = {0};
    ga_ctx a;
    ctx_init(&a, &pl, 13, 3, 5, 3, PTR, 7);
    const size_t m = 13 * 3 * 5;
    gat_real *got = reals(&pl, m), *want = reals(&pl, m);
    ga_fwd(&a, got);
    ref_forward(13, 3, 5, 3, PTR, a.q, a.k, a.v, want);
    double worst = 0;
    for (size_t x = 0; x < m; x++) worst = fmax(worst, fabs(got[x] - want[x]));
    printf("global attention: largest difference from the dense reference %.3g\n", worst);
    ck_assert_double_lt(worst, 1e-12);
    /* the one-node segment attends only to itself: its output is its value */
    for (size_t x = 0; x < 15; x++) ck_assert_double_eq_tol(got[5 * 15 + x], a.v[5 * 15 + x], 1e-15);
    pool_free(&pl);
}
END_TEST

START_TEST(gradient_check)
{
    pool pl = {0};
    ga_ctx a;
    ctx_init(&a, &pl, 13, 2, 3, 3, PTR, 11);
    const size_t m = 13 * 2 * 3;
    gc_op op = {.name = "global_attn", .forward = ga_fwd, .backward = ga_bwd, .ctx = &a,
                .n_out = m};
    add_var(&op, "q", a.q, a.dq, m, 1);
    add_var(&op, "k", a.k, a.dk, m, 1);
    add_var(&op, "v", a.v, a.dv, m, 1);
    gradcheck(&op, 21);
    pool_free(&pl);
}
END_TEST

/* A segment of more than 64 nodes takes the row-by-row backward, a small one the block backward:
 * both against finite differences in one batch. */
START_TEST(gradient_check_large_segment)
{
    pool pl = {0};
    ga_ctx a;
    static const gat_idx ptr[] = {0, 3, 73};
    ctx_init(&a, &pl, 73, 1, 2, 2, ptr, 5);
    const size_t m = 73 * 2;
    gc_op op = {.name = "global_attn_large", .forward = ga_fwd, .backward = ga_bwd, .ctx = &a,
                .n_out = m};
    add_var(&op, "q", a.q, a.dq, m, 1);
    add_var(&op, "k", a.k, a.dk, m, 1);
    add_var(&op, "v", a.v, a.dv, m, 1);
    gradcheck(&op, 25);
    pool_free(&pl);
}
END_TEST

/* Changing every input of segment 2 changes no output or gradient of segments 0 and 1. */
START_TEST(no_leak_between_segments)
{
    pool pl = {0};
    ga_ctx a;
    ctx_init(&a, &pl, 13, 2, 4, 3, PTR, 3);
    const size_t m = 13 * 2 * 4, first = 6 * 2 * 4;
    gat_real *o1 = reals(&pl, m), *o2 = reals(&pl, m), *dout = reals(&pl, m);
    gat_real *g1 = reals(&pl, 3 * m);
    tu_uniform(dout, m, -1, 1, 99);
    ga_fwd(&a, o1);
    ga_bwd(&a, dout);
    memcpy(g1, a.dq, m * sizeof *g1);
    memcpy(g1 + m, a.dk, m * sizeof *g1);
    memcpy(g1 + 2 * m, a.dv, m * sizeof *g1);
    for (size_t x = first; x < m; x++) a.q[x] += 3, a.k[x] -= 2, a.v[x] *= -4, dout[x] += 1;
    memset(a.dq, 0, m * sizeof *a.dq), memset(a.dk, 0, m * sizeof *a.dk);
    memset(a.dv, 0, m * sizeof *a.dv);
    ga_fwd(&a, o2);
    ga_bwd(&a, dout);
    ck_assert_int_eq(memcmp(o1, o2, first * sizeof *o1), 0);
    ck_assert_int_eq(memcmp(g1, a.dq, first * sizeof *g1), 0);
    ck_assert_int_eq(memcmp(g1 + m, a.dk, first * sizeof *g1), 0);
    ck_assert_int_eq(memcmp(g1 + 2 * m, a.dv, first * sizeof *g1), 0);
    pool_free(&pl);
}
END_TEST

/* 40 segments of 1..40 nodes and one of 100: forward and backward give the same bits on 1, 2 and 3 threads. */
START_TEST(threads_identical)
{
    pool pl = {0};
    gat_idx ptr[41];
    ptr[0] = 0;
    for (gat_idx g = 0; g < 40; g++) /* segment 5 takes the row-by-row backward */
        ptr[g + 1] = ptr[g] + (g == 5 ? 100 : 1 + (g * 7) % 40);
    const gat_idx n = ptr[40], H = 4, D = 8;
    const size_t m = (size_t)n * H * D;
    gat_real *ref = reals(&pl, 4 * m), *got = reals(&pl, 4 * m), *dout = reals(&pl, m);
    tu_uniform(dout, m, -1, 1, 5);
    for (int nt = 1; nt <= 3; nt++) {
        ga_ctx a;
        ctx_init(&a, &pl, n, H, D, 40, ptr, 17);
        a.nt = nt;
        gat_real *o = nt == 1 ? ref : got;
        ga_fwd(&a, o);
        ga_bwd(&a, dout);
        memcpy(o + m, a.dq, m * sizeof *o);
        memcpy(o + 2 * m, a.dk, m * sizeof *o);
        memcpy(o + 3 * m, a.dv, m * sizeof *o);
        if (nt > 1) ck_assert_int_eq(memcmp(ref, got, 4 * m * sizeof *ref), 0);
    }
    pool_free(&pl);
}
END_TEST

/* ---- anchor attention ---- */

/* Dense reference of the anchor attention: the keys masked to the anchors. */
static void ref_anchor(gat_idx n, gat_idx H, gat_idx D, gat_idx M, const gat_idx *anchor,
                       const gat_real *q, const gat_real *k, const gat_real *v, gat_real *out)
{
    double *row = malloc((size_t)M * sizeof *row);
    ck_assert_ptr_nonnull(row);
    for (gat_idx h = 0; h < H; h++)
        for (gat_idx i = 0; i < n; i++) {
            double mx = -INFINITY, sum = 0;
            for (gat_idx a = 0; a < M; a++) {
                double x = 0;
                for (gat_idx d = 0; d < D; d++)
                    x += q[((size_t)i * H + h) * D + d] * k[((size_t)anchor[a] * H + h) * D + d];
                row[a] = x / sqrt((double)D);
                if (row[a] > mx) mx = row[a];
            }
            for (gat_idx a = 0; a < M; a++) sum += row[a] = exp(row[a] - mx);
            for (gat_idx d = 0; d < D; d++) {
                double o = 0;
                for (gat_idx a = 0; a < M; a++)
                    o += row[a] / sum * v[((size_t)anchor[a] * H + h) * D + d];
                out[((size_t)i * H + h) * D + d] = o;
            }
        }
    free(row);
}

typedef struct an_ctx {
    ga_ctx a;
    gat_idx M;
    const gat_idx *anchor;
} an_ctx;

static void an_fwd(void *c, gat_real *out)
{
    an_ctx *x = c;
    ga_ctx *a = &x->a;
    gat_i_anchor_attn_forward(a->n, a->H, a->D, x->M, x->anchor, a->q, a->k, a->v, out, a->lse,
                              a->nt);
    memcpy(a->out, out, (size_t)a->n * a->H * a->D * sizeof *out);
}

static void an_bwd(void *c, const gat_real *dout)
{
    an_ctx *x = c;
    ga_ctx *a = &x->a;
    gat_i_anchor_attn_backward(a->n, a->H, a->D, x->M, x->anchor, a->q, a->k, a->v, a->out,
                               a->lse, dout, a->delta, a->dq, a->dk, a->dv, a->nt);
}

/* The draw: M distinct ascending rows; all rows for M = n; another seed, another set. */
START_TEST(anchor_pick)
{
    gat_idx a[300], b[300];
    gat_i_anchor_pick(1000, 300, 5, a);
    for (int t = 1; t < 300; t++) ck_assert_int_lt(a[t - 1], a[t]);
    ck_assert_int_ge(a[0], 0);
    ck_assert_int_lt(a[299], 1000);
    gat_i_anchor_pick(1000, 300, 6, b);
    ck_assert_int_ne(memcmp(a, b, sizeof a), 0);
    gat_i_anchor_pick(300, 300, 5, b);
    for (int t = 0; t < 300; t++) ck_assert_int_eq(b[t], t);
    /* roughly uniform: about half of the draws fall in the lower half */
    int low = 0;
    for (int t = 0; t < 300; t++) low += a[t] < 500;
    ck_assert_int_gt(low, 110);
    ck_assert_int_lt(low, 190);
}
END_TEST

/* Against the masked dense reference; with every row an anchor, exact attention itself. */
START_TEST(anchor_reference)
{
    pool pl = {0};
    an_ctx x;
    const gat_idx n = 23, H = 2, D = 5, anchor[] = {1, 4, 5, 9, 15, 22}, seg[] = {0, 23};
    ctx_init(&x.a, &pl, n, H, D, 1, seg, 13);
    x.M = 6, x.anchor = anchor;
    const size_t m = (size_t)n * H * D;
    gat_real *got = reals(&pl, m), *want = reals(&pl, m);
    an_fwd(&x, got);
    ref_anchor(n, H, D, 6, anchor, x.a.q, x.a.k, x.a.v, want);
    double worst = 0;
    for (size_t t = 0; t < m; t++) worst = fmax(worst, fabs(got[t] - want[t]));
    ck_assert_double_lt(worst, 1e-12);
    gat_idx all[23];
    gat_i_anchor_pick(n, n, 1, all);
    x.M = n, x.anchor = all;
    an_fwd(&x, got);
    ref_forward(n, H, D, 1, seg, x.a.q, x.a.k, x.a.v, want);
    worst = 0;
    for (size_t t = 0; t < m; t++) worst = fmax(worst, fabs(got[t] - want[t]));
    ck_assert_double_lt(worst, 1e-12);
    pool_free(&pl);
}
END_TEST

START_TEST(anchor_gradient_check)
{
    pool pl = {0};
    an_ctx x;
    const gat_idx n = 11, anchor[] = {0, 3, 4, 8}, seg[] = {0, 11};
    ctx_init(&x.a, &pl, n, 2, 3, 1, seg, 19);
    x.M = 4, x.anchor = anchor;
    const size_t m = (size_t)n * 2 * 3;
    gc_op op = {.name = "anchor_attn", .forward = an_fwd, .backward = an_bwd, .ctx = &x,
                .n_out = m};
    add_var(&op, "q", x.a.q, x.a.dq, m, 1);
    add_var(&op, "k", x.a.k, x.a.dk, m, 1);
    add_var(&op, "v", x.a.v, x.a.dv, m, 1);
    gradcheck(&op, 23);
    /* rows that are not anchors get no key or value gradient */
    for (gat_idx i = 0; i < n; i++)
        if (i != 0 && i != 3 && i != 4 && i != 8)
            for (int t = 0; t < 6; t++) {
                ck_assert(x.a.dk[(size_t)i * 6 + t] == 0);
                ck_assert(x.a.dv[(size_t)i * 6 + t] == 0);
            }
    pool_free(&pl);
}
END_TEST

START_TEST(anchor_threads_identical)
{
    pool pl = {0};
    const gat_idx n = 700, H = 2, D = 8, M = 90, seg[] = {0, 700};
    gat_idx anchor[90];
    gat_i_anchor_pick(n, M, 3, anchor);
    const size_t m = (size_t)n * H * D;
    gat_real *ref = reals(&pl, 4 * m), *got = reals(&pl, 4 * m), *dout = reals(&pl, m);
    tu_uniform(dout, m, -1, 1, 5);
    for (int nt = 1; nt <= 3; nt++) {
        an_ctx x;
        ctx_init(&x.a, &pl, n, H, D, 1, seg, 29);
        x.a.nt = nt, x.M = M, x.anchor = anchor;
        gat_real *o = nt == 1 ? ref : got;
        an_fwd(&x, o);
        an_bwd(&x, dout);
        memcpy(o + m, x.a.dq, m * sizeof *o);
        memcpy(o + 2 * m, x.a.dk, m * sizeof *o);
        memcpy(o + 3 * m, x.a.dv, m * sizeof *o);
        if (nt > 1) ck_assert_int_eq(memcmp(ref, got, 4 * m * sizeof *ref), 0);
    }
    pool_free(&pl);
}
END_TEST

/* The approximation's error |O_anchor - O_exact| / |O_exact| on 2000 rows whose keys cluster
 * (what makes attention peaked): loose bounds, and more anchors give a smaller error. */
START_TEST(anchor_error_bound)
{
    pool pl = {0};
    const gat_idx n = 2000, H = 2, D = 8, seg[] = {0, 2000};
    ga_ctx a;
    ctx_init(&a, &pl, n, H, D, 1, seg, 31);
    /* rows in 8 clusters: q, k, v = cluster centre + noise */
    gat_real *centre = reals(&pl, 8 * (size_t)H * D);
    tu_uniform(centre, 8 * (size_t)H * D, -2, 2, 37);
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx t = 0; t < H * D; t++) {
            const gat_real c = centre[(size_t)(i % 8) * H * D + t];
            a.q[(size_t)i * H * D + t] = c + a.q[(size_t)i * H * D + t] / 3;
            a.k[(size_t)i * H * D + t] = c + a.k[(size_t)i * H * D + t] / 3;
            a.v[(size_t)i * H * D + t] += c;
        }
    const size_t m = (size_t)n * H * D;
    gat_real *exact = reals(&pl, m), *approx = reals(&pl, m);
    gat_idx *anchor = take(&pl, (size_t)n, sizeof *anchor);
    gat_i_global_attn_forward(n, H, D, 1, seg, a.q, a.k, a.v, exact, a.lse, 1);
    double err[3];
    const gat_idx Ms[3] = {50, 200, 800};
    for (int r = 0; r < 3; r++) {
        gat_i_anchor_pick(n, Ms[r], 41, anchor);
        gat_i_anchor_attn_forward(n, H, D, Ms[r], anchor, a.q, a.k, a.v, approx, a.lse, 1);
        double num = 0, den = 0;
        for (size_t t = 0; t < m; t++)
            num += (approx[t] - exact[t]) * (approx[t] - exact[t]), den += exact[t] * exact[t];
        err[r] = sqrt(num / den);
        printf("anchor attention, %d of %d rows as keys: relative error %.4f\n", Ms[r], n, err[r]);
    }
    ck_assert_double_lt(err[0], 0.5);
    ck_assert_double_lt(err[2], 0.15);
    ck_assert_double_lt(err[2], err[0]);
    pool_free(&pl);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("global_attn");
    TCase *tc = tcase_create("global_attn");
    tcase_add_test(tc, against_dense_reference);
    tcase_add_test(tc, gradient_check);
    tcase_add_test(tc, gradient_check_large_segment);
    tcase_add_test(tc, no_leak_between_segments);
    tcase_add_test(tc, threads_identical);
    suite_add_tcase(s, tc);
    tc = tcase_create("anchors");
    tcase_add_test(tc, anchor_pick);
    tcase_add_test(tc, anchor_reference);
    tcase_add_test(tc, anchor_gradient_check);
    tcase_add_test(tc, anchor_threads_identical);
    tcase_add_test(tc, anchor_error_bound);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
