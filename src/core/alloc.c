/* Overflow-checked allocation wrappers with a fault-injection hook for tests. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/* Test-only state, per thread so that concurrent trainings share no mutable global: the hook
 * affects only the thread that set it. */
static _Thread_local long fail_countdown = -1;
static _Thread_local long alloc_count = 0;

long gat_i_alloc_fail_at(long k)
{
    long made = alloc_count;
    fail_countdown = k;
    alloc_count = 0;
    return made;
}

static int injected_failure(void)
{
    alloc_count++;
    if (fail_countdown < 0) return 0;
    return fail_countdown-- == 0;
}

static int size_ok(size_t count, size_t size, size_t *bytes)
{
    if (size != 0 && count > SIZE_MAX / size) return 0;
    *bytes = count * size;
    if (*bytes == 0) *bytes = 1;
    return 1;
}

void *gat_malloc(size_t count, size_t size)
{
    size_t bytes;
    void *p = NULL;
    if (size_ok(count, size, &bytes) && !injected_failure()) p = malloc(bytes);
    if (!p) gat_i_error(GAT_ENOMEM, "out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *gat_calloc(size_t count, size_t size)
{
    size_t bytes;
    void *p = NULL;
    if (size_ok(count, size, &bytes) && !injected_failure()) p = calloc(bytes, 1);
    if (!p) gat_i_error(GAT_ENOMEM, "out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *gat_realloc(void *old, size_t count, size_t size)
{
    size_t bytes;
    void *p = NULL;
    if (size_ok(count, size, &bytes) && !injected_failure()) p = realloc(old, bytes);
    if (!p) gat_i_error(GAT_ENOMEM, "out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void gat_free(void *p)
{
    free(p);
}

char *gat_strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *d = gat_malloc(len, 1);
    if (d) memcpy(d, s, len);
    return d;
}
