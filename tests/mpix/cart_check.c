/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MPI program of tests/mpix: builds a Cartesian communicator the way
 * MODE says and checks it as an application would rely on it.
 *
 *   cart_check cart0|cart1|mpix0|mpix1 DIMS PERIODS HOSTFILE
 *   cart_check weighted WEIGHTS PERIODS HOSTFILE
 *   cart_check errors | seed
 *
 * cart0/cart1: MPI_Cart_create with reorder 0/1 (so the reorder library,
 * preloaded, acts on cart1); mpix0/mpix1: MPIX_Cart_stencil_comm with the
 * nearest-neighbour stencil (built with -DWITH_MPIX).  Checks, each
 * printed "ok ..." on rank 0 or "FAIL ..." with exit 1: MPI_Topo_test,
 * MPI_Cart_get against MPI_Cart_coords, MPI_Cart_rank of the coordinates
 * back to the rank, a halo exchange along every axis with MPI_Cart_shift
 * whose received coordinates are the neighbour's, and with reorder 0 that
 * the ranks are MPI_COMM_WORLD's.  Then "observed J_sum S J_max M": the
 * directed +-1 edges between processes of different processor names,
 * counted on the new communicator, and HOSTFILE, the processor name of
 * each new rank, one a line, for an independent score, and "world rank 0
 * is rank R", its rank in the new communicator.  errors: the
 * argument errors of MPIX_Cart_stencil_comm, as return codes.  seed: seed
 * 003's worked examples through MPIX_Dims_weighted_create and
 * MPIX_Dims_ml_create, MPIX_Cart_ml_create's layout over 2 levels (needs
 * 8 processes) and MPIX_Cart_weighted_create's communicator.  weighted:
 * MPIX_Cart_weighted_create with integer WEIGHTS and free dims (printed
 * "dims AxB"), then the checks and counts of cart1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_MPIX
#include <stencilmap_mpix.h>
#endif

#define MAXD 8
static int failed;

static void check(int ok, const char *what, int rank)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s\n", all ? "ok" : "FAIL", what);
    failed |= !all;
}

static int parse_list(const char *s, int *v)
{
    int n = 0;
    for (char *end; *s && n < MAXD; s = *end ? end + 1 : end)
        v[n++] = (int)strtol(s, &end, 10);
    return n;
}

/* MPI_Cart_get, MPI_Cart_coords and MPI_Cart_rank agree */
static int cart_consistent(MPI_Comm cart, int nd, const int *dims, const int *periods)
{
    int st, d, gd[MAXD], gp[MAXD], gc[MAXD], c[MAXD], me, r;
    MPI_Topo_test(cart, &st);
    MPI_Cartdim_get(cart, &d);
    if (st != MPI_CART || d != nd)
        return 0;
    MPI_Comm_rank(cart, &me);
    MPI_Cart_get(cart, nd, gd, gp, gc);
    MPI_Cart_coords(cart, me, nd, c);
    MPI_Cart_rank(cart, c, &r);
    for (int i = 0; i < nd; i++)
        if (gd[i] != dims[i] || !gp[i] != !periods[i] || gc[i] != c[i])
            return 0;
    return r == me;
}

/* every +-1 neighbour sends its coordinates: they must be where
 * MPI_Cart_shift says it is, one step along the axis */
static int halo_ok(MPI_Comm cart, int nd, const int *dims)
{
    int me, c[MAXD], ok = 1;
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, nd, c);
    for (int d = 0; d < nd; d++)
        for (int dir = -1; dir <= 1; dir += 2) {
            int src, dst, got[MAXD], want[MAXD];
            MPI_Cart_shift(cart, d, dir, &src, &dst);
            MPI_Sendrecv(c, nd, MPI_INT, dst, 7, got, nd, MPI_INT, src, 7, cart,
                         MPI_STATUS_IGNORE);
            if (src == MPI_PROC_NULL)
                continue;
            MPI_Cart_coords(cart, src, nd, want);
            for (int i = 0; i < nd; i++) {
                int step = i == d ? ((c[i] - dir - want[i]) % dims[i]) : c[i] - want[i];
                ok &= got[i] == want[i] && step == 0;
            }
        }
    return ok;
}

