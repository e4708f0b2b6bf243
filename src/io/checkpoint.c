/* Checkpoint files of gat_train (io/checkpoint.h; the layout is in gat/train.h, "Checkpoints"):
 * the safetensors layout of model files, with the parameters, Adam's moments, the model to
 * restore and the epoch rows as tensors, and the loop's state and what the run must match as
 * "__metadata__" strings. The reader trusts no length, offset or value of the file. */
#include "gat/gat.h"
#include "core/core.h"
#include "io/checkpoint.h"
#include "io/fileio.h"
#include "io/safetensors.h"

#include <cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT "libgat-checkpoint"
#define FORMAT_VERSION "1"
#ifdef GAT_REAL_DOUBLE
#define DTYPE_NAME "F64"
#else
#define DTYPE_NAME "F32"
#endif
/* the fields of gat_epoch_info, in the order of the "history" tensor's columns */
#define HISTORY_COLS 9

/* ---- What a checkpoint must match ------------------------------------------------------- */

/* h and the n bytes at p (p may be NULL when n is 0), mixed 8 bytes at a time. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    uint64_t w = 0;
    size_t i = 0;
    h = gat_i_hash64(h, n);
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, c + i, 8);
        h = gat_i_hash64(h, w);
    }
    for (w = 0; i < n; i++)
        w = w << 8 | c[i];
    return gat_i_hash64(h, w);
}

/* The training settings a checkpoint records and their places in gat_i_ckpt_ident. */
static const struct {
    const char *key;
    size_t at, cap;
} settings[] = {
#define SETTING(f)                                                                                 \
    {                                                                                              \
#f, offsetof(gat_i_ckpt_ident, f), sizeof(((gat_i_ckpt_ident *)0)->f)                      \
    }
    SETTING(lr),           SETTING(beta1),      SETTING(beta2),      SETTING(eps),
    SETTING(weight_decay), SETTING(seed),       SETTING(model_seed), SETTING(batch_size),
    SETTING(fanout),       SETTING(eval_every), SETTING(metric),     SETTING(schedule),
#undef SETTING
};
#define N_SETTINGS (sizeof settings / sizeof *settings)

static const char *setting(const gat_i_ckpt_ident *id, size_t k)
{
    return (const char *)id + settings[k].at;
}

