/* Shared helpers of the Check suites. */
#include "testutil.h"
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char pathbuf[4096];

const char *tu_data(const char *rel)
{
    const char *root = getenv("GAT_TEST_DATA");
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", root ? root : "tests/data", rel);
    return pathbuf;
}

const char *tu_dataset(const char *name)
{
    const char *root = getenv("GAT_DATASETS");
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", root ? root : "datasets", name);
    return pathbuf;
}

char *tu_tmpdir(void)
{
    char tmpl[] = "/tmp/gat-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    return strdup(d);
}

void tu_rmtree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

const char *tu_write(const char *dir, const char *name, const char *text)
{
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", dir, name);
    FILE *f = fopen(pathbuf, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
    return pathbuf;
}

void tu_dataset_alloc_failures(gat_status (*load)(gat_dataset *ds, void *ctx), void *ctx,
                               long min_total, long fallbacks)
{
    gat_dataset ds;
    gat_i_alloc_fail_at(-1);
    ck_assert_msg(load(&ds, ctx) == GAT_OK, "%s", gat_last_error());
    gat_dataset_destroy(&ds);
    const long total = gat_i_alloc_fail_at(-1);
    long failed = 0;
    for (long k = 0; k < total; k++) {
        gat_i_alloc_fail_at(k);
        const gat_status st = load(&ds, ctx);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) { /* an allocation with a fallback */
            gat_dataset_destroy(&ds);
            continue;
        }
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_int_eq(ds.n, 0);
        failed++;
    }
    ck_assert_int_ge(total, min_total);
    ck_assert_int_ge(failed, total - fallbacks);
}

int tu_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static tu_variant variant_now = {GAT_KERNELS_AUTO, GAT_ALPHA_AUTO}; /* outside tu_run_variants */
static int variant_index;

int tu_variants(tu_variant *out)
{
    static const gat_kernels builds[] = {GAT_KERNELS_BASE, GAT_KERNELS_AVX2, GAT_KERNELS_AVX512};
    int n = 0;
    gat_kernels widest = GAT_KERNELS_BASE;
    for (size_t k = 0; k < LEN(builds); k++)
        if (gat_kernels_supported(builds[k]))
            out[n++] = (tu_variant){builds[k], GAT_ALPHA_AUTO}, widest = builds[k];
    out[n++] = (tu_variant){widest, GAT_ALPHA_RECOMPUTE};
    return n;
}

const tu_variant *tu_variant_now(void)
{
    return &variant_now;
}

int tu_variant_index(void)
{
    return variant_index;
}

int tu_run_variants(Suite *(*make)(void))
{
    tu_variant v[5];
    /* the sanitizer run (GAT_TEST_QUICK) checks memory and UB on the first variant: the kernels
     * suite's comparisons with the reference run every build and both alpha storages each */
    const int all = tu_variants(v), n = getenv("GAT_TEST_QUICK") ? 1 : all;
    int rc = EXIT_SUCCESS;
    for (int k = 0; k < n; k++) {
        variant_now = v[k];
        variant_index = k;
        printf("== variant %d of %d: kernels %s, alpha %s\n", k + 1, n,
               gat_kernels_name(v[k].kernels),
               v[k].alpha == GAT_ALPHA_RECOMPUTE ? "recompute" : "auto");
        fflush(stdout);
        if (tu_run(make()) != EXIT_SUCCESS) rc = EXIT_FAILURE;
    }
    variant_now = (tu_variant){GAT_KERNELS_AUTO, GAT_ALPHA_AUTO};
    variant_index = 0;
    return rc;
}

gat_status tu_model_create(gat_model **out, const gat_model_config *cfg, uint64_t seed)
{
    if (!cfg) return gat_model_create(out, cfg, seed);
    gat_model_config c = *cfg;
    if (c.options.kernels == GAT_KERNELS_AUTO) c.options.kernels = variant_now.kernels;
    if (c.options.alpha == GAT_ALPHA_AUTO) c.options.alpha = variant_now.alpha;
    return gat_model_create(out, &c, seed);
}

int tu_model_set_kernels(gat_model *m, const char *isa)
{
    gat_kernels k;
    gat_model_options o = gat_model_get_config(m)->options;
    if (gat_kernels_from_name(isa, &k) != GAT_OK || !gat_kernels_supported(k)) return -1;
    o.kernels = k;
    return gat_model_set_options(m, &o) == GAT_OK ? 0 : -1;
}

