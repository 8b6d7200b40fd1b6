# SPDX-License-Identifier: GPL-2.0-or-later
# groups.sh - the second tier of the netns network: nodes in groups, each
# group behind one shaped uplink (sourced by netns.sh; needs its helpers).
#
# Real clusters put nodes under leaf switches (Slurm's topology/tree) or in
# blocks; traffic between switches shares uplinks that carry much less per
# node than the nodes' own links.  MINICLUSTER_GROUPS=4,4 (group sizes, in
# node order: node1..4 and node5..8) puts each group's node links on a
# bridge of its own, mc<base>g<G>, joined to the core bridge (the one with
# slurmctld's and srun's address) by one veth pair: mc<base>u<G> in the
# group bridge, mc<base>c<G> in the core bridge.  Both ends are shaped to
# MINICLUSTER_UPLINK_RATE: mc<base>u<G> limits what the group sends out,
# mc<base>c<G> what it receives.  So two nodes of one group talk at the
# node rate, nodes of different groups share their groups' uplinks.
#
# Without MINICLUSTER_GROUPS the nodes sit on the core bridge (one tier).

# The group sizes, comma separated, checked against the node count; empty
# without groups.
net_groups() {
    local spec=${MINICLUSTER_GROUPS:-} n sum=0 s count=0
    [ -n "$spec" ] || return 0
    n=$(nodes_count)
    local -a sizes
    IFS=, read -r -a sizes <<<"$spec"
    [[ $spec =~ ^[0-9]+(,[0-9]+)*$ ]] ||
        die "MINICLUSTER_GROUPS must be group sizes separated by commas, e.g. 4,4 (got '$spec')"
    for s in "${sizes[@]}"; do
        [ "$s" -ge 1 ] || die "MINICLUSTER_GROUPS: a group of $s nodes (got '$spec'); each needs at least 1"
        sum=$((sum + s))
        count=$((count + 1))
    done
    [ "$count" -ge 2 ] && [ "$count" -le 16 ] ||
        die "MINICLUSTER_GROUPS must name 2 to 16 groups (got $count in '$spec')"
    [ "$sum" -eq "$n" ] ||
        die "MINICLUSTER_GROUPS=$spec holds $sum nodes but MINICLUSTER_NODES=$n"
    echo "$spec"
}

# Group (1-based) of node $1, from the sizes $2; 0 without groups.
net_group_of() {
    local i=$1 spec=$2 s g=0 last=0
    [ -n "$spec" ] || { echo 0; return; }
    local -a sizes
    IFS=, read -r -a sizes <<<"$spec"
    for s in "${sizes[@]}"; do
        g=$((g + 1))
        last=$((last + s))
        [ "$i" -le "$last" ] && { echo "$g"; return; }
    done
    echo 0
}

# The nodes of group $1 as a Slurm hostlist, node[A-B] (or nodeA), from $2.
net_group_nodes() {
    local want=$1 spec=$2 s g=0 first=1
    local -a sizes
    IFS=, read -r -a sizes <<<"$spec"
    for s in "${sizes[@]}"; do
        g=$((g + 1))
        if [ "$g" -eq "$want" ]; then
            if [ "$s" -eq 1 ]; then echo "node$first"; else echo "node[$first-$((first + s - 1))]"; fi
            return
        fi
        first=$((first + s))
    done
}

net_group_bridge() { echo "$(net_tag)g$1"; }
net_uplink_group_end() { echo "$(net_tag)u$1"; }
net_uplink_core_end() { echo "$(net_tag)c$1"; }

net_uplink_rate() { echo "${MINICLUSTER_UPLINK_RATE:-${MINICLUSTER_RATE:-1gbit}}"; }

# Checks the group settings (called by net_validate, where a die stops `up`).
net_groups_validate() {
    local v
    if [ "$(net_mode)" != netns ]; then
        [ -z "${MINICLUSTER_GROUPS:-}" ] ||
            die "MINICLUSTER_GROUPS needs MINICLUSTER_NET=netns (the groups are bridges and shaped uplinks)"
        return 0
    fi
    v=$(net_groups)
    if [ -z "$v" ]; then
        [ -z "${MINICLUSTER_UPLINK_RATE:-}" ] ||
            die "MINICLUSTER_UPLINK_RATE needs MINICLUSTER_GROUPS (without groups there is no uplink)"
        return 0
    fi
    v=$(net_parse_rate MINICLUSTER_UPLINK_RATE "$(net_uplink_rate)")
}

# " groups=4,4 uplink=300000000bit", or nothing without groups.
net_groups_signature() {
    local g
    g=$(net_groups)
    [ -n "$g" ] || return 0
    echo " groups=$g uplink=$(net_parse_rate MINICLUSTER_UPLINK_RATE "$(net_uplink_rate)")bit"
}

# The bridge node $1's link joins: its group's, or the core bridge.
net_node_bridge() {
    local g
    g=$(net_group_of "$1" "$(net_groups)")
    if [ "$g" -eq 0 ]; then net_bridge; else net_group_bridge "$g"; fi
}

# Builds the group bridges and their uplinks (each recorded before it is
# created).  Called as `net_groups_up || return 1`: every step checks.
net_groups_up() {
    local spec count g gbr up core bps
    spec=$(net_groups)
    [ -n "$spec" ] || return 0
    count=$(tr ',' '\n' <<<"$spec" | wc -l)
    bps=$(net_parse_rate MINICLUSTER_UPLINK_RATE "$(net_uplink_rate)")
    for ((g = 1; g <= count; g++)); do
        gbr=$(net_group_bridge "$g")
        up=$(net_uplink_group_end "$g")
        core=$(net_uplink_core_end "$g")
        net_record link "$gbr"
        ip link add name "$gbr" type bridge forward_delay 0 stp_state 0 || return 1
        ip link set "$gbr" up || return 1
        # deleting either end of a veth deletes both: one line per end all
        # the same, so `down` finds whichever is left
        net_record link "$core"
        net_record link "$up"
        ip link add "$core" type veth peer name "$up" || return 1
        ip link set "$core" master "$(net_bridge)" up || return 1
        ip link set "$up" master "$gbr" up || return 1
        net_shape "$core" "" "$bps" || return 1 # into the group
        net_shape "$up" "" "$bps" || return 1   # out of the group
    done
}

# Lines for `status`: each uplink from net.made, with the ports of its
# group's bridge and its qdisc, as the host has them now.
net_groups_status() {
    local kind name g members
    while read -r kind name; do
        [[ $kind == link && $name =~ ^$(net_tag)u([0-9]+)$ ]] || continue
        g=${BASH_REMATCH[1]}
        members=$(ip -o link show master "$(net_group_bridge "$g")" 2>/dev/null |
            awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | grep -v "^$name\$" | sed "s/^$(net_tag)n/node/" | tr '\n' ' ')
        printf '  group %-2s %-16s uplink %s  %s\n' "$g" "${members% }" "$name" \
            "$(tc qdisc show dev "$name" 2>/dev/null | head -1)"
    done <"$NET_MADE"
}
