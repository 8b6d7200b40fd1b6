#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Table and SVG bar chart of the payoff bench (contrib/bench/payoff/run.sh).

Reads plans.tsv (case, alg, J_sum, J_max, runner, auto, nodes, ranks, cpus,
and on the two-tier network g_sum, g_max, groups: the messages between
groups and the most leaving one; launch: srun, plugin or hostfile) and runs.tsv (case, runner, rep,
median_us, min_us, max_us, wall_s, uplink_drops); writes
OUT/payoff.txt (the table and the verdict on the issue's bars), OUT/payoff.svg
(speedup over blocked per case and algorithm) and copies of both inputs.

Per algorithm, the time of one run is halo's median time per iteration (the
slowest rank's); over the repetitions we report the median of those and
their min-max spread.  Speedup = blocked's median / the algorithm's median;
its range pairs the extremes (blocked's min over the algorithm's max, and
the other way round).  "The plan" is the auto row: what a user gets from
--stencil-map with algorithm auto (its choice is marked * among the
constructions); on cases with groups that is the levelled plan, and
"nodes" the node-only one (the plugin told topology=none).

Predicted speedup: J_max(blocked) / J_max; on cases with groups, where a
node's link and its group's uplink both bound the time, the ratio of
max(J_max / link rate, G_max / uplink rate).
"""
import argparse
import csv
import os
import shutil
import statistics
import sys
from xml.sax.saxutils import escape

ALGS = ["blocked", "auto", "nodes", "levels-groups", "levels-nodes", "auto-sum", "auto-max", "hyperplane",
        "strips", "kdtree", "nodecart", "bisect"]
COLOURS = {"auto": "#222222", "auto-sum": "#17becf", "auto-max": "#d62728", "hyperplane": "#1f77b4",
           "strips": "#ff7f0e", "kdtree": "#2ca02c", "nodecart": "#9467bd", "bisect": "#8c564b",
           "blocked": "#7f7f7f", "nodes": "#bcbd22", "levels-groups": "#e377c2", "levels-nodes": "#aec7e8"}
RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}


def rate_bps(text):
    """bit/s of a rate in tc's notation (200mbit), None for "" or "-"."""
    if not text or text == "-":
        return None
    for unit in sorted(RATE_UNITS, key=len, reverse=True):
        if text.endswith(unit) and text[:-len(unit)].isdigit():
            return int(text[:-len(unit)]) * RATE_UNITS[unit]
    sys.exit("report.py: rate '%s' is not a number with bit, kbit, mbit or gbit" % text)


def cost(r, rates):
    """What bounds a placement's time: its busiest node link, and on groups
    its busiest uplink (relative units); None when unknown."""
    if not r["j_max"] and r["j_max"] != 0:
        return None
    if r["g_max"] is None or not rates[0] or not rates[1]:
        return r["j_max"] or None
    return max(r["j_max"] / rates[0], r["g_max"] / rates[1]) or None


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def summarise(plans, runs, rates=(None, None)):
    """Rows per case and algorithm with J figures and timing statistics."""
    times, drops = {}, {}
    for r in runs:
        times.setdefault((r["case"], r["runner"]), []).append(float(r["median_us"]) / 1000.0)
        if r.get("uplink_drops", "-") not in ("-", None, ""):
            drops.setdefault((r["case"], r["runner"]), []).append(int(r["uplink_drops"]))
    cases = []
    for p in plans:
        if p["case"] not in cases:
            cases.append(p["case"])
    rows = {}
    for p in plans:
        feasible = p["runner"] != "-"
        t = times.get((p["case"], p["runner"]), []) if feasible else []
        grouped = p.get("g_sum", "-") not in ("-", None, "")
        rows[(p["case"], p["alg"])] = {
            "case": p["case"], "alg": p["alg"], "feasible": feasible,
            "j_sum": int(p["j_sum"]) if feasible else None,
            "j_max": int(p["j_max"]) if feasible else None,
            "g_sum": int(p["g_sum"]) if feasible and grouped else None,
            "g_max": int(p["g_max"]) if feasible and grouped else None,
            "groups": p.get("groups", "-") or "-",
            "launch": p.get("launch", "-") or "-",
            "runner": p["runner"], "auto": p["auto"] == "1",
            "nodes": p["nodes"], "ranks": p["ranks"], "cpus": p["cpus"],
            "times": t,
            "drops": statistics.median(drops[(p["case"], p["runner"])])
            if feasible and (p["case"], p["runner"]) in drops else None,
            "median": statistics.median(t) if t else None,
            "lo": min(t) if t else None, "hi": max(t) if t else None,
        }
    for c in cases:
        chose = [a for a in ALGS if a != "auto" and (c, a) in rows and rows[(c, a)]["auto"]]
        if (c, "auto") in rows:
            if rows[(c, "auto")]["g_max"] is not None:
                rows[(c, "auto")]["label"] = "auto (levelled)"
            else:
                rows[(c, "auto")]["label"] = "auto (%s)" % (chose[0] if chose else "?")
        b = rows.get((c, "blocked"))
        for a in ALGS:
            r = rows.get((c, a))
            if not r:
                continue
            if r["median"] and b and b["median"]:
                r["speedup"] = b["median"] / r["median"]
                r["sp_lo"] = b["lo"] / r["hi"]
                r["sp_hi"] = b["hi"] / r["lo"]
                cb, cr = cost(b, rates), cost(r, rates)
                r["predicted"] = cb / cr if cb and cr else None
            else:
                r["speedup"] = None
            n = rows.get((c, "nodes"))
            if r["median"] and n and n["median"]:
                r["vs_nodes"] = n["median"] / r["median"]
    return cases, rows


def table(cases, rows, note):
    grouped = any(r["g_sum"] is not None for r in rows.values())
    out = []
    out.append("The payoff: halo exchange (MPI_Neighbor_alltoall) time per iteration on the netns minicluster")
    out.append(note)
    out.append("time = median over repetitions of halo's median time per iteration (slowest rank); "
               "spread = min-max over repetitions")
    out.append("auto = the plan (what --stencil-map with algorithm auto launches); * = the construction "
               "auto chose; predicted = J_max(blocked) / J_max")
    if grouped:
        out.append("on groups: G_sum, G_max = messages between groups, the most leaving one; auto = the "
                   "levelled plan, nodes = the node-only plan; predicted = max(J_max/link, G_max/uplink) "
                   "of blocked / of the row; vs nodes = nodes' median / the row's; drops = packets the "
                   "uplinks dropped in a run (median)")
    out.append("")
    # (the group columns only where there are groups: the flat tables stay
    # as they were)
    cols = [("%-20s", "case"), ("%-14s" if grouped else "%-12s", "algorithm"), ("%6s", "J_sum"), ("%6s", "J_max")]
    if grouped:
        cols += [("%6s", "G_sum"), ("%6s", "G_max")]
    cols += [("%5s", "runs"), ("%11s", "median ms"), ("%19s", "spread ms"), ("%8s", "speedup"),
             ("%13s", "speedup range"), ("%9s", "predicted")]
    if grouped:
        cols += [("%8s", "vs nodes"), ("%6s", "drops")]
    fmt = " ".join(f for f, _ in cols)

    def line(values):
        return fmt % tuple(values)

    hdr = line([h for _, h in cols])
    out.append(hdr)
    out.append("-" * len(hdr))
    for c in cases:
        first = rows[(c, "blocked")]
        out.append("%s: %s nodes, %s ranks, slots %s%s" % (
            c, first["nodes"], first["ranks"], first["cpus"],
            ", groups %s" % first["groups"].replace(";", " ") if first["groups"] != "-" else ""))
        for a in ALGS:
            r = rows.get((c, a))
            if not r:
                continue
            name = a + ("*" if r["auto"] else "")
            gcols = []
            if grouped:
                gcols = ["-" if r["g_sum"] is None else r["g_sum"], "-" if r["g_max"] is None else r["g_max"]]
            if not r["feasible"]:
                out.append(line(["", name, "n/a", "n/a"] + gcols + ["-", "-", "-", "-", "-", "(infeasible)"] +
                                (["-", "-"] if grouped else [])))
                continue
            same = "" if r["runner"] == a else "  (same placement as %s)" % r["runner"]
            if r["launch"] == "hostfile":
                same += "  (launched with the hostfile of stencil-map plan: srun cannot name the mode)"
            if a == "auto":
                same = "  <- the plan, " + r.get("label", "auto") + same
            if not r["times"]:
                out.append(line(["", name, r["j_sum"], r["j_max"]] + gcols + [0, "-", "-", "-", "-", "-"] +
                                (["-", "-"] if grouped else [])) + same)
                continue
            sp = "%.2fx" % r["speedup"] if r.get("speedup") else "-"
            rng = "%.2f-%.2f" % (r["sp_lo"], r["sp_hi"]) if r.get("speedup") else "-"
            pred = "%.2fx" % r["predicted"] if r.get("predicted") else "-"
            vs = []
            if grouped:
                vs = ["%.2fx" % r["vs_nodes"] if r.get("vs_nodes") else "-",
                      "-" if r["drops"] is None else "%d" % r["drops"]]
            out.append(line(["", name, r["j_sum"], r["j_max"]] + gcols +
                            [len(r["times"]), "%.1f" % r["median"], "%.1f-%.1f" % (r["lo"], r["hi"]), sp, rng,
                             pred] + vs) + same)
    return out


def verdict(cases, rows):
    """The issue's bars, each line saying met or NOT met with the figures."""
    out = ["", "Bars:"]
    all_met = True
    big = False
    for c in cases:
        b = rows[(c, "blocked")]
        plan = rows.get((c, "auto"))
        if not plan or not plan["times"] or not b["times"]:
            out.append("  %s: no measurement of the plan or of blocked: NOT met" % c)
            all_met = False
            continue
        ratio = plan["j_max"] / b["j_max"]
        # (issue 9's bar is for one tier, where J_max sets the time; on
        # groups the uplinks do, and the levels' bars below apply)
        if ratio <= 0.6 and plan["g_max"] is None:
            big = True
            ok = plan["speedup"] >= 1.3
            all_met &= ok
            out.append("  %s: plan %s J_max %d <= 0.6 x blocked %d (%.2f): median speedup %.2fx %s 1.3x: %s" % (
                c, plan.get("label", "auto"), plan["j_max"], b["j_max"], ratio, plan["speedup"],
                ">=" if ok else "<", "met" if ok else "NOT met"))
        loss = plan["median"] - b["median"]
        spread = max(plan["hi"] - plan["lo"], b["hi"] - b["lo"])
        ok = loss <= spread
        all_met &= ok
        out.append("  %s: plan %s %.1f ms vs blocked %.1f ms: %s by %.1f ms, spread %.1f ms: %s" % (
            c, plan.get("label", "auto"), plan["median"], b["median"], "loses" if loss > 0 else "wins",
            abs(loss), spread, "does not lose by more than the spread" if ok else "LOSES by more than the spread"))
    grouped = [c for c in cases if rows[(c, "blocked")]["g_max"] is not None]
    if not big and len(grouped) < len(cases):
        out.append("  no case has a plan with J_max <= 0.6 x blocked's: the 1.3x bar was not tested")
        all_met = False
    if grouped:
        lv, ok = levels_bars(grouped, rows)
        out += lv
        all_met &= ok
    out.append("  => %s" % ("all bars met" if all_met else "NOT all bars met"))
    return out, all_met


def levels_bars(cases, rows):
    """Issue 24's bars on the two-tier network: where the levelled plan's
    G_max is at most 0.6 x the node-only plan's, it runs >= 1.2x faster;
    and on no case is it slower than node-only by more than the spread."""
    out = []
    ok_all = True
    big = False
    for c in cases:
        plan, nodes = rows.get((c, "auto")), rows.get((c, "nodes"))
        if not plan or not nodes or not plan["times"] or not nodes["times"]:
            out.append("  %s: the levelled plan (auto) or the node-only plan (nodes) not measured: NOT met" % c)
            ok_all = False
            continue
        ratio = plan["g_max"] / nodes["g_max"] if nodes["g_max"] else 1.0
        sp = nodes["median"] / plan["median"]
        if ratio <= 0.6:
            big = True
            ok = sp >= 1.2
            ok_all &= ok
            out.append("  %s: levelled G_max %d <= 0.6 x node-only %d (%.2f): median speedup over node-only "
                       "%.2fx %s 1.2x: %s" % (c, plan["g_max"], nodes["g_max"], ratio, sp,
                                              ">=" if ok else "<", "met" if ok else "NOT met"))
        loss = plan["median"] - nodes["median"]
        spread = max(plan["hi"] - plan["lo"], nodes["hi"] - nodes["lo"])
        ok = loss <= spread
        ok_all &= ok
        same = " (the same placement)" if plan["runner"] == nodes["runner"] else ""
        out.append("  %s: levelled %.1f ms vs node-only %.1f ms%s: %s by %.1f ms, spread %.1f ms: %s" % (
            c, plan["median"], nodes["median"], same, "loses" if loss > 0 else "wins", abs(loss), spread,
            "not slower" if ok else "SLOWER by more than the spread"))
    if not big:
        out.append("  no case has a levelled G_max <= 0.6 x node-only's: the 1.2x bar was not tested")
        ok_all = False
    return out, ok_all


def levels_modes(cases, rows):
    """levels-groups (groups first) against levels-nodes (nodes first),
    where they place apart: which one the halo exchange runs faster with,
    and which of them the default (auto) chose."""
    out = ["", "Levels modes (levels-groups = groups first, levels-nodes = nodes first; auto = the default, "
           "the better by the levelled objective), where they place apart:"]
    ratios = []
    for c in cases:
        g, n, a = rows.get((c, "levels-groups")), rows.get((c, "levels-nodes")), rows.get((c, "auto"))
        if not g or not n or not g["feasible"] or not n["feasible"]:
            continue
        if g["runner"] == n["runner"]:
            out.append("  %s: the same placement (J %d/%d, G %d/%d)" % (c, g["j_sum"], g["j_max"], g["g_sum"],
                                                                        g["g_max"]))
            continue
        if not g["times"] or not n["times"]:
            out.append("  %s: not both measured" % c)
            continue
        r = n["median"] / g["median"]
        if (g["j_sum"], g["j_max"], g["g_sum"], g["g_max"]) == (n["j_sum"], n["j_max"], n["g_sum"], n["g_max"]):
            out.append("  %s: placed apart with the same figures (J %d/%d, G %d/%d): %.1f vs %.1f ms, %.2fx; "
                       "no objective can tell them apart, left out below" % (
                           c, g["j_sum"], g["j_max"], g["g_sum"], g["g_max"], g["median"], n["median"], r))
            continue
        ratios.append(r)
        pick = "?"
        if a and a["runner"] in (g["runner"], "levels-groups"):
            pick = "groups first"
        elif a and a["runner"] in (n["runner"], "levels-nodes"):
            pick = "nodes first"
        out.append("  %s: groups first J %d/%d G %d/%d %.1f ms (%.1f-%.1f), nodes first J %d/%d G %d/%d "
                   "%.1f ms (%.1f-%.1f): nodes first takes %.2fx the time; the default chose %s" % (
                       c, g["j_sum"], g["j_max"], g["g_sum"], g["g_max"], g["median"], g["lo"], g["hi"],
                       n["j_sum"], n["j_max"], n["g_sum"], n["g_max"], n["median"], n["lo"], n["hi"], r, pick))
    if ratios:
        med = statistics.median(ratios)
        out.append("  => over %d case(s), nodes first takes a median %.2fx the time of groups first (%.2f-%.2f): "
                   "%s is faster" % (len(ratios), med, min(ratios), max(ratios),
                                     "groups first" if med > 1 else "nodes first"))
    else:
        out.append("  => no case where both were measured apart")
    return out


def objectives(cases, rows):
    """auto-sum (objective sum) against auto-max (objective max), where
    they place apart: which one the halo exchange runs faster with."""
    out = ["", "Objectives (auto-sum = \"sum\": J_sum first; auto-max = \"max\": J_max first), "
           "where they place apart:"]
    ratios = []
    for c in cases:
        s_, m = rows.get((c, "auto-sum")), rows.get((c, "auto-max"))
        if not s_ or not m or not s_["feasible"] or not m["feasible"]:
            continue
        if m["runner"] == s_["runner"]:
            out.append("  %s: the same placement (J_sum %d, J_max %d)" % (c, s_["j_sum"], s_["j_max"]))
            continue
        if not s_["times"] or not m["times"]:
            out.append("  %s: not both measured" % c)
            continue
        r = m["median"] / s_["median"]
        ratios.append(r)
        out.append("  %s: sum J_sum/J_max %d/%d %.1f ms, max %d/%d %.1f ms: max takes %.2fx the time of sum"
                   % (c, s_["j_sum"], s_["j_max"], s_["median"], m["j_sum"], m["j_max"], m["median"], r))
    if ratios:
        med = statistics.median(ratios)
        out.append("  => over %d case(s), max takes a median %.2fx the time of sum: %s is faster"
                   % (len(ratios), med, "max" if med < 1 else "sum"))
    else:
        out.append("  => no case where both were measured apart")
    return out


def svg(cases, rows, note, path, rates=(None, None)):
    """Bar chart of the speedups over a baseline: Slurm's blocked placement,
    or on groups (where every case has the node-only plan) the node-only
    plan, which is what the levels are measured against."""
    base = "nodes" if all(rows.get((c, "nodes")) and rows[(c, "nodes")]["times"] for c in cases) else "blocked"
    present = {a for (_, a) in rows}
    bars = [a for a in ALGS if a != base and a in present]
    grouped = base == "nodes"
    ratio = {}
    for (c, a), r in rows.items():
        b = rows.get((c, base))
        if not r["times"] or not b or not b["times"]:
            continue
        cb, cr = cost(b, rates), cost(r, rates)
        ratio[(c, a)] = (b["median"] / r["median"], b["lo"] / r["hi"], b["hi"] / r["lo"],
                         cb / cr if cb and cr else None)
    ymax = 1.0
    for v in ratio.values():
        ymax = max([ymax] + [x for x in v[:4] if x])
    ymax = (int(ymax * 2) + 1) / 2.0  # next half step
    W, H = max(720, 200 + 190 * len(cases)), 440
    left, right, top, bottom = 70, 200, 60, 110
    pw, ph = W - left - right, H - top - bottom

    def y(v):
        return top + ph - v / ymax * ph

    e = []
    e.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
             'font-size="12">' % (W, H))
    e.append('<rect width="100%" height="100%" fill="white"/>')
    e.append('<text x="%d" y="22" font-size="15" font-weight="bold">Halo exchange speedup over %s</text>' % (
        left, "the node-only plan, nodes in groups behind uplinks" if grouped else "Slurm's blocked placement"))
    e.append('<text x="%d" y="40" fill="#444">%s</text>' % (left, escape(note)))
    step = 0.5 if ymax <= 4 else 1.0
    v = 0.0
    while v <= ymax + 1e-9:
        e.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, left + pw, y(v), y(v)))
        e.append('<text x="%d" y="%.1f" text-anchor="end">%.1fx</text>' % (left - 6, y(v) + 4, v))
        v += step
    e.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="4,3"/>' % (
        left, left + pw, y(1.0), y(1.0)))
    e.append('<text transform="translate(18,%d) rotate(-90)" text-anchor="middle">speedup (median time '
             '%s / algorithm)</text>' % (top + ph // 2, "node-only" if grouped else "blocked"))
    gw = pw / len(cases)
    bw = min(30, (gw - 30) / len(bars))
    for i, c in enumerate(cases):
        gx = left + i * gw + (gw - bw * len(bars)) / 2
        b = rows[(c, base)]
        for j, a in enumerate(bars):
            r = rows.get((c, a))
            x = gx + j * bw
            if not r or not r["feasible"]:
                e.append('<text x="%.1f" y="%.1f" font-size="9" text-anchor="middle" fill="#888" '
                         'transform="rotate(-90 %.1f %.1f)">n/a</text>' % (
                             x + bw / 2, y(0) - 8, x + bw / 2, y(0) - 8))
                continue
            if (c, a) not in ratio:
                continue
            s, lo, hi, pred = ratio[(c, a)]
            what = "G_max %d vs %d" % (r["g_max"], b["g_max"]) if grouped else "J_max %d vs %d" % (
                r["j_max"], b["j_max"])
            e.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"%s><title>%s %s: %.2fx '
                     '(%.2f-%.2f), %s</title></rect>' % (
                         x + 1, y(s), bw - 2, y(0) - y(s), COLOURS[a],
                         ' stroke="black" stroke-width="2"' if r["auto"] else "",
                         escape(c), a, s, lo, hi, what))
            cx = x + bw / 2
            e.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>' % (cx, cx, y(lo), y(hi)))
            for v in (lo, hi):
                e.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>' % (
                    cx - 4, cx + 4, y(v), y(v)))
            if pred:
                e.append('<path d="M %.1f %.1f l 5 -5 l 5 5 l -5 5 z" fill="white" stroke="black"/>' % (
                    cx - 5, y(pred)))
            e.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%.2f</text>' % (
                cx, y(max(s, hi, pred or 0)) - 8, s))
        e.append('<text x="%.1f" y="%d" text-anchor="middle" font-weight="bold">%s</text>' % (
            left + (i + 0.5) * gw, top + ph + 20, escape(c)))
        e.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%s nodes, %s ranks</text>' % (
            left + (i + 0.5) * gw, top + ph + 36, b["nodes"], b["ranks"]))
        if grouped:
            e.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">node-only %.0f ms</text>' % (
                left + (i + 0.5) * gw, top + ph + 52, b["median"] or 0))
            plan = rows.get((c, "auto"))
            e.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">G_max %d, levelled %s</text>' % (
                left + (i + 0.5) * gw, top + ph + 68, b["g_max"], plan["g_max"] if plan else "-"))
        else:
            e.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">blocked %.0f ms, J_max %d</text>' % (
                left + (i + 0.5) * gw, top + ph + 52, b["median"] or 0, b["j_max"]))
    lx, ly = left + pw + 10, top + 10
    for k, a in enumerate(bars):
        e.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (lx, ly + 18 * k, COLOURS[a]))
        e.append('<text x="%d" y="%d">%s</text>' % (lx + 18, ly + 18 * k + 10, a))
    ly += 18 * len(bars) + 10
    if any(r["auto"] for r in rows.values()):
        e.append('<rect x="%d" y="%d" width="12" height="12" fill="white" stroke="black" stroke-width="2"/>' % (
            lx, ly))
        e.append('<text x="%d" y="%d">construction auto chose</text>' % (lx + 18, ly + 10))
        ly += 20
    e.append('<path d="M %d %d l 6 -6 l 6 6 l -6 6 z" fill="white" stroke="black"/>' % (lx, ly + 10))
    e.append('<text x="%d" y="%d">%s</text>' % (lx + 18, ly + 14, "predicted (links, uplinks)" if grouped
                                                 else "J_max(blocked)/J_max"))
    e.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="black"/>' % (lx + 6, lx + 6, ly + 26, ly + 40))
    e.append('<text x="%d" y="%d">min-max range</text>' % (lx + 18, ly + 37))
    e.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="black" stroke-dasharray="4,3"/>' % (
        lx, lx + 12, ly + 56, ly + 56))
    e.append('<text x="%d" y="%d">%s (1.0x)</text>' % (lx + 18, ly + 60, "node-only" if grouped else "blocked"))
    e.append('<text x="%d" y="%d" font-size="10" fill="#444">bars: median speedup over the repetitions</text>' % (
        left, H - 12))
    e.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(e) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plans", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--note", default="")
    ap.add_argument("--link-rate", default="", help="each node's link, tc notation (200mbit)")
    ap.add_argument("--uplink-rate", default="", help="each group's uplink, tc notation (60mbit)")
    a = ap.parse_args()
    plans, runs = read_tsv(a.plans), read_tsv(a.runs)
    for need, rows_, name in ((("case", "alg", "j_sum", "j_max", "runner", "auto"), plans, a.plans),
                              (("case", "runner", "rep", "median_us"), runs, a.runs)):
        if rows_ and any(k not in rows_[0] for k in need):
            sys.exit("report.py: %s: missing columns, need %s" % (name, ", ".join(need)))
    if not plans:
        sys.exit("report.py: %s has no plans" % a.plans)
    os.makedirs(a.out, exist_ok=True)
    rates = (rate_bps(a.link_rate), rate_bps(a.uplink_rate))
    cases, rows = summarise(plans, runs, rates)
    lines = table(cases, rows, a.note)
    v, ok = verdict(cases, rows)
    lines += v
    if any(r["alg"] in ("auto-sum", "auto-max") for r in rows.values()):
        lines += objectives(cases, rows)
    if any(r["alg"] in ("levels-groups", "levels-nodes") for r in rows.values()):
        lines += levels_modes(cases, rows)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(os.path.join(a.out, "payoff.txt"), "w") as f:
        f.write(text)
    svg(cases, rows, a.note, os.path.join(a.out, "payoff.svg"), rates)
    for src, dst in ((a.plans, "plans.tsv"), (a.runs, "runs.tsv")):
        if os.path.abspath(src) != os.path.abspath(os.path.join(a.out, dst)):
            shutil.copyfile(src, os.path.join(a.out, dst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
