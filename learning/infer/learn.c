/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map learn: reading profiles and learning grid and stencil from
 * them (see learn.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"

/* ---- reading ------------------------------------------------------------ */

typedef struct {
    bool have;
    int ndims;
    int64_t dims[SMP_MAX_DIMS];
    bool periods[SMP_MAX_DIMS];
    bool reorder;
    int64_t cart_rank;
} cart_line;

static smp_status push_edge(learn_profile *p, size_t *cap, learn_edge e, smp_error *err)
{
    if (p->nedges == *cap) {
        size_t n = *cap ? 2 * *cap : 1024;
        learn_edge *q = realloc(p->edges, n * sizeof(*q));
        if (!q)
            return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory reading the profile");
        p->edges = q;
        *cap = n;
    }
    p->edges[p->nedges++] = e;
    return SMP_OK;
}

/* A "cart SIZE NDIMS dims... periods... reorder cart_rank" or "dims_create
 * SIZE NDIMS dims..." line of rank r; the calls of some ranks' own
 * communicators only count when they span every rank.  SMP_ERR_INPUT when
 * malformed (the caller names the line). */
static smp_status read_call(const char *line, const char *word, long long a, long long b, int64_t r,
                            int64_t size, learn_profile *p, cart_line *cart)
{
    bool is_cart = !strcmp(word, "cart");
    if (a != size || b < 1 || b > SMP_MAX_DIMS)
        return SMP_OK;
    int nd = (int)b;
    const char *q = line;
    for (int k = 0; k < 3; k++) /* past the word and two numbers */
        q = strchr(q, ' ') ? strchr(q, ' ') + 1 : q + strlen(q);
    int64_t v[2 * SMP_MAX_DIMS + 2];
    int need = is_cart ? 2 * nd + 2 : nd, got = 0;
    while (got < need) {
        char *end;
        long long x = strtoll(q, &end, 10);
        if (end == q)
            break;
        v[got++] = x;
        q = end;
    }
    if (got != need)
        return SMP_ERR_INPUT;
    if (is_cart) {
        cart->have = true;
        cart->ndims = nd;
        for (int d = 0; d < nd; d++) {
            cart->dims[d] = v[d];
            cart->periods[d] = v[nd + d] != 0;
        }
        cart->reorder = v[2 * nd] != 0;
        cart->cart_rank = v[2 * nd + 1];
    } else if (r == 0) {
        p->dc_ndims = nd;
        memcpy(p->dc_dims, v, sizeof(int64_t) * (size_t)nd);
    }
    return SMP_OK;
}

/* Reads one rank's file; *size is its rank count (set by rank 0). */
static smp_status read_rank(const char *dir, int64_t r, learn_profile *p, size_t *cap, cart_line *cart,
                            int64_t *size, smp_error *err)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/rank.%" PRId64, dir, r);
    FILE *f = fopen(path, "r");
    if (!f)
        return smp_error_set(err, errno == ENOENT ? SMP_ERR_INPUT : SMP_ERR_SYSTEM,
                             "%s: cannot open: %s%s", path, strerror(errno),
                             r ? " (a rank did not reach MPI_Finalize?)" : "");
    char line[1024];
    int lineno = 0;
    smp_status s = SMP_OK;
    memset(cart, 0, sizeof(*cart));
    while (!s && fgets(line, sizeof(line), f)) {
        lineno++;
        long long a, b, c;
        char word[32];
        if (lineno == 1) {
            if (strcmp(line, "stencilmap-profile 1\n"))
                s = smp_error_set(err, SMP_ERR_INPUT, "%s: not a stencilmap profile (version 1)", path);
        } else if (lineno == 2) {
            if (sscanf(line, "rank %lld %lld", &a, &b) != 2 || a != r || b < 1 || b > SMP_MAX_RANKS ||
                (r && b != *size))
                s = smp_error_set(err, SMP_ERR_INPUT, "%s:2: expected 'rank %" PRId64 " %" PRId64 "'",
                                  path, r, r ? *size : (int64_t)0);
            else
                *size = b;
        } else if (sscanf(line, "d %lld %lld %lld", &a, &b, &c) == 3) {
            if (a < 0 || a >= *size || b < 0 || c < 0)
                s = smp_error_set(err, SMP_ERR_INPUT, "%s:%d: bad destination row", path, lineno);
            else if (a == r)
                p->self_bytes += c;
            else if (b || c)
                s = push_edge(p, cap, (learn_edge){(int32_t)r, (int32_t)a, b, c}, err);
        } else if (sscanf(line, "partial %lld", &a) == 1) {
            p->partial++;
            p->partial_exit += a == 0; /* "partial 0": an exit, not a signal */
        } else if (sscanf(line, "unresolved %lld", &a) == 1) {
            p->unresolved += a;
        } else if (sscanf(line, "%31s %lld %lld", word, &a, &b) == 3 &&
                   (!strcmp(word, "cart") || !strcmp(word, "dims_create"))) {
            s = read_call(line, word, a, b, r, *size, p, cart);
            if (s)
                smp_error_set(err, s, "%s:%d: malformed %s line", path, lineno, word);
        } else
            s = smp_error_set(err, SMP_ERR_INPUT, "%s:%d: unexpected line", path, lineno);
    }
    if (!s && lineno < 2)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s: truncated", path);
    fclose(f);
    return s;
}

