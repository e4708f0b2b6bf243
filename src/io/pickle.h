/* Private: a small, bounded unpickler for the pickles of the Planetoid datasets, as Python 2
 * wrote them (protocol 2) and as Python 3 writes them (protocols 2 to 5: bytes as
 * _codecs.encode(str, 'latin1') in protocol 2, bytes opcodes, frames, MEMOIZE and STACK_GLOBAL,
 * NumPy's _frombuffer in protocol 5): scipy.sparse csr_matrix (or csr_array), NumPy ndarrays
 * (f4, f8, b1, signed and unsigned integers of 1 to 8 bytes; little-endian, C order), NumPy
 * integer scalars (as ints),
 * collections.defaultdict(list), ints, bools, None, strings, bytes, tuples, lists and dicts.
 *
 * Nothing is executed: GLOBAL names outside a fixed allow-list and every opcode these files do not
 * need are refused (GAT_EFORMAT naming the file, the byte offset and the opcode or name), so a
 * hostile file can do no more than fail. Every length is checked against the bytes left; the
 * parser is a loop over opcodes (no recursion), and every value, stack slot, memo slot and item
 * comes from an opcode of the file, so memory stays within a constant times the file's size
 * (at most about 150 bytes per byte of file, for a file of one-byte opcodes).
 * Array payloads are not copied: they point into the file's bytes held by the gat_i_pickle, or
 * (protocol 2 of Python 3) into one buffer of the file's size where their Latin-1 text is
 * turned back into bytes. */
#ifndef GAT_I_PICKLE_H
#define GAT_I_PICKLE_H

#include "gat/status.h"

#include <stddef.h>
#include <stdint.h>

/* Kinds of values. */
typedef enum gat_i_pkind {
    GAT_I_PK_NONE,
    GAT_I_PK_BOOL,    /* u.i: 0 or 1 */
    GAT_I_PK_INT,     /* u.i */
    GAT_I_PK_STR,     /* u.str: a Python 2 str or unicode (bytes as stored, UTF-8 for unicode) */
    GAT_I_PK_TUPLE,   /* u.seq: n items */
    GAT_I_PK_LIST,    /* u.seq: n items */
    GAT_I_PK_DICT,    /* u.seq: n/2 pairs, key then value, in insertion order; flag: 1 for a
                       * collections.defaultdict */
    GAT_I_PK_GLOBAL,  /* u.i: a gat_i_pglobal (an allowed class or function, never called) */
    GAT_I_PK_DTYPE,   /* u.i: a gat_i_pdtype; flag: 1 once its state (byte order) is set */
    GAT_I_PK_NDARRAY, /* u.arr; flag: 1 once its state (shape, dtype, bytes) is set */
    GAT_I_PK_CSR      /* u.state: id of its state dict; flag: 1 once set */
} gat_i_pkind;

/* The allowed GLOBAL names (module and name as the pickle spells them). */
typedef enum gat_i_pglobal {
    GAT_I_PG_RECONSTRUCT,   /* numpy.core.multiarray._reconstruct */
    GAT_I_PG_SCALAR,        /* numpy.core.multiarray.scalar: NumPy integers, read as ints */
    GAT_I_PG_NDARRAY,       /* numpy.ndarray */
    GAT_I_PG_DTYPE,         /* numpy.dtype */
    GAT_I_PG_CSR,           /* scipy.sparse.csr.csr_matrix (scipy.sparse._csr in newer scipy;
                             * its csr_array, in scipy.sparse._arrays before 1.11) */
    GAT_I_PG_DEFAULTDICT,   /* collections.defaultdict */
    GAT_I_PG_LIST,          /* __builtin__.list (builtins.list), as a defaultdict's factory */
    GAT_I_PG_RECONSTRUCTOR, /* copy_reg._reconstructor, protocol 0/1's way to make an object */
    GAT_I_PG_OBJECT,        /* __builtin__.object, its base-class argument */
    GAT_I_PG_ENCODE,        /* _codecs.encode: Python 3's bytes in protocol 2 */
    GAT_I_PG_FROMBUFFER     /* numpy.core.numeric._frombuffer: NumPy's arrays in protocol 5 */
} gat_i_pglobal;

/* Element types of arrays. */
typedef enum gat_i_pdtype {
    GAT_I_PD_F4,
    GAT_I_PD_F8,
    GAT_I_PD_I4,
    GAT_I_PD_I8,
    GAT_I_PD_B1,
    GAT_I_PD_I1,
    GAT_I_PD_I2,
    GAT_I_PD_U1,
    GAT_I_PD_U2,
    GAT_I_PD_U4,
    GAT_I_PD_U8 /* read above INT64_MAX as INT64_MAX */
} gat_i_pdtype;

