/* SPDX-License-Identifier: GPL-2.0-or-later */
/* halo: a real MPI halo exchange over the stencil of a placed step.
 *
 *   srun --mpi=pmix --stencil-map=SPEC halo [-i ITERS] [-s BYTES] [-w WARMUP]
 *        [--dims 4,3] [--periods 0,1] [--stencil '1,0;-1,0;0,1;0,-1']
 *
 * The grid comes from STENCIL_MAP_DIMS/_PERIODS/_STENCIL (set by the
 * stencil_map plugin), overridden by the options; without either, a 2-d
 * non-periodic grid from MPI_Dims_create and the 5-point stencil (in d
 * dimensions: the 2d nearest neighbours).  It builds the Cartesian
 * communicator WITHOUT reordering (so rank r keeps the coordinates the
 * placement gave it), a distributed graph communicator with one edge per
 * stencil offset, and times MPI_Neighbor_alltoall of BYTES per neighbour.
 * Every received block is checked (it carries its sender's rank and the
 * iteration).  Rank 0 prints the time per iteration (the slowest rank's)
 * as median, min and max, the messages per iteration that cross nodes and,
 * where Slurm has a topology (SLURM_TOPOLOGY_ADDR), those that cross leaf
 * switches.  Exit 0 on success, 1 when a block was wrong,
 * 2 on bad arguments or environment. */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencilmap.h"
#include "stencilmap_mpi.h"

struct opts {
    long iters, bytes, warmup;
    const char *dims, *periods, *stencil;
    char buf_dims[128], buf_periods[64], buf_stencil[256];
};

/* arguments first, then the environment, then the defaults */
static const char *lookup(const char *name, void *arg)
{
    struct opts *o = arg;
    if (!strcmp(name, "STENCIL_MAP_DIMS"))
        return o->dims ? o->dims : getenv(name);
    if (!strcmp(name, "STENCIL_MAP_PERIODS"))
        return o->periods ? o->periods : getenv(name);
    if (!strcmp(name, "STENCIL_MAP_STENCIL"))
        return o->stencil ? o->stencil : getenv(name);
    if (!strcmp(name, "STENCIL_MAP_COORDS") || !strcmp(name, "STENCIL_MAP_ORDER"))
        return o->dims ? NULL : getenv(name); /* only when the grid is the environment's */
    if (!strcmp(name, "STENCIL_MAP_WEIGHTS"))
        return o->stencil ? NULL : getenv(name);
    return getenv(name);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
    fputs("usage: srun --mpi=pmix [--stencil-map=SPEC] halo [-i ITERS] [-s BYTES] [-w WARMUP]\n"
          "            [--dims D1,D2,..] [--periods P1,P2,..] [--stencil 'o1,o2;...']\n",
          f);
}

/* Reads the options into o; returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, int rank, struct opts *o)
{
    static const struct option lo[] = {{"iters", required_argument, NULL, 'i'},
                                       {"size", required_argument, NULL, 's'},
                                       {"warmup", required_argument, NULL, 'w'},
                                       {"dims", required_argument, NULL, 'd'},
                                       {"periods", required_argument, NULL, 'p'},
                                       {"stencil", required_argument, NULL, 't'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof(*o));
    o->iters = 100, o->bytes = 8192, o->warmup = 10;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "i:s:w:h", lo, NULL)) != -1) {
        switch (c) {
        case 'i': o->iters = strtol(optarg, &end, 10); if (*end || o->iters < 1 || o->iters > 10000000) o->iters = -1; break;
        case 's': o->bytes = strtol(optarg, &end, 10); if (*end || o->bytes < 8 || o->bytes > (1L << 28)) o->bytes = -1; break;
        case 'w': o->warmup = strtol(optarg, &end, 10); if (*end || o->warmup < 0 || o->warmup > 1000000) o->warmup = -1; break;
        case 'd': o->dims = optarg; break;
        case 'p': o->periods = optarg; break;
        case 't': o->stencil = optarg; break;
        case 'h': if (!rank) usage(stdout); return 0;
        default: if (!rank) usage(stderr); return 2;
        }
    }
    if (o->iters < 0 || o->bytes < 0 || o->warmup < 0 || optind < argc) {
        if (!rank) {
            fprintf(stderr, "halo: -i wants 1..10^7, -s 8..2^28 bytes, -w 0..10^6\n");
            usage(stderr);
        }
        return 2;
    }
    return -1;
}

/* Completes the grid when the options give it or nothing does: periods
 * all 0, the nearest-neighbour stencil, and without any grid a 2-d one
 * from MPI_Dims_create.  Returns where the grid comes from. */
