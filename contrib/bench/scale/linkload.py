#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The busiest link of a halo exchange on a SimGrid platform of the scale bench.

    linkload.py PLATFORM.xml HOSTFILE --dims 32,32 --stencil 5pt

Routes every message of one exchange (rank r to each stencil neighbour,
row-major, not periodic) the way SimGrid 3.32 routes it on the platform's
<cluster> (src/kernel/routing/FatTreeZone.cpp, DragonflyZone.cpp and the
flat cluster: read at tag v3.32, re-stated here, not copied) and prints the
load of the busiest directed link in messages per unit of link bandwidth:
L_max.  A link of k parallel cables (a dragonfly's blue links) carries k
units; a host's own link one.  Messages inside a host take its loopback
(a fat pipe) and load nothing.

With SPLITDUPLEX links each direction is a link of its own.  L_max * size /
bandwidth is a lower bound of the exchange's time; SimGrid's max-min
sharing adds the flows' other bottlenecks.  SimGrid's network/crosstraffic
(on by default) loads the route back from the receiver with 5 % of each
flow's size as well, so L_max counts that too.

routes(platform) gives a function from a (src host index, dst host index)
pair to the list of (link id, capacity) it crosses; the report uses it.
"""
import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

CROSS = 0.05  # SimGrid's network/crosstraffic: the reverse flow's share


def read_cluster(path):
    """The one <cluster> of a platform file: (topology, params, host count)."""
    root = ET.parse(path).getroot()
    cl = root.find("cluster")
    if cl is None:
        raise ValueError("%s: no <cluster>" % path)
    m = re.fullmatch(r"(\d+)-(\d+)", cl.get("radical", ""))
    if not m or cl.get("prefix") != "host" or cl.get("suffix", "") != "":
        raise ValueError("%s: hosts must be prefix 'host', radical 'A-B', no suffix" % path)
    if cl.get("sharing_policy") != "SPLITDUPLEX":
        raise ValueError("%s: the routes assume sharing_policy SPLITDUPLEX" % path)
    return cl.get("topology", "FLAT"), cl.get("topo_parameters", ""), int(m.group(2)) - int(m.group(1)) + 1


def fattree_routes(params):
    """Two-level FAT_TREE "2;D0,D1;1,U1;1,1": d-mod-k up, unique down."""
    levels, down, up, count = params.split(";")
    d0, d1 = (int(x) for x in down.split(","))
    u0, u1 = (int(x) for x in up.split(","))
    if levels != "2" or u0 != 1 or count != "1,1":
        raise ValueError("fat-tree %s: only 2 levels, 1 leaf per host, single links" % params)

    def route(s, d):
        ls, ld = s // d0, d // d0
        links = [("host_up", s)]
        if ls != ld:
            t = d % u1  # the destination's position mod the up-links (d-mod-k)
            links += [("leaf_up", ls, t), ("top_down", t, ld)]
        links.append(("host_down", d))
        return [(l, 1) for l in links]
    return route


def dragonfly_routes(params):
    """DRAGONFLY "G,B;C,K;R,W;N", minimal routing as SimGrid 3.32 does it."""
    (g, blue), (c, black), (r, green), n = [tuple(int(x) for x in p.split(",")) for p in params.split(";")[:3]] + \
        [int(params.split(";")[3])]
    if g > r:
        raise ValueError("dragonfly %s: SimGrid routes only up to as many groups as routers per chassis" % params)

    def coords(h):
        return h // (c * r * n), (h // (r * n)) % c, (h // n) % r

    def route(s, d):
        sg, sc, sb = coords(s)
        tg, tc, tb = coords(d)
        links = [(("node_up", s), 1)]
        if (sg, sc, sb) != (tg, tc, tb):
            cur = (sg, sc, sb)
            if sg != tg:
                if cur[2] != tg:  # to the router of our chassis numbered as the target group
                    links.append((("green", sg, sc, cur[2], tg), green))
                    cur = (sg, sc, tg)
                if cur[1] != 0:  # to the first chassis
                    links.append((("black", sg, cur[1], 0, cur[2]), black))
                    cur = (sg, 0, tg)
                links.append((("blue", sg, tg), blue))
                cur = (tg, 0, sg)  # arrives at the target group's router numbered as ours
            if tb != cur[2]:
                links.append((("green", tg, cur[1], cur[2], tb), green))
                cur = (tg, cur[1], tb)
            if tc != cur[1]:
                links.append((("black", tg, cur[1], tc, cur[2]), black))
        links.append((("node_down", d), 1))
        return links
    return route


def flat_routes():
    """A flat <cluster> without backbone: the sender's link up, the receiver's down."""
    return lambda s, d: [(("host_up", s), 1), (("host_down", d), 1)]


def routes(platform):
    topology, params, hosts = read_cluster(platform)
    if topology == "FAT_TREE":
        return fattree_routes(params), hosts
    if topology == "DRAGONFLY":
        return dragonfly_routes(params), hosts
    if topology == "FLAT":
        return flat_routes(), hosts
    raise ValueError("%s: topology %s is not modelled" % (platform, topology))


def messages(dims, offsets):
    """(src rank, dst rank) of every message of one exchange."""
    nd = len(dims)
    size = 1
    for x in dims:
        size *= x
    for r in range(size):
        coords, rest = [0] * nd, r
        for i in range(nd - 1, -1, -1):
            coords[i] = rest % dims[i]
            rest //= dims[i]
        for o in offsets:
            t = 0
            for i in range(nd):
                c = coords[i] + o[i]
                if c < 0 or c >= dims[i]:
                    break
                t = t * dims[i] + c
            else:
                yield r, t


def host_index(name):
    m = re.fullmatch(r"host(\d+)", name)
    if not m:
        raise ValueError("hostfile: '%s' is not a host of the platform (hostN)" % name)
    return int(m.group(1))


def link_loads(platform, hostfile, dims, offsets, cross=CROSS):
    """{directed link: load in messages per cable}, with cross-traffic."""
    route, hosts = routes(platform)
    with open(hostfile) as f:
        where = [host_index(l.strip()) for l in f if l.strip()]
    size = 1
    for x in dims:
        size *= x
    if len(where) != size:
        raise ValueError("%s: %d lines for %d ranks" % (hostfile, len(where), size))
    if max(where) >= hosts:
        raise ValueError("%s: host%d is not on the platform (%d hosts)" % (hostfile, max(where), hosts))
    pairs = {}
    for s, d in messages(dims, offsets):
        hs, hd = where[s], where[d]
        if hs != hd:
            pairs[(hs, hd)] = pairs.get((hs, hd), 0) + 1
    load = {}
    for (hs, hd), count in pairs.items():
        for link, cap in route(hs, hd):
            load[link] = load.get(link, 0.0) + count / cap
        for link, cap in route(hd, hs):  # the cross-traffic takes the route back
            load[link] = load.get(link, 0.0) + cross * count / cap
    return load


def offsets_of(stencil, specs_dir):
    with open(os.path.join(specs_dir, stencil + ".json")) as f:
        return json.load(f)["offsets"]


def case_args(doc):
    """A parser with what names one exchange: the platform, the hostfile,
    the grid and the stencil (linkload.py and fluid.py)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("platform")
    ap.add_argument("hostfile")
    ap.add_argument("--dims", required=True)
    ap.add_argument("--stencil", required=True, help="a spec name of the specs directory (5pt, 27pt, ...)")
    ap.add_argument("--specs", default=os.environ.get("STENCILMAP_SPECS_DIR", "stencil-specs"))
    return ap


def main():
    ap = case_args(__doc__)
    ap.add_argument("--top", type=int, default=0, help="also print the N busiest links")
    ap.add_argument("--cross", type=float, default=CROSS,
                    help="the reverse flow's share (SimGrid's 0.05; 0: the messages alone, as the planner's model)")
    a = ap.parse_args()
    try:
        dims = [int(x) for x in a.dims.split(",")]
        load = link_loads(a.platform, a.hostfile, dims, offsets_of(a.stencil, a.specs), a.cross)
    except (OSError, ValueError, KeyError) as e:
        print("linkload: %s" % e, file=sys.stderr)
        return 2
    busiest = sorted(load.items(), key=lambda kv: -kv[1])
    print("L_max %.2f" % (busiest[0][1] if busiest else 0.0))
    for link, v in busiest[:a.top]:
        print("  %-40s %.2f" % (" ".join(str(x) for x in link), v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
