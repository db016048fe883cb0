#!/usr/bin/env python3
"""How long ``tilesat explain`` takes on an author's draft, and its backbone algorithms
against the naive way (docs/benchmarks/explain.md).

The boards: ``generate`` puzzles of L4 (unique), with some of their black groups of
cells shaped as an L4 opened again, so that they become ambiguous (the intended
tiling plus the opened tile still tiles them: never "none").  On each board, in one
process (start-up not counted), from the compiled formula and a first tiling:

- the backbone by each algorithm of ``tilesat.explain.backbone`` (chunked, the
  default; iterative; core), each on a fresh solver, all checked to agree;
- the naive way: one independent question per tile of the first tiling (a fresh
  solver loaded with the formula, asked for a tiling without that tile), what a
  user running a check once per tile would do, less the parsing and compiling each
  run would repeat.  On the big boards a sample of the tiles is asked and the time
  scaled to all of them (the column says "est.");
- N independent check-unique calls: one library ``check_unique`` on the board (compiling
  included) times the tiles of the first tiling;
- the whole explanation (``explain(..., repairs=1)``): the first tiling, backbone,
  regions and their ways, the fewest clues, and check-unique on the repaired board.

Tuning boards (used while writing explain) are seeds 1-3; the reported ones are
seeds 11-13, with their own openings.  Run with ``nice`` and say the load.

    python scripts/bench_explain.py                          # 30x30, 60x60, 100x100; seeds 11-13
    python scripts/bench_explain.py --sizes 30 60 --seeds 1 2 3 --boards /tmp/boards --json out.json
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_table import load_average, write  # noqa: E402

from tilesat import parse_pieces  # noqa: E402
from tilesat.model.board import Board  # noqa: E402
from tilesat.explain import explain  # noqa: E402
from tilesat.explain.backbone import BACKBONE_METHODS, Backbone, first_tiling, naive_backbone  # noqa: E402
from tilesat.explain.solver import AssumingSolver  # noqa: E402
from tilesat.sat.formula import compile_formula  # noqa: E402
from tilesat.making.generate import generate_puzzle  # noqa: E402
from tilesat.model.instance import Instance, format_instance, load_instance  # noqa: E402
from tilesat.model.placements import generate_placements  # noqa: E402
from tilesat.questions.solve import check_unique  # noqa: E402

#: Black L-shaped groups opened again: one per this many cells of the box.
CELLS_PER_OPENING = 90
NAIVE_SAMPLE = 40


def reopen(instance: Instance, groups: int, seed: int) -> Instance:
    """Open ``groups`` random groups of black cells shaped as a piece (placements of the
    full box lying wholly on black cells, not touching each other)."""
    rng = random.Random(seed)
    board = instance.board
    full = Instance(Board(np.ones(board.open.shape, dtype=bool)), instance.rules)
    placements = generate_placements(full)
    black = ~board.open.ravel()
    fits = [p for p in range(len(placements)) if black[placements.cells_of(p)].all()]
    rng.shuffle(fits)
    mask = board.open.ravel().copy()
    opened = 0
    for p in fits:
        cells = placements.cells_of(p)
        if mask[cells].any():
            continue
        mask[cells] = True
        opened += 1
        if opened == groups:
            break
    return Instance(Board(mask.reshape(board.open.shape)), instance.rules, instance.shapes, instance.source)


def draft(size: int, seed: int, cache: Path | None, difficulty: str | None = None) -> Instance:
    grade = f"-{difficulty}" if difficulty else ""
    path = cache / f"draft-L4-{size}x{size}{grade}-s{seed}.txt" if cache else None
    if path is not None and path.exists():
        return load_instance(path)
    puzzle = generate_puzzle(size, size, parse_pieces("L4"), seed=seed, difficulty=difficulty)
    board = reopen(puzzle.instance, max(1, size * size // CELLS_PER_OPENING), seed)
    if path is not None:
        cache.mkdir(parents=True, exist_ok=True)
        path.write_text(format_instance(board, [f"tilesat generate --size {size}x{size} --seed {seed}"
                                                f"{' --difficulty ' + difficulty if difficulty else ''}, then "
                                                f"{max(1, size * size // CELLS_PER_OPENING)} black L4 groups reopened "
                                                f"(scripts/bench_explain.py)"]))
    return board


def measure(instance: Instance, sample: int) -> dict:
    placements = generate_placements(instance)
    formula = compile_formula(placements, "auto")
    times, backbones = {}, {}
    for method in BACKBONE_METHODS:
        with AssumingSolver(formula) as solver:
            t0 = time.perf_counter()
            first = first_tiling(solver, len(placements))
            t1 = time.perf_counter()
            state = Backbone(solver, placements, first).run(method)
            times[method] = time.perf_counter() - t1
            times["first"] = t1 - t0
            backbones[method] = sorted(state.proven)
    assert all(b == backbones["chunked"] for b in backbones.values()), "the backbone algorithms disagree"
    n = len(first)
    t0 = time.perf_counter()
    proven, asked = naive_backbone(formula, first, sample=None if n <= sample else sample)
    naive = (time.perf_counter() - t0) * n / asked
    if asked == n:
        assert proven == sorted(set(proven)) and set(proven) == set(backbones["chunked"])
    t0 = time.perf_counter()
    check_unique(instance, certificates=False)
    one_check = time.perf_counter() - t0
    t0 = time.perf_counter()
    e = explain(instance, repairs=1)
    whole = time.perf_counter() - t0
    assert e.verdict == "multiple" and e.stopped is None
    clues = next((s for s in e.repairs if s.kind == "clues"), None)
    return {"open": instance.board.area, "regions": len(e.regions), "settled": 1 - e.unsettled / instance.board.area,
            "first": times["first"], **{m: times[m] for m in BACKBONE_METHODS}, "naive": naive,
            "checks": one_check * n,
            "naive_sampled": asked < n, "tiles": n, "explain": whole, "stages": e.stats["stages"],
            "clues": None if clues is None else (clues.size, clues.minimum)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[30, 60, 100])
    ap.add_argument("--seeds", type=int, nargs="+", default=[11, 12, 13])
    ap.add_argument("--difficulty", choices=["easy", "medium"], help="generate puzzles of this grade (default: "
                    "whatever is quickest, easy: propagation settles them; medium: probing is needed)")
    ap.add_argument("--boards", type=Path, help="keep the drafts here (and read them back on the next run)")
    ap.add_argument("--sample", type=int, default=NAIVE_SAMPLE, help="naive questions asked before scaling")
    ap.add_argument("--json", type=Path, help="write the table here (scripts/bench_table.py's format)")
    args = ap.parse_args(argv)
    load = load_average()
    rows = []
    header = ["board", "open cells", "regions", "settled", "first tiling s", "backbone: chunked s", "iterative s",
              "core s", "naive s", "naive / chunked", "N check-unique s (est.)", "explain s", "repair s",
              "fewest clues"]
    print(" | ".join(header))
    by_size: dict[int, list[dict]] = {}
    for size in args.sizes:
        for seed in args.seeds:
            m = measure(draft(size, seed, args.boards, args.difficulty), args.sample)
            by_size.setdefault(size, []).append(m)
            stages = m["stages"]
            repair = stages.get("repairs", 0.0) + stages.get("checking repairs", 0.0)
            row = [f"L4 {size}x{size}{' ' + args.difficulty if args.difficulty else ''} s{seed}", m["open"], m["regions"], f"{m['settled']:.1%}", f"{m['first']:.3f}",
                   f"{m['chunked']:.3f}", f"{m['iterative']:.3f}", f"{m['core']:.3f}",
                   f"{m['naive']:.1f}" + (" (est.)" if m["naive_sampled"] else ""),
                   f"{m['naive'] / max(m['chunked'], 1e-6):,.0f}x", f"{m['checks']:.1f}", f"{m['explain']:.2f}",
                   f"{repair:.2f}",
                   "" if m["clues"] is None else f"{m['clues'][0]} ({'minimum' if m['clues'][1] else 'best found'})"]
            rows.append(row)
            print(" | ".join(map(str, row)), flush=True)
    for size, ms in by_size.items():
        print(f"{size}x{size}: median backbone (chunked) {statistics.median(m['chunked'] for m in ms):.3f} s, "
              f"median explain {statistics.median(m['explain'] for m in ms):.2f} s")
    if args.json:
        notes = [
            "In one process (start-up and parsing not counted); each backbone algorithm on a fresh solver "
            "after the same first tiling; all three checked to find the same backbone.",
            "naive: one fresh solver per tile of the first tiling, loaded with the compiled formula and asked "
            f"for a tiling without that tile; on boards of more than {args.sample} tiles, {args.sample} tiles "
            "asked and the time scaled to all (est.).",
            "N check-unique: one library check_unique call on the board (compiling included), times the tiles of "
            "the first tiling: the literal naive way, a check per tile.",
            "explain: the whole explanation with one repair: first tiling, backbone, regions and their ways, the "
            "fewest clues (hitting-set loop), check-unique on the repaired board; repair s: the last two.",
            f"Boards: generate puzzles (L4, {args.difficulty or 'any grade (easy)'}, seeds "
            f"{', '.join(map(str, args.seeds))}) with one black L4 group "
            f"per {CELLS_PER_OPENING} cells reopened; the tuning boards were other seeds.",
        ]
        grade = f" ({args.difficulty} puzzles)" if args.difficulty else ""
        write(args.json, title=f"tilesat explain on an author's draft{grade}: the backbone against the naive way",
              columns=header, rows=rows, notes=notes, load_at_start=load)
    return 0


if __name__ == "__main__":
    sys.exit(main())
