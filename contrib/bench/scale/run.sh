#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The payoff at scale, simulated: the halo exchange of 1,024 to 16,384
# ranks in SimGrid's SMPI on modelled networks (a non-blocking fat-tree, a
# fat-tree tapered 4:1 above its leaf switches, a dragonfly), placed
# blocked and by every placement of stencil-map, side by side; and the
# calibration: the payoff bench's four cases on a star with the netns
# minicluster's link rate, to hold against what was measured there.
#
#   make bench-scale               (from the build directory), or
#   contrib/bench/scale/run.sh     (stencil-map built in ../../../_build)
#
# Every hostfile comes from a tool: `stencil-map plan --hostfile` for
# blocked, each construction and auto (objective max and sum), `stencil-map
# compare --hostfiles` for Scotch's mapping, `stencil-map plan --topology`
# for the levelled plan when the CLI has it.  Placements with the same
# hostfile are simulated once.  Each simulation runs alone, under nice 19
# (SCALE_NICE).
# It must be the placement it stands for, or the bench fails: SMPI's own
# map of ranks to hosts (smpirun -map) must be the hostfile, and up to
# SCALE_COUNT_MAX ranks the halo first sends every neighbour its host's
# name and must count the plan's J_sum of inter-node messages (which also
# checks that the halo's neighbours are the planner's; above that the
# count is left out: it costs 10 to 30 times the exchange's simulation).
#
# Resumable: a simulation whose result is in runs.tsv (same case, network
# and hostfile) is not run again, and every result is written as soon as
# it exists; so a long sweep can be stopped and started again.
#
# env: SCALE_CASES (regex on case names, default all of both files),
#      SCALE_CASES_FILE (cases.txt beside this script),
#      SCALE_CALIBRATION (calibration.txt beside this script; "none": skip),
#      SCALE_NETWORKS (fattree fattree-tapered dragonfly),
#      SCALE_ALGS (limits every case's placements to these names),
#      SCALE_COUNT_MAX (1024 ranks),
#      SCALE_ITERS (1: simulated times are deterministic), SCALE_BYTES
#      (262144 per neighbour), SCALE_LIMIT (14400 s: a simulation still
#      going then is stopped and the bench fails),
#      SCALE_OUT (results/ beside this script), SCALE_WORK
#      (/var/lib/stencilmap-scale: hostfiles, logs, the built halo),
#      STENCIL_MAP (the stencil-map to plan with; default TOP/_build/cli/),
#      SMPICC (smpicc), SCALE_NO_REPORT=1 (only simulate),
#      SCALE_NICE (19: the niceness each simulation runs at),
#      SCALE_SMPI_CFG (more SimGrid settings, "NAME:VALUE ...", each given
#      as --cfg; runs.tsv keeps them in smpi_cfg: for one simulation that
#      SimGrid cannot finish with its defaults, e.g. maxmin/precision:1e-4
#      where its solver aborts),
#      SCALE_PLAN_ONLY=1 (plan and score the cases, rewriting their rows of
#      plans.tsv and levels.tsv, and simulate nothing: after a sweep that
#      was limited to some placements or networks).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
OUT=${SCALE_OUT:-$HERE/results}
WORK=${SCALE_WORK:-/var/lib/stencilmap-scale}
SM=${STENCIL_MAP:-$TOP/_build/cli/stencil-map}
SMPICC=${SMPICC:-smpicc}
NETWORKS=${SCALE_NETWORKS:-fattree fattree-tapered dragonfly}
ITERS=${SCALE_ITERS:-1}
BYTES=${SCALE_BYTES:-262144}
LIMIT=${SCALE_LIMIT:-14400}
COUNT_MAX=${SCALE_COUNT_MAX:-1024}
NICE=${SCALE_NICE:-19}
CASES_FILE=${SCALE_CASES_FILE:-$HERE/cases.txt}
CAL_FILE=${SCALE_CALIBRATION:-$HERE/calibration.txt}
ALL_ALGS="blocked auto-max auto-sum hyperplane strips kdtree nodecart bisect scotch levelled"
CONSTRUCTIONS="hyperplane strips kdtree nodecart bisect"
export STENCILMAP_SPECS_DIR=${STENCILMAP_SPECS_DIR:-$TOP/stencil-specs}

