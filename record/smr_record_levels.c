/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The audit record's "topology": the network levels a step was planned
 * on, both ways.  Only records of steps planned on levels have it; a
 * record without it (every older one, and every step without a topology)
 * reads as no levels, so format 1 is unchanged.
 *
 *   "topology": {
 *     "source": "slurm (topology/tree)",      or "file /etc/slurm/x.conf"
 *     "kind": "topology/tree",                or "topology/block"
 *     "mode": "best",                          or "groups-first", "nodes-first"
 *                                              (the site's levels_mode=; added
 *                                              later: absent is best)
 *     "levels": [                              finest first
 *       {"groups": ["leaf1", "leaf2"],         names, or null
 *        "node_groups": [0, 0, 1, 1],          one per node of "nodes"
 *        "j_sum": 8, "j_max": 4, "blocked_j_sum": 20, "blocked_j_max": 10,
 *        "w_sum": ..., "w_max": ..., "blocked_w_sum": ..., "blocked_w_max": ...}
 *     ]                                        (w_*: weighted stencils only)
 *   }
 *
 * Every placed step's record also names where its levels came from, or
 * why there were none, as "topology_source": "slurm (topology/flat)",
 * "none", "file /etc/slurm/x.conf" (absent in older records).
 *
 * Added with the tolerant readers (absent in older records, and when
 * there is nothing to say): "topology_warnings": ["topology F: switch 'X'
 * is under both ...", ...], one line per repair the reader made, beside
 * "topology_source" (a step inside one leaf has them without levels); and
 * in a level, "links": {"groups": 4, "uplinks_min": 2, "uplinks_max": 2,
 * "link_speed_min": 200, "link_speed_max": 200}, the links above its
 * groups that are switches (LinkSpeed 0: not given).
 *
 * The reader checks types and ranges (a group index names a group), not
 * whether the levels nest: that is the audit's check. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smr_read_util.h"
#include "smr_record.h"
#include "smr_record_json.h"
#include "smr_record_read.h"

static json_t *level_json(const smr_record *rec, int l)
{
    const smp_levels *lv = &rec->levels;
    json_t *groups = json_null(), *of = json_array();
    if (lv->group_names[l]) {
        groups = json_array();
        for (int g = 0; g < lv->ngroups[l]; g++)
            json_array_append_new(groups, json_string(lv->group_names[l][g]));
    }
    for (int i = 0; i < lv->nnodes; i++)
        json_array_append_new(of, json_integer(lv->group_of_node[l][i]));
    const smp_score *p = &rec->level_planned[l], *b = &rec->level_blocked[l];
    json_t *j = json_pack("{s:o,s:o,s:I,s:I,s:I,s:I}", "groups", groups, "node_groups", of,
                          "j_sum", (json_int_t)p->j_sum, "j_max", (json_int_t)p->j_max,
                          "blocked_j_sum", (json_int_t)b->j_sum, "blocked_j_max",
                          (json_int_t)b->j_max);
    if (j && rec->links[l].groups > 0)
        json_object_set_new(j, "links", smr_links_json(&rec->links[l]));
    if (j && smp_stencil_weighted(&rec->stencil)) {
        json_object_set_new(j, "w_sum", json_real(p->w_sum));
        json_object_set_new(j, "w_max", json_real(p->w_max));
        json_object_set_new(j, "blocked_w_sum", json_real(b->w_sum));
        json_object_set_new(j, "blocked_w_max", json_real(b->w_max));
    }
    return j;
}

json_t *smr_topology_head_json(const smr_record *rec, json_t *levels)
{
    json_t *t = json_pack("{s:s,s:s,s:o}", "source", rec->levels.source, "kind",
                          rec->topology_kind, "levels", levels);
    if (t && rec->levels_mode[0])
        json_object_set_new(t, "mode", json_string(rec->levels_mode));
    return t;
}

json_t *smr_levels_json(const smr_record *rec)
{
    json_t *levels = json_array();
    for (int l = 0; l < rec->levels.nlevels; l++)
        json_array_append_new(levels, level_json(rec, l));
    json_t *t = smr_topology_head_json(rec, levels);
    if (t && rec->link_l_max >= 0)
        json_object_set_new(t, "busiest_link", smr_busiest_json(rec));
    return t;
}

json_t *smr_links_json(const smr_links *k)
{
    if (k->groups <= 0)
        return NULL;
    return json_pack("{s:i,s:i,s:i,s:I,s:I}", "groups", k->groups, "uplinks_min", k->uplinks_min,
                     "uplinks_max", k->uplinks_max, "link_speed_min", (json_int_t)k->speed_min,
                     "link_speed_max", (json_int_t)k->speed_max);
}

json_t *smr_warnings_json(const char *warnings)
{
    json_t *w = json_array();
    for (const char *line = warnings, *nl; w && line && (nl = strchr(line, '\n')); line = nl + 1)
        json_array_append_new(w, json_stringn(line, (size_t)(nl - line)));
    return w;
}

/* "topology_warnings": a list of strings, into one malloc'd text of lines */
static int parse_warnings(json_t *j, smr_record *rec, char *err, size_t n)
{
    json_t *w = json_object_get(j, "topology_warnings"), *x;
    size_t i, len = 1;
    if (!w || json_is_null(w))
        return 0;
    if (!json_is_array(w))
        return smr_bad(err, n, "topology_warnings: must be a list of strings");
    json_array_foreach(w, i, x) {
        if (!json_is_string(x) || strchr(json_string_value(x), '\n'))
            return smr_bad(err, n, "topology_warnings[%zu]: must be a string of one line", i);
        len += json_string_length(x) + 1;
    }
    if (json_array_size(w) == 0)
        return 0;
    if (!(rec->topology_warnings = malloc(len)))
        return smr_bad(err, n, "out of memory");
    char *p = rec->topology_warnings;
    json_array_foreach(w, i, x) {
        memcpy(p, json_string_value(x), json_string_length(x));
        p += json_string_length(x);
        *p++ = '\n';
    }
    *p = '\0';
    return 0;
}

/* a level's "links" (optional): counts that cannot be negative */
static int parse_links(json_t *lj, smr_links *k, const char *where, char *err, size_t n)
{
    json_t *o = json_object_get(lj, "links");
    if (!o || json_is_null(o))
        return 0;
    char in[64];
    snprintf(in, sizeof(in), "%s.links", where);
    int64_t v[5];
    static const char *const keys[5] = {"groups", "uplinks_min", "uplinks_max", "link_speed_min",
                                        "link_speed_max"};
    if (!json_is_object(o))
        return smr_bad(err, n, "%s: must be an object", in);
    for (int i = 0; i < 5; i++) {
        if (smr_get_int(o, in, keys[i], false, &v[i], err, n))
            return -1;
        if (v[i] < 0 || (i < 3 && v[i] > INT32_MAX))
            return smr_bad(err, n, "%s.%s: must be a count, not %lld", in, keys[i],
                           (long long)v[i]);
    }
    if (v[1] > v[2] || v[3] > v[4])
        return smr_bad(err, n, "%s: a minimum above its maximum", in);
    *k = (smr_links){.groups = (int)v[0], .uplinks_min = (int)v[1], .uplinks_max = (int)v[2],
                     .speed_min = v[3], .speed_max = v[4]};
    return 0;
}

static int get_real(json_t *o, const char *where, const char *key, double *v, char *err, size_t n)
{
    json_t *x = json_object_get(o, key);
    *v = 0;
    if (!x)
        return 0; /* unweighted stencils have none */
    if (!json_is_number(x) || !(json_number_value(x) >= 0))
        return smr_bad(err, n, "%s.%s: must be a non-negative number", where, key);
    *v = json_number_value(x);
    return 0;
}

static int parse_groups(json_t *lj, smr_record *rec, int l, const char *where, char *err,
                        size_t n)
{
    smp_levels *lv = &rec->levels;
    json_t *of = json_object_get(lj, "node_groups"), *groups = json_object_get(lj, "groups");
    if (!json_is_array(of) || (int)json_array_size(of) != rec->nodes.count)
        return smr_bad(err, n, "%s.node_groups: must be a list with one group per node (%d)",
                       where, rec->nodes.count);
    if (groups && !json_is_null(groups) &&
        (!json_is_array(groups) || json_array_size(groups) < 1 ||
         json_array_size(groups) > (size_t)rec->nodes.count))
        return smr_bad(err, n, "%s.groups: must be null or a list of 1 to %d group names", where,
                       rec->nodes.count);
    int ngroups = groups && json_is_array(groups) ? (int)json_array_size(groups)
                                                   : rec->nodes.count;
    if (!(lv->group_of_node[l] = calloc((size_t)rec->nodes.count + 1, sizeof(int32_t))))
        return smr_bad(err, n, "out of memory");
    int32_t top = -1;
    for (size_t i = 0; i < json_array_size(of); i++) {
        json_t *x = json_array_get(of, i);
        if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) >= ngroups)
            return smr_bad(err, n, "%s.node_groups[%zu]: must be a group index in [0, %d)",
                           where, i, ngroups);
        lv->group_of_node[l][i] = (int32_t)json_integer_value(x);
        if (lv->group_of_node[l][i] > top)
            top = lv->group_of_node[l][i];
    }
    lv->ngroups[l] = groups && json_is_array(groups) ? ngroups : top + 1;
    if (!groups || json_is_null(groups))
        return 0;
    if (!(lv->group_names[l] = calloc((size_t)ngroups, sizeof(char *))))
        return smr_bad(err, n, "out of memory");
    for (int g = 0; g < ngroups; g++) {
        json_t *x = json_array_get(groups, (size_t)g);
        if (!json_is_string(x) || !json_string_length(x))
            return smr_bad(err, n, "%s.groups[%d]: must be a non-empty string", where, g);
        if (!(lv->group_names[l][g] = strdup(json_string_value(x))))
            return smr_bad(err, n, "out of memory");
    }
    return 0;
}

