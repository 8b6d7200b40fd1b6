/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A record's placement: one node name per rank, read into indices of the
 * record's node list.  Names the list lacks (a hand-edited record) are
 * kept as strays, an inconsistency the audit reports, not a reading
 * error. */
#include <stdlib.h>
#include <string.h>

#include "smr_read_util.h"
#include "smr_record_read.h"

/* Node names sorted, for lookups by name in O(log nodes): a record of a
 * million ranks on thousands of nodes names a node per rank. */
struct name_index {
    const smp_nodes *nodes;
    int *order;
};

static const smp_nodes *sort_nodes;
static int by_name(const void *a, const void *b)
{
    return strcmp(sort_nodes->names[*(const int *)a], sort_nodes->names[*(const int *)b]);
}

static int index_build(struct name_index *ix, const smp_nodes *nodes, char *err, size_t n)
{
    ix->nodes = nodes;
    ix->order = malloc(sizeof(int) * (size_t)(nodes->count ? nodes->count : 1));
    if (!ix->order)
        return smr_bad(err, n, "out of memory");
    for (int i = 0; i < nodes->count; i++)
        ix->order[i] = i;
    sort_nodes = nodes;
    qsort(ix->order, (size_t)nodes->count, sizeof(int), by_name);
    for (int i = 1; i < nodes->count; i++)
        if (!strcmp(nodes->names[ix->order[i]], nodes->names[ix->order[i - 1]])) {
            int k = ix->order[i] > ix->order[i - 1] ? ix->order[i] : ix->order[i - 1];
            free(ix->order);
            ix->order = NULL;
            return smr_bad(err, n, "nodes[%d]: '%.200s' listed twice", k, nodes->names[k]);
        }
    return 0;
}

static int index_find(const struct name_index *ix, const char *name)
{
    int lo = 0, hi = ix->nodes->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(name, ix->nodes->names[ix->order[mid]]);
        if (!c)
            return ix->order[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

static int add_stray(smr_record *rec, int64_t r, const char *name, char *err, size_t n)
{
    smr_stray *s = realloc(rec->strays, sizeof(*s) * (size_t)(rec->stray_count + 1));
    if (!s)
        return smr_bad(err, n, "out of memory");
    rec->strays = s;
    if (!(s[rec->stray_count].name = strdup(name)))
        return smr_bad(err, n, "out of memory");
    s[rec->stray_count++].rank = r;
    return 0;
}

static int read_names(json_t *pl, smr_record *rec, const struct name_index *ix, char *err,
                      size_t n)
{
    int last = -1; /* names repeat in long runs */
    for (size_t r = 0; r < json_array_size(pl); r++) {
        json_t *s = json_array_get(pl, r);
        if (!json_is_string(s))
            return smr_bad(err, n, "placement[%zu]: must be a node name", r);
        const char *name = json_string_value(s);
        int i = (last >= 0 && !strcmp(rec->nodes.names[last], name)) ? last : index_find(ix, name);
        rec->node_of_rank[r] = i;
        if (i >= 0)
            last = i;
        else if (add_stray(rec, (int64_t)r, name, err, n))
            return -1;
    }
    return 0;
}

int smr_parse_placement(json_t *j, smr_record *rec, char *err, size_t n)
{
    json_t *pl = json_object_get(j, "placement");
    if (!json_is_array(pl))
        return smr_bad(err, n, "placement: must be an array of node names");
    size_t count = json_array_size(pl);
    if ((int64_t)count > SMP_MAX_RANKS)
        return smr_bad(err, n, "placement: more than %lld entries", (long long)SMP_MAX_RANKS);
    rec->node_of_rank = malloc(sizeof(int32_t) * (count ? count : 1));
    if (!rec->node_of_rank)
        return smr_bad(err, n, "out of memory");
    struct name_index ix;
    if (index_build(&ix, &rec->nodes, err, n))
        return -1;
    int rc = read_names(pl, rec, &ix, err, n);
    free(ix.order);
    if (!rc)
        rec->placement_count = (int64_t)count;
    return rc;
}

const char *smr_record_node_of(const smr_record *rec, int64_t r)
{
    if (r < 0 || r >= rec->placement_count)
        return NULL;
    int32_t i = rec->node_of_rank[r];
    if (i >= 0)
        return rec->nodes.names[i];
    int64_t lo = 0, hi = rec->stray_count - 1; /* strays are in rank order */
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (rec->strays[mid].rank == r)
            return rec->strays[mid].name;
        if (rec->strays[mid].rank < r)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}
