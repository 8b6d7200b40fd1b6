# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/package/run.sh after dpkg -i: the packages of the
# in-application libraries (libstencilmap-mpix0, libstencilmap-mpix-dev,
# stencilmap-reorder) checked as a user of an installed system would use
# them, with nothing from the build tree but the test program's source
# (tests/mpix/cart_check.c): its files where Debian wants them, each
# library built against the MPI it says, a program compiled from the
# installed header with `mpicc x.c -lstencilmap-mpix`, and the installed
# preload libraries making MPI_Cart_create(reorder=1) plan under Open MPI's
# mpirun and MPICH's mpiexec (STENCIL_MAP_VERBOSE's line on rank 0).  One
# machine is one node, so the line says the order is kept (one node), as
# doc/inside-the-application.md says; reordering over nodes is
# tests/mpix/run.sh's.  Uses run.sh's check, $work, $src, $triplet.
# The MPI programs run with LD_LIBRARY_PATH=/usr/lib/<triplet>, so that a
# stray make install into /usr/local (searched first by ld.so, and flagged
# by run.sh's own check of the commands) does not stand in for the
# packaged libraries here.

mpi_dir=$work/mpi
pin=/usr/lib/$triplet
rm -rf "$mpi_dir" && mkdir -p "$mpi_dir"
reorder_dir=/usr/lib/$triplet/stencilmap
for f in /usr/lib/$triplet/libstencilmap-mpix.so.0 /usr/lib/$triplet/libstencilmap-mpix.so \
    /usr/include/stencilmap_mpix.h "$reorder_dir/libstencilmap-reorder.so" \
    "$reorder_dir/libstencilmap-reorder-mpich.so" /usr/share/man/man3/libstencilmap-reorder.3.gz \
    /usr/share/man/man3/MPIX_Cart_stencil_comm.3.gz /usr/share/man/man3/MPIX_Cart_weighted_create.3.gz \
    /usr/share/man/man3/MPIX_Dims_weighted_create.3.gz /usr/share/man/man3/MPIX_Dims_ml_create.3.gz \
    /usr/share/man/man3/MPIX_Cart_ml_create.3.gz; do
    [ -e "$f" ] && r=OK || r=FAIL
    check $r "installed $f"
done
owner=$(dpkg -S "$reorder_dir/libstencilmap-reorder.so" 2>/dev/null | cut -d: -f1)
[ "$owner" = stencilmap-reorder ] && r=OK || r=FAIL
check $r "the preload libraries are stencilmap-reorder's, in $reorder_dir" "owner: $owner"
man -w MPIX_Cart_stencil_comm 2>/dev/null | grep -q 'man3/MPIX_Cart_stencil_comm.3' && r=OK || r=FAIL
check $r "man MPIX_Cart_stencil_comm finds the page"

# each preload library is built against its own MPI, and only that one
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
n=$(needed "$reorder_dir/libstencilmap-reorder.so")
case "$n" in *libmpi.so.*) case "$n" in *libmpich*) r=FAIL ;; *) r=OK ;; esac ;; *) r=FAIL ;; esac
check $r "libstencilmap-reorder.so needs Open MPI's libmpi, not MPICH's" "NEEDED: $n"
n=$(needed "$reorder_dir/libstencilmap-reorder-mpich.so")
case "$n" in *libmpich.so.*) case "$n" in *libmpi.so.*) r=FAIL ;; *) r=OK ;; esac ;; *) r=FAIL ;; esac
check $r "libstencilmap-reorder-mpich.so needs MPICH's libmpich, not Open MPI's" "NEEDED: $n"
for l in "$reorder_dir/libstencilmap-reorder.so" "$reorder_dir/libstencilmap-reorder-mpich.so"; do
    nm -D --defined-only "$l" 2>/dev/null | grep -q ' MPI_Cart_create$' && r=OK || r=FAIL
    check $r "$(basename "$l") provides MPI_Cart_create"
done

# mpirun/mpiexec on this machine, bounded; as root Open MPI wants it said
ompi_run() { # NP ARGS...
    np=$1
    shift
    timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
        -x LD_LIBRARY_PATH="$pin" "$@"
}
mpich_run() { # NP ARGS...
    np=$1
    shift
    timeout 120 mpiexec.mpich -n "$np" -genv LD_LIBRARY_PATH "$pin" "$@"
}
ok_lines() { grep -c '^ok ' "$1"; }
prog=$src/tests/mpix/cart_check.c

# the preloaded library under Open MPI: a plain program, unchanged
mpicc -o "$mpi_dir/cart_ompi" "$prog" >"$mpi_dir/cc_ompi.log" 2>&1 && r=OK || r=FAIL
check $r "mpicc builds tests/mpix/cart_check.c" "$(head -n 3 "$mpi_dir/cc_ompi.log")"
ompi_run 4 -x LD_PRELOAD="$reorder_dir/libstencilmap-reorder.so" -x STENCIL_MAP_VERBOSE=1 \
    "$mpi_dir/cart_ompi" cart1 2,2 0,0 "$mpi_dir/h1" >"$mpi_dir/ompi_cart1" 2>&1
