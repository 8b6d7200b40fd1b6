/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record module both ways: every kind of audit record and the in-job
 * result written, read back and compared field by field; the format rule
 * (no "format" reads as 1, a newer one is refused and named); file names
 * built and parsed; and the recorded fixtures under tests/cli/ still read. */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/format_numbers.h"
#include "smr_record.h"
#include "smr_verify.h"

static char dir[4096];

static int make_dir(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/record-test.XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[4400];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' || strstr(e->d_name, ".tmp")) {
            snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    return rmdir(dir);
}

/* ---- records to write ---------------------------------------------------- */
static char *names[] = {"node1", "node2"};
static int32_t slots[] = {4, 4};
static const int32_t offsets5[] = {1, 0, -1, 0, 0, 1, 0, -1};
static double weights5[] = {2, 2, 1, 0.5};
static int32_t node_of_rank[] = {0, 0, 1, 1, 0, 0, 1, 1};
static int32_t sockets[] = {2, 1};

static void head(smr_record *rec, int64_t step)
{
    smr_record_init(rec);
    rec->job_id = 77;
    rec->step_id = step;
    snprintf(rec->user, sizeof(rec->user), "alice");
    rec->uid = 1000;
    snprintf(rec->time, sizeof(rec->time), "2026-11-23T08:51:04Z");
    snprintf(rec->spec, sizeof(rec->spec), "hyperplane:2d:5pt");
    snprintf(rec->spec_source, sizeof(rec->spec_source), "option");
    rec->nodes = (smp_nodes){2, names, slots, 8};
    rec->plugin_ms = 1.5;
    rec->plugin_cpu_ms = 0.25;
    rec->alloc_check_ms = 0.125;
}

/* a launched, placed step; weighted and bound to sockets when asked */
static void placed(smr_record *rec, bool weighted, bool bound)
{
    head(rec, 3);
    rec->kind = SMR_KIND_PLACED;
    rec->ranks = 8;
    int64_t d[] = {2, 4};
    bool p[] = {false, true};
    assert_int_equal(smp_grid_init(&rec->grid, 2, d, p, NULL), SMP_OK);
    rec->grid.order = SMP_ORDER_COLUMN_MAJOR;
    rec->grid_order_given = true;
    assert_int_equal(smp_stencil_init(&rec->stencil, 2, 4, offsets5, weighted ? weights5 : NULL,
                                      "stencil", NULL),
                     SMP_OK);
    snprintf(rec->stencil.name, sizeof(rec->stencil.name), "5pt");
    snprintf(rec->alg_requested, sizeof(rec->alg_requested), "auto");
    snprintf(rec->alg_override, sizeof(rec->alg_override), "hyperplane");
    snprintf(rec->alg_used, sizeof(rec->alg_used), "hyperplane");
    snprintf(rec->objective, sizeof(rec->objective), "max");
    rec->effort = 16;
    rec->j_sum = 8, rec->j_max = 4, rec->blocked_j_sum = 12, rec->blocked_j_max = 6;
    snprintf(rec->hostfile, sizeof(rec->hostfile), "/tmp/stencil-map.x/hostfile");
    rec->placement_count = 8;
    rec->node_of_rank = node_of_rank;
    if (!bound)
        return;
    rec->bound = true;
    rec->sockets = sockets;
    rec->socket_j_sum = 2, rec->socket_j_max = 1, rec->naive_socket_j_sum = 4;
    rec->naive_socket_j_max = 2;
    snprintf(rec->sockets_note, sizeof(rec->sockets_note), "node2: 1 socket assumed");
}

/* the network levels of a placed step: the two nodes under two switches */
static int32_t level_groups[] = {0, 1};
static char *switch_names[] = {"leaf1", "leaf2"};

static void with_levels(smr_record *rec)
{
    rec->levels.nlevels = 1;
    rec->levels.nnodes = 2;
    rec->levels.ngroups[0] = 2;
    rec->levels.group_of_node[0] = level_groups;
    rec->levels.group_names[0] = switch_names;
    snprintf(rec->levels.source, sizeof(rec->levels.source), "slurm (topology/tree)");
    snprintf(rec->topology_kind, sizeof(rec->topology_kind), "topology/tree");
    rec->level_planned[0] = (smp_score){8, 4, 0, 10.5, 5.25};
    rec->level_blocked[0] = (smp_score){12, 6, 1, 15, 7.5};
}

