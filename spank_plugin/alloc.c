/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun's command line and the job's allocation. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "srun_options.h"

#define SM_OPTION "stencil-map"

/* this plugin's own option takes a value too */
static const char *const own_with_arg[] = {SM_OPTION, NULL};

/* an unknown option doubles the readings to scan: a bound on them */
#define MAX_UNKNOWN 8

/* Positive integer; for -N also "min-max" (the minimum is used). */
static int64_t parse_count(const char *v, bool range, const char *what, sm_srun_args *a)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (range && *end == '-') {
        char *e2;
        (void)strtoll(end + 1, &e2, 10);
        if (e2 != end + 1)
            end = e2;
    }
    if (errno || end == v || *end || n < 1 || n > SMP_MAX_RANKS) {
        if (!a->bad[0])
            snprintf(a->bad, sizeof(a->bad), "%s %.60s: not a positive integer", what, v);
        return 0;
    }
    return n;
}

static void apply(sm_srun_args *a, const char *name, char shortc, const char *val)
{
#define IS(l, s) ((name && !strcmp(name, l)) || (shortc && shortc == (s)))
    if (IS("ntasks", 'n'))
        a->ntasks = parse_count(val, false, "-n/--ntasks", a);
    else if (IS("nodes", 'N'))
        a->nnodes = parse_count(val, true, "-N/--nodes", a);
    else if (IS("ntasks-per-node", 0) || IS("tasks-per-node", 0))
        a->ntasks_per_node = parse_count(val, false, "--ntasks-per-node", a);
    else if (IS("cpus-per-task", 'c'))
        a->cpus_per_task = parse_count(val, false, "-c/--cpus-per-task", a);
    else if (IS("nodelist", 'w') || IS("nodefile", 'F'))
        a->nodelist = true;
    else if (IS("distribution", 'm'))
        a->distribution = true;
    else if (IS("relative", 'r'))
        a->relative = true;
    else if (IS("quiet", 'Q'))
        a->quiet = true;
    else if (IS("chdir", 'D'))
        snprintf(a->chdir, sizeof(a->chdir), "%s", val ? val : "");
    else if (IS("multi-prog", 0))
        a->multi_prog = true;
    else if (IS(SM_OPTION, 0)) {
        a->have_spec = true;
        snprintf(a->spec, sizeof(a->spec), "%s", val ? val : "");
    }
#undef IS
}

/* The readings agree on everything the plan depends on. */
static bool same_plan_inputs(const sm_srun_args *x, const sm_srun_args *y)
{
    return x->ntasks == y->ntasks && x->nnodes == y->nnodes &&
           x->ntasks_per_node == y->ntasks_per_node && x->cpus_per_task == y->cpus_per_task &&
           x->nodelist == y->nodelist && x->distribution == y->distribution &&
           x->relative == y->relative &&
           x->have_spec == y->have_spec &&
           !strcmp(x->spec, y->spec) && !strcmp(x->bad, y->bad);
}

static void scan(sm_srun_args *a, int argc, char **argv, int i, int *unknown);

/* "--name" that srun_options.c does not know, at argv[i]: scan on both
 * as a flag and as taking argv[i + 1]. */
static void scan_unknown(sm_srun_args *a, int argc, char **argv, int i, int *unknown)
{
    const char *w = argv[i];
    if (++*unknown > MAX_UNKNOWN) {
        if (!a->bad[0])
            snprintf(a->bad, sizeof(a->bad),
                     "more than %d srun options unknown to stencil-map; write them as "
                     "--name=value", MAX_UNKNOWN);
        return;
    }
    sm_srun_args as_value = *a;
    scan(a, argc, argv, i + 1, unknown);
    if (i + 1 >= argc)
        return;
    scan(&as_value, argc, argv, i + 2, unknown);
    if (strcmp(a->command, as_value.command) || a->multi_prog != as_value.multi_prog)
        a->command_unsure = true;
    if (!same_plan_inputs(a, &as_value) && !a->bad[0])
        snprintf(a->bad, sizeof(a->bad),
                 "cannot tell whether srun option '%.50s' takes the value '%.30s' (it is no "
                 "srun option stencil-map knows, e.g. another plugin's); write it as "
                 "%.50s=VALUE, or after the other options",
                 w, argv[i + 1], w);
}

