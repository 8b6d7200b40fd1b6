/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The text form of one audited step, printed from the JSON result of
 * audit/audit_check.c so that text and --json never tell different stories. */
#include <string.h>

#include "audit_output.h"

#define LABEL "  %-11s "

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static long long num(json_t *o, const char *a, const char *b)
{
    json_t *x = json_object_get(o, a);
    return (long long)json_integer_value(b ? json_object_get(x, b) : x);
}

/* a list, shortened beyond a dozen entries */
static void print_list(FILE *out, json_t *arr)
{
    size_t n = json_array_size(arr);
    for (size_t i = 0; i < n; i++) {
        if (i == 12 && n > 14) {
            fprintf(out, ",... (%zu in all)", n);
            break;
        }
        json_t *x = json_array_get(arr, i);
        if (json_is_string(x))
            fprintf(out, "%s%s", i ? "," : "", json_string_value(x));
        else
            fprintf(out, "%s%lld", i ? "," : "", (long long)json_integer_value(x));
    }
}

/* where the plugin took the spec from (spank_plugin/step.c's names) */
static const char *source_words(const char *src)
{
    if (!strcmp(src, "option"))
        return "srun --stencil-map";
    if (!strcmp(src, "env"))
        return "the job's sbatch/salloc --stencil-map";
    if (!strcmp(src, "default"))
        return "the site's default=";
    if (!strcmp(src, "reorder"))
        return "the application's own call, planned inside it by libstencilmap-reorder";
    return src[0] ? src : "source not recorded";
}

static const char *headline(audit_status status)
{
    switch (status) {
    case AUDIT_ST_OK: return "placed, consistent";
    case AUDIT_ST_FALLBACK: return "NOT PLACED: fell back to Slurm's block distribution";
    case AUDIT_ST_FAILED: return "FAILED: not launched, the plugin stopped the step";
    case AUDIT_ST_NOT_LAUNCHED: return "NOT LAUNCHED: srun exited before the step was created";
    case AUDIT_ST_NOT_PLACED: return "NOT PLACED: no audit record";
    case AUDIT_ST_INCONSISTENT: return "INCONSISTENT";
    default: return "UNREADABLE";
    }
}

static void print_slurm_of_unplaced(FILE *out, json_t *sl)
{
    if (!sl)
        return;
    if (json_is_true(json_object_get(sl, "known"))) {
        fprintf(out, LABEL "Slurm knows it (%s): %s %s", "slurm", str(sl, "source"),
                str(sl, "level"), str(sl, "nodelist"));
        if (json_object_get(sl, "tasks"))
            fprintf(out, ", %lld tasks", num(sl, "tasks", NULL));
        if (json_object_get(sl, "state"))
            fprintf(out, ", %s", str(sl, "state"));
        fputc('\n', out);
    } else {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(sl, "notes"), i, x)
            fprintf(out, LABEL "%s\n", i ? "" : "slurm", json_string_value(x));
    }
}

static void print_figures(FILE *out, json_t *r)
{
    json_t *g = json_object_get(r, "grid"), *st = json_object_get(r, "stencil");
    json_t *dims = json_object_get(g, "dims"), *per = json_object_get(g, "periods");
    fprintf(out, LABEL, "grid");
    for (size_t i = 0; i < json_array_size(dims); i++)
        fprintf(out, "%s%lld%s", i ? "x" : "", (long long)json_integer_value(json_array_get(dims, i)),
                json_is_true(json_array_get(per, i)) ? " (periodic)" : "");
    if (!strcmp(str(g, "order"), "column-major"))
        fputs(" column-major", out);
    fprintf(out, ", %lld ranks, stencil %s (%lld offsets%s)\n", num(r, "ranks", NULL),
            str(st, "name"), num(st, "offsets", NULL),
            json_is_true(json_object_get(st, "weighted")) ? ", weighted" : "");
    long long js = num(r, "planned", "j_sum"), bs = num(r, "blocked", "j_sum");
    fprintf(out, LABEL "J_sum %lld, J_max %lld\n", "planned", js, num(r, "planned", "j_max"));
    fprintf(out, LABEL "J_sum %lld, J_max %lld", "blocked", bs, num(r, "blocked", "j_max"));
    if (bs > 0)
        fprintf(out, ": the placement cuts %lld fewer inter-node edges (%.0f%%)", bs - js,
                100.0 * (double)(bs - js) / (double)bs);
    fputc('\n', out);
    json_t *w = json_object_get(r, "weighted"), *wb = json_object_get(w, "blocked");
    if (w) /* the objective of a weighted stencil, from the recorded placement */
        fprintf(out, LABEL "J_sum %g, J_max %g; blocked %g, %g (the objective)\n", "weighted",
                json_number_value(json_object_get(w, "j_sum")),
                json_number_value(json_object_get(w, "j_max")),
                json_number_value(json_object_get(wb, "j_sum")),
                json_number_value(json_object_get(wb, "j_max")));
    json_t *so = json_object_get(r, "sockets");
    if (so)
        fprintf(out, LABEL "inter-socket J_sum %lld, J_max %lld; the naive split %lld, %lld\n",
                "sockets", num(so, "planned", "j_sum"), num(so, "planned", "j_max"),
                num(so, "naive", "j_sum"), num(so, "naive", "j_max"));
    json_t *rs = json_object_get(r, "rescored");
    if (rs) {
        json_t *b = json_object_get(rs, "blocked");
        fprintf(out, LABEL "J_sum %lld, J_max %lld", "re-scored", num(rs, "j_sum", NULL),
                num(rs, "j_max", NULL));
        if (b)
            fprintf(out, "; blocked %lld, %lld", num(b, "j_sum", NULL), num(b, "j_max", NULL));
        fputs(" (from the recorded placement)\n", out);
    }
}