/* ---- comparing ------------------------------------------------------------- */
static void same_nodes(const smp_nodes *a, const smp_nodes *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->total_slots, b->total_slots);
    for (int i = 0; i < a->count; i++) {
        assert_string_equal(a->names[i], b->names[i]);
        assert_int_equal(a->slots[i], b->slots[i]);
    }
}

static void same_head(const smr_record *a, const smr_record *b)
{
    assert_int_equal(b->format, SM_FORMAT_RECORD);
    assert_string_equal(b->version, SM_VERSION);
    assert_int_equal(a->job_id, b->job_id);
    assert_int_equal(a->step_id, b->step_id);
    assert_string_equal(a->user, b->user);
    assert_int_equal(a->uid, b->uid);
    assert_string_equal(a->time, b->time);
    assert_string_equal(a->spec, b->spec);
    assert_string_equal(a->spec_source, b->spec_source);
    same_nodes(&a->nodes, &b->nodes);
    assert_int_equal(a->launched, b->launched);
    assert_string_equal(a->error, b->error);
    assert_true(a->plugin_ms == b->plugin_ms && a->plugin_cpu_ms == b->plugin_cpu_ms &&
                a->alloc_check_ms == b->alloc_check_ms);
    assert_int_equal(a->kind, b->kind);
    assert_string_equal(a->fallback, b->fallback);
    assert_string_equal(a->alg_requested, b->alg_requested);
    assert_string_equal(a->alg_override, b->alg_override);
    assert_string_equal(a->alg_used, b->alg_used);
}

static void same_stencil(const smp_stencil *a, const smp_stencil *b)
{
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->ndims, b->ndims);
    assert_int_equal(a->count, b->count);
    assert_memory_equal(a->offsets, b->offsets, sizeof(int32_t) * (size_t)(a->count * a->ndims));
    assert_int_equal(a->weights != NULL, b->weights != NULL);
    if (a->weights)
        assert_memory_equal(a->weights, b->weights, sizeof(double) * (size_t)a->count);
}

static void same_placed(const smr_record *a, const smr_record *b)
{
    assert_string_equal(a->objective, b->objective);
    assert_int_equal(a->effort, b->effort);
    assert_int_equal(a->ranks, b->ranks);
    assert_memory_equal(&a->grid, &b->grid, sizeof(a->grid));
    assert_int_equal(a->grid_order_given, b->grid_order_given);
    same_stencil(&a->stencil, &b->stencil);
    assert_true(a->j_sum == b->j_sum && a->j_max == b->j_max &&
                a->blocked_j_sum == b->blocked_j_sum && a->blocked_j_max == b->blocked_j_max);
    assert_string_equal(a->hostfile, b->hostfile);
    assert_int_equal(a->placement_count, b->placement_count);
    assert_memory_equal(a->node_of_rank, b->node_of_rank,
                        sizeof(int32_t) * (size_t)a->placement_count);
    assert_int_equal(b->stray_count, 0);
    assert_int_equal(a->levels.nlevels, b->levels.nlevels);
    assert_string_equal(a->levels.source, b->levels.source);
    assert_string_equal(a->topology_kind, b->topology_kind);
    bool weighted = smp_stencil_weighted(&a->stencil);
    for (int l = 0; l < a->levels.nlevels; l++) {
        assert_int_equal(a->levels.ngroups[l], b->levels.ngroups[l]);
        assert_memory_equal(a->levels.group_of_node[l], b->levels.group_of_node[l],
                            sizeof(int32_t) * (size_t)a->nodes.count);
        for (int g = 0; g < a->levels.ngroups[l]; g++)
            assert_string_equal(a->levels.group_names[l][g], b->levels.group_names[l][g]);
        const smp_score *pa = &a->level_planned[l], *pb = &b->level_planned[l];
        const smp_score *ba = &a->level_blocked[l], *bb = &b->level_blocked[l];
        assert_true(pa->j_sum == pb->j_sum && pa->j_max == pb->j_max && ba->j_sum == bb->j_sum &&
                    ba->j_max == bb->j_max);
        /* the weighted figures only where the stencil is weighted */
        assert_true(weighted ? pa->w_sum == pb->w_sum && pa->w_max == pb->w_max &&
                                   ba->w_sum == bb->w_sum && ba->w_max == bb->w_max
                             : pb->w_sum == 0 && bb->w_max == 0);
    }
    /* the busiest link: -1 both when not written */
    assert_true(a->link_l_max == b->link_l_max && a->link_bound == b->link_bound);
    if (a->link_l_max >= 0) {
        assert_string_equal(a->link_routing, b->link_routing);
        for (int l = 0; l < a->levels.nlevels; l++)
        {
            assert_true(a->link_uplinks_min[l] == b->link_uplinks_min[l] &&
                        a->link_uplinks_max[l] == b->link_uplinks_max[l]);
            /* each group's count where they differ, else none */
            const int32_t *pa = a->link_uplinks_per_group[l], *pb = b->link_uplinks_per_group[l];
            if (pa && a->link_uplinks_min[l] != a->link_uplinks_max[l])
                assert_memory_equal(pa, pb, sizeof(int32_t) * (size_t)a->levels.ngroups[l]);
            else
                assert_null(pb);
            assert_true(a->link_speed[l] == b->link_speed[l]); /* 0: not stated */
        }
    }
    /* written inside the application: "" both when not */
    const smr_origin *oa = &a->origin, *ob = &b->origin;
    assert_string_equal(oa->source, ob->source);
    if (oa->source[0]) {
        assert_string_equal(oa->call, ob->call);
        assert_string_equal(oa->why, ob->why);
        assert_true(oa->reordered == ob->reordered && oa->planned_j_sum == ob->planned_j_sum &&
                    oa->planned_j_max == ob->planned_j_max && oa->mpi_j_sum == ob->mpi_j_sum &&
                    oa->mpi_j_max == ob->mpi_j_max);
    }
    assert_int_equal(a->bound, b->bound);
    if (!a->bound)
        return;
    assert_memory_equal(a->sockets, b->sockets, sizeof(int32_t) * (size_t)a->nodes.count);
    assert_true(a->socket_j_sum == b->socket_j_sum && a->socket_j_max == b->socket_j_max &&
                a->naive_socket_j_sum == b->naive_socket_j_sum &&
                a->naive_socket_j_max == b->naive_socket_j_max);
    assert_string_equal(a->sockets_note, b->sockets_note);
}

