/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Slurm's network topology as text: topology.conf (the tree plugin's
 * switches, the block plugin's blocks) and what `scontrol show topology`
 * prints, turned into the plain levels the placement core plans on
 * (smp_levels: groups of the step's node indices).  No Slurm library is
 * needed: the plugin and the command hand in text they read themselves.
 *
 * Every function that can fail fills an smp_error with a message naming
 * the file (or "scontrol show topology"), the line and the switch, block
 * or node at fault, and returns SMP_ERR_INPUT for bad input,
 * SMP_ERR_SYSTEM when out of memory. */
#ifndef STENCILMAP_SMT_TOPOLOGY_H
#define STENCILMAP_SMT_TOPOLOGY_H

#include <stencilmap/placement.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits a hostile file meets: sizes, a logical line, a switch or block
 * name (Slurm's HOST_NAME_MAX), switches or blocks, node entries in all. */
#define SMT_MAX_BYTES (16 << 20)
#define SMT_MAX_LINE (1 << 20)
#define SMT_MAX_NAME 64
#define SMT_MAX_UNITS (1 << 20)
#define SMT_MAX_MEMBERS (1 << 24)

typedef struct smt_topology smt_topology; /* opaque: switches or blocks by name */

/* topology.conf syntax, as Slurm's parser reads it for topology/tree and
 * topology/block: "SwitchName=NAME [LinkSpeed=N] Nodes=HOSTLIST |
 * Switches=HOSTLIST", "BlockName=NAME Nodes=HOSTLIST", "BlockSizes=N,..."
 * (24.05+) or "BlockLevels=LIST" (23.11); keys in any case, '#' comments,
 * '\' continues a line.  Blocks are aggregated into higher levels as
 * Slurm does: consecutive blocks in file order.  source names the text in
 * messages (e.g. the file's path). */
smp_status smt_parse_conf(const char *text, size_t len, const char *source, smt_topology **out,
                          smp_error *err);
/* Reads a regular file of at most SMT_MAX_BYTES (FIFOs and devices are
 * refused, as for spec files) and parses it with smt_parse_yaml (its
 * default topology) when smt_is_yaml says so, else smt_parse_conf. */
smp_status smt_load_conf(const char *path, smt_topology **out, smp_error *err);
/* topology.yaml (Slurm 25.05 and later): a list of topologies, each
 * "topology: NAME", "cluster_default: BOOL" and one of tree: (switches:
 * switch, children, nodes), block: (block_sizes, blocks: block, nodes),
 * flat: true, or 26.05's ring: and torus3d:.  Every topology is checked
 * for form; the one named name, or by default the first with
 * cluster_default: true (else the first), is built as topology.conf's
 * switches or blocks are.  Flat gives a topology without units (no
 * levels); ring and torus3d, and a name the file does not define (the
 * message lists those it does), are errors.  YAML aliases are refused. */
smp_status smt_parse_yaml(const char *text, size_t len, const char *source, const char *name,
                          smt_topology **out, smp_error *err);
/* Whether the text's first line that is neither blank nor a comment is
 * YAML ("- topology: ...", "---", "topology: ..."), not KEY=VALUE pairs. */
bool smt_is_yaml(const char *text, size_t len);
/* A topology file named by the user: "FILE" or "FILE:NAME" (NAME picks
 * one of a topology.yaml's topologies; a FILE whose whole name holds a
 * ':' is read as it is).  Read as smt_load_conf reads, then parsed by
 * content: saved `scontrol show topology` output (smt_printed_form; its
 * "No topology information available" is an error that says so),
 * topology.yaml, else topology.conf. */
smp_status smt_load(const char *arg, smt_topology **out, smp_error *err);
/* What `scontrol show topology` (slurm_print_topo_info_msg) prints, every
 * release from 22.05 to 26.05: tree lines "SwitchName=%s Level=%u
 * LinkSpeed=%u[ Nodes=%s][ Switches=%s]" (leaves are Level=0; upper
 * switches list their descendant nodes and their child switches); block
 * lines "BlockName=%s BlockIndex=%u[ Nodes=%s]" (23.11-24.05) and, from
 * 24.11, "BlockName=%s|AggregatedBlock=%s BlockIndex=%u[ Nodes=%s]
 * BlockSize=%u".  Empty text, and "No topology information available"
 * (Slurm logs it on stderr), give a topology without units: no levels.
 * Any other line is an error (e.g. 26.05's ring or torus3d). */
smp_status smt_parse_printed(const char *text, size_t len, smt_topology **out, smp_error *err);
/* smt_parse_printed, for that text saved to a file: messages and
 * smt_source() name saved (the file's path), not "scontrol show
 * topology".  NULL for saved is smt_parse_printed. */
smp_status smt_parse_printed_from(const char *text, size_t len, const char *saved,
                                  smt_topology **out, smp_error *err);
/* What a file's first line that is not blank says it holds: lines of
 * `scontrol show topology` ("SwitchName=.. Level=..", "BlockName=..
 * BlockIndex=..", "AggregatedBlock=.. BlockIndex=.."), its "No topology
 * information available" (the cluster runs no topology plugin), or
 * neither (topology.conf or topology.yaml). */
enum smt_printed { SMT_PRINTED_NOT = 0, SMT_PRINTED_LINES, SMT_PRINTED_NOTHING };
enum smt_printed smt_printed_form(const char *text, size_t len);
/* "topology/tree", "topology/block", or "none" for a topology without
 * units; and the source given to the parser. */
const char *smt_kind(const smt_topology *t);
const char *smt_source(const smt_topology *t);
/* The levels above the step's nodes: only the step's nodes count (a
 * topology normally names more).  Level 0 is each node's leaf switch or
 * base block, level k its ancestor k steps up (the top one when the chain
 * is shorter).  What Slurm accepts is repaired, each with one warning
 * line into *warnings (malloc'd lines ending in '\n', NULL when none;
 * warnings may be NULL): a switch under several parents that list
 * different children (the parents are merged, smt_tree_build), a step
 * node under several leaf switches or blocks (rails: grouped with the
 * nodes under the same set, the group named "l1+l2+..."), a step node in
 * none (a group of its own, named after it).  With strict, each repair is
 * an error (SMP_ERR_INPUT) instead.  Always an error: a topology that
 * names none of the step's nodes.  Levels where all step nodes share one
 * group, or that group them as the level below does, are dropped; when
 * more than SMP_MAX_LEVELS remain, the finest SMP_MAX_LEVELS - 1 and the
 * coarsest are kept (the leaf switches carry the most traffic, the top
 * split the most tapered links).  A topology without units gives
 * nlevels == 0.  out->source is smt_source(t). */
smp_status smt_levels_with(const smt_topology *t, const smp_nodes *nodes, bool strict,
                           smp_levels *out, char **warnings, smp_error *err);
/* How many of the step's nodes the topology puts under a leaf switch or
 * in a block (0: smt_levels_with refuses it as another cluster's; -1
 * when the topology has no switch or block at all). */
int smt_nodes_named(const smt_topology *t, const smp_nodes *nodes);
/* smt_levels_with, not strict, the warnings dropped. */
smp_status smt_levels_for(const smt_topology *t, const smp_nodes *nodes, smp_levels *out,
                          smp_error *err);
/* How many switches list the switch named name as a child (its uplinks:
 * k parents, k uplinks; 0 at the top), or -1 when there is no such
 * switch.  Kept through the merging of parents above. */
int smt_uplinks(const smt_topology *t, const char *name);
/* The LinkSpeed= given for the switch named name (topology.conf's, or
 * what scontrol printed: Slurm keeps it as a number without a unit, 0
 * when not set), or -1 when there is no such switch. */
int64_t smt_link_speed(const smt_topology *t, const char *name);
/* The links above level `level` of lv (smt_levels_with's, from t): how
 * many of its groups are switches (a rails group "l1+l2" counts once),
 * each one's uplinks (smt_uplinks; a rails group's leaves summed) and
 * LinkSpeed= (the slowest of a rails group; 0 when not given), as ranges
 * over the groups.  False (out zeroed) for blocks, for a level out of
 * range, and for a level none of whose groups is a switch. */
typedef struct {
    int groups, uplinks_min, uplinks_max;
    int64_t speed_min, speed_max;
} smt_links;
bool smt_level_links(const smt_topology *t, const smp_levels *lv, int level, smt_links *out);
/* Each group's uplinks at level `level` of lv, into up[0 .. ngroups-1]:
 * as smt_level_links counts them (a rails group's leaves summed), at
 * least 1 (a block, a top switch, a node in no switch: one way out).  The
 * one count the CLI and the plugin both plan with, so that srun launches
 * what `stencil-map plan --topology` reports. */
void smt_group_uplinks(const smt_topology *t, const smp_levels *lv, int level, int32_t *up);
void smt_free(smt_topology *t);

#ifdef __cplusplus
}
#endif
#endif
