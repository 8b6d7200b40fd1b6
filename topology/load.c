/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A site's topology file: read whole (a regular file of at most
 * SMT_MAX_BYTES, never a FIFO or device that could hang or feed without
 * end), then parsed as topology.yaml, saved `scontrol show topology`
 * output or topology.conf, told by content.
 * Apart from the model and the parsers so that they never call back up
 * into file reading. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topology_internal.h"

static smp_status parse(const char *text, size_t len, const char *path, const char *name,
                        smt_topology **out, smp_error *err)
{
    enum smt_printed printed = smt_printed_form(text, len);
    if (printed == SMT_PRINTED_NOTHING)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "topology '%.200s': saved `scontrol show topology` says \"No topology "
                             "information available\": Slurm lists no switch or block on that "
                             "cluster, so there are no network levels; plan with --topology "
                             "none", path);
    if (printed == SMT_PRINTED_LINES && name)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "topology '%.200s:%.80s': ':%.80s' picks one of a topology.yaml's "
                             "topologies, and %.200s is saved `scontrol show topology` output",
                             path, name, name, path);
    if (printed == SMT_PRINTED_LINES)
        return smt_parse_printed_from(text, len, path, out, err);
    if (smt_is_yaml(text, len))
        return smt_parse_yaml(text, len, path, name, out, err);
    if (name)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "topology '%.200s:%.80s': ':%.80s' picks one of a topology.yaml's "
                             "topologies, and %.200s is in topology.conf syntax",
                             path, name, name, path);
    return smt_parse_conf(text, len, path, out, err);
}

/* name: the topology.yaml topology asked for, or NULL */
static smp_status load(const char *path, const char *name, smt_topology **out, smp_error *err)
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
        s = parse(buf, n, path, name, out, err);
    free(buf);
    return s;
}

smp_status smt_load_conf(const char *path, smt_topology **out, smp_error *err)
{
    return load(path, NULL, out, err);
}

smp_status smt_load(const char *arg, smt_topology **out, smp_error *err)
{
    *out = NULL;
    const char *colon = strrchr(arg, ':');
    struct stat st;
    /* FILE:NAME, unless FILE:NAME is itself a file or NAME is not a name */
    if (!colon || !colon[1] || strchr(colon, '/') || stat(arg, &st) == 0)
        return load(arg, NULL, out, err);
    char path[4096];
    size_t n = (size_t)(colon - arg);
    if (n >= sizeof(path))
        return smp_error_set(err, SMP_ERR_INPUT, "topology '%.200s...': path too long", arg);
    memcpy(path, arg, n);
    path[n] = '\0';
    return load(path, colon + 1, out, err);
}
