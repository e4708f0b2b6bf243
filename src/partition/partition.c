/* K-way partitions of a dataset's graph (METIS_PartGraphKway on the symmetrised graph without
 * self-loops, balanced on nodes, in-edges and training nodes), the dataset fingerprint, and the
 * writer of a partition directory: one part file per part (io/datafile.c) and the manifest. */
#include "gat/partition.h"
#include "core/core.h"
#include "graph/graph_i.h"
#include "io/dataset_i.h"
#include "io/fileio.h"
#include "partition/partition_i.h"

#include <cJSON.h>
#include <errno.h>
#include <metis.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void gat_partition_options_default(gat_partition_options *o)
{
    if (!o) return;
    o->seed = 1;
    o->balance_train = 1;
}

/* Chains the values v (n) into the hash h. */
static uint64_t hash_idx(uint64_t h, const gat_idx *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = gat_i_hash64(h, (uint64_t)(uint32_t)v[i]);
    return h;
}

uint64_t gat_dataset_fingerprint(const gat_dataset *ds)
{
    if (!ds) return 0;
    const gat_graph *g = &ds->graph;
    const gat_idx head[4] = {g->n, g->nnz, ds->n_features, ds->n_classes};
    uint64_t h = hash_idx(0x6c6962676174ull /* "libgat" */, head, 4);
    if (g->rowptr) h = hash_idx(h, g->rowptr, (size_t)g->n + 1);
    if (g->col) h = hash_idx(h, g->col, (size_t)g->nnz);
    return h;
}

uint64_t gat_i_assignment_hash(const gat_idx *part, gat_idx n, gat_idx k)
{
    return hash_idx(gat_i_hash64(0x70617274ull /* "part" */, (uint64_t)k), part, (size_t)n);
}

/* The dataset checks shared by compute and save: graph well-formed, sizes consistent. */
static gat_status check_dataset(const gat_dataset *ds, gat_idx k, const char *fn)
{
    gat_status st;
    if ((st = gat_i_graph_check(&ds->graph, fn)) != GAT_OK) return st;
    if (ds->graph.n != ds->n)
        return gat_i_error(GAT_EINVAL, "%s: dataset has %d nodes but its graph %d", fn, ds->n,
                           ds->graph.n);
    if (k < 1 || k > ds->n)
        return gat_i_error(GAT_EINVAL,
                           "%s: k = %d parts for %d nodes: expected 1 <= k <= the node count",
                           fn, k, ds->n);
    return GAT_OK;
}

