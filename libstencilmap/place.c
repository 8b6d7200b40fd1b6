/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The task's place from STENCIL_MAP_* (strict); the grid arithmetic and
 * the edge counting that use it are job_grid.c's.  No PMIx. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencilmap.h"
#include "stencilmap_internal.h"
#include "formats/stencil_env.h"
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
