/* Fused GAT layer kernels (Velickovic et al. 2018, eq. 1-4, with dropout): z = dropout(x) W and
 * the score halves s = z . a; per target i, e_ij = LeakyReLU(s_dst_i + s_src_j (+ the edge term
 * x_ij M, PyG's GATConv(edge_dim))), alpha = softmax
 * (max subtracted), out_i = act(sum_j dropout(alpha_ij) z_j + b); and their backward. Compiled
 * once per instruction set (GAT_I_ISA names the copy); fused.h describes layouts and chunks. */
#include "fused.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__AVX__) && !defined(GAT_REAL_DOUBLE)
#include <immintrin.h>
#define HAVE_AVX 1
#endif

#define FN GAT_I_FN
#define STR2(a) #a
#define STR(a) STR2(a)

#define INLINE GAT_I_INLINE

/* the vector helpers are always inlined: their calling convention never matters */
#pragma GCC diagnostic ignored "-Wpsabi"

/* ---- 8-lane vectors (GCC/Clang vector extensions): one register with AVX2 or AVX-512 for
 * float, two with SSE2. V8u loads and stores at any gat_real alignment. ---- */
typedef gat_real V8 __attribute__((vector_size(8 * sizeof(gat_real))));
typedef gat_real V8u __attribute__((vector_size(8 * sizeof(gat_real)), aligned(sizeof(gat_real))));
#ifdef GAT_REAL_DOUBLE
typedef int64_t VI __attribute__((vector_size(8 * sizeof(gat_real))));
#else
typedef int32_t VI __attribute__((vector_size(8 * sizeof(gat_real))));
#endif
typedef uint16_t V8h __attribute__((vector_size(16)));

INLINE V8 ld(const gat_real *p)
{
    return *(const V8u *)p;
}
INLINE void st(gat_real *p, V8 v)
{
    *(V8u *)p = v;
}
INLINE V8 bc(gat_real x)
{
    return (V8){0} + x;
}
/* m ? a : b lane-wise, m from a comparison (all bits set or clear) */
INLINE V8 sel(VI m, V8 a, V8 b)
{
#ifdef HAVE_AVX
    return (V8)_mm256_blendv_ps((__m256)b, (__m256)a, (__m256)m);
#else
    return (V8)(((VI)a & m) | ((VI)b & ~m));
#endif
}
INLINE gat_real hsum(V8 v)
{
    return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}
/* lane c's bit of a comparison mask m: the bits (1 << c) of the true lanes */
INLINE unsigned movemask(VI m)
{
#ifdef HAVE_AVX
    return (unsigned)_mm256_movemask_ps((__m256)m);
#else
    const VI b = m & (VI){1, 2, 4, 8, 16, 32, 64, 128};
    return (unsigned)((b[0] | b[1]) | (b[2] | b[3])) | (unsigned)((b[4] | b[5]) | (b[6] | b[7]));
#endif
}
/* lanes of byte `bits` as a comparison mask */
INLINE VI expand(unsigned bits)
{
    return (((VI){0} + (int)bits) & (VI){1, 2, 4, 8, 16, 32, 64, 128}) != 0;
}

/* Prefetch of a gathered row of hw values, AHEAD edges early: the gathers of z_j, dy_i and alpha
 * follow the CSR's columns, which the hardware prefetchers cannot predict. */
#define AHEAD 8
INLINE void prefetch_row(const gat_real *p, size_t hw)
{
    for (size_t o = 0; o < hw * sizeof(gat_real); o += 64)
        __builtin_prefetch((const char *)p + o, 0, 3);
}

/* 8x8 transpose: out[c][r] = in[r][c] */
INLINE void transpose8(const V8 *in, V8 *out)
{
    V8 t[8], u[8];
    for (int r = 0; r < 8; r += 2) {
        t[r] = __builtin_shuffle(in[r], in[r + 1], (VI){0, 8, 1, 9, 4, 12, 5, 13});
        t[r + 1] = __builtin_shuffle(in[r], in[r + 1], (VI){2, 10, 3, 11, 6, 14, 7, 15});
    }
    for (int r = 0; r < 8; r += 4)
        for (int s = 0; s < 2; s++) {
            u[r + 2 * s] =
                __builtin_shuffle(t[r + s], t[r + s + 2], (VI){0, 1, 8, 9, 4, 5, 12, 13});
            u[r + 2 * s + 1] =
                __builtin_shuffle(t[r + s], t[r + s + 2], (VI){2, 3, 10, 11, 6, 7, 14, 15});
        }
    for (int r = 0; r < 4; r++) {
        out[r] = __builtin_shuffle(u[r], u[r + 4], (VI){0, 1, 2, 3, 8, 9, 10, 11});
        out[r + 4] = __builtin_shuffle(u[r], u[r + 4], (VI){4, 5, 6, 7, 12, 13, 14, 15});
    }
}

/* exp on 8 lanes: Cephes' single-precision polynomial, branch-free (max. relative error ~2 ulp;
 * the tests' plain kernels use the same polynomial per value, tests/ref/plain.h). */
