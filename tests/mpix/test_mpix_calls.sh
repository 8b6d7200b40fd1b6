#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check's part of tests/mpix, on this machine alone (one node, so no
# reordering to see: tests/mpix/run.sh has the nodes): the argument errors
# of MPIX_Cart_stencil_comm come back as return codes under mpirun, a good
# call and the preloaded MPI_Cart_create(reorder=1) give a consistent
# Cartesian communicator whose halo exchange works and keep the order (one
# node, said on rank 0), reorder=0 is MPI's; seed 003's worked examples
# through the weighted MPIX_ calls; the reorder library's audit record
# (STENCIL_MAP_RECORD_DIR) read by stencil-map audit, and a record dir
# that cannot be written failing nothing; the preloaded graph calls, under Open
# MPI and MPICH: a 2-D 5-point and a 3-D 7-point MPI_Dist_graph_create_adjacent
# and an MPI_Graph_create recognised as stencils and planned, each rank
# with its vertex's neighbours as described; a graph that is no stencil and one with
# unequal weights passed through, order unchanged; a Fortran program's
# MPI_CART_CREATE (mpif.h and `use mpi`, both MPIs) reaches the library;
# and every MPIX_ call the libraries export has its man page.
# env (from Makefile.am): CART_CHECK (plain), CART_CHECK_MPIX (linked with
# libstencilmap-mpix), GRAPH_CHECK, GRAPH_CHECK_MPICH, REORDER_LIB,
# REORDER_LIB_MPICH, MPIFORT, MPIFORT_MPICH, CART_CHECK_F, MPIX_LIB, MAN_DIRS,
# SM (stencil-map)
. "${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib/checks.sh"

root=""
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
run() { # NP ARGS...: mpirun on this machine, bounded
    np=$1
    shift
    timeout 120 mpirun $root --oversubscribe --bind-to none -np "$np" "$@"
}
run_mpich() { # NP ARGS...: mpiexec.mpich on this machine, bounded
    np=$1
    shift
    timeout 120 mpiexec.mpich -n "$np" "$@"
}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
# A sanitized build's library needs the ASan runtime first among the
# process's libraries, or ASan refuses to start it: preload the runtime
# ahead of it (as tests/lib/suite.sh does for srun).
asan_first() { # LIB: LIB, after the ASan runtime when LIB is sanitized
    if ldd "$1" 2>/dev/null | grep -q libasan; then
        echo "$(readlink -f "$(gcc -print-file-name=libasan.so)") $1"
    else
        echo "$1"
    fi
}
preload=$(asan_first "$REORDER_LIB")
preload_mpich=$(asan_first "${REORDER_LIB_MPICH:-}")

run 3 "$CART_CHECK_MPIX" errors >"$d/errors" 2>&1
check_cmd "MPIX_Cart_stencil_comm: 15 argument errors returned as their class, then a good call" \
    sh -c "! grep -q '^FAIL' '$d/errors' && [ \$(grep -c '^ok error' '$d/errors') -eq 15 ] && grep -q '^ok a good call' '$d/errors'"
[ -z "${VERBOSE:-}" ] || cat "$d/errors"

run 8 "$CART_CHECK_MPIX" seed >"$d/seed" 2>&1
check_cmd "seed 003's tables through MPIX_Dims_ml_create and MPIX_Dims_weighted_create, MPIX_Cart_ml_create's layout, MPIX_Cart_weighted_create" \
    sh -c "! grep -q '^FAIL' '$d/seed' && [ \$(grep -c '^ok ' '$d/seed') -eq 11 ]"
[ -z "${VERBOSE:-}" ] || cat "$d/seed"

run 4 -x STENCIL_MAP_VERBOSE=1 "$CART_CHECK_MPIX" mpix1 2,2 1,0 "$d/h" >"$d/mpix1" 2>&1
check_cmd "MPIX_Cart_stencil_comm reorder=1: consistent communicator, halo ok" \
    sh -c "[ \$(grep -c '^ok ' '$d/mpix1') -eq 3 ] && ! grep -q '^FAIL' '$d/mpix1'"
check_cmd "... one node: the order kept, said on rank 0" \
    grep -q '^stencil-map: MPIX_Cart_stencil_comm 2x2 on 1 nodes: order kept.*(one node)' "$d/mpix1"

run 6 -x LD_PRELOAD="$preload" -x STENCIL_MAP_VERBOSE=1 "$CART_CHECK" cart1 3,2 0,0 "$d/h" >"$d/cart1" 2>&1
check_cmd "preloaded MPI_Cart_create reorder=1: consistent communicator, halo ok" \
    sh -c "[ \$(grep -c '^ok ' '$d/cart1') -eq 3 ] && ! grep -q '^FAIL' '$d/cart1'"
check_cmd "... the library planned it (one node)" \
    grep -q '^stencil-map: MPI_Cart_create 3x2 on 1 nodes: order kept' "$d/cart1"
