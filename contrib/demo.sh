#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job, from a bare Debian 12 machine (as root): a real
# `srun --stencil-map` on a local 4-node Slurm, next to the blocked launch
# Slurm makes today, with where every rank ran and the inter-node edges of
# both.  See contrib/demo/README.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "demo: $*" >&2; exit 1; }

"$top/contrib/install-deps.sh"
"$top/contrib/build.sh"

export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/stencilmap-demo}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-29817}
export MINICLUSTER_NODES=4
export MINICLUSTER_CPUS=16,16,10,6
mc="$top/contrib/minicluster/minicluster"
# where the build installed the plugin, as make expands it (${libdir}/slurm)
plugin=$(make -s -C "${STENCILMAP_BUILD_DIR:-$top/_build}/spank_plugin" --no-print-directory \
    --eval='print-plugindir: ; @echo $(slurm_plugindir)' print-plugindir | tail -n1)/stencil_map.so
[ -f "$plugin" ] || die "plugin not installed at $plugin"

work="$MINICLUSTER_DIR/demo"   # outside /tmp: every node must see it
mkdir -p "$work"
install -d -m 1777 "$MINICLUSTER_DIR/records"
cp "$top/contrib/demo/demo-8x6.json" "$work/"
spec="$work/demo-8x6.json"

"$mc" down >/dev/null 2>&1 || true
trap '"$mc" down >/dev/null 2>&1 || true' EXIT
"$mc" up
echo "required $plugin record_dir=$MINICLUSTER_DIR/records" >"$MINICLUSTER_DIR/etc/plugstack.conf"
eval "$("$mc" env)"

# Each rank reports its rank, the node it really ran on and its coordinates.
report='echo "$SLURM_PROCID $SLURMD_NODENAME ${STENCIL_MAP_COORDS:-}"'

# The plan needs the allocation's nodes before launch, so steps run inside
# an allocation, as they do in batch jobs.
alloc() { salloc -Q -N4 -n48 "$@"; }

launch() { # launch NAME --stencil-map=...: writes NAME.ranks and NAME.hosts
    local name=$1; shift
    if ! alloc srun "$@" bash -c "$report" >"$work/$name.out" 2>"$work/$name.err"; then
        cat "$work/$name.err" >&2
        echo "demo: the $name step failed" >&2
        exit 1
    fi
    cat "$work/$name.err"
    sort -n "$work/$name.out" >"$work/$name.ranks"
    awk '{print $2}' "$work/$name.ranks" >"$work/$name.hosts"
    [ "$(wc -l <"$work/$name.hosts")" -eq 48 ] || { echo "demo: $name: not all 48 ranks reported" >&2; exit 1; }
}

echo
echo "== blocked: srun -n48 --stencil-map=none (what Slurm does today)"
launch blocked --stencil-map=none
stencil-map score "$spec" --hostfile "$work/blocked.hosts" --map

echo
echo "== placed: srun -n48 --stencil-map=$spec"
launch placed --stencil-map="$spec"
stencil-map score "$spec" --hostfile "$work/placed.hosts" --map
echo "first ranks (rank, node it ran on, grid coordinates):"
head -n 8 "$work/placed.ranks" | sed 's/^/  /'

halo="/usr/local/libexec/stencilmap/halo"
verify=$(command -v stencil-map-verify) || die "stencil-map-verify is not installed"
[ -x "$halo" ] || die "$halo is not installed"
echo
echo "== in the job: stencil-map-verify and an MPI halo exchange (MPI_Neighbor_alltoall)"
alloc srun --mpi=pmix --stencil-map="$spec" "$verify"
for placement in none "$spec"; do
    echo "-- --stencil-map=$(basename "$placement")"
    alloc srun --mpi=pmix --stencil-map="$placement" "$halo" --iters 20 --size 65536
done

echo
echo "audit records written: $(find "$MINICLUSTER_DIR/records" -name '*.json' | wc -l) in $MINICLUSTER_DIR/records"
