#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# No function of the product code is longer than 80 lines, from its
# signature's first line to its closing brace (tests may be longer): a
# longer one is split by what its parts do.  Functions are found in the
# house style every C file here follows: the signature starts at column 0,
# the body's "{" and "}" stand alone at column 0.
top=${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}
cd "$top" || exit 99

. ./tests/lib/checks.sh

max=80
files=$(find . \( -name '_*' -o -name '.libs' -o -name '.deps' -o -path ./tests -o -path ./debian \) \
    -prune -o -name '*.c' -type f -print | sort)

# prints "LINES FILE:LINE" for every function over max lines, and
# "functions N" at the end
long=$(awk -v max=$max '
    FNR == 1 { start = 0; sig = 0 }
    /^\{/ { start = sig ? sig : FNR; next }
    /^\}/ && start {
        n = FNR - start + 1; count++
        if (n > max) print n, FILENAME ":" start
        start = 0; sig = 0; next
    }
    start { next }
    /^[A-Za-z_]/ { if (!sig) sig = FNR; next }  # a signature starts
    /^[ \t]+[^ \t*\/]/ { next }                  # its continuation lines
    { sig = 0 }                                  # anything else ends it
    END { print "functions", count + 0 }' $files)

nfun=$(echo "$long" | sed -n 's/^functions //p')
over=$(echo "$long" | grep -v '^functions ')
check_cmd "the product's functions are found ($nfun)" test "${nfun:-0}" -gt 500
if [ -z "$over" ]; then
    pass "no product function is longer than $max lines"
else
    fail "no product function is longer than $max lines" "$(echo "$over" | tr '\n' ';')"
fi
checks_summary
