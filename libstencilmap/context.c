/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The in-job context: publication of the task's place through the job's
 * transport (PMIx, or PMI-1 under MPICH's Hydra: kvs.h), the getters, and
 * the collective verification of the placement from that data. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvs.h"
#include "stencilmap.h"
#include "stencilmap_internal.h"
#include "formats/stencil_env.h"

#define KEY_COORDS "stencilmap.coords"
#define KEY_NODE "stencilmap.node"
#define KEY_STATUS "stencilmap.status"
#define KEY_ERROR "stencilmap.error"
#define KEY_DIMS "stencilmap.dims"
#define KEY_PERIODS "stencilmap.periods"
#define KEY_STENCIL "stencilmap.stencil"
#define KEY_EDGES "stencilmap.edges"
#define KEY_WEDGES "stencilmap.wedges"
#define KEY_VSTATUS "stencilmap.vstatus"
#define KEY_VERROR "stencilmap.verror"
/* per network level l: "stencilmap.ledges.<l>", "stencilmap.lwedges.<l>" */
#define KEY_LEDGES "stencilmap.ledges"
#define KEY_LWEDGES "stencilmap.lwedges"

struct stencilmap_ctx {
    int up; /* the transport is up (PMIx or PMI-1) */
    sm_kvs kvs;
    int64_t rank, size;
    stencilmap_status env_status;
    int has_place;
    stencilmap_place place;
    char node[256];
    char **node_cache; /* size entries, filled lazily */
    char msg[STENCILMAP_MSG_LEN];
};

static stencilmap_status ctx_err(stencilmap_ctx *ctx, stencilmap_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static stencilmap_status ctx_err(stencilmap_ctx *ctx, stencilmap_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
    va_end(ap);
    return st;
}

const char *stencilmap_strerror(stencilmap_status st)
{
    switch (st) {
    case STENCILMAP_OK: return "success";
    case STENCILMAP_ERR_MISMATCH: return "observed placement differs from the plan";
    case STENCILMAP_ERR_ENV: return "invalid STENCIL_MAP_* environment";
    case STENCILMAP_ERR_NOENV: return "step not placed (no STENCIL_MAP_DIMS)";
    case STENCILMAP_ERR_PMIX: return "PMIx or PMI error";
    case STENCILMAP_ERR_ARG: return "invalid argument";
    case STENCILMAP_ERR_NOMEM: return "out of memory";
    case STENCILMAP_ERR_PEER: return "another rank failed";
    case STENCILMAP_ERR_IO: return "file not written";
    }
    return "unknown status";
}

const char *stencilmap_errmsg(const stencilmap_ctx *ctx)
{
    return ctx ? ctx->msg : "out of memory (no stencilmap context)";
}

int64_t stencilmap_rank(const stencilmap_ctx *ctx) { return ctx && ctx->up ? ctx->rank : -1; }
int64_t stencilmap_size(const stencilmap_ctx *ctx) { return ctx && ctx->up ? ctx->size : -1; }
const char *stencilmap_node(const stencilmap_ctx *ctx) { return ctx ? ctx->node : ""; }

const stencilmap_place *stencilmap_get_place(const stencilmap_ctx *ctx)
{
    return ctx && ctx->has_place ? &ctx->place : NULL;
}

/* ---- the transport ----------------------------------------------------------- */
static stencilmap_status put_string(stencilmap_ctx *ctx, const char *key, const char *v)
{
    return ctx->kvs.ops->put(&ctx->kvs, key, v, SM_KVS_TEXT, ctx->msg, sizeof(ctx->msg));
}

/* numbers with the PMIx types stencilmap.h(3) documents for their keys */
static stencilmap_status put_int(stencilmap_ctx *ctx, const char *key, int i)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%d", i);
    return ctx->kvs.ops->put(&ctx->kvs, key, buf, SM_KVS_INT, ctx->msg, sizeof(ctx->msg));
}

static stencilmap_status put_u64(stencilmap_ctx *ctx, const char *key, uint64_t u)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)u);
    return ctx->kvs.ops->put(&ctx->kvs, key, buf, SM_KVS_UINT64, ctx->msg, sizeof(ctx->msg));
}

static stencilmap_status put_double(stencilmap_ctx *ctx, const char *key, double d)
{
    char buf[40];
    snprintf(buf, sizeof(buf), "%.17g", d);
    return ctx->kvs.ops->put(&ctx->kvs, key, buf, SM_KVS_DOUBLE, ctx->msg, sizeof(ctx->msg));
}

