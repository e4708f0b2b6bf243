/* Whole-file text readers of src/io: text files (plain or gzip) read whole, then cut into lines
 * and whitespace-separated fields in place. gzip members are inflated by zlib here (not gzread),
 * so that bytes after the last member are an error rather than silently ignored. */
#include "io/text.h"
#include "core/core.h"
#include "gat/dataset.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* Bytes read (or inflated) between two line-length checks. */
#define CHUNK ((size_t)1 << 24)

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

/* Room for at least 2 more bytes in t->buf (*cap), doubling it. Returns GAT_ENOMEM. */
static gat_status grow(gat_i_text *t, size_t *cap)
{
    if (*cap - t->len >= 2) return GAT_OK;
    const size_t c = gat_i_next_cap(*cap, *cap + 1);
    char *p = gat_realloc(t->buf, c, 1);
    if (!p) return GAT_ENOMEM;
    t->buf = p;
    *cap = c;
    return GAT_OK;
}

/* Where the line-length check of the bytes read so far stands. */
typedef struct line_scan {
    size_t max_line;   /* longest line accepted, in bytes (its '\n' not counted) */
    size_t scanned;    /* bytes of t->buf already looked at */
    size_t line_start; /* offset of the current (last) line */
    long line;         /* its 1-based number */
} line_scan;

/* Checks the bytes read since the last call: GAT_EFORMAT naming the file, the line and the limit
 * as soon as a line exceeds it, so that an input of one endless line (/dev/zero, a FIFO, a gzip
 * bomb) is refused after max_line bytes rather than read whole. */
static gat_status scan_lines(gat_i_text *t, line_scan *s)
{
    const char *nl;
    while (s->scanned < t->len &&
           (nl = memchr(t->buf + s->scanned, '\n', t->len - s->scanned)) != NULL) {
        const size_t at = (size_t)(nl - t->buf);
        if (at - s->line_start > s->max_line) break;
        s->line_start = s->scanned = at + 1;
        s->line++;
    }
    if (s->scanned < t->len) s->scanned = t->len;
    if (s->scanned - s->line_start > s->max_line)
        return gat_i_error(GAT_EFORMAT,
                           "%s:%ld: line longer than the limit of %zu bytes (the readers' line "
                           "length limit, gat_dataset_options.max_line)",
                           t->path, s->line, s->max_line);
    return GAT_OK;
}

/* Appends the rest of the plain file f to t->buf. */
static gat_status read_plain(gat_i_text *t, size_t *cap, FILE *f, const char *path, line_scan *s)
{
    for (;;) {
        gat_status st = grow(t, cap);
        if (st != GAT_OK) return st;
        /* in chunks, so that an overlong line stops the read soon after the limit */
        size_t want = *cap - t->len - 1;
        if (want > CHUNK) want = CHUNK;
        const size_t got = fread(t->buf + t->len, 1, want, f);
        t->len += got;
        if ((st = scan_lines(t, s)) != GAT_OK) return st;
        if (got < want) break;
    }
    if (ferror(f)) return gat_i_error(GAT_EIO, "error reading %s: %s", path, strerror(errno));
    return GAT_OK;
}

/* Inflates the gzip members of f (its first two bytes, the magic, already read) into t->buf.
 * Members follow each other (as gzip -d reads them); anything after the last one that is not a
 * member is an error, as is a member cut short. */
static gat_status read_gzip(gat_i_text *t, size_t *cap, FILE *f, const char *path, line_scan *s)
{
    static const unsigned char magic[2] = {0x1f, 0x8b};
    unsigned char *in = gat_malloc(1u << 18, 1);
    z_stream z;
    size_t consumed = 0; /* compressed bytes before z.next_in */
    int zr = Z_STREAM_END, at_member = 1;
    gat_status st = GAT_OK;

    memset(&z, 0, sizeof z);
    if (!in || inflateInit2(&z, 15 + 16) != Z_OK) {
        gat_free(in);
        return GAT_ENOMEM;
    }
    memcpy(in, magic, 2);
    z.next_in = in;
    z.avail_in = 2 + (unsigned)fread(in + 2, 1, (1u << 18) - 2, f);
    for (;;) {
        if (z.avail_in == 0) {
            if (ferror(f)) {
                st = gat_i_error(GAT_EIO, "error reading %s: %s", path, strerror(errno));
                break;
            }
            consumed += (size_t)(z.next_in - in);
            z.next_in = in;
            z.avail_in = (unsigned)fread(in, 1, 1u << 18, f);
            if (z.avail_in == 0 && zr == Z_STREAM_END) break; /* the end, after a member */
            if (z.avail_in == 0) {
                st = gat_i_error(GAT_EIO, "error reading %s: unexpected end of file", path);
                break;
            }
        }
        if (zr == Z_STREAM_END) {
            /* a next member, or trailing bytes (a magic split across reads counts as one) */
            if (!at_member &&
                (z.next_in[0] != magic[0] || (z.avail_in > 1 && z.next_in[1] != magic[1]))) {
                st = gat_i_error(GAT_EFORMAT,
                                 "%s: data after the end of the gzip stream at byte %zu (not "
                                 "another gzip member)",
                                 path, consumed + (size_t)(z.next_in - in));
                break;
            }
            inflateReset(&z);
        }
        at_member = 0;
        if ((st = grow(t, cap)) != GAT_OK) break;
        const size_t room = *cap - t->len - 1;
        z.next_out = (unsigned char *)t->buf + t->len;
        z.avail_out = (unsigned)(room > CHUNK ? CHUNK : room);
        zr = inflate(&z, Z_NO_FLUSH);
        t->len = (size_t)((char *)z.next_out - t->buf);
        if ((st = scan_lines(t, s)) != GAT_OK) break;
        if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
            st = zr == Z_MEM_ERROR ? GAT_ENOMEM
                                   : gat_i_error(GAT_EIO, "error reading %s: %s", path,
                                                 z.msg ? z.msg : "corrupt gzip data");
            break;
        }
    }
    inflateEnd(&z);
    gat_free(in);
    return st;
}

