#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Table, chart and notes of the scale bench (contrib/bench/scale/run.sh).

Reads plans.tsv, runs.tsv and levels.tsv (their columns: run.sh) and
writes OUT/scale.txt (per case and network: each placement's J figures,
simulated time per exchange, speedup over blocked and busiest link; the
headline; what the time follows; the calibration against the payoff
bench's measurements; what the simulations cost), OUT/scale.svg (speedup
over blocked per case and network) and OUT/calibration.svg.

A placement's time is the one simulation of its hostfile (placements with
the same hostfile share it).  Speedup = blocked's time / the placement's.
"auto" in the headline is auto-max, auto with the default objective: what
--stencil-map launches.
"""
import argparse
import csv
import math
import os
import statistics
import sys
from xml.sax.saxutils import escape

sys.dont_write_bytecode = True  # no __pycache__ beside the script
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from platforms import NETWORKS  # noqa: E402

ALGS = ["blocked", "auto-max", "auto-sum", "hyperplane", "strips", "kdtree", "nodecart", "bisect", "best",
        "scotch", "levelled"]
CONSTRUCTIONS = ["hyperplane", "strips", "kdtree", "nodecart", "bisect", "best"]
BARS = ["auto-max", "auto-sum", "construction", "scotch", "levelled"]
COLOURS = {"auto-max": "#222222", "auto-sum": "#17becf", "construction": "#ff7f0e", "scotch": "#9467bd",
           "levelled": "#2ca02c"}
NETS = list(NETWORKS)
# the payoff bench's placement names for ours
PAYOFF_NAME = {"auto-max": "auto", "auto-sum": "auto-sum"}


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def scale_of(case):
    return case.split("-")[0]


class Data:
    """plans and runs joined: rows[(case, network, alg)] -> dict."""

    def __init__(self, plans, runs, levels):
        self.levels = {}  # (case, network, alg) -> [(level, groups, j_sum, j_max)]
        for l in levels:
            self.levels.setdefault((l["case"], l["network"], l["alg"]), []).append(
                (int(l["level"]), int(l["groups"]), int(l["j_sum"]), int(l["j_max"])))
        self.runs = {}
        for r in runs:
            self.runs[(r["case"], r["network"], r["runner"], r["hosts_md5"])] = r
        self.cases, self.info, self.plans = [], {}, {}
        for p in plans:
            c = p["case"]
            if c not in self.info:
                self.cases.append(c)
                self.info[c] = {"hosts": p["hosts"], "ranks": p["ranks"], "slots": p["slots"]}
            self.plans.setdefault(c, []).append(p)
        self.networks = {}
        for c in self.cases:
            nets = []
            for r in runs:
                if r["case"] == c and r["network"] not in nets:
                    nets.append(r["network"])
            self.networks[c] = ["star"] if c.startswith("cal-") else [n for n in NETS if n in nets]

    def row(self, case, net, alg):
        """The plan of alg on net (its own row or the network-free one), with
        its simulation when there is one."""
        ps = [p for p in self.plans.get(case, []) if p["alg"] == alg and p["network"] in ("*", net)]
        if not ps:
            return None
        p = ps[0]
        out = {"alg": alg, "feasible": p["runner"] != "-", "chose": p["chose"], "runner": p["runner"]}
        if not out["feasible"]:
            return out
        out["j_sum"], out["j_max"] = int(p["j_sum"]), int(p["j_max"])
        lv = sorted(self.levels.get((case, net, alg), []))
        if lv:  # the coarsest level: the busiest group's inter-group edges
            out["g_sum"], out["g_max"] = lv[-1][2], lv[-1][3]
            out["levels"] = lv
        run = self.runs.get((case, net, p["runner"], p["hosts_md5"]))
        if run:
            out["us"] = float(run["time_us"])
            out["l_max"] = float(run["l_max"])
            out["run"] = run
        return out

    def speedup(self, case, net, alg):
        b, r = self.row(case, net, "blocked"), self.row(case, net, alg)
        if not b or not r or "us" not in b or "us" not in r:
            return None
        return b["us"] / r["us"]

    def best_construction(self, case, net):
        """The construction with the shortest simulated time (of those run)."""
        best = None
        for a in CONSTRUCTIONS:
            r = self.row(case, net, a)
            if r and "us" in r and (best is None or r["us"] < best["us"]):
                best = r
        return best


def fmt_case(d, c):
    i = d.info[c]
    parts = c.split("-")
    return "%s: %s ranks on %s hosts (slots %s)" % (c, i["ranks"], i["hosts"], i["slots"]) if parts else c


def table(d, big):
    out = []
    w = 29
    for c in big:
        nets = d.networks[c]
        if not nets:
            continue
        out.append("")
        out.append(fmt_case(d, c))
        hdr = "  %-12s %8s %6s" % ("placement", "J_sum", "J_max")
        for n in nets:
            hdr += " | %-*s" % (w, n)
        out.append(hdr)
        sub = "  %-12s %8s %6s" % ("", "", "")
        for n in nets:
            sub += " | %9s %5s %6s %6s" % ("us", "x", "L_max", "G_max")
        out.append(sub)
        for a in ALGS:
            rows = {n: d.row(c, n, a) for n in nets}
            first = next((r for r in rows.values() if r), None)
            if not first:
                continue
            name = a
            if a.startswith("auto") and first["chose"] != "-":
                name += "*"
            if not first["feasible"]:
                out.append("  %-12s %8s %6s   (infeasible)" % (name, "n/a", "n/a"))
                continue
            line = "  %-12s %8d %6d" % (name, first["j_sum"], first["j_max"])
            notes = []
            for n in nets:
                r = rows[n]
                if not r or "us" not in r:
                    line += " | %9s %5s %6s %6s" % ("-", "-", "-", r.get("g_max", "-") if r else "-")
                    continue
                sp = d.speedup(c, n, a)
                line += " | %9.1f %5s %6.1f %6s" % (r["us"], "%.2f" % sp if sp else "-", r["l_max"],
                                                    r.get("g_max", "-"))
                if r["runner"] != a:
                    notes.append("= %s" % r["runner"])
                if a == "levelled":
                    notes.append("%s J %d/%d" % (n, r["j_sum"], r["j_max"]))
                cfg = r["run"].get("smpi_cfg") or "-"
                if cfg != "-":  # not SimGrid's defaults: say so beside the figure
                    notes.append("%s with %s" % (n, cfg))
            extra = sorted(set(notes))
            if a.startswith("auto") and first["chose"] != "-":
                extra.insert(0, "chose %s" % first["chose"])
            if a == "best":
                extra.insert(0, first["chose"])
            if a == "scotch" and first["chose"] != "exact":
                extra.insert(0, "NOT exact shares: %s" % first["chose"])
            if extra:
                line += "   (" + ", ".join(extra) + ")"
            out.append(line)
    return out


def headline(d, big):
    out = ["", "Headline: speedup of auto (auto-max, the default) over blocked, per scale and network "
           "(median, worst, over the cases simulated)"]
    for s in ("1k", "4k", "16k"):
        for n in NETS:
            sps = [(d.speedup(c, n, "auto-max"), c) for c in big if scale_of(c) == s]
            sps = [x for x in sps if x[0]]
            if not sps:
                continue
            worst = min(sps)
            out.append("  %-4s %-16s median %.2fx, worst %.2fx (%s), %d cases" % (
                s, n, statistics.median([x[0] for x in sps]), worst[0], worst[1], len(sps)))
    out.append("")
    out.append("Where Scotch, a construction or the levelled plan beats auto in simulated time (by more than 1 %):")
    found = 0
    for c in big:
        for n in d.networks[c]:
            auto = d.row(c, n, "auto-max")
            if not auto or "us" not in auto:
                continue
            for a in ["scotch", "levelled", "auto-sum"] + CONSTRUCTIONS:
                r = d.row(c, n, a)
                if r and "us" in r and r["us"] < auto["us"] * 0.99 and r["runner"] != auto["runner"]:
                    found += 1
                    out.append("  %-16s %-16s %-10s %9.1f us vs auto %9.1f us (%.2fx auto's speed); "
                               "J_sum/J_max %d/%d vs %d/%d, L_max %.1f vs %.1f" % (
                                   c, n, a + ("(%s)" % r["chose"] if a == "best" else ""), r["us"], auto["us"],
                                   auto["us"] / r["us"], r["j_sum"], r["j_max"], auto["j_sum"], auto["j_max"],
                                   r["l_max"], auto["l_max"]))
    if not found:
        out.append("  nowhere")
    return out


def kendall(xs, ys):
    """Kendall's tau-b of two lists."""
    conc = disc = tx = ty = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                conc += 1
            else:
                disc += 1
    den = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return (conc - disc) / den if den else None


