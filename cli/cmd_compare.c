/* stencil-map compare: every algorithm on one instance, side by side. */
#include <jansson.h>
#include <stdlib.h>

#include "cli.h"

int cmd_compare(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse(argc, argv, "compare", "n", &o);
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
    smp_score base = {0};
    json_t *rows = json_array();
    if (!o.json) {
        printf("grid");
        for (int i = 0; i < spec.grid.ndims; i++)
            printf("%c%lld", i ? 'x' : ' ', (long long)spec.grid.dims[i]);
        printf(", stencil %s (%d offsets), %lld ranks on %d nodes (%lld slots)\n\n",
               spec.stencil.name[0] ? spec.stencil.name : "custom", spec.stencil.count,
               (long long)spec.grid.size, nodes.count, (long long)nodes.total_slots);
        printf("%-11s %10s %8s %9s %9s %10s\n", "algorithm", "J_sum", "J_max", "sum/blk", "max/blk",
               "time(ms)");
    }
    /* blocked first: it is the baseline of the ratios */
    static const smp_algorithm order[] = {SMP_ALG_BLOCKED, SMP_ALG_HYPERPLANE, SMP_ALG_STRIPS,
                                          SMP_ALG_KDTREE, SMP_ALG_NODECART, SMP_ALG_AUTO};
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        smp_placement pl;
        double t0 = cli_now();
        smp_status s = smp_plan(&spec.grid, &spec.stencil, nodes.slots, nodes.count, order[k], &pl, &err);
        double ms = (cli_now() - t0) * 1e3;
        const char *name = smp_algorithm_name(order[k]);
        if (s == SMP_ERR_INFEASIBLE && order[k] == SMP_ALG_NODECART) {
            if (!o.json)
                printf("%-11s %10s %8s %9s %9s %10s   (%s)\n", name, "n/a", "n/a", "", "", "", err.msg);
            else
                json_array_append_new(rows, json_pack("{s:s,s:s}", "algorithm", name, "error", err.msg));
            continue;
        }
        if (s) {
            rc = cli_fail(&err);
            break;
        }
        if (order[k] == SMP_ALG_BLOCKED)
            base = pl.score;
        double rs = base.j_sum ? (double)pl.score.j_sum / base.j_sum : 1.0;
        double rm = base.j_max ? (double)pl.score.j_max / base.j_max : 1.0;
        if (o.json)
            json_array_append_new(rows, json_pack("{s:s,s:s,s:I,s:I,s:f,s:f,s:f}", "algorithm", name, "chose",
                                                  smp_algorithm_name(pl.algorithm), "j_sum",
                                                  (json_int_t)pl.score.j_sum, "j_max", (json_int_t)pl.score.j_max,
                                                  "j_sum_ratio", rs, "j_max_ratio", rm, "seconds", ms / 1e3));
        else if (order[k] == SMP_ALG_AUTO)
            printf("%-11s %10lld %8lld %9.3f %9.3f %10.3f   (chose %s)\n", name, (long long)pl.score.j_sum,
                   (long long)pl.score.j_max, rs, rm, ms, smp_algorithm_name(pl.algorithm));
        else
            printf("%-11s %10lld %8lld %9.3f %9.3f %10.3f\n", name, (long long)pl.score.j_sum,
                   (long long)pl.score.j_max, rs, rm, ms);
        if (o.map && !o.json && order[k] != SMP_ALG_AUTO)
            cli_print_map(stdout, &spec.grid, &pl, &nodes);
        smp_placement_free(&pl);
    }
    if (o.json && !rc) {
        json_t *j = json_pack("{s:I,s:i,s:o}", "ranks", (json_int_t)spec.grid.size, "nodes", nodes.count,
                              "algorithms", rows);
        cli_json_spec(j, &spec);
        json_dumpf(j, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(j);
    } else {
        json_decref(rows);
    }
    smp_spec_free(&spec);
    smp_nodes_free(&nodes);
    return rc;
}
