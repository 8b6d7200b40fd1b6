#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite, from a bare Debian 12 machine: installs what it
# needs, builds and installs stencilmap, then runs the unit and CLI tests
# (make check, inside make distcheck), and the suites that start their own
# local Slurm cluster.
# Then the suites whose path differs between Slurm releases again on each
# newer release (STENCILMAP_SLURM_RELEASES, default "24.11.5 26.05.3"):
# the newest runs integration, in-job, audit and topology; 24.11.5 runs
# integration and topology, then Slurm's own tests.  Ends with one
# "N passed, M failed" line over every suite, and the time each took.
#
# Where the time goes (issue 38; the list at the end gives each suite's
# wall and CPU time).  Before these measures, on a warm 2-core machine:
# 2,900 to 3,100 s, of which Slurm's own tests 475 + 480 s (four passes
# each, one after the other), sanitize 360, the two newer releases 230 to
# 260 each, distcheck 171, make check 141, and the rest 12 min; a fresh
# machine added the two Slurm builds (160 and about 180 s of wall, 210 and
# 227 s of CPU) for about 65 min.  Repeated work that is gone: the unit
# tests ran three times (make check, make distcheck, the package build's
# dh_auto_test; 170 s of CPU each), the tree was built nine times for the
# minicluster suites on 22.05.8 and twice more for Slurm's own tests and
# twice for sanitize (33 s of CPU a build; 1.5 s to find one up to date),
# rpm.sh made its own tarball, Slurm's builds waited for nothing, and the
# four passes of Slurm's own tests (20 s of CPU in 110 to 140 s each) ran
# one after the other.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

"$top/contrib/install-deps.sh" || { echo "run-all: installing dependencies failed" >&2; exit 1; }
"$top/contrib/build.sh" || { echo "run-all: build failed" >&2; exit 1; }
build=${STENCILMAP_BUILD_DIR:-$top/_build}
# Debian's python3 (installed above) ahead of any other in PATH: the tests
# start python3 thousands of times, and a version manager's shim first in
# PATH (pyenv's, on this project's CI machines) costs 0.45 s of wall a
# start against 0.07 s (cli/test_cli.sh: 80 s of wall, 21 s with Debian's)
first_python=$(command -v python3 || true)
if [ -x /usr/bin/python3 ] && [ "$first_python" != /usr/bin/python3 ]; then
    mkdir -p "$build/debian-python"
    ln -sfn /usr/bin/python3 "$build/debian-python/python3"
    export PATH="$build/debian-python:$PATH"
    echo "run-all: python3 is Debian's /usr/bin/python3 (first in PATH was ${first_python:-none})"
fi

passed=0
failed=0
failed_suites=()
log_dir="$build/test-logs"
mkdir -p "$log_dir"

