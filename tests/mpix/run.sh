#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# MPI_Cart_create(reorder=1) made real, on a real multi-node Slurm
# (contrib/minicluster) with no SPANK plugin: an MPI program (cart_check.c)
# launched inside salloc by Open MPI's mpirun and by MPICH's mpiexec
# (through hydra-srun), blocked and round-robin over 4 nodes, with
# libstencilmap-reorder preloaded (LD_PRELOAD).  Asserts: the communicator
# answers MPI_Topo_test/Cart_get/Cart_coords/Cart_rank consistently and
# its halo exchange delivers every neighbour's coordinates; the inter-node
# edges the program counts on it (processor names) are the ones the library
# planned (its STENCIL_MAP_VERBOSE line) and an independent `stencil-map
# score` of where its ranks ran says the same, and so does the library's
# audit record (STENCIL_MAP_RECORD_DIR) under stencil-map audit; reorder=0 and
# STENCIL_MAP_REORDER=0 leave MPI's order (the identity's figures of the
# same line); a grid the plugin placed (STENCIL_MAP_DIMS) keeps its order;
# MPIX_Cart_stencil_comm linked into the program does the same under both
# MPIs; MPIX_Cart_weighted_create and seed 003's tables through the MPIX_
# calls; unequal nodes (8,8,6,2 CPUs); the graph calls
# (graph_check.c): a stencil described by MPI_Dist_graph_create_adjacent or
# MPI_Graph_create is reordered, its inter-node edges counted on the new
# communicator are the planned ones, the process of new rank v holds
# vertex v's neighbours as described, a graph that is no stencil keeps
# MPI's order; a Fortran
# MPI_CART_CREATE (cart_check_f.F90) reaches the library and gets the
# planned edges; world rank 0 stays rank 0 where the nodes allow it, else
# the line says where it went (issue 37).  Prints "ok NAME" / "FAIL NAME",
# FIGURES lines and "N passed, M failed"; always brings the cluster down.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-mpix), MINICLUSTER_PORT_BASE
#      (22600), MPIX_PREFIX (/var/lib/smc-mpix-prefix), MPIX_BUILD_ROOT
#      (/var/lib/smc-mpix-build), MPIX_WORK (/var/lib/smc-mpix-work),
#      MPIX_SKIP_BUILD=1 to reuse the install, MPIX_ONLY=REGEX,
#      MPIX_BENCH="32 64 128 256": after the tests, the cost of
#      MPIX_Cart_stencil_comm beside MPI_Cart_create at those ranks
#      (bench_stencil_comm.c, 4 nodes of 64 CPUs, oversubscribing this
#      machine's cores), FIGURES lines; not a test.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-mpix}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-22600}
PREFIX=${MPIX_PREFIX:-/var/lib/smc-mpix-prefix}
ROOT=${MPIX_BUILD_ROOT:-/var/lib/smc-mpix-build}
WORK=${MPIX_WORK:-/var/lib/smc-mpix-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
SO=$PREFIX/lib/slurm/stencil_map.so
LIB=$PREFIX/lib
HYDRA_SRUN=$PREFIX/libexec/stencilmap/hydra-srun
RECORDS=$WORK/records
SUITE=mpix
ONLY=${MPIX_ONLY:-}
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: MPIX_PREFIX, MPIX_BUILD_ROOT, MPIX_WORK and MINICLUSTER_DIR must be outside /tmp" >&2
    exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
[ -x "$MC" ] || { echo "run.sh: FATAL: $MC not found" >&2; exit 1; }
mkdir -p "$WORK/logs" "$RECORDS" "$WORK/bin"

# ------------------------------------------------------------- build -----
build() {
    SMC_BUILD_ROOT=$ROOT "$TOP/tests/integration/build.sh" "$PREFIX" || return 1
    local f
    for f in "$SM" "$HYDRA_SRUN" "$LIB/libstencilmap-reorder.so" "$LIB/libstencilmap-reorder-mpich.so" \
        "$LIB/libstencilmap-mpix.so" "$PREFIX/include/stencilmap_mpix.h" \
        "$PREFIX/share/man/man3/MPIX_Cart_stencil_comm.3" "$PREFIX/share/man/man3/libstencilmap-reorder.3"; do
        [ -e "$f" ] || { echo "run.sh: $f was not built/installed (mpicc or mpicc.mpich missing?)"; return 1; }
    done
    local src=$HERE/cart_check.c rp=-Wl,-rpath,$LIB
    # plain MPI programs for the preload, and the same calling MPIX_ (linked)
    mpicc -O1 -o "$WORK/bin/cart-openmpi" "$src" &&
        mpicc.mpich -O1 -o "$WORK/bin/cart-mpich" "$src" &&
        mpicc -O1 -DWITH_MPIX -I"$PREFIX/include" -o "$WORK/bin/mpix-openmpi" "$src" -L"$LIB" $rp -lstencilmap-mpix &&
        mpicc.mpich -O1 -DWITH_MPIX -I"$PREFIX/include" -o "$WORK/bin/mpix-mpich" "$src" -L"$LIB" $rp \
            -lstencilmap-reorder-mpich &&
        mpicc -O1 -I"$PREFIX/include" -o "$WORK/bin/bench-openmpi" "$HERE/bench_stencil_comm.c" -L"$LIB" $rp \
            -lstencilmap-mpix &&
        mpicc -O1 -o "$WORK/bin/graph-openmpi" "$HERE/graph_check.c" &&
        mpicc.mpich -O1 -o "$WORK/bin/graph-mpich" "$HERE/graph_check.c" &&
        mpifort.openmpi -O1 -o "$WORK/bin/fortran-openmpi" "$HERE/cart_check_f.F90" &&
        mpifort.mpich -O1 -DUSE_MPI_MODULE -o "$WORK/bin/fortran-mpich" "$HERE/cart_check_f.F90" ||
        { echo "run.sh: mpicc/mpifort (Open MPI) or mpicc.mpich/mpifort.mpich (MPICH) failed"; return 1; }
}

if [ "${MPIX_SKIP_BUILD:-0}" != 1 ]; then
    echo "building into $PREFIX (log $WORK/build.log)"
    if ! build >"$WORK/build.log" 2>&1; then
        echo "run.sh: FATAL: build failed" >&2
        tail -40 "$WORK/build.log" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
fi
command -v mpiexec.mpich >/dev/null || { echo "run.sh: FATAL: mpiexec.mpich missing (apt-get install mpich)" >&2; exit 1; }
unset SLURM_HOSTFILE LD_PRELOAD $(env | sed -n 's/^\(STENCIL_MAP_[A-Z_]*\)=.*/\1/p')

# ------------------------------------------------------------ helpers ----
# in_job DIR N SCRIPT [SALLOC ARGS...]: SCRIPT (sh) inside salloc -N4 -nN
in_job() {
    local d=$1 n=$2 script=$3
    shift 3
    MC_TIMEOUT=300 mc salloc -Q -N4 -n"$n" --time=5 "$@" sh -c "cd '$d' && sh '$script'"
}

# launch_line MPI LAYOUT N PROG ENV...: the launch inside the job; MPI is
# openmpi or mpich, LAYOUT blocked or cyclic (round-robin over the nodes)
launch_line() {
    local mpi=$1 layout=$2 n=$3 prog=$4 e args=""
    shift 4
    case $mpi in
    openmpi)
        for e in "$@"; do args="$args -x $e"; done
        [ "$layout" = cyclic ] && args="$args --map-by node"
        echo "mpirun --bind-to none -np $n$args $prog" ;;
    mpich)
        for e in "$@"; do args="$args -genv ${e%%=*} ${e#*=}"; done
        echo "mpiexec.mpich -launcher rsh -launcher-exec $HYDRA_SRUN -f machines.$layout -n $n$args $prog" ;;
    esac
}

