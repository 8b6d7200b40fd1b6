#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check's part of issue 37's rank 0: the in-job plan keeps comm's
# rank 0 as the grid's rank 0 when exchanging two equal nodes costs
# nothing, and says so when it cannot (plan_rank0.c, on made-up nodes).
# env (from Makefile.am): PLAN_RANK0
. "${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib/checks.sh"

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
env -u STENCIL_MAP_LEVEL_NODES -u STENCIL_MAP_LEVELS "$PLAN_RANK0" >"$d/out" 2>&1
rc=$?
cat "$d/out"
check_cmd "plan_rank0: every case passed" sh -c "[ $rc -eq 0 ] && grep -q '^ok ' '$d/out' && ! grep -q '^FAIL' '$d/out'"
checks_summary
