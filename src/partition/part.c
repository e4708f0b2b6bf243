/* Reading a partition directory: the manifest (cJSON) and one part file (io/datafile.c), each
 * part checked against the manifest and for index ranges, so that a rank reads only its part. */
#include "gat/partition.h"
#include "core/core.h"
#include "partition/partition_i.h"
#include "io/dataset_i.h"
#include "io/fileio.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- The manifest ------------------------------------------------------------------------ */

/* The integer member key of o in [lo, hi] into *out; GAT_EFORMAT naming path and key. */
static gat_status json_int(const char *path, const cJSON *o, const char *where, const char *key,
                           double lo, double hi, double *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= lo && it->valuedouble <= hi) ||
        floor(it->valuedouble) != it->valuedouble)
        return gat_i_error(GAT_EFORMAT, "%s: %s\"%s\" is %s, expected an integer in [%.0f, %.0f]",
                           path, where, key, !it ? "missing" : cJSON_IsNumber(it) ? "out of range"
                                                                                : "not a number",
                           lo, hi);
    *out = it->valuedouble;
    return GAT_OK;
}

static gat_status json_hex(const char *path, const cJSON *o, const char *key, uint64_t *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
    uint64_t v = 0;
    size_t len = s ? strlen(s) : 0;
    for (size_t c = 0; s && c < len; c++) {
        const char ch = s[c];
        const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (d < 0) len = 0;
        v = v << 4 | (uint64_t)(d < 0 ? 0 : d);
    }
    if (len != 16)
        return gat_i_error(GAT_EFORMAT, "%s: \"%s\" is %s, expected 16 hexadecimal digits", path,
                           key, !it ? "missing" : "malformed");
    *out = v;
    return GAT_OK;
}

void gat_partition_manifest_destroy(gat_partition_manifest *m)
{
    if (!m) return;
    gat_free(m->part_nodes);
    gat_free(m->part_edges);
    gat_free(m->part_halo);
    gat_free(m->part_train);
    gat_free(m->name);
    memset(m, 0, sizeof *m);
}

