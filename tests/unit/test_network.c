/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The link model (placement/network/): L_max and its bound against a
 * brute-force reference written here, which routes every stencil message
 * explicitly over named links (a node's link up and down, a group's k
 * uplinks and downlinks at each level; adaptive routing as a message split
 * into k equal parts; direct routing over the k named links of every
 * ordered pair of groups, a message split over them), and against the scale bench's own re-statement of
 * SimGrid's routing (contrib/bench/scale/linkload.py) on one case, and
 * off the node graph against the walk;
 * auto planning by it; and the block swaps (network/block_swaps.c). */
#include <math.h>

#include "network/network.h"
#include "unit_util.h"

#define MAXK 8 /* the most uplinks per group of any case */

/* The reference's links: [node][dir] and [level][group][index][dir]. */
struct ref {
    int nnodes, nl, ngroups[SMP_MAX_LEVELS];
    double *node;                 /* nnodes * 2 */
    double *grp[SMP_MAX_LEVELS];  /* ngroups * MAXK * 2 */
    double *pair[SMP_MAX_LEVELS]; /* direct: ngroups * ngroups * MAXK, [from][to][index] */
};

/* Positions leaf by leaf, counted the slow way: the nodes of leaves that
 * appear earlier, then this leaf's nodes before n. */
static int32_t ref_position(const smp_levels *lv, int n)
{
    if (!lv || lv->nlevels == 0)
        return n;
    const int32_t *leaf = lv->group_of_node[0];
    int first_n = 0;
    while (leaf[first_n] != leaf[n])
        first_n++;
    int32_t p = 0;
    for (int m = 0; m < lv->nnodes; m++) {
        int first_m = 0;
        while (leaf[first_m] != leaf[m])
            first_m++;
        if (first_m < first_n || (leaf[m] == leaf[n] && m < n))
            p++;
    }
    return p;
}

static int ref_k(const smp_links *lk, int l, int g)
{
    return lk && lk->uplinks[l] ? lk->uplinks[l][g] : 1;
}

static double ref_speed(const smp_links *lk, int l, int g)
{
    return lk && lk->speed[l] ? lk->speed[l][g] : 1.0;
}

/* Adds w to link idx of group g's links at level l in direction dir (or
 * w/k to each of them when adaptive). */
static void ref_add(struct ref *R, const smp_links *lk, int l, int g, int idx, int dir, double w)
{
    int k = ref_k(lk, l, g);
    bool adaptive = lk && lk->routing == SMP_ROUTING_ADAPTIVE;
    for (int i = 0; i < k; i++)
        if (adaptive || i == idx)
            R->grp[l][((size_t)g * MAXK + (size_t)i) * 2 + (size_t)dir] +=
                (adaptive ? w / k : w) / ref_speed(lk, l, g);
}

/* Direct routing: a -> b on the links between their groups at the
 * coarsest level where they differ (below it their groups share no
 * parent), found from the top down. */
static void ref_route_direct(struct ref *R, const smp_levels *lv, const smp_links *lk, int a,
                             int b, double w)
{
    for (int l = R->nl - 1; l >= 0; l--) {
        int ga = lv->group_of_node[l][a], gb = lv->group_of_node[l][b];
        if (ga == gb)
            continue;
        int k = ref_k(lk, l, ga);
        for (int i = 0; i < k; i++)
            R->pair[l][((size_t)ga * (size_t)R->ngroups[l] + (size_t)gb) * MAXK + (size_t)i] +=
                w / k / ref_speed(lk, l, ga);
        return;
    }
}

/* One message a -> b routed hop by hop. */
static void ref_route(struct ref *R, const smp_levels *lv, const smp_links *lk, int a, int b,
                      double w)
{
    R->node[a * 2 + 0] += w;
    R->node[b * 2 + 1] += w;
    if (lk && lk->routing == SMP_ROUTING_DIRECT) {
        ref_route_direct(R, lv, lk, a, b, w);
        return;
    }
    int32_t pb = ref_position(lv, b);
    for (int l = 0; l < R->nl; l++) {
        int ga = lv->group_of_node[l][a], gb = lv->group_of_node[l][b];
        if (ga == gb)
            break;
        int64_t su = 1, sd = 1; /* d-mod-k strides: uplink counts below, each side */
        for (int m = 0; m < l; m++) {
            su *= ref_k(lk, m, lv->group_of_node[m][a]);
            sd *= ref_k(lk, m, lv->group_of_node[m][b]);
        }
        ref_add(R, lk, l, ga, (int)((pb / su) % ref_k(lk, l, ga)), 0, w);
        ref_add(R, lk, l, gb, (int)((pb / sd) % ref_k(lk, l, gb)), 1, w);
    }
}

