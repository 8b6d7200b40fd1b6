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
 *                  plugin is told from the printed lines.  topology.yaml
 *                  may define several topologies, one per partition: the
 *                  one of the job's partition is read (two RPCs more).
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

#include "alloc_check.h"
#include "slurm_topology.h"

#define V(a, b) SLURM_VERSION_NUM(a, b, 0)

static int load(topo_info_response_msg_t **resp, char *name)
{
#if SLURM_VERSION_NUMBER >= V(25, 5)
    return slurm_load_topo(resp, name); /* NULL: the cluster's default */
#else
    (void)name; /* one topology per cluster */
    return slurm_load_topo(resp);
#endif
}

#if SLURM_VERSION_NUMBER >= V(25, 5)
/* From 25.05 topology.yaml may define several topologies, and a partition
 * picks one with Topology=NAME (partition_info_t.topology_name; none: the
 * cluster's default, src/slurmctld/partition_mgr.c).  A step runs in its
 * job's partition, so its nodes are planned on that partition's topology:
 * the job's partition (one lookup), then the partitions (one query).
 * *name stays NULL for the default. */
static int partition_topology(char **name, char **part, char *msg, size_t n)
{
    *name = NULL;
    if (sm_alloc_partition(part, msg, n))
        return -1;
    partition_info_msg_t *pm = NULL;
    if (slurm_load_partitions((time_t)0, &pm, SHOW_ALL) != SLURM_SUCCESS || !pm) {
        int e = errno;
        snprintf(msg, n, "cannot ask slurmctld which topology partition %.60s uses: %s", *part,
                 slurm_strerror(e));
        return -1;
    }
    int found = 0, rc = 0;
    for (uint32_t i = 0; i < pm->record_count && !found; i++) {
        const partition_info_t *p = &pm->partition_array[i];
        if (!p->name || strcmp(p->name, *part))
            continue;
        found = 1;
        if (p->topology_name && p->topology_name[0] && !(*name = strdup(p->topology_name))) {
            snprintf(msg, n, "network topology: out of memory");
            rc = -1;
        }
    }
    slurm_free_partition_info_msg(pm);
    if (!found) {
        snprintf(msg, n, "slurmctld does not show the job's partition %.60s", *part);
        rc = -1;
    }
    return rc;
}
#endif

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

/* The reply's lines into *text (NULL when there is no level above the
 * nodes), and the plugin that printed them into plugin. */
static int read_reply(topo_info_response_msg_t *resp, char **text, char *plugin,
                      size_t plugin_len, char *msg, size_t n)
{
    if (has_records(resp, plugin, plugin_len))
        return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) {
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

int sm_slurm_topology_read(char **text, char *plugin, size_t plugin_len, char *msg, size_t n)
{
    *text = NULL;
    plugin[0] = '\0';
    char *name = NULL, *part = NULL;
#if SLURM_VERSION_NUMBER >= V(25, 5)
    if (partition_topology(&name, &part, msg, n)) {
        free(part);
        return -1;
    }
#endif
    topo_info_response_msg_t *resp = NULL;
    if (load(&resp, name) != SLURM_SUCCESS || !resp) {
        int e = errno; /* libslurm's error, as in alloc_check.c */
        char which[160] = "the network topology";
        if (name)
            snprintf(which, sizeof(which), "topology %.60s (partition %.60s's)", name, part);
        snprintf(msg, n, "cannot ask slurmctld for %s: %s", which,
                 resp ? slurm_strerror(e) : e ? slurm_strerror(e) : "no answer");
        if (resp)
            slurm_free_topo_info_msg(resp);
        free(name);
        free(part);
        return -1;
    }
    int rc = read_reply(resp, text, plugin, plugin_len, msg, n);
    slurm_free_topo_info_msg(resp);
    if (!rc && name) { /* the source says which of the topologies */
        size_t k = strlen(plugin);
        snprintf(plugin + k, plugin_len - k, "%stopology %.32s of partition %.32s",
                 k ? ", " : "", name, part);
    }
    free(name);
    free(part);
    return rc;
}
