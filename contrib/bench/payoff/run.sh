#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The payoff, measured: the halo exchange (MPI_Neighbor_alltoall) on a real
# Slurm whose nodes sit behind rate-shaped links, placed blocked and by each
# algorithm, several times each.  Prints and writes a table (J_sum, J_max,
# median time per iteration, speedup over blocked, min-max spread) and an
# SVG bar chart of the speedups.
#
#   make bench-payoff              (from the build directory), or
#   contrib/bench/payoff/run.sh    (as root)
#
# Every run is launched as a user would launch it: the planned placements
# by `salloc -N.. -n.. srun --stencil-map=SPEC` (the SPANK plugin plans, the
# spec names the algorithm), blocked by a plain `srun` without the option,
# i.e. Slurm's own default block distribution; the halo then gets the grid
# and stencil as arguments.  Each run must report the planned count of
# inter-node messages, so a run that was not the placement it stands for
# fails the bench.
#
# Cases with a sixth column, groups, run on the two-tier network: the
# nodes in groups (leaf switches), each group behind one uplink of
# PAYOFF_UPLINK_RATE (minicluster MINICLUSTER_GROUPS), and Slurm told the
# same groups through topology.conf (MINICLUSTER_TOPOLOGY, topology/tree:
# leaf1..leafK under one root switch), so the plugin plans on the levels
# it reads from Slurm.  There the placements are also scored between the
# groups (G_sum, G_max: messages leaving their group), halo must report the
# planned number of messages crossing leaf switches too, and the levelled
# placements can be run: nodes (auto, the plugin told topology=none: the
# node-only plan), levels-groups and levels-nodes (auto with the levels
# mode groups-first or nodes-first; auto itself is the default mode).
#
# Builds and installs the tree into its own prefix, brings up the
# minicluster in netns mode once per node configuration, and always brings
# it down again (daemons and leftover tasks by pid, links and namespaces by
# the names it recorded).  Bounded: no run starts after PAYOFF_BUDGET
# seconds, and no run may last past PAYOFF_LIMIT.
#
# env: PAYOFF_RATE (200mbit: each node's link, both directions),
#      PAYOFF_DELAY (0; needs netem), PAYOFF_REPS (3), PAYOFF_ITERS (8),
#      PAYOFF_WARMUP (2), PAYOFF_BYTES (262144 per neighbour),
#      PAYOFF_CASES (regex on case names, default all of the cases file),
#      PAYOFF_CASES_FILE (cases.txt beside this script; cases-objective.txt
#      holds allocations where the objectives sum and max place apart),
#      PAYOFF_ALGS (the placements to run, default all: blocked auto
#      auto-sum hyperplane strips kdtree nodecart bisect; auto-sum and
#      auto-max are auto with "objective": "sum" and "max", the plan auto
#      has the default objective, max; on cases with groups also nodes,
#      levels-groups, levels-nodes, see above),
#      PAYOFF_UPLINK_RATE (60mbit: each group's uplink, both directions,
#      on cases with groups; cases-levels.txt has them),
#      PAYOFF_UPLINK_SPEED (unset: the planner takes an uplink as fast as
#      a node link; else the uplinks' speed against a node link, e.g.
#      0.3 for 60mbit uplinks over 200mbit node links, given to the
#      plugin as uplink_speed= and to plan and score as --uplink-speed),
#      PAYOFF_BUDGET (720 s: no new run starts after that),
#      PAYOFF_LIMIT (840 s: a run still going then is stopped),
#      PAYOFF_OUT (results/ beside this script), PAYOFF_PREFIX
#      (/var/lib/smc-payoff-prefix), PAYOFF_BUILD_ROOT
#      (/var/lib/smc-payoff-build), PAYOFF_WORK (/var/lib/smc-payoff-work),
#      PAYOFF_SKIP_BUILD=1 to reuse the install, PAYOFF_PLAN_ONLY=1 to
#      print the planned figures and run nothing, MINICLUSTER_DIR
#      (/var/lib/smc-payoff), MINICLUSTER_PORT_BASE (30800).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-payoff}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-30800}
export MINICLUSTER_NET=netns
export MINICLUSTER_RATE=${PAYOFF_RATE:-200mbit}
export MINICLUSTER_DELAY=${PAYOFF_DELAY:-0}
UPLINK_RATE=${PAYOFF_UPLINK_RATE:-60mbit}
UPLINK_SPEED=${PAYOFF_UPLINK_SPEED:-}
case $UPLINK_SPEED in '' | [0-9]*) ;; *) echo "payoff: PAYOFF_UPLINK_SPEED must be a decimal, e.g. 0.3" >&2; exit 2 ;; esac
# what the planner is told of the uplinks' speed, on cases with groups
speed_args=()
[ -z "$UPLINK_SPEED" ] || speed_args=(--uplink-speed "$UPLINK_SPEED")
PREFIX=${PAYOFF_PREFIX:-/var/lib/smc-payoff-prefix}
ROOT=${PAYOFF_BUILD_ROOT:-/var/lib/smc-payoff-build}
WORK=${PAYOFF_WORK:-/var/lib/smc-payoff-work}
OUT=${PAYOFF_OUT:-$HERE/results}
REPS=${PAYOFF_REPS:-3}
ITERS=${PAYOFF_ITERS:-8}
WARMUP=${PAYOFF_WARMUP:-2}
BYTES=${PAYOFF_BYTES:-262144}
BUDGET=${PAYOFF_BUDGET:-720}
LIMIT=${PAYOFF_LIMIT:-840}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
HALO=$PREFIX/libexec/stencilmap/halo
SO=$PREFIX/lib/slurm/stencil_map.so
# auto right after blocked: it is what a user would ask for, so the
# construction it picks is run through auto's own spec (same placement)
ALGS=${PAYOFF_ALGS:-blocked auto auto-sum hyperplane strips kdtree nodecart bisect}
CASES_FILE=${PAYOFF_CASES_FILE:-$HERE/cases.txt}
[[ " $ALGS " == *" blocked "* && " $ALGS " == *" auto "* ]] ||
    { echo "payoff: PAYOFF_ALGS must include blocked and auto (got '$ALGS')" >&2; exit 1; }

