/* .npz archives (zip: end record, central directory, local headers; stored and deflated members
 * inflated incrementally by zlib) and the .npy arrays they hold (format versions 1.0, 2.0, 3.0:
 * magic, header length, a Python dict literal with descr, fortran_order and shape, the data). */
#include "io/npz.h"
#include "core/core.h"
#include "io/fileio.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* Deflate never expands by more than 1032:1 (a 258-byte match per 2 bits at best). */
#define DEFLATE_MAX_RATIO 1032u
/* numpy refuses headers above 10000 bytes by default; allow more, but bound the read. */
#define NPY_MAX_HEADER 65536u

static uint32_t rd16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
    return rd16(p) | rd16(p + 2) << 16;
}

static uint64_t rd64(const unsigned char *p)
{
    return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- The zip directory -------------------------------------------------------------------- */

/* The end-of-central-directory record: the last 22-byte signature whose comment length reaches
 * exactly the end of the file. */
static gat_status find_end(const gat_i_npz *z, size_t *at)
{
    if (z->len < 22)
        return gat_i_error(GAT_EFORMAT,
                           "%s: truncated or not a zip archive: %zu bytes, shorter than the "
                           "22-byte end record",
                           z->path, z->len);
    const size_t lowest = z->len - 22 > 65535 ? z->len - 22 - 65535 : 0;
    for (size_t k = z->len - 22 + 1; k-- > lowest;) {
        const unsigned char *p = z->buf + k;
        if (rd32(p) == 0x06054b50u && k + 22 + rd16(p + 20) == z->len) {
            *at = k;
            return GAT_OK;
        }
    }
    return gat_i_error(GAT_EFORMAT,
                       "%s: no zip end-of-central-directory record: truncated or not an .npz "
                       "(zip) archive",
                       z->path);
}

/* The zip64 extended information of a central-directory entry (extra field 0x0001, in the
 * entry's elen extra bytes at x): the values of those of usize, csize, local (0xFFFFFFFF) and
 * disk (0xFFFF) that the entry marks as held there, in that order (APPNOTE 4.5.3). */
static gat_status zip64_fields(const gat_i_npz *z, const char *name, const unsigned char *x,
                               size_t elen, uint64_t *usize, uint64_t *csize, uint64_t *local,
                               uint64_t *disk)
{
    uint64_t *v[4] = {usize, csize, local, disk};
    const int held[4] = {*usize == 0xFFFFFFFFu, *csize == 0xFFFFFFFFu, *local == 0xFFFFFFFFu,
                         *disk == 0xFFFFu};
    if (!held[0] && !held[1] && !held[2] && !held[3]) return GAT_OK;
    for (size_t at = 0; elen - at >= 4;) {
        const size_t id = rd16(x + at), len = rd16(x + at + 2);
        if (len > elen - at - 4) break;
        if (id == 1) {
            const unsigned char *f = x + at + 4;
            size_t left = len;
            for (int i = 0; i < 4; i++) {
                const size_t w = i < 3 ? 8 : 4;
                if (!held[i]) continue;
                if (left < w)
                    return gat_i_error(GAT_EFORMAT,
                                       "%s: member '%s': its zip64 extra field holds %zu bytes, "
                                       "too few for the sizes and offset its entry marks as held "
                                       "there",
                                       z->path, name, len);
                *v[i] = w == 8 ? rd64(f) : rd32(f);
                f += w;
                left -= w;
            }
            return GAT_OK;
        }
        at += 4 + len;
    }
    return gat_i_error(GAT_EFORMAT,
                       "%s: member '%s' marks its sizes or offset as zip64 (0xFFFFFFFF) but has "
                       "no zip64 extra field",
                       z->path, name);
}

/* Checks central-directory entry k at *pos (inside [cd, cd_end)) and its local header, fills
 * m and advances *pos. */
static gat_status parse_entry(gat_i_npz *z, size_t k, size_t *pos, size_t cd, size_t cd_end,
                              gat_i_npz_member *m)
{
    gat_status st;
    const unsigned char *p = z->buf + *pos;
    if (cd_end - *pos < 46 || rd32(p) != 0x02014b50u)
        return gat_i_error(GAT_EFORMAT,
                           "%s: central directory entry %zu at offset %zu is truncated or has a "
                           "bad signature",
                           z->path, k, *pos);
    const unsigned flags = rd16(p + 8), method = rd16(p + 10);
    uint64_t csize = rd32(p + 20), usize = rd32(p + 24), local = rd32(p + 42), disk = rd16(p + 34);
    const size_t nlen = rd16(p + 28), elen = rd16(p + 30), clen = rd16(p + 32);
    if (cd_end - *pos - 46 < nlen + elen + clen)
        return gat_i_error(GAT_EFORMAT,
                           "%s: central directory entry %zu runs past the directory's end", z->path,
                           k);
    if (!(m->name = gat_malloc(nlen + 1, 1))) return GAT_ENOMEM;
    memcpy(m->name, p + 46, nlen);
    m->name[nlen] = '\0';
    if (memchr(m->name, '\0', nlen))
        return gat_i_error(GAT_EFORMAT, "%s: member %zu has a NUL byte in its name", z->path, k);
    if ((st = zip64_fields(z, m->name, p + 46 + nlen, elen, &usize, &csize, &local, &disk)) !=
        GAT_OK)
        return st;
    if (disk != 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s' is on disk %" PRIu64 ": multi-disk archives are "
                           "not supported",
                           z->path, m->name, disk);
    if (flags & 1u)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' is encrypted", z->path, m->name);
    if (method != 0 && method != 8)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s' uses compression method %u (only 0, stored, and 8, "
                           "deflate, are supported)",
                           z->path, m->name, method);
    /* the local header and data lie before the central directory */
    if (local > cd || cd - local < 30 || rd32(z->buf + local) != 0x04034b50u)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': local header offset %" PRIu64 " is outside the "
                           "archive or has a bad signature (central directory at %zu)",
                           z->path, m->name, local, cd);
    const unsigned char *l = z->buf + local;
    const size_t lnlen = rd16(l + 26), lelen = rd16(l + 28);
    if (cd - local - 30 < lnlen + lelen || lnlen != nlen || memcmp(l + 30, m->name, nlen) != 0 ||
        rd16(l + 8) != method)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': the local header does not match the central "
                           "directory (name or method) or runs past it",
                           z->path, m->name);
    m->data_at = local + 30 + lnlen + lelen;
    if (csize > cd - m->data_at)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': %" PRIu64 " compressed bytes at offset %zu run past "
                           "the start of the central directory (%zu): truncated archive",
                           z->path, m->name, csize, m->data_at, cd);
    if (method == 0 && csize != usize)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s' is stored (not compressed) but declares %" PRIu64
                           " bytes uncompressed and %" PRIu64 " compressed",
                           z->path, m->name, usize, csize);
    if (method == 8 && usize / DEFLATE_MAX_RATIO > csize)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s' declares %" PRIu64 " bytes uncompressed from %" PRIu64
                           " compressed, more than deflate can produce (%u:1)",
                           z->path, m->name, usize, csize, DEFLATE_MAX_RATIO);
    if (usize > SIZE_MAX)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s' declares %" PRIu64 " bytes, more than this machine "
                           "addresses",
                           z->path, m->name, usize);
    m->csize = (size_t)csize;
    m->usize = (size_t)usize;
    m->crc = rd32(p + 16);
    m->method = (int)method;
    *pos += 46 + nlen + elen + clen;
    return GAT_OK;
}

