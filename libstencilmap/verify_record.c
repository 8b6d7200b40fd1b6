/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The in-job verification result, kept next to the step's audit record so
 * that `stencil-map audit` can say what the job itself observed.
 *
 * The record directory <record_dir>/<user>/ belongs to the user (the
 * plugin made it 0700), so the user's own task can write there; nothing
 * here runs with more rights than the task.  The file's format, name and
 * atomic write belong to the record module (record/smr_verify.h); this
 * file only gathers what the context knows into it. */
#include <stdlib.h>
#include <string.h>

#include "smr_names.h"
#include "smr_verify.h"
#include "stencilmap.h"
#include "stencilmap_internal.h"

#define RECORD_ENV "STENCIL_MAP_RECORD"

/* A decimal id from the environment (-1, written null, when unset or odd). */
static int64_t env_id(const char *name)
{
    const char *v = getenv(name);
    size_t n = v ? strspn(v, "0123456789") : 0;
    return v && n > 0 && n <= 10 && v[n] == '\0' ? strtoll(v, NULL, 10) : -1;
}

static void free_rank_nodes(smr_verify *v)
{
    for (int64_t r = 0; r < v->rank_nodes_count; r++)
        free(v->rank_nodes[r]);
    free(v->rank_nodes);
}

/* Every rank's node as the ranks themselves published it (stencilmap.node). */
static stencilmap_status gather_rank_nodes(stencilmap_ctx *ctx, smr_verify *v, char *msg,
                                           size_t len)
{
    int64_t size = stencilmap_size(ctx);
    v->rank_nodes = calloc(size > 0 ? (size_t)size : 1, sizeof(char *));
    if (!v->rank_nodes)
        return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
    v->has_rank_nodes = true;
    char node[256];
    for (int64_t r = 0; r < size; r++) {
        stencilmap_status st = stencilmap_get_node(ctx, r, node, sizeof(node));
        if (st)
            return sm_msg(msg, len, st, "rank %lld's node: %s", (long long)r,
                          stencilmap_errmsg(ctx));
        if (!(v->rank_nodes[r] = strdup(node)))
            return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
        v->rank_nodes_count = r + 1;
    }
    return STENCILMAP_OK;
}

/* What was measured: figures, coordinates, per-node counts, rank nodes. */
static stencilmap_status fill_measured(stencilmap_ctx *ctx, const stencilmap_verify_result *res,
                                       smr_verify *v, smr_verify_node *nodes, char *msg,
                                       size_t len)
{
    v->has_observed = true;
    v->has_planned = res->has_planned != 0;
    v->planned_j_sum = res->planned_jsum;
    v->planned_j_max = res->planned_jmax;
    v->observed_j_sum = res->observed_jsum;
    v->observed_j_max = res->observed_jmax;
    v->observed_w_sum = res->observed_wsum;
    v->observed_w_max = res->observed_wmax;
    v->coords_checked = res->coords_checked;
    v->coords_wrong = res->coords_wrong;
    for (int i = 0; i < res->nnodes; i++)
        nodes[i] = (smr_verify_node){res->node_names[i], res->node_ranks[i], res->node_edges[i]};
    v->nnodes = res->nnodes;
    v->nodes = nodes;
    v->nlevels = res->nlevels < SMR_VERIFY_MAX_LEVELS ? res->nlevels : SMR_VERIFY_MAX_LEVELS;
    for (int l = 0; l < v->nlevels; l++)
        v->levels[l] = (smr_verify_level){
            res->has_level_planned ? res->level_planned_jsum[l] : -1,
            res->has_level_planned ? res->level_planned_jmax[l] : -1,
            res->level_observed_jsum[l], res->level_observed_jmax[l]};
    return gather_rank_nodes(ctx, v, msg, len);
}

stencilmap_status stencilmap_verify_record(stencilmap_ctx *ctx, stencilmap_status status,
                                           const stencilmap_verify_result *res, char *path,
                                           size_t pathlen, char *msg, size_t len)
{
    if (path && pathlen)
        path[0] = '\0';
    if (!ctx || !res)
        return sm_msg(msg, len, STENCILMAP_ERR_ARG, "stencilmap_verify_record: NULL argument");
    const char *record = getenv(RECORD_ENV);
    if (!record || !*record)
        return sm_msg(msg, len, STENCILMAP_ERR_NOENV,
                      RECORD_ENV " is not set (the step has no audit record)");
    smr_verify *v = calloc(1, sizeof(*v));
    smr_verify_node *nodes = calloc(res->nnodes > 0 ? (size_t)res->nnodes : 1, sizeof(*nodes));
    stencilmap_status st = STENCILMAP_OK;
    if (!v || !nodes)
        st = sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
    if (!st) {
        const stencilmap_place *pl = stencilmap_get_place(ctx);
        v->job_id = env_id("SLURM_JOB_ID");
        v->step_id = env_id("SLURM_STEP_ID");
        snprintf(v->record, sizeof(v->record), "%s", record);
        smr_time_now(v->time, sizeof(v->time));
        snprintf(v->writer, sizeof(v->writer), "libstencilmap");
        v->status = status == STENCILMAP_OK         ? SMR_VERIFY_OK
                    : status == STENCILMAP_ERR_MISMATCH ? SMR_VERIFY_MISMATCH
                                                        : SMR_VERIFY_ERROR;
        snprintf(v->message, sizeof(v->message), "%s", status == STENCILMAP_OK ? "" : stencilmap_errmsg(ctx));
        v->ranks = stencilmap_size(ctx);
        if (pl)
            snprintf(v->algorithm, sizeof(v->algorithm), "%s", pl->algorithm);
        if (v->status != SMR_VERIFY_ERROR)
            st = fill_measured(ctx, res, v, nodes, msg, len);
    }
    if (!st) {
        int rc = smr_verify_store(record, RECORD_ENV, v, path, pathlen, msg, len);
        st = rc == -1 ? STENCILMAP_ERR_ENV : rc ? STENCILMAP_ERR_IO : STENCILMAP_OK;
    }
    if (v)
        free_rank_nodes(v);
    free(v);
    free(nodes);
    return st;
}