die() { echo "payoff: $*" >&2; exit 1; }
case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    die "PAYOFF_PREFIX, PAYOFF_BUILD_ROOT, PAYOFF_WORK and MINICLUSTER_DIR must be outside /tmp (the nodes' /tmp is private)" ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root (the minicluster needs it)"
for v in REPS ITERS BYTES BUDGET LIMIT; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "PAYOFF_$v must be a positive integer (got '${!v}')"
done
[[ $WARMUP =~ ^[0-9]+$ ]] || die "PAYOFF_WARMUP must be a non-negative integer (got '$WARMUP')"
[ "$BYTES" -ge 8 ] || die "PAYOFF_BYTES must be at least 8 (got '$BYTES')"
[ "$LIMIT" -gt "$BUDGET" ] || die "PAYOFF_LIMIT ($LIMIT) must be more than PAYOFF_BUDGET ($BUDGET)"
command -v python3 >/dev/null || die "python3 not found (contrib/install-deps.sh installs it)"

START=$SECONDS
mkdir -p "$WORK" "$OUT"
# only what an earlier run wrote: WORK may be a directory with other things
rm -rf "$WORK/runs" "$WORK"/spec-*.json "$WORK"/plan-*.json "$WORK"/plan-*.err "$WORK"/hosts-* "$WORK"/offsets-* \
    "$WORK/plans.tsv" "$WORK/runs.tsv" "$WORK/minicluster.log"
mkdir -p "$WORK/runs"

