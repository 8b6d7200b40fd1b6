/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness for the placement entry points as srun drives them:
 *
 *   line 1  hostlist        (SLURM_JOB_NODELIST)
 *   line 2  slot counts     (SLURM_JOB_CPUS_PER_NODE)
 *   line 3  task count, then an algorithm name (e.g. "24 kdtree")
 *   rest    the spec (JSON)
 *
 * A plan that succeeds must be exact in capacities, place every rank of
 * the grid, score the same when rescored, and survive a hostfile round
 * trip with the same score.  Every failure must carry a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stencilmap/placement.h>

#define MAX_PLANNED_RANKS 20000

static void must(int cond)
{
    if (!cond)
        abort();
}

static void check_failure(const smp_error *err)
{
    must(err->status != SMP_OK && err->msg[0] != '\0');
}

/* Splits off the next line of *p (NUL-terminating it in place). */
static char *next_line(char **p)
{
    char *line = *p, *nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = line + strlen(line);
    }
    return line;
}

static void check_plan(const smp_spec *spec, const smp_nodes *nodes, const smp_placement *pl)
{
    must(pl->ranks == spec->grid.size);
    int64_t *used = calloc((size_t)nodes->count, sizeof(int64_t));
    must(used != NULL);
    for (int64_t r = 0; r < pl->ranks; r++) {
        must(pl->node_of_rank[r] >= 0 && pl->node_of_rank[r] < nodes->count);
        used[pl->node_of_rank[r]]++;
    }
    for (int i = 0; i < nodes->count; i++)
        must(used[i] <= nodes->slots[i]);
    free(used);

    smp_score again;
    smp_error err;
    must(smp_score_compute(&spec->grid, &spec->stencil, pl->node_of_rank, nodes->count, &again,
                           &err) == SMP_OK);
    must(again.j_sum == pl->score.j_sum && again.j_max == pl->score.j_max);

    /* hostfile round trip: names written, read back, rescored */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    must(mem != NULL);
    must(smp_hostfile_write(mem, nodes, pl, &err) == SMP_OK);
    fclose(mem);
    FILE *in = fmemopen(text, len, "r");
    must(in != NULL);
    smp_nodes back;
    memset(&back, 0, sizeof(back));
    int32_t *node_of_rank = NULL;
    int64_t ranks = 0;
    must(smp_hostfile_read(in, &back, &node_of_rank, &ranks, &err) == SMP_OK);
    fclose(in);
    must(ranks == pl->ranks);
    smp_score read_score;
    must(smp_score_compute(&spec->grid, &spec->stencil, node_of_rank, back.count, &read_score,
                           &err) == SMP_OK);
    must(read_score.j_sum == pl->score.j_sum && read_score.j_max == pl->score.j_max);
    free(node_of_rank);
    smp_nodes_free(&back);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *specs_dir = NULL;
    if (!specs_dir)
        specs_dir = getenv("STENCILMAP_SPECS_DIR") ? getenv("STENCILMAP_SPECS_DIR") : "stencil-specs";
    char *buf = malloc(size + 1);
    must(buf != NULL);
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *p = buf;
    const char *hosts = next_line(&p), *slots = next_line(&p), *task = next_line(&p);
    size_t spec_len = size - (size_t)(p - buf);

    long long ntasks = 0;
    char algname[32] = "";
    sscanf(task, "%lld %31s", &ntasks, algname);
    smp_algorithm alg = SMP_ALG_AUTO;
    if (algname[0] && !smp_algorithm_from_name(algname, &alg))
        alg = SMP_ALG_AUTO;

    smp_nodes nodes;
    smp_spec spec;
    smp_error err;
    smp_error_clear(&err);
    if (smp_nodes_parse(&nodes, hosts, slots, &err) != SMP_OK) {
        check_failure(&err);
        free(buf);
        return 0;
    }
    smp_error_clear(&err);
    if (smp_spec_parse(&spec, p, spec_len, specs_dir, &err) != SMP_OK) {
        check_failure(&err);
        smp_nodes_free(&nodes);
        free(buf);
        return 0;
    }
    smp_error_clear(&err);
    if (smp_spec_resolve(&spec, ntasks > 0 ? (int64_t)ntasks : 0, &err) != SMP_OK) {
        check_failure(&err);
    } else if (spec.grid.size <= MAX_PLANNED_RANKS) {
        smp_placement pl;
        smp_error_clear(&err);
        smp_status s = smp_plan(&spec.grid, &spec.stencil, nodes.slots, nodes.count, alg, &pl, &err);
        if (s == SMP_OK) {
            check_plan(&spec, &nodes, &pl);
            smp_placement_free(&pl);
        } else {
            check_failure(&err);
            /* too few slots must be reported as infeasible, not as bad input */
            if (spec.grid.size > nodes.total_slots)
                must(s == SMP_ERR_INFEASIBLE);
        }
    }
    smp_spec_free(&spec);
    smp_nodes_free(&nodes);
    free(buf);
    return 0;
}
