#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Outcomes and the result table of tests/slurm-suite/run.sh.

  report.py pytest JUNIT.xml          -> "STATUS<TAB>REASON" of one test file
  report.py expect RC LOG             -> the same for one expect test
  report.py diffs RESULTS MODE...       -> "MODE TEST" for each first-run
                                         difference, to be run again
  report.py table RESULTS ALLOW MODE... -> the table; exit 1 when loaded
                                         differs from none, or site default
                                         differs where the allow-list does
                                         not say why

RESULTS holds MODE.tsv per mode (test, status, seconds, reason) and
MODE.rerun.tsv with the runs repeated after a first-run difference.  The
baseline is every mode named none*, reruns included.  A plugin mode differs
from it when none of its runs of a test gave a status the baseline gave: a
difference must show in the first run and again in the rerun.  A test
whose runs in one mode disagree (in any mode, the baseline's included) is
flaky: it is listed with every run, and no difference is counted for it.
"""
import re
import sys
import xml.etree.ElementTree as ET


def one_line(text, limit=160):
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def pytest_outcome(path):
    """A test file passes when none of its test functions failed and at
    least one passed; it is skipped when every one was skipped."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        return "failed", f"no junit report ({e.__class__.__name__})"
    passed, failed, skipped = [], [], []
    for case in root.iter("testcase"):
        name = case.get("name", "?")
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        skip = case.find("skipped")
        if bad is not None:
            failed.append((name, bad.get("message") or bad.text or ""))
        elif skip is not None:
            skipped.append((name, skip.get("message") or skip.text or ""))
        else:
            passed.append(name)
    if failed:
        name, msg = failed[0]
        return "failed", one_line(f"{name}: {msg}")
    if passed:
        return "passed", ""
    if skipped:
        return "skipped", one_line(skipped[0][1])
    return "failed", "no test collected"


def expect_outcome(rc, log):
    """Slurm's own rule (testsuite/expect/regression.py): exit 0 passed,
    above 127 skipped, anything else failed; the reason is the first
    Fatal, subtest Error or skip Warning of the log."""
    rc = int(rc)
    try:
        text = open(log, errors="replace").read()
    except OSError:
        text = ""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    status = "passed" if rc == 0 else "skipped" if rc > 127 else "failed"
    if rc == 124:
        return "failed", "timed out (the harness's bound)"
    reason = ""
    patterns = {
        "failed": [r"Fatal\s*:?\s*(.*?) \(fail", r"Error\s*:?\s*(.*?) \(subfail"],
        "skipped": [r"Warning\s*:?\s*(.*?) \((?:sub)?skip"],
    }
    for pat in patterns.get(status, []):
        m = re.search(pat, text, re.S)  # a message may span lines
        if m:
            reason = one_line(m.group(1))
            break
    if status == "failed" and not reason:
        reason = f"exit {rc}"
    return status, reason


def read_mode(results, mode):
    """test -> list of (status, seconds, reason), the first run first"""
    rows = {}
    for name in (f"{results}/{mode}.tsv", f"{results}/{mode}.rerun.tsv"):
        try:
            with open(name) as f:
                for line in f:
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) >= 3:
                        rows.setdefault(parts[0], []).append(
                            (parts[1], parts[2], parts[3] if len(parts) > 3 else ""))
        except OSError:
            pass
    return rows


def compare(data, modes):
    """(order, base set per test, differing (test, mode) pairs, flaky tests)"""
    order = []
    for m in modes:
        for t in data[m]:
            if t not in order:
                order.append(t)
    base = [m for m in modes if m.startswith("none")]
    base_set = {t: {r[0] for m in base for r in data[m].get(t, [])} for t in order}
    differing = []
    flaky = []
    for t in order:
        if any(len({r[0] for r in data[m].get(t, [])}) > 1 for m in modes):
            flaky.append(t)
        elif len({data[m][t][0][0] for m in base if t in data[m]}) > 1:
            flaky.append(t)
        for m in modes:
            if m in base or not data[m].get(t) or not base_set[t] or t in flaky:
                continue
            if all(r[0] not in base_set[t] for r in data[m][t]):
                differing.append((t, m))
    return order, base_set, differing, flaky


