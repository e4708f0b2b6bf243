/* Writers of node-level outputs (gat/embed.h): matrices as .npy, TSV, CSV or word2vec text;
 * attention coefficients and predictions as TSV; training metrics as CSV or JSON lines
 * (gat/train.h). Every file goes through the atomic writer, and
 * numbers are printed in the C locale with enough digits to read back the exact value. */
#include "gat/embed.h"
#include "gat/train.h"
#include "core/core.h"
#include "io/fileio.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef GAT_REAL_DOUBLE
#define REAL_FMT "%.17g"
#define NPY_DESCR "<f8"
#else
#define REAL_FMT "%.9g"
#define NPY_DESCR "<f4"
#endif

/* ---- Formats ------------------------------------------------------------------------------ */

/* Every name gat_file_format_from_name takes; the first of each value is its gat_file_format_name. */
static const char *const format_names[] = {"auto", "npy", "tsv", "csv", "word2vec", "w2v"};
static const int format_values[] = {GAT_FORMAT_AUTO, GAT_FORMAT_NPY, GAT_FORMAT_TSV,
                                    GAT_FORMAT_CSV, GAT_FORMAT_WORD2VEC, GAT_FORMAT_WORD2VEC};
#define N_FORMAT_NAMES ((int)(sizeof format_names / sizeof *format_names))
_Static_assert(sizeof format_values / sizeof *format_values == N_FORMAT_NAMES,
               "one value per format name");

static const struct {
    const char *ext;
    gat_file_format fmt;
} format_exts[] = {{"npy", GAT_FORMAT_NPY},          {"tsv", GAT_FORMAT_TSV},
                   {"tab", GAT_FORMAT_TSV},          {"csv", GAT_FORMAT_CSV},
                   {"w2v", GAT_FORMAT_WORD2VEC},     {"vec", GAT_FORMAT_WORD2VEC},
                   {"word2vec", GAT_FORMAT_WORD2VEC}};

gat_status gat_file_format_from_name(const char *name, gat_file_format *fmt)
{
    int v;
    gat_status st;
    gat_i_clear_error();
    if (!name || !fmt)
        return gat_i_error(GAT_EINVAL, "gat_file_format_from_name: NULL %s", !name ? "name" : "fmt");
    if ((st = gat_i_name_lookup("file format", name, format_names, format_values, N_FORMAT_NAMES,
                                &v)) == GAT_OK)
        *fmt = (gat_file_format)v;
    return st;
}

gat_status gat_file_format_from_path(const char *path, gat_file_format *fmt)
{
    gat_i_clear_error();
    if (!path || !fmt)
        return gat_i_error(GAT_EINVAL, "gat_file_format_from_path: NULL %s", !path ? "path" : "fmt");
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash))
        for (size_t k = 0; k < sizeof format_exts / sizeof *format_exts; k++)
            if (!strcasecmp(dot + 1, format_exts[k].ext)) {
                *fmt = format_exts[k].fmt;
                return GAT_OK;
            }
    return gat_i_error(GAT_EINVAL,
                       "cannot tell the format of %s from its extension: expected .npy, .tsv, "
                       ".tab, .csv, .w2v, .vec or .word2vec (or name the format)",
                       path);
}

const char *gat_file_format_name(gat_file_format fmt)
{
    for (int k = 0; k < N_FORMAT_NAMES; k++)
        if (format_values[k] == (int)fmt) return format_names[k];
    return NULL;
}

/* ---- Output with sticky errors -------------------------------------------------------------- */

/* An atomic output file whose print calls become no-ops after the first failure, which is
 * reported (with its errno) at the end: loops need no error check per value. */
typedef struct out {
    gat_i_afile af;
    gat_i_clocale loc;
    int err; /* errno of the first failed write, or -1 when none failed */
} out;

static gat_status out_open(out *o, const char *path)
{
    gat_status st;
    memset(o, 0, sizeof *o);
    o->err = -1;
    if ((st = gat_i_clocale_enter(&o->loc)) != GAT_OK) return st;
    if ((st = gat_i_afile_open(&o->af, path)) != GAT_OK) gat_i_clocale_leave(&o->loc);
    return st;
}

static void out_printf(out *o, const char *fmt, ...) GAT_I_PRINTF(2, 3);
static void out_printf(out *o, const char *fmt, ...)
{
    va_list ap;
    if (o->err >= 0) return;
    errno = 0;
    va_start(ap, fmt);
    if (vfprintf(o->af.f, fmt, ap) < 0) o->err = errno;
    va_end(ap);
}

