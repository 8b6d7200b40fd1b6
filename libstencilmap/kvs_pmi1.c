/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The PMI-1 transport (kvs.h): the PMI wire protocol, version 1.1, that
 * MPICH's Hydra serves its ranks on the descriptor PMI_FD.  One text line
 * per command and per reply, words "name=value" separated by spaces:
 *
 *   cmd=init pmi_version=1 pmi_subversion=1   cmd=response_to_init ... rc=0
 *   cmd=get_maxes                             cmd=maxes kvsname_max= keylen_max= vallen_max=
 *   cmd=get_my_kvsname                        cmd=my_kvsname kvsname=K
 *   cmd=put kvsname=K key=k value=v           cmd=put_result rc=0
 *   cmd=barrier_in                            cmd=barrier_out
 *   cmd=get kvsname=K key=k                   cmd=get_result rc=0 ... value=v
 *   cmd=finalize                              cmd=finalize_ack
 *
 * (as MPICH 4.0's Hydra answers them: src/pm/hydra/pm/pmiserv/
 * pmip_pmi_v1.c).  The space is one per job, so every key carries the
 * putting rank ("r12.stencilmap.node"); values are escaped (no space or
 * '=' on the wire) and split over several keys when longer than the
 * server's vallen_max: the first key holds "N:" and the first part, keys
 * "...#1" to "...#N-1" the rest.  The rank and the job size come from
 * PMI_RANK and PMI_SIZE, which the launcher sets beside PMI_FD; the node
 * is gethostname(): Hydra hands its ranks mpiexec's environment, in which
 * SLURMD_NODENAME, if any, is the node mpiexec runs on. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvs.h"
#include "stencilmap_internal.h"

typedef struct {
    int fd;
    char kvsname[256];
    size_t keylen_max, vallen_max;
    char *line; /* a reply */
    size_t cap;
} pmi1_state;

static pmi1_state the_state = {.fd = -1};

/* ---- the text ------------------------------------------------------------ */
static bool plain_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr(",.;:_+/-", c));
}

char *sm_pmi1_encode(const char *value)
{
    size_t n = strlen(value);
    char *out = malloc(3 * n + 1), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
        if (plain_char((char)*c))
            *o++ = (char)*c;
        else
            o += sprintf(o, "%%%02X", *c);
    }
    *o = '\0';
    return out;
}

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

int sm_pmi1_decode(char *value)
{
    char *o = value;
    for (const char *c = value; *c; c++) {
        if (*c != '%') {
            *o++ = *c;
            continue;
        }
        int h = hex(c[1]), l = h < 0 ? -1 : hex(c[2]);
        if (l < 0)
            return -1;
        *o++ = (char)(h * 16 + l);
        c += 2;
    }
    *o = '\0';
    return 0;
}

int sm_pmi1_field(const char *reply, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    for (const char *w = reply; *w;) {
        w += strspn(w, " ");
        size_t len = strcspn(w, " ");
        if (len > n && !strncmp(w, name, n) && w[n] == '=') {
            if (len - n - 1 >= cap)
                return -1;
            memcpy(buf, w + n + 1, len - n - 1);
            buf[len - n - 1] = '\0';
            return 0;
        }
        w += len;
    }
    return -1;
}

/* ---- the wire ------------------------------------------------------------ */
static stencilmap_status send_line(pmi1_state *st, const char *line, char *msg, size_t len)
{
    for (size_t off = 0, n = strlen(line); off < n;) {
        ssize_t w = write(st->fd, line + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMI: write to PMI_FD %d: %s", st->fd,
                          w < 0 ? strerror(errno) : "closed");
        off += (size_t)w;
    }
    return STENCILMAP_OK;
}

/* one reply line (without its newline) into st->line; it must start with
 * "cmd=want" */
static stencilmap_status read_reply(pmi1_state *st, const char *want, char *msg, size_t len)
{
    size_t n = 0;
    for (;;) {
        if (n + 1 >= st->cap) {
            size_t nc = st->cap ? 2 * st->cap : 4096;
            char *b = realloc(st->line, nc);
            if (!b)
                return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
            st->line = b;
            st->cap = nc;
        }
        /* byte by byte: a reply is read up to its newline and no further,
         * the next one stays in the descriptor */
        ssize_t r = read(st->fd, st->line + n, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return sm_msg(msg, len, STENCILMAP_ERR_PMIX,
                          "PMI: no reply cmd=%s from the launcher (PMI_FD %d: %s)", want, st->fd,
                          r < 0 ? strerror(errno) : "closed");
        if (st->line[n] == '\n')
            break;
        n++;
    }
    st->line[n] = '\0';
    char cmd[64];
    if (sm_pmi1_field(st->line, "cmd", cmd, sizeof(cmd)) || strcmp(cmd, want))
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMI: expected cmd=%s, got '%.100s'", want,
                      st->line);
    char rc[16];
    if (!sm_pmi1_field(st->line, "rc", rc, sizeof(rc)) && strcmp(rc, "0"))
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMI: %.200s", st->line);
    return STENCILMAP_OK;
}

