/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Random, a reference order (never tried by auto): the thesis's random
 * starting order (6.3.3), a placement oblivious to the stencil.  Blocked's
 * layout, so the shares are exact, shuffled by Fisher-Yates with
 * splitmix64 from the fixed seed SMP_RANDOM_SEED: the same grid size and
 * shares always give the same placement, on any platform (no rand()). */
#include "construct/order.h"

#define SMP_RANDOM_SEED UINT64_C(0x5eed0039)

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* uniform on [0, n), n > 0: draws below the largest multiple of n only */
static uint64_t below(uint64_t *state, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = splitmix64(state);
    while (x >= limit);
    return x % n;
}

smp_status smp_place_random(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                            int nnodes, int32_t *node_of_rank, smp_error *err)
{
    smp_status s = smp_place_blocked(grid, st, cap, nnodes, node_of_rank, err);
    if (s)
        return s;
    uint64_t state = SMP_RANDOM_SEED;
    for (int64_t r = grid->size - 1; r > 0; r--) {
        int64_t k = (int64_t)below(&state, (uint64_t)r + 1);
        int32_t t = node_of_rank[r];
        node_of_rank[r] = node_of_rank[k];
        node_of_rank[k] = t;
    }
    return SMP_OK;
}
