#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The unit and integration tests once more, built with ASan+UBSan:
#   1. make check of a sanitized build (unit and CLI tests; not the bench's
#      whole runs, BENCH_TESTS=, which make check ran unsanitized), leak
#      detection on: a leak fails its test;
#   2. tests/integration/run.sh with SMC_SANITIZE=1: srun, salloc and
#      sbatch load the sanitized plugin (the build of 1., reused), the CLI
#      runs sanitized, every sanitizer report fails the run.
# Ends with "N passed, M failed" over both.
#
# env: SAN_ROOT (/var/lib/smc-san-*), MINICLUSTER_PORT_BASE (25800),
#      SAN_PLAIN_PREFIX and SAN_PLAIN_BUILD_ROOT: a plain build of this tree
#      (tests/integration/build.sh PREFIX with SMC_BUILD_ROOT) for
#      slurmstepd's plugin, reused instead of built again (run-all passes
#      the one its minicluster suites share); SAN_CHECK=0: build the
#      sanitized tree for 2. but leave out 1. (run-all ran that make
#      check sanitized already, inside make distcheck)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
root=${SAN_ROOT:-/var/lib/smc-san}
case $root in /tmp*) echo "run.sh: SAN_ROOT must be outside /tmp" >&2; exit 2 ;; esac

passed=0
failed=0

build=$root-check
. "$top/tests/lib/sanitizers.sh"
export SMC_CFLAGS=$SAN_CFLAGS SMC_LDFLAGS=$SAN_LDFLAGS
if ! SMC_BUILD_ROOT=$build "$top/tests/integration/build.sh" "$build-prefix" >"$root-check.log" 2>&1; then
    tail -30 "$root-check.log"
    echo "run.sh: the sanitized build failed"
    failed=$((failed + 1))
elif [ "${SAN_CHECK:-1}" = 0 ]; then
    echo "== the sanitized build: done (its make check: SAN_CHECK=0, run elsewhere)"
else
    echo "== make check, ASan+UBSan+LSan"
    log=$build/check.log
    env "${SAN_TEST_ENV[@]}" make -C "$build/obj" -j"$(nproc)" check BENCH_TESTS= >"$log" 2>&1
    rc=$?
    p=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^# \(FAIL\|ERROR\): *\([0-9]*\)$/\2/p' "$log" | awk '{s+=$1} END {print s+0}')
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    grep -E '^(PASS|FAIL|ERROR):' "$log"
    [ "$f" -gt 0 ] && grep -l -E 'ERROR: (Address|Leak)Sanitizer|runtime error' "$build"/obj/tests/*/*.log "$build"/obj/tests/*.log 2>/dev/null | head -5
    passed=$((passed + p))
    failed=$((failed + f))
fi
unset SMC_CFLAGS SMC_LDFLAGS

echo "== integration, sanitized plugin and CLI"
log=$root-integration.log
remote=()
if [ -n "${SAN_PLAIN_PREFIX:-}" ] && [ -n "${SAN_PLAIN_BUILD_ROOT:-}" ]; then
    remote=(SMC_REMOTE_PREFIX="$SAN_PLAIN_PREFIX" SMC_REMOTE_BUILD_ROOT="$SAN_PLAIN_BUILD_ROOT")
fi
# the sanitized build of the make check above (the same flags and prefix:
# build.sh finds it up to date)
env MINICLUSTER_DIR="$root" MINICLUSTER_PORT_BASE="${MINICLUSTER_PORT_BASE:-25800}" \
    SMC_PREFIX="$build-prefix" SMC_WORK="$root-work" SMC_BUILD_ROOT="$build" SMC_SANITIZE=1 \
    ${remote[@]+"${remote[@]}"} "$top/tests/integration/run.sh" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | tail -1)
f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | tail -1)
[ -z "$p" ] && { p=0; f=1; }
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
passed=$((passed + p))
failed=$((failed + f))

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
