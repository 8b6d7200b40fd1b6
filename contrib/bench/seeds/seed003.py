# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed 003's halo benchmark beside us: a 3-D halo whose messages are the
faces of each rank's box, on a global grid of base ratio 2:2:2, 1:2:4 or
4:2:1, on 8, 64 and 512 Hazel Hen nodes of 24 cores (slide 26).  The seed
measured times of three node decompositions; we score the same three
placements (weighted J: edges weighted by face area) and set ours beside
them: auto with the face-area weights, on MPI's dims and on the seed's
weighted dims.

Face area: with global grid g ~ base b and process dims p, the face normal
to dimension i has prod_{j != i} g_j / p_j cells ~ (B/P) p_i / b_i; the
common factor B/P is the same for every placement of one case, so the
weight of the offsets +-e_i is p_i / b_i."""
import os

import seed_figures as F
from smrun import weighted, no_worse


def face_stencil(dims, base):
    offs, w = [], []
    for i in range(3):
        for s in (1, -1):
            offs.append([s if j == i else 0 for j in range(3)])
            w.append(dims[i] / base[i])
    return {"offsets": offs, "weights": w}


def box_hostfile(path, dims, split):
    """Each node a box of dims[i] / split[i] ranks per dimension (the seed's
    dims_ml node level); ranks row-major, line r = node of rank r."""
    blk = [dims[i] // split[i] for i in range(3)]
    with open(path, "w") as f:
        for x in range(dims[0]):
            for y in range(dims[1]):
                for z in range(dims[2]):
                    node = ((x // blk[0]) * split[1] + y // blk[1]) * split[2] + z // blk[2]
                    f.write("n%d\n" % (node + 1))
    return path


def case(sm, base, nodes, t, wdims, wsplit):
    tag = "s003-%s-%d" % ("".join(map(str, base)), nodes)
    mdims = F.SEED003_MPI_DIMS[nodes]
    mspec = sm.spec(tag + "-mpi", mdims, face_stencil(mdims, base), keep=True)
    wspec = sm.spec(tag + "-w", wdims, face_stencil(wdims, base), keep=True)
    rows, cmd = sm.compare(mspec, nodes, F.SEED003_CORES)
    wrows, wcmd = sm.compare(wspec, nodes, F.SEED003_CORES)
    eq, _ = sm.score(mspec, box_hostfile(os.path.join(sm.work, tag + "-eq.hosts"), mdims,
                                         F.SEED003_EQUAL_SPLIT[nodes]))
    sw, _ = sm.score(wspec, box_hostfile(os.path.join(sm.work, tag + "-w.hosts"), wdims, wsplit))
    b = weighted(rows["blocked"], "j_max")
    lines = [(name, weighted(r, "j_sum"), weighted(r, "j_max"), tm) for name, r, tm in [
        ("seed baseline = blocked, dims %s" % "x".join(map(str, mdims)), rows["blocked"], t[0]),
        ("seed equal weights, nodes %s" % "x".join(map(str, F.SEED003_EQUAL_SPLIT[nodes])), eq, t[1]),
        ("seed weighted, dims %s, nodes %s" % ("x".join(map(str, wdims)), "x".join(map(str, wsplit))), sw, t[2]),
        ("**auto**, face weights, dims %s" % "x".join(map(str, mdims)), rows["auto"], None),
        ("**auto**, face weights, seed's dims %s" % "x".join(map(str, wdims)), wrows["auto"], None)]]
    return lines, b, rows, (cmd, wcmd), eq, sw


def seed003(sm, quick, fails, beats):
    out = ["### Seed 003, the halo benchmark (slide 26, Hazel Hen, nodes x 24 cores)", "",
           "Weighted J (edges weighted by the face area they carry, see seed003.py); the seed's time is "
           "its measured communication time, its ratio the seed's own percentage.  J_max/base is each "
           "placement's weighted J_max over the baseline's.", "",
           "| base ratio | nodes | placement | J_sum (w) | J_max (w) | J_max/base | seed time ms | time/base |",
           "|---|---|---|---|---|---|---|---|"]
    cmds = []
    for base, nodes, tb, te, tw, wdims, wsplit in F.SEED003:
        if quick and nodes != 8:
            continue
        lines, b, rows, cmd, eq, sw = case(sm, base, nodes, (tb, te, tw), wdims, wsplit)
        cmds += list(cmd)
        for name, js, jx, tm in lines:
            out.append("| %s | %d | %s | %.0f | %.0f | %.3f | %s | %s |" % (
                ":".join(map(str, base)), nodes, name, js, jx, jx / b,
                "%.3f" % tm if tm else "", "%.0f %%" % (100 * tm / tb) if tm else ""))
        if not no_worse(rows["auto"], rows["blocked"]):
            fails.append("seed 003 %s %d nodes: auto worse than blocked" % (base, nodes))
        ours = min(lines[3][2], lines[4][2])
        for name, seedrow in (("equal weights", eq), ("weighted", sw)):
            if weighted(seedrow, "j_max") < ours:
                beats.append("seed 003 %s on %d nodes, %s: weighted J_max %.0f vs auto's best %.0f" % (
                    ":".join(map(str, base)), nodes, name, weighted(seedrow, "j_max"), ours))
    out += ["", "Commands: ours `stencil-map compare` on each case's two specs; the seed's placements "
            "`stencil-map score SPEC --hostfile H`, H each node a box of the seed's node split "
            "(box_hostfile() in seed003.py):", ""] + ["- `%s`" % c for c in cmds] + [""]
    return out
