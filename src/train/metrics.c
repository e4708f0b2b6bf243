/* Evaluation metrics (gat/metrics.h) and the names of what early stopping follows (gat_metric):
 * ROC-AUC as the Mann-Whitney statistic,
 * AUC = (sum over positives of the number of negatives scored below, ties 1/2) / (P N);
 * micro-averaged F1 of multi-label predictions (a label is predicted when its logit is > 0, i.e.
 * sigmoid > 1/2; F1 = 2 TP / (2 TP + FP + FN) over every (node, label) pair, as scikit-learn's
 * f1_score(average="micro")); macro-averaged F1 of class predictions, the mean of per-class
 * F1 over the classes that occur, as f1_score(average="macro"). */
#include "gat/metrics.h"
#include "gat/train.h"
#include "core/core.h"
#include "train/metrics_i.h"
#include "train/train_i.h"

#include <math.h>
#include <stdlib.h>

typedef struct scored {
    double s;
    uint8_t pos;
} scored;

static int by_score(const void *a, const void *b)
{
    const double x = ((const scored *)a)->s, y = ((const scored *)b)->s;
    return (x > y) - (x < y);
}

/* The AUC of v (n of them, finite scores, at least one of each class), reordered in place. */
static double auc_sorted(scored *v, gat_idx n, double n_pos, double n_neg)
{
    qsort(v, (size_t)n, sizeof *v, by_score);
    /* each group of equal scores: its positives beat every negative below the group and tie
     * with the group's own negatives; sums of integers and halves stay exact in a double */
    double wins = 0, neg_below = 0;
    for (gat_idx k = 0; k < n;) {
        gat_idx e = k;
        double p = 0, q = 0;
        for (; e < n && v[e].s == v[k].s; e++)
            v[e].pos ? p++ : q++;
        wins += p * neg_below + 0.5 * p * q;
        neg_below += q;
        k = e;
    }
    return wins / (n_pos * n_neg);
}

/* Checks v's scores and classes, then its AUC; fn names the caller in messages. */
static gat_status auc_of(scored *v, gat_idx n, const char *fn, double *auc)
{
    double n_pos = 0;
    for (gat_idx k = 0; k < n; k++) {
        if (!isfinite(v[k].s))
            return gat_i_error(GAT_ENUMERIC, "%s: score %d is %g, expected a finite value", fn, k,
                               v[k].s);
        n_pos += v[k].pos;
    }
    const double n_neg = (double)n - n_pos;
    if (n_pos == 0 || n_neg == 0)
        return gat_i_error(GAT_EINVAL,
                           "%s: %.0f positive and %.0f negative examples; the ROC-AUC needs "
                           "at least one of each",
                           fn, n_pos, n_neg);
    *auc = auc_sorted(v, n, n_pos, n_neg);
    return GAT_OK;
}

gat_status gat_roc_auc(const double *score, const uint8_t *positive, gat_idx n, double *auc)
{
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_roc_auc", 3, (const void *[]){score, positive, auc},
                               (const char *[]){"score", "positive", "auc"})) != GAT_OK)
        return st;
    if (n < 0) return gat_i_error(GAT_EINVAL, "gat_roc_auc: n = %d, expected n >= 0", n);
    scored *v = gat_malloc((size_t)n + 1, sizeof *v);
    if (!v) return GAT_ENOMEM;
    for (gat_idx k = 0; k < n; k++)
        v[k] = (scored){score[k], positive[k] != 0};
    st = auc_of(v, n, "gat_roc_auc", auc);
    gat_free(v);
    return st;
}

gat_status gat_i_auc_logits(const gat_real *logits, const gat_idx *labels, const gat_idx *rows,
                            gat_idx count, double *auc)
{
    gat_status st;
    scored *v = gat_malloc((size_t)count + 1, sizeof *v);
    if (!v) return GAT_ENOMEM;
    for (gat_idx k = 0; k < count; k++) {
        const gat_idx i = rows[k], y = labels[i];
        if (y != 0 && y != 1) {
            gat_free(v);
            return gat_i_error(GAT_EINVAL, "ROC-AUC: node %d has label %d, expected 0 or 1", i, y);
        }
        v[k] = (scored){(double)logits[2 * (size_t)i + 1] - (double)logits[2 * (size_t)i], y == 1};
    }
    st = auc_of(v, count, "ROC-AUC", auc);
    gat_free(v);
    return st;
}

