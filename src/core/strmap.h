/* Private string -> index hash table of the readers and of the dataset checks (src/io, src/data):
 * the keys stay in the caller's array of names. */
#ifndef GAT_I_STRMAP_H
#define GAT_I_STRMAP_H

#include "gat/status.h"

#include <stddef.h>

/* Open addressing with linear probing. The keys live in a caller's array of names; a slot holds
 * an index into it, or -1. Sized once for the most keys it will hold, at most half full. */
typedef struct gat_i_strmap {
    gat_idx *slot; /* (mask + 1) */
    size_t mask;
} gat_i_strmap;

/* m: uninitialised. Returns GAT_ENOMEM (m is then destroy-safe). */
gat_status gat_i_strmap_init(gat_i_strmap *m, size_t max_keys);
/* Frees m and zeroes it; accepts a zeroed m. */
void gat_i_strmap_free(gat_i_strmap *m);
/* The slot of key: it holds key's index into names, or -1 where key would be stored. */
gat_idx *gat_i_strmap_slot(const gat_i_strmap *m, char *const *names, const char *key);

#endif
