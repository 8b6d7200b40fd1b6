#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil-map audit without a cluster: audit records written by the
# stencil_map.so plugin on the minicluster (tests/cli/audit-records/: 11-13
# from before records said whether the step launched, with one in-job
# result of stencil-map-verify and one fallback; 14-18 with launched, error
# and timings: 14 a plan that failed under on_error=fail, 15 a placed step
# and 18 a fallback that srun abandoned before the step existed (no step
# id), 16 placed, 17 a fallback), copies of them
# edited by hand, the record directory's discovery, --summary, --launched,
# and what Slurm says through stand-in sacct/scontrol commands; a step
# planned on leaf switches (audit-records-levels/).  The real
# cluster's side is tests/audit/run.sh.  Plain exit status for automake's
# harness: 0 when every check passed, 1 otherwise; one line per check.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
FIX=${srcdir:-.}/cli/audit-records
[ -f "$FIX/root/11.1.json" ] || { echo "fixtures not found in $FIX"; exit 99; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: cannot read JSON"; exit 99; }

work=$(mktemp -d "${PWD}/audit-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
. "${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib/checks.sh"

# run EXPECTED_RC NAME ARGS...: stencil-map audit, output in $work/NAME.out/.err
run() {
    want=$1 name=$2
    shift 2
    "$SM" audit "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    if [ "$rc" -eq "$want" ]; then
        pass "$name: exit $rc"
    else
        fail "$name: exit $rc, wanted $want: $(head -c 400 "$work/$name.err") $(head -c 400 "$work/$name.out")"
    fi
}

# has NAME TEXT: the output (stdout and stderr) of run NAME holds TEXT
has() {
    if cat "$work/$1.out" "$work/$1.err" | grep -F -q -- "$2"; then
        pass "$1: says '$2'"
    else
        fail "$1: does not say '$2': $(head -c 600 "$work/$1.out") $(head -c 300 "$work/$1.err")"
    fi
}

# py NAME EXPR: a Python condition on the JSON output d of run NAME
py() {
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
        "$work/$1.out" "$2" 2>"$work/py.err"; then
        pass "$1: $2"
    else
        fail "$1: $2 ($(cat "$work/py.err" | tail -1))"
    fi
}

# a writable copy of the fixtures: $work/NAME/root/...
copy() {
    rm -rf "$work/$1"
    mkdir -p "$work/$1"
    cp -r "$FIX/root" "$work/$1/"
    chmod -R u+w "$work/$1"
}

# edit FILE PYTHON: change a JSON file in place (d is the object)
edit() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[1], "w"), indent=2)' "$1" "$2"
}

# ---- a placed step, a verified step, a fallback ------------------------
run 0 verified 11.1 --record-dir "$FIX" --no-slurm --json
py verified 'd["steps"][0]["status"] == "ok"'
py verified 'd["steps"][0]["planned"] == {"j_sum": 24, "j_max": 8}'
py verified 'd["steps"][0]["blocked"] == {"j_sum": 48, "j_max": 16}'
py verified 'd["steps"][0]["rescored"]["j_sum"] == 24 and d["steps"][0]["rescored"]["blocked"]["j_sum"] == 48'
py verified 'd["steps"][0]["verify"]["status"] == "OK" and d["steps"][0]["verify"]["observed"] == {"j_sum": 24, "j_max": 8}'
py verified 'd["steps"][0]["launch"]["result"] == "matches"'
py verified 'any(c["level"] == "per rank" and c["result"] == "matches" for c in d["steps"][0]["launch"]["checks"])'
py verified '"Slurm not asked (--no-slurm)" in d["steps"][0]["launch"]["not_checked"]'

run 0 verified-text 11.1 --record-dir "$FIX" --no-slurm
has verified-text "step 11.1: placed, consistent"
has verified-text "planned     J_sum 24, J_max 8"
has verified-text "in-job      OK: observed J_sum 24, J_max 8 (as in the record)"
has verified-text "matches per rank, from in-job result (PMIx): all 32 ranks ran on their planned node"

run 0 placed 11.0 --record-dir "$FIX" --no-slurm --json
py placed 'd["steps"][0]["verify"] is None'
py placed 'd["steps"][0]["launch"]["result"] == "not checked"'
py placed 'any("where each rank ran" in s for s in d["steps"][0]["launch"]["not_checked"])'

run 0 whole-job 11 --record-dir "$FIX" --no-slurm --json
py whole-job '[s["step_id"] for s in d["steps"]] == [0, 1]'

run 0 fallback 13.0 --record-dir "$FIX" --no-slurm --json
py fallback 'd["steps"][0]["status"] == "fallback" and "invalid JSON" in d["steps"][0]["fallback"]'
run 0 fallback-text 13.0 --record-dir "$FIX" --no-slurm
has fallback-text "NOT PLACED: fell back to Slurm's block distribution"

# ---- where each rank ran: --launched -----------------------------------
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["placement"]; print("\n".join("%d: %s" % (r, n) for r, n in reversed(list(enumerate(p)))))' \
    "$FIX/root/11.0.json" >"$work/launched.txt"
run 0 launched 11.0 --record-dir "$FIX" --no-slurm --json --launched "$work/launched.txt"
py launched 'd["steps"][0]["launch"]["result"] == "matches"'
sed -e 's/^5: .*/5: node4/' -e 's/^30: .*/30: node1/' "$work/launched.txt" >"$work/launched-bad.txt"
run 1 launched-differs 11.0 --record-dir "$FIX" --no-slurm --launched "$work/launched-bad.txt"
has launched-differs "2 of 32 ranks ran elsewhere than planned (first: rank 5 on node4"
head -5 "$work/launched.txt" >"$work/launched-short.txt"
run 4 launched-gap 11.0 --record-dir "$FIX" --no-slurm --launched "$work/launched-short.txt"
has launched-gap "no line for rank 0"

# ---- not placed, missing, usage ---------------------------------------
run 3 not-placed 11.2 --record-dir "$FIX" --no-slurm
has not-placed "step 11.2: NOT PLACED: no audit record"
has not-placed "--stencil-map=none"
run 3 no-job 99 --record-dir "$FIX" --no-slurm
has no-job "no record of any step of job 99"
run 3 missing-record --record "$work/nope.json"
has missing-record "nope.json: No such file or directory"
run 2 no-args
run 2 bad-jobid 11.x --record-dir "$FIX"
has bad-jobid "not a JOBID[.STEP]: 11.x"
run 2 svg-summary --summary --svg "$work/x.svg" --record-dir "$FIX"
run 2 svg-whole-job 11 --svg "$work/x.svg" --record-dir "$FIX"
run 2 record-and-dir --record "$FIX/root/11.0.json" --record-dir "$FIX"
run 2 bad-since --since 2026-13-01 --record-dir "$FIX"
has bad-since "--since: not a date"
run 2 bad-user --user ../etc --record-dir "$FIX"
run 3 no-dir 11.0 --record-dir "$work/no-such-dir" --no-slurm
has no-dir "no-such-dir"

