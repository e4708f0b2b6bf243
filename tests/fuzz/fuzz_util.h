/* Helpers shared by the fuzz harnesses (each harness is one translation unit): a per-process
 * scratch directory, writing the input's parts to files there, and splitting the input into parts
 * at a separator byte. The harnesses feed libgat through its public API only, from files, exactly
 * as the tools do; built by tests/fuzz/build.sh (libFuzzer) and by meson into the replay test. */
#ifndef GAT_FUZZ_UTIL_H
#define GAT_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Separates the files packed into one input ("content \x01 cites \x01 split"). */
#define FUZZ_SEP 0x01

/* The scratch directory (created on first use, in /dev/shm when it exists: a RAM file system
 * keeps the fuzzer fast), removed at exit. GAT_FUZZ_DIR names it instead (a directory that does
 * not exist yet): .ci/run gives a fixed name, so that the paths the library sees, and so the
 * values libFuzzer's comparison tracing feeds its mutations, are the same in every run. */
static inline const char *fuzz_dir(void);

static char fuzz_dir_buf[256];

static inline void fuzz_cleanup(void)
{
    char cmd[300];
    if (!fuzz_dir_buf[0]) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_buf);
    if (system(cmd) != 0) fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir_buf);
}

static inline const char *fuzz_dir(void)
{
    if (fuzz_dir_buf[0]) return fuzz_dir_buf;
    const char *fixed = getenv("GAT_FUZZ_DIR");
    if (fixed && *fixed) {
        if (strlen(fixed) >= sizeof fuzz_dir_buf - 64 || strchr(fixed, '\'') ||
            mkdir(fixed, 0700) != 0) {
            fprintf(stderr,
                    "fuzz: GAT_FUZZ_DIR=%s: cannot create it (or its name is too long "
                    "or holds a quote)\n",
                    fixed);
            abort();
        }
        snprintf(fuzz_dir_buf, sizeof fuzz_dir_buf, "%s", fixed);
        atexit(fuzz_cleanup);
        return fuzz_dir_buf;
    }
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(fuzz_dir_buf, sizeof fuzz_dir_buf, "%s/gat-fuzz-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(fuzz_dir_buf)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(fuzz_cleanup);
    return fuzz_dir_buf;
}

/* dir/name (static buffer per slot 0..7). */
static inline const char *fuzz_path(int slot, const char *name)
{
    static char buf[8][320];
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", fuzz_dir(), name);
    return buf[slot];
}

/* Writes n bytes to path, replacing it; aborts on failure (the harness, not libgat, is broken). */
static inline void fuzz_write(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* Splits data at FUZZ_SEP into at most max parts: part[k], len[k]; returns the number of parts
 * (at least 1; the last part keeps any further separators). */
static inline int fuzz_split(const uint8_t *data, size_t size, int max, const uint8_t **part,
                             size_t *len)
{
    int n = 0;
    while (n < max - 1) {
        const uint8_t *sep = memchr(data, FUZZ_SEP, size);
        if (!sep) break;
        part[n] = data;
        len[n++] = (size_t)(sep - data);
        size -= (size_t)(sep - data) + 1;
        data = sep + 1;
    }
    part[n] = data;
    len[n++] = size;
    return n;
}

/* A guarantee of the library does not hold: report it as a crash so the fuzzer keeps the input. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: guarantee violated: %s\n", __FILE__, __LINE__, #cond);         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* ---- Checks of what libgat promises, shared by the dataset harnesses ----------------------- */
#include "gat/gat.h"

#include <math.h>

/* A failed call: a documented status, a message, and a zeroed output. */
static inline void fuzz_check_failure(gat_status st, const void *out, size_t out_size)
{
    const unsigned char *p = out;
    FUZZ_CHECK(st > GAT_OK && st <= GAT_EINTERRUPTED);
    FUZZ_CHECK(gat_last_error()[0] != '\0');
    for (size_t k = 0; k < out_size; k++)
        FUZZ_CHECK(p[k] == 0);
}

/* A loaded dataset is well-formed: graph and features CSRs, finite features, labels and split. */
static inline void fuzz_check_dataset(const gat_dataset *ds)
{
    const gat_graph *g = &ds->graph;
    const gat_csr *x = &ds->x;
    gat_idx counts[4] = {0};
    FUZZ_CHECK(ds->n >= 0 && g->n == ds->n && x->rows == ds->n && x->cols == ds->n_features);
    FUZZ_CHECK(ds->n_features >= 0 && ds->n_classes >= 0);
    FUZZ_CHECK(g->rowptr && g->rowptr[0] == 0 && g->rowptr[g->n] == g->nnz);
    for (gat_idx i = 0; i < g->n; i++) {
        FUZZ_CHECK(g->rowptr[i] <= g->rowptr[i + 1]);
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
            FUZZ_CHECK(g->col[e] >= 0 && g->col[e] < g->n);
            FUZZ_CHECK(e == g->rowptr[i] || g->col[e - 1] < g->col[e]);
        }
        FUZZ_CHECK(g->t_rowptr[i] <= g->t_rowptr[i + 1]);
    }
    for (gat_idx e = 0; e < g->nnz; e++)
        FUZZ_CHECK(g->t_edge[e] >= 0 && g->t_edge[e] < g->nnz && g->t_col[e] >= 0 &&
                   g->t_col[e] < g->n);
    FUZZ_CHECK(x->rowptr && x->rowptr[0] == 0);
    for (gat_idx i = 0; i < x->rows; i++) {
        FUZZ_CHECK(x->rowptr[i] <= x->rowptr[i + 1]);
        for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++) {
            FUZZ_CHECK(x->col[k] >= 0 && x->col[k] < x->cols);
            FUZZ_CHECK(k == x->rowptr[i] || x->col[k - 1] < x->col[k]);
            FUZZ_CHECK(isfinite(x->val[k]));
        }
    }
    for (gat_idx i = 0; i < ds->n; i++) {
        FUZZ_CHECK(ds->node_ids[i] != NULL);
        FUZZ_CHECK(ds->labels[i] >= -1 && ds->labels[i] < ds->n_classes);
        FUZZ_CHECK(ds->split[i] <= GAT_SPLIT_TEST);
        FUZZ_CHECK(ds->split[i] == GAT_SPLIT_NONE || ds->labels[i] >= 0);
        counts[ds->split[i]]++;
    }
    FUZZ_CHECK(counts[GAT_SPLIT_TRAIN] == ds->n_train && counts[GAT_SPLIT_VAL] == ds->n_val &&
               counts[GAT_SPLIT_TEST] == ds->n_test);
    /* every fixed split as checked as the one in use, which is one of them */
    int in_splits = !ds->splits;
    FUZZ_CHECK(!ds->splits || ds->n_splits >= 2);
    for (gat_idx k = 0; ds->splits && k < ds->n_splits; k++) {
        const uint8_t *row = ds->splits + (size_t)k * (size_t)ds->n;
        for (gat_idx i = 0; i < ds->n; i++)
            FUZZ_CHECK(row[i] <= GAT_SPLIT_TEST &&
                       (row[i] == GAT_SPLIT_NONE || ds->labels[i] >= 0 || ds->n_labels > 0));
        in_splits = in_splits || !memcmp(row, ds->split, (size_t)ds->n);
    }
    FUZZ_CHECK(in_splits);
    for (gat_idx c = 0; c < ds->n_classes; c++)
        FUZZ_CHECK(ds->class_names[c] != NULL);
}

