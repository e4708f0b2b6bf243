/* Readouts of graph models: sum, mean, max and attention pooling of node embeddings per graph
 * (gat/readout.h), forward and backward, and the linear classifier on the pooled vectors.
 * Attention, per head k: u_i = tanh(h_i V_k + c_k), g_ik = w_k . u_i, a_ik = softmax over the
 * graph's nodes of g_ik (maximum subtracted), r_k = sum_i a_ik h_i; heads concatenated. */
#include "readout_i.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

static const char *const task_names[GAT_TASK_COUNT] = {"node", "graph"};
static const char *const readout_names[GAT_READOUT_COUNT] = {"sum", "mean", "max", "attention"};

const char *gat_task_name(gat_task t)
{
    return (unsigned)t < GAT_TASK_COUNT ? task_names[t] : NULL;
}

const char *gat_readout_name(gat_readout r)
{
    return (unsigned)r < GAT_READOUT_COUNT ? readout_names[r] : NULL;
}

gat_status gat_task_from_name(const char *name, gat_task *out)
{
    static const int values[GAT_TASK_COUNT] = {0, 1};
    int v;
    gat_status st;
    gat_i_clear_error();
    if (!name || !out)
        return gat_i_error(GAT_EINVAL, "gat_task_from_name: NULL %s", !name ? "name" : "out");
    if ((st = gat_i_name_lookup("task", name, task_names, values, GAT_TASK_COUNT, &v)) == GAT_OK)
        *out = (gat_task)v;
    return st;
}

gat_status gat_readout_from_name(const char *name, gat_readout *out)
{
    static const int values[GAT_READOUT_COUNT] = {0, 1, 2, 3};
    int v;
    gat_status st;
    gat_i_clear_error();
    if (!name || !out)
        return gat_i_error(GAT_EINVAL, "gat_readout_from_name: NULL %s", !name ? "name" : "out");
    if ((st = gat_i_name_lookup("readout", name, readout_names, values, GAT_READOUT_COUNT,
                                &v)) == GAT_OK)
        *out = (gat_readout)v;
    return st;
}

gat_status gat_i_readout_config_check(const gat_model_config *c)
{
    if ((unsigned)c->task >= GAT_TASK_COUNT)
        return gat_i_error(GAT_EINVAL, "task %d is not a gat_task (expected 0..%d)", (int)c->task,
                           GAT_TASK_COUNT - 1);
    if (c->task == GAT_TASK_NODE) {
        if (c->readout != 0 || c->readout_heads != 0 || c->readout_hidden != 0 ||
            c->graph_classes != 0 || c->classifier_layers != 0)
            return gat_i_error(GAT_EINVAL,
                               "readout, readout_heads, readout_hidden, graph_classes and "
                               "classifier_layers must be 0 for a node model (task node), got "
                               "%d, %d, %d, %d, %d",
                               (int)c->readout, c->readout_heads, c->readout_hidden,
                               c->graph_classes, c->classifier_layers);
        return GAT_OK;
    }
    if ((unsigned)c->readout >= GAT_READOUT_COUNT)
        return gat_i_error(GAT_EINVAL, "readout %d is not a gat_readout (expected 0..%d)",
                           (int)c->readout, GAT_READOUT_COUNT - 1);
    if (c->graph_classes <= 0 || c->graph_classes > (1 << 20))
        return gat_i_error(GAT_EINVAL, "graph_classes must be in 1..%d for a graph model, got %d",
                           1 << 20, c->graph_classes);
    if (c->readout_heads < 0 || c->readout_heads > GAT_MAX_HEADS)
        return gat_i_error(GAT_EINVAL, "readout_heads must be in 0..%d, got %d", GAT_MAX_HEADS,
                           c->readout_heads);
    if (c->readout_hidden < 0 || c->readout_hidden > (1 << 16))
        return gat_i_error(GAT_EINVAL, "readout_hidden must be in 0..%d, got %d", 1 << 16,
                           c->readout_hidden);
    if (c->readout != GAT_READOUT_ATTENTION && (c->readout_heads > 1 || c->readout_hidden > 0))
        return gat_i_error(GAT_EINVAL,
                           "readout_heads (%d) and readout_hidden (%d) need the attention "
                           "readout, not %s",
                           c->readout_heads, c->readout_hidden, readout_names[c->readout]);
    if (c->classifier_layers < 0 || c->classifier_layers > GAT_MAX_CLASSIFIER_LAYERS ||
        gat_i_readout_width(c) >> c->classifier_layers < 1)
        return gat_i_error(GAT_EINVAL,
                           "classifier_layers must be in 0..%d and at most log2 of the readout "
                           "width %d (each hidden layer halves it), got %d",
                           GAT_MAX_CLASSIFIER_LAYERS, gat_i_readout_width(c),
                           c->classifier_layers);
    if ((int64_t)gat_i_readout_width(c) * c->graph_classes > (1 << 26))
        return gat_i_error(GAT_EINVAL,
                           "the classifier (readout width %d x graph_classes %d) exceeds %d "
                           "weights",
                           gat_i_readout_width(c), c->graph_classes, 1 << 26);
    return GAT_OK;
}

