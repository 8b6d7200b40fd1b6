#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The plan under other launchers than srun, on a real multi-node Slurm
# (contrib/minicluster): Debian's Open MPI (mpirun --rankfile) and MPICH
# (mpiexec -f through hydra-srun), each launched as a user would inside
# salloc with `stencil-map plan --launcher L --output FILE --env`, on
# equal nodes (4 x 8) and unequal ones (8,8,6,2): every MPI rank runs on
# the node the plan gave it, and stencil-map-verify, run as the job's ranks
# (PMIx under mpirun, PMI-1 under Hydra), reports observed = planned, which
# an independent score of where the ranks ran confirms.  Also: the cores of
# a rankfile bind for real (nodes of 2 CPUs, this machine's 2 cores); the
# allocation's slots as mpirun counts them; Hydra's own Slurm launcher does
# not keep a machine file's order (why hydra-srun); HPE Cray MPICH's rank
# order file against a real srun's slots (no Cray MPICH here: its ranks are
# mapped as Cray MPICH maps them, from the file and the launch's tasks);
# and the SPANK plugin keeps out of the launchers' daemon steps (orted,
# hydra_pmi_proxy) under a site default= and a job's --stencil-map, and out
# of ranks Cray MPICH renumbers.  Builds and installs the tree into a
# staging prefix outside /tmp, prints "ok NAME" / "FAIL NAME" and "N
# passed, M failed", and always brings the cluster down.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-launchers), MINICLUSTER_PORT_BASE
#      (22300), LAUNCHERS_PREFIX (/var/lib/smc-launchers-prefix),
#      LAUNCHERS_BUILD_ROOT (/var/lib/smc-launchers-build), LAUNCHERS_WORK
#      (/var/lib/smc-launchers-work), LAUNCHERS_SKIP_BUILD=1 to reuse the
#      install, LAUNCHERS_ONLY=REGEX to run only the tests whose names match.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-launchers}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-22300}
PREFIX=${LAUNCHERS_PREFIX:-/var/lib/smc-launchers-prefix}
ROOT=${LAUNCHERS_BUILD_ROOT:-/var/lib/smc-launchers-build}
WORK=${LAUNCHERS_WORK:-/var/lib/smc-launchers-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
VERIFY=$PREFIX/bin/stencil-map-verify
SO=$PREFIX/lib/slurm/stencil_map.so
HYDRA_SRUN=$PREFIX/libexec/stencilmap/hydra-srun
READ_FILE=$TOP/tests/lib/launcher_file.py
RECORDS=$WORK/records
SUITE=launchers
ONLY=${LAUNCHERS_ONLY:-}
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: LAUNCHERS_PREFIX, LAUNCHERS_BUILD_ROOT, LAUNCHERS_WORK and MINICLUSTER_DIR must be outside /tmp" >&2
    exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
[ -x "$MC" ] || { echo "run.sh: FATAL: $MC not found" >&2; exit 1; }
mkdir -p "$WORK/logs" "$RECORDS" "$WORK/bin"

# ------------------------------------------------------------- build -----
build() {
    SMC_BUILD_ROOT=$ROOT "$TOP/tests/integration/build.sh" "$PREFIX" || return 1
    local f
    for f in "$SM" "$VERIFY" "$SO" "$HYDRA_SRUN"; do
        [ -e "$f" ] || { echo "run.sh: $f was not built/installed (PMIx missing?)"; return 1; }
    done
    # the application: where each MPI rank runs, with either MPI
    mpicc -O1 -o "$WORK/bin/where-openmpi" "$HERE/where.c" &&
        mpicc.mpich -O1 -o "$WORK/bin/where-mpich" "$HERE/where.c" ||
        { echo "run.sh: mpicc (Open MPI) or mpicc.mpich (MPICH) failed"; return 1; }
    # stand-ins for a launcher's daemon and for an application, for the
    # plugin's remote side: they say which coordinates their task got
    printf '#!/bin/sh\necho "$SLURM_PROCID [${STENCIL_MAP_COORDS:-}]"\n' >"$WORK/bin/orted"
    cp "$WORK/bin/orted" "$WORK/bin/solver"
    chmod +x "$WORK/bin/orted" "$WORK/bin/solver"
}

if [ "${LAUNCHERS_SKIP_BUILD:-0}" != 1 ]; then
    echo "building into $PREFIX (log $WORK/build.log)"
    if ! build >"$WORK/build.log" 2>&1; then
        echo "run.sh: FATAL: build failed" >&2
        tail -40 "$WORK/build.log" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
fi
command -v mpiexec.mpich >/dev/null || { echo "run.sh: FATAL: mpiexec.mpich missing (apt-get install mpich)" >&2; exit 1; }
unset SLURM_HOSTFILE $(env | sed -n 's/^\(STENCIL_MAP_[A-Z_]*\)=.*/\1/p')

# ------------------------------------------------------------ helpers ----
# in_job DIR N SCRIPT [SALLOC ARGS...]: SCRIPT (sh) inside salloc -N4 -nN
# in DIR, with the installed commands first on PATH; bounded in time
in_job() {
    local d=$1 n=$2 script=$3
    shift 3
    # PATH extended inside: the cluster's own Slurm clients stay first
    MC_TIMEOUT=240 mc env STENCILMAP_SPECS_DIR="$PREFIX/share/stencilmap/specs" \
        salloc -Q -N4 -n"$n" --time=5 "$@" sh -c "PATH='$PREFIX/bin':\$PATH; cd '$d' && sh '$script'"
}

# the rank-to-node map of a launcher's file, one node per line
read_file() { python3 "$READ_FILE" "$@"; }

# where.out (RANK NODE SUM lines) -> the nodes by rank; checks that every
# rank 0..N-1 answered once and that the Allreduce saw them all
where_hosts() { # OUT N
    sort -n "$1" | awk -v n="$2" '
        NF != 3 || $1 != NR - 1 || $3 != n { bad = 1 }
        { print $2 }
        END { if (bad || NR != n) { print "where: ranks or sums wrong" > "/dev/stderr"; exit 1 } }'
}

# verify_ok DIR SPEC N LAUNCHER: the OK line of stencil-map-verify, planned = observed,
# planned = the plan's (plan.json), observed = an independent score of where
# the ranks ran (observed.hosts); prints the figures
verify_ok() {
    local d=$1 spec=$2 n=$3 launcher=$4 line ps pm os om js jm bs bm ss sm_
    line=$(grep '^stencil-map-verify: OK ' "$d/verify.out") ||
        { fail "no OK line from stencil-map-verify"; cat "$d/verify.out" "$d/verify.err"; return 1; }
    read -r ps os pm om < <(sed -n 's/.*J_sum planned \([0-9]*\) observed \([0-9]*\), J_max planned \([0-9]*\) observed \([0-9]*\).*/\1 \2 \3 \4/p' <<<"$line")
    js=$(json_get "$d/plan.json" 'd["j_sum"]')
    jm=$(json_get "$d/plan.json" 'd["j_max"]')
    bs=$(json_get "$d/plan.json" 'd["blocked"]["j_sum"]')
    bm=$(json_get "$d/plan.json" 'd["blocked"]["j_max"]')
    "$SM" score "$spec" --hostfile "$d/observed.hosts" --ranks "$n" --json >"$d/score.json" ||
        { fail "stencil-map score of where the ranks ran failed"; return 1; }
    ss=$(json_get "$d/score.json" 'd["j_sum"]')
    sm_=$(json_get "$d/score.json" 'd["j_max"]')
    [ "$ps" = "$os" ] && [ "$pm" = "$om" ] || { fail "verify: planned $ps/$pm, observed $os/$om"; return 1; }
    [ "$ps" = "$js" ] && [ "$pm" = "$jm" ] || { fail "verify's plan $ps/$pm is not plan's $js/$jm"; return 1; }
    [ "$ss" = "$os" ] && [ "$sm_" = "$om" ] || { fail "score of where the ranks ran $ss/$sm_, verify $os/$om"; return 1; }
    echo "FIGURES $launcher $spec n=$n: planned J_sum $js J_max $jm, observed J_sum $os J_max $om (score $ss/$sm_), blocked $bs/$bm"
}

# ran_as_planned DIR SPEC N LABEL: where.out (the MPI program) and verify.out
# (stencil-map-verify) of one launch in DIR against planned.hosts and
# plan.json: every check above
ran_as_planned() {
    local d=$1 spec=$2 n=$3 label=$4
    where_hosts "$d/where.out" "$n" >"$d/observed.hosts" || { cat "$d/where.out"; fail "$label: where: wrong output"; return 1; }
    if ! cmp -s "$d/observed.hosts" "$d/planned.hosts"; then
        fail "$label: ranks did not run where planned:"
        paste "$d/planned.hosts" "$d/observed.hosts" | awk '$1 != $2 { printf "rank %d: planned %s, ran on %s\n", NR - 1, $1, $2 }' | head
        return 1
    fi
    echo "$label: all $n MPI ranks ran on their planned node"
    verify_ok "$d" "$spec" "$n" "$label"
}

# t_launch LAUNCHER SPEC N [PLAN ARGS...]: the launcher's one command, twice
# (the MPI program, then stencil-map-verify), and every check above
t_launch() {
    local launcher=$1 spec=$2 n=$3
    shift 3
    local d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    local run_cmd prog
    case $launcher in
    openmpi)
        # this machine has 2 cores; nodes of 8 CPUs need 8 to bind to: a
        # synthetic topology (not this system's, so binding is a no-op)
        run_cmd='HWLOC_SYNTHETIC="package:2 core:4 pu:1" mpirun --rankfile ranks.file $words'
        prog=where-openmpi ;;
    mpich)
        run_cmd='mpiexec.mpich -f ranks.file $words'
        prog=where-mpich ;;
    esac
    cat >"$d/job.sh" <<EOF