gat_status gat_partition_compute(const gat_dataset *ds, gat_idx k, const gat_partition_options *opt,
                                 gat_idx *part, int64_t *edge_cut)
{
    static const char *fn = "gat_partition_compute";
    gat_partition_options def;
    idx_t *xadj = NULL, *adj = NULL, *vwgt = NULL, *where = NULL;
    gat_idx *mark = NULL;
    gat_status st;

    gat_i_clear_error();
    const void *ptr[] = {ds, part, edge_cut};
    const char *const name[] = {"dataset ds", "part", "edge_cut"};
    if ((st = gat_i_check_args(fn, 3, ptr, name)) != GAT_OK) return st;
    if (!opt) {
        gat_partition_options_default(&def);
        opt = &def;
    }
    if (opt->seed < 0)
        return gat_i_error(GAT_EINVAL, "%s: seed %d is negative", fn, opt->seed);
    if ((st = check_dataset(ds, k, fn)) != GAT_OK) return st;
    const gat_graph *g = &ds->graph;
    const gat_idx n = g->n;
    if (k == 1) {
        memset(part, 0, (size_t)n * sizeof *part);
        *edge_cut = 0;
        return GAT_OK;
    }

    /* the symmetrised adjacency without self-loops: row i joins the in-row and the out-row of
     * i; mark[j] == i while j is already in row i (the rows need not be sorted) */
    xadj = gat_malloc((size_t)n + 1, sizeof *xadj);
    mark = gat_malloc((size_t)n, sizeof *mark);
    if (!xadj || !mark) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (int pass = 0; pass < 2; pass++) {
        size_t m = 0;
        for (gat_idx i = 0; i < n; i++)
            mark[i] = -1;
        for (gat_idx i = 0; i < n; i++) {
            if (!pass) xadj[i] = (idx_t)m;
            for (int side = 0; side < 2; side++) {
                const gat_idx *rp = side ? g->t_rowptr : g->rowptr, *c = side ? g->t_col : g->col;
                for (gat_idx e = rp[i]; e < rp[i + 1]; e++) {
                    const gat_idx j = c[e];
                    if (j == i || mark[j] == i) continue;
                    mark[j] = i;
                    if (pass) adj[m] = (idx_t)j;
                    m++;
                }
            }
        }
        if (!pass) {
            xadj[n] = (idx_t)m;
            if (!(adj = gat_malloc(m ? m : 1, sizeof *adj))) {
                st = GAT_ENOMEM;
                goto cleanup;
            }
        }
    }

    /* vertex weights, ncon per node: 1 (nodes), in-degree (edges), training node (0/1) */
    idx_t ncon = g->nnz > 0 ? 2 : 1, nv = (idx_t)n, nparts = (idx_t)k, objval = 0;
    if (opt->balance_train && ds->split) {
        gat_idx train = 0;
        for (gat_idx i = 0; i < n; i++)
            train += ds->split[i] == GAT_SPLIT_TRAIN;
        /* a constraint whose total is 0 would make METIS divide by zero */
        if (train > 0) ncon++;
    }
    vwgt = gat_malloc((size_t)n * (size_t)ncon, sizeof *vwgt);
    where = gat_malloc((size_t)n, sizeof *where);
    if (!vwgt || !where) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (gat_idx i = 0; i < n; i++) {
        idx_t *w = vwgt + (size_t)i * (size_t)ncon;
        w[0] = 1;
        if (ncon > 1 && g->nnz > 0) w[1] = (idx_t)(g->rowptr[i + 1] - g->rowptr[i]);
        if (ncon > 1 && g->nnz == 0) w[1] = ds->split[i] == GAT_SPLIT_TRAIN;
        if (ncon > 2) w[2] = ds->split[i] == GAT_SPLIT_TRAIN;
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
    options[METIS_OPTION_SEED] = (idx_t)opt->seed;
    options[METIS_OPTION_NUMBERING] = 0;
    const int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, vwgt, NULL, NULL, &nparts, NULL,
                                       NULL, options, &objval, where);
    if (rc != METIS_OK) {
        st = rc == METIS_ERROR_MEMORY
                 ? gat_i_error(GAT_ENOMEM, "%s: METIS_PartGraphKway ran out of memory", fn)
                 : gat_i_error(GAT_EDEP, "%s: METIS_PartGraphKway failed with %s (%d) on %d "
                               "nodes, %d constraints, k = %d",
                               fn, rc == METIS_ERROR_INPUT ? "METIS_ERROR_INPUT" : "METIS_ERROR",
                               rc, n, (int)ncon, k);
        goto cleanup;
    }
    for (gat_idx i = 0; i < n; i++) {
        if (where[i] < 0 || where[i] >= nparts) {
            st = gat_i_error(GAT_EDEP, "%s: METIS put node %d in part %lld, outside [0, %d)", fn,
                             i, (long long)where[i], k);
            goto cleanup;
        }
        part[i] = (gat_idx)where[i];
    }
    *edge_cut = (int64_t)objval;

cleanup:
    gat_free(xadj);
    gat_free(adj);
    gat_free(vwgt);
    gat_free(where);
    gat_free(mark);
    return st;
}

/* ---- Writing a partition directory ------------------------------------------------------- */

