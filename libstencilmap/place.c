/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The task's place from STENCIL_MAP_* (strict), grid arithmetic and the
 * edge counting shared by stencilmap_verify() and the unit tests.  No PMIx. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencilmap.h"
#include "stencilmap_internal.h"
#include "stencil_env.h"
#include <stencilmap/placement.h>

/* stencilmap.h is installed by another package than placement.h, so it
 * spells the limits itself; they must be the placement core's, since the
 * plugin plans within SMP_MAX_* and stencil_env.c parses into arrays of
 * STENCILMAP_MAX_DIMS entries. */
_Static_assert(STENCILMAP_MAX_DIMS == SMP_MAX_DIMS, "limits: dimensions");
_Static_assert(STENCILMAP_MAX_OFFSETS == SMP_MAX_OFFSETS, "limits: offsets");
_Static_assert(STENCILMAP_MAX_OFFSET_ABS == SMP_MAX_OFFSET_ABS, "limits: offset entries");
_Static_assert(STENCILMAP_MAX_RANKS == SMP_MAX_RANKS, "limits: ranks");
_Static_assert(STENCILMAP_MAX_LEVELS == SMP_MAX_LEVELS, "limits: levels");

stencilmap_status sm_msg(char *msg, size_t len, stencilmap_status st, const char *fmt, ...)
{
    if (msg && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* The lists' text is stencil_env.c's, shared with the plugin that writes
 * them; here its failures become the library's status. */
static stencilmap_status parse_list(const char *name, const char *s, int max, int64_t lo, int64_t hi,
                                    int64_t *out, int *n, char *msg, size_t len)
{
    return smp_env_parse_list(name, s, max, lo, hi, out, n, msg, len) ? STENCILMAP_ERR_ENV
                                                                       : STENCILMAP_OK;
}

static const char *env_get(const char *name, void *arg)
{
    (void)arg;
    return getenv(name);
}

stencilmap_status stencilmap_place_from_env(stencilmap_place *pl, char *msg, size_t msglen)
{
    return stencilmap_place_parse(pl, env_get, NULL, msg, msglen);
}

void stencilmap_place_free(stencilmap_place *pl)
{
    if (!pl)
        return;
    free(pl->offsets);
    free(pl->weights);
    pl->offsets = NULL;
    pl->weights = NULL;
    pl->noffsets = 0;
    sm_levels_free(pl);
}

static stencilmap_status parse_stencil(stencilmap_place *pl, const char *s, char *msg, size_t len)
{
    const char *name = SMP_ENV_STENCIL;
    if (!*s)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s: empty", name);
    int count = 1;
    for (const char *p = s; *p; p++)
        if (*p == ';')
            count++;
    if (count > STENCILMAP_MAX_OFFSETS)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s: %d offsets, at most %d", name, count,
                      STENCILMAP_MAX_OFFSETS);
    pl->offsets = malloc(sizeof(int32_t) * (size_t)count * (size_t)pl->ndims);
    if (!pl->offsets)
        return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "%s: out of memory", name);
    const char *p = s;
    for (int k = 0; k < count; k++) {
        const char *e = strchr(p, ';');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char *vec = strndup(p, l);
        if (!vec)
            return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "%s: out of memory", name);
        int64_t v[STENCILMAP_MAX_DIMS];
        int n;
        char sub[48];
        snprintf(sub, sizeof(sub), "%s offset %d", name, k + 1);
        stencilmap_status st = parse_list(sub, vec, STENCILMAP_MAX_DIMS, -STENCILMAP_MAX_OFFSET_ABS,
                                          STENCILMAP_MAX_OFFSET_ABS, v, &n, msg, len);
        if (st == STENCILMAP_OK && n != pl->ndims)
            st = sm_msg(msg, len, STENCILMAP_ERR_ENV,
                        "%s offset %d '%s' has %d entries, STENCIL_MAP_DIMS has %d", name, k + 1,
                        vec, n, pl->ndims);
        int zero = 1;
        for (int i = 0; st == STENCILMAP_OK && i < n; i++)
            zero &= v[i] == 0;
        if (st == STENCILMAP_OK && zero)
            st = sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s offset %d '%s' is the zero vector", name,
                        k + 1, vec);
        free(vec);
        if (st != STENCILMAP_OK)
            return st;
        for (int i = 0; i < n; i++)
            pl->offsets[k * pl->ndims + i] = (int32_t)v[i];
        for (int j = 0; j < k; j++)
            if (!memcmp(pl->offsets + j * pl->ndims, pl->offsets + k * pl->ndims,
                        sizeof(int32_t) * (size_t)pl->ndims))
                return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s: offsets %d and %d are equal",
                              name, j + 1, k + 1);
        p = e ? e + 1 : p + l;
    }
    pl->noffsets = count;
    return STENCILMAP_OK;
}

