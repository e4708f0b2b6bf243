/* Pictures through a gnuplot child process (plot.h): the script written to a temporary file,
 * then gnuplot run on it; a temporary output file renamed over the target once gnuplot exits
 * with status 0. Both temporary files are removed on every path. */
#include "plot.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The directory part of path ("." for a bare name) in buf. */
static void dir_of(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, cap, ".");
    else if (slash == path)
        snprintf(buf, cap, "/");
    else
        snprintf(buf, cap, "%.*s", (int)(slash - path), path);
}

int plot_check_path(const char *prog, const char *opt, const char *path, plot_format *fmt)
{
    const size_t len = strlen(path);
    if (len > 4 && !strcasecmp(path + len - 4, ".png"))
        *fmt = PLOT_PNG;
    else if (len > 4 && !strcasecmp(path + len - 4, ".svg"))
        *fmt = PLOT_SVG;
    else {
        fprintf(stderr, "%s: --%s: expected a file name ending in .png or .svg, got '%s' "
                        "(try --help)\n", prog, opt, path);
        return 2;
    }
    if (len >= 4096 - 32) {
        fprintf(stderr, "%s: --%s: path of %zu bytes is too long\n", prog, opt, len);
        return 2;
    }
    return cli_check_output(prog, opt, path);
}

int plot_parse_size(const char *prog, const char *s, int *width, int *height)
{
    char *end;
    long w = strtol(s, &end, 10), h = 0;
    int ok = end != s && (*end == 'x' || *end == 'X');
    if (ok) {
        const char *p = end + 1;
        h = strtol(p, &end, 10);
        ok = end != p && *end == '\0' && *s >= '0' && *s <= '9' && *p >= '0' && *p <= '9';
    }
    if (!ok || w < 16 || w > 10000 || h < 16 || h > 10000) {
        fprintf(stderr, "%s: --plot-size: expected WIDTHxHEIGHT in pixels, each in [16, 10000], "
                        "got '%s'\n", prog, s);
        return 2;
    }
    *width = (int)w;
    *height = (int)h;
    return 0;
}

int plot_available(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path) return 0;
    /* execvp's search: each entry of $PATH in turn, an empty entry meaning "." */
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        char cand[4096];
        snprintf(cand, sizeof cand, "%.*s/gnuplot", n ? (int)n : 1, n ? p : ".");
        struct stat sb;
        if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0) return 1;
        if (!end) return 0;
        p = end;
    }
}

void plot_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* mkstemp of "DIR/.BASE.KIND-XXXXXX" beside path into buf (cap bytes), mode 0666 less the umask
 * as any file the tools write. Returns the descriptor, or -1 after a message (buf emptied). */
static int temp_beside(const char *prog, const char *path, const char *kind, char *buf,
                       size_t cap)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const int len = snprintf(buf, cap, "%s/.%s.%s-XXXXXX", dir, base, kind);
    errno = ENAMETOOLONG;
    const int fd = len > 0 && (size_t)len < cap ? mkstemp(buf) : -1;
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create a temporary file for %s in %s: %s\n", prog, path, dir,
                strerror(errno));
        buf[0] = '\0';
        return -1;
    }
    const mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    return fd;
}

int plot_open(plot *p, const char *prog, const char *path, plot_format fmt, int width,
              int height)
{
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->path = path;
    /* beside the target, hidden, as libgat's own atomic files: the picture ".NAME.tmp-XXXXXX"
     * and the script ".NAME.gp-XXXXXX" */
    int fd = temp_beside(prog, path, "tmp", p->tmp, sizeof p->tmp);
    if (fd < 0) return 1;
    close(fd);
    if ((fd = temp_beside(prog, path, "gp", p->script, sizeof p->script)) < 0 ||
        !(p->f = fdopen(fd, "w"))) {
        if (fd >= 0) {
            fprintf(stderr, "%s: cannot write the gnuplot script for %s: %s\n", prog, path,
                    strerror(errno));
            close(fd);
        }
        plot_abort(p);
        return 1;
    }
    if (fmt == PLOT_PNG)
        fprintf(p->f, "set terminal pngcairo size %d,%d noenhanced font 'Sans,9'\n", width,
                height);
    else
        fprintf(p->f, "set terminal svg size %d,%d noenhanced font 'Sans,9' background "
                      "'white'\n", width, height);
    fprintf(p->f, "set output ");
    plot_quote(p->f, p->tmp);
    fprintf(p->f, "\n");
    return 0;
}

