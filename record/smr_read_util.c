/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See smr_read_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/format_numbers.h"
#include "smr_read_util.h"

/* Records of a million ranks are some 15 MB; anything far beyond that is
 * not a record. */
#define MAX_FILE_BYTES (512L << 20)

int smr_bad(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Opens without following a symlink and only a regular file: an
 * administrator auditing users' directories must not be led to read
 * other files, nor hang on a FIFO. */
static FILE *open_regular(const char *path, char *err, size_t n, bool *absent)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *absent = errno == ENOENT;
        smr_bad(err, n, "cannot open: %s",
                errno == ELOOP ? "a symbolic link, not followed" : strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        smr_bad(err, n, "not a regular file");
        return NULL;
    }
    if (sb.st_size > MAX_FILE_BYTES) {
        close(fd);
        smr_bad(err, n, "larger than %ld MB", MAX_FILE_BYTES >> 20);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        smr_bad(err, n, "out of memory");
    }
    return f;
}

json_t *smr_load(const char *path, char *err, size_t n, bool *absent)
{
    *absent = false;
    FILE *f = open_regular(path, err, n, absent);
    if (!f)
        return NULL;
    json_error_t je;
    json_t *j = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        smr_bad(err, n, "invalid JSON at line %d: %s", je.line, je.text);
    fclose(f);
    if (j && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
        smr_bad(err, n, "not a JSON object");
    }
    return j;
}

/* A format newer than this reader knows is refused before any other field
 * is read: its fields may mean something else, and a guess would be a
 * misreading. */
int smr_check_format(json_t *j, const char *what, int known, int *format, char *version,
                     size_t vlen, char *err, size_t n)
{
    json_t *f = json_object_get(j, "format"), *v = json_object_get(j, "stencilmap_version");
    if (v && !json_is_string(v))
        return smr_bad(err, n, "stencilmap_version: must be a string");
    snprintf(version, vlen, "%s", v ? json_string_value(v) : "");
    *format = 1; /* files from before the numbers */
    if (!f)
        return 0;
    if (!json_is_integer(f) || json_integer_value(f) < 1)
        return smr_bad(err, n, "format: must be a positive integer");
    if (json_integer_value(f) > known)
        return smr_bad(err, n,
                       "format: %s of format %lld (written by stencilmap %.40s), newer than the "
                       "format %d this stencil-map %s reads; read it with a newer stencil-map",
                       what, (long long)json_integer_value(f),
                       v ? json_string_value(v) : "(unknown)", known, SM_VERSION);
    *format = (int)json_integer_value(f);
    return 0;
}

int smr_get_int(json_t *o, const char *obj, const char *key, bool nullable, int64_t *v,
                char *err, size_t n)
{
    json_t *x = json_object_get(o, key);
    if (!x)
        return smr_bad(err, n, "%s%s%s: missing", obj, *obj ? "." : "", key);
    if (json_is_null(x) && nullable) {
        *v = -1;
        return 0;
    }
    if (!json_is_integer(x) || json_integer_value(x) < 0)
        return smr_bad(err, n, "%s%s%s: must be a non-negative integer%s", obj, *obj ? "." : "",
                       key, nullable ? " or null" : "");
    *v = json_integer_value(x);
    return 0;
}

int smr_get_str(json_t *o, const char *key, bool nullable, char *out, size_t size, char *err,
                size_t n)
{
    json_t *x = json_object_get(o, key);
    if (!x)
        return smr_bad(err, n, "%s: missing", key);
    if (json_is_null(x) && nullable) {
        out[0] = '\0';
        return 0;
    }
    if (!json_is_string(x))
        return smr_bad(err, n, "%s: must be a string%s", key, nullable ? " or null" : "");
    if (json_string_length(x) >= size)
        return smr_bad(err, n, "%s: longer than %zu bytes", key, size - 1);
    memcpy(out, json_string_value(x), json_string_length(x) + 1);
    return 0;
}

int smr_get_opt_str(json_t *o, const char *key, char *out, size_t size, char *err, size_t n)
{
    out[0] = '\0';
    return json_object_get(o, key) ? smr_get_str(o, key, true, out, size, err, n) : 0;
}