/* a record the reorder library wrote inside the application: the call,
 * whether the plan's order was taken, both orders' figures */
static void print_origin(FILE *out, json_t *r)
{
    json_t *o = json_object_get(r, "origin");
    if (!json_is_object(o))
        return;
    fprintf(out, LABEL "%s, %s: %s; planned J_sum %lld, J_max %lld; MPI's order J_sum %lld, "
            "J_max %lld", "origin", str(o, "source"), str(o, "call"), str(o, "order"),
            num(o, "planned", "j_sum"), num(o, "planned", "j_max"), num(o, "mpi_order", "j_sum"),
            num(o, "mpi_order", "j_max"));
    if (json_is_string(json_object_get(o, "why")))
        fprintf(out, " (%s)", str(o, "why"));
    fputc('\n', out);
}

/* what the topology's reader repaired, one line each (the record's
 * "topology_warnings") */
static void print_repairs(FILE *out, json_t *r)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(r, "topology_warnings"), i, x)
        if (json_is_string(x))
            fprintf(out, LABEL "%s\n", i == 0 ? "repaired" : "", json_string_value(x));
}

/* a level's links as the topology gave them: "2 switches, 1-2 uplinks
 * each, LinkSpeed 100" */
static void print_links(FILE *out, json_t *level)
{
    json_t *k = json_object_get(level, "links");
    if (!json_is_object(k))
        return;
    long long u1 = num(k, "uplinks_min", NULL), u2 = num(k, "uplinks_max", NULL),
              s1 = num(k, "link_speed_min", NULL), s2 = num(k, "link_speed_max", NULL);
    fprintf(out, "; links: %lld groups of switches, uplinks ", num(k, "groups", NULL));
    fprintf(out, u1 == u2 ? "%lld" : "%lld-%lld", u1, u2);
    fprintf(out, s1 == s2 ? ", LinkSpeed %lld" : ", LinkSpeed %lld-%lld", s1, s2);
}

/* the busiest link as planned, re-scored from the recorded placement
 * with the recorded routing and uplinks, and from where the ranks ran
 * when the in-job result says (absent in older records) */
static void print_busiest(FILE *out, json_t *t)
{
    json_t *b = json_object_get(t, "busiest_link"), *p = json_object_get(b, "planned"),
           *rs = json_object_get(b, "rescored"), *ran = json_object_get(b, "ran");
    if (!json_is_object(p))
        return;
    fprintf(out, LABEL "busiest link %.6g (bound %.6g), %s routing", "",
            json_number_value(json_object_get(p, "l_max")),
            json_number_value(json_object_get(p, "bound")), str(b, "routing"));
    json_t *sp = json_object_get(b, "uplink_speed"), *v;
    size_t i;
    json_array_foreach(sp, i, v)
        fprintf(out, "%s%g", i ? "," : ", uplink speed ", json_number_value(v));
    if (!json_is_object(rs)) {
        fputs("; not re-scored (uplink counts varied within a level)\n", out);
        return;
    }
    fprintf(out, "; re-scored %.6g (bound %.6g) from the planned placement\n",
            json_number_value(json_object_get(rs, "l_max")),
            json_number_value(json_object_get(rs, "bound")));
    if (json_is_object(ran))
        fprintf(out, LABEL "busiest link %.6g (bound %.6g) where the ranks ran (%s)\n", "",
                json_number_value(json_object_get(ran, "l_max")),
                json_number_value(json_object_get(ran, "bound")), str(ran, "source"));
    else if (json_is_string(json_object_get(b, "ran_unknown")))
        fprintf(out, LABEL "busiest link where the ranks ran: not known (%s), so re-scored from "
                "the planned placement only\n", "", str(b, "ran_unknown"));
}