INLINE V8 vexp(V8 x)
{
#ifdef GAT_REAL_DOUBLE
    V8 r;
    for (int k = 0; k < 8; k++)
        r[k] = exp(x[k]);
    return r;
#else
    x = sel(x < -87.3f, bc(-87.3f), x);
    x = sel(x > 88.3f, bc(88.3f), x);
    const V8 t = x * 1.44269504088896341f + 0.5f;
    VI ni = __builtin_convertvector(t, VI);
    ni += (VI)(t < __builtin_convertvector(ni, V8)); /* truncation -> floor */
    const V8 n = __builtin_convertvector(ni, V8);
    const V8 r = x - n * 0.693359375f + n * 2.12194440e-4f;
    V8 p = bc(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    return p * (V8)((ni + 127) << 23);
#endif
}

/* ELU (exp(x) - 1 below zero, as gat_i_elu) */
INLINE V8 velu(V8 x)
{
    return sel(x > 0, x, vexp(x) - 1);
}
INLINE gat_real elu1(gat_real x)
{
    return x > 0 ? x : vexp(bc(x))[0] - 1;
}

#define vper gat_i_fused_vper

/* Per-lane values of per-head quantities w (H) for vector q of an (Fp, H) row (lane heads from
 * l->lane_head where H neither divides 8 nor is a multiple of it). */
INLINE V8 pat(const gat_i_fl *l, const gat_real *w, int H, int q)
{
    if (H % 8 == 0) return ld(w + 8 * q);
    V8 r;
    if (8 % H == 0) {
        for (int c = 0; c < 8; c++)
            r[c] = w[c % H];
        return r;
    }
    const uint16_t *t = l->lane_head + 8 * q;
    for (int c = 0; c < 8; c++)
        r[c] = w[t[c]];
    return r;
}

/* Per-head sums g (H) of an (Fp, H) row product folded into P = vper(H) vectors S. */
INLINE void fold(const gat_i_fl *l, const V8 *S, int H, gat_real *g)
{
    if (H % 8 == 0) {
        for (int q = 0; q < H / 8; q++)
            st(g + 8 * q, S[q]);
        return;
    }
    if (H == 1) {
        g[0] = hsum(S[0]);
        return;
    }
    for (int h = 0; h < H; h++)
        g[h] = 0;
    if (8 % H == 0) {
        for (int c = 0; c < 8; c++)
            g[c % H] += S[0][c];
        return;
    }
    const int P = vper(H);
    for (int q = 0; q < P; q++)
        for (int c = 0; c < 8; c++)
            g[l->lane_head[8 * q + c]] += S[q][c];
}

/* Bit h of a per-edge bit row (AB = ceil(H / 8) bytes) */
INLINE unsigned bit_of(const uint8_t *b, int h)
{
    return (b[h >> 3] >> (h & 7)) & 1u;
}

/* ---- dropout streams: element k keeps iff its 16 bits of hash(key, k / 4) reach the cut ---- */

/* Keep mask of elements k0 .. k0 + 7, k0 a multiple of 4: two hashes, eight 16-bit fields. */
INLINE VI keep8(const gat_i_drop *d, uint64_t k0)
{
    const uint64_t h[2] = {gat_i_hash64(d->key, k0 >> 2), gat_i_hash64(d->key, (k0 >> 2) + 1)};
    V8h u;
    memcpy(&u, h, sizeof u); /* little-endian: field t of h[0] is lane t */
    return __builtin_convertvector(u, VI) >= (VI){0} + (int)d->cut;
}

/* Keep flag of one element, reusing the hash of its block of four (*blk, *hv). */
INLINE unsigned keep1(const gat_i_drop *d, uint64_t k, uint64_t *blk, uint64_t *hv)
{
    if ((k >> 2) != *blk) *blk = k >> 2, *hv = gat_i_hash64(d->key, *blk);
    return gat_i_keep16_of(*hv, k) >= d->cut;
}

/* The dropout counters of an edge and of a dense row (gat_i_fl.ekey, rkey). */
INLINE uint64_t ekey_of(const gat_i_fl *l, gat_idx k)
{
    return l->ekey ? (uint64_t)l->ekey[k] : (uint64_t)k;
}
/* the key of out-CSR position p, edge k = t_edge[p] */
INLINE uint64_t tkey_of(const gat_i_fl *l, gat_idx p, size_t k)
{
    return l->tekey ? (uint64_t)l->tekey[p] : ekey_of(l, (gat_idx)k);
}
INLINE uint64_t rkey_of(const gat_i_fl *l, gat_idx i)
{
    return l->rkey ? (uint64_t)l->rkey[i] : (uint64_t)i;
}

/* ---- gat's coefficients when alpha is not stored (gat_i_fl.alpha NULL; no edge term) ---- */

/* The LeakyReLU input of edge j -> i, heads 8q .. 8q + 7 (H a multiple of 8), as fwd_row adds it */
INLINE V8 pre8(const gat_i_fl *l, gat_idx i, gat_idx j, int q, int H)
{
    return ld(l->s_dst + (size_t)i * H + 8 * q) + ld(l->s_src + (size_t)j * H + 8 * q);
}
/* Its coefficients from that input t and row i's softmax terms (soft): fwd_row's operations, in
 * its order (LeakyReLU, minus the maximum, vexp, times the inverse sum), so the same values */
INLINE V8 alpha8_of(V8 t, const gat_real *mx, const gat_real *isum, gat_real slope, int q)
{
    t = sel(t > 0, t, t * slope);
    return vexp(t - ld(mx + 8 * q)) * ld(isum + 8 * q);
}
INLINE V8 alpha8(const gat_i_fl *l, gat_idx i, V8 t, int q, int H)
{
    const gat_real *sm = l->soft + (size_t)i * 2 * H;
    return alpha8_of(t, sm, sm + H, l->slope, q);
}
/* The same for head h alone (any H; vexp works lane by lane) */
INLINE gat_real pre1(const gat_i_fl *l, gat_idx i, gat_idx j, int h, int H)
{
    return l->s_dst[(size_t)i * H + h] + l->s_src[(size_t)j * H + h];
}
INLINE gat_real alpha1_of(gat_real t, gat_real mx, gat_real isum, gat_real slope)
{
    t = t > 0 ? t : slope * t;
    return vexp(bc(t - mx))[0] * isum;
}
INLINE gat_real alpha1(const gat_i_fl *l, gat_idx i, gat_real t, int h, int H)
{
    const gat_real *sm = l->soft + (size_t)i * 2 * H;
    return alpha1_of(t, sm[h], sm[H + h], l->slope);
}

/* Lane factors (0 or scale) of an (Fp, H) row vector q from the per-edge keep bits kb. */
INLINE V8 keep_pat(const gat_i_fl *l, const uint8_t *kb, int H, int q, gat_real scale)
{
    if (H % 8 == 0 || 8 % H == 0) {
        VI lane_bit;
        for (int c = 0; c < 8; c++)
            lane_bit[c] = (H % 8 == 0) ? 1 << c : 1 << (c % H);
        const VI b = (VI){0} + (H % 8 == 0 ? kb[q] : kb[0]);
        return (V8)((VI)bc(scale) & ((b & lane_bit) != 0));
    }
    V8 r;
    for (int c = 0; c < 8; c++)
        r[c] = bit_of(kb, l->lane_head[8 * q + c]) ? scale : 0;
    return r;
}

/* ---- chunked loops ---- */

/* For every chunk c of ch, the body (...) with rows r0 .. r1 - 1, on nt threads, dynamically:
 * chunks are fixed by the problem, so results do not depend on which thread runs which. */
/* clang-format off */
#define FOR_CHUNKS(ch, nt, ...)                                                                    \
    do {                                                                                           \
        const gat_idx *bound_ = (ch).bound;                                                        \
        _Pragma("omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)")              \
        for (int c = 0; c < (ch).n; c++) {                                                         \
            const gat_idx r0 = bound_[c], r1 = bound_[c + 1];                                      \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)

/* Rows of a pass: the chunks ch over all rows, or a list of rows in equal shares (their number
 * fixed by the list's length). The body (...) sees rows list[r] (or r) for r in r0 .. r1 - 1. */
#define FOR_ROWS(ch, list, n_list, nt, ...)                                                        \
    do {                                                                                           \
        if (!(list)) {                                                                             \
            FOR_CHUNKS(ch, nt, __VA_ARGS__);                                                       \
            break;                                                                                 \
        }                                                                                          \
        const gat_idx n_ = (n_list);                                                               \
        const int nch_ = n_ < 32 ? (n_ > 0 ? 1 : 0) : (n_ / 32 > 256 ? 256 : (int)(n_ / 32));     \
        _Pragma("omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)")              \
        for (int c = 0; c < nch_; c++) {                                                           \
            const gat_idx r0 = (gat_idx)((int64_t)n_ * c / nch_);                                  \
            const gat_idx r1 = (gat_idx)((int64_t)n_ * (c + 1) / nch_);                            \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)
/* clang-format on */

/* Instantiates CALL with compile-time H (Hc) and Fp (Fc) for the common shapes: 8 heads of 8
 * (hidden layers), one head of 8 or 16 (output layers up to 16 classes), 4 of 8; others run
 * generic. */
/* One instantiation: H, Fp and the row accumulators' vector count as compile-time constants
 * (SHAPE_C: accumulators on the stack), or run-time widths (SHAPE_ANY: accumulators in the
 * layer's per-thread scratch, any number of heads and any row width). */
#define SHAPE_C(H_, F_, ...)                                                                       \
    {                                                                                              \
        enum { Hc = H_, Fc = F_, NVc = H_ * F_ / 8, HSc = 8, ANYc = 0 };                           \
        __VA_ARGS__;                                                                               \
    }
#define SHAPE_ANY(H, FP, ...)                                                                      \
    {                                                                                              \
        enum { NVc = 1, HSc = 1, ANYc = 1 };                                                       \
        const int Hc = (H);                                                                        \
        const gat_idx Fc = (FP);                                                                   \
        __VA_ARGS__;                                                                               \
    }
#ifndef GAT_I_GENERIC_SHAPES
#define SHAPES(H, FP, ...)                                                                         \
    do {                                                                                           \
        if ((H) == 8 && (FP) == 8)                                                                 \
            SHAPE_C(8, 8, __VA_ARGS__)                                                             \
        else if ((H) == 1 && (FP) == 8)                                                            \
            SHAPE_C(1, 8, __VA_ARGS__)                                                             \
        else if ((H) == 1 && (FP) == 16)                                                           \
            SHAPE_C(1, 16, __VA_ARGS__)                                                            \
        else if ((H) == 8 && (FP) == 16)                                                           \
            SHAPE_C(8, 16, __VA_ARGS__)                                                            \
        else if ((H) == 4 && (FP) == 8)                                                            \
            SHAPE_C(4, 8, __VA_ARGS__)                                                             \
        else                                                                                       \
            SHAPE_ANY(H, FP, __VA_ARGS__)                                                          \
    } while (0)
#else
/* Copies built only for tests and fuzzing (the double-precision gradient checks, the fuzz
 * targets) run every shape on the generic bodies: a sixth of the compile time. */
#define SHAPES(H, FP, ...)                                                                         \
    do {                                                                                           \
        SHAPE_ANY(H, FP, __VA_ARGS__)                                                              \
    } while (0)
#endif

/* Instantiates CALL with the score as a compile-time constant Sc: the row bodies branch on it,
 * and the branches of the other scores disappear. dot, scaled-dot and bilinear share one body
 * (the per-head coefficient l->coef is 1 for dot and bilinear). */
#define SCORES(S, CALL)                                                                            \
    do {                                                                                           \
        switch (S) {                                                                               \
        case GAT_SCORE_GAT: {                                                                      \
            enum { Sc = GAT_SCORE_GAT };                                                           \
            CALL;                                                                                  \
        } break;                                                                                   \
        case GAT_SCORE_GATV2: {                                                                    \
            enum { Sc = GAT_SCORE_GATV2 };                                                         \
            CALL;                                                                                  \
        } break;                                                                                   \
        case GAT_SCORE_COSINE: {                                                                   \
            enum { Sc = GAT_SCORE_COSINE };                                                        \
            CALL;                                                                                  \
        } break;                                                                                   \
        case GAT_SCORE_GAUSSIAN: {                                                                 \
            enum { Sc = GAT_SCORE_GAUSSIAN };                                                      \
            CALL;                                                                                  \
        } break;                                                                                   \
        default: {                                                                                 \
            enum { Sc = GAT_SCORE_DOT };                                                           \
            CALL;                                                                                  \
        } break;                                                                                   \
        }                                                                                          \
    } while (0)

#ifndef GAT_I_GENERIC_SHAPES
/* SHAPES for the other scores: the paper's hidden shape (8 heads of 8) specialised, the rest
 * generic (each specialisation is one more copy of every row body per score and build). */
#define FAMILY_SHAPES(H, FP, ...)                                                                  \
    do {                                                                                           \
        if ((H) == 8 && (FP) == 8)                                                                 \
            SHAPE_C(8, 8, __VA_ARGS__)                                                             \
        else                                                                                       \
            SHAPE_ANY(H, FP, __VA_ARGS__)                                                          \
    } while (0)
#else
#define FAMILY_SHAPES(H, FP, ...) SHAPES(H, FP, __VA_ARGS__)
#endif

/* The score's shapes: SHAPES for gat, FAMILY_SHAPES for the others. */
#define SCORE_SHAPES(H, FP, ...)                                                                   \
    do {                                                                                           \
        if ((int)Sc == (int)GAT_SCORE_GAT)                                                         \
            SHAPES(H, FP, __VA_ARGS__);                                                            \
        else                                                                                       \
            FAMILY_SHAPES(H, FP, __VA_ARGS__);                                                     \
    } while (0)

/* Row scratch of a shape: NV vectors of accumulators, per-head values, and from the layer's
 * per-thread scratch (gat_i_fused_scratch) an input row xd (fin) and a model-order row y (hw). */
#define SCRATCH(NV_, H_)                                                                           \
    struct {                                                                                       \
        V8 acc[NV_], dy[NV_], S[NV_], D[NV_], E[NV_], F[NV_], G[NV_], K[NV_];                      \
        gat_real h1[H_], h2[H_], h3[H_], h4[H_], h5[H_];                                           \
        gat_real *xd, *y;                                                                          \
    }
typedef struct scratch_any {
    V8 *acc, *dy, *S, *D, *E, *F, *G, *K;
    gat_real *h1, *h2, *h3, *h4, *h5;
    gat_real *xd, *y;
} scratch_any;

INLINE int thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* The calling thread's part of l->scratch, laid out as gat_i_fused_scratch counts it: xd, y,
 * then (run-time shapes) the five per-head arrays and the eight accumulator rows. */
INLINE gat_real *thread_scratch(const gat_i_fl *l)
{
    return l->scratch + (size_t)thread_num() * l->scratch_stride;
}
INLINE void scratch_carve(scratch_any *s, gat_real *t, int H, size_t hw, size_t fin)
{
    s->xd = t, t += GAT_I_R16(fin);
    s->y = t, t += GAT_I_R16(hw);
    gat_real **h[5] = {&s->h1, &s->h2, &s->h3, &s->h4, &s->h5};
    for (int k = 0; k < 5; k++)
        *h[k] = t, t += GAT_I_R16((size_t)H);
    V8 **v[8] = {&s->acc, &s->dy, &s->S, &s->D, &s->E, &s->F, &s->G, &s->K};
    for (int k = 0; k < 8; k++)
        *v[k] = (V8 *)(void *)t, t += GAT_I_R16(hw);
}
#define XDLEN(l) ((l)->xin ? (size_t)(l)->fin : 0)
#define WITH_SCRATCH(CALL)                                                                         \
    do {                                                                                           \
        gat_real *ts_ = thread_scratch(l);                                                         \
        if (ANYc) {                                                                                \
            scratch_any s_;                                                                        \
            scratch_carve(&s_, ts_, l->H, (size_t)l->hw, XDLEN(l));                                \
            CALL;                                                                                  \
        } else {                                                                                   \
            SCRATCH(NVc, HSc) s_;                                                                  \
            s_.xd = ts_;                                                                           \
            s_.y = ts_ + GAT_I_R16(XDLEN(l));                                                      \
            CALL;                                                                                  \
        }                                                                                          \
    } while (0)

/* ---- row layout changes ---- */

/* out (H, Fo) model order <- y (Fp, H) rows of NV vectors */
INLINE void fh_to_model(const V8 *y, gat_real *out, int H, gat_idx Fp, gat_idx Fo)
{
    if (H == 8 && Fp == 8) {
        V8 t[8];
        transpose8(y, t);
        for (int h = 0; h < 8; h++)
            st(out + 8 * h, t[h]);
        return;
    }
    for (int h = 0; h < H; h++)
        for (gat_idx f = 0; f < Fo; f++) {
            const size_t e = (size_t)f * H + h;
            out[(size_t)h * Fo + f] = y[e / 8][e % 8];
        }
}

/* ---- projection: z = dropout(x) W, then s_src = z . a_src, s_dst = z . a_dst per head ---- */

/* What a score keeps per node beside z_i (in acc): the score halves s_src, s_dst (gat), the
 * inverse norm 1 / |z_i| per head (cosine); nothing for the others. */
INLINE void halves(const gat_i_fl *l, gat_idx i, const V8 *acc, V8 *S, V8 *D, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), P = vper(H);
    if (l->score == GAT_SCORE_COSINE) {
        gat_real *qi = l->qinv + (size_t)i * H;
        for (int q = 0; q < P; q++)
            S[q] = bc(0);
        for (int v = 0; v < NV; v++)
            S[v % P] += acc[v] * acc[v];
        fold(l, S, H, qi);
        for (int h = 0; h < H; h++)
            qi[h] = (gat_real)(1 / sqrt((double)qi[h] + GAT_I_COS_EPS));
        return;
    }
    if (l->score != GAT_SCORE_GAT) return;
    for (int q = 0; q < P; q++)
        S[q] = D[q] = bc(0);
    for (int v = 0; v < NV; v++) {
        S[v % P] += acc[v] * ld(l->a_src + 8 * v);
        D[v % P] += acc[v] * ld(l->a_dst + 8 * v);
    }
    fold(l, S, H, l->s_src + (size_t)i * H);
    fold(l, D, H, l->s_dst + (size_t)i * H);
}

INLINE void store_row(gat_real *z, const V8 *acc, int NV)
{
    for (int v = 0; v < NV; v++)
        st(z + 8 * v, acc[v]);
}

/* kept entries of a sparse row, compacted (dropout decided branch-free) */
#define SEG 256

INLINE void proj_sparse_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, V8 *acc, V8 *S, V8 *D,
                             V8 *E, V8 *F, V8 *G, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8), nx = l->n_extra;
    const size_t hw = (size_t)Fp * H;
    const gat_csr *x = l->x;
    const gat_i_drop in = l->in;
    V8 *ax[3] = {E, F, G};
    gat_idx col[SEG];
    gat_real val[SEG];
    for (gat_idx r = r0; r < r1; r++) {
        const gat_idx i = l->prows ? l->prows[r] : r;
        for (int v = 0; v < NV; v++)
            acc[v] = bc(0);
        for (int q = 0; q < nx; q++)
            for (int v = 0; v < NV; v++)
                ax[q][v] = bc(0);
        uint64_t hv = 0, blk = UINT64_MAX;
        const uint64_t kb0 = l->xkey ? (uint64_t)l->xkey[i] - (uint64_t)x->rowptr[i] : 0;
        for (gat_idx p0 = x->rowptr[i]; p0 < x->rowptr[i + 1]; p0 += SEG) {
            const gat_idx p1 = x->rowptr[i + 1] - p0 < SEG ? x->rowptr[i + 1] : p0 + SEG;
            int n = 0;
            if (in.on) {
                for (gat_idx p = p0; p < p1; p++) {
                    const unsigned keep = keep1(&in, kb0 + (uint64_t)p, &blk, &hv);
                    l->xkeep[p] = (uint8_t)keep;
                    col[n] = x->col[p];
                    val[n] = x->val[p] * in.scale;
                    n += (int)keep;
                }
            } else {
                for (gat_idx p = p0; p < p1; p++)
                    col[n] = x->col[p], val[n++] = x->val[p];
            }
            /* the kept entries once, each projection's sum over them in turn */
            for (int t = 0; t < n; t++) {
                const gat_real *w = l->W + (size_t)col[t] * hw;
                for (int v = 0; v < NV; v++)
                    acc[v] += val[t] * ld(w + 8 * v);
            }
            for (int q = 0; q < nx; q++)
                for (int t = 0; t < n; t++) {
                    const gat_real *w = l->Wx[q] + (size_t)col[t] * hw;
                    for (int v = 0; v < NV; v++)
                        ax[q][v] += val[t] * ld(w + 8 * v);
                }
        }
        store_row(l->z + (size_t)i * hw, acc, NV);
        halves(l, i, acc, S, D, H, Fp);
        for (int q = 0; q < nx; q++)
            store_row(l->zx[q] + (size_t)i * hw, ax[q], NV);
    }
}

