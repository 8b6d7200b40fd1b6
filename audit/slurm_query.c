/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What Slurm knows of a step, from the best source that answers:
 *   1. sacct (slurmdbd): the step's node list and task count, kept after
 *      the job ends;
 *   2. scontrol show step: the same, but only while the step runs;
 *   3. scontrol show job: only the job's allocation, kept by slurmctld for
 *      MinJobAge seconds after the job ends.
 * None of them says which rank ran where; that comes from the in-job
 * verification (or --launched).  The commands run without a shell, with
 * numeric arguments only, and are killed after QUERY_SECONDS (sacct waits
 * long for an unreachable slurmdbd). */
#define _GNU_SOURCE /* pipe2 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"

#define QUERY_SECONDS 15
#define STR(x) #x
#define XSTR(x) STR(x)
#define MAX_OUTPUT (4 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Starts argv with standard input from /dev/null and its output and
 * errors into pipes; the child's pid, or -1. */
static pid_t spawn(char *const argv[], int *out_fd, int *err_fd)
{
    int out[2], er[2];
    if (pipe2(out, O_CLOEXEC))
        return -1;
    if (pipe2(er, O_CLOEXEC)) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        dup2(out[1], 1);
        dup2(er[1], 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(out[1]);
    close(er[1]);
    if (pid < 0) {
        close(out[0]);
        close(er[0]);
        return -1;
    }
    *out_fd = out[0];
    *err_fd = er[0];
    return pid;
}

/* What a command has said so far: its output (growing up to MAX_OUTPUT)
 * and the start of its errors. */
struct said {
    char *buf;
    size_t cap, len;
    char *err;
    size_t errlen, elen;
};

/* Adds got bytes read from stream i (0 output, 1 errors); false when out
 * of room for the output. */
static bool take(struct said *s, int i, const char *tmp, size_t got)
{
    if (i == 1) {
        size_t room = s->errlen - 1 - s->elen, n = got < room ? got : room;
        memcpy(s->err + s->elen, tmp, n);
        s->elen += n;
        s->err[s->elen] = '\0';
        return true;
    }
    if (s->len + got + 1 > s->cap) {
        size_t nc = s->cap;
        while (s->len + got + 1 > nc)
            nc *= 2;
        char *nb = nc <= MAX_OUTPUT ? realloc(s->buf, nc) : NULL;
        if (!nb)
            return false;
        s->buf = nb;
        s->cap = nc;
    }
    memcpy(s->buf + s->len, tmp, got);
    s->len += got;
    return true;
}

/* Reads both pipes until they close or QUERY_SECONDS pass; false on a
 * timeout.  s->buf is freed and NULL when the output outgrew its room. */
static bool collect(int fds[2], struct said *s)
{
    struct pollfd p[2] = {{.fd = fds[0], .events = POLLIN}, {.fd = fds[1], .events = POLLIN}};
    double deadline = now() + QUERY_SECONDS;
    bool timed_out = false;
    while (s->buf && (p[0].fd >= 0 || p[1].fd >= 0)) {
        int left = (int)((deadline - now()) * 1000);
        if (left <= 0 || poll(p, 2, left) == 0) {
            timed_out = true;
            break;
        }
        for (int i = 0; i < 2 && s->buf; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char tmp[4096];
            ssize_t got = read(p[i].fd, tmp, sizeof(tmp));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
            } else if (!take(s, i, tmp, (size_t)got)) {
                free(s->buf);
                s->buf = NULL;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    return !timed_out;
}

/* Runs argv, returns its standard output (standard error goes into err,
 * first line only) or NULL when it could not run; *status is the exit
 * status, 127 when not found, 124 on timeout. */
static char *run(char *const argv[], int *status, char *err, size_t errlen)
{
    err[0] = '\0';
    *status = 127;
    int fds[2];
    pid_t pid = spawn(argv, &fds[0], &fds[1]);
    if (pid < 0)
        return NULL;
    struct said s = {malloc(4096), 4096, 0, err, errlen, 0};
    bool done = collect(fds, &s);
    if (!done)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *status = !done ? 124 : WIFEXITED(st) ? WEXITSTATUS(st) : 255;
    char *nl = strchr(err, '\n');
    if (nl)
        *nl = '\0';
    if (s.buf)
        s.buf[s.len] = '\0';
    return s.buf;
}

/* Value of KEY= as a whole whitespace-separated token (so "NodeList" does
 * not match "ReqNodeList"). */
static int token(const char *text, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    for (const char *p = text; (p = strstr(p, key)); p += kl) {
        if (p != text && !isspace((unsigned char)p[-1]))
            continue;
        if (p[kl] != '=')
            continue;
        const char *v = p + kl + 1;
        size_t l = strcspn(v, " \t\r\n");
        snprintf(out, n, "%.*s", (int)l, v);
        return 0;
    }
    return -1;
}

static void set_nodes(audit_slurm *s, const char *list)
{
    snprintf(s->nodelist, sizeof(s->nodelist), "%s", list);
    smp_error err;
    if (!*list || !strcmp(list, "(null)") || !strcmp(list, "None") ||
        smp_hostlist_expand(list, &s->nodes, &s->nnodes, &err)) {
        s->nodes = NULL;
        s->nnodes = 0;
    }
}

static void note(audit_slurm *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(audit_slurm *s, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(s->notes, json_string(buf));
}

static const char *why(int st, const char *err)
{
    if (st == 127)
        return "command not found";
    if (st == 124)
        return "no answer within " XSTR(QUERY_SECONDS) " s";
    return err[0] ? err : "failed";
}

static bool from_sacct(int64_t job, int64_t step, audit_slurm *s)
{
    char id[48], err[300];
    snprintf(id, sizeof(id), "%lld.%lld", (long long)job, (long long)step);
    char *argv[] = {"sacct", "-n", "-P", "-j", id, "--format=JobID,NodeList,NTasks,State", NULL};
    int st;
    char *out = run(argv, &st, err, sizeof(err));
    bool ok = false;
    if (out && st == 0) {
        /* one line per matching id: pick the one of exactly this step */
        for (char *line = strtok(out, "\n"); line && !ok; line = strtok(NULL, "\n")) {
            char *f[4] = {line, NULL, NULL, NULL};
            for (int i = 1; i < 4 && f[i - 1]; i++) {
                char *bar = strchr(f[i - 1], '|');
                if (bar) {
                    *bar = '\0';
                    f[i] = bar + 1;
                }
            }
            if (!f[3] || strcmp(f[0], id) || !f[1][0])
                continue;
            s->known = s->step_level = ok = true;
            snprintf(s->source, sizeof(s->source), "sacct");
            set_nodes(s, f[1]);
            s->tasks = atoll(f[2]) > 0 ? atoll(f[2]) : -1;
            snprintf(s->state, sizeof(s->state), "%.63s", f[3]);
        }
        if (!ok)
            note(s, "sacct: step %s not in the accounting database", id);
    } else {
        note(s, "sacct: %s", why(st, err));
    }
    free(out);
    return ok;
}

static bool from_scontrol_step(int64_t job, int64_t step, audit_slurm *s)
{
    char id[48], err[300], v[1024];
    snprintf(id, sizeof(id), "%lld.%lld", (long long)job, (long long)step);
    char *argv[] = {"scontrol", "-o", "show", "step", id, NULL};
    int st;
    char *out = run(argv, &st, err, sizeof(err));
    bool ok = false;
    if (out && st == 0 && !token(out, "NodeList", v, sizeof(v))) {
        s->known = s->step_level = ok = true;
        snprintf(s->source, sizeof(s->source), "scontrol show step");
        set_nodes(s, v);
        if (!token(out, "Tasks", v, sizeof(v)))
            s->tasks = atoll(v) > 0 ? atoll(v) : -1;
        if (!token(out, "State", v, sizeof(v)))
            snprintf(s->state, sizeof(s->state), "%.63s", v);
    } else if (st == 127 || st == 124) {
        note(s, "scontrol show step: %s", why(st, err));
    } else {
        note(s, "scontrol show step: step %s is not running (slurmctld forgets a step when it "
                "ends)", id);
    }
    free(out);
    return ok;
}

static bool from_scontrol_job(int64_t job, audit_slurm *s)
{
    char id[32], err[300], v[1024];
    snprintf(id, sizeof(id), "%lld", (long long)job);
    char *argv[] = {"scontrol", "-o", "show", "job", id, NULL};
    int st;
    char *out = run(argv, &st, err, sizeof(err));
    bool ok = false;
    if (out && st == 0 && !token(out, "NodeList", v, sizeof(v)) && strcmp(v, "(null)")) {
        s->known = ok = true;
        snprintf(s->source, sizeof(s->source), "scontrol show job");
        set_nodes(s, v);
        if (!token(out, "JobState", v, sizeof(v)))
            snprintf(s->state, sizeof(s->state), "%.63s", v);
    } else if (st == 127 || st == 124) {
        note(s, "scontrol show job: %s", why(st, err));
    } else {
        note(s, "scontrol show job: job %s is not known to slurmctld (it ended more than "
                "MinJobAge ago, or never ran)", id);
    }
    free(out);
    return ok;
}

void audit_slurm_query(int64_t job, int64_t step, audit_slurm *s)
{
    memset(s, 0, sizeof(*s));
    s->tasks = -1;
    s->notes = json_array();
    if (step >= 0 && (from_sacct(job, step, s) || from_scontrol_step(job, step, s)))
        return;
    from_scontrol_job(job, s);
}

int audit_slurm_running_steps(int64_t job, int64_t **steps)
{
    char id[32], err[300];
    snprintf(id, sizeof(id), "%lld", (long long)job);
    char *argv[] = {"scontrol", "-o", "show", "step", id, NULL};
    int st, n = 0;
    *steps = NULL;
    char *out = run(argv, &st, err, sizeof(err));
    if (!out || st) {
        free(out);
        return 0;
    }
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char v[64];
        long long j, k;
        if (token(line, "StepId", v, sizeof(v)) || sscanf(v, "%lld.%lld", &j, &k) != 2 ||
            j != job)
            continue; /* batch and extern steps have names, not numbers */
        int64_t *nv = realloc(*steps, sizeof(int64_t) * (size_t)(n + 1));
        if (!nv)
            break;
        *steps = nv;
        (*steps)[n++] = k;
    }
    free(out);
    return n;
}

void audit_slurm_free(audit_slurm *s)
{
    for (int i = 0; i < s->nnodes; i++)
        free(s->nodes[i]);
    free(s->nodes);
    json_decref(s->notes);
    memset(s, 0, sizeof(*s));
}
