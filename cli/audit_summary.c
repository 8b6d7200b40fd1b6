/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map audit --summary: what the placement did for a site, over a
 * record directory: steps placed, by algorithm, inter-node edges saved
 * against Slurm's block layout, in-job results, fallbacks and failures.
 * Each record counts once: placed (launched with its plan), fallback
 * (launched blocked), failed (the plugin stopped it before launch) or not
 * launched (srun exited first); only launched placements count as placed
 * and in the edges saved.  Opt-outs (--stencil-map=none, no spec) leave
 * no record and cannot be counted here.  Slurm is not asked (a site's
 * history is long gone from slurmctld). */
#include <string.h>

#include "audit_output.h"
#include "cli.h"

struct totals {
    long long steps, placed, fallbacks, failed, not_launched, jsum, bsum, v_agree, v_disagree,
        v_error, v_none;
    long long by_alg[SMP_ALG_COUNT + 1];
    json_t *fallbacks_list, *failed_list, *not_launched_list, *unreadable, *inconsistent, *jobs,
        *users;
};

static void count_record(struct totals *t, const char *path, const audit_result *res,
                         const audit_record *rec)
{
    json_t *r = res->j;
    t->steps++;
    if (res->status == AUDIT_ST_UNREADABLE || res->status == AUDIT_ST_INCONSISTENT)
        json_array_append_new(res->status == AUDIT_ST_UNREADABLE ? t->unreadable : t->inconsistent,
                              json_pack("{s:s,s:O}", "record", path, "problems",
                                        json_object_get(r, "problems")));
    if (!json_is_string(json_object_get(r, "user")))
        return; /* not even the ids could be read */
    char key[64];
    snprintf(key, sizeof(key), "%lld", (long long)rec->r.job_id);
    json_object_set_new(t->jobs, key, json_true());
    json_object_set_new(t->users, rec->r.user, json_true());
    const char *err = rec->r.error[0] ? rec->r.error : "reason not recorded";
    if (!rec->r.launched) {
        bool failed = audit_plugin_stopped(rec);
        if (failed)
            t->failed++;
        else
            t->not_launched++;
        json_array_append_new(failed ? t->failed_list : t->not_launched_list,
                              json_pack("{s:s,s:s}", "record", path, "error", err));
        return;
    }
    if (rec->r.kind != SMR_KIND_PLACED) {
        /* a launched record without a plan is a fallback, or inconsistent
         * (listed above) */
        if (rec->r.kind == SMR_KIND_FALLBACK) {
            t->fallbacks++;
            json_array_append_new(t->fallbacks_list,
                                  json_pack("{s:s,s:s}", "record", path, "reason", rec->r.fallback));
        }
        return;
    }
    t->placed++;
    smp_algorithm a;
    t->by_alg[smp_algorithm_from_name(rec->r.alg_used, &a) ? (int)a : SMP_ALG_COUNT]++;
    /* the figures the consistency check re-derived, when it could */
    json_t *rs = json_object_get(r, "rescored");
    json_t *rb = json_object_get(rs, "blocked");
    t->jsum += rs ? json_integer_value(json_object_get(rs, "j_sum")) : rec->r.j_sum;
    t->bsum += rb ? json_integer_value(json_object_get(rb, "j_sum")) : rec->r.blocked_j_sum;
    const smr_verify *v = &rec->verify.v;
    if (!rec->verify.present)
        t->v_none++;
    else if (!rec->verify.readable || v->status == SMR_VERIFY_ERROR)
        t->v_error++;
    else if (v->status == SMR_VERIFY_OK && v->observed_j_sum == rec->r.j_sum &&
             v->observed_j_max == rec->r.j_max)
        t->v_agree++;
    else
        t->v_disagree++;
}

static json_t *alg_object(const struct totals *t)
{
    json_t *o = json_object();
    for (int a = 0; a <= SMP_ALG_COUNT; a++)
        if (t->by_alg[a])
            json_object_set_new(o, a < SMP_ALG_COUNT ? smp_algorithm_name((smp_algorithm)a) : "other",
                                json_integer(t->by_alg[a]));
    return o;
}

