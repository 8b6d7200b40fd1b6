/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The text of the STENCIL_MAP_* values, both ways (stencil_env.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stencilmap/placement.h>

#include "formats/stencil_env.h"
#include "formats/stencil_env_msg.h"

_Static_assert(SMP_ENV_LIST_LEN >= SMP_MAX_DIMS * 24, "a list of SMP_MAX_DIMS int64 fits");

int smp_env_msg(char *msg, size_t len, const char *fmt, ...)
{
    if (msg && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* One decimal integer, the whole of [s, s+n): optional '-', digits, no
 * spaces, no '+', no leading zeros beyond "0". */
static int parse_int(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *p = buf[0] == '-' ? buf + 1 : buf;
    if (!*p)
        return -1;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return -1;
    if (p[0] == '0' && p[1])
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int smp_env_parse_list(const char *name, const char *s, int max, int64_t lo, int64_t hi,
                       int64_t *out, int *n, char *msg, size_t len)
{
    *n = 0;
    if (!*s)
        return smp_env_msg(msg, len, "%s: empty", name);
    for (const char *p = s;;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (*n == max)
            return smp_env_msg(msg, len, "%s=%s: more than %d entries", name, s, max);
        if (parse_int(p, l, lo, hi, &out[*n]))
            return smp_env_msg(msg, len, "%s=%s: entry %d '%.*s' is not an integer in [%lld, %lld]",
                           name, s, *n + 1, (int)(l > 40 ? 40 : l), p, (long long)lo,
                           (long long)hi);
        (*n)++;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

int smp_env_parse_dims(const char *s, int64_t *dims, int *ndims, int64_t *size, char *msg,
                       size_t len)
{
    if (smp_env_parse_list(SMP_ENV_DIMS, s, SMP_MAX_DIMS, 1, SMP_MAX_RANKS, dims, ndims, msg,
                           len))
        return -1;
    int64_t prod = 1;
    for (int i = 0; i < *ndims; i++) {
        if (prod > SMP_MAX_RANKS / dims[i])
            return smp_env_msg(msg, len, "%s=%s: more than %lld ranks", SMP_ENV_DIMS, s,
                           (long long)SMP_MAX_RANKS);
        prod *= dims[i];
    }
    *size = prod;
    return 0;
}

int smp_env_parse_order(const char *s, char *msg, size_t len)
{
    if (!strcmp(s, "row-major"))
        return 0;
    if (!strcmp(s, "column-major"))
        return 1;
    return smp_env_msg(msg, len, "%s='%.40s': must be row-major or column-major", SMP_ENV_ORDER, s);
}

void smp_env_format_list(char *buf, size_t len, const int64_t *v, int n)
{
    size_t off = 0;
    if (!len)
        return;
    buf[0] = '\0';
    for (int i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "", (long long)v[i]);
}

char *smp_env_format_stencil(const int32_t *offsets, int count, int ndims)
{
    /* 11 characters hold an int32 and its separator: 12 leaves room */
    size_t cap = (size_t)count * (size_t)ndims * 12 + 16;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    size_t off = 0;
    buf[0] = '\0';
    for (int k = 0; k < count; k++)
        for (int d = 0; d < ndims; d++)
            off += (size_t)snprintf(buf + off, cap - off, "%s%d", d ? "," : (k ? ";" : ""),
                                    offsets[k * ndims + d]);
    return buf;
}