gat_status gat_i_ckpt_ident_init(gat_i_ckpt_ident *id, char *model_text, uint64_t model_seed,
                                 const gat_dataset *ds, const uint8_t *graph_split,
                                 const gat_train_config *cfg, const char *metric)
{
    gat_i_clocale loc = {0};
    gat_status st;
    char buf[32];
    memset(id, 0, sizeof *id);
    if (!(id->model = model_text))
        return gat_i_error(GAT_ENOMEM, "out of memory describing the model of a checkpoint");
    const gat_graph *g = &ds->graph;
    const size_t n = (size_t)ds->n, E = (size_t)g->nnz, nnz = (size_t)ds->x.rowptr[ds->x.rows];
    uint64_t h = hash_bytes(0x6c69626761742d63ull, NULL, 0);
    h = hash_bytes(h, g->rowptr, (n + 1) * sizeof *g->rowptr);
    h = hash_bytes(h, g->col, E * sizeof *g->col);
    h = hash_bytes(h, &ds->x.cols, sizeof ds->x.cols);
    h = hash_bytes(h, ds->x.rowptr, ((size_t)ds->x.rows + 1) * sizeof *ds->x.rowptr);
    h = hash_bytes(h, ds->x.col, nnz * sizeof *ds->x.col);
    h = hash_bytes(h, ds->x.val, nnz * sizeof *ds->x.val);
    h = hash_bytes(h, ds->labels, ds->labels ? n * sizeof *ds->labels : 0);
    h = hash_bytes(h, ds->split, n * sizeof *ds->split);
    if (ds->n_labels > 0) h = hash_bytes(h, ds->label_matrix, n * (size_t)ds->n_labels);
    if (ds->n_edge_features > 0)
        h = hash_bytes(h, ds->edge_x, E * (size_t)ds->n_edge_features * sizeof *ds->edge_x);
    const size_t G = graph_split ? (size_t)ds->n_graphs : 0;
    gat_idx in[4] = {0};
    if (G) {
        h = hash_bytes(h, ds->graph_ptr, (G + 1) * sizeof *ds->graph_ptr);
        h = hash_bytes(h, ds->graph_labels, ds->graph_labels ? G * sizeof *ds->graph_labels : 0);
        h = hash_bytes(h, graph_split, G);
        for (size_t k = 0; k < G; k++)
            in[graph_split[k] < 4 ? graph_split[k] : 0]++;
    }
    id->data_hash = h;
    const int len = snprintf(
        id->data, sizeof id->data, "%d nodes, %d edges, %d features, %d %s, split %d/%d/%d", ds->n,
        g->nnz, ds->n_features, ds->n_labels > 0 ? ds->n_labels : ds->n_classes,
        ds->n_labels > 0 ? "labels" : "classes", ds->n_train, ds->n_val, ds->n_test);
    if (G && len > 0 && (size_t)len < sizeof id->data)
        snprintf(id->data + len, sizeof id->data - (size_t)len, ", %zu graphs split %d/%d/%d", G,
                 in[GAT_SPLIT_TRAIN], in[GAT_SPLIT_VAL], in[GAT_SPLIT_TEST]);

    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) {
        gat_i_ckpt_ident_free(id);
        return st;
    }
    snprintf(id->schedule, sizeof id->schedule, "none");
    if (G) {
        char f[32], m[32];
        snprintf(id->schedule, sizeof id->schedule,
                 "lr_factor %s, lr_patience %d, lr_step %d, min_lr %s, keep_last %d",
                 gat_i_shortest(f, cfg->lr_factor), cfg->lr_patience, cfg->lr_step,
                 gat_i_shortest(m, cfg->min_lr), cfg->keep_last);
    }
    snprintf(id->lr, sizeof id->lr, "%s", gat_i_shortest(buf, cfg->adam.lr));
    snprintf(id->beta1, sizeof id->beta1, "%s", gat_i_shortest(buf, cfg->adam.beta1));
    snprintf(id->beta2, sizeof id->beta2, "%s", gat_i_shortest(buf, cfg->adam.beta2));
    snprintf(id->eps, sizeof id->eps, "%s", gat_i_shortest(buf, cfg->adam.eps));
    snprintf(id->weight_decay, sizeof id->weight_decay, "%s",
             gat_i_shortest(buf, cfg->adam.weight_decay));
    gat_i_clocale_leave(&loc);
    snprintf(id->seed, sizeof id->seed, "%" PRIu64, cfg->seed);
    snprintf(id->model_seed, sizeof id->model_seed, "%" PRIu64, model_seed);
    snprintf(id->batch_size, sizeof id->batch_size, "%d", cfg->batch_size);
    /* the fan-outs matter with mini-batches only */
    size_t at = 0;
    if (cfg->batch_size == 0) snprintf(id->fanout, sizeof id->fanout, "none");
    /* at most GAT_MAX_LAYERS of at most 11 characters and a comma: the buffer holds them */
    for (int h2 = 0; cfg->batch_size > 0 && h2 < cfg->n_fanout && h2 < GAT_MAX_LAYERS; h2++)
        at += (size_t)snprintf(id->fanout + at, sizeof id->fanout - at, "%s%d", h2 ? "," : "",
                               cfg->fanout[h2]);
    snprintf(id->eval_every, sizeof id->eval_every, "%d",
             cfg->eval_every > 1 ? cfg->eval_every : 1);
    snprintf(id->metric, sizeof id->metric, "%s", metric);
    return GAT_OK;
}

void gat_i_ckpt_ident_free(gat_i_ckpt_ident *id)
{
    cJSON_free(id->model);
    id->model = NULL;
}

/* ---- Writing ------------------------------------------------------------------------------ */

static int add_string(cJSON *obj, const char *key, const char *value)
{
    return cJSON_AddStringToObject(obj, key, value) != NULL;
}

