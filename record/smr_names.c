/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See smr_names.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smr_names.h"

static void stem(char *out, size_t n, int64_t job, int64_t step, long pid)
{
    if (step == SMR_NO_STEP)
        snprintf(out, n, "%lld.nostep-%ld", (long long)job, pid);
    else
        snprintf(out, n, "%lld.%lld", (long long)job, (long long)step);
}

void smr_record_name(char *out, size_t n, int64_t job, int64_t step, long pid, int k)
{
    char base[64];
    stem(base, sizeof(base), job, step, pid);
    if (k == 0)
        snprintf(out, n, "%s" SMR_RECORD_SUFFIX, base);
    else
        snprintf(out, n, "%s.%d" SMR_RECORD_SUFFIX, base, k);
}

void smr_record_tmp_name(char *out, size_t n, int64_t job, int64_t step, long pid)
{
    /* hidden, so that no reader lists it; the pid keeps two sruns apart */
    char base[64];
    stem(base, sizeof(base), job, step, pid);
    snprintf(out, n, ".%s.%ld.tmp", base, pid);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* A decimal number at *p followed by '.'; moves *p past the digits. */
static bool number_then_dot(const char **p, long long *v)
{
    if (!isdigit((unsigned char)**p))
        return false;
    char *end;
    errno = 0;
    *v = strtoll(*p, &end, 10);
    if (errno || *end != '.')
        return false;
    *p = end;
    return true;
}

bool smr_record_name_parse(const char *base, int64_t *job, int64_t *step)
{
    if (base[0] == '.' || strlen(base) < 6 || !ends_with(base, SMR_RECORD_SUFFIX) ||
        strstr(base, ".verify."))
        return false;
    const char *p = base;
    long long j, s;
    if (!number_then_dot(&p, &j))
        return false;
    p++;
    if (!strncmp(p, "nostep-", 7)) {
        p += 7;
        if (!number_then_dot(&p, &s))
            return false;
        *job = j;
        *step = SMR_NO_STEP;
        return true;
    }
    if (!number_then_dot(&p, &s))
        return false;
    *job = j;
    *step = s;
    return true;
}

char *smr_verify_path(const char *record_path)
{
    size_t len = strlen(record_path);
    if (ends_with(record_path, SMR_RECORD_SUFFIX))
        len -= strlen(SMR_RECORD_SUFFIX);
    char *out = malloc(len + sizeof(SMR_VERIFY_SUFFIX));
    if (out) {
        memcpy(out, record_path, len);
        strcpy(out + len, SMR_VERIFY_SUFFIX);
    }
    return out;
}

int smr_verify_names(const char *record, char *dir, size_t dlen, char *base, size_t blen)
{
    size_t n = strlen(record), sl = strlen(SMR_RECORD_SUFFIX);
    const char *slash = strrchr(record, '/');
    if (record[0] != '/' || !slash || n < sl + 1 || !ends_with(record, SMR_RECORD_SUFFIX) ||
        ends_with(record, SMR_VERIFY_SUFFIX))
        return -1;
    size_t dn = (size_t)(slash - record), bn = n - sl - dn - 1;
    if (dn == 0)
        dn = 1; /* the record lies in "/" */
    if (dn >= dlen || bn + strlen(SMR_VERIFY_SUFFIX) >= blen)
        return -2;
    memcpy(dir, record, dn);
    dir[dn] = '\0';
    snprintf(base, blen, "%.*s%s", (int)bn, slash + 1, SMR_VERIFY_SUFFIX);
    return 0;
}

void smr_time_now(char *out, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