static gat_status manifest_parse(gat_partition_manifest *m, const char *path, const cJSON *root)
{
    const cJSON *it;
    double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    gat_status st;
    it = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsObject(root) || !cJSON_IsString(it) ||
        strcmp(it->valuestring, GAT_I_MANIFEST_FORMAT) != 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: \"format\" is not \"" GAT_I_MANIFEST_FORMAT
                           "\": not a libgat partition manifest",
                           path);
    if ((st = json_int(path, root, "", "version", 0, 1e9, &v[0])) != GAT_OK) return st;
    if (v[0] != GAT_I_MANIFEST_VERSION)
        return gat_i_error(GAT_EFORMAT, "%s: manifest version %.0f is not supported (this libgat "
                           "reads version %d)", path, v[0], GAT_I_MANIFEST_VERSION);
    if ((st = json_int(path, root, "", "parts", 1, INT32_MAX - 1, &v[1])) != GAT_OK ||
        (st = json_int(path, root, "", "nodes", 1, INT32_MAX - 1, &v[2])) != GAT_OK ||
        (st = json_int(path, root, "", "edges", 0, INT32_MAX, &v[3])) != GAT_OK ||
        (st = json_int(path, root, "", "features", 0, INT32_MAX, &v[4])) != GAT_OK ||
        (st = json_int(path, root, "", "classes", 0, INT32_MAX, &v[5])) != GAT_OK ||
        (st = json_int(path, root, "", "edge_cut", 0, 9007199254740992.0, &v[6])) != GAT_OK ||
        (st = json_int(path, root, "", "cut_in_edges", 0, INT32_MAX, &v[7])) != GAT_OK ||
        (st = json_hex(path, root, "fingerprint", &m->fingerprint)) != GAT_OK ||
        (st = json_hex(path, root, "assignment", &m->assignment)) != GAT_OK)
        return st;
    m->n_parts = (gat_idx)v[1];
    m->n_nodes = (gat_idx)v[2];
    m->n_edges = (gat_idx)v[3];
    m->n_features = (gat_idx)v[4];
    m->n_classes = (gat_idx)v[5];
    m->edge_cut = (int64_t)v[6];
    if (cJSON_GetObjectItemCaseSensitive(root, "edge_features")) {
        double D;
        if ((st = json_int(path, root, "", "edge_features", 0, INT32_MAX, &D)) != GAT_OK)
            return st;
        m->n_edge_features = (gat_idx)D;
    }
    m->cut_in_edges = (int64_t)v[7];
    if (m->n_parts > m->n_nodes)
        return gat_i_error(GAT_EFORMAT, "%s: %d parts for %d nodes", path, m->n_parts,
                           m->n_nodes);
    it = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (it && (!cJSON_IsString(it) || !(m->name = gat_strdup(it->valuestring))))
        return cJSON_IsString(it) ? GAT_ENOMEM
                                  : gat_i_error(GAT_EFORMAT, "%s: \"name\" is not a string", path);
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "part_files");
    if (!cJSON_IsArray(files) || cJSON_GetArraySize(files) != m->n_parts)
        return gat_i_error(GAT_EFORMAT,
                           "%s: \"part_files\" is not an array of %d entries (one per part)", path,
                           m->n_parts);
    const size_t K = (size_t)m->n_parts;
    if (!(m->part_nodes = gat_malloc(K, sizeof(gat_idx))) ||
        !(m->part_edges = gat_malloc(K, sizeof(gat_idx))) ||
        !(m->part_halo = gat_malloc(K, sizeof(gat_idx))) ||
        !(m->part_train = gat_malloc(K, sizeof(gat_idx))))
        return GAT_ENOMEM;
    int64_t nodes = 0, edges = 0;
    gat_idx q = 0;
    cJSON_ArrayForEach(it, files)
    {
        char where[48], want[32];
        double c[4];
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(it, "file");
        snprintf(where, sizeof where, "part_files[%d] ", q);
        snprintf(want, sizeof want, "part-%d.gatd", q);
        if (!cJSON_IsString(f) || strcmp(f->valuestring, want) != 0)
            return gat_i_error(GAT_EFORMAT, "%s: %s\"file\" is not \"%s\"", path, where, want);
        if ((st = json_int(path, it, where, "nodes", 0, INT32_MAX - 1, &c[0])) != GAT_OK ||
            (st = json_int(path, it, where, "edges", 0, INT32_MAX, &c[1])) != GAT_OK ||
            (st = json_int(path, it, where, "halo", 0, INT32_MAX - 1, &c[2])) != GAT_OK ||
            (st = json_int(path, it, where, "train", 0, c[0], &c[3])) != GAT_OK)
            return st;
        m->part_nodes[q] = (gat_idx)c[0];
        m->part_edges[q] = (gat_idx)c[1];
        m->part_halo[q] = (gat_idx)c[2];
        m->part_train[q] = (gat_idx)c[3];
        nodes += m->part_nodes[q];
        edges += m->part_edges[q];
        q++;
    }
    if (nodes != m->n_nodes || edges != m->n_edges)
        return gat_i_error(GAT_EFORMAT,
                           "%s: the parts hold %lld nodes and %lld edges, but the dataset %d and "
                           "%d (each node is owned once)",
                           path, (long long)nodes, (long long)edges, m->n_nodes, m->n_edges);
    return GAT_OK;
}

