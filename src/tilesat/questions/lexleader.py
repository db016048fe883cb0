"""Counting tilings up to symmetry by lex-leader breaking (:mod:`tilesat.sat.symbreak`)
over the whole group: one SAT model per class."""

from __future__ import annotations

import time
from typing import Callable

from ..running.control import TimedOut, time_limit
from .count import CountResult
from ..sat.options import SatOptions
from .solve import TilingSearch
from ..sat.symbreak import is_lex_leader, orbit_size


def count_classes(instance, encoding: str, solver: str, card: str, timeout: float | None = None,
                  progress: Callable[[int, int, int], None] | None = None):
    """Count tilings up to symmetry by lex-leader breaking over the *whole*
    group: one SAT model per class (its least member, checked directly), and
    the raw count as the sum of the classes' sizes (orbit sizes computed
    from each representative).  A :class:`~tilesat.questions.count.CountResult`;
    on a time limit or Ctrl-C, lower bounds (exact False)."""
    options = SatOptions(encoding, solver, card, timeout)
    t0 = time.perf_counter()
    report = progress or (lambda tilings, done, total: None)
    why = "lex-leader symmetry breaking over the whole group: one tiling per class, its class's size counted from it"
    result = CountResult(0, True, "blocking", why, up_to_symmetry=0, encoding=encoding, solver=options.solver)
    classes = raw = 0
    try:
        with time_limit(options.timeout):
            search = TilingSearch(instance, options.encoding, options.solver, options.card,
                                  break_symmetry="full")
            with search:
                result.encoding = search.encoding
                group = search.group if search.group is not None else []
                result.group = [g.name for g in group] or ["identity"]
                result.reason = search.reason
                P = len(search.placements) if search.placements is not None else 0
                for _ in search:
                    chosen = search.last_chosen
                    if not is_lex_leader(group, chosen, P):
                        raise AssertionError("BUG: a model of the lex-leader formula is not the least of its orbit")
                    classes += 1
                    raw += orbit_size(group, chosen) if group else 1
                    report(raw, 0, 1)
    except TimedOut:
        result.timed_out, result.exact = True, False
    except KeyboardInterrupt:
        result.interrupted, result.exact = True, False
    result.count = raw
    # stopped early: the tilings of the classes found are a lower bound; the classes
    # found are too, but count's output reads a class count as exact or estimated
    result.up_to_symmetry = classes if result.exact else None
    result.seconds = time.perf_counter() - t0
    return result
