#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin on network levels, on a real Slurm that knows its topology
# (contrib/minicluster with MINICLUSTER_TOPOLOGY): 4 nodes of 8 CPUs under
# two leaf switches (topology/tree), then, where the release has
# topology/block (23.11 and later), in two blocks, and where it reads
# topology.yaml (25.05 and later), both at once: the tree the default, the
# blocks a partition's.  srun --stencil-map as a
# user runs it: every rank on the node the CLI plans with the same
# topology, the summary line and the audit record give the edges between
# groups as `stencil-map score --topology` counts them from where the ranks
# ran, stencil-map-verify observes them, and `stencil-map audit` re-scores
# them.  A site file (topology=FILE) and topology=none in plugstack.conf;
# every bad topology fails the step naming the problem, or under
# on_error=blocked launches blocked and says so, never another placement
# than the one reported.  slurmctld itself on a topology.conf that does not
# nest (a node under two leaf switches; a node in no switch, which Slurm
# leaves out of every job): the step placed on the repaired levels, warned,
# recorded and audited, or refused under topology_strict=yes.  Prints "ok NAME" / "FAIL NAME" and "N passed, M
# failed", and always brings the cluster down.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-topology), MINICLUSTER_PORT_BASE
#      (16300), TOPO_PREFIX (/var/lib/smc-topology-prefix), TOPO_BUILD_ROOT
#      (/var/lib/smc-topology-build), TOPO_WORK (/var/lib/smc-topology-work),
#      TOPO_SKIP_BUILD=1 to reuse the install, TOPO_ONLY=REGEX to run only
#      the tests whose names match.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-topology}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-16300}
PREFIX=${TOPO_PREFIX:-/var/lib/smc-topology-prefix}
ROOT=${TOPO_BUILD_ROOT:-/var/lib/smc-topology-build}
WORK=${TOPO_WORK:-/var/lib/smc-topology-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
VERIFY=$PREFIX/bin/stencil-map-verify
SO=$PREFIX/lib/slurm/stencil_map.so
RECORDS=$WORK/records
TASK=$WORK/task.sh
USER1=stencilmap-u1
SUITE=topology
ONLY=${TOPO_ONLY:-}
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: TOPO_PREFIX, TOPO_BUILD_ROOT, TOPO_WORK and MINICLUSTER_DIR must be outside /tmp" >&2
    exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
for cmd in "$MC" runuser useradd python3; do
    command -v "$cmd" >/dev/null || { echo "run.sh: FATAL: $cmd not found" >&2; exit 1; }
done

# as CMD...: a client command as an ordinary user (in the work directory,
# which that user can read)
as() { (cd "$WORK" && mc runuser -u "$USER1" -- "$@"); }

# whether the release under test has topology/block: 23.11 and later
has_block() { slurm_release_at_least 23.11.0; }

# whether the release reads topology.yaml (several topologies, one per
# partition): 25.05 and later
has_yaml() { slurm_release_at_least 25.05.0; }

topo_up() { # FILE
    MINICLUSTER_TOPOLOGY=$1 cluster_up 8
}

# summary_levels ERR -> "X Y" of the line's first ", between WORD X (blocked Y)"
summary_level() {
    sed -n 's/^stencil-map: .* inter-node edges [0-9]* (blocked [0-9]*), between \(switches\|blocks\) \([0-9]*\) (blocked \([0-9]*\)).*$/\1 \2 \3/p' "$1" | tail -1
}

# ------------------------------------------------------------ tests ------
# A step placed on Slurm's own topology (or the site's file with FILE):
# ranks where `stencil-map plan --topology` puts them, the group figures of
# the summary and the record those of `stencil-map score --topology` of
# where the ranks ran, the record's groups those of the file.
# PARTITION=NAME: the job in that partition.
t_placed() { # SPEC TOPOLOGY_FILE WORD SOURCE GROUPS(json)
    local spec=$1 file=$2 word=$3 source=$4 groups=$5 part=()
    [ -z "${PARTITION:-}" ] || part=(-p "$PARTITION")
    as salloc "${part[@]}" -N4 -n32 srun --stencil-map="$spec" "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    verify_run "$spec" out err 32 --topology "$file" || return 1
    local got w x y
    got=$(summary_level err)
    read -r w x y <<<"$got"
    [ -n "$got" ] && [ "$w" = "$word" ] || { fail "no ', between $word X (blocked Y)' on srun's line"; return 1; }
    sort -n out | awk '/^[0-9]+ / { print $2 }' >observed
    local nodelist cpus
    read -r _ _ _ _ _ nodelist cpus _ < <(sort -n out | head -1)
    "$SM" plan "$spec" --nodes "$nodelist" --slots "$cpus" --ranks 32 --algorithm blocked \
        --hostfile blocked.hosts >/dev/null || { fail "blocked plan failed"; return 1; }
    "$SM" score "$spec" --hostfile observed --ranks 32 --topology "$file" --json >score.json &&
        "$SM" score "$spec" --hostfile blocked.hosts --ranks 32 --topology "$file" --json \
            >score-blocked.json || { fail "stencil-map score --topology failed"; return 1; }
    local sx sy
    sx=$(json_get score.json 'd["levels"][0]["j_sum"]')
    sy=$(json_get score-blocked.json 'd["levels"][0]["j_sum"]')
    [ "$x" = "$sx" ] && [ "$y" = "$sy" ] ||
        { fail "srun said between $word $x (blocked $y); stencil-map score --topology: $sx (blocked $sy)"; return 1; }
    echo "between $word: srun $x (blocked $y) = score --topology of where the ranks ran"
    if [ "${MORE_WITHOUT_LEVELS:-0}" = 1 ]; then
        # the levels changed what was launched: the plan without them cuts more
        local z
        "$SM" plan "$spec" --nodes "$nodelist" --slots "$cpus" --ranks 32 --topology none \
            --hostfile nolevels.hosts >/dev/null &&
            "$SM" score "$spec" --hostfile nolevels.hosts --ranks 32 --topology "$file" --json \
                >score-nolevels.json || { fail "plan without levels failed"; return 1; }
        z=$(json_get score-nolevels.json 'd["levels"][0]["j_sum"]')
        [ "$z" -gt "$x" ] || { fail "the plan without levels cuts $z between $word, srun's $x: the test cannot tell"; return 1; }
        echo "without levels the plan would cut $z between $word"
    fi
    local rec
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["topology"]["source"]')" = "$source" ] ||
        { fail "record topology.source is not '$source'"; json_get "$rec" 'd.get("topology")'; return 1; }
    [ "$(json_get "$rec" 'd["topology"]["levels"][0]["node_groups"]')" = "$groups" ] ||
        { fail "record node_groups are not $groups"; return 1; }
    [ "$(json_get "$rec" 'd["topology"]["levels"][0]["j_sum"]')" = "$x" ] &&
        [ "$(json_get "$rec" 'd["topology"]["levels"][0]["blocked_j_sum"]')" = "$y" ] &&
        [ "$(json_get "$rec" 'd["topology"]["levels"][0]["j_max"]')" = "$(json_get score.json 'd["levels"][0]["j_max"]')" ] ||
        { fail "record figures between groups differ"; json_get "$rec" 'd["topology"]'; return 1; }
    echo "record: source $source, groups $groups, J_sum $x, blocked $y"
}

# stencil-map-verify: observed = planned between groups, kept beside the
# record, and stencil-map audit re-scores the record and agrees
t_verify() { # SPEC
    local spec=$1
    pmix_step out err as salloc -N4 -n32 srun --mpi=pmix --stencil-map="$spec" "$VERIFY" -v ||
        { fail "stencil-map-verify failed"; cat out err; return 1; }
    cat err out
    grep -q '^stencil-map-verify: OK ' out || { fail "no OK line"; return 1; }
    local line x
    line=$(grep '^  level 0, between groups: ' out) || { fail "no level 0 line"; return 1; }
    x=$(summary_level err | awk '{ print $2 }')
    [[ $line == "  level 0, between groups: J_sum planned $x observed $x, J_max planned "* ]] ||
        { fail "level 0: planned $x not observed: $line"; return 1; }
    local pm om
    pm=$(sed -n 's/.*J_max planned \([0-9]*\) observed \([0-9]*\)$/\1/p' <<<"$line")
    om=$(sed -n 's/.*J_max planned \([0-9]*\) observed \([0-9]*\)$/\2/p' <<<"$line")
    [ -n "$pm" ] && [ "$pm" = "$om" ] || { fail "level 0 J_max planned $pm, observed $om"; return 1; }
    local result rec
    result=$(sed -n 's/^  result recorded in //p' out)
    rec=${result%.verify.json}.json
    [ -f "$result" ] && [ -f "$rec" ] || { fail "no in-job result beside the record ($result)"; return 1; }
    # the levels against the record and the in-job result; what Slurm says
    # of the step's nodes is the audit suite's (--no-slurm: a job still
    # completing lists fewer nodes on 26.05)
    mc "$SM" audit --no-slurm --record "$rec" >audit.txt 2>&1 ||
        { fail "stencil-map audit --record $rec says it is not consistent"; cat audit.txt; return 1; }
    cat audit.txt
    grep -q "topology .*1 level above the nodes" audit.txt &&
        grep -q "level 0 observed J_sum $x, J_max $om between groups (as in the record)" audit.txt ||
        { fail "audit does not show the level or the in-job result"; return 1; }
}

# levels_mode=MODE in plugstack.conf: the step planned that way (as
# stencil-map plan --levels-mode MODE plans it), srun's line and the record
# say so, and stencil-map audit prints it
t_mode() { # SPEC MODE
    local spec=$1 mode=$2
    as salloc -N4 -n32 srun --stencil-map="$spec" "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    # (the busiest link follows: the step has levels)
    grep -qE "^stencil-map: .*, levels $mode, busiest link [0-9.e+]+ \(bound [0-9.e+]+\)\$" err ||
        { fail "srun's line does not end in ', levels $mode, busiest link L (bound B)'"; return 1; }
    if [ "$mode" = groups-first ]; then # the construction laid out the groups
        grep -q "^stencil-map: [a-z]* (groups first), " err ||
            { fail "srun's line does not say the groups were laid out first"; return 1; }
    fi
    verify_run "$spec" out err 32 --topology "$WORK/tree.conf" --levels-mode "$mode" || return 1
    local rec
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["topology"]["mode"]')" = "$mode" ] ||
        { fail "record topology.mode is not $mode"; return 1; }
    mc "$SM" audit --no-slurm --record "$rec" >audit.txt 2>&1 ||
        { fail "stencil-map audit --record $rec says it is not consistent"; cat audit.txt; return 1; }
    grep -q "1 level above the nodes, planned $mode\$" audit.txt ||
        { fail "audit does not print the mode"; cat audit.txt; return 1; }
    echo "levels_mode=$mode: planned, said, recorded and audited so"
}

# topology=none (or a flat Slurm): planned, printed and recorded as without
# a topology
t_none() { # SPEC
    local spec=$1
    as salloc -N4 -n32 srun --stencil-map="$spec" "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    if grep -q 'between' err; then fail "srun's line has figures between groups"; return 1; fi
    verify_run "$spec" out err 32 --topology none || return 1
    local rec
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    if grep -q '"topology"' "$rec"; then fail "the record has a topology"; return 1; fi
    [ "$(json_get "$rec" 'd.get("topology_source")')" = none ] ||
        { fail "the record's topology_source is not 'none'"; return 1; }
    "$SM" audit --record "$rec" >audit.txt 2>&1 || true
    grep -q "topology .*none: no level above the nodes" audit.txt ||
        { fail "audit does not say the step had no level"; cat audit.txt; return 1; }
    awk '$0 ~ /STENCIL_MAP_LEVEL/ { exit 1 }' out || { fail "tasks got level variables"; return 1; }
    echo "no levels: summary, placement and record as without a topology"
}

# a topology Slurm accepts that does not nest (a node under two leaf
# switches, a node in no switch): repaired, not refused, unless
# topology_strict=yes; srun warns naming what it repaired and places the
# step on the levels it kept
t_repaired() { # WANT_REGEX PLUGSTACK_ARGS...
    local want=$1
    shift
    plugstack "$@"
    as salloc -N4 -n32 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    grep -qE "^stencil-map: warning: .*$want" err || { fail "no warning naming '$want'"; return 1; }
    if grep -q 'launching WITHOUT stencil placement' err; then fail "launched blocked"; return 1; fi
    grep -q "^stencil-map: .*between switches" err ||
        { fail "srun's line has no figures between switches"; return 1; }
    [ "$(awk '/^[0-9]+ / { n++ } END { print n + 0 }' out)" -eq 32 ] ||
        { fail "not every task ran"; return 1; }
    echo "repaired: warned naming '$want', placed on the levels kept"
}

# Slurm itself runs with a topology.conf that does not nest (slurmctld logs
# "Multiple leaf switches contain nodes" or "switches lack access to N
# nodes" and goes on, in 22.05, 24.11 and 26.05 alike) and the plugin takes
# its levels from Slurm: the step is placed where `stencil-map plan
# --topology` puts it on the same file (repaired the same way), srun warns
# and counts the repairs on its line, the record keeps Slurm as the source,
# the repaired groups and the warnings, and `stencil-map audit` prints them.
t_slurm_repaired() { # WANT_REGEX FILE GROUPS(json)
    local want=$1 file=$2 groups=$3
    plugstack
    as salloc -N4 -n32 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    grep -qE "^stencil-map: warning: .*$want" err || { fail "no warning naming '$want'"; return 1; }
    if grep -q 'launching WITHOUT stencil placement' err; then fail "launched blocked"; return 1; fi
    grep -qE "^stencil-map: .*between switches .*, topology repaired [0-9]+ times?" err ||
        { fail "srun's line has no figures between switches or no repair count"; return 1; }
    verify_run auto:2d:5pt out err 32 --topology "$file" || return 1
    local rec
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["topology"]["source"]')" = "slurm (topology/tree)" ] ||
        { fail "record topology.source is not Slurm's"; json_get "$rec" 'd.get("topology")'; return 1; }
    [ "$(json_get "$rec" 'd["topology"]["levels"][0]["node_groups"]')" = "$groups" ] ||
        { fail "record node_groups are not $groups"; json_get "$rec" 'd["topology"]'; return 1; }
    json_get "$rec" 'd["topology_warnings"]' | grep -qE "$want" ||
        { fail "record topology_warnings do not name '$want'"; return 1; }
    mc "$SM" audit --no-slurm --record "$rec" >audit.txt 2>&1 ||
        { fail "stencil-map audit --record $rec says it is not consistent"; cat audit.txt; return 1; }
    cat audit.txt
    grep -qE "repaired .*$want" audit.txt || { fail "audit does not show the repair"; return 1; }
    echo "Slurm's own topology repaired: warned, placed as plan --topology, groups $groups recorded and audited"
}

# slurmctld's log says it read the file and warned, as each release's
# topology/tree does (22.05 topology_tree.c, 24.11 and 26.05
# switch_record.c), and it runs on
t_slurmctld_warned() { # WANT_REGEX
    local log=$MINICLUSTER_DIR/log/slurmctld.log
    grep -E "$1" "$log" || { fail "slurmctld's log has no '$1'"; tail -20 "$log"; return 1; }
    mc scontrol show topology >topo.txt || { fail "scontrol show topology failed"; return 1; }
    cat topo.txt
    echo "slurmctld ran with the file and warned"
}

# A node in no switch: Slurm's topology/tree leaves it out of every job
# of several nodes (the tree's switches are where it looks for them: 22.05
# and 26.05 refuse a job that needs it with "Requested node configuration
# is not available", 24.11 with "Requested topology configuration is not
# available").  22.05 and 24.11 refuse it even alone (-w); 26.05 gives a
# one-node job any node: that step, whose nodes Slurm's topology does not
# list, is planned on its node with a warning (recorded), and refused
# under topology_strict=yes.  The 3 nodes in the tree are placed on
# Slurm's levels with no repair and no warning, strict or not.
t_slurm_missing() { # STRICT(0|1)
    local strict=$1
    slurm_release_at_least 22.05.0 # sets SLURM_RELEASE
    if [ "$strict" = 1 ]; then plugstack topology_strict=yes; else plugstack; fi
    if as salloc -N4 -n32 srun hostname >out 2>err; then
        fail "Slurm gave a job the node in no switch: the test expects it left out"; cat err out
        return 1
    fi
    cat err
    grep -qE 'Requested (node|topology) configuration is not available' err ||
        { fail "salloc -N4 was not refused as Slurm refuses a node out of the tree"; return 1; }
    local rc=0
    as salloc -N1 -w node4 -n8 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err || rc=$?
    cat err
    if grep -qE 'Requested (node|topology) configuration is not available' err; then
        echo "Slurm $SLURM_RELEASE refuses node4 even alone"
    elif [ "$strict" = 1 ]; then
        [ "$rc" -ne 0 ] && grep -q '^stencil-map: .*node node4 is in no switch' err ||
            { fail "strict: the step on node4 alone did not fail naming it"; return 1; }
        echo "Slurm $SLURM_RELEASE gives node4 alone; strict: the step failed naming it"
    else
        [ "$rc" -eq 0 ] || { fail "the step on node4 alone failed"; return 1; }
        grep -q '^stencil-map: warning: .*node node4 is in no switch' err ||
            { fail "no warning that node4 is in no switch"; return 1; }
        verify_run auto:2d:5pt out err 8 --topology none || return 1 # no level splits one node
        local rec
        rec=$(sort -n out | awk 'NR == 1 { print $9 }')
        json_get "$rec" 'd["topology_warnings"]' | grep -q 'node4 is in no switch' &&
            [ "$(json_get "$rec" 'd["topology_source"]')" = "slurm (topology/tree)" ] ||
            { fail "the record has not Slurm's source and the warning"; return 1; }
        mc "$SM" audit --no-slurm --record "$rec" >audit.txt 2>&1 ||
            { fail "stencil-map audit --record $rec says it is not consistent"; cat audit.txt; return 1; }
        grep -q "repaired .*node4 is in no switch" audit.txt ||
            { fail "audit does not show the repair"; cat audit.txt; return 1; }
        echo "Slurm $SLURM_RELEASE gives node4 alone: planned on it, warned, recorded, audited"
    fi
    as salloc -N3 -n24 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err ||
        { fail "srun on the 3 nodes in the tree failed"; cat err; return 1; }
    cat err
    if grep -qE 'warning|repaired|WITHOUT' err; then fail "a warning on a step of nodes all in the tree"; return 1; fi
    grep -q "^stencil-map: .*between switches" err || { fail "srun's line has no figures between switches"; return 1; }
    verify_run auto:2d:5pt out err 24 --topology "$WORK/partial.conf" || return 1
    local rec
    rec=$(sort -n out | awk 'NR == 1 { print $9 }')
    [ "$(json_get "$rec" 'd["topology"]["levels"][0]["node_groups"]')" = "[0, 0, 1]" ] ||
        { fail "record node_groups are not [0, 0, 1]"; json_get "$rec" 'd["topology"]'; return 1; }
    [ "$(json_get "$rec" 'd.get("topology_warnings")')" = null ] ||
        { fail "the record has topology_warnings"; return 1; }
    echo "the 3 nodes in the tree placed on Slurm's levels, nothing repaired"
}

# a bad topology: srun fails naming it and no task starts; under
# on_error=blocked the step runs blocked, loudly, with a record saying why
t_bad() { # WANT_REGEX PLUGSTACK_ARGS...
    local want=$1
    shift
    plugstack "$@"
    local marker=$WORK/marker.$RANDOM$RANDOM
    rm -f "$marker"
    if as salloc -N4 -n32 srun --stencil-map=auto:2d:5pt touch "$marker" >out 2>err; then
        fail "srun exited 0"; cat err; return 1
    fi
    cat err
    grep -qE "^stencil-map: .*$want" err || { fail "stderr does not name '$want'"; return 1; }
    [ ! -e "$marker" ] || { fail "a task started"; return 1; }
    echo "on_error=fail: srun failed naming '$want', no task started"
    plugstack "$@" on_error=blocked
    as salloc -N4 -n32 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err ||
        { fail "on_error=blocked: srun failed"; cat err; return 1; }
    cat err
    grep -qE "WARNING: .*$want" err && grep -q 'launching WITHOUT stencil placement' err ||
        { fail "no warning naming '$want'"; return 1; }
    awk '/^[0-9]+ / && ($5 != "blocked" || $3 != "-") { exit 1 }' out ||
        { fail "tasks are not launched blocked"; return 1; }
    local rec
    rec=$(awk '/^[0-9]+ / { print $9; exit }' out)
    json_get "$rec" 'd["fallback"]["reason"]' | grep -qE "$want" ||
        { fail "record fallback reason does not name '$want'"; cat "$rec"; return 1; }
    echo "on_error=blocked: launched blocked, warned, record says so"
}

# A topology the release cannot read (blocks before 23.11, topology.yaml
# before 25.05): the minicluster refuses it by name and starts nothing
t_refused() { # FILE WANT
    if MINICLUSTER_DIR=$WORK/refused MINICLUSTER_TOPOLOGY=$1 "$MC" up >out 2>&1; then
        fail "minicluster up accepted $(basename "$1") on Slurm $SLURM_RELEASE"
        MINICLUSTER_DIR=$WORK/refused "$MC" down >/dev/null 2>&1
        return 1
    fi
    cat out
    grep -q "$2" out || { fail "no clear refusal"; return 1; }
}

# ------------------------------------------------------------ main -------
mkdir -p "$WORK/logs" "$RECORDS"
chmod 755 "$WORK"
chmod 1777 "$RECORDS"
rm -rf "${RECORDS:?}"/* "$WORK"/logs/* "$WORK"/verify.* "$WORK"/marker.*
cp "$TOP/tests/integration/task.sh" "$TASK"
chmod 755 "$TASK"
id "$USER1" >/dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh "$USER1" ||
    { echo "run.sh: FATAL: cannot create user $USER1" >&2; exit 1; }
# Slurm's topology: two leaf switches under a root, one for node1 and
# node3, one for node2 and node4, which a plan without levels (and Slurm's
# block layout) cuts more than a plan on them; the site's file groups the
# nodes in order (1 with 2, 3 with 4); blocks of two
cat >"$WORK/tree.conf" <<'EOF'
SwitchName=odd Nodes=node[1,3]
SwitchName=even Nodes=node[2,4]
SwitchName=root Switches=odd,even
EOF
cat >"$WORK/site.conf" <<'EOF'
# the site's own view of its network
SwitchName=leaf1 Nodes=node[1-2]
SwitchName=leaf2 Nodes=node[3-4]
SwitchName=top Switches=leaf[1-2]
EOF
cat >"$WORK/block.conf" <<'EOF'
BlockName=b1 Nodes=node[1-2]
BlockName=b2 Nodes=node[3-4]
BlockSizes=2,4
EOF
cat >"$WORK/two.yaml" <<'EOF'
- topology: parity
  cluster_default: true
  tree:
    switches:
      - switch: root
        children: odd,even
      - switch: odd
        nodes: node[1,3]
      - switch: even
        nodes: node[2,4]
- topology: racks
  cluster_default: false
  block:
    block_sizes:
      - 2
      - 4
    blocks:
      - block: b1
        nodes: node[1-2]
      - block: b2
        nodes: node[3-4]
EOF
# the bad ones
printf 'SwitchName=a Nodes=node[1-3]\nSwitchName=b Nodes=node[3-4]\nSwitchName=t Switches=a,b\n' \
    >"$WORK/twice.conf"
printf 'SwitchName=a Nodes=node[1-2]\nSwitchName=b Nodes=node3\nSwitchName=t Switches=a,b\n' \
    >"$WORK/partial.conf"
printf 'SwitchName=a Nodes=node[1-2]\nSwitchName=b Nodes=node[3-4]\nSwitchName=x Switches=a,y\nSwitchName=y Switches=b,x\n' \
    >"$WORK/loop.conf"
printf 'SwitchName=a Nodes=cn[1-2]\nSwitchName=b Nodes=cn[3-4]\n' >"$WORK/foreign.conf"
printf 'SwitchName=a Nodes=node[1-4]\n' >"$WORK/secret.conf"
chmod 0644 "$WORK"/*.conf "$WORK"/*.yaml
chmod 0600 "$WORK/secret.conf" # root's: srun runs as the user

if [ "${TOPO_SKIP_BUILD:-0}" != 1 ]; then
    SMC_BUILD_ROOT=$ROOT "$TOP/tests/integration/build.sh" "$PREFIX" >"$WORK/build.log" 2>&1 ||
        { echo "run.sh: FATAL: build failed" >&2; tail -40 "$WORK/build.log" >&2; echo "0 passed, 1 failed"; exit 1; }
fi
[ -f "$SO" ] && [ -x "$SM" ] && [ -x "$VERIFY" ] || { echo "run.sh: FATAL: $SO, $SM or $VERIFY missing" >&2; exit 1; }
chmod -R a+rX "$PREFIX"

echo "== 4 nodes x 8 CPUs under two leaf switches (topology/tree)"
topo_up "$WORK/tree.conf"
MORE_WITHOUT_LEVELS=1 run_test tree-slurm t_placed auto:2d:5pt "$WORK/tree.conf" switches \
    "slurm (topology/tree)" "[0, 1, 0, 1]"
run_test tree-slurm-3d t_placed auto:3d:7pt "$WORK/tree.conf" switches "slurm (topology/tree)" "[0, 1, 0, 1]"
run_test tree-verify-audit t_verify auto:2d:5pt
plugstack "topology=$WORK/site.conf"
run_test tree-site-file t_placed auto:2d:5pt "$WORK/site.conf" switches "file $WORK/site.conf" "[0, 0, 1, 1]"
plugstack levels_mode=groups-first
run_test tree-levels-mode t_mode auto:2d:5pt groups-first
plugstack topology=none
run_test tree-topology-none t_none auto:2d:5pt
run_test repaired-node-twice t_repaired 'node3 is under 2 leaf switches' "topology=$WORK/twice.conf"
run_test repaired-node-missing t_repaired 'node4 is in no switch' "topology=$WORK/partial.conf"
run_test strict-node-twice t_bad 'node3 is in both' "topology=$WORK/twice.conf" topology_strict=yes
run_test strict-node-missing t_bad 'node4 is in no switch' "topology=$WORK/partial.conf" topology_strict=yes
run_test bad-loop t_bad 'loop' "topology=$WORK/loop.conf"
run_test bad-foreign t_bad "names none of the step's nodes" "topology=$WORK/foreign.conf"
run_test bad-unreadable t_bad 'secret.conf.*Permission denied' "topology=$WORK/secret.conf"
run_test bad-absent t_bad 'absent.conf.*cannot open' "topology=$WORK/absent.conf"
plugstack
echo "== slurmctld itself on a topology.conf with node3 under two leaf switches"
topo_up "$WORK/twice.conf"
run_test slurmctld-node-twice t_slurmctld_warned 'Multiple leaf switches contain nodes: node3'
run_test slurm-node-twice t_slurm_repaired 'node3 is under 2 leaf switches' "$WORK/twice.conf" "[0, 0, 1, 2]"
run_test slurm-strict-node-twice t_bad 'node3 is in both' topology_strict=yes
echo "== slurmctld itself on a topology.conf with node4 in no switch"
topo_up "$WORK/partial.conf"
run_test slurmctld-node-missing t_slurmctld_warned 'switches lack access to 1 nodes: node4'
run_test slurm-node-missing t_slurm_missing 0
run_test slurm-strict-node-missing t_slurm_missing 1
plugstack
if has_block; then
    echo "== the same nodes in two blocks (topology/block, Slurm $SLURM_RELEASE)"
    topo_up "$WORK/block.conf"
    run_test block-slurm t_placed auto:2d:5pt "$WORK/block.conf" blocks "slurm (topology/block)" "[0, 0, 1, 1]"
    run_test block-verify-audit t_verify auto:2d:5pt
else
    run_test block-refused t_refused "$WORK/block.conf" 'topology/block needs Slurm 23.11 or later'
fi
if has_yaml; then
    # topology.yaml: the tree above as the cluster's default, the blocks
    # as a second topology that a partition picks (Topology=racks):
    # a step is planned on its job's partition's network.  The partition's
    # name is longer than 63 bytes, which Slurm takes as it is (the record's
    # source shows its first 32)
    echo "== two topologies in topology.yaml, one per partition (Slurm $SLURM_RELEASE)"
    racks=racks-of-nvlink-blocks-in-a-partition-whose-name-is-longer-than-63-bytes
    MINICLUSTER_PARTITIONS="PartitionName=$racks Nodes=node[1-4] Topology=racks MaxTime=INFINITE State=UP" \
        topo_up "$WORK/two.yaml"
    run_test yaml-default-partition t_placed auto:2d:5pt "$WORK/tree.conf" switches \
        "slurm (topology/tree)" "[0, 1, 0, 1]"
    PARTITION=$racks run_test yaml-partition-topology t_placed auto:2d:5pt "$WORK/block.conf" blocks \
        "slurm (topology/block, topology racks of partition ${racks:0:32})" "[0, 0, 1, 1]"
else
    run_test yaml-refused t_refused "$WORK/two.yaml" 'topology.yaml, which needs Slurm 25.05 or later'
fi
cluster_down
suite_summary
