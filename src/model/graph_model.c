/* A graph model's forward and backward on a batch of graphs (gat/readout.h): the attention
 * layers on the block-diagonal batch, the readout per graph and the linear classifier, with the
 * caches they keep in the model (struct gat_i_readout_ws, readout_ws.h). */
#include "model_state.h"
#include "readout_i.h"
#include "readout_ws.h"
#include "core/core.h"
#include "gat/readout.h"

#include <stdio.h>
#include <string.h>

/* The parameter offset of the tensor called name (it exists in a graph model's table). */
static gat_real *tensor(gat_model *m, gat_real *base, const char *name)
{
    int n;
    const gat_model_tensor *t = gat_model_tensors(m, &n);
    for (int k = 0; k < n; k++)
        if (!strcmp(t[k].name, name)) return base + t[k].offset;
    return NULL;
}

/* Points the classifier's weights (grads = 0) or their gradients (grads = 1) into m's buffers. */
static void mlp_tensors(gat_model *m, gat_i_mlp_op *op, int grads)
{
    gat_real *base = grads ? gat_model_grads(m, NULL) : gat_model_params(m, NULL);
    char name[48]; /* "classifier.hidden%d.weight" with any int */
    for (int k = 0; k <= op->L; k++) {
        gat_real *W, *b;
        if (k < op->L) {
            snprintf(name, sizeof name, "classifier.hidden%d.weight", k);
            W = tensor(m, base, name);
            snprintf(name, sizeof name, "classifier.hidden%d.bias", k);
            b = tensor(m, base, name);
        } else {
            W = tensor(m, base, "classifier.weight");
            b = tensor(m, base, "classifier.bias");
        }
        if (grads)
            op->dW[k] = W, op->db[k] = b;
        else
            op->W[k] = W, op->b[k] = b;
    }
}

/* Sizes the caches for B graphs of N nodes (growing only). */
static gat_status reserve(struct gat_i_readout_ws *w, const gat_model_config *c, gat_idx B,
                          gat_idx N)
{
    const size_t D = (size_t)c->classes, R = (size_t)gat_i_readout_width(c);
    const size_t KA = (size_t)gat_i_readout_heads(c) * (size_t)gat_i_readout_hidden(c),
                 K = (size_t)gat_i_readout_heads(c), C = (size_t)c->graph_classes;
    const int att = c->readout == GAT_READOUT_ATTENTION, mx = c->readout == GAT_READOUT_MAX;
    if ((size_t)B > w->cap_b) {
        gat_free(w->ptr), gat_free(w->r), gat_free(w->logits), gat_free(w->dr), gat_free(w->arg);
        w->arg = NULL;
        w->cap_b = 0;
        if (!(w->ptr = gat_malloc((size_t)B + 1, sizeof *w->ptr)) ||
            !(w->r = gat_malloc((size_t)B * R, sizeof *w->r)) ||
            !(w->logits = gat_malloc((size_t)B * C, sizeof *w->logits)) ||
            !(w->dr = gat_malloc((size_t)B * R, sizeof *w->dr)) ||
            (mx && !(w->arg = gat_malloc((size_t)B * D, sizeof *w->arg))))
            return GAT_ENOMEM;
        w->cap_b = (size_t)B;
    }
    if (c->classifier_layers > 0 && (size_t)B > w->cap_act) {
        const gat_idx Rw = gat_i_readout_width(c);
        gat_free(w->act), gat_free(w->scratch);
        w->scratch = NULL;
        w->cap_act = 0;
        if (!(w->act = gat_malloc(gat_i_mlp_act_size(B, Rw, c->classifier_layers),
                                  sizeof *w->act)) ||
            !(w->scratch = gat_malloc(2 * (size_t)B * (size_t)(Rw / 2), sizeof *w->scratch)))
            return GAT_ENOMEM;
        w->cap_act = (size_t)B;
    }
    if ((size_t)N > w->cap_n) {
        gat_free(w->dh), gat_free(w->u), gat_free(w->a), gat_free(w->dz), gat_free(w->dg);
        w->u = w->a = w->dz = w->dg = NULL;
        w->cap_n = 0;
        if (!(w->dh = gat_malloc((size_t)N * D, sizeof *w->dh)) ||
            (att && (!(w->u = gat_malloc((size_t)N * KA, sizeof *w->u)) ||
                     !(w->a = gat_malloc((size_t)N * K, sizeof *w->a)) ||
                     !(w->dz = gat_malloc((size_t)N * KA, sizeof *w->dz)) ||
                     !(w->dg = gat_malloc((size_t)N * K, sizeof *w->dg)))))
            return GAT_ENOMEM;
        w->cap_n = (size_t)N;
    }
    return GAT_OK;
}