run 6 -x LD_PRELOAD="$preload" -x STENCIL_MAP_VERBOSE=1 "$CART_CHECK" cart0 3,2 0,0 "$d/h" >"$d/cart0" 2>&1
check_cmd "preloaded MPI_Cart_create reorder=0: MPI's order, the library silent" \
    sh -c "grep -q '^ok reorder 0: every rank is MPI_COMM_WORLD' '$d/cart0' && ! grep -q '^FAIL\|^stencil-map' '$d/cart0'"
run 6 -x LD_PRELOAD="$preload" -x STENCIL_MAP_VERBOSE=1 "$CART_CHECK" cart1 5,1 0,0 "$d/h" >"$d/small" 2>&1
check_cmd "preloaded MPI_Cart_create: a grid smaller than the communicator goes to MPI as it is (MPI_COMM_NULL on the rank left over)" \
    sh -c "! grep -q '^stencil-map' '$d/small' && grep -q '^FAIL the communicator was created' '$d/small'"

# the audit record (STENCIL_MAP_RECORD_DIR): one file per call, in the
# plugin's format, which stencil-map audit reads and re-scores
rec=$d/records
mkdir "$rec"
run 6 -x LD_PRELOAD="$preload" -x STENCIL_MAP_VERBOSE=1 -x STENCIL_MAP_RECORD_DIR="$rec" \
    "$CART_CHECK" cart1 3,2 1,0 "$d/h" >"$d/rec1" 2>&1
user=$(id -un)
f=$(ls "$rec/$user"/nojob-*.reorder-1.json 2>/dev/null)
check_cmd "preloaded MPI_Cart_create with a record dir: one record, $rec/$user/nojob-PID.reorder-1.json, named on the verbose line" \
    sh -c "[ \$(ls '$rec/$user' | wc -l) -eq 1 ] && [ -f '$f' ] && grep -q '^stencil-map: MPI_Cart_create: record $f\$' '$d/rec1' && [ \$(grep -c '^ok ' '$d/rec1') -eq 3 ]"
"$SM" audit "$f" >"$d/audit1" 2>&1
arc=$?
check_cmd "stencil-map audit FILE reads the reorder record: exit 0, consistent, origin the library" \
    sh -c "[ $arc -eq 0 ] && grep -q 'placed, consistent' '$d/audit1' && grep -q '^  origin      libstencilmap-reorder, MPI_Cart_create: kept; .*(one node)' '$d/audit1'"
said=$(sed -n 's/^stencil-map: MPI_Cart_create 3x2 on 1 nodes: .*planned J_sum \([0-9]*\) J_max \([0-9]*\),.*/\1 \2/p' "$d/rec1")
audited=$(sed -n 's/^  origin .*planned J_sum \([0-9]*\), J_max \([0-9]*\);.*/\1 \2/p' "$d/audit1")
check_cmd "... its planned J_sum/J_max ($audited) are the verbose line's ($said)" \
    sh -c "[ -n '$said' ] && [ '$said' = '$audited' ]"
for i in 1 2; do # two programs of one step: two records, no clash
    run 4 -x LD_PRELOAD="$preload" -x STENCIL_MAP_RECORD_DIR="$rec" -x SLURM_JOB_ID=77 \
        -x SLURM_STEP_ID=3 "$CART_CHECK" cart1 2,2 1,1 "$d/h" >"$d/rec-step$i" 2>&1
done
check_cmd "in a job step: 77.3.reorder-1.json and 77.3.reorder-2.json, both audited consistent" \
    sh -c "'$SM' audit '$rec/$user/77.3.reorder-1.json' --no-slurm --json >'$d/a1.json' && '$SM' audit '$rec/$user/77.3.reorder-2.json' --no-slurm >/dev/null && grep -q '\"job_id\": 77' '$d/a1.json' && grep -q '\"step_id\": 3' '$d/a1.json'"
: >"$d/not-a-dir"
run 6 -x LD_PRELOAD="$preload" -x STENCIL_MAP_RECORD_DIR="$d/not-a-dir" "$CART_CHECK" cart1 3,2 0,0 \
    "$d/h" >"$d/rec-bad" 2>&1
check_cmd "a record dir that cannot be written: the program runs as before, one warning on stderr" \
    sh -c "[ \$(grep -c '^ok ' '$d/rec-bad') -eq 3 ] && [ \$(grep -c 'WARNING: MPI_Cart_create: reorder record not written: ' '$d/rec-bad') -eq 1 ]"
[ -z "${VERBOSE:-}" ] || cat "$d/rec1" "$d/audit1" "$d/rec-bad"

