/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map dims: seed 003's weighted dims (placement/dims/) beside
 * MPI_Dims_create's, with the halo each leaves per process and, given the
 * nodes, per node; what grid.dims "weighted" would choose before placing. */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct dims_opts {
    int64_t nprocs;
    int ndims;
    double domain[SMP_MAX_DIMS], halo[SMP_MAX_DIMS], cost[SMP_MAX_DIMS];
    bool have_domain, have_halo, have_cost;
    bool periods[SMP_MAX_DIMS]; /* --periods: ties go to the lower real cut */
    int64_t nodes, per_node, sockets;
    bool json;
};

/* one choice: its dims, per level, and what it leaves to exchange */
struct dims_choice {
    int64_t dims[SMP_MAX_DIMS];
    int64_t ml[SMP_MAX_DIMS * 3];
    bool have_ml;          /* the levels are blocks of the grid */
    double per_process;    /* sum(dims[i] * w[i]) / nprocs */
    double per_node;       /* sum(n_i * w[i]) / nodes, n_i the nodes' factors */
};

static int dims_usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "stencil-map dims: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    cli_usage_of("dims", stderr);
    return 2;
}

/* "1000,1100,950": ndims numbers */
static int number_list(const char *text, const char *opt, int ndims, double *out)
{
    const char *p = text;
    for (int i = 0; i < ndims; i++) {
        char *end;
        out[i] = strtod(p, &end);
        if (end == p || (i < ndims - 1 ? *end != ',' : *end != '\0')) {
            fprintf(stderr, "stencil-map dims: %s: must be %d numbers separated by commas, not '%s'\n",
                    opt, ndims, text);
            return 2;
        }
        p = end + 1;
    }
    return 0;
}

static bool positive(const char *text, int64_t max, int64_t *out)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || v < 1 || v > max)
        return false;
    *out = v;
    return true;
}