def follows(d, big):
    """How well each figure predicts the time: within each case and network,
    the time ratio to blocked against the figure's ratio to blocked."""
    out = ["", "What the time follows: per network, over every case and distinct placement, the error of "
           "predicting time/time(blocked) by figure/figure(blocked) (median and 90th percentile of "
           "|log ratio|, as %), and Kendall's tau between time and figure within a case (median over cases)"]
    figures = ("j_max", "j_sum", "l_max", "g_max")
    for n in NETS + ["star"]:
        errs = {f: [] for f in figures}
        taus = {f: [] for f in figures}
        misses = {f: 0 for f in figures}
        counted = {f: 0 for f in figures}
        ncases = 0
        for c in d.cases:
            if n not in d.networks[c] or (n == "star") != c.startswith("cal-"):
                continue
            b = d.row(c, n, "blocked")
            if not b or "us" not in b:
                continue
            rows, seen = [], set()
            for a in ALGS:
                r = d.row(c, n, a)
                if r and "us" in r and r["runner"] not in seen:
                    seen.add(r["runner"])
                    rows.append(r)
            if len(rows) < 2:
                continue
            ncases += 1
            fastest = min(r["us"] for r in rows)
            for f in figures:
                if any(f not in r for r in rows):
                    continue
                counted[f] += 1
                for r in rows:
                    if r is not b and b[f] > 0 and r[f] > 0:
                        errs[f].append(abs(math.log((r["us"] / b["us"]) / (r[f] / b[f]))))
                t = kendall([r["us"] for r in rows], [r[f] for r in rows])
                if t is not None:
                    taus[f].append(t)
                # does the figure's best placement run fastest?
                lo = min(r[f] for r in rows)
                if min(r["us"] for r in rows if r[f] == lo) > fastest * 1.01:
                    misses[f] += 1
        if not ncases:
            continue
        out.append("  %s (%d cases):" % (n, ncases))
        for f in figures:
            e = sorted(errs[f])
            if not e:
                continue
            p90 = e[min(len(e) - 1, int(0.9 * len(e)))]
            name = {"j_max": "J_max", "j_sum": "J_sum", "l_max": "L_max", "g_max": "G_max"}[f]
            out.append("    %-6s error median %5.1f %%, p90 %5.1f %%; tau median %s; its lowest placement "
                       "not the fastest (by >1 %%) in %d of %d cases" % (
                           name, 100 * (math.exp(statistics.median(e)) - 1), 100 * (math.exp(p90) - 1),
                           "%.2f" % statistics.median(taus[f]) if taus[f] else "-", misses[f], counted[f]))
    return out