/* the observed inter-node edges and the hostfile, on rank 0 */
static void edges(MPI_Comm cart, int nd, const char *hostfile)
{
    int me, size, len, cut = 0;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Comm_rank(cart, &me);
    MPI_Comm_size(cart, &size);
    MPI_Get_processor_name(name, &len);
    char *all = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    int *cuts = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  cart);
    for (int d = 0; d < nd; d++)
        for (int dir = -1; dir <= 1; dir += 2) {
            int src, dst;
            MPI_Cart_shift(cart, d, dir, &src, &dst);
            if (dst != MPI_PROC_NULL && strcmp(all + (size_t)dst * MPI_MAX_PROCESSOR_NAME, name))
                cut++;
        }
    MPI_Gather(&cut, 1, MPI_INT, cuts, 1, MPI_INT, 0, cart);
    if (me == 0) {
        long sum = 0, max = 0;
        FILE *f = fopen(hostfile, "w");
        for (int r = 0; r < size; r++) {
            long node = 0; /* this rank's node's outgoing edges */
            for (int q = 0; q < size; q++)
                if (!strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                            all + (size_t)r * MPI_MAX_PROCESSOR_NAME))
                    node += cuts[q];
            sum += cuts[r];
            max = node > max ? node : max;
            if (f)
                fprintf(f, "%s\n", all + (size_t)r * MPI_MAX_PROCESSOR_NAME);
        }
        if (!f || fclose(f))
            printf("FAIL writing %s\n", hostfile), failed = 1;
        printf("observed J_sum %ld J_max %ld\n", sum, max);
    }
    free(all);
    free(cuts);
}

#ifdef WITH_MPIX
/* each bad argument gives its error class and MPI_COMM_NULL, no abort */
static void errors(int rank, int size)
{
    int dims[2] = {size, 1}, bad[2] = {size + 1, 1}, neg[2] = {-size, -1}, per[2] = {0, 0};
    int st[] = {1, 0, -1, 0}, zero[] = {0, 0, 1, 0}, dup[] = {1, 0, 1, 0}, far[] = {2000000, 0};
    MPI_Comm c = MPI_COMM_WORLD;
    struct {
        const char *what;
        int rc, want;
    } t[] = {
        {"MPI_COMM_NULL", MPIX_Cart_stencil_comm(MPI_COMM_NULL, 2, dims, per, 1, st, 2, &c),
         MPI_ERR_COMM},
        {"ndims 0", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 0, dims, per, 1, st, 2, &c),
         MPI_ERR_DIMS},
        {"ndims 9", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 9, dims, per, 1, st, 2, &c),
         MPI_ERR_DIMS},
        {"dims product != size", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, bad, per, 1, st, 2, &c),
         MPI_ERR_DIMS},
        {"negative dims", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, neg, per, 1, st, 2, &c),
         MPI_ERR_DIMS},
        {"product != size, reorder 0",
         MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, bad, per, 0, st, 2, &c), MPI_ERR_DIMS},
        {"NULL stencil", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, per, 1, NULL, 2, &c),
         MPI_ERR_ARG},
        {"k 0", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, per, 1, st, 0, &c), MPI_ERR_ARG},
        {"k 5000", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, per, 1, st, 5000, &c),
         MPI_ERR_ARG},
        {"zero offset", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, per, 1, zero, 2, &c),
         MPI_ERR_ARG},
        {"repeated offset", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, per, 1, dup, 2, &c),
         MPI_ERR_ARG},
        {"offset beyond 1000000",
         MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, per, 1, far, 1, &c), MPI_ERR_ARG},
        {"NULL periods", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, NULL, 1, st, 2, &c),
         MPI_ERR_ARG},
        {"NULL cartcomm", MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, per, 1, st, 2, NULL),
         MPI_ERR_ARG},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char what[96];
        snprintf(what, sizeof(what), "error: %s returns its class", t[i].what);
        check(t[i].rc == t[i].want, what, rank);
    }
    check(c == MPI_COMM_NULL, "error: cartcomm is MPI_COMM_NULL after an error", rank);
    /* and a good call afterwards still works */
    int rc = MPIX_Cart_stencil_comm(MPI_COMM_WORLD, 2, dims, per, 1, st, 2, &c);
    check(rc == MPI_SUCCESS && c != MPI_COMM_NULL && cart_consistent(c, 2, dims, per),
          "a good call after the errors", rank);
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
}
#endif

