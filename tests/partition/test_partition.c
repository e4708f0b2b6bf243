/* Partitions and part files (gat/partition.h): Cora into 1..4 parts, every node owned once, the
 * parts' in-edges mapped back to global ids equal the graph's, halo lists and owners, the edge
 * cuts counted independently, owned features/labels/split equal the dataset's, identical files
 * from two runs; bad arguments, missing, mismatched and truncated files; allocation failures. */
#include "testutil.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gat_dataset cora;

static void load_cora(void)
{
    ck_assert_int_eq(gat_dataset_load(&cora, "cora", NULL), GAT_OK);
}

static void free_cora(void)
{
    gat_dataset_destroy(&cora);
}

static int cmp_idx(const void *a, const void *b)
{
    const gat_idx x = *(const gat_idx *)a, y = *(const gat_idx *)b;
    return (x > y) - (x < y);
}

/* Partitions ds into k parts (seed 1) in a new directory (returned, tu_rmtree); assign gets
 * the computed parts (caller's (n) array), *cut the edge cut. */
static char *partition(const gat_dataset *ds, gat_idx k, gat_idx *assign, int64_t *cut)
{
    char *dir = tu_tmpdir();
    ck_assert_msg(gat_partition_compute(ds, k, NULL, assign, cut) == GAT_OK, "%s",
                  gat_last_error());
    ck_assert_msg(gat_partition_save(ds, k, assign, *cut, dir, "cora") == GAT_OK, "%s",
                  gat_last_error());
    return dir;
}

