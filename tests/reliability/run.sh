#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Reliability and security of the stencil_map plugin on a real minicluster:
#
#   s-*  as ordinary users: records and hostfiles only where they belong,
#        never through a planted symbolic link or a foreign directory, spec
#        files read with the user's rights, root's side opening no user path
#   f-*  faults: record_dir missing or full, a node leaving the job before
#        or after planning, slurmctld restarted under running placed jobs,
#        SIGINT/SIGTERM to srun while it plans
#   l-*  load: 100 concurrent placed steps in 4 allocations, 20 concurrent
#        placed batch jobs; every rank checked against the plan, every
#        record accounted for; throughput and added latency printed
#
# Prints "ok NAME" / "FAIL NAME" and "N passed, M failed"; brings its
# cluster down whatever happens.  Creates the users stencilmap-u1 and
# stencilmap-u2 if they do not exist.
#
# env: MINICLUSTER_DIR (/var/lib/smc-rel), MINICLUSTER_PORT_BASE (24800),
#      REL_PREFIX (/var/lib/smc-rel-prefix), REL_BUILD_ROOT
#      (/var/lib/smc-rel-build), REL_WORK (/var/lib/smc-rel-work),
#      REL_SKIP_BUILD=1, REL_ONLY=REGEX, REL_STEPS (100), REL_JOBS (20),
#      REL_LOAD_ATTEMPTS (4: runs of a load batch hit by a slurmd death).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/smc-rel}
export MINICLUSTER_PORT_BASE=${MINICLUSTER_PORT_BASE:-24800}
PREFIX=${REL_PREFIX:-/var/lib/smc-rel-prefix}
WORK=${REL_WORK:-/var/lib/smc-rel-work}
MC=$TOP/contrib/minicluster/minicluster
SM=$PREFIX/bin/stencil-map
SO=$PREFIX/lib/slurm/stencil_map.so
RECORDS=$WORK/records
TASK=$WORK/task.sh
# (100: at 200, a CI machine under load timed out a third to 85 % of the
# launches, baseline and placed alike, batch after batch)
STEPS=${REL_STEPS:-100}
JOBS=${REL_JOBS:-20}
LOAD_ATTEMPTS=${REL_LOAD_ATTEMPTS:-4}
U1=stencilmap-u1
U2=stencilmap-u2
SUITE=reliability
ONLY=${REL_ONLY:-}
# shellcheck source=../lib/suite.sh
. "$TOP/tests/lib/suite.sh"

case "$PREFIX$WORK$MINICLUSTER_DIR" in *"/tmp/"* | /tmp*)
    echo "run.sh: REL_PREFIX, REL_WORK and MINICLUSTER_DIR must be outside /tmp" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: must run as root (users, mounts, the minicluster)" >&2; exit 2; }
for cmd in strace runuser useradd mount; do
    command -v "$cmd" >/dev/null || { echo "run.sh: FATAL: $cmd not found" >&2; exit 1; }
done

# as USER CMD...: a client command as an ordinary user, in that user's dir
as() { local u=$1; shift; (cd "$WORK/home/$u" && mc runuser -u "$u" -- "$@"); }

# A step placed as it should be: task lines against an independent plan.
placed_ok() { # SPEC OUT ERR N   (NO_RECORD=1 placed_ok ...: none expected)
    verify_run "$@" >"$WORK/verify.log" 2>&1 || { cat "$WORK/verify.log"; return 1; }
}

# No private directory left in DIR, no partial record anywhere.
no_leftovers() { # TMPDIR_USED
    local left
    left=$(find "$1" -maxdepth 1 -name 'stencil-map.*' 2>/dev/null)
    [ -z "$left" ] || { fail "private directories left behind: $left"; return 1; }
    left=$(find "$RECORDS" -name '.*.tmp' 2>/dev/null)
    [ -z "$left" ] || { fail "temporary record files left behind: $left"; return 1; }
    local f
    for f in $(find "$RECORDS" -name '*.json' 2>/dev/null); do
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" 2>/dev/null ||
            { fail "record $f is not complete JSON"; return 1; }
    done
}

