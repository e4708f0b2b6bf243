/* The seeded random split every dataset source shares: train_per_class nodes of each class, then
 * validation and test drawn uniformly from the labelled nodes left (as PyG's RandomNodeSplit),
 * or validation per class first (val_per_class) and test from what it leaves. */
#include "data/data_i.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

/* The validation nodes per class of o->val_per_class (V) into val[c], from the count[c] - train[c]
 * nodes each class has left, their total into *total; the bit GAT_SPLIT_STRICT_VAL in *adapted
 * when one shrank. Returns GAT_EFORMAT for a strict V a class cannot give. */
static gat_status plan_val_per_class(const gat_dataset *ds, const gat_idx *count,
                                     const gat_idx *train, const gat_dataset_options *o,
                                     const char *what, gat_idx *val, int64_t *total,
                                     unsigned *adapted)
{
    const gat_idx V = o->val_per_class;
    *total = 0;
    for (gat_idx c = 0; c < ds->n_classes; c++) {
        const gat_idx left = count[c] - train[c];
        if (o->split_strict & GAT_SPLIT_STRICT_VAL) {
            if (left < V)
                return gat_i_error(GAT_EFORMAT,
                                   "random split of %s: class '%s' has %d nodes, fewer than the "
                                   "%d training + %d validation nodes per class requested",
                                   what, ds->class_names[c], count[c], train[c], V);
            val[c] = V;
        } else {
            val[c] = left / 2 < V ? left / 2 : V;
            if (val[c] < V) *adapted |= GAT_SPLIT_STRICT_VAL;
        }
        *total += val[c];
    }
    return GAT_OK;
}

/* The sizes of o's random split over count (C) labelled nodes per class, labelled in all:
 * train[c] training nodes of class c, *val and *test, and with o->val_per_class val_c[c]
 * validation nodes of class c (*val their sum); ds->split_adapted gets the bits of the sizes
 * that shrank (rules in gat_dataset_options). Returns GAT_EFORMAT for a strict size the data
 * cannot give. */
static gat_status plan_split(gat_dataset *ds, const gat_idx *count, gat_idx labelled,
                             const gat_dataset_options *o, const char *what, gat_idx *train,
                             gat_idx *val_c, gat_idx *val, gat_idx *test)
{
    const gat_idx T = o->train_per_class, V = o->n_val, X = o->n_test;
    const unsigned strict = o->split_strict;
    int64_t rest = labelled;
    unsigned adapted = 0;
    for (gat_idx c = 0; c < ds->n_classes; c++) {
        if (strict & GAT_SPLIT_STRICT_TRAIN) {
            if (count[c] < T)
                return gat_i_error(GAT_EFORMAT,
                                   "random split of %s: class '%s' has %d nodes, fewer than the %d "
                                   "training nodes per class requested",
                                   what, ds->class_names[c], count[c], T);
            train[c] = T;
        } else {
            train[c] = count[c] / 2 < T ? count[c] / 2 : T;
            if (train[c] < T) adapted |= GAT_SPLIT_STRICT_TRAIN;
        }
        rest -= train[c];
    }
    const int strict_val = (strict & GAT_SPLIT_STRICT_VAL) != 0;
    const int strict_test = (strict & GAT_SPLIT_STRICT_TEST) != 0;
    gat_status st;
    if (o->val_per_class > 0) { /* validation fixed per class; test from what it leaves */
        int64_t total;
        if ((st = plan_val_per_class(ds, count, train, o, what, val_c, &total, &adapted)) != GAT_OK)
            return st;
        rest -= total;
        *val = (gat_idx)total;
        *test = X == GAT_SPLIT_REST || rest < X ? (gat_idx)rest : X;
        if (X != GAT_SPLIT_REST && rest < X) {
            if (strict_test)
                return gat_i_error(GAT_EFORMAT,
                                   "random split of %s: %lld %snodes remain after the training "
                                   "and validation nodes, fewer than the %d test nodes requested",
                                   what, (long long)rest, labelled < ds->n ? "labelled " : "", X);
            adapted |= GAT_SPLIT_STRICT_TEST;
        }
        ds->split_adapted = adapted;
        return GAT_OK;
    }
    /* GAT_SPLIT_REST: test is what validation leaves (never strict: only validation can fall
     * short) */
    const gat_idx Xe = X == GAT_SPLIT_REST ? (gat_idx)(rest > V ? rest - V : 0) : X;
    const int strict_xe = strict_test && X != GAT_SPLIT_REST;
    *val = V;
    *test = Xe;
    if (rest < (int64_t)V + Xe) {
        /* "after the 20 training nodes of each of 7 classes", or the total when classes differ */
        char after[96];
        if (adapted & GAT_SPLIT_STRICT_TRAIN)
            snprintf(after, sizeof after, "%lld training nodes", (long long)(labelled - rest));
        else
            snprintf(after, sizeof after, "%d training nodes of each of %d classes", T,
                     ds->n_classes);
        const char *lab = labelled < ds->n ? "labelled " : "";
        if (strict_val && strict_xe)
            return gat_i_error(GAT_EFORMAT,
                               "random split of %s: %lld %snodes remain after the %s, fewer than "
                               "the %d validation + %d test nodes requested",
                               what, (long long)rest, lab, after, V, Xe);
        if ((strict_val && rest < V) || (strict_xe && rest < Xe))
            return gat_i_error(GAT_EFORMAT,
                               "random split of %s: %lld %snodes remain after the %s, fewer than "
                               "the %d %s nodes requested",
                               what, (long long)rest, lab, after, strict_val ? V : Xe,
                               strict_val ? "validation" : "test");
        if (strict_val) {
            *test = (gat_idx)(rest - V);
        } else if (strict_xe) {
            *val = (gat_idx)(rest - Xe);
        } else {
            /* rest in the ratio V : Xe, rounded, keeping one node for each asked-for set */
            int64_t v = (2 * rest * V + V + Xe) / (2 * ((int64_t)V + Xe));
            if (V > 0 && v == 0 && rest > 0) v = 1;
            if (Xe > 0 && v == rest && rest >= 2) v = rest - 1;
            *val = (gat_idx)v;
            *test = (gat_idx)(rest - v);
        }
        if (*val < V) adapted |= GAT_SPLIT_STRICT_VAL;
        if (*test < Xe) adapted |= GAT_SPLIT_STRICT_TEST;
    }
    ds->split_adapted = adapted;
    return GAT_OK;
}

