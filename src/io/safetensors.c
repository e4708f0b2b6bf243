/* Private safetensors plumbing (io/safetensors.h): header length and JSON header checks, the
 * "__metadata__" string map, tensor entries, and writing a padded header. */
/* A failed cJSON parse records its position in a cJSON global, which nothing here reads. */
#include "io/safetensors.h"
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Largest integer a JSON number (a double) holds exactly. */
#define MAX_JSON_INT 9007199254740992.0

int gat_i_utf8_valid(const unsigned char *s, size_t n, size_t *at)
{
    size_t i = 0;
    while (i < n) {
        const unsigned c = s[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0)
            k = 1, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0)
            k = 2, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0)
            k = 3, cp = c & 0x07, min = 0x10000;
        else
            break;
        if (n - i <= k) break;
        size_t j = 1;
        while (j <= k && (s[i + j] & 0xC0) == 0x80)
            cp = cp << 6 | (s[i + j++] & 0x3F);
        if (j <= k || cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) break;
        i += k + 1;
    }
    *at = i;
    return i == n;
}

int gat_i_json_size(const cJSON *it, size_t *v)
{
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble <= MAX_JSON_INT) ||
        floor(it->valuedouble) != it->valuedouble)
        return 0;
    *v = (size_t)it->valuedouble;
    return 1;
}

gat_status gat_i_st_parse_header(const char *path, const unsigned char *file, size_t size,
                                 cJSON **root, size_t *data_at)
{
    uint64_t hlen = 0;
    size_t at;
    const char *end = NULL;

    *root = NULL;
    if (size < 8)
        return gat_i_error(GAT_EFORMAT,
                           "%s: truncated: %zu bytes, too short for the 8-byte header "
                           "length of a safetensors file",
                           path, size);
    for (int b = 7; b >= 0; b--)
        hlen = hlen << 8 | file[b];
    if (hlen > size - 8)
        return gat_i_error(GAT_EFORMAT,
                           "%s: the header length %llu runs past the end of the file "
                           "(%zu bytes): truncated or not a safetensors file",
                           path, (unsigned long long)hlen, size);
    if (hlen > GAT_I_ST_MAX_HEADER)
        return gat_i_error(GAT_EFORMAT, "%s: the header length %llu exceeds the limit of %u bytes",
                           path, (unsigned long long)hlen, GAT_I_ST_MAX_HEADER);
    const char *h = (const char *)file + 8;
    if (hlen < 2 || h[0] != '{')
        return gat_i_error(GAT_EFORMAT,
                           "%s: the header does not start with a JSON object: not a "
                           "safetensors file",
                           path);
    const char *nul = memchr(h, '\0', hlen);
    if (nul || !gat_i_utf8_valid((const unsigned char *)h, hlen, &at)) {
        if (nul) at = (size_t)(nul - h);
        return gat_i_error(GAT_EFORMAT,
                           "%s: the header is not UTF-8 JSON text (bad byte at file "
                           "offset %zu)",
                           path, 8 + at);
    }
    if (!(*root = cJSON_ParseWithLengthOpts(h, hlen, &end, 0)))
        return gat_i_error(GAT_EFORMAT, "%s: JSON syntax error in the header at file offset %zu",
                           path, 8 + (size_t)(end ? end - h : 0));
    for (const char *q = end; q < h + hlen; q++)
        if (!strchr(" \t\r\n", *q)) {
            cJSON_Delete(*root);
            *root = NULL;
            return gat_i_error(GAT_EFORMAT,
                               "%s: unexpected bytes after the header's JSON object "
                               "at file offset %zu",
                               path, 8 + (size_t)(q - h));
        }
    if (!cJSON_IsObject(*root)) { /* '{' was checked; cJSON_IsObject guards against surprises */
        cJSON_Delete(*root);
        *root = NULL;
        return gat_i_error(GAT_EFORMAT, "%s: the header is not a JSON object", path);
    }
    *data_at = 8 + (size_t)hlen;
    return GAT_OK;
}