/* Every message of one exchange, coordinates walked naively (row-major). */
static void ref_loads(const smp_grid *g, const smp_stencil *st, const int32_t *pl,
                      const smp_levels *lv, const smp_links *lk, struct ref *R)
{
    for (int64_t r = 0; r < g->size; r++) {
        int64_t c[SMP_MAX_DIMS], rest = r;
        for (int i = g->ndims - 1; i >= 0; i--) {
            c[i] = rest % g->dims[i];
            rest /= g->dims[i];
        }
        for (int k = 0; k < st->count; k++) {
            int64_t t = 0;
            bool inside = true;
            for (int i = 0; i < g->ndims && inside; i++) {
                int64_t x = c[i] + st->offsets[k * g->ndims + i];
                if ((x < 0 || x >= g->dims[i]) && !g->periods[i])
                    inside = false;
                x = ((x % g->dims[i]) + g->dims[i]) % g->dims[i];
                t = t * g->dims[i] + x;
            }
            if (inside && pl[t] != pl[r])
                ref_route(R, lv, lk, pl[r], pl[t], st->weights ? st->weights[k] : 1.0);
        }
    }
}

/* The reference's L_max, bound (the node links, each group's traffic
 * over its k links) and busiest link above the nodes, then its arrays
 * freed. */
static void ref_result(struct ref *R, const smp_links *lk, double *lmax, double *bound, double *up)
{
    *lmax = *bound = *up = 0;
    for (int i = 0; i < R->nnodes * 2; i++)
        *lmax = *bound = fmax(*lmax, R->node[i]);
    for (int l = 0; l < R->nl; l++)
        for (int g = 0; g < R->ngroups[l]; g++)
            for (int dir = 0; dir < 2; dir++) {
                double sum = 0;
                for (int i = 0; i < MAXK; i++) {
                    double v = R->grp[l][((size_t)g * MAXK + (size_t)i) * 2 + (size_t)dir];
                    *lmax = fmax(*lmax, v);
                    *up = fmax(*up, v);
                    sum += v;
                }
                *bound = fmax(*bound, sum / ref_k(lk, l, g));
            }
    /* direct: every pair's links; the bound its traffic over their count */
    for (int l = 0; l < R->nl; l++)
        for (int p = 0; p < R->ngroups[l] * R->ngroups[l]; p++) {
            double sum = 0;
            for (int i = 0; i < MAXK; i++) {
                double v = R->pair[l][(size_t)p * MAXK + (size_t)i];
                *lmax = fmax(*lmax, v);
                *up = fmax(*up, v);
                sum += v;
            }
            *bound = fmax(*bound, sum / ref_k(lk, l, p / R->ngroups[l]));
        }
    free(R->node);
    for (int l = 0; l < R->nl; l++) {
        free(R->grp[l]);
        free(R->pair[l]);
    }
}

static void reference(const smp_grid *g, const smp_stencil *st, const int32_t *pl, int n,
                      const smp_levels *lv, const smp_links *lk, double *lmax, double *bound,
                      double *up)
{
    struct ref R = {.nnodes = n, .nl = lv ? lv->nlevels : 0};
    R.node = calloc((size_t)n * 2, sizeof(double));
    assert_non_null(R.node);
    for (int l = 0; l < R.nl; l++) {
        R.ngroups[l] = lv->ngroups[l];
        R.grp[l] = calloc((size_t)lv->ngroups[l] * MAXK * 2, sizeof(double));
        R.pair[l] = calloc((size_t)lv->ngroups[l] * (size_t)lv->ngroups[l] * MAXK, sizeof(double));
        assert_non_null(R.grp[l]);
        assert_non_null(R.pair[l]);
    }
    ref_loads(g, st, pl, lv, lk, &R);
    ref_result(&R, lk, lmax, bound, up);
}

/* 1 or 2 random nested levels over n nodes: leaves of random nodes, each
 * leaf under a random parent. */
static void random_levels(tu_rng *rng, int n, smp_levels *lv)
{
    memset(lv, 0, sizeof(*lv));
    lv->nnodes = n;
    lv->nlevels = n >= 4 && tu_range(rng, 0, 1) ? 2 : 1;
    lv->ngroups[0] = (int)tu_range(rng, 1, n);
    lv->group_of_node[0] = malloc(sizeof(int32_t) * (size_t)n);
    assert_non_null(lv->group_of_node[0]);
    for (int v = 0; v < n; v++)
        lv->group_of_node[0][v] = (int32_t)tu_range(rng, 0, lv->ngroups[0] - 1);
    if (lv->nlevels == 2) {
        int np = (int)tu_range(rng, 1, lv->ngroups[0]);
        int32_t *parent = malloc(sizeof(int32_t) * (size_t)lv->ngroups[0]);
        assert_non_null(parent);
        for (int g = 0; g < lv->ngroups[0]; g++)
            parent[g] = (int32_t)tu_range(rng, 0, np - 1);
        lv->ngroups[1] = np;
        lv->group_of_node[1] = malloc(sizeof(int32_t) * (size_t)n);
        assert_non_null(lv->group_of_node[1]);
        for (int v = 0; v < n; v++)
            lv->group_of_node[1][v] = parent[lv->group_of_node[0][v]];
        free(parent);
    }
}

