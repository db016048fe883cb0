"""Counting classes by lex-leader breaking (:mod:`tilesat.sat.symbreak`) over
the whole group: one SAT model per class (its least member, checked
directly), the raw count as the sum of the classes' sizes (each orbit's size
computed from its representative).  ``count --break-symmetry`` is this method."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from ..running.control import TimedOut
from ..sat.symbreak import is_lex_leader, orbit_size
from .base import Engine, Job
from .sat import TilingSearch


class LexLeaderEngine(Engine):
    name = "lexleader"
    questions = frozenset({"count"})
    uses = ("encoding", "solver", "card")
    plans_units = False
    summary = "lex-leader clauses leave one tiling per symmetry class for blocking clauses to count (--break-symmetry)"
    why = "lex-leader symmetry breaking over the whole group: one tiling per class, its class's size counted from it"

    def count_all(self, job: Job, result, report: Callable[[int, int, int], None]) -> None:
        """Fill ``result`` (a :class:`tilesat.questions.count.CountResult`); on a time
        limit or Ctrl-C, lower bounds (exact False)."""
        options = job.options
        result.why, result.up_to_symmetry = self.why, 0
        classes = raw = 0
        try:
            search = TilingSearch(job.instance, replace(options, timeout=None), break_symmetry="full")
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


LEXLEADER = LexLeaderEngine()
