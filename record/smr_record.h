/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The audit record: one JSON file per step the SPANK plugin acted on,
 * written by the user's srun (placed, fallen back to blocked, or not
 * launched at all, and why), read by stencil-map audit.  One struct, one
 * writer, one reader; file names in smr_names.h, the in-job result beside
 * it in smr_verify.h.  Format SM_FORMAT_RECORD
 * (placement/formats/format_numbers.h): a record without "format" is
 * format 1, a newer one is refused.  Fields added within format 1 are
 * optional on reading: launched (absent: true,
 * every older record was of a launched step), error, the timings,
 * objective, effort, grid.order, the socket fields of bind=socket
 * steps, and "topology" of steps planned on network levels
 * (smr_record_levels.c), and "origin" of records the reorder library
 * wrote inside an application (smr_record_origin.c). */
#ifndef SMR_RECORD_H
#define SMR_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stencilmap/placement.h>

#include "smr_names.h"

/* What a record says the plugin did. */
typedef enum {
    SMR_KIND_PLACED,   /* a plan: grid, stencil, figures and placement */
    SMR_KIND_FALLBACK, /* on_error=blocked: Slurm's block layout, and why */
    SMR_KIND_NOTHING   /* algorithm_used null: the plan failed, nothing placed */
} smr_kind;

/* A placement entry naming no node of the record (a hand-edited record):
 * node_of_rank holds -1 there, and the name is kept here. */
typedef struct {
    int64_t rank;
    char *name;
} smr_stray;

/* The links above one level's groups, as the topology gave them: how
 * many groups are switches, their uplinks (parents listing them) and
 * LinkSpeed= (0: not given), as ranges over the groups. */
typedef struct {
    int groups, uplinks_min, uplinks_max;
    int64_t speed_min, speed_max;
} smr_links;

/* A record written inside the application, not by the plugin: who wrote
 * it (source "" in the plugin's records), for which MPI call, whether the
 * plan's order was taken or MPI's kept and why, and both orders' figures. */
typedef struct {
    char source[48];         /* "libstencilmap-reorder" */
    char call[48];           /* "MPI_Cart_create" */
    bool reordered;          /* false: MPI's order kept */
    char why[600];           /* why it was kept; "" null */
    int64_t planned_j_sum, planned_j_max, mpi_j_sum, mpi_j_max;
} smr_origin;