die() { echo "scale: $*" >&2; exit 1; }
for v in ITERS BYTES LIMIT COUNT_MAX; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "SCALE_$v must be a positive integer (got '${!v}')"
done
[[ $NICE =~ ^[0-9]+$ ]] && [ "$NICE" -le 19 ] || die "SCALE_NICE must be 0 to 19 (got '$NICE')"
[ -x "$SM" ] || die "$SM not found: build the tree first (or set STENCIL_MAP)"
command -v "$SMPICC" >/dev/null || die "$SMPICC not found: SimGrid's SMPI is needed (Debian: libsimgrid-dev; contrib/install-deps.sh installs it)"
command -v smpirun >/dev/null || die "smpirun not found (Debian: libsimgrid-dev)"
command -v python3 >/dev/null || die "python3 not found"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian: time)"
mkdir -p "$WORK" "$OUT" || die "cannot create $WORK or $OUT"
WORK=$(cd "$WORK" && pwd)

# ------------------------------------------------------------ setup ------
HALO=$WORK/halo_smpi
if [ ! -x "$HALO" ] || [ "$HERE/halo_smpi.c" -nt "$HALO" ]; then
    echo "scale: building $HALO with $SMPICC"
    "$SMPICC" -O2 -o "$HALO" "$HERE/halo_smpi.c" >"$WORK/build.log" 2>&1 ||
        { cat "$WORK/build.log" >&2; die "smpicc failed"; }
fi
PLAT=$OUT/platforms
python3 "$HERE/platforms.py" "$PLAT" || die "platforms.py failed"
HAVE_LEVELLED=0
NO_LEVELS=() # the plans without levels never read Slurm's topology (inside an allocation they would)
if [[ $("$SM" plan --help 2>/dev/null) == *--topology* ]]; then
    HAVE_LEVELLED=1
    NO_LEVELS=(--topology none)
fi
HAVE_SCOTCH=0
# (read whole: grep -q would stop reading early and fail the pipe)
case $("$SM" compare auto:2d:5pt --nodes 'n[1-2]' --slots 2 --json 2>/dev/null) in *'"scotch"'*) HAVE_SCOTCH=1 ;; esac

# SMPI's settings: ranks as threads sharing the program's globals (the halo
# keeps none), no computation, SimGrid's plain flow model (no MPI-specific
# bandwidth or latency factors: the platform's figures as they are), small
# stacks and shared buffers so that 16,384 ranks fit.
SMPI_OPTS=(-no-privatize --cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf
    --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
    --cfg=contexts/stack-size:256 --cfg=contexts/guard-size:0
    --cfg=smpi/shared-malloc-blocksize:8388608)
SMPI_CFG=${SCALE_SMPI_CFG:-}
for c in $SMPI_CFG; do
    [[ $c == ?*:?* ]] || die "SCALE_SMPI_CFG: '$c' is not NAME:VALUE"
    SMPI_OPTS+=("--cfg=$c")
done

# ------------------------------------------------------------ cases ------
CASES=() # "name dims stencil hosts slots algs networks"
read_cases() { # FILE NETWORKS
    local name dims stencil hosts slots algs
    while read -r name dims stencil hosts slots algs; do
        [[ -z $name || $name == \#* ]] && continue
        [[ $name =~ ${SCALE_CASES:-.} ]] || continue
        CASES+=("$name $dims $stencil $hosts $slots ${algs:-all} ${2// /,}")
    done <"$1"
}
read_cases "$CASES_FILE" "$NETWORKS"
[ "$CAL_FILE" = none ] || read_cases "$CAL_FILE" star
[ "${#CASES[@]}" -gt 0 ] || die "no case matches SCALE_CASES='${SCALE_CASES:-}'"

# What each network's topology.conf does not say (Slurm's files list
# switches, not cables nor routing): the uplinks and routing the planner's
# link model (--uplinks, --routing) is told.  The fat-trees route d-mod-k
# (static) over 32 (non-blocking) or 8 (tapered) uplinks per leaf.  The
# dragonfly's routers of a group and its groups are joined pairwise (one
# link between two routers, 2 between two groups) and routed minimally:
# direct routing, the counts per pair.  HOSTS is not read any more (the
# dragonfly's counts were once the job's group count).
links_args() { # NET HOSTS
    case $1 in
    fattree) echo "--routing static --uplinks 32" ;;
    fattree-tapered) echo "--routing static --uplinks 8" ;;
    dragonfly) echo "--routing direct --uplinks 1,2" ;;
    esac
}