if [ "${PAYOFF_SKIP_BUILD:-0}" != 1 ]; then
    echo "payoff: building into $PREFIX (logs in $ROOT)"
    SMC_BUILD_ROOT="$ROOT" "$TOP/tests/integration/build.sh" "$PREFIX" || die "build failed"
fi
for f in "$SM" "$HALO" "$SO"; do [ -e "$f" ] || die "$f missing; run without PAYOFF_SKIP_BUILD"; done

# ------------------------------------------------------------ cluster ----
CLUSTER_UP=0
CLUSTER_CONF=""
cluster_down() {
    if [ "$CLUSTER_UP" = 1 ]; then
        "$MC" down >>"$WORK/minicluster.log" 2>&1 ||
            echo "payoff: WARNING: minicluster down failed (see $WORK/minicluster.log)" >&2
        CLUSTER_UP=0
        CLUSTER_CONF=""
    fi
}
trap cluster_down EXIT
trap 'echo "payoff: interrupted" >&2; exit 130' INT TERM HUP

cluster_for() { # NODES CPUS [TOPOLOGY]: a cluster of exactly these nodes
    local -a net=()
    [ "$CLUSTER_CONF" = "$1/$2/${3:-}" ] && return 0
    cluster_down
    CLUSTER_UP=1 # first: a half-started cluster is brought down too
    if [ -n "${3:-}" ]; then
        # the groups are the leaf switches of the topology Slurm gets
        net=(MINICLUSTER_TOPOLOGY="$3" MINICLUSTER_GROUPS=topology MINICLUSTER_UPLINK_RATE="$UPLINK_RATE")
        echo "payoff: minicluster up: $1 nodes, cpus $2, links $MINICLUSTER_RATE (delay $MINICLUSTER_DELAY)," \
            "groups $(sed -n 's/^SwitchName=leaf[0-9]* Nodes=//p' "$3" | paste -sd' ') behind $UPLINK_RATE uplinks"
    else
        echo "payoff: minicluster up: $1 nodes, cpus $2, links $MINICLUSTER_RATE (delay $MINICLUSTER_DELAY)"
    fi
    if ! env ${net[@]+"${net[@]}"} MINICLUSTER_NODES="$1" MINICLUSTER_CPUS="$2" "$MC" up >>"$WORK/minicluster.log" 2>&1; then
        tail -40 "$WORK/minicluster.log" >&2
        die "the minicluster did not start"
    fi
    plugstack_for ""
    CLUSTER_CONF="$1/$2/${3:-}"
}

# The plugin's plugstack line for a placement: the node-only plan is the
# plugin told to ignore the network above the nodes (every srun reads the
# file afresh, so it may change between runs).
plugstack_for() { # ALG
    if [ "$1" = nodes ]; then
        echo "required $SO topology=none" >"$MINICLUSTER_DIR/etc/plugstack.conf"
    else
        echo "required $SO${UPLINK_SPEED:+ uplink_speed=$UPLINK_SPEED}" >"$MINICLUSTER_DIR/etc/plugstack.conf"
    fi
}

eval "$(MINICLUSTER_NET=netns "$MC" env)"
# Oversubscribed ranks must yield, or a spinning rank starves the one
# whose data it waits for.
export OMPI_MCA_mpi_yield_when_idle=1
export STENCILMAP_SPECS_DIR=$PREFIX/share/stencilmap/specs
unset SLURM_HOSTFILE $(env | sed -n 's/^\(STENCIL_MAP_[A-Z_]*\)=.*/\1/p')

