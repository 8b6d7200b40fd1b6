# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the suites that run on a minicluster (tests/*/run.sh): the
# cluster's life, the plugstack line, running Slurm clients, the test
# runner and the placement check.  Source it after setting:
#
#   SUITE    the suite's name (messages)
#   WORK     its work directory (outside /tmp: every node must see it)
#   MC       contrib/minicluster/minicluster
#   SO       the stencil_map.so under test;  SM  the stencil-map CLI
#   RECORDS  the plugin's record_dir
#   ONLY     a regex: run only the tests whose names match (may be empty)
#
# and optionally SANITIZE=1: the tree under test was built with ASan+UBSan
# (see san_setup); srun, salloc and sbatch then run with libasan preloaded
# and load that plugin, while slurmstepd loads SO_REMOTE, a plain build of
# the same sources (a sanitizer runtime in slurmstepd deadlocked in a child
# it forks, a known hazard of ASan with fork in threaded programs).

PASS=0
FAILED=0
FAILED_NAMES=()
SAN_ENV=()
CLIENT_ENV=()

# Compiler flags of a sanitized build; the reports go to $WORK/sanitizer.
san_setup() {
    . "$(dirname "${BASH_SOURCE[0]}")/sanitizers.sh"
    export SMC_CFLAGS=$SAN_CFLAGS SMC_LDFLAGS=$SAN_LDFLAGS
    local asan_lib
    asan_lib=$(readlink -f "$(gcc -print-file-name=libasan.so)")
    [ -f "$asan_lib" ] || { echo "$SUITE: FATAL: libasan not found ($asan_lib)" >&2; exit 1; }
    SAN_REPORTS=$WORK/sanitizer
    rm -rf "$SAN_REPORTS"
    mkdir -p "$SAN_REPORTS"
    # Slurm's own leaks are not ours: leak checks stay on for our CLI only
    SAN_ENV=("LD_PRELOAD=$asan_lib"
        "ASAN_OPTIONS=detect_leaks=0:log_path=$SAN_REPORTS/asan"
        "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$SAN_REPORTS/ubsan")
}

t_no_sanitizer_reports() {
    local reports f
    reports=$(find "$SAN_REPORTS" -type f 2>/dev/null)
    if [ -n "$reports" ]; then
        fail "sanitizer reports:"
        for f in $reports; do echo "== $f"; head -40 "$f"; done
        return 1
    fi
    echo "no ASan/UBSan report from srun, salloc, sbatch or the CLI"
}

# ------------------------------------------------------------ cluster ----
CLUSTER_UP=0
cluster_down() {
    if [ "$CLUSTER_UP" = 1 ]; then
        "$MC" down >>"$WORK/minicluster.log" 2>&1 ||
            echo "$SUITE: WARNING: minicluster down failed (see $WORK/minicluster.log)" >&2
        CLUSTER_UP=0
    fi
}
trap cluster_down EXIT
trap 'echo "$SUITE: interrupted" >&2; exit 130' INT TERM

cluster_up() { # CPUS [NODES]
    local t_up=$SECONDS
    cluster_down
    CLUSTER_UP=1 # set first: a half-started cluster is brought down too
    # slurmd loads the plugstack when it starts: never a stale one (e.g. a
    # sanitized plugin of an earlier run, which slurmd cannot load)
    rm -f "$MINICLUSTER_DIR/etc/plugstack.conf" "$MINICLUSTER_DIR/etc/plugstack-client.conf"
    if ! MINICLUSTER_NODES=${2:-4} MINICLUSTER_CPUS=$1 "$MC" up >>"$WORK/minicluster.log" 2>&1; then
        echo "########################################################" >&2
        echo "### $SUITE: FATAL: the minicluster (cpus $1) did not start" >&2
        echo "########################################################" >&2
        tail -60 "$WORK/minicluster.log" >&2
        exit 1
    fi
    # the clients' environment, from `minicluster env`
    mapfile -t CLIENT_ENV < <("$MC" env | sed -n 's/^export //p')
    if [ "${SANITIZE:-0}" = 1 ]; then
        # clients read their own slurm.conf naming a plugstack with the
        # sanitized plugin; the daemons keep the plain one
        local conf=$MINICLUSTER_DIR/etc/slurm.conf client=$MINICLUSTER_DIR/etc/slurm-client.conf
        sed "s|^PlugStackConfig=.*|PlugStackConfig=$MINICLUSTER_DIR/etc/plugstack-client.conf|" \
            "$conf" >"$client"
        CLIENT_ENV+=("SLURM_CONF=$client" "${SAN_ENV[@]}")
    fi
    plugstack
    echo "-- minicluster (cpus $1, ${2:-4} nodes) up in $((SECONDS - t_up)) s"
}

