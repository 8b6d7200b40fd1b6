/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The busiest link of a placed step in the audit: the record's L_max and
 * its bound must be those of its own placement, re-scored on the
 * record's levels with the routing and uplink counts the plugin used, as
 * J is re-scored (audit_check.c).  A record without "busiest_link" (older
 * ones, steps without levels) gets nothing here; one whose uplink counts
 * varied within a level keeps only their range, so it is shown but not
 * re-scored. */
#include <math.h>
#include <stdlib.h>

#include "audit.h"
#include "audit_internal.h"

/* equal up to the record's printing of a double */
static bool same_load(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* The record's uplink counts as per-group arrays: false when some level's
 * counts varied (only their range is recorded) or memory ran out. */
static bool links_of_record(const smr_record *r, smp_links *lk)
{
    smp_routing_from_name(r->link_routing, &lk->routing);
    for (int l = 0; l < r->levels.nlevels; l++) {
        if (r->link_uplinks_min[l] != r->link_uplinks_max[l])
            return false;
        if (!(lk->uplinks[l] = malloc(sizeof(int32_t) * (size_t)r->levels.ngroups[l])))
            return false;
        for (int g = 0; g < r->levels.ngroups[l]; g++)
            lk->uplinks[l][g] = r->link_uplinks_min[l];
    }
    return true;
}

static json_t *load_pair(double l_max, double bound)
{
    return json_pack("{s:f,s:f}", "l_max", l_max, "bound", bound);
}

void audit_check_busiest(const audit_record *rec, json_t *topology, audit_result *res)
{
    const smr_record *r = &rec->r;
    if (r->link_l_max < 0 || r->levels.nlevels <= 0)
        return;
    json_t *j = json_pack("{s:o,s:s}", "planned", load_pair(r->link_l_max, r->link_bound),
                          "routing", r->link_routing);
    json_object_set_new(topology, "busiest_link", j);
    smp_links lk = {0};
    if (!links_of_record(r, &lk)) {
        json_object_set_new(j, "rescored", json_null()); /* uplinks vary: range only */
        smp_links_free(&lk);
        return;
    }
    smp_link_score ls;
    smp_error err;
    smp_error_clear(&err);
    smp_status s = smp_link_score_compute(&r->grid, &r->stencil, r->node_of_rank, r->nodes.count,
                                          &r->levels, &lk, &ls, &err);
    smp_links_free(&lk);
    if (s) {
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                      "topology: the busiest link cannot be re-scored: %s", err.msg);
        return;
    }
    json_object_set_new(j, "rescored", load_pair(ls.l_max, ls.bound));
    if (!same_load(r->link_l_max, ls.l_max) || !same_load(r->link_bound, ls.bound))
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                      "topology: busiest link %.6g (bound %.6g) in the record, %.6g (bound "
                      "%.6g) from its placement", r->link_l_max, r->link_bound, ls.l_max,
                      ls.bound);
}
