/* Check suite "sample": neighbour sampling (gat/sample.h) and mini-batch training (gat_train
 * with batch_size > 0). Blocks hold only real edges of the graph, at most F per node plus the
 * self-loop, the hop structure the header states, and are identical for a seed, step and any
 * thread count; draws are uniform; bad input and allocation failures are handled. The loader
 * hands out those blocks with their features, with or without look-ahead, two at most alive.
 * Mini-batch training with every neighbour and one batch reproduces full-graph training's
 * losses; it is the same with the look-ahead off; a stop joins the look-ahead thread. */
#include "testutil.h"
#include "core/core.h"
#include "graph/graph_i.h"

#include <dirent.h>
#include <omp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A random graph: n nodes, m random directed edges (symmetrised), node n - 1 isolated. */
static void random_graph(gat_graph *g, gat_idx n, size_t m, unsigned flags, uint64_t seed)
{
    gat_idx *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    ck_assert(src && dst);
    gat_rng r;
    gat_rng_seed(&r, seed);
    for (size_t k = 0; k < m; k++) {
        src[k] = (gat_idx)gat_rng_below(&r, (uint64_t)n - 1);
        /* a few hubs: every fourth edge goes into one of nodes 0..3 */
        dst[k] = k % 4 == 0 ? (gat_idx)(k / 4 % 4) : (gat_idx)gat_rng_below(&r, (uint64_t)n - 1);
    }
    ck_assert_int_eq(gat_graph_from_edges(g, n, m, src, dst, flags), GAT_OK);
    free(src);
    free(dst);
}

static gat_idx self_loops(const gat_graph *g, gat_idx i)
{
    gat_idx c = 0;
    for (gat_idx p = g->rowptr[i]; p < g->rowptr[i + 1]; p++) c += g->col[p] == i;
    return c;
}

/* Every property of gat/sample.h's block definition, against the graph g it was drawn from. */
static void check_block(const gat_block *b, const gat_graph *g, const gat_idx *targets,
                        gat_idx n_targets, int hops, const gat_idx *fanout)
{
    ck_assert_int_eq(gat_graph_check(&b->graph), GAT_OK);
    ck_assert_int_eq(b->graph.n, b->n);
    ck_assert_int_eq(b->n_targets, n_targets);
    ck_assert_int_eq(b->hops, hops);
    ck_assert_int_eq(b->hop_end[0], n_targets);
    ck_assert_int_eq(b->hop_end[hops], b->n);
    for (int h = 0; h < hops; h++) ck_assert_int_le(b->hop_end[h], b->hop_end[h + 1]);
    for (gat_idx k = 0; k < n_targets; k++) ck_assert_int_eq(b->nodes[k], targets[k]);
    char *seen = calloc((size_t)g->n, 1);
    ck_assert_ptr_nonnull(seen);
    for (gat_idx u = 0; u < b->n; u++) {
        ck_assert(b->nodes[u] >= 0 && b->nodes[u] < g->n);
        ck_assert_msg(!seen[b->nodes[u]], "node %d twice in the block", b->nodes[u]);
        seen[b->nodes[u]] = 1;
    }
    free(seen);
    for (gat_idx u = 0, h = 0; u < b->n; u++) {
        while (u >= b->hop_end[h]) h++;
        const gat_idx v = b->nodes[u], d = g->rowptr[v + 1] - g->rowptr[v] - self_loops(g, v);
        gat_idx loops = 0, others = 0;
        for (gat_idx e = b->graph.rowptr[u]; e < b->graph.rowptr[u + 1]; e++) {
            const gat_idx w = b->graph.col[e], p = b->edge_parent[e];
            /* a real edge: the parent edge p is nodes[w] -> nodes[u] */
            ck_assert_msg(p >= g->rowptr[v] && p < g->rowptr[v + 1],
                          "block edge %d of row %d has parent edge %d outside node %d's row", e, u,
                          p, v);
            ck_assert_int_eq(g->col[p], b->nodes[w]);
            if (e > b->graph.rowptr[u]) {
                ck_assert_int_le(b->graph.col[e - 1], w); /* sorted by local source */
                ck_assert_int_ne(b->edge_parent[e - 1], p); /* no edge twice */
            }
            if (w == u) {
                loops++;
            } else {
                others++;
                /* a source of a hop-h node is at hop h + 1 at most */
                ck_assert_int_lt(w, b->hop_end[h + 1 <= hops ? h + 1 : hops]);
            }
        }
        ck_assert_int_eq(loops, self_loops(g, v)); /* the self-loop is always kept */
        if (h < hops) {
            const gat_idx F = fanout[h], want = F < 0 || F > d ? d : F;
            ck_assert_msg(others == want, "row %d (node %d, hop %d, %d neighbours, F = %d) has "
                          "%d sampled edges, expected %d", u, v, h, d, F, others, want);
        } else {
            ck_assert_int_eq(others, 0); /* the last hop keeps its self-loop only */
        }
    }
    /* hop h + 1's nodes are numbered in the order of their first sampled edge: the rows of hop
     * h in order, a row's edges in its draw's order (by parent edge) */
    gat_idx *row = malloc(((size_t)b->graph.nnz + 1) * 2 * sizeof *row);
    ck_assert_ptr_nonnull(row);
    for (int h = 0; h < hops; h++) {
        gat_idx next = b->hop_end[h];
        for (gat_idx u = h ? b->hop_end[h - 1] : 0; u < b->hop_end[h]; u++) {
            gat_idx c = 0;
            for (gat_idx e = b->graph.rowptr[u]; e < b->graph.rowptr[u + 1]; e++)
                if (b->graph.col[e] != u) {
                    row[2 * c] = b->edge_parent[e];
                    row[2 * c + 1] = b->graph.col[e];
                    c++;
                }
            for (gat_idx i = 1; i < c; i++) /* by parent edge (rows are short) */
                for (gat_idx j = i; j > 0 && row[2 * j - 2] > row[2 * j]; j--)
                    for (int f = 0; f < 2; f++) {
                        const gat_idx x = row[2 * j + f];
                        row[2 * j + f] = row[2 * j - 2 + f];
                        row[2 * j - 2 + f] = x;
                    }
            for (gat_idx i = 0; i < c; i++)
                if (row[2 * i + 1] >= next) {
                    ck_assert_msg(row[2 * i + 1] == next,
                                  "hop %d: row %d's edge from %d before "
                                  "node %d's first edge",
                                  h + 1, u, row[2 * i + 1], next);
                    next++;
                }
        }
        ck_assert_int_eq(next, b->hop_end[h + 1]);
    }
    free(row);
}

