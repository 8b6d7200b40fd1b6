#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil-map learned list | show | forget on stores written as the plugin
# writes them: the keys (checked against readelf's build ID), one line per
# application, the placement on the allocation (the same figures as plan),
# show's spec, forget by path, name, key and --all, the store's checks
# (open to others, a symbolic link), a corrupt entry, a rebuilt
# executable, learned_dir= from the plugstack line and --learned-dir.
# Plain exit status for automake's harness.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
TOP=${STENCILMAP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 99; }
command -v readelf >/dev/null 2>&1 || { echo "readelf not found (binutils)"; exit 99; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/learned-test.XXXXXX") || exit 1
trap 'chmod -R u+rwx "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

exec python3 - "$SM" "$WORK" "$TOP" <<'PY'
import json, os, pwd, re, shutil, subprocess, sys

sm, work, top = sys.argv[1:4]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(top, "tests", "lib"))
from checks import check, summary

base_env = {k: v for k, v in os.environ.items()
            if not k.startswith("SLURM_") and k not in ("XDG_STATE_HOME",)}
base_env["SLURM_CONF"] = os.path.join(work, "no-slurm.conf")

def run(*args, env=None):
    e = dict(base_env)
    e.update(env or {})
    p = subprocess.run([sm, "learned"] + list(args), capture_output=True, text=True, env=e)
    return p.returncode, p.stdout, p.stderr

def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None

def entry(store, key, exe, ranks=16, kind="spec", dims=(4, 4), source="MPI_Dims_create", job=12,
          expires="2099-01-01T00:00:00Z", weights=None):
    """a store file as the plugin writes it"""
    e = {"stencilmap_version": "0.1.0", "format": 1, "kind": kind, "key": key, "executable": exe,
         "learned": {"job": job, "step": 0, "date": "2026-01-02T03:04:05Z", "ranks": ranks,
                     "bytes": 1.5e6, "share": 0.998}}
    if kind == "spec":
        e["learned"]["grid_source"] = source
        st = {"offsets": [[0, 1], [0, -1], [1, 0], [-1, 0]]}
        if weights:
            st["weights"] = weights
        e["spec"] = {"description": "learned", "grid": {"dims": list(dims), "periods": [False, False]},
                     "stencil": st, "algorithm": "auto"}
        name = "%s.n%d.json" % (key, ranks)
    else:
        e["reason"] = "not an MPI program: no task called MPI_Init"
        e["expires"] = expires
        name = "%s.not-stencil.json" % key
    path = os.path.join(store, name)
    with open(path, "w") as f:
        json.dump(e, f, indent=2)
    os.chmod(path, 0o600)
    return path

# ---- an empty world --------------------------------------------------------
state = os.path.join(work, "state")
env = {"XDG_STATE_HOME": state}
rc, out, err = run("list", env=env)
check(rc == 0 and "nothing learned yet (no store at %s/stencilmap/learned)" % state in out,
      "list without a store: nothing learned yet", out + err)
check(not os.path.exists(state), "list creates no store")
rc, out, err = run("show", "halo", env=env)
check(rc == 3, "show without a store exits 3", str(rc))
for args, what in ((["frob"], "an unknown command"), (["list", "x"], "list with an APP"),
                   (["show"], "show without APP"), (["forget"], "forget without APP or --all"),
                   (["forget", "x", "--all"], "forget with both"), (["list", "--all"], "--all without forget")):
    rc, out, err = run(*args, env=env)
    check(rc == 2 and "usage:" in err, "%s is bad usage (exit 2)" % what, "%d %s" % (rc, err))

# ---- a store with two applications and a verdict --------------------------
store = os.path.join(state, "stencilmap", "learned")
os.makedirs(store, mode=0o700)
os.chmod(os.path.join(state, "stencilmap"), 0o700)
os.chmod(store, 0o700)
bindir = os.path.join(work, "bin")
os.mkdir(bindir)
halo = os.path.join(bindir, "halo")
shutil.copy(sys.executable, halo)       # any ELF with a build ID stands for the halo
os.chmod(halo, 0o755)
bid = build_id(halo)
check(bid is not None, "readelf finds a build ID in the stand-in", halo)
hkey = "b" + (bid or "00")
entry(store, hkey, halo)
ring = "/usr/bin/ring-that-is-gone"
entry(store, "b1234", ring, kind="not-stencil", ranks=8)
probe = os.path.join(bindir, "probe.sh")
with open(probe, "w") as f:
    f.write("#!/bin/sh\necho probe\n")
