/* Shared command-line parsing of the libgat tools. */
/* realpath (XSI) */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include "gat/gat.h"

#include <cblas.h> /* OpenBLAS's: openblas_set_num_threads */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cli_usage(FILE *out, const cli_option *opts, const char *prog, const char *synopsis)
{
    fprintf(out, "usage: %s %s\n\noptions:\n", prog, synopsis);
    for (const cli_option *o = opts; o->name; o++) {
        char left[64];
        if (!o->help) continue; /* a deprecated spelling */
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(out, "  %-26s %s\n", left, o->help);
    }
    fprintf(out, "  %-26s %s\n  %-26s %s\n", "--help", "show this help and exit", "--version",
            "show the libgat version and exit");
}

static int set_value(const cli_option *o, const char *prog, const char *v)
{
    char *end;
    errno = 0;
    if (o->type == CLI_STRING) {
        *(const char **)o->dest = v;
        return 0;
    }
    if (o->type == CLI_INT) {
        long x = strtol(v, &end, 10);
        if (*v == '\0' || *end != '\0' || errno || x < o->min || x > o->max) {
            fprintf(stderr, "%s: --%s: expected an integer in [%.0f, %.0f], got '%s'\n", prog,
                    o->name, o->min, o->max, v);
            return 2;
        }
        *(int *)o->dest = (int)x;
        return 0;
    }
    double x = strtod(v, &end);
    if (*v == '\0' || *end != '\0' || errno || !isfinite(x) || x < o->min || x > o->max) {
        fprintf(stderr, "%s: --%s: expected a number in [%g, %g], got '%s'\n", prog, o->name,
                o->min, o->max, v);
        return 2;
    }
    *(double *)o->dest = x;
    return 0;
}

/* Edit distance (insertions, deletions, substitutions, transpositions of neighbours) between a
 * (length n) and b, at most 63 characters each; 99 past that. */
static int edit_distance(const char *a, size_t n, const char *b)
{
    const size_t m = strlen(b);
    int d[64][64];
    if (n > 63 || m > 63) return 99;
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

/* The option nearest to the unknown name (len characters), or NULL when none is near: at most
 * two edits, and fewer than half the name's length (so "--x" suggests nothing). */
static const char *nearest_option(const cli_option *opts, const char *name, size_t len)
{
    static const char *const builtin[] = {"help", "version"};
    const char *best = NULL;
    int best_d = 3;
    for (const cli_option *o = opts; o->name; o++) {
        if (!o->help) continue; /* a deprecated spelling: suggest the current one */
        const int d = edit_distance(name, len, o->name);
        if (d < best_d) best_d = d, best = o->name;
    }
    for (size_t k = 0; k < 2; k++) {
        const int d = edit_distance(name, len, builtin[k]);
        if (d < best_d) best_d = d, best = builtin[k];
    }
    return best && 2 * (size_t)best_d < len ? best : NULL;
}

int cli_parse(int argc, char **argv, const cli_option *opts, const char *prog, const char *synopsis,
              int *exit_now)
{
    *exit_now = 0;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            cli_usage(stdout, opts, prog, synopsis);
            *exit_now = 1;
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("%s (libgat) %s\n", prog, gat_version());
            *exit_now = 1;
            return 0;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", prog, a);
            return 2;
        }
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const cli_option *o = opts;
        while (o->name && (strlen(o->name) != len || strncmp(o->name, a + 2, len) != 0)) o++;
        if (!o->name) {
            const char *near = nearest_option(opts, a + 2, len);
            if (near)
                fprintf(stderr, "%s: unknown option '%.*s' (did you mean --%s? try --help)\n", prog,
                        (int)len + 2, a, near);
            else
                fprintf(stderr, "%s: unknown option '%.*s' (try --help)\n", prog, (int)len + 2, a);
            return 2;
        }
        if (!o->help) { /* a deprecated spelling of the option named by o->arg */
            const char *now = o->arg;
            fprintf(stderr, "%s: --%.*s is deprecated, use --%s\n", prog, (int)len, a + 2, now);
            o = opts;
            while (o->name && (!o->help || strcmp(o->name, now) != 0))
                o++;
            if (!o->name) {
                fprintf(stderr, "%s: internal error: --%s is not an option\n", prog, now);
                return 2;
            }
        }
        if (o->type == CLI_FLAG) {
            if (eq) {
                fprintf(stderr, "%s: --%s takes no value\n", prog, o->name);
                return 2;
            }
            *(int *)o->dest = 1;
            continue;
        }
        const char *v = eq ? eq + 1 : (k + 1 < argc ? argv[++k] : NULL);
        if (!v) {
            fprintf(stderr, "%s: --%s needs a value\n", prog, o->name);
            return 2;
        }
        /* "--dataset --quiet" forgot the value: a separate value never starts with "--" (one
         * that must is written --OPT=VALUE); "-" and negative numbers are values */
        if (!eq && !strncmp(v, "--", 2)) {
            fprintf(stderr,
                    "%s: --%s needs a value, got the option '%s' (write --%s=VALUE for a "
                    "value that starts with --)\n",
                    prog, o->name, v, o->name);
            return 2;
        }
        int rc = set_value(o, prog, v);
        if (rc) return rc;
    }
    return 0;
}