# ------------------------------------------------------------ plans ------
# plans.tsv: case alg j_sum j_max runner (the algorithm whose identical
# placement is run for it, "-" if infeasible) auto (1 on the construction
# auto picks) nodes ranks cpus, then g_sum g_max ("-" on cases without
# groups: the messages between groups, the most leaving one) groups launch
# (srun, plugin or hostfile: how the runner is launched)
printf 'case\talg\tj_sum\tj_max\trunner\tauto\tnodes\tranks\tcpus\tg_sum\tg_max\tgroups\tlaunch\n' >"$WORK/plans.tsv"
CASES=()
while read -r name dims stencil nodes cpus groups extra; do
    [[ -z $name || $name == \#* ]] && continue
    [[ $name =~ ${PAYOFF_CASES:-.} ]] || continue
    [ -z "${extra:-}" ] || die "$CASES_FILE: case $name: more than 6 columns"
    CASES+=("$name $dims $stencil $nodes $cpus ${groups:--}")
done <"$CASES_FILE"
[ "${#CASES[@]}" -gt 0 ] || die "no case of $CASES_FILE matches PAYOFF_CASES='${PAYOFF_CASES:-}'"
for alg in $ALGS; do
    case $alg in
        blocked | auto | auto-sum | auto-max | hyperplane | strips | kdtree | nodecart | bisect) ;;
        nodes | levels-groups | levels-nodes)
            for c in "${CASES[@]}"; do
                [ "${c##* }" != - ] || die "PAYOFF_ALGS: $alg needs groups, and case ${c%% *} has none"
            done ;;
        *) die "PAYOFF_ALGS: unknown placement '$alg'" ;;
    esac
done

# topology.conf of a case's groups ("node[1-3];node[4-8]", or sizes "3,5"
# in node order): one leaf switch per group and one root switch above them
# (topology/tree schedules a job across leaves only below a common switch)
topology_of() { # CASE GROUPS NODES -> path
    local f=$WORK/topology-$1.conf k=0 g first=1
    : >"$f"
    if [[ $2 =~ ^[0-9]+(,[0-9]+)*$ ]]; then
        for g in ${2//,/ }; do
            k=$((k + 1))
            echo "SwitchName=leaf$k Nodes=node[$first-$((first + g - 1))]" >>"$f"
            first=$((first + g))
        done
        [ $((first - 1)) -eq "$3" ] || { echo "case $1: groups $2 hold $((first - 1)) nodes, the case $3" >&2; return 1; }
    else
        for g in ${2//;/ }; do
            k=$((k + 1))
            echo "SwitchName=leaf$k Nodes=$g" >>"$f"
        done
    fi
    [ "$k" -ge 2 ] || { echo "case $1: groups '$2' name $k group; levels need 2 or more" >&2; return 1; }
    echo "SwitchName=root Switches=leaf[1-$k]" >>"$f"
    echo "$f"
}

# the spec field naming auto's levels mode
LEVELS_MODE_KEY=levels_mode
# How the two levels modes are launched: by the plugin with that field in
# the spec, or, while specs have no such field (the CLI refuses the key),
# as the hostfile `stencil-map plan --levels-mode` writes, given to srun
# by SLURM_HOSTFILE (the placement is the same; the table says which).
MODES_VIA=spec
if [[ " $ALGS " == *" levels-"* ]]; then
    printf '{"grid": {"dims": [4, 4]}, "stencil": "5pt", "algorithm": "auto", "%s": "groups-first"}\n' \
        "$LEVELS_MODE_KEY" >"$WORK/spec-probe.json"
    if ! "$SM" plan "$WORK/spec-probe.json" --nodes "node[1-2]" --slots 8 --topology none >/dev/null 2>"$WORK/spec-probe.err"; then
        grep -q "unknown key '$LEVELS_MODE_KEY'" "$WORK/spec-probe.err" ||
            die "the spec probe for $LEVELS_MODE_KEY failed: $(cat "$WORK/spec-probe.err")"
        MODES_VIA=hostfile
        echo "payoff: specs name no levels mode ('$LEVELS_MODE_KEY' unknown): levels-groups and levels-nodes" \
            "are launched with the hostfile of stencil-map plan --levels-mode"
    fi
fi

# The spec's algorithm and other fields for a placement.
spec_fields() { # ALG
    case $1 in
        auto-max | auto-sum) printf '"algorithm": "auto", "objective": "%s"' "${1#auto-}" ;;
        nodes) printf '"algorithm": "auto"' ;;
        levels-groups | levels-nodes)
            if [ "$MODES_VIA" = spec ]; then
                printf '"algorithm": "auto", "%s": "%s-first"' "$LEVELS_MODE_KEY" "${1#levels-}"
            else
                printf '"algorithm": "auto"'
            fi ;;
        *) printf '"algorithm": "%s"' "$1" ;;
    esac
}

