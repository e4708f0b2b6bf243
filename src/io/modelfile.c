/* Model files in the safetensors layout (gat/modelfile.h): u64 little-endian header length, a
 * JSON header (tensor entries and "__metadata__" strings, built and parsed with cJSON), then the
 * parameter buffer in table order, little-endian. The loader trusts no length, offset or name. */
/* cJSON allocates with malloc: its allocation hooks are process-wide, so they are left to the
 * host program, and only libgat's own buffers go through gat_malloc (and its fault injection).
 * A failed cJSON parse also records its position in a cJSON global, which nothing here reads. */
#include "gat/gat.h"
#include "core/core.h"
#include "model/model_i.h" /* GAT_I_MAX_TENSORS */
#include "model/gps_i.h"   /* GAT_I_GPS_MAX_TENSORS */
#include "io/fileio.h"
#include "io/safetensors.h"
#include "io/checkpoint.h" /* gat_i_model_config_text */

#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_VERSION "1"
/* the longest tensor table of a gat_model or a gat_gps */
#define MAX_FILE_TENSORS                                                                           \
    (GAT_I_MAX_TENSORS > GAT_I_GPS_MAX_TENSORS ? GAT_I_MAX_TENSORS : GAT_I_GPS_MAX_TENSORS)

#ifdef GAT_REAL_DOUBLE
#define DTYPE_NAME "F64"
#else
#define DTYPE_NAME "F32"
#endif

void gat_model_meta_init(gat_model_meta *meta)
{
    if (!meta) return;
    memset(meta, 0, sizeof *meta);
    meta->normalize = 1;
    meta->symmetrize = 1;
}

/* What gat_model_load allocates for a meta (its private `storage`): the strings its public
 * fields point to. A meta the caller filled has none, so destroying it frees nothing. */
typedef struct meta_storage {
    gat_idx n_classes;
    char **class_names; /* (n_classes) */
    char *dataset, *version, *pe;
    gat_real *shift, *scale; /* feature_shift, feature_scale */
} meta_storage;

void gat_model_meta_destroy(gat_model_meta *meta)
{
    if (!meta) return;
    meta_storage *own = meta->storage;
    if (own) {
        for (gat_idx c = 0; own->class_names && c < own->n_classes; c++)
            gat_free(own->class_names[c]);
        gat_free(own->class_names);
        gat_free(own->dataset);
        gat_free(own->version);
        gat_free(own->pe);
        gat_free(own->shift);
        gat_free(own->scale);
        gat_free(own);
    }
    gat_model_meta_init(meta);
}

/* ---- Saving ------------------------------------------------------------------------------ */

static gat_status check_text(const char *s, const char *what, const char *who)
{
    size_t at;
    if (!s) return gat_i_error(GAT_EINVAL, "%s: %s is NULL", who, what);
    if (!gat_i_utf8_valid((const unsigned char *)s, strlen(s), &at))
        return gat_i_error(GAT_EINVAL, "%s: %s is not valid UTF-8 (byte %zu)", who, what, at);
    return GAT_OK;
}

/* A meta's encoding spec: one gat_pe_spec_parse takes, with fewer columns than the model's
 * inputs; failures are `bad` (GAT_EINVAL saving, GAT_EFORMAT loading), starting with `who`. */
static gat_status check_pe(const char *pe, gat_idx in_features, const char *who, gat_status bad)
{
    gat_pe_spec spec;
    char why[256];
    if (gat_pe_spec_parse(pe, &spec) != GAT_OK) {
        snprintf(why, sizeof why, "%s", gat_last_error());
        return gat_i_error(bad, "%s: pe \"%.64s\": %s", who, pe, why);
    }
    if (spec.lap_k + spec.rw_k >= in_features)
        return gat_i_error(bad, "%s: pe \"%s\" has %d columns, the model only %d inputs", who, pe,
                           spec.lap_k + spec.rw_k, in_features);
    return GAT_OK;
}

/* A meta saved beside a model of in_features inputs and out_classes outputs; messages start with
 * who. */
static gat_status check_meta(const gat_model_meta *meta, gat_idx in_features, gat_idx out_classes,
                             const char *who)
{
    gat_status st;
    char what[64];
    if (meta->n_classes != 0 && meta->n_classes != out_classes)
        return gat_i_error(GAT_EINVAL, "%s: meta names %d classes but the model has %d", who,
                           meta->n_classes, out_classes);
    if (meta->n_classes > 0 && !meta->class_names)
        return gat_i_error(GAT_EINVAL, "%s: meta class_names is NULL", who);
    for (gat_idx c = 0; c < meta->n_classes; c++) {
        snprintf(what, sizeof what, "class name %d", c);
        if ((st = check_text(meta->class_names[c], what, who)) != GAT_OK) return st;
    }
    if (meta->dataset && (st = check_text(meta->dataset, "the dataset name", who)) != GAT_OK)
        return st;
    if (meta->pe && *meta->pe && (st = check_pe(meta->pe, in_features, who, GAT_EINVAL)) != GAT_OK)
        return st;
    if (meta->n_standardized < 0 || meta->n_standardized > in_features)
        return gat_i_error(GAT_EINVAL,
                           "%s: meta n_standardized is %d, the model has "
                           "%d input features",
                           who, meta->n_standardized, in_features);
    if (meta->n_standardized > 0 && (!meta->feature_shift || !meta->feature_scale))
        return gat_i_error(GAT_EINVAL, "%s: meta feature_%s is NULL", who,
                           !meta->feature_shift ? "shift" : "scale");
    for (gat_idx c = 0; c < meta->n_standardized; c++)
        if (!isfinite(meta->feature_shift[c]) || !isfinite(meta->feature_scale[c]))
            return gat_i_error(GAT_EINVAL,
                               "%s: meta feature column %d: shift %g, "
                               "scale %g (not finite)",
                               who, c, (double)meta->feature_shift[c],
                               (double)meta->feature_scale[c]);
    if (!gat_tu_features_name(meta->tu_features))
        return gat_i_error(GAT_EINVAL,
                           "%s: meta tu_features is %d, not a "
                           "GAT_TU_FEATURES_* value",
                           who, meta->tu_features);
    if (meta->largest_component != 0 && meta->largest_component != 1)
        return gat_i_error(GAT_EINVAL, "%s: meta largest_component is %d, expected 0 or 1", who,
                           meta->largest_component);
    if (meta->min_class_nodes < 0)
        return gat_i_error(GAT_EINVAL, "%s: meta min_class_nodes is %d, negative", who,
                           meta->min_class_nodes);
    return GAT_OK;
}

/* The data section is the parameter buffer p (n_params values) only if the table t (nt tensors)
 * tiles it in order; and every value must be finite. */
