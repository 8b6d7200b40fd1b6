! SPDX-License-Identifier: GPL-2.0-or-later
! The Fortran program of tests/mpix: MPI_CART_CREATE with reorder=.true.
! from Fortran, through mpif.h or, built with -DUSE_MPI_MODULE, `use mpi`,
! so that the test sees whether a Fortran caller reaches the reorder
! library (its STENCIL_MAP_VERBOSE line) and still gets a sound grid.
!   cart_check_f D1 D2 P1 P2    (D1*D2 = ranks, P 0/1 periodic)
! Checks, "ok ..." on rank 0 or "FAIL ..." with exit status 1:
! MPI_TOPO_TEST, MPI_CART_COORDS back through MPI_CART_RANK, a halo
! exchange of coordinates along both axes with MPI_CART_SHIFT; then
! "observed J_sum N": the directed +-1 edges between processes of
! different processor names, counted on the new communicator.
program cart_check_f
#ifdef USE_MPI_MODULE
  use mpi
#endif
  implicit none
#ifndef USE_MPI_MODULE
  include 'mpif.h'
#endif
  integer :: ierr, me, wrank, nprocs, cart, st, r, d, dir, src, dst, cut, total, i, len
  integer :: dims(2), coords(2), got(2), want(2), status(MPI_STATUS_SIZE)
  logical :: periods(2), ok, all
  character(len=16) :: arg
  character(len=MPI_MAX_PROCESSOR_NAME) :: name
  integer :: mine(MPI_MAX_PROCESSOR_NAME), other(MPI_MAX_PROCESSOR_NAME)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, wrank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, 2
    call get_command_argument(i, arg)
    read (arg, *) dims(i)
    call get_command_argument(i + 2, arg)
    periods(i) = trim(arg) == '1'
  end do
  if (dims(1) * dims(2) /= nprocs) then
    if (wrank == 0) print '(a)', 'usage: cart_check_f D1 D2 P1 P2 with D1*D2 = ranks'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
  call report(ierr == MPI_SUCCESS .and. cart /= MPI_COMM_NULL, 'the communicator was created')
  call MPI_TOPO_TEST(cart, st, ierr)
  call report(st == MPI_CART, 'MPI_TOPO_TEST')
  call MPI_COMM_RANK(cart, me, ierr)
  call MPI_CART_COORDS(cart, me, 2, coords, ierr)
  call MPI_CART_RANK(cart, coords, r, ierr)
  call report(r == me, 'MPI_CART_COORDS and MPI_CART_RANK agree')
  name = ' '
  call MPI_GET_PROCESSOR_NAME(name, len, ierr)
  do i = 1, MPI_MAX_PROCESSOR_NAME ! as integers: one buffer type for every call
    mine(i) = ichar(name(i:i))
  end do
  ok = .true.
  cut = 0
  do d = 0, 1
    do dir = -1, 1, 2
      call MPI_CART_SHIFT(cart, d, dir, src, dst, ierr)
      call MPI_SENDRECV(coords, 2, MPI_INTEGER, dst, 7, got, 2, MPI_INTEGER, src, 7, cart, &
                        status, ierr)
      if (src /= MPI_PROC_NULL) then
        call MPI_CART_COORDS(cart, src, 2, want, ierr)
        ok = ok .and. all_equal(got, want)
      end if
      call MPI_SENDRECV(mine, MPI_MAX_PROCESSOR_NAME, MPI_INTEGER, src, 8, other, &
                        MPI_MAX_PROCESSOR_NAME, MPI_INTEGER, dst, 8, cart, status, ierr)
      if (dst /= MPI_PROC_NULL) then
        if (any(other /= mine)) cut = cut + 1
      end if
    end do
  end do
  call report(ok, 'halo exchange along both axes delivers the neighbours'' coordinates')
  call MPI_REDUCE(cut, total, 1, MPI_INTEGER, MPI_SUM, 0, cart, ierr)
  if (me == 0) print '(a,i0)', 'observed J_sum ', total
  call MPI_COMM_FREE(cart, ierr)
  call MPI_FINALIZE(ierr)

contains

  logical function all_equal(a, b)
    integer, intent(in) :: a(2), b(2)
    all_equal = a(1) == b(1) .and. a(2) == b(2)
  end function all_equal

  subroutine report(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    call MPI_ALLREDUCE(cond, all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    if (wrank == 0) then
      if (all) then
        print '(a,a)', 'ok ', what
      else
        print '(a,a)', 'FAIL ', what
      end if
    end if
    if (.not. all) call exit(1)
  end subroutine report
end program cart_check_f