/* Reads the file at path whole into t (uninitialised; zeroed on failure): gzip files (by their
 * magic bytes) are inflated, plain ones read as they are, so .gz and plain text share this path.
 * On GAT_EIO, *errnum holds the errno of a failed open (0 for a read error). */
gat_status gat_i_text_load(gat_i_text *t, const char *path, size_t max_line, int *errnum)
{
    struct stat sb;
    unsigned char head[2];
    size_t cap;
    line_scan scan = {max_line ? max_line : GAT_DATASET_MAX_LINE, 0, 0, 1};
    gat_status st = GAT_OK;

    memset(t, 0, sizeof *t);
    t->path = path;
    *errnum = 0;
    errno = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        *errnum = errno ? errno : ENOMEM;
        return gat_i_error(GAT_EIO, "cannot open %s: %s", path, strerror(*errnum));
    }
    const size_t got = fread(head, 1, 2, f);
    const int gz = got == 2 && head[0] == 0x1f && head[1] == 0x8b;
    /* Start from the on-disk size (exact for plain text) and let inflation double it; a gzip's
     * first guess stays within a line's limit, so that memory follows what is inflated. */
    cap = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0
              ? (size_t)sb.st_size + 2
              : 4096;
    if (gz && cap < scan.max_line / 4) cap *= 4;
    if (!(t->buf = gat_malloc(cap, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if (gz) {
        st = read_gzip(t, &cap, f, path, &scan);
    } else {
        memcpy(t->buf, head, got);
        t->len = got;
        st = got < 2 && ferror(f)
                 ? gat_i_error(GAT_EIO, "error reading %s: %s", path, strerror(errno))
                 : read_plain(t, &cap, f, path, &scan);
    }
    if (st == GAT_OK) t->buf[t->len] = '\0';
cleanup:
    fclose(f);
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

/* Appends field p to t->field. */
static gat_status push_field(gat_i_text *t, char *p)
{
    if (t->n_fields == t->cap_fields) {
        size_t c = gat_i_next_cap(t->cap_fields, t->n_fields + 1);
        char **f = gat_realloc(t->field, c, sizeof *f);
        if (!f) return GAT_ENOMEM;
        t->field = f;
        t->cap_fields = c;
    }
    t->field[t->n_fields++] = p;
    return GAT_OK;
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
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
        gat_status st = push_field(t, p);
        if (st != GAT_OK) return st;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        if (p == end) return GAT_OK;
        *p++ = '\0';
    }
}

/* Cuts line [s, end) (with *end == '\0') into comma-separated fields (RFC 4180 as spreadsheets
 * and pandas write it): blanks around a field dropped, a field in double quotes may hold commas
 * and blanks, "" inside it standing for one quote (unquoted in place: the text only shrinks). A
 * line of blanks has no fields; "a,,b" has an empty second one. */
static gat_status split_csv(gat_i_text *t, char *s, char *end)
{
    char *p = s;
    gat_status st;
    t->n_fields = 0;
    while (p < end && blank(*p))
        p++;
    if (p == end) return GAT_OK;
    for (;;) {
        while (p < end && blank(*p))
            p++;
        char *f = p, *fend;
        if ((st = push_field(t, f)) != GAT_OK) return st;
        if (p < end && *p == '"') {
            char *w = p++;
            while (p < end && (*p != '"' || (p + 1 < end && p[1] == '"'))) {
                p += *p == '"'; /* "" -> " */
                *w++ = *p++;
            }
            p += p < end; /* the closing quote */
            fend = w;
            while (p < end && *p != ',')
                p++;
        } else {
            while (p < end && *p != ',')
                p++;
            fend = p;
            while (fend > f && blank(fend[-1]))
                fend--;
        }
        const int more = p < end; /* a comma: another field follows */
        *fend = '\0';             /* fend <= p: at most the comma is overwritten */
        if (!more) return GAT_OK;
        p++;
    }
}

/* The next non-blank line, cut by split. */
static gat_status next_line(gat_i_text *t, gat_status (*split)(gat_i_text *, char *, char *))
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
        if ((st = split(t, s, end)) != GAT_OK) return st;
    }
    return GAT_OK;
}

/* Advances to the next non-blank line and splits it into t->field; t->n_fields == 0 at the end
 * of the file. A trailing '\r' is dropped. */
gat_status gat_i_text_next(gat_i_text *t)
{
    return next_line(t, split_fields);
}

gat_status gat_i_text_next_csv(gat_i_text *t)
{
    return next_line(t, split_csv);
}

gat_status gat_i_text_row(gat_i_text *t)
{
    return t->csv ? gat_i_text_next_csv(t) : gat_i_text_next(t);
}

/* Whether s ends in suffix (lowercase ASCII), in any case. */
static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    if (n < m) return 0;
    for (size_t k = 0; k < m; k++) {
        const char c = s[n - m + k];
        if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != suffix[k]) return 0;
    }
    return 1;
}

int gat_i_text_csv_name(const char *path)
{
    return ends_with(path, ".csv") || ends_with(path, ".csv.gz");
}

/* 1-based byte column of field k of the current line. */
long gat_i_text_column(const gat_i_text *t, size_t k)
{
    return (long)(t->field[k] - t->start) + 1;
}
