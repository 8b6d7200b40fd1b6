#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The manual holds together: README.md stays one page a newcomer reads at
# once (at most 300 lines) and keeps its two commands; every relative link
# of README.md and doc/*.md names a file of the tree and every #anchor a
# heading of the page it points to (GitHub's rule for heading ids); every
# page of doc/ is listed in the index, doc/README.md, and links back to it.
# Plain exit status for automake's harness; one line per check.

TOP=${STENCILMAP_TOP_SRCDIR:-$(dirname "$0")/../..}
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 99; }

exec python3 - "$TOP" <<'PY'
import os, re, sys

top = sys.argv[1]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(top, "tests", "lib"))
from checks import check, summary

def prose(path):
    """the page's lines outside fenced code blocks"""
    out, fenced = [], False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out

def anchors(path):
    """the ids GitHub gives the page's headings"""
    ids, seen = set(), {}
    for line in prose(path):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        ids.add(slug if n == 0 else "%s-%d" % (slug, n))
    return ids

pages = ["README.md"] + sorted(
    "doc/" + f for f in os.listdir(os.path.join(top, "doc")) if f.endswith(".md"))

readme = open(os.path.join(top, "README.md"), encoding="utf-8").read()
nlines = readme.count("\n")
check(nlines <= 300, "README.md is at most 300 lines (%d)" % nlines)
check("## Two commands" in readme and "./contrib/demo.sh" in readme
      and "./tests/run-all.sh" in readme,
      "README.md keeps its two commands, contrib/demo.sh and tests/run-all.sh")

links = bad = 0
for page in pages:
    here = os.path.dirname(os.path.join(top, page))
    for line in prose(os.path.join(top, page)):
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            links += 1
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(here, path)) if path else os.path.join(top, page)
            if not os.path.exists(dest):
                bad += 1
                check(False, "%s links to a file of the tree" % page, target)
            elif frag and frag not in anchors(dest):
                bad += 1
                check(False, "%s links to a heading of %s" % (page, path or page), target)
check(links > 50 and bad == 0, "every relative link and anchor resolves (%d links)" % links)

index = open(os.path.join(top, "doc", "README.md"), encoding="utf-8").read()
for page in pages:
    if page.startswith("doc/") and page != "doc/README.md":
        name = os.path.basename(page)
        text = open(os.path.join(top, page), encoding="utf-8").read()
        check("](%s)" % name in index, "the index lists %s" % page)
        check("](README.md)" in text, "%s links back to the index" % page)
        check("](%s)" % page in readme, "README.md links to %s" % page)
sys.exit(summary())
PY
