/* The engine's thread-count governor (gov.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "gov.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__linux__)
#include <dirent.h>
#include <sched.h>
#include <unistd.h>
#endif

double gat_i_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void gat_i_gov_init(gat_i_gov *g, int busy)
{
    memset(g, 0, sizeof *g);
    g->all = !busy;
    g->interval = 32;
    g->next_probe = 2 * GAT_I_GOV_KINDS;
    for (int k = 0; k < GAT_I_GOV_KINDS; k++)
        g->fresh[k] = 1;
}

static void switched(gat_i_gov *g)
{
    for (int k = 0; k < GAT_I_GOV_KINDS; k++)
        g->fresh[k] = 1;
}

int gat_i_gov_begin(gat_i_gov *g)
{
    if (!g->probing && ++g->calls >= g->next_probe) {
        const int s = !g->all;
        g->probing = GAT_I_GOV_PROBE_CALLS;
        for (int k = 0; k < GAT_I_GOV_KINDS; k++)
            g->seen[s][k] = 0;
        switched(g);
    }
    return g->all ^ (g->probing > 0);
}

void gat_i_gov_end(gat_i_gov *g, int kind, double t)
{
    const int s = g->all ^ (g->probing > 0), u = g->all;
    const int timed = !g->fresh[kind];
    g->fresh[kind] = 0;
    if (timed && g->probing) /* the probed setting: a plain mean of this episode */
        g->t[s][kind] = (g->t[s][kind] * g->seen[s][kind] + t) / (g->seen[s][kind] + 1),
        g->seen[s][kind]++;
    else if (timed) /* the usual setting: a running mean */
        g->t[s][kind] = g->seen[s][kind]++ == 0 ? t : 0.75 * g->t[s][kind] + 0.25 * t;
    if (!g->probing) return;
    /* the probed setting has lost: its mean for this kind is well above the usual one's, or one
     * call (even a dropped one: threads preempted by other processes, spinning at barriers) is
     * far slower; waiting longer only costs time */
    const int lost =
        g->seen[u][kind] && (t > GAT_I_GOV_ABORT * g->t[u][kind] ||
                             (timed && g->t[s][kind] > GAT_I_GOV_LOSE * g->t[u][kind]));
    if (!lost && --g->probing > 0) return;
    g->probing = 0;
    /* episode over: all threads must beat one by 5% over the kinds timed both ways */
    double t1 = 0, tn = 0;
    int both = 0;
    for (int k = 0; k < GAT_I_GOV_KINDS; k++)
        if (g->seen[0][k] && g->seen[1][k]) t1 += g->t[0][k], tn += g->t[1][k], both = 1;
    const int all = lost || !both ? g->all : tn < 0.95 * t1;
    if (all == g->all) {
        if (g->interval < 4096) g->interval *= 2;
    } else {
        g->all = all;
        g->interval = 32;
    }
    g->next_probe = g->calls + g->interval;
    switched(g);
}

#if defined(__linux__)
/* Runnable threads on the machine (/proc/loadavg's "running/total" field) less this process's
 * own (the states in /proc/self/task/TID/stat), or -1 if either cannot be read. */
static int others_running(void)
{
    FILE *fp = fopen("/proc/loadavg", "re");
    int running = -1, own = 0;
    if (!fp) return -1;
    if (fscanf(fp, "%*f %*f %*f %d/", &running) != 1) running = -1;
    fclose(fp);
    DIR *d = running < 0 ? NULL : opendir("/proc/self/task");
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        char path[64], buf[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
        if (!(fp = fopen(path, "re"))) continue; /* the thread has ended */
        const size_t n = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        buf[n] = 0;
        /* "tid (comm) S ...": the state follows the last ')' (comm may hold one) */
        const char *p = strrchr(buf, ')');
        if (p && p[1] == ' ' && p[2] == 'R') own++;
    }
    closedir(d);
    return running > own ? running - own : 0;
}
#endif

int gat_i_gov_busy(int nt)
{
#if defined(__linux__)
    cpu_set_t set;
    const long on = sysconf(_SC_NPROCESSORS_ONLN);
    const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                     : on > 0                                    ? (int)on
                                                                 : 1;
    int busy = 1, known = 0;
    for (int s = 0; s < 3 && busy; s++) {
        if (s > 0) nanosleep(&(struct timespec){0, 1000000}, NULL);
        const int o = others_running();
        if (o < 0) break;
        known = 1;
        busy = o + nt > cpus;
    }
    if (known) return busy;
#endif
    double la = 0;
    return getloadavg(&la, 1) == 1 && la >= 0.5;
}
