/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libstencilmap over PMI-1 (kvs_pmi1.c), without Hydra: two ranks, forked
 * here, each given PMI_FD, PMI_RANK and PMI_SIZE as MPICH's Hydra gives
 * them, run stencilmap_init and stencilmap_verify against a small PMI-1
 * server of this test's own, which answers as Hydra 4.0 does and checks
 * what the client sends: keys within keylen_max, values within a
 * vallen_max made small so that long values are split, no space in a
 * value, one barrier for both ranks.  The tests/launchers suite runs the
 * same library under the real Hydra. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "stencilmap.h"

#define RANKS 2
#define KEYLEN_MAX 64
#define VALLEN_MAX 48 /* Hydra's is 1024: small, so values come in parts */

typedef struct {
    char key[KEYLEN_MAX + 1];
    char value[VALLEN_MAX + 1];
} entry;

static entry store[512];
static int nstore, puts_split; /* entries; keys of a later part ("#1") */

static char problem[256]; /* what the server found wrong, or "" */

static void say(int fd, const char *line)
{
    size_t n = strlen(line);
    if (write(fd, line, n) != (ssize_t)n)
        snprintf(problem, sizeof(problem), "server: write failed");
}

static const char *field(const char *line, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    for (const char *w = line; *w;) {
        w += strspn(w, " ");
        size_t len = strcspn(w, " ");
        if (len > n && !strncmp(w, name, n) && w[n] == '=') {
            snprintf(buf, cap, "%.*s", (int)(len - n - 1), w + n + 1);
            return buf;
        }
        w += len;
    }
    return NULL;
}

