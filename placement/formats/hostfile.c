/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hostfiles in the form Slurm's arbitrary distribution reads from
 * SLURM_HOSTFILE: one node name per line, line r for rank r. */
#include <stdlib.h>
#include <string.h>

#include "stencilmap/placement.h"

smp_status smp_hostfile_write(FILE *out, const smp_nodes *nodes, const smp_placement *pl,
                              smp_error *err)
{
    for (int64_t r = 0; r < pl->ranks; r++)
        if (fputs(nodes->names[pl->node_of_rank[r]], out) == EOF || fputc('\n', out) == EOF)
            return smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: write failed");
    if (fflush(out) == EOF)
        return smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: write failed");
    return SMP_OK;
}

/* Node names seen so far, hashed: a million-line hostfile over thousands of
 * nodes would otherwise cost a scan of every known name per line.  Open
 * addressing with linear probing; slots hold node index + 1, 0 is empty. */
struct name_index {
    int32_t *slot;
    size_t mask;
};

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void index_put(struct name_index *ix, const smp_nodes *nodes, int i)
{
    size_t k = name_hash(nodes->names[i]) & ix->mask;
    while (ix->slot[k])
        k = (k + 1) & ix->mask;
    ix->slot[k] = i + 1;
}

/* room for at least `count` names at load factor 1/2 */
static int index_reserve(struct name_index *ix, const smp_nodes *nodes, int count)
{
    if (ix->slot && (size_t)count * 2 <= ix->mask + 1)
        return 0;
    size_t size = 64;
    while (size < (size_t)count * 2)
        size *= 2;
    int32_t *slot = calloc(size, sizeof(int32_t));
    if (!slot)
        return -1;
    free(ix->slot);
    ix->slot = slot;
    ix->mask = size - 1;
    for (int i = 0; i < nodes->count; i++)
        index_put(ix, nodes, i);
    return 0;
}

static int find_or_add(smp_nodes *nodes, struct name_index *ix, const char *name, smp_error *err)
{
    for (size_t k = name_hash(name) & ix->mask; ix->slot[k]; k = (k + 1) & ix->mask)
        if (strcmp(nodes->names[ix->slot[k] - 1], name) == 0)
            return ix->slot[k] - 1;
    if (nodes->count >= SMP_MAX_NODES) {
        smp_error_set(err, SMP_ERR_INPUT, "hostfile: more than %d distinct nodes", SMP_MAX_NODES);
        return -1;
    }
    char **nn = realloc(nodes->names, sizeof(char *) * ((size_t)nodes->count + 1));
    int32_t *ns = nn ? realloc(nodes->slots, sizeof(int32_t) * ((size_t)nodes->count + 1)) : NULL;
    if (nn)
        nodes->names = nn;
    if (ns)
        nodes->slots = ns;
    if (!nn || !ns || !(nodes->names[nodes->count] = strdup(name)) ||
        index_reserve(ix, nodes, nodes->count + 1)) {
        smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: out of memory");
        return -1;
    }
    nodes->slots[nodes->count] = 0;
    index_put(ix, nodes, nodes->count);
    return nodes->count++;
}

smp_status smp_hostfile_read(FILE *in, smp_nodes *nodes, int32_t **node_of_rank, int64_t *ranks,
                             smp_error *err)
{
    char line[512];
    int64_t n = 0, cap = 1024;
    struct name_index ix = {0};
    int32_t *v = malloc(sizeof(int32_t) * (size_t)cap);
    if (!v || index_reserve(&ix, nodes, nodes->count)) {
        smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: out of memory");
        goto fail;
    }
    /* a node seen before this call keeps its slot count; new ones count lines */
    int known = nodes->count;
    while (fgets(line, sizeof(line), in)) {
        size_t len = strcspn(line, "\r\n");
        if (line[len] == '\0' && !feof(in)) {
            smp_error_set(err, SMP_ERR_INPUT, "hostfile: line %lld is too long", (long long)n + 1);
            goto fail;
        }
        line[len] = '\0';
        char *name = line + strspn(line, " \t");
        name[strcspn(name, " \t")] = '\0';
        if (!*name || *name == '#')
            continue;
        if (n >= SMP_MAX_RANKS) {
            smp_error_set(err, SMP_ERR_INPUT, "hostfile: more than %lld ranks", (long long)SMP_MAX_RANKS);
            goto fail;
        }
        if (n == cap) {
            int32_t *nv = realloc(v, sizeof(int32_t) * (size_t)(cap *= 2));
            if (!nv) {
                smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: out of memory");
                goto fail;
            }
            v = nv;
        }
        int idx = find_or_add(nodes, &ix, name, err);
        if (idx < 0)
            goto fail;
        if (idx >= known)
            nodes->slots[idx]++;
        v[n++] = idx;
    }
    free(ix.slot);
    nodes->total_slots = 0;
    for (int i = 0; i < nodes->count; i++)
        nodes->total_slots += nodes->slots[i];
    *node_of_rank = v;
    *ranks = n;
    return SMP_OK;
fail:
    free(ix.slot);
    free(v);
    return err->status;
}