/* The zip64 end record that the locator at loc (just before the end record) points to: the
 * central directory's member count, size and offset, and where it ends (at that record). */
static gat_status zip64_end(const gat_i_npz *z, size_t loc, uint64_t *entries, uint64_t *cd_size,
                            uint64_t *cd, size_t *cd_end)
{
    const unsigned char *l = z->buf + loc;
    const uint64_t at = rd64(l + 8);
    if (rd32(l + 4) != 0 || rd32(l + 16) != 1)
        return gat_i_error(GAT_EFORMAT, "%s: multi-disk zip archives are not supported", z->path);
    if (at > loc || loc - at < 56 || rd32(z->buf + at) != 0x06064b50u)
        return gat_i_error(GAT_EFORMAT,
                           "%s: the zip64 end locator points to offset %" PRIu64 ", where no "
                           "zip64 end record ends before it (at %zu): truncated or corrupt archive",
                           z->path, at, loc);
    const unsigned char *r = z->buf + at;
    if (rd64(r + 4) != loc - at - 12)
        return gat_i_error(GAT_EFORMAT,
                           "%s: the zip64 end record at offset %" PRIu64 " declares %" PRIu64
                           " bytes, not the %zu up to its locator",
                           z->path, at, rd64(r + 4), (size_t)(loc - at - 12));
    if (rd32(r + 16) != 0 || rd32(r + 20) != 0 || rd64(r + 24) != rd64(r + 32))
        return gat_i_error(GAT_EFORMAT, "%s: multi-disk zip archives are not supported", z->path);
    *entries = rd64(r + 32);
    *cd_size = rd64(r + 40);
    *cd = rd64(r + 48);
    *cd_end = (size_t)at;
    return GAT_OK;
}

