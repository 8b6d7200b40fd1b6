/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun-side planning: everything the option callback does before srun
 * reads SLURM_HOSTFILE. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "private_dir.h"
#include "socket_map.h"
#include "formats/stencil_env.h"
#include "step.h"
#include "formats/task_env.h"

extern char **environ;

const char *sm_source_name(sm_spec_source src)
{
    return src == SM_SRC_ENV ? "env" : src == SM_SRC_DEFAULT ? "default" : "option";
}

static double clock_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* The second level: socket counts, the split, and its encoding for the
 * tasks. */
static smp_status plan_sockets(sm_step *st, sm_sockets_fn sockets_of, smp_error *err)
{
    char msg[300];
    if (sm_socket_map_fits(st->pl.ranks, msg, sizeof(msg)))
        return smp_error_set(err, SMP_ERR_INPUT, "%s", msg); /* before any work */
    int nn = st->nodes.count;
    st->sockets = malloc(sizeof(int32_t) * (size_t)nn);
    st->socket_of_rank = malloc(sizeof(int32_t) * (size_t)st->pl.ranks);
    int32_t *naive = malloc(sizeof(int32_t) * (size_t)st->pl.ranks);
    if (!st->sockets || !st->socket_of_rank || !naive) {
        free(naive);
        return smp_error_set(err, SMP_ERR_SYSTEM, "bind=socket: out of memory");
    }
    st->sockets_note[0] = '\0';
    for (int i = 0; i < nn; i++)
        st->sockets[i] = 0;
    if (sockets_of)
        sockets_of(&st->nodes, st->sockets, st->sockets_note, sizeof(st->sockets_note));
    /* unknown (0) or out of range: the spec's "sockets", else 1 */
    int unknown = 0;
    for (int i = 0; i < nn; i++)
        if (st->sockets[i] < 1 || st->sockets[i] > SMP_MAX_SOCKETS) {
            st->sockets[i] = st->spec.sockets > 0 ? st->spec.sockets : 1;
            unknown++;
        }
    if (unknown && !st->sockets_note[0])
        snprintf(st->sockets_note, sizeof(st->sockets_note),
                 "socket count of %d node(s) unknown: %d assumed", unknown,
                 st->spec.sockets > 0 ? st->spec.sockets : 1);
    smp_status s = smp_plan_sockets(&st->spec.grid, &st->spec.stencil, st->pl.node_of_rank, nn,
                                    st->sockets, st->socket_of_rank, &st->sock, err);
    if (!s)
        s = smp_sockets_naive(&st->spec.grid, st->pl.node_of_rank, nn, st->sockets, naive, err);
    if (!s)
        s = smp_socket_score_compute(&st->spec.grid, &st->spec.stencil, st->pl.node_of_rank, nn,
                                     st->sockets, naive, &st->sock_naive, err);
    free(naive);
    if (s)
        return s;
    st->socket_map = sm_socket_map_encode(st->socket_of_rank, st->pl.ranks, msg, sizeof(msg));
    if (!st->socket_map)
        return smp_error_set(err, SMP_ERR_INPUT, "%s", msg);
    return SMP_OK;
}

/* What the ranks are told, the levels included (task_env.h). */
static smp_status task_env_make(sm_step *st, smp_error *err)
{
    smp_status s = smp_task_env_build(&st->task_env, &st->spec.grid, &st->spec.stencil,
                                      st->pl.algorithm, &st->pl.score, &st->blocked.score, err);
    if (!s && st->levels.nlevels)
        s = smp_task_env_add_levels(&st->task_env, st->nodes.names, st->nodes.count, &st->levels,
                                    st->pl.level, &st->levels_env_too_long, err);
    return s;
}

/* The plan and Slurm's blocked layout, both scored on the levels when
 * there are any; without, exactly the plan of a cluster without a
 * topology. */
