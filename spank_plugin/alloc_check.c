/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The job's allocation as slurmctld knows it now: its node list, its
 * partition (plugin only: it needs libslurm, which srun has loaded). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include "alloc_check.h"

static int listed(char **names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

/* 26.05 looks an allocation up by step id; the job's own, any step */
static int lookup(uint32_t job, resource_allocation_response_msg_t **resp)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
    slurm_step_id_t id = {.job_id = job, .step_het_comp = NO_VAL, .step_id = NO_VAL};
    return slurm_allocation_lookup(id, resp);
#else
    return slurm_allocation_lookup(job, resp);
#endif
}

/* The job of SLURM_JOB_ID as slurmctld allocated it: the lookup srun makes
 * itself for a step in an existing allocation, lighter than a job info
 * query.  NULL with a message when there is none. */
static resource_allocation_response_msg_t *current(unsigned long *job, char *msg, size_t n)
{
    const char *id = getenv("SLURM_JOB_ID");
    char *end;
    errno = 0;
    *job = id ? strtoul(id, &end, 10) : 0;
    if (!id || errno || end == id || *end || *job == 0 || *job > UINT32_MAX) {
        snprintf(msg, n, "SLURM_JOB_ID '%.40s' is not a job id", id ? id : "");
        return NULL;
    }
    resource_allocation_response_msg_t *resp = NULL;
    if (lookup((uint32_t)*job, &resp) != SLURM_SUCCESS || !resp) {
        /* libslurm leaves its error in errno (slurm_get_errno, which only
         * returned it, is gone from 24.11 on) */
        int e = errno;
        snprintf(msg, n, "cannot ask slurmctld about job %lu: %s", *job, slurm_strerror(e));
        if (resp)
            slurm_free_resource_allocation_response_msg(resp);
        return NULL;
    }
    return resp;
}

int sm_alloc_partition(char **part, char *msg, size_t n)
{
    unsigned long job;
    *part = NULL;
    resource_allocation_response_msg_t *resp = current(&job, msg, n);
    if (!resp)
        return -1;
    int rc = 0;
    if (!resp->partition || !resp->partition[0]) {
        snprintf(msg, n, "slurmctld names no partition for job %lu", job);
        rc = -1;
    } else if (!(*part = strdup(resp->partition))) { /* any length Slurm takes */
        snprintf(msg, n, "job %lu: out of memory", job);
        rc = -1;
    }
    slurm_free_resource_allocation_response_msg(resp);
    return rc;
}

int sm_alloc_check_current(const smp_nodes *nodes, char *msg, size_t n)
{
    unsigned long job;
    resource_allocation_response_msg_t *resp = current(&job, msg, n);
    if (!resp)
        return -1;
    const char *now = resp->node_list ? resp->node_list : "";
    char **cur = NULL;
    int ncur = 0;
    smp_error err;
    int rc = 0;
    if (smp_hostlist_expand(now, &cur, &ncur, &err) != SMP_OK) {
        snprintf(msg, n, "job %lu: cannot read its node list '%.200s'", job, now);
        rc = -1;
    } else {
        /* every node the plan may use must still belong to the job */
        char gone[512] = "";
        size_t off = 0;
        for (int i = 0; i < nodes->count; i++)
            if (!listed(cur, ncur, nodes->names[i]) && off < sizeof(gone))
                off += (size_t)snprintf(gone + off, sizeof(gone) - off, "%s%s", off ? "," : "",
                                        nodes->names[i]);
        if (off) {
            snprintf(msg, n, "the allocation changed: job %lu no longer has %.300s (its nodes "
                     "are now %.200s)", job, gone, now[0] ? now : "none");
            rc = -1;
        }
        for (int i = 0; i < ncur; i++)
            free(cur[i]);
        free(cur);
    }
    slurm_free_resource_allocation_response_msg(resp);
    return rc;
}
