/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map compare: every algorithm on one instance, side by side,
 * and Scotch's mapping as the reference when built with libscotch; with
 * --hostfiles DIR each row's placement as DIR/<row>.hosts, so that all of
 * them can be run (the scale bench runs Scotch's this way). */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#ifdef SMP_WITH_SCOTCH
#include "scotch_map.h"
#endif

/* --hostfiles DIR: made when missing (one level), refused when it is not
 * a directory. */
static int hostfiles_dir(const char *dir)
{
    smp_error err;
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "--hostfiles %s: cannot create: %m", dir);
        return cli_fail(&err);
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        smp_error_set(&err, SMP_ERR_INPUT, "--hostfiles %s: not a directory", dir);
        return cli_fail(&err);
    }
    return 0;
}

/* The row's placement as DIR/<name>.hosts, its path in the JSON row. */
static int row_hostfile(const struct cli_opts *o, const char *name, const smp_nodes *nodes,
                        const smp_placement *pl, json_t *row)
{
    if (!o->hostfiles)
        return 0;
    size_t len = strlen(o->hostfiles) + strlen(name) + 8;
    char *path = malloc(len);
    if (!path) {
        smp_error err;
        smp_error_set(&err, SMP_ERR_SYSTEM, "compare: out of memory");
        return cli_fail(&err);
    }
    snprintf(path, len, "%s/%s.hosts", o->hostfiles, name);
    int rc = cli_write_hostfile(path, "--hostfiles", nodes, pl);
    if (!rc && row)
        json_object_set_new(row, "hostfile", json_string(path));
    free(path);
    return rc;
}

/* The figures auto optimises: weighted J_sum (then J_max) when the stencil
 * has weights, else the edge counts; ratios are taken of these. */
static double obj_sum(const smp_score *sc, bool weighted)
{
    return weighted ? sc->w_sum : (double)sc->j_sum;
}

static double obj_max(const smp_score *sc, bool weighted)
{
    return weighted ? sc->w_max : (double)sc->j_max;
}

/* One table row's figures: the objective's J_sum, J_max and their ratios
 * to blocked, the time; weighted tables end with the edge counts. */
static void print_figures(const char *name, const smp_score *sc, const smp_score *base, bool weighted,
                          double ms)
{
    double bs = obj_sum(base, weighted), bm = obj_max(base, weighted);
    double rs = bs > 0 ? obj_sum(sc, weighted) / bs : 1.0, rm = bm > 0 ? obj_max(sc, weighted) / bm : 1.0;
    if (weighted)
        printf("%-11s %10.6g %8.6g %9.3f %9.3f %10.3f %8lld %8lld", name, sc->w_sum, sc->w_max, rs, rm, ms,
               (long long)sc->j_sum, (long long)sc->j_max);
    else
        printf("%-11s %10lld %8lld %9.3f %9.3f %10.3f", name, (long long)sc->j_sum, (long long)sc->j_max,
               rs, rm, ms);
}

/* A JSON row's figures: edge counts as j_sum/j_max, the weighted ones under
 * "weighted", ratios of the objective. */
static json_t *json_figures(const char *name, const smp_score *sc, const smp_score *base, bool weighted,
                            double seconds)
{
    double bs = obj_sum(base, weighted), bm = obj_max(base, weighted);
    double rs = bs > 0 ? obj_sum(sc, weighted) / bs : 1.0, rm = bm > 0 ? obj_max(sc, weighted) / bm : 1.0;
    json_t *row = json_pack("{s:s,s:I,s:I,s:f,s:f,s:f}", "algorithm", name, "j_sum", (json_int_t)sc->j_sum,
                            "j_max", (json_int_t)sc->j_max, "j_sum_ratio", rs, "j_max_ratio", rm,
                            "seconds", seconds);
    if (weighted)
        json_object_set_new(row, "weighted", json_pack("{s:f,s:f}", "j_sum", sc->w_sum, "j_max", sc->w_max));
    return row;
}

/* The level columns of one row: between the groups of each level. */
static void level_cols(const struct cli_instance *in, const smp_score *lv, char *buf, size_t len)
{
    bool weighted = smp_stencil_weighted(&in->spec.stencil);
    size_t k = strlen(buf);
    for (int l = 0; l < in->levels.nlevels && k < len; l++) {
        if (weighted)
            snprintf(buf + k, len - k, " %9.6g %8.6g", lv[l].w_sum, lv[l].w_max);
        else
            snprintf(buf + k, len - k, " %9lld %8lld", (long long)lv[l].j_sum, (long long)lv[l].j_max);
        k = strlen(buf);
    }
}