gat_status gat_i_npz_open(gat_i_npz *z, const char *path)
{
    size_t end = 0;
    gat_status st;

    memset(z, 0, sizeof *z);
    if (!(z->path = gat_strdup(path))) return GAT_ENOMEM;
    if ((st = gat_i_map_file(path, &z->buf, &z->len, &z->mapped)) != GAT_OK) return st;
    if ((st = find_end(z, &end)) != GAT_OK) return st;
    const unsigned char *e = z->buf + end;
    uint64_t entries = rd16(e + 10), cd_size = rd32(e + 12), cd = rd32(e + 16);
    size_t cd_end = end; /* where the central directory ends: the (zip64) end record */
    if (rd16(e + 4) != 0 || rd16(e + 6) != 0 || rd16(e + 8) != entries)
        return gat_i_error(GAT_EFORMAT, "%s: multi-disk zip archives are not supported", z->path);
    if (end >= 20 && rd32(e - 20) == 0x07064b50u &&
        (st = zip64_end(z, end - 20, &entries, &cd_size, &cd, &cd_end)) != GAT_OK)
        return st;
    if (cd > cd_end || cd_size != cd_end - cd)
        return gat_i_error(GAT_EFORMAT,
                           "%s: the central directory (offset %" PRIu64 ", %" PRIu64 " bytes) "
                           "does not end where the end record starts (%zu): truncated or corrupt "
                           "archive",
                           z->path, cd, cd_size, cd_end);
    if (entries > cd_size / 46)
        return gat_i_error(GAT_EFORMAT,
                           "%s: the end record declares %" PRIu64 " members, more than its "
                           "central directory of %" PRIu64 " bytes holds",
                           z->path, entries, cd_size);
    if (!(z->member = gat_calloc((size_t)entries, sizeof *z->member))) return GAT_ENOMEM;
    size_t pos = (size_t)cd;
    for (z->n = 0; z->n < entries; z->n++) {
        if ((st = parse_entry(z, z->n, &pos, (size_t)cd, cd_end, &z->member[z->n])) != GAT_OK) {
            z->n++; /* its name is freed with the rest */
            return st;
        }
        for (size_t j = 0; j < z->n; j++)
            if (strcmp(z->member[j].name, z->member[z->n].name) == 0) {
                z->n++;
                return gat_i_error(GAT_EFORMAT, "%s: member '%s' appears twice", z->path,
                                   z->member[j].name);
            }
    }
    if (pos != cd_end)
        return gat_i_error(
            GAT_EFORMAT, "%s: the central directory holds %zu bytes after its %" PRIu64 " entries",
            z->path, cd_end - pos, entries);
    return GAT_OK;
}

void gat_i_npz_close(gat_i_npz *z)
{
    if (!z) return;
    for (size_t k = 0; z->member && k < z->n; k++)
        gat_free(z->member[k].name);
    gat_free(z->member);
    gat_i_release_file(z->buf, z->len, z->mapped);
    gat_free(z->path);
    memset(z, 0, sizeof *z);
}

long gat_i_npz_find(const gat_i_npz *z, const char *key)
{
    const size_t len = strlen(key);
    for (size_t k = 0; k < z->n; k++) {
        const char *s = z->member[k].name;
        if (strncmp(s, key, len) == 0 && strcmp(s + len, ".npy") == 0) return (long)k;
    }
    return -1;
}

/* ---- Reading one member incrementally ----------------------------------------------------- */

typedef struct member_reader {
    const gat_i_npz *z;
    const gat_i_npz_member *m;
    z_stream s;
    int inflating; /* s initialised */
    size_t in_left; /* compressed bytes not yet given to zlib (it takes at most 1 GiB at a time) */
    size_t done;    /* uncompressed bytes delivered */
    uint32_t crc;
} member_reader;

static gat_status reader_open(member_reader *r, const gat_i_npz *z, size_t k)
{
    memset(r, 0, sizeof *r);
    r->z = z;
    r->m = &z->member[k];
    r->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    if (r->m->method == 0) return GAT_OK;
    if (inflateInit2(&r->s, -MAX_WBITS) != Z_OK)
        return gat_i_error(GAT_ENOMEM, "%s: member '%s': zlib cannot start inflating", z->path,
                           r->m->name);
    r->inflating = 1;
    r->s.next_in = (unsigned char *)z->buf + r->m->data_at; /* zlib reads, never writes, it */
    r->in_left = r->m->csize;
    return GAT_OK;
}

/* Inflates into r->s's output; first gives zlib the next GiB of input if it has used it all. */
static int reader_inflate(member_reader *r)
{
    if (r->s.avail_in == 0 && r->in_left > 0) {
        r->s.avail_in = r->in_left > 1u << 30 ? 1u << 30 : (uInt)r->in_left;
        r->in_left -= r->s.avail_in;
    }
    return inflate(&r->s, Z_NO_FLUSH);
}

static void reader_close(member_reader *r)
{
    if (r->inflating) inflateEnd(&r->s);
    r->inflating = 0;
}

