/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The PMIx transport (kvs.h): srun --mpi=pmix, Open MPI's mpirun. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "kvs.h"
#include "stencilmap_internal.h"

/* Gets that are not in the local store after the collecting fence fall back
 * to asking the server, bounded by this many seconds. */
#define GET_TIMEOUT 30

typedef struct {
    pmix_proc_t me;
} pmix_state;

static pmix_state the_state; /* PMIx is one connection per process */

/* The node: SLURMD_NODENAME under srun (Slurm's name, as the plan's), which
 * a launcher that srun started (mpirun's orted) passes on from its own
 * step; else what the PMIx server calls the host; else gethostname(). */
static void find_node(sm_kvs *k)
{
    pmix_state *st = k->state;
    const char *s = getenv("SLURMD_NODENAME");
    if (s && *s) {
        snprintf(k->node, sizeof(k->node), "%s", s);
        return;
    }
    pmix_value_t *val = NULL;
    if (PMIx_Get(&st->me, PMIX_HOSTNAME, NULL, 0, &val) == PMIX_SUCCESS && val) {
        if (val->type == PMIX_STRING && val->data.string && *val->data.string) {
            snprintf(k->node, sizeof(k->node), "%s", val->data.string);
            PMIX_VALUE_RELEASE(val);
            return;
        }
        PMIX_VALUE_RELEASE(val);
    }
    if (gethostname(k->node, sizeof(k->node) - 1) != 0)
        snprintf(k->node, sizeof(k->node), "unknown");
    k->node[sizeof(k->node) - 1] = '\0';
}

static stencilmap_status pmix_init(sm_kvs *k, char *msg, size_t len)
{
    pmix_state *st = &the_state;
    k->state = st;
    pmix_status_t rc = PMIx_Init(&st->me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX,
                      "PMIx_Init: %s (launch with srun --mpi=pmix, mpirun or, through PMI, "
                      "mpiexec)",
                      PMIx_Error_string(rc));
    k->rank = st->me.rank;
    pmix_proc_t wild;
    PMIX_PROC_LOAD(&wild, st->me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || !val || val->type != PMIX_UINT32) {
        if (val)
            PMIX_VALUE_RELEASE(val);
        PMIx_Finalize(NULL, 0);
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMIx_Get(PMIX_JOB_SIZE): %s",
                      rc == PMIX_SUCCESS ? "not a uint32" : PMIx_Error_string(rc));
    }
    k->size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    find_node(k);
    return STENCILMAP_OK;
}

static stencilmap_status pmix_put(sm_kvs *k, const char *key, const char *value, sm_kvs_kind kind,
                                  char *msg, size_t len)
{
    (void)k;
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    switch (kind) {
    case SM_KVS_INT:
        v.type = PMIX_INT;
        v.data.integer = (int)strtol(value, NULL, 10);
        break;
    case SM_KVS_UINT64:
        v.type = PMIX_UINT64;
        v.data.uint64 = strtoull(value, NULL, 10);
        break;
    case SM_KVS_DOUBLE:
        v.type = PMIX_DOUBLE;
        v.data.dval = strtod(value, NULL);
        break;
    default: v.type = PMIX_STRING; v.data.string = (char *)value;
    }
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS)
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMIx_Put(\"%s\"): %s", key,
                      PMIx_Error_string(rc));
    return STENCILMAP_OK;
}

static stencilmap_status pmix_fence(sm_kvs *k, char *msg, size_t len)
{
    (void)k;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMIx_Commit: %s", PMIx_Error_string(rc));
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMIx_Fence: %s", PMIx_Error_string(rc));
    return STENCILMAP_OK;
}

/* the local store first (the data was collected by the fence), then the
 * server with a timeout */
static stencilmap_status pmix_get(sm_kvs *k, int64_t rank, const char *key, char **value, char *msg,
                                  size_t len)
{
    pmix_state *st = k->state;
    pmix_proc_t p;
    PMIX_PROC_LOAD(&p, st->me.nspace, (pmix_rank_t)rank);
    pmix_info_t info;
    bool yes = true;
    pmix_value_t *val = NULL;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &val);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        int timeout = GET_TIMEOUT;
        PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
        rc = PMIx_Get(&p, key, &info, 1, &val);
        PMIX_INFO_DESTRUCT(&info);
    }
    if (rc != PMIX_SUCCESS)
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMIx_Get(rank %lld, \"%s\"): %s",
                      (long long)rank, key, PMIx_Error_string(rc));
    stencilmap_status s = STENCILMAP_OK;
    char num[40];
    const char *text = num;
    switch (val->type) {
    case PMIX_STRING: text = val->data.string; break;
    case PMIX_INT: snprintf(num, sizeof(num), "%d", val->data.integer); break;
    case PMIX_UINT32: snprintf(num, sizeof(num), "%u", (unsigned)val->data.uint32); break;
    case PMIX_UINT64:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)val->data.uint64);
        break;
    case PMIX_DOUBLE: snprintf(num, sizeof(num), "%.17g", val->data.dval); break;
    default: text = NULL;
    }
    if (!text)
        s = sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMIx_Get(rank %lld, \"%s\"): unexpected type %d",
                   (long long)rank, key, (int)val->type);
    else if (!(*value = strdup(text)))
        s = sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
    PMIX_VALUE_RELEASE(val);
    return s;
}

static stencilmap_status pmix_finalize(sm_kvs *k)
{
    (void)k;
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? STENCILMAP_OK : STENCILMAP_ERR_PMIX;
}

const sm_kvs_ops sm_kvs_pmix = {"PMIx", pmix_init, pmix_put, pmix_fence, pmix_get, pmix_finalize};
