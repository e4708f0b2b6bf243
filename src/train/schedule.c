/* The learning-rate schedules and the last-epoch model of the graph trainers (train_i.h,
 * gat_i_sched): gat_graph_train and the graph transformers' gat_gps_graph_train run their epochs
 * through gat_i_train_loop with one of these beside it. */
#include "train_i.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

gat_status gat_i_sched_config_check(const gat_train_config *cfg, const char *fn)
{
    if (cfg->batch_size < 0 || (cfg->keep_last != 0 && cfg->keep_last != 1))
        return gat_i_error(GAT_EINVAL,
                           "%s: batch_size = %d, keep_last = %d; expected 0 (all training "
                           "graphs) or a count of graphs, and 0 or 1",
                           fn, cfg->batch_size, cfg->keep_last);
    if (!(cfg->lr_factor >= 0 && cfg->lr_factor < 1) || cfg->lr_patience < 0 || cfg->lr_step < 0 ||
        !(cfg->min_lr >= 0 && isfinite(cfg->min_lr)))
        return gat_i_error(GAT_EINVAL,
                           "%s: lr_factor = %g, lr_patience = %d, lr_step = %d, min_lr = %g; "
                           "expected 0 <= lr_factor < 1, lr_patience >= 0, lr_step >= 0 and a "
                           "finite min_lr >= 0",
                           fn, cfg->lr_factor, cfg->lr_patience, cfg->lr_step, cfg->min_lr);
    return GAT_OK;
}

gat_status gat_i_sched_init(gat_i_sched *s, const gat_train_config *cfg, gat_real *params, size_t P)
{
    *s = (gat_i_sched){
        .cfg = cfg, .adam = cfg->adam, .best_loss = INFINITY, .params = params, .P = P};
    if (cfg->keep_last && !(s->last = gat_malloc(P, sizeof *s->last))) return GAT_ENOMEM;
    return GAT_OK;
}

void gat_i_sched_free(gat_i_sched *s)
{
    gat_free(s->last);
    s->last = NULL;
}

void gat_i_sched_epoch(gat_i_sched *s, gat_idx epoch)
{
    const gat_train_config *cfg = s->cfg;
    if (cfg->lr_factor > 0 && cfg->lr_step > 0 && epoch > 1 && (epoch - 1) % cfg->lr_step == 0) {
        s->adam.lr *= cfg->lr_factor;
        s->lr_low = s->adam.lr < cfg->min_lr;
    }
}

void gat_i_sched_order(const gat_i_sched *s, gat_idx epoch, gat_idx *train, gat_idx n)
{
    gat_rng rng;
    gat_rng_seed(&rng, s->cfg->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)epoch));
    gat_i_shuffle(&rng, train, n);
}

void gat_i_sched_resumed(gat_i_sched *s, const gat_i_ckpt_state *cs, gat_idx *train, gat_idx n,
                         int *ended)
{
    /* each epoch as the loop ran it: the step schedule and the order before the steps, the
     * plateau schedule after a validation (the loop keeps the loss it was given) */
    for (size_t k = 0; k < cs->n_history; k++) {
        const gat_epoch_info *e = &cs->history[k];
        gat_i_sched_epoch(s, e->epoch);
        gat_i_sched_order(s, e->epoch, train, n);
        if (!isnan(e->val_loss)) gat_i_sched_evaluated(s, GAT_SPLIT_VAL, 0, GAT_OK, e->val_loss);
    }
    gat_i_sched_trained(s);
    *ended = s->lr_low;
}

void gat_i_sched_trained(gat_i_sched *s)
{
    if (s->last) memcpy(s->last, s->params, s->P * sizeof *s->params);
}

/* ReduceLROnPlateau (mode min, relative threshold 1e-4, no cooldown) after a validation. */
void gat_i_sched_evaluated(gat_i_sched *s, gat_split which, int final, gat_status st, double loss)
{
    const gat_train_config *cfg = s->cfg;
    if (final) s->final_st = st;
    if (st != GAT_OK || final || which != GAT_SPLIT_VAL) return;
    if (!(cfg->lr_factor > 0) || cfg->lr_step > 0) return;
    if (loss < s->best_loss * (1 - 1e-4)) {
        s->best_loss = loss;
        s->bad = 0;
    } else if (++s->bad > cfg->lr_patience) {
        s->adam.lr *= cfg->lr_factor;
        s->bad = 0;
        s->lr_low = s->adam.lr < cfg->min_lr;
    }
}

int gat_i_sched_agree(gat_i_sched *s, int stop)
{
    if (stop || !s->lr_low) return stop;
    s->lr_stopped = 1;
    return 1;
}

gat_status gat_i_sched_finish(gat_i_sched *s, gat_status st, const gat_i_train_ops *ops, void *u,
                              gat_train_result *res)
{
    /* the schedule's end stops the loop as an interruption would (the best model restored and
     * evaluated): an ordinary end here, unless that evaluation failed */
    if (st == GAT_EINTERRUPTED && s->lr_stopped) {
        st = s->final_st;
        if (st == GAT_OK) gat_i_clear_error();
    }
    if (st != GAT_OK || !s->last) return st;
    memcpy(s->params, s->last, s->P * sizeof *s->params); /* the last epoch's model */
    if (!res) return GAT_OK;
    res->best_epoch = res->epochs; /* and its figures */
    if ((st = ops->evaluate(u, GAT_SPLIT_VAL, 1, &res->val_loss, &res->val_acc)) == GAT_OK &&
        ops->has_test)
        st = ops->evaluate(u, GAT_SPLIT_TEST, 1, &res->test_loss, &res->test_acc);
    return st;
}
