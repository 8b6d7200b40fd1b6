#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil-map draw: the SVG is well-formed XML, holds one cell per rank in
# each panel (or blocks whose rank counts add up to every rank), colours
# each rank by the node the placement gives it, and renders (rsvg-convert).
# Plain exit status for automake's harness; one line per check.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
# run outside any allocation: inside one, the job's nodes are the defaults
unset SLURM_JOB_NODELIST SLURM_JOB_CPUS_PER_NODE SLURM_NTASKS SLURM_NPROCS
: "${STENCILMAP_SPECS_DIR:?STENCILMAP_SPECS_DIR must name stencil-specs/}"
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: cannot parse the SVG"; exit 99; }
if ! command -v rsvg-convert >/dev/null 2>&1; then
    echo "rsvg-convert not found: install librsvg2-bin (contrib/install-deps.sh does)"
    exit 99
fi

work=$(mktemp -d "${PWD}/draw-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
. "${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib/checks.sh"

run() { # EXPECTED_RC NAME ARGS...
    want=$1 name=$2
    shift 2
    "$SM" "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    [ "$rc" -eq "$want" ] && pass "$name: exit $rc" ||
        fail "$name: exit $rc, wanted $want: $(head -c 400 "$work/$name.err")"
}

# svg_check NAME SVG RANKS HOSTFILE|- [heat]: XML, cells, colours; renders
svg_check() {
    if python3 - "$2" "$3" "$4" "${5:-}" >"$work/$1.check" 2>&1 <<'PY'; then
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
path, ranks, hostfile, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
root = ET.parse(path).getroot()            # well-formed, or it raises
assert root.tag == ns + "svg", root.tag
names = None
if hostfile != "-":
    names = [l.strip() for l in open(hostfile) if l.strip()]
for pid in ("plan", "blocked"):
    g = [e for e in root.iter(ns + "g") if e.get("id") == pid]
    assert len(g) == 1, "panel %s" % pid
    cells = [r for r in g[0].iter(ns + "rect") if r.get("class") == "cell"]
    counts = [int(c.get("data-count")) for c in cells]
    assert sum(counts) == ranks, "%s: cells hold %d ranks, not %d" % (pid, sum(counts), ranks)
    if ranks <= 4096 and mode != "heat":
        assert len(cells) == ranks and set(counts) == {1}, "%s: %d cells for %d ranks" % (pid, len(cells), ranks)
        assert sorted(int(c.get("data-rank")) for c in cells) == list(range(ranks))
    else:
        assert len(cells) <= 4096, "%s: %d cells" % (pid, len(cells))
    if names and pid == "plan" and len(cells) == ranks:
        # same node, same colour; different nodes, different colours
        col = {}
        for c in cells:
            n = names[int(c.get("data-rank"))]
            assert col.setdefault(n, c.get("fill")) == c.get("fill"), "node %s in two colours" % n
        assert len(set(col.values())) == len(col), "two nodes share a colour"
    if mode == "heat":
        assert all(c.get("fill").startswith("#") for c in cells)
        assert not [l for l in g[0].iter(ns + "g") if l.get("class") == "cut"], "heat mode draws no node lines"
print("%s: ok" % path)
PY
        pass "$1: well-formed, one cell per rank (or blocks adding up to $3 ranks)"
    else
        fail "$1: $(tail -3 "$work/$1.check")"
    fi
    if rsvg-convert -o "$work/$1.png" "$2" 2>"$work/$1.rsvg" && [ -s "$work/$1.png" ]; then
        pass "$1: rsvg-convert renders it"
    else
        fail "$1: rsvg-convert: $(head -c 300 "$work/$1.rsvg")"
    fi
}

# the README's example, planned by draw itself
run 0 readme draw auto:2d:5pt --nodes 'node[1-4]' --slots '16(x2),10,6' --svg "$work/readme.svg"
"$SM" plan auto:2d:5pt --nodes 'node[1-4]' --slots '16(x2),10,6' --hostfile "$work/readme.hosts" >/dev/null
svg_check readme "$work/readme.svg" 48 "$work/readme.hosts"
grep -q 'J_sum 28, J_max 8' "$work/readme.svg" && pass "readme: the plan's figures" || fail "readme: figures"
grep -q 'J_sum 40, J_max 14' "$work/readme.svg" && pass "readme: blocked's figures" || fail "readme: blocked figures"
grep -q 'class="letter"' "$work/readme.svg" && pass "readme: letters on the cells" || fail "readme: no letters"

# an existing placement from a hostfile, with and without the allocation
run 0 hostfile draw auto:2d:5pt --hostfile "$work/readme.hosts" --svg "$work/hostfile.svg"
svg_check hostfile "$work/hostfile.svg" 48 "$work/readme.hosts"
run 0 hostfile-nodes draw auto:2d:5pt --hostfile "$work/readme.hosts" --nodes 'node[1-4]' \
    --slots '16(x2),10,6' --svg "$work/hostfile-nodes.svg" --title 'a <title> & more'
svg_check hostfile-nodes "$work/hostfile-nodes.svg" 48 "$work/readme.hosts"
grep -q 'a &lt;title&gt; &amp; more' "$work/hostfile-nodes.svg" && pass "title is escaped" || fail "title escaping"
run 0 stdout draw auto:2d:5pt --nodes 'n[1-2]' --slots 8 --svg -
svg_check stdout "$work/stdout.out" 16 -

# 3-D: slices side by side, one cell per rank
run 0 3d draw auto:3d:7pt --nodes 'node[1-4]' --slots 8 --svg "$work/3d.svg"
svg_check 3d "$work/3d.svg" 32 -
[ "$(grep -c 'class="slice"' "$work/3d.svg")" -eq 8 ] && pass "3d: 4x4x2, 4 slices per panel labelled" ||
    fail "3d: $(grep -c 'class="slice"' "$work/3d.svg") slice labels"

# periodic: the wrap-around boundaries are drawn dashed
printf '{"grid": {"dims": [6, 10], "periods": [true, true]}, "stencil": "5pt", "algorithm": "hyperplane"}\n' >"$work/per.json"
run 0 periodic draw "$work/per.json" --nodes 'n[1-5]' --slots 12 --svg "$work/per.svg"
svg_check periodic "$work/per.svg" 60 -
python3 -c '
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
r = ET.parse(sys.argv[1]).getroot()
w = [g for g in r.iter(ns + "g") if g.get("class") == "wrap"]
sys.exit(0 if w and any(len(list(g)) for g in w) else 1)' "$work/per.svg" && pass "periodic: dashed wrap lines" ||
    fail "periodic: no wrap lines"

# 1-D
run 0 1d draw auto:1d:nearest --nodes 'n[1-5]' --slots 30 --svg "$work/1d.svg"
svg_check 1d "$work/1d.svg" 150 -

# beyond a few thousand ranks: blocks in the majority node's colour ...
run 0 blocks draw auto:2d:5pt --nodes 'n[001-128]' --slots 128 --svg "$work/blocks.svg"
svg_check blocks "$work/blocks.svg" 16384 -
grep -q 'too many for one cell each' "$work/blocks.svg" && pass "blocks: the picture says so" || fail "blocks: not said"
# ... or, when a node holds fewer ranks than a block, the share of cut edges
run 0 heat draw auto:2d:5pt --nodes 'n[0001-5625]' --slots 16 --svg "$work/heat.svg"
svg_check heat "$work/heat.svg" 90000 - heat
grep -q "share of a block's stencil edges" "$work/heat.svg" && pass "heat: legend" || fail "heat: no legend"

# bad input: exit 2 naming the argument; unwritable output: exit 4
run 2 no-svg draw auto:2d:5pt --nodes 'n[1-2]' --slots 8
grep -q -- "--svg is required" "$work/no-svg.err" && pass "no-svg: named" || fail "no-svg: message"
run 2 no-placement draw auto:2d:5pt --svg "$work/x.svg"
run 2 slots-alone draw auto:2d:5pt --slots 8 --svg "$work/x.svg"
run 2 alg-with-hostfile draw auto:2d:5pt --hostfile "$work/readme.hosts" --algorithm strips --svg "$work/x.svg"
run 2 foreign-node draw auto:2d:5pt --hostfile "$work/readme.hosts" --nodes 'node[1-3]' --slots 16 --svg "$work/x.svg"
grep -q "node 'node4' is not in --nodes" "$work/foreign-node.err" && pass "foreign-node: named" || fail "foreign-node: message"
run 2 over-capacity draw auto:2d:5pt --hostfile "$work/readme.hosts" --nodes 'node[1-4]' --slots 12 --svg "$work/x.svg"
grep -q "node node1 holds 16 ranks but --slots gives it 12" "$work/over-capacity.err" && pass "over-capacity: named" ||
    fail "over-capacity: $(cat "$work/over-capacity.err")"
run 2 size-mismatch draw auto:3d:7pt --hostfile "$work/readme.hosts" --ranks 64 --svg "$work/x.svg"
run 3 infeasible draw auto:2d:5pt --nodes 'n[1-2]' --slots 8 --ranks 20 --svg "$work/x.svg"
run 4 unwritable draw auto:2d:5pt --nodes 'n[1-2]' --slots 8 --svg "$work/no/such/dir/x.svg"
grep -q "cannot create" "$work/unwritable.err" && pass "unwritable: named" || fail "unwritable: message"

# a column-major grid is drawn by its coordinates: the column-major 6x8
# plan is the row-major 8x6 plan transposed, with as many cut lines
printf '{"grid": {"dims": [6, 8], "order": "column-major"}, "stencil": "5pt"}\n' >"$work/cm.json"
run 0 column-major draw "$work/cm.json" --nodes 'node[1-4]' --slots '16(x2),10,6' --svg "$work/cm.svg"
"$SM" plan "$work/cm.json" --nodes 'node[1-4]' --slots '16(x2),10,6' --hostfile "$work/cm.hosts" >/dev/null
svg_check column-major "$work/cm.svg" 48 "$work/cm.hosts"
grep -q 'Rank r is cell r in column-major order' "$work/cm.svg" && pass "column-major: the note says the order" ||
    fail "column-major: the note does not say column-major"
cuts() { # SVG: cut-line elements of the plan and blocked panels
    python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
out = []
for pid in ("plan", "blocked"):
    g = [e for e in root.iter(ns + "g") if e.get("id") == pid][0]
    out.append(sum(len(list(c)) for c in g.iter(ns + "g") if c.get("class") == "cut"))
print(*out)
PY
}
outs() { grep -o '[0-9]* ranks, [0-9]* out[^<]*' "$1"; } # the legend's edges leaving each node
[ -n "$(outs "$work/cm.svg")" ] && [ "$(outs "$work/cm.svg")" = "$(outs "$work/readme.svg")" ] &&
    pass "column-major: the legend's edges per node are the row-major 8x6's" ||
    fail "column-major: legend $(outs "$work/cm.svg" | tr '\n' ';') vs $(outs "$work/readme.svg" | tr '\n' ';')"
[ "$(cuts "$work/cm.svg")" = "$(cuts "$work/readme.svg")" ] &&
    pass "column-major: as many cut lines as the row-major 8x6 ($(cuts "$work/cm.svg"))" ||
    fail "column-major: cut lines $(cuts "$work/cm.svg") vs row-major $(cuts "$work/readme.svg")"

# a weighted stencil: each panel leads with the weighted figures (under
# objective sum, whose plan the figures below are)
printf '{"grid": {"dims": [8, 6]}, "stencil": {"offsets": [[1,0],[-1,0],[0,1],[0,-1]], "weights": [2,2,1,1]}, "objective": "sum"}\n' \
    >"$work/weighted.json"
run 0 weighted draw "$work/weighted.json" --nodes 'node[1-4]' --slots '16(x2),10,6' --svg "$work/weighted.svg"
grep -q 'weighted J_sum 40, J_max 16; J_sum 36, J_max 16' "$work/weighted.svg" &&
    grep -q 'weighted J_sum 76, J_max 26; J_sum 40, J_max 14' "$work/weighted.svg" &&
    pass "weighted: the panels show the weighted figures first" || fail "weighted: no weighted figures"

# inside an allocation the job's nodes, slots and task count are the defaults
SLURM_JOB_NODELIST='node[1-4]' SLURM_JOB_CPUS_PER_NODE='16(x2),10,6' SLURM_NTASKS=48 \
    run 0 in-job draw auto:2d:5pt --svg "$work/in-job.svg"
cmp -s "$work/in-job.svg" "$work/readme.svg" && pass "in-job: the same picture as the explicit form" \
    || fail "in-job: differs from --nodes 'node[1-4]' --slots '16(x2),10,6'"
grep -q "from SLURM_JOB_NODELIST" "$work/in-job.err" && pass "in-job: says it took the job's nodes" \
    || fail "in-job: silent about the defaults"
SLURM_JOB_NODELIST='n[1-9]' SLURM_JOB_CPUS_PER_NODE='1' \
    run 0 in-job-hostfile draw auto:2d:5pt --hostfile "$work/readme.hosts" --svg "$work/in-job-hf.svg"
cmp -s "$work/in-job-hf.svg" "$work/hostfile.svg" && pass "in-job: a --hostfile placement ignores the job" \
    || fail "in-job: --hostfile drawing took the job's nodes"

checks_summary