void tu_uniform(gat_real *x, size_t n, double lo, double hi, uint64_t seed)
{
    gat_rng r;
    gat_rng_seed(&r, seed);
    for (size_t k = 0; k < n; k++)
        x[k] = (gat_real)(lo + (hi - lo) * gat_rng_uniform(&r));
}

void tu_graph_small(gat_graph *g, unsigned flags)
{
    const gat_idx src[] = {1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 2};
    const gat_idx dst[] = {0, 0, 0, 0, 0, 5, 2, 3, 4, 1, 4};
    ck_assert_int_eq(gat_graph_from_edges(g, 7, sizeof src / sizeof src[0], src, dst, flags),
                     GAT_OK);
}

void tu_graph_small_random(gat_graph *g, unsigned flags, uint64_t seed)
{
    gat_idx src[12] = {1, 2, 3, 4, 5, 0}, dst[12] = {0, 0, 0, 0, 0, 5};
    gat_rng r;
    gat_rng_seed(&r, seed);
    for (int e = 6; e < 12; e++) {
        src[e] = 1 + (gat_idx)gat_rng_below(&r, 4);
        dst[e] = 1 + (gat_idx)((src[e] - 1 + 1 + (gat_idx)gat_rng_below(&r, 3)) % 4);
    }
    ck_assert_int_eq(gat_graph_from_edges(g, 7, 12, src, dst, flags), GAT_OK);
}

void tu_graph_skewed(gat_graph *g, gat_idx hub, gat_idx n_other, unsigned flags, uint64_t seed)
{
    const gat_idx n = hub + n_other + 2, first = hub + 1;
    const size_t m = 2 * (size_t)hub + 3 * (size_t)n_other;
    gat_idx *src = malloc((m + 1) * sizeof *src), *dst = malloc((m + 1) * sizeof *dst);
    size_t e = 0;
    gat_rng r;
    ck_assert(src && dst);
    gat_rng_seed(&r, seed);
    for (gat_idx j = 1; j <= hub; j++) {
        src[e] = j, dst[e++] = 0;
        src[e] = 0, dst[e++] = j;
    }
    for (gat_idx j = first; j < first + n_other; j++)
        for (int k = 0; k < 3; k++) {
            src[e] = j;
            dst[e++] = first + (gat_idx)gat_rng_below(&r, (uint64_t)n_other);
        }
    ck_assert_int_eq(gat_graph_from_edges(g, n, e, src, dst, flags), GAT_OK);
    free(src);
    free(dst);
}

void tu_features(gat_csr *x, gat_idx rows, gat_idx cols, double density, uint64_t seed)
{
    gat_real *dense = calloc((size_t)rows * (size_t)cols + 1, sizeof *dense);
    gat_rng r;
    ck_assert_ptr_nonnull(dense);
    gat_rng_seed(&r, seed);
    for (gat_idx i = 0; i < rows; i++) {
        gat_real *d = dense + (size_t)i * (size_t)cols;
        for (gat_idx c = 0; c < cols; c++)
            if (gat_rng_uniform(&r) < density) d[c] = (gat_real)(1 - gat_rng_uniform(&r));
        d[gat_rng_below(&r, (uint64_t)cols)] = (gat_real)(1 - gat_rng_uniform(&r));
    }
    ck_assert_int_eq(gat_csr_from_dense(x, rows, cols, dense), GAT_OK);
    free(dense);
}

double tu_rms(const gat_real *x, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; k++)
        s += (double)x[k] * x[k];
    return n ? sqrt(s / (double)n) : 0;
}

double tu_max_abs(const gat_real *x, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs((double)x[k]));
    return m;
}

double tu_max_rel_err(const gat_real *got, const gat_real *want, size_t n, double floor, size_t *at)
{
    double worst = 0;
    size_t where = 0;
    for (size_t k = 0; k < n; k++) {
        const double w = fabs((double)want[k]), d = fabs((double)got[k] - (double)want[k]);
        const double err = d == 0 ? 0 : d / (w > floor ? w : floor);
        /* NaN compares false: count it as the worst */
        if (!(err <= worst)) {
            worst = isnan(err) ? INFINITY : err;
            where = k;
            if (isnan(err)) break;
        }
    }
    if (at) *at = where;
    return worst;
}