#ifdef SMP_WITH_SCOTCH
/* Scotch's row: the graph mapped onto a complete graph of the node shares,
 * exact balance asked for; its answer is scored by the same scorer and
 * checked against the shares. */
static int scotch_row(const struct cli_instance *in, const smp_score *base, json_t *rows)
{
    const struct cli_opts *o = &in->o;
    const smp_spec *spec = &in->spec;
    const smp_nodes *nodes = &in->nodes;
    smp_placement lp = {.nlevels = in->levels.nlevels};
    smp_error err;
    smp_scotch_info info;
    smp_score sc;
    int32_t *map = malloc(sizeof(int32_t) * (size_t)spec->grid.size);
    if (!map) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "compare: out of memory");
        return cli_fail(&err);
    }
    double t0 = cli_now();
    smp_status s = smp_scotch_map(&spec->grid, &spec->stencil, nodes->slots, nodes->count, map, &info, &err);
    double ms = (cli_now() - t0) * 1e3;
    if (!s)
        s = smp_score_compute(&spec->grid, &spec->stencil, map, nodes->count, &sc, &err);
    if (!s && in->levels.nlevels > 0) /* the same groups, scored alike */
        s = smp_levels_score_compute(&spec->grid, &spec->stencil, map, nodes->count, &in->levels,
                                     lp.level, &err);
    if (s) {
        free(map);
        return cli_fail(&err);
    }
    /* Scotch's answer as it is, also when it overfills a node (info says) */
    smp_placement pl = {.ranks = spec->grid.size, .nnodes = nodes->count, .node_of_rank = map};
    bool weighted = smp_stencil_weighted(&spec->stencil);
    smp_link_score ls = {0};
    smp_error lerr;
    (void)smp_link_score_compute(&spec->grid, &spec->stencil, map, nodes->count, &in->levels,
                                 &in->links, &ls, &lerr); /* the map is checked above */
    json_t *row = o->json ? json_figures("scotch", &sc, base, weighted, ms / 1e3) : NULL;
    int rc = row_hostfile(o, "scotch", nodes, &pl, row);
    free(map);
    if (rc) {
        json_decref(row);
        return rc;
    }
    if (o->json) {
        json_t *more = json_pack("{s:s,s:b,s:i,s:I,s:i}", "version", smp_scotch_version(),
                                 "exact_capacities", info.exact, "overfull_nodes", info.overfull,
                                 "max_excess", (json_int_t)info.max_excess, "over_slots_nodes",
                                 info.over_slots);
        json_object_update(row, more);
        json_decref(more);
        if (in->levels.nlevels > 0)
            json_object_set_new(row, "levels", cli_levels_json(&lp, NULL, &in->levels, weighted));
        json_object_set_new(row, "links", cli_link_json(&ls, &in->levels));
        json_array_append_new(rows, row);
    } else {
        print_figures("scotch", &sc, base, weighted, ms);
        char cols[20 * SMP_MAX_LEVELS + 16] = "";
        level_cols(in, lp.level, cols, sizeof(cols));
        snprintf(cols + strlen(cols), sizeof(cols) - strlen(cols), " %8.6g", ls.l_max);
        printf("%s%s   (Scotch %s, ", in->sockets ? "                               " : "", cols,
               smp_scotch_version());
        if (info.exact)
            printf("exact capacities)\n");
        else
            printf("NOT exact: %d nodes over their share by up to %lld, %d over their slots)\n",
                   info.overfull, (long long)info.max_excess, info.over_slots);
    }
    return 0;
}
#endif

