#!/usr/bin/env python3
"""The big L-Panel boards of the benchmarks: unique-solution puzzles made
with ``tilesat.making.generate.generate_unique(..., fast=True)`` and fixed seeds.

    python scripts/make_lpanel.py 30 40          # writes instances/lpanel-gen-30x30.txt, ...
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tilesat import format_instance, parse_pieces
from tilesat.making.generate import generate_unique

INSTANCES = Path(__file__).resolve().parent.parent / "instances"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", type=int, nargs="+")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--force", action="store_true", help="overwrite existing files")
    args = ap.parse_args(argv)
    for n in args.sizes:
        path = INSTANCES / f"lpanel-gen-{n}x{n}.txt"
        if path.exists() and not args.force:
            raise SystemExit(f"{path} exists; pass --force to overwrite it")
        t0 = time.perf_counter()
        instance, tiles = generate_unique(n, n, parse_pieces("L4"), seed=args.seed, fast=True)
        seconds = time.perf_counter() - t0
        path.write_text(format_instance(instance, [
            f"Made by scripts/make_lpanel.py {n} --seed {args.seed} (generate_unique fast=True): a random L4 "
            f"packing, then {tiles} tiles blacked out until the tiling was unique ({seconds:.0f} s).",
            "expect: unique",
        ]))
        print(f"{path.name}: {instance.board.area} open cells, {tiles} tiles blacked out, {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main()
