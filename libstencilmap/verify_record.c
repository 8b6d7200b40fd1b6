/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The in-job verification result, kept next to the step's audit record so
 * that `stencil-map audit` can say what the job itself observed.
 *
 * The record directory <record_dir>/<user>/ belongs to the user (the
 * plugin made it 0700), so the user's own task can write there; nothing
 * here runs with more rights than the task.  The file is written under a
 * temporary name created with O_EXCL|O_NOFOLLOW and then linked to its
 * final name, so a reader never sees a partial file, a symlink planted at
 * either name is never followed, and an existing result is never replaced. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stencilmap.h"
#include "stencilmap_internal.h"
#include "formats.h"
#include "json_write.h"

#define RECORD_ENV "STENCIL_MAP_RECORD"
#define SUFFIX ".verify.json"

/* A decimal id from the environment as JSON (null when unset or odd). */
static void json_env_id(FILE *f, const char *name)
{
    const char *v = getenv(name);
    size_t n = v ? strspn(v, "0123456789") : 0;
    if (v && n > 0 && n <= 10 && v[n] == '\0')
        fputs(v, f);
    else
        fputs("null", f);
}

static const char *status_word(stencilmap_status st)
{
    return st == STENCILMAP_OK ? "OK" : st == STENCILMAP_ERR_MISMATCH ? "MISMATCH" : "ERROR";
}

/* The result as one JSON object; rank_nodes lists every rank's node as the
 * ranks themselves published it (stencilmap.node). */
static stencilmap_status write_json(FILE *f, stencilmap_ctx *ctx, stencilmap_status status,
                                    const char *message, const stencilmap_verify_result *res,
                                    const char *record, char *msg, size_t len)
{
    char when[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    const stencilmap_place *pl = stencilmap_get_place(ctx);
    int64_t size = stencilmap_size(ctx);
    fprintf(f, "{\n  \"stencilmap_version\": ");
    smj_write_str(f, SM_VERSION);
    fprintf(f, ",\n  \"format\": %d,\n  \"job_id\": ", SM_FORMAT_VERIFY);
    json_env_id(f, "SLURM_JOB_ID");
    fputs(",\n  \"step_id\": ", f);
    json_env_id(f, "SLURM_STEP_ID");
    fputs(",\n  \"record\": ", f);
    smj_write_str(f, record);
    fprintf(f, ",\n  \"time\": \"%s\",\n  \"writer\": \"libstencilmap\",\n  \"status\": \"%s\"",
            when, status_word(status));
    fputs(",\n  \"message\": ", f);
    smj_write_str(f, message);
    fprintf(f, ",\n  \"ranks\": %lld,\n  \"algorithm\": ", (long long)size);
    if (pl && pl->algorithm[0])
        smj_write_str(f, pl->algorithm);
    else
        fputs("null", f);
    int measured = status == STENCILMAP_OK || status == STENCILMAP_ERR_MISMATCH;
    if (!measured) {
        fputs(",\n  \"planned\": null,\n  \"observed\": null,\n  \"rank_nodes\": null\n}\n", f);
        return STENCILMAP_OK;
    }
    if (res->has_planned)
        fprintf(f, ",\n  \"planned\": {\"j_sum\": %lld, \"j_max\": %lld}",
                (long long)res->planned_jsum, (long long)res->planned_jmax);
    else
        fputs(",\n  \"planned\": null", f);
    fprintf(f,
            ",\n  \"observed\": {\"j_sum\": %lld, \"j_max\": %lld, \"w_sum\": %.17g, "
            "\"w_max\": %.17g}",
            (long long)res->observed_jsum, (long long)res->observed_jmax, res->observed_wsum,
            res->observed_wmax);
    fprintf(f, ",\n  \"coords_checked\": %lld,\n  \"coords_wrong\": %lld",
            (long long)res->coords_checked, (long long)res->coords_wrong);
    fputs(",\n  \"nodes\": [", f);
    for (int i = 0; i < res->nnodes; i++) {
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        smj_write_str(f, res->node_names[i]);
        fprintf(f, ", \"ranks\": %lld, \"edges_out\": %lld}", (long long)res->node_ranks[i],
                (long long)res->node_edges[i]);
    }
    fputs("\n  ],\n  \"rank_nodes\": [", f);
    char node[256];
    for (int64_t r = 0; r < size; r++) {
        stencilmap_status st = stencilmap_get_node(ctx, r, node, sizeof(node));
        if (st)
            return sm_msg(msg, len, st, "rank %lld's node: %s", (long long)r,
                          stencilmap_errmsg(ctx));
        fputs(r % 8 ? ", " : r ? ",\n    " : "\n    ", f);
        smj_write_str(f, node);
    }
    fputs("\n  ]\n}\n", f);
    return STENCILMAP_OK;
}

/* Splits the record path into its directory and the sidecar's base name. */
static stencilmap_status sidecar_names(const char *record, char *dir, size_t dlen, char *base,
                                       size_t blen, char *msg, size_t len)
{
    size_t n = strlen(record);
    const char *slash = strrchr(record, '/');
    if (record[0] != '/' || !slash || n < 6 || strcmp(record + n - 5, ".json") ||
        strstr(record, SUFFIX) == record + n - strlen(SUFFIX))
        return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                      RECORD_ENV "='%.300s': not an absolute path to a .json audit record", record);
    size_t dn = (size_t)(slash - record), bn = n - 5 - dn - 1;
    if (dn == 0)
        dn = 1; /* the record lies in "/" */
    if (dn >= dlen || bn + strlen(SUFFIX) >= blen)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, RECORD_ENV ": path too long");
    memcpy(dir, record, dn);
    dir[dn] = '\0';
    snprintf(base, blen, "%.*s%s", (int)bn, slash + 1, SUFFIX);
    return STENCILMAP_OK;
}

