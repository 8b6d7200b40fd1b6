/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Annealing: a longer, randomised search that auto runs after refinement
 * on small grids, where the pairwise refinement stops in a local optimum
 * that a few coordinated moves across three nodes, or a few uphill steps,
 * would leave.
 *
 * The state is always a placement with exact shares.  A step moves one
 * rank u from its node A to a node B it has a stencil neighbour on, and
 * gives the rank back at once: either B's best rank towards A (an
 * exchange), or B's best rank towards a third node C that u also touches
 * and C's best rank towards A (a cycle of three).  The step's change in
 * weighted J_sum is accepted by the Metropolis rule at the current
 * temperature, which falls geometrically from T0 to T1 over the work
 * budget.  The best placement seen is kept, so the result is never worse
 * than the input.
 *
 * What makes a step cheap: each rank's cost of moving to each node it
 * touches is cached, and recomputed only when the rank or a neighbour
 * moves; ranks next to a rank moved within the step are evaluated afresh.
 * Only the moves worth looking at are listed: per node, those that cost at
 * most THETA_T0 x T0 (where partners are sought; a dearer move is never
 * accepted), and all of them that cost at most CUT_T x T (where first
 * moves are drawn, filtered again as T falls).  The stencil graph of the
 * small grid is stored (CSR), unlike refinement's.
 *
 * Temperatures are in units of the stencil's weight per rank (the sum of
 * the edge weights at the rank that has most, over 8: 1 for the 2-D
 * 5-point stencil, and for the 3-D one on a grid one rank thick), so the
 * schedule fits weighted and wide stencils alike.
 * The figures below were chosen on paper 001's instance set (make bench).
 *
 * Work is counted in neighbour entries read and cached entries looked up,
 * not in time, and the random numbers come from a fixed seed per round
 * (auto runs more rounds, each from the last one's result, at a higher
 * effort): the result depends only on the input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "improve/improve.h"
#include "model/neighbours.h"

#define T0_UNITS 1.5       /* first temperature */
#define T1_UNITS 0.3       /* last: an uphill step of one 5-point edge is taken once in ~800 */
#define THETA_T0 2.0       /* partners: moves that cost at most this x T0 are listed */
#define CUT_T 2.0          /* first moves: those that cost at most this x T */
#define CYCLE_SHARE 0.5    /* of the steps whose rank touches two other nodes: cycles of three */
#define CACHE 8            /* nodes cached per rank; a rank touching more skips the rest */
#define TEMP_EVERY 256     /* steps between temperature updates */
#define REFILTER 0.9       /* first moves are filtered again when their bound falls this much */

/* A listed move: the cache slot it comes from, its target and its cost. */
struct entry {
    int32_t slot, to;
    double delta;
};

/* The search's state. */
struct an {
    int64_t p;
    int nblocks;          /* nodes that hold ranks, numbered densely */
    int32_t *start, *adj; /* the stencil graph: adj[start[v] .. start[v+1]) */
    double *w;            /* weight of each entry (both directions of an edge) */
    double *wout;         /* the part of it on the edge that leaves the rank */
    int32_t *block;       /* the placement being searched, in dense numbers */
    uint8_t *ncache;      /* per rank: entries in the cache */
    int32_t *cblock;      /* per rank, CACHE entries: a node the rank touches... */
    double *cdelta;       /* ...and the change in J_sum if the rank moved there */
    /* Each block's list of its ranks' moves that cost at most theta, where
     * partners are sought: entries first[b] .. first[b] + count[b] - 1 */
    struct entry *ent;
    int32_t *first, *count;
    int32_t *entpos;      /* per cache slot (rank x CACHE + entry): its place in its
                           * block's list, or -1 */
    int32_t *moves;       /* the slots whose move costs at most move_theta: the first
                           * moves of steps are drawn from them */
    int32_t *movepos;     /* a slot's place in moves[], or -1 */
    int64_t nmoves;
    double move_theta;
    uint32_t *stamp;      /* ranks next to a rank moved within the step */
    uint32_t stampv;
    double theta, eps;
    uint64_t rng;
    int64_t work, budget;
    double limit;         /* "max": no block's outgoing cut may pass it (else INFINITY) */
    double *out;          /* "max": each block's outgoing cut */
    int32_t *best;        /* the best placement seen... */
    bool unsaved;         /* ...unless the state is better and not yet copied there */
    const int32_t *parent; /* NULL, or per node: moves only between nodes of one parent */
    int32_t *bparent;      /* the same per dense block */
};