int cli_parse_list(const char *prog, const char *opt, const char *list, long lo, long hi,
                   const char *what, int max, int *out, int *n)
{
    const char *p = list;
    *n = 0;
    for (;;) {
        char *end;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (end == p || errno || v < lo || v > hi || (*end != ',' && *end != '\0')) {
            fprintf(stderr, "%s: --%s: expected %s, got '%s'\n", prog, opt, what, list);
            return 2;
        }
        if (*n < max) out[*n] = (int)v;
        ++*n;
        if (*end == '\0') return 0;
        p = end + 1;
    }
}

int cli_check_output(const char *prog, const char *opt, const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (!*path || (slash && !slash[1])) {
        fprintf(stderr, "%s: --%s: cannot write '%s': not a file name\n", prog, opt, path);
        return 1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "%s: --%s: cannot write %s: directory %s: %s\n", prog, opt, path, dir,
                strerror(errno));
        return 1;
    }
    return 0;
}

void cli_afile_abort(cli_afile *a)
{
    if (a->f)
        fclose(a->f);
    else if (a->fd > 0)
        close(a->fd);
    if (a->tmp[0]) unlink(a->tmp);
    memset(a, 0, sizeof *a);
}

static int afile_fail(const char *prog, cli_afile *a, int err)
{
    fprintf(stderr, "%s: cannot write %s: %s\n", prog, a->path[0] ? a->path : "(no name)",
            err ? strerror(err) : "write error");
    cli_afile_abort(a);
    return 1;
}

/* Follows the symbolic links from a->path (at most 40) to the file they name, which need not
 * exist; *proc: the chain enters /proc (/dev/stdout: an open descriptor's file). */
static int afile_follow(cli_afile *a, int *proc)
{
    *proc = 0;
    for (int hop = 0; hop <= 40; hop++) {
        struct stat sb;
        char buf[4096];
        if (lstat(a->path, &sb) != 0 || !S_ISLNK(sb.st_mode)) return 0;
        if (!strncmp(a->path, "/proc/", 6)) {
            *proc = 1;
            return 0;
        }
        const ssize_t n = readlink(a->path, buf, sizeof buf - 1);
        if (n < 0) return errno;
        buf[n] = '\0';
        const char *slash = strrchr(a->path, '/');
        const int dir = buf[0] != '/' && slash ? (int)(slash - a->path) + 1 : 0;
        char next[sizeof a->path];
        if (snprintf(next, sizeof next, "%.*s%s", dir, a->path, buf) >= (int)sizeof next)
            return ENAMETOOLONG;
        memcpy(a->path, next, sizeof next);
    }
    return ELOOP;
}