static int blocks_equal(const gat_block *a, const gat_block *b)
{
    if (a->n != b->n || a->graph.nnz != b->graph.nnz) return 0;
    if (memcmp(a->hop_end, b->hop_end, sizeof a->hop_end)) return 0;
    if (memcmp(a->nodes, b->nodes, (size_t)a->n * sizeof *a->nodes)) return 0;
    if (memcmp(a->graph.rowptr, b->graph.rowptr, ((size_t)a->n + 1) * sizeof(gat_idx))) return 0;
    if (memcmp(a->graph.col, b->graph.col, (size_t)a->graph.nnz * sizeof(gat_idx))) return 0;
    if (memcmp(a->graph.t_edge, b->graph.t_edge, (size_t)a->graph.nnz * sizeof(gat_idx)))
        return 0;
    return !memcmp(a->edge_parent, b->edge_parent, (size_t)a->graph.nnz * sizeof(gat_idx));
}

/* The first n nodes of a permutation of 0..N-1 drawn from seed. */
static gat_idx *some_nodes(gat_idx N, gat_idx n, uint64_t seed)
{
    gat_idx *p = malloc((size_t)N * sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (gat_idx i = 0; i < N; i++) p[i] = i;
    gat_rng r;
    gat_rng_seed(&r, seed);
    for (gat_idx i = N - 1; i > 0; i--) {
        const gat_idx j = (gat_idx)gat_rng_below(&r, (uint64_t)i + 1), t = p[i];
        p[i] = p[j], p[j] = t;
    }
    (void)n;
    return p;
}

START_TEST(blocks_follow_the_definition)
{
    static const gat_idx fanouts[][3] = {{10, 10, 0}, {3, 5, 2}, {-1, -1, 0}, {0, 4, 0},
                                         {1, 0, 7}, {25, -1, 3}};
    static const int hops[] = {2, 3, 2, 2, 3, 3};
    for (int flags = 0; flags < 2; flags++) {
        gat_graph g;
        random_graph(&g, 3000, 30000,
                     GAT_GRAPH_SYMMETRIZE | (flags ? GAT_GRAPH_NO_SELF_LOOPS : 0u), 7);
        for (size_t c = 0; c < LEN(hops); c++) {
            gat_sampler *s;
            ck_assert_int_eq(gat_sampler_create(&s, &g, hops[c], fanouts[c], 11), GAT_OK);
            for (gat_idx B = 1; B <= 2999; B = B * 7 + 3) {
                gat_idx *t = some_nodes(g.n, B, (uint64_t)B);
                t[0] = g.n - 1; /* the isolated node: no in-neighbour at all */
                gat_block b;
                ck_assert_int_eq(gat_sampler_sample(s, t, B, (uint64_t)c, &b), GAT_OK);
                check_block(&b, &g, t, B, hops[c], fanouts[c]);
                gat_block_destroy(&b);
                free(t);
            }
            gat_sampler_free(s);
        }
        gat_graph_destroy(&g);
    }
}
END_TEST

/* All neighbours: the rows of hops 0..L-1 are the graph's rows, mapped to local ids. */
START_TEST(fanout_all_is_the_neighbourhood)
{
    gat_graph g;
    random_graph(&g, 500, 2000, GAT_GRAPH_SYMMETRIZE, 3);
    const gat_idx all[2] = {-1, -1};
    gat_sampler *s;
    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, all, 1), GAT_OK);
    gat_idx *t = some_nodes(g.n, 20, 5);
    gat_block b;
    ck_assert_int_eq(gat_sampler_sample(s, t, 20, 9, &b), GAT_OK);
    for (gat_idx u = 0; u < b.hop_end[1]; u++) {
        const gat_idx v = b.nodes[u];
        ck_assert_int_eq(b.graph.rowptr[u + 1] - b.graph.rowptr[u], gat_graph_degree(&g, v));
    }
    /* fan-out 0: the targets alone, each with its self-loop */
    gat_sampler_free(s);
    const gat_idx none[2] = {0, 0};
    gat_block_destroy(&b);
    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, none, 1), GAT_OK);
    ck_assert_int_eq(gat_sampler_sample(s, t, 20, 9, &b), GAT_OK);
    ck_assert_int_eq(b.n, 20);
    ck_assert_int_eq(b.graph.nnz, 20);
    for (gat_idx u = 0; u < 20; u++) ck_assert_int_eq(b.graph.col[u], u);
    gat_block_destroy(&b);
    gat_sampler_free(s);
    free(t);
    gat_graph_destroy(&g);
}
END_TEST

/* The same (seed, step) gives the same block on 1, 2 and 3 threads; another step or seed another
 * block; the order of the targets does not change any node's draw. */
