/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Option parsing and spec loading shared by the subcommands. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "formats/format_numbers.h"

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int cli_write_hostfile(const char *path, const char *what, const smp_nodes *nodes,
                       const smp_placement *pl)
{
    smp_error err;
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "%s %s: cannot create: %m", what, path);
        return cli_fail(&err);
    }
    smp_status s = smp_hostfile_write(f, nodes, pl, &err);
    if (f != stdout && fclose(f) != 0 && !s)
        s = smp_error_set(&err, SMP_ERR_SYSTEM, "%s %s: write failed", what, path);
    return s ? cli_fail(&err) : 0;
}

int cli_fail(const smp_error *err)
{
    fprintf(stderr, "stencil-map: %s\n", err->msg);
    return err->status ? (int)err->status : 1;
}

static int usage_error(const char *cmd, const char *msg, const char *arg)
{
    fprintf(stderr, "stencil-map %s: %s%s%s\n", cmd, msg, arg ? " " : "", arg ? arg : "");
    cli_usage_of(cmd, stderr);
    return SMP_ERR_INPUT;
}

bool cli_parse_ranks(const char *arg, int64_t *ranks)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (errno || end == arg || *end || v < 1 || v > SMP_MAX_RANKS)
        return false;
    *ranks = v;
    return true;
}

/* The options each subcommand uses; the shared parser refuses the others
 * rather than ignore them silently. */
static bool option_used(const char *cmd, const char *opt)
{
    static const struct {
        const char *cmd, *opts;
    } used[] = {
        {"plan", " nodes slots ranks algorithm hostfile sockets socketfile json map topology "
                 "topology-strict levels-mode routing uplinks uplink-speed launcher output env "},
        {"score", " hostfile ranks json map topology topology-strict routing uplinks "
                  "uplink-speed "},
        {"compare", " nodes slots ranks sockets hostfiles json map topology topology-strict "
                    "levels-mode routing uplinks uplink-speed "},
    };
    char key[40];
    snprintf(key, sizeof(key), " %s ", opt);
    for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
        if (!strcmp(used[i].cmd, cmd))
            return strstr(used[i].opts, key) != NULL;
    return true;
}

void cli_job_defaults(struct cli_opts *o)
{
    if (o->nodes || o->slots)
        return;
    /* the slots as the launcher counts them: srun's arbitrary distribution
     * the CPUs, mpirun and Cray MPICH the tasks per node */
    const char *var = sml_slots_variable(o->launcher);
    const char *hl = getenv("SLURM_JOB_NODELIST"), *cpus = getenv(var);
    if (!hl || !*hl || !cpus || !*cpus)
        return;
    o->nodes = hl;
    o->slots = cpus;
    fprintf(stderr, "stencil-map: inside an allocation: --nodes '%s' --slots '%s' from "
                    "SLURM_JOB_NODELIST and %s\n",
            hl, cpus, var);
    o->job_ranks_var = "SLURM_NTASKS";
    const char *nt = getenv("SLURM_NTASKS");
    if (!nt || !*nt)
        nt = getenv(o->job_ranks_var = "SLURM_NPROCS");
    if (nt && *nt && !cli_parse_ranks(nt, &o->job_ranks)) {
        fprintf(stderr, "stencil-map: ignoring %s '%s': not a positive rank count\n", o->job_ranks_var,
                nt);
        o->job_ranks = 0;
    }
}

/* --routing R into o; non-zero (with the usage) when R is neither. */
static int routing_option(const char *cmd, const char *arg, struct cli_opts *o)
{
    if (smp_routing_from_name(arg, &o->routing))
        return 0;
    return usage_error(cmd, "--routing: static, adaptive or direct, not", arg);
}

/* every subcommand's options; option_used says which each takes */
static const struct option longopts[] = {
    {"nodes", required_argument, NULL, 'N'},   {"slots", required_argument, NULL, 'S'},
    {"ranks", required_argument, NULL, 'n'},   {"algorithm", required_argument, NULL, 'a'},
    {"hostfile", required_argument, NULL, 'f'}, {"json", no_argument, NULL, 'j'},
    {"map", no_argument, NULL, 'm'},           {"help", no_argument, NULL, 'h'},
    {"sockets", required_argument, NULL, 'k'}, {"socketfile", required_argument, NULL, 'K'},
    {"topology", required_argument, NULL, 't'}, {"levels-mode", required_argument, NULL, 'M'},
    {"launcher", required_argument, NULL, 'L'}, {"output", required_argument, NULL, 'o'},
    {"env", no_argument, NULL, 'e'},           {"hostfiles", required_argument, NULL, 'D'},
    {"topology-strict", no_argument, NULL, 'X'}, {"routing", required_argument, NULL, 'R'},
    {"uplinks", required_argument, NULL, 'U'}, {"uplink-speed", required_argument, NULL, 'W'},
    {NULL, 0, NULL, 0},
};

