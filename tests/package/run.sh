#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages, built and installed as a site would: dpkg-buildpackage
# -us -uc -b on a copy of the tree (its make check included), lintian
# without errors, dpkg -i of the result, then the installed files, the
# exact Slurm dependency, no MPI dependency outside the MPI packages, the
# exported symbols of the installed plugin, the installed commands, and
# the in-application libraries under mpirun and mpiexec (mpi.sh) checked.
# Ends with "N passed, M failed".
#
# Needs root (dpkg -i) and debhelper, lintian (contrib/install-deps.sh).
# Environment:
#   PKG_WORK=DIR   where the tree is copied and the packages land
#                  (default: a new directory under /var/tmp; kept)
#   PKG_SMOKE=1    also place a step with the installed plugin on a
#                  minicluster (MINICLUSTER_DIR, default
#                  /var/lib/stencilmap-package-mc; MINICLUSTER_PORT_BASE),
#                  and reorder a grid over its nodes with the installed
#                  preload library under mpirun
#   PKG_PURGE=1    remove the packages again at the end (default: leave them
#                  installed)
#   PKG_NOCHECK=1  build with DEB_BUILD_OPTIONS=nocheck: no make check in
#                  the build (tests/run-all.sh: the same commit's tests ran
#                  in its make distcheck); every check here stays
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
grep -q "AC_INIT(\[stencilmap\]" "$top/configure.ac" 2>/dev/null ||
    { echo "$0: $top is not a stencilmap source tree" >&2; exit 2; }
work=${PKG_WORK:-$(mktemp -d /var/tmp/stencilmap-pkg.XXXXXX)}
mkdir -p "$work"
. "$top/tests/lib/checks.sh"
finish() {
    echo "package: work directory $work"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}

if [ "$(id -u)" -ne 0 ]; then
    check FAIL "running as root (dpkg -i needs it)"
    finish
fi
for tool in dpkg-buildpackage dh lintian; do
    command -v $tool >/dev/null 2>&1 && r=OK || r=FAIL
    check $r "$tool is installed" "run contrib/install-deps.sh"
done
[ "$fail" -eq 0 ] || finish

# ---- build -----------------------------------------------------------------
# a copy of what git tracks (a release tarball is copied whole), so the
# build leaves the tree as it was
src=$work/src
rm -rf "$src" && mkdir -p "$src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$top" ls-files -z | tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -
else
    cp -a "$top/." "$src/"
