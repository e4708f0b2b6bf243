/* Benchmark of issue 39's encodings and global attention (never part of the tests: no verdict
 * depends on time). Built beside the tests because the attention kernels are private
 * (layers/global_attn.h) until a model layer wires them. Prints one cost line per run.
 *   bench_encode lap|rw|both K DATASET [THREADS]   (a bundled name, a Cora-layout prefix or .gatd)
 *   bench_encode attn GRAPHS NODES FEATURES HEADS REPS THREADS
 *   bench_encode anchors lap|feat DATASET FEATURES HEADS SCALE M1[,M2...] THREADS
 * anchors: the error of anchor attention against exact attention on one graph, with q, k
 * random projections (entries N(0, SCALE^2 / 8)) of 8 columns P scaled to unit variance: the
 * graph's lap:8 encoding (nodes close in the graph get similar queries and keys) or a random
 * projection of the node features (nodes of similar features do); SCALE sets how peaked the
 * attention is; v independent of them (N(0, 1)). The error is printed
 * relative to the exact output and to the values (Frobenius norms): averaging independent values
 * makes the exact output small, so the second is the scale that says how far off a node is. */
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

/* A N(0, 1) draw from the hash of (seed, k) (Box-Muller). */
static double gauss(uint64_t seed, uint64_t k)
{
    uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double u1 = ((double)(z >> 11) + 0.5) * 0x1.0p-53, u2 = (double)(z & 0x7FF) / 2048.0;
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/* x (n, F) = P (n, 8) W, W (8, F) of N(0, scale^2 / 8) entries from seed. */
static void project(const gat_real *P, gat_idx n, int F, double scale, uint64_t seed, gat_real *x)
{
    for (gat_idx i = 0; i < n; i++)
        for (int f = 0; f < F; f++) {
            double s = 0;
            for (int c = 0; c < 8; c++)
                s += P[(size_t)i * 8 + c] * gauss(seed, (uint64_t)c * F + f) * scale / sqrt(8.0);
            x[(size_t)i * F + f] = (gat_real)s;
        }
}

static int anchors(const char *src, const char *path, int F, int H, double scale, const char *list,
                   int nt)
{
    gat_dataset ds;
    if (gat_dataset_load(&ds, path, NULL) != GAT_OK) {
        fprintf(stderr, "bench_encode: %s\n", gat_last_error());
        return 1;
    }
    const gat_idx n = ds.n;
    const size_t m = (size_t)n * F;
    gat_real *P = malloc((size_t)n * 8 * sizeof *P), *buf = malloc(5 * m * sizeof *buf);
    gat_real *lse = malloc((size_t)n * H * sizeof *lse);
    gat_idx *anchor = malloc((size_t)n * sizeof *anchor), seg[2] = {0, n};
    const int lap = !strcmp(src, "lap");
    if (!P || !buf || !lse || !anchor || F % H ||
        (lap && gat_lap_pe(&ds.graph, 8, NULL, P, 8, NULL) != GAT_OK)) {
        fprintf(stderr, "bench_encode: out of memory, FEATURES not a multiple of HEADS, or %s\n",
                gat_last_error());
        return 1;
    }
    if (!lap) /* P = x R, R (features, 8) N(0, 1) */
        for (gat_idx i = 0; i < n; i++)
            for (int c = 0; c < 8; c++) {
                double t = 0;
                for (gat_idx e = ds.x.rowptr[i]; e < ds.x.rowptr[i + 1]; e++)
                    t += ds.x.val[e] * gauss(9, (uint64_t)ds.x.col[e] * 8 + c);
                P[(size_t)i * 8 + c] = (gat_real)t;
            }
    for (int c = 0; c < 8; c++) { /* unit variance per column */
        double s2 = 0;
        for (gat_idx i = 0; i < n; i++) s2 += P[(size_t)i * 8 + c] * P[(size_t)i * 8 + c];
        const double f = s2 > 0 ? sqrt(n / s2) : 0;
        for (gat_idx i = 0; i < n; i++) P[(size_t)i * 8 + c] *= (gat_real)f;
    }
    gat_real *q = buf, *k = q + m, *v = k + m, *exact = v + m, *approx = exact + m;
    project(P, n, F, scale, 1, q);
    project(P, n, F, scale, 2, k);
    for (size_t t = 0; t < m; t++) v[t] = (gat_real)gauss(3, t);
    double t0 = now();
    gat_i_global_attn_forward(n, H, F / H, 1, seg, q, k, v, exact, lse, nt);
    const double t_exact = now() - t0;
    printf("%s: %d nodes, q k from %s, v (%d x %d heads), scale %g; exact attention %.3f s (%d "
           "threads)\n",
           path, n, lap ? "lap:8" : "the features", F / H, H, scale, t_exact, nt);
    for (const char *p = list; p && *p;) {
        const gat_idx M = (gat_idx)atoi(p);
        if (M < 1 || M > n) break;
        gat_i_anchor_pick(n, M, 41, anchor);
        t0 = now();
        gat_i_anchor_attn_forward(n, H, F / H, M, anchor, q, k, v, approx, lse, nt);
        const double t_m = now() - t0;
        double num = 0, den = 0, vv = 0;
        for (size_t t = 0; t < m; t++) {
            num += (approx[t] - exact[t]) * (approx[t] - exact[t]);
            den += exact[t] * exact[t];
            vv += v[t] * v[t];
        }
        printf("anchors %6d: error / |exact| %.4f, error / |v| %.4f, %.3f s\n", M,
               sqrt(num / den), sqrt(num / vv), t_m);
        p = strchr(p, ',');
        if (p) p++;
    }
    free(P), free(buf), free(lse), free(anchor);
    gat_dataset_destroy(&ds);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 9 && !strcmp(argv[1], "anchors"))
        return anchors(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]), atof(argv[6]), argv[7],
                       atoi(argv[8]));
    if (argc >= 4 && (!strcmp(argv[1], "lap") || !strcmp(argv[1], "rw") ||
                      !strcmp(argv[1], "both")))
        return encodings(argv[1], atoi(argv[2]), argv[3], argc > 4 ? atoi(argv[4]) : 0);
    if (argc == 8 && !strcmp(argv[1], "attn"))
        return attention(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]),
                         atoi(argv[6]), atoi(argv[7]));
    fprintf(stderr, "usage: bench_encode lap|rw|both K DATASET [THREADS]\n"
                    "       bench_encode attn GRAPHS NODES FEATURES HEADS REPS THREADS\n"
                    "       bench_encode anchors lap|feat DATASET FEATURES HEADS SCALE M1[,M2...] "
                    "THREADS\n");
    return 2;
}