newest_record() { # USER -> path of the newest record of USER
    ls -t "$RECORDS/$1"/*.json 2>/dev/null | head -1
}

# ------------------------------------------------------------ security ---
t_user_record() {
    as "$U1" salloc -N4 -n32 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err ||
        { fail "srun as $U1 failed"; cat err; return 1; }
    placed_ok auto:2d:5pt out err 32 || return 1
    local rec udir
    rec=$(awk 'NR == 1 { print $9 }' out)
    udir=$RECORDS/$U1
    [ "$(stat -c '%U %a' "$udir")" = "$U1 700" ] || { fail "$udir: $(stat -c '%U %a' "$udir"), want $U1 700"; return 1; }
    [ "$(stat -c '%U %a' "$rec")" = "$U1 600" ] || { fail "$rec: $(stat -c '%U %a' "$rec"), want $U1 600"; return 1; }
    [ "$(json_get "$rec" 'd["user"]')" = "$U1" ] || { fail "record user"; return 1; }
    echo "record $rec: owned by $U1, mode 600, in a 700 directory"
}

t_record_symlink() {
    local target=$WORK/planted-target
    rm -rf "$target" "${RECORDS:?}/$U2"
    mkdir -p "$target"
    chmod 777 "$target"
    ln -s "$target" "$RECORDS/$U2" # planted by someone else before U2's first job
    as "$U2" salloc -N4 -n32 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    grep -q "audit record not written: .*$U2: is a symbolic link; refusing to use it" err ||
        { fail "no refusal naming the link"; return 1; }
    [ -z "$(ls -A "$target")" ] || { fail "something was written through the link: $(ls -A "$target")"; return 1; }
    NO_RECORD=1 placed_ok auto:2d:5pt out err 32 || return 1
    rm -f "$RECORDS/$U2"
    echo "the planted link was refused; the step still ran placed"
}

t_record_foreign_dir() {
    rm -rf "${RECORDS:?}/$U2"
    mkdir "$RECORDS/$U2"
    chown "$U1" "$RECORDS/$U2"
    chmod 777 "$RECORDS/$U2"
    as "$U2" salloc -N4 -n32 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err ||
        { fail "srun failed"; cat err; return 1; }
    cat err
    grep -q "audit record not written: .*$U2: owned by uid $(id -u "$U1"), not by uid $(id -u "$U2")" err ||
        { fail "no refusal naming the owner"; return 1; }
    [ -z "$(ls -A "$RECORDS/$U2")" ] || { fail "written into $U1's directory: $(ls -A "$RECORDS/$U2")"; return 1; }
    rm -rf "${RECORDS:?}/$U2"
}

t_tmpdir_refused() { # KIND: symlink | open
    local home=$WORK/home/$U1 marker=$WORK/home/$U1/marker tmp
    rm -f "$marker"
    case $1 in
    symlink)
        rm -rf "$home/realtmp" "$home/tmplink"
        mkdir "$home/realtmp"
        ln -s "$home/realtmp" "$home/tmplink"
        chown -h "$U1" "$home/realtmp" "$home/tmplink"
        tmp=$home/tmplink ;;
    open) # root's, world-writable, no sticky bit: anyone could swap files
        rm -rf "$WORK/opentmp"
        mkdir -m 777 "$WORK/opentmp"
        tmp=$WORK/opentmp ;;
    esac
    if as "$U1" env TMPDIR="$tmp" salloc -N4 -n32 srun --stencil-map=auto:2d:5pt touch "$marker" >out 2>err; then
        fail "srun ran with TMPDIR=$tmp"; return 1
    fi
    cat err
    case $1 in
    symlink) grep -q "hostfile directory: $tmp: is a symbolic link; refusing" err || { fail "no refusal"; return 1; }
        [ -z "$(ls -A "$home/realtmp")" ] || { fail "written through the link"; return 1; } ;;
    open) grep -q "hostfile directory: $tmp: world-writable without the sticky bit" err || { fail "no refusal"; return 1; }
        [ -z "$(ls -A "$tmp")" ] || { fail "written into the open directory"; return 1; } ;;
    esac
    [ ! -e "$marker" ] || { fail "a task started"; return 1; }
    echo "TMPDIR=$tmp refused, nothing launched"
}

t_spec_unreadable() {
    local spec=$WORK/secret.json marker=$WORK/home/$U1/marker
    echo '{"grid": {"dims": [4, 8]}, "stencil": "5pt"}' >"$spec"
    chmod 600 "$spec" # root's
    rm -f "$marker"
    if as "$U1" salloc -N4 -n32 srun --stencil-map="$spec" touch "$marker" >out 2>err; then
        fail "srun read root's spec"; return 1
    fi
    cat err
    grep -q "spec file '$spec': cannot open: Permission denied" err || { fail "no permission error"; return 1; }
    [ ! -e "$marker" ] || { fail "a task started"; return 1; }
}

# root's side (slurmd, slurmstepd) never opens the user's spec, hostfile
# directory or record: traced across a placed step of the user's
t_remote_no_user_paths() {
    local home=$WORK/home/$U1 spec pids=() strace_pids=() i log
    spec=$home/traced-spec.json
    echo '{"grid": {"dims": [4, 8]}, "stencil": "9pt", "algorithm": "strips"}' >"$spec"
    chown "$U1" "$spec"
    mkdir -p "$home/tmp"
    chown "$U1" "$home/tmp"
    for ((i = 1; i <= 4; i++)); do pids+=("$(cat "$MINICLUSTER_DIR/run/slurmd-node$i.pid")"); done
    rm -f "$WORK"/strace.*
    for ((i = 0; i < 4; i++)); do
        strace -f -qq -e trace=open,openat,openat2,creat,truncate,rename,renameat2,link,linkat,unlink,unlinkat,mkdir,mkdirat \
            -o "$WORK/strace.node$((i + 1))" -p "${pids[$i]}" &
        strace_pids+=($!)
    done
    sleep 1
    as "$U1" env TMPDIR="$home/tmp" salloc -N4 -n32 srun --stencil-map="$spec" "$TASK" >out 2>err
    local rc=$?
    sleep 1
    for i in "${strace_pids[@]}"; do kill "$i" 2>/dev/null; done
    for i in "${strace_pids[@]}"; do wait "$i" 2>/dev/null; done
    [ $rc -eq 0 ] || { fail "srun failed"; cat err; return 1; }
    placed_ok "$spec" out err 32 || return 1
    log=$(cat "$WORK"/strace.node*)
    [ "$(echo "$log" | grep -c 'slurmstepd\|execve\|open')" -gt 0 ] || { fail "the trace saw nothing"; return 1; }
    echo "traced $(echo "$log" | wc -l) calls of slurmd/slurmstepd on 4 nodes"
    # (slurmstepd itself makes the job's TMPDIR for the tasks: Slurm's, not ours)
    if echo "$log" | grep -E "$spec|$home/tmp/stencil-map\.|$RECORDS" | head -5 | grep .; then
        fail "root's side touched a path of the user's"; return 1
    fi
    echo "none touches $spec, the private hostfile directory in $home/tmp or $RECORDS"
}

# ------------------------------------------------------------ faults -----
t_record_dir_missing() {
    plugstack
    sed -i "s|record_dir=[^ ]*|record_dir=$WORK/no-such-dir|" "$MINICLUSTER_DIR/etc/plugstack.conf"
    mc salloc -N4 -n32 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err || { fail "srun failed"; cat err; return 1; }
    plugstack
    cat err
    grep -q "WARNING: audit record not written: $WORK/no-such-dir: No such file or directory" err ||
        { fail "no warning naming the missing directory"; return 1; }
    NO_RECORD=1 placed_ok auto:2d:5pt out err 32
}

t_record_dir_full() {
    local full=$WORK/fullrec
    mkdir -p "$full"
    mount -t tmpfs -o size=64k,mode=1777 stencilmap-full "$full" || { fail "cannot mount a tmpfs"; return 1; }
    mkdir -m 700 "$full/root"
    dd if=/dev/zero of="$full/root/filler" bs=4k count=100 2>/dev/null # fills it: ENOSPC
    plugstack
    sed -i "s|record_dir=[^ ]*|record_dir=$full|" "$MINICLUSTER_DIR/etc/plugstack.conf"
    mc salloc -N4 -n32 srun --stencil-map=auto:2d:5pt "$TASK" >out 2>err
    local rc=$?
    plugstack
    local files
    files=$(ls -A "$full/root" | grep -v '^filler$')
    umount "$full"
    [ $rc -eq 0 ] || { fail "srun failed"; cat err; return 1; }
    cat err
    grep -q "WARNING: audit record not written: .*No space left on device" err || { fail "no warning about the full disk"; return 1; }
    [ -z "$files" ] || { fail "partial files left in the full record directory: $files"; return 1; }
    NO_RECORD=1 placed_ok auto:2d:5pt out err 32 || return 1
    echo "record_dir full: warned, no partial record, the step ran placed"
}

# A node fails in a --no-kill job: the job shrinks, SLURM_JOB_NODELIST does
# not.  The plan must not use the lost node: fail (default) or blocked.
t_node_lost_before_plan() { # on_error
    plugstack on_error="$1"
    cat >lost.sh <<SH
#!/bin/bash
scontrol update nodename=node3 state=down reason=stencilmap-test
for i in \$(seq 50); do scontrol show job \$SLURM_JOB_ID | grep -q ' NodeList=node\[1-2,4\]' && break; sleep 0.2; done
srun -n24 --stencil-map=auto:2d:5pt $TASK >$WORK/lost.out 2>$WORK/lost.err
echo "srun rc=\$?"
scontrol update nodename=node3 state=resume
SH
    chmod +x lost.sh
    mc salloc -k -N4 -n32 ./lost.sh >out 2>err
    plugstack
    cat out lost.err
    local rec
    rec=$(newest_record root)
    case $1 in
    fail)
        grep -q 'srun rc=0' out && { fail "srun launched on a plan with a lost node"; return 1; }
        grep -q "the allocation changed: job [0-9]* no longer has node3" lost.err || { fail "no message naming node3"; return 1; }
        [ ! -s lost.out ] || { fail "tasks ran"; return 1; }
        [ "$(json_get "$rec" 'd["launched"]')" = false ] || { fail "record does not say 'not launched'"; return 1; }
        json_get "$rec" 'd["error"]' | grep -q 'no longer has node3' || { fail "record error"; return 1; } ;;
    blocked)
        grep -q 'srun rc=0' out || { fail "the fallback launch failed"; return 1; }
        grep -q "launching WITHOUT stencil placement" lost.err || { fail "no fallback warning"; return 1; }
        [ "$(grep -cE '^[0-9]+ ' lost.out)" -eq 24 ] || { fail "24 tasks expected"; return 1; }
        grep -q ' node3 ' lost.out && { fail "a task ran on the lost node"; return 1; }
        json_get "$rec" 'd["fallback"]["reason"]' | grep -q 'no longer has node3' || { fail "record fallback reason"; return 1; } ;;
    esac
    echo "record $rec: launched=$(json_get "$rec" 'd["launched"]') error=$(json_get "$rec" 'd["error"]')"
    no_leftovers /tmp
}

# The node fails after the plan was made, before srun creates the step:
# srun's step creation fails (Slurm's message), nothing runs, nothing hangs,
# and the record says the step was never launched.  The window is widened
# by strace delaying the private directory's mkdir.
t_node_lost_after_plan() {
    plugstack
    cat >lost2.sh <<SH
#!/bin/bash
strace -f -qq -o /dev/null -e trace=mkdir -e inject=mkdir:delay_exit=3000000 \
    srun --stencil-map=auto:2d:5pt $TASK >$WORK/lost2.out 2>$WORK/lost2.err &
sp=\$!
sleep 1
scontrol update nodename=node3 state=down reason=stencilmap-test
wait \$sp
echo "srun rc=\$?"
scontrol update nodename=node3 state=resume
SH
    chmod +x lost2.sh
    local t0=$SECONDS
    mc salloc -k -N4 -n32 ./lost2.sh >out 2>err
    cat out lost2.err
    [ $((SECONDS - t0)) -lt 60 ] || { fail "took $((SECONDS - t0)) s"; return 1; }
    grep -q 'srun rc=0' out && { fail "srun reported success"; return 1; }
    [ "$(grep -cE '^[0-9]+ ' lost2.out)" -eq 0 ] || { fail "tasks ran"; return 1; }
    local rec
    rec=$(newest_record root)
    [ "$(json_get "$rec" 'd["launched"]')" = false ] || { fail "record $rec does not say 'not launched'"; return 1; }
    echo "record $rec: launched=false, $(json_get "$rec" 'd["error"]')"
    no_leftovers /tmp
}

# Placed jobs survive a slurmctld restart in the middle of their steps.
t_ctld_restart() {
    cat >slow.sh <<SH
#!/bin/sh
$TASK
sleep 8
SH
    chmod +x slow.sh
    local j ids=()
    rm -f restart.*.out
    for j in 1 2 3; do
        cat >restart-job.sh <<SH
#!/bin/sh
srun $WORK/slow.sh >$WORK/restart.\$SLURM_JOB_ID.out 2>$WORK/restart.\$SLURM_JOB_ID.err
SH
        ids+=("$(mc sbatch --parsable -N4 -n8 -o /dev/null --stencil-map=auto:2d:5pt restart-job.sh)") ||
            { fail "sbatch failed"; return 1; }
    done
    # wait until every step runs, then restart the controller under them
    local i
    for ((i = 0; i < 100; i++)); do
        [ "$(cat restart.*.out 2>/dev/null | wc -l)" -eq 24 ] && break
        sleep 0.3
    done
    "$MC" restart-ctld || { fail "restart failed"; return 1; }
    for ((i = 0; i < 120; i++)); do
        mc squeue -h -j "$(IFS=,; echo "${ids[*]}")" 2>/dev/null | grep -q . || break
        sleep 0.5
    done
    for j in "${ids[@]}"; do
        local state
        state=$(mc scontrol show job "$j" 2>/dev/null | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')
        [ -z "$state" ] || [ "$state" = COMPLETED ] || { fail "job $j: $state"; return 1; }
        placed_ok auto:2d:5pt "restart.$j.out" "restart.$j.err" 8 || { fail "job $j"; return 1; }
        [ -f "$RECORDS/root/$j.0.json" ] || { fail "record of job $j missing"; return 1; }
    done
    echo "3 placed jobs ran through a slurmctld restart, ranks on their planned nodes, records complete"
}

# SIGINT/SIGTERM while srun plans (widened by strace).  srun blocks these
# signals before it loads plugins (init_srun) and acts on them once the
# step exists: SIGINT then only reports, SIGTERM ends the step.  Either way
# srun must end in bounded time, leaving no private directory and no
# partial record behind.
t_signal_while_planning() { # SIG
    cat >sig.sh <<SH
#!/bin/bash
strace -f -qq -o /dev/null -e trace=mkdir -e inject=mkdir:delay_exit=2000000 \
    srun --stencil-map=auto:2d:5pt sleep 2 >$WORK/sig.out 2>$WORK/sig.err &
sp=\$!
sleep 0.7
kill -$1 \$(ps -o pid= --ppid \$sp)
t0=\$(date +%s%N)
wait \$sp
echo "srun rc=\$? after \$(( (\$(date +%s%N) - t0) / 1000000 )) ms"
SH
    chmod +x sig.sh
    mc salloc -N4 -n32 ./sig.sh >out 2>err
    cat out sig.err
    local ms
    ms=$(sed -n 's/.* after \([0-9]*\) ms/\1/p' out)
    [ -n "$ms" ] && [ "$ms" -lt 15000 ] || { fail "srun took ${ms:-?} ms to end"; return 1; }
    case $1 in
    INT) grep -q 'srun: interrupt' sig.err || { fail "srun did not see the SIGINT"; return 1; } ;;
    TERM) grep -q 'srun: forcing job termination' sig.err || { fail "srun did not see the SIGTERM"; return 1; } ;;
    esac
    no_leftovers /tmp || return 1
    echo "SIG$1 while planning: srun ended $ms ms later, nothing left behind"
}

# SIGINT at random moments of 20 placed sruns
t_signal_random() {
    cat >sigr.sh <<SH
#!/bin/bash
for i in \$(seq 20); do
    srun --stencil-map=auto:2d:5pt true >/dev/null 2>&1 &
    sp=\$!
    sleep 0.\$((RANDOM % 40))
    kill -INT \$sp 2>/dev/null
    wait \$sp
done
echo done
SH
    chmod +x sigr.sh
    mc salloc -N4 -n32 ./sigr.sh >out 2>err || { fail "loop failed"; cat err; return 1; }
    grep -q done out || { fail "loop did not finish"; return 1; }
    no_leftovers /tmp
}

# ------------------------------------------------------------ load -------
# STEPS concurrent placed steps in 4 allocations (overlapping); every rank
# is checked against the plan.  The baseline launches the same steps the
# same way, with Slurm's arbitrary distribution, from a blocked hostfile
# given by hand and without the plugin's work, before and after, so that
# neither the order of the batches nor Slurm's distribution passes for the
# plugin's cost.  (Slurm's default distribution is not the baseline: with
# it, 22.05.8's slurmd died of heap corruption in several such batches, with
# or without this plugin.)
# slurmd 22.05.8 dies now and then under these bursts, of heap corruption
# in libc (glibc's "double free or corruption", "unaligned tcache chunk",
# or a plain segfault in libc.so), with or without this plugin: also in the
# baseline batches, whose steps do not use it.  The nodes whose slurmd is
# gone, by the pids slurmd wrote:
dead_slurmds() {
    local f pid
    for f in "$MINICLUSTER_DIR"/run/native/slurmd-node*.pid; do
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        kill -0 "$pid" 2>/dev/null || { f=${f##*/slurmd-}; echo "${f%.pid}"; }
    done
}

