#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stencil-map learn on synthetic profiles whose truth is known: row- and
# column-major grids, unequal weights, periodic dimensions, a recorded
# MPI_Cart_create, noise; the learned spec must equal the truth.  And
# score --profile: the bytes across nodes, the warning for a spec that
# explains the profile badly.  Plain exit status for automake's harness.

SM=${STENCIL_MAP:?STENCIL_MAP must name the stencil-map binary}
TOP=${STENCILMAP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 99; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/learn-test.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

exec python3 - "$SM" "$WORK" "$TOP" <<'PY'
import itertools, json, os, subprocess, sys

sm, work, top = sys.argv[1:4]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(top, "tests", "lib"))
from checks import check, summary

def coords(r, dims, colmajor):
    c = [0] * len(dims)
    order = range(len(dims)) if colmajor else reversed(range(len(dims)))
    for d in order:
        c[d] = r % dims[d]
        r //= dims[d]
    return c

def rank(c, dims, colmajor):
    r = 0
    order = reversed(range(len(dims))) if colmajor else range(len(dims))
    for d in order:
        r = r * dims[d] + c[d]
    return r

def write_profile(name, dims, periods, offsets, bytes_of, colmajor=False, cart=None, extra=None, size=None):
    """one rank.<r> file per rank; traffic rank -> rank+offset with bytes_of[k]
    bytes per pair (10 messages), plus extra {(src, dst): bytes}"""
    d = os.path.join(work, name)
    os.mkdir(d)
    p = 1
    for n in dims:
        p *= n
    rows = {r: {} for r in range(p)}
    for r in range(p):
        c = coords(r, dims, colmajor)
        for k, o in enumerate(offsets):
            t = []
            for i in range(len(dims)):
                x = c[i] + o[i]
                if periods[i]:
                    x %= dims[i]
                elif not 0 <= x < dims[i]:
                    break
                t.append(x)
            else:
                q = rank(t, dims, colmajor)
                m, b = rows[r].get(q, (0, 0))
                rows[r][q] = (m + 10, b + 10 * bytes_of[k])
    for (s, t), b in (extra or {}).items():
        m, b0 = rows[s].get(t, (0, 0))
        rows[s][t] = (m + 1, b0 + b)
    for r in range(p):
        with open(os.path.join(d, "rank.%d" % r), "w") as f:
            f.write("stencilmap-profile 1\nrank %d %d\n" % (r, p))
            if cart:
                cd, cp, order = cart
                f.write("cart %d %d %s %s 0 %d\n" % (p, len(cd), " ".join(map(str, cd)),
                                                   " ".join("1" if x else "0" for x in cp), order(r)))
            for q in sorted(rows[r]):
                f.write("d %d %d %d\n" % (q, rows[r][q][0], rows[r][q][1]))
    return d

def learn(d, *args):
    p = subprocess.run([sm, "learn", d] + list(args), capture_output=True, text=True)
    spec = None
    if p.returncode == 0:
        try:
            spec = json.loads(p.stdout)
        except ValueError:
            pass
    return p.returncode, spec, p.stderr

def same_spec(spec, dims, periods, offsets, weights):
    """the spec equals the truth: dims, periods, the offset set with weights
    (relative, the smallest 1; none given means all equal)"""
    if spec is None:
        return False, "no spec"
    if spec["grid"]["dims"] != dims or spec["grid"]["periods"] != periods:
        return False, "grid %s" % spec["grid"]
    got = spec["stencil"]["offsets"]
    gw = spec["stencil"].get("weights", [1] * len(got))
    lo = min(weights)
    want = {tuple(o): w / lo for o, w in zip(offsets, weights)}
    have = {tuple(o): w for o, w in zip(got, gw)}
    if set(want) != set(have):
        return False, "offsets %s" % sorted(have)
    for o in want:
        if abs(want[o] - have[o]) > 1e-3 * want[o]:
            return False, "weight of %s: %s, not %s" % (o, have[o], want[o])
    return True, ""

def flip(o):
    return list(reversed(o))

five = [[1, 0], [-1, 0], [0, 1], [0, -1]]
seven = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
nine = [list(o) for o in itertools.product((-1, 0, 1), repeat=2) if o != (0, 0)]

# 1. LAMMPS-like: 4x4x8 periodic, row-major, z messages 5.6 times x's
w = [1000, 1000, 1000, 1000, 5600, 5600]
d = write_profile("lammps", [4, 4, 8], [True] * 3, seven, w)
rc, spec, err = learn(d)
ok, why = same_spec(spec, [4, 4, 8], [True] * 3, seven, w)
check(rc == 0 and ok, "4x4x8 periodic, unequal weights: learned exactly", why or err)
check("100.0 % of bytes by 6 offsets on 4x4x8, periodic" in err, "the report says how much it explains", err)

