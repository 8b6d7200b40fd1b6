/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The in-job result: what stencil-map-verify observed in a running step,
 * kept beside the step's audit record as "<record minus .json>.verify.json"
 * (smr_names.h) and printed by stencil-map-verify --json.  One struct, its
 * writers (Jansson-free: libstencilmap is linked into users' MPI
 * applications and must not bring a JSON library into them) and its reader
 * (Jansson: only the CLI reads results).  Format SM_FORMAT_VERIFY. */
#ifndef SMR_VERIFY_H
#define SMR_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { SMR_VERIFY_OK = 0, SMR_VERIFY_MISMATCH, SMR_VERIFY_ERROR } smr_verify_status;

#define SMR_VERIFY_MAX_LEVELS 4 /* = SMP_MAX_LEVELS */

/* Edges between groups of one network level (leaf switches, blocks). */
typedef struct {
    int64_t planned_j_sum, planned_j_max;   /* -1: not told */
    int64_t observed_j_sum, observed_j_max;
} smr_verify_level;

typedef struct {
    char *name;
    int64_t ranks, edges_out;
} smr_verify_node;

typedef struct {
    int format;               /* as read (1 when absent); writers write SM_FORMAT_VERIFY */
    char version[64];         /* stencilmap_version as read, "" when absent */
    int64_t job_id, step_id;  /* -1: null */
    char record[4096];        /* the audit record it belongs to, "" when absent */
    char time[32];            /* smr_time_now() */
    char writer[32];          /* "libstencilmap" */
    smr_verify_status status;
    char message[512];
    int64_t ranks;
    char algorithm[32];       /* "" when unknown (null) */
    /* the rest only when the figures were measured (has_observed: status
     * OK or MISMATCH); a result of ERROR carries them as null */
    bool has_planned, has_observed;
    int64_t planned_j_sum, planned_j_max;
    int64_t observed_j_sum, observed_j_max;
    double observed_w_sum, observed_w_max;
    int64_t coords_checked, coords_wrong;
    int nnodes;
    smr_verify_node *nodes;
    /* steps planned on network levels: "levels" (absent: nlevels 0) */
    int nlevels;
    smr_verify_level levels[SMR_VERIFY_MAX_LEVELS];
    bool has_rank_nodes;      /* rank_nodes is a list, not null */
    int64_t rank_nodes_count;
    char **rank_nodes;        /* every rank's node as the ranks reported it */
    /* stencil-map-verify --json only: the place's grid and blocked figures */
    int ndims;                /* 0: no place (then no algorithm nor dims either) */
    const int64_t *dims;
    bool has_blocked;
    int64_t blocked_j_sum, blocked_j_max;
} smr_verify;

/* "OK", "MISMATCH", "ERROR" */
const char *smr_verify_status_name(smr_verify_status st);

/* A result as a file's content (the sidecar). */
void smr_verify_write(FILE *f, const smr_verify *v);
/* A result as stencil-map-verify --json prints it: one line. */
void smr_verify_print_line(FILE *f, const smr_verify *v);
/* Writes the result of the record at the absolute path record into the
 * record's directory, which must be the effective user's, beside the
 * record, which must exist (smr_atomic.h).  Returns 0 with the result's
 * path in path (may be NULL); -1 when record names no record (msg says
 * why, naming it as what); -2 when the file cannot be written. */
int smr_verify_store(const char *record, const char *what, const smr_verify *v, char *path,
                     size_t pathlen, char *msg, size_t n);

/* Reads a result.  0; 1 when path does not exist; -1 when it is
 * unreadable, err naming the field.  Free with smr_verify_free() in
 * every case. */
int smr_verify_read(const char *path, smr_verify *v, char *err, size_t n);
void smr_verify_free(smr_verify *v);

#endif
