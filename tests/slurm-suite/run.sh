#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Slurm's own regression tests of srun, sbatch and salloc, run with and
# without the stencil_map plugin, compared test by test: does loading the
# plugin change anything for jobs that never use it?
#
# The tests are the ones that ship in the Slurm source (testsuite/python,
# pytest with its atf library, and testsuite/expect), run where they lie in
# the unpacked source, in the suite's local-config mode (it never rewrites
# slurm.conf nor restarts daemons) against a minicluster of that release.
# They run in four passes, each on a freshly started cluster of its own
# (at the same time: SLURM_SUITE_JOBS) whose plugstack.conf is:
#
#   none      empty: the plugin is not loaded (the baseline)
#   loaded    required stencil_map.so record_dir=...  (no default)
#   default   the same with default=auto:2d:5pt (a site that places every
#             step inside an allocation)
#   none2     empty again: a test whose two baseline runs disagree is flaky
#
# The table gives each test's result per pass (skips with their reason);
# the run fails when loaded differs from the baseline in any test, or when
# site default does and the allow-list (allowed-<major.minor>.txt) gives no
# reason.  Last lines: the summary line, then "N passed, M failed" with one
# count per test.
#
# usage: run.sh [VERSION|PREFIX]   VERSION: 24.11.5 (default) is built, or
#                                  reused, by contrib/slurm/build-slurm.sh;
#                                  22.05.8 is Debian 12's own Slurm (/usr),
#                                  its testsuite from Debian's source package
#                                  PREFIX: a Slurm installed there; its source
#                                  tree in SLURM_SUITE_SRC
# env:   SLURM_SUITE_ROOT   state, builds, logs (/var/lib/smc-slurm-suite)
#        MINICLUSTER_PORT_BASE (17800; pass i of the list uses
#                           the 20 ports from MINICLUSTER_PORT_BASE + 20 i)
#        SLURM_SUITE_SET    full (default) or ci: the tests marked ci
#        SLURM_SUITE_ONLY   regex: only the tests whose names match
#        SLURM_SUITE_MODES  passes to run (default "none loaded default none2")
#        SLURM_SUITE_JOBS   passes run at the same time, each on its own
#                           cluster (default 4: all; 1: one after the
#                           other).  The tests wait on daemons and sleeps
#                           most of their time: four passes at once take
#                           little more than the longest alone
#        SLURM_SUITE_TIMEOUT seconds one test may take (600)
#        SLURM_BUILD_CACHE  where build-slurm.sh keeps sources
#                           (/var/cache/stencilmap-slurm)
#        SLURM_SUITE_PREFIX, SLURM_SUITE_BUILD_ROOT  where the plugin is
#                           built and staged (SLURM_SUITE_ROOT/VERSION/prefix
#                           and .../build); run-all names those of another
#                           suite's build against the same Slurm, which
#                           tests/integration/build.sh then finds up to date
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
prog="slurm-suite"

arg=${1:-24.11.5}
cache=${SLURM_BUILD_CACHE:-/var/cache/stencilmap-slurm}
root=${SLURM_SUITE_ROOT:-/var/lib/smc-slurm-suite}
set_name=${SLURM_SUITE_SET:-full}
read -r -a modes <<<"${SLURM_SUITE_MODES:-none loaded default none2}"
per_test=${SLURM_SUITE_TIMEOUT:-600}
jobs=${SLURM_SUITE_JOBS:-4}
nodes=6
cpus=8
test_user=stencilmap-sst

fatal() {
    echo "$prog: FATAL: $*"
    echo "0 passed, 1 failed"
    exit 1
}
case $root in /tmp/*) echo "$0: SLURM_SUITE_ROOT must be outside /tmp (the nodes' /tmp is private)" >&2; exit 2 ;; esac
case $set_name in full | ci) ;; *) echo "$0: SLURM_SUITE_SET must be full or ci" >&2; exit 2 ;; esac
for m in "${modes[@]}"; do
    case $m in none | none2 | loaded | default) ;; *) echo "$0: unknown mode '$m'" >&2; exit 2 ;; esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "$0: SLURM_SUITE_JOBS must be a positive integer" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "$0: must run as root (the minicluster, a test user)" >&2; exit 2; }
# Debian's python3 (with python3-pytest), not another one earlier on PATH
py=/usr/bin/python3
for cmd in $py expect useradd; do
    command -v "$cmd" >/dev/null || fatal "$cmd not found (contrib/install-deps.sh installs it)"
done
$py -c 'import pytest, pexpect, requests' 2>/dev/null ||
    fatal "python3-pytest, python3-pexpect and python3-requests are needed (contrib/install-deps.sh)"

# ------------------------------------------------------- Slurm and source --
start=$SECONDS
if [[ $arg == /* ]]; then
    slurm=${arg%/}
    if [ ! -x "$slurm/bin/srun" ] || [ ! -f "$slurm/include/slurm/slurm_version.h" ]; then
        echo "$0: $slurm holds no Slurm (bin/srun, include/slurm/slurm_version.h)" >&2
        exit 2
    fi
    n=$(sed -n 's/^#define SLURM_VERSION_NUMBER *//p' "$slurm/include/slurm/slurm_version.h")
    version=$(printf '%d.%02d.%d' $((n >> 16)) $(((n >> 8) & 255)) $((n & 255)))
    tree=${SLURM_SUITE_SRC:-}
    [ -n "$tree" ] || { echo "$0: with a PREFIX, set SLURM_SUITE_SRC to its Slurm source tree" >&2; exit 2; }
    build_dir=$tree
    smc_slurm=$slurm
    mc_slurm=$slurm
