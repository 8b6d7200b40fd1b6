/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The instance plan and compare work on: the options, the nodes and their
 * slots, the spec, the sockets per node, the network levels and their
 * links; loaded in that order, so the first bad input is the one
 * reported. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_instance_load(int argc, char **argv, const char *cmd, struct cli_instance *in)
{
    smp_error err;
    in->sockets = NULL;
    memset(&in->levels, 0, sizeof(in->levels));
    memset(&in->links, 0, sizeof(in->links));
    int rc = cli_parse(argc, argv, cmd, "n", &in->o);
    if (rc)
        return rc;
    if (smp_nodes_parse(&in->nodes, in->o.nodes, in->o.slots, &err))
        return cli_fail(&err);
    if ((rc = cli_load_spec(&in->o, in->nodes.total_slots, &in->spec))) {
        smp_nodes_free(&in->nodes);
        return rc;
    }
    if ((rc = cli_sockets_of(&in->o, &in->spec, &in->nodes, &in->sockets)) ||
        (rc = cli_levels_links_of(&in->o, &in->nodes, &in->levels, &in->links)) ||
        (rc = cli_links_of(&in->o, &in->levels, &in->links))) {
        free(in->sockets);
        smp_links_free(&in->links);
        smp_levels_free(&in->levels);
        in->sockets = NULL;
        smp_spec_free(&in->spec);
        smp_nodes_free(&in->nodes);
    }
    return rc;
}

void cli_instance_free(struct cli_instance *in)
{
    free(in->sockets);
    in->sockets = NULL;
    smp_links_free(&in->links);
    smp_levels_free(&in->levels);
    smp_spec_free(&in->spec);
    smp_nodes_free(&in->nodes);
}
