/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store's files, both ways (see learned_entry.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <stencilmap/placement.h>

#include "formats/format_numbers.h"
#include "learned_entry.h"
#include "smr_atomic.h"

#define SUFFIX_NOT_STENCIL ".not-stencil.json"

void learned_entry_init(learned_entry *e)
{
    memset(e, 0, sizeof(*e));
    e->format = SM_FORMAT_LEARNED;
    e->job = e->step = -1;
}

void learned_entry_free(learned_entry *e)
{
    json_decref(e->spec);
    e->spec = NULL;
}

void learned_entry_name(char *out, size_t n, const char *key, learned_kind kind, int64_t ranks)
{
    if (kind == LEARNED_NOT_STENCIL)
        snprintf(out, n, "%s" SUFFIX_NOT_STENCIL, key);
    else
        snprintf(out, n, "%s.n%" PRId64 ".json", key, ranks);
}

bool learned_entry_name_parse(const char *name, char *key, size_t kn, learned_kind *kind,
                              int64_t *ranks)
{
    const char *dot = strchr(name, '.');
    if (!dot || (size_t)(dot - name) >= kn || (size_t)(dot - name) >= LEARNED_KEY_MAX)
        return false;
    memcpy(key, name, (size_t)(dot - name));
    key[dot - name] = '\0';
    if (!learned_key_valid(key))
        return false;
    *ranks = 0;
    if (!strcmp(dot, SUFFIX_NOT_STENCIL)) {
        *kind = LEARNED_NOT_STENCIL;
        return true;
    }
    char *end;
    if (dot[1] != 'n' || dot[2] < '1' || dot[2] > '9')
        return false;
    errno = 0;
    long long r = strtoll(dot + 2, &end, 10);
    if (errno || strcmp(end, ".json") || r < 1 || r > SMP_MAX_RANKS)
        return false;
    *kind = LEARNED_SPEC;
    *ranks = r;
    return true;
}

/* ---- reading --------------------------------------------------------------- */

__attribute__((format(printf, 4, 5))) static int bad(char *msg, size_t n, const char *file,
                                                     const char *fmt, ...)
{
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(msg, n, "%s: %s", file, what);
    return -1;
}

/* the whole file, NUL-terminated; NULL with a message */
static char *slurp(int dir_fd, const char *name, const char *file, size_t *len, char *msg, size_t n)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        bad(msg, n, file, "cannot open: %s%s", strerror(errno),
            errno == ELOOP ? " (a symbolic link: refused)" : "");
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode))
        bad(msg, n, file, "not a regular file: refused");
    else if (st.st_uid != geteuid())
        bad(msg, n, file, "owned by uid %u, not by uid %u: refused", (unsigned)st.st_uid,
            (unsigned)geteuid());
    else if (st.st_size > LEARNED_ENTRY_MAX_BYTES)
        bad(msg, n, file, "%lld bytes, above the limit of %d", (long long)st.st_size,
            LEARNED_ENTRY_MAX_BYTES);
    else if (!(text = malloc((size_t)st.st_size + 1)))
        bad(msg, n, file, "out of memory");
    else {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, text + got, (size_t)st.st_size - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got != (size_t)st.st_size) {
            bad(msg, n, file, "cannot read: %s", strerror(errno));
            free(text);
            text = NULL;
        } else {
            text[got] = '\0';
            *len = got;
        }
    }
    close(fd);
    return text;
}

static bool parse_date(const char *s, time_t *t)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    int used = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &used) != 6 ||
        s[used] || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *t = timegm(&tm);
    return true;
}

/* a string field into out (bounded); required or not */
static int get_string(json_t *obj, const char *key, const char *path, char *out, size_t on,
                      bool required, const char *file, char *msg, size_t n)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return required ? bad(msg, n, file, "%s: missing", path) : 0;
    if (!json_is_string(v))
        return bad(msg, n, file, "%s: must be a string", path);
    if (strlen(json_string_value(v)) >= on)
        return bad(msg, n, file, "%s: longer than %zu bytes", path, on - 1);
    strcpy(out, json_string_value(v));
    return 0;
}

