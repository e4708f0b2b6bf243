/* --pe lap:K,rw:K of gat-train and gat-embed (pe.c): the features with encodings appended
 * (gat_pe_append), the cost line, and during training the random sign flip of the Laplacian
 * columns once per epoch (fixed signs for every evaluation that is reported). Printing and
 * bookkeeping only; the numerics are libgat's. */
#ifndef GAT_TOOL_PE_H
#define GAT_TOOL_PE_H

#include "gat/gat.h"

typedef struct tool_pe {
    int on;            /* an encoding was asked for */
    gat_pe_spec spec;
    char text[32];     /* the spec's canonical text, for the model file */
    gat_dataset *ds;   /* the dataset whose features are [its own | encodings] while built */
    gat_csr x;         /* its own features while the encoded ones are in ds->x */
    gat_idx col;       /* the first Laplacian column (the dataset's own feature count) */
    uint64_t seed;     /* the run's: epoch e flips by hash(seed, e) */
    int flipped;       /* flips of `applied` are in x now */
    uint64_t applied;
    /* training: the model whose binding is rebuilt after a flip (NULL: graph models, which bind
     * every batch), its bind flags, and the progress callback chained after the flip */
    gat_model *m;
    unsigned bind_flags;
    gat_progress_fn next;
    gat_stage_fn next_stage;
    gat_stop_fn next_stop;
    void *next_user;
} tool_pe;

/* Parses text ("lap:8,rw:16"; NULL or "": off) into pe (zeroed first). Returns 0, or 2 after a
 * message naming --pe. */
int tool_pe_parse(const char *prog, const char *text, tool_pe *pe);

/* With pe->on: computes the encodings of ds on `threads` threads, prints the cost line to stdout
 * (unless quiet) and puts [features | encodings] in ds->x (n_features grows by lap_k + rw_k)
 * until tool_pe_destroy gives ds its own features back: call it before gat_dataset_destroy (a
 * .gatd dataset's arrays must stay as they were). Returns 0, or 1 after a message. Without
 * pe->on: nothing, 0. */
int tool_pe_build(const char *prog, tool_pe *pe, gat_dataset *ds, int threads, int quiet);

/* A copy of tc for training with pe: its progress callback flips the Laplacian columns for the
 * next epoch (seed: the run's) and rebinds m (NULL for graph models) with bind_flags, then calls
 * tc's own callbacks (progress, stage and stop, with tc's user); mini-batches draw their blocks
 * in turn (lookahead 0) so that no loader thread reads the features while they change. Applies
 * the first epoch's flips. Returns 0, or 1 after a message. */
int tool_pe_train_config(const char *prog, tool_pe *pe, gat_model *m, unsigned bind_flags,
                         uint64_t seed, const gat_train_config *tc, gat_train_config *out);

/* After training: the fixed signs again (and m, if not NULL, rebound). Returns 0 or 1 after a
 * message. */
int tool_pe_fix(const char *prog, tool_pe *pe, gat_model *m);

/* Node models: res's validation and test figures again, with the fixed signs (gat_train's were
 * measured on flipped ones): loss and accuracy (micro-F1 for multi-label data), and the ROC-AUC
 * of two-class models (NaN where a split lacks a class). Returns 0 or 1 after a message. */
int tool_pe_evaluate(const char *prog, const tool_pe *pe, gat_model *m, gat_train_result *res);

/* Gives the dataset its own features back and frees the encoded ones. Accepts a zeroed pe. */
void tool_pe_destroy(tool_pe *pe);

#endif