static stencilmap_status command(pmi1_state *st, const char *line, const char *want, char *msg,
                                 size_t len)
{
    stencilmap_status s = send_line(st, line, msg, len);
    return s ? s : read_reply(st, want, msg, len);
}

/* ---- the transport --------------------------------------------------------- */
static int env_int(const char *name, long long lo, long long hi, long long *v)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return errno || *end || *v < lo || *v > hi ? -1 : 0;
}

static stencilmap_status pmi1_init(sm_kvs *k, char *msg, size_t len)
{
    pmi1_state *st = &the_state;
    k->state = st;
    long long fd, rank, size;
    if (env_int("PMI_FD", 0, 1 << 20, &fd) || env_int("PMI_SIZE", 1, INT32_MAX, &size) ||
        env_int("PMI_RANK", 0, size - 1, &rank))
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX,
                      "PMI: PMI_FD, PMI_RANK or PMI_SIZE missing or malformed ('%s', '%s', '%s')",
                      getenv("PMI_FD") ? getenv("PMI_FD") : "",
                      getenv("PMI_RANK") ? getenv("PMI_RANK") : "",
                      getenv("PMI_SIZE") ? getenv("PMI_SIZE") : "");
    st->fd = (int)fd;
    k->rank = rank;
    k->size = size;
    stencilmap_status s =
        command(st, "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", msg, len);
    char v[32];
    if (!s && !(s = command(st, "cmd=get_maxes\n", "maxes", msg, len))) {
        if (sm_pmi1_field(st->line, "keylen_max", v, sizeof(v)) ||
            (st->keylen_max = strtoul(v, NULL, 10)) < 32 ||
            sm_pmi1_field(st->line, "vallen_max", v, sizeof(v)) ||
            (st->vallen_max = strtoul(v, NULL, 10)) < 32)
            s = sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMI: unusable maxes '%.100s'", st->line);
    }
    if (!s && !(s = command(st, "cmd=get_my_kvsname\n", "my_kvsname", msg, len)) &&
        sm_pmi1_field(st->line, "kvsname", st->kvsname, sizeof(st->kvsname)))
        s = sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMI: no kvsname in '%.100s'", st->line);
    if (s)
        return s;
    if (gethostname(k->node, sizeof(k->node) - 1) != 0)
        snprintf(k->node, sizeof(k->node), "unknown");
    k->node[sizeof(k->node) - 1] = '\0';
    return STENCILMAP_OK;
}

/* "r<rank>.<key>", and "#<part>" for the parts after the first */
static stencilmap_status make_key(pmi1_state *st, char *buf, size_t cap, int64_t rank,
                                  const char *key, int64_t part, char *msg, size_t len)
{
    int n = part ? snprintf(buf, cap, "r%lld.%s#%lld", (long long)rank, key, (long long)part)
                 : snprintf(buf, cap, "r%lld.%s", (long long)rank, key);
    if (n < 0 || (size_t)n >= cap || (size_t)n >= st->keylen_max)
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMI: key '%s' longer than the server's %zu",
                      key, st->keylen_max);
    return STENCILMAP_OK;
}

static stencilmap_status pmi1_put(sm_kvs *k, const char *key, const char *value, sm_kvs_kind kind,
                                  char *msg, size_t len)
{
    (void)kind; /* text on the wire, whatever it holds */
    pmi1_state *st = k->state;
    char *enc = sm_pmi1_encode(value);
    if (!enc)
        return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
    /* room for "N:" ahead of the first part */
    size_t room = st->vallen_max - 24, n = strlen(enc);
    int64_t parts = n ? (int64_t)((n + room - 1) / room) : 1;
    size_t cap = room + 512;
    char *line = malloc(cap);
    stencilmap_status s =
        line ? STENCILMAP_OK : sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
    for (int64_t p = 0; p < parts && !s; p++) {
        char k2[256];
        size_t off = (size_t)p * room, take = n - off < room ? n - off : room;
        if (!(s = make_key(st, k2, sizeof(k2), k->rank, key, p, msg, len))) {
            if (p == 0)
                snprintf(line, cap, "cmd=put kvsname=%s key=%s value=%lld:%.*s\n", st->kvsname, k2,
                         (long long)parts, (int)take, enc + off);
            else
                snprintf(line, cap, "cmd=put kvsname=%s key=%s value=%.*s\n", st->kvsname, k2,
                         (int)take, enc + off);
            s = command(st, line, "put_result", msg, len);
        }
    }
    free(line);
    free(enc);
    return s;
}