static stencilmap_status get_string(stencilmap_ctx *ctx, int64_t rank, const char *key, char **out)
{
    return ctx->kvs.ops->get(&ctx->kvs, rank, key, out, ctx->msg, sizeof(ctx->msg));
}

static stencilmap_status get_number(stencilmap_ctx *ctx, int64_t rank, const char *key,
                                    double *out)
{
    char *s = NULL, *end;
    stencilmap_status st = get_string(ctx, rank, key, &s);
    if (st)
        return st;
    *out = strtod(s, &end);
    if (end == s || *end)
        st = ctx_err(ctx, STENCILMAP_ERR_PMIX, "%s get(rank %lld, \"%s\"): not a number: '%.40s'",
                     ctx->kvs.ops->name, (long long)rank, key, s);
    free(s);
    return st;
}

static stencilmap_status fence(stencilmap_ctx *ctx, const char *what)
{
    char why[STENCILMAP_MSG_LEN];
    stencilmap_status st = ctx->kvs.ops->fence(&ctx->kvs, why, sizeof(why));
    if (st)
        return ctx_err(ctx, st, "%s (%s)", why, what);
    return STENCILMAP_OK;
}

/* ---- init / finalize -------------------------------------------------------- */
/* Checks the place against the job and fills in derived coordinates. */
static stencilmap_status check_place(stencilmap_ctx *ctx)
{
    stencilmap_place *pl = &ctx->place;
    char dims[STENCILMAP_MAX_DIMS * 24];
    smp_env_format_list(dims, sizeof(dims), pl->dims, pl->ndims);
    if (pl->size != ctx->size)
        return ctx_err(ctx, STENCILMAP_ERR_ENV,
                       "STENCIL_MAP_DIMS=%s is a grid of %lld ranks but the step has %lld tasks",
                       dims, (long long)pl->size, (long long)ctx->size);
    int64_t c[STENCILMAP_MAX_DIMS];
    stencilmap_rank_coords(pl, ctx->rank, c);
    if (pl->has_coords && memcmp(c, pl->coords, sizeof(int64_t) * (size_t)pl->ndims)) {
        char want[STENCILMAP_MAX_DIMS * 24], got[STENCILMAP_MAX_DIMS * 24];
        smp_env_format_list(want, sizeof(want), c, pl->ndims);
        smp_env_format_list(got, sizeof(got), pl->coords, pl->ndims);
        return ctx_err(ctx, STENCILMAP_ERR_ENV,
                       "STENCIL_MAP_COORDS=%s but rank %lld has the %s coordinates %s",
                       got, (long long)ctx->rank, pl->column_major ? "column-major" : "row-major",
                       want);
    }
    memcpy(pl->coords, c, sizeof(c));
    return STENCILMAP_OK;
}

static stencilmap_status publish(stencilmap_ctx *ctx)
{
    char envmsg[STENCILMAP_MSG_LEN]; /* the environment's error, if any */
    memcpy(envmsg, ctx->msg, sizeof(envmsg));
    stencilmap_status st = put_string(ctx, KEY_NODE, ctx->node);
    if (!st)
        st = put_int(ctx, KEY_STATUS, (int)ctx->env_status);
    if (!st && ctx->env_status != STENCILMAP_OK)
        st = put_string(ctx, KEY_ERROR, envmsg);
    if (!st && ctx->env_status == STENCILMAP_OK) {
        const stencilmap_place *pl = &ctx->place;
        char buf[STENCILMAP_MAX_DIMS * 24];
        smp_env_format_list(buf, sizeof(buf), pl->coords, pl->ndims);
        st = put_string(ctx, KEY_COORDS, buf);
        if (!st && ctx->rank == 0) {
            smp_env_format_list(buf, sizeof(buf), pl->dims, pl->ndims);
            st = put_string(ctx, KEY_DIMS, buf);
            int64_t per[STENCILMAP_MAX_DIMS];
            for (int i = 0; i < pl->ndims; i++)
                per[i] = pl->periods[i];
            smp_env_format_list(buf, sizeof(buf), per, pl->ndims);
            if (!st)
                st = put_string(ctx, KEY_PERIODS, buf);
            char *s = smp_env_format_stencil(pl->offsets, pl->noffsets, pl->ndims);
            if (!s)
                return ctx_err(ctx, STENCILMAP_ERR_NOMEM, "out of memory");
            if (!st)
                st = put_string(ctx, KEY_STENCIL, s);
            free(s);
        }
    }
    if (st)
        return st;
    return fence(ctx, "publishing stencilmap.coords");
}

