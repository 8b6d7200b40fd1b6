/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The in-job result written without a JSON library (see smr_verify.h):
 * the file beside the record, indented, and stencil-map-verify's --json
 * line, compact.  Both share the pieces below; "pretty" picks the file's
 * spacing. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/format_numbers.h"
#include "smr_atomic.h"
#include "smr_json_write.h"
#include "smr_names.h"
#include "smr_verify.h"

const char *smr_verify_status_name(smr_verify_status st)
{
    return st == SMR_VERIFY_OK ? "OK" : st == SMR_VERIFY_MISMATCH ? "MISMATCH" : "ERROR";
}

static void str_or_null(FILE *f, const char *s)
{
    if (s[0])
        smj_write_str(f, s);
    else
        fputs("null", f);
}

static void pair(FILE *f, bool pretty, int64_t j_sum, int64_t j_max)
{
    fprintf(f, pretty ? "{\"j_sum\": %lld, \"j_max\": %lld}" : "{\"j_sum\":%lld,\"j_max\":%lld}",
            (long long)j_sum, (long long)j_max);
}

static void observed(FILE *f, bool pretty, const smr_verify *v)
{
    fprintf(f,
            pretty ? "{\"j_sum\": %lld, \"j_max\": %lld, \"w_sum\": %.17g, \"w_max\": %.17g}"
                   : "{\"j_sum\":%lld,\"j_max\":%lld,\"w_sum\":%.17g,\"w_max\":%.17g}",
            (long long)v->observed_j_sum, (long long)v->observed_j_max, v->observed_w_sum,
            v->observed_w_max);
}

/* planned and observed; the file puts each on its own line */
static void figures(FILE *f, bool pretty, const smr_verify *v)
{
    const char *lead = pretty ? ",\n  " : ",";
    fprintf(f, pretty ? "%s\"planned\": " : "%s\"planned\":", lead);
    if (v->has_planned)
        pair(f, pretty, v->planned_j_sum, v->planned_j_max);
    else
        fputs("null", f);
    fprintf(f, pretty ? "%s\"observed\": " : "%s\"observed\":", lead);
    observed(f, pretty, v);
}

/* per network level, only on steps planned on levels (a result without
 * them is the same file as before levels existed) */
static void levels(FILE *f, bool pretty, const smr_verify *v)
{
    if (v->nlevels <= 0)
        return;
    fputs(pretty ? ",\n  \"levels\": [" : ",\"levels\":[", f);
    for (int l = 0; l < v->nlevels && l < SMR_VERIFY_MAX_LEVELS; l++) {
        const smr_verify_level *lv = &v->levels[l];
        fputs(l ? "," : "", f);
        fputs(pretty ? "\n    {\"planned\": " : "{\"planned\":", f);
        if (lv->planned_j_sum >= 0)
            pair(f, pretty, lv->planned_j_sum, lv->planned_j_max);
        else
            fputs("null", f);
        fputs(pretty ? ", \"observed\": " : ",\"observed\":", f);
        pair(f, pretty, lv->observed_j_sum, lv->observed_j_max);
        fputs("}", f);
    }
    fputs(pretty ? "\n  ]" : "]", f);
}

static void coords(FILE *f, bool pretty, const smr_verify *v)
{
    fprintf(f,
            pretty ? ",\n  \"coords_checked\": %lld,\n  \"coords_wrong\": %lld"
                   : ",\"coords_checked\":%lld,\"coords_wrong\":%lld",
            (long long)v->coords_checked, (long long)v->coords_wrong);
}

static void nodes(FILE *f, bool pretty, const smr_verify *v)
{
    fputs(pretty ? ",\n  \"nodes\": [" : ",\"nodes\":[", f);
    for (int i = 0; i < v->nnodes; i++) {
        if (pretty)
            fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        else
            fputs(i ? ",{\"name\":" : "{\"name\":", f);
        smj_write_str(f, v->nodes[i].name);
        fprintf(f, pretty ? ", \"ranks\": %lld, \"edges_out\": %lld}" : ",\"ranks\":%lld,\"edges_out\":%lld}",
                (long long)v->nodes[i].ranks, (long long)v->nodes[i].edges_out);
    }
    fputs(pretty ? "\n  ]" : "]", f);
}

static void id_or_null(FILE *f, int64_t id)
{
    if (id >= 0)
        fprintf(f, "%lld", (long long)id);
    else
        fputs("null", f);
}

