/* Shared command-line parsing of the libgat tools: a table of long options, each with a typed
 * destination, a range and a help line; usage output; dataset name resolution. */
#ifndef GAT_CLI_H
#define GAT_CLI_H

#include <stdio.h>

typedef enum cli_type { CLI_FLAG, CLI_INT, CLI_REAL, CLI_STRING } cli_type;

typedef struct cli_option {
    const char *name;  /* without the leading "--" */
    cli_type type;
    void *dest;        /* int* (FLAG, INT), double* (REAL), const char** (STRING) */
    double min, max;   /* accepted range of INT and REAL values */
    const char *arg;   /* placeholder in the help, e.g. "N" */
    const char *help;
} cli_option;

/* Parses argv against opts (terminated by an entry with name NULL). Returns 0 on success,
 * 2 after printing a one-line error for a bad or unknown option to stderr. --help and --version
 * are handled here: they print and set *exit_now to 1 (return 0). */
int cli_parse(int argc, char **argv, const cli_option *opts, const char *prog, const char *synopsis,
              int *exit_now);
void cli_usage(FILE *out, const cli_option *opts, const char *prog, const char *synopsis);

/* Resolves --dataset: an existing path is used as it is; otherwise a bundled dataset name is
 * looked up in the source tree's and the installed datasets directories. Returns a static
 * buffer, or NULL with a message on stderr. */
const char *cli_dataset_path(const char *prog, const char *name);

#endif
