/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two levels: the socket split inside nodes.  On random instances and
 * placements, every (node, socket) gets exactly its share, no rank changes
 * node, the reported inter-socket score equals a brute-force recount, and
 * it is never worse than the naive split (consecutive ranks per socket,
 * recounted here too).  On small grids whose optimum is known it finds it,
 * and bad input names its field. */
#include "unit_util.h"

/* Brute force: directed edges with both ends on one node, different sockets. */
static void brute_socket_score(const smp_grid *g, const smp_stencil *st, const int32_t *node,
                               const int32_t *sock, tu_score *out)
{
    int d = g->ndims;
    int64_t maxnode = 0;
    for (int64_t r = 0; r < g->size; r++)
        if (node[r] > maxnode)
            maxnode = node[r];
    /* per (node, socket) counters, sockets below 64 in these tests */
    size_t ng = (size_t)(maxnode + 1) * 64;
    int64_t *cnt = calloc(ng, sizeof(int64_t));
    double *w = calloc(ng, sizeof(double));
    assert_non_null(cnt);
    assert_non_null(w);
    for (int64_t r = 0; r < g->size; r++) {
        int64_t c[SMP_MAX_DIMS], rest = r;
        for (int i = d - 1; i >= 0; i--) {
            c[i] = rest % g->dims[i];
            rest /= g->dims[i];
        }
        for (int k = 0; k < st->count; k++) {
            int64_t t = 0;
            bool inside = true;
            for (int i = 0; i < d; i++) {
                int64_t x = c[i] + st->offsets[k * d + i];
                if (x < 0 || x >= g->dims[i]) {
                    if (!g->periods[i]) {
                        inside = false;
                        break;
                    }
                    while (x < 0)
                        x += g->dims[i];
                    while (x >= g->dims[i])
                        x -= g->dims[i];
                }
                t = t * g->dims[i] + x;
            }
            if (!inside || node[t] != node[r] || sock[t] == sock[r])
                continue;
            cnt[node[r] * 64 + sock[r]]++;
            w[node[r] * 64 + sock[r]] += st->weights ? st->weights[k] : 1.0;
        }
    }
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < ng; i++) {
        out->j_sum += cnt[i];
        out->w_sum += w[i];
        if (cnt[i] > out->j_max)
            out->j_max = cnt[i];
        if (w[i] > out->w_max)
            out->w_max = w[i];
    }
    free(cnt);
    free(w);
}

/* The naive split written out again: per node, consecutive ranks fill
 * socket 0 with its share, then socket 1, ... */
static void naive_split(const smp_grid *g, const int32_t *node, int nnodes, const int32_t *sockets,
                        int32_t *sock)
{
    int64_t *count = calloc((size_t)nnodes, sizeof(int64_t));
    int64_t *seen = calloc((size_t)nnodes, sizeof(int64_t));
    assert_non_null(count);
    assert_non_null(seen);
    for (int64_t r = 0; r < g->size; r++)
        count[node[r]]++;
    for (int64_t r = 0; r < g->size; r++) {
        int32_t n = node[r];
        int64_t i = seen[n]++, s = sockets[n], q = count[n] / s, extra = count[n] % s;
        /* the first `extra` sockets hold q + 1 ranks */
        sock[r] = (int32_t)(i < extra * (q + 1) ? i / (q + 1) : extra + (i - extra * (q + 1)) / q);
    }
    free(count);
    free(seen);
}

static void assert_shares(const char *what, const smp_grid *g, const int32_t *node, int nnodes,
                          const int32_t *sockets, const int32_t *sock)
{
    int64_t *count = calloc((size_t)nnodes, sizeof(int64_t));
    int64_t *got = calloc((size_t)nnodes * 64, sizeof(int64_t));
    assert_non_null(count);
    assert_non_null(got);
    for (int64_t r = 0; r < g->size; r++) {
        if (sock[r] < 0 || sock[r] >= sockets[node[r]])
            fail_msg("%s: rank %lld on socket %d of %d", what, (long long)r, sock[r],
                     sockets[node[r]]);
        count[node[r]]++;
        got[node[r] * 64 + sock[r]]++;
    }
    for (int n = 0; n < nnodes; n++) {
        int64_t lo = count[n] / sockets[n];
        for (int k = 0; k < sockets[n]; k++) {
            int64_t want = lo + (k < count[n] % sockets[n] ? 1 : 0);
            if (got[n * 64 + k] != want)
                fail_msg("%s: node %d socket %d has %lld ranks, want %lld", what, n, k,
                         (long long)got[n * 64 + k], (long long)want);
            assert_int_equal(smp_socket_share(count[n], sockets[n], k), want);
        }
    }
    free(count);
    free(got);
}

