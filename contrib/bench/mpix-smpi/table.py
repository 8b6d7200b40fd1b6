#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The table of run.sh's steps.tsv: MPIX_Cart_stencil_comm's simulated
time step by step, one row per grid (the last simulation of each size and
dimension), in milliseconds.

    table.py STEPS.TSV
"""
import csv
import sys


def ms(v):
    if v in ("", "-", None):
        return "not run"
    m = 1e3 * float(v)
    return "%.4f" % m if m < 0.01 else "%.3f" % m


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: table.py STEPS.TSV")
    try:
        rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    except OSError as e:
        sys.exit("table.py: %s" % e)
    last = {}
    for r in rows:
        last[(int(r["ranks"]), int(r["ndims"]))] = r
    out = ["| ranks | grid | hosts | identities | gather (bytes) | gather, Open MPI's record (bytes) | identities + gather | plan (CPU) "
           "| scatter | split | cart create | total | MPI_Cart_create alone |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(last):
        r = last[key]
        stencil = "%s-D %d-point" % (r["ndims"], 2 * int(r["ndims"]) + 1)
        out.append("| %s | %s %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s | %s | %s | %s | %s |" % (
            "{:,}".format(key[0]), r["dims"], stencil, r["hosts"], ms(r["identities_alone_s"]),
            ms(r["gather_alone_s"]), "{:,}".format(int(r["gather_bytes"])),
            ms(r["gather_openmpi_s"]), "{:,}".format(int(r["gather_openmpi_bytes"])),
            ms(r["identities_gather_s"]), ms(r["plan_s"]), ms(r["scatter_s"]), ms(r["split_s"]),
            ms(r["cart_create_s"]), ms(r["total_s"]), ms(r["cart_create_alone_s"])))
    out.append("")
    out.append("Simulated milliseconds (SimGrid SMPI, non-blocking fat-tree, 100 Gb/s, 1 us links); "
               "plan: rank 0's measured CPU time, injected; total: the sequence up to its last step "
               "run (without cart create where that is 'not run').")
    for key in sorted(last):
        r = last[key]
        out.append("- %s ranks %s-D: %s; simulation %s s wall, %s MiB peak RSS"
                   % ("{:,}".format(key[0]), r["ndims"], r["plan"], r["wall_s"],
                      int(r["maxrss_kb"]) // 1024))
    print("\n".join(out))


if __name__ == "__main__":
    main()