static int add_long(cJSON *obj, const char *key, long long v)
{
    char s[32];
    snprintf(s, sizeof s, "%lld", v);
    return add_string(obj, key, s);
}

static int add_double(cJSON *obj, const char *key, double v)
{
    char s[32];
    return add_string(obj, key, gat_i_shortest(s, v)); /* "inf", "-inf" for infinities */
}

/* A tensor entry of dtype, shape (rows[, cols]) at bytes [*at, *at + bytes); *at moves past it. */
static int add_tensor(cJSON *root, const char *name, const char *dtype, size_t rows, size_t cols,
                      size_t elem, size_t *at)
{
    cJSON *e = cJSON_AddObjectToObject(root, name), *shape, *offs;
    const size_t bytes = rows * (cols ? cols : 1) * elem;
    int ok = e && add_string(e, "dtype", dtype) && (shape = cJSON_AddArrayToObject(e, "shape")) &&
             cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)rows)) &&
             (!cols || cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)cols))) &&
             (offs = cJSON_AddArrayToObject(e, "data_offsets")) &&
             cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)*at)) &&
             cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)(*at + bytes)));
    *at += bytes;
    return ok;
}

static cJSON *build_header(const gat_i_ckpt_ident *id, const gat_i_ckpt_state *s, size_t P)
{
    cJSON *root = cJSON_CreateObject(), *md = NULL;
    char hash[24];
    size_t at = 0;
    int ok = root && (md = cJSON_AddObjectToObject(root, "__metadata__"));
    snprintf(hash, sizeof hash, "%016" PRIx64, id->data_hash);
    ok = ok && add_string(md, "format", FORMAT) &&
         add_string(md, "format_version", FORMAT_VERSION) &&
         add_string(md, "libgat_version", gat_version()) && add_string(md, "model", id->model) &&
         add_string(md, "data", id->data) && add_string(md, "data_hash", hash);
    for (size_t k = 0; ok && k < N_SETTINGS; k++)
        ok = add_string(md, settings[k].key, setting(id, k));
    ok = ok && add_long(md, "epoch", s->epoch) && add_long(md, "steps", s->steps) &&
         add_long(md, "dropout_step", (long long)s->dropout) &&
         add_long(md, "best_epoch", s->best_epoch) && add_long(md, "wait", s->wait) &&
         add_long(md, "validated", s->validated) && add_double(md, "best_acc", s->best_acc) &&
         add_double(md, "best_loss", s->best_loss) && add_double(md, "best_auc", s->best_auc) &&
         add_double(md, "seconds", s->seconds);
    static const char *const arrays[] = {"params", "adam_m", "adam_v", "best"};
    for (int k = 0; ok && k < 4; k++)
        ok = add_tensor(root, arrays[k], DTYPE_NAME, P, 0, sizeof(gat_real), &at);
    ok = ok && add_tensor(root, "history", "F64", s->n_history, HISTORY_COLS, 8, &at);
    if (ok) return root;
    cJSON_Delete(root);
    return NULL;
}

/* One epoch row as the history tensor's columns. */
static void history_row(const gat_epoch_info *e, double v[HISTORY_COLS])
{
    v[0] = e->epoch;
    v[1] = e->train_loss;
    v[2] = e->train_acc;
    v[3] = e->val_loss;
    v[4] = e->val_acc;
    v[5] = e->best_epoch;
    v[6] = e->seconds;
    v[7] = e->epoch_seconds;
    v[8] = e->val_auc;
}

static int write_history(FILE *f, const gat_epoch_info *h, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        double v[HISTORY_COLS];
        unsigned char b[HISTORY_COLS * 8];
        history_row(&h[r], v);
        for (int c = 0; c < HISTORY_COLS; c++) {
            uint64_t u;
            memcpy(&u, &v[c], 8);
            for (int k = 0; k < 8; k++)
                b[8 * c + k] = (unsigned char)(u >> (8 * k));
        }
        if (fwrite(b, 1, sizeof b, f) != sizeof b) return -1;
    }
    return 0;
}