START_TEST(blocks_are_deterministic)
{
    gat_graph g;
    random_graph(&g, 40000, 400000, GAT_GRAPH_SYMMETRIZE, 21);
    const gat_idx fan[2] = {10, 5};
    gat_idx *t = some_nodes(g.n, 6000, 4);
    gat_block ref, b;
    gat_sampler *s;
    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, fan, 42), GAT_OK);
    gat_sampler_set_threads(s, 1);
    /* the governor may keep one thread: fixed threads run the parallel draws (60000 of them) */
    gat_sampler_set_fixed_threads(s, 1);
    ck_assert_int_eq(gat_sampler_sample(s, t, 6000, 3, &ref), GAT_OK);
    check_block(&ref, &g, t, 6000, 2, fan);
    for (int nt = 2; nt <= 3; nt++) {
        gat_sampler_set_threads(s, nt);
        ck_assert_int_eq(gat_sampler_sample(s, t, 6000, 3, &b), GAT_OK);
        ck_assert_msg(blocks_equal(&ref, &b), "the block on %d threads differs", nt);
        gat_block_destroy(&b);
    }
    ck_assert_int_eq(gat_sampler_sample(s, t, 6000, 4, &b), GAT_OK);
    ck_assert_msg(!blocks_equal(&ref, &b), "step 4 drew the block of step 3");
    gat_block_destroy(&b);
    gat_sampler_free(s);
    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, fan, 43), GAT_OK);
    ck_assert_int_eq(gat_sampler_sample(s, t, 6000, 3, &b), GAT_OK);
    ck_assert_msg(!blocks_equal(&ref, &b), "seed 43 drew the block of seed 42");
    gat_block_destroy(&b);
    /* targets reversed: each target's own draw (its row's parent edges) is unchanged */
    gat_sampler_free(s);
    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, fan, 42), GAT_OK);
    gat_idx *rev = malloc(6000 * sizeof *rev);
    ck_assert_ptr_nonnull(rev);
    for (gat_idx k = 0; k < 6000; k++) rev[k] = t[5999 - k];
    ck_assert_int_eq(gat_sampler_sample(s, rev, 6000, 3, &b), GAT_OK);
    for (gat_idx k = 0; k < 6000; k++) {
        const gat_idx u = k, w = 5999 - k; /* target rev[k] = t[w] */
        gat_idx na = 0, nb = 0;
        gat_idx *pa = malloc(64 * sizeof *pa), *pb = malloc(64 * sizeof *pb);
        ck_assert(pa && pb);
        for (gat_idx e = ref.graph.rowptr[w]; e < ref.graph.rowptr[w + 1]; e++)
            pa[na++] = ref.edge_parent[e];
        for (gat_idx e = b.graph.rowptr[u]; e < b.graph.rowptr[u + 1]; e++)
            pb[nb++] = b.edge_parent[e];
        ck_assert_int_eq(na, nb);
        /* the parent edges as sets: sort both (rows are short) */
        for (gat_idx i = 1; i < na; i++)
            for (gat_idx j = i; j > 0 && pa[j - 1] > pa[j]; j--) {
                gat_idx x = pa[j]; pa[j] = pa[j - 1]; pa[j - 1] = x;
            }
        for (gat_idx i = 1; i < nb; i++)
            for (gat_idx j = i; j > 0 && pb[j - 1] > pb[j]; j--) {
                gat_idx x = pb[j]; pb[j] = pb[j - 1]; pb[j - 1] = x;
            }
        ck_assert(!memcmp(pa, pb, (size_t)na * sizeof *pa));
        free(pa);
        free(pb);
    }
    gat_block_destroy(&b);
    gat_block_destroy(&ref);
    free(rev);
    free(t);
    gat_sampler_free(s);
    gat_graph_destroy(&g);
}
END_TEST

/* A node with 12 in-neighbours and F = 4: over 3000 steps each neighbour is drawn 1000 times in
 * expectation (sd 25.8), every pair 3000 * (4 * 3) / (12 * 11) = 273 times (sd ~16). Fixed seed:
 * the verdict is the same every run; a biased draw (e.g. the first F) fails by far. */
START_TEST(draws_are_uniform)
{
    gat_idx src[12], dst[12];
    for (int k = 0; k < 12; k++) src[k] = k + 1, dst[k] = 0;
    gat_graph g;
    ck_assert_int_eq(gat_graph_from_edges(&g, 13, 12, src, dst, 0), GAT_OK);
    const gat_idx fan[1] = {4}, t[1] = {0};
    gat_sampler *s;
    ck_assert_int_eq(gat_sampler_create(&s, &g, 1, fan, 5), GAT_OK);
    long once[13] = {0}, pair[13][13] = {{0}};
    for (uint64_t step = 0; step < 3000; step++) {
        gat_block b;
        ck_assert_int_eq(gat_sampler_sample(s, t, 1, step, &b), GAT_OK);
        ck_assert_int_eq(b.graph.rowptr[1] - b.graph.rowptr[0], 5);
        for (gat_idx e = 0; e < 5; e++) {
            const gat_idx v = b.nodes[b.graph.col[e]];
            once[v]++;
            for (gat_idx f = e + 1; f < 5; f++) pair[v][b.nodes[b.graph.col[f]]]++;
        }
        gat_block_destroy(&b);
    }
    ck_assert_int_eq(once[0], 3000);
    for (int v = 1; v <= 12; v++)
        ck_assert_msg(labs(once[v] - 1000) < 130, "neighbour %d drawn %ld times of 3000 (1000 "
                      "expected)", v, once[v]);
    for (int v = 1; v <= 12; v++)
        for (int w = v + 1; w <= 12; w++) {
            const long c = pair[v][w] + pair[w][v];
            ck_assert_msg(labs(c - 273) < 85, "pair (%d, %d) drawn %ld times (273 expected)", v,
                          w, c);
        }
    gat_sampler_free(s);
    gat_graph_destroy(&g);
}
END_TEST

