#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every source file names its licence in an SPDX-License-Identifier line
# within its first five lines, the licence is the one COPYING gives its
# directory (LGPL-2.1-or-later for the libraries, GPL-2.0-or-later for the
# rest) and LICENSES/ holds the text of each licence named.
#
# The files checked are those git tracks in a checkout, and in a release
# tarball (make distcheck) the same kinds of file found there, less what
# autotools generate.  Data and documents that cannot carry a comment
# (*.json, *.svg, *.tsv, *.txt, *.md, the topology data of the unit tests)
# are covered by COPYING instead.
top=${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}
cd "$top" || exit 99

. ./tests/lib/checks.sh

if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
    list() { git ls-files; }
    from="git ls-files"
else
    # the kinds of source file only, so that an in-tree build's products
    # (objects, Makefiles, config.h, debian/tmp) are not taken for sources
    list() {
        find . \( -name autom4te.cache -o -name build-aux -o -name m4 -o -name '.libs' \
            -o -name '.deps' -o -path './_*' -o -path './debian/*' ! -path ./debian/source \) \
            -type d -prune -o -type f -print | sed 's|^\./||' |
            grep -E '\.(c|h|sh|py|am|ac|in|[138]|map|conf|spec|example)$|^contrib/minicluster/minicluster$|^\.ci/run$|^debian/(rules|control)$' |
            grep -v -E '(^|/)Makefile\.in$|^config\.h(\.in)?$' |
            # scratch directories the CLI tests make beside themselves while
            # they run (tests/Makefile.am's clean-local), possibly right now
            grep -v -E '^tests/(cli-test|spec-big-|spec-file-|spec-dir-|audit-test|draw-test)[^/]*/'
    }
    from="the source tree (no git)"
fi

# the licence COPYING gives a file
expected() {
    case "$1" in
    libstencilmap/stencil-map-verify.c | libstencilmap/stencil-map-verify.1) echo GPL-2.0-or-later ;;
    placement/* | record/* | libstencilmap/* | learning/profile/* | topology/*) echo LGPL-2.1-or-later ;;
    *) echo GPL-2.0-or-later ;;
    esac
}

files=0 missing="" wrong="" nolicence=""
for f in $(list); do
    case "$f" in
    *.json | *.svg | *.tsv | *.txt | *.md | .gitignore | COPYING | LICENSES/*) continue ;;
    debian/changelog | debian/copyright | debian/compat | debian/source/format) continue ;;
    debian/*.install | debian/*.manpages | debian/*.docs | debian/*.links | debian/*.dirs) continue ;;
    debian/not-installed | debian/*.lintian-overrides) continue ;;
    # topology files and scontrol output exactly as sites and Slurm write
    # them, line numbers included (COPYING covers them)
    tests/unit/topology/*) continue ;;
    # fuzzer inputs, byte for byte as the harness crashed on them
    tests/fuzz/found/*) continue ;;
    esac
    files=$((files + 1))
    id=$(head -n 5 "$f" | sed -n 's/.*SPDX-License-Identifier: *\([A-Za-z0-9.+-]*\).*/\1/p' | head -n 1)
    if [ -z "$id" ]; then
        missing="$missing $f"
        continue
    fi
    [ "$id" = "$(expected "$f")" ] || wrong="$wrong $f($id)"
    [ -f "LICENSES/$id.txt" ] || nolicence="$nolicence $f($id)"
done

[ "$files" -gt 100 ] && r=OK || r=FAIL  # 140 or so
check $r "found the source files ($files from $from)"
[ -z "$missing" ] && r=OK || r=FAIL
check $r "every source file has an SPDX-License-Identifier line" "missing in:$missing"
[ -z "$wrong" ] && r=OK || r=FAIL
check $r "each names the licence COPYING gives its directory" "$wrong"
[ -z "$nolicence" ] && r=OK || r=FAIL
check $r "LICENSES/ has the text of every licence named" "$nolicence"
for id in GPL-2.0-or-later LGPL-2.1-or-later; do
    grep -q "$id" COPYING && [ -s "LICENSES/$id.txt" ] && r=OK || r=FAIL
    check $r "COPYING names $id and LICENSES/$id.txt has its text"
done
grep -q 'GNU GENERAL PUBLIC LICENSE' LICENSES/GPL-2.0-or-later.txt &&
    grep -q 'Version 2, June 1991' LICENSES/GPL-2.0-or-later.txt && r=OK || r=FAIL
check $r "LICENSES/GPL-2.0-or-later.txt is the GPL version 2"
grep -q 'GNU LESSER GENERAL PUBLIC LICENSE' LICENSES/LGPL-2.1-or-later.txt &&
    grep -q 'Version 2.1, February 1999' LICENSES/LGPL-2.1-or-later.txt && r=OK || r=FAIL
check $r "LICENSES/LGPL-2.1-or-later.txt is the LGPL version 2.1"

checks_summary
