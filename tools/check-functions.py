#!/usr/bin/env python3
"""Lists the functions of the C files under a directory that are longer than a number of lines.

A function's length counts its lines from the one holding its name to its closing brace. The
scan is lexical: comments, strings and preprocessor lines (with their continuations) are blanked
first, then each brace block at file level whose header ends in a parameter list is a function,
named by the identifier before that list (FN(name) / GAT_I_FN(name), the per-ISA kernel names,
by the name inside).

With --fail N, a function over N lines that ALLOWED does not name makes the exit status 1;
ALLOWED maps "path:function" (path relative to the directory scanned) to the reason it may be
longer for now. Exit status: 0 none (or all allowed), 1 some, 2 usage errors.

Usage: check-functions.py [--list N] [--fail N] SRC_DIR
  --list  list every function over N lines (default 120, the style's limit)
  --fail  fail on functions over N lines not in ALLOWED (default: list only)
"""
import argparse
import os
import re
import sys

# Functions over the --fail limit that others are shortening now: remove each entry when the
# branch that shortens it is merged.
ALLOWED = {
}
# (also over the style's 120 lines but under 150, so not listed: graph/sample.c:gat_sampler_sample,
# helper sampler's)

HEADER_NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")
WRAPPERS = {"FN", "GAT_I_FN"}
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "__attribute__", "_Alignas",
             "__declspec"}


def blank(text):
    """text with comments, string and character literals and preprocessor lines replaced by
    spaces (newlines kept, so line numbers stay)."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # a directive, to its last continued line
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                if text.startswith("/*", i):  # a comment inside the directive
                    end = text.find("*/", i + 2)
                    end = n if end < 0 else end + 2
                    out.append(re.sub(r"[^\n]", " ", text[i:end]))
                    i = end
                    continue
                out.append(" ")
                i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            if c == "\n":
                line_start = True
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """[(name, first line, line count)] of the function definitions in C source text."""
    src = blank(text)
    found, depth, header_start = [], 0, 0
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "{":
            if depth == 0:
                header = src[header_start:i]
                fn = function_name(header)
                if fn:
                    name, offset = fn
                    first = src.count("\n", 0, header_start + offset) + 1
                    body_start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if fn:
                    last = src.count("\n", 0, i) + 1
                    found.append((name, first, last - first + 1))
                    fn = None
                header_start = i + 1
        elif c == ";" and depth == 0:
            header_start = i + 1
        i += 1
    return found


def function_name(header):
    """(name, offset of the name in header) if header (the text between the previous file-level
    declaration and a file-level '{') is a function's, else None."""
    text = header.rstrip()
    # trailing attributes after the parameter list
    while True:
        m = re.search(r"__attribute__\s*\(\(.*\)\)\s*$", text, re.S)
        if not m:
            break
        text = text[:m.start()].rstrip()
    if not text.endswith(")") or "=" in text.replace("==", ""):
        return None
    for m in HEADER_NAME.finditer(text):
        name = m.group(1)
        if name in NOT_NAMES:
            continue
        if name in WRAPPERS:
            inner = re.match(r"\s*([A-Za-z_]\w*)\s*\)", text[m.end():])
            if inner:
                return inner.group(1), m.start()
        return name, m.start()
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("--list", type=int, default=120, metavar="N")
    ap.add_argument("--fail", type=int, metavar="N")
    a = ap.parse_args()
    if not os.path.isdir(a.src):
        print(f"check-functions: no directory {a.src}", file=sys.stderr)
        return 2
    rows = []
    for root, _, names in os.walk(a.src):
        for fname in sorted(names):
            if not fname.endswith((".c", ".h")):
                continue
            path = os.path.join(root, fname)
            rel = os.path.relpath(path, a.src)
            with open(path, encoding="utf-8", errors="replace") as fh:
                for name, line, count in functions(fh.read()):
                    rows.append((count, rel, line, name))
    limit = min(a.list, a.fail) if a.fail is not None else a.list
    failed = 0
    for count, rel, line, name in sorted(rows, key=lambda r: (-r[0], r[1], r[2])):
        if count <= limit:
            continue
        note = ""
        if a.fail is not None and count > a.fail:
            reason = ALLOWED.get(f"{rel}:{name}")
            if reason:
                note = f" (allowed: {reason})"
            else:
                note = f" (over {a.fail}: not allowed)"
                failed += 1
        print(f"{rel}:{line}: {name} {count} lines{note}")
    if a.fail is not None:  # entries no longer needed: a note, so that merges do not fail on them
        long = {f"{r[1]}:{r[3]}" for r in rows if r[0] > a.fail}
        for key in sorted(set(ALLOWED) - long):
            print(f"check-functions: note: {key} is allowed but not over {a.fail} lines "
                  "(its ALLOWED entry can go)")
    over = sum(1 for r in rows if r[0] > a.list)
    print(f"check-functions: {over} of {len(rows)} functions in {a.src} over {a.list} lines" +
          (f", {failed} over {a.fail} not allowed" if a.fail is not None else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
