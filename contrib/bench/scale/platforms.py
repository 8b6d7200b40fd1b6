#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The networks of the scale bench: SimGrid platform files and the
topology.conf that describes the same switches to `stencil-map plan
--topology`.

    platforms.py OUTDIR [--rate 100Gbps] [--lat 1us]

writes, for each network NAME of NETWORKS, OUTDIR/NAME.xml (one SimGrid
<cluster>, hosts host0 .. host1023) and OUTDIR/NAME.topology.conf; and the
calibration's star (OUTDIR/star.xml, 8 hosts, 200 Mbit/s each way to a
non-blocking switch: the netns minicluster's links).

Every network has 1,024 hosts; a job of H hosts gets host0 .. host{H-1}, as
a topology-aware scheduler allocates an empty machine: contiguous hosts.
How SimGrid 3.32 numbers them (src/kernel/routing/FatTreeZone.cpp,
DragonflyZone.cpp, read at tag v3.32):

- FAT_TREE "2;D0,D1;U0,U1;1,1": host i has position i; its label's first
  digit (i mod D0) is its port on the leaf switch, so hosts
  [D0*s, D0*s + D0) hang from leaf switch s.  Every leaf has U1 up-links,
  one to each top switch (D1 leaves per top switch); the up-link a message
  takes is the destination's position mod U1 (d-mod-k), the down path is
  unique.  U1 = D0 is non-blocking, U1 = D0/4 tapered 4:1 above the leaves.
- DRAGONFLY "G,B;C,K;R,1;N": host i is node i mod N of router (blade)
  (i / N) mod R of chassis (i / NR) mod C of group i / NRC.  Routers of a
  chassis are all-to-all (green), routers of the same blade in a group's
  chassis all-to-all (black, K links each), and the B blue links between
  groups i and j leave group i at its router number j (chassis 0, blade j;
  so G <= R).  Minimal routing: to another group via that router.
"""
import argparse
import os
import sys

HOSTS = 1024
CORES = 64  # the most ranks per host of any case; cores matter only for computation, which is off

# name -> (topology, topo_parameters, hosts per leaf switch or router, what it is)
NETWORKS = {
    "fattree": ("FAT_TREE", "2;32,32;1,32;1,1", 32,
                "fat-tree, 32 leaf switches of 32 hosts, 32 top switches: non-blocking"),
    "fattree-tapered": ("FAT_TREE", "2;32,32;1,8;1,1", 32,
                        "fat-tree, 32 leaf switches of 32 hosts, 8 top switches: 4:1 above the leaves"),
    "dragonfly": ("DRAGONFLY", "16,2;1,1;16,1;4", 4,
                  "dragonfly, 16 groups of 16 routers x 4 hosts; routers of a group all-to-all (1 link), "
                  "2 links between every two groups"),
}


def cluster_xml(cid, topology, params, rate, lat, loop_rate, loop_lat, hosts, cores):
    topo = ' topology="%s" topo_parameters="%s"' % (topology, params) if topology else ""
    return ("<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            '<platform version="4.1">\n'
            '  <cluster id="%s" prefix="host" radical="0-%d" suffix="" speed="1Gf" core="%d"\n'
            '           bw="%s" lat="%s" sharing_policy="SPLITDUPLEX"\n'
            '           loopback_bw="%s" loopback_lat="%s"%s/>\n'
            "</platform>\n" % (cid, hosts - 1, cores, rate, lat, loop_rate, loop_lat, topo))


def fattree_topology(params):
    """Leaf switches and the top switches above them (topology.conf)."""
    levels, down, up, _ = params.split(";")
    d0, d1 = (int(x) for x in down.split(","))
    lines = ["# %d leaf switches of %d hosts (SimGrid FAT_TREE %s)" % (d1, d0, params)]
    for s in range(d1):
        lines.append("SwitchName=leaf%d Nodes=host[%d-%d]" % (s, s * d0, s * d0 + d0 - 1))
    lines.append("SwitchName=top Switches=leaf[0-%d]" % (d1 - 1))
    return "\n".join(lines) + "\n"


def dragonfly_topology(params):
    """Routers (hosts on one router), chassis, groups, and the machine."""
    g, c, r, n = (int(p.split(",")[0]) for p in params.split(";"))
    lines = ["# %d groups x %d chassis x %d routers x %d hosts (SimGrid DRAGONFLY %s)" % (g, c, r, n, params)]
    for gi in range(g):
        for ci in range(c):
            for ri in range(r):
                first = ((gi * c + ci) * r + ri) * n
                lines.append("SwitchName=r%d_%d_%d Nodes=host[%d-%d]" % (gi, ci, ri, first, first + n - 1))
    if c > 1:
        for gi in range(g):
            for ci in range(c):
                lines.append("SwitchName=c%d_%d Switches=r%d_%d_[0-%d]" % (gi, ci, gi, ci, r - 1))
    for gi in range(g):
        below = "c%d_[0-%d]" % (gi, c - 1) if c > 1 else "r%d_0_[0-%d]" % (gi, r - 1)
        lines.append("SwitchName=g%d Switches=%s" % (gi, below))
    lines.append("SwitchName=top Switches=g[0-%d]" % (g - 1))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--rate", default="100Gbps", help="every link (default 100Gbps)")
    ap.add_argument("--lat", default="1us", help="every link's latency (default 1us)")
    ap.add_argument("--loopback-rate", default="1000Gbps", help="inside a host (default 1000Gbps)")
    ap.add_argument("--loopback-lat", default="0.1us")
    ap.add_argument("--star-rate", default="200Mbps", help="the calibration star's links (default 200Mbps)")
    ap.add_argument("--star-hosts", type=int, default=8)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for name, (topology, params, _, _) in NETWORKS.items():
        with open(os.path.join(a.outdir, name + ".xml"), "w") as f:
            f.write(cluster_xml(name, topology, params, a.rate, a.lat, a.loopback_rate, a.loopback_lat,
                                HOSTS, CORES))
        with open(os.path.join(a.outdir, name + ".topology.conf"), "w") as f:
            f.write(fattree_topology(params) if topology == "FAT_TREE" else dragonfly_topology(params))
    # the calibration: one link per host to a switch that never blocks
    # (a flat <cluster> without backbone), the netns links' rate; loopback
    # as fast as the big networks' (the minicluster's loopback is a memcpy)
    with open(os.path.join(a.outdir, "star.xml"), "w") as f:
        f.write(cluster_xml("star", None, None, a.star_rate, "1us", a.loopback_rate, a.loopback_lat,
                            a.star_hosts, CORES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