static void test_sockets_random(void **state)
{
    (void)state;
    tu_rng rng = {606};
    int better = 0, runs = 0;
    for (int trial = 0; trial < 600; trial++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int nnodes;
        char what[256];
        smp_error err;
        tu_random_instance(&rng, &g, &st, &slots, &nnodes, what, sizeof(what));
        smp_placement pl;
        smp_algorithm alg = trial % 3 == 0 ? SMP_ALG_BLOCKED : SMP_ALG_AUTO;
        assert_ok(smp_plan(&g, &st, slots, nnodes, alg, &pl, &err), err);
        int32_t *sockets = malloc(sizeof(int32_t) * (size_t)nnodes);
        int32_t *sock = malloc(sizeof(int32_t) * (size_t)g.size);
        int32_t *again = malloc(sizeof(int32_t) * (size_t)g.size);
        int32_t *naive = malloc(sizeof(int32_t) * (size_t)g.size);
        int32_t *lib_naive = malloc(sizeof(int32_t) * (size_t)g.size);
        int32_t *node_copy = malloc(sizeof(int32_t) * (size_t)g.size);
        assert_true(sockets && sock && again && naive && lib_naive && node_copy);
        for (int n = 0; n < nnodes; n++)
            sockets[n] = (int32_t)tu_range(&rng, 1, trial % 2 ? 2 : 8);
        memcpy(node_copy, pl.node_of_rank, sizeof(int32_t) * (size_t)g.size);
        smp_socket_score sc, sc2, lib_naive_sc;
        assert_ok(smp_plan_sockets(&g, &st, pl.node_of_rank, nnodes, sockets, sock, &sc, &err), err);
        if (memcmp(node_copy, pl.node_of_rank, sizeof(int32_t) * (size_t)g.size) != 0)
            fail_msg("%s: the node placement changed", what);
        assert_shares(what, &g, pl.node_of_rank, nnodes, sockets, sock);
        tu_score brute, brute_naive;
        brute_socket_score(&g, &st, pl.node_of_rank, sock, &brute);
        if (sc.j_sum != brute.j_sum || sc.j_max != brute.j_max || !tu_close(sc.w_sum, brute.w_sum) ||
            !tu_close(sc.w_max, brute.w_max))
            fail_msg("%s: score %lld/%lld (w %g/%g), brute force %lld/%lld (w %g/%g)", what,
                     (long long)sc.j_sum, (long long)sc.j_max, sc.w_sum, sc.w_max,
                     (long long)brute.j_sum, (long long)brute.j_max, brute.w_sum, brute.w_max);
        naive_split(&g, pl.node_of_rank, nnodes, sockets, naive);
        assert_ok(smp_sockets_naive(&g, pl.node_of_rank, nnodes, sockets, lib_naive, &err), err);
        if (memcmp(naive, lib_naive, sizeof(int32_t) * (size_t)g.size) != 0)
            fail_msg("%s: the library's naive split differs from the one written here", what);
        assert_ok(smp_socket_score_compute(&g, &st, pl.node_of_rank, nnodes, sockets, lib_naive,
                                           &lib_naive_sc, &err), err);
        brute_socket_score(&g, &st, pl.node_of_rank, naive, &brute_naive);
        assert_int_equal(lib_naive_sc.j_sum, brute_naive.j_sum);
        bool weighted = smp_stencil_weighted(&st);
        if (weighted ? brute.w_sum > brute_naive.w_sum + 1e-9 : brute.j_sum > brute_naive.j_sum)
            fail_msg("%s: %lld inter-socket edges (w %g), naive split %lld (w %g)", what,
                     (long long)brute.j_sum, brute.w_sum, (long long)brute_naive.j_sum,
                     brute_naive.w_sum);
        better += weighted ? brute.w_sum < brute_naive.w_sum - 1e-9 : brute.j_sum < brute_naive.j_sum;
        runs++;
        /* deterministic */
        assert_ok(smp_plan_sockets(&g, &st, pl.node_of_rank, nnodes, sockets, again, &sc2, &err), err);
        if (memcmp(sock, again, sizeof(int32_t) * (size_t)g.size) != 0)
            fail_msg("%s: two runs differ", what);
        free(sockets);
        free(sock);
        free(again);
        free(naive);
        free(lib_naive);
        free(node_copy);
        free(slots);
        smp_placement_free(&pl);
        smp_stencil_free(&st);
    }
    /* the split must actually do something on a good share of them */
    if (better * 5 < runs)
        fail_msg("better than naive on only %d of %d instances", better, runs);
}