static void FN(proj_sparse)(const gat_i_fl *l)
{
    const int nt = l->nt;
    FOR_ROWS(l->xc, l->prows, l->n_prows, nt,
             SHAPES(l->H, l->Fp,
                    WITH_SCRATCH(proj_sparse_rows(l, r0, r1, s_.acc, s_.S, s_.D, s_.E, s_.F, s_.G,
                                                  Hc, Fc))));
}

/* One input row of a dense layer after dropout: xd (fin) and its keep bytes. Elements
 * i * fin + c; eight at a time when i * fin is a multiple of 4. */
INLINE void dropout_row(const gat_i_drop *in, const gat_real *xi, size_t fin, uint64_t k0,
                        gat_real *xd, uint8_t *kb)
{
    size_t c = 0;
    if (!in->on) {
        memcpy(xd, xi, fin * sizeof *xd);
        return;
    }
    if (k0 % 4 == 0)
        for (; c + 8 <= fin; c += 8) {
            const VI m = keep8(in, k0 + c);
            kb[c / 8] = (uint8_t)movemask(m);
            st(xd + c, ld(xi + c) * (V8)((VI)bc(in->scale) & m));
        }
    uint64_t hv = 0, blk = UINT64_MAX;
    for (; c < fin; c += 8) {
        unsigned bits = 0;
        for (size_t t = c; t < fin && t < c + 8; t++) {
            const unsigned keep = keep1(in, k0 + t, &blk, &hv);
            bits |= keep << (t - c);
            xd[t] = keep ? xi[t] * in->scale : 0;
        }
        kb[c / 8] = (uint8_t)bits;
    }
}

/* acc (NV vectors) = xd (fin) W (fin, NV * 8) */
INLINE void dense_row(const gat_real *xd, size_t fin, const gat_real *W, size_t hw, int NV, V8 *acc)
{
    for (int v = 0; v < NV; v++)
        acc[v] = bc(0);
    size_t c = 0;
    if (NV <= 2) { /* narrow rows: four independent sums, not one chain of fin FMAs */
        V8 a[4][2] = {{bc(0), bc(0)}, {bc(0), bc(0)}, {bc(0), bc(0)}, {bc(0), bc(0)}};
        for (; c + 4 <= fin; c += 4)
            for (int u = 0; u < 4; u++)
                for (int v = 0; v < NV; v++)
                    a[u][v] += xd[c + u] * ld(W + (c + u) * hw + 8 * v);
        for (int v = 0; v < NV; v++)
            acc[v] = (a[0][v] + a[1][v]) + (a[2][v] + a[3][v]);
    }
    for (; c < fin; c++) {
        const gat_real *w = W + c * hw;
        for (int v = 0; v < NV; v++)
            acc[v] += xd[c] * ld(w + 8 * v);
    }
}

INLINE void proj_dense_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, V8 *acc, V8 *S, V8 *D,
                            gat_real *xd, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H, fin = (size_t)l->fin, fb = (fin + 7) / 8;
    for (gat_idx r = r0; r < r1; r++) {
        const gat_idx i = l->prows ? l->prows[r] : r;
        dropout_row(&l->in, l->xin + (size_t)i * fin, fin, rkey_of(l, i) * fin, xd,
                    l->xkeep + (size_t)i * fb);
        dense_row(xd, fin, l->W, hw, NV, acc);
        store_row(l->z + (size_t)i * hw, acc, NV);
        halves(l, i, acc, S, D, H, Fp);
        /* the further projections of the same dropped-out row */
        for (int q = 0; q < l->n_extra; q++) {
            if (q == l->x_identity) { /* x_d itself in the fh layout, per head if averaged */
                gat_real *o = l->zx[q] + (size_t)i * hw;
                for (gat_idx f = 0; f < Fp; f++)
                    for (int h = 0; h < H; h++)
                        o[(size_t)f * H + h] =
                            f < l->Fo ? xd[(l->mean ? 0 : (size_t)h * l->Fo) + (size_t)f] : 0;
                continue;
            }
            dense_row(xd, fin, l->Wx[q], hw, NV, acc);
            store_row(l->zx[q] + (size_t)i * hw, acc, NV);
        }
    }
}

static void FN(proj_dense)(const gat_i_fl *l)
{
    const int nt = l->nt;
    FOR_ROWS(l->tc, l->prows, l->n_prows, nt,
             SHAPES(l->H, l->Fp,
                    WITH_SCRATCH(proj_dense_rows(l, r0, r1, s_.acc, s_.S, s_.D, s_.xd, Hc, Fc))));
}

/* ---- attention forward: one pass per target row ---- */

/* The scores of the other scores' family, e = s(q_i, k_j) per head (tests/ref/scores.h), into
 * alpha's slots, and the row maxima mx (H) and M. Q: scratch for q_i; e: (H) scratch. */
/* gatv2's edge term, vector v of W_e x_e (Fp, H) for the edge's features xe (D) */
INLINE V8 edge_v(const gat_i_fl *l, const gat_real *xe, size_t hw, int v)
{
    V8 s = bc(0);
    for (gat_idx d = 0; d < l->D; d++)
        s += bc(xe[d]) * ld(l->we + (size_t)d * hw + 8 * (size_t)v);
    return s;
}

INLINE void family_scores(const gat_i_fl *l, gat_idx i, V8 *Q, V8 *M, V8 *S, gat_real *mx,
                          gat_real *e, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const gat_real slope = l->slope;
    gat_real *al = l->alpha;
    for (int v = 0; v < NV; v++)
        Q[v] = ld(l->q + (size_t)i * hw + 8 * v);
    for (int h = 0; h < H; h++)
        mx[h] = -INFINITY;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_idx j = g->col[k];
        const gat_real *kj = l->k + (size_t)j * hw;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(l->k + (size_t)g->col[k + AHEAD] * hw, hw);
        const gat_real *xe = Sc == GAT_SCORE_GATV2 && l->D ? l->ex + (size_t)k * l->D : NULL;
        for (int q = 0; q < P; q++)
            S[q] = bc(0);
        for (int v = 0; v < NV; v++) {
            const V8 kv = ld(kj + 8 * v);
            if (Sc == GAT_SCORE_GAUSSIAN) {
                const V8 d = Q[v] - kv;
                S[v % P] += d * d;
            } else if (Sc == GAT_SCORE_GATV2) {
                const V8 t = xe ? Q[v] + kv + edge_v(l, xe, hw, v) : Q[v] + kv;
                S[v % P] += ld(l->att_w + 8 * v) * sel(t > 0, t, t * slope);
            } else {
                S[v % P] += Q[v] * kv;
            }
        }
        fold(l, S, H, e);
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)(k - l->e0) * H + h;
            gat_real t = e[h];
            if (Sc == GAT_SCORE_DOT) t *= l->coef[h];
            if (Sc == GAT_SCORE_COSINE) {
                t *= l->qinv[(size_t)i * H + h] * l->qinv[(size_t)j * H + h];
                l->esc[kh] = t;
                t *= l->coef[h];
            }
            if (Sc == GAT_SCORE_GAUSSIAN) {
                l->esc[kh] = t;
                t = -l->coef[h] * t;
            }
            al[kh] = t;
            mx[h] = t > mx[h] ? t : mx[h];
        }
    }
    for (int q = 0; q < P; q++)
        M[q] = pat(l, mx, H, q);
}

