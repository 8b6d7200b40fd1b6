/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checks of one audit record, collected into a JSON object from which
 * both the text and the --json output are printed.
 *
 * A record is inconsistent when its fields disagree with each other (the
 * J figures with the placement, the placement with the nodes and slots,
 * the file name with the ids), with the in-job verification, or with where
 * the ranks ran (the verification's per-rank nodes, --launched, Slurm's
 * node list of the step). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audit_internal.h"

/* the file name <job>.<step>[.k].json, or <job>.nostep-<pid>[.k].json for
 * a step without an id, and the directory <user> */
static void check_names(const audit_record *rec, audit_result *res, bool in_record_dir)
{
    const char *slash = strrchr(rec->path, '/');
    const char *base = slash ? slash + 1 : rec->path;
    int64_t job, step;
    if (!smr_record_name_parse(base, &job, &step)) {
        /* a file named otherwise (--record FILE): nothing to compare */
    } else if (step == SMR_NO_STEP) {
        if (job != rec->r.job_id || rec->r.step_id >= 0)
            audit_problem(res, AUDIT_ST_INCONSISTENT, "the file name says job %lld without a step id, the record "
                    "%lld.%lld", (long long)job, (long long)rec->r.job_id, (long long)rec->r.step_id);
    } else if (job != rec->r.job_id || step != rec->r.step_id) {
        if (rec->r.step_id < 0)
            audit_problem(res, AUDIT_ST_INCONSISTENT, "the file name says step %lld.%lld, the record job %lld "
                    "without a step id", (long long)job, (long long)step, (long long)rec->r.job_id);
        else
            audit_problem(res, AUDIT_ST_INCONSISTENT, "the file name says step %lld.%lld, the record %lld.%lld",
                    (long long)job, (long long)step, (long long)rec->r.job_id,
                    (long long)rec->r.step_id);
    }
    if (in_record_dir && slash) {
        const char *d = slash;
        while (d > rec->path && d[-1] != '/')
            d--;
        size_t dl = (size_t)(slash - d);
        if (strlen(rec->r.user) != dl || strncmp(d, rec->r.user, dl))
            audit_problem(res, AUDIT_ST_INCONSISTENT, "the record of user '%s' lies in the directory of '%.*s'",
                    rec->r.user, (int)dl, d);
    }
}

/* ranks, grid, placement and capacities; false when the placement cannot
 * be scored */
static bool check_shape(const audit_record *rec, audit_result *res)
{
    bool ok = true;
    if (rec->r.stencil.ndims != rec->r.grid.ndims) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "stencil.offsets are %d-dimensional, the grid %d-dimensional",
                rec->r.stencil.ndims, rec->r.grid.ndims);
        ok = false;
    }
    if (rec->r.grid.size != rec->r.ranks) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "ranks is %lld, but the grid holds %lld", (long long)rec->r.ranks,
                (long long)rec->r.grid.size);
        ok = false;
    }
    if (rec->r.placement_count != rec->r.ranks) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "placement has %lld entries, ranks is %lld",
                (long long)rec->r.placement_count, (long long)rec->r.ranks);
        ok = false;
    }
    int64_t *used = calloc((size_t)rec->r.nodes.count + 1, sizeof(int64_t));
    if (!used) {
        audit_problem(res, AUDIT_ST_UNREADABLE, "out of memory");
        return false;
    }
    int64_t unknown = 0, first = -1;
    for (int64_t r = 0; r < rec->r.placement_count; r++) {
        if (rec->r.node_of_rank[r] < 0) {
            if (!unknown++)
                first = r;
        } else {
            used[rec->r.node_of_rank[r]]++;
        }
    }
    if (unknown) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "placement[%lld] ('%s') and %lld more name no node of the record",
                (long long)first,
                smr_record_node_of(&rec->r, first),
                (long long)(unknown - 1));
        ok = false;
    }
    for (int i = 0; i < rec->r.nodes.count; i++)
        if (used[i] > rec->r.nodes.slots[i]) {
            audit_problem(res, AUDIT_ST_INCONSISTENT, "placement puts %lld ranks on %s, which has %d slots",
                    (long long)used[i], rec->r.nodes.names[i], rec->r.nodes.slots[i]);
            ok = false;
        }
    free(used);
    return ok;
}

