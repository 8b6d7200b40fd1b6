/* stencil-map: plan, score and compare rank placements for stencil codes. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_usage(FILE *out)
{
    fputs("usage: stencil-map plan SPEC --nodes HOSTLIST --slots COUNTS [--ranks P]\n"
          "                       [--algorithm A] [--hostfile FILE] [--json] [--map]\n"
          "       stencil-map score SPEC --hostfile FILE [--json] [--map]\n"
          "       stencil-map compare SPEC --nodes HOSTLIST --slots COUNTS [--ranks P] [--json] [--map]\n"
          "\n"
          "SPEC     a JSON spec file, a spec name from the specs directory, or\n"
          "         ALGORITHM:<d>d:STENCIL such as auto:2d:5pt\n"
          "HOSTLIST Slurm node list, e.g. 'n[01-04]'\n"
          "COUNTS   slots per node as in SLURM_JOB_CPUS_PER_NODE, e.g. '48(x3),32'\n"
          "A        auto, hyperplane, strips, kdtree, nodecart, bisect, blocked\n"
          "--map    draw the placement, one letter per node (small grids)\n"
          "\n"
          "Exit status: 0 ok, 2 bad input, 3 infeasible, 4 system error.\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        cli_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "plan"))
        return cmd_plan(argc - 1, argv + 1);
    if (!strcmp(argv[1], "score"))
        return cmd_score(argc - 1, argv + 1);
    if (!strcmp(argv[1], "compare"))
        return cmd_compare(argc - 1, argv + 1);
    fprintf(stderr, "stencil-map: unknown command '%s'\n", argv[1]);
    cli_usage(stderr);
    return 2;
}
