"""The engines whose search numba compiles: the enumerator (:mod:`.enumerator`),
the Pfaffian for dominoes (:mod:`.pfaffian`) and the frontier dynamic
programme (:mod:`.frontier`).  Described here, their code imported on first
use: importing numba takes half a second that a run choosing another engine
(or ``--help``) should not pay.

Their searches do not return to Python until they finish, so each runs in a
forked child that the deadline and Ctrl-C can kill
(:func:`tilesat.running.control.isolated`).
"""

from __future__ import annotations

import importlib
from typing import Callable, Iterator

import numpy as np

from ..model.instance import Instance
from ..running.control import call_in_child, isolated, isolated_stream
from .base import Context, Engine, Unit


def _module(name: str):
    return importlib.import_module(f"tilesat.engines.{name}")


class EnumeratorEngine(Engine):
    """The compiled enumerator: counts a unit without listing when no symmetry
    but the identity is asked about, lists tilings otherwise."""

    name = "native"
    questions = frozenset({"count", "list"})
    enumerates = True
    summary = "the compiled enumerator"
    # a fork per unit cost more than the search (6x10 pentominoes up to symmetry, 8 units: 0.43 s -> 0.27 s)
    units_in_one_child = True

    def problem(self, instance: Instance) -> str | None:
        return _module("enumerator").problem(instance)

    def preload(self) -> None:
        _module("enumerator").warm_up()

    def count_unit(self, ctx: Context, unit: Unit, on_tiling: Callable[[], None] = lambda: None,
                   limit: int | None = None) -> list[int]:
        if ctx.identity_only(unit):
            # counted without listing; each symmetry fixes every tiling (more than one when a
            # board map moves no placement: the half turn of a 1x2 board, found by tests/test_burnside.py)
            count = _module("enumerator").count
            return [isolated(count, ctx.instance, ctx.placements, unit.forced or None, what=self.name,
                             preload=self.preload)] * len(unit.syms)
        return super().count_unit(ctx, unit, on_tiling, limit)

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
