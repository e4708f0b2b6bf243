/* Inference copy-outs (gat/embed.h): a forward without dropout, then a layer's output, the row
 * softmax of the logits p_ic = exp(l_ic - max_k l_ik) / sum_k exp(l_ik - max_k l_ik), or a
 * layer's attention coefficients, copied into caller-owned buffers. */
#include "gat/embed.h"
#include "core/core.h"
#include "model/model_i.h"

#include <math.h>
#include <string.h>

gat_idx gat_model_embed_width(const gat_model *m, int layer)
{
    if (!m) return -1;
    if (layer == GAT_LAYER_LOGITS || layer == GAT_LAYER_PROBS) layer = gat_model_layer_count(m) - 1;
    return gat_model_layer_width(m, layer);
}

/* Checks the arguments shared by the copy-outs and runs the inference forward. */
static gat_status infer(gat_model *m, const gat_graph *g, const gat_csr *x, const void *out,
                        const char *fn)
{
    const gat_real *logits;
    gat_i_clear_error();
    gat_status st = gat_i_check_args(fn, 4, (const void *[]){m, g, x, out},
                                     (const char *[]){"model m", "graph g", "features x", "output"});
    return st != GAT_OK ? st : gat_model_forward(m, g, x, 0, &logits);
}

gat_status gat_model_embed(gat_model *m, const gat_graph *g, const gat_csr *x, int layer,
                           gat_real *out)
{
    const gat_real *y;
    gat_status st;
    const gat_idx w = gat_model_embed_width(m, layer);
    if (m && w < 0)
        return gat_i_error(GAT_EINVAL,
                           "gat_model_embed: no layer %d: the model has layers 0..%d, "
                           "GAT_LAYER_LOGITS and GAT_LAYER_PROBS",
                           layer, gat_model_layer_count(m) - 1);
    if ((st = infer(m, g, x, out, "gat_model_embed")) != GAT_OK) return st;
    const int l = layer < 0 ? gat_model_layer_count(m) - 1 : layer;
    if ((st = gat_model_layer_output(m, l, &y)) != GAT_OK) return st;
    const size_t n = (size_t)g->n, cols = (size_t)w;
    memcpy(out, y, n * cols * sizeof *out);
    if (layer == GAT_LAYER_PROBS) gat_i_softmax_rows(out, n, cols);
    return GAT_OK;
}

void gat_i_softmax_rows(gat_real *out, size_t n, size_t cols)
{
    for (size_t i = 0; i < n; i++) {
        gat_real *p = out + i * cols;
        double mx = p[0], sum = 0;
        for (size_t c = 1; c < cols; c++)
            mx = p[c] > mx ? p[c] : mx;
        for (size_t c = 0; c < cols; c++)
            sum += exp((double)p[c] - mx);
        for (size_t c = 0; c < cols; c++)
            p[c] = (gat_real)(exp((double)p[c] - mx) / sum);
    }
}

gat_status gat_model_attention_copy(gat_model *m, const gat_graph *g, const gat_csr *x, int l,
                                    gat_real *alpha)
{
    const gat_real *a;
    gat_status st;
    if (m && (l < 0 || l >= gat_model_layer_count(m)))
        return gat_i_error(GAT_EINVAL,
                           "gat_model_attention_copy: no layer %d: the model has "
                           "layers 0..%d",
                           l, gat_model_layer_count(m) - 1);
    if ((st = infer(m, g, x, alpha, "gat_model_attention_copy")) != GAT_OK) return st;
    if ((st = gat_model_attention(m, l, &a)) != GAT_OK) return st;
    memcpy(alpha, a, (size_t)g->nnz * (size_t)gat_model_layer_heads(m, l) * sizeof *alpha);
    return GAT_OK;
}
