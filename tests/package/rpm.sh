#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/rpm/stencilmap.spec, checked with rpmbuild as far as Debian can:
# the tarball of make dist, rpmbuild -ta to binary RPMs, then their names
# (the release names the Slurm major), the exact Slurm requirement, the
# files and the conffile.  Debian's rpm database knows none of the spec's
# BuildRequires, so they are not checked (--nodeps); the build uses the
# Debian Slurm, Jansson, hwloc and PMIx.  Ends with "N passed, M failed".
#
# usage: tests/package/rpm.sh [TARBALL]   (default: make dist of a copy of
#                                          the tracked tree)
# Environment: RPM_WORK=DIR (default: a new directory under /var/tmp);
#              RPM_CHECK=1 runs the spec's %check (make check) too.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
grep -q "AC_INIT(\[stencilmap\]" "$top/configure.ac" 2>/dev/null ||
    { echo "$0: $top is not a stencilmap source tree" >&2; exit 2; }
work=${RPM_WORK:-$(mktemp -d /var/tmp/stencilmap-rpm.XXXXXX)}
mkdir -p "$work"
. "$top/tests/lib/checks.sh"
finish() {
    echo "rpm: work directory $work"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}
command -v rpmbuild >/dev/null 2>&1 && r=OK || r=FAIL
check $r "rpmbuild is installed" "apt-get install rpm"
[ "$fail" -eq 0 ] || finish

tarball=${1:-}
if [ -z "$tarball" ]; then
    src=$work/src
    rm -rf "$src" && mkdir -p "$src"
    git -C "$top" ls-files -z | tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -
    (cd "$src" && autoreconf -fi && ./configure -q && make dist) >"$work/dist.log" 2>&1
    tarball=$(ls "$src"/stencilmap-*.tar.gz 2>/dev/null | head -n 1)
    [ -n "$tarball" ] && r=OK || r=FAIL
    check $r "make dist made a tarball" "see $work/dist.log"
    [ -n "$tarball" ] || finish
else
    # one made elsewhere (run-all: the tarball its make distcheck checked)
    tar -tzf "$tarball" 2>/dev/null | grep -q '^stencilmap-[^/]*/configure$' && r=OK || r=FAIL
    check $r "the given $(basename "$tarball") is a stencilmap release tarball (configure inside)"
    [ "$r" = OK ] || finish
fi
version=$(tar -xzOf "$tarball" --wildcards '*/configure.ac' | sed -n 's/^AC_INIT(\[stencilmap\], \[\([^]]*\)\].*/\1/p')
# the Slurm built against, as upstream numbers it (22.05.8, not 22.05.8-4+deb12u3)
slurm=$(dpkg-query -W -f='${Version}' libslurm-dev 2>/dev/null | sed 's/-[^-]*$//')
major=$(echo "$slurm" | cut -d. -f1-2)
nocheck=--nocheck
[ "${RPM_CHECK:-0}" = 1 ] && nocheck=
rm -rf "$work/rpmbuild"
start=$(date +%s)
rpmbuild -ta --nodeps $nocheck --define "slurm_version $slurm" --define "_topdir $work/rpmbuild" \
    "$tarball" >"$work/rpmbuild.log" 2>&1
rc=$?
[ $rc -eq 0 ] && r=OK || r=FAIL
check $r "rpmbuild -ta ${nocheck:+$nocheck }in $(($(date +%s) - start))s" \
    "exit $rc, see $work/rpmbuild.log: $(tail -n 3 "$work/rpmbuild.log" | tr '\n' ' ')"
[ $rc -eq 0 ] || finish

dir=$work/rpmbuild/RPMS/$(uname -m)
for p in stencilmap stencilmap-libs stencilmap-devel stencilmap-openmpi stencilmap-openmpi-devel \
    stencilmap-mpich stencilmap-mpich-devel; do
    f=$dir/$p-$version-1.slurm$major.$(uname -m).rpm
    [ -f "$f" ] && r=OK || r=FAIL
    check $r "built $(basename "$f") ($(stat -c %s "$f" 2>/dev/null || echo 0) bytes)"
