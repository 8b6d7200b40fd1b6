/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Nodecart (Gropp, "Using node and socket information to implement MPI
 * Cartesian topologies", 2019; thesis 000 Algorithms 1-2): split the grid
 * into a grid of nodes times a grid of ranks per node.  The ranks per node
 * are factored into primes, largest first, each given to the dimension with
 * the largest remaining extent that it divides.  Needs equal node sizes
 * and a factorisation that fits; otherwise it does not apply. */
#include "construct/construct.h"

smp_status smp_place_nodecart(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                              int nnodes, int32_t *node_of_rank, smp_error *err)
{
    (void)st;
    int d = grid->ndims;
    int64_t n = cap[0];
    for (int i = 1; i < nnodes; i++)
        if (cap[i] != n)
            return smp_error_set(err, SMP_ERR_INFEASIBLE,
                                 "nodecart: needs the same number of ranks on every node");
    int64_t intra[SMP_MAX_DIMS], rest[SMP_MAX_DIMS];
    for (int i = 0; i < d; i++) {
        intra[i] = 1;
        rest[i] = grid->dims[i];
    }
    /* primes of n, largest first */
    int64_t primes[64], m = n;
    int np = 0;
    for (int64_t f = 2; f * f <= m; f++)
        while (m % f == 0) {
            primes[np++] = f;
            m /= f;
        }
    if (m > 1)
        primes[np++] = m;
    for (int k = np - 1; k >= 0; k--) {
        int best = -1;
        for (int i = 0; i < d; i++)
            if (rest[i] % primes[k] == 0 && (best < 0 || rest[i] > rest[best]))
                best = i;
        if (best < 0)
            return smp_error_set(err, SMP_ERR_INFEASIBLE,
                                 "nodecart: %lld ranks per node do not factor into the grid",
                                 (long long)n);
        intra[best] *= primes[k];
        rest[best] /= primes[k];
    }
    /* node = row-major index of the block; blocks are numbered like ranks */
    int64_t c[SMP_MAX_DIMS] = {0};
    for (int64_t r = 0; r < grid->size; r++) {
        int64_t node = 0;
        for (int i = 0; i < d; i++)
            node = node * rest[i] + c[i] / intra[i];
        node_of_rank[r] = (int32_t)node;
        for (int i = d - 1; i >= 0; i--) {
            if (++c[i] < grid->dims[i])
                break;
            c[i] = 0;
        }
    }
    return SMP_OK;
}