int cli_afile_open(const char *prog, cli_afile *a, const char *path)
{
    struct stat sb;
    int proc = 0, err;
    memset(a, 0, sizeof *a);
    a->fd = -1;
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path)
        return afile_fail(prog, a, ENAMETOOLONG);
    const int exists = stat(path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode)) return afile_fail(prog, a, EISDIR);
    if (!(exists && !S_ISREG(sb.st_mode)) && (err = afile_follow(a, &proc)) != 0)
        return afile_fail(prog, a, err);
    if ((exists && !S_ISREG(sb.st_mode)) || proc) { /* written straight into */
        snprintf(a->path, sizeof a->path, "%s", path);
        if ((a->fd = open(path, O_WRONLY | O_CLOEXEC | (proc ? O_TRUNC : 0))) < 0)
            return afile_fail(prog, a, errno);
    } else {
        const char *slash = strrchr(a->path, '/');
        const int dir = slash ? (int)(slash - a->path) + 1 : 0;
        snprintf(a->tmp, sizeof a->tmp, "%.*s.%s.tmp-XXXXXX", dir, a->path, a->path + dir);
        if ((a->fd = mkstemp(a->tmp)) < 0) {
            err = errno;
            a->tmp[0] = '\0'; /* nothing was created */
            return afile_fail(prog, a, err);
        }
        /* mkstemp makes 0600: an existing target's mode, else 0666 less the umask */
        const mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(a->fd, stat(a->path, &sb) == 0 ? sb.st_mode & 07777 : 0666 & ~mask);
    }
    if (!(a->f = fdopen(a->fd, "w"))) return afile_fail(prog, a, errno);
    setvbuf(a->f, NULL, _IOFBF, 1 << 20);
    return 0;
}

int cli_afile_commit(const char *prog, cli_afile *a, int err)
{
    if (err) return afile_fail(prog, a, err);
    errno = 0;
    if (ferror(a->f) || fflush(a->f) != 0 || (a->tmp[0] && fsync(a->fd) != 0))
        return afile_fail(prog, a, errno);
    const int rc = fclose(a->f);
    a->f = NULL;
    a->fd = -1;
    if (rc != 0 || (a->tmp[0] && rename(a->tmp, a->path) != 0)) return afile_fail(prog, a, errno);
    a->tmp[0] = '\0';
    cli_afile_abort(a);
    return 0;
}

/* The environment variables cli_model_env reads, and their values (NULL-terminated) */
static const char *const env_isa[] = {"base", "avx2", "avx512", NULL};
static const char *const env_alpha[] = {"store", "recompute", NULL};

/* The index of variable var's value in names, -1 when unset or empty, -2 when none matches */
static int env_index(const char *var, const char *const *names)
{
    const char *v = getenv(var);
    if (!v || !*v) return -1;
    for (int k = 0; names[k]; k++)
        if (!strcmp(v, names[k])) return k;
    return -2;
}

void cli_model_env(gat_model_options *options)
{
    static const gat_kernels kernels[] = {GAT_KERNELS_BASE, GAT_KERNELS_AVX2, GAT_KERNELS_AVX512};
    static const gat_alpha_storage alphas[] = {GAT_ALPHA_STORE, GAT_ALPHA_RECOMPUTE};
    const int isa = env_index("GAT_ISA", env_isa), alpha = env_index("GAT_ALPHA", env_alpha);
    if (isa >= 0) options->kernels = kernels[isa];
    if (alpha >= 0) options->alpha = alphas[alpha];
}

int cli_check_env(const char *prog)
{
    static const char *const vars[] = {"GAT_ISA", "GAT_ALPHA"};
    const char *const *names[] = {env_isa, env_alpha};
    for (int v = 0; v < 2; v++) {
        if (env_index(vars[v], names[v]) != -2) continue;
        char list[64] = "";
        for (int k = 0; names[v][k]; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     k == 0            ? ""
                     : names[v][k + 1] ? ", "
                                       : " or ",
                     names[v][k]);
        fprintf(stderr, "%s: environment variable %s='%s': expected %s (or unset)\n", prog, vars[v],
                getenv(vars[v]), list);
        return 2;
    }
    return 0;
}

void cli_blas_threads(int threads)
{
    if (threads >= 1 && threads < openblas_get_num_threads()) openblas_set_num_threads(threads);
}

/* Not in cblas.h: OpenBLAS's own call that joins its pool's threads (its fork handler uses it);
 * weak, so that a BLAS without it leaves the pool, idle, as it is. */
extern int blas_thread_shutdown_(void) __attribute__((weak));

void cli_serial_blas(void)
{
    openblas_set_num_threads(1);
    if (blas_thread_shutdown_) blas_thread_shutdown_();
}

