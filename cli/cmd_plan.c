/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map plan: compute a placement, write its hostfile, summarise. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spec_check.h"

/* Line r holds rank r's socket index inside its node. */
static int write_socketfile(const char *path, const int32_t *socket_of_rank, int64_t ranks)
{
    smp_error err;
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "--socketfile %s: cannot create: %m", path);
        return cli_fail(&err);
    }
    bool bad = false;
    for (int64_t r = 0; r < ranks && !bad; r++)
        bad = fprintf(f, "%d\n", (int)socket_of_rank[r]) < 0;
    if (f != stdout)
        bad = fclose(f) != 0 || bad;
    else
        bad = fflush(f) != 0 || bad;
    if (bad) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "--socketfile %s: write failed", path);
        return cli_fail(&err);
    }
    return 0;
}

/* What plan computed: the placement, blocked beside it, the socket split. */
struct plan_result {
    smp_placement pl, blocked;
    double seconds;
    int32_t *socket_of_rank;
    smp_socket_score sock, naive;
};

/* Plans, plans blocked for comparison, splits over the sockets, writes the
 * launcher's file and the socketfile, stopping at the first failure. */
static int plan_compute(const struct cli_instance *in, struct plan_result *r)
{
    smp_error err;
    const smp_spec *spec = &in->spec;
    double t0 = cli_now();
    smp_status s = cli_plan_links(spec, &in->nodes, spec->algorithm, &in->levels,
                                  in->o.levels_mode, &in->links, &r->pl, &err);
    r->seconds = cli_now() - t0;
    if (!s) /* blocked is placed as without levels, and scored on them */
        s = cli_plan_links(spec, &in->nodes, SMP_ALG_BLOCKED, &in->levels, in->o.levels_mode,
                           &in->links, &r->blocked, &err);
    if (s)
        return cli_fail(&err);
    int rc = 0;
    if (in->sockets)
        rc = cli_socket_split(spec, &r->pl, in->sockets, &r->socket_of_rank, &r->sock, &r->naive);
    if (!rc)
        rc = cli_launcher_write(&in->o, spec, &in->nodes, &r->pl, r->socket_of_rank);
    if (!rc && in->o.socketfile)
        rc = write_socketfile(in->o.socketfile, r->socket_of_rank, r->pl.ranks);
    return rc;
}