/* writes a, reads it into b (free b); the path into path */
static void write_read(const smr_record *a, smr_record *b, char *path, size_t n)
{
    char name[128], msg[512], err[512];
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    int rc = smr_record_write_at(fd, dir, a, 4242, name, sizeof(name), msg, sizeof(msg));
    close(fd);
    if (rc)
        fail_msg("write: %s", msg);
    snprintf(path, n, "%s/%s", dir, name);
    if (smr_record_read(path, b, err, sizeof(err)))
        fail_msg("read %s: %s", path, err);
}

static void round_trip(const smr_record *a)
{
    smr_record b;
    char path[4400];
    write_read(a, &b, path, sizeof(path));
    same_head(a, &b);
    if (a->kind == SMR_KIND_PLACED)
        same_placed(a, &b);
    smr_record_free(&b);
}

static void free_written(smr_record *a)
{
    if (a->kind == SMR_KIND_PLACED)
        smp_stencil_free(&a->stencil);
}

static void test_placed(void **state)
{
    (void)state;
    smr_record a;
    placed(&a, false, false);
    round_trip(&a);
    free_written(&a);
}

static void test_placed_weighted_sockets(void **state)
{
    (void)state;
    smr_record a;
    placed(&a, true, true);
    round_trip(&a);
    free_written(&a);
}

/* planned on network levels, weighted and not */
static void test_placed_levels(void **state)
{
    (void)state;
    for (int weighted = 0; weighted < 2; weighted++) {
        smr_record a;
        placed(&a, weighted, false);
        with_levels(&a);
        round_trip(&a);
        free_written(&a);
    }
}

/* the busiest link as planned (L_max, bound, routing, uplinks, speed) comes
 * back as written; a record without it reads as -1 (test_placed_levels).
 * Each group's uplink count is written where they differ (k 1) and not
 * where they are equal (k 0, given all the same, or k 2, given none) */
static void test_placed_busiest(void **state)
{
    (void)state;
    static const char *const routing[3] = {"static", "adaptive", "direct"};
    int32_t equal[2] = {2, 2}, unequal[2] = {3, 2};
    int32_t *per_group[3] = {equal, unequal, NULL};
    for (int k = 0; k < 3; k++) {
        smr_record a;
        placed(&a, k == 1, false);
        with_levels(&a);
        a.link_l_max = 48.5 + k;
        a.link_bound = 40.25;
        snprintf(a.link_routing, sizeof(a.link_routing), "%s", routing[k]);
        a.link_uplinks_min[0] = 2;
        a.link_uplinks_max[0] = k == 1 ? 3 : 2;
        a.link_uplinks_per_group[0] = per_group[k];
        a.link_speed[0] = k == 0 ? 0.25 : k == 1 ? 0 : 2; /* stated, not, stated */
        round_trip(&a);
        free_written(&a);
    }
}

