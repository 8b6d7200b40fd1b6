/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test probe run as a step by tests/injob/run.sh: every rank reads a few
 * other ranks' "stencilmap.coords" and "stencilmap.node" through the library
 * (PMIx_Get) and prints one line per read:
 *   PROBE <rank> <my node> <other rank> <coords read> <node read>
 * The script checks them against the row-major coordinates and the node
 * Slurm ran that rank on.  Exit 0 when every read succeeded. */
#include <stdio.h>
#include <string.h>

#include "stencilmap.h"

int main(void)
{
    stencilmap_ctx *ctx;
    stencilmap_status st = stencilmap_init(&ctx);
    if (st != STENCILMAP_OK) {
        fprintf(stderr, "injob_probe: init: %s: %s\n", stencilmap_strerror(st),
                stencilmap_errmsg(ctx));
        stencilmap_finalize(ctx);
        return 1;
    }
    int64_t r = stencilmap_rank(ctx), p = stencilmap_size(ctx);
    int64_t others[5] = {(r + 1) % p, (r + p - 1) % p, 0, p - 1, (r * 7 + 3) % p};
    int rc = 0;
    for (int i = 0; i < 5; i++) {
        int64_t c[STENCILMAP_MAX_DIMS];
        int n = 0;
        char node[256];
        if ((st = stencilmap_get_coords(ctx, others[i], c, &n)) ||
            (st = stencilmap_get_node(ctx, others[i], node, sizeof(node)))) {
            fprintf(stderr, "injob_probe: rank %lld: %s\n", (long long)r, stencilmap_errmsg(ctx));
            rc = 1;
            continue;
        }
        char cs[256];
        size_t off = 0;
        for (int k = 0; k < n; k++)
            off += (size_t)snprintf(cs + off, sizeof(cs) - off, "%s%lld", k ? "," : "", (long long)c[k]);
        printf("PROBE %lld %s %lld %s %s\n", (long long)r, stencilmap_node(ctx),
               (long long)others[i], cs, node);
    }
    /* out-of-range rank: an error, not a crash */
    int64_t c[STENCILMAP_MAX_DIMS];
    if (stencilmap_get_coords(ctx, p, c, NULL) != STENCILMAP_ERR_ARG) {
        fprintf(stderr, "injob_probe: rank %lld: get_coords(%lld) did not fail\n", (long long)r,
                (long long)p);
        rc = 1;
    }
    fflush(stdout);
    stencilmap_finalize(ctx);
    return rc;
}