# the machine files of both layouts for Hydra, from the job's nodes and tasks
MACHINES='scontrol show hostnames "$SLURM_JOB_NODELIST" >nodes
echo "$SLURM_TASKS_PER_NODE" | tr , "\n" | awk -F"[()x]" "{ n = (\$3 == \"\" ? 1 : \$3); for (i = 0; i < n; i++) print \$1 }" >tasks
paste -d: nodes tasks >machines.blocked
sed "s/:.*/:1/" machines.blocked >machines.cyclic'

# run_ok FILE: the program's checks all passed
run_ok() {
    grep -q '^ok the communicator was created' "$1" && ! grep -q '^FAIL' "$1" && grep -q '^observed ' "$1" ||
        { fail "$1: the program's checks:"; cat "$1"; return 1; }
    grep -c '^ok ' "$1" | sed "s/^/$(basename "$1"): /; s/$/ checks ok/"
}
observed() { sed -n 's/^observed J_sum \([0-9]*\) J_max \([0-9]*\)$/\1 \2/p' "$1"; }
# rank0_ok OUT ERR: world rank 0 is the new rank 0 unless the library's
# line says "rank 0 renumbered to R", and then it is R
rank0_ok() {
    local got want
    got=$(sed -n 's/^world rank 0 is rank \([0-9]*\)$/\1/p' "$1")
    want=$(sed -n 's/^stencil-map: .*rank 0 renumbered to \([0-9]*\): .*/\1/p' "$2")
    [ "$got" = "${want:-0}" ] || { fail "world rank 0 is rank '$got', the library's line says '${want:-0}'"; return 1; }
}
# the verbose line: STATE PLANNED_SUM PLANNED_MAX IDENTITY_SUM IDENTITY_MAX
verbose() {
    sed -n 's/^stencil-map: .* nodes: \([a-z ]*\), planned J_sum \([0-9]*\) J_max \([0-9]*\), identity J_sum \([0-9]*\) J_max \([0-9]*\) .*/\1|\2 \3|\4 \5/p' "$1"
}
# score_of HOSTFILE DIMS PERIODS: an independent score of where the ranks ran
score_of() {
    local hosts=$1 dims=$2 periods=$3 n nd st
    nd=$(awk -F, '{ print NF }' <<<"$dims")
    st=$([ "$nd" = 2 ] && echo 5pt || echo 7pt)
    n=$(wc -l <"$hosts")
    python3 -c 'import json,sys; d=[int(x) for x in sys.argv[1].split(",")]; p=[x=="1" for x in sys.argv[2].split(",")]
print(json.dumps({"grid": {"dims": d, "periods": p}, "stencil": sys.argv[3]}))' "$dims" "$periods" "$st" >"$hosts.spec.json"
    "$SM" score "$hosts.spec.json" --hostfile "$hosts" --ranks "$n" --json >"$hosts.score.json" || return 1
    echo "$(json_get "$hosts.score.json" 'd["j_sum"]') $(json_get "$hosts.score.json" 'd["j_max"]')"
}

