/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bisect and folding: exact shares at any node sizes (including splits as
 * uneven as one huge node among many of one rank), scores the scorer
 * reproduces, cuts that follow the stencil, folding that reaches the
 * proven optimum of 2-D "component" instances, and the very cuts of the
 * plain search (every staircase sorted from scratch, every cut edge
 * counted), which alg_bisect.c only reaches faster. */
#include "unit_util.h"

#include "construct/construct.h"
#include "model/neighbours.h"

/* ---- the plain search, as bisection was first written ---------------- */
struct plain {
    const smp_grid *g;
    smp_nbr nb;
    const int64_t *prefix;
    int32_t *node_of_rank;
    uint8_t *side;
    int64_t *t;
    double *w;
    int k, j, desc; /* the staircase qsort orders by */
};
static struct plain *plain_now;

static int64_t plain_coord(const struct plain *P, int32_t r, int axis)
{
    int64_t x = r;
    for (int i = P->g->ndims - 1; i > axis; i--)
        x /= P->g->dims[i];
    return x % P->g->dims[axis];
}

/* staircase (k, j, desc): k (descending or not), then j, then the other
 * axes in index order */
static int plain_cmp(const void *x, const void *y)
{
    const struct plain *P = plain_now;
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < P->g->ndims; i++) {
            if (pass == 0 ? i != P->k : pass == 1 ? i != P->j || P->j == P->k : i == P->k || i == P->j)
                continue;
            int64_t ca = plain_coord(P, a, i), cb = plain_coord(P, b, i);
            if (ca != cb)
                return (pass == 0 && P->desc ? cb < ca : ca < cb) ? -1 : 1;
        }
    return 0;
}

/* The weight of every neighbour-list entry from cells[0, split) into the
 * rest (weights in quarters: exact in any order). */
static double plain_cut(struct plain *P, const int32_t *cells, int64_t n, int64_t split)
{
    for (int64_t i = 0; i < n; i++)
        P->side[cells[i]] = i >= split;
    double w = 0;
    for (int64_t i = 0; i < split; i++) {
        int m = smp_nbr_list(&P->nb, cells[i], P->t, P->w);
        for (int e = 0; e < m; e++)
            if (P->side[P->t[e]] == 1)
                w += P->w[e];
    }
    for (int64_t i = 0; i < n; i++)
        P->side[cells[i]] = 0;
    return w;
}

static void plain_order(struct plain *P, int32_t *cells, int64_t n, int k, int j, int desc)
{
    P->k = k, P->j = j, P->desc = desc;
    plain_now = P;
    qsort(cells, (size_t)n, sizeof(int32_t), plain_cmp);
}

/* Bisects cells (n of them) over nodes [a, b) as alg_bisect.c's comment
 * says: every (k, j, direction) and the node splits mid - 1 .. mid + 1,
 * the least weight kept, as cheap and nearer the middle on a tie. */
static void plain_bisect(struct plain *P, int32_t *cells, int64_t n, int a, int b)
{
    if (b - a == 1) {
        for (int64_t i = 0; i < n; i++)
            P->node_of_rank[cells[i]] = a;
        return;
    }
    int d = P->g->ndims, mid = a + 1;
    int64_t half2 = P->prefix[a] + P->prefix[b], mn[SMP_MAX_DIMS], mx[SMP_MAX_DIMS];
    for (int m = a + 1; m < b; m++)
        if (llabs(2 * P->prefix[m] - half2) < llabs(2 * P->prefix[mid] - half2))
            mid = m;
    for (int i = 0; i < d; i++) {
        mn[i] = INT64_MAX, mx[i] = -1;
        for (int64_t c = 0; c < n; c++) {
            int64_t x = plain_coord(P, cells[c], i);
            mn[i] = x < mn[i] ? x : mn[i];
            mx[i] = x > mx[i] ? x : mx[i];
        }
    }
    double best = -1;
    int bk = 0, bj = 0, bm = mid, bd = 0;
    for (int k = 0; k < d; k++)
        for (int j = 0; j < d && mx[k] > mn[k]; j++)
            for (int desc = 0; desc < 2 && !((j == k && d > 1) || (j != k && mx[j] == mn[j]));
                 desc++) {
                plain_order(P, cells, n, k, j, desc);
                for (int m = mid - 1; m <= mid + 1; m++) {
                    if (m <= a || m >= b)
                        continue;
                    double w = plain_cut(P, cells, n, P->prefix[m] - P->prefix[a]);
                    if (best < 0 || w < best || (w == best && abs(m - mid) < abs(bm - mid)))
                        best = w, bk = k, bj = j, bm = m, bd = desc;
                }
            }
    if (best >= 0)
        plain_order(P, cells, n, bk, bj, bd);
    int64_t split = P->prefix[bm] - P->prefix[a];
    plain_bisect(P, cells, split, a, bm);
    plain_bisect(P, cells + split, n - split, bm, b);
}