int gat_i_cmp_idx(const void *a, const void *b)
{
    const gat_idx x = *(const gat_idx *)a, y = *(const gat_idx *)b;
    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The counts of one part for the manifest. */
typedef struct part_count {
    gat_idx nodes, edges, halo, train;
} part_count;

/* Part q's arrays while write_part builds them (all owned: part_arrays_free). */
typedef struct part_arrays {
    gat_idx *owned;          /* (no) the part's nodes, ascending */
    uint64_t *halo;          /* (nh of E) the halo's nodes keyed owner n + id, sorted */
    gat_idx *global, *owner; /* (no + nh) global ids of the local nodes; (nh) halo owners */
    gat_idx *rowptr, *col;   /* (no + 1), (E) the local in-CSR */
    gat_real *ex;            /* (E, D) its edge features, or NULL (D == 0) */
    gat_idx *xptr, *xcol;    /* (no + 1), (nnz) the features' CSR */
    gat_real *xval;          /* (nnz) */
    gat_idx *labels;         /* (no) */
    uint8_t *split;          /* (no) */
    const char **ids;        /* (no) borrowed from ds */
    uint64_t *key;           /* (dmax) a row's sort keys */
    size_t no, nh, E, nnz, dmax, D;
} part_arrays;

static void part_arrays_free(part_arrays *A)
{
    gat_free(A->owned);
    gat_free(A->halo);
    gat_free(A->global);
    gat_free(A->owner);
    gat_free(A->rowptr);
    gat_free(A->col);
    gat_free(A->ex);
    gat_free(A->xptr);
    gat_free(A->xcol);
    gat_free(A->xval);
    gat_free(A->labels);
    gat_free(A->split);
    gat_free(A->ids);
    gat_free(A->key);
    memset(A, 0, sizeof *A);
}

/* Part q's sizes (nodes, edges, feature entries, largest in-degree) and its arrays but the
 * halo's (part_halo allocates those). */
static gat_status part_alloc(const gat_dataset *ds, const gat_idx *part, gat_idx q, part_arrays *A)
{
    const gat_graph *g = &ds->graph;
    size_t no = 0, E = 0, nnz = 0, dmax = 1;
    const size_t D = ds->edge_x ? (size_t)ds->n_edge_features : 0;
    for (gat_idx i = 0; i < ds->n; i++)
        if (part[i] == q) {
            no++;
            const size_t deg = (size_t)(g->rowptr[i + 1] - g->rowptr[i]);
            E += deg;
            dmax = deg > dmax ? deg : dmax;
            nnz += (size_t)(ds->x.rowptr[i + 1] - ds->x.rowptr[i]);
        }
    A->no = no, A->E = E, A->nnz = nnz, A->dmax = dmax, A->D = D;
    if (!(A->owned = gat_malloc(no + 1, sizeof *A->owned)) ||
        !(A->rowptr = gat_malloc(no + 1, sizeof *A->rowptr)) ||
        !(A->col = gat_malloc(E + 1, sizeof *A->col)) ||
        !(A->xptr = gat_malloc(no + 1, sizeof *A->xptr)) ||
        !(A->xcol = gat_malloc(nnz + 1, sizeof *A->xcol)) ||
        !(A->xval = gat_malloc(nnz + 1, sizeof *A->xval)) ||
        !(A->labels = gat_malloc(no + 1, sizeof *A->labels)) ||
        !(A->split = gat_malloc(no + 1, 1)) || !(A->ids = gat_malloc(no + 1, sizeof *A->ids)) ||
        !(A->halo = gat_malloc(E + 1, sizeof *A->halo)) ||
        !(A->key = gat_malloc(dmax, sizeof *A->key)) ||
        (D && !(A->ex = gat_malloc(E * D, sizeof *A->ex))))
        return GAT_ENOMEM;
    return GAT_OK;
}

/* Owned nodes ascending; the halo: every source owned elsewhere, once, keyed (owner, id), its
 * global ids and owners; mark[j] = q and loc[j] its local index for a halo node j. */
static gat_status part_halo(const gat_dataset *ds, const gat_idx *part, gat_idx q, gat_idx *mark,
                            gat_idx *loc, part_arrays *A)
{
    const gat_graph *g = &ds->graph;
    const gat_idx n = ds->n;
    size_t no = 0, nh = 0;
    for (gat_idx i = 0; i < n; i++) {
        if (part[i] != q) continue;
        A->owned[no++] = i;
        for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
            const gat_idx j = g->col[e];
            if (part[j] == q || mark[j] == q) continue;
            mark[j] = q;
            A->halo[nh++] = (uint64_t)part[j] * (uint64_t)n + (uint64_t)j;
        }
    }
    A->nh = nh;
    qsort(A->halo, nh, sizeof *A->halo, cmp_u64);
    if (!(A->global = gat_malloc(no + nh + 1, sizeof *A->global)) ||
        !(A->owner = gat_malloc(nh + 1, sizeof *A->owner)))
        return GAT_ENOMEM;
    memcpy(A->global, A->owned, no * sizeof *A->owned);
    for (size_t h = 0; h < nh; h++) {
        const gat_idx j = (gat_idx)(A->halo[h] % (uint64_t)n);
        A->global[no + h] = j;
        A->owner[h] = (gat_idx)(A->halo[h] / (uint64_t)n);
        loc[j] = (gat_idx)(no + h);
    }
    return GAT_OK;
}

