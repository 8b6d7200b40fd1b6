#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What MPIX_Cart_stencil_comm costs at 1,024 and 16,384 ranks, simulated
# in SimGrid's SMPI (no machine here starts that many processes): each of
# the call's steps (node identities, the gather at rank 0, rank 0's plan,
# the scatter of new ranks, MPI_Comm_split, MPI_Cart_create(reorder=0)) in
# a 2-D 5-point and a 3-D 7-point grid, 64 ranks per host on the scale
# bench's non-blocking fat-tree, beside MPI_Cart_create alone.
#
#   make bench-mpix-smpi            (from the build directory), or
#   contrib/bench/mpix-smpi/run.sh
#
# The library's sources (libstencilmap/mpix) and the placement core are
# compiled here with smpicc into one program with the driver
# stencil_comm_steps.c (which says how each step is timed and how rank 0's
# plan CPU time enters the simulated clock); the normal build is not used.
# Above MPIX_SMPI_CART_MAX ranks both MPI_Cart_create calls are left out
# and the table says so (SMPI's has been seen to cost O(p^2) of real CPU;
# with the collectives below it does not).  One simulation at a time,
# under nice; 16,384 ranks take 6 to 14 minutes on 2 shared cores and
# about 6 GiB.
#
# env: MPIX_SMPI_CASES ("1024:2 1024:3 16384:2 16384:3", RANKS:NDIMS),
#      MPIX_SMPI_SLOTS (64 ranks per host), MPIX_SMPI_CART_MAX (16384),
#      MPIX_SMPI_COLL (default: SMPI's smpi/coll-selector; ompi, mpich,
#      impi, mvapich2 pick the algorithms as those MPIs do; ompi took 50
#      times as long at 1,024 ranks),
#      MPIX_SMPI_NICE (19), MPIX_SMPI_LIMIT (7200 s per simulation),
#      MPIX_SMPI_WORK (/var/lib/stencilmap-mpix-smpi: the program, the
#      platform, hostfiles, logs), MPIX_SMPI_OUT (results/ beside this
#      script), SMPICC (smpicc).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
OUT=${MPIX_SMPI_OUT:-$HERE/results}
WORK=${MPIX_SMPI_WORK:-/var/lib/stencilmap-mpix-smpi}
CASES=${MPIX_SMPI_CASES:-1024:2 1024:3 16384:2 16384:3}
SLOTS=${MPIX_SMPI_SLOTS:-64}
CART_MAX=${MPIX_SMPI_CART_MAX:-16384}
NICE=${MPIX_SMPI_NICE:-19}
LIMIT=${MPIX_SMPI_LIMIT:-7200}
SMPICC=${SMPICC:-smpicc}
COLL=${MPIX_SMPI_COLL:-default}

die() { echo "mpix-smpi: $*" >&2; exit 1; }
case $COLL in ompi | mpich | impi | mvapich2 | default) ;;
*) die "MPIX_SMPI_COLL must be ompi, mpich, impi, mvapich2 or default (got '$COLL')" ;;
esac
for v in SLOTS CART_MAX LIMIT; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "MPIX_SMPI_$v must be a positive integer (got '${!v}')"
done
[[ $NICE =~ ^[0-9]+$ ]] && [ "$NICE" -le 19 ] || die "MPIX_SMPI_NICE must be 0 to 19 (got '$NICE')"
for c in $CASES; do
    [[ $c =~ ^[1-9][0-9]*:[23]$ ]] || die "MPIX_SMPI_CASES: '$c' is not RANKS:NDIMS (NDIMS 2 or 3)"
done
command -v "$SMPICC" >/dev/null || die "$SMPICC not found: SimGrid's SMPI is needed (Debian: libsimgrid-dev)"
command -v smpirun >/dev/null || die "smpirun not found (Debian: libsimgrid-dev)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian: time)"
mkdir -p "$WORK/obj" "$WORK/logs" "$OUT" || die "cannot create $WORK or $OUT"

# ------------------------------------------------------------ build ------
am_sources() { # MAKEFILE.AM VAR: the .c files of VAR, continued lines joined
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" | sed -n "s/^$2[ \t]*=//p" | tr ' \t' '\n\n' | grep '\.c$'
}
build() {
    local prog=$WORK/stencil_comm_steps f o objs=() version
    version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$TOP/configure.ac")
    [ -n "$version" ] || die "no version in configure.ac's AC_INIT"
    # format_numbers.h reads the version from config.h, as in the normal build
    printf '#define PACKAGE_VERSION "%s"\n' "$version" >"$WORK/obj/config.h.new"
    cmp -s "$WORK/obj/config.h.new" "$WORK/obj/config.h" || mv "$WORK/obj/config.h.new" "$WORK/obj/config.h"
    local flags=(-O2 -I"$WORK/obj" -I"$TOP/placement" -I"$TOP/libstencilmap/mpix"
        -DSMP_SPECS_DIR="\"$TOP/stencil-specs\"")
    for f in $(am_sources "$TOP/placement/Makefile.am" libsmp_core_la_SOURCES) \
        $(am_sources "$TOP/placement/Makefile.am" libsmp_env_la_SOURCES); do
        objs+=("placement/$f")
    done
    for f in mpix_check.c mpix_nodes.c mpix_levels.c mpix_plan.c; do
        objs+=("libstencilmap/mpix/$f")
    done
    objs+=("contrib/bench/mpix-smpi/stencil_comm_steps.c")
    local built=()
    for f in "${objs[@]}"; do
        o=$WORK/obj/$(echo "${f%.c}" | tr / _).o
        if [ ! -e "$o" ] || [ "$TOP/$f" -nt "$o" ] || [ "$WORK/obj/config.h" -nt "$o" ]; then
            nice "$SMPICC" "${flags[@]}" -c -o "$o" "$TOP/$f" >>"$WORK/build.log" 2>&1 ||
                { tail -20 "$WORK/build.log" >&2; die "smpicc failed on $f (log $WORK/build.log)"; }
        fi
        built+=("$o")
    done
    nice "$SMPICC" -o "$prog" "${built[@]}" -ljansson -lm >>"$WORK/build.log" 2>&1 ||
        { tail -20 "$WORK/build.log" >&2; die "linking $prog failed (log $WORK/build.log)"; }
}
: >"$WORK/build.log"
echo "mpix-smpi: building $WORK/stencil_comm_steps with $SMPICC"
build

