/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The srun-side planning path: spec -> allocation -> plan -> hostfile ->
 * task environment.  The SPANK callback and the benchmark both call it. */
#ifndef SM_STEP_H
#define SM_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <stencilmap/placement.h>

#include "alloc.h"
#include "formats/task_env.h"
#include "policy.h"
#include "step_levels.h"

typedef enum { SM_SRC_OPTION = 0, SM_SRC_ENV, SM_SRC_DEFAULT } sm_spec_source;
const char *sm_source_name(sm_spec_source src);

typedef struct {
    char spec_text[1024];     /* the spec as given */
    const char *spec_json;    /* while planning: the spec's JSON text, when spec_text only names it */
    char label[640];          /* "" or the summary line's beginning (a learned spec's origin) */
    sm_spec_source source;
    bool active;              /* the plugin acted on this step (placed or fell back) */
    bool placed;              /* a plan and its hostfile exist */
    bool fallback;            /* on_error=blocked: launched without placement */
    char error[640];          /* the error behind a failure or a fallback */
    bool have_spec, have_nodes;
    smp_spec spec;
    smp_nodes nodes;
    smp_algorithm requested;  /* after the site's algorithm= override */
    smp_objective objective;  /* the spec's, else the site's objective=, else max */
    int effort;               /* the spec's, else the site's effort=, else 1 */
    smp_levels_mode levels_mode; /* the site's levels_mode= (best by default) */
    smp_links links;          /* the site's routing= and uplinks= over the levels */
    smp_placement pl, blocked;
    int64_t ranks;
    char dir[1024];           /* private per-step directory */
    char hostfile[1280];
    char record[1500];        /* audit record path once written */
    double srun_seconds;      /* the whole srun-side path: spec, allocation, plan, hostfile */
    double check_seconds;     /* of which asking slurmctld for the job's nodes */
    double srun_cpu_seconds;  /* CPU time of that path (wall time counts waiting too) */
    /* second level, when the spec or the site asks for bind=socket */
    bool bind;                /* tasks get STENCIL_MAP_SOCKET and are bound */
    int32_t *sockets;         /* per node */
    int32_t *socket_of_rank;
    smp_socket_score sock, sock_naive;
    char *socket_map;         /* the encoded map handed to the tasks */
    char sockets_note[512];   /* how socket counts were found, when not all from Slurm */
    /* the network above the nodes (plugstack.conf topology=): nlevels 0
     * plans, reports and records exactly as without a topology */
    smp_levels levels;
    char levels_kind[32];     /* "topology/tree", "topology/block" */
    sm_level_notes level_notes; /* the topology's repairs and links, for the record */
    /* what every rank is told (task_env.h), made with the plan, where a
     * step too large for the environment can still be told apart, and
     * only set by sm_step_export_env */
    smp_task_env task_env;
    bool levels_env_too_long; /* levels, but too many nodes for the tasks' environment */
} sm_step;

/* Checks the nodes read from the environment against the live job; 0 or
 * -1 with a message (see alloc_check.h). */
typedef int (*sm_alloc_check_fn)(const smp_nodes *nodes, char *msg, size_t n);
/* Fills sockets[i] for every node, 0 where the count is unknown (then the
 * spec's "sockets" or 1 is assumed); note says why, or stays "". */
typedef void (*sm_sockets_fn)(const smp_nodes *nodes, int32_t *sockets, char *note, size_t n);

/* Plans the step.  tmp_parent is where the private directory is made;
 * check (may be NULL) vets the allocation before planning; sockets_of
 * (may be NULL: the spec's "sockets", else 1 per node) gives socket counts
 * when the spec's "bind" or the site's bind= asks for socket binding;
 * topology_of (may be NULL: no level above nodes unless the site names a
 * file) reads Slurm's topology for the site's default topology=slurm.
 * Returns 0 when the step may launch (placed, or fallen back to blocked
 * under on_error=blocked), -1 on a failure (message in st->error). */
int sm_step_plan(sm_step *st, const sm_policy *pol, const sm_srun_args *a, const char *spec,
                 sm_spec_source src, const char *tmp_parent, sm_alloc_check_fn check,
                 sm_sockets_fn sockets_of, sm_slurm_topology_fn topology_of);
/* The same with the spec given as JSON text (a learned one); spec only
 * names it, for the record. */
int sm_step_plan_json(sm_step *st, const sm_policy *pol, const sm_srun_args *a, const char *spec,
                      const char *json, sm_spec_source src, const char *tmp_parent,
                      sm_alloc_check_fn check, sm_sockets_fn sockets_of,
                      sm_slurm_topology_fn topology_of);
/* Sets SLURM_HOSTFILE and STENCIL_MAP_* in this process's environment. */
int sm_step_export_env(const sm_step *st);
/* Removes every STENCIL_MAP_* variable (STENCIL_MAP_SPEC too). */
void sm_env_clear(void);
/* The one-line summary, "stencil-map: hyperplane, 48 ranks on 4 nodes, ...",
 * after st->label and a colon when there is one. */
void sm_step_summary(const sm_step *st, FILE *out);
/* Removes the private directory and its hostfile once srun has read it
 * (st->hostfile keeps the path for the audit record). */
void sm_step_drop_hostfile(sm_step *st);
/* Frees memory and removes the private directory. */
void sm_step_release(sm_step *st);

#endif
