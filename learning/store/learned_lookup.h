/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the store says about a step of an application: place it from a
 * learned spec, launch it blocked (a verdict, or a spec of another rank
 * count that cannot be carried over), or profile it to learn. */
#ifndef STENCILMAP_LEARNED_LOOKUP_H
#define STENCILMAP_LEARNED_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "learned_entry.h"
#include "learned_store.h"

typedef enum {
    LEARNED_FOUND_NONE = 0,    /* nothing (or an expired verdict): profile this run */
    LEARNED_FOUND_SPEC,        /* place from entry, spec_json */
    LEARNED_FOUND_NOT_STENCIL, /* a standing verdict: blocked, not profiled */
    LEARNED_FOUND_OTHER_RANKS, /* fixed grids of other rank counts only: blocked, learn again */
    LEARNED_FOUND_BAD          /* a stored file is unreadable or hostile: blocked (msg) */
} learned_found_kind;

typedef struct {
    learned_found_kind kind;
    learned_entry entry;       /* SPEC, NOT_STENCIL: the entry found */
    char *spec_json;           /* SPEC: the spec to plan with (malloc'd) */
    bool regridded;            /* SPEC: learned on entry.ranks, dims by MPI_Dims_create */
    int64_t other_ranks;       /* OTHER_RANKS: one rank count a spec was learned on */
    bool expired_verdict;      /* a verdict exists and has expired: replace it */
    char msg[1024];            /* BAD: what is wrong, naming the file */
} learned_found;

/* Looks key up for a step of ranks tasks (0: the count is not known
 * before launch, so only a verdict applies).  The exact rank count wins,
 * then a spec whose grid came from MPI_Dims_create (recomputed for
 * ranks), then a verdict that has not expired at now. */
void learned_lookup(const learned_store *s, const char *key, int64_t ranks, time_t now,
                    learned_found *f);
void learned_found_free(learned_found *f);

/* The names of the store's entries (learned_entry_name_parse accepts
 * them), sorted; of one key only when key is not NULL.  0, or -1 (out of
 * memory, unreadable store).  Free with learned_names_free. */
int learned_store_names(const learned_store *s, const char *key, char ***names, size_t *count);
void learned_names_free(char **names, size_t count);

#endif