offsets_of() { # STENCIL: the spec file's offsets as the halo's --stencil
    python3 - "$STENCILMAP_SPECS_DIR/$1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(";".join(",".join(str(c) for c in o) for o in d["offsets"]))
EOF
}

json_get() { # FILE KEY...: values of top-level keys, tab-separated
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("\t".join(str(d[k]) for k in sys.argv[2:]))' "$@"
}

# ------------------------------------------------------------ plans ------
# plans.tsv (one row per case, network and placement; network "*" when
# the placement does not depend on it): case network alg j_sum j_max
# runner (the placement whose identical hostfile is simulated for it, "-"
# when infeasible) chose (auto's construction; for best the construction,
# for scotch whether it kept the nodes' shares) hosts ranks slots hostfile
# hosts_md5.  runs.tsv (one row per simulation): case network runner
# hosts_md5 time_us (the slowest rank's, median over the iterations) iters
# inter_node (messages, = J_sum; "-" when not counted) l_max (linkload.py's busiest link) wall_s
# cpu_s maxrss_kb (/usr/bin/time, counts shared mappings once per mapping)
# pss_peak_kb (the simulator's proportional set size, its real memory:
# the shared buffers once; sampled every 0.2 s, after 4 s every 2 s)
# smpi_cfg (SCALE_SMPI_CFG, "-" for none)
PLANS_HEAD=$'case\tnetwork\talg\tj_sum\tj_max\trunner\tchose\thosts\tranks\tslots\thostfile\thosts_md5'
RUNS_HEAD=$'case\tnetwork\trunner\thosts_md5\ttime_us\titers\tinter_node\tl_max\twall_s\tcpu_s\tmaxrss_kb\tpss_peak_kb\tsmpi_cfg'
[ -s "$OUT/runs.tsv" ] || printf '%s\n' "$RUNS_HEAD" >"$OUT/runs.tsv"
head -1 "$OUT/runs.tsv" | cmp -s - <(printf '%s\n' "$RUNS_HEAD") ||
    die "$OUT/runs.tsv has another header: move it away or remove it"

