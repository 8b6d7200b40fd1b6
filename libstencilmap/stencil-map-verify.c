/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map-verify: run as a step (srun --mpi=pmix --stencil-map=SPEC
 * stencil-map-verify) to check that the ranks really run where the plan
 * said.  Rank 0 prints the result and keeps it next to the step's audit
 * record (STENCIL_MAP_RECORD) for `stencil-map audit`; exit 0 only when
 * they agree. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "json_write.h"
#include "stencilmap.h"

/* exit codes */
enum { EX_AGREE = 0, EX_MISMATCH = 1, EX_ENV = 2, EX_NOENV = 3, EX_SYSTEM = 4, EX_USAGE = 64 };

static void usage(FILE *f)
{
    fputs("usage: srun --mpi=pmix --stencil-map=SPEC stencil-map-verify [-v] [--json] [-a]\n"
          "                                                           [--no-record]\n"
          "Checks, through PMIx, that the step's ranks run where the placement planned:\n"
          "observed J_sum/J_max against STENCIL_MAP_JSUM/STENCIL_MAP_JMAX.  Rank 0 writes\n"
          "the result next to the step's audit record ($STENCIL_MAP_RECORD, as\n"
          "<job>.<step>.verify.json) for stencil-map audit.\n"
          "  -v, --verbose     also print the edges leaving each node\n"
          "  -j, --json        print a JSON object instead of text\n"
          "  -a, --all-ranks   every rank prints (default: rank 0 only)\n"
          "  -n, --no-record   do not write the result next to the audit record\n"
          "  -V, --version     print the version and exit\n"
          "  -h, --help\n"
          "exit: 0 agree, 1 mismatch, 2 bad STENCIL_MAP_* environment, 3 step not placed,\n"
          "      4 PMIx/system error, 64 usage\n",
          f);
}

static int exit_code(stencilmap_status st)
{
    switch (st) {
    case STENCILMAP_OK: return EX_AGREE;
    case STENCILMAP_ERR_MISMATCH: return EX_MISMATCH;
    case STENCILMAP_ERR_ENV: return EX_ENV;
    case STENCILMAP_ERR_NOENV: return EX_NOENV;
    default: return EX_SYSTEM;
    }
}

