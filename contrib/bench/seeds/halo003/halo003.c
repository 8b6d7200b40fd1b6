/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Seed 003's halo benchmark (HLRS slides, halo_irecv_send_toggle_3dim_grid):
 * a 3-D grid of processes, each owning a box of a data grid whose sides
 * follow a base ratio (2:2:2, 1:2:4, ...), exchanges with its 6 face
 * neighbours (periodic, or --open: none past the grid's edges) messages
 * of face area x bytes per cell, timed as
 * the slowest process's time per exchange, median over the iterations
 * after a warm-up.  Written here to time the seed's three ways of making
 * the grid on a network whose node links are shaped (halo003/run.sh):
 *
 *   --method dims      MPI_Dims_create + MPI_Cart_create(reorder=0)
 *   --method reorder   the same with reorder=1 (preload libstencilmap-reorder)
 *   --method weighted  MPIX_Cart_weighted_create, weights from the data grid
 *                      (w_i = 2 G / g_i: the seed's, halo width and cost 1)
 *
 *   halo003 --method M --ratio A:B:C --scale S [--bytes-per-cell 8]
 *           [--periodic 1|0] [-i 20] [-w 3]
 *
 * The data grid is (A*S, B*S, C*S) cells; a process's box is that over
 * dims.  Prints one "halo003:" line with dims, the bytes per exchange that
 * cross nodes (J_sum, and J_max: the most leaving one node; nodes by
 * processor name) and the median/min/max microseconds per exchange.
 * Every received message is checked (its sender's rank and iteration).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stencilmap_mpix.h>

struct opts {
    int ratio[3], scale, bpc, iters, warmup, periodic;
    const char *method;
};

static void usage_fail(const char *what)
{
    fprintf(stderr, "halo003: %s (usage: halo003 --method dims|reorder|weighted --ratio A:B:C "
                    "--scale S [--bytes-per-cell N] [--periodic 1|0] [-i ITERS] [-w WARMUP])\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static int positive(const char *s, const char *name)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > 100000) {
        fprintf(stderr, "halo003: %s must be an integer 1..100000 (got '%s')\n", name, s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return (int)v;
}

static void parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){{0, 0, 0}, 0, 8, 20, 3, 1, NULL};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage_fail("an option without its value");
        const char *k = argv[i], *v = argv[++i];
        if (!strcmp(k, "--method"))
            o->method = v;
        else if (!strcmp(k, "--ratio")) {
            char extra;
            if (sscanf(v, "%d:%d:%d%c", &o->ratio[0], &o->ratio[1], &o->ratio[2], &extra) != 3 ||
                o->ratio[0] < 1 || o->ratio[1] < 1 || o->ratio[2] < 1)
                usage_fail("--ratio must be A:B:C, three positive integers");
        } else if (!strcmp(k, "--scale"))
            o->scale = positive(v, "--scale");
        else if (!strcmp(k, "--bytes-per-cell"))
            o->bpc = positive(v, "--bytes-per-cell");
        else if (!strcmp(k, "--periodic")) {
            if (strcmp(v, "0") && strcmp(v, "1"))
                usage_fail("--periodic must be 0 or 1");
            o->periodic = v[0] == '1';
        } else if (!strcmp(k, "-i"))
            o->iters = positive(v, "-i");
        else if (!strcmp(k, "-w"))
            o->warmup = atoi(v) < 0 ? 0 : atoi(v);
        else
            usage_fail("unknown option");
    }
    if (!o->method || !o->scale || !o->ratio[0])
        usage_fail("--method, --ratio and --scale are required");
    if (strcmp(o->method, "dims") && strcmp(o->method, "reorder") && strcmp(o->method, "weighted"))
        usage_fail("--method must be dims, reorder or weighted");
}

/* The grid of processes the method makes over MPI_COMM_WORLD. */
static MPI_Comm make_grid(const struct opts *o, const double g[3], int dims[3])
{
    int size, periods[3] = {o->periodic, o->periodic, o->periodic}, rc;
    MPI_Comm cart = MPI_COMM_NULL;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = dims[1] = dims[2] = 0;
    if (!strcmp(o->method, "weighted")) {
        double total = g[0] * g[1] * g[2], w[3];
        for (int d = 0; d < 3; d++)
            w[d] = 2.0 * total / g[d];
        rc = MPIX_Cart_weighted_create(MPI_COMM_WORLD, 3, w, periods, MPI_INFO_NULL, dims, &cart);
    } else {
        MPI_Dims_create(size, 3, dims);
        rc = MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, !strcmp(o->method, "reorder"), &cart);
    }
    if (rc != MPI_SUCCESS || cart == MPI_COMM_NULL) {
        fprintf(stderr, "halo003: making the grid (--method %s) failed (%d)\n", o->method, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return cart;
}

/* Each rank's node, an index shared by the ranks whose processor names match. */
static int *node_of_ranks(MPI_Comm c, int size)
{
    char me[MPI_MAX_PROCESSOR_NAME] = {0};
    int len, *node = malloc(sizeof(int) * size);
    char *all = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    if (!node || !all)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Get_processor_name(me, &len);
    MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, c);
    for (int r = 0; r < size; r++) {
        node[r] = r;
        for (int q = 0; q < r; q++)
            if (!strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME, all + (size_t)r * MPI_MAX_PROCESSOR_NAME)) {
                node[r] = node[q];
                break;
            }
    }
    free(all);
    return node;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct halo {
    MPI_Comm c;
    int rank, nb[6];
    size_t bytes[6]; /* per message, to nb[k]: direction k/2, side k%2 */
    unsigned char *send[6], *recv[6];
};

/* One exchange, every message's first 8 bytes checked: sender and iteration. */
static double exchange(struct halo *h, int iter)
{
    MPI_Request rq[12];
    for (int k = 0; k < 6; k++) {
        int64_t stamp[2] = {h->rank, iter};
        memcpy(h->send[k], stamp, sizeof stamp);
    }
    MPI_Barrier(h->c);
    double t = MPI_Wtime();
    for (int k = 0; k < 6; k++) /* what nb[k] sends toward me comes on the opposite side's tag */
        MPI_Irecv(h->recv[k], (int)h->bytes[k], MPI_BYTE, h->nb[k], k ^ 1, h->c, &rq[k]);
    for (int k = 0; k < 6; k++)
        MPI_Isend(h->send[k], (int)h->bytes[k], MPI_BYTE, h->nb[k], k, h->c, &rq[6 + k]);
    MPI_Waitall(12, rq, MPI_STATUSES_IGNORE);
    t = MPI_Wtime() - t;
    for (int k = 0; k < 6; k++) {
        int64_t stamp[2];
        if (h->nb[k] == MPI_PROC_NULL)
            continue;
        memcpy(stamp, h->recv[k], sizeof stamp);
        if (stamp[0] != h->nb[k] || stamp[1] != iter) {
            fprintf(stderr, "halo003: rank %d got %lld/%lld from side %d, expected %d/%d\n", h->rank,
                    (long long)stamp[0], (long long)stamp[1], k, h->nb[k], iter);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    double max;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, h->c);
    return max;
}

/* Bytes per exchange crossing nodes: in all (J_sum) and the most leaving one node (J_max). */
static void node_bytes(const struct halo *h, int size, double *jsum, double *jmax)
{
    int *node = node_of_ranks(h->c, size);
    double *out = calloc((size_t)size, sizeof(double)), mine = 0;
    if (!out)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int k = 0; k < 6; k++)
        if (h->nb[k] != MPI_PROC_NULL && node[h->nb[k]] != node[h->rank])
            mine += (double)h->bytes[k];
    out[node[h->rank]] = mine;
    MPI_Allreduce(MPI_IN_PLACE, out, size, MPI_DOUBLE, MPI_SUM, h->c);
    *jsum = *jmax = 0;
    for (int n = 0; n < size; n++) {
        *jsum += out[n];
        if (out[n] > *jmax)
            *jmax = out[n];
    }
    free(out);
    free(node);
}

static void setup(struct halo *h, const struct opts *o, const double g[3], const int dims[3])
{
    double box[3];
    for (int d = 0; d < 3; d++)
        box[d] = g[d] / dims[d];
    MPI_Comm_rank(h->c, &h->rank);
    for (int d = 0; d < 3; d++) {
        double area = box[(d + 1) % 3] * box[(d + 2) % 3];
        size_t b = (size_t)(area * o->bpc + 0.5);
        MPI_Cart_shift(h->c, d, 1, &h->nb[2 * d], &h->nb[2 * d + 1]);
        for (int s = 0; s < 2; s++) {
            int k = 2 * d + s;
            h->bytes[k] = b < 16 ? 16 : b;
            h->send[k] = calloc(h->bytes[k], 1);
            h->recv[k] = calloc(h->bytes[k], 1);
            if (!h->send[k] || !h->recv[k])
                MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    struct halo h;
    int size, dims[3];
    double g[3], jsum, jmax;
    MPI_Init(&argc, &argv);
    parse(argc, argv, &o);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int d = 0; d < 3; d++)
        g[d] = (double)o.ratio[d] * o.scale;
    h.c = make_grid(&o, g, dims);
    setup(&h, &o, g, dims);
    node_bytes(&h, size, &jsum, &jmax);
    double *t = malloc(sizeof(double) * o.iters);
    if (!t)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < o.warmup; i++)
        exchange(&h, -1 - i);
    for (int i = 0; i < o.iters; i++)
        t[i] = exchange(&h, i);
    qsort(t, (size_t)o.iters, sizeof(double), by_value);
    if (h.rank == 0)
        printf("halo003: method %s periodic %d ratio %d:%d:%d grid %.0fx%.0fx%.0f ranks %d dims %dx%dx%d "
               "J_sum %.0f J_max %.0f bytes median %.1f min %.1f max %.1f us per exchange\n",
               o.method, o.periodic, o.ratio[0], o.ratio[1], o.ratio[2], g[0], g[1], g[2], size, dims[0], dims[1],
               dims[2], jsum, jmax, t[o.iters / 2] * 1e6, t[0] * 1e6, t[o.iters - 1] * 1e6);
    free(t);
    MPI_Finalize();
    return 0;
}
