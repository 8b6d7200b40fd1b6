#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's main-job command, contrib/demo.sh, run as a newcomer would
# (it sets itself up, brings its own 4-node minicluster up and down), and
# its output checked: both launches reported every rank, the placed one
# where the plan says, stencil-map-verify agreed inside the job, and the
# MPI halo exchange ran on the blocked and the placed placement.
# Ends with "N passed, M failed".
#
# env: DEMO_DIR (/var/lib/stencilmap-demo-test), MINICLUSTER_PORT_BASE (23800)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
dir=${DEMO_DIR:-/var/lib/stencilmap-demo-test}
case $dir in /tmp*) echo "run.sh: DEMO_DIR must be outside /tmp" >&2; exit 2 ;; esac
mkdir -p "$dir"
out=$dir.out

passed=0
failed=0
check() { # NAME COMMAND...: one line per check
    if "${@:2}"; then
        echo "ok   $1"
        passed=$((passed + 1))
    else
        echo "FAIL $1"
        failed=$((failed + 1))
    fi
}
says() { grep -q -E -- "$1" "$out"; }

MINICLUSTER_DIR=$dir MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-23800} \
    "$top/contrib/demo.sh" </dev/null >"$out" 2>&1
rc=$?
sed 's/^/    | /' "$out" | tail -n 40

check demo-exit-0 test "$rc" -eq 0
check demo-blocked-summary says '^== blocked: srun -n48'
check demo-placed-summary says '^stencil-map: hyperplane, 48 ranks on 4 nodes, inter-node edges 28 \(blocked 40\)'
# the placed launch's ranks, as they reported their own nodes, scored by the CLI
check demo-placed-score says '^48 ranks on 4 nodes: inter-node edges 28, max per node 8'
check demo-blocked-score says '^48 ranks on 4 nodes: inter-node edges 40, max per node 14'
check demo-verify-ok says '^stencil-map-verify: OK hyperplane, 48 ranks on 4 nodes: J_sum planned 28 observed 28'
check demo-halo-blocked says 'halo: 48 ranks on 4 nodes, .*no placement, .* 40 inter-node messages per iteration'
check demo-halo-placed says 'halo: 48 ranks on 4 nodes, .*hyperplane, .* 28 inter-node messages per iteration'
check demo-halo-ok test "$(grep -c 'halo check ok' "$out")" -eq 2
check demo-records says '^audit records written: [1-9][0-9]* in '
# demo.sh brings its cluster down on exit: nothing of it may be left running
status=$(MINICLUSTER_DIR=$dir "$top/contrib/minicluster/minicluster" status 2>&1)
check demo-cluster-down grep -q '^minicluster: not running' <<<"$status"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
