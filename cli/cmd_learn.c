/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map learn DIR: a spec from a profile of the application's own
 * traffic; and stencil-map score SPEC --profile DIR: the measured bytes
 * each placement would send across nodes. */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "learn.h"
#include "learn_spec.h"
#include "spec_check.h"

static int usage_error(const char *cmd, const char *msg, const char *arg)
{
    fprintf(stderr, "stencil-map %s: %s%s%s\n", cmd, msg, arg ? " " : "", arg ? arg : "");
    cli_usage_of(cmd, stderr);
    return SMP_ERR_INPUT;
}

static const char *human(double b, char *buf, size_t len)
{
    static const char *unit[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000 && u < 4) {
        b /= 1000;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
    return buf;
}

static void dims_text(const smp_grid *g, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int d = 0; d < g->ndims && at < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, d ? "x" : "", g->dims[d]);
}

static void periods_text(const smp_grid *g, char *buf, size_t len)
{
    int n = 0;
    for (int d = 0; d < g->ndims; d++)
        n += g->periods[d];
    if (!n) {
        snprintf(buf, len, "%s", "");
        return;
    }
    if (n == g->ndims) {
        snprintf(buf, len, "%s", ", periodic");
        return;
    }
    size_t at = (size_t)snprintf(buf, len, ", periodic in dimension%s", n > 1 ? "s" : "");
    for (int d = 0, k = 0; d < g->ndims && at < len; d++)
        if (g->periods[d])
            at += (size_t)snprintf(buf + at, len - at, "%s%d", k++ ? "," : " ", d);
}

static void offset_text(const int32_t *off, int nd, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "[");
    for (int d = 0; d < nd && at < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", d ? ", " : "", off[d]);
    if (at < len)
        snprintf(buf + at, len - at, "]");
}

/* the learner's report: grid, share explained, one line per offset */
static void print_report(FILE *info, const learn_profile *p, const learn_result *r, double share)
{
    char hb[32], dt[256], pt[128], ot[128];
    dims_text(&r->grid, dt, sizeof(dt));
    periods_text(&r->grid, pt, sizeof(pt));
    fprintf(info, "%" PRId64 " ranks sent %s to each other; grid %s, %s (%" PRId64 " grid%s compared)\n",
            p->ranks, human(p->total_bytes, hb, sizeof(hb)), dt, r->source, r->candidates,
            r->candidates == 1 ? "" : "s");
    fprintf(info, "%.1f %% of bytes by %d offsets on %s%s\n", 100 * share, r->nincluded, dt, pt);
    double *w = malloc(sizeof(double) * (size_t)(r->nincluded ? r->nincluded : 1));
    if (w)
        learn_weights(r, w);
    for (int i = 0; i < r->nincluded; i++) {
        offset_text(r->offsets[i].off, r->grid.ndims, ot, sizeof(ot));
        fprintf(info, "  offset %-14s weight %-8g %10s  %5.1f %%  on %" PRId64 " of %" PRId64 " ranks\n", ot,
                w ? w[i] : 1.0, human(r->offsets[i].bytes, hb, sizeof(hb)),
                p->total_bytes > 0 ? 100 * r->offsets[i].bytes / p->total_bytes : 0.0, r->offsets[i].edges,
                r->offsets[i].positions);
    }
    free(w);
}

