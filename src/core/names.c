/* Name <-> enum lookups shared by every *_from_name function: one rule for case (ASCII letters
 * compare case-insensitively, independent of the locale) and one message for unknown names. */
#include "core.h"

#include <stdio.h>
#include <string.h>

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b)) return 0;
    return *a == *b;
}

gat_status gat_i_name_lookup(const char *what, const char *name, const char *const names[],
                             const int values[], int count, int *out)
{
    for (int k = 0; k < count; k++)
        if (same_name(name, names[k])) {
            *out = values[k];
            return GAT_OK;
        }
    char list[256] = "";
    size_t len = 0;
    for (int k = 0; k < count && len < sizeof list; k++) {
        const char *sep = k == 0 ? "" : k == count - 1 ? " or " : ", ";
        const int w = snprintf(list + len, sizeof list - len, "%s%s", sep, names[k]);
        if (w < 0) break;
        len += (size_t)w;
    }
    return gat_i_error(GAT_EINVAL, "unknown %s '%s' (expected %s)", what, name, list);
}
