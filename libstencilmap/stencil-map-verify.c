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

#include "formats/format_numbers.h"
#include "smr_verify.h"
#include "stencilmap.h"

/* exit codes */
enum { EX_AGREE = 0, EX_MISMATCH = 1, EX_ENV = 2, EX_NOENV = 3, EX_SYSTEM = 4, EX_USAGE = 64 };

static void usage(FILE *f)
{
    fputs("usage: srun --mpi=pmix --stencil-map=SPEC stencil-map-verify [-v] [--json] [-a]\n"
          "                                                           [--no-record]\n"
          "       mpirun --rankfile FILE $(stencil-map plan SPEC --launcher openmpi\n"
          "              --output FILE --env) stencil-map-verify [...]\n"
          "       mpiexec -f FILE $(stencil-map plan SPEC --launcher mpich --output FILE\n"
          "              --env) stencil-map-verify [...]\n"
          "Checks, through PMIx (or PMI-1 under MPICH's mpiexec), that the job's ranks run\n"
          "where the placement planned: observed J_sum/J_max against\n"
          "STENCIL_MAP_JSUM/STENCIL_MAP_JMAX, and on a step planned on network levels the\n"
          "edges between groups against STENCIL_MAP_LEVEL_JSUM/STENCIL_MAP_LEVEL_JMAX.\n"
          "Rank 0 writes the result next to the step's audit record ($STENCIL_MAP_RECORD,\n"
          "as <job>.<step>.verify.json) for stencil-map audit.\n"
          "  -v, --verbose     also print the edges leaving each node\n"
          "  -j, --json        print a JSON object instead of text\n"
          "  -a, --all-ranks   every rank prints (default: rank 0 only)\n"
          "  -n, --no-record   do not write the result next to the audit record\n"
          "  -V, --version     print the version and exit\n"
          "  -h, --help\n"
          "exit: 0 agree, 1 mismatch, 2 bad STENCIL_MAP_* environment, 3 step not placed,\n"
          "      4 PMIx/PMI/system error, 64 usage\n",
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

/* The result as the record module writes it, --json's one line. */
static void print_json(FILE *f, stencilmap_status st, const char *msg, const stencilmap_place *pl,
                       const stencilmap_verify_result *r, int64_t size)
{
    smr_verify v;
    memset(&v, 0, sizeof(v));
    v.status = st == STENCILMAP_OK             ? SMR_VERIFY_OK
               : st == STENCILMAP_ERR_MISMATCH ? SMR_VERIFY_MISMATCH
                                               : SMR_VERIFY_ERROR;
    snprintf(v.message, sizeof(v.message), "%s", msg);
    v.ranks = size;
    if (pl) {
        snprintf(v.algorithm, sizeof(v.algorithm), "%s", pl->algorithm);
        v.ndims = pl->ndims;
        v.dims = pl->dims;
        v.has_blocked = pl->has_blocked != 0;
        v.blocked_j_sum = pl->blocked_jsum;
        v.blocked_j_max = pl->blocked_jmax;
    }
    smr_verify_node *nodes = NULL;
    if (v.status != SMR_VERIFY_ERROR) {
        v.has_observed = true;
        v.has_planned = r->has_planned != 0;
        v.planned_j_sum = r->planned_jsum;
        v.planned_j_max = r->planned_jmax;
        v.observed_j_sum = r->observed_jsum;
        v.observed_j_max = r->observed_jmax;
        v.observed_w_sum = r->observed_wsum;
        v.observed_w_max = r->observed_wmax;
        v.coords_checked = r->coords_checked;
        v.coords_wrong = r->coords_wrong;
        nodes = calloc(r->nnodes > 0 ? (size_t)r->nnodes : 1, sizeof(*nodes));
        for (int i = 0; nodes && i < r->nnodes; i++)
            nodes[i] = (smr_verify_node){r->node_names[i], r->node_ranks[i], r->node_edges[i]};
        v.nnodes = nodes ? r->nnodes : 0;
        v.nodes = nodes;
        v.nlevels = r->nlevels < SMR_VERIFY_MAX_LEVELS ? r->nlevels : SMR_VERIFY_MAX_LEVELS;
        for (int l = 0; l < v.nlevels; l++)
            v.levels[l] = (smr_verify_level){
                r->has_level_planned ? r->level_planned_jsum[l] : -1,
                r->has_level_planned ? r->level_planned_jmax[l] : -1,
                r->level_observed_jsum[l], r->level_observed_jmax[l]};
    }
    smr_verify_print_line(f, &v);
    free(nodes);
}

/* The text line (and with -v the per-node counts) of a measured result. */
static void print_text(FILE *f, stencilmap_status st, const stencilmap_place *pl,
                       const stencilmap_verify_result *res, int64_t rank, int64_t size, int all,
                       int verbose)
{
    char who[32] = "";
    if (all)
        snprintf(who, sizeof(who), "rank %lld: ", (long long)rank);
    fprintf(f, "stencil-map-verify: %s%s %s, %lld ranks on %d nodes: ", who,
            st == STENCILMAP_OK ? "OK" : "MISMATCH",
            pl && pl->algorithm[0] ? pl->algorithm : "(no algorithm)", (long long)size,
            res->nnodes);
    if (res->has_planned)
        fprintf(f, "J_sum planned %lld observed %lld, J_max planned %lld observed %lld",
                (long long)res->planned_jsum, (long long)res->observed_jsum,
                (long long)res->planned_jmax, (long long)res->observed_jmax);
    else
        fprintf(f, "J_sum observed %lld, J_max observed %lld (no planned figures)",
                (long long)res->observed_jsum, (long long)res->observed_jmax);
    fprintf(f, ", coordinates %lld/%lld right", (long long)(res->coords_checked - res->coords_wrong),
            (long long)res->coords_checked);
    if (st != STENCILMAP_OK)
        fprintf(f, " -- differs: %s", res->diff);
    fputc('\n', f);
    /* the network levels above the nodes, finest first */
    for (int l = 0; l < res->nlevels; l++)
        fprintf(f, "  level %d, between groups: J_sum planned %lld observed %lld, J_max planned "
                "%lld observed %lld\n", l, (long long)res->level_planned_jsum[l],
                (long long)res->level_observed_jsum[l], (long long)res->level_planned_jmax[l],
                (long long)res->level_observed_jmax[l]);
    if (!verbose)
        return;
    for (int i = 0; i < res->nnodes; i++)
        fprintf(f, "  node %s: %lld ranks, %lld edges out%s\n", res->node_names[i],
                (long long)res->node_ranks[i], (long long)res->node_edges[i],
                i == res->jmax_node && res->observed_jmax > 0 ? " (J_max)" : "");
    if (pl && pl->has_blocked)
        fprintf(f, "  blocked layout: J_sum %lld, J_max %lld\n", (long long)pl->blocked_jsum,
                (long long)pl->blocked_jmax);
    if (pl && pl->weights)
        fprintf(f, "  weighted: W_sum %g, W_max %g\n", res->observed_wsum, res->observed_wmax);
}

struct verify_opts {
    int verbose, json, all, record;
};

/* 0 to go on; else the exit status (after --help, --version or a usage error) */
static int parse_args(int argc, char **argv, struct verify_opts *o)
{
    static const struct option opts[] = {{"verbose", no_argument, NULL, 'v'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"all-ranks", no_argument, NULL, 'a'},
                                         {"no-record", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {NULL, 0, NULL, 0}};
    *o = (struct verify_opts){0, 0, 0, 1};
    int c;
    while ((c = getopt_long(argc, argv, "vjanhV", opts, NULL)) != -1) {
        switch (c) {
        case 'v': o->verbose = 1; break;
        case 'j': o->json = 1; break;
        case 'a': o->all = 1; break;
        case 'n': o->record = 0; break;
        case 'h': usage(stdout); return -1;
        case 'V':
            printf("stencil-map-verify (stencilmap) %s\nJSON format: in-job result %d\n",
                   SM_VERSION, SM_FORMAT_VERIFY);
            return -1;
        default: usage(stderr); return EX_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "stencil-map-verify: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return EX_USAGE;
    }
    return 0;
}

/* the audit's copy: a step without a record (no record_dir, or not
 * placed by the plugin) has nothing to attach it to, silently */
static void record_result(stencilmap_ctx *ctx, stencilmap_status st,
                          const stencilmap_verify_result *res, const struct verify_opts *o)
{
    char path[4200], why[STENCILMAP_MSG_LEN];
    stencilmap_status rs = stencilmap_verify_record(ctx, st, res, path, sizeof(path), why,
                                                    sizeof(why));
    if (rs == STENCILMAP_OK && o->verbose && !o->json)
        printf("  result recorded in %s\n", path);
    else if (rs != STENCILMAP_OK && rs != STENCILMAP_ERR_NOENV)
        fprintf(stderr, "stencil-map-verify: WARNING: result not recorded for the audit: %s\n",
                why);
}

int main(int argc, char **argv)
{
    struct verify_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
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
    if (rank == 0 || o.all) {
        if (o.json)
            print_json(stdout, st, msg, pl, &res, size);
        else if (st == STENCILMAP_OK || st == STENCILMAP_ERR_MISMATCH)
            print_text(stdout, st, pl, &res, rank, size, o.all, o.verbose);
        else
            fprintf(stderr, "stencil-map-verify: ERROR: %s\n", msg);
        fflush(stdout);
    }
    if (rank == 0 && o.record)
        record_result(ctx, st, &res, &o);
    stencilmap_verify_result_free(&res);
    stencilmap_finalize(ctx);
    return exit_code(st);
}