/* the warning below LEARN_WARN_SHARE, and notes on a partial profile */
static void print_warnings(const learn_profile *p, const learn_result *r, double share)
{
    char hb[32], ot[128];
    if (share < LEARN_WARN_SHARE) {
        fprintf(stderr, "stencil-map learn: warning: the spec explains only %.1f %% of the bytes; not explained:",
                100 * share);
        for (int i = r->nincluded, k = 0; i < r->noffsets && k < 3; i++, k++) {
            offset_text(r->offsets[i].off, r->grid.ndims, ot, sizeof(ot));
            fprintf(stderr, "%s %s to offset %s (%" PRId64 " pairs)", k ? "," : "",
                    human(r->offsets[i].bytes, hb, sizeof(hb)), ot, r->offsets[i].edges);
        }
        if (r->noffsets - r->nincluded > 3)
            fprintf(stderr, " and %d more offsets", r->noffsets - r->nincluded - 3);
        fputc('\n', stderr);
    }
    if (p->partial > p->partial_exit)
        fprintf(stderr, "stencil-map learn: note: %" PRId64 " of %" PRId64 " ranks were stopped by a signal "
                        "before MPI_Finalize: their traffic up to then\n", p->partial - p->partial_exit, p->ranks);
    if (p->partial_exit)
        fprintf(stderr, "stencil-map learn: note: %" PRId64 " of %" PRId64 " ranks exited without "
                        "MPI_Finalize: their traffic up to then\n", p->partial_exit, p->ranks);
    if (p->unresolved)
        fprintf(stderr, "stencil-map learn: note: %" PRId64 " sends could not be attributed to a rank\n",
                p->unresolved);
}

/* the spec to OUTPUT ("-" or none: stdout); 0 or an exit code (said) */
static int output_spec(const char *output, const learn_result *r, const char *dir, double share)
{
    smp_error err;
    smp_error_clear(&err);
    int rc = 0;
    FILE *out = output && strcmp(output, "-") ? fopen(output, "w") : stdout;
    if (!out) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "--output %s: cannot open: %m", output);
        return cli_fail(&err);
    }
    char who[PATH_MAX + 32];
    snprintf(who, sizeof(who), "stencil-map learn from %s", dir);
    if (learn_spec_write(out, r, who, share))
        rc = 4;
    if (out != stdout && fclose(out))
        rc = 4;
    if (rc) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "--output %s: cannot write the spec", output ? output : "-");
        cli_fail(&err);
    }
    return rc;
}

/* learn's options; -1 to go on, else the exit code */
static int learn_options(int argc, char **argv, const char **output, int *max_dims)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"max-dims", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': *output = optarg; break;
        case 'd': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > SMP_MAX_DIMS)
                return usage_error("learn", "--max-dims: must be 1 to 8, not", optarg);
            *max_dims = (int)v;
            break;
        }
        case 'h': cli_usage_of("learn", stdout); return 0;
        case ':': return usage_error("learn", "missing value for", argv[optind - 1]);
        default: return usage_error("learn", "unknown option", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return usage_error("learn", optind >= argc ? "missing DIR" : "exactly one DIR expected, extra:",
                           optind >= argc ? NULL : argv[optind + 1]);
    return -1;
}

int cmd_learn(int argc, char **argv)
{
    const char *output = NULL;
    int max_dims = 3, rc = learn_options(argc, argv, &output, &max_dims);
    if (rc >= 0)
        return rc;
    const char *dir = argv[optind];
    smp_error err;
    smp_error_clear(&err);
    learn_profile p;
    if (learn_profile_read(dir, &p, &err))
        return cli_fail(&err);
    learn_result r;
    if (learn_infer(&p, max_dims, &r, &err)) {
        learn_profile_free(&p);
        return cli_fail(&err);
    }
    double share = p.total_bytes > 0 ? r.explained / p.total_bytes : 1.0;
    print_report(output && strcmp(output, "-") ? stdout : stderr, &p, &r, share);
    print_warnings(&p, &r, share);
    rc = output_spec(output, &r, dir, share);
    learn_result_free(&r);
    learn_profile_free(&p);
    return rc;
}

/* ---- score --profile ------------------------------------------------------ */

typedef struct {
    const char *name;
    double across, max_node;
    int max_at;
} crossing;

