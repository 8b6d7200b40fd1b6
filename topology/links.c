/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The links above a step's groups, as the topology gives them: for a
 * level of the levels smt_levels_with made, how many of its groups are
 * switches, how many uplinks each has (the parents listing it; a rails
 * group's leaves summed) and their LinkSpeed=.  Kept apart from the
 * groups themselves: the planner does not use them yet, plan, the plugin
 * and the record report them (the busiest link needs them next). */
#include <string.h>

#include "topology_internal.h"

/* A group's switches: its name, or a rails group's "l1+l2+...";
 * uplinks summed over them, the slowest LinkSpeed=.  False for a group
 * that names no switch (a node in none). */
static bool group_links(const smt_topology *t, const char *name, int *up, int64_t *speed)
{
    char part[SMT_MAX_NAME + 1];
    bool any = false;
    *up = 0;
    *speed = -1;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "+");
        if (n < sizeof(part)) {
            memcpy(part, p, n);
            part[n] = '\0';
            int32_t u = smt_find_unit(t, part);
            if (u >= 0) {
                any = true;
                *up += t->u[u].uplinks;
                if (*speed < 0 || (int64_t)t->u[u].link_speed < *speed)
                    *speed = t->u[u].link_speed;
            }
        }
        p += n + (p[n] == '+');
    }
    return any;
}

bool smt_level_links(const smt_topology *t, const smp_levels *lv, int level, smt_links *out)
{
    memset(out, 0, sizeof(*out));
    if (t->kind != SMT_TREE || level < 0 || level >= lv->nlevels || !lv->group_names[level])
        return false;
    for (int g = 0; g < lv->ngroups[level]; g++) {
        int up;
        int64_t speed;
        const char *name = lv->group_names[level][g];
        if (!name || !group_links(t, name, &up, &speed))
            continue;
        bool first = out->groups == 0;
        if (first || up < out->uplinks_min)
            out->uplinks_min = up;
        if (first || up > out->uplinks_max)
            out->uplinks_max = up;
        if (first || speed < out->speed_min)
            out->speed_min = speed;
        if (first || speed > out->speed_max)
            out->speed_max = speed;
        out->groups++;
    }
    return out->groups > 0;
}

void smt_group_uplinks(const smt_topology *t, const smp_levels *lv, int level, int32_t *up)
{
    for (int g = 0; level >= 0 && level < lv->nlevels && g < lv->ngroups[level]; g++) {
        int k = 0;
        int64_t speed;
        const char *name = lv->group_names[level] ? lv->group_names[level][g] : NULL;
        if (t->kind != SMT_TREE || !name || !group_links(t, name, &k, &speed))
            k = 0;
        up[g] = k < 1 ? 1 : k;
    }
}
