#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugstack.conf.d snippet the packages install
# (spank_plugin/stencil_map.conf) is all comments, so installing it changes
# nothing, and names every site policy key the plugin's parser accepts,
# as stencil_map(8) does.  Plain exit status for automake's harness.
TOP=${STENCILMAP_TOP_SRCDIR:?STENCILMAP_TOP_SRCDIR must name the source tree}
conf=$TOP/spank_plugin/stencil_map.conf
. "$TOP/tests/lib/checks.sh"
active=$(grep -v -E '^[[:space:]]*(#|$)' "$conf")
[ -z "$active" ] && r=OK || r=FAIL
check $r "every line of the snippet is a comment" "$active"
keys=$(sed -n 's/.*KEY("\([a-z_]*\)").*/\1/p' "$TOP/spank_plugin/policy.c")
[ -n "$keys" ] && r=OK || r=FAIL
check $r "the plugin's parser has policy keys" "none found in policy.c"
for k in $keys; do
    grep -q "^#   $k=" "$conf" && r=OK || r=FAIL
    check $r "the snippet documents $k="
done
grep -q '^#required stencil_map\.so' "$conf" && r=OK || r=FAIL
check $r "the snippet has a line to enable, by the plugin's name"
checks_summary
