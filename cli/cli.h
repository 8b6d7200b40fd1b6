/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared pieces of the stencil-map subcommands. */
#ifndef STENCILMAP_CLI_H
#define STENCILMAP_CLI_H

#include <jansson.h>
#include <stencilmap/placement.h>

#include "launchers.h"

/* Options every subcommand understands (not all use each). */
struct cli_opts {
    const char *spec;
    const char *nodes;
    const char *slots;
    const char *hostfile;
    const char *sockets;    /* --sockets COUNTS, per node */
    const char *socketfile; /* --socketfile FILE */
    const char *hostfiles;  /* compare --hostfiles DIR: one hostfile per row */
    sml_launcher launcher;  /* --launcher NAME, default slurm */
    const char *output;     /* --output FILE (plan: --hostfile FILE too) */
    const char *output_option; /* the option that named it, for messages */
    bool env;               /* --env */
    int64_t ranks;
    bool have_algorithm;
    smp_algorithm algorithm;
    bool json;
    bool map;
    const char *topology;   /* --topology FILE|none */
    bool topology_strict;   /* --topology-strict: refuse what is otherwise repaired */
    smp_levels_mode levels_mode; /* --levels-mode */
    smp_routing routing;    /* --routing, default SMP_ROUTING_DEFAULT */
    const char *uplinks;    /* --uplinks N[,N...]: per level, overriding the topology's */
    const char *uplink_speed; /* --uplink-speed S[,S...]: per level, in node links */
    int64_t job_ranks;         /* SLURM_NTASKS when --nodes/--slots came from the job */
    const char *job_ranks_var; /* the variable it came from (or SLURM_NPROCS) */
};

/* Inside an allocation, with neither --nodes nor --slots given, takes them
 * from SLURM_JOB_NODELIST and the launcher's slots variable,
 * SLURM_JOB_CPUS_PER_NODE or SLURM_TASKS_PER_NODE (and job_ranks from
 * SLURM_NTASKS) and says so on stderr; does nothing elsewhere. */
void cli_job_defaults(struct cli_opts *o);

/* Parses argv after the subcommand name; prints usage and returns 2 on
 * error, also for an option the subcommand does not use.  needs lists the
 * options the subcommand requires: 'n' nodes and slots, 'h' hostfile. */
int cli_parse(int argc, char **argv, const char *cmd, const char *needs, struct cli_opts *o);
/* Loads the spec; automatic dims take --ranks, else the job's task count,
 * else auto_ranks. */
int cli_load_spec(const struct cli_opts *o, int64_t auto_ranks, smp_spec *spec);
/* Adds the grid and stencil of spec to a JSON object. */
void cli_json_spec(json_t *obj, const smp_spec *spec);
/* The figure auto minimises first for spec (its objective, weighted when
 * the stencil has weights): "j_max", "weighted_j_max", "j_sum" or
 * "weighted_j_sum" (the JSON key "minimised"), and in words for tables,
 * e.g. "weighted J_max, then weighted J_sum". */
const char *cli_minimised(const smp_spec *spec);
const char *cli_objective_text(const smp_spec *spec);
/* Plans spec on nodes with algorithm alg, for the spec's objective and
 * effort, on the network levels (NULL or none: as without). */
smp_status cli_plan(const smp_spec *spec, const smp_nodes *nodes, smp_algorithm alg,
                    const smp_levels *levels, smp_levels_mode mode, smp_placement *out,
                    smp_error *err);
/* cli_plan on the links above the levels too (auto then chooses by L_max,
 * smp_plan_opts.links); links NULL: as cli_plan. */
smp_status cli_plan_links(const smp_spec *spec, const smp_nodes *nodes, smp_algorithm alg,
                          const smp_levels *levels, smp_levels_mode mode, const smp_links *links,
                          smp_placement *out, smp_error *err);

/* The network levels above nodes (topology_option.c): --topology FILE, none, or
 * inside an allocation Slurm's (scontrol show topology), said on stderr.
 * Non-zero: the exit code (a bad --topology file: 2). */
int cli_levels_of(const struct cli_opts *o, const smp_nodes *nodes, smp_levels *lv);
/* What the topology behind cli_levels_of said beyond the groups: the
 * repairs' warning lines (NULL when none), and per level the links above
 * its groups (smt_level_links: groups that are switches, their uplinks
 * and LinkSpeed=), printed and put in the JSON by the two below. */
const char *cli_topology_warnings(void);
/* plan's lines for them: one per level with switches, one per repair
 * (when lv has levels: a step they do not split is summed up as without). */
void cli_topology_print(FILE *out, const smp_levels *lv);
/* "topology_warnings": [lines] into obj, and "links" into each element
 * of levels (cli_levels_json's array; may be NULL). */
void cli_topology_json(json_t *obj, json_t *levels);
/* cli_levels_of, and into lk (when not NULL) each group's uplinks as the
 * topology has them: its parent switches (smt_uplinks), at least 1. */
int cli_levels_links_of(const struct cli_opts *o, const smp_nodes *nodes, smp_levels *lv,
                        smp_links *lk);
