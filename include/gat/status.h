/* Status codes and the thread-local last-error message.
 * Every fallible libgat call returns a gat_status; on failure it leaves one sentence describing
 * what went wrong (which argument, file:line, expected versus found) for gat_last_error().
 *
 * NULL pointers, one rule for the whole API ("the rule of status.h" in the other headers):
 * - a function returning gat_status returns GAT_EINVAL for a NULL argument it needs, with a
 *   message naming that argument; it never dereferences it;
 * - a function returning nothing or a value (void, a count, a pointer) accepts NULL for every
 *   pointer argument: with a NULL object it does nothing and returns the "nothing" value of its
 *   type (0 for counts, -1 where -1 already means "no such layer", NULL for pointers), and sets
 *   a non-NULL count out-parameter to 0; a NULL out-parameter is simply not written. The
 *   *_destroy and *_free calls follow it too (NULL or a zeroed object is a no-op). */
#ifndef GAT_STATUS_H
#define GAT_STATUS_H

#include <stdint.h>
#include <stddef.h>

#if defined(_WIN32)
#define GAT_API __declspec(dllexport)
#elif defined(__GNUC__)
#define GAT_API __attribute__((visibility("default")))
#else
#define GAT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Node and edge indices; 32 bits like CXSparse's cs_di. */
typedef int32_t gat_idx;

/* Floating-point type of all tensors (double only in the gradient-check build of the tests). */
#ifdef GAT_REAL_DOUBLE
typedef double gat_real;
#else
typedef float gat_real;
#endif

/* Released values never change. */
typedef enum gat_status {
    GAT_OK = 0,           /* success */
    GAT_ENOMEM = 1,       /* an allocation failed or a size overflowed */
    GAT_EINVAL = 2,       /* an argument is invalid (NULL, out of range) */
    GAT_EDIM = 3,         /* shapes do not agree */
    GAT_EIO = 4,          /* a file could not be opened, read or written */
    GAT_EFORMAT = 5,      /* a file's contents are malformed */
    GAT_ENUMERIC = 6,     /* NaN or Inf met (input data or a diverging training) */
    GAT_EDEP = 7,         /* a dependency (CXSparse, igraph, zlib, ...) failed */
    GAT_EINTERNAL = 8,    /* a libgat bug: please report */
    GAT_EINTERRUPTED = 9  /* stopped on request (a callback asked to stop) */
} gat_status;

/* The message of the last failure in the calling thread ("" if none). Valid until the next
 * libgat call in this thread; meaningful only right after a call returned non-GAT_OK. */
GAT_API const char *gat_last_error(void);

/* A constant short name of a status code, e.g. "out of memory". Never NULL. */
GAT_API const char *gat_strerror(gat_status status);

#ifdef __cplusplus
}
#endif
#endif