int cli_parse(int argc, char **argv, const char *cmd, const char *needs, struct cli_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->routing = SMP_ROUTING_DEFAULT;
    opterr = 0;
    optind = 1;
    int c, idx;
    while ((idx = -1, c = getopt_long(argc, argv, ":h", longopts, &idx)) != -1) {
        if (idx >= 0 && c != 'h' && !option_used(cmd, longopts[idx].name)) {
            char opt[48];
            snprintf(opt, sizeof(opt), "--%s", longopts[idx].name);
            return usage_error(cmd, "this command does not take", opt);
        }
        switch (c) {
        case 'N': o->nodes = optarg; break;
        case 'S': o->slots = optarg; break;
        case 'f': o->hostfile = optarg; break;
        case 'k': o->sockets = optarg; break;
        case 'K': o->socketfile = optarg; break;
        case 'D': o->hostfiles = optarg; break;
        case 'j': o->json = true; break;
        case 'o': o->output = optarg; break;
        case 'e': o->env = true; break;
        case 'L':
            if (!sml_from_name(optarg, &o->launcher)) {
                fprintf(stderr, "stencil-map %s: --launcher: unknown launcher '%s' (one of %s)\n",
                        cmd, optarg, sml_names());
                cli_usage_of(cmd, stderr);
                return SMP_ERR_INPUT;
            }
            break;
        case 'm': o->map = true; break;
        case 't': o->topology = optarg; break;
        case 'X': o->topology_strict = true; break;
        case 'M':
            if (!smp_levels_mode_from_name(optarg, &o->levels_mode))
                return usage_error(cmd, "--levels-mode: best, groups-first or nodes-first, not",
                                   optarg);
            break;
        case 'R': if (routing_option(cmd, optarg, o)) return SMP_ERR_INPUT; break;
        case 'U': o->uplinks = optarg; break;
        case 'W': o->uplink_speed = optarg; break;
        case 'h': cli_usage_of(cmd, stdout); exit(0);
        case 'a':
            if (!smp_algorithm_from_name(optarg, &o->algorithm))
                return usage_error(cmd, "--algorithm: unknown algorithm", optarg);
            o->have_algorithm = true;
            break;
        case 'n':
            if (!cli_parse_ranks(optarg, &o->ranks))
                return usage_error(cmd, "--ranks: must be a positive integer, not", optarg);
            break;
        case ':': return usage_error(cmd, "missing value for", argv[optind - 1]);
        default: return usage_error(cmd, "unknown option", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return usage_error(cmd, optind >= argc ? "missing SPEC" : "exactly one SPEC expected, extra:",
                           optind >= argc ? NULL : argv[optind + 1]);
    o->spec = argv[optind];
    if (strchr(needs, 'n'))
        cli_job_defaults(o);
    if (strchr(needs, 'n') && (!o->nodes || !o->slots))
        return usage_error(cmd, !o->nodes ? "--nodes is required" : "--slots is required", NULL);
    if (strchr(needs, 'h') && !o->hostfile)
        return usage_error(cmd, "--hostfile is required", NULL);
    return 0;
}

/* grid.dims "weighted" chooses the nodes' cut first when --nodes and
 * --slots are given (the spec's "sockets" then splits a node); the
 * other dims resolve on the task count alone */
static smp_status resolve_spec(const struct cli_opts *o, smp_spec *spec, int64_t ranks,
                               smp_error *err)
{
    if (!spec->dims_weighted || !o->nodes || !o->slots)
        return smp_spec_resolve(spec, ranks, err);
    smp_nodes nodes;
    smp_status s = smp_nodes_parse(&nodes, o->nodes, o->slots, err);
    if (!s)
        s = smp_spec_resolve_on(spec, ranks, nodes.count, nodes.slots, 0, NULL, NULL, err);
    smp_nodes_free(&nodes);
    return s;
}

int cli_load_spec(const struct cli_opts *o, int64_t auto_ranks, smp_spec *spec)
{
    smp_error err;
    smp_error_clear(&err);
    if (smp_spec_load(spec, o->spec, smp_specs_dir(), &err)) {
        smp_spec_free(spec);
        return cli_fail(&err);
    }
    int64_t ranks = o->ranks;
    if (!ranks && spec->dims_auto && o->job_ranks) {
        /* as srun --stencil-map takes the job's task count for auto dims */
        ranks = o->job_ranks;
        fprintf(stderr, "stencil-map: inside an allocation: --ranks %lld from %s\n", (long long)ranks,
                o->job_ranks_var);
    }
    if (resolve_spec(o, spec, ranks ? ranks : (spec->dims_auto ? auto_ranks : 0), &err)) {
        smp_spec_free(spec);
        return cli_fail(&err);
    }
    if (o->have_algorithm)
        spec->algorithm = o->algorithm;
    return 0;
}

void cli_json_spec(json_t *obj, const smp_spec *spec)
{
    json_t *dims = json_array(), *per = json_array();
    for (int i = 0; i < spec->grid.ndims; i++) {
        json_array_append_new(dims, json_integer(spec->grid.dims[i]));
        json_array_append_new(per, json_boolean(spec->grid.periods[i]));
    }
    json_object_set_new(obj, "dims", dims);
    json_object_set_new(obj, "periods", per);
    json_object_set_new(obj, "order", json_string(smp_order_name(spec->grid.order)));
    json_object_set_new(obj, "stencil", json_string(spec->stencil.name[0] ? spec->stencil.name : "custom"));
    json_object_set_new(obj, "offsets", json_integer(spec->stencil.count));
    json_object_set_new(obj, "objective", json_string(smp_objective_name(spec->objective)));
    json_object_set_new(obj, "effort",
                        json_integer(spec->effort ? spec->effort : SMP_EFFORT_DEFAULT));
}

smp_status cli_plan(const smp_spec *spec, const smp_nodes *nodes, smp_algorithm alg,
                    const smp_levels *levels, smp_levels_mode mode, smp_placement *out,
                    smp_error *err)
{
    return cli_plan_links(spec, nodes, alg, levels, mode, NULL, out, err);
}

smp_status cli_plan_links(const smp_spec *spec, const smp_nodes *nodes, smp_algorithm alg,
                          const smp_levels *levels, smp_levels_mode mode, const smp_links *links,
                          smp_placement *out, smp_error *err)
{
    smp_plan_opts opts = {alg, spec->objective, spec->effort, levels, mode, links};
    return smp_plan_with(&spec->grid, &spec->stencil, nodes->slots, nodes->count, &opts, out, err);
}

const char *cli_minimised(const smp_spec *spec)
{
    bool w = smp_stencil_weighted(&spec->stencil);
    if (spec->objective == SMP_OBJ_MAX)
        return w ? "weighted_j_max" : "j_max";
    return w ? "weighted_j_sum" : "j_sum";
}

const char *cli_objective_text(const smp_spec *spec)
{
    bool w = smp_stencil_weighted(&spec->stencil);
    if (spec->objective == SMP_OBJ_MAX)
        return w ? "weighted J_max, then weighted J_sum" : "J_max, then J_sum";
    return w ? "weighted J_sum, then weighted J_max" : "J_sum, then J_max";
}

void cli_json_print(json_t *obj, size_t flags)
{
    json_t *out = json_pack("{s:s,s:i}", "stencilmap_version", SM_VERSION, "format", SM_FORMAT_CLI);
    json_object_update(out, obj);
    json_decref(obj);
    json_dumpf(out, stdout, flags | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(out);
}

void cli_version(FILE *out)
{
    fprintf(out,
            "stencil-map (stencilmap) %s\n"
            "JSON formats: --json output %d, audit record %d, in-job result %d, learned spec %d\n"
            "License GPL-2.0-or-later; the placement library LGPL-2.1-or-later.\n",
            SM_VERSION, SM_FORMAT_CLI, SM_FORMAT_RECORD, SM_FORMAT_VERIFY, SM_FORMAT_LEARNED);
}
