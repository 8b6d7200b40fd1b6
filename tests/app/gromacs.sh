# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by tests/app/run.sh: GROMACS (Debian's gmx_mpi, Open MPI), a
# real application that asks for MPI_Cart_create(reorder=1) and then
# communicates on the communicator it gets back, so the preload library's
# reordering really takes effect.  With -ddorder cartesian and separate
# PME ranks whose count divides the grid, GROMACS's split_communicator
# (src/gromacs/domdec/domdec.cpp) builds one 3-D periodic grid of all its
# ranks, PP cells and a slab of PME ranks, with reorder=1, replaces its
# simulation communicator by it and splits the PP and PME groups from it
# in its Cartesian order (doc/inside-the-application.md, "A real
# application: GROMACS").  The input is made at test time by GROMACS's own
# tools: 2x2x4 copies of its equilibrated spc216 water box (3456 SPC/E
# waters, OPLS-AA, PME), 100 steps.  Each case runs under mpirun in an
# allocation of the whole cluster, no plugin option, without and with
# libstencilmap-reorder preloaded.  PME-only ranks are needed: with
# -npme 0 GROMACS makes no Cartesian communicator at all.
#
# needs from run.sh: WORK, PREFIX, NODES, RANKS, BYTES_TOLERANCE, mc, fail,
# link_bytes, mb.

GMX=$(command -v gmx_mpi || true)
GMX_DD="2 2 3" GMX_NPME=4 # PP grid 2x2x3 and 4 PME ranks: the Cartesian grid 2x2x4
GMX_GRID=2x2x4
# The last step's energies must be identical to the printed digits with
# and without the library: mdrun runs with -reprod (no optimisation that
# depends on timing), -dlb no and -notunepme.  Without -reprod they are
# not, even between two runs in MPI's order: the pressure differed in its
# 4th digit (316.039 and 315.992 bar), the other terms in the 6th.
# Bytes between nodes the reordering must save, at least (% of MPI's
# order, blocked): it saved 44 % (85.5 to 48.1 MB) in each of 9 runs.
GMX_BYTES_SAVED_MIN=10

# the water box and its run input, made by gmx_mpi's own tools
t_gromacs_input() {
    local d=$WORK/gmx
    [ -n "$GMX" ] || { fail "gmx_mpi not found: install Debian's gromacs (contrib/install-deps.sh does)"; return 1; }
    rm -rf "$d"
    mkdir -p "$d"
    (
        cd "$d" || exit 1
        "$GMX" -quiet genconf -f "$(dirname "$(dirname "$GMX")")/share/gromacs/top/spc216.gro" \
            -nbox 2 2 4 -o box.gro >genconf.log 2>&1 || { cat genconf.log; exit 1; }
        n=$((($(wc -l <box.gro) - 3) / 3))
        printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/spce.itp"\n' >water.top
        printf '[ system ]\nwater\n[ molecules ]\nSOL %d\n' "$n" >>water.top
        cat >md.mdp <<'EOF'
integrator     = md
dt             = 0.002
nsteps         = 100
cutoff-scheme  = Verlet
coulombtype    = PME
rcoulomb       = 0.9
rvdw           = 0.9
fourierspacing = 0.15
tcoupl         = no
pcoupl         = no
gen_vel        = yes
gen_temp       = 300
gen_seed       = 37
nstcalcenergy  = 50
nstenergy      = 50
nstlog         = 50
EOF
        "$GMX" -quiet grompp -f md.mdp -c box.gro -p water.top -o md.tpr >grompp.log 2>&1 ||
            { cat grompp.log; exit 1; }
        echo "$n waters, $((3 * n)) atoms"
    ) || { fail "could not make the GROMACS input"; return 1; }
    [ -s "$d/md.tpr" ] || { fail "no md.tpr"; return 1; }
}

# the energies of the log's last step (the block before the averages),
# one "NAME<tab>VALUE" a line
gmx_last_energies() {
    awk '/A V E R A G E S/ { exit }
         /^ *Energies \(kJ\/mol\)/ { n = 0; on = 1; next }
         on && NF == 0 { on = 0; next }
         on { line[++n] = $0 }
         END { for (i = 1; i < n; i += 2) {
                   # names are in 15-column fields, values under them
                   for (c = 0; c * 15 < length(line[i]); c++) {
                       k = substr(line[i], c * 15 + 1, 15); gsub(/^ +| +$/, "", k)
                       x = substr(line[i + 1], c * 15 + 1, 15); gsub(/ /, "", x)
                       if (k != "") print k "\t" x } } }' "$1"
}