/* the file's head: who wrote it, of which step, when, and the verdict */
static void head(FILE *f, const smr_verify *v)
{
    fputs("{\n  \"stencilmap_version\": ", f);
    smj_write_str(f, SM_VERSION);
    fprintf(f, ",\n  \"format\": %d,\n  \"job_id\": ", SM_FORMAT_VERIFY);
    id_or_null(f, v->job_id);
    fputs(",\n  \"step_id\": ", f);
    id_or_null(f, v->step_id);
    fputs(",\n  \"record\": ", f);
    smj_write_str(f, v->record);
    fputs(",\n  \"time\": ", f);
    smj_write_str(f, v->time);
    fputs(",\n  \"writer\": ", f);
    smj_write_str(f, v->writer);
    fprintf(f, ",\n  \"status\": \"%s\",\n  \"message\": ", smr_verify_status_name(v->status));
    smj_write_str(f, v->message);
    fprintf(f, ",\n  \"ranks\": %lld,\n  \"algorithm\": ", (long long)v->ranks);
    str_or_null(f, v->algorithm);
}

void smr_verify_write(FILE *f, const smr_verify *v)
{
    head(f, v);
    if (!v->has_observed) {
        fputs(",\n  \"planned\": null,\n  \"observed\": null,\n  \"rank_nodes\": null\n}\n", f);
        return;
    }
    figures(f, true, v);
    levels(f, true, v);
    coords(f, true, v);
    nodes(f, true, v);
    if (!v->has_rank_nodes) {
        fputs(",\n  \"rank_nodes\": null\n}\n", f);
        return;
    }
    /* eight names a line: a million ranks stay a readable file */
    fputs(",\n  \"rank_nodes\": [", f);
    for (int64_t r = 0; r < v->rank_nodes_count; r++) {
        fputs(r % 8 ? ", " : r ? ",\n    " : "\n    ", f);
        smj_write_str(f, v->rank_nodes[r]);
    }
    fputs("\n  ]\n}\n", f);
}

void smr_verify_print_line(FILE *f, const smr_verify *v)
{
    fputs("{\"stencilmap_version\":", f);
    smj_write_str(f, SM_VERSION);
    fprintf(f, ",\"format\":%d,\"status\":\"%s\",\"ranks\":%lld", SM_FORMAT_VERIFY,
            smr_verify_status_name(v->status), (long long)v->ranks);
    if (v->ndims > 0) {
        fputs(",\"algorithm\":", f);
        smj_write_str(f, v->algorithm);
        fputs(",\"dims\":[", f);
        for (int i = 0; i < v->ndims; i++)
            fprintf(f, "%s%lld", i ? "," : "", (long long)v->dims[i]);
        fputs("]", f);
    }
    if (v->has_observed) {
        figures(f, false, v);
        if (v->ndims > 0 && v->has_blocked) {
            fputs(",\"blocked\":", f);
            pair(f, false, v->blocked_j_sum, v->blocked_j_max);
        }
        levels(f, false, v);
        coords(f, false, v);
        nodes(f, false, v);
    }
    fputs(",\"message\":", f);
    smj_write_str(f, v->message);
    fputs("}\n", f);
}

static int emit(FILE *f, const void *arg, char *msg, size_t n)
{
    (void)msg;
    (void)n;
    smr_verify_write(f, arg);
    return 0;
}

static void only_name(int k, char *name, size_t n, const void *arg)
{
    (void)k; /* one name: an existing result is never replaced */
    snprintf(name, n, "%s", (const char *)arg);
}

/* The record's directory as it is now, never through a symlink, and ours;
 * later names are resolved against this descriptor only. */
static int open_dir(const char *record, const char *dir, const char *what, char *msg, size_t n)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(msg, n, "%.300s: cannot open the record directory: %s", dir, strerror(errno));
        return -2;
    }
    struct stat sb;
    if (fstat(dfd, &sb) || sb.st_uid != geteuid()) {
        close(dfd);
        snprintf(msg, n, "%.300s: not a directory of this user", dir);
        return -2;
    }
    if (fstatat(dfd, strrchr(record, '/') + 1, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode)) {
        close(dfd);
        snprintf(msg, n, "%s='%.300s': no such record file", what, record);
        return -1;
    }
    return dfd;
}

int smr_verify_store(const char *record, const char *what, const smr_verify *v, char *path,
                     size_t pathlen, char *msg, size_t n)
{
    char dir[4096], base[512], tmp[600], final[512];
    int rc = smr_verify_names(record, dir, sizeof(dir), base, sizeof(base));
    if (rc == -1)
        snprintf(msg, n, "%s='%.300s': not an absolute path to a .json audit record", what, record);
    else if (rc)
        snprintf(msg, n, "%s: path too long", what);
    if (rc)
        return -1;
    int dfd = open_dir(record, dir, what, msg, n);
    if (dfd < 0)
        return dfd;
    snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", base, (long)getpid());
    rc = smr_atomic_write(dfd, dir, tmp, emit, v, only_name, base, 1, final, sizeof(final), msg, n);
    close(dfd);
    if (rc)
        return -2;
    if (path && pathlen)
        snprintf(path, pathlen, "%s/%s", strcmp(dir, "/") ? dir : "", base);
    return 0;
}