done
main=$dir/stencilmap-$version-1.slurm$major.$(uname -m).rpm
rpm -qp --requires "$main" 2>/dev/null | grep -q -x "slurm = $slurm" && r=OK || r=FAIL
check $r "stencilmap requires slurm = $slurm, the Slurm it was built for"
files=$(rpm -qlp "$main" 2>/dev/null)
for f in /usr/lib64/slurm/stencil_map.so /usr/bin/stencil-map /usr/bin/stencil-map-verify \
    /etc/slurm/plugstack.conf.d/stencil_map.conf /usr/share/man/man8/stencil_map.8 \
    /usr/libexec/stencilmap/hydra-srun; do
    echo "$files" | grep -q -x "$f" && r=OK || r=FAIL
    check $r "stencilmap holds $f"
done
rpm -qp --configfiles "$main" 2>/dev/null | grep -q -x /etc/slurm/plugstack.conf.d/stencil_map.conf &&
    r=OK || r=FAIL
check $r "the plugstack.conf.d snippet is a config file"
rpm -qlp "$dir/stencilmap-libs-$version-1.slurm$major.$(uname -m).rpm" 2>/dev/null |
    grep -q -x /usr/lib64/libstencilmap.so.0 && r=OK || r=FAIL
check $r "stencilmap-libs holds libstencilmap.so.0"
rpm -qlp "$dir/stencilmap-devel-$version-1.slurm$major.$(uname -m).rpm" 2>/dev/null |
    grep -q -x /usr/include/stencilmap.h && r=OK || r=FAIL
check $r "stencilmap-devel holds stencilmap.h"

# ---- the MPI subpackages ----------------------------------------------------------
rpmfile() { echo "$dir/$1-$version-1.slurm$major.$(uname -m).rpm"; }
for p in stencilmap stencilmap-libs stencilmap-devel; do
    req=$(rpm -qp --requires "$(rpmfile $p)" 2>/dev/null | grep -E 'openmpi|mpich|libmpi' | tr '\n' ' ')
    [ -z "$req" ] && r=OK || r=FAIL
    check $r "$p requires no MPI" "$req"
done
arch=$(uname -m)
for mpi in openmpi mpich; do
    lib=/usr/lib64/$mpi/lib
    man=/usr/share/man/$mpi-$arch/man3
    files=$(rpm -qlp "$(rpmfile stencilmap-$mpi)" 2>/dev/null)
    for f in $lib/libstencilmap-mpix.so.0 $lib/libstencilmap-reorder.so "$man/libstencilmap-reorder.3(.gz)?"; do
        echo "$files" | grep -q -x -E "$f" && r=OK || r=FAIL
        check $r "stencilmap-$mpi holds ${f%'(.gz)?'}"
    done
    echo "$files" | grep -E -v "^($lib/|$man/|/usr/share/(doc|licenses)/|/usr/lib/\.build-id(/|$))" |
        grep -q . && r=FAIL || r=OK
    check $r "stencilmap-$mpi holds nothing outside $mpi's directories (but its licence and rpm's build-id links)" "$(echo $files)"
    files=$(rpm -qlp "$(rpmfile stencilmap-$mpi-devel)" 2>/dev/null)
    for f in /usr/include/$mpi-$arch/stencilmap_mpix.h $lib/libstencilmap-mpix.so \
        "$man/MPIX_Cart_stencil_comm.3(.gz)?" "$man/MPIX_Dims_weighted_create.3(.gz)?"; do
        echo "$files" | grep -q -x -E "$f" && r=OK || r=FAIL
        check $r "stencilmap-$mpi-devel holds ${f%'(.gz)?'}"
    done
    req=$(rpm -qp --requires "$(rpmfile stencilmap-$mpi)" 2>/dev/null)
    echo "$req" | grep -q -x "$mpi" && r=OK || r=FAIL
    check $r "stencilmap-$mpi requires $mpi (the guidelines' runtime requirement)"
done
# each MPI's libraries link that MPI's library (rpm's automatic requires)
req=$(rpm -qp --requires "$(rpmfile stencilmap-openmpi)" 2>/dev/null)
echo "$req" | grep -q '^libmpi\.so\.' && ! echo "$req" | grep -q '^libmpich' && r=OK || r=FAIL
check $r "stencilmap-openmpi's libraries need Open MPI's libmpi, not MPICH's" "$(echo $req)"
req=$(rpm -qp --requires "$(rpmfile stencilmap-mpich)" 2>/dev/null)
echo "$req" | grep -q '^libmpich\.so\.' && ! echo "$req" | grep -q '^libmpi\.so\.' && r=OK || r=FAIL
check $r "stencilmap-mpich's libraries need MPICH's libmpich, not Open MPI's libmpi" "$(echo $req)"
finish
