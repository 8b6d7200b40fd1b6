#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil-map plan --launcher: each launcher's file, read by a parser of
# this test's own (not launchers/'s readers), gives every rank the node of
# the plan's Slurm hostfile; --hostfile is --launcher slurm --output;
# --env's words per launcher; the allocation's slots as each launcher
# counts them; refusals and their exit codes.  Plain exit status for
# automake's harness, one line per check.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
unset SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_JOB_CPUS_PER_NODE SLURM_TASKS_PER_NODE SLURM_NTASKS SLURM_NPROCS
: "${STENCILMAP_SPECS_DIR:?STENCILMAP_SPECS_DIR must name stencil-specs/}"
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }

work=$(mktemp -d "${PWD}/cli-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

TOP=${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}
. "$TOP/tests/lib/checks.sh"

run() { # EXPECTED_RC NAME ARGS... (sh has no locals: names of its own)
    _want=$1 _name=$2
    shift 2
    "$SM" "$@" >"$work/$_name.out" 2>"$work/$_name.err"
    _rc=$?
    if [ "$_rc" -eq "$_want" ]; then
        pass "$_name: exit $_rc"
    else
        fail "$_name: exit $_rc, wanted $_want ($(head -c 300 "$work/$_name.err"))"
    fi
}

has() { # NAME out|err TEXT
    if grep -F -q -- "$3" "$work/$1.$2"; then
        pass "$1: $2 has '$3'"
    else
        fail "$1: $2 lacks '$3': $(head -c 300 "$work/$1.$2")"
    fi
}

# as_hostfile LAUNCHER FILE SLOTS...: the file as line r = node of rank r,
# read the way the launcher reads it (tests/lib/launcher_file.py; SLOTS:
# cray's ranks per node, node I being nodeI)
as_hostfile() {
    _l=$1 _f=$2
    shift 2
    _nodes="" _i=0
    for _c in "$@"; do
        _i=$((_i + 1))
        _nodes="$_nodes$(yes "node$_i" | head -n "$_c") "
    done
    # shellcheck disable=SC2086
    python3 "$TOP/tests/lib/launcher_file.py" "$_l" "$_f" $_nodes
}

# same_as_hostfile NAME LAUNCHER SLOTS PLAN-ARGS...: the launcher's file
# of the plan and the plan's Slurm hostfile place every rank alike
same_as_hostfile() {
    name=$1 launcher=$2 slots=$3
    shift 3
    run 0 "$name-hostfile" plan "$@" --hostfile "$work/$name.hosts"
    run 0 "$name" plan "$@" --launcher "$launcher" --output "$work/$name.file"
    if as_hostfile "$launcher" "$work/$name.file" $slots >"$work/$name.read" 2>"$work/$name.readerr" &&
        cmp -s "$work/$name.read" "$work/$name.hosts"; then
        pass "$name: the $launcher file places every rank as the plan's hostfile"
    else
        fail "$name: the $launcher file differs from the plan's hostfile: $(head -c 300 "$work/$name.readerr")"
    fi
}

NODES='node[1-4]'
for l in slurm openmpi mpich cray; do
    same_as_hostfile "$l-2d" "$l" "16 16 10 6" auto:2d:5pt --nodes "$NODES" --slots '16(x2),10,6'
    same_as_hostfile "$l-3d" "$l" "8 8 8 8" auto:3d:7pt --nodes "$NODES" --slots 8
    same_as_hostfile "$l-3d-sockets" "$l" "8 8 8 8" hyperplane:3d:27pt --nodes "$NODES" --slots 8 \
        --sockets 2
done
grep -q '^rank 0=node1 slot=[01]:0$' "$work/openmpi-3d-sockets.file" &&
    pass "rankfile with sockets: slot=SOCKET:CORE" || fail "rankfile with sockets: no slot=S:C"
grep -q '^rank 0=node1 slot=0$' "$work/openmpi-3d.file" &&
    pass "rankfile without sockets: slot=CORE" || fail "rankfile without sockets: no slot=C"
cmp -s "$work/slurm-2d.file" "$work/slurm-2d.hosts" &&
    pass "--hostfile FILE is --launcher slurm --output FILE" || fail "--hostfile and --launcher slurm differ"

# the socket the split chose: the rankfile's socket is the socketfile's
run 0 sockfile plan hyperplane:3d:27pt --nodes "$NODES" --slots 8 --sockets 2 \
    --socketfile "$work/sockets" --launcher openmpi --output "$work/sock.rf"
if python3 - "$work/sockets" "$work/sock.rf" <<'PY'; then
import re, sys
sock = open(sys.argv[1]).read().split()
for line in open(sys.argv[2]):
    m = re.fullmatch(r"rank (\d+)=\S+ slot=(\d+):\d+\n", line)
    if m and sock[int(m.group(1))] != m.group(2):
        sys.exit("rank %s: rankfile socket %s, socketfile %s" % (m.group(1), m.group(2), sock[int(m.group(1))]))
PY
    pass "rankfile sockets are the split's"
else
    fail "rankfile sockets differ from the socketfile"
fi

# a spec whose path holds a newline: not in the heading comment, which it would end
nl="$work/new
line.json"
printf '{"grid": {"dims": [4, 4]}, "stencil": "5pt"}\n' >"$nl"
run 0 newline-title plan "$nl" --nodes "$NODES" --slots 4 --launcher openmpi --output "$work/nl.rf"
[ "$(head -1 "$work/nl.rf")" = "# Open MPI rankfile from stencil-map: 16 ranks on 4 nodes" ] &&
    as_hostfile openmpi "$work/nl.rf" >/dev/null &&
    pass "a spec path with a newline stays out of the heading" || fail "heading: $(head -2 "$work/nl.rf")"

# ---- JSON, standard output ----------------------------------------------------
run 0 json plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher mpich --output "$work/j.mf" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["launcher"] == "mpich" and d["output"] == sys.argv[2] and d["hostfile"] is None))' \
    "$work/json.out" "$work/j.mf" && pass "--json: launcher, output, no hostfile" || fail "--json: launcher/output wrong"