/* J figures from the placement itself, and the blocked layout re-planned */
static void check_figures(const audit_record *rec, audit_result *res)
{
    smp_error err;
    smp_score sc;
    smp_error_clear(&err);
    if (smp_score_compute(&rec->r.grid, &rec->r.stencil, rec->r.node_of_rank, rec->r.nodes.count, &sc,
                          &err)) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "the placement cannot be scored: %s", err.msg);
        return;
    }
    json_t *rs = audit_pair(sc.j_sum, sc.j_max);
    json_object_set_new(res->j, "rescored", rs);
    if (sc.j_sum != rec->r.j_sum)
        audit_problem(res, AUDIT_ST_INCONSISTENT, "j_sum is %lld in the record, %lld from its placement",
                (long long)rec->r.j_sum, (long long)sc.j_sum);
    if (sc.j_max != rec->r.j_max)
        audit_problem(res, AUDIT_ST_INCONSISTENT, "j_max is %lld in the record, %lld from its placement",
                (long long)rec->r.j_max, (long long)sc.j_max);
    /* the plugin keeps the naive split where its own would cut more */
    if (rec->r.bound && (rec->r.socket_j_sum > rec->r.naive_socket_j_sum ||
                       rec->r.socket_j_max > rec->r.socket_j_sum))
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                "j_socket_sum %lld, j_socket_max %lld: worse than the naive split's %lld, or a "
                "maximum above the total",
                (long long)rec->r.socket_j_sum, (long long)rec->r.socket_j_max,
                (long long)rec->r.naive_socket_j_sum);
    smp_placement bl = {0};
    if (smp_plan(&rec->r.grid, &rec->r.stencil, rec->r.nodes.slots, rec->r.nodes.count, SMP_ALG_BLOCKED,
                 &bl, &err)) {
        audit_problem(res, AUDIT_ST_INCONSISTENT, "the blocked layout cannot be re-planned: %s", err.msg);
        return;
    }
    json_object_set_new(rs, "blocked", audit_pair(bl.score.j_sum, bl.score.j_max));
    if (smp_stencil_weighted(&rec->r.stencil)) /* what auto minimised: the weighted figures */
        json_object_set_new(res->j, "weighted",
                            json_pack("{s:f,s:f,s:{s:f,s:f}}", "j_sum", sc.w_sum, "j_max", sc.w_max,
                                      "blocked", "j_sum", bl.score.w_sum, "j_max", bl.score.w_max));
    if (bl.score.j_sum != rec->r.blocked_j_sum)
        audit_problem(res, AUDIT_ST_INCONSISTENT, "blocked_j_sum is %lld in the record, %lld re-planned",
                (long long)rec->r.blocked_j_sum, (long long)bl.score.j_sum);
    if (bl.score.j_max != rec->r.blocked_j_max)
        audit_problem(res, AUDIT_ST_INCONSISTENT, "blocked_j_max is %lld in the record, %lld re-planned",
                (long long)rec->r.blocked_j_max, (long long)bl.score.j_max);
    smp_placement_free(&bl);
}

/* the figures the job observed (and was told) against the record's */
static void check_figures_verified(const audit_record *rec, json_t *vj, audit_result *res)
{
    const smr_verify *v = &rec->verify.v;
    if (v->ranks != rec->r.ranks)
        audit_problem(res, AUDIT_ST_INCONSISTENT, "the job had %lld ranks, the record %lld", (long long)v->ranks,
                (long long)rec->r.ranks);
    if (v->has_planned && (v->planned_j_sum != rec->r.j_sum || v->planned_j_max != rec->r.j_max))
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                "the job was told J_sum %lld, J_max %lld; the record says %lld, %lld",
                (long long)v->planned_j_sum, (long long)v->planned_j_max, (long long)rec->r.j_sum,
                (long long)rec->r.j_max);
    bool agrees = v->observed_j_sum == rec->r.j_sum && v->observed_j_max == rec->r.j_max;
    json_object_set_new(vj, "agrees_with_record", json_boolean(agrees));
    if (!agrees)
        audit_problem(res, AUDIT_ST_INCONSISTENT,
                "the job observed J_sum %lld, J_max %lld; the record planned %lld, %lld",
                (long long)v->observed_j_sum, (long long)v->observed_j_max, (long long)rec->r.j_sum,
                (long long)rec->r.j_max);
    audit_check_levels_verified(rec, vj, res);
}