const char *cli_dataset_path(const char *prog, const char *name)
{
    static char buf[4096];
    if (gat_dataset_locate(name, buf, sizeof buf) == GAT_OK) return buf;
    fprintf(stderr, "%s: %s\n", prog, gat_last_error());
    return NULL;
}

static int exists_with(const char *path, const char *suffix)
{
    char p[4200];
    return snprintf(p, sizeof p, "%s%s", path, suffix) < (int)sizeof p && access(p, F_OK) == 0;
}

/* Whether path (located) is in the Cora layout: P.content[.gz] for a prefix P, or
 * D/NAME.content[.gz] for a directory D named NAME. */
static int cora_layout(const char *path)
{
    char base[4200];
    struct stat sb;
    if (exists_with(path, ".content") || exists_with(path, ".content.gz")) return 1;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    if (snprintf(base, sizeof base, "%.*s/%.*s", (int)n, path, (int)(n - b), path + b) >=
        (int)sizeof base)
        return 0;
    return exists_with(base, ".content") || exists_with(base, ".content.gz");
}

int cli_split_percentages(const char *prog, const char *s, double *f)
{
    const char *p = s;
    for (int k = 0; k < 3; k++) {
        const char *start = p;
        while ((*p >= '0' && *p <= '9') || *p == '.')
            p++;
        if (p == start || *p != (k < 2 ? '/' : '\0')) return 0;
        f[k] = strtod(start, NULL) / 100;
        p++;
    }
    if (f[0] <= 0 || f[0] + f[1] + f[2] > 1 + 1e-9) {
        if (prog)
            fprintf(stderr,
                    "%s: --split %s: expected percentages of each class TR/VA/TE with TR > 0 "
                    "and a sum of at most 100 (e.g. 60/20/20)\n",
                    prog, s);
        return -1;
    }
    return 1;
}

const char *cli_dataset_record(const char *name, char *buf, size_t size)
{
    char found[4096], dir[4096];
    if (!name || gat_dataset_locate(name, found, sizeof found) != GAT_OK) return name;
    if (!strchr(name, '/') && strcmp(found, name) != 0) return name; /* on the search path */
    const char *slash = strrchr(found, '/');
    const char *base = slash ? slash + 1 : found;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - found) : 1, slash ? found : ".");
    char *real = realpath(slash == found ? "/" : dir, NULL);
    if (!real) return name;
    const int n = snprintf(buf, size, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
    free(real);
    return n > 0 && (size_t)n < size ? buf : name;
}

const char *cli_dataset_recorded(const char *rec, const char *model_path, char *buf, size_t size)
{
    char found[4096];
    const char *slash = model_path ? strrchr(model_path, '/') : NULL;
    if (!rec || rec[0] == '/' || !strchr(rec, '/') || !slash) return rec;
    const int n = snprintf(buf, size, "%.*s/%s", (int)(slash - model_path), model_path, rec);
    if (n <= 0 || (size_t)n >= size || gat_dataset_locate(buf, found, sizeof found) != GAT_OK)
        return rec;
    return buf;
}

/* The first option of d that needs --graph, or NULL. */
static const char *graph_only_option(const cli_data *d)
{
    double f[3];
    if (d->graph_format) return "--graph-format";
    if (d->features) return "--features";
    if (d->labels) return "--labels";
    if (d->split && cli_split_percentages(NULL, d->split, f) == 0) return "--split";
    if (d->edge_attributes) return "--edge-attributes";
    if (d->feature_attributes) return "--feature-attributes";
    if (d->label_attribute) return "--label-attribute";
    return NULL;
}

/* Most names --edge-attributes and --feature-attributes take. */
#define CLI_MAX_ATTRIBUTES 64

/* The comma-separated names list of option opt, cut in buf (size bytes), into names (room for
 * CLI_MAX_ATTRIBUTES); *n their count. Returns 0, or 2 after a usage message. */