static void out_puts(out *o, const char *s)
{
    if (o->err >= 0) return;
    errno = 0;
    if (fputs(s, o->af.f) == EOF) o->err = errno;
}

static void out_write(out *o, const void *p, size_t n)
{
    if (o->err >= 0) return;
    errno = 0;
    if (n && fwrite(p, 1, n, o->af.f) != n) o->err = errno;
}

/* Commits the file if every write succeeded, else removes it; either way releases o. */
static gat_status out_close(out *o, gat_status st)
{
    if (st == GAT_OK && o->err >= 0) {
        errno = o->err;
        st = gat_i_afile_write_error(&o->af);
    }
    if (st == GAT_OK) st = gat_i_afile_commit(&o->af);
    gat_i_afile_abort(&o->af);
    gat_i_clocale_leave(&o->loc);
    return st;
}

/* ---- Ids --------------------------------------------------------------------------------------
 */

/* Whether each of the n strings (NULL: row numbers, always fine) can be a field of fmt (TSV for
 * the attention and prediction files). what names them in the message. */
static gat_status check_ids(const char *const *ids, gat_idx n, gat_file_format fmt,
                            const char *what)
{
    if (!ids || fmt == GAT_FORMAT_NPY) return GAT_OK;
    const char *bad = fmt == GAT_FORMAT_TSV ? "\t\n\r" : " \t\n\r\v\f";
    for (gat_idx i = 0; i < n; i++) {
        if (!ids[i]) return gat_i_error(GAT_EINVAL, "%s %d is NULL", what, i);
        if (fmt == GAT_FORMAT_CSV) continue; /* quoting holds anything */
        if (fmt == GAT_FORMAT_WORD2VEC && !ids[i][0])
            return gat_i_error(GAT_EINVAL, "%s %d is empty, which word2vec cannot hold", what, i);
        if (ids[i][strcspn(ids[i], bad)])
            return gat_i_error(GAT_EINVAL, "%s %d ('%s') holds %s, which %s cannot hold", what, i,
                               ids[i],
                               fmt == GAT_FORMAT_TSV ? "a tab or a line break" : "whitespace",
                               fmt == GAT_FORMAT_TSV ? "TSV" : "word2vec");
    }
    return GAT_OK;
}

/* Writes id i (or the number i) as a field of fmt. */
static void put_id(out *o, const char *const *ids, gat_idx i, gat_file_format fmt)
{
    if (!ids) {
        out_printf(o, "%d", i);
        return;
    }
    const char *s = ids[i];
    if (fmt != GAT_FORMAT_CSV || !s[strcspn(s, ",\"\r\n")]) {
        out_puts(o, s);
        return;
    }
    out_puts(o, "\"");
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        out_write(o, s, (size_t)(q - s) + 1);
        out_puts(o, "\""); /* a quote inside a quoted field is doubled */
    }
    out_puts(o, s);
    out_puts(o, "\"");
}

/* ---- Matrices ---------------------------------------------------------------------------------
 */

/* NumPy's format 1.0: magic, version, u16 header length, a Python dict literal padded with spaces
 * and ended by '\n' so that the data starts at a multiple of 64 bytes. */