/* Runs a tiny model on a small loaded dataset: predictions, then two epochs of training, which
 * either succeed with finite parameters or report the divergence. */
static inline void fuzz_exercise(const gat_dataset *ds, int train)
{
    gat_model_config mc;
    gat_model *m = NULL;
    if (ds->n == 0 || ds->n > 2000 || ds->n_features < 1 || ds->n_features > 2000 ||
        ds->n_classes < 1 || ds->graph.nnz > 20000)
        return;
    gat_model_config_default(&mc, ds->n_features, ds->n_classes);
    mc.hidden = 2;
    mc.heads = 2;
    FUZZ_CHECK(gat_model_create(&m, &mc, 1) == GAT_OK);
    gat_model_set_threads(m, 1);
    gat_idx *cls = malloc((size_t)ds->n * sizeof *cls);
    FUZZ_CHECK(cls != NULL);
    gat_status st = gat_model_predict(m, &ds->graph, &ds->x, cls, NULL);
    FUZZ_CHECK(st == GAT_OK);
    for (gat_idx i = 0; i < ds->n; i++)
        FUZZ_CHECK(cls[i] >= 0 && cls[i] < ds->n_classes);
    free(cls);
    if (train && ds->n_train > 0 && ds->n_val > 0) {
        gat_train_config tc;
        gat_train_result res;
        size_t P;
        gat_train_config_default(&tc);
        tc.max_epochs = 2;
        tc.patience = 1;
        st = gat_train(m, ds, &tc, &res);
        FUZZ_CHECK(st == GAT_OK || st == GAT_ENUMERIC);
        const gat_real *p = gat_model_params(m, &P);
        for (size_t k = 0; k < P; k++)
            FUZZ_CHECK(isfinite(p[k]));
    }
    gat_model_free(m);
}

#endif