static bool cross(const learn_profile *p, const int32_t *node_of_rank, int nnodes, crossing *c)
{
    double *per = calloc((size_t)nnodes, sizeof(double));
    if (!per)
        return false;
    c->across = 0;
    for (size_t i = 0; i < p->nedges; i++) {
        int a = node_of_rank[p->edges[i].src], b = node_of_rank[p->edges[i].dst];
        if (a != b) {
            c->across += (double)p->edges[i].bytes;
            per[a] += (double)p->edges[i].bytes;
        }
    }
    c->max_node = 0;
    c->max_at = 0;
    for (int n = 0; n < nnodes; n++)
        if (per[n] > c->max_node) {
            c->max_node = per[n];
            c->max_at = n;
        }
    free(per);
    return true;
}

/* score --profile's options; -1 to go on, else the exit code */
static int score_options(int argc, char **argv, struct cli_opts *o, const char **dir)
{
    static const struct option longopts[] = {
        {"profile", required_argument, NULL, 'p'}, {"nodes", required_argument, NULL, 'N'},
        {"slots", required_argument, NULL, 'S'},   {"hostfile", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, 'j'},          {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p': *dir = optarg; break;
        case 'N': o->nodes = optarg; break;
        case 'S': o->slots = optarg; break;
        case 'f': o->hostfile = optarg; break;
        case 'j': o->json = true; break;
        case 'h': cli_usage_of("score", stdout); return 0;
        case ':': return usage_error("score", "missing value for", argv[optind - 1]);
        default: return usage_error("score", "with --profile, unknown option", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return usage_error("score", optind >= argc ? "missing SPEC" : "exactly one SPEC expected, extra:",
                           optind >= argc ? NULL : argv[optind + 1]);
    o->spec = argv[optind];
    if (!*dir)
        return usage_error("score", "--profile is required with --nodes and --slots", NULL);
    if (!o->nodes || !o->slots)
        return usage_error("score", !o->nodes ? "--nodes is required with --profile"
                                              : "--slots is required with --profile", NULL);
    return -1;
}

/* everything score --profile computes, freed by score_free */
typedef struct {
    learn_profile p;
    smp_spec spec;
    bool have_spec;
    smp_nodes nodes, hnodes;
    smp_placement blocked, planned;
    int32_t *hmap;
    double cov;
    crossing rows[3];
    const char *algs[3];
    const smp_nodes *row_nodes[3];
    int nrows;
} score_run;

static void score_free(score_run *s)
{
    smp_placement_free(&s->blocked);
    smp_placement_free(&s->planned);
    smp_nodes_free(&s->nodes);
    smp_nodes_free(&s->hnodes);
    free(s->hmap);
    if (s->have_spec)
        smp_spec_free(&s->spec);
    learn_profile_free(&s->p);
}

/* --hostfile: the placement a run really had */
static smp_status read_hostfile(const char *path, score_run *s, smp_error *err)
{
    int64_t hranks = 0;
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    smp_status st = f ? smp_hostfile_read(f, &s->hnodes, &s->hmap, &hranks, err)
                      : smp_error_set(err, SMP_ERR_INPUT, "--hostfile %s: cannot open: %m", path);
    if (f && f != stdin)
        fclose(f);
    if (!st && hranks != s->p.ranks)
        st = smp_error_set(err, SMP_ERR_INPUT, "--hostfile: has %" PRId64 " ranks but the profile %" PRId64,
                           hranks, s->p.ranks);
    return st;
}

/* the plans and the bytes each placement sends across nodes */
static smp_status score_compute(const struct cli_opts *o, score_run *s, smp_error *err)
{
    if (!spec_check_covered(&s->p, &s->spec, &s->cov, err) ||
        smp_nodes_parse(&s->nodes, o->nodes, o->slots, err) ||
        smp_plan(&s->spec.grid, &s->spec.stencil, s->nodes.slots, s->nodes.count, SMP_ALG_BLOCKED, &s->blocked,
                 err) ||
        smp_plan(&s->spec.grid, &s->spec.stencil, s->nodes.slots, s->nodes.count, s->spec.algorithm, &s->planned,
                 err))
        return err->status ? err->status : SMP_ERR_INPUT;
    if (o->hostfile && read_hostfile(o->hostfile, s, err))
        return err->status;
    s->rows[0] = (crossing){.name = "blocked"};
    s->rows[1] = (crossing){.name = "plan"};
    s->rows[2] = (crossing){.name = "hostfile"};
    s->algs[0] = "blocked";
    s->algs[1] = smp_algorithm_name(s->planned.algorithm);
    s->algs[2] = "-";
    s->row_nodes[0] = s->row_nodes[1] = &s->nodes;
    s->row_nodes[2] = &s->hnodes;
    s->nrows = o->hostfile ? 3 : 2;
    if (!cross(&s->p, s->blocked.node_of_rank, s->nodes.count, &s->rows[0]) ||
        !cross(&s->p, s->planned.node_of_rank, s->nodes.count, &s->rows[1]) ||
        (o->hostfile && !cross(&s->p, s->hmap, s->hnodes.count, &s->rows[2])))
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    return SMP_OK;
}

static void score_print_json(const score_run *s)
{
    json_t *j = json_pack("{s:I,s:f,s:f}", "ranks", (json_int_t)s->p.ranks, "bytes", s->p.total_bytes,
                          "covered_share", s->cov);
    cli_json_spec(j, &s->spec);
    json_t *arr = json_array();
    for (int i = 0; i < s->nrows; i++)
        json_array_append_new(arr, json_pack("{s:s,s:s,s:f,s:f,s:s}", "placement", s->rows[i].name, "algorithm",
                                             s->algs[i], "bytes_across", s->rows[i].across, "max_node_bytes",
                                             s->rows[i].max_node, "max_node",
                                             s->row_nodes[i]->names[s->rows[i].max_at]));
    json_object_set_new(j, "placements", arr);
    json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(j);
}

static void score_print_text(const score_run *s)
{
    char hb[32], hm[32];
    printf("%" PRId64 " ranks sent %s to each other; the spec's stencil covers %.1f %% of it\n", s->p.ranks,
           human(s->p.total_bytes, hb, sizeof(hb)), 100 * s->cov);
    for (int i = 0; i < s->nrows; i++) {
        char label[64];
        snprintf(label, sizeof(label), i == 1 ? "%s (%s)" : "%s", s->rows[i].name, s->algs[i]);
        printf("%-18s %10s across nodes, at most %s from one node (%s)\n", label,
               human(s->rows[i].across, hb, sizeof(hb)), human(s->rows[i].max_node, hm, sizeof(hm)),
               s->row_nodes[i]->names[s->rows[i].max_at]);
    }
}

int cmd_score_profile(int argc, char **argv)
{
    struct cli_opts o;
    memset(&o, 0, sizeof(o));
    const char *dir = NULL;
    int rc = score_options(argc, argv, &o, &dir);
    if (rc >= 0)
        return rc;
    smp_error err;
    smp_error_clear(&err);
    score_run s;
    memset(&s, 0, sizeof(s));
    if (learn_profile_read(dir, &s.p, &err))
        return cli_fail(&err);
    o.ranks = s.p.ranks;
    if ((rc = cli_load_spec(&o, s.p.ranks, &s.spec))) {
        score_free(&s);
        return rc;
    }
    s.have_spec = true;
    if (score_compute(&o, &s, &err)) {
        rc = cli_fail(&err);
        score_free(&s);
        return rc;
    }
    if (spec_check_report(stderr, "stencil-map score", &s.p, &s.spec, &err) < 0) /* the figures stand without */
        fprintf(stderr, "stencil-map score: warning: cannot check the spec against the profile: %s\n", err.msg);
    if (o.json)
        score_print_json(&s);
    else
        score_print_text(&s);
    score_free(&s);
    return rc;
}
