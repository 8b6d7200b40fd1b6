/* A private per-step directory (mode 0700, mkdtemp) and files created in
 * it with O_CREAT|O_EXCL|O_NOFOLLOW. */
#ifndef SM_PRIVATE_DIR_H
#define SM_PRIVATE_DIR_H

#include <stddef.h>
#include <stdio.h>

/* Checks that dir is a real directory (not a symlink) owned by us or root;
 * with private_mode it must also be 0700 and ours.  0 or -1 with msg. */
int sm_dir_check(const char *dir, int private_mode, char *msg, size_t n);
/* Creates dir (mode 0700) unless it exists, then sm_dir_check(private). */
int sm_dir_ensure_private(const char *dir, char *msg, size_t n);
/* mkdtemp of parent/stencil-map.XXXXXX into out (size n). */
int sm_private_dir_create(const char *parent, char *out, size_t outlen, char *msg, size_t n);
/* Opens dir/name for writing with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600
 * (0644 when readable); path receives the full name. */
FILE *sm_private_file_create(const char *dir, const char *name, int readable, char *path,
                             size_t pathlen, char *msg, size_t n);
/* Removes the files in dir (not recursing) and dir itself. */
void sm_private_dir_remove(const char *dir);

#endif
