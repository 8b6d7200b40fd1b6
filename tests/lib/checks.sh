# SPDX-License-Identifier: GPL-2.0-or-later
# The one counter of the shell tests (make check's scripts, the package
# checks): source it, record each fact with
#   check OK|FAIL DESCRIPTION [DETAIL]   a fact computed beforehand
#   pass DESCRIPTION                     a fact that held
#   fail DESCRIPTION [DETAIL]            a fact that did not
#   check_cmd DESCRIPTION COMMAND...     COMMAND's exit status is the fact
# and end with checks_summary, which prints the "N passed, M failed" line
# run-all and the suites' readers take, and fails when a fact did
# (automake's harness reads that exit status).  POSIX sh; the counters are
# $pass and $fail (variables and functions live apart in sh).
pass=0
fail=0
check() { # check OK|FAIL description [detail]
    if [ "$1" = OK ]; then
        pass=$((pass + 1)); echo "ok: $2"
    else
        fail=$((fail + 1)); echo "FAIL: $2${3:+ -- $3}"
    fi
}
pass() { check OK "$1"; }
fail() { check FAIL "$1" "${2:-}"; }
check_cmd() { # check_cmd DESCRIPTION COMMAND...
    _checks_desc=$1
    shift
    if "$@"; then check OK "$_checks_desc"; else check FAIL "$_checks_desc"; fi
}
checks_summary() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
