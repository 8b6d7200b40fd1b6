/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gs_find (libstencilmap/reorder/graph_stencil.c) on graphs built here:
 * the stencils it must recognise with their grid, periods and offset
 * count, and the graphs it must refuse (a rank order that is not a grid's,
 * a missing edge, a loop, a neighbour out of range, a boundary edge a
 * non-periodic grid would not have).  No MPI.  Prints "ok ..." or
 * "FAIL ..." per case, exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_stencil.h"

#define MAXN 256
#define MAXE (MAXN * 32)
static int failed;
static int start[MAXN + 1], nbrs[MAXE];

/* the graph of offsets off[k][3] on dims/per (row-major), each rank's
 * shifts kept when inside or wrapped; perm renumbers ranks (NULL: none) */
static void build(int nd, const int *dims, const int *per, int k, const int (*off)[3],
                  const int *perm)
{
    int n = 1, e = 0, c[3];
    for (int i = 0; i < nd; i++)
        n *= dims[i];
    int *tmp_start = calloc((size_t)n + 1, sizeof(int)), *tmp = malloc(sizeof(int) * MAXE);
    for (int r = 0; r < n; r++) {
        for (int i = nd - 1, q = r; i >= 0; q /= dims[i--])
            c[i] = q % dims[i];
        for (int j = 0; j < k; j++) {
            int q = 0, in = 1;
            for (int i = 0; i < nd; i++) {
                int v = c[i] + off[j][i];
                if (per[i])
                    v = ((v % dims[i]) + dims[i]) % dims[i];
                in &= v >= 0 && v < dims[i];
                q = q * dims[i] + v;
            }
            if (in)
                tmp[e++] = perm ? perm[q] : q;
        }
        tmp_start[r + 1] = e;
    }
    /* renumbered: rank perm[r] has r's list */
    start[0] = 0;
    for (int r = 0, at = 0; r < n; r++) {
        int o = r;
        if (perm)
            for (o = 0; perm[o] != r; o++)
                ;
        memcpy(nbrs + at, tmp + tmp_start[o], sizeof(int) * (size_t)(tmp_start[o + 1] - tmp_start[o]));
        at += tmp_start[o + 1] - tmp_start[o];
        start[r + 1] = at;
    }
    free(tmp_start);
    free(tmp);
}

static void expect(const char *what, int n, int want, const char *grid)
{
    gs_found f;
    char got[128] = "";
    int r = gs_find(n, start, nbrs, &f);
    if (r == 1) {
        size_t at = 0;
        for (int i = 0; i < f.ndims; i++)
            at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%d%s", i ? "x" : "", f.dims[i],
                                   f.periods[i] ? "p" : "");
        snprintf(got + at, sizeof(got) - at, " k=%d", f.k);
    }
    int ok = r == want && (!grid || !strcmp(got, grid));
    printf("%s %s: %s%s%s\n", ok ? "ok" : "FAIL", what, r == 1 ? "found " : "not found", got,
           ok ? "" : grid ? " (wanted one)" : "");
    if (!ok && grid)
        printf("  wanted %s\n", grid);
    failed |= !ok;
}

int main(void)
{
    static const int five[4][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
    static const int seven[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    static const int nine[8][3] = {{-1, -1, 0}, {-1, 0, 0}, {-1, 1, 0}, {0, -1, 0},
                                   {0, 1, 0},   {1, -1, 0}, {1, 0, 0},  {1, 1, 0}};
    static const int ring[2][3] = {{-1, 0, 0}, {1, 0, 0}};
    int d44[] = {4, 4}, p11[] = {1, 1}, p00[] = {0, 0, 0}, d643[] = {6, 4, 3}, d86[] = {8, 6},
        p10[] = {1, 0}, d13[] = {13}, p1[] = {1}, d35[] = {3, 5};
    build(2, d44, p11, 4, five, NULL);
    expect("2-D 5-point, periodic 4x4", 16, 1, "4px4p k=4");
    build(3, d643, p00, 6, seven, NULL);
    expect("3-D 7-point, non-periodic 6x4x3", 72, 1, "6x4x3 k=6");
    build(2, d86, p10, 8, nine, NULL);
    expect("2-D 9-point, periodic along the first axis 8x6", 48, 1, "8px6 k=8");
    build(1, d13, p1, 2, ring, NULL);
    expect("a ring of 13 (prime)", 13, 1, "13p k=2");
    build(2, d35, p00, 4, five, NULL);
    expect("2-D 5-point, non-periodic 3x5", 15, 1, "3x5 k=4");
    int perm[16];
    for (int r = 0; r < 16; r++)
        perm[r] = (r * 5 + 3) % 16; /* a rank order no grid has */
    build(2, d44, p00, 4, five, perm);
    expect("a 4x4 grid in a scrambled rank order", 16, 0, NULL);
    build(2, d44, p11, 4, five, NULL);
    nbrs[start[5] + 1] = nbrs[start[5]]; /* rank 5 lists one neighbour twice, another not */
    expect("one edge missing", 16, 0, NULL);
    build(2, d44, p11, 4, five, NULL);
    nbrs[start[3]] = 3;
    expect("a loop", 16, 0, NULL);
    build(2, d44, p11, 4, five, NULL);
    nbrs[start[3]] = 16;
    expect("a neighbour out of range", 16, 0, NULL);
    build(2, d35, p00, 4, five, NULL);
    nbrs[start[0]] = 4; /* rank 0 to (1,-1)->(0,4): a wrap only rank 0 has */
    expect("one wrapped edge on a non-periodic grid", 15, 0, NULL);
    build(2, d44, p11, 4, five, NULL);
    expect("fewer than 2 ranks", 1, 0, NULL);
    return failed;
}