# ------------------------------------------------------------ runs -------
PLAT=$WORK/platforms
python3 "$TOP/contrib/bench/scale/platforms.py" "$PLAT" >/dev/null || die "platforms.py failed"
# the scale bench's settings: messages only, the platform's figures as they
# are, small stacks so that 16,384 ranks fit.  Collectives as trees:
# binomial gather and scatter (what Open MPI and MPICH use for small
# records), a tree barrier and a binomial reduce; the rest SMPI's defaults
# (MPIX_SMPI_COLL).  SMPI's default gather and barrier are linear: rank 0
# waits for p requests at once, which costs O(p^2) of real CPU and would
# take hours at 16,384 ranks.
SMPI_OPTS=(-no-privatize --cfg=smpi/coll-selector:"$COLL"
    --cfg=smpi/gather:ompi_binomial --cfg=smpi/scatter:ompi_binomial
    --cfg=smpi/barrier:ompi_tree --cfg=smpi/reduce:ompi_binomial
    --cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf
    --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
    --cfg=contexts/stack-size:256 --cfg=contexts/guard-size:0)

RESULTS=$OUT/steps.tsv
HEAD=$'ranks\tndims\tdims\thosts\tidentities_alone_s\tgather_alone_s\tgather_bytes\tgather_openmpi_s\tgather_openmpi_bytes\tidentities_gather_s\tplan_s\tplan_cpu_s\tscatter_s\tsplit_s\tcart_create_s\ttotal_s\tcart_create_alone_s\tplan\twall_s\tmaxrss_kb'
[ -s "$RESULTS" ] || printf '%s\n' "$HEAD" >"$RESULTS"
head -1 "$RESULTS" | cmp -s - <(printf '%s\n' "$HEAD") || die "$RESULTS has another header: move it away"

val() { sed -n "s/^$1 \([^ ]*\).*/\1/p" "$2" | head -1; }
simulate() { # RANKS NDIMS
    local ranks=$1 nd=$2 hosts=$((($1 + SLOTS - 1) / SLOTS)) hf log cart=() h
    hf=$WORK/hosts-$ranks
    log=$WORK/logs/$ranks-${nd}d.log
    for ((h = 0; h < ranks; h++)); do echo "host$((h / SLOTS))"; done >"$hf"
    [ "$ranks" -gt "$CART_MAX" ] && cart=(--no-cart)
    echo "mpix-smpi: $ranks ranks, ${nd}-D, $hosts hosts of $SLOTS${cart:+, without MPI_Cart_create}"
    /usr/bin/time -o "$log.time" -f '%e %M' timeout "$LIMIT" nice -n "$NICE" \
        smpirun -platform "$PLAT/fattree.xml" -hostfile "$hf" -np "$ranks" "${SMPI_OPTS[@]}" \
        "$WORK/stencil_comm_steps" "$nd" "${cart[@]}" >"$log" 2>&1 ||
        { tail -5 "$log" >&2; die "the simulation of $ranks ranks ${nd}-D failed (log $log)"; }
    local wall rss
    read -r wall rss < <(tail -1 "$log.time")
    local step
    step() { sed -n "s/^step $1 \([^ ]*\)$/\1/p" "$log"; }
    [ -n "$(step total)" ] || die "no step times in $log"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$ranks" "$nd" "$(sed -n 's/^ranks [0-9]* dims //p' "$log")" "$hosts" \
        "$(val 'alone identities' "$log")" "$(val 'alone gather' "$log")" \
        "$(sed -n 's/^alone gather .* bytes //p' "$log")" "$(val 'alone gather_openmpi' "$log")" \
        "$(sed -n 's/^alone gather_openmpi .* bytes //p' "$log")" "$(step identities+gather)" "$(step plan)" \
        "$(val plan_cpu "$log")" "$(step scatter)" "$(step split)" "$(step cart_create)" "$(step total)" \
        "$(val 'alone cart_create_reorder1' "$log")" "$(sed -n 's/^plan //p' "$log")" "$wall" "$rss" \
        >>"$RESULTS"
}
for c in $CASES; do
    simulate "${c%:*}" "${c#*:}"
done
python3 "$HERE/table.py" "$RESULTS" >"$OUT/steps.md" || die "table.py failed"
cat "$OUT/steps.md"
echo "mpix-smpi: done; table $OUT/steps.md, raw data $RESULTS"
