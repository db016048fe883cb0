#!/usr/bin/env python3
"""Counting, side by side with what a user would pick instead.

In one process and one run: ``tilesat count --method auto`` (through the
library call the command makes) on the 6x10 pentomino board, raw and up to
symmetry, against the ``xcover`` package enumerating every exact cover of
the same board directly; dominoes (auto: the Pfaffian); and issue 13's rows
(Project Euler 161, L-trominoes, two of each tetromino, a holed 40x40 domino
board) with the engine ``auto`` picks; then the same up to symmetry (the
whole-instance engines through Burnside, :mod:`tilesat.engines.burnside`).
``--only`` runs some of the groups of rows.  Prints a Markdown table with seconds and the ratio tilesat/xcover.

    pip install -e ".[bench]" && python scripts/bench_count.py
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings

from tilesat import Board, Instance, parse_pieces
from tilesat.questions.count import count_tilings


def rectangle(rows, cols, pieces):
    return Instance(Board.rectangle(rows, cols), parse_pieces(pieces), source=f"{rows}x{cols}")


def xcover_count(rows, cols) -> int:
    """The 12 pentominoes on a rows x cols board as a user of xcover writes
    it: one option per placement (its cells and its piece), all solutions."""
    import xcover

    from tilesat import generate_placements

    placements = generate_placements(rectangle(rows, cols, "pentominoes:1"))
    options = [placements.cells_of(i).tolist() + [f"piece{int(placements.rule[i])}"] for i in range(len(placements))]
    return sum(1 for _ in xcover.covers(options))


def holed_dominoes(n: int, holes: int, seed: int) -> Instance:
    """An n x n board with ``holes`` random blocked cells, as many of each colour (so it may tile)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    grid = np.ones((n, n), dtype=bool)
    cells = rng.permutation(n * n)
    black = [c for c in cells if (c // n + c % n) % 2 == 0][: holes // 2]
    white = [c for c in cells if (c // n + c % n) % 2 == 1][: holes // 2]
    grid.flat[black + white] = False
    return Instance(Board(grid), parse_pieces("I2"), source=f"{n}x{n}-holes")


GROUPS = ["pentominoes", "dominoes", "issue13", "symmetry"]


def shown(r) -> str:
    """The count as the table shows it (huge ones by their digits), and the classes."""
    raw = f"{r.count:,}" if r.count < 10**24 else f"{len(str(r.count))} digits"
    return raw + (f" ({r.up_to_symmetry:,} classes)" if r.up_to_symmetry is not None else "")


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dominoes", type=int, nargs="+", default=[8, 10, 12], help="domino board sizes")
    ap.add_argument("--jobs", type=int, default=2, help="processes for the --jobs row")
    ap.add_argument("--only", nargs="+", choices=GROUPS, default=GROUPS, help="which groups of rows to run")
    ap.add_argument("--json", metavar="OUT", help="also write the table as JSON (scripts/bench_table.py's format)")
    args = ap.parse_args(argv)
    load_at_start = __import__("os").getloadavg()[0]
    rows = []
    if "pentominoes" in args.only:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import xcover

        list(xcover.covers([[0, 1], [1, 2], [2]]))  # numba's compile/load paid before timing either side
        six = rectangle(6, 10, "pentominoes:1")
        theirs, xs = timed(lambda: xcover_count(6, 10))
        for label, kwargs in (("raw count", {}), ("up to symmetry", {"up_to_symmetry": True}),
                              (f"up to symmetry, --jobs {args.jobs}", {"up_to_symmetry": True, "jobs": args.jobs})):
            r, s = timed(lambda: count_tilings(six, "auto", **kwargs))
            assert r.count == theirs == 9356, (r.count, theirs)
            rows.append((f"pentominoes 6x10, {label}", r.method, shown(r), s, xs))
    # the compiled engines' code loaded (numba's disk cache) before timing
    for engine in ("frontier", "pfaffian"):
        __import__(f"tilesat.{engine}", fromlist=["warm_up"]).warm_up()
    if "dominoes" in args.only:
        for n in args.dominoes:
            r, s = timed(lambda: count_tilings(rectangle(n, n, "I2"), "auto"))
            rows.append((f"dominoes {n}x{n}", r.method, shown(r), s, None))
    issue13 = (("trominoes (I3, L3) 9x12, Project Euler 161", rectangle(9, 12, "I3, L3")),
               ("L-trominoes 9x12", rectangle(9, 12, "L3")),
               ("2 of each tetromino, 5x8", rectangle(5, 8, "tetrominoes:2")),
               ("dominoes 40x40, 20 random holes", holed_dominoes(40, 20, seed=1)))
    if "issue13" in args.only:
        for name, inst in issue13:
            r, s = timed(lambda: count_tilings(inst, "auto"))
            rows.append((name, r.method, shown(r), s, None))
    if "symmetry" in args.only:
        # up to symmetry: Burnside, the identity by the engine, the other symmetries by their quotients
        for name, inst in (("dominoes 8x8", rectangle(8, 8, "I2")), ("dominoes 12x12", rectangle(12, 12, "I2")),
                           *issue13[:3]):
            r, s = timed(lambda: count_tilings(inst, "auto", up_to_symmetry=True))
            rows.append((f"{name}, up to symmetry", r.method, shown(r), s, None))
    print(f"machine: {platform.machine()}, {platform.python_version()}, {len(__import__('os').sched_getaffinity(0))} cores\n")
    columns = ["instance", "tilesat method", "count", "tilesat s", "xcover s (all covers)", "ratio tilesat/xcover"]
    table = [[name, method, answer, f"{s:.2f}", f"{x:.2f}" if x else "—", f"{s / x:.2f}" if x else "—"]
             for name, method, answer, s, x in rows]
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|")
    for row in table:
        print("| " + " | ".join(row) + " |")
    if args.json:
        import bench_table

        bench_table.write(args.json, title="count (auto) against xcover enumerating every exact cover", columns=columns,
                          rows=table, notes=["tilesat: the library call `tilesat count` makes (`--method auto`), in one "
                                             "process, numba's compiled code loaded from its disk cache before timing; "
                                             "one run per row, seconds."],
                          load_at_start=load_at_start)


if __name__ == "__main__":
    main()
