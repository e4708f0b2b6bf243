/* gat-bench: times GAT training and inference on Cora, Citeseer, synthetic graphs (tools/synth.c)
 * and synthetic sets of small graphs to classify (graphs-N, tools/synth_graphs.c) for a sweep of thread counts and attention scores, and prints a table and one
 * JSON line per run. Each run is a child process, so its peak resident memory is its own; a
 * workload read from a file is loaded by each child (loading a large graph runs OpenMP loops, and a
 * child forked after its parent started an OpenMP thread pool hangs in its first parallel loop). A
 * benchmark, not a test: run it on a quiet machine (`ninja -C build bench`). An epoch is
 * gat_train_step, exactly gat_train's epoch without the validation pass. */
#define _DEFAULT_SOURCE /* wait4 */
#include "cli.h"
#include "synth.h"

#include "gat/gat.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_EPOCHS 1000

typedef struct result {
    int ok;
    int threads_used;
    char isa[16];
    int epochs, infer_runs;
    double epoch[MAX_EPOCHS], infer[64];
    double train_acc; /* of the last epoch, a sanity check that it learns */
    /* mini-batch epochs (--batch-size): steps, sampled block edges and the seconds spent drawing
     * the blocks (gat_sampler_sample and gat_block_features, on the loader's thread with the
     * look-ahead), waiting for them and in the training steps alone, per timed epoch on average */
    double steps, block_edges, sample_s, wait_s, steps_s;
    double sampler_s, features_s; /* sample_s's parts: in the sampler, gathering features */
    double checked_s; /* --compare-steps: the same batches' gat_train_step, per epoch */
    double cpu_s; /* graph workloads: process CPU seconds per timed epoch (sample_s: batching) */
    gat_idx n_graphs;
    gat_order order;  /* the node order the binding used */
    double order_s;   /* its cost (in the first warmup epoch) */
    /* the dataset's shape, and the seconds it took to make (in the child for file workloads) */
    gat_idx n, nnz, features, feature_nnz, classes;
    double build_s;
} result;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Attention layers of the benchmarked model (--layers), and the node order of its bindings. */
static int n_layers = 2;
static gat_order order = GAT_ORDER_AUTO;
/* --edge-dim D: synthetic workloads carry D edge feature columns and the model reads them */
static int edge_dim = 0;
/* Mini-batch epochs (--batch-size B --fanout F1,...,FL): 0 for full-graph epochs. */
static gat_idx batch_size = 0;
static gat_idx fanout[GAT_MAX_LAYERS];

/* Whether mini-batch epochs draw the next batch while a step trains (gat_loader's look-ahead). */
static int no_lookahead = 0;
/* Whether mini-batch epochs also run gat_train_step on each batch (the block bound as a caller's
 * graph: checked, untrimmed), alternating with gat_train_step_batch, timing both. */
static int compare_steps = 0;

/* Graph workloads (graphs-N): graphs per training step, nodes per graph, the readout. */
static gat_idx graph_batch = 128, graph_nodes = 20; /* 0 in main() until checked: not given */
static gat_readout readout = GAT_READOUT_SUM;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One mini-batch epoch as gat_train runs it, driven here through the public loader: the training
 * nodes in an order drawn from seed `epoch`, a block per batch (drawn one ahead unless
 * --no-lookahead), gat_train_step_batch on it (Adam step *t). Adds the block edges, the seconds
 * spent drawing (on whichever thread; parts_s[0] of them in the sampler, parts_s[1] gathering
 * features), waiting for a batch and in the training steps alone to *edges, *sample_s, parts_s,
 * *wait_s and *steps_s (and --compare-steps' gat_train_step to *checked_s; rows: batch_size of
 * scratch). */
static int minibatch_epoch(gat_model *m, const gat_dataset *ds, gat_sampler *smp, gat_idx *train,
                           gat_idx n_train, gat_idx *labels, gat_idx *rows,
                           const gat_adam_config *adam, int epoch, gat_idx *t, double *edges,
                           double *sample_s, double *parts_s, double *wait_s, double *steps_s,
                           double *checked_s, double *acc)
{
    uint64_t r = 0x9E3779B97F4A7C15ull * (uint64_t)(epoch + 1);
    for (gat_idx k = n_train - 1; k > 0; k--) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        const gat_idx j = (gat_idx)(r % (uint64_t)(k + 1)), v = train[k];
        train[k] = train[j], train[j] = v;
    }
    double correct = 0, draw = 0, wait = 0;
    gat_loader *ld = NULL;
    const gat_batch *b;
    gat_status st = gat_loader_create(&ld, smp, &ds->x, ds->edge_x, edge_dim, train, n_train,
                                      batch_size, (uint64_t)*t + 1, !no_lookahead);
    while (st == GAT_OK && (st = gat_loader_next(ld, &b)) == GAT_OK && b) {
        const gat_idx nb = b->block.n_targets;
        double a = 0;
        ++*t;
        *edges += b->block.graph.nnz;
        for (gat_idx q = 0; q < nb; q++) labels[q] = ds->labels[b->block.nodes[q]];
        /* the batch as the loader built it (with its edge features), trimmed per layer; with
         * --compare-steps also as a caller's block (checked, untrimmed), in alternating order */
        for (int k = 0; k < (compare_steps ? 2 : 1) && st == GAT_OK; k++) {
            const int batch = !compare_steps || (k == 0) == (*t % 2 == 0);
            const double t0 = now();
            if (batch) {
                st = gat_train_step_batch(m, b, labels, adam, *t, NULL, &a);
            } else {
                for (gat_idx q = 0; q < nb; q++) rows[q] = q;
                if (edge_dim > 0 && (st = gat_model_bind(m, &b->block.graph, &b->x, 0)) == GAT_OK)
                    st = gat_model_bind_edge_features(m, b->edge_x, edge_dim);
                if (st == GAT_OK)
                    st = gat_train_step(m, &b->block.graph, &b->x, labels, rows, nb, adam, *t,
                                        NULL, &a);
            }
            *(batch ? steps_s : checked_s) += now() - t0;
        }
        if (st != GAT_OK) break;
        correct += a * nb;
    }
    double sampler = 0, features = 0;
    gat_loader_times(ld, &draw, &wait);
    gat_loader_draw_times(ld, &sampler, &features);
    gat_loader_free(ld);
    *sample_s += draw;
    parts_s[0] += sampler;
    parts_s[1] += features;
    *wait_s += wait;
    if (st != GAT_OK) return -1;
    *acc = correct / n_train;
    return 0;
}

