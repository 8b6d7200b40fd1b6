#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil-map with network levels: --topology FILE on plan, compare, score
# and draw (JSON keys, one line per level, exit 2 and a message naming the
# file, line, switch or node for a bad topology; what Slurm accepts
# repaired with a warning, refused with --topology-strict; a step inside
# one leaf planned as without levels), topology.yaml and its
# FILE:NAME planning as the same topology.conf does, --topology none, and
# inside an allocation Slurm's topology through `scontrol show topology`
# (a stand-in scontrol first in PATH prints what Slurm's would, and
# records that SLURM_TOPO_LEN did not reach it).
#
# Needs STENCIL_MAP, STENCILMAP_SPECS_DIR and STENCILMAP_TOP_SRCDIR (set by
# tests/Makefile.am); python3 reads the JSON.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
TOP=${STENCILMAP_TOP_SRCDIR:?STENCILMAP_TOP_SRCDIR must name the source tree}
unset SLURM_JOB_NODELIST SLURM_JOB_CPUS_PER_NODE SLURM_NTASKS SLURM_NPROCS SLURM_JOB_ID
: "${STENCILMAP_SPECS_DIR:?STENCILMAP_SPECS_DIR must name stencil-specs/}"
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: cannot read JSON"; exit 77; }

work=$(mktemp -d "${PWD}/cli-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
. "$TOP/tests/lib/checks.sh"
valid=$TOP/tests/unit/topology/valid
invalid=$TOP/tests/unit/topology/invalid

jget() {
    python3 - "$1" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v)
PY
}

run() {
    want=$1 name=$2; shift 2
    "$SM" "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    if [ "$rc" -eq "$want" ]; then
        pass "$name: exit $rc"
    else
        fail "$name: exit $rc, wanted $want ($(head -c 300 "$work/$name.err"))"
    fi
}

has() { # has NAME out|err TEXT
    if grep -F -q -- "$3" "$work/$1.$2"; then
        pass "$1: $2 has '$3'"
    else
        fail "$1: $2 lacks '$3'" "$(head -c 300 "$work/$1.$2")"
    fi
}

equal() { # equal WHAT GOT WANT
    if [ "$2" = "$3" ]; then pass "$1 = $3"; else fail "$1 is '$2', wanted '$3'"; fi
}

three=$valid/tree-three-tier.conf
nodes='n[1-8]'

# ---- plan ---------------------------------------------------------------
run 0 plan plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three"
has plan out "level 0 (4 groups, file $three): inter-group edges"
has plan out "level 1 (2 groups of groups, file $three)"
run 0 plan-json plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three" --json
equal "plan --json levels" "$(jget "$work/plan-json.out" levels.1.groups)" 2
equal "plan --json level 0 groups" "$(jget "$work/plan-json.out" levels.0.groups)" 4
equal "plan --json topology_source" "$(jget "$work/plan-json.out" topology_source)" "file $three"
equal "plan --json levels_mode" "$(jget "$work/plan-json.out" levels_mode)" best
equal "plan --json format" "$(jget "$work/plan-json.out" format)" 1
j0=$(jget "$work/plan-json.out" levels.0.j_sum)
b0=$(jget "$work/plan-json.out" levels.0.blocked.j_sum)
check "$( [ "$j0" -le "$b0" ] && echo OK )" "plan: level 0 J_sum $j0 <= blocked's $b0"

# the levels change the placement only through auto: blocked is blocked
run 0 plan-blocked plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three" \
    --algorithm blocked --hostfile "$work/blocked-levels"
run 0 plan-blocked-plain plan auto:2d:5pt --nodes "$nodes" --slots 16 --algorithm blocked \
    --hostfile "$work/blocked-plain"
check_cmd "blocked's hostfile is the same with levels" cmp -s "$work/blocked-levels" "$work/blocked-plain"

# nodes-first keeps the node figures of the plan without levels
run 0 plan-plain plan auto:2d:5pt --nodes "$nodes" --slots 16 --json --topology none
run 0 plan-nodes-first plan auto:2d:5pt --nodes "$nodes" --slots 16 --json --topology "$three" \
    --levels-mode nodes-first
