#!/usr/bin/env python3
"""Lock and counter families of issue 27 in both compiler spellings.

    scripts/scale_families.py FAMILY THREADS SPELLING [relaxed]

FAMILY: ticketlock | caslock | cascounter; SPELLING: bne (the corpus branch
`bne r1, r2, LOOP`) or setp (`setp.ne.u32 p1, r2, r1; @p1 bra LOOP`, as nvcc
and clang emit it). `relaxed` weakens every acquire and release to relaxed.
Prints the litmus test; litmus/scale/ holds the ones with expected verdicts.
"""
import sys

WHY = {
    "ticketlock": "each holder of ticket k enters after its ld.acquire reads s == k from the st.release of "
    "ticket k-1 (8.9.4), so the critical sections are ordered by causality (8.10.6) and c ends at {n}",
    "caslock": "a thread enters after its atom.acquire.cas reads 0 from the previous holder's st.release "
    "(8.9.4; atomicity 8.10.3 lets one cas at a time take the lock), so the critical sections are ordered "
    "by causality (8.10.6) and c ends at {n}",
    "cascounter": "each successful atom.cas reads the value it compared (the load's, relaxed) and writes one "
    "more; atomicity (8.10.3) makes the successful cas a chain in coherence order, each reading its "
    "predecessor, so x ends at {n}",
}
WHY_RELAXED = ("with relaxed lock operations nothing orders the plain accesses of one critical section "
               "before the next (no release pattern, 8.9.4): a later holder may read an older c, so c may end "
               "below {n}")


def branch(spelling, a, b):
    if spelling == "bne":
        return [f"bne {a}, {b}, LOOP"]
    return [f"setp.ne.u32 p1, {a}, {b}", "@p1 bra LOOP"]


def body(family, spelling, relaxed):
    acq, rel = ("relaxed", "relaxed") if relaxed else ("acquire", "release")
    if family == "ticketlock":
        return (["atom.relaxed.gpu.add r1, t, 1", "LOOP:", f"ld.{acq}.gpu r2, s"] + branch(spelling, "r2", "r1")
                + ["ld.weak r3, c", "add r3, r3, 1", "st.weak c, r3", "add r4, r1, 1", f"st.{rel}.gpu s, r4"],
                "t = 0; s = 0; c = 0;", "c")
    if family == "caslock":
        return (["LOOP:", f"atom.{acq}.gpu.cas r1, l, 0, 1"] + branch(spelling, "r1", "0")
                + ["ld.weak r3, c", "add r3, r3, 1", "st.weak c, r3", f"st.{rel}.gpu l, 0"], "l = 0; c = 0;", "c")
    return (["LOOP:", "ld.relaxed.gpu r1, x", "add r2, r1, 1", "atom.relaxed.gpu.cas r3, x, r1, r2"]
            + branch(spelling, "r3", "r1"), "x = 0;", "x")


def test(family, n, spelling, relaxed=False):
    code, init, var = body(family, spelling, relaxed)
    name = f"{family}-{n}-{spelling}" + ("-relaxed" if relaxed else "")
    why = (WHY_RELAXED if relaxed else WHY[family]).format(n=n)
    verdict = "Sometimes" if relaxed else "Always"
    heads = " | ".join(f"P{i}@cta {i},gpu 0" for i in range(n))
    rows = "".join(" " + " | ".join([c] * n) + " ;\n" for c in code)
    return (f'PTX {name}\n"{n} threads, spelled with {spelling} (issue 27): {why}: {verdict}."\n'
            f"{{\n{init}\n}}\n {heads} ;\n{rows}forall ({var} == {n})\n")


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in WHY or sys.argv[3] not in ("bne", "setp"):
        sys.exit(__doc__)
    print(test(sys.argv[1], int(sys.argv[2]), sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == "relaxed"), end="")
