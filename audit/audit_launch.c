/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the ranks of an audited step ran, from every source that can say:
 * the in-job result's per-rank nodes, a --launched FILE, and Slurm's node
 * list of the step (or only of the job, once the step is forgotten). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit_internal.h"

/* per-rank nodes from some source against the record's placement */
json_t *audit_rank_check(const audit_record *rec, char **observed, int64_t count,
                          const char *source, audit_result *res)
{
    char d[700];
    if (count != rec->r.placement_count) {
        snprintf(d, sizeof(d), "%lld ranks ran, %lld were planned", (long long)count,
                 (long long)rec->r.placement_count);
        audit_problem(res, AUDIT_ST_INCONSISTENT, "launch differs (%s): %s", source, d);
        return audit_check_json(source, "per rank", false, d);
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
        audit_problem(res, AUDIT_ST_INCONSISTENT, "launch differs (%s): %s", source, d);
    } else {
        snprintf(d, sizeof(d), "all %lld ranks ran on their planned node", (long long)count);
    }
    return audit_check_json(source, "per rank", !wrong, d);
}

/* Slurm's node list (of the step, or only of the job) against the nodes
 * the placement uses */
static json_t *slurm_check(const audit_record *rec, const audit_slurm *sl, audit_result *res)
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
        audit_problem(res, AUDIT_ST_INCONSISTENT, "launch differs (%s): %s", sl->source, d);
    json_t *c = audit_check_json(sl->source, sl->step_level ? "per node, the step's" : "the job's allocation only", ok, d);
    if (sl->state[0])
        json_object_set_new(c, "state", json_string(sl->state));
    return c;
}

/* --launched FILE (audit_internal.h) */
int audit_read_launched(const char *path, char ***out, int64_t *count, char *msg, size_t mn)
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

void audit_free_names(char **v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* --launched FILE against the placement */
static void check_launched_file(const audit_record *rec, const char *path, audit_result *res,
                                json_t *checks)
{
    char **obs = NULL, msg[800];
    int64_t n = 0;
    if (audit_read_launched(path, &obs, &n, msg, sizeof(msg))) {
        audit_problem(res, AUDIT_ST_UNREADABLE, "%s", msg);
        return;
    }
    char src[700];
    snprintf(src, sizeof(src), "--launched %.600s", path);
    json_array_append_new(checks, audit_rank_check(rec, obs, n, src, res));
    audit_free_names(obs, n);
}

/* Slurm's node list; what it could not say matters only when no source
 * answered for the step itself */
static void check_slurm(const audit_record *rec, audit_result *res, json_t *checks,
                        json_t *unchecked)
{
    audit_slurm sl;
    audit_slurm_query(rec->r.job_id, rec->r.step_id, &sl);
    if (sl.known && sl.nnodes && rec->placed)
        json_array_append_new(checks, slurm_check(rec, &sl, res));
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
}

/* "differs" when any check differs, "matches" when some matched, else
 * "not checked" */
static const char *launch_result(json_t *checks)
{
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
    return lres;
}

void audit_check_launch(const audit_record *rec, const audit_options *opt, audit_result *res,
                        json_t *checks, json_t *unchecked)
{
    if (!rec->r.launched) {
        /* nothing ran: no launch to compare, and Slurm knows no such step */
        json_array_append_new(unchecked, json_string("where the ranks ran: the step was never "
                                                     "launched"));
        if (opt->launched)
            json_array_append_new(unchecked, json_string("--launched FILE not compared: the step "
                                                         "was never launched"));
        json_object_set_new(res->j, "launch", json_pack("{s:s,s:o,s:o}", "result", "not launched",
                                                        "checks", checks, "not_checked", unchecked));
        return;
    }
    if (rec->placed && opt->launched)
        check_launched_file(rec, opt->launched, res, checks);
    if (rec->placed && !opt->launched && !(rec->verify.readable && rec->verify.v.has_rank_nodes))
        json_array_append_new(unchecked, json_string("where each rank ran: no in-job result with "
                                                     "rank_nodes and no --launched FILE"));
    if (opt->query_slurm)
        check_slurm(rec, res, checks, unchecked);
    else
        json_array_append_new(unchecked, json_string("Slurm not asked (--no-slurm)"));
    json_object_set_new(res->j, "launch", json_pack("{s:s,s:o,s:o}", "result", launch_result(checks),
                                                    "checks", checks, "not_checked", unchecked));
}
