/* gat-partition: splits a dataset into K parts with METIS (gat_partition_compute) and writes
 * the partition directory (gat_partition_save) into a temporary directory beside --out, renamed
 * into place once complete. Option parsing, directory handling and reporting only. */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "gat-partition";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether name is a file gat-partition writes: manifest.json, part-N.gatd, or a temporary
 * file the library's atomic writes leave when interrupted (".NAME.tmp-XXXX" of those). */
static int ours(const char *name)
{
    size_t k = 0;
    const char *tmp = strstr(name, ".tmp-");
    if (name[0] == '.' && tmp) {
        char base[256];
        snprintf(base, sizeof base, "%.*s", (int)(tmp - name - 1), name + 1);
        return ours(base);
    }
    if (!strcmp(name, "manifest.json")) return 1;
    if (strncmp(name, "part-", 5) != 0) return 0;
    while (name[5 + k] >= '0' && name[5 + k] <= '9')
        k++;
    return k > 0 && !strcmp(name + 5 + k, ".gatd");
}

/* Scans dir: *entries gets how many entries it has, *foreign the first one gat-partition did
 * not write (copied into foreign, size bytes; "" when none). Returns 0, or -1 (errno). */
static int scan(const char *dir, int *entries, char *foreign, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    *entries = 0;
    foreign[0] = '\0';
    if (!d) return -1;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        ++*entries;
        if (!foreign[0] && !ours(e->d_name)) snprintf(foreign, size, "%s", e->d_name);
    }
    closedir(d);
    return 0;
}