gat_idx gat_i_readout_shape(gat_readout kind, gat_idx heads, gat_idx hidden, gat_idx D, gat_idx *K,
                            gat_idx *A)
{
    const int att = kind == GAT_READOUT_ATTENTION;
    const gat_idx k = att && heads > 0 ? heads : 1;
    if (K) *K = k;
    if (A) *A = hidden > 0 ? hidden : D;
    return att ? k * D : D;
}

gat_idx gat_i_readout_heads(const gat_model_config *c)
{
    gat_idx K;
    gat_i_readout_shape(c->readout, c->readout_heads, c->readout_hidden, c->classes, &K, NULL);
    return K;
}

gat_idx gat_i_readout_hidden(const gat_model_config *c)
{
    gat_idx A;
    gat_i_readout_shape(c->readout, c->readout_heads, c->readout_hidden, c->classes, NULL, &A);
    return A;
}

gat_idx gat_i_readout_width(const gat_model_config *c)
{
    return gat_i_readout_shape(c->readout, c->readout_heads, c->readout_hidden, c->classes, NULL,
                               NULL);
}

/* ---- forward --------------------------------------------------------------------------------- */

/* Graph b of the attention readout: gates, softmax per head, weighted sums. */
static void attention_graph(const gat_i_readout_op *op, const gat_real *h, gat_idx b, gat_real *r)
{
    const gat_idx D = op->D, K = op->K, A = op->A, KA = K * A, lo = op->ptr[b], hi = op->ptr[b + 1];
    for (gat_idx i = lo; i < hi; i++) {
        gat_real *u = op->u + (size_t)i * KA;
        const gat_real *hi_ = h + (size_t)i * D;
        memcpy(u, op->c, (size_t)KA * sizeof *u);
        for (gat_idx d = 0; d < D; d++) {
            const gat_real x = hi_[d], *v = op->V + (size_t)d * KA;
            for (gat_idx q = 0; q < KA; q++)
                u[q] += x * v[q];
        }
        for (gat_idx q = 0; q < KA; q++)
            u[q] = (gat_real)tanh(u[q]);
        for (gat_idx k = 0; k < K; k++) {
            double g = 0;
            for (gat_idx a = 0; a < A; a++)
                g += (double)op->w[(size_t)k * A + a] * u[(size_t)k * A + a];
            op->a[(size_t)i * K + k] = (gat_real)g;
        }
    }
    for (gat_idx k = 0; k < K; k++) {
        gat_real mx = op->a[(size_t)lo * K + k];
        double s = 0;
        for (gat_idx i = lo + 1; i < hi; i++)
            if (op->a[(size_t)i * K + k] > mx) mx = op->a[(size_t)i * K + k];
        for (gat_idx i = lo; i < hi; i++) {
            gat_real *p = &op->a[(size_t)i * K + k];
            *p = (gat_real)exp((double)(*p - mx));
            s += *p;
        }
        gat_real *rk = r + (size_t)k * D;
        memset(rk, 0, (size_t)D * sizeof *rk);
        for (gat_idx i = lo; i < hi; i++) {
            gat_real *p = &op->a[(size_t)i * K + k];
            *p = (gat_real)(*p / s);
            const gat_real *hi_ = h + (size_t)i * D;
            for (gat_idx d = 0; d < D; d++)
                rk[d] += *p * hi_[d];
        }
    }
}