static void write_npy(out *o, gat_idx rows, gat_idx cols, const gat_real *data)
{
    char dict[128];
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    const int n = snprintf(
        dict, sizeof dict,
        "{'descr': '" NPY_DESCR "', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols);
    const size_t pad = (64 - ((size_t)10 + (size_t)n + 1) % 64) % 64;
    const size_t hlen = (size_t)n + pad + 1;
    pre[8] = (unsigned char)(hlen & 0xff);
    pre[9] = (unsigned char)(hlen >> 8);
    out_write(o, pre, sizeof pre);
    out_write(o, dict, (size_t)n);
    for (size_t k = 0; k < pad; k++)
        out_puts(o, " ");
    out_puts(o, "\n");
    if (o->err < 0) {
        errno = 0;
        if (gat_i_write_le(o->af.f, data, (size_t)rows * (size_t)cols) != 0) o->err = errno;
    }
}

static void write_text(out *o, gat_file_format fmt, gat_idx rows, gat_idx cols,
                       const gat_real *data, const char *const *ids, unsigned flags)
{
    const char *sep = fmt == GAT_FORMAT_TSV ? "\t" : fmt == GAT_FORMAT_CSV ? "," : " ";
    if (fmt == GAT_FORMAT_WORD2VEC) {
        out_printf(o, "%d %d\n", rows, cols);
    } else if (!(flags & GAT_WRITE_NO_HEADER)) {
        out_puts(o, "id");
        for (gat_idx c = 0; c < cols; c++)
            out_printf(o, "%sd%d", sep, c);
        out_puts(o, "\n");
    }
    for (gat_idx i = 0; i < rows && o->err < 0; i++) {
        const gat_real *r = data + (size_t)i * (size_t)cols;
        put_id(o, ids, i, fmt);
        for (gat_idx c = 0; c < cols; c++)
            out_printf(o, "%s" REAL_FMT, sep, (double)r[c]);
        out_puts(o, "\n");
    }
}

gat_status gat_matrix_save(const char *path, gat_file_format fmt, gat_idx rows, gat_idx cols,
                           const gat_real *data, const char *const *ids, unsigned flags)
{
    gat_status st;
    out o;

    gat_i_clear_error();
    if (!path) return gat_i_error(GAT_EINVAL, "gat_matrix_save: path is NULL");
    if (rows < 0 || cols < 0)
        return gat_i_error(GAT_EINVAL, "gat_matrix_save: negative size %d x %d", rows, cols);
    if (!data && rows > 0 && cols > 0)
        return gat_i_error(GAT_EINVAL, "gat_matrix_save: data is NULL");
    if (flags & ~(unsigned)GAT_WRITE_NO_HEADER)
        return gat_i_error(GAT_EINVAL, "gat_matrix_save: unknown flag bits 0x%x", flags);
    if (fmt == GAT_FORMAT_AUTO && (st = gat_file_format_from_path(path, &fmt)) != GAT_OK) return st;
    if (fmt != GAT_FORMAT_NPY && fmt != GAT_FORMAT_TSV && fmt != GAT_FORMAT_CSV &&
        fmt != GAT_FORMAT_WORD2VEC)
        return gat_i_error(GAT_EINVAL, "gat_matrix_save: unknown format %d", (int)fmt);
    if ((st = check_ids(ids, rows, fmt, "row id")) != GAT_OK) return st;
    if ((st = out_open(&o, path)) != GAT_OK) return st;
    if (fmt == GAT_FORMAT_NPY)
        write_npy(&o, rows, cols, data);
    else
        write_text(&o, fmt, rows, cols, data, ids, flags);
    return out_close(&o, GAT_OK);
}

gat_status gat_ids_save(const char *path, gat_idx n, const char *const *ids)
{
    gat_status st;
    out o;

    gat_i_clear_error();
    if (!path) return gat_i_error(GAT_EINVAL, "gat_ids_save: path is NULL");
    if (n < 0) return gat_i_error(GAT_EINVAL, "gat_ids_save: negative count %d", n);
    if ((st = check_ids(ids, n, GAT_FORMAT_TSV, "id")) != GAT_OK) return st;
    if ((st = out_open(&o, path)) != GAT_OK) return st;
    /* a TSV file of no value columns and no header: one id per line (rows of no values point
     * at none, never at NULL + 0) */
    static const gat_real none = 0;
    write_text(&o, GAT_FORMAT_TSV, n, 0, &none, ids, GAT_WRITE_NO_HEADER);
    return out_close(&o, GAT_OK);
}

/* ---- Attention and predictions ----------------------------------------------------------------
 */

gat_status gat_attention_save(const char *path, gat_model *m, const gat_graph *g, const gat_csr *x,
                              const char *const *ids, unsigned flags)
{
    return gat_attention_save_edges(path, m, g, x, ids, NULL, flags);
}

gat_status gat_attention_save_edges(const char *path, gat_model *m, const gat_graph *g,
                                    const gat_csr *x, const char *const *ids,
                                    const gat_idx *edge_input, unsigned flags)
{
    const gat_real *logits, *alpha;
    gat_status st;
    out o;

    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_attention_save", 4, (const void *[]){path, m, g, x},
                               (const char *[]){"path", "model m", "graph g", "features x"})) !=
        GAT_OK)
        return st;
    if (flags & ~(unsigned)GAT_WRITE_NO_HEADER)
        return gat_i_error(GAT_EINVAL, "gat_attention_save: unknown flag bits 0x%x", flags);
    if ((st = gat_model_forward(m, g, x, 0, &logits)) != GAT_OK) return st;
    if ((st = check_ids(ids, g->n, GAT_FORMAT_TSV, "node id")) != GAT_OK) return st;
    for (gat_idx e = 0; edge_input && e < g->nnz; e++)
        if (edge_input[e] < -1)
            return gat_i_error(GAT_EINVAL, "gat_attention_save: edge_input[%d] = %d, expected >= -1",
                               e, edge_input[e]);
    if ((st = out_open(&o, path)) != GAT_OK) return st;
    if (!(flags & GAT_WRITE_NO_HEADER)) out_puts(&o, "layer\thead\tdst\tsrc\talpha\tedge\tself_loop\n");
    for (int l = 0; l < gat_model_layer_count(m) && st == GAT_OK; l++) {
        const int H = gat_model_layer_heads(m, l);
        if ((st = gat_model_attention(m, l, &alpha)) != GAT_OK) break;
        for (int h = 0; h < H && o.err < 0; h++)
            for (gat_idx i = 0; i < g->n; i++)
                for (gat_idx e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
                    const int loop = g->col[e] == i;
                    out_printf(&o, "%d\t%d\t", l, h);
                    put_id(&o, ids, i, GAT_FORMAT_TSV);
                    out_puts(&o, "\t");
                    put_id(&o, ids, g->col[e], GAT_FORMAT_TSV);
                    out_printf(&o, "\t" REAL_FMT "\t",
                               (double)alpha[(size_t)e * (size_t)H + (size_t)h]);
                    if (edge_input)
                        out_printf(&o, "%d\t%d\n", edge_input[e], loop);
                    else if (loop)
                        out_puts(&o, "-1\t1\n");
                    else
                        out_puts(&o, "NA\t0\n");
                }
    }
    return out_close(&o, st);
}