START_TEST(bad_input)
{
    gat_graph g;
    random_graph(&g, 50, 100, GAT_GRAPH_SYMMETRIZE, 1);
    const gat_idx fan[2] = {2, 2}, bad[2] = {2, -2};
    gat_sampler *s = (gat_sampler *)&g;
    ASSERT_FAILS(gat_sampler_create(NULL, &g, 2, fan, 1), GAT_EINVAL, "NULL out");
    ASSERT_FAILS(gat_sampler_create(&s, NULL, 2, fan, 1), GAT_EINVAL, "NULL graph g");
    ck_assert_ptr_null(s);
    ASSERT_FAILS(gat_sampler_create(&s, &g, 2, NULL, 1), GAT_EINVAL, "NULL fanout");
    ASSERT_FAILS(gat_sampler_create(&s, &g, 0, fan, 1), GAT_EINVAL, "hops = 0");
    ASSERT_FAILS(gat_sampler_create(&s, &g, GAT_MAX_LAYERS + 1, fan, 1), GAT_EINVAL, "hops = 17");
    ASSERT_FAILS(gat_sampler_create(&s, &g, 2, bad, 1), GAT_EINVAL, "fanout[1] = -2");
    gat_graph broken = g;
    gat_idx col0 = g.col[0];
    g.col[0] = 77;
    ASSERT_FAILS(gat_sampler_create(&s, &broken, 2, fan, 1), GAT_EINVAL, "gat_sampler_create: graph");
    g.col[0] = col0;

    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, fan, 1), GAT_OK);
    gat_block b;
    const gat_idx t[3] = {4, 9, 4}, oob[2] = {1, 50};
    ASSERT_FAILS(gat_sampler_sample(NULL, t, 1, 0, &b), GAT_EINVAL, "NULL sampler s");
    ASSERT_FAILS(gat_sampler_sample(s, NULL, 1, 0, &b), GAT_EINVAL, "NULL targets");
    ASSERT_FAILS(gat_sampler_sample(s, t, 1, 0, NULL), GAT_EINVAL, "NULL block b");
    ASSERT_FAILS(gat_sampler_sample(s, t, 0, 0, &b), GAT_EINVAL, "n_targets = 0");
    ASSERT_FAILS(gat_sampler_sample(s, t, 51, 0, &b), GAT_EINVAL, "n_targets = 51");
    ASSERT_FAILS(gat_sampler_sample(s, oob, 2, 0, &b), GAT_EINVAL, "targets[1] = 50 outside");
    ASSERT_FAILS(gat_sampler_sample(s, t, 3, 0, &b), GAT_EINVAL, "targets[2] = 4 repeats targets[0]");
    ck_assert_int_eq(b.n, 0);
    ck_assert_ptr_null(b.nodes);
    /* a failed draw leaves the sampler as it was: the next one is as from a fresh sampler */
    gat_block b2;
    ck_assert_int_eq(gat_sampler_sample(s, t, 2, 0, &b), GAT_OK);
    check_block(&b, &g, t, 2, 2, fan);
    gat_sampler *s2;
    ck_assert_int_eq(gat_sampler_create(&s2, &g, 2, fan, 1), GAT_OK);
    ck_assert_int_eq(gat_sampler_sample(s2, t, 2, 0, &b2), GAT_OK);
    ck_assert(blocks_equal(&b, &b2));
    gat_block_destroy(&b2);

    gat_csr x, bx;
    tu_features(&x, 50, 6, 0.5, 3);
    ASSERT_FAILS(gat_block_features(NULL, &x, &bx), GAT_EINVAL, "NULL block b");
    ASSERT_FAILS(gat_block_features(&b, NULL, &bx), GAT_EINVAL, "NULL features x");
    ASSERT_FAILS(gat_block_features(&b, &x, NULL), GAT_EINVAL, "NULL out");
    gat_csr small;
    tu_features(&small, 5, 6, 0.5, 3);
    ASSERT_FAILS(gat_block_features(&b, &small, &bx), GAT_EINVAL, "not a row of the features");
    ck_assert_int_eq(gat_block_features(&b, &x, &bx), GAT_OK);
    ck_assert_int_eq(gat_csr_check(&bx), GAT_OK);
    for (gat_idx k = 0; k < b.n; k++) {
        const gat_idx v = b.nodes[k], c = x.rowptr[v + 1] - x.rowptr[v];
        ck_assert_int_eq(bx.rowptr[k + 1] - bx.rowptr[k], c);
        ck_assert(!memcmp(bx.col + bx.rowptr[k], x.col + x.rowptr[v], (size_t)c * sizeof(gat_idx)));
        ck_assert(!memcmp(bx.val + bx.rowptr[k], x.val + x.rowptr[v], (size_t)c * sizeof(gat_real)));
    }
    gat_csr_destroy(&bx);
    gat_csr_destroy(&small);
    gat_csr_destroy(&x);
    gat_block_destroy(&b);
    gat_block_destroy(&b);  /* destroy twice: a zeroed block */
    gat_block_destroy(NULL);
    gat_sampler_free(NULL);
    gat_sampler_free(s2);
    gat_sampler_free(s);
    gat_graph_destroy(&g);
}
END_TEST

/* Allocation k of create and of a draw fails, k = 0, 1, ...: GAT_ENOMEM, nothing leaked (ASan),
 * and the sampler draws the same block afterwards. */
START_TEST(allocation_failures)
{
    gat_graph g;
    random_graph(&g, 3000, 20000, GAT_GRAPH_SYMMETRIZE, 2);
    const gat_idx fan[2] = {8, 8};
    gat_idx *t = some_nodes(g.n, 200, 1);
    gat_sampler *s = NULL;
    long k = 0;
    for (;; k++) {
        gat_i_alloc_fail_at(k);
        gat_status st = gat_sampler_create(&s, &g, 2, fan, 3);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_ptr_null(s);
    }
    ck_assert_int_gt(k, 0);
    gat_block ref, b;
    ck_assert_int_eq(gat_sampler_sample(s, t, 200, 1, &ref), GAT_OK);
    for (k = 0;; k++) {
        gat_i_alloc_fail_at(k);
        gat_status st = gat_sampler_sample(s, t, 200, 1, &b);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_int_eq(b.n, 0);
    }
    ck_assert_int_gt(k, 3);
    ck_assert(blocks_equal(&ref, &b));
    gat_block_destroy(&b);
    gat_block_destroy(&ref);
    gat_sampler_free(s);
    free(t);
    gat_graph_destroy(&g);
}
END_TEST