typedef struct {
    int format;              /* as read; the writer writes SM_FORMAT_RECORD */
    char version[64];        /* stencilmap_version as read, "" when absent */
    int64_t job_id;
    int64_t step_id;         /* SMR_NO_STEP: the step was never created */
    char user[256];
    int64_t uid;
    char time[64];           /* smr_time_now() */
    char spec[1024];         /* "" null */
    char spec_source[64];    /* "option", "env", "default"; "" null */
    smp_nodes nodes;         /* names and slots of the allocation */
    bool launched;
    char error[1024];        /* why it failed, fell back or never launched; "" null */
    double plugin_ms, plugin_cpu_ms, alloc_check_ms; /* -1: not recorded */
    smr_kind kind;
    char fallback[640];      /* SMR_KIND_FALLBACK: the reason */
    char alg_requested[32], alg_override[32], alg_used[32]; /* "" null */
    /* SMR_KIND_PLACED only */
    char objective[16];      /* "sum", "max"; "" when not recorded */
    int64_t effort;          /* auto's effort; 0 when not recorded */
    int64_t ranks;
    smp_grid grid;
    bool grid_order_given;   /* "order" is in the record (older ones are row-major) */
    smp_stencil stencil;     /* name "" is written as "custom" */
    int64_t j_sum, j_max, blocked_j_sum, blocked_j_max;
    char hostfile[1280];
    int64_t placement_count;
    int32_t *node_of_rank;   /* into nodes; -1: a stray name */
    int64_t stray_count;
    smr_stray *strays;       /* by rank */
    /* bind=socket steps: inter-socket edges of the split and of the naive
     * one (consecutive ranks per socket), as the plugin computed them */
    bool bound;
    int32_t *sockets;        /* per node */
    int64_t socket_j_sum, socket_j_max, naive_socket_j_sum, naive_socket_j_max;
    char sockets_note[512];  /* "" null */
    /* steps planned on network levels above the nodes: levels.nlevels 0
     * (no "topology" in the record) otherwise.  Written from the plugin's
     * levels (borrowed); read into arrays smr_record_free releases. */
    smp_levels levels;       /* nnodes = nodes.count; source "slurm (topology/tree)", "file P" */
    char topology_kind[32];  /* "topology/tree", "topology/block" */
    char levels_mode[16];    /* how auto planned on them: "best", "groups-first",
                              * "nodes-first"; "" in older records (best) */
    smp_score level_planned[SMP_MAX_LEVELS], level_blocked[SMP_MAX_LEVELS];
    /* what the topology's reader repaired (Slurm accepts it, the levels
     * would not nest): warning lines each ending in '\n', NULL when none
     * ("topology_warnings"; written: borrowed, read: owned); and the links
     * above each level's groups ("links" of topology.levels[]; groups 0:
     * none given).  Both absent in older records. */
    char *topology_warnings;
    smr_links links[SMP_MAX_LEVELS];
    /* the busiest link as planned ("busiest_link" of "topology", absent in
     * older records: link_l_max -1): L_max, its lower bound, the routing
     * and the uplink counts per group the plan was scored with, as ranges
     * over each level's groups (smr_record_busiest.c) */
    double link_l_max, link_bound;
    char link_routing[16];   /* "static", "adaptive", "direct" */
    int link_uplinks_min[SMP_MAX_LEVELS], link_uplinks_max[SMP_MAX_LEVELS];
    /* each group's uplink count in the level's group order, where the
     * counts differ ("per_group" of the level's "uplinks" entry); NULL
     * where they are equal (then min) or in older records.  Written:
     * borrowed; read: owned */
    int32_t *link_uplinks_per_group[SMP_MAX_LEVELS];
    /* each level's uplink speed against a node's link, as the site stated
     * it (uplink_speed=; "speed" of the level's "uplinks" entry); 0 where
     * none was stated (a node link's, 1) and in older records */
    double link_speed[SMP_MAX_LEVELS];
    smr_origin origin;       /* placed records only; "origin" absent: source "" */
} smr_record;

/* A record ready to be filled: nothing placed, ids and figures -1. */
void smr_record_init(smr_record *rec);

/* Writes rec into the directory dir_fd (called dir in messages), which
 * the caller opened and checked, as <job>.<step>.json (or the first free
 * <job>.<step>.<k>.json; pid names a record without a step), atomically
 * (smr_atomic.h).  Only reads rec.  0 with the file's name in name, or -1
 * with a message. */
int smr_record_write_at(int dir_fd, const char *dir, const smr_record *rec, long pid,
                        char *name, size_t name_len, char *msg, size_t n);
/* The record as JSON text (indented, keys in the writer's order),
 * malloc'd; NULL when out of memory. */
char *smr_record_dumps(const smr_record *rec);

/* Reads a record.  Types are checked, not whether the fields agree with
 * each other (the audit's checks), so that a hand-edited record is
 * reported as inconsistent rather than unreadable.  0, or -1 with err
 * naming the field; free with smr_record_free() in either case. */
int smr_record_read(const char *path, smr_record *rec, char *err, size_t n);
/* Only the record's "time", for choosing records by date; -1 when the
 * file or its time cannot be read. */
int smr_record_read_time(const char *path, char *out, size_t n);
/* Frees what smr_record_read() allocated (never a record the caller
 * filled with its own arrays). */
void smr_record_free(smr_record *rec);
/* The node rank r was placed on, as the record names it (a stray name
 * too), or NULL when r is beyond the placement. */
const char *smr_record_node_of(const smr_record *rec, int64_t r);

#endif
