/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error reporting and algorithm names shared by every part of the core. */
#include <stdarg.h>
#include <string.h>

#include "stencilmap/placement.h"

smp_status smp_error_set(smp_error *err, smp_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

void smp_error_clear(smp_error *err)
{
    if (err) {
        err->status = SMP_OK;
        err->msg[0] = '\0';
    }
}

static const char *const alg_names[SMP_ALG_COUNT] = {
    [SMP_ALG_AUTO] = "auto",         [SMP_ALG_HYPERPLANE] = "hyperplane",
    [SMP_ALG_STRIPS] = "strips",     [SMP_ALG_KDTREE] = "kdtree",
    [SMP_ALG_NODECART] = "nodecart", [SMP_ALG_BLOCKED] = "blocked",
    [SMP_ALG_BISECT] = "bisect",
};

const char *smp_algorithm_name(smp_algorithm alg)
{
    return (alg >= 0 && alg < SMP_ALG_COUNT) ? alg_names[alg] : "unknown";
}

bool smp_algorithm_from_name(const char *name, smp_algorithm *alg)
{
    for (int a = 0; a < SMP_ALG_COUNT; a++)
        if (name && strcmp(name, alg_names[a]) == 0) {
            *alg = (smp_algorithm)a;
            return true;
        }
    return false;
}

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
