/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record's busiest link: what the plugin estimated for the step's
 * busiest link (L_max, issue 36) and what it scored it with, so that the
 * audit re-scores the same network.  Inside "topology" (steps planned on
 * levels only); absent in older records, which read as link_l_max -1, so
 * format 1 is unchanged:
 *
 *   "busiest_link": {"l_max": 48, "bound": 40, "routing": "static",
 *                    "uplinks": [{"min": 2, "max": 2}, ...]}   one per level
 *
 * routing is one of smp_routing_name's: "static", "adaptive", "direct"
 * (the last added after format 1's first records, same format number).
 * The uplink counts are those the plan used per group (the site's
 * uplinks= or the topology's parents), as ranges over the level's groups;
 * where a level's groups have unequal counts, its entry also lists them,
 * one per group in the level's group order ("per_group": [1, 2, 2]; an
 * optional field, format 1 unchanged), so that the audit can re-score;
 * and where the site stated the level's uplink speed (uplink_speed=), it
 * ("speed": 0.25, against a node's link; optional, absent: 1). */
#include <stdio.h>
#include <stdlib.h>

#include "smr_read_util.h"
#include "smr_record.h"
#include "smr_record_json.h"

json_t *smr_busiest_json(const smr_record *rec)
{
    if (rec->link_l_max < 0)
        return NULL;
    json_t *up = json_array();
    for (int l = 0; l < rec->levels.nlevels; l++) {
        json_t *e = json_pack("{s:i,s:i}", "min", rec->link_uplinks_min[l], "max",
                              rec->link_uplinks_max[l]);
        const int32_t *pg = rec->link_uplinks_per_group[l];
        if (pg && rec->link_uplinks_min[l] != rec->link_uplinks_max[l]) {
            json_t *a = json_array();
            for (int g = 0; g < rec->levels.ngroups[l]; g++)
                json_array_append_new(a, json_integer(pg[g]));
            json_object_set_new(e, "per_group", a);
        }
        if (rec->link_speed[l] > 0)
            json_object_set_new(e, "speed", json_real(rec->link_speed[l]));
        json_array_append_new(up, e);
    }
    return json_pack("{s:f,s:f,s:s,s:o}", "l_max", rec->link_l_max, "bound", rec->link_bound,
                     "routing", rec->link_routing, "uplinks", up);
}

static int get_load(json_t *o, const char *key, double *v, char *err, size_t n)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_number(x) || !(json_number_value(x) >= 0))
        return smr_bad(err, n, "topology.busiest_link.%s: must be a non-negative number", key);
    *v = json_number_value(x);
    return 0;
}

/* "per_group" of level l's uplinks entry x, where present: one count
 * >= 1 per group of the level */
static int parse_per_group(json_t *x, const char *where, int l, smr_record *rec, char *err,
                           size_t n)
{
    json_t *a = json_object_get(x, "per_group");
    if (!a || json_is_null(a))
        return 0;
    int ng = rec->levels.ngroups[l];
    if (!json_is_array(a) || (int)json_array_size(a) != ng)
        return smr_bad(err, n, "%s.per_group: must be a list with one uplink count per group "
                       "of level %d (%d)", where, l, ng);
    int32_t *v = malloc(sizeof(int32_t) * (size_t)(ng > 0 ? ng : 1));
    if (!v)
        return smr_bad(err, n, "%s.per_group: out of memory", where);
    for (int g = 0; g < ng; g++) {
        json_t *c = json_array_get(a, (size_t)g);
        if (!json_is_integer(c) || json_integer_value(c) < 1 ||
            json_integer_value(c) > INT32_MAX) {
            free(v);
            return smr_bad(err, n, "%s.per_group[%d]: must be an uplink count >= 1", where, g);
        }
        v[g] = (int32_t)json_integer_value(c);
    }
    free(rec->link_uplinks_per_group[l]);
    rec->link_uplinks_per_group[l] = v;
    return 0;
}

/* the optional "speed" of level l's uplinks entry x: above 0, at most
 * SMP_MAX_LINK_SPEED */
static int parse_speed(json_t *x, const char *where, int l, smr_record *rec, char *err, size_t n)
{
    json_t *s = json_object_get(x, "speed");
    if (!s || json_is_null(s))
        return 0;
    double v = json_is_number(s) ? json_number_value(s) : -1;
    if (!(v > 0 && v <= SMP_MAX_LINK_SPEED))
        return smr_bad(err, n, "%s.speed: must be a number above 0 and at most %g", where,
                       SMP_MAX_LINK_SPEED);
    rec->link_speed[l] = v;
    return 0;
}

/* "uplinks": one {"min", "max"} per level, 1 <= min <= max, and the
 * optional "per_group" and "speed" */
static int parse_uplinks(json_t *o, smr_record *rec, char *err, size_t n)
{
    json_t *up = json_object_get(o, "uplinks");
    if (!json_is_array(up) || (int)json_array_size(up) != rec->levels.nlevels)
        return smr_bad(err, n, "topology.busiest_link.uplinks: must be a list with one entry "
                       "per level (%d)", rec->levels.nlevels);
    for (int l = 0; l < rec->levels.nlevels; l++) {
        char where[64];
        snprintf(where, sizeof(where), "topology.busiest_link.uplinks[%d]", l);
        json_t *x = json_array_get(up, (size_t)l);
        int64_t lo, hi;
        if (!json_is_object(x))
            return smr_bad(err, n, "%s: must be an object", where);
        if (smr_get_int(x, where, "min", false, &lo, err, n) ||
            smr_get_int(x, where, "max", false, &hi, err, n))
            return -1;
        if (lo < 1 || hi < lo || hi > INT32_MAX)
            return smr_bad(err, n, "%s: must have 1 <= min <= max, not %lld, %lld", where,
                           (long long)lo, (long long)hi);
        rec->link_uplinks_min[l] = (int)lo;
        rec->link_uplinks_max[l] = (int)hi;
        if (parse_per_group(x, where, l, rec, err, n) || parse_speed(x, where, l, rec, err, n))
            return -1;
    }
    return 0;
}

int smr_parse_busiest(json_t *t, smr_record *rec, char *err, size_t n)
{
    json_t *o = json_object_get(t, "busiest_link");
    if (!o || json_is_null(o))
        return 0;
    smp_routing r;
    if (!json_is_object(o))
        return smr_bad(err, n, "topology.busiest_link: must be an object");
    json_t *rt = json_object_get(o, "routing");
    if (!json_is_string(rt) || !smp_routing_from_name(json_string_value(rt), &r))
        return smr_bad(err, n,
                       "topology.busiest_link.routing: must be 'static', 'adaptive' or 'direct'");
    snprintf(rec->link_routing, sizeof(rec->link_routing), "%s", smp_routing_name(r));
    double l_max, bound;
    if (get_load(o, "l_max", &l_max, err, n) || get_load(o, "bound", &bound, err, n) ||
        parse_uplinks(o, rec, err, n))
        return -1;
    rec->link_l_max = l_max;
    rec->link_bound = bound;
    return 0;
}
