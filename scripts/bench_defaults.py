#!/usr/bin/env python3
"""Measure check-unique time for every exactly-one encoding x cardinality
encoding x solver on instance files; prints a Markdown table and the
geometric mean per column, which is how the defaults were chosen.

    python scripts/bench_defaults.py instances/pentomino-*.txt instances/lpanel-20x20.txt
"""

from __future__ import annotations

import argparse
import math
import platform
import time

from tilesat import check_unique, load_instance
from tilesat.sat.encodings import ENCODINGS
from tilesat.sat.formula import CARD_ENCODINGS


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--cards", default="seqcounter,totalizer,kmtotalizer,cardnetwrk")
    ap.add_argument("--encodings", default=",".join(ENCODINGS))
    ap.add_argument("--solvers", default="cadical195")
    args = ap.parse_args(argv)
    cards = args.cards.split(",")
    assert set(cards) <= set(CARD_ENCODINGS)
    columns = [(e, c, s) for s in args.solvers.split(",") for c in cards for e in args.encodings.split(",")]
    times = {col: [] for col in columns}
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    for f in args.files:
        inst = load_instance(f)
        for col in columns:
            e, c, s = col
            t0 = time.perf_counter()
            verdict = check_unique(inst, method="sat", encoding=e, card=c, solver=s).verdict
            times[col].append(time.perf_counter() - t0)
            print(f"{f}\t{e}\t{c}\t{s}\t{verdict}\t{times[col][-1]:.3f}", flush=True)
    print("\n| encoding | card | solver | geo-mean s | max s |\n|---|---|---|---|---|")
    for col in sorted(columns, key=lambda k: math.prod(times[k]) ** (1 / len(times[k]))):
        ts = times[col]
        print(f"| {col[0]} | {col[1]} | {col[2]} | {math.prod(ts) ** (1 / len(ts)):.3f} | {max(ts):.3f} |")


if __name__ == "__main__":
    main()