else
    version=$arg
    [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "$0: VERSION must look like 24.11.5" >&2; exit 2; }
    sys_version=$(dpkg-query -W -f='${Version}' slurm-wlm 2>/dev/null | sed 's/-.*//')
    if [ "$version" = "$sys_version" ]; then
        # Debian 12's own Slurm: the system's daemons and clients, the
        # testsuite from the same source package
        slurm=/usr
        smc_slurm=""
        mc_slurm=""
        "$top/contrib/slurm/build-slurm.sh" --source-only "$version" ||
            fatal "the source of Slurm $version could not be had from Debian's archive"
        build_dir=$cache/src-$version/tree
    else
        "$top/contrib/slurm/build-slurm.sh" "$version" || fatal "Slurm $version could not be built"
        slurm=${SLURM_PREFIX_ROOT:-/opt/slurm}/$version
        smc_slurm=$slurm
        mc_slurm=$slurm
        # a build reused after the cache lost its source: fetch it again
        [ -f "$cache/src-$version/tree/.unpacked" ] ||
            "$top/contrib/slurm/build-slurm.sh" --source-only "$version" ||
            fatal "the source of Slurm $version could not be had"
        build_dir=$cache/src-$version/obj
        [ -d "$build_dir" ] || build_dir=$cache/src-$version/tree
    fi
    tree=$cache/src-$version/tree
fi
suite_py=$tree/testsuite/python
suite_exp=$tree/testsuite/expect
if [ ! -f "$suite_py/conftest.py" ] || [ ! -f "$suite_exp/globals" ]; then
    fatal "$tree holds no Slurm testsuite (testsuite/python/conftest.py, testsuite/expect/globals)"
fi
release=$(echo "$version" | cut -d. -f1,2)
list=$here/tests-$release.txt
allow=$here/allowed-$release.txt
[ -f "$list" ] || fatal "no test list for Slurm $release ($list)"
echo "== Slurm $version ($slurm), testsuite of $tree"

base=$root/$version
mkdir -p "$base"
work=$base/work
results=$base/results
logs=$base/logs
rm -rf "$results" "$logs" "$work"
mkdir -p "$results" "$logs" "$work/expect" "$work/pytest" "$work/home"
chmod 755 "$root" "$base" "$work"
chmod 1777 "$work/expect" "$work/pytest"

# ---------------------------------------------------------------- plugin --
# built from this tree against the release under test
prefix=${SLURM_SUITE_PREFIX:-$base/prefix}
t_build=$SECONDS
if ! SMC_SLURM=$smc_slurm SMC_BUILD_ROOT=${SLURM_SUITE_BUILD_ROOT:-$base/build} "$top/tests/integration/build.sh" "$prefix" \
    >"$base/build.log" 2>&1; then
    tail -20 "$base/build.log"
    fatal "stencilmap could not be built against Slurm $version"
fi
echo "$prog: plugin built in $prefix in $((SECONDS - t_build)) s"
so=$prefix/lib/slurm/stencil_map.so
records=$work/records
install -d -m 1777 "$records"

# ------------------------------------------------------------- test user --
# a few tests want an ordinary user beside root (expect's testsuite_user)
id "$test_user" >/dev/null 2>&1 || useradd -M -d "$work/home/$test_user" -s /bin/sh "$test_user" ||
    fatal "cannot create the user $test_user"

# ------------------------------------------------------- suite settings --
port0=${MINICLUSTER_PORT_BASE:-17800}
export MINICLUSTER_NODES=$nodes MINICLUSTER_CPUS=$cpus
if [ -n "$mc_slurm" ]; then export MINICLUSTER_SLURM=$mc_slurm; else unset MINICLUSTER_SLURM; fi
mc=$top/contrib/minicluster/minicluster

