/* SPDX-License-Identifier: GPL-2.0-or-later */
/* halo_smpi: the halo exchange of contrib/examples/halo, for SimGrid's SMPI.
 *
 *   smpirun -platform P.xml -hostfile H -np N halo_smpi --dims 64,64
 *           --stencil '1,0;-1,0;0,1;0,-1' [--periods 0,1] [-s BYTES] [-i ITERS]
 *           [-w WARMUP] [--count 0|1]
 *
 * The same grid and stencil as the demo (row-major: the last dimension
 * fastest, as MPI_Cart_create numbers ranks and stencil-map plans them;
 * not periodic unless --periods says so) and the same message per
 * neighbour, but written for the simulator at 16,384 ranks:
 *  - MPI_Isend/MPI_Irecv instead of MPI_Neighbor_alltoall and
 *    MPI_Dist_graph_create, which SMPI 3.32 does not implement, and no
 *    MPI_Cart_create, which costs O(p^2) there: neighbours are computed
 *    from the coordinates;
 *  - buffers from SMPI_SHARED_MALLOC (all ranks share one allocation, so
 *    16,384 ranks need no 16,384 copies; their content means nothing, so
 *    the blocks are not checked, only counted);
 *  - no computation, and no global variable (ranks are threads of one
 *    process run with -no-privatize).
 * With --count 1 (the default), before timing, every rank tells each
 * neighbour which host it runs on, so rank 0 can print the inter-node
 * messages per iteration: the bench checks it against the plan's J_sum,
 * i.e. that the simulated run is the placement the hostfile stands for and
 * that these neighbours are the planner's.  That costs SMPI 10 to 30 times
 * the exchange's simulation (at 1,024 ranks of a 27-point stencil: 7.4 s
 * against 0.6 s of CPU), so large runs take --count 0.  Rank 0 prints the
 * slowest rank's time of each iteration and their median, min and max.
 * Exit 0 on success, 2 on bad arguments. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 8
#define MAX_OFFSETS 128

struct opts {
    int ndims, noffsets;
    long long dims[MAX_DIMS];
    int periods[MAX_DIMS];
    int offsets[MAX_OFFSETS][MAX_DIMS];
    long bytes, iters, warmup;
    int count; /* exchange host names first and count the inter-node messages */
};

/* "a,b,c" -> up to max integers; returns the count, -1 when malformed */
static int parse_list(const char *s, long long *out, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || n == max)
            return -1;
        out[n++] = v;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        s = end;
    }
    return n;
}

/* "1,0;-1,0" -> offsets of ndims components each */
static int parse_stencil(const char *s, struct opts *o)
{
    char buf[4096];
    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    o->noffsets = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        long long v[MAX_DIMS];
        if (o->noffsets == MAX_OFFSETS || parse_list(tok, v, MAX_DIMS) != o->ndims)
            return -1;
        int zero = 1;
        for (int i = 0; i < o->ndims; i++) {
            if (v[i] < -1000 || v[i] > 1000)
                return -1;
            o->offsets[o->noffsets][i] = (int)v[i];
            zero &= v[i] == 0;
        }
        if (zero)
            return -1;
        o->noffsets++;
    }
    return o->noffsets > 0 ? 0 : -1;
}

static long parse_long(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v >= lo && v <= hi ? v : -1;
}