static gat_status check_params(const gat_model_tensor *t, int nt, const gat_real *p,
                               size_t n_params, const char *who)
{
    size_t next = 0;
    for (int k = 0; k < nt; next += t[k].size, k++)
        if (t[k].offset != next)
            return gat_i_error(GAT_EINTERNAL, "tensor %s is not at offset %zu", t[k].name, next);
    if (next != n_params)
        return gat_i_error(GAT_EINTERNAL, "tensor table does not cover the parameters");
    for (int k = 0; k < nt; k++)
        for (size_t i = 0; i < t[k].size; i++)
            if (!isfinite(p[t[k].offset + i]))
                return gat_i_error(GAT_ENUMERIC, "%s: tensor %s holds %g at index %zu", who,
                                   t[k].name, (double)p[t[k].offset + i], i);
    return GAT_OK;
}

static gat_status check_save(const gat_model *m, const gat_model_meta *meta)
{
    const gat_model_config *cfg = gat_model_get_config(m);
    gat_status st;
    const gat_idx out_classes = cfg->task == GAT_TASK_GRAPH ? cfg->graph_classes : cfg->classes;
    if ((st = check_meta(meta, cfg->in_features, out_classes, "gat_model_save")) != GAT_OK)
        return st;
    if (!gat_score_name(cfg->score))
        return gat_i_error(GAT_EINVAL, "gat_model_save: score function %d has no name",
                           (int)cfg->score);
    int nt;
    size_t n_params;
    const gat_model_tensor *t = gat_model_tensors(m, &nt);
    const gat_real *p = gat_model_params((gat_model *)m, &n_params);
    return check_params(t, nt, p, n_params, "gat_model_save");
}

static int add_string(cJSON *obj, const char *key, const char *value)
{
    return cJSON_AddStringToObject(obj, key, value) != NULL;
}

static int add_int(cJSON *obj, const char *key, long v)
{
    char s[32];
    snprintf(s, sizeof s, "%ld", v);
    return add_string(obj, key, s);
}

/* v as the shortest decimal that reads back exactly ("0.2", not "0.20000000000000001"; the
 * caller has switched to the C locale). */
static int add_real(cJSON *obj, const char *key, double v)
{
    char s[32];
    return add_string(obj, key, gat_i_shortest(s, v));
}

/* A JSON array of numbers, attached to obj under key; 0 if an allocation failed. */
static int add_numbers(cJSON *obj, const char *key, const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    if (!a) return 0;
    for (int k = 0; k < n; k++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(v[k]))) {
            cJSON_Delete(a);
            return 0;
        }
    if (cJSON_AddItemToObject(obj, key, a)) return 1;
    cJSON_Delete(a);
    return 0;
}

/* n values as a JSON array in a string under key (the metadata's values are strings); 0 if an
 * allocation failed. */
static int add_real_array(cJSON *obj, const char *key, const gat_real *v, gat_idx n)
{
    cJSON *a = cJSON_CreateArray();
    char *text = NULL;
    int ok = a != NULL;
    for (gat_idx k = 0; ok && k < n; k++)
        ok = cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[k]));
    ok = ok && (text = cJSON_PrintUnformatted(a)) && add_string(obj, key, text);
    cJSON_free(text);
    cJSON_Delete(a);
    return ok;
}

/* What every model file's metadata ends with: the meta's class names, dataset, encodings, TU
 * features, standardisation and dataset cuts (each only when set). 0 if an allocation failed. */
static int add_meta_tail(cJSON *md, const gat_model_meta *meta)
{
    cJSON *names = NULL;
    char *names_json = NULL;
    int ok = 1;
    if (meta->n_classes > 0)
        ok = (names = cJSON_CreateStringArray(meta->class_names, meta->n_classes)) &&
             (names_json = cJSON_PrintUnformatted(names)) &&
             add_string(md, "class_names", names_json);
    if (ok && meta->dataset) ok = add_string(md, "dataset", meta->dataset);
    if (ok && meta->pe && *meta->pe) ok = add_string(md, "pe", meta->pe);
    if (ok && meta->tu_features != GAT_TU_FEATURES_ALL)
        ok = add_string(md, "tu_features", gat_tu_features_name(meta->tu_features));
    if (ok && meta->n_standardized > 0)
        ok = add_real_array(md, "feature_shift", meta->feature_shift, meta->n_standardized) &&
             add_real_array(md, "feature_scale", meta->feature_scale, meta->n_standardized);
    if (ok && meta->largest_component) ok = add_int(md, "largest_component", 1);
    if (ok && meta->min_class_nodes > 0) ok = add_int(md, "min_class_nodes", meta->min_class_nodes);
    cJSON_Delete(names);
    cJSON_free(names_json);
    return ok;
}

/* The tensor entries of table t (nt tensors), in table order. 0 if an allocation failed. */
static int add_tensors(cJSON *root, const gat_model_tensor *t, int nt)
{
    int ok = 1;
    for (int k = 0; ok && k < nt; k++) {
        cJSON *e = cJSON_AddObjectToObject(root, t[k].name);
        double shape[3], span[2];
        for (int d = 0; d < t[k].ndim; d++)
            shape[d] = t[k].shape[d];
        span[0] = (double)(t[k].offset * sizeof(gat_real));
        span[1] = (double)((t[k].offset + t[k].size) * sizeof(gat_real));
        ok = e && add_string(e, "dtype", DTYPE_NAME) && add_numbers(e, "shape", shape, t[k].ndim) &&
             add_numbers(e, "data_offsets", span, 2);
    }
    return ok;
}