stencilmap_status stencilmap_init(stencilmap_ctx **out)
{
    if (!out)
        return STENCILMAP_ERR_ARG;
    stencilmap_ctx *ctx = calloc(1, sizeof(*ctx));
    *out = ctx;
    if (!ctx)
        return STENCILMAP_ERR_NOMEM;
    ctx->rank = ctx->size = -1;
    ctx->env_status = stencilmap_place_from_env(&ctx->place, ctx->msg, sizeof(ctx->msg));
    ctx->has_place = ctx->env_status == STENCILMAP_OK;

    char envmsg[STENCILMAP_MSG_LEN];
    memcpy(envmsg, ctx->msg, sizeof(envmsg));
    stencilmap_status st = sm_kvs_open(&ctx->kvs, ctx->msg, sizeof(ctx->msg));
    if (st)
        return st;
    ctx->up = 1;
    ctx->rank = ctx->kvs.rank;
    ctx->size = ctx->kvs.size;
    memcpy(ctx->msg, envmsg, sizeof(envmsg));
    ctx->node_cache = calloc((size_t)ctx->size, sizeof(char *));
    if (!ctx->node_cache)
        return ctx_err(ctx, STENCILMAP_ERR_NOMEM, "out of memory");
    snprintf(ctx->node, sizeof(ctx->node), "%s", ctx->kvs.node);

    if (ctx->env_status == STENCILMAP_OK) {
        ctx->env_status = check_place(ctx);
        ctx->has_place = ctx->env_status == STENCILMAP_OK;
    }
    memcpy(envmsg, ctx->msg, sizeof(envmsg));
    st = publish(ctx); /* even with a bad environment: others fence too */
    if (st != STENCILMAP_OK)
        return st;
    if (ctx->env_status != STENCILMAP_OK)
        memcpy(ctx->msg, envmsg, sizeof(envmsg));
    return ctx->env_status;
}

stencilmap_status stencilmap_finalize(stencilmap_ctx *ctx)
{
    if (!ctx)
        return STENCILMAP_OK;
    stencilmap_status st = STENCILMAP_OK;
    if (ctx->up)
        st = ctx->kvs.ops->finalize(&ctx->kvs);
    if (ctx->node_cache)
        for (int64_t r = 0; r < ctx->size; r++)
            free(ctx->node_cache[r]);
    free(ctx->node_cache);
    stencilmap_place_free(&ctx->place);
    free(ctx);
    return st;
}

/* ---- getters ------------------------------------------------------------------ */
static stencilmap_status check_rank(stencilmap_ctx *ctx, int64_t rank)
{
    if (!ctx->up)
        return ctx_err(ctx, STENCILMAP_ERR_PMIX, "neither PMIx nor PMI is initialised");
    if (rank < 0 || rank >= ctx->size)
        return ctx_err(ctx, STENCILMAP_ERR_ARG, "rank %lld is outside the step's %lld tasks",
                       (long long)rank, (long long)ctx->size);
    return STENCILMAP_OK;
}

stencilmap_status stencilmap_get_coords(stencilmap_ctx *ctx, int64_t rank, int64_t *coords,
                                        int *ndims)
{
    if (!ctx || !coords)
        return ctx ? ctx_err(ctx, STENCILMAP_ERR_ARG, "stencilmap_get_coords: NULL coords")
                   : STENCILMAP_ERR_ARG;
    stencilmap_status st = check_rank(ctx, rank);
    char *s = NULL;
    if (st || (st = get_string(ctx, rank, KEY_COORDS, &s)))
        return st;
    int n = 0;
    char *p = s, *end;
    for (;;) {
        long long v = strtoll(p, &end, 10);
        if (end == p || n == STENCILMAP_MAX_DIMS || v < 0) {
            st = ctx_err(ctx, STENCILMAP_ERR_PMIX, "rank %lld's \"%s\" is malformed: '%s'",
                         (long long)rank, KEY_COORDS, s);
            break;
        }
        coords[n++] = v;
        if (*end == '\0')
            break;
        if (*end != ',') {
            st = ctx_err(ctx, STENCILMAP_ERR_PMIX, "rank %lld's \"%s\" is malformed: '%s'",
                         (long long)rank, KEY_COORDS, s);
            break;
        }
        p = end + 1;
    }
    free(s);
    if (st == STENCILMAP_OK && ndims)
        *ndims = n;
    return st;
}