static stencilmap_status parse_weights(stencilmap_place *pl, const char *s, char *msg, size_t len)
{
    const char *name = SMP_ENV_WEIGHTS;
    pl->weights = malloc(sizeof(double) * (size_t)pl->noffsets);
    if (!pl->weights)
        return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "%s: out of memory", name);
    const char *p = s;
    int n = 0;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (n == pl->noffsets)
            return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                          "%s=%s: more entries than the %d offsets of STENCIL_MAP_STENCIL", name,
                          s, pl->noffsets);
        char buf[64];
        if (l == 0 || l >= sizeof(buf))
            return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s: entry %d is empty or too long",
                          name, n + 1);
        memcpy(buf, p, l);
        buf[l] = '\0';
        errno = 0;
        char *end;
        double w = strtod(buf, &end);
        if (errno || *end || buf[0] == ' ' || !isfinite(w) || !(w > 0))
            return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                          "%s: entry %d '%s' is not a positive finite number", name, n + 1, buf);
        pl->weights[n++] = w;
        if (!e)
            break;
        p = e + 1;
    }
    if (n != pl->noffsets)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s has %d entries, STENCIL_MAP_STENCIL has %d",
                      name, n, pl->noffsets);
    return STENCILMAP_OK;
}

static stencilmap_status parse_count(const char *name, const char *s, int64_t *out, char *msg,
                                     size_t len)
{
    int n;
    if (smp_env_parse_list(name, s, 1, 0, INT64_MAX, out, &n, NULL, 0))
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s='%.40s': not a non-negative integer", name,
                      s);
    return STENCILMAP_OK;
}

static stencilmap_status parse_periods(stencilmap_place *pl, const char *per, const char *dims,
                                       char *msg, size_t len)
{
    int64_t v[STENCILMAP_MAX_DIMS];
    int n;
    stencilmap_status st;
    if (!per)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                      "STENCIL_MAP_PERIODS is not set (STENCIL_MAP_DIMS is)");
    if ((st = parse_list(SMP_ENV_PERIODS, per, STENCILMAP_MAX_DIMS, 0, 1, v, &n, msg, len)))
        return st;
    if (n != pl->ndims)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                      "STENCIL_MAP_PERIODS=%s has %d entries, STENCIL_MAP_DIMS=%s has %d", per, n,
                      dims, pl->ndims);
    for (int i = 0; i < n; i++)
        pl->periods[i] = (int)v[i];
    return STENCILMAP_OK;
}

static stencilmap_status parse_coords(stencilmap_place *pl, const char *coords, const char *dims,
                                      char *msg, size_t len)
{
    int64_t v[STENCILMAP_MAX_DIMS];
    int n;
    stencilmap_status st;
    if ((st = parse_list(SMP_ENV_COORDS, coords, STENCILMAP_MAX_DIMS, 0, STENCILMAP_MAX_RANKS, v,
                         &n, msg, len)))
        return st;
    if (n != pl->ndims)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                      "STENCIL_MAP_COORDS=%s has %d entries, STENCIL_MAP_DIMS=%s has %d", coords, n,
                      dims, pl->ndims);
    for (int i = 0; i < n; i++) {
        if (v[i] >= pl->dims[i])
            return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                          "STENCIL_MAP_COORDS=%s: coordinate %d is outside STENCIL_MAP_DIMS=%s",
                          coords, i + 1, dims);
        pl->coords[i] = v[i];
    }
    pl->has_coords = 1;
    return STENCILMAP_OK;
}

/* A J_sum/J_max pair (both or neither); with ordered, J_max <= J_sum. */
static stencilmap_status parse_pair(stencilmap_getenv_fn get, void *arg, const char *sum_name,
                                    const char *max_name, int ordered, int64_t *sum, int64_t *max,
                                    int *has, char *msg, size_t len)
{
    const char *js = get(sum_name, arg), *jm = get(max_name, arg);
    stencilmap_status st;
    if (!js != !jm)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s is set but %s is not",
                      js ? sum_name : max_name, js ? max_name : sum_name);
    if (!js)
        return STENCILMAP_OK;
    if ((st = parse_count(sum_name, js, sum, msg, len)) ||
        (st = parse_count(max_name, jm, max, msg, len)))
        return st;
    if (ordered && *max > *sum)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s=%s is larger than %s=%s", max_name, jm,
                      sum_name, js);
    *has = 1;
    return STENCILMAP_OK;
}

static stencilmap_status parse_algorithm(stencilmap_place *pl, const char *alg, char *msg,
                                         size_t len)
{
    size_t l = strlen(alg);
    if (l == 0 || l >= sizeof(pl->algorithm) ||
        strspn(alg, "abcdefghijklmnopqrstuvwxyz0123456789_-") != l)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                      "STENCIL_MAP_ALGORITHM='%.40s': not an algorithm name", alg);
    memcpy(pl->algorithm, alg, l + 1);
    return STENCILMAP_OK;
}