equal "nodes-first J_sum" "$(jget "$work/plan-nodes-first.out" j_sum)" "$(jget "$work/plan-plain.out" j_sum)"
equal "nodes-first J_max" "$(jget "$work/plan-nodes-first.out" j_max)" "$(jget "$work/plan-plain.out" j_max)"
check "$(grep -q '"levels"' "$work/plan-plain.out" || echo OK)" "--topology none: no levels in the JSON"
equal "nodes-first: the nodes were placed first" "$(jget "$work/plan-nodes-first.out" groups_first)" false
# groups-first: the construction laid out the groups, and the line says so
# (else "blocked" would read as Slurm's layout)
run 0 plan-groups-first plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three" \
    --levels-mode groups-first
has plan-groups-first out " (groups first), "
run 0 plan-groups-first-json plan auto:2d:5pt --nodes "$nodes" --slots 16 --json --topology "$three" \
    --levels-mode groups-first
equal "groups-first: groups_first" "$(jget "$work/plan-groups-first-json.out" groups_first)" true
check "$(grep -q '(groups first)' "$work/plan-plain.out" "$work/plan-nodes-first.out" || echo OK)" \
    "a plan of the nodes does not say groups first"
run 2 bad-mode plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three" --levels-mode switches
has bad-mode err "--levels-mode: best, groups-first or nodes-first, not switches"

# ---- bad topologies: exit 2, the file and what is wrong ------------------
run 2 bad-loop plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$invalid/loop.conf"
has bad-loop err "$invalid/loop.conf:3: a loop in Switches= through switch 'b'"
run 2 bad-unknown plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$invalid/unknown-switch.conf"
has bad-unknown err "unknown-switch.conf:2: switch 'top': Switches= names unknown switch 's1'"
# ---- what Slurm accepts: repaired with a warning, refused when strict ----
run 0 fix-node plan auto:2d:5pt --nodes 'n[1-9]' --slots 16 --topology "$three"
has fix-node err "--topology: warning: topology $three: node n9 is in no switch: a group of its own"
has fix-node out "level 0 (5 groups, file $three)"
run 2 strict-node plan auto:2d:5pt --nodes 'n[1-9]' --slots 16 --topology "$three" --topology-strict
has strict-node err "node n9 is in no switch"
run 0 fix-two plan auto:2d:5pt --nodes 'n[1-3]' --slots 16 --topology "$valid/two-leaves.conf"
has fix-two err "warning: topology $valid/two-leaves.conf: node n2 is under 2 leaf switches (rails)"
has fix-two out "level 0 (3 groups"
run 2 strict-two plan auto:2d:5pt --nodes 'n[1-3]' --slots 16 --topology "$valid/two-leaves.conf" \
    --topology-strict
has strict-two err "node n2 is in both leaf switches 's0' and 's1'"
run 0 fix-spines plan auto:2d:5pt --nodes 'a[1-4],b[1-4]' --slots 16 \
    --topology "$valid/spines-cable-down.conf" --hostfile "$work/spines.hosts"
has fix-spines err "warning: topology $valid/spines-cable-down.conf: switch 'leaf-a1' is under both 'spine-a1' and 'spine-a2'"
has fix-spines out "level 1 (2 groups of groups, file $valid/spines-cable-down.conf)"
check "$( [ "$(wc -l <"$work/spines.hosts")" -eq 128 ] && echo OK )" "a plan is made on the repaired file"
run 2 strict-spines plan auto:2d:5pt --nodes 'a[1-4],b[1-4]' --slots 16 \
    --topology "$valid/spines-cable-down.conf" --topology-strict
