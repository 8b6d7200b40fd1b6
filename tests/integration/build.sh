#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build and install stencilmap (placement core, CLI, specs, SPANK plugin)
# into a staging prefix outside /tmp, for the integration tests.
#
# The repository may hold an in-tree configure (which makes out-of-tree
# builds refuse to run), so the sources (tracked and new, not ignored) are
# copied first and built from the copy.
#
# usage: build.sh [PREFIX]   (default /var/lib/smc-plugin-prefix)
# env:   SMC_BUILD_ROOT (default /var/lib/smc-plugin-build),
#        SMC_CFLAGS, SMC_LDFLAGS (e.g. sanitizers; a change reconfigures),
#        SMC_SLURM: the prefix of the Slurm to build the plugin for (default
#        the system's; a change reconfigures)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=${1:-/var/lib/smc-plugin-prefix}
root=${SMC_BUILD_ROOT:-/var/lib/smc-plugin-build}
case $prefix$root in /tmp/*) echo "build.sh: use paths outside /tmp" >&2; exit 2 ;; esac
src=$root/src obj=$root/obj
manifest=$root/.sources
# a copy made before the list of copied files was kept: start it afresh
[ -f "$manifest" ] || rm -rf "$src" "$root/.configured"
mkdir -p "$src" "$obj"
# copy the source tree (only what git would consider source); a file the
# last copy had and the tree no longer has is removed from the copy, or a
# moved header would still shadow its new place there
(cd "$top" && git ls-files -co --exclude-standard -z |
    while IFS= read -r -d '' f; do
        [ -f "$f" ] || continue
        printf '%s\0' "$f"
        if ! cmp -s "$f" "$src/$f"; then
            mkdir -p "$src/$(dirname "$f")"
            # a fresh mtime, not the tree's: a file edited while an earlier
            # copy was being built is older than that build's objects
            cp --preserve=mode "$f" "$src/$f"
        fi
    done) >"$manifest.new"
if [ -f "$manifest" ]; then
    # in the old list only: gone from the tree
    comm -z -23 <(sort -z "$manifest") <(sort -z "$manifest.new") |
        while IFS= read -r -d '' f; do rm -f "$src/$f"; done
fi
mv "$manifest.new" "$manifest"
stamp=$root/.configured
flags="prefix=$prefix cflags=${SMC_CFLAGS:-} ldflags=${SMC_LDFLAGS:-} slurm=${SMC_SLURM:-}"
if [ ! -f "$stamp" ] || [ "$src/configure.ac" -nt "$stamp" ] || [ "$(cat "$stamp")" != "$flags" ] ||
    [ -n "$(find "$src" -name Makefile.am -newer "$stamp" -print -quit)" ]; then
    (cd "$src" && autoreconf -fi >"$root/autoreconf.log" 2>&1) ||
        { cat "$root/autoreconf.log" >&2; exit 1; }
    extra=()
    [ -n "${SMC_CFLAGS:-}" ] && extra+=("CFLAGS=$SMC_CFLAGS")
    [ -n "${SMC_LDFLAGS:-}" ] && extra+=("LDFLAGS=$SMC_LDFLAGS")
    [ -n "${SMC_SLURM:-}" ] && extra+=("--with-slurm=$SMC_SLURM")
    (cd "$obj" && "$src/configure" --prefix="$prefix" \
        --with-slurm-plugindir="$prefix/lib/slurm" ${extra[@]+"${extra[@]}"} >"$root/configure.log" 2>&1) ||
        { tail -30 "$root/configure.log" >&2; exit 1; }
    # objects built with other flags would otherwise be reused
    make -C "$obj" clean >/dev/null 2>&1 || true
    echo "$flags" >"$stamp"
fi
make -C "$obj" -j"$(nproc)" >"$root/make.log" 2>&1 || { grep -E 'error|Error' -A3 "$root/make.log" | head -40 >&2; exit 1; }
if grep -q 'warning:' "$root/make.log"; then
    grep 'warning:' "$root/make.log" >&2
    echo "build.sh: the build has warnings" >&2
    exit 1
fi
make -C "$obj" install >"$root/install.log" 2>&1 || { tail -30 "$root/install.log" >&2; exit 1; }
test -f "$prefix/lib/slurm/stencil_map.so" || { echo "build.sh: stencil_map.so not installed" >&2; exit 1; }
echo "build.sh: installed into $prefix (plugin $prefix/lib/slurm/stencil_map.so, for Slurm $(sed -n 's/^SLURM_VERSION = //p' "$obj/Makefile"))"