# check_record DIR STATE PLANNED OBSERVED: the library's audit record of
# run 1 (STENCIL_MAP_RECORD_DIR=DIR/rec) read by stencil-map audit: exit 0,
# the verbose line's state and planned figures, re-scored as observed
check_record() {
    local d=$1 state=$2 plan=$3 obs=$4 rec a
    rec=$(ls "$d"/rec/*/*.reorder-1.json 2>/dev/null | head -1)
    [ -n "$rec" ] || { ls -lR "$d/rec"; fail "no reorder record in $d/rec"; return 1; }
    "$SM" audit "$rec" --no-slurm --json >"$d/audit.json" 2>"$d/audit.err" ||
        { cat "$d/audit.json" "$d/audit.err"; fail "stencil-map audit $rec: not exit 0"; return 1; }
    a='d["steps"][0]'
    [ "$(json_get "$d/audit.json" "$a[\"origin\"][\"planned\"][\"j_sum\"]") $(json_get "$d/audit.json" "$a[\"origin\"][\"planned\"][\"j_max\"]")" = "$plan" ] ||
        { cat "$d/audit.json"; fail "the record's planned figures are not the verbose line's $plan"; return 1; }
    [ "$(json_get "$d/audit.json" "$a[\"rescored\"][\"j_sum\"]") $(json_get "$d/audit.json" "$a[\"rescored\"][\"j_max\"]")" = "$obs" ] ||
        { cat "$d/audit.json"; fail "the record re-scored is not what the program observed ($obs)"; return 1; }
    [ "$(json_get "$d/audit.json" "$a[\"origin\"][\"order\"]")" = "$([ "$state" = reordered ] && echo reordered || echo kept)" ] ||
        { cat "$d/audit.json"; fail "the record's order is not the verbose line's '$state'"; return 1; }
    echo "record $(basename "$rec"): audit exit 0, planned $plan, re-scored $obs"
}

# ------------------------------------------------------------- tests -----
# t_reorder MPI LAYOUT N DIMS PERIODS: the unchanged program with the
# preload, three times: reorder=1 (planned), reorder=0 and
# STENCIL_MAP_REORDER=0 (both MPI's order, the identity of the first line)
t_reorder() {
    local mpi=$1 layout=$2 n=$3 dims=$4 periods=$5 d lib
    d=$(mktemp -d "$WORK/t.XXXXXX")
    lib=$LIB/libstencilmap-reorder.so
    [ "$mpi" = mpich ] && lib=$LIB/libstencilmap-reorder-mpich.so
    local prog="$WORK/bin/cart-$mpi"
    mkdir "$d/rec" # the record dir must exist, as the plugin's record_dir=
    cat >"$d/job.sh" <<EOF
set -e
$MACHINES
$(launch_line "$mpi" "$layout" "$n" "$prog cart1 $dims $periods hosts1" LD_PRELOAD="$lib" STENCIL_MAP_VERBOSE=1 STENCIL_MAP_RECORD_DIR="$d/rec") >out1 2>err1
$(launch_line "$mpi" "$layout" "$n" "$prog cart0 $dims $periods hosts0" LD_PRELOAD="$lib" STENCIL_MAP_VERBOSE=1) >out0 2>err0
$(launch_line "$mpi" "$layout" "$n" "$prog cart1 $dims $periods hostsoff" LD_PRELOAD="$lib" STENCIL_MAP_VERBOSE=1 STENCIL_MAP_REORDER=0) >outoff 2>erroff
$(launch_line "$mpi" "$layout" "$n" "$prog cart1 $dims $periods hostsplain") >outplain 2>errplain
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/err* "$d"/out*; fail "the job failed"; return 1; }
    local f
    for f in out1 out0 outoff outplain; do run_ok "$d/$f" || return 1; done
    local v state plan ident obs
    v=$(verbose "$d/err1")
    [ -n "$v" ] || { cat "$d/err1"; fail "no verbose line from the library on rank 0"; return 1; }
    IFS='|' read -r state plan ident <<<"$v"
    grep -h '^stencil-map: ' "$d/err1"
    obs=$(observed "$d/out1")
    [ "$obs" = "$plan" ] || { fail "reorder=1: observed $obs, the library planned $plan"; return 1; }
    rank0_ok "$d/out1" "$d/err1" || return 1
    [ "$(score_of "$d/hosts1" "$dims" "$periods")" = "$obs" ] || { fail "stencil-map score of hosts1 is not $obs"; return 1; }
    check_record "$d" "$state" "$plan" "$obs" || return 1
    for f in 0 off plain; do
        [ "$(observed "$d/out$f")" = "$ident" ] ||
            { fail "run $f: observed $(observed "$d/out$f"), MPI's own order scores $ident"; return 1; }
        [ "$(score_of "$d/hosts$f" "$dims" "$periods")" = "$ident" ] || { fail "stencil-map score of hosts$f is not $ident"; return 1; }
        ! grep -q '^stencil-map: ' "$d/err$f" || { fail "run $f: the library spoke"; cat "$d/err$f"; return 1; }
    done
    # never worse than MPI's order; on round-robin nodes strictly better
    read -r ps pm <<<"$plan"
    read -r is im <<<"$ident"
    [ "$pm" -le "$im" ] || { fail "planned J_max $pm above the identity's $im"; return 1; }
    if [ "$layout" = cyclic ]; then
        [ "$state" = reordered ] && [ "$ps" -lt "$is" ] || { fail "round-robin: not reordered ($state, $ps vs $is)"; return 1; }
    fi
    echo "FIGURES $mpi $layout n=$n dims $dims: MPI_Cart_create(reorder=1) with the library: J_sum $ps J_max $pm ($state); MPI's own order (reorder=0, STENCIL_MAP_REORDER=0, no library): J_sum $is J_max $im"
    rm -rf "$d"
}

# t_rank0 DIMS kept|moved CPUS... : rank 0 (issue 37) under the preloaded
# MPICH library, blocked over the nodes taken in the order of their CPUS
# (a Hydra machine file in that order: rank 0 on the first).
# tests/mpix/plan_rank0.c shows that the plan of these grids puts grid
# rank 0 on another node than rank 0's.  kept: that node is as big as rank
# 0's, the two are exchanged, world rank 0 stays rank 0 and the edges are
# the plan's; moved: rank 0's node is smaller, the line says "rank 0
# renumbered to R" and world rank 0 is rank R
t_rank0() {
    local dims=$1 want=$2 d lib=$LIB/libstencilmap-reorder-mpich.so n=0 c order=""
    shift 2
    for c in "$@"; do n=$((n + c)); order="$order $c"; done
    d=$(mktemp -d "$WORK/t.XXXXXX")
    cat >"$d/job.sh" <<EOF
set -e
$MACHINES
: >machines.rank0
for c in$order; do grep ":\$c\$" machines.blocked | grep -vxF -f machines.rank0 | head -1 >>machines.rank0; done
$(launch_line mpich rank0 "$n" "$WORK/bin/cart-mpich cart1 $dims 0,0 hosts1" LD_PRELOAD="$lib" STENCIL_MAP_VERBOSE=1) >out1 2>err1
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/err* "$d"/out*; fail "the job failed"; return 1; }
    run_ok "$d/out1" || return 1
    grep -h '^stencil-map: ' "$d/err1"
    tr '\n' ' ' <"$d/machines.rank0"; echo
    local v state plan ident
    v=$(verbose "$d/err1")
    IFS='|' read -r state plan ident <<<"$v"
    [ "$state" = reordered ] || { fail "not reordered: $v"; return 1; }
    [ "$(observed "$d/out1")" = "$plan" ] || { fail "observed $(observed "$d/out1"), planned $plan"; return 1; }
    [ "$(score_of "$d/hosts1" "$dims" 0,0)" = "$plan" ] || { fail "stencil-map score of hosts1 is not $plan"; return 1; }
    rank0_ok "$d/out1" "$d/err1" || return 1
    if [ "$want" = moved ]; then
        grep -q 'rank 0 renumbered to [1-9]' "$d/err1" || { fail "no 'rank 0 renumbered' in the line"; return 1; }
    else
        ! grep -q 'rank 0 renumbered' "$d/err1" && grep -q '^world rank 0 is rank 0$' "$d/out1" ||
            { fail "rank 0 was renumbered"; return 1; }
    fi
    echo "FIGURES rank 0, nodes of$order CPUs, dims $dims: $(grep '^world rank 0 is' "$d/out1"), J_sum J_max $plan (MPI's order $ident)"
    rm -rf "$d"
}

# t_mpix MPI LAYOUT N DIMS PERIODS: MPIX_Cart_stencil_comm linked in
t_mpix() {
    local mpi=$1 layout=$2 n=$3 dims=$4 periods=$5 d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    local prog="$WORK/bin/mpix-$mpi"
    cat >"$d/job.sh" <<EOF
set -e
$MACHINES
$(launch_line "$mpi" "$layout" "$n" "$prog mpix1 $dims $periods hosts1" STENCIL_MAP_VERBOSE=1) >out1 2>err1
$(launch_line "$mpi" "$layout" "$n" "$prog mpix0 $dims $periods hosts0" STENCIL_MAP_VERBOSE=1) >out0 2>err0
$(launch_line "$mpi" "$layout" 4 "$prog errors") >outerr 2>errerr
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/err* "$d"/out*; fail "the job failed"; return 1; }
    run_ok "$d/out1" && run_ok "$d/out0" || return 1
    grep -q '^FAIL' "$d/outerr" || [ "$(grep -c '^ok error' "$d/outerr")" -lt 15 ] &&
        { cat "$d/outerr"; fail "argument errors"; return 1; }
    local v state plan ident
    v=$(verbose "$d/err1")
    IFS='|' read -r state plan ident <<<"$v"
    grep -h '^stencil-map: ' "$d/err1"
    [ -n "$v" ] && [ "$(observed "$d/out1")" = "$plan" ] || { fail "mpix1: observed $(observed "$d/out1"), planned '$plan'"; return 1; }
    [ "$(observed "$d/out0")" = "$ident" ] || { fail "mpix0: observed $(observed "$d/out0"), identity $ident"; return 1; }
    echo "FIGURES MPIX_Cart_stencil_comm $mpi $layout n=$n dims $dims: reorder=1 $plan ($state), reorder=0 $ident"
    rm -rf "$d"
}

# t_weighted MPI LAYOUT N WEIGHTS PERIODS: MPIX_Cart_weighted_create
# (seed 003) linked in, dims free: equal nodes take the two-level layout;
# its edges against MPI's order of the same dims, and seed 003's tables
t_weighted() {
    local mpi=$1 layout=$2 n=$3 w=$4 periods=$5 d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    local prog="$WORK/bin/mpix-$mpi"
    cat >"$d/job.sh" <<EOF
set -e
$MACHINES
$(launch_line "$mpi" "$layout" "$n" "$prog weighted $w $periods hostsw") >outw 2>errw
dims=\$(sed -n 's/^dims //p' outw | tr x ,)
$(launch_line "$mpi" "$layout" "$n" "$prog cart0 \$dims $periods hosts0") >out0 2>err0
$(launch_line "$mpi" "$layout" 8 "$prog seed") >outseed 2>errseed
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/err* "$d"/out*; fail "the job failed"; return 1; }
    run_ok "$d/outw" && run_ok "$d/out0" || return 1
    ! grep -q '^FAIL' "$d/outseed" && [ "$(grep -c '^ok ' "$d/outseed")" -ge 10 ] || { cat "$d/outseed"; fail "seed 003's examples"; return 1; }
    grep '^ok MPIX_Dims_ml_create' "$d/outseed"
    local dims ws wm is im
    dims=$(sed -n 's/^dims //p' "$d/outw" | tr x ,)
    read -r ws wm <<<"$(observed "$d/outw")"
    read -r is im <<<"$(observed "$d/out0")"
    [ "$(score_of "$d/hostsw" "$dims" "$periods")" = "$ws $wm" ] || { fail "stencil-map score of hostsw is not $ws $wm"; return 1; }
    [ "$ws" -le "$is" ] || { fail "weighted: J_sum $ws above MPI's order's $is"; return 1; }
    echo "FIGURES MPIX_Cart_weighted_create $mpi $layout n=$n weights $w: dims $dims, J_sum $ws J_max $wm; MPI's order of those dims $is / $im"
    rm -rf "$d"
}

# t_placed: a grid the plugin placed (STENCIL_MAP_DIMS as it exports it)
# keeps its order, said on rank 0
t_placed() {
    local d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    cat >"$d/job.sh" <<EOF
set -e
$(launch_line openmpi cyclic 16 "$WORK/bin/cart-openmpi cart1 4,4 0,0 hosts" LD_PRELOAD="$LIB/libstencilmap-reorder.so" STENCIL_MAP_VERBOSE=1 STENCIL_MAP_DIMS=4,4) >out 2>err
$(launch_line openmpi cyclic 16 "$WORK/bin/cart-openmpi cart0 4,4 0,0 hosts0") >out0 2>err0
EOF
    in_job "$d" 16 "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/err*; fail "the job failed"; return 1; }
    run_ok "$d/out" || return 1
    grep '^stencil-map: ' "$d/err"
    grep -q 'order kept (placed by srun --stencil-map' "$d/err" || { fail "no 'placed' line"; return 1; }
    [ "$(observed "$d/out")" = "$(observed "$d/out0")" ] || { fail "the placed grid was reordered"; return 1; }
    rm -rf "$d"
}

# t_graph MPI LAYOUT N MODE DIMS PERIODS: graph_check (MODE dist, graph or
# other) with the preload, then without the library (MPI's own order)
t_graph() {
    local mpi=$1 layout=$2 n=$3 mode=$4 dims=$5 periods=$6 d lib
    d=$(mktemp -d "$WORK/t.XXXXXX")
    lib=$LIB/libstencilmap-reorder.so
    [ "$mpi" = mpich ] && lib=$LIB/libstencilmap-reorder-mpich.so
    local prog="$WORK/bin/graph-$mpi $mode $dims $periods"
    cat >"$d/job.sh" <<EOF
set -e
$MACHINES
$(launch_line "$mpi" "$layout" "$n" "$prog" LD_PRELOAD="$lib" STENCIL_MAP_VERBOSE=1) >out1 2>err1
$(launch_line "$mpi" "$layout" "$n" "$prog") >outplain 2>errplain
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/err* "$d"/out*; fail "the job failed"; return 1; }
    run_ok "$d/out1" && run_ok "$d/outplain" || return 1
    grep -h '^stencil-map: ' "$d/err1"
    local ident moved
    ident=$(observed "$d/outplain")
    moved=$(sed -n 's/^moved \([0-9]*\) of .*/\1/p' "$d/out1")
    if [ "$mode" = other ]; then
        grep -q '^stencil-map: MPI_Dist_graph_create_adjacent: not a stencil' "$d/err1" &&
            [ "$moved" = 0 ] && [ "$(observed "$d/out1")" = "$ident" ] ||
            { fail "a graph that is no stencil: moved $moved, observed $(observed "$d/out1") vs $ident"; return 1; }
        echo "FIGURES graph $mpi $layout n=$n other: passed to MPI, order unchanged, J_sum J_max $ident"
        rm -rf "$d"
        return 0
    fi
    local v state plan pident obs ps pm is im
    v=$(verbose "$d/err1")
    [ -n "$v" ] || { cat "$d/err1"; fail "no verbose line from the library on rank 0"; return 1; }
    IFS='|' read -r state plan pident <<<"$v"
    obs=$(observed "$d/out1")
    [ "$obs" = "$plan" ] || { fail "observed $obs on the new communicator, the library planned $plan"; return 1; }
    [ "$pident" = "$ident" ] || { fail "the library's identity $pident, MPI's own order observed $ident"; return 1; }
    read -r ps pm <<<"$plan"
    read -r is im <<<"$ident"
    [ "$pm" -le "$im" ] || { fail "planned J_max $pm above the identity's $im"; return 1; }
    if [ "$layout" = cyclic ]; then
        [ "$state" = reordered ] && [ "$ps" -lt "$is" ] && [ "$moved" -gt 0 ] ||
            { fail "round-robin: not reordered ($state, $ps vs $is, moved $moved)"; return 1; }
    fi
    echo "FIGURES graph $mpi $layout n=$n $mode dims $dims periods $periods: with the library J_sum $ps J_max $pm ($state, $moved ranks renumbered); MPI's own order J_sum $is J_max $im"
    rm -rf "$d"
}

# t_fortran MPI LAYOUT N D1 D2: the Fortran MPI_CART_CREATE with the
# preload (Open MPI: mpif.h, MPICH: use mpi); its J_sum is the planned one
t_fortran() {
    local mpi=$1 layout=$2 n=$3 d1=$4 d2=$5 d lib
    d=$(mktemp -d "$WORK/t.XXXXXX")
    lib=$LIB/libstencilmap-reorder.so
    [ "$mpi" = mpich ] && lib=$LIB/libstencilmap-reorder-mpich.so
    cat >"$d/job.sh" <<EOF
set -e
$MACHINES
$(launch_line "$mpi" "$layout" "$n" "$WORK/bin/fortran-$mpi $d1 $d2 0 0" LD_PRELOAD="$lib" STENCIL_MAP_VERBOSE=1) >out1 2>err1
$(launch_line "$mpi" "$layout" "$n" "$WORK/bin/fortran-$mpi $d1 $d2 0 0") >outplain 2>errplain
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/err* "$d"/out*; fail "the job failed"; return 1; }
    local f v state plan ident obs plain
    for f in out1 outplain; do
        [ "$(grep -c '^ok ' "$d/$f")" -eq 4 ] && ! grep -q '^FAIL' "$d/$f" || { cat "$d/$f"; fail "$f: the program's checks"; return 1; }
    done
    grep -h '^stencil-map: ' "$d/err1"
    v=$(verbose "$d/err1")
    [ -n "$v" ] || { cat "$d/err1"; fail "the Fortran call did not reach the library"; return 1; }
    IFS='|' read -r state plan ident <<<"$v"
    obs=$(sed -n 's/^observed J_sum //p' "$d/out1")
    plain=$(sed -n 's/^observed J_sum //p' "$d/outplain")
    [ "$obs" = "${plan% *}" ] && [ "$plain" = "${ident% *}" ] ||
        { fail "Fortran: observed J_sum $obs (planned ${plan% *}), without the library $plain (identity ${ident% *})"; return 1; }
    [ "$layout" != cyclic ] || [ "$state" = reordered ] || { fail "round-robin: not reordered"; return 1; }
    echo "FIGURES Fortran MPI_CART_CREATE $mpi $layout n=$n dims $d1,$d2: with the library J_sum $obs ($state); without $plain"
    rm -rf "$d"
}

