/* Private text plumbing of the src/io readers: a file (plain or gzip) read whole and cut into
 * lines and fields in place (and, through core/strmap.h, the string -> index table). */
#ifndef GAT_I_TEXT_H
#define GAT_I_TEXT_H

#include "core/strmap.h"
#include "gat/status.h"

/* A capacity of at least need elements: cap doubled (from 64) until it fits. */
size_t gat_i_next_cap(size_t cap, size_t need);

/* A text file held in memory. Fields are separated by runs of spaces and tabs; blank lines are
 * skipped; a trailing '\r' is dropped. */
typedef struct gat_i_text {
    const char *path; /* borrowed, for messages */
    char *buf;        /* (len + 1) the file's bytes, NUL-terminated; fields are cut in place */
    size_t len;
    size_t pos;   /* offset of the first unread line */
    long line;    /* 1-based number of the current line */
    char *start;  /* first byte of the current line, for column numbers */
    char **field; /* (n_fields) fields of the current line, NUL-terminated */
    size_t n_fields, cap_fields;
    int csv; /* gat_i_text_row cuts comma-separated fields (set by the reader; 0 on load) */
} gat_i_text;

/* Reads the file at path (borrowed; must outlive t) whole into t (uninitialised; zeroed on
 * failure). gzip files are inflated, plain ones passed through. max_line: the longest line
 * accepted in bytes (0: GAT_DATASET_MAX_LINE), checked as the file is read, so that memory and
 * time stay within about twice the limit for an input of one endless line. Returns GAT_EIO
 * naming path (on a failed open *errnum holds its errno, else 0), GAT_EFORMAT (a line over the
 * limit: file, line and limit named), GAT_ENOMEM. */
gat_status gat_i_text_load(gat_i_text *t, const char *path, size_t max_line, int *errnum);
/* Frees t's buffers and zeroes it; accepts a zeroed t. */
void gat_i_text_free(gat_i_text *t);
/* Lines in t: an upper bound on the records it holds (blank lines count too). */
size_t gat_i_text_count_lines(const gat_i_text *t);
/* Advances to the next non-blank line and splits it into t->field; t->n_fields == 0 at the end
 * of the file. Returns GAT_ENOMEM. */
gat_status gat_i_text_next(gat_i_text *t);
/* As gat_i_text_next, with comma-separated fields (CSV as spreadsheets and pandas write it):
 * blanks around a field are dropped, a field in double quotes may hold commas and blanks, with ""
 * for one quote inside it (unquoted in place); "a,,b" has an empty second field. */
gat_status gat_i_text_next_csv(gat_i_text *t);
/* gat_i_text_next_csv when t->csv, else gat_i_text_next. */
gat_status gat_i_text_row(gat_i_text *t);
/* Whether path names a CSV table: its name ends in ".csv" or ".csv.gz" (any case). */
int gat_i_text_csv_name(const char *path);
/* 1-based byte column of field k of the current line. */
long gat_i_text_column(const gat_i_text *t, size_t k);

#endif
