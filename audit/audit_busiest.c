/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The busiest link of a placed step in the audit: the record's L_max and
 * its bound must be those of its own placement, re-scored on the
 * record's levels with the routing and uplink counts the plugin used, as
 * J is re-scored (audit_check.c); and, where the in-job result (else a
 * --launched FILE) says on which node each rank ran, those of the
 * placement that really ran, so that a launch that put ranks elsewhere
 * shows what it cost the busiest link.  A record without "busiest_link" (older ones, steps without
 * levels) gets nothing here; one whose uplink counts varied within a level
 * without each group's count ("per_group", older records) keeps only their
 * range, so it is shown but not re-scored. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audit_internal.h"

/* equal up to the record's printing of a double */
static bool same_load(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* A level's per-group counts against the range the record also gives. */
static void check_per_group(const smr_record *r, int l, audit_result *res)
{
    const int32_t *pg = r->link_uplinks_per_group[l];
    int lo = pg[0], hi = pg[0];
    for (int g = 1; g < r->levels.ngroups[l]; g++) {
        lo = pg[g] < lo ? pg[g] : lo;
        hi = pg[g] > hi ? pg[g] : hi;
    }
    if (lo != r->link_uplinks_min[l] || hi != r->link_uplinks_max[l])
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                      "topology: busiest_link.uplinks[%d]: per_group ranges %d-%d, min and max "
                      "say %d-%d", l, lo, hi, r->link_uplinks_min[l], r->link_uplinks_max[l]);
}

/* The record's uplink counts as per-group arrays: each group's where the
 * record lists them, else the level's one count.  False when some level's
 * counts varied and only their range is recorded, or memory ran out. */
static bool links_of_record(const smr_record *r, smp_links *lk, audit_result *res)
{
    smp_routing_from_name(r->link_routing, &lk->routing);
    for (int l = 0; l < r->levels.nlevels; l++) {
        const int32_t *pg = r->link_uplinks_per_group[l];
        if (!pg && r->link_uplinks_min[l] != r->link_uplinks_max[l])
            return false;
        if (!(lk->uplinks[l] = malloc(sizeof(int32_t) * (size_t)r->levels.ngroups[l])))
            return false;
        if (pg)
            check_per_group(r, l, res);
        for (int g = 0; g < r->levels.ngroups[l]; g++)
            lk->uplinks[l][g] = pg ? pg[g] : r->link_uplinks_min[l];
    }
    /* the stated speeds, a node link's (1) on the other levels */
    double speed[SMP_MAX_LEVELS];
    bool stated = false;
    for (int l = 0; l < r->levels.nlevels && l < SMP_MAX_LEVELS; l++) {
        stated |= r->link_speed[l] > 0;
        speed[l] = r->link_speed[l] > 0 ? r->link_speed[l] : 1.0;
    }
    smp_error err = {0};
    return !stated || !smp_links_set_speeds(lk, &r->levels, speed, r->levels.nlevels, &err);
}

static json_t *load_pair(double l_max, double bound)
{
    return json_pack("{s:f,s:f}", "l_max", l_max, "bound", bound);
}

static int by_name(const void *a, const void *b, void *names)
{
    char **n = names;
    return strcmp(n[*(const int32_t *)a], n[*(const int32_t *)b]);
}

/* The record's node of this name, -1 when it lists none: a binary search
 * over the node indices sorted by name. */
