#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil-map dims and grid.dims "weighted" end to end: seed 003's worked
# examples through the command (the dims, the halo per process and per
# node, the ratios), its JSON, plan choosing the weighted dims on the
# nodes before placing, and refusals that name the bad option or field
# with exit status 2.  Plain exit status for automake's harness.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
unset SLURM_JOB_NODELIST SLURM_JOB_CPUS_PER_NODE SLURM_NTASKS SLURM_NPROCS
: "${STENCILMAP_SPECS_DIR:?STENCILMAP_SPECS_DIR must name stencil-specs/}"
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: cannot read JSON"; exit 99; }

work=$(mktemp -d "${PWD}/dims-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

. "${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib/checks.sh"

# jget FILE KEY[.KEY...]: the value at that path of a JSON file
jget() {
    python3 - "$1" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if isinstance(v, (list, dict)) else v)
PY
}

# expect_line DESCRIPTION FILE PATTERN: a line of FILE matches the ERE
expect_line() {
    if grep -Eq "$3" "$2"; then pass "$1"; else fail "$1" "no line like '$3' in: $(cat "$2")"; fi
}

# slide 2: 12 processes on 1800 x 580: 6 x 2, boundary 1180 against 4 x 3's 1286.67
"$SM" dims 12 --ndims 2 --domain 1800,580 >"$work/s2" 2>&1
check_cmd "dims 12 --domain 1800,580 exits 0" test $? -eq 0
expect_line "slide 2: MPI_Dims_create gives 4 x 3, halo 1286.67" "$work/s2" \
    '^MPI_Dims_create +4 x 3 +halo per process 1286\.67$'
expect_line "slide 2: the weighted choice is 6 x 2, halo 1180" "$work/s2" \
    '^weighted +6 x 2 +halo per process 1180$'
expect_line "slide 2: their ratio" "$work/s2" 'per process 0\.917$'

# slide 2: 25 nodes x 24 cores on 3000 x 3000: (5 x 6) x (5 x 4), 2400 per node
"$SM" dims 600 --ndims 2 --domain 3000,3000 --nodes 25 --per-node 24 >"$work/hw" 2>&1
expect_line "slide 2: 30 x 20 with 5 x 5 nodes, 2400 per node" "$work/hw" \
    '^weighted +30 x 20 .*per node 2400 \(nodes 5 x 5\)$'
expect_line "slide 2: MPI_Dims_create's 25 x 24 leaves 6240 per node by sequential ranks" "$work/hw" \
    '^MPI_Dims_create +25 x 24 .*per node 6240 \(nodes 25 x 1\)$'

# the halo benchmark, 1:2:4 on 8 nodes x 2 sockets x 12 (Hazel Hen), as JSON
"$SM" dims 192 --ndims 3 --domain 1,2,4 --nodes 8 --per-node 24 --sockets 2 --json >"$work/hb.json"
check_cmd "dims --json exits 0" test $? -eq 0
check "$( [ "$(jget "$work/hb.json" weighted.dims)" = "[4, 6, 8]" ] && echo OK)" \
    "1:2:4 on 8 x 2 x 12: weighted dims 4 x 6 x 8" "$(jget "$work/hb.json" weighted.dims)"
check "$( [ "$(jget "$work/hb.json" weighted.dims_ml)" = "[[1, 2, 2], [2, 1, 3], [4, 1, 2]]" ] && echo OK)" \
    "1:2:4 on 8 x 2 x 12: dims_ml as the seed's table" "$(jget "$work/hb.json" weighted.dims_ml)"
check "$( [ "$(jget "$work/hb.json" mpi_dims_create.dims_ml)" = "[[8, 1, 1], [1, 2, 3], [1, 1, 4]]" ] && echo OK)" \
    "MPI_Dims_create's 8 x 6 x 4 on the levels as the seed's baseline column" \
    "$(jget "$work/hb.json" mpi_dims_create.dims_ml)"
check "$( [ "$(jget "$work/hb.json" levels)" = "[8, 2, 12]" ] && echo OK)" "the levels are 8 x 2 x 12"
check "$(python3 -c "import sys; sys.exit(0 if abs($(jget "$work/hb.json" ratio.per_node) - 6/17.5) < 1e-9 else 1)" && echo OK)" \
    "the per-node ratio is 6 / 17.5" "$(jget "$work/hb.json" ratio.per_node)"
check "$( [ "$(jget "$work/hb.json" format)" -ge 1 ] && echo OK)" "the JSON has its format number"