smp_status learn_profile_read(const char *dir, learn_profile *p, smp_error *err)
{
    memset(p, 0, sizeof(*p));
    size_t cap = 0;
    int64_t size = 0;
    cart_line first, mine;
    bool carts_agree = true;
    smp_status s = SMP_OK;
    for (int64_t r = 0; !s && (r == 0 || r < size); r++) {
        s = read_rank(dir, r, p, &cap, r ? &mine : &first, &size, err);
        if (s || !r)
            continue;
        bool same = mine.have == first.have && mine.ndims == first.ndims;
        for (int d = 0; same && d < mine.ndims; d++)
            same = mine.dims[d] == first.dims[d] && mine.periods[d] == first.periods[d];
        carts_agree = carts_agree && same;
        if (mine.have && mine.cart_rank != r)
            p->cart_reordered = true;
    }
    if (s) {
        learn_profile_free(p);
        return s;
    }
    p->ranks = size;
    if (first.have && first.cart_rank != 0)
        p->cart_reordered = true;
    if (first.have && carts_agree) {
        int64_t prod = 1;
        for (int d = 0; d < first.ndims; d++)
            prod = first.dims[d] > 0 && prod <= SMP_MAX_RANKS ? prod * first.dims[d] : -1;
        if (prod == size) {
            p->have_cart = true;
            p->cart_ndims = first.ndims;
            memcpy(p->cart_dims, first.dims, sizeof(first.dims));
            memcpy(p->cart_periods, first.periods, sizeof(first.periods));
            p->cart_reorder = first.reorder;
        }
    }
    for (size_t i = 0; i < p->nedges; i++)
        p->total_bytes += (double)p->edges[i].bytes;
    return SMP_OK;
}

void learn_profile_free(learn_profile *p)
{
    free(p->edges);
    p->edges = NULL;
    p->nedges = 0;
}

/* ---- one grid's view ------------------------------------------------------ */

