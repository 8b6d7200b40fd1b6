#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Profile-guided specs on a real multi-node Slurm (contrib/minicluster) with
# PMIx and Open MPI: MPI programs run once under srun --mpi=pmix with
# libstencilmap-profile.so preloaded into the tasks, then `stencil-map
# learn` must give back the grid and stencil they really used: the halo
# example (MPI_Cart_create, MPI_Neighbor_alltoall on a distributed graph)
# and tests/profile/probe.c (no MPI_Cart_create, row- or column-major,
# unequal bytes per dimension, Isend, persistent requests on a duplicated
# communicator, Sendrecv on a communicator with reversed ranks; or
# MPI_Cart_create with MPI_Neighbor_alltoallv).  Then score --profile, and
# the library's care with the profile directory; and srun
# --stencil-map=profile:DIR, which preloads the library through the plugin.  Builds into a staging
# prefix outside /tmp, brings up its own minicluster (4 nodes x 8 CPUs),
# prints "ok NAME" / "FAIL NAME" and "N passed, M failed", and always
# brings the cluster down.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-profile), MINICLUSTER_PORT_BASE
#      (19300), PROFILE_PREFIX (/var/lib/smc-profile-prefix),
#      PROFILE_BUILD_ROOT (/var/lib/smc-profile-build), PROFILE_WORK
#      (/var/lib/smc-profile-work), PROFILE_SKIP_BUILD=1 to reuse the
#      install, PROFILE_ONLY=REGEX to run only the tests whose names match.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-profile}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-19300}
PREFIX=${PROFILE_PREFIX:-/var/lib/smc-profile-prefix}
ROOT=${PROFILE_BUILD_ROOT:-/var/lib/smc-profile-build}
WORK=${PROFILE_WORK:-/var/lib/smc-profile-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
HALO=$PREFIX/libexec/stencilmap/halo
SO=$PREFIX/lib/slurm/stencil_map.so
LIB=$PREFIX/lib/libstencilmap-profile.so
PROBE=$ROOT/obj/tests/profile/probe
RECORDS=$WORK/records
SUITE=profile
ONLY=${PROFILE_ONLY:-}
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: PROFILE_PREFIX, PROFILE_BUILD_ROOT, PROFILE_WORK and MINICLUSTER_DIR must be outside /tmp" >&2
    exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
[ -x "$MC" ] || { echo "run.sh: FATAL: $MC not found" >&2; exit 1; }
mkdir -p "$WORK/logs" "$WORK/records"

build() {
    SMC_BUILD_ROOT=$ROOT "$TOP/tests/integration/build.sh" "$PREFIX" || return 1
    make -C "$ROOT/obj/learning/profile" check >"$ROOT/check-profile.log" 2>&1 || return 1
    local f
    for f in "$SM" "$HALO" "$SO" "$LIB" "$PROBE"; do
        [ -e "$f" ] || { echo "run.sh: $f was not built/installed (PMIx or mpicc missing?)"; return 1; }
    done
}

if [ "${PROFILE_SKIP_BUILD:-0}" != 1 ]; then
    echo "building into $PREFIX (log $ROOT/make.log)"
    if ! build >"$WORK/build.log" 2>&1; then
        echo "run.sh: FATAL: build failed" >&2
        tail -40 "$WORK/build.log" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
fi

eval "$("$MC" env)"
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export STENCILMAP_SPECS_DIR=$PREFIX/share/stencilmap/specs
unset SLURM_HOSTFILE LD_PRELOAD $(env | sed -n 's/^\(STENCIL_MAP_[A-Z_]*\)=.*/\1/p')

# profiled DIR N [SRUN ARGS] PROG ARGS...: one run with the library in the tasks only
# (srun itself must not load it: it is no MPI program)
profiled() {
    local dir=$1 n=$2
    shift 2
    timeout 180 srun --time=3 --kill-on-bad-exit=0 --mpi=pmix -N 4 -n "$n" \
        --export="ALL,LD_PRELOAD=$LIB,STENCIL_MAP_PROFILE_DIR=$dir" "$@"
}

# same_spec SPEC DIMS PERIODS OFFSETS WEIGHTS (JSON; weights [] = equal)
same_spec() {
    python3 - "$@" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
dims, periods, offsets, weights = (json.loads(a) for a in sys.argv[2:6])
got = spec["grid"]
if got["dims"] != dims or got["periods"] != periods:
    sys.exit("learned grid %s, expected dims %s periods %s" % (got, dims, periods))
st = spec["stencil"]
gw = st.get("weights", [1] * len(st["offsets"]))
weights = weights or [1] * len(offsets)
lo = min(weights)
want = {tuple(o): w / lo for o, w in zip(offsets, weights)}
have = {tuple(o): w for o, w in zip(st["offsets"], gw)}
if set(want) != set(have) or any(abs(want[o] - have[o]) > 1e-3 * want[o] for o in want):
    sys.exit("learned stencil %s, expected %s" % (have, want))
print("learned spec equals the truth: dims %s periods %s, %d offsets" % (dims, periods, len(offsets)))
PY
}

# t_learn NAME N DIMS PERIODS OFFSETS WEIGHTS SOURCE -- PROG ARGS...
t_learn() {
    local name=$1 n=$2 dims=$3 periods=$4 offsets=$5 weights=$6 source=$7
    shift 8
    local d=$WORK/$name
    rm -rf "$d"
    mkdir -m 700 "$d"
    profiled "$d/prof" "$n" "$@" || { fail "the profiled run failed"; return 1; }
    local files
    files=$(find "$d/prof" -name 'rank.*' | wc -l)
    [ "$files" -eq "$n" ] || { fail "$files profile files for $n ranks"; return 1; }
    [ "$(stat -c %a "$d/prof/rank.0")" = 600 ] || { fail "rank.0 is not mode 600"; return 1; }
    "$SM" learn "$d/prof" --output "$d/learned.json" >"$d/report" 2>"$d/err" ||
        { cat "$d/report" "$d/err"; fail "learn failed"; return 1; }
    cat "$d/report" "$d/err" "$d/learned.json"
    grep -q "^100.0 % of bytes by" "$d/report" || { fail "not all of the bytes explained"; return 1; }
    grep -q "$source" "$d/report" || { fail "the grid does not come from $source"; return 1; }
    ! grep -q warning "$d/err" || { fail "learn warned"; return 1; }
    same_spec "$d/learned.json" "$dims" "$periods" "$offsets" "$weights" || return 1
    # the learned spec plans, and by the measured bytes it beats or ties blocked
    "$SM" score "$d/learned.json" --profile "$d/prof" --nodes 'node[1-4]' --slots 8 --json >"$d/score.json" ||
        { fail "score --profile failed"; return 1; }
    python3 - "$d/score.json" <<'PY' || { fail "the plan sends more across nodes than blocked"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["placement"]: r for r in d["placements"]}
print("bytes across nodes: blocked %d, plan (%s) %d; covered %.3f" % (
    rows["blocked"]["bytes_across"], rows["plan"]["algorithm"], rows["plan"]["bytes_across"], d["covered_share"]))
sys.exit(rows["plan"]["bytes_across"] > rows["blocked"]["bytes_across"] or d["covered_share"] != 1.0)
PY
}

OFF5=[[1,0],[-1,0],[0,1],[0,-1]]
OFF7=[[1,0,0],[-1,0,0],[0,1,0],[0,-1,0],[0,0,1],[0,0,-1]]

# a profile directory is never overwritten, nor used when others can write it
t_dir_safety() {
    local d=$WORK/safety
    rm -rf "$d"
    mkdir -m 700 "$d" "$d/prof"
    echo keep >"$d/prof/rank.0"
    profiled "$d/prof" 4 "$PROBE" --dims 2,2 >"$d/out" 2>&1 || { cat "$d/out"; fail "probe failed"; return 1; }
    cat "$d/out"
    [ "$(cat "$d/prof/rank.0")" = keep ] || { fail "rank.0 was overwritten"; return 1; }
    grep -q "rank.0: File exists" "$d/out" || { fail "no message about the existing rank.0"; return 1; }
    mkdir -m 777 "$d/open"
    profiled "$d/open" 4 "$PROBE" --dims 2,2 >"$d/out2" 2>&1 || { cat "$d/out2"; fail "probe failed"; return 1; }
    cat "$d/out2"
    [ -z "$(ls "$d/open")" ] || { fail "wrote into a directory others can write"; return 1; }
    grep -q "not writable by others" "$d/out2" || { fail "no message about the open directory"; return 1; }
    mkdir -m 700 "$d/target"
    ln -s "$d/target" "$d/link"
    profiled "$d/link" 4 "$PROBE" --dims 2,2 >"$d/out3" 2>&1 || { cat "$d/out3"; fail "probe failed"; return 1; }
    cat "$d/out3"
    [ -z "$(ls "$d/target")" ] || { fail "wrote through a symbolic link"; return 1; }
}

# srun --stencil-map=profile:DIR: the plugin preloads the library into the
# tasks (a shell too) and launches blocked; the profile learns as above
t_plugin_profile() {
    local d=$WORK/plugin
    rm -rf "$d"
    mkdir -m 700 "$d"
    timeout 180 srun --time=3 --kill-on-bad-exit=0 --mpi=pmix -N 4 -n 16 --stencil-map="profile:$d/prof" \
        "$PROBE" --dims 4,4 --order column-major --bytes 100,300 >"$d/out" 2>"$d/err" ||
        { cat "$d/out" "$d/err"; fail "the profiled probe failed"; return 1; }
    cat "$d/out" "$d/err"
    grep -q "^stencil-map: profiling into $d/prof, launched blocked" "$d/err" || { fail "no profiling line"; return 1; }
    [ "$(grep -c profiling "$d/err")" = 1 ] || { fail "the profiling line is not printed once"; return 1; }
    "$SM" learn "$d/prof" --output "$d/learned.json" >"$d/report" 2>&1 || { cat "$d/report"; fail "learn failed"; return 1; }
    cat "$d/report" "$d/learned.json"
    same_spec "$d/learned.json" [4,4] [false,false] "$OFF5" [3,3,1,1] || return 1
    # blocked, with the library and the directory in every task, no grid
    local show='echo "$SLURM_PROCID $SLURMD_NODENAME ${STENCIL_MAP_DIMS:-nodims} $STENCIL_MAP_PROFILE_DIR $LD_PRELOAD"'
    timeout 180 srun --time=3 -N 4 -n 16 --stencil-map="profile:$d/p2" sh -c "$show" 2>/dev/null | sort -n >"$d/tasks" ||
        { fail "srun of sh failed"; return 1; }
    timeout 180 srun --time=3 -N 4 -n 16 sh -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"' | sort -n >"$d/plain" ||
        { fail "plain srun failed"; return 1; }
    cat "$d/tasks"
    [ "$(wc -l <"$d/tasks")" = 16 ] || { fail "not 16 tasks"; return 1; }
    [ "$(awk '{ print $1, $2 }' "$d/tasks")" = "$(cat "$d/plain")" ] || { fail "not launched as without the plugin"; return 1; }
    awk -v dir="$d/p2" -v lib="$LIB" '$3 != "nodims" || $4 != dir || index($0, lib) == 0 { bad = 1 } END { exit bad }' \
        "$d/tasks" || { fail "a task lacks the profile's environment, or has a grid"; return 1; }
    echo "16 tasks blocked, each with $LIB preloaded and STENCIL_MAP_PROFILE_DIR=$d/p2"
    # a directory others can write is refused before anything runs
    mkdir -m 777 "$d/open"
    if timeout 60 srun --time=1 -n 1 --stencil-map="profile:$d/open" true 2>"$d/err2"; then
        fail "srun ran with an open profile directory"; return 1
    fi
    cat "$d/err2"
    grep -q "others cannot write" "$d/err2" || { fail "no reason given"; return 1; }
}

# the learned spec is an ordinary spec: the plugin places the halo by it
t_learned_places() {
    local spec=$WORK/halo2d/learned.json out rc
    [ -f "$spec" ] || { fail "no learned spec from halo-2d-periodic-x-n16"; return 1; }
    out=$(timeout 180 salloc -Q -N 4 -n 16 --time=3 srun --kill-on-bad-exit=0 -n 16 --mpi=pmix \
        --stencil-map="$spec" "$HALO" -i 5 -s 2048 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || { fail "halo exited $rc"; return 1; }
    grep -q "halo check ok" <<<"$out" || { fail "no 'halo check ok'"; return 1; }
    grep -q "^halo: 16 ranks on 4 nodes, grid 4x4" <<<"$out" || { fail "not the learned 4x4 grid"; return 1; }
    grep -q "^stencil-map: .* inter-node edges" <<<"$out" || { fail "not placed by the plugin"; return 1; }
}

# a step stopped by SIGTERM (a time limit, scancel) still leaves a profile
t_killed() {
    local d=$WORK/killed name=smc-profile-killed-$$ pid
    rm -rf "$d"
    mkdir -m 700 "$d"
    profiled "$d/prof" 8 -J "$name" "$PROBE" --dims 4,2 --iters 1000000000 >"$d/out" 2>&1 &
    pid=$!
    sleep 10
    scancel --signal=TERM --name="$name"
    wait "$pid"
    echo "srun exited $?"
    cat "$d/out"
    [ "$(find "$d/prof" -name 'rank.*' | wc -l)" = 8 ] || { fail "not 8 profile files"; ls -l "$d/prof"; return 1; }
    # SIGTERM, or SIGPIPE where a peer died first
    [ "$(grep -l '^partial [0-9]*$' "$d/prof"/rank.* | wc -l)" = 8 ] || { fail "not every file is marked partial"; return 1; }
    "$SM" learn "$d/prof" --output "$d/learned.json" >"$d/report" 2>"$d/err" || { cat "$d/report" "$d/err"; fail "learn failed"; return 1; }
    cat "$d/report" "$d/err"
    grep -q "8 of 8 ranks were stopped by a signal" "$d/err" || { fail "learn does not say the profile is partial"; return 1; }
    same_spec "$d/learned.json" [4,2] [false,false] "$OFF5" []
}

cluster_up 8
# halo: MPI_Cart_create without reorder, MPI_Neighbor_alltoall on a graph
run_test halo-2d-periodic-x-n16 t_learn halo2d 16 [4,4] [true,false] "$OFF5" [] MPI_Cart_create \
    -- "$HALO" --dims 4,4 --periods 1,0 -i 5 -s 2048
run_test halo-3d-7pt-n16 t_learn halo3d 16 [2,2,4] [false,false,true] "$OFF7" [] MPI_Cart_create \
    -- "$HALO" --dims 2,2,4 --periods 0,0,1 --stencil '1,0,0;-1,0,0;0,1,0;0,-1,0;0,0,1;0,0,-1' -i 5 -s 512
# probe without MPI_Cart_create: column-major (x fastest) comes back row-major, reversed
run_test probe-column-major-weighted-n16 t_learn colmajor 16 [2,8] [false,true] "$OFF5" [1,1,3,3] inferred \
    -- "$PROBE" --dims 8,2 --order column-major --periods 1,0 --bytes 300,100
run_test probe-row-major-staged-3d-n16 t_learn staged 16 [2,4,2] [false,true,false] "$OFF7" [1,1,1,1,5.6,5.6] inferred \
    -- "$PROBE" --dims 2,4,2 --periods 0,1,0 --bytes 1000,1000,5600
run_test probe-cart-neighbor-alltoallv-n16 t_learn cartnb 16 [4,4] [true,true] "$OFF5" [2,2,1,1] MPI_Cart_create \
    -- "$PROBE" --cart --dims 4,4 --periods 1,1 --bytes 200,100
run_test halo-placed-by-learned-spec t_learned_places
run_test profile-dir-safety t_dir_safety
run_test profile-of-a-killed-step t_killed
run_test plugin-profile-launch t_plugin_profile
cluster_down
suite_summary