gat_status gat_i_graph_bind_batch(gat_model *m, const gat_graph_batch *b, int trusted,
                                  const char *fn, gat_i_binding *bb)
{
    const gat_model_config *c = gat_model_get_config(m);
    gat_status st;
    *bb = (gat_i_binding){.g = &b->graph,
                          .x = &b->x,
                          .ex = c->edge_dim > 0 ? b->edge_x : NULL,
                          .flags = GAT_I_BIND_TRUSTED};
    if (trusted) return gat_i_model_bind(m, bb, fn);
    if ((st = gat_model_bind(m, &b->graph, &b->x, 0)) == GAT_OK && c->edge_dim > 0)
        st = gat_model_bind_edge_features(m, b->edge_x, b->edge_x ? b->n_edge_features : 0);
    return st;
}

static gat_status check_batch(const gat_model *m, const gat_graph_batch *b, const char *fn)
{
    if (!m || !b) return gat_i_error(GAT_EINVAL, "%s: NULL %s", fn, !m ? "model" : "batch");
    if (gat_model_get_config(m)->task != GAT_TASK_GRAPH)
        return gat_i_error(GAT_EINVAL, "%s: the model is a node model (task node), not a graph "
                                       "model", fn);
    if (b->n_graphs < 1 || !b->graph_ptr || b->graph_ptr[0] != 0 ||
        b->graph_ptr[b->n_graphs] != b->graph.n)
        return gat_i_error(GAT_EINVAL,
                           "%s: the batch has %d graphs and segments that do not run from 0 to "
                           "its %d nodes",
                           fn, b->n_graphs, b->graph.n);
    for (gat_idx k = 0; k < b->n_graphs; k++)
        if (b->graph_ptr[k + 1] <= b->graph_ptr[k])
            return gat_i_error(GAT_EINVAL,
                               "%s: graph %d of the batch has no nodes (graph_ptr[%d] = %d, "
                               "graph_ptr[%d] = %d); every graph needs at least one",
                               fn, k, k, b->graph_ptr[k], k + 1, b->graph_ptr[k + 1]);
    return GAT_OK;
}

gat_status gat_i_model_forward_graphs(gat_model *m, const gat_graph_batch *b, int training,
                                      int trusted, const gat_real **logits)
{
    gat_status st;
    const char *fn = "gat_model_forward_graphs";
    if ((st = check_batch(m, b, fn)) != GAT_OK) return st;
    if (!logits) return gat_i_error(GAT_EINVAL, "%s: NULL logits", fn);
    const gat_model_config *c = gat_model_get_config(m);
    if (!m->ro && !(m->ro = gat_calloc(1, sizeof *m->ro))) return GAT_ENOMEM;
    struct gat_i_readout_ws *w = m->ro;
    w->ran = w->trained = 0;
    gat_i_binding bb;
    if ((st = gat_i_graph_bind_batch(m, b, trusted, fn, &bb)) != GAT_OK ||
        (st = gat_i_model_forward(m, &bb, &(gat_i_run){.training = training}, &w->h)) != GAT_OK)
        return st;
    if ((st = reserve(w, c, b->n_graphs, b->graph.n)) != GAT_OK) return st;
    memcpy(w->ptr, b->graph_ptr, ((size_t)b->n_graphs + 1) * sizeof *w->ptr);
    w->B = b->n_graphs, w->N = b->graph.n, w->D = c->classes;
    w->R = gat_i_readout_width(c), w->C = c->graph_classes;
    w->op = (gat_i_readout_op){.kind = c->readout,
                               .B = w->B,
                               .D = w->D,
                               .K = gat_i_readout_heads(c),
                               .A = gat_i_readout_hidden(c),
                               .ptr = w->ptr,
                               .u = w->u,
                               .a = w->a,
                               .dz = w->dz,
                               .dg = w->dg,
                               .arg = w->arg,
                               .threads = gat_i_model_threads(m)};
    if (c->readout == GAT_READOUT_ATTENTION) {
        w->op.V = tensor(m, gat_model_params(m, NULL), "readout.gate_weight");
        w->op.c = tensor(m, gat_model_params(m, NULL), "readout.gate_bias");
        w->op.w = tensor(m, gat_model_params(m, NULL), "readout.gate_att");
    }
    gat_i_readout_forward(&w->op, w->h, w->r);
    w->mlp = (gat_i_mlp_op){.B = w->B, .R = w->R, .C = w->C, .L = c->classifier_layers,
                            .act = w->act, .scratch = w->scratch};
    mlp_tensors(m, &w->mlp, 0);
    gat_i_mlp_forward(&w->mlp, w->r, w->logits);
    w->ran = 1;
    w->trained = training != 0;
    *logits = w->logits;
    return GAT_OK;
}