/* The header object: metadata first, then the tensors in table order. NULL if out of memory. */
static cJSON *build_header(const gat_model *m, const gat_model_meta *meta)
{
    const gat_model_config *c = gat_model_get_config(m);
    cJSON *root = cJSON_CreateObject(), *md = NULL, *heads = NULL;
    char *heads_json = NULL;
    int nt, ok = root && (md = cJSON_AddObjectToObject(root, "__metadata__"));
    const gat_model_tensor *t = gat_model_tensors(m, &nt);
    int hidden_heads[GAT_MAX_LAYERS];
    for (int l = 0; l + 1 < c->layers; l++)
        hidden_heads[l] = gat_model_layer_heads(m, l);

    ok = ok && add_string(md, "format_version", FORMAT_VERSION) &&
         add_string(md, "libgat_version", gat_version()) &&
         add_int(md, "in_features", c->in_features) && add_int(md, "classes", c->classes) &&
         add_int(md, "layers", c->layers) && add_int(md, "hidden", c->hidden) &&
         add_int(md, "heads", c->heads) && add_int(md, "out_heads", c->out_heads) &&
         add_real(md, "negative_slope", c->negative_slope) &&
         add_real(md, "in_dropout", c->in_dropout) && add_real(md, "att_dropout", c->att_dropout) &&
         add_string(md, "score", gat_score_name(c->score)) && add_string(md, "activation", "elu") &&
         add_int(md, "residual", c->residual) && add_int(md, "edge_dim", c->edge_dim) &&
         (heads = cJSON_CreateIntArray(hidden_heads, c->layers - 1)) &&
         (heads_json = cJSON_PrintUnformatted(heads)) &&
         add_string(md, "hidden_heads", heads_json) &&
         add_int(md, "normalize", meta->normalize != 0) &&
         add_int(md, "symmetrize", meta->symmetrize != 0);
    /* the reference code's dropout placement, when used: other models' files stay as they were */
    if (ok && c->head_dropout) ok = add_int(md, "head_dropout", c->head_dropout);
    if (ok && c->proj_dropout > 0) ok = add_real(md, "proj_dropout", c->proj_dropout);
    if (ok && c->score_bias) ok = add_int(md, "score_bias", c->score_bias);
    if (ok && c->whole_scores) ok = add_int(md, "whole_scores", c->whole_scores);
    /* graph models only: node models' files stay as they were */
    if (ok && c->task == GAT_TASK_GRAPH)
        ok = add_string(md, "task", gat_task_name(c->task)) &&
             add_string(md, "readout", gat_readout_name(c->readout)) &&
             add_int(md, "readout_heads", c->readout_heads) &&
             add_int(md, "readout_hidden", c->readout_hidden) &&
             add_int(md, "graph_classes", c->graph_classes) &&
             (c->classifier_layers == 0 ||
              add_int(md, "classifier_layers", c->classifier_layers));
    ok = ok && add_meta_tail(md, meta) && add_tensors(root, t, nt);
    cJSON_Delete(heads);
    cJSON_free(heads_json);
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

static cJSON *gps_header(const gat_gps *m, const gat_model_meta *meta);

/* The "__metadata__" of the header of m (a GAT model) or else g (a graph transformer), with
 * default meta, without the version and the dataset keys, as JSON text: what a checkpoint's
 * model must match. NULL: out of memory, or the C locale not entered. */
static char *config_text(const gat_model *m, const gat_gps *g)
{
    gat_model_meta meta;
    gat_i_clocale loc = {0};
    gat_model_meta_init(&meta);
    if (gat_i_clocale_enter(&loc) != GAT_OK) return NULL;
    cJSON *root = m ? build_header(m, &meta) : gps_header(g, &meta);
    cJSON *md = root ? cJSON_GetObjectItemCaseSensitive(root, "__metadata__") : NULL;
    char *text = NULL;
    if (md) {
        /* what the reading tools need, not the model: the version and how data was read */
        cJSON_DeleteItemFromObjectCaseSensitive(md, "libgat_version");
        cJSON_DeleteItemFromObjectCaseSensitive(md, "normalize");
        cJSON_DeleteItemFromObjectCaseSensitive(md, "symmetrize");
        text = cJSON_PrintUnformatted(md);
    }
    cJSON_Delete(root);
    gat_i_clocale_leave(&loc);
    return text;
}

char *gat_i_model_config_text(const gat_model *m)
{
    return config_text(m, NULL);
}

/* The parameter buffer of write_file. */
typedef struct param_data {
    const gat_real *p;
    size_t n;
} param_data;

static int write_params(FILE *f, const void *user)
{
    const param_data *d = user;
    return gat_i_write_le(f, d->p, d->n);
}

/* Writes the header root and the parameter buffer p (n values) to path, atomically. */
static gat_status write_file(const char *path, const cJSON *root, const gat_real *p, size_t n)
{
    char *json = cJSON_PrintUnformatted(root);
    const param_data d = {p, n};
    if (!json) return gat_i_error(GAT_ENOMEM, "out of memory building the header of %s", path);
    /* spaces after the JSON so that the data starts 8-byte aligned, as the reference writer does */
    const gat_status st = gat_i_st_write_file(path, json, write_params, &d);
    cJSON_free(json);
    return st;
}

gat_status gat_model_save(const gat_model *m, const gat_model_meta *meta, const char *path)
{
    gat_model_meta defaults;
    gat_i_clocale loc = {0};
    cJSON *root = NULL;
    size_t n_params;
    gat_status st;

    gat_i_clear_error();
    if (!m || !path)
        return gat_i_error(GAT_EINVAL, "gat_model_save: NULL %s", !m ? "model m" : "path");
    if (!meta) {
        gat_model_meta_init(&defaults);
        meta = &defaults;
    }
    if ((st = check_save(m, meta)) != GAT_OK) return st;
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) return st;
    const gat_real *p = gat_model_params((gat_model *)m, &n_params); /* read only */
    if (!(root = build_header(m, meta)))
        st = gat_i_error(GAT_ENOMEM, "out of memory building the header of %s", path);
    else
        st = write_file(path, root, p, n_params);
    cJSON_Delete(root);
    gat_i_clocale_leave(&loc);
    return st;
}

/* ---- Loading ------------------------------------------------------------------------------ */

/* The metadata string under key, or NULL if absent (a missing required key is an error). */
static gat_status meta_get(const char *path, const cJSON *md, const char *key, int required,
                           const char **v)
{
    return gat_i_st_meta_get(path, md, key, required, v);
}

static gat_status meta_int(const char *path, const cJSON *md, const char *key, long lo, long hi,
                           int required, long *out)
{
    return gat_i_st_meta_int(path, md, key, lo, hi, required, out);
}

static gat_status meta_real(const char *path, const cJSON *md, const char *key, int required,
                            double *out)
{
    const char *s;
    char *end;
    gat_status st = meta_get(path, md, key, required, &s);
    if (st != GAT_OK || !s) return st;
    errno = 0;
    const double v = strtod(s, &end);
    if (!*s || isspace((unsigned char)s[0]) || *end || !isfinite(v))
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ \"%s\" is \"%s\", not a finite number",
                           path, key, s);
    *out = v;
    return GAT_OK;
}

/* The score function named by "score", and the activation, which must be "elu". */
static gat_status meta_functions(const char *path, const cJSON *md, gat_score *score)
{
    const char *s;
    char known[256] = "";
    gat_status st = meta_get(path, md, "score", 1, &s);
    if (st != GAT_OK) return st;
    if (gat_score_from_name(s, score) != GAT_OK) {
        for (int k = 0; k < GAT_SCORE_COUNT; k++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                     gat_score_name((gat_score)k));
        return gat_i_error(GAT_EFORMAT, "%s: unknown score function \"%s\" (libgat %s knows %s)",
                           path, s, gat_version(), known);
    }
    if ((st = meta_get(path, md, "activation", 1, &s)) != GAT_OK) return st;
    if (strcmp(s, "elu") != 0)
        return gat_i_error(GAT_EFORMAT, "%s: unknown activation \"%s\" (libgat %s knows elu)", path,
                           s, gat_version());
    return GAT_OK;
}

