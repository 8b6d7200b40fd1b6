/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a record came from when the plugin did not write it: the reorder
 * library (libstencilmap-reorder) records the grid an application's
 * MPI_Cart_create(reorder=1) asked for, planned inside the job.  One
 * optional object, absent in the plugin's records, so format 1 is
 * unchanged:
 *
 *   "origin": {"source": "libstencilmap-reorder", "call": "MPI_Cart_create",
 *              "order": "reordered",            or "kept" (MPI's order)
 *              "why": null,                     why the order was kept
 *              "planned": {"j_sum": 8, "j_max": 4},     the plan's figures
 *              "mpi_order": {"j_sum": 12, "j_max": 6}}  those of MPI's order
 *
 * The record's own j_sum/j_max are those of its placement (the plan's when
 * reordered, MPI's order's when kept), so the audit re-scores either. */
#include <stdio.h>
#include <string.h>

#include "smr_read_util.h"
#include "smr_record.h"
#include "smr_record_json.h"

static json_t *pair(int64_t s, int64_t m)
{
    return json_pack("{s:I,s:I}", "j_sum", (json_int_t)s, "j_max", (json_int_t)m);
}

json_t *smr_origin_json(const smr_record *rec)
{
    const smr_origin *o = &rec->origin;
    if (!o->source[0])
        return NULL;
    return json_pack("{s:s,s:s,s:s,s:s?,s:o,s:o}", "source", o->source, "call", o->call, "order",
                     o->reordered ? "reordered" : "kept", "why", o->why[0] ? o->why : NULL,
                     "planned", pair(o->planned_j_sum, o->planned_j_max), "mpi_order",
                     pair(o->mpi_j_sum, o->mpi_j_max));
}

static int parse_pair(json_t *o, const char *key, int64_t *s, int64_t *m, char *err, size_t n)
{
    char where[32];
    json_t *x = json_object_get(o, key);
    snprintf(where, sizeof(where), "origin.%s", key);
    if (!json_is_object(x))
        return smr_bad(err, n, "%s: must be an object with j_sum and j_max", where);
    return smr_get_int(x, where, "j_sum", false, s, err, n) ||
                   smr_get_int(x, where, "j_max", false, m, err, n)
               ? -1
               : 0;
}

int smr_parse_origin(json_t *j, smr_record *rec, char *err, size_t n)
{
    json_t *o = json_object_get(j, "origin");
    smr_origin *g = &rec->origin;
    if (!o || json_is_null(o))
        return 0;
    if (!json_is_object(o))
        return smr_bad(err, n, "origin: must be an object");
    char order[16], why[512];
    if (smr_get_str(o, "source", false, g->source, sizeof(g->source), why, sizeof(why)) ||
        smr_get_str(o, "call", false, g->call, sizeof(g->call), why, sizeof(why)) ||
        smr_get_str(o, "order", false, order, sizeof(order), why, sizeof(why)) ||
        smr_get_opt_str(o, "why", g->why, sizeof(g->why), why, sizeof(why)))
        return smr_bad(err, n, "origin.%s", why); /* the field named inside origin */
    if (!g->source[0])
        return smr_bad(err, n, "origin.source: must not be empty");
    if (strcmp(order, "reordered") && strcmp(order, "kept"))
        return smr_bad(err, n, "origin.order: must be \"reordered\" or \"kept\", not \"%s\"",
                       order);
    g->reordered = !strcmp(order, "reordered");
    return parse_pair(o, "planned", &g->planned_j_sum, &g->planned_j_max, err, n) ||
                   parse_pair(o, "mpi_order", &g->mpi_j_sum, &g->mpi_j_max, err, n)
               ? -1
               : 0;
}