# ---- lists: --since, --user --------------------------------------------
run 5 since-past --since 2020-01-01 --record-dir "$FIX" --no-slurm --json
py since-past 'len(d["steps"]) == 9'
py since-past '[s["status"] for s in d["steps"]] == ["ok", "ok", "ok", "fallback", "failed", "not launched", "ok", "fallback", "not launched"]'
run 3 since-future --since 2099-01-01T00:00 --record-dir "$FIX" --no-slurm
has since-future "no records in"
run 0 since-after-failure --since 2026-11-23T09:43:20 --record-dir "$FIX" --no-slurm --json
py since-after-failure '[(s["job_id"], s["status"]) for s in d["steps"]] == [(17, "fallback"), (18, "not launched")]'
run 5 since-between --since 2026-11-23T08:52:00 --record-dir "$FIX" --no-slurm --json
py since-between '[(s["job_id"], s["step_id"]) for s in d["steps"]] == [(12, 0), (13, 0), (14, None), (15, None), (16, 0), (17, 0), (18, None)]'
run 5 user-root --user root --record-dir "$FIX" --no-slurm --json
py user-root 'len(d["steps"]) == 9'
run 3 user-other --user alice --record-dir "$FIX" --no-slurm

# ---- summary ------------------------------------------------------------
# every record counts once: 11.0, 11.1, 12.0, 16.0 placed; 13.0, 17.0 fell
# back; 14 failed; 15 (placed) and 18 (fallback) never launched, so neither
# placed, nor a fallback, nor edges saved.  A failed step is history, not a
# bad record: exit 0.
run 0 summary --summary --record-dir "$FIX" --json
py summary 'd["steps"] == 9 and d["jobs"] == 8 and d["placed"] == 4 and d["fallbacks"] == 2'
py summary 'd["failed"] == 1 and d["not_launched"] == 2'
py summary '[f["record"].split("/")[-1] for f in d["failures"]] == ["14.nostep-18867.json"]'
py summary '"64 ranks but only 32 slots" in d["failures"][0]["error"]'
py summary '[f["record"].split("/")[-1] for f in d["not_launched_reasons"]] == ["15.nostep-18893.json", "18.nostep-20270.json"]'
py summary '[f["record"].split("/")[-1] for f in d["fallback_reasons"]] == ["13.0.json", "17.0.json"]'
py summary 'd["by_algorithm"] == {"hyperplane": 4}'
py summary 'd["inter_node_edges"] == {"placed": 24 + 24 + 8 + 24, "blocked": 48 + 48 + 8 + 48, "saved": 72}'
py summary 'd["in_job"] == {"agree": 1, "disagree": 0, "failed": 0, "none": 3}'
run 0 summary-text --summary --record-dir "$FIX"
has summary-text "placed:      4 steps (hyperplane 4)"
has summary-text "inter-node edges: 80 placed vs 152 blocked: 72 saved (47.4%)"
has summary-text "fallbacks to blocked: 2"
has summary-text "failed before launch: 1 (the plugin stopped the step)"
has summary-text "14.nostep-18867.json: infeasible: 64 ranks but only 32 slots on 4 nodes"
has summary-text "not launched: 2 (srun exited before the step was created)"
has summary-text "opt-outs (--stencil-map=none, no spec): not counted"
has summary-text "bad records: 0 unreadable, 0 inconsistent"
run 0 summary-since --summary --since 2026-11-23T08:52 --record-dir "$FIX" --json
py summary-since 'd["steps"] == 7 and d["placed"] == 2 and d["failed"] == 1 and d["not_launched"] == 2'

# ---- records edited by hand: inconsistent, naming what -------------------
copy ed
edit "$work/ed/root/11.0.json" 'd["j_sum"] = 20'
run 1 edit-jsum 11.0 --record-dir "$work/ed" --no-slurm
has edit-jsum "INCONSISTENT"
has edit-jsum "j_sum is 20 in the record, 24 from its placement"
# an "origin" (a record the reorder library wrote inside the application):
# read by FILE alone, and its figures held against the placement's
copy origin
edit "$work/origin/root/11.0.json" 'd["origin"] = {"source": "libstencilmap-reorder", "call": "MPI_Cart_create", "order": "reordered", "why": None, "planned": {"j_sum": d["j_sum"], "j_max": d["j_max"]}, "mpi_order": {"j_sum": 56, "j_max": 16}}'
run 0 origin-ok "$work/origin/root/11.0.json" --no-slurm
has origin-ok "origin      libstencilmap-reorder, MPI_Cart_create: reordered; planned J_sum 24, J_max"
edit "$work/origin/root/11.0.json" 'd["origin"]["order"] = "kept"'
run 1 origin-kept "$work/origin/root/11.0.json" --no-slurm
has origin-kept "origin says the order was kept with J_sum 56, J_max 16; the record's placement has 24,"
run 1 edit-jsum-json 11.0 --record-dir "$work/ed" --no-slurm --json
grep -q "^stencil-map audit: step 11.0: inconsistent: j_sum is 20 in the record" "$work/edit-jsum-json.err" &&
    pass "edit-jsum-json: the reason on stderr too" || fail "edit-jsum-json: stderr: $(cat "$work/edit-jsum-json.err")"
