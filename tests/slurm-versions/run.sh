#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The minicluster suites on another Slurm release: builds that release from
# Debian's source package (or reuses its build, contrib/slurm/build-slurm.sh),
# builds stencilmap against it (configure --with-slurm=/opt/slurm/VERSION),
# starts minicluster nodes of that release and runs the suites there.  Ends
# with one "N passed, M failed" line over them.
#
# usage: run.sh VERSION [SUITE...]    SUITE: integration injob audit learned
#                                      topology (default: all but learned)
#        run.sh PREFIX [SUITE...]     a Slurm already installed in PREFIX
#                                      (e.g. a site's own build): nothing
#                                      is built but stencilmap
# env:   SLURM_PREFIX_ROOT (default /opt/slurm), SMC_VERSIONS_ROOT (state,
#        builds and work of these runs; default /var/lib/smc-slurm),
#        SMC_VERSIONS_PORT_BASE (the minicluster's port base; default one
#        per release, 20800 + 1000 x (major mod 3)), so that a second run
#        beside CI's can keep clear of its ports and directories
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

[ $# -ge 1 ] || { echo "usage: $0 VERSION|PREFIX [integration|injob|audit|learned|topology ...]" >&2; exit 2; }
version=$1
slurm=""
shift
if [[ $version == /* ]]; then
    slurm=${version%/}
    for f in bin/srun sbin/slurmctld sbin/slurmd include/slurm/spank.h include/slurm/slurm_version.h; do
        [ -e "$slurm/$f" ] || { echo "$0: $slurm holds no Slurm: $slurm/$f missing" >&2; exit 2; }
    done
    n=$(sed -n 's/^#define SLURM_VERSION_NUMBER *//p' "$slurm/include/slurm/slurm_version.h")
    version=$(printf '%d.%02d.%d' $((n >> 16)) $(((n >> 8) & 255)) $((n & 255)))
fi
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(integration injob audit topology)
for s in "${suites[@]}"; do
    case $s in integration | injob | audit | learned | topology) ;; *) echo "$0: unknown suite '$s'" >&2; exit 2 ;; esac
done
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "$0: VERSION must look like 24.11.5" >&2; exit 2; }
built_here=0
[ -n "$slurm" ] || { slurm=${SLURM_PREFIX_ROOT:-/opt/slurm}/$version; built_here=1; }
base=${SMC_VERSIONS_ROOT:-/var/lib/smc-slurm}/$version
case $base in /tmp/*) echo "$0: SMC_VERSIONS_ROOT must be outside /tmp" >&2; exit 2 ;; esac
mkdir -p "$base"

echo "== Slurm $version ($slurm)"
start=$SECONDS
if [ "$built_here" = 1 ]; then
    if ! "$top/contrib/slurm/build-slurm.sh" "$version"; then
        echo "slurm-versions: FATAL: Slurm $version could not be built"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "slurm-versions: Slurm $version ready in $((SECONDS - start)) s ($(head -n1 "$slurm/.stencilmap-build"))"
fi

# One build of stencilmap for every suite (the same prefix and build
# root: the later suites only check that it is up to date); a port range
# and state directory of its own per release.  Ports stay below 32768,
# where Linux's ephemeral ports begin, and clear of the other suites'.
ports=${SMC_VERSIONS_PORT_BASE:-$((20800 + 1000 * ($(echo "$version" | cut -d. -f1) % 3)))}
[[ $ports =~ ^[0-9]+$ ]] && [ "$ports" -ge 1024 ] && [ "$ports" -le 32000 ] ||
    { echo "$0: SMC_VERSIONS_PORT_BASE must be an integer 1024..32000 (got '$ports')" >&2; exit 2; }
export SMC_SLURM=$slurm MINICLUSTER_SLURM=$slurm
common=(MINICLUSTER_DIR="$base/mc" MINICLUSTER_PORT_BASE="$ports")
passed=0
failed=0
for s in "${suites[@]}"; do
    log=$base/$s.log
    t0=$SECONDS
    echo "== Slurm $version: $s"
    case $s in
        integration)
            env "${common[@]}" SMC_PREFIX="$base/prefix" SMC_BUILD_ROOT="$base/build" \
                SMC_WORK="$base/work-integration" "$top/tests/integration/run.sh" 2>&1 | tee "$log" ;;
        injob)
            env "${common[@]}" INJOB_PREFIX="$base/prefix" INJOB_BUILD_ROOT="$base/build" \
                INJOB_WORK="$base/work-injob" "$top/tests/injob/run.sh" 2>&1 | tee "$log" ;;
        audit)
            env "${common[@]}" AUDIT_PREFIX="$base/prefix" AUDIT_BUILD_ROOT="$base/build" \
                AUDIT_WORK="$base/work-audit" "$top/tests/audit/run.sh" 2>&1 | tee "$log" ;;
        topology)
            env "${common[@]}" TOPO_PREFIX="$base/prefix" TOPO_BUILD_ROOT="$base/build" \
                TOPO_WORK="$base/work-topology" "$top/tests/topology/run.sh" 2>&1 | tee "$log" ;;
        learned)
            env "${common[@]}" LEARNED_PREFIX="$base/prefix" LEARNED_BUILD_ROOT="$base/build" \
                LEARNED_WORK="$base/work-learned" "$top/tests/learned/run.sh" 2>&1 | tee "$log" ;;
    esac
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
    if [ -z "$line" ]; then
        echo "slurm-versions: $s on $version ended without a summary (exit $rc)"
        failed=$((failed + 1))
        continue
    fi
    p=${line%% passed*}
    f=${line#* passed, }
    f=${f%% failed*}
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    passed=$((passed + p))
    failed=$((failed + f))
    echo "== Slurm $version: $s: $p passed, $f failed ($((SECONDS - t0)) s)"
done
echo "slurm-versions: Slurm $version, suites ${suites[*]}: $((SECONDS - start)) s in all"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