algs_of() { # ALGS-FIELD: the placements a case runs
    local want=$1 a out=""
    [ "$want" = all ] && want=$ALL_ALGS
    for a in ${want//,/ }; do
        [ -n "${SCALE_ALGS:-}" ] && [[ " $SCALE_ALGS " != *" $a "* ]] && continue
        [ "$a" = scotch ] && [ "$HAVE_SCOTCH" = 0 ] && continue
        [ "$a" = levelled ] && [ "$HAVE_LEVELLED" = 0 ] && continue
        out+="$a "
    done
    echo "$out"
}

plan_case() { # NAME DIMS STENCIL HOSTS SLOTS ALGS NETWORKS -> $WORK/plans-NAME.tsv
    local name=$1 dims=$2 stencil=$3 hosts=$4 slots=$5 algs=$6 nets=${7//,/ }
    local dir=$WORK/hosts/$name nodes="host[0-$(($4 - 1))]" alg spec net rc chose ranks
    local tsv=$WORK/plans-$name.tsv
    rm -rf "$dir" && mkdir -p "$dir"
    : >"$tsv"
    ranks=1
    for d in ${dims//,/ }; do ranks=$((ranks * d)); done
    spec_json() { # ALG OBJECTIVE
        printf '{"grid": {"dims": [%s]}, "stencil": "%s", "algorithm": "%s"%s}\n' "$dims" "$stencil" "$1" \
            "${2:+, \"objective\": \"$2\"}"
    }
    add_plan() { # NET ALG JSON HOSTFILE
        local js jm
        read -r js jm < <(json_get "$3" j_sum j_max) || die "case $name: no J figures in $3"
        printf '%s\t%s\t%s\t%s\t%s\t-\t%s\t%s\t%s\t%s\t%s\n' "$name" "$1" "$2" "$js" "$jm" "$chose" \
            "$hosts" "$ranks" "$slots" "$4" >>"$tsv"
    }
    chose=-
    for alg in $(algs_of "$6" | tr ' ' '\n' | grep -v '^levelled$\|^best$\|^scotch$'); do
        case $alg in
        auto-max | auto-sum) spec_json auto "${alg#auto-}" >"$dir/$alg.json" ;;
        *) spec_json "$alg" >"$dir/$alg.json" ;;
        esac
        "$SM" plan "$dir/$alg.json" --nodes "$nodes" --slots "$slots" --json "${NO_LEVELS[@]}" \
            --hostfile "$dir/$alg.hosts" >"$dir/$alg.plan" 2>"$dir/$alg.err"
        rc=$?
        if [ $rc -eq 3 ]; then # infeasible (nodecart on unequal nodes)
            printf '%s\t*\t%s\t-\t-\t-\t-\t%s\t%s\t%s\t-\n' "$name" "$alg" "$hosts" "$ranks" "$slots" >>"$tsv"
            continue
        fi
        [ $rc -eq 0 ] || die "case $name: stencil-map plan $alg failed: $(cat "$dir/$alg.err")"
        chose=-
        [[ $alg == auto-* ]] && chose=$(json_get "$dir/$alg.plan" algorithm)
        add_plan '*' "$alg" "$dir/$alg.plan" "$dir/$alg.hosts"
    done
    # the best construction: the lowest J_max, then J_sum (what auto would
    # take among them unrefined); simulated under its own name
    if [[ " $(algs_of "$6") " == *" best "* ]]; then
        chose=-
        for alg in $CONSTRUCTIONS; do
            spec_json "$alg" >"$dir/$alg.json"
            "$SM" plan "$dir/$alg.json" --nodes "$nodes" --slots "$slots" --json "${NO_LEVELS[@]}" \
                --hostfile "$dir/$alg.hosts" >"$dir/$alg.plan" 2>"$dir/$alg.err" || continue
            printf '%s\t%s\n' "$(json_get "$dir/$alg.plan" j_max j_sum)" "$alg"
        done | sort -n -k1,1 -k2,2 | head -1 >"$dir/best.which"
        alg=$(cut -f3 "$dir/best.which")
        [ -n "$alg" ] || die "case $name: no construction could be planned"
        chose=$alg
        cp "$dir/$alg.hosts" "$dir/best.hosts" && cp "$dir/$alg.plan" "$dir/best.plan"
        add_plan '*' best "$dir/best.plan" "$dir/best.hosts"
    fi
    chose=-
    if [[ " $(algs_of "$6") " == *" scotch "* ]]; then
        spec_json auto >"$dir/compare.json"
        "$SM" compare "$dir/compare.json" --nodes "$nodes" --slots "$slots" --json "${NO_LEVELS[@]}" \
            --hostfiles "$dir/compare" >"$dir/compare.out" 2>"$dir/compare.err" ||
            die "case $name: stencil-map compare failed: $(cat "$dir/compare.err")"
        python3 - "$dir/compare.out" >"$dir/scotch.plan" <<'EOF' || die "case $name: no scotch row in compare"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["algorithms"] if r["algorithm"] == "scotch"]
json.dump(rows[0], sys.stdout)
EOF
        cp "$dir/compare/scotch.hosts" "$dir/scotch.hosts"
        chose=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("exact" if r["exact_capacities"] else "overfull:%d" % r["overfull_nodes"])' "$dir/scotch.plan")
        add_plan '*' scotch "$dir/scotch.plan" "$dir/scotch.hosts"
    fi
    if [[ " $(algs_of "$6") " == *" levelled "* ]]; then
        for net in $nets; do
            [ -e "$PLAT/$net.topology.conf" ] || continue
            spec_json auto >"$dir/levelled.json"
            "$SM" plan "$dir/levelled.json" --nodes "$nodes" --slots "$slots" --json \
                --topology "$PLAT/$net.topology.conf" $(links_args "$net" "$hosts") \
                --hostfile "$dir/levelled-$net.hosts" \
                >"$dir/levelled-$net.plan" 2>"$dir/levelled-$net.err" ||
                die "case $name: stencil-map plan --topology ($net) failed: $(cat "$dir/levelled-$net.err")"
            chose=$(json_get "$dir/levelled-$net.plan" algorithm)
            add_plan "$net" levelled "$dir/levelled-$net.plan" "$dir/levelled-$net.hosts"
        done
    fi
    # one simulation per distinct hostfile: the runner is the first
    # placement (in this order) with the same file
    python3 - "$tsv" <<'EOF' || die "case $name: runner assignment failed"
import hashlib, sys
path = sys.argv[1]
rows = [l.rstrip("\n").split("\t") + ["-"] for l in open(path)]
body = {}
for i, r in enumerate(rows):
    if r[10] == "-":
        continue
    body[i] = open(r[10], "rb").read()
    r[5] = r[2]
    for j in range(i):  # an earlier row of any network, or of this one
        if j in body and rows[j][1] in ("*", r[1]) and body[j] == body[i]:
            r[5] = rows[j][5]
            break
    r[11] = hashlib.md5(body[i]).hexdigest()
with open(path, "w") as f:
    for r in rows:
        f.write("\t".join(r) + "\n")
EOF
}

