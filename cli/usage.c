/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every subcommand's --help text, in one place: stencil-map(1) documents
 * the same options per subcommand, and tests/cli/test_help_man.sh checks
 * that the two agree. */
#include <string.h>

#include "cli.h"

static const char spec_line[] =
    "SPEC     a JSON spec file, a spec name from the specs directory, or\n"
    "         ALGORITHM:<d>d:STENCIL such as auto:2d:5pt\n";
/* plan's and compare's allocation: the same three options */
static const char allocation_lines[] =
    "--nodes HOSTLIST  node names in Slurm's syntax, e.g. 'n[01-04],gpu7'\n"
    "--slots COUNTS    ranks per node as in SLURM_JOB_CPUS_PER_NODE, e.g. '48(x3),32'\n"
    "--ranks P         the number of ranks, for specs with automatic dims\n"
    "                  (default: every slot)\n";

/* the network levels above the nodes (plan, compare, score, draw) */
static const char topology_lines[] =
    "--topology FILE   leaf switches or blocks above the nodes, in topology.conf\n"
    "                  or topology.yaml syntax (FILE:NAME: the yaml's topology\n"
    "                  NAME, else its cluster_default), or saved scontrol show\n"
    "                  topology output (told by content); 'none': no levels\n"
    "                  (default: inside an allocation, Slurm's, from scontrol\n"
    "                  show topology); what Slurm accepts but does not nest is\n"
    "                  repaired with a warning (several parents, rails, nodes in\n"
    "                  no switch)\n"
    "--topology-strict refuse those files instead (exit 2)\n";
static const char levels_mode_lines[] =
    "--levels-mode M   how auto plans on the levels: best (default: every\n"
    "                  candidate, the least busiest link kept), groups-first,\n"
    "                  nodes-first\n";
static const char links_lines[] =
    "--routing R       static (default: d-mod-k, by the destination's position),\n"
    "                  adaptive (traffic spread over a group's uplinks) or direct\n"
    "                  (groups joined pairwise, minimal routing: a dragonfly): how\n"
    "                  the busiest link's load L_max is estimated\n"
    "--uplinks N[,N...] uplinks of every group of level 0, 1, ... (leaf switches\n"
    "                  first), over the topology's count of parent switches;\n"
    "                  direct: the links between every two groups of the level\n"
    "--uplink-speed S[,S...] how fast an uplink of level 0, 1, ... is against a\n"
    "                  node's link (default 1; 0.25: a 4:1 taper), 0 < S <= 1000\n";

static const char exit_line[] = "Exit status: 0 ok, 2 bad input, 3 infeasible, 4 system error.\n";

static const char job_line[] =
    "Inside an allocation (salloc, sbatch), when neither --nodes nor --slots is\n"
    "given they default to SLURM_JOB_NODELIST and SLURM_JOB_CPUS_PER_NODE, and the\n"
    "ranks of automatic dims to SLURM_NTASKS; a line on stderr says so, and where\n"
    "the network levels came from.\n\n";

