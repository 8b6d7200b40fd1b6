/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where records lie and what their files are called, built and parsed in
 * this one place (no Jansson: libstencilmap uses it too).
 *
 *   <record_dir>/<user>/<job>.<step>.json         a step's audit record
 *   <record_dir>/<user>/<job>.<step>.<k>.json     the k-th when that exists
 *   <record_dir>/<user>/<job>.nostep-<pid>.json   a step never created
 *   <record minus .json>.verify.json              its in-job result
 *
 * and the time stamp both files carry. */
#ifndef SMR_NAMES_H
#define SMR_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMR_RECORD_SUFFIX ".json"
#define SMR_VERIFY_SUFFIX ".verify.json"
/* the step of a record whose step was never created (JSON null) */
#define SMR_NO_STEP (-1)
/* how many <k> are tried before a record is given up */
#define SMR_NAME_TRIES 100

/* The k-th candidate name of a record: k = 0 is the plain name.  step
 * SMR_NO_STEP names it by pid instead. */
void smr_record_name(char *out, size_t n, int64_t job, int64_t step, long pid, int k);
/* The name a record is written under before it is linked to its own. */
void smr_record_tmp_name(char *out, size_t n, int64_t job, int64_t step, long pid);

/* The ids a file name says; false when base is no record's name (a hidden
 * file, a result, anything not ending in .json).  *step is SMR_NO_STEP
 * for <job>.nostep-<pid>[.<k>].json. */
bool smr_record_name_parse(const char *base, int64_t *job, int64_t *step);

/* "<path minus .json>.verify.json", malloc'd (NULL: out of memory). */
char *smr_verify_path(const char *record_path);
/* Splits an absolute record path into its directory and the base name of
 * its result.  -1: not an absolute path to a .json record (a result is
 * not a record); -2: a name too long for the buffers. */
int smr_verify_names(const char *record, char *dir, size_t dlen, char *base, size_t blen);

/* The current time as both files write it, "2026-11-23T08:51:04Z" (UTC). */
void smr_time_now(char *out, size_t n);

#endif
