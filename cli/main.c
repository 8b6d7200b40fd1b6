/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map: plan, score, compare and draw rank placements for stencil
 * codes, learn specs from profiles, audit how steps were placed, and choose
 * a grid's dims for the data and the nodes (dims). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        cli_version(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "plan"))
        return cmd_plan(argc - 1, argv + 1);
    if (!strcmp(argv[1], "score"))
        return cmd_score(argc - 1, argv + 1);
    if (!strcmp(argv[1], "compare"))
        return cmd_compare(argc - 1, argv + 1);
    if (!strcmp(argv[1], "draw"))
        return cmd_draw(argc - 1, argv + 1);
    if (!strcmp(argv[1], "learn"))
        return cmd_learn(argc - 1, argv + 1);
    if (!strcmp(argv[1], "audit"))
        return cmd_audit(argc - 1, argv + 1);
    if (!strcmp(argv[1], "learned"))
        return cmd_learned(argc - 1, argv + 1);
    if (!strcmp(argv[1], "dims"))
        return cmd_dims(argc - 1, argv + 1);
    fprintf(stderr, "stencil-map: unknown command '%s'\n", argv[1]);
    cli_usage(stderr);
    return 2;
}
