/* Private NumPy file reading of src/io: .npz archives (zip, stored or deflated members) holding
 * .npy arrays (format versions 1-3), and the dataset layouts that ship in them (Platonov et al.
 * 2023, Shchur et al. 2018) or beside them (the Geom-GCN directory). Every offset and length is
 * checked against the file; memory is bounded by what the file declares and can inflate to. */
#ifndef GAT_I_NPZ_H
#define GAT_I_NPZ_H

#include "gat/dataset.h"

#include <stddef.h>
#include <stdint.h>

/* Element types of a .npy array (descr '?b1', '<i1'.. '<i8', '<u1'.. '<u8', '<f4', '<f8'). */
typedef enum gat_i_npy_type {
    GAT_I_NPY_BOOL,
    GAT_I_NPY_INT,    /* signed integer of itemsize bytes */
    GAT_I_NPY_UINT,   /* unsigned integer of itemsize bytes */
    GAT_I_NPY_FLOAT,  /* IEEE float of itemsize 2, 4 or 8 */
    GAT_I_NPY_OBJECT, /* 'O': pickled Python objects (recognised to be refused by name) */
    GAT_I_NPY_STR     /* 'U' (UTF-32, itemsize 4 L) or 'S' (bytes, itemsize L): fixed-width
                         strings padded with NULs, read only by gat_i_npz_read_strings */
} gat_i_npy_type;

#define GAT_I_NPY_MAX_DIMS 32

/* One array: its header, then (after gat_i_npz_read) its elements in C order and the host's
 * byte order (big-endian files are converted, Fortran-order ones transposed). */
typedef struct gat_i_npy {
    gat_i_npy_type type;
    size_t itemsize;
    int ndim;
    size_t shape[GAT_I_NPY_MAX_DIMS];
    size_t count;  /* product of shape (1 for a 0-d array) */
    char descr[8]; /* as written, for messages */
    int utf32;     /* GAT_I_NPY_STR: 'U' (1) or 'S' (0) */
    void *data;    /* (count * itemsize) owned, gat_free; NULL before the data is read */
} gat_i_npy;

/* One member of the archive, from the central directory (checked against the file). */
typedef struct gat_i_npz_member {
    char *name;          /* owned, NUL-terminated; "KEY.npy" */
    size_t data_at;      /* offset of the member's (compressed) bytes in the file */
    size_t csize, usize; /* compressed and uncompressed sizes */
    uint32_t crc;
    int method; /* 0 stored, 8 deflate */
} gat_i_npz_member;

typedef struct gat_i_npz {
    char *path;               /* owned copy, for messages */
    const unsigned char *buf; /* (len) the whole file (gat_i_map_file) */
    size_t len;
    int mapped;
    gat_i_npz_member *member; /* (n) */
    size_t n;
} gat_i_npz;

/* Reads the file at path and parses its zip directory into z (uninitialised; destroy-safe on
 * failure), zip64 records and fields included. Returns GAT_EIO (cannot read), GAT_EFORMAT (not
 * a zip archive, a zip64 field or record missing or inconsistent, multi-disk,
 * encrypted members, a compression other than stored/deflate, any offset or length outside the
 * file, duplicate names; the message names the file and the member), GAT_ENOMEM. O(file). */
gat_status gat_i_npz_open(gat_i_npz *z, const char *path);
/* Frees z and zeroes it; accepts a zeroed z. */
void gat_i_npz_close(gat_i_npz *z);
/* Index of the member KEY.npy (key without ".npy"), or -1. */
long gat_i_npz_find(const gat_i_npz *z, const char *key);
/* Reads member k whole into a (uninitialised; zeroed on failure): the .npy header (GAT_EFORMAT
 * for a bad magic, version, header syntax or dtype, or a shape whose bytes differ from the
 * member's size), then the elements, the deflate stream and CRC-32 checked. Object arrays are
 * GAT_EFORMAT. The allocation
 * is the size the header declares, after it was checked against the member's declared size, which
 * was checked against what its compressed bytes can inflate to (deflate's 1032:1). */