/* What a checkpoint's data section holds, in order. */
typedef struct ckpt_data {
    const gat_real *arrays[4]; /* params, adam_m, adam_v, best */
    size_t P;
    const gat_i_ckpt_state *s;
} ckpt_data;

static int write_data(FILE *f, const void *user)
{
    const ckpt_data *d = user;
    for (int k = 0; k < 4; k++)
        if (gat_i_write_le(f, d->arrays[k], d->P) != 0) return -1;
    return write_history(f, d->s->history, d->s->n_history);
}

gat_status gat_i_ckpt_save(const char *path, const gat_i_ckpt_ident *id, const gat_i_ckpt_state *s,
                           const gat_real *params, const gat_real *m1, const gat_real *m2,
                           const gat_real *best, size_t P)
{
    gat_i_clocale loc = {0};
    cJSON *root = NULL;
    char *json = NULL;
    gat_status st;
    const ckpt_data d = {{params, m1, m2, best}, P, s};
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) return st;
    if (!(root = build_header(id, s, P)) || !(json = cJSON_PrintUnformatted(root)))
        st = gat_i_error(GAT_ENOMEM, "out of memory building the header of %s", path);
    else
        st = gat_i_st_write_file(path, json, write_data, &d);
    cJSON_free(json);
    cJSON_Delete(root);
    gat_i_clocale_leave(&loc);
    return st;
}

/* ---- Reading ------------------------------------------------------------------------------ */

/* The first key of the JSON object text `want` whose value differs in `have` (or is missing
 * there), into key/there/here; 0 if none is found (or either does not parse). */
static int first_difference(const char *have, const char *want, char *key, size_t key_cap,
                            char *there, char *here, size_t cap)
{
    cJSON *a = cJSON_Parse(have), *b = cJSON_Parse(want), *it;
    int found = 0;
    if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
        cJSON_ArrayForEach(it, b)
        {
            const cJSON *o = cJSON_GetObjectItemCaseSensitive(a, it->string);
            const char *ours = cJSON_IsString(it) ? it->valuestring : "?";
            const char *theirs = cJSON_IsString(o) ? o->valuestring : "(none)";
            if (strcmp(ours, theirs) == 0) continue;
            snprintf(key, key_cap, "%s", it->string);
            snprintf(there, cap, "%s", theirs);
            snprintf(here, cap, "%s", ours);
            found = 1;
            break;
        }
        /* a key the file has and this model lacks */
        cJSON_ArrayForEach(it, a)
        {
            if (found) break;
            if (cJSON_GetObjectItemCaseSensitive(b, it->string)) continue;
            snprintf(key, key_cap, "%s", it->string);
            snprintf(there, cap, "%s", cJSON_IsString(it) ? it->valuestring : "?");
            snprintf(here, cap, "(none)");
            found = 1;
        }
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
    return found;
}

/* GAT_EINVAL naming the first of the model, data and settings where the file (md) and id differ. */
static gat_status check_ident(const char *path, const cJSON *md, const gat_i_ckpt_ident *id)
{
    const char *model, *data, *hash, *v;
    char key[64], there[96], here[96], want_hash[24];
    gat_status st;
    if ((st = gat_i_st_meta_get(path, md, "model", 1, &model)) != GAT_OK ||
        (st = gat_i_st_meta_get(path, md, "data", 1, &data)) != GAT_OK ||
        (st = gat_i_st_meta_get(path, md, "data_hash", 1, &hash)) != GAT_OK)
        return st;
    if (strcmp(model, id->model) != 0) {
        if (first_difference(model, id->model, key, sizeof key, there, here, sizeof there))
            return gat_i_error(GAT_EINVAL,
                               "%s: the checkpoint is of another model: its %s is %s, this "
                               "model's %s",
                               path, key, there, here);
        return gat_i_error(GAT_EINVAL, "%s: the checkpoint is of another model (%s)", path, model);
    }
    snprintf(want_hash, sizeof want_hash, "%016" PRIx64, id->data_hash);
    if (strcmp(data, id->data) != 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: the checkpoint was written on other data (%s), not this "
                           "dataset (%s)",
                           path, data, id->data);
    if (strcmp(hash, want_hash) != 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: the checkpoint was written on other data: the same sizes (%s) "
                           "but other values (graph, features, labels or split)",
                           path, data);
    for (size_t k = 0; k < N_SETTINGS; k++) {
        /* a file written before graph trainers kept checkpoints has no schedule */
        const int optional = strcmp(settings[k].key, "schedule") == 0;
        if ((st = gat_i_st_meta_get(path, md, settings[k].key, !optional, &v)) != GAT_OK) return st;
        if (!v) v = "none";
        if (strcmp(v, setting(id, k)) != 0)
            return gat_i_error(GAT_EINVAL,
                               "%s: the checkpoint was written with %s = %s, this training has "
                               "%s = %s (resuming needs the settings of the run that wrote it)",
                               path, settings[k].key, v, settings[k].key, setting(id, k));
    }
    return GAT_OK;
}

