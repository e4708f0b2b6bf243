/* Private: checkpoint files of gat_train (gat/train.h, "Checkpoints"), in the safetensors layout
 * of model files. What a checkpoint holds is what the training loop (train/train.c) needs to go
 * on as if it had never stopped; this file reads and writes it and says which of the model, the
 * data and the training settings differ from the run that wrote it. */
#ifndef GAT_I_CHECKPOINT_H
#define GAT_I_CHECKPOINT_H

#include "gat/gps.h"
#include "gat/train.h"

/* What a checkpoint must match: the model's configuration, the dataset and the settings that
 * shape the run. Built once per training (gat_i_ckpt_ident); compared on resume. */
typedef struct gat_i_ckpt_ident {
    char *model;        /* the model file's configuration metadata as JSON text, owned */
    char data[160];     /* "N nodes, E edges, F features, C classes, split a/b/c" */
    uint64_t data_hash; /* of the graph, features, edge features, labels and split */
    /* the training settings, as printed into the file ("0.005", "10,10", "acc", ...) */
    char lr[32], beta1[32], beta2[32], eps[32], weight_decay[32], seed[24], model_seed[24],
        batch_size[16], fanout[GAT_MAX_LAYERS * 12 + 8], eval_every[16], metric[8];
    /* a graph trainer's learning-rate schedule and keep_last ("lr_factor 0.5, lr_patience 10,
     * lr_step 0, min_lr 1e-05, keep_last 0"); "none" for node trainers and in files written
     * before graph trainers kept checkpoints */
    char schedule[160];
} gat_i_ckpt_ident;

/* The loop's state after an epoch. */
typedef struct gat_i_ckpt_state {
    gat_idx epoch;                        /* epochs done */
    gat_idx steps;                        /* Adam steps done (= epoch in full-graph training) */
    uint64_t dropout;                     /* the model's dropout step (gat_i_model_step) */
    gat_idx best_epoch;                   /* of the model to restore (0: the initial one) */
    gat_idx wait;                         /* epochs without improvement */
    gat_idx validated;                    /* the last epoch validated */
    double best_acc, best_loss, best_auc; /* early stopping's best figures so far */
    double seconds;                       /* training time so far */
    gat_epoch_info *history;              /* (n_history) every epoch's row, owned by the loop */
    size_t n_history;
} gat_i_ckpt_state;

/* The configuration m's model file records (its "__metadata__" object without the version and
 * the dataset keys) as JSON text (cJSON_free), or NULL when out of memory (modelfile.c). */
char *gat_i_model_config_text(const gat_model *m);
char *gat_i_gps_config_text(const gat_gps *m);

/* Fills *id for a model of configuration model_text (gat_i_model_config_text or
 * gat_i_gps_config_text; owned from here on, NULL: out of memory) and seed model_seed trained
 * on ds with cfg, whose metric is called metric (gat_metric_name; the trainer's, which io does
 * not call), hashing ds: O(n + E + nnz(x) + E D). graph_split: NULL for a node trainer; a graph
 * trainer's (ds->n_graphs) split of the graphs, hashed with the graphs' bounds and labels, and
 * its schedule recorded. Returns GAT_ENOMEM; release with gat_i_ckpt_ident_free. */
gat_status gat_i_ckpt_ident_init(gat_i_ckpt_ident *id, char *model_text, uint64_t model_seed,
                                 const gat_dataset *ds, const uint8_t *graph_split,
                                 const gat_train_config *cfg, const char *metric);
void gat_i_ckpt_ident_free(gat_i_ckpt_ident *id);

/* Writes the checkpoint atomically (as gat_model_save): the state s, the model's parameters
 * params (P), Adam's moments m1, m2 (P each) and the model to restore, best (P). Returns GAT_EIO
 * (naming path), GAT_ENOMEM. */
gat_status gat_i_ckpt_save(const char *path, const gat_i_ckpt_ident *id, const gat_i_ckpt_state *s,
                           const gat_real *params, const gat_real *m1, const gat_real *m2,
                           const gat_real *best, size_t P);

/* A caller's verdict on a checkpoint's state and history before its arrays are copied: GAT_OK,
 * or a status with its message (gat_i_error). */
typedef gat_status (*gat_i_ckpt_accept)(const gat_i_ckpt_state *s, void *user);

/* Reads the checkpoint at path into s (its history allocated: gat_free), params, m1, m2 and
 * best (P each; params NULL: the state and history only) after checking that it was written
 * for id (NULL: no check) and that accept (NULL: none) takes its state: GAT_EINVAL naming the
 * first thing that differs (the model's configuration, the data, a training setting),
 * GAT_EFORMAT (not a checkpoint, malformed, a value out of range), GAT_ENUMERIC (a NaN or Inf
 * value), GAT_EIO, GAT_ENOMEM, or what accept returns. On failure the arrays are as they were
 * and s holds no allocation. */
gat_status gat_i_ckpt_load(const char *path, const gat_i_ckpt_ident *id, gat_i_ckpt_state *s,
                           gat_real *params, gat_real *m1, gat_real *m2, gat_real *best, size_t P,
                           gat_i_ckpt_accept accept, void *user);

#endif
