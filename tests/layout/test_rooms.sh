#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The placement core's rooms include one way only (placement/README.md):
# model/ stands on the public header alone; dims/ on model/; construct/, improve/ and
# formats/ on model/; plan_auto on construct/ and improve/; levels/ on all
# of those; network/ on model/; plan_links on levels/, network/ and
# plan_auto; plan.c on top.  A room's private header (construct/order.h,
# improve/quotient.h, levels/groups.h) is included from its own room only,
# and code outside placement/ takes only the public header and the few
# internal headers it is allowed below.  Reads the #include lines of the
# sources, so it runs in a checkout and in a release tarball alike.
top=${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}
cd "$top" || exit 99

. ./tests/lib/checks.sh

# What each room of placement/ may include, as include paths (a prefix
# ending in / is a whole room); the public header and config.h always.
allowed() {
    case "$1" in
    placement/model/*) echo "model/" ;;
    placement/dims/*) echo "model/ dims/" ;;
    placement/construct/*) echo "model/ construct/" ;;
    placement/improve/*) echo "model/ improve/" ;;
    placement/formats/*) echo "model/ formats/" ;;
    placement/plan_auto.*) echo "model/ construct/construct.h improve/improve.h plan_auto.h" ;;
    placement/levels/*) echo "model/ construct/construct.h improve/improve.h plan_auto.h levels/" ;;
    placement/network/*) echo "model/ network/" ;;
    placement/plan_links.*) echo "model/ construct/construct.h levels/plan_levels.h plan_auto.h network/network.h plan_links.h" ;;
    placement/plan.c) echo "model/ levels/plan_levels.h plan_auto.h network/network.h plan_links.h" ;;
    # outside the core: the format texts and numbers, the edge walk (the
    # drawing and the peer mapper), and the room interfaces the unit tests
    # drive directly
    tests/*) echo "formats/ model/ construct/construct.h improve/improve.h network/network.h plan_auto.h" ;;
    *) echo "formats/ model/edges.h model/model.h" ;;
    esac
}

# the placement headers (paths from placement/) that an include names
room_header() {
    case "$1" in
    model/* | dims/* | construct/* | improve/* | levels/* | network/* | formats/* | plan_auto.h | plan_links.h) return 0 ;;
    *) return 1 ;;
    esac
}

files=$(find placement spank_plugin cli libstencilmap record audit topology launchers \
    learning learn learned profile peers bench tests contrib \
    \( -name '_*' -o -name '.libs' -o -name '.deps' \) -prune -o \
    \( -name '*.c' -o -name '*.h' \) -type f -print 2>/dev/null | sort)

bad=""
checked=0
for f in $files; do
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        room_header "$inc" || continue
        checked=$((checked + 1))
        ok=0
        for a in $(allowed "$f"); do
            case $a in
            */) case $inc in "$a"*) ok=1 ;; esac ;;
            *) [ "$inc" = "$a" ] && ok=1 ;;
            esac
        done
        [ $ok -eq 1 ] || bad="$bad $f:$inc"
    done
done

check_cmd "the placement rooms' includes are found ($checked)" test "$checked" -gt 50
if [ -z "$bad" ]; then
    pass "every include of a placement room runs down, never up or sideways"
else
    fail "every include of a placement room runs down, never up or sideways" "$bad"
fi
checks_summary