/* "hidden_heads": a JSON array with the heads of each hidden layer (optional; else `heads`). */
static gat_status meta_hidden_heads(const char *path, const cJSON *md, gat_model_config *cfg)
{
    const char *s;
    const cJSON *it;
    cJSON *a = NULL;
    int l = 0;
    gat_status st = meta_get(path, md, "hidden_heads", 0, &s);
    if (st != GAT_OK || !s) return st;
    if (!(a = cJSON_Parse(s)) || !cJSON_IsArray(a) || cJSON_GetArraySize(a) != cfg->layers - 1) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: __metadata__ \"hidden_heads\" is \"%s\", not a JSON "
                         "array of the %d hidden layers' heads",
                         path, s, cfg->layers - 1);
        goto cleanup;
    }
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsNumber(it) || it->valuedouble < 1 || it->valuedouble > INT32_MAX ||
            floor(it->valuedouble) != it->valuedouble) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: __metadata__ \"hidden_heads\" entry %d is not a "
                             "positive integer",
                             path, l);
            goto cleanup;
        }
        /* kept at 0 ("use heads") where it agrees, so that a configuration reads back as saved */
        const int k = (int)it->valuedouble;
        cfg->hidden_heads[l++] = k == cfg->heads ? 0 : k;
    }

cleanup:
    cJSON_Delete(a);
    return st;
}

/* "task" (absent: "node", the files written before graph models), and for "graph" its
 * "readout", "readout_heads", "readout_hidden", "graph_classes" and "classifier_layers" (absent:
 * 0, the linear classifier). */
static gat_status meta_task(const char *path, const cJSON *md, gat_model_config *cfg)
{
    const char *s;
    long v[4] = {0, 0, 0, 0};
    gat_status st = meta_get(path, md, "task", 0, &s);
    if (st != GAT_OK || !s) return st;
    if (gat_task_from_name(s, &cfg->task) != GAT_OK)
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ \"task\" is \"%s\" (expected node or "
                                        "graph)", path, s);
    if (cfg->task == GAT_TASK_NODE) return GAT_OK;
    if ((st = meta_get(path, md, "readout", 1, &s)) != GAT_OK) return st;
    if (gat_readout_from_name(s, &cfg->readout) != GAT_OK)
        return gat_i_error(GAT_EFORMAT,
                           "%s: __metadata__ \"readout\" is \"%s\" (expected sum, mean, max or "
                           "attention)",
                           path, s);
    if ((st = meta_int(path, md, "readout_heads", 0, GAT_MAX_HEADS, 0, &v[0])) != GAT_OK ||
        (st = meta_int(path, md, "readout_hidden", 0, 1 << 16, 0, &v[1])) != GAT_OK ||
        (st = meta_int(path, md, "graph_classes", 1, 1 << 20, 1, &v[2])) != GAT_OK ||
        (st = meta_int(path, md, "classifier_layers", 0, GAT_MAX_CLASSIFIER_LAYERS, 0, &v[3])) !=
            GAT_OK)
        return st;
    cfg->classifier_layers = (gat_idx)v[3];
    cfg->readout_heads = (gat_idx)v[0];
    cfg->readout_hidden = (gat_idx)v[1];
    cfg->graph_classes = (gat_idx)v[2];
    gat_i_clear_error();
    return GAT_OK;
}

static gat_status meta_strdup(const char *path, const cJSON *md, const char *key, char **out)
{
    const char *s;
    gat_status st = meta_get(path, md, key, 0, &s);
    if (st != GAT_OK || !s) return st;
    return (*out = gat_strdup(s)) ? GAT_OK : GAT_ENOMEM;
}

/* The optional "tu_features" name (absent: GAT_TU_FEATURES_ALL). */
static gat_status meta_tu_features(const char *path, const cJSON *md, int *out)
{
    const char *s;
    gat_status st = meta_get(path, md, "tu_features", 0, &s);
    *out = GAT_TU_FEATURES_ALL;
    if (st != GAT_OK || !s) return st;
    if (gat_tu_features_from_name(s, out) != GAT_OK)
        return gat_i_error(GAT_EFORMAT,
                           "%s: __metadata__ \"tu_features\" is '%.40s', expected all, labels or "
                           "attributes",
                           path, s);
    return GAT_OK;
}

/* The optional "feature_<key>" array (a string holding a JSON array of finite numbers, at most
 * in_features of them) into a new *out, its length into *n (0 and NULL when absent). */
static gat_status meta_real_array(const char *path, const cJSON *md, const char *key,
                                  gat_idx in_features, gat_real **out, gat_idx *n)
{
    const char *s;
    const cJSON *it;
    cJSON *a = NULL;
    *out = NULL, *n = 0;
    gat_status st = meta_get(path, md, key, 0, &s);
    if (st != GAT_OK || !s) return st;
    if (!(a = cJSON_Parse(s)) || !cJSON_IsArray(a) || cJSON_GetArraySize(a) > in_features) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: __metadata__ \"%s\" is not a JSON array of at most %d "
                         "numbers (the model's input features)",
                         path, key, in_features);
        goto cleanup;
    }
    const gat_idx len = (gat_idx)cJSON_GetArraySize(a);
    if (!(*out = gat_malloc((size_t)len + 1, sizeof **out))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    gat_idx c = 0;
    cJSON_ArrayForEach(it, a)
    {
        const double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
        if (!isfinite(v) || !isfinite((gat_real)v)) {
            st = gat_i_error(GAT_EFORMAT,
                             "%s: __metadata__ \"%s\": value %d is not a finite "
                             "number",
                             path, key, c);
            goto cleanup;
        }
        (*out)[c++] = (gat_real)v;
    }
    *n = len;

cleanup:
    cJSON_Delete(a);
    return st;
}

static gat_status read_class_names(const char *path, const cJSON *md, gat_idx classes,
                                   meta_storage *meta)
{
    const char *s;
    const cJSON *it;
    cJSON *a = NULL;
    gat_status st = meta_get(path, md, "class_names", 0, &s);
    if (st != GAT_OK || !s) return st;
    if (!(a = cJSON_Parse(s)) || !cJSON_IsArray(a)) {
        st = gat_i_error(GAT_EFORMAT, "%s: __metadata__ \"class_names\" is not a JSON array", path);
        goto cleanup;
    }
    if (cJSON_GetArraySize(a) != classes) {
        st = gat_i_error(GAT_EFORMAT,
                         "%s: __metadata__ \"class_names\" lists %d names for %d "
                         "classes",
                         path, cJSON_GetArraySize(a), classes);
        goto cleanup;
    }
    if (!(meta->class_names = gat_calloc((size_t)classes, sizeof *meta->class_names))) {
        st = GAT_ENOMEM;
        goto cleanup;
    }
    meta->n_classes = classes;
    gat_idx c = 0;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsString(it)) {
            st = gat_i_error(GAT_EFORMAT, "%s: class name %d in __metadata__ is not a string", path,
                             c);
            goto cleanup;
        }
        if (!(meta->class_names[c++] = gat_strdup(it->valuestring))) {
            st = GAT_ENOMEM;
            goto cleanup;
        }
    }

cleanup:
    cJSON_Delete(a);
    return st;
}

/* The "__metadata__" object of a libgat model file, its format version checked; model_kind:
 * "gat" (a gat_model: no "model" key) or "gps" (a gat_gps), which the file's "model" must be. */
