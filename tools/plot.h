/* Plots of the libgat tools drawn by gnuplot, run as a child process fed through a pipe. The
 * tools compute nothing here: they hand gnuplot data blocks and a script. Each picture is written
 * like every libgat file: gnuplot draws into a temporary file beside the target, which is renamed
 * over it only once gnuplot has succeeded. */
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

/* A gnuplot child drawing one picture: write the script to f. */
typedef struct plot {
    FILE *f;
    pid_t pid;
    char tmp[4096];  /* the temporary picture */
    const char *path; /* the target, borrowed */
} plot;

/* Starts gnuplot with its standard input on p->f and writes the terminal (pngcairo or svg of
 * width x height pixels) and output lines. Returns 0, or 1 after a message. */
int plot_open(plot *p, const char *prog, const char *path, plot_format fmt, int width,
              int height);

/* Ends the script, waits for gnuplot and, if it succeeded, renames the picture over p->path.
 * Returns 0, or 1 after a message (the temporary file removed, the target untouched). */
int plot_close(plot *p, const char *prog);

/* Writes s to f as a gnuplot single-quoted string (quotes doubled). */
void plot_quote(FILE *f, const char *s);

#endif
