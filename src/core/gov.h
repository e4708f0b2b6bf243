/* The thread-count governor of the engine (model/fast.c) and the sampler (graph/sample.c).
 * Results do not depend on the thread count, so each call of a kind (training forward,
 * evaluation forwards, backward; the sampler's draws use one kind) may pick one: all
 * threads unless timing shows them slower than one (an oversubscribed machine, where spinning
 * OpenMP waits make a preempted thread stall everyone).
 *
 * Calls are timed per kind. Now and then a probe episode runs up to GAT_I_GOV_PROBE_CALLS
 * consecutive calls with the other setting; the first call of each kind after a switch is
 * dropped (sleeping threads, caches of the other core), the rest give that setting fresh means.
 * An episode ends early when the probed setting has lost: a timed call's kind averages
 * GAT_I_GOV_LOSE times the usual setting's mean, or any call takes GAT_I_GOV_ABORT times it.
 * At its end the faster setting is kept; the interval between probes doubles while they lose.
 * The decisions are a function of the timings fed in (gat_i_gov_end), so tests drive them with
 * made-up times. */
#ifndef GAT_CORE_GOV_H
#define GAT_CORE_GOV_H

enum { GAT_I_GOV_TRAIN, GAT_I_GOV_EVAL_ROWS, GAT_I_GOV_EVAL, GAT_I_GOV_BACKWARD, GAT_I_GOV_KINDS };
#define GAT_I_GOV_PROBE_CALLS 12
#define GAT_I_GOV_LOSE 1.2
#define GAT_I_GOV_ABORT 2.5

typedef struct gat_i_gov {
    double t[2][GAT_I_GOV_KINDS]; /* mean seconds per call: [0 one thread, 1 all][kind] */
    int seen[2][GAT_I_GOV_KINDS]; /* samples behind t */
    int fresh[GAT_I_GOV_KINDS];   /* no call of this kind since the last switch: drop the next */
    int all;                      /* the usual setting: 1 all threads, 0 one */
    int probing;                  /* calls left in the current probe episode (0: none) */
    long calls, next_probe, interval;
} gat_i_gov;

/* Monotonic seconds: the clock the governor's callers time their calls with. */
double gat_i_seconds(void);

/* Starts with all threads unless busy (gat_i_gov_busy's prior). */
void gat_i_gov_init(gat_i_gov *g, int busy);

/* The setting for the next call: 1 all threads, 0 one. */
int gat_i_gov_begin(gat_i_gov *g);

/* The call that gat_i_gov_begin started took t seconds. */
void gat_i_gov_end(gat_i_gov *g, int kind, double t);

/* The prior: 1 if other processes' runnable threads now fill the CPUs this process may use, so
 * that nt more would oversubscribe them. On Linux from /proc/loadavg's count of runnable
 * threads less this process's own (its spinning OpenMP threads are not another process's
 * load), sampled up to three times 1 ms apart (busy only if every sample says so); elsewhere,
 * or if /proc cannot be read, from the 1-minute load average (>= 0.5). */
int gat_i_gov_busy(int nt);

#endif