static void plan_usage(FILE *out)
{
    fputs("usage: stencil-map plan SPEC --nodes HOSTLIST --slots COUNTS [--ranks P]\n"
          "                       [--algorithm A] [--hostfile FILE] [--sockets COUNTS]\n"
          "                       [--socketfile FILE] [--profile DIR] [--topology FILE]\n"
          "                       [--topology-strict] [--levels-mode M] [--routing R]\n"
          "                       [--uplinks N[,N...]] [--uplink-speed S[,S...]]\n"
          "                       [--launcher L] [--output FILE]\n"
          "                       [--env] [--json] [--map]\n"
          "\n"
          "Computes which node each rank runs on and prints a summary line; with\n"
          "network levels, one line per level with the edges between its groups;\n"
          "then the busiest link's load (L_max) and its lower bound.\n"
          "\n",
          out);
    fputs(spec_line, out);
    fputs(allocation_lines, out);
    fprintf(out, "--algorithm A     %s\n", smp_algorithm_names());
    fputs("                  (default: the spec's)\n"
          "--hostfile FILE   write line r = node of rank r ('-': standard output)\n"
          "--sockets COUNTS  sockets per node, as --slots (default: the spec's \"sockets\"):\n"
          "                  split each node's ranks over its sockets and report the\n"
          "                  inter-socket edges beside the naive split's\n"
          "--socketfile FILE write line r = socket of rank r in its node ('-': stdout)\n"
          "--profile DIR     warn when the spec explains this profile badly (see learn)\n",
          out);
    fputs(topology_lines, out);
    fputs(levels_mode_lines, out);
    fputs(links_lines, out);
    fputs("--json            one JSON object instead of the summary line\n"
          "--map             draw blocked and the placement, one letter per node\n",
          out);
    fprintf(out, "--launcher L      the file --output writes: %s\n", sml_names());
    fputs("                  (default slurm): slurm, Slurm's hostfile (srun with\n"
          "                  SLURM_HOSTFILE); openmpi, a rankfile (mpirun --rankfile),\n"
          "                  each node's ranks on distinct cores (socket:core with\n"
          "                  sockets); mpich, a Hydra machine file (mpiexec -f); cray, an\n"
          "                  MPICH_RANK_ORDER file (MPICH_RANK_REORDER_METHOD=3), which\n"
          "                  needs every node filled to its slots\n"
          "--output FILE     write the plan in the launcher's form ('-': standard output);\n"
          "                  --hostfile FILE is --launcher slurm --output FILE\n"
          "--env             print what the launcher must pass to the ranks instead of the\n"
          "                  summary, which goes to stderr: export lines for eval (slurm,\n"
          "                  cray: with MPICH_RANK_REORDER_METHOD and _FILE), -x words for\n"
          "                  mpirun, -genv words for mpiexec (inside Slurm with the\n"
          "                  bootstrap that keeps the file's order)\n"
          "--help            this text\n"
          "\n"
          "Inside an allocation (salloc, sbatch), when neither --nodes nor --slots is\n"
          "given they default to SLURM_JOB_NODELIST and, as the launcher counts slots,\n"
          "SLURM_JOB_CPUS_PER_NODE (slurm, mpich) or SLURM_TASKS_PER_NODE (openmpi,\n"
          "cray), and the ranks of automatic dims to SLURM_NTASKS; a line on stderr\n"
          "says so, and where the network levels came from.\n\n",
          out);
    fputs(exit_line, out);
}

static void score_usage(FILE *out)
{
    fputs("usage: stencil-map score SPEC --hostfile FILE [--ranks P] [--topology FILE]\n"
          "                        [--topology-strict] [--routing R] [--uplinks N[,N...]]\n"
          "                        [--uplink-speed S[,S...]] [--json] [--map]\n"
          "       stencil-map score SPEC --profile DIR --nodes HOSTLIST --slots COUNTS\n"
          "                        [--hostfile FILE] [--json]\n"
          "\n"
          "Prints J_sum and J_max of an existing placement, and the busiest link's\n"
          "load L_max (the hostfile's nodes in name order).  With --profile: the bytes\n"
          "of the measured traffic that blocked, the spec's plan and the hostfile's\n"
          "placement would send across nodes, and the share of the bytes the spec's\n"
          "stencil covers (a warning below 90 %).\n"
          "\n",
          out);
    fputs(spec_line, out);
    fputs("--hostfile FILE   the placement: line r = node of rank r ('-': standard input)\n"
          "--profile DIR     a profile of libstencilmap-profile.so (see stencil-map learn)\n"
          "--nodes HOSTLIST  with --profile: node names in Slurm's syntax\n"
          "--slots COUNTS    with --profile: ranks per node, e.g. '16(x8)'\n"
          "--ranks P         the number of ranks, for specs with automatic dims\n"
          "                  (default: the hostfile's line count)\n",
          out);
    fputs(topology_lines, out);
    fputs(links_lines, out);
    fputs("--json            one JSON object\n"
          "--map             draw the placement, one letter per node\n"
          "--help            this text\n"
          "\n",
          out);
    fputs(exit_line, out);
}

