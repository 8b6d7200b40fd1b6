/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The audit: the records the SPANK plugin writes and the in-job results
 * stored beside them (read through record/), checked against each other
 * and against what Slurm knows of a step.  A convenience library of its
 * own; the CLI's `stencil-map audit` parses options, calls it and prints
 * (cli/cmd_audit.c, audit_print.c, audit_summary.c). */
#ifndef STENCILMAP_AUDIT_H
#define STENCILMAP_AUDIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <stencilmap/placement.h>

#include "smr_record.h"
#include "smr_verify.h"

/* Exit status of `stencil-map audit`; over several steps the worst wins,
 * in the order unreadable > inconsistent > failed > missing > ok. */
enum {
    AUDIT_OK = 0,
    AUDIT_INCONSISTENT = 1, /* figures, launch or in-job result disagree */
    AUDIT_USAGE = 2,
    AUDIT_MISSING = 3,    /* no record: the step was not placed, or it is gone */
    AUDIT_UNREADABLE = 4, /* a record or its verification cannot be read */
    AUDIT_FAILED = 5      /* the plugin stopped a step before its launch */
};

/* The verdict on one step.  Each stands for an exit status (above). */
typedef enum {
    AUDIT_ST_OK,           /* placed, consistent */
    AUDIT_ST_FALLBACK,     /* launched with Slurm's block layout (on_error=blocked) */
    AUDIT_ST_NOT_LAUNCHED, /* srun exited on its own before the step existed */
    AUDIT_ST_NOT_PLACED,   /* no record */
    AUDIT_ST_FAILED,       /* the plugin stopped the step before its launch */
    AUDIT_ST_INCONSISTENT,
    AUDIT_ST_UNREADABLE
} audit_status;

/* Its name in the output: "ok", "fallback", "not launched", ... */
const char *audit_status_name(audit_status st);
/* The exit status it stands for (AUDIT_OK ... AUDIT_FAILED). */
int audit_status_exit(audit_status st);
/* The worse of two exit statuses. */
int audit_worse(int a, int b);

/* One step audited: its status, and the JSON object both the text and the
 * --json output are printed from (its "status" is the status's name). */
typedef struct {
    audit_status status;
    json_t *j;
} audit_result;
/* Writes res->status into res->j. */
void audit_result_finish(audit_result *res);

/* The in-job verification "<record minus .json>.verify.json" as the
 * audit found it. */
typedef struct {
    bool present;          /* the file exists */
    bool readable;         /* ... and parsed */
    char *path;
    char error[512];       /* why it is unreadable */
    smr_verify v;          /* what it says (record/smr_verify.h) */
} audit_verify;

/* One record as the audit read it: the record module's struct, and where
 * it came from. */
typedef struct {
    char *path;
    char error[512];       /* set when unreadable */
    smr_record r;          /* what it says (record/smr_record.h) */
    bool placed;           /* r.kind == SMR_KIND_PLACED */
    audit_verify verify;
} audit_record;

/* Reads one record and its verification; returns 0, or -1 with rec->error
 * naming the field.  Free with audit_record_free() either way. */
int audit_record_read(const char *path, audit_record *rec);
void audit_record_free(audit_record *rec);

/* ---- finding records (record_find.c) --------------------------------- */
/* The record directory: opt, else $STENCILMAP_RECORD_DIR, else record_dir=
 * on the stencil_map.so line of Slurm's plugstack.conf.  0, or -1 with a
 * message; source says where the directory came from. */
int audit_record_dir(const char *opt, char *out, size_t n, char *source, size_t sn, char *msg,
                     size_t mn);
/* KEY=VALUE on the stencil_map.so line of Slurm's plugstack.conf (the one
 * $SLURM_CONF's PlugStackConfig names, else plugstack.conf beside it;
 * include lines followed): 1 with VALUE in out and where it was found in
 * where, or 0; plug gets the plugstack.conf's path either way. */
int audit_plugstack_arg(const char *key, char *out, size_t n, char *where, size_t wn, char *plug,
                        size_t pn);
/* The step of <job>.nostep-<pid>.json records in a search: sorted after
 * a job's steps. */
#define AUDIT_NO_STEP INT64_MAX

typedef struct {
    char **paths;       /* sorted by job, step */
    int count;
    int skipped_dirs;   /* user directories we may not read */
    char skipped_example[256];
} audit_found;
/* Records under dir (every user, or user) for job (-1: any), step (-1:
 * any), written at or after since (NULL: any).  0, or -1 with a message. */
int audit_find_records(const char *dir, const char *user, int64_t job, int64_t step,
                       const char *since, audit_found *found, char *msg, size_t mn);
void audit_found_free(audit_found *found);
/* --since DATE: YYYY-MM-DD[THH:MM[:SS]][Z], UTC, into the record's time
 * format; -1 when malformed. */
int audit_parse_since(const char *arg, char *out, size_t n);
/* Natural order of node names (node2 < node10). */
int audit_name_cmp(const char *a, const char *b);

/* ---- what Slurm knows (slurm_query.c) -------------------------------- */
typedef struct {
    bool known;          /* Slurm answered for this job or step */
    bool step_level;     /* the node list is the step's own (else the job's) */
    char source[64];     /* "sacct", "scontrol show step", "scontrol show job" */
    char nodelist[1024]; /* Slurm's compressed node list */
    char **nodes;        /* expanded */
    int nnodes;
    int64_t tasks;       /* the step's task count, -1 unknown */
    char state[64];
    json_t *notes;       /* array of strings: what was asked and why it did not answer */
} audit_slurm;

/* Asks sacct, then scontrol show step (while the step runs), then
 * scontrol show job (while slurmctld keeps the job, MinJobAge). */
void audit_slurm_query(int64_t job, int64_t step, audit_slurm *s);
/* Step ids of job that slurmctld lists as running (scontrol show step). */
int audit_slurm_running_steps(int64_t job, int64_t **steps);
void audit_slurm_free(audit_slurm *s);

/* ---- checks (audit_check.c) ------------------------------------------- */
typedef struct {
    bool in_record_dir;   /* the record lies in <dir>/<user>/ */
    bool query_slurm;
    const char *launched; /* --launched FILE or NULL */
} audit_options;

/* Reads and checks one record (see stencil-map(1), --json).  rec stays
 * filled for --svg and --summary. */
audit_result audit_check_record(const char *path, const audit_options *opt, audit_record *rec);
/* A step (or job, step < 0) without a record. */
audit_result audit_not_placed(int64_t job, int64_t step, const char *dir, const audit_options *opt);
/* The record is of a step the plugin kept from launching (a failed plan
 * or check, under on_error=fail), not of one srun abandoned on its own. */
bool audit_plugin_stopped(const audit_record *rec);

#endif
