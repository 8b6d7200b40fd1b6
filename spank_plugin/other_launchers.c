/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where another launcher numbers the ranks (other_launchers.h). */
#include <string.h>

#include "other_launchers.h"

bool sm_launcher_daemon(const char *program)
{
    static const char *const daemons[] = {"orted", "prted", "hydra_pmi_proxy", "pmi_proxy"};
    if (!program)
        return false;
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    for (size_t i = 0; i < sizeof(daemons) / sizeof(daemons[0]); i++)
        if (!strcmp(base, daemons[i]))
            return true;
    return false;
}

bool sm_cray_renumbers(const char *method)
{
    /* 1 (SMP-style, the default) keeps the task order; 0 round-robin, 2
     * folded, 3 a custom order (and anything else) renumber */
    return method && *method && strcmp(method, "1") != 0;
}
