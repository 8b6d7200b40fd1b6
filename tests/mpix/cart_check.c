/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MPI program of tests/mpix: builds a Cartesian communicator the way
 * MODE says and checks it as an application would rely on it.
 *
 *   cart_check cart0|cart1|mpix0|mpix1 DIMS PERIODS HOSTFILE
 *   cart_check errors
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
 * each new rank, one a line, for an independent score.  errors: the
 * argument errors of MPIX_Cart_stencil_comm, as return codes.
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

static int create(const char *mode, int nd, const int *dims, const int *periods, MPI_Comm *cart)
{
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
    if (argc != 5) {
        fprintf(stderr, "usage: cart_check cart0|cart1|mpix0|mpix1 DIMS PERIODS HOSTFILE | errors\n");
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
        edges(cart, nd, argv[4]);
        MPI_Comm_free(&cart);
    }
    MPI_Finalize();
    return failed;
}
