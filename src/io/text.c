/* Whole-file text readers of src/io: text files (plain or gzip) read whole, then cut into lines
 * and whitespace-separated fields in place; and a string -> index hash table for node ids. */
#include "io/text.h"
#include "core/core.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* ---- Growing arrays ---------------------------------------------------------------------- */

/* A capacity of at least need elements: cap doubled (from 64) until it fits. */
size_t gat_i_next_cap(size_t cap, size_t need)
{
    if (cap < 64) cap = 64;
    while (cap < need)
        cap *= 2;
    return cap;
}

/* ---- Whole-file text, split into lines and fields in place ------------------------------- */

void gat_i_text_free(gat_i_text *t)
{
    gat_free(t->buf);
    gat_free(t->field);
    memset(t, 0, sizeof *t);
}

/* GAT_EIO naming path if gz met a read error or a truncated stream, else GAT_OK. */
static gat_status gz_status(gzFile gz, const char *path)
{
    int zerr;
    const char *msg = gzerror(gz, &zerr);
    if (zerr == Z_OK) return GAT_OK;
    return gat_i_error(GAT_EIO, "error reading %s: %s", path,
                       zerr == Z_ERRNO ? strerror(errno) : msg);
}

/* Reads the file at path whole into t (uninitialised; zeroed on failure). gzread inflates
 * gzip files and passes plain ones through, so .gz and plain text share this path. On GAT_EIO,
 * *errnum holds the errno of a failed open (0 for a read error). */
gat_status gat_i_text_load(gat_i_text *t, const char *path, int *errnum)
{
    struct stat sb;
    gzFile gz;
    size_t cap;
    gat_status st = GAT_OK;

    memset(t, 0, sizeof *t);
    t->path = path;
    *errnum = 0;
    errno = 0;
    gz = gzopen(path, "rb");
    if (!gz) {
        *errnum = errno ? errno : ENOMEM;
        return gat_i_error(GAT_EIO, "cannot open %s: %s", path, strerror(*errnum));
    }
    gzbuffer(gz, 1u << 18);
    /* Start from the on-disk size (exact for plain text) and let inflation double it. */
    cap = stat(path, &sb) == 0 && sb.st_size > 0 ? (size_t)sb.st_size + 2 : 4096;
    if (!gzdirect(gz)) cap *= 4;
    t->buf = gat_malloc(cap, 1);
    if (!t->buf) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (;;) {
        size_t room;
        int got;
        if (cap - t->len < 2) {
            size_t c = gat_i_next_cap(cap, cap + 1);
            char *p = gat_realloc(t->buf, c, 1);
            if (!p) {
                st = GAT_ENOMEM;
                goto cleanup;
            }
            t->buf = p;
            cap = c;
        }
        room = cap - t->len - 1; /* keep a byte for the terminating NUL */
        if (room > (size_t)INT_MAX / 2) room = (size_t)INT_MAX / 2;
        got = gzread(gz, t->buf + t->len, (unsigned)room);
        if (got <= 0) break;
        t->len += (size_t)got;
    }
    /* A truncated gzip stream ends like a complete one; only gzerror tells (Z_BUF_ERROR). */
    if ((st = gz_status(gz, path)) != GAT_OK) goto cleanup;
    t->buf[t->len] = '\0';
cleanup:
    gzclose(gz);
    if (st != GAT_OK) gat_i_text_free(t);
    return st;
}

/* Lines in t (an upper bound on the records it holds: blank lines count too). */
size_t gat_i_text_count_lines(const gat_i_text *t)
{
    size_t lines = 0;
    const char *p = t->buf, *end = t->buf + t->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        lines++;
        p = nl ? nl + 1 : end;
    }
    return lines;
}

/* Cuts line [s, end) (with *end == '\0') into fields separated by runs of spaces and tabs. */
static gat_status split_fields(gat_i_text *t, char *s, char *end)
{
    char *p = s;
    t->n_fields = 0;
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p == end) return GAT_OK;
        if (t->n_fields == t->cap_fields) {
            size_t c = gat_i_next_cap(t->cap_fields, t->n_fields + 1);
            char **f = gat_realloc(t->field, c, sizeof *f);
            if (!f) return GAT_ENOMEM;
            t->field = f;
            t->cap_fields = c;
        }
        t->field[t->n_fields++] = p;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        if (p == end) return GAT_OK;
        *p++ = '\0';
    }
}

/* Advances to the next non-blank line and splits it into t->field; t->n_fields == 0 at the end
 * of the file. A trailing '\r' is dropped. */
gat_status gat_i_text_next(gat_i_text *t)
{
    t->n_fields = 0;
    while (t->n_fields == 0 && t->pos < t->len) {
        char *s = t->buf + t->pos;
        char *nl = memchr(s, '\n', t->len - t->pos);
        char *end = nl ? nl : t->buf + t->len;
        gat_status st;
        t->pos = (size_t)(end - t->buf) + (nl != NULL);
        t->line++;
        t->start = s;
        if (end > s && end[-1] == '\r') end--;
        *end = '\0';
        if ((st = split_fields(t, s, end)) != GAT_OK) return st;
    }
    return GAT_OK;
}

/* 1-based byte column of field k of the current line. */
long gat_i_text_column(const gat_i_text *t, size_t k)
{
    return (long)(t->field[k] - t->start) + 1;
}