/* Graph b of sum, mean and max. */
static void pool_graph(const gat_i_readout_op *op, const gat_real *h, gat_idx b, gat_real *r)
{
    const gat_idx D = op->D, lo = op->ptr[b], hi = op->ptr[b + 1];
    if (op->kind == GAT_READOUT_MAX) {
        gat_idx *arg = op->arg + (size_t)b * D;
        memcpy(r, h + (size_t)lo * D, (size_t)D * sizeof *r);
        for (gat_idx d = 0; d < D; d++)
            arg[d] = lo;
        for (gat_idx i = lo + 1; i < hi; i++)
            for (gat_idx d = 0; d < D; d++)
                if (h[(size_t)i * D + d] > r[d]) r[d] = h[(size_t)i * D + d], arg[d] = i;
        return;
    }
    memset(r, 0, (size_t)D * sizeof *r);
    for (gat_idx i = lo; i < hi; i++)
        for (gat_idx d = 0; d < D; d++)
            r[d] += h[(size_t)i * D + d];
    if (op->kind == GAT_READOUT_MEAN) {
        const gat_real s = (gat_real)(1.0 / (double)(hi - lo));
        for (gat_idx d = 0; d < D; d++)
            r[d] *= s;
    }
}

void gat_i_readout_forward(const gat_i_readout_op *op, const gat_real *h, gat_real *r)
{
    const gat_idx B = op->B, R = op->kind == GAT_READOUT_ATTENTION ? op->K * op->D : op->D;
    const int nt = op->threads;
    (void)nt;
    /* each graph writes its own row of r and its own nodes' caches: race-free */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && B > 8)
    for (gat_idx b = 0; b < B; b++) {
        if (op->kind == GAT_READOUT_ATTENTION)
            attention_graph(op, h, b, r + (size_t)b * R);
        else
            pool_graph(op, h, b, r + (size_t)b * R);
    }
}

/* ---- backward -------------------------------------------------------------------------------- */

/* Graph b of the attention readout: dh through the weighted sum, then the softmax's dg and the
 * gate's dz = dg w (1 - u^2), and dh through h V. */
static void attention_graph_back(const gat_i_readout_op *op, const gat_real *h, gat_idx b,
                                 const gat_real *dr, gat_real *dh)
{
    const gat_idx D = op->D, K = op->K, A = op->A, KA = K * A, lo = op->ptr[b], hi = op->ptr[b + 1];
    for (gat_idx k = 0; k < K; k++) {
        const gat_real *drk = dr + (size_t)k * D;
        double mean = 0; /* sum_j a_jk da_jk */
        for (gat_idx i = lo; i < hi; i++) {
            const gat_real a = op->a[(size_t)i * K + k], *hi_ = h + (size_t)i * D;
            gat_real *dhi = dh + (size_t)i * D;
            double da = 0;
            for (gat_idx d = 0; d < D; d++) {
                dhi[d] += a * drk[d]; /* r_k = sum_i a_ik h_i */
                da += (double)hi_[d] * drk[d];
            }
            op->dg[(size_t)i * K + k] = (gat_real)da;
            mean += a * da;
        }
        for (gat_idx i = lo; i < hi; i++) { /* the softmax: dg = a (da - mean) */
            gat_real *dg = &op->dg[(size_t)i * K + k];
            *dg = (gat_real)(op->a[(size_t)i * K + k] * (*dg - mean));
        }
    }
    for (gat_idx i = lo; i < hi; i++) {
        const gat_real *u = op->u + (size_t)i * KA;
        gat_real *dz = op->dz + (size_t)i * KA, *dhi = dh + (size_t)i * D;
        for (gat_idx k = 0; k < K; k++)
            for (gat_idx a = 0; a < A; a++) { /* g = w . u, u = tanh(z) */
                const size_t q = (size_t)k * A + a;
                dz[q] = op->dg[(size_t)i * K + k] * op->w[q] * (1 - u[q] * u[q]);
            }
        for (gat_idx d = 0; d < D; d++) { /* z = h V + c */
            const gat_real *v = op->V + (size_t)d * KA;
            double s = 0;
            for (gat_idx q = 0; q < KA; q++)
                s += (double)v[q] * dz[q];
            dhi[d] += (gat_real)s;
        }
    }
}

