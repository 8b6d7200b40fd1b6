/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reorder library's audit record: what rank 0 of a reordering
 * MPI_Cart_create planned, written in the plugin's record format
 * (record/smr_record.h) with an "origin" saying who wrote it, so that
 * `stencil-map audit FILE` reads and re-scores it like any other.
 *
 * Where: $STENCIL_MAP_RECORD_DIR/<user>/, else beside the plugin's own
 * record of the step ($STENCIL_MAP_RECORD, which the plugin exports when
 * its site policy has record_dir=: that is the directory <record_dir>/<user>).
 * Named <job>.<step>.reorder-<n>.json (<job>.nostep-<pid>.reorder-<n>.json
 * in a job without a step id, nojob-<pid>.reorder-<n>.json outside Slurm),
 * n the first free number from 1, linked atomically (smr_atomic.h), so
 * several calls and several programs of a step never clash.  A record that
 * cannot be written is one line on stderr: the call has succeeded anyway. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mpix/mpix_internal.h"
#include "private_dir.h"
#include "reorder_record.h"
#include "smr_atomic.h"
#include "smr_record.h"

#define DIR_ENV "STENCIL_MAP_RECORD_DIR"
#define PLUGIN_RECORD_ENV "STENCIL_MAP_RECORD"
#define NAME_TRIES 10000

/* a decimal id from the environment; -1 when unset or not one */
static int64_t env_id(const char *name)
{
    const char *v = getenv(name);
    size_t n = v ? strspn(v, "0123456789") : 0;
    return v && n > 0 && n <= 10 && v[n] == '\0' ? strtoll(v, NULL, 10) : -1;
}

struct naming {
    int64_t job, step;
    long pid;
};

static void name_of(int k, char *name, size_t n, const void *arg)
{
    const struct naming *nm = arg;
    if (nm->job < 0)
        snprintf(name, n, "nojob-%ld.reorder-%d.json", nm->pid, k + 1);
    else if (nm->step < 0)
        snprintf(name, n, "%lld.nostep-%ld.reorder-%d.json", (long long)nm->job, nm->pid, k + 1);
    else
        snprintf(name, n, "%lld.%lld.reorder-%d.json", (long long)nm->job, (long long)nm->step,
                 k + 1);
}

static int emit(FILE *f, const void *arg, char *msg, size_t n)
{
    if (fputs(arg, f) != EOF && fputc('\n', f) != EOF)
        return 0;
    snprintf(msg, n, "write failed");
    return -1;
}

/* the directory to write into, opened and checked as the plugin checks
 * its own: <dir>/<user>, made 0700 when new; or the plugin's record's
 * directory.  -2: no record asked for; -1 with msg; else the descriptor. */
static int open_dir(const char *user, char *path, size_t pn, char *msg, size_t n)
{
    const char *dir = getenv(DIR_ENV), *plugin = getenv(PLUGIN_RECORD_ENV);
    if (dir && *dir) {
        int rfd = sm_dir_open(dir, SM_DIR_SHARED, msg, n);
        if (rfd < 0)
            return -1;
        snprintf(path, pn, "%s/%s", dir, user);
        int ufd = sm_subdir_open_private(rfd, path, user, msg, n);
        close(rfd);
        return ufd;
    }
    const char *slash = plugin ? strrchr(plugin, '/') : NULL;
    if (!slash || slash == plugin)
        return -2;
    snprintf(path, pn, "%.*s", (int)(slash - plugin), plugin);
    return sm_dir_open(path, SM_DIR_PRIVATE, msg, n);
}

static void fill_head(smr_record *rec, const smx_request *rq, const char *user)
{
    smr_record_init(rec);
    rec->job_id = env_id("SLURM_JOB_ID");
    rec->step_id = rec->job_id < 0 ? SMR_NO_STEP : env_id("SLURM_STEP_ID");
    if (rec->step_id < 0)
        rec->step_id = SMR_NO_STEP;
    if (rec->job_id < 0)
        rec->job_id = 0; /* outside Slurm: job 0, no step */
    snprintf(rec->user, sizeof(rec->user), "%s", user);
    rec->uid = getuid();
    smr_time_now(rec->time, sizeof(rec->time));
    /* the call as the application made it: "MPI_Cart_create(reorder=1):
     * dims 4x8, periods 1,0, stencil nearest" */
    size_t at = (size_t)snprintf(rec->spec, sizeof(rec->spec), "%s(reorder=1): dims ",
                                 rq->caller);
    for (int i = 0; i < rq->ndims && at < sizeof(rec->spec); i++)
        at += (size_t)snprintf(rec->spec + at, sizeof(rec->spec) - at, "%s%d", i ? "x" : "",
                               rq->dims[i]);
    for (int i = 0; i < rq->ndims && at < sizeof(rec->spec); i++)
        at += (size_t)snprintf(rec->spec + at, sizeof(rec->spec) - at, "%s%d",
                               i ? "," : ", periods ", rq->periods[i] != 0);
    if (at < sizeof(rec->spec))
        snprintf(rec->spec + at, sizeof(rec->spec) - at, ", stencil %s",
                 rq->offsets ? "given" : rq->family ? rq->family : "nearest");
    snprintf(rec->spec_source, sizeof(rec->spec_source), "reorder");
    snprintf(rec->alg_requested, sizeof(rec->alg_requested), "auto");
    snprintf(rec->objective, sizeof(rec->objective), "%s", smp_objective_name(SMP_OBJ_DEFAULT));
}