# mpirun_gmx NAME LAYOUT [ENV...]: mdrun under Open MPI's mpirun in an
# allocation of the whole cluster; LAYOUT blocked (mpirun's default) or
# cyclic (--map-by node).  Leaves in runs/NAME: out, err, md.log,
# energies, bytes (between nodes) and wall (seconds, GROMACS's "Time:").
mpirun_gmx() {
    local name=$1 layout=$2 d=$WORK/runs/$1 b0 b1 e args="" wall
    shift 2
    for e in "$@"; do args="$args -x $e"; done
    [ "$layout" = cyclic ] && args="$args --map-by node"
    rm -rf "$d"
    mkdir -p "$d"
    b0=$(link_bytes) || { fail "no counters on the cluster's links"; return 1; }
    # shellcheck disable=SC2086 # args and GMX_DD are words
    mc salloc -Q -N $NODES -n $RANKS --time=4 mpirun --bind-to none -np $RANKS -x OMP_NUM_THREADS=1 \
        -x GMX_MAXBACKUP=-1 $args "$GMX" -quiet mdrun -s "$WORK/gmx/md.tpr" -deffnm "$d/md" \
        -dd $GMX_DD -npme $GMX_NPME -ddorder cartesian -dlb no -notunepme -reprod -nb cpu -ntomp 1 -pin off \
        >"$d/out" 2>"$d/err"
    local rc=$?
    b1=$(link_bytes)
    cat "$d/out" "$d/err"
    [ $rc -eq 0 ] || { fail "mpirun exited $rc"; return 1; }
    grep -q "Will use a Cartesian communicator for PP <-> PME: ${GMX_GRID//x/ x }" "$d/md.log" ||
        { fail "GROMACS did not make its $GMX_GRID Cartesian communicator"; return 1; }
    wall=$(awk '/^ *Time:/ { print $3 }' "$d/md.log")
    [ -n "$wall" ] || { fail "no Time: line in $d/md.log (the run did not finish)"; return 1; }
    echo "$wall" >"$d/wall"
    gmx_last_energies "$d/md.log" >"$d/energies"
    grep -q "^Total Energy	" "$d/energies" || { fail "no energies in $d/md.log"; return 1; }
    read -r s0 h0 <<<"$b0"
    read -r s1 h1 <<<"$b1"
    echo $(((s1 - s0) - (h1 - h0))) >"$d/bytes"
    echo "$name: $(cat "$d/bytes") bytes between nodes; wall time $wall s"
}

# t_gromacs_reorder LAYOUT WHAT: without and with the library; its line
# must come (GROMACS's own call reached it) and say WHAT ("reordered" or
# "order kept"), GROMACS must finish with the same energies, and the bytes
# between nodes must fall by GMX_BYTES_SAVED_MIN % when reordered, or not
# grow beyond BYTES_TOLERANCE (run.sh) when the order is kept.
t_gromacs_reorder() {
    local layout=$1 what=$2 off=gmx-$1-off on=gmx-$1-lib line b0 b1
    [ -s "$WORK/gmx/md.tpr" ] || { fail "needs gromacs-input before it"; return 1; }
    mpirun_gmx "$off" "$layout" || return 1
    mpirun_gmx "$on" "$layout" LD_PRELOAD="$PREFIX/lib/libstencilmap-reorder.so" STENCIL_MAP_VERBOSE=1 ||
        return 1
    ! grep -q '^stencil-map:' "$WORK/runs/$off/err" || { fail "a library line without the library"; return 1; }
    line=$(grep "^stencil-map: MPI_Cart_create $GMX_GRID on $NODES nodes: " "$WORK/runs/$on/err") ||
        { fail "no line from the library: GROMACS's MPI_Cart_create did not reach it"; return 1; }
    echo "$line" >"$WORK/runs/$on/line"
    case $line in *"nodes: $what,"*) ;; *) fail "not $what: $line"; return 1 ;; esac
    diff "$WORK/runs/$off/energies" "$WORK/runs/$on/energies" ||
        { fail "GROMACS's last-step energies differ with the library"; return 1; }
    echo "last-step energies identical ($(wc -l <"$WORK/runs/$on/energies") terms)"
    b0=$(cat "$WORK/runs/$off/bytes")
    b1=$(cat "$WORK/runs/$on/bytes")
    echo "between nodes: library $(mb "$b1"), MPI's order $(mb "$b0")"
    if [ "$what" = reordered ]; then
        [ $((b1 * 100)) -le $((b0 * (100 - GMX_BYTES_SAVED_MIN))) ] ||
            { fail "$(mb "$b1") with the library, not $GMX_BYTES_SAVED_MIN % below $(mb "$b0")"; return 1; }
    else
        [ $((b1 * 100)) -le $((b0 * (100 + BYTES_TOLERANCE))) ] ||
            { fail "$(mb "$b1") with the library against $(mb "$b0")"; return 1; }
    fi
}

t_gromacs_summary() {
    local r
    printf '%-18s %14s %12s\n' run "between nodes" "wall time"
    for r in "$WORK"/runs/gmx-*-off "$WORK"/runs/gmx-*-lib; do
        [ -f "$r/bytes" ] || { fail "no figures from $r"; return 1; }
        printf '%-18s %14s %10s s\n' "${r##*/}" "$(mb "$(cat "$r/bytes")")" "$(cat "$r/wall")"
    done | tee "$WORK/gromacs-summary.txt"
    cat "$WORK"/runs/gmx-*-lib/line | tee -a "$WORK/gromacs-summary.txt"
}