static stencilmap_status node_of(stencilmap_ctx *ctx, int64_t rank, const char **name)
{
    if (!ctx->node_cache[rank]) {
        stencilmap_status st = get_string(ctx, rank, KEY_NODE, &ctx->node_cache[rank]);
        if (st)
            return st;
    }
    *name = ctx->node_cache[rank];
    return STENCILMAP_OK;
}

stencilmap_status stencilmap_get_node(stencilmap_ctx *ctx, int64_t rank, char *buf, size_t len)
{
    if (!ctx || !buf || !len)
        return ctx ? ctx_err(ctx, STENCILMAP_ERR_ARG, "stencilmap_get_node: NULL buffer")
                   : STENCILMAP_ERR_ARG;
    stencilmap_status st = check_rank(ctx, rank);
    const char *name;
    if (st || (st = node_of(ctx, rank, &name)))
        return st;
    snprintf(buf, len, "%s", name);
    return STENCILMAP_OK;
}

/* ---- verify -------------------------------------------------------------------- */
static const char *rank_node_name(void *arg, int64_t rank, stencilmap_status *st)
{
    const char *name;
    stencilmap_status s = node_of(arg, rank, &name);
    if (s) {
        *st = s;
        return NULL;
    }
    return name;
}

/* This rank's edges between groups of each network level, put for the
 * gather (nothing on a step without levels); a failure to count them is
 * this rank's local verdict, as verify_local's are. */
static stencilmap_status put_level_edges(stencilmap_ctx *ctx, stencilmap_status *local)
{
    const stencilmap_place *pl = &ctx->place;
    int64_t e[STENCILMAP_MAX_LEVELS] = {0};
    double w[STENCILMAP_MAX_LEVELS] = {0};
    if (*local == STENCILMAP_OK && ctx->env_status == STENCILMAP_OK) {
        stencilmap_status s = sm_levels_rank_out(pl, ctx->rank, rank_node_name, ctx, e, w);
        if (s)
            *local = ctx_err(ctx, s, "rank %lld: counting the edges between network groups: %s",
                             (long long)ctx->rank, stencilmap_strerror(s));
    }
    stencilmap_status st = STENCILMAP_OK;
    for (int l = 0; l < pl->nlevels && !st; l++) {
        char key[64];
        snprintf(key, sizeof(key), "%s.%d", KEY_LEDGES, l);
        st = put_u64(ctx, key, (uint64_t)e[l]);
        snprintf(key, sizeof(key), "%s.%d", KEY_LWEDGES, l);
        if (!st)
            st = put_double(ctx, key, w[l]);
    }
    return st;
}

/* Every rank's edges between groups, then the figures per level. */
static stencilmap_status gather_levels(stencilmap_ctx *ctx, const int32_t *node,
                                       stencilmap_verify_result *res)
{
    const stencilmap_place *pl = &ctx->place;
    if (!pl->nlevels)
        return STENCILMAP_OK;
    size_t n = (size_t)pl->nlevels * (size_t)ctx->size;
    int64_t *e = malloc(sizeof(int64_t) * n);
    double *w = malloc(sizeof(double) * n);
    stencilmap_status st = e && w ? STENCILMAP_OK
                                  : ctx_err(ctx, STENCILMAP_ERR_NOMEM, "out of memory");
    for (int l = 0; l < pl->nlevels && !st; l++)
        for (int64_t r = 0; r < ctx->size && !st; r++) {
            char key[64];
            double v = 0, vw = 0;
            snprintf(key, sizeof(key), "%s.%d", KEY_LEDGES, l);
            if (!(st = get_number(ctx, r, key, &v))) {
                snprintf(key, sizeof(key), "%s.%d", KEY_LWEDGES, l);
                st = get_number(ctx, r, key, &vw);
            }
            e[(size_t)l * (size_t)ctx->size + (size_t)r] = (int64_t)v;
            w[(size_t)l * (size_t)ctx->size + (size_t)r] = vw;
        }
    if (!st && (st = sm_levels_aggregate(pl, ctx->size, node, res, e, w)))
        ctx_err(ctx, st, "aggregating the edges between network groups: %s",
                stencilmap_strerror(st));
    free(e);
    free(w);
    return st;
}

