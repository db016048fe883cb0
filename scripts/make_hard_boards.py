#!/usr/bin/env python3
"""Hard open boards (issue 15): a random packing of the pieces on an n x n
rectangle, the cells it leaves empty blocked.  Such a board has a tiling by
construction (the packing) and, open as it is, a great many others: what
check-unique must find is the *second* one, and one CDCL run's time to the
first is heavy-tailed (the hard-boards benchmark page).

The packing is built cell by cell in row-major order: each cell not yet
covered gets a random placement that starts there and fits (any allowed
piece), or stays empty, and is blocked.  L4 at 60x60 leaves about 5% of the
cells blocked, as the boards of the issue.

    python scripts/make_hard_boards.py --pieces L4 --sizes 30 60 --seeds 1 2   # instances/hard-L4-60x60-s1.txt, ...
    python scripts/make_hard_boards.py --pieces L4,T4 --sizes 40 --check        # also check it is not unique (tilesat)

Fixed seeds make the same boards again; ``--out DIR`` writes elsewhere.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from tilesat import format_instance, parse_pieces
from tilesat.model.board import Board
from tilesat.model.instance import Instance
from tilesat.model.placements import generate_placements
from tilesat.model.tiling import Tiling
from tilesat.certify.verify import verify_tiling

INSTANCES = Path(__file__).resolve().parent.parent / "instances"


def random_packing(n: int, pieces: str, seed: int) -> tuple[Instance, Tiling]:
    """The board (an n x n rectangle, the packing's empty cells blocked) and the packing, a tiling of it."""
    rng = random.Random(seed)
    rules = parse_pieces(pieces)
    full = generate_placements(Instance(Board.rectangle(n, n), rules))
    starts: list[list[int]] = [[] for _ in range(n * n)]
    cells_of = [full.cells_of(p).tolist() for p in range(len(full))]
    for p, cells in enumerate(cells_of):
        starts[min(cells)].append(p)  # where a row-major sweep first meets it
    covered = np.zeros(n * n, dtype=bool)
    chosen = []
    for c in range(n * n):
        if covered[c]:
            continue
        fits = [p for p in starts[c] if not covered[cells_of[p]].any()]
        if fits:
            p = rng.choice(fits)
            chosen.append(p)
            covered[cells_of[p]] = True
    instance = Instance(Board(covered.reshape(n, n)), rules)
    # the packing as a tiling of the new board (the same cell coordinates), checked independently
    tiling = verify_tiling(instance, Tiling.from_placements(full, chosen))
    return instance, tiling


def board_name(pieces: str, n: int, seed: int) -> str:
    return f"hard-{pieces.replace(',', '+').replace('/', '-')}-{n}x{n}-s{seed}.txt"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pieces", default="L4", help="a pieces: value, e.g. L4, L3, T4, P5, L4,T4 (default L4)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[60])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--out", type=Path, default=INSTANCES)
    ap.add_argument("--check", action="store_true",
                    help="check with tilesat check-unique that each board is not unique (slow at 60x60)")
    ap.add_argument("--force", action="store_true", help="overwrite existing files")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)  # a new folder for a benchmark's boards
    for n in args.sizes:
        for seed in args.seeds:
            path = args.out / board_name(args.pieces, n, seed)
            if path.exists() and not args.force:
                sys.exit(f"{path} exists; pass --force to overwrite it")
            instance, tiling = random_packing(n, args.pieces, seed)
            blocked = n * n - instance.board.area
            path.write_text(format_instance(instance, [
                f"Made by scripts/make_hard_boards.py --pieces {args.pieces} --sizes {n} --seeds {seed}: a random "
                f"packing of {len(tiling)} pieces, the {blocked} cells it left empty blocked.",
                "It has a tiling by construction (the packing) and, open as it is, many others.",
                "expect: multiple",
            ]))
            line = f"{path.name}: {instance.board.area} open cells, {blocked} blocked, {len(tiling)} pieces"
            if args.check:
                from tilesat.questions.solve import check_unique
                t0 = time.perf_counter()
                result = check_unique(instance, method="sat")
                line += f"; check-unique: {result.verdict} in {time.perf_counter() - t0:.1f} s"
                if result.verdict != "multiple":
                    print(line, flush=True)
                    sys.exit(f"{path.name}: expected multiple tilings, got {result.verdict}")
            print(line, flush=True)


if __name__ == "__main__":
    main()