/* Every part of dir checked against ds and assign: ownership, edges, halo, node data, counts. */
static void check_partition(const gat_dataset *ds, gat_idx k, const gat_idx *assign, int64_t cut,
                            const char *dir)
{
    const gat_graph *g = &ds->graph;
    const gat_idx n = ds->n;
    gat_partition_manifest m;
    gat_idx *owned_by = malloc((size_t)n * sizeof *owned_by);
    gat_idx *row = malloc((size_t)n * sizeof *row);
    int *used = NULL;
    int64_t cut_in = 0, total_edges = 0;
    ck_assert_ptr_nonnull(owned_by);
    ck_assert_ptr_nonnull(row);
    for (gat_idx i = 0; i < n; i++)
        owned_by[i] = -1;
    ck_assert_msg(gat_partition_manifest_load(&m, dir) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(m.n_parts, k);
    ck_assert_int_eq(m.n_nodes, n);
    ck_assert_int_eq(m.n_edges, g->nnz);
    ck_assert_int_eq(m.n_features, ds->n_features);
    ck_assert_int_eq(m.n_classes, ds->n_classes);
    ck_assert(m.fingerprint == gat_dataset_fingerprint(ds));
    ck_assert_int_eq(m.edge_cut, cut);
    ck_assert_str_eq(m.name, "cora");
    for (gat_idx q = 0; q < k; q++) {
        gat_part p;
        ck_assert_msg(gat_part_load(&p, dir, q) == GAT_OK, "part %d: %s", q, gat_last_error());
        ck_assert_int_eq(p.part, q);
        ck_assert_int_eq(p.n_parts, k);
        ck_assert_int_eq(p.n_global, n);
        ck_assert_int_eq(p.n_owned, m.part_nodes[q]);
        ck_assert_int_eq(p.nnz, m.part_edges[q]);
        ck_assert_int_eq(p.n_halo, m.part_halo[q]);
        ck_assert_int_eq(p.rowptr[p.n_owned], p.nnz);
        free(used);
        used = calloc((size_t)p.n_halo + 1, sizeof *used);
        ck_assert_ptr_nonnull(used);
        gat_idx train = 0;
        for (gat_idx r = 0; r < p.n_owned; r++) {
            const gat_idx i = p.global_ids[r];
            ck_assert_int_ge(i, 0);
            ck_assert_int_lt(i, n);
            ck_assert_msg(owned_by[i] == -1, "node %d owned by parts %d and %d", i, owned_by[i], q);
            owned_by[i] = q;
            ck_assert_int_eq(assign[i], q);
            if (r > 0) ck_assert_int_gt(i, p.global_ids[r - 1]);
            /* the in-edges of i: local sources mapped back equal the graph's row exactly */
            const gat_idx deg = p.rowptr[r + 1] - p.rowptr[r];
            ck_assert_int_eq(deg, g->rowptr[i + 1] - g->rowptr[i]);
            for (gat_idx e = p.rowptr[r]; e < p.rowptr[r + 1]; e++) {
                const gat_idx c = p.col[e];
                ck_assert_int_ge(c, 0);
                ck_assert_int_lt(c, p.n_owned + p.n_halo);
                if (e > p.rowptr[r]) ck_assert_int_gt(c, p.col[e - 1]);
                row[e - p.rowptr[r]] = p.global_ids[c];
                if (c >= p.n_owned) used[c - p.n_owned] = 1, cut_in++;
            }
            qsort(row, (size_t)deg, sizeof *row, cmp_idx);
            ck_assert_msg(!memcmp(row, g->col + g->rowptr[i], (size_t)deg * sizeof *row),
                          "part %d: the in-edges of node %d differ from the graph's", q, i);
            total_edges += deg;
            /* the owned node's data */
            ck_assert_int_eq(p.labels[r], ds->labels[i]);
            ck_assert_int_eq(p.split[r], ds->split[i]);
            ck_assert_str_eq(p.node_ids[r], ds->node_ids[i]);
            train += p.split[r] == GAT_SPLIT_TRAIN;
            const gat_idx f0 = ds->x.rowptr[i], nf = ds->x.rowptr[i + 1] - f0;
            ck_assert_int_eq(p.x.rowptr[r + 1] - p.x.rowptr[r], nf);
            ck_assert(!memcmp(p.x.col + p.x.rowptr[r], ds->x.col + f0, (size_t)nf * sizeof(gat_idx)));
            ck_assert(!memcmp(p.x.val + p.x.rowptr[r], ds->x.val + f0, (size_t)nf * sizeof(gat_real)));
        }
        ck_assert_int_eq(train, m.part_train[q]);
        ck_assert_int_eq(p.n_train, train);
        /* halo: owned elsewhere by the named owner, a source of some edge, sorted by owner */
        for (gat_idx h = 0; h < p.n_halo; h++) {
            const gat_idx j = p.global_ids[p.n_owned + h];
            ck_assert_int_ne(assign[j], q);
            ck_assert_int_eq(p.halo_owner[h], assign[j]);
            ck_assert_msg(used[h], "halo node %d (global %d) of part %d is no edge's source",
                          p.n_owned + h, j, q);
            if (h > 0) ck_assert_int_ge(p.halo_owner[h], p.halo_owner[h - 1]);
        }
        ck_assert_int_eq(p.n_classes, ds->n_classes);
        ck_assert_str_eq(p.class_names[0], ds->class_names[0]);
        gat_part_destroy(&p);
        ck_assert_ptr_null(p.storage);
    }
    for (gat_idx i = 0; i < n; i++)
        ck_assert_msg(owned_by[i] >= 0, "node %d owned by no part", i);
    ck_assert_int_eq(total_edges, g->nnz);
    /* the cuts, counted here: directed in-edges across parts, and undirected pairs (i, j) */
    int64_t want_in = 0, want_cut = 0;
    for (gat_idx i = 0; i < n; i++)
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
            const gat_idx j = g->col[e];
            want_in += assign[j] != assign[i];
            want_cut += assign[j] != assign[i] && j < i; /* Cora's graph is symmetric */
        }
    ck_assert_int_eq(cut_in, want_in);
    ck_assert_int_eq(m.cut_in_edges, want_in);
    ck_assert_int_eq(cut, want_cut);
    if (k == 1) ck_assert_int_eq(want_in, 0);
    gat_partition_manifest_destroy(&m);
    free(owned_by);
    free(row);
    free(used);
}

START_TEST(cora_parts)
{
    const gat_idx k = (gat_idx)_i;
    gat_idx *assign = malloc((size_t)cora.n * sizeof *assign);
    int64_t cut = -1;
    char *dir = partition(&cora, k, assign, &cut);
    check_partition(&cora, k, assign, cut, dir);
    /* balanced: no part above 1.1 n / k nodes (METIS's tolerance is 1.03 per constraint) */
    gat_idx *size = calloc((size_t)k, sizeof *size);
    for (gat_idx i = 0; i < cora.n; i++)
        size[assign[i]]++;
    for (gat_idx q = 0; q < k; q++)
        ck_assert_msg(size[q] > 0 && size[q] <= 1.1 * cora.n / k + 1, "part %d has %d of %d nodes",
                      q, size[q], cora.n);
    free(size);
    tu_rmtree(dir);
    free(dir);
    free(assign);
}
END_TEST

