/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network levels of a placed step in the audit: the record's groups
 * must nest, its figures between groups must be those of its own
 * placement (re-scored) and of the blocked layout (re-planned), and what
 * the job observed between groups must be what was planned.  A record
 * without "topology" was planned without levels and gets nothing here. */
#include <string.h>

#include "audit.h"
#include "audit_internal.h"
#include "smr_record_json.h"

static json_t *weighted_json(const smp_score *p, const smp_score *b)
{
    return json_pack("{s:f,s:f,s:{s:f,s:f}}", "j_sum", p->w_sum, "j_max", p->w_max, "blocked",
                     "j_sum", b->w_sum, "j_max", b->w_max);
}

/* One level's figures against its re-scoring; problems name the level. */
static json_t *level_json(const smr_record *r, int l, const smp_score *sc, const smp_score *bs,
                          audit_result *res)
{
    const smp_score *p = &r->level_planned[l], *b = &r->level_blocked[l];
    json_t *rs = audit_pair(sc->j_sum, sc->j_max);
    json_object_set_new(rs, "blocked", audit_pair(bs->j_sum, bs->j_max));
    json_t *j = json_pack("{s:i,s:o,s:o,s:o}", "groups", r->levels.ngroups[l], "planned",
                          audit_pair(p->j_sum, p->j_max), "blocked",
                          audit_pair(b->j_sum, b->j_max), "rescored", rs);
    if (smp_stencil_weighted(&r->stencil))
        json_object_set_new(j, "weighted", weighted_json(sc, bs));
    if (r->links[l].groups > 0) /* as the topology gave them: not checked */
        json_object_set_new(j, "links", smr_links_json(&r->links[l]));
    static const char *const what[4] = {"j_sum", "j_max", "blocked_j_sum", "blocked_j_max"};
    int64_t rec_v[4] = {p->j_sum, p->j_max, b->j_sum, b->j_max};
    int64_t got[4] = {sc->j_sum, sc->j_max, bs->j_sum, bs->j_max};
    for (int k = 0; k < 4; k++)
        if (rec_v[k] != got[k])
            audit_problem(res, AUDIT_ST_INCONSISTENT,
                          "topology level %d: %s is %lld in the record, %lld %s", l, what[k],
                          (long long)rec_v[k], (long long)got[k],
                          k < 2 ? "from its placement" : "re-planned");
    return j;
}

void audit_check_levels(const audit_record *rec, const char *launched, audit_result *res)
{
    const smr_record *r = &rec->r;
    if (r->topology_warnings) /* what the reader repaired, with or without levels */
        json_object_set_new(res->j, "topology_warnings", smr_warnings_json(r->topology_warnings));
    if (r->levels.nlevels <= 0) {
        if (r->levels.source[0]) /* planned on nodes only: say why */
            json_object_set_new(res->j, "topology_source", json_string(r->levels.source));
        return;
    }
    json_t *levels = json_array();
    json_object_set_new(res->j, "topology", smr_topology_head_json(r, levels));
    smp_error err;
    smp_error_clear(&err);
    if (smp_levels_check(&r->levels, r->nodes.count, &err)) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "topology: %s", err.msg);
        return;
    }
    smp_score sc[SMP_MAX_LEVELS], bs[SMP_MAX_LEVELS];
    smp_placement bl = {0};
    if (smp_levels_score_compute(&r->grid, &r->stencil, r->node_of_rank, r->nodes.count,
                                 &r->levels, sc, &err) ||
        smp_plan(&r->grid, &r->stencil, r->nodes.slots, r->nodes.count, SMP_ALG_BLOCKED, &bl,
                 &err) ||
        smp_levels_score_compute(&r->grid, &r->stencil, bl.node_of_rank, r->nodes.count,
                                 &r->levels, bs, &err)) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "topology: the levels cannot be re-scored: %s",
                      err.msg);
        smp_placement_free(&bl);
        return;
    }
    smp_placement_free(&bl);
    for (int l = 0; l < r->levels.nlevels; l++)
        json_array_append_new(levels, level_json(r, l, &sc[l], &bs[l], res));
    audit_check_busiest(rec, launched, json_object_get(res->j, "topology"), res);
}

void audit_check_levels_verified(const audit_record *rec, json_t *vj, audit_result *res)
{
    const smr_record *r = &rec->r;
    const smr_verify *v = &rec->verify.v;
    if (v->nlevels == 0)
        return; /* no levels, or too many nodes to hand them to the tasks */
    if (v->nlevels != r->levels.nlevels) {
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                      "the job counted edges between groups on %d network levels, the record "
                      "has %d", v->nlevels, r->levels.nlevels);
        return;
    }
    json_t *levels = json_array();
    json_object_set_new(vj, "levels", levels);
    for (int l = 0; l < v->nlevels; l++) {
        const smr_verify_level *x = &v->levels[l];
        const smp_score *p = &r->level_planned[l];
        bool told = x->planned_j_sum >= 0;
        bool agrees = x->observed_j_sum == p->j_sum && x->observed_j_max == p->j_max;
        json_array_append_new(levels,
                              json_pack("{s:o,s:o,s:b}", "planned",
                                        told ? audit_pair(x->planned_j_sum, x->planned_j_max)
                                             : json_null(),
                                        "observed",
                                        audit_pair(x->observed_j_sum, x->observed_j_max),
                                        "agrees_with_record", agrees));
        if (told && (x->planned_j_sum != p->j_sum || x->planned_j_max != p->j_max))
            audit_problem(res, AUDIT_ST_INCONSISTENT,
                          "topology level %d: the job was told J_sum %lld, J_max %lld between "
                          "groups; the record says %lld, %lld", l, (long long)x->planned_j_sum,
                          (long long)x->planned_j_max, (long long)p->j_sum, (long long)p->j_max);
        if (!agrees)
            audit_problem(res, AUDIT_ST_INCONSISTENT,
                          "topology level %d: the job observed J_sum %lld, J_max %lld between "
                          "groups; the record planned %lld, %lld", l,
                          (long long)x->observed_j_sum, (long long)x->observed_j_max,
                          (long long)p->j_sum, (long long)p->j_max);
    }
}