/* Grids whose best split is known: one node, two sockets. */
static void test_sockets_known(void **state)
{
    (void)state;
    struct {
        int64_t dims[2];
        const char *family;
        int sockets;
        int64_t naive_j, best_j;
    } cases[] = {
        /* 4x16: naive cuts across the 16 columns (2 x 16 directed edges),
         * the best cut is across the 4 rows (2 x 4) */
        {{4, 16}, "nearest", 2, 32, 8},
        /* 8x8 into 4 sockets: naive gives 2-row strips (3 cuts of 2 x 8),
         * the best is 4 quadrants (2 cuts of 2 x 8) */
        {{8, 8}, "nearest", 4, 48, 32},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        smp_grid g;
        smp_stencil st;
        smp_error err;
        bool per[2] = {false, false};
        assert_ok(smp_grid_init(&g, 2, cases[i].dims, per, &err), err);
        assert_ok(smp_stencil_family(&st, cases[i].family, 2, &err), err);
        int32_t *node = calloc((size_t)g.size, sizeof(int32_t));
        int32_t *sock = malloc(sizeof(int32_t) * (size_t)g.size);
        assert_true(node && sock);
        int32_t sockets[1] = {cases[i].sockets};
        smp_socket_score sc, nsc;
        assert_ok(smp_sockets_naive(&g, node, 1, sockets, sock, &err), err);
        assert_ok(smp_socket_score_compute(&g, &st, node, 1, sockets, sock, &nsc, &err), err);
        assert_int_equal(nsc.j_sum, cases[i].naive_j);
        assert_ok(smp_plan_sockets(&g, &st, node, 1, sockets, sock, &sc, &err), err);
        assert_int_equal(sc.j_sum, cases[i].best_j);
        smp_stencil_free(&st);
        free(node);
        free(sock);
    }
}

static void test_sockets_errors(void **state)
{
    (void)state;
    smp_grid g;
    smp_stencil st;
    smp_error err;
    int64_t dims[2] = {4, 4};
    bool per[2] = {false, false};
    assert_ok(smp_grid_init(&g, 2, dims, per, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int32_t node[16] = {0}, sock[16];
    int32_t zero[1] = {0}, two[2] = {2, 2}, huge[1] = {SMP_MAX_SOCKETS + 1};
    assert_err(smp_plan_sockets(&g, &st, node, 1, zero, sock, NULL, &err), SMP_ERR_INPUT, err,
               "sockets[0]");
    assert_err(smp_plan_sockets(&g, &st, node, 1, huge, sock, NULL, &err), SMP_ERR_INPUT, err,
               "sockets[0]");
    node[5] = 3;
    assert_err(smp_plan_sockets(&g, &st, node, 2, two, sock, NULL, &err), SMP_ERR_INPUT, err,
               "rank 5 is on node 3");
    node[5] = 0;
    for (int r = 0; r < 16; r++)
        sock[r] = r == 7 ? 2 : 0;
    smp_socket_score sc;
    assert_err(smp_socket_score_compute(&g, &st, node, 1, two, sock, &sc, &err), SMP_ERR_INPUT,
               err, "rank 7 is on socket 2 of 2");
    /* more sockets than ranks: some sockets stay empty, sizes still exact */
    int32_t many[1] = {20};
    assert_ok(smp_plan_sockets(&g, &st, node, 1, many, sock, &sc, &err), err);
    assert_shares("20 sockets for 16 ranks", &g, node, 1, many, sock);
    smp_stencil_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sockets_random),
        cmocka_unit_test(test_sockets_known),
        cmocka_unit_test(test_sockets_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
