#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes the hand-made nasty specs into DIR (they are generated, not stored,
# because some are large).
set -euo pipefail
d=$1
mkdir -p "$d"
printf '{"grid":{"dims":[4,3]},"stencil":"5pt"}' >"$d/ok"
printf '{"grid":{"dims":[4,3],"periods":[true,false]},"stencil":{"offsets":[[1,0],[-1,0],[0,2]],"weights":[1,2,3.5]},"algorithm":"hyperplane"}' >"$d/weights"
printf '{"grid":{"dims":"auto","ndims":3},"stencil":"hops","algorithm":{"name":"kdtree"}}' >"$d/auto"
printf '{"grid":{"dims":[5,4,3],"periods":[true,false,true],"order":"column-major"},"stencil":"7pt"}' >"$d/column-major"
printf '{"grid":{"dims":[4,3],"order":"Column-Major"},"stencil":"5pt"}' >"$d/bad-order"
printf '{"grid":{"dims":[2147483647,2147483647,2]},"stencil":"nearest"}' >"$d/overflow"
printf '{"grid":{"dims":[1e30]},"stencil":"nearest"}' >"$d/huge"
printf '{"grid":{"dims":[0,-3]},"stencil":"nearest"}' >"$d/zero"
printf '{"grid":{"dims":[4,3]},"stencil":{"offsets":[[1,0]],"weights":[NaN]}}' >"$d/nan"
printf '{"grid":{"dims":[4,3]},"stencil":{"offsets":[[0,0]]}}' >"$d/zerovec"
printf '{"grid":{"dims":[4,3]},"grid":{"dims":[2]},"stencil":"5pt"}' >"$d/dupkey"
printf '{"grid":{"dims":[4,3]},"stencil":"\xff\xfe"}' >"$d/utf8"
printf '{"grid":{"dims":[4,3]},"stencil":"../../etc/passwd"}' >"$d/traversal"
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$d/deep"