/* Removes the partition files in dir, then dir (best effort: only files ours() accepts). */
static void remove_partition(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    if (!d) return;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && ours(e->d_name)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    cli_serial_blas(); /* this tool never trains */
    cli_data d = {0};
    const char *out = NULL;
    int parts = 0, force = 0, quiet = 0, seed = -1, no_train = 0, directed = 0, split_index = 0;
    int exit_now, rc;
    const cli_option opts[] = {
        {"dataset", CLI_STRING, &d.dataset, 0, 0, "NAME|PATH",
         "bundled dataset (cora, citeseer) or path, as gat-train --dataset takes"},
        CLI_GRAPH_OPTIONS(d),
        CLI_LABEL_OPTIONS(d),
        {"directed", CLI_FLAG, &directed, 0, 0, NULL,
         "keep edges directed, as gat-train --directed (.cites: b -> a; --graph: as the file "
         "says)"},
        {"split-index", CLI_INT, &split_index, 0, 2147483647, "K",
         "the dataset's fixed split K that the parts hold (.npz masks, Geom-GCN split files; "
         "default 0)"},
        {"parts", CLI_INT, &parts, 1, 1 << 30, "K", "number of parts (>= 1, at most the nodes)"},
        {"out", CLI_STRING, &out, 0, 0, "DIR",
         "partition directory to write (must not exist or be empty)"},
        {"force", CLI_FLAG, &force, 0, 0, NULL, "replace an existing partition in DIR"},
        {"seed", CLI_INT, &seed, 0, 2147483647, "S", "METIS seed (default 1)"},
        {"no-train-balance", CLI_FLAG, &no_train, 0, 0, NULL,
         "balance nodes and in-edges only, not the training nodes"},
        {"quiet", CLI_FLAG, &quiet, 0, 0, NULL, "print nothing on success"},
        {NULL, CLI_FLAG, NULL, 0, 0, NULL, NULL}};
    static const char *synopsis = "--dataset D | --graph FILE ... --parts K --out DIR [options]";
    if ((rc = cli_parse(argc, argv, opts, prog, synopsis, &exit_now)) || exit_now) return rc;
    if (parts < 1 || !out || !*out) {
        fprintf(stderr, "%s: %s is required (try --help)\n", prog, parts < 1 ? "--parts K" : "--out DIR");
        return 2;
    }
    if (parts == 1 && (seed >= 0 || no_train)) { /* one part: METIS is not run */
        fprintf(stderr, "%s: %s steers METIS, which --parts 1 does not run\n", prog,
                seed >= 0 ? "--seed" : "--no-train-balance");
        return 2;
    }

    /* --out: absent, an empty directory, or (--force) a directory holding only a partition */
    char dir[4096], foreign[256];
    size_t len = strlen(out);
    while (len > 1 && out[len - 1] == '/') len--;
    if (len >= sizeof dir - 32) {
        fprintf(stderr, "%s: --out: path too long\n", prog);
        return 2;
    }
    memcpy(dir, out, len);
    dir[len] = '\0';
    struct stat sb;
    int exists = stat(dir, &sb) == 0, entries = 0;
    if (exists && !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "%s: --out %s exists and is not a directory\n", prog, dir);
        return 1;
    }
    if (exists && scan(dir, &entries, foreign, sizeof foreign) != 0) {
        fprintf(stderr, "%s: --out: cannot read %s: %s\n", prog, dir, strerror(errno));
        return 1;
    }
    if (entries > 0 && !force) {
        fprintf(stderr, "%s: --out %s is not empty (%d entries); use --force to replace the "
                "partition in it\n", prog, dir, entries);
        return 1;
    }
    if (entries > 0 && foreign[0]) {
        fprintf(stderr, "%s: --out %s holds '%s', which is no partition file: not replacing it, "
                "even with --force\n", prog, dir, foreign);
        return 1;
    }

    gat_dataset_options dopt;
    gat_dataset_options_default(&dopt);
    dopt.normalize = GAT_NORMALIZE_OFF; /* parts keep the raw features, as gat-convert does */
    dopt.symmetrize = !directed;
    dopt.split_index = split_index;
    d.direction = directed ? "--directed" : NULL;
    gat_dataset ds;
    const char *name;
    const double t0 = now();
    if ((rc = cli_load_dataset(prog, &d, NULL, 0, &dopt, &ds, &name)) != 0) return rc;
    cli_dataset_notes(prog, &d, &ds, quiet);
    const double t_load = now() - t0;

    gat_partition_options popt;
    gat_partition_options_default(&popt);
    popt.seed = seed >= 0 ? seed : 1;
    popt.balance_train = !no_train;
    gat_idx *assign = malloc((size_t)(ds.n > 0 ? ds.n : 1) * sizeof *assign);
    int64_t cut = 0;
    char tmp[4096 + 32], old[4096 + 32];
    gat_partition_manifest m = {0};
    rc = 1;
    tmp[0] = old[0] = '\0';
    if (!assign) {
        fprintf(stderr, "%s: out of memory\n", prog);
        goto cleanup;
    }
    const double t1 = now();
    if (gat_partition_compute(&ds, (gat_idx)parts, &popt, assign, &cut) != GAT_OK) {
        fprintf(stderr, "%s: %s\n", prog, gat_last_error());
        goto cleanup;
    }
    const double t_part = now() - t1, t2 = now();
    /* the name recorded: the dataset's last path component */
    const char *base = strrchr(name, '/') && strrchr(name, '/')[1] ? strrchr(name, '/') + 1 : name;
    snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", dir);
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "%s: cannot create a temporary directory beside %s: %s\n", prog, dir,
                strerror(errno));
        tmp[0] = '\0';
        goto cleanup;
    }
    /* mkdtemp makes it private (0700): give it the mode mkdir would */
    const mode_t mask = umask(0);
    umask(mask);
    chmod(tmp, 0777 & ~mask);
    if (gat_partition_save(&ds, (gat_idx)parts, assign, cut, tmp, base) != GAT_OK) {
        fprintf(stderr, "%s: %s\n", prog, gat_last_error());
        goto cleanup;
    }
    if (entries > 0) { /* move the old partition aside, then the new one in, then delete */
        snprintf(old, sizeof old, "%s.old-XXXXXX", dir);
        if (!mkdtemp(old) || rename(dir, old) != 0) {
            fprintf(stderr, "%s: cannot move the old %s aside: %s\n", prog, dir, strerror(errno));
            if (old[0]) rmdir(old);
            old[0] = '\0';
            goto cleanup;
        }
    }
    if (rename(tmp, dir) != 0) {
        fprintf(stderr, "%s: cannot rename %s to %s: %s\n", prog, tmp, dir, strerror(errno));
        if (old[0] && rename(old, dir) == 0) old[0] = '\0';
        goto cleanup;
    }
    tmp[0] = '\0';
    const double t_write = now() - t2;
    if (gat_partition_manifest_load(&m, dir) != GAT_OK) {
        fprintf(stderr, "%s: %s\n", prog, gat_last_error());
        goto cleanup;
    }
    rc = 0;
    if (quiet) goto cleanup;
    printf("%s: %s: %d nodes, %d edges (self-loops included) into %d parts: edge cut %lld "
           "(undirected edges between parts), %lld in-edges from other parts\n",
           prog, name, ds.n, ds.graph.nnz, parts, (long long)m.edge_cut,
           (long long)m.cut_in_edges);
    printf("%6s %10s %12s %10s %8s\n", "part", "nodes", "in-edges", "halo", "train");
    for (gat_idx q = 0; q < m.n_parts; q++)
        printf("%6d %10d %12d %10d %8d\n", q, m.part_nodes[q], m.part_edges[q], m.part_halo[q],
               m.part_train[q]);
    printf("%s: wrote %s: load %.2f s, partition %.2f s, write %.2f s\n", prog, dir, t_load,
           t_part, t_write);

cleanup:
    if (tmp[0]) remove_partition(tmp);
    if (old[0]) remove_partition(old);
    gat_partition_manifest_destroy(&m);
    free(assign);
    gat_dataset_destroy(&ds);
    return rc;
}
