/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The specs directory: reading a file within the size limit, the names it
 * holds, the messages for unknown ones, and named stencils. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/spec_internal.h"

#ifndef SMP_SPECS_DIR
#define SMP_SPECS_DIR "/usr/local/share/stencilmap/specs"
#endif

const char *smp_specs_dir(void)
{
    const char *env = getenv("STENCILMAP_SPECS_DIR");
    return (env && *env) ? env : SMP_SPECS_DIR;
}

smp_status smp_read_file(const char *path, const char *what, char **text, size_t *len,
                         smp_error *err)
{
    /* O_NONBLOCK: a FIFO or a terminal named as a spec must not hang srun;
     * anything but a regular file is refused below. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return smp_error_set(err, SMP_ERR_INPUT, "%s '%.200s': cannot open: %s", what, path,
                             strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return smp_error_set(err, SMP_ERR_INPUT, "%s '%.200s': not a regular file", what, path);
    }
    if (st.st_size > SMP_MAX_SPEC_BYTES) {
        close(fd);
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s '%.200s': %lld bytes, larger than the limit of %d bytes", what,
                             path, (long long)st.st_size, SMP_MAX_SPEC_BYTES);
    }
    char *buf = malloc(SMP_MAX_SPEC_BYTES + 1);
    if (!buf) {
        close(fd);
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", what);
    }
    /* the file may grow after fstat: never read past the limit */
    size_t n = 0;
    int rerr = 0;
    while (n <= SMP_MAX_SPEC_BYTES) {
        ssize_t got = read(fd, buf + n, SMP_MAX_SPEC_BYTES + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            rerr = errno;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (rerr || n > SMP_MAX_SPEC_BYTES) {
        free(buf);
        return rerr ? smp_error_set(err, SMP_ERR_INPUT, "%s '%.200s': read error: %s", what,
                                    path, strerror(rerr))
                    : smp_error_set(err, SMP_ERR_INPUT,
                                    "%s '%.200s': larger than the limit of %d bytes", what, path,
                                    SMP_MAX_SPEC_BYTES);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return SMP_OK;
}

/* Names index a directory: letters, digits, '_', '-', '.', not leading '.'. */
static bool valid_name(const char *name)
{
    if (!*name || *name == '.' || strlen(name) > 60)
        return false;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.'))
            return false;
    return true;
}

/* The families smp_stencil_family generates, as the messages list them. */
#define FAMILY_NAMES "nearest, component, hops, hops-last, diagonal, crank-nicolson"

static bool is_family(const char *name)
{
    static const char *const families[] = {"nearest", "component", "hops", "hops-last",
                                            "diagonal", "crank-nicolson"};
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
        if (!strcmp(name, families[i]))
            return true;
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What a named file in specs_dir is: -1 unreadable, 0 a full spec, else a
 * stencil (its "ndims" when fixed, SMP_MAX_DIMS + 1 for any dimension). */
static int named_kind(const char *specs_dir, const char *name)
{
    char path[4096], *text;
    size_t len;
    smp_error ignored;
    snprintf(path, sizeof(path), "%s/%s.json", specs_dir, name);
    if (smp_read_file(path, "spec", &text, &len, &ignored))
        return -1;
    json_t *js = json_loadb(text, len, 0, NULL);
    free(text);
    int kind = -1;
    if (json_is_object(js)) {
        json_t *nd = json_object_get(js, "ndims");
        if (json_object_get(js, "grid"))
            kind = 0;
        else if (json_is_integer(nd) && json_integer_value(nd) >= 1 &&
                 json_integer_value(nd) <= SMP_MAX_DIMS)
            kind = (int)json_integer_value(nd);
        else
            kind = SMP_MAX_DIMS + 1;
    }
    json_decref(js);
    return kind;
}

/* Appends to buf the names in specs_dir, sorted, comma-separated: with
 * stencils set only stencils of ndims dimensions (0: any), else every
 * spec and stencil.  Truncates with "..." rather than overflow. */
static void list_names(const char *specs_dir, bool stencils, int ndims, char *buf, size_t n)
{
    DIR *d = opendir(specs_dir);
    char *names[256];
    int count = 0;
    struct dirent *e;
    while (d && count < 256 && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 5 || strcmp(e->d_name + l - 5, ".json"))
            continue;
        char name[64];
        if (l - 5 >= sizeof(name))
            continue;
        memcpy(name, e->d_name, l - 5);
        name[l - 5] = '\0';
        if (!valid_name(name) || is_family(name))
            continue;
        int kind = named_kind(specs_dir, name);
        if (kind < 0 || (stencils && (kind == 0 || (ndims && kind != ndims && kind <= SMP_MAX_DIMS))))
            continue;
        if (!(names[count] = strdup(name)))
            break;
        count++;
    }
    if (d)
        closedir(d);
    qsort(names, (size_t)count, sizeof(char *), cmp_str);
    size_t off = strlen(buf);
    for (int i = 0; i < count; i++) {
        if (off + strlen(names[i]) + 6 < n)
            off += (size_t)snprintf(buf + off, n - off, "%s%s", off && buf[off - 1] != ' ' ? ", " : "",
                                    names[i]);
        else if (off + 4 < n && !strstr(buf, "..."))
            off += (size_t)snprintf(buf + off, n - off, ", ...");
        free(names[i]);
    }
}

/* The message for a name that is neither a file nor in specs_dir. */
static smp_status unknown_name(const char *what, const char *name, const char *specs_dir,
                               int ndims, smp_error *err)
{
    char known[400] = "";
    bool stencil = !strcmp(what, "stencil");
    list_names(specs_dir, stencil, stencil ? ndims : 0, known, sizeof(known));
    if (stencil && ndims)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "stencil: unknown name '%.64s'; valid names for %d-D: %s%s" FAMILY_NAMES
                             ", or an object with \"offsets\"",
                             name, ndims, known, known[0] ? ", " : "");
    if (stencil)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "stencil: unknown name '%.64s'; valid names: %s%s" FAMILY_NAMES
                             ", or an object with \"offsets\"",
                             name, known, known[0] ? ", " : "");
    return smp_error_set(err, SMP_ERR_INPUT,
                         "spec: unknown name '%.64s' (not a file either); valid names: %s; "
                         "or a JSON file, or ALGORITHM:<d>d:STENCIL such as auto:2d:5pt",
                         name, known[0] ? known : "none in the specs directory");
}

/* The named stencils of other dimensions that play the same part: the
 * axis neighbours and the full box in 2-D and 3-D, and D3Q19's 2-D
 * lattice, D2Q9, which is the 9-point box. */
static const char *counterpart(const char *name, int ndims)
{
    static const struct {
        const char *name, *d2, *d3;
    } table[] = {
        {"5pt", "5pt", "7pt"},   {"7pt", "5pt", "7pt"},   {"9pt", "9pt", "27pt"},
        {"27pt", "9pt", "27pt"}, {"d3q19", "9pt", "d3q19"},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (!strcmp(table[i].name, name))
            return ndims == 2 ? table[i].d2 : ndims == 3 ? table[i].d3 : NULL;
    return NULL;
}

smp_status smp_load_named_json(const char *name, const char *specs_dir, const char *what,
                               int ndims, json_t **out, smp_error *err)
{
    if (!valid_name(name))
        return smp_error_set(err, SMP_ERR_INPUT, "%s: '%.64s' is not a valid name", what, name);
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.json", specs_dir, name);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return unknown_name(what, name, specs_dir, ndims, err);
    char *text;
    size_t len;
    smp_status s = smp_read_file(path, what, &text, &len, err);
    if (s)
        return s;
    json_error_t jerr;
    *out = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!*out || !json_is_object(*out)) {
        json_decref(*out);
        return smp_error_set(err, SMP_ERR_INPUT, "%s '%s': invalid JSON in %s", what, name, path);
    }
    return SMP_OK;
}

smp_status smp_stencil_named(smp_stencil *st, const char *name, int ndims, const char *specs_dir,
                             smp_error *err)
{
    if (is_family(name))
        return smp_stencil_family(st, name, ndims, err);
    json_t *js;
    smp_status s = smp_load_named_json(name, specs_dir, "stencil", ndims, &js, err);
    if (s)
        return s;
    if (json_object_get(js, "grid")) {
        json_decref(js);
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: '%s' is a full spec, not a stencil", name);
    }
    json_t *nd = json_object_get(js, "ndims");
    if (ndims > 0 && json_is_integer(nd) && json_integer_value(nd) != ndims) {
        int has = (int)json_integer_value(nd);
        json_decref(js);
        const char *alt = counterpart(name, ndims);
        if (alt)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "stencil: '%.64s' is %d-D but the grid has %d dimensions; "
                                 "use %s, its %d-D counterpart (or nearest, for any dimension)",
                                 name, has, ndims, alt, ndims);
        char known[300] = "";
        list_names(specs_dir, true, ndims, known, sizeof(known));
        return smp_error_set(err, SMP_ERR_INPUT,
                             "stencil: '%.64s' is %d-D but the grid has %d dimensions; "
                             "stencils for %d-D: %s%s" FAMILY_NAMES,
                             name, has, ndims, ndims, known, known[0] ? ", " : "");
    }
    json_t *fam = json_object_get(js, "family");
    if (fam && json_is_string(fam) && is_family(json_string_value(fam)))
        s = smp_stencil_family(st, json_string_value(fam), ndims, err);
    else
        s = smp_stencil_from_json(st, js, ndims, "stencil", err);
    json_decref(js);
    if (s == SMP_OK)
        snprintf(st->name, sizeof(st->name), "%s", name);
    return s;
}
