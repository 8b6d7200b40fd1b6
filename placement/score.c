/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The paper's metrics: J_sum counts directed stencil edges (one per rank and
 * offset whose target lies in the grid, wrapping on periodic dimensions)
 * whose ends are on different nodes; J_max is the most such edges leaving
 * one node.  w_sum/w_max weigh each edge by its offset's weight. */
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "edges.h"

smp_status smp_score_compute(const smp_grid *grid, const smp_stencil *st,
                             const int32_t *node_of_rank, int nnodes, smp_score *score,
                             smp_error *err)
{
    memset(score, 0, sizeof(*score));
    smp_edge_walk w;
    int64_t *out_cnt = NULL;
    double *out_w = NULL;
    smp_status status = smp_edge_walk_init(&w, grid, st, false, err);
    if (!status && (!(out_cnt = calloc((size_t)nnodes, sizeof(int64_t))) ||
                    !(out_w = calloc((size_t)nnodes, sizeof(double)))))
        status = smp_error_set(err, SMP_ERR_SYSTEM, "score: out of memory");
    int64_t c[SMP_MAX_DIMS];
    smp_edge_walk_first(&w, c);
    for (int64_t r = 0; r < grid->size && !status; r++, smp_edge_walk_next(&w, c)) {
        int32_t me = node_of_rank[r];
        if (me < 0 || me >= nnodes) {
            status = smp_error_set(err, SMP_ERR_INPUT, "placement: rank %lld is on node %d of %d",
                                   (long long)r, me, nnodes);
            break;
        }
        for (int o = 0; o < w.count; o++) {
            int64_t t = smp_edge_target(&w, c, r, o);
            if (t < 0 || node_of_rank[t] == me)
                continue;
            out_cnt[me]++;
            out_w[me] += st->weights ? st->weights[o] : 1.0;
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
    smp_edge_walk_free(&w);
    free(out_cnt);
    free(out_w);
    return status;
}
