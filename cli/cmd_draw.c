/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map draw: an SVG picture of a placement beside blocked, either
 * planned here (--nodes/--slots) or read from a hostfile. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "cli.h"
#include "svg.h"

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "stencil-map draw: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    cli_usage_of("draw", stderr);
    return SMP_ERR_INPUT;
}

static const smp_nodes *sort_base;
static int by_natural(const void *a, const void *b)
{
    return audit_name_cmp(sort_base->names[*(const int *)a], sort_base->names[*(const int *)b]);
}

/* The hostfile's nodes in natural name order, each with the ranks it
 * holds as its slots: the allocation a blocked launch would have used
 * when none is given. */
static int nodes_from_hostfile(const smp_nodes *hf, const int32_t *hnode, int64_t ranks,
                               smp_nodes *nodes, int *map)
{
    int *order = malloc(sizeof(int) * (size_t)hf->count);
    nodes->names = calloc((size_t)hf->count, sizeof(char *));
    nodes->slots = calloc((size_t)hf->count, sizeof(int32_t));
    if (!order || !nodes->names || !nodes->slots) {
        free(order);
        return -1;
    }
    for (int i = 0; i < hf->count; i++)
        order[i] = i;
    sort_base = hf;
    qsort(order, (size_t)hf->count, sizeof(int), by_natural);
    for (int k = 0; k < hf->count; k++) {
        if (!(nodes->names[k] = strdup(hf->names[order[k]]))) {
            free(order);
            return -1;
        }
        nodes->count = k + 1;
        map[order[k]] = k;
    }
    free(order);
    for (int64_t r = 0; r < ranks; r++)
        nodes->slots[map[hnode[r]]]++;
    for (int k = 0; k < nodes->count; k++)
        nodes->total_slots += nodes->slots[k];
    return 0;
}

/* --hostfile: the placement in terms of nodes (given or derived) */
static int read_placement(const struct cli_opts *o, smp_nodes *nodes, int32_t **plan,
                          int64_t *ranks)
{
    smp_error err;
    FILE *f = strcmp(o->hostfile, "-") ? fopen(o->hostfile, "r") : stdin;
    if (!f) {
        smp_error_set(&err, SMP_ERR_INPUT, "--hostfile %s: cannot open: %m", o->hostfile);
        return cli_fail(&err);
    }
    smp_nodes hf = {0};
    int32_t *hnode = NULL;
    smp_status s = smp_hostfile_read(f, &hf, &hnode, ranks, &err);
    if (f != stdin)
        fclose(f);
    if (!s && *ranks == 0)
        s = smp_error_set(&err, SMP_ERR_INPUT, "--hostfile %s: holds no ranks", o->hostfile);
    int *map = s ? NULL : calloc((size_t)hf.count, sizeof(int));
    *plan = s ? NULL : malloc(sizeof(int32_t) * (size_t)*ranks);
    if (!s && (!map || !*plan))
        s = smp_error_set(&err, SMP_ERR_SYSTEM, "out of memory");
    if (!s && o->nodes) {
        if (!(s = smp_nodes_parse(nodes, o->nodes, o->slots, &err)))
            for (int i = 0; i < hf.count && !s; i++) {
                map[i] = -1;
                for (int k = 0; k < nodes->count; k++)
                    if (!strcmp(nodes->names[k], hf.names[i]))
                        map[i] = k;
                if (map[i] < 0)
                    s = smp_error_set(&err, SMP_ERR_INPUT, "--hostfile: node '%s' is not in --nodes",
                                      hf.names[i]);
            }
    } else if (!s && nodes_from_hostfile(&hf, hnode, *ranks, nodes, map)) {
        s = smp_error_set(&err, SMP_ERR_SYSTEM, "out of memory");
    }
    if (!s) {
        int64_t *used = calloc((size_t)nodes->count, sizeof(int64_t));
        if (!used)
            s = smp_error_set(&err, SMP_ERR_SYSTEM, "out of memory");
        for (int64_t r = 0; !s && r < *ranks; r++)
            used[(*plan)[r] = map[hnode[r]]]++;
        for (int k = 0; !s && k < nodes->count; k++)
            if (used[k] > nodes->slots[k])
                s = smp_error_set(&err, SMP_ERR_INPUT,
                                  "--hostfile: node %s holds %lld ranks but --slots gives it %d",
                                  nodes->names[k], (long long)used[k], nodes->slots[k]);
        free(used);
    }
    smp_nodes_free(&hf);
    free(hnode);
    free(map);
    return s ? cli_fail(&err) : 0;
}

