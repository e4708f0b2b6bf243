/* Private: the epoch loop every trainer shares (train.c), the training step and the losses. */
#ifndef GAT_I_TRAIN_H
#define GAT_I_TRAIN_H

#include "gat/train.h"
#include "io/checkpoint.h"
#include "model/model_i.h" /* gat_i_binding, gat_i_run */

/* What one kind of training does inside the loop. */
typedef struct gat_i_train_ops {
    /* One epoch's training steps: *loss, *acc of its training forward(s); *diverged = 1 when the
     * failure (GAT_ENUMERIC, GAT_EINTERRUPTED) should restore the best model and evaluate it. */
    gat_status (*train)(void *u, gat_idx epoch, double *loss, double *acc, int *diverged);
    /* Inference loss and accuracy on the split's nodes (GAT_SPLIT_VAL, GAT_SPLIT_TEST); final:
     * an evaluation of the restored model after the loop. */
    gat_status (*evaluate)(void *u, gat_split which, int final, double *loss, double *acc);
    /* Optional: the stop decision of every process from this one's (the progress callback's),
     * so that all stop after the same epoch. */
    int (*agree)(void *u, int stop);
    /* Optional, two-class models only: the ROC-AUC (gat_i_auc_logits) of the split's nodes
     * from the logits of the evaluate call just made on that split; without it the AUCs are NaN
     * and GAT_METRIC_AUC is refused. */
    gat_status (*auc)(void *u, gat_split which, double *auc);
    int has_test; /* evaluate the restored model on the test nodes too */
    /* the checkpoints (cfg->checkpoint, cfg->resume), or NULL */
    struct gat_i_ckpt_run *ckpt;
    /* Optional: after a resume loaded the parameters and the loop's state, the trainer's own
     * state rebuilt from the checkpoint's history (gat_i_sched_resumed); *ended: the run had
     * ended (the schedule's stop). */
    void (*resumed)(void *u, const gat_i_ckpt_state *cs, int *ended);
    /* the trainer restores the last epoch's model (keep_last): a resume whose run ends before
     * the checkpoint's last epoch is refused */
    int keeps_last;
} gat_i_train_ops;

/* What the loop needs to write and resume checkpoints (io/checkpoint.h). */
typedef struct gat_i_ckpt_run {
    gat_i_ckpt_ident id; /* what the checkpoint must match */
    gat_real *m1, *m2;   /* the model's Adam moments (as its parameters) */
    uint64_t *dropout;   /* the model's dropout step counter */
    gat_idx *steps;      /* the mini-batch step counter, or NULL: a step per epoch */
} gat_i_ckpt_run;

/* How a training step combines with other processes' (the distributed trainer): NULL in
 * gat_i_train_step_with means a step of one process. */
typedef struct gat_i_step_opts {
    double denom; /* the loss is the sum over the rows divided by denom (every process's rows) */
    /* after the backward: makes grads (P) and *loss, *acc the sums over every process, the same
     * on each (a status other than GAT_OK fails the step on every process) */
    gat_status (*reduce)(void *user, gat_real *grads, size_t P, double *loss, double *acc);
    void *user;
    /* multi-label targets (g->n, the model's classes) of the step's graph: sigmoid
     * cross-entropy (losses.c) instead of softmax cross-entropy, *acc the micro-F1; NULL: labels */
    const uint8_t *multi;
    /* the forward's run (its training flag is set here): hook and dropout step; NULL: none */
    const gat_i_run *run;
} gat_i_step_opts;

/* The training step of gat_train_step, gat_train's epochs and mini-batches and distributed
 * epochs (arguments checked by the caller): a training forward on binding b (model_i.h), whose
 * output rows (b->rows, ascending; not NULL) are the rows the loss reads, cross-entropy over
 * them, backward, o->reduce, Adam step t with the model's moments. unit and t name the step in a
 * divergence message, which ends with suffix. *diverged: 1 for a GAT_ENUMERIC of the loss,
 * gradients or parameters. */
gat_status gat_i_train_step_with(gat_model *m, const gat_i_binding *b, const gat_idx *labels,
                                 const gat_adam_config *adam, gat_idx t, double *loss,
                                 double *acc, const char *unit, const char *suffix,
                                 const gat_i_step_opts *o, int *diverged);

/* Sum of the softmax cross-entropy over rows (count of them, labels read at each; NULL: all n,
 * count == n) of logits (n, classes), and the number right (the largest logit, the first on
 * ties), each divided by denom (> 0). GAT_EINVAL for a label outside [0, classes). */
gat_status gat_i_xent_rows(const gat_real *logits, gat_idx n, gat_idx classes,
                           const gat_idx *labels, const gat_idx *rows, gat_idx count,
                           double denom, double *loss, double *acc);

/* GAT_ENUMERIC "training diverged at <unit> <t>: a <what> of <tensor> is <v> ...<suffix>" for
 * the first non-finite value of v (P, laid out as m's parameters), else GAT_OK. */
gat_status gat_i_train_check_finite(const gat_model *m, const gat_real *v, size_t P,
                                   const char *unit, gat_idx t, const char *what,
                                   const char *suffix);

/* True positives, false positives, false negatives of multi-label predictions (metrics.c). */
typedef struct gat_i_f1_counts {
    int64_t tp, fp, fn;
} gat_i_f1_counts;