def payoff_measured(payoff_dir):
    """{(payoff case, payoff alg): median us}, and the payoff plans by the same key."""
    runs = read_tsv(os.path.join(payoff_dir, "runs.tsv"))
    plans = read_tsv(os.path.join(payoff_dir, "plans.tsv"))
    times = {}
    for r in runs:
        times.setdefault((r["case"], r["runner"]), []).append(float(r["median_us"]))
    out = {}
    for p in plans:
        t = times.get((p["case"], p["runner"]))
        if t:
            out[(p["case"], p["alg"])] = statistics.median(t)
    return out, {(p["case"], p["alg"]): p for p in plans}


def calibration(d, payoff_dir, tolerance=0.15):
    """Simulated speedups on the star against the payoff bench's measured ones."""
    out = ["", "Calibration: the payoff bench's cases on the star (each host one link at the netns links' "
           "rate to a switch that never blocks), simulated speedup over blocked against the measured one "
           "(contrib/bench/payoff/results/); agreement within %d %%" % round(100 * tolerance)]
    measured, pplans = payoff_measured(payoff_dir)
    pcases = {c for c, _ in pplans}
    points = []
    ok_all = True
    cal = [c for c in d.cases if c.startswith("cal-")]
    if not cal or not measured:
        out.append("  no calibration data")
        return out, points
    for c in cal:
        pc = c[len("cal-"):]  # the payoff case of the same name
        if pc not in pcases:
            out.append("  %s: no payoff case matches" % c)
            continue
        out.append("  %s (payoff case %s):" % (c, pc))
        mb = measured.get((pc, "blocked"))
        for a in ALGS:
            if a in ("blocked", "best", "scotch", "levelled"):
                continue
            r = d.row(c, "star", a)
            m = measured.get((pc, PAYOFF_NAME.get(a, a)))
            if not r or not r["feasible"]:
                continue
            sim = d.speedup(c, "star", a)
            if not sim or not m or not mb:
                out.append("    %-11s simulated %s, %s" % (a, "%.2fx" % sim if sim else "-",
                                                          "measured %.2fx" % (mb / m) if m and mb else
                                                          "not in the payoff bench's results"))
                continue
            meas = mb / m
            diff = sim / meas - 1
            ok = abs(diff) <= tolerance
            ok_all &= ok
            points.append((c, a, meas, sim))
            pp = pplans.get((pc, PAYOFF_NAME.get(a, a)), {})
            then = ""
            if pp and (pp["j_sum"], pp["j_max"]) != (str(r["j_sum"]), str(r["j_max"])):
                then = " (measured: a placement of J_sum/J_max %s/%s, planned then)" % (pp["j_sum"], pp["j_max"])
            out.append("    %-11s J_sum/J_max %3d/%3d: simulated %.2fx, measured %.2fx: %+5.1f %% %s%s" % (
                a, r["j_sum"], r["j_max"], sim, meas, 100 * diff, "ok" if ok else "OUTSIDE", then))
    if points:
        diffs = [abs(s / m - 1) for _, _, m, s in points]
        out.append("  => %d placements, |difference| median %.1f %%, max %.1f %%: %s" % (
            len(points), 100 * statistics.median(diffs), 100 * max(diffs),
            "all within %d %%" % round(100 * tolerance) if ok_all else "NOT all within %d %%" % round(100 * tolerance)))
    return out, points


