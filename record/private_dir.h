/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Directories and files the srun side writes: the per-step private
 * directory holding the hostfile, the audit record directory, and the
 * store of learned specs (which the CLI reads and prunes too).
 *
 * Everything goes through directory file descriptors: a directory is
 * opened once with O_NOFOLLOW, checked with fstat, and files are created
 * relative to that descriptor with O_CREAT|O_EXCL|O_NOFOLLOW.  What was
 * checked is therefore what is written into, even if someone renames or
 * replaces the path in between, and no symbolic link is ever followed. */
#ifndef SM_PRIVATE_DIR_H
#define SM_PRIVATE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum {
    SM_DIR_SHARED = 0, /* ours or root's; if world-writable then sticky (e.g. /tmp, record_dir) */
    SM_DIR_PRIVATE     /* ours and mode 0700 */
} sm_dir_kind;

/* Opens dir (not a symbolic link) and checks its owner and mode.  Returns
 * a descriptor or -1 with a message naming dir and what is wrong. */
int sm_dir_open(const char *dir, sm_dir_kind kind, char *msg, size_t n);

/* Opens name in the directory parent_fd (not a symbolic link) and checks
 * it as kind; with create, makes it first (mode 0700) unless it exists.
 * path is only used in messages. */
int sm_subdir_open(int parent_fd, const char *path, const char *name, sm_dir_kind kind,
                   bool create, char *msg, size_t n);

/* Creates name (mode 0700) in the directory parent_fd unless it exists,
 * then opens it as SM_DIR_PRIVATE.  path is only used in messages. */
int sm_subdir_open_private(int parent_fd, const char *path, const char *name, char *msg,
                           size_t n);

/* mkdtemp of parent/stencil-map.XXXXXX (parent checked as SM_DIR_SHARED)
 * into out; returns its descriptor, checked as SM_DIR_PRIVATE, or -1. */
int sm_private_dir_create(const char *parent, char *out, size_t outlen, char *msg, size_t n);

/* Creates name in dir_fd with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, and
 * returns it as a stream for writing.  path names it in messages. */
FILE *sm_file_create_at(int dir_fd, const char *path, const char *name, char *msg, size_t n);

/* Removes the files in dir (not recursing) and dir itself; dir must be a
 * real directory of ours.  Safe on "" and on a directory already gone. */
void sm_private_dir_remove(const char *dir);

#endif