# levels.tsv: every placement scored on each network's switch levels (what
# the levelled plan minimises): case network alg level groups j_sum j_max
score_levels() { # NAME DIMS STENCIL NETWORKS HOSTS -> $WORK/levels-NAME.tsv, links-NAME.tsv
    local name=$1 net alg hf spec=$WORK/hosts/$1/score.json
    : >"$WORK/levels-$name.tsv"
    : >"$WORK/links-$name.tsv"
    [ "$HAVE_LEVELLED" = 1 ] || return 0
    printf '{"grid": {"dims": [%s]}, "stencil": "%s"}\n' "$2" "$3" >"$spec"
    for net in ${4//,/ }; do
        [ -e "$PLAT/$net.topology.conf" ] || continue
        while IFS=$'\t' read -r alg hf; do
            "$SM" score "$spec" --hostfile "$hf" --topology "$PLAT/$net.topology.conf" --json \
                $(links_args "$net" "$5") \
                >"$spec.out" 2>"$spec.err" || die "case $name: stencil-map score --topology ($net, $alg) failed: $(cat "$spec.err")"
            # the planner's estimate of the busiest link (estimate.py)
            python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["links"]; print("\t".join(sys.argv[2:5] + [str(l["l_max"]), str(l["bound"])]))' \
                "$spec.out" "$name" "$net" "$alg" >>"$WORK/links-$name.tsv" ||
                die "case $name: no links in stencil-map score's answer"
            python3 - "$spec.out" "$name" "$net" "$alg" >>"$WORK/levels-$name.tsv" <<'EOF' ||
import json, sys
for l in json.load(open(sys.argv[1])).get("levels", []):
    print("\t".join(sys.argv[2:5] + [str(l[k]) for k in ("level", "groups", "j_sum", "j_max")]))
EOF
                die "case $name: no levels in stencil-map score's answer"
        done < <(awk -F'\t' -v n="$net" '($2 == "*" || $2 == n) && $11 != "-" { print $3 "\t" $11 }' \
            "$WORK/plans-$name.tsv")
    done
}

echo "scale: planning ${#CASES[@]} cases (levelled: $([ $HAVE_LEVELLED = 1 ] && echo yes || echo "no: stencil-map plan has no --topology"), scotch: $([ $HAVE_SCOTCH = 1 ] && echo yes || echo no))"
for c in "${CASES[@]}"; do
    plan_case $c
    read -r name dims stencil hosts _ _ nets <<<"$c"
    score_levels "$name" "$dims" "$stencil" "$nets" "$hosts"
done
# plans.tsv: the planned cases' rows replace their earlier ones; with
# SCALE_ALGS only those placements' rows, with SCALE_NETWORKS only the
# rows of those networks and "*" (the case's others stay)
KEEP_ARGS=(-v planned="$(for c in "${CASES[@]}"; do echo "${c%% *}"; done | tr '\n' ' ')" -v algs="${SCALE_ALGS:-}"
           -v nets="$NETWORKS")
KEEP_PROG='BEGIN { n = split(planned, p, " "); for (i = 1; i <= n; i++) skip[p[i]] = 1
                   m = split(nets, w, " "); for (i = 1; i <= m; i++) net[w[i]] = 1
                   n = split(algs, a, " "); for (i = 1; i <= n; i++) only[a[i]] = 1 }
           !($1 in skip) || (n > 0 && !($3 in only)) || ($2 != "*" && !($2 in net))'
{
    printf '%s\n' "$PLANS_HEAD"
    if [ -s "$OUT/plans.tsv" ]; then
        tail -n +2 "$OUT/plans.tsv" | awk -F'\t' "${KEEP_ARGS[@]}" "$KEEP_PROG"
    fi
    for c in "${CASES[@]}"; do cat "$WORK/plans-${c%% *}.tsv"; done
} >"$WORK/plans.tsv.new" && mv "$WORK/plans.tsv.new" "$OUT/plans.tsv"
{
    printf 'case\tnetwork\talg\tlevel\tgroups\tj_sum\tj_max\n'
    if [ -s "$OUT/levels.tsv" ]; then
        tail -n +2 "$OUT/levels.tsv" | awk -F'\t' "${KEEP_ARGS[@]}" "$KEEP_PROG"
    fi
    for c in "${CASES[@]}"; do cat "$WORK/levels-${c%% *}.tsv"; done
} >"$WORK/levels.tsv.new" && mv "$WORK/levels.tsv.new" "$OUT/levels.tsv"
{
    printf 'case\tnetwork\talg\tl_max\tbound\n'
    if [ -s "$OUT/links.tsv" ]; then
        tail -n +2 "$OUT/links.tsv" | awk -F'\t' "${KEEP_ARGS[@]}" "$KEEP_PROG"
    fi
    for c in "${CASES[@]}"; do cat "$WORK/links-${c%% *}.tsv"; done
} >"$WORK/links.tsv.new" && mv "$WORK/links.tsv.new" "$OUT/links.tsv"