/* What differs per level, appended to diff. */
static void level_diff(const stencilmap_verify_result *res, char *diff, size_t len)
{
    size_t off = strlen(diff);
    for (int l = 0; l < res->nlevels && res->has_level_planned && off < len; l++) {
        if (res->level_observed_jsum[l] != res->level_planned_jsum[l])
            off += (size_t)snprintf(diff + off, len - off,
                                    "%slevel %d: J_sum between groups planned %lld observed %lld",
                                    off ? "; " : "", l, (long long)res->level_planned_jsum[l],
                                    (long long)res->level_observed_jsum[l]);
        if (off < len && res->level_observed_jmax[l] != res->level_planned_jmax[l])
            off += (size_t)snprintf(diff + off, len - off,
                                    "%slevel %d: J_max between groups planned %lld observed %lld",
                                    off ? "; " : "", l, (long long)res->level_planned_jmax[l],
                                    (long long)res->level_observed_jmax[l]);
    }
}

static int same_node(void *arg, int64_t a, int64_t b)
{
    stencilmap_ctx *ctx = arg;
    const char *na, *nb;
    if (node_of(ctx, a, &na) || node_of(ctx, b, &nb))
        return -1;
    return strcmp(na, nb) == 0;
}

/* This rank's part: its edges, its neighbours' coordinates, rank 0's job data. */
static stencilmap_status verify_local(stencilmap_ctx *ctx, int64_t *edges, double *weight,
                                      int64_t *checked, int64_t *wrong, char *wrong_msg, size_t len)
{
    const stencilmap_place *pl = &ctx->place;
    stencilmap_status st = stencilmap_rank_out_edges(pl, ctx->rank, same_node, ctx, edges, weight);
    if (st)
        return st == STENCILMAP_ERR_ARG ? ctx_err(ctx, st, "rank %lld outside the grid",
                                                  (long long)ctx->rank)
                                        : st;
    /* coordinates of every neighbour (out and in), read back through the transport */
    for (int k = 0; k < pl->noffsets; k++)
        for (int dir = 0; dir < 2; dir++) {
            int64_t t = dir ? stencilmap_neighbor_from(pl, ctx->rank, k)
                            : stencilmap_neighbor(pl, ctx->rank, k);
            if (t < 0)
                continue;
            int64_t got[STENCILMAP_MAX_DIMS], want[STENCILMAP_MAX_DIMS];
            int n;
            if ((st = stencilmap_get_coords(ctx, t, got, &n)))
                return st;
            stencilmap_rank_coords(pl, t, want);
            (*checked)++;
            if (n != pl->ndims || memcmp(got, want, sizeof(int64_t) * (size_t)n)) {
                if (!*wrong) {
                    char g[STENCILMAP_MAX_DIMS * 24], w[STENCILMAP_MAX_DIMS * 24];
                    smp_env_format_list(g, sizeof(g), got, n);
                    smp_env_format_list(w, sizeof(w), want, pl->ndims);
                    snprintf(wrong_msg, len, "rank %lld's stencilmap.coords is %.90s, not %.90s",
                             (long long)t, g, w);
                }
                (*wrong)++;
            }
        }
    /* the job-wide data of rank 0 must be this rank's */
    int64_t per[STENCILMAP_MAX_DIMS];
    for (int i = 0; i < pl->ndims; i++)
        per[i] = pl->periods[i];
    char mine[3][STENCILMAP_MAX_DIMS * 24];
    smp_env_format_list(mine[0], sizeof(mine[0]), pl->dims, pl->ndims);
    smp_env_format_list(mine[1], sizeof(mine[1]), per, pl->ndims);
    char *sten = smp_env_format_stencil(pl->offsets, pl->noffsets, pl->ndims);
    if (!sten)
        return ctx_err(ctx, STENCILMAP_ERR_NOMEM, "out of memory");
    const char *keys[3] = {KEY_DIMS, KEY_PERIODS, KEY_STENCIL};
    for (int i = 0; i < 3 && st == STENCILMAP_OK; i++) {
        char *theirs = NULL;
        if ((st = get_string(ctx, 0, keys[i], &theirs)))
            break;
        const char *m = i == 2 ? sten : mine[i];
        if (strcmp(theirs, m))
            st = ctx_err(ctx, STENCILMAP_ERR_ENV, "rank 0's %s is %.100s, rank %lld's is %.100s",
                         keys[i], theirs, (long long)ctx->rank, m);
        free(theirs);
    }
    free(sten);
    return st;
}