/* ---- the loader (gat_loader) ---- */

/* Features for a graph of n nodes: row i holds (i % 5) + 1 values i + c at columns 2c. */
static void some_features(gat_csr *x, gat_idx n)
{
    size_t nnz = 0;
    for (gat_idx i = 0; i < n; i++) nnz += (size_t)(i % 5) + 1;
    ck_assert_int_eq(gat_csr_init(x, n, 10, nnz), GAT_OK);
    x->rowptr[0] = 0;
    for (gat_idx i = 0; i < n; i++) {
        gat_idx at = x->rowptr[i];
        for (gat_idx c = 0; c <= i % 5; c++, at++) {
            x->col[at] = 2 * c;
            x->val[at] = (gat_real)(i + c);
        }
        x->rowptr[i + 1] = at;
    }
}

static int csr_equal(const gat_csr *a, const gat_csr *b)
{
    if (a->rows != b->rows || a->cols != b->cols ||
        memcmp(a->rowptr, b->rowptr, ((size_t)a->rows + 1) * sizeof(gat_idx)))
        return 0;
    const size_t nnz = (size_t)a->rowptr[a->rows];
    return !memcmp(a->col, b->col, nnz * sizeof(gat_idx)) &&
           !memcmp(a->val, b->val, nnz * sizeof(gat_real));
}

/* Batch k of a loader is the sampler's block of targets order[kB..] at step step0 + k with its
 * features and edge features, with the look-ahead on or off and on 1 or 2 (fixed) threads; at
 * most two batches are alive at once; after the last batch come NULLs. */
START_TEST(loader_batches_are_the_blocks)
{
    gat_graph g;
    random_graph(&g, 40000, 400000, GAT_GRAPH_SYMMETRIZE, 21);
    gat_csr x;
    some_features(&x, g.n);
    const gat_idx fan[2] = {10, 5}, N = 5000, B = 1024, D = 3;
    gat_real *ex = malloc((size_t)g.nnz * D * sizeof *ex);
    ck_assert_ptr_nonnull(ex);
    for (size_t v = 0; v < (size_t)g.nnz * D; v++) ex[v] = (gat_real)v;
    gat_idx *order = some_nodes(g.n, N, 9);
    gat_sampler *ref, *s;
    ck_assert_int_eq(gat_sampler_create(&ref, &g, 2, fan, 5), GAT_OK);
    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, fan, 5), GAT_OK);
    gat_sampler_set_fixed_threads(s, 1);
    for (int c = 0; c < 4; c++) {
        const int ahead = c & 1, nt = 1 + (c >> 1);
        gat_sampler_set_threads(s, nt);
        gat_loader *l;
        ck_assert_int_eq(gat_loader_create(&l, s, &x, ex, D, order, N, B, 100, ahead), GAT_OK);
        const gat_batch *b;
        gat_idx k = 0;
        for (; gat_loader_next(l, &b) == GAT_OK && b; k++) {
            const gat_idx nb = N - k * B < B ? N - k * B : B;
            gat_block want;
            gat_csr wx;
            ck_assert_int_eq(gat_sampler_sample(ref, order + k * B, nb, 100 + (uint64_t)k, &want),
                             GAT_OK);
            ck_assert_int_eq(gat_block_features(&want, &x, &wx), GAT_OK);
            ck_assert_msg(blocks_equal(&want, &b->block), "batch %d (look-ahead %d, %d threads) "
                          "is not the sampler's block", k, ahead, nt);
            ck_assert(csr_equal(&wx, &b->x));
            ck_assert_uint_eq(b->step, 100 + (uint64_t)k);
            for (gat_idx e = 0; e < b->block.graph.nnz; e++)
                for (gat_idx d = 0; d < D; d++)
                    ck_assert(b->edge_x[(size_t)e * D + d] ==
                              (gat_real)((size_t)b->block.edge_parent[e] * D + d));
            gat_block_destroy(&want);
            gat_csr_destroy(&wx);
        }
        ck_assert_int_eq(k, 5);
        ck_assert_int_eq(gat_loader_next(l, &b), GAT_OK);
        ck_assert_ptr_null(b);
        const int peak = gat_i_loader_peak(l);
        ck_assert_msg(peak >= 1 && peak <= 2, "%d batches alive at once", peak);
        double draw_s = -1, wait_s = -1, sample_s = -1, features_s = -1;
        gat_loader_times(l, &draw_s, &wait_s);
        ck_assert(draw_s >= 0 && wait_s >= 0);
        /* the drawing's two parts add up to it */
        gat_loader_draw_times(l, &sample_s, &features_s);
        ck_assert(sample_s >= 0 && features_s >= 0);
        ck_assert_msg(fabs(sample_s + features_s - draw_s) <= 1e-9 * (1 + draw_s),
                      "sampling %g s + features %g s != drawing %g s", sample_s, features_s,
                      draw_s);
        gat_loader_free(l);
    }
    gat_sampler_free(ref);
    gat_sampler_free(s);
    free(order);
    free(ex);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

/* Threads of this process now (Linux: /proc/self/task), or -1. */
static int process_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A failed draw (a repeated target in the second batch) reaches gat_loader_next with its status
 * and message, with or without look-ahead, and again on every later call; freeing a loader with
 * a draw under way or ahead joins its thread. Bad arguments name themselves. */