/* The links above lv's groups (links_option.c): --routing, and --uplinks
 * over the topology's counts, level by level (values past the step's
 * levels are not used, said on stderr); non-zero: the exit code (2:
 * --uplinks malformed). */
int cli_links_of(const struct cli_opts *o, const smp_levels *lv, smp_links *lk);
/* "L_max 48 (static routing; busiest: a leaf's uplink, leaf3), bound 40"
 * into buf (returned). */
const char *cli_link_text(const smp_link_score *ls, const smp_levels *lv, char *buf, size_t n);
/* {"l_max", "bound", "node_max", "level", "where", "direction"} */
json_t *cli_link_json(const smp_link_score *ls, const smp_levels *lv);
/* The uplink speed of each level (1 where none was given), as JSON and as
 * ", uplink speed 0.25,1" into buf; NULL and "" when no level has one. */
json_t *cli_speeds_json(const smp_links *lk, const smp_levels *lv);
void cli_speeds_text(const smp_links *lk, const smp_levels *lv, char *buf, size_t n);
/* One summary line per level: pl's inter-group figures (and blocked's). */
void cli_levels_print(const smp_placement *pl, const smp_placement *blocked, const smp_levels *lv,
                      bool weighted);
/* The same as the JSON array "levels". */
json_t *cli_levels_json(const smp_placement *pl, const smp_placement *blocked,
                        const smp_levels *lv, bool weighted);
/* Prints obj (a command's --json answer) to stdout with its version and
 * format first, then a newline; takes the reference. */
void cli_json_print(json_t *obj, size_t flags);
/* stencil-map --version */
void cli_version(FILE *out);
/* Writes pl's hostfile (line r = node of rank r) to path, "-" for stdout;
 * what names the file in messages: "--hostfile FILE" or the like. */
int cli_write_hostfile(const char *path, const char *what, const smp_nodes *nodes,
                       const smp_placement *pl);
/* Prints "stencil-map: <msg>" and returns the status as exit code. */
int cli_fail(const smp_error *err);
double cli_now(void);

/* Sockets per node from --sockets, else the spec's "sockets"; *sockets is
 * NULL (and 0 returned) when neither gives them.  Non-zero: exit code. */
int cli_sockets_of(const struct cli_opts *o, const smp_spec *spec, const smp_nodes *nodes,
                   int32_t **sockets);
/* Splits pl's nodes over their sockets; fills the split's and the naive
 * split's inter-socket scores, and *socket_of_rank if not NULL. */
int cli_socket_split(const smp_spec *spec, const smp_placement *pl, const int32_t *sockets,
                     int32_t **socket_of_rank, smp_socket_score *planned,
                     smp_socket_score *naive);

/* plan's --launcher, --output/--hostfile and --env (launcher_output.c):
 * checks their combination (and makes --hostfile the slurm --output),
 * writes the output file in the launcher's format (removed again if that
 * fails), prints the --env settings; non-zero: the exit code. */
int cli_launcher_options(struct cli_opts *o);
int cli_launcher_write(const struct cli_opts *o, const smp_spec *spec, const smp_nodes *nodes,
                       const smp_placement *pl, const int32_t *socket_of_rank);
int cli_launcher_env(const struct cli_opts *o, const smp_spec *spec, const smp_nodes *nodes,
                     const smp_levels *levels, const smp_placement *pl,
                     const smp_placement *blocked);

/* What plan and compare work on (instance.c). */
struct cli_instance {
    struct cli_opts o;
    smp_nodes nodes;
    smp_spec spec;
    int32_t *sockets; /* sockets per node, or NULL */
    smp_levels levels; /* the network above the nodes (nlevels 0: none) */
    smp_links links;   /* their uplinks and the routing */
};
/* Parses the options (cmd needs --nodes and --slots), the nodes, the spec
 * and the sockets; non-zero: the exit code, with nothing left to free. */
int cli_instance_load(int argc, char **argv, const char *cmd, struct cli_instance *in);
void cli_instance_free(struct cli_instance *in);

int cmd_plan(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_draw(int argc, char **argv);
int cmd_audit(int argc, char **argv);
/* learn DIR, and score SPEC --profile DIR (cmd_learn.c) */
int cmd_learn(int argc, char **argv);
int cmd_score_profile(int argc, char **argv);
/* learned list | show APP | forget APP|--all (cmd_learned.c) */
int cmd_learned(int argc, char **argv);
/* dims N --ndims D [...]: seed 003's weighted dims beside MPI_Dims_create's
 * (cmd_dims.c) */
int cmd_dims(int argc, char **argv);
/* The overview, and one subcommand's --help (usage.c). */
void cli_usage(FILE *out);
void cli_usage_of(const char *cmd, FILE *out);
/* Parses a positive rank count; false when it is not one. */
bool cli_parse_ranks(const char *arg, int64_t *ranks);
/* Draws the placement of a small grid, one letter per node. */
void cli_print_map(FILE *out, const smp_grid *grid, const smp_placement *pl, const smp_nodes *nodes);

#endif
