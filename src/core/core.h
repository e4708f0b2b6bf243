/* Private core services: error reporting, checked allocation with fault injection, RNGs. */
#ifndef GAT_I_CORE_H
#define GAT_I_CORE_H

#include "gat/status.h"

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define GAT_I_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GAT_I_PRINTF(a, b)
#endif

/* Records the failure message for gat_last_error() and returns status, so that error paths
 * read `return gat_i_error(GAT_EINVAL, "...", ...);`. */
gat_status gat_i_error(gat_status status, const char *fmt, ...) GAT_I_PRINTF(2, 3);
/* Clears the message (start of a public call that may fail). */
void gat_i_clear_error(void);

/* GAT_EINVAL "fn: NULL NAME" for the first NULL of the n pointers ptr, named by name (e.g.
 * "graph g"), else GAT_OK: the status.h rule that a NULL argument is named. */
gat_status gat_i_check_args(const char *fn, size_t n, const void *const ptr[],
                            const char *const name[]);

/* The value of name (not NULL) in a table of (names[k], values[k]), k < count, for the public
 * *_from_name functions: ASCII letters match case-insensitively (whatever the locale), nothing
 * else is folded. *out: set on success. Returns GAT_EINVAL for an unknown name, with the message
 * "unknown WHAT 'NAME' (expected a, b or c)" listing every name of the table. */
gat_status gat_i_name_lookup(const char *what, const char *name, const char *const names[],
                             const int values[], int count, int *out);

/* Heap memory: count * size is overflow-checked; a zero-size request returns a unique pointer.
 * Failures return NULL and record a GAT_ENOMEM message. */
void *gat_malloc(size_t count, size_t size);
void *gat_calloc(size_t count, size_t size);
void *gat_realloc(void *p, size_t count, size_t size);
void gat_free(void *p);
char *gat_strdup(const char *s);
/* Test hook: the k-th allocation from now (0 = the next) in the calling thread fails; k < 0
 * disables. Returns how many allocations this thread made since its last call (to size
 * fault-injection loops). The state is thread-local: other threads are unaffected. */
long gat_i_alloc_fail_at(long k);

/* splitmix64: a stateful 64-bit generator for initialisation and shuffling. */
typedef struct gat_rng {
    uint64_t s;
} gat_rng;
void gat_rng_seed(gat_rng *r, uint64_t seed);
uint64_t gat_rng_next(gat_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double gat_rng_uniform(gat_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t gat_rng_below(gat_rng *r, uint64_t n);

/* Fisher-Yates shuffle of a (n) with r: the same order for a seed on every machine. */
void gat_i_shuffle(gat_rng *r, gat_idx *a, gat_idx n);

/* A counter-based hash (splitmix64 finaliser): the dropout mask of element k in stream key is a
 * function of (key, k) only, so masks do not depend on the thread count or the loop order. */
static inline uint64_t gat_i_hash64(uint64_t key, uint64_t k)
{
    uint64_t z = key + (k + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* n and an eighth more, the room a buffer rebound to slightly larger inputs is given (a few grow
 * steps, then none), or n alone when the eighth would take it past limit. */
static inline size_t gat_i_grown(size_t n, size_t limit)
{
    return n > limit || n / 8 > limit - n ? n : n + n / 8;
}

/* One allocation carved into buffers: returns base + the next 64-byte aligned offset at or after
 * *off and advances *off past count * size bytes there. With base NULL nothing is written and it
 * returns NULL: a first pass over the same carves measures the block (*off at the end), a second
 * pass over the allocated block hands out the buffers. A size past SIZE_MAX leaves *off at
 * SIZE_MAX (and every later carve with it), which no allocation satisfies (GAT_ENOMEM). */
static inline void *gat_i_carve(char *base, size_t *off, size_t count, size_t size)
{
    const size_t at = *off > SIZE_MAX - 63 ? SIZE_MAX : (*off + 63) & ~(size_t)63;
    if (at == SIZE_MAX || (size && count > (SIZE_MAX - at) / size)) {
        *off = SIZE_MAX;
        return NULL;
    }
    *off = at + count * size;
    return base ? base + at : NULL;
}

/* Number of OpenMP threads to use for a request n (n <= 0: all cores). */
int gat_i_threads(int n);

/* dir/file, allocated (gat_free), or NULL when out of memory. */
char *gat_i_path_join(const char *dir, const char *file);
/* A dataset's file prefix into buf: D/LEAD NAME for a directory D (NAME its last component,
 * e.g. D/ind.cora with lead "ind."), else path as it is. Returns 0 when it does not fit (no
 * allocation, so that format detection cannot fail for memory). */
int gat_i_path_prefix(const char *path, const char *lead, char *buf, size_t size);

#endif
