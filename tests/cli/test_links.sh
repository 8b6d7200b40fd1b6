#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil-map on the links above the network levels: --routing,
# --uplinks and --uplink-speed on plan, score and compare, L_max and its bound in the summary, the
# JSON and compare's column; auto with a topology keeping the candidate of
# least L_max (never above any construction's, nor either levels mode's);
# the plan's L_max equal to what the scale bench's linkload.py (SimGrid's
# d-mod-k fat-tree, re-stated in Python) finds on the same hostfile, and
# under --routing direct on its dragonfly equal inside one group and at
# most that across groups; the block swaps lowering auto's L_max below
# every candidate's on the whole tapered tree; bad
# values refused with exit 2 and the option named, counts past the
# step's levels noted and not used.
#
# Needs STENCIL_MAP, STENCILMAP_SPECS_DIR and STENCILMAP_TOP_SRCDIR (set by
# tests/Makefile.am); python3 reads the JSON and runs linkload.py.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
TOP=${STENCILMAP_TOP_SRCDIR:?STENCILMAP_TOP_SRCDIR must name the source tree}
unset SLURM_JOB_NODELIST SLURM_JOB_CPUS_PER_NODE SLURM_NTASKS SLURM_NPROCS SLURM_JOB_ID
: "${STENCILMAP_SPECS_DIR:?STENCILMAP_SPECS_DIR must name stencil-specs/}"
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: cannot read JSON"; exit 1; }

work=$(mktemp -d "${PWD}/cli-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
. "$TOP/tests/lib/checks.sh"
bench=$TOP/contrib/bench/scale

jget() {
    python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if isinstance(v, (dict, list, bool)) else v)' "$1" "$2"
}

run() { # run WANT NAME ARGS...
    want=$1 name=$2
    shift 2
    "$SM" "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    if [ "$rc" -eq "$want" ]; then pass "$name: exit $rc"; else
        fail "$name: exit $rc, wanted $want" "$(head -c 300 "$work/$name.err")"; fi
}

has() { # has NAME out|err TEXT
    if grep -F -q -- "$3" "$work/$1.$2"; then pass "$1: $2 has '$3'"; else
        fail "$1: $2 lacks '$3'" "$(head -c 300 "$work/$1.$2")"; fi
}

le() { # le WHAT A B: A <= B (floats)
    if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) + 1e-9 else 1)' "$2" "$3"; then
        pass "$1: $2 <= $3"
    else
        fail "$1: $2 > $3"
    fi
}

# the scale bench's networks: 1,024 hosts, 32 per leaf switch; the tapered
# tree has 8 uplinks per leaf, which its topology.conf (one "top" switch)
# does not say: --uplinks 8
python3 "$bench/platforms.py" "$work" >/dev/null || fail "platforms.py ran"
topo=$work/fattree-tapered.topology.conf
printf '{"grid": {"dims": [16, 16, 16]}, "stencil": "7pt", "algorithm": "auto"}\n' >"$work/s.json"
job="--nodes host[0-255] --slots 16"

run 0 auto plan "$work/s.json" $job --topology "$topo" --uplinks 8 --json --hostfile "$work/auto.hosts"
check_cmd "plan --json: links.routing is static (the default)" test "$(jget "$work/auto.out" links.routing)" = static
check_cmd "plan --json: auto chose by L_max" test "$(jget "$work/auto.out" links.chosen_by_l_max)" = true
lmax=$(jget "$work/auto.out" links.l_max)
le "the bound is below L_max" "$(jget "$work/auto.out" links.bound)" "$lmax"
le "auto's L_max against blocked's" "$lmax" "$(jget "$work/auto.out" links.blocked.l_max)"
ll=$(python3 "$bench/linkload.py" "$work/fattree-tapered.xml" "$work/auto.hosts" --dims 16,16,16 \
    --stencil 7pt --cross 0 | sed -n 's/^L_max //p')
check_cmd "plan's L_max $lmax is linkload.py's ($ll) on its hostfile" \
    python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 0.01)' "$lmax" "$ll"

