/* Fuzz target: the readers of the formats real datasets ship in, through gat_dataset_load as
 * `--dataset PATH` reaches them: an .npz file (Shchur et al. or Platonov et al.), the Planetoid
 * pickles (ind.NAME.*), a TU directory (NAME_A.txt, ...; plain or gzipped), the GraphSAGE files
 * (NAME-G.json, NAME-feats.npy, NAME-class_map.json, NAME-id_map.json), a Geom-GCN directory
 * (out1_graph_edges.txt, out1_node_feature_label.txt, split files), WikiCS's data.json and an OGB
 * directory (raw/NAME.csv, split/s/NAME.csv). Input: one options byte (the low three bits pick the
 * format: 7 WikiCS, 6 OGB, else the value modulo 5 the others; 0x20 gzips TU and OGB files, and
 * for an .npz file sets the CRC-32 of
 * its stored members to their data's), then the format's files in a fixed order separated by the
 * line FUZZ_FILE_SEP (binary files hold every byte, so no single separator byte will do); an
 * empty part is an absent file. A loaded
 * dataset must be well-formed (one graph or many, one label per node or many) and a node
 * dataset must train a tiny model; a failure must be a documented status with a message and a
 * zeroed dataset. */
#include "fuzz_util.h"

#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_FILE_SEP "\n@@file@@\n"
#define MAX_PARTS 8

enum { F_NPZ, F_PLANETOID, F_TU, F_SAGE, F_GEOM, F_WIKICS, F_OGB, N_FORMATS };

/* Each format's files (relative to the scratch directory, in input order) and the path given to
 * gat_dataset_load. */
static const char *const files[N_FORMATS][MAX_PARTS] = {
    {"npz/d.npz"},
    {"pl/d/ind.d.x", "pl/d/ind.d.tx", "pl/d/ind.d.allx", "pl/d/ind.d.y", "pl/d/ind.d.ty",
     "pl/d/ind.d.ally", "pl/d/ind.d.graph", "pl/d/ind.d.test.index"},
    {"tu/d/d_A.txt", "tu/d/d_graph_indicator.txt", "tu/d/d_graph_labels.txt",
     "tu/d/d_node_labels.txt", "tu/d/d_node_attributes.txt", "tu/d/d_edge_labels.txt",
     "tu/d/d_edge_attributes.txt"},
    {"sage/d-G.json", "sage/d-feats.npy", "sage/d-class_map.json", "sage/d-id_map.json"},
    {"geo/d/out1_graph_edges.txt", "geo/d/out1_node_feature_label.txt",
     "geo/d/splits/d_split_0.6_0.2_0.npz", "geo/d/splits/d_split_0.6_0.2_1.npz"},
    {"wikics/data.json"},
    {"ogb/d/raw/edge.csv", "ogb/d/raw/node-label.csv", "ogb/d/raw/node-feat.csv",
     "ogb/d/raw/edge-feat.csv", "ogb/d/raw/num-node-list.csv", "ogb/d/split/s/train.csv",
     "ogb/d/split/s/valid.csv", "ogb/d/split/s/test.csv"}};
static const char *const load_path[N_FORMATS] = {"npz/d.npz", "pl/d",   "tu/d", "sage/d",
                                                 "geo/d",     "wikics", "ogb/d"};

/* The first occurrence of the n-byte s in data, or NULL (memmem is not POSIX). */
static const uint8_t *find(const uint8_t *data, size_t size, const char *s, size_t n)
{
    for (size_t k = 0; k + n <= size; k++)
        if (data[k] == (uint8_t)s[0] && !memcmp(data + k, s, n)) return data + k;
    return NULL;
}

/* Splits data at every FUZZ_FILE_SEP into at most max parts (the last keeps any further
 * separators); returns the number of parts. */