/* The next n uncompressed bytes of the member into out (n <= usize - done, checked by caller). */
static gat_status reader_get(member_reader *r, void *out, size_t n)
{
    const gat_i_npz_member *m = r->m;
    if (m->method == 0) {
        memcpy(out, r->z->buf + m->data_at + r->done, n);
    } else {
        unsigned char *o = out;
        size_t left = n;
        while (left > 0) {
            const uInt step = left > 1u << 30 ? 1u << 30 : (uInt)left;
            r->s.next_out = o;
            r->s.avail_out = step;
            const int zr = reader_inflate(r);
            const size_t got = step - r->s.avail_out;
            o += got;
            left -= got;
            if (zr == Z_STREAM_END && left > 0)
                return gat_i_error(GAT_EFORMAT,
                                   "%s: member '%s': the deflate stream ends after %zu bytes, "
                                   "before the %zu it declares",
                                   r->z->path, m->name, r->done + (n - left), m->usize);
            if (zr == Z_BUF_ERROR ||
                (zr == Z_OK && got == 0 && r->s.avail_in == 0 && r->in_left == 0))
                return gat_i_error(GAT_EFORMAT,
                                   "%s: member '%s': the compressed data ends after %zu of %zu "
                                   "bytes: truncated",
                                   r->z->path, m->name, r->done + (n - left), m->usize);
            if (zr != Z_OK && zr != Z_STREAM_END)
                return gat_i_error(GAT_EFORMAT, "%s: member '%s': corrupt deflate data (%s)",
                                   r->z->path, m->name, r->s.msg ? r->s.msg : "zlib error");
        }
    }
    for (size_t at = 0; at < n;) {
        const uInt step = n - at > 1u << 30 ? 1u << 30 : (uInt)(n - at);
        r->crc = (uint32_t)crc32(r->crc, (const unsigned char *)out + at, step);
        at += step;
    }
    r->done += n;
    return GAT_OK;
}

/* After the last byte: the stream must end exactly there, and the CRC-32 match. */
static gat_status reader_finish(member_reader *r)
{
    const gat_i_npz_member *m = r->m;
    if (m->method == 8) {
        unsigned char extra;
        r->s.next_out = &extra;
        r->s.avail_out = 1;
        int zr;
        do /* the stream's last bits may lie beyond the GiB zlib has */
            zr = reader_inflate(r);
        while (zr == Z_OK && r->s.avail_out == 1 && (r->s.avail_in > 0 || r->in_left > 0));
        if (zr != Z_STREAM_END || r->s.avail_out == 0)
            return gat_i_error(GAT_EFORMAT,
                               "%s: member '%s': the deflate stream does not end at the %zu bytes "
                               "the member declares",
                               r->z->path, m->name, m->usize);
    }
    if (r->crc != m->crc)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': CRC-32 mismatch (file says %08x, data gives %08x)",
                           r->z->path, m->name, (unsigned)m->crc, (unsigned)r->crc);
    return GAT_OK;
}

/* ---- The .npy header ---------------------------------------------------------------------- */

typedef struct hparse {
    const char *s, *end;
    const char *path, *member;
} hparse;

static void skip_ws(hparse *h)
{
    while (h->s < h->end && (*h->s == ' ' || *h->s == '\t'))
        h->s++;
}

static gat_status bad_header(const hparse *h, const char *what)
{
    return gat_i_error(GAT_EFORMAT, "%s: member '%s': malformed .npy header: %s at '%.20s'",
                       h->path, h->member, what, h->s);
}

/* A Python string literal ('x' or "x", no escapes) into out (size bytes). */
static gat_status parse_str(hparse *h, char *out, size_t size)
{
    skip_ws(h);
    if (h->s >= h->end || (*h->s != '\'' && *h->s != '"'))
        return bad_header(h, "expected a string");
    const char q = *h->s++;
    size_t n = 0;
    while (h->s < h->end && *h->s != q) {
        if (*h->s == '\\' || n + 1 >= size) return bad_header(h, "unsupported or too long string");
        out[n++] = *h->s++;
    }
    if (h->s >= h->end) return bad_header(h, "unterminated string");
    h->s++;
    out[n] = '\0';
    return GAT_OK;
}