for mode in nodes-first groups-first; do
    run 0 "$mode" plan "$work/s.json" $job --topology "$topo" --uplinks 8 --levels-mode $mode --json
    check_cmd "$mode: not chosen by L_max" test "$(jget "$work/$mode.out" links.chosen_by_l_max)" = false
    le "auto's L_max against $mode's" "$lmax" "$(jget "$work/$mode.out" links.l_max)"
done

run 0 cmp compare "$work/s.json" $job --topology "$topo" --uplinks 8 --json
n=$(jget "$work/cmp.out" algorithms | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
i=0
while [ "$i" -lt "$n" ]; do
    alg=$(jget "$work/cmp.out" "algorithms.$i.algorithm")
    case $alg in cyclic | random | scotch) ;; *)
        le "auto's L_max against compare's $alg" "$lmax" "$(jget "$work/cmp.out" "algorithms.$i.links.l_max")" ;;
    esac
    i=$((i + 1))
done
run 0 cmp-text compare "$work/s.json" $job --topology "$topo" --uplinks 8
has cmp-text out "L_max"

run 0 text plan "$work/s.json" $job --topology "$topo" --uplinks 8
has text out "links (static routing, uplinks 8, chosen by it): busiest link"
run 0 adaptive plan "$work/s.json" $job --topology "$topo" --uplinks 8 --routing adaptive --json
check_cmd "adaptive: L_max equals its bound" \
    test "$(jget "$work/adaptive.out" links.l_max)" = "$(jget "$work/adaptive.out" links.bound)"
# block swaps (placement/network/block_swaps.c): on the whole tapered tree
# (32x32x16 on its 1,024 hosts) auto's winner has room above its bound
# under static routing, and the swaps take its L_max strictly below that of
# every candidate it chose among (either levels mode, every construction
# compare runs), which none reaches alone; score on the hostfile finds the
# plan's figures (J, L_max and the leaves'); two runs write the same
# hostfile.
printf '{"grid": {"dims": [32, 32, 16]}, "stencil": "7pt", "algorithm": "auto"}\n' >"$work/big.json"
big="--nodes host[0-1023] --slots 16 --topology $topo --uplinks 8"
run 0 swaps-1 plan "$work/big.json" $big --json --hostfile "$work/swaps-1.hosts"
run 0 swaps-2 plan "$work/big.json" $big --json --hostfile "$work/swaps-2.hosts"
check_cmd "swaps: two runs write the same hostfile" cmp -s "$work/swaps-1.hosts" "$work/swaps-2.hosts"
slmax=$(jget "$work/swaps-1.out" links.l_max)
lt() { # lt WHAT A B: A < B (floats)
    if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) - 1e-9 else 1)' "$2" "$3"; then
        pass "$1: $2 < $3"
    else
        fail "$1: $2 >= $3"
    fi
}
lt "swaps: the bound below L_max" "$(jget "$work/swaps-1.out" links.bound)" "$slmax"
for mode in nodes-first groups-first; do
    run 0 "swaps-$mode" plan "$work/big.json" $big --levels-mode $mode --json
    lt "swaps: auto's L_max below $mode's" "$slmax" "$(jget "$work/swaps-$mode.out" links.l_max)"
