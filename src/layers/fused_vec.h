/* Private to the kernel files (layers/fused*.c, compiled once per instruction set): 8-lane
 * vectors and their helpers, the per-head lane patterns of an (Fp, H) row, gat's coefficients
 * recomputed from the per-node terms, row layout changes, the chunked row loops, the shape and
 * score instantiations and the per-thread row scratch; and the entry points of one build. */
#ifndef GAT_I_FUSED_VEC_H
#define GAT_I_FUSED_VEC_H

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

#define INLINE GAT_I_INLINE

/* The vector helpers are always inlined: their calling convention never matters (src/meson.build
 * builds these files with -Wno-psabi). */

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
/* A loop over a row's NV vectors, vq = v mod P kept by counting rather than dividing: a division
 * per vector costs more than the multiply-add it indexes where P is known only at run time */
#define FOR_V(v, vq, NV, P) for (int v = 0, vq = 0; v < (NV); v++, vq = vq + 1 < (P) ? vq + 1 : 0)

/* x in every lane. x - 0 is x for every x (0 + x is not: -0 + 0 is +0), so the compiler drops the
 * subtraction and broadcasts x (from memory, into the multiply-add's operand, where x is loaded
 * there); 0 + x costs a scalar add and a broadcast from a register, which on Intel's cores issue
 * on a port that also runs 512-bit multiply-adds. */
INLINE V8 bc(gat_real x)
{
    return x - (V8){0};
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
/* c ? a : b for one value, without a branch: the scalar paths' selects depend on data (a
 * LeakyReLU's sign, a dropout draw), which a branch would mispredict about every other edge */
INLINE gat_real sel1(int c, gat_real a, gat_real b)
{
#ifdef GAT_REAL_DOUBLE
    uint64_t ua, ub;
#else
    uint32_t ua, ub;
#endif
    memcpy(&ua, &a, sizeof a);
    memcpy(&ub, &b, sizeof b);
    const __typeof__(ua) m = (__typeof__(ua))0 - (__typeof__(ua))(c != 0);
    ua = (ua & m) | (ub & ~m);
    memcpy(&a, &ua, sizeof a);
    return a;
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
 * follow the CSR's columns, which the hardware prefetchers cannot predict. Into L2, not L1
 * (prefetcht1): AHEAD rows of 4 to 32 lines each are more lines in flight than L1 has miss
 * buffers, and a prefetch waits for a free one (docs/performance.md, "Row prefetches into
 * L2"). */
#define AHEAD 8
INLINE void prefetch_row(const gat_real *p, size_t hw)
{
    for (size_t o = 0; o < hw * sizeof(gat_real); o += 64)
        __builtin_prefetch((const char *)p + o, 0, 2);
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
#ifdef HAVE_AVX
    const V8 n = (V8)_mm256_floor_ps((__m256)t); /* one instruction for the three below */
    const VI ni = __builtin_convertvector(n, VI);
#else
    VI ni = __builtin_convertvector(t, VI);
    ni += (VI)(t < __builtin_convertvector(ni, V8)); /* truncation -> floor */
    const V8 n = __builtin_convertvector(ni, V8);
#endif
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
    if (H == 1) return bc(w[0]); /* one broadcast, not eight inserts */
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

/* ---- gat's coefficients when alpha is not stored (gat_i_fl.alpha NULL; no edge term) ---- */

/* Where the passes read gat's coefficients alpha (E, H): stored by the forward, or recomputed
 * from the per-node terms (gat_i_fl.alpha NULL; gat only) */
typedef enum alpha_src { ALPHA_STORED, ALPHA_RECOMPUTED } alpha_src;
INLINE alpha_src alpha_src_of(const gat_i_fl *l, int Sc)
{
    return Sc == GAT_SCORE_GAT && !l->alpha ? ALPHA_RECOMPUTED : ALPHA_STORED;
}

/* Whether the forward keeps the training sums agg, agg2 and asig (gat_i_fl) from which the
 * targets pass has a row's softmax backward terms: gat without edge features, agg2 given */
typedef enum fwd_sums { FWD_SUMS_NONE, FWD_SUMS_KEEP } fwd_sums;
INLINE fwd_sums fwd_sums_of(const gat_i_fl *l, int Sc)
{
    return Sc == GAT_SCORE_GAT && l->agg2 && !l->D ? FWD_SUMS_KEEP : FWD_SUMS_NONE;
}

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
    t = sel1(t > 0, t, slope * t);
    return vexp(bc(t - mx))[0] * isum;
}
INLINE gat_real alpha1(const gat_i_fl *l, gat_idx i, gat_real t, int h, int H)
{
    const gat_real *sm = l->soft + (size_t)i * 2 * H;
    return alpha1_of(t, sm[h], sm[H + h], l->slope);
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
 * per-thread scratch (gat_i_fused_scratch) an input row xd (fin) and a model-order row y (hw).
 * A pool: the attention passes name the parts they use in a struct of their own (fwd_scratch,
 * tgt_scratch, src_scratch), filled from it in one place beside their entry point. */
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

INLINE void store_row(gat_real *z, const V8 *acc, int NV)
{
    for (int v = 0; v < NV; v++)
        st(z + 8 * v, acc[v]);
}

/* kept entries of a sparse row, compacted (dropout decided branch-free) */
#define SEG 256

/* gatv2's edge term, vector v of W_e x_e (Fp, H) for the edge's features xe (D) */
INLINE V8 edge_v(const gat_i_fl *l, const gat_real *xe, size_t hw, int v)
{
    V8 s = bc(0);
    for (gat_idx d = 0; d < l->D; d++)
        s += bc(xe[d]) * ld(l->we + (size_t)d * hw + 8 * (size_t)v);
    return s;
}

/* ---- the entry points of the build GAT_I_ISA names (gat_i_fused_ops of that build) ---- */
void FN(gat_i_fused_proj_sparse)(const gat_i_fl *l);
void FN(gat_i_fused_proj_dense)(const gat_i_fl *l);
void FN(gat_i_fused_proj_halves)(const gat_i_fl *l);
void FN(gat_i_fused_gemm)(gat_idx M, gat_idx N, gat_idx K, const gat_real *a, size_t am, size_t ak,
                          const gat_real *b, size_t ldb, int beta, gat_real *c, size_t ldc, int nt);
void FN(gat_i_fused_to_fh)(const gat_real *src, gat_real *dst, size_t n, int H, gat_idx Fo,
                           gat_idx Fp, int nt);
void FN(gat_i_fused_att_forward)(const gat_i_fl *l);
void FN(gat_i_fused_att_alpha)(const gat_i_fl *l, gat_real *alpha);
void FN(gat_i_fused_att_backward_targets)(const gat_i_fl *l, const gat_i_fbw *b);
void FN(gat_i_fused_att_backward_sources)(const gat_i_fl *l, const gat_i_fbw *b);
void FN(gat_i_fused_dw_sparse)(const gat_i_fl *l, const gat_csr *xt, const gat_idx *perm, int np,
                               const gat_real *const *dz, const uint8_t *dz_nonzero,
                               gat_real *const *dW);
void FN(gat_i_fused_dropout)(gat_real *x, size_t n, uint32_t cut, gat_real scale, uint64_t key,
                             int nt);
void FN(gat_i_fused_gelu)(const gat_real *x, gat_real *y, size_t n, int nt);
void FN(gat_i_fused_gelu_grad)(const gat_real *x, gat_real *dy, size_t n, int nt);

#endif