/* The dtype of descr (e.g. "<f4"); *swap: stored in the other byte order than the host's. */
static gat_status parse_descr(hparse *h, gat_i_npy *a, const char *descr, int *swap)
{
    const uint16_t one = 1;
    const int host_le = *(const unsigned char *)&one == 1;
    const char *d = descr;
    char order = '|';
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=') order = *d++;
    const char kind = *d++;
    long size = -1;
    while (*d >= '0' && *d <= '9' && size < 1000)
        size = (size < 0 ? 0 : size * 10) + (*d++ - '0');
    if (kind == 'O' && size < 0 && *d == '\0') {
        a->type = GAT_I_NPY_OBJECT;
        a->itemsize = 8;
        return GAT_OK;
    }
    if (*d != '\0' || size < 1)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s': unsupported dtype '%s'", h->path,
                           h->member, descr);
    if (kind == 'U' || kind == 'S') { /* fixed-width strings: 'U' counts 4-byte code points */
        a->type = GAT_I_NPY_STR;
        a->utf32 = kind == 'U';
        a->itemsize = (size_t)size * (kind == 'U' ? 4 : 1);
        if (kind == 'U' && order != '<' && order != '>')
            return gat_i_error(GAT_EFORMAT,
                               "%s: member '%s': dtype '%s' does not say its byte order ('<' or "
                               "'>')",
                               h->path, h->member, descr);
        *swap = kind == 'U' && (order == '<') != host_le;
        return GAT_OK;
    }
    a->itemsize = (size_t)size;
    if (kind == 'b' && size == 1)
        a->type = GAT_I_NPY_BOOL;
    else if (kind == 'i' && (size == 1 || size == 2 || size == 4 || size == 8))
        a->type = GAT_I_NPY_INT;
    else if (kind == 'u' && (size == 1 || size == 2 || size == 4 || size == 8))
        a->type = GAT_I_NPY_UINT;
    else if (kind == 'f' && (size == 2 || size == 4 || size == 8))
        a->type = GAT_I_NPY_FLOAT;
    else
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': unsupported dtype '%s' (expected bool, int8..int64, "
                           "uint8..uint64, float16, float32 or float64)",
                           h->path, h->member, descr);
    if (size > 1 && order != '<' && order != '>')
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': dtype '%s' does not say its byte order ('<' or '>')",
                           h->path, h->member, descr);
    *swap = size > 1 && (order == '<') != host_le;
    return GAT_OK;
}

static gat_status parse_shape(hparse *h, gat_i_npy *a)
{
    skip_ws(h);
    if (h->s >= h->end || *h->s != '(') return bad_header(h, "expected a shape tuple");
    h->s++;
    int commas = 0;
    a->ndim = 0;
    a->count = 1;
    for (;;) {
        skip_ws(h);
        if (h->s < h->end && *h->s == ')') break;
        if (h->s >= h->end || *h->s < '0' || *h->s > '9') return bad_header(h, "expected a size");
        size_t v = 0;
        while (h->s < h->end && *h->s >= '0' && *h->s <= '9') {
            if (v > (SIZE_MAX - 9) / 10) return bad_header(h, "size too large");
            v = v * 10 + (size_t)(*h->s++ - '0');
        }
        if (h->s < h->end && *h->s == 'L') h->s++; /* Python 2 longs */
        if (a->ndim == GAT_I_NPY_MAX_DIMS) return bad_header(h, "too many dimensions");
        a->shape[a->ndim++] = v;
        if (v && a->count > SIZE_MAX / v) return bad_header(h, "element count overflows");
        a->count *= v;
        skip_ws(h);
        if (h->s < h->end && *h->s == ',') {
            h->s++;
            commas++;
            continue;
        }
        if (h->s < h->end && *h->s == ')') break;
        return bad_header(h, "expected ',' or ')' in the shape");
    }
    if (a->ndim == 1 && commas == 0) return bad_header(h, "a one-element shape needs a comma");
    h->s++;
    return GAT_OK;
}

/* The dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}, each key once. */
static gat_status parse_dict(hparse *h, gat_i_npy *a, int *fortran, int *swap)
{
    int seen[3] = {0, 0, 0};
    gat_status st;
    skip_ws(h);
    if (h->s >= h->end || *h->s != '{') return bad_header(h, "expected '{'");
    h->s++;
    for (;;) {
        char key[32];
        skip_ws(h);
        if (h->s < h->end && *h->s == '}') break;
        if ((st = parse_str(h, key, sizeof key)) != GAT_OK) return st;
        skip_ws(h);
        if (h->s >= h->end || *h->s != ':') return bad_header(h, "expected ':'");
        h->s++;
        skip_ws(h);
        int which = !strcmp(key, "descr")           ? 0
                    : !strcmp(key, "fortran_order") ? 1
                    : !strcmp(key, "shape")         ? 2
                                                    : -1;
        if (which < 0 || seen[which])
            return gat_i_error(GAT_EFORMAT, "%s: member '%s': .npy header key '%s' is %s", h->path,
                               h->member, key, which < 0 ? "unknown" : "repeated");
        seen[which] = 1;
        if (which == 0) {
            if (h->s < h->end && *h->s == '[')
                return gat_i_error(GAT_EFORMAT,
                                   "%s: member '%s': structured (record) dtypes are not supported",
                                   h->path, h->member);
            if ((st = parse_str(h, a->descr, sizeof a->descr)) != GAT_OK ||
                (st = parse_descr(h, a, a->descr, swap)) != GAT_OK)
                return st;
        } else if (which == 1) {
            if ((size_t)(h->end - h->s) >= 4 && !strncmp(h->s, "True", 4)) {
                *fortran = 1;
                h->s += 4;
            } else if ((size_t)(h->end - h->s) >= 5 && !strncmp(h->s, "False", 5)) {
                *fortran = 0;
                h->s += 5;
            } else {
                return bad_header(h, "fortran_order is not True or False");
            }
        } else if ((st = parse_shape(h, a)) != GAT_OK) {
            return st;
        }
        skip_ws(h);
        if (h->s < h->end && *h->s == ',') {
            h->s++;
            continue;
        }
        if (h->s < h->end && *h->s == '}') break;
        return bad_header(h, "expected ',' or '}'");
    }
    h->s++;
    if (!seen[0] || !seen[1] || !seen[2])
        return gat_i_error(GAT_EFORMAT, "%s: member '%s': the .npy header lacks '%s'", h->path,
                           h->member,
                           !seen[0]   ? "descr"
                           : !seen[1] ? "fortran_order"
                                      : "shape");
    skip_ws(h);
    if (h->end - h->s != 1 || *h->s != '\n')
        return bad_header(h, "expected only spaces and a newline after the dict");
    return GAT_OK;
}