copy ed
edit "$work/ed/root/11.0.json" 'd["blocked_j_max"] = 3'
run 1 edit-blocked 11.0 --record-dir "$work/ed" --no-slurm
has edit-blocked "blocked_j_max is 3 in the record, 16 re-planned"
copy ed
edit "$work/ed/root/11.0.json" 'd["slots"][0] = 7'
run 1 edit-slots 11.0 --record-dir "$work/ed" --no-slurm
has edit-slots "placement puts 8 ranks on node1, which has 7 slots"
copy ed
edit "$work/ed/root/11.0.json" 'd["ranks"] = 31'
run 1 edit-ranks 11.0 --record-dir "$work/ed" --no-slurm
has edit-ranks "ranks is 31, but the grid holds 32"
copy ed
edit "$work/ed/root/11.0.json" 'd["placement"] = d["placement"][:-1]'
run 1 edit-short-placement 11.0 --record-dir "$work/ed" --no-slurm
has edit-short-placement "placement has 31 entries, ranks is 32"
copy ed
edit "$work/ed/root/11.0.json" 'd["step_id"] = 4'
run 1 edit-ids --record "$work/ed/root/11.0.json" --no-slurm
has edit-ids "the file name says step 11.0, the record 11.4"
copy ed
mkdir "$work/ed/alice"
mv "$work/ed/root/11.0.json" "$work/ed/alice/"
run 1 edit-user-dir 11.0 --record-dir "$work/ed" --no-slurm
has edit-user-dir "the record of user 'root' lies in the directory of 'alice'"
copy ed
edit "$work/ed/root/11.1.verify.json" 'd["status"] = "MISMATCH"; d["observed"]["j_sum"] = 32'
run 1 edit-verify 11.1 --record-dir "$work/ed" --no-slurm
has edit-verify "the job observed J_sum 32, J_max 8; the record planned 24, 8"
copy ed
edit "$work/ed/root/11.1.verify.json" 'd["rank_nodes"][3] = "node4"'
run 1 edit-verify-nodes 11.1 --record-dir "$work/ed" --no-slurm
has edit-verify-nodes "1 of 32 ranks ran elsewhere than planned (first: rank 3 on node4, planned node2)"
copy ed
edit "$work/ed/root/11.1.verify.json" 'd["job_id"] = 12'
run 1 edit-verify-ids 11.1 --record-dir "$work/ed" --no-slurm
has edit-verify-ids "the in-job result is of step 12.1, the record of 11.1"
copy ed
edit "$work/ed/root/11.1.verify.json" 'd["status"] = "ERROR"; d["message"] = "rank 3: PMIx_Get failed"; d["observed"] = None'
run 0 verify-error 11.1 --record-dir "$work/ed" --no-slurm
has verify-error "in-job result: the verification failed: rank 3: PMIx_Get failed"

# ---- steps that never launched, records without a step id ---------------
run 5 failed 14 --record-dir "$FIX" --no-slurm --json
py failed 'len(d["steps"]) == 1 and d["steps"][0]["record"].endswith("/root/14.nostep-18867.json")'
py failed 'd["steps"][0]["status"] == "failed" and d["steps"][0]["step_id"] is None'
py failed 'd["steps"][0]["launched"] is False and d["steps"][0]["placed"] is False and d["steps"][0]["fallback"] is None'
py failed 'd["steps"][0]["algorithm"]["used"] is None'
py failed 'd["steps"][0]["error"] == "infeasible: 64 ranks but only 32 slots on 4 nodes"'
py failed 'd["steps"][0]["launch"]["result"] == "not launched" and "planned" not in d["steps"][0]'
py failed 'd["exit"] == 5'
has failed "stencil-map audit: job 14, no step id ("
has failed "failed: not launched: the plugin stopped the step: infeasible: 64 ranks"
run 5 failed-text 14 --record-dir "$FIX" --no-slurm
has failed-text "job 14, no step id: FAILED: not launched, the plugin stopped the step"
has failed-text "algorithm   none used"
has failed-text "placement   none: the plan failed"
has failed-text "launched    no: infeasible: 64 ranks but only 32 slots on 4 nodes"
has failed-text "plugin      1.3 ms in srun, 0.9 ms CPU, allocation check 1.1 ms"
run 5 failed-record --record "$FIX/root/14.nostep-18867.json" --no-slurm
run 3 failed-no-step-0 14.0 --record-dir "$FIX" --no-slurm
has failed-no-step-0 "step 14.0: NOT PLACED: no audit record"

# srun exited before the step existed, after a plan: not the placement's
# failure, exit 0; the plan itself is still checked
run 0 abandoned 15 --record-dir "$FIX" --no-slurm --json
py abandoned 'd["steps"][0]["status"] == "not launched" and d["steps"][0]["step_id"] is None'
py abandoned 'd["steps"][0]["placed"] is True and d["steps"][0]["rescored"]["j_sum"] == 24'
py abandoned 'd["steps"][0]["planned"] == {"j_sum": 24, "j_max": 8}'
py abandoned '"srun exited before launching" in d["steps"][0]["error"]'
run 0 abandoned-text 15 --record-dir "$FIX" --no-slurm
has abandoned-text "job 15, no step id: NOT LAUNCHED: srun exited before the step was created"
has abandoned-text "launched    no: srun exited before launching the step (see srun's error)"
run 0 abandoned-fallback 18 --record-dir "$FIX" --no-slurm --json
py abandoned-fallback 'd["steps"][0]["status"] == "not launched" and "64 ranks" in d["steps"][0]["fallback"]'
run 0 abandoned-svg --record "$FIX/root/15.nostep-18893.json" --no-slurm --svg "$work/abandoned.svg"
grep -q "planned, never launched: hyperplane" "$work/abandoned.svg" &&
    pass "abandoned-svg: labelled as never launched" || fail "abandoned-svg: label"
run 5 failed-svg --record "$FIX/root/14.nostep-18867.json" --no-slurm --svg "$work/failed.svg"
has failed-svg "the record holds no placement to draw"

# the current record format of launched steps: timings, launched
run 0 placed-new 16.0 --record-dir "$FIX" --no-slurm --json
py placed-new 'd["steps"][0]["status"] == "ok" and d["steps"][0]["launched"] is True and d["steps"][0]["error"] is None'
py placed-new 'abs(d["steps"][0]["timing"]["plugin_ms"] - 6.6957) < 1e-3 and abs(d["steps"][0]["timing"]["alloc_check_ms"] - 6.1235) < 1e-3'
run 0 fallback-new 17.0 --record-dir "$FIX" --no-slurm --json
py fallback-new 'd["steps"][0]["status"] == "fallback" and d["steps"][0]["launched"] is True'
# records from before "launched" existed were all of launched steps
run 0 old-format 11.0 --record-dir "$FIX" --no-slurm --json
py old-format 'd["steps"][0]["launched"] is True and "timing" not in d["steps"][0]'