static const char *grid_defaults(struct opts *o, int size)
{
    const char *source = "STENCIL_MAP_* environment";
    if (!o->dims && !getenv("STENCIL_MAP_DIMS")) { /* not placed: a 2-d default */
        int d[2] = {0, 0};
        MPI_Dims_create(size, 2, d);
        snprintf(o->buf_dims, sizeof(o->buf_dims), "%d,%d", d[0], d[1]);
        o->dims = o->buf_dims;
        source = "defaults (MPI_Dims_create)";
    } else if (o->dims) {
        source = "arguments";
    }
    if (!o->dims)
        return source;
    int nd = 1;
    for (const char *p = o->dims; *p; p++)
        nd += *p == ',';
    if (!o->periods) {
        size_t off = 0;
        for (int i = 0; i < nd && i < 8; i++)
            off += (size_t)snprintf(o->buf_periods + off, sizeof(o->buf_periods) - off, "%s0", i ? "," : "");
        o->periods = o->buf_periods;
    }
    if (!o->stencil) { /* the nearest-neighbour (5-point in 2-d) stencil */
        size_t off = 0;
        for (int i = 0; i < nd && i < 8; i++)
            for (int s = 1; s >= -1; s -= 2)
                for (int j = 0; j < nd; j++)
                    off += (size_t)snprintf(o->buf_stencil + off, sizeof(o->buf_stencil) - off, "%s%d",
                                            j ? "," : (off ? ";" : ""), j == i ? s : 0);
        o->stencil = o->buf_stencil;
    }
    return source;
}

/* Where the messages go: on rank 0, the messages per iteration that leave
 * their node (*remote_all) and the number of nodes. */
static void count_nodes(const int *dsts, int outdeg, int rank, int size, long long *remote_all,
                        int *nnodes)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int nl;
    MPI_Get_processor_name(name, &nl);
    char *names = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    if (!names)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    long long remote = 0;
    for (int k = 0; k < outdeg; k++)
        remote += strcmp(names + (size_t)dsts[k] * MPI_MAX_PROCESSOR_NAME, name) != 0;
    MPI_Reduce(&remote, remote_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    *nnodes = 0;
    if (!rank)
        for (int r = 0; r < size; r++) {
            int seen = 0;
            for (int q = 0; q < r && !seen; q++)
                seen = !strcmp(names + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                               names + (size_t)r * MPI_MAX_PROCESSOR_NAME);
            *nnodes += !seen;
        }
    free(names);
}

/* The leaf switch (or block) of this rank's node: SLURM_TOPOLOGY_ADDR,
 * which slurmstepd sets from Slurm's topology ("s0.s1.node7" under
 * topology/tree, "block1.node7" under topology/block), without its last
 * part, the node.  Empty when Slurm knows no topology. */
static void leaf_switch(char *leaf, size_t len)
{
    const char *addr = getenv("SLURM_TOPOLOGY_ADDR");
    const char *dot = addr ? strrchr(addr, '.') : NULL;
    leaf[0] = '\0';
    if (dot && (size_t)(dot - addr) < len)
        snprintf(leaf, len, "%.*s", (int)(dot - addr), addr);
}

/* On rank 0, the messages per iteration that leave their leaf switch
 * (*remote_all) and the number of leaf switches, or -1 for both when some
 * rank's node has no topology address. */