set -e
stencil-map plan '$spec' $* --hostfile planned.hosts --json >plan.json 2>plan.err
words=\$(stencil-map plan '$spec' $* --launcher $launcher --output ranks.file --env 2>plan-$launcher.err)
echo "\$words" >words
$run_cmd '$WORK/bin/$prog' >where.out 2>where.err
$run_cmd stencil-map-verify -v >verify.out 2>verify.err
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/*.err; fail "the job failed"; return 1; }
    cat "$d/plan-$launcher.err" "$d/words"
    read_file "$launcher" "$d/ranks.file" >"$d/file.hosts" || { fail "the $launcher file is malformed"; return 1; }
    cmp -s "$d/file.hosts" "$d/planned.hosts" || { fail "the $launcher file differs from the plan"; return 1; }
    ran_as_planned "$d" "$spec" "$n" "$launcher" || return 1
    rm -rf "$d"
}

# t_srun SPEC N: the same plan through srun, with the plugin (srun
# --stencil-map) and without it (the slurm launcher's hostfile and --env,
# srun's arbitrary distribution), for the table beside the other launchers
t_srun() {
    local spec=$1 n=$2 d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    mkdir "$d/plugin" "$d/hostfile"
    cat >"$d/job.sh" <<EOF
set -e
stencil-map plan '$spec' --hostfile planned.hosts --json >plan.json 2>plan.err
for sub in plugin hostfile; do cp planned.hosts plan.json "\$sub"/; done
srun --mpi=pmix --stencil-map='$spec' '$WORK/bin/where-openmpi' >plugin/where.out 2>plugin/where.err
srun --mpi=pmix --stencil-map='$spec' stencil-map-verify -v --no-record >plugin/verify.out 2>plugin/verify.err
eval "\$(stencil-map plan '$spec' --hostfile hostfile/hosts --env 2>/dev/null)"
SLURM_HOSTFILE=hostfile/hosts srun --mpi=pmix --distribution=arbitrary '$WORK/bin/where-openmpi' >hostfile/where.out 2>hostfile/where.err
SLURM_HOSTFILE=hostfile/hosts srun --mpi=pmix --distribution=arbitrary stencil-map-verify -v >hostfile/verify.out 2>hostfile/verify.err
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/*/*.err; fail "the job failed"; return 1; }
    cat "$d/plugin/where.err"
    ran_as_planned "$d/plugin" "$spec" "$n" "srun --stencil-map" || return 1
    ran_as_planned "$d/hostfile" "$spec" "$n" "srun, hostfile and --env" || return 1
    rm -rf "$d"
}