void stencilmap_verify_result_free(stencilmap_verify_result *res)
{
    if (!res)
        return;
    if (res->node_names)
        for (int i = 0; i < res->nnodes; i++)
            free(res->node_names[i]);
    free(res->node_names);
    free(res->node_edges);
    free(res->node_ranks);
    memset(res, 0, sizeof(*res));
}

/* Index of name in res->node_names, appended when new. */
static int node_index(stencilmap_verify_result *res, int *cap, const char *name)
{
    for (int i = res->nnodes - 1; i >= 0; i--)
        if (!strcmp(res->node_names[i], name))
            return i;
    if (res->nnodes == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        char **nn = realloc(res->node_names, sizeof(char *) * (size_t)nc);
        if (!nn)
            return -1;
        res->node_names = nn;
        *cap = nc;
    }
    if (!(res->node_names[res->nnodes] = strdup(name)))
        return -1;
    return res->nnodes++;
}

/* Every rank's environment status, published by stencilmap_init.  All ranks
 * read the same data, so all of them stop here with the same message (the
 * lowest bad rank's) and none waits in a fence for the others. */
static stencilmap_status check_peer_envs(stencilmap_ctx *ctx)
{
    for (int64_t r = 0; r < ctx->size; r++) {
        double s;
        stencilmap_status st = get_number(ctx, r, KEY_STATUS, &s);
        if (st)
            return st;
        if (s != 0) {
            char *m = NULL;
            get_string(ctx, r, KEY_ERROR, &m);
            st = ctx_err(ctx, (stencilmap_status)(int)s, "rank %lld: %s", (long long)r,
                         m ? m : "invalid environment");
            free(m);
            return st;
        }
    }
    return STENCILMAP_OK;
}

static stencilmap_status gather(stencilmap_ctx *ctx, stencilmap_verify_result *res)
{
    int64_t P = ctx->size;
    int32_t *node = malloc(sizeof(int32_t) * (size_t)P);
    int64_t *edges = malloc(sizeof(int64_t) * (size_t)P);
    double *wedges = malloc(sizeof(double) * (size_t)P);
    stencilmap_status st = STENCILMAP_OK;
    int cap = 0;
    if (!node || !edges || !wedges)
        st = ctx_err(ctx, STENCILMAP_ERR_NOMEM, "out of memory");
    /* first: every rank's local verification */
    for (int64_t r = 0; r < P && st == STENCILMAP_OK; r++) {
        double vs;
        if ((st = get_number(ctx, r, KEY_VSTATUS, &vs)))
            break;
        if (vs != 0) {
            char *m = NULL;
            get_string(ctx, r, KEY_VERROR, &m);
            st = ctx_err(ctx, STENCILMAP_ERR_PEER, "rank %lld: %s", (long long)r,
                         m ? m : "verification failed");
            free(m);
            break;
        }
    }
    for (int64_t r = 0; r < P && st == STENCILMAP_OK; r++) {
        const char *name;
        double e, w, c, cw;
        if ((st = node_of(ctx, r, &name)) || (st = get_number(ctx, r, KEY_EDGES, &e)) ||
            (st = get_number(ctx, r, KEY_WEDGES, &w)) ||
            (st = get_number(ctx, r, "stencilmap.cchecked", &c)) ||
            (st = get_number(ctx, r, "stencilmap.cwrong", &cw)))
            break;
        int idx = node_index(res, &cap, name);
        if (idx < 0) {
            st = ctx_err(ctx, STENCILMAP_ERR_NOMEM, "out of memory");
            break;
        }
        node[r] = idx;
        edges[r] = (int64_t)e;
        wedges[r] = w;
        res->coords_checked += (int64_t)c;
        res->coords_wrong += (int64_t)cw;
        if (cw > 0 && !res->diff[0]) {
            char *m = NULL;
            get_string(ctx, r, "stencilmap.cwrongmsg", &m);
            snprintf(res->diff, sizeof(res->diff), "coordinates: rank %lld read %.200s",
                     (long long)r, m ? m : "wrong coordinates");
            free(m);
        }
    }
    stencilmap_edges agg;
    memset(&agg, 0, sizeof(agg));
    if (st == STENCILMAP_OK &&
        (st = stencilmap_edges_aggregate(&agg, P, node, res->nnodes, edges, wedges)))
        ctx_err(ctx, st, "aggregating edge counts: %s", stencilmap_strerror(st));
    if (st == STENCILMAP_OK) {
        res->observed_jsum = agg.jsum;
        res->observed_jmax = agg.jmax;
        res->observed_wsum = agg.wsum;
        res->observed_wmax = agg.wmax;
        res->jmax_node = agg.jmax_node;
        res->node_edges = agg.node_edges;
        res->node_ranks = agg.node_ranks;
        agg.node_edges = agg.node_ranks = NULL;
    }
    stencilmap_edges_free(&agg);
    if (st == STENCILMAP_OK)
        st = gather_levels(ctx, node, res);
    free(node);
    free(edges);
    free(wedges);
    return st;
}