fi
version=$(sed -n 's/^AC_INIT(\[stencilmap\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")
debversion=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
rm -f "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo
what="make check included"
if [ "${PKG_NOCHECK:-0}" = 1 ]; then
    export DEB_BUILD_OPTIONS="nocheck${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}"
    what="DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS"
fi
start=$(date +%s)
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
[ $rc -eq 0 ] && r=OK || r=FAIL
check $r "dpkg-buildpackage -us -uc -b ($what) in ${secs}s" \
    "exit $rc, see $work/build.log: $(tail -n 3 "$work/build.log" | tr '\n' ' ')"
[ $rc -eq 0 ] || finish
pkgs=(stencilmap libstencilmap0 libstencilmap-placement0 libstencilmap-dev
    libstencilmap-mpix0 libstencilmap-mpix-dev stencilmap-reorder)
debs=()
for p in "${pkgs[@]}"; do
    f=$work/${p}_${debversion}_${arch}.deb
    [ -f "$f" ] && r=OK || r=FAIL
    check $r "built $(basename "$f") ($(stat -c %s "$f" 2>/dev/null || echo 0) bytes)"
    debs+=("$f")
done

# MPI only where the in-application libraries are: the plugin, the commands
# and the PMIx library install on a node with no MPI
mpi_re='openmpi|mpich|libmpi|mpi-default'
for p in stencilmap libstencilmap0 libstencilmap-placement0 libstencilmap-dev; do
    deps=$(dpkg-deb -f "$work/${p}_${debversion}_${arch}.deb" Depends 2>/dev/null)
    echo "$deps" | grep -q -E "$mpi_re" && r=FAIL || r=OK
    check $r "$p depends on no MPI (dpkg -I)" "$deps"
done
depends_on() { # PACKAGE DEPENDENCY-PREFIX: the MPI a library package was built with
    deps=$(dpkg-deb -f "$work/${1}_${debversion}_${arch}.deb" Depends 2>/dev/null)
    echo "$deps" | grep -q -E "(^|[ ,])$2" && r=OK || r=FAIL
    check $r "$1 depends on $2* (the MPI it was built with)" "$deps"
}
depends_on libstencilmap-mpix0 libopenmpi
depends_on stencilmap-reorder libopenmpi
depends_on stencilmap-reorder libmpich

# ---- lintian -------------------------------------------------------------------
lintian --tag-display-limit 0 "$work/stencilmap_${debversion}_${arch}.changes" >"$work/lintian.log" 2>&1
errors=$(grep -c '^E:' "$work/lintian.log")
warnings=$(grep -c '^W:' "$work/lintian.log")
[ "$errors" -eq 0 ] && r=OK || r=FAIL
check $r "lintian: $errors errors, $warnings warnings" "$(grep '^E:' "$work/lintian.log" | head -n 5)"

# ---- dpkg -i -------------------------------------------------------------------
dpkg -i "${debs[@]}" >"$work/install.log" 2>&1
rc=$?
[ $rc -eq 0 ] && r=OK || r=FAIL
check $r "dpkg -i of the ${#pkgs[@]} packages" "$(tail -n 5 "$work/install.log")"
for p in "${pkgs[@]}"; do
    [ "$(dpkg-query -W -f='${Status} ${Version}' $p 2>/dev/null)" = "install ok installed $debversion" ] &&
        r=OK || r=FAIL
    check $r "$p $debversion is installed"
done

# ---- what landed -----------------------------------------------------------------
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
plugin=/usr/lib/$triplet/slurm-wlm/stencil_map.so
for f in /usr/bin/stencil-map /usr/bin/stencil-map-verify "$plugin" \
    /etc/slurm/plugstack.conf.d/stencil_map.conf /usr/libexec/stencilmap/hydra-srun \
    /usr/share/man/man1/stencil-map.1.gz /usr/share/man/man1/stencil-map-verify.1.gz \
    /usr/share/man/man8/stencil_map.8.gz /usr/share/man/man3/stencilmap.h.3.gz \
    /usr/share/stencilmap/specs/jacobi2d.json /usr/share/doc/stencilmap/copyright \
    /usr/lib/$triplet/libstencilmap.so.0 /usr/lib/$triplet/libstencilmap-placement.so.0 \
    /usr/include/stencilmap.h /usr/include/stencilmap/placement.h \
    /usr/lib/$triplet/pkgconfig/stencilmap.pc; do
    [ -e "$f" ] && r=OK || r=FAIL
    check $r "installed $f"
done
grep -q -E '^[[:space:]]*[^#[:space:]]' /etc/slurm/plugstack.conf.d/stencil_map.conf && r=FAIL || r=OK
check $r "the plugstack.conf.d snippet is all comments (installing changes no srun)"
dpkg-query -W -f='${Conffiles}\n' stencilmap | grep -q /etc/slurm/plugstack.conf.d/stencil_map.conf &&
    r=OK || r=FAIL
check $r "the snippet is a conffile (a site's edits survive upgrades)"

# the plugin depends on exactly the Slurm it was built for
slurm=$(dpkg-query -W -f='${Version}' libslurm-dev 2>/dev/null)
deps=$(dpkg-query -W -f='${Depends}' stencilmap)
case "$deps" in
*"slurm-wlm-basic-plugins (= $slurm)"*) r=OK ;;
*) r=FAIL ;;
esac
check $r "stencilmap depends on slurm-wlm-basic-plugins (= $slurm), the Slurm it was built for" "$deps"

# the installed plugin: only the SPANK symbols, no library of its own
extra=$(nm -D --defined-only "$plugin" | awk '{print $NF}' |
    grep -v -E '^(plugin_name|plugin_type|plugin_version|spank_plugin_version|spank_options|slurm_spank_[a-z_]+)$')
