/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stencil Strips (paper 001 SV-C): tile every axis but the longest into
 * strips whose widths follow the stencil's shape, let each strip run the
 * whole length of the longest axis, and hand ranks out strip by strip,
 * reversing direction from one strip to the next so that a node's share
 * never tears apart.
 *
 * Widths: a box of sides l_i holding n ranks has about sum_i (n / l_i) t_i
 * edges leaving it, t_i being the stencil's traffic across axis i; that is
 * least when l_i is proportional to t_i.  Axes no offset crosses get width
 * 1, since cutting across them costs nothing. */
#include <math.h>

#include "construct/order.h"

/* Ideal side lengths for a box of n cells, clamped to the grid. */
static void ideal_sides(const smp_grid *grid, const double *traffic, double n, double *side)
{
    int d = grid->ndims;
    bool fixed[SMP_MAX_DIMS];
    for (int i = 0; i < d; i++) {
        fixed[i] = traffic[i] <= 0;
        side[i] = 1;
    }
    /* clamp sides that exceed the grid, then share the rest among the others */
    for (int round = 0; round < d; round++) {
        double left = n, prod_t = 1;
        int free_axes = 0;
        for (int i = 0; i < d; i++) {
            if (fixed[i])
                left /= side[i];
            else {
                prod_t *= traffic[i];
                free_axes++;
            }
        }
        if (free_axes == 0)
            return;
        double scale = pow(left / prod_t, 1.0 / free_axes);
        bool clamped = false;
        for (int i = 0; i < d; i++) {
            if (fixed[i])
                continue;
            side[i] = traffic[i] * scale;
            if (side[i] > (double)grid->dims[i]) {
                side[i] = (double)grid->dims[i];
                fixed[i] = clamped = true;
            }
        }
        if (!clamped)
            break;
    }
}

smp_status smp_place_strips(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                            int nnodes, int32_t *node_of_rank, smp_error *err)
{
    (void)err;
    int d = grid->ndims, longest = 0;
    for (int i = 1; i < d; i++)
        if (grid->dims[i] > grid->dims[longest])
            longest = i;
    double traffic[SMP_MAX_DIMS], side[SMP_MAX_DIMS];
    smp_axis_traffic(st, traffic);
    ideal_sides(grid, traffic, (double)grid->size / nnodes, side);

    /* strips per axis and the order axes are walked: longest innermost of
     * the strip walk, outermost inside a strip */
    int64_t count[SMP_MAX_DIMS];
    int across[SMP_MAX_DIMS], na = 0;
    for (int i = 0; i < d; i++) {
        int64_t w = (int64_t)llround(side[i]);
        if (w < 1)
            w = 1;
        count[i] = i == longest ? 1 : (grid->dims[i] / w > 0 ? grid->dims[i] / w : 1);
        if (i != longest)
            across[na++] = i;
    }
    int inner[SMP_MAX_DIMS], dir0[SMP_MAX_DIMS];
    inner[0] = longest;
    for (int k = 0; k < na; k++)
        inner[k + 1] = across[k];

    smp_chunker ch = {.cap = cap, .node_of_rank = node_of_rank};
    /* walk the strip grid in boustrophedon order too */
    int64_t sc[SMP_MAX_DIMS] = {0};
    int sdir[SMP_MAX_DIMS];
    for (int k = 0; k < na; k++)
        sdir[k] = 1;
    int64_t strip_no = 0;
    for (;;) {
        smp_box box;
        for (int i = 0; i < d; i++) {
            box.lo[i] = 0;
            box.len[i] = grid->dims[i];
        }
        for (int k = 0; k < na; k++) {
            int i = across[k];
            int64_t a = sc[k] * grid->dims[i] / count[i], b = (sc[k] + 1) * grid->dims[i] / count[i];
            box.lo[i] = a;
            box.len[i] = b - a;
        }
        /* alternate the run along the longest axis; start each strip's
         * cross-section walk where the previous strip ended */
        for (int k = 0; k <= na; k++)
            dir0[k] = 1;
        dir0[0] = (strip_no % 2 == 0) ? 1 : -1;
        for (int k = 0; k < na; k++)
            dir0[k + 1] = sdir[k];
        smp_snake_box(grid, &box, inner, dir0, &ch);
        strip_no++;
        int k = na - 1;
        for (; k >= 0; k--) {
            int64_t np = sc[k] + sdir[k];
            if (np >= 0 && np < count[across[k]]) {
                sc[k] = np;
                break;
            }
            sdir[k] = -sdir[k];
        }
        if (k < 0)
            break;
    }
    return SMP_OK;
}