/* Bytes per element of a dtype. */
size_t gat_i_pdtype_size(gat_i_pdtype t);
/* The NumPy name of a dtype ("f4", ...). */
const char *gat_i_pdtype_name(gat_i_pdtype t);

#define GAT_I_PK_MAXDIM 4

/* An array's contents: count = prod(shape) elements of dtype, little-endian, C order, at data
 * (inside the file's bytes, not aligned: read them with gat_i_parray_real / _int). */
typedef struct gat_i_parray {
    gat_i_pdtype dtype;
    int ndim;
    int64_t shape[GAT_I_PK_MAXDIM];
    size_t count;
    const unsigned char *data;
} gat_i_parray;

/* Element k (< a->count) as a double (bools 0 or 1; int64 rounded). */
double gat_i_parray_real(const gat_i_parray *a, size_t k);
/* Element k (< a->count) of an integer or bool array. */
int64_t gat_i_parray_int(const gat_i_parray *a, size_t k);

typedef struct gat_i_pval {
    gat_i_pkind kind;
    int flag;  /* see gat_i_pkind */
    size_t at; /* byte offset of the opcode that made it, for messages */
    union {
        int64_t i;
        struct {
            const unsigned char *s;
            size_t len;
        } str;
        struct {
            uint32_t *item; /* value ids */
            size_t n, cap;
        } seq;
        gat_i_parray arr;
        uint32_t state;
    } u;
} gat_i_pval;

/* A parsed pickle: its values, addressed by id (0 .. n_val-1), and the root (the value STOP
 * returned). Owns the file's bytes, which arrays point into. */
typedef struct gat_i_pickle {
    char *path; /* owned copy, for messages */
    unsigned char *buf;
    size_t len;
    unsigned char *aux; /* (len + 1) or NULL: the bytes of _codecs.encode, at their text's offset */
    gat_i_pval *val;
    size_t n_val, cap_val;
    uint32_t root;
} gat_i_pickle;

/* Reads the file at path whole and parses it into pk (uninitialised; zeroed on failure).
 * Returns GAT_EIO (cannot read), GAT_EFORMAT (not a pickle this reader accepts: a bad or
 * refused opcode, a GLOBAL outside the allow-list, a length past the end, an unset memo slot, a
 * wrongly typed argument; the message names path, the byte offset and the opcode), GAT_ENOMEM.
 * Cost O(file size). */
gat_status gat_i_pickle_load(gat_i_pickle *pk, const char *path);

/* gat_i_pickle_load of len bytes held in memory (copied), named name in messages. */
gat_status gat_i_pickle_parse(gat_i_pickle *pk, const char *name, const void *bytes, size_t len);

/* Frees pk and zeroes it; accepts a zeroed pk. */
void gat_i_pickle_free(gat_i_pickle *pk);

/* The value with id k (< pk->n_val). */
static inline const gat_i_pval *gat_i_pickle_at(const gat_i_pickle *pk, uint32_t k)
{
    return &pk->val[k];
}

/* The name of a kind ("int", "tuple", "numpy.ndarray", ...), for messages. */
const char *gat_i_pkind_name(gat_i_pkind k);

/* The value of key (a str) in dict d, or UINT32_MAX when absent. */
uint32_t gat_i_pickle_dict_get(const gat_i_pickle *pk, const gat_i_pval *d, const char *key);

/* A 2-D matrix as a pickle holds it: a C-ordered ndarray (dense) or a csr_matrix (sparse). */
typedef struct gat_i_pmatrix {
    int64_t rows, cols;
    int sparse;
    gat_i_parray dense;                 /* (rows, cols), when !sparse */
    gat_i_parray indptr, indices, data; /* (rows+1), (nnz), (nnz), when sparse: integer
                                         * indptr and indices, indptr[0] = 0, non-decreasing,
                                         * indptr[rows] = nnz, indices in [0, cols) (not
                                         * necessarily sorted or distinct within a row) */
} gat_i_pmatrix;

/* The matrix held by value k (a 2-D ndarray, or a csr_matrix whose state dict has _shape,
 * indptr, indices and data, and format 'csr' if present), checked as gat_i_pmatrix says.
 * Returns GAT_EFORMAT naming the file, the value's byte offset and what is wrong. O(rows + nnz). */
gat_status gat_i_pickle_matrix(const gat_i_pickle *pk, uint32_t k, gat_i_pmatrix *m);

#endif