/* Adds one node's predictions (logit > 0) z (L) against its targets y (L, 0/1) to c. */
void gat_i_f1_add(gat_i_f1_counts *c, const gat_real *z, const uint8_t *y, gat_idx L);

/* Micro-F1 of c: 2 TP / (2 TP + FP + FN), 0 when that denominator is 0. */
double gat_i_f1_value(const gat_i_f1_counts *c);

/* Mean sigmoid cross-entropy (losses.c) over the selected nodes, as xent selects them: rows
 * (count of them) if rows is not NULL, else the count nodes i < n with split[i] == which; the
 * sum over (node, label) is divided by denom * L (denom <= 0: count). *f1: their micro-F1.
 * dlogits (n, L), if not NULL, is zeroed and receives d loss / d logits. Never fails. */
gat_status gat_i_bce_rows(const gat_real *logits, gat_idx n, gat_idx L, const uint8_t *targets,
                          const uint8_t *split, gat_split which, const gat_idx *rows,
                          gat_idx count, double denom, double *loss, double *f1,
                          gat_real *dlogits);

/* The checks of cfg's fields that gat_i_train_loop reads: max_epochs, patience, eval_every, adam,
 * metric, checkpoint_every, checkpoint_seconds (the messages start with fn and name the field). */
gat_status gat_i_loop_config_check(const gat_train_config *cfg, const char *fn);
/* GAT_EINVAL unless cfg asks for no checkpoint and no resume: distributed training calls it. */
gat_status gat_i_no_checkpoints(const gat_train_config *cfg, const char *fn);

/* gat_train's checks of cfg's fields (the messages name the field). */
gat_status gat_i_train_config_check(const gat_model *m, const gat_train_config *cfg);

/* The epoch loop of every trainer (gat_train, gat_graph_train, the distributed trainer, the
 * graph transformers'): train, validate, keep the best values of params (P) (early stopping on
 * cfg->patience, cfg->max_epochs), call cfg->progress, restore the best parameters and evaluate
 * them (res may be NULL). ops->auc set only for two-class models. Returns what gat_train
 * returns. */
gat_status gat_i_train_loop(gat_real *params, size_t P, const gat_train_config *cfg,
                            const gat_i_train_ops *ops, void *u, gat_train_result *res);

/* The graph trainers' learning-rate schedule (cfg's lr_factor, lr_patience, lr_step, min_lr) and
 * last-epoch model (keep_last) beside gat_i_train_loop (schedule.c): the trainer steps with
 * adam, calls gat_i_sched_epoch before an epoch's steps and gat_i_sched_trained after them,
 * gat_i_sched_evaluated after each evaluation, answers ops->agree with gat_i_sched_agree, and
 * passes the loop's status through gat_i_sched_finish. */
typedef struct gat_i_sched {
    const gat_train_config *cfg;
    gat_adam_config adam; /* cfg->adam with the scheduled lr */
    double best_loss;     /* the plateau schedule's lowest validation loss */
    gat_idx bad;          /* validations since it */
    int lr_low;           /* the lr fell below cfg->min_lr: the loop is to stop */
    int lr_stopped;       /* the loop stopped for it */
    gat_status final_st;  /* the last final evaluation's status */
    gat_real *params;     /* (P) the model's parameters */
    size_t P;
    gat_real *last; /* keep_last: (P) the parameters after the last epoch's steps */
} gat_i_sched;

/* Epoch epoch's order of the n training graphs: train (the last epoch's order) shuffled by the
 * seed and the epoch, the same for any thread count. */
void gat_i_sched_order(const gat_i_sched *s, gat_idx epoch, gat_idx *train, gat_idx n);
/* A graph trainer's state after a resume from cs (gat_i_train_ops.resumed): the orders of train
 * (n, as at the run's start) and the schedule's lr replayed over the history, keep_last's copy
 * of the loaded parameters; *ended: the schedule had stopped the run. */
void gat_i_sched_resumed(gat_i_sched *s, const gat_i_ckpt_state *cs, gat_idx *train, gat_idx n,
                         int *ended);
/* The checks of the fields above and of batch_size (>= 0); messages start with fn. */
gat_status gat_i_sched_config_check(const gat_train_config *cfg, const char *fn);
/* Returns GAT_ENOMEM (keep_last's copy). */
gat_status gat_i_sched_init(gat_i_sched *s, const gat_train_config *cfg, gat_real *params,
                            size_t P);
void gat_i_sched_free(gat_i_sched *s);
/* The step schedule's lr for epoch (1-based). */
void gat_i_sched_epoch(gat_i_sched *s, gat_idx epoch);
/* After an epoch's steps (before the loop may restore the best model): keep_last's copy. */
void gat_i_sched_trained(gat_i_sched *s);
/* After evaluate(which, final) gave st and loss: the plateau schedule on validations. */
void gat_i_sched_evaluated(gat_i_sched *s, gat_split which, int final, gat_status st,
                           double loss);
/* The loop's stop decision: stop, or the schedule's end (the lr below min_lr). */
int gat_i_sched_agree(gat_i_sched *s, int stop);
/* The trainer's status from the loop's st: the schedule's end is an ordinary end; with
 * keep_last the last epoch's parameters replace the restored ones and res gets their figures
 * (best_epoch = epochs) from ops->evaluate. */
gat_status gat_i_sched_finish(gat_i_sched *s, gat_status st, const gat_i_train_ops *ops, void *u,
                              gat_train_result *res);

#endif