/* The metadata value under key as a double (finite unless inf_ok) into *out. */
static gat_status meta_double(const char *path, const cJSON *md, const char *key, int inf_ok,
                              double *out)
{
    const char *v;
    char *end;
    gat_status st = gat_i_st_meta_get(path, md, key, 1, &v);
    if (st != GAT_OK) return st;
    errno = 0;
    *out = strtod(v, &end);
    if (end == v || *end || isnan(*out) || (!inf_ok && !isfinite(*out)))
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ \"%s\" is \"%s\", expected a %snumber",
                           path, key, v, inf_ok ? "" : "finite ");
    return GAT_OK;
}

static gat_status meta_idx(const char *path, const cJSON *md, const char *key, long lo,
                           gat_idx *out)
{
    long v = 0;
    gat_status st = gat_i_st_meta_int(path, md, key, lo, INT32_MAX, 1, &v);
    *out = (gat_idx)v;
    return st;
}

/* The state's scalars from the metadata, each checked against the others. */
static gat_status read_state(const char *path, const cJSON *md, gat_i_ckpt_state *s)
{
    gat_status st;
    long dropout = 0;
    if ((st = meta_idx(path, md, "epoch", 0, &s->epoch)) != GAT_OK ||
        (st = meta_idx(path, md, "steps", 0, &s->steps)) != GAT_OK ||
        (st = gat_i_st_meta_int(path, md, "dropout_step", 0, LONG_MAX, 1, &dropout)) != GAT_OK ||
        (st = meta_idx(path, md, "best_epoch", 0, &s->best_epoch)) != GAT_OK ||
        (st = meta_idx(path, md, "wait", 0, &s->wait)) != GAT_OK ||
        (st = meta_idx(path, md, "validated", 0, &s->validated)) != GAT_OK ||
        (st = meta_double(path, md, "best_acc", 0, &s->best_acc)) != GAT_OK ||
        (st = meta_double(path, md, "best_loss", 1, &s->best_loss)) != GAT_OK ||
        (st = meta_double(path, md, "best_auc", 1, &s->best_auc)) != GAT_OK ||
        (st = meta_double(path, md, "seconds", 0, &s->seconds)) != GAT_OK)
        return st;
    s->dropout = (uint64_t)dropout;
    if (s->best_epoch > s->epoch || s->validated > s->epoch || s->wait > s->epoch ||
        s->steps < s->epoch || s->seconds < 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: inconsistent state: epoch %d, steps %d, best_epoch %d, wait %d, "
                           "validated %d, seconds %g",
                           path, s->epoch, s->steps, s->best_epoch, s->wait, s->validated,
                           s->seconds);
    return GAT_OK;
}

