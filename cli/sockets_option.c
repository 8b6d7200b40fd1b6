/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The second level in plan and compare: sockets per node from --sockets
 * (or the spec's "sockets"), the split of each node's ranks over them and
 * the inter-socket figures beside the naive split's. */
#include <stdlib.h>

#include "cli.h"

int cli_sockets_of(const struct cli_opts *o, const smp_spec *spec, const smp_nodes *nodes,
                   int32_t **sockets)
{
    smp_error err;
    *sockets = NULL;
    if (!o->sockets && spec->sockets < 1)
        return 0;
    int32_t *s = malloc(sizeof(int32_t) * (size_t)nodes->count);
    if (!s) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "--sockets: out of memory");
        return cli_fail(&err);
    }
    if (o->sockets) {
        if (smp_counts_parse(o->sockets, "--sockets", s, nodes->count, &err)) {
            free(s);
            return cli_fail(&err);
        }
        for (int i = 0; i < nodes->count; i++)
            if (s[i] > SMP_MAX_SOCKETS) {
                smp_error_set(&err, SMP_ERR_INPUT, "--sockets: %d for node %d, at most %d",
                              (int)s[i], i, SMP_MAX_SOCKETS);
                free(s);
                return cli_fail(&err);
            }
    } else {
        for (int i = 0; i < nodes->count; i++)
            s[i] = spec->sockets;
    }
    *sockets = s;
    return 0;
}

int cli_socket_split(const smp_spec *spec, const smp_placement *pl, const int32_t *sockets,
                     int32_t **socket_of_rank, smp_socket_score *planned,
                     smp_socket_score *naive)
{
    smp_error err;
    size_t p = (size_t)spec->grid.size;
    int32_t *split = malloc(sizeof(int32_t) * p), *flat = malloc(sizeof(int32_t) * p);
    smp_status s = SMP_OK;
    if (!split || !flat)
        s = smp_error_set(&err, SMP_ERR_SYSTEM, "--sockets: out of memory");
    if (!s)
        s = smp_plan_sockets(&spec->grid, &spec->stencil, pl->node_of_rank, pl->nnodes, sockets,
                             split, planned, &err);
    if (!s)
        s = smp_sockets_naive(&spec->grid, pl->node_of_rank, pl->nnodes, sockets, flat, &err);
    if (!s)
        s = smp_socket_score_compute(&spec->grid, &spec->stencil, pl->node_of_rank, pl->nnodes,
                                     sockets, flat, naive, &err);
    free(flat);
    if (s) {
        free(split);
        return cli_fail(&err);
    }
    if (socket_of_rank)
        *socket_of_rank = split;
    else
        free(split);
    return 0;
}
