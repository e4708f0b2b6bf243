/* Private file plumbing of src/io: atomic file replacement (O_EXCL temporary beside the target,
 * fsync, rename, directory fsync; devices and FIFOs written straight into, symbolic links
 * followed), whole-file reads, a thread-local C numeric locale. */
#include "io/fileio.h"
#include "core/core.h"

#include <cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Longest part of the target's base name kept in the temporary name (NAME_MAX is 255). */
#define TMP_BASE_MAX 200
/* Most symbolic links followed from an output path (Linux's own limit is 40). */
#define LINK_HOPS_MAX 40

void gat_i_afile_abort(gat_i_afile *a)
{
    if (!a) return;
    if (a->f) fclose(a->f);
    if (a->tmp) unlink(a->tmp);
    gat_free(a->tmp);
    gat_free(a->path);
    memset(a, 0, sizeof *a);
}

static gat_status open_temporary(gat_i_afile *a, const char *path);

/* Opens an existing path that is not replaced (a device, a FIFO, a descriptor's file under
 * /proc) for writing straight into it; regular: truncate it, as a shell's '>' does. */
static gat_status open_direct(gat_i_afile *a, const char *path, int regular)
{
    int fd;
    if (!(a->path = gat_strdup(path))) return GAT_ENOMEM;
    errno = 0;
    fd = open(path, O_WRONLY | O_CLOEXEC | (regular ? O_TRUNC : 0));
    if (fd < 0 || !(a->f = fdopen(fd, "wb"))) {
        const gat_status st =
            gat_i_error(GAT_EIO, "cannot open %s for writing: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        gat_i_afile_abort(a);
        return st;
    }
    return GAT_OK;
}

/* The file the chain of symbolic links from path ends at, which need not exist (path itself if
 * it is no link), owned (gat_free): relative link targets are taken from the link's directory.
 * *proc: the chain enters /proc (/dev/stdout, /dev/fd/N name an open descriptor's file, which
 * is written straight into; *out is then NULL). */
static gat_status follow_links(const char *path, char **out, int *proc)
{
    char *cur = gat_strdup(path), *buf = NULL;
    gat_status st = GAT_OK;

    *out = NULL;
    *proc = 0;
    if (!cur) return GAT_ENOMEM;
    for (int hop = 0;; hop++) {
        struct stat sb;
        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) break;
        if (!strncmp(cur, "/proc/", 6)) {
            *proc = 1;
            break;
        }
        if (hop == LINK_HOPS_MAX) {
            st = gat_i_error(GAT_EIO, "cannot write %s: more than %d symbolic links to follow",
                             path, LINK_HOPS_MAX);
            goto cleanup;
        }
        /* st_size is the target's length, 0 for some file systems' links: grow until it fits */
        ssize_t n = 0;
        for (size_t cap = sb.st_size > 0 ? (size_t)sb.st_size + 1 : 256;; cap *= 2) {
            gat_free(buf);
            if (!(buf = gat_malloc(cap, 1))) {
                st = GAT_ENOMEM;
                goto cleanup;
            }
            errno = 0;
            if ((n = readlink(cur, buf, cap)) < 0) {
                st = gat_i_error(GAT_EIO, "cannot read the symbolic link %s: %s", cur,
                                 strerror(errno));
                goto cleanup;
            }
            if ((size_t)n < cap) break;
        }
        buf[n] = '\0';
        const char *slash = strrchr(cur, '/');
        const size_t dir_len = buf[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        char *next = gat_malloc(dir_len + (size_t)n + 1, 1);
        if (!next) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
        memcpy(next, cur, dir_len);
        memcpy(next + dir_len, buf, (size_t)n + 1);
        gat_free(cur);
        cur = next;
    }
    if (!*proc) {
        *out = cur;
        cur = NULL;
    }

cleanup:
    gat_free(cur);
    gat_free(buf);
    return st;
}

gat_status gat_i_afile_open(gat_i_afile *a, const char *given)
{
    struct stat sb;
    char *resolved = NULL;
    int proc;

    memset(a, 0, sizeof *a);
    if (!*given) return gat_i_error(GAT_EINVAL, "output path is empty");
    if (given[strlen(given) - 1] == '/')
        return gat_i_error(GAT_EINVAL, "output path %s names a directory", given);
    /* what exists and is not a regular file is written into, never replaced */
    if (stat(given, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        if (S_ISDIR(sb.st_mode)) /* as the rename over it would have said */
            return gat_i_error(GAT_EIO, "cannot replace %s: %s", given, strerror(EISDIR));
        return open_direct(a, given, 0);
    }
    gat_status st = follow_links(given, &resolved, &proc);
    if (st != GAT_OK) return st;
    if (proc) return open_direct(a, given, 1);
    st = open_temporary(a, resolved);
    gat_free(resolved);
    return st;
}

/* The temporary file beside path (no link: follow_links resolved them). */
static gat_status open_temporary(gat_i_afile *a, const char *path)
{
    const char *slash = strrchr(path, '/');
    const size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0; /* with the '/' */
    const char *base = path + dir_len;
    size_t base_len = strlen(base);
    struct timespec ts;
    struct stat sb;
    gat_status st = GAT_OK;
    int fd = -1;

    if (base_len > TMP_BASE_MAX) base_len = TMP_BASE_MAX;
    /* dir + "." + base + ".tmp-" + 16 hex digits + NUL */
    if (!(a->path = gat_strdup(path)) || !(a->tmp = gat_malloc(dir_len + base_len + 24, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    /* Names need only be unlikely to collide; O_EXCL settles the rest. No global counter. */
    clock_gettime(CLOCK_REALTIME, &ts);
    const uint64_t key = gat_i_hash64((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
                                      (uint64_t)getpid() ^ (uint64_t)(uintptr_t)a);
    for (uint64_t attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(a->tmp, dir_len + base_len + 24, "%.*s.%.*s.tmp-%016llx", (int)dir_len, path,
                 (int)base_len, base, (unsigned long long)gat_i_hash64(key, attempt));
        errno = 0;
        fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        const int e = errno;
        gat_free(a->tmp); /* nothing was created: abort must not unlink someone else's file */
        a->tmp = NULL;
        st = gat_i_error(GAT_EIO, "cannot create a temporary file for %s in %.*s: %s", path,
                         dir_len ? (int)dir_len : 1, dir_len ? path : ".", strerror(e));
        goto cleanup;
    }
    /* Replacing a file keeps its permissions, as rewriting it in place would. */
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) (void)fchmod(fd, sb.st_mode & 07777);
    if (!(a->f = fdopen(fd, "wb"))) {
        st = gat_i_error(GAT_EIO, "cannot open %s: %s", a->tmp, strerror(errno));
        close(fd);
        goto cleanup;
    }
    return GAT_OK;

cleanup:
    gat_i_afile_abort(a);
    return st;
}

gat_status gat_i_afile_write_error(const gat_i_afile *a)
{
    return gat_i_error(GAT_EIO, "cannot write %s: %s", a->path,
                       errno ? strerror(errno) : "write error");
}

/* fsync of the directory makes the rename durable; some file systems refuse it, and the new
 * file is in place either way, so failures are ignored. */
static void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    int fd;
    if (slash) {
        const size_t n = (size_t)(slash - path) + 1;
        if (!(dir = gat_malloc(n + 1, 1))) return;
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    gat_free(dir);
}

gat_status gat_i_afile_commit(gat_i_afile *a)
{
    gat_status st = GAT_OK;
    FILE *f = a->f;
    int failed;

    a->f = NULL;
    errno = 0;
    /* a device or FIFO written straight into: no fsync (pipes refuse it), no rename */
    failed = ferror(f) || fflush(f) != 0 || (a->tmp && fsync(fileno(f)) != 0);
    if (failed) st = gat_i_afile_write_error(a);
    errno = 0;
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        st = gat_i_afile_write_error(a);
    }
    if (!failed && a->tmp && rename(a->tmp, a->path) != 0) {
        failed = 1;
        st = gat_i_error(GAT_EIO, "cannot replace %s: %s", a->path, strerror(errno));
    }
    if (!failed && a->tmp) {
        sync_dir(a->path);
        gat_free(a->tmp); /* renamed: nothing left to remove */
        a->tmp = NULL;
    }
    gat_i_afile_abort(a);
    return st;
}

const char *gat_i_shortest(char buf[32], double v)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

int gat_i_write_le(FILE *f, const gat_real *x, size_t n)
{
    unsigned char buf[4096];
    const size_t per = sizeof buf / sizeof *x;
    while (n > 0) {
        const size_t k = n < per ? n : per;
        for (size_t i = 0; i < k; i++) {
#ifdef GAT_REAL_DOUBLE
            uint64_t u;
#else
            uint32_t u;
#endif
            memcpy(&u, &x[i], sizeof u);
            for (size_t b = 0; b < sizeof u; b++)
                buf[i * sizeof u + b] = (unsigned char)(u >> (8 * b));
        }
        if (fwrite(buf, sizeof *x, k, f) != k) return -1;
        x += k;
        n -= k;
    }
    return 0;
}

gat_status gat_i_read_file(const char *path, unsigned char **buf, size_t *len)
{
    FILE *f = NULL;
    unsigned char *b = NULL;
    size_t n = 0, cap = 65536;
    struct stat sb;
    gat_status st = GAT_OK;

    *buf = NULL;
    *len = 0;
    errno = 0;
    if (!(f = fopen(path, "rb")))
        return gat_i_error(GAT_EIO, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fileno(f), &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            st = gat_i_error(GAT_EIO, "cannot read %s: it is a directory", path);
            goto cleanup;
        }
        /* room for the whole file, so that the first short read meets the end */
        if (S_ISREG(sb.st_mode) && sb.st_size >= 0 && (uintmax_t)sb.st_size < SIZE_MAX - 2)
            cap = (size_t)sb.st_size + 2;
    }
    if (!(b = gat_malloc(cap, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (;;) {
        if (cap - n < 2) { /* a file that grew, or a pipe */
            unsigned char *nb;
            if (cap > SIZE_MAX / 2 || !(nb = gat_realloc(b, cap * 2, 1))) {
                st = gat_i_error(GAT_ENOMEM, "%s is too large to read into memory", path);
                goto cleanup;
            }
            b = nb;
            cap *= 2;
        }
        const size_t want = cap - 1 - n, got = fread(b + n, 1, want, f);
        n += got;
        if (got < want) {
            if (ferror(f)) {
                st = gat_i_error(GAT_EIO, "error reading %s: %s", path, strerror(errno));
                goto cleanup;
            }
            break;
        }
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    b = NULL;

cleanup:
    gat_free(b);
    fclose(f);
    return st;
}

gat_status gat_i_map_file(const char *path, const unsigned char **buf, size_t *len, int *mapped)
{
    struct stat sb;
    *buf = NULL;
    *len = 0;
    *mapped = 0;
    /* stat first: opening a FIFO to look at it and again to read it would lose what a writer
     * wrote between the two opens */
    const int regular = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
    const int fd = regular ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uintmax_t)sb.st_size <= SIZE_MAX) {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            close(fd);
            *buf = m;
            *len = (size_t)sb.st_size;
            *mapped = 1;
            return GAT_OK;
        }
    }
    if (fd >= 0) close(fd);
    /* not a regular file, empty, or not mappable: read it (which also says why it cannot) */
    unsigned char *b;
    const gat_status st = gat_i_read_file(path, &b, len);
    *buf = b;
    return st;
}

void gat_i_release_file(const unsigned char *buf, size_t len, int mapped)
{
    if (mapped)
        munmap((void *)buf, len);
    else
        gat_free((void *)buf);
}

gat_status gat_i_clocale_enter(gat_i_clocale *l)
{
    l->old = (locale_t)0;
    l->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (l->c == (locale_t)0) return gat_i_error(GAT_ENOMEM, "cannot create the C locale");
    l->old = uselocale(l->c);
    return GAT_OK;
}

void gat_i_clocale_leave(gat_i_clocale *l)
{
    if (l->c != (locale_t)0) {
        uselocale(l->old);
        freelocale(l->c);
    }
    l->c = l->old = (locale_t)0;
}

gat_status gat_i_json_read(const char *path, cJSON **out)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    const char *end = NULL;
    gat_status st = gat_i_read_file(path, &buf, &len);
    if (st != GAT_OK) return st;
    *out = cJSON_ParseWithLengthOpts((const char *)buf, len, &end, 0);
    if (!*out) {
        size_t line = 1, at = end ? (size_t)(end - (const char *)buf) : len, rest = at;
        while (rest < len &&
               (buf[rest] == ' ' || buf[rest] == '\t' || buf[rest] == '\n' || buf[rest] == '\r'))
            rest++;
        if (rest >= len) at = len; /* only blanks after the error: the text stops there */
        for (size_t k = 0; k < at && k < len; k++)
            line += buf[k] == '\n';
        st = at >= len ? gat_i_error(GAT_EFORMAT,
                                     "%s:%zu: malformed JSON: the file ends early "
                                     "(truncated?)",
                                     path, line)
                       : gat_i_error(GAT_EFORMAT, "%s:%zu: malformed JSON near \"%.20s\"", path,
                                     line, (const char *)buf + at);
    }
    gat_free(buf);
    return st;
}