#ifdef WITH_MPIX
/* seed 003's tables: dims_ml[dim][level] for base grid sizes per process
 * (weights 1/g, MPIX_WEIGHTS_EQUAL when equal is set) on nodes x 2 x 12 */
static void seed_tables(int rank)
{
    static const struct {
        double base[3];
        int sizes[3], equal, want[9];
    } t[] = {
        {{2, 2, 2}, {8, 2, 12}, 1, {2, 2, 2, 2, 1, 3, 2, 1, 2}},
        {{1, 2, 4}, {8, 2, 12}, 0, {1, 2, 2, 2, 1, 3, 4, 1, 2}},
        {{4, 2, 1}, {8, 2, 12}, 0, {4, 2, 2, 2, 1, 3, 1, 1, 2}},
        {{1, 2, 4}, {512, 2, 12}, 0, {4, 2, 2, 8, 1, 3, 16, 1, 2}},
        {{1000, 1100, 950}, {625, 2, 12}, 0, {5, 2, 3, 25, 1, 1, 5, 1, 4}},
    };
    int per[3] = {0, 0, 0};
    for (size_t r = 0; r < sizeof(t) / sizeof(t[0]); r++) {
        double w[3];
        int ml[9], ok;
        for (int i = 0; i < 3; i++)
            w[i] = 1.0 / t[r].base[i];
        int n = t[r].sizes[0] * t[r].sizes[1] * t[r].sizes[2];
        ok = MPIX_Dims_ml_create(n, 3, t[r].equal ? MPIX_WEIGHTS_EQUAL : w, 3, t[r].sizes, per,
                                 MPI_INFO_NULL, ml) == MPI_SUCCESS &&
             !memcmp(ml, t[r].want, sizeof(ml));
        char what[128];
        snprintf(what, sizeof(what),
                 "MPIX_Dims_ml_create %g:%g:%g on %d x %d x %d: %d=%dx%dx%d %d=%dx%dx%d %d=%dx%dx%d",
                 t[r].base[0], t[r].base[1], t[r].base[2], t[r].sizes[0], t[r].sizes[1],
                 t[r].sizes[2], ml[0] * ml[1] * ml[2], ml[0], ml[1], ml[2], ml[3] * ml[4] * ml[5],
                 ml[3], ml[4], ml[5], ml[6] * ml[7] * ml[8], ml[6], ml[7], ml[8]);
        check(ok, what, rank);
    }
    int d[3] = {0, 0, 0}, fixed[3] = {0, 3, 0};
    check(MPIX_Dims_weighted_create(192, 3, MPIX_WEIGHTS_EQUAL, per, MPI_INFO_NULL, d) ==
                  MPI_SUCCESS && d[0] == 8 && d[1] == 6 && d[2] == 4,
          "MPIX_Dims_weighted_create equal weights on 192: 8 x 6 x 4, MPI_Dims_create's", rank);
    double w[3] = {1, 0.5, 0.25};
    check(MPIX_Dims_weighted_create(192, 3, w, per, MPI_INFO_NULL, fixed) == MPI_SUCCESS &&
              fixed[1] == 3 && fixed[0] * fixed[1] * fixed[2] == 192 && fixed[0] <= fixed[2],
          "MPIX_Dims_weighted_create keeps a given side, the heavier axis cut less", rank);
    int bad[3] = {0, 5, 0};
    check(MPIX_Dims_weighted_create(192, 3, w, per, MPI_INFO_NULL, bad) == MPI_ERR_DIMS,
          "MPIX_Dims_weighted_create: a side that does not divide is MPI_ERR_DIMS", rank);
}

/* 8 processes as 2 units of 4: the grid {1 x 2 units} of {2 x 2} */
static void seed_cart(int rank, int size)
{
    int ml[4] = {1, 2, 2, 2}, per[2] = {0, 1}, dims[2], c[2], me;
    MPI_Comm cart;
    if (size != 8) {
        check(0, "seed: MPIX_Cart_ml_create's check needs 8 processes", rank);
        return;
    }
    int rc = MPIX_Cart_ml_create(MPI_COMM_WORLD, 2, per, 2, ml, MPI_INFO_NULL, dims, &cart);
    check(rc == MPI_SUCCESS && dims[0] == 2 && dims[1] == 4, "MPIX_Cart_ml_create: dims 2 x 4",
          rank);
    if (rc != MPI_SUCCESS)
        return;
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 2, c);
    check(cart_consistent(cart, 2, dims, per) && c[1] / 2 == rank / 4,
          "MPIX_Cart_ml_create: each unit of 4 sequential ranks holds one 2 x 2 block", rank);
    MPI_Comm_free(&cart);
    int wd[2] = {0, 0};
    double w[2] = {1, 3};
    rc = MPIX_Cart_weighted_create(MPI_COMM_WORLD, 2, w, per, MPI_INFO_NULL, wd, &cart);
    check(rc == MPI_SUCCESS && wd[0] * wd[1] == 8 && wd[0] > wd[1] &&
              cart_consistent(cart, 2, wd, per) && halo_ok(cart, 2, wd),
          "MPIX_Cart_weighted_create weights 1:3 on 8: the heavier axis cut less, consistent, "
          "halo ok", rank);
    if (rc == MPI_SUCCESS)
        MPI_Comm_free(&cart);
}

