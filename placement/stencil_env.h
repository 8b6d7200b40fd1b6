/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The STENCIL_MAP_* variables: the plugin sets them in every task of a
 * placed step and the in-job library reads them back.  Their names, and the
 * text of their values, live here so the writer and the reader cannot drift.
 * No Jansson, Slurm or PMIx: libstencilmap links this alone
 * (libsmp-env.la), the plugin through the placement core. */
#ifndef SMP_STENCIL_ENV_H
#define SMP_STENCIL_ENV_H

#include <stddef.h>
#include <stdint.h>

#define SMP_ENV_PREFIX "STENCIL_MAP_"
#define SMP_ENV_DIMS "STENCIL_MAP_DIMS"
#define SMP_ENV_PERIODS "STENCIL_MAP_PERIODS"
#define SMP_ENV_ORDER "STENCIL_MAP_ORDER"
#define SMP_ENV_COORDS "STENCIL_MAP_COORDS"
#define SMP_ENV_STENCIL "STENCIL_MAP_STENCIL"
#define SMP_ENV_WEIGHTS "STENCIL_MAP_WEIGHTS"
#define SMP_ENV_ALGORITHM "STENCIL_MAP_ALGORITHM"
#define SMP_ENV_JSUM "STENCIL_MAP_JSUM"
#define SMP_ENV_JMAX "STENCIL_MAP_JMAX"
#define SMP_ENV_BLOCKED_JSUM "STENCIL_MAP_BLOCKED_JSUM"
#define SMP_ENV_BLOCKED_JMAX "STENCIL_MAP_BLOCKED_JMAX"
#define SMP_ENV_SOCKET "STENCIL_MAP_SOCKET"
#define SMP_ENV_SOCKET_MAP "STENCIL_MAP_SOCKET_MAP"
#define SMP_ENV_SPEC "STENCIL_MAP_SPEC"
#define SMP_ENV_RECORD "STENCIL_MAP_RECORD"

/* Room for a list of SMP_MAX_DIMS integers ("4,3,2"). */
#define SMP_ENV_LIST_LEN (8 * 24)

/* A ','-separated list of at most max decimal integers in [lo, hi] (no
 * spaces, no '+', no leading zeros).  Returns 0, or -1 with a message
 * naming name in msg. */
int smp_env_parse_list(const char *name, const char *s, int max, int64_t lo, int64_t hi,
                       int64_t *out, int *n, char *msg, size_t len);
/* STENCIL_MAP_DIMS: at most SMP_MAX_DIMS positive sides whose product (in
 * *size) is at most SMP_MAX_RANKS.  Returns 0, or -1 with a message. */
int smp_env_parse_dims(const char *s, int64_t *dims, int *ndims, int64_t *size, char *msg,
                       size_t len);
/* STENCIL_MAP_ORDER: "row-major" -> 0, "column-major" -> 1, else -1 with
 * a message. */
int smp_env_parse_order(const char *s, char *msg, size_t len);

/* "4,3,2" into buf (always terminated; truncated if buf is too small). */
void smp_env_format_list(char *buf, size_t len, const int64_t *v, int n);
/* STENCIL_MAP_STENCIL's value, "1,0;-1,0;...", from count offsets of ndims
 * entries each; malloc'd, NULL when out of memory. */
char *smp_env_format_stencil(const int32_t *offsets, int count, int ndims);

#endif