/* bisect against the plain search on random instances (1-4 dimensions,
 * periodic or not, families and random stencils, weighted or not, equal
 * and uneven nodes): the same node for every rank. */
static void test_bisect_plain_search(void **state)
{
    (void)state;
    tu_rng rng = {36};
    for (int trial = 0; trial < 300; trial++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int nnodes;
        char what[300];
        smp_error err;
        tu_random_instance(&rng, &g, &st, &slots, &nnodes, what, sizeof(what));
        size_t p = (size_t)g.size;
        int used = 0;
        int64_t left = g.size, *prefix = malloc(sizeof(int64_t) * ((size_t)nnodes + 1));
        int32_t *cap = malloc(sizeof(int32_t) * (size_t)nnodes), *fast = malloc(sizeof(int32_t) * p);
        int32_t *cells = malloc(sizeof(int32_t) * p), *ref = malloc(sizeof(int32_t) * p);
        struct plain P = {.g = &g, .prefix = prefix, .node_of_rank = ref, .side = calloc(p, 1)};
        assert_true(prefix && cap && fast && cells && ref && P.side);
        for (prefix[0] = 0; used < nnodes && left > 0; used++) {
            cap[used] = (int32_t)(left < slots[used] ? left : slots[used]);
            left -= cap[used];
            prefix[used + 1] = prefix[used] + cap[used];
        }
        assert_ok(smp_place_bisect(&g, &st, cap, used, fast, &err), err);
        assert_ok(smp_nbr_init(&P.nb, &g, &st, &err), err);
        P.t = malloc(sizeof(int64_t) * (size_t)P.nb.nk);
        P.w = malloc(sizeof(double) * (size_t)P.nb.nk);
        assert_true(P.t && P.w);
        for (size_t r = 0; r < p; r++)
            cells[r] = (int32_t)r;
        plain_bisect(&P, cells, g.size, 0, used);
        for (size_t r = 0; r < p; r++)
            if (fast[r] != ref[r])
                fail_msg("%s: rank %zu on node %d, the plain search's %d", what, r, fast[r], ref[r]);
        smp_nbr_free(&P.nb);
        free(P.t), free(P.w), free(P.side), free(prefix), free(cap), free(fast), free(cells);
        free(ref), free(slots);
        smp_stencil_free(&st);
    }
}

/* Parts of a random grid, many of them translated copies: row-major
 * chunks of one size (tails and all) or boxes of one shape (smaller ones
 * at the far ends); part q on k nodes, its size shared out evenly with
 * the remainder first, so equal sizes have equal capacities.  Returns
 * the number of nodes. */
static int copies_instance(tu_rng *rng, const smp_grid *g, int32_t *part, int32_t *first,
                           int32_t *cap, int *nparts)
{
    int d = g->ndims, k = (int)tu_range(rng, 2, 7);
    int64_t size = g->size, box[SMP_MAX_DIMS], chunk = tu_range(rng, 2 * k, size / 3 + 2 * k);
    bool boxes = tu_range(rng, 0, 1);
    for (int i = 0; i < d; i++)
        box[i] = tu_range(rng, 1, g->dims[i]);
    int np = 0;
    int64_t x[SMP_MAX_DIMS] = {0}, *count = calloc((size_t)size, sizeof(int64_t));
    assert_non_null(count);
    for (int64_t r = 0; r < size; r++) {
        int64_t q = boxes ? 0 : r / chunk;
        for (int i = 0; boxes && i < d; i++)
            q = q * ((g->dims[i] + box[i] - 1) / box[i]) + x[i] / box[i];
        part[r] = (int32_t)q;
        count[q]++;
        for (int i = d - 1; i >= 0 && ++x[i] == g->dims[i]; i--)
            x[i] = 0;
    }
    int nodes = 0;
    for (int64_t q = 0; q < size && count[q] > 0; q++, np++) {
        int kk = count[q] < k ? (int)count[q] : k;
        first[q] = nodes;
        for (int i = 0; i < kk; i++)
            cap[nodes++] = (int32_t)(count[q] / kk + (i < count[q] % kk));
    }
    first[np] = nodes;
    *nparts = np;
    free(count);
    return nodes;
}