static stencilmap_status pmi1_fence(sm_kvs *k, char *msg, size_t len)
{
    return command(k->state, "cmd=barrier_in\n", "barrier_out", msg, len);
}

/* part p of rank's key, appended to *out */
static stencilmap_status get_part(sm_kvs *k, int64_t rank, const char *key, int64_t p, char **out,
                                  size_t *n, char *msg, size_t len)
{
    pmi1_state *st = k->state;
    char k2[256], line[640];
    stencilmap_status s = make_key(st, k2, sizeof(k2), rank, key, p, msg, len);
    if (s)
        return s;
    snprintf(line, sizeof(line), "cmd=get kvsname=%s key=%s\n", st->kvsname, k2);
    if ((s = send_line(st, line, msg, len)) || (s = read_reply(st, "get_result", msg, len))) {
        char why[STENCILMAP_MSG_LEN];
        snprintf(why, sizeof(why), "%s", msg);
        return sm_msg(msg, len, s, "PMI get(rank %lld, \"%s\"): %s", (long long)rank, key, why);
    }
    const char *v = strstr(st->line, " value=");
    if (!v)
        return sm_msg(msg, len, STENCILMAP_ERR_PMIX,
                      "PMI get(rank %lld, \"%s\"): no value in '%.100s'", (long long)rank, key,
                      st->line);
    v += 7;
    size_t vl = strcspn(v, " ");
    char *b = realloc(*out, *n + vl + 1);
    if (!b)
        return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
    memcpy(b + *n, v, vl);
    *n += vl;
    b[*n] = '\0';
    *out = b;
    return STENCILMAP_OK;
}

static stencilmap_status pmi1_get(sm_kvs *k, int64_t rank, const char *key, char **value, char *msg,
                                  size_t len)
{
    char *text = NULL;
    size_t n = 0;
    stencilmap_status s = get_part(k, rank, key, 0, &text, &n, msg, len);
    char *end = NULL;
    long long parts = s ? 0 : strtoll(text, &end, 10);
    if (!s && (end == text || *end != ':' || parts < 1))
        s = sm_msg(msg, len, STENCILMAP_ERR_PMIX,
                   "PMI get(rank %lld, \"%s\"): malformed value '%.60s'", (long long)rank, key,
                   text);
    size_t skip = s ? 0 : (size_t)(end + 1 - text); /* "N:" */
    for (long long p = 1; !s && p < parts; p++)
        s = get_part(k, rank, key, p, &text, &n, msg, len);
    if (!s) {
        memmove(text, text + skip, n - skip + 1);
        if (sm_pmi1_decode(text))
            s = sm_msg(msg, len, STENCILMAP_ERR_PMIX, "PMI get(rank %lld, \"%s\"): bad escape",
                       (long long)rank, key);
    }
    if (s) {
        free(text);
        return s;
    }
    *value = text;
    return STENCILMAP_OK;
}

static stencilmap_status pmi1_finalize(sm_kvs *k)
{
    char msg[STENCILMAP_MSG_LEN];
    pmi1_state *st = k->state;
    stencilmap_status s = command(st, "cmd=finalize\n", "finalize_ack", msg, sizeof(msg));
    free(st->line);
    st->line = NULL;
    st->cap = 0;
    return s;
}

const sm_kvs_ops sm_kvs_pmi1 = {"PMI-1", pmi1_init, pmi1_put, pmi1_fence, pmi1_get, pmi1_finalize};

/* ---- the choice -------------------------------------------------------------- */
stencilmap_status sm_kvs_open(sm_kvs *k, char *msg, size_t len)
{
    memset(k, 0, sizeof(*k));
    const char *pmix = getenv("PMIX_NAMESPACE"), *fd = getenv("PMI_FD");
    const sm_kvs_ops *ops = (fd && *fd && !(pmix && *pmix)) ? &sm_kvs_pmi1 : &sm_kvs_pmix;
    stencilmap_status s = ops->init(k, msg, len);
    if (!s)
        k->ops = ops;
    return s;
}