static int make_dataset(const char *name, gat_dataset *ds, double *build_s);

/* Marks run r done: the threads it ran and the kernels m chose. */
static void finish(result *r, const gat_model *m, int threads)
{
    r->threads_used = threads;
    const char *isa = gat_model_kernels(m);
    snprintf(r->isa, sizeof r->isa, "%s", isa ? isa : "none");
    r->ok = 1;
}

/* One epoch of graph classification as gat_graph_train runs it: the graphs in an order drawn
 * from `epoch`, gat_graph_batch_make and gat_graph_train_step per graph_batch of them (Adam step
 * *t). Adds the seconds spent making batches to *batch_s. */
static int graphs_epoch(gat_model *m, const gat_dataset *ds, gat_graph_batch *b, gat_idx *ids,
                        const gat_adam_config *adam, int epoch, gat_idx *t, double *batch_s,
                        double *acc)
{
    uint64_t r = 0x9E3779B97F4A7C15ull * (uint64_t)(epoch + 1);
    const gat_idx G = ds->n_graphs;
    for (gat_idx k = G - 1; k > 0; k--) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        const gat_idx j = (gat_idx)(r % (uint64_t)(k + 1)), v = ids[k];
        ids[k] = ids[j], ids[j] = v;
    }
    double right = 0;
    for (gat_idx k0 = 0; k0 < G; k0 += graph_batch) {
        const gat_idx n = G - k0 < graph_batch ? G - k0 : graph_batch;
        double a;
        const double t0 = now();
        if (gat_graph_batch_make(b, ds, ids + k0, n) != GAT_OK) return -1;
        *batch_s += now() - t0;
        if (gat_graph_train_step(m, b, adam, ++*t, NULL, &a) != GAT_OK) return -1;
        right += a * n;
    }
    *acc = right / G;
    return 0;
}

/* A graph workload in the child: a graph model of n_layers layers (8 heads x 8, node embeddings
 * of 16, the --readout readout, a linear classifier), `warmup` + `epochs` epochs over every
 * graph, then inference (gat_graph_embed's batches of 128) `infer` times. */
static void run_graphs(const gat_dataset *ds, gat_score score, int residual, int threads,
                       int warmup, int epochs, int infer, result *r)
{
    gat_model_config mc;
    gat_model *m = NULL;
    gat_adam_config adam;
    gat_graph_batch b = {0};
    gat_idx t = 0, *ids = NULL, *pred = NULL;
    double acc = 0, batch_s = 0, cpu0 = 0;
    memset(r, 0, sizeof *r);
    gat_model_config_default(&mc, ds->n_features, 16);
    mc.in_dropout = mc.att_dropout = 0;
    mc.score = score, mc.residual = residual, mc.layers = n_layers;
    mc.task = GAT_TASK_GRAPH, mc.readout = readout, mc.graph_classes = ds->n_graph_classes;
    cli_model_env(&mc.options);
    gat_adam_config_default(&adam);
    if (gat_model_create(&m, &mc, 1) != GAT_OK) goto out;
    gat_model_set_threads(m, threads);
    if (!(ids = malloc((size_t)ds->n_graphs * sizeof *ids)) ||
        !(pred = malloc((size_t)ds->n_graphs * sizeof *pred)))
        goto out;
    for (gat_idx g = 0; g < ds->n_graphs; g++)
        ids[g] = g;
    for (int e = 0; e < warmup + epochs; e++) {
        if (e == warmup) batch_s = 0, cpu0 = cpu_now();
        const double t0 = now();
        if (graphs_epoch(m, ds, &b, ids, &adam, e, &t, &batch_s, &acc)) goto out;
        if (e >= warmup) r->epoch[r->epochs++] = now() - t0;
        r->train_acc = acc;
    }
    if (r->epochs) {
        r->cpu_s = (cpu_now() - cpu0) / r->epochs;
        r->sample_s = batch_s / r->epochs;
        r->steps = (double)((ds->n_graphs + graph_batch - 1) / graph_batch);
    }
    for (int k = 0; k < infer + 1; k++) {
        const double t0 = now();
        if (gat_graph_embed(m, ds, 128, NULL, NULL, pred, NULL) != GAT_OK) goto out;
        if (k > 0) r->infer[r->infer_runs++] = now() - t0;
    }
    finish(r, m, threads);
out:
    if (!r->ok) fprintf(stderr, "gat-bench: run failed: %s\n", gat_last_error());
    free(ids);
    free(pred);
    gat_graph_batch_destroy(&b);
    gat_model_free(m);
}

