/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map score: J_sum/J_max of an existing hostfile. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const smp_nodes *sort_nodes;

static int by_name(const void *a, const void *b)
{
    return strcmp(sort_nodes->names[*(const int *)a], sort_nodes->names[*(const int *)b]);
}

/* Draws with letters given in node-name order, not in order of first
 * appearance, so that pictures of two placements on the same nodes use the
 * same letter for the same node. */
static void print_sorted_map(const smp_grid *grid, const smp_nodes *nodes, const int32_t *node_of_rank,
                             int64_t ranks)
{
    int n = nodes->count;
    int *order = malloc(sizeof(int) * (size_t)n), *rank_of = malloc(sizeof(int) * (size_t)n);
    char **names = malloc(sizeof(char *) * (size_t)n);
    int32_t *remapped = malloc(sizeof(int32_t) * (size_t)ranks);
    if (order && rank_of && names && remapped) {
        for (int i = 0; i < n; i++)
            order[i] = i;
        sort_nodes = nodes;
        qsort(order, (size_t)n, sizeof(int), by_name);
        for (int i = 0; i < n; i++) {
            rank_of[order[i]] = i;
            names[i] = nodes->names[order[i]];
        }
        for (int64_t r = 0; r < ranks; r++)
            remapped[r] = rank_of[node_of_rank[r]];
        smp_nodes sorted = {.count = n, .names = names, .slots = nodes->slots};
        smp_placement pl = {.ranks = ranks, .nnodes = n, .node_of_rank = remapped};
        cli_print_map(stdout, grid, &pl, &sorted);
    }
    free(order);
    free(rank_of);
    free(names);
    free(remapped);
}

/* Node names compared as Slurm orders a job's nodes when numbered: runs
 * of digits by value ("host9" before "host10"). */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
            int c = la != lb ? (la < lb ? -1 : 1) : strncmp(a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
        } else if (*a != *b) {
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        } else {
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static const smp_nodes *sort_nodes_of; /* qsort's context */

static int cmp_node_index(const void *x, const void *y)
{
    return natural_cmp(sort_nodes_of->names[*(const int32_t *)x],
                       sort_nodes_of->names[*(const int32_t *)y]);
}

/* The hostfile's nodes (in order of first appearance) renumbered in name
 * order, as the step's node list has them: static routing's positions
 * (smp_link_score_compute) follow that order.  Non-zero when out of memory. */
static int nodes_in_name_order(smp_nodes *nodes, int32_t *node_of_rank, int64_t ranks)
{
    int n = nodes->count;
    int32_t *order = malloc(sizeof(int32_t) * (size_t)n), *new_of = malloc(sizeof(int32_t) * (size_t)n);
    char **names = malloc(sizeof(char *) * (size_t)n);
    int32_t *slots = malloc(sizeof(int32_t) * (size_t)n);
    if (!order || !new_of || !names || !slots) {
        free(order), free(new_of), free(names), free(slots);
        return -1;
    }
    for (int i = 0; i < n; i++)
        order[i] = i;
    sort_nodes_of = nodes;
    qsort(order, (size_t)n, sizeof(int32_t), cmp_node_index);
    for (int k = 0; k < n; k++) {
        new_of[order[k]] = k;
        names[k] = nodes->names[order[k]];
        slots[k] = nodes->slots[order[k]];
    }
    memcpy(nodes->names, names, sizeof(char *) * (size_t)n);
    memcpy(nodes->slots, slots, sizeof(int32_t) * (size_t)n);
    for (int64_t r = 0; r < ranks; r++)
        node_of_rank[r] = new_of[node_of_rank[r]];
    free(order), free(new_of), free(names), free(slots);
    return 0;
}

/* The figures of a hostfile as JSON. */
static void print_score_json(const smp_spec *spec, const smp_nodes *nodes, int64_t ranks,
                             const smp_score *sc, const smp_placement *lp, const smp_levels *lv)
{
    json_t *j = json_pack("{s:I,s:i,s:I,s:I,s:s}", "ranks", (json_int_t)ranks, "nodes", nodes->count,
                          "j_sum", (json_int_t)sc->j_sum, "j_max", (json_int_t)sc->j_max,
                          "j_max_node", nodes->names[sc->j_max_node]);
    cli_json_spec(j, spec);
    json_object_set_new(j, "minimised", json_string(cli_minimised(spec)));
    if (smp_stencil_weighted(&spec->stencil))
        json_object_set_new(j, "weighted", json_pack("{s:f,s:f}", "j_sum", sc->w_sum, "j_max", sc->w_max));
    if (lv->nlevels > 0) {
        json_object_set_new(j, "levels", cli_levels_json(lp, NULL, lv,
                                                         smp_stencil_weighted(&spec->stencil)));
        json_object_set_new(j, "topology_source", json_string(lv->source));
    }
    json_object_set_new(j, "links", cli_link_json(&lp->link, lv));
    cli_json_print(j, JSON_INDENT(2));
}

/* The figures of a hostfile as text, and its map with --map. */
static void print_score_text(const struct cli_opts *o, const smp_spec *spec,
                             const smp_nodes *nodes, const int32_t *node_of_rank, int64_t ranks,
                             const smp_score *sc, const smp_placement *lp, const smp_levels *lv)
{
    if (smp_stencil_weighted(&spec->stencil))
        printf("%lld ranks on %d nodes: weighted inter-node edges %g, max per node %g; ",
               (long long)ranks, nodes->count, sc->w_sum, sc->w_max);
    else
        printf("%lld ranks on %d nodes: ", (long long)ranks, nodes->count);
    printf("inter-node edges %lld, max per node %lld (%s)\n",
           (long long)sc->j_sum, (long long)sc->j_max,
           nodes->names[sc->j_max_node]);
    cli_levels_print(lp, NULL, lv, smp_stencil_weighted(&spec->stencil));
    char t[320];
    printf("links (%s routing): %s\n", smp_routing_name(o->routing),
           cli_link_text(&lp->link, lv, t, sizeof(t)));
    if (o->map)
        print_sorted_map(&spec->grid, nodes, node_of_rank, ranks);
}

/* --hostfile (or stdin) read into nodes and node_of_rank; one holding no
 * rank is an error too. */
static smp_status read_hostfile(const char *path, smp_nodes *nodes, int32_t **node_of_rank,
                                int64_t *ranks, smp_error *err)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f)
        return smp_error_set(err, SMP_ERR_INPUT, "--hostfile %s: cannot open: %m", path);
    smp_status s = smp_hostfile_read(f, nodes, node_of_rank, ranks, err);
    if (f != stdin)
        fclose(f);
    if (!s && *ranks == 0)
        s = smp_error_set(err, SMP_ERR_INPUT, "--hostfile %s: holds no ranks", path);
    return s;
}