# Adds a suite's counts from its closing lines (automake's "# PASS:" /
# "# FAIL:" or our "N passed, M failed"); a suite that dies without either
# counts as one failure.
tally() {
    local name=$1 rc=$2 log=$3 p f
    # automake prints one summary per directory with tests: add them all
    p=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$log" | awk '{s+=$1} END {if (NR) print s}')
    f=$(sed -n 's/^# \(FAIL\|ERROR\|XPASS\): *\([0-9]*\)$/\2/p' "$log" | awk '{s+=$1} END {if (NR) print s}')
    if [ -z "$p" ]; then
        p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*$/\1/p' "$log" | tail -n1)
        f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*$/\2/p' "$log" | tail -n1)
    fi
    if [ -z "$p" ]; then p=0; f=1; fi
    [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && f=1
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then failed_suites+=("$name"); fi
    echo "== $name: $p passed, $f failed (exit $rc; log $log)"
}

# Each suite's wall time, and its CPU time (user+sys of the suite's
# processes, from /usr/bin/time; not that of the daemons its minicluster
# started, which leave its process tree, nor of the background build).

run_suite() {
    local name=$1; shift
    local log="$log_dir/$name.log"
    local t0=$SECONDS tf cpu=""
    tf=$(mktemp)
    echo "== $name"
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -o "$tf" -f "%U %S" "$@" 2>&1 | tee "$log"
    else
        "$@" 2>&1 | tee "$log"
    fi
    tally "$name" "${PIPESTATUS[0]}" "$log"
    # (after "Command exited with non-zero status N", when it did)
    cpu=$(tail -n1 "$tf" | awk 'NF == 2 { printf " (cpu %d s)", $1 + $2 + 0.5 }')
    rm -f "$tf"
    timings+=("$name $((SECONDS - t0)) s$cpu")
}
timings=()

# run_suite_quiet NAME CMD...: a suite run beside another (in a background
# stream): its output only to its log, its exit status, wall and CPU time
# to files beside it, for report_quiet NAME to print and count afterwards.
run_suite_quiet() {
    local name=$1; shift
    local t0=$SECONDS rc
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -o "$log_dir/$name.cpu" -f "%U %S" "$@" >"$log_dir/$name.log" 2>&1
    else
        "$@" >"$log_dir/$name.log" 2>&1
    fi
    rc=$?
    echo "$rc $((SECONDS - t0))" >"$log_dir/$name.rc"
}
report_quiet() {
    local name=$1 log="$log_dir/$1.log" rc=1 wall=0 cpu=""
    echo "== $name (ran beside the suite above)"
    [ -f "$log" ] && cat "$log"
    [ -f "$log_dir/$name.rc" ] && read -r rc wall <"$log_dir/$name.rc"
    : >>"$log"
    tally "$name" "$rc" "$log"
    [ -f "$log_dir/$name.cpu" ] &&
        cpu=$(tail -n1 "$log_dir/$name.cpu" | awk 'NF == 2 { printf " (cpu %d s)", $1 + $2 + 0.5 }')
    timings+=("$name $wall s$cpu, beside")
}

# The newer Slurm releases are built (contrib/slurm/build-slurm.sh, about
# 3.5 min of CPU each; a finished build is reused) in the background, at
# the lowest priority, while the suites on Debian 12's own 22.05.8 run:
# those wait on daemons and sleeps most of the time.  Their build
# dependencies are installed first, here: apt in the background would
# contend with the package suite's dpkg -i for dpkg's lock.  The builds are
# joined before the first suite that needs them; one that failed is tried
# again there by that suite's own call of build-slurm.sh, which then fails
# the suite, loudly.
releases=${STENCILMAP_SLURM_RELEASES:-24.11.5 26.05.3}
slurm_builds_pid=""
if [ -n "$releases" ]; then
    for v in $releases; do
        "$top/contrib/slurm/build-slurm.sh" --deps-only "$v" ||
            echo "run-all: the build dependencies of Slurm $v could not be installed"
    done
    (
        for v in $releases; do
            t=$SECONDS
            if [ -x /usr/bin/time ]; then
                nice -n 19 /usr/bin/time -f "run-all: Slurm $v: %U s user, %S s sys" \
                    "$top/contrib/slurm/build-slurm.sh" "$v"
            else
                nice -n 19 "$top/contrib/slurm/build-slurm.sh" "$v"
            fi
            echo "run-all: build-slurm.sh $v: exit $?, $((SECONDS - t)) s"
        done
    ) >"$log_dir/slurm-builds.log" 2>&1 &
    slurm_builds_pid=$!
    echo "run-all: building Slurm $releases in the background (pid $slurm_builds_pid, log $log_dir/slurm-builds.log)"
fi
join_slurm_builds() {
    [ -n "$slurm_builds_pid" ] || return 0
    local t0=$SECONDS
    wait "$slurm_builds_pid"
    slurm_builds_pid=""
    cat "$log_dir/slurm-builds.log"
    timings+=("waiting for the Slurm builds $((SECONDS - t0)) s")
}

# The unit and CLI tests run once, inside make distcheck, sanitized: on
# the build of the release tarball, configured with ASan+UBSan (leaks
# fail a test, as does any report) and built out of its tree (a file the
# tarball lacks fails them there; the tree's own make check would not
# see it), with automake's parallel harness, one test per CPU; the
# bench's whole runs (BENCH_TESTS: 265 s of CPU under ASan) then run
# unsanitized in the plain build.  Each test's time goes to its log and
# to $log_dir/unit-times.txt.  Then the
# Debian packages built (without their make check: the same commit's tests
# ran just now; DEB_BUILD_OPTIONS=nocheck), linted, installed and used to
# place a step on a minicluster, then purged, in a mount namespace whose
# /usr/local is empty, as on a site's machine with the packages only (this
# tree's own install into /usr/local would shadow the packaged libraries:
# ld.so searches /usr/local/lib first); and the RPM spec built to binary
# RPMs from the tarball distcheck checked.
timed_driver="bash $top/tests/lib/timed-test-driver \$(SHELL) \$(top_srcdir)/build-aux/test-driver"
. "$top/tests/lib/sanitizers.sh"
bench_tests=$(make -s -C "$build/tests" -f Makefile -f - print-bench <<<'print-bench: ; @echo $(BENCH_TESTS)')
rm -f "$log_dir/unit-times.txt" "$build"/stencilmap-*.tar.gz
run_suite unit+distcheck env STENCILMAP_TEST_TIMES="$log_dir/unit-times.txt" "${SAN_TEST_ENV[@]}" \
    make -C "$build" -j"$(nproc)" distcheck BENCH_TESTS= \
    "DISTCHECK_CONFIGURE_FLAGS=CFLAGS='$SAN_CFLAGS' LDFLAGS='$SAN_LDFLAGS'" \
    "LOG_DRIVER=$timed_driver" "SH_LOG_DRIVER=$timed_driver"
run_suite bench-check env STENCILMAP_TEST_TIMES="$log_dir/unit-times.txt" \
    make -C "$build/tests" -j"$(nproc)" check "TESTS=$bench_tests" \
    "LOG_DRIVER=$timed_driver" "SH_LOG_DRIVER=$timed_driver"
sort -k2 -g -r "$log_dir/unit-times.txt" 2>/dev/null | head -n 8 |
    awk 'BEGIN { printf "unit: the longest tests (wall s, cpu s):" } { printf " %s %s %s,", $1, $2, $3 } END { print "" }'
run_suite package unshare --mount --propagation private -- sh -c \
    'mount -t tmpfs tmpfs /usr/local && exec "$@"' sh \
    env PKG_WORK="$build/package" PKG_SMOKE=1 PKG_PURGE=1 PKG_NOCHECK=1 DEB_BUILD_OPTIONS="parallel=$(nproc)" \
    MINICLUSTER_DIR=/var/lib/smc-package-mc MINICLUSTER_PORT_BASE=19500 "$top/tests/package/run.sh"
tarball=$(ls -t "$build"/stencilmap-*.tar.gz 2>/dev/null | head -n 1)
run_suite rpm env RPM_WORK="$build/rpm" "$top/tests/package/rpm.sh" ${tarball:+"$tarball"}
# the suites that start their own minicluster (netns: nodes behind shaped
# links; demo: the README's main-job command), then the sanitized rerun and
# a short bounded fuzzing of the parsers and the planning path.  Those
# that build stencilmap against 22.05.8 share one build (one staging
# prefix and build root, each suite's own variables): the first builds
# it, the others find it up to date, as tests/slurm-versions does.
shared=/var/lib/smc-ci-22.05
shared_build=()
for v in SMC INJOB AUDIT TOPO PROFILE APP LEARNED LAUNCHERS MPIX REL; do
    shared_build+=("${v}_PREFIX=$shared/prefix" "${v}_BUILD_ROOT=$shared/build")
done
# (sanitize: its slurmstepd's plain plugin)
shared_build+=(SAN_PLAIN_PREFIX="$shared/prefix" SAN_PLAIN_BUILD_ROOT="$shared/build")
# (sanitize: its make check ran sanitized in the distcheck above)
shared_build+=(SAN_CHECK=0)
for suite in integration injob audit topology profile app learned launchers mpix reliability netns demo sanitize; do
    [ -x "$top/tests/$suite/run.sh" ] || { echo "run-all: tests/$suite/run.sh missing" >&2; exit 1; }
    [ "$suite" = demo ] && continue # beside the fuzzing, below
    run_suite "$suite" env "${shared_build[@]}" "$top/tests/$suite/run.sh"
done
# The demo beside the fuzzing: the fuzzers compile and run on one core
# (clang, then libFuzzer), the demo's 4-node cluster waits on its steps
# most of the time (16 s of CPU in 166 s), and they share nothing: the
# demo installs this tree into /usr/local, the fuzzers build their own
# binaries in $build/fuzz.
rm -f "$log_dir/demo.rc" "$log_dir/demo.cpu"
run_suite_quiet demo "$top/tests/demo/run.sh" &
demo_pid=$!
run_suite fuzz env FUZZ_SECONDS="${FUZZ_SECONDS:-20}" FUZZ_WORK_DIR="$build/fuzz" "$top/tests/fuzz/run.sh"
t_wait=$SECONDS
wait "$demo_pid"
timings+=("waiting for the demo $((SECONDS - t_wait)) s")
report_quiet demo
# The plugin built for, and run on, the newer Slurm releases: 24.11.5 from
# Debian's source package, 26.05.3 from the upstream tarball kept beside
# the checkout in ../shared/slurm (built above in the background, or
# reused: see contrib/slurm/build-slurm.sh); 22.05.8 ran every suite above.
# Each release runs the suites whose path differs between releases: the
# newest runs integration (srun, sbatch, salloc, the allocation lookup),
# in-job (PMIx), audit and topology (topology.yaml is 25.05+); 24.11.5 runs
# integration and topology (its topology reply is the 23.11-24.11 one,
# behind the topology plugin), then Slurm's own srun/sbatch/salloc tests,
# which ship in its source, with the plugin not loaded, loaded, and loaded
# with a site default=, compared test by test (the tests marked ci in
# tests/slurm-suite/; a test that differs runs again there and once more
# without the plugin, so CI leaves out the fourth, flakiness pass, none2:
# make check-slurm-suite runs them all, on any release).
# `tests/slurm-versions/run.sh VERSION SUITE...` runs any other suite on
# either release.  Measured (issue 38): the two releases' suites at the
# same time took as long as one after the other (each twice as slow: the
# daemons and MPI ranks share two cores), so they run one after the other.
join_slurm_builds
versions_root=/var/lib/smc-slurm
newest=${releases##* }
for v in $releases; do
    if [ "$v" = "$newest" ]; then
        suites=(integration injob audit topology)
    else
        suites=(integration topology)
    fi
    run_suite "slurm-$v" env SMC_VERSIONS_ROOT="$versions_root" \
        "$top/tests/slurm-versions/run.sh" "$v" "${suites[@]}"
done
# (with the plugin slurm-versions built for 24.11.5 when 24.11.5 was one of
# the releases; else the suite builds it)
run_suite slurm-suite-24.11.5 env SLURM_SUITE_SET=ci SLURM_SUITE_MODES="none loaded default" \
    SLURM_SUITE_PREFIX="$versions_root/24.11.5/prefix" \
    SLURM_SUITE_BUILD_ROOT="$versions_root/24.11.5/build" "$top/tests/slurm-suite/run.sh" 24.11.5

echo
echo "time per suite: ${timings[*]/%/,} $SECONDS s in all (install and build included)"
if [ ${#failed_suites[@]} -gt 0 ]; then
    echo "failed suites: ${failed_suites[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