static void random_links(tu_rng *rng, const smp_levels *lv, smp_links *lk)
{
    memset(lk, 0, sizeof(*lk));
    lk->routing = (smp_routing)tu_range(rng, 0, SMP_ROUTING_COUNT - 1);
    for (int l = 0; l < lv->nlevels; l++) {
        if (tu_range(rng, 0, 3) == 0)
            continue; /* NULL: one link of speed 1 each */
        lk->uplinks[l] = malloc(sizeof(int32_t) * (size_t)lv->ngroups[l]);
        lk->speed[l] = malloc(sizeof(double) * (size_t)lv->ngroups[l]);
        assert_non_null(lk->uplinks[l]);
        assert_non_null(lk->speed[l]);
        for (int g = 0; g < lv->ngroups[l]; g++) {
            lk->uplinks[l][g] = (int32_t)tu_range(rng, 1, 5);
            lk->speed[l][g] = (double)tu_range(rng, 1, 8) / 4.0;
        }
    }
}

static void assert_near(const char *what, const char *name, double got, double want)
{
    if (!tu_close(got, want))
        fail_msg("%s: %s %.12g, the reference %.12g", what, name, got, want);
}

/* A random instance with random levels and links over its nodes, as the
 * tests of auto by the links and of the swaps draw them. */
struct net_case {
    smp_grid g;
    smp_stencil st;
    int32_t *slots;
    int n;
    smp_levels lv;
    smp_links lk;
    char what[256];
};

static void net_case_random(tu_rng *rng, struct net_case *c)
{
    tu_random_instance(rng, &c->g, &c->st, &c->slots, &c->n, c->what, sizeof(c->what));
    random_levels(rng, c->n, &c->lv);
    random_links(rng, &c->lv, &c->lk);
}

static void net_case_free(struct net_case *c)
{
    smp_links_free(&c->lk);
    smp_levels_free(&c->lv);
    free(c->slots);
    smp_stencil_free(&c->st);
}

/* smp_link_score_quotient of pl's node graph, its nodes renamed by a
 * random permutation, against the walk of the renamed placement. */
static void check_quotient_score(tu_rng *rng, const char *what, const smp_grid *g,
                                 const smp_stencil *st, const int32_t *pl, int n,
                                 const smp_levels *lv, const smp_links *lk)
{
    smp_error err;
    int32_t *phys = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *moved = malloc(sizeof(int32_t) * (size_t)g->size);
    assert_true(phys && moved);
    tu_random_permutation(rng, n, phys);
    for (int64_t r = 0; r < g->size; r++)
        moved[r] = phys[pl[r]];
    smp_quotient q;
    assert_ok(smp_quotient_build(g, st, pl, n, &q, &err), err);
    smp_link_score walk, off;
    assert_ok(smp_link_score_compute(g, st, moved, n, lv, lk, &walk, &err), err);
    assert_ok(smp_link_score_quotient(&q, phys, lv, lk, &off, &err), err);
    if (walk.l_max != off.l_max || walk.bound != off.bound || walk.up_max != off.up_max ||
        walk.node_max != off.node_max || walk.level != off.level || walk.where != off.where ||
        walk.down != off.down || walk.to != off.to)
        fail_msg("%s: off the node graph L_max %.12g at %d/%d, bound %.12g; the walk %.12g at "
                 "%d/%d, bound %.12g",
                 what, off.l_max, off.level, (int)off.where, off.bound, walk.l_max, walk.level,
                 (int)walk.where, walk.bound);
    smp_quotient_free(&q);
    free(phys);
    free(moved);
}

