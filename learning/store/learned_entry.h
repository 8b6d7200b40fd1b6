/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One file of the store of learned specs: what a profiled run of an
 * application taught, one owner both ways (writer and reader here).
 *
 *   <key>.n<ranks>.json      a spec learned from a run of <ranks> ranks
 *   <key>.not-stencil.json   the verdict that the application is no
 *                            stencil code (or no MPI program): its runs
 *                            launch blocked, unprofiled, until it expires
 *
 * A JSON object: "stencilmap_version", "format" (SM_FORMAT_LEARNED; a
 * newer one is refused), "kind" ("spec" or "not-stencil"), "key",
 * "executable", "learned" (the evidence: "job", "step", "date", "ranks",
 * "bytes", "share" of the bytes explained, "grid_source": MPI_Dims_create,
 * MPI_Cart_create or inferred), and "spec" (a spec object as a user would
 * write it) or "reason" and "expires".  Written under a temporary name and
 * linked to its own, never replacing one (record/smr_atomic.h): of two
 * runs that learn the same application at once, the first stores, the
 * other's spec is dropped. */
#ifndef STENCILMAP_LEARNED_ENTRY_H
#define STENCILMAP_LEARNED_ENTRY_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "learned_key.h"

/* a stored file is at most this big (a spec's own limit and room for the rest) */
#define LEARNED_ENTRY_MAX_BYTES ((1 << 20) + 65536)
/* how long a "not a stencil code" verdict stands: a failed first run
 * taken for a non-MPI program costs at most this long blocked */
#define LEARNED_VERDICT_DAYS 7

typedef enum { LEARNED_SPEC = 0, LEARNED_NOT_STENCIL } learned_kind;

typedef struct {
    int format;                 /* as read; the writer writes SM_FORMAT_LEARNED */
    char version[64];
    learned_kind kind;
    char key[LEARNED_KEY_MAX];
    char executable[PATH_MAX];
    int64_t job, step;          /* -1: not known */
    char date[32];              /* "2026-06-01T08:00:00Z" */
    int64_t ranks;
    double bytes;               /* sent between ranks in the profiled run */
    double share;               /* of them on the learned stencil's offsets */
    char grid_source[32];       /* "MPI_Dims_create", "MPI_Cart_create", "inferred"; "" verdicts */
    json_t *spec;               /* LEARNED_SPEC: the spec object (owned) */
    char reason[512];           /* LEARNED_NOT_STENCIL: why */
    char expires[32];           /* LEARNED_NOT_STENCIL */
    time_t expires_at;
} learned_entry;

void learned_entry_init(learned_entry *e);
void learned_entry_free(learned_entry *e);

/* The file name of an entry; ranks only for LEARNED_SPEC. */
void learned_entry_name(char *out, size_t n, const char *key, learned_kind kind, int64_t ranks);
/* Parses a file name of the store; false for anything else (profiles/, a
 * temporary file). */
bool learned_entry_name_parse(const char *name, char *key, size_t kn, learned_kind *kind,
                              int64_t *ranks);

/* Reads name from the store dir_fd (called dir in messages): a regular
 * file of the user's, not a link, at most LEARNED_ENTRY_MAX_BYTES, whose
 * every field is checked (the spec with the spec parser's words, its grid
 * against "ranks", the key against the name).  0, or -1 with a message
 * naming the file and the field. */
int learned_entry_read_at(int dir_fd, const char *dir, const char *name, learned_entry *e,
                          char *msg, size_t n);

/* Stores e atomically under its own name.  0; 1 when that name exists
 * already (another run was first: nothing written); -1 with a message. */
int learned_entry_write_at(int dir_fd, const char *dir, const learned_entry *e, char *msg,
                           size_t n);

/* The spec to plan a step of ranks ranks with, as JSON text (malloc'd):
 * the stored spec when it was learned on that many ranks, else, when the
 * grid came from MPI_Dims_create, the same stencil and periods on the
 * grid MPI_Dims_create gives for ranks ("dims": "auto"); NULL otherwise
 * (or out of memory).  *regridded says which. */
char *learned_entry_spec_for(const learned_entry *e, int64_t ranks, bool *regridded);

/* The stored spec's grid as "4x4", periods not included. */
void learned_entry_dims(const learned_entry *e, char *out, size_t n);

#endif
