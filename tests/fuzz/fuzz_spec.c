/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness: any bytes as a spec.  A spec that parses is resolved
 * and, when small, planned with every algorithm on a node list derived from
 * the input; the placement must respect every capacity.  Anything else must
 * come back as an error, never a crash, leak or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stencilmap/placement.h>

static void check_plan(const smp_spec *spec, const uint8_t *data, size_t size)
{
    int nnodes = 1 + (size ? data[0] % 7 : 0);
    int32_t slots[8];
    int64_t total = 0;
    for (int i = 0; i < nnodes; i++) {
        slots[i] = 1 + (int32_t)((size > (size_t)i + 1 ? data[i + 1] : 3) % 40);
        total += slots[i];
    }
    for (int a = 0; a < SMP_ALG_COUNT; a++) {
        smp_placement pl;
        smp_error err;
        if (smp_plan(&spec->grid, &spec->stencil, slots, nnodes, (smp_algorithm)a, &pl, &err))
            continue;
        int64_t used[8] = {0};
        for (int64_t r = 0; r < pl.ranks; r++) {
            if (pl.node_of_rank[r] < 0 || pl.node_of_rank[r] >= nnodes)
                abort();
            used[pl.node_of_rank[r]]++;
        }
        for (int i = 0; i < nnodes; i++)
            if (used[i] > slots[i])
                abort();
        if (pl.ranks != spec->grid.size || spec->grid.size > total)
            abort();
        smp_placement_free(&pl);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *specs_dir = NULL;
    if (!specs_dir)
        specs_dir = getenv("STENCILMAP_SPECS_DIR") ? getenv("STENCILMAP_SPECS_DIR") : "stencil-specs";
    smp_spec spec;
    smp_error err;
    if (smp_spec_parse(&spec, (const char *)data, size, specs_dir, &err) != SMP_OK) {
        if (err.status == SMP_OK || err.msg[0] == '\0')
            abort(); /* a failure must say why */
        return 0;
    }
    int64_t ntasks = spec.dims_auto ? 1 + (size % 200) : 0;
    if (smp_spec_resolve(&spec, ntasks, &err) == SMP_OK && spec.grid.size <= 4096)
        check_plan(&spec, data, size);
    smp_spec_free(&spec);
    return 0;
}
