/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A plan in the form each launcher reads: one writer (and one reader) per
 * format behind one table (table.c), as the constructions are behind
 * placement/construct/constructions.c.
 *
 *   slurm    Slurm's hostfile, line r = node of rank r (srun with
 *            SLURM_HOSTFILE and --distribution=arbitrary; what the plugin
 *            hands srun)
 *   openmpi  an Open MPI rankfile, "rank R=HOST slot=CORE" or, with
 *            sockets, "slot=SOCKET:CORE" (mpirun --rankfile)
 *   mpich    a machine file for MPICH's Hydra, "HOST:COUNT" per run of
 *            consecutive ranks on one node (mpiexec -f)
 *   cray     an MPICH_RANK_ORDER file for HPE Cray MPICH
 *            (MPICH_RANK_REORDER_METHOD=3): the ranks in the order the
 *            launch fills its slots, node by node
 *
 * Each reader gives back the rank-to-node map its file says, so that a
 * file can be scored and a round trip checked.  No Slurm, no MPI: plain
 * text in, plain text out. */
#ifndef SML_LAUNCHERS_H
#define SML_LAUNCHERS_H

#include <stdbool.h>
#include <stdio.h>

#include <stencilmap/placement.h>

#include "formats/task_env.h"

typedef enum { SML_SLURM = 0, SML_OPENMPI, SML_MPICH, SML_CRAY, SML_COUNT } sml_launcher;

/* What a writer writes: the plan and, when sockets were given, the split of
 * each node's ranks over its sockets. */
typedef struct {
    const smp_nodes *nodes;
    const smp_placement *pl;
    const int32_t *socket_of_rank; /* NULL: no second level */
    const char *title;             /* for the comment heading a file that allows one, or NULL */
} sml_plan;

/* What a reader read. */
typedef struct {
    smp_nodes nodes; /* in order of first appearance; slots = ranks read on each */
    int64_t ranks;
    int32_t *node_of_rank; /* ranks entries */
    char **slot;           /* openmpi: each rank's slot list as written, else NULL */
} sml_read_result;

bool sml_from_name(const char *name, sml_launcher *l);
const char *sml_name(sml_launcher l);
/* "slurm, openmpi, mpich, cray", for help texts and messages */
const char *sml_names(void);
/* What the file is, in a few words ("Open MPI rankfile"). */
const char *sml_what(sml_launcher l);
/* The variable of a Slurm allocation that gives each node's slots as this
 * launcher counts them: SLURM_JOB_CPUS_PER_NODE for srun's arbitrary
 * distribution and for Hydra (which takes its counts from the file),
 * SLURM_TASKS_PER_NODE for mpirun (Open MPI's slots inside Slurm) and for
 * Cray MPICH (the launch's tasks per node). */
const char *sml_slots_variable(sml_launcher l);

/* Writes the plan in l's format.  A plan the format cannot express (a
 * Cray rank order for nodes not filled to their slots) is SMP_ERR_INFEASIBLE
 * with a message saying what to change. */
smp_status sml_write(sml_launcher l, FILE *out, const sml_plan *p, smp_error *err);

/* Reads a file of l's format.  cray needs the launch's nodes and ranks per
 * node (given: names and slots); the others take the nodes from the file
 * (given may be NULL).  Malformed input is SMP_ERR_INPUT naming the line or
 * entry. */
smp_status sml_read(sml_launcher l, FILE *in, const smp_nodes *given, sml_read_result *r,
                    smp_error *err);
void sml_read_result_free(sml_read_result *r);

/* How --env says what the ranks must be told, in the launcher's own words:
 * slurm and cray as shell lines for eval "$(...)", openmpi as mpirun's -x
 * words and mpich as mpiexec's -genv words for $(...).  For cray also
 * MPICH_RANK_REORDER_METHOD=3 and, when output is a file, its absolute
 * MPICH_RANK_REORDER_FILE; for mpich inside a Slurm allocation also the
 * bootstrap through hydra_srun (Hydra's own Slurm bootstrap starts one
 * proxy per node in Slurm's node order, whatever the file says). */
typedef struct {
    const char *output;     /* the file written, "-" for stdout, or NULL */
    bool in_allocation;     /* SLURM_JOB_ID is set */
    const char *hydra_srun; /* the installed hydra-srun */
} sml_env_opts;
smp_status sml_write_env(sml_launcher l, FILE *out, const smp_task_env *env, const sml_env_opts *o,
                         smp_error *err);

/* ---- the formats (one file each; table.c routes to them) ---------------- */
smp_status sml_write_hostfile(FILE *out, const sml_plan *p, smp_error *err);
smp_status sml_read_hostfile(FILE *in, const smp_nodes *given, sml_read_result *r, smp_error *err);
smp_status sml_write_rankfile(FILE *out, const sml_plan *p, smp_error *err);
smp_status sml_read_rankfile(FILE *in, const smp_nodes *given, sml_read_result *r, smp_error *err);
smp_status sml_write_machinefile(FILE *out, const sml_plan *p, smp_error *err);
smp_status sml_read_machinefile(FILE *in, const smp_nodes *given, sml_read_result *r,
                                smp_error *err);
smp_status sml_write_rank_order(FILE *out, const sml_plan *p, smp_error *err);
smp_status sml_read_rank_order(FILE *in, const smp_nodes *given, sml_read_result *r,
                               smp_error *err);

/* shared by the readers (read_util.c) */
/* Index of name among r->nodes, appended (slots 0) when new; -1 on error. */
int sml_node_index(sml_read_result *r, const char *name, smp_error *err);
/* Appends rank r's node (r->ranks grows by one). */
smp_status sml_push_rank(sml_read_result *r, int32_t node, smp_error *err);
/* One line of at most cap-1 characters without its newline; 0 at the end,
 * -1 (SMP_ERR_INPUT in err) when longer.  *lineno counts lines. */
int sml_getline(FILE *in, char *buf, size_t cap, int64_t *lineno, const char *what, smp_error *err);

#endif