static int parse_level(json_t *lj, smr_record *rec, int l, char *err, size_t n)
{
    char where[48];
    snprintf(where, sizeof(where), "topology.levels[%d]", l);
    if (!json_is_object(lj))
        return smr_bad(err, n, "%s: must be an object", where);
    smp_score *p = &rec->level_planned[l], *b = &rec->level_blocked[l];
    p->j_max_node = b->j_max_node = -1;
    return parse_groups(lj, rec, l, where, err, n) ||
                   parse_links(lj, &rec->links[l], where, err, n) ||
                   smr_get_int(lj, where, "j_sum", false, &p->j_sum, err, n) ||
                   smr_get_int(lj, where, "j_max", false, &p->j_max, err, n) ||
                   smr_get_int(lj, where, "blocked_j_sum", false, &b->j_sum, err, n) ||
                   smr_get_int(lj, where, "blocked_j_max", false, &b->j_max, err, n) ||
                   get_real(lj, where, "w_sum", &p->w_sum, err, n) ||
                   get_real(lj, where, "w_max", &p->w_max, err, n) ||
                   get_real(lj, where, "blocked_w_sum", &b->w_sum, err, n) ||
                   get_real(lj, where, "blocked_w_max", &b->w_max, err, n)
               ? -1
               : 0;
}