/* The gate's parameter gradients from every node's dz and dg: each thread owns rows of dV (and
 * one thread dc and dw), summing over all nodes in node order, so any thread count gives the
 * same sums. */
static void attention_params_back(const gat_i_readout_op *op, const gat_real *h)
{
    const gat_idx D = op->D, K = op->K, A = op->A, KA = K * A, N = op->ptr[op->B];
    const int nt = op->threads;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && (size_t)N * D * KA > 65536)
    for (gat_idx d = -1; d < D; d++) {
        if (d < 0) {
            for (gat_idx i = 0; i < N; i++)
                for (gat_idx q = 0; q < KA; q++) {
                    op->dc[q] += op->dz[(size_t)i * KA + q];
                    op->dw[q] += op->dg[(size_t)i * K + q / A] * op->u[(size_t)i * KA + q];
                }
            continue;
        }
        gat_real *dv = op->dV + (size_t)d * KA;
        for (gat_idx i = 0; i < N; i++) {
            const gat_real x = h[(size_t)i * D + d], *dz = op->dz + (size_t)i * KA;
            for (gat_idx q = 0; q < KA; q++)
                dv[q] += x * dz[q];
        }
    }
}

void gat_i_readout_backward(const gat_i_readout_op *op, const gat_real *h, const gat_real *dr,
                            gat_real *dh)
{
    const gat_idx B = op->B, D = op->D, R = op->kind == GAT_READOUT_ATTENTION ? op->K * D : D;
    const int nt = op->threads;
    (void)nt;
    /* each graph writes its own nodes' rows of dh (and dz, dg) */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && B > 8)
    for (gat_idx b = 0; b < B; b++) {
        const gat_real *drb = dr + (size_t)b * R;
        const gat_idx lo = op->ptr[b], hi = op->ptr[b + 1];
        if (op->kind == GAT_READOUT_ATTENTION) {
            attention_graph_back(op, h, b, drb, dh);
        } else if (op->kind == GAT_READOUT_MAX) {
            for (gat_idx d = 0; d < D; d++)
                dh[(size_t)op->arg[(size_t)b * D + d] * D + d] += drb[d];
        } else {
            const gat_real s = op->kind == GAT_READOUT_MEAN ? (gat_real)(1.0 / (hi - lo)) : 1;
            for (gat_idx i = lo; i < hi; i++)
                for (gat_idx d = 0; d < D; d++)
                    dh[(size_t)i * D + d] += s * drb[d];
        }
    }
    if (op->kind == GAT_READOUT_ATTENTION) attention_params_back(op, h);
}

/* ---- the classifier -------------------------------------------------------------------------- */

/* Hidden layer k's input and output widths: R / 2^k and R / 2^(k+1); the last layer's input
 * R / 2^L. */
static gat_idx mlp_width(const gat_i_mlp_op *op, int k)
{
    return op->R >> k;
}