# the plugin refused a launch that got a step id (the task count differs
# from the plan): failed, exit 5
copy ed
edit "$work/ed/root/16.0.json" 'd["launched"] = False; d["error"] = "the step has 30 tasks but the plan has 32 ranks"'
run 5 refused 16.0 --record-dir "$work/ed" --no-slurm
has refused "step 16.0: FAILED: not launched, the plugin stopped the step"
has refused "the step has 30 tasks but the plan has 32 ranks"
# an in-job result of a step that never launched
cp "$FIX/root/11.1.verify.json" "$work/ed/root/16.0.verify.json"
edit "$work/ed/root/16.0.verify.json" 'd["job_id"] = 16; d["step_id"] = 0'
run 1 refused-verified 16.0 --record-dir "$work/ed" --no-slurm
has refused-verified "an in-job result exists, but the record says the step was never launched"
copy ed
edit "$work/ed/root/14.nostep-18867.json" 'd["error"] = None'
run 1 unlaunched-no-error 14 --record-dir "$work/ed" --no-slurm
has unlaunched-no-error "launched is false, but error is null: the record does not say why"
copy ed
edit "$work/ed/root/14.nostep-18867.json" 'd["launched"] = True'
run 1 launched-nothing 14 --record-dir "$work/ed" --no-slurm
has launched-nothing "launched is true, but nothing was placed (algorithm_used null) and it did not fall back"
has launched-nothing "launched is true, but step_id is null"
copy ed
edit "$work/ed/root/14.nostep-18867.json" 'd["step_id"] = 2'
run 1 nostep-name-with-id 14 --record-dir "$work/ed" --no-slurm
has nostep-name-with-id "the file name says job 14 without a step id, the record 14.2"
copy ed
edit "$work/ed/root/16.0.json" 'd["step_id"] = None'
run 1 step-name-without-id 16.0 --record-dir "$work/ed" --no-slurm
has step-name-without-id "the file name says step 16.0, the record job 16 without a step id"
copy ed
edit "$work/ed/root/17.0.json" 'd["algorithm_used"] = "hyperplane"'
run 1 fallback-not-blocked 17.0 --record-dir "$work/ed" --no-slurm
has fallback-not-blocked "the record fell back to blocked, but algorithm_used is 'hyperplane'"
copy ed
edit "$work/ed/root/16.0.json" 'd["launched"] = "no"'
run 4 bad-launched 16.0 --record-dir "$work/ed" --no-slurm
has bad-launched "launched: must be true or false"
copy ed
edit "$work/ed/root/16.0.json" 'd["plugin_ms"] = -3'
run 4 bad-plugin-ms 16.0 --record-dir "$work/ed" --no-slurm
has bad-plugin-ms "plugin_ms: must be a non-negative number of milliseconds or null"
copy ed
edit "$work/ed/root/14.nostep-18867.json" 'd["error"] = 7'
run 4 bad-error 14 --record-dir "$work/ed" --no-slurm
has bad-error "error: must be a string or null"
# names that only look like records are not read
copy ed
cp "$work/ed/root/14.nostep-18867.json" "$work/ed/root/14.nostep-.json"
cp "$work/ed/root/14.nostep-18867.json" "$work/ed/root/14.nosteps.json"
run 5 nostep-names 14 --record-dir "$work/ed" --no-slurm --json
py nostep-names 'len(d["steps"]) == 1'

# ---- unreadable: named field, exit 4 ------------------------------------
copy ed
edit "$work/ed/root/11.0.json" 'd["grid"]["dims"][1] = "8"'
run 4 bad-type 11.0 --record-dir "$work/ed" --no-slurm
has bad-type "grid.dims[1]: must be a positive integer"
copy ed
edit "$work/ed/root/11.0.json" 'del d["j_max"]'
run 4 bad-missing 11.0 --record-dir "$work/ed" --no-slurm
has bad-missing "j_max: missing"
copy ed
edit "$work/ed/root/11.0.json" 'd["nodes"][2] = "node1"'
run 4 bad-duplicate-node 11.0 --record-dir "$work/ed" --no-slurm
has bad-duplicate-node "nodes[2]: 'node1' listed twice"
copy ed
edit "$work/ed/root/11.0.json" 'd["grid"]["order"] = "fortran"'
run 4 bad-order 11.0 --record-dir "$work/ed" --no-slurm
has bad-order "grid.order: unknown 'fortran'"
# the 4x8 step recorded as the column-major 8x4 grid (axes and offsets
# reversed) numbers the same ranks alike: consistent; as a row-major 8x4
# grid it is another grid, whose figures the record's do not match
copy ed
edit "$work/ed/root/11.0.json" 'g = d["grid"]; g["dims"].reverse(); g["periods"].reverse(); g["order"] = "column-major"; [o.reverse() for o in d["stencil"]["offsets"]]'
run 0 column-major 11.0 --record-dir "$work/ed" --no-slurm
has column-major "8x4 column-major, 32 ranks"
copy ed
edit "$work/ed/root/11.0.json" 'g = d["grid"]; g["dims"].reverse(); g["periods"].reverse(); [o.reverse() for o in d["stencil"]["offsets"]]'
run 1 column-major-as-row 11.0 --record-dir "$work/ed" --no-slurm
# a weighted stencil: the weighted figures, which auto minimised, are shown
copy ed
edit "$work/ed/root/11.0.json" 'd["stencil"]["weights"] = [2, 2, 1, 1]'
run 0 weighted 11.0 --record-dir "$work/ed" --no-slurm
has weighted "weighted"
run 0 weighted-json 11.0 --record-dir "$work/ed" --no-slurm --json
py weighted-json 'd["steps"][0]["weighted"]["j_sum"] > 0 and d["steps"][0]["weighted"]["blocked"]["j_sum"] > 0'
run 0 unweighted-json 11.0 --record-dir "$FIX" --no-slurm --json
py unweighted-json '"weighted" not in d["steps"][0]'
copy ed
printf '{"job_id": 11,' >"$work/ed/root/11.0.json"
run 4 bad-json 11.0 --record-dir "$work/ed" --no-slurm
has bad-json "invalid JSON at line 1"
copy ed
edit "$work/ed/root/11.1.verify.json" 'd["status"] = "FINE"'
run 4 bad-verify 11.1 --record-dir "$work/ed" --no-slurm
has bad-verify "status: must be OK, MISMATCH or ERROR"
copy ed
echo secret >"$work/secret"
rm "$work/ed/root/11.1.verify.json"
ln -s "$work/secret" "$work/ed/root/11.1.verify.json"
run 4 symlink-verify 11.1 --record-dir "$work/ed" --no-slurm
has symlink-verify "a symbolic link, not followed"
copy ed
rm "$work/ed/root/11.1.verify.json"
mkfifo "$work/ed/root/11.1.verify.json"
# a FIFO must not make the audit wait for a writer
timeout 20 "$SM" audit 11.1 --record-dir "$work/ed" --no-slurm >"$work/fifo.out" 2>&1
rc=$?
[ "$rc" -eq 4 ] && grep -q "not a regular file" "$work/fifo.out" && pass "fifo-verify: not read, exit 4" ||
    fail "fifo-verify: exit $rc: $(head -c 300 "$work/fifo.out")"
copy ed
printf '{"job_id": 1' >"$work/ed/root/20.0.json"
run 4 summary-damaged --summary --record-dir "$work/ed"
has summary-damaged "20.0.json: invalid JSON"
has summary-damaged "bad records: 1 unreadable, 0 inconsistent"

