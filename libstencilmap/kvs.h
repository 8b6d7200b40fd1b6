/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How the ranks of a job tell each other what they know: every rank puts
 * string values under keys, all fence, then any rank gets any rank's
 * value.  Two transports behind one table, picked from the environment
 * the launcher gave the rank:
 *
 *   PMIx    srun --mpi=pmix, Open MPI's mpirun (its PMIx server), any
 *           launcher that sets PMIX_NAMESPACE;
 *   PMI-1   the PMI wire protocol over the descriptor PMI_FD, with the
 *           rank in PMI_RANK and the size in PMI_SIZE: MPICH's Hydra
 *           (mpiexec), which serves no PMIx (kvs_pmi1.c).
 *
 * Values are text to the library; a number is put with its kind, which
 * PMIx keeps as the type stencilmap.h(3) documents for the key (PMIX_INT,
 * PMIX_UINT64, PMIX_DOUBLE) and PMI-1, which knows text only, writes out.
 * Messages go to msg (len bytes) and name the transport. */
#ifndef SM_KVS_H
#define SM_KVS_H

#include <stddef.h>
#include <stdint.h>

#include "stencilmap.h"

typedef struct sm_kvs sm_kvs;

/* what a put value is: text, or the text of a number of this kind */
typedef enum { SM_KVS_TEXT = 0, SM_KVS_INT, SM_KVS_UINT64, SM_KVS_DOUBLE } sm_kvs_kind;

typedef struct {
    const char *name; /* "PMIx", "PMI-1" */
    /* connects; fills rank, size and node */
    stencilmap_status (*init)(sm_kvs *k, char *msg, size_t len);
    stencilmap_status (*put)(sm_kvs *k, const char *key, const char *value, sm_kvs_kind kind,
                             char *msg, size_t len);
    /* collective: afterwards every rank's puts are visible to all */
    stencilmap_status (*fence)(sm_kvs *k, char *msg, size_t len);
    /* *value is malloc'd text (a number as put: "%lld", "%llu", "%.17g") */
    stencilmap_status (*get)(sm_kvs *k, int64_t rank, const char *key, char **value, char *msg,
                             size_t len);
    stencilmap_status (*finalize)(sm_kvs *k);
} sm_kvs_ops;

struct sm_kvs {
    const sm_kvs_ops *ops;
    int64_t rank, size;
    char node[256]; /* where this rank runs, as the transport's launcher knows it */
    void *state;    /* the transport's own */
};

/* Picks the transport from the environment (PMI_FD without PMIX_NAMESPACE:
 * PMI-1; else PMIx) and initialises it.  On failure k->ops stays NULL. */
stencilmap_status sm_kvs_open(sm_kvs *k, char *msg, size_t len);

extern const sm_kvs_ops sm_kvs_pmix;
extern const sm_kvs_ops sm_kvs_pmi1;

/* ---- the PMI-1 wire protocol's text (kvs_pmi1.c), apart for the tests ---- */
/* value as PMI-1 carries it: letters, digits and , . ; : _ + / - as they
 * are, every other byte as %XX, so that no space or '=' reaches the wire;
 * malloc'd, NULL when out of memory */
char *sm_pmi1_encode(const char *value);
/* the inverse, in place; -1 on a malformed escape */
int sm_pmi1_decode(char *value);
/* the value of "name=value" among the space-separated words of a reply,
 * copied into buf (at most cap-1 bytes); -1 when absent or too long */
int sm_pmi1_field(const char *reply, const char *name, char *buf, size_t cap);

#endif