[ "$(ok_lines "$mpi_dir/ompi_cart1")" -eq 3 ] && ! grep -q '^FAIL' "$mpi_dir/ompi_cart1" &&
    grep -q '^stencil-map: MPI_Cart_create 2x2 on 1 nodes: order kept' "$mpi_dir/ompi_cart1" &&
    r=OK || r=FAIL
check $r "LD_PRELOAD=$reorder_dir/libstencilmap-reorder.so mpirun -np 4: MPI_Cart_create(reorder=1) planned by the library (its line), communicator consistent, halo ok" \
    "$(head -n 8 "$mpi_dir/ompi_cart1" | tr '\n' ' ')"
ompi_run 4 -x STENCIL_MAP_VERBOSE=1 "$mpi_dir/cart_ompi" cart1 2,2 0,0 "$mpi_dir/h0" \
    >"$mpi_dir/ompi_plain" 2>&1
[ "$(ok_lines "$mpi_dir/ompi_plain")" -eq 3 ] && ! grep -q '^stencil-map' "$mpi_dir/ompi_plain" &&
    r=OK || r=FAIL
check $r "... without the preload the same run has no such line (the line is the library's)" \
    "$(head -n 8 "$mpi_dir/ompi_plain" | tr '\n' ' ')"

# the MPICH library under MPICH's mpiexec
mpicc.mpich -o "$mpi_dir/cart_mpich" "$prog" >"$mpi_dir/cc_mpich.log" 2>&1 && r=OK || r=FAIL
check $r "mpicc.mpich builds tests/mpix/cart_check.c" "$(head -n 3 "$mpi_dir/cc_mpich.log")"
mpich_run 4 -genv LD_PRELOAD "$reorder_dir/libstencilmap-reorder-mpich.so" -genv STENCIL_MAP_VERBOSE 1 \
    "$mpi_dir/cart_mpich" cart1 2,2 0,0 "$mpi_dir/h2" >"$mpi_dir/mpich_cart1" 2>&1
[ "$(ok_lines "$mpi_dir/mpich_cart1")" -eq 3 ] && ! grep -q '^FAIL' "$mpi_dir/mpich_cart1" &&
    grep -q '^stencil-map: MPI_Cart_create 2x2 on 1 nodes: order kept' "$mpi_dir/mpich_cart1" &&
    r=OK || r=FAIL
check $r "LD_PRELOAD=$reorder_dir/libstencilmap-reorder-mpich.so mpiexec.mpich -n 4: planned by the library, consistent, halo ok" \
    "$(head -n 8 "$mpi_dir/mpich_cart1" | tr '\n' ' ')"

# the MPIX_ calls from the installed header and library, nothing else named
mpicc -DWITH_MPIX -o "$mpi_dir/cart_mpix" "$prog" -lstencilmap-mpix >"$mpi_dir/cc_mpix.log" 2>&1 &&
    r=OK || r=FAIL
check $r "mpicc -DWITH_MPIX cart_check.c -lstencilmap-mpix (the installed stencilmap_mpix.h)" \
    "$(head -n 3 "$mpi_dir/cc_mpix.log")"
hdr=$(mpicc -DWITH_MPIX -M "$prog" 2>/dev/null | tr ' \\' '\n\n' | grep '/stencilmap_mpix\.h$' | head -n 1)
[ "$hdr" = /usr/include/stencilmap_mpix.h ] && r=OK || r=FAIL
check $r "... from libstencilmap-mpix-dev's header (a make install into /usr/local would come first)" \
    "it includes $hdr"
lib=$(LD_LIBRARY_PATH=$pin ldd "$mpi_dir/cart_mpix" 2>/dev/null | awk '$1 ~ /^libstencilmap-mpix/ {print $3}')
owner=$(dpkg -S "$(readlink -f "$lib" | sed 's#^/lib/#/usr/lib/#')" 2>/dev/null | cut -d: -f1)
[ "$owner" = libstencilmap-mpix0 ] && r=OK || r=FAIL
check $r "the program loads libstencilmap-mpix0's library" "$lib: $owner"
ompi_run 4 -x STENCIL_MAP_VERBOSE=1 "$mpi_dir/cart_mpix" mpix1 2,2 1,0 "$mpi_dir/h3" \
    >"$mpi_dir/mpix1" 2>&1
[ "$(ok_lines "$mpi_dir/mpix1")" -eq 3 ] && ! grep -q '^FAIL' "$mpi_dir/mpix1" &&
    grep -q '^stencil-map: MPIX_Cart_stencil_comm 2x2 on 1 nodes: order kept' "$mpi_dir/mpix1" &&
    r=OK || r=FAIL
check $r "MPIX_Cart_stencil_comm(reorder=1) under mpirun -np 4: planned, consistent, halo ok" \
    "$(head -n 8 "$mpi_dir/mpix1" | tr '\n' ' ')"
ompi_run 8 "$mpi_dir/cart_mpix" seed >"$mpi_dir/seed" 2>&1
[ "$(ok_lines "$mpi_dir/seed")" -eq 11 ] && ! grep -q '^FAIL' "$mpi_dir/seed" && r=OK || r=FAIL
check $r "seed 003's tables through the installed MPIX_ calls (11 checks)" \
    "$(grep -v '^ok ' "$mpi_dir/seed" | head -n 5 | tr '\n' ' ')"
