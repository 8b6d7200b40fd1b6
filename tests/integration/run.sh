#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration tests of the stencil_map SPANK plugin on a real multi-node
# Slurm (contrib/minicluster).  Builds and installs the tree into a staging
# prefix, brings up its own minicluster (4 nodes of 8 CPUs, then 8,8,6,4),
# runs every test, prints "ok NAME" / "FAIL NAME" and "N passed, M failed",
# and always brings the cluster down.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-plugin), MINICLUSTER_PORT_BASE
#      (27800), SMC_PREFIX (/var/lib/smc-plugin-prefix), SMC_WORK
#      (/var/lib/smc-plugin-work), SMC_SKIP_BUILD=1 to reuse the install,
#      SMC_ONLY=REGEX to run only the tests whose names match,
#      SMC_SANITIZE=1 to build with ASan+UBSan and run srun, salloc, sbatch
#      and the CLI sanitized (reports are failures; see tests/lib/suite.sh).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-plugin}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-27800}
PREFIX=${SMC_PREFIX:-/var/lib/smc-plugin-prefix}
WORK=${SMC_WORK:-/var/lib/smc-plugin-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
SO=$PREFIX/lib/slurm/stencil_map.so
BENCH=${SMC_BUILD_ROOT:-/var/lib/smc-plugin-build}/obj/bench/bench_srun_side
PROBE=${SMC_BUILD_ROOT:-/var/lib/smc-plugin-build}/obj/tests/plugin/srun_args_probe
RECORDS=$WORK/records
TASK=$WORK/task.sh
SUITE=integration
ONLY=${SMC_ONLY:-}
SANITIZE=${SMC_SANITIZE:-0}
# with SMC_SANITIZE=1, slurmstepd's plain plugin: built here, or, with
# SMC_REMOTE_PREFIX and SMC_REMOTE_BUILD_ROOT, the plain build another
# suite made there (tests/sanitize: run-all's shared one), found up to date
REMOTE_PREFIX=${SMC_REMOTE_PREFIX:-$WORK/remote-prefix}
SO_REMOTE=$REMOTE_PREFIX/lib/slurm/stencil_map.so
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$WORK$MINICLUSTER_DIR" in *"/tmp/"*)
    echo "run.sh: SMC_PREFIX, SMC_WORK and MINICLUSTER_DIR must be outside /tmp" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
[ -x "$MC" ] || { echo "run.sh: FATAL: $MC not found" >&2; exit 1; }

# spec_file ALG DIMS STENCIL -> $WORK/spec-ALG-<dims>-STENCIL.json
spec_file() {
    local name
    name=$(echo "$2" | tr -d '[] ' | tr , x)
    printf '{"grid": {"dims": %s}, "stencil": "%s", "algorithm": "%s"}\n' "$2" "$3" "$1" \
        >"$WORK/spec-$1-$name-$3.json"
}

# ------------------------------------------------------------ tests ------
# a. every algorithm: salloc -N4 -n<slots>, srun --stencil-map
t_algorithm() { # SPEC SLOTS [SRUN ARGS...]
    local spec=$1 slots=$2
    shift 2
    case $spec in /*) cat "$spec" ;; esac
    mc salloc -N4 -n"$slots" srun "$@" --stencil-map="$spec" "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    local n
    n=$(grep -cE '^[0-9]+ ' out)
    verify_run "$spec" out err "$n"
}

# a. stencil-map plan inside salloc, no --nodes/--slots/--ranks: the job's
# values, said on stderr; the same hostfile as the explicit form with those
# values, and the placement srun --stencil-map then launches
t_cli_in_job() { # SALLOC_N
    local n=$1
    # shellcheck disable=SC2016
    mc salloc -N4 -n"$n" sh -c 'echo "$SLURM_JOB_NODELIST $SLURM_JOB_CPUS_PER_NODE $SLURM_NTASKS" >job.env &&
        "$1" plan auto:2d:5pt --hostfile injob.hosts >injob.out 2>injob.err &&
        srun --stencil-map=auto:2d:5pt "$2"' - "$SM" "$TASK" >out 2>err ||
        { fail "salloc failed"; cat err injob.err; return 1; }
    cat job.env injob.err injob.out
    local nodelist cpus ntasks
    read -r nodelist cpus ntasks <job.env
    [ "$ntasks" = "$n" ] || { fail "SLURM_NTASKS is '$ntasks', wanted $n"; return 1; }
    grep -qF "inside an allocation: --nodes '$nodelist' --slots '$cpus' from SLURM_JOB_NODELIST" injob.err ||
        { fail "plan did not say it took the job's nodes"; return 1; }
    grep -qF -- "--ranks $n from SLURM_NTASKS" injob.err || { fail "plan did not say it took SLURM_NTASKS"; return 1; }
    "$SM" plan auto:2d:5pt --nodes "$nodelist" --slots "$cpus" --ranks "$n" --hostfile explicit.hosts \
        >explicit.out 2>explicit.err || { fail "explicit plan failed"; cat explicit.err; return 1; }
    [ ! -s explicit.err ] || { fail "the explicit form printed to stderr"; cat explicit.err; return 1; }
    cmp -s injob.hosts explicit.hosts || { fail "in-job plan differs from the explicit form"; paste injob.hosts explicit.hosts; return 1; }
    sort -n out | grep -E '^[0-9]+ ' | awk '{ print $2 }' >observed
    cmp -s injob.hosts observed || { fail "srun --stencil-map ran elsewhere"; paste injob.hosts observed; return 1; }
    echo "in-job plan = explicit plan on $nodelist/$cpus = where srun placed the $n ranks"
}

# a. srun options narrowing the allocation: -n, -N, --ntasks-per-node
t_subset() { # SPEC EXPECTED_RANKS PLAN_ARGS -- SRUN ARGS
    local spec=$1 n=$2 nodes=$3 slots=$4
    shift 4
    mc salloc -N4 -n32 srun "$@" --stencil-map="$spec" "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    [ "$(grep -cE '^[0-9]+ ' out)" -eq "$n" ] || { fail "expected $n tasks"; return 1; }
    # plan against the narrowed node set
    local dir
    dir=$(mktemp -d "$WORK/verify.XXXXXX")
    sort -n out | awk '{ print $2 }' >"$dir/observed"
    "$SM" plan "$spec" --nodes "$nodes" --slots "$slots" --ranks "$n" --hostfile "$dir/expected" >/dev/null ||
        { fail "plan failed"; return 1; }
    cmp -s "$dir/expected" "$dir/observed" || { fail "placement differs"; paste "$dir/expected" "$dir/observed"; return 1; }
    echo "placement follows the plan on $nodes with slots $slots"
}

# b. sbatch --stencil-map: every srun in the script is placed; none opts out
t_sbatch() {
    cat >spec-sbatch.json <<'JSON'
{"grid": {"dims": [4, 8], "periods": [true, false]}, "stencil": "9pt", "algorithm": "kdtree"}
JSON
    cat >job.sh <<SH
#!/bin/sh
srun $TASK >$WORK/sbatch.placed.out 2>$WORK/sbatch.placed.err
echo "placed rc=\$?"
srun --stencil-map=none sh -c 'echo "\$SLURM_PROCID \$(env | grep -c "^STENCIL_MAP_")"' >$WORK/sbatch.none.out 2>$WORK/sbatch.none.err
echo "none rc=\$?"
SH
    rm -f sbatch.*.out sbatch.*.err
    # a relative path: sbatch must export it as an absolute one
    mc sbatch -W -N4 -n32 -o "$WORK/sbatch.job.out" --stencil-map=spec-sbatch.json job.sh ||
        { fail "sbatch failed"; cat sbatch.job.out; return 1; }
    cat sbatch.job.out
    grep -q "placed rc=0" sbatch.job.out || { fail "placed srun failed"; cat sbatch.placed.err; return 1; }
    grep -q "none rc=0" sbatch.job.out || { fail "none srun failed"; cat sbatch.none.err; return 1; }
    verify_run "$WORK/spec-sbatch.json" sbatch.placed.out sbatch.placed.err 32 || return 1
    local rec
    rec=$(sort -n sbatch.placed.out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["spec_source"]')" = env ] || { fail "record spec_source is not 'env'"; return 1; }
    [ "$(json_get "$rec" 'd["spec"]')" = "$WORK/spec-sbatch.json" ] || { fail "spec not exported as an absolute path"; return 1; }
    echo "record: spec_source=env, spec=$WORK/spec-sbatch.json"
    [ "$(wc -l <sbatch.none.out)" -eq 32 ] || { fail "none step: expected 32 tasks"; return 1; }
    awk '$2 != 0 { exit 1 }' sbatch.none.out || { fail "--stencil-map=none tasks have STENCIL_MAP_* variables"; cat sbatch.none.out; return 1; }
    grep -q 'stencil-map:' sbatch.none.err && { fail "none step printed a summary"; return 1; }
    echo "srun --stencil-map=none: 32 tasks without STENCIL_MAP_*"
}

# b. salloc --stencil-map: srun inside inherits the spec
t_salloc_option() {
    mc salloc -N4 -n32 --stencil-map="$WORK/spec-kdtree-4x8-5pt.json" srun "$TASK" >out 2>err ||
        { fail "salloc/srun failed"; cat err; return 1; }
    cat err
    REQUIRE_NOT_BLOCKED=1 verify_run "$WORK/spec-kdtree-4x8-5pt.json" out err 32 || return 1
    local rec
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["spec_source"]')" = env ] || { fail "record spec_source is not 'env'"; return 1; }
    echo "record: spec_source=env"
}

# the private hostfile directory is gone when srun exits (also after errors)
t_cleanup() {
    local before after
    before=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'stencil-map.*' | wc -l)
    mc salloc -N4 -n32 srun --stencil-map=auto:2d:5pt true >/dev/null 2>&1 || { fail "srun failed"; return 1; }
    mc salloc -N4 -n32 srun -n40 --stencil-map=auto:2d:5pt true >/dev/null 2>&1
    after=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'stencil-map.*' | wc -l)
    [ "$before" = "$after" ] || { fail "private directories left behind: $before before, $after after"; return 1; }
    echo "no stencil-map.* directory left in ${TMPDIR:-/tmp}"
}

t_sbatch_bad() {
    echo '{"grid": {"dims": [4, 8]}, "stencil": "5pt", "algorithm": "fastest"}' >bad-alg.json
    printf '#!/bin/sh\ntrue\n' >job-true.sh
    if mc sbatch -N1 -o /dev/null --stencil-map=bad-alg.json job-true.sh >out 2>err; then
        fail "sbatch accepted a bad spec"; return 1
    fi
    cat err
    grep -q 'stencil-map: .*algorithm' err || { fail "error does not name the field 'algorithm'"; return 1; }
}

# b. site default= applies to a plain srun
t_default() {
    plugstack default=auto:2d:9pt
    mc salloc -N4 -n32 srun "$TASK" >out 2>err || { fail "srun failed"; cat err; return 1; }
    cat err
    verify_run auto:2d:9pt out err 32 || return 1
    local rec
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["spec_source"]')" = default ] || { fail "record spec_source is not 'default'"; return 1; }
    echo "record says spec_source=default"
    # --stencil-map=none opts out of the default
    mc salloc -N4 -n32 srun --stencil-map=none "$TASK" >out 2>err || { fail "srun none failed"; return 1; }
    awk '$5 != "-" { exit 1 }' out || { fail "none: tasks got STENCIL_MAP_ALGORITHM"; return 1; }
    echo "--stencil-map=none opts out of the site default"
}

# A step the site default left alone: N task lines, none told a placement,
# and not a word of ours on srun's standard error.
aside_ok() { # OUT ERR N
    [ "$(wc -l <"$1")" -eq "$3" ] || { fail "expected $3 task lines, got $(wc -l <"$1")"; cat "$2"; return 1; }
    awk '$5 != "-" { exit 1 }' "$1" || { fail "the tasks were told a placement"; cat "$1"; return 1; }
    if grep 'stencil-map' "$2"; then fail "stencil-map wrote on srun's standard error"; return 1; fi
}

# b. the site default places only steps whose user left the layout to
# Slurm and that it can place; any other runs as Slurm alone runs it, with
# no error, no line on standard error and no record (srun -v says why).
# Found by Slurm's own tests with default= (tests/slurm-suite).
t_default_stands_aside() {
    plugstack default=auto:2d:5pt
    local before after where
    before=$(find "$RECORDS" -name '*.json' | wc -l)
    mc salloc -N4 -n32 srun -w node3 -N1 -n2 "$TASK" >out 2>err || { fail "srun -w failed"; cat err; return 1; }
    aside_ok out err 2 || return 1
    where=$(awk '{ print $2 }' out | sort -u | paste -sd,)
    [ "$where" = node3 ] || { fail "-w node3: the tasks ran on $where"; return 1; }
    echo "-w node3 -N1: both tasks on node3, unplaced"
    mc salloc -N4 -n32 srun -r 2 -n2 "$TASK" >out 2>err || { fail "srun -r 2 failed"; cat err; return 1; }
    aside_ok out err 2 || return 1
    where=$(sort -n out | awk '{ print $2 }' | paste -sd,)
    [ "$where" = node3,node4 ] || { fail "-r 2: ranks 0 and 1 ran on $where"; return 1; }
    echo "-r 2 (--relative): ranks on node3 and node4, unplaced"
    mc salloc -N4 -n32 srun -m cyclic -n4 "$TASK" >out 2>err || { fail "srun -m cyclic failed"; cat err; return 1; }
    aside_ok out err 4 || return 1
    where=$(sort -n out | awk '{ print $2 }' | paste -sd,)
    [ "$where" = node1,node2,node3,node4 ] || { fail "-m cyclic: ranks ran on $where"; return 1; }
    echo "-m cyclic: ranks 0..3 on node1..node4, unplaced"
    printf 'node4\nnode4\nnode2\n' >user-hostfile
    mc salloc -N4 -n32 env SLURM_HOSTFILE="$PWD/user-hostfile" srun -n3 "$TASK" >out 2>err ||
        { fail "srun with the user's SLURM_HOSTFILE failed"; cat err; return 1; }
    aside_ok out err 3 || return 1
    where=$(sort -n out | awk '{ print $2 }' | paste -sd,)
    [ "$where" = node4,node4,node2 ] || { fail "the user's SLURM_HOSTFILE: ranks ran on $where"; return 1; }
    echo "the user's SLURM_HOSTFILE: followed, unplaced"
    mc salloc -N4 -n32 srun -n1 "$TASK" >out 2>err || { fail "srun -n1 failed"; cat err; return 1; }
    aside_ok out err 1 || return 1
    echo "-n1: unplaced"
    # a plan the step's own options rule out: -O beyond the slots (and -N
    # on 23.11 and later, which refuses -N with a hostfile: below)
    mc salloc -N4 -n32 srun -O -n40 "$TASK" >out 2>err || { fail "srun -O -n40 failed"; cat err; return 1; }
    aside_ok out err 40 || return 1
    echo "-O -n40 on 32 slots: 40 tasks, unplaced"
    mc salloc -N4 -n32 srun -v -n1 true >out 2>err || { fail "srun -v -n1 failed"; cat err; return 1; }
    grep -q "stencil-map: site default 'auto:2d:5pt' not applied: a step of one task" err ||
        { fail "srun -v does not say why the default stood aside"; cat err; return 1; }
    echo "srun -v says why"
    mc srun -N2 -n4 "$TASK" >out 2>err || { fail "srun outside an allocation failed"; cat err; return 1; }
    aside_ok out err 4 || return 1
    echo "outside an allocation: unplaced, nothing on standard error"
    after=$(find "$RECORDS" -name '*.json' | wc -l)
    [ "$before" = "$after" ] || { fail "records were written ($before before, $after after)"; return 1; }
    echo "no record for any of these steps"
    mc salloc -N4 -n32 srun -N2 -n4 "$TASK" >out 2>err || { fail "srun -N2 -n4 failed"; cat err; return 1; }
    if srun_is_new; then
        aside_ok out err 4 || return 1
        [ "$(find "$RECORDS" -name '*.json' | wc -l)" = "$after" ] || { fail "-N2: a record was written"; return 1; }
        echo "-N2 on srun $SLURM_RELEASE: unplaced, no record"
    else
        awk '$5 == "-" { exit 1 }' out || { fail "-N2 on srun $SLURM_RELEASE: not placed"; return 1; }
        echo "-N2 on srun $SLURM_RELEASE: placed on the first 2 nodes, as before"
    fi
    # and a step left to Slurm is still placed
    mc salloc -N4 -n32 srun -n16 "$TASK" >out 2>err || { fail "srun -n16 failed"; cat err; return 1; }
    awk '$5 == "-" { exit 1 }' out || { fail "srun -n16 inside the allocation was not placed"; return 1; }
    echo "srun -n16 inside the allocation: placed"
}

# Whether the srun under test is 23.11 or later (refuses -N with a
# hostfile, inherits -c).
srun_is_new() { slurm_release_at_least 23.11.0; }

# e. srun -N: placed on the first N nodes where srun allows -N with a
# hostfile (22.05 to 23.02), refused before launch, naming what to do, on
# 23.11 and later
t_srun_nodes() {
    if srun_is_new; then
        t_error '-N/--nodes 2 cannot be used with --stencil-map.*salloc -N2' 32 \
            -N2 -n16 --stencil-map=hyperplane:2d:5pt
    else
        t_subset hyperplane:2d:5pt 16 'node[1-2]' 8 -N2 -n16
    fi
}

# e. the job's task count (salloc -n) is only inherited: a grid of fewer
# ranks runs that many placed ranks
t_inherited_ntasks() { # SPEC RANKS SALLOC_N
    local spec=$1 n=$2 nalloc=$3
    mc salloc -N4 -n"$nalloc" srun --stencil-map="$spec" "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    [ "$(grep -cE '^[0-9]+ ' out)" -eq "$n" ] ||
        { fail "expected $n tasks for a $n-rank grid in a job of $nalloc tasks"; return 1; }
    verify_run "$spec" out err "$n"
}

# e. the same in a batch script: sbatch -n inherited by srun
t_inherited_ntasks_sbatch() {
    printf '#!/bin/sh\nsrun --stencil-map=%s %s\n' "$WORK/spec-hyperplane-4x6-5pt.json" "$TASK" \
        >job-inherit.sh
    chmod +x job-inherit.sh
    rm -f "$WORK/sbatch-inherit.out"
    mc sbatch -W -N4 -n32 -o "$WORK/sbatch-inherit.out" job-inherit.sh >/dev/null ||
        { fail "sbatch job failed"; cat "$WORK/sbatch-inherit.out"; return 1; }
    grep -E '^[0-9]+ ' "$WORK/sbatch-inherit.out" >out
    grep -v -E '^[0-9]+ ' "$WORK/sbatch-inherit.out" >err || true
    cat err
    verify_run "$WORK/spec-hyperplane-4x6-5pt.json" out err 24
}

# e. salloc -c2: srun 23.11+ runs its tasks with 2 CPUs each (4 per node
# of 8), 22.05 with one; the plan follows what srun will do
t_cpus_inherited() {
    local per=8
    srun_is_new && per=4
    mc salloc -N4 -n16 -c2 srun --stencil-map=strips:2d:5pt "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    [ "$(grep -cE '^[0-9]+ ' out)" -eq 16 ] || { fail "expected 16 tasks"; return 1; }
    sort -n out | awk '/^[0-9]+ / { print $2 }' >observed
    "$SM" plan strips:2d:5pt --nodes 'node[1-4]' --slots "$per" --ranks 16 --hostfile expected \
        >/dev/null || { fail "plan failed"; return 1; }
    cmp -s expected observed ||
        { fail "placement differs from the plan with $per slots per node"; paste expected observed; return 1; }
    echo "placement follows the plan with $per tasks per node (srun $SLURM_RELEASE)"
}

# e. every option this srun's --help lists is one the plugin knows, and
# written before -n as srun takes it, leaves the plugin reading -n 7
# (srun_args_probe runs the plugin's parser).  Whether an option takes a
# value comes from srun's option table (spank_plugin/srun_options.c), not
# from the help, which shows "--bcast=<dest_path>" for an optional value
# and "--container" for a required one.
t_srun_help_options() {
    mc srun --help >help.txt 2>&1
    local line opt eq kind n=0 bad=0 rules=old out differ=""
    srun_is_new && rules=new
    while IFS= read -r line; do
        # option lines only, not "--opt" inside a description
        [[ $line =~ ^[[:space:]]{2,8}(-[A-Za-z],[[:space:]]+)?--([A-Za-z0-9_-]+)(\[?=)? ]] || continue
        opt=${BASH_REMATCH[2]}
        eq=${BASH_REMATCH[3]}
        n=$((n + 1))
        kind=$("$PROBE" --kind "$opt")
        [ "$kind" != unknown ] || { echo "--$opt: unknown to the plugin"; bad=$((bad + 1)); continue; }
        { [ "$kind" = with ] && [ "$eq" != "=" ]; } || { [ "$kind" = without ] && [ "$eq" = "=" ]; } &&
            differ+=" --$opt($kind)"
        case $opt in ntasks | nodes | cpus-per-task | ntasks-per-node | tasks-per-node | nodelist | nodefile) continue ;; esac
        if [ "$kind" = with ]; then
            out=$(SM_PROBE_RULES=$rules "$PROBE" "--$opt=value" -n 7 --stencil-map=s ./app -n 3)
            [[ $out == "ntasks=7 "*" spec=s bad=" ]] || { echo "--$opt=value: $out"; bad=$((bad + 1)); }
            out=$(SM_PROBE_RULES=$rules "$PROBE" "--$opt" value -n 7 --stencil-map=s ./app -n 3)
        else
            out=$(SM_PROBE_RULES=$rules "$PROBE" "--$opt" -n 7 --stencil-map=s ./app -n 3)
        fi
        [[ $out == "ntasks=7 "*" spec=s bad=" ]] || { echo "--$opt ($kind): $out"; bad=$((bad + 1)); }
    done <help.txt
    [ "$n" -ge 80 ] || { fail "only $n options found in srun --help"; head -20 help.txt; return 1; }
    # the plugin's own line says whose option it is and where to read more
    grep -q -- '--stencil-map=SPEC.*\[stencil_map\]' help.txt && grep -q 'stencil_map(8)' help.txt ||
        { fail "srun --help does not name [stencil_map] and stencil_map(8)"; grep -A3 -- --stencil-map help.txt; return 1; }
    [ "$bad" -eq 0 ] || { fail "$bad of $n options misread"; return 1; }
    echo "where the help's '=' and srun's table differ:${differ:- nowhere}"
    echo "all $n options of srun $SLURM_RELEASE --help known, and before -n 7 read as srun reads them"
}

# b. errors: srun exits non-zero, names the field, starts no task
t_error() { # FIELD_REGEX SALLOC_N SRUN ARGS...
    local field=$1 nalloc=$2
    shift 2
    local marker=$WORK/marker.$RANDOM$RANDOM
    rm -f "$marker"
    if mc salloc -N4 -n"$nalloc" srun "$@" touch "$marker" >out 2>err; then
        fail "srun exited 0"; cat err; return 1
    fi
    cat err
    grep -qE "^stencil-map: .*$field" err || { fail "stderr does not name '$field'"; return 1; }
    [ ! -e "$marker" ] || { fail "a task started (marker exists)"; return 1; }
    echo "srun failed, named '$field', no task started"
}

# b. on_error=blocked: the same bad spec launches blocked, loudly, with a record
t_blocked_fallback() {
    plugstack on_error=blocked
    mc salloc -N4 -n32 srun --stencil-map="$WORK/bad.json" "$TASK" >out 2>err || { fail "srun failed"; cat err; return 1; }
    cat err
    grep -q "WARNING: .*spec" err || { fail "no warning naming the problem"; return 1; }
    grep -q "launching WITHOUT stencil placement" err || { fail "no fallback warning"; return 1; }
    [ "$(grep -cE '^[0-9]+ ' out)" -eq 32 ] || { fail "expected 32 tasks"; return 1; }
    awk '$5 != "blocked" || $3 != "-" { exit 1 }' out || { fail "tasks: want STENCIL_MAP_ALGORITHM=blocked and no coords"; head -3 out; return 1; }
    local rec
    rec=$(awk 'NR == 1 { print $9 }' out)
    [ -f "$rec" ] || { fail "no record"; return 1; }
    json_get "$rec" 'd["fallback"]["reason"]' | grep -q 'invalid JSON' || { fail "record fallback reason"; cat "$rec"; return 1; }
    echo "record $rec: fallback $(json_get "$rec" 'd["fallback"]')"
}

# b. "effort" in the spec, and the site's effort= for specs that give none:
# srun's summary and the record say it, and the tasks run where the CLI's
# plan with that effort puts them
t_effort() {
    local rec
    printf '{"grid": {"dims": [4, 8]}, "stencil": "5pt", "effort": 4}\n' >"$WORK/spec-effort-4.json"
    t_algorithm "$WORK/spec-effort-4.json" 32 || return 1
    grep -q '^stencil-map: .*, effort 4$' err || { fail "the summary does not say effort 4"; return 1; }
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["effort"]')" = 4 ] || { fail "record effort is not 4"; cat "$rec"; return 1; }
    echo "spec effort 4: in the summary and the record"
    plugstack effort=3
    printf '{"grid": {"dims": [4, 8]}, "stencil": "5pt"}\n' >"$WORK/spec-effort-none.json"
    printf '{"grid": {"dims": [4, 8]}, "stencil": "5pt", "effort": 3}\n' >"$WORK/spec-effort-3.json"
    mc salloc -N4 -n32 srun --stencil-map="$WORK/spec-effort-none.json" "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    verify_run "$WORK/spec-effort-3.json" out err 32 || return 1
    grep -q '^stencil-map: .*, effort 3$' err || { fail "the summary does not say the site's effort 3"; return 1; }
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["effort"]')" = 3 ] || { fail "record effort is not 3"; cat "$rec"; return 1; }
    echo "site effort=3: applied to a spec without one"
    plugstack effort=65
    if mc salloc -N1 -n1 srun true >out 2>err; then fail "accepted effort=65"; return 1; fi
    grep -q "effort=65: must be an integer 1 to 64" err || { fail "effort=65 refused without naming it"; cat err; return 1; }
}

t_max_ranks() {
    plugstack max_ranks=16
    t_error 'max_ranks.*16' 32 --stencil-map=auto:2d:5pt || return 1
    mc salloc -N4 -n32 srun -n16 --stencil-map=auto:2d:5pt "$TASK" >out 2>err || { fail "16 ranks rejected"; cat err; return 1; }
    echo "16 ranks allowed"
}

t_quiet() {
    mc salloc -N4 -n32 srun -Q --stencil-map=auto:2d:5pt "$TASK" >out 2>err || { fail "srun failed"; return 1; }
    grep -q '^stencil-map:' err && { fail "-Q still printed the summary"; cat err; return 1; }
    [ "$(grep -cE '^[0-9]+ node' out)" -eq 32 ] || { fail "tasks"; return 1; }
    awk '$3 == "-" { exit 1 }' out || { fail "coords missing with -Q"; return 1; }
    echo "-Q: no summary, placement still applied"
}

t_unknown_plugstack_arg() {
    plugstack colour=blue
    if mc salloc -N1 -n1 srun true >out 2>err; then fail "accepted an unknown plugstack argument"; return 1; fi
    cat err
    grep -q "colour=blue" err || { fail "message does not name the argument"; return 1; }
}

# remote side: a forged STENCIL_MAP_DIMS without placement
t_remote_forged() {
    STENCIL_MAP_DIMS=2,2 mc salloc -N1 -n4 srun sh -c 'echo "$SLURM_PROCID $STENCIL_MAP_COORDS"' >out 2>err ||
        { fail "valid forged dims failed"; cat err; return 1; }
    [ "$(sort -n out | tr '\n' ' ')" = "0 0,0 1 0,1 2 1,0 3 1,1 " ] || { fail "coords: $(sort -n out | tr '\n' ' ')"; return 1; }
    # STENCIL_MAP_ORDER=column-major: the first dimension fastest; anything
    # else but row-major fails the task
    STENCIL_MAP_DIMS=2,2 STENCIL_MAP_ORDER=column-major mc salloc -N1 -n4 srun sh -c 'echo "$SLURM_PROCID $STENCIL_MAP_COORDS"' >out 2>err ||
        { fail "valid forged order failed"; cat err; return 1; }
    [ "$(sort -n out | tr '\n' ' ')" = "0 0,0 1 1,0 2 0,1 3 1,1 " ] || { fail "column-major coords: $(sort -n out | tr '\n' ' ')"; return 1; }
    if STENCIL_MAP_DIMS=2,2 STENCIL_MAP_ORDER=fortran mc salloc -N1 -n4 srun sh -c 'echo started' >out 2>err; then
        fail "STENCIL_MAP_ORDER=fortran was accepted"; cat out err; return 1
    fi
    echo "rejected STENCIL_MAP_ORDER=fortran: $(grep -ho 'stencil-map: .*' "$MINICLUSTER_DIR"/log/slurmd-node*.log | tail -1)"
    local bad
    for bad in 'abc' '0,2' '-1' '2,,2' "$(printf '9%.0s' $(seq 1 300))" '1,1,1,1,1,1,1,1,1' '99999,99999,99999' '1,2'; do
        if STENCIL_MAP_DIMS=$bad mc salloc -N1 -n4 srun sh -c 'echo started' >out 2>err; then
            fail "STENCIL_MAP_DIMS='${bad:0:40}' was accepted"; cat out err; return 1
        fi
        echo "rejected STENCIL_MAP_DIMS='${bad:0:40}': $(grep -ho 'stencil-map: .*' "$MINICLUSTER_DIR"/log/slurmd-node*.log | tail -1)"
    done
    # slurmd survived
    mc salloc -N4 -n4 srun true || { fail "cluster broken afterwards"; return 1; }
}

# c. overhead
t_overhead_bench() {
    [ -x "$BENCH" ] || { fail "$BENCH not built"; return 1; }
    # CPU time against generous limits (about 3x this 2-core VM's medians):
    # 1,000 ranks are annealed, two placements under the default objective
    # "max" (115 ms for 2-D, 145 ms for 3-D here); 10,000 ranks are not (13
    # and 22 ms).  A limit passed means the work grew, not that the machine
    # was busy.  Under ASan+UBSan the path runs several times slower by
    # design: the sanitized run looks for memory errors in it, not time.
    local small=400 large=60
    [ "$SANITIZE" = 1 ] && small=0 large=0
    local s
    for s in auto:2d:5pt auto:3d:7pt; do
        "$BENCH" --limit-cpu-ms $small -s $s 1000 || return 1
        "$BENCH" --limit-cpu-ms $large -s $s 10000 || return 1
    done
}

t_overhead_srun() {
    # wall time of a 32-task srun with and without --stencil-map (medians of 5)
    cat >overhead.sh <<'SH'
#!/bin/bash
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1 || exit 1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
for i in 1 2 3 4 5; do
    echo "without $(ms srun -n32 true)"
    echo "with $(ms srun -n32 --stencil-map=auto:2d:5pt true)"
done
SH
    chmod +x overhead.sh
    mc salloc -N4 -n32 ./overhead.sh >out 2>err || { fail "timing loop failed"; cat err; return 1; }
    local wo wi
    wo=$(awk '$1 == "without" { print $2 }' out | sort -n | sed -n 3p)
    wi=$(awk '$1 == "with" { print $2 }' out | sort -n | sed -n 3p)
    echo "srun -n32 wall time, median of 5: without ${wo} ms, with --stencil-map ${wi} ms (all: $(tr '\n' ' ' <out))"
}

# d. bind=socket: nodes of 8 CPUs that claim 2 sockets (MINICLUSTER_SOCKETS),
# tasks whose hwloc sees 2 packages of one PU each (PUs 0 and 1 of this
# machine)
BIND_ENV=(HWLOC_SYNTHETIC="package:2 core:1 pu:1" HWLOC_THISSYSTEM=1)
t_bind_socket() { # [SRUN ARGS...]: the socket of every rank and its CPUs
    # blocked puts a 2x4 block on each node: the naive split (row against
    # row) cuts 8 directed edges per node, the planned one (2x2 against
    # 2x2) 4, so a plugin that bound by the naive split would fail below
    # BIND_IN_SPEC=0: the spec does not ask, plugstack.conf's bind=socket does
    local ask=', "bind": "socket"'
    [ "${BIND_IN_SPEC:-1}" = 1 ] || ask=''
    printf '{"grid": {"dims": [4, 4]}, "stencil": "5pt", "algorithm": "blocked"%s}\n' "$ask" \
        >"$WORK/spec-bind.json"
    mc env "${BIND_ENV[@]}" salloc -N2 -n16 srun "$@" --stencil-map="$WORK/spec-bind.json" \
        "$WORK/bind-task.sh" >out 2>err || { fail "srun failed"; cat err; return 1; }
    cat err
    grep -q 'bind=socket, inter-socket edges' err || { fail "no inter-socket line from srun"; return 1; }
    if grep -q 'socket count' err; then fail "socket counts not read from slurmctld"; return 1; fi
    "$SM" plan "$WORK/spec-bind.json" --nodes 'node[1-2]' --slots 8 --sockets 2 \
        --hostfile expected.hosts --socketfile expected.sockets --json >plan.json ||
        { fail "plan --sockets failed"; return 1; }
    sort -n out | grep -E '^[0-9]+ ' >tasks
    [ "$(wc -l <tasks)" -eq 16 ] || { fail "expected 16 task lines"; cat out; return 1; }
    local r node sock cpus rec record="" want_node want_sock bound=0
    while read -r r node sock cpus rec; do
        record=$rec
        want_node=$(sed -n "$((r + 1))p" expected.hosts)
        want_sock=$(sed -n "$((r + 1))p" expected.sockets)
        [ "$node" = "$want_node" ] || { fail "rank $r on $node, plan says $want_node"; return 1; }
        [ "$sock" = "$want_sock" ] || { fail "rank $r: STENCIL_MAP_SOCKET=$sock, plan says $want_sock"; return 1; }
        if [ "${BIND_EXPECT:-bound}" = bound ]; then
            [ "$cpus" = "$sock" ] || { fail "rank $r on socket $sock has Cpus_allowed_list $cpus"; return 1; }
        else
            [ "$cpus" = "$BIND_EXPECT" ] || { fail "rank $r bound to $cpus despite --cpu-bind"; return 1; }
        fi
        echo "rank $r: $node socket $sock cpus $cpus"
        bound=$((bound + 1))
    done <tasks
    [ "$bound" -eq 16 ] || { fail "checked $bound ranks"; return 1; }
    # the record carries the inter-socket figures the CLI computes
    local want got
    want=$(json_get plan.json 'd["j_socket_sum"]')
    [ -f "$record" ] || { fail "no audit record ($record)"; return 1; }
    got=$(json_get "$record" 'd["j_socket_sum"]')
    [ "$want" = "$got" ] || { fail "record j_socket_sum $got, plan $want"; return 1; }
    [ "$(json_get "$record" 'd["sockets"]')" = "[2, 2]" ] ||
        { fail "record sockets $(json_get "$record" 'd["sockets"]')"; return 1; }
    local naive
    naive=$(json_get "$record" 'd["naive_j_socket_sum"]')
    [ "$got" -lt "$naive" ] || { fail "record: j_socket_sum $got not below the naive split's $naive"; return 1; }
    echo "record: j_socket_sum $got, naive $naive"
}

t_bind_socket_off() { # neither the spec nor the site asks: no socket, no binding
    local unbound
    unbound=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
    printf '{"grid": {"dims": [4, 4]}, "stencil": "5pt", "algorithm": "blocked"}\n' >"$WORK/spec-nobind.json"
    mc env "${BIND_ENV[@]}" salloc -N2 -n16 srun --stencil-map="$WORK/spec-nobind.json" \
        "$WORK/bind-task.sh" >out 2>err || { fail "srun failed"; cat err; return 1; }
    cat err
    if grep -q 'bind=socket' err; then fail "srun planned sockets unasked"; return 1; fi
    [ "$(grep -cE '^[0-9]+ ' out)" -eq 16 ] || { fail "expected 16 task lines"; return 1; }
    awk -v u="$unbound" '$3 != "-" || $4 != u { bad = 1; print "unexpected: " $0 } END { exit bad }' out ||
        { fail "a task got a socket or a binding"; return 1; }
    echo "16 tasks without STENCIL_MAP_SOCKET, all on CPUs $unbound"
}

t_bind_socket_cpu_bind() { # an explicit --cpu-bind: nothing is bound, and srun says so once
    local unbound
    unbound=$(grep Cpus_allowed_list /proc/self/status | awk '{ print $2 }')
    BIND_EXPECT=$unbound t_bind_socket --cpu-bind=none || return 1
    [ "$(grep -c 'not binding, the step has an explicit --cpu-bind' err)" -eq 1 ] ||
        { fail "the --cpu-bind note should appear exactly once"; cat err; return 1; }
}

# ------------------------------------------------------------ main -------
mkdir -p "$WORK/logs" "$RECORDS"
chmod 1777 "$RECORDS"
rm -rf "${RECORDS:?}"/* "$WORK"/logs/* "$WORK"/verify.* "$WORK"/marker.*
cp "$HERE/task.sh" "$TASK"
chmod 755 "$TASK"
cat >"$WORK/bind-task.sh" <<'EOF'
#!/bin/sh
# rank, node, socket, the CPUs this task may run on, its step's record
echo "$SLURM_PROCID $SLURMD_NODENAME ${STENCIL_MAP_SOCKET:--} $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status) ${STENCIL_MAP_RECORD:--}"
EOF
chmod 755 "$WORK/bind-task.sh"
echo '{"grid": {"dims": [4, 8]}, "stencil": "5pt",}' >"$WORK/bad.json"
echo '{"grid": {"dims": [4, 8]}, "stencil": "no_such_stencil"}' >"$WORK/unknown-stencil.json"

if [ "${SMC_SKIP_BUILD:-0}" != 1 ]; then
    if [ "$SANITIZE" = 1 ]; then
        # slurmstepd's plain plugin first, then the sanitized tree
        SMC_BUILD_ROOT=${SMC_REMOTE_BUILD_ROOT:-${SMC_BUILD_ROOT:-/var/lib/smc-plugin-build}-remote} \
            "$HERE/build.sh" "$REMOTE_PREFIX" || { echo "run.sh: FATAL: build failed" >&2; exit 1; }
        san_setup
    fi
    "$HERE/build.sh" "$PREFIX" || { echo "run.sh: FATAL: build failed" >&2; exit 1; }
elif [ "$SANITIZE" = 1 ]; then
    san_setup
fi
[ -f "$SO" ] && [ -x "$SM" ] || { echo "run.sh: FATAL: $SO or $SM missing" >&2; exit 1; }

echo "== homogeneous minicluster: 4 nodes x 8 CPUs"
cluster_up 8
# grids where every construction differs from Slurm's blocked layout, so a
# launch that ignored the plan would fail the comparison
for alg in hyperplane strips kdtree nodecart auto; do
    spec_file "$alg" '[4, 8]' 5pt
    REQUIRE_NOT_BLOCKED=1 run_test "a-$alg-4x8-5pt" t_algorithm "$WORK/spec-$alg-4x8-5pt.json" 32
    spec_file "$alg" '[2, 4, 4]' 7pt
    REQUIRE_NOT_BLOCKED=1 run_test "a-$alg-2x4x4-7pt" t_algorithm "$WORK/spec-$alg-2x4x4-7pt.json" 32
done
# column-major ranks (PETSc DMDA): the plan, STENCIL_MAP_COORDS and the
# record follow the grid's order; 9pt on 4x8 so the orders' plans differ
printf '{"grid": {"dims": [4, 8], "order": "column-major"}, "stencil": "9pt", "algorithm": "auto"}\n' \
    >"$WORK/spec-column-major-4x8-9pt.json"
COORDS_ORDER=column-major REQUIRE_NOT_BLOCKED=1 run_test a-column-major-4x8-9pt t_algorithm \
    "$WORK/spec-column-major-4x8-9pt.json" 32
spec_file blocked '[4, 8]' 5pt
run_test a-blocked-4x8-5pt t_algorithm "$WORK/spec-blocked-4x8-5pt.json" 32
run_test a-auto-compact-2d-5pt t_algorithm auto:2d:5pt 32
run_test a-auto-jacobi2d-named t_algorithm jacobi2d 32
run_test a-srun-n24 t_subset auto:2d:5pt 24 'node[1-4]' 8 -n24
run_test a-srun-N2 t_srun_nodes
run_test a-ntasks-per-node t_subset strips:2d:5pt 20 'node[1-4]' 5 --ntasks-per-node=5 -n20
spec_file hyperplane '[4, 6]' 5pt
run_test e-inherited-ntasks t_inherited_ntasks "$WORK/spec-hyperplane-4x6-5pt.json" 24 32
run_test e-inherited-ntasks-sbatch t_inherited_ntasks_sbatch
run_test e-explicit-n-differs t_error 'grid.dims: the grid holds 24 ranks but the step has 20 tasks' 32 \
    -n20 --stencil-map="$WORK/spec-hyperplane-4x6-5pt.json"
run_test e-cpus-per-task-inherited t_cpus_inherited
run_test e-srun-help-options t_srun_help_options
run_test b-sbatch-and-none t_sbatch
run_test b-sbatch-bad-spec t_sbatch_bad
run_test b-salloc-option t_salloc_option
run_test b-hostfile-dir-removed t_cleanup
run_test b-bad-json t_error 'spec: invalid JSON' 32 --stencil-map="$WORK/bad.json"
run_test b-unknown-stencil t_error "stencil: unknown name 'no_such_stencil'" 32 --stencil-map="$WORK/unknown-stencil.json"
run_test b-unknown-stencil-compact t_error "stencil: unknown name 'nosuch'" 32 --stencil-map=auto:2d:nosuch
run_test b-too-many-ranks t_error 'infeasible: 40 ranks but only 32 slots' 32 -n40 --stencil-map=auto:2d:5pt
run_test b-nodelist-conflict t_error 'nodelist' 32 -w node1 --stencil-map=auto:2d:5pt
run_test b-relative-conflict t_error 'relative cannot be combined' 32 -r 1 --stencil-map=auto:2d:5pt
run_test b-quiet t_quiet
run_test b-remote-forged-dims t_remote_forged
run_test b-default t_default
run_test b-default-stands-aside t_default_stands_aside
plugstack
run_test b-on-error-blocked t_blocked_fallback
plugstack
run_test b-max-ranks t_max_ranks
plugstack
run_test b-unknown-plugstack-arg t_unknown_plugstack_arg
plugstack
run_test b-effort t_effort
plugstack
run_test c-overhead-srun-32 t_overhead_srun
run_test c-overhead-bench t_overhead_bench

echo "== heterogeneous minicluster: 4 nodes with 8,8,6,4 CPUs"
cluster_up 8,8,6,4
for alg in hyperplane strips kdtree auto; do
    spec_file "$alg" '[2, 13]' 5pt
    REQUIRE_NOT_BLOCKED=1 run_test "a-hetero-$alg-2x13-5pt" t_algorithm "$WORK/spec-$alg-2x13-5pt.json" 26
done
spec_file blocked '[2, 13]' 5pt
run_test a-hetero-blocked-2x13-5pt t_algorithm "$WORK/spec-blocked-2x13-5pt.json" 26
spec_file hyperplane '[4, 6]' 5pt
REQUIRE_NOT_BLOCKED=1 run_test a-hetero-srun-n24-4x6 t_algorithm "$WORK/spec-hyperplane-4x6-5pt.json" 26 -n24
run_test e-hetero-inherited-ntasks t_inherited_ntasks "$WORK/spec-hyperplane-4x6-5pt.json" 24 26
run_test a-hetero-auto-compact-3d t_algorithm auto:3d:7pt 26
run_test a-hetero-cli-in-job t_cli_in_job 24
run_test a-hetero-nodecart-infeasible t_error 'nodecart: needs the same number of ranks on every node' 26 --stencil-map=nodecart:2d:5pt

echo "== sockets: 2 nodes x 8 CPUs claiming 2 sockets"
if [[ d-bind-socket =~ ${ONLY:-.} ]]; then
    MINICLUSTER_SOCKETS=2 cluster_up 8 2
    run_test d-bind-socket t_bind_socket
    run_test d-bind-socket-cpu-bind t_bind_socket_cpu_bind
    plugstack bind=socket
    BIND_IN_SPEC=0 run_test d-bind-socket-plugstack t_bind_socket
    plugstack
    run_test d-bind-socket-off t_bind_socket_off
fi
cluster_down

if [ "$SANITIZE" = 1 ]; then
    # every report a sanitized process wrote
    run_test z-sanitizer-reports t_no_sanitizer_reports
fi
suite_summary