stencilmap_status stencilmap_verify(stencilmap_ctx *ctx, stencilmap_verify_result *res)
{
    if (!ctx || !res)
        return ctx ? ctx_err(ctx, STENCILMAP_ERR_ARG, "stencilmap_verify: NULL result")
                   : STENCILMAP_ERR_ARG;
    memset(res, 0, sizeof(*res));
    if (!ctx->up)
        return ctx_err(ctx, STENCILMAP_ERR_PMIX, "neither PMIx nor PMI is initialised");

    /* a neighbour with a bad environment published no coordinates: name it
     * rather than fail on the missing key */
    stencilmap_status st = check_peer_envs(ctx);
    if (st)
        return st;

    int64_t edges = 0, checked = 0, wrong = 0;
    double weight = 0;
    char wrong_msg[256] = "";
    stencilmap_status local = STENCILMAP_OK;
    if (ctx->env_status == STENCILMAP_OK)
        local = verify_local(ctx, &edges, &weight, &checked, &wrong, wrong_msg, sizeof(wrong_msg));
    res->rank_edges = edges;
    /* before the verdict's message is kept: counting may set it */
    if ((st = put_level_edges(ctx, &local)))
        return st;
    char localmsg[STENCILMAP_MSG_LEN];
    memcpy(localmsg, ctx->msg, sizeof(localmsg));
    st = put_u64(ctx, KEY_EDGES, (uint64_t)edges);
    if (!st)
        st = put_double(ctx, KEY_WEDGES, weight);
    if (!st)
        st = put_u64(ctx, "stencilmap.cchecked", (uint64_t)checked);
    if (!st)
        st = put_u64(ctx, "stencilmap.cwrong", (uint64_t)wrong);
    if (!st && wrong)
        st = put_string(ctx, "stencilmap.cwrongmsg", wrong_msg);
    if (!st)
        st = put_int(ctx, KEY_VSTATUS, (int)local);
    if (!st && local != STENCILMAP_OK)
        st = put_string(ctx, KEY_VERROR, localmsg);
    if (st)
        return st;
    if ((st = fence(ctx, "exchanging edge counts")))
        return st;
    if ((st = gather(ctx, res)))
        return st;

    const stencilmap_place *pl = &ctx->place;
    res->has_planned = pl->has_planned;
    res->planned_jsum = pl->planned_jsum;
    res->planned_jmax = pl->planned_jmax;
    size_t off = strlen(res->diff);
    if (pl->has_planned) {
        if (res->observed_jsum != pl->planned_jsum)
            off += (size_t)snprintf(res->diff + off, sizeof(res->diff) - off,
                                    "%sJ_sum planned %lld observed %lld", off ? "; " : "",
                                    (long long)pl->planned_jsum, (long long)res->observed_jsum);
        if (off < sizeof(res->diff) && res->observed_jmax != pl->planned_jmax)
            snprintf(res->diff + off, sizeof(res->diff) - off,
                     "%sJ_max planned %lld observed %lld", off ? "; " : "",
                     (long long)pl->planned_jmax, (long long)res->observed_jmax);
    }
    level_diff(res, res->diff, sizeof(res->diff));
    res->agree = res->diff[0] == '\0';
    if (!res->agree) {
        ctx_err(ctx, STENCILMAP_ERR_MISMATCH, "%s", res->diff);
        return STENCILMAP_ERR_MISMATCH;
    }
    ctx->msg[0] = '\0';
    return STENCILMAP_OK;
}
