/* splitmix64 (Steele, Lea & Flood 2014): fast, tiny state, good enough for init and shuffles. */
#include "core.h"

#ifdef _OPENMP
#include <omp.h>
#endif

void gat_rng_seed(gat_rng *r, uint64_t seed)
{
    r->s = seed;
}

uint64_t gat_rng_next(gat_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double gat_rng_uniform(gat_rng *r)
{
    return (double)(gat_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t gat_rng_below(gat_rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = gat_rng_next(r);
    while (x >= limit);
    return x % n;
}

void gat_i_shuffle(gat_rng *r, gat_idx *a, gat_idx n)
{
    for (gat_idx i = n - 1; i > 0; i--) {
        const gat_idx j = (gat_idx)gat_rng_below(r, (uint64_t)i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

int gat_i_threads(int n)
{
#ifdef _OPENMP
    if (n <= 0) n = omp_get_num_procs();
    return n < 1 ? 1 : n;
#else
    (void)n;
    return 1;
#endif
}
