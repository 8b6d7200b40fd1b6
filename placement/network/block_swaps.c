/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Block swaps: under static (d-mod-k) routing the uplink a message takes
 * depends on its destination node's position, so which physical node
 * holds which block of ranks matters to L_max although not to J_sum or
 * J_max (every node keeps a block with the same cut edges).  When a plan's
 * L_max lies above its bound (link_load.c), this greedy local search
 * exchanges whole blocks of nodes of equal rank counts to spread the
 * busiest links' traffic over the other positions (issue 36, item 4).
 *
 * It takes the busiest link, ranks the nodes whose traffic crosses it by
 * how much, and tries each against the other nodes of its leaf and a few
 * nodes of other leaves; a swap is kept when it lowers, lexicographically,
 * (the busiest link's load, how many links carry it, the sum of the links'
 * squared loads) and adds no load to the uplinks in all: no link may rise
 * above the busiest, so L_max never grows, nor does the groups' cut, and
 * each kept swap strictly lowers that triple, so the search cannot
 * cycle.  When no trial helps a busiest link, the next link at the
 * same load is tried; it stops when none helps, when the busiest link is
 * down to the bound, or after its budget of trials.  Every choice follows
 * the node order and a fixed-seed generator: the same input gives the
 * same swaps. */
#include <stdlib.h>
#include <string.h>

#include "network/link_net.h"
#include "network/network.h"

#define SWAP_TRIALS_PER_NODE 64 /* trials per node and unit of effort */
/* and at most this many per unit of effort: 1,024 nodes' worth.  At a
 * million ranks on 15,625 nodes a budget of 64 per node took 0.5 s of CPU
 * and lowered no busiest link (256, bound 232); the cap keeps the swaps'
 * cost that of the 16k plan they pay off on. */
#define SWAP_TRIALS_MAX 65536
/* Swaps that leave the busiest link above the busiest node link but within
 * this factor of it are all taken back.  There every host's link is nearly
 * full, and the uplinks just as full: a message through the uplinks shares
 * its host's link with shorter routes, which SimGrid serves first (its
 * sharing weighs a flow by its route's latency), so the uplinks start late.
 * 16k-3d-27pt-64 on the bench's tapered tree: swaps took L_max from 805 to
 * 748 (node links 728) and the exchange from 19,615 to 20,417 us; a max-min
 * fluid model with that weighting gives the same 4 %.  Swaps that end at
 * the node links, or 10 % and more above them, ran 1-3.5 % faster. */
#define SWAP_NODE_BAND 1.05
#define SWAP_CANDIDATES 8       /* nodes of a busiest link tried, heaviest first */
#define SWAP_FAR_PARTNERS 16    /* partners tried in other leaves per node */

/* A node whose traffic crosses the link being relieved, and how much. */
struct cand {
    double w;
    int32_t v;
};

struct search {
    smp_link_net *n;
    int32_t *count;   /* ranks per node */
    int32_t *node_at; /* the node at each position */
    double *contrib;  /* per node: its traffic on the link being relieved */
    /* the nodes contrib holds traffic for (once each: seen), so that one
     * relief reads and clears them alone, not every node */
    int32_t *hit, nhit;
    bool *seen;
    /* per level, the nodes of each group in node order: group g's are
     * gnodes[l][gfirst[l][g] .. gfirst[l][g + 1]) */
    int32_t *gfirst[SMP_MAX_LEVELS], *gnodes[SMP_MAX_LEVELS];
    struct cand *cand;
    double m, bound, eps; /* the busiest link's load, the bound, m's rounding */
    double nmax;          /* the busiest node link, which no swap changes */
    int64_t c;            /* links at m */
    int64_t trials, budget, swaps;
    uint64_t rng;
};