/* A row of NV vectors at p that is read again only in the backward: with stream (a large graph,
 * whose caches will not hold it until then) stored past the caches where the build can and p is
 * 32-byte aligned (the caller then fences), else stored. */
INLINE void put_row(gat_real *p, const V8 *v, int NV, int stream)
{
#ifdef HAVE_AVX
    if (stream && !((uintptr_t)p & 31)) {
        for (int k = 0; k < NV; k++)
            _mm256_stream_ps(p + 8 * k, (__m256)v[k]);
        return;
    }
#endif
    (void)stream;
    for (int k = 0; k < NV; k++)
        st(p + 8 * k, v[k]);
}

INLINE void fwd_row(const gat_i_fl *l, gat_idx i, V8 *acc, V8 *M, V8 *S, gat_real *mx,
                    gat_real *sum, gat_real *w, V8 *A2, V8 *S2, V8 *SG, gat_real *w2, gat_real *sg,
                    int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const gat_real slope = l->slope;
    const gat_idx e0 = l->e0; /* per-edge arrays hold edges e0.. (see gat_i_fl.e0) */
    /* the row's (k - k0, h) values: in alpha, or in the thread's row scratch when alpha is not
     * kept (gat only: the backward recomputes it from soft) */
    gat_real *al = l->alpha ? l->alpha + (size_t)(k0 - e0) * H
                            : l->arow + (size_t)thread_num() * l->arow_stride;
    uint8_t *pos_row = l->pos ? l->pos + (size_t)(k0 - e0) * AB : NULL;
    uint8_t *keep_row = l->akeep ? l->akeep + (size_t)(k0 - e0) * AB : NULL;

    /* scores e = LeakyReLU(s_dst_i + s_src_j + sum_d x_ij[d] M[d, h]) into the row's slots,
     * their signs (where kept), row maxima (l->ex is only read when D > 0) */
    if (Sc != GAT_SCORE_GAT) {
        family_scores(l, i, acc, M, S, mx, w, H, Fp, Sc);
    } else if (H % 8 == 0) {
        const gat_real *sd = l->s_dst + (size_t)i * H;
        for (int q = 0; q < P; q++)
            M[q] = bc(-INFINITY);
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real *ss = l->s_src + (size_t)g->col[k] * H;
            if (l->prefetch && k + AHEAD < g->nnz)
                __builtin_prefetch(l->s_src + (size_t)g->col[k + AHEAD] * H, 0, 3);
            const gat_real *xe = l->D ? l->ex + (size_t)k * (size_t)l->D : NULL;
            for (int q = 0; q < P; q++) {
                V8 t = ld(sd + 8 * q) + ld(ss + 8 * q);
                for (gat_idx d = 0; d < l->D; d++) /* the edge term: sum_d x_e[d] M[d, h] */
                    t += bc(xe[d]) * ld(l->em + (size_t)d * H + 8 * q);
                const VI pos = t > 0;
                if (pos_row) pos_row[(size_t)(k - k0) * AB + q] = (uint8_t)movemask(pos);
                t = sel(pos, t, t * slope);
                st(al + (size_t)(k - k0) * H + 8 * q, t);
                M[q] = sel(t > M[q], t, M[q]);
            }
        }
        for (int q = 0; q < P; q++)
            st(mx + 8 * q, M[q]);
    } else {
        const gat_real *sd = l->s_dst + (size_t)i * H;
        for (int h = 0; h < H; h++)
            mx[h] = -INFINITY;
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real *ss = l->s_src + (size_t)g->col[k] * H;
            if (l->prefetch && k + AHEAD < g->nnz)
                __builtin_prefetch(l->s_src + (size_t)g->col[k + AHEAD] * H, 0, 3);
            uint8_t *pb = pos_row ? pos_row + (size_t)(k - k0) * AB : NULL;
            const gat_real *xe = l->D ? l->ex + (size_t)k * (size_t)l->D : NULL;
            unsigned bits = 0;
            for (int h = 0; h < H; h++) {
                gat_real t = sd[h] + ss[h];
                for (gat_idx d = 0; d < l->D; d++)
                    t += xe[d] * l->em[(size_t)d * H + h];
                bits |= (unsigned)(t > 0) << (h & 7);
                if (pb && ((h & 7) == 7 || h == H - 1)) pb[h >> 3] = (uint8_t)bits, bits = 0;
                t = t > 0 ? t : slope * t;
                al[(size_t)(k - k0) * H + h] = t;
                mx[h] = t > mx[h] ? t : mx[h];
            }
        }
        for (int q = 0; q < P; q++)
            M[q] = pat(l, mx, H, q);
    }
    /* exponentials and their sums: the row's (k, h) values are contiguous, 8 at a time */
    for (int q = 0; q < P; q++)
        S[q] = bc(0);
    for (int h = 0; h < H; h++)
        sum[h] = 0;
    const size_t e1 = (size_t)(k1 - k0) * H;
    size_t e = 0;
    for (int q = 0; e + 8 <= e1; e += 8, q = q + 1 == P ? 0 : q + 1) {
        const V8 v = vexp(ld(al + e) - M[q]);
        st(al + e, v);
        S[q] += v;
    }
    if (e < e1) { /* H < 8 only: the row's last (k1 - k0) H mod 8 values, in one vector */
        V8 t = bc(0);
        for (size_t u = e; u < e1; u++)
            t[u - e] = al[u] - mx[u % (size_t)H];
        t = vexp(t);
        for (size_t u = e; u < e1; u++)
            al[u] = t[u - e], sum[u % (size_t)H] += t[u - e];
    }
    fold(l, S, H, w);
    for (int h = 0; h < H; h++)
        sum[h] = 1 / (sum[h] + w[h]);
    if (l->soft) { /* what the backward recomputes alpha from */
        memcpy(l->soft + (size_t)i * 2 * H, mx, (size_t)H * sizeof *mx);
        memcpy(l->soft + (size_t)i * 2 * H + H, sum, (size_t)H * sizeof *sum);
    }
    /* normalise, attention dropout, weighted sum of the z_j (and with agg the sums the
     * targets pass reads, the LeakyReLU's slope from the score's input recomputed) */
    const int ag = Sc == GAT_SCORE_GAT && l->agg2 && !l->D;
    for (int v = 0; v < NV; v++)
        acc[v] = bc(0), A2[v] = bc(0);
    if (H % 8 == 0) {
        for (int q = 0; q < P; q++)
            M[q] = ld(sum + 8 * q), SG[q] = bc(0); /* M: 1 / row sums now */
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real *zj = l->z + (size_t)g->col[k] * hw;
            if (l->prefetch && k + AHEAD < g->nnz)
                prefetch_row(l->z + (size_t)g->col[k + AHEAD] * hw, hw);
            for (int q = 0; q < P; q++) {
                const size_t kh = (size_t)ekey_of(l, k) * H + 8 * q,
                             ka = (size_t)(k - k0) * H + 8 * q;
                const V8 a = ld(al + ka) * M[q];
                st(al + ka, a);
                S[q] = a;
                if (l->att.on) {
                    const VI m = keep8(&l->att, kh); /* masks by the edge's own number */
                    if (keep_row) keep_row[(size_t)(k - k0) * AB + q] = (uint8_t)movemask(m);
                    S[q] = a * (V8)((VI)bc(l->att.scale) & m);
                }
                if (ag) {
                    const V8 f = sel(pre8(l, i, g->col[k], q, H) > 0, bc(1), bc(slope));
                    SG[q] += a * f;
                    S2[q] = S[q] * f;
                }
            }
            for (int v = 0; v < NV; v++)
                acc[v] += S[v % P] * ld(zj + 8 * v);
            if (ag)
                for (int v = 0; v < NV; v++)
                    A2[v] += S2[v % P] * ld(zj + 8 * v);
        }
        if (ag)
            for (int q = 0; q < P; q++)
                st(sg + 8 * q, SG[q]);
    } else {
        for (int h = 0; h < H; h++)
            sg[h] = 0;
        uint64_t hv = 0, blk = UINT64_MAX;
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real *zj = l->z + (size_t)g->col[k] * hw;
            if (l->prefetch && k + AHEAD < g->nnz)
                prefetch_row(l->z + (size_t)g->col[k + AHEAD] * hw, hw);
            gat_real *a = al + (size_t)(k - k0) * H;
            unsigned bits = 0;
            for (int h = 0; h < H; h++) {
                a[h] *= sum[h];
                w[h] = a[h];
                if (l->att.on) {
                    const unsigned keep = keep1(&l->att, ekey_of(l, k) * H + h, &blk, &hv);
                    bits |= keep << (h & 7);
                    if (keep_row && ((h & 7) == 7 || h == H - 1))
                        keep_row[(size_t)(k - k0) * AB + (h >> 3)] = (uint8_t)bits, bits = 0;
                    w[h] = keep ? w[h] * l->att.scale : 0;
                }
            }
            for (int q = 0; q < P; q++)
                S[q] = pat(l, w, H, q);
            for (int v = 0; v < NV; v++)
                acc[v] += S[v % P] * ld(zj + 8 * v);
            if (!ag) continue;
            for (int h = 0; h < H; h++) {
                const gat_real f = pre1(l, i, g->col[k], h, H) > 0 ? 1 : slope;
                sg[h] += a[h] * f;
                w2[h] = w[h] * f;
            }
            for (int q = 0; q < P; q++)
                S2[q] = pat(l, w2, H, q);
            for (int v = 0; v < NV; v++)
                A2[v] += S2[v % P] * ld(zj + 8 * v);
        }
    }
    if (ag) {
        if (l->agg) put_row(l->agg + (size_t)i * hw, acc, NV, l->prefetch);
        put_row(l->agg2 + (size_t)i * hw, A2, NV, l->prefetch);
        memcpy(l->asig + (size_t)i * H, sg, (size_t)H * sizeof *sg);
    }
    /* the residual x_d R (fh layout; replicated per head on the output layer) */
    if (l->res)
        for (int v = 0; v < NV; v++)
            acc[v] += ld(l->res + (size_t)i * hw + 8 * v);
    /* epilogue in the model's order: hidden ELU(acc + b) as (H, Fo); output mean_h acc + b */
    const gat_idx Fo = H % 8 == 0 ? Fp : l->Fo;
    if (!l->mean) {
        gat_real *o = l->out + (size_t)i * H * Fo;
        fh_to_model(acc, o, H, Fp, Fo);
        const gat_idx n = H * Fo;
        gat_idx c = 0;
        for (; c + 8 <= n; c += 8)
            st(o + c, velu(ld(o + c) + ld(l->b + c)));
        for (; c < n; c++)
            o[c] = elu1(o[c] + l->b[c]);
    } else {
        gat_real *o = l->out + (size_t)i * Fo;
        const gat_real invh = (gat_real)1 / H;
        for (gat_idx f = 0; f < Fo; f++) {
            gat_real s = 0;
            for (int h = 0; h < H; h++)
                s += acc[((size_t)f * H + h) / 8][((size_t)f * H + h) % 8];
            o[f] = (H == 1 ? s : s * invh) + l->b[f];
        }
    }
}

