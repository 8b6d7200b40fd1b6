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

static int find_or_add(smp_nodes *nodes, const char *name, smp_error *err)
{
    for (int i = 0; i < nodes->count; i++)
        if (strcmp(nodes->names[i], name) == 0)
            return i;
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
    if (!nn || !ns || !(nodes->names[nodes->count] = strdup(name))) {
        smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: out of memory");
        return -1;
    }
    nodes->slots[nodes->count] = 0;
    return nodes->count++;
}

smp_status smp_hostfile_read(FILE *in, smp_nodes *nodes, int32_t **node_of_rank, int64_t *ranks,
                             smp_error *err)
{
    char line[512];
    int64_t n = 0, cap = 1024;
    int32_t *v = malloc(sizeof(int32_t) * (size_t)cap);
    if (!v)
        return smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: out of memory");
    /* a node seen before this call keeps its slot count; new ones count lines */
    int known = nodes->count;
    while (fgets(line, sizeof(line), in)) {
        size_t len = strcspn(line, "\r\n");
        if (line[len] == '\0' && !feof(in)) {
            free(v);
            return smp_error_set(err, SMP_ERR_INPUT, "hostfile: line %lld is too long", (long long)n + 1);
        }
        line[len] = '\0';
        char *name = line + strspn(line, " \t");
        name[strcspn(name, " \t")] = '\0';
        if (!*name || *name == '#')
            continue;
        if (n >= SMP_MAX_RANKS) {
            free(v);
            return smp_error_set(err, SMP_ERR_INPUT, "hostfile: more than %lld ranks", (long long)SMP_MAX_RANKS);
        }
        if (n == cap) {
            int32_t *nv = realloc(v, sizeof(int32_t) * (size_t)(cap *= 2));
            if (!nv) {
                free(v);
                return smp_error_set(err, SMP_ERR_SYSTEM, "hostfile: out of memory");
            }
            v = nv;
        }
        int idx = find_or_add(nodes, name, err);
        if (idx < 0) {
            free(v);
            return err->status;
        }
        if (idx >= known)
            nodes->slots[idx]++;
        v[n++] = idx;
    }
    nodes->total_slots = 0;
    for (int i = 0; i < nodes->count; i++)
        nodes->total_slots += nodes->slots[i];
    *node_of_rank = v;
    *ranks = n;
    return SMP_OK;
}