run 0 json-slurm plan auto:2d:5pt --nodes "$NODES" --slots 8 --hostfile "$work/j.h" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["launcher"] == "slurm" and d["output"] == d["hostfile"] == sys.argv[2]))' \
    "$work/json-slurm.out" "$work/j.h" && pass "--json: hostfile as before" || fail "--json: hostfile missing"
run 0 stdout plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher cray --output -
[ "$(wc -l <"$work/stdout.out")" -eq 4 ] && [ ! -s "$work/stdout.err" ] &&
    pass "--output -: the file alone on stdout" || fail "--output -: $(cat "$work/stdout.out" "$work/stdout.err")"

# ---- --env ---------------------------------------------------------------------
run 0 env-openmpi plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher openmpi --output "$work/e.rf" --env
has env-openmpi out "-x STENCIL_MAP_DIMS=8,4 -x STENCIL_MAP_PERIODS=0,0 -x STENCIL_MAP_ORDER=row-major"
has env-openmpi out "-x STENCIL_MAP_STENCIL=1,0;-1,0;0,1;0,-1"
has env-openmpi err ", 32 ranks on 4 nodes, inter-node edges"
[ "$(wc -l <"$work/env-openmpi.out")" -eq 1 ] && ! grep -q 'stencil-map:' "$work/env-openmpi.out" &&
    pass "--env: stdout holds the words alone" || fail "--env: stdout: $(cat "$work/env-openmpi.out")"
run 0 env-mpich plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher mpich --output "$work/e.mf" --env
has env-mpich out "-genv STENCIL_MAP_DIMS 8,4 -genv"
grep -q -- '-launcher' "$work/env-mpich.out" && fail "--env mpich outside Slurm: a bootstrap" ||
    pass "--env mpich outside Slurm: no bootstrap"
SLURM_JOB_ID=7 "$SM" plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher mpich --output "$work/e.mf" --env \
    >"$work/env-mpich-job.out" 2>/dev/null
grep -q -- '^-launcher rsh -launcher-exec /[^ ]*/hydra-srun -genv STENCIL_MAP_DIMS 8,4 ' "$work/env-mpich-job.out" &&
    pass "--env mpich inside Slurm: the bootstrap through hydra-srun" || fail "--env mpich inside Slurm: $(cat "$work/env-mpich-job.out")"
SLURM_JOB_ID=7 "$SM" plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher mpich --output "$work/e.mf" \
    >/dev/null 2>"$work/note.err"
grep -q 'start mpiexec with -launcher rsh -launcher-exec' "$work/note.err" &&
    pass "mpich inside Slurm without --env: says how to start mpiexec" || fail "mpich note missing"