# load_batch MODE: the 4 allocations of one batch at once; sets wall (ms).
# A batch in which some step failed while a slurmd died is run again on a
# restarted cluster, and says so (up to LOAD_ATTEMPTS runs in all: such a
# death came in about one batch of five in recent runs), and so is one
# whose only failures are launches that timed out; any other failing step
# fails the test.
load_batch() {
    local mode=$1 spec attempt a dead t0 n_ok timed_out
    spec=$([ "$mode" = placed ] && echo auto:2d:5pt || echo none)
    for ((attempt = 1; attempt <= LOAD_ATTEMPTS; attempt++)); do
        rm -f load/"$mode".* load/salloc."$mode".*
        t0=$(date +%s%N)
        for a in 1 2 3 4; do
            mc env MODE="$mode" SPEC="$spec" salloc -N4 --ntasks-per-node=16 ./steps.sh \
                >"load/salloc.$mode.$a.out" 2>&1 &
        done
        wait
        wall=$((($(date +%s%N) - t0) / 1000000))
        n_ok=$(cat load/"$mode".*.time 2>/dev/null | awk '$1 == 0' | wc -l)
        [ "$n_ok" -eq "$STEPS" ] && return 0
        dead=$(dead_slurmds | tr '\n' ' ')
        if [ "$attempt" -lt "$LOAD_ATTEMPTS" ] && [ -n "$dead" ]; then
            echo "note: $mode batch: $n_ok of $STEPS steps ran; slurmd died on: $dead(Slurm 22.05.8's heap corruption)"
            tail -n 1 "$MINICLUSTER_DIR"/log/slurmd-node*.out | grep -E 'double free|corrupt|tcache|free\(\)|malloc' |
                sort | uniq -c | sed 's/^ */note:   /'
            echo "note: cluster restarted, $mode batch run again"
            cluster_up 16 16
            continue
        fi
        # 100 steps at once on 16 slurmd and 2 shared cores: on a loaded
        # machine some launches outlast MessageTimeout ("Task launch ...
        # failed on node ...: Socket timed out"), baseline and placed alike
        # (seen once in 2,000 baseline steps, while a build ran beside).
        # Such a batch is run again and says so; any other failure stands.
        timed_out=$(grep -l 'Socket timed out' load/"$mode".*.err 2>/dev/null | wc -l)
        if [ "$attempt" -lt "$LOAD_ATTEMPTS" ] && [ "$timed_out" -gt 0 ] &&
            [ $((STEPS - n_ok)) -eq "$timed_out" ]; then
            echo "note: $mode batch: $n_ok of $STEPS steps ran; $timed_out launches timed out (machine loaded); batch run again"
            continue
        fi
        return 0 # the caller's checks report what failed
    done
}