cluster_up 8
: >"$MINICLUSTER_DIR/etc/plugstack.conf" # no plugin: the library alone
run_test openmpi-cyclic-2d-n16 t_reorder openmpi cyclic 16 4,4 0,0
run_test openmpi-blocked-2d-n16 t_reorder openmpi blocked 16 4,4 0,0
run_test openmpi-cyclic-3d-periodic-n16 t_reorder openmpi cyclic 16 4,2,2 1,1,0
run_test mpich-cyclic-2d-n32 t_reorder mpich cyclic 32 4,8 0,0
run_test mpich-blocked-2d-n32 t_reorder mpich blocked 32 4,8 0,0
run_test mpich-cyclic-3d-periodic-n32 t_reorder mpich cyclic 32 4,4,2 1,1,0
run_test mpix-openmpi-cyclic-n16 t_mpix openmpi cyclic 16 4,4 0,1
run_test mpix-mpich-cyclic-n32 t_mpix mpich cyclic 32 8,4 0,1
run_test plugin-placed-grid-keeps-order t_placed
run_test mpix-weighted-openmpi-cyclic-n16 t_weighted openmpi cyclic 16 1,1 0,0
run_test mpix-weighted-mpich-blocked-n32 t_weighted mpich blocked 32 1,4 0,0
run_test graph-dist-openmpi-cyclic-2d-n16 t_graph openmpi cyclic 16 dist 4,4 0,0
run_test graph-dist-mpich-cyclic-3d-n32 t_graph mpich cyclic 32 dist 4,4,2 0,0,0
run_test graph-graph-openmpi-cyclic-2d-periodic-n16 t_graph openmpi cyclic 16 graph 4,4 1,1
run_test graph-dist-openmpi-blocked-3d-periodic-n16 t_graph openmpi blocked 16 dist 2,2,4 1,1,1
run_test graph-graph-mpich-cyclic-2d-n32 t_graph mpich cyclic 32 graph 4,8 0,1
run_test graph-other-openmpi-cyclic-n16 t_graph openmpi cyclic 16 other "" ""
run_test fortran-openmpi-cyclic-n16 t_fortran openmpi cyclic 16 4 4
run_test fortran-mpich-cyclic-n32 t_fortran mpich cyclic 32 8 4