# plugstack [ARGS...]: the plugin with record_dir plus ARGS
plugstack() {
    if [ "${SANITIZE:-0}" = 1 ]; then
        echo "required $SO record_dir=$RECORDS $*" >"$MINICLUSTER_DIR/etc/plugstack-client.conf"
        echo "required $SO_REMOTE record_dir=$RECORDS $*" >"$MINICLUSTER_DIR/etc/plugstack.conf"
    else
        echo "required $SO record_dir=$RECORDS $*" >"$MINICLUSTER_DIR/etc/plugstack.conf"
    fi
}

# mc CMD...: a Slurm client (or a script running them) against the cluster;
# bounded, so that a hang fails its test instead of the whole run
mc() { timeout "${MC_TIMEOUT:-300}" env "${CLIENT_ENV[@]}" "$@"; }

# ------------------------------------------------------------ helpers ----
fail() { echo "FAILED CHECK: $*"; return 1; }

run_test() { # NAME FUNCTION [ARGS...]
    local name=$1
    shift
    [[ $name =~ ${ONLY:-.} ]] || return 0
    local log=$WORK/logs/$name.log t0=$SECONDS
    if (cd "$WORK" && set -o pipefail && "$@") >"$log" 2>&1; then
        echo "ok   $name ($((SECONDS - t0)) s)"
        PASS=$((PASS + 1))
    else
        echo "FAIL $name ($((SECONDS - t0)) s)"
        sed 's/^/    | /' "$log" | tail -25
        FAILED=$((FAILED + 1))
        FAILED_NAMES+=("$name")
    fi
}

# slurm_release_at_least 23.11.0: whether the Slurm under test is that
# release or a newer one (sort -V puts 22.05.8 before 23.02.0 before
# 23.11.0).  The first call sets SLURM_RELEASE to what its srun says
# ("22.05.8"), which the suites name in their messages.
SLURM_RELEASE=
slurm_release_at_least() {
    [ -n "$SLURM_RELEASE" ] || SLURM_RELEASE=$(mc srun --version | awk '{ print $NF }')
    [ "$(printf '%s\n%s\n' "$SLURM_RELEASE" "$1" | sort -V | head -n1)" = "$1" ]
}

