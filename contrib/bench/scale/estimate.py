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

With --fluid PLATFORMS_DIR it also runs fluid.py's model (SimGrid's
weighted max-min sharing) on each simulated placement whose hostfile is
still where plans.tsv says (or in a --work directory), and prints its error beside the link model's;
the case's grid and stencil come from cases.txt (--cases-file).  Seconds
per placement at 1k-4k ranks, up to a minute at 16k: use --cases to
choose.
"""
import argparse
import csv
import hashlib
import os
import statistics
import sys


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def md5_of(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def fluid_errors(a, plans, runs, prefixes, msg_us):
    """{network: [|fluid time / simulated - 1|]}, one per simulated
    hostfile found on disk."""
    import fluid  # numpy and scipy: only with --fluid
    import linkload
    cases = {}
    with open(a.cases_file) as f:
        for line in f:
            w = line.split()
            if w and not w[0].startswith("#"):
                cases[w[0]] = ([int(x) for x in w[1].split(",")], w[2])
    paths = {}
    for p in plans:
        paths.setdefault((p["case"], p["hosts_md5"]), []).append(p["hostfile"])
    for w in (w for w in a.work.split(",") if w):
        for case in cases:
            d = os.path.join(w, "hosts", case)
            for h in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                if h.endswith(".hosts"):
                    paths.setdefault((case, md5_of(os.path.join(d, h))), []).append(os.path.join(d, h))
    errs = {}
    for r in runs:
        if (prefixes and not r["case"].startswith(prefixes)) or r["case"] not in cases:
            continue
        # the first file still holding the simulated placement (a later
        # plan may have rewritten the others)
        hf = next((h for h in paths.get((r["case"], r["hosts_md5"]), [])
                   if os.path.exists(h) and md5_of(h) == r["hosts_md5"]), None)
        if not hf:
            continue
        dims, stencil = cases[r["case"]]
        m, cap, count, pen = fluid.classes(os.path.join(a.fluid, r["network"] + ".xml"), hf, dims,
                                           linkload.offsets_of(stencil, a.specs), linkload.CROSS)
        t = fluid.finish_time(m, cap, count, pen) * msg_us if len(count) else 0.0
        errs.setdefault(r["network"], []).append(abs(t / float(r["time_us"]) - 1))
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--bytes", type=int, default=262144)
    ap.add_argument("--rate-gbps", type=float, default=100.0)
    ap.add_argument("--cases", default="", help="only cases whose name starts with one of these (comma-separated)")
    ap.add_argument("--fluid", metavar="PLATFORMS_DIR", help="also the fluid model, on NETWORK.xml of this directory")
    ap.add_argument("--work", default="", help="also look for hostfiles in WORK/hosts/CASE/ of these "
                    "SCALE_WORK directories (comma-separated)")
    ap.add_argument("--cases-file", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.txt"))
    ap.add_argument("--specs", default=os.environ.get("STENCILMAP_SPECS_DIR", "stencil-specs"))
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
    fluid = fluid_errors(a, plans, runs, prefixes, msg_us) if a.fluid else {}
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
    for n in sorted(fluid):
        errs = sorted(fluid[n])
        out.append("  %-16s %3d placements: fluid.py's error median %5.1f %%, p90 %5.1f %%, max %5.1f %%" % (
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