def costs(d):
    """Wall time, CPU time and memory of the simulations, per scale and stencil."""
    out = ["", "Cost of the simulations (one run each; wall and CPU seconds, /usr/bin/time's max RSS "
           "and the simulator's peak PSS in MiB; max RSS counts the shared buffers once "
           "per mapping, so it overstates the memory many times, PSS once; median and max over the runs)"]
    groups = {}
    for (c, n, _, _), r in d.runs.items():
        if c.startswith("cal-"):
            key = ("cal", "star")
        else:
            parts = c.split("-")
            key = (parts[0], "-".join(parts[1:3]))
        groups.setdefault(key, []).append(r)
    out.append("  %-5s %-8s %5s %17s %17s %17s %17s" % ("scale", "stencil", "runs", "wall s", "CPU s",
                                                           "max RSS MiB", "PSS MiB"))
    order = {"cal": 0, "1k": 1, "4k": 2, "16k": 3}
    for key in sorted(groups, key=lambda k: (order.get(k[0], 9), k[1])):
        rs = groups[key]

        def mm(col, div=1.0):
            v = [float(r[col]) / div for r in rs if r[col] not in ("", "-")]
            return "%8.1f %8.1f" % (statistics.median(v), max(v)) if v else "%17s" % "-"
        out.append("  %-5s %-8s %5d %s %s %s %s" % (key[0], key[1], len(rs), mm("wall_s"), mm("cpu_s"),
                                                     mm("maxrss_kb", 1024), mm("pss_peak_kb", 1024)))
    total = sum(float(r["wall_s"]) for r in d.runs.values())
    out.append("  all %d simulations: %.1f h of wall time" % (len(d.runs), total / 3600))
    return out