/* Timed epochs and inference forwards: as asked, or (0) about 10 s of epochs at ~150 ns per edge
 * or feature non-zero, 5..200 of them, and 3 s of forwards at ~60 ns, 3..20. */
static void run_counts(const gat_dataset *ds, int epochs, int infer, int *ne, int *ni)
{
    const double work = (double)ds->graph.nnz + (double)ds->x.rowptr[ds->n];
    const int de = (int)(10 / (work * 150e-9)), di = (int)(3 / (work * 60e-9));
    *ne = epochs ? epochs : de < 5 ? 5 : de > 200 ? 200 : de;
    *ni = infer ? infer : di < 3 ? 3 : di > 20 ? 20 : di;
}

/* One run in the child: the paper's model with score `score` (and residual connections if
 * `residual`; n_layers layers), `warmup` + `epochs` training epochs (gat_train_step on the training rows: forward
 * with the last layer on those rows, cross-entropy, backward, Adam), then inference forwards. */
static void run(const gat_dataset *ds, gat_score score, int residual, int threads, int warmup,
                int epochs, int infer, result *r)
{
    gat_model_config mc;
    gat_model *m = NULL;
    gat_train_config tc;
    gat_idx *train = NULL, n_train = 0, *labels = NULL, *rows = NULL, t = 0;
    gat_sampler *smp = NULL;
    const gat_real *logits;
    double acc, edges = 0, sample_s = 0, wait_s = 0, steps_s = 0, checked_s = 0, parts_s[2] = {0};
    memset(r, 0, sizeof *r);
    gat_model_config_default(&mc, ds->n_features, ds->n_classes);
    mc.score = score;
    mc.residual = residual;
    mc.layers = n_layers;
    mc.edge_dim = edge_dim;
    cli_model_env(&mc.options);
    gat_train_config_default(&tc);
    if (gat_model_create(&m, &mc, 1) != GAT_OK) goto out;
    gat_model_set_threads(m, threads);
    if (gat_model_set_order(m, order) != GAT_OK) goto out;
    /* gat_train_step runs on this binding (the same inputs), edge features included; mini-batch
     * steps bind their blocks with theirs */
    if (edge_dim > 0 && !batch_size && (gat_model_bind(m, &ds->graph, &ds->x, 0) != GAT_OK ||
                         gat_model_bind_edge_features(m, ds->edge_x, ds->n_edge_features) !=
                             GAT_OK))
        goto out;
    if (!(train = malloc((size_t)ds->n * sizeof *train))) goto out;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->split[i] == GAT_SPLIT_TRAIN) train[n_train++] = i;
    if (batch_size) {
        if (gat_sampler_create(&smp, &ds->graph, n_layers, fanout, 1) != GAT_OK) goto out;
        gat_sampler_set_threads(smp, threads);
        if (!(labels = malloc((size_t)batch_size * sizeof *labels)) ||
            !(rows = malloc((size_t)batch_size * sizeof *rows)))
            goto out;
    }
    for (int e = 0; e < warmup + epochs; e++) {
        const double t0 = now();
        if (e == warmup)
            edges = sample_s = wait_s = steps_s = checked_s = parts_s[0] = parts_s[1] = 0;
        if (batch_size) {
            if (minibatch_epoch(m, ds, smp, train, n_train, labels, rows, &tc.adam, e, &t, &edges,
                                &sample_s, parts_s, &wait_s, &steps_s, &checked_s, &acc))
                goto out;
        } else if (gat_train_step(m, &ds->graph, &ds->x, ds->labels, train, n_train, &tc.adam,
                                  e + 1, NULL, &acc) != GAT_OK) {
            goto out;
        }
        if (e >= warmup) r->epoch[r->epochs++] = now() - t0;
        if (e == 0) r->order = gat_model_order(m, &r->order_s);
        r->train_acc = acc;
    }
    /* mini-batch runs evaluate as gat_train then does: layer-wise, on an inference binding */
    if (batch_size && (gat_model_bind(m, &ds->graph, &ds->x, GAT_BIND_INFERENCE) != GAT_OK ||
                       (edge_dim > 0 && gat_model_bind_edge_features(m, ds->edge_x, edge_dim) !=
                                            GAT_OK)))
        goto out;
    for (int k = 0; k < infer + 1; k++) {
        const double t0 = now();
        if (gat_model_forward(m, &ds->graph, &ds->x, 0, &logits) != GAT_OK) goto out;
        if (k > 0) r->infer[r->infer_runs++] = now() - t0;
    }
    if (batch_size && r->epochs) {
        r->steps = (double)((n_train + batch_size - 1) / batch_size);
        r->block_edges = edges / r->epochs;
        r->sample_s = sample_s / r->epochs;
        r->sampler_s = parts_s[0] / r->epochs;
        r->features_s = parts_s[1] / r->epochs;
        r->wait_s = wait_s / r->epochs;
        r->steps_s = steps_s / r->epochs;
        r->checked_s = checked_s / r->epochs;
    }
    finish(r, m, threads);
out:
    if (!r->ok) fprintf(stderr, "gat-bench: run failed: %s\n", gat_last_error());
    free(train);
    free(labels);
    free(rows);
    gat_sampler_free(smp);
    gat_model_free(m);
}

