/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map audit: the audit records the SPANK plugin writes
 * (spank_plugin/record.c), the in-job verification results stored beside
 * them (libstencilmap/verify_record.c), and what Slurm knows of a step. */
#ifndef STENCILMAP_CLI_AUDIT_H
#define STENCILMAP_CLI_AUDIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <stencilmap/placement.h>

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

/* What a record says the plugin did (spank_plugin/record.c). */
typedef enum {
    AUDIT_KIND_PLACED,   /* a plan: grid, stencil, figures and placement */
    AUDIT_KIND_FALLBACK, /* on_error=blocked: Slurm's block layout, and why */
    AUDIT_KIND_NOTHING   /* algorithm_used null: the plan failed, nothing placed */
} audit_kind;

/* The in-job verification "<record minus .json>.verify.json". */
typedef struct {
    bool present;          /* the file exists */
    bool readable;         /* ... and parsed */
    char *path;
    char error[512];       /* why it is unreadable */
    char status[16];       /* OK, MISMATCH, ERROR */
    char message[512];
    int64_t job_id, step_id; /* -1 when not given */
    int64_t ranks;
    bool has_planned, has_observed;
    int64_t planned_j_sum, planned_j_max;
    int64_t observed_j_sum, observed_j_max;
    char **rank_nodes;     /* node of each rank as the ranks reported it, or NULL */
    int64_t rank_nodes_count;
} audit_verify;

/* One record.  Reading checks types only; whether the fields agree with
 * each other is audit_check's business, so a hand-edited record is
 * reported as inconsistent, not as unreadable. */
typedef struct {
    char *path;
    char error[512];       /* set when unreadable */
    json_t *json;
    int64_t job_id, step_id; /* step_id -1: null, the step was never created */
    char user[256];
    char time[64];
    char spec[1024];
    char spec_source[64];
    smp_nodes nodes;       /* names and slots as recorded */
    audit_kind kind;
    bool placed;           /* kind == AUDIT_KIND_PLACED */
    char fallback[640];    /* the fallback's reason */
    /* Records written before the plugin recorded unlaunched steps have no
     * "launched": they were all written for launched steps. */
    bool launched;
    char launch_error[1024]; /* "error": why it failed, fell back or never launched */
    double plugin_ms, plugin_cpu_ms, alloc_check_ms; /* -1: not recorded */
    char alg_requested[32], alg_override[32], alg_used[32];
    int64_t ranks;
    smp_grid grid;
    smp_stencil stencil;
    bool have_stencil;
    int64_t j_sum, j_max, blocked_j_sum, blocked_j_max;
    /* bind=socket steps: inter-socket edges of the split and of the naive
     * one (consecutive ranks per socket), as the plugin computed them */
    bool bound;
    int64_t socket_j_sum, socket_j_max, naive_socket_j_sum, naive_socket_j_max;
    int32_t *node_of_rank; /* placement as indices into nodes, -1 for unknown names */
    int64_t placement_count;
    audit_verify verify;
} audit_record;

/* Reads one record and its verification; returns 0, or -1 with rec->error
 * naming the field.  Free with audit_record_free() either way. */
int audit_record_read(const char *path, audit_record *rec);
void audit_record_free(audit_record *rec);
/* "<path minus .json>.verify.json", malloc'd */
char *audit_verify_path(const char *record_path);
/* Reads a verification file (v->present is false when it does not exist). */
int audit_verify_read(const char *path, audit_verify *v);
void audit_verify_free(audit_verify *v);

/* ---- finding records (record_find.c) --------------------------------- */
/* The record directory: opt, else $STENCILMAP_RECORD_DIR, else record_dir=
 * on the stencil_map.so line of Slurm's plugstack.conf.  0, or -1 with a
 * message; source says where the directory came from. */
int audit_record_dir(const char *opt, char *out, size_t n, char *source, size_t sn, char *msg,
                     size_t mn);
/* The step of <job>.nostep-<pid>.json records, sorted after a job's steps. */
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

/* Reads and checks one record; the result is a JSON object (see
 * stencil-map(1), --json).  rec stays filled for --svg and --summary. */
json_t *audit_check_record(const char *path, const audit_options *opt, audit_record *rec);
/* A step (or job, step < 0) without a record. */
json_t *audit_not_placed(int64_t job, int64_t step, const char *dir, const audit_options *opt);
/* The record is of a step the plugin kept from launching (a failed plan
 * or check, under on_error=fail), not of one srun abandoned on its own. */
bool audit_plugin_stopped(const audit_record *rec);
/* The exit status a step's "status" stands for. */
int audit_status_exit(const char *status);
int audit_worse(int a, int b);

/* ---- output (audit_print.c, audit_summary.c) --------------------------- */
void audit_print_step(FILE *out, json_t *step);
/* --summary over the records found; returns the exit status. */
int audit_summary(const audit_found *found, const char *dir, bool json);

#endif