/* Returns NULL or what is wrong with the arguments. */
static const char *parse_args(int argc, char **argv, int size, struct opts *o)
{
    const char *dims = NULL, *periods = NULL, *stencil = NULL;
    memset(o, 0, sizeof(*o));
    o->bytes = 262144, o->iters = 1, o->warmup = 0, o->count = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return "every option takes a value";
        if (!strcmp(a, "--dims"))
            dims = v;
        else if (!strcmp(a, "--periods"))
            periods = v;
        else if (!strcmp(a, "--stencil"))
            stencil = v;
        else if (!strcmp(a, "-s"))
            o->bytes = parse_long(v, 8, 1L << 28);
        else if (!strcmp(a, "-i"))
            o->iters = parse_long(v, 1, 1000000);
        else if (!strcmp(a, "-w"))
            o->warmup = parse_long(v, 0, 1000000);
        else if (!strcmp(a, "--count"))
            o->count = (int)parse_long(v, 0, 1);
        else
            return "unknown option (--dims, --periods, --stencil, -s, -i, -w, --count)";
        i++;
    }
    if (o->bytes < 0 || o->iters < 0 || o->warmup < 0 || o->count < 0)
        return "-s wants 8..2^28 bytes, -i 1..10^6, -w 0..10^6, --count 0 or 1";
    if (!dims || !stencil)
        return "--dims and --stencil are required";
    o->ndims = parse_list(dims, o->dims, MAX_DIMS);
    if (o->ndims < 1)
        return "--dims: 1 to 8 comma-separated sizes";
    long long p = 1;
    for (int i = 0; i < o->ndims; i++) {
        if (o->dims[i] < 1 || o->dims[i] > size)
            return "--dims: every size must be 1 to the rank count";
        p *= o->dims[i];
    }
    if (p != size)
        return "--dims: the product must be the number of ranks";
    if (periods) {
        long long pv[MAX_DIMS];
        if (parse_list(periods, pv, MAX_DIMS) != o->ndims)
            return "--periods: one 0 or 1 per dimension";
        for (int i = 0; i < o->ndims; i++)
            o->periods[i] = pv[i] != 0;
    }
    if (parse_stencil(stencil, o))
        return "--stencil: offsets 'a,b;c,d', one component per dimension, no zero offset";
    return NULL;
}

/* The rank at coords + offset k, or -1 when it falls off a non-periodic
 * edge. */
static int neighbour(const struct opts *o, const long long *coords, int k)
{
    long long r = 0;
    for (int i = 0; i < o->ndims; i++) {
        long long c = coords[i] + o->offsets[k][i];
        if (c < 0 || c >= o->dims[i]) {
            if (!o->periods[i])
                return -1;
            c = ((c % o->dims[i]) + o->dims[i]) % o->dims[i];
        }
        r = r * o->dims[i] + c;
    }
    return (int)r;
}

/* The neighbours of one rank: dst[k] = coords + offset k, src[k] =
 * coords - offset k (who sends to us along offset k), -1 for none. */
static void neighbours(const struct opts *o, int rank, int *dst, int *src)
{
    long long coords[MAX_DIMS], back[MAX_DIMS];
    long long r = rank;
    for (int i = o->ndims - 1; i >= 0; i--) {
        coords[i] = r % o->dims[i];
        r /= o->dims[i];
    }
    for (int k = 0; k < o->noffsets; k++) {
        dst[k] = neighbour(o, coords, k);
        for (int i = 0; i < o->ndims; i++)
            back[i] = coords[i] - 2LL * o->offsets[k][i];
        src[k] = neighbour(o, back, k); /* back + offset = coords - offset */
    }
}

/* Untimed: each rank sends its host's name to every neighbour it sends
 * to; returns how many of those messages leave the host. */
static long long remote_messages(const struct opts *o, const int *dst, const int *src)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = "", theirs[MAX_OFFSETS][MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(mine, &len);
    MPI_Request req[2 * MAX_OFFSETS];
    int n = 0;
    for (int k = 0; k < o->noffsets; k++)
        if (src[k] >= 0) /* our sender along k learns nothing: we learn about our receivers */
            MPI_Isend(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, src[k], k, MPI_COMM_WORLD, &req[n++]);
    for (int k = 0; k < o->noffsets; k++)
        if (dst[k] >= 0)
            MPI_Irecv(theirs[k], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, dst[k], k, MPI_COMM_WORLD, &req[n++]);
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    long long remote = 0;
    for (int k = 0; k < o->noffsets; k++)
        remote += dst[k] >= 0 && strcmp(theirs[k], mine) != 0;
    return remote;
}