# the graph calls: MODE DIMS PERIODS, the verbose line wanted, under both MPIs
graph_case() { # MPI MODE DIMS PERIODS VERBOSE_REGEX CHECKS
    mpi=$1 mode=$2 dims=$3 periods=$4 want=$5 checks=$6 out="$d/graph-$1-$2-$3"
    if [ "$mpi" = openmpi ]; then
        run 12 -x LD_PRELOAD="$preload" -x STENCIL_MAP_VERBOSE=1 "$GRAPH_CHECK" $mode $dims $periods >"$out" 2>&1
    else
        run_mpich 12 -genv LD_PRELOAD "$preload_mpich" -genv STENCIL_MAP_VERBOSE 1 \
            "$GRAPH_CHECK_MPICH" $mode $dims $periods >"$out" 2>&1
    fi
    check_cmd "$mpi: preloaded graph call, $mode $dims periods $periods: $checks checks ok, one verbose line, the expected one" \
        sh -c "[ \$(grep -c '^ok ' '$out') -eq $checks ] && ! grep -q '^FAIL' '$out' && grep -q '^moved 0 of 12' '$out' &&
               [ \$(grep -c '^stencil-map' '$out') -eq 1 ] && grep -q '^stencil-map: $want' '$out'"
    [ -z "${VERBOSE:-}" ] || cat "$out"
}
check_cmd "the MPICH build is there (GRAPH_CHECK_MPICH, REORDER_LIB_MPICH; else apt-get install mpich libmpich-dev)" \
    sh -c "[ -x '${GRAPH_CHECK_MPICH:-}' ] && [ -f '${REORDER_LIB_MPICH:-}' ]"
planned=': a stencil of \(4\|6\) offsets, periods [01,]*, on [0-9x]* on 1 nodes: order kept.*(one node)'
for mpi in openmpi mpich; do
    graph_case $mpi dist 4,3 1,1 "MPI_Dist_graph_create_adjacent$planned" 4
    graph_case $mpi dist 3,2,2 0,0,0 "MPI_Dist_graph_create_adjacent$planned" 4
    graph_case $mpi graph 4,3 1,0 "MPI_Graph_create$planned" 4
    graph_case $mpi other "" "" "MPI_Dist_graph_create_adjacent: not a stencil on a Cartesian grid, passed to MPI as given" 5
    graph_case $mpi weighted 4,3 1,1 "MPI_Dist_graph_create_adjacent: weights not all equal, passed to MPI as given" 5
done
run 12 -x LD_PRELOAD="$preload" -x STENCIL_MAP_VERBOSE=1 -x STENCIL_MAP_REORDER=0 "$GRAPH_CHECK" dist 4,3 1,1 >"$d/graph-off" 2>&1
check_cmd "STENCIL_MAP_REORDER=0: the graph goes to MPI, the library silent" \
    sh -c "[ \$(grep -c '^ok ' '$d/graph-off') -eq 4 ] && ! grep -q '^FAIL\|^stencil-map' '$d/graph-off'"

# Fortran: Open MPI's mpi_cart_create_ calls PMPI_Cart_create, so only the
# library's own Fortran symbols make a Fortran caller reach it
for mpi in openmpi mpich; do
    for how in mpif.h "use mpi"; do
        fc=$MPIFORT lib=$preload exe="$d/fortran-$mpi-${how% *}" flag=""
        [ "$mpi" = mpich ] && fc=$MPIFORT_MPICH lib=$preload_mpich
        [ "$how" = "use mpi" ] && flag=-DUSE_MPI_MODULE exe="$exe-module"
        if [ -z "$fc" ] || [ "$fc" = no ] || ! "$fc" -O1 $flag -o "$exe" "$CART_CHECK_F" >"$exe.build" 2>&1; then
            check_cmd "$mpi Fortran ($how): built with '$fc' (mpifort.openmpi/mpifort.mpich: apt-get install gfortran)" false
            cat "$exe.build" 2>/dev/null
            continue
        fi
        if [ "$mpi" = openmpi ]; then
            run 6 -x LD_PRELOAD="$lib" -x STENCIL_MAP_VERBOSE=1 "$exe" 3 2 0 1 >"$exe.out" 2>&1
        else
            run_mpich 6 -genv LD_PRELOAD "$lib" -genv STENCIL_MAP_VERBOSE 1 "$exe" 3 2 0 1 >"$exe.out" 2>&1
        fi
        check_cmd "$mpi Fortran ($how): MPI_CART_CREATE reaches the library, the grid is sound" \
            sh -c "[ \$(grep -c '^ok ' '$exe.out') -eq 4 ] && ! grep -q '^FAIL' '$exe.out' &&
                   grep -q '^stencil-map: MPI_Cart_create 3x2 on 1 nodes: order kept' '$exe.out'"
        [ -z "${VERBOSE:-}" ] || cat "$exe.out"
    done
done

for lib in "$MPIX_LIB" "$REORDER_LIB"; do
    for sym in $(nm -D --defined-only "$lib" | awk '$3 ~ /^MPIX_/ { print $3 }'); do
        found=""
        for m in $MAN_DIRS; do [ -f "$m/$sym.3" ] && found=$m/$sym.3; done
        check_cmd "$(basename "$lib") exports $sym: man page $found" test -n "$found"
    done
done
check_cmd "the reorder library exports MPI_Cart_create, the graph calls, their Fortran names and nothing of the placement core" \
    sh -c "nm -D --defined-only '$REORDER_LIB' | awk '{ print \$3 }' | grep -v '^MPIX\?_\|^mpi_' | grep -q . && exit 1
           for s in MPI_Cart_create MPI_Dist_graph_create_adjacent MPI_Graph_create mpi_cart_create_ mpi_graph_create_; do
               nm -D --defined-only '$REORDER_LIB' | grep -q \" \$s\\\$\" || exit 1; done"
checks_summary
