# SPDX-License-Identifier: GPL-2.0-or-later
# netns.sh - the network of the minicluster's netns mode (sourced by
# minicluster; needs its STATE/RUN_DIR variables and die/info helpers).
#
# MINICLUSTER_NET=netns puts every node in its own network namespace with
# one veth to a bridge in the root namespace.  Both ends of each veth are
# shaped to MINICLUSTER_RATE (the node's send and its receive side), so a
# node's inter-node traffic shares one "NIC" the way it would on a real
# cluster, while ranks on one node talk through shared memory or the
# node's own loopback and never touch the shaped link.  With
# MINICLUSTER_GROUPS the nodes sit in groups, each behind a shaped uplink
# of its own (groups.sh).
#
# Names derive from the port base, which already has to be unique per
# cluster on a host: bridge mc<base>br, host-side veths mc<base>n<I>,
# namespaces mc<base>-node<I> (and per group mc<base>g<G>, mc<base>u<G>,
# mc<base>c<G>).  Every object is written to
# $RUN_DIR/net.made before it is created, and `down` removes exactly those.

NET_MADE=$RUN_DIR/net.made

# shellcheck source=groups.sh
. "$(dirname "${BASH_SOURCE[0]}")/groups.sh"
NET_IF=mcnet # the node's end of its veth, inside its namespace

net_mode() {
    local m=${MINICLUSTER_NET:-loopback}
    case $m in
        loopback | netns) echo "$m" ;;
        *) die "MINICLUSTER_NET must be 'loopback' or 'netns' (got '$m')" ;;
    esac
}

net_tag() { echo "mc$(port_base)"; }
net_bridge() { echo "$(net_tag)br"; }
net_ns() { echo "$(net_tag)-node$1"; }
net_veth() { echo "$(net_tag)n$1"; }

# The /24 of the nodes: MINICLUSTER_SUBNET, else 10.<base/256>.<base%256>.0/24.
net_subnet() {
    local s=${MINICLUSTER_SUBNET:-} b
    if [ -z "$s" ]; then
        b=$(port_base)
        s="10.$(((b >> 8) & 255)).$((b & 255)).0/24"
    fi
    [[ $s =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.0/24$ ]] &&
        [ "${BASH_REMATCH[1]}" -le 255 ] && [ "${BASH_REMATCH[2]}" -le 255 ] &&
        [ "${BASH_REMATCH[3]}" -le 255 ] ||
        die "MINICLUSTER_SUBNET must be a /24 written A.B.C.0/24 (got '$s')"
    echo "$s"
}
net_prefix() { local s; s=$(net_subnet); echo "${s%.0/24}"; }
# Node I is .I, the root namespace (slurmctld, srun) is .254 on the bridge.
net_node_addr() { echo "$(net_prefix).$1"; }
net_host_addr() { echo "$(net_prefix).254"; }

# Rate in bit/s from tc's notation (bit, kbit, mbit, gbit; SI prefixes):
# net_parse_rate NAME VALUE, NAME for the message.
net_parse_rate() {
    local name=$1 r=$2
    [[ $r =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] ||
        die "$name must be a number with bit, kbit, mbit or gbit, e.g. 1gbit (got '$r')"
    local v=${BASH_REMATCH[1]} u=${BASH_REMATCH[2]}
    case $u in
        bit) ;;
        kbit) v=$((v * 1000)) ;;
        mbit) v=$((v * 1000000)) ;;
        gbit) v=$((v * 1000000000)) ;;
    esac
    [ "$v" -ge 8000 ] && [ "$v" -le 100000000000 ] ||
        die "$name must be between 8kbit and 100gbit (got '$r')"
    echo "$v"
}
net_rate_bps() { net_parse_rate MINICLUSTER_RATE "${MINICLUSTER_RATE:-1gbit}"; }

# One-way delay per shaped link end: 0, or a number with us or ms.
net_delay() {
    local d=${MINICLUSTER_DELAY:-0}
    [[ $d =~ ^(0|[0-9]+(us|ms))$ ]] ||
        die "MINICLUSTER_DELAY must be 0 or a number with us or ms, e.g. 50us (got '$d')"
    echo "$d"
}

# Every netns setting, checked where a failure stops the caller (set -e):
# a die inside "$(...)" within a string would only end that subshell.
net_validate() {
    local v
    v=$(net_mode)
    net_groups_validate
    [ "$v" = netns ] || return 0
    v=$(net_subnet)
    v=$(net_rate_bps)
    v=$(net_delay)
}

net_signature() {
    echo "net=netns subnet=$(net_subnet) rate=$(net_rate_bps)bit delay=$(net_delay)$(net_groups_signature)"
}

# netem does rate and delay; without it (kernels built without
# CONFIG_NET_SCH_NETEM) tbf does rate only, so a delay cannot be honoured.
# The probe runs in a throwaway network namespace that dies with it, so it
# leaves nothing behind (and needs no dummy driver, which kernels may lack).
net_have_netem() {
    unshare --net tc qdisc add dev lo root netem delay 1ms 2>/dev/null
}