# Slurm before 23.02 has a launch race in its PMIx plugin (SchedMD bug
# 15193, fixed in 23.02.0 by a lock around setuid and the auth calls): a
# slurmstepd that drops to the job user's uid to fork its tasks drops all
# its threads with it (glibc's setxid), so its PMIx thread may ask munged to
# decode a peer's direct-connection credential as that user; munged refuses
# it and the step hangs in MPI_Init.  Only steps of an ordinary user, on
# several nodes, with --mpi=pmix.  It hung topology's 4 x 8-rank step in
# two CI runs on 22.05.8, and 2 of 90 such steps in a row on this 2-core
# machine kept busy by two other processes.  (PMIxDirectConn=no would avoid it, but
# then the servers' messages go through the slurmds, and those sends failed on
# the minicluster: "pmixp_p2p_send: send failed, rc=2".)
#
# pmix_cred_race ERR: whether the job whose step wrote ERR (its stderr,
# naming the job) died of that race on a release that has it.  The slurmds'
# logs say so; the step's stderr only when its I/O was up by then.  A step
# the race hit does not end: it hangs in its first fence until mc's timeout.
pmix_cred_race() {
    local job
    ! slurm_release_at_least 23.02.0 || return 1
    job=$(sed -n 's/.*job allocation \([0-9][0-9]*\).*/\1/p; s/.* STEP \([0-9][0-9]*\)\..*/\1/p' "$1" | head -1)
    [ -n "$job" ] || return 1
    cat "$MINICLUSTER_DIR"/log/slurmd-*.log 2>/dev/null | grep -F "] [$job." >"$1.slurmd" || true
    grep -q 'Munge decode failed: Unauthorized credential for client' "$1.slurmd" &&
        grep -q '_direct_conn_establish: .*Connection reject from' "$1.slurmd"
}

# pmix_step OUT ERR CMD...: CMD (a PMIx step) with its output in OUT and
# ERR; when it died of that race, once more, saying so (the race is
# Slurm's, the step never ran, and the second launch is tested as fully)
pmix_step() {
    local out=$1 err=$2
    shift 2
    "$@" >"$out" 2>"$err" && return 0
    pmix_cred_race "$err" || return 1
    echo "Slurm's PMIx credential race (bug 15193, before 23.02) hung the step at launch:" >&2
    sed 's/^/  | /' "$err" "$err.slurmd" >&2
    echo "launching it once more" >&2
    "$@" >"$out" 2>"$err"
}

json_get() { # FILE KEY -> value (python expression on the parsed object)
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(v if isinstance(v,str) else json.dumps(v))' "$1" "$2"
}