static gat_status file_metadata(const char *path, const cJSON *root, const char *model_kind,
                                const cJSON **md)
{
    const char *s;
    gat_status st;
    if ((st = gat_i_st_metadata(path, root, md)) != GAT_OK) return st;
    if (!*md)
        return gat_i_error(GAT_EFORMAT,
                           "%s: the header has no __metadata__ with a model "
                           "configuration: not a libgat model file",
                           path);
    if ((st = meta_get(path, *md, "format_version", 0, &s)) != GAT_OK) return st;
    if (s && strcmp(s, FORMAT_VERSION) != 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: format_version \"%s\" is not supported (this libgat "
                           "reads " FORMAT_VERSION ")",
                           path, s);
    if ((st = meta_get(path, *md, "model", 0, &s)) != GAT_OK) return st;
    if (!s) s = "gat";
    if (strcmp(s, "gat") != 0 && strcmp(s, "gps") != 0)
        return gat_i_error(GAT_EFORMAT,
                           "%s: __metadata__ \"model\" is \"%.40s\" (libgat %s knows gat and gps)",
                           path, s, gat_version());
    if (strcmp(s, model_kind) != 0)
        return gat_i_error(GAT_EFORMAT,
                           strcmp(s, "gps") == 0
                               ? "%s: holds a graph transformer (gat-train --arch): "
                                 "gat_gps_load reads it"
                               : "%s: holds a GAT model: gat_model_load reads it",
                           path);
    return GAT_OK;
}

/* The meta of a model with in_features inputs and out_classes outputs from md: normalize,
 * symmetrize, dataset cuts, class names, dataset, version, encodings, TU features,
 * standardisation. */
static gat_status read_meta_tail(const char *path, const cJSON *md, gat_idx in_features,
                                 gat_idx out_classes, gat_model_meta *meta)
{
    long v[4] = {1, 1, 0, 0};
    gat_status st;
    if ((st = meta_int(path, md, "normalize", 0, 1, 0, &v[0])) != GAT_OK ||
        (st = meta_int(path, md, "symmetrize", 0, 1, 0, &v[1])) != GAT_OK ||
        (st = meta_int(path, md, "largest_component", 0, 1, 0, &v[2])) != GAT_OK ||
        (st = meta_int(path, md, "min_class_nodes", 0, INT32_MAX, 0, &v[3])) != GAT_OK)
        return st;
    meta->normalize = (int)v[0];
    meta->symmetrize = (int)v[1];
    meta->largest_component = (int)v[2];
    meta->min_class_nodes = (gat_idx)v[3];
    meta_storage *own = gat_calloc(1, sizeof *own);
    if (!(meta->storage = own)) return GAT_ENOMEM;
    if ((st = read_class_names(path, md, out_classes, own)) != GAT_OK ||
        (st = meta_strdup(path, md, "dataset", &own->dataset)) != GAT_OK ||
        (st = meta_strdup(path, md, "libgat_version", &own->version)) != GAT_OK ||
        (st = meta_strdup(path, md, "pe", &own->pe)) != GAT_OK ||
        (st = meta_tu_features(path, md, &meta->tu_features)) != GAT_OK)
        return st;
    gat_idx n_shift, n_scale;
    if ((st = meta_real_array(path, md, "feature_shift", in_features, &own->shift, &n_shift)) !=
            GAT_OK ||
        (st = meta_real_array(path, md, "feature_scale", in_features, &own->scale, &n_scale)) !=
            GAT_OK)
        return st;
    if (!own->shift != !own->scale)
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ has \"%s\" without \"%s\"", path,
                           own->shift ? "feature_shift" : "feature_scale",
                           own->shift ? "feature_scale" : "feature_shift");
    if (n_shift != n_scale)
        return gat_i_error(GAT_EFORMAT,
                           "%s: __metadata__ \"feature_shift\" has %d values, "
                           "\"feature_scale\" %d",
                           path, n_shift, n_scale);
    if (own->pe && *own->pe && (st = check_pe(own->pe, in_features, path, GAT_EFORMAT)) != GAT_OK)
        return st;
    meta->n_classes = own->n_classes;
    meta->class_names = (const char *const *)own->class_names;
    meta->dataset = own->dataset;
    meta->version = own->version;
    meta->pe = own->pe;
    meta->n_standardized = n_shift;
    meta->feature_shift = n_shift > 0 ? own->shift : NULL;
    meta->feature_scale = n_shift > 0 ? own->scale : NULL;
    return GAT_OK;
}

/* The configuration and the meta from "__metadata__". */
static gat_status read_meta(const char *path, const cJSON *root, gat_model_config *cfg,
                            gat_model_meta *meta)
{
    const cJSON *md;
    char why[256];
    long v[13];
    gat_status st;

    if ((st = file_metadata(path, root, "gat", &md)) != GAT_OK) return st;
    gat_model_config_default(cfg, 1, 1);
    v[2] = cfg->layers, v[3] = cfg->hidden, v[4] = cfg->heads, v[5] = cfg->out_heads;
    v[8] = 0;  /* residual */
    v[9] = 0;  /* edge_dim: files written before edge features have none */
    v[10] = 0; /* head_dropout, and proj_dropout 0: written only when used */
    v[11] = 0; /* score_bias: written only when used */
    v[12] = 0; /* whole_scores: likewise */
    if ((st = meta_int(path, md, "in_features", 1, INT32_MAX - 1, 1, &v[0])) != GAT_OK ||
        (st = meta_int(path, md, "classes", 1, INT32_MAX - 1, 1, &v[1])) != GAT_OK ||
        (st = meta_int(path, md, "layers", 1, GAT_MAX_LAYERS, 1, &v[2])) != GAT_OK ||
        (st = meta_int(path, md, "hidden", 0, INT32_MAX - 1, 1, &v[3])) != GAT_OK ||
        (st = meta_int(path, md, "heads", 0, INT32_MAX - 1, 1, &v[4])) != GAT_OK ||
        (st = meta_int(path, md, "out_heads", 1, INT32_MAX - 1, 1, &v[5])) != GAT_OK ||
        (st = meta_int(path, md, "residual", 0, 1, 0, &v[8])) != GAT_OK ||
        (st = meta_int(path, md, "edge_dim", 0, GAT_MAX_EDGE_DIM, 0, &v[9])) != GAT_OK ||
        (st = meta_real(path, md, "negative_slope", 1, &cfg->negative_slope)) != GAT_OK ||
        (st = meta_real(path, md, "in_dropout", 0, &cfg->in_dropout)) != GAT_OK ||
        (st = meta_real(path, md, "att_dropout", 0, &cfg->att_dropout)) != GAT_OK ||
        (st = meta_int(path, md, "head_dropout", 0, 1, 0, &v[10])) != GAT_OK ||
        (st = meta_real(path, md, "proj_dropout", 0, &cfg->proj_dropout)) != GAT_OK ||
        (st = meta_int(path, md, "score_bias", 0, 1, 0, &v[11])) != GAT_OK ||
        (st = meta_int(path, md, "whole_scores", 0, 1, 0, &v[12])) != GAT_OK ||
        (st = meta_functions(path, md, &cfg->score)) != GAT_OK)
        return st;
    cfg->in_features = (gat_idx)v[0];
    cfg->classes = (gat_idx)v[1];
    cfg->layers = (int)v[2];
    cfg->hidden = (gat_idx)v[3];
    cfg->heads = (int)v[4];
    cfg->out_heads = (int)v[5];
    cfg->residual = (int)v[8];
    cfg->edge_dim = (gat_idx)v[9];
    cfg->head_dropout = (int)v[10];
    cfg->score_bias = (int)v[11];
    cfg->whole_scores = (int)v[12];
    if ((st = meta_hidden_heads(path, md, cfg)) != GAT_OK) return st;
    if ((st = meta_task(path, md, cfg)) != GAT_OK) return st;
    if (gat_model_config_check(cfg) != GAT_OK) {
        snprintf(why, sizeof why, "%s", gat_last_error());
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ describes an invalid model: %s", path,
                           why);
    }
    return read_meta_tail(path, md, cfg->in_features,
                          cfg->task == GAT_TASK_GRAPH ? cfg->graph_classes : cfg->classes, meta);
}