/* an integer id or null */
static int get_id(json_t *obj, const char *key, const char *path, int64_t *out, const char *file,
                  char *msg, size_t n)
{
    json_t *v = json_object_get(obj, key);
    *out = -1;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
        return bad(msg, n, file, "%s: must be an integer from 0 to %u, or null", path, UINT32_MAX);
    *out = json_integer_value(v);
    return 0;
}

static int read_evidence(json_t *root, learned_entry *e, const char *file, char *msg, size_t n)
{
    json_t *ev = json_object_get(root, "learned");
    if (!json_is_object(ev))
        return bad(msg, n, file, "learned: %s", ev ? "must be an object" : "missing");
    if (get_id(ev, "job", "learned.job", &e->job, file, msg, n) ||
        get_id(ev, "step", "learned.step", &e->step, file, msg, n) ||
        get_string(ev, "date", "learned.date", e->date, sizeof(e->date), true, file, msg, n))
        return -1;
    time_t t;
    if (!parse_date(e->date, &t))
        return bad(msg, n, file, "learned.date: '%s' is no date YYYY-MM-DDTHH:MM:SSZ", e->date);
    json_t *r = json_object_get(ev, "ranks");
    if (!json_is_integer(r) || json_integer_value(r) < 1 || json_integer_value(r) > SMP_MAX_RANKS)
        return bad(msg, n, file, "learned.ranks: must be an integer from 1 to %" PRId64,
                   SMP_MAX_RANKS);
    e->ranks = json_integer_value(r);
    json_t *b = json_object_get(ev, "bytes"), *s = json_object_get(ev, "share");
    if (b && (!json_is_number(b) || !(json_number_value(b) >= 0) || !isfinite(json_number_value(b))))
        return bad(msg, n, file, "learned.bytes: must be a number of at least 0");
    if (s && (!json_is_number(s) || !(json_number_value(s) >= 0 && json_number_value(s) <= 1)))
        return bad(msg, n, file, "learned.share: must be a number from 0 to 1");
    e->bytes = b ? json_number_value(b) : 0;
    e->share = s ? json_number_value(s) : 0;
    if (get_string(ev, "grid_source", "learned.grid_source", e->grid_source, sizeof(e->grid_source),
                   e->kind == LEARNED_SPEC, file, msg, n))
        return -1;
    if (e->kind == LEARNED_SPEC && strcmp(e->grid_source, "MPI_Dims_create") &&
        strcmp(e->grid_source, "MPI_Cart_create") && strcmp(e->grid_source, "inferred"))
        return bad(msg, n, file,
                   "learned.grid_source: unknown '%s' (MPI_Dims_create, MPI_Cart_create or inferred)",
                   e->grid_source);
    return 0;
}

/* the spec object, checked by the spec parser: a fixed grid of e->ranks */
static int read_spec(json_t *root, learned_entry *e, const char *file, char *msg, size_t n)
{
    json_t *spec = json_object_get(root, "spec");
    if (!json_is_object(spec))
        return bad(msg, n, file, "spec: %s", spec ? "must be an object" : "missing");
    char *text = json_dumps(spec, JSON_COMPACT);
    if (!text)
        return bad(msg, n, file, "out of memory");
    smp_spec parsed;
    smp_error err;
    smp_error_clear(&err);
    smp_status st = smp_spec_parse(&parsed, text, strlen(text), smp_specs_dir(), &err);
    free(text);
    if (st)
        return bad(msg, n, file, "spec: %s", err.msg);
    bool fixed = !parsed.dims_auto;
    int64_t size = parsed.grid.size;
    smp_spec_free(&parsed);
    if (!fixed)
        return bad(msg, n, file, "spec: grid.dims: must be the learned dims, not \"auto\"");
    if (size != e->ranks)
        return bad(msg, n, file, "spec: the grid holds %" PRId64 " ranks but learned.ranks is %" PRId64,
                   size, e->ranks);
    e->spec = json_incref(spec);
    return 0;
}

