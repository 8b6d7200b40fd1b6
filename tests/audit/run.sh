#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end tests of `stencil-map audit` on a real multi-node Slurm
# (contrib/minicluster, 4 nodes x 8 CPUs): steps placed by the stencil_map
# SPANK plugin, the in-job result of stencil-map-verify beside their audit
# records, what slurmctld says while a step runs and after, a hand-edited
# record, a --stencil-map=none step, a fallback, steps that never
# launched (a failed plan, an srun that gave up), --summary and --svg.
# Builds and installs the tree into a staging prefix outside /tmp, prints
# "ok NAME" / "FAIL NAME" and "N passed, M failed", and always brings the
# cluster down.
#
# env: MINICLUSTER_DIR (default /var/lib/smc-audit), MINICLUSTER_PORT_BASE
#      (29800), AUDIT_PREFIX (/var/lib/smc-audit-prefix), AUDIT_BUILD_ROOT
#      (/var/lib/smc-audit-build), AUDIT_WORK (/var/lib/smc-audit-work),
#      AUDIT_SKIP_BUILD=1 to reuse the install, AUDIT_ONLY=REGEX to run only
#      the tests whose names match (the first job runs whenever a test
#      needs it).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-audit}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-29800}
PREFIX=${AUDIT_PREFIX:-/var/lib/smc-audit-prefix}
ROOT=${AUDIT_BUILD_ROOT:-/var/lib/smc-audit-build}
WORK=${AUDIT_WORK:-/var/lib/smc-audit-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
VERIFY=$PREFIX/bin/stencil-map-verify
SO=$PREFIX/lib/slurm/stencil_map.so
RECORDS=$WORK/records
USER_NAME=$(id -un)
UREC=$RECORDS/$USER_NAME
SUITE=audit
ONLY=${AUDIT_ONLY:-}
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$ROOT$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: AUDIT_PREFIX, AUDIT_BUILD_ROOT, AUDIT_WORK and MINICLUSTER_DIR must be outside /tmp" >&2
    exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (the minicluster needs it)" >&2; exit 2; }
[ -x "$MC" ] || { echo "run.sh: FATAL: $MC not found" >&2; exit 1; }
command -v python3 >/dev/null || { echo "run.sh: FATAL: python3 is needed to read JSON and SVG" >&2; exit 1; }
command -v rsvg-convert >/dev/null ||
    { echo "run.sh: FATAL: rsvg-convert (librsvg2-bin, contrib/install-deps.sh) is needed" >&2; exit 1; }

# audit_json OUT EXPECTED_RC ARGS...: stencil-map audit --json through the
# cluster's environment (SLURM_CONF: the record directory comes from its
# plugstack.conf unless ARGS say otherwise)
audit_json() {
    local out=$1 want=$2 rc
    shift 2
    mc "$SM" audit --json "$@" >"$out" 2>"$out.err"
    rc=$?
    cat "$out.err"
    [ "$rc" -eq "$want" ] || { fail "stencil-map audit $* exited $rc, wanted $want"; cat "$out"; return 1; }
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" || { fail "audit --json: not JSON"; return 1; }
}

# wait_for CMD...: up to 60 s for CMD to succeed
wait_for() {
    local i
    for i in $(seq 1 300); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    return 1
}

SPEC=$WORK/spec-hyperplane-4x8-5pt.json
JOB=""      # the first job: placed step 0, verify step 1, none step 2
RJOB=""     # the second job, whose steps are still running when audited

# ------------------------------------------------------------ jobs -------
# Job 1: step 0 placed (tasks print their node), step 1 stencil-map-verify,
# step 2 --stencil-map=none.  Before step 3 (a second verify) a symlink is
# planted where its result would go: it must not be followed.
first_job() {
    cat >"$WORK/job1.sh" <<SH
#!/bin/sh
srun --stencil-map=$SPEC $WORK/task.sh >$WORK/j1.placed.out 2>$WORK/j1.placed.err
echo "placed rc=\$?"
srun --mpi=pmix --stencil-map=$SPEC $VERIFY --json >$WORK/j1.verify.out 2>$WORK/j1.verify.err
echo "verify rc=\$?"
srun --stencil-map=none $WORK/task.sh >$WORK/j1.none.out 2>$WORK/j1.none.err
echo "none rc=\$?"
ln -s $WORK/victim $UREC/\$SLURM_JOB_ID.3.verify.json
srun --mpi=pmix --stencil-map=$SPEC $VERIFY >$WORK/j1.verify2.out 2>$WORK/j1.verify2.err
echo "verify2 rc=\$?"
SH
    chmod 755 "$WORK/job1.sh"
    echo "untouched" >"$WORK/victim"
    local out
    out=$(mc sbatch --parsable -W -N4 -n32 -o "$WORK/j1.job.out" "$WORK/job1.sh") ||
        { echo "run.sh: the first job failed: $(cat "$WORK/j1.job.out" 2>/dev/null)" >&2; return 1; }
    JOB=${out%%;*}
    echo "first job: $JOB"
    cat "$WORK/j1.job.out"
    # what became of the planted symlink, then away with it: the other
    # tests want a clean record directory
    { [ -L "$UREC/$JOB.3.verify.json" ] && echo "symlink kept"; echo "victim: $(cat "$WORK/victim")"; } \
        >"$WORK/j1.symlink.state"
    rm -f "$UREC/$JOB.3.verify.json"
}

# ------------------------------------------------------------ tests ------
# A placed step: audit's J figures are the plan's (an independent
# stencil-map plan on the same nodes), the launch per rank (--launched
# from the tasks' own output) matches, the record directory comes from
# plugstack.conf.
t_placed() {
    [ -n "$JOB" ] || { fail "the first job did not run"; return 1; }
    grep -q "placed rc=0" "$WORK/j1.job.out" || { fail "placed step failed"; cat "$WORK/j1.placed.err"; return 1; }
    "$SM" plan "$SPEC" --nodes 'node[1-4]' --slots 8 --json >plan.json || { fail "plan"; return 1; }
    sort -n "$WORK/j1.placed.out" | awk '{ print $1 ": " $2 }' >launched.txt
    audit_json a.json 0 "$JOB.0" --launched "$WORK/launched.txt" || return 1
    cat a.json
    [ "$(json_get a.json 'd["record_dir_source"]')" = "record_dir= in $MINICLUSTER_DIR/etc/plugstack.conf" ] ||
        { fail "record dir not found through plugstack.conf"; return 1; }
    local s='d["steps"][0]'
    [ "$(json_get a.json "$s[\"status\"]")" = ok ] || { fail "status not ok"; return 1; }
    [ "$(json_get a.json "$s[\"algorithm\"][\"used\"]")" = hyperplane ] || { fail "algorithm"; return 1; }
    local k
    for k in j_sum j_max; do
        [ "$(json_get a.json "$s[\"planned\"][\"$k\"]")" = "$(json_get plan.json "d[\"$k\"]")" ] ||
            { fail "planned $k differs from stencil-map plan"; return 1; }
        [ "$(json_get a.json "$s[\"blocked\"][\"$k\"]")" = "$(json_get plan.json "d[\"blocked\"][\"$k\"]")" ] ||
            { fail "blocked $k differs from stencil-map plan"; return 1; }
    done
    [ "$(json_get a.json "$s[\"planned\"][\"j_sum\"]")" -lt "$(json_get a.json "$s[\"blocked\"][\"j_sum\"]")" ] ||
        { fail "the test's placement does not differ from blocked: it cannot tell"; return 1; }
    [ "$(json_get a.json "$s[\"launch\"][\"result\"]")" = matches ] || { fail "launch"; return 1; }
    json_get a.json "[c[\"source\"] for c in $s[\"launch\"][\"checks\"] if c[\"result\"] == \"matches\"]" |
        grep -q -- "--launched" || { fail "no per-rank check from --launched"; return 1; }
    [ "$(json_get a.json "$s[\"verify\"]")" = null ] || { fail "step 0 has an in-job result"; return 1; }
    # the text form says the same
    mc "$SM" audit "$JOB.0" >a.txt || { fail "text audit failed"; cat a.txt; return 1; }
    cat a.txt
    grep -q "^step $JOB.0: placed, consistent" a.txt || { fail "text headline"; return 1; }
    grep -q "planned *J_sum $(json_get plan.json 'd["j_sum"]'), J_max $(json_get plan.json 'd["j_max"]')" a.txt ||
        { fail "text planned figures"; return 1; }
    # a launch that differs: two ranks swapped between nodes
    awk 'NR == 1 { a = $0; next } NR == 9 { print; print a; next } { print }' launched.txt |
        awk '{ sub(/^[0-9]+:/, NR - 1 ":"); print }' >swapped.txt
    audit_json b.json 1 "$JOB.0" --launched "$WORK/swapped.txt" || return 1
    json_get b.json 'd["steps"][0]["problems"]' | grep -q "ranks ran elsewhere than planned" ||
        { fail "swapped launch not reported"; cat b.json; return 1; }
}

# The verify step: its result lies beside its record (mode 0600, no
# temporary file left); audit reports the same J figures as the plan and
# as the verify step itself printed, and the per-rank check through PMIx.
t_verified() {
    [ -n "$JOB" ] || { fail "the first job did not run"; return 1; }
    grep -q "verify rc=0" "$WORK/j1.job.out" || { fail "verify step failed"; cat "$WORK/j1.verify.err"; return 1; }
    local side=$UREC/$JOB.1.verify.json
    [ -f "$side" ] && [ ! -L "$side" ] || { fail "$side missing"; ls -la "$UREC"; return 1; }
    [ "$(stat -c %a "$side")" = 600 ] || { fail "mode $(stat -c %a "$side")"; return 1; }
    ls -A "$UREC" | grep -q '\.tmp$' && { fail "temporary file left: $(ls -A "$UREC")"; return 1; }
    "$SM" plan "$SPEC" --nodes 'node[1-4]' --slots 8 --json >plan.json || return 1
    audit_json a.json 0 "$JOB.1" || return 1
    cat a.json
    local s='d["steps"][0]' k
    for k in j_sum j_max; do
        local p o v
        p=$(json_get a.json "$s[\"planned\"][\"$k\"]")
        o=$(json_get a.json "$s[\"verify\"][\"observed\"][\"$k\"]")
        v=$(json_get "$WORK/j1.verify.out" "d[\"observed\"][\"$k\"]")
        echo "$k: plan $(json_get plan.json "d[\"$k\"]"), audit planned $p, audit in-job $o, verify printed $v"
        [ "$p" = "$(json_get plan.json "d[\"$k\"]")" ] && [ "$o" = "$p" ] && [ "$v" = "$p" ] ||
            { fail "$k disagrees"; return 1; }
    done
    [ "$(json_get a.json "$s[\"verify\"][\"status\"]")" = OK ] || { fail "in-job status"; return 1; }
    json_get a.json "[c[\"level\"] + \" \" + c[\"result\"] for c in $s[\"launch\"][\"checks\"]]" | grep -q "per rank matches" ||
        { fail "no per-rank check from the in-job result"; return 1; }
}

# A symlink where the result goes is never followed; the verify step still
# reports (on stderr) that its result was not recorded.
t_verify_symlink() {
    [ -n "$JOB" ] || { fail "the first job did not run"; return 1; }
    grep -q "verify2 rc=0" "$WORK/j1.job.out" || { fail "second verify step failed"; cat "$WORK/j1.verify2.err"; return 1; }
    cat "$WORK/j1.verify2.err"
    cat "$WORK/j1.symlink.state"
    grep -q "victim: untouched" "$WORK/j1.symlink.state" || { fail "the symlink's target was written"; return 1; }
    grep -q "symlink kept" "$WORK/j1.symlink.state" || { fail "the symlink was replaced"; return 1; }
    grep -q "WARNING: result not recorded for the audit: .*exists already, not replaced" "$WORK/j1.verify2.err" ||
        { fail "no warning"; return 1; }
    # nor does audit read a result through a symlink (exit 4, unreadable)
    local d=$WORK/symdir/$USER_NAME
    rm -rf "$WORK/symdir"
    mkdir -p "$d"
    cp "$UREC/$JOB.3.json" "$d/"
    ln -s "$WORK/victim" "$d/$JOB.3.verify.json"
    audit_json a.json 4 "$JOB.3" --record-dir "$WORK/symdir" --no-slurm || return 1
    json_get a.json 'd["steps"][0]["problems"]' | grep -q "symbolic link, not followed" ||
        { fail "symlink not named"; cat a.json; return 1; }
}

# --stencil-map=none: no record; audit says "not placed", exit 3, and what
# Slurm still knows of the job.
t_none() {
    [ -n "$JOB" ] || { fail "the first job did not run"; return 1; }
    grep -q "none rc=0" "$WORK/j1.job.out" || { fail "none step failed"; return 1; }
    audit_json a.json 3 "$JOB.2" || return 1
    cat a.json
    [ "$(json_get a.json 'd["steps"][0]["status"]')" = "not placed" ] || { fail "status"; return 1; }
    json_get a.json 'd["steps"][0]["problems"][0]' | grep -q "no record of step $JOB.2" || { fail "message"; return 1; }
    mc "$SM" audit "$JOB.2" >a.txt
    [ $? -eq 3 ] || { fail "text exit"; return 1; }
    grep -q "NOT PLACED" a.txt || { fail "text"; cat a.txt; return 1; }
}

# A record edited by hand: inconsistent (exit 1) naming the field; a
# result edited: inconsistent; a truncated record: unreadable (exit 4); a
# record that is gone: exit 3.
t_hand_edited() {
    [ -n "$JOB" ] || { fail "the first job did not run"; return 1; }
    local d=$WORK/edited/$USER_NAME
    rm -rf "$WORK/edited"
    mkdir -p "$d"
    cp "$UREC/$JOB.0.json" "$d/"
    cp "$UREC/$JOB.1.json" "$UREC/$JOB.1.verify.json" "$d/"
    python3 - "$d/$JOB.0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["j_sum"] -= 4            # a better figure than the placement gives
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
    audit_json a.json 1 "$JOB.0" --record-dir "$WORK/edited" --no-slurm || return 1
    cat a.json
    [ "$(json_get a.json 'd["steps"][0]["status"]')" = inconsistent ] || { fail "status"; return 1; }
    json_get a.json 'd["steps"][0]["problems"]' | grep -q "j_sum is .* in the record, .* from its placement" ||
        { fail "problem does not name j_sum"; return 1; }
    # the placement moved: a rank on a node the record does not list
    python3 - "$d/$JOB.0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["j_sum"] += 4
d["placement"][5] = "node9"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
    audit_json a.json 1 --record "$d/$JOB.0.json" --no-slurm || return 1
    json_get a.json 'd["steps"][0]["problems"]' | grep -q "placement\[5\] ('node9')" || { fail "node9 not named"; cat a.json; return 1; }
    # the in-job result disagrees with its record
    python3 - "$d/$JOB.1.verify.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["observed"]["j_sum"] += 8
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
    audit_json a.json 1 "$JOB.1" --record-dir "$WORK/edited" --no-slurm || return 1
    json_get a.json 'd["steps"][0]["problems"]' | grep -q "the job observed J_sum" || { fail "in-job disagreement"; cat a.json; return 1; }
    # truncated: unreadable
    head -c 200 "$UREC/$JOB.0.json" >"$d/$JOB.0.json"
    audit_json a.json 4 --record "$d/$JOB.0.json" || return 1
    json_get a.json 'd["steps"][0]["problems"]' | grep -q "invalid JSON" || { fail "unreadable not said"; return 1; }
    # gone
    mc "$SM" audit --record "$d/nope.json" >a.txt 2>&1
    [ $? -eq 3 ] || { fail "missing --record: exit not 3"; cat a.txt; return 1; }
    cat a.txt
}

# Steps still running: the step's own node list from scontrol show step
# matches the plan; a running --stencil-map=none step shows up as not
# placed under the whole-job audit.  After the job, only the allocation is
# left, and audit says so.
t_running() {
    rm -f "$WORK/release"
    cat >"$WORK/job2.sh" <<SH
#!/bin/sh
hold='while [ ! -e $WORK/release ]; do sleep 0.2; done'
srun -n16 --stencil-map=$SPEC16 sh -c "\$hold" &
# the none step second, so that the step ids are known: 0 placed, 1 none
while ! scontrol show step \$SLURM_JOB_ID.0 >/dev/null 2>&1; do sleep 0.2; done
srun -N2 -n16 --relative=2 --stencil-map=none sh -c "\$hold" &
wait
SH
    chmod 755 "$WORK/job2.sh"
    local out
    out=$(mc sbatch --parsable -N4 -n32 -o "$WORK/j2.job.out" "$WORK/job2.sh") || { fail "sbatch"; return 1; }
    RJOB=${out%%;*}
    echo "job $RJOB"
    wait_for mc scontrol show step "$RJOB.0" && wait_for mc scontrol show step "$RJOB.1" ||
        { fail "the steps did not start"; touch "$WORK/release"; mc scontrol show step; return 1; }
    mc scontrol -o show step "$RJOB"
    local rc=0
    audit_json a.json 0 "$RJOB.0" || rc=1
    cat a.json
    json_get a.json '[c["source"] + ": " + c["result"] for c in d["steps"][0]["launch"]["checks"]]' |
        grep -q "scontrol show step: matches" || { fail "no step-level check from scontrol"; rc=1; }
    audit_json b.json 3 "$RJOB" || rc=1
    cat b.json
    [ "$(json_get b.json '[s["step_id"] for s in d["steps"]]')" = "[0, 1]" ] || { fail "whole-job steps"; rc=1; }
    [ "$(json_get b.json 'd["steps"][1]["status"]')" = "not placed" ] || { fail "step 1 not 'not placed'"; rc=1; }
    [ "$(json_get b.json 'd["steps"][1]["slurm"]["source"]')" = "scontrol show step" ] || { fail "step 1 Slurm source"; rc=1; }
    touch "$WORK/release"
    wait_for sh -c "! $MC run squeue -h -j $RJOB | grep -q ." || { fail "job did not end"; return 1; }
    audit_json c.json 0 "$RJOB.0" || return 1
    json_get c.json 'd["steps"][0]["launch"]["not_checked"]' | grep -q "step $RJOB.0 is not running" ||
        { fail "after the job: not said what could not be checked"; cat c.json; return 1; }
    json_get c.json '[c["source"] for c in d["steps"][0]["launch"]["checks"]]' | grep -q "scontrol show job" ||
        { fail "after the job: no allocation check"; cat c.json; return 1; }
    return $rc
}

# on_error=blocked with a bad spec: a fallback record, reported as such
t_fallback() {
    plugstack on_error=blocked
    mc salloc -N4 -n32 srun --stencil-map="$WORK/bad.json" true >out 2>err
    local rc=$?
    plugstack
    [ $rc -eq 0 ] || { fail "srun failed"; cat err; return 1; }
    local rec
    rec=$(grep -l '"fallback": {' "$UREC"/*.json | head -1)
    [ -n "$rec" ] || { fail "no fallback record"; return 1; }
    audit_json a.json 0 --record "$rec" || return 1
    cat a.json
    [ "$(json_get a.json 'd["steps"][0]["status"]')" = fallback ] || { fail "status"; return 1; }
    mc "$SM" audit --record "$rec" | grep -q "NOT PLACED: fell back" || { fail "text"; return 1; }
}

# Steps that never launched.  Under on_error=fail a spec of more ranks
# than the job has slots stops srun before a step exists: the plugin's
# record has no step id (<job>.nostep-<pid>.json), launched false and the
# error; audit of the job finds it, reports it failed, exit 5.  A sound
# plan whose srun then gives up on its own (a gres the job lacks) is
# reported as not launched, exit 0: not the placement's failure.
t_not_launched() {
    mc salloc -N4 -n32 srun --stencil-map="$WORK/big.json" true >out 2>err
    local rc=$? job
    cat err
    [ $rc -ne 0 ] || { fail "srun with 64 ranks on 32 slots succeeded"; return 1; }
    job=$(sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p' err)
    [ -n "$job" ] || { fail "no job id from salloc"; return 1; }
    ls "$UREC"/"$job".* || { fail "no record of job $job"; return 1; }
    ls "$UREC"/"$job".nostep-*.json >/dev/null || { fail "no nostep record"; return 1; }
    audit_json a.json 5 "$job" || return 1
    cat a.json
    local s='d["steps"][0]'
    [ "$(json_get a.json 'len(d["steps"])')" = 1 ] || { fail "not one step"; return 1; }
    [ "$(json_get a.json "$s[\"status\"]")" = failed ] || { fail "status not failed"; return 1; }
    [ "$(json_get a.json "$s[\"step_id\"]")" = null ] || { fail "step_id not null"; return 1; }
    [ "$(json_get a.json "$s[\"launched\"]")" = false ] || { fail "launched not false"; return 1; }
    [ "$(json_get a.json "$s[\"algorithm\"][\"used\"]")" = null ] || { fail "algorithm used"; return 1; }
    json_get a.json "$s[\"error\"]" | grep -q "infeasible: 64 ranks but only 32 slots on 4 nodes" ||
        { fail "error not reported"; return 1; }
    grep -q "audit: job $job, no step id (.*): failed: not launched: the plugin stopped the step: infeasible" a.json.err ||
        { fail "no reason on stderr"; return 1; }
    mc "$SM" audit "$job" >a.txt
    [ $? -eq 5 ] || { fail "text audit: exit not 5"; cat a.txt; return 1; }
    cat a.txt
    grep -q "^job $job, no step id: FAILED: not launched, the plugin stopped the step" a.txt ||
        { fail "text headline"; return 1; }
    grep -q "launched *no: infeasible" a.txt || { fail "text: launched line"; return 1; }
    # a placed step that srun abandoned
    mc salloc -N4 -n32 srun --stencil-map="$SPEC" --gres=gpu:1 true >out 2>err
    rc=$?
    cat err
    [ $rc -ne 0 ] || { fail "srun with --gres=gpu:1 succeeded"; return 1; }
    job=$(sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p' err)
    audit_json b.json 0 "$job" || return 1
    cat b.json
    [ "$(json_get b.json "$s[\"status\"]")" = "not launched" ] || { fail "status not 'not launched'"; return 1; }
    [ "$(json_get b.json "$s[\"placed\"]")" = true ] || { fail "the plan is not in the record"; return 1; }
    json_get b.json "$s[\"error\"]" | grep -q "srun exited before launching" || { fail "error"; return 1; }
    mc "$SM" audit "$job" | grep -q "NOT LAUNCHED: srun exited before the step was created" ||
        { fail "text headline"; return 1; }
}

# --summary over the record directory, against totals computed here from
# the records themselves
t_summary() {
    [ -n "$JOB" ] || { fail "the first job did not run"; return 1; }
    audit_json s.json 0 --summary || return 1
    cat s.json
    python3 - "$RECORDS" s.json <<'PY' || { fail "summary totals differ"; return 1; }
import glob, json, os, sys
recs = [json.load(open(p)) for p in glob.glob(os.path.join(sys.argv[1], "*", "*.json"))
        if not p.endswith(".verify.json")]
s = json.load(open(sys.argv[2]))
# what each record is, from its fields (stencil_map(8), FILES)
launched = [r for r in recs if r.get("launched", True)]
placed = [r for r in launched if r["fallback"] is None and r["algorithm_used"] is not None]
unlaunched = [r for r in recs if not r.get("launched", True)]
stopped = [r for r in unlaunched if r["algorithm_used"] is None or r["step_id"] is not None]
want = {
    "steps": len(recs),
    "placed": len(placed),
    "fallbacks": sum(r["fallback"] is not None for r in launched),
    "failed": len(stopped),
    "not_launched": len(unlaunched) - len(stopped),
    "by_algorithm": {},
    "saved": sum(r["blocked_j_sum"] - r["j_sum"] for r in placed),
}
for r in placed:
    want["by_algorithm"][r["algorithm_used"]] = want["by_algorithm"].get(r["algorithm_used"], 0) + 1
got = {"steps": s["steps"], "placed": s["placed"], "fallbacks": s["fallbacks"],
       "failed": s["failed"], "not_launched": s["not_launched"],
       "by_algorithm": s["by_algorithm"], "saved": s["inter_node_edges"]["saved"]}
print("expected", want)
print("got     ", got)
sys.exit(got != want or want["saved"] <= 0 or want["fallbacks"] < 1 or want["failed"] < 1 or
         want["not_launched"] < 1)
PY
    mc "$SM" audit --summary >s.txt || { fail "text summary"; return 1; }
    cat s.txt
    grep -q "^fallbacks to blocked: [1-9]" s.txt || { fail "no fallbacks line"; return 1; }
    grep -q "^failed before launch: [1-9]" s.txt || { fail "no failures line"; return 1; }
    # a damaged record makes the summary fail and name it
    cp -r "$RECORDS" "$WORK/records-bad"
    echo '{"job_id": 1' >"$WORK/records-bad/$USER_NAME/999.0.json"
    mc "$SM" audit --summary --record-dir "$WORK/records-bad" >s2.txt
    [ $? -eq 4 ] || { fail "damaged record: exit not 4"; cat s2.txt; return 1; }
    grep -q "999.0.json: invalid JSON" s2.txt || { fail "damaged record not named"; cat s2.txt; return 1; }
    rm -rf "$WORK/records-bad"
}

# --svg of an audited step: well-formed, one cell per rank in each panel
# coloured as the record places it, and it renders
t_svg() {
    [ -n "$JOB" ] || { fail "the first job did not run"; return 1; }
    mc "$SM" audit "$JOB.1" --svg "$WORK/step.svg" >/dev/null || { fail "audit --svg failed"; return 1; }
    python3 - "$WORK/step.svg" "$UREC/$JOB.1.json" <<'PY' || { fail "SVG check"; return 1; }
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
rec = json.load(open(sys.argv[2]))
names = rec["nodes"]
for pid in ("plan", "blocked"):
    g = [e for e in root.iter(ns + "g") if e.get("id") == pid][0]
    cells = [r for r in g.iter(ns + "rect") if r.get("class") == "cell"]
    assert len(cells) == rec["ranks"], (pid, len(cells))
    assert sorted(int(c.get("data-rank")) for c in cells) == list(range(rec["ranks"]))
    if pid == "plan":
        for c in cells:
            assert names[int(c.get("data-node"))] == rec["placement"][int(c.get("data-rank"))]
print("SVG: %d cells per panel, colours follow the record" % rec["ranks"])
PY
    rsvg-convert -o "$WORK/step.png" "$WORK/step.svg" && [ -s "$WORK/step.png" ] || { fail "rsvg-convert"; return 1; }
    echo "rendered $WORK/step.png"
}

# ------------------------------------------------------------ main -------
mkdir -p "$WORK/logs" "$RECORDS"
chmod 1777 "$RECORDS"
rm -rf "${RECORDS:?}"/* "$WORK"/logs/* "$WORK"/j1.* "$WORK"/j2.* "$WORK"/edited
cp "$TOP/tests/integration/task.sh" "$WORK/task.sh"
chmod 755 "$WORK/task.sh"
echo '{"grid": {"dims": [4, 8]}, "stencil": "5pt", "algorithm": "hyperplane"}' >"$SPEC"
SPEC16=$WORK/spec-hyperplane-4x4-5pt.json
echo '{"grid": {"dims": [4, 4]}, "stencil": "5pt", "algorithm": "hyperplane"}' >"$SPEC16"
echo '{"grid": {"dims": [4, 8]}, "stencil": "5pt",}' >"$WORK/bad.json"
echo '{"grid": {"dims": [8, 8]}, "stencil": "5pt", "algorithm": "hyperplane"}' >"$WORK/big.json"

if [ "${AUDIT_SKIP_BUILD:-0}" != 1 ]; then
    SMC_BUILD_ROOT=$ROOT "$TOP/tests/integration/build.sh" "$PREFIX" ||
        { echo "run.sh: FATAL: build failed" >&2; exit 1; }
fi
[ -f "$SO" ] && [ -x "$SM" ] && [ -x "$VERIFY" ] ||
    { echo "run.sh: FATAL: $SO, $SM or $VERIFY missing (stencil-map-verify needs PMIx)" >&2; exit 1; }

echo "== minicluster: 4 nodes x 8 CPUs"
cluster_up 8
# the first job outside run_test's subshell: most tests read what it left
first_job >"$WORK/logs/first-job.log" 2>&1 || { echo "run.sh: the first job failed:"; tail -20 "$WORK/logs/first-job.log"; }
run_test placed-step-as-planned t_placed
run_test verify-step-same-figures t_verified
run_test verify-never-follows-symlink t_verify_symlink
run_test none-step-not-placed t_none
run_test hand-edited-record-inconsistent t_hand_edited
run_test running-steps-slurm-checks t_running
run_test fallback-record t_fallback
run_test not-launched-steps t_not_launched
run_test summary-over-directory t_summary
run_test audit-svg t_svg
cluster_down
echo
suite_summary