# t_binding: nodes of 2 CPUs, this machine's 2 cores, the real topology: a
# rankfile's slots bind each rank to its own core, the one the file names
t_binding() {
    local d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    cat >"$d/job.sh" <<'EOF'
set -e
words=$(stencil-map plan auto:2d:5pt --launcher openmpi --output ranks.file --env 2>plan.err)
mpirun --rankfile ranks.file $words sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname) $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"' >bound.out
EOF
    in_job "$d" 8 "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/*.err; fail "the job failed"; return 1; }
    cat "$d/ranks.file" "$d/bound.out"
    # rank R=HOST slot=C  <->  R HOST C
    sed -n 's/^rank \([0-9]*\)=\([^ ]*\) slot=\([0-9]*\)$/\1 \2 \3/p' "$d/ranks.file" | sort -n >"$d/want"
    sort -n "$d/bound.out" >"$d/got"
    [ "$(wc -l <"$d/want")" -eq 8 ] || { fail "rankfile: not 8 ranks"; return 1; }
    cmp -s "$d/want" "$d/got" || { fail "a rank is not bound to the core its line names"; diff "$d/want" "$d/got"; return 1; }
    awk '{ k = $2 " " $3; if (k in seen) bad = 1; seen[k] = 1 } END { exit bad }' "$d/got" ||
        { fail "two ranks of a node share a core"; return 1; }
    echo "binding: each rank on its own core, the one the rankfile names"
    rm -rf "$d"
}