# Each pass has its own cluster (state directory, ports), configuration
# files, expect's shared directory and a copy of testsuite/expect to run
# the expect tests in (some write there: test7.11 builds its plugin as
# ./test7.11.prog.so, which another pass's test7.11 would delete), so that
# passes can run at once.
# use_pass MODE: this shell's cluster and files are those of pass MODE.
use_pass() {
    local i
    for i in "${!modes[@]}"; do [ "${modes[$i]}" = "$1" ] && break; done
    export MINICLUSTER_DIR=$base/mc-$1
    export MINICLUSTER_PORT_BASE=$((port0 + 20 * i))
    conf_dir=$MINICLUSTER_DIR/etc
    pass_dir=$work/$1
}

# testsuite.conf (read by atf and by expect's globals) and globals.local
# of each pass: outside the source tree, named by SLURM_TESTSUITE_CONF and
# SLURM_LOCAL_GLOBALS_FILE
for m in "${modes[@]}"; do
    use_pass "$m"
    mkdir -p "$pass_dir"
    install -d -m 1777 "$work/expect/$m"
    cp -a "$suite_exp" "$pass_dir/expect" || fatal "cannot copy $suite_exp to $pass_dir/expect"
    cat >"$pass_dir/testsuite.conf" <<EOF
SlurmSourceDir=$tree
SlurmBuildDir=$build_dir
SlurmInstallDir=$slurm
SlurmConfigDir=$conf_dir
EOF
    cat >"$pass_dir/globals.local" <<EOF
set slurm_dir "$slurm"
set src_dir "$tree"
set build_dir "$build_dir"
set testsuite_shared_dir "$work/expect/$m"
set testsuite_user "$test_user"
set testsuite_cleanup_on_failure true
set testsuite_colorize false
set mpicc "/usr/bin/mpicc"
set scontrol "$work/bin/scontrol"
EOF
done
# Debian's own Slurm says "slurm-wlm 22.05.8" to scontrol -V, where the
# expect tests that compare the client's release with slurmctld's (test7.11,
# test7.24) read "slurm 22.05.8": they get a scontrol whose -V says so
# (for an upstream build it changes nothing)
{
    mkdir -p "$work/bin"
    cat >"$work/bin/scontrol" <<EOF
#!/bin/sh
# written by tests/slurm-suite/run.sh: $slurm/bin/scontrol, but -V as upstream prints it
if [ "\$#" -eq 1 ] && [ "\$1" = -V ]; then
    "$slurm/bin/scontrol" -V | sed 's/^slurm-wlm /slurm /'
else
    exec "$slurm/bin/scontrol" "\$@"
fi
EOF
    chmod 755 "$work/bin/scontrol"
}
client_env=()
cluster_up() {
    "$mc" down >>"$pass_dir/minicluster.log" 2>&1
    mkdir -p "$conf_dir"
    # the pass's plugstack, written before the daemons start: slurmd and
    # every slurmstepd read it
    case $1 in
        none | none2) : >"$conf_dir/plugstack.conf" ;;
        loaded) echo "required $so record_dir=$records" >"$conf_dir/plugstack.conf" ;;
        default) echo "required $so record_dir=$records default=auto:2d:5pt" >"$conf_dir/plugstack.conf" ;;
    esac
    "$mc" up >>"$pass_dir/minicluster.log" 2>&1 || return 1
    mapfile -t client_env < <("$mc" env | sed -n 's/^export //p' | grep -v '^PATH=')
    # the release's clients first, then the system's: the tests call
    # python3 and expect by name and need Debian's
    client_env+=("PATH=${mc_slurm:+$mc_slurm/bin:$mc_slurm/sbin:}/usr/sbin:/usr/bin:/sbin:/bin")
    # the pass tests what it says: srun --help lists --stencil-map exactly
    # when the plugin is loaded
    local listed=0
    mcenv srun --help 2>&1 | grep -q -- '--stencil-map' && listed=1
    case $1 in
        none | none2) [ "$listed" = 0 ] || { echo "$prog: the plugin is loaded in pass $1"; return 1; } ;;
        *) [ "$listed" = 1 ] || { echo "$prog: srun --help does not list --stencil-map in pass $1"; return 1; } ;;
    esac
}
all_down() {
    local m
    for m in "${modes[@]}"; do
        use_pass "$m"
        [ -d "$MINICLUSTER_DIR" ] && "$mc" down >>"$pass_dir/minicluster.log" 2>&1
    done
}
trap all_down EXIT
trap 'echo "$prog: interrupted" >&2; exit 130' INT TERM