/* the program srun runs, without its directory */
/* The words from argv[i] on, into a. */
static void scan(sm_srun_args *a, int argc, char **argv, int i, int *unknown)
{
    for (; i < argc; i++) {
        const char *w = argv[i];
        if (!strcmp(w, "--") || w[0] != '-' || !w[1]) {
            /* the command starts here */
            const char *cmd = strcmp(w, "--") ? w : i + 1 < argc ? argv[i + 1] : "";
            snprintf(a->command, sizeof(a->command), "%s", cmd);
            return;
        }
        if (w[1] == '-') {
            const char *name = w + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const char *full;
            sm_opt_kind k = sm_srun_option_lookup(name, len, own_with_arg, &full);
            if (k == SM_OPT_UNKNOWN) {
                if (!eq) {
                    scan_unknown(a, argc, argv, i, unknown);
                    return;
                }
                continue;
            }
            const char *val = eq ? eq + 1 : NULL;
            if (!eq && k == SM_OPT_WITH_ARG) {
                if (i + 1 >= argc)
                    return;
                val = argv[++i];
            }
            if (val || k == SM_OPT_WITHOUT_ARG)
                apply(a, full, 0, val);
            continue;
        }
        /* a cluster of short options: -Ql, -n4, -n 4 */
        for (const char *c = w + 1; *c; c++) {
            if (strchr(sm_srun_short_with_arg, *c)) {
                const char *val = c[1] ? c + 1 : (i + 1 < argc ? argv[++i] : NULL);
                if (val)
                    apply(a, NULL, *c, val);
                break;
            }
            apply(a, NULL, *c, NULL);
        }
    }
}

void sm_srun_args_parse(sm_srun_args *a, int argc, char **argv, const sm_srun_rules *rules)
{
    memset(a, 0, sizeof(*a));
    if (rules)
        a->rules = *rules;
    int unknown = 0;
    scan(a, argc, argv, 1, &unknown);
}

int sm_srun_args_read(sm_srun_args *a, const sm_srun_rules *rules)
{
    memset(a, 0, sizeof(*a));
    if (rules)
        a->rules = *rules;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return -1;
    }
    for (;;) {
        if (len == cap) {
            char *nb = cap < (64u << 20) ? realloc(buf, 2 * cap + 1) : NULL;
            if (!nb) {
                free(buf);
                close(fd);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    int argc = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\0')
            argc++;
    if (len && buf[len - 1] != '\0')
        argc++;
    char **argv = calloc((size_t)argc + 1, sizeof(char *));
    if (!argv) {
        free(buf);
        return -1;
    }
    size_t off = 0;
    for (int k = 0; k < argc; k++) {
        argv[k] = buf + off;
        off += strlen(buf + off) + 1;
    }
    sm_srun_args_parse(a, argc, argv, rules);
    free(argv);
    free(buf);
    return 0;
}

/* The srun options that cannot go with a plan, refused in srun's order;
 * SMP_OK when none is given. */
static smp_status refuse_options(const sm_srun_args *a, smp_error *err)
{
    if (a->bad[0])
        return smp_error_set(err, SMP_ERR_INPUT, "%s", a->bad);
    if (a->nodelist)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "-w/--nodelist and -F/--nodefile cannot be combined with --stencil-map "
                             "(srun then ignores the plan's hostfile); narrow the allocation with "
                             "salloc -w instead, or use -N");
    /* srun checks -r against -w before it reads the plan's SLURM_HOSTFILE
     * into its node list (22.05's opt.c), so the two would meet in the
     * step request with no word to the user: refuse it here instead */
    if (a->relative)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "-r/--relative cannot be combined with --stencil-map (the plan's "
                             "hostfile names the step's nodes); narrow the allocation with "
                             "salloc -w instead, or leave -r out");
    if (a->nnodes && a->rules.refuses_nodes)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "-N/--nodes %lld cannot be used with --stencil-map: srun of Slurm "
                             "23.11 and later refuses --nodes with a hostfile (\"--nodes is "
                             "incompatible with --distribution=arbitrary\"); leave -N out, and "
                             "the plan places the grid's ranks on the allocation's nodes, or "
                             "narrow the allocation itself (salloc -N%lld)",
                             (long long)a->nnodes, (long long)a->nnodes);
    return SMP_OK;
}