INLINE void fwd_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, V8 *acc, V8 *M, V8 *S, gat_real *mx,
                     gat_real *sum, gat_real *w, V8 *A2, V8 *S2, V8 *SG, gat_real *w2, gat_real *sg,
                     int H, gat_idx Fp, int Sc)
{
    for (gat_idx r = r0; r < r1; r++) {
        const gat_idx i = l->rows ? l->rows[r] : r;
        if (!l->pass || l->pass[i] == l->pass_want)
            fwd_row(l, i, acc, M, S, mx, sum, w, A2, S2, SG, w2, sg, H, Fp, Sc);
    }
#ifdef HAVE_AVX
    if (l->agg2 && l->prefetch) _mm_sfence(); /* put_row's streaming stores */
#endif
}

#define FWD_ROWS                                                                                   \
    fwd_rows(l, r0, r1, s_.acc, s_.dy, s_.S, s_.h1, s_.h2, s_.h3, s_.D, s_.E, s_.F, s_.h4, s_.h5,  \
             Hc, Fc, Sc)

static void FN(att_forward)(const gat_i_fl *l)
{
    const int nt = l->nt;
    FOR_ROWS(l->tc, l->rows, l->n_rows, nt,
             SCORES(l->score, SCORE_SHAPES(l->H, l->Fp, WITH_SCRATCH(FWD_ROWS))));
}

/* gat with alpha not stored: alpha (E, H) of rows r0 .. r1 - 1 (of l->rows, or all) recomputed
 * as the backward does, the values fwd_row would have stored */
INLINE void alpha_rows(const gat_i_fl *l, gat_idx r0, gat_idx r1, gat_real *alpha)
{
    const gat_graph *g = l->g;
    const int H = l->H;
    for (gat_idx r = r0; r < r1; r++) {
        const gat_idx i = l->rows ? l->rows[r] : r;
        for (gat_idx k = g->rowptr[i]; k < g->rowptr[i + 1]; k++) {
            const gat_idx j = g->col[k];
            gat_real *a = alpha + (size_t)k * H;
            if (H % 8 == 0)
                for (int q = 0; q < H / 8; q++)
                    st(a + 8 * q, alpha8(l, i, pre8(l, i, j, q, H), q, H));
            else
                for (int h = 0; h < H; h++)
                    a[h] = alpha1(l, i, pre1(l, i, j, h, H), h, H);
        }
    }
}

static void FN(att_alpha)(const gat_i_fl *l, gat_real *alpha)
{
    const int nt = l->nt;
    FOR_ROWS(l->tc, l->rows, l->n_rows, nt, alpha_rows(l, r0, r1, alpha));
}

/* ---- attention backward ---- */

/* Target row i: back through the weighted sum (d alpha' = dy_i . z_j), attention dropout,
 * softmax (de = alpha (d alpha - sum alpha d alpha)) and LeakyReLU: dpre (E, H), ds_dst_i.
 * The output layer first writes dy_i = dlogits_i / H per head into b->dy. Row i's record
 * (GAT_I_DY_HEAD) is written for the sources pass. */
/* Scores other than gat, active target row i, after the weighted sum's backward: dp (the row's
 * slice of dpre) holds d alpha' per edge and dot the per-head sums of alpha d alpha'. Back
 * through the softmax and the score's per-head transform: dp becomes the gradient of the score's
 * core (tests/ref/scores.h: the dot product, the cosine, the squared distance, or gatv2's e), q_i's
 * gradient goes to b->dq, the score parameter's to Pv (gatv2's att, (Fp, H)) or ph (H).
 * Q, DQ: row scratch; rs, gq: (H) scratch. */
INLINE void family_backward_row(const gat_i_fl *l, const gat_i_fbw *b, gat_idx i, gat_real *dp,
                                const gat_real *dot, V8 *Q, V8 *DQ, V8 *Pv, gat_real *ph,
                                gat_real *rs, gat_real *gq, gat_real *pe, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H);
    const size_t hw = (size_t)Fp * H;
    const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
    const gat_real slope = l->slope, *al = l->alpha;
    for (int h = 0; h < H; h++)
        rs[h] = 0;
    for (gat_idx k = k0; k < k1; k++)
        for (int h = 0; h < H; h++) {
            const size_t kh = (size_t)k * H + h, r = (size_t)(k - k0) * H + h;
            const gat_real de = al[kh] * (dp[r] - dot[h]);
            gat_real gg = de;
            if (Sc == GAT_SCORE_DOT) gg = de * l->coef[h];
            if (Sc == GAT_SCORE_COSINE) {
                ph[h] += de * l->esc[kh];
                gg = de * l->coef[h];
                rs[h] += gg * l->esc[kh];
            }
            if (Sc == GAT_SCORE_GAUSSIAN) {
                ph[h] += 2 * l->coef[h] * l->esc[kh] * de;
                gg = -de * l->coef[h];
                rs[h] += gg;
            }
            dp[r] = gg;
        }
    /* q_i's gradient: sum over the row's edges of d core / d q_i */
    const gat_real *qv = Sc == GAT_SCORE_COSINE ? l->qinv : NULL;
    for (int v = 0; v < NV; v++)
        Q[v] = ld(l->q + (size_t)i * hw + 8 * v), DQ[v] = bc(0);
    for (gat_idx k = k0; k < k1; k++) {
        const gat_idx j = g->col[k];
        const gat_real *kj = l->k + (size_t)j * hw, *gk = dp + (size_t)(k - k0) * H;
        if (l->prefetch && k + AHEAD < g->nnz)
            prefetch_row(l->k + (size_t)g->col[k + AHEAD] * hw, hw);
        if (Sc == GAT_SCORE_COSINE) {
            for (int h = 0; h < H; h++)
                gq[h] = gk[h] * qv[(size_t)i * H + h] * qv[(size_t)j * H + h];
            gk = gq;
        }
        const gat_real *xe = Sc == GAT_SCORE_GATV2 && pe ? l->ex + (size_t)k * l->D : NULL;
        for (int v = 0; v < NV; v++) {
            const V8 G = pat(l, gk, H, v % P), kv = ld(kj + 8 * v);
            if (Sc == GAT_SCORE_GATV2) {
                const V8 t = xe ? Q[v] + kv + edge_v(l, xe, hw, v) : Q[v] + kv;
                const V8 gt = G * ld(l->att_w + 8 * v) * sel(t > 0, bc(1), bc(slope));
                DQ[v] += gt;
                Pv[v] += G * sel(t > 0, t, t * slope);
                /* the edge term's weight: dW_e[d] += x_e[d] d s / d t, the chunk's partial */
                for (gat_idx d = 0; xe && d < l->D; d++) {
                    gat_real *w = pe + (size_t)d * hw + 8 * (size_t)v;
                    st(w, ld(w) + bc(xe[d]) * gt);
                }
            } else if (Sc == GAT_SCORE_GAUSSIAN) {
                DQ[v] -= 2 * G * kv;
            } else {
                DQ[v] += G * kv;
            }
        }
    }
    if (Sc == GAT_SCORE_COSINE) {
        for (int h = 0; h < H; h++)
            rs[h] *= qv[(size_t)i * H + h] * qv[(size_t)i * H + h];
        for (int v = 0; v < NV; v++)
            DQ[v] -= pat(l, rs, H, v % P) * Q[v];
    }
    if (Sc == GAT_SCORE_GAUSSIAN)
        for (int v = 0; v < NV; v++)
            DQ[v] += 2 * pat(l, rs, H, v % P) * Q[v];
    store_row(b->dq + (size_t)i * hw, DQ, NV);
}

/* The edge term's backward for target row i's edges k0 .. k1 - 1, dp their d loss / d pre (row
 * order, (k - k0, h)): pe (D, H) += sum_k x_k[d] dp[k, h], in edge order (the chunk's partial). */
INLINE void edge_dm(const gat_i_fl *l, const gat_real *dp, gat_idx k0, gat_idx k1, gat_real *pe,
                    int H)
{
    const gat_idx D = l->D;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *xe = l->ex + (size_t)k * (size_t)D, *dk = dp + (size_t)(k - k0) * H;
        for (gat_idx d = 0; d < D; d++) {
            gat_real *p = pe + (size_t)d * H;
            const gat_real xv = xe[d];
            for (int h = 0; h < H; h++)
                p[h] += xv * dk[h];
        }
    }
}