static void count_switches(const int *dsts, int outdeg, int rank, int size, long long *remote_all,
                           int *nswitches)
{
    enum { LEN = 256 };
    char leaf[LEN];
    leaf_switch(leaf, sizeof(leaf));
    char *leaves = malloc((size_t)size * LEN);
    if (!leaves)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Allgather(leaf, LEN, MPI_CHAR, leaves, LEN, MPI_CHAR, MPI_COMM_WORLD);
    long long remote = 0;
    for (int k = 0; k < outdeg; k++)
        remote += strcmp(leaves + (size_t)dsts[k] * LEN, leaf) != 0;
    MPI_Reduce(&remote, remote_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    *nswitches = 0;
    if (!rank) {
        for (int r = 0; r < size && *nswitches >= 0; r++) {
            int seen = 0;
            if (!leaves[(size_t)r * LEN])
                *nswitches = -1;
            for (int q = 0; q < r && !seen; q++)
                seen = !strcmp(leaves + (size_t)q * LEN, leaves + (size_t)r * LEN);
            if (*nswitches >= 0)
                *nswitches += !seen;
        }
        if (*nswitches < 0)
            *remote_all = -1;
    }
    free(leaves);
}

/* The neighbour lists and buffers of one rank's exchange. */
struct halo {
    MPI_Comm graph;
    int indeg, outdeg;
    int *srcs, *dsts;
    char *sendbuf, *recvbuf;
};

/* The timed exchanges: each block carries its sender's rank and the
 * iteration; times[it] is this rank's time of iteration it.  Returns the
 * number of wrong blocks received. */
static long exchange(const struct halo *h, const struct opts *o, int rank, double *times)
{
    long bad = 0;
    size_t bytes = (size_t)o->bytes;
    for (long it = -o->warmup; it < o->iters; it++) {
        int stamp[2] = {rank, (int)it};
        for (int k = 0; k < h->outdeg; k++)
            memcpy(h->sendbuf + (size_t)k * bytes, stamp, sizeof(stamp));
        MPI_Barrier(h->graph);
        double t0 = MPI_Wtime();
        MPI_Neighbor_alltoall(h->sendbuf, (int)bytes, MPI_BYTE, h->recvbuf, (int)bytes, MPI_BYTE,
                              h->graph);
        double t1 = MPI_Wtime();
        for (int k = 0; k < h->indeg; k++) {
            int got[2];
            memcpy(got, h->recvbuf + (size_t)k * bytes, sizeof(got));
            if (got[0] != h->srcs[k] || got[1] != (int)it)
                bad++;
        }
        if (it >= 0)
            times[it] = t1 - t0;
    }
    return bad;
}

/* Rank 0's report; tmax holds the slowest rank's time of each iteration. */
static void report(const struct opts *o, const stencilmap_place *pl, const char *source, int size,
                   int nnodes, long long remote_all, int nswitches, long long switch_all,
                   double *tmax, long bad_all)
{
    long iters = o->iters;
    qsort(tmax, (size_t)iters, sizeof(double), cmp_double);
    double med = iters % 2 ? tmax[iters / 2] : (tmax[iters / 2 - 1] + tmax[iters / 2]) / 2;
    char dims[128];
    size_t off = 0;
    for (int i = 0; i < pl->ndims; i++)
        off += (size_t)snprintf(dims + off, sizeof(dims) - off, "%s%lld", i ? "x" : "",
                                (long long)pl->dims[i]);
    printf("halo: %d ranks on %d nodes, grid %s (%s), %d offsets, %s, %ld B per neighbour, "
           "%lld inter-node messages per iteration\n",
           size, nnodes, dims, source, pl->noffsets,
           getenv("STENCIL_MAP_ALGORITHM") ? getenv("STENCIL_MAP_ALGORITHM") : "no placement",
           o->bytes, remote_all);
    if (nswitches > 0)
        printf("halo: %d leaf switches (SLURM_TOPOLOGY_ADDR), %lld inter-switch messages per "
               "iteration\n",
               nswitches, switch_all);
    printf("halo: %ld iterations (+%ld warm-up): time per iteration median %.1f us, min %.1f us, "
           "max %.1f us; halo check %s\n",
           iters, o->warmup, med * 1e6, tmax[0] * 1e6, tmax[iters - 1] * 1e6,
           bad_all ? "FAILED" : "ok");
    if (bad_all)
        printf("halo: %ld received blocks were wrong\n", bad_all);
    fflush(stdout);
}

/* The grid of the step (or of the options) as a Cartesian communicator
 * that keeps every rank's coordinates; returns 0 or the exit code. */
static int make_cart(int rank, stencilmap_place *pl, MPI_Comm *cart, const char *source,
                     struct opts *o)
{
    char msg[STENCILMAP_MSG_LEN];
    stencilmap_status st = stencilmap_place_parse(pl, lookup, o, msg, sizeof(msg));
    if (st != STENCILMAP_OK) {
        if (!rank)
            fprintf(stderr, "halo: grid from %s: %s\n", source, msg);
        return 2;
    }
    st = stencilmap_mpi_cart_create(MPI_COMM_WORLD, pl, cart, msg, sizeof(msg));
    int ok = st == STENCILMAP_OK, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (!ok)
            fprintf(stderr, "halo: rank %d: %s\n", rank, msg);
        stencilmap_place_free(pl);
        return 2;
    }
    return 0;
}

