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

/* ---- the reference code's placement (gat_i_fl.head_drop, pdrop) ---- */

/* The projections the aggregation reads: zd under projection dropout, else z. */
INLINE const gat_real *zagg_of(const gat_i_fl *l)
{
    return l->pdrop.on ? l->zd : l->z;
}

/* Lane factors (0 or scale) of vector v's zkeep byte */
INLINE V8 zkeep_factor(const gat_i_fl *l, gat_idx j, int NV, int v)
{
    return (V8)((VI)bc(l->pdrop.scale) & expand(l->zkeep[(size_t)j * (size_t)NV + (size_t)v]));
}

/* Projection dropout of row i, z_i in acc (NV vectors): zkeep's bits and zd_i = z_i kept / (1 -
 * p). Keys in the model's (h, f) order, walked head by head so that four consecutive keys share
 * a hash; padding lanes (f >= Fo) are dropped (they hold zeros). */
INLINE void pdrop_row(const gat_i_fl *l, gat_idx i, const V8 *acc, int H, gat_idx Fp)
{
    const int NV = (int)(Fp * H / 8);
    const gat_idx Fo = l->Fo;
    uint8_t *kb = l->zkeep + (size_t)i * (size_t)NV;
    memset(kb, 0, (size_t)NV);
    uint64_t hv = 0, blk = UINT64_MAX;
    const uint64_t base = rkey_of(l, i) * (uint64_t)H * (uint64_t)Fo;
    for (int h = 0; h < H; h++)
        for (gat_idx f = 0; f < Fo; f++) {
            const size_t e = (size_t)f * (size_t)H + (size_t)h;
            const unsigned keep =
                keep1(&l->pdrop, base + (uint64_t)h * (uint64_t)Fo + (uint64_t)f, &blk, &hv);
            kb[e / 8] |= (uint8_t)(keep << (e % 8));
        }
    gat_real *zd = l->zd + (size_t)i * (size_t)NV * 8;
    for (int v = 0; v < NV; v++)
        st(zd + 8 * v, acc[v] * zkeep_factor(l, i, NV, v));
}

/* head_drop: the H head bits of input element e (stream `in`, elements e H .. e H + H - 1)
 * into kb (ceil(H / 8) bytes) */
INLINE void head_bits(const gat_i_drop *in, uint64_t e, int H, uint8_t *kb)
{
    const uint64_t k0 = e * (uint64_t)H;
    if (H % 8 == 0) {
        for (int q = 0; q < H / 8; q++)
            kb[q] = (uint8_t)movemask(keep8(in, k0 + 8 * (uint64_t)q));
        return;
    }
    uint64_t hv = 0, blk = UINT64_MAX;
    memset(kb, 0, (size_t)(H + 7) / 8);
    for (int h = 0; h < H; h++)
        kb[h >> 3] |= (uint8_t)(keep1(in, k0 + (uint64_t)h, &blk, &hv) << (h & 7));
}

#endif
