#!/usr/bin/env python3
"""Derive C11 compare-exchange tests from the read-modify-writes of a corpus
and record herd7's verdicts.

  scripts/c11_cas.py SRC_DIR OUT_DIR [--seed S]

diy7 writes no compare-exchange (its C read-modify-writes are Exch and
Fetch.Add), so each test of SRC_DIR (a corpus of scripts/c11_corpus.py) with
one such read-modify-write `int rK = atomic_exchange_explicit(x, v, mo)` whose
register the condition fixes (`T:rK=w`) becomes two tests: the same cycle
with `atomic_compare_exchange_{strong,weak}_explicit(x, e, d, mo, fmo)` in its
place, where `e` is a new plain location of that thread initialised to w, `d`
is what the read-modify-write writes after reading w (v for Exch, w+v for
Fetch.Add), fmo a failure order drawn (seeded) from relaxed, consume, acquire,
seq_cst, and the condition asks `T:rK=1` (the exchange succeeded, so it read
w) and observes `[e]`. herd7 then decides them under rc11.cat and under
rc11.cat without No-Thin-Air, the logs beside the tests as c11_corpus.py
writes them. The committed set is
`scripts/c11_cas.py tests/c11/corpus tests/c11/cas --seed 1`.
Needs ../shared/tools/herdtools7 (or HERDTOOLS=DIR).
"""
import os, random, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from c11_corpus import herd  # noqa: E402

RMW = re.compile(r"int (r\d+) = atomic_(exchange|fetch_add)_explicit\((\w+),(-?\d+),(memory_order_\w+)\);")
FAILURE = ["memory_order_relaxed", "memory_order_consume", "memory_order_acquire", "memory_order_seq_cst"]


def thread_of(text, pos):
    """The number of the thread function whose body holds `pos`."""
    heads = [(m.start(), int(m.group(1))) for m in re.finditer(r"^P(\d+) \(", text, re.M)]
    return max((h for h in heads if h[0] < pos), default=(0, 0))[1]


def derive(text, weak, failure):
    """The compare-exchange variant of one test, or None when it has no usable RMW."""
    found = list(RMW.finditer(text))
    if len(found) != 1:
        return None
    m = found[0]
    reg, op, loc, v, mo = m.groups()
    t = thread_of(text, m.start())
    cond = re.search(r"\b%d:%s=(-?\d+)" % (t, reg), text)
    if cond is None:
        return None
    w = int(cond.group(1))
    desired = int(v) if op == "exchange" else w + int(v)
    kind = "weak" if weak else "strong"
    call = "int %s = atomic_compare_exchange_%s_explicit(%s,e,%d,%s,%s);" % (reg, kind, loc, desired, mo, failure)
    out = text[: m.start()] + call + text[m.end():]
    out = out.replace("%d:%s=%d" % (t, reg, w), "%d:%s=1" % (t, reg), 1)
    # The thread's parameters gain `int* e`; the init block sets it; the condition observes it.
    head = re.search(r"^(P%d \()([^)]*)\)" % t, out, re.M)
    out = out[: head.end(2)] + ",int* e" + out[head.end(2):]
    out = re.sub(r"^\{\}$|^\{", lambda b: "{ e = %d; }" % w if b.group(0) == "{}" else "{ e = %d; " % w, out, 1,
                 flags=re.M)
    out = re.sub(r"^exists \((.*)\)$", r"locations [e;]\nexists (\1)", out, 1, flags=re.M)
    return out


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    src, out = args[0], args[1]
    rng = random.Random(int(args[args.index("--seed") + 1]) if "--seed" in args else 1)
    os.makedirs(out, exist_ok=True)
    made = 0
    for f in sorted(os.listdir(src)):
        if not f.endswith(".litmus"):
            continue
        with open(os.path.join(src, f)) as h:
            text = h.read()
        for weak in (False, True):
            variant = derive(text, weak, rng.choice(FAILURE))
            if variant is None:
                continue
            name = f[: -len(".litmus")] + ("+casw" if weak else "+cas")
            variant = re.sub(r"^C \S+", "C " + name, variant, 1)
            with open(os.path.join(out, name + ".litmus"), "w") as h:
                h.write(variant)
            made += 1
    print("derived %d tests" % made)
    herd(out)


if __name__ == "__main__":
    main()
