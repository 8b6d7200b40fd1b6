/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network levels above a step's nodes, found where the site says
 * (plugstack.conf topology=): Slurm's own topology (default), a site file
 * in topology.conf syntax, or none.  Runs in srun, as the user; Slurm-free:
 * Slurm's text comes through a callback (slurm_topology.c in the plugin). */
#ifndef SM_STEP_LEVELS_H
#define SM_STEP_LEVELS_H

#include <stddef.h>

#include <stencilmap/placement.h>

#include "policy.h"
#include "smr_record.h"

/* Slurm's topology as scontrol prints it (sm_slurm_topology_read). */
typedef int (*sm_slurm_topology_fn)(char **text, char *plugin, size_t plugin_len, char *msg,
                                    size_t n);

/* Fills out with the levels of nodes: none (nlevels 0) with topology=none,
 * when Slurm knows no level above nodes, when slurm is NULL, or when the
 * step's nodes all share every group.  out->source says where they came
 * from, with or without levels: "slurm (topology/tree)", "file PATH",
 * "slurm (topology/flat)" when Slurm has none, "none" (topology=none or
 * no Slurm to ask); kind (kind_len bytes) gets
 * "topology/tree" or "topology/block" ("" without levels).  What Slurm
 * accepts but does not nest (a switch under parents listing different
 * switches, a node under several leaves or in none) is repaired with a
 * warning on stderr, or with topology_strict=yes refused.  A topology
 * that cannot be read, is malformed or names none of
 * the step's nodes is an error (SMP_ERR_INPUT, or SMP_ERR_SYSTEM when
 * Slurm cannot be asked) naming the problem; out is freeable either way. */
smp_status sm_step_levels(const sm_policy *pol, const smp_nodes *nodes,
                          sm_slurm_topology_fn slurm, smp_levels *out, char *kind,
                          size_t kind_len, smp_error *err);

/* What the topology said beyond the groups, for the record and the
 * summary: the repairs' warning lines (each ending in '\n', NULL when
 * none; also printed on stderr) and the links above each level's groups
 * (smt_level_links; groups 0 where none is a switch), and each group's
 * uplinks (smt_group_uplinks: what the plan counts when the site's
 * uplinks= does not say; NULL past the levels). */
typedef struct {
    char *warnings;
    smr_links links[SMP_MAX_LEVELS];
    int32_t *uplinks[SMP_MAX_LEVELS];
} sm_level_notes;
/* sm_step_levels, keeping those notes in *notes (freed first with
 * sm_level_notes_free; kept on success only). */
smp_status sm_step_levels_noted(const sm_policy *pol, const smp_nodes *nodes,
                                sm_slurm_topology_fn slurm, smp_levels *out, char *kind,
                                size_t kind_len, sm_level_notes *notes, smp_error *err);
void sm_level_notes_free(sm_level_notes *notes);
/* How many warning lines notes holds. */
int sm_level_notes_count(const sm_level_notes *notes);

/* What the groups of level l are called in the summary, for a topology of
 * kind: "switches" or "blocks" at level 0, "level-1 switches" above. */
void sm_levels_group_word(const char *kind, int level, char *buf, size_t n);

#endif
