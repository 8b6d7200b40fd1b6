/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See smr_atomic.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "smr_atomic.h"

/* The temporary file, written and on disk; 0 or -1 with a message. */
static int write_tmp(int dir_fd, const char *dir, const char *tmp, smr_emit_fn emit,
                     const void *arg, char *msg, size_t n)
{
    int fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(msg, n, "%.1400s/%s: cannot create: %s", dir, tmp, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(msg, n, "out of memory");
        close(fd);
        return -1;
    }
    if (emit(f, arg, msg, n)) {
        fclose(f);
        return -1;
    }
    int bad = fflush(f) == EOF || fsync(fd) != 0;
    int saved = errno;
    bad |= fclose(f) != 0;
    if (bad)
        snprintf(msg, n, "%.1400s/%s: write failed: %s", dir, tmp, strerror(saved));
    return bad ? -1 : 0;
}

int smr_atomic_write(int dir_fd, const char *dir, const char *tmp, smr_emit_fn emit,
                     const void *arg, smr_name_fn name_of, const void *name_arg, int tries,
                     char *final, size_t final_len, char *msg, size_t n)
{
    if (write_tmp(dir_fd, dir, tmp, emit, arg, msg, n)) {
        unlinkat(dir_fd, tmp, 0);
        return -1;
    }
    /* link() never replaces: the first free name wins */
    int rc = -1, saved = EEXIST;
    for (int k = 0; k < tries && rc; k++) {
        name_of(k, final, final_len, name_arg);
        rc = linkat(dir_fd, tmp, dir_fd, final, 0);
        saved = errno;
        if (rc && saved != EEXIST)
            break;
    }
    unlinkat(dir_fd, tmp, 0);
    if (rc)
        snprintf(msg, n, "%.1400s/%s: %s", dir, final,
                 saved == EEXIST ? "exists already, not replaced" : strerror(saved));
    return rc ? -1 : 0;
}