# ---- where the record directory comes from -------------------------------
STENCILMAP_RECORD_DIR=$FIX "$SM" audit 11.0 --no-slurm >"$work/env.out" 2>&1 &&
    grep -q "from \$STENCILMAP_RECORD_DIR" "$work/env.out" && pass "record dir from \$STENCILMAP_RECORD_DIR" ||
    fail "record dir from \$STENCILMAP_RECORD_DIR: $(head -c 300 "$work/env.out")"
mkdir -p "$work/etc"
printf 'ClusterName=x\nPlugStackConfig=%s\n' "$work/etc/plug.conf" >"$work/etc/slurm.conf"
printf '# site plugins\ninclude %s/etc/plugstack.d/*.conf\n' "$work" >"$work/etc/plug.conf"
mkdir -p "$work/etc/plugstack.d"
printf 'optional /usr/lib/x/other.so record_dir=/wrong\nrequired /usr/lib/slurm/stencil_map.so default=auto:2d:5pt record_dir=%s\n' \
    "$FIX" >"$work/etc/plugstack.d/stencil.conf"
SLURM_CONF=$work/etc/slurm.conf "$SM" audit 11.0 --no-slurm >"$work/conf.out" 2>&1 &&
    grep -q "from record_dir= in $work/etc/plugstack.d/stencil.conf" "$work/conf.out" &&
    pass "record dir from plugstack.conf through SLURM_CONF and an include" ||
    fail "record dir from plugstack.conf: $(head -c 300 "$work/conf.out")"
SLURM_CONF=$work/etc/nope.conf "$SM" audit 11.0 --no-slurm >"$work/noconf.out" 2>&1
rc=$?
[ "$rc" -eq 3 ] && grep -q "no record directory: give --record-dir DIR" "$work/noconf.out" &&
    pass "no record directory: exit 3, says how to give one" || fail "no record directory: exit $rc"

# ---- what Slurm says, through stand-in commands ----------------------------
mkdir -p "$work/bin"
cat >"$work/bin/sacct" <<'SH'
#!/bin/sh
# the accounting of job 11: step 0 on all four nodes, step 1 on three
echo "11.0|node[1-4]|32|COMPLETED"
echo "11.1|node[1-3]|32|COMPLETED"
SH
cat >"$work/bin/scontrol" <<'SH'
#!/bin/sh
echo "slurm_load_jobs error: Invalid job id specified" >&2
exit 1
SH
chmod 755 "$work/bin/sacct" "$work/bin/scontrol"
PATH=$work/bin:$PATH "$SM" audit 11.0 --record-dir "$FIX" --json >"$work/sacct.out" 2>"$work/sacct.err"
rc=$?
[ "$rc" -eq 0 ] && pass "sacct: step 0 as planned, exit 0" || fail "sacct step 0: exit $rc $(head -c 300 "$work/sacct.out")"
py sacct 'any(c["source"] == "sacct" and c["result"] == "matches" for c in d["steps"][0]["launch"]["checks"])'
PATH=$work/bin:$PATH "$SM" audit 11.1 --record-dir "$FIX" >"$work/sacct-differs.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "launch differs (sacct): 1 planned node(s), e.g. node4, not in Slurm's step node list node\[1-3\]" \
    "$work/sacct-differs.out" && pass "sacct: a step on other nodes than planned is inconsistent" ||
    fail "sacct step 1: exit $rc $(head -c 600 "$work/sacct-differs.out")"
cat >"$work/bin/sacct" <<'SH'
#!/bin/sh
echo "Slurm accounting storage is disabled" >&2
exit 1
SH
cat >"$work/bin/scontrol" <<'SH'
#!/bin/sh
case "$*" in
"-o show step 11.0") echo "StepId=11.0 UserId=0 State=RUNNING Partition=debug NodeList=node[1-4] Nodes=4 CPUs=32 Tasks=32 Name=task.sh" ;;
"-o show step 11")
    echo "StepId=11.batch UserId=0 State=RUNNING NodeList=node1 Nodes=1 CPUs=0 Tasks=1 Name=batch"
    echo "StepId=11.0 UserId=0 State=RUNNING NodeList=node[1-4] Nodes=4 CPUs=32 Tasks=32 Name=task.sh"
    echo "StepId=11.7 UserId=0 State=RUNNING NodeList=node[3-4] Nodes=2 CPUs=16 Tasks=16 Name=sh" ;;
"-o show step 11.7") echo "StepId=11.7 UserId=0 State=RUNNING NodeList=node[3-4] Nodes=2 CPUs=16 Tasks=16 Name=sh" ;;
"-o show job 11") echo "JobId=11 JobState=RUNNING ReqNodeList=(null) NodeList=node[1-4] BatchHost=node1" ;;
"-o show step 14") echo "StepId=14.0 UserId=0 State=RUNNING NodeList=node[1-4] Nodes=4 CPUs=32 Tasks=32 Name=sh" ;;
"-o show step 14.0") echo "StepId=14.0 UserId=0 State=RUNNING NodeList=node[1-4] Nodes=4 CPUs=32 Tasks=32 Name=sh" ;;
*) echo "invalid" >&2; exit 1 ;;
esac
SH
PATH=$work/bin:$PATH "$SM" audit 11.0 --record-dir "$FIX" --json >"$work/scontrol.out" 2>"$work/scontrol.err"
rc=$?
[ "$rc" -eq 0 ] && pass "scontrol show step: exit 0" || fail "scontrol show step: exit $rc"
py scontrol 'any(c["source"] == "scontrol show step" and c["result"] == "matches" for c in d["steps"][0]["launch"]["checks"])'
PATH=$work/bin:$PATH "$SM" audit 11 --record-dir "$FIX" --json >"$work/scontrol-job.out" 2>"$work/scontrol-job.err"
rc=$?
[ "$rc" -eq 3 ] && pass "whole job with a running unplaced step: exit 3" || fail "whole job: exit $rc"
py scontrol-job '[(s["step_id"], s["status"]) for s in d["steps"]] == [(0, "ok"), (1, "ok"), (7, "not placed")]'
py scontrol-job 'd["steps"][1]["launch"]["checks"][-1]["source"] == "scontrol show job"'
py scontrol-job 'any("sacct: Slurm accounting storage is disabled" in s for s in d["steps"][1]["launch"]["not_checked"])'
PATH=$work/bin:$PATH "$SM" audit 11.3 --record-dir "$FIX" >"$work/scontrol-none.out" 2>&1
grep -q "Slurm knows it (scontrol show job): job allocation node\[1-4\], RUNNING" "$work/scontrol-none.out" &&
    pass "not placed: what Slurm still knows" || fail "not placed with Slurm: $(head -c 500 "$work/scontrol-none.out")"
