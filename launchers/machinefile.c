/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpich: a machine file for MPICH's Hydra (mpiexec -f FILE), one
 * "HOST:COUNT" line per run of consecutive ranks on one node:
 *
 *     node1:4        ranks 0-3
 *     node2:4        ranks 4-7
 *     node1:4        ranks 8-11, node1 again
 *
 * Why runs, and why it keeps the order (MPICH 4.0's Hydra, read in
 * src/pm/hydra): the file's lines become a list of nodes in file order,
 * a line naming the same host as the line before adds its count to that
 * node (utils/others/others.c), so "host:1" per rank and runs are the same
 * list; each node of the list gets one proxy, and the proxies take the
 * ranks in list order, COUNT at a time (utils/alloc/alloc.c), so rank r
 * runs on the node of its run as long as -n is the plan's rank count.  A
 * host met again further down gets a proxy of its own.
 *
 * The proxies must start where their line says.  Hydra's ssh and rsh
 * launchers start each on its host; its Slurm launcher does not: it starts
 * all of them with one srun and lets each take its place from SLURM_NODEID,
 * so the first line's ranks run on the first node of the job, whatever the
 * line names, and a host named twice makes srun ask for more nodes than
 * there are.  Inside Slurm, mpiexec -launcher rsh -launcher-exec hydra-srun
 * starts each proxy as a one-task step on its host instead. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "launchers.h"

smp_status sml_write_machinefile(FILE *out, const sml_plan *p, smp_error *err)
{
    const smp_placement *pl = p->pl;
    int64_t runs = 0;
    for (int64_t r = 0; r < pl->ranks; r++)
        runs += r == 0 || pl->node_of_rank[r] != pl->node_of_rank[r - 1];
    bool bad = fprintf(out,
                       "# MPICH Hydra machine file from stencil-map%s%s: %lld ranks on %d nodes "
                       "in %lld runs\n# mpiexec -f FILE -n %lld (rank order: runs of HOST:COUNT)\n",
                       p->title ? ", " : "", p->title ? p->title : "", (long long)pl->ranks,
                       p->nodes->count, (long long)runs, (long long)pl->ranks) < 0;
    for (int64_t r = 0; r < pl->ranks && !bad;) {
        int64_t end = r + 1;
        while (end < pl->ranks && pl->node_of_rank[end] == pl->node_of_rank[r])
            end++;
        bad = fprintf(out, "%s:%lld\n", p->nodes->names[pl->node_of_rank[r]],
                      (long long)(end - r)) < 0;
        r = end;
    }
    return bad ? smp_error_set(err, SMP_ERR_SYSTEM, "MPICH machine file: write failed") : SMP_OK;
}

/* "HOST" or "HOST:COUNT", nothing after it */
smp_status sml_read_machinefile(FILE *in, const smp_nodes *given, sml_read_result *r,
                                smp_error *err)
{
    (void)given;
    const char *what = "MPICH machine file";
    char line[1024];
    int64_t lineno = 0;
    int got;
    while ((got = sml_getline(in, line, sizeof(line), &lineno, what, err)) > 0) {
        line[strcspn(line, "#")] = '\0'; /* Hydra cuts comments the same way */
        char *t = line + strspn(line, " \t");
        size_t len = strcspn(t, " \t");
        if (len == 0)
            continue;
        if (t[len + strspn(t + len, " \t")] != '\0')
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "%s: line %lld: expected HOST[:COUNT] alone, got '%.80s'", what,
                                 (long long)lineno, t);
        t[len] = '\0';
        long long count = 1;
        char *colon = strchr(t, ':');
        if (colon) {
            char *end;
            *colon = '\0';
            count = isdigit((unsigned char)colon[1]) ? strtoll(colon + 1, &end, 10) : 0;
            if (count < 1 || *end || count > SMP_MAX_RANKS)
                return smp_error_set(err, SMP_ERR_INPUT,
                                     "%s: line %lld: the count after '%s:' must be a positive "
                                     "integer, not '%.40s'",
                                     what, (long long)lineno, t, colon + 1);
        }
        if (!*t)
            return smp_error_set(err, SMP_ERR_INPUT, "%s: line %lld: no host before ':'", what,
                                 (long long)lineno);
        int idx = sml_node_index(r, t, err);
        if (idx < 0)
            return err->status;
        for (long long k = 0; k < count; k++) {
            smp_status s = sml_push_rank(r, idx, err);
            if (s)
                return s;
        }
    }
    if (got < 0)
        return err->status;
    if (r->ranks == 0)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: no host in the file", what);
    return SMP_OK;
}