/* Rows: local sources, sorted (halo locals do not follow global order), with their edges'
 * features; features, labels, split and ids; the training nodes into cnt, the cut edges into
 * *cut. pos[i]: the local index of node i in its own part. */
static void part_rows(const gat_dataset *ds, const gat_idx *part, gat_idx q, const gat_idx *pos,
                      const gat_idx *loc, part_arrays *A, part_count *cnt, int64_t *cut)
{
    const gat_graph *g = &ds->graph;
    const size_t D = A->D;
    size_t e_out = 0, x_out = 0;
    A->rowptr[0] = A->xptr[0] = 0;
    for (size_t r = 0; r < A->no; r++) {
        const gat_idx i = A->owned[r], e0 = g->rowptr[i], deg = g->rowptr[i + 1] - e0;
        for (gat_idx t = 0; t < deg; t++) {
            const gat_idx j = g->col[e0 + t];
            A->key[t] = (uint64_t)(part[j] == q ? pos[j] : loc[j]) << 32 | (uint64_t)t;
            *cut += part[j] != q;
        }
        qsort(A->key, (size_t)deg, sizeof *A->key, cmp_u64);
        for (gat_idx t = 0; t < deg; t++, e_out++) {
            A->col[e_out] = (gat_idx)(A->key[t] >> 32);
            if (D)
                memcpy(A->ex + e_out * D, ds->edge_x + ((size_t)e0 + (A->key[t] & 0xffffffffu)) * D,
                       D * sizeof *A->ex);
        }
        A->rowptr[r + 1] = (gat_idx)e_out;
        for (gat_idx t = ds->x.rowptr[i]; t < ds->x.rowptr[i + 1]; t++) {
            A->xcol[x_out] = ds->x.col[t];
            A->xval[x_out++] = ds->x.val[t];
        }
        A->xptr[r + 1] = (gat_idx)x_out;
        A->labels[r] = ds->labels ? ds->labels[i] : -1;
        A->split[r] = ds->split ? ds->split[i] : GAT_SPLIT_NONE;
        A->ids[r] = ds->node_ids ? ds->node_ids[i] : NULL;
        cnt->train += A->split[r] == GAT_SPLIT_TRAIN;
    }
}

/* The part file's contents from the arrays (borrowed) and ds's shared fields. */
static void part_data(const gat_dataset *ds, const part_arrays *A, gat_idx k, gat_idx q,
                      uint64_t fp, uint64_t asg, gat_i_part_data *P)
{
    memset(P, 0, sizeof *P);
    P->ds.n = (gat_idx)A->no;
    P->ds.n_features = ds->n_features;
    P->ds.n_classes = ds->n_classes;
    P->ds.graph.n = (gat_idx)A->no;
    P->ds.graph.nnz = (gat_idx)A->E;
    P->ds.graph.rowptr = A->rowptr;
    P->ds.graph.col = A->col;
    P->ds.x.rows = (gat_idx)A->no;
    P->ds.x.cols = ds->n_features;
    P->ds.x.rowptr = A->xptr;
    P->ds.x.col = A->xcol;
    P->ds.x.val = A->xval;
    P->ds.labels = A->labels;
    P->ds.split = A->split;
    P->ds.node_ids = ds->node_ids ? A->ids : NULL;
    P->ds.class_names = ds->class_names;
    P->ds.normalized = ds->normalized;
    P->ds.n_edge_features = (gat_idx)A->D;
    P->ds.edge_x = A->ex;
    P->n_halo = (gat_idx)A->nh;
    P->part = q;
    P->n_parts = k;
    P->n_global = ds->n;
    P->global_ids = A->global;
    P->halo_owner = A->owner;
    P->fingerprint = fp;
    P->assignment = asg;
}

