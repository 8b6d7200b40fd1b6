#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --stencil-map=learn and default=learn on a real Slurm (contrib/minicluster
# in netns mode: 4 nodes x 8 CPUs, each behind its own shaped veth, so the
# bytes between nodes are counted), every run launched as a user launches
# it, under srun --mpi=pmix:
#   the halo example (its grid from MPI_Dims_create) learned on 16 ranks,
#     then placed on 16 and, recomputed by MPI_Dims_create, on 32;
#   the profile probe (column-major, unequal bytes: weights, no
#     MPI_Cart_create) learned and placed, and on another rank count
#     learned again;
#   LAMMPS from Debian (tests/app/in.melt) learned, then placed with the
#     spec `stencil-map learn` writes from a profile of it, and the same
#     bytes between nodes;
#   programs that are no stencil code (a ring, an all-to-all, scattered
#     sends, hostname) get the verdict and stay blocked, unprofiled;
#   default=learn on a batch job of two programs;
#   a rebuilt binary is learned again;
#   the store's checks (open to others, another user's, a symbolic link,
#     corrupt or hostile entries), slurmd and slurmstepd never opening it,
#     two first runs at once storing one spec, a killed or failed step
#     storing nothing and ending as it would without the plugin.
# Then `stencil-map learned list` on the allocation, and the cost of a
# profiled first run against a plain one (reported, never asserted).
# Builds into a staging prefix outside /tmp, prints "ok NAME" / "FAIL NAME"
# and "N passed, M failed", and always brings its cluster down.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-learned), MINICLUSTER_PORT_BASE
#      (17300), LEARNED_PREFIX (/var/lib/smc-learned-prefix),
#      LEARNED_BUILD_ROOT (/var/lib/smc-learned-build), LEARNED_WORK
#      (/var/lib/smc-learned-work), LEARNED_RATE (200mbit: each node's link),
#      LEARNED_SKIP_BUILD=1 to reuse the install, LEARNED_ONLY=REGEX to run
#      only the tests whose names match (later tests need earlier ones'
#      stores); SMC_SLURM and MINICLUSTER_SLURM for another Slurm release
#      (tests/slurm-versions/run.sh sets both).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-learned}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-17300}
export MINICLUSTER_NET=netns
export MINICLUSTER_RATE=${LEARNED_RATE:-200mbit}
PREFIX=${LEARNED_PREFIX:-/var/lib/smc-learned-prefix}
ROOT=${LEARNED_BUILD_ROOT:-/var/lib/smc-learned-build}
WORK=${LEARNED_WORK:-/var/lib/smc-learned-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
SO=$PREFIX/lib/slurm/stencil_map.so
LIB=$PREFIX/lib/libstencilmap-profile.so
HALO=$PREFIX/libexec/stencilmap/halo
PROBE=$ROOT/obj/tests/profile/probe
NONSTENCIL=$ROOT/obj/tests/learned/nonstencil
TASK=$TOP/tests/integration/task.sh
# shellcheck disable=SC2034 # read by tests/lib/suite.sh
RECORDS=$WORK/records SUITE=learned ONLY=${LEARNED_ONLY:-} MC_TIMEOUT=240
NODES=4 CPUS=8
BYTES_TOLERANCE=3 # % (see tests/app/run.sh: wire-up, collectives, headers)
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: LEARNED_PREFIX, LEARNED_BUILD_ROOT, LEARNED_WORK and MINICLUSTER_DIR must be outside /tmp" >&2
    exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
[ -x "$MC" ] || { echo "run.sh: FATAL: $MC not found" >&2; exit 1; }
for cmd in strace readelf mpicc python3; do
    command -v "$cmd" >/dev/null || { echo "run.sh: FATAL: $cmd not found (contrib/install-deps.sh)" >&2; echo "0 passed, 1 failed"; exit 1; }
done
LMP=$(command -v lmp) || {
    echo "run.sh: FATAL: lmp not found: install Debian's lammps (contrib/install-deps.sh does)" >&2
    echo "0 passed, 1 failed"
    exit 1
}
mkdir -p "$WORK"
rm -rf "$WORK/logs" "$WORK/records" "$WORK/runs" "$WORK/minicluster.log" "$WORK"/state* "$WORK/bin" \
    "$WORK/site" "$WORK/home"
mkdir -p "$WORK/logs" "$WORK/records" "$WORK/runs" "$WORK/bin"
chmod 1777 "$WORK/records"

build() {
    SMC_BUILD_ROOT=$ROOT "$TOP/tests/integration/build.sh" "$PREFIX" || return 1
    make -C "$ROOT/obj/learning/profile" check >"$ROOT/check-profile.log" 2>&1 || return 1
    local f
    for f in "$SM" "$HALO" "$SO" "$LIB" "$PROBE" "$NONSTENCIL"; do
        [ -e "$f" ] || { echo "run.sh: $f was not built/installed (PMIx or mpicc missing?)"; return 1; }
    done
}
if [ "${LEARNED_SKIP_BUILD:-0}" != 1 ]; then
    echo "building into $PREFIX (log $WORK/build.log)"
    if ! build >"$WORK/build.log" 2>&1; then
        echo "run.sh: FATAL: build failed" >&2
        tail -40 "$WORK/build.log" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
fi

export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export STENCILMAP_SPECS_DIR=$PREFIX/share/stencilmap/specs
unset SLURM_HOSTFILE LD_PRELOAD $(env | sed -n 's/^\(STENCIL_MAP_[A-Z_]*\)=.*/\1/p')
# the user's store: never root's real home
export XDG_STATE_HOME=$WORK/state
STORE=$XDG_STATE_HOME/stencilmap/learned

# ------------------------------------------------------------ helpers ----
# run NAME N [--salloc SALLOC OPTIONS --] SRUN ARGS...: one step as a user
# launches it, in an allocation of N tasks on the 4 nodes; leaves in
# runs/NAME: out, err, rc, bytes (between nodes) and seconds (srun's wall
# time).  KILL_ON_BAD_EXIT (default 1) is srun's --kill-on-bad-exit.
run() {
    local name=$1 n=$2 d=$WORK/runs/$1 b0 b1 t0 salloc_opts=()
    shift 2
    if [ "${1:-}" = --salloc ]; then
        shift
        while [ "$1" != -- ]; do salloc_opts+=("$1"); shift; done
        shift
    fi
    rm -rf "$d"
    mkdir -p "$d"
    b0=$(netns_link_bytes $NODES) || { fail "no counters on the nodes' links"; return 1; }
    # srun's own wall time, inside the allocation (no queue wait counted)
    mc salloc -Q -N $NODES -n "$n" --time=5 "${salloc_opts[@]}" sh -c \
        't0=$(date +%s.%N); "$@"; rc=$?; echo "$t0 $(date +%s.%N)" >"$0"; exit $rc' "$d/t" \
        srun --kill-on-bad-exit="${KILL_ON_BAD_EXIT:-1}" --mpi=pmix "$@" >"$d/out" 2>"$d/err"
    echo $? >"$d/rc"
    awk '{ printf "%.2f\n", $2 - $1 }' "$d/t" >"$d/seconds" 2>/dev/null
    b1=$(netns_link_bytes $NODES)
    read -r s0 h0 <<<"$b0"
    read -r s1 h1 <<<"$b1"
    echo $(((s1 - s0) - (h1 - h0))) >"$d/bytes"
    cat "$d/out" "$d/err"
    echo "$name: exit $(cat "$d/rc"), $(cat "$d/bytes") bytes between nodes, srun $(cat "$d/seconds") s"
}
ok_run() { [ "$(cat "$WORK/runs/$1/rc")" = 0 ] || { fail "srun of $1 exited $(cat "$WORK/runs/$1/rc")"; return 1; }; }
err_has() { grep -qE "$2" "$WORK/runs/$1/err" || { fail "$1: stderr lacks /$2/"; return 1; }; }
err_lacks() { ! grep -qE "$2" "$WORK/runs/$1/err" || { fail "$1: stderr has /$2/"; return 1; }; }
out_has() { grep -qE "$2" "$WORK/runs/$1/out" || { fail "$1: stdout lacks /$2/"; return 1; }; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
key_of() { echo "b$(readelf -n "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')"; }
entries() { ls "${1:-$STORE}" 2>/dev/null | grep '\.json$' | sort; }
profiles_left() { ls -A "${1:-$STORE}/profiles" 2>/dev/null | wc -l; }

# entry_is FILE PYTHON-CONDITION...: facts about a stored entry (d: the JSON)
entry_is() {
    local f=$1
    shift
    python3 - "$f" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for cond in sys.argv[2:]:
    if not eval(cond):
        sys.exit("%s: not %s\n%s" % (sys.argv[1], cond, json.dumps(d, indent=1)))
print("%s: %s" % (sys.argv[1].rsplit("/", 1)[-1], " and ".join(sys.argv[2:])))
PY
}

# same_spec SPEC DIMS PERIODS OFFSETS WEIGHTS: a stored spec against the truth
same_spec() {
    python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
spec = d.get("spec", d)
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
print("stored spec equals the truth: dims %s periods %s, %d offsets" % (dims, periods, len(offsets)))
PY
}

# summary_of NAME: "ALG EDGES BLOCKED" from srun's learned-spec line
summary_of() {
    sed -n 's/^stencil-map: learned spec of .*: \([a-z]*\), [0-9]* ranks on [0-9]* nodes, inter-node edges \([0-9]*\) (blocked \([0-9]*\)).*/\1 \2 \3/p' \
        "$WORK/runs/$1/err" | tail -1
}

OFF5=[[1,0],[-1,0],[0,1],[0,-1]]
PROLOG=$WORK/bin/prolog.sh # each task's task.sh line on its stdout (TaskProlog's "print")
printf '#!/bin/sh\necho "print $(%s)"\n' "$TASK" >"$PROLOG"
chmod 755 "$PROLOG"

# ------------------------------------------------------------ the halo ----
t_halo_first() {
    run halo-first 16 "--stencil-map=learn" "$HALO" -i 5 -s 65536 || return 1
    ok_run halo-first || return 1
    err_has halo-first "^stencil-map: learn: first run of $HALO: profiled, launched blocked" || return 1
    err_has halo-first "^stencil-map: learn: learned from this run \(job [0-9]+\.0\) of halo: grid 4x4 from MPI_Dims_create, 100\.0 % of the bytes by 4 offsets; its next runs are placed by it$" || return 1
    out_has halo-first "no placement, 65536 B per neighbour" || return 1
    out_has halo-first "halo check ok" || return 1
    local key f
    key=$(key_of "$HALO")
    [ "$(entries)" = "$key.n16.json" ] || { fail "the store holds '$(entries)', not $key.n16.json (readelf's build ID)"; return 1; }
    f=$STORE/$key.n16.json
    [ "$(stat -c %a "$f")" = 600 ] && [ "$(stat -c %a "$STORE")" = 700 ] ||
        { fail "store or entry not private"; return 1; }
    entry_is "$f" 'd["format"] == 1' 'd["kind"] == "spec"' "d['executable'] == '$(readlink -f "$HALO")'" \
        'd["learned"]["ranks"] == 16' 'd["learned"]["step"] == 0' 'd["learned"]["share"] > 0.999' \
        'd["learned"]["grid_source"] == "MPI_Dims_create"' || return 1
    same_spec "$f" [4,4] [false,false] "$OFF5" [] || return 1
    [ "$(profiles_left)" = 0 ] || { fail "a profile directory was left in $STORE/profiles"; return 1; }
}

# placed ONE: the halo's line and its own count of inter-node messages agree
halo_placed() { # NAME N GRID LINE-REGEX
    local name=$1 n=$2 grid=$3 line=$4 s
    run "$name" "$n" "--stencil-map=learn" "$HALO" -i 5 -s 65536 || return 1
    ok_run "$name" || return 1
    err_has "$name" "$line" || return 1
    err_lacks "$name" "first run|profiled" || return 1
    out_has "$name" "^halo: $n ranks on 4 nodes, grid $grid \(STENCIL_MAP_\* environment\)" || return 1
    out_has "$name" "halo check ok" || return 1
    s=$(summary_of "$name")
    read -r alg edges blocked <<<"$s"
    out_has "$name" ", $alg, 65536 B per neighbour, $edges inter-node messages per iteration" ||
        { fail "the halo did not count the planned $edges inter-node messages"; return 1; }
    echo "$name: $alg, $edges inter-node edges planned (blocked $blocked), and counted by the halo where its ranks ran"
}

t_halo_placed_16() {
    halo_placed halo-placed-16 16 4x4 \
        "^stencil-map: learned spec of halo \(job [0-9]+\.0, 20[0-9-]+\), grid 4x4 from MPI_Dims_create: [a-z]+, 16 ranks on 4 nodes, inter-node edges [0-9]+ \(blocked [0-9]+\)$" || return 1
    [ "$(entries | wc -l)" = 1 ] || { fail "the store changed"; return 1; }
    local rec
    rec=$(ls -t "$RECORDS"/*/*.json | head -1)
    [ "$(json_get "$rec" 'd["spec"]')" = learn ] || { fail "the audit record's spec is not 'learn'"; return 1; }
    "$SM" audit --record "$rec" --no-slurm >"$WORK/runs/halo-placed-16/audit" ||
        { cat "$WORK/runs/halo-placed-16/audit"; fail "stencil-map audit finds the record inconsistent"; return 1; }
    echo "audit record $rec: spec learn, consistent"
}

t_halo_placed_32() {
    halo_placed halo-placed-32 32 8x4 \
        "^stencil-map: learned spec of halo \(16 ranks, job [0-9]+\.0, 20[0-9-]+\), grid 8x4 by MPI_Dims_create for 32 ranks: [a-z]+, 32 ranks on 4 nodes, inter-node edges [0-9]+ \(blocked [0-9]+\)$" || return 1
    [ "$(entries | wc -l)" = 1 ] || { fail "a 32-rank run of an MPI_Dims_create grid stored something"; return 1; }
}

# `stencil-map learned list` on an allocation of 32: srun's figures
t_cli_list_here() {
    local out s
    out=$(mc salloc -Q -N $NODES -n 32 --time=2 "$SM" learned list 2>&1) || { echo "$out"; fail "learned list failed"; return 1; }
    echo "$out"
    s=$(summary_of halo-placed-32)
    read -r alg edges blocked <<<"$s"
    grep -q "^halo .*16 ranks: grid 4x4 from MPI_Dims_create.*here: $alg, 32 ranks on 4 nodes, inter-node edges $edges (blocked $blocked), dims by MPI_Dims_create" <<<"$out" ||
        { fail "learned list does not give srun's placement ($s)"; return 1; }
}

# ------------------------------------------------------------ the probe ---
t_probe_weighted() {
    run probe-first 16 "--stencil-map=learn" "$PROBE" --dims 8,2 --order column-major --periods 1,0 --bytes 300,100 || return 1
    ok_run probe-first || return 1
    err_has probe-first "learned from this run \(job [0-9]+\.0\) of probe: grid 2x8 from inferred" || return 1
    local f=$STORE/$(key_of "$PROBE").n16.json
    [ -f "$f" ] || { fail "no $f"; return 1; }
    # column-major 8x2 comes back row-major [2, 8]; x carried 3 times the bytes
    same_spec "$f" [2,8] [false,true] "$OFF5" [1,1,3,3] || return 1
    python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["spec"], open(sys.argv[2], "w"))' "$f" "$WORK/probe-spec.json"
    run probe-placed 16 "--stencil-map=learn" --task-prolog="$PROLOG" "$PROBE" --dims 8,2 --order column-major --periods 1,0 --bytes 300,100 || return 1
    ok_run probe-placed || return 1
    err_has probe-placed "^stencil-map: learned spec of probe \(job [0-9]+\.0, 20[0-9-]+\), grid 2x8 from inferred: [a-z]+, 16 ranks on 4 nodes, inter-node edges" || return 1
    out_has probe-placed "all messages right" || return 1
    verify_run "$WORK/probe-spec.json" "$WORK/runs/probe-placed/out" "$WORK/runs/probe-placed/err" 16
}

# a grid of its own on another rank count: blocked, and learned again
t_probe_other_count() {
    run probe-32 32 "--stencil-map=learn" "$PROBE" --dims 8,4 --order column-major --periods 1,0 --bytes 300,100 || return 1
    ok_run probe-32 || return 1
    err_has probe-32 "^stencil-map: learn: probe was learned on 16 ranks with a grid of its own, this step has 32: launched blocked, and learning again$" || return 1
    err_has probe-32 "learned from this run \(job [0-9]+\.0\) of probe: grid 4x8 from inferred" || return 1
    local k
    k=$(key_of "$PROBE")
    [ -f "$STORE/$k.n32.json" ] && [ -f "$STORE/$k.n16.json" ] || { fail "not both counts stored"; entries; return 1; }
    run probe-32-placed 32 "--stencil-map=learn" "$PROBE" --dims 8,4 --order column-major --periods 1,0 --bytes 300,100 || return 1
    ok_run probe-32-placed && err_has probe-32-placed "^stencil-map: learned spec of probe \(job [0-9]+\.0, .*\), grid 4x8 from inferred: "
}

# ------------------------------------------------------------ LAMMPS ------
# lammps NAME [SRUN OPTIONS]: in.melt on 16 ranks, 4 per node, lmp itself
# the step's program; leaves runs/NAME/loop (LAMMPS's loop time)
lammps() {
    local name=$1 d=$WORK/runs/$1
    shift
    mkdir -p "$d"
    run "$name" 16 --salloc --ntasks-per-node=4 -- "$@" "$LMP" -in "$TOP/tests/app/in.melt" \
        -log "$WORK/runs/$name.lammps" -screen none || return 1
    ok_run "$name" || return 1
    sed -n 's/^Loop time of \([0-9.e+-]*\) on .*/\1/p' "$WORK/runs/$name.lammps" >"$d/loop"
    [ -s "$d/loop" ] || { fail "no Loop time in $WORK/runs/$name.lammps"; return 1; }
    echo "$name: LAMMPS loop time $(cat "$d/loop") s"
}

t_lammps() {
    # today's way: profile:DIR, then stencil-map learn
    mkdir -m 700 -p "$WORK/lmp-prof"
    rm -rf "$WORK/lmp-prof/prof"
    lammps lmp-profile "--stencil-map=profile:$WORK/lmp-prof/prof" || return 1
    "$SM" learn "$WORK/lmp-prof/prof" --output "$WORK/lmp-learned.json" >"$WORK/lmp-learn.txt" 2>&1 ||
        { cat "$WORK/lmp-learn.txt"; fail "stencil-map learn failed"; return 1; }
    cat "$WORK/lmp-learn.txt"
    # learn: first run profiled, second placed
    lammps lmp-first --stencil-map=learn || return 1
    err_has lmp-first "learned from this run \(job [0-9]+\.0\) of lmp: grid 2x2x4 from MPI_Cart_create" || return 1
    local f=$STORE/$(key_of "$(readlink -f "$LMP")").n16.json
    python3 - "$f" "$WORK/lmp-learned.json" <<'PY' || { fail "the stored spec is not stencil-map learn's"; return 1; }
import json, sys
stored, today = json.load(open(sys.argv[1]))["spec"], json.load(open(sys.argv[2]))
for s in (stored, today):
    s.pop("description")
print("stored:", json.dumps(stored))
print("stencil-map learn:", json.dumps(today))
sys.exit(stored != today)
PY
    lammps lmp-placed --stencil-map=learn --task-prolog="$PROLOG" || return 1
    err_has lmp-placed "^stencil-map: learned spec of lmp \(job [0-9]+\.0, 20[0-9-]+\), grid 2x2x4 from MPI_Cart_create: [a-z]+, 16 ranks on 4 nodes, inter-node edges" || return 1
    verify_run "$WORK/lmp-learned.json" "$WORK/runs/lmp-placed/out" "$WORK/runs/lmp-placed/err" 16 || return 1
    lammps lmp-today "--stencil-map=$WORK/lmp-learned.json" || return 1
    lammps lmp-blocked || return 1
    local p t
    p=$(cat "$WORK/runs/lmp-placed/bytes")
    t=$(cat "$WORK/runs/lmp-today/bytes")
    echo "between nodes: learn-placed $(mb "$p"), placed by today's learned.json $(mb "$t"), blocked $(mb "$(cat "$WORK/runs/lmp-blocked/bytes")")"
    [ "$(summary_of lmp-placed | cut -d' ' -f2-)" = "$(sed -n 's/^stencil-map: .*inter-node edges \([0-9]*\) (blocked \([0-9]*\)).*/\1 \2/p' "$WORK/runs/lmp-today/err")" ] ||
        { fail "learn placed with other edges than today's learned spec"; return 1; }
    [ $((p * 100)) -le $((t * (100 + BYTES_TOLERANCE))) ] && [ $((t * 100)) -le $((p * (100 + BYTES_TOLERANCE))) ] ||
        { fail "learn-placed sent $(mb "$p") between nodes, today's learned spec $(mb "$t") (tolerance $BYTES_TOLERANCE %)"; return 1; }
}

# ------------------------------------------------------------ verdicts ----
verdict_of() { # NAME PATTERN REASON-REGEX
    "$SM" learned forget nonstencil >/dev/null 2>&1
    run "$1" 16 "--stencil-map=learn" "$NONSTENCIL" --pattern "$2" --iters 5 || return 1
    ok_run "$1" || return 1
    out_has "$1" "all messages right" || return 1
    err_has "$1" "^stencil-map: learn: not a stencil code: $3: its runs launch blocked, unprofiled, until 20[0-9-]+ \(stencil-map learned forget nonstencil to learn again sooner\)$" || return 1
    entry_is "$STORE/$(key_of "$NONSTENCIL").not-stencil.json" 'd["kind"] == "not-stencil"' 'd["learned"]["ranks"] == 16'
}

t_verdicts() {
    verdict_of ns-alltoall alltoall "a dense exchange: each rank sends to 15\.0 of the 15 others on average, which no placement shortens" || return 1
    verdict_of ns-scatter scatter "the best grid and stencil explain only [0-9.]+ % of the bytes \(at least 90 % needed\)" || return 1
    verdict_of ns-ring ring "a chain or ring of 16 ranks \(one dimension, 1 offset, periodic\): Slurm's blocked layout already cuts it least" || return 1
    # the next run: blocked, not profiled, and said so
    run ns-again 16 "--stencil-map=learn" --task-prolog="$PROLOG" "$NONSTENCIL" --pattern ring --iters 5 || return 1
    ok_run ns-again || return 1
    err_has ns-again "^stencil-map: learn: nonstencil is not a stencil code: a chain or ring .* \(learned 20[0-9-]+\); launched blocked until 20[0-9-]+$" || return 1
    err_lacks ns-again "profiled" || return 1
    # blocked: no grid of ours in the tasks, Slurm's own layout
    awk '$4 != "-" || $5 != "-" { bad = 1 } END { exit bad || NR != 16 }' <(grep -E '^[0-9]+ ' "$WORK/runs/ns-again/out") ||
        { fail "a task of a verdict's run got a grid"; return 1; }
    # not MPI at all
    run hostname-first 8 "--stencil-map=learn" hostname || return 1
    ok_run hostname-first && err_has hostname-first "not a stencil code: not an MPI program: no task called MPI_Init" || return 1
    run hostname-again 8 "--stencil-map=learn" hostname || return 1
    err_has hostname-again "hostname is not a stencil code: not an MPI program"
}

# ------------------------------------------------------------ default=learn
t_default_learn() {
    local state=$WORK/state-default d=$WORK/runs/default i
    mkdir -p "$d"
    cat >"$d/job.sh" <<SH
#!/bin/sh
srun --mpi=pmix -n 16 $HALO -i 3 -s 16384 || exit 1
srun --mpi=pmix -n 16 $PROBE --dims 4,4 --bytes 200,100 || exit 1
SH
    chmod 755 "$d/job.sh"
    plugstack default=learn
    for i in 1 2; do
        mc env XDG_STATE_HOME="$state" sbatch --wait -Q -N $NODES -n 16 --time=5 -o "$d/batch$i.out" "$d/job.sh" ||
            { cat "$d/batch$i.out"; fail "batch $i failed"; plugstack; return 1; }
        cat "$d/batch$i.out"
    done
    plugstack
    [ "$(entries "$state/stencilmap/learned" | wc -l)" = 2 ] || { fail "not two applications learned"; return 1; }
    grep -q "learned from this run (job [0-9]*\.0) of halo: grid 4x4" "$d/batch1.out" &&
        grep -q "learned from this run (job [0-9]*\.1) of probe: grid 4x4 from inferred" "$d/batch1.out" ||
        { fail "the first batch did not learn both"; return 1; }
    grep -q "^stencil-map: learned spec of halo (job [0-9]*\.0, [0-9-]*), grid 4x4 from MPI_Dims_create: [a-z]*, 16 ranks on 4 nodes" "$d/batch2.out" &&
        grep -q "^stencil-map: learned spec of probe (job [0-9]*\.1, [0-9-]*), grid 4x4 from inferred: [a-z]*, 16 ranks on 4 nodes" "$d/batch2.out" ||
        { fail "the second batch did not place both"; return 1; }
}

# sbatch and salloc --stencil-map=learn: every srun of the job learns
t_allocator_learn() {
    local d=$WORK/runs/allocator
    rm -rf "$d"
    mkdir -p "$d"
    printf '#!/bin/sh\nsrun --mpi=pmix -n 16 %s -i 2 -s 1024\n' "$HALO" >"$d/job.sh"
    chmod 755 "$d/job.sh"
    mc sbatch --wait -Q --stencil-map=learn -N $NODES -n 16 --time=5 -o "$d/batch.out" "$d/job.sh" ||
        { cat "$d/batch.out"; fail "sbatch failed"; return 1; }
    cat "$d/batch.out"
    grep -q "^stencil-map: learned spec of halo (job [0-9]*\.0, [0-9-]*), grid 4x4 from MPI_Dims_create: [a-z]*, 16 ranks on 4 nodes" "$d/batch.out" ||
        { fail "sbatch --stencil-map=learn: the halo not placed by its learned spec"; return 1; }
    mc salloc -Q --stencil-map=learn -N $NODES -n 8 --time=2 srun hostname >"$d/salloc.out" 2>"$d/salloc.err" ||
        { cat "$d/salloc.err"; fail "salloc failed"; return 1; }
    cat "$d/salloc.err"
    grep -q "^stencil-map: learn: hostname is not a stencil code: not an MPI program" "$d/salloc.err" ||
        { fail "salloc --stencil-map=learn: no verdict for hostname"; return 1; }
}

# ------------------------------------------------------------ rebuilt -----
t_rebuilt() {
    local app=$WORK/bin/probe-rebuilt k1 k2
    mpicc -O1 -o "$app" "$TOP/tests/profile/probe.c" || { fail "mpicc failed"; return 1; }
    k1=$(key_of "$app")
    run rebuilt-1 16 "--stencil-map=learn" "$app" --dims 4,4 || return 1
    ok_run rebuilt-1 && err_has rebuilt-1 "learned from this run .* of probe-rebuilt" || return 1
    mpicc -O2 -o "$app" "$TOP/tests/profile/probe.c" || { fail "mpicc failed"; return 1; }
    k2=$(key_of "$app")
    [ "$k1" != "$k2" ] || { fail "the rebuild kept the build ID"; return 1; }
    run rebuilt-2 16 "--stencil-map=learn" "$app" --dims 4,4 || return 1
    ok_run rebuilt-2 && err_has rebuilt-2 "first run of $app: profiled" && err_has rebuilt-2 "learned from this run" || return 1
    [ -f "$STORE/$k1.n16.json" ] && [ -f "$STORE/$k2.n16.json" ] || { fail "not both builds stored"; return 1; }
    "$SM" learned list | grep "^probe-rebuilt .*(the executable was rebuilt since: another key)" ||
        { fail "learned list does not say the old build is stale"; return 1; }
}

# ------------------------------------------------------------ security ----
t_store_refused() {
    local state=$WORK/state-sec s rc
    s=$state/stencilmap/learned
    mkdir -p "$s"
    chmod 700 "$state/stencilmap" "$s"
    chmod 777 "$s"
    XDG_STATE_HOME=$state run sec-open 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024 || return 1
    ok_run sec-open && out_has sec-open "no placement" && out_has sec-open "halo check ok" || return 1
    err_has sec-open "^stencil-map: learn: WARNING: the store of learned specs: $s: mode 777 is open to others \(must be 0700\); refusing to use it: launched blocked$" || return 1
    [ -z "$(ls -A "$s")" ] || { fail "something was written into the open store"; return 1; }
    chmod 700 "$s"
    chown 65534 "$s"
    XDG_STATE_HOME=$state run sec-owner 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024 || return 1
    ok_run sec-owner && err_has sec-owner "$s: owned by uid 65534, not by uid 0; refusing to use it: launched blocked" || return 1
    chown 0 "$s"
    mv "$s" "$s.real"
    ln -s "$s.real" "$s"
    XDG_STATE_HOME=$state run sec-link 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024 || return 1
    ok_run sec-link && err_has sec-link "$s: is a symbolic link; refusing to use it: launched blocked" || return 1
    [ -z "$(ls -A "$s.real")" ] || { fail "written through the link"; return 1; }
}

# corrupt and hostile entries: said, launched blocked, never a crash
t_entries_hostile() {
    local state=$WORK/state-hostile s k
    s=$state/stencilmap/learned
    k=$(key_of "$HALO")
    mkdir -p "$s"
    chmod 700 "$state/stencilmap" "$s"
    printf '{ "format": 1, "kind": "spec", ' >"$s/$k.n16.json"
    XDG_STATE_HOME=$state run bad-json 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024 || return 1
    ok_run bad-json && out_has bad-json "no placement" || return 1
    err_has bad-json "^stencil-map: learn: WARNING: $s/$k.n16.json: invalid JSON at line 1 .*: launched blocked \(stencil-map learned forget $HALO removes it\)$" || return 1
    # a well-formed file whose spec holds more ranks than it claims
    python3 - "$s/$k.n16.json" "$k" "$HALO" <<'PY'
import json, sys
json.dump({"format": 1, "kind": "spec", "key": sys.argv[2], "executable": sys.argv[3],
           "learned": {"job": 1, "step": 0, "date": "2026-01-01T00:00:00Z", "ranks": 16,
                       "grid_source": "MPI_Dims_create"},
           "spec": {"grid": {"dims": [2000000000, 2000000000]}, "stencil": "5pt"}},
          open(sys.argv[1], "w"))
PY
    XDG_STATE_HOME=$state run bad-spec 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024 || return 1
    ok_run bad-spec && err_has bad-spec "$k.n16.json: spec: grid\.dims.*: launched blocked" || return 1
    # a link to a file of root's, and a FIFO: never read
    rm -f "$s/$k.n16.json"
    ln -s /etc/passwd "$s/$k.n16.json"
    XDG_STATE_HOME=$state run bad-link 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024 || return 1
    ok_run bad-link && err_has bad-link "$k.n16.json: cannot open: .*symbolic link: refused" || return 1
    rm -f "$s/$k.n16.json"
    mkfifo -m 600 "$s/$k.n16.json"
    XDG_STATE_HOME=$state run bad-fifo 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024 || return 1
    ok_run bad-fifo && err_has bad-fifo "$k.n16.json: not a regular file: refused" || return 1
    XDG_STATE_HOME=$state "$SM" learned forget "$HALO" || { fail "forget failed"; return 1; }
    [ -z "$(entries "$s")" ] || { fail "forget left $(entries "$s")"; return 1; }
}

# slurmd and slurmstepd (root) open nothing of the store, placed or profiled
t_root_side_untouched() {
    local pids=() spids=() i log state=$WORK/state-trace s prof
    s=$state/stencilmap/learned
    for ((i = 1; i <= NODES; i++)); do pids+=("$(cat "$MINICLUSTER_DIR/run/slurmd-node$i.pid")"); done
    rm -f "$WORK"/strace.*
    for ((i = 0; i < NODES; i++)); do
        strace -f -qq -e trace=open,openat,openat2,creat,truncate,rename,renameat2,link,linkat,unlink,unlinkat,mkdir,mkdirat,stat,newfstatat,statx,access,faccessat \
            -o "$WORK/strace.node$((i + 1))" -p "${pids[$i]}" &
        spids+=($!)
    done
    sleep 1
    XDG_STATE_HOME=$state run trace-first 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024
    XDG_STATE_HOME=$state run trace-placed 16 "--stencil-map=learn" "$HALO" -i 2 -s 1024
    sleep 1
    for i in "${spids[@]}"; do kill "$i" 2>/dev/null; done
    for i in "${spids[@]}"; do wait "$i" 2>/dev/null; done
    ok_run trace-first && ok_run trace-placed && err_has trace-placed "^stencil-map: learned spec of halo" || return 1
    log=$(cat "$WORK"/strace.node*)
    [ "$(grep -c 'execve\|open' <<<"$log")" -gt 0 ] || { fail "the trace saw nothing"; return 1; }
    echo "traced $(wc -l <<<"$log") calls of slurmd, slurmstepd and the tasks on 4 nodes"
    # the tasks of the profiled run (the user's processes, forked by
    # slurmstepd) write into their profile directory; nothing else of the
    # store is opened, by anyone on the nodes
    prof=$(grep -o "$s/profiles/stencil-map\.[A-Za-z0-9]*" <<<"$log" | sort -u)
    [ "$(wc -l <<<"$prof")" = 1 ] && [ -n "$prof" ] || { fail "not one profile directory used: $prof"; return 1; }
    if grep "$s" <<<"$log" | grep -v "$prof\"" | grep -v "$prof/\(rank\|exit\)\." | head -5 | grep .; then
        fail "the nodes opened the store"; return 1
    fi
    echo "the nodes opened nothing of $s but the profiled run's own directory $prof"
}

# two first runs of one program at once: one spec stored, whole.  Two
# steps of one allocation, started together and sharing its CPUs
# (--overlap), so that both begin before either has learned.
t_concurrent() {
    local state=$WORK/state-conc s d=$WORK/runs/conc
    s=$state/stencilmap/learned
    rm -rf "$d"
    mkdir -p "$d"
    cat >"$d/two.sh" <<SH
#!/bin/sh
for x in a b; do
    srun --overlap -n 16 --mpi=pmix --stencil-map=learn $PROBE --dims 4,4 --iters 300 >$d/out.\$x 2>$d/err.\$x &
done
wait
SH
    chmod 755 "$d/two.sh"
    mc env XDG_STATE_HOME="$state" salloc -Q -N $NODES -n 32 --time=5 "$d/two.sh" || { fail "salloc failed"; return 1; }
    cat "$d"/out.* "$d"/err.*
    grep -q "all messages right" "$d/out.a" && grep -q "all messages right" "$d/out.b" || { fail "a probe failed"; return 1; }
    grep -q "first run of $PROBE: profiled" "$d/err.a" && grep -q "first run of $PROBE: profiled" "$d/err.b" ||
        { fail "the two runs did not both start unlearned"; return 1; }
    [ "$(cat "$d"/err.* | grep -c 'learned from this run')" = 1 ] &&
        [ "$(cat "$d"/err.* | grep -c 'another run of probe stored its spec first; kept that one')" = 1 ] ||
        { fail "not one winner and one loser"; return 1; }
    [ "$(entries "$s" | wc -l)" = 1 ] || { fail "the store holds $(entries "$s")"; return 1; }
    entry_is "$s/$(entries "$s")" 'd["kind"] == "spec"' 'd["learned"]["ranks"] == 16' || return 1
    [ -z "$(ls -A "$s" | grep '^\.')" ] && [ "$(profiles_left "$s")" = 0 ] || { fail "leftovers in the store"; return 1; }
}

# a killed step: nothing stored, and srun ends as it does without the plugin
t_killed() {
    local state=$WORK/state-killed name=smc-learned-killed-$$ rc_plain rc_learn
    for mode in none learn; do
        KILL_ON_BAD_EXIT=0 XDG_STATE_HOME=$state run "killed-$mode" 16 --salloc -J "$name-$mode" -- "--stencil-map=$mode" \
            "$PROBE" --dims 4,4 --iters 1000000000 >/dev/null 2>&1 &
        local p=$!
        sleep 8
        mc scancel --signal=TERM --name="$name-$mode"
        wait $p
        cat "$WORK/runs/killed-$mode/err"
    done
    rc_plain=$(cat "$WORK/runs/killed-none/rc")
    rc_learn=$(cat "$WORK/runs/killed-learn/rc")
    [ "$rc_plain" = "$rc_learn" ] || { fail "killed: exit $rc_learn with learn, $rc_plain without"; return 1; }
    err_has killed-learn "^stencil-map: learn: nothing learned from this run of probe: .*(stopped by a signal|exited without MPI_Finalize|wrote|cannot open).*; its next run is profiled again$" || return 1
    [ -z "$(entries "$state/stencilmap/learned")" ] || { fail "a killed run stored $(entries "$state/stencilmap/learned")"; return 1; }
    [ "$(profiles_left "$state/stencilmap/learned")" = 0 ] || { fail "its profile was left"; return 1; }
    # a step that fails after MPI_Finalize (bad arguments): the same
    for mode in none learn; do
        KILL_ON_BAD_EXIT=0 XDG_STATE_HOME=$state run "failed-$mode" 16 "--stencil-map=$mode" "$PROBE" --dims 3,3
    done
    [ "$(cat "$WORK/runs/failed-none/rc")" = "$(cat "$WORK/runs/failed-learn/rc")" ] && [ "$(cat "$WORK/runs/failed-learn/rc")" != 0 ] ||
        { fail "failed: exit $(cat "$WORK/runs/failed-learn/rc") with learn, $(cat "$WORK/runs/failed-none/rc") without"; return 1; }
    err_has failed-learn "nothing learned from this run of probe: .*exited with an error \(the step failed\)" || return 1
    [ -z "$(entries "$state/stencilmap/learned")" ] || { fail "a failed run stored something"; return 1; }
}

# the site's root (learned_dir=), and the HOME fallback
t_where() {
    mkdir -p "$WORK/site" "$WORK/home"
    chmod 1777 "$WORK/site"
    plugstack "learned_dir=$WORK/site"
    run site-first 8 "--stencil-map=learn" "$HALO" -i 2 -s 1024
    plugstack
    ok_run site-first && [ -f "$WORK/site/root/$(key_of "$HALO").n8.json" ] ||
        { fail "not stored in learned_dir=$WORK/site/root"; ls -lR "$WORK/site"; return 1; }
    [ "$(stat -c %a "$WORK/site/root")" = 700 ] || { fail "the user's directory is not 0700"; return 1; }
    XDG_STATE_HOME= HOME=$WORK/home run home-first 8 "--stencil-map=learn" "$HALO" -i 2 -s 1024
    ok_run home-first && [ -f "$WORK/home/.local/state/stencilmap/learned/$(key_of "$HALO").n8.json" ] ||
        { fail "not stored under HOME"; return 1; }
}

# The cost of a first, profiled run: COST_ROUNDS rounds, each a first run
# of learn (the store emptied before it) and a plain run (--stencil-map=
# none), alternately, of the halo and of LAMMPS; medians of srun's wall
# time (which includes the learning when srun ends) and of the program's
# own figure.  Reported, never asserted: the machine is shared.
COST_ROUNDS=${LEARNED_COST_ROUNDS:-3}
t_cost() {
    local k r state=$WORK/state-cost
    for ((k = 1; k <= COST_ROUNDS; k++)); do
        XDG_STATE_HOME=$state "$SM" learned forget --all >/dev/null
        XDG_STATE_HOME=$state run "cost-halo-first-$k" 16 "--stencil-map=learn" "$HALO" -i 20 -s 65536 || return 1
        ok_run "cost-halo-first-$k" && err_has "cost-halo-first-$k" "learned from this run" || return 1
        run "cost-halo-plain-$k" 16 "--stencil-map=none" "$HALO" -i 20 -s 65536 || return 1
        XDG_STATE_HOME=$state "$SM" learned forget --all >/dev/null
        XDG_STATE_HOME=$state lammps "cost-lmp-first-$k" --stencil-map=learn || return 1
        err_has "cost-lmp-first-$k" "learned from this run" || return 1
        lammps "cost-lmp-plain-$k" --stencil-map=none || return 1
    done
    python3 - "$WORK/runs" "$COST_ROUNDS" <<'PY' | tee "$WORK/cost.txt"
import os, re, statistics as st, sys
runs, n = sys.argv[1], int(sys.argv[2])
def fig(name):
    d = os.path.join(runs, name)
    sec = float(open(os.path.join(d, "seconds")).read())
    out = open(os.path.join(d, "out")).read()
    m = re.search(r"time per iteration median ([0-9.]+) us", out)
    own = float(m.group(1)) / 1e3 if m else float(open(os.path.join(d, "loop")).read())
    return sec, own
print("first run of learn against a plain run, median of %d alternating rounds" % n)
for app, unit in (("halo", "ms per iteration"), ("lmp", "s LAMMPS loop")):
    med = {}
    for kind in ("first", "plain"):
        rows = [fig("cost-%s-%s-%d" % (app, kind, k)) for k in range(1, n + 1)]
        med[kind] = (st.median(r[0] for r in rows), st.median(r[1] for r in rows))
        print("  %-5s %-6s srun %6.2f s (%.2f-%.2f), %8.2f %s (%.2f-%.2f)" % (
            app, kind, med[kind][0], min(r[0] for r in rows), max(r[0] for r in rows),
            med[kind][1], unit, min(r[1] for r in rows), max(r[1] for r in rows)))
    print("  %-5s first/plain: srun %.3f, %s %.3f" % (app, med["first"][0] / med["plain"][0], unit,
                                                     med["first"][1] / med["plain"][1]))
PY
}

# ------------------------------------------------------------ run --------
eval "$("$MC" env)"
cluster_up $CPUS $NODES
run_test halo-learned-first-run-profiled t_halo_first
run_test halo-placed-second-run-16 t_halo_placed_16
run_test halo-placed-32-by-mpi-dims-create t_halo_placed_32
run_test cli-learned-list-on-allocation t_cli_list_here
run_test probe-column-major-weighted t_probe_weighted
run_test probe-other-count-learned-again t_probe_other_count
run_test lammps-learned-as-stencil-map-learn t_lammps
run_test non-stencil-verdicts t_verdicts
run_test default-learn-two-programs t_default_learn
run_test sbatch-salloc-learn t_allocator_learn
run_test rebuilt-binary-learned-again t_rebuilt
run_test store-open-foreign-or-link-refused t_store_refused
run_test hostile-entries-blocked t_entries_hostile
run_test root-side-opens-no-store t_root_side_untouched
run_test concurrent-first-runs-one-spec t_concurrent
run_test killed-or-failed-step-stores-nothing t_killed
run_test learned-dir-and-home t_where
run_test first-run-cost t_cost
cluster_down
suite_summary
