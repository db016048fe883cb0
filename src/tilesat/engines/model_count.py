"""#SAT engines: the formula's models counted without listing them, projected
on the placement variables (auxiliaries are not always determined by the
placements, so the projection matters).

- ``ganak``: exact projected model counting (``pyganak``);
- ``approx``: an (epsilon, delta) estimate by ApproxMC (``pyapproxmc``).

Neither returns to Python before it is done: each count runs in a forked
child (:func:`tilesat.running.control.isolated`).  The tilings a symmetry g
fixes are the models with x_p <-> x_g(p) added for every placement p.  A
formula a short SAT call refutes counts 0 without the counter (:func:`refuted`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..model.symmetry import Symmetry
from ..running.control import isolated
from ..running.stdout_guard import native_output
from .base import Context, Engine, Unit

#: Conflicts one CaDiCaL call may spend trying to refute a formula before a model counter
#: gets it.  Burnside asks for the tilings each symmetry fixes, often none: ganak took
#: 23-33 s to count that zero on the 3x3x3 lozenge hexagon's half turn (72 variables),
#: which CaDiCaL refutes in 20 conflicts.  A formula with models costs the budget at most.
REFUTE_CONFLICTS = 2_000


def refuted(clauses) -> bool:
    """Whether a SAT call proves ``clauses`` unsatisfiable within :data:`REFUTE_CONFLICTS`."""
    from pysat.solvers import Solver

    with Solver("cadical195", bootstrap_with=clauses) as solver:
        solver.conf_budget(REFUTE_CONFLICTS)
        return solver.solve_limited() is False


class ModelCounter(Engine):
    questions = frozenset({"count"})
    uses = ("encoding", "card")
    reports_each_tiling = False

    def __init__(self, name: str, exact: bool, summary: str):
        self.name, self.exact, self.summary = name, exact, summary

    def count_unit(self, ctx: Context, unit: Unit, on_tiling: Callable[[], None] = lambda: None,
                   limit: int | None = None) -> list[int]:
        return [self.model_count(ctx, unit.forced or None, g) for g in ctx.symmetries(unit)]

    def model_count(self, ctx: Context, forced: tuple[int, ...] | None, g: Symmetry | None) -> int:
        ctx.formula  # compiled here: a forked child inherits it
        return isolated(self._count, ctx, forced, g, what=self.name)

    def _count(self, ctx: Context, forced: tuple[int, ...] | None, g: Symmetry | None) -> int:
        clauses = list(ctx.formula.clauses())
        clauses.extend([p + 1] for p in forced or ())
        if g is not None and not g.is_identity:
            # tilings g maps to themselves: x_p <-> x_g(p) for every placement p
            p = np.arange(len(ctx.placements))
            q = g.placements
            moved = p != q
            a, b = p[moved] + 1, q[moved] + 1
            clauses.extend(np.stack([-a, b], axis=1).tolist())
        if refuted(clauses):
            return 0  # no model: never worth a model counter's start-up and search
        projection = list(range(1, len(ctx.placements) + 1))
        approx = ctx.approx
        with native_output():  # ganak prints "c o ..." lines on the process's stdout
            if self.name == "ganak":
                import pyganak

                counter = pyganak.Counter(seed=approx.seed)
                counter.add_clauses(clauses)
                counter.set_sampling_set(projection)
                return int(counter.count())
            import pyapproxmc

            counter = pyapproxmc.Counter(seed=approx.seed, epsilon=approx.epsilon, delta=approx.delta)
            counter.add_clauses(clauses)
            cells, hashes = counter.count(projection)
            return int(cells) * 2 ** int(hashes)


GANAK = ModelCounter("ganak", True, "exact #SAT")
APPROX = ModelCounter("approx", False, "ApproxMC estimate")