/* Runs `run` in a child on ds, or (ds NULL) on workload w, which the child makes (r->build_s);
 * *rss_kib gets the child's peak resident set. */
static int run_child(const char *w, const gat_dataset *ds, gat_score score, int residual,
                     int threads, int warmup, int epochs, int infer, result *r, long *rss_kib)
{
    int fd[2];
    if (pipe(fd)) return -1;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        result *mine = calloc(1, sizeof *mine);
        gat_dataset own;
        double build_s = 0;
        int ne, ni;
        if (!ds && make_dataset(w, &own, &build_s) == 0) ds = &own;
        if (mine && ds) {
            run_counts(ds, epochs, infer, &ne, &ni);
            if (ds->n_graphs > 0)
                run_graphs(ds, score, residual, threads, warmup, ne, ni, mine);
            else
                run(ds, score, residual, threads, warmup, ne, ni, mine);
            mine->n_graphs = ds->n_graphs;
            mine->n = ds->n, mine->nnz = ds->graph.nnz, mine->features = ds->n_features;
            mine->feature_nnz = ds->x.rowptr[ds->n];
            mine->classes = ds->n_graphs > 0 ? ds->n_graph_classes : ds->n_classes;
            mine->build_s = build_s;
        }
        const char *p = (const char *)mine;
        size_t left = mine ? sizeof *mine : 0;
        while (left > 0) {
            const ssize_t w = write(fd[1], p, left);
            if (w <= 0) break;
            p += w, left -= (size_t)w;
        }
        _exit(mine && mine->ok ? 0 : 1);
    }
    close(fd[1]);
    char *p = (char *)r;
    size_t got = 0;
    ssize_t n;
    while (got < sizeof *r && (n = read(fd[0], p + got, sizeof *r - got)) > 0) got += (size_t)n;
    close(fd[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) return -1;
    *rss_kib = ru.ru_maxrss;
    return got == sizeof *r && WIFEXITED(status) && WEXITSTATUS(status) == 0 && r->ok ? 0 : -1;
}

/* Random gathers of 256-byte rows (one 8 x 8 hidden row of z or dy) from a table of `rows` rows
 * on `threads` threads, summed so nothing is optimised away: millions of rows per second, the
 * memory-bound floor of the attention kernels (each epoch gathers such rows a few times per
 * edge). A table that fits the last-level cache gathers far faster than one that does not. */
static double gather_rate(size_t rows, int threads)
{
    enum { W = 64 };
    const size_t n_idx = 1 << 24;
    float *table = malloc(rows * W * sizeof *table);
    uint32_t *idx = malloc(n_idx * sizeof *idx);
    if (!table || !idx) {
        free(table);
        free(idx);
        return -1;
    }
    uint64_t st = 88172645463325252ull;
    for (size_t k = 0; k < rows * W; k++)
        table[k] = (float)(k % 7);
    for (size_t k = 0; k < n_idx; k++) {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        idx[k] = (uint32_t)(st % rows);
    }
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        float total = 0;
        const double t0 = now();
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : total)
        for (size_t k = 0; k < n_idx; k++) {
            const float *r = table + (size_t)idx[k] * W;
            if (k + 16 < n_idx) /* as the kernels do on large graphs */
                for (int c = 0; c < W; c += 16)
                    __builtin_prefetch(table + (size_t)idx[k + 16] * W + c, 0, 3);
            float s = 0;
            for (int c = 0; c < W; c++)
                s += r[c];
            total += s;
        }
        const double rate = (double)n_idx / (now() - t0) / 1e6;
        if (rate > best && total > 0) best = rate;
    }
    free(table);
    free(idx);
    return best;
}

/* Starts n CPU-bound processes (the "shared machine" setting); returns how many started. */
static int start_load(int n, pid_t *pids)
{
    int k = 0;
    for (; k < n; k++) {
        fflush(stdout);
        const pid_t pid = fork();
        if (pid < 0) break;
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the benchmark */
            volatile unsigned long x = 0;
            for (;;)
                x++;
        }
        pids[k] = pid;
    }
    return k;
}

static void stop_load(int n, const pid_t *pids)
{
    for (int k = 0; k < n; k++) {
        kill(pids[k], SIGKILL);
        waitpid(pids[k], NULL, 0);
    }
}

/* Wall time of `gat-train --dataset NAME --attention SCORE [--residual] --quiet --threads T`
 * (loading included); -1 if it fails. */
static double run_cli(const char *exe, const char *dataset, const char *score, int residual,
                      int threads, const char *fanout_s)
{
    char t[16], layers[16], bs[16];
    snprintf(t, sizeof t, "%d", threads);
    snprintf(layers, sizeof layers, "%d", n_layers);
    snprintf(bs, sizeof bs, "%d", (int)batch_size);
    /* the row's model, node order and epochs (mini-batches or not) */
    const char *argv[24] = {exe,        "--dataset", dataset,     "--attention",
                            score,      "--quiet",   "--threads", t,
                            "--layers", layers,      "--order",   gat_order_name(order)};
    int n = 12;
    if (residual) argv[n++] = "--residual";
    if (batch_size) argv[n++] = "--batch-size", argv[n++] = bs;
    if (batch_size) argv[n++] = "--fanout", argv[n++] = fanout_s;
    const double t0 = now();
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    return now() - t0;
}

