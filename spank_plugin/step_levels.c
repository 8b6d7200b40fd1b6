/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where a step's network levels come from (step_levels.h).  Both sources
 * go through topology/ (libsmtopology): the site file as topology.conf or
 * topology.yaml (whatever Slurm release runs: the file is read here, not
 * by Slurm), Slurm's answer as the lines scontrol prints; the file is
 * opened here, in srun, with the user's rights (slurmstepd never reads
 * it). */
#define _GNU_SOURCE /* asprintf */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smt_topology.h"
#include "step_levels.h"

/* Slurm's topology, and its plugin's name as the source, into source */
static smp_status from_slurm(sm_slurm_topology_fn slurm, smt_topology **t, char *source,
                             size_t source_len, smp_error *err)
{
    char *text = NULL, plugin[120], msg[600];
    if (slurm(&text, plugin, sizeof(plugin), msg, sizeof(msg)))
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s", msg);
    snprintf(source, source_len, "slurm (%s)", plugin);
    if (!text)
        return SMP_OK; /* no level above nodes */
    smp_status s = smt_parse_printed(text, strlen(text), t, err);
    free(text);
    return s;
}

/* Slurm's own topology lists none of the step's nodes: they are in no
 * switch (slurmctld logged "switches lack access to N nodes"; 26.05 still
 * gives such a node to a one-node job, which skips the tree).  The file
 * is the cluster's, so this is not the "names none of the step's nodes"
 * of a foreign file but nodes each in a group of its own, which split
 * nothing: planned on nodes only, with a warning, or refused when strict. */
static smp_status outside_slurm_tree(const smt_topology *t, const smp_nodes *nodes, bool strict,
                                     char **warnings, smp_error *err)
{
    const char *word = strcmp(smt_kind(t), "topology/block") ? "switch" : "block";
    if (strict)
        return smp_error_set(err, SMP_ERR_INPUT, "topology %s: node %s is in no %s",
                             smt_source(t), nodes->names[0], word);
    char names[200];
    size_t k = 0;
    names[0] = '\0';
    for (int v = 0; v < nodes->count && k + 40 < sizeof(names); v++)
        k += (size_t)snprintf(names + k, sizeof(names) - k, "%s%s", v ? ", " : "",
                              nodes->names[v]);
    if (k + 40 >= sizeof(names))
        snprintf(names + k, sizeof(names) - k, ", ...");
    int many = nodes->count > 1;
    if (asprintf(warnings, "topology %s: node%s %s %s in no %s: %sa group of its own at every "
                 "level\n", smt_source(t), many ? "s" : "", names, many ? "are" : "is", word,
                 many ? "each " : "") < 0) {
        *warnings = NULL;
        return smp_error_set(err, SMP_ERR_SYSTEM, "network topology: out of memory");
    }
    return SMP_OK;
}

/* What was repaired in the topology (topology_strict=no), one line each
 * on srun's stderr, as the plugin's other warnings. */
static void print_warnings(const char *warnings)
{
    for (const char *line = warnings, *nl; line && (nl = strchr(line, '\n')); line = nl + 1)
        fprintf(stderr, "stencil-map: warning: %.*s\n", (int)(nl - line), line);
}

void sm_level_notes_free(sm_level_notes *notes)
{
    free(notes->warnings);
    for (int l = 0; l < SMP_MAX_LEVELS; l++)
        free(notes->uplinks[l]);
    memset(notes, 0, sizeof(*notes));
}

int sm_level_notes_count(const sm_level_notes *notes)
{
    int n = 0;
    for (const char *p = notes->warnings; p && (p = strchr(p, '\n')); p++)
        n++;
    return n;
}

/* The warnings (taken) and each level's links into notes, or freed. */
static void keep_notes(const smt_topology *t, const smp_levels *lv, char *warnings,
                       sm_level_notes *notes)
{
    if (!notes) {
        free(warnings);
        return;
    }
    notes->warnings = warnings;
    for (int l = 0; l < lv->nlevels && l < SMP_MAX_LEVELS; l++) {
        smt_links k;
        /* (out of memory: NULL, the plan then counts one uplink a group) */
        if ((notes->uplinks[l] = malloc(sizeof(int32_t) * (size_t)lv->ngroups[l])))
            smt_group_uplinks(t, lv, l, notes->uplinks[l]);
        if (smt_level_links(t, lv, l, &k))
            notes->links[l] = (smr_links){.groups = k.groups, .uplinks_min = k.uplinks_min,
                                          .uplinks_max = k.uplinks_max,
                                          .speed_min = k.speed_min, .speed_max = k.speed_max};
    }
}

smp_status sm_step_levels(const sm_policy *pol, const smp_nodes *nodes,
                          sm_slurm_topology_fn slurm, smp_levels *out, char *kind,
                          size_t kind_len, smp_error *err)
{
    return sm_step_levels_noted(pol, nodes, slurm, out, kind, kind_len, NULL, err);
}

smp_status sm_step_levels_noted(const sm_policy *pol, const smp_nodes *nodes,
                                sm_slurm_topology_fn slurm, smp_levels *out, char *kind,
                                size_t kind_len, sm_level_notes *notes, smp_error *err)
{
    memset(out, 0, sizeof(*out));
    if (notes)
        sm_level_notes_free(notes);
    kind[0] = '\0';
    smt_topology *t = NULL;
    smp_status s = SMP_OK;
    /* the source is kept even where no level splits the step's nodes, so
     * that the record says why the step was planned on nodes only */
    if (pol->topology == SM_TOPOLOGY_NONE || (pol->topology == SM_TOPOLOGY_SLURM && !slurm)) {
        snprintf(out->source, sizeof(out->source), "none");
        return SMP_OK;
    }
    char source[sizeof(out->source)];
    if (pol->topology == SM_TOPOLOGY_FILE) {
        snprintf(source, sizeof(source), "file %.*s", (int)sizeof(source) - 6,
                 pol->topology_file);
        s = smt_load(pol->topology_file, &t, err); /* FILE or topology.yaml's FILE:NAME */
    } else {
        s = from_slurm(slurm, &t, source, sizeof(source), err);
    }
    char *warnings = NULL;
    if (!s && t && pol->topology != SM_TOPOLOGY_FILE && nodes->count > 0 &&
        smt_nodes_named(t, nodes) == 0) {
        s = outside_slurm_tree(t, nodes, pol->topology_strict, &warnings, err);
        smt_free(t); /* no level: planned on nodes only */
        t = NULL;
    }
    if (!s && t)
        s = smt_levels_with(t, nodes, pol->topology_strict, out, &warnings, err);
    print_warnings(warnings);
    if (!s && t)
        keep_notes(t, out, warnings, notes);
    else if (!s && notes) /* no level, but what was repaired is recorded */
        notes->warnings = warnings;
    else
        free(warnings);
    if (!s && t && out->nlevels > 0)
        snprintf(kind, kind_len, "%s", smt_kind(t));
    if (!s)
        memcpy(out->source, source, sizeof(source));
    smt_free(t);
    return s;
}

void sm_levels_group_word(const char *kind, int level, char *buf, size_t n)
{
    const char *unit = strcmp(kind, "topology/block") ? "switches" : "blocks";
    if (level == 0)
        snprintf(buf, n, "%s", unit);
    else
        snprintf(buf, n, "level-%d %s", level, unit);
}
