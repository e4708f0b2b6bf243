/* What every layer of libgat shares: the largest head count, the cosine score's smoothing, and
 * the dropout stream definition (gat_i_drop_cut, gat_i_keep16) that every
 * dropout of the library follows. The engine's kernels are layers/fused*.c; the plain kernels and
 * the layer-by-layer reference model it is tested against live in tests/ref/ and ship in no
 * library. */
#ifndef GAT_I_LAYERS_H
#define GAT_I_LAYERS_H

#include "core/core.h"
#include "gat/graph.h"
#include "gat/matrix.h"
#include "gat/model.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Row bodies that must inline so that their sizes become compile-time constants at the call. */
#if defined(__GNUC__)
#define GAT_I_INLINE static inline __attribute__((always_inline))
#else
#define GAT_I_INLINE static inline
#endif

/* Largest head count of a layer: the public limit (gat/model.h), one definition. */
#define GAT_I_MAX_HEADS GAT_MAX_HEADS

/* The cosine score's smoothing of norms: |v| = sqrt(v . v + GAT_I_COS_EPS). */
#define GAT_I_COS_EPS 1e-8

/* Dropout streams: element k of stream `key` is kept iff gat_i_keep16(key, k) >= the cut of p
 * (p quantised to 1/65536); four elements share one 64-bit hash. */
static inline uint32_t gat_i_drop_cut(double p)
{
    const double c = p * 65536.0 + 0.5;
    return c >= 65535.0 ? 65535u : (uint32_t)c;
}

/* The 16 bits of element k of a stream whose block hash hv = gat_i_hash64(key, k / 4) the
 * caller holds (a loop over consecutive elements hashes once per four). */
static inline uint32_t gat_i_keep16_of(uint64_t hv, uint64_t k)
{
    return (uint32_t)(hv >> (16 * (k & 3))) & 0xFFFFu;
}

/* The 16 bits that decide element k of stream key: kept iff >= gat_i_drop_cut(p). */
static inline uint32_t gat_i_keep16(uint64_t key, uint64_t k)
{
    return gat_i_keep16_of(gat_i_hash64(key, k >> 2), k);
}

#endif
