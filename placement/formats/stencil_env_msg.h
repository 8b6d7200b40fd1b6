/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside libsmp_env only: the one way its readers report a bad value. */
#ifndef SMP_STENCIL_ENV_MSG_H
#define SMP_STENCIL_ENV_MSG_H

#include <stddef.h>

/* Formats the message into msg (len bytes; msg may be NULL) and returns
 * -1, the readers' failure, so that a check ends in one statement. */
int smp_env_msg(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