/* the in-job verification against the record */
static void check_verify(const audit_record *rec, audit_result *res, json_t *checks, json_t *unchecked)
{
    const audit_verify *av = &rec->verify;
    const smr_verify *v = &av->v;
    if (!av->present) {
        json_object_set_new(res->j, "verify", json_null());
        if (rec->r.launched) /* else no step ran that could have written one */
            json_array_append_new(unchecked,
                              json_string("in-job result: none (no stencil-map-verify step wrote "
                                          "<record>.verify.json)"));
        return;
    }
    if (!av->readable) {
        json_object_set_new(res->j, "verify", json_pack("{s:s,s:s}", "path", av->path, "error", av->error));
        audit_problem(res, AUDIT_ST_UNREADABLE, "in-job result %s: %s", av->path, av->error);
        return;
    }
    json_t *vj = json_pack("{s:s,s:s,s:s}", "path", av->path, "status",
                           smr_verify_status_name(v->status), "message", v->message);
    json_object_set_new(vj, "planned", v->has_planned ? audit_pair(v->planned_j_sum, v->planned_j_max)
                                                      : json_null());
    json_object_set_new(vj, "observed", v->has_observed
                                            ? audit_pair(v->observed_j_sum, v->observed_j_max)
                                            : json_null());
    json_object_set_new(res->j, "verify", vj);
    if (!rec->r.launched)
        audit_problem(res, AUDIT_ST_INCONSISTENT, "an in-job result exists, but the record says the step was "
                "never launched");
    if ((v->job_id >= 0 && v->job_id != rec->r.job_id) ||
        (v->step_id >= 0 && v->step_id != rec->r.step_id))
        audit_problem(res, AUDIT_ST_INCONSISTENT, "the in-job result is of step %lld.%lld, the record of %lld.%lld",
                (long long)v->job_id, (long long)v->step_id, (long long)rec->r.job_id,
                (long long)rec->r.step_id);
    if (v->status == SMR_VERIFY_ERROR) {
        char buf[700];
        snprintf(buf, sizeof(buf), "in-job result: the verification failed: %s", v->message);
        json_array_append_new(unchecked, json_string(buf));
        return;
    }
    if (!rec->placed || !rec->r.launched)
        return;
    check_figures_verified(rec, vj, res);
    if (v->has_rank_nodes)
        json_array_append_new(checks, audit_rank_check(rec, v->rank_nodes, v->rank_nodes_count,
                                                 "in-job result (PMIx)", res));
}

static void set_common(json_t *out, const audit_record *rec)
{
    json_object_set_new(out, "user", json_string(rec->r.user));
    json_object_set_new(out, "time", json_string(rec->r.time));
    json_object_set_new(out, "spec", rec->r.spec[0] ? json_string(rec->r.spec) : json_null());
    json_object_set_new(out, "spec_source",
                        rec->r.spec_source[0] ? json_string(rec->r.spec_source) : json_null());
    json_object_set_new(
        out, "algorithm",
        json_pack("{s:s?,s:s?,s:s?}", "requested", rec->r.alg_requested[0] ? rec->r.alg_requested : NULL,
                  "override", rec->r.alg_override[0] ? rec->r.alg_override : NULL, "used",
                  rec->r.alg_used[0] ? rec->r.alg_used : NULL));
    json_t *nodes = json_array(), *slots = json_array();
    for (int i = 0; i < rec->r.nodes.count; i++) {
        json_array_append_new(nodes, json_string(rec->r.nodes.names[i]));
        json_array_append_new(slots, json_integer(rec->r.nodes.slots[i]));
    }
    json_object_set_new(out, "nodes", nodes);
    json_object_set_new(out, "slots", slots);
}

/* the grid as the record gives it (without "order" when it has none) */
static json_t *grid_json(const audit_record *rec)
{
    const smp_grid *g = &rec->r.grid;
    json_t *dims = json_array(), *per = json_array();
    for (int i = 0; i < g->ndims; i++) {
        json_array_append_new(dims, json_integer(g->dims[i]));
        json_array_append_new(per, json_boolean(g->periods[i]));
    }
    json_t *j = json_pack("{s:o,s:o}", "dims", dims, "periods", per);
    if (rec->r.grid_order_given)
        json_object_set_new(j, "order", json_string(smp_order_name(g->order)));
    return j;
}