static int split_files(const uint8_t *data, size_t size, const uint8_t **part, size_t *len, int max)
{
    const size_t sl = strlen(FUZZ_FILE_SEP);
    int n = 0;
    while (n < max - 1) {
        const uint8_t *sep = find(data, size, FUZZ_FILE_SEP, sl);
        if (!sep) break;
        part[n] = data;
        len[n++] = (size_t)(sep - data);
        size -= (size_t)(sep - data) + sl;
        data = sep + sl;
    }
    part[n] = data;
    len[n++] = size;
    return n;
}

/* Creates the directories of rel (relative to the scratch directory). */
static void make_dirs(const char *rel)
{
    char buf[320];
    snprintf(buf, sizeof buf, "%s", fuzz_path(6, rel));
    for (char *s = buf + strlen(fuzz_dir()) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = 0;
        if (mkdir(buf, 0700) != 0 && access(buf, F_OK) != 0) {
            perror(buf);
            abort();
        }
        *s = '/';
    }
}

/* Writes n bytes to path gzip-compressed (the TU reader's NAME_part.txt.gz). */
static void write_gz(const char *path, const uint8_t *data, size_t n)
{
    gzFile f = gzopen(path, "wb");
    if (!f || (n && gzwrite(f, data, (unsigned)n) != (int)n) || gzclose(f) != Z_OK) {
        fprintf(stderr, "%s: cannot write\n", path);
        abort();
    }
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* Sets the CRC-32 of every stored (uncompressed) member of zip file z, in its local header and
 * in the central directory entry that points at it (or, when that entry keeps its offset in a
 * zip64 field, that has its name), to its data's: the readers check it, and a mutated member
 * would otherwise never get past that check to the code that reads the arrays. A zip64 local
 * header's size is its zip64 field's (np.savez writes every member so). */
static void fix_crcs(uint8_t *z, size_t n)
{
    for (size_t p = 0; p + 30 <= n; p++) {
        if (rd32(z + p) != 0x04034b50u || (z[p + 8] | z[p + 9] << 8) != 0) continue;
        const size_t nlen = (size_t)(z[p + 26] | z[p + 27] << 8),
                     at = p + 30 + nlen + (size_t)(z[p + 28] | z[p + 29] << 8);
        size_t len = rd32(z + p + 18);
        if (at > n) continue;
        if (len == 0xFFFFFFFFu && at - p - 30 - nlen >= 20 &&
            (z[p + 30 + nlen] | z[p + 31 + nlen] << 8) == 1 && rd32(z + p + 30 + nlen + 16) == 0)
            len = rd32(z + p + 30 + nlen + 12);
        if (len > n - at) continue;
        const uint32_t crc = (uint32_t)crc32(0L, z + at, (uInt)len);
        wr32(z + p + 14, crc);
        for (size_t c = 0; c + 46 <= n; c++) {
            if (rd32(z + c) != 0x02014b50u) continue;
            const size_t cn = (size_t)(z[c + 28] | z[c + 29] << 8);
            if (rd32(z + c + 42) == p ||
                (rd32(z + c + 42) == 0xFFFFFFFFu && cn == nlen && c + 46 + cn <= n &&
                 memcmp(z + c + 46, z + p + 30, nlen) == 0))
                wr32(z + c + 16, crc);
        }
    }
}

/* The guarantees beyond fuzz_check_dataset's that hold for every loaded dataset: many graphs
 * (node ranges, no edge between two graphs, graph labels), multi-label targets, edge features. */
static void check_dataset(const gat_dataset *ds)
{
    const gat_graph *g = &ds->graph;
    if (ds->n_labels > 0) { /* labels all -1 and nodes in splits: fuzz_check_dataset refuses */
        FUZZ_CHECK(ds->label_matrix != NULL && ds->n_classes == 0);
        for (size_t k = 0; k < (size_t)ds->n * (size_t)ds->n_labels; k++)
            FUZZ_CHECK(ds->label_matrix[k] <= 1);
        for (gat_idx i = 0; i < ds->n; i++)
            FUZZ_CHECK(ds->labels[i] == -1 && ds->split[i] <= GAT_SPLIT_TEST);
    } else {
        fuzz_check_dataset(ds);
    }
    if (ds->n_graphs > 0) {
        FUZZ_CHECK(ds->graph_ptr && ds->graph_ptr[0] == 0 && ds->graph_ptr[ds->n_graphs] == ds->n);
        for (gat_idx s = 0; s < ds->n_graphs; s++) {
            FUZZ_CHECK(ds->graph_ptr[s] < ds->graph_ptr[s + 1]);
            for (gat_idx i = ds->graph_ptr[s]; i < ds->graph_ptr[s + 1]; i++)
                for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
                    FUZZ_CHECK(g->col[e] >= ds->graph_ptr[s] && g->col[e] < ds->graph_ptr[s + 1]);
            FUZZ_CHECK(!ds->graph_labels ||
                       (ds->graph_labels[s] >= 0 && ds->graph_labels[s] < ds->n_graph_classes));
        }
        for (gat_idx c = 0; c < ds->n_graph_classes; c++)
            FUZZ_CHECK(ds->graph_class_names && ds->graph_class_names[c] != NULL);
    } else {
        FUZZ_CHECK(!ds->graph_ptr && !ds->graph_labels);
    }
    if (ds->n_edge_features > 0) {
        FUZZ_CHECK(ds->edge_x != NULL);
        for (size_t k = 0; k < (size_t)g->nnz * (size_t)ds->n_edge_features; k++)
            FUZZ_CHECK(isfinite(ds->edge_x[k]));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[MAX_PARTS];
    size_t len[MAX_PARTS];
    gat_dataset_options o;
    gat_dataset ds;
    if (size < 1) return 0;
    const unsigned opt = data[0];
    const int f = (opt & 7) == 7 ? F_WIKICS : (opt & 7) == 6 ? F_OGB : (int)(opt & 7) % F_WIKICS;
    const int n = split_files(data + 1, size - 1, part, len, MAX_PARTS);
    /* every file of the format written or removed, so nothing of an earlier input remains */
    for (int k = 0; k < MAX_PARTS && files[f][k]; k++) {
        const char *p = fuzz_path(0, files[f][k]);
        char gz[330];
        snprintf(gz, sizeof gz, "%s.gz", p);
        make_dirs(files[f][k]);
        unlink(p);
        unlink(gz);
        if (k >= n || (len[k] == 0 && k > 0)) continue;
        if ((f == F_TU || f == F_OGB) && (opt & 0x20)) {
            write_gz(gz, part[k], len[k]);
        } else if ((opt & 0x20) && strstr(p, ".npz")) { /* a zip with its CRCs made right */
            uint8_t *z = malloc(len[k] ? len[k] : 1);
            FUZZ_CHECK(z != NULL);
            memcpy(z, part[k], len[k]);
            fix_crcs(z, len[k]);
            fuzz_write(p, z, len[k]);
            free(z);
        } else {
            fuzz_write(p, part[k], len[k]);
        }
    }
    gat_dataset_options_default(&o);
    o.symmetrize = (opt >> 3) & 1;
    o.normalize = (opt >> 4) & 1 ? GAT_NORMALIZE_ON : GAT_NORMALIZE_AUTO;
    o.split_index = (opt >> 6) & 1;
    o.train_per_class = 1;
    o.n_val = 2;
    o.n_test = 1;
    gat_status st = gat_dataset_load(&ds, fuzz_path(1, load_path[f]), &o);
    if (getenv("GAT_FUZZ_VERBOSE")) /* what a seed does: loads, or fails with which message */
        fprintf(stderr, "fuzz_formats: %s: %s\n", load_path[f],
                st == GAT_OK ? "loaded" : gat_last_error());
    if (st == GAT_OK) {
        check_dataset(&ds);
        if (ds.n_graphs == 0 && ds.n_labels == 0) fuzz_exercise(&ds, opt >> 7);
    } else {
        fuzz_check_failure(st, &ds, sizeof ds);
    }
    gat_dataset_destroy(&ds);
    return 0;
}