def read_allow(path):
    allow = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    name, _, why = line.partition(" ")
                    allow[name] = why.strip()
    except OSError:
        pass
    return allow


def table(results, allow_path, modes):
    data = {m: read_mode(results, m) for m in modes}
    allow = read_allow(allow_path)
    order, base_set, differing, flaky = compare(data, modes)
    short = {"passed": "pass", "failed": "FAIL", "skipped": "skip"}
    width = max([len(t) for t in order] + [4])
    print(f"{'test':<{width}}  " + "  ".join(f"{m:<8}" for m in modes) + "  note")
    diffs = {m: 0 for m in modes}
    allowed_used = 0
    unexplained = []
    for t in order:
        notes = []
        if t in flaky:
            notes.append("flaky: its runs disagree, not counted")
        for m in modes:
            if (t, m) not in differing:
                continue
            diffs[m] += 1
            if m == "default" and t in allow:
                allowed_used += 1
                notes.append(f"default differs, allowed: {allow[t]}")
            else:
                notes.append(f"{m} differs from none")
                unexplained.append((t, m))
        cells = []
        for m in modes:
            runs = data[m].get(t, [])
            cell = "+".join(short[r[0]] for r in runs) if runs else "-"
            cells.append(f"{cell:<8}")
        reasons = []
        for m in modes:
            for s, _, why in data[m].get(t, []):
                if why and s != "passed" and f"{m}: {why}" not in reasons:
                    reasons.append(f"{m}: {why}")
        notes += reasons
        print(f"{t:<{width}}  " + "  ".join(cells) + ("  " + " | ".join(notes) if notes else ""))
    for m in modes:
        firsts = [v[0] for v in data[m].values()]
        secs = sum(float(v[1]) for v in firsts if v[1])
        counts = {k: sum(1 for v in firsts if v[0] == k) for k in ("passed", "failed", "skipped")}
        print(f"pass {m}: {counts['passed']} passed, {counts['failed']} failed, "
              f"{counts['skipped']} skipped in {secs:.0f} s")
    for t in sorted(set(allow) - set(order)):
        print(f"note: allow-list entry {t} names no test of this run")
    for t in sorted(set(allow) & set(order)):
        if (t, "default") not in differing and "default" in modes:
            print(f"note: allow-list entry {t}: site default did not differ this time")
    if flaky:
        print(f"flaky (runs disagree): {' '.join(flaky)}")
    for t, m in unexplained:
        print(f"DIFFERENCE: {t}: {m} gives {'/'.join(r[0] for r in data[m][t])}, "
              f"none gives {'/'.join(sorted(base_set[t]))}")
    return order, diffs, allowed_used, unexplained


def main(argv):
    if len(argv) >= 2 and argv[1] == "pytest":
        print("\t".join(pytest_outcome(argv[2])))
        return 0
    if len(argv) >= 4 and argv[1] == "expect":
        print("\t".join(expect_outcome(argv[2], argv[3])))
        return 0
    if len(argv) >= 4 and argv[1] == "diffs":
        modes = argv[3:]
        data = {m: read_mode(argv[2], m) for m in modes}
        for t, m in compare(data, modes)[2]:
            print(m, t)
        return 0
    if len(argv) >= 5 and argv[1] == "table":
        order, diffs, allowed, unexplained = table(argv[2], argv[3], argv[4:])
        # the summary line the issue asks for, last but one
        print(f"slurm-suite: {len(order)} tests; loaded vs none: {diffs.get('loaded', 0)} "
              f"differences; site default vs none: {diffs.get('default', 0)} differences "
              f"({allowed} allowed)")
        return 1 if unexplained else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