[ -z "$extra" ] && nm -D --defined-only "$plugin" | grep -q ' slurm_spank_init$' && r=OK || r=FAIL
check $r "the installed plugin exports only the plugin and slurm_spank_* symbols" "$extra"
readelf -d "$plugin" | grep NEEDED | grep -q stencilmap && r=FAIL || r=OK
check $r "the installed plugin needs no stencilmap library"

# ---- the installed commands ---------------------------------------------------
# an earlier make install into /usr/local would shadow the packaged libraries
# (ld.so searches /usr/local/lib first): the checks below would then test it
# (with /usr merged, ld.so may name /lib/...: the file dpkg installed is
# what counts, so each library is resolved and looked up in dpkg's lists)
libs=$(ldd /usr/bin/stencil-map /usr/bin/stencil-map-verify 2>&1 | awk '$1 ~ /^libstencilmap/ {print $3}' | sort -u)
stray=""
for l in $libs; do
    owner=$(dpkg -S "$(readlink -f "$l" | sed 's#^/lib/#/usr/lib/#')" 2>/dev/null | cut -d: -f1)
    case $owner in libstencilmap0 | libstencilmap-placement0) ;; *) stray="$stray $l" ;; esac
done
[ -n "$libs" ] && [ -z "$stray" ] && r=OK || r=FAIL
check $r "the installed commands load the packaged libraries" "they load: $(echo $libs)"
out=$(/usr/bin/stencil-map --version 2>&1 | head -n 1)
[ "$out" = "stencil-map (stencilmap) $version" ] && r=OK || r=FAIL
check $r "stencil-map --version: $out"
out=$(/usr/bin/stencil-map-verify --version 2>&1 | head -n 1)
[ "$out" = "stencil-map-verify (stencilmap) $version" ] && r=OK || r=FAIL
check $r "stencil-map-verify --version: $out"
# a named spec from the installed specs directory, as a user would
out=$(env -u STENCILMAP_SPECS_DIR /usr/bin/stencil-map plan jacobi2d --nodes 'n[1-4]' \
    --slots '16(x2),10,6' --json 2>&1)
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(not (d["stencilmap_version"] and d["ranks"] > 0 and d["j_sum"] <= d["blocked"]["j_sum"]))' \
    2>/dev/null && r=OK || r=FAIL
check $r "stencil-map plan with an installed named spec" "$out"
man -w stencil_map 2>/dev/null | grep -q stencil_map.8 && r=OK || r=FAIL
check $r "man stencil_map finds stencil_map(8)"
pkg-config --modversion stencilmap 2>/dev/null | grep -qx "$version" && r=OK || r=FAIL
check $r "pkg-config stencilmap is $version"
# the -dev package is enough to build against the in-job library
cat >"$work/use.c" <<'EOF'
#include <stencilmap.h>
int main(void) { return stencilmap_init == 0; }
EOF
cc -o "$work/use" "$work/use.c" $(pkg-config --cflags --libs stencilmap) >"$work/use.log" 2>&1 &&
    "$work/use" && r=OK || r=FAIL
check $r "a program builds and runs against the installed libstencilmap" "$(head -n 3 "$work/use.log")"

# ---- the in-application libraries ------------------------------------------------
. "$top/tests/package/mpi.sh"