/* Reads the magic, version and header of the member behind r into a; *fortran, *swap as the
 * header says. The member must hold exactly the header and count * itemsize bytes. */
static gat_status read_header(member_reader *r, gat_i_npy *a, int *fortran, int *swap)
{
    const gat_i_npz *z = r->z;
    const gat_i_npz_member *m = r->m;
    unsigned char pre[12];
    char *text = NULL;
    gat_status st;

    memset(a, 0, sizeof *a);
    if (m->usize < 10)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s' holds %zu bytes, too few for a .npy header", z->path,
                           m->name, m->usize);
    if ((st = reader_get(r, pre, 8)) != GAT_OK) return st;
    if (memcmp(pre, "\x93NUMPY", 6) != 0)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s' is not a .npy array (bad magic)", z->path,
                           m->name);
    const unsigned major = pre[6];
    if ((major != 1 && major != 2 && major != 3) || pre[7] != 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': .npy format version %u.%u is not supported (1.0, "
                           "2.0, 3.0)",
                           z->path, m->name, major, pre[7]);
    const size_t lenbytes = major == 1 ? 2 : 4;
    if (m->usize < 8 + lenbytes)
        return gat_i_error(GAT_EFORMAT, "%s: member '%s': truncated .npy header", z->path, m->name);
    if ((st = reader_get(r, pre + 8, lenbytes)) != GAT_OK) return st;
    const size_t hlen = major == 1 ? rd16(pre + 8) : rd32(pre + 8);
    const size_t prefix = 8 + lenbytes;
    if (hlen > m->usize - prefix || hlen > NPY_MAX_HEADER)
        return gat_i_error(GAT_EFORMAT,
                           "%s: member '%s': .npy header length %zu exceeds the member's %zu "
                           "bytes or the limit of %u",
                           z->path, m->name, hlen, m->usize - prefix, NPY_MAX_HEADER);
    if (!(text = gat_malloc(hlen + 1, 1))) return GAT_ENOMEM;
    if ((st = reader_get(r, text, hlen)) != GAT_OK) goto cleanup;
    text[hlen] = '\0';
    hparse h = {text, text + hlen, z->path, m->name};
    if (memchr(text, '\0', hlen)) {
        st = bad_header(&h, "NUL byte");
        goto cleanup;
    }
    if ((st = parse_dict(&h, a, fortran, swap)) != GAT_OK) goto cleanup;
    if (a->type != GAT_I_NPY_OBJECT &&
        (a->count > SIZE_MAX / a->itemsize || a->count * a->itemsize != m->usize - prefix - hlen)) {
        char shape[256];
        st = gat_i_error(GAT_EFORMAT,
                         "%s: member '%s': the header declares shape %s of '%s' (%zu elements "
                         "of %zu bytes), but the member holds %zu bytes of data",
                         z->path, m->name, gat_i_npy_shape_str(a, shape, sizeof shape), a->descr,
                         a->count, a->itemsize, m->usize - prefix - hlen);
        goto cleanup;
    }
cleanup:
    gat_free(text);
    return st;
}

const char *gat_i_npy_shape_str(const gat_i_npy *a, char *buf, size_t size)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, size, "(");
    for (int d = 0; d < a->ndim && at < size; d++)
        at += (size_t)snprintf(buf + at, size - at, "%s%zu", d ? ", " : "", a->shape[d]);
    if (at < size) snprintf(buf + at, size - at, a->ndim == 1 ? ",)" : ")");
    return buf;
}

static void swap_bytes(unsigned char *p, size_t count, size_t size)
{
    for (size_t i = 0; i < count; i++, p += size)
        for (size_t b = 0; b < size / 2; b++) {
            const unsigned char t = p[b];
            p[b] = p[size - 1 - b];
            p[size - 1 - b] = t;
        }
}

/* Fortran (column-major) order to C order: element (i0, .., id) is at sum i_k * stride_k with
 * stride_0 = 1 in the file. */
