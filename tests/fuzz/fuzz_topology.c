/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: any bytes as a topology.  The first byte picks the
 * parser ('c': topology.conf, 'y': topology.yaml's default topology, 'Y':
 * its topology named "b", 's': scontrol's output saved to a file,
 * anything else: scontrol's output), the first
 * line is the step's node list, the rest the topology text.  A topology
 * that parses gives levels for the step that must nest and be in range,
 * and a small grid is planned on them: every node keeps its share; each
 * level's links count at most its groups, their ranges in order.
 * Anything else must come back as an error with a message, never a crash,
 * leak or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smt_topology.h"

static void plan_on(const smp_levels *lv, const smp_nodes *nodes)
{
    if (nodes->count > 32)
        return;
    int64_t dims[2] = {6, nodes->count};
    smp_grid g;
    smp_stencil st;
    smp_error err;
    if (smp_grid_init(&g, 2, dims, NULL, &err) || smp_stencil_family(&st, "nearest", 2, &err))
        abort();
    int32_t slots[32];
    for (int i = 0; i < nodes->count; i++)
        slots[i] = 6;
    smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .effort = 1,
                       .levels = lv};
    smp_placement pl;
    if (smp_plan_with(&g, &st, slots, nodes->count, &o, &pl, &err))
        abort(); /* checked levels always plan */
    int32_t used[32] = {0};
    for (int64_t r = 0; r < pl.ranks; r++)
        used[pl.node_of_rank[r]]++;
    for (int i = 0; i < nodes->count; i++)
        if (used[i] != 6)
            abort();
    smp_placement_free(&pl);
    smp_stencil_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    bool conf = data[0] == 'c', yaml = data[0] == 'y' || data[0] == 'Y';
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    const char *nl = memchr(text, '\n', len);
    if (!nl || nl - text > 200)
        return 0;
    char hosts[256];
    memcpy(hosts, text, (size_t)(nl - text));
    hosts[nl - text] = '\0';
    len -= (size_t)(nl - text) + 1;
    text = nl + 1;
    smt_topology *t = NULL;
    smp_error err = {0};
    (void)smt_is_yaml(text, len); /* any bytes: never reads past len */
    (void)smt_printed_form(text, len);
    smp_status s = conf              ? smt_parse_conf(text, len, "fuzz.conf", &t, &err)
                   : data[0] == 's' ? smt_parse_printed_from(text, len, "fuzz.saved", &t, &err)
                   : yaml ? smt_parse_yaml(text, len, "fuzz.yaml", data[0] == 'Y' ? "b" : NULL,
                                           &t, &err)
                          : smt_parse_printed(text, len, &t, &err);
    if (s) {
        if (t || err.status != s || err.msg[0] == '\0')
            abort(); /* a failure must say why and leave nothing */
        return 0;
    }
    smp_nodes nodes;
    if (smp_nodes_parse(&nodes, hosts, "6", &err) == SMP_OK) {
        smp_levels lv;
        s = smt_levels_for(t, &nodes, &lv, &err);
        if (s && err.msg[0] == '\0')
            abort();
        if (!s) {
            if (smp_levels_check(&lv, nodes.count, &err))
                abort();
            plan_on(&lv, &nodes);
            for (int l = 0; l <= lv.nlevels; l++) { /* one past the end: none */
                smt_links k;
                bool got = smt_level_links(t, &lv, l, &k);
                if (got != (k.groups > 0) || (got && (l == lv.nlevels || k.groups > lv.ngroups[l] ||
                                                      k.uplinks_min > k.uplinks_max ||
                                                      k.speed_min > k.speed_max)))
                    abort(); /* counts within the level, ranges in order */
            }
            smp_levels_free(&lv);
        }
        smp_nodes_free(&nodes);
    }
    smt_free(t);
    return 0;
}
