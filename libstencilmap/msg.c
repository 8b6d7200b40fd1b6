/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library's one way to fail with a message (stencilmap_internal.h):
 * every file reports through it, so it sits below them all. */
#include <stdarg.h>
#include <stdio.h>

#include "stencilmap_internal.h"

stencilmap_status sm_msg(char *msg, size_t len, stencilmap_status st, const char *fmt, ...)
{
    if (msg && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return st;
}
