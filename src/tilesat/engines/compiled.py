"""The compiled engines: the enumerator (:mod:`.enumerator`, C), the Pfaffian
for dominoes (:mod:`.pfaffian`) and the frontier dynamic programme
(:mod:`.frontier`), both numba.  Described here, their code imported on first
use: importing numba takes half a second that a run choosing another engine
(or ``--help``) should not pay.

The numba searches do not return to Python until they finish, so each runs in
a forked child that the deadline and Ctrl-C can kill
(:func:`tilesat.running.control.isolated`); the enumerator's C search runs in
slices in the calling process (the deadline, Ctrl-C and a unit's time budget
act between them), and a unit whose budget is spent stops where it stands
and hands back the rest (:mod:`tilesat.questions.balance`).
"""

from __future__ import annotations

import importlib
import time
from typing import Callable, Iterator

import numpy as np

from ..certify.verify import verify_tiling
from ..model.instance import Instance
from ..model.tiling import Tiling
from ..running.control import TimedOut, call_in_child, deadline, isolated, isolated_stream, wait_step
from .base import Context, Engine, Outcome, Unit

#: Random paths per estimate of a unit's size (a millisecond or so on the record boards).
PROBES = 300


def _module(name: str):
    return importlib.import_module(f"tilesat.engines.{name}")


class EnumeratorEngine(Engine):
    """The compiled enumerator: counts a unit without listing when no symmetry
    but the identity is asked about, lists tilings otherwise; in this process,
    slice by slice."""

    name = "native"
    questions = frozenset({"count", "list"})
    enumerates = True
    summary = "the compiled enumerator"
    splits = True

    def problem(self, instance: Instance) -> str | None:
        return _module("enumerator").problem(instance)

    def preload(self) -> None:
        _module("enumerator").warm_up()

    def count_unit(self, ctx: Context, unit: Unit, on_tiling: Callable[[], None] = lambda: None,
                   limit: int | None = None) -> list[int]:
        if limit is None:
            outcome = Outcome.from_tuple(self.run_within(ctx, unit, None))
            if outcome.rest:  # stopped at the deadline: these counts are not the unit's
                deadline().check()
                raise AssertionError("BUG: the enumerator stopped early without a deadline")
            return list(outcome.counts)
        return super().count_unit(ctx, unit, on_tiling, limit)

    def run_within(self, ctx: Context, unit: Unit, budget: float | None, seed: int = 1) -> tuple:
        """Counted here in slices: without listing when each symmetry fixes every tiling (more
        than one when a board map moves no placement: the half turn of a 1x2 board, found by
        tests/test_burnside.py), else each tiling listed, checked and tested against each
        symmetry; past the ``budget`` or the run's deadline, the search stops where it stands
        and hands back its parts, each estimated (the caller sees the deadline itself: what
        the unit counted by then is in the outcome, not lost with a TimedOut)."""
        enumerator = _module("enumerator")
        t0 = time.perf_counter()

        def over() -> bool:
            try:
                wait_step()  # the count's watchers (the LP beside it), and the deadline
            except TimedOut:
                return True
            return budget is not None and time.perf_counter() - t0 > budget

        tables = enumerator._tables(ctx.instance, ctx.placements)
        search = enumerator.Search(tables, unit.forced, excluded=unit.excluded)
        syms = ctx.symmetries(unit)
        if ctx.identity_only(unit):
            found = 0
            while not search.done:
                found += search.run()
                if over():
                    break
            counts = [found] * len(syms)
        else:
            counts, n = [0] * len(syms), 0
            for chosen in search.slices(over):
                if n == 0:
                    verify_tiling(ctx.instance, Tiling.from_placements(ctx.placements, chosen.tolist()))
                elif not ctx.covers_once(chosen):
                    raise AssertionError("BUG: native returned a non-tiling")
                n += 1
                for j, g in enumerate(syms):
                    counts[j] += g is None or g.is_identity or bool(g.fixes(chosen))
        rest = [] if search.done else search.split()
        estimates = [enumerator.Search(tables, f, excluded=e).estimate(PROBES, seed) for f, e in rest]
        return Outcome(counts, time.perf_counter() - t0, search.nodes, rest, estimates).as_tuple()

    def estimate_unit(self, ctx: Context, unit: Unit, probes: int, seed: int = 1) -> tuple[float, float]:
        """Knuth's estimate: the mean over ``probes`` random paths from the unit's root."""
        enumerator = _module("enumerator")
        tables = enumerator._tables(ctx.instance, ctx.placements)
        return enumerator.Search(tables, unit.forced, excluded=unit.excluded).estimate(probes, seed)

    def tilings(self, ctx: Context, forced: tuple[int, ...] | None, limit: int | None) -> Iterator[np.ndarray]:
        stream = isolated_stream(_module("enumerator").tilings, ctx.instance, ctx.placements, forced,
                                 what=self.name, preload=self.preload)
        yield from ctx.checked(stream, limit)


class WholeCounter(Engine):
    """An engine that counts a whole instance at once, without listing: fix(identity)
    by its own count, every other symmetry's fixed tilings as the exact covers of
    the quotient (:mod:`.burnside`), in one unit."""

    questions = frozenset({"count"})
    whole = True
    reports_each_tiling = False

    def __init__(self, name: str, summary: str):
        self.name, self.summary = name, summary

    def problem(self, instance: Instance) -> str | None:
        return _module(self.name).problem(instance)

    def lp_beside(self) -> str | None:
        return f"the {self.name} engine counts in polynomial time and answers 0 as fast as the LP would"

    def count_unit(self, ctx: Context, unit: Unit, on_tiling: Callable[[], None] = lambda: None,
                   limit: int | None = None) -> list[int]:
        engine = _module(self.name)
        syms = ctx.symmetries(unit)
        if ctx.identity_only(unit):  # each fixes every tiling
            return [call_in_child(engine.count, ctx.instance, ctx.placements, what=self.name)] * len(syms)
        from .burnside import fixed_counts  # the other symmetries by their quotients

        return call_in_child(fixed_counts, engine, ctx.placements, syms, what=self.name)


NATIVE = EnumeratorEngine()
PFAFFIAN = WholeCounter("pfaffian", "Kasteleyn's determinant (dominoes)")
FRONTIER = WholeCounter("frontier", "transfer-matrix DP")
