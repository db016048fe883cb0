#!/usr/bin/env python3
"""How ``--encoding auto`` chooses: check-unique time with pairwise and with
commander against the average number of placements covering an open cell.

    python scripts/bench_auto.py instances/*.txt --open 40x40:I2 --open 64x64:L3 --repeat 3

``--open RxC:PIECES`` adds an open R x C board of those pieces.  Prints a
Markdown table: mean candidates per cell, median seconds of each encoding,
their ratio, and what auto picks (pairwise up to
``AUTO_PAIRWISE_UP_TO`` candidates, else commander).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from tilesat import check_unique, generate_placements, load_instance, parse_instance
from tilesat.sat.encodings import AUTO_PAIRWISE_UP_TO
from tilesat.errors import TilesatError
from tilesat.sat.formula import resolve_encoding


def median_seconds(instance, repeat, give_up, budget=1.0):
    """Median check-unique seconds of pairwise and of commander, run in
    alternation (so that a slow spell of the machine hits both), at least
    ``repeat`` rounds and more while the rounds take under ``budget`` s."""
    times = {"pairwise": [], "commander": []}
    start = time.perf_counter()
    while True:
        for encoding, runs in times.items():
            t0 = time.perf_counter()
            check_unique(instance, method="sat", encoding=encoding)
            runs.append(time.perf_counter() - t0)
        rounds = len(times["pairwise"])
        slow = max(max(runs) for runs in times.values()) > give_up
        if slow or (rounds >= repeat and (time.perf_counter() - start > budget or rounds >= 100)):
            return {e: statistics.median(runs) for e, runs in times.items()}, rounds


def open_board(spec: str):
    """``RxC:PIECES`` -> (name, an open R x C instance of those pieces)."""
    try:
        size, pieces = spec.split(":", 1)
        rows, cols = map(int, size.lower().split("x"))
        return f"open {size} {pieces}", parse_instance(f"pieces: {pieces}\n" + f"{'.' * cols}\n" * rows)
    except (ValueError, TilesatError) as e:
        raise argparse.ArgumentTypeError(f"{spec!r}: want RxC:PIECES, e.g. 40x40:I2 ({e})") from None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--open", action="append", default=[], metavar="RxC:PIECES", type=open_board)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--give-up", type=float, default=10.0, help="stop repeating a cell slower than this (s)")
    args = ap.parse_args(argv)
    cases = [(os.path.basename(f), load_instance(f)) for f in args.files]
    cases += args.open
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"check-unique, median seconds (the encodings run in turns, at least {args.repeat} runs each, more "
          f"while they take under a second); auto: pairwise up to {AUTO_PAIRWISE_UP_TO:g}\n")
    print("| instance | candidates per cell | pairwise | commander | pairwise / commander | runs | auto picks |")
    print("|---|---|---|---|---|---|---|")
    for name, instance in cases:
        placements = generate_placements(instance)
        mean = placements.candidates_per_cell()
        medians, rounds = median_seconds(instance, args.repeat, args.give_up)
        pw, cm = medians["pairwise"], medians["commander"]
        print(f"| {name} | {mean:.1f} | {pw:.4f} | {cm:.4f} | {pw / cm:.2f} | {rounds} | "
              f"{resolve_encoding('auto', placements)} |", flush=True)


if __name__ == "__main__":
    main()