/* Seeded Fisher-Yates shuffle of v (n). */
static void shuffle(gat_idx *v, gat_idx n, gat_rng *rng)
{
    for (gat_idx i = n - 1; i > 0; i--) {
        gat_idx j = (gat_idx)gat_rng_below(rng, (uint64_t)i + 1), tmp = v[i];
        v[i] = v[j];
        v[j] = tmp;
    }
}

/* The per-class quotas of o->split_fractions (gat_dataset_options): train[c], val[c], test[c]. */
static void plan_fractions(const gat_idx *count, gat_idx C, const double *f, gat_idx *quota)
{
    const int rest = f[0] + f[1] + f[2] >= 1 - 1e-9;
    for (gat_idx c = 0; c < C; c++) {
        gat_idx *q = quota + 3 * (size_t)c;
        q[0] = (gat_idx)(f[0] * count[c] + 1e-9);
        q[1] = (gat_idx)(f[1] * count[c] + 1e-9);
        if (q[0] + q[1] > count[c]) q[1] = count[c] - q[0];
        q[2] = rest ? count[c] - q[0] - q[1] : (gat_idx)(f[2] * count[c] + 1e-9);
        if (q[0] + q[1] + q[2] > count[c]) q[2] = count[c] - q[0] - q[1];
    }
}

/* The split by fractions: one seeded shuffle, then within each class the first quota train, the
 * next validation, the next test, so that each set is a uniform draw from its class. */
static gat_status fraction_split(gat_dataset *ds, const gat_dataset_options *o)
{
    const gat_idx C = ds->n_classes;
    gat_idx *perm = gat_malloc((size_t)ds->n, sizeof *perm);
    gat_idx *count = gat_calloc((size_t)C + 1, sizeof *count);
    gat_idx *quota = gat_calloc(3 * (size_t)C + 1, sizeof *quota);
    gat_rng rng;
    gat_status st = GAT_ENOMEM;
    if (!perm || !count || !quota) goto cleanup;
    if (ds->n > 0) memset(ds->split, GAT_SPLIT_NONE, (size_t)ds->n);
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] >= 0) count[ds->labels[i]]++;
    plan_fractions(count, C, o->split_fractions, quota);
    gat_rng_seed(&rng, o->seed);
    for (gat_idx i = 0; i < ds->n; i++)
        perm[i] = i;
    shuffle(perm, ds->n, &rng);
    memset(count, 0, (size_t)C * sizeof *count);
    for (gat_idx k = 0; k < ds->n; k++) {
        const gat_idx i = perm[k], c = ds->labels[i];
        if (c < 0) continue;
        const gat_idx *q = quota + 3 * (size_t)c, r = count[c]++;
        ds->split[i] = r < q[0]                 ? GAT_SPLIT_TRAIN
                       : r < q[0] + q[1]        ? GAT_SPLIT_VAL
                       : r < q[0] + q[1] + q[2] ? GAT_SPLIT_TEST
                                                : GAT_SPLIT_NONE;
    }
    ds->split_adapted = 0;
    st = GAT_OK;