/* one command of a client; returns 0 when the client said finalize */
static int serve(int fd, const char *line, int *barrier_in, const int *fds)
{
    char cmd[32], key[256], value[1024], reply[1200];
    if (!field(line, "cmd", cmd, sizeof(cmd))) {
        snprintf(problem, sizeof(problem), "no cmd in '%s'", line);
        return 0;
    }
    if (!strcmp(cmd, "init")) {
        say(fd, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
    } else if (!strcmp(cmd, "get_maxes")) {
        snprintf(reply, sizeof(reply), "cmd=maxes kvsname_max=256 keylen_max=%d vallen_max=%d\n",
                 KEYLEN_MAX, VALLEN_MAX);
        say(fd, reply);
    } else if (!strcmp(cmd, "get_my_kvsname")) {
        say(fd, "cmd=my_kvsname kvsname=kvs_test_0\n");
    } else if (!strcmp(cmd, "put")) {
        if (!field(line, "key", key, sizeof(key)) || !field(line, "value", value, sizeof(value)) ||
            strlen(key) > KEYLEN_MAX || strlen(value) > VALLEN_MAX || strstr(line, " value= ") ||
            nstore == (int)(sizeof(store) / sizeof(store[0])))
            snprintf(problem, sizeof(problem), "bad put '%.200s'", line);
        else if (strchr(strstr(line, " value=") + 7, ' '))
            snprintf(problem, sizeof(problem), "a space in the value of '%.200s'", line);
        else {
            snprintf(store[nstore].key, sizeof(store[nstore].key), "%s", key);
            snprintf(store[nstore].value, sizeof(store[nstore].value), "%s", value);
            nstore++;
            puts_split += strchr(key, '#') != NULL;
        }
        say(fd, "cmd=put_result rc=0 msg=success\n");
    } else if (!strcmp(cmd, "barrier_in")) {
        if (++*barrier_in == RANKS) {
            for (int i = 0; i < RANKS; i++)
                say(fds[i], "cmd=barrier_out\n");
            *barrier_in = 0;
        }
    } else if (!strcmp(cmd, "get")) {
        field(line, "key", key, sizeof(key));
        int i = nstore - 1;
        while (i >= 0 && strcmp(store[i].key, key))
            i--;
        if (i < 0)
            snprintf(reply, sizeof(reply), "cmd=get_result rc=-1 msg=key_%s_not_found\n", key);
        else
            snprintf(reply, sizeof(reply), "cmd=get_result rc=0 msg=success value=%s\n",
                     store[i].value);
        say(fd, reply);
    } else if (!strcmp(cmd, "finalize")) {
        say(fd, "cmd=finalize_ack\n");
        return 0;
    } else {
        snprintf(problem, sizeof(problem), "unknown command '%.200s'", line);
    }
    return 1;
}

/* a rank: the library through the descriptor fd; exits with verify's status */
static void rank_main(int rank, int fd, const char *const *env)
{
    char v[16];
    snprintf(v, sizeof(v), "%d", fd);
    setenv("PMI_FD", v, 1);
    snprintf(v, sizeof(v), "%d", rank);
    setenv("PMI_RANK", v, 1);
    setenv("PMI_SIZE", "2", 1);
    unsetenv("PMIX_NAMESPACE");
    for (; *env; env += 2)
        setenv(env[0], env[1], 1);
    if (rank == 1 && getenv("TEST_RANK1_PERIODS"))
        setenv("STENCIL_MAP_PERIODS", getenv("TEST_RANK1_PERIODS"), 1);
    stencilmap_ctx *ctx;
    stencilmap_status st = stencilmap_init(&ctx);
    stencilmap_verify_result res;
    /* as stencil-map-verify: a rank with a bad environment verifies too,
     * so that both stop at the same first bad rank */
    if (stencilmap_rank(ctx) == rank && stencilmap_size(ctx) == RANKS) {
        stencilmap_status vst = stencilmap_verify(ctx, &res);
        if (st == STENCILMAP_OK || st == STENCILMAP_ERR_ENV)
            st = vst;
        if (st == STENCILMAP_OK && (res.observed_jsum != 0 || res.nnodes != 1))
            st = STENCILMAP_ERR_MISMATCH;
        stencilmap_verify_result_free(&res);
    } else if (st == STENCILMAP_OK) {
        st = STENCILMAP_ERR_ARG; /* rank or size not the launcher's */
    }
    fprintf(stderr, "rank %d: status %d: %s\n", rank, (int)st, stencilmap_errmsg(ctx));
    if (stencilmap_finalize(ctx) != STENCILMAP_OK && st == STENCILMAP_OK)
        st = STENCILMAP_ERR_PMIX;
    _exit((int)st);
}

/* runs both ranks against the server; status[r] is what rank r ended with */
static void run_job(const char *const *env, int *status)
{
    int fds[RANKS], child_fd[RANKS];
    pid_t pid[RANKS];
    nstore = puts_split = 0;
    problem[0] = '\0';
    for (int r = 0; r < RANKS; r++) {
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        fds[r] = sv[0];
        child_fd[r] = sv[1];
    }
    for (int r = 0; r < RANKS; r++) {
        pid[r] = fork();
        assert_true(pid[r] >= 0);
        if (pid[r] == 0) {
            for (int i = 0; i < RANKS; i++) {
                close(fds[i]);
                if (i != r)
                    close(child_fd[i]);
            }
            rank_main(r, child_fd[r], env);
        }
    }
    for (int r = 0; r < RANKS; r++)
        close(child_fd[r]);
    char buf[RANKS][4096];
    size_t have[RANKS] = {0};
    int open_clients = RANKS, barrier_in = 0;
    bool open_fd[RANKS] = {true, true};
    while (open_clients > 0) {
        struct pollfd p[RANKS];
        for (int r = 0; r < RANKS; r++)
            p[r] = (struct pollfd){open_fd[r] ? fds[r] : -1, POLLIN, 0};
        int n = poll(p, RANKS, 20000);
        if (n <= 0) {
            snprintf(problem, sizeof(problem), "server: no command for 20 s");
            break;
        }
        for (int r = 0; r < RANKS; r++) {
            if (!open_fd[r] || !(p[r].revents & (POLLIN | POLLHUP)))
                continue;
            ssize_t got = read(fds[r], buf[r] + have[r], sizeof(buf[r]) - 1 - have[r]);
            if (got <= 0) {
                open_fd[r] = false;
                open_clients--;
                continue;
            }
            have[r] += (size_t)got;
            buf[r][have[r]] = '\0';
            char *nl;
            while ((nl = strchr(buf[r], '\n'))) {
                *nl = '\0';
                if (!serve(fds[r], buf[r], &barrier_in, fds)) {
                    open_fd[r] = false;
                    open_clients--;
                }
                memmove(buf[r], nl + 1, have[r] - (size_t)(nl + 1 - buf[r]) + 1);
                have[r] -= (size_t)(nl + 1 - buf[r]);
            }
        }
    }
    for (int r = 0; r < RANKS; r++) {
        int ws;
        close(fds[r]);
        assert_int_equal(waitpid(pid[r], &ws, 0), pid[r]);
        status[r] = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    }
    if (problem[0])
        fail_msg("%s", problem);
}

/* both ranks on this host: no inter-node edge; the stencil's text (eight
 * offsets) is longer than a part and goes in several */
static const char *const base_env[] = {"STENCIL_MAP_DIMS",
                                       "2,1",
                                       "STENCIL_MAP_PERIODS",
                                       "0,0",
                                       "STENCIL_MAP_STENCIL",
                                       "-1,-1;-1,0;-1,1;0,-1;0,1;1,-1;1,0;1,1",
                                       "STENCIL_MAP_JSUM",
                                       "0",
                                       "STENCIL_MAP_JMAX",
                                       "0",
                                       NULL};

static void test_verify(void **state)
{
    (void)state;
    int status[RANKS];
    unsetenv("TEST_RANK1_PERIODS");
    run_job(base_env, status);
    assert_int_equal(status[0], STENCILMAP_OK);
    assert_int_equal(status[1], STENCILMAP_OK);
    assert_true(puts_split > 0); /* the long values went in parts */
    /* every rank's keys carry its rank */
    for (int i = 0; i < nstore; i++)
        assert_true(!strncmp(store[i].key, "r0.", 3) || !strncmp(store[i].key, "r1.", 3));
}

/* rank 1's bad environment reaches rank 0 as its message: spaces and
 * quotes escaped on the wire, and back */
static void test_bad_peer(void **state)
{
    (void)state;
    int status[RANKS];
    setenv("TEST_RANK1_PERIODS", "0,x", 1);
    run_job(base_env, status);
    unsetenv("TEST_RANK1_PERIODS");
    assert_int_equal(status[0], STENCILMAP_ERR_ENV);
    assert_int_equal(status[1], STENCILMAP_ERR_ENV);
    bool escaped = false;
    for (int i = 0; i < nstore; i++)
        escaped =
            escaped || (strstr(store[i].key, "stencilmap.error") && strstr(store[i].value, "%20"));
    assert_true(escaped);
}

/* a plan that claims edges the ranks do not have: both see the mismatch */
static void test_mismatch(void **state)
{
    (void)state;
    const char *const env[] = {"STENCIL_MAP_DIMS",
                               "2,1",
                               "STENCIL_MAP_PERIODS",
                               "0,0",
                               "STENCIL_MAP_STENCIL",
                               "1,0;-1,0",
                               "STENCIL_MAP_JSUM",
                               "2",
                               "STENCIL_MAP_JMAX",
                               "1",
                               NULL};
    int status[RANKS];
    run_job(env, status);
    assert_int_equal(status[0], STENCILMAP_ERR_MISMATCH);
    assert_int_equal(status[1], STENCILMAP_ERR_MISMATCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_bad_peer),
        cmocka_unit_test(test_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
