/* Element-wise passes of the wide blocks (gat/gps.h; gat_i_fused_ops.dropout, gelu, gelu_grad),
 * compiled once per instruction set beside the fused kernels: dropout of a dense array by its
 * stream (layers/layers.h) and the exact GELU, x Phi(x) = x (1 + erf(x / sqrt 2)) / 2
 * (Hendrycks & Gimpel 2016; PyTorch's GELU(approximate='none')), and its derivative. */
#include "fused_drop.h"

/* ---- erf on 8 lanes ---- */

#ifndef GAT_REAL_DOUBLE
/* erf(x) = x P(x^2) / Q(x^2) for |x| <= ERF_X1, with P of degree 6 and Q of degree 5 (Q(0) = 1)
 * fitted to erf(x) / x on (0, ERF_X1] by tools/fit-erf.py (max. relative error 1.8e-9; evaluated
 * in double and rounded, within 0.53 ulp of erf on every 37th float there). Past ERF_X1 every
 * float's erf rounds to +-1 (erff's does from 3.9192), and the rational gives 1 there. */
#define ERF_X1 3.92
static const double ERF_P[7] = {
    1.1283791691512479,     0.18513532054253376,    0.054244011739187394,   0.0038386264104213284,
    0.00037675995059539223, 4.6092609225699409e-06, -1.2799939053815518e-08};
static const double ERF_Q[6] = {1,
                                0.49740531221092293,
                                0.11387379459381433,
                                0.015430059910201049,
                                0.001301526921498917,
                                6.2399428123432075e-05};

typedef double V8d __attribute__((vector_size(8 * sizeof(double))));
#endif

/* The rational in double (a float Horner's rounding would cost several ulp), so that the result
 * is erf rounded, within about half an ulp; NaN stays NaN and +-inf gives +-1. */
INLINE V8 verf(V8 x)
{
#ifdef GAT_REAL_DOUBLE
    V8 r;
    for (int k = 0; k < 8; k++)
        r[k] = erf(x[k]);
    return r;
#else
    x = sel(x > (float)ERF_X1, bc((float)ERF_X1), x);
    x = sel(x < -(float)ERF_X1, bc(-(float)ERF_X1), x);
    const V8d d = __builtin_convertvector(x, V8d), t = d * d;
    V8d p = ERF_P[6] - (V8d){0}, q = ERF_Q[5] - (V8d){0};
    for (int k = 5; k >= 0; k--)
        p = p * t + ERF_P[k];
    for (int k = 4; k >= 0; k--)
        q = q * t + ERF_Q[k];
    return __builtin_convertvector(d * p / q, V8);
#endif
}

#define SQRT1_2 ((gat_real)0.70710678118654752440)      /* 1 / sqrt(2) */
#define INV_SQRT_2PI ((gat_real)0.39894228040143267794) /* 1 / sqrt(2 pi) */

/* 1 + erf(x / sqrt 2) = 2 Phi(x) */
INLINE V8 two_phi(V8 x)
{
    return 1 + verf(x * SQRT1_2);
}

/* GELU: x Phi(x), 0 where Phi(x) is (x <= -5.5, and -inf) */
INLINE V8 vgelu(V8 x)
{
    const V8 u = two_phi(x);
    return sel(u == 0, bc(0), (gat_real)0.5 * x * u);
}

/* GELU'(x) = Phi(x) + x phi(x), the second term 0 where exp(-x^2 / 2) is below the smallest
 * normal value (vexp's floor; float: |x| > 13.2), and so for +-inf, which get 1 and 0 */
#ifdef GAT_REAL_DOUBLE
#define EXP_MIN (-708.3)
#else
#define EXP_MIN (-87.3f)
#endif
INLINE V8 vgelu_grad(V8 x)
{
    const V8 h = (gat_real)-0.5 * x * x;
    const V8 xphi = sel(h < EXP_MIN, bc(0), x * vexp(h) * INV_SQRT_2PI);
    return (gat_real)0.5 * two_phi(x) + xphi;
}

/* The last n mod 8 < 8 values of x, in a vector padded with zeros, and back */
INLINE V8 ld_tail(const gat_real *x, size_t r)
{
    V8 t = bc(0);
    memcpy(&t, x, r * sizeof *x);
    return t;
}
INLINE void st_tail(gat_real *y, V8 t, size_t r)
{
    memcpy(y, &t, r * sizeof *y);
}

/* Blocks of 8 in parallel, then the tail: the same values for any thread count. */
void FN(gat_i_fused_gelu)(const gat_real *x, gat_real *y, size_t n, int nt)
{
    (void)nt;
    const size_t nb = n / 8, o = 8 * nb;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 65536)
    for (size_t b = 0; b < nb; b++)
        st(y + 8 * b, vgelu(ld(x + 8 * b)));
    if (n > o) st_tail(y + o, vgelu(ld_tail(x + o, n - o)), n - o);
}

void FN(gat_i_fused_gelu_grad)(const gat_real *x, gat_real *dy, size_t n, int nt)
{
    (void)nt;
    const size_t nb = n / 8, o = 8 * nb;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 65536)
    for (size_t b = 0; b < nb; b++)
        st(dy + 8 * b, ld(dy + 8 * b) * vgelu_grad(ld(x + 8 * b)));
    if (n > o) st_tail(dy + o, ld_tail(dy + o, n - o) * vgelu_grad(ld_tail(x + o, n - o)), n - o);
}

/* ---- dropout ---- */

/* Elements o .. o + 31 (o a multiple of 32): the eight hashes of their blocks of four in one loop
 * the compiler vectorises where the build has 64-bit lane multiplies, then four vectors of
 * 16-bit fields (little-endian: field t of hash b is element 4 b + t). */
INLINE void drop32(gat_real *x, size_t o, uint32_t cut, gat_real scale, uint64_t key)
{
    uint64_t h[8];
    for (int t = 0; t < 8; t++)
        h[t] = gat_i_hash64(key, o / 4 + (uint64_t)t);
    V8h u[4];
    memcpy(u, h, sizeof u);
    for (int q = 0; q < 4; q++) {
        const VI keep = __builtin_convertvector(u[q], VI) >= (VI){0} + (int)cut;
        const V8 v = ld(x + o + 8 * q);
        st(x + o + 8 * q, sel(keep, v * scale, bc(0)));
    }
}

void FN(gat_i_fused_dropout)(gat_real *x, size_t n, uint32_t cut, gat_real scale, uint64_t key,
                             int nt)
{
    (void)nt;
    const size_t nc = n / 32;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n > 65536)
    for (size_t c = 0; c < nc; c++)
        drop32(x, 32 * c, cut, scale, key);
    for (size_t k = 32 * nc; k < n; k++)
        x[k] = gat_i_keep16(key, k) >= cut ? x[k] * scale : 0;
}
