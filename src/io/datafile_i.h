/* Private to the .gatd files' reader and writer (datafile.c loads, datafile_arrays.c checks and
 * converts each array, datafile_write.c saves): the format's names and constants, the storage a
 * loaded dataset keeps, and the reader's state. */
#ifndef GAT_I_DATAFILE_H
#define GAT_I_DATAFILE_H

#include "io/dataset_i.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#define GATD_FORMAT "libgat-dataset"
#define GATD_VERSION "1"
#define GATD_PART_FORMAT "libgat-part"
/* Alignment of the data section and of every tensor in the files we write: an mmap of the file
 * (page aligned) then gives cache-line aligned arrays. */
#define GATD_ALIGN 64
#define GATD_PAD "__padding__"

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0 /* unknown or big-endian: every array is converted into a copy */
#endif

/* What a loaded dataset keeps (gat_dataset.storage points to base). */
typedef struct storage {
    gat_i_storage base; /* gat_dataset.storage points here; base.context to this struct */
    void *map;          /* the file, mapped MAP_PRIVATE (writes stay in this process) */
    size_t map_len;
    char *ids; /* generated node ids "0".."n-1" back to back, or NULL */
    size_t ids_len;
} storage;

/* clang-format off */
enum {
    T_GPTR, T_GIDX, T_XPTR, T_XIDX, T_XVAL, T_XDENSE, T_LABELS, T_SPLIT, T_IDS,
    T_EX, T_EIN,        /* optional edge features and provenance */
    T_GRPTR, T_GRLAB, T_LMAT, /* optional: many graphs (segments, labels), multi-hot labels */
    T_SPLITS,           /* optional: all S fixed splits (S, n) */
    T_GLOBAL, T_HOWNER, /* part files only */
    T_COUNT
};

/* One tensor of the format: name, dtype, bytes per element. */
struct gat_i_gatd_tensor {
    const char *name, *dtype;
    size_t esize;
};
extern const struct gat_i_gatd_tensor gat_i_gatd_spec[T_COUNT]; /* in T_* order (datafile_arrays.c) */
/* clang-format on */

/* A file being loaded. */
typedef struct reader {
    const char *path;
    gat_dataset *ds;
    storage *own;
    const unsigned char *data; /* the data section */
    size_t data_len;
    int present[T_COUNT];
    size_t span[T_COUNT][2];
    size_t dims[T_COUNT][2];
    int ndim[T_COUNT];
    gat_idx classes;       /* C from the metadata */
    gat_i_part_data *part; /* a part file (format libgat-part) is read into it; NULL: a dataset */
    gat_idx cols;          /* columns of the graph CSR: n, or n + halo in a part file */
    gat_idx n_splits;      /* fixed splits the file holds: rows of "splits", else 1 */
} reader;

/* Whether p points into s (the mapping or the generated ids; the end included). */
int gat_i_gatd_inside(const storage *s, const void *p);

/* Number of elements tensor k's shape holds, 0 for an absent tensor. */
size_t gat_i_gatd_count(const reader *R, int k);

/* ---- The arrays (datafile_arrays.c); each checks what it reads, GAT_EFORMAT naming R->path ----
 */

/* The I32 tensor k as gat_idx values: a pointer into the mapping when aligned on a
 * little-endian host, else a converted copy (owned by the dataset through *out). */
gat_status gat_i_gatd_idx_array(const reader *R, int k, gat_idx **out);

/* A CSR (row pointers ptr (rows+1), indices idx) of the tensors kp, ki: starts at 0, never
 * decreases, ends at nnz, indices in [0, cols) strictly ascending per row; with loops, every row
 * i holds i. */
gat_status gat_i_gatd_check_csr(const reader *R, int kp, int ki, const gat_idx *ptr,
                                const gat_idx *idx, gat_idx rows, gat_idx cols, int loops);

/* ds->node_ids from the node_ids tensor, or "0".."n-1" when absent. */
gat_status gat_i_gatd_read_ids(reader *R);

/* ds->class_names (C) from the metadata's class_names, or "0".."C-1" when absent. */
gat_status gat_i_gatd_read_class_names(reader *R, const cJSON *md, gat_idx C);

/* ds->x from the CSR or dense features tensors (finite values). */
gat_status gat_i_gatd_read_features(reader *R);

/* ds->edge_x and ds->edge_input from their optional tensors. */
gat_status gat_i_gatd_read_edges(reader *R);

/* ds->graph_ptr, graph_labels and graph_class_names, label_matrix and n_labels, from their
 * optional tensors (checked against the graph, which is read first). */
gat_status gat_i_gatd_read_many(reader *R, const cJSON *md);

/* ds->labels and ds->split (the stored split, row 0 of "splits" (gat_dataset_load switches to
 * row opt->split_index), or the random split of opt when it is asked for), ds->splits and
 * R->n_splits. */
gat_status gat_i_gatd_read_labels_split(reader *R, const gat_dataset_options *opt);

#endif