gat_status gat_partition_manifest_load(gat_partition_manifest *m, const char *dir)
{
    static const char *fn = "gat_partition_manifest_load";
    unsigned char *buf = NULL;
    char *path = NULL;
    cJSON *root = NULL;
    size_t len;
    gat_status st;

    gat_i_clear_error();
    if (m) memset(m, 0, sizeof *m);
    const void *ptr[] = {m, dir};
    const char *const name[] = {"manifest m", "dir"};
    if ((st = gat_i_check_args(fn, 2, ptr, name)) != GAT_OK) return st;
    if (!(path = gat_i_path_join(dir, "manifest.json"))) return GAT_ENOMEM;
    if ((st = gat_i_read_file(path, &buf, &len)) != GAT_OK) {
        if (st == GAT_EIO) {
            char why[512];
            snprintf(why, sizeof why, "%s", gat_last_error());
            st = gat_i_error(GAT_EIO, "%s (%s is no complete partition: its manifest is written "
                             "last)", why, dir);
        }
        goto cleanup;
    }
    if (!(root = cJSON_ParseWithLength((const char *)buf, len))) {
        st = gat_i_error(GAT_EFORMAT, "%s: not JSON (a syntax error near byte %td)", path,
                         cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - (const char *)buf : (ptrdiff_t)0);
        goto cleanup;
    }
    st = manifest_parse(m, path, root);

cleanup:
    if (st != GAT_OK) gat_partition_manifest_destroy(m);
    cJSON_Delete(root);
    gat_free(buf);
    gat_free(path);
    return st;
}

/* ---- One part ---------------------------------------------------------------------------- */

void gat_part_destroy(gat_part *p)
{
    if (!p) return;
    gat_i_part_data *d = p->storage;
    gat_i_partfile_destroy(d);
    gat_free(d);
    memset(p, 0, sizeof *p);
}

/* The part file against the manifest and its own index ranges. */
static gat_status check_part(const gat_i_part_data *d, const gat_partition_manifest *m, gat_idx k,
                             const char *path)
{
    const gat_dataset *ds = &d->ds;
    const gat_idx no = ds->n, nh = d->n_halo, K = m->n_parts;
    if (d->part != k || d->n_parts != K)
        return gat_i_error(GAT_EFORMAT,
                           "%s: holds part %d of %d, expected part %d of %d (the manifest's): a "
                           "part of another partition",
                           path, d->part, d->n_parts, k, K);
    if (d->fingerprint != m->fingerprint || d->n_global != m->n_nodes ||
        ds->n_features != m->n_features || ds->n_classes != m->n_classes)
        return gat_i_error(GAT_EFORMAT,
                           "%s: made from another dataset: fingerprint %016llx, %d nodes, %d "
                           "features, %d classes; the manifest's dataset %016llx, %d, %d, %d",
                           path, (unsigned long long)d->fingerprint, d->n_global, ds->n_features,
                           ds->n_classes, (unsigned long long)m->fingerprint, m->n_nodes,
                           m->n_features, m->n_classes);
    if (ds->n_edge_features != m->n_edge_features)
        return gat_i_error(GAT_EFORMAT,
                           "%s: %d edge feature columns; the manifest's partition has %d", path,
                           ds->n_edge_features, m->n_edge_features);
    if (d->assignment != m->assignment)
        return gat_i_error(GAT_EFORMAT,
                           "%s: made by another partition of the dataset (assignment %016llx, "
                           "the manifest's %016llx)",
                           path, (unsigned long long)d->assignment,
                           (unsigned long long)m->assignment);
    if (no != m->part_nodes[k] || ds->graph.nnz != m->part_edges[k] || nh != m->part_halo[k])
        return gat_i_error(GAT_EFORMAT,
                           "%s: %d nodes, %d edges, %d halo nodes; the manifest says %d, %d, %d",
                           path, no, ds->graph.nnz, nh, m->part_nodes[k], m->part_edges[k],
                           m->part_halo[k]);
    const gat_idx *gid = d->global_ids, N = m->n_nodes;
    for (gat_idx i = 0; i < no + nh; i++) {
        if (gid[i] < 0 || gid[i] >= N)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"part.global_ids\" entry %d is %d, outside [0, %d)",
                               path, i, gid[i], N);
        if (i > 0 && i < no && gid[i] <= gid[i - 1])
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"part.global_ids\": owned node %d has id %d after %d "
                               "(owned ids ascend)",
                               path, i, gid[i], gid[i - 1]);
    }
    for (gat_idx h = 0; h < nh; h++) {
        const gat_idx o = d->halo_owner[h], j = gid[no + h];
        if (o < 0 || o >= K || o == k)
            return gat_i_error(GAT_EFORMAT,
                               "%s: tensor \"part.halo_owner\" entry %d is %d, expected a part in "
                               "[0, %d) other than %d",
                               path, h, o, K, k);
        if (h > 0 && (o < d->halo_owner[h - 1] ||
                      (o == d->halo_owner[h - 1] && j <= gid[no + h - 1])))
            return gat_i_error(GAT_EFORMAT,
                               "%s: halo node %d (global %d, part %d) is out of (owner, id) order",
                               path, no + h, j, o);
        if (bsearch(&j, gid, (size_t)no, sizeof *gid, gat_i_cmp_idx))
            return gat_i_error(GAT_EFORMAT, "%s: halo node %d (global %d) is also owned", path,
                               no + h, j);
    }
    return GAT_OK;
}

