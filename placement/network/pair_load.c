/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The loads of direct routing (link_load.c): the groups under one parent
 * joined pairwise, as a dragonfly's routers inside a group and its groups
 * are, so that a message between two groups loads the links of that pair
 * alone.  There are as many pairs as the squares of the groups' sibling
 * counts, most of them unused by a stencil, so the loads are kept only for
 * the pairs that carry traffic: an open-addressing table from the ordered
 * pair (a, b) to its load. */
#include <stdlib.h>
#include <string.h>

#include "network/network.h"

#define PAIR_EMPTY (-1)

static uint64_t pair_hash(int64_t key)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

bool smp_pair_loads_init(smp_pair_loads *t)
{
    t->cap = 64;
    t->count = 0;
    t->key = malloc(sizeof(int64_t) * (size_t)t->cap);
    t->load = malloc(sizeof(double) * (size_t)t->cap);
    if (!t->key || !t->load) {
        smp_pair_loads_free(t);
        return false;
    }
    for (int64_t i = 0; i < t->cap; i++)
        t->key[i] = PAIR_EMPTY;
    return true;
}

void smp_pair_loads_free(smp_pair_loads *t)
{
    free(t->key);
    free(t->load);
    memset(t, 0, sizeof(*t));
}

/* The slot of key: where it is, or the empty slot it would go to. */
static int64_t pair_slot(const smp_pair_loads *t, int64_t key)
{
    int64_t i = (int64_t)(pair_hash(key) & (uint64_t)(t->cap - 1));
    while (t->key[i] != PAIR_EMPTY && t->key[i] != key)
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* Twice the slots, every entry moved; false when out of memory. */
static bool pair_grow(smp_pair_loads *t)
{
    smp_pair_loads n = {.cap = t->cap * 2};
    n.key = malloc(sizeof(int64_t) * (size_t)n.cap);
    n.load = malloc(sizeof(double) * (size_t)n.cap);
    if (!n.key || !n.load) {
        smp_pair_loads_free(&n);
        return false;
    }
    for (int64_t i = 0; i < n.cap; i++)
        n.key[i] = PAIR_EMPTY;
    for (int64_t i = 0; i < t->cap; i++)
        if (t->key[i] != PAIR_EMPTY) {
            int64_t j = pair_slot(&n, t->key[i]);
            n.key[j] = t->key[i];
            n.load[j] = t->load[i];
        }
    n.count = t->count;
    smp_pair_loads_free(t);
    *t = n;
    return true;
}

bool smp_pair_loads_add(smp_pair_loads *t, int32_t a, int32_t b, double w)
{
    int64_t key = (int64_t)a << 32 | (uint32_t)b;
    int64_t i = pair_slot(t, key);
    if (t->key[i] == key) {
        t->load[i] += w;
        return true;
    }
    if (2 * (t->count + 1) > t->cap) {
        if (!pair_grow(t))
            return false;
        i = pair_slot(t, key);
    }
    t->key[i] = key;
    t->load[i] = w;
    t->count++;
    return true;
}

bool smp_pair_loads_at(const smp_pair_loads *t, int64_t i, int32_t *a, int32_t *b, double *w)
{
    if (t->key[i] == PAIR_EMPTY)
        return false;
    *a = (int32_t)(t->key[i] >> 32);
    *b = (int32_t)(uint32_t)t->key[i];
    *w = t->load[i];
    return true;
}