static smp_status plan_both(sm_step *st, smp_error *err)
{
    const smp_levels *lv = st->levels.nlevels ? &st->levels : NULL;
    smp_plan_opts opts = {.algorithm = st->requested, .objective = st->objective,
                          .effort = st->effort, .levels = lv,
                          .levels_mode = st->levels_mode, .links = &st->links};
    smp_status s = smp_plan_with(&st->spec.grid, &st->spec.stencil, st->nodes.slots,
                                 st->nodes.count, &opts, &st->pl, err);
    if (s)
        return s;
    if (!lv) {
        s = smp_plan(&st->spec.grid, &st->spec.stencil, st->nodes.slots, st->nodes.count,
                     SMP_ALG_BLOCKED, &st->blocked, err);
        return s ? s : task_env_make(st, err);
    }
    /* a single construction is placed as without levels, and scored on them */
    smp_plan_opts blocked = {.algorithm = SMP_ALG_BLOCKED, .objective = st->objective,
                             .effort = st->effort, .levels = lv,
                             .levels_mode = SMP_LEVELS_BEST, .links = &st->links};
    s = smp_plan_with(&st->spec.grid, &st->spec.stencil, st->nodes.slots, st->nodes.count,
                      &blocked, &st->blocked, err);
    return s ? s : task_env_make(st, err);
}

/* The site's routing=, uplinks= and uplink_speed= over the step's levels:
 * each count for every group of its level; levels beyond the counts take
 * the topology's (smt_group_uplinks, as `stencil-map plan --topology`
 * does); levels beyond the speeds, a node link's. */
static smp_status step_links(sm_step *st, const sm_policy *pol, smp_error *err)
{
    st->links.routing = pol->routing;
    for (int l = 0; l < st->levels.nlevels && l < SMP_MAX_LEVELS; l++) {
        int ng = st->levels.ngroups[l];
        const int32_t *topo = st->level_notes.uplinks[l];
        if (l >= pol->nuplinks && !topo)
            continue;
        if (!(st->links.uplinks[l] = malloc(sizeof(int32_t) * (size_t)ng)))
            return smp_error_set(err, SMP_ERR_SYSTEM, "uplinks: out of memory");
        for (int g = 0; g < ng; g++)
            st->links.uplinks[l][g] = l < pol->nuplinks ? pol->uplinks[l] : topo[g];
    }
    return smp_links_set_speeds(&st->links, &st->levels, pol->uplink_speed, pol->nspeeds, err);
}

static smp_status do_plan(sm_step *st, const sm_policy *pol, const sm_srun_args *a,
                          const char *tmp_parent, sm_alloc_check_fn check,
                          sm_sockets_fn sockets_of, sm_slurm_topology_fn topology_of,
                          smp_error *err)
{
    smp_status s = st->spec_json ? smp_spec_parse(&st->spec, st->spec_json, strlen(st->spec_json),
                                                  smp_specs_dir(), err)
                                 : smp_spec_load(&st->spec, st->spec_text, smp_specs_dir(), err);
    st->have_spec = true; /* smp_spec_load leaves a freeable spec either way */
    if (s)
        return s;
    int64_t job_ntasks;
    if ((s = sm_alloc_read(a, &st->nodes, &job_ntasks, err)))
        return s;
    st->have_nodes = true;
    char msg[600];
    double t0 = now();
    int bad = check && check(&st->nodes, msg, sizeof(msg));
    st->check_seconds = now() - t0;
    if (bad)
        return smp_error_set(err, SMP_ERR_INFEASIBLE, "%s", msg);
    int64_t fixed = st->spec.dims_auto ? 0 : st->spec.grid.size;
    st->ranks = sm_alloc_ntasks(a, fixed, job_ntasks, &st->nodes);
    if (pol->max_ranks && st->ranks > pol->max_ranks)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "max_ranks: the step has %lld ranks but the site limit is %lld "
                             "(plugstack.conf max_ranks=%lld)",
                             (long long)st->ranks, (long long)pol->max_ranks,
                             (long long)pol->max_ranks);
    /* grid.dims "weighted": the nodes' cut first, when the nodes are equal */
    if ((s = smp_spec_resolve_on(&st->spec, st->ranks, st->nodes.count, st->nodes.slots, 0, NULL,
                                 NULL, err)))
        return s;
    st->requested = pol->have_algorithm ? pol->algorithm : st->spec.algorithm;
    st->objective = sm_policy_objective(pol, &st->spec);
    st->effort = sm_policy_effort(pol, &st->spec);
    st->levels_mode = pol->levels_mode;
    if ((s = sm_step_levels_noted(pol, &st->nodes, topology_of, &st->levels, st->levels_kind,
                                  sizeof(st->levels_kind), &st->level_notes, err)))
        return s;
    if ((s = step_links(st, pol, err)) || (s = plan_both(st, err)))
        return s;
    st->bind = pol->bind_socket || st->spec.bind == SMP_BIND_SOCKET;
    if (st->bind && (s = plan_sockets(st, sockets_of, err)))
        return s;
    int dfd = sm_private_dir_create(tmp_parent, st->dir, sizeof(st->dir), msg, sizeof(msg));
    if (dfd < 0)
        return smp_error_set(err, SMP_ERR_SYSTEM, "hostfile directory: %s", msg);
    if ((size_t)snprintf(st->hostfile, sizeof(st->hostfile), "%s/hostfile", st->dir) >=
        sizeof(st->hostfile)) {
        close(dfd);
        return smp_error_set(err, SMP_ERR_SYSTEM, "hostfile %s: path too long", st->dir);
    }
    FILE *f = sm_file_create_at(dfd, st->dir, "hostfile", msg, sizeof(msg));
    close(dfd);
    if (!f)
        return smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: %s", msg);
    /* one buffered write of the whole file */
    static char buf[1 << 16];
    setvbuf(f, buf, _IOFBF, sizeof(buf));
    s = smp_hostfile_write(f, &st->nodes, &st->pl, err);
    if (fclose(f) != 0 && !s)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "hostfile %s: write failed", st->hostfile);
    return s;
}