# a record without a step id is no record of step 0: the running step 14.0
# shows up as not placed beside the failed srun
PATH=$work/bin:$PATH "$SM" audit 14 --record-dir "$FIX" --json >"$work/scontrol-nostep.out" 2>"$work/scontrol-nostep.err"
rc=$?
[ "$rc" -eq 5 ] && pass "whole job with a failed srun and an unrecorded step: exit 5" || fail "job 14: exit $rc"
py scontrol-nostep '[(s["step_id"], s["status"]) for s in d["steps"]] == [(None, "failed"), (0, "not placed")]'
py scontrol-nostep 'd["steps"][0]["launch"]["checks"] == [] and "Slurm" not in json.dumps(d["steps"][0]["launch"])'

# ---- --svg of an audited step ---------------------------------------------
run 0 svg 11.1 --record-dir "$FIX" --no-slurm --svg "$work/step.svg"
python3 - "$work/step.svg" "$FIX/root/11.1.json" <<'PY' && pass "svg: well-formed, 32 cells per panel coloured as recorded" || fail "svg check"
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
rec = json.load(open(sys.argv[2]))
for pid in ("plan", "blocked"):
    g = [e for e in root.iter(ns + "g") if e.get("id") == pid][0]
    cells = [r for r in g.iter(ns + "rect") if r.get("class") == "cell"]
    assert sorted(int(c.get("data-rank")) for c in cells) == list(range(32)), pid
    if pid == "plan":
        assert all(rec["nodes"][int(c.get("data-node"))] == rec["placement"][int(c.get("data-rank"))] for c in cells)
PY
run 3 svg-fallback 13.0 --record-dir "$FIX" --no-slurm --svg "$work/fb.svg"
has svg-fallback "the record holds no placement to draw"

# ---- a step bound to sockets (bind=socket): 19.0 in audit-records-sockets --
SOCK=${srcdir:-.}/cli/audit-records-sockets
run 0 sockets 19.0 --record-dir "$SOCK" --no-slurm
has sockets "inter-socket J_sum 8, J_max 2; the naive split 16, 4"
run 0 sockets-json 19.0 --record-dir "$SOCK" --no-slurm --json
py sockets-json 'd["steps"][0]["sockets"] == {"per_node": [2, 2], "planned": {"j_sum": 8, "j_max": 2}, "naive": {"j_sum": 16, "j_max": 4}}'
mkdir -p "$work/sk/root"
cp "$SOCK/root/19.0.json" "$work/sk/root/"
edit "$work/sk/root/19.0.json" 'd["j_socket_sum"] = 17'
run 1 sockets-worse-than-naive 19.0 --record-dir "$work/sk" --no-slurm
has sockets-worse-than-naive "worse than the naive split's 16"
cp "$SOCK/root/19.0.json" "$work/sk/root/"
edit "$work/sk/root/19.0.json" 'd["sockets"] = [2]'
run 4 sockets-per-node 19.0 --record-dir "$work/sk" --no-slurm
has sockets-per-node "sockets: must be a list with one count per node (2)"
cp "$SOCK/root/19.0.json" "$work/sk/root/"
edit "$work/sk/root/19.0.json" 'd["bind"] = "core"'
run 4 sockets-bind-core 19.0 --record-dir "$work/sk" --no-slurm
has sockets-bind-core 'bind: must be "socket" where present'

# ---- a step planned on Slurm's leaf switches: 23.0 in audit-records-levels,
# written with its in-job result by tests/topology/run.sh --------------------
LEV=${srcdir:-.}/cli/audit-records-levels
run 0 levels 23.0 --record-dir "$LEV" --no-slurm
has levels "topology    slurm (topology/tree): 1 level above the nodes"
has levels "level 0, 2 groups: J_sum 8, J_max 4; blocked 24, 12; re-scored 8, 4"
has levels "level 0 observed J_sum 8, J_max 4 between groups (as in the record)"
run 0 levels-json 23.0 --record-dir "$LEV" --no-slurm --json
py levels-json 'd["steps"][0]["topology"]["source"] == "slurm (topology/tree)"'
py levels-json 'd["steps"][0]["topology"]["levels"][0]["rescored"] == {"j_sum": 8, "j_max": 4, "blocked": {"j_sum": 24, "j_max": 12}}'
py levels-json 'd["steps"][0]["verify"]["levels"] == [{"planned": {"j_sum": 8, "j_max": 4}, "observed": {"j_sum": 8, "j_max": 4}, "agrees_with_record": True}]'
# a record whose figures between groups are not its placement's, one whose
# groups name a group that is not there, a job that saw other figures
mkdir -p "$work/lv/stencilmap-u1"
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["levels"][0]["j_sum"] = 12'
run 1 levels-figures 23.0 --record-dir "$work/lv" --no-slurm
has levels-figures "topology level 0: j_sum is 12 in the record, 8 from its placement"
has levels-figures "the job observed J_sum 8, J_max 4 between groups; the record planned 12, 4"
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["levels"][0]["node_groups"] = [0, 1, 2, 1]'
run 4 levels-groups 23.0 --record-dir "$work/lv" --no-slurm
has levels-groups "topology.levels[0].node_groups[2]: must be a group index in [0, 2)"
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.verify.json" 'd["levels"][0]["observed"]["j_max"] = 8'
run 1 levels-observed 23.0 --record-dir "$work/lv" --no-slurm
has levels-observed "topology level 0: the job observed J_sum 8, J_max 8 between groups; the record planned 8, 4"
# the site's levels_mode= in the record: printed when not the default;
# a mode the planner does not know is refused by name
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["mode"] = "nodes-first"'
run 0 levels-mode 23.0 --record-dir "$work/lv" --no-slurm
has levels-mode "topology    slurm (topology/tree): 1 level above the nodes, planned nodes-first"
run 0 levels-mode-json 23.0 --record-dir "$work/lv" --no-slurm --json
py levels-mode-json 'd["steps"][0]["topology"]["mode"] == "nodes-first"'
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["mode"] = "sideways"'
run 4 levels-mode-bad 23.0 --record-dir "$work/lv" --no-slurm
has levels-mode-bad "topology.mode: must be 'best', 'groups-first' or 'nodes-first'"
# what the topology's reader repaired and the links it gave, as the plugin
# records them (topology_warnings, a level's links): shown, and kept in the
# JSON; a malformed one is refused by name
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology_warnings"] = ["topology /etc/slurm/topology.conf: node n3 is under 2 leaf switches (rails): grouped with the nodes under the same set"]; d["topology"]["levels"][0]["links"] = {"groups": 2, "uplinks_min": 1, "uplinks_max": 2, "link_speed_min": 100, "link_speed_max": 200}'
run 0 levels-repaired 23.0 --record-dir "$work/lv" --no-slurm
has levels-repaired "repaired    topology /etc/slurm/topology.conf: node n3 is under 2 leaf switches (rails)"
has levels-repaired "re-scored 8, 4; links: 2 groups of switches, uplinks 1-2, LinkSpeed 100-200"
run 0 levels-repaired-json 23.0 --record-dir "$work/lv" --no-slurm --json
py levels-repaired-json 'len(d["steps"][0]["topology_warnings"]) == 1 and "rails" in d["steps"][0]["topology_warnings"][0]'
py levels-repaired-json 'd["steps"][0]["topology"]["levels"][0]["links"]["uplinks_max"] == 2'
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology_warnings"] = ["two\nlines"]'
run 4 levels-repaired-bad 23.0 --record-dir "$work/lv" --no-slurm
has levels-repaired-bad "topology_warnings[0]: must be a string of one line"
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["levels"][0]["links"] = {"groups": 1, "uplinks_min": 3, "uplinks_max": 2, "link_speed_min": 0, "link_speed_max": 0}'
run 4 levels-links-bad 23.0 --record-dir "$work/lv" --no-slurm
has levels-links-bad "topology.levels[0].links: a minimum above its maximum"
# the busiest link as the plugin records it (topology.busiest_link): a
# record without it (the data's) shows none; with it, re-scored from the
# recorded placement with the recorded routing and uplinks.  By hand: each
# node holds a 4x2 block and sends 4 + 2 edges over its own link, each
# leaf's one uplink carries the 4 edges between the halves: L_max 6
run 0 busiest-none 23.0 --record-dir "$LEV" --no-slurm
if grep -q 'busiest link' "$work/busiest-none.out"; then
    fail "busiest-none: a record without busiest_link shows one"
