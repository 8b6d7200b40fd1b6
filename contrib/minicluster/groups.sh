# SPDX-License-Identifier: GPL-2.0-or-later
# groups.sh - the second tier of the netns network: nodes in groups, each
# group behind one shaped uplink (sourced by netns.sh; needs its helpers).
#
# Real clusters put nodes under leaf switches (Slurm's topology/tree) or in
# blocks; traffic between switches shares uplinks that carry much less per
# node than the nodes' own links.  MINICLUSTER_GROUPS puts each group's node
# links on a bridge of its own, mc<base>g<G>, joined to the core bridge (the
# one with slurmctld's and srun's address) by one veth pair: mc<base>u<G>
# in the group bridge, mc<base>c<G> in the core bridge.  Both ends are
# shaped to MINICLUSTER_UPLINK_RATE: mc<base>u<G> limits what the group
# sends out, mc<base>c<G> what it receives.  So two nodes of one group talk
# at the node rate, nodes of different groups share their groups' uplinks.
#
# The groups are written either as sizes in node order, "4,4" (node1-4 and
# node5-8) or "3,5", or as one hostlist per group separated by spaces,
# "node[1-2,5-6] node[3-4,7-8]", as a topology.conf would name a leaf
# switch's nodes (racks cabled across the node numbering), or as
# "topology": the leaf switches (or blocks) of MINICLUSTER_TOPOLOGY, the
# topology.conf the minicluster gives Slurm.  So the network built and the
# one Slurm plans on are one; groups written out while a topology file is
# set must be that file's.  Without MINICLUSTER_GROUPS the nodes sit on the
# core bridge (one tier).