def svg_chart(d, big, path, note):
    cases = [c for c in big if d.networks[c]]
    if not cases:
        return
    ymax = 1.0
    for c in cases:
        for n in NETS:
            for a in ALGS:
                s = d.speedup(c, n, a)
                if s:
                    ymax = max(ymax, s)
    ymax = math.ceil(ymax * 2) / 2.0
    gw = 16 * len(BARS) + 18
    left, right, top = 60, 170, 60
    ph, gap = 170, 70
    pw = gw * len(cases)
    W = left + pw + right
    H = top + len(NETS) * (ph + gap) + 40
    e = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
         'font-size="11">' % (W, H), '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="15" font-weight="bold">Simulated halo exchange: speedup over '
         'Slurm\'s blocked placement, 1,024 to 16,384 ranks</text>' % left,
         '<text x="%d" y="40" fill="#444">%s</text>' % (left, escape(note))]
    for k, n in enumerate(NETS):
        y0 = top + k * (ph + gap)

        def y(v):
            return y0 + ph - v / ymax * ph
        e.append('<text x="%d" y="%d" font-weight="bold">%s</text>' % (left, y0 - 6, escape(
            n + ": " + NETWORKS[n][3])))
        v = 0.0
        step = 0.5 if ymax <= 4 else 1.0
        while v <= ymax + 1e-9:
            e.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, left + pw, y(v), y(v)))
            e.append('<text x="%d" y="%.1f" text-anchor="end">%.1fx</text>' % (left - 4, y(v) + 4, v))
            v += step
        e.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="4,3"/>' % (
            left, left + pw, y(1), y(1)))
        for i, c in enumerate(cases):
            if i and scale_of(c) != scale_of(cases[i - 1]):  # a line between the scales
                e.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#888"/>' % (
                    left + i * gw, left + i * gw, y0, y0 + ph))
            gx = left + i * gw + 9
            for j, a in enumerate(BARS):
                r = d.best_construction(c, n) if a == "construction" else d.row(c, n, a)
                s = d.speedup(c, n, r["alg"]) if r and "us" in r else None
                if not s:
                    continue
                x = gx + j * 16
                e.append('<rect x="%.1f" y="%.1f" width="14" height="%.1f" fill="%s"><title>%s %s %s: %.2fx, '
                         '%.1f us, J_max %d, L_max %.1f</title></rect>' % (
                             x, y(s), y(0) - y(s), COLOURS[a], escape(c), n, r["alg"], s, r["us"], r["j_max"],
                             r["l_max"]))
                if a == "auto-max":  # the plan's figure, written above its bar
                    e.append('<text x="%.1f" y="%.1f" font-size="8" text-anchor="middle">%.2f</text>' % (
                        x + 7, y(s) - 3, s))
            e.append('<text transform="translate(%.1f,%.1f) rotate(35)" font-size="10">%s</text>' % (
                gx, y0 + ph + 12, escape(c)))
    lx, ly = left + pw + 12, top + 10
    for k, a in enumerate(BARS):
        e.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (lx, ly + 18 * k, COLOURS[a]))
        e.append('<text x="%d" y="%d">%s</text>' % (lx + 18, ly + 18 * k + 10,
                                                    "fastest construction" if a == "construction" else a))
    e.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="black" stroke-dasharray="4,3"/>' % (
        lx, lx + 12, ly + 18 * len(BARS) + 6, ly + 18 * len(BARS) + 6))
    e.append('<text x="%d" y="%d">blocked (1.0x)</text>' % (lx + 18, ly + 18 * len(BARS) + 10))
    e.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(e) + "\n")