/* the placement (node of each new rank), its figures, and the blocked
 * layout's; 0, or -1 with msg */
static int fill_placed(smr_record *rec, const smx_request *rq, const smx_report *rep,
                       char *msg, size_t n)
{
    smp_error err;
    smp_error_clear(&err);
    const smx_nodes *nd = &rep->nodes;
    rec->kind = SMR_KIND_PLACED;
    rec->nodes = (smp_nodes){nd->nnodes, nd->names, nd->slots, nd->size};
    rec->ranks = rec->placement_count = nd->size;
    if (smx_make_grid(rq, &rec->grid, &err) || smx_load_stencil(rq, &rec->stencil, &err)) {
        snprintf(msg, n, "%s", err.msg);
        return -1;
    }
    rec->grid_order_given = true;
    if (!(rec->node_of_rank = malloc(sizeof(int32_t) * (size_t)nd->size))) {
        snprintf(msg, n, "out of memory");
        return -1;
    }
    for (int r = 0; r < nd->size; r++)
        rec->node_of_rank[rep->key[r]] = nd->node_of[r];
    smp_score sc;
    smp_placement bl = {0};
    if (smp_score_compute(&rec->grid, &rec->stencil, rec->node_of_rank, nd->nnodes, &sc, &err) ||
        smp_plan(&rec->grid, &rec->stencil, nd->slots, nd->nnodes, SMP_ALG_BLOCKED, &bl, &err)) {
        snprintf(msg, n, "%s", err.msg);
        return -1;
    }
    rec->j_sum = sc.j_sum;
    rec->j_max = sc.j_max;
    rec->blocked_j_sum = bl.score.j_sum;
    rec->blocked_j_max = bl.score.j_max;
    smp_placement_free(&bl);
    return 0;
}

static void fill_origin(smr_record *rec, const smx_request *rq, const smx_report *rep)
{
    smr_origin *o = &rec->origin;
    snprintf(o->source, sizeof(o->source), "libstencilmap-reorder");
    snprintf(o->call, sizeof(o->call), "%s", rq->caller);
    o->reordered = rep->planned != 0;
    snprintf(o->why, sizeof(o->why), "%s", rep->planned ? "" : rep->why);
    o->planned_j_sum = rep->plan.j_sum;
    o->planned_j_max = rep->plan.j_max;
    o->mpi_j_sum = rep->identity.j_sum;
    o->mpi_j_max = rep->identity.j_max;
    snprintf(rec->alg_used, sizeof(rec->alg_used), "%.31s",
             rep->planned ? rep->algorithm : "mpi-order");
}

static void user_name(char *user, size_t n)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) == 0 && res)
        snprintf(user, n, "%s", pw.pw_name);
    else
        snprintf(user, n, "uid%u", (unsigned)getuid());
}

/* the record built and written; 0 (or 1: none asked for), or -1 with msg */
static int write_record(const smx_request *rq, const smx_report *rep, char *where, size_t wn,
                        char *msg, size_t n)
{
    char user[256], dir[4096];
    user_name(user, sizeof(user));
    int fd = open_dir(user, dir, sizeof(dir), msg, n);
    if (fd == -2)
        return 1;
    if (fd < 0)
        return -1;
    smr_record rec;
    fill_head(&rec, rq, user);
    int rc = fill_placed(&rec, rq, rep, msg, n);
    char *text = NULL, name[160], tmp[96];
    if (!rc) {
        fill_origin(&rec, rq, rep);
        if (!(text = smr_record_dumps(&rec)))
            rc = -1, snprintf(msg, n, "out of memory");
    }
    struct naming nm = {env_id("SLURM_JOB_ID"), rec.step_id, (long)getpid()};
    snprintf(tmp, sizeof(tmp), ".reorder-%ld.tmp", nm.pid);
    if (!rc)
        rc = smr_atomic_write(fd, dir, tmp, emit, text, name_of, &nm, NAME_TRIES, name,
                              sizeof(name), msg, n);
    if (!rc)
        snprintf(where, wn, "%s/%s", dir, name);
    free(text);
    free(rec.node_of_rank);
    smp_stencil_free(&rec.stencil);
    close(fd);
    return rc;
}

void smx_reorder_record(const smx_request *rq, const smx_report *rep)
{
    char msg[700] = "", where[4400];
    const char *v = getenv("STENCIL_MAP_VERBOSE");
    if (!rep->key || !rep->nodes.node_of)
        return; /* not rank 0, or nothing planned */
    int rc = write_record(rq, rep, where, sizeof(where), msg, sizeof(msg));
    if (rc < 0)
        fprintf(stderr, "stencil-map: WARNING: %s: reorder record not written: %s\n", rq->caller,
                msg);
    else if (rc == 0 && v && *v && strcmp(v, "0"))
        fprintf(stderr, "stencil-map: %s: record %s\n", rq->caller, where);
}