gat_status gat_i_npz_read(const gat_i_npz *z, size_t k, gat_i_npy *a);
/* As gat_i_npz_read, for an array of names: strings (dtype 'U' or 'S') or integers (named by
 * their decimals); any other dtype is GAT_EFORMAT naming the member and its dtype. An object
 * array (Python's str objects, pickled) is not read: a has type GAT_I_NPY_OBJECT and no data,
 * with GAT_OK, for the caller to skip. */
gat_status gat_i_npz_read_strings(const gat_i_npz *z, size_t k, gat_i_npy *a);
/* Element k of a string array as UTF-8 into buf (size bytes, which 4 itemsize + 1 always
 * suffice), its padding dropped, or of an integer array as its decimals. Returns GAT_EFORMAT
 * naming what (e.g. the member) and k for a code point that is no Unicode scalar value or a NUL
 * inside the text. */
gat_status gat_i_npy_string(const gat_i_npy *a, size_t k, char *buf, size_t size,
                            const char *what);
/* Reads the bare .npy file at path whole into a (uninitialised; zeroed on failure), with the
 * checks of gat_i_npz_read (messages name the file). Returns GAT_EIO, GAT_EFORMAT, GAT_ENOMEM. */
gat_status gat_i_npy_load(const char *path, gat_i_npy *a);
/* Frees a's data and zeroes it; accepts a zeroed a. */
void gat_i_npy_free(gat_i_npy *a);
/* Element k of a (read, not an object array) as a double / an int64 (bool and integer types;
 * uint64 values above INT64_MAX saturate there). */
double gat_i_npy_real(const gat_i_npy *a, size_t k);
int64_t gat_i_npy_int(const gat_i_npy *a, size_t k);
/* a's shape as "(3, 4)" into buf (size bytes). */
const char *gat_i_npy_shape_str(const gat_i_npy *a, char *buf, size_t size);

/* ---- Dataset layouts (npz_dataset.c, geomgcn.c) ------------------------------------------- */

/* Whether path names an .npz file: a regular file whose name ends in ".npz" or that starts with
 * a zip local header ("PK\3\4"). */
int gat_i_npz_is(const char *path);

/* gat_dataset_load of an .npz dataset (Platonov et al. or Shchur et al. layout, told apart by
 * the members); ds zeroed on entry, opt checked. On failure ds is left for the caller's destroy. */
gat_status gat_i_npz_dataset_read(gat_dataset *ds, const char *path,
                                  const gat_dataset_options *opt);

/* Whether path is a directory holding out1_graph_edges.txt (the Geom-GCN layout). */
int gat_i_geomgcn_is(const char *path);

/* gat_dataset_load of a Geom-GCN directory; ds and opt as in gat_i_npz_dataset_read. */
gat_status gat_i_geomgcn_read(gat_dataset *ds, const char *dir, const gat_dataset_options *opt);

/* The fixed splits in the three mask members names[0..2] (train, val, test) of z:
 * each (S, n) or (n) (then S = 1), bool or integers 0/1, the same S. *n_splits = S (0 when z has
 * none of the three; then split is untouched). K is the split asked for, checked against S
 * (gat_dataset_load switches a loaded dataset to it); with use, split (n) gets the GAT_SPLIT_*
 * of each node in split 0, and with all (not NULL) and S > 1, *all (S, n) gets every split
 * (each checked), else NULL. Returns GAT_EFORMAT (one or two of the masks missing,
 * shapes, values, a node in two masks or an unlabelled node in one), GAT_EINVAL (K out of range,
 * naming K and S), GAT_ENOMEM. */
gat_status gat_i_npz_masks(const gat_i_npz *z, const char *const names[3], gat_idx n,
                           const gat_idx *labels, gat_idx K, int use, uint8_t *split,
                           gat_idx *n_splits, uint8_t **all);

#endif
