/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map audit: how steps were placed, whether they ran as planned,
 * and a site summary over the record directory. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit_output.h"
#include "cli.h"
#include "svg.h"

struct audit_args {
    const char *dir_opt, *record, *since_arg, *user, *svg;
    char since[32];
    bool summary, json;
    int64_t job, step;
    audit_options opt;
};

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "stencil-map audit: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    cli_usage_of("audit", stderr);
    return AUDIT_USAGE;
}

static int parse_jobstep(const char *arg, int64_t *job, int64_t *step)
{
    char *end;
    errno = 0;
    long long j = strtoll(arg, &end, 10);
    if (errno || end == arg || arg[0] == '-' || arg[0] == '+' || j > UINT32_MAX)
        return -1;
    *job = j;
    *step = -1;
    if (!*end)
        return 0;
    if (*end != '.' || !end[1] || end[1] == '-' || end[1] == '+')
        return -1;
    const char *p = end + 1;
    long long s = strtoll(p, &end, 10);
    if (errno || end == p || *end || s > UINT32_MAX)
        return -1;
    *step = s;
    return 0;
}

static int parse_args(int argc, char **argv, struct audit_args *a)
{
    static const struct option longopts[] = {
        {"record-dir", required_argument, NULL, 'd'}, {"record", required_argument, NULL, 'r'},
        {"since", required_argument, NULL, 's'},      {"user", required_argument, NULL, 'u'},
        {"summary", no_argument, NULL, 'S'},          {"json", no_argument, NULL, 'j'},
        {"svg", required_argument, NULL, 'g'},        {"launched", required_argument, NULL, 'l'},
        {"no-slurm", no_argument, NULL, 'n'},         {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof(*a));
    a->job = a->step = -1;
    a->opt.query_slurm = true;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': a->dir_opt = optarg; break;
        case 'r': a->record = optarg; break;
        case 's':
            a->since_arg = optarg;
            if (audit_parse_since(optarg, a->since, sizeof(a->since)))
                return usage_error("--since: not a date YYYY-MM-DD[THH:MM[:SS]]:", optarg);
            break;
        case 'u': a->user = optarg; break;
        case 'S': a->summary = true; break;
        case 'j': a->json = true; break;
        case 'g': a->svg = optarg; break;
        case 'l': a->opt.launched = optarg; break;
        case 'n': a->opt.query_slurm = false; break;
        case 'h': cli_usage_of("audit", stdout); exit(0);
        case ':': return usage_error("missing value for", argv[optind - 1]);
        default: return usage_error("unknown option", argv[optind - 1]);
        }
    }
    if (a->user && (!*a->user || strchr(a->user, '/') || a->user[0] == '.'))
        return usage_error("--user: not a user name:", a->user);
    if (optind < argc - 1)
        return usage_error("at most one JOBID[.STEP], extra:", argv[optind + 1]);
    const char *arg = optind == argc - 1 ? argv[optind] : NULL;
    size_t al = arg ? strlen(arg) : 0;
    if (arg && !a->record && (strchr(arg, '/') || (al > 5 && !strcmp(arg + al - 5, ".json"))))
        a->record = arg; /* a record's path: stencil-map audit FILE is --record FILE */
    else if (arg && parse_jobstep(arg, &a->job, &a->step))
        return usage_error("not a JOBID[.STEP]:", argv[optind]);
    if (a->record && (a->job >= 0 || a->summary || a->since_arg || a->user || a->dir_opt))
        return usage_error("--record FILE goes alone, without JOBID, --record-dir, --summary, "
                           "--since or --user",
                           NULL);
    if (!a->record && a->job < 0 && !a->summary && !a->since_arg && !a->user)
        return usage_error("give JOBID[.STEP], --record FILE, --since DATE, --user U or --summary",
                           NULL);
    if (a->summary && (a->job >= 0 || a->svg || a->opt.launched))
        return usage_error("--summary counts records; it takes no JOBID, --svg or --launched", NULL);
    if (a->opt.launched && !a->record && a->step < 0)
        return usage_error("--launched describes one step: give JOBID.STEP or --record", NULL);
    if (a->svg && !a->record && a->step < 0)
        return usage_error("--svg draws one step: give JOBID.STEP or --record", NULL);
    a->opt.in_record_dir = !a->record;
    return 0;
}