/* "[d0, d1]" of a table shape. */
static const char *shape_str(char *buf, size_t cap, const gat_model_tensor *t)
{
    int n = snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && n > 0 && (size_t)n < cap; d++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%d", d ? ", " : "", t->shape[d]);
    if (n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, "]");
    return buf;
}

/* One tensor entry of the header, checked against table entry t; its data bytes go to *span. */
static gat_status read_entry(const char *path, const cJSON *e, const gat_model_tensor *t,
                             size_t data_len, size_t span[2], size_t *dsize)
{
    const char *dtype;
    char want[64];
    size_t dims[8];
    int ndim;
    gat_status st = gat_i_st_entry(path, e, t->name, data_len, &dtype, dims, 8, &ndim, span);
    if (st != GAT_OK) return st;
    if (!strcmp(dtype, "F32"))
        *dsize = 4;
    else if (!strcmp(dtype, "F64"))
        *dsize = 8;
    else
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"%s\" has dtype \"%s\"; libgat reads F32 and "
                           "F64",
                           path, t->name, dtype);
    int ok = ndim == t->ndim;
    for (int d = 0; ok && d < ndim; d++)
        ok = dims[d] == (size_t)t->shape[d];
    if (!ok) {
        char got[160];
        int n = snprintf(got, sizeof got, "[");
        for (int d = 0; d < ndim && n > 0 && (size_t)n < sizeof got; d++)
            n += snprintf(got + n, sizeof got - (size_t)n, "%s%zu", d ? "," : "", dims[d]);
        if (n > 0 && (size_t)n < sizeof got) snprintf(got + n, sizeof got - (size_t)n, "]");
        return gat_i_error(GAT_EFORMAT,
                           "%s: tensor \"%s\" has shape %s but the "
                           "configuration in __metadata__ implies %s",
                           path, t->name, got, shape_str(want, sizeof want, t));
    }
    /* t->size values exist in memory, so t->size * 8 cannot overflow */
    if (span[1] - span[0] != t->size * *dsize)
        return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" spans %zu bytes but %s %s needs %zu",
                           path, t->name, span[1] - span[0], dtype,
                           shape_str(want, sizeof want, t), t->size * *dsize);
    return GAT_OK;
}

/* Matches every header entry but the metadata with the tensor table t (nt entries, at most
 * MAX_FILE_TENSORS) and copies the data into the parameters p; what names the configuration
 * in the message of an unexpected tensor. */