# The nodes of hostlist $1 (nodeN, node[A-B,C], joined by commas), one
# number a line; returns 1 on anything else.
net_hostlist_numbers() {
    local rest=$1 item r a b
    while [ -n "$rest" ]; do
        if [[ $rest =~ ^node([0-9]+)(,|$)(.*)$ ]]; then
            echo "$((10#${BASH_REMATCH[1]}))"
        elif [[ $rest =~ ^node\[([0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*)\](,|$)(.*)$ ]]; then
            item=${BASH_REMATCH[1]}
            for r in ${item//,/ }; do
                a=${r%-*}
                b=${r#*-}
                ((10#$a <= 10#$b)) || return 1
                seq "$((10#$a))" "$((10#$b))"
            done
        else
            return 1
        fi
        rest=${BASH_REMATCH[${#BASH_REMATCH[@]} - 1]}
    done
}

# The hostlists of the leaf switches (SwitchName= with Nodes=) or blocks
# (BlockName= with Nodes=) of the topology.conf file $1, one a line: the
# groups the network must have for Slurm's topology to be the true one.
# Keys are case-insensitive, as Slurm reads them; # starts a comment.
net_topology_leaves() {
    local f=$1 line w nodes kind
    [ -r "$f" ] || die "MINICLUSTER_TOPOLOGY=$f is not readable (for MINICLUSTER_GROUPS)"
    [[ $f != *.yaml ]] ||
        die "MINICLUSTER_GROUPS needs MINICLUSTER_TOPOLOGY in topology.conf syntax (a topology.yaml may hold several networks; give the groups as sizes or hostlists)"
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}
        nodes="" kind=""
        for w in $line; do
            case ${w,,} in
                switchname=* | blockname=*) kind=${w%%=*} ;;
                nodes=*) nodes=${w#*=} ;;
            esac
        done
        [ -n "$kind" ] && [ -n "$nodes" ] && echo "$nodes"
    done <"$f"
    return 0
}

# The group (1-based) of each node, comma separated ("1,1,2,2"), checked
# against the node count: every node in exactly one of 2 to 16 groups,
# numbered in the order of their first nodes.  MINICLUSTER_GROUPS=topology
# takes the leaf switches (or blocks) of MINICLUSTER_TOPOLOGY; groups given
# otherwise must match that file's when both are set.  Empty without groups.
# (Run in $(...), where errexit is not inherited: every nested substitution
# that may die says `|| exit 1`, or its failure would pass for no groups.)
net_groups() {
    local spec=${MINICLUSTER_GROUPS:-} topo=${MINICLUSTER_TOPOLOGY:-} map leaves
    [ -n "$spec" ] || return 0
    if [ "$spec" = topology ]; then
        [ -n "$topo" ] || die "MINICLUSTER_GROUPS=topology needs MINICLUSTER_TOPOLOGY (a topology.conf file)"
        leaves=$(net_topology_leaves "$topo" | paste -sd' ') || exit 1
        [ -n "$leaves" ] || die "MINICLUSTER_GROUPS=topology: $topo has no switch or block with Nodes="
        map=$(net_groups_map "$leaves" "the leaf switches of $topo") || exit 1
        echo "$map"
        return 0
    fi
    map=$(net_groups_map "$spec" "MINICLUSTER_GROUPS=$spec") || exit 1
    if [ -n "$topo" ]; then
        leaves=$(net_topology_leaves "$topo" | paste -sd' ') || exit 1
        [ -n "$leaves" ] && [ "$(net_groups_map "$leaves" "the leaf switches of $topo")" = "$map" ] ||
            die "MINICLUSTER_GROUPS=$spec and the leaf switches of MINICLUSTER_TOPOLOGY=$topo" \
                "($leaves) are not the same groups: Slurm would plan on another" \
                "network than the one built; set MINICLUSTER_GROUPS=topology to take the file's"
    fi
    echo "$map"
}

# The map of net_groups from the groups $1 (sizes or hostlists); $2 names
# where they came from, for the messages.
net_groups_map() {
    local spec=$1 what=$2 n i g s count=0
    n=$(nodes_count) || exit 1
    local -a of=() words
    if [[ $spec =~ ^[0-9]+(,[0-9]+)*$ ]]; then
        i=0
        IFS=, read -r -a words <<<"$spec"
        for s in "${words[@]}"; do
            [ "$s" -ge 1 ] || die "$what: a group of $s nodes; each needs at least 1"
            count=$((count + 1))
            for ((g = 0; g < s; g++)); do
                i=$((i + 1))
                [ "$i" -le "$n" ] && of[i]=$count
            done
        done
        [ "$i" -eq "$n" ] || die "$what holds $i nodes but MINICLUSTER_NODES=$n"
    else
        read -r -a words <<<"$spec"
        for s in "${words[@]}"; do
            count=$((count + 1))
            local nums
            nums=$(net_hostlist_numbers "$s") && [ -n "$nums" ] ||
                die "$what: groups must be sizes (4,4) or one hostlist per group separated by spaces" \
                    "(node[1-2,5-6] node[3-4,7-8]); '$s' is neither"
            for i in $nums; do
                [ "$i" -ge 1 ] && [ "$i" -le "$n" ] ||
                    die "$what: node$i is not a node of this cluster (node1..node$n)"
                [ -z "${of[i]:-}" ] || die "$what: node$i is in group ${of[i]} and in group $count"
                of[i]=$count
            done
        done
        for ((i = 1; i <= n; i++)); do
            [ -n "${of[i]:-}" ] || die "$what: node$i is in no group (every node needs one)"
        done
    fi
    [ "$count" -ge 2 ] && [ "$count" -le 16 ] || die "$what must name 2 to 16 groups (got $count)"
    # numbered by first node, so that one layout is one map however written
    local -A renum=()
    local next=0 out=""
    for ((i = 1; i <= n; i++)); do
        [ -n "${renum[${of[i]}]:-}" ] || renum[${of[i]}]=$((next += 1))
        out+="${out:+,}${renum[${of[i]}]}"
    done
    echo "$out"
}

# Group (1-based) of node $1 from the map $2 (net_groups); 0 without groups.
net_group_of() {
    local -a of
    [ -n "$2" ] || { echo 0; return; }
    IFS=, read -r -a of <<<"$2"
    echo "${of[$1 - 1]}"
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
    count=$(tr ',' '\n' <<<"$spec" | sort -n | tail -1)
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