typedef struct {
    int64_t key;
    double bytes;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static int64_t abs64(int64_t x)
{
    return x < 0 ? -x : x;
}

static int by_rank_in_stencil(const void *a, const void *b)
{
    const learn_offset *x = a, *y = b;
    if (x->included != y->included)
        return x->included ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return memcmp(x->off, y->off, sizeof(x->off));
}

smp_status learn_evaluate(const learn_profile *p, const smp_grid *grid, learn_result *out,
                          smp_error *err)
{
    memset(out, 0, sizeof(*out));
    out->grid = *grid;
    int nd = grid->ndims;
    if (grid->size != p->ranks)
        return smp_error_set(err, SMP_ERR_INPUT, "the grid holds %" PRId64 " ranks, the profile %" PRId64,
                             grid->size, p->ranks);
    keyed *k = malloc(sizeof(keyed) * (p->nedges ? p->nedges : 1));
    if (!k)
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    int64_t cs[SMP_MAX_DIMS], ct[SMP_MAX_DIMS];
    for (size_t i = 0; i < p->nedges; i++) {
        smp_grid_coords(grid, p->edges[i].src, cs);
        smp_grid_coords(grid, p->edges[i].dst, ct);
        int64_t key = 0;
        for (int d = 0; d < nd; d++) {
            int64_t n = grid->dims[d], delta = ct[d] - cs[d];
            if (grid->periods[d]) { /* the nearest image: in (-n/2, n/2] */
                if (2 * delta > n)
                    delta -= n;
                else if (2 * delta <= -n)
                    delta += n;
            }
            key = key * (2 * n - 1) + (delta + n - 1);
        }
        k[i] = (keyed){key, (double)p->edges[i].bytes};
    }
    qsort(k, p->nedges, sizeof(keyed), by_key);
    size_t groups = 0;
    for (size_t i = 0; i < p->nedges; i++)
        groups += !i || k[i].key != k[i - 1].key;
    out->offsets = calloc(groups ? groups : 1, sizeof(learn_offset));
    if (!out->offsets) {
        free(k);
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    }
    for (size_t i = 0, j; i < p->nedges; i = j) {
        double sum = 0, dev = 0;
        for (j = i; j < p->nedges && k[j].key == k[i].key; j++)
            sum += k[j].bytes;
        int64_t e = (int64_t)(j - i);
        /* the model's bytes per edge: the median, which minimises the L1
         * error whatever the group's size, so that a few odd edges (a
         * gather to rank 0 on top of a halo message) weigh the same in
         * every grid */
        double typical = (j - i) % 2 ? k[i + (j - i) / 2].bytes
                                     : (k[i + (j - i) / 2 - 1].bytes + k[i + (j - i) / 2].bytes) / 2;
        for (size_t q = i; q < j; q++)
            dev += fabs(k[q].bytes - typical);
        learn_offset *o = &out->offsets[out->noffsets++];
        int64_t key = k[i].key, positions = 1;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t n = grid->dims[d];
            o->off[d] = (int32_t)(key % (2 * n - 1) - (n - 1));
            key /= 2 * n - 1;
            positions *= grid->periods[d] ? n : n - abs64(o->off[d]);
        }
        o->edges = e;
        o->positions = positions;
        o->bytes = sum;
        o->typical = typical;
        /* modelled, the offset costs the spread of its edges and the bytes
         * of the edges it predicts but that were not seen; left out, all
         * its bytes.  An offset seen once is no pattern. */
        double modelled = dev + (double)(positions > e ? positions - e : 0) * typical;
        o->included = e >= 2 && modelled < sum;
        out->error += o->included ? modelled : sum;
        if (o->included) {
            out->explained += sum;
            out->nincluded++;
        }
    }
    free(k);
    qsort(out->offsets, (size_t)out->noffsets, sizeof(learn_offset), by_rank_in_stencil);
    return SMP_OK;
}

void learn_result_free(learn_result *r)
{
    free(r->offsets);
    r->offsets = NULL;
}

void learn_weights(const learn_result *r, double *weights)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < r->nincluded; i++) {
        weights[i] = r->offsets[i].typical;
        lo = fmin(lo, weights[i]);
        hi = fmax(hi, weights[i]);
    }
    for (int i = 0; i < r->nincluded; i++) {
        double w = hi <= lo * 1.01 || !(lo > 0) ? 1.0 : weights[i] / lo;
        double scale = pow(10.0, 3 - floor(log10(w)));
        weights[i] = round(w * scale) / scale;
    }
}

/* ---- inference ------------------------------------------------------------ */

static int64_t offsets_norm(const learn_result *r)
{
    int64_t s = 0;
    for (int i = 0; i < r->nincluded; i++)
        for (int d = 0; d < r->grid.ndims; d++)
            s += abs64(r->offsets[i].off[d]);
    return s;
}

/* true when a explains the traffic better than b: a smaller error, then
 * fewer offsets, shorter ones, fewer dimensions, the application's own
 * MPI_Dims_create */