static void test_link_score_reference(void **state)
{
    (void)state;
    tu_rng rng = {3601};
    smp_error err;
    for (int it = 0; it < 200; it++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int n;
        char what[256];
        tu_random_instance(&rng, &g, &st, &slots, &n, what, sizeof(what));
        int32_t *cap = tu_shares_of(slots, n, g.size);
        int32_t *pl = malloc(sizeof(int32_t) * (size_t)g.size);
        assert_non_null(pl);
        tu_random_placement(&rng, cap, n, g.size, pl);
        smp_levels lv;
        smp_links lk;
        random_levels(&rng, n, &lv);
        random_links(&rng, &lv, &lk);
        smp_link_score ls;
        assert_ok(smp_link_score_compute(&g, &st, pl, n, &lv, &lk, &ls, &err), err);
        double lmax, bound, up;
        reference(&g, &st, pl, n, &lv, &lk, &lmax, &bound, &up);
        assert_near(what, "L_max", ls.l_max, lmax);
        assert_near(what, "bound", ls.bound, bound);
        assert_near(what, "busiest link above the nodes", ls.up_max, up);
        assert_true(ls.bound <= ls.l_max * (1 + 1e-12));
        if (lk.routing == SMP_ROUTING_ADAPTIVE || lk.routing == SMP_ROUTING_DIRECT)
            assert_near(what, "L_max against its bound", ls.l_max, ls.bound);
        /* a busiest pair link names its far group, any other link none */
        if (lk.routing == SMP_ROUTING_DIRECT && ls.level >= 0) {
            assert_true(ls.to >= 0 && ls.to < lv.ngroups[ls.level] && ls.to != ls.where);
        } else {
            assert_int_equal(ls.to, -1);
        }
        /* without weights, under static or adaptive routing, off the node
         * graph with the nodes renamed: the walk's figures to the bit */
        if (!st.weights && lk.routing != SMP_ROUTING_DIRECT)
            check_quotient_score(&rng, what, &g, &st, pl, n, &lv, &lk);
        /* the node links alone: what J_max and the figures in stay */
        smp_link_score bare;
        assert_ok(smp_link_score_compute(&g, &st, pl, n, NULL, NULL, &bare, &err), err);
        reference(&g, &st, pl, n, NULL, NULL, &lmax, &bound, &up);
        assert_near(what, "L_max without levels", bare.l_max, lmax);
        assert_near(what, "node links", ls.node_max, bare.l_max);
        smp_links_free(&lk);
        smp_levels_free(&lv);
        free(pl);
        free(cap);
        free(slots);
        smp_stencil_free(&st);
    }
}

/* The scale bench's case 4k-3d-7pt-16 on its tapered fat-tree (SimGrid
 * FAT_TREE "2;32,32;1,8;1,1": 32 hosts per leaf, 8 uplinks per leaf,
 * d-mod-k), 256 hosts host0..host255 of 16 ranks.  The figures are
 * linkload.py's, which re-states SimGrid's routing independently:
 *   platforms.py DIR; stencil-map plan SPEC --nodes 'host[0-255]'
 *   --slots 16 --topology none --hostfile H (SPEC: dims 16,16,16, 7pt,
 *   the algorithm); linkload.py DIR/fattree-tapered.xml H --dims 16,16,16
 *   --stencil 7pt --cross 0
 * blocked 64 (a host's link), nodecart 40 (a spine's link down to a
 * leaf, and as many on a host's link), random 357 (a leaf's uplink). */
static void test_link_score_scale_bench(void **state)
{
    (void)state;
    static const struct {
        smp_algorithm alg;
        double linkload;
        int level; /* where linkload.py's busiest link is: -1 a host's, 0 a leaf's, -2 both */
    } want[] = {{SMP_ALG_BLOCKED, 64, -1}, {SMP_ALG_NODECART, 40, -2}, {SMP_ALG_RANDOM, 357, 0}};
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[3] = {16, 16, 16};
    assert_ok(smp_grid_init(&g, 3, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 3, &err), err);
    enum { N = 256 };
    int32_t slots[N], leaf[N], k[N / 32];
    for (int n = 0; n < N; n++) {
        slots[n] = 16;
        leaf[n] = n / 32;
    }
    for (int l = 0; l < N / 32; l++)
        k[l] = 8;
    smp_levels lv = {.nlevels = 1, .nnodes = N, .ngroups = {N / 32}, .group_of_node = {leaf}};
    smp_links lk = {.routing = SMP_ROUTING_STATIC, .uplinks = {k}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        smp_placement pl;
        assert_ok(smp_plan(&g, &st, slots, N, want[i].alg, &pl, &err), err);
        smp_link_score ls, ad;
        assert_ok(smp_link_score_compute(&g, &st, pl.node_of_rank, N, &lv, &lk, &ls, &err), err);
        if (fabs(ls.l_max - want[i].linkload) > 1e-9 ||
            (want[i].level != -2 && ls.level != want[i].level))
            fail_msg("%s: L_max %g at level %d, linkload.py %g at level %d",
                     smp_algorithm_name(want[i].alg), ls.l_max, ls.level, want[i].linkload,
                     want[i].level);
        double lmax, bound, up;
        reference(&g, &st, pl.node_of_rank, N, &lv, &lk, &lmax, &bound, &up);
        assert_near(smp_algorithm_name(want[i].alg), "up_max", ls.up_max, up);
        assert_near(smp_algorithm_name(want[i].alg), "bound", ls.bound, bound);
        /* adaptive routing reaches the bound, never above static */
        lk.routing = SMP_ROUTING_ADAPTIVE;
        assert_ok(smp_link_score_compute(&g, &st, pl.node_of_rank, N, &lv, &lk, &ad, &err), err);
        lk.routing = SMP_ROUTING_STATIC;
        assert_near(smp_algorithm_name(want[i].alg), "adaptive", ad.l_max, ls.bound);
        assert_true(ad.l_max <= ls.l_max);
        smp_placement_free(&pl);
    }
    smp_stencil_free(&st);
}

