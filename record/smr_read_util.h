/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the readers of records and results share (not installed): the
 * careful open, the format rule and typed field getters, each failing
 * with a message that names the field. */
#ifndef SMR_READ_UTIL_H
#define SMR_READ_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int smr_bad(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Loads a JSON object from path, which must be a regular file, not a
 * symbolic link.  NULL with a message; *absent when it does not exist. */
json_t *smr_load(const char *path, char *err, size_t n, bool *absent);
/* The "format" and "stencilmap_version" of a file: what (e.g. "an audit
 * record") of a format newer than known is refused, naming both; a file
 * without "format" is format 1.  Fills *format and version. */
int smr_check_format(json_t *j, const char *what, int known, int *format, char *version,
                     size_t vlen, char *err, size_t n);
/* Non-negative integer obj.key; null allowed when nullable (then -1). */
int smr_get_int(json_t *o, const char *obj, const char *key, bool nullable, int64_t *v,
                char *err, size_t n);
/* String key into out; null allowed when nullable (then ""). */
int smr_get_str(json_t *o, const char *key, bool nullable, char *out, size_t size, char *err,
                size_t n);
/* Like smr_get_str, but an absent key is "" too (fields added later). */
int smr_get_opt_str(json_t *o, const char *key, char *out, size_t size, char *err, size_t n);

#endif