/* The TSV of gat_predictions_save from checked arrays. */
static gat_status write_predictions(const char *path, gat_idx n, gat_idx n_classes,
                                    const gat_idx *cls, const gat_real *prob,
                                    const char *const *ids, const char *const *class_names,
                                    unsigned flags)
{
    out o;
    gat_status st;
    (void)n_classes;
    if ((st = out_open(&o, path)) != GAT_OK) return st;
    if (!(flags & GAT_WRITE_NO_HEADER)) out_puts(&o, "id\tclass\tprobability\n");
    for (gat_idx i = 0; i < n && o.err < 0; i++) {
        put_id(&o, ids, i, GAT_FORMAT_TSV);
        out_puts(&o, "\t");
        put_id(&o, class_names, cls[i], GAT_FORMAT_TSV);
        out_printf(&o, "\t" REAL_FMT "\n", (double)prob[i]);
    }
    return out_close(&o, GAT_OK);
}

gat_status gat_predictions_save(const char *path, gat_model *m, const gat_graph *g,
                                const gat_csr *x, const char *const *ids,
                                const char *const *class_names, unsigned flags)
{
    gat_idx *cls = NULL;
    gat_real *prob = NULL;
    gat_status st;

    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_predictions_save", 4, (const void *[]){path, m, g, x},
                               (const char *[]){"path", "model m", "graph g", "features x"})) !=
        GAT_OK)
        return st;
    if (flags & ~(unsigned)GAT_WRITE_NO_HEADER)
        return gat_i_error(GAT_EINVAL, "gat_predictions_save: unknown flag bits 0x%x", flags);
    if ((st = check_ids(ids, g->n, GAT_FORMAT_TSV, "node id")) != GAT_OK ||
        (st = check_ids(class_names, gat_model_get_config(m)->classes, GAT_FORMAT_TSV,
                        "class name")) != GAT_OK)
        return st;
    const size_t n = (size_t)(g->n > 0 ? g->n : 0);
    if (!(cls = gat_malloc(n, sizeof *cls)) || !(prob = gat_malloc(n, sizeof *prob))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    if ((st = gat_model_predict(m, g, x, cls, prob)) != GAT_OK) goto cleanup;
    st = write_predictions(path, g->n, gat_model_get_config(m)->classes, cls, prob, ids,
                           class_names, flags);

cleanup:
    gat_free(cls);
    gat_free(prob);
    return st;
}

gat_status gat_predictions_write(const char *path, gat_idx n, gat_idx n_classes,
                                 const gat_idx *classes, const gat_real *probability,
                                 const char *const *ids, const char *const *class_names,
                                 unsigned flags)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_predictions_write", 3, (const void *[]){path, classes, probability},
                               (const char *[]){"path", "classes", "probability"})) != GAT_OK)
        return st;
    if (n < 0 || n_classes < 1)
        return gat_i_error(GAT_EINVAL, "gat_predictions_write: n = %d, n_classes = %d", n,
                           n_classes);
    if (flags & ~(unsigned)GAT_WRITE_NO_HEADER)
        return gat_i_error(GAT_EINVAL, "gat_predictions_write: unknown flag bits 0x%x", flags);
    for (gat_idx i = 0; i < n; i++)
        if (classes[i] < 0 || classes[i] >= n_classes)
            return gat_i_error(GAT_EINVAL, "gat_predictions_write: node %d has class %d outside "
                               "[0, %d)", i, classes[i], n_classes);
    if ((st = check_ids(ids, n, GAT_FORMAT_TSV, "node id")) != GAT_OK ||
        (st = check_ids(class_names, n_classes, GAT_FORMAT_TSV, "class name")) != GAT_OK)
        return st;
    return write_predictions(path, n, n_classes, classes, probability, ids, class_names, flags);
}

