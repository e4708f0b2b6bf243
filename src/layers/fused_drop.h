/* Private to the kernel files: the dropout streams (layers/layers.h defines them) as the
 * kernels draw them, eight elements or one at a time, and the dropout keys of a binding that is
 * part of a larger graph (gat_i_fl.xkey, ekey, tekey, rkey). */
#ifndef GAT_I_FUSED_DROP_H
#define GAT_I_FUSED_DROP_H

#include "fused_vec.h"

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

#endif
