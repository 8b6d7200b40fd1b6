/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the unit tests: cmocka includes, a deterministic PRNG,
 * a naive reference scorer and assertions on error messages. */
#ifndef STENCILMAP_UNIT_UTIL_H
#define STENCILMAP_UNIT_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <stencilmap/placement.h>

/* splitmix64: deterministic, seeded per test. */
typedef struct {
    uint64_t s;
} tu_rng;

static inline uint64_t tu_next(tu_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static inline int64_t tu_range(tu_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(tu_next(r) % (uint64_t)(hi - lo + 1));
}

/* Asserts status and that the message contains needle. */
#define assert_err(call, want_status, err, needle)                                       \
    do {                                                                                 \
        smp_error_clear(&(err));                                                         \
        smp_status st_ = (call);                                                         \
        if (st_ != (want_status) || (err).status != (want_status) ||                     \
            strstr((err).msg, (needle)) == NULL)                                         \
            fail_msg("%s: status %d (err.status %d), message '%s'; wanted status %d "    \
                     "and a message containing '%s'",                                    \
                     #call, (int)st_, (int)(err).status, (err).msg, (int)(want_status),  \
                     (needle));                                                          \
    } while (0)

#define assert_ok(call, err)                                                              \
    do {                                                                                  \
        smp_error_clear(&(err));                                                          \
        smp_status st_ = (call);                                                          \
        if (st_ != SMP_OK)                                                                \
            fail_msg("%s: status %d, message '%s'", #call, (int)st_, (err).msg);          \
    } while (0)

/* Reference scorer: walks coordinates naively, one edge at a time, with
 * nothing shared with the library but the data structures. */
typedef struct {
    int64_t j_sum, j_max;
    double w_sum, w_max;
} tu_score;

static inline void tu_brute_score(int ndims, const int64_t *dims, const bool *periods,
                                  int count, const int32_t *offsets, const double *weights,
                                  const int32_t *node_of_rank, int nnodes, tu_score *out)
{
    int64_t size = 1;
    for (int i = 0; i < ndims; i++)
        size *= dims[i];
    int64_t *cnt = calloc((size_t)nnodes, sizeof(int64_t));
    double *w = calloc((size_t)nnodes, sizeof(double));
    assert_non_null(cnt);
    assert_non_null(w);
    for (int64_t r = 0; r < size; r++) {
        int64_t c[SMP_MAX_DIMS], rest = r;
        for (int i = ndims - 1; i >= 0; i--) {
            c[i] = rest % dims[i];
            rest /= dims[i];
        }
        for (int k = 0; k < count; k++) {
            int64_t t = 0;
            bool inside = true;
            for (int i = 0; i < ndims; i++) {
                int64_t x = c[i] + offsets[k * ndims + i];
                if (x < 0 || x >= dims[i]) {
                    if (!periods[i]) {
                        inside = false;
                        break;
                    }
                    while (x < 0)
                        x += dims[i];
                    while (x >= dims[i])
                        x -= dims[i];
                }
                t = t * dims[i] + x;
            }
            if (!inside || node_of_rank[t] == node_of_rank[r])
                continue;
            cnt[node_of_rank[r]]++;
            w[node_of_rank[r]] += weights ? weights[k] : 1.0;
        }
    }
    memset(out, 0, sizeof(*out));
    for (int n = 0; n < nnodes; n++) {
        out->j_sum += cnt[n];
        out->w_sum += w[n];
        if (cnt[n] > out->j_max)
            out->j_max = cnt[n];
        if (w[n] > out->w_max)
            out->w_max = w[n];
    }
    free(cnt);
    free(w);
}

/* A random instance: 1 to 4 dimensions, random periods, a family or a
 * random (maybe weighted, maybe asymmetric) stencil, and equal, dividing or
 * heterogeneous nodes, sometimes more slots than ranks. */
static inline void tu_random_instance(tu_rng *rng, smp_grid *g, smp_stencil *st, int32_t **slots,
                                      int *nnodes, char *what, size_t whatlen)
{
    smp_error err;
    int d = (int)tu_range(rng, 1, 4);
    int64_t dims[SMP_MAX_DIMS], maxside = d == 1 ? 64 : d == 2 ? 20 : d == 3 ? 8 : 5;
    bool per[SMP_MAX_DIMS];
    for (int i = 0; i < d; i++) {
        dims[i] = tu_range(rng, 1, maxside);
        per[i] = tu_range(rng, 0, 1);
    }
    assert_ok(smp_grid_init(g, d, dims, per, &err), err);
    int kind = (int)tu_range(rng, 0, 3);
    const char *fam = kind == 0 ? "nearest" : kind == 1 ? "hops" : kind == 2 && d > 1 ? "component" : NULL;
    if (fam) {
        assert_ok(smp_stencil_family(st, fam, d, &err), err);
    } else {
        int32_t offs[10 * 4];
        double w[10];
        int n = 0;
        int want = (int)tu_range(rng, 1, 10), amax = (int)tu_range(rng, 1, 4);
        for (int tries = 0; n < want && tries < 200; tries++) {
            int32_t *o = offs + n * d;
            bool zero = true, dup = false;
            for (int i = 0; i < d; i++) {
                o[i] = (int32_t)tu_range(rng, -amax, amax);
                zero = zero && o[i] == 0;
            }
            for (int j = 0; j < n && !dup; j++)
                dup = memcmp(o, offs + j * d, sizeof(int32_t) * (size_t)d) == 0;
            if (!zero && !dup) {
                w[n] = (double)tu_range(rng, 1, 16) / 4.0;
                n++;
            }
        }
        bool weighted = tu_range(rng, 0, 1);
        assert_ok(smp_stencil_init(st, d, n, offs, weighted ? w : NULL, "stencil", &err), err);
    }
    int64_t p = g->size;
    int32_t *s = malloc(sizeof(int32_t) * (size_t)(p + 8));
    assert_non_null(s);
    int n = 0;
    int64_t total = 0;
    int shape = (int)tu_range(rng, 0, 2);
    if (shape == 0) { /* equal nodes, exactly or more than enough */
        int32_t per_node = (int32_t)tu_range(rng, 1, p < 48 ? p : 48);
        while (total < p) {
            s[n++] = per_node;
            total += per_node;
        }
        for (int extra = (int)tu_range(rng, 0, 2); extra > 0; extra--)
            s[n++] = per_node;
    } else if (shape == 1) { /* equal nodes that divide p */
        int64_t divs[64];
        int nd = 0;
        for (int64_t f = 1; f <= p && nd < 64; f++)
            if (p % f == 0)
                divs[nd++] = f;
        int32_t per_node = (int32_t)divs[tu_range(rng, 0, nd - 1)];
        for (int64_t k = 0; k < p / per_node; k++)
            s[n++] = per_node;
    } else { /* heterogeneous */
        int64_t top = p < 16 ? p : 16;
        while (total < p) {
            s[n] = (int32_t)tu_range(rng, 1, top);
            total += s[n++];
        }
        for (int extra = (int)tu_range(rng, 0, 2); extra > 0; extra--)
            s[n++] = (int32_t)tu_range(rng, 1, top);
    }
    *slots = s;
    *nnodes = n;
    snprintf(what, whatlen, "grid %lld,%lld,%lld,%lld periods %d%d%d%d, stencil %s (%d%s), %d nodes of %d..",
             (long long)g->dims[0], (long long)(d > 1 ? g->dims[1] : 0),
             (long long)(d > 2 ? g->dims[2] : 0), (long long)(d > 3 ? g->dims[3] : 0),
             g->periods[0], g->periods[1], g->periods[2], g->periods[3], fam ? fam : "random",
             st->count, st->weights ? ", weighted" : "", n, s[0]);
}

static inline bool tu_close(double a, double b)
{
    double d = a > b ? a - b : b - a, m = a > b ? a : b;
    return d <= 1e-9 * (m > 1 ? m : 1);
}

/* Node shares as plan makes them: nodes filled in order. */
static inline int32_t *tu_shares_of(const int32_t *slots, int nnodes, int64_t p)
{
    int32_t *cap = calloc((size_t)nnodes, sizeof(int32_t));
    assert_non_null(cap);
    for (int i = 0; i < nnodes && p > 0; i++) {
        cap[i] = (int32_t)(p < slots[i] ? p : slots[i]);
        p -= cap[i];
    }
    return cap;
}

/* A random permutation of [0, n) into out: a seeded shuffle. */
static inline void tu_random_permutation(tu_rng *rng, int n, int32_t *out)
{
    for (int v = 0; v < n; v++)
        out[v] = v;
    for (int v = n - 1; v > 0; v--) {
        int u = (int)tu_range(rng, 0, v);
        int32_t t = out[u];
        out[u] = out[v];
        out[v] = t;
    }
}

/* A random placement with the given shares: a seeded shuffle. */
static inline void tu_random_placement(tu_rng *rng, const int32_t *cap, int nnodes, int64_t p,
                                       int32_t *out)
{
    int64_t k = 0;
    for (int i = 0; i < nnodes; i++)
        for (int32_t j = 0; j < cap[i]; j++)
            out[k++] = i;
    for (int64_t i = p - 1; i > 0; i--) {
        int64_t j = tu_range(rng, 0, i);
        int32_t t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
}

/* A placement to start a search from: with `construct`, a random single
 * construction's (refined when `refine`), else -- or where the
 * construction does not apply, as nodecart may not -- a random one. */
static inline void tu_start_placement(tu_rng *rng, const smp_grid *g, const smp_stencil *st,
                                      const int32_t *slots, int nnodes, const int32_t *cap,
                                      bool construct, bool refine, int32_t *out)
{
    if (!construct) {
        tu_random_placement(rng, cap, nnodes, g->size, out);
        return;
    }
    smp_algorithm alg = (smp_algorithm)tu_range(rng, SMP_ALG_HYPERPLANE, SMP_ALG_BISECT);
    smp_placement c;
    smp_error err;
    if (smp_plan(g, st, slots, nnodes, alg, &c, &err) != SMP_OK) {
        tu_random_placement(rng, cap, nnodes, g->size, out);
        return;
    }
    memcpy(out, c.node_of_rank, sizeof(int32_t) * (size_t)g->size);
    smp_placement_free(&c);
    if (refine && smp_refine(g, st, out, nnodes, 0, NULL, &err) != SMP_OK)
        fail_msg("refine: %s", err.msg);
}

/* Score a worse than score b by the objective (weighted when weighted):
 * under "max" by J_max, then J_sum. */
static inline bool tu_worse_for(const tu_score *a, const tu_score *b, bool weighted,
                                smp_objective obj)
{
    double eps = 1e-9 * (1 + (b->w_sum > 0 ? b->w_sum : 0));
    if (obj == SMP_OBJ_MAX) {
        if (weighted ? !tu_close(a->w_max, b->w_max) : a->j_max != b->j_max)
            return weighted ? a->w_max > b->w_max : a->j_max > b->j_max;
    }
    return weighted ? a->w_sum > b->w_sum + eps : a->j_sum > b->j_sum;
}

/* Fails unless placement pl of p ranks puts exactly cap[i] ranks on node i. */
static inline void tu_assert_shares(const char *what, const int32_t *pl, int64_t p,
                                    const int32_t *cap, int nnodes)
{
    int64_t *got = calloc((size_t)nnodes, sizeof(int64_t));
    assert_non_null(got);
    for (int64_t r = 0; r < p; r++) {
        if (pl[r] < 0 || pl[r] >= nnodes)
            fail_msg("%s: rank %lld on node %d of %d", what, (long long)r, pl[r], nnodes);
        got[pl[r]]++;
    }
    for (int i = 0; i < nnodes; i++)
        if (got[i] != cap[i])
            fail_msg("%s: node %d has %lld ranks, its share is %d", what, i, (long long)got[i], cap[i]);
    free(got);
}

#endif
