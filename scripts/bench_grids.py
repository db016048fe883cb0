"""Issue 17's performance rows: puzzles on the cube and triangle grids, tilesat
against xcover on the same placements.

    python scripts/bench_grids.py [--quick] [--json OUT]

For each instance: the raw count and the classes up to symmetry, tilesat's
``count --up-to-symmetry`` time (``count_tilings(..., "dlx", up_to_symmetry=True)``:
placements, the grid's symmetry group, one unit per orbit of a piece used
once, each an exact cover in a forked child), a second run, and xcover
enumerating every tiling of the same placements in this process (its numba
code compiled and loaded by a warm-up first, like tilesat's), with the
ratio.  For the Soma cube also the ratio to the dedicated C++ solver's
0.024 s for all 240 classes (the issue's reference, not measured here).
The machine's load average is printed: the figures of one run are
comparable to each other, not across machines.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from tilesat import load_instance
from tilesat.questions.count import count_tilings
from tilesat.engines.dlx import covers, load_xcover
from tilesat.model.placements import generate_placements

ROOT = Path(__file__).resolve().parent.parent / "instances"
CASES = [("soma-cube.txt", 0.024), ("hexiamonds-6x6-rhombus.txt", None), ("solid-pentominoes-2x3x10.txt", None),
         ("tetrahexes-4x7-rhombus.txt", None), ("lozenge-hexagon-3x3x3.txt", None)]


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the first two instances only")
    ap.add_argument("--json", metavar="OUT", help="also write the table as JSON (scripts/bench_table.py's format)")
    args = ap.parse_args(argv)
    load_xcover()
    count_tilings(load_instance(ROOT / "soma-cube.txt"), "dlx", up_to_symmetry=True, certificates=False)  # warm-up
    load_at_start = os.getloadavg()[0]
    rows = []
    print(f"load average {load_at_start:.1f} on {os.cpu_count()} cores")
    print(f"{'instance':32} {'tilings':>8} {'classes':>8} {'tilesat':>8} {'again':>8} {'xcover':>8} {'ratio':>6}  reference")
    for name, reference in CASES[:2] if args.quick else CASES:
        inst = load_instance(ROOT / name)
        first, t1 = timed(lambda: count_tilings(inst, "dlx", up_to_symmetry=True, certificates=False))
        again, t2 = timed(lambda: count_tilings(inst, "dlx", up_to_symmetry=True, certificates=False))
        placements = generate_placements(inst)
        n, tx = timed(lambda: sum(1 for _ in covers(placements)))
        assert n == first.count == again.count, (name, n, first.count)
        ref = f"C++ {reference} s: x{t2 / reference:.0f}" if reference else ""
        print(f"{name:32} {first.count:>8,} {first.up_to_symmetry:>8,} {t1:>8.3f} {t2:>8.3f} {tx:>8.3f} {t2 / tx:>6.2f}  {ref}")
        rows.append([name, f"{first.count:,}", f"{first.up_to_symmetry:,}", f"{t1:.2f}", f"{t2:.2f}", f"{tx:.3f}",
                     f"{t2 / tx:.2f}", ref or "—"])
    if args.json:
        import bench_table

        bench_table.write(args.json, title="count --up-to-symmetry on other grids, against xcover listing every tiling",
                          columns=["instance", "tilings", "classes", "tilesat (s)", "again (s)",
                                   "xcover, all tilings (s)", "ratio", "reference"], rows=rows,
                          notes=["tilesat: `count --up-to-symmetry` by dancing links; again: a second run; xcover: "
                                 "listing every tiling of the same placements, in the same process; ratio: again / "
                                 "xcover. One run: the figures compare with each other only."],
                          load_at_start=load_at_start)


if __name__ == "__main__":
    main()