static gat_status read_tensors(const char *path, const cJSON *root, const gat_model_tensor *t,
                               int nt, gat_real *p, const char *what, const unsigned char *data,
                               size_t data_len)
{
    int order[MAX_FILE_TENSORS];
    size_t span[MAX_FILE_TENSORS][2], dsize[MAX_FILE_TENSORS];
    unsigned char seen[MAX_FILE_TENSORS] = {0};
    const cJSON *e;
    gat_status st;

    if (nt > MAX_FILE_TENSORS) return gat_i_error(GAT_EINTERNAL, "%d tensors in a model", nt);
    cJSON_ArrayForEach(e, root)
    {
        if (!strcmp(e->string, "__metadata__")) continue; /* read_meta checked it is unique */
        int k = 0;
        while (k < nt && strcmp(e->string, t[k].name) != 0)
            k++;
        if (k == nt)
            return gat_i_error(GAT_EFORMAT,
                               "%s: unexpected tensor \"%s\": the configuration in "
                               "__metadata__ (%s) has no such tensor",
                               path, e->string, what);
        if (seen[k])
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" appears twice in the header", path,
                               t[k].name);
        seen[k] = 1;
        if ((st = read_entry(path, e, &t[k], data_len, span[k], &dsize[k])) != GAT_OK) return st;
    }
    for (int k = 0; k < nt; k++)
        if (!seen[k])
            return gat_i_error(GAT_EFORMAT, "%s: tensor \"%s\" is missing", path, t[k].name);

    /* sorted by start, each tensor must begin at or after the previous one's end */
    for (int k = 0; k < nt; k++) {
        int j = k;
        for (; j > 0 && span[order[j - 1]][0] > span[k][0]; j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
    for (int k = 1; k < nt; k++)
        if (span[order[k]][0] < span[order[k - 1]][1])
            return gat_i_error(GAT_EFORMAT, "%s: the data of tensors \"%s\" and \"%s\" overlap",
                               path, t[order[k - 1]].name, t[order[k]].name);

    for (int k = 0; k < nt; k++)
        for (size_t i = 0; i < t[k].size; i++) {
            const double v = gat_i_st_get_le(data + span[k][0], dsize[k], i);
            if (!isfinite(v))
                return gat_i_error(GAT_ENUMERIC, "%s: tensor \"%s\" holds %g at index %zu", path,
                                   t[k].name, v, i);
            p[t[k].offset + i] = (gat_real)v;
        }
    return GAT_OK;
}

/* A model file being read: its bytes, parsed header and the meta read so far (load_open,
 * load_close; both loaders). */
typedef struct loading {
    const char *path;
    unsigned char *file;
    size_t size, data_at;
    cJSON *root;
    gat_model_meta meta;
    gat_i_clocale loc;
} loading;

/* Clears meta (may be NULL), checks the arguments (who: the function's name; out, named
 * out_name, and path must not be NULL), reads the file and parses its header in the C locale.
 * load_close ends it whatever this returns. */
static gat_status load_open(loading *ld, const char *who, const void *out, const char *out_name,
                            gat_model_meta *meta, const char *path)
{
    gat_status st;
    memset(ld, 0, sizeof *ld);
    ld->path = path;
    gat_i_clear_error();
    gat_model_meta_init(&ld->meta);
    if (meta) gat_model_meta_init(meta);
    if (!out || !path) return gat_i_error(GAT_EINVAL, "%s: NULL %s", who, !out ? out_name : "path");
    if ((st = gat_i_st_read_file(path, &ld->file, &ld->size)) != GAT_OK ||
        (st = gat_i_clocale_enter(&ld->loc)) != GAT_OK)
        return st;
    return gat_i_st_parse_header(path, ld->file, ld->size, &ld->root, &ld->data_at);
}

/* The sizes come from the file: a configuration needing at least `need` parameters must find
 * their bytes (as F32) in the data section before the model is allocated. */
static gat_status load_check_size(const loading *ld, uint64_t need)
{
    const size_t have = ld->size - ld->data_at;
    if (need <= have / 4) return GAT_OK;
    return gat_i_error(GAT_EFORMAT,
                       "%s: the configuration in __metadata__ needs at least %llu parameters "
                       "(%llu bytes as F32) but the data section holds %zu bytes: truncated or "
                       "inconsistent file",
                       ld->path, (unsigned long long)need, (unsigned long long)need * 4, have);
}

/* Reads the tensors into the parameters p of a model whose table is t (nt tensors). */
static gat_status load_tensors(const loading *ld, const gat_model_tensor *t, int nt, gat_real *p,
                               const char *what)
{
    return read_tensors(ld->path, ld->root, t, nt, p, what, ld->file + ld->data_at,
                        ld->size - ld->data_at);
}

/* Ends the reading: on success (st GAT_OK) the meta read goes to meta (when not NULL). */
static void load_close(loading *ld, gat_status st, gat_model_meta *meta)
{
    if (st == GAT_OK && meta) {
        *meta = ld->meta;
        gat_model_meta_init(&ld->meta);
    }
    gat_model_meta_destroy(&ld->meta);
    cJSON_Delete(ld->root);
    gat_free(ld->file);
    gat_i_clocale_leave(&ld->loc);
}

/* A lower bound on the parameters cfg (checked) implies: every layer l has a weight
 * (F_l, heads_l F'_l), whatever the score function. Widths are at most 2^20 and F_0 < 2^31, so
 * the sum fits in 64 bits. */
static uint64_t min_params(const gat_model_config *c)
{
    uint64_t total = 0, fin = (uint64_t)c->in_features;
    for (int l = 0; l < c->layers; l++) {
        const int last = l == c->layers - 1;
        const uint64_t heads = (uint64_t)(last ? c->out_heads
                                               : (c->hidden_heads[l] > 0 ? c->hidden_heads[l]
                                                                         : c->heads));
        const uint64_t fo = (uint64_t)(last ? c->classes : c->hidden);
        total += fin * heads * fo;
        fin = last ? fo : heads * fo;
    }
    return total;
}

gat_status gat_model_load(gat_model **out, gat_model_meta *meta, const char *path)
{
    loading ld;
    gat_model *m = NULL;
    gat_model_config cfg;
    char what[96];
    int nt;
    if (out) *out = NULL;
    gat_status st = load_open(&ld, "gat_model_load", out, "out", meta, path);
    if (st == GAT_OK && (st = read_meta(path, ld.root, &cfg, &ld.meta)) == GAT_OK &&
        (st = load_check_size(&ld, min_params(&cfg))) == GAT_OK &&
        (st = gat_model_create(&m, &cfg, 0)) == GAT_OK) {
        const gat_model_tensor *t = gat_model_tensors(m, &nt);
        snprintf(what, sizeof what, "score %s, %d layers", gat_score_name(cfg.score),
                 gat_model_layer_count(m));
        st = load_tensors(&ld, t, nt, gat_model_params(m, NULL), what);
    }
    if (st == GAT_OK)
        *out = m;
    else
        gat_model_free(m);
    load_close(&ld, st, meta);
    return st;
}

/* ---- Graph transformers (gat/gps.h) ---------------------------------------------------------
 * The same layout; "__metadata__" holds "model": "gps", the gat_gps_config (kind, in_features,
 * classes, dim, layers, heads, dropout, att_dropout, negative_slope, anchors, last_heads,
 * residual, classifier_layers; task and, for "graph", readout, readout_heads, readout_hidden;
 * "whole_scores" and "linear_init": 1 where set, absent for 0, as files before them) and the
 * meta's keys as above. */

static cJSON *gps_header(const gat_gps *m, const gat_model_meta *meta)
{
    const gat_gps_config *c = gat_gps_get_config(m);
    cJSON *root = cJSON_CreateObject(), *md = NULL;
    int nt, ok = root && (md = cJSON_AddObjectToObject(root, "__metadata__"));
    const gat_model_tensor *t = gat_gps_tensors(m, &nt);
    ok = ok && add_string(md, "format_version", FORMAT_VERSION) &&
         add_string(md, "libgat_version", gat_version()) && add_string(md, "model", "gps") &&
         add_string(md, "kind", gat_gps_kind_name(c->kind)) &&
         add_int(md, "in_features", c->in_features) && add_int(md, "classes", c->classes) &&
         add_string(md, "task", gat_task_name(c->task)) && add_int(md, "dim", c->dim) &&
         add_int(md, "layers", c->layers) && add_int(md, "heads", c->heads) &&
         add_real(md, "dropout", c->dropout) && add_real(md, "att_dropout", c->att_dropout) &&
         add_real(md, "negative_slope", c->negative_slope) && add_int(md, "anchors", c->anchors) &&
         add_int(md, "last_heads", c->last_heads) && add_int(md, "residual", c->residual) &&
         add_int(md, "classifier_layers", c->classifier_layers) &&
         add_int(md, "normalize", meta->normalize != 0) &&
         add_int(md, "symmetrize", meta->symmetrize != 0);
    if (ok && c->task == GAT_TASK_GRAPH)
        ok = add_string(md, "readout", gat_readout_name(c->readout)) &&
             add_int(md, "readout_heads", c->readout_heads) &&
             add_int(md, "readout_hidden", c->readout_hidden);
    if (ok && c->whole_scores) ok = add_int(md, "whole_scores", 1);
    if (ok && c->linear_init) ok = add_int(md, "linear_init", c->linear_init);
    ok = ok && add_meta_tail(md, meta) && add_tensors(root, t, nt);
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

char *gat_i_gps_config_text(const gat_gps *m)
{
    return config_text(NULL, m);
}

gat_status gat_gps_save(const gat_gps *m, const gat_model_meta *meta, const char *path)
{
    gat_model_meta defaults;
    gat_i_clocale loc = {0};
    cJSON *root = NULL;
    size_t n_params;
    int nt;
    gat_status st;

    gat_i_clear_error();
    if (!m || !path)
        return gat_i_error(GAT_EINVAL, "gat_gps_save: NULL %s", !m ? "model m" : "path");
    if (!meta) {
        gat_model_meta_init(&defaults);
        meta = &defaults;
    }
    const gat_gps_config *c = gat_gps_get_config(m);
    const gat_model_tensor *t = gat_gps_tensors(m, &nt);
    const gat_real *p = gat_gps_params((gat_gps *)m, &n_params); /* read only */
    if ((st = check_meta(meta, c->in_features, c->classes, "gat_gps_save")) != GAT_OK ||
        (st = check_params(t, nt, p, n_params, "gat_gps_save")) != GAT_OK)
        return st;
    if ((st = gat_i_clocale_enter(&loc)) != GAT_OK) return st;
    if (!(root = gps_header(m, meta)))
        st = gat_i_error(GAT_ENOMEM, "out of memory building the header of %s", path);
    else
        st = write_file(path, root, p, n_params);
    cJSON_Delete(root);
    gat_i_clocale_leave(&loc);
    return st;
}

/* A gat_gps_config from md (checked by gat_gps_config_check) and the meta. */
static gat_status gps_read_meta(const char *path, const cJSON *root, gat_gps_config *c,
                                gat_model_meta *meta)
{
    const cJSON *md;
    const char *s;
    char why[256];
    long v[10] = {0};
    gat_status st;
    if ((st = file_metadata(path, root, "gps", &md)) != GAT_OK) return st;
    gat_gps_config_default(c, 1, 1);
    if ((st = meta_get(path, md, "kind", 1, &s)) != GAT_OK) return st;
    if (gat_gps_kind_from_name(s, &c->kind) != GAT_OK) {
        snprintf(why, sizeof why, "%s", gat_last_error());
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ \"kind\": %s", path, why);
    }
    if ((st = meta_get(path, md, "task", 1, &s)) != GAT_OK) return st;
    if (gat_task_from_name(s, &c->task) != GAT_OK)
        return gat_i_error(GAT_EFORMAT,
                           "%s: __metadata__ \"task\" is \"%.40s\" (expected node or graph)", path,
                           s);
    if ((st = meta_int(path, md, "in_features", 1, INT32_MAX - 1, 1, &v[0])) != GAT_OK ||
        (st = meta_int(path, md, "classes", 1, INT32_MAX - 1, 1, &v[1])) != GAT_OK ||
        (st = meta_int(path, md, "dim", 1, INT32_MAX - 1, 1, &v[2])) != GAT_OK ||
        (st = meta_int(path, md, "layers", 1, GAT_MAX_LAYERS, 1, &v[3])) != GAT_OK ||
        (st = meta_int(path, md, "heads", 1, INT32_MAX - 1, 1, &v[4])) != GAT_OK ||
        (st = meta_int(path, md, "anchors", 0, INT32_MAX - 1, 1, &v[5])) != GAT_OK ||
        (st = meta_int(path, md, "last_heads", 0, INT32_MAX - 1, 1, &v[6])) != GAT_OK ||
        (st = meta_int(path, md, "residual", 0, 1, 1, &v[7])) != GAT_OK ||
        (st = meta_int(path, md, "classifier_layers", 0, GAT_MAX_CLASSIFIER_LAYERS, 1, &v[8])) !=
            GAT_OK ||
        (st = meta_real(path, md, "dropout", 1, &c->dropout)) != GAT_OK ||
        (st = meta_real(path, md, "att_dropout", 1, &c->att_dropout)) != GAT_OK ||
        (st = meta_real(path, md, "negative_slope", 1, &c->negative_slope)) != GAT_OK)
        return st;
    c->in_features = (gat_idx)v[0], c->classes = (gat_idx)v[1], c->dim = (gat_idx)v[2];
    c->layers = (gat_idx)v[3], c->heads = (gat_idx)v[4], c->anchors = (gat_idx)v[5];
    c->last_heads = (gat_idx)v[6], c->residual = (int)v[7], c->classifier_layers = (int)v[8];
    if (c->task == GAT_TASK_GRAPH) {
        long r[2] = {0, 0};
        if ((st = meta_get(path, md, "readout", 1, &s)) != GAT_OK) return st;
        if (gat_readout_from_name(s, &c->readout) != GAT_OK)
            return gat_i_error(GAT_EFORMAT,
                               "%s: __metadata__ \"readout\" is \"%.40s\" (expected sum, mean, "
                               "max or attention)",
                               path, s);
        if ((st = meta_int(path, md, "readout_heads", 0, GAT_MAX_HEADS, 0, &r[0])) != GAT_OK ||
            (st = meta_int(path, md, "readout_hidden", 0, 1 << 16, 0, &r[1])) != GAT_OK)
            return st;
        c->readout_heads = (gat_idx)r[0], c->readout_hidden = (gat_idx)r[1];
    }
    long li = 0;
    if ((st = meta_int(path, md, "whole_scores", 0, 1, 0, &v[9])) != GAT_OK ||
        (st = meta_int(path, md, "linear_init", 0, 1, 0, &li)) != GAT_OK)
        return st;
    c->whole_scores = (int)v[9], c->linear_init = (int)li;
    if (gat_gps_config_check(c) != GAT_OK) {
        snprintf(why, sizeof why, "%s", gat_last_error());
        return gat_i_error(GAT_EFORMAT, "%s: __metadata__ describes an invalid model: %s", path,
                           why);
    }
    return read_meta_tail(path, md, c->in_features, c->classes, meta);
}

gat_status gat_gps_load(gat_gps **out, gat_model_meta *meta, const char *path)
{
    loading ld;
    gat_gps *m = NULL;
    gat_gps_config cfg;
    char what[96];
    int nt;
    if (out) *out = NULL;
    gat_status st = load_open(&ld, "gat_gps_load", out, "out", meta, path);
    if (st == GAT_OK && (st = gps_read_meta(path, ld.root, &cfg, &ld.meta)) == GAT_OK) {
        /* every kind has the input weight (F, D), a (D, D) weight a layer and an output weight
         * (D, C) for nodes, at least (1, C) after a graph model's classifier layers */
        const uint64_t D = (uint64_t)cfg.dim, C = (uint64_t)cfg.classes;
        st = load_check_size(&ld, (uint64_t)cfg.in_features * D + (uint64_t)cfg.layers * D * D +
                                      (cfg.task == GAT_TASK_GRAPH ? 1 : D) * C);
    }
    if (st == GAT_OK && (st = gat_gps_create(&m, &cfg, 0)) == GAT_OK) {
        const gat_model_tensor *t = gat_gps_tensors(m, &nt);
        snprintf(what, sizeof what, "kind %s, %d layers", gat_gps_kind_name(cfg.kind), cfg.layers);
        st = load_tensors(&ld, t, nt, gat_gps_params(m, NULL), what);
    }
    if (st == GAT_OK)
        *out = m;
    else
        gat_gps_free(m);
    load_close(&ld, st, meta);
    return st;
}

gat_status gat_model_file_is_gps(const char *path, int *gps)
{
    loading ld;
    const cJSON *md;
    const char *s = NULL;
    if (gps) *gps = 0;
    gat_status st = load_open(&ld, "gat_model_file_is_gps", gps, "gps", NULL, path);
    if (st == GAT_OK && (st = gat_i_st_metadata(path, ld.root, &md)) == GAT_OK && md &&
        (st = meta_get(path, md, "model", 0, &s)) == GAT_OK)
        *gps = s && !strcmp(s, "gps");
    load_close(&ld, st, NULL);
    return st;
}
