#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Whether two builds of stencil-map plan the same: for speed-ups that must
not change a plan (issue 36, item 6: the plan time with the network model).

    same_plans.py NEW OLD [COUNT [SEED]]

NEW and OLD run stencil-map (a build's libtool wrapper, e.g.
_build/cli/stencil-map, or a script setting LD_LIBRARY_PATH).  COUNT
random instances (default 30, SEED default 36) are planned by both with
--hostfile -: 2-D and 3-D, 5-, 7-, 9- and 27-point, 4-300 nodes of 8-64
slots (uniform, with a short last node, or mixed), between half of the
slots and all of them, a topology.conf of leaves of 4-32 nodes under one
top switch or under spines of 4 leaves, --uplinks 1-8, static or adaptive
routing, each levels mode.  One line per instance; exit 1 when any exit
status or hostfile differs.  Writes its topologies under $TMPDIR."""
import hashlib
import os
import random
import subprocess
import sys
import tempfile


def topology(path, rng, nodes):
    """Leaves of 4-32 nodes, under one top switch or (3 in 10) spines of 4."""
    leaf = rng.choice([4, 8, 16, 32])
    two = rng.random() < 0.3
    with open(path, 'w') as f:
        nl = 0
        for s in range(0, nodes, leaf):
            f.write(f"SwitchName=l{nl} Nodes=n[{s + 1:04d}-{min(nodes, s + leaf):04d}]\n")
            nl += 1
        if two and nl > 4:
            sp = 0
            for s in range(0, nl, 4):
                f.write(f"SwitchName=s{sp} Switches=l[{s}-{min(nl, s + 4) - 1}]\n")
                sp += 1
            f.write(f"SwitchName=top Switches=s[0-{sp - 1}]\n")
            return True
        f.write(f"SwitchName=top Switches=l[0-{nl - 1}]\n")
    return False


def slot_counts(rng, nodes):
    """SLURM_JOB_CPUS_PER_NODE syntax for a random node list; the total."""
    slots = [rng.choice([8, 16, 24, 32, 48, 64]) for _ in range(nodes)]
    if rng.random() < 0.5:
        slots = [slots[0]] * nodes
        if rng.random() < 0.5:
            slots[-1] = rng.choice([4, 8, 12])
    runs = []
    for s in slots:
        if runs and runs[-1][0] == s:
            runs[-1][1] += 1
        else:
            runs.append([s, 1])
    return ','.join(f'{s}(x{c})' if c > 1 else f'{s}' for s, c in runs), sum(slots)


def instance(rng, topo):
    """The plan arguments of one random instance."""
    dim = rng.choice([2, 3])
    st = rng.choice(['5pt', '9pt']) if dim == 2 else rng.choice(['7pt', '27pt'])
    nodes = rng.randint(4, 300)
    counts, total = slot_counts(rng, nodes)
    two = topology(topo, rng, nodes)
    args = ['plan', f'auto:{dim}d:{st}', '--nodes', f'n[0001-{nodes:04d}]', '--slots', counts,
            '--ranks', str(rng.randint(total // 2, total)), '--topology', topo]
    if rng.random() < 0.7 and not two:
        args += ['--uplinks', str(rng.choice([1, 2, 4, 8]))]
    if rng.random() < 0.3:
        args += ['--routing', 'adaptive']
    return args + ['--levels-mode', rng.choice(['best', 'best', 'best', 'groups-first',
                                                'nodes-first'])]


def run(cmd, args):
    r = subprocess.run([cmd] + args + ['--hostfile', '-'], capture_output=True, text=True)
    return r.returncode, hashlib.sha1(r.stdout.encode()).hexdigest(), r.stderr


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    new, old = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 36)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            args = instance(rng, os.path.join(tmp, 'topology.conf'))
            a, b = run(new, args), run(old, args)
            same = a[:2] == b[:2]
            bad += not same
            print('same' if same else 'DIFFERENT', i, args[1], args[3], args[7], args[-1],
                  'exit', a[0], b[0])
            if not same:
                print(a[2][-300:], b[2][-300:], sep='\n')
    print(f'same_plans: {count - bad} of {count} instances planned the same')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
