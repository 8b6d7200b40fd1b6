#!/usr/bin/env bash
# build.sh SRC ROOT PREFIX - build the tree at SRC out of tree under ROOT and
# install it into PREFIX, with the SPANK plugin in PREFIX/lib/slurm.
#
# The bench needs its own install: the plugin and halo find their shared
# libraries by the prefix's run path, and /usr/local is shared with others.
# The sources are copied first (tracked and untracked-but-not-ignored
# files) so a configure living in the checkout cannot get in the way.
# Incremental: a second run rebuilds only what changed.  Fails on any
# compiler warning, like the in-job suite.
set -euo pipefail
src_top=$1 root=$2 prefix=$3
src=$root/src obj=$root/obj
mkdir -p "$src" "$obj"
(cd "$src_top" && git ls-files -co --exclude-standard -z |
    while IFS= read -r -d '' f; do
        [ -f "$f" ] || continue
        if ! cmp -s "$f" "$src/$f"; then
            mkdir -p "$src/$(dirname "$f")"
            cp -p "$f" "$src/$f"
        fi
    done)
stamp=$root/.configured
if [ ! -f "$stamp" ] || [ "$src/configure.ac" -nt "$stamp" ] ||
    [ -n "$(find "$src" -name Makefile.am -newer "$stamp" -print -quit)" ]; then
    (cd "$src" && autoreconf -fi) >"$root/autoreconf.log" 2>&1 ||
        { cat "$root/autoreconf.log" >&2; exit 1; }
    (cd "$obj" && "$src/configure" --prefix="$prefix" --with-slurm-plugindir="$prefix/lib/slurm") \
        >"$root/configure.log" 2>&1 || { tail -30 "$root/configure.log" >&2; exit 1; }
    touch "$stamp"
fi
make -C "$obj" -j"$(nproc)" >"$root/make.log" 2>&1 ||
    { grep -E 'error' -A3 "$root/make.log" | head -40 >&2; exit 1; }
if grep -q 'warning:' "$root/make.log"; then
    grep 'warning:' "$root/make.log" >&2
    echo "build.sh: the build has warnings" >&2
    exit 1
fi
make -C "$obj" install >"$root/install.log" 2>&1 || { tail -30 "$root/install.log" >&2; exit 1; }
for f in bin/stencil-map libexec/stencilmap/halo lib/slurm/stencil_map.so; do
    [ -e "$prefix/$f" ] || { echo "build.sh: $prefix/$f was not installed (Slurm headers, PMIx or mpicc missing?)" >&2; exit 1; }
done