t_load_steps() {
    local per=$((STEPS / 4)) a
    cat >steps.sh <<SH
#!/bin/bash
# run $per steps at once in this allocation; MODE is placed, or hostfile*
ms() { echo \$(( \$(date +%s%N) / 1000000 )); }
if [ "\$MODE" != placed ]; then
    "$SM" plan auto:2d:5pt --nodes "\$SLURM_JOB_NODELIST" --slots 4 --ranks 16 --algorithm blocked \\
        --hostfile $WORK/load/blocked.\$SLURM_JOB_ID >/dev/null || exit 1
    export SLURM_HOSTFILE=$WORK/load/blocked.\$SLURM_JOB_ID
fi
for i in \$(seq $per); do
    (t0=\$(ms)
     srun --overlap -n16 --ntasks-per-node=4 --stencil-map=\$SPEC $TASK >$WORK/load/\$MODE.\$SLURM_JOB_ID.\$i.out 2>$WORK/load/\$MODE.\$SLURM_JOB_ID.\$i.err
     echo "\$? \$(( \$(ms) - t0 ))" >$WORK/load/\$MODE.\$SLURM_JOB_ID.\$i.time) &
done
wait
SH
    chmod +x steps.sh
    rm -rf load
    mkdir load
    local mode wall wall_placed wall_none=0
    for mode in hostfile placed hostfile2; do
        load_batch $mode || return 1
        [ $mode = placed ] && wall_placed=$wall || wall_none=$((wall_none + wall / 2))
    done
    local n_ok bad
    n_ok=$(cat load/placed.*.time | awk '$1 == 0' | wc -l)
    [ "$n_ok" -eq "$STEPS" ] || { fail "$n_ok of $STEPS placed steps succeeded"; grep -l . load/placed.*.err | head -3 | xargs cat; return 1; }
    [ "$(cat load/hostfile*.time | awk '$1 == 0' | wc -l)" -eq $((2 * STEPS)) ] || { fail "baseline steps failed"; return 1; }
    # every rank of every placed step on its planned node (one plan per
    # allocation: each has its own four nodes)
    bad=0
    local f nodes
    for f in load/placed.*.out; do
        nodes=$(awk 'NR == 1 { print $6 }' "$f")
        [ -f "load/expected.$nodes" ] ||
            "$SM" plan auto:2d:5pt --nodes "$nodes" --slots 4 --ranks 16 --hostfile "load/expected.$nodes" >/dev/null ||
            return 1
        sort -n "$f" | awk '{ print $2 }' | cmp -s - "load/expected.$nodes" || { bad=$((bad + 1)); echo "misplaced: $f"; }
    done
    [ "$bad" -eq 0 ] || { fail "$bad steps not placed as planned"; return 1; }
    # one complete record per step, each naming its own job and step
    local recs
    recs=$(python3 - "$RECORDS/root" load <<'PY'
import glob, json, os, sys
rec_dir, load = sys.argv[1], sys.argv[2]
jobs = {os.path.basename(f).split('.')[1] for f in glob.glob(load + '/placed.*.out')}
n = 0
for f in glob.glob(rec_dir + '/*.json'):
    d = json.load(open(f))
    if str(d['job_id']) in jobs:
        name = os.path.basename(f)
        assert name.startswith('%d.%d' % (d['job_id'], d['step_id'])), f
        assert d['launched'] and len(d['placement']) == 16, f
        n += 1
print(n)
PY
) || { fail "a record is malformed"; return 1; }
    [ "$recs" -eq "$STEPS" ] || { fail "$recs records for $STEPS steps"; return 1; }
    python3 - load "$RECORDS/root" "$wall_placed" "$wall_none" "$STEPS" <<'PY'
import glob, json, sys
load, rec_dir, wall_p, wall_n, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def pct(v, q):
    v = sorted(v); return v[min(len(v) - 1, int(q * len(v)))]
tp = [int(open(f).read().split()[1]) for f in glob.glob(load + '/placed.*.time')]
tn = [int(open(f).read().split()[1]) for f in glob.glob(load + '/hostfile*.time')]
jobs = {f.split('.')[-3] for f in glob.glob(load + '/placed.*.out')}
recs = [json.load(open(f)) for f in glob.glob(rec_dir + '/*.json')]
recs = [d for d in recs if str(d['job_id']) in jobs]
plan = [d['plugin_ms'] for d in recs]
check = [d['alloc_check_ms'] for d in recs]
cpu = [d['plugin_cpu_ms'] for d in recs]
print("load: %d concurrent steps of 16 ranks in 4 allocations of 4 nodes" % steps)
print("  placed:   %.1f steps/s (%d ms), srun wall p50 %d ms p99 %d ms" % (steps * 1000 / wall_p, wall_p, pct(tp, .5), pct(tp, .99)))
print("  baseline, blocked hostfile without the plugin (before and after): %.1f steps/s (%d ms each), srun wall p50 %d ms p99 %d ms" % (steps * 1000 / wall_n, wall_n, pct(tn, .5), pct(tn, .99)))
print("  added srun wall time p50 %+d ms, p99 %+d ms" % (pct(tp, .5) - pct(tn, .5), pct(tp, .99) - pct(tn, .99)))
print("  time srun spent in the plugin (records' plugin_ms) p50 %.2f ms, p99 %.2f ms" % (pct(plan, .5), pct(plan, .99)))
print("    of which waiting for slurmctld's allocation lookup p50 %.2f ms, p99 %.2f ms" % (pct(check, .5), pct(check, .99)))
print("    CPU time of the plugin's path p50 %.2f ms, p99 %.2f ms (the rest is waiting for a core)" % (pct(cpu, .5), pct(cpu, .99)))
PY
    echo "all $STEPS steps placed as planned, $recs records, none lost"
}