void plot_abort(plot *p)
{
    if (p->f) fclose(p->f);
    p->f = NULL;
    if (p->script[0]) unlink(p->script);
    if (p->tmp[0]) unlink(p->tmp);
    p->script[0] = p->tmp[0] = '\0';
}

/* Runs gnuplot on the finished script, its standard input /dev/null; the stopping signals are
 * blocked from the fork until p->pid holds the child, so that a tool's handler that kills
 * p->pid never misses it. Returns gnuplot's wait status, or -1 after a message. */
static int run_gnuplot(plot *p, const char *prog)
{
    char exec_failed[256];
    int status = -1;
    /* the child of a threaded process (OpenMP, OpenBLAS) may only make async-signal-safe calls
     * before exec: its message is made here and written with write(2) */
    const int msg_len = snprintf(exec_failed, sizeof exec_failed, "%s: cannot run gnuplot (install "
                                 "it: %s)\n", prog, PLOT_INSTALL_HINT);
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, &old);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        const int in = open("/dev/null", O_RDONLY);
        if (in >= 0 && in != STDIN_FILENO) {
            dup2(in, STDIN_FILENO);
            close(in);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        /* gnuplot's own messages go to our stderr; it prints nothing to stdout in batch mode */
        execlp("gnuplot", "gnuplot", p->script, (char *)NULL);
        if (msg_len > 0)
            (void)!write(STDERR_FILENO, exec_failed,
                         (size_t)msg_len < sizeof exec_failed ? (size_t)msg_len
                                                              : sizeof exec_failed - 1);
        _exit(127);
    }
    p->pid = pid;
    const int fork_errno = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        fprintf(stderr, "%s: cannot start gnuplot: %s\n", prog, strerror(fork_errno));
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "%s: cannot wait for gnuplot: %s\n", prog, strerror(errno));
            status = -1;
            break;
        }
    p->pid = -1;
    return status;
}

int plot_close(plot *p, const char *prog)
{
    int rc = 0;
    errno = 0;
    fprintf(p->f, "unset output\nexit\n");
    /* the whole script on disk before gnuplot reads it: a full disk is our error, not its */
    if (fflush(p->f) != 0 || ferror(p->f) || fsync(fileno(p->f)) != 0) {
        fprintf(stderr, "%s: cannot write the gnuplot script for %s: %s\n", prog, p->path,
                strerror(errno ? errno : EIO));
        rc = 1;
    }
    if (fclose(p->f) != 0 && rc == 0) {
        fprintf(stderr, "%s: cannot write the gnuplot script for %s: %s\n", prog, p->path,
                strerror(errno));
        rc = 1;
    }
    p->f = NULL;
    const int status = rc ? 0 : run_gnuplot(p, prog);
    if (rc == 0 && status == -1) rc = 1;
    if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            ; /* the child said it */
        else if (WIFSIGNALED(status))
            fprintf(stderr, "%s: gnuplot died (signal %d) drawing %s\n", prog, WTERMSIG(status),
                    p->path);
        else
            fprintf(stderr, "%s: gnuplot failed (exit %d) drawing %s\n", prog,
                    WEXITSTATUS(status), p->path);
        rc = 1;
    }
    unlink(p->script);
    p->script[0] = '\0';
    if (rc == 0) {
        /* gnuplot closed the file but did not sync it: sync before the rename publishes it */
        struct stat sb;
        const int fd = open(p->tmp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0 || fstat(fd, &sb) != 0) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, p->path, strerror(errno));
            rc = 1;
        } else if (sb.st_size == 0) {
            fprintf(stderr, "%s: gnuplot exited with status 0 but drew nothing for %s\n", prog,
                    p->path);
            rc = 1;
        }
        if (fd >= 0) close(fd);
    }
    if (rc == 0 && rename(p->tmp, p->path) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, p->path, strerror(errno));
        rc = 1;
    }
    if (rc) unlink(p->tmp);
    p->tmp[0] = '\0';
    return rc;
}