const char *tu_fifo(const char *dir, const char *name, const void *head, size_t n, size_t fill,
                    int c, int *pid)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    fflush(NULL);
    const pid_t p = fork();
    ck_assert_int_ge(p, 0);
    if (p == 0) { /* the writer: exit 0 when stopped by the reader's close, 1 when all written */
        static char chunk[1 << 16];
        signal(SIGPIPE, SIG_IGN);
        const int fd = open(path, O_WRONLY);
        if (fd < 0) _exit(2);
        memset(chunk, c, sizeof chunk);
        if (n > 0 && write(fd, head, n) != (ssize_t)n) _exit(errno == EPIPE ? 0 : 2);
        while (fill > 0) {
            const size_t k = fill < sizeof chunk ? fill : sizeof chunk;
            const ssize_t w = write(fd, chunk, k);
            if (w < 0) _exit(errno == EPIPE ? 0 : 2);
            fill -= (size_t)w;
        }
        close(fd);
        _exit(1);
    }
    *pid = (int)p;
    return path;
}

int tu_fifo_drained(int pid)
{
    int status = 0;
    ck_assert_int_eq(waitpid((pid_t)pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) < 2, "FIFO writer failed (status %d)",
                  status);
    return WEXITSTATUS(status) == 1;
}

void tu_graph_set(gat_dataset *ds, gat_idx G, gat_idx F, uint64_t seed)
{
    gat_idx *ptr = malloc(((size_t)G + 1) * sizeof *ptr), *lab = malloc((size_t)G * sizeof *lab);
    gat_idx *src = malloc((size_t)G * 40 * sizeof *src), *dst = malloc((size_t)G * 40 * sizeof *dst);
    gat_real size_r[1], r[1];
    size_t m = 0;
    ck_assert(ptr && lab && src && dst);
    ptr[0] = 0;
    for (gat_idx g = 0; g < G; g++) {
        tu_uniform(size_r, 1, 0, 1, seed * 1000003u + (uint64_t)g);
        const gat_idx n = 3 + (gat_idx)(size_r[0] * 7), lo = ptr[g];
        ptr[g + 1] = lo + (n > 9 ? 9 : n);
        lab[g] = g % 2;
        const gat_idx hi = ptr[g + 1];
        for (gat_idx i = lo + 1; i < hi; i++) { /* a random tree */
            tu_uniform(r, 1, 0, 1, seed * 7919u + (uint64_t)i);
            src[m] = lo + (gat_idx)(r[0] * (i - lo)), dst[m++] = i;
        }
        if (lab[g] == 1) src[m] = lo, dst[m++] = lo + 2;
    }
    const gat_idx N = ptr[G];
    gat_graph gr;
    gat_csr x;
    gat_real *dense = malloc((size_t)N * F * sizeof *dense);
    ck_assert(dense);
    tu_uniform(dense, (size_t)N * F, 0, 1, seed + 17);
    for (gat_idx g = 0; g < G; g++)
        for (gat_idx i = ptr[g]; i < ptr[g + 1] && lab[g] == 1; i++)
            dense[(size_t)i * F] += 0.5;
    ck_assert_int_eq(gat_graph_from_edges(&gr, N, m, src, dst, GAT_GRAPH_SYMMETRIZE), GAT_OK);
    ck_assert_int_eq(gat_csr_from_dense(&x, N, F, dense), GAT_OK);
    gat_dataset_parts p = {.graph = &gr, .features = &x, .n_graphs = G, .graph_ptr = ptr,
                           .graph_labels = lab, .n_graph_classes = 2};
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    ck_assert_msg(gat_dataset_from_parts(ds, &p, &o) == GAT_OK, "%s", gat_last_error());
    gat_graph_destroy(&gr);
    gat_csr_destroy(&x);
    free(dense), free(ptr), free(lab), free(src), free(dst);
}

gat_idx tu_node(const gat_dataset *ds, const char *id)
{
    for (gat_idx i = 0; i < ds->n; i++)
        if (strcmp(ds->node_ids[i], id) == 0) return i;
    ck_abort_msg("no node '%s'", id);
    return -1;
}

int tu_has_edge(const gat_graph *g, gat_idx j, gat_idx i)
{
    for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
        if (g->col[e] == j) return 1;
    return 0;
}
