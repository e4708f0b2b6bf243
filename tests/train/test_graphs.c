/* Graph classification (gat/readout.h): batches against separate forwards, batch buffer reuse,
 * stratified folds, thread-count determinism of training, the learning-rate schedule, model
 * files of graph models, bad input, and training on planted signal. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

static gat_model *graph_model(gat_readout r, gat_idx F, uint64_t seed)
{
    gat_model_config cfg;
    gat_model *m = NULL;
    gat_model_config_default(&cfg, F, 6);
    cfg.in_dropout = cfg.att_dropout = 0;
    cfg.task = GAT_TASK_GRAPH, cfg.readout = r, cfg.graph_classes = 2;
    if (r == GAT_READOUT_ATTENTION) cfg.readout_heads = 2, cfg.readout_hidden = 5;
    ck_assert_msg(gat_model_create(&m, &cfg, seed) == GAT_OK, "%s", gat_last_error());
    return m;
}

/* B graphs in one batch give the logits, pooled vectors and attention of B separate forwards. */
START_TEST(test_batch_equals_separate)
{
    const gat_readout r = (gat_readout)_i;
    gat_dataset ds;
    gat_graph_batch b = {0}, one = {0};
    tu_graph_set(&ds, 9, 4, 3);
    gat_model *m = graph_model(r, 4, 5);
    const gat_idx ids[5] = {7, 2, 2, 0, 8}, B = 5;
    const gat_real *logits, *pooled, *att, *l1, *p1, *a1;
    ck_assert_int_eq(gat_graph_batch_make(&b, &ds, ids, B), GAT_OK);
    ck_assert_int_eq(b.graph.n, b.graph_ptr[B]);
    ck_assert_int_eq(gat_graph_check(&b.graph), GAT_OK);
    ck_assert_int_eq(gat_model_forward_graphs(m, &b, 0, &logits), GAT_OK);
    gat_real *L = malloc((size_t)B * 2 * sizeof *L), *P = malloc((size_t)B * 12 * sizeof *P);
    gat_real *At = malloc((size_t)b.graph.n * 2 * sizeof *At);
    const gat_idx R = r == GAT_READOUT_ATTENTION ? 12 : 6, N = b.graph.n;
    memcpy(L, logits, (size_t)B * 2 * sizeof *L);
    ck_assert_int_eq(gat_model_graph_outputs(m, &pooled, &att), GAT_OK);
    memcpy(P, pooled, (size_t)B * R * sizeof *P);
    ck_assert(r == GAT_READOUT_ATTENTION ? att != NULL : att == NULL);
    if (att) memcpy(At, att, (size_t)N * 2 * sizeof *At);
    for (gat_idx k = 0; k < B; k++) {
        ck_assert_int_eq(gat_graph_batch_make(&one, &ds, ids + k, 1), GAT_OK);
        ck_assert_int_eq(gat_model_forward_graphs(m, &one, 0, &l1), GAT_OK);
        ck_assert_int_eq(gat_model_graph_outputs(m, &p1, &a1), GAT_OK);
        ck_assert_double_le(tu_max_rel_err(l1, L + 2 * k, 2, 1, NULL), 1e-6);
        ck_assert_double_le(tu_max_rel_err(p1, P + (size_t)R * k, (size_t)R, 1, NULL), 1e-6);
        if (a1)
            ck_assert_double_le(tu_max_rel_err(a1, At + (size_t)b.graph_ptr[k] * 2,
                                               (size_t)one.graph.n * 2, 1, NULL),
                                1e-6);
    }
    /* a batch made into the buffers of a larger one, then the large one again */
    ck_assert_int_eq(gat_graph_batch_make(&b, &ds, ids + 3, 1), GAT_OK);
    ck_assert_int_eq(gat_model_forward_graphs(m, &b, 0, &l1), GAT_OK);
    ck_assert_double_le(tu_max_rel_err(l1, L + 6, 2, 1, NULL), 1e-6);
    ck_assert_int_eq(gat_graph_batch_make(&b, &ds, ids, B), GAT_OK);
    ck_assert_int_eq(gat_model_forward_graphs(m, &b, 0, &l1), GAT_OK);
    ck_assert_double_le(tu_max_rel_err(l1, L, (size_t)B * 2, 1, NULL), 1e-6);
    free(L), free(P), free(At);
    gat_graph_batch_destroy(&b);
    gat_graph_batch_destroy(&one);
    gat_graph_batch_destroy(&one); /* twice: destroy leaves it zeroed */
    gat_model_free(m);
    gat_dataset_destroy(&ds);
}
END_TEST

