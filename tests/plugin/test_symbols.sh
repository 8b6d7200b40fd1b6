#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil_map.so is self-contained: it exports only what Slurm's plugin
# loader and plugstack look up (spank_plugin/stencil_map.map), and needs no
# library of its own (the placement core is linked in statically), only
# what Slurm nodes have: Jansson, hwloc, libyaml (Slurm's serializer/yaml
# links it: Debian's slurm-wlm-basic-plugins depends on libyaml-0-2), libc
# and libm.
# Plain exit status for automake's harness (77: the plugin is not built).
SO=${STENCILMAP_PLUGIN:?STENCILMAP_PLUGIN must name the built stencil_map.so}
[ -f "$SO" ] || { echo "skip: $SO not built (no slurm/spank.h)"; exit 77; }
command -v nm >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 ||
    { echo "nm or readelf missing"; exit 99; }

. "${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}/tests/lib/checks.sh"

exported=$(nm -D --defined-only "$SO" | awk '{print $NF}' | sort)
echo "nm -D --defined-only: $(echo $exported)"
extra=$(echo "$exported" | grep -v -E '^(plugin_name|plugin_type|plugin_version|spank_plugin_version|spank_options|slurm_spank_[a-z_]+)$')
[ -z "$extra" ] && r=OK || r=FAIL
check $r "exports only the plugin and slurm_spank_* symbols" "also: $(echo $extra)"
for sym in plugin_name plugin_type plugin_version spank_plugin_version \
    slurm_spank_init slurm_spank_init_post_opt slurm_spank_local_user_init \
    slurm_spank_task_init slurm_spank_exit; do
    echo "$exported" | grep -q -x "$sym" && r=OK || r=FAIL
    check $r "exports $sym"
done
leaked=$(echo "$exported" | grep -E '^(smp_|sm_)')
[ -z "$leaked" ] && r=OK || r=FAIL
check $r "the placement core and the plugin's helpers stay local" "$leaked"

needed=$(readelf -d "$SO" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
# (a build with -fsanitize also needs the sanitizers' runtimes: the
# sanitize suite runs make check on one)
other=$(echo "$needed" | grep -v -E '^(libjansson|libhwloc|libyaml-0|libc|libm|libasan|libubsan)\.so')
[ -z "$other" ] && r=OK || r=FAIL
check $r "needs only Jansson, hwloc, libyaml, libc and libm" "also: $(echo $other)"
undefined=$(nm -D --undefined-only "$SO" | awk '{print $NF}' | grep -E '^smp_|^sm_')
[ -z "$undefined" ] && r=OK || r=FAIL
check $r "no placement symbol is left for another library to provide" "$undefined"

checks_summary