stencilmap_status stencilmap_verify_record(stencilmap_ctx *ctx, stencilmap_status status,
                                           const stencilmap_verify_result *res, char *path,
                                           size_t pathlen, char *msg, size_t len)
{
    if (path && pathlen)
        path[0] = '\0';
    if (!ctx || !res)
        return sm_msg(msg, len, STENCILMAP_ERR_ARG, "stencilmap_verify_record: NULL argument");
    const char *record = getenv(RECORD_ENV);
    if (!record || !*record)
        return sm_msg(msg, len, STENCILMAP_ERR_NOENV,
                      RECORD_ENV " is not set (the step has no audit record)");
    char dir[4096], base[512];
    stencilmap_status st = sidecar_names(record, dir, sizeof(dir), base, sizeof(base), msg, len);
    if (st)
        return st;
    /* the directory as it is now, never through a symlink; later names are
     * resolved against this descriptor only */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return sm_msg(msg, len, STENCILMAP_ERR_IO, "%.300s: cannot open the record directory: %s",
                      dir, strerror(errno));
    struct stat sb;
    const char *rbase = strrchr(record, '/') + 1;
    if (fstat(dfd, &sb) || sb.st_uid != geteuid()) {
        close(dfd);
        return sm_msg(msg, len, STENCILMAP_ERR_IO, "%.300s: not a directory of this user", dir);
    }
    if (fstatat(dfd, rbase, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode)) {
        close(dfd);
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, RECORD_ENV "='%.300s': no such record file",
                      record);
    }
    char tmp[600];
    snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", base, (long)getpid());
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        st = sm_msg(msg, len, STENCILMAP_ERR_IO, "%.300s/%s: cannot create: %s", dir, tmp,
                    strerror(errno));
        close(dfd);
        return st;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlinkat(dfd, tmp, 0);
        close(dfd);
        return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
    }
    const char *message = status == STENCILMAP_OK ? "" : stencilmap_errmsg(ctx);
    char saved[STENCILMAP_MSG_LEN];
    snprintf(saved, sizeof(saved), "%s", message);
    st = write_json(f, ctx, status, saved, res, record, msg, len);
    int bad = fflush(f) == EOF || fsync(fd) != 0;
    bad |= fclose(f) != 0;
    if (!st && bad)
        st = sm_msg(msg, len, STENCILMAP_ERR_IO, "%.300s/%s: write failed", dir, tmp);
    if (!st && linkat(dfd, tmp, dfd, base, 0) != 0)
        st = sm_msg(msg, len, STENCILMAP_ERR_IO, "%.300s/%s: %s", dir, base,
                    errno == EEXIST ? "exists already, not replaced" : strerror(errno));
    unlinkat(dfd, tmp, 0);
    close(dfd);
    if (!st && path && pathlen)
        snprintf(path, pathlen, "%s/%s", strcmp(dir, "/") ? dir : "", base);
    return st;
}