run 0 env-cray plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher cray --output "$work/order" --env
( eval "$(cat "$work/env-cray.out")" &&
    [ "$STENCIL_MAP_DIMS" = 8,4 ] && [ "$STENCIL_MAP_STENCIL" = '1,0;-1,0;0,1;0,-1' ] &&
    [ "$MPICH_RANK_REORDER_METHOD" = 3 ] && [ "$MPICH_RANK_REORDER_FILE" = "$(cd "$work" && pwd -P)/order" ] ) &&
    pass "--env cray: eval sets the variables, the method and the file" || fail "--env cray: $(cat "$work/env-cray.out")"
printf '{"grid": {"dims": [8, 4]}, "stencil": {"offsets": [[1,0],[-1,0],[0,1],[0,-1]], "weights": [2, 2, 0.5, 0.5]}}\n' \
    >"$work/weighted.json"
run 0 env-slurm plan "$work/weighted.json" --nodes "$NODES" --slots 8 --env
( eval "$(cat "$work/env-slurm.out")" && [ -n "$STENCIL_MAP_WEIGHTS" ] && [ -z "${MPICH_RANK_REORDER_METHOD:-}" ] ) &&
    pass "--env slurm: weights of a weighted stencil, nothing of Cray's" || fail "--env slurm: $(cat "$work/env-slurm.out")"

# ---- inside an allocation: the slots as each launcher counts them ---------------
alloc() { # NAME LAUNCHER
    env SLURM_JOB_ID=9 SLURM_JOB_NODELIST="$NODES" SLURM_JOB_CPUS_PER_NODE='8(x4)' \
        SLURM_TASKS_PER_NODE='5(x4)' SLURM_NTASKS=20 \
        "$SM" plan auto:2d:5pt --launcher "$2" --output "$work/$1.file" >"$work/$1.out" 2>"$work/$1.err"
}
alloc in-openmpi openmpi && has in-openmpi err "--slots '5(x4)' from SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE" &&
    [ "$(grep -c '=node4 ' "$work/in-openmpi.file")" -eq 5 ] &&
    pass "openmpi in an allocation: mpirun's slots, 5 ranks on each node" || fail "openmpi in an allocation"
alloc in-cray cray && has in-cray err "SLURM_TASKS_PER_NODE" &&
    [ "$(awk -F, '{ print NF }' "$work/in-cray.file" | sort -u)" = 5 ] &&
    pass "cray in an allocation: the launch's 5 tasks per node" || fail "cray in an allocation"
alloc in-slurm slurm && has in-slurm err "--slots '8(x4)' from SLURM_JOB_NODELIST and SLURM_JOB_CPUS_PER_NODE" &&
    [ "$(grep -c node1 "$work/in-slurm.file")" -eq 8 ] &&
    pass "slurm in an allocation: the CPUs, 8 ranks on node1" || fail "slurm in an allocation"

# ---- refusals --------------------------------------------------------------------
run 2 both-files plan auto:2d:5pt --nodes "$NODES" --slots 8 --hostfile "$work/a" --output "$work/b"
has both-files err "--hostfile FILE is --launcher slurm --output FILE: give one of them"
run 2 hostfile-openmpi plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher openmpi --hostfile "$work/a"
has hostfile-openmpi err "with --launcher, name the file with --output"
run 2 env-json plan auto:2d:5pt --nodes "$NODES" --slots 8 --env --json
has env-json err "--env and --json both print on standard output"
run 2 env-stdout plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher mpich --output - --env
has env-stdout err "--env and the file cannot both go to standard output"
run 2 unknown plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher aprun
has unknown err "--launcher: unknown launcher 'aprun' (one of slurm, openmpi, mpich, cray)"
run 2 score-launcher score auto:2d:5pt --hostfile "$work/slurm-2d.hosts" --launcher cray
has score-launcher err "this command does not take --launcher"
run 3 cray-partial plan auto:2d:5pt --nodes "$NODES" --slots 8 --ranks 30 --launcher cray --output "$work/partial"
has cray-partial err "node node4 would take 6 ranks but has 8 slots"
[ ! -e "$work/partial" ] && pass "cray-partial: no file left" || fail "cray-partial: a file was left"
run 4 unwritable plan auto:2d:5pt --nodes "$NODES" --slots 8 --launcher openmpi --output "$work/no/such/dir"
has unwritable err "--output $work/no/such/dir: cannot create"
run 2 rankfile-name plan auto:2d:5pt --nodes 'slot,n2' --slots 8 --ranks 16 --launcher openmpi --output "$work/k"
has rankfile-name err "node name 'slot' is a keyword of the rankfile"

checks_summary
