/* Dense matrix products of the wide layers (gat_i_fused_ops.gemm): C (+)= A B, blocked for the
 * caches and register-tiled, in this build's vectors. Why not BLAS: OpenBLAS's results depend on
 * its own thread count (measured with Debian's 0.3.21: X^T dZ for 10 000 x 512 x 512 differs
 * between one and two threads, and with OPENBLAS_CORETYPE=Haswell X W too), and it has no
 * per-call thread setting, so a library whose results must not depend on thread counts, and
 * which must not change process-wide settings, cannot hand it these products.
 *
 * C is cut into blocks of MB rows x NB columns, split over the threads; a block is computed by
 * one thread over K in slices of KB, each slice's sum added to C in slice order, each element's
 * sum over a slice in k order: the same operations for any thread count. Inside a block, tiles
 * of 6 rows x two vectors (the build's widest) keep their accumulators in registers; the block's A
 * rows (MB x KB) and B slice (KB x NB) stay in L2. */
#include "fused_vec.h"

/* The tiles' vectors, the build's widest registers: 64 bytes with AVX-512 (16 floats), 32 with
 * AVX, 16 on the baseline build (SSE2); unaligned. */
#if defined(__AVX512F__)
#define VBYTES 64
#elif defined(__AVX__)
#define VBYTES 32
#else
#define VBYTES 16
#endif
typedef gat_real VW __attribute__((vector_size(VBYTES), aligned(sizeof(gat_real))));
#define VL ((gat_idx)(VBYTES / sizeof(gat_real)))

enum { MB = 60, NB = 128, KB = 256, TM = 6 };
#define TN (2 * VL)

INLINE VW ldw(const gat_real *p)
{
    return *(const VW *)p;
}

/* One full tile: rows m0 .. m0 + 5, columns n0 .. n0 + TN - 1 (two vectors), k in k0 .. k1 - 1,
 * added to C. */
INLINE void tile_full(gat_idx m0, gat_idx n0, gat_idx k0, gat_idx k1, const gat_real *a, size_t am,
                      size_t ak, const gat_real *b, size_t ldb, gat_real *c, size_t ldc)
{
    VW acc[TM][2];
    for (int r = 0; r < TM; r++)
        acc[r][0] = acc[r][1] = (VW){0};
    const gat_real *ar = a + (size_t)m0 * am;
    for (gat_idx k = k0; k < k1; k++) {
        const gat_real *bk = b + (size_t)k * ldb + n0;
        const VW b0 = ldw(bk), b1 = ldw(bk + VL);
        const gat_real *ak0 = ar + (size_t)k * ak;
        for (int r = 0; r < TM; r++) {
            const VW x = (VW){0} + ak0[(size_t)r * am];
            acc[r][0] += x * b0;
            acc[r][1] += x * b1;
        }
    }
    for (int r = 0; r < TM; r++) {
        VW *cr = (VW *)(c + (size_t)(m0 + r) * ldc + n0);
        cr[0] += acc[r][0];
        cr[1] += acc[r][1];
    }
}

/* A partial tile: mr <= 6 rows, nr <= TN columns, one element at a time. */
static void tile_edge(gat_idx m0, gat_idx mr, gat_idx n0, gat_idx nr, gat_idx k0, gat_idx k1,
                      const gat_real *a, size_t am, size_t ak, const gat_real *b, size_t ldb,
                      gat_real *c, size_t ldc)
{
    for (gat_idx r = 0; r < mr; r++)
        for (gat_idx j = 0; j < nr; j++) {
            gat_real s = 0;
            for (gat_idx k = k0; k < k1; k++)
                s += a[(size_t)(m0 + r) * am + (size_t)k * ak] * b[(size_t)k * ldb + n0 + j];
            c[(size_t)(m0 + r) * ldc + n0 + j] += s;
        }
}

void FN(gat_i_fused_gemm)(gat_idx M, gat_idx N, gat_idx K, const gat_real *a, size_t am, size_t ak,
                          const gat_real *b, size_t ldb, int beta, gat_real *c, size_t ldc, int nt)
{
    if (M < 1 || N < 1) return;
    const gat_idx mb = (M + MB - 1) / MB, nb = (N + NB - 1) / NB;
    const int64_t blocks = (int64_t)mb * nb;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1 && blocks > 1)
    for (int64_t blk = 0; blk < blocks; blk++) {
        const gat_idx i0 = (gat_idx)(blk / nb) * MB, j0 = (gat_idx)(blk % nb) * NB;
        const gat_idx i1 = i0 + MB < M ? i0 + MB : M, j1 = j0 + NB < N ? j0 + NB : N;
        if (!beta)
            for (gat_idx i = i0; i < i1; i++)
                memset(c + (size_t)i * ldc + j0, 0, (size_t)(j1 - j0) * sizeof *c);
        for (gat_idx k0 = 0; k0 < K; k0 += KB) {
            const gat_idx k1 = k0 + KB < K ? k0 + KB : K;
            for (gat_idx n0 = j0; n0 < j1; n0 += TN) {
                const gat_idx nr = j1 - n0 < TN ? j1 - n0 : TN;
                for (gat_idx m0 = i0; m0 < i1; m0 += TM) {
                    const gat_idx mr = i1 - m0 < TM ? i1 - m0 : TM;
                    if (mr == TM && nr == TN)
                        tile_full(m0, n0, k0, k1, a, am, ak, b, ldb, c, ldc);
                    else
                        tile_edge(m0, mr, n0, nr, k0, k1, a, am, ak, b, ldb, c, ldc);
                }
            }
        }
    }
}