/* auto told the levels and links keeps the least L_max of its candidates:
 * never above either levels mode's plan nor any construction's; without
 * levels the links change nothing. */
static void test_plan_by_links(void **state)
{
    (void)state;
    tu_rng rng = {3602};
    smp_error err;
    for (int it = 0; it < 40; it++) {
        struct net_case nc;
        net_case_random(&rng, &nc);
        smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .effort = 1,
                           .levels = &nc.lv, .links = &nc.lk};
        smp_placement best;
        smp_status s = smp_plan_with(&nc.g, &nc.st, nc.slots, nc.n, &o, &best, &err);
        if (s == SMP_ERR_INFEASIBLE)
            goto next;
        assert_int_equal(s, SMP_OK);
        assert_true(best.by_links);
        for (int k = 0; k < 2 + SMP_ALG_COUNT; k++) {
            smp_plan_opts c = o;
            if (k < 2)
                c.levels_mode = k ? SMP_LEVELS_GROUPS_FIRST : SMP_LEVELS_NODES_FIRST;
            else if ((c.algorithm = (smp_algorithm)(k - 2)) == SMP_ALG_AUTO ||
                     c.algorithm == SMP_ALG_CYCLIC || c.algorithm == SMP_ALG_RANDOM)
                continue;
            smp_placement other;
            if (smp_plan_with(&nc.g, &nc.st, nc.slots, nc.n, &c, &other, &err))
                continue; /* nodecart on nodes it cannot use */
            if (other.link.l_max < best.link.l_max * (1 - 1e-9))
                fail_msg("%s: auto by the links %g, candidate %d %g", nc.what, best.link.l_max, k,
                         other.link.l_max);
            smp_placement_free(&other);
        }
        /* no levels: the links do not change the plan */
        smp_plan_opts a = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .effort = 1};
        smp_plan_opts b = a;
        b.links = &nc.lk;
        smp_placement pa, pb;
        assert_ok(smp_plan_with(&nc.g, &nc.st, nc.slots, nc.n, &a, &pa, &err), err);
        assert_ok(smp_plan_with(&nc.g, &nc.st, nc.slots, nc.n, &b, &pb, &err), err);
        assert_memory_equal(pa.node_of_rank, pb.node_of_rank, sizeof(int32_t) * (size_t)nc.g.size);
        assert_false(pb.by_links);
        smp_placement_free(&pa);
        smp_placement_free(&pb);
        smp_placement_free(&best);
    next:
        net_case_free(&nc);
    }
}

/* A site's uplink speeds: the list's syntax (plain decimals, 0 < S <=
 * 1000, 1 to 4 of them) and its place named when bad; every group of a
 * level set; and on the scale bench's tapered tree (as above) a quarter
 * speed makes blocked's busiest uplink carry 4 times the load, and auto
 * told it plans no worse under it than auto told nothing. */