/* The table's title lines and column heads. */
static void print_header(const struct cli_instance *in)
{
    const smp_spec *spec = &in->spec;
    bool weighted = smp_stencil_weighted(&spec->stencil);
    printf("grid");
    for (int i = 0; i < spec->grid.ndims; i++)
        printf("%c%lld", i ? 'x' : ' ', (long long)spec->grid.dims[i]);
    printf("%s, stencil %s (%d offsets), %lld ranks on %d nodes (%lld slots)\n",
           spec->grid.order == SMP_ORDER_COLUMN_MAJOR ? " column-major" : "",
           spec->stencil.name[0] ? spec->stencil.name : "custom", spec->stencil.count,
           (long long)spec->grid.size, in->nodes.count, (long long)in->nodes.total_slots);
    if (weighted)
        printf("objective: %s (the stencil has weights);\n"
               "wJ_sum, wJ_max and the ratios are weighted, J_sum and J_max count edges\n\n",
               cli_objective_text(spec));
    else
        printf("objective: %s (directed inter-node edges)\n\n", cli_objective_text(spec));
    printf("%-11s %10s %8s %9s %9s %10s", "algorithm", weighted ? "wJ_sum" : "J_sum",
           weighted ? "wJ_max" : "J_max", "sum/blk", "max/blk", "time(ms)");
    if (weighted)
        printf(" %8s %8s", "J_sum", "J_max");
    if (in->sockets)
        printf(" %10s %10s %8s", "J_socket", "naive", "max/sock");
    for (int l = 0; l < in->levels.nlevels; l++) {
        char a[32], b[32];
        snprintf(a, sizeof(a), "L%d_%s", l, weighted ? "wsum" : "sum");
        snprintf(b, sizeof(b), "L%d_%s", l, weighted ? "wmax" : "max");
        printf(" %9s %8s", a, b);
    }
    printf(" %8s\n", "L_max");
}

/* One algorithm's outcome: its placement, time and socket split. */
struct row {
    smp_algorithm alg;
    smp_placement pl;
    double ms;
    smp_socket_score ss, ns;
};

static json_t *json_row(const struct cli_instance *in, const struct row *r, const smp_score *base)
{
    bool weighted = smp_stencil_weighted(&in->spec.stencil);
    const smp_placement *pl = &r->pl;
    json_t *row = json_figures(smp_algorithm_name(r->alg), &pl->score, base, weighted, r->ms / 1e3);
    json_object_set_new(row, "chose", json_string(smp_algorithm_name(pl->algorithm)));
    if (in->sockets) {
        json_object_set_new(row, "j_socket_sum", json_integer(r->ss.j_sum));
        json_object_set_new(row, "j_socket_max", json_integer(r->ss.j_max));
        json_object_set_new(row, "naive_sockets",
                            json_pack("{s:I,s:I}", "j_socket_sum", (json_int_t)r->ns.j_sum,
                                      "j_socket_max", (json_int_t)r->ns.j_max));
    }
    if (in->levels.nlevels > 0)
        json_object_set_new(row, "levels", cli_levels_json(pl, NULL, &in->levels, weighted));
    json_t *links = cli_link_json(&pl->link, &in->levels);
    json_object_set_new(links, "chosen_by_l_max", json_boolean(pl->by_links));
    json_object_set_new(row, "links", links);
    if (r->alg != SMP_ALG_AUTO)
        return row;
    json_object_set_new(row, "refined", json_boolean(pl->refined));
    json_object_set_new(row, "fold_axis", pl->fold_axis >= 0 ? json_integer(pl->fold_axis) : json_null());
    json_object_set_new(row, "constructed", json_pack("{s:I,s:I}", "j_sum",
                                                      (json_int_t)pl->constructed.j_sum, "j_max",
                                                      (json_int_t)pl->constructed.j_max));
    if (weighted)
        json_object_set_new(json_object_get(row, "constructed"), "weighted",
                            json_pack("{s:f,s:f}", "j_sum", pl->constructed.w_sum, "j_max",
                                      pl->constructed.w_max));
    return row;
}

static void print_row(const struct cli_instance *in, const struct row *r, const smp_score *base)
{
    bool weighted = smp_stencil_weighted(&in->spec.stencil);
    const smp_placement *pl = &r->pl;
    char sock_cols[80 + 20 * SMP_MAX_LEVELS] = "";
    if (in->sockets)
        snprintf(sock_cols, sizeof(sock_cols), " %10lld %10lld %8lld", (long long)r->ss.j_sum,
                 (long long)r->ns.j_sum, (long long)r->ss.j_max);
    level_cols(in, pl->level, sock_cols, sizeof(sock_cols));
    snprintf(sock_cols + strlen(sock_cols), sizeof(sock_cols) - strlen(sock_cols), " %8.6g",
             pl->link.l_max);
    print_figures(smp_algorithm_name(r->alg), &pl->score, base, weighted, r->ms);
    if (r->alg != SMP_ALG_AUTO) {
        printf("%s\n", sock_cols);
        if (in->o.map)
            cli_print_map(stdout, &in->spec.grid, pl, &in->nodes);
        return;
    }
    char how[96] = "";
    if (pl->fold_axis >= 0)
        snprintf(how, sizeof(how), " folded along axis %d", pl->fold_axis);
    if (pl->refined && weighted)
        snprintf(how + strlen(how), sizeof(how) - strlen(how), ", refined from wJ_sum %g",
                 pl->constructed.w_sum);
    else if (pl->refined)
        snprintf(how + strlen(how), sizeof(how) - strlen(how), ", refined from J_sum %lld",
                 (long long)pl->constructed.j_sum);
    printf("%s   (chose %s%s)\n", sock_cols, smp_algorithm_name(pl->algorithm), how);
}