static int parse_options(int argc, char **argv, struct dims_opts *o, const char **lists)
{
    static const struct option longs[] = {
        {"ndims", required_argument, NULL, 'd'},  {"domain", required_argument, NULL, 'g'},
        {"halo", required_argument, NULL, 'H'},   {"cost", required_argument, NULL, 'c'},
        {"nodes", required_argument, NULL, 'N'},  {"per-node", required_argument, NULL, 'P'},
        {"sockets", required_argument, NULL, 'S'}, {"json", no_argument, NULL, 'j'},
        {"periods", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    int c;
    int64_t nd = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (!positive(optarg, SMP_MAX_DIMS, &nd))
                return dims_usage_error("--ndims: must be 1 to 8, not", optarg);
            break;
        case 'g': lists[0] = optarg; break;
        case 'H': lists[1] = optarg; break;
        case 'c': lists[2] = optarg; break;
        case 'p': lists[3] = optarg; break;
        case 'N':
            if (!positive(optarg, SMP_MAX_NODES, &o->nodes))
                return dims_usage_error("--nodes: must be a node count, not", optarg);
            break;
        case 'P':
            if (!positive(optarg, SMP_MAX_RANKS, &o->per_node))
                return dims_usage_error("--per-node: must be a positive integer, not", optarg);
            break;
        case 'S':
            if (!positive(optarg, 4096, &o->sockets))
                return dims_usage_error("--sockets: must be 1 to 4096, not", optarg);
            break;
        case 'j': o->json = true; break;
        case 'h': cli_usage_of("dims", stdout); return -1;
        case ':': return dims_usage_error("missing value for", argv[optind - 1]);
        default: return dims_usage_error("unknown option", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return dims_usage_error(optind >= argc ? "missing N" : "exactly one N expected, extra:",
                                optind >= argc ? NULL : argv[optind + 1]);
    if (!positive(argv[optind], SMP_MAX_RANKS, &o->nprocs))
        return dims_usage_error("N: must be a process count from 1 to 2147483647, not", argv[optind]);
    if (!nd)
        return dims_usage_error("--ndims is required", NULL);
    o->ndims = (int)nd;
    return 0;
}

static int load_options(int argc, char **argv, struct dims_opts *o)
{
    const char *lists[4] = {NULL, NULL, NULL, NULL};
    double per[SMP_MAX_DIMS];
    memset(o, 0, sizeof(*o));
    int rc = parse_options(argc, argv, o, lists);
    if (rc)
        return rc;
    if ((lists[0] && (rc = number_list(lists[0], "--domain", o->ndims, o->domain))) ||
        (lists[1] && (rc = number_list(lists[1], "--halo", o->ndims, o->halo))) ||
        (lists[2] && (rc = number_list(lists[2], "--cost", o->ndims, o->cost))) ||
        (lists[3] && (rc = number_list(lists[3], "--periods", o->ndims, per))))
        return rc;
    for (int i = 0; lists[3] && i < o->ndims; i++) {
        if (per[i] != 0.0 && per[i] != 1.0)
            return dims_usage_error("--periods: each must be 0 (open) or 1 (periodic), not",
                                    lists[3]);
        o->periods[i] = per[i] == 1.0;
    }
    o->have_domain = lists[0], o->have_halo = lists[1], o->have_cost = lists[2];
    if (!o->have_domain)
        for (int i = 0; i < o->ndims; i++)
            o->domain[i] = 1.0;
    if (!o->nodes != !o->per_node)
        return dims_usage_error("--nodes and --per-node go together", NULL);
    if (o->sockets && !o->nodes)
        return dims_usage_error("--sockets needs --nodes and --per-node", NULL);
    if (o->nodes && o->nodes * o->per_node != o->nprocs) {
        fprintf(stderr, "stencil-map dims: --nodes %lld x --per-node %lld is not N = %lld\n",
                (long long)o->nodes, (long long)o->per_node, (long long)o->nprocs);
        return 2;
    }
    if (o->sockets && o->per_node % o->sockets) {
        fprintf(stderr, "stencil-map dims: --sockets %lld does not divide --per-node %lld\n",
                (long long)o->sockets, (long long)o->per_node);
        return 2;
    }
    return 0;
}

/* MPI_Dims_create's dims under sequential ranks, per level (finest first,
 * from the fastest dim): false when a level's units are not blocks */
static bool sequential_levels(int ndims, const int64_t *dims, int nl, const int64_t *sizes,
                              int64_t *ml)
{
    int64_t rem[SMP_MAX_DIMS];
    memcpy(rem, dims, sizeof(int64_t) * (size_t)ndims);
    for (int l = nl - 1; l >= 0; l--) {
        int64_t need = sizes[l];
        for (int i = ndims - 1; i >= 0; i--) {
            int64_t take = 1;
            if (need > 1 && rem[i] > 1) {
                if (need % rem[i] == 0)
                    take = rem[i];
                else if (rem[i] % need == 0)
                    take = need;
                else
                    return false;
            }
            ml[i * nl + l] = take;
            rem[i] /= take;
            need /= take;
        }
        if (need != 1)
            return false;
    }
    return true;
}

static void figures(const struct dims_opts *o, const double *w, int nl, struct dims_choice *c)
{
    double sum = 0, node = 0;
    for (int i = 0; i < o->ndims; i++) {
        sum += (double)c->dims[i] * w[i];
        if (c->have_ml)
            node += (double)c->ml[i * nl] * w[i];
    }
    c->per_process = sum / (double)o->nprocs;
    c->per_node = c->have_ml ? node / (double)o->nodes : 0.0;
}

static void print_dims(const char *label, const struct dims_opts *o, int nl,
                       const struct dims_choice *c)
{
    printf("%-16s", label);
    for (int i = 0; i < o->ndims; i++)
        printf("%s%lld", i ? " x " : "", (long long)c->dims[i]);
    printf("   halo per process %.6g", c->per_process);
    if (nl > 1 && c->have_ml) {
        printf(", per node %.6g (nodes", c->per_node);
        for (int i = 0; i < o->ndims; i++)
            printf("%s%lld", i ? " x " : " ", (long long)c->ml[i * nl]);
        printf(")");
    } else if (nl > 1) {
        printf(", per node - (its nodes are not blocks of the grid)");
    }
    printf("\n");
}

static json_t *choice_json(const struct dims_opts *o, int nl, const struct dims_choice *c)
{
    json_t *dims = json_array(), *ml = json_array();
    for (int i = 0; i < o->ndims; i++) {
        json_array_append_new(dims, json_integer(c->dims[i]));
        json_t *per = json_array();
        for (int l = 0; l < nl; l++)
            json_array_append_new(per, json_integer(c->ml[i * nl + l]));
        json_array_append_new(ml, per);
    }
    json_t *j = json_pack("{s:o,s:f}", "dims", dims, "halo_per_process", c->per_process);
    if (nl > 1 && c->have_ml)
        json_object_set_new(j, "dims_ml", ml), json_object_set_new(j, "halo_per_node", json_real(c->per_node));
    else
        json_decref(ml), json_object_set_new(j, "halo_per_node", json_null());
    return j;
}

static json_t *numbers_json(int n, const double *v)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static void print_result(const struct dims_opts *o, const double *w, int nl, const int64_t *sizes,
                         const struct dims_choice *mpi, const struct dims_choice *wd)
{
    double r_proc = wd->per_process / mpi->per_process;
    bool node_ratio = nl > 1 && mpi->have_ml && mpi->per_node > 0;
    if (o->json) {
        json_t *lv = json_array();
        for (int l = 0; l < nl; l++)
            json_array_append_new(lv, json_integer(sizes[l]));
        json_t *j = json_pack("{s:I,s:i,s:o,s:o,s:o,s:o}", "nprocs", (json_int_t)o->nprocs,
                              "ndims", o->ndims, "weights", numbers_json(o->ndims, w), "levels", lv,
                              "mpi_dims_create", choice_json(o, nl, mpi), "weighted",
                              choice_json(o, nl, wd));
        json_t *ratio = json_pack("{s:f}", "per_process", r_proc);
        json_object_set_new(ratio, "per_node",
                            node_ratio ? json_real(wd->per_node / mpi->per_node) : json_null());
        json_object_set_new(j, "ratio", ratio);
        cli_json_print(j, JSON_INDENT(2));
        return;
    }
    printf("%lld processes into %d dims, weights", (long long)o->nprocs, o->ndims);
    for (int i = 0; i < o->ndims; i++)
        printf(" %.6g", w[i]);
    if (nl > 1) {
        printf("; levels");
        for (int l = 0; l < nl; l++)
            printf("%s%lld", l ? " x " : " ", (long long)sizes[l]);
    }
    printf("\n");
    print_dims("MPI_Dims_create", o, nl, mpi);
    print_dims("weighted", o, nl, wd);
    printf("weighted / MPI_Dims_create: per process %.3f", r_proc);
    if (node_ratio)
        printf(", per node %.3f", wd->per_node / mpi->per_node);
    printf("\n");
}

/* the levels: nodes, sockets, the rest of a node; or the count alone */
static int level_sizes(const struct dims_opts *o, int64_t *sizes)
{
    if (!o->nodes)
        return sizes[0] = o->nprocs, 1;
    int nl = 0;
    sizes[nl++] = o->nodes;
    if (o->sockets > 1)
        sizes[nl++] = o->sockets;
    sizes[nl++] = o->sockets > 1 ? o->per_node / o->sockets : o->per_node;
    return nl;
}

int cmd_dims(int argc, char **argv)
{
    struct dims_opts o;
    int rc = load_options(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    smp_error err;
    smp_error_clear(&err);
    double w[SMP_MAX_DIMS];
    int64_t sizes[3];
    int nl = level_sizes(&o, sizes);
    struct dims_choice mpi, wd;
    memset(&mpi, 0, sizeof(mpi));
    memset(&wd, 0, sizeof(wd));
    if (smp_dims_weights(o.ndims, o.domain, o.have_halo ? o.halo : NULL,
                         o.have_cost ? o.cost : NULL, w, &err) ||
        smp_dims_create(o.nprocs, o.ndims, mpi.dims, &err) ||
        smp_dims_ml(o.ndims, w, o.periods, nl, sizes, wd.ml, NULL, &err)) {
        /* grid.domain[1]: ... is --domain here */
        if (!strncmp(err.msg, "grid.", 5)) {
            fprintf(stderr, "stencil-map dims: --%s\n", err.msg + 5);
            return err.status;
        }
        return cli_fail(&err);
    }
    for (int i = 0; i < o.ndims; i++) {
        wd.dims[i] = 1;
        for (int l = 0; l < nl; l++)
            wd.dims[i] *= wd.ml[i * nl + l];
    }
    wd.have_ml = true;
    mpi.have_ml = sequential_levels(o.ndims, mpi.dims, nl, sizes, mpi.ml);
    figures(&o, w, nl, &mpi);
    figures(&o, w, nl, &wd);
    print_result(&o, w, nl, sizes, &mpi, &wd);
    return 0;
}