# slides 15/18: 625 nodes x 2 x 12, grid 1000 x 1100 x 950: 30 x 25 x 20
"$SM" dims 15000 --ndims 3 --domain 1000,1100,950 --nodes 625 --per-node 24 --sockets 2 >"$work/625" 2>&1
expect_line "625 nodes: 30 x 25 x 20 with nodes 5 x 25 x 5" "$work/625" \
    '^weighted +30 x 25 x 20 .*\(nodes 5 x 25 x 5\)$'

# halo widths and costs: cost 4 on dim 0 of a square grid turns 4 x 4 into 2 x 8
"$SM" dims 16 --ndims 2 --domain 100,100 --halo 1,1 --cost 4,1 >"$work/cost" 2>&1
expect_line "--cost 4,1 chooses 2 x 8" "$work/cost" '^weighted +2 x 8 '

# plan with grid.dims "weighted" chooses the dims on the nodes first
cat >"$work/w.json" <<'JSON'
{"grid": {"dims": "weighted", "ndims": 3, "domain": [1, 2, 4]}, "stencil": "nearest", "sockets": 2}
JSON
"$SM" plan "$work/w.json" --nodes 'n[1-8]' --slots 24 --json >"$work/plan.json"
check "$( [ "$(jget "$work/plan.json" dims)" = "[4, 6, 8]" ] && echo OK)" \
    "plan: grid.dims \"weighted\" gives 4 x 6 x 8 on 8 nodes of 24" "$(jget "$work/plan.json" dims)"

# refusals: exit 2, the option or field named
refuse() { # refuse DESCRIPTION NEEDLE ARGS...
    desc=$1 needle=$2
    shift 2
    "$SM" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$needle" "$work/err"; then pass "$desc"; else
        fail "$desc" "exit $rc, stderr: $(cat "$work/err")"; fi
}
refuse "no --ndims" "--ndims is required" dims 12
refuse "--ndims 9" "--ndims" dims 12 --ndims 9
refuse "N not a count" "N: must be" dims twelve --ndims 2
refuse "--domain with too few numbers" "--domain: must be 3 numbers" dims 12 --ndims 3 --domain 1,2
refuse "--domain with a zero" "--domain[1]" dims 12 --ndims 2 --domain 1,0
refuse "--halo negative" "--halo[0]" dims 12 --ndims 2 --halo -1,1
refuse "--nodes without --per-node" "go together" dims 12 --ndims 2 --nodes 3
refuse "--nodes x --per-node not N" "is not N" dims 12 --ndims 2 --nodes 5 --per-node 2
refuse "--sockets not dividing --per-node" "does not divide" dims 24 --ndims 2 --nodes 2 --per-node 12 --sockets 5
echo '{"grid": {"dims": [4, 4], "cost": [1, 2]}, "stencil": "nearest"}' >"$work/bad.json"
refuse "grid.cost with fixed dims" "grid.cost: used only" plan "$work/bad.json" --nodes 'n[1-2]' --slots 8
"$SM" dims --help >"$work/help"
check_cmd "dims --help exits 0" test $? -eq 0
expect_line "dims --help names --domain" "$work/help" '^--domain G'

# seed 003's halo bench, 4:2:1 on 4 nodes x 8: node boxes 4x1x1 and 2x2x1
# tie in the sum; periodic, the one cutting less between nodes (4x1x1)
"$SM" dims 32 --ndims 3 --domain 4,2,1 --nodes 4 --per-node 8 --periods 1,1,1 >"$work/tie" 2>&1
check_cmd "dims --periods 1,1,1 exits 0" test $? -eq 0
expect_line "periodic 4:2:1 on 4 nodes: the weighted nodes are 4 x 1 x 1" "$work/tie" \
    '^weighted +8 x 2 x 2 .*\(nodes 4 x 1 x 1\)$'
"$SM" dims 32 --ndims 3 --domain 4,2,1 --nodes 4 --per-node 8 >"$work/tie-open" 2>&1
expect_line "open 4:2:1 on 4 nodes: the seed's tie rule, 2 x 2 x 1 (the same cut)" "$work/tie-open" \
    '^weighted +4 x 4 x 2 .*\(nodes 2 x 2 x 1\)$'
"$SM" dims 32 --ndims 3 --periods 1,2,1 >"$work/bad-per" 2>&1
check_cmd "dims --periods 1,2,1: exit 2 naming --periods" \
    sh -c "[ $? -eq 2 ] && grep -q '^stencil-map dims: --periods: each must be 0 (open) or 1' '$work/bad-per'"

checks_summary
