#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Smoke test of the minicluster's netns mode (MINICLUSTER_NET=netns): each
# node in its own network namespace behind a rate-shaped veth.  Brings up
# 3 nodes with 40 Mbit/s links, checks that the nodes have distinct
# addresses, that a transfer between two nodes runs at the shaped rate
# while one within a node does not, that Open MPI works across the nodes
# with the environment `minicluster env` prints, how a delay is handled,
# that bad settings are refused by name, and that `down` leaves no
# interface, namespace or process behind.  Then the two-tier network
# (MINICLUSTER_GROUPS): 4 nodes in 2 groups, node links 80 Mbit/s, uplinks
# 20 Mbit/s: a transfer within a group runs at the node rate and sends
# nothing up, one across groups runs at the uplink rate through both
# groups' uplinks (their qdiscs' byte counters), two flows out of one
# group at once share its uplink, groups taken from a topology.conf's leaf
# switches (MINICLUSTER_GROUPS=topology) or refused when they differ, and
# `down` removes bridges and uplinks.  Prints "ok NAME" / "FAIL NAME"
# and "N passed, M failed"; always brings its cluster down.  Needs no
# build of stencilmap (the mode is the minicluster's; the payoff bench,
# make bench-payoff, runs the plugin on it), and takes about a minute.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-netns), MINICLUSTER_PORT_BASE
#      (31800), NETNS_WORK (/var/lib/smc-netns-work), NETNS_ONLY=REGEX.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-netns}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-31800}
WORK=${NETNS_WORK:-/var/lib/smc-netns-work}
MC=$TOP/contrib/minicluster/minicluster
SUITE=netns
ONLY=${NETNS_ONLY:-}
MC_TIMEOUT=120 # per Slurm client: a hang fails its test, not the run
RATE_MBIT=40
NODES=3
# the two-tier network: 4 nodes in groups of 2, node links 80 Mbit/s, each
# group's uplink 20 Mbit/s (4 times narrower, shared by the group); the
# groups written as hostlists (as a topology.conf names a switch's nodes)
GROUPS_SPEC="node[1-2] node3,node4"
GROUP_NODE_MBIT=80
UPLINK_MBIT=20
TAG=mc$MINICLUSTER_PORT_BASE
# the runner, fail, mc (bounded clients with CLIENT_ENV), cluster_down and
# the traps that call it, suite_summary
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: NETNS_WORK and MINICLUSTER_DIR must be outside /tmp" >&2
    exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
mkdir -p "$WORK"
rm -rf "$WORK/logs" "$WORK/fresh-state" "$WORK/mpi_nodes" "$WORK/minicluster.log"
mkdir -p "$WORK/logs"

# our objects still on the host: links named mc<base>*, namespaces mc<base>-*
leftovers() {
    ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${TAG}(br|[ngcu][0-9]+)\$" || true
    ip netns list | awk '{print $1}' | grep -E "^$TAG-node[0-9]+\$" || true
}

srun_() { mc srun --time=2 "$@"; }

# the clients' environment for the cluster just brought up
client_env() { mapfile -t CLIENT_ENV < <("$MC" env | sed -n 's/^export //p'); }

# ------------------------------------------------------------ tests ------
t_refuses_bad_settings() {
    local out rc
    out=$(MINICLUSTER_NET=netns MINICLUSTER_RATE=fast "$MC" up 2>&1)
    rc=$?
    echo "$out"
    [ $rc -ne 0 ] && grep -q "MINICLUSTER_RATE must be" <<<"$out" || { fail "bad rate: exit $rc"; return 1; }
    out=$(MINICLUSTER_NET=bridge "$MC" up 2>&1)
    rc=$?
    echo "$out"
    [ $rc -ne 0 ] && grep -q "MINICLUSTER_NET must be 'loopback' or 'netns'" <<<"$out" ||
        { fail "bad mode: exit $rc"; return 1; }
    out=$(MINICLUSTER_NET=netns MINICLUSTER_SUBNET=10.1.2.0/16 "$MC" up 2>&1)
    rc=$?
    echo "$out"
    [ $rc -ne 0 ] && grep -q "MINICLUSTER_SUBNET must be a /24" <<<"$out" || { fail "bad subnet: exit $rc"; return 1; }
    [ -z "$(leftovers)" ] || { fail "a refused up left $(leftovers)"; return 1; }
}

