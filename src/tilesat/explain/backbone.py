"""The backbone: the placements in every tiling, found by one solver under assumptions.

A placement of the first tiling is in every tiling exactly when the formula
with that placement banned has no model.  The classic algorithms (Janota,
Lynce and Marques-Silva, "Algorithms for computing backbones of
propositional formulae", AI Communications 2015) ask that question with one
incremental solver and use every model found to rule candidates out in bulk
(a placement a model leaves out is not in every tiling):

- ``iterative``: one question per candidate, ``-p`` assumed;
- ``chunked``: a whole chunk at once, "not all of these" as a clause switched
  on by an activation literal: no model proves the chunk, a model rules out
  at least one of it (and whatever else it leaves out); the chunk grows after
  a proof and shrinks after a model.  The first chunk is the whole first
  tiling: that question is check-unique's own;
- ``core``: the candidates of a chunk assumed left out all at once: a model
  rules them all out, an unsatisfiable core of one literal proves that
  placement, larger cores fall back to one question per literal.

Before the questions, the solver's phases are set to leave out the first
tiling's placements: each model then differs from it wherever it can, and
rules out the candidates of every ambiguous region at once.  Placements a
proof settles go in as unit clauses, which shortens the questions after it.
``scripts/bench_explain.py`` measures the three against each other and
against the naive way (a fresh solver for every candidate).
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ..sat.formula import Formula
from ..model.placements import Placements
from .solver import AssumingSolver

BACKBONE_METHODS = ("chunked", "iterative", "core")
DEFAULT_METHOD = "chunked"


class Backbone:
    """The backbone's computation and what it has proven so far.

    ``proven``: placements shown to be in every tiling; ``candidates``: those
    of the first tiling not yet decided (empty when :attr:`complete`);
    ``ruled_out``: first-tiling placements some model left out.  The state
    is kept up to date as the questions are answered, so that a run stopped
    by its time limit or Ctrl-C still says what it had (a partial backbone)."""

    def __init__(self, solver: AssumingSolver, placements: Placements, first: np.ndarray,
                 progress: Callable[[str], None] | None = None):
        self.solver = solver
        self.placements = placements
        self.nplacements = len(placements)
        self.first = np.asarray(first, dtype=np.int64)
        self._progress = progress or (lambda message: None)
        # candidates in reading order of their first cell: a chunk is a patch of the board,
        # so that a model ruling out part of it points at one region
        start = placements.cells[placements.indptr[self.first]]
        self.order = self.first[np.argsort(start, kind="stable")]
        self.candidate = np.zeros(self.nplacements, dtype=bool)
        self.candidate[self.first] = True
        self.proven: list[int] = []
        self.second: np.ndarray | None = None  # the first model unlike the first tiling: a second tiling
        self.models = 1
        self.calls = 0
        self.seconds = 0.0

    @property
    def candidates(self) -> np.ndarray:
        return self.order[self.candidate[self.order]]

    @property
    def complete(self) -> bool:
        return not self.candidate.any()

    @property
    def ruled_out(self) -> np.ndarray:
        proven = np.zeros(self.nplacements, dtype=bool)
        proven[self.proven] = True
        return self.first[~self.candidate[self.first] & ~proven[self.first]]

    def run(self, method: str = DEFAULT_METHOD) -> "Backbone":
        t0 = time.perf_counter()
        try:
            self.solver.set_phases(-(self.first + 1))
            {"chunked": self._chunked, "iterative": self._iterative, "core": self._core}[method]()
        finally:
            self.seconds += time.perf_counter() - t0
        return self

    # -- the answers -------------------------------------------------------------------

    def _prove(self, ids) -> None:
        ids = [int(i) for i in ids]
        self.candidate[ids] = False
        self.proven.extend(ids)
        for i in ids:
            self.solver.add_clause([i + 1])

    def _filter(self) -> None:
        """A model: every candidate it leaves out is not in every tiling."""
        self.models += 1
        truth = self.solver.true_set(self.nplacements)
        if self.second is None:
            self.second = np.flatnonzero(truth)
        self.candidate &= truth

    def _ask(self, assumptions) -> bool:
        self.calls += 1
        left = int(self.candidate.sum())
        self._progress(f"backbone: {len(self.proven):,} tiles proven, {left:,} to decide")
        return self.solver.solve(assumptions)

    # -- the algorithms ----------------------------------------------------------------

    def _iterative(self) -> None:
        for p in self.order.tolist():
            if not self.candidate[p]:
                continue
            if self._ask([-(p + 1)]):
                self._filter()
            else:
                self._prove([p])

    def _chunked(self) -> None:
        size = len(self.order)
        while self.candidate.any():
            chunk = self.candidates[:size]
            act = self.solver.new_var()
            self.solver.add_clause([-act] + (-(chunk + 1)).tolist())
            try:
                sat = self._ask([act])
            finally:
                self.solver.add_clause([-act])  # the question is switched off for good
            if sat:
                self._filter()
                size = max(1, size // 2)
            else:
                self._prove(chunk)
                size *= 2

    def _core(self, size: int = 64) -> None:
        single: list[int] = []
        while self.candidate.any():
            for p in single:
                if self.candidate[p]:
                    if self._ask([-(p + 1)]):
                        self._filter()
                    else:
                        self._prove([p])
            single = []
            if not self.candidate.any():
                return
            chunk = self.candidates[:size]
            if self._ask((-(chunk + 1)).tolist()):
                self._filter()
                continue
            core = [-lit - 1 for lit in self.solver.core()]
            if len(core) == 1:
                self._prove(core)
            else:
                single = core


def first_tiling(solver: AssumingSolver, nplacements: int) -> np.ndarray | None:
    """The placements of a first tiling, or None when there is none."""
    if not solver.solve():
        return None
    return np.flatnonzero(solver.true_set(nplacements))


def naive_backbone(formula: Formula, first: np.ndarray, solver: str = "cadical195",
                   sample: int | None = None) -> tuple[list[int], int]:
    """The naive way, for the benchmark only: for each placement of the first
    tiling a fresh solver asks whether a tiling leaves it out (what a user
    running check-unique once per tile would do).  With ``sample``, only the
    first ``sample`` placements.  Returns (the backbone's placements among
    those asked, questions asked)."""
    proven, asked = [], 0
    for p in first.tolist()[:sample]:
        with AssumingSolver(formula, solver) as fresh:
            asked += 1
            if not fresh.solve([-(p + 1)]):
                proven.append(p)
    return proven, asked
