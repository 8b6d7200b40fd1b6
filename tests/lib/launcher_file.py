# SPDX-License-Identifier: GPL-2.0-or-later
"""A launcher's file as a Slurm hostfile (line r = the node of rank r),
read the way the launcher reads it, by this test helper's own parser, not
by launchers/'s readers:

    python3 launcher_file.py LAUNCHER FILE [NODE...]

slurm: one node per line; openmpi: "rank R=HOST slot=C" or "slot=S:C"
lines (a node's slots must differ); mpich: HOST[:COUNT] lines, ranks in
file order; cray: the ranks in the order the launch fills its slots, so
cray needs the launch's slots in order, one NODE argument per slot (e.g.
srun's tasks' nodes in task order).  Exits 1 with a message on anything
malformed."""
import re
import sys


def read(launcher, text, slots):
    node = {}
    if launcher == "openmpi":
        used = {}
        for line in text:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.fullmatch(r"rank (\d+)=([\w.-]+) slot=(\d+(?::\d+)?)", line)
            if not m:
                sys.exit("bad rankfile line %r" % line)
            r, host, slot = int(m.group(1)), m.group(2), m.group(3)
            if r in node:
                sys.exit("rank %d placed twice" % r)
            if (host, slot) in used:
                sys.exit("%s: slot %s of ranks %d and %d" % (host, slot, used[(host, slot)], r))
            node[r] = host
            used[(host, slot)] = r
    elif launcher == "mpich":
        for line in text:
            line = line.split("#")[0].strip()
            if line:
                host, _, count = line.partition(":")
                for _ in range(int(count or 1)):
                    node[len(node)] = host
    elif launcher == "cray":
        order = [int(x) for line in text for x in line.split(",") if x.strip()]
        if sorted(order) != list(range(len(order))):
            sys.exit("the rank order does not list every rank once")
        if len(slots) != len(order):
            sys.exit("%d ranks listed, the launch has %d slots" % (len(order), len(slots)))
        for k, r in enumerate(order):
            node[r] = slots[k]
    elif launcher == "slurm":
        node = dict(enumerate(l.strip() for l in text if l.strip()))
    else:
        sys.exit("unknown launcher %s" % launcher)
    if sorted(node) != list(range(len(node))):
        sys.exit("ranks missing")
    return [node[r] for r in range(len(node))]


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    print("\n".join(read(sys.argv[1], open(sys.argv[2]).read().splitlines(), sys.argv[3:])))