static void print_text(const struct totals *t, const audit_found *found, const char *dir)
{
    printf("record directory %s: %lld steps of %zu jobs, %zu users\n", dir, t->steps,
           json_object_size(t->jobs), json_object_size(t->users));
    if (found->skipped_dirs)
        printf("  NOT COUNTED: %d user directories could not be read (%s); run as root to see all\n",
               found->skipped_dirs, found->skipped_example);
    printf("placed:      %lld steps", t->placed);
    const char *sep = " (";
    for (int a = 0; a <= SMP_ALG_COUNT; a++)
        if (t->by_alg[a]) {
            printf("%s%s %lld", sep, a < SMP_ALG_COUNT ? smp_algorithm_name((smp_algorithm)a) : "other",
                   t->by_alg[a]);
            sep = ", ";
        }
    printf("%s\n", t->placed ? ")" : "");
    printf("inter-node edges: %lld placed vs %lld blocked: %lld saved", t->jsum, t->bsum,
           t->bsum - t->jsum);
    if (t->bsum > 0)
        printf(" (%.1f%%)", 100.0 * (double)(t->bsum - t->jsum) / (double)t->bsum);
    putchar('\n');
    printf("in-job results: %lld agree, %lld disagree, %lld failed or unreadable, %lld steps "
           "without one\n",
           t->v_agree, t->v_disagree, t->v_error, t->v_none);
    printf("fallbacks to blocked: %lld\n", t->fallbacks);
    size_t i;
    json_t *x;
    json_array_foreach(t->fallbacks_list, i, x)
        printf("  %s: %s\n", json_string_value(json_object_get(x, "record")),
               json_string_value(json_object_get(x, "reason")));
    printf("failed before launch: %lld (the plugin stopped the step)\n", t->failed);
    json_array_foreach(t->failed_list, i, x)
        printf("  %s: %s\n", json_string_value(json_object_get(x, "record")),
               json_string_value(json_object_get(x, "error")));
    printf("not launched: %lld (srun exited before the step was created)\n", t->not_launched);
    json_array_foreach(t->not_launched_list, i, x)
        printf("  %s: %s\n", json_string_value(json_object_get(x, "record")),
               json_string_value(json_object_get(x, "error")));
    printf("opt-outs (--stencil-map=none, no spec): not counted, the plugin leaves no record\n");
    printf("bad records: %zu unreadable, %zu inconsistent\n", json_array_size(t->unreadable),
           json_array_size(t->inconsistent));
    for (int w = 0; w < 2; w++)
        json_array_foreach(w ? t->inconsistent : t->unreadable, i, x)
        {
            size_t k;
            json_t *p;
            json_array_foreach(json_object_get(x, "problems"), k, p)
                printf("  %s: %s\n", json_string_value(json_object_get(x, "record")),
                       json_string_value(p));
        }
}

int audit_summary(const audit_found *found, const char *dir, bool json)
{
    struct totals t;
    memset(&t, 0, sizeof(t));
    t.fallbacks_list = json_array();
    t.failed_list = json_array();
    t.not_launched_list = json_array();
    t.unreadable = json_array();
    t.inconsistent = json_array();
    t.jobs = json_object();
    t.users = json_object();
    audit_options opt = {.in_record_dir = true, .query_slurm = false, .launched = NULL};
    int rc = AUDIT_OK;
    for (int i = 0; i < found->count; i++) {
        audit_record rec;
        audit_result r = audit_check_record(found->paths[i], &opt, &rec);
        /* failed steps are the site's history, counted; only records that
         * cannot be trusted make the summary fail */
        int e = audit_status_exit(r.status);
        rc = audit_worse(rc, e == AUDIT_FAILED ? AUDIT_OK : e);
        count_record(&t, found->paths[i], &r, &rec);
        json_decref(r.j);
        audit_record_free(&rec);
    }
    if (json) {
        json_t *j = json_pack(
            "{s:s,s:I,s:I,s:I,s:i,s:I,s:o,s:{s:I,s:I,s:I},s:{s:I,s:I,s:I,s:I},s:I,s:O,s:I,s:O,s:I,"
            "s:O,s:O,s:O,s:i}",
            "record_dir", dir, "steps", (json_int_t)t.steps, "jobs",
            (json_int_t)json_object_size(t.jobs), "users", (json_int_t)json_object_size(t.users),
            "unreadable_user_dirs", found->skipped_dirs, "placed", (json_int_t)t.placed,
            "by_algorithm", alg_object(&t), "inter_node_edges", "placed", (json_int_t)t.jsum,
            "blocked", (json_int_t)t.bsum, "saved", (json_int_t)(t.bsum - t.jsum), "in_job",
            "agree", (json_int_t)t.v_agree, "disagree", (json_int_t)t.v_disagree, "failed",
            (json_int_t)t.v_error, "none", (json_int_t)t.v_none, "fallbacks",
            (json_int_t)t.fallbacks, "fallback_reasons", t.fallbacks_list, "failed",
            (json_int_t)t.failed, "failures", t.failed_list, "not_launched",
            (json_int_t)t.not_launched, "not_launched_reasons", t.not_launched_list, "unreadable",
            t.unreadable, "inconsistent", t.inconsistent, "exit", rc);
        cli_json_print(j, JSON_INDENT(2));
    } else {
        print_text(&t, found, dir);
    }
    json_decref(t.fallbacks_list);
    json_decref(t.failed_list);
    json_decref(t.not_launched_list);
    json_decref(t.unreadable);
    json_decref(t.inconsistent);
    json_decref(t.jobs);
    json_decref(t.users);
    return rc;
}