static int read_fields(json_t *root, const char *name, learned_entry *e, const char *file, char *msg,
                       size_t n)
{
    if (!json_is_object(root))
        return bad(msg, n, file, "must be a JSON object");
    json_t *f = json_object_get(root, "format");
    if (f && (!json_is_integer(f) || json_integer_value(f) < 1))
        return bad(msg, n, file, "format: must be a positive integer");
    e->format = f ? (int)(json_integer_value(f) > 1000000 ? 1000000 : json_integer_value(f)) : 1;
    if (e->format > SM_FORMAT_LEARNED)
        return bad(msg, n, file,
                   "format %d is newer than this stencilmap's (%d): written by a later version, "
                   "not read",
                   e->format, SM_FORMAT_LEARNED);
    char kind[32] = "";
    if (get_string(root, "stencilmap_version", "stencilmap_version", e->version, sizeof(e->version),
                   false, file, msg, n) ||
        get_string(root, "kind", "kind", kind, sizeof(kind), true, file, msg, n))
        return -1;
    if (!strcmp(kind, "spec"))
        e->kind = LEARNED_SPEC;
    else if (!strcmp(kind, "not-stencil"))
        e->kind = LEARNED_NOT_STENCIL;
    else
        return bad(msg, n, file, "kind: unknown '%s' (spec or not-stencil)", kind);
    char nkey[LEARNED_KEY_MAX];
    learned_kind nkind;
    int64_t nranks;
    if (!learned_entry_name_parse(name, nkey, sizeof(nkey), &nkind, &nranks))
        return bad(msg, n, file, "not the name of a learned spec or verdict");
    if (get_string(root, "key", "key", e->key, sizeof(e->key), true, file, msg, n) ||
        get_string(root, "executable", "executable", e->executable, sizeof(e->executable), true, file,
                   msg, n))
        return -1;
    if (strcmp(e->key, nkey))
        return bad(msg, n, file, "key: '%.200s' is not the file name's key", e->key);
    if (e->executable[0] != '/')
        return bad(msg, n, file, "executable: must be an absolute path");
    if (nkind != e->kind)
        return bad(msg, n, file, "kind: '%s' does not fit the file name", kind);
    if (read_evidence(root, e, file, msg, n))
        return -1;
    if (e->kind == LEARNED_SPEC) {
        if (nranks != e->ranks)
            return bad(msg, n, file, "learned.ranks: %" PRId64 " but the file name says %" PRId64,
                       e->ranks, nranks);
        return read_spec(root, e, file, msg, n);
    }
    if (get_string(root, "reason", "reason", e->reason, sizeof(e->reason), true, file, msg, n) ||
        get_string(root, "expires", "expires", e->expires, sizeof(e->expires), true, file, msg, n))
        return -1;
    if (!parse_date(e->expires, &e->expires_at))
        return bad(msg, n, file, "expires: '%s' is no date YYYY-MM-DDTHH:MM:SSZ", e->expires);
    return 0;
}

int learned_entry_read_at(int dir_fd, const char *dir, const char *name, learned_entry *e,
                          char *msg, size_t n)
{
    learned_entry_init(e);
    e->format = 0;
    char file[PATH_MAX + 300];
    snprintf(file, sizeof(file), "%s/%s", dir, name);
    size_t len = 0;
    char *text = slurp(dir_fd, name, file, &len, msg, n);
    if (!text)
        return -1;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!root)
        return bad(msg, n, file, "invalid JSON at line %d column %d: %s", jerr.line, jerr.column,
                   jerr.text);
    int rc = read_fields(root, name, e, file, msg, n);
    json_decref(root);
    if (rc)
        learned_entry_free(e);
    return rc;
}

/* ---- writing --------------------------------------------------------------- */