mcenv() { env "${client_env[@]}" "$@"; }

# Between two tests: no job left, every node back to idle (a test may
# leave a node drained or a slurmd dead), the plugstack of the pass.
settle() { # MODE
    local want=$1 i
    mcenv scancel --user=root >/dev/null 2>&1
    mcenv scancel --user="$test_user" >/dev/null 2>&1
    for ((i = 0; i < 60; i++)); do
        [ -z "$(mcenv squeue -h -o %i 2>/dev/null)" ] && break
        sleep 1
    done
    if ! "$mc" status >/dev/null 2>&1; then
        echo "   (a daemon died: the cluster is restarted)"
        cluster_up "$want" || return 1
        return 0
    fi
    local bad
    bad=$(mcenv sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 !~ /^(idle|alloc|mix|comp)/ { print $1 }' | sort -u | paste -sd,)
    [ -n "$bad" ] && mcenv scontrol update nodename="$bad" state=resume >/dev/null 2>&1
    for ((i = 0; i < 30; i++)); do
        mcenv sinfo -h -N -o '%t' 2>/dev/null | grep -qv '^idle' || break
        sleep 1
    done
    # a test that edits plugstack.conf (test7.11) restores it itself; check
    local expect_line=""
    case $want in
        loaded) expect_line="required $so record_dir=$records" ;;
        default) expect_line="required $so record_dir=$records default=auto:2d:5pt" ;;
    esac
    if [ "$(cat "$conf_dir/plugstack.conf")" != "$expect_line" ]; then
        echo "   (plugstack.conf was left changed: restored)"
        printf '%s%s' "$expect_line" "${expect_line:+$'\n'}" >"$conf_dir/plugstack.conf"
    fi
}

run_one() { # MODE KIND NAME [RESULTS_FILE]
    local mode=$1 kind=$2 name=$3 into=${4:-$results/$1.tsv} t0=$SECONDS rc out
    local flat=${name//\//_}
    [ -n "${4:-}" ] && flat=$flat.rerun
    local log=$logs/$mode/$flat.log
    case $kind in
        python)
            (cd "$suite_py" && timeout -k 30 "$per_test" env "${client_env[@]}" \
                SLURM_TESTSUITE_CONF="$pass_dir/testsuite.conf" PYTHONDONTWRITEBYTECODE=1 \
                $py -m pytest -p no:cacheprovider -s -v --no-header --local-config \
                --basetemp="$work/pytest/$mode-${flat%.py}" \
                --junitxml="$logs/$mode/$flat.xml" "tests/$name") >"$log" 2>&1
            rc=$?
            if [ "$rc" -eq 124 ]; then
                out=$'failed\ttimed out (the harness\'s bound)'
            else
                out=$($py "$here/report.py" pytest "$logs/$mode/$flat.xml")
            fi
            ;;
        expect)
            (cd "$pass_dir/expect" && timeout -k 30 "$per_test" env "${client_env[@]}" \
                SLURM_TESTSUITE_CONF="$pass_dir/testsuite.conf" \
                SLURM_LOCAL_GLOBALS_FILE="$pass_dir/globals.local" expect "./$name") >"$log" 2>&1
            rc=$?
            out=$($py "$here/report.py" expect "$rc" "$log")
            ;;
    esac
    local status=${out%%$'\t'*} reason=${out#*$'\t'}
    printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - t0))" "$reason" >>"$into"
    printf '   %-16s %-8s %4d s  %s\n' "$name" "$status" "$((SECONDS - t0))" "$reason"
}

# ------------------------------------------------------------- the tests --
tests=()
while read -r kind name mark _; do
    case $kind in python | expect) ;; *) continue ;; esac
    [ "$set_name" = ci ] && [ "$mark" != ci ] && continue
    [[ $name =~ ${SLURM_SUITE_ONLY:-.} ]] || continue
    tests+=("$kind:$name")