static void compare_usage(FILE *out)
{
    fputs("usage: stencil-map compare SPEC --nodes HOSTLIST --slots COUNTS [--ranks P]\n"
          "                          [--sockets COUNTS] [--topology FILE] [--topology-strict]\n"
          "                          [--levels-mode M] [--routing R] [--uplinks N[,N...]]\n"
          "                          [--uplink-speed S[,S...]] [--hostfiles DIR] [--json]\n"
          "                          [--map]\n"
          "\n"
          "Puts every algorithm's J_sum and J_max side by side; when built with\n"
          "Scotch, Scotch's mapping is the last row, for comparison.  With network\n"
          "levels, two columns per level: the edges between its groups, and the most\n"
          "leaving one group; last, the busiest link's load L_max.\n"
          "\n",
          out);
    fputs(spec_line, out);
    fputs(allocation_lines, out);
    fputs("--sockets COUNTS  sockets per node, as --slots: add each algorithm's\n"
          "                  inter-socket edges and the naive split's\n",
          out);
    fputs(topology_lines, out);
    fputs(levels_mode_lines, out);
    fputs(links_lines, out);
    fputs("--hostfiles DIR   write each row's placement as DIR/ALGORITHM.hosts\n"
          "                  (line r = node of rank r; DIR is made if missing)\n"
          "--json            one JSON object\n"
          "--map             draw each algorithm's placement, one letter per node\n"
          "--help            this text\n"
          "\n",
          out);
    fputs(job_line, out);
    fputs(exit_line, out);
}

static void draw_usage(FILE *out)
{
    fputs("usage: stencil-map draw SPEC --nodes HOSTLIST --slots COUNTS [--ranks P]\n"
          "                       [--algorithm A] --svg OUT [--title TEXT]\n"
          "                       [--topology FILE] [--topology-strict]\n"
          "                       [--colour-by node|group]\n"
          "       stencil-map draw SPEC --hostfile FILE [--nodes HOSTLIST --slots COUNTS]\n"
          "                       [--ranks P] --svg OUT [--title TEXT]\n"
          "                       [--topology FILE] [--topology-strict]\n"
          "                       [--colour-by node|group]\n"
          "\n"
          "Draws a placement as an SVG picture beside Slurm's blocked layout on the\n"
          "same nodes: one cell per rank coloured by its node, heavy lines between\n"
          "neighbours on different nodes, 3-D grids as slices side by side.  Grids of\n"
          "more than 4096 ranks are drawn in blocks of ranks, each in its majority node's\n"
          "colour.  Without --hostfile the placement is planned as by plan.\n"
          "\n",
          out);
    fputs(spec_line, out);
    fputs("--nodes HOSTLIST  node names in Slurm's syntax, in the allocation's order\n"
          "--slots COUNTS    ranks per node as in SLURM_JOB_CPUS_PER_NODE\n"
          "                  (with --hostfile, default: the hostfile's nodes in name\n"
          "                  order, each with as many slots as it holds ranks)\n"
          "--ranks P         the number of ranks, for specs with automatic dims\n",
          out);
    fprintf(out, "--algorithm A     %s\n", smp_algorithm_names());
    fputs("--hostfile FILE   draw this placement: line r = node of rank r ('-': stdin)\n"
          "--svg OUT         where to write the SVG ('-': standard output)\n"
          "--title TEXT      the picture's title\n",
          out);
    fputs(topology_lines, out);
    fputs("--colour-by W     node (default) or group: one colour per leaf switch or\n"
          "                  block (level 0), the figures between groups\n"
          "--help            this text\n"
          "\n",
          out);
    fputs(job_line, out);
    fputs(exit_line, out);
}

