/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The objectives: their names and the order of two scores under each.
 * auto, compare and the refinement all rank placements through here. */
#include <string.h>

#include "model/model.h"

const char *smp_objective_name(smp_objective obj)
{
    return obj == SMP_OBJ_MAX ? "max" : obj == SMP_OBJ_SUM ? "sum" : "unknown";
}

bool smp_objective_from_name(const char *name, smp_objective *obj)
{
    if (name && strcmp(name, "sum") == 0)
        *obj = SMP_OBJ_SUM;
    else if (name && strcmp(name, "max") == 0)
        *obj = SMP_OBJ_MAX;
    else
        return false;
    return true;
}

bool smp_score_better(const smp_score *a, const smp_score *b, bool weighted)
{
    if (weighted) {
        if (a->w_sum != b->w_sum)
            return a->w_sum < b->w_sum;
        return a->w_max < b->w_max;
    }
    if (a->j_sum != b->j_sum)
        return a->j_sum < b->j_sum;
    return a->j_max < b->j_max;
}

bool smp_score_better_for(const smp_score *a, const smp_score *b, bool weighted,
                          smp_objective obj)
{
    if (obj != SMP_OBJ_MAX)
        return smp_score_better(a, b, weighted);
    if (weighted) {
        if (a->w_max != b->w_max)
            return a->w_max < b->w_max;
        return a->w_sum < b->w_sum;
    }
    if (a->j_max != b->j_max)
        return a->j_max < b->j_max;
    return a->j_sum < b->j_sum;
}
