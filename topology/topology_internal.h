/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The topology model both parsers build (topology.c): units (switches or
 * blocks) with a parent each, the leaf units with their nodes, and an
 * index from node name to leaf unit that smt_levels_for searches. */
#ifndef STENCILMAP_TOPOLOGY_INTERNAL_H
#define STENCILMAP_TOPOLOGY_INTERNAL_H

#include "smt_topology.h"

enum smt_kind_e { SMT_NONE = 0, SMT_TREE, SMT_BLOCK };

struct smt_unit {
    char *name;
    int32_t parent;  /* unit index, -1 at the top */
    bool leaf;       /* a leaf switch or a base block: its nodes are members */
    int line;        /* where it was defined, for messages */
    int uplinks;     /* how many switches list it as a child (k parents, k uplinks) */
    uint32_t link_speed; /* LinkSpeed= as given (no unit), 0 when not given */
};

struct smt_member {
    const char *node; /* owned by names below */
    int32_t unit;
};

struct smt_topology {
    enum smt_kind_e kind;
    char source[128];
    struct smt_unit *u;
    int n, cap;
    struct smt_member *m; /* sorted by node name, then unit */
    int64_t nm, mcap;
    char **names;         /* the node names the members point to */
    int64_t nnames, ncap;
    int32_t *byname;      /* unit indices sorted by name (smt_index_units) */
    bool yaml;            /* from topology.yaml: messages name its fields */
    char *notes;          /* what was repaired, warning lines each ending in '\n' */
    char strict_msg[512]; /* the first repair as the error strict mode gives */
};

/* The field that lists a switch's child switches, as messages name it. */
static inline const char *smt_children_field(const smt_topology *t)
{
    return t->yaml ? "children" : "Switches=";
}

smt_topology *smt_new(enum smt_kind_e kind, const char *source);
/* Adds a unit (name copied); returns its index, or -1 with err set. */
int32_t smt_add_unit(smt_topology *t, const char *name, size_t len, bool leaf, int line,
                     smp_error *err);
/* The unit named name (exact), or -1; smt_index_units must have run. */
int32_t smt_find_unit(const smt_topology *t, const char *name);
smp_status smt_index_units(smt_topology *t, smp_error *err);
/* Expands hostlist and makes every node a member of leaf unit u; what
 * names the field in messages ("file:12: switch s1: Nodes"). */
smp_status smt_add_members(smt_topology *t, int32_t u, const char *hostlist, const char *what,
                           smp_error *err);
/* Sorts the members; checks that the parents form a forest (no loop). */
smp_status smt_finish(smt_topology *t, smp_error *err);
/* Switch and block names: letters, digits, '-', '_', '.'; 1 to
 * SMT_MAX_NAME characters.  Aggregated block names may also hold the
 * hostlist characters '[', ']', ',' (Slurm prints them so), and be longer:
 * up to SMT_MAX_AGGREGATED_NAME (the base blocks' names joined, e.g. two
 * UUIDs that no range folds). */
#define SMT_MAX_AGGREGATED_NAME 4096
bool smt_name_ok(const char *s, size_t len, bool hostlist_chars);
/* Appends one warning line (printf-style, no newline) to *notes; a
 * failed allocation loses the line, never the levels. */
void smt_note(char **notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The leaf units of node (a range of t->m), first index and count. */
int64_t smt_members_of(const smt_topology *t, const char *node, int64_t *count);

#endif