/* The CPUs per task into *cpus_per_task: srun's -c, else, where srun
 * inherits it, the allocation's SLURM_CPUS_PER_TASK. */
static smp_status cpus_per_task_of(const sm_srun_args *a, int64_t *cpus_per_task,
                                   smp_error *err)
{
    *cpus_per_task = a->cpus_per_task;
    const char *cpt = getenv("SLURM_CPUS_PER_TASK");
    if (!*cpus_per_task && a->rules.inherits_cpus_per_task && cpt && *cpt) {
        /* as srun reads it: the allocation's -c, unless srun got its own */
        sm_srun_args probe = *a;
        probe.bad[0] = '\0';
        *cpus_per_task = parse_count(cpt, false, "SLURM_CPUS_PER_TASK", &probe);
        if (probe.bad[0])
            return smp_error_set(err, SMP_ERR_INPUT, "%s", probe.bad);
    }
    return SMP_OK;
}

/* The job's task count from SLURM_NTASKS (or SLURM_NPROCS), 0 when unset
 * or not a valid count. */
static int64_t job_ntasks_of_env(void)
{
    const char *nt = getenv("SLURM_NTASKS");
    if (!nt)
        nt = getenv("SLURM_NPROCS");
    if (nt) {
        char *end;
        errno = 0;
        long long v = strtoll(nt, &end, 10);
        if (!errno && end != nt && !*end && v > 0 && v <= SMP_MAX_RANKS)
            return v;
    }
    return 0;
}

/* The allocation's nodes cut to -N's first ones (freed when -N asks for
 * more), and each node's slots to its tasks: CPUs over -c, at most
 * --ntasks-per-node. */
static smp_status fit_nodes(const sm_srun_args *a, int64_t cpus_per_task, smp_nodes *nodes,
                            smp_error *err)
{
    if (a->nnodes) {
        if (a->nnodes > nodes->count) {
            int have = nodes->count;
            smp_nodes_free(nodes);
            return smp_error_set(err, SMP_ERR_INFEASIBLE,
                                 "-N/--nodes: %lld nodes requested but the allocation has %d",
                                 (long long)a->nnodes, have);
        }
        for (int i = (int)a->nnodes; i < nodes->count; i++)
            free(nodes->names[i]);
        nodes->count = (int)a->nnodes;
    }
    nodes->total_slots = 0;
    for (int i = 0; i < nodes->count; i++) {
        int64_t c = nodes->slots[i];
        if (cpus_per_task > 1)
            c /= cpus_per_task;
        if (a->ntasks_per_node && c > a->ntasks_per_node)
            c = a->ntasks_per_node;
        nodes->slots[i] = (int32_t)c;
        nodes->total_slots += c;
    }
    return SMP_OK;
}

smp_status sm_alloc_read(const sm_srun_args *a, smp_nodes *nodes, int64_t *job_ntasks,
                         smp_error *err)
{
    memset(nodes, 0, sizeof(*nodes));
    *job_ntasks = 0;
    const char *hl = getenv("SLURM_JOB_NODELIST");
    const char *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
    if (!hl || !*hl || !cpus || !*cpus)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "no allocation (SLURM_JOB_NODELIST/SLURM_JOB_CPUS_PER_NODE unset): the "
                             "placement needs the nodes before launch; run srun inside salloc or "
                             "sbatch, e.g. 'salloc -N4 -n32 srun --stencil-map=SPEC ...'");
    int64_t cpus_per_task;
    smp_status s = refuse_options(a, err);
    if (!s)
        s = cpus_per_task_of(a, &cpus_per_task, err);
    if (!s)
        s = smp_nodes_parse(nodes, hl, cpus, err);
    if (s)
        return s;
    *job_ntasks = job_ntasks_of_env();
    return fit_nodes(a, cpus_per_task, nodes, err);
}

int64_t sm_alloc_ntasks(const sm_srun_args *a, int64_t fixed_size, int64_t job_ntasks,
                        const smp_nodes *nodes)
{
    if (a->ntasks)
        return a->ntasks;
    if (fixed_size > 0)
        return fixed_size;
    if (job_ntasks > 0 && !a->nnodes && !a->ntasks_per_node)
        return job_ntasks;
    return nodes->total_slots;
}