START_TEST(loader_failures)
{
    gat_graph g;
    random_graph(&g, 3000, 20000, GAT_GRAPH_SYMMETRIZE, 2);
    gat_csr x;
    some_features(&x, g.n);
    const gat_idx fan[2] = {4, 4};
    gat_idx *order = some_nodes(g.n, 300, 1);
    order[150] = order[120]; /* batch 1 (targets 100..199) repeats a target */
    gat_sampler *s;
    ck_assert_int_eq(gat_sampler_create(&s, &g, 2, fan, 3), GAT_OK);
    const int threads0 = process_threads();
    for (int ahead = 0; ahead < 2; ahead++) {
        gat_loader *l;
        const gat_batch *b;
        ck_assert_int_eq(gat_loader_create(&l, s, &x, NULL, 0, order, 300, 100, 1, ahead),
                         GAT_OK);
        ck_assert_int_eq(gat_loader_next(l, &b), GAT_OK);
        ck_assert_ptr_nonnull(b);
        ck_assert_ptr_null(b->edge_x);
        for (int again = 0; again < 2; again++) {
            ASSERT_FAILS(gat_loader_next(l, &b), GAT_EINVAL, "targets[50] = ");
            ck_assert_ptr_nonnull(strstr(gat_last_error(), "repeats targets[20]"));
            ck_assert_ptr_null(b);
        }
        gat_loader_free(l);
        /* freed at once: the thread is drawing batch 0 or holds it */
        ck_assert_int_eq(gat_loader_create(&l, s, &x, NULL, 0, order, 300, 100, 1, ahead),
                         GAT_OK);
        gat_loader_free(l);
    }
    if (threads0 > 0) ck_assert_int_eq(process_threads(), threads0);
    gat_loader *l = (gat_loader *)&g;
    const gat_batch *b;
    const gat_real ex[1] = {0};
    ASSERT_FAILS(gat_loader_create(NULL, s, &x, NULL, 0, order, 300, 100, 1, 1), GAT_EINVAL,
                 "NULL out");
    ASSERT_FAILS(gat_loader_create(&l, NULL, &x, NULL, 0, order, 300, 100, 1, 1), GAT_EINVAL,
                 "NULL sampler s");
    ck_assert_ptr_null(l);
    ASSERT_FAILS(gat_loader_create(&l, s, NULL, NULL, 0, order, 300, 100, 1, 1), GAT_EINVAL,
                 "NULL features x");
    ASSERT_FAILS(gat_loader_create(&l, s, &x, NULL, 0, NULL, 300, 100, 1, 1), GAT_EINVAL,
                 "NULL order");
    ASSERT_FAILS(gat_loader_create(&l, s, &x, NULL, 0, order, 0, 100, 1, 1), GAT_EINVAL,
                 "n = 0, expected at least 1");
    ASSERT_FAILS(gat_loader_create(&l, s, &x, NULL, 0, order, 300, 0, 1, 1), GAT_EINVAL,
                 "batch_size = 0");
    ASSERT_FAILS(gat_loader_create(&l, s, &x, ex, -1, order, 300, 100, 1, 1), GAT_EINVAL,
                 "D < 0");
    ASSERT_FAILS(gat_loader_create(&l, s, &x, NULL, 2, order, 300, 100, 1, 1), GAT_EINVAL,
                 "NULL edge_x with D > 0");
    ASSERT_FAILS(gat_loader_next(NULL, &b), GAT_EINVAL, "NULL l");
    gat_loader_free(NULL);
    gat_loader_times(NULL, NULL, NULL);
    gat_loader_draw_times(NULL, NULL, NULL);
    double zs = -1, zf = -1;
    gat_loader_draw_times(NULL, &zs, &zf);
    ck_assert(zs == 0 && zf == 0);
    /* allocation failures without look-ahead (the hook is per thread): GAT_ENOMEM, no leak */
    order[150] = order[299];
    long k = 0;
    for (;; k++) {
        gat_i_alloc_fail_at(k);
        gat_status st = gat_loader_create(&l, s, &x, NULL, 0, order, 300, 100, 1, 0);
        if (st == GAT_OK) st = gat_loader_next(l, &b);
        gat_i_alloc_fail_at(-1);
        if (st == GAT_OK) break;
        ck_assert_int_eq(st, GAT_ENOMEM);
        ck_assert_ptr_null(b);
        gat_loader_free(l);
        l = NULL;
    }
    ck_assert_int_gt(k, 3);
    gat_loader_free(l);
    gat_sampler_free(s);
    free(order);
    gat_csr_destroy(&x);
    gat_graph_destroy(&g);
}
END_TEST

/* ---- mini-batch training (gat_train with batch_size > 0) on Cora ---- */

static gat_dataset cora;
static int cora_loaded;

static void load_cora(void)
{
    if (cora_loaded) return;
    ck_assert_int_eq(gat_dataset_load(&cora, tu_dataset("cora"), NULL), GAT_OK);
    cora_loaded = 1;
}

typedef struct losses {
    double train[64], val[64];
    int n;
} losses;

static int record(const gat_epoch_info *e, void *user)
{
    losses *l = user;
    if (l->n < 64) {
        l->train[l->n] = e->train_loss;
        l->val[l->n++] = e->val_loss;
    }
    return 0;
}

static gat_model *cora_model(uint64_t seed, int threads, double dropout)
{
    gat_model_config mc;
    gat_model_config_default(&mc, cora.n_features, cora.n_classes);
    mc.in_dropout = mc.att_dropout = dropout;
    gat_model *m;
    ck_assert_int_eq(tu_model_create(&m, &mc, seed), GAT_OK);
    gat_model_set_threads(m, threads);
    return m;
}

/* Every neighbour and one batch of all training nodes, dropout off: the losses of full-graph
 * training, epoch by epoch, to 1e-5 relative (only the summation order differs). */