static const char *const metric_names[] = {"acc", "auc", "loss"};

const char *gat_metric_name(gat_metric metric)
{
    return (unsigned)metric < 3 ? metric_names[metric] : "?";
}

gat_status gat_metric_from_name(const char *name, gat_metric *out)
{
    static const int values[] = {GAT_METRIC_ACC, GAT_METRIC_AUC, GAT_METRIC_LOSS};
    int v;
    gat_status st;
    gat_i_clear_error();
    if (!name || !out)
        return gat_i_error(GAT_EINVAL, "gat_metric_from_name: NULL %s", !name ? "name" : "out");
    if ((st = gat_i_name_lookup("metric", name, metric_names, values, 3, &v)) == GAT_OK)
        *out = (gat_metric)v;
    return st;
}

gat_status gat_macro_f1(const gat_idx *labels, const gat_idx *pred, gat_idx n, gat_idx classes,
                        double *f1)
{
    gat_i_f1_counts *c = NULL;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_macro_f1", 3, (const void *[]){labels, pred, f1},
                               (const char *[]){"labels", "pred", "f1"})) != GAT_OK)
        return st;
    if (n < 1 || classes < 1)
        return gat_i_error(GAT_EINVAL, "gat_macro_f1: n = %d, classes = %d; expected both >= 1",
                           n, classes);
    for (gat_idx k = 0; k < n; k++)
        if (labels[k] < 0 || labels[k] >= classes || pred[k] < 0 || pred[k] >= classes)
            return gat_i_error(GAT_EINVAL, "gat_macro_f1: %s[%d] = %d outside 0..%d",
                               labels[k] < 0 || labels[k] >= classes ? "labels" : "pred", k,
                               labels[k] < 0 || labels[k] >= classes ? labels[k] : pred[k],
                               classes - 1);
    if (!(c = gat_calloc((size_t)classes, sizeof *c))) return GAT_ENOMEM;
    for (gat_idx k = 0; k < n; k++)
        if (labels[k] == pred[k]) {
            c[labels[k]].tp++;
        } else {
            c[pred[k]].fp++;
            c[labels[k]].fn++;
        }
    double sum = 0;
    gat_idx seen = 0;
    for (gat_idx q = 0; q < classes; q++)
        if (c[q].tp + c[q].fp + c[q].fn > 0) { /* the class occurs in labels or pred */
            sum += gat_i_f1_value(&c[q]);
            seen++;
        }
    gat_free(c);
    *f1 = sum / seen; /* seen >= 1: n >= 1 */
    return GAT_OK;
}

void gat_i_f1_add(gat_i_f1_counts *c, const gat_real *z, const uint8_t *y, gat_idx L)
{
    for (gat_idx l = 0; l < L; l++) {
        const int pred = z[l] > 0, truth = y[l] != 0;
        c->tp += pred && truth;
        c->fp += pred && !truth;
        c->fn += !pred && truth;
    }
}

double gat_i_f1_value(const gat_i_f1_counts *c)
{
    const double d = 2.0 * (double)c->tp + (double)c->fp + (double)c->fn;
    /* nothing predicted and nothing true: 0, as scikit-learn's zero_division default */
    return d > 0 ? 2.0 * (double)c->tp / d : 0.0;
}

gat_status gat_micro_f1(const gat_real *logits, gat_idx n, gat_idx n_labels,
                        const uint8_t *targets, const uint8_t *split, gat_split which, double *f1)
{
    gat_i_f1_counts c = {0};
    gat_idx count = 0;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_micro_f1", 4, (const void *[]){logits, targets, split, f1},
                               (const char *[]){"logits", "targets", "split", "f1"})) != GAT_OK)
        return st;
    if (n < 0 || n_labels <= 0)
        return gat_i_error(GAT_EINVAL, "gat_micro_f1: bad size n = %d, n_labels = %d", n,
                           n_labels);
    for (gat_idx i = 0; i < n; i++) {
        if (split[i] != which) continue;
        count++;
        gat_i_f1_add(&c, logits + (size_t)i * (size_t)n_labels,
                     targets + (size_t)i * (size_t)n_labels, n_labels);
    }
    if (count == 0) return gat_i_error(GAT_EINVAL, "gat_micro_f1: no node in split %d", which);
    *f1 = gat_i_f1_value(&c);
    return GAT_OK;
}