static void print_json(FILE *f, stencilmap_status st, const char *msg, const stencilmap_place *pl,
                       const stencilmap_verify_result *r, int64_t size)
{
    fprintf(f, "{\"stencilmap_version\":");
    smj_write_str(f, SM_VERSION);
    fprintf(f, ",\"format\":%d,\"status\":", SM_FORMAT_VERIFY);
    smj_write_str(f, st == STENCILMAP_OK ? "OK" : st == STENCILMAP_ERR_MISMATCH ? "MISMATCH" : "ERROR");
    fprintf(f, ",\"ranks\":%lld", (long long)size);
    if (pl) {
        fprintf(f, ",\"algorithm\":");
        smj_write_str(f, pl->algorithm);
        fprintf(f, ",\"dims\":[");
        for (int i = 0; i < pl->ndims; i++)
            fprintf(f, "%s%lld", i ? "," : "", (long long)pl->dims[i]);
        fprintf(f, "]");
    }
    if (st == STENCILMAP_OK || st == STENCILMAP_ERR_MISMATCH) {
        if (r->has_planned)
            fprintf(f, ",\"planned\":{\"j_sum\":%lld,\"j_max\":%lld}", (long long)r->planned_jsum,
                    (long long)r->planned_jmax);
        else
            fprintf(f, ",\"planned\":null");
        fprintf(f, ",\"observed\":{\"j_sum\":%lld,\"j_max\":%lld,\"w_sum\":%.17g,\"w_max\":%.17g}",
                (long long)r->observed_jsum, (long long)r->observed_jmax, r->observed_wsum,
                r->observed_wmax);
        if (pl && pl->has_blocked)
            fprintf(f, ",\"blocked\":{\"j_sum\":%lld,\"j_max\":%lld}", (long long)pl->blocked_jsum,
                    (long long)pl->blocked_jmax);
        fprintf(f, ",\"coords_checked\":%lld,\"coords_wrong\":%lld", (long long)r->coords_checked,
                (long long)r->coords_wrong);
        fprintf(f, ",\"nodes\":[");
        for (int i = 0; i < r->nnodes; i++) {
            fprintf(f, "%s{\"name\":", i ? "," : "");
            smj_write_str(f, r->node_names[i]);
            fprintf(f, ",\"ranks\":%lld,\"edges_out\":%lld}", (long long)r->node_ranks[i],
                    (long long)r->node_edges[i]);
        }
        fprintf(f, "]");
    }
    fprintf(f, ",\"message\":");
    smj_write_str(f, msg);
    fprintf(f, "}\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"verbose", no_argument, NULL, 'v'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"all-ranks", no_argument, NULL, 'a'},
                                         {"no-record", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {NULL, 0, NULL, 0}};
    int verbose = 0, json = 0, all = 0, record = 1, c;
    while ((c = getopt_long(argc, argv, "vjanhV", opts, NULL)) != -1) {
        switch (c) {
        case 'v': verbose = 1; break;
        case 'j': json = 1; break;
        case 'a': all = 1; break;
        case 'n': record = 0; break;
        case 'h': usage(stdout); return 0;
        case 'V':
            printf("stencil-map-verify (stencilmap) %s\nJSON format: in-job result %d\n",
                   SM_VERSION, SM_FORMAT_VERIFY);
            return 0;
        default: usage(stderr); return EX_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "stencil-map-verify: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return EX_USAGE;
    }

    stencilmap_ctx *ctx = NULL;
    stencilmap_status st = stencilmap_init(&ctx);
    if (!ctx) {
        fprintf(stderr, "stencil-map-verify: out of memory\n");
        return EX_SYSTEM;
    }
    int64_t rank = stencilmap_rank(ctx), size = stencilmap_size(ctx);
    if (rank < 0) { /* no PMIx: nothing collective can follow */
        fprintf(stderr, "stencil-map-verify: %s\n", stencilmap_errmsg(ctx));
        stencilmap_finalize(ctx);
        return exit_code(st);
    }
    /* a rank with a bad environment still verifies, so that every rank
     * reports the same first failing rank and none waits in a fence */
    stencilmap_verify_result res;
    stencilmap_status vst = stencilmap_verify(ctx, &res);
    if (st == STENCILMAP_OK || st == STENCILMAP_ERR_ENV || st == STENCILMAP_ERR_NOENV)
        st = vst;
    char msg[STENCILMAP_MSG_LEN];
    snprintf(msg, sizeof(msg), "%s", stencilmap_errmsg(ctx));
    const stencilmap_place *pl = stencilmap_get_place(ctx);

    if (rank == 0 || all) {
        FILE *f = stdout;
        if (json) {
            print_json(f, st, msg, pl, &res, size);
        } else if (st == STENCILMAP_OK || st == STENCILMAP_ERR_MISMATCH) {
            char who[32] = "";
            if (all)
                snprintf(who, sizeof(who), "rank %lld: ", (long long)rank);
            fprintf(f, "stencil-map-verify: %s%s %s, %lld ranks on %d nodes: ", who,
                    st == STENCILMAP_OK ? "OK" : "MISMATCH",
                    pl && pl->algorithm[0] ? pl->algorithm : "(no algorithm)", (long long)size,
                    res.nnodes);
            if (res.has_planned)
                fprintf(f, "J_sum planned %lld observed %lld, J_max planned %lld observed %lld",
                        (long long)res.planned_jsum, (long long)res.observed_jsum,
                        (long long)res.planned_jmax, (long long)res.observed_jmax);
            else
                fprintf(f, "J_sum observed %lld, J_max observed %lld (no planned figures)",
                        (long long)res.observed_jsum, (long long)res.observed_jmax);
            fprintf(f, ", coordinates %lld/%lld right", (long long)(res.coords_checked - res.coords_wrong),
                    (long long)res.coords_checked);
            if (st != STENCILMAP_OK)
                fprintf(f, " -- differs: %s", res.diff);
            fputc('\n', f);
            if (verbose) {
                for (int i = 0; i < res.nnodes; i++)
                    fprintf(f, "  node %s: %lld ranks, %lld edges out%s\n", res.node_names[i],
                            (long long)res.node_ranks[i], (long long)res.node_edges[i],
                            i == res.jmax_node && res.observed_jmax > 0 ? " (J_max)" : "");
                if (pl && pl->has_blocked)
                    fprintf(f, "  blocked layout: J_sum %lld, J_max %lld\n",
                            (long long)pl->blocked_jsum, (long long)pl->blocked_jmax);
                if (pl && pl->weights)
                    fprintf(f, "  weighted: W_sum %g, W_max %g\n", res.observed_wsum,
                            res.observed_wmax);
            }
        } else {
            fprintf(stderr, "stencil-map-verify: ERROR: %s\n", msg);
        }
        fflush(f);
    }
    /* the audit's copy: a step without a record (no record_dir, or not
     * placed by the plugin) has nothing to attach it to, silently */
    if (rank == 0 && record) {
        char path[4200], why[STENCILMAP_MSG_LEN];
        stencilmap_status rs = stencilmap_verify_record(ctx, st, &res, path, sizeof(path), why,
                                                        sizeof(why));
        if (rs == STENCILMAP_OK && verbose && !json)
            printf("  result recorded in %s\n", path);
        else if (rs != STENCILMAP_OK && rs != STENCILMAP_ERR_NOENV)
            fprintf(stderr, "stencil-map-verify: WARNING: result not recorded for the audit: %s\n",
                    why);
    }
    stencilmap_verify_result_free(&res);
    stencilmap_finalize(ctx);
    return exit_code(st);
}