static void test_link_speeds(void **state)
{
    (void)state;
    double v[SMP_MAX_LEVELS];
    int bad;
    assert_int_equal(smp_link_speeds_parse("0.25", v, &bad), 1);
    assert_true(v[0] == 0.25);
    assert_int_equal(smp_link_speeds_parse("1,2.5,.5,1000", v, &bad), 4);
    assert_true(v[0] == 1 && v[1] == 2.5 && v[2] == 0.5 && v[3] == 1000);
    static const struct {
        const char *text;
        int bad;
    } no[] = {{"", 1}, {"0", 1}, {"0.0", 1}, {"-1", 1}, {"+1", 1}, {"nan", 1}, {"inf", 1},
              {"1e2", 1}, {"0x10", 1}, {"1000.5", 1}, {"1..5", 1}, {".", 1}, {"1,", 2},
              {",1", 1}, {"1,,1", 2}, {"1,1,1,1,1", 5}, {"1, 2", 2}, {"0.5,fast", 2}};
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        bad = -1;
        if (smp_link_speeds_parse(no[i].text, v, &bad) != 0 || bad != no[i].bad)
            fail_msg("'%s': accepted or value %d named, not %d", no[i].text, bad, no[i].bad);
    }
    assert_int_equal(smp_link_speeds_parse(NULL, v, NULL), 0);

    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[3] = {16, 16, 16};
    assert_ok(smp_grid_init(&g, 3, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 3, &err), err);
    enum { N = 256 };
    int32_t slots[N], leaf[N], k[N / 32];
    for (int n = 0; n < N; n++) {
        slots[n] = 16;
        leaf[n] = n / 32;
    }
    for (int l = 0; l < N / 32; l++)
        k[l] = 8;
    smp_levels lv = {.nlevels = 1, .nnodes = N, .ngroups = {N / 32}, .group_of_node = {leaf}};
    smp_links fast = {.routing = SMP_ROUTING_STATIC}, slow = fast;
    fast.uplinks[0] = k;
    slow.uplinks[0] = k;
    double quarter[2] = {0.25, 3};
    assert_ok(smp_links_set_speeds(&slow, &lv, quarter, 2, &err), err); /* level 1: none */
    for (int grp = 0; grp < N / 32; grp++)
        assert_true(slow.speed[0][grp] == 0.25);
    assert_null(slow.speed[1]);
    smp_placement blk;
    smp_link_score a, b;
    assert_ok(smp_plan(&g, &st, slots, N, SMP_ALG_BLOCKED, &blk, &err), err);
    assert_ok(smp_link_score_compute(&g, &st, blk.node_of_rank, N, &lv, &fast, &a, &err), err);
    assert_ok(smp_link_score_compute(&g, &st, blk.node_of_rank, N, &lv, &slow, &b, &err), err);
    assert_near("blocked", "up_max at a quarter speed", b.up_max, 4 * a.up_max);
    assert_near("blocked", "node links at a quarter speed", b.node_max, a.node_max);
    smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .effort = 1,
                       .levels = &lv, .links = &fast};
    smp_placement told_not, told;
    assert_ok(smp_plan_with(&g, &st, slots, N, &o, &told_not, &err), err);
    o.links = &slow;
    assert_ok(smp_plan_with(&g, &st, slots, N, &o, &told, &err), err);
    smp_link_score blind;
    assert_ok(smp_link_score_compute(&g, &st, told_not.node_of_rank, N, &lv, &slow, &blind, &err),
              err);
    if (told.link.l_max > blind.l_max * (1 + 1e-9))
        fail_msg("auto told the quarter speed: L_max %g; told nothing, scored at it: %g",
                 told.link.l_max, blind.l_max);
    assert_true(told.link.l_max >= told.link.bound * (1 - 1e-12));
    smp_placement_free(&blk);
    smp_placement_free(&told_not);
    smp_placement_free(&told);
    free(slow.speed[0]);
    smp_stencil_free(&st);
}

static void test_link_score_errors(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {4, 4};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int32_t pl[16], leaf[4] = {0, 0, 1, 1}, k[2] = {2, 0};
    double sp[2] = {1, -1};
    for (int r = 0; r < 16; r++)
        pl[r] = r / 4;
    smp_levels lv = {.nlevels = 1, .nnodes = 4, .ngroups = {2}, .group_of_node = {leaf}};
    smp_links lk = {.routing = SMP_ROUTING_STATIC, .uplinks = {k}};
    smp_link_score ls;
    assert_err(smp_link_score_compute(&g, &st, pl, 4, &lv, &lk, &ls, &err), SMP_ERR_INPUT, err,
               "links.uplinks[0][1]");
    k[1] = 3;
    lk.speed[0] = sp;
    assert_err(smp_link_score_compute(&g, &st, pl, 4, &lv, &lk, &ls, &err), SMP_ERR_INPUT, err,
               "links.speed[0][1]");
    lk.speed[0] = NULL;
    pl[5] = 4;
    assert_err(smp_link_score_compute(&g, &st, pl, 4, &lv, &lk, &ls, &err), SMP_ERR_INPUT, err,
               "rank 5");
    pl[5] = 1;
    assert_err(smp_link_score_compute(&g, &st, pl, 3, &lv, &lk, &ls, &err), SMP_ERR_INPUT, err,
               "levels");
    lk.routing = (smp_routing)7;
    assert_err(smp_link_score_compute(&g, &st, pl, 4, &lv, &lk, &ls, &err), SMP_ERR_INPUT, err,
               "links.routing");
    smp_routing r;
    assert_true(smp_routing_from_name("adaptive", &r) && r == SMP_ROUTING_ADAPTIVE);
    assert_true(smp_routing_from_name("static", &r) && r == SMP_ROUTING_STATIC);
    assert_true(smp_routing_from_name("direct", &r) && r == SMP_ROUTING_DIRECT);
    assert_string_equal(smp_routing_name(SMP_ROUTING_DIRECT), "direct");
    assert_false(smp_routing_from_name("dmodk", &r));
    assert_string_equal(smp_routing_name(SMP_ROUTING_ADAPTIVE), "adaptive");
    smp_stencil_free(&st);
}

