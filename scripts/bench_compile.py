#!/usr/bin/env python3
"""Where the time goes on a big board: placements, CNF, loading into the
solver, solving, decoding, checking; and our vectorised encodings against
building the same constraints one cell at a time with ``pysat.card``.

    python scripts/bench_compile.py --size 256 --encoding ladder
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np
from pysat.card import CardEnc, EncType

from tilesat import Board, Instance, compile_formula, generate_placements, parse_pieces, verify_tiling
from tilesat.certify.checks import obstruction
from tilesat.sat.formula import cell_constraints
from tilesat.sat.solvers import make_solver
from tilesat.model.tiling import tiling_from_model


def stage(name, fn, rows):
    t0 = time.perf_counter()
    out = fn()
    rows.append((name, time.perf_counter() - t0))
    print(f"  {name}: {rows[-1][1]:.3f} s", file=sys.stderr, flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--pieces", default="L3")
    ap.add_argument("--encoding", default="ladder")
    ap.add_argument("--solver", default="cadical195")
    ap.add_argument("--blocked", type=int, default=1,
                    help="cells to block: the first at (n/3, n/5), the others at random (seed 1)")
    args = ap.parse_args(argv)
    n = args.size
    grid = np.ones((n, n), dtype=bool)
    grid[n // 3, n // 5] = False  # 2^k x 2^k minus one cell: L-tromino tileable
    rng = np.random.default_rng(1)
    while (~grid).sum() < args.blocked:
        grid[tuple(rng.integers(0, n, 2))] = False
    inst = Instance(Board(grid), parse_pieces(args.pieces))
    rows: list = []
    placements = stage("placements", lambda: generate_placements(inst), rows)
    stage("quick checks", lambda: obstruction(inst, placements), rows)
    formula = stage("formula", lambda: compile_formula(placements, args.encoding), rows)
    solver = make_solver(args.solver)
    stage("load into solver", lambda: solver.add_formula(formula), rows)
    sat = stage("solve", solver.solve, rows)
    tiling, _ = stage("decode", lambda: tiling_from_model(placements, solver.model()), rows)
    stage("verify", lambda: verify_tiling(inst, tiling), rows)
    print(f"machine: {platform.machine()}, python {platform.python_version()}")
    print(f"{n}x{n} minus {args.blocked} cells, {args.pieces}, {args.encoding}, {args.solver}: {len(placements)} placements, "
          f"{formula.nvars} variables, {formula.nclauses} clauses, {'SAT' if sat else 'UNSAT'}\n")
    print("| stage | seconds |\n|---|---|")
    for name, secs in rows:
        print(f"| {name} | {secs:.3f} |")

    if args.encoding in ("seqcounter", "pairwise", "bitwise"):
        groups = cell_constraints(placements)
        t0 = time.perf_counter()
        top = len(placements)
        count = 0
        for lits in groups:
            for row in lits.tolist():
                cnf = CardEnc.equals(lits=row, bound=1, top_id=top, encoding=getattr(EncType, args.encoding))
                top = max(top, cnf.nv)
                count += len(cnf.clauses)
        per_cell = time.perf_counter() - t0
        ours = dict(rows)["formula"]
        print(f"\npysat.card one cell at a time: {per_cell:.3f} s for {count} clauses; "
              f"tilesat vectorised: {ours:.3f} s (ratio {per_cell / ours:.1f}x)")


if __name__ == "__main__":
    main()