os.chmod(probe, 0o755)
entry(store, "hdeadbeef-22", probe, ranks=16, dims=(2, 8), source="inferred", weights=[1, 1, 3, 3])

rc, out, err = run("list", env=env)
lines = out.splitlines()
check(rc == 0 and len(lines) == 3, "list: one line per application", out + err)
hl = [l for l in lines if l.startswith("halo ")]
check(len(hl) == 1 and halo in hl[0] and "16 ranks: grid 4x4 from MPI_Dims_create, 99.8 % of bytes, job 12.0, 2026-01-02" in hl[0],
      "list: the halo's executable, grid, source, share, job and date", out)
check("here:" not in out, "list outside an allocation names no placement")
check(any("ring-that-is-gone" in l and "(the executable is gone)" in l and "not a stencil code until 2099-01-01" in l
          for l in lines), "list: a verdict, and its executable gone", out)
check(any(l.startswith("probe.sh ") and "(the executable was rebuilt since: another key)" in l for l in lines),
      "list: an executable whose key changed is said to be rebuilt", out)

# inside an allocation: the placement srun would make, as plan makes it
alloc = dict(env, SLURM_JOB_NODELIST="node[1-4]", SLURM_JOB_CPUS_PER_NODE="8(x4)", SLURM_NTASKS="32")
rc, out, err = run("list", env=alloc)
hl = [l for l in out.splitlines() if l.startswith("halo ")]
m = re.search(r"here: (\w+), 32 ranks on 4 nodes, inter-node edges (\d+) \(blocked (\d+)\), dims by MPI_Dims_create", hl[0] if hl else "")
check(rc == 0 and m is not None, "list in an allocation of 32: the halo recomputed by MPI_Dims_create", out + err)
spec32 = os.path.join(work, "halo32.json")
with open(spec32, "w") as f:
    json.dump({"grid": {"dims": [8, 4]}, "stencil": {"offsets": [[0, 1], [0, -1], [1, 0], [-1, 0]]}}, f)
p = subprocess.run([sm, "plan", spec32, "--nodes", "node[1-4]", "--slots", "8(x4)", "--json"],
                   capture_output=True, text=True, env=base_env)
plan = json.loads(p.stdout) if p.returncode == 0 else {}
check(m is not None and plan and int(m.group(2)) == plan["j_sum"] and int(m.group(3)) == plan["blocked"]["j_sum"],
      "list's figures are plan's on the 8x4 grid", "%s vs %s" % (m and m.groups(), plan.get("j_sum")))
check("inside an allocation" in err, "list says it plans on the allocation", err)
check(any(l.startswith("probe.sh ") and "here: blocked and learned again (learned on 16 ranks, not 32)" in l
          for l in out.splitlines()), "list: a grid of its own on another count is learned again", out)
alloc16 = dict(alloc, SLURM_NTASKS="16")
rc, out, err = run("list", env=alloc16)
check(any(l.startswith("probe.sh ") and re.search(r"here: \w+, 16 ranks on 4 nodes", l) for l in out.splitlines()),
      "list: the probe placed on its own count", out)

# show: by path, by name, by key
rc, out, err = run("show", halo, env=env)
check(rc == 0 and "key          %s (its ELF build ID)" % hkey in out and "grid         4x4, from MPI_Dims_create" in out,
      "show PATH: the halo's key and grid", out + err)
spec_text = out[out.index("  spec\n") + 7:] if "  spec\n" in out else ""
try:
    shown = json.loads("\n".join(l[4:] for l in spec_text.splitlines()))
except ValueError:
    shown = None