# 2. PETSc-like: 16x8, x fastest (column-major), not periodic, 5pt; the
#    learned spec says it row-major: dims and offsets reversed
d = write_profile("petsc", [16, 8], [False, False], five, [800] * 4, colmajor=True)
rc, spec, err = learn(d)
ok, why = same_spec(spec, [8, 16], [False, False], [flip(o) for o in five], [1] * 4)
check(rc == 0 and ok, "16x8 column-major: learned as 8x16 row-major", why or err)
check(spec is not None and "weights" not in spec["stencil"], "equal weights are left out")

# 3. column-major, unequal weights, periodic in x only
w = [300, 300, 100, 100]
d = write_profile("colper", [6, 4], [True, False], five, w, colmajor=True)
rc, spec, err = learn(d)
ok, why = same_spec(spec, [4, 6], [False, True], [flip(o) for o in five], w)
check(rc == 0 and ok, "6x4 column-major, periodic in x, weights 3:1", why or err)

# 4. row-major 9-point, diagonals lighter, periodic in the first dimension
w = [250 if o[0] and o[1] else 1000 for o in nine]
d = write_profile("nine", [6, 5], [True, False], nine, w)
rc, spec, err = learn(d)
ok, why = same_spec(spec, [6, 5], [True, False], nine, w)
check(rc == 0 and ok, "6x5 9-point, diagonals a quarter, periodic in y", why or err)

# 5. a recorded MPI_Cart_create the traffic follows
d = write_profile("cart", [4, 6], [False, True], five, [64] * 4, cart=([4, 6], [False, True], lambda r: r))
rc, spec, err = learn(d)
ok, why = same_spec(spec, [4, 6], [False, True], five, [1] * 4)
check(rc == 0 and ok and "MPI_Cart_create" in err, "the recorded MPI_Cart_create grid is used", why or err)

# 6. a recorded Cartesian grid the traffic does not follow (the ranks were
#    reordered): inferred instead
d = write_profile("reordered", [4, 6], [False, False], five, [64] * 4,
                  cart=([6, 4], [False, False], lambda r: (r * 5) % 24))
rc, spec, err = learn(d)
ok, why = same_spec(spec, [4, 6], [False, False], five, [1] * 4)
check(rc == 0 and ok and "inferred" in err, "a reordered Cartesian grid is not trusted", why or err)

# 7. some noise: rank 0 gathers from everyone (a few % of the bytes)
extra = {(r, 0): 2000 for r in range(1, 32)}
d = write_profile("noise", [4, 8], [False, False], five, [1000] * 4, extra=extra)
rc, spec, err = learn(d)
ok, why = same_spec(spec, [4, 8], [False, False], five, [1] * 4)
check(rc == 0 and ok and "warning" not in err, "a gather beside the stencil changes nothing", why or err)

# 8. mostly irregular traffic: learned, but with a warning naming what is
#    left out (all-to-all would not do: on a torus it is a stencil too)
import random
rng = random.Random(19)
extra = {(rng.randrange(16), rng.randrange(16)): rng.randrange(1000, 9000) for _ in range(60)}
extra = {k: v for k, v in extra.items() if k[0] != k[1]}
d = write_profile("alltoall", [4, 4], [False, False], five, [100] * 4, extra=extra)
rc, spec, err = learn(d)
check(rc == 0 and "warning: the spec explains only" in err and "to offset" in err,
      "traffic that is no stencil is warned about", err)

# 9. --output: the spec to the file, the report to standard output
out = os.path.join(work, "learned.json")
p = subprocess.run([sm, "learn", os.path.join(work, "lammps"), "--output", out], capture_output=True, text=True)
check(p.returncode == 0 and "by 6 offsets" in p.stdout and json.load(open(out))["grid"]["dims"] == [4, 4, 8],
      "--output writes the file and reports on stdout", p.stderr)
# the learned spec is an ordinary spec
p = subprocess.run([sm, "plan", out, "--nodes", "n[1-8]", "--slots", "16"], capture_output=True, text=True)
check(p.returncode == 0, "plan takes the learned spec", p.stderr)

# 9b. a profile that SIGTERM made the ranks write early is still learned, with a note
d = write_profile("partial", [4, 4], [False, False], five, [100] * 4)
for r in range(16):
    path = os.path.join(d, "rank.%d" % r)
    lines = open(path).read().split("\n")
    open(path, "w").write("\n".join(lines[:2] + ["partial 15"] + lines[2:]))
rc, spec, err = learn(d)
ok, why = same_spec(spec, [4, 4], [False, False], five, [1] * 4)
check(rc == 0 and ok and "16 of 16 ranks were stopped by a signal" in err, "a partial profile is learned, with a note", why or err)