gat_status gat_i_st_metadata(const char *path, const cJSON *root, const cJSON **md)
{
    const cJSON *it;
    int n_md = 0;
    *md = cJSON_GetObjectItemCaseSensitive(root, "__metadata__");
    cJSON_ArrayForEach(it, root) n_md += !strcmp(it->string, "__metadata__");
    if (n_md > 1) return gat_i_error(GAT_EFORMAT, "%s: the header holds __metadata__ twice", path);
    if (!*md) return GAT_OK;
    if (!cJSON_IsObject(*md))
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ is not a JSON object", path);
    cJSON_ArrayForEach(it, *md)
    {
        if (!cJSON_IsString(it))
            return gat_i_error(GAT_EFORMAT, "%s: __metadata__ value \"%s\" is not a string", path,
                               it->string);
    }
    return GAT_OK;
}

gat_status gat_i_st_meta_get(const char *path, const cJSON *md, const char *key, int required,
                             const char **v)
{
    const cJSON *it = md ? cJSON_GetObjectItemCaseSensitive(md, key) : NULL;
    *v = it ? it->valuestring : NULL; /* gat_i_st_metadata checked every value is a string */
    if (!it && required)
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ lacks \"%s\"", path, key);
    return GAT_OK;
}

gat_status gat_i_st_meta_int(const char *path, const cJSON *md, const char *key, long lo, long hi,
                             int required, long *out)
{
    const char *s;
    char *end;
    gat_status st = gat_i_st_meta_get(path, md, key, required, &s);
    if (st != GAT_OK || !s) return st;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))) || *end ||
        errno || v < lo || v > hi)
        return gat_i_error(GAT_EFORMAT,
                           "%s: __metadata__ \"%s\" is \"%s\", not an integer in "
                           "[%ld, %ld]",
                           path, key, s, lo, hi);
    *out = v;
    return GAT_OK;
}

gat_status gat_i_st_entry(const char *path, const cJSON *e, const char *name, size_t data_len,
                          const char **dtype, size_t *dims, int max_dims, int *ndim, size_t span[2])
{
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(e, "data_offsets"), *it;

    if (!cJSON_IsObject(e) || !cJSON_IsString(dt) || !cJSON_IsArray(shape) || !cJSON_IsArray(offs))
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"%s\" is not an object with a string "
                           "\"dtype\" and arrays \"shape\" and \"data_offsets\"",
                           path, name);
    *dtype = dt->valuestring;
    *ndim = cJSON_GetArraySize(shape);
    if (*ndim > max_dims)
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" has %d dimensions, expected at most %d",
                           path, name, *ndim, max_dims);
    int d = 0;
    cJSON_ArrayForEach(it, shape)
    {
        if (!gat_i_json_size(it, &dims[d++]))
            return gat_i_error(GAT_EFORMAT,
                               "%s: the shape of tensor \"%s\" holds a value that is "
                               "not a non-negative integer",
                               path, name);
    }
    if (cJSON_GetArraySize(offs) != 2 || !gat_i_json_size(cJSON_GetArrayItem(offs, 0), &span[0]) ||
        !gat_i_json_size(cJSON_GetArrayItem(offs, 1), &span[1]) || span[0] > span[1])
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"%s\" has malformed data_offsets: expected "
                           "[begin, end] with 0 <= begin <= end",
                           path, name);
    if (span[1] > data_len)
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"%s\" bytes [%zu, %zu) lie past the end of the "
                           "data (%zu bytes): truncated file?",
                           path, name, span[0], span[1], data_len);
    return GAT_OK;
}

/* Reads exactly n bytes of f into p: GAT_EFORMAT (what names them) if the input ends first. */
static gat_status read_exact(FILE *f, unsigned char *p, size_t n, const char *path,
                             const char *what, size_t at)
{
    const size_t got = fread(p, 1, n, f);
    if (got == n) return GAT_OK;
    if (ferror(f)) return gat_i_error(GAT_EIO, "error reading %s: %s", path, strerror(errno));
    return gat_i_error(GAT_EFORMAT,
                       "%s: the input ends at byte %zu, inside the %s (%zu bytes from byte %zu): "
                       "truncated or not a safetensors file",
                       path, at + got, what, n, at);
}