INLINE void bwd_target_rows(const gat_i_fl *l, const gat_i_fbw *b, int c, gat_idx r0, gat_idx r1,
                            V8 *dy, V8 *S, V8 *D, V8 *db, gat_real *gk, gat_real *dot,
                            gat_real *sum, V8 *Q, V8 *DQ, V8 *Pv, gat_real *ph, gat_real *rs, int H,
                            gat_idx Fp, int Sc)
{
    for (int v = 0; v < (int)(Fp * H / 8); v++)
        Pv[v] = bc(0);
    for (int h = 0; h < H; h++)
        ph[h] = 0;
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_real slope = l->slope, as = l->att.on ? l->att.scale : 1;
    const gat_real *al = l->alpha;
    gat_real *dp = b->drow + (size_t)thread_num() * b->drow_stride; /* the row's (k - k0, h) */
    /* gat without stored coefficients: the first loop over a row's edges recomputes them into
     * the thread's row scratch (the row's (k - k0, h)), the second reads them there */
    const int rec = Sc == GAT_SCORE_GAT && !al;
    gat_real *arow = rec ? l->arow + (size_t)thread_num() * l->arow_stride : NULL;
    uint64_t hv = 0, blk = UINT64_MAX;
    for (int v = 0; v < NV; v++)
        db[v] = bc(0);
    /* the chunk's edge-term partial: gat's dM (D, H), gatv2's dW_e (D, Fp, H) */
    const size_t pel = (size_t)l->D * (Sc == GAT_SCORE_GAT ? (size_t)H : hw);
    gat_real *pe =
        l->D && (Sc == GAT_SCORE_GAT || Sc == GAT_SCORE_GATV2) ? b->pe + (size_t)c * pel : NULL;
    if (pe) memset(pe, 0, pel * sizeof *pe);
    for (gat_idx i = r0; i < r1; i++) {
        const gat_idx k0 = g->rowptr[i], k1 = g->rowptr[i + 1];
        gat_real *hd = b->dy + (size_t)i * b->dy_stride, *dyi = hd + GAT_I_DY_HEAD(H);
        if (b->dlogits) {
            const gat_real *d = b->dlogits + (size_t)i * l->Fo;
            const gat_real s = H == 1 ? 1 : (gat_real)1 / H;
            for (gat_idx f = 0; f < Fp; f++)
                for (int h = 0; h < H; h++)
                    dyi[(size_t)f * H + h] = f < l->Fo ? d[f] * s : 0;
        }
        V8 any = bc(0);
        for (int v = 0; v < NV; v++)
            dy[v] = ld(dyi + 8 * v), db[v] += dy[v], any += dy[v] * dy[v];
        if (hsum(any) == 0) { /* rows the loss does not read: no gradient */
            b->active[i] = 0;
            memset(b->ds_dst + (size_t)i * H, 0, (size_t)H * sizeof *dp);
            if (Sc != GAT_SCORE_GAT) memset(b->dq + (size_t)i * hw, 0, hw * sizeof *dp);
            continue;
        }
        /* the record's softmax terms and s_dst (what the sources pass recomputes alpha from) */
        if (rec) {
            memcpy(hd, l->soft + (size_t)i * 2 * H, 2 * (size_t)H * sizeof *hd);
            memcpy(hd + 2 * H, l->s_dst + (size_t)i * H, (size_t)H * sizeof *hd);
        }
        b->active[i] = 1;
        gat_real *hdot = hd + 3 * H;
        if (Sc == GAT_SCORE_GAT && l->agg2 && !l->D) {
            /* the row terms from the forward's sums: dot_i = dy_i . sum_j alpha'_ij z_j and
             * ds_dst_i = dy_i . sum_j alpha'_ij f_ij z_j - dot_i sum_j alpha_ij f_ij */
            const gat_real *r2 = l->agg2 + (size_t)i * hw, *sg = l->asig + (size_t)i * H;
            for (int q = 0; q < P; q++)
                D[q] = bc(0), S[q] = bc(0);
            for (int v = 0; v < NV; v++)
                S[v % P] += dy[v] * ld(r2 + 8 * v);
            fold(l, S, H, sum);
            if (l->agg) {
                const gat_real *r = l->agg + (size_t)i * hw;
                for (int v = 0; v < NV; v++)
                    D[v % P] += dy[v] * ld(r + 8 * v);
                fold(l, D, H, dot);
            } else { /* one head, no residual: the sum is the logits less the bias */
                const gat_real *o = l->out + (size_t)i * l->Fo;
                dot[0] = 0;
                for (gat_idx f = 0; f < l->Fo; f++)
                    dot[0] += dyi[f] * (o[f] - l->b[f]);
            }
            memcpy(hdot, dot, (size_t)H * sizeof *dot);
            for (int h = 0; h < H; h++)
                b->ds_dst[(size_t)i * H + h] = sum[h] - dot[h] * sg[h];
            continue;
        }
        const gat_real *ar = rec ? arow : al + (size_t)k0 * H; /* the row's (k - k0, h) */
        if (H % 8 == 0) {
            for (int q = 0; q < P; q++)
                D[q] = bc(0);
            for (gat_idx k = k0; k < k1; k++) {
                const gat_real *zj = l->z + (size_t)g->col[k] * hw;
                if (l->prefetch && k + AHEAD < g->nnz)
                    prefetch_row(l->z + (size_t)g->col[k + AHEAD] * hw, hw);
                for (int q = 0; q < P; q++)
                    S[q] = bc(0);
                for (int v = 0; v < NV; v++)
                    S[v % P] += dy[v] * ld(zj + 8 * v);
                for (int q = 0; q < P; q++) {
                    const size_t kh = (size_t)(k - k0) * H + 8 * q;
                    const V8 km =
                        !l->att.on ? bc(1)
                        : l->akeep
                            ? keep_pat(l, l->akeep + (size_t)k * AB, H, q, as)
                            : (V8)((VI)bc(as) & keep8(&l->att, ekey_of(l, k) * H + 8 * (size_t)q));
                    const V8 d = l->att.on ? S[q] * km : S[q];
                    st(dp + kh, d);
                    if (rec) st(arow + kh, alpha8(l, i, pre8(l, i, g->col[k], q, H), q, H));
                    D[q] += ld(ar + kh) * d;
                }
            }
            for (int q = 0; q < P; q++)
                st(hdot + 8 * q, D[q]);
            if (Sc != GAT_SCORE_GAT) {
                for (int q = 0; q < P; q++)
                    st(dot + 8 * q, D[q]);
                family_backward_row(l, b, i, dp, dot, Q, DQ, Pv, ph, rs, sum, pe, H, Fp, Sc);
                continue;
            }
            for (int q = 0; q < P; q++)
                S[q] = bc(0);
            for (gat_idx k = k0; k < k1; k++)
                for (int q = 0; q < P; q++) {
                    const size_t kh = (size_t)(k - k0) * H + 8 * q;
                    const VI pm =
                        rec ? pre8(l, i, g->col[k], q, H) > 0 : expand(l->pos[(size_t)k * AB + q]);
                    const V8 f = sel(pm, bc(1), bc(slope));
                    const V8 d = ld(ar + kh) * (ld(dp + kh) - D[q]) * f;
                    st(dp + kh, d);
                    S[q] += d;
                }
            for (int q = 0; q < P; q++)
                st(b->ds_dst + (size_t)i * H + 8 * q, S[q]);
            if (pe) edge_dm(l, dp, k0, k1, pe, H);
            continue;
        }
        for (int h = 0; h < H; h++)
            dot[h] = 0, sum[h] = 0;
        for (gat_idx k = k0; k < k1; k++) {
            const gat_real *zj = l->z + (size_t)g->col[k] * hw;
            if (l->prefetch && k + AHEAD < g->nnz)
                prefetch_row(l->z + (size_t)g->col[k + AHEAD] * hw, hw);
            for (int q = 0; q < P; q++)
                S[q] = bc(0);
            for (int v = 0; v < NV; v++)
                S[v % P] += dy[v] * ld(zj + 8 * v);
            fold(l, S, H, gk);
            for (int h = 0; h < H; h++) {
                const unsigned kept =
                    !l->att.on ||
                    (l->akeep ? bit_of(l->akeep + (size_t)k * AB, h)
                              : keep1(&l->att, ekey_of(l, k) * H + (uint64_t)h, &blk, &hv));
                const gat_real d = !l->att.on ? gk[h] : kept ? gk[h] * as : 0;
                const size_t kh = (size_t)(k - k0) * H + h;
                dp[kh] = d;
                if (rec) arow[kh] = alpha1(l, i, pre1(l, i, g->col[k], h, H), h, H);
                dot[h] += ar[kh] * d;
            }
        }
        memcpy(hdot, dot, (size_t)H * sizeof *dot);
        if (Sc != GAT_SCORE_GAT) {
            family_backward_row(l, b, i, dp, dot, Q, DQ, Pv, ph, rs, sum, pe, H, Fp, Sc);
            continue;
        }
        for (gat_idx k = k0; k < k1; k++)
            for (int h = 0; h < H; h++) {
                const size_t kh = (size_t)(k - k0) * H + h;
                const unsigned pb =
                    rec ? pre1(l, i, g->col[k], h, H) > 0 : bit_of(l->pos + (size_t)k * AB, h);
                const gat_real d = ar[kh] * (dp[kh] - dot[h]) * (pb ? 1 : slope);
                dp[kh] = d;
                sum[h] += d;
            }
        for (int h = 0; h < H; h++)
            b->ds_dst[(size_t)i * H + h] = sum[h];
        if (pe) edge_dm(l, dp, k0, k1, pe, H);
    }
    gat_real *pt = b->pt + (size_t)c * 2 * hw;
    for (int v = 0; v < NV; v++)
        st(pt + 8 * v, db[v]);
    if (Sc == GAT_SCORE_GATV2)
        for (int v = 0; v < NV; v++)
            st(pt + hw + 8 * v, Pv[v]);
    if (Sc == GAT_SCORE_COSINE || Sc == GAT_SCORE_GAUSSIAN)
        memcpy(pt + hw, ph, (size_t)H * sizeof *ph);
}

static void FN(att_backward_targets)(const gat_i_fl *l, const gat_i_fbw *b)
{
    const int nt = l->nt;
    FOR_CHUNKS(
        l->tc, nt,
        SCORES(l->score, SCORE_SHAPES(l->H, l->Fp,
                                      WITH_SCRATCH(bwd_target_rows(
                                          l, b, c, r0, r1, s_.dy, s_.S, s_.D, s_.E, s_.h1, s_.h2,
                                          s_.h3, s_.acc, s_.F, s_.G, s_.h4, s_.h5, Hc, Fc, Sc)))));
}

/* l > 0, source row j with dz_j in acc: dW += x_d_j dz_j and the input's gradient
 * dx = W dz_j (from the transpose Wt), back through dropout and the previous layer's ELU
 * (derivative y + 1 below zero, from its output y), stored in the previous layer's (Fp, H). */
