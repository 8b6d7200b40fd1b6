/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_learned: what --stencil-map=learn costs srun, apart from Slurm.
 *
 *   bench_learned [-r REPEATS] [FILE...]
 *
 * In slurm_spank_init, every learn-mode srun keys its program and looks it
 * up: the key of each FILE (the ELF build ID: a few hundred bytes read,
 * whatever the size) and of a 64 MiB file without one (hashed whole), and
 * the lookup in a store of 200 applications.  In slurm_spank_exit, after
 * a first run, srun judges the profile: read every rank's file, infer grid
 * and stencil, write the spec; timed on halo profiles (2-D, 5 points,
 * MPI_Dims_create's grid) of 16 to 4096 ranks written here.  Prints CPU
 * and wall medians; asserts nothing. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "learned_entry.h"
#include "learned_judge.h"
#include "learned_key.h"
#include "learned_lookup.h"
#include "learned_store.h"

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    double cpu, wall;
} timing;

/* medians of repeats calls of fn(arg) */
static timing timed(int repeats, int (*fn)(void *), void *arg)
{
    double *c = calloc((size_t)repeats, sizeof(double)), *w = calloc((size_t)repeats, sizeof(double));
    for (int k = 0; k < repeats; k++) {
        double c0 = seconds(CLOCK_PROCESS_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
        if (fn(arg)) {
            fprintf(stderr, "bench_learned: a timed call failed\n");
            exit(1);
        }
        c[k] = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
        w[k] = seconds(CLOCK_MONOTONIC) - w0;
    }
    qsort(c, (size_t)repeats, sizeof(double), cmp);
    qsort(w, (size_t)repeats, sizeof(double), cmp);
    timing t = {c[repeats / 2], w[repeats / 2]};
    free(c);
    free(w);
    return t;
}

static int key_of(void *arg)
{
    learned_app app;
    char msg[600];
    return learned_app_key((const char *)arg, &app, msg, sizeof(msg));
}

typedef struct {
    const char *key;
    int64_t ranks;
} lookup_arg;

static int lookup(void *arg)
{
    const lookup_arg *a = arg;
    learned_store s;
    char msg[1200];
    if (learned_store_open(&s, NULL, false, msg, sizeof(msg)))
        return -1;
    learned_found f;
    learned_lookup(&s, a->key, a->ranks, time(NULL), &f);
    int rc = f.kind == LEARNED_FOUND_SPEC ? 0 : -1;
    learned_found_free(&f);
    learned_store_close(&s);
    return rc;
}

typedef struct {
    const char *dir;
    int64_t ranks;
} judge_arg;

static int judge(void *arg)
{
    const judge_arg *a = arg;
    learned_entry e;
    learned_entry_init(&e);
    char why[800];
    learned_judgement j = learned_judge(a->dir, a->ranks, time(NULL), &e, why, sizeof(why));
    learned_entry_free(&e);
    return j == LEARNED_JUDGED_SPEC ? 0 : -1;
}

/* a halo profile: MPI_Dims_create's 2-D grid, 5 points, 64 KiB a neighbour;
 * with the MPI_Cart_create and MPI_Dims_create calls, or without (the
 * grid inferred from the traffic) */
static int write_halo_profile(const char *dir, int64_t p, bool cart)
{
    int64_t d0 = 1;
    for (int64_t f = 1; f * f <= p; f++)
        if (p % f == 0)
            d0 = f;
    int64_t d1 = p / d0, a = d1 >= d0 ? d1 : d0, b = p / a; /* MPI_Dims_create: non-increasing */
    if (mkdir(dir, 0700) && errno != EEXIST)
        return -1;
    for (int64_t r = 0; r < p; r++) {
        char path[4400];
        snprintf(path, sizeof(path), "%.4200s/rank.%" PRId64, dir, r);
        FILE *f = fopen(path, "w");
        if (!f)
            return -1;
        fprintf(f, "stencilmap-profile 1\nrank %" PRId64 " %" PRId64 "\n", r, p);
        if (cart) {
            fprintf(f, "dims_create %" PRId64 " 2 %" PRId64 " %" PRId64 "\n", p, a, b);
            fprintf(f, "cart %" PRId64 " 2 %" PRId64 " %" PRId64 " 0 0 0 %" PRId64 "\n", p, a, b, r);
        }
        int64_t i = r / b, j = r % b;
        int64_t nb[4][2] = {{i - 1, j}, {i, j - 1}, {i, j + 1}, {i + 1, j}};
        for (int k = 0; k < 4; k++)
            if (nb[k][0] >= 0 && nb[k][0] < a && nb[k][1] >= 0 && nb[k][1] < b)
                fprintf(f, "d %" PRId64 " 15 983040\n", nb[k][0] * b + nb[k][1]);
        fclose(f);
        snprintf(path, sizeof(path), "%.4200s/exit.%" PRId64 ".1", dir, r);
        f = fopen(path, "w");
        if (!f)
            return -1;
        fputs("stencilmap-profile 1\nexit 0 1\n", f);
        fclose(f);
    }
    return 0;
}

/* a store of n applications, one of them key with a spec of 16 ranks */
static int fill_store(const char *key, int n)
{
    learned_store s;
    char msg[1200];
    if (learned_store_open(&s, NULL, true, msg, sizeof(msg))) {
        fprintf(stderr, "bench_learned: %s\n", msg);
        return -1;
    }
    int rc = 0;
    for (int k = 0; k < n && !rc; k++) {
        learned_entry e;
        learned_entry_init(&e);
        e.kind = LEARNED_SPEC;
        if (k == 0)
            snprintf(e.key, sizeof(e.key), "%s", key);
        else
            snprintf(e.key, sizeof(e.key), "b%040x", k);
        snprintf(e.executable, sizeof(e.executable), "/opt/app%d/bin/solver", k);
        snprintf(e.date, sizeof(e.date), "2026-01-01T00:00:00Z");
        e.ranks = 16;
        e.share = 1;
        snprintf(e.grid_source, sizeof(e.grid_source), "MPI_Dims_create");
        e.spec = json_loads("{\"grid\": {\"dims\": [4, 4]}, \"stencil\": {\"offsets\": "
                            "[[0, 1], [0, -1], [1, 0], [-1, 0]]}}",
                            0, NULL);
        rc = learned_entry_write_at(s.fd, s.path, &e, msg, sizeof(msg)) < 0;
        learned_entry_free(&e);
    }
    learned_store_close(&s);
    return rc;
}

int main(int argc, char **argv)
{
    int repeats = 11, i = 1;
    if (argc > 2 && !strcmp(argv[1], "-r")) {
        repeats = atoi(argv[2]);
        i = 3;
    }
    if (repeats < 1) {
        fprintf(stderr, "usage: %s [-r REPEATS] [FILE...]\n", argv[0]);
        return 2;
    }
    const char *t = getenv("TMPDIR");
    char base[4096];
    snprintf(base, sizeof(base), "%s/bench_learned.XXXXXX", t && *t == '/' ? t : "/tmp");
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    /* srun's start: the program's key */
    for (; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st))
            continue;
        timing k = timed(repeats, key_of, argv[i]);
        learned_app app;
        char msg[600];
        learned_app_key(argv[i], &app, msg, sizeof(msg));
        printf("key of %s (%.1f MB, %s): CPU %.3f ms, wall %.3f ms\n", argv[i], st.st_size / 1e6,
               app.build_id ? "ELF build ID" : "hashed whole", k.cpu * 1e3, k.wall * 1e3);
    }
    char big[4200];
    snprintf(big, sizeof(big), "%s/no-build-id.bin", base);
    FILE *f = fopen(big, "w");
    for (int k = 0; f && k < 64 * 1024; k++) {
        char block[1024];
        memset(block, k & 0xff, sizeof(block));
        fwrite(block, 1, sizeof(block), f);
    }
    if (f)
        fclose(f);
    timing kb = timed(repeats > 5 ? 5 : repeats, key_of, big);
    printf("key of a 67.1 MB file without a build ID (hashed whole, in the page cache): CPU %.1f ms, "
           "wall %.1f ms (%.2f GB/s)\n",
           kb.cpu * 1e3, kb.wall * 1e3, 67.108864e-3 / kb.wall);
    /* srun's start: the lookup */
    char state[4200];
    snprintf(state, sizeof(state), "%s/state", base);
    setenv("XDG_STATE_HOME", state, 1);
    const char *key = "b0123456789abcdef0123456789abcdef01234567";
    if (fill_store(key, 200))
        return 1;
    lookup_arg la = {key, 32};
    timing lk = timed(repeats, lookup, &la);
    printf("store lookup among 200 applications (open, list, read, regrid for 32 ranks): CPU %.3f ms, "
           "wall %.3f ms\n",
           lk.cpu * 1e3, lk.wall * 1e3);
    /* srun's end after a first run: judge the profile */
    static const int64_t sizes[] = {16, 256, 1024, 4096};
    for (int cart = 1; cart >= 0; cart--)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            char prof[4200];
            snprintf(prof, sizeof(prof), "%s/prof%" PRId64 "%s", base, sizes[s], cart ? "c" : "i");
            if (write_halo_profile(prof, sizes[s], cart)) {
                fprintf(stderr, "bench_learned: cannot write %s\n", prof);
                return 1;
            }
            judge_arg ja = {prof, sizes[s]};
            timing jt = timed(sizes[s] >= 1024 ? 3 : repeats, judge, &ja);
            printf("learning at srun's end, %4" PRId64 " ranks, grid %s (read the profile, infer, "
                   "judge): CPU %7.1f ms, wall %7.1f ms\n",
                   sizes[s], cart ? "of MPI_Cart_create" : "inferred          ", jt.cpu * 1e3,
                   jt.wall * 1e3);
        }
    char cmd[4300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    return system(cmd) ? 1 : 0;
}
