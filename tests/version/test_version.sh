#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Versions a user can see, from the one in configure.ac: stencil-map
# --version and stencil-map-verify --version; "stencilmap_version" and
# "format" first in every --json answer, in the audit record the plugin
# writes (tests/record/write_record, the plugin's own code) and in the
# in-job result; the reader takes records without "format" as format 1 and
# refuses a newer format, naming it, instead of misreading it; the man
# pages, NEWS.md and the packaging name the same version.
# Plain exit status for automake's harness; one line per check.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
VERIFY=${STENCIL_MAP_VERIFY:?STENCIL_MAP_VERIFY must name stencil-map-verify}
TOP=${STENCILMAP_TOP_SRCDIR:?STENCILMAP_TOP_SRCDIR must name the source tree}
VERSION=${STENCILMAP_VERSION:?STENCILMAP_VERSION must be configure.ac version}
WRITE_RECORD=${STENCILMAP_WRITE_RECORD:-}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 99; }

work=$(mktemp -d "${TMPDIR:-/tmp}/version-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
python3 - "$SM" "$VERIFY" "$TOP" "$VERSION" "$WRITE_RECORD" "$work" <<'PY'
import json, os, re, shutil, subprocess, sys

sm, verify, top, version, write_record, work = sys.argv[1:7]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(top, "tests", "lib"))
from checks import check, summary