cluster_up 8,8,6,2
: >"$MINICLUSTER_DIR/etc/plugstack.conf"
run_test hetero-openmpi-cyclic-2d-n24 t_reorder openmpi cyclic 24 6,4 0,0
run_test hetero-mpich-blocked-2d-n24 t_reorder mpich blocked 24 6,4 0,0
run_test hetero-openmpi-blocked-3d-n24 t_reorder openmpi blocked 24 2,3,4 0,0,0
run_test hetero-mpix-weighted-openmpi-n24 t_weighted openmpi cyclic 24 1,2 0,0
run_test rank0-kept-mpich-8-8-6-2 t_rank0 6,4 kept 8 8 6 2
run_test rank0-moved-mpich-6-8-8-2 t_rank0 3,8 moved 6 8 8 2

# b_cost N...: the bench, blocked over 4 nodes, at each N
b_cost() {
    local n d
    for n in "$@"; do
        d=$(mktemp -d "$WORK/b.XXXXXX")
        # ranks that wait yield the core: this machine's 2 cores hold them all
        { echo "export OMPI_MCA_mpi_yield_when_idle=1"
          launch_line openmpi blocked "$n" "$WORK/bin/bench-openmpi 2 5"; } >"$d/job.sh"
        if in_job "$d" "$n" "$d/job.sh" >"$d/out" 2>&1; then
            sed -n 's/^ranks/FIGURES bench: ranks/p' "$d/out"
        else
            echo "bench at $n ranks failed:"; tail -5 "$d/out"
        fi
        rm -rf "$d"
    done
}
if [ -n "${MPIX_BENCH:-}" ]; then
    cluster_up 64
    : >"$MINICLUSTER_DIR/etc/plugstack.conf"
    # shellcheck disable=SC2086
    b_cost $MPIX_BENCH
fi

cluster_down
echo
suite_summary
