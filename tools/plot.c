/* Pictures through a gnuplot child process (plot.h): fork + exec with a pipe on its standard
 * input, a temporary output file renamed over the target once gnuplot exits with status 0. */
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

int plot_open(plot *p, const char *prog, const char *path, plot_format fmt, int width,
              int height)
{
    int fds[2] = {-1, -1};
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->path = path;
    /* beside the target, hidden, as libgat's own atomic files: ".NAME.tmp-XXXXXX" */
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const int len = snprintf(p->tmp, sizeof p->tmp, "%s/.%s.tmp-XXXXXX", dir, base);
    errno = ENAMETOOLONG;
    const int fd = len > 0 && (size_t)len < sizeof p->tmp ? mkstemp(p->tmp) : -1;
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create a temporary file for %s in %s: %s\n", prog, path, dir,
                strerror(errno));
        p->tmp[0] = '\0';
        return 1;
    }
    /* mkstemp makes 0600; a picture gets the usual 0666 less the umask */
    const mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    close(fd);
    if (pipe(fds) != 0) {
        fprintf(stderr, "%s: cannot start gnuplot: %s\n", prog, strerror(errno));
        goto fail;
    }
    /* gnuplot failing mid-script must give an error from plot_close, not kill the tool */
    signal(SIGPIPE, SIG_IGN);
    /* the child of a threaded process (OpenMP, OpenBLAS) may only make async-signal-safe calls
     * before exec: its message is made here and written with write(2) */
    char exec_failed[256];
    const int msg_len = snprintf(exec_failed, sizeof exec_failed, "%s: cannot run gnuplot (install "
                                 "it: %s)\n", prog, PLOT_INSTALL_HINT);
    fflush(NULL);
    p->pid = fork();
    if (p->pid < 0) {
        fprintf(stderr, "%s: cannot start gnuplot: %s\n", prog, strerror(errno));
        goto fail;
    }
    if (p->pid == 0) {
        dup2(fds[0], STDIN_FILENO);
        close(fds[0]);
        close(fds[1]);
        /* gnuplot's own messages go to our stderr; it prints nothing to stdout in batch mode */
        execlp("gnuplot", "gnuplot", (char *)NULL);
        if (msg_len > 0)
            (void)!write(STDERR_FILENO, exec_failed,
                         (size_t)msg_len < sizeof exec_failed ? (size_t)msg_len
                                                              : sizeof exec_failed - 1);
        _exit(127);
    }
    close(fds[0]);
    fds[0] = -1;
    if (!(p->f = fdopen(fds[1], "w"))) {
        fprintf(stderr, "%s: cannot write to gnuplot: %s\n", prog, strerror(errno));
        goto fail;
    }
    fds[1] = -1;
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

fail:
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    if (p->pid > 0) {
        int status;
        waitpid(p->pid, &status, 0);
    }
    unlink(p->tmp);
    p->tmp[0] = '\0';
    return 1;
}

int plot_close(plot *p, const char *prog)
{
    int status = 0, rc = 0;
    if (p->f) {
        fprintf(p->f, "unset output\nexit\n");
        if (fclose(p->f) != 0) rc = 1; /* gnuplot stopped reading: its status says why */
        p->f = NULL;
    }
    while (waitpid(p->pid, &status, 0) < 0)
        if (errno != EINTR) {
            status = -1;
            break;
        }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            ; /* the child said it */
        else if (status != -1 && WIFSIGNALED(status))
            fprintf(stderr, "%s: gnuplot died (signal %d) drawing %s\n", prog, WTERMSIG(status),
                    p->path);
        else
            fprintf(stderr, "%s: gnuplot failed (exit %d) drawing %s\n", prog,
                    status == -1 ? -1 : WEXITSTATUS(status), p->path);
        rc = 1;
    } else if (rc) {
        fprintf(stderr, "%s: cannot write the gnuplot script for %s\n", prog, p->path);
    }
    if (rc == 0) {
        /* gnuplot closed the file but did not sync it: sync before the rename publishes it */
        const int fd = open(p->tmp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, p->path, strerror(errno));
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
