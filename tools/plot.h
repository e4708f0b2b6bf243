/* Plots of the libgat tools drawn by gnuplot, run as a child process on a script file. The tools
 * compute nothing here: they write gnuplot data blocks and a script to a temporary file beside
 * the target (".NAME.gp-XXXXXX"), which gnuplot reads once it is complete, so no write of ours
 * ever waits on gnuplot (a gnuplot that dies or stalls cannot block a pipe we write to). Each
 * picture is written like every libgat file: gnuplot draws into a temporary file beside the
 * target (".NAME.tmp-XXXXXX"), renamed over it only once gnuplot has succeeded. */
#ifndef GAT_PLOT_H
#define GAT_PLOT_H

#include <stdio.h>
#include <sys/types.h>

/* Picture formats, from the file name's extension. */
typedef enum plot_format { PLOT_PNG, PLOT_SVG } plot_format;

/* The size of every picture unless --plot-size says otherwise. */
#define PLOT_WIDTH 640
#define PLOT_HEIGHT 400

/* What to install when gnuplot is missing (the message of plot_available). */
#define PLOT_INSTALL_HINT "apt-get install gnuplot-nox"

/* Checks --opt's path: a name ending in .png or .svg (any case) whose directory exists and is
 * writable. Returns 0; 2 after a usage message (another extension); 1 after a message naming the
 * directory and the reason (it cannot be written). */
int plot_check_path(const char *prog, const char *opt, const char *path, plot_format *fmt);

/* Parses --plot-size "WxH" (16..10000 pixels each). Returns 0, or 2 after a usage message. */
int plot_parse_size(const char *prog, const char *s, int *width, int *height);

/* 1 if a gnuplot executable is on $PATH, else 0 (nothing printed). */
int plot_available(void);

/* One picture being drawn: write the script to f. A tool's signal handler may kill pid (when
 * > 0) and unlink tmp and script (when not empty): async-signal-safe, and all it takes to leave
 * nothing behind. */
typedef struct plot {
    FILE *f;              /* the script file */
    volatile pid_t pid;   /* gnuplot while it runs (in plot_close), else -1 */
    char tmp[4096];       /* the temporary picture */
    char script[4096];    /* the temporary script */
    const char *path;     /* the target, borrowed */
} plot;

/* Creates the temporary picture and script beside path and writes the terminal (pngcairo or svg
 * of width x height pixels) and output lines to p->f. Returns 0, or 1 after a message (nothing
 * left behind). */
int plot_open(plot *p, const char *prog, const char *path, plot_format fmt, int width,
              int height);

/* Ends and syncs the script, runs gnuplot on it, waits and, if it succeeded, renames the picture
 * over p->path. The script is removed whatever happens. Returns 0, or 1 after a message (the
 * temporary files removed, the target untouched). */
int plot_close(plot *p, const char *prog);

/* Gives the picture up: closes the script and removes both temporary files, gnuplot never run;
 * accepts a zeroed or closed p. */
void plot_abort(plot *p);

/* Writes s to f as a gnuplot single-quoted string (quotes doubled). */
void plot_quote(FILE *f, const char *s);

#endif
