/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the records are: the record directory (option, environment, or the
 * plugin's own plugstack.conf line) and the records in it. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "audit.h"

int audit_name_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la]))
                la++;
            while (isdigit((unsigned char)b[lb]))
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Scans a plugstack.conf (following include lines) for the stencil_map.so
 * line's KEY=.  Returns 1 found, 0 not found. */
static int scan_plugstack(const char *key, const char *path, int depth, char *out, size_t n,
                          char *where, size_t wn)
{
    size_t klen = strlen(key);
    if (depth > 4)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!strncmp(s, "include", 7) && isspace((unsigned char)s[7])) {
            /* Slurm expands include patterns like a shell glob */
            glob_t gl;
            if (glob(trim(s + 8), 0, NULL, &gl) == 0) {
                for (size_t i = 0; i < gl.gl_pathc && !found; i++)
                    found = scan_plugstack(key, gl.gl_pathv[i], depth + 1, out, n, where, wn);
                globfree(&gl);
            }
            continue;
        }
        if (!strstr(s, "stencil_map.so"))
            continue;
        char *save = NULL;
        for (char *tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
            if (!strncmp(tok, key, klen) && tok[klen] == '=' && tok[klen + 1]) {
                snprintf(out, n, "%s", tok + klen + 1);
                snprintf(where, wn, "%s= in %s", key, path);
                found = 1;
            }
    }
    fclose(f);
    return found;
}

int audit_record_dir(const char *opt, char *out, size_t n, char *source, size_t sn, char *msg, size_t mn)
{
    if (opt && *opt) {
        snprintf(out, n, "%s", opt);
        snprintf(source, sn, "--record-dir");
        return 0;
    }
    const char *env = getenv("STENCILMAP_RECORD_DIR");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        snprintf(source, sn, "$STENCILMAP_RECORD_DIR");
        return 0;
    }
    char plug[4096];
    if (audit_plugstack_arg("record_dir", out, n, source, sn, plug, sizeof(plug)))
        return 0;
    snprintf(msg, mn,
             "no record directory: give --record-dir DIR, set STENCILMAP_RECORD_DIR, or configure "
             "record_dir= on the stencil_map.so line of %s",
             plug);
    return -1;
}

int audit_plugstack_arg(const char *key, char *out, size_t n, char *where, size_t wn, char *plug,
                        size_t pn)
{
    const char *conf = getenv("SLURM_CONF");
    if (!conf || !*conf)
        conf = "/etc/slurm/slurm.conf";
    plug[0] = '\0';
    FILE *f = fopen(conf, "r");
    if (f) {
        char line[4096];
        while (fgets(line, sizeof(line), f)) {
            char *s = trim(line);
            if (!strncasecmp(s, "PlugStackConfig", 15)) {
                char *eq = strchr(s, '=');
                if (eq)
                    snprintf(plug, pn, "%s", trim(eq + 1));
            }
        }
        fclose(f);
    }
    if (!plug[0]) {
        const char *slash = strrchr(conf, '/');
        snprintf(plug, pn, "%.*s/plugstack.conf", slash ? (int)(slash - conf) : 1,
                 slash ? conf : ".");
    }
    return scan_plugstack(key, plug, 0, out, n, where, wn);
}

int audit_parse_since(const char *arg, char *out, size_t n)
{
    int y, mo, d, h = 0, mi = 0, s = 0, used = 0;
    if (sscanf(arg, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3)
        return -1;
    const char *rest = arg + used;
    if (*rest == 'T' || *rest == ' ') {
        int u2 = 0;
        if (sscanf(rest + 1, "%2d:%2d%n", &h, &mi, &u2) != 2)
            return -1;
        rest += 1 + u2;
        if (*rest == ':') {
            if (sscanf(rest + 1, "%2d%n", &s, &u2) != 1)
                return -1;
            rest += 1 + u2;
        }
    }
    if (*rest == 'Z')
        rest++;
    if (*rest || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 || h < 0 || mi < 0 || s < 0)
        return -1;
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, d, h, mi, s);
    return 0;
}

