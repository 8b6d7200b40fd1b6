/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network levels above the nodes on paper 001's instances: the nodes
 * in groups of 2, 4 or 8 consecutive nodes (a short last group where N
 * does not divide) and in groups of alternating 3 and 5 nodes, as leaf
 * switches or blocks would hold them.  For each, the figures between
 * groups (J_sum, and J_max: the most edges leaving one group) and between
 * nodes, of
 *   - node-only: auto without levels (today's plan, objective max),
 *   - levelled:  auto on the levels (smp_plan_opts.levels, default mode),
 *   - the two ways apart (groups-first, nodes-first), full run only,
 *   - Scotch's tree-leaf target on the same hierarchy (slots as leaves,
 *     link costs 100:10:1 between groups, nodes, slots), full run only.
 * Bars: the levelled plan's group figures never worse than node-only's
 * (by the levelled objective: group J_max, then group J_sum), its node
 * median J_sum/blocked within 3 % of node-only's; in the full run, never
 * worse than Scotch's at the group level.  --check runs the bars that need
 * neither Scotch nor a clock, on a sixth of the instances and two of the
 * groupings (make check), and exits non-zero when one is missed. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stencilmap/placement.h>

#include "paper_set.h"
#ifdef SMP_WITH_SCOTCH
#include "scotch_map.h"
#define HAVE_SCOTCH_COL 1
#else
#define HAVE_SCOTCH_COL 0
#endif

static const char *const families[] = {"nearest", "component", "hops"};

/* the groupings: consecutive groups of `size` nodes, or (size 0)
 * alternating 3 and 5 */
static const int group_sizes[] = {2, 4, 8, 0};
#define NCONF ((int)(sizeof(group_sizes) / sizeof(group_sizes[0])))
/* --check: groups of 4 and 3/5 on every CHECK_EVERY-th instance, so that
 * make check stays short; the full run takes every grouping and instance */
static const bool check_conf[NCONF] = {false, true, false, true};
#define CHECK_EVERY 6

static int bars_missed, bars_checked;
static void bar(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bar(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("bar: ");
    vprintf(fmt, ap);
    printf("  %s\n", ok ? "met" : "MISSED");
    va_end(ap);
    bars_checked++;
    bars_missed += !ok;
}

static void make_levels(int N, int size, smp_levels *lv)
{
    memset(lv, 0, sizeof(*lv));
    lv->nlevels = 1;
    lv->nnodes = N;
    lv->group_of_node[0] = malloc(sizeof(int32_t) * (size_t)N);
    if (!lv->group_of_node[0])
        exit(1);
    int g = 0, left = size ? size : 3;
    for (int i = 0; i < N; i++) {
        if (left == 0) {
            g++;
            left = size ? size : (g % 2 ? 5 : 3);
        }
        lv->group_of_node[0][i] = g;
        left--;
    }
    lv->ngroups[0] = g + 1;
}

/* a's group figures worse than b's: group J_max, then group J_sum */
static bool group_worse(const smp_score *a, const smp_score *b)
{
    return a->j_max > b->j_max || (a->j_max == b->j_max && a->j_sum > b->j_sum);
}

struct figures {
    smp_score node, group;
};

static void plan_on(const smp_grid *g, const smp_stencil *st, const int32_t *slots, int N,
                    const smp_levels *lv, smp_levels_mode mode, struct figures *out)
{
    smp_error err;
    smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_DEFAULT, .effort = 1,
                       .levels = lv, .levels_mode = mode};
    smp_placement pl;
    if (smp_plan_with(g, st, slots, N, &o, &pl, &err))
        die(&err);
    out->node = pl.score;
    out->group = pl.level[0];
    /* the reported figures are the scorers' */
    smp_score n2, g2;
    if (smp_score_compute(g, st, pl.node_of_rank, N, &n2, &err) ||
        smp_levels_score_compute(g, st, pl.node_of_rank, N, lv, &g2, &err))
        die(&err);
    if (n2.j_sum != pl.score.j_sum || g2.j_sum != pl.level[0].j_sum ||
        g2.j_max != pl.level[0].j_max) {
        fprintf(stderr, "bench_levels: reported figures differ from the scorer's\n");
        exit(1);
    }
    smp_placement_free(&pl);
}

