#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the libFuzzer harnesses with clang (ASan + UBSan) straight from the
# placement sources and runs each for FUZZ_SECONDS (default 300), starting
# from the shipped specs, the hand-made nasty cases in seeds/ and the inputs
# that once crashed a harness (found/HARNESS-*, kept after the fix).  Prints
# executions and crashes per harness; exits non-zero on any crash.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
seconds=${FUZZ_SECONDS:-300}
work=${FUZZ_WORK_DIR:-$top/_build/fuzz}
mkdir -p "$work"
export STENCILMAP_SPECS_DIR="$top/stencil-specs"

# the placement core as the plugin links it: its top files and every room
srcs=("$top"/placement/*.c "$top"/placement/*/*.c)
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$top/placement" -I"$top/topology" $(pkg-config --cflags jansson))
# the topology parsers, for their harness only (topology.yaml: libyaml)
topo_srcs=("$top"/topology/*.c $(pkg-config --cflags --libs yaml-0.1))
libs=($(pkg-config --libs jansson) -lm)

"$here/make-seeds.sh" "$here/seeds"
status=0
ok=0
bad=0
for h in spec hostlist plan topology; do
    extra=()
    [ "$h" = topology ] && extra=("${topo_srcs[@]}")
    clang "${flags[@]}" "$here/fuzz_$h.c" "${srcs[@]}" "${extra[@]}" "${libs[@]}" -o "$work/fuzz_$h"
    corpus="$work/corpus_$h"
    mkdir -p "$corpus"
    case $h in
    spec) cp "$top"/stencil-specs/*.json "$here"/seeds/* "$corpus"/ 2>/dev/null || true ;;
    hostlist)
        printf 'n[01-04]\00048(x3),32' >"$corpus/seed-slots"
        printf 'node[1-3],gpu[07-08]\0004' >"$corpus/seed-mixed" ;;
    topology) # 'c', 'y', 'Y', 'p' or 's', the step's nodes, then a topology of the tests' files
        i=0
        for f in "$top"/tests/unit/topology/*/*.conf; do
            i=$((i + 1))
            { printf 'cn[1-8],n[01-16],a[1-8],g[1-12]\n'; cat "$f"; } >"$corpus/seed-$i"
        done
        for f in "$top"/tests/unit/topology/*/*.yaml; do
            i=$((i + 1))
            { printf 'yn[1-8],n[01-16],a[1-8],g[1-12]\n'; cat "$f"; } >"$corpus/seed-$i"
            i=$((i + 1))
            { printf 'Ya[1-8]\n'; sed 's/racks/b/' "$f"; } >"$corpus/seed-$i"
        done
        for f in "$top"/tests/unit/topology/*/*.printed; do
            i=$((i + 1))
            { printf 'pn[1-8],n[01-16]\n'; cat "$f"; } >"$corpus/seed-$i"
        done
        for f in "$top"/tests/unit/topology/*/*.saved; do
            i=$((i + 1))
            { printf 'scn[001-016],hpc-[1-12],dgx[01-08],gb200-[001-072]\n'; cat "$f"; } >"$corpus/seed-$i"
        done ;;
    plan) # node list, slots, "TASKS ALGORITHM", then a spec
        i=0
        for f in "$top"/stencil-specs/*.json "$here"/seeds/ok "$here"/seeds/weights "$here"/seeds/auto; do
            for alg in auto hyperplane strips kdtree nodecart bisect blocked; do
                i=$((i + 1))
                { printf 'node[1-4]\n8,8,6,4\n26 %s\n' "$alg"; cat "$f"; } >"$corpus/seed-$i"
            done
        done ;;
    esac
    # inputs that once crashed a harness: run first, so a regression fails at once
    for f in "$here"/found/"$h"-*; do
        [ -e "$f" ] && cp "$f" "$corpus"/
    done
    log="$work/fuzz_$h.log"
    set +e
    (cd "$work" && ./fuzz_"$h" -max_total_time="$seconds" -max_len=1100000 -rss_limit_mb=2048 \
        -timeout=20 -print_final_stats=1 "$corpus" >"$log" 2>&1)
    rc=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    crashes=$(find "$work" -maxdepth 1 \( -name "crash-*" -o -name "leak-*" -o -name "timeout-*" \) | wc -l)
    echo "fuzz_$h: ${execs:-?} executions in ${seconds}s, exit $rc, crash/leak/timeout files: $crashes"
    if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
        status=1
        bad=$((bad + 1))
        tail -n 30 "$log"
    else
        ok=$((ok + 1))
    fi
done
echo "$ok passed, $bad failed"
exit $status
