/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun's options, as srun of every supported Slurm release (22.05 to
 * 26.05) parses them: the union of the srun entries of common_options[]
 * in Slurm's src/common/slurm_opt.c, by whether they take a required
 * argument.  An option that needs its value as the next word must be
 * known to read srun's command line as srun does; an option missing here
 * is not misread silently (see alloc.c).  The names are facts about srun,
 * collected from each release's source. */
#include <stddef.h>
#include <string.h>

#include "srun_options.h"

/* getopt_long "name=required_argument": "--name value" takes the next word */
const char *const sm_srun_long_with_arg[] = {
    "accel-bind", "account", "acctg-freq", "autocomplete", "bb", "bbf", "bcast-exclude",
    "begin", "chdir", "cluster", "cluster-constraint", "clusters", "comment", "constraint",
    "container", "container-id", "container-type", "context", "core-spec",
    "cores-per-socket", "cpu-bind", "cpu-freq", "cpu_bind", "cpus-per-gpu", "cpus-per-task",
    "deadline", "delay-boot", "dependency", "distribution", "epilog", "error", "exclude",
    "export", "extra", "extra-node-info", "gid", "gpu-bind", "gpu-freq", "gpus",
    "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres", "gres-flags", "het-group",
    "hint", "ignore-signals", "input", "job-name", "jobid", "licenses", "mail-type",
    "mail-user", "mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu", "mem-update",
    "mincpus", "mpi", "msg-timeout", "network", "nodefile", "nodelist", "nodes", "ntasks",
    "ntasks-per-core", "ntasks-per-gpu", "ntasks-per-node", "ntasks-per-socket",
    "ntasks-per-tres", "open-mode", "output", "pack-group", "partition", "power", "prefer",
    "priority", "profile", "prolog", "qos", "relative", "reservation", "resources",
    "segment", "signal", "slurmd-debug", "sockets-per-node", "switches", "task-epilog",
    "task-prolog", "tasks-per-node", "thread-spec", "threads", "threads-per-core", "time",
    "time-min", "tmp", "treewidth", "tres-bind", "tres-per-task", "uid", "wait", "wckey",
    NULL,
};

/* no argument or an optional one ("--name[=value]"): never the next word */
const char *const sm_srun_long_without_arg[] = {
    "async", "bcast", "compress", "consolidate-segments", "contiguous", "debugger-test",
    "disable-status", "exact", "exclusive", "external-launcher", "help", "hold",
    "immediate", "interactive", "kill-on-bad-exit", "label", "multi-prog", "nice",
    "no-allocate", "no-kill", "oom-kill-step", "overcommit", "overlap", "oversubscribe",
    "parsable", "preserve-env", "propagate", "pty", "quiet", "quit-on-interrupt", "reboot",
    "resv-ports", "send-libs", "spread-job", "spread-segments", "stepmgr", "test-only",
    "unbuffered", "usage", "use-min-nodes", "verbose", "version", "wait-for-children",
    "whole", "x11", NULL,
};

/* short options with an argument ("-n4", "-n 4"); the others take none */
const char sm_srun_short_with_arg[] = "ABCDFGJLMNSTWbcdeimnopqrtwx";

static int matches(const char *const *list, const char *name, size_t len, const char **full,
                   int *prefixes, const char **prefix_full)
{
    for (int i = 0; list && list[i]; i++) {
        if (strncmp(list[i], name, len))
            continue;
        if (list[i][len] == '\0') {
            *full = list[i];
            return 1;
        }
        if ((*prefixes)++ == 0)
            *prefix_full = list[i];
    }
    return 0;
}

sm_opt_kind sm_srun_option_lookup(const char *name, size_t len, const char *const *extra,
                                  const char **full)
{
    int with = 0, without = 0;
    const char *with_full = NULL, *without_full = NULL;
    *full = NULL;
    if (len == 0)
        return SM_OPT_UNKNOWN;
    if (matches(sm_srun_long_with_arg, name, len, full, &with, &with_full) ||
        matches(extra, name, len, full, &with, &with_full))
        return SM_OPT_WITH_ARG;
    if (matches(sm_srun_long_without_arg, name, len, full, &without, &without_full))
        return SM_OPT_WITHOUT_ARG;
    /* an abbreviation of exactly one option; srun itself refuses one that
     * fits several, so what it would have meant does not matter */
    if (with + without != 1)
        return SM_OPT_UNKNOWN;
    *full = with ? with_full : without_full;
    return with ? SM_OPT_WITH_ARG : SM_OPT_WITHOUT_ARG;
}