gat_status gat_i_graph_check_dataset(const gat_model *m, const gat_dataset *ds, const char *fn)
{
    return gat_i_model_check_inputs(m, &ds->graph, &ds->x,
                                    ds->n_edge_features > 0 ? ds->edge_x : NULL, fn);
}

gat_status gat_model_forward_graphs(gat_model *m, const gat_graph_batch *b, int training,
                                    const gat_real **logits)
{
    gat_i_clear_error();
    return gat_i_model_forward_graphs(m, b, training, 0, logits);
}

gat_status gat_model_backward_graphs(gat_model *m, const gat_real *dlogits)
{
    gat_i_clear_error();
    if (!m || !dlogits)
        return gat_i_error(GAT_EINVAL, "gat_model_backward_graphs: NULL %s",
                           !m ? "model" : "dlogits");
    struct gat_i_readout_ws *w = m->ro;
    if (!w || !w->ran || !w->trained)
        return gat_i_error(GAT_EINVAL, "gat_model_backward_graphs: the last forward was not a "
                                       "training forward of graphs (gat_model_forward_graphs)");
    gat_real *grads = gat_model_grads(m, NULL);
    memset(w->dr, 0, (size_t)w->B * w->R * sizeof *w->dr);
    memset(w->dh, 0, (size_t)w->N * w->D * sizeof *w->dh);
    mlp_tensors(m, &w->mlp, 1);
    gat_i_mlp_backward(&w->mlp, w->r, dlogits, w->dr);
    if (gat_model_get_config(m)->readout == GAT_READOUT_ATTENTION) {
        w->op.dV = tensor(m, grads, "readout.gate_weight");
        w->op.dc = tensor(m, grads, "readout.gate_bias");
        w->op.dw = tensor(m, grads, "readout.gate_att");
    }
    gat_i_readout_backward(&w->op, w->h, w->dr, w->dh);
    return gat_model_backward(m, w->dh);
}

gat_status gat_model_graph_outputs(const gat_model *m, const gat_real **pooled,
                                   const gat_real **attention)
{
    gat_i_clear_error();
    if (!m || !m->ro || !m->ro->ran)
        return gat_i_error(GAT_EINVAL, "gat_model_graph_outputs: %s",
                           !m ? "NULL model" : "no forward of graphs yet");
    if (pooled) *pooled = m->ro->r;
    if (attention) *attention = gat_model_get_config(m)->readout == GAT_READOUT_ATTENTION ? m->ro->a : NULL;
    return GAT_OK;
}

gat_status gat_i_graph_scratch(gat_model *m, gat_idx B, gat_real **dlogits, uint8_t **all)
{
    const gat_model_config *c = gat_model_get_config(m);
    if (c->task != GAT_TASK_GRAPH)
        return gat_i_error(GAT_EINVAL, "the model is a node model (task node), not a graph model");
    if (!m->ro && !(m->ro = gat_calloc(1, sizeof *m->ro))) return GAT_ENOMEM;
    struct gat_i_readout_ws *w = m->ro;
    if ((size_t)B > w->cap_s) {
        gat_free(w->dl), gat_free(w->all);
        w->all = NULL;
        w->cap_s = 0;
        if (!(w->dl = gat_malloc((size_t)B * (size_t)c->graph_classes, sizeof *w->dl)) ||
            !(w->all = gat_malloc((size_t)B, 1)))
            return GAT_ENOMEM;
        memset(w->all, GAT_SPLIT_TRAIN, (size_t)B);
        w->cap_s = (size_t)B;
    }
    *dlogits = w->dl;
    *all = w->all;
    return GAT_OK;
}