static int draw(const char *path, const audit_record *rec)
{
    if (!rec->placed || rec->error[0] || !rec->r.node_of_rank) {
        fprintf(stderr, "stencil-map audit: --svg %s: the record holds no placement to draw\n", path);
        return rec->error[0] ? AUDIT_UNREADABLE : AUDIT_MISSING;
    }
    for (int64_t r = 0; r < rec->r.placement_count; r++)
        if (rec->r.node_of_rank[r] < 0 || rec->r.placement_count != rec->r.grid.size) {
            fprintf(stderr, "stencil-map audit: --svg %s: the placement does not fit the record's "
                            "grid and nodes, nothing drawn\n", path);
            return AUDIT_INCONSISTENT;
        }
    smp_placement bl = {0};
    smp_error err;
    if (smp_plan(&rec->r.grid, &rec->r.stencil, rec->r.nodes.slots, rec->r.nodes.count, SMP_ALG_BLOCKED,
                 &bl, &err))
        bl.node_of_rank = NULL; /* drawn alone */
    char title[1400], label[96];
    char step[32] = "(no step id)";
    if (rec->r.step_id >= 0)
        snprintf(step, sizeof(step), "%lld", (long long)rec->r.step_id);
    snprintf(title, sizeof(title), "step %lld.%s of %.200s (%s): %.900s", (long long)rec->r.job_id,
             step, rec->r.user, rec->r.time, rec->r.spec);
    snprintf(label, sizeof(label), "%s: %s", rec->r.launched ? "as launched" : "planned, never launched",
             rec->r.alg_used);
    svg_input in = {.title = title,
                    .grid = &rec->r.grid,
                    .stencil = &rec->r.stencil,
                    .nodes = &rec->r.nodes,
                    .plan = rec->r.node_of_rank,
                    .plan_label = label,
                    .blocked = bl.node_of_rank};
    int rc = svg_write_file(path, &in);
    smp_placement_free(&bl);
    return rc ? AUDIT_UNREADABLE : AUDIT_OK;
}

/* The steps audited, in order, and the worst exit status so far. */
struct steps {
    audit_result *v;
    int count, cap;
    int rc;
};

static void steps_add(struct steps *s, audit_result r)
{
    s->rc = audit_worse(s->rc, audit_status_exit(r.status));
    if (s->count == s->cap) {
        int nc = s->cap ? s->cap * 2 : 16;
        audit_result *nv = realloc(s->v, sizeof(*nv) * (size_t)nc);
        if (!nv) { /* the step is lost from the output, not from the exit status */
            json_decref(r.j);
            return;
        }
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->count++] = r;
}

static void steps_free(struct steps *s)
{
    for (int i = 0; i < s->count; i++)
        json_decref(s->v[i].j);
    free(s->v);
}

/* Steps of the job that slurmctld runs now but that left no record. */
static void add_unrecorded_steps(const struct audit_args *a, const audit_found *found,
                                 const char *dir, struct steps *steps)
{
    int64_t *running = NULL;
    int n = audit_slurm_running_steps(a->job, &running);
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int k = 0; k < steps->count; k++) {
            json_t *id = json_object_get(steps->v[k].j, "step_id"); /* null: never created */
            seen |= json_is_integer(id) && json_integer_value(id) == running[i];
        }
        if (!seen)
            steps_add(steps, audit_not_placed(a->job, running[i], dir, &a->opt));
    }
    if (n == 0 && found->count == 0)
        steps_add(steps, audit_not_placed(a->job, -1, dir, &a->opt));
    free(running);
}

/* What was asked for but left no record. */
static void add_missing(const struct audit_args *a, const audit_found *found, const char *dir,
                        struct steps *steps)
{
    if (a->job >= 0 && a->step >= 0 && found->count == 0) {
        steps_add(steps, audit_not_placed(a->job, a->step, dir, &a->opt));
        if (a->svg)
            fprintf(stderr, "stencil-map audit: --svg: no record of step %lld.%lld to draw\n",
                    (long long)a->job, (long long)a->step);
    } else if (a->job >= 0 && a->step < 0 && a->opt.query_slurm) {
        add_unrecorded_steps(a, found, dir, steps);
    } else if (a->job >= 0 && found->count == 0) {
        steps_add(steps, audit_not_placed(a->job, -1, dir, &a->opt));
    } else if (found->count == 0) {
        fprintf(stderr, "stencil-map audit: no records in %s%s%s%s%s\n", dir,
                a->user ? " of user " : "", a->user ? a->user : "", a->since_arg ? " since " : "",
                a->since_arg ? a->since : "");
        steps->rc = audit_worse(steps->rc, AUDIT_MISSING);
    }
}

/* --record FILE: the file the user named, symlink or not; records found
 * in the record directory are never read through a symlink */
static int find_named(const char *record, audit_found *found)
{
    char *real = realpath(record, NULL);
    if (!real) {
        fprintf(stderr, "stencil-map audit: --record %s: %s\n", record, strerror(errno));
        return errno == ENOENT ? AUDIT_MISSING : AUDIT_UNREADABLE;
    }
    found->paths = calloc(2, sizeof(char *));
    if (!found->paths) {
        free(real);
        fprintf(stderr, "stencil-map audit: out of memory\n");
        return AUDIT_UNREADABLE;
    }
    found->paths[0] = real;
    found->count = 1;
    return 0;
}

