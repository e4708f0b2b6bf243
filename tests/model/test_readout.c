/* Gradient checks of the graph readouts (sum, mean, max, attention), the classifier and whole
 * graph models (layers + readout + classifier), in the double build. */
#include "gradcheck.h"
#include "model/readout_i.h"

#include <stdlib.h>

/* One readout on B = 4 graphs of 3, 1, 4 and 2 nodes (a one-node graph included). */
typedef struct ro_ctx {
    gat_i_readout_op op;
    gat_real *h, *dh;
} ro_ctx;

static void ro_fwd(void *c, gat_real *out)
{
    ro_ctx *d = c;
    gat_i_readout_forward(&d->op, d->h, out);
}

static void ro_bwd(void *c, const gat_real *dr)
{
    ro_ctx *d = c;
    gat_i_readout_backward(&d->op, d->h, dr, d->dh);
}

static const gat_idx ptr4[5] = {0, 3, 4, 8, 10};

START_TEST(test_readouts)
{
    const gat_readout kind = (gat_readout)(_i % GAT_READOUT_COUNT);
    const int nt = 1 + _i / GAT_READOUT_COUNT;
    pool pl = {0};
    const gat_idx B = 4, N = 10, D = 3, K = kind == GAT_READOUT_ATTENTION ? 2 : 1, A = 4;
    const size_t KA = (size_t)K * A;
    ro_ctx d = {.op = {.kind = kind, .B = B, .D = D, .K = K, .A = A, .ptr = ptr4, .threads = nt}};
    d.h = reals(&pl, (size_t)N * D), d.dh = reals(&pl, (size_t)N * D);
    tu_uniform(d.h, (size_t)N * D, -1, 1, 71 + _i);
    gc_op op = {.forward = ro_fwd, .backward = ro_bwd, .ctx = &d,
                .n_out = (size_t)B * D * K};
    snprintf(op.name, sizeof op.name, "readout %s nt=%d", gat_readout_name(kind), nt);
    add_var(&op, "h", d.h, d.dh, (size_t)N * D, 1);
    if (kind == GAT_READOUT_ATTENTION) {
        gat_real *V = reals(&pl, D * KA), *c = reals(&pl, KA), *w = reals(&pl, KA);
        d.op.V = V, d.op.c = c, d.op.w = w;
        d.op.dV = reals(&pl, D * KA), d.op.dc = reals(&pl, KA), d.op.dw = reals(&pl, KA);
        d.op.u = reals(&pl, N * KA), d.op.a = reals(&pl, (size_t)N * K);
        d.op.dz = reals(&pl, N * KA), d.op.dg = reals(&pl, (size_t)N * K);
        tu_uniform(V, D * KA, -1, 1, 81);
        tu_uniform(c, KA, -0.5, 0.5, 82);
        tu_uniform(w, KA, -1, 1, 83);
        add_var(&op, "V", V, d.op.dV, D * KA, 1);
        add_var(&op, "c", c, d.op.dc, KA, 1);
        add_var(&op, "w", w, d.op.dw, KA, 1);
    }
    if (kind == GAT_READOUT_MAX) d.op.arg = take(&pl, (size_t)B * D, sizeof(gat_idx));
    gradcheck(&op, 91 + _i);
    pool_free(&pl);
}
END_TEST

typedef struct lin_ctx {
    gat_idx B, R, C;
    gat_real *x, *W, *b, *dx, *dW, *db;
} lin_ctx;

static void lin_fwd(void *c, gat_real *out)
{
    lin_ctx *d = c;
    gat_i_linear_forward(d->B, d->R, d->C, d->x, d->W, d->b, out);
}

static void lin_bwd(void *c, const gat_real *dy)
{
    lin_ctx *d = c;
    gat_i_linear_backward(d->B, d->R, d->C, d->x, d->W, dy, d->dx, d->dW, d->db);
}

START_TEST(test_classifier)
{
    pool pl = {0};
    lin_ctx d = {.B = 3, .R = 5, .C = 4};
    d.x = reals(&pl, 15), d.W = reals(&pl, 20), d.b = reals(&pl, 4);
    d.dx = reals(&pl, 15), d.dW = reals(&pl, 20), d.db = reals(&pl, 4);
    tu_uniform(d.x, 15, -1, 1, 5);
    tu_uniform(d.W, 20, -1, 1, 6);
    tu_uniform(d.b, 4, -1, 1, 7);
    gc_op op = {.forward = lin_fwd, .backward = lin_bwd, .ctx = &d, .n_out = 12};
    snprintf(op.name, sizeof op.name, "classifier");
    add_var(&op, "x", d.x, d.dx, 15, 1);
    add_var(&op, "W", d.W, d.dW, 20, 1);
    add_var(&op, "b", d.b, d.db, 4, 1);
    gradcheck(&op, 8);
    pool_free(&pl);
}
END_TEST

/* The MLP classifier with L = 0, 1, 2 hidden layers (R = 8 -> 4 -> 2 -> C = 3). */
typedef struct mlp_ctx {
    gat_i_mlp_op op;
    gat_real *x, *dx;
} mlp_ctx;

static void mlp_fwd(void *c, gat_real *out)
{
    mlp_ctx *d = c;
    gat_i_mlp_forward(&d->op, d->x, out);
}

static void mlp_bwd(void *c, const gat_real *dy)
{
    mlp_ctx *d = c;
    gat_i_mlp_backward(&d->op, d->x, dy, d->dx);
}