# ------------------------------------------------------------ runs -------
FAILED=0
sim_of() { # PID: the smpimain process among PID's descendants
    local c
    for c in $(pgrep -P "$1"); do
        if [ "$(cat "/proc/$c/comm" 2>/dev/null)" = smpimain ]; then
            echo "$c"
            return
        fi
        sim_of "$c"
    done
}

peak_pss() { # PID: the largest PSS (kB) of its smpimain while PID runs
    local pid=$1 peak=0 sim="" a n=0 t0 us wait
    while kill -0 "$pid" 2>/dev/null; do
        [ -n "$sim" ] && [ -e "/proc/$sim" ] || sim=$(sim_of "$pid" | head -1)
        us=0
        if [ -n "$sim" ]; then
            # the kernel walks every mapping for smaps_rollup: at 16k ranks
            # the shared buffers are mapped so often that one read costs
            # seconds of CPU, taken from the simulations at nice 0
            t0=${EPOCHREALTIME/./}
            a=$(nice -n "$NICE" awk '/^Pss:/ { print $2 }' "/proc/$sim/smaps_rollup" 2>/dev/null)
            us=$((${EPOCHREALTIME/./} - t0))
            [ -n "$a" ] && [ "$a" -gt "$peak" ] && peak=$a
        fi
        # often at first (small runs last a second), then every 2 s, but
        # never more than 5 % of a core: 20 times as long as a read took
        n=$((n + 1))
        wait=$([ "$n" -lt 20 ] && echo 200000 || echo 2000000)
        [ $((us * 20)) -gt "$wait" ] && wait=$((us * 20))
        sleep "$((wait / 1000000)).$(printf '%06d' $((wait % 1000000)))"
    done
    echo "$peak"
}