START_TEST(all_neighbours_match_full_graph)
{
    load_cora();
    losses full = {0}, mb = {0};
    for (int pass = 0; pass < 2; pass++) {
        gat_model *m = cora_model(3, 2, 0);
        gat_train_config tc;
        gat_train_config_default(&tc);
        tc.max_epochs = 30;
        tc.progress = record;
        tc.user = pass ? &mb : &full;
        if (pass) {
            tc.batch_size = cora.n_train;
            tc.n_fanout = 2;
            tc.fanout[0] = tc.fanout[1] = -1;
            tc.seed = 9;
        }
        gat_train_result r;
        ck_assert_int_eq(gat_train(m, &cora, &tc, &r), GAT_OK);
        gat_model_free(m);
    }
    ck_assert_int_eq(full.n, 30);
    ck_assert_int_eq(mb.n, 30);
    for (int e = 0; e < 30; e++) {
        ck_assert_msg(fabs(mb.train[e] - full.train[e]) <= 1e-5 * fabs(full.train[e]),
                      "epoch %d: training loss %.9g, full graph %.9g", e + 1, mb.train[e],
                      full.train[e]);
        ck_assert_msg(fabs(mb.val[e] - full.val[e]) <= 1e-5 * fabs(full.val[e]),
                      "epoch %d: validation loss %.9g, full graph %.9g", e + 1, mb.val[e],
                      full.val[e]);
    }
    /* sampled neighbourhoods are another training: the losses move apart */
    losses sampled = {0};
    gat_model *m = cora_model(3, 2, 0);
    gat_train_config tc;
    gat_train_config_default(&tc);
    tc.max_epochs = 30;
    tc.progress = record;
    tc.user = &sampled;
    tc.batch_size = cora.n_train;
    tc.n_fanout = 2;
    tc.fanout[0] = tc.fanout[1] = 2;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_OK);
    ck_assert(fabs(sampled.train[29] - full.train[29]) > 1e-3 * fabs(full.train[29]));
    gat_model_free(m);
}
END_TEST

/* Small batches with dropout: the parameters after training are bit-identical for a seed on 1
 * and 2 threads, with the look-ahead on or off and across repeated runs; another seed trains
 * another model; a batch larger than the training set is one step per epoch. */
START_TEST(minibatch_training_repeats)
{
    load_cora();
    gat_real *ref = NULL;
    size_t P = 0;
    for (int run = 0; run < 5; run++) {
        gat_model *m = cora_model(1, run == 1 ? 1 : 2, 0.6);
        gat_train_config tc;
        gat_train_config_default(&tc);
        tc.max_epochs = 4;
        tc.batch_size = run == 3 ? 100000 : 32;
        tc.n_fanout = 2;
        tc.fanout[0] = 10;
        tc.fanout[1] = 5;
        tc.seed = run == 2 ? 8 : 7;
        tc.lookahead = run != 4; /* run 4: each batch drawn in turn */
        gat_train_result r;
        ck_assert_int_eq(gat_train(m, &cora, &tc, &r), GAT_OK);
        ck_assert_int_eq(r.epochs, 4);
        const gat_real *p = gat_model_params(m, &P);
        if (run == 0) {
            ref = malloc(P * sizeof *ref);
            ck_assert_ptr_nonnull(ref);
            memcpy(ref, p, P * sizeof *ref);
        } else if (run == 1 || run == 4) {
            ck_assert_msg(!memcmp(ref, p, P * sizeof *ref), "%s trained another model",
                          run == 1 ? "1 thread" : "no look-ahead");
        } else {
            ck_assert_msg(memcmp(ref, p, P * sizeof *ref), "run %d trained the same model", run);
        }
        gat_model_free(m);
    }
    free(ref);
}
END_TEST

typedef struct stage_log {
    int n, updates, last_total;
} stage_log;

static void on_stage(const gat_stage_info *s, void *user)
{
    stage_log *l = user;
    l->n++;
    l->updates += s->stage == GAT_STAGE_UPDATE;
    l->last_total = s->total;
    ck_assert_int_le(s->done, s->total);
}

static int stop_after(void *user)
{
    int *left = user;
    return --*left <= 0;
}

/* The stop callback ends training between two steps of an epoch: GAT_EINTERRUPTED, the epochs
 * finished so far counted, the best model restored (and evaluated). */
START_TEST(stop_between_steps)
{
    load_cora();
    gat_model *m = cora_model(1, 1, 0.6);
    gat_train_config tc;
    const int threads0 = process_threads();
    gat_train_config_default(&tc);
    tc.lookahead = _i; /* stopped with the next batch drawn or being drawn, or without */
    tc.batch_size = 10; /* 14 steps per epoch */
    tc.n_fanout = 2;
    tc.fanout[0] = tc.fanout[1] = 3;
    int left = 13 * 2 + 6; /* polled after steps 1..13 of each epoch: the 6th poll of epoch 3 */
    tc.stop = stop_after;
    tc.user = &left;
    gat_train_result r;
    ASSERT_FAILS(gat_train(m, &cora, &tc, &r), GAT_EINTERRUPTED,
                 "training stopped by the caller during epoch 3, after mini-batch 6 of 14");
    ck_assert_int_eq(r.epochs, 2);
    ck_assert(r.best_epoch >= 1 && r.best_epoch <= 2);
    ck_assert(r.val_acc > 0);
    /* the loader's thread was joined: the threads of before, and none more */
    if (threads0 > 0) ck_assert_int_eq(process_threads(), threads0);
    gat_model_free(m);
}
END_TEST

/* The stop callback's count of the process's threads after the first step (it stops there) */
static int count_then_stop(void *user)
{
    *(int *)user = process_threads();
    return 1;
}

/* Threads of the process after the first mini-batch step of gat_train with this look-ahead on a
 * Cora model of the given threads. */
static int threads_in_epoch(int threads, int lookahead)
{
    gat_model *m = cora_model(1, threads, 0.6);
    /* the same threads in every run (the governor's choice would change the OpenMP teams) */
    const gat_model_options fixed = {.fixed_threads = 1};
    ck_assert_int_eq(gat_model_set_options(m, &fixed), GAT_OK);
    gat_train_config tc;
    int seen = -1;
    gat_train_config_default(&tc);
    tc.lookahead = lookahead;
    tc.batch_size = 10;
    tc.n_fanout = 2;
    tc.fanout[0] = tc.fanout[1] = 3;
    tc.stop = count_then_stop;
    tc.user = &seen;
    gat_train_result r;
    ck_assert_int_eq(gat_train(m, &cora, &tc, &r), GAT_EINTERRUPTED);
    gat_model_free(m);
    return seen;
}

