#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Smoke test of the minicluster's netns mode (MINICLUSTER_NET=netns): each
# node in its own network namespace behind a rate-shaped veth.  Brings up
# 3 nodes with 40 Mbit/s links, checks that the nodes have distinct
# addresses, that a transfer between two nodes runs at the shaped rate
# while one within a node does not, that Open MPI works across the nodes
# with the environment `minicluster env` prints, how a delay is handled,
# that bad settings are refused by name, and that `down` leaves no
# interface, namespace or process behind.  Prints "ok NAME" / "FAIL NAME"
# and "N passed, M failed"; always brings its cluster down.  Needs no
# build of stencilmap (the mode is the minicluster's; the payoff bench,
# make bench-payoff, runs the plugin on it), and takes seconds.
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
    ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${TAG}(br|n[0-9]+)\$" || true
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

t_shaped_link() {
    local out mbit bytes=$((6 * 1000 * 1000)) # 1.2 s at 40 Mbit/s
    out=$(srun_ -N2 -n2 --ntasks-per-node=1 -w node1,node2 python3 "$HERE/xfer.py" "$(addr_of 2)" $bytes \
        $((MINICLUSTER_PORT_BASE + 50)))
    echo "node1 -> node2: $out"
    mbit=$(sed -n 's/^xfer [0-9.]* s \([0-9.]*\) Mbit\/s from node1$/\1/p' <<<"$out")
    [ -n "$mbit" ] || { fail "no xfer line from node1"; return 1; }
    # TCP on a tbf link gets most of the rate but never more than it
    awk -v m="$mbit" -v r=$RATE_MBIT 'BEGIN { exit !(m >= 0.6 * r && m <= 1.1 * r) }' ||
        { fail "$mbit Mbit/s between nodes, expected 60-110% of $RATE_MBIT"; return 1; }
    out=$(srun_ -N1 -n2 -w node3 python3 "$HERE/xfer.py" "$(addr_of 3)" $bytes $((MINICLUSTER_PORT_BASE + 51)))
    echo "node3 -> node3: $out"
    mbit=$(sed -n 's/^xfer [0-9.]* s \([0-9.]*\) Mbit\/s from node3$/\1/p' <<<"$out")
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
cluster_down
[ -z "$(leftovers)" ] || { echo "FAIL netns-leftovers: $(leftovers)"; FAILED=$((FAILED + 1)); FAILED_NAMES+=(netns-leftovers); }

echo
suite_summary
