#!/usr/bin/env python3
"""Generate the C11 litmus corpus with diyone7 and record herd7's verdicts.

  scripts/c11_corpus.py OUT_DIR [--per-shape N] [--seed S] [--herd-only]

For each shape (MP, SB, LB, IRIW, WRC, ISA2, 2+2W, R, S, CoRR, CoWW) the
script draws N cycles (seeded, so the corpus is reproducible): every location
plain (Na) or atomic, every atomic access an order diy writes (Rlx, Acq/Con,
Rel, Sc), every program-order edge plain, a fence diy writes (Rlx, Con, Acq,
Rel, AR, Sc) or, from a read, a dependency; reads of some shapes become
read-modify-writes (Exch, Fetch.Add). diyone7 writes each test; herd7 then
decides them under herd's rc11.cat and under rc11.cat without its
No-Thin-Air line, and the two logs are written next to the tests:
  OUT_DIR/herd-rc11.log, OUT_DIR/herd-rc11-nonta.log (Time lines dropped).
The committed corpus is `scripts/c11_corpus.py tests/c11/corpus --per-shape 30 --seed 1`.
Needs ../shared/tools/herdtools7 (or HERDTOOLS=DIR).
"""
import os, random, subprocess, sys, tempfile, shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.environ.get("HERDTOOLS", os.path.join(ROOT, "..", "shared", "tools", "herdtools7"))
BIN = os.path.join(TOOLS, "bin")
LIB = os.path.join(TOOLS, "lib", "herd")

# A shape: edges (name, src type, dst type, changes location). Event i is the
# source of edge i. "P" edges are program order between locations (Pod or a
# fence or a dependency), "S" same-location program order, "X" the RMW edge.
SHAPES = {
    "MP":   [("P", "W", "W"), ("Rfe", "W", "R"), ("P", "R", "R"), ("Fre", "R", "W")],
    "SB":   [("P", "W", "R"), ("Fre", "R", "W"), ("P", "W", "R"), ("Fre", "R", "W")],
    "LB":   [("P", "R", "W"), ("Rfe", "W", "R"), ("P", "R", "W"), ("Rfe", "W", "R")],
    "2+2W": [("P", "W", "W"), ("Coe", "W", "W"), ("P", "W", "W"), ("Coe", "W", "W")],
    "R":    [("P", "W", "W"), ("Coe", "W", "W"), ("P", "W", "R"), ("Fre", "R", "W")],
    "S":    [("P", "W", "W"), ("Rfe", "W", "R"), ("P", "R", "W"), ("Coe", "W", "W")],
    "IRIW": [("Rfe", "W", "R"), ("P", "R", "R"), ("Fre", "R", "W"), ("Rfe", "W", "R"), ("P", "R", "R"), ("Fre", "R", "W")],
    "WRC":  [("Rfe", "W", "R"), ("P", "R", "W"), ("Rfe", "W", "R"), ("P", "R", "R"), ("Fre", "R", "W")],
    "ISA2": [("P", "W", "W"), ("Rfe", "W", "R"), ("P", "R", "W"), ("Rfe", "W", "R"), ("P", "R", "R"), ("Fre", "R", "W")],
    "CoRR": [("Rfe", "W", "R"), ("S", "R", "R"), ("Fre", "R", "W")],
    "CoWW": [("S", "W", "W"), ("Coe", "W", "W")],
}
# Shapes whose reads after an Rfe may become a read-modify-write.
RMW_SHAPES = {"MP", "WRC", "ISA2", "S", "LB", "CoRR"}
FENCES = ["FenceRlx", "FenceCon", "FenceAcq", "FenceRel", "FenceAR", "FenceSc"]
W_ORDERS = ["Rlx", "Rel", "Sc"]
R_ORDERS = ["Rlx", "Acq", "Sc", "Con"]
RMW_ORDERS = [("Rlx", "Rlx"), ("Acq", "Rlx"), ("Rlx", "Rel"), ("Acq", "Rel"), ("Sc", "Sc")]


def ann(a, b):
    return "" if a == "Na" and b == "Na" else a + b


