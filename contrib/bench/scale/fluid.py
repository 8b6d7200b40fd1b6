#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A halo exchange's time by a max-min fluid model, SimGrid's sharing weighted.

    fluid.py PLATFORM.xml HOSTFILE --dims 32,32 --stencil 5pt [--bytes B --rate-gbps R]

L_max (linkload.py) is the time only when the busiest link is kept busy
from start to end.  SimGrid's network model does not share a link evenly:
it gives each flow a share in inverse proportion to its sharing penalty,
the route's latency plus weight_S over each link's bandwidth
(network_cm02.cpp at tag v3.32: read, not copied).  On the bench's
platforms every link has the same latency and bandwidth per cable, so
the penalty is the route's length in links: a message through the spines
(4 links) gets half what a message inside a leaf (2 links) gets where the
two share a host's link.  When the host links are nearly as full as the
uplinks, the long messages start slowly and the uplinks finish late.

The model: every message a flow of the same size started at time 0, all
messages between the same two hosts one class (same route, same rate);
rates by weighted progressive filling over the directed links (a link of
k cables has k units), SimGrid's cross-traffic (5 % of each flow on the
route back) included; when a class ends the rates are filled again.
Latency is left out.  It prints L_max and the finish time, in one
message's time over one cable, and in microseconds with --bytes and
--rate-gbps.  On the tapered tree it lies within 2 % of SMPI's time on
every plan block swaps changed (doc/benchmarks.md, "Block swaps").

Needs numpy and scipy (python3-numpy, python3-scipy).
"""
import os
import sys

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import linkload  # noqa: E402  (the bench's routes, read from SimGrid)


def classes(platform, hostfile, dims, offsets, cross):
    """The link x class matrix (1 on the route, cross on the route back),
    the links' capacities, the messages per class and each class's
    penalty (route length)."""
    route, _ = linkload.routes(platform)
    with open(hostfile) as f:
        where = [linkload.host_index(l.strip()) for l in f if l.strip()]
    pairs = {}
    for s, d in linkload.messages(dims, offsets):
        hs, hd = where[s], where[d]
        if hs != hd:
            pairs[(hs, hd)] = pairs.get((hs, hd), 0) + 1
    link_id, cap, rows, cols, vals, count, penalty = {}, [], [], [], [], [], []

    def add(i, links, v):
        for link, k in links:
            if link not in link_id:
                link_id[link] = len(cap)
                cap.append(k)
            rows.append(link_id[link])
            cols.append(i)
            vals.append(v)

    for i, ((hs, hd), c) in enumerate(pairs.items()):
        there = route(hs, hd)
        count.append(c)
        penalty.append(len(there))
        add(i, there, 1.0)
        add(i, route(hd, hs), cross)
    a = sp.csr_matrix((vals, (rows, cols)), shape=(len(cap), len(count)))
    return a, np.array(cap, float), np.array(count, float), np.array(penalty, float)


def fill(a, at, cap, count, penalty, active):
    """Each active class's rate per message: weighted progressive filling."""
    rate = np.zeros(len(count))
    free = active.copy()
    room = cap.copy()
    while free.any():
        use = a @ (count * free / penalty)
        busy = use > 1e-12
        step = np.min(room[busy] / use[busy])
        rate[free] += step / penalty[free]
        room -= use * step
        full = busy & (room <= 1e-9 * cap)
        free &= (at @ full.astype(float)) == 0
    return rate


def finish_time(a, cap, count, penalty):
    """When the last message arrives; every message of size 1."""
    at = a.T.tocsr()
    left = np.ones(len(count))
    active = left > 0
    t = 0.0
    while active.any():
        rate = fill(a, at, cap, count, penalty, active)
        dt = np.min(left[active] / rate[active])
        t += dt
        left[active] -= rate[active] * dt
        active &= left > 1e-9
    return t


def main():
    ap = linkload.case_args(__doc__)
    ap.add_argument("--cross", type=float, default=linkload.CROSS)
    ap.add_argument("--bytes", type=int, default=0, help="message size: also print microseconds")
    ap.add_argument("--rate-gbps", type=float, default=100.0, help="one cable's rate (with --bytes)")
    o = ap.parse_args()
    dims = [int(x) for x in o.dims.split(",")]
    a, cap, count, penalty = classes(o.platform, o.hostfile, dims,
                                     linkload.offsets_of(o.stencil, o.specs), o.cross)
    if not len(count):
        print("L_max 0.0 fluid 0.0")
        return
    lmax = float(np.max(a @ count / cap))
    t = finish_time(a, cap, count, penalty)
    line = "L_max %.1f fluid %.1f" % (lmax, t)
    if o.bytes:
        line += " us %.1f" % (t * o.bytes * 8 / (o.rate_gbps * 1e3))
    print(line)


if __name__ == "__main__":
    main()
