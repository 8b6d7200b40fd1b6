/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An SVG picture of a placement beside the blocked layout (svg.c). */
#ifndef STENCILMAP_CLI_SVG_H
#define STENCILMAP_CLI_SVG_H

#include <stdio.h>

#include <stencilmap/placement.h>

/* Grids of more ranks than this are drawn in blocks of ranks. */
#define SVG_MAX_CELLS 4096

typedef struct {
    const char *title;      /* first line of the picture */
    const smp_grid *grid;
    const smp_stencil *stencil;
    const smp_nodes *nodes; /* node_of_rank values index these */
    const int32_t *plan;    /* node of each rank */
    const char *plan_label; /* e.g. "hyperplane" */
    const int32_t *blocked; /* the blocked layout, or NULL for one panel */
} svg_input;

/* Writes the SVG; returns 0, or -1 on a write error or out of memory. */
int svg_write(FILE *out, const svg_input *in);
/* Writes to path ("-": standard output); returns 0 or an exit status
 * (SMP_ERR_SYSTEM) with the message printed. */
int svg_write_file(const char *path, const svg_input *in);

#endif