/* One million ranks (1000x1000, 5-point, 7,813 nodes of 128, the last one
 * short) in consecutive groups of 16, 32 and 64 nodes: CPU time of the
 * plan without levels and on them (each mode), and their figures. */
static void big_section(void)
{
    smp_error err;
    int64_t dims[2] = {1000, 1000};
    smp_grid g;
    smp_stencil st;
    if (smp_grid_init(&g, 2, dims, NULL, &err) || smp_stencil_family(&st, "nearest", 2, &err))
        die(&err);
    int N = (int)((g.size + 127) / 128);
    int32_t *slots = malloc(sizeof(int32_t) * (size_t)N);
    if (!slots)
        exit(1);
    for (int i = 0; i < N; i++)
        slots[i] = 128;
    static const int sizes[] = {16, 32, 64};
    printf("\nOne million ranks: 1000x1000, 5-point, %d nodes of 128, objective max; CPU seconds\n"
           "of the plan in this process, node J_sum/J_max and group J_sum/J_max\n", N);
    printf("%-6s %-13s %8s %9s %6s %9s %7s\n", "group", "plan", "cpu s", "nJ_sum", "nJ_max",
           "gJ_sum", "gJ_max");
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        smp_levels lv;
        make_levels(N, sizes[k], &lv);
        for (int m = -1; m < SMP_LEVELS_MODE_COUNT; m++) {
            smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_DEFAULT,
                               .effort = 1, .levels = m < 0 ? NULL : &lv,
                               .levels_mode = m < 0 ? SMP_LEVELS_BEST : (smp_levels_mode)m};
            smp_placement pl;
            clock_t c0 = clock();
            if (smp_plan_with(&g, &st, slots, N, &o, &pl, &err))
                die(&err);
            double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
            smp_score gs = pl.level[0];
            if (m < 0 && smp_levels_score_compute(&g, &st, pl.node_of_rank, N, &lv, &gs, &err))
                die(&err);
            printf("%-6d %-13s %8.3f %9lld %6lld %9lld %7lld\n", sizes[k],
                   m < 0 ? "no levels" : smp_levels_mode_name((smp_levels_mode)m), cpu,
                   (long long)pl.score.j_sum, (long long)pl.score.j_max, (long long)gs.j_sum,
                   (long long)gs.j_max);
            smp_placement_free(&pl);
        }
        smp_levels_free(&lv);
    }
    smp_stencil_free(&st);
    free(slots);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows in a log */
    bool check = argc > 1 && !strcmp(argv[1], "--check");
    const char *only = argc == 3 && !strcmp(argv[1], "--family") ? argv[2] : NULL;
    if (argc == 2 && !strcmp(argv[1], "--big")) { /* the million ranks alone */
        big_section();
        return 0;
    }
    if (argc > 1 && !check && !only) {
        fprintf(stderr, "usage: bench_levels [--check | --family NAME | --big]\n");
        return 2;
    }
    bool full = !check;
    bool scotch = HAVE_SCOTCH_COL && full;
    static struct instance inst[MAX_INST];
    int ninst = paper_instances(inst);
    smp_error err;
    printf("Network levels on paper 001's %d instances per family: groups of 2, 4, 8\n"
           "consecutive nodes, or of alternating 3 and 5 (\"3/5\").  Ratios are medians over the\n"
           "instances of levelled / node-only (auto without levels); \"gJ\" between groups,\n"
           "\"nJ\" between nodes (/blk: over blocked's, levelled then node-only); gf/nf: groups-first/\n"
           "nodes-first alone (groups of 4 and 3/5); worse/better: levelled\n"
           "group (J_max, J_sum) against node-only's; lev<sc/lev>sc: against Scotch's.%s\n\n",
           ninst, scotch ? "  Scotch: tree-leaf target [groups, nodes, slots], links\n"
                           "100:10:1, exact balance asked, one thread." : "");
    printf("%-10s %-5s %5s %9s %9s %9s %9s %9s %9s %7s %7s", "stencil", "group", "inst",
           "gJsum lev", "gJmax lev", "nJsum/blk", "node-only", "nJmax/blk", "node-only", "worse",
           "better");
    if (full)
        printf(" %9s %9s", "gJsum gf", "gJsum nf");
    if (scotch)
        printf(" %9s %9s %7s %7s", "gJsum sc", "gJmax sc", "lev<sc", "lev>sc");
    printf("\n");
    double cpu_levelled = 0, cpu_plain = 0;
    for (int f = 0; f < 3; f++) {
        if (only && strcmp(only, families[f]))
            continue; /* --family: one of them (the full run in parts) */
        static double rs[NCONF][MAX_INST], rm[NCONF][MAX_INST], nlev[NCONF][MAX_INST],
            nplain[NCONF][MAX_INST], gf[NCONF][MAX_INST], nf[NCONF][MAX_INST],
            scs[NCONF][MAX_INST], scm[NCONF][MAX_INST], xlev[NCONF][MAX_INST],
            xplain[NCONF][MAX_INST];
        int worse[NCONF] = {0}, better[NCONF] = {0}, lev_worse_sc[NCONF] = {0},
            lev_better_sc[NCONF] = {0}, sc_exact[NCONF] = {0}, m = 0;
        for (int t = 0; t < ninst; t++) {
            if (check && t % CHECK_EVERY)
                continue;
            int N = inst[t].N, n = inst[t].n;
            smp_grid grid;
            smp_stencil st;
            int64_t dims[SMP_MAX_DIMS];
            instance_setup(&inst[t], families[f], dims, &grid, &st);
            int32_t *slots = malloc(sizeof(int32_t) * (size_t)N);
            if (!slots)
                exit(1);
            for (int i = 0; i < N; i++)
                slots[i] = n;
            smp_placement base, plainpl;
            smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_DEFAULT, .effort = 1};
            clock_t c0 = clock();
            if (smp_plan(&grid, &st, slots, N, SMP_ALG_BLOCKED, &base, &err) ||
                smp_plan_with(&grid, &st, slots, N, &o, &plainpl, &err))
                die(&err);
            cpu_plain += (double)(clock() - c0) / CLOCKS_PER_SEC;
            for (int c = 0; c < NCONF; c++) {
                if (check && !check_conf[c])
                    continue;
                smp_levels lv;
                make_levels(N, group_sizes[c], &lv);
                struct figures plain = {.node = plainpl.score}, lev;
                if (smp_levels_score_compute(&grid, &st, plainpl.node_of_rank, N, &lv, &plain.group,
                                             &err))
                    die(&err);
                clock_t c1 = clock();
                plan_on(&grid, &st, slots, N, &lv, SMP_LEVELS_BEST, &lev);
                cpu_levelled += (double)(clock() - c1) / CLOCKS_PER_SEC;
                rs[c][m] = plain.group.j_sum ? (double)lev.group.j_sum / plain.group.j_sum : 1;
                rm[c][m] = plain.group.j_max ? (double)lev.group.j_max / plain.group.j_max : 1;
                nlev[c][m] = base.score.j_sum ? (double)lev.node.j_sum / base.score.j_sum : 1;
                nplain[c][m] = base.score.j_sum ? (double)plain.node.j_sum / base.score.j_sum : 1;
                xlev[c][m] = base.score.j_max ? (double)lev.node.j_max / base.score.j_max : 1;
                xplain[c][m] = base.score.j_max ? (double)plain.node.j_max / base.score.j_max : 1;
                worse[c] += group_worse(&lev.group, &plain.group);
                better[c] += group_worse(&plain.group, &lev.group);
                if (full && check_conf[c]) { /* the two ways apart: on two groupings */
                    struct figures a, b;
                    plan_on(&grid, &st, slots, N, &lv, SMP_LEVELS_GROUPS_FIRST, &a);
                    plan_on(&grid, &st, slots, N, &lv, SMP_LEVELS_NODES_FIRST, &b);
                    gf[c][m] = plain.group.j_sum ? (double)a.group.j_sum / plain.group.j_sum : 1;
                    nf[c][m] = plain.group.j_sum ? (double)b.group.j_sum / plain.group.j_sum : 1;
                }
#ifdef SMP_WITH_SCOTCH
                if (scotch) {
                    static const int cost[3] = {100, 10, 1};
                    int32_t *map = malloc(sizeof(int32_t) * (size_t)grid.size);
                    smp_scotch_info info;
                    smp_score sg;
                    if (!map ||
                        smp_scotch_map_levels(&grid, &st, slots, N, &lv, cost, map, &info, &err) ||
                        smp_levels_score_compute(&grid, &st, map, N, &lv, &sg, &err))
                        die(&err);
                    sc_exact[c] += info.exact;
                    scs[c][m] = plain.group.j_sum ? (double)sg.j_sum / plain.group.j_sum : 1;
                    scm[c][m] = plain.group.j_max ? (double)sg.j_max / plain.group.j_max : 1;
                    lev_worse_sc[c] += group_worse(&lev.group, &sg);
                    lev_better_sc[c] += group_worse(&sg, &lev.group);
                    free(map);
                }
#endif
                smp_levels_free(&lv);
            }
            m++;
            smp_placement_free(&base);
            smp_placement_free(&plainpl);
            smp_stencil_free(&st);
            free(slots);
        }
        for (int c = 0; c < NCONF; c++) {
            if (check && !check_conf[c])
                continue;
            char gname[8];
            snprintf(gname, sizeof(gname), group_sizes[c] ? "%d" : "3/5", group_sizes[c]);
            double ml = median(nlev[c], m), mp = median(nplain[c], m);
            printf("%-10s %-5s %5d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7d %7d", families[f], gname,
                   m, median(rs[c], m), median(rm[c], m), ml, mp, median(xlev[c], m),
                   median(xplain[c], m), worse[c], better[c]);
            if (full && check_conf[c])
                printf(" %9.3f %9.3f", median(gf[c], m), median(nf[c], m));
            else if (full)
                printf(" %9s %9s", "-", "-");
            if (scotch)
                printf(" %9.3f %9.3f %7d %7d", median(scs[c], m), median(scm[c], m),
                       lev_better_sc[c], lev_worse_sc[c]);
            printf("\n");
            bar(worse[c] == 0, "%s, groups %s: levelled group figures worse than node-only's on %d "
                "of %d instances (must be 0)", families[f], gname, worse[c], m);
            bar(ml <= 1.03 * mp, "%s, groups %s: levelled node median J_sum/blocked %.3f <= 1.03 x "
                "node-only's %.3f", families[f], gname, ml, mp);
            if (scotch)
                bar(lev_worse_sc[c] == 0, "%s, groups %s: levelled group figures worse than "
                    "Scotch's tree-leaf on %d of %d instances (must be 0; Scotch exact on %d)",
                    families[f], gname, lev_worse_sc[c], m, sc_exact[c]);
        }
    }
    printf("\nCPU for all instances: node-only %.2f s, levelled %.2f s\n", cpu_plain, cpu_levelled);
    if (full && !only)
        big_section();
    printf("%d passed, %d failed\n", bars_checked - bars_missed, bars_missed);
    return bars_missed ? 1 : 0;
}
