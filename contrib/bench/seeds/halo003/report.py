#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The table of seed 003's halo benchmark on the netns minicluster
(halo003/run.sh): per base ratio and method, the dims, J_sum/J_max (bytes
per exchange between nodes), the median over repetitions of each run's
median time per exchange, their spread (max - min over min), and the
speedup over MPI_Dims_create +
MPI_Cart_create (dims).  A ratio whose dims run is missing gets no speedup.
"""
import argparse
import csv
import statistics
import sys

METHODS = [("dims", "MPI_Dims_create + MPI_Cart_create(reorder=0), blocked"),
           ("reorder", "the same, reorder=1 with libstencilmap-reorder"),
           ("weighted", "MPIX_Cart_weighted_create (data grid weights)")]


def load(path):
    runs = {}
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            try:
                key = (row["ratio"], row["method"])
                runs.setdefault(key, []).append(row)
                float(row["median_us"])
            except (KeyError, ValueError) as e:
                sys.exit("report.py: %s: bad row %r (%s)" % (path, row, e))
    return runs


def fields(rows):
    """dims and J of a method's runs (the same in every run, or all shown)."""
    def one(name):
        vals = sorted({r[name] for r in rows})
        return "/".join(vals)
    return one("dims"), one("j_sum"), one("j_max")


def table(runs, note):
    out = ["# Seed 003's halo benchmark on the netns minicluster", "",
           note, "",
           "| ratio | method | dims | J_sum / J_max (B per exchange) | median us per exchange | spread | speedup vs dims | runs |",
           "|---|---|---|---|---|---|---|---|"]
    ratios = []
    for ratio, _ in runs:
        if ratio not in ratios:
            ratios.append(ratio)
    for ratio in ratios:
        base = None
        if (ratio, "dims") in runs:
            base = statistics.median(float(r["median_us"]) for r in runs[(ratio, "dims")])
        for method, what in METHODS:
            rows = runs.get((ratio, method))
            if not rows:
                continue
            ts = [float(r["median_us"]) for r in rows]
            t = statistics.median(ts)
            spread = "%.0f %%" % (100 * (max(ts) - min(ts)) / min(ts)) if min(ts) > 0 else "-"
            dims, jsum, jmax = fields(rows)
            speed = "%.2f" % (base / t) if base else "-"
            out.append("| %s | %s | %s | %s / %s | %.0f | %s | %s | %d |"
                       % (ratio, what, dims, jsum, jmax, t, spread, speed, len(rows)))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--note", default="")
    a = ap.parse_args()
    runs = load(a.runs)
    if not runs:
        sys.exit("report.py: %s holds no runs" % a.runs)
    with open(a.out, "w") as f:
        f.write(table(runs, a.note))


if __name__ == "__main__":
    main()