gat_status gat_part_load(gat_part *p, const char *dir, gat_idx k)
{
    static const char *fn = "gat_part_load";
    gat_partition_manifest m;
    gat_i_part_data *d = NULL;
    unsigned char *used = NULL;
    char file[32], *path = NULL;
    gat_status st;

    gat_i_clear_error();
    memset(&m, 0, sizeof m);
    if (p) memset(p, 0, sizeof *p);
    const void *ptr[] = {p, dir};
    const char *const name[] = {"part p", "dir"};
    if ((st = gat_i_check_args(fn, 2, ptr, name)) != GAT_OK) return st;
    if ((st = gat_partition_manifest_load(&m, dir)) != GAT_OK) return st;
    if (k < 0 || k >= m.n_parts) {
        st = gat_i_error(GAT_EINVAL, "%s: part %d of a partition of %d parts (%s)", fn, k,
                         m.n_parts, dir);
        goto cleanup;
    }
    snprintf(file, sizeof file, "part-%d.gatd", k);
    if (!(path = gat_i_path_join(dir, file)) || !(d = gat_calloc(1, sizeof *d))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_i_partfile_load(d, path)) != GAT_OK ||
        (st = check_part(d, &m, k, path)) != GAT_OK)
        goto cleanup;
    /* every halo node is the source of an edge (else it would not be in the halo) */
    const gat_dataset *ds = &d->ds;
    if (!(used = gat_calloc((size_t)d->n_halo + 1, 1))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    for (gat_idx e = 0; e < ds->graph.nnz; e++)
        if (ds->graph.col[e] >= ds->n) used[ds->graph.col[e] - ds->n] = 1;
    for (gat_idx h = 0; h < d->n_halo; h++)
        if (!used[h]) {
            st = gat_i_error(GAT_EFORMAT, "%s: halo node %d (global %d) is the source of no edge",
                             path, ds->n + h, d->global_ids[ds->n + h]);
            goto cleanup;
        }
    p->part = d->part;
    p->n_parts = d->n_parts;
    p->n_global = d->n_global;
    p->n_owned = ds->n;
    p->n_halo = d->n_halo;
    p->nnz = ds->graph.nnz;
    p->rowptr = ds->graph.rowptr;
    p->col = ds->graph.col;
    p->global_ids = d->global_ids;
    p->halo_owner = d->halo_owner;
    p->n_features = ds->n_features;
    p->n_classes = ds->n_classes;
    p->x = ds->x;
    p->n_edge_features = ds->n_edge_features;
    p->edge_x = ds->edge_x;
    p->labels = ds->labels;
    p->split = ds->split;
    p->n_train = ds->n_train;
    p->n_val = ds->n_val;
    p->n_test = ds->n_test;
    p->node_ids = ds->node_ids;
    p->class_names = ds->class_names;
    p->normalized = ds->normalized;
    p->fingerprint = d->fingerprint;
    p->assignment = d->assignment;
    p->storage = d;
    d = NULL;

cleanup:
    if (d) gat_i_partfile_destroy(d);
    gat_free(d);
    gat_free(used);
    gat_free(path);
    gat_partition_manifest_destroy(&m);
    return st;
}