static int parse_names(const char *prog, const char *opt, const char *list, char *buf,
                       size_t size, const char **names, gat_idx *n)
{
    *n = 0;
    if (strlen(list) >= size) {
        fprintf(stderr, "%s: --%s: the list is longer than %zu characters\n", prog, opt, size - 1);
        return 2;
    }
    strcpy(buf, list);
    for (char *p = buf;;) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        if (!*p || *n == CLI_MAX_ATTRIBUTES) {
            fprintf(stderr,
                    "%s: --%s: expected NAME[,NAME...] (at most %d non-empty names), got '%s'\n",
                    prog, opt, CLI_MAX_ATTRIBUTES, list);
            return 2;
        }
        names[(*n)++] = p;
        if (!c) return 0;
        p = c + 1;
    }
}

int cli_tu_features(const cli_data *d, int fallback)
{
    int v;
    return d->tu_features && gat_tu_features_from_name(d->tu_features, &v) == GAT_OK ? v : fallback;
}

int cli_load_dataset(const char *prog, const cli_data *d, const char *default_name,
                     int need_labels, const gat_dataset_options *opt, gat_dataset *ds,
                     const char **name)
{
    memset(ds, 0, sizeof *ds);
    *name = d->graph ? d->graph : d->dataset ? d->dataset : default_name;
    if (d->graph && d->dataset) {
        fprintf(stderr, "%s: --dataset and --graph exclude each other (try --help)\n", prog);
        return 2;
    }
    if (!d->graph && graph_only_option(d)) {
        fprintf(stderr, "%s: %s needs --graph (try --help)\n", prog, graph_only_option(d));
        return 2;
    }
    if (d->graph && need_labels && !d->labels && !d->label_attribute) {
        fprintf(stderr, "%s: training on --graph needs --labels or --label-attribute (try --help)\n",
                prog);
        return 2;
    }
    if (d->features && d->feature_attributes) {
        fprintf(stderr, "%s: --features and --feature-attributes exclude each other (try --help)\n",
                prog);
        return 2;
    }
    if (d->graph && d->skip_unknown_cites) {
        fprintf(stderr, "%s: --skip-unknown-cites applies to a Cora-layout dataset's .cites file, "
                        "not to --graph (try --help)\n", prog);
        return 2;
    }
    if (d->graph && d->tu_features) {
        fprintf(stderr, "%s: --tu-features applies to a TU set given as --dataset DIR, not to "
                        "--graph (try --help)\n", prog);
        return 2;
    }
    if (d->labels && d->label_attribute) {
        fprintf(stderr, "%s: --labels and --label-attribute exclude each other (try --help)\n",
                prog);
        return 2;
    }
    if (!*name) {
        fprintf(stderr, "%s: no data: give --dataset or --graph (try --help)\n", prog);
        return 2;
    }
    /* the edge feature options, on a copy of opt */
    gat_dataset_options o;
    if (opt)
        o = *opt;
    else
        gat_dataset_options_default(&o);
    if (d->self_loop_fill) {
        if (!strcmp(d->self_loop_fill, "mean"))
            o.self_loop_fill = GAT_SELF_LOOP_FILL_MEAN;
        else if (!strcmp(d->self_loop_fill, "zero"))
            o.self_loop_fill = GAT_SELF_LOOP_FILL_ZERO;
        else {
            fprintf(stderr, "%s: --self-loop-fill: expected mean or zero, got '%s'\n", prog,
                    d->self_loop_fill);
            return 2;
        }
    }
    char names_buf[4096], vnames_buf[4096];
    const char *names[CLI_MAX_ATTRIBUTES], *vnames[CLI_MAX_ATTRIBUTES];
    gat_idx n_vnames = 0;
    if (d->edge_attributes) {
        if (parse_names(prog, "edge-attributes", d->edge_attributes, names_buf, sizeof names_buf,
                        names, &o.n_edge_attributes))
            return 2;
        o.edge_attributes = names;
    }
    if (d->feature_attributes && strcmp(d->feature_attributes, "all") &&
        parse_names(prog, "feature-attributes", d->feature_attributes, vnames_buf,
                    sizeof vnames_buf, vnames, &n_vnames))
        return 2;
    o.skip_unknown_edges = d->skip_unknown_cites;
    o.largest_component = d->largest_component;
    o.min_class_nodes = d->min_class_nodes;
    if (d->tu_features && gat_tu_features_from_name(d->tu_features, &o.tu_features) != GAT_OK) {
        fprintf(stderr, "%s: --tu-features: %s\n", prog, gat_last_error());
        return 2;
    }
    const int pct = d->split ? cli_split_percentages(prog, d->split, o.split_fractions) : 0;
    if (pct < 0) return 2;
    if (pct) o.ignore_split_file = 1; /* the percentages replace NAME.split */
    opt = &o;
    if (d->graph) {
        gat_dataset_files files = {.graph = d->graph,
                                   .features = d->features,
                                   .labels = d->labels,
                                   .split = pct ? NULL : d->split,
                                   .label_attribute = d->label_attribute,
                                   .feature_attributes = vnames,
                                   .n_feature_attributes =
                                       !d->feature_attributes ? 0
                                       : n_vnames > 0         ? n_vnames
                                                              : GAT_ALL_ATTRIBUTES};
        if (d->graph_format && gat_graph_format_from_name(d->graph_format, &files.format) != GAT_OK) {
            fprintf(stderr, "%s: --graph-format: %s\n", prog, gat_last_error());
            return 2;
        }
        if (gat_dataset_read(ds, &files, opt) != GAT_OK) {
            fprintf(stderr, "%s: cannot read the dataset: %s\n", prog, gat_last_error());
            return 1;
        }
        return 0;
    }
    const char *path = cli_dataset_path(prog, *name);
    if (!path) return 1;
    /* options the loader would not read: usage errors before the work */
    const char *stored = !gat_dataset_is_file(path) ? NULL
                         : d->direction             ? d->direction
                         : d->tu_features           ? "--tu-features"
                         : d->self_loop_fill        ? "--self-loop-fill"
                         : d->skip_unknown_cites    ? "--skip-unknown-cites"
                                                    : NULL;
    if (stored) {
        fprintf(stderr,
                "%s: %s does not apply to dataset file %s: it is stored as it was built "
                "(give it when converting the source with gat-convert)\n",
                prog, stored, path);
        return 2;
    }
    if (d->skip_unknown_cites && !cora_layout(path)) {
        fprintf(stderr,
                "%s: --skip-unknown-cites applies to a Cora-layout dataset's .cites file; "
                "%s is in another layout\n",
                prog, path);
        return 2;
    }
    if (gat_dataset_load(ds, path, opt) != GAT_OK) {
        fprintf(stderr, "%s: cannot load dataset: %s\n", prog, gat_last_error());
        return 1;
    }
    if (d->self_loop_fill && ds->n_edge_features == 0) {
        fprintf(stderr,
                "%s: --self-loop-fill sets the edge features of added self-loops; %s has "
                "no edge features\n",
                prog, path);
        gat_dataset_destroy(ds);
        return 2;
    }
    if (d->tu_features && ds->n_graphs == 0) {
        fprintf(stderr, "%s: --tu-features applies to a TU set of graphs; %s is not one (try "
                        "--help)\n", prog, path);
        gat_dataset_destroy(ds);
        return 2;
    }
    return 0;
}

