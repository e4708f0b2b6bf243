/* Multi-label loss: sigmoid binary cross-entropy per (node, label), averaged over both,
 *   loss = mean over i, l of  max(z, 0) - z y + log(1 + exp(-|z|)),  d loss / d z = (s(z) - y) / (rows L)
 * (the stable form of -y log s(z) - (1 - y) log(1 - s(z)), as TensorFlow's
 * sigmoid_cross_entropy_with_logits that the GAT paper's PPI code averages). */
#include "gat/train.h"
#include "core/core.h"
#include "train/train_i.h"

#include <math.h>
#include <string.h>

gat_status gat_i_bce_rows(const gat_real *logits, gat_idx n, gat_idx L, const uint8_t *targets,
                          const uint8_t *split, gat_split which, const gat_idx *rows,
                          gat_idx count, double denom, double *loss, double *f1,
                          gat_real *dlogits)
{
    gat_i_f1_counts c = {0};
    double total = 0;
    if (denom <= 0) denom = count;
    const double scale = 1.0 / (denom * (double)L);
    if (dlogits) memset(dlogits, 0, (size_t)n * (size_t)L * sizeof *dlogits);
    for (gat_idx k = 0; k < (rows ? count : n); k++) {
        const gat_idx i = rows ? rows[k] : k;
        if (!rows && split[i] != which) continue;
        const gat_real *z = logits + (size_t)i * (size_t)L;
        const uint8_t *y = targets + (size_t)i * (size_t)L;
        gat_real *d = dlogits ? dlogits + (size_t)i * (size_t)L : NULL;
        for (gat_idx l = 0; l < L; l++) {
            const double v = z[l], t = y[l] != 0;
            total += (v > 0 ? v : 0) - v * t + log1p(exp(-fabs(v)));
            if (d) {
                /* sigmoid without overflow on either side */
                const double e = exp(-fabs(v)), s = v >= 0 ? 1 / (1 + e) : e / (1 + e);
                d[l] = (gat_real)((s - t) * scale);
            }
        }
        gat_i_f1_add(&c, z, y, L);
    }
    *loss = total * scale;
    *f1 = gat_i_f1_value(&c);
    return GAT_OK;
}

gat_status gat_sigmoid_bce(const gat_real *logits, gat_idx n, gat_idx n_labels,
                           const uint8_t *targets, const uint8_t *split, gat_split which,
                           double *loss, double *f1, gat_real *dlogits)
{
    gat_idx count = 0;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_sigmoid_bce", 5,
                               (const void *[]){logits, targets, split, loss, f1},
                               (const char *[]){"logits", "targets", "split", "loss", "f1"})) !=
        GAT_OK)
        return st;
    if (n < 0 || n_labels <= 0)
        return gat_i_error(GAT_EINVAL, "gat_sigmoid_bce: bad size n = %d, n_labels = %d", n,
                           n_labels);
    for (gat_idx i = 0; i < n; i++)
        count += split[i] == which;
    if (count == 0) return gat_i_error(GAT_EINVAL, "gat_sigmoid_bce: no node in split %d", which);
    return gat_i_bce_rows(logits, n, n_labels, targets, split, which, NULL, count, 0, loss, f1,
                          dlogits);
}
