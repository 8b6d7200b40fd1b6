/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Records the reorder library wrote inside an application ("origin",
 * record/smr_record_origin.c): what it says, repeated into the audit's
 * JSON, and checked against the record's own figures: a reordered grid's
 * placement is the plan's, a kept one's is the order MPI gave. */
#include "audit_internal.h"
#include "smr_record_json.h"

void audit_check_origin(const audit_record *rec, audit_result *res)
{
    const smr_origin *o = &rec->r.origin;
    json_t *j = smr_origin_json(&rec->r);
    if (!j)
        return;
    json_object_set_new(res->j, "origin", j);
    int64_t s = o->reordered ? o->planned_j_sum : o->mpi_j_sum;
    int64_t m = o->reordered ? o->planned_j_max : o->mpi_j_max;
    if (s != rec->r.j_sum || m != rec->r.j_max)
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                      "origin says the order was %s with J_sum %lld, J_max %lld; the record's "
                      "placement has %lld, %lld",
                      o->reordered ? "reordered" : "kept", (long long)s, (long long)m,
                      (long long)rec->r.j_sum, (long long)rec->r.j_max);
}