static void machine(char *cpu, size_t len, int *cores)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(cpu, len, "unknown CPU");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
                snprintf(cpu, len, "%s", strchr(line, ':') + 2);
                cpu[strcspn(cpu, "\n")] = '\0';
                break;
            }
        fclose(f);
    }
    *cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* Loads a bundled dataset or draws a synthetic one ("synth-1e5": 10^5 nodes). */
static int make_dataset(const char *name, gat_dataset *ds, double *build_s)
{
    const double t0 = now();
    if (!strncmp(name, "graphs-", 7)) {
        /* molecule-sized graphs: ~graph_nodes nodes, mean degree 2.2, 16 dense features, a
         * planted ring deciding one of 2 classes */
        synth_graph_opts go = {.graphs = (gat_idx)atof(name + 7), .nodes = graph_nodes,
                               .degree = 2.2, .homophily = 0.5, .signal = 1, .features = 16,
                               .types = 4, .classes = 2, .seed = 1};
        char err[256] = "";
        if (go.graphs < 10) {
            fprintf(stderr, "gat-bench: bad workload '%s' (graphs-N, N >= 10)\n", name);
            return -1;
        }
        if (synth_graphs(&go, ds, err, sizeof err) != GAT_OK) {
            fprintf(stderr, "gat-bench: %s: %s\n", name, err[0] ? err : gat_last_error());
            return -1;
        }
    } else if (!strncmp(name, "synth-", 6)) {
        synth_opts so;
        synth_data d;
        char err[256];
        synth_defaults(&so);
        so.nodes = (gat_idx)atof(name + 6);
        so.edge_features = edge_dim;
        if (so.nodes < 100) {
            fprintf(stderr, "gat-bench: bad workload '%s' (synth-N, N >= 100)\n", name);
            return -1;
        }
        if (synth_generate(&so, &d, err, sizeof err)) {
            fprintf(stderr, "gat-bench: %s: %s\n", name, err);
            return -1;
        }
        const gat_status st = synth_dataset(&d, so.classes, ds);
        synth_free(&d);
        if (st != GAT_OK) {
            fprintf(stderr, "gat-bench: %s: %s\n", name, gat_last_error());
            return -1;
        }
    } else {
        const char *path = cli_dataset_path("gat-bench", name);
        if (!path || gat_dataset_load(ds, path, NULL) != GAT_OK) {
            if (path) fprintf(stderr, "gat-bench: %s: %s\n", name, gat_last_error());
            return -1;
        }
    }
    *build_s = now() - t0;
    return 0;
}

/* Usage errors for options that no workload of the list would read (exit 2), naming them:
 * the graphs-N options without such a workload, the node workloads' options with graphs-N alone,
 * --edge-dim on a workload without edge features, the mini-batch and end-to-end options without
 * the option they qualify. Given: graph_batch, graph_nodes non-zero; orders, readout_s, cli
 * non-NULL; cli_runs non-zero. */