START_TEST(test_mlp)
{
    const int L = _i;
    const gat_idx B = 3, R = 8, C = 3;
    pool pl = {0};
    mlp_ctx d = {.op = {.B = B, .R = R, .C = C, .L = L}};
    d.x = reals(&pl, (size_t)B * R), d.dx = reals(&pl, (size_t)B * R);
    d.op.act = reals(&pl, gat_i_mlp_act_size(B, R, L) + 1);
    d.op.scratch = reals(&pl, (size_t)B * R);
    tu_uniform(d.x, (size_t)B * R, -1, 1, 41 + L);
    gc_op op = {.forward = mlp_fwd, .backward = mlp_bwd, .ctx = &d, .n_out = (size_t)B * C};
    snprintf(op.name, sizeof op.name, "classifier MLP L=%d", L);
    add_var(&op, "x", d.x, d.dx, (size_t)B * R, 1);
    for (int k = 0; k <= L; k++) {
        const gat_idx fi = R >> k, fo = k == L ? C : R >> (k + 1);
        gat_real *W = reals(&pl, (size_t)fi * fo), *b = reals(&pl, (size_t)fo);
        d.op.W[k] = W, d.op.b[k] = b;
        d.op.dW[k] = reals(&pl, (size_t)fi * fo), d.op.db[k] = reals(&pl, (size_t)fo);
        tu_uniform(W, (size_t)fi * fo, -1, 1, 50 + k);
        /* biases away from the ReLU's kink, so the central differences see one side of it */
        tu_uniform(b, (size_t)fo, 0.05, 0.5, 60 + k);
        static const char *const wn[] = {"W0", "W1", "W2"}, *const bn[] = {"b0", "b1", "b2"};
        add_var(&op, wn[k], W, d.op.dW[k], (size_t)fi * fo, 1);
        add_var(&op, bn[k], b, d.op.db[k], (size_t)fo, 1);
    }
    gradcheck(&op, 70 + L);
    pool_free(&pl);
}
END_TEST

/* A whole graph model on a batch: training forwards without dropout. */
typedef struct gm_ctx {
    gat_model *m;
    gat_graph_batch b;
    size_t n_out;
} gm_ctx;

static void gm_fwd(void *c, gat_real *out)
{
    gm_ctx *d = c;
    const gat_real *logits;
    ck_assert_msg(gat_model_forward_graphs(d->m, &d->b, 1, &logits) == GAT_OK, "%s",
                  gat_last_error());
    memcpy(out, logits, d->n_out * sizeof *out);
}

static void gm_bwd(void *c, const gat_real *dl)
{
    gm_ctx *d = c;
    ck_assert_int_eq(gat_model_backward_graphs(d->m, dl), GAT_OK);
}

START_TEST(test_graph_model)
{
    const gat_readout kind = (gat_readout)_i;
    gat_dataset ds;
    gm_ctx d = {0};
    gat_model_config cfg;
    tu_graph_set(&ds, 5, 3, 11);
    gat_model_config_default(&cfg, 3, 4);
    cfg.hidden = 3, cfg.heads = 2, cfg.in_dropout = cfg.att_dropout = 0;
    cfg.task = GAT_TASK_GRAPH, cfg.readout = kind, cfg.graph_classes = 3;
    if (kind == GAT_READOUT_ATTENTION) cfg.readout_heads = 2, cfg.readout_hidden = 3;
    cfg.classifier_layers = (gat_idx[]){0, 2, 1, 1}[_i]; /* linear, one or two hidden layers */
    ck_assert_int_eq(gat_model_create(&d.m, &cfg, 21), GAT_OK);
    gat_idx ids[3] = {4, 0, 2};
    ck_assert_int_eq(gat_graph_batch_make(&d.b, &ds, ids, 3), GAT_OK);
    d.n_out = 3 * 3;
    gc_op op = {.forward = gm_fwd, .backward = gm_bwd, .ctx = &d, .n_out = d.n_out};
    snprintf(op.name, sizeof op.name, "graph model, readout %s, classifier L=%d",
             gat_readout_name(kind), cfg.classifier_layers);
    int nt;
    size_t P;
    const gat_model_tensor *t = gat_model_tensors(d.m, &nt);
    gat_real *p = gat_model_params(d.m, &P), *g = gat_model_grads(d.m, NULL);
    for (int k = 0; k < nt; k++) {
        /* the classifier's hidden biases start at 0: with every ReLU input <= 0 (all of a tiny
         * model's can be) the central differences would straddle the kink at 0 */
        if (!strncmp(t[k].name, "classifier.hidden", 17) && t[k].ndim == 1)
            tu_uniform(p + t[k].offset, t[k].size, 1, 2, 90 + (uint64_t)k);
        add_var(&op, t[k].name, p + t[k].offset, g + t[k].offset, t[k].size, 1);
    }
    gradcheck(&op, 31 + _i);
    gat_graph_batch_destroy(&d.b);
    gat_model_free(d.m);
    gat_dataset_destroy(&ds);
}
END_TEST

static Suite *readout_suite(void)
{
    Suite *s = suite_create("readout");
    TCase *tc = tcase_create("gradients");
    tcase_add_loop_test(tc, test_readouts, 0, 2 * GAT_READOUT_COUNT);
    tcase_add_test(tc, test_classifier);
    tcase_add_loop_test(tc, test_mlp, 0, 3);
    tcase_add_loop_test(tc, test_graph_model, 0, GAT_READOUT_COUNT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(readout_suite());
}
