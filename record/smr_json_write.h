/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A JSON string literal written to a stream: the Jansson-free writers of
 * the in-job result (smr_verify.h) need it, and libstencilmap, which is
 * linked into users' MPI applications, must not pull in a JSON library
 * for one function.  Not exported from libstencilmap. */
#ifndef SMR_JSON_WRITE_H
#define SMR_JSON_WRITE_H

#include <stdio.h>

void smj_write_str(FILE *f, const char *s);

#endif
