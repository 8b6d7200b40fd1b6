/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A JSON string literal written to a stream: the in-job library's record
 * sidecar and stencil-map-verify --json both need it, without pulling in a
 * JSON library for one function.  Compiled into both (not exported). */
#ifndef STENCILMAP_JSON_WRITE_H
#define STENCILMAP_JSON_WRITE_H

#include <stdio.h>

void smj_write_str(FILE *f, const char *s);

#endif