static stencilmap_status place_parse(stencilmap_place *pl, stencilmap_getenv_fn get, void *arg,
                                     char *msg, size_t len)
{
    const char *dims = get(SMP_ENV_DIMS, arg);
    if (!dims) {
        const char *alg = get(SMP_ENV_ALGORITHM, arg);
        if (alg && !strcmp(alg, "blocked"))
            return sm_msg(msg, len, STENCILMAP_ERR_NOENV,
                          "STENCIL_MAP_DIMS is not set: the placement fell back to Slurm's "
                          "block layout (STENCIL_MAP_ALGORITHM=blocked, on_error=blocked)");
        return sm_msg(msg, len, STENCILMAP_ERR_NOENV,
                      "STENCIL_MAP_DIMS is not set: the step was not launched with --stencil-map");
    }
    if (smp_env_parse_dims(dims, pl->dims, &pl->ndims, &pl->size, msg, len))
        return STENCILMAP_ERR_ENV;
    stencilmap_status st;
    if ((st = parse_periods(pl, get(SMP_ENV_PERIODS, arg), dims, msg, len)))
        return st;
    const char *order = get(SMP_ENV_ORDER, arg);
    if (order && (pl->column_major = smp_env_parse_order(order, msg, len)) < 0)
        return STENCILMAP_ERR_ENV;
    const char *coords = get(SMP_ENV_COORDS, arg);
    if (coords && (st = parse_coords(pl, coords, dims, msg, len)))
        return st;

    const char *sten = get(SMP_ENV_STENCIL, arg);
    if (!sten)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV,
                      "STENCIL_MAP_STENCIL is not set (STENCIL_MAP_DIMS is)");
    if ((st = parse_stencil(pl, sten, msg, len)))
        return st;
    const char *w = get(SMP_ENV_WEIGHTS, arg);
    if (w && (st = parse_weights(pl, w, msg, len)))
        return st;

    const char *alg = get(SMP_ENV_ALGORITHM, arg);
    if (alg && (st = parse_algorithm(pl, alg, msg, len)))
        return st;
    if ((st = parse_pair(get, arg, SMP_ENV_JSUM, SMP_ENV_JMAX, 1, &pl->planned_jsum,
                         &pl->planned_jmax, &pl->has_planned, msg, len)))
        return st;
    if ((st = parse_pair(get, arg, SMP_ENV_BLOCKED_JSUM, SMP_ENV_BLOCKED_JMAX, 0,
                         &pl->blocked_jsum, &pl->blocked_jmax, &pl->has_blocked, msg, len)))
        return st;
    return sm_levels_parse(pl, get, arg, msg, len);
}

stencilmap_status stencilmap_place_parse(stencilmap_place *pl, stencilmap_getenv_fn get, void *arg,
                                         char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (!pl || !get)
        return sm_msg(msg, msglen, STENCILMAP_ERR_ARG, "stencilmap_place_parse: NULL argument");
    memset(pl, 0, sizeof(*pl));
    stencilmap_status st = place_parse(pl, get, arg, msg, msglen);
    if (st != STENCILMAP_OK)
        stencilmap_place_free(pl);
    return st;
}

/* ---- grid ---------------------------------------------------------------- */
/* The one deliberate twin of placement/edges.h: this grid arithmetic and
 * the edge walk below are how the running job checks the planner, so they
 * share none of its code (a bug in a shared walk would make the plan and
 * the check agree on a wrong count, and the check would hide it).
 * tests/injob/test_injob_edges.c holds the two to the same counts on
 * random grids (1 to 5 dimensions, periodic or not, row- or column-major,
 * weighted, offsets longer than the grid) and on the core's real plans. */
void stencilmap_rank_coords(const stencilmap_place *pl, int64_t rank, int64_t *coords)
{
    for (int k = 0; k < pl->ndims; k++) {
        int i = pl->column_major ? k : pl->ndims - 1 - k; /* the fastest axis first */
        coords[i] = rank % pl->dims[i];
        rank /= pl->dims[i];
    }
}

int64_t stencilmap_coords_rank(const stencilmap_place *pl, const int64_t *coords)
{
    int64_t r = 0;
    for (int k = 0; k < pl->ndims; k++) {
        int i = pl->column_major ? pl->ndims - 1 - k : k; /* the slowest axis first */
        r = r * pl->dims[i] + coords[i];
    }
    return r;
}

