/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A run's profile judged (see learned_judge.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn.h"
#include "learn_spec.h"
#include "learned_judge.h"

static void iso_date(time_t t, char *out, size_t n)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* How the tasks ended, from the exit.<task>.<pid> files of their processes
 * (a task's prolog and a wrapper shell write their own). */
typedef struct {
    int64_t tasks;  /* of 0 .. ranks-1, with a file */
    int64_t failed; /* processes with a non-zero status (or an unreadable file) */
    int64_t mpi;    /* processes that called MPI_Init */
} exits;

static void count_exits(const char *dir, int64_t ranks, exits *x)
{
    memset(x, 0, sizeof(*x));
    DIR *d = opendir(dir);
    bool *seen = ranks > 0 ? calloc((size_t)ranks, sizeof(bool)) : NULL;
    if (!d || !seen) {
        if (d)
            closedir(d);
        free(seen);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        long long task;
        int used = 0;
        if (strncmp(de->d_name, "exit.", 5))
            continue;
        if (sscanf(de->d_name, "exit.%lld.%*d%n", &task, &used) == 1 && !de->d_name[used] &&
            task >= 0 && task < ranks && !seen[task]) {
            seen[task] = true;
            x->tasks++;
        }
        char path[PATH_MAX + 300], text[128] = "";
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        ssize_t r = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
        if (fd >= 0)
            close(fd);
        text[r > 0 ? r : 0] = '\0';
        int status, mpi;
        if (sscanf(text, "stencilmap-profile 1\nexit %d %d", &status, &mpi) != 2 || status != 0)
            x->failed++;
        else
            x->mpi += mpi != 0;
    }
    closedir(d);
    free(seen);
}

static learned_judgement verdict(learned_entry *e, time_t now, const char *reason, char *why,
                                 size_t n)
{
    e->kind = LEARNED_NOT_STENCIL;
    snprintf(e->reason, sizeof(e->reason), "%s", reason);
    e->expires_at = now + (time_t)LEARNED_VERDICT_DAYS * 86400;
    iso_date(e->expires_at, e->expires, sizeof(e->expires));
    snprintf(why, n, "not a stencil code: %s", reason);
    return LEARNED_JUDGED_NOT_STENCIL;
}

__attribute__((format(printf, 3, 4))) static learned_judgement failed(char *why, size_t n,
                                                                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return LEARNED_JUDGED_FAILED;
}

/* No rank wrote a profile: a program that is no MPI program, or a failure. */
static learned_judgement without_ranks(const exits *x, int64_t ranks, time_t now,
                                       learned_entry *e, char *why, size_t n)
{
    int64_t tasks = x->tasks, bad = x->failed;
    if (tasks == ranks && bad == 0 && x->mpi == 0)
        return verdict(e, now, "not an MPI program: no task called MPI_Init", why, n);
    if (tasks == 0)
        return failed(why, n,
                      "no task of %" PRId64 " wrote a profile (killed, or the store is on a file "
                      "system the nodes do not share?)",
                      ranks);
    if (x->mpi)
        return failed(why, n, "no rank wrote a profile, though %" PRId64 " called MPI_Init", x->mpi);
    return failed(why, n,
                  "no task called MPI_Init, %" PRId64 " of %" PRId64 " said nothing and %" PRId64
                  " process%s ended with an error",
                  ranks > tasks ? ranks - tasks : 0, ranks, bad, bad == 1 ? "" : "es");
}

/* Traffic that no placement shortens, though it may fit a grid: too little
 * of it on any stencil, every rank sending to nearly every other, or a
 * chain or ring of one dimension, which Slurm's blocked layout already
 * cuts least (each node a run of consecutive ranks).  Says why. */
static bool no_placement(const learn_profile *p, const learn_result *r, double share, char *why,
                         size_t n)
{
    if (share < LEARNED_MIN_SHARE) {
        snprintf(why, n,
                 "the best grid and stencil explain only %.1f %% of the bytes (at least %.0f %% "
                 "needed)",
                 100 * share, 100 * LEARNED_MIN_SHARE);
        return true;
    }
    double peers = p->ranks ? (double)p->nedges / (double)p->ranks : 0;
    if (p->ranks > 2 && peers >= LEARNED_DENSE_SHARE * (double)(p->ranks - 1)) {
        snprintf(why, n,
                 "a dense exchange: each rank sends to %.1f of the %" PRId64
                 " others on average, which no placement shortens",
                 peers, p->ranks - 1);
        return true;
    }
    if (r->grid.ndims == 1) {
        snprintf(why, n,
                 "a chain or ring of %" PRId64 " ranks (one dimension, %d offset%s%s): Slurm's "
                 "blocked layout already cuts it least",
                 r->grid.dims[0], r->nincluded, r->nincluded == 1 ? "" : "s",
                 r->grid.periods[0] ? ", periodic" : "");
        return true;
    }
    return false;
}

/* the spec of r as a JSON object, checked by the spec parser */
static json_t *spec_object(const learn_result *r, const learned_entry *e, double share)
{
    char who[128], *text = NULL;
    size_t len = 0;
    if (e->job >= 0)
        snprintf(who, sizeof(who), "stencil_map.so from job %" PRId64 ".%" PRId64, e->job,
                 e->step < 0 ? (int64_t)0 : e->step);
    else
        snprintf(who, sizeof(who), "stencil_map.so");
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = learn_spec_write(f, r, who, share);
    if (fclose(f) || rc) {
        free(text);
        return NULL;
    }
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    smp_spec check;
    smp_error err;
    if (j && smp_spec_parse(&check, text, len, smp_specs_dir(), &err)) {
        json_decref(j);
        j = NULL;
    } else if (j) {
        smp_spec_free(&check);
    }
    free(text);
    return j;
}

learned_judgement learned_judge(const char *dir, int64_t ranks, time_t now, learned_entry *e,
                                char *why, size_t n)
{
    e->ranks = ranks;
    iso_date(now, e->date, sizeof(e->date));
    char rank0[PATH_MAX + 16];
    snprintf(rank0, sizeof(rank0), "%s/rank.0", dir);
    exits x;
    count_exits(dir, ranks, &x);
    if (access(rank0, F_OK) && errno == ENOENT)
        return without_ranks(&x, ranks, now, e, why, n);
    learn_profile p;
    smp_error err;
    smp_error_clear(&err);
    if (learn_profile_read(dir, &p, &err))
        return failed(why, n, "%s", err.msg);
    learned_judgement j = LEARNED_JUDGED_FAILED;
    learn_result r = {0};
    e->bytes = p.total_bytes;
    if (p.ranks != ranks)
        failed(why, n, "the profile has %" PRId64 " ranks but the step %" PRId64 " tasks", p.ranks,
               ranks);
    else if (p.partial > p.partial_exit)
        failed(why, n,
               "%" PRId64 " of %" PRId64 " ranks were stopped by a signal (a time limit, "
               "scancel?) before MPI_Finalize",
               p.partial - p.partial_exit, p.ranks);
    else if (p.partial)
        failed(why, n, "%" PRId64 " of %" PRId64 " ranks exited without MPI_Finalize", p.partial,
               p.ranks);
    else if (x.failed)
        failed(why, n, "%" PRId64 " process%s of the %" PRId64 " tasks exited with an error (the step failed)",
               x.failed, x.failed == 1 ? "" : "es", p.ranks);
    else if (p.nedges == 0)
        j = verdict(e, now, "no point-to-point or neighbourhood traffic between ranks", why, n);
    else if (learn_infer(&p, 3, &r, &err))
        failed(why, n, "%s", err.msg);
    else {
        e->share = p.total_bytes > 0 ? r.explained / p.total_bytes : 1.0;
        char reason[300];
        if (no_placement(&p, &r, e->share, reason, sizeof(reason))) {
            j = verdict(e, now, reason, why, n);
        } else if (!(e->spec = spec_object(&r, e, e->share))) {
            failed(why, n, "the learned spec could not be written (out of memory?)");
        } else {
            e->kind = LEARNED_SPEC;
            snprintf(e->grid_source, sizeof(e->grid_source), "%s", learn_grid_source(&p, &r));
            snprintf(why, n, "%.1f %% of the bytes by %d offsets", 100 * e->share, r.nincluded);
            j = LEARNED_JUDGED_SPEC;
        }
    }
    learn_result_free(&r);
    learn_profile_free(&p);
    return j;
}
