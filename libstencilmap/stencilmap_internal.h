/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal helpers of libstencilmap (not installed). */
#ifndef STENCILMAP_INTERNAL_H
#define STENCILMAP_INTERNAL_H
#include <stddef.h>
#include "stencilmap.h"

stencilmap_status sm_msg(char *msg, size_t len, stencilmap_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#endif
