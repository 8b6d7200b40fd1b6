/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Audit records: built with jansson, written to a temporary file created
 * with O_EXCL, then linked to its final name (which must not exist) so a
 * reader never sees a partial record. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats.h"
#include "private_dir.h"
#include "record.h"

static json_t *int_list(const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *build(const sm_step *st, const sm_policy *pol, uint32_t job_id, uint32_t step_id,
                     bool launched, const char *error, const char *user)
{
    json_t *j = json_object();
    char when[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object_set_new(j, "stencilmap_version", json_string(SM_VERSION));
    json_object_set_new(j, "format", json_integer(SM_FORMAT_RECORD));
    json_object_set_new(j, "job_id", json_integer(job_id));
    json_object_set_new(j, "step_id",
                        step_id == SM_NO_STEP ? json_null() : json_integer(step_id));
    json_object_set_new(j, "user", json_string(user));
    json_object_set_new(j, "uid", json_integer(getuid()));
    json_object_set_new(j, "time", json_string(when));
    json_object_set_new(j, "spec", json_string(st->spec_text));
    json_object_set_new(j, "spec_source", json_string(sm_source_name(st->source)));
    json_t *nodes = json_array(), *slots = json_array();
    if (st->have_nodes)
        for (int i = 0; i < st->nodes.count; i++) {
            json_array_append_new(nodes, json_string(st->nodes.names[i]));
            json_array_append_new(slots, json_integer(st->nodes.slots[i]));
        }
    json_object_set_new(j, "nodes", nodes);
    json_object_set_new(j, "slots", slots);
    json_object_set_new(j, "launched", json_boolean(launched));
    json_object_set_new(j, "error", error && *error ? json_string(error) : json_null());
    json_object_set_new(j, "plugin_ms", json_real(st->srun_seconds * 1e3));
    json_object_set_new(j, "plugin_cpu_ms", json_real(st->srun_cpu_seconds * 1e3));
    json_object_set_new(j, "alloc_check_ms", json_real(st->check_seconds * 1e3));
    json_object_set_new(j, "ranks", st->placed ? json_integer(st->pl.ranks) : json_null());
    if (st->placed) {
        const smp_grid *g = &st->spec.grid;
        json_t *per = json_array();
        for (int i = 0; i < g->ndims; i++)
            json_array_append_new(per, json_boolean(g->periods[i]));
        json_object_set_new(j, "grid", json_pack("{s:o,s:o,s:s}", "dims", int_list(g->dims, g->ndims),
                                                 "periods", per, "order", smp_order_name(g->order)));
        const smp_stencil *sc = &st->spec.stencil;
        json_t *offs = json_array();
        for (int k = 0; k < sc->count; k++) {
            json_t *o = json_array();
            for (int d = 0; d < sc->ndims; d++)
                json_array_append_new(o, json_integer(sc->offsets[k * sc->ndims + d]));
            json_array_append_new(offs, o);
        }
        json_t *stj = json_pack("{s:s,s:o}", "name", sc->name[0] ? sc->name : "custom", "offsets",
                                offs);
        if (smp_stencil_weighted(sc)) {
            json_t *w = json_array();
            for (int k = 0; k < sc->count; k++)
                json_array_append_new(w, json_real(sc->weights[k]));
            json_object_set_new(stj, "weights", w);
        }
        json_object_set_new(j, "stencil", stj);
        json_object_set_new(j, "algorithm_requested",
                            json_string(smp_algorithm_name(st->requested)));
        json_object_set_new(j, "algorithm_override",
                            pol->have_algorithm ? json_string(smp_algorithm_name(pol->algorithm))
                                                : json_null());
        json_object_set_new(j, "algorithm_used",
                            json_string(smp_algorithm_name(st->pl.algorithm)));
        json_object_set_new(j, "objective", json_string(smp_objective_name(st->objective)));
        json_object_set_new(j, "fallback", json_null());
        json_object_set_new(j, "j_sum", json_integer(st->pl.score.j_sum));
        json_object_set_new(j, "j_max", json_integer(st->pl.score.j_max));
        json_object_set_new(j, "blocked_j_sum", json_integer(st->blocked.score.j_sum));
        json_object_set_new(j, "blocked_j_max", json_integer(st->blocked.score.j_max));
        json_object_set_new(j, "hostfile", json_string(st->hostfile));
        json_t *place = json_array();
        for (int64_t r = 0; r < st->pl.ranks; r++)
            json_array_append_new(place, json_string(st->nodes.names[st->pl.node_of_rank[r]]));
        json_object_set_new(j, "placement", place);
        if (st->bind) { /* optional fields: only steps bound to sockets have them */
            json_t *socks = json_array();
            for (int i = 0; i < st->nodes.count; i++)
                json_array_append_new(socks, json_integer(st->sockets[i]));
            json_object_set_new(j, "bind", json_string("socket"));
            json_object_set_new(j, "sockets", socks);
            json_object_set_new(j, "j_socket_sum", json_integer(st->sock.j_sum));
            json_object_set_new(j, "j_socket_max", json_integer(st->sock.j_max));
            json_object_set_new(j, "naive_j_socket_sum", json_integer(st->sock_naive.j_sum));
            json_object_set_new(j, "naive_j_socket_max", json_integer(st->sock_naive.j_max));
            json_object_set_new(j, "sockets_note", st->sockets_note[0]
                                                       ? json_string(st->sockets_note)
                                                       : json_null());
        }
    } else {
        json_object_set_new(j, "grid", json_null());
        json_object_set_new(j, "stencil", json_null());
        json_object_set_new(j, "algorithm_requested", json_null());
        json_object_set_new(j, "algorithm_override",
                            pol->have_algorithm ? json_string(smp_algorithm_name(pol->algorithm))
                                                : json_null());
        json_object_set_new(j, "algorithm_used",
                            st->fallback ? json_string("blocked") : json_null());
        json_object_set_new(j, "fallback",
                            st->fallback ? json_pack("{s:s,s:s}", "to", "blocked", "reason",
                                                     st->error)
                                         : json_null());
        json_object_set_new(j, "j_sum", json_null());
        json_object_set_new(j, "j_max", json_null());
        json_object_set_new(j, "blocked_j_sum", json_null());
        json_object_set_new(j, "blocked_j_max", json_null());
        json_object_set_new(j, "hostfile", json_null());
        json_object_set_new(j, "placement", json_null());
    }
    return j;
}

int sm_record_write(sm_step *st, const sm_policy *pol, uint32_t job_id, uint32_t step_id,
                    bool launched, const char *error, char *msg, size_t n)
{
    if (!pol->record_dir[0])
        return 0;
    char user[256];
    struct passwd pw, *res = NULL;
    char pwbuf[4096];
    if (getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res)
        snprintf(user, sizeof(user), "%s", pw.pw_name);
    else
        snprintf(user, sizeof(user), "uid%u", (unsigned)getuid());
    int rfd = sm_dir_open(pol->record_dir, SM_DIR_SHARED, msg, n);
    if (rfd < 0)
        return -1;
    char udir[1100 + 256];
    snprintf(udir, sizeof(udir), "%s/%s", pol->record_dir, user);
    int ufd = sm_subdir_open_private(rfd, udir, user, msg, n);
    close(rfd);
    if (ufd < 0)
        return -1;
    json_t *j = build(st, pol, job_id, step_id, launched, error, user);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    if (!text) {
        close(ufd);
        snprintf(msg, n, "out of memory");
        return -1;
    }
    /* written under a temporary name, then linked to its final name: a
     * reader sees the whole record or none, and link() never replaces */
    char tmpname[64];
    snprintf(tmpname, sizeof(tmpname), ".%u.%u.%ld.tmp", job_id, step_id, (long)getpid());
    FILE *f = sm_file_create_at(ufd, udir, tmpname, msg, n);
    if (!f) {
        free(text);
        close(ufd);
        return -1;
    }
    int bad = fputs(text, f) == EOF || fputc('\n', f) == EOF || fflush(f) == EOF ||
              fsync(fileno(f)) != 0;
    int saved = errno;
    bad |= fclose(f) != 0;
    free(text);
    if (bad) {
        snprintf(msg, n, "%s/%s: write failed: %s", udir, tmpname, strerror(saved));
        unlinkat(ufd, tmpname, 0);
        close(ufd);
        return -1;
    }
    char name[64], final[1500];
    int rc = -1;
    for (int k = 0; k < 100 && rc; k++) {
        char base[40];
        if (step_id == SM_NO_STEP)
            snprintf(base, sizeof(base), "%u.nostep-%ld", job_id, (long)getpid());
        else
            snprintf(base, sizeof(base), "%u.%u", job_id, step_id);
        if (k == 0)
            snprintf(name, sizeof(name), "%s.json", base);
        else
            snprintf(name, sizeof(name), "%s.%d.json", base, k);
        rc = linkat(ufd, tmpname, ufd, name, 0);
        if (rc && errno != EEXIST)
            break;
    }
    saved = errno;
    unlinkat(ufd, tmpname, 0);
    close(ufd);
    snprintf(final, sizeof(final), "%s/%s", udir, name);
    if (rc) {
        snprintf(msg, n, "%s: cannot create: %s", final, strerror(saved));
        return -1;
    }
    snprintf(st->record, sizeof(st->record), "%s", final);
    return 0;
}