/* Without the training constraint (two constraints) and with another seed: still a partition. */
START_TEST(options)
{
    gat_idx *a = malloc((size_t)cora.n * sizeof *a);
    int64_t cut;
    gat_partition_options o;
    gat_partition_options_default(&o);
    ck_assert_int_eq(o.seed, 1);
    ck_assert_int_eq(o.balance_train, 1);
    o.balance_train = 0;
    o.seed = 7;
    ck_assert_msg(gat_partition_compute(&cora, 2, &o, a, &cut) == GAT_OK, "%s", gat_last_error());
    char *dir = tu_tmpdir();
    ck_assert_int_eq(gat_partition_save(&cora, 2, a, cut, dir, "cora"), GAT_OK);
    check_partition(&cora, 2, a, cut, dir);
    tu_rmtree(dir);
    free(dir);
    free(a);
}
END_TEST

/* Reads a whole file (for byte comparisons). */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*len + 1);
    ck_assert_uint_eq(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

static void same_file(const char *a, const char *b, const char *name)
{
    char pa[4096], pb[4096];
    size_t la, lb;
    snprintf(pa, sizeof pa, "%s/%s", a, name);
    snprintf(pb, sizeof pb, "%s/%s", b, name);
    unsigned char *x = slurp(pa, &la), *y = slurp(pb, &lb);
    ck_assert_msg(la == lb && !memcmp(x, y, la), "%s differs between two runs", name);
    free(x);
    free(y);
}

START_TEST(deterministic)
{
    const gat_idx k = 3;
    gat_idx *a = malloc((size_t)cora.n * sizeof *a), *b = malloc((size_t)cora.n * sizeof *b);
    int64_t ca, cb;
    char *da = partition(&cora, k, a, &ca), *db = partition(&cora, k, b, &cb);
    ck_assert(!memcmp(a, b, (size_t)cora.n * sizeof *a));
    ck_assert_int_eq(ca, cb);
    same_file(da, db, "manifest.json");
    same_file(da, db, "part-0.gatd");
    same_file(da, db, "part-1.gatd");
    same_file(da, db, "part-2.gatd");
    tu_rmtree(da);
    tu_rmtree(db);
    free(da);
    free(db);
    free(a);
    free(b);
}
END_TEST

/* A hand-made assignment saves and reads back as METIS's does (save takes any partition). */
START_TEST(given_assignment)
{
    gat_idx *a = malloc((size_t)cora.n * sizeof *a);
    for (gat_idx i = 0; i < cora.n; i++)
        a[i] = i % 3 == 0 ? 2 : i % 2;
    char *dir = tu_tmpdir();
    ck_assert_int_eq(gat_partition_save(&cora, 3, a, 0, dir, "cora"), GAT_OK);
    int64_t want = 0;
    for (gat_idx i = 0; i < cora.n; i++)
        for (gat_idx e = cora.graph.rowptr[i]; e < cora.graph.rowptr[i + 1]; e++)
            want += a[cora.graph.col[e]] != a[i] && cora.graph.col[e] < i;
    /* the manifest records the cut it is given; check_partition compares with the real one */
    ck_assert_int_eq(gat_partition_save(&cora, 3, a, want, dir, "cora"), GAT_OK);
    check_partition(&cora, 3, a, want, dir);
    tu_rmtree(dir);
    free(dir);
    free(a);
}
END_TEST

static void copy_file(const char *from, const char *to)
{
    size_t len;
    unsigned char *b = slurp(from, &len);
    FILE *f = fopen(to, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
}

START_TEST(bad_arguments)
{
    gat_idx *a = malloc((size_t)cora.n * sizeof *a);
    int64_t cut;
    char *dir = tu_tmpdir();
    ASSERT_FAILS(gat_partition_compute(&cora, 0, NULL, a, &cut), GAT_EINVAL, "k = 0 parts for 2708 nodes");
    ASSERT_FAILS(gat_partition_compute(&cora, -3, NULL, a, &cut), GAT_EINVAL, "k = -3 parts");
    ASSERT_FAILS(gat_partition_compute(&cora, 2709, NULL, a, &cut), GAT_EINVAL, "k = 2709 parts for 2708 nodes");
    ASSERT_FAILS(gat_partition_compute(NULL, 2, NULL, a, &cut), GAT_EINVAL, "NULL dataset ds");
    ASSERT_FAILS(gat_partition_compute(&cora, 2, NULL, NULL, &cut), GAT_EINVAL, "NULL part");
    ASSERT_FAILS(gat_partition_compute(&cora, 2, NULL, a, NULL), GAT_EINVAL, "NULL edge_cut");
    gat_partition_options o;
    gat_partition_options_default(&o);
    o.seed = -1;
    ASSERT_FAILS(gat_partition_compute(&cora, 2, &o, a, &cut), GAT_EINVAL, "seed -1 is negative");
    ck_assert_int_eq(gat_partition_compute(&cora, 1, NULL, a, &cut), GAT_OK);
    ck_assert_int_eq(cut, 0);
    for (gat_idx i = 0; i < cora.n; i++)
        ck_assert_int_eq(a[i], 0);
    ASSERT_FAILS(gat_partition_save(&cora, 0, a, 0, dir, NULL), GAT_EINVAL, "k = 0 parts");
    ASSERT_FAILS(gat_partition_save(&cora, 2709, a, 0, dir, NULL), GAT_EINVAL, "k = 2709 parts");
    ASSERT_FAILS(gat_partition_save(&cora, 2, a, 0, NULL, NULL), GAT_EINVAL, "NULL dir");
    ASSERT_FAILS(gat_partition_save(&cora, 2, a, -1, dir, NULL), GAT_EINVAL, "edge_cut -1 is negative");
    a[17] = 2;
    ASSERT_FAILS(gat_partition_save(&cora, 2, a, 0, dir, NULL), GAT_EINVAL, "part[17] = 2, outside [0, 2)");
    a[17] = 0;
    ASSERT_FAILS(gat_partition_save(&cora, 1, a, 0, "/nonexistent-dir/p", NULL), GAT_EIO,
                 "/nonexistent-dir/p");
    gat_part p;
    gat_partition_manifest m;
    ASSERT_FAILS(gat_part_load(NULL, dir, 0), GAT_EINVAL, "NULL part p");
    ASSERT_FAILS(gat_part_load(&p, NULL, 0), GAT_EINVAL, "NULL dir");
    ASSERT_FAILS(gat_partition_manifest_load(NULL, dir), GAT_EINVAL, "NULL manifest m");
    /* an empty directory is no partition */
    ASSERT_FAILS(gat_part_load(&p, dir, 0), GAT_EIO, "is no complete partition");
    ck_assert_ptr_null(p.storage);
    ASSERT_FAILS(gat_partition_manifest_load(&m, dir), GAT_EIO, "manifest.json");
    gat_part_destroy(NULL);
    gat_partition_manifest_destroy(NULL);
    tu_rmtree(dir);
    free(dir);
    free(a);
}
END_TEST

/* A dataset with edge features: each part carries its in-edges' features in its own in-CSR
 * order (edge e of the part: the features of the whole graph's edge from the same source), the
 * manifest says how many columns; a part without them in a partition with them is refused. */
START_TEST(edge_features)
{
    const gat_idx D = 2, k = 3;
    const gat_graph *g = &cora.graph;
    gat_dataset ds = cora; /* a shallow copy: only edge_x is its own */
    gat_real *ex = malloc((size_t)g->nnz * (size_t)D * sizeof *ex);
    gat_idx *assign = malloc((size_t)cora.n * sizeof *assign);
    ck_assert_ptr_nonnull(ex);
    ck_assert_ptr_nonnull(assign);
    for (gat_idx i = 0; i < g->n; i++)
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
            ex[(size_t)e * D] = (gat_real)i, ex[(size_t)e * D + 1] = (gat_real)g->col[e] + 0.5f;
    ds.edge_x = ex;
    ds.n_edge_features = D;
    for (gat_idx i = 0; i < cora.n; i++)
        assign[i] = (gat_idx)((i * 7) % k);
    char *dir = tu_tmpdir(), *plain = tu_tmpdir();
    ck_assert_msg(gat_partition_save(&ds, k, assign, 0, dir, "cora") == GAT_OK, "%s",
                  gat_last_error());
    gat_partition_manifest m;
    ck_assert_int_eq(gat_partition_manifest_load(&m, dir), GAT_OK);
    ck_assert_int_eq(m.n_edge_features, D);
    gat_partition_manifest_destroy(&m);
    for (gat_idx q = 0; q < k; q++) {
        gat_part p;
        ck_assert_msg(gat_part_load(&p, dir, q) == GAT_OK, "part %d: %s", q, gat_last_error());
        ck_assert_int_eq(p.n_edge_features, D);
        ck_assert_ptr_nonnull(p.edge_x);
        for (gat_idx r = 0; r < p.n_owned; r++)
            for (gat_idx e = p.rowptr[r]; e < p.rowptr[r + 1]; e++) {
                ck_assert(p.edge_x[(size_t)e * D] == (gat_real)p.global_ids[r]);
                ck_assert(p.edge_x[(size_t)e * D + 1] ==
                          (gat_real)p.global_ids[p.col[e]] + 0.5f);
            }
        gat_part_destroy(&p);
    }
    /* without edge features: no tensor, D 0; such a part among parts with them is refused */
    ck_assert_int_eq(gat_partition_save(&cora, k, assign, 0, plain, "cora"), GAT_OK);
    gat_part p;
    ck_assert_int_eq(gat_part_load(&p, plain, 1), GAT_OK);
    ck_assert_int_eq(p.n_edge_features, 0);
    ck_assert_ptr_null(p.edge_x);
    gat_part_destroy(&p);
    char path[4096], other[4096];
    snprintf(path, sizeof path, "%s/part-1.gatd", dir);
    snprintf(other, sizeof other, "%s/part-1.gatd", plain);
    copy_file(other, path);
    ASSERT_FAILS(gat_part_load(&p, dir, 1), GAT_EFORMAT,
                 "0 edge feature columns; the manifest's partition has 2");
    tu_rmtree(dir);
    tu_rmtree(plain);
    free(dir);
    free(plain);
    free(ex);
    free(assign);
}
END_TEST

START_TEST(bad_files)
{
    gat_idx *a = malloc((size_t)cora.n * sizeof *a), *b = malloc((size_t)cora.n * sizeof *b);
    int64_t ca, cb;
    char path[4096], other[4096];
    gat_part p;
    char *d2 = partition(&cora, 2, a, &ca), *d3 = partition(&cora, 3, b, &cb);
    ASSERT_FAILS(gat_part_load(&p, d2, 2), GAT_EINVAL, "part 2 of a partition of 2 parts");
    ASSERT_FAILS(gat_part_load(&p, d2, -1), GAT_EINVAL, "part -1 of a partition of 2 parts");

    /* a part of the 3-way partition in the 2-way one */
    snprintf(path, sizeof path, "%s/part-1.gatd", d2);
    snprintf(other, sizeof other, "%s/part-1.gatd", d3);
    copy_file(other, path);
    ASSERT_FAILS(gat_part_load(&p, d2, 1), GAT_EFORMAT, "holds part 1 of 3, expected part 1 of 2");
    ck_assert_msg(strstr(gat_last_error(), path) != NULL, "'%s' lacks the path", gat_last_error());
    ck_assert_int_eq(gat_part_load(&p, d2, 0), GAT_OK); /* the other part is still good */
    gat_part_destroy(&p);

    /* the same k, another assignment */
    char *dx = tu_tmpdir();
    for (gat_idx i = 0; i < cora.n; i++)
        b[i] = i % 2;
    ck_assert_int_eq(gat_partition_save(&cora, 2, b, 0, dx, "cora"), GAT_OK);
    snprintf(other, sizeof other, "%s/part-1.gatd", dx);
    copy_file(other, path);
    ASSERT_FAILS(gat_part_load(&p, d2, 1), GAT_EFORMAT, "made by another partition of the dataset");

    /* another dataset with the same k */
    gat_dataset cs;
    ck_assert_int_eq(gat_dataset_load(&cs, "citeseer", NULL), GAT_OK);
    gat_idx *c = malloc((size_t)cs.n * sizeof *c);
    for (gat_idx i = 0; i < cs.n; i++)
        c[i] = i % 2;
    ck_assert_int_eq(gat_partition_save(&cs, 2, c, 0, dx, "citeseer"), GAT_OK);
    copy_file(other, path);
    ASSERT_FAILS(gat_part_load(&p, d2, 1), GAT_EFORMAT, "made from another dataset");
    gat_dataset_destroy(&cs);
    free(c);

    /* a missing part */
    unlink(path);
    ASSERT_FAILS(gat_part_load(&p, d2, 1), GAT_EIO, "part-1.gatd");

    /* a truncated part: cut at several points */
    snprintf(path, sizeof path, "%s/part-0.gatd", d3);
    size_t len;
    unsigned char *whole = slurp(path, &len);
    const size_t cuts[] = {0, 5, 100, len / 2, len - 1};
    for (size_t t = 0; t < LEN(cuts); t++) {
        FILE *f = fopen(path, "wb");
        ck_assert_uint_eq(fwrite(whole, 1, cuts[t], f), cuts[t]);
        fclose(f);
        const gat_status st = gat_part_load(&p, d3, 0);
        ck_assert_msg(st == GAT_EFORMAT, "cut at %zu: status %d (%s)", cuts[t], st,
                      gat_last_error());
        ck_assert_msg(strstr(gat_last_error(), "part-0.gatd") != NULL, "'%s'", gat_last_error());
        ck_assert_ptr_null(p.storage);
    }
    free(whole);

    /* a broken manifest */
    snprintf(path, sizeof path, "%s/manifest.json", d3);
    FILE *f = fopen(path, "w");
    fputs("{\"format\": \"libgat-partition\", \"version\": 1, \"parts\": 3", f);
    fclose(f);
    ASSERT_FAILS(gat_part_load(&p, d3, 1), GAT_EFORMAT, "manifest.json: not JSON");
    f = fopen(path, "w");
    fputs("{\"format\": \"libgat-partition\", \"version\": 1, \"parts\": 3, \"nodes\": 2708}", f);
    fclose(f);
    ASSERT_FAILS(gat_part_load(&p, d3, 1), GAT_EFORMAT, "\"edges\" is missing");
    tu_rmtree(d2);
    tu_rmtree(d3);
    tu_rmtree(dx);
    free(d2);
    free(d3);
    free(dx);
    free(a);
    free(b);
}
END_TEST

/* Every allocation of compute, save and load failing in turn: GAT_ENOMEM, nothing leaks (ASan),
 * and a later call succeeds. */
START_TEST(allocation_failures)
{
    gat_idx *a = malloc((size_t)cora.n * sizeof *a);
    int64_t cut;
    char *dir = tu_tmpdir();
    gat_status st = GAT_ENOMEM;
    long k;
    for (k = 0; k < 100 && st != GAT_OK; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_partition_compute(&cora, 2, NULL, a, &cut);
        gat_i_alloc_fail_at(-1);
        ck_assert_msg(st == GAT_OK || st == GAT_ENOMEM, "compute, k = %ld: %d", k, st);
    }
    ck_assert_int_eq(st, GAT_OK);
    for (k = 0, st = GAT_ENOMEM; k < 200 && st != GAT_OK; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_partition_save(&cora, 2, a, cut, dir, "cora");
        gat_i_alloc_fail_at(-1);
        ck_assert_msg(st == GAT_OK || st == GAT_ENOMEM, "save, k = %ld: %d (%s)", k, st,
                      gat_last_error());
    }
    ck_assert_int_eq(st, GAT_OK);
    gat_part p;
    for (k = 0, st = GAT_ENOMEM; k < 200 && st != GAT_OK; k++) {
        gat_i_alloc_fail_at(k);
        st = gat_part_load(&p, dir, 1);
        gat_i_alloc_fail_at(-1);
        ck_assert_msg(st == GAT_OK || st == GAT_ENOMEM, "load, k = %ld: %d (%s)", k, st,
                      gat_last_error());
        if (st != GAT_OK) ck_assert_ptr_null(p.storage);
    }
    ck_assert_int_eq(st, GAT_OK);
    gat_part_destroy(&p);
    tu_rmtree(dir);
    free(dir);
    free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("partition");
    TCase *tc = tcase_create("cora");
    tcase_add_unchecked_fixture(tc, load_cora, free_cora);
    tcase_add_loop_test(tc, cora_parts, 1, 5);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, given_assignment);
    tcase_add_test(tc, options);
    tcase_add_test(tc, edge_features);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("errors");
    tcase_add_unchecked_fixture(bad, load_cora, free_cora);
    tcase_add_test(bad, bad_arguments);
    tcase_add_test(bad, bad_files);
    tcase_add_test(bad, allocation_failures);
    suite_add_tcase(s, bad);
    return tu_run(s);
}