check(shown is not None and shown["grid"]["dims"] == [4, 4], "show prints the spec as JSON", spec_text)
rc2, out2, _ = run("show", "halo", env=env)
rc3, out3, _ = run("show", hkey, env=env)
check(rc2 == 0 and rc3 == 0 and out2 == out and out3 == out, "show by base name and by key show the same")
path_env = dict(env, PATH=bindir + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
rc, out, err = run("show", "probe.sh", env=path_env)
check(rc == 0 and "hdeadbeef-22" in out and "\"weights\"" in out, "show NAME from PATH: the probe's weighted spec", out + err)
rc, out, err = run("show", "nosuch", env=env)
check(rc == 3 and "nothing stored for nosuch" in err, "show of nothing stored exits 3", err)

# a corrupt entry is named, not fatal
bad = os.path.join(store, "b99.n4.json")
with open(bad, "w") as f:
    f.write("{ not json")
os.chmod(bad, 0o600)
rc, out, err = run("list", env=env)
check(rc == 0 and "unreadable:" in out and "b99.n4.json: invalid JSON at line 1" in out,
      "list: a corrupt entry is reported, the rest listed", out + err)

# forget by name, then everything (and a leftover profile)
rc, out, err = run("forget", "halo", env=env)
check(rc == 0 and "forgot %s/%s.n16.json" % (store, hkey) in out and not os.path.exists(os.path.join(store, hkey + ".n16.json")),
      "forget NAME removes its entry", out + err)
rc, out, err = run("forget", "halo", env=env)
check(rc == 3, "forget of what is gone exits 3", str(rc))
prof = os.path.join(store, "profiles", "stencil-map.abc123")
os.makedirs(prof, mode=0o700)
os.chmod(os.path.join(store, "profiles"), 0o700)
open(os.path.join(prof, "rank.0"), "w").close()
rc, out, err = run("forget", "--all", env=env)
check(rc == 0 and sorted(os.listdir(store)) == ["profiles"] and not os.listdir(os.path.join(store, "profiles")),
      "forget --all empties the store and its leftover profiles", out + err + str(os.listdir(store)))

# ---- the store's checks ------------------------------------------------------
os.chmod(store, 0o777)
rc, out, err = run("list", env=env)
check(rc == 4 and "mode 777 is open to others" in err, "a store open to others is refused (exit 4)", err)
os.chmod(store, 0o700)
os.rename(store, store + ".real")
os.symlink(store + ".real", store)
rc, out, err = run("list", env=env)
check(rc == 4 and "is a symbolic link" in err, "a store that is a symbolic link is refused", err)
os.unlink(store)
os.rename(store + ".real", store)

# ---- where the store is --------------------------------------------------------
home = os.path.join(work, "home")
os.makedirs(os.path.join(home, ".local", "state", "stencilmap", "learned"), mode=0o700)
hstore = os.path.join(home, ".local", "state", "stencilmap", "learned")
os.chmod(os.path.join(home, ".local", "state", "stencilmap"), 0o700)
entry(hstore, hkey, halo)
rc, out, err = run("list", env={"HOME": home, "XDG_STATE_HOME": "relative/ignored"})
check(rc == 0 and out.startswith("halo "), "HOME's store when XDG_STATE_HOME is not absolute", out + err)
user = pwd.getpwuid(os.getuid()).pw_name
site = os.path.join(work, "site")
os.makedirs(os.path.join(site, user), mode=0o700)
os.chmod(site, 0o1777)
os.chmod(os.path.join(site, user), 0o700)
entry(os.path.join(site, user), "b77", "/opt/lbm", ranks=16)
rc, out, err = run("list", "--learned-dir", site, env=env)
check(rc == 0 and out.startswith("lbm ") and "/opt/lbm" in out, "--learned-dir DIR: the store DIR/<user>", out + err)
conf = os.path.join(work, "slurm.conf")
with open(conf, "w") as f:
    f.write("ClusterName=x\nPlugStackConfig=%s/plugstack.conf\n" % work)
with open(os.path.join(work, "plugstack.conf"), "w") as f:
    f.write("required /usr/lib/slurm/stencil_map.so record_dir=/x learned_dir=%s default=learn\n" % site)
rc, out, err = run("list", env=dict(env, SLURM_CONF=conf))
check(rc == 0 and out.startswith("lbm "), "learned_dir= on the plugstack line is the site's root", out + err)

sys.exit(summary())
PY
