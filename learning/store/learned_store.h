/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user's store of learned specs: where it is, and opening it.
 *
 *   learned_dir=ROOT on the plugstack line   ROOT/<user>/
 *   else $XDG_STATE_HOME (absolute)          $XDG_STATE_HOME/stencilmap/learned/
 *   else                                     $HOME/.local/state/stencilmap/learned/
 *
 * Every directory is opened relative to its parent's descriptor without
 * following a symbolic link and checked (record/private_dir.h): the store
 * and its stencilmap/ parent must be the user's and mode 0700; the ones
 * above them the user's or root's, never world-writable without the
 * sticky bit.  Missing ones are created 0700.  The store holds one file
 * per learned spec or verdict (learned_entry.h) and profiles/, where the
 * first run of an application writes its profile. */
#ifndef STENCILMAP_LEARNED_STORE_H
#define STENCILMAP_LEARNED_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int fd;                 /* the store, opened and checked; -1 when closed */
    char path[PATH_MAX];
} learned_store;

/* The store's path for the current user, from site_root (learned_dir=,
 * may be NULL or "") and the environment; *from says which ("learned_dir",
 * "XDG_STATE_HOME", "HOME").  0, or -1 with a message. */
int learned_store_path(const char *site_root, char *out, size_t n, const char **from, char *msg,
                       size_t mn);

/* Opens the store (creating what is missing when create is set) and
 * checks every directory on the way.  0; 1 when it does not exist and
 * create is not set; -1 with a message naming the directory at fault. */
int learned_store_open(learned_store *s, const char *site_root, bool create, char *msg, size_t n);
void learned_store_close(learned_store *s);

/* A fresh private directory under the store's profiles/ for one run's
 * profile; its absolute path in out.  0, or -1 with a message. */
int learned_store_profile_dir(const learned_store *s, char *out, size_t n, char *msg, size_t mn);

#endif