has strict-spines err "spines-cable-down.conf:9: switch 'leaf-a1' is under both 'spine-a1' and 'spine-a2', which list different switches: the groups would not nest"
run 0 fix-rails plan auto:2d:5pt --nodes 'n[1-8]' --slots 16 --topology "$valid/rails-four.conf"
has fix-rails err "node n1 (and 7 more) is under 4 leaf switches (rails): grouped with the nodes under the same set"
has fix-rails out "level 0 (2 groups"
# a step inside one leaf plans byte-identical to no levels, whatever the
# file's upper levels hold (merged spines here)
for step in 'a[1-2]' 'a[3-4]'; do
    run 0 one-leaf plan auto:2d:5pt --nodes "$step" --slots 16 \
        --topology "$valid/spines-cable-down.conf" --hostfile "$work/one-leaf.hosts"
    run 0 one-leaf-none plan auto:2d:5pt --nodes "$step" --slots 16 --topology none \
        --hostfile "$work/one-leaf-none.hosts"
    check_cmd "$step, inside one leaf: the same hostfile as without levels" \
        cmp -s "$work/one-leaf.hosts" "$work/one-leaf-none.hosts"
    equal "$step, inside one leaf: the same summary as without levels" \
        "$(sed 's/ planned in .*//' "$work/one-leaf.out")" \
        "$(sed 's/ planned in .*//' "$work/one-leaf-none.out")"
done
run 2 bad-none-named compare auto:2d:5pt --nodes 'x[1-4]' --slots 4 --topology "$three"
has bad-none-named err "names none of the step's nodes (x1, ...)"
run 2 bad-missing plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$work/nothere.conf"
has bad-missing err "$work/nothere.conf': cannot open"
run 2 bad-dir score auto:2d:5pt --hostfile "$work/blocked-plain" --topology "$work"
has bad-dir err "not a regular file"

# ---- topology.yaml: the same plan as the same network in topology.conf ---
same_plan() { # same_plan NAME NODES CONF OTHER: byte-identical hostfiles from two forms
    run 0 "$1-conf" plan auto:2d:5pt --nodes "$2" --slots 16 --topology "$3" --hostfile "$work/$1.conf.hosts"
    run 0 "$1-yaml" plan auto:2d:5pt --nodes "$2" --slots 16 --topology "$4" --hostfile "$work/$1.yaml.hosts"
    check_cmd "$1: $(basename "$4") plans as $(basename "$3") (the same hostfile)" \
        cmp -s "$work/$1.conf.hosts" "$work/$1.yaml.hosts"
}
same_plan yaml-tree "$nodes" "$three" "$valid/yaml-tree.yaml"
has yaml-tree-yaml out "level 1 (2 groups of groups, file $valid/yaml-tree.yaml)"
same_plan yaml-block 'n[01-16]' "$valid/block-sizes.conf" "$valid/yaml-block-sizes.yaml"
printf 'BlockName=r%d Nodes=a[%d-%d]\n' 1 1 2 2 3 4 3 5 6 4 7 8 >"$work/racks.conf"
echo 'BlockSizes=2,4' >>"$work/racks.conf"
same_plan yaml-named 'a[1-8]' "$work/racks.conf" "$valid/yaml-three-named.yaml:racks"
has yaml-named-yaml out "level 0 (4 groups, file $valid/yaml-three-named.yaml:racks)"
# by content, not by name: topology.yaml text in a file named *.conf
cp "$valid/yaml-tree.yaml" "$work/fabric.conf"
same_plan yaml-by-content "$nodes" "$three" "$work/fabric.conf"
# flat: planned as without a topology, and said so
run 0 yaml-flat plan auto:2d:5pt --nodes "$nodes" --slots 16 \
    --topology "$valid/yaml-three-named.yaml:none-at-all" --hostfile "$work/flat.hosts"
has yaml-flat err "a flat topology, no network levels: planned as without a topology"
run 0 yaml-flat-none plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology none \
    --hostfile "$work/none.hosts"
check_cmd "flat plans as --topology none" cmp -s "$work/flat.hosts" "$work/none.hosts"
run 2 yaml-unknown-name plan auto:2d:5pt --nodes "$nodes" --slots 16 \
    --topology "$valid/yaml-three-named.yaml:spine"
has yaml-unknown-name err "no topology named 'spine' (the file defines fat-tree, racks, none-at-all)"
run 2 yaml-bad plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$invalid/yaml-unknown-key.yaml"
has yaml-bad err "yaml-unknown-key.yaml:4: topology 't': tree: unknown key 'switchs' (switches)"
run 2 yaml-name-on-conf plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three:fabric"
has yaml-name-on-conf err "is in topology.conf syntax"

