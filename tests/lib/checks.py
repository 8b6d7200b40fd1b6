# SPDX-License-Identifier: GPL-2.0-or-later
"""checks.sh for the tests written in Python: the same lines ("ok: WHAT",
"FAIL: WHAT -- DETAIL") and the same closing "N passed, M failed".
Import it with sys.path.insert(0, TOP + "/tests/lib"); end with
sys.exit(summary())."""

passed = failed = 0


def check(ok, what, detail=""):
    """records one fact; returns ok so a caller may go on from it"""
    global passed, failed
    if ok:
        passed += 1
        print("ok: %s" % what)
    else:
        failed += 1
        print("FAIL: %s%s" % (what, " -- " + str(detail)[:400] if str(detail) else ""))
    return ok


def summary():
    """prints the closing line; the exit status for automake's harness"""
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0