/* The tensor `name` of dtype and shape (rows[, cols]) in the data (data_len bytes): *bytes. */
static gat_status find_tensor(const char *path, const cJSON *root, const char *name,
                              const char *dtype, size_t rows, size_t cols, const int rows_known,
                              size_t elem, const unsigned char *data, size_t data_len,
                              const unsigned char **bytes, size_t *n_rows)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, name);
    const char *dt;
    size_t dims[2], span[2];
    int nd;
    gat_status st;
    if (!e) return gat_i_error(GAT_EFORMAT, "%s: no tensor \"%s\"", path, name);
    if ((st = gat_i_st_entry(path, e, name, data_len, &dt, dims, 2, &nd, span)) != GAT_OK)
        return st;
    if (strcmp(dt, dtype) != 0)
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" is %s, expected %s", path, name, dt,
                           dtype);
    if (nd != (cols ? 2 : 1) || (rows_known && dims[0] != rows) || (cols && dims[1] != cols)) {
        char want[48];
        if (cols)
            snprintf(want, sizeof want, "[epochs, %zu]", cols);
        else
            snprintf(want, sizeof want, "[%zu]", rows);
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" has the wrong shape (expected %s)", path,
                           name, want);
    }
    /* dims[0] <= data_len bounds the product below */
    if (dims[0] > data_len || span[1] - span[0] != dims[0] * (cols ? cols : 1) * elem)
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" spans %zu bytes, not its shape's", path,
                           name, span[1] - span[0]);
    *bytes = data + span[0];
    *n_rows = dims[0];
    return GAT_OK;
}

/* Checks the P values of a tensor (finite, and not negative for Adam's second moments) and,
 * when out is not NULL, copies them there. */
static gat_status read_reals(const char *path, const char *name, const unsigned char *b, size_t P,
                             gat_real *out)
{
    const int second = strcmp(name, "adam_v") == 0;
    for (size_t i = 0; i < P; i++) {
        const double v = gat_i_st_get_le(b, sizeof(gat_real), i);
        if (!isfinite(v) || (second && v < 0))
            return gat_i_error(isfinite(v) ? GAT_EFORMAT : GAT_ENUMERIC,
                               "%s: tensor \"%s\" holds %g at %zu", path, name, v, i);
        if (out) out[i] = (gat_real)v;
    }
    return GAT_OK;
}

static gat_status read_history(const char *path, const unsigned char *b, size_t n,
                               gat_epoch_info *h)
{
    for (size_t r = 0; r < n; r++) {
        double v[HISTORY_COLS];
        for (int c = 0; c < HISTORY_COLS; c++)
            v[c] = gat_i_st_get_le(b, 8, r * HISTORY_COLS + (size_t)c);
        if (v[0] != (double)(r + 1) || !(v[5] >= 0 && v[5] <= v[0]) || v[5] != floor(v[5]))
            return gat_i_error(GAT_EFORMAT,
                               "%s: history row %zu is not epoch %zu (epoch %g, best epoch %g)",
                               path, r, r + 1, v[0], v[5]);
        h[r] = (gat_epoch_info){.epoch = (gat_idx)v[0],
                                .train_loss = v[1],
                                .train_acc = v[2],
                                .val_loss = v[3],
                                .val_acc = v[4],
                                .best_epoch = (gat_idx)v[5],
                                .seconds = v[6],
                                .epoch_seconds = v[7],
                                .val_auc = v[8]};
    }
    return GAT_OK;
}

