#!/usr/bin/env python3
"""List the functions longer than a limit, longest first (project rule: under ~80 lines at width 120).

  scripts/long_functions.py [DIR] [LIMIT]      # defaults: src 80

A function's length runs from its `fn` line to the closing brace at the same
indentation, so a nested function or closure counts in its host too. Prints
`LINES PATH:LINE NAME`; exits 0 whatever it finds (a report, not a gate).
"""
import os
import re
import sys

FN = re.compile(r'^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)')


def functions(path):
    """(length, first line, name) of every function of one file that has a body."""
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        indent = len(m.group(1))
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith(("{", ";")):
            j += 1
        if j == len(lines) or lines[j].rstrip().endswith(";"):
            continue  # a declaration without a body (trait item)
        close = " " * indent + "}"
        k = j + 1
        while k < len(lines) and not (lines[k].startswith(close) and not lines[k][indent].isspace()):
            k += 1
        yield k - i + 1, i + 1, m.group(7)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "src"
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 80
    found = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".rs"):
                p = os.path.join(d, f)
                found += [(n, p, line, name) for n, line, name in functions(p) if n > limit]
    for n, p, line, name in sorted(found, key=lambda x: (-x[0], x[1], x[2])):
        print(f"{n:4} {p}:{line} {name}")


if __name__ == "__main__":
    main()