# With netem, a delay is applied (a TCP connect takes at least the round
# trip through two shaped ends each way); without it, up refuses by name.
t_delay() {
    local out rc have=0
    # our own probe, in a throwaway network namespace
    unshare --net tc qdisc add dev lo root netem delay 1ms 2>/dev/null && have=1
    out=$(MINICLUSTER_NET=netns MINICLUSTER_NODES=2 MINICLUSTER_CPUS=2 MINICLUSTER_RATE=${RATE_MBIT}mbit \
        MINICLUSTER_DELAY=20ms "$MC" up 2>&1)
    rc=$?
    echo "$out"
    if [ $have = 0 ]; then
        echo "this kernel has no netem"
        [ $rc -ne 0 ] && grep -q "MINICLUSTER_DELAY=20ms needs the netem qdisc" <<<"$out" ||
            { fail "delay without netem: expected a refusal naming netem, exit $rc"; return 1; }
        [ -z "$(leftovers)" ] || { fail "the refused up left $(leftovers)"; return 1; }
        return 0
    fi
    [ $rc -eq 0 ] || { fail "up with delay failed"; return 1; }
    client_env
    local t
    t=$(srun_ -N1 -n1 -w node1 python3 -c '
import socket, sys, time
t0 = time.time()
try:
    socket.create_connection((sys.argv[1], 9), timeout=5)
except OSError:
    pass  # refused: the RST came back, one round trip
print("%.1f" % ((time.time() - t0) * 1000))' "$(sed -n 's/.*NodeAddr=\([0-9.]*\) Port=[0-9]* .*/\1/p' \
        "$MINICLUSTER_DIR/etc/slurm.conf" | sed -n 2p)")
    echo "connect round trip node1 -> node2: $t ms"
    "$MC" down
    awk -v t="$t" 'BEGIN { exit !(t >= 70) }' || { fail "round trip $t ms, expected about 80 ms (4 shaped ends x 20 ms), at least 70"; return 1; }
}

t_up() {
    MINICLUSTER_NET=netns MINICLUSTER_NODES=$NODES MINICLUSTER_CPUS=2 MINICLUSTER_RATE=${RATE_MBIT}mbit \
        "$MC" up || { fail "up failed"; tail -30 "$MINICLUSTER_DIR/log/"*.log; return 1; }
    "$MC" status
    local i ns
    for ((i = 1; i <= NODES; i++)); do
        ns=$TAG-node$i
        [ -e "/run/netns/$ns" ] || { fail "no namespace $ns"; return 1; }
        tc -n "$ns" qdisc show | grep -q "rate ${RATE_MBIT}Mbit" || { fail "$ns: no ${RATE_MBIT}Mbit qdisc"; return 1; }
        tc qdisc show dev "${TAG}n$i" | grep -q "rate ${RATE_MBIT}Mbit" ||
            { fail "${TAG}n$i: no ${RATE_MBIT}Mbit qdisc"; return 1; }
    done
}

t_distinct_addresses() {
    local out
    out=$(srun_ -N$NODES -n$NODES sh -c 'echo "$(hostname) $SLURMD_NODENAME $(ip -4 -o addr show scope global | awk "{print \$4}" | tr "\n" " ")"' | sort)
    echo "$out"
    [ "$(wc -l <<<"$out")" -eq "$NODES" ] || { fail "expected $NODES lines"; return 1; }
    local i
    for ((i = 1; i <= NODES; i++)); do
        # node I has address .I of the subnet and nothing else but loopback
        grep -Eq "^node$i node$i [0-9]+\.[0-9]+\.[0-9]+\.$i/24 *\$" <<<"$out" ||
            { fail "node$i: not exactly one address ending in .$i"; return 1; }
    done
    [ "$(awk '{print $3}' <<<"$out" | sort -u | wc -l)" -eq "$NODES" ] || { fail "addresses not distinct"; return 1; }
    # and Slurm talks to each node at that address
    grep -E '^NodeName=node[0-9]+ ' "$MINICLUSTER_DIR/etc/slurm.conf"
}

addr_of() { sed -n "s/^NodeName=node$1 .*NodeAddr=\([0-9.]*\) .*/\1/p" "$MINICLUSTER_DIR/etc/slurm.conf"; }

# the Mbit/s of the xfer.py line sent from node $1 (read on stdin)
xfer_mbit() { sed -n "s/^xfer [0-9.]* s \([0-9.]*\) Mbit\/s from $1 start [0-9.]* end [0-9.]*\$/\1/p"; }

t_shaped_link() {
    local out mbit bytes=$((6 * 1000 * 1000)) # 1.2 s at 40 Mbit/s
    out=$(srun_ -N2 -n2 --ntasks-per-node=1 -w node1,node2 python3 "$HERE/xfer.py" "$(addr_of 2)" $bytes \
        $((MINICLUSTER_PORT_BASE + 50)))
    echo "node1 -> node2: $out"
    mbit=$(xfer_mbit node1 <<<"$out")
    [ -n "$mbit" ] || { fail "no xfer line from node1"; return 1; }
    # TCP on a tbf link gets most of the rate but never more than it
    awk -v m="$mbit" -v r=$RATE_MBIT 'BEGIN { exit !(m >= 0.6 * r && m <= 1.1 * r) }' ||
        { fail "$mbit Mbit/s between nodes, expected 60-110% of $RATE_MBIT"; return 1; }
    out=$(srun_ -N1 -n2 -w node3 python3 "$HERE/xfer.py" "$(addr_of 3)" $bytes $((MINICLUSTER_PORT_BASE + 51)))
    echo "node3 -> node3: $out"
    mbit=$(xfer_mbit node3 <<<"$out")
    [ -n "$mbit" ] || { fail "no xfer line within node3"; return 1; }
    awk -v m="$mbit" -v r=$RATE_MBIT 'BEGIN { exit !(m >= 5 * r) }' ||
        { fail "$mbit Mbit/s within a node: traffic inside a node must not be shaped"; return 1; }
}

t_mpi_across_nodes() {
    command -v mpicc >/dev/null || { fail "mpicc not found (openmpi-bin, libopenmpi-dev)"; return 1; }
    mpicc -O1 -o "$WORK/mpi_nodes" "$HERE/mpi_nodes.c" || { fail "mpicc failed"; return 1; }
    local out
    # the environment `env` prints for this cluster: TCP only in its subnet
    printf '%s\n' "${CLIENT_ENV[@]}"
    printf '%s\n' "${CLIENT_ENV[@]}" | grep -Eq "^OMPI_MCA_btl_tcp_if_include=$(addr_of 1 | sed 's/\.1$//; s/\./\\./g')\.0/24\$" ||
        { fail "env does not pin TCP to the nodes' subnet"; return 1; }
    out=$(OMPI_MCA_mpi_yield_when_idle=1 srun_ --mpi=pmix -N$NODES -n6 "$WORK/mpi_nodes")
    echo "$out"
    grep -q "^mpi_nodes: 6 ranks on $NODES nodes, ring ok$" <<<"$out" || { fail "MPI ring across nodes failed"; return 1; }
}

t_down_leaves_nothing() {
    # a stray process in node2's namespaces, as a task left behind would be
    local stray
    nsenter --net="/run/netns/$TAG-node2" sleep 300 &
    stray=$!
    sleep 0.3
    [ "$(readlink /proc/$stray/ns/net)" != "$(readlink /proc/self/ns/net)" ] ||
        { kill $stray; fail "could not start the stray process in node2's namespace"; return 1; }
    "$MC" down || { fail "down failed"; return 1; }
    wait $stray 2>/dev/null
    [ ! -d "/proc/$stray" ] || { kill -KILL $stray; fail "down left the stray process $stray"; return 1; }
    local left
    left=$(leftovers)
    [ -z "$left" ] || { fail "down left: $left"; return 1; }
    [ ! -e "$MINICLUSTER_DIR/run/net.made" ] || { fail "net.made still there"; return 1; }
    echo "no links, namespaces or processes left"
    # the default is still loopback: env for a new cluster names lo
    env -u MINICLUSTER_NET MINICLUSTER_DIR="$WORK/fresh-state" "$MC" env | grep -q '^export OMPI_MCA_btl_tcp_if_include=lo$' ||
        { fail "the default mode is not loopback"; return 1; }
}

# ------------------------------------------------------------ groups -----
t_groups_refuse_bad_settings() {
    local out rc
    check_refusal() { # EXPECTED-MESSAGE VAR=VALUE...
        local want=$1
        shift
        out=$(env MINICLUSTER_NODES=4 MINICLUSTER_CPUS=2 "$@" "$MC" up 2>&1)
        rc=$?
        echo "$* -> exit $rc: $out"
        [ $rc -ne 0 ] && grep -qF "$want" <<<"$out" || { fail "$*: expected a refusal saying '$want'"; return 1; }
    }
    check_refusal "MINICLUSTER_GROUPS=2,3 holds 5 nodes but MINICLUSTER_NODES=4" \
        MINICLUSTER_NET=netns MINICLUSTER_GROUPS=2,3 || return 1
    check_refusal "MINICLUSTER_GROUPS=4 must name 2 to 16 groups" MINICLUSTER_NET=netns MINICLUSTER_GROUPS=4 || return 1
    check_refusal "MINICLUSTER_GROUPS=2,0,2: a group of 0 nodes" MINICLUSTER_NET=netns MINICLUSTER_GROUPS=2,0,2 || return 1
    check_refusal "MINICLUSTER_GROUPS=node[1-2] rack2: groups must be sizes (4,4) or one hostlist per group" \
        MINICLUSTER_NET=netns "MINICLUSTER_GROUPS=node[1-2] rack2" || return 1
    check_refusal "MINICLUSTER_GROUPS=node[1-2] node[2-4]: node2 is in group 1 and in group 2" \
        MINICLUSTER_NET=netns "MINICLUSTER_GROUPS=node[1-2] node[2-4]" || return 1
    check_refusal "MINICLUSTER_GROUPS=node[1-2] node4: node3 is in no group" MINICLUSTER_NET=netns "MINICLUSTER_GROUPS=node[1-2] node4" ||
        return 1
    check_refusal "MINICLUSTER_GROUPS=node[1-2] node[3-5]: node5 is not a node of this cluster" \
        MINICLUSTER_NET=netns "MINICLUSTER_GROUPS=node[1-2] node[3-5]" || return 1
    check_refusal "MINICLUSTER_GROUPS needs MINICLUSTER_NET=netns" MINICLUSTER_NET=loopback MINICLUSTER_GROUPS=2,2 || return 1
    check_refusal "MINICLUSTER_UPLINK_RATE needs MINICLUSTER_GROUPS" MINICLUSTER_NET=netns MINICLUSTER_UPLINK_RATE=1mbit ||
        return 1
    check_refusal "MINICLUSTER_UPLINK_RATE must be a number with bit" \
        MINICLUSTER_NET=netns MINICLUSTER_GROUPS=2,2 MINICLUSTER_UPLINK_RATE=fast || return 1
    check_refusal "MINICLUSTER_GROUPS=topology needs MINICLUSTER_TOPOLOGY" MINICLUSTER_NET=netns MINICLUSTER_GROUPS=topology ||
        return 1
    # groups that are not the topology file's leaf switches
    printf 'SwitchName=leaf1 Nodes=node[1,3]\nSwitchName=leaf2 Nodes=node[2,4]\nSwitchName=root Switches=leaf[1-2]\n' \
        >"$WORK/tree-across.conf"
    check_refusal "are not the same groups" MINICLUSTER_NET=netns MINICLUSTER_GROUPS=2,2 \
        MINICLUSTER_TOPOLOGY="$WORK/tree-across.conf" || return 1
    printf 'SwitchName=leaf1 Nodes=node[1-2]\nSwitchName=leaf2 Nodes=node3\nSwitchName=root Switches=leaf[1-2]\n' \
        >"$WORK/tree-short.conf"
    check_refusal "the leaf switches of $WORK/tree-short.conf: node4 is in no group" MINICLUSTER_NET=netns \
        MINICLUSTER_GROUPS=topology MINICLUSTER_TOPOLOGY="$WORK/tree-short.conf" || return 1
    [ -z "$(leftovers)" ] || { fail "a refused up left $(leftovers)"; return 1; }
}

groups_up() {
    MINICLUSTER_NET=netns MINICLUSTER_NODES=4 MINICLUSTER_CPUS=2 MINICLUSTER_RATE=${GROUP_NODE_MBIT}mbit \
        MINICLUSTER_GROUPS="$GROUPS_SPEC" MINICLUSTER_UPLINK_RATE=${UPLINK_MBIT}mbit "$MC" "$@"
}

# bytes sent so far by the qdisc of device $1 (root namespace)
qdisc_sent() { tc -s qdisc show dev "$1" | awk '$1 == "Sent" { print $2; exit }'; }

t_groups_up() {
    groups_up up || { fail "up with groups failed"; tail -30 "$MINICLUSTER_DIR/log/"*.log; return 1; }
    "$MC" status
    local i g dev
    for i in 1 2 3 4; do
        g=$(((i + 1) / 2))
        # node I's link is a port of its group's bridge, not of the core one
        [ "$(ip -o link show "${TAG}n$i" | sed -n 's/.* master \([^ ]*\) .*/\1/p')" = "${TAG}g$g" ] ||
            { fail "${TAG}n$i is not a port of ${TAG}g$g"; ip -o link show "${TAG}n$i"; return 1; }
        tc -n "$TAG-node$i" qdisc show | grep -q "rate ${GROUP_NODE_MBIT}Mbit" || { fail "node$i: no ${GROUP_NODE_MBIT}Mbit qdisc"; return 1; }
    done
    for g in 1 2; do
        [ "$(ip -o link show "${TAG}u$g" | sed -n 's/.* master \([^ ]*\) .*/\1/p')" = "${TAG}g$g" ] ||
            { fail "${TAG}u$g is not a port of ${TAG}g$g"; return 1; }
        [ "$(ip -o link show "${TAG}c$g" | sed -n 's/.* master \([^ ]*\) .*/\1/p')" = "${TAG}br" ] ||
            { fail "${TAG}c$g is not a port of the core bridge ${TAG}br"; return 1; }
        for dev in "${TAG}u$g" "${TAG}c$g"; do
            tc qdisc show dev "$dev" | grep -q "rate ${UPLINK_MBIT}Mbit" || { fail "$dev: no ${UPLINK_MBIT}Mbit qdisc"; return 1; }
            grep -qx "link $dev" "$MINICLUSTER_DIR/run/net.made" || { fail "$dev not recorded in net.made"; return 1; }
        done
    done
    grep -q " groups=1,1,2,2 uplink=${UPLINK_MBIT}000000bit" "$MINICLUSTER_DIR/run/config" ||
        { fail "the configuration signature does not name the groups"; cat "$MINICLUSTER_DIR/run/config"; return 1; }
    # a running cluster with other groups is not this configuration
    local out
    out=$(MINICLUSTER_NET=netns MINICLUSTER_NODES=4 MINICLUSTER_CPUS=2 MINICLUSTER_RATE=${GROUP_NODE_MBIT}mbit \
        MINICLUSTER_GROUPS=3,1 MINICLUSTER_UPLINK_RATE=${UPLINK_MBIT}mbit "$MC" up 2>&1)
    [ $? -ne 0 ] && grep -q "a minicluster with a different configuration is running" <<<"$out" ||
        { fail "up with other groups on the running cluster: $out"; return 1; }
    # the same groups written as sizes are the same configuration
    MINICLUSTER_NET=netns MINICLUSTER_NODES=4 MINICLUSTER_CPUS=2 MINICLUSTER_RATE=${GROUP_NODE_MBIT}mbit \
        MINICLUSTER_GROUPS=2,2 MINICLUSTER_UPLINK_RATE=${UPLINK_MBIT}mbit "$MC" up | grep -q "already up and healthy" ||
        { fail "the same groups as sizes (2,2): not recognised as the running cluster"; return 1; }
}

# Within a group: the node links' rate, and not a byte through the uplink.
t_groups_within() {
    local out mbit before after bytes=$((8 * 1000 * 1000)) # 0.8 s at 80 Mbit/s
    before=$(qdisc_sent "${TAG}u1")
    out=$(srun_ -N2 -n2 -w node1,node2 python3 "$HERE/xfer.py" "$(addr_of 2)" $bytes $((MINICLUSTER_PORT_BASE + 52)))
    after=$(qdisc_sent "${TAG}u1")
    echo "node1 -> node2 (group 1): $out; uplink u1 sent $((after - before)) bytes meanwhile"
    mbit=$(xfer_mbit node1 <<<"$out")
    [ -n "$mbit" ] || { fail "no xfer line from node1"; return 1; }
    awk -v m="$mbit" -v r=$GROUP_NODE_MBIT 'BEGIN { exit !(m >= 0.6 * r && m <= 1.1 * r) }' ||
        { fail "$mbit Mbit/s within a group, expected 60-110% of the node rate $GROUP_NODE_MBIT"; return 1; }
    # (Slurm's own messages to and from node1 do cross it: a few kB)
    [ $((after - before)) -lt $((bytes / 20)) ] ||
        { fail "the uplink of group 1 carried $((after - before)) bytes of a transfer within the group"; return 1; }
}

# Across groups: the uplink's rate; the bytes cross both groups' uplinks.
t_groups_across() {
    local out mbit up1 up2 c2 bytes=$((3 * 1000 * 1000)) # 1.2 s at 20 Mbit/s
    up1=$(qdisc_sent "${TAG}u1")
    c2=$(qdisc_sent "${TAG}c2")
    up2=$(qdisc_sent "${TAG}u2")
    out=$(srun_ -N2 -n2 -w node1,node3 python3 "$HERE/xfer.py" "$(addr_of 3)" $bytes $((MINICLUSTER_PORT_BASE + 53)))
    up1=$(($(qdisc_sent "${TAG}u1") - up1))
    c2=$(($(qdisc_sent "${TAG}c2") - c2))
    up2=$(($(qdisc_sent "${TAG}u2") - up2))
    echo "node1 -> node3 (group 1 -> 2): $out; sent meanwhile: u1 (out of group 1) $up1, c2 (into group 2) $c2," \
        "u2 (out of group 2, the acknowledgements) $up2 bytes"
    mbit=$(xfer_mbit node1 <<<"$out")
    [ -n "$mbit" ] || { fail "no xfer line from node1"; return 1; }
    awk -v m="$mbit" -v r=$UPLINK_MBIT 'BEGIN { exit !(m >= 0.6 * r && m <= 1.1 * r) }' ||
        { fail "$mbit Mbit/s across groups, expected 60-110% of the uplink rate $UPLINK_MBIT"; return 1; }
    [ "$up1" -ge "$bytes" ] && [ "$c2" -ge "$bytes" ] ||
        { fail "the transfer did not go out of group 1's uplink and into group 2's"; return 1; }
    [ "$up2" -lt $((bytes / 5)) ] || { fail "group 2's outbound uplink carried $up2 bytes of a transfer into it"; return 1; }
}

# Two flows out of group 1 at once share its uplink: together they get
# the uplink's rate, not twice it, while each alone could have had it.
t_groups_share_uplink() {
    local out bytes=$((3 * 1000 * 1000)) up1 # 2 x 3 MB: 2.4 s at 20 Mbit/s
    up1=$(qdisc_sent "${TAG}u1")
    out=$(srun_ -N4 -n4 --ntasks-per-node=1 -w node[1-4] python3 "$HERE/xfer.py" "$(addr_of 3),$(addr_of 4)" $bytes \
        $((MINICLUSTER_PORT_BASE + 54)))
    up1=$(($(qdisc_sent "${TAG}u1") - up1))
    echo "node1 -> node3 and node2 -> node4 at once:"
    echo "$out"
    echo "uplink u1 sent $up1 bytes meanwhile"
    [ -n "$(xfer_mbit node1 <<<"$out")" ] && [ -n "$(xfer_mbit node2 <<<"$out")" ] ||
        { fail "expected xfer lines from node1 and node2"; return 1; }
    [ "$up1" -ge $((2 * bytes)) ] || { fail "group 1's uplink carried $up1 bytes, less than both flows' $((2 * bytes))"; return 1; }
    # from both lines: the flows' overlap, their joint rate and the slower one's
    awk -v r=$UPLINK_MBIT -v b=$bytes '
        /^xfer / { n++; s[n] = $9; e[n] = $11; m[n] = $4 }
        END {
            if (n != 2) { print "expected 2 xfer lines"; exit 1 }
            lo = s[1] < s[2] ? s[1] : s[2]; hi = e[1] > e[2] ? e[1] : e[2]
            gap = s[1] > s[2] ? s[1] - s[2] : s[2] - s[1]
            joint = 2 * b * 8 / (hi - lo) / 1e6; slow = m[1] < m[2] ? m[1] : m[2]
            printf "starts %.2f s apart, both done in %.2f s; joint %.1f Mbit/s; slower flow %.1f Mbit/s (uplink %d)\n", gap, hi - lo, joint, slow, r
            # (TCP need not share fairly: the faster flow may end early)
            if (gap > 0.25 * (hi - lo)) { print "the flows did not start together"; exit 1 }
            if (joint < 0.6 * r || joint > 1.1 * r) { print "joint rate not 60-110% of the uplink"; exit 1 }
            if (slow > 0.7 * r) { print "the slower flow had more than 70% of the uplink: not shared"; exit 1 }
        }' <<<"$out" || { fail "two flows out of one group do not share its uplink"; return 1; }
}

# MINICLUSTER_GROUPS=topology: the groups are the leaf switches of the
# topology.conf Slurm gets, here racks across the node numbering.
t_groups_from_topology() {
    groups_up down >/dev/null || { fail "down failed"; return 1; }
    printf '# racks across the numbering\nSwitchName=leaf1 Nodes=node[1,3]\nswitchname=leaf2 nodes=node2,node4\nSwitchName=root Switches=leaf[1-2]\n' \
        >"$WORK/tree-across.conf"
    MINICLUSTER_NET=netns MINICLUSTER_NODES=4 MINICLUSTER_CPUS=2 MINICLUSTER_RATE=${GROUP_NODE_MBIT}mbit \
        MINICLUSTER_GROUPS=topology MINICLUSTER_TOPOLOGY="$WORK/tree-across.conf" \
        MINICLUSTER_UPLINK_RATE=${UPLINK_MBIT}mbit "$MC" up || { fail "up with MINICLUSTER_GROUPS=topology failed"; return 1; }
    "$MC" status
    local i
    for i in 1 2 3 4; do
        [ "$(ip -o link show "${TAG}n$i" | sed -n 's/.* master \([^ ]*\) .*/\1/p')" = "${TAG}g$((2 - i % 2))" ] ||
            { fail "${TAG}n$i is not a port of ${TAG}g$((2 - i % 2)) (leaf$((2 - i % 2)))"; return 1; }
    done
    grep -q " groups=1,2,1,2 " "$MINICLUSTER_DIR/run/config" || { fail "signature: $(cat "$MINICLUSTER_DIR/run/config")"; return 1; }
    echo "node1, node3 behind ${TAG}u1; node2, node4 behind ${TAG}u2, as leaf1 and leaf2 say"
}

t_groups_down_leaves_nothing() {
    groups_up down || { fail "down failed"; return 1; }
    local left
    left=$(leftovers)
    [ -z "$left" ] || { fail "down left: $left"; return 1; }
    [ ! -e "$MINICLUSTER_DIR/run/net.made" ] || { fail "net.made still there"; return 1; }
    echo "no bridge, uplink, link or namespace left"
}

# ------------------------------------------------------------ run --------
run_test netns-refuses-bad-settings t_refuses_bad_settings
# Tests run in subshells: the cluster's state is tracked here.  From now
# on a cluster may be up, and the EXIT trap brings it down.
CLUSTER_UP=1
run_test netns-delay t_delay
run_test netns-up t_up
client_env
run_test netns-distinct-addresses t_distinct_addresses
run_test netns-shaped-link t_shaped_link
run_test netns-mpi-across-nodes t_mpi_across_nodes
run_test netns-down-leaves-nothing t_down_leaves_nothing
run_test netns-groups-refuse-bad-settings t_groups_refuse_bad_settings
run_test netns-groups-up t_groups_up
client_env
run_test netns-groups-within t_groups_within
run_test netns-groups-across t_groups_across
run_test netns-groups-share-uplink t_groups_share_uplink
run_test netns-groups-from-topology t_groups_from_topology
run_test netns-groups-down-leaves-nothing t_groups_down_leaves_nothing
cluster_down
[ -z "$(leftovers)" ] || { echo "FAIL netns-leftovers: $(leftovers)"; FAILED=$((FAILED + 1)); FAILED_NAMES+=(netns-leftovers); }

echo
suite_summary
