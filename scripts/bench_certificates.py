#!/usr/bin/env python3
"""Mutilated n x n boards (dominoes, two opposite corners removed): "no tiling".

For each n, three ways to reach the verdict:

- tilesat: ``solve`` as it runs by default (the classic colourings, then the
  search first, for as long as the LP is expected to take, then the LP), and with
  ``certificates="always"`` (``--certificate``: the LP first); a certificate is
  checked again here, and the table says what found it;
- plain CDCL: ``solve(method="sat", certificates=False)`` under a time limit;
- OR-Tools CP-SAT (one Boolean per placement, ExactlyOne per cell, one
  worker) under the same limit, when ortools is installed (the ``bench`` extra).

Prints a Markdown table of seconds (``>T`` when the limit passed first).

    python scripts/bench_certificates.py                      # n = 8 16 32 64 100 200 300
    python scripts/bench_certificates.py --sizes 8 16 --limit 30
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpsat_model import exact_cover_model  # noqa: E402

from tilesat import parse_instance, solve  # noqa: E402
from tilesat.certify.certificate import check_certificate
from tilesat.model.placements import generate_placements


def mutilated(n: int):
    rows = [["."] * n for _ in range(n)]
    rows[0][0] = rows[n - 1][n - 1] = "#"
    return parse_instance("pieces: domino\n" + "\n".join("".join(r) for r in rows) + "\n", source=f"mutilated {n}x{n}")


def tilesat(instance, certificates) -> tuple[float, str]:
    """Seconds, and what answered: a certificate (checked again here) from a classic colouring
    or from the LP, or the search."""
    t0 = time.perf_counter()
    result = solve(instance, certificates=certificates)
    seconds = time.perf_counter() - t0
    assert result.verdict == "none"
    if result.certificate is None:
        return seconds, "search"
    check_certificate(instance, result.certificate)  # again, outside the solve
    return seconds, "colouring" if "colouring" in result.certificate.stats else "LP"


def plain_sat(instance, limit: float) -> tuple[float | None, str]:
    t0 = time.perf_counter()
    result = solve(instance, method="sat", certificates=False, timeout=limit)
    seconds = time.perf_counter() - t0
    return (None, "unknown") if result.verdict == "unknown" else (seconds, result.verdict)


def cp_sat(instance, limit: float) -> tuple[float | None, str]:
    """In a fresh process: OR-Tools bundles its own HiGHS, which clashes with
    highspy's once that is loaded (an undefined symbol on import)."""
    n = instance.board.rows
    try:
        out = subprocess.run([sys.executable, __file__, "--cp-sat-only", str(n), str(limit)], capture_output=True,
                             text=True, timeout=limit + 120)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    seconds, what = json.loads(out.stdout.strip().splitlines()[-1])
    return seconds, what


def cp_sat_here(instance, limit: float) -> tuple[float | None, str]:
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        return None, "not installed"
    t0 = time.perf_counter()
    model, x = exact_cover_model(instance, generate_placements(instance))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = limit
    solver.parameters.num_workers = 1
    status = solver.Solve(model)
    seconds = time.perf_counter() - t0
    if status == cp_model.INFEASIBLE:
        return seconds, "none"
    return None, solver.StatusName(status).lower()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 16, 32, 64, 100, 200, 300])
    parser.add_argument("--limit", type=float, default=30.0, help="seconds for plain CDCL and CP-SAT (default 30)")
    parser.add_argument("--cp-sat-only", type=float, nargs=2, help=argparse.SUPPRESS)  # N LIMIT, in the child
    args = parser.parse_args()
    if args.cp_sat_only:
        print(json.dumps(cp_sat_here(mutilated(int(args.cp_sat_only[0])), args.cp_sat_only[1])))
        return
    print(f"<!-- {platform.machine()}, Python {platform.python_version()}, limit {args.limit:g} s -->")
    print("| n | open cells | tilesat (default) | tilesat --certificate | plain CDCL (--method sat --no-certificate) "
          "| OR-Tools CP-SAT (1 worker) |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        instance = mutilated(n)
        cells = ["{:.2f} ({})".format(*tilesat(instance, True)), "{:.2f} ({})".format(*tilesat(instance, "always"))]
        for run in (plain_sat, cp_sat):
            seconds, what = run(instance, args.limit)
            cells.append(f"{seconds:.2f}" if seconds is not None else (f">{args.limit:g}" if what != "not installed" else "—"))
        print(f"| {n} | {instance.board.area:,} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
