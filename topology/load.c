/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A site's topology file: read whole (a regular file of at most
 * SMT_MAX_BYTES, never a FIFO or device that could hang or feed without
 * end), then parsed as topology.conf.  Apart from the model and the
 * parsers so that they never call back up into file reading. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topology_internal.h"

smp_status smt_load_conf(const char *path, smt_topology **out, smp_error *err)
{
    *out = NULL;
    /* O_NONBLOCK: a FIFO named as the topology must not hang; anything but
     * a regular file is refused below */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return smp_error_set(err, SMP_ERR_INPUT, "topology '%.200s': cannot open: %s", path,
                             strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return smp_error_set(err, SMP_ERR_INPUT, "topology '%.200s': not a regular file", path);
    }
    if (st.st_size > SMT_MAX_BYTES) {
        close(fd);
        return smp_error_set(err, SMP_ERR_INPUT,
                             "topology '%.200s': %lld bytes, larger than the limit of %d bytes",
                             path, (long long)st.st_size, SMT_MAX_BYTES);
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
    }
    int rerr = 0;
    for (;;) { /* the file may grow after fstat: never past the limit */
        if (n == cap) {
            if (cap > SMT_MAX_BYTES)
                break;
            size_t ncap = cap * 2 > (size_t)SMT_MAX_BYTES + 1 ? (size_t)SMT_MAX_BYTES + 1 : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                rerr = ENOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            rerr = errno;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    smp_status s;
    if (rerr)
        s = smp_error_set(err, SMP_ERR_INPUT, "topology '%.200s': read error: %s", path,
                          strerror(rerr));
    else if (n > SMT_MAX_BYTES)
        s = smp_error_set(err, SMP_ERR_INPUT, "topology '%.200s': larger than the limit of %d bytes",
                          path, SMT_MAX_BYTES);
    else
        s = smt_parse_conf(buf, n, path, out, err);
    free(buf);
    return s;
}
