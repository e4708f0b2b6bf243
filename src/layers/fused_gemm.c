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
 * of 6 rows x two vectors (the build's widest) keep their accumulators in registers. Each slice
 * of a block's B, two vectors wide (KB x TN), is first copied to a contiguous panel on the
 * thread's stack, which the block's tiles then read in order: B's rows are usually a power of two
 * apart (512 floats: 2 KiB), so read in place they share a few L1 sets and every tile reloads
 * them from L2 or beyond (docs/engine.md#wide-dense-inputs has the figures). The panel takes
 * KB x TN values of stack (32 KiB with AVX-512). The block's A rows (MB x KB) stay in L2. The
 * copies change no sum. */
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

enum { MB = 240, NB = 128, KB = 256, TM = 6 };
#define TN (2 * VL)

INLINE VW ldw(const gat_real *p)
{
    return *(const VW *)p;
}

/* A tile of R <= 6 rows (a constant wherever it is inlined: the accumulators stay in registers)
 * and two vectors of columns: C[r, j] += sum over k < kn of A[r, k] B[k, j], with A read at
 * ap[r am + k ak], B at bp[k ldb + j] and C at cp[r ldc + j] */
INLINE void tile_rows(const int R, gat_idx kn, const gat_real *ap, size_t am, size_t ak,
                      const gat_real *bp, size_t ldb, gat_real *cp, size_t ldc)
{
    VW acc[TM][2];
    for (int r = 0; r < R; r++)
        acc[r][0] = acc[r][1] = (VW){0};
    for (gat_idx k = 0; k < kn; k++) {
        const gat_real *bk = bp + (size_t)k * ldb;
        const VW b0 = ldw(bk), b1 = ldw(bk + VL);
        const gat_real *ak0 = ap + (size_t)k * ak;
        for (int r = 0; r < R; r++) {
            const VW x = ak0[(size_t)r * am] - (VW){0}; /* a broadcast: see bc in fused_vec.h */
            acc[r][0] += x * b0;
            acc[r][1] += x * b1;
        }
    }
    for (int r = 0; r < R; r++) {
        VW *cr = (VW *)(cp + (size_t)r * ldc);
        cr[0] += acc[r][0];
        cr[1] += acc[r][1];
    }
}

/* The last rows of a block, 1 <= mr < 6 of them, two vectors wide, as tiles of 4, 2 and 1 rows
 * (each element's sum is its own: the same bits as one tile): M is rarely a multiple of 6 (x^T dz
 * has M = 512, whose last 2 rows would otherwise run one element at a time) */
static void tile_short(gat_idx mr, gat_idx kn, const gat_real *ap, size_t am, size_t ak,
                       const gat_real *bp, size_t ldb, gat_real *cp, size_t ldc)
{
    gat_idx r = 0;
    if (mr - r >= 4) tile_rows(4, kn, ap, am, ak, bp, ldb, cp, ldc), r += 4;
    if (mr - r >= 2) tile_rows(2, kn, ap + r * am, am, ak, bp, ldb, cp + r * ldc, ldc), r += 2;
    if (mr - r >= 1) tile_rows(1, kn, ap + r * am, am, ak, bp, ldb, cp + r * ldc, ldc);
}

/* A tile of nr < TN columns and mr <= 6 rows, one element at a time (the same pointers) */
static void tile_edge(gat_idx mr, gat_idx nr, gat_idx kn, const gat_real *ap, size_t am, size_t ak,
                      const gat_real *bp, size_t ldb, gat_real *cp, size_t ldc)
{
    for (gat_idx r = 0; r < mr; r++)
        for (gat_idx j = 0; j < nr; j++) {
            gat_real s = 0;
            for (gat_idx k = 0; k < kn; k++)
                s += ap[(size_t)r * am + (size_t)k * ak] * bp[(size_t)k * ldb + j];
            cp[(size_t)r * ldc + j] += s;
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
        _Alignas(64) gat_real panel[KB * TN];
        if (!beta)
            for (gat_idx i = i0; i < i1; i++)
                memset(c + (size_t)i * ldc + j0, 0, (size_t)(j1 - j0) * sizeof *c);
        for (gat_idx k0 = 0; k0 < K; k0 += KB) {
            const gat_idx kn = (k0 + KB < K ? k0 + KB : K) - k0;
            for (gat_idx n0 = j0; n0 < j1; n0 += TN) {
                const gat_idx nr = j1 - n0 < TN ? j1 - n0 : TN;
                const gat_real *bp = b + (size_t)k0 * ldb + n0;
                size_t lb = ldb;
                if (nr == TN && i1 - i0 > TM) { /* a panel for the block's tiles to share */
                    for (gat_idx k = 0; k < kn; k++)
                        memcpy(panel + (size_t)k * TN, bp + (size_t)k * ldb, sizeof(VW) * 2);
                    bp = panel, lb = TN;
                }
                for (gat_idx m0 = i0; m0 < i1; m0 += TM) {
                    const gat_idx mr = i1 - m0 < TM ? i1 - m0 : TM;
                    const gat_real *ap = a + (size_t)m0 * am + (size_t)k0 * ak;
                    gat_real *cp = c + (size_t)m0 * ldc + n0;
                    if (mr == TM && nr == TN)
                        tile_rows(TM, kn, ap, am, ak, bp, lb, cp, ldc);
                    else if (nr == TN)
                        tile_short(mr, kn, ap, am, ak, bp, lb, cp, ldc);
                    else
                        tile_edge(mr, nr, kn, ap, am, ak, bp, lb, cp, ldc);
                }
            }
        }
    }
}
