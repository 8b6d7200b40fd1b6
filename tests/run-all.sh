#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite, from a bare Debian 12 machine: installs what it
# needs, builds and installs stencilmap, then runs the unit and CLI tests
# (make check), and the suites that start their own local Slurm cluster.
# Then the integration, in-job, audit, learned and topology suites again on
# each newer Slurm release (STENCILMAP_SLURM_RELEASES, default "24.11.5
# 26.05.3").  Ends with one "N passed, M failed" line over every suite, and
# the time each took.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

"$top/contrib/install-deps.sh" || { echo "run-all: installing dependencies failed" >&2; exit 1; }
"$top/contrib/build.sh" || { echo "run-all: build failed" >&2; exit 1; }
build=${STENCILMAP_BUILD_DIR:-$top/_build}

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

run_suite() {
    local name=$1; shift
    local log="$log_dir/$name.log"
    local t0=$SECONDS
    echo "== $name"
    "$@" 2>&1 | tee "$log"
    tally "$name" "${PIPESTATUS[0]}" "$log"
    timings+=("$name $((SECONDS - t0)) s")
}
timings=()

run_suite unit make -C "$build" check
# The release path: make distcheck (a tarball that builds, checks and
# installs into a scratch prefix); the Debian packages built, linted,
# installed and used to place a step on a minicluster, then purged, in a
# mount namespace whose /usr/local is empty, as on a site's machine with
# the packages only (this tree's own install into /usr/local would shadow
# the packaged libraries: ld.so searches /usr/local/lib first); and the
# RPM spec built to binary RPMs.
run_suite distcheck make -C "$build" distcheck
run_suite package unshare --mount --propagation private -- sh -c \
    'mount -t tmpfs tmpfs /usr/local && exec "$@"' sh \
    env PKG_WORK="$build/package" PKG_SMOKE=1 PKG_PURGE=1 \
    MINICLUSTER_DIR=/var/lib/smc-package-mc MINICLUSTER_PORT_BASE=19500 "$top/tests/package/run.sh"
run_suite rpm env RPM_WORK="$build/rpm" "$top/tests/package/rpm.sh"
# the suites that start their own minicluster (netns: nodes behind shaped
# links; demo: the README's main-job command), then the sanitized rerun and
# a short bounded fuzzing of the parsers and the planning path
for suite in integration injob audit topology profile app learned launchers reliability netns demo sanitize; do
    [ -x "$top/tests/$suite/run.sh" ] || { echo "run-all: tests/$suite/run.sh missing" >&2; exit 1; }
    run_suite "$suite" "$top/tests/$suite/run.sh"
done
run_suite fuzz env FUZZ_SECONDS="${FUZZ_SECONDS:-20}" FUZZ_WORK_DIR="$build/fuzz" "$top/tests/fuzz/run.sh"
# the plugin built for, and run on, the newer Slurm releases: 24.11.5 from
# Debian's source package, 26.05.3 from the upstream tarball kept beside
# the checkout in ../shared/slurm (built once, then reused: see
# contrib/slurm/build-slurm.sh); 22.05.8 ran every suite above
for v in ${STENCILMAP_SLURM_RELEASES:-24.11.5 26.05.3}; do
    run_suite "slurm-$v" "$top/tests/slurm-versions/run.sh" "$v" integration injob audit learned topology
done
# Slurm's own srun/sbatch/salloc tests with the plugin not loaded, loaded,
# and loaded with a site default=, compared test by test: the subset marked
# ci in tests/slurm-suite/ (make check-slurm-suite runs them all), on
# Debian 12's 22.05.8 and on 24.11.5
for v in 22.05.8 24.11.5; do
    run_suite "slurm-suite-$v" env SLURM_SUITE_SET=ci "$top/tests/slurm-suite/run.sh" "$v"
done

echo
echo "time per suite: ${timings[*]/%/,} $SECONDS s in all (install and build included)"
if [ ${#failed_suites[@]} -gt 0 ]; then
    echo "failed suites: ${failed_suites[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