static gat_status to_c_order(gat_i_npy *a)
{
    if (a->ndim < 2 || a->count == 0) return GAT_OK;
    unsigned char *out = gat_malloc(a->count, a->itemsize);
    size_t idx[GAT_I_NPY_MAX_DIMS] = {0}, stride[GAT_I_NPY_MAX_DIMS];
    if (!out) return GAT_ENOMEM;
    stride[0] = 1;
    for (int d = 1; d < a->ndim; d++)
        stride[d] = stride[d - 1] * a->shape[d - 1];
    for (size_t c = 0; c < a->count; c++) {
        size_t f = 0;
        for (int d = 0; d < a->ndim; d++)
            f += idx[d] * stride[d];
        memcpy(out + c * a->itemsize, (unsigned char *)a->data + f * a->itemsize, a->itemsize);
        for (int d = a->ndim - 1; d >= 0 && ++idx[d] == a->shape[d]; d--)
            idx[d] = 0;
    }
    gat_free(a->data);
    a->data = out;
    return GAT_OK;
}

/* gat_i_npz_read (strings 0: numbers only) and gat_i_npz_read_strings (1). */
static gat_status read_member(const gat_i_npz *z, size_t k, gat_i_npy *a, int strings)
{
    member_reader r;
    int fortran = 0, swap = 0;
    gat_status st = reader_open(&r, z, k);
    if (st != GAT_OK) goto cleanup;
    if ((st = read_header(&r, a, &fortran, &swap)) != GAT_OK) goto cleanup;
    if (a->type == GAT_I_NPY_OBJECT && strings) goto cleanup; /* skipped by the caller */
    if (a->type == GAT_I_NPY_OBJECT) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: member '%s' is an object array (pickled Python objects), which is "
                         "not supported",
                         z->path, z->member[k].name);
        goto cleanup;
    }
    const int integer = a->type == GAT_I_NPY_INT || a->type == GAT_I_NPY_UINT;
    if (strings ? a->type != GAT_I_NPY_STR && !integer : a->type == GAT_I_NPY_STR) {
        st = gat_i_error(GAT_EFORMAT, "%s: member '%s' has dtype '%s', expected %s", z->path,
                         z->member[k].name, a->descr, strings ? "strings or integers" : "numbers");
        goto cleanup;
    }
    if (!(a->data = gat_malloc(a->count, a->itemsize))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = reader_get(&r, a->data, a->count * a->itemsize)) != GAT_OK ||
        (st = reader_finish(&r)) != GAT_OK)
        goto cleanup;
    if (swap && a->type == GAT_I_NPY_STR)
        swap_bytes(a->data, a->count * (a->itemsize / 4), 4); /* each code point */
    else if (swap)
        swap_bytes(a->data, a->count, a->itemsize);
    if (fortran) st = to_c_order(a);
cleanup:
    reader_close(&r);
    if (st != GAT_OK) gat_i_npy_free(a);
    return st;
}

gat_status gat_i_npz_read(const gat_i_npz *z, size_t k, gat_i_npy *a)
{
    return read_member(z, k, a, 0);
}

gat_status gat_i_npz_read_strings(const gat_i_npz *z, size_t k, gat_i_npy *a)
{
    return read_member(z, k, a, 1);
}

gat_status gat_i_npy_string(const gat_i_npy *a, size_t k, char *buf, size_t size, const char *what)
{
    const unsigned char *p = (const unsigned char *)a->data + k * a->itemsize;
    if (a->type == GAT_I_NPY_UINT && a->itemsize == 8) { /* above INT64_MAX too */
        uint64_t v;
        memcpy(&v, p, 8);
        snprintf(buf, size, "%llu", (unsigned long long)v);
        return GAT_OK;
    }
    if (a->type != GAT_I_NPY_STR) {
        snprintf(buf, size, "%lld", (long long)gat_i_npy_int(a, k));
        return GAT_OK;
    }
    const size_t chars = a->utf32 ? a->itemsize / 4 : a->itemsize;
    size_t at = 0, len = chars;
    while (len > 0 && (a->utf32 ? !memcmp(p + 4 * (len - 1), "\0\0\0", 4) : !p[len - 1]))
        len--; /* numpy pads with NULs */
    for (size_t c = 0; c < len; c++) {
        uint32_t u = p[c];
        if (a->utf32) memcpy(&u, p + 4 * c, 4); /* host order: swapped on reading */
        if (u == 0 || u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF))
            return gat_i_error(GAT_EFORMAT,
                               "%s: string %zu: character %zu is U+%04X, not a character of a "
                               "name",
                               what, k, c, (unsigned)u);
        if (at + 5 > size) break; /* not reached: size >= 4 chars + 1 */
        if (u < 0x80 || !a->utf32) {
            buf[at++] = (char)u; /* 'S' strings: bytes as they are */
        } else if (u < 0x800) {
            buf[at++] = (char)(0xC0 | u >> 6);
            buf[at++] = (char)(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
            buf[at++] = (char)(0xE0 | u >> 12);
            buf[at++] = (char)(0x80 | (u >> 6 & 0x3F));
            buf[at++] = (char)(0x80 | (u & 0x3F));
        } else {
            buf[at++] = (char)(0xF0 | u >> 18);
            buf[at++] = (char)(0x80 | (u >> 12 & 0x3F));
            buf[at++] = (char)(0x80 | (u >> 6 & 0x3F));
            buf[at++] = (char)(0x80 | (u & 0x3F));
        }
    }
    buf[at] = '\0';
    return GAT_OK;
}

