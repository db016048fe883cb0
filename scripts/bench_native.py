"""Issue 13's performance rows for the native engine, against xcover.

    python scripts/bench_native.py            # compiled code from numba's cache
    NUMBA_CACHE_DIR=$(mktemp -d) python scripts/bench_native.py   # cold: compiles

First the warm-up (:func:`tilesat.engines.enumerator.warm_up`: compiling, about 11 s,
or loading numba's cache, under a second).  Then each row: the instance,
the raw count (and classes up to symmetry where the issue asks), and
seconds: the first run (tables built), a second run, and xcover's full
enumeration of the same tilings in the same process, with the ratio
(second run / xcover).
Classes are counted as ``tilesat count --up-to-symmetry`` will: units of
:func:`tilesat.questions.count.plan_units` (one piece used once, fixed to one
placement per orbit), each counted with ``forced``; units whose placement a
symmetry fixes enumerate their tilings to test them (Burnside per unit).
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction

from tilesat.engines import enumerator
from tilesat.questions.count import plan_units
from tilesat.engines.dlx import covers, load_xcover
from tilesat.model.instance import parse_instance
from tilesat.model.placements import generate_placements
from tilesat.model.symmetry import symmetry_group


def rect(pieces: str, rows: int, cols: int):
    if (rows, cols) == (8, 8):  # Scott's problem: the central 2x2 blocked
        grid = ["........"] * 3 + ["...##..."] * 2 + ["........"] * 3
        return parse_instance(f"pieces: {pieces}\n" + "\n".join(grid) + "\n")
    return parse_instance(f"pieces: {pieces}\n" + ("." * cols + "\n") * rows)


def classes(instance, placements, group) -> tuple[int, int]:
    """(raw count, classes) by units with a forced placement."""
    raw, total = 0, Fraction(0)
    for unit in plan_units(placements, group, split=False):
        syms = [group[i] for i in unit.syms]
        if len(syms) == 1:
            fixed = [enumerator.count(instance, placements, forced=unit.forced)]
        else:
            fixed = [0] * len(syms)
            for chosen in enumerator.tilings(instance, placements, forced=unit.forced):
                for j, g in enumerate(syms):
                    fixed[j] += g.is_identity or g.fixes(chosen)
        raw += unit.weight * fixed[0]
        total += Fraction(sum(fixed), len(syms))
    assert total.denominator == 1
    return raw, int(total)


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


ROWS = [
    ("6x10 pentominoes, classes", "pentominoes:1", 6, 10, True, (9356, 2339)),
    ("6x10 pentominoes, raw", "pentominoes:1", 6, 10, False, 9356),
    ("5x12 pentominoes, classes", "pentominoes:1", 5, 12, True, (4040, 1010)),
    ("4x15 pentominoes, classes", "pentominoes:1", 4, 15, True, (1472, 368)),
    ("3x20 pentominoes, classes", "pentominoes:1", 3, 20, True, (8, 2)),
    ("5x8 two of each tetromino, raw", "tetrominoes:2", 5, 8, False, 3106),
    ("8x8 less 2x2 pentominoes, classes", "pentominoes:1", 8, 8, True, (520, 65)),
]


def main() -> int:
    t = time.perf_counter()
    enumerator.warm_up()
    print(f"warm-up (compile or load numba's cache): {time.perf_counter() - t:.2f} s")
    load_xcover()
    print(f"{'instance':34} {'count':>12} {'first s':>8} {'warm s':>8} {'xcover s':>9} {'ratio':>6}")
    for name, pieces, rows, cols, sym, want in ROWS:
        inst = rect(pieces, rows, cols)
        P = generate_placements(inst)
        if sym:
            group = symmetry_group(P)
            got, first = timed(classes, inst, P, group)
            _, warm = timed(classes, inst, P, group)
            shown = f"{got[0]}/{got[1]}"
        else:
            got, first = timed(enumerator.count, inst, P)
            _, warm = timed(enumerator.count, inst, P)
            shown = str(got)
        assert got == want, (name, got, want)
        if pieces == "pentominoes:1":
            n, xc = timed(lambda: sum(1 for _ in covers(P)))
            assert n == (want[0] if sym else want)
            ratio = f"{warm / xc:6.3f}"
            xcs = f"{xc:9.2f}"
        else:
            xcs, ratio = f"{'-':>9}", f"{'-':>6}"  # exact cover cannot say "2 copies"
        print(f"{name:34} {shown:>12} {first:8.3f} {warm:8.3f} {xcs} {ratio}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
