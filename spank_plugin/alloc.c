/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun's command line and the job's allocation. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"

#define SM_OPTION "stencil-map"

/* srun's short options that take an argument (getopt "x:"). */
static const char short_with_arg[] = "AbcDdeiJLMmnNopqrSTtWwxBCGF";

/* srun's long options that take a required argument, so that
 * "--name value" consumes the next word.  Options with an optional
 * argument never do. */
static const char *const long_with_arg[] = {
    "accel-bind", "account", "acctg-freq", "bb", "bbf", "bcast-exclude", "begin",
    "chdir", "cluster", "cluster-constraint", "clusters", "comment", "constraint",
    "container", "context", "core-spec", "cores-per-socket", "cpu-bind", "cpu_bind",
    "cpu-freq", "cpus-per-gpu", "cpus-per-task", "deadline", "delay-boot", "dependency",
    "distribution", "epilog", "error", "exclude", "export", "extra-node-info", "gid",
    "gpu-bind", "gpu-freq", "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task",
    "gres", "gres-flags", "het-group", "hint", "input", "job-name", "jobid", "licenses",
    "mail-type", "mail-user", "mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu",
    "mincpus", "mpi", "msg-timeout", "network", "nodefile", "nodelist", "nodes", "ntasks",
    "ntasks-per-core", "ntasks-per-gpu", "ntasks-per-node", "ntasks-per-socket",
    "ntasks-per-tres", "open-mode", "output", "pack-group", "partition", "power", "prefer",
    "priority", "profile", "prolog", "qos", "relative", "reservation", "signal",
    "slurmd-debug", "sockets-per-node", "switches", "task-epilog", "task-prolog",
    "tasks-per-node", "thread-spec", "threads", "threads-per-core", "time", "time-min",
    "tmp", "uid", "wait", "wckey", SM_OPTION, NULL,
};

static bool long_takes_arg(const char *name, size_t len)
{
    for (int i = 0; long_with_arg[i]; i++)
        if (strlen(long_with_arg[i]) == len && !strncmp(long_with_arg[i], name, len))
            return true;
    return false;
}

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
    else if (IS("quiet", 'Q'))
        a->quiet = true;
    else if (IS(SM_OPTION, 0)) {
        a->have_spec = true;
        snprintf(a->spec, sizeof(a->spec), "%s", val ? val : "");
    }
#undef IS
}

void sm_srun_args_parse(sm_srun_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof(*a));
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (!strcmp(w, "--") || w[0] != '-' || !w[1])
            break; /* the command starts here */
        if (w[1] == '-') {
            const char *name = w + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            char key[64];
            if (len >= sizeof(key))
                continue;
            memcpy(key, name, len);
            key[len] = '\0';
            const char *val = eq ? eq + 1 : NULL;
            if (!eq && long_takes_arg(key, len)) {
                if (i + 1 >= argc)
                    break;
                val = argv[++i];
            }
            if (val || !strcmp(key, "quiet"))
                apply(a, key, 0, val);
            continue;
        }
        /* a cluster of short options: -Ql, -n4, -n 4 */
        for (const char *c = w + 1; *c; c++) {
            if (strchr(short_with_arg, *c)) {
                const char *val = c[1] ? c + 1 : (i + 1 < argc ? argv[++i] : NULL);
                if (val)
                    apply(a, NULL, *c, val);
                break;
            }
            apply(a, NULL, *c, NULL);
        }
    }
}

int sm_srun_args_read(sm_srun_args *a)
{
    memset(a, 0, sizeof(*a));
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
    sm_srun_args_parse(a, argc, argv);
    free(argv);
    free(buf);
    return 0;
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
    if (a->bad[0])
        return smp_error_set(err, SMP_ERR_INPUT, "%s", a->bad);
    if (a->nodelist)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "-w/--nodelist and -F/--nodefile cannot be combined with --stencil-map "
                             "(srun then ignores the plan's hostfile); narrow the allocation with "
                             "salloc -w instead, or use -N");
    smp_status s = smp_nodes_parse(nodes, hl, cpus, err);
    if (s)
        return s;
    const char *nt = getenv("SLURM_NTASKS");
    if (!nt)
        nt = getenv("SLURM_NPROCS");
    if (nt) {
        char *end;
        errno = 0;
        long long v = strtoll(nt, &end, 10);
        if (!errno && end != nt && !*end && v > 0 && v <= SMP_MAX_RANKS)
            *job_ntasks = v;
    }
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
        if (a->cpus_per_task > 1)
            c /= a->cpus_per_task;
        if (a->ntasks_per_node && c > a->ntasks_per_node)
            c = a->ntasks_per_node;
        nodes->slots[i] = (int32_t)c;
        nodes->total_slots += c;
    }
    return SMP_OK;
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
