#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the profiled first run of --stencil-map=learn costs the application:
# the halo example (16 ranks of a 4x4 grid, 64 KiB to each neighbour, 50
# iterations after 10 warm-up ones) under mpirun on this machine, without
# and with libstencilmap-profile.so, alternately, REPEATS times; prints the
# medians of the whole run's wall time and of the halo's own time per
# iteration, and their ratios.  The ranks share this machine's cores, so
# the figures are a rough guide; asserts only that the profile was written.
#
# usage: first_run_bench.sh HALO_BUILD_DIR PROFILE_LIBRARY LIBSTENCILMAP_DIR [REPEATS]
halo_dir=$1 lib=$2 libdir=$3 repeats=${4:-5}
# the program itself, not libtool's wrapper script (which the library would
# be preloaded into too)
halo=$halo_dir/.libs/halo
[ -x "$halo" ] || halo=$halo_dir/halo
[ -x "$halo" ] || { echo "profile: the halo example is not built (PMIx?): no first-run bench"; exit 0; }
command -v mpirun >/dev/null || { echo "profile: no mpirun: no first-run bench"; exit 0; }
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
rc=0
k=1
while [ $k -le "$repeats" ]; do
    for mode in plain profiled; do
        set -- -x LD_LIBRARY_PATH="$libdir"
        [ $mode = profiled ] && set -- "$@" -x STENCIL_MAP_PROFILE_DIR="$d/p$k" -x LD_PRELOAD="$lib"
        t0=$(date +%s.%N)
        mpirun $root -np 16 --oversubscribe --mca mpi_yield_when_idle 1 "$@" \
            "$halo" --dims 4,4 -i 50 -s 65536 >"$d/out" 2>&1 || { cat "$d/out"; rc=1; }
        t1=$(date +%s.%N)
        echo "$mode $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $(sed -n 's/.*time per iteration median \([0-9.]*\) us.*/\1/p' "$d/out")" >>"$d/times"
    done
    k=$((k + 1))
done
[ -s "$d/p1/rank.15" ] || { echo "profile: the profiled halo wrote no profile"; rc=1; }
awk -v n="$repeats" '
    { t[$1, ++c[$1]] = $2; u[$1, c[$1]] = $3 }
    function median(a, m,    i, j, x, k, v) {
        k = c[m]
        for (i = 1; i <= k; i++) v[i] = a[m, i]
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
        return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
    }
    END {
        printf "first run of learn: the halo, 16 ranks of 4x4, 64 KiB a neighbour, 50 iterations, mpirun here, median of %d\n", n
        for (m = 1; m <= 2; m++) {
            name = m == 1 ? "plain" : "profiled"
            w[name] = median(t, name); p[name] = median(u, name)
            printf "  %-9s whole run %6.2f s, time per iteration %9.1f us\n", name, w[name], p[name]
        }
        printf "  profiled / plain: whole run %.3f, time per iteration %.3f\n", w["profiled"] / w["plain"], p["profiled"] / p["plain"]
    }' "$d/times" || rc=1
exit $rc
