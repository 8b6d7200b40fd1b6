/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error reporting shared by every part of the core. */
#include <stdarg.h>

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
