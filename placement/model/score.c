/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The paper's metrics: J_sum counts directed stencil edges (one per rank and
 * offset whose target lies in the grid, wrapping on periodic dimensions)
 * whose ends are on different nodes; J_max is the most such edges leaving
 * one node.  w_sum/w_max weigh each edge by its offset's weight. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/edges.h"
#include "model/quotient.h"

/* The cut edges leaving rank r at coordinates c (the general path: any
 * target may wrap or leave the grid), and their weight added to *cut_w
 * (the weights given, or 1 each). */
static int64_t rank_cut(const smp_edge_walk *w, const smp_stencil *st,
                        const int32_t *node_of_rank, int64_t r, const int64_t *c, double *cut_w)
{
    int32_t me = node_of_rank[r];
    int64_t cut = 0;
    for (int o = 0; o < w->count; o++) {
        int64_t t = smp_edge_target(w, c, r, o);
        if (t >= 0 && node_of_rank[t] != me) {
            cut++;
            *cut_w += st->weights ? st->weights[o] : 1.0;
        }
    }
    return cut;
}

/* One row of ranks along the axis f of stride 1, from rank `row` on; c
 * holds the row's other coordinates.  Where they and c[f] keep every target
 * inside (interior), a target is one add away. */
static void row_cuts(const smp_edge_walk *w, const smp_stencil *st, const int32_t *node_of_rank,
                     int64_t row, int64_t *c, int f, int64_t *out_cnt, double *out_w)
{
    int64_t len = w->grid->dims[f], lo = len, hi = len;
    bool outer = true;
    for (int i = 0; i < w->d; i++)
        outer = outer && (i == f || (c[i] >= w->lo[i] && c[i] < w->hi[i]));
    if (outer && w->lo[f] < w->hi[f]) {
        lo = w->lo[f];
        hi = w->hi[f];
    }
    for (int64_t k = 0; k < len; k++) {
        if (k == lo) { /* the interior run */
            for (; k < hi; k++) {
                int64_t r = row + k, cut = 0;
                int32_t me = node_of_rank[r];
                double cut_w = 0;
                if (st->weights) {
                    for (int o = 0; o < w->count; o++)
                        if (node_of_rank[r + w->delta[o]] != me) {
                            cut++;
                            cut_w += st->weights[o];
                        }
                    out_w[me] += cut_w;
                } else {
                    for (int o = 0; o < w->count; o++)
                        cut += node_of_rank[r + w->delta[o]] != me;
                }
                out_cnt[me] += cut;
            }
            if (k == len)
                break;
        }
        c[f] = k;
        double cut_w = 0;
        out_cnt[node_of_rank[row + k]] += rank_cut(w, st, node_of_rank, row + k, c, &cut_w);
        out_w[node_of_rank[row + k]] += cut_w;
    }
}

smp_status smp_score_compute(const smp_grid *grid, const smp_stencil *st,
                             const int32_t *node_of_rank, int nnodes, smp_score *score,
                             smp_error *err)
{
    memset(score, 0, sizeof(*score));
    for (int64_t r = 0; r < grid->size; r++)
        if (node_of_rank[r] < 0 || node_of_rank[r] >= nnodes)
            return smp_error_set(err, SMP_ERR_INPUT, "placement: rank %lld is on node %d of %d",
                                 (long long)r, node_of_rank[r], nnodes);
    smp_edge_walk w;
    int64_t *out_cnt = NULL;
    double *out_w = NULL;
    smp_status status = smp_edge_walk_init(&w, grid, st, false, err);
    if (!status && (!(out_cnt = calloc((size_t)nnodes, sizeof(int64_t))) ||
                    !(out_w = calloc((size_t)nnodes, sizeof(double)))))
        status = smp_error_set(err, SMP_ERR_SYSTEM, "score: out of memory");
    /* Row by row along the axis of stride 1: the last in row-major order,
     * the first in column-major. */
    int d = grid->ndims, f = grid->order == SMP_ORDER_COLUMN_MAJOR ? 0 : d - 1;
    int64_t len = grid->dims[f], c[SMP_MAX_DIMS];
    smp_edge_walk_first(&w, c);
    for (int64_t row = 0; row < grid->size && !status; row += len) {
        row_cuts(&w, st, node_of_rank, row, c, f, out_cnt, out_w);
        c[f] = len - 1;
        smp_edge_walk_next(&w, c);
    }
    for (int n = 0; n < nnodes && status == SMP_OK; n++) {
        if (!st->weights) /* unweighted: each cut edge weighs 1 */
            out_w[n] = (double)out_cnt[n];
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

smp_status smp_score_quotient(const smp_quotient *q, const int32_t *phys, smp_score *score,
                              smp_error *err)
{
    memset(score, 0, sizeof(*score));
    int64_t *cnt = calloc((size_t)(q->n > 0 ? q->n : 1), sizeof(int64_t));
    if (!cnt)
        return smp_error_set(err, SMP_ERR_SYSTEM, "score: out of memory");
    for (int u = 0; u < q->n; u++)
        for (int64_t i = q->start[u]; i < q->start[u + 1]; i++)
            cnt[phys ? phys[u] : u] += (int64_t)q->wout[i];
    /* as smp_score_compute's last loop: the first node at J_max names it */
    for (int n = 0; n < q->n; n++) {
        score->j_sum += cnt[n];
        score->w_sum += (double)cnt[n];
        if (cnt[n] > score->j_max) {
            score->j_max = cnt[n];
            score->j_max_node = n;
        }
        if ((double)cnt[n] > score->w_max)
            score->w_max = (double)cnt[n];
    }
    free(cnt);
    return SMP_OK;
}