INLINE void proj_dense_backward(const gat_i_fl *l, const gat_i_fbw *b, gat_idx j,
                                const V8 *const *gp, int np, gat_real *dW0, gat_real *d, int H,
                                gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H, fin = (size_t)l->fin;
    const gat_real *xj = l->xin + (size_t)j * fin;
    const uint8_t *kb = l->xkeep + (size_t)j * ((fin + 7) / 8);
    const gat_real sc = l->in.on ? l->in.scale : 1;
    const int id = b->identity;
    /* an identity residual's gradient, in the input's (model) order: the output element of
     * input element c, or on an averaging layer the sum over the heads' copies */
    if (id >= 0) {
        const V8 *gi = gp[id];
        const size_t Fo = (size_t)l->Fo;
        for (size_t e = 0; e < fin; e++) {
            gat_real v = 0;
            if (l->mean)
                for (size_t h = 0; h < (size_t)H; h++)
                    v += gi[(e * H + h) / 8][(e * H + h) % 8];
            else
                v = gi[((e % Fo) * H + e / Fo) / 8][((e % Fo) * H + e / Fo) % 8];
            d[e] = v;
        }
    } else {
        memset(d, 0, fin * sizeof *d);
    }
    size_t c = 0;
    for (; c + 8 <= fin; c += 8) {
        const V8 y = ld(xj + c);
        const V8 kf = l->in.on ? (V8)((VI)bc(sc) & expand(kb[c / 8])) : bc(1);
        const V8 xd = y * kf;
        V8 dx = ld(d + c);
        for (int p = 0; p < np; p++) {
            if (p == id) continue;
            for (size_t e = 0; e < hw; e++)
                dx += gp[p][e / 8][e % 8] * ld(b->Wt[p] + e * fin + c);
        }
        st(d + c, dx * kf * sel(y > 0, bc(1), y + 1));
        for (int p = 0; p < np; p++)
            for (int t = 0; t < 8 && p != id; t++) {
                gat_real *w = dW0 + ((size_t)p * fin + c + (size_t)t) * hw;
                for (int v = 0; v < NV; v++)
                    st(w + 8 * v, ld(w + 8 * v) + xd[t] * gp[p][v]);
            }
    }
    for (; c < fin; c++) {
        const int kept = !l->in.on || ((kb[c / 8] >> (c % 8)) & 1);
        const gat_real y = xj[c], kf = kept ? sc : 0;
        gat_real dx = d[c];
        for (int p = 0; p < np; p++) {
            if (p == id) continue;
            for (size_t e = 0; e < hw; e++)
                dx += gp[p][e / 8][e % 8] * b->Wt[p][e * fin + c];
        }
        d[c] = dx * kf * (y > 0 ? 1 : y + 1);
        for (int p = 0; p < np; p++) {
            if (p == id) continue;
            gat_real *w = dW0 + ((size_t)p * fin + c) * hw;
            for (int v = 0; v < NV; v++)
                st(w + 8 * v, ld(w + 8 * v) + (y * kf) * gp[p][v]);
        }
    }
    /* model order (h, f) of the previous layer -> its (Fp, H) rows, zero padding */
    const int pH = b->prev_H;
    const gat_idx pFo = b->prev_Fo, pFp = b->prev_Fp;
    gat_real *dyp = b->dy_prev + (size_t)j * b->prev_stride + GAT_I_DY_HEAD(pH);
    if (pH == 8 && pFp == 8) {
        V8 in[8], out[8];
        for (int h = 0; h < 8; h++)
            in[h] = ld(d + 8 * h);
        transpose8(in, out);
        for (int f = 0; f < 8; f++)
            st(dyp + 8 * f, out[f]);
        return;
    }
    for (gat_idx f = 0; f < pFp; f++)
        for (int h = 0; h < pH; h++)
            dyp[(size_t)f * pH + h] = f < pFo ? d[(size_t)h * pFo + f] : 0;
}

/* Source row j: dz_j = sum over j's out-edges of alpha'_ij dy_i (aggregation) + ds_src_j a_src
 * + ds_dst_j a_dst (score halves); da_src, da_dst; then the projection's backward. Only row j of
 * dz / dy_prev and chunk c's partial sums are written: race-free. */
INLINE void bwd_source_rows(const gat_i_fl *l, const gat_i_fbw *b, int c, gat_idx r0, gat_idx r1,
                            V8 *acc, V8 *W, V8 *ES, V8 *das, V8 *dad, gat_real *w, gat_real *dss,
                            V8 *K, V8 *DQ, V8 *RS, gat_real *gq, gat_real *rs, gat_real *gd,
                            gat_real *xd, int H, gat_idx Fp, int Sc)
{
    const gat_graph *g = l->g;
    const int NV = (int)(Fp * H / 8), P = vper(H), AB = (H + 7) / 8;
    const size_t hw = (size_t)Fp * H;
    const gat_real as = l->att.on ? l->att.scale : 1;
    gat_real *ps = b->ps + (size_t)(b->c0 + c) * b->ps_stride;
    gat_real *dW = ps + 2 * hw;
    /* a remote row's target-side terms (ds_dst, dq, its own dy): zero */
    static const gat_real zero_h[GAT_I_MAX_HEADS] = {0};
    /* gat without stored coefficients, signs or keeps: each edge's from row i's node terms */
    const int rec = Sc == GAT_SCORE_GAT && !l->alpha;
    uint64_t hv = 0, blk = UINT64_MAX;
    for (int v = 0; v < NV; v++)
        das[v] = dad[v] = bc(0);
    memset(ps, 0, b->ps_stride * sizeof *ps);

    /* the projections' gradients: z, then the score's q and k, then the residual's */
    const int nsc = b->nproj - (b->res ? 1 : 0);
    const V8 *gp[4];
    int np = 0;
    gp[np++] = acc;
    if (nsc == 2) gp[np++] = K;
    if (nsc == 3) gp[np++] = DQ, gp[np++] = K;
    if (b->res) gp[np++] = RS;
    V8 *T = DQ; /* per-edge head sums; DQ is set only after a row's edges */
    for (gat_idx j = r0; j < r1; j++) {
        const gat_real *kj = Sc == GAT_SCORE_GAT ? NULL : l->k + (size_t)j * hw;
        const gat_real *zr = l->z + (size_t)j * hw;
        for (int v = 0; v < NV; v++)
            acc[v] = bc(0), K[v] = bc(0);
        for (int q = 0; q < P; q++)
            ES[q] = bc(0);
        for (int h = 0; h < H; h++)
            dss[h] = 0, rs[h] = 0;
        for (gat_idx p = g->t_rowptr[j]; p < g->t_rowptr[j + 1]; p++) {
            const gat_idx i = g->t_col[p];
            if (l->prefetch && p + AHEAD < g->nnz) {
                const gat_idx ia = g->t_col[p + AHEAD];
                const size_t ka = (size_t)g->t_edge[p + AHEAD];
                /* a row without gradient is not read (nor its edge's stored values): its flag
                 * is fetched AHEAD edges before the row is */
                if (p + 2 * AHEAD < g->nnz)
                    __builtin_prefetch(b->active + g->t_col[p + 2 * AHEAD], 0, 3);
                if (b->active[ia]) {
                    prefetch_row(b->dy + (size_t)ia * b->dy_stride, b->dy_stride);
                    if (!rec) {
                        __builtin_prefetch(l->alpha + ka * H, 0, 3);
                        if (Sc == GAT_SCORE_GAT) __builtin_prefetch(l->pos + ka * AB, 0, 3);
                        if (H % 8) __builtin_prefetch(l->akeep + ka * AB, 0, 3);
                    }
                }
            }
            if (!b->active[i]) continue;
            const gat_real *hdi = b->dy + (size_t)i * b->dy_stride; /* its record */
            const size_t k = (size_t)g->t_edge[p];
            const gat_real *dyi = hdi + GAT_I_DY_HEAD(H), *doti = hdi + 3 * H;
            /* d alpha'_ij = dy_i . z_j per head (as the targets pass computed it), then the edge's
             * score gradient from it and row i's softmax term: recomputed here rather than
             * stored per edge by the targets pass */
            for (int q = 0; q < P; q++)
                T[q] = bc(0);
            for (int v = 0; v < NV; v++)
                T[v % P] += ld(dyi + 8 * v) * ld(zr + 8 * v);
            if (H % 8 == 0) {
                for (int q = 0; q < P; q++) {
                    V8 a;
                    VI pm = (VI){0};
                    if (rec) {
                        const V8 t = ld(hdi + 2 * H + 8 * q) + ld(l->s_src + (size_t)j * H + 8 * q);
                        pm = t > 0;
                        a = alpha8_of(t, hdi, hdi + H, l->slope, q);
                    } else {
                        a = ld(l->alpha + k * H + 8 * q);
                        if (Sc == GAT_SCORE_GAT) pm = expand(l->pos[k * AB + q]);
                    }
                    /* large graphs: the keep flags are recomputed (two hashes), cheaper than one
                     * more random cache line per edge; so is any layer that does not store them */
                    const V8 km = !l->att.on ? bc(1)
                                  : l->prefetch || !l->akeep
                                      ? (V8)((VI)bc(as) &
                                             keep8(&l->att, tkey_of(l, p, k) * H + 8 * (size_t)q))
                                      : keep_pat(l, l->akeep + k * AB, H, q, as);
                    W[q] = a * km;
                    const V8 de = a * ((l->att.on ? T[q] * km : T[q]) - ld(doti + 8 * q));
                    if (Sc == GAT_SCORE_GAT)
                        ES[q] += de * sel(pm, bc(1), bc(l->slope));
                    else
                        st(gd + 8 * q, de);
                }
            } else {
                fold(l, T, H, gd);
                for (int h = 0; h < H; h++) {
                    gat_real a;
                    unsigned pb = 0;
                    if (rec) {
                        const gat_real t = hdi[2 * H + h] + l->s_src[(size_t)j * H + h];
                        pb = t > 0;
                        a = alpha1_of(t, hdi[h], hdi[H + h], l->slope);
                    } else {
                        a = l->alpha[k * H + h];
                        if (Sc == GAT_SCORE_GAT) pb = bit_of(l->pos + k * AB, h);
                    }
                    const unsigned kept =
                        !l->att.on ||
                        (l->akeep ? bit_of(l->akeep + k * AB, h)
                                  : keep1(&l->att, tkey_of(l, p, k) * H + (uint64_t)h, &blk, &hv));
                    w[h] = !l->att.on ? a : kept ? a * as : 0;
                    const gat_real de = a * ((!l->att.on ? gd[h]
                                              : kept     ? gd[h] * as
                                                         : 0) -
                                             doti[h]);
                    if (Sc == GAT_SCORE_GAT)
                        dss[h] += de * (pb ? 1 : l->slope);
                    else
                        gd[h] = de;
                }
                for (int q = 0; q < P; q++)
                    W[q] = pat(l, w, H, q);
            }
            for (int v = 0; v < NV; v++)
                acc[v] += W[v % P] * ld(dyi + 8 * v);
            if (Sc == GAT_SCORE_GAT) continue;
            /* the score's per-head transform (family_backward_row): gd becomes the gradient of
             * the score's core */
            for (int h = 0; h < H; h++) {
                if (Sc == GAT_SCORE_DOT || Sc == GAT_SCORE_COSINE) gd[h] *= l->coef[h];
                if (Sc == GAT_SCORE_GAUSSIAN) gd[h] = -gd[h] * l->coef[h];
            }
            /* the key k_j's share of the score's gradient, from q_i and the core's gradient */
            const gat_real *qi = l->q + (size_t)i * hw, *gk = gd;
            if (Sc == GAT_SCORE_COSINE) {
                for (int h = 0; h < H; h++) {
                    gq[h] = gk[h] * l->qinv[(size_t)i * H + h] * l->qinv[(size_t)j * H + h];
                    rs[h] += gk[h] * l->esc[k * H + h];
                }
                gk = gq;
            }
            if (Sc == GAT_SCORE_GAUSSIAN)
                for (int h = 0; h < H; h++)
                    rs[h] += gk[h];
            const gat_real *xe = Sc == GAT_SCORE_GATV2 && l->D ? l->ex + k * (size_t)l->D : NULL;
            for (int v = 0; v < NV; v++) {
                const V8 G = pat(l, gk, H, v % P), qv = ld(qi + 8 * v);
                if (Sc == GAT_SCORE_GATV2) {
                    const V8 t =
                        xe ? qv + ld(kj + 8 * v) + edge_v(l, xe, hw, v) : qv + ld(kj + 8 * v);
                    K[v] += G * ld(l->att_w + 8 * v) * sel(t > 0, bc(1), bc(l->slope));
                } else if (Sc == GAT_SCORE_GAUSSIAN) {
                    K[v] -= 2 * G * qv;
                } else {
                    K[v] += G * qv;
                }
            }
        }
        const int own = j < b->n_own;
        if (Sc == GAT_SCORE_GAT) {
            if (H % 8 == 0)
                for (int q = 0; q < P; q++)
                    st(dss + 8 * q, ES[q]);
            const gat_real *zj = l->z + (size_t)j * hw,
                           *dsd = own ? b->ds_dst + (size_t)j * H : zero_h;
            for (int v = 0; v < NV; v++) {
                const V8 es = pat(l, dss, H, v % P), ed = pat(l, dsd, H, v % P),
                         zv = ld(zj + 8 * v);
                acc[v] += es * ld(l->a_src + 8 * v) + ed * ld(l->a_dst + 8 * v);
                das[v] += es * zv;
                dad[v] += ed * zv;
            }
        } else {
            if (Sc == GAT_SCORE_COSINE)
                for (int h = 0; h < H; h++) {
                    const gat_real kv = l->qinv[(size_t)j * H + h];
                    rs[h] *= -kv * kv;
                }
            if (Sc == GAT_SCORE_GAUSSIAN)
                for (int h = 0; h < H; h++)
                    rs[h] *= 2;
            if (Sc == GAT_SCORE_COSINE || Sc == GAT_SCORE_GAUSSIAN)
                for (int v = 0; v < NV; v++)
                    K[v] += pat(l, rs, H, v % P) * ld(kj + 8 * v);
            /* gradients of the projections: z (values, and queries and keys where they are z),
             * then the separate query and key projections */
            const gat_real *dqj = b->dq + (size_t)j * hw;
            for (int v = 0; v < NV; v++) {
                const V8 dq = own ? ld(dqj + 8 * v) : bc(0);
                if (nsc == 1) acc[v] += K[v] + dq;
                if (nsc == 2) acc[v] += K[v], K[v] = dq;
                if (nsc == 3) DQ[v] = dq;
            }
        }
        /* acc = dz_j: the projection's backward; nothing to add for a zero row (no out-edge to
         * a row with a gradient, and ds_dst_j = 0) */
        /* the residual's gradient is row j's own pre-activation gradient */
        if (b->res)
            for (int v = 0; v < NV; v++)
                RS[v] =
                    own ? ld(b->dy + (size_t)j * b->dy_stride + GAT_I_DY_HEAD(H) + 8 * v) : bc(0);
        if (b->remote) { /* the owner back-propagates them */
            store_row(b->rz + (size_t)j * hw, acc, NV);
            if (nsc == 3) store_row(b->rk + (size_t)j * hw, K, NV);
            continue;
        }
        if (b->add_ptr) /* other bindings' shares, in slot order */
            for (gat_idx s = b->add_ptr[j]; s < b->add_ptr[j + 1]; s++) {
                const gat_real *az = b->add_z + (size_t)b->add_slot[s] * hw;
                for (int v = 0; v < NV; v++)
                    acc[v] += ld(az + 8 * v);
                if (nsc == 3) {
                    const gat_real *ak = b->add_k + (size_t)b->add_slot[s] * hw;
                    for (int v = 0; v < NV; v++)
                        K[v] += ld(ak + 8 * v);
                }
            }
        V8 any = bc(0);
        for (int p = 0; p < np; p++)
            for (int v = 0; v < NV; v++)
                any += gp[p][v] * gp[p][v];
        if (hsum(any) == 0) {
            if (l->xin) {
                const size_t pw = (size_t)b->prev_Fp * b->prev_H;
                memset(b->dy_prev + (size_t)j * b->prev_stride + GAT_I_DY_HEAD(b->prev_H), 0,
                       pw * sizeof(gat_real));
            } else if (b->dz) {
                b->dz_nonzero[j] = 0;
            }
            continue;
        }
        if (l->xin) {
            proj_dense_backward(l, b, j, gp, np, dW, xd, H, Fp);
        } else if (b->dz) {
            b->dz_nonzero[j] = 1;
            for (int p = 0; p < np; p++)
                store_row(b->dz + ((size_t)p * (size_t)b->n_own + (size_t)j) * hw, gp[p], NV);
        } else {
            const gat_csr *x = l->x;
            const size_t pstride = (size_t)x->cols * hw;
            for (gat_idx q = x->rowptr[j]; q < x->rowptr[j + 1]; q++) {
                const gat_real xv = !l->in.on     ? x->val[q]
                                    : l->xkeep[q] ? x->val[q] * l->in.scale
                                                  : 0;
                for (int p = 0; p < np; p++) {
                    gat_real *wr = dW + p * pstride + (size_t)x->col[q] * hw;
                    for (int v = 0; v < NV; v++)
                        st(wr + 8 * v, ld(wr + 8 * v) + xv * gp[p][v]);
                }
            }
        }
    }
    if (Sc == GAT_SCORE_GAT)
        for (int v = 0; v < NV; v++)
            st(ps + 8 * v, das[v]), st(ps + hw + 8 * v, dad[v]);
}

