"""What count's certificate race costs where it finds nothing: 6x10 pentominoes
(2339 classes, target <= 0.3 s), counted in one process with the
check raced beside it (certificates=True) and without (False), alternately,
after a warm-up.  And what it gains: a mutilated board by dlx or blocking.

    python scripts/bench_count_certificate.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tilesat.questions.count import count_tilings
from tilesat.model.instance import parse_instance

ROOT = Path(__file__).resolve().parent.parent


def mutilated(n: int):
    rows = [["."] * n for _ in range(n)]
    rows[0][0] = rows[n - 1][n - 1] = "#"
    return parse_instance("pieces: domino\n" + "\n".join("".join(r) for r in rows) + "\n")


def timed(instance, **kw):
    t0 = time.perf_counter()
    r = count_tilings(instance, **kw)
    return time.perf_counter() - t0, r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    pent = parse_instance((ROOT / "instances" / "pentomino-6x10.txt").read_text())
    for kw in ({}, {"up_to_symmetry": True}):
        timed(pent, **kw)  # warm-up: numba, HiGHS in the children
        on, off = [], []
        for _ in range(args.rounds):
            for flag, into in ((True, on), (False, off)):
                seconds, r = timed(pent, certificates=flag, **kw)
                into.append(seconds)
        print(f"6x10 pentominoes {kw or ''} by {r.method}: check on median {statistics.median(on):.3f} s "
              f"(min {min(on):.3f}), off median {statistics.median(off):.3f} s (min {min(off):.3f})")
    for n, method in ((20, "dlx"), (20, "blocking"), (40, "dlx")):
        seconds, r = timed(mutilated(n), method=method)
        print(f"mutilated {n}x{n} by {method}: count {r.count} exact {r.exact} in {seconds:.2f} s "
              f"(certificate found: {r.certificate is not None}, LP answered after "
              f"{r.certificate_check.get('seconds')} s)")


if __name__ == "__main__":
    main()
