/* A string -> index hash table over a caller's array of names (open addressing, FNV-1a). */
#include "core/strmap.h"
#include "core/core.h"

#include <string.h>

gat_status gat_i_strmap_init(gat_i_strmap *m, size_t max_keys)
{
    size_t cap = 16;
    while (cap < 2 * max_keys)
        cap *= 2;
    m->mask = 0;
    m->slot = gat_malloc(cap, sizeof *m->slot);
    if (!m->slot) return GAT_ENOMEM;
    for (size_t k = 0; k < cap; k++)
        m->slot[k] = -1;
    m->mask = cap - 1;
    return GAT_OK;
}

void gat_i_strmap_free(gat_i_strmap *m)
{
    gat_free(m->slot);
    memset(m, 0, sizeof *m);
}

/* FNV-1a, 64 bits. */
static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* The slot of key: it holds key's index into names, or -1 where key would be stored. */
gat_idx *gat_i_strmap_slot(const gat_i_strmap *m, char *const *names, const char *key)
{
    size_t k = (size_t)hash_str(key) & m->mask;
    while (m->slot[k] >= 0 && strcmp(names[m->slot[k]], key) != 0)
        k = (k + 1) & m->mask;
    return &m->slot[k];
}