# ------------------------------------------------------------ placement --
# verify_run SPEC OUT ERR NRANKS [EXTRA PLAN ARGS]: the tasks' output
# (task.sh lines) against an independent `stencil-map plan`.
verify_run() {
    local spec=$1 out=$2 err=$3 n=$4
    shift 4
    local dir
    dir=$(mktemp -d "$WORK/verify.XXXXXX")
    sort -n "$out" | grep -E '^[0-9]+ ' >"$dir/tasks"
    [ "$(wc -l <"$dir/tasks")" -eq "$n" ] || { fail "expected $n task lines, got $(wc -l <"$dir/tasks")"; return 1; }
    awk -v n="$n" '$1 != NR - 1 { bad = 1 } END { exit bad || NR != n }' "$dir/tasks" ||
        { fail "SLURM_PROCID values are not 0..$((n - 1))"; return 1; }
    local nodelist cpus
    read -r _ _ _ _ _ nodelist cpus _ <"$dir/tasks"
    "$SM" plan "$spec" --nodes "$nodelist" --slots "$cpus" --ranks "$n" --hostfile "$dir/expected" "$@" \
        >"$dir/plan.txt" || { fail "stencil-map plan failed"; return 1; }
    awk '{ print $2 }' "$dir/tasks" >"$dir/observed"
    if ! cmp -s "$dir/expected" "$dir/observed"; then
        fail "rank placement differs from the plan's hostfile (expected vs observed):"
        paste "$dir/expected" "$dir/observed" | awk '{ printf "rank %d: %s %s%s\n", NR-1, $1, $2, ($1 != $2 ? "  <--" : "") }' | head -40
        return 1
    fi
    echo "placement: all $n ranks ran on their planned node"
    # is it distinguishable from Slurm's default (blocked) layout?
    "$SM" plan "$spec" --nodes "$nodelist" --slots "$cpus" --ranks "$n" --algorithm blocked \
        --hostfile "$dir/blocked" >/dev/null || { fail "blocked plan failed"; return 1; }
    if cmp -s "$dir/blocked" "$dir/observed"; then
        echo "(this placement equals the blocked layout)"
        [ "${REQUIRE_NOT_BLOCKED:-0}" = 1 ] && { fail "placement equals blocked, test cannot tell"; return 1; }
    else
        echo "this placement differs from the blocked layout on $(paste -d' ' "$dir/blocked" "$dir/observed" | awk '$1 != $2' | wc -l) ranks"
    fi
    local planned scored
    planned=$(sed -n 's/^stencil-map: .* inter-node edges \([0-9]*\) (blocked [0-9]*)\(, .*\)*$/\1/p' "$err" | tail -1)
    [ -n "$planned" ] || { fail "no summary line on srun's stderr"; cat "$err"; return 1; }
    "$SM" score "$spec" --hostfile "$dir/observed" --ranks "$n" --json >"$dir/score.json" ||
        { fail "stencil-map score failed"; return 1; }
    scored=$(json_get "$dir/score.json" 'd["j_sum"]')
    [ "$planned" = "$scored" ] || { fail "J_sum of observed placement $scored != planned $planned"; return 1; }
    echo "J_sum: planned $planned = scored from observed $scored"
    # coordinates: row-major of the rank (last dimension fastest), or with
    # COORDS_ORDER=column-major the first dimension fastest
    awk -v cm="${COORDS_ORDER:-row-major}" '{
        nd = split($4, d, ","); r = $1; s = "";
        if (cm == "column-major") { for (i = 1; i <= nd; i++) { c[i] = r % d[i]; r = int(r / d[i]) } }
        else { for (i = nd; i >= 1; i--) { c[i] = r % d[i]; r = int(r / d[i]) } }
        for (i = 1; i <= nd; i++) s = s (i > 1 ? "," : "") c[i];
        if (s != $3) { printf "rank %d: coords %s, expected %s\n", $1, $3, s; bad = 1 }
    } END { exit bad }' "$dir/tasks" || { fail "STENCIL_MAP_COORDS wrong"; return 1; }
    echo "coords: ${COORDS_ORDER:-row-major} for all ranks"
    # SLURM_HOSTFILE's private path is not leaked to the tasks
    awk '$10 != "-" { exit 1 }' "$dir/tasks" || { fail "tasks see SLURM_HOSTFILE"; return 1; }
    # the record: valid JSON, same j_sum and placement (NO_RECORD=1: a test
    # that keeps the plugin from writing one)
    if [ "${NO_RECORD:-0}" = 1 ]; then
        rm -rf "$dir"
        return 0
    fi
    local rec
    rec=$(awk 'NR == 1 { print $9 }' "$dir/tasks")
    [ -f "$rec" ] || { fail "audit record '$rec' missing"; return 1; }
    [ "$(json_get "$rec" 'd["j_sum"]')" = "$planned" ] || { fail "record j_sum differs"; return 1; }
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["placement"] != open(sys.argv[2]).read().split())' \
        "$rec" "$dir/observed" || { fail "record placement differs from observed"; return 1; }
    echo "record: $rec valid, j_sum and placement match"
    rm -rf "$dir"
}

# ------------------------------------------------------------ netns ------
# netns_link_bytes NODES: "SENT TO_HOST" in a netns minicluster: the bytes
# all nodes sent into their links (the host ends of the veths receive
# them), and those the host itself received from the bridge (srun's
# output, Slurm's RPCs).  Their difference is what crossed from one node
# to another.
netns_link_bytes() {
    local tag=mc$MINICLUSTER_PORT_BASE i sent=0 v
    for ((i = 1; i <= $1; i++)); do
        v=$(cat "/sys/class/net/${tag}n$i/statistics/rx_bytes") || return 1
        sent=$((sent + v))
    done
    v=$(cat "/sys/class/net/${tag}br/statistics/rx_bytes") || return 1
    echo "$sent $v"
}

suite_summary() {
    [ ${#FAILED_NAMES[@]} -gt 0 ] && echo "failed: ${FAILED_NAMES[*]}"
    echo "$PASS passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}