# 10. bad profiles
d = write_profile("missing", [2, 2], [False, False], five, [1] * 4)
os.remove(os.path.join(d, "rank.3"))
rc, spec, err = learn(d)
check(rc == 2 and "rank.3" in err, "a missing rank file is named", err)
with open(os.path.join(d, "rank.3"), "w") as f:
    f.write("stencilmap-profile 1\nrank 3 4\nd 9 1 1\n")
rc, spec, err = learn(d)
check(rc == 2 and "rank.3:3" in err, "a bad row is named with its line", err)
rc, spec, err = learn(os.path.join(work, "nowhere"))
check(rc == 2, "a missing directory is bad input", err)

# 11. score --profile: bytes across nodes, from the measured traffic
lam = os.path.join(work, "lammps")
p = subprocess.run([sm, "score", out, "--profile", lam, "--nodes", "n[1-8]", "--slots", "16", "--json"],
                   capture_output=True, text=True)
ok = p.returncode == 0
j = json.loads(p.stdout) if ok else {}
# blocked: 16 consecutive ranks per node = half an 4x8 layer... count it here
total = across = 0
for r in range(128):
    for line in open(os.path.join(lam, "rank.%d" % r)):
        if line.startswith("d "):
            _, q, m, b = line.split()
            total += int(b)
            across += int(b) if r // 16 != int(q) // 16 else 0
rows = {x["placement"]: x for x in j.get("placements", [])}
check(ok and abs(j["bytes"] - total) < 0.5 and abs(rows["blocked"]["bytes_across"] - across) < 0.5,
      "score --profile: blocked's bytes across nodes", p.stdout + p.stderr)
check(ok and len(rows) == 2 and min(x["bytes_across"] for x in rows.values()) <= across and j["covered_share"] == 1.0,
      "score --profile: the plan sends no more than blocked", p.stdout)
# a hand-written 7pt spec in the wrong order covers the traffic badly
bad = os.path.join(work, "wrong.json")
json.dump({"grid": {"dims": [8, 4, 4], "periods": [True] * 3}, "stencil": "7pt"}, open(bad, "w"))
p = subprocess.run([sm, "score", bad, "--profile", lam, "--nodes", "n[1-8]", "--slots", "16"],
                   capture_output=True, text=True)
check(p.returncode == 0 and "warning: the spec's stencil covers only" in p.stderr,
      "score --profile warns about a spec in the wrong order", p.stdout + p.stderr)
check(p.returncode == 0 and "warning: wrong dimension order: the spec's grid is [8, 4, 4], the application's [4, 4, 8]"
      in p.stderr, "score --profile names the wrong dimension order", p.stderr)
# plan --profile: the same warnings, the plan made all the same; the right
# grid unweighted is warned about its weights, the learned spec not at all
p = subprocess.run([sm, "plan", bad, "--profile", lam, "--nodes", "n[1-8]", "--slots", "16"],
                   capture_output=True, text=True)
check(p.returncode == 0 and "stencil-map plan: warning: wrong dimension order" in p.stderr
      and "stencil-map: " in p.stdout, "plan --profile warns about a spec in the wrong order", p.stdout + p.stderr)
json.dump({"grid": {"dims": [4, 4, 8], "periods": [True] * 3}, "stencil": "7pt"}, open(bad, "w"))
p = subprocess.run([sm, "plan", bad, "--profile=" + lam, "--nodes", "n[1-8]", "--slots", "16"],
                   capture_output=True, text=True)
check(p.returncode == 0 and "warning: the spec has no weights" in p.stderr and "order" not in p.stderr,
      "plan --profile warns about missing weights", p.stderr)
learned_lam = os.path.join(work, "learned-lammps.json")
subprocess.run([sm, "learn", lam, "--output", learned_lam], capture_output=True, text=True)
p = subprocess.run([sm, "plan", learned_lam, "--profile", lam, "--nodes", "n[1-8]", "--slots", "16"],
                   capture_output=True, text=True)
check(p.returncode == 0 and "warning" not in p.stderr, "plan --profile: the learned spec fits", p.stderr)
p = subprocess.run([sm, "plan", learned_lam, "--nodes", "n[1-8]", "--slots", "16", "--profile"],
                   capture_output=True, text=True)
check(p.returncode == 2 and "--profile needs a DIR" in p.stderr, "plan --profile without DIR", p.stderr)
p = subprocess.run([sm, "plan", learned_lam, "--profile", os.path.join(work, "nowhere"), "--nodes", "n[1-8]",
                    "--slots", "16"], capture_output=True, text=True)
check(p.returncode == 2 and "--profile " in p.stderr and "rank.0" in p.stderr, "plan --profile of no profile",
      p.stderr)
p = subprocess.run([sm, "score", bad, "--profile", lam], capture_output=True, text=True)
check(p.returncode == 2 and "--nodes" in p.stderr, "score --profile needs --nodes and --slots", p.stderr)

sys.exit(summary())
PY