/* the network levels the step was planned on (absent: none) */
static void print_levels(FILE *out, json_t *r)
{
    json_t *t = json_object_get(r, "topology"), *lv = json_object_get(t, "levels");
    if (!t) {
        if (json_is_string(json_object_get(r, "topology_source")))
            fprintf(out, LABEL "%s: no level above the nodes\n", "topology",
                    str(r, "topology_source"));
        print_repairs(out, r);
        return;
    }
    size_t n = json_array_size(lv), l;
    json_t *x;
    /* Slurm's source names its plugin already: "slurm (topology/tree)" */
    bool named = strstr(str(t, "source"), str(t, "kind")) != NULL;
    /* the mode when the site chose one (best, the default, says nothing) */
    const char *mode = json_is_string(json_object_get(t, "mode")) ? str(t, "mode") : "best";
    fprintf(out, LABEL "%s%s%s%s: %zu level%s above the nodes%s%s\n", "topology",
            str(t, "source"), named ? "" : " (", named ? "" : str(t, "kind"), named ? "" : ")", n,
            n == 1 ? "" : "s", strcmp(mode, "best") ? ", planned " : "",
            strcmp(mode, "best") ? mode : "");
    json_array_foreach(lv, l, x) {
        json_t *rs = json_object_get(x, "rescored");
        fprintf(out, LABEL "level %zu, %lld groups: J_sum %lld, J_max %lld; blocked %lld, %lld", "",
                l, num(x, "groups", NULL), num(x, "planned", "j_sum"),
                num(x, "planned", "j_max"), num(x, "blocked", "j_sum"),
                num(x, "blocked", "j_max"));
        if (rs)
            fprintf(out, "; re-scored %lld, %lld", num(rs, "j_sum", NULL), num(rs, "j_max", NULL));
        print_links(out, x);
        fputc('\n', out);
    }
    print_busiest(out, t);
    print_repairs(out, r);
}

static void print_verify(FILE *out, json_t *r)
{
    json_t *v = json_object_get(r, "verify");
    if (!v || json_is_null(v)) {
        fprintf(out, LABEL "none (run stencil-map-verify as a step to get one)\n", "in-job");
        return;
    }
    if (json_object_get(v, "error")) {
        fprintf(out, LABEL "%s: UNREADABLE: %s\n", "in-job", str(v, "path"), str(v, "error"));
        return;
    }
    json_t *ob = json_object_get(v, "observed");
    fprintf(out, LABEL "%s", "in-job", str(v, "status"));
    if (json_is_object(ob))
        fprintf(out, ": observed J_sum %lld, J_max %lld", num(ob, "j_sum", NULL),
                num(ob, "j_max", NULL));
    if (json_object_get(v, "agrees_with_record"))
        fprintf(out, " (%s the record)",
                json_is_true(json_object_get(v, "agrees_with_record")) ? "as in" : "NOT as in");
    if (str(v, "message")[0])
        fprintf(out, ": %s", str(v, "message"));
    size_t l;
    json_t *x;
    json_array_foreach(json_object_get(v, "levels"), l, x)
        fprintf(out, "\n" LABEL "level %zu observed J_sum %lld, J_max %lld between groups (%s the "
                "record)", "", l, num(x, "observed", "j_sum"), num(x, "observed", "j_max"),
                json_is_true(json_object_get(x, "agrees_with_record")) ? "as in" : "NOT as in");
    fprintf(out, "\n" LABEL "%s\n", "", str(v, "path"));
}

