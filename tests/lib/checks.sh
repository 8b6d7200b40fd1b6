# SPDX-License-Identifier: GPL-2.0-or-later
# One counter for the scripts that check a list of facts (licence lines,
# exported symbols, packages): source it, call `check OK|FAIL DESCRIPTION
# [DETAIL]` once per fact, and end with checks_summary, which prints the
# "N passed, M failed" line run-all and automake read and fails when a
# fact did.  POSIX sh.
pass=0
fail=0
check() { # check OK|FAIL description [detail]
    if [ "$1" = OK ]; then
        pass=$((pass + 1)); echo "ok: $2"
    else
        fail=$((fail + 1)); echo "FAIL: $2${3:+ -- $3}"
    fi
}
checks_summary() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