# ---- a step placed by the installed plugin (PKG_SMOKE=1) ------------------------
# On a minicluster of its own (MINICLUSTER_DIR, MINICLUSTER_PORT_BASE to
# keep it apart from others), loaded by the name the snippet uses.
if [ "${PKG_SMOKE:-0}" = 1 ]; then
    mc=$top/contrib/minicluster/minicluster
    export MINICLUSTER_DIR=${MINICLUSTER_DIR:-/var/lib/stencilmap-package-mc}
    records=$work/records
    install -d -m 1777 -o root "$records"
    echo "required stencil_map.so record_dir=$records" >"$work/plugstack.conf"
    MINICLUSTER_PLUGSTACK=$work/plugstack.conf "$mc" up >"$work/mc-up.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] && r=OK || r=FAIL
    check $r "a minicluster with the installed plugin came up" "$(tail -n 3 "$work/mc-up.log")"
    if [ $rc -eq 0 ]; then
        timeout 120 "$mc" run salloc -N4 -n32 srun -v --stencil-map=auto:2d:5pt hostname \
            >"$work/step.out" 2>"$work/step.err"
        rc=$?
        [ $rc -eq 0 ] && r=OK || r=FAIL
        check $r "salloc -N4 -n32 srun --stencil-map=auto:2d:5pt ran" "$(tail -n 3 "$work/step.err")"
        line=$(grep -o "stencil_map: stencilmap .*" "$work/step.err" | head -n 1)
        case "$line" in
        "stencil_map: stencilmap $version, built for Slurm ${slurm%%-*}"*) r=OK ;;
        *) r=FAIL ;;
        esac
        check $r "srun -v names the plugin's version and its Slurm: $line"
        grep -q "^stencil-map: .*32 ranks on 4 nodes" "$work/step.err" && r=OK || r=FAIL
        check $r "the plugin placed the step" "$(grep stencil-map "$work/step.err" | head -n 2)"
        [ "$(sort "$work/step.out" | uniq -c | awk '{print $1}' | sort -u)" = 8 ] &&
            [ "$(sort -u "$work/step.out" | wc -l)" -eq 4 ] && r=OK || r=FAIL
        check $r "8 ranks ran on each of the 4 nodes" "$(sort "$work/step.out" | uniq -c | tr '\n' ' ')"
        rec=$(ls "$records"/*/*.json 2>/dev/null | head -n 1)
        [ -n "$rec" ] && /usr/bin/stencil-map audit --record "$rec" --no-slurm --json \
            >"$work/audit.json" 2>&1 &&
            python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2])); sys.exit(not (d["steps"][0]["status"] == "ok" and r["stencilmap_version"] == sys.argv[3] and r["format"] == 1))' \
                "$work/audit.json" "$rec" "$version" && r=OK || r=FAIL
        check $r "its audit record carries version $version and format 1, and audit reads it" "$rec"
        # the packaged preload library over the 4 nodes: launched round-robin
        # (--map-by node), every grid neighbour of MPI's order is on another
        # node; reorder=1 through the library plans the grid onto the nodes
        out=$work/mc-reorder.out
        timeout 180 "$mc" run salloc -Q -N4 -n16 --time=5 mpirun --bind-to none --map-by node -np 16 \
            -x LD_PRELOAD="$reorder_dir/libstencilmap-reorder.so" -x STENCIL_MAP_VERBOSE=1 \
            -x LD_LIBRARY_PATH="$pin" "$mpi_dir/cart_ompi" cart1 4,4 0,0 "$work/mc-hosts" >"$out" 2>&1
        line=$(grep '^stencil-map: MPI_Cart_create' "$out" | head -n 1)
        planned=$(echo "$line" | sed -n 's/.*reordered, planned J_sum \([0-9]*\) .* identity J_sum \([0-9]*\) .*/\1 \2/p')
        seen=$(sed -n 's/^observed J_sum \([0-9]*\) .*/\1/p' "$out")
        [ "$(grep -c '^ok ' "$out")" -eq 3 ] && ! grep -q '^FAIL' "$out" && [ -n "$planned" ] &&
            [ "${planned%% *}" = "$seen" ] && [ "${planned%% *}" -lt "${planned#* }" ] && r=OK || r=FAIL
        check $r "the packaged libstencilmap-reorder.so under mpirun on 4 nodes reorders: $line; observed J_sum $seen" \
            "$(tail -n 5 "$out" | tr '\n' ' ')"
    fi
    "$mc" down >"$work/mc-down.log" 2>&1 && r=OK || r=FAIL
    check $r "the minicluster went down" "$(tail -n 3 "$work/mc-down.log")"
fi

if [ "${PKG_PURGE:-0}" = 1 ]; then
    dpkg -P "${pkgs[@]}" >"$work/purge.log" 2>&1 && [ ! -e "$plugin" ] &&
        [ ! -e /usr/bin/stencil-map ] && [ ! -e "$reorder_dir/libstencilmap-reorder.so" ] &&
        r=OK || r=FAIL
    check $r "dpkg -P removes the packages and their files" "$(tail -n 3 "$work/purge.log")"
fi
finish