simulate() { # NAME DIMS STENCIL NET RUNNER HOSTFILE JSUM RANKS
    local name=$1 dims=$2 stencil=$3 net=$4 runner=$5 hf=$6 jsum=$7 ranks=$8
    local md5 log=$WORK/logs/$1-$4-$5.log line t0=$SECONDS tpid anon wall user sys rss remote lmax count mapped
    md5=$(md5sum <"$hf" | cut -c1-32)
    if awk -F'\t' -v c="$name" -v n="$net" -v r="$runner" -v m="$md5" \
        '$1 == c && $2 == n && $3 == r && $4 == m { f = 1 } END { exit !f }' "$OUT/runs.tsv"; then
        return 0 # done in an earlier run
    fi
    mkdir -p "$WORK/logs"
    lmax=$(python3 "$HERE/linkload.py" "$PLAT/$net.xml" "$hf" --dims "$dims" --stencil "$stencil" |
        sed -n 's/^L_max //p')
    [ -n "$lmax" ] || { echo "scale: linkload.py failed on $hf ($net)" >&2; FAILED=$((FAILED + 1)); return 1; }
    count=$([ "$ranks" -le "$COUNT_MAX" ] && echo 1 || echo 0)
    echo "+ smpirun -map -platform $PLAT/$net.xml -hostfile $hf -np $ranks ${SMPI_OPTS[*]} $HALO --dims $dims --stencil '$(offsets_of "$stencil")' -s $BYTES -i $ITERS --count $count" >"$log"
    /usr/bin/time -o "$log.time" -f '%e %U %S %M' timeout "$LIMIT" nice -n "$NICE" \
        smpirun -map -platform "$PLAT/$net.xml" -hostfile "$hf" -np "$ranks" "${SMPI_OPTS[@]}" \
        "$HALO" --dims "$dims" --stencil "$(offsets_of "$stencil")" -s "$BYTES" -i "$ITERS" --count "$count" \
        >>"$log" 2>&1 &
    tpid=$!
    anon=$(peak_pss "$tpid")
    wait "$tpid"
    local rc=$?
    read -r wall user sys rss < <(tail -1 "$log.time")
    line=$(grep 'time per iteration median' "$log")
    remote=$(sed -n 's/.* \([0-9]*\) inter-node messages per iteration$/\1/p' "$log")
    [ "$count" = 1 ] || remote=-
    # SMPI's map: "[rank R] -> HOST" per rank, in the hostfile's order
    mapped=$(sed -n 's/^\[[0-9.]*\] \[smpi\/INFO\] \[rank \([0-9]*\)\] -> \(.*\)$/\1 \2/p' "$log" |
        sort -n | cut -d' ' -f2 | cmp -s - "$hf" && echo same || echo differs)
    if [ $rc -ne 0 ] || [[ ! $line =~ median\ ([0-9.]+)\ us ]] || [ "$mapped" != same ] ||
        { [ "$count" = 1 ] && [ "$remote" != "$jsum" ]; }; then
        echo "scale: FAILED $name on $net, $runner (exit $rc, SMPI's map $mapped from the hostfile," \
            "inter-node messages '$remote', planned $jsum), log $log:" >&2
        grep -v '^\[0.000000\] \[\(xbt_cfg\|smpi\)/INFO\]' "$log" | tail -8 | sed 's/^/    | /' >&2
        FAILED=$((FAILED + 1))
        return 1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$net" "$runner" "$md5" "${BASH_REMATCH[1]}" \
        "$ITERS" "$remote" "$lmax" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rss" "$anon" \
        "${SMPI_CFG:--}" \
        >>"$OUT/runs.tsv"
    printf '  %-20s %-16s %-10s %10.1f us  (%ds, %d MiB PSS)\n' "$name" "$net" "$runner" \
        "${BASH_REMATCH[1]}" "$((SECONDS - t0))" "$((anon / 1024))"
}

trap 'echo "scale: interrupted (results so far are in $OUT/runs.tsv)" >&2; exit 130' INT TERM HUP
[ "${SCALE_PLAN_ONLY:-0}" = 1 ] && CASES=() && echo "scale: SCALE_PLAN_ONLY=1: nothing simulated"
for c in "${CASES[@]}"; do
    read -r name dims stencil hosts slots algs nets <<<"$c"
    for net in ${nets//,/ }; do
        # the distinct placements of this case on this network
        while IFS=$'\t' read -r runner hf js ranks; do
            simulate "$name" "$dims" "$stencil" "$net" "$runner" "$hf" "$js" "$ranks"
        done < <(awk -F'\t' -v n="$net" '($2 == "*" || $2 == n) && $6 == $3 { print $3 "\t" $11 "\t" $4 "\t" $9 }' \
            "$WORK/plans-$name.tsv")
    done
done

# ------------------------------------------------------------ report -----
if [ "${SCALE_NO_REPORT:-0}" != 1 ]; then
    python3 "$HERE/report.py" --plans "$OUT/plans.tsv" --runs "$OUT/runs.tsv" --levels "$OUT/levels.tsv" \
        --payoff "$TOP/contrib/bench/payoff/results" --out "$OUT" ||
        die "report failed"
fi
[ "$FAILED" -eq 0 ] || die "$FAILED simulations failed"
if [ "${SCALE_NO_REPORT:-0}" != 1 ]; then
    echo "scale: done; table $OUT/scale.txt, chart $OUT/scale.svg, raw data $OUT/runs.tsv"
else
    echo "scale: done (SCALE_NO_REPORT=1: no table); raw data $OUT/runs.tsv"
fi
