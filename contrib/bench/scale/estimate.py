#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The planner's link model against the simulated time.

    estimate.py RESULTS_DIR [--bytes 262144] [--rate-gbps 100]

Reads RESULTS_DIR/plans.tsv, runs.tsv and links.tsv (run.sh writes them:
links.tsv holds `stencil-map score --topology --routing --uplinks`'s
L_max of every placement on every network) and prints, per network, how
far the time the model predicts -- 1.05 x L_max x one message's time on a
link (SimGrid adds 5 % cross-traffic back along every route; the model
leaves it out) -- lies from the simulated time (median and 90th
percentile of |estimate / time - 1|), and per case the default with the
topology (the levelled row: auto told the topology and links) against the
fastest placement, today's default without a topology (auto-max) and the
node plan.
"""
import argparse
import csv
import os
import statistics
import sys


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--bytes", type=int, default=262144)
    ap.add_argument("--rate-gbps", type=float, default=100.0)
    ap.add_argument("--cases", default="", help="only cases whose name starts with one of these (comma-separated)")
    a = ap.parse_args()
    try:
        plans = read(os.path.join(a.results, "plans.tsv"))
        runs = read(os.path.join(a.results, "runs.tsv"))
        links = read(os.path.join(a.results, "links.tsv"))
    except OSError as e:
        print("estimate: %s" % e, file=sys.stderr)
        return 2
    prefixes = tuple(p for p in a.cases.split(",") if p)
    msg_us = a.bytes * 8 / (a.rate_gbps * 1e3)  # one message on one link, in us
    us = {(r["case"], r["network"], r["hosts_md5"]): float(r["time_us"]) for r in runs}
    lmax = {(l["case"], l["network"], l["alg"]): float(l["l_max"]) for l in links}
    # (case, network) -> {alg: (us, model L_max)}
    table = {}
    for p in plans:
        if prefixes and not p["case"].startswith(prefixes):
            continue
        nets = {l["network"] for l in links if l["case"] == p["case"]} if p["network"] == "*" else {p["network"]}
        for n in nets:
            t = us.get((p["case"], n, p["hosts_md5"]))
            m = lmax.get((p["case"], n, p["alg"]))
            if t is not None and m is not None:
                table.setdefault((p["case"], n), {})[p["alg"]] = (t, m)
    out = ["The link model's estimate (1.05 x L_max x %.2f us) against the simulated time" % msg_us]
    for n in sorted({k[1] for k in table}):
        errs, seen = [], set()
        for (c, net), rows in table.items():
            if net != n:
                continue
            for alg, (t, m) in rows.items():
                if (c, t) in seen:  # one placement simulated once
                    continue
                seen.add((c, t))
                errs.append(abs(1.05 * m * msg_us / t - 1))
        errs.sort()
        out.append("  %-16s %3d placements: error median %5.1f %%, p90 %5.1f %%, max %5.1f %%" % (
            n, len(errs), 100 * statistics.median(errs), 100 * errs[min(len(errs) - 1, int(0.9 * len(errs)))],
            100 * errs[-1]))
    out += ["", "Per case: us of the default with the topology (levelled), the fastest placement, "
            "auto without a topology (auto-max) and the node plan; x = levelled's time / fastest's"]
    out.append("  %-16s %-16s %9s %9s %-12s %9s %6s" % ("case", "network", "levelled", "fastest", "(which)",
                                                         "auto-max", "x"))
    for (c, n) in sorted(table):
        rows = table[(c, n)]
        if "levelled" not in rows:
            continue
        best = min(rows.items(), key=lambda kv: kv[1][0])
        lv, am = rows["levelled"][0], rows.get("auto-max", (float("nan"),))[0]
        out.append("  %-16s %-16s %9.1f %9.1f %-12s %9.1f %6.3f" % (c, n, lv, best[1][0], best[0], am,
                                                                    lv / best[1][0]))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