static int64_t shifted(const stencilmap_place *pl, int64_t rank, int k, int sign)
{
    if (rank < 0 || rank >= pl->size || k < 0 || k >= pl->noffsets)
        return -1;
    int64_t c[STENCILMAP_MAX_DIMS];
    stencilmap_rank_coords(pl, rank, c);
    for (int i = 0; i < pl->ndims; i++) {
        int64_t x = c[i] + sign * (int64_t)pl->offsets[k * pl->ndims + i];
        if (x < 0 || x >= pl->dims[i]) {
            if (!pl->periods[i])
                return -1;
            x = ((x % pl->dims[i]) + pl->dims[i]) % pl->dims[i];
        }
        c[i] = x;
    }
    return stencilmap_coords_rank(pl, c);
}

int64_t stencilmap_neighbor(const stencilmap_place *pl, int64_t rank, int k)
{
    return shifted(pl, rank, k, 1);
}

int64_t stencilmap_neighbor_from(const stencilmap_place *pl, int64_t rank, int k)
{
    return shifted(pl, rank, k, -1);
}

/* ---- edges ---------------------------------------------------------------- */
stencilmap_status stencilmap_rank_out_edges(const stencilmap_place *pl, int64_t rank,
                                            stencilmap_same_node_fn same, void *arg,
                                            int64_t *edges, double *weight)
{
    if (!pl || !same || rank < 0 || rank >= pl->size)
        return STENCILMAP_ERR_ARG;
    int64_t e = 0;
    double w = 0;
    for (int k = 0; k < pl->noffsets; k++) {
        int64_t t = stencilmap_neighbor(pl, rank, k);
        if (t < 0)
            continue;
        int s = same(arg, rank, t);
        if (s < 0)
            return STENCILMAP_ERR_PMIX;
        if (s)
            continue;
        e++;
        w += pl->weights ? pl->weights[k] : 1.0;
    }
    if (edges)
        *edges = e;
    if (weight)
        *weight = w;
    return STENCILMAP_OK;
}

void stencilmap_edges_free(stencilmap_edges *e)
{
    if (!e)
        return;
    free(e->node_edges);
    free(e->node_weight);
    free(e->node_ranks);
    memset(e, 0, sizeof(*e));
}

stencilmap_status stencilmap_edges_aggregate(stencilmap_edges *out, int64_t nranks,
                                             const int32_t *node_of_rank, int nnodes,
                                             const int64_t *rank_edges, const double *rank_weight)
{
    if (!out || !node_of_rank || !rank_edges || nnodes <= 0 || nranks < 0)
        return STENCILMAP_ERR_ARG;
    memset(out, 0, sizeof(*out));
    out->node_edges = calloc((size_t)nnodes, sizeof(int64_t));
    out->node_weight = calloc((size_t)nnodes, sizeof(double));
    out->node_ranks = calloc((size_t)nnodes, sizeof(int64_t));
    if (!out->node_edges || !out->node_weight || !out->node_ranks) {
        stencilmap_edges_free(out);
        return STENCILMAP_ERR_NOMEM;
    }
    out->nnodes = nnodes;
    for (int64_t r = 0; r < nranks; r++) {
        int32_t n = node_of_rank[r];
        if (n < 0 || n >= nnodes) {
            stencilmap_edges_free(out);
            return STENCILMAP_ERR_ARG;
        }
        out->node_edges[n] += rank_edges[r];
        out->node_weight[n] += rank_weight ? rank_weight[r] : (double)rank_edges[r];
        out->node_ranks[n]++;
    }
    for (int n = 0; n < nnodes; n++) {
        out->jsum += out->node_edges[n];
        out->wsum += out->node_weight[n];
        if (out->node_edges[n] > out->jmax) {
            out->jmax = out->node_edges[n];
            out->jmax_node = n;
        }
        if (out->node_weight[n] > out->wmax)
            out->wmax = out->node_weight[n];
    }
    return STENCILMAP_OK;
}

static int same_by_array(void *arg, int64_t a, int64_t b)
{
    const int32_t *node_of_rank = arg;
    return node_of_rank[a] == node_of_rank[b];
}

stencilmap_status stencilmap_edges_count(stencilmap_edges *out, const stencilmap_place *pl,
                                         const int32_t *node_of_rank, int nnodes)
{
    if (!out || !pl || !node_of_rank)
        return STENCILMAP_ERR_ARG;
    int64_t *re = malloc(sizeof(int64_t) * (size_t)(pl->size ? pl->size : 1));
    double *rw = malloc(sizeof(double) * (size_t)(pl->size ? pl->size : 1));
    if (!re || !rw) {
        free(re);
        free(rw);
        return STENCILMAP_ERR_NOMEM;
    }
    stencilmap_status st = STENCILMAP_OK;
    for (int64_t r = 0; r < pl->size && st == STENCILMAP_OK; r++)
        st = stencilmap_rank_out_edges(pl, r, same_by_array, (void *)node_of_rank, &re[r], &rw[r]);
    if (st == STENCILMAP_OK)
        st = stencilmap_edges_aggregate(out, pl->size, node_of_rank, nnodes, re, rw);
    free(re);
    free(rw);
    return st;
}