START_TEST(test_folds)
{
    enum { n = 103, C = 3, K = 10 };
    gat_idx labels[n], fold[n], again[n], other[n];
    for (gat_idx i = 0; i < n; i++)
        labels[i] = (i * 7) % 5 == 0 ? 2 : i % 2; /* unbalanced classes */
    ck_assert_int_eq(gat_graph_folds(labels, n, C, K, 42, fold), GAT_OK);
    ck_assert_int_eq(gat_graph_folds(labels, n, C, K, 42, again), GAT_OK);
    ck_assert_int_eq(gat_graph_folds(labels, n, C, K, 43, other), GAT_OK);
    ck_assert_mem_eq(fold, again, sizeof fold);
    ck_assert(memcmp(fold, other, sizeof fold) != 0);
    int size[K] = {0}, per[K][C] = {{0}}, cls[C] = {0};
    for (gat_idx i = 0; i < n; i++) {
        ck_assert(fold[i] >= 0 && fold[i] < K);
        size[fold[i]]++, per[fold[i]][labels[i]]++, cls[labels[i]]++;
    }
    for (int f = 0; f < K; f++) {
        ck_assert(size[f] == n / K || size[f] == n / K + 1);
        for (int c = 0; c < C; c++) /* stratified: each class within one of its share */
            ck_assert(per[f][c] == cls[c] / K || per[f][c] == cls[c] / K + 1);
    }
    uint8_t split[n];
    ck_assert_int_eq(gat_graph_fold_split(fold, n, K, 9, split), GAT_OK);
    for (gat_idx i = 0; i < n; i++)
        ck_assert_int_eq(split[i], fold[i] == 9 ? GAT_SPLIT_TEST
                                   : fold[i] == 0 ? GAT_SPLIT_VAL
                                                  : GAT_SPLIT_TRAIN);
    ASSERT_FAILS(gat_graph_folds(labels, n, C, 1, 1, fold), GAT_EINVAL, "2 <= k <= n");
    labels[5] = 3;
    ASSERT_FAILS(gat_graph_folds(labels, n, C, K, 1, fold), GAT_EINVAL, "labels[5] = 3");
    ASSERT_FAILS(gat_graph_fold_split(fold, n, K, K, split), GAT_EINVAL, "0 <= f < k");
    /* two folds: one tests, the other validates, none trains */
    ASSERT_FAILS(gat_graph_fold_split(fold, n, 2, 0, split), GAT_EINVAL, "k >= 3");
}
END_TEST

/* Training from one seed: the same parameters with 1 and 2 threads, and it learns the signal;
 * mlp: a classifier of 2 hidden layers and the plateau schedule (patience 2). */
