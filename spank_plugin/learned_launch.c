/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun --stencil-map=learn (see learned_launch.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "learned_entry.h"
#include "learned_judge.h"
#include "learned_launch.h"
#include "learned_lookup.h"
#include "learned_store.h"
#include "private_dir.h"
#include "profile_launch.h"

#define LEARN "learn"

bool sm_learned_requested(const char *spec)
{
    return spec && !strcmp(spec, LEARN);
}

bool sm_learned_seen(const sm_learned *L, const char *spec, sm_spec_source src)
{
    return L->active && L->source == src && sm_learned_requested(spec) &&
           L->action != SM_LEARNED_PLACE; /* a placed one is the step's (same spec text) */
}

/* "stencil-map: learn: ..." on srun's standard error; notes only without -Q */
__attribute__((format(printf, 3, 4))) static void say(const sm_learned *L, bool note,
                                                      const char *fmt, ...)
{
    if (note && L->quiet)
        return;
    char line[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "stencil-map: learn: %s\n", line);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The step's task count as srun will take it, before launch: -n, else
 * the job's SLURM_NTASKS where srun takes it; 0 when only srun knows
 * (its default of one task per node, --ntasks-per-node). */
static int64_t predicted_tasks(const sm_srun_args *a)
{
    if (a->ntasks)
        return a->ntasks;
    if (a->nnodes || a->ntasks_per_node)
        return 0;
    const char *nt = getenv("SLURM_NTASKS");
    if (!nt)
        nt = getenv("SLURM_NPROCS");
    char *end;
    errno = 0;
    long long v = nt ? strtoll(nt, &end, 10) : 0;
    return nt && !errno && end != nt && !*end && v > 0 && v <= SMP_MAX_RANKS ? v : 0;
}

static sm_learned_action blocked(sm_learned *L)
{
    sm_env_clear();
    L->action = SM_LEARNED_BLOCKED;
    return SM_LEARNED_BLOCKED;
}

/* The program of srun's command line and its key; false (said) if none. */
static bool find_program(sm_learned *L, const sm_srun_args *a)
{
    char msg[1200];
    if (a->multi_prog) {
        say(L, true, "--multi-prog runs a program per task: launched blocked, not learned");
        return false;
    }
    if (a->command_unsure) {
        say(L, false,
            "cannot tell which word of srun's command line is the program (an option srun's table "
            "lacks, written '--name value'; write it --name=value): launched blocked");
        return false;
    }
    if (!a->command[0]) {
        say(L, false, "srun's command line names no program (or could not be read): launched "
                      "blocked, not learned");
        return false;
    }
    if (learned_app_resolve(a->command, a->chdir[0] ? a->chdir : NULL, getenv("PATH"), L->exe,
                            sizeof(L->exe), msg, sizeof(msg))) {
        say(L, false, "%s: launched blocked, not learned", msg);
        return false;
    }
    learned_app app;
    if (learned_app_key(L->exe, &app, msg, sizeof(msg))) {
        say(L, false, "%s: launched blocked, not learned", msg);
        return false;
    }
    snprintf(L->key, sizeof(L->key), "%s", app.key);
    return true;
}

/* A fresh profile directory in the store, exported to the tasks. */
static sm_learned_action profile(sm_learned *L, const learned_store *s)
{
    char msg[1200];
    if (learned_store_profile_dir(s, L->profile_dir, sizeof(L->profile_dir), msg, sizeof(msg))) {
        say(L, false, "%s: launched blocked, not learned", msg);
        L->profile_dir[0] = '\0';
        return blocked(L);
    }
    if (sm_profile_export(L->profile_dir)) {
        sm_private_dir_remove(L->profile_dir);
        L->profile_dir[0] = '\0';
        return blocked(L);
    }
    L->action = SM_LEARNED_PROFILE;
    return SM_LEARNED_PROFILE;
}

static void remember_origin(sm_learned *L, const learned_found *f)
{
    const learned_entry *e = &f->entry;
    L->from_job = e->job;
    L->from_step = e->step;
    L->from_ranks = e->ranks;
    snprintf(L->from_date, sizeof(L->from_date), "%.10s", e->date);
    snprintf(L->from_source, sizeof(L->from_source), "%s", e->grid_source);
    L->regridded = f->regridded;
}

/* What the store's answer means for this step. */
static sm_learned_action act_on(sm_learned *L, const learned_store *s, learned_found *f, char **json)
{
    const char *app = base_name(L->exe);
    switch (f->kind) {
    case LEARNED_FOUND_SPEC:
        if (!getenv("SLURM_JOB_NODELIST")) {
            say(L, true,
                "a spec of %s is stored, but srun is not inside an allocation (a placement needs "
                "the nodes before launch): launched blocked",
                app);
            return blocked(L);
        }
        remember_origin(L, f);
        *json = f->spec_json;
        f->spec_json = NULL;
        L->action = SM_LEARNED_PLACE;
        return SM_LEARNED_PLACE;
    case LEARNED_FOUND_NOT_STENCIL:
        say(L, true, "%s is not a stencil code: %s (learned %.10s); launched blocked until %.10s", app,
            f->entry.reason, f->entry.date, f->entry.expires);
        return blocked(L);
    case LEARNED_FOUND_BAD:
        say(L, false, "WARNING: %s: launched blocked (stencil-map learned forget %s removes it)",
            f->msg, L->exe);
        return blocked(L);
    case LEARNED_FOUND_OTHER_RANKS:
        if (!L->predicted) {
            say(L, true,
                "%s was learned on %" PRId64 " ranks; this step's task count is srun's default, not "
                "known before launch (give -n): launched blocked",
                app, f->other_ranks);
            return blocked(L);
        }
        say(L, true,
            "%s was learned on %" PRId64 " ranks with a grid of its own, this step has %" PRId64
            ": launched blocked, and learning again",
            app, f->other_ranks, L->predicted);
        break;
    case LEARNED_FOUND_NONE:
        break;
    }
    L->replace_verdict = f->expired_verdict;
    sm_learned_action act = profile(L, s);
    if (act == SM_LEARNED_PROFILE)
        say(L, true, "first run of %s: profiled, launched blocked; its spec is learned when srun ends",
            L->exe);
    return act;
}

sm_learned_action sm_learned_decide(sm_learned *L, const sm_policy *pol, const sm_srun_args *a,
                                    sm_spec_source src, char **json)
{
    memset(L, 0, sizeof(*L));
    L->active = true;
    L->source = src;
    L->quiet = a->quiet;
    *json = NULL;
    snprintf(L->site_root, sizeof(L->site_root), "%s", pol->learned_dir);
    if (!find_program(L, a))
        return blocked(L);
    learned_store s;
    char msg[1200];
    if (learned_store_open(&s, L->site_root, true, msg, sizeof(msg))) {
        say(L, false, "WARNING: the store of learned specs: %s: launched blocked", msg);
        return blocked(L);
    }
    L->predicted = predicted_tasks(a);
    learned_found f;
    learned_lookup(&s, L->key, L->predicted, time(NULL), &f);
    sm_learned_action act = act_on(L, &s, &f, json);
    learned_found_free(&f);
    learned_store_close(&s);
    return act;
}

void sm_learned_label(const sm_learned *L, sm_step *st)
{
    if (!L->active || L->action != SM_LEARNED_PLACE || !st->placed)
        return;
    char dims[256] = "", from[96];
    size_t at = 0;
    for (int d = 0; d < st->spec.grid.ndims && at < sizeof(dims); d++)
        at += (size_t)snprintf(dims + at, sizeof(dims) - at, "%s%" PRId64, d ? "x" : "",
                               st->spec.grid.dims[d]);
    if (L->from_job >= 0)
        snprintf(from, sizeof(from), "job %" PRId64 ".%" PRId64 ", %s", L->from_job,
                 L->from_step < 0 ? (int64_t)0 : L->from_step, L->from_date);
    else
        snprintf(from, sizeof(from), "%s", L->from_date);
    if (L->regridded)
        snprintf(st->label, sizeof(st->label),
                 "learned spec of %.200s (%" PRId64 " ranks, %s), grid %.100s by MPI_Dims_create for %" PRId64
                 " ranks",
                 base_name(L->exe), L->from_ranks, from, dims, st->pl.ranks);
    else
        snprintf(st->label, sizeof(st->label), "learned spec of %.200s (%s), grid %.100s from %s",
                 base_name(L->exe), from, dims, L->from_source);
}

void sm_learned_started(sm_learned *L, spank_t sp)
{
    if (!L->active || L->action != SM_LEARNED_PROFILE)
        return;
    L->started = spank_get_item(sp, S_JOB_ID, &L->job) == ESPANK_SUCCESS &&
                 spank_get_item(sp, S_JOB_STEPID, &L->step) == ESPANK_SUCCESS;
    if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &L->ntasks) != ESPANK_SUCCESS)
        L->ntasks = 0;
}

