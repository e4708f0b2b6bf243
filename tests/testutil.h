/* Shared helpers of the Check suites: fixture paths, temporary files, random data. */
#ifndef GAT_TESTUTIL_H
#define GAT_TESTUTIL_H

#include <check.h>
#include <stdio.h>

/* Check's ck_assert_msg (under every ck_assert_*) records the file and line of each passing
 * assertion (_mark_point: a write to its log, so that a crash can be placed after the last one).
 * In the suites' per-element loops those writes were most of the time: 1.7 million of them in
 * the sampler's tests, 70 s of 90 under ASan. Here a passing assertion records nothing; a failing
 * one reports its file, line and message as before. A crash or a timeout is reported at the
 * test's last mark_point() (Check's "after this point"): a test that wants one calls it. */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                                   \
    ((expr) ? (void)0                                                                              \
            : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

#include "gat/gat.h"

#include <string.h>

/* Number of elements of an array. */
#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* call returns status and gat_last_error() holds substr (the exact-status error-path check). */
#define ASSERT_FAILS(call, status, substr)                                                         \
    do {                                                                                           \
        gat_status st_ = (call);                                                                   \
        ck_assert_msg(st_ == (status), "%s returned %d (%s), expected %d", #call, st_,             \
                      gat_last_error(), (status));                                                 \
        ck_assert_msg(strstr(gat_last_error(), (substr)) != NULL, "message '%s' lacks '%s'",       \
                      gat_last_error(), (substr));                                                 \
    } while (0)

/* Path of a file under tests/data (static buffer, overwritten by the next call). */
const char *tu_data(const char *rel);
/* Path of a bundled dataset directory (datasets/NAME). */
const char *tu_dataset(const char *name);
/* A fresh temporary directory (created; removed by tu_rmtree). */
char *tu_tmpdir(void);
void tu_rmtree(const char *dir);
/* Writes text to dir/name; returns the full path (static buffer). */
const char *tu_write(const char *dir, const char *name, const char *text);
/* A FIFO at dir/name fed by a child process: head (n bytes), then fill bytes of value c, in 64 KiB
 * writes. Returns the FIFO's path (static buffer) and the child in *pid, for tu_fifo_drained. */
const char *tu_fifo(const char *dir, const char *name, const void *head, size_t n, size_t fill,
                    int c, int *pid);
/* Waits for the child of tu_fifo: 1 if the reader took everything it wrote, 0 if the reader
 * closed the FIFO early (the child's write failed with EPIPE). */
int tu_fifo_drained(int pid);
/* Index of the node of ds with the given id, failing the test if there is none. */
gat_idx tu_node(const gat_dataset *ds, const char *id);
/* Whether the in-neighbourhood (graph row) of node i of g contains node j: the message j -> i. */
int tu_has_edge(const gat_graph *g, gat_idx j, gat_idx i);
/* Every allocation of load (which fills ds from ctx) failing in turn, after a run that counts
 * them and must succeed: each run returns GAT_OK (an allocation with a fallback) or GAT_ENOMEM
 * with ds zeroed. Fails the test unless there are at least min_total allocations and all but
 * `fallbacks` of them fail the load. */
void tu_dataset_alloc_failures(gat_status (*load)(gat_dataset *ds, void *ctx), void *ctx,
                               long min_total, long fallbacks);
/* Runs a Suite with CK_NORMAL output and returns the process exit code. */
int tu_run(Suite *s);

/* ---- kernel variants: the suites whose results depend on a model's kernel build or alpha
 * storage (gat_model_options) run once per variant, inside the suite ---- */
typedef struct tu_variant {
    gat_kernels kernels;
    gat_alpha_storage alpha;
} tu_variant;
/* The variants (room for 5): every kernel build this CPU runs, the baseline first, with the
 * default alpha storage, then the widest build recomputing alpha (the lean backward that large
 * graphs run). Returns their count (2 in a build with the baseline kernels only). */
int tu_variants(tu_variant *out);
/* The variant a suite run by tu_run_variants is on (outside it: the defaults, index 0). */
const tu_variant *tu_variant_now(void);
int tu_variant_index(void);
/* Runs the suite make() builds once per variant (each run's first line names it); the exit
 * code of all of them. Under GAT_TEST_QUICK (the sanitizer run) the first variant only. */
int tu_run_variants(Suite *(*make)(void));
/* gat_model_create with the current variant's options where cfg leaves them at the defaults
 * (a test that sets options keeps its own). */
gat_status tu_model_create(gat_model **out, const gat_model_config *cfg, uint64_t seed);
/* Makes m run the kernel build called isa ("base", "avx2", "avx512"; its options.kernels):
 * 0, or -1 if this CPU does not run it. */
int tu_model_set_kernels(gat_model *m, const char *isa);

/* ---- random data for the layer and model suites (gat_real follows the build: float, or
 * double with GAT_REAL_DOUBLE) ---- */
/* x (n) uniform in [lo, hi) from a splitmix64 stream seeded with seed. */
void tu_uniform(gat_real *x, size_t n, double lo, double hi, uint64_t seed);
/* The 7-node graph of the gradient checks, from the edges j -> 0 (j = 1..5), 0 -> 5, 1 -> 2,
 * 2 -> 3, 3 -> 4, 4 -> 1, 2 -> 4: node 0 hears every other connected node, node 5 only node 0,
 * node 6 is isolated. flags as gat_graph_from_edges. */
void tu_graph_small(gat_graph *g, unsigned flags);
/* A random variant of it: the same edges j -> 0 (j = 1..5) and 0 -> 5 and isolated node 6, but 6
 * random edges among nodes 1..4 drawn from seed. */
void tu_graph_small_random(gat_graph *g, unsigned flags, uint64_t seed);
/* A skewed graph: hub 0 with edges to and from nodes 1..hub (in-degree 1 each, loops aside),
 * n_other nodes after them with 3 random out-edges each among themselves, and a last isolated
 * node: n = hub + n_other + 2. flags as gat_graph_from_edges. */
void tu_graph_skewed(gat_graph *g, gat_idx hub, gat_idx n_other, unsigned flags, uint64_t seed);
/* Sparse (rows, cols) features: each entry non-zero with probability density, values in
 * (0, 1]; every row gets at least one non-zero. */
void tu_features(gat_csr *x, gat_idx rows, gat_idx cols, double density, uint64_t seed);
/* Root mean square and largest magnitude of x (n); 0 for n == 0. */
double tu_rms(const gat_real *x, size_t n);
double tu_max_abs(const gat_real *x, size_t n);
/* Largest |got - want| / max(|want|, floor) over n values; *at (if not NULL) gets its index. */
double tu_max_rel_err(const gat_real *got, const gat_real *want, size_t n, double floor,
                      size_t *at);
/* A dataset of G graphs of 3..9 nodes (random edges within each, symmetrised, one self-loop per
 * node), F dense features and 2 graph classes with planted signal: a graph of class 1 has
 * feature 0 raised by 0.5 on every node and an edge between its first and third nodes. From
 * seed. */
void tu_graph_set(gat_dataset *ds, gat_idx G, gat_idx F, uint64_t seed);

#endif