/* The default look-ahead (-1) draws ahead, on a thread of its own, when the model's threads
 * leave a processor free, and in turn when they take all processors; values beyond -1..1 are
 * refused. */
START_TEST(lookahead_when_a_processor_is_free)
{
    load_cora();
    gat_train_config tc;
    gat_train_config_default(&tc);
    ck_assert_int_eq(tc.lookahead, -1);
    if (process_threads() < 0) return; /* no /proc/self/task to count in */
    const int procs = omp_get_num_procs();
    for (int threads = 1; threads <= 2; threads++) {
        const int off = threads_in_epoch(threads, 0), on = threads_in_epoch(threads, 1);
        const int dflt = threads_in_epoch(threads, -1);
        ck_assert_msg(on > off, "%d threads: %d with the look-ahead, %d without", threads, on, off);
        ck_assert_msg(dflt == (threads < procs ? on : off),
                      "%d model threads on %d processors: %d threads in the epoch by default, "
                      "%d with the look-ahead, %d without",
                      threads, procs, dflt, on, off);
    }
    gat_model *m = cora_model(1, 1, 0.6);
    tc.batch_size = 10;
    tc.n_fanout = 2;
    tc.fanout[0] = tc.fanout[1] = 3;
    tc.lookahead = 2;
    gat_train_result r;
    ASSERT_FAILS(gat_train(m, &cora, &tc, &r), GAT_EINVAL,
                 "lookahead = 2, expected -1 (when a processor is free), 0 or 1");
    gat_model_free(m);
}
END_TEST

/* Validation every 3 epochs and after the last: NaN in between, the best model picked among
 * the validated epochs. */
START_TEST(eval_every)
{
    load_cora();
    gat_model *m = cora_model(1, 1, 0.6);
    gat_train_config tc;
    gat_train_config_default(&tc);
    tc.max_epochs = 7;
    tc.eval_every = 3;
    tc.batch_size = 64;
    tc.n_fanout = 2;
    tc.fanout[0] = tc.fanout[1] = 5;
    losses l = {0};
    tc.progress = record;
    tc.user = &l;
    gat_train_result r;
    ck_assert_int_eq(gat_train(m, &cora, &tc, &r), GAT_OK);
    ck_assert_int_eq(l.n, 7);
    for (int e = 1; e <= 7; e++)
        ck_assert_msg(isfinite(l.val[e - 1]) == (e % 3 == 0 || e == 7),
                      "epoch %d: validation loss %g", e, l.val[e - 1]);
    ck_assert(r.best_epoch == 3 || r.best_epoch == 6 || r.best_epoch == 7);
    tc.eval_every = -1;
    ASSERT_FAILS(gat_train(m, &cora, &tc, NULL), GAT_EINVAL, "eval_every = -1");
    gat_model_free(m);
}
END_TEST

START_TEST(bad_config_and_stages)
{
    load_cora();
    gat_model *m = cora_model(1, 1, 0.6);
    gat_train_config tc;
    gat_train_config_default(&tc);
    tc.max_epochs = 1;
    tc.batch_size = -1;
    ASSERT_FAILS(gat_train(m, &cora, &tc, NULL), GAT_EINVAL, "batch_size = -1");
    tc.batch_size = 16;
    tc.n_fanout = 3;
    ASSERT_FAILS(gat_train(m, &cora, &tc, NULL), GAT_EINVAL, "n_fanout = 3 fan-outs for a model "
                 "of 2 layers");
    tc.n_fanout = 1;
    ASSERT_FAILS(gat_train(m, &cora, &tc, NULL), GAT_EINVAL, "n_fanout = 1");
    tc.n_fanout = 2;
    tc.fanout[1] = -3;
    ASSERT_FAILS(gat_train(m, &cora, &tc, NULL), GAT_EINVAL, "fanout[1] = -3");
    tc.fanout[1] = 0; /* no neighbour at the second hop: valid */
    tc.fanout[0] = 4;
    stage_log sl = {0};
    tc.stage = on_stage;
    tc.user = &sl;
    tc.max_epochs = 2;
    ck_assert_int_eq(gat_train(m, &cora, &tc, NULL), GAT_OK);
    /* 140 / 16 = 9 steps and 2 validation layers per epoch */
    ck_assert_int_eq(sl.updates, 18);
    ck_assert_int_eq(sl.n, 22);
    ck_assert_int_eq(sl.last_total, 11);
    gat_model_free(m);
}
END_TEST

static Suite *sample_suite(void)
{
    Suite *s = suite_create("sample");
    if (tu_variant_index() == 0) { /* the sampler runs no kernels: once */
        TCase *tc = tcase_create("sampler");
        tcase_add_test(tc, blocks_follow_the_definition);
        tcase_add_test(tc, fanout_all_is_the_neighbourhood);
        tcase_add_test(tc, blocks_are_deterministic);
        tcase_add_test(tc, draws_are_uniform);
        tcase_add_test(tc, bad_input);
        tcase_add_test(tc, allocation_failures);
        tcase_add_test(tc, loader_batches_are_the_blocks);
        tcase_add_test(tc, loader_failures);
        suite_add_tcase(s, tc);
    }
    TCase *tt = tcase_create("minibatch");
    tcase_add_test(tt, all_neighbours_match_full_graph);
    tcase_add_test(tt, minibatch_training_repeats);
    tcase_add_test(tt, bad_config_and_stages);
    tcase_add_loop_test(tt, stop_between_steps, 0, 2);
    tcase_add_test(tt, lookahead_when_a_processor_is_free);
    tcase_add_test(tt, eval_every);
    suite_add_tcase(s, tt);
    return s;
}

/* the mini-batch tests once per kernel build and alpha storage (tu_variants) */
int main(void)
{
    const int rc = tu_run_variants(sample_suite);
    if (cora_loaded) gat_dataset_destroy(&cora);
    return rc;
}