static void print_launch(FILE *out, json_t *r)
{
    json_t *l = json_object_get(r, "launch");
    if (!l)
        return;
    fprintf(out, LABEL "%s\n", "launch", str(l, "result"));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(l, "checks"), i, c)
        fprintf(out, LABEL "  %s %s, from %s: %s\n", "", str(c, "result"), str(c, "level"),
                str(c, "source"), str(c, "detail"));
    json_array_foreach(json_object_get(l, "not_checked"), i, c)
        fprintf(out, LABEL "%s\n", i ? "" : "not checked", json_string_value(c));
}

/* launched or not, and what the plugin cost srun */
static void print_launched(FILE *out, json_t *r)
{
    if (json_is_false(json_object_get(r, "launched")))
        fprintf(out, LABEL "no: %s\n", "launched",
                json_is_string(json_object_get(r, "error")) ? str(r, "error") : "reason not recorded");
    json_t *t = json_object_get(r, "timing");
    if (!t)
        return;
    fprintf(out, LABEL, "plugin");
    const char *sep = "";
    if (json_object_get(t, "plugin_ms")) {
        fprintf(out, "%.1f ms in srun", json_number_value(json_object_get(t, "plugin_ms")));
        sep = ", ";
    }
    if (json_object_get(t, "plugin_cpu_ms")) {
        fprintf(out, "%s%.1f ms CPU", sep, json_number_value(json_object_get(t, "plugin_cpu_ms")));
        sep = ", ";
    }
    if (json_object_get(t, "alloc_check_ms"))
        fprintf(out, "%sallocation check %.1f ms", sep,
                json_number_value(json_object_get(t, "alloc_check_ms")));
    fputc('\n', out);
}

void audit_print_step(FILE *out, const audit_result *res)
{
    json_t *r = res->j;
    audit_status status = res->status;
    json_t *job = json_object_get(r, "job_id"), *step = json_object_get(r, "step_id");
    if (json_is_integer(step))
        fprintf(out, "step %lld.%lld: ", (long long)json_integer_value(job),
                (long long)json_integer_value(step));
    else if (json_is_integer(job) && json_is_string(json_object_get(r, "user")))
        fprintf(out, "job %lld, no step id: ", (long long)json_integer_value(job));
    else if (json_is_integer(job))
        fprintf(out, "job %lld: ", (long long)json_integer_value(job));
    else
        fputs("record: ", out);
    fprintf(out, "%s\n", headline(status));
    if (json_is_string(json_object_get(r, "record"))) {
        fprintf(out, LABEL "%s", "record", str(r, "record"));
        if (json_is_string(json_object_get(r, "user")))
            fprintf(out, " (user %s, written %s)", str(r, "user"), str(r, "time"));
        fputc('\n', out);
    }
    if (status == AUDIT_ST_NOT_PLACED) {
        print_slurm_of_unplaced(out, json_object_get(r, "slurm"));
    } else if (json_is_string(json_object_get(r, "user"))) {
        json_t *alg = json_object_get(r, "algorithm");
        fprintf(out, LABEL "%s (%s)\n", "spec", str(r, "spec"), source_words(str(r, "spec_source")));
        fprintf(out, LABEL "%s", "algorithm",
                json_is_string(json_object_get(alg, "used")) ? str(alg, "used") : "none used");
        if (json_is_string(json_object_get(alg, "requested")))
            fprintf(out, " (requested %s)", str(alg, "requested"));
        if (json_is_string(json_object_get(alg, "override")))
            fprintf(out, " (site override %s)", str(alg, "override"));
        fputc('\n', out);
        fprintf(out, LABEL, "nodes");
        print_list(out, json_object_get(r, "nodes"));
        fputs(" (slots ", out);
        print_list(out, json_object_get(r, "slots"));
        fputs(")\n", out);
        if (json_is_true(json_object_get(r, "placed"))) {
            print_figures(out, r);
            print_origin(out, r);
            print_levels(out, r);
        }
        else if (json_is_string(json_object_get(r, "fallback")))
            fprintf(out, LABEL "%s\n", "reason", str(r, "fallback"));
        else
            fprintf(out, LABEL "%s\n", "placement", "none: the plan failed");
        print_launched(out, r);
        if (!json_is_false(json_object_get(r, "launched")) || json_is_object(json_object_get(r, "verify")))
            print_verify(out, r);
        print_launch(out, r);
    }
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(r, "problems"), i, p)
        fprintf(out, LABEL "%s\n", status != AUDIT_ST_NOT_PLACED ? "PROBLEM" : "why",
                json_string_value(p));
}