/* Bisection inside parts splits a part that is a translated copy of an
 * earlier one as the earlier one, moved (alg_bisect.c); with weights the
 * search runs on every part.  All weights 2 double every cut and keep
 * every comparison, so that search must give the copies' splits: the
 * same node for every rank, by bisection and by coordinate bisection,
 * on grids non-periodic (copies taken) and periodic (copies only along
 * the other axes). */
static void test_bisect_copies(void **state)
{
    (void)state;
    tu_rng rng = {4891};
    const char *fams[] = {"nearest", "hops", "diagonal", "component"};
    for (int trial = 0; trial < 200; trial++) {
        smp_error err;
        smp_grid g;
        smp_stencil st, st2;
        int d = (int)tu_range(&rng, 2, 3);
        int64_t dims[SMP_MAX_DIMS];
        bool per[SMP_MAX_DIMS];
        for (int i = 0; i < d; i++) {
            dims[i] = tu_range(&rng, 3, d == 2 ? 30 : 12);
            per[i] = trial % 4 == 3 && tu_range(&rng, 0, 1);
        }
        assert_ok(smp_grid_init(&g, d, dims, per, &err), err);
        assert_ok(smp_stencil_family(&st, fams[tu_range(&rng, 0, 3)], d, &err), err);
        double w2[64];
        for (int i = 0; i < st.count; i++)
            w2[i] = 2.0;
        assert_ok(smp_stencil_init(&st2, d, st.count, st.offsets, w2, "stencil", &err), err);
        size_t p = (size_t)g.size;
        int32_t *part = malloc(sizeof(int32_t) * p), *first = malloc(sizeof(int32_t) * (p + 1));
        int32_t *cap = malloc(sizeof(int32_t) * p), *a = malloc(sizeof(int32_t) * p);
        int32_t *b = malloc(sizeof(int32_t) * p);
        assert_true(part && first && cap && a && b);
        int nparts, n = copies_instance(&rng, &g, part, first, cap, &nparts);
        for (int axis = -2; axis < d; axis++) {
            if (axis == -2) {
                assert_ok(smp_bisect_within(&g, &st, cap, n, part, first, nparts, a, &err), err);
                assert_ok(smp_bisect_within(&g, &st2, cap, n, part, first, nparts, b, &err), err);
            } else {
                assert_ok(smp_rcb_within(&g, &st, cap, n, part, first, nparts, axis, a, &err), err);
                assert_ok(smp_rcb_within(&g, &st2, cap, n, part, first, nparts, axis, b, &err), err);
            }
            tu_assert_shares("copies", a, g.size, cap, n);
            for (size_t r = 0; r < p; r++)
                if (a[r] != b[r])
                    fail_msg("trial %d (%s, axis %d): rank %zu on node %d, the search's %d", trial,
                             st.name, axis, r, a[r], b[r]);
        }
        free(part), free(first), free(cap), free(a), free(b);
        smp_stencil_free(&st);
        smp_stencil_free(&st2);
    }
}

/* 1 node of 600 ranks among 400 nodes of 1 and back: deep, uneven splits. */
static void test_bisect_uneven(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {40, 25};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "hops", 2, &err), err);
    int n = 401;
    int32_t *cap = malloc(sizeof(int32_t) * (size_t)n), *pl = malloc(sizeof(int32_t) * 1000);
    assert_non_null(cap);
    assert_non_null(pl);
    for (int order = 0; order < 3; order++) {
        for (int i = 0; i < n; i++)
            cap[i] = 1;
        cap[order == 0 ? 0 : order == 1 ? n - 1 : n / 2] = 600;
        assert_ok(smp_place_bisect(&g, &st, cap, n, pl, &err), err);
        tu_assert_shares("bisect uneven", pl, 1000, cap, n);
    }
    free(cap);
    free(pl);
    smp_stencil_free(&st);
}

/* A 12x12 grid on 4 nodes of 36 with 5 points: bisect must find the 6x6
 * quadrants (J_sum 48); with a stencil that only talks along x it must
 * cut only across y (J_sum 0). */
static void test_bisect_follows_stencil(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {12, 12};
    int32_t cap[4] = {36, 36, 36, 36}, pl[144];
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    assert_ok(smp_place_bisect(&g, &st, cap, 4, pl, &err), err);
    tu_assert_shares("bisect 12x12", pl, 144, cap, 4);
    smp_score sc;
    assert_ok(smp_score_compute(&g, &st, pl, 4, &sc, &err), err);
    assert_int_equal(sc.j_sum, 48);
    smp_stencil_free(&st);
    int32_t offs[] = {1, 0, -1, 0};
    assert_ok(smp_stencil_init(&st, 2, 2, offs, NULL, "stencil", &err), err);
    assert_ok(smp_place_bisect(&g, &st, cap, 4, pl, &err), err);
    assert_ok(smp_score_compute(&g, &st, pl, 4, &sc, &err), err);
    assert_int_equal(sc.j_sum, 0);
    smp_stencil_free(&st);
}

