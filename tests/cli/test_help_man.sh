#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The manual pages say what the programs do: every subcommand's --help and
# its part of stencil-map(1) list the same options, in the option table and
# in the synopsis; stencil-map-verify --help and stencil-map-verify(1)
# likewise; stencil_map(8) documents every plugstack argument the plugin's
# parser accepts; stencilmap.h(3) every function of the installed headers.
# Plain exit status for automake's harness; one line per check.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
VERIFY=${STENCIL_MAP_VERIFY:?STENCIL_MAP_VERIFY must name stencil-map-verify}
TOP=${STENCILMAP_TOP_SRCDIR:?STENCILMAP_TOP_SRCDIR must name the source tree}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 99; }
[ -x "$VERIFY" ] || { echo "not ok - $VERIFY not built (libstencilmap needs PMIx)"; exit 1; }

exec python3 - "$SM" "$VERIFY" "$TOP" <<'PY'
import os, re, subprocess, sys

sm, verify, top = sys.argv[1:4]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(top, "tests", "lib"))
from checks import check, summary

def roff(path):
    """the source with font changes dropped and escaped hyphens plain"""
    return re.sub(r"\\f[BIRP]", "", open(path).read()).replace("\\-", "-")

def longopts(text):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))

def man_sections(src, macro):
    """{name: body} of the .SS (or .SH) sections of a roff source"""
    out, name = {}, None
    for line in src.splitlines():
        if line.startswith(".SH") or line.startswith(".SS"):
            name = line.split(None, 1)[1].strip().strip('"') if line.startswith(macro) else None
            if name is not None:
                out[name] = []
            continue
        if name is not None:
            out[name].append(line)
    return {k: "\n".join(v) for k, v in out.items()}

def tp_options(body):
    """options named in the tags of .TP paragraphs"""
    lines = body.splitlines()
    return set().union(*[longopts(lines[i + 1]) for i, l in enumerate(lines[:-1]) if l.startswith(".TP")] or [set()])

def run(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout

# ---- stencil-map(1) -------------------------------------------------------
man = roff(top + "/cli/stencil-map.1")
sections = man_sections(man, ".SS")
synopsis = man_sections(man, ".SH")["SYNOPSIS"]
# the synopsis, one entry per ".B stencil-map CMD" up to its .br
man_syn = {}
for entry in synopsis.split(".br"):
    m = re.search(r"^\.B stencil-map (\w+)", entry, re.M)
    if m:
        man_syn.setdefault(m.group(1), set()).update(longopts(entry))
rc, overview = run(sm, "--help")
check(rc == 0, "stencil-map --help exits 0")
commands = re.findall(r"stencil-map (\w+) ", overview.split("\n\n")[0])
check(set(commands) == {"plan", "score", "compare", "draw", "audit", "learn", "learned", "dims"}, "--help lists every command", str(commands))
check(set(commands) == set(man_syn), "the man page's synopsis lists the same commands", str(sorted(man_syn)))
for cmd in commands:
    rc, text = run(sm, cmd, "--help")
    check(rc == 0, "stencil-map %s --help exits 0" % cmd)
    table = set(m for m in re.findall(r"^(--[a-z][a-z-]*)", text, re.M))
    usage = longopts(text.split("\n\n")[0])
    if cmd not in sections:
        check(False, "stencil-map(1) has a section for %s" % cmd)
        continue
    doc = tp_options(sections[cmd])
    check(table == doc, "%s: --help and stencil-map(1) document the same options" % cmd,
          "only in --help: %s, only in the man page: %s" % (sorted(table - doc), sorted(doc - table)))
    check(usage == man_syn.get(cmd, set()), "%s: the synopses name the same options" % cmd,
          "only in --help: %s, only in the man page: %s" % (sorted(usage - man_syn.get(cmd, set())),
                                                             sorted(man_syn.get(cmd, set()) - usage)))
    # every documented option is accepted (the parser never says "unknown")
    for opt in sorted(table):
        p = subprocess.run([sm, cmd, opt], capture_output=True, text=True)
        check("unknown option" not in p.stderr and "does not take" not in p.stderr,
              "%s %s is accepted" % (cmd, opt), p.stderr.strip()[:200])
    p = subprocess.run([sm, cmd, "--no-such-option"], capture_output=True, text=True)
    check(p.returncode == 2, "%s rejects an unknown option with exit 2" % cmd)

# ---- stencil-map-verify(1) --------------------------------------------------
vman = roff(top + "/libstencilmap/stencil-map-verify.1")
vsec = man_sections(vman, ".SH")
rc, vhelp = run(verify, "--help")
check(rc == 0, "stencil-map-verify --help exits 0")
vtable = set(re.findall(r"^\s+-\w, (--[a-z][a-z-]*)", vhelp, re.M))
vdoc = tp_options(vsec.get("OPTIONS", ""))
check(vtable and vtable == vdoc, "stencil-map-verify: --help and its man page document the same options",
      "only in --help: %s, only in the man page: %s" % (sorted(vtable - vdoc), sorted(vdoc - vtable)))
# the options of the launch around it (srun's, mpirun's, stencil-map plan's)
# are not stencil-map-verify's
launch = {"--mpi", "--stencil-map", "--rankfile", "--launcher", "--output", "--env"}
vsyn = longopts(vsec.get("SYNOPSIS", "")) - launch
vusage = longopts("\n".join(vhelp.split("\n\n")[0].split("\n")[:6])) - launch
check(vsyn == vusage, "stencil-map-verify: the synopses name the same options", "%s vs %s" % (sorted(vusage), sorted(vsyn)))

# ---- stencil_map(8): every plugstack argument the parser takes ---------------
policy = open(top + "/spank_plugin/policy.c").read()
keys = set(re.findall(r'KEY\("([a-z_]+)"\)', policy))
pman = roff(top + "/spank_plugin/stencil_map.8")
psec = man_sections(pman, ".SH")
pdoc = set(re.findall(r"^\.B ([a-z_]+)=", psec.get("PLUGSTACK ARGUMENTS", ""), re.M))
check(keys and keys == pdoc, "stencil_map(8) documents every plugstack argument",
      "parser: %s, man page: %s" % (sorted(keys), sorted(pdoc)))
check("--stencil-map=" in psec.get("OPTIONS", ""), "stencil_map(8) documents --stencil-map")

# ---- stencilmap.h(3): every function of the installed headers ----------------
hman = roff(top + "/libstencilmap/stencilmap.h.3")
hsyn = man_sections(hman, ".SH").get("SYNOPSIS", "")
for header in ("stencilmap.h", "stencilmap_mpi.h"):
    src = open(top + "/libstencilmap/" + header).read()
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    funcs = set(re.findall(r"^[a-z][\w \*]*?\b(stencilmap_\w+)\s*\(", src, re.M))
    missing = sorted(f for f in funcs if f not in hsyn)
    check(funcs and not missing, "stencilmap.h(3) declares every function of %s" % header, "missing: %s" % missing)

sys.exit(summary())
PY