/* a record the reorder library wrote: "origin" comes back as written,
 * reordered or kept with why */
static void test_placed_origin(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        smr_record a;
        placed(&a, false, false);
        smr_origin *o = &a.origin;
        snprintf(o->source, sizeof(o->source), "libstencilmap-reorder");
        snprintf(o->call, sizeof(o->call), "MPI_Cart_create");
        o->reordered = k == 0;
        snprintf(o->why, sizeof(o->why), "%s", k ? "the plan is no better" : "");
        o->planned_j_sum = 8 + k;
        o->planned_j_max = 4;
        o->mpi_j_sum = 12;
        o->mpi_j_max = 6 - k;
        round_trip(&a);
        free_written(&a);
    }
}

/* A placed record whose member key is replaced by the JSON text edit is
 * refused by the reader with an error containing want (case i). */
static void assert_refused_with(const char *key, const char *edit, const char *want, size_t i)
{
    char path[4400], err[512];
    smr_record a, b;
    placed(&a, false, false);
    write_read(&a, &b, path, sizeof(path));
    smr_record_free(&b);
    free_written(&a);
    json_t *j = json_load_file(path, 0, NULL), *t = json_loads(edit, 0, NULL);
    assert_non_null(j);
    assert_non_null(t);
    json_object_set_new(j, key, t);
    unlink(path);
    assert_int_equal(json_dump_file(j, path, JSON_INDENT(2)), 0);
    json_decref(j);
    assert_int_equal(smr_record_read(path, &b, err, sizeof(err)), -1);
    if (!strstr(err, want))
        fail_msg("case %zu: '%s' lacks '%s'", i, err, want);
    smr_record_free(&b);
    unlink(path);
}