/* Builds part q's arrays (fields borrowed from ds where they can be) and writes it.
 * pos[i]: local index of node i in its own part; mark, loc: (n) scratch, mark[j] == q while j is
 * in q's halo and loc[j] its local index then. */
static gat_status write_part(const gat_dataset *ds, gat_idx k, const gat_idx *part, gat_idx q,
                             const gat_idx *pos, gat_idx *mark, gat_idx *loc, uint64_t fp,
                             uint64_t asg, const char *dir, const char *name, part_count *cnt,
                             int64_t *cut)
{
    part_arrays A = {0};
    gat_i_part_data P;
    char file[32], *path = NULL;
    gat_status st;
    if ((st = part_alloc(ds, part, q, &A)) != GAT_OK ||
        (st = part_halo(ds, part, q, mark, loc, &A)) != GAT_OK)
        goto cleanup;
    part_rows(ds, part, q, pos, loc, &A, cnt, cut);
    cnt->nodes = (gat_idx)A.no;
    cnt->edges = (gat_idx)A.E;
    cnt->halo = (gat_idx)A.nh;
    part_data(ds, &A, k, q, fp, asg, &P);
    snprintf(file, sizeof file, "part-%d.gatd", q);
    if (!(path = gat_i_path_join(dir, file))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    st = gat_i_partfile_save(&P, path, name);
cleanup:
    part_arrays_free(&A);
    gat_free(path);
    return st;
}

static int add_hex(cJSON *o, const char *key, uint64_t v)
{
    char s[17];
    snprintf(s, sizeof s, "%016llx", (unsigned long long)v);
    return cJSON_AddStringToObject(o, key, s) != NULL;
}

/* dir/manifest.json, atomically. */
static gat_status write_manifest(const gat_dataset *ds, gat_idx k, uint64_t fp, uint64_t asg,
                                 int64_t edge_cut, int64_t cut, const part_count *cnt,
                                 const char *dir, const char *name)
{
    gat_i_afile af;
    gat_i_clocale loc = {0};
    cJSON *root = NULL, *files = NULL;
    char *json = NULL, *path = NULL;
    gat_status st;
    memset(&af, 0, sizeof af);
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) return st;
    int ok = (root = cJSON_CreateObject()) &&
             cJSON_AddStringToObject(root, "format", GAT_I_MANIFEST_FORMAT) &&
             cJSON_AddNumberToObject(root, "version", 1) &&
             (!name || cJSON_AddStringToObject(root, "name", name)) &&
             cJSON_AddNumberToObject(root, "parts", k) &&
             cJSON_AddNumberToObject(root, "nodes", ds->n) &&
             cJSON_AddNumberToObject(root, "edges", ds->graph.nnz) &&
             cJSON_AddNumberToObject(root, "features", ds->n_features) &&
             cJSON_AddNumberToObject(root, "classes", ds->n_classes) &&
             cJSON_AddNumberToObject(root, "edge_features",
                                     ds->edge_x ? ds->n_edge_features : 0) &&
             add_hex(root, "fingerprint", fp) && add_hex(root, "assignment", asg) &&
             cJSON_AddNumberToObject(root, "edge_cut", (double)edge_cut) &&
             cJSON_AddNumberToObject(root, "cut_in_edges", (double)cut) &&
             (files = cJSON_AddArrayToObject(root, "part_files"));
    for (gat_idx q = 0; ok && q < k; q++) {
        char file[32];
        cJSON *o = cJSON_CreateObject();
        snprintf(file, sizeof file, "part-%d.gatd", q);
        if (!o || !cJSON_AddItemToArray(files, o)) {
            cJSON_Delete(o);
            ok = 0;
            break;
        }
        ok = cJSON_AddStringToObject(o, "file", file) &&
             cJSON_AddNumberToObject(o, "nodes", cnt[q].nodes) &&
             cJSON_AddNumberToObject(o, "edges", cnt[q].edges) &&
             cJSON_AddNumberToObject(o, "halo", cnt[q].halo) &&
             cJSON_AddNumberToObject(o, "train", cnt[q].train);
    }
    if (!ok || !(json = cJSON_Print(root)) || !(path = gat_i_path_join(dir, "manifest.json"))) {
        st = gat_i_error(GAT_ENOMEM, "out of memory writing the manifest of %s", dir);
        goto cleanup;
    }
    if ((st = gat_i_afile_open(&af, path)) != GAT_OK) goto cleanup;
    errno = 0;
    if (fputs(json, af.f) == EOF || fputc('\n', af.f) == EOF) {
        st = gat_i_afile_write_error(&af);
        goto cleanup;
    }
    st = gat_i_afile_commit(&af);

cleanup:
    gat_i_afile_abort(&af);
    cJSON_Delete(root);
    cJSON_free(json);
    gat_free(path);
    gat_i_clocale_leave(&loc);
    return st;
}

