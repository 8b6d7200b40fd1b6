#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed 003's halo benchmark timed on a network (issues 37 and 39): halo003.c
# on the minicluster in netns mode, each node behind a rate-shaped link, for
# each base ratio three ways: MPI_Dims_create + MPI_Cart_create(reorder=0)
# in Slurm's block layout (dims), the same with libstencilmap-reorder
# preloaded and reorder=1 (reorder), and MPIX_Cart_weighted_create with the
# data grid's weights (weighted).  Writes results/halo003-NxC.tsv (every
# run; N nodes of C slots; -open appended without periodic boundaries)
# and results/halo003-NxC.md (the table: dims,
# J_sum/J_max in bytes between nodes, median us per exchange, speedup over
# dims).
#
#   contrib/bench/seeds/run.sh --halo       (as root), or this script
#
# Builds and installs the tree into its own prefix, brings the minicluster
# up once and always down again (the minicluster's own down: daemons by
# pid, links and namespaces by recorded name).  Bounded: no run starts after
# HALO003_BUDGET seconds, and each run is stopped after HALO003_LIMIT.
#
# env: HALO003_RATIOS ("2:2:2 1:2:4 4:2:1"), HALO003_NODES (4),
#      HALO003_CPUS (8 slots a node), HALO003_RATE (200mbit, each node's
#      link and direction), HALO003_SCALE (96: the data grid is the ratio
#      times this), HALO003_BPC (8 bytes a cell), HALO003_ITERS (20),
#      HALO003_WARMUP (3), HALO003_REPS (3), HALO003_PERIODIC (1; 0: the
#      grid has edges, MPI_PROC_NULL past them), HALO003_BUDGET (900 s),
#      HALO003_LIMIT (120 s a run), HALO003_OUT (results/ beside seeds/),
#      HALO003_PREFIX (/var/lib/halo-prefix), HALO003_BUILD_ROOT
#      (/var/lib/halo-build), HALO003_WORK (/var/lib/halo-work),
#      HALO003_SKIP_BUILD=1 to reuse the install, HALO003_CFLAGS (the
#      build's CFLAGS, e.g. "-g -O2 -Wno-missing-field-initializers"), MINICLUSTER_DIR
#      (/var/lib/halo-mc), MINICLUSTER_PORT_BASE (24500).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/halo-mc}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-24500}
export MINICLUSTER_NET=netns
export MINICLUSTER_RATE=${HALO003_RATE:-200mbit}
RATIOS=${HALO003_RATIOS:-2:2:2 1:2:4 4:2:1}
NODES=${HALO003_NODES:-4}
CPUS=${HALO003_CPUS:-8}
SCALE=${HALO003_SCALE:-96}
BPC=${HALO003_BPC:-8}
ITERS=${HALO003_ITERS:-20}
WARMUP=${HALO003_WARMUP:-3}
REPS=${HALO003_REPS:-3}
PERIODIC=${HALO003_PERIODIC:-1}
BUDGET=${HALO003_BUDGET:-900}
LIMIT=${HALO003_LIMIT:-120}
OUT=${HALO003_OUT:-$HERE/../results}
PREFIX=${HALO003_PREFIX:-/var/lib/halo-prefix}
ROOT=${HALO003_BUILD_ROOT:-/var/lib/halo-build}
WORK=${HALO003_WORK:-/var/lib/halo-work}
MC=$TOP/contrib/minicluster/minicluster
LIB=$PREFIX/lib
PROG=$WORK/bin/halo003
METHODS="dims reorder weighted"

die() { echo "halo003: $*" >&2; exit 1; }
case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    die "HALO003_PREFIX, HALO003_BUILD_ROOT, HALO003_WORK and MINICLUSTER_DIR must be outside /tmp (the nodes' /tmp is private)" ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root (the minicluster needs it)"
for v in NODES CPUS SCALE BPC ITERS REPS BUDGET LIMIT; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "HALO003_$v must be a positive integer (got '${!v}')"
done
[[ $PERIODIC =~ ^[01]$ ]] || die "HALO003_PERIODIC must be 0 or 1 (got '$PERIODIC')"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "HALO003_WARMUP must be a non-negative integer (got '$WARMUP')"
for r in $RATIOS; do
    [[ $r =~ ^[1-9][0-9]*:[1-9][0-9]*:[1-9][0-9]*$ ]] || die "HALO003_RATIOS: '$r' is not A:B:C"
done
command -v mpicc >/dev/null || die "mpicc (Open MPI) not found"
command -v python3 >/dev/null || die "python3 not found"