static json_t *sockets_json(const audit_record *rec)
{
    json_t *per = json_array();
    for (int i = 0; i < rec->r.nodes.count; i++)
        json_array_append_new(per, json_integer(rec->r.sockets[i]));
    return json_pack("{s:o,s:o,s:o}", "per_node", per, "planned",
                     audit_pair(rec->r.socket_j_sum, rec->r.socket_j_max), "naive",
                     audit_pair(rec->r.naive_socket_j_sum, rec->r.naive_socket_j_max));
}

static void set_placed(json_t *out, const audit_record *rec)
{
    json_object_set_new(out, "ranks", json_integer(rec->r.ranks));
    json_object_set_new(out, "grid", grid_json(rec));
    json_object_set_new(out, "stencil",
                        json_pack("{s:s,s:i,s:b}", "name",
                                  rec->r.stencil.name[0] ? rec->r.stencil.name : "custom", "offsets",
                                  rec->r.stencil.count, "weighted",
                                  smp_stencil_weighted(&rec->r.stencil)));
    json_object_set_new(out, "planned", audit_pair(rec->r.j_sum, rec->r.j_max));
    json_object_set_new(out, "blocked", audit_pair(rec->r.blocked_j_sum, rec->r.blocked_j_max));
    json_object_set_new(out, "saved", json_integer(rec->r.blocked_j_sum - rec->r.j_sum));
    if (rec->r.bound)
        json_object_set_new(out, "sockets", sockets_json(rec));
}

bool audit_plugin_stopped(const audit_record *rec)
{
    /* spank_plugin/stencil_map.c: a failed plan is recorded with no step
     * id and nothing placed; a refused launch (task count) with the step's
     * id; srun's own exit before the step existed, with no id after a
     * plan or a fallback */
    return !rec->r.launched && (rec->r.kind == SMR_KIND_NOTHING || rec->r.step_id >= 0);
}

/* launched, error and the plugin's timings; the status of a step that
 * never launched:
 *   "failed"        the plugin stopped it: its plan or allocation check
 *                   failed (on_error=fail; algorithm_used null), or the
 *                   step's task count disagreed with the plan (a step id,
 *                   but not launched);
 *   "not launched"  srun exited on its own before the step existed (a
 *                   plan was made or fell back; no step id): srun's own
 *                   error, which the record does not hold, not the plugin's. */
static void check_launch_record(const audit_record *rec, audit_result *res)
{
    json_object_set_new(res->j, "launched", json_boolean(rec->r.launched));
    json_object_set_new(res->j, "error", rec->r.error[0] ? json_string(rec->r.error)
                                                           : json_null());
    if (rec->r.plugin_ms >= 0 || rec->r.plugin_cpu_ms >= 0 || rec->r.alloc_check_ms >= 0) {
        json_t *t = json_object();
        if (rec->r.plugin_ms >= 0)
            json_object_set_new(t, "plugin_ms", json_real(rec->r.plugin_ms));
        if (rec->r.plugin_cpu_ms >= 0)
            json_object_set_new(t, "plugin_cpu_ms", json_real(rec->r.plugin_cpu_ms));
        if (rec->r.alloc_check_ms >= 0)
            json_object_set_new(t, "alloc_check_ms", json_real(rec->r.alloc_check_ms));
        json_object_set_new(res->j, "timing", t);
    }
    if (rec->r.kind == SMR_KIND_FALLBACK && strcmp(rec->r.alg_used, "blocked"))
        audit_problem(res, AUDIT_ST_INCONSISTENT, "the record fell back to blocked, but algorithm_used is '%s'",
                rec->r.alg_used[0] ? rec->r.alg_used : "null");
    if (rec->r.launched) {
        if (rec->r.kind == SMR_KIND_NOTHING)
            audit_problem(res, AUDIT_ST_INCONSISTENT, "launched is true, but nothing was placed "
                    "(algorithm_used null) and it did not fall back");
        /* the reorder library runs under any launcher: mpirun has no step */
        if (rec->r.step_id < 0 && !rec->r.origin.source[0])
            audit_problem(res, AUDIT_ST_INCONSISTENT, "launched is true, but step_id is null");
        return;
    }
    if (!rec->r.error[0])
        audit_problem(res, AUDIT_ST_INCONSISTENT, "launched is false, but error is null: the record does not "
                "say why");
    const char *why = rec->r.error[0] ? rec->r.error : "reason not recorded";
    if (audit_plugin_stopped(rec))
        audit_problem(res, AUDIT_ST_FAILED, "not launched: the plugin stopped the step: %s", why);
    else if (res->status == AUDIT_ST_OK || res->status == AUDIT_ST_FALLBACK)
        res->status = AUDIT_ST_NOT_LAUNCHED;
}