int cli_standardize_features(const char *prog, gat_dataset *ds, gat_csr *keep, gat_idx n,
                             const gat_real *shift, const gat_real *scale)
{
    gat_csr x;
    const gat_csr *from = keep->rowptr ? keep : &ds->x;
    /* a centred column stores a value in every row: refuse what would turn sparse features
     * (one-hot node ids) into gigabytes, before allocating them */
    const double dense = (double)from->rows * (double)n,
                 stored = from->rowptr ? (double)from->rowptr[from->rows] : 0;
    if (dense > (double)(1 << 28) && dense > 8 * stored) {
        fprintf(stderr,
                "%s: --standardize: the %d x %d standardised features would hold %.3g "
                "values (%.1f GiB) against the %.3g stored now: too sparse to centre "
                "(one-hot node ids?)\n",
                prog, from->rows, n, dense,
                dense * (sizeof(gat_real) + sizeof(gat_idx)) / 1073741824.0, stored);
        return 1;
    }
    if (gat_csr_standardize_columns(from, n, shift, scale, &x) != GAT_OK) {
        fprintf(stderr, "%s: standardising the features: %s\n", prog, gat_last_error());
        return 1;
    }
    if (keep->rowptr)
        gat_csr_destroy(&ds->x);
    else
        *keep = ds->x;
    ds->x = x;
    return 0;
}

