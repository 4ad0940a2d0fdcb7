#!/usr/bin/env python3
"""Issue 27: every test of the curated library, the public corpus and the
compiled corpus that the symbolic builder accepts gets the same listing under
`--encoding symbolic` as under the default encoding.

For each test: `check --states all` twice (default, then `--encoding
symbolic`), `Time` lines removed. A symbolic run that refuses the test as
outside its fragment is counted `outside`; a run whose two listings differ is
`differing` (printed with a unified diff). Exit 1 when any differs.

Usage: scripts/symbolic_listings.py [--bin target/release/ptx-litmus] [--timeout S] [DIR ...]
"""

import argparse
import difflib
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DIRS = ["litmus", "tests/conformance/litmus", "litmus/compiled"]


def tests(dirs):
    seen = set()
    for d in dirs:
        base = ROOT / d
        files = sorted(base.rglob("*.litmus"))
        # The compiled corpus also lists `.harness` files in its expected.csv.
        csv = base / "expected.csv"
        if csv.is_file():
            for line in csv.read_text().splitlines()[1:]:
                name = line.split(",")[0].strip()
                if name.endswith(".harness"):
                    files.append(base / name)
        for f in files:
            # `litmus/` contains `litmus/compiled/`: each test once.
            if f not in seen:
                seen.add(f)
                yield f


def listing(binary, test, timeout, extra):
    cmd = [binary, "check", "-q", "--states", "all", *extra, str(test)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    out = [l for l in p.stdout.splitlines() if not l.startswith("Time ")]
    return p.returncode, "\n".join(out) + "\n" + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target/release/ptx-litmus"))
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("dirs", nargs="*", default=DIRS)
    a = ap.parse_args()
    counts = {"accepted": 0, "outside": 0, "differing": 0, "timeout": 0}
    outside_reasons = {}
    for t in tests(a.dirs):
        rc_sym, sym = listing(a.bin, t, a.timeout, ["--encoding", "symbolic"])
        if rc_sym is None:
            counts["timeout"] += 1
            print(f"TIMEOUT (symbolic) {t.relative_to(ROOT)}")
            continue
        if rc_sym != 0 and "symbolic encoding" in sym:
            counts["outside"] += 1
            reason = sym.strip().splitlines()[-1]
            # Group by what is not covered (the text after the quoted instruction).
            kind = reason.rsplit("`: ", 1)[-1] if "`: " in reason else reason.split("this test: ", 1)[-1]
            outside_reasons.setdefault(kind[:100], []).append(t.name)
            continue
        counts["accepted"] += 1
        rc_def, default = listing(a.bin, t, a.timeout, [])
        if rc_def != rc_sym or default != sym:
            counts["differing"] += 1
            print(f"DIFFERS {t.relative_to(ROOT)} (exit {rc_def} vs {rc_sym})")
            diff = difflib.unified_diff(default.splitlines(), sym.splitlines(), "default", "symbolic", lineterm="")
            print("\n".join(diff))
    for reason, names in sorted(outside_reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"outside {len(names):4}: {reason}")
    print(" ".join(f"{k} {v}" for k, v in counts.items()))
    sys.exit(1 if counts["differing"] else 0)


if __name__ == "__main__":
    main()
