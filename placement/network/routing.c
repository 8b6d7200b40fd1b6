/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the link model reads besides the placement: the routing's names,
 * the links' description checked, and the nodes' positions that static
 * (destination-based) routing picks an uplink by. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "network/network.h"

static const char *const routing_names[SMP_ROUTING_COUNT] = {"static", "adaptive", "direct"};

const char *smp_routing_name(smp_routing r)
{
    return r >= 0 && r < SMP_ROUTING_COUNT ? routing_names[r] : "unknown";
}

bool smp_routing_from_name(const char *name, smp_routing *r)
{
    for (int k = 0; name && k < SMP_ROUTING_COUNT; k++)
        if (!strcmp(name, routing_names[k])) {
            *r = (smp_routing)k;
            return true;
        }
    return false;
}

void smp_links_free(smp_links *lk)
{
    if (!lk)
        return;
    for (int l = 0; l < SMP_MAX_LEVELS; l++) {
        free(lk->uplinks[l]);
        free(lk->speed[l]);
    }
    memset(lk, 0, sizeof(*lk));
}

/* One plain decimal of a speed list at *p, up to ',' or the end; -1 when
 * malformed or out of range. */
static double next_speed(const char **p)
{
    const char *q = *p;
    int digits = 0, points = 0;
    for (; *q && *q != ','; q++) {
        if (*q >= '0' && *q <= '9')
            digits++;
        else if (*q == '.' && !points)
            points++;
        else
            return -1;
    }
    if (!digits || q - *p > 32)
        return -1;
    char buf[40];
    memcpy(buf, *p, (size_t)(q - *p));
    buf[q - *p] = '\0';
    double v = strtod(buf, NULL);
    if (!(v > 0 && v <= SMP_MAX_LINK_SPEED))
        return -1;
    *p = *q ? q + 1 : q;
    return v;
}

int smp_link_speeds_parse(const char *text, double speeds[SMP_MAX_LEVELS], int *bad)
{
    int n = 0;
    const char *p = text ? text : "";
    if (bad)
        *bad = 1;
    do {
        double v = n < SMP_MAX_LEVELS ? next_speed(&p) : -1;
        if (v < 0) {
            if (bad)
                *bad = n + 1;
            return 0;
        }
        speeds[n++] = v;
        if (!*p && p[-1] == ',') { /* a trailing comma: an empty last value */
            if (bad)
                *bad = n + 1;
            return 0;
        }
    } while (*p);
    return n;
}

smp_status smp_links_set_speeds(smp_links *lk, const smp_levels *lv, const double *speeds, int n,
                                smp_error *err)
{
    for (int l = 0; lv && l < n && l < lv->nlevels; l++) {
        size_t ng = (size_t)(lv->ngroups[l] > 0 ? lv->ngroups[l] : 1);
        double *s = realloc(lk->speed[l], sizeof(double) * ng);
        if (!s)
            return smp_error_set(err, SMP_ERR_SYSTEM, "links.speed[%d]: out of memory", l);
        lk->speed[l] = s;
        for (int g = 0; g < lv->ngroups[l]; g++)
            s[g] = speeds[l];
    }
    return SMP_OK;
}

smp_status smp_links_check(const smp_links *lk, const smp_levels *lv, smp_error *err)
{
    if (!lk)
        return SMP_OK;
    if (lk->routing < 0 || lk->routing >= SMP_ROUTING_COUNT)
        return smp_error_set(err, SMP_ERR_INPUT, "links.routing: unknown (%d)", (int)lk->routing);
    for (int l = 0; lv && l < lv->nlevels; l++)
        for (int g = 0; g < lv->ngroups[l]; g++) {
            if (lk->uplinks[l] && lk->uplinks[l][g] < 1)
                return smp_error_set(err, SMP_ERR_INPUT,
                                     "links.uplinks[%d][%d]: must be at least 1, not %d", l, g,
                                     (int)lk->uplinks[l][g]);
            if (lk->speed[l] && !(isfinite(lk->speed[l][g]) && lk->speed[l][g] > 0))
                return smp_error_set(err, SMP_ERR_INPUT,
                                     "links.speed[%d][%d]: must be positive, not %g", l, g,
                                     lk->speed[l][g]);
        }
    return SMP_OK;
}

smp_status smp_node_positions(const smp_levels *lv, int nnodes, int32_t *pos, smp_error *err)
{
    if (!lv || lv->nlevels == 0) {
        for (int n = 0; n < nnodes; n++)
            pos[n] = n;
        return SMP_OK;
    }
    int ng = lv->ngroups[0];
    const int32_t *leaf = lv->group_of_node[0];
    int32_t *first = malloc(sizeof(int32_t) * (size_t)ng);
    int32_t *count = calloc((size_t)ng, sizeof(int32_t));
    int32_t *order = malloc(sizeof(int32_t) * (size_t)ng);
    if (!first || !count || !order) {
        free(first);
        free(count);
        free(order);
        return smp_error_set(err, SMP_ERR_SYSTEM, "links: out of memory for %d nodes", nnodes);
    }
    int nseen = 0;
    for (int g = 0; g < ng; g++)
        first[g] = -1;
    for (int n = 0; n < nnodes; n++) {
        if (first[leaf[n]] < 0) {
            first[leaf[n]] = 0;
            order[nseen++] = leaf[n];
        }
        count[leaf[n]]++;
    }
    /* first[g]: the position of leaf g's first node */
    int32_t at = 0;
    for (int k = 0; k < nseen; k++) {
        first[order[k]] = at;
        at += count[order[k]];
    }
    for (int n = 0; n < nnodes; n++)
        pos[n] = first[leaf[n]]++;
    free(first);
    free(count);
    free(order);
    return SMP_OK;
}