done < <(sed 's/#.*//' "$list")
[ ${#tests[@]} -gt 0 ] || fatal "no test selected from $list"
echo "$prog: ${#tests[@]} tests of $list ($set_name), passes: ${modes[*]}"

# One pass, run in a subshell with its output to $base/pass-MODE.out and
# its exit status (0, or 1 when it could not run to its end: fatal) to
# $results/MODE.status.
run_pass() { # MODE
    local mode=$1 t_mode=$SECONDS t_up
    use_pass "$mode"
    mkdir -p "$logs/$mode"
    : >"$results/$mode.tsv"
    cluster_up "$mode" || { tail -40 "$pass_dir/minicluster.log"; fatal "the minicluster did not start ($mode)"; }
    t_up=$((SECONDS - t_mode))
    echo "== pass $mode (cluster up in $t_up s, ports from $MINICLUSTER_PORT_BASE): plugstack.conf: $(cat "$conf_dir/plugstack.conf")"
    for t in "${tests[@]}"; do
        settle "$mode" || fatal "the minicluster could not be restarted ($mode)"
        run_one "$mode" "${t%%:*}" "${t#*:}"
    done
    "$mc" down >>"$pass_dir/minicluster.log" 2>&1
    echo "== pass $mode: $((SECONDS - t_mode)) s"
}
echo "$prog: passes ${modes[*]}, $jobs at a time"
t_passes=$SECONDS
pids=()
for mode in "${modes[@]}"; do
    if [ "$jobs" -eq 1 ]; then
        # one at a time: its lines as they come
        (
            trap - EXIT
            run_pass "$mode"
            echo $? >"$results/$mode.status"
        ) 2>&1 | tee "$base/pass-$mode.out"
        continue
    fi
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    (
        trap - EXIT
        run_pass "$mode"
        echo $? >"$results/$mode.status"
    ) >"$base/pass-$mode.out" 2>&1 &
    pids+=($!)
done
[ ${#pids[@]} -eq 0 ] || wait "${pids[@]}"
for mode in "${modes[@]}"; do
    [ "$jobs" -eq 1 ] || cat "$base/pass-$mode.out"
    [ "$(cat "$results/$mode.status" 2>/dev/null)" = 0 ] || fatal "pass $mode did not run to its end"
done
echo "== passes: $((SECONDS - t_passes)) s"
# A difference must show twice: every test whose first run in a plugin pass
# differs from the baseline runs again there, and once more without the
# plugin (a baseline that fails now and then would otherwise be taken for
# the plugin's doing).
mapfile -t again < <($py "$here/report.py" diffs "$results" "${modes[@]}")
if [ ${#again[@]} -gt 0 ]; then
    echo "== run again: ${again[*]}"
    for mode in $(printf '%s\n' "${again[@]}" | cut -d' ' -f1 | sort -u) none; do
        [[ " ${modes[*]} " == *" $mode "* ]] || continue
        use_pass "$mode"
        cluster_up "$mode" || { tail -40 "$pass_dir/minicluster.log"; fatal "the minicluster did not start ($mode)"; }
        echo "== pass $mode again"
        for t in "${tests[@]}"; do
            if [ "$mode" = none ]; then
                printf '%s\n' "${again[@]}" | cut -d' ' -f2- | grep -qxF "${t#*:}" || continue
            else
                printf '%s\n' "${again[@]}" | grep -qxF "$mode ${t#*:}" || continue
            fi
            settle "$mode" || fatal "the minicluster could not be restarted ($mode)"
            run_one "$mode" "${t%%:*}" "${t#*:}" "$results/$mode.rerun.tsv"
        done
        "$mc" down >>"$pass_dir/minicluster.log" 2>&1
    done
fi

echo
echo "$prog: Slurm $version, ${#tests[@]} tests, ${#modes[@]} passes: $((SECONDS - start)) s in all"
# the default pass placed steps indeed: its audit records (the only pass
# whose steps the plugin acts on), and the tests whose logs show srun's
# summary line
if [ -d "$logs/default" ]; then
    placed_tests=$(grep -l -E 'stencil-map: [a-z]+, [0-9]+ ranks on [0-9]+ nodes' "$logs/default"/*.log 2>/dev/null |
        sed 's|.*/||; s|\.log$||; s|\.rerun$||' | sort -u)
    echo "$prog: the site default placed $(find "$records" -name '*.json' | wc -l) steps (audit records);" \
        "srun's summary line is in the logs of $(echo "$placed_tests" | grep -c .) tests:" \
        "$(echo "$placed_tests" | paste -sd' ')"
fi
echo "== Slurm $version: results (pass, FAIL, skip) per pass"
$py "$here/report.py" table "$results" "$allow" "${modes[@]}" | tee "$base/table.txt"
rc=${PIPESTATUS[0]}
# one count per test: failed when a plugin pass differs unexplained
ndiff=$(grep '^DIFFERENCE: ' "$base/table.txt" | cut -d: -f2 | sort -u | wc -l)
[ "$rc" -ne 0 ] && [ "$ndiff" -eq 0 ] && ndiff=1
echo "$((${#tests[@]} - ndiff)) passed, $ndiff failed"
[ "$rc" -eq 0 ]