int cmd_score(int argc, char **argv)
{
    /* scoring by a measured profile: its own options (cmd_learn.c) */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strncmp(argv[i], "--profile", 9) || !strncmp(argv[i], "--nodes", 7) || !strncmp(argv[i], "--slots", 7))
            return cmd_score_profile(argc, argv);
    struct cli_opts o;
    int rc = cli_parse(argc, argv, "score", "h", &o);
    if (rc)
        return rc;
    smp_error err;
    smp_nodes nodes = {0};
    int32_t *node_of_rank = NULL;
    int64_t ranks = 0;
    if (read_hostfile(o.hostfile, &nodes, &node_of_rank, &ranks, &err)) {
        smp_nodes_free(&nodes);
        free(node_of_rank);
        return cli_fail(&err);
    }
    smp_spec spec;
    o.ranks = o.ranks ? o.ranks : ranks;
    if ((rc = cli_load_spec(&o, ranks, &spec)))
        goto out;
    if (spec.grid.size != ranks) {
        smp_error_set(&err, SMP_ERR_INPUT, "--hostfile: has %lld ranks but the grid holds %lld",
                      (long long)ranks, (long long)spec.grid.size);
        rc = cli_fail(&err);
        smp_spec_free(&spec);
        goto out;
    }
    smp_score sc;
    smp_levels lv;
    smp_links lk = {0};
    smp_placement lp = {0}; /* the levels' scores, as a plan reports them */
    if (nodes_in_name_order(&nodes, node_of_rank, ranks)) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "out of memory");
        rc = cli_fail(&err);
    } else if (!(rc = cli_levels_links_of(&o, &nodes, &lv, &lk))) {
        rc = cli_links_of(&o, &lv, &lk);
    }
    if (rc) {
        smp_links_free(&lk);
        smp_spec_free(&spec);
        goto out;
    }
    lp.nlevels = lv.nlevels;
    if (smp_score_compute(&spec.grid, &spec.stencil, node_of_rank, nodes.count, &sc, &err) ||
        smp_levels_score_compute(&spec.grid, &spec.stencil, node_of_rank, nodes.count, &lv,
                                 lp.level, &err) ||
        smp_link_score_compute(&spec.grid, &spec.stencil, node_of_rank, nodes.count, &lv, &lk,
                               &lp.link, &err))
        rc = cli_fail(&err);
    else if (o.json)
        print_score_json(&spec, &nodes, ranks, &sc, &lp, &lv);
    else
        print_score_text(&o, &spec, &nodes, node_of_rank, ranks, &sc, &lp, &lv);
    smp_levels_free(&lv);
    smp_links_free(&lk);
    smp_spec_free(&spec);
out:
    smp_nodes_free(&nodes);
    free(node_of_rank);
    return rc;
}
