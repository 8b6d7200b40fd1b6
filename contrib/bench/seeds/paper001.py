# SPDX-License-Identifier: GPL-2.0-or-later
"""Paper 001 beside us: Figure 8's claims on its 144 instances (the medians
are drawn, not printed, so the bench checks what the text states), and
Figures 6-7's two big instances (J figures of every construction beside
the text's score facts and measured speedups)."""
import statistics

import seed_figures as F
from smrun import no_worse
from thesis import ratio

FAMILIES = ["nearest", "component", "hops"]
FIG8_ALGS = ["hyperplane", "strips", "kdtree", "nodecart", "bisect", "auto", "scotch"]


def paper_instances(quick):
    """Section VI-C: N in {10,13,..,31}, n in {10,13,..,31} and 32, d in {2,3}
    (144), as tests/bench/paper_set.h."""
    nodes = [10, 13] if quick else range(10, 32, 3)
    per = [10, 32] if quick else list(range(10, 32, 3)) + [32]
    return [(N, n, d) for N in nodes for n in per for d in (2, 3)]


def fig8(sm, quick, fails, beats):
    inst = paper_instances(quick)
    med = {}
    for fam in FAMILIES:
        r = {a: ([], []) for a in FIG8_ALGS}
        cases = [("fig8-%s-%d-%d-%d" % (fam, N, n, d), d, fam, N, n) for N, n, d in inst]
        for (_, d, _, N, n), rows in zip(cases, sm.compare_many(cases)):
            b = rows["blocked"]
            if not no_worse(rows["auto"], b):
                fails.append("paper 001 set %s N=%d n=%d d=%d: auto worse than blocked" % (fam, N, n, d))
            for a in FIG8_ALGS:
                if a in rows:
                    r[a][0].append(ratio(rows[a]["j_sum"], b["j_sum"]))
                    r[a][1].append(ratio(rows[a]["j_max"], b["j_max"]))
        med[fam] = {a: (statistics.median(v[0]), statistics.median(v[1])) for a, v in r.items() if v[0]}
    out = ["### Paper 001, Figure 8: %d instances per family" % len(inst), "",
           "Median ours/blocked, J_sum / J_max (lower is better); `make bench` prints the same J_sum medians "
           "(doc/benchmarks.md, Figures).  Command per instance: `stencil-map compare SPEC --nodes 'n[1-N]' "
           "--slots n`, SPEC `{\"grid\": {\"dims\": \"auto\", \"ndims\": d}, \"stencil\": FAMILY}`.", "",
           "| algorithm | " + " | ".join(FAMILIES) + " |", "|---|" + "---|" * len(FAMILIES)]
    for a in FIG8_ALGS:
        if a in med[FAMILIES[0]]:
            out.append("| %s | %s |" % (a, " | ".join("%.3f / %.3f" % med[f][a] for f in FAMILIES)))
    out += ["", "The paper's text (section VI-C) on the same figure, checked on ours:", ""]
    for a, other, fam in F.PAPER_FIG8_CLAIMS:
        holds = med[fam][a][0] < med[fam][other][0]
        out.append("- median J_sum reduction of %s better than %s on %s: %s (%.3f vs %.3f)" % (
            a, other, fam, "holds" if holds else "DOES NOT HOLD", med[fam][a][0], med[fam][other][0]))
    out.append("")
    return out


def fig67(sm, quick, fails, beats):
    cases = [(50, (50, 48))] if quick else [(50, (50, 48)), (100, (75, 64))]
    out = ["### Paper 001, Figures 6-7: 48 processes per node", "",
           "The paper's score columns are drawn, not printed; its text gives the component optimum (each "
           "node two outgoing edges, J_max = %d, found by k-d tree and strips) and the measured speedups "
           "over blocked quoted in the last column." % F.PAPER_COMPONENT_OPT_JMAX, ""]
    for N, dims in cases:
        for fam in FAMILIES:
            rows, cmd = sm.compare(sm.spec("fig67-%d-%s" % (N, fam), dims, fam, keep=True), N, 48)
            b = rows["blocked"]
            cells = ", ".join("%s %d/%d" % (a, rows[a]["j_sum"], rows[a]["j_max"])
                              for a in ["blocked", "hyperplane", "strips", "kdtree", "nodecart", "bisect",
                                        "auto", "scotch"] if a in rows)
            out += ["- **N = %d, %dx%d, %s** (`%s`): %s; auto/blocked J_max %.3f.  Paper measured: %s." % (
                N, dims[0], dims[1], fam, cmd, cells, ratio(rows["auto"]["j_max"], b["j_max"]),
                F.PAPER_SPEEDUPS[(N, fam)])]
            if not no_worse(rows["auto"], b):
                fails.append("paper 001 N=%d %s: auto worse than blocked" % (N, fam))
            if fam == "component" and rows["auto"]["j_max"] > F.PAPER_COMPONENT_OPT_JMAX:
                fails.append("paper 001 N=%d component: auto J_max %d, the paper's optimum %d"
                             % (N, rows["auto"]["j_max"], F.PAPER_COMPONENT_OPT_JMAX))
    out.append("")
    return out
