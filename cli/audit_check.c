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

static const char *status_of(json_t *res)
{
    return json_string_value(json_object_get(res, "status"));
}

static void problem(json_t *res, const char *status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem(json_t *res, const char *status, const char *fmt, ...)
{
    char buf[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(json_object_get(res, "problems"), json_string(buf));
    if (audit_worse(audit_status_exit(status_of(res)), audit_status_exit(status)) !=
        audit_status_exit(status_of(res)))
        json_object_set_new(res, "status", json_string(status));
}

int audit_status_exit(const char *status)
{
    if (!strcmp(status, "unreadable"))
        return AUDIT_UNREADABLE;
    if (!strcmp(status, "inconsistent"))
        return AUDIT_INCONSISTENT;
    if (!strcmp(status, "not placed"))
        return AUDIT_MISSING;
    if (!strcmp(status, "failed"))
        return AUDIT_FAILED;
    return AUDIT_OK; /* ok, fallback, not launched */
}

int audit_worse(int a, int b)
{
    /* severity by exit code: ok 0, missing 1, failed 2, inconsistent 3,
     * unreadable 4, usage 5 */
    static const int severity[] = {0, 3, 5, 1, 4, 2};
    return severity[b] > severity[a] ? b : a;
}

static json_t *pair(int64_t a, int64_t b)
{
    return json_pack("{s:I,s:I}", "j_sum", (json_int_t)a, "j_max", (json_int_t)b);
}

static json_t *check(const char *source, const char *level, bool ok, const char *detail)
{
    return json_pack("{s:s,s:s,s:s,s:s}", "source", source, "level", level, "result",
                     ok ? "matches" : "differs", "detail", detail);
}

/* the file name <job>.<step>[.k].json, or <job>.nostep-<pid>[.k].json for
 * a step without an id, and the directory <user> */
static void check_names(const audit_record *rec, json_t *res, bool in_record_dir)
{
    const char *slash = strrchr(rec->path, '/');
    const char *base = slash ? slash + 1 : rec->path;
    int64_t job, step;
    if (!smr_record_name_parse(base, &job, &step)) {
        /* a file named otherwise (--record FILE): nothing to compare */
    } else if (step == SMR_NO_STEP) {
        if (job != rec->r.job_id || rec->r.step_id >= 0)
            problem(res, "inconsistent", "the file name says job %lld without a step id, the record "
                    "%lld.%lld", (long long)job, (long long)rec->r.job_id, (long long)rec->r.step_id);
    } else if (job != rec->r.job_id || step != rec->r.step_id) {
        if (rec->r.step_id < 0)
            problem(res, "inconsistent", "the file name says step %lld.%lld, the record job %lld "
                    "without a step id", (long long)job, (long long)step, (long long)rec->r.job_id);
        else
            problem(res, "inconsistent", "the file name says step %lld.%lld, the record %lld.%lld",
                    (long long)job, (long long)step, (long long)rec->r.job_id,
                    (long long)rec->r.step_id);
    }
    if (in_record_dir && slash) {
        const char *d = slash;
        while (d > rec->path && d[-1] != '/')
            d--;
        size_t dl = (size_t)(slash - d);
        if (strlen(rec->r.user) != dl || strncmp(d, rec->r.user, dl))
            problem(res, "inconsistent", "the record of user '%s' lies in the directory of '%.*s'",
                    rec->r.user, (int)dl, d);
    }
}

/* ranks, grid, placement and capacities; false when the placement cannot
 * be scored */
static bool check_shape(const audit_record *rec, json_t *res)
{
    bool ok = true;
    if (rec->r.stencil.ndims != rec->r.grid.ndims) {
        problem(res, "inconsistent", "stencil.offsets are %d-dimensional, the grid %d-dimensional",
                rec->r.stencil.ndims, rec->r.grid.ndims);
        ok = false;
    }
    if (rec->r.grid.size != rec->r.ranks) {
        problem(res, "inconsistent", "ranks is %lld, but the grid holds %lld", (long long)rec->r.ranks,
                (long long)rec->r.grid.size);
        ok = false;
    }
    if (rec->r.placement_count != rec->r.ranks) {
        problem(res, "inconsistent", "placement has %lld entries, ranks is %lld",
                (long long)rec->r.placement_count, (long long)rec->r.ranks);
        ok = false;
    }
    int64_t *used = calloc((size_t)rec->r.nodes.count + 1, sizeof(int64_t));
    if (!used) {
        problem(res, "unreadable", "out of memory");
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
        problem(res, "inconsistent", "placement[%lld] ('%s') and %lld more name no node of the record",
                (long long)first,
                smr_record_node_of(&rec->r, first),
                (long long)(unknown - 1));
        ok = false;
    }
    for (int i = 0; i < rec->r.nodes.count; i++)
        if (used[i] > rec->r.nodes.slots[i]) {
            problem(res, "inconsistent", "placement puts %lld ranks on %s, which has %d slots",
                    (long long)used[i], rec->r.nodes.names[i], rec->r.nodes.slots[i]);
            ok = false;
        }
    free(used);
    return ok;
}

/* J figures from the placement itself, and the blocked layout re-planned */
static void check_figures(const audit_record *rec, json_t *res)
{
    smp_error err;
    smp_score sc;
    smp_error_clear(&err);
    if (smp_score_compute(&rec->r.grid, &rec->r.stencil, rec->r.node_of_rank, rec->r.nodes.count, &sc,
                          &err)) {
        problem(res, "inconsistent", "the placement cannot be scored: %s", err.msg);
        return;
    }
    json_t *rs = pair(sc.j_sum, sc.j_max);
    json_object_set_new(res, "rescored", rs);
    if (sc.j_sum != rec->r.j_sum)
        problem(res, "inconsistent", "j_sum is %lld in the record, %lld from its placement",
                (long long)rec->r.j_sum, (long long)sc.j_sum);
    if (sc.j_max != rec->r.j_max)
        problem(res, "inconsistent", "j_max is %lld in the record, %lld from its placement",
                (long long)rec->r.j_max, (long long)sc.j_max);
    /* the plugin keeps the naive split where its own would cut more */
    if (rec->r.bound && (rec->r.socket_j_sum > rec->r.naive_socket_j_sum ||
                       rec->r.socket_j_max > rec->r.socket_j_sum))
        problem(res, "inconsistent",
                "j_socket_sum %lld, j_socket_max %lld: worse than the naive split's %lld, or a "
                "maximum above the total",
                (long long)rec->r.socket_j_sum, (long long)rec->r.socket_j_max,
                (long long)rec->r.naive_socket_j_sum);
    smp_placement bl = {0};
    if (smp_plan(&rec->r.grid, &rec->r.stencil, rec->r.nodes.slots, rec->r.nodes.count, SMP_ALG_BLOCKED,
                 &bl, &err)) {
        problem(res, "inconsistent", "the blocked layout cannot be re-planned: %s", err.msg);
        return;
    }
    json_object_set_new(rs, "blocked", pair(bl.score.j_sum, bl.score.j_max));
    if (smp_stencil_weighted(&rec->r.stencil)) /* what auto minimised: the weighted figures */
        json_object_set_new(res, "weighted",
                            json_pack("{s:f,s:f,s:{s:f,s:f}}", "j_sum", sc.w_sum, "j_max", sc.w_max,
                                      "blocked", "j_sum", bl.score.w_sum, "j_max", bl.score.w_max));
    if (bl.score.j_sum != rec->r.blocked_j_sum)
        problem(res, "inconsistent", "blocked_j_sum is %lld in the record, %lld re-planned",
                (long long)rec->r.blocked_j_sum, (long long)bl.score.j_sum);
    if (bl.score.j_max != rec->r.blocked_j_max)
        problem(res, "inconsistent", "blocked_j_max is %lld in the record, %lld re-planned",
                (long long)rec->r.blocked_j_max, (long long)bl.score.j_max);
    smp_placement_free(&bl);
}

/* per-rank nodes from some source against the record's placement */
static json_t *rank_check(const audit_record *rec, char **observed, int64_t count,
                          const char *source, json_t *res)
{
    char d[700];
    if (count != rec->r.placement_count) {
        snprintf(d, sizeof(d), "%lld ranks ran, %lld were planned", (long long)count,
                 (long long)rec->r.placement_count);
        problem(res, "inconsistent", "launch differs (%s): %s", source, d);
        return check(source, "per rank", false, d);
    }
    int64_t wrong = 0, first = -1;
    for (int64_t r = 0; r < count; r++)
        if (strcmp(observed[r], smr_record_node_of(&rec->r, r)) && !wrong++)
            first = r;
    if (wrong) {
        snprintf(d, sizeof(d),
                 "%lld of %lld ranks ran elsewhere than planned (first: rank %lld on %.200s, "
                 "planned %.200s)",
                 (long long)wrong, (long long)count, (long long)first, observed[first],
                 smr_record_node_of(&rec->r, first));
        problem(res, "inconsistent", "launch differs (%s): %s", source, d);
    } else {
        snprintf(d, sizeof(d), "all %lld ranks ran on their planned node", (long long)count);
    }
    return check(source, "per rank", !wrong, d);
}

/* Slurm's node list (of the step, or only of the job) against the nodes
 * the placement uses */
static json_t *slurm_check(const audit_record *rec, const audit_slurm *sl, json_t *res)
{
    bool *used = calloc((size_t)rec->r.nodes.count + 1, sizeof(bool));
    int nused = 0, missing = 0;
    const char *miss = NULL;
    for (int64_t r = 0; used && r < rec->r.placement_count; r++)
        if (rec->r.node_of_rank[r] >= 0 && !used[rec->r.node_of_rank[r]]) {
            used[rec->r.node_of_rank[r]] = true;
            nused++;
        }
    for (int i = 0; used && i < rec->r.nodes.count; i++) {
        bool in = false;
        for (int k = 0; k < sl->nnodes && !in; k++)
            in = !strcmp(sl->nodes[k], rec->r.nodes.names[i]);
        if (used[i] && !in && !missing++)
            miss = rec->r.nodes.names[i];
    }
    free(used);
    char d[1400];
    bool ok = false;
    if (missing)
        snprintf(d, sizeof(d), "%d planned node(s), e.g. %.200s, not in Slurm's %s node list %.800s",
                 missing, miss, sl->step_level ? "step" : "job", sl->nodelist);
    else if (sl->step_level && sl->nnodes != nused)
        snprintf(d, sizeof(d), "the step ran on %d nodes (%.800s), the plan uses %d", sl->nnodes,
                 sl->nodelist, nused);
    else if (sl->step_level && sl->tasks >= 0 && sl->tasks != rec->r.ranks)
        snprintf(d, sizeof(d), "the step has %lld tasks, the plan %lld ranks",
                 (long long)sl->tasks, (long long)rec->r.ranks);
    else {
        ok = true;
        if (sl->step_level)
            snprintf(d, sizeof(d), "the step's nodes %.800s%s are the plan's %d nodes",
                     sl->nodelist, sl->tasks >= 0 ? " and its task count" : "", nused);
        else
            snprintf(d, sizeof(d),
                     "the plan's %d nodes lie in the job's allocation %.800s (the step's own node "
                     "list is gone: it ended)",
                     nused, sl->nodelist);
    }
    if (!ok)
        problem(res, "inconsistent", "launch differs (%s): %s", sl->source, d);
    json_t *c = check(sl->source, sl->step_level ? "per node, the step's" : "the job's allocation only", ok, d);
    if (sl->state[0])
        json_object_set_new(c, "state", json_string(sl->state));
    return c;
}

/* --launched FILE: line r = node of rank r, or "r: node" lines in any
 * order as `srun --label hostname` prints them */
static int read_launched(const char *path, char ***out, int64_t *count, char *msg, size_t mn)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(msg, mn, "--launched %.600s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int64_t n = 0, cap = 0, maxr = -1, lineno = 0;
    char **v = NULL;
    int rc = 0;
    while (!rc && fgets(line, sizeof(line), f)) {
        lineno++;
        char name[512];
        long long r;
        bool labelled = sscanf(line, " %lld: %511s", &r, name) == 2;
        if (!labelled && sscanf(line, " %511s", name) != 1)
            continue;
        if (!labelled)
            r = n;
        if (r < 0 || r >= SMP_MAX_RANKS) {
            snprintf(msg, mn, "--launched %.600s:%lld: rank %lld out of range", path,
                     (long long)lineno, r);
            rc = -1;
            break;
        }
        if (r >= cap) {
            int64_t nc = cap ? cap : 64;
            while (nc <= r)
                nc *= 2;
            char **nv = realloc(v, sizeof(char *) * (size_t)nc);
            if (!nv) {
                snprintf(msg, mn, "out of memory");
                rc = -1;
                break;
            }
            memset(nv + cap, 0, sizeof(char *) * (size_t)(nc - cap));
            v = nv;
            cap = nc;
        }
        if (v[r]) {
            snprintf(msg, mn, "--launched %.600s:%lld: rank %lld given twice", path,
                     (long long)lineno, r);
            rc = -1;
            break;
        }
        if (!(v[r] = strdup(name))) {
            snprintf(msg, mn, "out of memory");
            rc = -1;
        }
        n++;
        if (r > maxr)
            maxr = r;
    }
    fclose(f);
    for (int64_t i = 0; !rc && i <= maxr; i++)
        if (!v[i]) {
            snprintf(msg, mn, "--launched %.600s: no line for rank %lld", path, (long long)i);
            rc = -1;
        }
    if (!rc && maxr < 0) {
        snprintf(msg, mn, "--launched %.600s: no ranks in it", path);
        rc = -1;
    }
    if (rc) {
        for (int64_t i = 0; i < cap; i++)
            free(v[i]);
        free(v);
        return -1;
    }
    *out = v;
    *count = maxr + 1;
    return 0;
}

static void free_names(char **v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* the figures the job observed (and was told) against the record's */
static void check_figures_verified(const audit_record *rec, json_t *vj, json_t *res)
{
    const smr_verify *v = &rec->verify.v;
    if (v->ranks != rec->r.ranks)
        problem(res, "inconsistent", "the job had %lld ranks, the record %lld", (long long)v->ranks,
                (long long)rec->r.ranks);
    if (v->has_planned && (v->planned_j_sum != rec->r.j_sum || v->planned_j_max != rec->r.j_max))
        problem(res, "inconsistent",
                "the job was told J_sum %lld, J_max %lld; the record says %lld, %lld",
                (long long)v->planned_j_sum, (long long)v->planned_j_max, (long long)rec->r.j_sum,
                (long long)rec->r.j_max);
    bool agrees = v->observed_j_sum == rec->r.j_sum && v->observed_j_max == rec->r.j_max;
    json_object_set_new(vj, "agrees_with_record", json_boolean(agrees));
    if (!agrees)
        problem(res, "inconsistent",
                "the job observed J_sum %lld, J_max %lld; the record planned %lld, %lld",
                (long long)v->observed_j_sum, (long long)v->observed_j_max, (long long)rec->r.j_sum,
                (long long)rec->r.j_max);
}

/* the in-job verification against the record */
static void check_verify(const audit_record *rec, json_t *res, json_t *checks, json_t *unchecked)
{
    const audit_verify *av = &rec->verify;
    const smr_verify *v = &av->v;
    if (!av->present) {
        json_object_set_new(res, "verify", json_null());
        if (rec->r.launched) /* else no step ran that could have written one */
            json_array_append_new(unchecked,
                              json_string("in-job result: none (no stencil-map-verify step wrote "
                                          "<record>.verify.json)"));
        return;
    }
    if (!av->readable) {
        json_object_set_new(res, "verify", json_pack("{s:s,s:s}", "path", av->path, "error", av->error));
        problem(res, "unreadable", "in-job result %s: %s", av->path, av->error);
        return;
    }
    json_t *vj = json_pack("{s:s,s:s,s:s}", "path", av->path, "status",
                           smr_verify_status_name(v->status), "message", v->message);
    json_object_set_new(vj, "planned", v->has_planned ? pair(v->planned_j_sum, v->planned_j_max)
                                                      : json_null());
    json_object_set_new(vj, "observed", v->has_observed
                                            ? pair(v->observed_j_sum, v->observed_j_max)
                                            : json_null());
    json_object_set_new(res, "verify", vj);
    if (!rec->r.launched)
        problem(res, "inconsistent", "an in-job result exists, but the record says the step was "
                "never launched");
    if ((v->job_id >= 0 && v->job_id != rec->r.job_id) ||
        (v->step_id >= 0 && v->step_id != rec->r.step_id))
        problem(res, "inconsistent", "the in-job result is of step %lld.%lld, the record of %lld.%lld",
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
        json_array_append_new(checks, rank_check(rec, v->rank_nodes, v->rank_nodes_count,
                                                 "in-job result (PMIx)", res));
}

static void set_common(json_t *res, const audit_record *rec)
{
    json_object_set_new(res, "user", json_string(rec->r.user));
    json_object_set_new(res, "time", json_string(rec->r.time));
    json_object_set_new(res, "spec", rec->r.spec[0] ? json_string(rec->r.spec) : json_null());
    json_object_set_new(res, "spec_source",
                        rec->r.spec_source[0] ? json_string(rec->r.spec_source) : json_null());
    json_object_set_new(
        res, "algorithm",
        json_pack("{s:s?,s:s?,s:s?}", "requested", rec->r.alg_requested[0] ? rec->r.alg_requested : NULL,
                  "override", rec->r.alg_override[0] ? rec->r.alg_override : NULL, "used",
                  rec->r.alg_used[0] ? rec->r.alg_used : NULL));
    json_t *nodes = json_array(), *slots = json_array();
    for (int i = 0; i < rec->r.nodes.count; i++) {
        json_array_append_new(nodes, json_string(rec->r.nodes.names[i]));
        json_array_append_new(slots, json_integer(rec->r.nodes.slots[i]));
    }
    json_object_set_new(res, "nodes", nodes);
    json_object_set_new(res, "slots", slots);
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
                     pair(rec->r.socket_j_sum, rec->r.socket_j_max), "naive",
                     pair(rec->r.naive_socket_j_sum, rec->r.naive_socket_j_max));
}

static void set_placed(json_t *res, const audit_record *rec)
{
    json_object_set_new(res, "ranks", json_integer(rec->r.ranks));
    json_object_set_new(res, "grid", grid_json(rec));
    json_object_set_new(res, "stencil",
                        json_pack("{s:s,s:i,s:b}", "name",
                                  rec->r.stencil.name[0] ? rec->r.stencil.name : "custom", "offsets",
                                  rec->r.stencil.count, "weighted",
                                  smp_stencil_weighted(&rec->r.stencil)));
    json_object_set_new(res, "planned", pair(rec->r.j_sum, rec->r.j_max));
    json_object_set_new(res, "blocked", pair(rec->r.blocked_j_sum, rec->r.blocked_j_max));
    json_object_set_new(res, "saved", json_integer(rec->r.blocked_j_sum - rec->r.j_sum));
    if (rec->r.bound)
        json_object_set_new(res, "sockets", sockets_json(rec));
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
static void check_launch_record(const audit_record *rec, json_t *res)
{
    json_object_set_new(res, "launched", json_boolean(rec->r.launched));
    json_object_set_new(res, "error", rec->r.error[0] ? json_string(rec->r.error)
                                                           : json_null());
    if (rec->r.plugin_ms >= 0 || rec->r.plugin_cpu_ms >= 0 || rec->r.alloc_check_ms >= 0) {
        json_t *t = json_object();
        if (rec->r.plugin_ms >= 0)
            json_object_set_new(t, "plugin_ms", json_real(rec->r.plugin_ms));
        if (rec->r.plugin_cpu_ms >= 0)
            json_object_set_new(t, "plugin_cpu_ms", json_real(rec->r.plugin_cpu_ms));
        if (rec->r.alloc_check_ms >= 0)
            json_object_set_new(t, "alloc_check_ms", json_real(rec->r.alloc_check_ms));
        json_object_set_new(res, "timing", t);
    }
    if (rec->r.kind == SMR_KIND_FALLBACK && strcmp(rec->r.alg_used, "blocked"))
        problem(res, "inconsistent", "the record fell back to blocked, but algorithm_used is '%s'",
                rec->r.alg_used[0] ? rec->r.alg_used : "null");
    if (rec->r.launched) {
        if (rec->r.kind == SMR_KIND_NOTHING)
            problem(res, "inconsistent", "launched is true, but nothing was placed "
                    "(algorithm_used null) and it did not fall back");
        if (rec->r.step_id < 0)
            problem(res, "inconsistent", "launched is true, but step_id is null");
        return;
    }
    if (!rec->r.error[0])
        problem(res, "inconsistent", "launched is false, but error is null: the record does not "
                "say why");
    const char *why = rec->r.error[0] ? rec->r.error : "reason not recorded";
    if (audit_plugin_stopped(rec))
        problem(res, "failed", "not launched: the plugin stopped the step: %s", why);
    else if (!strcmp(status_of(res), "ok") || !strcmp(status_of(res), "fallback"))
        json_object_set_new(res, "status", json_string("not launched"));
}

json_t *audit_check_record(const char *path, const audit_options *opt, audit_record *rec)
{
    json_t *res = json_pack("{s:s,s:s,s:[]}", "record", path, "status", "ok", "problems");
    if (audit_record_read(path, rec)) {
        json_object_set_new(res, "job_id", rec->r.job_id >= 0 ? json_integer(rec->r.job_id) : json_null());
        json_object_set_new(res, "step_id",
                            rec->r.step_id >= 0 ? json_integer(rec->r.step_id) : json_null());
        problem(res, "unreadable", "%s", rec->error);
        return res;
    }
    json_object_set_new(res, "job_id", json_integer(rec->r.job_id));
    json_object_set_new(res, "step_id", rec->r.step_id >= 0 ? json_integer(rec->r.step_id) : json_null());
    set_common(res, rec);
    check_names(rec, res, opt->in_record_dir);
    json_object_set_new(res, "placed", json_boolean(rec->placed));
    json_object_set_new(res, "fallback", rec->r.kind == SMR_KIND_FALLBACK ? json_string(rec->r.fallback)
                                                                          : json_null());
    if (rec->r.kind == SMR_KIND_FALLBACK && !strcmp(status_of(res), "ok"))
        json_object_set_new(res, "status", json_string("fallback"));
    check_launch_record(rec, res);
    if (rec->placed) {
        set_placed(res, rec);
        if (check_shape(rec, res))
            check_figures(rec, res);
    }

    json_t *checks = json_array(), *unchecked = json_array();
    check_verify(rec, res, checks, unchecked);
    if (!rec->r.launched) {
        /* nothing ran: no launch to compare, and Slurm knows no such step */
        json_array_append_new(unchecked, json_string("where the ranks ran: the step was never "
                                                     "launched"));
        if (opt->launched)
            json_array_append_new(unchecked, json_string("--launched FILE not compared: the step "
                                                         "was never launched"));
        json_object_set_new(res, "launch", json_pack("{s:s,s:o,s:o}", "result", "not launched",
                                                     "checks", checks, "not_checked", unchecked));
        return res;
    }
    if (rec->placed && opt->launched) {
        char **obs = NULL, msg[800];
        int64_t n = 0;
        if (read_launched(opt->launched, &obs, &n, msg, sizeof(msg))) {
            problem(res, "unreadable", "%s", msg);
        } else {
            char src[700];
            snprintf(src, sizeof(src), "--launched %.600s", opt->launched);
            json_array_append_new(checks, rank_check(rec, obs, n, src, res));
            free_names(obs, n);
        }
    }
    if (rec->placed && !opt->launched && !(rec->verify.readable && rec->verify.v.has_rank_nodes))
        json_array_append_new(unchecked, json_string("where each rank ran: no in-job result with "
                                                     "rank_nodes and no --launched FILE"));
    if (opt->query_slurm) {
        audit_slurm sl;
        audit_slurm_query(rec->r.job_id, rec->r.step_id, &sl);
        if (sl.known && sl.nnodes && rec->placed)
            json_array_append_new(checks, slurm_check(rec, &sl, res));
        /* what Slurm could not say matters only when no source answered
         * for the step itself */
        size_t k;
        json_t *x;
        if (!sl.step_level)
            json_array_foreach(sl.notes, k, x)
            {
                char buf[700];
                snprintf(buf, sizeof(buf), "the step's node list, %s", json_string_value(x));
                json_array_append_new(unchecked, json_string(buf));
            }
        audit_slurm_free(&sl);
    } else {
        json_array_append_new(unchecked, json_string("Slurm not asked (--no-slurm)"));
    }
    const char *lres = "not checked";
    size_t i;
    json_t *c;
    json_array_foreach(checks, i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "result")), "differs"))
            lres = "differs";
        else if (strcmp(lres, "differs"))
            lres = "matches";
    }
    json_object_set_new(res, "launch", json_pack("{s:s,s:o,s:o}", "result", lres, "checks",
                                                 checks, "not_checked", unchecked));
    return res;
}

json_t *audit_not_placed(int64_t job, int64_t step, const char *dir, const audit_options *opt)
{
    json_t *res = json_pack("{s:I,s:o,s:n,s:s,s:[]}", "job_id", (json_int_t)job, "step_id",
                            step >= 0 ? json_integer(step) : json_null(), "record", "status",
                            "not placed", "problems");
    char buf[4400];
    if (step >= 0)
        snprintf(buf, sizeof(buf),
                 "no record of step %lld.%lld in %.4000s: the step ran without stencil placement "
                 "(--stencil-map=none, no spec and no site default), or its record is gone",
                 (long long)job, (long long)step, dir);
    else
        snprintf(buf, sizeof(buf), "no record of any step of job %lld in %.4000s", (long long)job,
                 dir);
    json_array_append_new(json_object_get(res, "problems"), json_string(buf));
    if (opt->query_slurm) {
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
        json_object_set_new(res, "slurm", s);
        audit_slurm_free(&sl);
    }
    return res;
}