START=$SECONDS
mkdir -p "$WORK/bin" "$WORK/runs" "$OUT"
rm -f "$WORK"/runs/*.log "$WORK/runs.tsv"
if [ "${HALO003_SKIP_BUILD:-0}" != 1 ]; then
    echo "halo003: building into $PREFIX (logs in $ROOT)"
    SMC_CFLAGS=${HALO003_CFLAGS:-} SMC_BUILD_ROOT="$ROOT" "$TOP/tests/integration/build.sh" "$PREFIX" >"$WORK/build.log" 2>&1 ||
        { tail -30 "$WORK/build.log" >&2; die "build failed"; }
fi
for f in "$LIB/libstencilmap-reorder.so" "$LIB/libstencilmap-mpix.so" "$PREFIX/include/stencilmap_mpix.h"; do
    [ -e "$f" ] || die "$f missing (built without mpicc?); run without HALO003_SKIP_BUILD"
done
mpicc -O2 -I"$PREFIX/include" -o "$PROG" "$HERE/halo003.c" -L"$LIB" -Wl,-rpath,"$LIB" -lstencilmap-mpix ||
    die "mpicc failed on halo003.c"

CLUSTER_UP=0
cluster_down() {
    if [ "$CLUSTER_UP" = 1 ]; then
        "$MC" down >>"$WORK/minicluster.log" 2>&1 ||
            echo "halo003: WARNING: minicluster down failed (see $WORK/minicluster.log)" >&2
        CLUSTER_UP=0
    fi
}
trap cluster_down EXIT
trap 'echo "halo003: interrupted" >&2; exit 130' INT TERM HUP

echo "halo003: minicluster up: $NODES nodes x $CPUS slots, links $MINICLUSTER_RATE"
CLUSTER_UP=1 # first: a half-started cluster is brought down too
MINICLUSTER_NODES=$NODES MINICLUSTER_CPUS=$CPUS "$MC" up >"$WORK/minicluster.log" 2>&1 ||
    { tail -40 "$WORK/minicluster.log" >&2; die "the minicluster did not start"; }
eval "$("$MC" env)"
# 4 x 8 ranks on two cores: a waiting rank must yield to the one it waits for
export OMPI_MCA_mpi_yield_when_idle=1
unset SLURM_HOSTFILE LD_PRELOAD $(env | sed -n 's/^\(STENCIL_MAP_[A-Z_]*\)=.*/\1/p')
RANKS=$((NODES * CPUS))

printf 'ratio\tmethod\trep\tdims\tj_sum\tj_max\tmedian_us\tmin_us\tmax_us\n' >"$WORK/runs.tsv"
FAILED=0
OVER=0
run_one() { # RATIO METHOD REP
    local log=$WORK/runs/${1//:/-}-$2-$3.log rc line limit
    local -a pre=()
    [ "$2" = reorder ] && pre=(--export="ALL,LD_PRELOAD=$LIB/libstencilmap-reorder.so,STENCIL_MAP_VERBOSE=1")
    limit=$LIMIT
    echo "+ salloc -Q -N $NODES -n $RANKS srun --mpi=pmix ${pre[*]} $PROG --method $2 --ratio $1 --scale $SCALE --periodic $PERIODIC" >"$log"
    timeout "$limit" salloc -Q -N "$NODES" -n "$RANKS" --time=3 srun --kill-on-bad-exit=1 --mpi=pmix ${pre[@]+"${pre[@]}"} \
        "$PROG" --method "$2" --ratio "$1" --scale "$SCALE" --bytes-per-cell "$BPC" --periodic "$PERIODIC" -i "$ITERS" -w "$WARMUP" >>"$log" 2>&1
    rc=$?
    line=$(grep '^halo003: method ' "$log")
    if [ $rc -ne 0 ] || [[ ! $line =~ dims\ ([0-9x]+)\ J_sum\ ([0-9]+)\ J_max\ ([0-9]+)\ bytes\ median\ ([0-9.]+)\ min\ ([0-9.]+)\ max\ ([0-9.]+) ]]; then
        echo "halo003: FAILED $1 $2 rep $3 (exit $rc), log $log:" >&2
        tail -10 "$log" | sed 's/^/    | /' >&2
        FAILED=$((FAILED + 1))
        return 1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${BASH_REMATCH[@]:1:6}" >>"$WORK/runs.tsv"
    printf '  %-6s %-9s rep %d: dims %-7s J_sum %9s B, median %9.1f us per exchange\n' "$1" "$2" "$3" \
        "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[4]}"
}

for ((rep = 1; rep <= REPS; rep++)); do
    for r in $RATIOS; do
        for m in $METHODS; do
            if [ $((SECONDS - START)) -ge "$BUDGET" ]; then OVER=1; break 3; fi
            run_one "$r" "$m" "$rep"
        done
    done
done
cluster_down

NAME=halo003-${NODES}x$CPUS$([ "$PERIODIC" = 0 ] && echo -open)
cp "$WORK/runs.tsv" "$OUT/$NAME.tsv"
python3 "$HERE/report.py" --runs "$WORK/runs.tsv" --out "$OUT/$NAME.md" \
    --note "$NODES nodes x $CPUS slots ($RANKS ranks), links $MINICLUSTER_RATE per node and direction (tbf), $([ "$PERIODIC" = 1 ] && echo periodic || echo "not periodic (edges)"), data grid = ratio x $SCALE cells, $BPC B per cell, $ITERS exchanges + $WARMUP warm-up, $REPS repetitions (median of their medians)" ||
    die "report failed"
cat "$OUT/$NAME.md"
echo "halo003: $((SECONDS - START)) s in all; table $OUT/$NAME.md, runs $OUT/$NAME.tsv"
[ "$OVER" = 0 ] || echo "halo003: WARNING: stopped at the ${BUDGET}s budget; some runs are missing" >&2
[ "$FAILED" -eq 0 ] || die "$FAILED runs failed"
[ "$OVER" = 0 ]
