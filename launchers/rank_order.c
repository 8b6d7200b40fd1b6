/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cray: an MPICH_RANK_ORDER file for HPE Cray MPICH.  With
 * MPICH_RANK_REORDER_METHOD=3, Cray MPICH reads the MPI ranks, comma
 * separated, in the order they take the launch's slots (intro_mpi(3),
 * MPICH_RANK_REORDER_METHOD; grid_order(1) writes such lists): the first
 * node's slots first, then the next node's.  How many slots each node has
 * is the launch's (srun's tasks per node), not the file's, so the file
 * here lists the ranks node by node, one line per node, in the order the
 * launch fills the nodes, and is valid only when every node takes exactly
 * as many ranks as the launch starts there: the writer insists that the
 * plan fill each node to its slots.
 *
 *     0,1,4,5        node 1: ranks 0, 1, 4, 5
 *     2,3,6,7        node 2
 *
 * With sockets, each node's ranks are listed socket by socket, so that a
 * launch that binds its tasks to cores in order puts them on the socket
 * the plan chose. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "launchers.h"

smp_status sml_write_rank_order(FILE *out, const sml_plan *p, smp_error *err)
{
    const smp_nodes *nodes = p->nodes;
    const smp_placement *pl = p->pl;
    int64_t *count = calloc((size_t)nodes->count + 1, sizeof(int64_t));
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(pl->ranks ? pl->ranks : 1));
    if (!count || !order) {
        free(count);
        free(order);
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    }
    for (int64_t r = 0; r < pl->ranks; r++)
        count[pl->node_of_rank[r] + 1]++;
    smp_status s = SMP_OK;
    for (int i = 0; i < nodes->count && !s; i++)
        if (count[i + 1] != nodes->slots[i])
            s = smp_error_set(
                err, SMP_ERR_INFEASIBLE,
                "--launcher cray: node %s would take %lld ranks but has %d slots; Cray MPICH "
                "fills each node with the launch's tasks per node, so the plan must fill every "
                "node: plan %lld ranks, or give --slots the tasks per node the launch starts",
                nodes->names[i], (long long)count[i + 1], (int)nodes->slots[i],
                (long long)nodes->total_slots);
    if (s) {
        free(count);
        free(order);
        return s;
    }
    /* ranks sorted by (node, socket, rank): a counting sort per node,
     * then, with sockets, a stable pass per node by socket */
    for (int i = 0; i < nodes->count; i++)
        count[i + 1] += count[i];
    int64_t *at = malloc(sizeof(int64_t) * ((size_t)nodes->count + 1));
    if (!at) {
        free(count);
        free(order);
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    }
    memcpy(at, count, sizeof(int64_t) * (size_t)nodes->count);
    for (int64_t r = 0; r < pl->ranks; r++)
        order[at[pl->node_of_rank[r]]++] = r;
    bool bad = false;
    for (int i = 0; i < nodes->count && !bad; i++) {
        int64_t lo = count[i], hi = count[i + 1];
        if (p->socket_of_rank) {
            /* insertion by socket keeps rank order inside a socket */
            for (int64_t a = lo + 1; a < hi; a++) {
                int64_t v = order[a], b = a;
                while (b > lo && p->socket_of_rank[order[b - 1]] > p->socket_of_rank[v]) {
                    order[b] = order[b - 1];
                    b--;
                }
                order[b] = v;
            }
        }
        for (int64_t a = lo; a < hi && !bad; a++)
            bad = fprintf(out, "%s%lld", a > lo ? "," : "", (long long)order[a]) < 0;
        bad = bad || fputc('\n', out) == EOF;
    }
    free(at);
    free(count);
    free(order);
    return bad ? smp_error_set(err, SMP_ERR_SYSTEM, "MPICH_RANK_ORDER: write failed") : SMP_OK;
}

/* The ranks in file order; given says how many of them each node takes. */
smp_status sml_read_rank_order(FILE *in, const smp_nodes *given, sml_read_result *r, smp_error *err)
{
    const char *what = "MPICH_RANK_ORDER";
    if (!given || given->count < 1)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s: reading it needs the launch's nodes and ranks per node", what);
    int64_t total = given->total_slots;
    int64_t *listed = malloc(sizeof(int64_t) * (size_t)(total ? total : 1));
    int64_t *pos = malloc(sizeof(int64_t) * (size_t)(total ? total : 1)); /* per rank, or -1 */
    if (!listed || !pos) {
        free(listed);
        free(pos);
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    }
    for (int64_t k = 0; k < total; k++)
        pos[k] = -1;
    char line[4096];
    int64_t lineno = 0, n = 0;
    int got;
    smp_status s = SMP_OK;
    while (!s && (got = sml_getline(in, line, sizeof(line), &lineno, what, err)) > 0) {
        for (char *t = line; *t && !s;) {
            t += strspn(t, " \t,");
            if (!*t)
                break;
            char *end;
            long long v = isdigit((unsigned char)*t) ? strtoll(t, &end, 10) : -1;
            if (v < 0 || (*end && !strchr(" \t,", *end))) {
                size_t len = strcspn(t, " \t,");
                s = smp_error_set(err, SMP_ERR_INPUT, "%s: line %lld: '%.*s' is not a rank", what,
                                  (long long)lineno, (int)(len > 40 ? 40 : len), t);
            } else if (v >= total) {
                s = smp_error_set(err, SMP_ERR_INPUT,
                                  "%s: line %lld: rank %lld, but the launch has %lld ranks", what,
                                  (long long)lineno, v, (long long)total);
            } else if (pos[v] >= 0) {
                s = smp_error_set(
                    err, SMP_ERR_INPUT,
                    "%s: line %lld: rank %lld is listed twice (in places %lld and %lld)", what,
                    (long long)lineno, v, (long long)pos[v] + 1, (long long)n + 1);
            } else {
                pos[v] = n;
                listed[n++] = v;
                t = end;
            }
        }
    }
    if (!s && got < 0)
        s = err->status;
    if (!s && n != total)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s: %lld ranks listed, but the launch has %lld",
                          what, (long long)n, (long long)total);
    /* place k of the list is the launch's slot k: node by node */
    int32_t *node_of = s ? NULL : malloc(sizeof(int32_t) * (size_t)(total ? total : 1));
    if (!s && !node_of)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    int64_t k = 0;
    for (int i = 0; i < given->count && !s; i++) {
        int idx = sml_node_index(r, given->names[i], err);
        if (idx < 0)
            s = err->status;
        for (int32_t j = 0; j < given->slots[i] && !s; j++)
            node_of[listed[k++]] = idx;
    }
    for (int64_t q = 0; q < total && !s; q++)
        s = sml_push_rank(r, node_of[q], err);
    free(node_of);
    free(listed);
    free(pos);
    return s;
}