# t_openmpi_slots: mpirun counts SLURM_TASKS_PER_NODE as a node's slots,
# not its CPUs (salloc -N4 -n16 -c2: 8 CPUs, 4 tasks per node); the plan,
# defaulting to them for openmpi, launches; a plan on the CPUs, 8 ranks on
# a node of 4 slots, is refused by mpirun
t_openmpi_slots() {
    local d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    cat >"$d/job.sh" <<EOF
set -e
echo "\$SLURM_JOB_CPUS_PER_NODE \$SLURM_TASKS_PER_NODE" >alloc
words=\$(stencil-map plan auto:2d:5pt --launcher openmpi --output ranks.file --env 2>plan.err)
HWLOC_SYNTHETIC="package:1 core:8 pu:1" mpirun --rankfile ranks.file \$words '$WORK/bin/where-openmpi' >where.out 2>where.err
stencil-map plan auto:2d:5pt --slots "\$SLURM_JOB_CPUS_PER_NODE" --nodes "\$SLURM_JOB_NODELIST" --ranks 16 \\
    --launcher openmpi --output cpus.file 2>/dev/null
if HWLOC_SYNTHETIC="package:1 core:8 pu:1" mpirun --rankfile cpus.file '$WORK/bin/where-openmpi' >cpus.out 2>cpus.err; then
    echo "mpirun took a plan of 8 ranks per node on 4 slots" >&2
    exit 1
fi
EOF
    in_job "$d" 16 "$d/job.sh" -c 2 >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/*.err; fail "the job failed"; return 1; }
    cat "$d/alloc" "$d/plan.err"
    [ "$(cat "$d/alloc")" = "8(x4) 4(x4)" ] || { fail "allocation is not 8(x4) CPUs, 4(x4) tasks"; return 1; }
    grep -qF -- "--slots '4(x4)' from SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE" "$d/plan.err" ||
        { fail "the plan did not take mpirun's slots"; return 1; }
    where_hosts "$d/where.out" 16 >"$d/observed.hosts" || { fail "where: wrong output"; return 1; }
    read_file openmpi "$d/ranks.file" | cmp -s - "$d/observed.hosts" || { fail "ranks not where the rankfile says"; return 1; }
    grep -q 'not enough slots' "$d/cpus.err" || { cat "$d/cpus.err"; fail "mpirun refused the CPU plan for another reason"; return 1; }
    echo "mpirun refuses 8 ranks on a node of 4 slots: 'There are not enough slots available'"
    rm -rf "$d"
}

# t_hydra_slurm_launcher: a machine file naming each node once, in another
# order than Slurm's: Hydra's own Slurm launcher puts the first line's ranks
# on the job's first node (proxies take SLURM_NODEID), hydra-srun where the
# file says
t_hydra_slurm_launcher() {
    local d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    cat >"$d/job.sh" <<EOF
set -e
stencil-map plan blocked:2d:5pt --nodes node3,node1,node4,node2 --slots 8 --launcher mpich --output ranks.file 2>/dev/null
stencil-map plan blocked:2d:5pt --nodes node3,node1,node4,node2 --slots 8 --hostfile planned.hosts 2>/dev/null
timeout 60 mpiexec.mpich -launcher slurm -f ranks.file '$WORK/bin/where-mpich' >slurm.out 2>slurm.err
timeout 60 mpiexec.mpich -launcher rsh -launcher-exec '$HYDRA_SRUN' -f ranks.file '$WORK/bin/where-mpich' >rsh.out 2>rsh.err
EOF
    in_job "$d" 32 "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/*.err; fail "the job failed"; return 1; }
    grep -v '^#' "$d/ranks.file"
    where_hosts "$d/slurm.out" 32 >"$d/slurm.hosts" && where_hosts "$d/rsh.out" 32 >"$d/rsh.hosts" ||
        { fail "where: wrong output"; return 1; }
    cmp -s "$d/rsh.hosts" "$d/planned.hosts" || { fail "through hydra-srun, ranks not where the file says"; return 1; }
    echo "-launcher rsh -launcher-exec hydra-srun: rank 0 on $(head -1 "$d/rsh.hosts"), as the file says"
    if cmp -s "$d/slurm.hosts" "$d/planned.hosts"; then
        fail "Hydra's Slurm launcher followed the file: hydra-srun would not be needed (MPICH changed?)"
        return 1
    fi
    echo "-launcher slurm: rank 0 on $(head -1 "$d/slurm.hosts"), rank 8 on $(sed -n 9p "$d/slurm.hosts"): Slurm's order, not the file's"
    rm -rf "$d"
}

# t_cray SPEC N: the rank order file against a real srun's slots: its ranks
# mapped as Cray MPICH maps them (the k-th listed rank takes task k's slot,
# task k's node from srun itself) score the plan's J_sum/J_max; each node's
# line is as long as its tasks; the exported variables reach the tasks
# without the coordinates the plugin would take from the task id
t_cray() {
    local spec=$1 n=$2 d
    d=$(mktemp -d "$WORK/t.XXXXXX")
    cat >"$d/job.sh" <<EOF
set -e
echo "\$SLURM_TASKS_PER_NODE" >tasks
stencil-map plan '$spec' --launcher cray --output order --env >env.sh 2>plan.err
stencil-map plan '$spec' --launcher cray --json >plan.json 2>/dev/null
srun -n $n sh -c 'echo "\$SLURM_PROCID \$(hostname)"' >slots.out
( eval "\$(cat env.sh)"; srun -n $n sh -c 'echo "\$SLURM_PROCID [\${STENCIL_MAP_COORDS:-}] \$STENCIL_MAP_DIMS \$MPICH_RANK_REORDER_METHOD"' >tasks.out )
( eval "\$(cat env.sh)"; MPICH_RANK_REORDER_METHOD=1 srun -n $n sh -c 'echo "\$SLURM_PROCID [\${STENCIL_MAP_COORDS:-}]"' >tasks1.out )
EOF
    in_job "$d" "$n" "$d/job.sh" >"$d/job.out" 2>&1 || { cat "$d/job.out" "$d"/*.err; fail "the job failed"; return 1; }
    cat "$d/plan.err" "$d/tasks" "$d/order"
    # the launch's slots in order: task k's node
    sort -n "$d/slots.out" | awk '{ print $2 }' >"$d/slots"
    # shellcheck disable=SC2046
    read_file cray "$d/order" $(cat "$d/slots") >"$d/observed.hosts" || { fail "the rank order file is malformed"; return 1; }
    # each line: the ranks of one node, as many as srun started there, in node order
    local k=0 i=0 line cnt node
    while IFS= read -r line; do
        i=$((i + 1))
        cnt=$(awk -F, '{ print NF }' <<<"$line")
        node=$(sed -n "$((k + 1))p" "$d/slots")
        [ "$(sed -n "$((k + 1)),$((k + cnt))p" "$d/slots" | sort -u)" = "$node" ] ||
            { fail "line $i: $cnt ranks, but srun's tasks $k..$((k + cnt - 1)) are not all on $node"; return 1; }
        k=$((k + cnt))
    done <"$d/order"
    [ "$k" -eq "$n" ] || { fail "the file lists $k ranks, srun started $n tasks"; return 1; }
    [ "$i" -eq 4 ] || { fail "$i lines, not one per node"; return 1; }
    echo "lines: one per node, each as long as srun's tasks there, in srun's node order"
    local js jm ss sm_
    js=$(json_get "$d/plan.json" 'd["j_sum"]')
    jm=$(json_get "$d/plan.json" 'd["j_max"]')
    "$SM" score "$spec" --hostfile "$d/observed.hosts" --ranks "$n" --json >"$d/score.json" ||
        { fail "stencil-map score failed"; return 1; }
    ss=$(json_get "$d/score.json" 'd["j_sum"]')
    sm_=$(json_get "$d/score.json" 'd["j_max"]')
    [ "$ss" = "$js" ] && [ "$sm_" = "$jm" ] || { fail "round trip: scored $ss/$sm_, planned $js/$jm"; return 1; }
    echo "FIGURES cray $spec n=$n: planned J_sum $js J_max $jm, from the file and srun's slots $ss/$sm_"
    # the variables reach the tasks; the plugin gives no coordinates to
    # ranks Cray MPICH renumbers (and does with method 1)
    awk '$2 != "[]" || $3 == "" || $4 != 3 { bad = 1 } END { exit bad || NR != '"$n"' }' "$d/tasks.out" ||
        { fail "MPICH_RANK_REORDER_METHOD=3: tasks got coordinates, or no STENCIL_MAP_DIMS"; head -3 "$d/tasks.out"; return 1; }
    awk '$2 == "[]" { bad = 1 } END { exit bad || NR != '"$n"' }' "$d/tasks1.out" ||
        { fail "MPICH_RANK_REORDER_METHOD=1: tasks got no coordinates"; head -3 "$d/tasks1.out"; return 1; }
    echo "plugin: no STENCIL_MAP_COORDS with MPICH_RANK_REORDER_METHOD=3, coordinates with =1"
    rm -rf "$d"
}

# records of the plugin, if any
records_count() { find "$RECORDS" -name '*.json' 2>/dev/null | wc -l; }

# t_daemons: with the plugin's site default= (and then a job's
# --stencil-map), mpirun's orted step and Hydra's proxy steps are not
# placed: no record, no STENCIL_MAP_COORDS inherited by the ranks, verify
# OK; an application step still is (the control)
t_daemons() {
    local how=$1 d
    local salloc_arg=()
    [ "$how" = job ] && salloc_arg=(--stencil-map=auto:2d:5pt)
    plugstack default=auto:2d:5pt
    rm -rf "${RECORDS:?}"/*
    d=$(mktemp -d "$WORK/t.XXXXXX")
    cat >"$d/job.sh" <<EOF
set -e
words=\$(stencil-map plan auto:3d:7pt --launcher openmpi --output ranks.file --env 2>/dev/null)
HWLOC_SYNTHETIC="package:1 core:8 pu:1" mpirun --rankfile ranks.file \$words sh -c 'echo "\$OMPI_COMM_WORLD_RANK [\${STENCIL_MAP_COORDS:-}]"' >ompi.out
HWLOC_SYNTHETIC="package:1 core:8 pu:1" mpirun --rankfile ranks.file \$words stencil-map-verify >verify-ompi.out
mwords=\$(stencil-map plan auto:3d:7pt --launcher mpich --output hosts.file --env 2>/dev/null)
mpiexec.mpich -f hosts.file \$mwords stencil-map-verify >verify-mpich.out 2>mpich.err
timeout 60 mpiexec.mpich -launcher slurm -n 8 '$WORK/bin/where-mpich' >hydra-slurm.out 2>&1
srun -n 4 '$WORK/bin/orted' >orted.out
ls '$RECORDS'/*/ 2>/dev/null | wc -l >records-before-control
srun -n 32 '$WORK/bin/solver' >solver.out
EOF
    in_job "$d" 32 "$d/job.sh" "${salloc_arg[@]}" >"$d/job.out" 2>&1 ||
        { cat "$d/job.out" "$d"/*.err "$d"/*.out; plugstack; fail "the job failed"; return 1; }
    plugstack
    cat "$d/verify-ompi.out" "$d/verify-mpich.out"
    grep -q '^stencil-map-verify: OK ' "$d/verify-ompi.out" || { fail "verify under mpirun not OK"; return 1; }
    grep -q '^stencil-map-verify: OK ' "$d/verify-mpich.out" || { fail "verify under mpiexec not OK"; return 1; }
    awk '$2 != "[]" { bad = 1 } END { exit bad || NR != 32 }' "$d/ompi.out" ||
        { fail "mpirun's ranks inherited STENCIL_MAP_COORDS from orted"; head -3 "$d/ompi.out"; return 1; }
    where_hosts "$d/hydra-slurm.out" 8 >/dev/null || { cat "$d/hydra-slurm.out"; fail "Hydra's own Slurm launcher failed"; return 1; }
    awk '$2 != "[]" { bad = 1 } END { exit bad || NR != 4 }' "$d/orted.out" ||
        { fail "an orted step got coordinates"; cat "$d/orted.out"; return 1; }
    [ "$(cat "$d/records-before-control")" = 0 ] ||
        { fail "the plugin wrote records for the launchers' daemon steps:"; ls -R "$RECORDS"; return 1; }
    echo "daemon steps ($how spec): not placed, no record, no coordinates for the ranks"
    awk '$2 == "[]" { bad = 1 } END { exit bad || NR != 32 }' "$d/solver.out" ||
        { fail "the control step was not placed"; return 1; }
    [ "$(records_count)" -ge 1 ] || { fail "no record of the control step"; return 1; }
    echo "control: the application step under the same spec is placed (record, coordinates)"
    rm -rf "$d"
}

# ------------------------------------------------------------ run --------
eval "$("$MC" env)"
export STENCILMAP_SPECS_DIR=$PREFIX/share/stencilmap/specs

cluster_up 8
run_test srun-2d-5pt-n32 t_srun auto:2d:5pt 32
run_test srun-3d-7pt-n32 t_srun auto:3d:7pt 32
run_test openmpi-2d-5pt-n32 t_launch openmpi auto:2d:5pt 32
run_test openmpi-3d-7pt-sockets-n32 t_launch openmpi auto:3d:7pt 32 --sockets 2
run_test mpich-2d-5pt-n32 t_launch mpich auto:2d:5pt 32
run_test mpich-3d-7pt-n32 t_launch mpich auto:3d:7pt 32
run_test openmpi-slots-from-tasks-per-node t_openmpi_slots
run_test hydra-own-slurm-launcher-ignores-order t_hydra_slurm_launcher
run_test cray-2d-5pt-n32 t_cray auto:2d:5pt 32
run_test cray-3d-7pt-n32 t_cray auto:3d:7pt 32
# salloc -N4 -n20: srun's tasks per node 8,8,3,1, not the CPUs
run_test cray-2d-5pt-n20-tasks-per-node t_cray auto:2d:5pt 20
run_test plugin-default-keeps-out-of-daemons t_daemons site
run_test plugin-job-spec-keeps-out-of-daemons t_daemons job

cluster_up 8,8,6,2
run_test hetero-srun-2d-5pt-n24 t_srun auto:2d:5pt 24
run_test hetero-srun-3d-7pt-n24 t_srun auto:3d:7pt 24
run_test hetero-openmpi-2d-5pt-n24 t_launch openmpi auto:2d:5pt 24
run_test hetero-openmpi-3d-7pt-n24 t_launch openmpi auto:3d:7pt 24
run_test hetero-mpich-2d-5pt-n24 t_launch mpich auto:2d:5pt 24
run_test hetero-mpich-3d-7pt-n24 t_launch mpich auto:3d:7pt 24
run_test hetero-cray-2d-5pt-n24 t_cray auto:2d:5pt 24
run_test hetero-cray-3d-7pt-n24 t_cray auto:3d:7pt 24

cluster_up 2
run_test openmpi-rankfile-binds-cores t_binding

cluster_down
echo
suite_summary