/* What the command line asks for: the planning options, the SVG file and
 * its title. */
struct draw_args {
    struct cli_opts o;
    const char *svg, *title;
    bool by_group; /* --colour-by group: the cells of each level-0 group in one colour */
};

/* Reads and checks argv; returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct draw_args *a)
{
    static const struct option longopts[] = {
        {"hostfile", required_argument, NULL, 'f'}, {"svg", required_argument, NULL, 'o'},
        {"nodes", required_argument, NULL, 'N'},    {"slots", required_argument, NULL, 'S'},
        {"ranks", required_argument, NULL, 'n'},    {"algorithm", required_argument, NULL, 'a'},
        {"title", required_argument, NULL, 't'},    {"help", no_argument, NULL, 'h'},
        {"topology", required_argument, NULL, 'T'}, {"colour-by", required_argument, NULL, 'C'},
        {"color-by", required_argument, NULL, 'C'}, {"topology-strict", no_argument, NULL, 'X'},
        {NULL, 0, NULL, 0},
    };
    struct cli_opts *o = &a->o;
    memset(a, 0, sizeof(*a));
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': o->hostfile = optarg; break;
        case 'o': a->svg = optarg; break;
        case 'N': o->nodes = optarg; break;
        case 'S': o->slots = optarg; break;
        case 't': a->title = optarg; break;
        case 'T': o->topology = optarg; break;
        case 'X': o->topology_strict = true; break;
        case 'C':
            if (strcmp(optarg, "node") && strcmp(optarg, "group"))
                return usage_error("--colour-by: node or group, not", optarg);
            a->by_group = !strcmp(optarg, "group");
            break;
        case 'h': cli_usage_of("draw", stdout); return 0;
        case 'a':
            if (!smp_algorithm_from_name(optarg, &o->algorithm))
                return usage_error("--algorithm: unknown algorithm", optarg);
            o->have_algorithm = true;
            break;
        case 'n':
            if (!cli_parse_ranks(optarg, &o->ranks))
                return usage_error("--ranks: must be a positive integer, not", optarg);
            break;
        case ':': return usage_error("missing value for", argv[optind - 1]);
        default: return usage_error("unknown option", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return usage_error(optind >= argc ? "missing SPEC" : "exactly one SPEC expected, extra:",
                           optind >= argc ? NULL : argv[optind + 1]);
    o->spec = argv[optind];
    if (!a->svg)
        return usage_error("--svg is required", NULL);
    if (!o->hostfile)
        cli_job_defaults(o);
    if (!o->nodes != !o->slots)
        return usage_error(o->nodes ? "--slots is required with --nodes" : "--nodes is required with --slots",
                           NULL);
    if (!o->hostfile && !o->nodes)
        return usage_error("give --nodes and --slots to plan, or --hostfile to draw a placement", NULL);
    if (o->hostfile && o->have_algorithm)
        return usage_error("--algorithm plans; a --hostfile placement is drawn as it is", NULL);
    return -1;
}

/* What is drawn: the nodes, the spec, the placement (read from the hostfile
 * or planned here) and, beside it, Slurm's block layout. */
struct drawing {
    smp_nodes nodes;
    smp_spec spec;
    bool have_spec;
    int32_t *plan; /* planned.node_of_rank, or read from the hostfile */
    smp_placement planned, blocked;
    smp_levels levels;
    char label[600];
};

static void drawing_free(struct drawing *d)
{
    if (d->have_spec)
        smp_spec_free(&d->spec);
    if (d->plan != d->planned.node_of_rank)
        free(d->plan);
    smp_placement_free(&d->planned);
    smp_placement_free(&d->blocked);
    smp_levels_free(&d->levels);
    smp_nodes_free(&d->nodes);
}

/* Plans the spec on --nodes/--slots and names the algorithm that did. */
static int plan_here(struct drawing *d)
{
    smp_error err;
    if (cli_plan(&d->spec, &d->nodes, d->spec.algorithm, d->levels.nlevels ? &d->levels : NULL,
                 SMP_LEVELS_BEST, &d->planned, &err))
        return cli_fail(&err);
    d->plan = d->planned.node_of_rank;
    const char *name = smp_algorithm_name(d->planned.algorithm);
    if (d->spec.algorithm == SMP_ALG_AUTO)
        snprintf(d->label, sizeof(d->label), "%s (chosen by auto)", name);
    else
        snprintf(d->label, sizeof(d->label), "%s", name);
    return 0;
}