#endif

static int create(const char *mode, int nd, int *dims, const int *periods, MPI_Comm *cart)
{
#ifdef WITH_MPIX
    if (!strcmp(mode, "weighted")) { /* DIMS are the weights; the dims come out */
        double w[MAXD];
        for (int i = 0; i < nd; i++) {
            w[i] = dims[i];
            dims[i] = 0;
        }
        int rc = MPIX_Cart_weighted_create(MPI_COMM_WORLD, nd, w, periods, MPI_INFO_NULL, dims, cart);
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        for (int i = 0; rank == 0 && rc == MPI_SUCCESS && i < nd; i++)
            printf("%s%d%s", i ? "x" : "dims ", dims[i], i + 1 < nd ? "" : "\n");
        return rc;
    }
#endif
    int reorder = mode[strlen(mode) - 1] == '1';
    if (!strncmp(mode, "cart", 4))
        return MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, reorder, cart);
#ifdef WITH_MPIX
    int st[2 * MAXD * MAXD] = {0};
    for (int d = 0; d < nd; d++) { /* +-1 along each axis: MPI_Cart_shift's */
        st[(2 * d) * nd + d] = 1;
        st[(2 * d + 1) * nd + d] = -1;
    }
    return MPIX_Cart_stencil_comm(MPI_COMM_WORLD, nd, dims, periods, reorder, st, 2 * nd, cart);
#else
    fprintf(stderr, "cart_check: %s needs a build with -DWITH_MPIX\n", mode);
    return MPI_ERR_ARG;
#endif
}

int main(int argc, char **argv)
{
    int rank, size, dims[MAXD], periods[MAXD];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 2 && !strcmp(argv[1], "errors")) {
#ifdef WITH_MPIX
        errors(rank, size);
#else
        failed = 1;
#endif
        MPI_Finalize();
        return failed;
    }
    if (argc == 2 && !strcmp(argv[1], "seed")) {
#ifdef WITH_MPIX
        seed_tables(rank);
        seed_cart(rank, size);
#else
        failed = 1;
#endif
        MPI_Finalize();
        return failed;
    }
    if (argc != 5) {
        fprintf(stderr, "usage: cart_check cart0|cart1|mpix0|mpix1|weighted DIMS PERIODS HOSTFILE | errors | seed\n");
        MPI_Finalize();
        return 2;
    }
    int nd = parse_list(argv[2], dims);
    if (parse_list(argv[3], periods) != nd) {
        fprintf(stderr, "cart_check: DIMS and PERIODS differ in length\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm cart;
    int rc = create(argv[1], nd, dims, periods, &cart);
    check(rc == MPI_SUCCESS && cart != MPI_COMM_NULL, "the communicator was created", rank);
    if (!failed) {
        int me;
        MPI_Comm_rank(cart, &me);
        check(cart_consistent(cart, nd, dims, periods),
              "MPI_Topo_test, MPI_Cart_get, MPI_Cart_coords and MPI_Cart_rank agree", rank);
        check(halo_ok(cart, nd, dims), "halo exchange: every neighbour's coordinates", rank);
        if (argv[1][strlen(argv[1]) - 1] == '0')
            check(me == rank, "reorder 0: every rank is MPI_COMM_WORLD's", rank);
        if (rank == 0) /* codes such as GROMACS need it to be 0 */
            printf("world rank 0 is rank %d\n", me);
        edges(cart, nd, argv[4]);
        MPI_Comm_free(&cart);
    }
    MPI_Finalize();
    return failed;
}