/* Stores e, dropping an expired verdict; says what happened. */
static void store(sm_learned *L, learned_entry *e, const char *why)
{
    learned_store s;
    char msg[1200];
    const char *app = base_name(L->exe);
    if (learned_store_open(&s, L->site_root, true, msg, sizeof(msg))) {
        say(L, false, "WARNING: nothing stored: %s", msg);
        return;
    }
    char verdict[LEARNED_KEY_MAX + 64];
    learned_entry_name(verdict, sizeof(verdict), L->key, LEARNED_NOT_STENCIL, 0);
    if (L->replace_verdict || e->kind == LEARNED_NOT_STENCIL) {
        /* only an expired one can be there: a standing verdict is never profiled */
        learned_entry old;
        if (!learned_entry_read_at(s.fd, s.path, verdict, &old, msg, sizeof(msg))) {
            if (old.expires_at <= time(NULL))
                unlinkat(s.fd, verdict, 0);
            learned_entry_free(&old);
        }
    }
    int rc = learned_entry_write_at(s.fd, s.path, e, msg, sizeof(msg));
    if (rc < 0)
        say(L, false, "WARNING: nothing stored: %s", msg);
    else if (rc > 0)
        say(L, true, "another run of %s stored its %s first; kept that one", app,
            e->kind == LEARNED_SPEC ? "spec" : "verdict");
    else if (e->kind == LEARNED_SPEC) {
        char dims[128];
        learned_entry_dims(e, dims, sizeof(dims));
        say(L, true,
            "learned from this run (job %u.%u) of %s: grid %s from %s, %s; its next runs are placed "
            "by it",
            L->job, L->step, app, dims, e->grid_source, why);
    } else {
        say(L, true, "%s: its runs launch blocked, unprofiled, until %.10s (stencil-map learned forget %s "
                     "to learn again sooner)",
            why, e->expires, app);
    }
    learned_store_close(&s);
}

