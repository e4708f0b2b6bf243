/* Check suite "gov": the engine's thread-count governor (src/core/gov.h) driven with made-up
 * call times, so its decisions are deterministic: on an idle machine it stays on all threads and
 * its probes of one thread end after their first timed call; on an oversubscribed machine it
 * moves to one thread; a wrong prior is corrected at the first probe; equal timings keep the
 * prefer one thread, probed ever more rarely. And the prior reads the machine. */
#include "testutil.h"
#include "core/gov.h"

/* A trainer's epoch: training forward, backward, validation forward. */
static const int EPOCH[] = {GAT_I_GOV_TRAIN, GAT_I_GOV_BACKWARD, GAT_I_GOV_EVAL_ROWS};
static const double BASE[] = {[GAT_I_GOV_TRAIN] = 0.9,
                              [GAT_I_GOV_EVAL_ROWS] = 0.8,
                              [GAT_I_GOV_EVAL] = 1.0,
                              [GAT_I_GOV_BACKWARD] = 2.3};

typedef struct run {
    int calls[2];   /* calls made with [0] one thread, [1] all */
    int switches;   /* changes of the usual setting */
    int longest[2]; /* the longest stretch of consecutive calls with each setting */
    int last;       /* the setting of the last call */
} run;

/* n calls in epoch order, each taking BASE[kind] * slow[setting] seconds, the first call of
 * every kind after a change of setting (and the first ever) first_slow times that */
static run drive(gat_i_gov *g, int n, const double slow[2], double first_slow)
{
    run r = {{0, 0}, 0, {0, 0}, -1};
    int stretch = 0, usual = g->all, seen[GAT_I_GOV_KINDS] = {0};
    for (int c = 0; c < n; c++) {
        const int kind = EPOCH[c % 3], s = gat_i_gov_begin(g);
        if (s != r.last) {
            stretch = 0;
            for (int k = 0; k < GAT_I_GOV_KINDS; k++)
                seen[k] = 0;
        }
        stretch++;
        if (stretch > r.longest[s]) r.longest[s] = stretch;
        r.calls[s]++;
        r.last = s;
        gat_i_gov_end(g, kind, BASE[kind] * slow[s] * (seen[kind]++ ? 1 : first_slow));
        if (g->all != usual) r.switches++, usual = g->all;
    }
    return r;
}

/* Idle machine, large graph: one thread 1.9 times slower. All threads throughout but for the
 * probes, each of which ends after the first timed call of one thread: the three dropped calls
 * (one per kind) and one more. */
START_TEST(idle_keeps_all_threads)
{
    gat_i_gov g;
    gat_i_gov_init(&g, 0);
    const run r = drive(&g, 600, (const double[]){1.9, 1.0}, 1.2);
    ck_assert_int_eq(r.switches, 0);
    ck_assert_int_eq(g.all, 1);
    ck_assert_int_le(r.longest[0], 4);
    /* probes after calls 8, 8 + 64, ... + 128, ... + 256: four of four calls each */
    ck_assert_int_le(r.calls[0], 4 * 4);
    ck_assert_int_ge(r.calls[0], 3 * 4);
}
END_TEST

/* The same where one thread is only 1.1 times slower (a small graph): below the early end
 * (GAT_I_GOV_LOSE), so the probes run their full length, and all threads are kept. */
START_TEST(close_settings_probe_in_full)
{
    gat_i_gov g;
    gat_i_gov_init(&g, 0);
    const run r = drive(&g, 600, (const double[]){1.1, 1.0}, 1.0);
    ck_assert_int_eq(r.switches, 0);
    ck_assert_int_eq(g.all, 1);
    ck_assert_int_eq(r.longest[0], GAT_I_GOV_PROBE_CALLS);
}
END_TEST

/* Oversubscribed: all threads 3 times slower than one. The prior said idle: the first probe
 * (one thread) wins and the governor stays on one thread; later probes of all threads end at
 * their first call (over GAT_I_GOV_ABORT times the usual). */
START_TEST(busy_moves_to_one_thread)
{
    gat_i_gov g;
    gat_i_gov_init(&g, 0);
    const run r = drive(&g, 600, (const double[]){1.0, 3.0}, 1.0);
    ck_assert_int_eq(r.switches, 1);
    ck_assert_int_eq(g.all, 0);
    ck_assert_int_eq(r.last, 0);
    /* the prior's 7 calls and the first probe's timed kinds; the other probes one call each */
    ck_assert_int_le(r.calls[1], 2 * GAT_I_GOV_KINDS - 1 + 4);
}
END_TEST

/* A wrong busy prior on an idle machine (all threads twice as fast): corrected by the first
 * probe, after which the governor stays on all threads. */
START_TEST(wrong_busy_prior_corrected)
{
    gat_i_gov g;
    gat_i_gov_init(&g, 1);
    ck_assert_int_eq(gat_i_gov_begin(&g), 0);
    gat_i_gov_end(&g, GAT_I_GOV_TRAIN, 1.0);
    const run r = drive(&g, 600, (const double[]){2.0, 1.0}, 1.0);
    ck_assert_int_eq(r.switches, 1);
    ck_assert_int_eq(g.all, 1);
    ck_assert_int_le(r.longest[0], 2 * GAT_I_GOV_KINDS);
}
END_TEST

/* Equal timings: all threads must beat one by 5 %, so the first probe moves to one thread,
 * which is then kept while the probes of all threads grow rarer up to the interval's cap. */
START_TEST(equal_timings_prefer_one_thread)
{
    gat_i_gov g;
    gat_i_gov_init(&g, 0);
    const run r = drive(&g, 20000, (const double[]){1.0, 1.0}, 1.0);
    ck_assert_int_eq(r.switches, 1);
    ck_assert_int_eq(g.all, 0);
    ck_assert_int_eq(g.interval, 4096);
    ck_assert_int_lt(r.calls[1], 20000 / 10);
}
END_TEST

/* The prior: more threads than any machine has CPUs are always too many; one thread never is
 * on a machine with more CPUs than other runnable threads (not checkable here, the machine's
 * load is not ours to set), so only the first is asserted. */
START_TEST(prior_counts_cpus)
{
#if defined(__linux__)
    ck_assert_int_eq(gat_i_gov_busy(1 << 20), 1);
#endif
    const int b = gat_i_gov_busy(1);
    ck_assert(b == 0 || b == 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gov");
    TCase *tc = tcase_create("gov");
    tcase_add_test(tc, idle_keeps_all_threads);
    tcase_add_test(tc, close_settings_probe_in_full);
    tcase_add_test(tc, busy_moves_to_one_thread);
    tcase_add_test(tc, wrong_busy_prior_corrected);
    tcase_add_test(tc, equal_timings_prefer_one_thread);
    tcase_add_test(tc, prior_counts_cpus);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
