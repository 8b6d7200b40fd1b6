/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Site policy: the plugin's arguments in plugstack.conf. */
#ifndef SM_POLICY_H
#define SM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stencilmap/placement.h>

typedef enum { SM_ON_ERROR_FAIL = 0, SM_ON_ERROR_BLOCKED } sm_on_error;
/* Where the network levels above the nodes come from (topology=). */
typedef enum {
    SM_TOPOLOGY_SLURM = 0, /* slurmctld's, read in srun (the default) */
    SM_TOPOLOGY_FILE,      /* a site file in topology.conf syntax, read in srun */
    SM_TOPOLOGY_NONE       /* no level above nodes: plans as without a topology */
} sm_topology_source;

typedef struct {
    char default_spec[1024];  /* default=SPEC, "" when not given */
    bool have_algorithm;      /* algorithm=NAME overrides the spec's */
    smp_algorithm algorithm;
    sm_on_error on_error;     /* on_error=fail|blocked */
    char record_dir[1024];    /* record_dir=DIR (absolute), "" = no records */
    int64_t max_ranks;        /* max_ranks=N, 0 = no limit */
    bool bind_socket;         /* bind=socket: bind every placed step's tasks to
                               * their socket (bind=none, the default: only
                               * specs with "bind": "socket") */
    bool have_objective;      /* objective=sum|max: the site's default for
                               * specs that do not say; a spec's wins */
    smp_objective objective;
    int effort;               /* effort=N: the site's default for specs that
                               * do not say (a spec's wins); 0 = not given */
    sm_topology_source topology; /* topology=slurm|none|FILE */
    char topology_file[1024];    /* SM_TOPOLOGY_FILE: its absolute path */
    bool topology_strict;        /* topology_strict=yes: refuse what is otherwise
                                  * repaired with a warning */
    smp_levels_mode levels_mode; /* levels_mode=: how auto plans on the
                                  * levels (SMP_LEVELS_BEST, the default) */
    smp_routing routing;         /* routing=static|adaptive|direct (SMP_ROUTING_DEFAULT) */
    int nuplinks;                /* uplinks=N[,N...]: the uplinks of every group */
    int32_t uplinks[SMP_MAX_LEVELS]; /* of level 0, 1, ... (nuplinks given) */
    int nspeeds;                 /* uplink_speed=S[,S...]: an uplink's speed */
    double uplink_speed[SMP_MAX_LEVELS]; /* against a node link's, per level */
    char learned_dir[1024];   /* learned_dir=DIR (absolute): the root of the
                               * users' stores of learned specs, DIR/<user>;
                               * "" = each user's XDG state directory */
} sm_policy;

/* Parses the plugstack.conf arguments.  Returns 0, or -1 with a message in
 * msg naming the offending argument (unknown arguments are rejected). */
int sm_policy_parse(sm_policy *pol, int ac, char **av, char *msg, size_t msglen);
/* The objective a step is planned for: the spec's "objective" when it
 * gives one, else the site's objective=, else SMP_OBJ_DEFAULT (max). */
smp_objective sm_policy_objective(const sm_policy *pol, const smp_spec *spec);
/* auto's effort for a step: the spec's "effort", else the site's
 * effort=, else SMP_EFFORT_DEFAULT. */
int sm_policy_effort(const sm_policy *pol, const smp_spec *spec);

#endif