static void FN(att_backward_sources)(const gat_i_fl *l, const gat_i_fbw *b)
{
    const int nt = l->nt;
    FOR_CHUNKS(l->sc, nt,
               SCORES(l->score, SCORE_SHAPES(l->H, l->Fp,
                                             WITH_SCRATCH(bwd_source_rows(
                                                 l, b, c, r0, r1, s_.acc, s_.S, s_.D, s_.E, s_.F,
                                                 s_.h1, s_.h2, s_.K, s_.G, s_.dy, s_.h3, s_.h4,
                                                 s_.h5, s_.xd, Hc, Fc, Sc)))));
}

/* dW[p] (F, H, Fo) += X_d^T dz[p] from the stored dz[p] (N, Fp, H) of np <= 4 projections, one
 * feature row per iteration; the entries dropped or on a zero row of dz are skipped (compacted
 * first, branch-free, once for every projection). */
INLINE void dw_sparse_rows(const gat_i_fl *l, const gat_csr *xt, const gat_idx *perm, int np,
                           const gat_real *const *dz, const uint8_t *nz, gat_real *const *dW,
                           gat_idx f0, gat_idx f1, V8 *A0, V8 *A1, V8 *A2, V8 *A3, gat_real *y,
                           int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const size_t hw = (size_t)Fp * H;
    const gat_idx Fo = H % 8 == 0 ? Fp : l->Fo;
    const gat_real sc = l->in.on ? l->in.scale : 1;
    V8 *acc[4] = {A0, A1, A2, A3};
    gat_real val[SEG];
    gat_idx row[SEG];
    for (gat_idx f = f0; f < f1; f++) {
        for (int q = 0; q < np; q++)
            for (int v = 0; v < NV; v++)
                acc[q][v] = bc(0);
        for (gat_idx p0 = xt->rowptr[f]; p0 < xt->rowptr[f + 1]; p0 += SEG) {
            const gat_idx p1 = xt->rowptr[f + 1] - p0 < SEG ? xt->rowptr[f + 1] : p0 + SEG;
            int n = 0;
            for (gat_idx p = p0; p < p1; p++) {
                const gat_idx i = xt->col[p];
                row[n] = i;
                val[n] = xt->val[p] * sc;
                n += nz[i] & (l->in.on ? l->xkeep[perm[p]] : 1);
            }
            for (int q = 0; q < np; q++)
                for (int t = 0; t < n; t++) {
                    const gat_real *d = dz[q] + (size_t)row[t] * hw;
                    for (int v = 0; v < NV; v++)
                        acc[q][v] += val[t] * ld(d + 8 * v);
                }
        }
        for (int q = 0; q < np; q++) {
            gat_real *w = dW[q] + (size_t)f * H * Fo;
            fh_to_model(acc[q], y, H, Fp, Fo);
            size_t e = 0;
            for (; e + 8 <= (size_t)H * Fo; e += 8)
                st(w + e, ld(w + e) + ld(y + e));
            for (; e < (size_t)H * Fo; e++)
                w[e] += y[e];
        }
    }
}

static void FN(dw_sparse)(const gat_i_fl *l, const gat_csr *xt, const gat_idx *perm, int np,
                          const gat_real *const *dz, const uint8_t *dz_nonzero, gat_real *const *dW)
{
    const int nt = l->nt;
    const gat_idx F = xt->rows;
    const int nch = F < 64 ? (int)F : 64;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
    for (int c = 0; c < nch; c++) {
        const gat_idx f0 = (gat_idx)((int64_t)F * c / nch),
                      f1 = (gat_idx)((int64_t)F * (c + 1) / nch);
        SHAPES(l->H, l->Fp,
               WITH_SCRATCH(dw_sparse_rows(l, xt, perm, np, dz, dz_nonzero, dW, f0, f1, s_.acc,
                                           s_.S, s_.D, s_.E, s_.y, Hc, Fc)));
    }
}

/* Rows (H, Fo) model order -> (Fp, H) with zero padding (weights, attention vectors). */
static void FN(to_fh)(const gat_real *src, gat_real *dst, size_t n, int H, gat_idx Fo, gat_idx Fp,
                      int nt)
{
    const size_t hw = (size_t)Fp * H;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && n * hw > 65536)
    for (size_t r = 0; r < n; r++) {
        const gat_real *s = src + r * (size_t)H * Fo;
        gat_real *d = dst + r * hw;
        if (H == 8 && Fo == 8) {
            V8 in[8], out[8];
            for (int h = 0; h < 8; h++)
                in[h] = ld(s + 8 * h);
            transpose8(in, out);
            for (int f = 0; f < 8; f++)
                st(d + 8 * f, out[f]);
            continue;
        }
        for (gat_idx f = 0; f < Fp; f++)
            for (int h = 0; h < H; h++)
                d[(size_t)f * H + h] = f < Fo ? s[(size_t)h * Fo + f] : 0;
    }
}

extern const gat_i_fused_ops FN(gat_i_fused_ops);
const gat_i_fused_ops FN(gat_i_fused_ops) = {
    .isa = STR(GAT_I_ISA),
    .proj_sparse = FN(proj_sparse),
    .proj_dense = FN(proj_dense),
    .att_forward = FN(att_forward),
    .att_alpha = FN(att_alpha),
    .att_backward_targets = FN(att_backward_targets),
    .att_backward_sources = FN(att_backward_sources),
    .dw_sparse = FN(dw_sparse),
    .adam = FN(gat_i_adam_loop),
    .to_fh = FN(to_fh),
};