static int options_read(const char *workloads, const char *orders, const char *readout_s,
                        const char *cli, int cli_runs, int edge_dim_given)
{
    char list[1024], *save = NULL;
    int graphs = 0, nodes = 0, files = 0;
    const char *nosynth = NULL;
    snprintf(list, sizeof list, "%s", workloads);
    for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        const int g = !strncmp(w, "graphs-", 7), sy = !strncmp(w, "synth-", 6);
        graphs |= g, nodes |= !g, files |= !g && !sy;
        if (!sy && !nosynth) nosynth = workloads + (w - list);
    }
    const char *bad = NULL, *why = NULL;
    if (!graphs && (graph_batch || graph_nodes || readout_s)) {
        bad = graph_batch ? "--graph-batch" : graph_nodes ? "--graph-nodes" : "--readout";
        why = "only graphs-N workloads read it, and --workloads has none";
    } else if (!nodes && (orders || batch_size || edge_dim_given)) {
        bad = orders ? "--order" : batch_size ? "--batch-size" : "--edge-dim";
        why = "graphs-N workloads do not read it, and --workloads has no other";
    } else if (!batch_size && (no_lookahead || compare_steps)) {
        bad = no_lookahead ? "--no-lookahead" : "--compare-steps";
        why = "it qualifies mini-batch epochs (--batch-size)";
    } else if (cli_runs && !cli) {
        bad = "--cli-runs", why = "it counts the runs of --gat-train";
    } else if (cli && !files) {
        bad = "--gat-train";
        why = "it runs on dataset workloads (cora, citeseer, a path), and --workloads has none";
    }
    if (bad) {
        fprintf(stderr, "gat-bench: %s: %s\n", bad, why);
        return 2;
    }
    if (edge_dim_given && nosynth) {
        fprintf(stderr,
                "gat-bench: --edge-dim: workload '%.*s' has no edge features (only "
                "synth-N workloads get them)\n",
                (int)strcspn(nosynth, ","), nosynth);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *workloads = "cora,citeseer,synth-1e4,synth-1e5,synth-1e6", *threads_s = NULL;
    const char *cli = NULL, *attention = "gat", *orders = NULL, *fanout_s = NULL;
    int epochs = 0, warmup = 3, infer = 0, cli_runs = 0, load = 0, gather = 0, residual = 0;
    const char *readout_s = NULL;
    const cli_option opts[] = {
        {"workloads", CLI_STRING, &workloads, 0, 0, "LIST",
         "comma-separated: cora, citeseer, synth-N, graphs-N (N graphs to classify, "
         "--graph-nodes each) (default cora,citeseer,synth-1e4,synth-1e5,synth-1e6)"},
        {"graph-batch", CLI_INT, &graph_batch, 1, 1000000, "B",
         "graphs-N workloads: graphs per training step (default 128)"},
        {"graph-nodes", CLI_INT, &graph_nodes, 4, 100000, "N",
         "graphs-N workloads: mean nodes per graph (default 20)"},
        {"readout", CLI_STRING, &readout_s, 0, 0, "NAME",
         "graphs-N workloads: sum, mean, max or attention (default sum)"},
        {"threads", CLI_STRING, &threads_s, 0, 0, "LIST",
         "thread counts to sweep (default 1,<all cores>)"},
        {"attention", CLI_STRING, &attention, 0, 0, "LIST",
         "comma-separated edge scores, each run in turn: gat, gatv2, dot, scaled-dot, bilinear, "
         "cosine, gaussian (default gat)"},
        {"order", CLI_STRING, &orders, 0, 0, "LIST",
         "comma-separated node orders of the bindings, each run in turn: auto, none, rcm, degree "
         "(default auto)"},
        {"residual", CLI_FLAG, &residual, 0, 0, NULL,
         "residual connection per layer, projected where widths differ"},
        {"layers", CLI_INT, &n_layers, 1, GAT_MAX_LAYERS, "L",
         "attention layers of the model (default 2)"},
        {"edge-dim", CLI_INT, &edge_dim, 0, GAT_MAX_EDGE_DIM, "D",
         "synth-N workloads with D edge feature columns (gat-synth's), read by the gat score's "
         "edge term (default 0: none)"},
        {"epochs", CLI_INT, &epochs, 0, MAX_EPOCHS, "N",
         "timed epochs (default: about 10 s worth, 5..200)"},
        {"warmup", CLI_INT, &warmup, 0, 1000, "N", "untimed epochs first (default 3)"},
        {"infer", CLI_INT, &infer, 0, 64, "N", "timed inference forwards (default: 3..20)"},
        {"gat-train", CLI_STRING, &cli, 0, 0, "PATH",
         "also time this gat-train end to end on the dataset workloads (the row's model, order and "
         "mini-batches)"},
        {"cli-runs", CLI_INT, &cli_runs, 1, 100, "N", "end-to-end runs per setting (default 3)"},
        {"batch-size", CLI_INT, &batch_size, 1, 2147483647, "B",
         "mini-batch epochs: B training nodes per step on blocks drawn by the sampler (needs "
         "--fanout)"},
        {"fanout", CLI_STRING, &fanout_s, 0, 0, "F1,...,FL",
         "with --batch-size: in-neighbours sampled per node and layer, the output layer's first; "
         "-1 all, 0 none"},
        {"no-lookahead", CLI_FLAG, &no_lookahead, 0, 0, NULL,
         "with --batch-size: draw each batch in turn, not the next one during a step"},
        {"compare-steps", CLI_FLAG, &compare_steps, 0, 0, NULL,
         "with --batch-size: also run gat_train_step on each batch (checked, untrimmed), "
         "alternating with gat_train_step_batch, and time both"},
        {"gather", CLI_FLAG, &gather, 0, 0, NULL,
         "also measure random 256-byte row gathers from tables of 10^5 and 10^6 rows"},
        {"load", CLI_INT, &load, 0, 64, "N",
         "run N CPU-bound processes meanwhile: a shared machine (default 0)"},
        CLI_DEPRECATED("edge-features", "edge-dim"), /* a switch in gat-train */
        {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    int exit_now, rc;
    graph_batch = graph_nodes = 0; /* not given */
    if ((rc = cli_parse(argc, argv, opts, "gat-bench", "[options]", &exit_now)) || exit_now)
        return rc;
    if ((rc = options_read(workloads, orders, readout_s, cli, cli_runs, edge_dim)) ||
        (rc = cli_check_env("gat-bench")))
        return rc;
    graph_batch = graph_batch ? graph_batch : 128, graph_nodes = graph_nodes ? graph_nodes : 20;
    cli_runs = cli_runs ? cli_runs : 3, orders = orders ? orders : "auto";

    if (readout_s && gat_readout_from_name(readout_s, &readout) != GAT_OK) {
        fprintf(stderr, "gat-bench: --readout: %s\n", gat_last_error());
        return 2;
    }
    if (!batch_size != !fanout_s) {
        fprintf(stderr, "gat-bench: --batch-size and --fanout go together (try --help)\n");
        return 2;
    }
    if (fanout_s) {
        int n;
        if ((rc = cli_parse_list("gat-bench", "fanout", fanout_s, -1, 100000000,
                                 "F1,...,FL, each -1 or >= 0", GAT_MAX_LAYERS, fanout, &n)) != 0)
            return rc;
        if (n != n_layers) {
            fprintf(stderr, "gat-bench: --fanout: %d values for %d layers (--layers)\n", n,
                    n_layers);
            return 2;
        }
    }
    char cpu[256], list[256];
    int cores, th[16], n_th = 0, n_sc = 0;
    gat_score sc[GAT_SCORE_COUNT];
    snprintf(list, sizeof list, "%s", attention);
    for (char *a = strtok(list, ","); a; a = strtok(NULL, ",")) {
        gat_score s;
        if (gat_score_from_name(a, &s) != GAT_OK) {
            fprintf(stderr, "gat-bench: --attention: %s\n", gat_last_error());
            return 2;
        }
        int seen = 0;
        for (int k = 0; k < n_sc; k++)
            seen |= sc[k] == s;
        if (!seen) sc[n_sc++] = s;
    }
    if (n_sc == 0) {
        fprintf(stderr, "gat-bench: --attention: expected one or more score names\n");
        return 2;
    }
    gat_order ord[GAT_ORDER_COUNT];
    int n_ord = 0;
    snprintf(list, sizeof list, "%s", orders);
    for (char *a = strtok(list, ","); a; a = strtok(NULL, ",")) {
        if (gat_order_from_name(a, &ord[n_ord]) != GAT_OK) {
            fprintf(stderr, "gat-bench: --order: %s\n", gat_last_error());
            return 2;
        }
        int seen = 0;
        for (int k = 0; k < n_ord; k++)
            seen |= ord[k] == ord[n_ord];
        if (!seen) n_ord++;
    }
    if (n_ord == 0) {
        fprintf(stderr, "gat-bench: --order: expected one or more order names\n");
        return 2;
    }
    machine(cpu, sizeof cpu, &cores);
    if (threads_s) {
        snprintf(list, sizeof list, "%s", threads_s);
        for (char *t = strtok(list, ","); t && n_th < 16; t = strtok(NULL, ","))
            if (atoi(t) > 0) th[n_th++] = atoi(t);
    } else {
        th[n_th++] = 1;
        if (cores > 1) th[n_th++] = cores;
    }
    if (n_th == 0) {
        fprintf(stderr, "gat-bench: --threads: expected positive counts\n");
        return 2;
    }
    char *json = NULL;
    size_t json_len = 0;
    FILE *js = open_memstream(&json, &json_len);
    if (!js) return 1;
    printf("gat-bench (libgat %s): %s, %d cores; model %d layers, 8 heads x 8 hidden, 1 output "
           "head%s%s%s\n",
           gat_version(), cpu, cores, n_layers, residual ? ", residual connections" : "",
           edge_dim > 0 ? ", edge features (edge_dim from --edge-dim)" : "",
           load ? "; other CPU-bound processes running: see 'load'" : "");
    if (batch_size)
        printf("mini-batch epochs: %d training nodes per step, fan-outs %s (output layer first); "
               "an epoch is every training node once\n", batch_size, fanout_s);
    printf("%-11s %8s %9s %3s %-10s %7s %-6s %7s | %-29s | %10s | %8s | %8s | %7s\n", "workload",
           "nodes", "edges", "thr", "attention", "isa", "order", "order s",
           "epoch ms: median (min-max)", "infer ms", "peak MiB", "Medge/s", "cli s");

    snprintf(list, sizeof list, "%s", workloads);
    char *save = NULL;
    for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        gat_dataset ds = {0};
        double build_s = 0;
        /* synthetic graphs are drawn once, here (no OpenMP); files are loaded by each child */
        const int drawn = !strncmp(w, "synth-", 6) || !strncmp(w, "graphs-", 7);
        if (drawn && make_dataset(w, &ds, &build_s)) {
            rc = 1;
            continue;
        }
        if (!drawn && !cli_dataset_path("gat-bench", w)) {
            rc = 1;
            continue;
        }
        for (int t = 0; t < n_th; t++) {
            for (int a = 0; a < n_sc * n_ord; a++) {
                order = ord[a % n_ord];
                const char *sname = gat_score_name(sc[a / n_ord]);
                result *r = calloc(1, sizeof *r);
                long rss = 0;
                pid_t hogs[64];
                const int n_hogs = start_load(load, hogs);
                const int failed = !r || run_child(w, drawn ? &ds : NULL, sc[a / n_ord], residual,
                                                   th[t], warmup, epochs, infer, r, &rss);
                if (failed) {
                    fprintf(stderr, "gat-bench: %s, %s, %d threads failed\n", w, sname, th[t]);
                    stop_load(n_hogs, hogs);
                    free(r);
                    rc = 1;
                    continue;
                }
                double cli_s = -1;
                if (cli && !drawn) {
                    double v[100];
                    int k = 0;
                    for (int q = 0; q < cli_runs; q++)
                        if ((v[k] = run_cli(cli, w, sname, residual, th[t], fanout_s)) > 0) k++;
                    if (k) cli_s = median(v, k);
                }
                stop_load(n_hogs, hogs);
                double e[MAX_EPOCHS];
                memcpy(e, r->epoch, (size_t)r->epochs * sizeof *e);
                const double emed = median(e, r->epochs), emin = e[0], emax = e[r->epochs - 1];
                const double imed = median(r->infer, r->infer_runs);
                const double mib = (double)rss / 1024;
                char clis[16] = "-";
                if (cli_s > 0) snprintf(clis, sizeof clis, "%.3f", cli_s);
                printf(
                    "%-11s %8d %9d %3d %-10s %7s %-6s %7.3f | %9.3f (%8.3f-%8.3f) | %10.3f | %8.0f "
                    "| %8.1f | %7s\n",
                    w, r->n, r->nnz, th[t], sname, r->isa, gat_order_name(r->order), r->order_s,
                    1e3 * emed, 1e3 * emin, 1e3 * emax, 1e3 * imed, mib,
                    (double)r->nnz / emed / 1e6, clis);
                if (r->n_graphs > 0)
                    printf("%-11s   graphs: %d graphs of %.1f nodes, %.0f steps of %d per epoch: "
                           "%.0f graphs/s (%.2f us per graph), %.0f graphs per CPU second; "
                           "making batches %.1f%% of the epoch; train acc %.3f\n",
                           "", r->n_graphs, (double)r->n / r->n_graphs, r->steps, graph_batch,
                           r->n_graphs / emed, 1e6 * emed / r->n_graphs,
                           r->n_graphs / r->cpu_s, 100 * r->sample_s / emed, r->train_acc);
                if (r->n_graphs > 0)
                    fprintf(js, "{\"workload\": \"%s\", \"threads\": %d, \"graphs\": %d, "
                            "\"graph_batch\": %d, \"readout\": \"%s\", \"graphs_per_s\": %.1f, "
                            "\"graphs_per_cpu_s\": %.1f, \"batch_make_s_per_epoch\": %.5f}\n",
                            w, th[t], r->n_graphs, graph_batch, gat_readout_name(readout),
                            r->n_graphs / emed, r->n_graphs / r->cpu_s, r->sample_s);
                if (batch_size)
                    printf("%-11s   mini-batch: %.0f steps per epoch, %.3g block edges per epoch "
                           "(%.1f per step), drawing %.1f M edges/s (%.0f%% of the epoch)%s: "
                           "the sampler %.1f M edges/s (%.3f s), features %.3f s; "
                           "steps alone %.3f s, waiting for blocks %.3f s: epoch / steps %.2f\n",
                           "", r->steps, r->block_edges, r->block_edges / r->steps,
                           r->block_edges / r->sample_s / 1e6, 100 * r->sample_s / emed,
                           no_lookahead ? "" : " on the look-ahead thread",
                           r->block_edges / r->sampler_s / 1e6, r->sampler_s, r->features_s,
                           r->steps_s, r->wait_s, emed / r->steps_s);
                if (batch_size && compare_steps)
                    printf("%-11s   the same batches with gat_train_step (checked, untrimmed) "
                           "%.3f s per epoch: gat_train_step_batch / gat_train_step %.2f\n",
                           "", r->checked_s, r->steps_s / r->checked_s);
                fflush(stdout);
                if (batch_size)
                    fprintf(js,
                            "{\"workload\": \"%s\", \"threads\": %d, \"batch_size\": %d, "
                            "\"fanout\": \"%s\", \"steps\": %.0f, \"block_edges_per_epoch\": "
                            "%.6g, \"sample_s_per_epoch\": %.4f, \"sampled_edges_per_s\": %.4g, "
                            "\"sampler_s_per_epoch\": %.4f, \"sampler_edges_per_s\": %.4g, "
                            "\"features_s_per_epoch\": %.4f, "
                            "\"lookahead\": %s, \"wait_s_per_epoch\": %.4f, "
                            "\"steps_s_per_epoch\": %.4f, \"checked_steps_s_per_epoch\": %.4f}\n",
                            w, th[t], batch_size, fanout_s, r->steps, r->block_edges, r->sample_s,
                            r->block_edges / r->sample_s, r->sampler_s,
                            r->block_edges / r->sampler_s, r->features_s,
                            no_lookahead ? "false" : "true", r->wait_s, r->steps_s,
                            compare_steps ? r->checked_s : -1.0);
                fprintf(
                    js,
                    "{\"workload\": \"%s\", \"nodes\": %d, \"edges\": %d, \"features\": %d, "
                    "\"feature_nnz\": %d, \"classes\": %d, \"threads\": %d, \"attention\": \"%s\", "
                    "\"residual\": %s, \"isa\": \"%s\", \"layers\": %d, "
                    "\"epochs\": %d, \"epoch_ms_median\": %.4f, \"epoch_ms_min\": %.4f, "
                    "\"epoch_ms_max\": %.4f, \"inference_ms_median\": %.4f, "
                    "\"peak_rss_mib\": %.1f, \"edges_per_s\": %.4g, \"train_acc_last\": %.4f, "
                    "\"cli_s\": %.4f, \"dataset_build_s\": %.3f, \"load\": %d, "
                    "\"order\": \"%s\", \"order_s\": %.4f, \"edge_dim\": %d}\n",
                    w, r->n, r->nnz, r->features, r->feature_nnz, r->classes, th[t], sname,
                    residual ? "true" : "false", r->isa, n_layers, r->epochs, 1e3 * emed,
                    1e3 * emin, 1e3 * emax, 1e3 * imed, mib, (double)r->nnz / emed, r->train_acc,
                    cli_s, drawn ? build_s : r->build_s, n_hogs, gat_order_name(r->order),
                    r->order_s, edge_dim);
                free(r);
            }
        }
        gat_dataset_destroy(&ds);
    }
    if (gather) {
        printf("\nrandom 256-byte row gathers (the attention kernels' memory-bound floor):\n");
        for (size_t rows = 100000; rows <= 1000000; rows *= 10)
            for (int t = 0; t < n_th; t++) {
                const double r = gather_rate(rows, th[t]);
                printf("  %7zu rows (%4.0f MiB) %2d thr: %6.1f M rows/s\n", rows,
                       (double)rows * 256 / 1048576, th[t], r);
                fprintf(js, "{\"gather_rows\": %zu, \"threads\": %d, \"mrows_per_s\": %.2f}\n",
                        rows, th[t], r);
            }
    }
    fclose(js);
    printf("\n%s", json ? json : "");
    free(json);
    return rc;
}