# `stencil-map plan`'s view of the network for a placement: the case's
# topology file (the plugin reads the same groups from Slurm), except for
# the node-only plan; and the levels mode.
plan_topology() { # ALG TOPOLOGY
    case $1 in
        nodes) echo --topology none ;;
        levels-groups | levels-nodes) echo --topology "$2" --levels-mode "${1#levels-}-first" ${speed_args[@]+"${speed_args[@]}"} ;;
        *) echo --topology "$2" ${speed_args[@]+"${speed_args[@]}"} ;;
    esac
}

# How a placement is launched: srun alone (blocked), by the plugin, or by
# a hostfile (the levels modes while specs cannot name them).
launch_of() { # ALG
    case $1 in
        blocked) echo srun ;;
        levels-groups | levels-nodes) [ "$MODES_VIA" = spec ] && echo plugin || echo hostfile ;;
        *) echo plugin ;;
    esac
}

spec_of() { # CASE ALG -> path of its JSON spec
    echo "$WORK/spec-$1-$2.json"
}

# The halo's --stencil for a named stencil: the offsets of the installed
# spec file the plugin reads, in its order ("1,0;-1,0;0,1;0,-1").
offsets_of() { # STENCIL
    python3 - "$STENCILMAP_SPECS_DIR/$1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(";".join(",".join(str(c) for c in o) for o in d["offsets"]))
EOF
}