int cli_standardize_fit(const char *prog, gat_dataset *ds, gat_csr *keep, gat_idx n,
                        const uint8_t *use, gat_real *shift, gat_real *scale)
{
    if (gat_csr_column_moments(keep->rowptr ? keep : &ds->x, n, use, shift, scale) != GAT_OK) {
        fprintf(stderr, "%s: --standardize: %s\n", prog, gat_last_error());
        return 1;
    }
    return cli_standardize_features(prog, ds, keep, n, shift, scale);
}

void cli_restore_features(gat_dataset *ds, gat_csr *keep)
{
    if (!keep->rowptr) return;
    gat_csr_destroy(&ds->x);
    ds->x = *keep;
    memset(keep, 0, sizeof *keep);
}

/* Whether the rows of x are equal (the same columns with the same values). */
static int rows_equal(const gat_csr *x)
{
    const gat_idx w = x->rows > 0 ? x->rowptr[1] - x->rowptr[0] : 0;
    for (gat_idx i = 1; i < x->rows; i++) {
        const gat_idx a = x->rowptr[i];
        if (x->rowptr[i + 1] - a != w ||
            memcmp(x->col + a, x->col, (size_t)w * sizeof *x->col) != 0 ||
            memcmp(x->val + a, x->val, (size_t)w * sizeof *x->val) != 0)
            return 0;
    }
    return 1;
}

void cli_dataset_notes(const char *prog, const cli_data *d, const gat_dataset *ds, int quiet)
{
    if (quiet) return;
    if (ds->skipped_edges > 0)
        fprintf(stderr, "%s: skipped %lld .cites lines naming an id .content lacks\n", prog,
                (long long)ds->skipped_edges);
    if (ds->removed_classes > 0)
        fprintf(stderr, "%s: removed %d class%s of fewer than %d labelled nodes: %d of %d kept\n",
                prog, ds->removed_classes, ds->removed_classes == 1 ? "" : "es", d->min_class_nodes,
                ds->n_classes, ds->n_classes + ds->removed_classes);
    if (ds->removed_nodes > 0)
        fprintf(stderr, "%s: kept %s: %d nodes of %lld (%d removed)\n", prog,
                !ds->removed_classes   ? "the largest connected component"
                : d->largest_component ? "the largest connected component of the classes kept"
                                       : "the nodes of the classes kept",
                ds->n, (long long)ds->n + ds->removed_nodes, ds->removed_nodes);
}

void cli_one_class_note(const char *prog, const gat_dataset *ds, const char *name, int graphs,
                        int quiet)
{
    const gat_idx *label = graphs ? ds->graph_labels : ds->labels;
    const gat_idx n = graphs ? ds->n_graphs : ds->n;
    gat_idx first = -1;
    if (quiet || !label || (!graphs && (ds->n_labels > 0 || !ds->split))) return;
    for (gat_idx i = 0; i < n; i++) {
        if (!graphs && (ds->split[i] != GAT_SPLIT_TRAIN || label[i] < 0)) continue;
        if (first >= 0 && label[i] != first) return;
        first = label[i];
    }
    if (first < 0) return; /* no training node: the library's error says so */
    const char *const *names = graphs ? ds->graph_class_names : ds->class_names;
    char number[24];
    snprintf(number, sizeof number, "%d", (int)first);
    fprintf(stderr, "%s: every %s of %s is of class '%s': the model can only learn to predict it\n",
            prog, graphs ? "graph" : "training node", name, names ? names[first] : number);
}

void cli_constant_features_note(const char *prog, const gat_dataset *ds, const char *name,
                                const char *pe, int quiet)
{
    if (quiet || pe || ds->n < 2 || !rows_equal(&ds->x)) return;
    fprintf(stderr,
            "%s: every node of %s has the same features%s: attention averages equal vectors, "
            "so every layer gives every node the same embedding; --pe rw:K (random-walk "
            "return probabilities) or lap:K gives the nodes their place in the graph\n",
            prog, name,
            ds->n_graphs > 0 && ds->x.cols == 1 ? " (a TU set without node labels or attributes "
                                                  "has the constant 1)"
                                                : "");
}
