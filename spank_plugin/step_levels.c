/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where a step's network levels come from (step_levels.h).  Both sources
 * go through topology/ (libsmtopology): the site file as topology.conf or
 * topology.yaml (whatever Slurm release runs: the file is read here, not
 * by Slurm), Slurm's answer as the lines scontrol prints; the file is
 * opened here, in srun, with the user's rights (slurmstepd never reads
 * it). */
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

/* What was repaired in the topology (topology_strict=no), one line each
 * on srun's stderr, as the plugin's other warnings; frees them. */
static void print_warnings(char *warnings)
{
    for (char *line = warnings, *nl; line && (nl = strchr(line, '\n')); line = nl + 1)
        fprintf(stderr, "stencil-map: warning: %.*s\n", (int)(nl - line), line);
    free(warnings);
}

smp_status sm_step_levels(const sm_policy *pol, const smp_nodes *nodes,
                          sm_slurm_topology_fn slurm, smp_levels *out, char *kind,
                          size_t kind_len, smp_error *err)
{
    memset(out, 0, sizeof(*out));
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
    if (!s && t)
        s = smt_levels_with(t, nodes, pol->topology_strict, out, &warnings, err);
    print_warnings(warnings);
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
