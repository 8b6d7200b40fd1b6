/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one way a record or a result reaches its directory: written under a
 * temporary name created with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0600),
 * flushed to disk, then linked to its final name, which must not exist.
 * A reader sees the whole file or none, a symbolic link planted at either
 * name is never followed, and an existing file is never replaced.  The
 * directory is a descriptor the caller opened and checked: what was
 * checked is what is written into. */
#ifndef SMR_ATOMIC_H
#define SMR_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

/* Writes the file's content into f; 0, or -1 with a message. */
typedef int (*smr_emit_fn)(FILE *f, const void *arg, char *msg, size_t n);
/* The k-th name to try (k from 0). */
typedef void (*smr_name_fn)(int k, char *name, size_t n, const void *arg);

/* Writes emit's content into dir_fd (called dir in messages) under tmp,
 * then links it to name_of(0), or when that exists to name_of(1) and so
 * on, tries names in all.  Returns 0 with the name taken in final, or -1
 * with a message; the temporary file is gone either way. */
int smr_atomic_write(int dir_fd, const char *dir, const char *tmp, smr_emit_fn emit,
                     const void *arg, smr_name_fn name_of, const void *name_arg, int tries,
                     char *final, size_t final_len, char *msg, size_t n);

#endif