static bool better(const learn_result *a, const learn_result *b, const learn_profile *p)
{
    /* errors within 0.1 % of the bytes are a tie: the simpler model wins */
    double tol = 1e-3 * (p->total_bytes > 1 ? p->total_bytes : 1);
    if (a->error < b->error - tol)
        return true;
    if (a->error > b->error + tol)
        return false;
    if (a->nincluded != b->nincluded)
        return a->nincluded < b->nincluded;
    int64_t na = offsets_norm(a), nb = offsets_norm(b);
    if (na != nb)
        return na < nb;
    if (a->grid.ndims != b->grid.ndims)
        return a->grid.ndims < b->grid.ndims;
    bool da = p->dc_ndims == a->grid.ndims, db = p->dc_ndims == b->grid.ndims;
    for (int d = 0; d < p->dc_ndims; d++) {
        da = da && p->dc_dims[d] == a->grid.dims[d];
        db = db && p->dc_dims[d] == b->grid.dims[d];
    }
    return da && !db;
}

typedef struct {
    const learn_profile *p;
    learn_result best;
    bool have;
    int64_t candidates;
    smp_status s;
    smp_error *err;
} search;

static void consider(search *S, const smp_grid *g, learn_result *cur)
{
    learn_result r;
    if (S->s || (S->s = learn_evaluate(S->p, g, &r, S->err)))
        return;
    S->candidates++;
    if (!cur->offsets || better(&r, cur, S->p)) {
        learn_result_free(cur);
        *cur = r;
    } else
        learn_result_free(&r);
}

/* every periodicity is tried dimension by dimension, kept when it helps */
static void try_dims(search *S, int nd, const int64_t *dims)
{
    bool periods[SMP_MAX_DIMS] = {false};
    smp_grid g;
    smp_error e;
    if (smp_grid_init(&g, nd, dims, periods, &e))
        return;
    learn_result cur = {0};
    consider(S, &g, &cur);
    for (int d = 0; d < nd && !S->s; d++) {
        if (dims[d] < 3)
            continue;
        smp_grid t = cur.grid;
        t.periods[d] = true;
        consider(S, &t, &cur);
    }
    if (S->s) {
        learn_result_free(&cur);
        return;
    }
    if (!S->have || better(&cur, &S->best, S->p)) {
        learn_result_free(&S->best);
        S->best = cur;
        S->have = true;
    } else
        learn_result_free(&cur);
}

/* ordered factorisations of rest into nd - at factors of at least 2 */
static void factorise(search *S, int nd, int at, int64_t rest, int64_t *dims)
{
    if (S->s)
        return;
    if (at == nd - 1) {
        if (rest >= 2 || nd == 1) {
            dims[at] = rest;
            try_dims(S, nd, dims);
        }
        return;
    }
    for (int64_t f = 2; f <= rest / 2; f++)
        if (rest % f == 0) {
            dims[at] = f;
            factorise(S, nd, at + 1, rest / f, dims);
        }
}

smp_status learn_infer(const learn_profile *p, int max_dims, learn_result *out, smp_error *err)
{
    memset(out, 0, sizeof(*out));
    if (p->nedges == 0)
        return smp_error_set(err, SMP_ERR_INPUT, "the profile records no traffic between ranks");
    if (p->have_cart && !p->cart_reordered) {
        smp_grid g;
        smp_status s = smp_grid_init(&g, p->cart_ndims, p->cart_dims, p->cart_periods, err);
        if (!s)
            s = learn_evaluate(p, &g, out, err);
        if (s)
            return s;
        out->source = "MPI_Cart_create";
        out->candidates = 1;
        /* the application's grid, unless the traffic clearly follows another */
        if (out->explained >= 0.9 * p->total_bytes)
            return SMP_OK;
    }
    search S = {.p = p, .err = err};
    int64_t dims[SMP_MAX_DIMS];
    for (int nd = 1; nd <= max_dims && nd <= SMP_MAX_DIMS; nd++)
        factorise(&S, nd, 0, p->ranks, dims);
    if (S.s) {
        learn_result_free(&S.best);
        learn_result_free(out);
        return S.s;
    }
    if (out->offsets) {
        double tol = 0.05 * p->total_bytes;
        if (!(S.best.error < out->error - tol)) {
            out->candidates += S.candidates;
            learn_result_free(&S.best);
            return SMP_OK;
        }
        learn_result_free(out);
    }
    *out = S.best;
    out->source = p->have_cart ? (p->cart_reordered ? "inferred (MPI_Cart_create reordered the ranks)"
                                                    : "inferred (the traffic does not follow MPI_Cart_create's grid)")
                               : "inferred";
    out->candidates = S.candidates;
    return SMP_OK;
}