static uint64_t rnd(struct an *a)
{
    /* xorshift64*: fast, and fixed-seeded for reproducible plans */
    a->rng ^= a->rng >> 12;
    a->rng ^= a->rng << 25;
    a->rng ^= a->rng >> 27;
    return a->rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t rnd_below(struct an *a, uint32_t n)
{
    return (uint32_t)(((rnd(a) >> 32) * (uint64_t)n) >> 32);
}

static double rnd_unit(struct an *a)
{
    return (double)(rnd(a) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- the listed moves ---------------------------------------------------- */

static void ent_add(struct an *a, int32_t b, int32_t slot, int32_t to, double delta)
{
    int32_t k = a->first[b] + a->count[b]++;
    a->ent[k] = (struct entry){slot, to, delta};
    a->entpos[slot] = k;
}

static void ent_remove(struct an *a, int32_t b, int32_t slot)
{
    int32_t k = a->entpos[slot];
    if (k < 0)
        return;
    struct entry last = a->ent[a->first[b] + --a->count[b]];
    a->ent[k] = last;
    a->entpos[last.slot] = k;
    a->entpos[slot] = -1;
}

static void move_add(struct an *a, int32_t slot)
{
    a->movepos[slot] = (int32_t)a->nmoves;
    a->moves[a->nmoves++] = slot;
}

static void move_remove(struct an *a, int32_t slot)
{
    if (a->movepos[slot] < 0)
        return;
    int32_t last = a->moves[--a->nmoves];
    a->moves[a->movepos[slot]] = last;
    a->movepos[last] = a->movepos[slot];
    a->movepos[slot] = -1;
}

/* Lists the moves that cost at most theta afresh (as the temperature falls,
 * fewer are worth drawing). */
static void moves_filter(struct an *a, double theta)
{
    a->move_theta = theta;
    a->nmoves = 0;
    for (int64_t v = 0; v < a->p; v++) {
        a->work += a->ncache[v];
        for (int j = 0; j < CACHE; j++) {
            int32_t slot = (int32_t)v * CACHE + j;
            a->movepos[slot] = -1;
            if (j < a->ncache[v] && a->cdelta[slot] <= theta + a->eps)
                move_add(a, slot);
        }
    }
}

/* Takes v's moves off the lists (before v changes block, or its cache). */
static void unlist(struct an *a, int32_t v)
{
    for (int j = 0; j < a->ncache[v]; j++) {
        ent_remove(a, a->block[v], v * CACHE + j);
        move_remove(a, v * CACHE + j);
    }
}

/* Recomputes v's cache from its neighbours' blocks and lists its moves. */
static void cache_update(struct an *a, int32_t v)
{
    int32_t me = a->block[v], *cb = a->cblock + (size_t)v * CACHE;
    double *cd = a->cdelta + (size_t)v * CACHE, inside = 0;
    unlist(a, v);
    int n = 0;
    a->work += a->start[v + 1] - a->start[v];
    for (int32_t i = a->start[v]; i < a->start[v + 1]; i++) {
        int32_t x = a->block[a->adj[i]];
        if (x == me) {
            inside += a->w[i];
            continue;
        }
        if (a->bparent && a->bparent[x] != a->bparent[me])
            continue; /* another parent's: cut wherever v goes */
        int j = 0;
        while (j < n && cb[j] != x)
            j++;
        if (j == n) {
            if (n == CACHE)
                continue;
            cb[n] = x;
            cd[n++] = 0;
        }
        cd[j] += a->w[i];
    }
    a->ncache[v] = (uint8_t)n;
    for (int j = 0; j < n; j++) {
        cd[j] = inside - cd[j];
        if (cd[j] <= a->theta + a->eps)
            ent_add(a, me, v * CACHE + j, cb[j], cd[j]);
        if (cd[j] <= a->move_theta + a->eps)
            move_add(a, v * CACHE + j);
    }
}

/* After the ranks of a step moved: the caches of each and of its
 * neighbours, once each (the stamps of the step are spent by then). */
static void cache_after(struct an *a, const int32_t *moved, int n)
{
    a->stampv++;
    for (int m = 0; m < n; m++) {
        int32_t v = moved[m];
        for (int32_t i = a->start[v] - 1; i < a->start[v + 1]; i++) {
            int32_t x = i < a->start[v] ? v : a->adj[i];
            if (a->stamp[x] == a->stampv)
                continue;
            a->stamp[x] = a->stampv;
            cache_update(a, x);
        }
    }
}

/* ---- one step ------------------------------------------------------------ */

static void stamp_around(struct an *a, int32_t v)
{
    a->stamp[v] = a->stampv;
    for (int32_t i = a->start[v]; i < a->start[v + 1]; i++)
        a->stamp[a->adj[i]] = a->stampv;
}

/* v's change in J_sum if it left block b for block `to`, read from the
 * graph as it is now; INFINITY when v has no neighbour on `to`. */
static double delta_now(struct an *a, int32_t v, int32_t b, int32_t to)
{
    double d = 0;
    bool touches = false;
    a->work += a->start[v + 1] - a->start[v];
    for (int32_t i = a->start[v]; i < a->start[v + 1]; i++) {
        int32_t x = a->block[a->adj[i]];
        if (x == b)
            d += a->w[i];
        else if (x == to) {
            d -= a->w[i];
            touches = true;
        }
    }
    return touches ? d : INFINITY;
}

/* The rank of block b whose move to block `to` costs least (ties at
 * random), among the listed moves, or -1; ranks stamped in this step are
 * evaluated afresh. */
static int32_t best_towards(struct an *a, int32_t b, int32_t to, double *delta)
{
    int32_t best = -1, ties = 0;
    double least = INFINITY;
    const struct entry *e = a->ent + a->first[b];
    int32_t n = a->count[b];
    a->work += n;
    for (int32_t q = 0; q < n; q++) {
        if (e[q].to != to)
            continue;
        int32_t v = e[q].slot / CACHE;
        double d = a->stamp[v] == a->stampv ? delta_now(a, v, b, to) : e[q].delta;
        if (d < least - a->eps) {
            least = d;
            best = v;
            ties = 1;
        } else if (d <= least + a->eps && d < INFINITY && rnd_below(a, (uint32_t)++ties) == 0) {
            best = v;
        }
    }
    *delta = least;
    return best;
}

/* A step: up to three ranks, each to the block the next one leaves. */
struct chain {
    int n;
    int32_t v[3], from[3], to[3];
    double delta; /* change in weighted J_sum */
};

/* The step from a random promising rank (see the top of the file), or
 * false when there is none worth pursuing at temperature t. */
static bool propose(struct an *a, double t, struct chain *c)
{
    if (a->nmoves == 0)
        return false;
    int32_t slot = a->moves[rnd_below(a, (uint32_t)a->nmoves)];
    int32_t u = slot / CACHE, from = a->block[u], to = a->cblock[slot];
    int nc = a->ncache[u], jb = slot % CACHE;
    double d1 = a->cdelta[slot];
    if (d1 > CUT_T * t)
        return false;
    int32_t third = -1;
    if (nc > 1 && rnd_unit(a) < CYCLE_SHARE) {
        int jc = (int)rnd_below(a, (uint32_t)(nc - 1));
        third = a->cblock[(size_t)u * CACHE + (jc >= jb ? jc + 1 : jc)];
    }
    a->stampv++;
    stamp_around(a, u);
    a->block[u] = to; /* tentatively, so the partners see it */
    double d2, d3 = 0;
    int32_t v = best_towards(a, to, third < 0 ? from : third, &d2), x = -1;
    if (v >= 0 && third >= 0) {
        a->block[v] = third;
        stamp_around(a, v);
        x = best_towards(a, third, from, &d3);
        a->block[v] = to;
    }
    a->block[u] = from;
    if (v < 0 || (third >= 0 && x < 0))
        return false;
    *c = (struct chain){.n = third < 0 ? 2 : 3, .v = {u, v, x}, .from = {from, to, third},
                        .to = {to, third < 0 ? from : third, from}, .delta = d1 + d2 + d3};
    return true;
}

/* Under a limit on J_max: the change in each block's outgoing cut if the
 * chain were made (blocks[k], dout[k], *nblocks of them). */
static void chain_out(struct an *a, const struct chain *c, int32_t *blocks, double *dout,
                      int *nblocks)
{
    int nb = 0;
    for (int m = 0; m < c->n; m++) {
        int32_t v = c->v[m], from = c->from[m], to = c->to[m];
        double d_from = 0, d_to = 0; /* see refine.c, run_max_moved */
        for (int32_t i = a->start[v]; i < a->start[v + 1]; i++) {
            int32_t x = a->block[a->adj[i]];
            double wo = a->wout[i], wi = a->w[i] - a->wout[i];
            d_from += x == from ? wi : -wo;
            d_to += x == to ? -wi : wo;
        }
        a->work += a->start[v + 1] - a->start[v];
        a->block[v] = to;
        int32_t bk[2] = {from, to};
        double dk[2] = {d_from, d_to};
        for (int k = 0; k < 2; k++) {
            int j = 0;
            while (j < nb && blocks[j] != bk[k])
                j++;
            if (j == nb) {
                blocks[nb] = bk[k];
                dout[nb++] = 0;
            }
            dout[j] += dk[k];
        }
    }
    for (int m = c->n - 1; m >= 0; m--)
        a->block[c->v[m]] = c->from[m];
    *nblocks = nb;
}

/* Makes the chain: the blocks change, then the caches and lists around
 * every rank that moved. */
static void chain_make(struct an *a, const struct chain *c)
{
    for (int m = 0; m < c->n; m++) {
        unlist(a, c->v[m]);
        a->block[c->v[m]] = c->to[m];
    }
    cache_after(a, c->v, c->n);
}

/* One step at temperature t: proposed, judged (Metropolis, then the
 * limit on J_max if any) and made.  Returns whether it was made.  A step
 * that leaves the best state seen first copies it to best[]. */
static bool step(struct an *a, double t, struct chain *c)
{
    a->work++;
    if (!propose(a, t, c))
        return false;
    if (c->delta > a->eps && rnd_unit(a) >= exp(-c->delta / t))
        return false;
    int32_t blocks[6];
    double dout[6];
    int nb = 0;
    if (a->limit < INFINITY) {
        chain_out(a, c, blocks, dout, &nb);
        for (int k = 0; k < nb; k++)
            if (a->out[blocks[k]] + dout[k] > a->limit + a->eps)
                return false;
    }
    if (c->delta > a->eps && a->unsaved) {
        memcpy(a->best, a->block, sizeof(int32_t) * (size_t)a->p);
        a->unsaved = false;
    }
    for (int k = 0; k < nb; k++)
        a->out[blocks[k]] += dout[k];
    chain_make(a, c);
    return true;
}

/* ---- the run ------------------------------------------------------------- */

/* The schedule; a->best receives the best placement seen (dense
 * numbers), *gain its drop in J_sum from the start. */
static void run(struct an *a, double unit, double *gain)
{
    double t0 = T0_UNITS * unit, t1 = T1_UNITS * unit, t = t0, now = 0, least = 0;
    int64_t w0 = a->work;
    for (uint64_t k = 0; a->work - w0 < a->budget; k++) {
        if (k % TEMP_EVERY == 0) {
            t = t0 * pow(t1 / t0, (double)(a->work - w0) / (double)a->budget);
            if (CUT_T * t < REFILTER * a->move_theta)
                moves_filter(a, CUT_T * t);
        }
        struct chain c;
        if (!step(a, t, &c))
            continue;
        now += c.delta;
        if (now < least - a->eps) {
            least = now;
            a->unsaved = true;
        }
    }
    if (a->unsaved)
        memcpy(a->best, a->block, sizeof(int32_t) * (size_t)a->p);
    *gain = -least;
}

/* ---- set-up -------------------------------------------------------------- */

static smp_status build_graph(struct an *a, const smp_grid *grid, const smp_stencil *st,
                              double *unit, smp_error *err)
{
    smp_nbr nb;
    smp_status s = smp_nbr_init(&nb, grid, st, err);
    if (s)
        return s;
    size_t entries = (size_t)a->p * (size_t)nb.nk;
    int64_t *t = malloc(sizeof(int64_t) * (size_t)(nb.nk ? nb.nk : 1));
    double *w = malloc(sizeof(double) * (size_t)(nb.nk ? nb.nk : 1));
    a->start = malloc(sizeof(int32_t) * ((size_t)a->p + 1));
    a->adj = malloc(sizeof(int32_t) * (entries ? entries : 1));
    a->w = malloc(sizeof(double) * (entries ? entries : 1));
    a->wout = malloc(sizeof(double) * (entries ? entries : 1));
    double *wo = malloc(sizeof(double) * (size_t)(nb.nk ? nb.nk : 1));
    if (!t || !w || !wo || !a->start || !a->adj || !a->w || !a->wout) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "anneal: out of memory");
    } else {
        int32_t k = 0;
        double per_rank = 0; /* the most weight at one rank: an interior one's */
        for (int64_t v = 0; v < a->p; v++) {
            a->start[v] = k;
            int n = smp_nbr_list_dir(&nb, v, t, w, wo);
            double here = 0;
            for (int i = 0; i < n; i++) {
                a->adj[k] = (int32_t)t[i];
                a->wout[k] = wo[i];
                here += w[i];
                a->w[k++] = w[i];
            }
            if (here > per_rank)
                per_rank = here;
        }
        a->start[a->p] = k;
        *unit = per_rank / 8;
        a->eps = 1e-9 * per_rank;
    }
    free(t);
    free(w);
    free(wo);
    smp_nbr_free(&nb);
    return s;
}

/* Dense block numbers for the nodes that hold ranks (dense_to_node maps
 * back), each block's room in the lists, and the search's arrays. */
static smp_status build_state(struct an *a, const int32_t *node_of_rank, int nnodes,
                              int32_t **dense_to_node, smp_error *err)
{
    int32_t *dense = malloc(sizeof(int32_t) * (size_t)nnodes);
    *dense_to_node = malloc(sizeof(int32_t) * (size_t)nnodes);
    size_t p = (size_t)a->p;
    a->block = malloc(sizeof(int32_t) * p);
    a->ncache = calloc(p, 1);
    a->cblock = malloc(sizeof(int32_t) * p * CACHE);
    a->cdelta = malloc(sizeof(double) * p * CACHE);
    a->ent = malloc(sizeof(struct entry) * p * CACHE);
    a->entpos = malloc(sizeof(int32_t) * p * CACHE);
    a->moves = malloc(sizeof(int32_t) * p * CACHE);
    a->movepos = malloc(sizeof(int32_t) * p * CACHE);
    a->stamp = calloc(p, sizeof(uint32_t));
    a->first = malloc(sizeof(int32_t) * (size_t)nnodes);
    a->count = calloc((size_t)nnodes, sizeof(int32_t));
    if (!dense || !*dense_to_node || !a->block || !a->ncache || !a->cblock || !a->cdelta ||
        !a->ent || !a->entpos || !a->moves || !a->movepos || !a->stamp || !a->first || !a->count) {
        free(dense);
        return smp_error_set(err, SMP_ERR_SYSTEM, "anneal: out of memory");
    }
    for (int i = 0; i < nnodes; i++)
        dense[i] = -1;
    a->nblocks = 0;
    for (size_t v = 0; v < p; v++) {
        int32_t n = node_of_rank[v];
        if (dense[n] < 0) {
            dense[n] = a->nblocks;
            (*dense_to_node)[a->nblocks++] = n;
        }
        a->block[v] = dense[n];
        a->count[dense[n]]++; /* the block's share, for now */
    }
    if (a->parent) {
        if (!(a->bparent = malloc(sizeof(int32_t) * (size_t)a->nblocks))) {
            free(dense);
            return smp_error_set(err, SMP_ERR_SYSTEM, "anneal: out of memory");
        }
        for (int b = 0; b < a->nblocks; b++)
            a->bparent[b] = a->parent[(*dense_to_node)[b]];
    }
    for (int b = 0, at = 0; b < a->nblocks; b++) {
        a->first[b] = at; /* room for CACHE moves of each of its ranks */
        at += a->count[b] * CACHE;
        a->count[b] = 0;
    }
    free(dense);
    for (size_t k = 0; k < p * CACHE; k++)
        a->movepos[k] = a->entpos[k] = -1;
    a->nmoves = 0;
    for (int64_t v = 0; v < a->p; v++)
        cache_update(a, (int32_t)v);
    return SMP_OK;
}

static void an_free(struct an *a)
{
    free(a->start);
    free(a->adj);
    free(a->w);
    free(a->wout);
    free(a->out);
    free(a->block);
    free(a->ncache);
    free(a->cblock);
    free(a->cdelta);
    free(a->first);
    free(a->count);
    free(a->ent);
    free(a->entpos);
    free(a->moves);
    free(a->movepos);
    free(a->stamp);
    free(a->best);
    free(a->bparent);
}

bool smp_anneal_applies(const smp_grid *grid, const smp_stencil *st)
{
    int64_t entries = grid->size * (int64_t)st->count * 2;
    return grid->size >= 2 && grid->size <= SMP_ANNEAL_MAX_RANKS &&
           entries <= SMP_ANNEAL_MAX_ENTRIES;
}

int64_t smp_anneal_default_budget(int64_t ranks)
{
    int64_t b = SMP_ANNEAL_WORK_PER_RANK * ranks;
    return b < SMP_ANNEAL_WORK_MAX ? b : SMP_ANNEAL_WORK_MAX;
}

/* "max": every block's outgoing cut, and the limit they must keep. */
static smp_status limit_init(struct an *a, const smp_score *before, bool weighted, smp_error *err)
{
    if (!(a->out = calloc((size_t)a->nblocks, sizeof(double))))
        return smp_error_set(err, SMP_ERR_SYSTEM, "anneal: out of memory");
    for (int64_t v = 0; v < a->p; v++)
        for (int32_t i = a->start[v]; i < a->start[v + 1]; i++)
            if (a->block[a->adj[i]] != a->block[v])
                a->out[a->block[v]] += a->wout[i];
    a->limit = weighted ? before->w_max : (double)before->j_max;
    return SMP_OK;
}

static smp_status anneal_impl(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                              int nnodes, const int32_t *parent, int64_t budget, smp_objective obj,
                              uint32_t round, smp_anneal_stats *stats, smp_error *err);

smp_status smp_anneal(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                      int nnodes, int64_t budget, smp_objective obj, uint32_t round,
                      smp_anneal_stats *stats, smp_error *err)
{
    return anneal_impl(grid, st, node_of_rank, nnodes, NULL, budget, obj, round, stats, err);
}

smp_status smp_anneal_within(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                             int nlabels, const int32_t *parent, int64_t budget, smp_objective obj,
                             uint32_t round, smp_anneal_stats *stats, smp_error *err)
{
    return anneal_impl(grid, st, label, nlabels, parent, budget, obj, round, stats, err);
}

static smp_status anneal_impl(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                              int nnodes, const int32_t *parent, int64_t budget, smp_objective obj,
                              uint32_t round, smp_anneal_stats *stats, smp_error *err)
{
    memset(stats, 0, sizeof(*stats));
    if (obj != SMP_OBJ_SUM && obj != SMP_OBJ_MAX)
        return smp_error_set(err, SMP_ERR_INPUT, "objective: unknown");
    if (grid->order != SMP_ORDER_ROW_MAJOR)
        return smp_error_set(err, SMP_ERR_INPUT, "anneal: row-major grids only");
    if (!smp_anneal_applies(grid, st))
        return smp_error_set(err, SMP_ERR_INPUT, "anneal: grid too large (%lld ranks)",
                             (long long)grid->size);
    smp_status s = smp_score_compute(grid, st, node_of_rank, nnodes, &stats->before, err);
    if (s)
        return s; /* also rejects ranks on nodes out of range */
    stats->after = stats->before;
    struct an a = {.p = grid->size,
                   .budget = budget > 0 ? budget : smp_anneal_default_budget(grid->size),
                   .rng = (0x9E3779B97F4A7C15ULL ^ (uint64_t)grid->size) +
                          0x632BE59BD9B4E019ULL * round,
                   .limit = INFINITY,
                   .parent = parent};
    if (!a.rng) /* xorshift stays at 0 */
        a.rng = 1;
    bool weighted = smp_stencil_weighted(st);
    int32_t *dense_to_node = NULL;
    double unit = 0, gain = 0;
    if ((s = build_graph(&a, grid, st, &unit, err)))
        goto done;
    a.theta = THETA_T0 * T0_UNITS * unit;
    a.move_theta = CUT_T * T0_UNITS * unit;
    if ((s = build_state(&a, node_of_rank, nnodes, &dense_to_node, err)) ||
        (obj == SMP_OBJ_MAX && (s = limit_init(&a, &stats->before, weighted, err))))
        goto done;
    if (!(a.best = malloc(sizeof(int32_t) * (size_t)a.p))) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "anneal: out of memory");
        goto done;
    }
    memcpy(a.best, a.block, sizeof(int32_t) * (size_t)a.p);
    run(&a, unit, &gain);
    stats->work = a.work;
    if (gain <= a.eps)
        goto done; /* nothing better than the input was seen */
    int32_t *trial = a.block; /* reused: the search is over */
    for (int64_t v = 0; v < a.p; v++)
        trial[v] = dense_to_node[a.best[v]];
    smp_score sc;
    if ((s = smp_score_compute(grid, st, trial, nnodes, &sc, err)))
        goto done;
    if (smp_score_better_for(&sc, &stats->before, weighted, obj)) {
        memcpy(node_of_rank, trial, sizeof(int32_t) * (size_t)a.p);
        stats->after = sc;
    }
done:
    free(dense_to_node);
    an_free(&a);
    return s;
}