/* Ranks per node of a placement. */
static int32_t *ranks_per_node(const int32_t *pl, int64_t ranks, int n)
{
    int32_t *c = calloc((size_t)n, sizeof(int32_t));
    assert_non_null(c);
    for (int64_t r = 0; r < ranks; r++)
        c[pl[r]]++;
    return c;
}

/* swapped against before: J_sum, J_max (weighted too) equal, the score
 * the swaps carried over (sc) exactly a whole scoring's, every node
 * holding as many ranks, L_max never above, and the swaps' own L_max and
 * bound those of a whole smp_link_score_compute; *lmax the new L_max. */
static void check_swapped(const char *what, const smp_grid *g, const smp_stencil *st,
                          const int32_t *before, const int32_t *swapped, int n,
                          const smp_levels *lv, const smp_links *lk, const smp_swap_stats *ss,
                          const smp_score *sc, double *lmax)
{
    smp_error err;
    smp_score a, b;
    smp_link_score la, lb;
    assert_ok(smp_score_compute(g, st, before, n, &a, &err), err);
    assert_ok(smp_score_compute(g, st, swapped, n, &b, &err), err);
    assert_int_equal(a.j_sum, b.j_sum);
    assert_int_equal(a.j_max, b.j_max);
    assert_near(what, "w_sum", b.w_sum, a.w_sum);
    assert_near(what, "w_max", b.w_max, a.w_max);
    assert_int_equal(sc->j_sum, b.j_sum);
    assert_int_equal(sc->j_max, b.j_max);
    assert_int_equal(sc->j_max_node, b.j_max_node);
    assert_true(sc->w_sum == b.w_sum && sc->w_max == b.w_max);
    int32_t *ca = ranks_per_node(before, g->size, n), *cb = ranks_per_node(swapped, g->size, n);
    assert_memory_equal(ca, cb, sizeof(int32_t) * (size_t)n);
    free(ca);
    free(cb);
    assert_ok(smp_link_score_compute(g, st, before, n, lv, lk, &la, &err), err);
    assert_ok(smp_link_score_compute(g, st, swapped, n, lv, lk, &lb, &err), err);
    if (lb.l_max > la.l_max * (1 + 1e-9))
        fail_msg("%s: swaps raised L_max from %g to %g", what, la.l_max, lb.l_max);
    assert_near(what, "L_max after the swaps", ss->l_max_after, lb.l_max);
    /* never ending just above the node links (block_swaps.c's band): kept
     * swaps end at them or clear of them, dropped ones change nothing */
    if (ss->swaps && lb.l_max > lb.node_max * (1 + 1e-9) && lb.l_max < 1.05 * lb.node_max)
        fail_msg("%s: %lld swaps kept ending in the node links' band: L_max %g, node links %g",
                 what, (long long)ss->swaps, lb.l_max, lb.node_max);
    if (ss->swaps_dropped && memcmp(before, swapped, sizeof(int32_t) * (size_t)g->size))
        fail_msg("%s: %lld swaps dropped, yet the placement changed", what,
                 (long long)ss->swaps_dropped);
    if (ss->swaps || ss->trials) {
        assert_near(what, "L_max before the swaps", ss->l_max_before, la.l_max);
        assert_near(what, "the bound", ss->bound, la.bound);
    }
    *lmax = lb.l_max;
}

/* A tapered tree under static routing where hyperplane's L_max is above
 * its bound (3-D 7-point 12 x 12 x 8 on 72 nodes of 16 slots, leaves of 6
 * nodes with 2 uplinks): the swaps strictly lower L_max, keep the J
 * figures and every node's rank count, and cut the leaves no more; the
 * incremental loads agree with a whole scoring; twice gives the same
 * placement.  Under adaptive and direct routing they leave the placement
 * as it was. */
