/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmctld's topology through the one route every release offers:
 * slurm_load_topo, then slurm_print_topo_info_msg into a memory stream.
 * What differs, read in Slurm's sources (slurm/slurm.h, src/api/topo_info.c):
 *
 *   22.05          slurm_load_topo(msg **); the reply's switch records are
 *                  public (record_count, topo_array), filled by topology/tree
 *                  only; print(FILE *, msg, one_liner).
 *   23.11 - 25.05  the same load; the records sit behind msg->topo_info, a
 *                  dynamic_plugin_data_t whose plugin_id says the plugin
 *                  (enum topology_plugin_type); print(FILE *, msg,
 *                  node_list, one_liner); libslurm loads the topology
 *                  plugin of the client's own slurm.conf to unpack and
 *                  print them (topology_g_init).
 *   25.05 and on   slurm_load_topo(msg **, char *name): NULL is the default
 *                  topology; print(FILE *, msg, node_list, unit,
 *                  one_liner).  From 25.11 topo_info is a void *, so the
 *                  plugin is told from the printed lines.
 *
 * Each plugin's printer asks SLURM_TOPO_LEN how much of a line to keep
 * (topology_tree.c, topology_block.c): unset while printing, so no line is
 * cut.  A tree printer with no records logs "No topology information
 * available" on srun's stderr instead of printing: it is not called then
 * where the reply lets us know (22.05, and the plugin id up to 25.05). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include "slurm_topology.h"

#define V(a, b) SLURM_VERSION_NUM(a, b, 0)

static int load(topo_info_response_msg_t **resp)
{
#if SLURM_VERSION_NUMBER >= V(25, 5)
    return slurm_load_topo(resp, NULL); /* the default topology */
#else
    return slurm_load_topo(resp);
#endif
}

static void print(FILE *out, topo_info_response_msg_t *resp)
{
#if SLURM_VERSION_NUMBER >= V(25, 5)
    slurm_print_topo_info_msg(out, resp, NULL, NULL, 0);
#elif SLURM_VERSION_NUMBER >= V(23, 11)
    slurm_print_topo_info_msg(out, resp, NULL, 0);
#else
    slurm_print_topo_info_msg(out, resp, 0);
#endif
}

/* Whether the reply holds records worth printing; plugin named where the
 * reply says it.  -1: nothing to print (no level above the nodes). */
static int has_records(const topo_info_response_msg_t *resp, char *plugin, size_t n)
{
#if SLURM_VERSION_NUMBER < V(23, 11)
    /* only topology/tree fills the switch table the reply copies */
    if (resp->record_count == 0) {
        snprintf(plugin, n, "topology/none");
        return -1;
    }
    snprintf(plugin, n, "topology/tree");
    return 0;
#elif SLURM_VERSION_NUMBER < V(25, 11)
    if (!resp->topo_info) {
        snprintf(plugin, n, "topology (no data)");
        return -1;
    }
    switch (resp->topo_info->plugin_id) {
    case TOPOLOGY_PLUGIN_TREE:
        snprintf(plugin, n, "topology/tree");
        return 0;
    case TOPOLOGY_PLUGIN_BLOCK:
        snprintf(plugin, n, "topology/block");
        return 0;
    case TOPOLOGY_PLUGIN_3DTORUS:
        snprintf(plugin, n, "topology/3d_torus");
        return -1;
    default: /* 100: topology/default, topology/flat from 25.05 */
        snprintf(plugin, n, SLURM_VERSION_NUMBER >= V(25, 5) ? "topology/flat" : "topology/default");
        return -1;
    }
#else
    if (!resp->topo_info) {
        snprintf(plugin, n, "topology (no data)");
        return -1;
    }
    plugin[0] = '\0'; /* told from the lines */
    return 0;
#endif
}

/* The plugin that prints lines starting with this key (every record line
 * of a plugin starts with its key; blocks print aggregated blocks too). */
static const char *plugin_of_line(const char *line)
{
    static const struct {
        const char *key, *plugin;
    } keys[] = {
        {"SwitchName=", "topology/tree"},     {"BlockName=", "topology/block"},
        {"AggregatedBlock=", "topology/block"}, {"RingName=", "topology/ring"},
        {"TorusName=", "topology/torus3d"},
    };
    while (*line == ' ')
        line++;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (!strncmp(line, keys[i].key, strlen(keys[i].key)))
            return keys[i].plugin;
    return NULL;
}

int sm_slurm_topology_read(char **text, char *plugin, size_t plugin_len, char *msg, size_t n)
{
    *text = NULL;
    plugin[0] = '\0';
    topo_info_response_msg_t *resp = NULL;
    if (load(&resp) != SLURM_SUCCESS || !resp) {
        int e = errno; /* libslurm's error, as in alloc_check.c */
        snprintf(msg, n, "cannot ask slurmctld for the network topology: %s",
                 resp ? slurm_strerror(e) : e ? slurm_strerror(e) : "no answer");
        if (resp)
            slurm_free_topo_info_msg(resp);
        return -1;
    }
    if (has_records(resp, plugin, plugin_len)) {
        slurm_free_topo_info_msg(resp);
        return 0;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) {
        slurm_free_topo_info_msg(resp);
        snprintf(msg, n, "network topology: cannot open a memory stream: %s", strerror(errno));
        return -1;
    }
    /* the whole lines, whatever the user's environment asks */
    char *cut = getenv("SLURM_TOPO_LEN");
    char saved[32] = "";
    if (cut)
        snprintf(saved, sizeof(saved), "%s", cut);
    unsetenv("SLURM_TOPO_LEN");
    print(out, resp);
    int bad = ferror(out);
    if (fclose(out) != 0)
        bad = 1;
    if (cut)
        setenv("SLURM_TOPO_LEN", saved, 1);
    slurm_free_topo_info_msg(resp);
    if (bad) {
        free(buf);
        snprintf(msg, n, "network topology: cannot print slurmctld's answer (out of memory?)");
        return -1;
    }
    const char *seen = len ? plugin_of_line(buf) : NULL;
    if (!plugin[0] && seen)
        snprintf(plugin, plugin_len, "%s", seen);
    if (!len || !seen || (strcmp(seen, "topology/tree") && strcmp(seen, "topology/block"))) {
        /* nothing printed, or a plugin with no level above nodes we plan on */
        if (!plugin[0] && len) {
            size_t k = strcspn(buf, "= \n");
            snprintf(plugin, plugin_len, "topology (records '%.*s')", (int)(k < 40 ? k : 40), buf);
        }
        free(buf);
        return 0;
    }
    *text = buf;
    return 0;
}