/* One exchange: BYTES to every neighbour along each offset, from each
 * neighbour against it; returns this rank's time in seconds. */
static double exchange(const struct opts *o, const int *dst, const int *src, char *sendbuf,
                       char *recvbuf, MPI_Request *req)
{
    int n = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < o->noffsets; k++)
        if (src[k] >= 0)
            MPI_Irecv(recvbuf + (size_t)k * (size_t)o->bytes, (int)o->bytes, MPI_BYTE, src[k], k,
                      MPI_COMM_WORLD, &req[n++]);
    for (int k = 0; k < o->noffsets; k++)
        if (dst[k] >= 0)
            MPI_Isend(sendbuf + (size_t)k * (size_t)o->bytes, (int)o->bytes, MPI_BYTE, dst[k], k,
                      MPI_COMM_WORLD, &req[n++]);
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    return MPI_Wtime() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const struct opts *o, int size, long long remote, double *tmax)
{
    printf("halo_smpi: %d ranks, grid", size);
    for (int i = 0; i < o->ndims; i++)
        printf("%c%lld", i ? 'x' : ' ', o->dims[i]);
    if (remote >= 0)
        printf(", %d offsets, %ld B per neighbour, %lld inter-node messages per iteration\n",
               o->noffsets, o->bytes, remote);
    else
        printf(", %d offsets, %ld B per neighbour (inter-node messages not counted)\n", o->noffsets,
               o->bytes);
    printf("halo_smpi: iteration times us:");
    for (long it = 0; it < o->iters; it++)
        printf(" %.3f", tmax[it] * 1e6);
    qsort(tmax, (size_t)o->iters, sizeof(double), cmp_double);
    long n = o->iters;
    double med = n % 2 ? tmax[n / 2] : (tmax[n / 2 - 1] + tmax[n / 2]) / 2;
    printf("\nhalo_smpi: %ld iterations (+%ld warm-up): time per iteration median %.3f us, "
           "min %.3f us, max %.3f us\n",
           n, o->warmup, med * 1e6, tmax[0] * 1e6, tmax[n - 1] * 1e6);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct opts *o = malloc(sizeof(*o)); /* large for a 256 KiB stack */
    if (!o)
        MPI_Abort(MPI_COMM_WORLD, 4);
    const char *bad = parse_args(argc, argv, size, o);
    if (bad) {
        if (!rank)
            fprintf(stderr, "halo_smpi: %s\n", bad);
        free(o);
        MPI_Finalize();
        return 2;
    }
    int dst[MAX_OFFSETS], src[MAX_OFFSETS];
    neighbours(o, rank, dst, src);
    long long remote = o->count ? remote_messages(o, dst, src) : -1, remote_all = -1;
    if (o->count)
        MPI_Reduce(&remote, &remote_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    size_t len = (size_t)o->bytes * (size_t)o->noffsets;
    char *sendbuf = SMPI_SHARED_MALLOC(len), *recvbuf = SMPI_SHARED_MALLOC(len);
    double *times = malloc(sizeof(double) * (size_t)o->iters);
    double *tmax = malloc(sizeof(double) * (size_t)o->iters);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)o->noffsets);
    if (!sendbuf || !recvbuf || !times || !tmax || !req)
        MPI_Abort(MPI_COMM_WORLD, 4);
    for (long it = -o->warmup; it < o->iters; it++) {
        double t = exchange(o, dst, src, sendbuf, recvbuf, req);
        if (it >= 0)
            times[it] = t;
    }
    MPI_Reduce(times, tmax, (int)o->iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!rank)
        report(o, size, remote_all, tmax);
    SMPI_SHARED_FREE(sendbuf);
    SMPI_SHARED_FREE(recvbuf);
    free(times);
    free(tmax);
    free(req);
    free(o);
    MPI_Finalize();
    return 0;
}