/* Plans with r->alg and adds its row (to rows, or to the table); *base is
 * blocked's score, set by blocked's row, which comes first.  nodecart on
 * nodes it cannot use is a row saying so, not a failure. */
static int compare_one(const struct cli_instance *in, struct row *r, smp_score *base, json_t *rows)
{
    smp_error err;
    const char *name = smp_algorithm_name(r->alg);
    double t0 = cli_now();
    smp_status s = cli_plan_links(&in->spec, &in->nodes, r->alg, &in->levels, in->o.levels_mode,
                                  &in->links, &r->pl, &err);
    r->ms = (cli_now() - t0) * 1e3;
    if (s == SMP_ERR_INFEASIBLE && r->alg == SMP_ALG_NODECART) {
        if (!in->o.json)
            printf("%-11s %10s %8s %9s %9s %10s   (%s)\n", name, "n/a", "n/a", "", "", "", err.msg);
        else
            json_array_append_new(rows, json_pack("{s:s,s:s}", "algorithm", name, "error", err.msg));
        return 0;
    }
    if (s)
        return cli_fail(&err);
    if (r->alg == SMP_ALG_BLOCKED)
        *base = r->pl.score;
    int rc = 0;
    if (in->sockets)
        rc = cli_socket_split(&in->spec, &r->pl, in->sockets, NULL, &r->ss, &r->ns);
    json_t *row = !rc && in->o.json ? json_row(in, r, base) : NULL;
    if (!rc)
        rc = row_hostfile(&in->o, name, &in->nodes, &r->pl, row);
    if (!rc && row)
        json_array_append_new(rows, row);
    else if (!rc)
        print_row(in, r, base);
    else
        json_decref(row);
    smp_placement_free(&r->pl);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    struct cli_instance in;
    int rc = cli_instance_load(argc, argv, "compare", &in);
    if (rc)
        return rc;
    if (in.o.hostfiles && (rc = hostfiles_dir(in.o.hostfiles))) {
        cli_instance_free(&in);
        return rc;
    }
    smp_score base = {0};
    json_t *rows = json_array();
    if (!in.o.json)
        print_header(&in);
    /* the constructions in auto's order (blocked first: it is the baseline
     * of the ratios), then auto */
    const smp_algorithm *algs;
    int nalgs = smp_auto_constructions(&algs);
    for (int k = 0; k <= nalgs && !rc; k++) {
        struct row r = {.alg = k < nalgs ? algs[k] : SMP_ALG_AUTO};
        rc = compare_one(&in, &r, &base, rows);
    }
#ifdef SMP_WITH_SCOTCH
    if (!rc)
        rc = scotch_row(&in, &base, rows);
#endif
    if (in.o.json && !rc) {
        json_t *j = json_pack("{s:I,s:i}", "ranks", (json_int_t)in.spec.grid.size, "nodes",
                              in.nodes.count);
        cli_json_spec(j, &in.spec);
        json_object_set_new(j, "minimised", json_string(cli_minimised(&in.spec)));
        json_object_set_new(j, "algorithms", rows);
        json_object_set_new(j, "routing", json_string(smp_routing_name(in.links.routing)));
        json_t *speeds = cli_speeds_json(&in.links, &in.levels);
        if (speeds)
            json_object_set_new(j, "uplink_speed", speeds);
        if (in.levels.nlevels > 0) {
            json_object_set_new(j, "topology_source", json_string(in.levels.source));
            json_object_set_new(j, "levels_mode",
                                json_string(smp_levels_mode_name(in.o.levels_mode)));
        }
        cli_json_print(j, JSON_INDENT(2));
    } else {
        json_decref(rows);
        if (!rc && in.o.hostfiles)
            printf("\nhostfiles: %s/<algorithm>.hosts\n", in.o.hostfiles);
    }
    cli_instance_free(&in);
    return rc;
}