static void plan_print_json(const struct cli_instance *in, const struct plan_result *r)
{
    const smp_placement *pl = &r->pl, *blk = &r->blocked;
    json_t *j = json_object();
    json_object_set_new(j, "algorithm", json_string(smp_algorithm_name(pl->algorithm)));
    json_object_set_new(j, "requested", json_string(smp_algorithm_name(in->spec.algorithm)));
    if (pl->nlevels > 0) /* how the levels were met (see smp_placement_label) */
        json_object_set_new(j, "groups_first", json_boolean(pl->groups_first));
    json_object_set_new(j, "ranks", json_integer(pl->ranks));
    json_object_set_new(j, "nodes", json_integer(in->nodes.count));
    cli_json_spec(j, &in->spec);
    json_object_set_new(j, "j_sum", json_integer(pl->score.j_sum));
    json_object_set_new(j, "j_max", json_integer(pl->score.j_max));
    json_object_set_new(j, "minimised", json_string(cli_minimised(&in->spec)));
    json_object_set_new(j, "blocked", json_pack("{s:I,s:I}", "j_sum", (json_int_t)blk->score.j_sum,
                                                "j_max", (json_int_t)blk->score.j_max));
    if (smp_stencil_weighted(&in->spec.stencil))
        json_object_set_new(j, "weighted", json_pack("{s:f,s:f,s:f,s:f}", "j_sum", pl->score.w_sum,
                                                     "j_max", pl->score.w_max, "blocked_j_sum",
                                                     blk->score.w_sum, "blocked_j_max",
                                                     blk->score.w_max));
    if (in->sockets) {
        json_object_set_new(j, "j_socket_sum", json_integer(r->sock.j_sum));
        json_object_set_new(j, "j_socket_max", json_integer(r->sock.j_max));
        json_object_set_new(j, "naive_sockets",
                            json_pack("{s:I,s:I}", "j_socket_sum", (json_int_t)r->naive.j_sum,
                                      "j_socket_max", (json_int_t)r->naive.j_max));
    }
    if (in->levels.nlevels > 0) {
        json_t *levels = cli_levels_json(pl, blk, &in->levels,
                                         smp_stencil_weighted(&in->spec.stencil));
        cli_topology_json(j, levels);
        json_object_set_new(j, "levels", levels);
        json_object_set_new(j, "topology_source", json_string(in->levels.source));
        json_object_set_new(j, "levels_mode", json_string(smp_levels_mode_name(in->o.levels_mode)));
    } else if (cli_topology_warnings()) {
        cli_topology_json(j, NULL);
    }
    json_t *links = cli_link_json(&pl->link, &in->levels);
    json_object_set_new(links, "routing", json_string(smp_routing_name(in->links.routing)));
    json_t *speeds = cli_speeds_json(&in->links, &in->levels);
    if (speeds)
        json_object_set_new(links, "uplink_speed", speeds);
    json_object_set_new(links, "chosen_by_l_max", json_boolean(pl->by_links));
    json_object_set_new(links, "blocked", cli_link_json(&blk->link, &in->levels));
    json_object_set_new(j, "links", links);
    json_object_set_new(j, "seconds", json_real(r->seconds));
    bool hostfile = in->o.output && in->o.launcher == SML_SLURM;
    json_object_set_new(j, "hostfile", hostfile ? json_string(in->o.output) : json_null());
    json_object_set_new(j, "launcher", json_string(sml_name(in->o.launcher)));
    json_object_set_new(j, "output", in->o.output ? json_string(in->o.output) : json_null());
    cli_json_print(j, JSON_INDENT(2));
}

/* ", uplinks 8,2": the uplinks per group the model used at each level
 * (after --uplinks), "1-2" where a level's groups differ; the "level L
 * links" lines say what the topology file has, which --uplinks overrides */
static void uplinks_used(const struct cli_instance *in, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int l = 0; l < in->levels.nlevels && l < SMP_MAX_LEVELS && at < n; l++) {
        const int32_t *u = in->links.uplinks[l];
        int32_t lo = 1, hi = 1;
        for (int g = 0; u && g < in->levels.ngroups[l]; g++) {
            lo = g == 0 || u[g] < lo ? u[g] : lo;
            hi = g == 0 || u[g] > hi ? u[g] : hi;
        }
        at += (size_t)snprintf(buf + at, n - at, lo == hi ? "%s%d" : "%s%d-%d",
                               l ? "," : ", uplinks ", lo, hi);
    }
}

/* The links line: L_max, where, the bound, blocked's L_max. */
static void plan_print_links(FILE *out, const struct cli_instance *in, const struct plan_result *r)
{
    char t[320], up[160], sp[160];
    uplinks_used(in, up, sizeof(up));
    cli_speeds_text(&in->links, &in->levels, sp, sizeof(sp));
    fprintf(out, "stencil-map: links (%s routing%s%s%s): %s; blocked %.6g\n",
            smp_routing_name(in->links.routing), up, sp, r->pl.by_links ? ", chosen by it" : "",
            cli_link_text(&r->pl.link, &in->levels, t, sizeof(t)), r->blocked.link.l_max);
}