def svg_calibration(points, path):
    if not points:
        return
    vmax = math.ceil(max(max(m, s) for _, _, m, s in points) * 1.05 * 2) / 2.0  # room above the highest
    left, top, size = 60, 50, 300
    W, H = left + size + 260, top + size + 60

    def px(v):
        return left + v / vmax * size

    def py(v):
        return top + size - v / vmax * size
    e = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
         'font-size="11">' % (W, H), '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="14" font-weight="bold">Calibration: simulated against measured '
         'speedup over blocked</text>' % left]
    e.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (left, top, size, size))
    # the 15 % band around agreement
    e.append('<path d="M %.1f %.1f L %.1f %.1f L %.1f %.1f z" fill="#eee"/>' % (
        px(0), py(0), px(vmax / 1.15), py(vmax), px(vmax), py(vmax / 1.15)))
    e.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>' % (px(0), py(0), px(vmax), py(vmax)))
    v = 0.0
    while v <= vmax + 1e-9:
        e.append('<text x="%.1f" y="%d" text-anchor="middle">%.1f</text>' % (px(v), top + size + 14, v))
        e.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (left - 4, py(v) + 4, v))
        v += 0.5
    e.append('<text x="%.1f" y="%d" text-anchor="middle">measured (netns minicluster)</text>' % (
        left + size / 2, top + size + 32))
    e.append('<text transform="translate(20,%d) rotate(-90)" text-anchor="middle">simulated (SMPI, star)</text>'
             % (top + size // 2))
    cases = list(dict.fromkeys(c for c, _, _, _ in points))
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
    for c, a, m, s in points:
        col = colours[cases.index(c) % len(colours)]
        e.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s %s: measured %.2fx, simulated %.2fx'
                 '</title></circle>' % (px(m), py(s), col, escape(c), a, m, s))
    for k, c in enumerate(cases):
        e.append('<circle cx="%d" cy="%d" r="4" fill="%s"/>' % (left + size + 20, top + 10 + 18 * k,
                                                              colours[k % len(colours)]))
        e.append('<text x="%d" y="%d">%s</text>' % (left + size + 30, top + 14 + 18 * k, escape(c)))
    e.append('<text x="%d" y="%d" fill="#444">grey: within 15 %%</text>' % (left + size + 20,
                                                                           top + 14 + 18 * len(cases)))
    e.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(e) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plans", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--payoff", required=True, help="the payoff bench's results directory")
    ap.add_argument("--levels", help="levels.tsv: each placement on each network's switch levels")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    plans, runs = read_tsv(a.plans), read_tsv(a.runs)
    levels = read_tsv(a.levels) if a.levels else []
    if not plans:
        sys.exit("report.py: %s has no plans" % a.plans)
    d = Data(plans, runs, levels)
    big = [c for c in d.cases if not c.startswith("cal-")]
    iters = sorted(set(r["iters"] for r in runs)) or ["-"]
    note = ("262,144 B per stencil neighbour, MPI_Isend/Irecv, %s timed iteration(s); links 100 Gbit/s "
            "each way, 1 us; inside a host 1,000 Gbit/s" % "/".join(iters))
    lines = ["The payoff at scale: the halo exchange simulated in SimGrid 3.32 SMPI",
             note,
             "us = simulated time of one exchange (the slowest rank's); x = speedup over blocked; L_max = the "
             "busiest link's load in messages per cable (linkload.py)",
             "J_sum, J_max = inter-node messages in all and of the busiest node; G_max = the busiest group's "
             "messages to other groups at the network's coarsest level that splits the job (leaf switches of "
             "the fat-trees; dragonfly groups, or routers when the job fits in one group), as stencil-map "
             "score --topology gives it",
             "* = auto's choice in brackets; '= X': the same hostfile as X",
             "Networks (1,024 hosts each; a job of H hosts runs on the first H):"]
    for n in NETS:
        lines.append("  %-16s %s (SimGrid %s \"%s\")" % (n, NETWORKS[n][3], NETWORKS[n][0], NETWORKS[n][1]))
    lines += table(d, big)
    lines += headline(d, big)
    lines += follows(d, big)
    cal_lines, points = calibration(d, a.payoff)
    lines += cal_lines
    if any(c.startswith("cal-") for c in d.cases):
        lines += ["", "Calibration table (the star):"] + table(d, [c for c in d.cases if c.startswith("cal-")])
    lines += costs(d)
    text = "\n".join(lines) + "\n"
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "scale.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    svg_chart(d, big, os.path.join(a.out, "scale.svg"), note)
    svg_calibration(points, os.path.join(a.out, "calibration.svg"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
