/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The nodes of a communicator, found inside the job as no launcher file
 * can tell them: a node is the processes of one shared-memory group
 * (MPI_Comm_split_type SHARED) with one processor name.  Both are needed:
 * containers may share a name across hosts, and several "nodes" of a test
 * cluster may share one host's memory.  Nodes may hold any number of
 * processes.  Only rank 0 plans, so the identities are gathered there
 * (one gather of a fixed record per process, no allgather, after a
 * broadcast of one int). */
#include <stdlib.h>
#include <string.h>

#include "mpix_internal.h"

typedef struct {
    int leader; /* the shared-memory group's rank 0, as a rank of comm */
    char name[MPI_MAX_PROCESSOR_NAME];
} smx_ident;

typedef struct {
    const smx_ident *id;
    int rank;
} smx_sorted;

static int by_identity(const void *a, const void *b)
{
    const smx_sorted *x = a, *y = b;
    if (x->id->leader != y->id->leader)
        return x->id->leader < y->id->leader ? -1 : 1;
    int c = strcmp(x->id->name, y->id->name);
    if (c)
        return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

void smx_nodes_free(smx_nodes *nodes)
{
    if (!nodes)
        return;
    for (int n = 0; nodes->names && n < nodes->nnodes; n++)
        free(nodes->names[n]);
    free(nodes->names);
    free(nodes->node_of);
    free(nodes->slots);
    memset(nodes, 0, sizeof(*nodes));
}

/* Node numbers in the order of (leader, name): the first node is rank 0's. */
static int number_nodes(const smx_ident *all, int size, smx_nodes *nodes)
{
    smx_sorted *s = malloc(sizeof(*s) * (size_t)size);
    nodes->node_of = malloc(sizeof(int32_t) * (size_t)size);
    nodes->slots = calloc((size_t)size, sizeof(int32_t));
    nodes->names = calloc((size_t)size, sizeof(char *));
    if (!s || !nodes->node_of || !nodes->slots || !nodes->names) {
        free(s);
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0; r < size; r++)
        s[r] = (smx_sorted){&all[r], r};
    qsort(s, (size_t)size, sizeof(*s), by_identity);
    int n = -1;
    for (int i = 0; i < size; i++) {
        if (i == 0 || s[i].id->leader != s[i - 1].id->leader ||
            strcmp(s[i].id->name, s[i - 1].id->name)) {
            n++;
            nodes->nnodes = n + 1;
            if (!(nodes->names[n] = strdup(s[i].id->name))) {
                free(s);
                return MPI_ERR_NO_MEM;
            }
        }
        nodes->node_of[s[i].rank] = n;
        nodes->slots[n]++;
    }
    free(s);
    return MPI_SUCCESS;
}

int smx_nodes_find(MPI_Comm comm, int root_room, smx_nodes *nodes)
{
    int rank, size, len = 0, rc;
    MPI_Comm shm;
    memset(nodes, 0, sizeof(*nodes));
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    smx_ident me;
    memset(&me, 0, sizeof(me));
    me.leader = rank;
    if ((rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm)))
        return rc;
    rc = MPI_Bcast(&me.leader, 1, MPI_INT, 0, shm);
    MPI_Comm_free(&shm);
    if (rc)
        return rc;
    MPI_Get_processor_name(me.name, &len);
    /* rank 0 says whether it has room for everyone's record first: a
     * gather it could not receive would leave the others waiting */
    smx_ident *all = NULL;
    int room = 1;
    if (rank == 0)
        room = root_room && (all = malloc(sizeof(*all) * (size_t)size)) != NULL;
    if ((rc = MPI_Bcast(&room, 1, MPI_INT, 0, comm)) || !room)
        return rc ? rc : MPI_ERR_NO_MEM;
    rc = MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0, comm);
    nodes->size = size;
    if (rank == 0 && rc == MPI_SUCCESS)
        rc = number_nodes(all, size, nodes);
    free(all);
    return rc;
}
