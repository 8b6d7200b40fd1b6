#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The seeds' own tables beside ours (issue 39): thesis 000's Tables 6.1/6.2
# and instance set, paper 001's Figure 8 claims and Figures 6-7's instances,
# seed 003's halo benchmark, each seed figure beside ours with the command
# that gave it (report.py; the seeds' figures in seed_figures.py).  Needs
# only the built stencil-map and python3: no Slurm, no root.
#
#   make bench-seeds                          (from the build directory), or
#   STENCIL_MAP=_build/cli/stencil-map contrib/bench/seeds/run.sh [--quick] [--simulate]
#
# --quick: the thesis tables and seed 003's 8-node cases whole, the instance
# sets cut to a few instances (tests/bench/test_seeds_quick.sh runs it).
# --simulate: instead, paper 001's Figures 6-7 speedups simulated in
# SimGrid's SMPI (simulate.py; results/simulated.md): needs smpicc and
# smpirun (libsimgrid-dev); with --quick only the 50-node instance.
# --halo: instead, seed 003's halo benchmark timed on the netns minicluster
# (halo003/run.sh: root, mpicc; results/halo003-NxC.md).  Takes no other
# argument and needs no STENCIL_MAP (it builds its own install).
# Exits non-zero when a bar is missed (a seed row we compute the same way
# differs from the seed, or auto is worse than blocked).
#
# env: STENCIL_MAP (the binary, required), SEEDS_OUT (results/ beside this
#      script; --quick: required, so a quick run never overwrites the
#      kept results), SEEDS_WORK (the spec files; a temporary directory,
#      removed at the end, by default), SMPICC (smpicc).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
case " $* " in *" --halo "*)
    [ $# -eq 1 ] || { echo "run.sh: --halo takes no other argument" >&2; exit 2; }
    exec "$HERE/halo003/run.sh" ;;
esac
SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
quick= simulate=
for arg in "$@"; do
    case "$arg" in
    --quick) quick=--quick ;;
    --simulate) simulate=--simulate ;;
    *) echo "run.sh: unknown argument '$arg' (--quick, --simulate, --halo)" >&2; exit 2 ;;
    esac
done
if [ -n "$quick" ]; then
    OUT=${SEEDS_OUT:?SEEDS_OUT must name where --quick writes (the kept results are the full run)}
else
    OUT=${SEEDS_OUT:-$HERE/results}
fi
command -v python3 >/dev/null 2>&1 || { echo "run.sh: python3 not found" >&2; exit 1; }
[ -x "$SM" ] || { echo "run.sh: STENCIL_MAP '$SM' is not an executable" >&2; exit 1; }
if [ -n "${SEEDS_WORK:-}" ]; then
    WORK=$SEEDS_WORK
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/seeds-bench.XXXXXX") || exit 1
    trap 'rm -rf "$WORK"' EXIT INT TERM
fi
python3 "$HERE/report.py" --stencil-map "$SM" --out "$OUT" --work "$WORK" $quick $simulate
