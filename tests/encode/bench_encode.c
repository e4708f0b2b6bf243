/* Benchmark of issue 39's encodings and global attention (never part of the tests: no verdict
 * depends on time). Built beside the tests because the attention kernels are private
 * (layers/global_attn.h) until a model layer wires them. Prints one cost line per run.
 *   bench_encode lap|rw|both K DATASET [THREADS]   (a bundled name, a Cora-layout prefix or .gatd)
 *   bench_encode attn GRAPHS NODES FEATURES HEADS REPS THREADS */
#include "gat/gat.h"
#include "layers/global_attn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int encodings(const char *what, int k, const char *path, int threads)
{
    gat_dataset ds;
    const double t0 = now();
    if (gat_dataset_load(&ds, path, NULL) != GAT_OK) {
        fprintf(stderr, "bench_encode: %s\n", gat_last_error());
        return 1;
    }
    printf("%s: %d nodes, %d edges (self-loops included), loaded in %.2f s\n", path, ds.n,
           ds.graph.nnz, now() - t0);
    gat_pe_spec spec = {strcmp(what, "rw") ? k : 0, strcmp(what, "lap") ? k : 0};
    gat_pe_options o;
    gat_pe_options_init(&o);
    o.threads = threads;
    const size_t w = (size_t)(spec.lap_k + spec.rw_k);
    gat_real *out = malloc((size_t)ds.n * w * sizeof *out);
    gat_pe_cost c;
    int rc = 0;
    const double c0 = cpu();
    if (!out || gat_pe_compute(&ds.graph, &spec, &o, out, w, 0, &c) != GAT_OK) {
        fprintf(stderr, "bench_encode: %s\n", out ? gat_last_error() : "out of memory");
        rc = 1;
    } else {
        char text[32];
        gat_pe_spec_format(&spec, text, sizeof text);
        printf("pe %s: %.3f s (process CPU %.3f s), %.1f MiB working memory (+ %.1f MiB output), %d components "
               "(%d dense, %d ARPACK, %ld operator products), threads %d\n",
               text, c.seconds, cpu() - c0, (double)c.bytes / 1048576.0,
               (double)((size_t)ds.n * w * sizeof *out) / 1048576.0, c.components, c.dense,
               c.iterative, c.matvecs, threads);
    }
    free(out);
    gat_dataset_destroy(&ds);
    return rc;
}

static int attention(int G, int N, int F, int H, int reps, int nt)
{
    const int D = F / H, n = G * N;
    const size_t m = (size_t)n * (size_t)F;
    gat_idx *ptr = malloc((size_t)(G + 1) * sizeof *ptr);
    gat_real *buf = malloc((7 * m + 2 * (size_t)n * H) * sizeof *buf);
    if (!ptr || !buf || F % H) {
        fprintf(stderr, "bench_encode: out of memory or FEATURES not a multiple of HEADS\n");
        return 1;
    }
    for (int g = 0; g <= G; g++) ptr[g] = g * N;
    for (size_t x = 0; x < 7 * m; x++) buf[x] = (gat_real)(sin(0.37 * (double)x) * 0.8);
    gat_real *q = buf, *k = q + m, *v = k + m, *o = v + m, *dq = o + m, *dk = dq + m, *dv = dk + m;
    gat_real *lse = dv + m, *delta = lse + (size_t)n * H;
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        const double t0 = nt == 1 ? cpu() : now();
        gat_i_global_attn_forward(n, H, D, G, ptr, q, k, v, o, lse, nt);
        gat_i_global_attn_backward(n, H, D, G, ptr, q, k, v, o, lse, v, delta, dq, dk, dv, nt);
        const double t = (nt == 1 ? cpu() : now()) - t0;
        if (t < best) best = t;
    }
    printf("global attention forward+backward: %d graphs x %d nodes x %d features x %d heads, "
           "threads %d: best of %d %.3f ms (%s) = %.0f graphs/s, %.1f MiB\n", G, N, F, H, nt, reps,
           1e3 * best, nt == 1 ? "process CPU time" : "wall time", G / best,
           (double)((7 * m + 2 * (size_t)n * H) * sizeof *buf) / 1048576.0);
    free(ptr);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && (!strcmp(argv[1], "lap") || !strcmp(argv[1], "rw") ||
                      !strcmp(argv[1], "both")))
        return encodings(argv[1], atoi(argv[2]), argv[3], argc > 4 ? atoi(argv[4]) : 0);
    if (argc == 8 && !strcmp(argv[1], "attn"))
        return attention(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]),
                         atoi(argv[6]), atoi(argv[7]));
    fprintf(stderr, "usage: bench_encode lap|rw|both K DATASET [THREADS]\n"
                    "       bench_encode attn GRAPHS NODES FEATURES HEADS REPS THREADS\n");
    return 2;
}