/* a hand-edited "origin" is refused naming the field */
static void test_origin_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *edit, *want;
    } cases[] = {
        {"[1]", "origin: must be an object"},
        {"{\"call\": \"c\", \"order\": \"kept\"}", "origin.source: missing"},
        {"{\"source\": \"s\", \"call\": \"c\", \"order\": \"maybe\"}",
         "origin.order: must be \"reordered\" or \"kept\", not \"maybe\""},
        {"{\"source\": \"s\", \"call\": \"c\", \"order\": \"kept\", \"planned\": 3}",
         "origin.planned: must be an object with j_sum and j_max"},
        {"{\"source\": \"s\", \"call\": \"c\", \"order\": \"kept\", \"planned\": "
         "{\"j_sum\": 1, \"j_max\": 1}, \"mpi_order\": {\"j_sum\": -1, \"j_max\": 1}}",
         "origin.mpi_order.j_sum: must be a non-negative integer"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_refused_with("origin", cases[i].edit, cases[i].want, i);
}

/* a "topology" of one level, as a prefix of a hand-edited "busiest_link" */
#define BUSIEST_HEAD                                                                           \
    "{\"source\": \"s\", \"kind\": \"k\", \"levels\": [{\"node_groups\": [0, 1], \"j_sum\": 1, " \
    "\"j_max\": 1, \"blocked_j_sum\": 1, \"blocked_j_max\": 1}], \"busiest_link\": "

/* a hand-edited "topology" is refused naming the field */
static void test_levels_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *edit, *want;
    } cases[] = {
        {"{\"source\": \"x\", \"kind\": \"topology/tree\", \"levels\": []}", "list of 1 to 4 levels"},
        {"[1]", "topology: must be an object"},
        {"{\"kind\": \"topology/tree\", \"levels\": [{}]}", "topology.source: missing"},
        {"{\"source\": \"s\", \"kind\": \"k\", \"levels\": [{\"node_groups\": [0]}]}",
         "topology.levels[0].node_groups: must be a list with one group per node (2)"},
        {"{\"source\": \"s\", \"kind\": \"k\", \"levels\": [{\"groups\": null, \"node_groups\": [0, 2]}]}",
         "topology.levels[0].node_groups[1]: must be a group index in [0, 2)"},
        {"{\"source\": \"s\", \"kind\": \"k\", \"levels\": [{\"groups\": [\"a\"], \"node_groups\": [0, 1]}]}",
         "node_groups[1]: must be a group index in [0, 1)"},
        {"{\"source\": \"s\", \"kind\": \"k\", \"levels\": [{\"groups\": [\"a\", 3], \"node_groups\": [0, 1]}]}",
         "topology.levels[0].groups[1]: must be a non-empty string"},
        {"{\"source\": \"s\", \"kind\": \"k\", \"levels\": [{\"node_groups\": [0, 1], \"j_sum\": 1}]}",
         "topology.levels[0].j_max: missing"},
        {"{\"source\": \"s\", \"kind\": \"k\", \"levels\": [{\"node_groups\": [0, 1], \"j_sum\": 1, "
         "\"j_max\": 1, \"blocked_j_sum\": 1, \"blocked_j_max\": 1, \"w_sum\": -2}]}",
         "topology.levels[0].w_sum: must be a non-negative number"},
        {BUSIEST_HEAD "[1]}", "topology.busiest_link: must be an object"},
        {BUSIEST_HEAD "{\"routing\": \"ecmp\"}}",
         "topology.busiest_link.routing: must be 'static', 'adaptive' or 'direct'"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": -1}}",
         "topology.busiest_link.l_max: must be a non-negative number"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, \"uplinks\": []}}",
         "topology.busiest_link.uplinks: must be a list with one entry per level (1)"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 2, \"max\": 1}]}}",
         "topology.busiest_link.uplinks[0]: must have 1 <= min <= max, not 2, 1"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 1, \"max\": 2, \"per_group\": [1]}]}}",
         "topology.busiest_link.uplinks[0].per_group: must be a list with one uplink count per "
         "group of level 0 (2)"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 1, \"max\": 2, \"per_group\": 2}]}}",
         "topology.busiest_link.uplinks[0].per_group: must be a list"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 1, \"max\": 2, \"per_group\": [2, 0]}]}}",
         "topology.busiest_link.uplinks[0].per_group[1]: must be an uplink count >= 1"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 1, \"max\": 2, \"per_group\": [-1, 2]}]}}",
         "topology.busiest_link.uplinks[0].per_group[0]: must be an uplink count >= 1"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 1, \"max\": 2, \"per_group\": [1.5, 2]}]}}",
         "topology.busiest_link.uplinks[0].per_group[0]: must be an uplink count >= 1"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 1, \"max\": 1, \"speed\": 0}]}}",
         "topology.busiest_link.uplinks[0].speed: must be a number above 0 and at most 1000"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 1, \"max\": 1, \"speed\": \"fast\"}]}}",
         "topology.busiest_link.uplinks[0].speed: must be a number above 0 and at most 1000"},
        {BUSIEST_HEAD "{\"routing\": \"static\", \"l_max\": 4, \"bound\": 3, "
         "\"uplinks\": [{\"min\": 1, \"max\": 1, \"speed\": 1001}]}}",
         "topology.busiest_link.uplinks[0].speed: must be a number above 0 and at most 1000"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_refused_with("topology", cases[i].edit, cases[i].want, i);
}

/* planned, but srun exited before the step existed: no step id */
static void test_placed_unlaunched(void **state)
{
    (void)state;
    smr_record a;
    placed(&a, false, true);
    a.step_id = SMR_NO_STEP;
    a.launched = false;
    snprintf(a.error, sizeof(a.error), "srun exited before launching the step");
    round_trip(&a);
    free_written(&a);
}

static void test_failed_plan(void **state)
{
    (void)state;
    smr_record a;
    head(&a, SMR_NO_STEP);
    a.launched = false;
    snprintf(a.error, sizeof(a.error), "infeasible: 64 ranks but only 8 slots on 2 nodes");
    round_trip(&a);
}

static void test_fallback(void **state)
{
    (void)state;
    smr_record a;
    head(&a, 5);
    a.kind = SMR_KIND_FALLBACK;
    snprintf(a.alg_used, sizeof(a.alg_used), "blocked");
    snprintf(a.fallback, sizeof(a.fallback), "spec: invalid JSON at line 1");
    snprintf(a.error, sizeof(a.error), "%s", a.fallback);
    round_trip(&a);
    a.step_id = SMR_NO_STEP; /* and one srun gave up on */
    a.launched = false;
    round_trip(&a);
}

/* a second record of the same step takes the next name, never replaces */
static void test_names_taken(void **state)
{
    (void)state;
    smr_record a, b;
    head(&a, 9);
    char p1[4400], p2[4400];
    write_read(&a, &b, p1, sizeof(p1));
    smr_record_free(&b);
    write_read(&a, &b, p2, sizeof(p2));
    smr_record_free(&b);
    assert_non_null(strstr(p1, "/77.9.json"));
    assert_non_null(strstr(p2, "/77.9.1.json"));
}

/* ---- the format rule ------------------------------------------------------ */
/* writes a record, then edits its "format": -1 removes it */
static void with_format(json_int_t format, char *path, size_t n)
{
    smr_record a, b;
    placed(&a, false, false);
    write_read(&a, &b, path, n);
    smr_record_free(&b);
    free_written(&a);
    json_t *j = json_load_file(path, 0, NULL);
    assert_non_null(j);
    if (format < 0)
        json_object_del(j, "format");
    else
        json_object_set_new(j, "format", json_integer(format));
    unlink(path);
    assert_int_equal(json_dump_file(j, path, JSON_INDENT(2)), 0);
    json_decref(j);
}

static void test_no_format_is_1(void **state)
{
    (void)state;
    char path[4400], err[512];
    with_format(-1, path, sizeof(path));
    smr_record b;
    if (smr_record_read(path, &b, err, sizeof(err)))
        fail_msg("%s", err);
    assert_int_equal(b.format, 1);
    smr_record_free(&b);
}

static void test_newer_format_refused(void **state)
{
    (void)state;
    char path[4400], err[512];
    with_format(SM_FORMAT_RECORD + 1, path, sizeof(path));
    smr_record b;
    assert_int_equal(smr_record_read(path, &b, err, sizeof(err)), -1);
    char want[64];
    snprintf(want, sizeof(want), "an audit record of format %d", SM_FORMAT_RECORD + 1);
    if (!strstr(err, want) || !strstr(err, "newer"))
        fail_msg("message: %s", err);
    smr_record_free(&b);
}

/* ---- the in-job result ---------------------------------------------------- */
static char *rank_nodes[] = {"node1", "node1", "node2", "node2", "node1", "node1", "node2", "node2"};

static void verify_full(smr_verify *v, const char *record)
{
    static smr_verify_node nodes[] = {{"node1", 4, 3}, {"node2", 4, 5}};
    memset(v, 0, sizeof(*v));
    v->job_id = 77, v->step_id = 3;
    snprintf(v->record, sizeof(v->record), "%.4000s", record);
    snprintf(v->time, sizeof(v->time), "2026-11-23T08:51:05Z");
    snprintf(v->writer, sizeof(v->writer), "libstencilmap");
    v->status = SMR_VERIFY_MISMATCH;
    snprintf(v->message, sizeof(v->message), "J_sum \"8\" observed\n 9");
    v->ranks = 8;
    snprintf(v->algorithm, sizeof(v->algorithm), "hyperplane");
    v->has_planned = v->has_observed = true;
    v->planned_j_sum = 8, v->planned_j_max = 4, v->observed_j_sum = 9, v->observed_j_max = 5;
    v->observed_w_sum = 9.25, v->observed_w_max = 0.1;
    v->coords_checked = 32, v->coords_wrong = 1;
    v->nnodes = 2;
    v->nodes = nodes;
    v->has_rank_nodes = true;
    v->rank_nodes_count = 8;
    v->rank_nodes = rank_nodes;
}

static void same_verify(const smr_verify *a, const smr_verify *b)
{
    assert_int_equal(b->format, SM_FORMAT_VERIFY);
    assert_string_equal(b->version, SM_VERSION);
    assert_true(a->job_id == b->job_id && a->step_id == b->step_id);
    assert_string_equal(a->record, b->record);
    assert_string_equal(a->time, b->time);
    assert_string_equal(a->writer, b->writer);
    assert_int_equal(a->status, b->status);
    assert_string_equal(a->message, b->message);
    assert_int_equal(a->ranks, b->ranks);
    assert_string_equal(a->algorithm, b->algorithm);
    assert_true(a->has_planned == b->has_planned && a->has_observed == b->has_observed);
    if (a->has_planned) /* else the figures are not written */
        assert_true(a->planned_j_sum == b->planned_j_sum && a->planned_j_max == b->planned_j_max);
    assert_true(a->observed_j_sum == b->observed_j_sum && a->observed_j_max == b->observed_j_max);
    assert_true(a->observed_w_sum == b->observed_w_sum && a->observed_w_max == b->observed_w_max);
    assert_true(a->coords_checked == b->coords_checked && a->coords_wrong == b->coords_wrong);
    assert_int_equal(a->nnodes, b->nnodes);
    for (int i = 0; i < a->nnodes; i++) {
        assert_string_equal(a->nodes[i].name, b->nodes[i].name);
        assert_true(a->nodes[i].ranks == b->nodes[i].ranks &&
                    a->nodes[i].edges_out == b->nodes[i].edges_out);
    }
    assert_int_equal(a->has_rank_nodes, b->has_rank_nodes);
    assert_int_equal(a->rank_nodes_count, b->rank_nodes_count);
    for (int64_t r = 0; r < a->rank_nodes_count; r++)
        assert_string_equal(a->rank_nodes[r], b->rank_nodes[r]);
    assert_int_equal(a->nlevels, b->nlevels);
    for (int l = 0; l < a->nlevels; l++)
        assert_memory_equal(&a->levels[l], &b->levels[l], sizeof(a->levels[l]));
}

/* a record to attach results to; its path into path */
static void some_record(char *path, size_t n)
{
    smr_record a, b;
    placed(&a, false, false);
    write_read(&a, &b, path, n);
    smr_record_free(&b);
    free_written(&a);
}

static void verify_round_trip(const smr_verify *a, const char *record)
{
    char path[4400], msg[512], err[512];
    if (smr_verify_store(record, "RECORD", a, path, sizeof(path), msg, sizeof(msg)))
        fail_msg("store: %s", msg);
    char *want = smr_verify_path(record);
    assert_string_equal(path, want);
    free(want);
    smr_verify b;
    if (smr_verify_read(path, &b, err, sizeof(err)))
        fail_msg("read %s: %s", path, err);
    same_verify(a, &b);
    smr_verify_free(&b);
    /* a result is never replaced */
    assert_int_equal(smr_verify_store(record, "RECORD", a, NULL, 0, msg, sizeof(msg)), -2);
    assert_non_null(strstr(msg, "exists already"));
    unlink(path);
}

static void test_verify_measured(void **state)
{
    (void)state;
    char record[4400];
    some_record(record, sizeof(record));
    smr_verify a;
    verify_full(&a, record);
    verify_round_trip(&a, record);
    a.has_planned = false; /* no planned figures in the environment */
    a.status = SMR_VERIFY_OK;
    verify_round_trip(&a, record);
    /* on network levels: planned and observed edges between groups */
    a.nlevels = 2;
    a.levels[0] = (smr_verify_level){8, 4, 8, 4};
    a.levels[1] = (smr_verify_level){-1, -1, 2, 2}; /* not told */
    verify_round_trip(&a, record);
}

static void test_verify_error(void **state)
{
    (void)state;
    char record[4400];
    some_record(record, sizeof(record));
    smr_verify a;
    memset(&a, 0, sizeof(a));
    a.job_id = a.step_id = -1; /* not in a Slurm step */
    snprintf(a.record, sizeof(a.record), "%.4000s", record);
    snprintf(a.writer, sizeof(a.writer), "libstencilmap");
    a.status = SMR_VERIFY_ERROR;
    snprintf(a.message, sizeof(a.message), "rank 3: PMIx_Get failed");
    a.ranks = 8;
    verify_round_trip(&a, record);
}

static void test_verify_bad_record_path(void **state)
{
    (void)state;
    smr_verify a;
    verify_full(&a, "x");
    char msg[512];
    assert_int_equal(smr_verify_store("relative/1.0.json", "RECORD", &a, NULL, 0, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "RECORD='relative/1.0.json': not an absolute path"));
    char gone[4400];
    snprintf(gone, sizeof(gone), "%s/5.5.json", dir);
    assert_int_equal(smr_verify_store(gone, "RECORD", &a, NULL, 0, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "no such record file"));
}

static void test_verify_newer_format_refused(void **state)
{
    (void)state;
    char path[4400], err[512];
    snprintf(path, sizeof(path), "%s/1.0.verify.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"format\": %d, \"stencilmap_version\": \"9.9\"}\n", SM_FORMAT_VERIFY + 1);
    fclose(f);
    smr_verify v;
    assert_int_equal(smr_verify_read(path, &v, err, sizeof(err)), -1);
    if (!strstr(err, "an in-job result of format") || !strstr(err, "stencilmap 9.9"))
        fail_msg("message: %s", err);
    smr_verify_free(&v);
    unlink(path);
    assert_int_equal(smr_verify_read(path, &v, err, sizeof(err)), 1); /* absent */
    smr_verify_free(&v);
}

/* the --json line keeps its shape */
static void test_verify_line(void **state)
{
    (void)state;
    smr_verify a;
    verify_full(&a, "/r/1.0.json");
    int64_t dims[] = {2, 4};
    a.ndims = 2, a.dims = dims, a.has_blocked = true, a.blocked_j_sum = 12, a.blocked_j_max = 6;
    a.nnodes = 1;
    char buf[2048] = "";
    FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
    smr_verify_print_line(f, &a);
    fclose(f);
    char want[2048];
    snprintf(want, sizeof(want),
             "{\"stencilmap_version\":\"%s\",\"format\":%d,\"status\":\"MISMATCH\",\"ranks\":8,"
             "\"algorithm\":\"hyperplane\",\"dims\":[2,4],\"planned\":{\"j_sum\":8,\"j_max\":4},"
             "\"observed\":{\"j_sum\":9,\"j_max\":5,\"w_sum\":9.25,\"w_max\":0.10000000000000001},"
             "\"blocked\":{\"j_sum\":12,\"j_max\":6},\"coords_checked\":32,\"coords_wrong\":1,"
             "\"nodes\":[{\"name\":\"node1\",\"ranks\":4,\"edges_out\":3}],"
             "\"message\":\"J_sum \\\"8\\\" observed\\u000a 9\"}\n",
             SM_VERSION, SM_FORMAT_VERIFY);
    assert_string_equal(buf, want);
}

/* ---- names -------------------------------------------------------------------- */
static void test_names(void **state)
{
    (void)state;
    char n[64];
    smr_record_name(n, sizeof(n), 11, 0, 99, 0);
    assert_string_equal(n, "11.0.json");
    smr_record_name(n, sizeof(n), 11, 0, 99, 3);
    assert_string_equal(n, "11.0.3.json");
    smr_record_name(n, sizeof(n), 14, SMR_NO_STEP, 18867, 0);
    assert_string_equal(n, "14.nostep-18867.json");
    int64_t j, s;
    assert_true(smr_record_name_parse("11.0.3.json", &j, &s) && j == 11 && s == 0);
    assert_true(smr_record_name_parse("14.nostep-18867.2.json", &j, &s) && j == 14 &&
                s == SMR_NO_STEP);
    const char *not_records[] = {"14.nostep-.json", "14.nosteps.json", "11.1.verify.json",
                                 ".11.0.99.tmp", ".11.0.json", "11.json", "x.0.json", "11.0.txt"};
    for (size_t i = 0; i < sizeof(not_records) / sizeof(*not_records); i++)
        if (smr_record_name_parse(not_records[i], &j, &s))
            fail_msg("%s taken for a record", not_records[i]);
    char *v = smr_verify_path("/d/u/11.1.json");
    assert_string_equal(v, "/d/u/11.1.verify.json");
    free(v);
}

/* ---- the records the plugin wrote on the minicluster ------------------------- */
static int read_fixtures(const char *sub)
{
    const char *top = getenv("STENCILMAP_TOP_SRCDIR");
    char d[4096], p[4400], err[512];
    snprintf(d, sizeof(d), "%s/tests/cli/%s/root", top && *top ? top : "../..", sub);
    DIR *dd = opendir(d);
    if (!dd)
        fail_msg("%s: cannot open", d);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", d, e->d_name);
        if (strstr(e->d_name, ".verify.json")) {
            smr_verify v;
            if (smr_verify_read(p, &v, err, sizeof(err)))
                fail_msg("%s: %s", p, err);
            assert_int_equal(v.format, 1);
            smr_verify_free(&v);
        } else {
            smr_record r;
            if (smr_record_read(p, &r, err, sizeof(err)))
                fail_msg("%s: %s", p, err);
            assert_int_equal(r.format, 1);
            smr_record_free(&r);
        }
        count++;
    }
    closedir(dd);
    return count;
}

static void test_fixtures(void **state)
{
    (void)state;
    assert_int_equal(read_fixtures("audit-records"), 10);
    assert_int_equal(read_fixtures("audit-records-sockets"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placed),
        cmocka_unit_test(test_placed_weighted_sockets),
        cmocka_unit_test(test_placed_levels),
        cmocka_unit_test(test_placed_busiest),
        cmocka_unit_test(test_placed_origin),
        cmocka_unit_test(test_origin_malformed),
        cmocka_unit_test(test_levels_malformed),
        cmocka_unit_test(test_placed_unlaunched),
        cmocka_unit_test(test_failed_plan),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_names_taken),
        cmocka_unit_test(test_no_format_is_1),
        cmocka_unit_test(test_newer_format_refused),
        cmocka_unit_test(test_verify_measured),
        cmocka_unit_test(test_verify_error),
        cmocka_unit_test(test_verify_bad_record_path),
        cmocka_unit_test(test_verify_newer_format_refused),
        cmocka_unit_test(test_verify_line),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_fixtures),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