# JOBS concurrent batch jobs, each placing one step
t_load_sbatch() {
    cat >lj.sh <<SH
#!/bin/sh
srun $TASK >$WORK/lj/\$SLURM_JOB_ID.out 2>$WORK/lj/\$SLURM_JOB_ID.err
SH
    chmod +x lj.sh
    rm -rf lj
    mkdir lj
    local j t0
    t0=$(date +%s%N)
    for ((j = 0; j < JOBS; j++)); do
        mc sbatch -W -N4 -n16 --ntasks-per-node=4 -o /dev/null --stencil-map=strips:2d:5pt lj.sh >"lj/sbatch.$j" 2>&1 &
    done
    wait
    local wall=$((($(date +%s%N) - t0) / 1000000))
    [ "$(ls lj/*.out 2>/dev/null | wc -l)" -eq "$JOBS" ] || { fail "$(ls lj/*.out | wc -l) of $JOBS jobs ran"; cat lj/sbatch.*; return 1; }
    local f id nodes bad=0
    for f in lj/*.out; do
        id=$(basename "$f" .out)
        nodes=$(awk 'NR == 1 { print $6 }' "$f")
        [ -f "lj/expected.$nodes" ] ||
            "$SM" plan strips:2d:5pt --nodes "$nodes" --slots 4 --ranks 16 --hostfile "lj/expected.$nodes" >/dev/null ||
            return 1
        sort -n "$f" | awk '{ print $2 }' | cmp -s - "lj/expected.$nodes" || { bad=$((bad + 1)); echo "misplaced: job $id"; }
        [ "$(json_get "$RECORDS/root/$id.0.json" 'd["job_id"]')" = "$id" ] || { bad=$((bad + 1)); echo "record of job $id"; }
    done
    [ "$bad" -eq 0 ] || { fail "$bad jobs wrong"; return 1; }
    echo "load: $JOBS concurrent sbatch jobs in $wall ms, every rank placed as planned, $JOBS records"
}

# ------------------------------------------------------------ main -------
mkdir -p "$WORK/logs" "$RECORDS" "$WORK/home"
chmod 755 "$WORK" "$WORK/home"
chmod 1777 "$RECORDS"
rm -rf "${RECORDS:?}"/* "$WORK"/logs/* "$WORK"/verify.*
cp "$TOP/tests/integration/task.sh" "$TASK"
chmod 755 "$TASK"
for u in "$U1" "$U2"; do
    id "$u" >/dev/null 2>&1 || useradd -M -d "$WORK/home/$u" -s /bin/sh "$u" ||
        { echo "run.sh: FATAL: cannot create user $u" >&2; exit 1; }
    mkdir -p "$WORK/home/$u"
    chown "$u" "$WORK/home/$u"
    chmod 755 "$WORK/home/$u"
done

if [ "${REL_SKIP_BUILD:-0}" != 1 ]; then
    SMC_BUILD_ROOT=${REL_BUILD_ROOT:-/var/lib/smc-rel-build} "$TOP/tests/integration/build.sh" "$PREFIX" ||
        { echo "run.sh: FATAL: build failed" >&2; exit 1; }
fi
[ -f "$SO" ] && [ -x "$SM" ] || { echo "run.sh: FATAL: $SO or $SM missing" >&2; exit 1; }
chmod 755 "$PREFIX" "$PREFIX"/* 2>/dev/null

echo "== security and faults: 4 nodes x 8 CPUs"
cluster_up 8
run_test s-user-record t_user_record
run_test s-record-symlink-refused t_record_symlink
run_test s-record-foreign-dir-refused t_record_foreign_dir
run_test s-tmpdir-symlink-refused t_tmpdir_refused symlink
run_test s-tmpdir-open-refused t_tmpdir_refused open
run_test s-spec-unreadable t_spec_unreadable
run_test s-remote-opens-no-user-path t_remote_no_user_paths
run_test f-record-dir-missing t_record_dir_missing
run_test f-record-dir-full t_record_dir_full
run_test f-node-lost-before-plan-fail t_node_lost_before_plan fail
run_test f-node-lost-before-plan-blocked t_node_lost_before_plan blocked
run_test f-node-lost-after-plan t_node_lost_after_plan
run_test f-ctld-restart t_ctld_restart
run_test f-sigint-while-planning t_signal_while_planning INT
run_test f-sigterm-while-planning t_signal_while_planning TERM
run_test f-sigint-random t_signal_random

# 16 nodes, so that each slurmd launches the steps of one allocation:
# Slurm 22.05.8's slurmd corrupts its heap and dies ("unaligned tcache
# chunk") after some hundreds of concurrent step launches, with or without
# this plugin loaded (reproduced with an empty plugstack)
echo "== load: 16 nodes x 16 CPUs"
cluster_up 16 16
run_test l-concurrent-steps t_load_steps
run_test l-concurrent-sbatch t_load_sbatch
grep -h '^  \|^load:\|^note:' "$WORK/logs/l-concurrent-steps.log" "$WORK/logs/l-concurrent-sbatch.log" 2>/dev/null
cluster_down

suite_summary