else
    pass "busiest-none: no busiest link shown"
fi
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"] = {"l_max": 6, "bound": 6, "routing": "static", "uplinks": [{"min": 1, "max": 1}]}'
run 0 busiest 23.0 --record-dir "$work/lv" --no-slurm
has busiest "busiest link 6 (bound 6), static routing; re-scored 6 (bound 6)"
run 0 busiest-json 23.0 --record-dir "$work/lv" --no-slurm --json
py busiest-json 'd["steps"][0]["topology"]["busiest_link"] == {"planned": {"l_max": 6, "bound": 6}, "routing": "static", "rescored": {"l_max": 6, "bound": 6}, "ran": {"l_max": 6, "bound": 6, "source": "in-job result (PMIx)"}}'
# where the ranks ran (the in-job result's rank_nodes) re-scored: as
# planned, the same busiest link, exit 0
has busiest "busiest link 6 (bound 6) where the ranks ran (in-job result (PMIx))"
# ranks 0 (x0,y0, planned on node1) and 31 (x7,y3, on node4) swapped at
# launch.  By hand: node1 loses rank 0, whose 2 edges to ranks 1 and 4 now
# leave it, and gains rank 31, whose 2 edges to ranks 27 and 30 (node4)
# leave it: 6 + 2 + 2 = 10 out (and in), node4 alike; between the leaves
# 4 + 2 + 2 = 8 over one uplink.  L_max 10, bound 10 (a node's one link)
cp "$LEV/stencilmap-u1/23.0.verify.json" "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.verify.json" 'n = d["rank_nodes"]; n[0], n[31] = n[31], n[0]'
run 1 busiest-ran-elsewhere 23.0 --record-dir "$work/lv" --no-slurm
has busiest-ran-elsewhere "busiest link 10 (bound 10) where the ranks ran (in-job result (PMIx))"
has busiest-ran-elsewhere "topology: busiest link 6 (bound 6) planned, 10 (bound 10) where the ranks ran (in-job result (PMIx))"
run 1 busiest-ran-elsewhere-json 23.0 --record-dir "$work/lv" --no-slurm --json
py busiest-ran-elsewhere-json 'd["steps"][0]["topology"]["busiest_link"]["ran"] == {"l_max": 10, "bound": 10, "source": "in-job result (PMIx)"} and d["steps"][0]["topology"]["busiest_link"]["rescored"] == {"l_max": 6, "bound": 6}'
# no in-job result: from --launched FILE (the same swap: 10), else
# re-scored from the planned placement only, said so
rm "$work/lv/stencilmap-u1/23.0.verify.json"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["placement"]; p[0], p[31] = p[31], p[0]; print("\n".join(p))' \
    "$LEV/stencilmap-u1/23.0.json" >"$work/launched-swapped.txt"
