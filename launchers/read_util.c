/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the readers share: the result they fill, its nodes, its lines. */
#include <stdlib.h>
#include <string.h>

#include "launchers.h"

void sml_read_result_free(sml_read_result *r)
{
    if (r->slot)
        for (int64_t i = 0; i < r->ranks; i++)
            free(r->slot[i]);
    free(r->slot);
    free(r->node_of_rank);
    smp_nodes_free(&r->nodes);
    memset(r, 0, sizeof(*r));
}

/* Files of a few thousand nodes are read once: a scan per new rank's node
 * would be quadratic only in the nodes, which stay few. */
int sml_node_index(sml_read_result *r, const char *name, smp_error *err)
{
    smp_nodes *n = &r->nodes;
    for (int i = n->count - 1; i >= 0; i--)
        if (!strcmp(n->names[i], name))
            return i;
    if (n->count >= SMP_MAX_NODES) {
        smp_error_set(err, SMP_ERR_INPUT, "more than %d distinct nodes", SMP_MAX_NODES);
        return -1;
    }
    char **names = realloc(n->names, sizeof(char *) * ((size_t)n->count + 1));
    if (names)
        n->names = names;
    int32_t *slots = names ? realloc(n->slots, sizeof(int32_t) * ((size_t)n->count + 1)) : NULL;
    if (slots)
        n->slots = slots;
    if (!names || !slots || !(n->names[n->count] = strdup(name))) {
        smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
        return -1;
    }
    n->slots[n->count] = 0;
    return n->count++;
}

smp_status sml_push_rank(sml_read_result *r, int32_t node, smp_error *err)
{
    if (r->ranks >= SMP_MAX_RANKS)
        return smp_error_set(err, SMP_ERR_INPUT, "more than %lld ranks", (long long)SMP_MAX_RANKS);
    /* grow by doubling: capacity is the next power of two at or above ranks */
    int64_t n = r->ranks;
    if ((n & (n - 1)) == 0) {
        int32_t *v = realloc(r->node_of_rank, sizeof(int32_t) * (size_t)(n ? 2 * n : 1));
        if (!v)
            return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
        r->node_of_rank = v;
    }
    r->node_of_rank[r->ranks++] = node;
    r->nodes.slots[node]++;
    r->nodes.total_slots++;
    return SMP_OK;
}

int sml_getline(FILE *in, char *buf, size_t cap, int64_t *lineno, const char *what, smp_error *err)
{
    if (!fgets(buf, (int)cap, in))
        return 0;
    ++*lineno;
    size_t len = strcspn(buf, "\r\n");
    if (buf[len] == '\0' && !feof(in)) {
        smp_error_set(err, SMP_ERR_INPUT, "%s: line %lld is longer than %zu characters", what,
                      (long long)*lineno, cap - 2);
        return -1;
    }
    buf[len] = '\0';
    return 1;
}
