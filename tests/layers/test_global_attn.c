/* Check suite "global_attn" (double build): the streaming global self-attention kernels
 * (layers/global_attn.c) against a dense reference written here (full score matrix, block mask,
 * two-pass softmax), finite-difference gradient checks of q, k, v, no leak between segments, the
 * same bits for 1..3 threads, and one-node segments. */
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

/* 40 segments of 1..40 nodes: forward and backward give the same bits on 1, 2 and 3 threads. */
START_TEST(threads_identical)
{
    pool pl = {0};
    gat_idx ptr[41];
    ptr[0] = 0;
    for (gat_idx g = 0; g < 40; g++) ptr[g + 1] = ptr[g] + 1 + (g * 7) % 40;
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

static Suite *suite(void)
{
    Suite *s = suite_create("global_attn");
    TCase *tc = tcase_create("global_attn");
    tcase_add_test(tc, against_dense_reference);
    tcase_add_test(tc, gradient_check);
    tcase_add_test(tc, no_leak_between_segments);
    tcase_add_test(tc, threads_identical);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(suite());
}