static uint64_t next_rng(struct search *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* The bound above the nodes: each group's traffic up and down over its
 * links (their loads are already per speed); the node links' share is
 * node_max, kept apart. */
static double slots_bound(const smp_link_net *n)
{
    double b = 0;
    for (int64_t s0 = 0; s0 < n->nslots;) {
        int l = n->slot_level[s0], k = n->k[l][n->slot_group[s0]];
        double tu = 0, td = 0;
        for (int i = 0; i < k; i++) {
            tu += n->load[s0 + i];
            td += n->load[n->nslots + s0 + i];
        }
        b = tu / k > b ? tu / k : b;
        b = td / k > b ? td / k : b;
        s0 += k;
    }
    return b;
}

/* The busiest node link: a block's messages out or in, wherever it is. */
static double node_max(const smp_link_net *n)
{
    double b = 0;
    for (int x = 0; x < n->nnodes; x++) {
        double o = 0, i = 0;
        for (int64_t e = n->out_first[x]; e < n->out_first[x + 1]; e++)
            o += n->out_w[e];
        for (int64_t e = n->in_first[x]; e < n->in_first[x + 1]; e++)
            i += n->in_w[e];
        b = o > b ? o : b;
        b = i > b ? i : b;
    }
    return b;
}

/* The busiest load and the bound afresh: swaps across groups move traffic
 * between them, and so the bound with it. */
static void refresh_max(struct search *s)
{
    int64_t at;
    double b = slots_bound(s->n);
    s->m = smp_link_net_max(s->n, &s->c, &at);
    s->eps = 1e-9 * s->m;
    s->bound = b > s->nmax ? b : s->nmax;
}

/* Keeps the swap just made when it lowers (m, c, sum of squares) without
 * adding traffic above the nodes, else undoes it; true when kept.  A swap
 * across groups may move cut edges between the levels: the uplinks' total
 * load (the levels' J_sum, per link speed) may not grow, so the swaps
 * trade positions, not the groups' cut. */
static bool keep_or_undo(struct search *s, int32_t a, int32_t b)
{
    smp_link_net *n = s->n;
    int64_t dc = 0;
    double dsq = 0, dup = 0;
    bool over = false;
    for (int64_t t = 0; t < n->ntouched; t++) {
        double o = n->old[t], v = n->load[n->touched[t]];
        dsq += v * v - o * o;
        dup += n->touched[t] < n->nslots ? v - o : 0;
        over = over || v > s->m + s->eps;
        dc += (v >= s->m - s->eps) - (o >= s->m - s->eps);
    }
    s->trials++;
    over = over || dup > s->eps;
    if (!over && (dc < 0 || (dc == 0 && dsq < -s->eps * s->m))) {
        s->swaps++;
        if (s->c + dc <= 0)
            refresh_max(s); /* the busiest load went down */
        else
            s->c += dc;
        return true;
    }
    smp_link_net_undo(n, a, b);
    return false;
}

/* w added to node v's contrib, v noted in hit the first time. */
static void add_contrib(struct search *s, int32_t v, double w)
{
    if (!s->seen[v]) {
        s->seen[v] = true;
        s->hit[s->nhit++] = v;
    }
    s->contrib[v] += w;
}

/* Adds the traffic of node v (in slot's group) that crosses up slot i of
 * level l (down when down) to both ends' contrib. */
static void node_contrib(struct search *s, int32_t v, int l, int64_t i, bool down)
{
    const smp_link_net *n = s->n;
    int32_t x = n->block_of_node[v], g = n->grp[l][v], k = n->k[l][g];
    if (down && ((int64_t)n->pos[v] / n->stride[l][v]) % k != i)
        return;
    int64_t first = down ? n->in_first[x] : n->out_first[x];
    int64_t last = down ? n->in_first[x + 1] : n->out_first[x + 1];
    for (int64_t e = first; e < last; e++) {
        int32_t u = n->node_of_block[down ? n->in_from[e] : n->out_to[e]];
        if (n->grp[l][u] == g || (!down && ((int64_t)n->pos[u] / n->stride[l][v]) % k != i))
            continue;
        double w = down ? n->in_w[e] : n->out_w[e];
        add_contrib(s, v, w);
        add_contrib(s, u, w);
    }
}

static int cand_cmp(const void *x, const void *y)
{
    const struct cand *a = x, *b = y;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
}

/* The nodes whose traffic crosses slot, heaviest first (then by node):
 * how many in the return.  The group's nodes are walked in node order, so
 * each contrib sums in the order a walk over every node would; cand_cmp
 * orders the candidates whatever order they are gathered in. */
static int candidates(struct search *s, int64_t slot)
{
    const smp_link_net *n = s->n;
    bool down = slot >= n->nslots;
    int64_t up = down ? slot - n->nslots : slot;
    int l = n->slot_level[up];
    int32_t g = n->slot_group[up];
    int64_t i = up - n->base[l][g];
    s->nhit = 0;
    for (int32_t j = s->gfirst[l][g]; j < s->gfirst[l][g + 1]; j++)
        node_contrib(s, s->gnodes[l][j], l, i, down);
    int nc = 0;
    for (int32_t t = 0; t < s->nhit; t++) {
        int32_t v = s->hit[t];
        if (s->contrib[v] > 0)
            s->cand[nc++] = (struct cand){s->contrib[v], v};
        s->contrib[v] = 0;
        s->seen[v] = false;
    }
    qsort(s->cand, (size_t)nc, sizeof(struct cand), cand_cmp);
    return nc < SWAP_CANDIDATES ? nc : SWAP_CANDIDATES;
}

/* One trial of x against y, when they can exchange blocks. */
static bool try_pair(struct search *s, int32_t x, int32_t y)
{
    if (x == y || s->count[x] != s->count[y] || s->trials >= s->budget)
        return false;
    smp_link_net_swap(s->n, x, y);
    return keep_or_undo(s, x, y);
}

/* x against the other nodes of its leaf, then a few nodes anywhere; true
 * at the first swap kept. */
static bool try_node(struct search *s, int32_t x)
{
    const smp_link_net *n = s->n;
    int32_t leaf = n->grp[0][x], p0 = n->pos[x];
    while (p0 > 0 && n->grp[0][s->node_at[p0 - 1]] == leaf)
        p0--;
    for (int32_t p = p0; p < n->nnodes && n->grp[0][s->node_at[p]] == leaf; p++)
        if (try_pair(s, x, s->node_at[p]))
            return true;
    for (int f = 0; f < SWAP_FAR_PARTNERS; f++) {
        int32_t y = s->node_at[next_rng(s) % (uint64_t)n->nnodes];
        if (n->grp[0][y] != leaf && try_pair(s, x, y))
            return true;
    }
    return false;
}

/* Relieves slot: true when a swap was kept. */
static bool relieve(struct search *s, int64_t slot)
{
    int nc = candidates(s, slot);
    for (int c = 0; c < nc && s->trials < s->budget; c++)
        if (try_node(s, s->cand[c].v))
            return true;
    return false;
}

/* The next slot at the busiest load from slot from on, or -1. */
static int64_t next_busiest(const struct search *s, int64_t from)
{
    for (int64_t t = from; t < 2 * s->n->nslots; t++)
        if (s->n->load[t] >= s->m - s->eps)
            return t;
    return -1;
}

static void search_run(struct search *s)
{
    int64_t from = 0;
    while (s->m > s->bound + s->eps && s->trials < s->budget) {
        int64_t slot = next_busiest(s, from);
        if (slot < 0)
            break; /* no busiest link can be relieved */
        from = relieve(s, slot) ? 0 : slot + 1;
    }
}

/* Each level's groups as lists of their nodes, in node order (a
 * counting sort); false when out of memory. */
static bool groups_init(struct search *s, const smp_levels *lv)
{
    const smp_link_net *n = s->n;
    for (int l = 0; l < n->nl; l++) {
        int ng = lv->ngroups[l];
        int32_t *first = calloc((size_t)ng + 1, sizeof(int32_t));
        int32_t *nodes = malloc(sizeof(int32_t) * (size_t)n->nnodes);
        s->gfirst[l] = first;
        s->gnodes[l] = nodes;
        if (!first || !nodes)
            return false;
        for (int32_t v = 0; v < n->nnodes; v++)
            first[n->grp[l][v] + 1]++;
        for (int g = 0; g < ng; g++)
            first[g + 1] += first[g];
        for (int32_t v = 0; v < n->nnodes; v++)
            nodes[first[n->grp[l][v]]++] = v;
        for (int g = ng; g > 0; g--) /* each first[g] ran on to first[g + 1] */
            first[g] = first[g - 1];
        first[0] = 0;
    }
    return true;
}

/* The search's arrays; false when out of memory. */
static bool search_init(struct search *s, smp_link_net *n, const smp_levels *lv,
                        const int32_t *node_of_rank, int64_t ranks, int effort)
{
    memset(s, 0, sizeof(*s));
    s->n = n;
    size_t nn = (size_t)n->nnodes;
    if (!(s->count = calloc(nn, sizeof(int32_t))) || !(s->node_at = malloc(sizeof(int32_t) * nn)) ||
        !(s->contrib = calloc(nn, sizeof(double))) || !(s->cand = malloc(sizeof(struct cand) * nn)) ||
        !(s->hit = malloc(sizeof(int32_t) * nn)) || !(s->seen = calloc(nn, sizeof(bool))) ||
        !groups_init(s, lv))
        return false;
    for (int64_t r = 0; r < ranks; r++)
        s->count[node_of_rank[r]]++;
    for (int32_t v = 0; v < n->nnodes; v++)
        s->node_at[n->pos[v]] = v;
    int64_t per_effort = (int64_t)SWAP_TRIALS_PER_NODE * n->nnodes;
    if (per_effort > SWAP_TRIALS_MAX)
        per_effort = SWAP_TRIALS_MAX;
    s->budget = per_effort * (effort > 0 ? effort : 1);
    s->rng = 0x9e3779b97f4a7c15ULL;
    return true;
}

static void search_free(struct search *s)
{
    free(s->count);
    free(s->node_at);
    free(s->contrib);
    free(s->cand);
    free(s->hit);
    free(s->seen);
    for (int l = 0; l < SMP_MAX_LEVELS; l++) {
        free(s->gfirst[l]);
        free(s->gnodes[l]);
    }
}

/* L_max in the stats and the kept swaps into node_of_rank, unless they
 * end in the node links' band (SWAP_NODE_BAND): then none is kept. */
static void search_finish(struct search *s, int32_t *node_of_rank, int64_t ranks,
                          smp_swap_stats *stats, double nmax)
{
    int64_t c, at;
    double m = smp_link_net_max(s->n, &c, &at);
    stats->trials = s->trials;
    if (m > nmax + s->eps && m < SWAP_NODE_BAND * nmax) {
        stats->swaps_dropped = s->swaps;
        s->swaps = 0;
        m = stats->l_max_before;
    }
    stats->l_max_after = m > nmax ? m : nmax;
    stats->swaps = s->swaps;
    for (int64_t r = 0; s->swaps && r < ranks; r++)
        node_of_rank[r] = s->n->node_of_block[node_of_rank[r]];
}

/* The score after the kept swaps from sc, the one before: a block keeps
 * its cut edges wherever it goes, so J_sum, J_max, w_sum and w_max keep
 * their values and j_max_node moves to the first node now holding a block
 * that attains J_max, as smp_score_compute names it.  Without weights
 * each message of the block graph weighs 1, so a block's out messages
 * sum exactly to its cut edges; with weights w_sum would be summed in
 * another node order (its last bits may differ), so it is scored afresh. */
static smp_status swapped_score(const smp_link_net *n, const smp_grid *grid,
                                const smp_stencil *st, const int32_t *node_of_rank,
                                smp_score *sc, smp_error *err)
{
    if (st->weights)
        return smp_score_compute(grid, st, node_of_rank, n->nnodes, sc, err);
    for (int32_t y = 0; y < n->nnodes; y++) {
        int32_t x = n->block_of_node[y];
        double o = 0;
        for (int64_t e = n->out_first[x]; e < n->out_first[x + 1]; e++)
            o += n->out_w[e];
        if (o == (double)sc->j_max) {
            sc->j_max_node = y;
            break;
        }
    }
    return SMP_OK;
}

smp_status smp_swap_blocks(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                           int nnodes, const smp_levels *lv, const smp_links *lk, int effort,
                           smp_score *score, smp_swap_stats *stats, smp_error *err)
{
    memset(stats, 0, sizeof(*stats));
    /* Only static routing picks a link by position.  Adaptive routing
     * spreads each group's traffic evenly over its links whatever the
     * positions (its L_max is the bound), and direct routing loads a
     * pair's links by the pair's traffic alone: exchanging blocks of equal
     * nodes can change neither. */
    if (!lv || lv->nlevels == 0 || !lk || lk->routing != SMP_ROUTING_STATIC)
        return SMP_OK;
    smp_link_net n;
    struct search s = {0};
    smp_status r = smp_link_net_init(&n, grid, st, node_of_rank, nnodes, lv, lk, err);
    if (!r && !search_init(&s, &n, lv, node_of_rank, grid->size, effort))
        r = smp_error_set(err, SMP_ERR_SYSTEM, "links: out of memory for %d nodes", nnodes);
    if (!r) {
        s.nmax = node_max(&n);
        refresh_max(&s);
        stats->bound = s.bound;
        stats->l_max_before = s.m > s.nmax ? s.m : s.nmax;
        search_run(&s);
        search_finish(&s, node_of_rank, grid->size, stats, s.nmax);
        if (score && s.swaps)
            r = swapped_score(&n, grid, st, node_of_rank, score, err);
    }
    search_free(&s);
    smp_link_net_free(&n);
    return r;
}
