# SPDX-License-Identifier: GPL-2.0-or-later
"""Paper 001's Figures 6-7 speedups, simulated: its two instances (50x48 on
50 nodes, 75x64 on 100, 48 ranks each) and three stencils, placed blocked,
by strips (the paper's best construction) and by auto, exchanged by the
scale bench's SMPI halo (contrib/bench/scale/halo_smpi.c, its SimGrid
settings) on fat-trees shaped after the paper's machines, speedup =
blocked's time / the placement's.

The machines, as paper 001 section VI-A describes them, and what we built:
- VSC4 and JUWELS: "two-level fat-tree (blocking factor 2:1)", 100 Gbit/s
  (OmniPath, InfiniBand).  Here: leaf switches of 32 hosts with 16 up-links
  (2:1), 100 Gbit/s, 1 us per link.  The leaf size is ours (a 48-port
  switch split 32 down, 16 up); the paper does not give it.
- SuperMUC-NG: islands (of 792 nodes, a public fact of LRZ's) joined 1:4,
  nodes inside an island on a fat-tree; 100 nodes fit in one island, so:
  leaf switches of 24 hosts with 24 up-links (non-blocking), 100 Gbit/s.
Not modelled: the MPI library's protocols (SMPI's plain flow model, no
bandwidth or latency factors), the machines' other jobs, the nodes' own
memory bandwidth (the loopback is 1000 Gbit/s).  One message size: 256 KiB
per neighbour (the scale bench's).
"""
import os
import re
import subprocess
import sys

import seed_figures as F

HERE = os.path.dirname(os.path.abspath(__file__))
SCALE = os.path.join(HERE, "..", "scale")

MACHINES = {  # name -> (SimGrid FAT_TREE parameters, hosts, what it stands for)
    "fattree-2to1": ("2;32,4;1,16;1,1", 128, "VSC4 and JUWELS: two-level fat-tree, 2:1"),
    "fattree-island": ("2;24,5;1,24;1,1", 120, "SuperMUC-NG inside one island: non-blocking"),
}
SMPI_OPTS = ["-no-privatize", "--cfg=smpi/simulate-computation:no", "--cfg=smpi/host-speed:1Gf",
             "--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1", "--cfg=contexts/stack-size:256",
             "--cfg=contexts/guard-size:0", "--cfg=smpi/shared-malloc-blocksize:8388608"]
PLACEMENTS = ["blocked", "strips", "auto"]
BYTES = 262144


def offsets(fam):
    """Paper 001's 2-D stencils as the halo's --stencil."""
    o = {"nearest": [(1, 0), (-1, 0), (0, 1), (0, -1)],
         "component": [(1, 0), (-1, 0)],
         "hops": [(1, 0), (-1, 0), (0, 1), (0, -1), (2, 0), (-2, 0), (3, 0), (-3, 0)]}[fam]
    return ";".join("%d,%d" % v for v in o)


def build(work, smpicc):
    """The scale bench's halo, and the platforms (its cluster_xml)."""
    sys.path.insert(0, SCALE)
    from platforms import cluster_xml
    halo = os.path.join(work, "halo_smpi")
    r = subprocess.run([smpicc, "-O2", "-o", halo, os.path.join(SCALE, "halo_smpi.c")],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("seeds bench: smpicc failed: %s" % r.stderr.strip()[-400:])
    for name, (params, hosts, _) in MACHINES.items():
        with open(os.path.join(work, name + ".xml"), "w") as f:
            f.write(cluster_xml(name, "FAT_TREE", params, "100Gbps", "1us", "1000Gbps", "0.1us", hosts, 48))
    return halo


def simhosts(src, dst):
    """stencil-map's n1..nN as SimGrid's host0..host{N-1}, line by line."""
    with open(src) as f, open(dst, "w") as g:
        hosts = ["host%d" % (int(line.strip()[1:]) - 1) for line in f]
        g.write("\n".join(hosts) + "\n")
    return hosts


def run(work, halo, machine, hostfile, dims, fam):
    """Simulated time per iteration (us); SMPI's map must be the hostfile."""
    hosts = simhosts(hostfile, hostfile + ".sim")
    cmd = ["nice", "-n", "10", "smpirun", "-map", "-platform", os.path.join(work, machine + ".xml"),
           "-hostfile", hostfile + ".sim", "-np", str(len(hosts))] + SMPI_OPTS + [
        halo, "--dims", "%d,%d" % dims, "--stencil", offsets(fam), "-s", str(BYTES), "-i", "1", "--count", "0"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    log = r.stdout + r.stderr
    m = re.search(r"time per iteration median ([0-9.]+) us", log)
    mapped = dict(re.findall(r"\[rank (\d+)\] -> (\S+)", log))
    if r.returncode or not m or [mapped.get(str(i)) for i in range(len(hosts))] != hosts:
        raise SystemExit("seeds bench: simulation failed or not the hostfile's placement (%s on %s): %s"
                         % (hostfile, machine, log.strip()[-400:]))
    return float(m.group(1))


def fig67_sim(sm, quick, fails, beats, smpicc="smpicc"):
    work = os.path.join(sm.work, "sim")
    os.makedirs(work, exist_ok=True)
    halo = build(work, smpicc)
    out = ["### Paper 001, Figures 6-7, simulated: speedup over blocked", "",
           "SimGrid SMPI, the scale bench's halo, %d B per neighbour, one iteration (deterministic); "
           "machines: %s.  Facts used and not modelled: simulate.py's header." % (
               BYTES, "; ".join("`%s` %s (FAT_TREE %s)" % (k, v[2], v[0]) for k, v in MACHINES.items())), "",
           "| N | grid | stencil | machine | blocked us | strips | auto | auto J_max/blocked | paper measured |",
           "|---|---|---|---|---|---|---|---|---|"]
    cases = [(50, (50, 48))] if quick else [(50, (50, 48)), (100, (75, 64))]
    for N, dims in cases:
        for fam in ("nearest", "hops", "component"):
            hf = os.path.join(work, "%d-%s" % (N, fam))
            rows, _ = sm.compare(sm.spec("sim-%d-%s" % (N, fam), dims, fam), N, 48, hostfiles=hf)
            for machine in MACHINES:
                t = {p: run(work, halo, machine, os.path.join(hf, p + ".hosts"), dims, fam) for p in PLACEMENTS}
                out.append("| %d | %dx%d | %s | %s | %.1f | %.2fx | %.2fx | %.3f | %s |" % (
                    N, dims[0], dims[1], fam, machine, t["blocked"], t["blocked"] / t["strips"],
                    t["blocked"] / t["auto"], rows["auto"]["j_max"] / rows["blocked"]["j_max"],
                    F.PAPER_SPEEDUPS[(N, fam)]))
    out.append("")
    return out