gat_status gat_i_npy_load(const char *path, gat_i_npy *a)
{
    gat_i_npz z;
    gat_status st = GAT_ENOMEM;
    memset(a, 0, sizeof *a);
    memset(&z, 0, sizeof z);
    const char *slash = strrchr(path, '/');
    if (!(z.path = gat_strdup(path)) || !(z.member = gat_calloc(1, sizeof *z.member))) goto cleanup;
    z.n = 1;
    if (!(z.member[0].name = gat_strdup(slash ? slash + 1 : path))) goto cleanup;
    if ((st = gat_i_map_file(path, &z.buf, &z.len, &z.mapped)) != GAT_OK) goto cleanup;
    /* the file as the one stored member of an archive: the member reader checks the rest */
    uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
    for (size_t at = 0; at < z.len;) {
        const uInt step = z.len - at > 1u << 30 ? 1u << 30 : (uInt)(z.len - at);
        crc = (uint32_t)crc32(crc, z.buf + at, step);
        at += step;
    }
    z.member[0].csize = z.member[0].usize = z.len;
    z.member[0].crc = crc;
    st = gat_i_npz_read(&z, 0, a);
cleanup:
    gat_i_npz_close(&z);
    return st;
}

void gat_i_npy_free(gat_i_npy *a)
{
    if (!a) return;
    gat_free(a->data);
    memset(a, 0, sizeof *a);
}

int64_t gat_i_npy_int(const gat_i_npy *a, size_t k)
{
    const unsigned char *p = (const unsigned char *)a->data + k * a->itemsize;
    if (a->type == GAT_I_NPY_BOOL) return *p != 0;
    if (a->type == GAT_I_NPY_INT) {
        switch (a->itemsize) {
        case 1:
            return *(const int8_t *)p;
        case 2: {
            int16_t v;
            memcpy(&v, p, 2);
            return v;
        }
        case 4: {
            int32_t v;
            memcpy(&v, p, 4);
            return v;
        }
        default: {
            int64_t v;
            memcpy(&v, p, 8);
            return v;
        }
        }
    }
    if (a->type == GAT_I_NPY_UINT) {
        switch (a->itemsize) {
        case 1:
            return *p;
        case 2: {
            uint16_t v;
            memcpy(&v, p, 2);
            return v;
        }
        case 4: {
            uint32_t v;
            memcpy(&v, p, 4);
            return v;
        }
        default: {
            uint64_t v;
            memcpy(&v, p, 8);
            return v > INT64_MAX ? INT64_MAX : (int64_t)v;
        }
        }
    }
    /* floats (callers refuse them where integers are meant): truncated, saturating */
    const double v = gat_i_npy_real(a, k);
    return v != v ? 0 : v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v;
}

/* An IEEE half-precision value (float16, as large feature sets are stored) as a double. */
static double half_value(uint16_t h)
{
    const int e = h >> 10 & 0x1F;
    const double m = h & 0x3FF, sign = h & 0x8000 ? -1 : 1;
    if (e == 0) return sign * ldexp(m, -24); /* zero and subnormals */
    if (e == 31) return m ? NAN : sign * INFINITY;
    return sign * ldexp(1024 + m, e - 25);
}

double gat_i_npy_real(const gat_i_npy *a, size_t k)
{
    const unsigned char *p = (const unsigned char *)a->data + k * a->itemsize;
    if (a->type == GAT_I_NPY_FLOAT) {
        if (a->itemsize == 2) {
            uint16_t h;
            memcpy(&h, p, 2);
            return half_value(h);
        }
        if (a->itemsize == 4) {
            float v;
            memcpy(&v, p, 4);
            return v;
        }
        double v;
        memcpy(&v, p, 8);
        return v;
    }
    if (a->type == GAT_I_NPY_UINT && a->itemsize == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    return (double)gat_i_npy_int(a, k);
}

int gat_i_npz_is(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    const size_t len = strlen(path);
    if (len >= 4 && strcmp(path + len - 4, ".npz") == 0) return 1;
    unsigned char magic[4] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    const size_t got = fread(magic, 1, 4, f);
    fclose(f);
    return got == 4 && memcmp(magic, "PK\3\4", 4) == 0;
}