/* The summary line(s) on out; none when the file went to standard output. */
static void plan_print_text(FILE *out, const struct cli_instance *in, const struct plan_result *r)
{
    const smp_placement *pl = &r->pl;
    const smp_score *b = &r->blocked.score;
    char alg[48];
    if (in->o.output && !strcmp(in->o.output, "-"))
        return;
    if (smp_stencil_weighted(&in->spec.stencil)) {
        /* the weighted figures are what auto minimised: first */
        fprintf(out, "stencil-map: %s, %lld ranks on %d nodes, weighted inter-node edges %g (blocked %g), "
               "max per node %g (blocked %g); edges %lld (blocked %lld), max per node %lld "
               "(blocked %lld); planned in %.3f ms\n",
               smp_placement_label(pl, alg, sizeof(alg)), (long long)pl->ranks, in->nodes.count,
               pl->score.w_sum, b->w_sum, pl->score.w_max, b->w_max, (long long)pl->score.j_sum,
               (long long)b->j_sum, (long long)pl->score.j_max, (long long)b->j_max,
               r->seconds * 1e3);
        cli_levels_print(pl, &r->blocked, &in->levels, true);
        cli_topology_print(out, &in->levels);
        plan_print_links(out, in, r);
        return;
    }
    fprintf(out, "stencil-map: %s, %lld ranks on %d nodes, inter-node edges %lld (blocked %lld), "
           "max per node %lld (blocked %lld), planned in %.3f ms\n",
           smp_placement_label(pl, alg, sizeof(alg)), (long long)pl->ranks, in->nodes.count,
           (long long)pl->score.j_sum, (long long)b->j_sum, (long long)pl->score.j_max,
           (long long)b->j_max, r->seconds * 1e3);
    cli_levels_print(pl, &r->blocked, &in->levels, false);
    cli_topology_print(out, &in->levels);
    plan_print_links(out, in, r);
    if (in->sockets)
        fprintf(out, "stencil-map: inter-socket edges %lld (naive split %lld), "
               "max per socket %lld (naive split %lld)\n",
               (long long)r->sock.j_sum, (long long)r->naive.j_sum, (long long)r->sock.j_max,
               (long long)r->naive.j_max);
}

/* With --profile DIR, says what the spec gets wrong about the measured
 * traffic; the plan is made as the spec asks all the same. */
static int plan_check_profile(const char *profile, const struct cli_instance *in)
{
    smp_error err;
    if (spec_check_dir("stencil-map plan", profile, &in->spec, &err) >= 0)
        return 0;
    fprintf(stderr, "stencil-map plan: --profile %s: %s\n", profile, err.msg);
    return err.status ? (int)err.status : SMP_ERR_INPUT;
}

int cmd_plan(int argc, char **argv)
{
    bool bad_profile;
    const char *profile = spec_check_take_profile(&argc, argv, &bad_profile);
    if (bad_profile) {
        fprintf(stderr, "stencil-map plan: --profile needs a DIR\n");
        return SMP_ERR_INPUT;
    }
    struct cli_instance in;
    int rc = cli_instance_load(argc, argv, "plan", &in);
    if (rc)
        return rc;
    if (profile && (rc = plan_check_profile(profile, &in))) {
        cli_instance_free(&in);
        return rc;
    }
    if ((rc = cli_launcher_options(&in.o))) {
        cli_instance_free(&in);
        return rc;
    }
    if (in.o.socketfile && !in.sockets) {
        smp_error err;
        smp_error_set(&err, SMP_ERR_INPUT, "--socketfile: needs --sockets or the spec's \"sockets\"");
        cli_instance_free(&in);
        return cli_fail(&err);
    }
    struct plan_result r = {0};
    rc = plan_compute(&in, &r);
    if (!rc && in.o.json) {
        plan_print_json(&in, &r);
    } else if (!rc) {
        /* with --env, standard output is the launcher's arguments alone */
        FILE *out = in.o.env ? stderr : stdout;
        plan_print_text(out, &in, &r);
        if (in.o.map) {
            fprintf(out, "blocked:\n");
            cli_print_map(out, &in.spec.grid, &r.blocked, &in.nodes);
            fprintf(out, "%s:\n", smp_algorithm_name(r.pl.algorithm));
            cli_print_map(out, &in.spec.grid, &r.pl, &in.nodes);
        }
        rc = cli_launcher_env(&in.o, &in.spec, &in.nodes, &in.levels, &r.pl, &r.blocked);
    }
    smp_placement_free(&r.pl);
    smp_placement_free(&r.blocked);
    free(r.socket_of_rank);
    cli_instance_free(&in);
    return rc;
}
