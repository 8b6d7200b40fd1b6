/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map plan: compute a placement, write its hostfile, summarise. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spec_check.h"

static int write_hostfile(const char *path, const smp_nodes *nodes, const smp_placement *pl)
{
    smp_error err;
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "--hostfile %s: cannot create: %m", path);
        return cli_fail(&err);
    }
    smp_status s = smp_hostfile_write(f, nodes, pl, &err);
    if (f != stdout && fclose(f) != 0 && !s)
        s = smp_error_set(&err, SMP_ERR_SYSTEM, "--hostfile %s: write failed", path);
    return s ? cli_fail(&err) : 0;
}

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

int cmd_plan(int argc, char **argv)
{
    struct cli_opts o;
    bool bad_profile;
    const char *profile = spec_check_take_profile(&argc, argv, &bad_profile);
    if (bad_profile) {
        fprintf(stderr, "stencil-map plan: --profile needs a DIR\n");
        return SMP_ERR_INPUT;
    }
    int rc = cli_parse(argc, argv, "plan", "n", &o);
    if (rc)
        return rc;
    smp_error err;
    smp_nodes nodes;
    if (smp_nodes_parse(&nodes, o.nodes, o.slots, &err))
        return cli_fail(&err);
    smp_spec spec;
    if ((rc = cli_load_spec(&o, nodes.total_slots, &spec))) {
        smp_nodes_free(&nodes);
        return rc;
    }
    if (profile && spec_check_dir("stencil-map plan", profile, &spec, &err) < 0) {
        fprintf(stderr, "stencil-map plan: --profile %s: %s\n", profile, err.msg);
        smp_spec_free(&spec);
        smp_nodes_free(&nodes);
        return err.status ? (int)err.status : SMP_ERR_INPUT;
    }
    int32_t *sockets = NULL, *socket_of_rank = NULL;
    smp_socket_score sock = {0}, naive = {0};
    if ((rc = cli_sockets_of(&o, &spec, &nodes, &sockets))) {
        smp_spec_free(&spec);
        smp_nodes_free(&nodes);
        return rc;
    }
    if (o.socketfile && !sockets) {
        smp_error_set(&err, SMP_ERR_INPUT, "--socketfile: needs --sockets or the spec's \"sockets\"");
        smp_spec_free(&spec);
        smp_nodes_free(&nodes);
        return cli_fail(&err);
    }
    smp_placement pl = {0}, blocked = {0};
    double t0 = cli_now();
    smp_status s = smp_plan_for(&spec.grid, &spec.stencil, nodes.slots, nodes.count,
                                spec.algorithm, spec.objective, &pl, &err);
    double seconds = cli_now() - t0;
    if (!s)
        s = smp_plan(&spec.grid, &spec.stencil, nodes.slots, nodes.count, SMP_ALG_BLOCKED,
                     &blocked, &err);
    if (s)
        rc = cli_fail(&err);
    else if (o.hostfile)
        rc = write_hostfile(o.hostfile, &nodes, &pl);
    if (!s && !rc && sockets)
        rc = cli_socket_split(&spec, &pl, sockets, &socket_of_rank, &sock, &naive);
    if (!s && !rc && o.socketfile)
        rc = write_socketfile(o.socketfile, socket_of_rank, pl.ranks);
    if (!s && !rc) {
        if (o.json) {
            json_t *j = json_object();
            json_object_set_new(j, "algorithm", json_string(smp_algorithm_name(pl.algorithm)));
            json_object_set_new(j, "requested", json_string(smp_algorithm_name(spec.algorithm)));
            json_object_set_new(j, "ranks", json_integer(pl.ranks));
            json_object_set_new(j, "nodes", json_integer(nodes.count));
            cli_json_spec(j, &spec);
            json_object_set_new(j, "j_sum", json_integer(pl.score.j_sum));
            json_object_set_new(j, "j_max", json_integer(pl.score.j_max));
            json_object_set_new(j, "minimised", json_string(cli_minimised(&spec)));
            json_object_set_new(j, "blocked", json_pack("{s:I,s:I}", "j_sum", (json_int_t)blocked.score.j_sum,
                                                        "j_max", (json_int_t)blocked.score.j_max));
            if (smp_stencil_weighted(&spec.stencil))
                json_object_set_new(j, "weighted", json_pack("{s:f,s:f,s:f,s:f}", "j_sum", pl.score.w_sum,
                                                             "j_max", pl.score.w_max, "blocked_j_sum",
                                                             blocked.score.w_sum, "blocked_j_max",
                                                             blocked.score.w_max));
            if (sockets) {
                json_object_set_new(j, "j_socket_sum", json_integer(sock.j_sum));
                json_object_set_new(j, "j_socket_max", json_integer(sock.j_max));
                json_object_set_new(j, "naive_sockets",
                                    json_pack("{s:I,s:I}", "j_socket_sum", (json_int_t)naive.j_sum,
                                              "j_socket_max", (json_int_t)naive.j_max));
            }
            json_object_set_new(j, "seconds", json_real(seconds));
            json_object_set_new(j, "hostfile", o.hostfile ? json_string(o.hostfile) : json_null());
            cli_json_print(j, JSON_INDENT(2));
        } else if ((!o.hostfile || strcmp(o.hostfile, "-")) && smp_stencil_weighted(&spec.stencil)) {
            /* the weighted figures are what auto minimised: first */
            printf("stencil-map: %s, %lld ranks on %d nodes, weighted inter-node edges %g (blocked %g), "
                   "max per node %g (blocked %g); edges %lld (blocked %lld), max per node %lld "
                   "(blocked %lld); planned in %.3f ms\n",
                   smp_algorithm_name(pl.algorithm), (long long)pl.ranks, nodes.count, pl.score.w_sum,
                   blocked.score.w_sum, pl.score.w_max, blocked.score.w_max, (long long)pl.score.j_sum,
                   (long long)blocked.score.j_sum, (long long)pl.score.j_max,
                   (long long)blocked.score.j_max, seconds * 1e3);
        } else if (!o.hostfile || strcmp(o.hostfile, "-")) {
            printf("stencil-map: %s, %lld ranks on %d nodes, inter-node edges %lld (blocked %lld), "
                   "max per node %lld (blocked %lld), planned in %.3f ms\n",
                   smp_algorithm_name(pl.algorithm), (long long)pl.ranks, nodes.count,
                   (long long)pl.score.j_sum, (long long)blocked.score.j_sum,
                   (long long)pl.score.j_max, (long long)blocked.score.j_max, seconds * 1e3);
            if (sockets)
                printf("stencil-map: inter-socket edges %lld (naive split %lld), "
                       "max per socket %lld (naive split %lld)\n",
                       (long long)sock.j_sum, (long long)naive.j_sum, (long long)sock.j_max,
                       (long long)naive.j_max);
        }
        if (o.map && !o.json) {
            printf("blocked:\n");
            cli_print_map(stdout, &spec.grid, &blocked, &nodes);
            printf("%s:\n", smp_algorithm_name(pl.algorithm));
            cli_print_map(stdout, &spec.grid, &pl, &nodes);
        }
    }
    smp_placement_free(&pl);
    smp_placement_free(&blocked);
    free(sockets);
    free(socket_of_rank);
    smp_spec_free(&spec);
    smp_nodes_free(&nodes);
    return rc;
}