gat_status gat_i_ckpt_load(const char *path, const gat_i_ckpt_ident *id, gat_i_ckpt_state *s,
                           gat_real *params, gat_real *m1, gat_real *m2, gat_real *best, size_t P,
                           gat_i_ckpt_accept accept, void *user)
{
    gat_i_clocale loc = {0};
    unsigned char *file = NULL;
    size_t size = 0, data_at = 0, n_hist = 0;
    cJSON *root = NULL;
    const cJSON *md = NULL;
    const char *fmt, *ver;
    const unsigned char *b[5] = {0};
    gat_status st;
    memset(s, 0, sizeof *s);
    if ((st = gat_i_st_read_file(path, &file, &size)) != GAT_OK ||
        (st = gat_i_clocale_enter(&loc)) != GAT_OK ||
        (st = gat_i_st_parse_header(path, file, size, &root, &data_at)) != GAT_OK ||
        (st = gat_i_st_metadata(path, root, &md)) != GAT_OK)
        goto cleanup;
    if ((st = gat_i_st_meta_get(path, md, "format", 0, &fmt)) != GAT_OK) goto cleanup;
    if (!fmt || strcmp(fmt, FORMAT) != 0) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: not a checkpoint (__metadata__ \"format\" is %s%s%s, expected "
                         "\"" FORMAT "\"; a model file is read by gat_model_load)",
                         path, fmt ? "\"" : "", fmt ? fmt : "absent", fmt ? "\"" : "");
        goto cleanup;
    }
    if ((st = gat_i_st_meta_get(path, md, "format_version", 1, &ver)) != GAT_OK) goto cleanup;
    if (strcmp(ver, FORMAT_VERSION) != 0) {
        st = gat_i_error(
            GAT_EFORMAT,
            "%s: checkpoint format_version \"%s\", this library reads \"" FORMAT_VERSION "\"", path,
            ver);
        goto cleanup;
    }
    if (id && (st = check_ident(path, md, id)) != GAT_OK) goto cleanup;
    if ((st = read_state(path, md, s)) != GAT_OK) goto cleanup;
    if (id && strcmp(id->batch_size, "0") == 0 && s->steps != s->epoch) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: %d steps in %d epochs of full-graph training, which takes one "
                         "step an epoch",
                         path, s->steps, s->epoch);
        goto cleanup;
    }
    static const char *const arrays[] = {"params", "adam_m", "adam_v", "best"};
    const unsigned char *data = file + data_at;
    const size_t data_len = size - data_at;
    size_t rows;
    for (int k = 0; k < 4 && params; k++)
        if ((st = find_tensor(path, root, arrays[k], DTYPE_NAME, P, 0, 1, sizeof(gat_real), data,
                              data_len, &b[k], &rows)) != GAT_OK)
            goto cleanup;
    if ((st = find_tensor(path, root, "history", "F64", 0, HISTORY_COLS, 0, 8, data, data_len,
                          &b[4], &n_hist)) != GAT_OK)
        goto cleanup;
    if (n_hist != (size_t)s->epoch) {
        st = gat_i_error(GAT_EFORMAT, "%s: the history holds %zu epochs, the state says %d", path,
                         n_hist, s->epoch);
        goto cleanup;
    }
    if (n_hist && !(s->history = gat_malloc(n_hist, sizeof *s->history))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    s->n_history = n_hist;
    if ((st = read_history(path, b[4], n_hist, s->history)) != GAT_OK ||
        (accept && (st = accept(s, user)) != GAT_OK))
        goto cleanup;
    /* every value checked before any is copied: a refused file leaves the arrays as they were */
    for (int k = 0; k < 4 && params; k++)
        if ((st = read_reals(path, arrays[k], b[k], P, NULL)) != GAT_OK) goto cleanup;
    gat_real *const out[] = {params, m1, m2, best};
    for (int k = 0; k < 4 && params; k++)
        read_reals(path, arrays[k], b[k], P, out[k]);

cleanup:
    if (st != GAT_OK) {
        gat_free(s->history);
        s->history = NULL;
        s->n_history = 0;
    }
    cJSON_Delete(root);
    gat_free(file);
    gat_i_clocale_leave(&loc);
    return st;
}

gat_status gat_train_checkpoint_history(const char *path, gat_epoch_info **rows, size_t *n)
{
    gat_i_ckpt_state s;
    gat_i_clear_error();
    if (rows) *rows = NULL;
    if (n) *n = 0;
    if (!path || !rows || !n)
        return gat_i_error(GAT_EINVAL, "gat_train_checkpoint_history: NULL %s",
                           !path   ? "path"
                           : !rows ? "rows"
                                   : "n");
    gat_status st = gat_i_ckpt_load(path, NULL, &s, NULL, NULL, NULL, NULL, 0, NULL, NULL);
    if (st != GAT_OK) return st;
    *rows = s.history;
    *n = s.n_history;
    return GAT_OK;
}
