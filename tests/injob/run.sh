#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# In-job tests of libstencilmap, stencil-map-verify and the halo demo on a
# real multi-node Slurm (contrib/minicluster) with PMIx (srun --mpi=pmix) and
# Open MPI.  Builds and installs the tree into a staging prefix outside /tmp,
# runs the CMocka unit tests (make check in tests/, its injob/ tests), brings up its
# own minicluster (4 nodes x 8 CPUs, then 8,8,6,4), runs every test, prints
# "ok NAME" / "FAIL NAME" and "N passed, M failed", and always brings the
# cluster down.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-injob), MINICLUSTER_PORT_BASE
#      (28800), INJOB_PREFIX (/var/lib/smc-injob-prefix), INJOB_BUILD_ROOT
#      (/var/lib/smc-injob-build), INJOB_WORK (/var/lib/smc-injob-work),
#      INJOB_SKIP_BUILD=1 to reuse the install, INJOB_ONLY=REGEX to run only
#      the tests whose names match.
#
# Steps are launched two ways: with the stencil_map SPANK plugin
# (srun --stencil-map=SPEC), and without it, with a hostfile
# (SLURM_HOSTFILE=F srun --distribution=arbitrary) and a forged task
# environment (`env STENCIL_MAP_...=... prog`, computed with
# `stencil-map plan --json`); STENCIL_MAP_COORDS is then left unset and the
# library derives the coordinates from the PMIx rank.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-injob}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-28800}
PREFIX=${INJOB_PREFIX:-/var/lib/smc-injob-prefix}
ROOT=${INJOB_BUILD_ROOT:-/var/lib/smc-injob-build}
WORK=${INJOB_WORK:-/var/lib/smc-injob-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
VERIFY=$PREFIX/bin/stencil-map-verify
HALO=$PREFIX/libexec/stencilmap/halo
SO=$PREFIX/lib/slurm/stencil_map.so
PROBE=$ROOT/obj/tests/injob/injob_probe
OFF5PT='1,0;-1,0;0,1;0,-1'
RECORDS=$WORK/records
SUITE=injob
ONLY=${INJOB_ONLY:-}
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: INJOB_PREFIX, INJOB_BUILD_ROOT, INJOB_WORK and MINICLUSTER_DIR must be outside /tmp" >&2
    exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
[ -x "$MC" ] || { echo "run.sh: FATAL: $MC not found" >&2; exit 1; }
mkdir -p "$WORK/logs" "$WORK/records"

# ------------------------------------------------------------- build -----
build() {
    SMC_BUILD_ROOT=$ROOT "$TOP/tests/integration/build.sh" "$PREFIX" || return 1
    # the probe is a check program; the CMocka tests' log is read by t_unit
    make -C "$ROOT/obj/tests" check TESTS="injob/test_injob_env injob/test_injob_edges" \
        >"$ROOT/check.log" 2>&1 || true
    local f
    for f in "$SM" "$VERIFY" "$HALO" "$SO" "$PROBE" "$PREFIX/include/stencilmap.h" \
        "$PREFIX/include/stencilmap_mpi.h" "$PREFIX/lib/pkgconfig/stencilmap.pc" \
        "$PREFIX/share/man/man3/stencilmap.h.3"; do
        [ -e "$f" ] || { echo "run.sh: $f was not built/installed (PMIx or mpicc missing?)"; return 1; }
    done
}

if [ "${INJOB_SKIP_BUILD:-0}" != 1 ]; then
    echo "building into $PREFIX (log $ROOT/make.log)"
    if ! build >"$WORK/build.log" 2>&1; then
        echo "run.sh: FATAL: build failed" >&2
        tail -40 "$WORK/build.log" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
fi

# the environment of every client command and step
eval "$("$MC" env)"
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export STENCILMAP_SPECS_DIR=$PREFIX/share/stencilmap/specs
unset SLURM_HOSTFILE $(env | sed -n 's/^\(STENCIL_MAP_[A-Z_]*\)=.*/\1/p')

# ------------------------------------------------------------ helpers ----
# every step gets a time limit: a hung PMIx fence must not hang the suite
srun_() { timeout 180 srun --time=3 --kill-on-bad-exit=0 "$@"; }
# asrun N ARGS: a step of N tasks in its own allocation of 4 nodes, as the
# plugin needs (it places on the job's SLURM_JOB_NODELIST/_CPUS_PER_NODE)
asrun() {
    local n=$1
    shift
    timeout 180 salloc -Q -N 4 -n "$n" --time=3 srun --kill-on-bad-exit=0 -n "$n" "$@"
}

json_get() { # FILE EXPR -> value of a python expression on the parsed object d
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(json.dumps(v) if not isinstance(v,(str,int)) else v)' "$1" "$2"
}

spec_file() { # ALG NDIMS STENCIL PERIODS(json list) -> path
    local f=$WORK/spec-$1-$2d-$3-$(echo "$4" | tr -dc 'tf').json
    printf '{"grid": {"dims": "auto", "ndims": %s, "periods": %s}, "stencil": "%s", "algorithm": "%s"}\n' \
        "$2" "$4" "$3" "$1" >"$f"
    echo "$f"
}

# verify_placed SPEC NTASKS: stencil-map-verify under the plugin agrees with
# the plan srun announced and with an independent `stencil-map score` of the
# nodes the tasks really ran on.
verify_placed() {
    local spec=$1 n=$2 d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    asrun "$n" --mpi=pmix --stencil-map="$spec" "$VERIFY" -v >"$d/out" 2>"$d/err"
    local rc=$?
    cat "$d/err" "$d/out"
    [ $rc -eq 0 ] || { fail "stencil-map-verify exited $rc"; return 1; }
    grep -q '^stencil-map-verify: OK ' "$d/out" || { fail "no OK line"; return 1; }
    local line planned_sum obs_sum obs_max
    line=$(grep '^stencil-map-verify: OK ' "$d/out")
    obs_sum=$(sed -n 's/.*J_sum planned \([0-9]*\) observed \([0-9]*\).*/\2/p' <<<"$line")
    obs_max=$(sed -n 's/.*J_max planned \([0-9]*\) observed \([0-9]*\).*/\2/p' <<<"$line")
    planned_sum=$(sed -n 's/^stencil-map: .* inter-node edges \([0-9]*\) (blocked [0-9]*)$/\1/p' "$d/err" | tail -1)
    [ -n "$planned_sum" ] || { fail "no summary line from the plugin on srun's stderr"; return 1; }
    [ "$planned_sum" = "$obs_sum" ] || { fail "srun announced J_sum $planned_sum, verify observed $obs_sum"; return 1; }
    # independent: where did the ranks run (Slurm's view), scored by the CLI
    asrun "$n" --mpi=pmix --stencil-map="$spec" -Q sh -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"' |
        sort -n | awk '{print $2}' >"$d/hostfile"
    [ "$(wc -l <"$d/hostfile")" -eq "$n" ] || { fail "hostfile of the run has $(wc -l <"$d/hostfile") lines"; return 1; }
    "$SM" score "$spec" --hostfile "$d/hostfile" --ranks "$n" --json >"$d/score.json" ||
        { fail "stencil-map score failed"; return 1; }
    local s_sum s_max
    s_sum=$(json_get "$d/score.json" 'd["j_sum"]')
    s_max=$(json_get "$d/score.json" 'd["j_max"]')
    [ "$s_sum" = "$obs_sum" ] && [ "$s_max" = "$obs_max" ] ||
        { fail "stencil-map score of the real placement: $s_sum/$s_max, verify observed $obs_sum/$obs_max"; return 1; }
    echo "checked: planned = observed = scored: J_sum $obs_sum, J_max $obs_max"
    # --json of the same step parses and agrees
    asrun "$n" --mpi=pmix --stencil-map="$spec" -Q "$VERIFY" --json >"$d/v.json" || { fail "--json run failed"; return 1; }
    [ "$(json_get "$d/v.json" 'd["status"]')" = OK ] || { fail "json status not OK"; cat "$d/v.json"; return 1; }
    [ "$(json_get "$d/v.json" 'd["observed"]["j_sum"]')" = "$obs_sum" ] || { fail "json j_sum differs"; return 1; }
    [ "$(json_get "$d/v.json" 'sum(x["ranks"] for x in d["nodes"])')" = "$n" ] || { fail "json node ranks do not add up"; return 1; }
    [ "$(json_get "$d/v.json" 'd["coords_wrong"]')" = 0 ] || { fail "coords_wrong != 0"; return 1; }
    rm -rf "$d"
}

# probe_check OUT N: every PROBE line's coordinates are the row-major ones
# of the rank read, and its node is the node that rank reported itself.
probe_check() {
    local out=$1 n=$2 dims=$3
    local lines
    lines=$(grep -c '^PROBE ' "$out")
    [ "$lines" -eq $((5 * n)) ] || { fail "expected $((5 * n)) PROBE lines, got $lines"; return 1; }
    awk -v dims="$dims" '
        $1 == "PROBE" { node[$2] = $3; nl++; r[nl] = $4; c[nl] = $5; h[nl] = $6 }
        END {
            nd = split(dims, d, ",")
            for (i = 1; i <= nl; i++) {
                x = r[i]; s = ""
                for (k = nd; k >= 1; k--) { cc[k] = x % d[k]; x = int(x / d[k]) }
                for (k = 1; k <= nd; k++) s = s (k > 1 ? "," : "") cc[k]
                if (s != c[i]) { printf "rank %d read coords %s, expected %s\n", r[i], c[i], s; bad = 1 }
                if (h[i] != node[r[i]]) { printf "rank %d read node %s, it runs on %s\n", r[i], h[i], node[r[i]]; bad = 1 }
            }
            printf "%d reads checked\n", nl
            exit bad
        }' "$out"
}

# ------------------------------------------------------------ tests ------
t_unit() {
    cat "$ROOT/check.log" | grep -E '^(PASS|FAIL|ERROR|# )'
    grep -q '^# FAIL: *0$' "$ROOT/check.log" && grep -q '^# ERROR: *0$' "$ROOT/check.log" &&
        grep -q '^# PASS: *2$' "$ROOT/check.log"
}

t_verify() { # SPEC N
    verify_placed "$1" "$2"
}

t_probe() { # SPEC N
    local d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    asrun "$2" --mpi=pmix --stencil-map="$1" "$PROBE" >"$d/out" 2>"$d/err" || { cat "$d/err"; fail "probe step failed"; return 1; }
    local dims
    dims=$(asrun "$2" --mpi=pmix --stencil-map="$1" -Q sh -c '[ "$SLURM_PROCID" = 0 ] && printenv STENCIL_MAP_DIMS' 2>/dev/null)
    [ -n "$dims" ] || { fail "no STENCIL_MAP_DIMS"; return 1; }
    echo "dims $dims"
    head -5 "$d/out"
    probe_check "$d/out" "$2" "$dims" || return 1
    # the nodes the ranks reported are the nodes Slurm placed them on
    asrun "$2" --mpi=pmix --stencil-map="$1" -Q sh -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"' | sort -n >"$d/slurm"
    awk '$1 == "PROBE" { print $2, $3 }' "$d/out" | sort -u -n >"$d/self"
    cmp -s "$d/slurm" "$d/self" || { fail "stencilmap.node differs from SLURMD_NODENAME"; diff "$d/slurm" "$d/self"; return 1; }
    echo "nodes: as Slurm placed them"
    rm -rf "$d"
}

# forged ALG_ENV ALG_LAUNCH SPEC N EXPECT: launch the step with the hostfile of
# ALG_LAUNCH (no plugin) while the task environment claims the plan of ALG_ENV
forged() {
    local claim=$1 launch=$2 stencil=$3 n=$4 expect=$5 nodes=$6 slots=$7
    local d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    "$SM" plan "$claim:2d:$stencil" --nodes "$nodes" --slots "$slots" --ranks "$n" --json >"$d/claim.json" ||
        { fail "plan $claim"; return 1; }
    "$SM" plan "$launch:2d:$stencil" --nodes "$nodes" --slots "$slots" --ranks "$n" --hostfile "$d/hostfile" \
        --json >"$d/launch.json" || { fail "plan $launch"; return 1; }
    local dims jsum jmax ljsum ljmax
    dims=$(json_get "$d/claim.json" '",".join(str(x) for x in d["dims"])')
    jsum=$(json_get "$d/claim.json" 'd["j_sum"]')
    jmax=$(json_get "$d/claim.json" 'd["j_max"]')
    ljsum=$(json_get "$d/launch.json" 'd["j_sum"]')
    ljmax=$(json_get "$d/launch.json" 'd["j_max"]')
    echo "claimed $claim: J_sum $jsum J_max $jmax; launched $launch: J_sum $ljsum J_max $ljmax"
    if [ "$expect" = MISMATCH ] && [ "$jsum" = "$ljsum" ] && [ "$jmax" = "$ljmax" ]; then
        fail "test cannot tell: both placements have the same figures"
        return 1
    fi
    local off=$OFF5PT
    SLURM_HOSTFILE=$d/hostfile srun_ --mpi=pmix --distribution=arbitrary -n "$n" \
        env STENCIL_MAP_DIMS="$dims" STENCIL_MAP_PERIODS=0,0 STENCIL_MAP_STENCIL="$off" \
        STENCIL_MAP_ALGORITHM="$claim" STENCIL_MAP_JSUM="$jsum" STENCIL_MAP_JMAX="$jmax" \
        "$VERIFY" -v >"$d/out" 2>"$d/err"
    local rc=$?
    cat "$d/out" "$d/err"
    if [ "$expect" = OK ]; then
        [ $rc -eq 0 ] && grep -q '^stencil-map-verify: OK ' "$d/out" || { fail "expected OK, exit $rc"; return 1; }
    else
        [ $rc -eq 1 ] || { fail "expected exit 1 (mismatch), got $rc"; return 1; }
        grep -q "^stencil-map-verify: MISMATCH $claim" "$d/out" || { fail "no MISMATCH line"; return 1; }
        if [ "$jsum" != "$ljsum" ]; then
            grep -q -- "-- differs: J_sum planned $jsum observed $ljsum" "$d/out" ||
                { fail "the difference is not named as 'J_sum planned $jsum observed $ljsum'"; return 1; }
        fi
        if [ "$jmax" != "$ljmax" ]; then
            grep -q -- "J_max planned $jmax observed $ljmax" "$d/out" ||
                { fail "the difference is not named as 'J_max planned $jmax observed $ljmax'"; return 1; }
        fi
    fi
    # the hostfile was followed: the ranks ran where its lines say
    SLURM_HOSTFILE=$d/hostfile srun_ --mpi=pmix --distribution=arbitrary -n "$n" \
        sh -c 'echo "$SLURM_PROCID $SLURMD_NODENAME"' | sort -n | awk '{print $2}' >"$d/ran"
    cmp -s "$d/ran" "$d/hostfile" || { fail "Slurm did not follow the hostfile"; return 1; }
    rm -rf "$d"
}

t_bad_env() {
    local out rc
    # grid of 12 for a step of 8 tasks: every rank says so, exit 2
    out=$(srun_ --mpi=pmix -n 8 env STENCIL_MAP_DIMS=4,3 STENCIL_MAP_PERIODS=0,0 \
        STENCIL_MAP_STENCIL="$OFF5PT" "$VERIFY" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 2 ] || { fail "size mismatch: expected exit 2, got $rc"; return 1; }
    grep -q 'STENCIL_MAP_DIMS=4,3 is a grid of 12 ranks but the step has 8 tasks' <<<"$out" ||
        { fail "size mismatch not named"; return 1; }
    # one rank with a malformed variable: every rank reports that rank, nobody hangs
    cat >"$WORK/badrank.sh" <<EOF
#!/bin/sh
if [ "\$SLURM_PROCID" = 2 ]; then STENCIL_MAP_PERIODS=0,x; export STENCIL_MAP_PERIODS; fi
exec "$VERIFY" "\$@"
EOF
    chmod +x "$WORK/badrank.sh"
    out=$(srun_ --mpi=pmix -n 4 env STENCIL_MAP_DIMS=2,2 STENCIL_MAP_PERIODS=0,0 \
        STENCIL_MAP_STENCIL="$OFF5PT" "$WORK/badrank.sh" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 2 ] || { fail "bad PERIODS on rank 2: expected exit 2, got $rc"; return 1; }
    grep -q "rank 2: STENCIL_MAP_PERIODS=0,x" <<<"$out" || { fail "rank 2's bad variable not named"; return 1; }
    # not placed at all: exit 3
    out=$(srun_ --mpi=pmix -n 2 "$VERIFY" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 3 ] || { fail "not placed: expected exit 3, got $rc"; return 1; }
    grep -q 'STENCIL_MAP_DIMS is not set' <<<"$out" || { fail "not placed: no message"; return 1; }
    # wrong STENCIL_MAP_COORDS on one rank
    cat >"$WORK/badcoords.sh" <<EOF
#!/bin/sh
if [ "\$SLURM_PROCID" = 1 ]; then STENCIL_MAP_COORDS=1,1; export STENCIL_MAP_COORDS; fi
exec "$VERIFY" "\$@"
EOF
    chmod +x "$WORK/badcoords.sh"
    out=$(srun_ --mpi=pmix -n 4 env STENCIL_MAP_DIMS=2,2 STENCIL_MAP_PERIODS=0,0 \
        STENCIL_MAP_STENCIL="$OFF5PT" "$WORK/badcoords.sh" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 2 ] || { fail "bad COORDS: expected exit 2, got $rc"; return 1; }
    grep -q 'rank 1: STENCIL_MAP_COORDS=1,1 but rank 1 has the row-major coordinates 0,1' <<<"$out" ||
        { fail "bad COORDS not named"; return 1; }
}

t_halo() { # SPEC|none N ARGS...
    local spec=$1 n=$2
    shift 2
    local opt=(--stencil-map="$spec")
    local out rc
    out=$(asrun "$n" --mpi=pmix "${opt[@]}" "$HALO" "$@" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || { fail "halo exited $rc"; return 1; }
    grep -q "halo check ok" <<<"$out" || { fail "no 'halo check ok'"; return 1; }
    grep -q "time per iteration median" <<<"$out" || { fail "no timing line"; return 1; }
    grep -q "^halo: $n ranks on 4 nodes" <<<"$out" || { fail "not $n ranks on 4 nodes"; return 1; }
    # the inter-node messages per iteration are the placement's J_sum
    local jsum
    jsum=$(asrun "$n" --mpi=pmix "${opt[@]}" -Q sh -c '[ "$SLURM_PROCID" = 0 ] && echo "$STENCIL_MAP_JSUM"; true')
    [ -n "$jsum" ] || { fail "no STENCIL_MAP_JSUM"; return 1; }
    grep -q " $jsum inter-node messages per iteration" <<<"$out" ||
        { fail "inter-node messages differ from the plan's J_sum $jsum"; return 1; }
}

t_halo_plain() { # N ARGS: no placement, grid from arguments
    local n=$1
    shift
    local out rc
    out=$(srun_ --mpi=pmix -N 4 -n "$n" "$HALO" "$@" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] && grep -q "halo check ok" <<<"$out" || { fail "halo (no placement) failed, exit $rc"; return 1; }
}

# ------------------------------------------------------------ run --------
run_test unit-cmocka t_unit

cluster_up 8
ALGS="hyperplane strips kdtree nodecart blocked auto"
for alg in $ALGS; do
    run_test "verify-$alg-2d-5pt-n32" t_verify "$alg:2d:5pt" 32
done
run_test verify-hyperplane-3d-7pt-n27 t_verify hyperplane:3d:7pt 27
run_test verify-kdtree-2d-9pt-periodic-n30 t_verify "$(spec_file kdtree 2 9pt '[true, true]')" 30
run_test verify-weighted-climate2d-n24 t_verify climate2d 24
run_test probe-coords-hyperplane-n32 t_probe hyperplane:2d:5pt 32
run_test probe-coords-3d-n24 t_probe "$(spec_file strips 3 7pt '[true, false, true]')" 24
run_test wrong-placement-detected-hyperplane-as-blocked forged hyperplane blocked 5pt 30 MISMATCH 'node[1-4]' 8
run_test wrong-placement-detected-strips-as-kdtree forged strips kdtree 5pt 30 MISMATCH 'node[1-4]' 8
run_test forged-env-honest-blocked forged blocked blocked 5pt 32 OK 'node[1-4]' 8
run_test bad-env-detected t_bad_env
run_test halo-planned-hyperplane-n30 t_halo hyperplane:2d:5pt 30 -i 30 -s 4096
run_test halo-blocked-n30 t_halo blocked:2d:5pt 30 -i 30 -s 4096
run_test halo-planned-3d-7pt-n24 t_halo auto:3d:7pt 24 -i 20 -s 1024
# column-major ranks (PETSc DMDA): the plugin's STENCIL_MAP_COORDS, the
# library's coordinates and neighbours, MPI's Cartesian communicator (dims
# reversed) and the plan all follow the grid's order
CM_SPEC=$WORK/spec-column-major-8x4-9pt.json
printf '{"grid": {"dims": [8, 4], "periods": [true, false], "order": "column-major"}, "stencil": "9pt"}\n' \
    >"$CM_SPEC"
run_test verify-column-major-8x4-9pt-n32 t_verify "$CM_SPEC" 32
run_test halo-column-major-8x4-9pt-n32 t_halo "$CM_SPEC" 32 -i 20 -s 1024
run_test halo-no-placement-args t_halo_plain 16 --dims 4,4 --periods 1,1 -i 20

cluster_up 8,8,6,4
# nodecart needs equal node sizes; the integration suite checks that it is
# refused on these nodes (a-hetero-nodecart-infeasible)
for alg in ${ALGS/nodecart /}; do
    run_test "hetero-verify-$alg-2d-5pt-n26" t_verify "$alg:2d:5pt" 26
done
run_test hetero-verify-strips-2d-9pt-periodic-n24 t_verify "$(spec_file strips 2 9pt '[false, true]')" 24
run_test hetero-probe-coords-n26 t_probe kdtree:2d:5pt 26
run_test hetero-wrong-placement-detected forged hyperplane blocked 5pt 24 MISMATCH 'node[1-4]' 8,8,6,4
run_test hetero-halo-planned-n26 t_halo auto:2d:9pt 26 -i 20 -s 2048
run_test hetero-halo-blocked-n26 t_halo blocked:2d:9pt 26 -i 20 -s 2048

cluster_down
echo
suite_summary