/* The ids of a record's file name (record/smr_names.h); a record without
 * a step id sorts after the job's steps. */
static int name_ids(const char *name, int64_t *job, int64_t *step)
{
    if (!smr_record_name_parse(name, job, step))
        return -1;
    if (*step == SMR_NO_STEP)
        *step = AUDIT_NO_STEP;
    return 0;
}

static int record_time_ok(const char *path, const char *since)
{
    if (!since)
        return 1;
    char t[64];
    /* unreadable records are kept: the audit reports them */
    return smr_record_read_time(path, t, sizeof(t)) || strcmp(t, since) >= 0;
}

struct found {
    char *path;
    int64_t job, step;
};

static int by_ids(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    if (x->job != y->job)
        return x->job < y->job ? -1 : 1;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int add_user_dir(const char *udir, int64_t job, int64_t step, const char *since,
                        struct found **v, int *count, int *cap)
{
    DIR *d = opendir(udir);
    if (!d)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        int64_t j, s;
        if (name_ids(e->d_name, &j, &s))
            continue;
        /* JOBID alone finds the job's records without a step id too */
        if ((job >= 0 && j != job) || (step >= 0 && s != step))
            continue;
        size_t len = strlen(udir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path) {
            rc = -1;
            break;
        }
        snprintf(path, len, "%s/%s", udir, e->d_name);
        if (!record_time_ok(path, since)) {
            free(path);
            continue;
        }
        if (*count == *cap) {
            int nc = *cap ? *cap * 2 : 64;
            struct found *nv = realloc(*v, sizeof(**v) * (size_t)nc);
            if (!nv) {
                free(path);
                rc = -1;
                break;
            }
            *v = nv;
            *cap = nc;
        }
        (*v)[*count].path = path;
        (*v)[*count].job = j;
        (*v)[*count].step = s;
        (*count)++;
    }
    closedir(d);
    return rc;
}

int audit_find_records(const char *dir, const char *user, int64_t job, int64_t step,
                       const char *since, audit_found *found, char *msg, size_t mn)
{
    struct found *v = NULL;
    int count = 0, cap = 0;
    memset(found, 0, sizeof(*found));
    struct stat sb;
    if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
        snprintf(msg, mn, "record directory %.3000s: %s", dir,
                 errno ? strerror(errno) : "not a directory");
        return -1;
    }
    char udir[4400];
    int rc = 0;
    if (user) {
        snprintf(udir, sizeof(udir), "%.3000s/%.1000s", dir, user);
        if (add_user_dir(udir, job, step, since, &v, &count, &cap)) {
            snprintf(msg, mn, "%.3000s: %s", udir, strerror(errno));
            rc = -1;
        }
    } else {
        DIR *d = opendir(dir);
        if (!d) {
            snprintf(msg, mn, "record directory %.3000s: %s", dir, strerror(errno));
            return -1;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(udir, sizeof(udir), "%.3000s/%.1000s", dir, e->d_name);
            if (add_user_dir(udir, job, step, since, &v, &count, &cap)) {
                if (errno == ENOMEM) {
                    snprintf(msg, mn, "out of memory");
                    rc = -1;
                    break;
                }
                /* another user's 0700 directory: say so, go on */
                if (!found->skipped_dirs++)
                    snprintf(found->skipped_example, sizeof(found->skipped_example), "%.200s: %s",
                             e->d_name, strerror(errno));
            }
        }
        closedir(d);
    }
    if (!rc && count)
        qsort(v, (size_t)count, sizeof(*v), by_ids);
    if (!rc && !(found->paths = calloc((size_t)count + 1, sizeof(char *)))) {
        snprintf(msg, mn, "out of memory");
        rc = -1;
    }
    for (int i = 0; i < count; i++) {
        if (rc)
            free(v[i].path);
        else
            found->paths[i] = v[i].path;
    }
    free(v);
    if (!rc)
        found->count = count;
    return rc;
}

void audit_found_free(audit_found *found)
{
    for (int i = 0; found->paths && i < found->count; i++)
        free(found->paths[i]);
    free(found->paths);
    memset(found, 0, sizeof(*found));
}
