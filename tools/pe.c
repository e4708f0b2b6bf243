/* --pe of gat-train and gat-embed (pe.h): encodings appended to the features, the cost line,
 * the per-epoch sign flip of the Laplacian columns. */
#include "pe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tool_pe_parse(const char *prog, const char *text, tool_pe *pe)
{
    memset(pe, 0, sizeof *pe);
    if (!text || !*text) return 0;
    if (gat_pe_spec_parse(text, &pe->spec) != GAT_OK) {
        fprintf(stderr, "%s: --pe: %s\n", prog, gat_last_error());
        return 2;
    }
    gat_pe_spec_format(&pe->spec, pe->text, sizeof pe->text);
    pe->on = 1;
    return 0;
}

int tool_pe_build(const char *prog, tool_pe *pe, gat_dataset *ds, int threads, int quiet)
{
    if (!pe->on) return 0;
    gat_pe_options opt;
    gat_pe_cost cost;
    gat_csr enc;
    gat_pe_options_init(&opt);
    opt.threads = threads;
    if (gat_pe_append(&ds->graph, &ds->x, &pe->spec, &opt, &enc, &cost) != GAT_OK) {
        fprintf(stderr, "%s: --pe %s: %s\n", prog, pe->text, gat_last_error());
        return 1;
    }
    pe->ds = ds;
    pe->x = ds->x;
    pe->col = ds->n_features;
    ds->x = enc;
    ds->n_features = enc.cols;
    if (!quiet) {
        const double added = (double)ds->n * (pe->spec.lap_k + pe->spec.rw_k) *
                             (sizeof(gat_real) + sizeof(gat_idx));
        printf("encodings %s: %.2f s, %.1f MiB working memory, %.1f MiB added to the features",
               pe->text, cost.seconds, cost.bytes / 1048576.0, added / 1048576.0);
        if (pe->spec.lap_k)
            printf("; %d components (%d dsyevr, %d ARPACK, %ld operator products)",
                   cost.components, cost.dense, cost.iterative, cost.matvecs);
        printf("\n");
    }
    return 0;
}

/* Makes the flips of `seed` (have = 1) or none (have = 0) the ones in x: undoes the applied
 * ones (a flip is its own inverse), applies the new, and rebinds m if x changed. */
static int set_flips(tool_pe *pe, int have, uint64_t seed)
{
    const gat_idx K = pe->spec.lap_k;
    if (K == 0 || (pe->flipped == have && (!have || pe->applied == seed))) return 0;
    gat_csr *x = &pe->ds->x;
    if (pe->flipped) gat_pe_flip_signs_csr(x, pe->col, K, pe->applied);
    if (have) gat_pe_flip_signs_csr(x, pe->col, K, seed);
    pe->flipped = have, pe->applied = seed;
    /* the model derived data from the features when it bound them (their transpose, a
     * renumbered copy): bind them again, as gat/model.h asks after an edit in place */
    if (pe->m && gat_model_bind(pe->m, &pe->ds->graph, x, pe->bind_flags) != GAT_OK) return 1;
    return 0;
}

/* Epoch e ended: the flips of epoch e + 1, then the tool's own callback. */
static int on_epoch_pe(const gat_epoch_info *e, void *user)
{
    tool_pe *pe = user;
    const uint64_t s = pe->seed * 0x9e3779b97f4a7c15ull + (uint64_t)e->epoch + 1;
    if (set_flips(pe, 1, s) != 0) {
        fprintf(stderr, "--pe: rebinding the features after epoch %d: %s\n", e->epoch,
                gat_last_error());
        return 1; /* stops training */
    }
    return pe->next ? pe->next(e, pe->next_user) : 0;
}

static void on_stage_pe(const gat_stage_info *s, void *user)
{
    const tool_pe *pe = user;
    pe->next_stage(s, pe->next_user);
}

static int on_stop_pe(void *user)
{
    const tool_pe *pe = user;
    return pe->next_stop(pe->next_user);
}

