/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Between the audit's check files (not for the CLI). */
#ifndef STENCILMAP_AUDIT_INTERNAL_H
#define STENCILMAP_AUDIT_INTERNAL_H

#include "audit.h"

/* Adds a problem to res; status becomes the worse of the two (by the
 * exit status each stands for). */
void audit_problem(audit_result *res, audit_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* {"j_sum": a, "j_max": b} */
json_t *audit_pair(int64_t a, int64_t b);
/* One comparison of where the ranks ran: {"source", "level", "result":
 * "matches" or "differs", "detail"}. */
json_t *audit_check_json(const char *source, const char *level, bool ok, const char *detail);
/* Per-rank nodes from some source against the record's placement. */
json_t *audit_rank_check(const audit_record *rec, char **observed, int64_t count,
                         const char *source, audit_result *res);
/* --launched FILE: line r = node of rank r, or "r: node" lines in any
 * order as `srun --label hostname` prints them.  0 with count names
 * (free with audit_free_names), or -1 with a message naming the file. */
int audit_read_launched(const char *path, char ***out, int64_t *count, char *msg, size_t mn);
void audit_free_names(char **v, int64_t n);
/* Where the ranks ran: --launched FILE and Slurm's node lists against the
 * record, after the in-job result's checks (checks, unchecked); sets
 * "launch" and takes both arrays. */
void audit_check_launch(const audit_record *rec, const audit_options *opt, audit_result *res,
                        json_t *checks, json_t *unchecked);

/* The network levels of a placed step (audit_levels.c): the record's
 * groups, its figures between them re-scored and the blocked layout's
 * re-planned ("topology" in res); nothing for a record without levels. */
void audit_check_levels(const audit_record *rec, const char *launched, audit_result *res);
/* the record's busiest link against its re-scoring, and against where the
 * ranks ran (the in-job result's rank nodes, else launched: --launched
 * FILE or NULL), into topology's JSON (audit_busiest.c) */
void audit_check_busiest(const audit_record *rec, const char *launched, json_t *topology,
                         audit_result *res);
/* What the job observed between groups against the record ("levels" in
 * vj, the in-job result's JSON). */
void audit_check_levels_verified(const audit_record *rec, json_t *vj, audit_result *res);
/* A record written inside the application (its "origin"): repeated into
 * res, its figures against the record's (audit_origin.c); nothing for the
 * plugin's records. */
void audit_check_origin(const audit_record *rec, audit_result *res);

#endif
