/* Evaluation metrics (gat/metrics.h) and the names of what early stopping follows (gat_metric):
 * ROC-AUC as the Mann-Whitney statistic,
 * AUC = (sum over positives of the number of negatives scored below, ties 1/2) / (P N). */
#include "gat/metrics.h"
#include "gat/train.h"
#include "core/core.h"
#include "train/metrics_i.h"

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