static void audit_usage(FILE *out)
{
    fputs("usage: stencil-map audit JOBID[.STEP] [--record-dir DIR] [--user U] [--json]\n"
          "                        [--svg FILE] [--launched FILE] [--no-slurm]\n"
          "       stencil-map audit --record FILE [--json] [--svg FILE] [--launched FILE]\n"
          "                        [--no-slurm]\n"
          "       stencil-map audit --since DATE | --user U [--record-dir DIR] [--json]\n"
          "                        [--no-slurm]\n"
          "       stencil-map audit --summary [--record-dir DIR] [--since DATE] [--user U]\n"
          "                        [--json]\n"
          "\n"
          "Tells how steps were placed from the audit records of the stencil_map.so plugin\n"
          "(DIR/<user>/<job>.<step>.json): spec, algorithm, nodes and slots, planned and\n"
          "blocked J_sum/J_max (re-scored from the recorded placement), the in-job result\n"
          "of stencil-map-verify (<record>.verify.json) and whether the step ran where it\n"
          "was planned: per rank from the in-job result or --launched, per node from\n"
          "Slurm (sacct, else scontrol show step while the step runs, else scontrol show\n"
          "job while slurmctld keeps the job).  What could not be checked is listed.\n"
          "\n"
          "JOBID[.STEP]      the step, or every step of the job\n"
          "--record-dir DIR  the record directory (default: $STENCILMAP_RECORD_DIR, else\n"
          "                  record_dir= on the stencil_map.so line of Slurm's\n"
          "                  plugstack.conf, found through $SLURM_CONF)\n"
          "--record FILE     audit this one record file (FILE alone, a path with a '/'\n"
          "                  or ending in .json, is the same)\n"
          "--since DATE      records written at or after DATE, UTC: YYYY-MM-DD[THH:MM[:SS]]\n"
          "--user U          only the records of user U\n"
          "--summary         totals: steps placed, by algorithm, inter-node edges saved\n"
          "                  against blocked, in-job results, fallbacks, steps that\n"
          "                  failed or were abandoned before launch\n"
          "--json            one JSON object for scripts\n"
          "--svg FILE        draw the audited step's placement beside blocked\n"
          "--launched FILE   where each rank ran: line r = node of rank r, or 'r: node'\n"
          "                  lines as srun --label hostname prints them\n"
          "--no-slurm        do not ask Slurm\n"
          "--help            this text\n"
          "\n"
          "A step that never launched is 'failed' when the plugin stopped it (its plan\n"
          "or check failed), 'not launched' when srun exited on its own before the step\n"
          "existed; records of steps without an id are <job>.nostep-<pid>.json.\n"
          "\n"
          "Exit status: 0 every record read is consistent (a step that fell back to\n"
          "blocked, or that srun abandoned, as its record says is consistent); 1 a\n"
          "record is inconsistent: its figures, the in-job result or the launch\n"
          "disagree; 2 bad usage; 3 no record: the step was not placed, or its record\n"
          "is gone; 4 a record or in-job result is unreadable; 5 a step failed before\n"
          "launch.  Over several steps the worst counts (4, 1, 5, 3); --summary fails\n"
          "only on unreadable or inconsistent records.\n",
          out);
}

void cli_usage(FILE *out)
{
    fputs("usage: stencil-map plan SPEC --nodes HOSTLIST --slots COUNTS [--ranks P]\n"
          "                       [--algorithm A] [--hostfile FILE] [--json] [--map]\n"
          "                       [--launcher L --output FILE] [--env]\n"
          "       stencil-map score SPEC --hostfile FILE [--ranks P] [--json] [--map]\n"
          "       stencil-map score SPEC --profile DIR --nodes HOSTLIST --slots COUNTS\n"
          "       stencil-map learn DIR [--output SPEC]\n"
          "       stencil-map compare SPEC --nodes HOSTLIST --slots COUNTS [--ranks P]\n"
          "                          [--hostfiles DIR] [--json] [--map]\n"
          "       stencil-map draw SPEC (--nodes HOSTLIST --slots COUNTS | --hostfile FILE)\n"
          "                       --svg OUT [...]\n"
          "       stencil-map audit (JOBID[.STEP] | --record FILE | --since DATE | --user U |\n"
          "                          --summary) [...]\n"
          "       stencil-map learned list|show APP|forget APP|--all [--learned-dir DIR]\n"
          "       stencil-map dims N --ndims D [--domain G] [--halo H] [--cost C] [...]\n"
          "       stencil-map --version\n"
          "\n"
          "stencil-map COMMAND --help describes each command.  Every --json answer\n"
          "starts with \"stencilmap_version\" and \"format\" (see stencil-map(1)).\n"
          "\n",
          out);
    fputs(spec_line, out);
    fputs("HOSTLIST Slurm node list, e.g. 'n[01-04]'\n"
          "COUNTS   slots per node as in SLURM_JOB_CPUS_PER_NODE, e.g. '48(x3),32'\n",
          out);
    fprintf(out, "A        %s\n\n", smp_algorithm_names());
    fputs(exit_line, out);
}

static void learn_usage(FILE *out)
{
    fputs("usage: stencil-map learn DIR [--output SPEC] [--max-dims D]\n"
          "\n"
          "Writes a spec from a profile of the application (DIR/rank.<r>, written at\n"
          "MPI_Finalize by libstencilmap-profile.so when the tasks ran with it in\n"
          "LD_PRELOAD and STENCIL_MAP_PROFILE_DIR=DIR): the grid of its MPI_Cart_create,\n"
          "else the dims, row-major rank order and periods under which the traffic is\n"
          "most translation-invariant; the offsets and their weights from the bytes.\n"
          "Prints the share of the measured bytes the spec explains and warns below 90 %.\n"
          "\n"
          "--output SPEC     write the spec to this file ('-': standard output, the\n"
          "                  default; the report then goes to standard error)\n"
          "--max-dims D      the most dimensions an inferred grid has (default 3)\n"
          "--help            this text\n"
          "\n",
          out);
    fputs(exit_line, out);
}