cleanup:
    gat_free(perm);
    gat_free(count);
    gat_free(quota);
    return st;
}

gat_status gat_i_random_split(gat_dataset *ds, const gat_dataset_options *o, const char *what)
{
    const double *f = o->split_fractions;
    if (f[0] > 0 || f[1] > 0 || f[2] > 0) return fraction_split(ds, o);
    gat_idx *perm = gat_malloc((size_t)ds->n, sizeof *perm);
    gat_idx *count = gat_calloc((size_t)ds->n_classes, sizeof *count);
    gat_idx *train = gat_calloc((size_t)ds->n_classes, sizeof *train);
    gat_idx *val = gat_calloc((size_t)ds->n_classes, sizeof *val);
    gat_idx n_val = 0, n_test = 0, labelled = 0, rest = 0;
    gat_rng rng;
    gat_status st = GAT_ENOMEM;

    if (!perm || !count || !train || !val) goto cleanup;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] >= 0) {
            count[ds->labels[i]]++;
            labelled++;
        }
    if ((st = plan_split(ds, count, labelled, o, what, train, val, &n_val, &n_test)) != GAT_OK)
        goto cleanup;
    if (ds->n > 0) memset(ds->split, GAT_SPLIT_NONE, (size_t)ds->n);
    gat_rng_seed(&rng, o->seed);
    for (gat_idx i = 0; i < ds->n; i++)
        perm[i] = i;
    shuffle(perm, ds->n, &rng);
    memset(count, 0, (size_t)ds->n_classes * sizeof *count);
    for (gat_idx k = 0; k < ds->n; k++) {
        gat_idx i = perm[k];
        if (ds->labels[i] >= 0 && count[ds->labels[i]] < train[ds->labels[i]]) {
            count[ds->labels[i]]++;
            ds->split[i] = GAT_SPLIT_TRAIN;
        }
    }
    /* Validation and test come from a fresh shuffle of the remainder (as PyG's RandomNodeSplit):
     * the first leftovers of the shuffle above would favour the large classes, whose nodes the
     * per-class training quota has not used up early in the order. */
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->labels[i] >= 0 && ds->split[i] == GAT_SPLIT_NONE) perm[rest++] = i;
    shuffle(perm, rest, &rng);
    if (o->val_per_class > 0) {
        /* val[c] of each class, then test from a third shuffle of what they leave (the first
         * leftovers of this one would again favour the classes whose quota fills early) */
        gat_idx left = 0;
        memset(count, 0, (size_t)ds->n_classes * sizeof *count);
        for (gat_idx k = 0; k < rest; k++) {
            const gat_idx i = perm[k], c = ds->labels[i];
            if (count[c] < val[c]) {
                count[c]++;
                ds->split[i] = GAT_SPLIT_VAL;
            } else {
                perm[left++] = i;
            }
        }
        shuffle(perm, left, &rng);
        for (gat_idx k = 0; k < left && k < n_test; k++)
            ds->split[perm[k]] = GAT_SPLIT_TEST;
    } else {
        for (gat_idx k = 0; k < rest && k < n_val + n_test; k++)
            ds->split[perm[k]] = k < n_val ? GAT_SPLIT_VAL : GAT_SPLIT_TEST;
    }
cleanup:
    gat_free(perm);
    gat_free(count);
    gat_free(train);
    gat_free(val);
    return st;
}

gat_status gat_dataset_random_split(gat_dataset *ds, const gat_dataset_options *o)
{
    static const char fn[] = "gat_dataset_random_split";
    gat_i_clear_error();
    if (!ds || !o)
        return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !ds ? "dataset ds" : "options o");
    gat_status st = gat_i_check_options(o, fn);
    if (st != GAT_OK) return st;
    if (ds->n_labels > 0 || ds->n_classes < 1 || (ds->n > 0 && (!ds->labels || !ds->split)))
        return gat_i_error(GAT_EINVAL, "%s: the dataset has %s", fn,
                           ds->n_labels > 0    ? "multi-hot labels (the split is drawn by class)"
                           : ds->n_classes < 1 ? "no node classes to draw the split by"
                           : !ds->labels       ? "NULL labels"
                                               : "NULL split");
    /* gat_i_random_split fails before it writes: ds is unchanged then */
    if ((st = gat_i_random_split(ds, o, "the dataset")) == GAT_OK) gat_i_count_split(ds);
    return st;
}
