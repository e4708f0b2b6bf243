#!/usr/bin/env python3
"""Lists include cycles and call cycles between the files and modules of src/.

Include graph: file A -> file B when A has #include "B" (resolved against A's folder, then src/).
Call graph: file A -> file B when A's object file needs a symbol B's defines (nm on the objects
of the library build, found through BUILD/compile_commands.json). A module is a folder of src/
(src/io, src/data, ...; files directly in src/ form the module "src").

A cycle is a strongly connected component of more than one node (or a node with an edge to
itself); each is printed with one closed path through it. Exit status: 0 no cycle, 1 cycles
listed, 2 usage or tool errors.

Usage: check-cycles.py [--build BUILD] [--scope io,data,graph,core] [--nm NM] SRC_DIR
  --build  the meson build directory: adds the call graphs (without it: includes only)
  --scope  comma-separated modules to check (default: all); a file outside the scope and the
           edges to it are left out, so a cycle that only closes through them is not seen
"""
import argparse
import json
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(rel):
    """src-relative path -> module name (its folder; "src" for files directly in src/)."""
    head, _, _ = rel.partition("/")
    return head if "/" in rel else "src"


def source_files(src):
    out = []
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(root, name), src))
    return sorted(out)


def include_graph(src, files):
    known = set(files)
    graph = {f: set() for f in files}
    for f in files:
        with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            here = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            for cand in (here, os.path.normpath(inc)):
                if cand in known:
                    graph[f].add(cand)
                    break
    return graph


def library_objects(build, src):
    """{src-relative source: object path} for the library's objects (one per source)."""
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as fh:
        entries = json.load(fh)
    src = os.path.realpath(src)
    objects = {}
    for e in entries:
        target = e["output"].split("/")[-2] if "/" in e["output"] else ""
        # the float library and its kernel copies; not the double-precision test build
        if not target.startswith(("libgat.", "libgatfused_base")):
            continue
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if not path.startswith(src + os.sep):
            continue
        rel = os.path.relpath(path, src)
        objects.setdefault(rel, os.path.join(e["directory"], e["output"]))
    return objects


def call_graph(objects, nm):
    defined, needed = {}, {}
    for rel, obj in objects.items():
        try:
            out = subprocess.run([nm, "-P", obj], check=True, capture_output=True,
                                 text=True).stdout
        except (OSError, subprocess.CalledProcessError) as err:
            print(f"check-cycles: cannot run {nm} on {obj} (is the build complete?): {err}",
                  file=sys.stderr)
            sys.exit(2)
        needed[rel] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            sym, kind = parts[0], parts[1]
            if kind == "U":
                needed[rel].add(sym)
            elif kind.isupper() and kind not in "UVW":
                defined.setdefault(sym, rel)
    graph = {rel: set() for rel in objects}
    for rel, syms in needed.items():
        for sym in syms:
            owner = defined.get(sym)
            if owner and owner != rel:
                graph[rel].add(owner)
    return graph


def module_graph(graph):
    out = {}
    for a, succ in graph.items():
        ma = module_of(a)
        out.setdefault(ma, set())
        for b in succ:
            mb = module_of(b)
            if mb != ma:
                out[ma].add(mb)
            out.setdefault(mb, set())
    return out


def restrict(graph, keep):
    return {a: {b for b in succ if keep(b)} for a, succ in graph.items() if keep(a)}


def components(graph):
    """Strongly connected components (Tarjan, iterative), each sorted."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    v = stack.pop()
                    on.discard(v)
                    comp.append(v)
                    if v == node:
                        break
                comps.append(sorted(comp))
    return comps


def closed_path(graph, comp):
    """A shortest cycle through comp[0] inside comp: [a, ..., a]."""
    inside, start = set(comp), comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        following = []
        for a in frontier:
            for b in sorted(graph[a]):
                if b == start:
                    path = [a]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return path[::-1] + [start]
                if b in inside and b not in prev:
                    prev[b] = a
                    following.append(b)
        frontier = following
    return comp + [comp[0]]


def report(kind, graph):
    cycles = [c for c in components(graph) if len(c) > 1 or c[0] in graph[c[0]]]
    for comp in cycles:
        path = closed_path(graph, comp)
        print(f"{kind} cycle: {' -> '.join(path)}")
        if len(comp) > len(path) - 1:
            print(f"  (its component: {', '.join(comp)})")
    return len(cycles)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("--build")
    ap.add_argument("--scope", help="comma-separated modules (folders of src/) to check")
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"))
    a = ap.parse_args()
    if not os.path.isdir(a.src):
        print(f"check-cycles: no directory {a.src}", file=sys.stderr)
        return 2
    scope = set(a.scope.split(",")) if a.scope else None

    def keep(f):
        return scope is None or module_of(f) in scope

    files = source_files(a.src)
    found = report("include", restrict(include_graph(a.src, files), keep))
    checked = "includes"
    if a.build:
        calls = call_graph(library_objects(a.build, a.src), a.nm)
        found += report("file call", restrict(calls, keep))
        found += report("module call", restrict(module_graph(calls), lambda m: scope is None or
                                                m in scope))
        checked = "includes and calls"
    where = ", ".join(sorted(scope)) if scope else f"all of {a.src}"
    print(f"check-cycles: {found} cycle(s) in the {checked} of {where}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