static void learned_usage(FILE *out)
{
    fputs("usage: stencil-map learned list [--learned-dir DIR]\n"
          "       stencil-map learned show APP [--learned-dir DIR]\n"
          "       stencil-map learned forget APP|--all [--learned-dir DIR]\n"
          "\n"
          "What srun --stencil-map=learn (or the site's default=learn) stored: per\n"
          "application, the spec learned from its first, profiled run, with the run it\n"
          "came from, its grid and where that came from (MPI_Dims_create, MPI_Cart_create\n"
          "or inferred) and the share of the bytes it explains, or the verdict that it is\n"
          "not a stencil code and until when.  Inside an allocation each line ends with\n"
          "the placement srun would make on it (SLURM_NTASKS ranks, else the learned\n"
          "count).  The store is $XDG_STATE_HOME/stencilmap/learned, else\n"
          "~/.local/state/stencilmap/learned, or DIR/<user> of the plugin's learned_dir=.\n"
          "\n"
          "list              one line per application, naming its executable\n"
          "show APP          everything stored for APP, the spec in full\n"
          "forget APP        remove what is stored for APP: its next run is profiled\n"
          "                  again\n"
          "APP               the program (a path, or a name looked up in PATH: its\n"
          "                  current build, and what was learned at that path before), a\n"
          "                  stored executable's base name, or a key\n"
          "--all             with forget: everything, and leftover profiles\n"
          "--learned-dir DIR the site's root of the stores (default: learned_dir= on the\n"
          "                  stencil_map.so line of Slurm's plugstack.conf, found through\n"
          "                  $SLURM_CONF), the store being DIR/<user>\n"
          "--help            this text\n"
          "\n"
          "Exit status: 0 ok, 2 bad usage, 3 nothing stored for APP, 4 the store cannot\n"
          "be read or fails its checks (not the user's own, open to others, a symbolic\n"
          "link).\n",
          out);
}

static void dims_usage(FILE *out)
{
    fputs("usage: stencil-map dims N --ndims D [--domain G] [--halo H] [--cost C]\n"
          "                       [--periods F] [--nodes M --per-node P [--sockets S]]\n"
          "                       [--json]\n"
          "\n"
          "Chooses the dims of a grid of N processes as seed 003's\n"
          "MPIX_Dims_weighted_create does (the smallest sum of dims[i] * w[i], with\n"
          "w[i] = 2 * G / g[i] * h[i] * c[i]), level by level with the nodes (nodes,\n"
          "then sockets, then the cores of one), and prints it beside MPI_Dims_create's:\n"
          "the halo each leaves per process, per node, and their ratio.  What\n"
          "grid.dims \"weighted\" in a spec chooses before placing.\n"
          "\n"
          "N                 the number of processes\n"
          "--ndims D         the grid's dimensions, 1 to 8\n"
          "--domain G        the data grid's extents g, D numbers separated by commas\n"
          "                  (default: all equal)\n"
          "--halo H          halo widths h, one per dimension (default 1)\n"
          "--cost C          cost factors c, one per dimension (default 1), e.g. 4 for a\n"
          "                  strided direction\n"
          "--periods F       1 (periodic) or 0 (open) per dimension (default all 0):\n"
          "                  of choices with the same sum, the one with the lower real\n"
          "                  cut (periodic dimensions left whole) is taken\n"
          "--nodes M         M nodes of P processes each (M * P = N): the nodes' cut\n"
          "--per-node P      is chosen first\n"
          "--sockets S       S sockets per node: then theirs, inside a node\n"
          "--json            one JSON object\n"
          "--help            this text\n"
          "\n",
          out);
    fputs(exit_line, out);
}

static const struct {
    const char *cmd;
    void (*usage)(FILE *);
} table[] = {
    {"plan", plan_usage},   {"score", score_usage}, {"compare", compare_usage},
    {"draw", draw_usage},   {"audit", audit_usage}, {"learn", learn_usage},
    {"learned", learned_usage}, {"dims", dims_usage},
};

void cli_usage_of(const char *cmd, FILE *out)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (!strcmp(table[i].cmd, cmd)) {
            table[i].usage(out);
            return;
        }
    cli_usage(out);
}
