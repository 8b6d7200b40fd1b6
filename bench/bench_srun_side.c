/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_srun_side: times the plugin's srun-side path exactly as the
 * option callback runs it -- read srun's options, parse the spec, read the
 * allocation from the environment, plan (and blocked for the summary),
 * write the hostfile into a private directory, set the task environment --
 * for step sizes a local Slurm cannot launch.
 *
 * usage: bench_srun_side [-r REPEATS] [-s SPEC] [-c CPUS_PER_NODE]
 *                        [--limit-cpu-ms MS] RANKS...
 * Prints one line per size, CPU and wall time; exits 1 if a median CPU
 * time exceeds --limit-cpu-ms (default 0: no limit).  CPU time, because
 * the machines that run the tests are shared: the wall time of a loaded
 * one says more about its neighbours than about the path. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "policy.h"
#include "step.h"

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The options into *repeats, *spec, *cpn and *limit_ms; the index of the
 * first size, or -1 after the usage line. */
static int parse_options(int argc, char **argv, int *repeats, const char **spec, int *cpn,
                         double *limit_ms)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 >= argc)
            break;
        if (!strcmp(argv[i], "-r"))
            *repeats = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            *spec = argv[i + 1];
        else if (!strcmp(argv[i], "-c"))
            *cpn = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--limit-cpu-ms"))
            *limit_ms = atof(argv[i + 1]);
        else {
            fprintf(stderr, "usage: %s [-r N] [-s SPEC] [-c CPUS] [--limit-cpu-ms MS] RANKS...\n",
                    argv[0]);
            return -1;
        }
    }
    if (i >= argc || *repeats < 1 || *cpn < 1) {
        fprintf(stderr, "usage: %s [-r N] [-s SPEC] [-c CPUS] [--limit-cpu-ms MS] RANKS...\n",
                argv[0]);
        return -1;
    }
    return i;
}

/* What one size's runs found: the last plan's algorithm and J_sum, and
 * blocked's. */
struct run_result {
    const char *alg;
    long long jsum, bjsum;
};

/* Runs the srun-side path repeats times for ranks, each run's CPU and wall
 * time into t[] and w[]; false (the reason on stderr) when it fails. */
static bool time_runs(const sm_policy *pol, long ranks, const char *spec, const char *tmp,
                      int repeats, double *t, double *w, struct run_result *res)
{
    sm_step st;
    for (int k = 0; k < repeats; k++) {
        double t0 = seconds(CLOCK_PROCESS_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
        sm_srun_args a;
        sm_srun_args_read(&a, NULL); /* what the plugin does: /proc/self/cmdline */
        a.ntasks = ranks;      /* as if srun -n RANKS */
        int prc = sm_step_plan(&st, pol, &a, spec, SM_SRC_OPTION, tmp, NULL, NULL, NULL);
        if (!prc)
            prc = sm_step_export_env(&st);
        t[k] = seconds(CLOCK_PROCESS_CPUTIME_ID) - t0;
        w[k] = seconds(CLOCK_MONOTONIC) - w0;
        if (prc) {
            fprintf(stderr, "bench: %s\n", st.error);
            return false;
        }
        res->alg = smp_algorithm_name(st.pl.algorithm);
        res->jsum = st.pl.score.j_sum;
        res->bjsum = st.blocked.score.j_sum;
        sm_step_release(&st);
    }
    return true;
}

int main(int argc, char **argv)
{
    int repeats = 11, cpn = 64;
    double limit_ms = 0;
    const char *spec = "auto:2d:5pt";
    int i = parse_options(argc, argv, &repeats, &spec, &cpn, &limit_ms);
    if (i < 0)
        return 2;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    sm_policy pol;
    char msg[256];
    char *noargs[1] = {NULL};
    sm_policy_parse(&pol, 0, noargs, msg, sizeof(msg));
    int rc = 0;
    for (; i < argc; i++) {
        long ranks = atol(argv[i]);
        long nnodes = (ranks + cpn - 1) / cpn;
        char nl[64], cpus[64], nt[32];
        snprintf(nl, sizeof(nl), "n[1-%ld]", nnodes);
        snprintf(cpus, sizeof(cpus), "%d(x%ld)", cpn, nnodes);
        snprintf(nt, sizeof(nt), "%ld", ranks);
        setenv("SLURM_JOB_NODELIST", nl, 1);
        setenv("SLURM_JOB_CPUS_PER_NODE", cpus, 1);
        double *t = calloc((size_t)repeats, sizeof(double));
        double *w = calloc((size_t)repeats, sizeof(double));
        struct run_result res = {"?", 0, 0};
        if (!time_runs(&pol, ranks, spec, tmp, repeats, t, w, &res))
            return 1;
        qsort(t, (size_t)repeats, sizeof(double), cmp);
        qsort(w, (size_t)repeats, sizeof(double), cmp);
        double med = t[repeats / 2] * 1e3;
        bool over = limit_ms > 0 && med > limit_ms;
        printf("srun-side path: %s, %ld ranks on %ld nodes (%d slots each): CPU median %.2f ms "
               "(min %.2f, max %.2f), wall median %.2f ms over %d runs (J_sum %lld, blocked "
               "%lld)%s\n",
               res.alg, ranks, nnodes, cpn, med, t[0] * 1e3, t[repeats - 1] * 1e3,
               w[repeats / 2] * 1e3, repeats, res.jsum, res.bjsum, over ? "  OVER LIMIT" : "");
        if (over) {
            printf("  limit: %.0f ms CPU\n", limit_ms);
            rc = 1;
        }
        free(t);
        free(w);
    }
    return rc;
}