# saved `scontrol show topology` output, told by content: plans as the
# topology.conf it was printed from, each release's form
cat >"$work/from-2205.conf" <<'EOF'
SwitchName=ibleaf01 LinkSpeed=100 Nodes=cn[001-004]
SwitchName=ibleaf02 LinkSpeed=100 Nodes=cn[005-008]
SwitchName=ibleaf03 LinkSpeed=100 Nodes=cn[009-012]
SwitchName=ibleaf04 LinkSpeed=100 Nodes=cn[013-016]
SwitchName=ibspine01 LinkSpeed=200 Switches=ibleaf[01-02]
SwitchName=ibspine02 LinkSpeed=200 Switches=ibleaf[03-04]
SwitchName=ibcore LinkSpeed=400 Switches=ibspine[01-02]
EOF
same_plan saved-2205 'cn[001-016]' "$work/from-2205.conf" "$valid/saved-2205-tree.saved"
has saved-2205-yaml out "level 1 (2 groups of groups, file $valid/saved-2205-tree.saved)"
printf 'BlockName=nvl72-%02d Nodes=gb200-[%03d-%03d]\n' 1 1 18 2 19 36 3 37 54 4 55 72 >"$work/nvl.conf"
echo 'BlockSizes=18,36,72' >>"$work/nvl.conf"
same_plan saved-2411 'gb200-[010-045]' "$work/nvl.conf" "$valid/saved-2411-block.saved"
run 2 saved-none plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$invalid/saved-none.saved"
has saved-none err 'says "No topology information available": Slurm lists no switch or block on that cluster'
run 2 saved-other plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$invalid/saved-other-line.saved"
has saved-other err "saved-other-line.saved:3: not a line of topology/tree or topology/block"
run 2 saved-name plan auto:2d:5pt --nodes 'cn[001-016]' --slots 16 \
    --topology "$valid/saved-2205-tree.saved:fabric"
has saved-name err 'is saved `scontrol show topology` output'

# repairs and links in plan's own output: text lines and JSON
cable=$valid/saved-2505-tree-cable.saved
run 0 links-text plan auto:2d:5pt --nodes 'hpc-[1-12]' --slots 2 --topology "$cable"
has links-text out "stencil-map: level 0 links: 3 groups of switches, uplinks per group 1-2, LinkSpeed 200"
has links-text out "stencil-map: topology repaired: topology $cable: switch '0x155dfffd33ff7d' is under both"
run 0 links-json plan auto:2d:5pt --nodes 'hpc-[1-12]' --slots 2 --topology "$cable" --json
equal "links-json: uplinks_max" "$(jget "$work/links-json.out" levels.0.links.uplinks_max)" 2
equal "links-json: link_speed_min" "$(jget "$work/links-json.out" levels.0.links.link_speed_min)" 200
equal "links-json: one warning" "$(jget "$work/links-json.out" topology_warnings | python3 -c 'import json,sys; w=json.load(sys.stdin); print(len(w), "merged" in w[0])')" "1 True"
run 0 links-clean plan auto:2d:5pt --nodes 'cn[001-016]' --slots 4 --json \
    --topology "$valid/saved-2205-tree.saved"
equal "links-clean: no warning" "$(jget "$work/links-clean.out" topology_warnings)" "[]"
equal "links-clean: level 1 LinkSpeed" "$(jget "$work/links-clean.out" levels.1.links.link_speed_max)" 200
run 0 links-rails plan auto:2d:5pt --nodes 'dgx[01-08]' --slots 4 --topology "$valid/saved-2605-tree-rails.saved"
has links-rails out "level 0 links: 2 groups of switches, uplinks per group 2, LinkSpeed 400"
has links-rails out "topology repaired: topology $valid/saved-2605-tree-rails.saved: node dgx01 (and 7 more) is under 2 leaf switches (rails)"

