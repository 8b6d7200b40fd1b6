/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The paper's metrics: J_sum counts directed stencil edges (one per rank and
 * offset whose target lies in the grid, wrapping on periodic dimensions)
 * whose ends are on different nodes; J_max is the most such edges leaving
 * one node.  w_sum/w_max weigh each edge by its offset's weight. */
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"

smp_status smp_score_compute(const smp_grid *grid, const smp_stencil *st,
                             const int32_t *node_of_rank, int nnodes, smp_score *score,
                             smp_error *err)
{
    memset(score, 0, sizeof(*score));
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) { /* the same ranks, row-major */
        smp_canon c;
        smp_status s = smp_canon_make(&c, grid, st, err);
        if (!s)
            s = smp_score_compute(&c.grid, &c.st, node_of_rank, nnodes, score, err);
        smp_canon_free(&c);
        return s;
    }
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "stencil: has %d dimensions but the grid has %d", st->ndims, grid->ndims);
    int d = grid->ndims, k = st->count;
    int64_t stride[SMP_MAX_DIMS];
    stride[d - 1] = 1;
    for (int i = d - 2; i >= 0; i--)
        stride[i] = stride[i + 1] * grid->dims[i + 1];
    int64_t *delta = malloc(sizeof(int64_t) * (size_t)k);
    int64_t *out_cnt = calloc((size_t)nnodes, sizeof(int64_t));
    double *out_w = calloc((size_t)nnodes, sizeof(double));
    if (!delta || !out_cnt || !out_w) {
        free(delta);
        free(out_cnt);
        free(out_w);
        return smp_error_set(err, SMP_ERR_SYSTEM, "score: out of memory");
    }
    for (int o = 0; o < k; o++) {
        delta[o] = 0;
        for (int i = 0; i < d; i++)
            delta[o] += (int64_t)st->offsets[o * d + i] * stride[i];
    }
    int64_t c[SMP_MAX_DIMS] = {0};
    smp_status status = SMP_OK;
    for (int64_t r = 0; r < grid->size; r++) {
        int32_t me = node_of_rank[r];
        if (me < 0 || me >= nnodes) {
            status = smp_error_set(err, SMP_ERR_INPUT, "placement: rank %lld is on node %d of %d",
                                   (long long)r, me, nnodes);
            break;
        }
        for (int o = 0; o < k; o++) {
            const int32_t *off = st->offsets + o * d;
            int64_t t = r + delta[o];
            bool inside = true;
            for (int i = 0; i < d && inside; i++) {
                int64_t x = c[i] + off[i];
                if (x >= 0 && x < grid->dims[i])
                    continue;
                if (!grid->periods[i]) {
                    inside = false;
                    break;
                }
                /* wrap: move t by whole periods of this dimension */
                int64_t wrapped = ((x % grid->dims[i]) + grid->dims[i]) % grid->dims[i];
                t += (wrapped - x) * stride[i];
            }
            if (!inside || node_of_rank[t] == me)
                continue;
            out_cnt[me]++;
            out_w[me] += st->weights ? st->weights[o] : 1.0;
        }
        for (int i = d - 1; i >= 0; i--) { /* advance the coordinate odometer */
            if (++c[i] < grid->dims[i])
                break;
            c[i] = 0;
        }
    }
    for (int n = 0; n < nnodes && status == SMP_OK; n++) {
        score->j_sum += out_cnt[n];
        score->w_sum += out_w[n];
        if (out_cnt[n] > score->j_max) {
            score->j_max = out_cnt[n];
            score->j_max_node = n;
        }
        if (out_w[n] > score->w_max)
            score->w_max = out_w[n];
    }
    free(delta);
    free(out_cnt);
    free(out_w);
    return status;
}