/* One graph edge per stencil offset, and buffers for BYTES per neighbour. */
static void make_halo(MPI_Comm cart, const stencilmap_place *pl, int rank, long bytes,
                      struct halo *h)
{
    char msg[STENCILMAP_MSG_LEN];
    h->indeg = h->outdeg = 0;
    if (stencilmap_mpi_stencil_graph(cart, pl, &h->graph, &h->indeg, &h->outdeg, msg,
                                     sizeof(msg)) != STENCILMAP_OK) {
        fprintf(stderr, "halo: rank %d: %s\n", rank, msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    h->srcs = malloc(sizeof(int) * (size_t)(h->indeg + 1));
    h->dsts = malloc(sizeof(int) * (size_t)(h->outdeg + 1));
    h->sendbuf = malloc((size_t)bytes * (size_t)(h->outdeg + 1));
    h->recvbuf = malloc((size_t)bytes * (size_t)(h->indeg + 1));
    if (!h->srcs || !h->dsts || !h->sendbuf || !h->recvbuf) {
        fprintf(stderr, "halo: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *volatile unweighted = MPI_UNWEIGHTED; /* volatile: see stencilmap_mpi.h */
    MPI_Dist_graph_neighbors(h->graph, h->indeg, h->srcs, unweighted, h->outdeg, h->dsts,
                             unweighted);
    memset(h->sendbuf, 0x5a, (size_t)bytes * (size_t)h->outdeg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct opts o;
    int rc = parse_args(argc, argv, rank, &o);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    const char *source = grid_defaults(&o, size);
    stencilmap_place pl;
    MPI_Comm cart;
    if ((rc = make_cart(rank, &pl, &cart, source, &o))) {
        MPI_Finalize();
        return rc;
    }
    struct halo h;
    make_halo(cart, &pl, rank, o.bytes, &h);
    long long remote_all = 0;
    int nnodes;
    count_nodes(h.dsts, h.outdeg, rank, size, &remote_all, &nnodes);
    long long switch_all = 0;
    int nswitches;
    count_switches(h.dsts, h.outdeg, rank, size, &switch_all, &nswitches);

    double *times = malloc(sizeof(double) * (size_t)o.iters);
    double *tmax = malloc(sizeof(double) * (size_t)o.iters);
    if (!times || !tmax) {
        fprintf(stderr, "halo: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bad = exchange(&h, &o, rank, times), bad_all = 0;
    MPI_Reduce(times, tmax, (int)o.iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!rank)
        report(&o, &pl, source, size, nnodes, remote_all, nswitches, switch_all, tmax, bad_all);
    free(h.srcs);
    free(h.dsts);
    free(h.sendbuf);
    free(h.recvbuf);
    free(times);
    free(tmax);
    MPI_Comm_free(&h.graph);
    MPI_Comm_free(&cart);
    stencilmap_place_free(&pl);
    MPI_Finalize();
    return bad_all ? 1 : 0;
}
