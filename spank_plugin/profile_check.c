/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STENCIL_MAP_CHECK_PROFILE: a spec against a profile (see profile_check.h). */
#include <stdio.h>
#include <stdlib.h>

#include "profile_check.h"
#include "spec_check.h"

void sm_profile_check(const smp_spec *spec)
{
    const char *dir = getenv(SM_CHECK_PROFILE_ENV);
    if (!dir || !*dir)
        return;
    smp_error err;
    smp_error_clear(&err);
    int n = spec_check_dir("stencil-map", dir, spec, &err);
    if (n < 0)
        fprintf(stderr, "stencil-map: warning: %s=%s: cannot check the spec: %s\n", SM_CHECK_PROFILE_ENV, dir,
                err.msg);
    else if (n > 0)
        fprintf(stderr, "stencil-map: warning: launching as asked; `stencil-map learn %s` writes a spec "
                        "that fits\n", dir);
}