/* what the record says and whether it agrees with itself */
static void check_record(const audit_record *rec, const audit_options *opt, audit_result *res)
{
    set_common(res->j, rec);
    check_names(rec, res, opt->in_record_dir);
    json_object_set_new(res->j, "placed", json_boolean(rec->placed));
    json_object_set_new(res->j, "fallback", rec->r.kind == SMR_KIND_FALLBACK
                                                ? json_string(rec->r.fallback)
                                                : json_null());
    if (rec->r.kind == SMR_KIND_FALLBACK && res->status == AUDIT_ST_OK)
        res->status = AUDIT_ST_FALLBACK;
    check_launch_record(rec, res);
    if (rec->placed) {
        set_placed(res->j, rec);
        if (check_shape(rec, res)) {
            check_figures(rec, res);
            audit_check_levels(rec, opt->launched, res);
        }
        audit_check_origin(rec, res);
    }
}

static json_t *id_or_null(int64_t id)
{
    return id >= 0 ? json_integer(id) : json_null();
}

audit_result audit_check_record(const char *path, const audit_options *opt, audit_record *rec)
{
    audit_result res = {AUDIT_ST_OK, json_pack("{s:s,s:s,s:[]}", "record", path, "status", "ok",
                                               "problems")};
    int unreadable = audit_record_read(path, rec);
    json_object_set_new(res.j, "job_id", unreadable ? id_or_null(rec->r.job_id)
                                                    : json_integer(rec->r.job_id));
    json_object_set_new(res.j, "step_id", id_or_null(rec->r.step_id));
    if (unreadable) {
        audit_problem(&res, AUDIT_ST_UNREADABLE, "%s", rec->error);
    } else {
        check_record(rec, opt, &res);
        json_t *checks = json_array(), *unchecked = json_array();
        check_verify(rec, &res, checks, unchecked);
        audit_check_launch(rec, opt, &res, checks, unchecked);
    }
    audit_result_finish(&res);
    return res;
}

/* What Slurm still knows of a step (or job) without a record. */
static json_t *slurm_of_unplaced(int64_t job, int64_t step)
{
    audit_slurm sl;
    audit_slurm_query(job, step, &sl);
    json_t *s = json_pack("{s:b,s:O}", "known", sl.known, "notes", sl.notes);
    if (sl.known) {
        json_object_set_new(s, "source", json_string(sl.source));
        json_object_set_new(s, "level", json_string(sl.step_level ? "step nodes" : "job allocation"));
        json_object_set_new(s, "nodelist", json_string(sl.nodelist));
        if (sl.tasks >= 0)
            json_object_set_new(s, "tasks", json_integer(sl.tasks));
        if (sl.state[0])
            json_object_set_new(s, "state", json_string(sl.state));
    }
    audit_slurm_free(&sl);
    return s;
}

audit_result audit_not_placed(int64_t job, int64_t step, const char *dir, const audit_options *opt)
{
    audit_result res = {AUDIT_ST_NOT_PLACED,
                        json_pack("{s:I,s:o,s:n,s:s,s:[]}", "job_id", (json_int_t)job, "step_id",
                                  id_or_null(step), "record", "status", "not placed", "problems")};
    char buf[4400];
    if (step >= 0)
        snprintf(buf, sizeof(buf),
                 "no record of step %lld.%lld in %.4000s: the step ran without stencil placement "
                 "(--stencil-map=none, no spec and no site default), or its record is gone",
                 (long long)job, (long long)step, dir);
    else
        snprintf(buf, sizeof(buf), "no record of any step of job %lld in %.4000s", (long long)job,
                 dir);
    json_array_append_new(json_object_get(res.j, "problems"), json_string(buf));
    if (opt->query_slurm)
        json_object_set_new(res.j, "slurm", slurm_of_unplaced(job, step));
    return res;
}