size_t gat_i_mlp_act_size(gat_idx B, gat_idx R, int L)
{
    size_t n = 0;
    for (int k = 1; k <= L; k++)
        n += (size_t)B * (size_t)(R >> k);
    return n;
}

void gat_i_mlp_forward(const gat_i_mlp_op *op, const gat_real *x, gat_real *y)
{
    const gat_real *in = x;
    gat_real *act = op->act;
    for (int k = 0; k < op->L; k++) {
        const gat_idx fi = mlp_width(op, k), fo = mlp_width(op, k + 1);
        const size_t n = (size_t)op->B * (size_t)fo;
        gat_i_linear_forward(op->B, fi, fo, in, op->W[k], op->b[k], act);
        for (size_t q = 0; q < n; q++) /* ReLU */
            act[q] = act[q] > 0 ? act[q] : 0;
        in = act;
        act += n;
    }
    gat_i_linear_forward(op->B, mlp_width(op, op->L), op->C, in, op->W[op->L], op->b[op->L], y);
}

void gat_i_mlp_backward(const gat_i_mlp_op *op, const gat_real *x, const gat_real *dy,
                        gat_real *dx)
{
    /* the input of layer k: x for k = 0, else hidden layer k-1's output, at act + off[k] */
    size_t off[GAT_MAX_CLASSIFIER_LAYERS + 1] = {0};
    for (int k = 1; k < op->L; k++)
        off[k + 1] = off[k] + (size_t)op->B * (size_t)mlp_width(op, k);
    const gat_real *g = dy;
    gat_real *buf[2] = {op->scratch, op->scratch + (size_t)op->B * (size_t)mlp_width(op, 1)};
    for (int k = op->L; k >= 0; k--) {
        const gat_idx fi = mlp_width(op, k), fo = k == op->L ? op->C : mlp_width(op, k + 1);
        const gat_real *in = k == 0 ? x : op->act + off[k];
        gat_real *din = k == 0 ? dx : buf[k % 2];
        if (k > 0) memset(din, 0, (size_t)op->B * (size_t)fi * sizeof *din);
        gat_i_linear_backward(op->B, fi, fo, in, op->W[k], g, din, op->dW[k], op->db[k]);
        if (k > 0) { /* through the ReLU of layer k-1: its output was in > 0 */
            const size_t n = (size_t)op->B * (size_t)fi;
            for (size_t q = 0; q < n; q++)
                if (!(in[q] > 0)) din[q] = 0;
        }
        g = din;
    }
}

void gat_i_linear_forward(gat_idx B, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                          const gat_real *b, gat_real *y)
{
    for (gat_idx g = 0; g < B; g++) {
        gat_real *yg = y + (size_t)g * C;
        memcpy(yg, b, (size_t)C * sizeof *yg);
        for (gat_idx r = 0; r < R; r++) {
            const gat_real v = x[(size_t)g * R + r], *w = W + (size_t)r * C;
            for (gat_idx c = 0; c < C; c++)
                yg[c] += v * w[c];
        }
    }
}

void gat_i_linear_backward(gat_idx B, gat_idx R, gat_idx C, const gat_real *x, const gat_real *W,
                           const gat_real *dy, gat_real *dx, gat_real *dW, gat_real *db)
{
    for (gat_idx g = 0; g < B; g++) {
        const gat_real *dyg = dy + (size_t)g * C;
        for (gat_idx c = 0; c < C; c++)
            db[c] += dyg[c];
        for (gat_idx r = 0; r < R; r++) {
            const gat_real v = x[(size_t)g * R + r], *w = W + (size_t)r * C;
            gat_real *dw = dW + (size_t)r * C;
            double s = 0;
            for (gat_idx c = 0; c < C; c++) {
                dw[c] += v * dyg[c];
                s += (double)w[c] * dyg[c];
            }
            if (dx) dx[(size_t)g * R + r] += (gat_real)s;
        }
    }
}
