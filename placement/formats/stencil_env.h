/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The STENCIL_MAP_* variables: the plugin sets them in every task of a
 * placed step and the in-job library reads them back.  Their names, and the
 * text of their values, live here so the writer and the reader cannot drift.
 * No Jansson, Slurm or PMIx: libstencilmap links this alone
 * (libsmp-env.la), the plugin through the placement core. */
#ifndef SMP_STENCIL_ENV_H
#define SMP_STENCIL_ENV_H

#include <stddef.h>
#include <stdint.h>

#define SMP_ENV_PREFIX "STENCIL_MAP_"
#define SMP_ENV_DIMS "STENCIL_MAP_DIMS"
#define SMP_ENV_PERIODS "STENCIL_MAP_PERIODS"
#define SMP_ENV_ORDER "STENCIL_MAP_ORDER"
#define SMP_ENV_COORDS "STENCIL_MAP_COORDS"
#define SMP_ENV_STENCIL "STENCIL_MAP_STENCIL"
#define SMP_ENV_WEIGHTS "STENCIL_MAP_WEIGHTS"
#define SMP_ENV_ALGORITHM "STENCIL_MAP_ALGORITHM"
#define SMP_ENV_JSUM "STENCIL_MAP_JSUM"
#define SMP_ENV_JMAX "STENCIL_MAP_JMAX"
#define SMP_ENV_BLOCKED_JSUM "STENCIL_MAP_BLOCKED_JSUM"
#define SMP_ENV_BLOCKED_JMAX "STENCIL_MAP_BLOCKED_JMAX"
#define SMP_ENV_SOCKET "STENCIL_MAP_SOCKET"
#define SMP_ENV_SOCKET_MAP "STENCIL_MAP_SOCKET_MAP"
#define SMP_ENV_SPEC "STENCIL_MAP_SPEC"
#define SMP_ENV_RECORD "STENCIL_MAP_RECORD"
/* The network levels above the nodes, for the in-job check (only set when
 * the step was planned on levels; stencil_env_levels.c):
 *   STENCIL_MAP_LEVEL_NODES=node1,node2,node3,node4   the step's nodes
 *   STENCIL_MAP_LEVELS=0,0,1,1;0,0,0,1                each level's group of
 *                                                     each node, finest first
 *   STENCIL_MAP_LEVEL_JSUM=8,2, STENCIL_MAP_LEVEL_JMAX=4,2   planned, per level */
#define SMP_ENV_LEVEL_NODES "STENCIL_MAP_LEVEL_NODES"
#define SMP_ENV_LEVELS "STENCIL_MAP_LEVELS"
#define SMP_ENV_LEVEL_JSUM "STENCIL_MAP_LEVEL_JSUM"
#define SMP_ENV_LEVEL_JMAX "STENCIL_MAP_LEVEL_JMAX"
/* = SMP_MAX_LEVELS (asserted in stencil_env_levels.c) */
#define SMP_ENV_MAX_LEVELS 4
/* The most bytes STENCIL_MAP_LEVEL_NODES or STENCIL_MAP_LEVELS may hold,
 * well inside Linux's 128 KiB for one variable (MAX_ARG_STRLEN): a step of
 * more nodes than that holds gets no level variables, and its in-job check
 * is of the nodes only. */
#define SMP_ENV_LEVELS_MAX_LEN 65536
/* The longest node name the list takes (the hostlist's own limit is
 * the placement core's; a task's own name is at most 255). */
#define SMP_ENV_NODE_NAME_MAX 255

/* Room for a list of SMP_MAX_DIMS integers ("4,3,2"). */
#define SMP_ENV_LIST_LEN (8 * 24)

/* A ','-separated list of at most max decimal integers in [lo, hi] (no
 * spaces, no '+', no leading zeros).  Returns 0, or -1 with a message
 * naming name in msg. */
int smp_env_parse_list(const char *name, const char *s, int max, int64_t lo, int64_t hi,
                       int64_t *out, int *n, char *msg, size_t len);
/* STENCIL_MAP_DIMS: at most SMP_MAX_DIMS positive sides whose product (in
 * *size) is at most SMP_MAX_RANKS.  Returns 0, or -1 with a message. */
int smp_env_parse_dims(const char *s, int64_t *dims, int *ndims, int64_t *size, char *msg,
                       size_t len);
/* STENCIL_MAP_ORDER: "row-major" -> 0, "column-major" -> 1, else -1 with
 * a message. */
int smp_env_parse_order(const char *s, char *msg, size_t len);

/* "4,3,2" into buf (always terminated; truncated if buf is too small). */
void smp_env_format_list(char *buf, size_t len, const int64_t *v, int n);
/* STENCIL_MAP_STENCIL's value, "1,0;-1,0;...", from count offsets of ndims
 * entries each; malloc'd, NULL when out of memory. */
char *smp_env_format_stencil(const int32_t *offsets, int count, int ndims);

/* ---- network levels (stencil_env_levels.c) -------------------------- */
typedef struct {
    int nlevels;                           /* 1..SMP_ENV_MAX_LEVELS */
    int nnodes;
    char **names;                          /* nnodes, in the plan's order */
    int32_t *group[SMP_ENV_MAX_LEVELS];    /* nnodes each, in [0, nnodes) */
    int32_t *sorted;                       /* node indices by name, for lookups */
} smp_env_levels;

/* STENCIL_MAP_LEVEL_NODES's value from n names; STENCIL_MAP_LEVELS's from
 * nlevels arrays of nnodes groups.  malloc'd; NULL when out of memory or
 * when the text would exceed SMP_ENV_LEVELS_MAX_LEN (*too_long is set). */
char *smp_env_format_level_nodes(char *const *names, int n, int *too_long);
char *smp_env_format_levels(int32_t *const *group, int nlevels, int nnodes, int *too_long);
/* Parses both values into lv: names of letters, digits, '-', '_' and '.'
 * (at most SMP_ENV_NODE_NAME_MAX each, none twice), every level with one
 * group per name.  Returns 0, or -1 with a message naming the variable;
 * lv is freeable either way. */
int smp_env_parse_levels(const char *nodes, const char *levels, smp_env_levels *lv, char *msg,
                         size_t len);
void smp_env_levels_free(smp_env_levels *lv);
/* The group of the node called name at level l, -1 when name is not one
 * of the step's nodes. */
int32_t smp_env_levels_group(const smp_env_levels *lv, int level, const char *name);

#endif