# ---- compare and score ---------------------------------------------------
run 0 compare compare auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three"
has compare out "L0_sum"
has compare out "L1_max"
run 0 compare-json compare auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three" --json
equal "compare --json row levels" "$(jget "$work/compare-json.out" algorithms.0.levels.0.groups)" 4
equal "compare --json topology_source" "$(jget "$work/compare-json.out" topology_source)" "file $three"
run 0 score score auto:2d:5pt --hostfile "$work/blocked-plain" --topology "$three" --json
equal "score --json level 0 j_sum" "$(jget "$work/score.out" levels.0.j_sum)" \
    "$(jget "$work/plan-json.out" levels.0.blocked.j_sum)"

# ---- draw ------------------------------------------------------------------
run 0 draw-group draw auto:2d:5pt --nodes "$nodes" --slots 16 --topology "$three" \
    --colour-by group --svg "$work/g.svg"
check "$(grep -q ': l3</title>' "$work/g.svg" && echo OK)" "draw --colour-by group: cells are named by leaf switch (l3)"
check "$(grep -q ': n3</title>' "$work/g.svg" || echo OK)" "draw --colour-by group: no cell named by its node"
run 2 draw-no-levels draw auto:2d:5pt --nodes "$nodes" --slots 16 --colour-by group --svg "$work/h.svg"
has draw-no-levels err "--colour-by group: no network levels"

# ---- inside an allocation: Slurm's topology through scontrol ------------
mkdir "$work/bin"
cat >"$work/bin/scontrol" <<SH
#!/bin/sh
[ "\$1 \$2" = "show topology" ] || exit 1
echo "\${SLURM_TOPO_LEN:-unset}" >"$work/topo_len"
cat "$valid/printed-tree-three.printed"
SH
chmod +x "$work/bin/scontrol"
SLURM_JOB_ID=42 SLURM_TOPO_LEN=20 PATH="$work/bin:$PATH" run 0 slurm-tree \
    plan auto:2d:5pt --nodes "$nodes" --slots 16 --json
has slurm-tree err "inside an allocation: network levels from slurm (topology/tree): 2 levels (4 and 2 groups)"
equal "scontrol ran without SLURM_TOPO_LEN" "$(cat "$work/topo_len" 2>/dev/null)" unset
equal "slurm --json topology_source" "$(jget "$work/slurm-tree.out" topology_source)" "slurm (topology/tree)"
SLURM_JOB_ID=42 PATH="$work/bin:$PATH" run 0 slurm-none-asked \
    plan auto:2d:5pt --nodes "$nodes" --slots 16 --topology none
check "$( [ ! -s "$work/slurm-none-asked.err" ] && echo OK )" "--topology none: Slurm's is not read"
# a topology that does not fit the nodes: a warning, the plan without levels
SLURM_JOB_ID=42 PATH="$work/bin:$PATH" run 0 slurm-misfit plan auto:2d:5pt --nodes 'x[1-4]' --slots 4
has slurm-misfit err "no network levels: topology slurm (topology/tree) names none of the step's nodes"
# topology/flat and friends print nothing
printf '#!/bin/sh\necho "No topology information available" >&2\n' >"$work/bin/scontrol"
SLURM_JOB_ID=42 PATH="$work/bin:$PATH" run 0 slurm-flat plan auto:2d:5pt --nodes "$nodes" --slots 16
has slurm-flat err "no network levels (none: scontrol show topology lists no switches or blocks)"
printf '#!/bin/sh\nexit 1\n' >"$work/bin/scontrol"
SLURM_JOB_ID=42 PATH="$work/bin:$PATH" run 0 slurm-fails plan auto:2d:5pt --nodes "$nodes" --slots 16
has slurm-fails err "scontrol show topology failed (scontrol exited with status 1)"
printf '#!/bin/sh\necho "RingName=r0 Nodes=n[1-8]"\n' >"$work/bin/scontrol"
SLURM_JOB_ID=42 PATH="$work/bin:$PATH" run 0 slurm-ring plan auto:2d:5pt --nodes "$nodes" --slots 16
has slurm-ring err "not a line of topology/tree or topology/block"

checks_summary