static int prepare(struct cli_opts *o, struct drawing *d)
{
    smp_error err;
    int64_t ranks = 0;
    int rc;
    if (o->hostfile) {
        if ((rc = read_placement(o, &d->nodes, &d->plan, &ranks)))
            return rc;
        if (!o->ranks)
            o->ranks = ranks;
        snprintf(d->label, sizeof(d->label), "placement of %.500s", o->hostfile);
    } else if (smp_nodes_parse(&d->nodes, o->nodes, o->slots, &err)) {
        return cli_fail(&err);
    }
    if ((rc = cli_load_spec(o, o->hostfile ? ranks : d->nodes.total_slots, &d->spec)))
        return rc;
    d->have_spec = true;
    if ((rc = cli_levels_of(o, &d->nodes, &d->levels)))
        return rc;
    if (o->hostfile && d->spec.grid.size != ranks) {
        smp_error_set(&err, SMP_ERR_INPUT, "--hostfile: has %lld ranks but the grid holds %lld",
                      (long long)ranks, (long long)d->spec.grid.size);
        return cli_fail(&err);
    }
    if (!o->hostfile && (rc = plan_here(d)))
        return rc;
    if (smp_plan(&d->spec.grid, &d->spec.stencil, d->nodes.slots, d->nodes.count,
                 SMP_ALG_BLOCKED, &d->blocked, &err))
        return cli_fail(&err);
    return 0;
}

/* --colour-by group: the picture's "nodes" become the groups of level 0,
 * so colours, legend and figures are the groups'. */
static int by_group(struct drawing *d)
{
    const smp_levels *lv = &d->levels;
    int64_t p = d->spec.grid.size;
    int32_t *plan = malloc(sizeof(int32_t) * (size_t)p), *blk = malloc(sizeof(int32_t) * (size_t)p);
    char **names = calloc((size_t)lv->ngroups[0], sizeof(char *));
    int32_t *slots = calloc((size_t)lv->ngroups[0], sizeof(int32_t));
    if (!plan || !blk || !names || !slots) {
        free(plan);
        free(blk);
        free(names);
        free(slots);
        smp_error err;
        smp_error_set(&err, SMP_ERR_SYSTEM, "draw: out of memory");
        return cli_fail(&err);
    }
    for (int64_t r = 0; r < p; r++) {
        plan[r] = lv->group_of_node[0][d->plan[r]];
        blk[r] = lv->group_of_node[0][d->blocked.node_of_rank[r]];
    }
    for (int g = 0; g < lv->ngroups[0]; g++)
        names[g] = strdup(lv->group_names[0] && lv->group_names[0][g] ? lv->group_names[0][g] : "?");
    for (int n = 0; n < d->nodes.count; n++)
        slots[lv->group_of_node[0][n]] += d->nodes.slots[n];
    smp_nodes_free(&d->nodes);
    d->nodes = (smp_nodes){.count = lv->ngroups[0], .names = names, .slots = slots};
    if (d->plan != d->planned.node_of_rank)
        free(d->plan);
    d->plan = plan;
    free(d->blocked.node_of_rank);
    d->blocked.node_of_rank = blk;
    size_t k = strlen(d->label);
    snprintf(d->label + k, sizeof(d->label) - k, ", by group of %.200s", lv->source);
    return 0;
}

int cmd_draw(int argc, char **argv)
{
    struct draw_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    struct drawing d;
    memset(&d, 0, sizeof(d));
    rc = prepare(&a.o, &d);
    if (!rc && a.by_group && d.levels.nlevels == 0) {
        smp_error err;
        smp_error_set(&err, SMP_ERR_INPUT, "--colour-by group: no network levels for these nodes "
                      "(give --topology FILE)");
        rc = cli_fail(&err);
    }
    if (!rc && a.by_group)
        rc = by_group(&d);
    if (!rc) {
        char deftitle[1200];
        snprintf(deftitle, sizeof(deftitle), "stencil-map: %.1000s", a.o.spec);
        svg_input in = {.title = a.title ? a.title : deftitle,
                        .grid = &d.spec.grid,
                        .stencil = &d.spec.stencil,
                        .nodes = &d.nodes,
                        .plan = d.plan,
                        .plan_label = d.label,
                        .blocked = d.blocked.node_of_rank};
        rc = svg_write_file(a.svg, &in);
    }
    drawing_free(&d);
    return rc;
}