int smr_parse_levels(json_t *j, smr_record *rec, char *err, size_t n)
{
    /* "topology_source" (added later: absent is "") says where the levels
     * came from, or why there were none; "topology"'s own source wins */
    if (smr_get_opt_str(j, "topology_source", rec->levels.source, sizeof(rec->levels.source), err,
                        n) ||
        parse_warnings(j, rec, err, n))
        return -1;
    json_t *t = json_object_get(j, "topology");
    if (!t || json_is_null(t))
        return 0;
    json_t *levels = json_object_get(t, "levels");
    if (!json_is_object(t) || !json_is_array(levels) || json_array_size(levels) < 1 ||
        json_array_size(levels) > SMP_MAX_LEVELS)
        return smr_bad(err, n, "topology: must be an object with a list of 1 to %d levels",
                       SMP_MAX_LEVELS);
    char why[256];
    if (smr_get_str(t, "source", false, rec->levels.source, sizeof(rec->levels.source), why,
                    sizeof(why)) ||
        smr_get_str(t, "kind", false, rec->topology_kind, sizeof(rec->topology_kind), why,
                    sizeof(why)))
        return smr_bad(err, n, "topology.%s", why);
    json_t *mode = json_object_get(t, "mode");
    smp_levels_mode m;
    if (mode && (!json_is_string(mode) || !smp_levels_mode_from_name(json_string_value(mode), &m)))
        return smr_bad(err, n, "topology.mode: must be 'best', 'groups-first' or 'nodes-first'");
    if (mode)
        snprintf(rec->levels_mode, sizeof(rec->levels_mode), "%s", smp_levels_mode_name(m));
    rec->levels.nnodes = rec->nodes.count;
    for (size_t l = 0; l < json_array_size(levels); l++) {
        rec->levels.nlevels = (int)l + 1; /* what is allocated is freed */
        if (parse_level(json_array_get(levels, l), rec, (int)l, err, n))
            return -1;
    }
    return smr_parse_busiest(t, rec, err, n);
}