static void test_bisect_random(void **state)
{
    (void)state;
    tu_rng rng = {99};
    for (int trial = 0; trial < 1500; trial++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int nnodes;
        char what[300];
        smp_error err;
        tu_random_instance(&rng, &g, &st, &slots, &nnodes, what, sizeof(what));
        smp_placement pl;
        assert_ok(smp_plan(&g, &st, slots, nnodes, SMP_ALG_BISECT, &pl, &err), err);
        int32_t *cap = calloc((size_t)nnodes, sizeof(int32_t));
        assert_non_null(cap);
        int64_t left = g.size;
        for (int i = 0; i < nnodes && left > 0; i++) {
            cap[i] = (int32_t)(left < slots[i] ? left : slots[i]);
            left -= cap[i];
        }
        tu_assert_shares(what, pl.node_of_rank, g.size, cap, nnodes);
        tu_score ref;
        tu_brute_score(g.ndims, g.dims, g.periods, st.count, st.offsets, st.weights, pl.node_of_rank, nnodes,
                       &ref);
        assert_int_equal(ref.j_sum, pl.score.j_sum);
        assert_int_equal(ref.j_max, pl.score.j_max);
        /* fold: whenever the stencil leaves an axis out, every construction
         * on every folded grid keeps the shares too */
        bool zero[SMP_MAX_DIMS];
        if (smp_fold_zero_axes(&g, &st, zero) > 0) {
            int32_t *fp = malloc(sizeof(int32_t) * (size_t)g.size);
            int used = 0;
            while (used < nnodes && cap[used] > 0)
                used++;
            assert_non_null(fp);
            for (int ax = 0; ax < g.ndims; ax++) {
                if (zero[ax]) {
                    assert_err(smp_place_folded(smp_place_strips, &g, &st, cap, used, ax, fp, &err),
                               SMP_ERR_INPUT, err, "fold");
                    continue;
                }
                assert_ok(smp_place_folded(smp_place_bisect, &g, &st, cap, used, ax, fp, &err), err);
                tu_assert_shares(what, fp, g.size, cap, used);
                assert_ok(smp_place_folded(smp_place_hyperplane, &g, &st, cap, used, ax, fp, &err), err);
                tu_assert_shares(what, fp, g.size, cap, used);
            }
            free(fp);
        }
        free(cap);
        smp_placement_free(&pl);
        free(slots);
        smp_stencil_free(&st);
    }
}

/* 2-D component (offsets along x only): paths of a = dims[0] ranks.  The
 * optimum is 2 (N - ab / lcm(a, n)) (tests/bench/bench_paper.c has the
 * argument); blocked on the folded grid reaches it and so must auto. */
static void test_fold_component_optimum(void **state)
{
    (void)state;
    smp_error err;
    for (int64_t a = 5; a <= 14; a++)
        for (int64_t b = 2; b <= 9; b++)
            for (int n = 3; n <= 17; n++) {
                if ((a * b) % n)
                    continue;
                int N = (int)(a * b / n);
                smp_grid g;
                smp_stencil st;
                int64_t dims[2] = {a, b};
                assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
                assert_ok(smp_stencil_family(&st, "component", 2, &err), err);
                int32_t *slots = malloc(sizeof(int32_t) * (size_t)N);
                assert_non_null(slots);
                for (int i = 0; i < N; i++)
                    slots[i] = n;
                int64_t x = a, y = n;
                while (y) {
                    int64_t t = x % y;
                    x = y;
                    y = t;
                }
                int64_t opt = 2 * (N - a * b / (a / x * n));
                smp_placement pl;
                assert_ok(smp_plan(&g, &st, slots, N, SMP_ALG_AUTO, &pl, &err), err);
                if (pl.score.j_sum != opt)
                    fail_msg("component %lldx%lld, %d nodes of %d: auto %lld, optimum %lld", (long long)a,
                             (long long)b, N, n, (long long)pl.score.j_sum, (long long)opt);
                smp_placement_free(&pl);
                free(slots);
                smp_stencil_free(&st);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bisect_uneven),
        cmocka_unit_test(test_bisect_follows_stencil),
        cmocka_unit_test(test_bisect_random),
        cmocka_unit_test(test_fold_component_optimum),
        cmocka_unit_test(test_bisect_plain_search),
        cmocka_unit_test(test_bisect_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
