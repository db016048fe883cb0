#!/usr/bin/env python3
"""The Polyomino Tiler's region-area rule inside CaDiCaL (issue 15), measured.

The Tiler rejects a partial tiling as soon as it encloses a region of empty
cells whose area no combination of pieces makes (for L-tetrominoes: an area
not divisible by 4).  Here that rule runs inside CaDiCaL 1.9.5 through
PySAT's IPASIR-UP interface (``connect_propagator``): the propagator
observes the placement variables, keeps which cells the true placements
cover, and after each propagation looks, from the cells next to a newly
placed piece, for an enclosed region of uncovered cells of at most
``--limit`` cells; when its area is not a multiple of the pieces' gcd it
gives the solver the clause "not all of the placements around it" (any
tiling that keeps them must tile the region with pieces inside it).

Three runs per board, first tiling only: plain CaDiCaL, CaDiCaL with a
propagator that observes the same variables and does nothing (the price of
the callbacks alone), and the area rule.

    python scripts/tiler_propagator.py --sizes 30 45 --seeds 1 2 3 --timeout 120
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
from pysat.engines import Propagator
from pysat.solvers import Solver

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_hard_boards import random_packing  # noqa: E402

from tilesat.running.control import TimedOut, call_in_child, time_limit  # noqa: E402
from tilesat.sat.formula import compile_formula  # noqa: E402
from tilesat.model.placements import generate_placements  # noqa: E402
from tilesat.model.tiling import tiling_from_model  # noqa: E402
from tilesat.certify.verify import verify_tiling  # noqa: E402


class Observer(Propagator):
    """Observes the placement variables and does nothing: what the callbacks cost."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def on_assignment(self, lit, fixed=False):
        self.calls += 1

    def on_new_level(self):
        pass

    def on_backtrack(self, to):
        pass

    def check_model(self, model):
        return True

    def decide(self):
        return 0

    def propagate(self):
        return []

    def provide_reason(self, lit):
        return []

    def has_clause(self):
        return False

    def add_clause(self):
        return []


class AreaRule(Observer):
    """The region-area rule: an enclosed region of uncovered cells must have an area the pieces can make."""

    def __init__(self, placements, limit: int):
        super().__init__()
        board = placements.instance.board
        self.cols = board.cols
        self.open = board.open.ravel().copy()
        self.gcd = math.gcd(*(r.piece.size for r in placements.instance.rules))
        self.limit = limit
        self.cells = [placements.cells_of(p).tolist() for p in range(len(placements))]
        self.owner = np.zeros(board.rows * board.cols, dtype=np.int64)  # placement var covering a cell, 0: none
        self.trail: list[int] = []  # true placement vars, in order
        self.levels: list[int] = []  # trail length at each decision level
        self.fresh: list[int] = []  # placed since the last check
        self.pending: list[list[int]] = []
        self.conflicts = 0
        n = board.rows * board.cols
        self.neighbours = []
        R, C = board.rows, board.cols
        for c in range(n):
            r, q = divmod(c, C)
            self.neighbours.append([x for x, ok in ((c - C, r > 0), (c + C, r < R - 1), (c - 1, q > 0), (c + 1, q < C - 1)) if ok])

    def on_assignment(self, lit, fixed=False):
        self.calls += 1
        if lit > 0:
            for c in self.cells[lit - 1]:
                self.owner[c] = lit
            self.trail.append(lit)
            self.fresh.append(lit)

    def on_new_level(self):
        self.levels.append(len(self.trail))

    def on_backtrack(self, to):
        if to < len(self.levels):
            keep = self.levels[to]
            for lit in self.trail[keep:]:
                for c in self.cells[lit - 1]:
                    self.owner[c] = 0
            del self.trail[keep:]
            del self.levels[to:]
        self.fresh = [lit for lit in self.fresh if self.owner[self.cells[lit - 1][0]] == lit]

    def _region(self, start: int):
        """The uncovered open region around ``start``, up to the limit (None: larger)."""
        seen, todo, border = {start}, [start], set()
        while todo:
            c = todo.pop()
            for x in self.neighbours[c]:
                if not self.open[x] or x in seen:
                    continue
                if self.owner[x]:
                    border.add(int(self.owner[x]))
                    continue
                seen.add(x)
                if len(seen) > self.limit:
                    return None, None
                todo.append(x)
        return seen, border

    def propagate(self):
        fresh, self.fresh = self.fresh, []
        checked = set()
        for lit in fresh:
            for c in self.cells[lit - 1]:
                for x in self.neighbours[c]:
                    if not self.open[x] or self.owner[x] or x in checked:
                        continue
                    region, border = self._region(x)
                    if region is None:
                        continue
                    checked |= region
                    if len(region) % self.gcd:
                        self.pending.append([-v for v in border])
                        self.conflicts += 1
                        return []
        return []

    def check_model(self, model):
        return True

    def has_clause(self):
        return bool(self.pending)

    def add_clause(self):
        return self.pending.pop()


def first_tiling(instance, mode: str, limit: int, encoding: str):
    placements = generate_placements(instance)
    formula = compile_formula(placements, encoding)
    solver = Solver(name="cadical195")
    formula.add_to(solver.add_clause)
    engine = None
    if mode != "plain":
        engine = Observer() if mode == "observer" else AreaRule(placements, limit)
        solver.connect_propagator(engine)
        for v in range(1, len(placements) + 1):
            solver.observe(v)
    t0 = time.perf_counter()
    sat = solver.solve()
    seconds = time.perf_counter() - t0
    tiling, _ = tiling_from_model(placements, solver.get_model())
    verify_tiling(instance, tiling)
    conflicts = solver.accum_stats()["conflicts"]
    return sat, seconds, conflicts, getattr(engine, "calls", 0), getattr(engine, "conflicts", 0)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pieces", default="L4")
    ap.add_argument("--sizes", type=int, nargs="+", default=[30])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--limit", type=int, default=40, help="largest enclosed region the rule looks at (cells)")
    ap.add_argument("--encoding", default="commander")
    args = ap.parse_args(argv)
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; first tiling, {args.encoding} + cadical195, "
          f"seconds (solver conflicts; callbacks; area-rule clauses)\n")
    print("| board | plain CaDiCaL | + observing propagator | + region-area rule |")
    print("|---|---|---|---|")
    for n in args.sizes:
        for seed in args.seeds:
            instance, _ = random_packing(n, args.pieces, seed)
            cells = []
            for mode in ("plain", "observer", "area"):
                try:
                    with time_limit(args.timeout):
                        _, s, conf, calls, rule = call_in_child(first_tiling, instance, mode, args.limit, args.encoding)
                    extra = "" if mode == "plain" else f"; {calls:,}" + ("" if mode == "observer" else f"; {rule:,}")
                    cells.append(f"{s:.1f} ({conf:,}{extra})")
                except TimedOut:
                    cells.append(f">{args.timeout:g}")
            print(f"| {args.pieces} {n}x{n} s{seed} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