static json_t *id_or_null(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

static json_t *to_json(const learned_entry *e)
{
    json_t *j = json_object();
    json_object_set_new(j, "stencilmap_version", json_string(SM_VERSION));
    json_object_set_new(j, "format", json_integer(SM_FORMAT_LEARNED));
    json_object_set_new(j, "kind", json_string(e->kind == LEARNED_SPEC ? "spec" : "not-stencil"));
    json_object_set_new(j, "key", json_string(e->key));
    json_object_set_new(j, "executable", json_string(e->executable));
    json_t *ev = json_object();
    json_object_set_new(ev, "job", id_or_null(e->job));
    json_object_set_new(ev, "step", id_or_null(e->step));
    json_object_set_new(ev, "date", json_string(e->date));
    json_object_set_new(ev, "ranks", json_integer(e->ranks));
    json_object_set_new(ev, "bytes", json_real(e->bytes));
    json_object_set_new(ev, "share", json_real(e->share));
    if (e->grid_source[0])
        json_object_set_new(ev, "grid_source", json_string(e->grid_source));
    json_object_set_new(j, "learned", ev);
    if (e->kind == LEARNED_SPEC) {
        json_object_set(j, "spec", e->spec);
    } else {
        json_object_set_new(j, "reason", json_string(e->reason));
        json_object_set_new(j, "expires", json_string(e->expires));
    }
    return j;
}

static int emit(FILE *f, const void *arg, char *msg, size_t n)
{
    if (json_dumpf((const json_t *)arg, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF) {
        snprintf(msg, n, "cannot write the learned spec");
        return -1;
    }
    return 0;
}

static void name_of(int k, char *name, size_t n, const void *arg)
{
    (void)k;
    snprintf(name, n, "%s", (const char *)arg);
}

int learned_entry_write_at(int dir_fd, const char *dir, const learned_entry *e, char *msg,
                           size_t n)
{
    if (e->kind == LEARNED_SPEC && !json_is_object(e->spec)) {
        snprintf(msg, n, "no spec to store");
        return -1;
    }
    char name[LEARNED_KEY_MAX + 64], tmp[96], final[LEARNED_KEY_MAX + 64];
    learned_entry_name(name, sizeof(name), e->key, e->kind, e->ranks);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(tmp, sizeof(tmp), ".tmp.%ld.%ld.%ld", (long)getpid(), (long)ts.tv_sec, ts.tv_nsec);
    json_t *j = to_json(e);
    if (!j) {
        snprintf(msg, n, "out of memory");
        return -1;
    }
    int rc = smr_atomic_write(dir_fd, dir, tmp, emit, j, name_of, name, 1, final, sizeof(final), msg, n);
    json_decref(j);
    if (rc) {
        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            return 1; /* another run stored it first: link() never replaces */
        return -1;
    }
    return 0;
}

/* ---- using a spec ---------------------------------------------------------- */

char *learned_entry_spec_for(const learned_entry *e, int64_t ranks, bool *regridded)
{
    *regridded = false;
    if (e->kind != LEARNED_SPEC || !e->spec)
        return NULL;
    if (ranks == e->ranks)
        return json_dumps(e->spec, JSON_COMPACT);
    if (strcmp(e->grid_source, "MPI_Dims_create"))
        return NULL;
    json_t *spec = json_deep_copy(e->spec), *grid = json_object_get(spec, "grid");
    json_t *dims = json_object_get(grid, "dims");
    if (!json_is_array(dims)) {
        json_decref(spec);
        return NULL;
    }
    /* the periods, stencil and weights stay; the dims are MPI_Dims_create's */
    json_object_set_new(grid, "ndims", json_integer((json_int_t)json_array_size(dims)));
    json_object_set_new(grid, "dims", json_string("auto"));
    char *text = json_dumps(spec, JSON_COMPACT);
    json_decref(spec);
    *regridded = text != NULL;
    return text;
}

void learned_entry_dims(const learned_entry *e, char *out, size_t n)
{
    json_t *dims = json_object_get(json_object_get(e->spec, "grid"), "dims");
    size_t at = 0, i;
    json_t *v;
    out[0] = '\0';
    json_array_foreach(dims, i, v)
    {
        if (at < n)
            at += (size_t)snprintf(out + at, n - at, "%s%" JSON_INTEGER_FORMAT, i ? "x" : "",
                                   json_integer_value(v));
    }
}