/* The largest data end offset the tensors of the header h[0..hlen) declare (0 if none or the
 * header does not parse: gat_i_st_parse_header reports that). */
static size_t declared_data(const char *h, size_t hlen)
{
    cJSON *root = cJSON_ParseWithLength(h, hlen), *e;
    size_t end = 0, v;
    cJSON_ArrayForEach(e, root)
    {
        const cJSON *offs = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
        if (cJSON_IsArray(offs) && gat_i_json_size(cJSON_GetArrayItem(offs, 1), &v) && v > end)
            end = v;
    }
    cJSON_Delete(root);
    return end;
}

gat_status gat_i_st_read_file(const char *path, unsigned char **buf, size_t *len)
{
    struct stat sb;
    unsigned char *b = NULL, len8[8];
    uint64_t hlen = 0;
    gat_status st;

    *buf = NULL;
    *len = 0;
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode))
        return gat_i_read_file(path, buf, len); /* it names the fault, or the size is known */
    FILE *f = fopen(path, "rb");
    if (!f) return gat_i_error(GAT_EIO, "cannot open %s: %s", path, strerror(errno));
    if ((st = read_exact(f, len8, 8, path, "header length", 0)) != GAT_OK) goto cleanup;
    for (int k = 7; k >= 0; k--)
        hlen = hlen << 8 | len8[k];
    if (hlen > GAT_I_ST_MAX_HEADER) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: the header length %llu exceeds the limit of %u bytes (not a regular "
                         "file: nothing more was read)",
                         path, (unsigned long long)hlen, GAT_I_ST_MAX_HEADER);
        goto cleanup;
    }
    if (!(b = gat_malloc(8 + (size_t)hlen + 1, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    memcpy(b, len8, 8);
    if ((st = read_exact(f, b + 8, (size_t)hlen, path, "header", 8)) != GAT_OK) goto cleanup;
    const size_t data = declared_data((const char *)b + 8, (size_t)hlen), at = 8 + (size_t)hlen;
    if (data > 0) {
        unsigned char *nb = at + data < at ? NULL : gat_realloc(b, at + data + 1, 1);
        if (!nb) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        b = nb;
        if ((st = read_exact(f, b + at, data, path, "data section", at)) != GAT_OK) goto cleanup;
    }
    b[at + data] = '\0';
    *buf = b;
    *len = at + data;
    b = NULL;

cleanup:
    gat_free(b);
    fclose(f);
    return st;
}

size_t gat_i_st_header_size(size_t json_len, size_t align)
{
    const size_t raw = 8 + json_len;
    return (raw + align - 1) / align * align;
}

int gat_i_st_write_header(FILE *f, const char *json, size_t align)
{
    const size_t json_len = strlen(json), total = gat_i_st_header_size(json_len, align);
    const uint64_t hlen = total - 8;
    unsigned char len8[8];
    for (int b = 0; b < 8; b++)
        len8[b] = (unsigned char)(hlen >> (8 * b));
    if (fwrite(len8, 1, 8, f) != 8 || fwrite(json, 1, json_len, f) != json_len) return -1;
    for (size_t k = 8 + json_len; k < total; k++)
        if (fputc(' ', f) == EOF) return -1;
    return 0;
}

gat_status gat_i_st_write_file(const char *path, const char *json,
                               int (*data)(FILE *f, const void *user), const void *user)
{
    gat_i_afile af;
    gat_status st = gat_i_afile_open(&af, path);
    if (st != GAT_OK) return st;
    errno = 0;
    if (gat_i_st_write_header(af.f, json, 8) != 0 || data(af.f, user) != 0) {
        st = gat_i_afile_write_error(&af);
        gat_i_afile_abort(&af);
        return st;
    }
    return gat_i_afile_commit(&af);
}

double gat_i_st_get_le(const unsigned char *p, size_t dsize, size_t i)
{
    uint64_t u = 0;
    p += i * dsize;
    for (size_t b = dsize; b-- > 0;)
        u = u << 8 | p[b];
    if (dsize == 4) {
        const uint32_t u32 = (uint32_t)u;
        float f;
        memcpy(&f, &u32, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