/* The records to audit: the one named, or those in the record directory
 * that match.  0, or the exit status. */
static int find(const struct audit_args *a, char *dir, size_t dn, char *source, size_t sn,
                audit_found *found)
{
    char msg[4600];
    memset(found, 0, sizeof(*found));
    if (a->record) {
        snprintf(source, sn, "--record");
        return find_named(a->record, found);
    }
    if (audit_record_dir(a->dir_opt, dir, dn, source, sn, msg, sizeof(msg))) {
        fprintf(stderr, "stencil-map audit: %s\n", msg);
        return AUDIT_MISSING;
    }
    struct stat sb;
    if (stat(dir, &sb) && errno == ENOENT) {
        fprintf(stderr, "stencil-map audit: record directory %s (from %s) does not exist: no records\n",
                dir, source);
        return AUDIT_MISSING;
    }
    if (audit_find_records(dir, a->user, a->job, a->step, a->since_arg ? a->since : NULL, found,
                           msg, sizeof(msg))) {
        fprintf(stderr, "stencil-map audit: %s\n", msg);
        return AUDIT_UNREADABLE;
    }
    return 0;
}

/* A script reading the JSON still gets the reason on stderr. */
static void print_reasons(const struct steps *steps)
{
    for (int i = 0; i < steps->count; i++) {
        json_t *s = steps->v[i].j;
        if (audit_status_exit(steps->v[i].status) == AUDIT_OK)
            continue;
        json_t *job = json_object_get(s, "job_id"), *step = json_object_get(s, "step_id"),
               *record = json_object_get(s, "record");
        char id[4200];
        if (!json_is_integer(job))
            snprintf(id, sizeof(id), "record %.4000s", json_string_value(record));
        else if (json_is_integer(step))
            snprintf(id, sizeof(id), "step %lld.%lld", (long long)json_integer_value(job),
                     (long long)json_integer_value(step));
        else if (json_is_string(record))
            snprintf(id, sizeof(id), "job %lld, no step id (%.4000s)",
                     (long long)json_integer_value(job), json_string_value(record));
        else
            snprintf(id, sizeof(id), "job %lld", (long long)json_integer_value(job));
        fprintf(stderr, "stencil-map audit: %s: %s: %s\n", id,
                audit_status_name(steps->v[i].status),
                json_string_value(json_array_get(json_object_get(s, "problems"), 0)));
    }
}

static void print_json(const char *dir, const char *source, const audit_found *found,
                       const struct steps *steps)
{
    json_t *arr = json_array();
    for (int i = 0; i < steps->count; i++)
        json_array_append(arr, steps->v[i].j);
    json_t *j = json_pack("{s:s?,s:s,s:o,s:i,s:i}", "record_dir", dir[0] ? dir : NULL,
                          "record_dir_source", source, "steps", arr, "unreadable_user_dirs",
                          found->skipped_dirs, "exit", steps->rc);
    cli_json_print(j, JSON_INDENT(2));
    print_reasons(steps);
}

static void print_text(const struct audit_args *a, const char *dir, const char *source,
                       const audit_found *found, const struct steps *steps)
{
    if (!a->record)
        printf("records in %s (from %s)\n", dir, source);
    if (found->skipped_dirs)
        printf("NOT SEEN: %d user directories could not be read (%s); run as root to see all\n",
               found->skipped_dirs, found->skipped_example);
    for (int i = 0; i < steps->count; i++)
        audit_print_step(stdout, &steps->v[i]);
}

/* Checks every record found (and draws the one of --svg). */
static void check_found(const struct audit_args *a, const audit_found *found, struct steps *steps)
{
    for (int i = 0; i < found->count; i++) {
        audit_record rec;
        steps_add(steps, audit_check_record(found->paths[i], &a->opt, &rec));
        if (a->svg)
            steps->rc = audit_worse(steps->rc, draw(a->svg, &rec));
        audit_record_free(&rec);
    }
}

int cmd_audit(int argc, char **argv)
{
    struct audit_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    char dir[4096] = "", source[4200] = "";
    audit_found found;
    rc = find(&a, dir, sizeof(dir), source, sizeof(source), &found);
    if (!rc && a.summary)
        rc = audit_summary(&found, dir, a.json);
    else if (!rc && a.svg && found.count > 1) {
        fprintf(stderr, "stencil-map audit: --svg draws one step, but %d records match\n",
                found.count);
        rc = AUDIT_USAGE;
    } else if (!rc) {
        struct steps steps = {NULL, 0, 0, AUDIT_OK};
        check_found(&a, &found, &steps);
        add_missing(&a, &found, dir, &steps);
        if (a.json)
            print_json(dir, source, &found, &steps);
        else
            print_text(&a, dir, source, &found, &steps);
        rc = steps.rc;
        steps_free(&steps);
    }
    audit_found_free(&found);
    return rc;
}