/* ---- Training metrics ----------------------------------------------------------------------- */

/* One metric: a CSV field, or a JSON member (null for NaN or Inf, which JSON lacks). */
static void put_metric(out *o, int jsonl, const char *key, double v, int last)
{
    char buf[32];
    if (!jsonl)
        out_printf(o, "%s%s", gat_i_shortest(buf, v), last ? "\n" : ",");
    else if (isfinite(v))
        out_printf(o, "\"%s\":%s%s", key, gat_i_shortest(buf, v), last ? "}\n" : ",");
    else
        out_printf(o, "\"%s\":null%s", key, last ? "}\n" : ",");
}

gat_status gat_metrics_save(const char *path, const gat_epoch_info *rows, const gat_idx *runs,
                            size_t n)
{
    out o;
    gat_status st;
    gat_i_clear_error();
    if (!path) return gat_i_error(GAT_EINVAL, "gat_metrics_save: path is NULL");
    if (!rows && n > 0)
        return gat_i_error(GAT_EINVAL, "gat_metrics_save: rows is NULL but n = %zu", n);
    const size_t len = strlen(path);
    const int jsonl = len >= 6 && !strcasecmp(path + len - 6, ".jsonl");
    if ((st = out_open(&o, path)) != GAT_OK) return st;
    if (!jsonl)
        out_printf(&o, "%sepoch,train_loss,train_acc,val_loss,val_acc,best_epoch,seconds,"
                   "epoch_ms\n", runs ? "run," : "");
    for (size_t k = 0; k < n && o.err < 0; k++) {
        const gat_epoch_info *r = &rows[k];
        if (jsonl) out_puts(&o, "{");
        if (runs) out_printf(&o, jsonl ? "\"run\":%d," : "%d,", runs[k]);
        out_printf(&o, jsonl ? "\"epoch\":%d," : "%d,", r->epoch);
        put_metric(&o, jsonl, "train_loss", r->train_loss, 0);
        put_metric(&o, jsonl, "train_acc", r->train_acc, 0);
        put_metric(&o, jsonl, "val_loss", r->val_loss, 0);
        put_metric(&o, jsonl, "val_acc", r->val_acc, 0);
        out_printf(&o, jsonl ? "\"best_epoch\":%d," : "%d,", r->best_epoch);
        put_metric(&o, jsonl, "seconds", r->seconds, 0);
        put_metric(&o, jsonl, "epoch_ms", 1e3 * r->epoch_seconds, 1);
    }
    return out_close(&o, GAT_OK);
}

/* ---- Split files ------------------------------------------------------------------------- */

gat_status gat_dataset_save_split(const gat_dataset *ds, const char *path)
{
    static const char *const word[] = {NULL, "train", "val", "test"};
    out o;
    gat_status st;

    gat_i_clear_error();
    if (!ds || !path || !*path)
        return gat_i_error(GAT_EINVAL, "gat_dataset_save_split: NULL or empty %s",
                           !ds ? "dataset" : "path");
    if (ds->n > 0 && (!ds->split || !ds->node_ids))
        return gat_i_error(GAT_EINVAL, "gat_dataset_save_split: the dataset has no %s",
                           !ds->split ? "split" : "node ids");
    /* the split reader cuts fields at blanks and skips '#' lines: such an id would not read back */
    for (gat_idx i = 0; i < ds->n; i++) {
        const char *id = ds->node_ids[i];
        if (ds->split[i] == GAT_SPLIT_NONE) continue;
        if (ds->split[i] > GAT_SPLIT_TEST)
            return gat_i_error(GAT_EINVAL, "gat_dataset_save_split: node %d has split value %u", i,
                               (unsigned)ds->split[i]);
        if (!id || !*id || id[0] == '#' || strpbrk(id, " \t\r\n"))
            return gat_i_error(GAT_EINVAL,
                               "gat_dataset_save_split: node %d's id \"%s\" is empty, starts with "
                               "'#' or holds white space: a split file cannot name it",
                               i, id ? id : "(null)");
    }
    if ((st = out_open(&o, path)) != GAT_OK) return st;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->split[i] != GAT_SPLIT_NONE)
            out_printf(&o, "%s\t%s\n", ds->node_ids[i], word[ds->split[i]]);
    return out_close(&o, GAT_OK);
}
