/* Status names and the thread-local last-error message. */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];

gat_status gat_i_error(gat_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

void gat_i_clear_error(void)
{
    last_error[0] = '\0';
}

const char *gat_last_error(void)
{
    return last_error;
}

const char *gat_strerror(gat_status status)
{
    switch (status) {
    case GAT_OK: return "success";
    case GAT_ENOMEM: return "out of memory";
    case GAT_EINVAL: return "invalid argument";
    case GAT_EDIM: return "dimension mismatch";
    case GAT_EIO: return "input/output error";
    case GAT_EFORMAT: return "malformed file";
    case GAT_ENUMERIC: return "non-finite number";
    case GAT_EDEP: return "dependency failed";
    case GAT_EINTERNAL: return "internal error";
    case GAT_EINTERRUPTED: return "interrupted";
    }
    return "unknown status";
}

gat_status gat_i_check_args(const char *fn, size_t n, const void *const ptr[],
                            const char *const name[])
{
    for (size_t k = 0; k < n; k++)
        if (!ptr[k]) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, name[k]);
    return GAT_OK;
}