done
run 0 swaps-cmp compare "$work/big.json" $big --json
n=$(jget "$work/swaps-cmp.out" algorithms | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
i=0
while [ "$i" -lt "$n" ]; do
    alg=$(jget "$work/swaps-cmp.out" "algorithms.$i.algorithm")
    if [ "$alg" != auto ]; then
        lt "swaps: auto's L_max below compare's $alg" "$slmax" \
            "$(jget "$work/swaps-cmp.out" "algorithms.$i.links.l_max")"
    fi
    i=$((i + 1))
done
run 0 swaps-score score "$work/big.json" --hostfile "$work/swaps-1.hosts" --topology "$topo" \
    --uplinks 8 --json
for f in j_sum j_max links.l_max links.bound links.up_max levels.0.j_sum levels.0.j_max; do
    check_cmd "swaps: score on the hostfile finds the plan's $f" \
        test "$(jget "$work/swaps-score.out" $f)" = "$(jget "$work/swaps-1.out" $f)"
done

# without a topology: the node links alone, the plan as before
run 0 bare plan "$work/s.json" $job --json
check_cmd "without a topology: L_max is the busiest node's J_max" \
    test "$(jget "$work/bare.out" links.l_max)" = "$(jget "$work/bare.out" j_max).0"

# the dragonfly (16 groups of 16 routers x 4 hosts, routers of a group
# and groups joined pairwise, minimal routing): --routing direct, one
# link per two routers and two per two groups.  In one group (16 hosts,
# 4 routers) the model is SimGrid's route; across 4 groups it leaves out
# the hops to the router holding the group link, so it lies at or below.
dtopo=$work/dragonfly.topology.conf
for alg in auto random; do
    printf '{"grid": {"dims": [16, 8, 8]}, "stencil": "7pt", "algorithm": "%s"}\n' $alg >"$work/d1.json"
    run 0 direct-1-$alg plan "$work/d1.json" --nodes 'host[0-15]' --slots 64 --topology "$dtopo" \
        --routing direct --uplinks 1 --json --hostfile "$work/direct-1.hosts"
    check_cmd "direct: links.routing is direct" test "$(jget "$work/direct-1-$alg.out" links.routing)" = direct
    dl=$(jget "$work/direct-1-$alg.out" links.l_max)
    check_cmd "direct: L_max equals its bound" test "$dl" = "$(jget "$work/direct-1-$alg.out" links.bound)"
    ll=$(python3 "$bench/linkload.py" "$work/dragonfly.xml" "$work/direct-1.hosts" --dims 16,8,8 \
        --stencil 7pt --cross 0 | sed -n 's/^L_max //p')
    check_cmd "direct in one group, $alg: L_max $dl is linkload.py's ($ll)" \
        python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 0.01)' "$dl" "$ll"
done
for alg in blocked strips random; do
    printf '{"grid": {"dims": [16, 16, 16]}, "stencil": "7pt", "algorithm": "%s"}\n' $alg >"$work/d4.json"
    run 0 direct-4-$alg plan "$work/d4.json" $job --topology "$dtopo" --routing direct --uplinks 1,2 \
        --json --hostfile "$work/direct-4.hosts"
    ll=$(python3 "$bench/linkload.py" "$work/dragonfly.xml" "$work/direct-4.hosts" --dims 16,16,16 \
        --stencil 7pt --cross 0 | sed -n 's/^L_max //p')
    le "direct over 4 groups, $alg: L_max at most linkload.py's" \
        "$(jget "$work/direct-4-$alg.out" links.l_max)" "$ll"
done
# random's busiest link is a pair of groups': the JSON names both ends
check_cmd "direct: the busiest pair's far end is g[0-3]" \
    python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["links"]
sys.exit(not (l["level"] == 1 and l["where"] in ("g0","g1","g2","g3") and l["to"] in ("g0","g1","g2","g3") and l["to"] != l["where"]))' \
    "$work/direct-4-random.out"

run 2 bad-routing plan "$work/s.json" $job --routing dmodk
has bad-routing err "--routing: static, adaptive or direct, not dmodk"
run 2 bad-uplinks plan "$work/s.json" $job --topology "$topo" --uplinks 0
has bad-uplinks err "--uplinks '0': value 1 must be a count"
run 0 many-uplinks plan "$work/s.json" $job --topology "$topo" --uplinks 8,2 --json
has many-uplinks err "--uplinks '8,2': the step has 1 network level: value 2 on is not used"
check_cmd "--uplinks 8,2 on one level: the plan of --uplinks 8" \
    test "$(jget "$work/many-uplinks.out" links.l_max)" = "$lmax"
run 0 no-topology compare "$work/s.json" $job --topology none --uplinks 8
has no-topology err "(no --topology, or the nodes share one switch)"