run 1 busiest-launched 23.0 --record-dir "$work/lv" --no-slurm --launched "$work/launched-swapped.txt"
has busiest-launched "busiest link 10 (bound 10) where the ranks ran (--launched FILE)"
has busiest-launched "topology: busiest link 6 (bound 6) planned, 10 (bound 10) where the ranks ran (--launched FILE)"
run 0 busiest-ran-unknown 23.0 --record-dir "$work/lv" --no-slurm
has busiest-ran-unknown "busiest link where the ranks ran: not known (no in-job result with rank_nodes and no --launched FILE), so re-scored from the planned placement only"
run 0 busiest-ran-unknown-json 23.0 --record-dir "$work/lv" --no-slurm --json
py busiest-ran-unknown-json 'd["steps"][0]["topology"]["busiest_link"]["ran"] is None and "no in-job result" in d["steps"][0]["topology"]["busiest_link"]["ran_unknown"] and d["steps"][0]["topology"]["busiest_link"]["rescored"] == {"l_max": 6, "bound": 6}'
cp "$LEV/stencilmap-u1/23.0.verify.json" "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"]["l_max"] = 7.5'
run 1 busiest-differs 23.0 --record-dir "$work/lv" --no-slurm
has busiest-differs "topology: busiest link 7.5 (bound 6) in the record, 6 (bound 6) from its placement"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"] = {"l_max": 6, "bound": 6, "routing": "adaptive", "uplinks": [{"min": 1, "max": 2}]}'
run 0 busiest-varied 23.0 --record-dir "$work/lv" --no-slurm
has busiest-varied "busiest link 6 (bound 6), adaptive routing; not re-scored (uplink counts varied within a level)"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"]["routing"] = "direct"'
run 0 busiest-direct 23.0 --record-dir "$work/lv" --no-slurm
has busiest-direct "busiest link 6 (bound 6), direct routing"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"]["routing"] = "ecmp"'
run 4 busiest-bad 23.0 --record-dir "$work/lv" --no-slurm
has busiest-bad "topology.busiest_link.routing: must be 'static', 'adaptive' or 'direct'"
# the leaves' uplink speed (uplink_speed=, the entry's "speed"): at 0.5 a
# leaf's one uplink carries its 4 edges as 8 node links' load, above the
# node links' 6: L_max 8, bound 8.  A record that says 6 with that speed is
# caught, and a speed of 0 refused
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"] = {"l_max": 8, "bound": 8, "routing": "static", "uplinks": [{"min": 1, "max": 1, "speed": 0.5}]}'
run 0 busiest-speed 23.0 --record-dir "$work/lv" --no-slurm
has busiest-speed "busiest link 8 (bound 8), static routing, uplink speed 0.5; re-scored 8 (bound 8)"
run 0 busiest-speed-json 23.0 --record-dir "$work/lv" --no-slurm --json
py busiest-speed-json 'd["steps"][0]["topology"]["busiest_link"]["uplink_speed"] == [0.5] and d["steps"][0]["topology"]["busiest_link"]["rescored"] == {"l_max": 8, "bound": 8}'
edit "$work/lv/stencilmap-u1/23.0.json" 'b = d["topology"]["busiest_link"]; b["l_max"] = 6; b["bound"] = 6'
run 1 busiest-speed-differs 23.0 --record-dir "$work/lv" --no-slurm
has busiest-speed-differs "topology: busiest link 6 (bound 6) in the record, 8 (bound 8) from its placement"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"]["uplinks"][0]["speed"] = 0'
run 4 busiest-speed-bad 23.0 --record-dir "$work/lv" --no-slurm
has busiest-speed-bad "topology.busiest_link.uplinks[0].speed: must be a number above 0 and at most 1000"
# a level whose groups have unequal uplink counts (per_group), re-scored.
# The leaves regrouped: node1+node2 (the rows y0-y1), node3 (x0-x3, y2-y3)
# and node4 (x4-x7, y2-y3).  By hand: group 0 sends 8 edges out (and takes
# 8 in), node3 4 to node1 and 2 to node4, node4 4 to node2 and 2 to node3;
# J between groups 8 + 6 + 6 = 20, J_max 8; the blocked layout (x0-x1 on
# node1, ..., x6-x7 on node4) 4, 8, 4: 16, 8.  Every node link carries 6.
# Static routing, positions leaf by leaf node1 0, node2 1, node3 2, node4 3:
#  per_group [2, 1, 1]: group 0's 8 split by the destination's position
#    mod 2 (node3 even: 4, node4 odd: 4), the others 6 over one link:
#    L_max 6, bound max(6, 8/2, 6, 6) = 6 (min's 1 everywhere: 8);
#  per_group [1, 2, 2]: group 0's one uplink 8, node3's 4 + 2 and
#    node4's 4 + 2 split: L_max 8, bound 8 (max's 2 everywhere: 6).
regroup='t = d["topology"]; lv = t["levels"][0]; lv["groups"] = ["rows", "left", "right"]; lv["node_groups"] = [0, 0, 1, 2]; lv["j_sum"], lv["j_max"], lv["blocked_j_sum"], lv["blocked_j_max"] = 20, 8, 16, 8'
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.verify.json" 'd["levels"] = [{"planned": {"j_sum": 20, "j_max": 8}, "observed": {"j_sum": 20, "j_max": 8}}]'
edit "$work/lv/stencilmap-u1/23.0.json" "$regroup"'; t["busiest_link"] = {"l_max": 6, "bound": 6, "routing": "static", "uplinks": [{"min": 1, "max": 2, "per_group": [2, 1, 1]}]}'
run 0 uplinks-per-group 23.0 --record-dir "$work/lv" --no-slurm
has uplinks-per-group "busiest link 6 (bound 6), static routing; re-scored 6 (bound 6) from the planned placement"
run 0 uplinks-per-group-json 23.0 --record-dir "$work/lv" --no-slurm --json
py uplinks-per-group-json 'd["steps"][0]["topology"]["busiest_link"]["rescored"] == {"l_max": 6, "bound": 6}'
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"] = {"l_max": 8, "bound": 8, "routing": "static", "uplinks": [{"min": 1, "max": 2, "per_group": [1, 2, 2]}]}'
run 0 uplinks-per-group-2 23.0 --record-dir "$work/lv" --no-slurm
has uplinks-per-group-2 "busiest link 8 (bound 8), static routing; re-scored 8 (bound 8) from the planned placement"
# a record that says 6 for [1, 2, 2] (what 2 uplinks everywhere give) is
# caught; and per_group outside the min and max it is given with
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"]["l_max"] = 6; d["topology"]["busiest_link"]["bound"] = 6'
run 1 uplinks-per-group-differs 23.0 --record-dir "$work/lv" --no-slurm
has uplinks-per-group-differs "topology: busiest link 6 (bound 6) in the record, 8 (bound 8) from its placement"
edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"] = {"l_max": 8, "bound": 8, "routing": "static", "uplinks": [{"min": 1, "max": 3, "per_group": [1, 2, 2]}]}'
run 1 uplinks-per-group-range 23.0 --record-dir "$work/lv" --no-slurm
has uplinks-per-group-range "topology: busiest_link.uplinks[0]: per_group ranges 1-2, min and max say 1-3"
# malformed per_group: refused by name (exit 4)
for bad in 'wrong-length:[1, 2]:per_group: must be a list with one uplink count per group of level 0 (3)' \
    'zero:[1, 0, 2]:per_group[1]: must be an uplink count >= 1' \
    'negative:[1, 2, -2]:per_group[2]: must be an uplink count >= 1' \
    'not-a-list:"1,2,2":per_group: must be a list with one uplink count per group'; do
    bad_case=uplinks-per-group-${bad%%:*} bad_rest=${bad#*:} # run() sets name and want
    bad_value=${bad_rest%%:*} bad_says=${bad_rest#*:}
    edit "$work/lv/stencilmap-u1/23.0.json" 'd["topology"]["busiest_link"]["uplinks"][0]["per_group"] = '"$bad_value"
    run 4 "$bad_case" 23.0 --record-dir "$work/lv" --no-slurm
    has "$bad_case" "topology.busiest_link.uplinks[0].$bad_says"
done
# the record without its topology reads as a step planned without levels
cp "$LEV/stencilmap-u1/"* "$work/lv/stencilmap-u1/"
edit "$work/lv/stencilmap-u1/23.0.json" 'del d["topology"]'
edit "$work/lv/stencilmap-u1/23.0.verify.json" 'del d["levels"]'
run 0 levels-none 23.0 --record-dir "$work/lv" --no-slurm
if grep -q 'topology' "$work/levels-none.out"; then
    fail "levels-none: a record without topology shows one"
else
    pass "levels-none: no topology shown"
fi

checks_summary