void sm_learned_finish(sm_learned *L)
{
    if (!L->active || L->action != SM_LEARNED_PROFILE || !L->profile_dir[0])
        return;
    const char *app = base_name(L->exe);
    int64_t ranks = L->ntasks ? L->ntasks : L->predicted;
    learned_entry e;
    learned_entry_init(&e);
    snprintf(e.key, sizeof(e.key), "%s", L->key);
    snprintf(e.executable, sizeof(e.executable), "%s", L->exe);
    e.job = L->started ? (int64_t)L->job : -1;
    e.step = L->started ? (int64_t)L->step : -1;
    char why[800];
    learned_judgement j = LEARNED_JUDGED_FAILED;
    if (!L->started || ranks <= 0)
        snprintf(why, sizeof(why), "the step never started");
    else
        j = learned_judge(L->profile_dir, ranks, time(NULL), &e, why, sizeof(why));
    if (j == LEARNED_JUDGED_FAILED)
        say(L, true, "nothing learned from this run of %s: %s; its next run is profiled again", app,
            why);
    else
        store(L, &e, why);
    learned_entry_free(&e);
    sm_private_dir_remove(L->profile_dir);
    L->profile_dir[0] = '\0';
    L->active = false;
}

void sm_learned_release(sm_learned *L)
{
    if (L->profile_dir[0])
        sm_private_dir_remove(L->profile_dir);
    memset(L, 0, sizeof(*L));
}

int sm_learned_allocator(void)
{
    return setenv("STENCIL_MAP_SPEC", LEARN, 1) ? -1 : 0;
}
