/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lines of KEY=VALUE pairs, as both topology.conf and scontrol's output
 * are written (lines.c), and the tree of switches both parsers build from
 * them (tree.c). */
#ifndef STENCILMAP_TOPOLOGY_LINES_H
#define STENCILMAP_TOPOLOGY_LINES_H

#include "topology_internal.h"

#define SMT_MAX_PAIRS 16 /* KEY=VALUE pairs on one line */

struct smt_pair {
    char *key, *value; /* inside the line's buffer, NUL-terminated */
};

struct smt_line {
    int number; /* first physical line, from 1 */
    int npairs;
    struct smt_pair p[SMT_MAX_PAIRS];
    char *buf;  /* owned */
};

/* Reader over text: conf mode strips '#' comments ("\#" is a '#') and
 * joins lines ending in '\'; both modes refuse NUL bytes and lines longer
 * than SMT_MAX_LINE. */
struct smt_reader {
    const char *text, *end;
    int line;
    bool conf;
    const char *source;
};
/* The next line with at least one pair: 1, none left: 0, error: -1 (err
 * set).  A line that is not KEY=VALUE pairs is an error, except a line
 * that equals `skip` (when not NULL), which is passed over. */
int smt_next_line(struct smt_reader *r, struct smt_line *out, const char *skip, smp_error *err);
void smt_line_free(struct smt_line *l);
/* The value of key (case-insensitive) among pairs [from, npairs), NULL if
 * absent. */
const char *smt_value(const struct smt_line *l, int from, const char *key);
/* Every key of pairs [from, npairs) is one of allowed (NULL-terminated,
 * case-insensitive) and none repeats; else an error naming the key. */
smp_status smt_keys_check(const struct smt_line *l, int from, const char *const *allowed,
                          const char *source, smp_error *err);
/* An unsigned 32-bit value; false if not one. */
bool smt_parse_u32(const char *s, uint32_t *v);

/* A switch as read: leaves have nodes, the others switches (tree.c). */
struct smt_switch_rec {
    int32_t unit;
    char *nodes, *switches; /* owned copies, either may be NULL */
    int line;
};
/* Links children to parents and leaves to their nodes; t's units are the
 * records' in order.  Parents that share a child are merged into one
 * group (tree.c), with a warning in t->notes when they list different
 * children. */
smp_status smt_tree_build(smt_topology *t, struct smt_switch_rec *recs, int n, smp_error *err);
/* The blocks of topology/block from another syntax (topology.yaml): units
 * 0 to n-1 of t are the base blocks in order, nodes[i] and lines[i] their
 * hostlist and line; sizes is BlockSizes' text ("4,8,16", node counts) or
 * NULL for Slurm's default levels.  Aggregates them as conf.c does and
 * finishes t; the arrays stay the caller's. */
smp_status smt_blocks_build(smt_topology *t, char **nodes, int *lines, int n, char *sizes,
                            int sizes_line, smp_error *err);

#endif
