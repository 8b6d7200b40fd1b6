/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The links above the network levels for plan and compare: --routing
 * static|adaptive|direct and --uplinks N[,N...] (level 0 first, each the
 * uplinks of every group of that level, or under direct the links between
 * every two of its groups, over what the topology says: Slurm's files
 * list one parent where the fabric often has several), and L_max, the
 * busiest link's load, as the summary line and the JSON show it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The next count of an --uplinks list at *p; -1 when malformed. */
static long next_count(const char **p)
{
    char *end;
    errno = 0;
    long v = strtol(*p, &end, 10);
    if (end == *p || errno || v < 1 || v > 1000000 || (*end && (*end != ',' || !end[1])))
        return -1;
    *p = *end ? end + 1 : end;
    return v;
}

/* --uplink-speed S[,S...] into lk: each level's uplinks S times as fast as
 * a node's link (0.25: a 4:1 taper that Slurm's LinkSpeed= cannot tell the
 * plan, since Slurm does not use it) */
static int speeds_of(const struct cli_opts *o, const smp_levels *lv, smp_links *lk)
{
    double v[SMP_MAX_LEVELS];
    int bad, n = smp_link_speeds_parse(o->uplink_speed, v, &bad);
    if (!n) {
        fprintf(stderr, "stencil-map: --uplink-speed '%s': value %d must be a decimal above 0 and "
                        "at most %g (a node's link is 1), 1 to %d values comma-separated\n",
                o->uplink_speed, bad, SMP_MAX_LINK_SPEED, SMP_MAX_LEVELS);
        return SMP_ERR_INPUT;
    }
    if (n > lv->nlevels)
        fprintf(stderr, "stencil-map: --uplink-speed '%s': the step has %d network level%s: "
                        "value %d on is not used%s\n",
                o->uplink_speed, lv->nlevels, lv->nlevels == 1 ? "" : "s", lv->nlevels + 1,
                lv->nlevels ? "" : " (no --topology, or the nodes share one switch)");
    smp_error err = {0};
    if (smp_links_set_speeds(lk, lv, v, n, &err)) {
        fprintf(stderr, "stencil-map: %s\n", err.msg);
        return SMP_ERR_SYSTEM;
    }
    return 0;
}

int cli_links_of(const struct cli_opts *o, const smp_levels *lv, smp_links *lk)
{
    lk->routing = o->routing;
    if (o->uplink_speed) {
        int rc = speeds_of(o, lv, lk);
        if (rc)
            return rc;
    }
    if (!o->uplinks)
        return 0;
    const char *p = o->uplinks;
    for (int l = 0; *p; l++) {
        long v = next_count(&p);
        if (v < 0) {
            fprintf(stderr, "stencil-map: --uplinks '%s': value %d must be a count from 1 to "
                            "1000000, the values comma-separated\n", o->uplinks, l + 1);
            return SMP_ERR_INPUT;
        }
        if (l >= lv->nlevels) { /* a step inside one switch has fewer levels */
            fprintf(stderr, "stencil-map: --uplinks '%s': the step has %d network level%s: "
                            "value %d on is not used%s\n",
                    o->uplinks, lv->nlevels, lv->nlevels == 1 ? "" : "s", l + 1,
                    lv->nlevels ? "" : " (no --topology, or the nodes share one switch)");
            return 0;
        }
        if (!lk->uplinks[l] && !(lk->uplinks[l] = malloc(sizeof(int32_t) * (size_t)lv->ngroups[l]))) {
            fprintf(stderr, "stencil-map: out of memory\n");
            return SMP_ERR_SYSTEM;
        }
        for (int g = 0; g < lv->ngroups[l]; g++)
            lk->uplinks[l][g] = (int32_t)v;
    }
    return 0;
}

static bool any_speed(const smp_links *lk, const smp_levels *lv)
{
    for (int l = 0; lk && lv && l < lv->nlevels && l < SMP_MAX_LEVELS; l++)
        if (lk->speed[l])
            return true;
    return false;
}

/* the level's one speed: every group's is the same (--uplink-speed,
 * uplink_speed=, a record's) */
static double level_speed(const smp_links *lk, const smp_levels *lv, int l)
{
    return lk->speed[l] && lv->ngroups[l] > 0 ? lk->speed[l][0] : 1.0;
}

json_t *cli_speeds_json(const smp_links *lk, const smp_levels *lv)
{
    if (!any_speed(lk, lv))
        return NULL;
    json_t *a = json_array();
    for (int l = 0; l < lv->nlevels && l < SMP_MAX_LEVELS; l++)
        json_array_append_new(a, json_real(level_speed(lk, lv, l)));
    return a;
}

void cli_speeds_text(const smp_links *lk, const smp_levels *lv, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int l = 0; any_speed(lk, lv) && l < lv->nlevels && l < SMP_MAX_LEVELS && at < n; l++)
        at += (size_t)snprintf(buf + at, n - at, "%s%g", l ? "," : ", uplink speed ",
                               level_speed(lk, lv, l));
}

/* "a node's link out of n7", "a leaf's uplinks into leaf3" */
static void where_text(const smp_link_score *ls, const smp_levels *lv, char *buf, size_t n)
{
    if (ls->level < 0) {
        snprintf(buf, n, "node %d's link %s", (int)ls->where, ls->down ? "in" : "out");
        return;
    }
    const char *name = lv && ls->level < lv->nlevels && lv->group_names[ls->level]
                           ? lv->group_names[ls->level][ls->where]
                           : NULL;
    char g[80], t[80] = "";
    if (name)
        snprintf(g, sizeof(g), "%s", name);
    else
        snprintf(g, sizeof(g), "group %d", (int)ls->where);
    if (ls->to >= 0 && lv && ls->level < lv->nlevels && lv->group_names[ls->level])
        snprintf(t, sizeof(t), "%s", lv->group_names[ls->level][ls->to]);
    else if (ls->to >= 0)
        snprintf(t, sizeof(t), "group %d", (int)ls->to);
    if (ls->to >= 0)
        snprintf(buf, n, "level %d, %s's links to %s", ls->level, g, t);
    else
        snprintf(buf, n, "level %d, %s's %s", ls->level, g, ls->down ? "downlinks" : "uplinks");
}

const char *cli_link_text(const smp_link_score *ls, const smp_levels *lv, char *buf, size_t n)
{
    char w[200]; /* where_text's longest: two 79-byte names and its words */
    where_text(ls, lv, w, sizeof(w));
    snprintf(buf, n, "busiest link %.6g (%s), bound %.6g", ls->l_max, w, ls->bound);
    return buf;
}

json_t *cli_link_json(const smp_link_score *ls, const smp_levels *lv)
{
    json_t *j = json_pack("{s:f,s:f,s:f,s:f,s:i,s:s}", "l_max", ls->l_max, "bound", ls->bound,
                          "node_max", ls->node_max, "up_max", ls->up_max, "level", ls->level,
                          "direction", ls->down ? "in" : "out");
    const char *name = ls->level >= 0 && lv && ls->level < lv->nlevels && lv->group_names[ls->level]
                           ? lv->group_names[ls->level][ls->where]
                           : NULL;
    json_object_set_new(j, "where", name ? json_string(name) : json_integer(ls->where));
    if (ls->to >= 0) {
        const char *to = lv && ls->level < lv->nlevels && lv->group_names[ls->level]
                             ? lv->group_names[ls->level][ls->to]
                             : NULL;
        json_object_set_new(j, "to", to ? json_string(to) : json_integer(ls->to));
    }
    return j;
}