static int32_t node_index(const smr_record *r, const int32_t *sorted, const char *name)
{
    int lo = 0, hi = r->nodes.count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(name, r->nodes.names[sorted[mid]]);
        if (!c)
            return sorted[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

/* Where each rank ran, as indices into the record's nodes, from names
 * (one per rank); NULL with why when a name is not one of the record's
 * nodes or the count differs (the launch check reports those). */
static int32_t *placement_of_names(const smr_record *r, char **names, int64_t count,
                                   const char *source, char *why, size_t n)
{
    if (count != r->placement_count) {
        snprintf(why, n, "%s names %lld ranks, the record %lld", source, (long long)count,
                 (long long)r->placement_count);
        return NULL;
    }
    int32_t *sorted = malloc(sizeof(int32_t) * (size_t)(r->nodes.count + 1));
    int32_t *ran = malloc(sizeof(int32_t) * (size_t)(r->placement_count + 1));
    if (!sorted || !ran) {
        snprintf(why, n, "out of memory");
        free(sorted);
        free(ran);
        return NULL;
    }
    for (int i = 0; i < r->nodes.count; i++)
        sorted[i] = i;
    qsort_r(sorted, (size_t)r->nodes.count, sizeof(int32_t), by_name, r->nodes.names);
    for (int64_t k = 0; ran && k < count; k++)
        if ((ran[k] = node_index(r, sorted, names[k])) < 0) {
            snprintf(why, n, "%s: rank %lld ran on %.200s, which the record does not list",
                     source, (long long)k, names[k]);
            free(ran);
            ran = NULL;
        }
    free(sorted);
    return ran;
}

/* Where each rank ran, from the in-job result's rank_nodes (the ranks'
 * own word), else from --launched FILE; NULL with why when neither says.
 * source gets which one it was. */
static int32_t *placement_that_ran(const audit_record *rec, const char *launched,
                                   const char **source, char *why, size_t n)
{
    const smr_verify *v = &rec->verify.v;
    if (!rec->r.launched) {
        snprintf(why, n, "the step was never launched");
        return NULL;
    }
    if (rec->verify.readable && v->has_rank_nodes) {
        *source = "in-job result (PMIx)";
        return placement_of_names(&rec->r, v->rank_nodes, v->rank_nodes_count, *source, why, n);
    }
    if (!launched) {
        snprintf(why, n, "no in-job result with rank_nodes and no --launched FILE");
        return NULL;
    }
    char **names = NULL, msg[800];
    int64_t count = 0;
    if (audit_read_launched(launched, &names, &count, msg, sizeof(msg))) {
        snprintf(why, n, "%.390s", msg);
        return NULL;
    }
    *source = "--launched FILE";
    int32_t *ran = placement_of_names(&rec->r, names, count, *source, why, n);
    audit_free_names(names, count);
    return ran;
}

/* Where the ranks ran re-scored ("ran" in j), against what was planned;
 * or why that is not known ("ran": null, "ran_unknown"). */
static void check_ran(const audit_record *rec, const char *launched, const smp_links *lk,
                      json_t *j, audit_result *res)
{
    const smr_record *r = &rec->r;
    char why[400];
    const char *source = "";
    int32_t *ran = placement_that_ran(rec, launched, &source, why, sizeof(why));
    if (!ran) {
        json_object_set_new(j, "ran", json_null());
        json_object_set_new(j, "ran_unknown", json_string(why));
        return;
    }
    smp_link_score ls;
    smp_error err;
    smp_error_clear(&err);
    smp_status s = smp_link_score_compute(&r->grid, &r->stencil, ran, r->nodes.count, &r->levels,
                                          lk, &ls, &err);
    free(ran);
    if (s) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "topology: the busiest link where the ranks "
                      "ran cannot be scored: %s", err.msg);
        return;
    }
    json_t *x = load_pair(ls.l_max, ls.bound);
    json_object_set_new(x, "source", json_string(source));
    json_object_set_new(j, "ran", x);
    if (!same_load(r->link_l_max, ls.l_max) || !same_load(r->link_bound, ls.bound))
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                      "topology: busiest link %.6g (bound %.6g) planned, %.6g (bound %.6g) where "
                      "the ranks ran (%s)", r->link_l_max, r->link_bound, ls.l_max, ls.bound,
                      source);
}

void audit_check_busiest(const audit_record *rec, const char *launched, json_t *topology,
                         audit_result *res)
{
    const smr_record *r = &rec->r;
    if (r->link_l_max < 0 || r->levels.nlevels <= 0)
        return;
    json_t *j = json_pack("{s:o,s:s}", "planned", load_pair(r->link_l_max, r->link_bound),
                          "routing", r->link_routing);
    json_object_set_new(topology, "busiest_link", j);
    json_t *speeds = json_array();
    for (int l = 0; l < r->levels.nlevels && l < SMP_MAX_LEVELS; l++)
        json_array_append_new(speeds, json_real(r->link_speed[l] > 0 ? r->link_speed[l] : 1.0));
    for (int l = 0; l < r->levels.nlevels && l < SMP_MAX_LEVELS; l++)
        if (r->link_speed[l] > 0) {
            json_object_set(j, "uplink_speed", speeds); /* stated on some level */
            break;
        }
    json_decref(speeds);
    smp_links lk = {0};
    if (!links_of_record(r, &lk, res)) {
        json_object_set_new(j, "rescored", json_null()); /* uplinks vary: range only */
        smp_links_free(&lk);
        return;
    }
    smp_link_score ls;
    smp_error err;
    smp_error_clear(&err);
    if (smp_link_score_compute(&r->grid, &r->stencil, r->node_of_rank, r->nodes.count,
                               &r->levels, &lk, &ls, &err)) {
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                      "topology: the busiest link cannot be re-scored: %s", err.msg);
        smp_links_free(&lk);
        return;
    }
    json_object_set_new(j, "rescored", load_pair(ls.l_max, ls.bound));
    if (!same_load(r->link_l_max, ls.l_max) || !same_load(r->link_bound, ls.bound))
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                      "topology: busiest link %.6g (bound %.6g) in the record, %.6g (bound "
                      "%.6g) from its placement", r->link_l_max, r->link_bound, ls.l_max,
                      ls.bound);
    check_ran(rec, launched, &lk, j, res);
    smp_links_free(&lk);
}