static void free_levels_and_task_env(sm_step *st)
{
    smp_levels_free(&st->levels);
    smp_links_free(&st->links);
    smp_task_env_free(&st->task_env);
    st->levels_kind[0] = '\0';
    sm_level_notes_free(&st->level_notes);
    st->levels_env_too_long = false;
}

static void free_sockets(sm_step *st)
{
    free(st->sockets);
    free(st->socket_of_rank);
    free(st->socket_map);
    st->sockets = st->socket_of_rank = NULL;
    st->socket_map = NULL;
    st->bind = false;
}

int sm_step_plan(sm_step *st, const sm_policy *pol, const sm_srun_args *a, const char *spec,
                 sm_spec_source src, const char *tmp_parent, sm_alloc_check_fn check,
                 sm_sockets_fn sockets_of, sm_slurm_topology_fn topology_of)
{
    return sm_step_plan_json(st, pol, a, spec, NULL, src, tmp_parent, check, sockets_of,
                             topology_of);
}

int sm_step_plan_json(sm_step *st, const sm_policy *pol, const sm_srun_args *a, const char *spec,
                      const char *json, sm_spec_source src, const char *tmp_parent,
                      sm_alloc_check_fn check, sm_sockets_fn sockets_of,
                      sm_slurm_topology_fn topology_of)
{
    memset(st, 0, sizeof(*st));
    snprintf(st->spec_text, sizeof(st->spec_text), "%s", spec);
    st->spec_json = json;
    st->source = src;
    st->active = true;
    smp_error err;
    smp_error_clear(&err);
    double t0 = now(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    smp_status s = do_plan(st, pol, a, tmp_parent, check, sockets_of, topology_of, &err);
    st->spec_json = NULL; /* the caller's */
    st->srun_seconds = now() - t0;
    st->srun_cpu_seconds = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (!s) {
        st->placed = true;
        return 0;
    }
    snprintf(st->error, sizeof(st->error), "%s", err.msg);
    /* nothing of a failed plan is launched */
    free_sockets(st);
    free_levels_and_task_env(st);
    smp_placement_free(&st->pl);
    smp_placement_free(&st->blocked);
    memset(&st->pl, 0, sizeof(st->pl));
    memset(&st->blocked, 0, sizeof(st->blocked));
    if (st->dir[0]) {
        sm_private_dir_remove(st->dir);
        st->dir[0] = st->hostfile[0] = '\0';
    }
    if (pol->on_error == SM_ON_ERROR_BLOCKED) {
        st->fallback = true;
        return 0;
    }
    st->active = false;
    return -1;
}

void sm_env_clear(void)
{
    /* collect first: unsetenv reshuffles environ */
    char *names[64];
    int n = 0;
    for (char **e = environ; e && *e && n < 64; e++)
        if (!strncmp(*e, SMP_ENV_PREFIX, strlen(SMP_ENV_PREFIX))) {
            size_t len = strcspn(*e, "=");
            names[n] = strndup(*e, len);
            if (names[n])
                n++;
        }
    for (int i = 0; i < n; i++) {
        unsetenv(names[i]);
        free(names[i]);
    }
}

int sm_step_export_env(const sm_step *st)
{
    sm_env_clear();
    if (!st->active)
        return 0;
    int rc = 0;
    if (st->fallback) {
        rc |= setenv(SMP_ENV_ALGORITHM, "blocked", 1);
        return rc ? -1 : 0;
    }
    /* the variables every rank is told, as stencil-map plan --env prints
     * them for other launchers */
    for (int i = 0; i < st->task_env.count; i++)
        rc |= setenv(st->task_env.var[i].name, st->task_env.var[i].value, 1);
    if (st->bind)
        rc |= setenv(SM_SOCKET_MAP_ENV, st->socket_map, 1);
    rc |= setenv("SLURM_HOSTFILE", st->hostfile, 1);
    return rc ? -1 : 0;
}

void sm_step_summary(const sm_step *st, FILE *out)
{
    if (!st->placed)
        return;
    char alg[48];
    fprintf(out, "stencil-map: %s%s%s, %lld ranks on %d nodes, inter-node edges %lld (blocked %lld)",
            st->label, st->label[0] ? ": " : "", smp_placement_label(&st->pl, alg, sizeof(alg)),
            (long long)st->pl.ranks, st->nodes.count,
            (long long)st->pl.score.j_sum, (long long)st->blocked.score.j_sum);
    for (int l = 0; l < st->pl.nlevels; l++) {
        char word[48];
        sm_levels_group_word(st->levels_kind, l, word, sizeof(word));
        fprintf(out, ", between %s %lld (blocked %lld)", word, (long long)st->pl.level[l].j_sum,
                (long long)st->blocked.level[l].j_sum);
    }
    if (st->objective != SMP_OBJ_DEFAULT) /* the defaults say nothing more */
        fprintf(out, ", objective %s", smp_objective_name(st->objective));
    if (st->effort != SMP_EFFORT_DEFAULT)
        fprintf(out, ", effort %d", st->effort);
    if (st->pl.nlevels > 0 && st->levels_mode != SMP_LEVELS_BEST)
        fprintf(out, ", levels %s", smp_levels_mode_name(st->levels_mode));
    if (st->pl.nlevels > 0) /* the busiest link (node links too) and its floor */
        fprintf(out, ", busiest link %.4g (bound %.4g)", st->pl.link.l_max, st->pl.link.bound);
    int repairs = sm_level_notes_count(&st->level_notes);
    if (repairs) /* each named in a warning above */
        fprintf(out, ", topology repaired %d time%s", repairs, repairs == 1 ? "" : "s");
    fputc('\n', out);
    if (st->bind)
        fprintf(out, "stencil-map: bind=socket, inter-socket edges %lld (naive split %lld)%s%s\n",
                (long long)st->sock.j_sum, (long long)st->sock_naive.j_sum,
                st->sockets_note[0] ? "; " : "", st->sockets_note);
    if (st->levels_env_too_long)
        fprintf(out, "stencil-map: %d nodes are too many to hand their levels to the tasks "
                "(%s): the in-job check counts the nodes only\n", st->nodes.count,
                SMP_ENV_LEVELS);
}

void sm_step_drop_hostfile(sm_step *st)
{
    if (st->dir[0])
        sm_private_dir_remove(st->dir);
    st->dir[0] = '\0';
}

void sm_step_release(sm_step *st)
{
    sm_step_drop_hostfile(st);
    st->hostfile[0] = '\0';
    free_sockets(st);
    free_levels_and_task_env(st);
    smp_placement_free(&st->pl);
    smp_placement_free(&st->blocked);
    if (st->have_spec)
        smp_spec_free(&st->spec);
    if (st->have_nodes)
        smp_nodes_free(&st->nodes);
    st->have_spec = st->have_nodes = false;
    st->placed = st->active = st->fallback = false;
}
