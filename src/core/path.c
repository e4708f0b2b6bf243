/* File paths: a directory joined with a name, and a dataset's file prefix from a directory. */
#include "core/core.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

char *gat_i_path_join(const char *dir, const char *file)
{
    const size_t a = strlen(dir), b = strlen(file);
    char *p = gat_malloc(a + b + 2, 1);
    if (!p) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, file, b + 1);
    return p;
}

int gat_i_path_prefix(const char *path, const char *lead, char *buf, size_t size)
{
    struct stat sb;
    size_t len = strlen(path), name;
    int w;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        w = snprintf(buf, size, "%s", path);
    } else {
        while (len > 1 && path[len - 1] == '/')
            len--;
        for (name = len; name > 0 && path[name - 1] != '/'; name--)
            continue;
        w = snprintf(buf, size, "%.*s/%s%.*s", (int)len, path, lead, (int)(len - name),
                     path + name);
    }
    return w >= 0 && (size_t)w < size;
}
