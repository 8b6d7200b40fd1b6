/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which application a step runs, and the key its learned specs are
 * stored under.
 *
 * The application is the executable srun launches: the command's first
 * word resolved as the node resolves it (a name with a '/' against the
 * working directory, any other through PATH), then to its real path.  Its
 * key is its content: the ELF build ID the linker wrote into it (a note
 * read in a few hundred bytes, whatever the binary's size), else a hash
 * of the whole file (scripts, binaries linked without --build-id).  A
 * rebuilt binary has another key and is learned again; a copy of the same
 * binary elsewhere shares its key.  The libraries it loads are not part of
 * the key. */
#ifndef STENCILMAP_LEARNED_KEY_H
#define STENCILMAP_LEARNED_KEY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "b" + up to 64 bytes of build ID in hex, or "h" + 32 hex digits + "-" +
 * the size in bytes: letters, digits and '-' only, so a key is a safe part
 * of a file name */
#define LEARNED_KEY_MAX 160
/* build IDs longer than this are no linker's (GNU ld writes 20 bytes) */
#define LEARNED_BUILD_ID_MAX 64

typedef struct {
    char path[PATH_MAX];        /* the executable's real path */
    char key[LEARNED_KEY_MAX];
    bool build_id;              /* the key is the ELF build ID (else a hash) */
    int64_t size;               /* bytes */
} learned_app;

/* The executable the node runs for command: with a '/', command against
 * dir (the step's --chdir, else the current directory; NULL: the current
 * one); else the first regular executable file of that name in the
 * directories of path_env (an empty entry is dir).  out gets its real
 * path.  0, or -1 with a message naming command. */
int learned_app_resolve(const char *command, const char *dir, const char *path_env, char *out,
                        size_t n, char *msg, size_t mn);

/* Reads the key of the regular file at path (its real path).  0, or -1
 * with a message. */
int learned_app_key(const char *path, learned_app *app, char *msg, size_t n);

/* true when text looks like a key: what learned_app_key writes. */
bool learned_key_valid(const char *text);

#endif