def run(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr

def versioned(what, text, fmt=1):
    """the JSON text starts with stencilmap_version and format"""
    try:
        d = json.loads(text)
    except ValueError as e:
        check(False, what + " prints JSON", e)
        return None
    keys = list(d)[:2]
    check(keys == ["stencilmap_version", "format"] and d["stencilmap_version"] == version
          and d["format"] == fmt, what + ' starts with "stencilmap_version": "%s", "format": %d'
          % (version, fmt), "first keys %s" % {k: d[k] for k in keys})
    return d

# ---- --version ---------------------------------------------------------------
rc, out, err = run(sm, "--version")
check(rc == 0 and out.splitlines()[0] == "stencil-map (stencilmap) " + version,
      "stencil-map --version names version " + version, out + err)
check(re.search(r"audit record 1, in-job result 1, learned spec 1", out), "stencil-map --version names the formats it reads", out)
rc, out, err = run(verify, "--version")
check(rc == 0 and out.splitlines()[0] == "stencil-map-verify (stencilmap) " + version,
      "stencil-map-verify --version names version " + version, out + err)
rc, out, err = run(verify, "-V")
check(rc == 0 and version in out, "stencil-map-verify -V too", out + err)

# ---- every --json answer -----------------------------------------------------
nodes = ["--nodes", "n[1-3]", "--slots", "8(x3)"]
rc, out, err = run(sm, "plan", "auto:2d:5pt", *nodes, "--json")
versioned("plan --json", out)
hostfile = os.path.join(work, "hostfile")
run(sm, "plan", "auto:2d:5pt", *nodes, "--hostfile", hostfile)
rc, out, err = run(sm, "score", "auto:2d:5pt", "--hostfile", hostfile, "--json")
versioned("score --json", out)
rc, out, err = run(sm, "compare", "auto:2d:5pt", *nodes, "--json")
versioned("compare --json", out)
fix = os.path.join(top, "tests", "cli", "audit-records")
rc, out, err = run(sm, "audit", "11.1", "--record-dir", fix, "--no-slurm", "--json")
d = versioned("audit --json", out)
check(rc == 0 and d and d["steps"][0]["status"] == "ok",
      "a record without \"format\" (written before it existed) reads as format 1", out + err)
rc, out, err = run(sm, "audit", "--summary", "--record-dir", fix, "--json")
versioned("audit --summary --json", out)

# ---- the reader checks the format ----------------------------------------------
def record_copy(name, edit_record=None, edit_verify=None):
    d = os.path.join(work, name, "root")
    os.makedirs(d)
    for f in ("11.1.json", "11.1.verify.json"):
        j = json.load(open(os.path.join(fix, "root", f)))
        edit = edit_record if f == "11.1.json" else edit_verify
        if edit:
            edit(j)
        json.dump(j, open(os.path.join(d, f), "w"), indent=2)
    return os.path.join(d, "11.1.json")

def fmt(value, writer="9.9.9"):
    def edit(j):
        j["format"] = value
        j["stencilmap_version"] = writer
    return edit

path = record_copy("current", fmt(1, version), fmt(1, version))
rc, out, err = run(sm, "audit", "--record", path, "--no-slurm")
check(rc == 0, "a record and result of format 1 read", out + err)
path = record_copy("future", fmt(99))
rc, out, err = run(sm, "audit", "--record", path, "--no-slurm")
check(rc == 4 and "format 99" in out + err and "9.9.9" in out + err and "newer" in out + err,
      "a record of format 99 is unreadable (exit 4), naming the format and its writer", out + err)
rc, out, err = run(sm, "audit", "--record", path, "--no-slurm", "--json")
d = json.loads(out) if out.strip() else {}
st = d.get("steps", [{}])[0]
check(rc == 4 and st.get("status") == "unreadable" and "placement" not in st,
      "... and none of its fields is used (--json)", out + err)
path = record_copy("badformat", fmt("one"))
rc, out, err = run(sm, "audit", "--record", path, "--no-slurm")
check(rc == 4 and "format: must be a positive integer" in out + err,
      "a format that is not a number names the field", out + err)
path = record_copy("badversion", lambda j: j.update(stencilmap_version=7))
rc, out, err = run(sm, "audit", "--record", path, "--no-slurm")
check(rc == 4 and "stencilmap_version: must be a string" in out + err,
      "a stencilmap_version that is not a string names the field", out + err)
path = record_copy("futureverify", None, fmt(2, "1.0.0"))
rc, out, err = run(sm, "audit", "--record", path, "--no-slurm")
check(rc == 4 and "format 2" in out + err and "1.0.0" in out + err,
      "an in-job result of format 2 is unreadable (exit 4), named", out + err)

# ---- the plugin's own record writer ------------------------------------------
if write_record and os.path.exists(write_record):
    rdir = os.path.join(work, "records")
    os.mkdir(rdir, 0o700)
    rc, out, err = run(write_record, rdir, "auto:2d:5pt", "n[1-3]", "8(x3)", "24")
    check(rc == 0 and out.strip().endswith(".json"), "the plugin's writer writes a record", out + err)
    if rc == 0:
        rec = out.strip()
        j = json.load(open(rec))
        keys = list(j)[:2]
        check(keys == ["stencilmap_version", "format"] and j["stencilmap_version"] == version
              and j["format"] == 1, "the plugin's record starts with its version and format 1",
              {k: j[k] for k in keys})
        rc, out, err = run(sm, "audit", "--record", rec, "--no-slurm", "--json")
        d = json.loads(out) if out.strip() else {}
        check(rc == 0 and d.get("steps", [{}])[0].get("status") == "ok",
              "stencil-map audit reads the plugin's record back", out + err)
else:
    print("# the plugin is not built (no slurm/spank.h): its record writer is not checked")

# ---- the one version, everywhere it shows ----------------------------------------
for man in ("cli/stencil-map.1", "libstencilmap/stencil-map-verify.1",
            "libstencilmap/stencilmap.h.3", "spank_plugin/stencil_map.8"):
    th = [l for l in open(os.path.join(top, man)) if l.startswith(".TH")]
    check(th and '"stencilmap %s"' % version in th[0], "%s names stencilmap %s" % (man, version), th)
news = open(os.path.join(top, "NEWS.md")).read()
check(re.search(r"^## %s\b" % re.escape(version), news, re.M),
      "NEWS.md has a section for " + version)
ch = os.path.join(top, "debian", "changelog")
if os.path.exists(ch):
    m = re.match(r"\S+ \(([^)]*)\)", open(ch).readline())
    up = m and re.sub(r"-[^-]*$", "", m.group(1))
    check(up == version, "debian/changelog's latest entry is version " + version, m and m.group(1))
spec = os.path.join(top, "contrib", "rpm", "stencilmap.spec")
if os.path.exists(spec):
    m = re.search(r"^Version:\s*(\S+)", open(spec).read(), re.M)
    check(m and m.group(1) == version, "stencilmap.spec's Version is " + version, m and m.group(1))

sys.exit(summary())
PY
