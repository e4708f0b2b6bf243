/* Private safetensors plumbing shared by the model files (modelfile.c) and the dataset files
 * (datafile.c): the u64 little-endian header length, the JSON header (parsed with cJSON), its
 * "__metadata__" string map, and tensor entries {"dtype", "shape", "data_offsets"}. Nothing here
 * trusts a length, offset or name from the file. */
#ifndef GAT_I_SAFETENSORS_H
#define GAT_I_SAFETENSORS_H

#include "gat/status.h"
#include "io/fileio.h"

#include <cJSON.h>
#include <stddef.h>

/* Largest header accepted (the reference implementation's limit). */
#define GAT_I_ST_MAX_HEADER 100000000u

/* Whether s[0..n) is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF);
 * *at gets the offset of the first bad byte (n if none). */
int gat_i_utf8_valid(const unsigned char *s, size_t n, size_t *at);

/* A JSON number that is an integer in [0, 2^53], as *v; 0 if it is not one. */
int gat_i_json_size(const cJSON *it, size_t *v);

/* Reads the safetensors file at path into *buf (owned, gat_free; one spare NUL byte after the
 * *len bytes). A regular file is read whole (its size bounds the header length, which
 * gat_i_st_parse_header checks). Any other input (a FIFO, a device, a pipe) has no size to check
 * against, so it is read as far as it declares: the 8-byte length (refused over
 * GAT_I_ST_MAX_HEADER before anything else is read), the header, then the data up to the largest
 * end offset its tensors declare; nothing past that is read. Returns GAT_EIO (cannot open or
 * read, a directory), GAT_EFORMAT (a header length over the limit, an input that ends before
 * what it declares), GAT_ENOMEM. */
gat_status gat_i_st_read_file(const char *path, unsigned char **buf, size_t *len);

/* Parses the header of the file image (file, size) into *root (owned, cJSON_Delete) and sets
 * *data_at to the offset of the data section. Checks the length against the file and the limit,
 * that the header is UTF-8 text holding one JSON object followed only by white space.
 * Returns GAT_EFORMAT naming path and the fault (*root NULL), GAT_OK. */
gat_status gat_i_st_parse_header(const char *path, const unsigned char *file, size_t size,
                                 cJSON **root, size_t *data_at);

/* The "__metadata__" object of root in *md (NULL when absent): GAT_EFORMAT if it appears twice,
 * is not an object or holds a value that is not a string. */
gat_status gat_i_st_metadata(const char *path, const cJSON *root, const cJSON **md);

/* The metadata string under key, or NULL if absent; GAT_EFORMAT "PATH: __metadata__ lacks KEY"
 * when it is required. md may be NULL (nothing present). */
gat_status gat_i_st_meta_get(const char *path, const cJSON *md, const char *key, int required,
                             const char **v);

/* The metadata string under key as a decimal integer in [lo, hi] into *out (left as it is when
 * the key is absent and not required). Returns GAT_EFORMAT naming path, key and the value. */
gat_status gat_i_st_meta_int(const char *path, const cJSON *md, const char *key, long lo, long hi,
                             int required, long *out);

/* One tensor entry e (named name) of a header: its dtype string, its shape (at most max_dims
 * dimensions, *ndim of them in dims) and its data offsets span[0] <= span[1] <= data_len.
 * Returns GAT_EFORMAT naming path, the tensor and the fault. */
gat_status gat_i_st_entry(const char *path, const cJSON *e, const char *name, size_t data_len,
                          const char **dtype, size_t *dims, int max_dims, int *ndim,
                          size_t span[2]);

/* Writes the 8-byte header length and the JSON text of the header, padded with spaces so that
 * the data section starts at a multiple of align bytes (a power of two >= 8) from the start of
 * the file. Returns 0, or -1 with errno set by the failed write. */
int gat_i_st_write_header(FILE *f, const char *json, size_t align);

/* Writes the file at path atomically (gat_i_afile): the header of json with the data 8-byte
 * aligned (gat_i_st_write_header), then what data(f, user) writes (returning 0, or -1 with errno
 * set by the failed write). Returns GAT_EIO naming path and the reason, GAT_EINVAL, GAT_ENOMEM
 * (gat_i_afile_open); on failure any previous file at path is intact. */
gat_status gat_i_st_write_file(const char *path, const char *json,
                               int (*data)(FILE *f, const void *user), const void *user);

/* Element i of a little-endian F32 (dsize 4) or F64 (dsize 8) array at p. */
double gat_i_st_get_le(const unsigned char *p, size_t dsize, size_t i);

/* The length of the header gat_i_st_write_header writes for json (8 + JSON + padding). */
size_t gat_i_st_header_size(size_t json_len, size_t align);

#endif
