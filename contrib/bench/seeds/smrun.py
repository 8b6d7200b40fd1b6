# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs `stencil-map compare` and `score` for the seeds bench and hands back
their JSON, so report.py only reads figures.  Every call is recorded as the
command a reader can paste (spec files are written under the work dir and
named in the command), and its CPU time is summed.
"""
import json
import os
import resource
import subprocess
from concurrent.futures import ThreadPoolExecutor


class StencilMap:
    def __init__(self, binary, work, keep, top):
        """work: scratch specs (one per instance of a set, overwritten);
        keep: the specs a printed command names, kept beside the results;
        top: the source tree, which printed paths are relative to."""
        self.binary = binary
        self.work = work
        self.keep = keep
        self.top = top
        self.calls = 0
        self.jobs = 2
        os.makedirs(work, exist_ok=True)
        os.makedirs(keep, exist_ok=True)

    def cpu_seconds(self):
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    def spec(self, name, dims, stencil, keep=False, objective=None):
        """Writes a spec file (dims, or an int d for MPI_Dims_create's
        balanced d dims; stencil name or offsets object) and returns its
        path."""
        path = os.path.join(self.keep if keep else self.work, name + ".json")
        grid = {"dims": "auto", "ndims": dims} if isinstance(dims, int) else {"dims": list(dims)}
        with open(path, "w") as f:
            json.dump(dict({"grid": grid, "stencil": stencil}, **({"objective": objective} if objective else {})), f)
        return path

    def _run(self, args):
        self.calls += 1
        out = subprocess.run([self.binary] + args + ["--json"], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit("seeds bench: stencil-map %s failed (exit %d): %s"
                             % (" ".join(args), out.returncode, out.stderr.strip()))
        return json.loads(out.stdout)

    def compare(self, spec, nodes, slots, hostfiles=None):
        """{algorithm: row} of `compare`, and the command."""
        args = ["compare", spec, "--nodes", "n[1-%d]" % nodes, "--slots", str(slots)]
        if hostfiles:
            args += ["--hostfiles", hostfiles]
        rows = {r["algorithm"]: r for r in self._run(args)["algorithms"]}
        return rows, "stencil-map compare %s --nodes 'n[1-%d]' --slots %s%s" % (
            self.shown(spec), nodes, slots, " --hostfiles " + hostfiles if hostfiles else "")

    def shown(self, path):
        """A path as a command in the report names it: from the source tree."""
        return os.path.relpath(path, self.top)

    def compare_many(self, cases):
        """compare on many (name, dims, stencil, nodes, slots), self.jobs at
        a time (each spec its own scratch file); their rows, in order."""
        def one(c):
            return self.compare(self.spec(c[0], c[1], c[2]), c[3], c[4])[0]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(one, cases))

    def score(self, spec, hostfile):
        args = ["score", spec, "--hostfile", hostfile]
        return self._run(args), "stencil-map score %s --hostfile %s" % (self.shown(spec), self.shown(hostfile))


def weighted(row, key):
    """The weighted figure when the stencil has weights, else the plain one."""
    return row.get("weighted", {}).get(key, row[key])


def no_worse(a, b):
    """auto's objective (default max): J_max first, then J_sum, weighted
    when the stencil has weights."""
    return (weighted(a, "j_max"), weighted(a, "j_sum")) <= (weighted(b, "j_max"), weighted(b, "j_sum"))
