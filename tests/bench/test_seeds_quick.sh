#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The seeds bench's --quick subset (contrib/bench/seeds/run.sh): thesis 000's
# Tables 6.1/6.2 whole, a few instances of each instance set, seed 003's
# 8-node cases.  Asserts figures that could fail: the thesis's rows we
# compute the same way (MPI's order = blocked, Nodecart) equal its tables
# exactly, auto is never worse than blocked (the bench's own bar, exit 1),
# auto reaches paper 001's component optimum (J_max 2) on 50x48, and the
# report names the rows where a seed beats us.  Never a time.
# Plain exit status for automake's harness; one line per check.

TOP=${STENCILMAP_TOP_SRCDIR:?STENCILMAP_TOP_SRCDIR must name the source tree}
SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 not found"; exit 1; }

work=$(mktemp -d "${PWD}/seeds-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
fails=0
check() {  # name, command...
    name=$1; shift
    if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

STENCIL_MAP=$SM SEEDS_OUT="$work/out" SEEDS_WORK="$work/work" \
    "$TOP/contrib/bench/seeds/run.sh" --quick >"$work/run.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || tail -30 "$work/run.log" | sed 's/^/    | /'
check "run.sh --quick exits 0 (every bar met)" test "$rc" -eq 0
md=$work/out/seeds.md
check "the report is written" test -s "$md"

# thesis Tables 6.1/6.2: "| row | seed sum | seed max | ours sum | ours max |"
while read -r row sum max; do
    check "thesis table row '$row' $sum/$max is ours exactly" \
        grep -q "^| $row | $sum | $max | $sum | $max | 1.000 | 1.000 |" "$md"
done <<'ROWS'
cart 2416 80
nodecart 2272 80
cart 16324 572
nodecart 15928 572
cart 6160 224
cart 5760 208
nodecart 4032 160
cart 4530 150
nodecart 4260 150
ROWS
check "seven stencil sections" test "$(grep -c '^#### ' "$md")" -eq 7
check "bars all met" grep -q "auto never worse than blocked.*: all met" "$md"
check "paper 001 component 50x48: auto J_max 2 (the paper's optimum)" \
    grep -q "N = 50, 50x48, component.*auto [0-9]*/2," "$md"
check "paper 001 Figure 8 claims checked, none fails" \
    sh -c 'grep -c "^- median J_sum reduction.*: holds" "$1" | grep -qx 6' - "$md"
check "seed 003: three base ratios on 8 nodes, five placements each" \
    test "$(grep -c '^| [124]:[124]:[124] | 8 |' "$md")" -eq 15
check "the rows where a seed beats ours are listed" grep -q "^### Where a seed's figure beats ours" "$md"
# the bar must be able to fail: a seed figure changed by one is refused
sed 's/"cart": \[2416,/"cart": [2417,/' "$TOP/contrib/bench/seeds/seed_figures.py" >"$work/seed_figures.py"
mkdir -p "$work/bad"
cp "$TOP"/contrib/bench/seeds/*.py "$work/bad/" && cp "$work/seed_figures.py" "$work/bad/"
python3 "$work/bad/report.py" --stencil-map "$SM" --out "$work/bad-out" --work "$work/bad-work" --quick \
    >"$work/bad.log" 2>&1
check "a wrong seed figure fails the bench (exit 1)" test $? -eq 1
check "... naming the row" grep -q "MISSED: thesis five point cart: seed 2417/80, ours 2416/80" "$work/bad-out/seeds.md"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
