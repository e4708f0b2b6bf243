/* gat_dataset's lifecycle and the steps every dataset source shares: default options and their
 * checks, split names and sizes, and the feature normalisation (row sums, GAT paper). */
#include "data/data_i.h"
#include "core/core.h"
#include "matrix_i.h"

#include <string.h>

void gat_dataset_options_default(gat_dataset_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->normalize = GAT_NORMALIZE_AUTO;
    o->symmetrize = 1;
    o->train_per_class = 20;
    o->n_val = 500;
    o->n_test = 1000;
    o->seed = 1;
    o->ignore_split_file = 0;
    o->split_strict = 0;
    o->max_line = GAT_DATASET_MAX_LINE;
}

gat_status gat_i_check_options(const gat_dataset_options *o, const char *fn)
{
    if (o->train_per_class < 0 || o->n_val < 0 || (o->n_test < 0 && o->n_test != GAT_SPLIT_REST) ||
        o->val_per_class < 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: negative split size (train_per_class %d, n_val %d, n_test %d, "
                           "val_per_class %d; n_test may be GAT_SPLIT_REST, -1)",
                           fn, o->train_per_class, o->n_val, o->n_test, o->val_per_class);
    if (o->normalize != GAT_NORMALIZE_OFF && o->normalize != GAT_NORMALIZE_ON &&
        o->normalize != GAT_NORMALIZE_AUTO)
        return gat_i_error(GAT_EINVAL,
                           "%s: normalize is %d, expected GAT_NORMALIZE_OFF (0), GAT_NORMALIZE_ON "
                           "(1) or GAT_NORMALIZE_AUTO (2)",
                           fn, o->normalize);
    if (o->self_loop_fill != GAT_SELF_LOOP_FILL_MEAN &&
        o->self_loop_fill != GAT_SELF_LOOP_FILL_ZERO)
        return gat_i_error(GAT_EINVAL,
                           "%s: self_loop_fill is %d, expected GAT_SELF_LOOP_FILL_MEAN (0) or "
                           "GAT_SELF_LOOP_FILL_ZERO (1)",
                           fn, o->self_loop_fill);
    if (o->n_edge_attributes < 0 || (o->n_edge_attributes > 0 && !o->edge_attributes))
        return gat_i_error(GAT_EINVAL, "%s: n_edge_attributes = %d with edge_attributes %s", fn,
                           o->n_edge_attributes, o->edge_attributes ? "set" : "NULL");
    const double *f = o->split_fractions;
    if (!(f[0] >= 0 && f[0] <= 1 && f[1] >= 0 && f[1] <= 1 && f[2] >= 0 && f[2] <= 1) ||
        f[0] + f[1] + f[2] > 1 + 1e-9)
        return gat_i_error(GAT_EINVAL,
                           "%s: split_fractions are %g/%g/%g: expected each in [0, 1] and a sum "
                           "of at most 1",
                           fn, f[0], f[1], f[2]);
    for (gat_idx k = 0; k < o->n_edge_attributes; k++)
        if (!o->edge_attributes[k])
            return gat_i_error(GAT_EINVAL, "%s: edge_attributes[%d] is NULL", fn, k);
    if (o->split_index < 0)
        return gat_i_error(GAT_EINVAL, "%s: negative split_index %d", fn, o->split_index);
    if (o->tu_features != GAT_TU_FEATURES_ALL && o->tu_features != GAT_TU_FEATURES_LABELS &&
        o->tu_features != GAT_TU_FEATURES_ATTRIBUTES)
        return gat_i_error(GAT_EINVAL,
                           "%s: tu_features is %d, expected GAT_TU_FEATURES_ALL (0), "
                           "GAT_TU_FEATURES_LABELS (1) or GAT_TU_FEATURES_ATTRIBUTES (2)",
                           fn, o->tu_features);
    if (o->largest_component != 0 && o->largest_component != 1)
        return gat_i_error(GAT_EINVAL, "%s: largest_component is %d, expected 0 or 1", fn,
                           o->largest_component);
    if (o->min_class_nodes < 0)
        return gat_i_error(GAT_EINVAL, "%s: negative min_class_nodes %d", fn, o->min_class_nodes);
    return GAT_OK;
}

static const char *const tu_feature_names[3] = {"all", "labels", "attributes"};

const char *gat_tu_features_name(int mode)
{
    return mode >= 0 && mode < 3 ? tu_feature_names[mode] : NULL;
}

gat_status gat_tu_features_from_name(const char *name, int *out)
{
    static const int values[3] = {GAT_TU_FEATURES_ALL, GAT_TU_FEATURES_LABELS,
                                  GAT_TU_FEATURES_ATTRIBUTES};
    gat_i_clear_error();
    if (!name || !out)
        return gat_i_error(GAT_EINVAL, "gat_tu_features_from_name: NULL %s",
                           !name ? "name" : "out");
    return gat_i_name_lookup("TU feature choice", name, tu_feature_names, values, 3, out);
}

uint8_t gat_i_split_value(const char *word)
{
    if (strcmp(word, "train") == 0) return GAT_SPLIT_TRAIN;
    if (strcmp(word, "val") == 0) return GAT_SPLIT_VAL;
    if (strcmp(word, "test") == 0) return GAT_SPLIT_TEST;
    return GAT_SPLIT_NONE;
}

void gat_i_count_split(gat_dataset *ds)
{
    ds->n_train = ds->n_val = ds->n_test = 0;
    for (gat_idx i = 0; i < ds->n; i++) {
        ds->n_train += ds->split[i] == GAT_SPLIT_TRAIN;
        ds->n_val += ds->split[i] == GAT_SPLIT_VAL;
        ds->n_test += ds->split[i] == GAT_SPLIT_TEST;
    }
}

gat_status gat_i_normalize_checked(gat_dataset *ds, int mode, const char *fn, const char *what)
{
    const gat_csr *x = &ds->x;
    ds->normalized = 0;
    ds->negative_value = 0;
    ds->negative_node = ds->negative_column = -1;
    for (gat_idx i = 0; i < x->rows && ds->negative_node < 0; i++)
        for (gat_idx k = x->rowptr[i]; k < x->rowptr[i + 1]; k++)
            if (x->val[k] < 0) {
                ds->negative_value = x->val[k];
                ds->negative_node = i;
                ds->negative_column = x->col[k];
                break;
            }
    if (mode == GAT_NORMALIZE_ON && ds->negative_node >= 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: row normalisation was requested (GAT_NORMALIZE_ON) but %s has a "
                           "negative feature: node '%s', column %d is %g (the first one); row "
                           "sums of signed features can cancel, so only non-negative features "
                           "are row-normalised (GAT_NORMALIZE_AUTO keeps signed ones as they are)",
                           fn, what, ds->node_ids[ds->negative_node], ds->negative_column,
                           (double)ds->negative_value);
    if (mode == GAT_NORMALIZE_OFF || ds->negative_node >= 0) return GAT_OK;
    /* every value is >= 0, so each row sum is at least its largest value: the results lie in
     * [0, 1] */
    gat_csr_normalize_rows(&ds->x);
    ds->normalized = 1;
    return GAT_OK;
}

gat_status gat_dataset_use_split(gat_dataset *ds, gat_idx k)
{
    gat_i_clear_error();
    if (!ds) return gat_i_error(GAT_EINVAL, "gat_dataset_use_split: NULL dataset ds");
    if (!ds->splits || ds->n_splits < 2)
        return gat_i_error(GAT_EINVAL,
                           "gat_dataset_use_split: the dataset has no fixed splits to choose "
                           "from (n_splits %d, splits %s: one split, or a random one)",
                           ds->n_splits, ds->splits ? "set" : "NULL");
    if (k < 0 || k >= ds->n_splits)
        return gat_i_error(GAT_EINVAL,
                           "gat_dataset_use_split: split %d of a dataset of %d fixed splits "
                           "(0 to %d)",
                           k, ds->n_splits, ds->n_splits - 1);
    if (ds->n > 0 && !ds->split)
        return gat_i_error(GAT_EINVAL, "gat_dataset_use_split: NULL split with %d nodes", ds->n);
    if (ds->n > 0) memcpy(ds->split, ds->splits + (size_t)k * (size_t)ds->n, (size_t)ds->n);
    gat_i_count_split(ds);
    return GAT_OK;
}

void gat_dataset_destroy(gat_dataset *ds)
{
    if (!ds) return;
    gat_i_storage *s = ds->storage;
    /* the storage first: it clears the pointers into it, which the frees below then skip */
    if (s) {
        ds->storage = NULL;
        s->release(ds, s->context);
    }
    gat_csr_destroy(&ds->x);
    gat_graph_destroy(&ds->graph);
    char **ids = gat_i_strv(ds->node_ids), **names = gat_i_strv(ds->class_names);
    if (ids)
        for (gat_idx i = 0; i < ds->n; i++)
            gat_free(ids[i]);
    if (names)
        for (gat_idx c = 0; c < ds->n_classes; c++)
            gat_free(names[c]);
    gat_free(ids);
    gat_free(names);
    gat_free(ds->labels);
    gat_free(ds->split);
    gat_free(ds->edge_x);
    gat_free(ds->edge_input);
    char **graph_names = gat_i_strv(ds->graph_class_names);
    if (graph_names)
        for (gat_idx c = 0; c < ds->n_graph_classes; c++)
            gat_free(graph_names[c]);
    gat_free(graph_names);
    gat_free(ds->graph_ptr);
    gat_free(ds->graph_labels);
    gat_free(ds->label_matrix);
    gat_free(ds->splits);
    memset(ds, 0, sizeof *ds);
}