# --uplink-speed: each uplink of the level that much of a node link's
# speed.  One placement (blocked) scored at speed 1 and 0.25: its busiest
# uplink carries 4 times the load in node links, its node links the same
printf '{"grid": {"dims": [16, 16, 16]}, "stencil": "7pt", "algorithm": "blocked"}\n' >"$work/b.json"
run 0 speed-1 plan "$work/b.json" $job --topology "$topo" --uplinks 8 --json --hostfile "$work/blocked.hosts"
run 0 speed-q plan "$work/b.json" $job --topology "$topo" --uplinks 8 --uplink-speed 0.25 --json
check_cmd "--uplink-speed 0.25: the JSON says so" \
    test "$(jget "$work/speed-q.out" links.uplink_speed)" = "[0.25]"
check_cmd "without --uplink-speed: no uplink_speed in the JSON" \
    python3 -c 'import json,sys; sys.exit("uplink_speed" in json.load(open(sys.argv[1]))["links"])' "$work/speed-1.out"
check_cmd "--uplink-speed 0.25: the busiest uplink's load is 4 times speed 1's" \
    python3 -c 'import sys; sys.exit(abs(4 * float(sys.argv[1]) - float(sys.argv[2])) > 1e-6)' \
    "$(jget "$work/speed-1.out" links.up_max)" "$(jget "$work/speed-q.out" links.up_max)"
check_cmd "--uplink-speed 0.25: the node links' load unchanged" \
    test "$(jget "$work/speed-1.out" links.node_max)" = "$(jget "$work/speed-q.out" links.node_max)"
run 0 speed-text plan "$work/b.json" $job --topology "$topo" --uplinks 8 --uplink-speed 0.25
has speed-text out "links (static routing, uplinks 8, uplink speed 0.25): busiest link"
# score re-scores a hostfile with it: the plan's figure
run 0 speed-score score "$work/b.json" --hostfile "$work/blocked.hosts" --topology "$topo" --uplinks 8 \
    --uplink-speed 0.25 --json
check_cmd "score --uplink-speed 0.25: plan's L_max" \
    test "$(jget "$work/speed-score.out" links.l_max)" = "$(jget "$work/speed-q.out" links.l_max)"
# auto plans by the slower uplinks: never above blocked's L_max at that speed
run 0 speed-auto plan "$work/s.json" $job --topology "$topo" --uplinks 8 --uplink-speed 0.25 --json
le "auto's L_max at speed 0.25 against blocked's" "$(jget "$work/speed-auto.out" links.l_max)" \
    "$(jget "$work/speed-q.out" links.l_max)"
le "auto's bound at speed 0.25 below its L_max" "$(jget "$work/speed-auto.out" links.bound)" \
    "$(jget "$work/speed-auto.out" links.l_max)"
run 0 speed-cmp compare "$work/s.json" $job --topology "$topo" --uplinks 8 --uplink-speed 0.25 --json
check_cmd "compare --uplink-speed: the JSON says so" \
    test "$(jget "$work/speed-cmp.out" uplink_speed)" = "[0.25]"
# a value for a level the step lacks: noted, not used
run 0 speed-many plan "$work/b.json" $job --topology "$topo" --uplinks 8 --uplink-speed 0.25,2 --json
has speed-many err "--uplink-speed '0.25,2': the step has 1 network level: value 2 on is not used"
check_cmd "--uplink-speed 0.25,2 on one level: the L_max of 0.25" \
    test "$(jget "$work/speed-many.out" links.l_max)" = "$(jget "$work/speed-q.out" links.l_max)"
# bad values: exit 2, the value and its place named
n=0
for bad in 0 -1 nan inf 1e2 1001 0.5, ,0.5 1,1,1,1,1 abc 0x10 "" 1..5; do
    n=$((n + 1))
    run 2 bad-speed-$n plan "$work/b.json" $job --topology "$topo" --uplink-speed "$bad"
    has bad-speed-$n err "--uplink-speed '$bad': value"
done
has bad-speed-9 err "value 5 must be a decimal above 0 and at most 1000"
checks_summary
