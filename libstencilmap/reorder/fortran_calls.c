/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Fortran entry points of the calls the reorder library interposes.
 * Debian's Open MPI 4.1 builds its Fortran bindings (libmpi_mpifh, which
 * mpif.h and `use mpi` reach) on the C profiling names: mpi_cart_create_
 * calls PMPI_Cart_create, so a preloaded C MPI_Cart_create never sees a
 * Fortran caller (nm -D libmpi_mpifh.so: "U PMPI_Cart_create", and a
 * probe library's MPI_Cart_create is not called).  So we define the
 * Fortran symbols ourselves (gfortran's lower case with one underscore),
 * convert the handles with MPI_Comm_f2c/c2f and LOGICALs to ints, and
 * call the C entry points, ours among them; mpif.h and `use mpi` both end
 * here, `use mpi_f08` (pmpi_cart_create_) does not.  MPICH 4.0's
 * bindings (libmpichfort) do reach a preloaded C MPI_Cart_create (the
 * same probe); defining the same symbols for it changes nothing but makes
 * the two builds behave alike.  MPI_DIST_GRAPH_CREATE_ADJACENT is left to
 * MPI's bindings (MPI_UNWEIGHTED is a Fortran address of its own).
 */
#include <stdlib.h>

#include <mpi.h>

void mpi_cart_create_(MPI_Fint *comm, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods,
                      MPI_Fint *reorder, MPI_Fint *cart, MPI_Fint *ierr);
void mpi_graph_create_(MPI_Fint *comm, MPI_Fint *nnodes, MPI_Fint *index, MPI_Fint *edges,
                       MPI_Fint *reorder, MPI_Fint *graph, MPI_Fint *ierr);

/* Fortran INTEGER arrays as C ints (MPI_Fint is int on both MPIs here,
 * but the copy keeps that an assumption of nobody's); LOGICALs as 0/1 */
static int *ints_of(const MPI_Fint *v, MPI_Fint n, int logical)
{
    int *c = malloc(sizeof(int) * ((size_t)(n > 0 ? n : 0) + 1));
    for (MPI_Fint i = 0; c && i < n; i++)
        c[i] = logical ? v[i] != 0 : (int)v[i];
    return c;
}

void mpi_cart_create_(MPI_Fint *comm, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods,
                      MPI_Fint *reorder, MPI_Fint *cart, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int *cd = ints_of(dims, *ndims, 0), *cp = ints_of(periods, *ndims, 1);
    int rc = cd && cp ? MPI_Cart_create(MPI_Comm_f2c(*comm), (int)*ndims, cd, cp, *reorder != 0, &c)
                      : MPI_ERR_NO_MEM;
    free(cd);
    free(cp);
    *cart = MPI_Comm_c2f(c);
    *ierr = rc;
}

void mpi_graph_create_(MPI_Fint *comm, MPI_Fint *nnodes, MPI_Fint *index, MPI_Fint *edges,
                       MPI_Fint *reorder, MPI_Fint *graph, MPI_Fint *ierr)
{
    MPI_Comm g = MPI_COMM_NULL;
    int *ci = ints_of(index, *nnodes, 0);
    MPI_Fint nedges = *nnodes > 0 && index[*nnodes - 1] > 0 ? index[*nnodes - 1] : 0;
    int *ce = ints_of(edges, nedges, 0);
    int rc = ci && ce ? MPI_Graph_create(MPI_Comm_f2c(*comm), (int)*nnodes, ci, ce, *reorder != 0, &g)
                      : MPI_ERR_NO_MEM;
    free(ci);
    free(ce);
    *graph = MPI_Comm_c2f(g);
    *ierr = rc;
}
