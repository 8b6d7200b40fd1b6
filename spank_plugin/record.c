/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's side of the audit record: what the step did, gathered into
 * the record module's struct (record/smr_record.h), which owns the
 * format, the file's name and its atomic write.  Here: the user, and the
 * record directory opened and checked as the plugin's other directories. */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "private_dir.h"
#include "record.h"
#include "smr_record.h"

/* The plan, its figures and the placement (borrowed from the step). */
/* The busiest link as planned, and the routing and uplink counts per
 * group it was scored with, as ranges per level (NULL counts: 1) and,
 * where a level's counts differ, each group's (borrowed), and the level's
 * uplink speed where the site stated one (the same for all its groups),
 * which the audit re-scores with. */
static void fill_busiest(smr_record *rec, const sm_step *st)
{
    rec->link_l_max = st->pl.link.l_max;
    rec->link_bound = st->pl.link.bound;
    snprintf(rec->link_routing, sizeof(rec->link_routing), "%s",
             smp_routing_name(st->links.routing));
    for (int l = 0; l < st->pl.nlevels; l++) {
        const int32_t *u = st->links.uplinks[l];
        int lo = u ? u[0] : 1, hi = lo;
        for (int g = 1; u && g < st->levels.ngroups[l]; g++) {
            lo = u[g] < lo ? u[g] : lo;
            hi = u[g] > hi ? u[g] : hi;
        }
        rec->link_uplinks_min[l] = lo;
        rec->link_uplinks_max[l] = hi;
        rec->link_uplinks_per_group[l] = lo != hi ? st->links.uplinks[l] : NULL;
        rec->link_speed[l] = st->links.speed[l] ? st->links.speed[l][0] : 0;
    }
}

static void fill_placed(smr_record *rec, const sm_step *st)
{
    rec->kind = SMR_KIND_PLACED;
    rec->ranks = st->pl.ranks;
    rec->grid = st->spec.grid;
    rec->grid_order_given = true;
    rec->stencil = st->spec.stencil;
    snprintf(rec->alg_requested, sizeof(rec->alg_requested), "%s",
             smp_algorithm_name(st->requested));
    snprintf(rec->alg_used, sizeof(rec->alg_used), "%s", smp_algorithm_name(st->pl.algorithm));
    snprintf(rec->objective, sizeof(rec->objective), "%s", smp_objective_name(st->objective));
    rec->effort = st->effort;
    rec->j_sum = st->pl.score.j_sum;
    rec->j_max = st->pl.score.j_max;
    rec->blocked_j_sum = st->blocked.score.j_sum;
    rec->blocked_j_max = st->blocked.score.j_max;
    snprintf(rec->hostfile, sizeof(rec->hostfile), "%s", st->hostfile);
    rec->placement_count = st->pl.ranks;
    rec->node_of_rank = st->pl.node_of_rank;
    snprintf(rec->levels.source, sizeof(rec->levels.source), "%s", st->levels.source);
    rec->topology_warnings = st->level_notes.warnings; /* borrowed */
    if (st->pl.nlevels > 0) {
        rec->levels = st->levels; /* borrowed arrays */
        memcpy(rec->links, st->level_notes.links, sizeof(rec->links));
        snprintf(rec->topology_kind, sizeof(rec->topology_kind), "%s", st->levels_kind);
        snprintf(rec->levels_mode, sizeof(rec->levels_mode), "%s",
                 smp_levels_mode_name(st->levels_mode));
        for (int l = 0; l < st->pl.nlevels; l++) {
            rec->level_planned[l] = st->pl.level[l];
            rec->level_blocked[l] = st->blocked.level[l];
        }
        fill_busiest(rec, st);
    }
    if (!st->bind)
        return;
    rec->bound = true;
    rec->sockets = st->sockets;
    rec->socket_j_sum = st->sock.j_sum;
    rec->socket_j_max = st->sock.j_max;
    rec->naive_socket_j_sum = st->sock_naive.j_sum;
    rec->naive_socket_j_max = st->sock_naive.j_max;
    snprintf(rec->sockets_note, sizeof(rec->sockets_note), "%s", st->sockets_note);
}

/* The step as a record; arrays are borrowed from st, not copied. */
static void fill(smr_record *rec, const sm_step *st, const sm_policy *pol, uint32_t job_id,
                 uint32_t step_id, bool launched, const char *error, const char *user)
{
    smr_record_init(rec);
    rec->job_id = job_id;
    rec->step_id = step_id == SM_NO_STEP ? SMR_NO_STEP : (int64_t)step_id;
    snprintf(rec->user, sizeof(rec->user), "%s", user);
    rec->uid = getuid();
    smr_time_now(rec->time, sizeof(rec->time));
    snprintf(rec->spec, sizeof(rec->spec), "%s", st->spec_text);
    snprintf(rec->spec_source, sizeof(rec->spec_source), "%s", sm_source_name(st->source));
    if (st->have_nodes)
        rec->nodes = st->nodes;
    rec->launched = launched;
    snprintf(rec->error, sizeof(rec->error), "%s", error ? error : "");
    rec->plugin_ms = st->srun_seconds * 1e3;
    rec->plugin_cpu_ms = st->srun_cpu_seconds * 1e3;
    rec->alloc_check_ms = st->check_seconds * 1e3;
    if (pol->have_algorithm)
        snprintf(rec->alg_override, sizeof(rec->alg_override), "%s",
                 smp_algorithm_name(pol->algorithm));
    if (st->placed) {
        fill_placed(rec, st);
    } else if (st->fallback) {
        rec->kind = SMR_KIND_FALLBACK;
        snprintf(rec->alg_used, sizeof(rec->alg_used), "blocked");
        snprintf(rec->fallback, sizeof(rec->fallback), "%s", st->error);
    }
}

int sm_record_write(sm_step *st, const sm_policy *pol, uint32_t job_id, uint32_t step_id,
                    bool launched, const char *error, char *msg, size_t n)
{
    if (!pol->record_dir[0])
        return 0;
    char user[256];
    struct passwd pw, *res = NULL;
    char pwbuf[4096];
    if (getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res)
        snprintf(user, sizeof(user), "%s", pw.pw_name);
    else
        snprintf(user, sizeof(user), "uid%u", (unsigned)getuid());
    int rfd = sm_dir_open(pol->record_dir, SM_DIR_SHARED, msg, n);
    if (rfd < 0)
        return -1;
    char udir[1100 + 256];
    snprintf(udir, sizeof(udir), "%s/%s", pol->record_dir, user);
    int ufd = sm_subdir_open_private(rfd, udir, user, msg, n);
    close(rfd);
    if (ufd < 0)
        return -1;
    smr_record rec;
    fill(&rec, st, pol, job_id, step_id, launched, error, user);
    char name[128];
    int rc = smr_record_write_at(ufd, udir, &rec, (long)getpid(), name, sizeof(name), msg, n);
    close(ufd);
    if (!rc)
        snprintf(st->record, sizeof(st->record), "%s/%s", udir, name);
    return rc;
}
