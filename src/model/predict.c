/* Class predictions into caller buffers: argmax of the logits and its softmax probability
 * p = 1 / sum_c exp(l_c - l_max). */
#include "gat/model.h"
#include "core/core.h"
#include "model/model_i.h"

#include <math.h>

void gat_i_predict_rows(const gat_real *logits, gat_idx n, gat_idx C, gat_idx *classes,
                        gat_real *probability)
{
    for (gat_idx i = 0; i < n; i++) {
        const gat_real *z = logits + (size_t)i * (size_t)C;
        gat_idx best = 0;
        for (gat_idx c = 1; c < C; c++)
            if (z[c] > z[best]) best = c;
        classes[i] = best;
        if (probability) {
            double sum = 0;
            for (gat_idx c = 0; c < C; c++)
                sum += exp((double)z[c] - (double)z[best]);
            probability[i] = (gat_real)(1.0 / sum);
        }
    }
}

gat_status gat_model_predict(gat_model *m, const gat_graph *g, const gat_csr *x, gat_idx *classes,
                             gat_real *probability)
{
    const gat_real *logits;
    gat_status st;
    gat_i_clear_error();
    if ((st = gat_i_check_args("gat_model_predict", 4, (const void *[]){m, g, x, classes},
                               (const char *[]){"model m", "graph g", "features x", "classes"})) !=
        GAT_OK)
        return st;
    if ((st = gat_model_forward(m, g, x, 0, &logits)) != GAT_OK) return st;
    gat_i_predict_rows(logits, g->n, gat_model_get_config(m)->classes, classes, probability);
    return GAT_OK;
}
