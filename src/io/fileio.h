/* Private file plumbing of src/io: atomic replacement of a file (temporary file in the same
 * directory, fsync, rename), whole-file reads, and a C-locale scope so that numbers are printed
 * and parsed with '.' whatever locale the host program has set. */
#ifndef GAT_I_FILEIO_H
#define GAT_I_FILEIO_H

#include "gat/status.h"

#include <locale.h>
#include <stdio.h>

/* A file being written under a temporary name beside its target. Committing renames it over the
 * target, so that readers (and a crash at any moment) see either the old file or the complete new
 * one, never a partial one.
 * Targets that are not regular files are never replaced: an existing device, FIFO or socket
 * (/dev/null, /dev/stdout, a named pipe, bash's >(cmd)) is written straight into (tmp NULL), as
 * a shell's redirection would; a symbolic link, dangling or not, is followed to the file it
 * names, which is replaced (the link stays a link). */
typedef struct gat_i_afile {
    FILE *f;    /* write the contents here */
    char *tmp;  /* temporary path, owned; NULL when writing straight into the target */
    char *path; /* the file replaced (the link's target for a symbolic link), owned */
} gat_i_afile;

/* Creates the temporary file (mode 0666 less the umask, or the existing target's mode) in the
 * directory of path (of the file a symbolic link path names), or opens an existing non-regular
 * path for writing (which waits for a reader of a FIFO). a: uninitialised; zeroed on failure.
 * Returns GAT_EINVAL (empty path, a path ending in '/'), GAT_EIO (an existing directory, the
 * directory is missing or not writable, a loop of links; the message names the path and the
 * system's reason), GAT_ENOMEM. */
gat_status gat_i_afile_open(gat_i_afile *a, const char *path);

/* GAT_EIO "cannot write PATH: <strerror(errno)>"; call right after a failed write on a->f. */
gat_status gat_i_afile_write_error(const gat_i_afile *a);

/* Flushes, fsyncs and closes the temporary file and renames it over the target, then fsyncs the
 * directory (best effort: the rename has happened by then); a target written straight into is
 * flushed and closed. On any failure the temporary file is
 * removed, the target is left as it was and GAT_EIO names the path and the reason. Zeroes a
 * either way. */
gat_status gat_i_afile_commit(gat_i_afile *a);

/* Closes and removes the temporary file, leaving the target untouched; zeroes a. Accepts a zeroed
 * a, so cleanup paths may call it unconditionally after a commit. */
void gat_i_afile_abort(gat_i_afile *a);

/* Writes the n values of x little-endian (F32, or F64 in double builds), whatever the host's byte
 * order. Returns 0, or -1 with errno set by the failed write. */
int gat_i_write_le(FILE *f, const gat_real *x, size_t n);

/* Reads the file at path whole into *buf (owned, gat_free; one spare NUL byte after the *len
 * bytes). Returns GAT_EIO (cannot open or read, or path is a directory), GAT_ENOMEM. */
gat_status gat_i_read_file(const char *path, unsigned char **buf, size_t *len);
/* The file at path whole, to read: a non-empty regular file mapped read-only (its pages stay
 * the page cache's, which the system can drop, instead of a copy in the process's memory),
 * anything else read as gat_i_read_file does. *mapped says which; release with
 * gat_i_release_file. A file truncated by another process while mapped faults (SIGBUS) on the
 * pages past its new end. Returns as gat_i_read_file. */
gat_status gat_i_map_file(const char *path, const unsigned char **buf, size_t *len, int *mapped);
/* Releases what gat_i_map_file gave; accepts buf NULL. */
void gat_i_release_file(const unsigned char *buf, size_t len, int mapped);

/* Parses the JSON file at path (read whole) into *out (owned: cJSON_Delete). Returns GAT_EIO,
 * GAT_EFORMAT (malformed JSON, naming path:line and the text there, or the early end of a
 * truncated file), GAT_ENOMEM. */
struct cJSON;
gat_status gat_i_json_read(const char *path, struct cJSON **out);

/* The shortest of %.15g, %.16g and %.17g that reads back as v (0.242, not 0.24199999999999999;
 * %.17g always does), in buf, which it returns. Call in the C locale (gat_i_clocale_enter). */
const char *gat_i_shortest(char buf[32], double v);

/* Switches the calling thread to the "C" LC_NUMERIC until gat_i_clocale_leave. */
typedef struct gat_i_clocale {
    locale_t c, old;
} gat_i_clocale;
/* Returns GAT_ENOMEM if the locale object cannot be made. */
gat_status gat_i_clocale_enter(gat_i_clocale *l);
/* Restores the thread's previous locale; accepts a zeroed l. */
void gat_i_clocale_leave(gat_i_clocale *l);

#endif