for c in "${CASES[@]}"; do
    read -r name dims stencil nodes cpus groups <<<"$c"
    topo=-
    if [ "$groups" != - ]; then topo=$(topology_of "$name" "$groups" "$nodes") || die "bad groups"; fi
    ranks=$(awk -v n="$nodes" -v c="$cpus" 'BEGIN { k = split(c, a, ","); s = 0;
        for (i = 1; i <= n; i++) s += (k == 1 ? a[1] : a[i]); print s }')
    p=1
    for d in ${dims//,/ }; do p=$((p * d)); done
    [ "$p" -eq "$ranks" ] || die "case $name: grid $dims has $p ranks, the nodes $ranks slots"
    offsets_of "$stencil" >"$WORK/offsets-$name" ||
        die "case $name: no offsets for stencil '$stencil' in $STENCILMAP_SPECS_DIR"
    printf '{"grid": {"dims": [%s]}, "stencil": "%s", "algorithm": "auto"}\n' "$dims" "$stencil" \
        >"$(spec_of "$name" auto)"
    # (without groups, no --topology: the very command of before the levels)
    topo_args=()
    [ "$topo" = - ] || topo_args=(--topology "$topo" ${speed_args[@]+"${speed_args[@]}"})
    chosen=$("$SM" plan "$(spec_of "$name" auto)" --nodes "node[1-$nodes]" --slots "$cpus" ${topo_args[@]+"${topo_args[@]}"} \
        --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["algorithm"])') ||
        die "case $name: stencil-map plan auto failed"
    # (on levels, the construction auto names is the one it used at one of
    # the levels, not a placement of its own: nothing to mark)
    [ "$topo" = - ] || chosen=""
    for alg in $ALGS; do
        spec=$(spec_of "$name" "$alg")
        printf '{"grid": {"dims": [%s]}, "stencil": "%s", %s}\n' "$dims" "$stencil" "$(spec_fields "$alg")" >"$spec"
        topo_args=()
        # shellcheck disable=SC2207 # (words without blanks: paths under WORK)
        [ "$topo" = - ] || topo_args=($(plan_topology "$alg" "$topo"))
        "$SM" plan "$spec" --nodes "node[1-$nodes]" --slots "$cpus" ${topo_args[@]+"${topo_args[@]}"} --json \
            --hostfile "$WORK/hosts-$name-$alg" >"$WORK/plan-$name-$alg.json" 2>"$WORK/plan-$name-$alg.err"
        rc=$?
        if [ $rc -eq 3 ]; then # infeasible (nodecart on unequal nodes): shown as n/a
            printf '%s\t%s\t-\t-\t-\t0\t%s\t%s\t%s\t-\t-\t%s\t-\n' "$name" "$alg" "$nodes" "$ranks" "$cpus" \
                "$groups" >>"$WORK/plans.tsv"
            continue
        fi
        [ $rc -eq 0 ] || die "case $name: stencil-map plan $alg failed: $(cat "$WORK/plan-$name-$alg.err")"
        # one run serves every algorithm that yields the same placement
        # (a hostfile launch only stands in where no other launch does)
        runner=$alg
        for prev in $ALGS; do
            [ "$prev" = "$alg" ] && break
            [ "$(launch_of "$prev")" = hostfile ] && [ "$(launch_of "$alg")" != hostfile ] && continue
            if [ -e "$WORK/hosts-$name-$prev" ] && cmp -s "$WORK/hosts-$name-$prev" "$WORK/hosts-$name-$alg"; then
                runner=$prev
                break
            fi
        done
        # between the groups: every placement scored on the same levels
        # (the node-only plan and blocked were made without them)
        if [ "$topo" = - ]; then
            echo '{}' >"$WORK/score-$name-$alg.json"
        else
            "$SM" score "$spec" --hostfile "$WORK/hosts-$name-$alg" --topology "$topo" ${speed_args[@]+"${speed_args[@]}"} --json \
                >"$WORK/score-$name-$alg.json" 2>"$WORK/plan-$name-$alg.err" ||
                die "case $name: stencil-map score $alg failed: $(cat "$WORK/plan-$name-$alg.err")"
        fi
        python3 - "$WORK/plan-$name-$alg.json" "$WORK/score-$name-$alg.json" "$name" "$alg" "$runner" \
            "$([ "$alg" = "$chosen" ] && echo 1 || echo 0)" "$nodes" "$ranks" "$cpus" "$groups" "$(launch_of "$runner")" \
            >>"$WORK/plans.tsv" <<'EOF' || die "case $name: bad plan or score JSON for $alg"
import json, sys
d, sc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
g = ["-", "-"]
if "levels" in sc:
    g = [str(sc["levels"][0]["j_sum"]), str(sc["levels"][0]["j_max"])]
    # where the plan reports its levels itself, they are the same
    for lv in d.get("levels", [])[:1]:
        if [str(lv["j_sum"]), str(lv["j_max"])] != g:
            sys.exit("plan says %s/%s between groups, score %s/%s" % (lv["j_sum"], lv["j_max"], g[0], g[1]))
print("\t".join([sys.argv[3], sys.argv[4], str(d["j_sum"]), str(d["j_max"])] + sys.argv[5:10] + g + sys.argv[10:12]))
EOF
    done
done
echo "payoff: plans (auto's choice marked 1):"
column -t -s $'\t' "$WORK/plans.tsv" | sed 's/^/  /'
if [ "${PAYOFF_PLAN_ONLY:-0}" = 1 ]; then
    echo "payoff: PAYOFF_PLAN_ONLY=1: planned only, nothing run ($WORK/plans.tsv)"
    exit 0
fi

# ------------------------------------------------------------ runs -------
# runs.tsv: case runner rep median_us min_us max_us wall_s uplink_drops
# (packets the groups' uplinks dropped during the run, "-" without groups)
printf 'case\trunner\trep\tmedian_us\tmin_us\tmax_us\twall_s\tuplink_drops\n' >"$WORK/runs.tsv"

# Packets dropped so far by the qdiscs of both ends of every uplink (the
# minicluster names them mc<base>u<G> and mc<base>c<G>): a burst larger than
# an uplink's queue costs TCP retransmissions, time the bytes do not show.
uplink_drops() {
    tc -s qdisc show 2>/dev/null | awk -v t="mc$MINICLUSTER_PORT_BASE" '
        $1 == "qdisc" { ours = 0; for (i = 1; i < NF; i++) if ($i == "dev" && $(i + 1) ~ "^" t "[uc][0-9]+$") ours = 1 }
        ours && $1 == "Sent" { for (i = 1; i < NF; i++) if ($i == "(dropped") { sub(",", "", $(i + 1)); n += $(i + 1) } }
        END { print n + 0 }'
}
FAILED_RUNS=0
OVER_BUDGET=0

run_one() { # CASE RUNNER REP NODES RANKS JSUM DIMS GSUM NGROUPS
    local name=$1 alg=$2 rep=$3 nodes=$4 ranks=$5 jsum=$6 dims=$7 gsum=$8 ngroups=$9
    local log=$WORK/runs/$name-$alg-$rep.log t0=$SECONDS rc line limit drops
    local -a how
    if [ "$alg" = blocked ]; then
        # what Slurm does without the plugin's option: block distribution
        how=(srun --kill-on-bad-exit=1 --mpi=pmix "$HALO" --dims "$dims" --stencil "$(cat "$WORK/offsets-$name")")
    elif [ "$(launch_of "$alg")" = hostfile ]; then
        # the plan's hostfile, for srun alone (never in salloc's environment)
        how=(env SLURM_HOSTFILE="$WORK/hosts-$name-$alg" srun --kill-on-bad-exit=1 --mpi=pmix "$HALO" --dims "$dims"
            --stencil "$(cat "$WORK/offsets-$name")")
    else
        how=(srun --kill-on-bad-exit=1 --mpi=pmix --stencil-map="$(spec_of "$name" "$alg")" "$HALO")
    fi
    # never past the limit: the whole bench stays within its time
    limit=$((LIMIT - (SECONDS - START)))
    [ "$limit" -gt 240 ] && limit=240
    [ "$limit" -lt 10 ] && limit=10
    plugstack_for "$alg"
    drops=$(uplink_drops)
    echo "+ salloc -Q -N $nodes -n $ranks ${how[*]} -i $ITERS -w $WARMUP -s $BYTES   ($(cat "$MINICLUSTER_DIR/etc/plugstack.conf"))" >"$log"
    timeout "$limit" salloc -Q -N "$nodes" -n "$ranks" --time=4 \
        "${how[@]}" -i "$ITERS" -w "$WARMUP" -s "$BYTES" >>"$log" 2>&1
    rc=$?
    # the run must be the placement we planned: all ranks checked their
    # halos, on every node, with the plan's inter-node message count
    if [ $rc -ne 0 ] || ! grep -q 'halo check ok' "$log" ||
        ! grep -q "^halo: $ranks ranks on $nodes nodes, .*, $jsum inter-node messages per iteration" "$log"; then
        echo "payoff: FAILED run $name $alg rep $rep (exit $rc), log $log:" >&2
        tail -15 "$log" | sed 's/^/    | /' >&2
        FAILED_RUNS=$((FAILED_RUNS + 1))
        return 1
    fi
    # on groups, also the plan's count of messages between them, counted
    # by halo from the leaf switches Slurm gives each task
    if [ "$gsum" != - ] && ! grep -q "^halo: $ngroups leaf switches (SLURM_TOPOLOGY_ADDR), $gsum inter-switch messages per iteration" "$log"; then
        echo "payoff: FAILED run $name $alg rep $rep: expected $gsum messages between $ngroups leaf switches, log $log:" >&2
        grep '^halo: ' "$log" | sed 's/^/    | /' >&2
        FAILED_RUNS=$((FAILED_RUNS + 1))
        return 1
    fi
    line=$(grep 'time per iteration median' "$log")
    [[ $line =~ median\ ([0-9.]+)\ us,\ min\ ([0-9.]+)\ us,\ max\ ([0-9.]+)\ us ]] ||
        { echo "payoff: no timing in $log" >&2; FAILED_RUNS=$((FAILED_RUNS + 1)); return 1; }
    [ "$gsum" = - ] && drops=- || drops=$(($(uplink_drops) - drops))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$alg" "$rep" "${BASH_REMATCH[1]}" \
        "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" "$((SECONDS - t0))" "$drops" >>"$WORK/runs.tsv"
    printf '  %-20s %-11s rep %d: median %8.1f ms per iteration (%ds)\n' "$name" "$alg" "$rep" \
        "$(awk -v u="${BASH_REMATCH[1]}" 'BEGIN { print u / 1000 }')" "$((SECONDS - t0))"
}

for c in "${CASES[@]}"; do
    read -r name dims stencil nodes cpus groups <<<"$c"
    # the distinct placements of this case, each with its J_sum
    mapfile -t runners < <(awk -F'\t' -v c="$name" '$1 == c && $5 == $2 { print $2 " " $3 " " $10 }' "$WORK/plans.tsv")
    ranks=$(awk -F'\t' -v c="$name" '$1 == c { print $8; exit }' "$WORK/plans.tsv")
    if [ $((SECONDS - START)) -ge "$BUDGET" ]; then OVER_BUDGET=1; break; fi
    topo=""
    ngroups=-
    if [ "$groups" != - ]; then
        topo=$WORK/topology-$name.conf
        ngroups=$(grep -c '^SwitchName=leaf' "$topo")
    fi
    cluster_for "$nodes" "$cpus" "$topo"
    for ((rep = 1; rep <= REPS; rep++)); do
        # rotate the order each repetition: drift hits every placement alike
        nr=${#runners[@]}
        for ((k = 0; k < nr; k++)); do
            if [ $((SECONDS - START)) -ge "$BUDGET" ]; then OVER_BUDGET=1; break 3; fi
            read -r alg jsum gsum <<<"${runners[$(((k + rep - 1) % nr))]}"
            run_one "$name" "$alg" "$rep" "$nodes" "$ranks" "$jsum" "$dims" "$gsum" "$ngroups"
        done
    done
done
cluster_down

# ------------------------------------------------------------ report -----
uplinks=""
awk -F'\t' 'NR > 1 && $12 != "-" { found = 1 } END { exit !found }' "$WORK/plans.tsv" &&
    uplinks=", uplinks $UPLINK_RATE per group and direction"
python3 "$HERE/report.py" --plans "$WORK/plans.tsv" --runs "$WORK/runs.tsv" --out "$OUT" \
    --link-rate "$MINICLUSTER_RATE" --uplink-rate "$UPLINK_RATE" \
    --note "links $MINICLUSTER_RATE per node and direction$uplinks (tbf$([ "$MINICLUSTER_DELAY" != 0 ] && echo "/netem, delay $MINICLUSTER_DELAY")), $BYTES B per neighbour, $ITERS iterations + $WARMUP warm-up, $REPS repetitions" ||
    die "report failed"
echo "payoff: $((SECONDS - START)) s in all; table $OUT/payoff.txt, chart $OUT/payoff.svg, raw data $OUT/runs.tsv"
[ "$OVER_BUDGET" = 0 ] || echo "payoff: WARNING: stopped at the ${BUDGET}s budget; some runs are missing" >&2
[ "$FAILED_RUNS" -eq 0 ] || { echo "payoff: $FAILED_RUNS runs failed" >&2; exit 1; }
[ "$OVER_BUDGET" = 0 ]