int tool_pe_train_config(const char *prog, tool_pe *pe, gat_model *m, unsigned bind_flags,
                         uint64_t seed, const gat_train_config *tc, gat_train_config *out)
{
    *out = *tc;
    if (!pe->on || pe->spec.lap_k == 0) return 0;
    pe->m = m;
    pe->bind_flags = bind_flags;
    pe->seed = seed;
    pe->next = tc->progress, pe->next_stage = tc->stage, pe->next_stop = tc->stop;
    pe->next_user = tc->user;
    out->progress = on_epoch_pe;
    out->stage = tc->stage ? on_stage_pe : NULL;
    out->stop = tc->stop ? on_stop_pe : NULL;
    out->user = pe;
    out->lookahead = 0;
    if (set_flips(pe, 1, seed * 0x9e3779b97f4a7c15ull + 1) != 0) {
        fprintf(stderr, "%s: --pe: binding the features: %s\n", prog, gat_last_error());
        return 1;
    }
    return 0;
}

int tool_pe_fix(const char *prog, tool_pe *pe, gat_model *m)
{
    if (!pe->on) return 0;
    pe->m = m;
    const int rc = set_flips(pe, 0, 0);
    pe->m = NULL, pe->next = NULL, pe->next_user = NULL;
    if (rc) fprintf(stderr, "%s: --pe: rebinding the features: %s\n", prog, gat_last_error());
    return rc;
}

/* The ROC-AUC of logits (n, 2) over the nodes of split `which` (NaN without both classes). */
static double split_auc(const gat_dataset *ds, const gat_real *logits, gat_split which,
                        double *score, uint8_t *pos)
{
    gat_idx k = 0;
    double auc = NAN;
    for (gat_idx i = 0; i < ds->n; i++)
        if (ds->split[i] == which && ds->labels[i] >= 0) {
            score[k] = (double)logits[2 * (size_t)i + 1] - (double)logits[2 * (size_t)i];
            pos[k++] = ds->labels[i] == 1;
        }
    if (k == 0 || gat_roc_auc(score, pos, k, &auc) != GAT_OK) return NAN;
    return auc;
}

int tool_pe_evaluate(const char *prog, const tool_pe *pe, gat_model *m, gat_train_result *res)
{
    if (!pe->on || pe->spec.lap_k == 0) return 0;
    const gat_dataset *ds = pe->ds;
    if (gat_model_evaluate(m, ds, GAT_SPLIT_VAL, &res->val_loss, &res->val_acc) != GAT_OK ||
        (ds->n_test > 0 &&
         gat_model_evaluate(m, ds, GAT_SPLIT_TEST, &res->test_loss, &res->test_acc) != GAT_OK)) {
        fprintf(stderr, "%s: --pe: evaluating with the fixed signs: %s\n", prog, gat_last_error());
        return 1;
    }
    if (gat_model_get_config(m)->classes != 2 || ds->n_labels > 0) return 0;
    const gat_real *logits;
    double *score = malloc((size_t)ds->n * sizeof *score);
    uint8_t *pos = malloc((size_t)ds->n);
    int rc = 0;
    if (!score || !pos || gat_model_forward(m, &ds->graph, &ds->x, 0, &logits) != GAT_OK) {
        fprintf(stderr, "%s: --pe: the ROC-AUC with the fixed signs: %s\n", prog,
                score && pos ? gat_last_error() : "out of memory");
        rc = 1;
    } else {
        res->val_auc = split_auc(ds, logits, GAT_SPLIT_VAL, score, pos);
        res->test_auc = split_auc(ds, logits, GAT_SPLIT_TEST, score, pos);
    }
    free(score);
    free(pos);
    return rc;
}

void tool_pe_destroy(tool_pe *pe)
{
    if (pe->ds) {
        gat_csr_destroy(&pe->ds->x);
        pe->ds->x = pe->x;
        pe->ds->n_features = pe->col;
    }
    memset(pe, 0, sizeof *pe);
}