static void train_once(int threads, gat_readout r, int mlp, gat_real **params, size_t *P,
                       double *test_acc)
{
    gat_dataset ds;
    tu_graph_set(&ds, 120, 4, 9);
    gat_idx *fold = malloc((size_t)ds.n_graphs * sizeof *fold);
    uint8_t *split = malloc((size_t)ds.n_graphs);
    ck_assert_int_eq(gat_graph_folds(ds.graph_labels, ds.n_graphs, 2, 5, 1, fold), GAT_OK);
    ck_assert_int_eq(gat_graph_fold_split(fold, ds.n_graphs, 5, 0, split), GAT_OK);
    gat_model_config cfg;
    gat_model *m = NULL;
    gat_model_config_default(&cfg, 4, 6);
    cfg.in_dropout = cfg.att_dropout = 0;
    cfg.task = GAT_TASK_GRAPH, cfg.readout = r, cfg.graph_classes = 2;
    if (r == GAT_READOUT_ATTENTION) cfg.readout_heads = 2, cfg.readout_hidden = 5;
    cfg.classifier_layers = mlp ? 2 : 0;
    ck_assert_msg(gat_model_create(&m, &cfg, 7) == GAT_OK, "%s", gat_last_error());
    gat_model_set_threads(m, threads);
    gat_train_config tc;
    gat_train_result res;
    gat_train_config_default(&tc);
    tc.max_epochs = 30, tc.patience = 30, tc.batch_size = 16, tc.seed = 3;
    tc.adam.lr = 0.01;
    if (mlp) tc.lr_factor = 0.5, tc.lr_patience = 2;
    ck_assert_msg(gat_graph_train(m, &ds, split, &tc, &res) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(res.epochs, 30);
    size_t n;
    const gat_real *p = gat_model_params(m, &n);
    *params = malloc(n * sizeof **params);
    memcpy(*params, p, n * sizeof **params);
    *P = n;
    double f1;
    ck_assert_int_eq(gat_graph_evaluate(m, &ds, split, GAT_SPLIT_TEST, 7, NULL, test_acc, &f1,
                                        NULL),
                     GAT_OK);
    ck_assert_double_eq_tol(*test_acc, res.test_acc, 1e-12);
    ck_assert(f1 >= 0 && f1 <= 1);
    gat_model_free(m);
    free(fold), free(split);
    gat_dataset_destroy(&ds);
}

START_TEST(test_train_threads)
{
    gat_real *p1, *p2;
    size_t n1, n2;
    double a1, a2;
    /* the four readouts, then attention with the MLP classifier and the schedule */
    const gat_readout r = _i < GAT_READOUT_COUNT ? (gat_readout)_i : GAT_READOUT_ATTENTION;
    const int mlp = _i >= GAT_READOUT_COUNT;
    train_once(1, r, mlp, &p1, &n1, &a1);
    train_once(2, r, mlp, &p2, &n2, &a2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_mem_eq(p1, p2, n1 * sizeof *p1);
    ck_assert_double_eq(a1, a2);
    ck_assert_msg(a1 >= 0.85, "readout %s%s: test accuracy %g on planted signal",
                  gat_readout_name(r), mlp ? " with the MLP classifier" : "", a1);
    free(p1), free(p2);
}
END_TEST

/* The plateau schedule: a learning rate too small to move the validation loss by 1e-4 halves
 * at every validation after the first (lr_patience 0) and ends training once below min_lr. */
START_TEST(test_lr_schedule)
{
    gat_dataset ds;
    tu_graph_set(&ds, 40, 4, 5);
    gat_idx *fold = malloc((size_t)ds.n_graphs * sizeof *fold);
    uint8_t *split = malloc((size_t)ds.n_graphs);
    ck_assert_int_eq(gat_graph_folds(ds.graph_labels, ds.n_graphs, 2, 5, 1, fold), GAT_OK);
    ck_assert_int_eq(gat_graph_fold_split(fold, ds.n_graphs, 5, 0, split), GAT_OK);
    gat_model *m = graph_model(GAT_READOUT_MEAN, 4, 3);
    gat_train_config tc;
    gat_train_result res;
    gat_train_config_default(&tc);
    tc.max_epochs = 100, tc.patience = 100, tc.batch_size = 8, tc.seed = 1;
    tc.adam.lr = 1e-9;
    tc.lr_factor = 0.5, tc.lr_patience = 0, tc.min_lr = 3e-10;
    /* epoch 1 sets the best loss; epochs 2 and 3 halve the lr to 5e-10, then 2.5e-10 < min_lr */
    ck_assert_msg(gat_graph_train(m, &ds, split, &tc, &res) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(res.epochs, 3);
    ck_assert(res.test_acc >= 0 && res.test_acc <= 1);
    /* the step schedule: 1e-9 for epochs 1-2, 5e-10 for 3-4, 2.5e-10 < min_lr from epoch 5 */
    tc.lr_step = 2, tc.lr_patience = 1000;
    ck_assert_msg(gat_graph_train(m, &ds, split, &tc, &res) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(res.epochs, 5);
    tc.lr_step = 0, tc.lr_patience = 0;
    /* keep_last: the last epoch's model and figures */
    tc.keep_last = 1, tc.min_lr = 0, tc.max_epochs = 4, tc.adam.lr = 0.01;
    ck_assert_msg(gat_graph_train(m, &ds, split, &tc, &res) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(res.epochs, 4);
    ck_assert_int_eq(res.best_epoch, 4);
    double acc, vacc;
    ck_assert_int_eq(gat_graph_evaluate(m, &ds, split, GAT_SPLIT_TEST, 0, NULL, &acc, NULL, NULL),
                     GAT_OK);
    ck_assert_int_eq(gat_graph_evaluate(m, &ds, split, GAT_SPLIT_VAL, 0, NULL, &vacc, NULL, NULL),
                     GAT_OK);
    ck_assert_double_eq(acc, res.test_acc);
    ck_assert_double_eq(vacc, res.val_acc);
    tc.keep_last = 2;
    ASSERT_FAILS(gat_graph_train(m, &ds, split, &tc, &res), GAT_EINVAL, "keep_last = 2");
    tc.keep_last = 0, tc.adam.lr = 1e-9;
    /* without min_lr it runs to max_epochs */
    tc.min_lr = 0, tc.max_epochs = 5;
    ck_assert_int_eq(gat_graph_train(m, &ds, split, &tc, &res), GAT_OK);
    ck_assert_int_eq(res.epochs, 5);
    tc.lr_factor = 1;
    ASSERT_FAILS(gat_graph_train(m, &ds, split, &tc, &res), GAT_EINVAL, "lr_factor = 1");
    tc.lr_factor = 0.5, tc.lr_patience = -1;
    ASSERT_FAILS(gat_graph_train(m, &ds, split, &tc, &res), GAT_EINVAL, "lr_patience = -1");
    tc.lr_patience = 0, tc.lr_step = -2;
    ASSERT_FAILS(gat_graph_train(m, &ds, split, &tc, &res), GAT_EINVAL, "lr_step = -2");
    gat_model_free(m);
    free(fold), free(split);
    gat_dataset_destroy(&ds);
}
END_TEST

/* The epochs a run sees; stops after epoch stop (0: never). */
typedef struct stopper {
    int stop, seen;
} stopper;

static int count_epochs(const gat_epoch_info *e, void *user)
{
    stopper *s = user;
    s->seen++;
    return s->stop && e->epoch == s->stop;
}

/* One graph training of a model with dropout (seed 3) under tc: its status, result and
 * parameters (*p, malloc'd, *P of them), the epochs it saw in *seen. */
static gat_status graph_run(const gat_dataset *ds, const uint8_t *split, gat_train_config tc,
                            int stop, gat_train_result *res, gat_real **p, size_t *P, int *seen)
{
    gat_model_config cfg;
    gat_model *m = NULL;
    stopper s = {.stop = stop};
    gat_model_config_default(&cfg, 4, 6);
    cfg.in_dropout = cfg.att_dropout = 0.2;
    cfg.task = GAT_TASK_GRAPH, cfg.readout = GAT_READOUT_MEAN, cfg.graph_classes = 2;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 3), GAT_OK);
    tc.progress = count_epochs, tc.user = &s;
    const gat_status st = gat_graph_train(m, ds, split, &tc, res);
    const gat_real *q = gat_model_params(m, P);
    *p = malloc(*P * sizeof **p);
    memcpy(*p, q, *P * sizeof **p);
    *seen = s.seen;
    gat_model_free(m);
    return st;
}

/* Checkpoints of graph classification: stopped after epoch 4 and resumed, a run ends as the run
 * never stopped (the shuffled batches, the lr of the plateau or step schedule, dropout and
 * keep_last's model carried over), for a plateau schedule that ends training by min_lr, a step
 * schedule with keep_last and the schedule's stop after 3 epochs (resumed: no epoch more); a
 * checkpoint of another schedule or graph split is refused. */
START_TEST(test_graph_checkpoint)
{
    gat_dataset ds;
    tu_graph_set(&ds, 40, 4, 5);
    gat_idx *fold = malloc((size_t)ds.n_graphs * sizeof *fold);
    uint8_t *split = malloc((size_t)ds.n_graphs);
    ck_assert_int_eq(gat_graph_folds(ds.graph_labels, ds.n_graphs, 2, 5, 1, fold), GAT_OK);
    ck_assert_int_eq(gat_graph_fold_split(fold, ds.n_graphs, 5, 0, split), GAT_OK);
    char *dir = tu_tmpdir(), ck[512];
    snprintf(ck, sizeof ck, "%s/graph.ckpt", dir);
    for (int k = 0; k < 3; k++) {
        gat_train_config tc;
        gat_train_result a, b, c;
        gat_real *pa, *pb, *pc;
        size_t P;
        int sa, sb, sc;
        gat_train_config_default(&tc);
        tc.max_epochs = 14, tc.patience = 100, tc.batch_size = 8, tc.seed = 1;
        tc.adam.lr = 0.02, tc.lr_factor = 0.5, tc.lr_patience = 1, tc.min_lr = 0.004;
        if (k == 1) tc.lr_step = 3, tc.keep_last = 1, tc.min_lr = 0;
        if (k == 2) tc.adam.lr = 1e-9, tc.lr_patience = 0, tc.min_lr = 3e-10;
        const int stop = k == 2 ? 0 : 4;
        ck_assert_msg(graph_run(&ds, split, tc, 0, &a, &pa, &P, &sa) == GAT_OK, "%s",
                      gat_last_error());
        if (k == 2) ck_assert_int_eq(a.epochs, 3); /* the schedule's stop */
        tc.checkpoint = ck;
        const gat_status st = graph_run(&ds, split, tc, stop, &b, &pb, &P, &sb);
        ck_assert_int_eq(st, stop ? GAT_EINTERRUPTED : GAT_OK);
        tc.resume = ck;
        ck_assert_msg(graph_run(&ds, split, tc, 0, &c, &pc, &P, &sc) == GAT_OK, "%s",
                      gat_last_error());
        ck_assert_int_eq(sc, a.epochs - (stop ? stop : a.epochs));
        ck_assert_int_eq(c.epochs, a.epochs);
        ck_assert_int_eq(c.best_epoch, a.best_epoch);
        ck_assert(c.val_loss == a.val_loss && c.test_acc == a.test_acc);
        ck_assert_int_eq(memcmp(pa, pc, P * sizeof *pa), 0);
        free(pb), free(pc);
        /* the ended run resumed: its result and model (keep_last's too) again, no epoch more */
        ck_assert_msg(graph_run(&ds, split, tc, 0, &c, &pc, &P, &sc) == GAT_OK, "%s",
                      gat_last_error());
        ck_assert_int_eq(sc, 0);
        ck_assert_int_eq(c.epochs, a.epochs);
        ck_assert_int_eq(c.best_epoch, a.best_epoch);
        ck_assert(c.val_loss == a.val_loss && c.test_acc == a.test_acc);
        ck_assert_int_eq(memcmp(pa, pc, P * sizeof *pa), 0);
        free(pa), free(pc);
    }
    /* the same file with another schedule, another split */
    gat_train_config tc;
    gat_train_result r;
    gat_real *p;
    size_t P;
    int seen;
    gat_train_config_default(&tc);
    tc.max_epochs = 14, tc.batch_size = 8, tc.seed = 1, tc.adam.lr = 1e-9, tc.lr_factor = 0.5;
    tc.lr_patience = 1, tc.min_lr = 3e-10, tc.resume = ck;
    ck_assert_int_eq(graph_run(&ds, split, tc, 0, &r, &p, &P, &seen), GAT_EINVAL);
    ck_assert_msg(strstr(gat_last_error(), "with schedule = lr_factor 0.5, lr_patience 0"), "%s",
                  gat_last_error());
    free(p);
    tc.lr_patience = 0;
    ck_assert_int_eq(gat_graph_fold_split(fold, ds.n_graphs, 5, 1, split), GAT_OK);
    ck_assert_int_eq(graph_run(&ds, split, tc, 0, &r, &p, &P, &seen), GAT_EINVAL);
    ck_assert_msg(strstr(gat_last_error(), "written on other data"), "%s", gat_last_error());
    free(p);
    tu_rmtree(dir);
    free(dir), free(fold), free(split);
    gat_dataset_destroy(&ds);
}
END_TEST

/* A multi-label dataset of G graphs (tu_graph_set's, F features): label l of node i is 1 when
 * x[i][l] + the mean of x[j][l] over its in-neighbours j (self included) exceeds 1; graphs 0 ..
 * G-5 train, G-4 and G-3 validate, G-2 and G-1 test (the split by graph). */
enum { ML = 3 };
static void multi_set(gat_dataset *ds, gat_idx G, gat_idx F)
{
    gat_dataset base;
    tu_graph_set(&base, G, F, 13);
    const gat_idx N = base.n;
    uint8_t *y = calloc((size_t)N * ML, 1), *split = malloc((size_t)N);
    gat_real *dense = calloc((size_t)N * F, sizeof *dense);
    ck_assert(y && split && dense);
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx k = base.x.rowptr[i]; k < base.x.rowptr[i + 1]; k++)
            dense[(size_t)i * F + base.x.col[k]] = base.x.val[k];
    for (gat_idx i = 0; i < N; i++)
        for (gat_idx l = 0; l < ML; l++) {
            double m = 0;
            for (gat_idx e = base.graph.rowptr[i]; e < base.graph.rowptr[i + 1]; e++)
                m += dense[(size_t)base.graph.col[e] * F + l];
            m /= base.graph.rowptr[i + 1] - base.graph.rowptr[i];
            y[(size_t)i * ML + l] = dense[(size_t)i * F + l] + m > 1;
        }
    for (gat_idx g = 0; g < G; g++)
        for (gat_idx i = base.graph_ptr[g]; i < base.graph_ptr[g + 1]; i++)
            split[i] = g < G - 4 ? GAT_SPLIT_TRAIN : g < G - 2 ? GAT_SPLIT_VAL : GAT_SPLIT_TEST;
    gat_dataset_parts p = {.graph = &base.graph, .features = &base.x, .split = split,
                           .n_graphs = G, .graph_ptr = base.graph_ptr, .n_labels = ML,
                           .label_matrix = y};
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    ck_assert_msg(gat_dataset_from_parts(ds, &p, &o) == GAT_OK, "%s", gat_last_error());
    gat_dataset_destroy(&base);
    free(y), free(split), free(dense);
}

/* A node model on a multi-label dataset trained in batches of graphs (threads, batch_size) for
 * 4 epochs; its parameters (caller frees) and result. */
static gat_real *multi_train(const gat_dataset *ds, int threads, gat_idx batch,
                             gat_train_result *res)
{
    gat_model_config cfg;
    gat_model *m = NULL;
    gat_model_config_default(&cfg, ds->n_features, ML);
    cfg.in_dropout = cfg.att_dropout = 0;
    ck_assert_int_eq(gat_model_create(&m, &cfg, 5), GAT_OK);
    gat_model_set_threads(m, threads);
    uint8_t split[16];
    for (gat_idx g = 0; g < ds->n_graphs; g++)
        split[g] = ds->split[ds->graph_ptr[g]];
    gat_train_config tc;
    gat_train_config_default(&tc);
    tc.max_epochs = 4, tc.patience = 4, tc.batch_size = batch, tc.seed = 2;
    tc.adam.lr = 0.01, tc.adam.weight_decay = 0;
    if (batch < 0) { /* the full-graph reference: gat_train */
        tc.batch_size = 0;
        ck_assert_msg(gat_train(m, ds, &tc, res) == GAT_OK, "%s", gat_last_error());
    } else {
        ck_assert_msg(gat_graph_train(m, ds, split, &tc, res) == GAT_OK, "%s", gat_last_error());
    }
    size_t P;
    const gat_real *p = gat_model_params(m, &P);
    gat_real *out = malloc(P * sizeof *out);
    memcpy(out, p, P * sizeof *out);
    gat_model_free(m);
    return out;
}

/* Multi-label node tasks in batches of graphs (the PPI setup): a batch's label rows are the
 * dataset's; one batch of every training graph trains as gat_train's full graph (the same loss
 * and gradients, summed in another order); batches of 2 give the same parameters on 1 and 2
 * threads; and the errors. */
START_TEST(test_multilabel_batches)
{
    gat_dataset ds;
    gat_graph_batch b = {0};
    multi_set(&ds, 12, 4);
    const gat_idx ids[2] = {9, 3};
    ck_assert_int_eq(gat_graph_batch_make(&b, &ds, ids, 2), GAT_OK);
    ck_assert_int_eq(b.n_labels, ML);
    for (gat_idx k = 0; k < 2; k++) {
        const gat_idx lo = ds.graph_ptr[ids[k]], n = ds.graph_ptr[ids[k] + 1] - lo;
        ck_assert_mem_eq(b.label_matrix + (size_t)b.graph_ptr[k] * ML,
                         ds.label_matrix + (size_t)lo * ML, (size_t)n * ML);
    }
    gat_train_result full, all, one, two;
    gat_real *pf = multi_train(&ds, 1, -1, &full), *pa = multi_train(&ds, 1, 0, &all);
    ck_assert_double_le(fabs(full.val_loss - all.val_loss), 1e-4 * full.val_loss);
    ck_assert_int_eq(full.best_epoch, all.best_epoch);
    gat_real *p1 = multi_train(&ds, 1, 2, &one), *p2 = multi_train(&ds, 2, 2, &two);
    size_t P;
    gat_model_config cfg;
    gat_model *m = NULL;
    gat_model_config_default(&cfg, ds.n_features, ML);
    ck_assert_int_eq(gat_model_create(&m, &cfg, 5), GAT_OK);
    gat_model_params(m, &P);
    ck_assert_mem_eq(p1, p2, P * sizeof *p1);
    ck_assert_double_eq(one.val_acc, two.val_acc);
    ck_assert(one.val_acc > 0 && one.val_acc <= 1);
    /* a node model needs multi-hot labels; the labels and the classes must agree */
    gat_dataset plain;
    tu_graph_set(&plain, 6, 4, 1);
    uint8_t split[16] = {1, 1, 1, 1, 2, 3};
    gat_train_config tc;
    gat_train_config_default(&tc);
    ASSERT_FAILS(gat_graph_train(m, &plain, split, &tc, NULL), GAT_EINVAL, "multi-hot");
    gat_model *wrong = NULL;
    gat_model_config_default(&cfg, ds.n_features, ML + 1);
    ck_assert_int_eq(gat_model_create(&wrong, &cfg, 5), GAT_OK);
    ASSERT_FAILS(gat_graph_train(wrong, &ds, split, &tc, NULL), GAT_EDIM, "3 labels per node");
    gat_model_free(wrong), gat_model_free(m);
    free(pf), free(pa), free(p1), free(p2);
    gat_graph_batch_destroy(&b);
    gat_dataset_destroy(&plain);
    gat_dataset_destroy(&ds);
}
END_TEST

START_TEST(test_model_file)
{
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/g.gat", dir);
    gat_dataset ds;
    gat_graph_batch b = {0};
    tu_graph_set(&ds, 6, 4, 1);
    gat_model_config mcfg;
    gat_model *m = NULL, *back = NULL;
    gat_model_config_default(&mcfg, 4, 6);
    mcfg.task = GAT_TASK_GRAPH, mcfg.readout = GAT_READOUT_ATTENTION, mcfg.graph_classes = 2;
    mcfg.readout_heads = 2, mcfg.readout_hidden = 5, mcfg.classifier_layers = 2;
    ck_assert_int_eq(gat_model_create(&m, &mcfg, 2), GAT_OK);
    gat_model_meta meta, got;
    gat_model_meta_init(&meta);
    const char *names[2] = {"no", "yes"};
    meta.n_classes = 2, meta.class_names = names;
    ck_assert_msg(gat_model_save(m, &meta, path) == GAT_OK, "%s", gat_last_error());
    ck_assert_msg(gat_model_load(&back, &got, path) == GAT_OK, "%s", gat_last_error());
    const gat_model_config *c = gat_model_get_config(back);
    ck_assert_int_eq(c->task, GAT_TASK_GRAPH);
    ck_assert_int_eq(c->readout, GAT_READOUT_ATTENTION);
    ck_assert_int_eq(c->readout_heads, 2);
    ck_assert_int_eq(c->readout_hidden, 5);
    ck_assert_int_eq(c->graph_classes, 2);
    ck_assert_int_eq(c->classifier_layers, 2);
    ck_assert_int_eq(got.n_classes, 2);
    ck_assert_str_eq(got.class_names[1], "yes");
    const gat_idx ids[3] = {0, 5, 3};
    const gat_real *l1, *l2;
    gat_real keep[6];
    ck_assert_int_eq(gat_graph_batch_make(&b, &ds, ids, 3), GAT_OK);
    ck_assert_int_eq(gat_model_forward_graphs(m, &b, 0, &l1), GAT_OK);
    memcpy(keep, l1, sizeof keep);
    ck_assert_int_eq(gat_model_forward_graphs(back, &b, 0, &l2), GAT_OK);
    ck_assert_mem_eq(keep, l2, sizeof keep);
    /* a node model's file has no task key and loads as a node model */
    gat_model_config nc;
    gat_model *node = NULL, *nback = NULL;
    gat_model_config_default(&nc, 4, 3);
    ck_assert_int_eq(gat_model_create(&node, &nc, 1), GAT_OK);
    ck_assert_int_eq(gat_model_save(node, NULL, path), GAT_OK);
    ck_assert_int_eq(gat_model_load(&nback, NULL, path), GAT_OK);
    ck_assert_int_eq(gat_model_get_config(nback)->task, GAT_TASK_NODE);
    gat_model_free(node), gat_model_free(nback);
    gat_model_meta_destroy(&got);
    gat_graph_batch_destroy(&b);
    gat_model_free(m), gat_model_free(back);
    gat_dataset_destroy(&ds);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_bad_input)
{
    gat_dataset ds;
    gat_graph_batch b = {0};
    tu_graph_set(&ds, 4, 3, 2);
    gat_model *m = graph_model(GAT_READOUT_SUM, 3, 1);
    const gat_real *l;
    gat_idx ids[2] = {1, 4};
    ASSERT_FAILS(gat_graph_batch_make(&b, &ds, ids, 2), GAT_EINVAL, "ids[1] = 4 outside 0..3");
    ASSERT_FAILS(gat_graph_batch_make(&b, &ds, ids, 0), GAT_EINVAL, "count = 0");
    ids[1] = 2;
    ck_assert_int_eq(gat_graph_batch_make(&b, &ds, ids, 2), GAT_OK);
    /* a graph with no nodes in a hand-edited batch */
    gat_idx keep = b.graph_ptr[1];
    b.graph_ptr[1] = 0;
    ASSERT_FAILS(gat_model_forward_graphs(m, &b, 0, &l), GAT_EINVAL,
                 "graph 0 of the batch has no nodes");
    b.graph_ptr[1] = keep;
    ASSERT_FAILS(gat_model_backward_graphs(m, (gat_real[2]){0}), GAT_EINVAL,
                 "not a training forward");
    /* a node model, and bad configurations */
    gat_model_config cfg;
    gat_model *node = NULL;
    gat_model_config_default(&cfg, 3, 2);
    ck_assert_int_eq(gat_model_create(&node, &cfg, 1), GAT_OK);
    ASSERT_FAILS(gat_model_forward_graphs(node, &b, 0, &l), GAT_EINVAL, "node model");
    gat_model_free(node);
    cfg.graph_classes = 2;
    ASSERT_FAILS(gat_model_config_check(&cfg), GAT_EINVAL, "must be 0 for a node model");
    cfg.task = GAT_TASK_GRAPH, cfg.graph_classes = 0;
    ASSERT_FAILS(gat_model_config_check(&cfg), GAT_EINVAL, "graph_classes must be in");
    cfg.graph_classes = 2, cfg.readout_heads = 3;
    ASSERT_FAILS(gat_model_config_check(&cfg), GAT_EINVAL, "need the attention readout");
    cfg.readout_heads = 0, cfg.classifier_layers = 2; /* readout width 2: one halving only */
    ASSERT_FAILS(gat_model_config_check(&cfg), GAT_EINVAL, "classifier_layers must be in 0..4");
    cfg.classifier_layers = 1;
    ck_assert_int_eq(gat_model_config_check(&cfg), GAT_OK);
    cfg.task = GAT_TASK_NODE, cfg.graph_classes = 0;
    ASSERT_FAILS(gat_model_config_check(&cfg), GAT_EINVAL, "must be 0 for a node model");
    cfg.task = GAT_TASK_GRAPH, cfg.graph_classes = 2, cfg.classifier_layers = 0;
    gat_readout r;
    ASSERT_FAILS(gat_readout_from_name("median", &r), GAT_EINVAL, "median");
    ck_assert_int_eq(gat_readout_from_name("Attention", &r), GAT_OK);
    ck_assert_int_eq(r, GAT_READOUT_ATTENTION);
    /* training without validation graphs */
    uint8_t split[4] = {1, 1, 3, 3};
    gat_train_config tc;
    gat_train_config_default(&tc);
    ASSERT_FAILS(gat_graph_train(m, &ds, split, &tc, NULL), GAT_EINVAL,
                 "2 training and 0 validation graphs");
    gat_graph_batch_destroy(&b);
    gat_model_free(m);
    gat_dataset_destroy(&ds);
}
END_TEST

/* Adds the softmax cross-entropy of logits y (n, C) against labels to *sum (in double), the
 * number right to *right, and each row's class (the first largest logit) to pred. */
static void xent_of(const gat_real *y, gat_idx n, gat_idx C, const gat_idx *labels, double *sum,
                    gat_idx *right, gat_idx *pred)
{
    for (gat_idx g = 0; g < n; g++, y += C) {
        gat_idx best = 0;
        for (gat_idx c = 1; c < C; c++)
            if (y[c] > y[best]) best = c;
        double s = 0;
        for (gat_idx c = 0; c < C; c++)
            s += exp((double)y[c] - y[best]);
        *sum += log(s) + y[best] - y[labels[g]];
        *right += best == labels[g];
        pred[g] = best;
    }
}

/* Loop index: 0 gat_graph_evaluate (batches of 7), 1 gat_gps_graph_evaluate (batches of 128).
 * The mean cross-entropy, accuracy and predictions they report are those of the logits of the
 * same batches of the split's graphs, made and run here; the other graphs' predictions are left
 * alone. */
START_TEST(test_evaluate_is_the_cross_entropy)
{
    gat_dataset ds;
    tu_graph_set(&ds, 450, 4, 21);
    const gat_idx G = ds.n_graphs, B = _i ? 128 : 7;
    uint8_t *split = malloc((size_t)G);
    gat_idx *ids = malloc((size_t)G * sizeof *ids), *want = malloc((size_t)G * sizeof *want),
            *pred = malloc((size_t)G * sizeof *pred), n = 0;
    ck_assert(split && ids && want && pred);
    for (gat_idx g = 0; g < G; g++) {
        split[g] = g % 3 == 1 ? GAT_SPLIT_TEST : GAT_SPLIT_TRAIN;
        if (split[g] == GAT_SPLIT_TEST) ids[n++] = g;
        pred[g] = -1;
    }
    ck_assert_int_gt(n, 128); /* more than one batch of either */
    gat_model *m = NULL;
    gat_gps *gm = NULL;
    if (_i) {
        gat_gps_config c;
        gat_gps_config_default(&c, 4, 2);
        c.task = GAT_TASK_GRAPH, c.dim = 8, c.heads = 2;
        ck_assert_int_eq(gat_gps_create(&gm, &c, 3), GAT_OK);
    } else {
        m = graph_model(GAT_READOUT_MEAN, 4, 3);
    }
    gat_graph_batch b = {0};
    double sum = 0, loss = -1, acc = -1;
    gat_idx right = 0;
    for (gat_idx k0 = 0; k0 < n; k0 += B) {
        const gat_idx cnt = n - k0 < B ? n - k0 : B;
        const gat_real *y;
        ck_assert_int_eq(gat_graph_batch_make(&b, &ds, ids + k0, cnt), GAT_OK);
        if (_i)
            ck_assert_int_eq(gat_gps_forward(gm, &b.graph, &b.x, cnt, b.graph_ptr, 0, &y), GAT_OK);
        else
            ck_assert_int_eq(gat_model_forward_graphs(m, &b, 0, &y), GAT_OK);
        xent_of(y, cnt, 2, b.labels, &sum, &right, want + k0);
    }
    if (_i)
        ck_assert_int_eq(gat_gps_graph_evaluate(gm, &ds, split, GAT_SPLIT_TEST, &loss, &acc, pred),
                         GAT_OK);
    else
        ck_assert_int_eq(gat_graph_evaluate(m, &ds, split, GAT_SPLIT_TEST, B, &loss, &acc, NULL,
                                            pred),
                         GAT_OK);
    ck_assert_double_eq_tol(loss, sum / n, 1e-9 * sum / n);
    if (_i) { /* graph classes beyond the model's */
        ds.n_graph_classes = 3;
        ASSERT_FAILS(gat_gps_graph_evaluate(gm, &ds, split, GAT_SPLIT_TEST, &loss, &acc, pred),
                     GAT_EDIM, "the dataset has 3 graph classes but the model predicts 2");
        ds.n_graph_classes = 2;
    }
    ck_assert_double_eq(acc, (double)right / n);
    for (gat_idx k = 0, g = 0; g < G; g++)
        if (split[g] == GAT_SPLIT_TEST)
            ck_assert_int_eq(pred[g], want[k++]);
        else
            ck_assert_int_eq(pred[g], -1);
    gat_graph_batch_destroy(&b);
    gat_model_free(m);
    gat_gps_free(gm);
    free(split), free(ids), free(want), free(pred);
    gat_dataset_destroy(&ds);
}
END_TEST

static Suite *graphs_suite(void)
{
    Suite *s = suite_create("graphs");
    TCase *tc = tcase_create("graphs");
    tcase_add_loop_test(tc, test_batch_equals_separate, 0, GAT_READOUT_COUNT);
    tcase_add_test(tc, test_folds);
    tcase_add_loop_test(tc, test_evaluate_is_the_cross_entropy, 0, 2);
    tcase_add_loop_test(tc, test_train_threads, 0, GAT_READOUT_COUNT + 1);
    tcase_add_test(tc, test_lr_schedule);
    tcase_add_test(tc, test_graph_checkpoint);
    tcase_add_test(tc, test_multilabel_batches);
    tcase_add_test(tc, test_model_file);
    tcase_add_test(tc, test_bad_input);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(graphs_suite());
}
