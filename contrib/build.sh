#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Configures, builds and installs stencilmap from this checkout into /usr/local
# (the SPANK plugin into Slurm's plugin directory).  Out of tree, in _build/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${STENCILMAP_BUILD_DIR:-$top/_build}

cd "$top"
# Generate the build system when it is missing or older than its inputs.
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    autoreconf -fi
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
    "$top/configure" --prefix=/usr/local --sysconfdir=/etc -q
fi
make -j"$(nproc)" >/dev/null
make install >/dev/null
ldconfig
echo "build: installed into /usr/local (build tree $build)"
