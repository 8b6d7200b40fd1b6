/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A placement drawn in characters: one character per rank, one letter per
 * node, so that a person sees at a glance which blocks share a node.
 * 1-D and 2-D grids print as one picture; higher dimensions print one 2-D
 * slice per index of the leading dimensions. */
#include <stdio.h>

#include "cli.h"

#define MAX_WIDTH 160

static char node_char(int32_t node)
{
    static const char glyphs[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    return glyphs[node % (int32_t)(sizeof(glyphs) - 1)];
}

void cli_print_map(FILE *out, const smp_grid *grid, const smp_placement *pl, const smp_nodes *nodes)
{
    int d = grid->ndims;
    int64_t cols = grid->dims[d - 1], rows = d >= 2 ? grid->dims[d - 2] : 1;
    int64_t slices = grid->size / (rows * cols);
    if (cols > MAX_WIDTH || grid->size > 20000) {
        fprintf(out, "(grid too large to draw: %lld ranks)\n", (long long)grid->size);
        return;
    }
    /* drawn by coordinates (rows: axis d-2, columns: axis d-1), whatever
     * order the ranks number the cells in */
    int64_t c[SMP_MAX_DIMS] = {0};
    for (int64_t s = 0; s < slices; s++) {
        for (int64_t rest = s, i = d - 3; i >= 0; i--) {
            c[i] = rest % grid->dims[i];
            rest /= grid->dims[i];
        }
        if (slices > 1) {
            fprintf(out, "slice");
            for (int i = 0; i < d - 2; i++)
                fprintf(out, " %lld", (long long)c[i]);
            fputs(":\n", out);
        }
        for (int64_t r = 0; r < rows; r++) {
            fputs("  ", out);
            if (d >= 2)
                c[d - 2] = r;
            for (int64_t x = 0; x < cols; x++) {
                c[d - 1] = x;
                fputc(node_char(pl->node_of_rank[smp_grid_rank(grid, c)]), out);
            }
            fputc('\n', out);
        }
    }
    fputs("  legend:", out);
    for (int i = 0; i < nodes->count && i < 62; i++)
        fprintf(out, " %c=%s", node_char(i), nodes->names[i]);
    if (nodes->count > 62)
        fputs(" (letters repeat beyond 62 nodes)", out);
    fputc('\n', out);
}