static void test_swaps_tapered(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[3] = {12, 12, 8};
    assert_ok(smp_grid_init(&g, 3, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 3, &err), err);
    enum { N = 72, LEAF = 6 };
    int32_t slots[N], leaf[N], k[N / LEAF];
    for (int n = 0; n < N; n++) {
        slots[n] = 16;
        leaf[n] = n / LEAF;
    }
    for (int l = 0; l < N / LEAF; l++)
        k[l] = 2;
    smp_levels lv = {.nlevels = 1, .nnodes = N, .ngroups = {N / LEAF}, .group_of_node = {leaf}};
    smp_links lk = {.routing = SMP_ROUTING_STATIC, .uplinks = {k}};
    smp_placement pl;
    assert_ok(smp_plan(&g, &st, slots, N, SMP_ALG_HYPERPLANE, &pl, &err), err);
    size_t bytes = sizeof(int32_t) * (size_t)g.size;
    int32_t *a = malloc(bytes), *b = malloc(bytes);
    assert_non_null(a);
    assert_non_null(b);
    smp_link_score ls;
    assert_ok(smp_link_score_compute(&g, &st, pl.node_of_rank, N, &lv, &lk, &ls, &err), err);
    if (!(ls.l_max > ls.bound * (1 + 1e-9)))
        fail_msg("hyperplane: L_max %g leaves no room above the bound %g", ls.l_max, ls.bound);
    memcpy(a, pl.node_of_rank, bytes);
    smp_swap_stats ss;
    smp_score sc;
    double lmax;
    assert_ok(smp_score_compute(&g, &st, a, N, &sc, &err), err);
    assert_ok(smp_swap_blocks(&g, &st, a, N, &lv, &lk, 1, &sc, &ss, &err), err);
    check_swapped("static", &g, &st, pl.node_of_rank, a, N, &lv, &lk, &ss, &sc, &lmax);
    if (!(ss.swaps > 0 && lmax < ls.l_max * (1 - 1e-9)))
        fail_msg("static: %lld swaps, L_max %g -> %g (bound %g)", (long long)ss.swaps, ls.l_max,
                 lmax, ls.bound);
    smp_score la, lb; /* the leaves' cut no larger */
    assert_ok(smp_levels_score_compute(&g, &st, pl.node_of_rank, N, &lv, &la, &err), err);
    assert_ok(smp_levels_score_compute(&g, &st, a, N, &lv, &lb, &err), err);
    assert_true(lb.j_sum <= la.j_sum);
    memcpy(b, pl.node_of_rank, bytes);
    assert_ok(smp_swap_blocks(&g, &st, b, N, &lv, &lk, 1, NULL, &ss, &err), err);
    assert_memory_equal(a, b, bytes);
    for (int r = SMP_ROUTING_ADAPTIVE; r <= SMP_ROUTING_DIRECT; r++) {
        lk.routing = (smp_routing)r;
        memcpy(b, pl.node_of_rank, bytes);
        assert_ok(smp_swap_blocks(&g, &st, b, N, &lv, &lk, 1, NULL, &ss, &err), err);
        assert_int_equal(ss.swaps, 0);
        assert_memory_equal(b, pl.node_of_rank, bytes);
    }
    free(a);
    free(b);
    smp_placement_free(&pl);
    smp_stencil_free(&st);
}

/* Random instances, levels and static links from random or constructed
 * placements: the swaps never raise L_max, keep the J figures and the rank
 * counts, and their incremental L_max is a whole scoring's. */
static void test_swaps_random(void **state)
{
    (void)state;
    tu_rng rng = {3604};
    for (int it = 0; it < 60; it++) {
        struct net_case nc;
        net_case_random(&rng, &nc);
        nc.lk.routing = SMP_ROUTING_STATIC;
        int32_t *cap = tu_shares_of(nc.slots, nc.n, nc.g.size);
        size_t bytes = sizeof(int32_t) * (size_t)nc.g.size;
        int32_t *before = malloc(bytes), *after = malloc(bytes);
        assert_non_null(before);
        assert_non_null(after);
        tu_start_placement(&rng, &nc.g, &nc.st, nc.slots, nc.n, cap, tu_range(&rng, 0, 1), false,
                           before);
        memcpy(after, before, bytes);
        smp_swap_stats ss;
        smp_score sc;
        smp_error err;
        double lmax;
        assert_ok(smp_score_compute(&nc.g, &nc.st, before, nc.n, &sc, &err), err);
        assert_ok(smp_swap_blocks(&nc.g, &nc.st, after, nc.n, &nc.lv, &nc.lk, 1, &sc, &ss, &err),
                  err);
        check_swapped(nc.what, &nc.g, &nc.st, before, after, nc.n, &nc.lv, &nc.lk, &ss, &sc,
                      &lmax);
        free(before);
        free(after);
        free(cap);
        net_case_free(&nc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_score_reference),
        cmocka_unit_test(test_link_score_scale_bench),
        cmocka_unit_test(test_plan_by_links),
        cmocka_unit_test(test_link_speeds),
        cmocka_unit_test(test_link_score_errors),
        cmocka_unit_test(test_swaps_tapered),
        cmocka_unit_test(test_swaps_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