def draw(shape, rng):
    """One cycle of `shape` as diy edges, or None when the draw is not writable."""
    edges = [list(e) for e in SHAPES[shape]]
    # Maybe turn the read after an Rfe into an RMW (read, Rmw edge, write).
    if shape in RMW_SHAPES and rng.random() < 0.35:
        spots = [i for i, e in enumerate(edges) if e[0] == "Rfe" and edges[(i + 1) % len(edges)][0] in ("P", "S", "Fre")]
        if spots:
            i = rng.choice(spots)
            nxt = edges[(i + 1) % len(edges)]
            op = rng.choice(["Exch", "Fetch.Add"])
            if nxt[0] == "Fre":
                return None
            nxt[1] = "W"
            edges.insert(i + 1, [op, "R", "W"])
    n = len(edges)
    # Locations: a new one after each location-changing edge.
    loc, locs = 0, []
    nd = sum(1 for e in edges if e[0] == "P") or 1
    for e in edges:
        locs.append(loc % nd)
        if e[0] == "P":
            loc += 1
    types = [e[1] for e in edges]
    atomic = {l: rng.random() < 0.8 for l in set(locs)}
    orders = []
    for i in range(n):
        if not atomic[locs[i]]:
            orders.append("Na")
        elif types[i] == "W":
            orders.append(rng.choice(W_ORDERS))
        else:
            orders.append(rng.choice(R_ORDERS))
    for i, e in enumerate(edges):
        if e[0] in ("Exch", "Fetch.Add"):
            if not atomic[locs[i]]:
                return None
            orders[i], orders[(i + 1) % n] = rng.choice(RMW_ORDERS)
    out = []
    for i, e in enumerate(edges):
        a, b = orders[i], orders[(i + 1) % n]
        kind, s, d = e
        if kind == "P":
            choice = rng.random()
            if s == "R" and choice < 0.15:
                dep = rng.choice(["DpAddrd", "DpDatad", "DpCtrld"] if d == "W" else ["DpAddrd", "DpCtrld"])
                if dep == "DpCtrld" and d == "R":
                    dep = "DpAddrd"
                name = dep + d
            elif choice < 0.55:
                name = "Pod" + s + d
            else:
                name = rng.choice(FENCES) + "d" + s + d
        elif kind == "S":
            name = "Pos" + s + d
        else:
            name = kind
        out.append(name + ann(a, b))
    return out


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def generate(out_dir, per_shape, seed):
    rng = random.Random(seed)
    os.makedirs(out_dir, exist_ok=True)
    seen, names = set(), []
    for shape in SHAPES:
        made, tries = 0, 0
        while made < per_shape and tries < per_shape * 40:
            tries += 1
            cyc = draw(shape, rng)
            if cyc is None or " ".join(cyc) in seen:
                continue
            seen.add(" ".join(cyc))
            name = "%s+%03d" % (shape, made)
            # With -name, diyone7 writes NAME.litmus in its working directory.
            r = run([os.path.join(BIN, "diyone7"), "-arch", "C", "-oneloc", "-name", name] + cyc, cwd=out_dir)
            if r.returncode != 0 or not os.path.exists(os.path.join(out_dir, name + ".litmus")):
                continue
            names.append(name)
            made += 1
    return names


def herd(out_dir):
    files = sorted(f for f in os.listdir(out_dir) if f.endswith(".litmus"))
    env = dict(os.environ, HERDLIB=LIB)
    tmp = tempfile.mkdtemp()
    try:
        nonta = os.path.join(tmp, "rc11-nonta.cat")
        with open(os.path.join(LIB, "rc11.cat")) as f:
            text = f.read()
        assert "acyclic (sb | rf) as no-thin-air" in text
        with open(nonta, "w") as f:
            f.write(text.replace("acyclic (sb | rf) as no-thin-air", "(* No-Thin-Air removed *)"))
        for model, log in [(os.path.join(LIB, "rc11.cat"), "herd-rc11.log"), (nonta, "herd-rc11-nonta.log")]:
            r = run([os.path.join(BIN, "herd7"), "-macros", "c11.def", "-model", model] + files, cwd=out_dir, env=env)
            if r.returncode != 0:
                sys.exit("herd7 failed: " + r.stderr)
            lines = [l for l in r.stdout.splitlines() if not l.startswith("Time ")]
            with open(os.path.join(out_dir, log), "w") as f:
                f.write("\n".join(lines) + "\n")
    finally:
        shutil.rmtree(tmp)


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    out = args[0]
    per = int(args[args.index("--per-shape") + 1]) if "--per-shape" in args else 30
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    if "--herd-only" not in args:
        names = generate(out, per, seed)
        print("generated %d tests" % len(names))
    herd(out)


if __name__ == "__main__":
    main()