gat_status gat_partition_save(const gat_dataset *ds, gat_idx k, const gat_idx *part,
                              int64_t edge_cut, const char *dir, const char *name)
{
    static const char *fn = "gat_partition_save";
    gat_idx *pos = NULL, *mark = NULL, *loc = NULL, *seen = NULL;
    part_count *cnt = NULL;
    char *mpath = NULL;
    int64_t cut = 0;
    gat_status st;

    gat_i_clear_error();
    const void *ptr[] = {ds, part, dir};
    const char *const pname[] = {"dataset ds", "part", "dir"};
    if ((st = gat_i_check_args(fn, 3, ptr, pname)) != GAT_OK) return st;
    if ((st = check_dataset(ds, k, fn)) != GAT_OK) return st;
    if (edge_cut < 0)
        return gat_i_error(GAT_EINVAL, "%s: edge_cut %lld is negative", fn, (long long)edge_cut);
    const gat_idx n = ds->n;
    if (ds->x.rows != n || ds->x.cols != ds->n_features || !ds->x.rowptr)
        return gat_i_error(GAT_EINVAL, "%s: features are %d x %d, expected %d x %d", fn,
                           ds->x.rows, ds->x.cols, n, ds->n_features);
    for (gat_idx i = 0; i < n; i++)
        if (part[i] < 0 || part[i] >= k)
            return gat_i_error(GAT_EINVAL, "%s: part[%d] = %d, outside [0, %d)", fn, i, part[i],
                               k);
    pos = gat_malloc((size_t)n, sizeof *pos);
    mark = gat_malloc((size_t)n, sizeof *mark);
    loc = gat_malloc((size_t)n, sizeof *loc);
    seen = gat_calloc((size_t)k, sizeof *seen);
    cnt = gat_calloc((size_t)k, sizeof *cnt);
    mpath = gat_i_path_join(dir, "manifest.json");
    if (!pos || !mark || !loc || !seen || !cnt || !mpath) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    /* no manifest while the parts change: a half-written directory is never a partition */
    if (unlink(mpath) != 0 && errno != ENOENT) {
        st = gat_i_error(GAT_EIO, "cannot remove the old %s: %s", mpath, strerror(errno));
        goto cleanup;
    }
    for (gat_idx i = 0; i < n; i++) {
        pos[i] = seen[part[i]]++;
        mark[i] = -1;
    }
    const uint64_t fp = gat_dataset_fingerprint(ds), asg = gat_i_assignment_hash(part, n, k);
    for (gat_idx q = 0; q < k; q++)
        if ((st = write_part(ds, k, part, q, pos, mark, loc, fp, asg, dir, name, &cnt[q], &cut)) !=
            GAT_OK)
            goto cleanup;
    st = write_manifest(ds, k, fp, asg, edge_cut, cut, cnt, dir, name);

cleanup:
    gat_free(pos);
    gat_free(mark);
    gat_free(loc);
    gat_free(seen);
    gat_free(cnt);
    gat_free(mpath);
    return st;
}