net_check() {
    local cmd
    for cmd in ip tc nsenter; do
        command -v "$cmd" >/dev/null 2>&1 || die "'$cmd' not found (package iproute2/util-linux); run '$PROG install'"
    done
    if [ "$(net_delay)" != 0 ] && ! net_have_netem; then
        die "MINICLUSTER_DELAY=$(net_delay) needs the netem qdisc, which this kernel lacks" \
            "('tc qdisc add ... netem' fails: CONFIG_NET_SCH_NETEM); set MINICLUSTER_DELAY=0" \
            "to shape the rate only (tbf)"
    fi
    # A subnet in use elsewhere would route the nodes' traffic astray.
    local used
    used=$(ip -4 -o addr show 2>/dev/null | awk -v p="$(net_prefix)." -v br="$(net_bridge)" \
        'index($4, p) == 1 && $2 != br { print $2 " " $4 }')
    [ -z "$used" ] || die "subnet $(net_subnet) is already on this host ($used); set MINICLUSTER_SUBNET"
}

# Shape the egress of device $1 (in namespace $2, or the root one if empty)
# to $3 bit/s (default: the node links' rate).
net_shape() {
    local dev=$1 ns=$2 bps=${3:-} burst limit delay
    local -a tcn=(tc)
    [ -n "$ns" ] && tcn=(tc -n "$ns")
    [ -n "$bps" ] || bps=$(net_rate_bps)
    delay=$(net_delay)
    # Queue up to 200 ms of traffic (at least 2 MiB): many TCP flows share
    # one link and a short queue would make them lose packets and stall.
    limit=$((bps / 8 / 5))
    [ "$limit" -lt 2097152 ] && limit=2097152
    if [ "$delay" != 0 ]; then
        "${tcn[@]}" qdisc add dev "$dev" root netem delay "$delay" rate "${bps}bit" \
            limit $((limit / 1500 + 1000))
    else
        # Burst: 1 ms at line rate, but at least 128 KiB so a 64 KiB GSO
        # packet is never split; the queue is what makes the rate, not this.
        burst=$((bps / 8 / 1000))
        [ "$burst" -lt 131072 ] && burst=131072
        "${tcn[@]}" qdisc add dev "$dev" root tbf rate "${bps}bit" burst "$burst" limit "$limit"
    fi
}

# Note an object before creating it, so a failure half way is cleaned up too.
net_record() { echo "$1 $2" >>"$NET_MADE"; }

# (Called as `net_up N || fail`, where set -e is off: every step checks.)
net_up() {
    local n=$1 i br ns veth
    br=$(net_bridge)
    : >"$NET_MADE"
    net_record link "$br"
    ip link add name "$br" type bridge forward_delay 0 stp_state 0 || return 1
    ip addr add "$(net_host_addr)/24" dev "$br" || return 1
    ip link set "$br" up || return 1
    net_groups_up || return 1
    for ((i = 1; i <= n; i++)); do
        ns=$(net_ns "$i")
        veth=$(net_veth "$i")
        net_record netns "$ns"
        ip netns add "$ns" || return 1
        net_record link "$veth"
        ip link add "$veth" type veth peer name "$NET_IF" netns "$ns" || return 1
        ip link set "$veth" master "$(net_node_bridge "$i")" up || return 1
        ip -n "$ns" link set lo up || return 1
        ip -n "$ns" addr add "$(net_node_addr "$i")/24" dev "$NET_IF" || return 1
        ip -n "$ns" link set "$NET_IF" up || return 1
        net_shape "$veth" "" || return 1      # into the node
        net_shape "$NET_IF" "$ns" || return 1 # out of the node
    done
}

# Stop whatever still runs in namespace $1 (tasks a slurmstepd left), so
# that deleting it frees it.  The pids come from the namespace itself, not
# from names.
net_kill_ns() {
    local ns=$1 round pids
    [ -e "/run/netns/$ns" ] || return 0
    for round in TERM TERM KILL; do
        pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
        [ -n "${pids// /}" ] || break
        info "$ns: sending SIG$round to leftover processes $pids"
        # shellcheck disable=SC2086
        kill -"$round" $pids 2>/dev/null || true
        sleep 1
    done
}

# Removes what net.made names; keeps the file (so a later `down` retries)
# if something could not be removed.
net_down() {
    [ -r "$NET_MADE" ] || return 0
    local kind name left=0
    # namespaces first: deleting one also deletes the veth end inside it
    while read -r kind name; do
        [ "$kind" = netns ] || continue
        net_kill_ns "$name"
        if [ -e "/run/netns/$name" ] && ! ip netns del "$name"; then
            info "WARNING: could not delete network namespace $name"
            left=1
        fi
    done <"$NET_MADE"
    while read -r kind name; do
        [ "$kind" = link ] || continue
        ip link show "$name" >/dev/null 2>&1 || continue
        if ! ip link del "$name"; then
            info "WARNING: could not delete link $name"
            left=1
        fi
    done <"$NET_MADE"
    if [ "$left" = 1 ]; then
        info "WARNING: network objects left (listed in $NET_MADE); run '$PROG down' again"
        return 1
    fi
    rm -f "$NET_MADE"
}

# Lines for `status`.
net_status() {
    [ -r "$NET_MADE" ] || return 0
    local kind name
    echo "network (netns mode):"
    while read -r kind name; do
        if [ "$kind" = netns ]; then
            printf '  %-16s %s  %s\n' "$name" \
                "$(ip -n "$name" -4 -o addr show dev "$NET_IF" 2>/dev/null | awk '{print $4}')" \
                "$(tc -n "$name" qdisc show dev "$NET_IF" 2>/dev/null | head -1)"
        fi
    done <"$NET_MADE"
    net_groups_status
}
